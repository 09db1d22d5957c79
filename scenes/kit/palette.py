"""The lecture's one palette: head colours for heads only, one colour for negatives,
everything else neutral; and the WCAG contrast rule every text must pass.

Scenes and the kit take every colour from here. A colour that means something means one
thing: orange is head 1 wherever it appears, and never the bias flag or a loss curve.
"""

from __future__ import annotations

__all__ = [
    "BACKGROUND",
    "FAINT",
    "HEAD_COLOURS",
    "INK",
    "MIN_CONTRAST",
    "MUTED",
    "NEGATIVE",
    "NEUTRAL_FILL",
    "ON_DARK",
    "ON_LIGHT",
    "PANEL",
    "blend",
    "contrast",
    "ink_on",
    "luminance",
]

BACKGROUND = "#000000"
"""Manim's frame background."""
HEAD_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7")
"""Okabe–Ito orange, sky blue, bluish green and reddish purple: told apart with the
common colour-vision deficiencies. Used for heads and nothing else."""
NEGATIVE = "#FF8C8C"
"""Negative numbers: a light red no head uses (7.9:1 on the background)."""
INK = "#F2F2F2"
"""Text and the thing being pointed at."""
MUTED = "#A6A6A6"
"""Secondary text: labels, brackets, units (8.9:1 on the background)."""
FAINT = "#5C5C5C"
"""Lines and frames that carry no text."""
PANEL = "#1E1E1E"
"""Cards and boxes behind text."""
NEUTRAL_FILL = "#3A3A3A"
"""Fills that are not a head's: masked cells, bars of a model that is not a head."""
ON_DARK = "#FFFFFF"
ON_LIGHT = "#000000"
MIN_CONTRAST = 4.5
"""WCAG 2 AA for normal text."""


def _rgb(colour: str) -> tuple[float, float, float]:
    code = colour.lstrip("#")
    if len(code) != 6:
        raise ValueError(f"colour {colour!r}: expected #RRGGBB")
    return tuple(int(code[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(max(0.0, min(1.0, c)) * 255):02X}" for c in rgb)


def blend(colour: str, behind: str, opacity: float) -> str:
    """``colour`` painted at ``opacity`` over ``behind``."""
    top, bottom = _rgb(colour), _rgb(behind)
    return _hex(tuple(opacity * t + (1 - opacity) * b for t, b in zip(top, bottom, strict=True)))


def luminance(colour: str) -> float:
    """WCAG relative luminance of an sRGB colour."""

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two colours, from 1 to 21."""
    a, b = sorted((luminance(first), luminance(second)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def ink_on(fill: str) -> str:
    """The text colour, white or black, that reads best on ``fill``."""
    return ON_DARK if contrast(ON_DARK, fill) >= contrast(ON_LIGHT, fill) else ON_LIGHT
PIXEL_DARK = "#1A1A1A"
"""The darkest pixel of a drawn image patch."""
PIXEL_LIGHT = INK
"""The lightest pixel of a drawn image patch."""
