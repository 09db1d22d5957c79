"""Shared tools for writing slides: inline text with bound numbers, tables, panels.

A :class:`Book` wraps the worksheet and its values. Slide builders ask it for numbers by
key (:meth:`Book.n`), for worksheet words (:meth:`Book.token`, :meth:`Book.head`), and
for ready-made tables whose cells are bound figures. Nothing here computes a number: a
value's exact magnitude is only read to shade a cell, and indices such as the top source
are read from their own keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from slides.context import (
    Agenda,
    Block,
    Cell,
    Choice,
    Heading,
    Inline,
    Math,
    Num,
    Panel,
    Row,
    Runs,
    Slide,
    Stack,
    Switch,
    Switcher,
    Table,
    Text,
    TokenBox,
    TokenStrip,
    Word,
)
from slides.lesson.layout import fit
from worksheet import Values, Worksheet

__all__ = ["CONCAT", "QKV", "Book", "Prose", "Section", "Steps"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
CONCAT = r"\operatorname{Concat}_h\!\left(H^{(h)}\right)"
"""The heads' messages side by side; which heads ``h`` runs over is said in prose."""
QKV = (r"q^{(h)} = e\,W_Q^{(h)},\quad k_j^{(h)} = e_j\,W_K^{(h)},\quad "
       r"v_j^{(h)} = e_j\,W_V^{(h)}")
"""A head's query of the receiver's row ``e``, and the key and value of token ``j``'s row
``e_j``: the deck's one notation for the three projections (the receiver's row and query
unindexed, as the walkthrough writes them)."""

Prose = str | Runs
"""Plain prose, or runs mixing prose with numbers, words and formulas."""


def _runs(text: Prose) -> Runs:
    return (Text(text),) if isinstance(text, str) else text


class Steps:
    """Hands out reveal steps (fragment indices) in order, starting at one."""

    def __init__(self) -> None:
        self._count = 0

    def __call__(self) -> int:
        self._count += 1
        return self._count


