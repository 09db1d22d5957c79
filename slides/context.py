"""The typed deck context: everything the templates display, decided in Python.

A deck is a sequence of :class:`Stack` (one horizontal section each, usually one lesson
part) holding vertical :class:`Slide` objects. A slide's body is a tuple of blocks; text
inside blocks is a tuple of inline items (:data:`Runs`). Every number is a :class:`Num`
carrying its value key and the display text from the shared formatter, so the templates
never format, compute or choose anything: they read flags and print text.

All classes are frozen dataclasses, so tests can inspect a deck as plain data. Each class
has a ``kind`` naming the partial that displays it (``blocks/<kind>.html.j2``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "Agenda",
    "Block",
    "Bullets",
    "Cell",
    "Choice",
    "Cite",
    "Code",
    "Columns",
    "Deck",
    "Flow",
    "FlowStep",
    "Formula",
    "Heading",
    "Inline",
    "Item",
    "Math",
    "Num",
    "Panel",
    "Para",
    "Row",
    "Runs",
    "Slide",
    "Stack",
    "Switch",
    "Switcher",
    "Table",
    "Text",
    "TokenBox",
    "TokenStrip",
    "Video",
    "Word",
]


# --------------------------------------------------------------------------- inline items


@dataclass(frozen=True)
class Text:
    """Prose written for the deck (contains no digit: numbers are :class:`Num`)."""

    text: str
    kind: ClassVar[str] = "text"


@dataclass(frozen=True)
class Num:
    """One displayed number: ``<span data-key="KEY">TEXT</span>``, TEXT from the formatter."""

    key: str
    text: str
    kind: ClassVar[str] = "num"


@dataclass(frozen=True)
class Word:
    """A string from the worksheet (token, head or feature name), shown literally."""

    text: str
    sup: bool = False
    """Set as a superscript label, such as a head's name on its matrices."""
    kind: ClassVar[str] = "word"


@dataclass(frozen=True)
class Math:
    """An inline KaTeX formula (TeX source, rendered in the browser)."""

    tex: str
    kind: ClassVar[str] = "math"


@dataclass(frozen=True)
class Cite:
    """A published work named on the references slide (authors, title, year, section).

    The one kind of deck prose that may hold digits, because a year or a section number
    is part of a work's name, not a number of the lesson; it is shown as ``<cite>``.
    """

    text: str
    kind: ClassVar[str] = "cite"


Inline = Text | Num | Word | Math | Cite
Runs = tuple[Inline, ...]


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Para:
    """A paragraph; ``fragment`` is its reveal step (``None``: shown with the slide)."""

    runs: Runs
    fragment: int | None = None
    style: str = ""
    kind: ClassVar[str] = "para"


@dataclass(frozen=True)
class Item:
    """One bullet point."""

    runs: Runs
    fragment: int | None = None


@dataclass(frozen=True)
class Bullets:
    """A bulleted list; each item may be its own reveal step."""

    items: tuple[Item, ...]
    fragment: int | None = None
    kind: ClassVar[str] = "bullets"


@dataclass(frozen=True)
class Formula:
    """A display formula in KaTeX."""

    tex: str
    fragment: int | None = None
    kind: ClassVar[str] = "formula"


@dataclass(frozen=True)
class Cell:
    """One table cell; ``fill`` (a weight in [0, 1], from the value itself) shades it."""

    runs: Runs
    fragment: int | None = None
    style: str = ""
    fill: float | None = None


@dataclass(frozen=True)
class Row:
    """A table row: a label cell, the cells, and its reveal step."""

    label: Runs
    cells: tuple[Cell, ...]
    fragment: int | None = None
    style: str = ""


@dataclass(frozen=True)
class Table:
    """A labelled grid: matrices with token rows, step-by-step tables, weight bars.

    ``corner`` heads the label column, ``columns`` head the cells; ``style`` names the
    look (``matrix``, ``steps``, ``bars``, ``grid``, ``pixels``) and ``size`` the
    density chosen from the table's footprint (see :mod:`slides.lesson.layout`).
    """

    columns: tuple[Runs, ...]
    rows: tuple[Row, ...]
    corner: Runs = ()
    caption: Runs = ()
    style: str = "matrix"
    size: str = "roomy"
    fragment: int | None = None
    spans: tuple[int, ...] = ()
    """How many cells each column heading spans (all one when empty)."""
    kind: ClassVar[str] = "table"

    @property
    def width(self) -> int:
        """Cells in the widest row."""
        return max((len(row.cells) for row in self.rows), default=0)

    @property
    def header(self) -> bool:
        """Whether the table has a heading row (column headings or a corner label)."""
        return bool(self.columns or self.corner)


@dataclass(frozen=True)
class FlowStep:
    """One station of a shape flow: what it is and its shape."""

    label: Runs
    shape: Runs
    fragment: int | None = None


@dataclass(frozen=True)
class Flow:
    """Quantities joined by arrows, left to right (shapes through the layer)."""

    steps: tuple[FlowStep, ...]
    fragment: int | None = None
    kind: ClassVar[str] = "flow"


