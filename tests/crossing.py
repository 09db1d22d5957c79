"""What a picture must never do at rest: two texts touching, or an edge through a text.

The dry runs check it after every animation and at every section end
(:mod:`tests.scene_runner`).
A text's box is its glyphs' box. Any other visible shape (a box, a rule, an outline, an
arrow, a filled cell or bar) may lie around a text, or around part of a line between two
glyphs, or away from it, but its edge must not pass through a glyph: an outline that
strikes a digit makes it unreadable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from manim import Mobject, Text, VMobject

TEXT_GAP = 0.04
"""Least space between two texts (frame units: about two pixels at 480p)."""

EDGE_GAP = 0.025
"""Least space between a text and the middle of an edge that passes beside it: more than
half of an outline's stroke (3.5 wide is 0.035 frame units)."""

_SAMPLES = np.linspace(0.0, 1.0, 7)


def _opaque(rgbas: np.ndarray) -> bool:
    """Whether any of these colours can be seen (one colour, the usual case, without a
    NumPy reduction: the dry runs ask this of every shape after every animation)."""
    if len(rgbas) == 1:
        return float(rgbas[0, 3]) > 0.01
    return bool(len(rgbas)) and float(rgbas[:, 3].max()) > 0.01


def _visible(part: VMobject) -> tuple[bool, bool]:
    """Whether its fill, and whether its stroke, can be seen (read from the colour arrays
    Cairo draws from, which is also much quicker than Manim's getters)."""
    return _opaque(part.fill_rgbas), part.stroke_width > 0 and _opaque(part.stroke_rgbas)


def _texts(mobjects: Iterable[Mobject]) -> list[Text]:
    found: dict[int, Text] = {}
    for top in mobjects:
        for mob in top.get_family():
            if isinstance(mob, Text) and any(any(_visible(g)) for g in mob.submobjects
                                              if isinstance(g, VMobject) and g.has_points()):
                found.setdefault(id(mob), mob)
    return list(found.values())


def _box(mob: Mobject) -> tuple[float, float, float, float]:
    points = mob.get_all_points()
    return (float(points[:, 0].min()), float(points[:, 1].min()),
            float(points[:, 0].max()), float(points[:, 1].max()))


def _edges(part: VMobject) -> np.ndarray:
    """The outline of a shape as short straight segments, shape ``(n, 2, 2)``."""
    points = part.points[:, :2]
    curves = points[: len(points) // 4 * 4].reshape(-1, 4, 2)
    if not len(curves):
        return np.zeros((0, 2, 2))
    t = _SAMPLES[None, :, None]
    a, b, c, d = (curves[:, i, None, :] for i in range(4))
    path = ((1 - t) ** 3 * a + 3 * (1 - t) ** 2 * t * b + 3 * (1 - t) * t ** 2 * c
            + t ** 3 * d)
    return np.stack([path[:, :-1], path[:, 1:]], axis=2).reshape(-1, 2, 2)


def _crossing(segments: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """For each box, whether any segment enters it (Liang–Barsky clipping)."""
    start, step = segments[:, None, 0, :], segments[:, None, 1, :] - segments[:, None, 0, :]
    low, high = boxes[None, :, :2], boxes[None, :, 2:]
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low, t_high = (low - start) / step, (high - start) / step
    enter = np.where(step == 0, np.where((start > low) & (start < high), -np.inf, np.inf),
                     np.minimum(t_low, t_high))
    leave = np.where(step == 0, np.where((start > low) & (start < high), np.inf, -np.inf),
                     np.maximum(t_low, t_high))
    first = np.maximum(enter.max(axis=2), 0.0)
    last = np.minimum(leave.min(axis=2), 1.0)
    return (first < last).any(axis=0)


def _name(mob: Mobject) -> str:
    left, bottom, right, top = _box(mob)
    what = repr(getattr(mob, "original_text", type(mob).__name__))[:40]
    return f"{what} ({left:.2f}, {bottom:.2f}, {right:.2f}, {top:.2f})"


def layout_faults(mobjects: Sequence[Mobject]) -> list[str]:
    """Texts that touch another text, and edges that pass through a text, as sentences."""
    texts = _texts(mobjects)
    faults = []
    boxes = np.array([_box(t) for t in texts]).reshape(-1, 4)
    for i, (first, box) in enumerate(zip(texts, boxes, strict=True)):
        rest = boxes[i + 1:]
        apart = np.maximum.reduce([rest[:, 0] - box[2], box[0] - rest[:, 2],
                                   rest[:, 1] - box[3], box[1] - rest[:, 3]])
        for j in np.flatnonzero(apart < TEXT_GAP):
            faults.append(f"{_name(first)} touches {_name(texts[i + 1 + j])}")
    if not texts:
        return faults
    in_text = {id(part) for t in texts for part in t.get_family()}
    grown = boxes + np.array([-EDGE_GAP, -EDGE_GAP, EDGE_GAP, EDGE_GAP])
    seen: set[int] = set()
    for top in mobjects:
        for part in top.family_members_with_points():
            if id(part) in in_text or id(part) in seen or not isinstance(part, VMobject) \
                    or not any(_visible(part)):
                continue
            seen.add(id(part))
            left, bottom, right, top_edge = _box(part)
            near = np.flatnonzero((grown[:, 0] < right) & (grown[:, 2] > left)
                                  & (grown[:, 1] < top_edge) & (grown[:, 3] > bottom))
            if not len(near):
                continue
            edges = _edges(part)
            crossed = near[_crossing(edges, grown[near])]
            faults += [f"an edge of {type(part).__name__} ({left:.2f}, {bottom:.2f}, "
                       f"{right:.2f}, {top_edge:.2f}) passes through {_name(texts[k])}"
                       for k in crossed if _through_glyphs(edges, texts[k])]
    return faults


def _through_glyphs(edges: np.ndarray, text: Text) -> bool:
    """Whether edges that cross a text's box pass through one of its glyphs (an outline
    may go round part of a line, between two glyphs)."""
    glyphs = np.array([_box(g) for g in text.submobjects if g.has_points()]).reshape(-1, 4)
    return bool(_crossing(edges, glyphs + np.array([-EDGE_GAP, -EDGE_GAP, EDGE_GAP,
                                                    EDGE_GAP])).any())


TITLE_BAND = 3.1
"""Shapes centred above this height (frame units) are the title's; the rest is content."""


def glance(mobjects: Sequence[Mobject]) -> tuple[int, int]:
    """What a viewer sees, in one pass over the visible shapes: a digest of the picture as
    drawn (every visible shape's points and colours; two moments with the same digest look
    the same, and the scenes use no animation that returns to where it began), and how many
    shapes stand under the title band (what a viewer has to look at)."""
    seen: set[int] = set()
    digest = []
    below = 0
    for top in mobjects:
        for part in top.family_members_with_points():
            if id(part) in seen or not isinstance(part, VMobject) or not any(_visible(part)):
                continue
            seen.add(id(part))
            digest.append((part.points.tobytes(), part.fill_rgbas.tobytes(),
                           part.stroke_rgbas.tobytes(), part.stroke_width))
            heights = (part.get_all_points() if part.submobjects else part.points)[:, 1]
            below += (float(heights.min()) + float(heights.max())) / 2 < TITLE_BAND
    return hash(tuple(digest)), below


def drawn(mobjects: Sequence[Mobject]) -> int:
    """A digest of the picture as drawn."""
    return glance(mobjects)[0]