@dataclass(frozen=True)
class Book:
    """The worksheet and its values, with helpers that turn keys into slide content."""

    ws: Worksheet
    values: Values
    live: bool = False
    """Whether the deck carries the trained models to run in the browser (then the trained
    stack ends on the live slide, :mod:`slides.lesson.live`)."""

    # ------------------------------------------------------------------ shape of the lesson

    @property
    def sentence(self) -> str:
        """The walkthrough sentence's name."""
        return self.ws.walkthrough

    @property
    def sentences(self) -> tuple[str, ...]:
        return tuple(self.ws.sentences)

    @property
    def length(self) -> int:
        return self.ws.length

    @property
    def last(self) -> int:
        """Index of the final token: the receiver whose next word we predict."""
        return self.ws.length - 1

    @property
    def heads(self) -> range:
        """Heads counted from one, as in value keys."""
        return range(1, self.ws.n_heads + 1)

    @property
    def width(self) -> int:
        return self.ws.d_model

    @property
    def observed(self) -> bool:
        """Whether the worksheet records every sentence's observed next word."""
        return bool(self.ws.lesson.targets)

    def target(self, sentence: str) -> dict[str, Word]:
        """A ``{t}`` slot holding the sentence's observed next word; empty without one."""
        return {"t": self.vocab(f"{sentence}.target")} if self.observed else {}

    @property
    def head_width(self) -> int:
        return self.ws.d_head

    # ------------------------------------------------------------------ inline content

    def n(self, key: str) -> Num:
        """The number named ``key``, with its display text."""
        return Num(key, self.values.text(key))

    def value(self, key: str) -> float | int:
        """The exact value of one entry (to pick an index or shade a cell, never to show)."""
        value = self.values.value(key)
        if isinstance(value, list):
            raise KeyError(f"{key!r} names several numbers; index one of them")
        return value

    def counted(self, key: str, one: str, many: str) -> Runs:
        """A count and its noun in agreement: "1 head", "2 heads"."""
        return (self.n(key), Text(" " + (one if self.value(key) == 1 else many)))

    def say(self, template: str, **parts: Inline | Runs) -> Runs:
        """Prose with ``{name}`` placeholders filled by numbers, words or formulas."""
        runs: list[Inline] = []
        position = 0
        for match in _PLACEHOLDER.finditer(template):
            if match.start() > position:
                runs.append(Text(template[position:match.start()]))
            part = parts[match[1]]
            runs.extend(part if isinstance(part, tuple) else (part,))
            position = match.end()
        if position < len(template):
            runs.append(Text(template[position:]))
        return tuple(runs)

    def token(self, sentence: str, j: int) -> Word:
        return Word(self.ws.sentences[sentence][j])

    def receiver(self, sentence: str | None = None) -> Word:
        """The final token of a sentence (the walkthrough sentence by default)."""
        return self.token(sentence or self.sentence, self.last)

    def pos(self, j: int) -> Num:
        """Token position ``j`` as the lesson counts it (from one)."""
        return self.n(f"dims.positions[{j}]")

    def head(self, h: int) -> Word:
        """A head's name from the worksheet."""
        return Word(self.ws.lesson.head_names[h - 1])

    def number(self, h: int) -> Num:
        """A head's number, counted from one."""
        return self.n(f"dims.head_numbers[{h - 1}]")

    def feature(self, c: int) -> Word:
        return Word(self.ws.lesson.features[c])

    def vocab(self, key: str) -> Word:
        """The vocabulary word whose id is the value of ``key``."""
        return Word(self.ws.vocab[int(self.value(key))])

    def top(self, sentence: str, h: int) -> int:
        """The source the head weights most at the receiver (read from its key)."""
        return int(self.value(f"{sentence}.h{h}.top_source"))

    def listing(self, key: str) -> Runs:
        """A vector value inline, as ``[a, b, …]`` with every entry bound to its key."""
        count = len(self.values.value(key))
        runs: list[Inline] = [Text("[")]
        for c in range(count):
            runs += [self.n(f"{key}[{c}]"), Text(", " if c < count - 1 else "]")]
        return tuple(runs)

    def labelled(self, tex: str, h: int) -> Runs:
        """A symbol with the head's name as its superscript, such as ``Q`` of one head."""
        return (Math(tex), Word(self.ws.lesson.head_names[h - 1], sup=True))

    def head_list(self) -> Runs:
        """Every head's name, separated by commas."""
        runs: list[Inline] = []
        for h in self.heads:
            runs += [self.head(h), Text(", " if h < self.ws.n_heads else "")]
        return tuple(runs)

    # ------------------------------------------------------------------ blocks

    def strip(self, sentence: str, focus: Sequence[int] = (), blank: bool = False,
              fragment: int | None = None) -> TokenStrip:
        """The sentence as token boxes with positions."""
        boxes = tuple(TokenBox(self.token(sentence, j), self.pos(j), j in focus)
                      for j in range(self.length))
        return TokenStrip(boxes, blank, fragment)

    def matrix(self, key: str, rows: Sequence[Runs], columns: Sequence[Runs] = (),
               corner: Runs = (), caption: Runs = (), focus: Sequence[int] = (),
               shade: bool = False, fragment: int | None = None,
               causal: bool = False, tone: str = "") -> Table:
        """A matrix value as a table, one labelled row per entry of its first axis.

        ``causal`` marks the cells above the diagonal (future sources) as masked; ``tone``
        is the palette tone of the shading (a head's).
        """
        table_rows = []
        for i, label in enumerate(rows):
            cells = []
            for j in range(len(self.values.value(f"{key}[{i}]"))):
                entry = f"{key}[{i}][{j}]"
                masked = causal and j > i
                fill = float(self.value(entry)) if shade and not masked else None
                cells.append(Cell((self.n(entry),), fill=fill,
                                  style="masked" if masked else ""))
            table_rows.append(Row(label, tuple(cells), style="focus" if i in focus else ""))
        return Table(tuple(columns), tuple(table_rows), corner, caption, "matrix",
                     fragment=fragment, tone=tone)

    def vector(self, key: str, label: Runs = (), columns: Sequence[Runs] = (),
               fragment: int | None = None) -> Table:
        """A single row vector as a one-row table."""
        count = len(self.values.value(key))
        cells = tuple(Cell((self.n(f"{key}[{c}]"),)) for c in range(count))
        return Table(tuple(columns), (Row(label, cells),), fragment=fragment)

    def token_rows(self, sentence: str) -> tuple[Runs, ...]:
        """Row labels: each token of the sentence."""
        return tuple((self.token(sentence, j),) for j in range(self.length))

    def feature_columns(self) -> tuple[Runs, ...]:
        return tuple((self.feature(c),) for c in range(self.width))

    def bars(self, sentence: str, prefix: str, focus: Sequence[int] = (),
             fragment: int | None = None, caption: Runs = ()) -> Table:
        """Attention weights at the receiver as bars, one row per source token."""
        rows = []
        for j in range(self.length):
            key = f"{prefix}.weights[{j}]"
            cell = Cell((self.n(key),), fill=float(self.value(key)))
            rows.append(Row(self.say("{w}", w=self.token(sentence, j)), (cell,),
                            style="focus" if j in focus else ""))
        return Table((), tuple(rows), (), caption, "bars", fragment=fragment)

    # ------------------------------------------------------------------ switchable slides

    def switch(self, make: Callable[[str, int | None], tuple[Block, ...]], *, heads: bool,
               sentence: str | None = None, head: int | None = None,
               ) -> tuple[Switch, Switcher]:
        """Panels for every sentence (and every head), the chosen state shown first.

        ``make(sentence, head)`` builds one panel's blocks; it must hand out the same
        reveal steps for every state so that fragments advance together.
        """
        sentence = sentence or self.sentence
        head = (head or 1) if heads else None
        states = [(s, h) for s in self.sentences for h in (self.heads if heads else [None])]
        panels = tuple(
            Panel(s, h, self._caption(s, h), make(s, h), (s, h) == (sentence, head))
            for s, h in states)
        sentence_choices = tuple(Choice(s, (Word(s),), s == sentence) for s in self.sentences)
        head_choices = tuple(Choice(str(h), (self.number(h), Text(" "), self.head(h)), h == head)
                             for h in self.heads) if heads else ()
        return Switch(panels), Switcher(sentence_choices, head_choices, sentence, head)

    def _caption(self, sentence: str, head: int | None) -> Runs:
        words = self.say("{s}: ", s=Word(sentence))
        text = " ".join(self.ws.sentences[sentence])
        if head is None:
            return (*words, Word(text))
        return (*words, Word(text), *self.say(" · the {h} head", h=self.head(head)))