@dataclass(frozen=True)
class Code:
    """Lines of code; numbers inside are :class:`Num` like anywhere else."""

    lines: tuple[Runs, ...]
    fragment: int | None = None
    kind: ClassVar[str] = "code"


@dataclass(frozen=True)
class TokenBox:
    """One token of a sentence strip, with its position."""

    word: Word
    position: Num
    focus: bool = False


@dataclass(frozen=True)
class TokenStrip:
    """A sentence as token boxes; ``blank`` adds the slot of the word to predict."""

    boxes: tuple[TokenBox, ...]
    blank: bool = False
    fragment: int | None = None
    kind: ClassVar[str] = "tokens"


@dataclass(frozen=True)
class Agenda:
    """What a stack goes through: its slides' titles, listed on its title slide."""

    items: tuple[Runs, ...]
    fragment: int | None = None
    kind: ClassVar[str] = "agenda"


@dataclass(frozen=True)
class Columns:
    """Blocks side by side."""

    columns: tuple[tuple[Block, ...], ...]
    fragment: int | None = None
    kind: ClassVar[str] = "columns"


@dataclass(frozen=True)
class Panel:
    """One state of a switchable slide: the blocks for one sentence (and head)."""

    sentence: str
    head: int | None
    caption: Runs
    blocks: tuple[Block, ...]
    active: bool


@dataclass(frozen=True)
class Switch:
    """Precomputed panels; the switcher shows one and hides the others."""

    panels: tuple[Panel, ...]
    fragment: int | None = None
    kind: ClassVar[str] = "switch"


@dataclass(frozen=True)
class Video:
    """A rendered scene clip (path relative to ``index.html``) and its WebVTT captions URL."""

    src: str
    captions: str | None
    digest: str
    """sha256 of the clip, so the deck names exactly which rendering it embeds."""
    poster: str | None = None
    """A frame of the clip (path relative to ``index.html``) shown before it plays."""
    fragment: int | None = None
    kind: ClassVar[str] = "video"


Block = (Para | Bullets | Formula | Table | Flow | Code | TokenStrip | Columns | Switch | Video
         | Agenda)


# --------------------------------------------------------------------------- structure


@dataclass(frozen=True)
class Choice:
    """A switcher button: the value it selects, its label, and whether it starts pressed."""

    value: str
    label: Runs
    chosen: bool


@dataclass(frozen=True)
class Switcher:
    """Sentence and head buttons of a slide, and the state shown first."""

    sentences: tuple[Choice, ...]
    heads: tuple[Choice, ...]
    sentence: str
    head: int | None


@dataclass(frozen=True)
class Heading:
    """The kicker and title a switchable slide shows for one choice (``None``: any)."""

    sentence: str | None
    head: int | None
    kicker: Runs
    title: Runs
    active: bool


@dataclass(frozen=True)
class Slide:
    """One slide: title, body, speaker notes, and where it sits in the lesson.

    ``role`` names a slide with a place in its stack: ``title`` (the stack's first),
    ``clip`` (a rendered scene, at the stack's end) or ``references``. ``headings`` holds
    one kicker and title per switcher choice when they depend on it (else empty).
    """

    id: str
    title: Runs
    blocks: tuple[Block, ...]
    notes: tuple[Runs, ...]
    part: str
    head: int | None = None
    switcher: Switcher | None = None
    role: str = ""
    headings: tuple[Heading, ...] = ()

    @property
    def fragments(self) -> tuple[int, ...]:
        """The distinct reveal steps on this slide, in order."""
        return tuple(sorted(set(_fragments(self.blocks))))


@dataclass(frozen=True)
class Stack:
    """A vertical stack of slides: one section of the lesson."""

    id: str
    part: str
    title: Runs
    slides: tuple[Slide, ...]
    head: int | None = None


@dataclass(frozen=True)
class Deck:
    """The whole deck, ready to display."""

    title: str
    stacks: tuple[Stack, ...]

    @property
    def slides(self) -> tuple[Slide, ...]:
        """Every slide in presentation order."""
        return tuple(slide for stack in self.stacks for slide in stack.slides)


def _fragments(blocks: tuple[Block, ...]) -> list[int]:
    """Every fragment index used anywhere inside ``blocks``."""
    found: list[int] = []
    for block in blocks:
        if block.fragment is not None:
            found.append(block.fragment)
        if isinstance(block, Bullets):
            found += [item.fragment for item in block.items if item.fragment is not None]
        elif isinstance(block, Table):
            for row in block.rows:
                if row.fragment is not None:
                    found.append(row.fragment)
                found += [cell.fragment for cell in row.cells if cell.fragment is not None]
        elif isinstance(block, Flow):
            found += [step.fragment for step in block.steps if step.fragment is not None]
        elif isinstance(block, Columns):
            for column in block.columns:
                found += _fragments(column)
        elif isinstance(block, Switch):
            for panel in block.panels:
                found += _fragments(panel.blocks)
    return found
