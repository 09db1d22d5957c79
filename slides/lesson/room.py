"""Where a picture has room: the box each of its shapes takes, and a free spot of a given
size along its top edge, so that a legend added late (a head's name, say) can stand
inside the drawing's own box instead of growing it.

The boxes are estimates in the picture's units: a label's width comes from the caller's
measure of its glyphs (the pictures' average advance), its height from its size, turned
as the label is turned; a path's box holds all its points (a curve lies within its
control points).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence

from slides.context import Glyph, Label, Line, Path, Picture, Rect, Shape

__all__ = ["Box", "box", "free_spot"]

Box = tuple[float, float, float, float]
"""Left, top, right and bottom, in a picture's units."""

_ASCENT, _DESCENT = 0.8, 0.25
"""How far a label's letters reach above and below its baseline, as shares of its size."""

_COMMAND = re.compile(r"([MLQCZmlqcza])([^MLQCZmlqcza]*)", re.ASCII)


def _label_box(label: Label, width_of: Callable[[Sequence[Glyph], float], float]) -> Box:
    width = width_of(label.glyphs, label.size)
    left = {"start": 0.0, "middle": -width / 2, "end": -width}[label.anchor]
    corners = [(left + dx, dy) for dx in (0.0, width)
               for dy in (-_ASCENT * label.size, _DESCENT * label.size)]
    turn = math.radians(label.rotate)
    cos, sin = math.cos(turn), math.sin(turn)
    xs = [label.x + x * cos - y * sin for x, y in corners]
    ys = [label.y + x * sin + y * cos for x, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _path_box(path: Path) -> Box:
    """Every point the path data names, absolute (M, L, Q, C) or relative (m, l, q, c,
    and the end point of an arc ``a``, widened by its radii)."""
    xs: list[float] = []
    ys: list[float] = []
    x = y = 0.0
    for command, numbers in _COMMAND.findall(path.d):
        values = [float(v) for v in numbers.replace(",", " ").split()]
        if command == "a":
            for i in range(0, len(values) - 6, 7):
                rx, ry, dx, dy = values[i], values[i + 1], values[i + 5], values[i + 6]
                xs += [x - 2 * rx, x + 2 * rx]
                ys += [y - 2 * ry, y + 2 * ry]
                x, y = x + dx, y + dy
            continue
        for i in range(0, len(values) - 1, 2):
            px, py = values[i], values[i + 1]
            if command.islower():
                px, py = x + px, y + py
            xs.append(px)
            ys.append(py)
        if len(values) >= 2:
            x, y = xs[-1], ys[-1]
    pad = path.width / 2
    return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad


def box(shape: Shape, width_of: Callable[[Sequence[Glyph], float], float]) -> Box:
    """The box ``shape`` takes (a label's width measured by ``width_of(glyphs, size)``)."""
    if isinstance(shape, Rect):
        pad = shape.line / 2
        return shape.x - pad, shape.y - pad, shape.x + shape.w + pad, shape.y + shape.h + pad
    if isinstance(shape, Line):
        pad = shape.width / 2
        return (min(shape.x1, shape.x2) - pad, min(shape.y1, shape.y2) - pad,
                max(shape.x1, shape.x2) + pad, max(shape.y1, shape.y2) + pad)
    if isinstance(shape, Path):
        return _path_box(shape)
    return _label_box(shape, width_of)


def free_spot(picture: Picture, width: float, height: float,
              width_of: Callable[[Sequence[Glyph], float], float], clear: float,
              corner: bool = True, edge: float = 4.0) -> tuple[float, float] | None:
    """The top-left corner of a ``width`` × ``height`` box along the top edge of
    ``picture`` (``edge`` units in) that keeps ``clear`` units from every shape: in its
    top right or top left corner, or with ``corner`` false anywhere between, as far right
    as it goes; ``None`` when there is no such room. (Along the top, where a chart's
    headings and legends stand, not the bottom, where a box beside the last bar or
    column would read as one more.)"""
    taken = [box(shape, width_of) for shape in picture.shapes]
    right = picture.width - edge - width
    if right < edge or picture.height - 2 * edge < height:
        return None
    # flush right or left, or just left or right of a shape's box
    xs = [right, edge] if corner else sorted(
        {right, edge, *(b[0] - clear - width for b in taken), *(b[2] + clear for b in taken)},
        reverse=True)
    return next(((x, edge) for x in xs if edge <= x <= right and not any(
        x - clear < b[2] and b[0] < x + width + clear
        and edge - clear < b[3] and b[1] < edge + height + clear for b in taken)), None)
