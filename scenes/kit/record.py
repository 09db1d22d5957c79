"""What a section end records: every text on screen, its figures' pixel boxes, its
colours and what is behind it; captions and marked silences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from manim import DOWN, LEFT, RIGHT, UP, Mobject, VMobject, config

from narration.voices import Speech
from scenes.kit.palette import BACKGROUND, blend


@dataclass
class CaptionRecord:
    text: str
    start: float
    end: float
    figures: list[tuple[str, str]]
    template: str
    slots: dict[str, str]
    words: dict[str, str]
    spoken: str
    speech: Speech | None
    """What the voice said and where it is; ``None`` when the scene is silent."""


@dataclass
class SilenceRecord:
    """A stretch the scene keeps silent on purpose, and why."""

    start: float
    end: float
    why: str


@dataclass
class TextRecord:
    """One text object visible at a section end."""

    kind: str
    text: str
    figures: list[tuple[str, str]]
    words: list[str]
    box: tuple[float, float, float, float]  # left, bottom, right, top in frame units
    font_size: float  # effective size after any scaling
    pixels: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Per figure: where its glyphs were drawn, ``(left, top, right, bottom)`` in pixels."""
    colours: list[str] = field(default_factory=list)
    """The fill colours of its glyphs (``#RRGGBB``, after their opacity over what is behind)."""
    behind: str = BACKGROUND
    """What is behind the text's centre: the fills under it, blended in drawing order."""
    figure_colours: list[str] = field(default_factory=list)
    """Per figure: the fill colour its glyphs were given (``#RRGGBB``)."""


@dataclass
class SectionRecord:
    name: str
    frame: int = 0
    """Index of the section's last video frame (counted from zero)."""
    texts: list[TextRecord] = field(default_factory=list)
    bars: list[dict[str, Any]] = field(default_factory=list)
    """Weight bars on screen: ``{"key", "drawn", "floor", "colour"}``: the weight the bar's
    length shows, and the least weight any bar shows (a shorter one would vanish)."""

    @property
    def figures(self) -> list[tuple[str, str]]:
        return [figure for record in self.texts for figure in record.figures]

    @property
    def placed(self) -> list[tuple[str, str, tuple[float, float, float, float]]]:
        """``(key, text, pixel box)`` of every figure on screen."""
        return [(key, text, box) for record in self.texts
                for (key, text), box in zip(record.figures, record.pixels, strict=True)]


def pixel_box(glyphs: Sequence[Mobject]) -> tuple[float, float, float, float]:
    """Where glyphs are drawn in the rendered frame: ``(left, top, right, bottom)`` pixels."""
    left = min(g.get_left()[0] for g in glyphs)
    right = max(g.get_right()[0] for g in glyphs)
    bottom = min(g.get_bottom()[1] for g in glyphs)
    top = max(g.get_top()[1] for g in glyphs)
    scale_x = config.pixel_width / config.frame_width
    scale_y = config.pixel_height / config.frame_height

    def px(x: float) -> float:
        return round((x + config.frame_width / 2) * scale_x, 2)

    def py(y: float) -> float:
        return round((config.frame_height / 2 - y) * scale_y, 2)

    return px(left), py(top), px(right), py(bottom)


def _hex(colour: Any) -> str:
    return str(colour.to_hex())[:7].upper()


@dataclass(frozen=True)
class Patch:
    """A filled shape as a text drawn over it sees it: its place in the drawing order,
    its box and its fill."""

    order: int
    box: tuple[float, float, float, float]
    """``(left, bottom, right, top)`` in scene units."""
    colour: str
    opacity: float


def patch(shape: VMobject, order: int) -> Patch:
    left, bottom = shape.get_corner(DOWN + LEFT)[:2]
    right, top = shape.get_corner(UP + RIGHT)[:2]
    return Patch(order, (float(left), float(bottom), float(right), float(top)),
                 _hex(shape.get_fill_color()), float(shape.get_fill_opacity()))


def _drawn_under(patches: Sequence[Patch], point: Any, before: int) -> str:
    """The colour at ``point`` from the patches drawn before ``before``, in order, over
    the background."""
    colour = BACKGROUND
    for shape in patches:
        left, bottom, right, top = shape.box
        if shape.order < before and left <= point[0] <= right and bottom <= point[1] <= top:
            colour = blend(shape.colour, colour, shape.opacity)
    return colour


def _visible(mob: Mobject) -> bool:
    return isinstance(mob, VMobject) and (
        float(mob.get_fill_opacity()) > 0.01 or float(mob.get_stroke_opacity()) > 0.01)
