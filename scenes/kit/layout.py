"""Layout constants and helpers: fonts, sizes, the subtitle band, fitting."""

from __future__ import annotations

from collections.abc import Sequence

from manim import LEFT, RIGHT, Line, Mobject, config

from scenes.kit.palette import MUTED

FONT = "DejaVu Sans"


MONO = "DejaVu Sans Mono"


NUMBER_SIZE = 22


WORD_SIZE = 24


TITLE_SIZE = 34


LEAST_FIGURE_SIZE = 20.0
"""The least font size, once fitted, of a text that holds a figure: a digit then stands 2.5%
of the frame tall (12 px at 480p), legible from the back of a lecture hall."""


SAFE_BOTTOM = -config.frame_height / 2 + 0.15 * config.frame_height
"""Nothing is drawn below this line: the bottom 15% is where a player puts subtitles."""


BAR_UNIT = 2.2
"""Length of a weight bar at weight one (frame units, before a table's scale)."""


LONGEST_STILL = 8.0
"""The longest stretch, in seconds, in which nothing on screen moves."""


def fit(mob: Mobject, width: float | None = None, height: float | None = None) -> Mobject:
    """Shrink (never grow) ``mob`` to fit the given box."""
    if width is not None and mob.width > width:
        mob.scale_to_fit_width(width)
    if height is not None and mob.height > height:
        mob.scale_to_fit_height(height)
    return mob


def separator(width: float) -> Line:
    return Line(LEFT * width / 2, RIGHT * width / 2, stroke_color=MUTED, stroke_width=1.5)


def column_shifts(columns: Sequence[Mobject], left: float, gap: float = 0.55) -> list[float]:
    """Horizontal shifts that set columns side by side from ``left``, in order."""
    shifts, x = [], left
    for column in columns:
        shifts.append(x - column.get_left()[0])
        x += column.width + gap
    return shifts


CAPTION_WORDS_PER_SECOND = 2.8
"""Reading pace of a silent scene's captions (and of the tests' dry runs)."""
MIN_CAPTION_SECONDS = 2.0
