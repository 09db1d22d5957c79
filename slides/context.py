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

import math
import re
from dataclasses import dataclass, replace
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
    "Explorer",
    "Flow",
    "FlowStep",
    "Formula",
    "Glyph",
    "Heading",
    "Inline",
    "Item",
    "Label",
    "Line",
    "Live",
    "LiveModel",
    "Math",
    "Num",
    "Panel",
    "Para",
    "Path",
    "Picture",
    "PromptGroup",
    "Rect",
    "Row",
    "Runs",
    "Shape",
    "Slide",
    "Slot",
    "Stack",
    "Start",
    "Sub",
    "Switch",
    "Switcher",
    "Table",
    "Text",
    "TokenBox",
    "TokenStrip",
    "Video",
    "Word",
    "number_pictures",
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

    @property
    def plain(self) -> tuple[tuple[str, str], ...]:
        """The formula without KaTeX, as ``(text, "" | "sub" | "sup")`` runs: for the
        speaker view, which shows the notes without the deck's style sheets."""
        return _plain_tex(self.tex)


_TEX_SYMBOLS = {"Delta": "Δ", "alpha": "α", "infty": "∞", "odot": " ⊙ ", "cdot": " · ",
                "top": "T", "times": " × ", "sqrt": "√"}


def _plain_tex(tex: str) -> tuple[tuple[str, str], ...]:
    """Plain runs of the little TeX the deck writes: symbols, ``\\operatorname{}``,
    ``\\sqrt{}``, thin spaces, and one level of subscripts and superscripts."""
    text = re.sub(r"\\operatorname\{([^}]*)\}", r"\1", tex).replace("\\,", "\u2009")
    text = re.sub(r"\\([A-Za-z]+) ?", lambda m: _TEX_SYMBOLS.get(m.group(1), m.group(1)), text)
    text = re.sub(" +", " ", text)
    runs: list[tuple[str, str]] = []
    for piece in re.finditer(r"([_^])(\{[^}]*\}|.)|([^_^]+)", text):
        if piece.group(3) is not None:
            run = (piece.group(3).replace("{", "").replace("}", ""), "")
        else:
            run = (piece.group(2).strip("{}"), "sub" if piece.group(1) == "_" else "sup")
        if run[0]:
            runs.append(run)
    return tuple(runs)


@dataclass(frozen=True)
class Cite:
    """A published work named on the references slide (authors, title, year, section).

    The one kind of deck prose that may hold digits, because a year or a section number
    is part of a work's name, not a number of the lesson; it is shown as ``<cite>``.
    """

    text: str
    kind: ClassVar[str] = "cite"


@dataclass(frozen=True)
class Slot:
    """Where the live slide's script writes a figure it computes in the browser:
    ``<span class="live-figure" data-live="NAME">``, empty in the page itself (no figure
    of the values, so nothing that ``lecture check`` could prove)."""

    name: str
    kind: ClassVar[str] = "slot"


Inline = Text | Num | Word | Math | Cite | Slot
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
    tone: str = ""
    """The palette tone its shaded cells take (a head's, as in its pictures); the accent
    when empty."""
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
    transcript: str | None = None
    """Its part of the lecture's transcript (a URL relative to ``index.html``), when the
    build has one beside the deck."""
    kind: ClassVar[str] = "video"


@dataclass(frozen=True)
class LiveModel:
    """One model of the live slide: its name in the experiment (``mlp``, ``headsN``), its
    name as the deck gives it, and its head count (``None``: the MLP)."""

    model: str
    name: Runs
    heads: int | None = None


@dataclass(frozen=True)
class PromptGroup:
    """One group of the live slide's example prompts: the experiment's ``kind`` of prompt
    and how the slide labels the group."""

    kind: str
    label: str


@dataclass(frozen=True)
class Live:
    """The trained models run in the browser (``static/live.js``): a prompt to type or
    pick, every model's continuation and speed, and one model's attention weights.

    Everything it shows is computed live, so the page holds no figure, only labels and
    :class:`Slot` places; ``scripts`` are the files the slide loads when it is first shown
    (paths relative to ``index.html``), ``messages`` the sentences its script says while
    it works, by name.
    """

    models: tuple[LiveModel, ...]
    groups: tuple[PromptGroup, ...]
    attention: str
    """The model whose attention weights are drawn."""
    heads: tuple[Runs, ...]
    """A label per head of that model."""
    prompt_label: Runs
    pick_label: str
    run_label: Runs
    coverage: Runs
    columns: tuple[Runs, ...]
    """Headings of the model, continuation and speed columns."""
    weights_caption: Runs
    weights_description: str
    """The accessible name of the weights' picture."""
    note: Runs
    scripts: tuple[str, ...]
    messages: tuple[tuple[str, str], ...]
    fragment: int | None = None
    kind: ClassVar[str] = "live"