class Section:
    """Collects the slides of one stack; slide ids are prefixed with the stack's id.

    ``title`` may be a function of a head (for a head's stack): a slide whose head
    switcher picks another head then shows that head's title above it. A stack opens on
    its title slide: the builder's slide ``title`` when it adds one, else one made here
    listing what the stack goes through.
    """

    def __init__(self, id: str, part: str, title: Prose | Callable[[int], Prose],
                 head: int | None = None) -> None:
        if callable(title):
            if head is None:
                raise ValueError(f"stack {id}: a title made per head needs the stack's head")
            self._title_of: Callable[[int], Prose] | None = title
            title = title(head)
        else:
            self._title_of = None
        self.id, self.part, self.title, self.head = id, part, _runs(title), head
        self._slides: list[Slide] = []

    def add(self, id: str, title: Prose | Callable[[str, int | None], Prose],
            blocks: Sequence[Block], notes: Sequence[Prose],
            switcher: Switcher | None = None) -> None:
        """Append a slide; ``notes`` are the speaker notes, one paragraph per entry.

        ``title`` may depend on the switcher's choice: a function of the sentence and
        the head, written out for every choice.
        """
        if not notes:
            raise ValueError(f"slide {self.id}-{id} has no speaker notes")
        if callable(title) and switcher is None:
            raise ValueError(f"slide {self.id}-{id}: a title per choice needs a switcher")
        shown = title(switcher.sentence, switcher.head) if callable(title) else title
        self._slides.append(Slide(f"{self.id}-{id}", _runs(shown), fit(tuple(blocks)),
                                  tuple(_runs(n) for n in notes), self.part, self.head,
                                  switcher, "title" if id == "title" else "",
                                  self._headings(title, switcher)))

    def _headings(self, title: Prose | Callable[[str, int | None], Prose],
                  switcher: Switcher | None) -> tuple[Heading, ...]:
        """One kicker and title per choice, when any differs from the first shown."""
        if switcher is None:
            return ()
        heads = [int(c.value) for c in switcher.heads] or [None]
        sentences = [c.value for c in switcher.sentences]

        def kicker(h: int | None) -> Runs:
            return _runs(self._title_of(h)) if self._title_of and h is not None else self.title

        def heading(s: str | None, h: int | None) -> Heading:
            shown = _runs(title(s or switcher.sentence, h)) if callable(title) else _runs(title)
            return Heading(s, h, kicker(h), shown,
                           s in (None, switcher.sentence) and h == switcher.head)

        per_head = not callable(title)
        states = [(None, h) for h in heads] if per_head else \
            [(s, h) for s in sentences for h in heads]
        headings = tuple(heading(s, h) for s, h in states)
        if len({(x.kicker, x.title) for x in headings}) == 1:
            return ()
        return headings

    def stack(self) -> Stack:
        """The stack, opening on its title slide."""
        slides = tuple(self._slides)
        if not slides or slides[0].role != "title":
            slides = (self._title_slide(slides), *slides)
        return Stack(self.id, self.part, self.title, slides, self.head)

    def _title_slide(self, slides: tuple[Slide, ...]) -> Slide:
        agenda: list[Runs] = [slide.title for slide in slides]
        listed: list[Inline] = []
        for n, slide in enumerate(slides):
            listed += [Text("“"), *slide.title,
                       Text("”; " if n < len(slides) - 1 else "”.")]
        notes = (
            (Text("Announce the part, “"), *self.title,
             *((Text("”, and point at the agenda: it goes through "), *listed)
               if slides else (Text("”."),)),
             Text(" Say in a sentence how it follows from the part before, and ask the room "
                  "which of these steps they expect to be the hardest to follow.")),
        )
        return Slide(f"{self.id}-title", self.title, (Agenda(tuple(agenda)),) if agenda else (),
                     notes, self.part, self.head, role="title")