@dataclass(frozen=True)
class Start:
    """A sentence the explorer can start from: the worksheet's name for it and its
    tokens' vocabulary ids."""

    name: str
    ids: tuple[int, ...]


@dataclass(frozen=True)
class Explorer:
    """The worksheet's own model in the browser (``static/explorer.js``): the student
    builds a sentence from the vocabulary and sees what the lesson computes for its last
    token, computed live: each head's query, key and value, its weights over the
    sentence, its message, the update and the predicted word.

    The block itself holds no figure, only labels and places (the lesson's
    :class:`~slides.lesson.explorer.OpenedExplorer` adds its first sentence's figures, so
    the page opens complete before the script runs); ``styles``
    names the display style (a :class:`~worksheet.Style` value) of each quantity shown,
    as the lecture formats the same quantity; ``scripts`` are the files the slide loads
    when it is first shown, ``messages`` the sentences its script says, by name.
    """

    vocab: tuple[str, ...]
    """The words a sentence is made of, by id."""
    starts: tuple[Start, ...]
    context: int
    """The most tokens a sentence may hold."""
    heads: tuple[Runs, ...]
    """A label per head."""
    styles: tuple[tuple[str, str], ...]
    start_label: Runs
    add_label: Runs
    pick_label: str
    """The first entry of the menu that adds a word."""
    remove_label: Runs
    word_label: str
    """The accessible name of the menu that changes a word of the sentence."""
    weights_label: Runs
    weights_description: str
    columns: tuple[Runs, ...]
    """Headings of the query, key, value and message columns."""
    update: Runs
    prediction: Runs
    note: Runs
    scripts: tuple[str, ...]
    messages: tuple[tuple[str, str], ...]
    fragment: int | None = None
    kind: ClassVar[str] = "explorer"


# --------------------------------------------------------------------------- pictures


@dataclass(frozen=True)
class Sub:
    """A subscript inside a picture's label, such as the O of W_O (no digit)."""

    text: str
    kind: ClassVar[str] = "sub"


Glyph = Text | Num | Word | Sub
"""What a picture's label may hold: prose, bound numbers, worksheet words, subscripts."""


@dataclass(frozen=True)
class Rect:
    """A rectangle of a picture: a bar, a cell, a box or a tensor's block.

    ``fill`` and ``stroke`` name palette tones (``head-1``, ``negative``, ``neutral``,
    ``masked``, ``paper``, ``ink``…, see ``static/pictures.css``); ``draws`` names the
    value key whose magnitude set the rectangle's length, and ``role`` what it stands for
    (``bar``, ``cell``, ``masked``, ``block``, ``box``…), so tests can read a picture as
    data.
    """

    x: float
    y: float
    w: float
    h: float
    fill: str = "paper"
    stroke: str = ""
    line: float = 0.0
    opacity: float = 1.0
    dashed: bool = False
    role: str = ""
    draws: str = ""
    fragment: int | None = None
    kind: ClassVar[str] = "rect"


@dataclass(frozen=True)
class Line:
    """A straight stroke (arrowheads are drawn as filled :class:`Path` triangles)."""

    x1: float
    y1: float
    x2: float
    y2: float
    tone: str = "faint"
    width: float = 1.5
    dashed: bool = False
    role: str = ""
    fragment: int | None = None
    kind: ClassVar[str] = "line"


@dataclass(frozen=True)
class Path:
    """A curved stroke (SVG path data ``d``): an attention arc whose ``width`` is a weight;
    ``filled`` paints the inside instead (an arrowhead)."""

    d: str
    tone: str
    width: float = 0.0
    filled: bool = False
    role: str = ""
    draws: str = ""
    fragment: int | None = None
    kind: ClassVar[str] = "path"


@dataclass(frozen=True)
class Label:
    """Text placed in a picture; every number in it is a :class:`Num`.

    A label holding one number alone is written ``<text data-key="KEY">TEXT</text>``;
    otherwise each number is a ``<tspan data-key="KEY">``.
    """

    x: float
    y: float
    glyphs: tuple[Glyph, ...]
    anchor: str = "start"
    """``start``, ``middle`` or ``end``."""
    tone: str = "ink"
    size: float = 18.0
    bold: bool = False
    rotate: float = 0.0
    fragment: int | None = None
    kind: ClassVar[str] = "label"

    @property
    def key(self) -> str | None:
        """The value key when the label is one number and nothing else."""
        only = self.glyphs[0] if len(self.glyphs) == 1 else None
        return only.key if isinstance(only, Num) else None


Shape = Rect | Line | Path | Label


ROW_BAND = 8.0
"""Labels of a picture less than this far apart in height (its units) are read as one
row of its description: a bar's name and its number, a row of token names."""
ZOOM = 1.25
"""How much larger than its own units a picture may be shown."""
PHONE_LABEL = 12.0
"""The least size, in CSS pixels, of a picture's labels on a phone."""


@dataclass(frozen=True)
class Picture:
    """A diagram drawn from the values, as inline SVG: every coordinate decided in Python.

    ``description`` is its accessible name (``aria-label``); ``size`` names how much of
    the slide it takes (``strip``: full width, short; ``short``: shorter still;
    ``panel``: beside other blocks; ``narrow``: beside a wide table, its column no wider
    than the picture; ``full``: the slide's main figure). A picture is never
    drawn larger than :data:`ZOOM` times its own units, so small diagrams keep their
    proportions to the text.
    """

    width: float
    height: float
    description: str
    shapes: tuple[Shape, ...]
    size: str = "full"
    fragment: int | None = None
    summary: tuple[Glyph, ...] = ()
    """What it shows with its numbers, for a reader who cannot see it (its ``<desc>``);
    empty: its labels in reading order (:attr:`desc`)."""
    id: str = ""
    """Unique in the deck (given by :func:`number_pictures`): its ``<title>`` and
    ``<desc>`` are ``ID-title`` and ``ID-desc``."""
    kind: ClassVar[str] = "picture"

    @property
    def title(self) -> str:
        """Its short name (the ``<title>`` its ``aria-labelledby`` points at)."""
        return self.description

    @property
    def desc(self) -> tuple[Glyph, ...]:
        """Its ``<desc>``: the :attr:`summary`, else every label it writes in reading
        order, row by row from the top, each row from the left (labels less than
        :data:`ROW_BAND` units apart in height share a row), labels separated by commas
        and rows by semicolons. Every number is the label's own bound :class:`Num`."""
        if self.summary:
            return self.summary
        rows: list[list[Label]] = []
        for label in sorted((s for s in self.shapes if isinstance(s, Label)),
                            key=lambda label: (label.y, label.x)):
            if rows and label.y - rows[-1][0].y < ROW_BAND:
                rows[-1].append(label)
            else:
                rows.append([label])
        glyphs: list[Glyph] = [Text("Its labels, row by row from the top: ")] if rows else []
        for n, row in enumerate(rows):
            for k, label in enumerate(sorted(row, key=lambda label: label.x)):
                glyphs += [*((Text(", "),) if k else ()), *label.glyphs]
            glyphs.append(Text("; " if n < len(rows) - 1 else "."))
        return tuple(glyphs)

    @property
    def view_box(self) -> str:
        return f"0 0 {self.width:g} {self.height:g}"

    @property
    def widest(self) -> str:
        """The largest width the picture is shown at, in CSS pixels."""
        return f"{self.width * ZOOM:g}px"

    @property
    def smallest(self) -> float:
        """The size of its smallest label in the picture's units (sub- and superscripts,
        set smaller by design, aside); 0 when it has no label. The deck's fitter never
        shows this label under a least size in pixels."""
        return min((shape.size for shape in self.shapes if isinstance(shape, Label)),
                   default=0.0)

    @property
    def narrowest(self) -> str:
        """The least width, in CSS pixels, it is shown at on a phone: where its smallest
        label is :data:`PHONE_LABEL` pixels high (a wider picture scrolls sideways)."""
        if not self.smallest:
            return "0px"
        return f"{math.ceil(self.width * PHONE_LABEL / self.smallest)}px"


Block = (Para | Bullets | Formula | Table | Flow | Code | TokenStrip | Columns | Switch | Video
         | Picture | Agenda | Live | Explorer)


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
        elif isinstance(block, Picture):
            found += [shape.fragment for shape in block.shapes if shape.fragment is not None]
    return found


def number_pictures(deck: Deck) -> Deck:
    """The deck with every picture given its id, ``<slide id>-picture-<n>`` counting from
    one through the slide (panels and columns included), so that each ``<title>`` and
    ``<desc>`` has an id of its own in the page."""

    def blocks(found: tuple[Block, ...], slide: str, count: list[int]) -> tuple[Block, ...]:
        done: list[Block] = []
        for block in found:
            if isinstance(block, Picture):
                count[0] += 1
                block = replace(block, id=f"{slide}-picture-{count[0]}")
            elif isinstance(block, Columns):
                block = replace(block, columns=tuple(blocks(column, slide, count)
                                                     for column in block.columns))
            elif isinstance(block, Switch):
                block = replace(block, panels=tuple(
                    replace(panel, blocks=blocks(panel.blocks, slide, count))
                    for panel in block.panels))
            done.append(block)
        return tuple(done)

    return replace(deck, stacks=tuple(
        replace(stack, slides=tuple(replace(slide, blocks=blocks(slide.blocks, slide.id, [0]))
                                    for slide in stack.slides))
        for stack in deck.stacks))
