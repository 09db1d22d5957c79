"""One stack per head: its message for the final receiver, computed one visible step at a time.

The first head's stack goes through every step; each later head's stack goes again through
the same steps with its own numbers (queries and keys, softmax, weights, the weighted values
and the message), as the videos do, skipping only the dot products and the bare values.
Every coordinate of a head's keys and values is named by the input feature its column of
``W_K`` or ``W_V`` copies (:func:`~slides.lesson.pictures.feature_names`). A stack is
about its head, so its slides switch only the sentence: each state is a panel built here
from that sentence's values, and the browser shows one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from slides.context import (
    Block,
    Cell,
    Columns,
    Formula,
    Inline,
    Math,
    Para,
    Row,
    Runs,
    Stack,
    Table,
    Text,
)
from slides.lesson import asides, pictures
from slides.lesson.kit import Book, Prose, Section, Steps

__all__ = ["RECAP", "head_walkthrough"]

Build = Callable[[Book, str, int], tuple[Block, ...]]

NARROW_HEAD = 4
"""The widest head whose query and key tables leave room for a sentence beside them."""
Notes = Callable[[Book, int], tuple[Prose, ...]]

RECAP = ("qk", "softmax", "weights", "contributions", "message")
"""The steps a later head's stack shows again; its dot products and bare values are the
first head's arithmetic with other numbers, but its weighted values are shown, so that
each coordinate of its message can be checked source by source."""


def _named(book: Book, key: str, h: int) -> Runs:
    """Head ``h``'s vector ``key`` inline, each entry after its coordinate's name."""
    return pictures.named_vector(book, key, h)


def _names_row(names: Sequence[Runs], before: int = 0, repeat: int = 1) -> Row:
    """A row of coordinate names under column headings that span a head's coordinates:
    ``before`` empty cells, then the names ``repeat`` times."""
    return Row((), (*(Cell(()) for _ in range(before)),
                    *(Cell(name, style="name") for _ in range(repeat) for name in names)),
               style="names")


def head_walkthrough(book: Book) -> list[Stack]:
    """A stack for each head of the worksheet."""
    return [_head_stack(book, h) for h in book.heads]


def _head_stack(book: Book, h: int) -> Stack:
    section = Section(f"head-{h}", "head-walkthrough",
                      lambda g: book.say("Head {n}, the {name} head, with its own numbers"
                                         if _is_recap(g)
                                         else "Head {n}, the {name} head, step by step",
                                         n=book.number(g), name=book.head(g)), head=h)
    for id, title, build, notes in _SLIDES:
        if h > 1 and id not in RECAP:
            continue
        switch, switcher = book.switch(lambda s, _, build=build: build(book, s, h),
                                       heads=False)
        section.add(id, book.say(title), [switch], notes(book, h), switcher)
        asides.after_step(book, section, id, h)
    return section.stack()


def _cells(book: Book, key: str, count: int, fragment: int | None = None,
           style: str = "") -> tuple[Cell, ...]:
    return tuple(Cell((book.n(f"{key}[{c}]"),), fragment, style) for c in range(count))


def _qk(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    rows = book.token_rows(s)
    # a query coordinate is matched with the same coordinate of every key: one name each
    names = pictures.feature_names(book, h, "K")
    tables = ((book.matrix(f"{prefix}.Q", rows, names, corner=book.labelled("Q", h),
                           focus=(book.last,)),),
              (book.matrix(f"{prefix}.K", rows, names, corner=book.labelled("K", h)),))
    said = Para(book.say("We follow the query of the final “{r}”, a {q} row, and compare it "
                         "with every key: {kt} is {shape}.", r=book.receiver(s),
                         q=book.n("shapes.q_row"), kt=Math(r"K^\top"),
                         shape=book.n("shapes.KT")), fragment=1)
    if h == 1 and len(book.ws.sentences) > 1:  # the switcher is new here: say what it does
        said = Para((*said.runs, *book.say(" The buttons above switch to another sentence "
                                           "of the worksheet; every step of this head then "
                                           "shows that sentence's own numbers.")),
                    fragment=1)
    # Narrow heads leave room for the sentence beside the two tables, so the model map
    # above them keeps its labels at a hall's size.
    if book.head_width <= NARROW_HEAD:
        return (pictures.model_map(book, "heads", head=h), Columns((*tables, (said,))))
    return (pictures.model_map(book, "heads", head=h), Columns(tables), said)


def _dots(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    width = book.head_width
    step = Steps()
    rows = []
    for j in range(book.length):
        cells = (*_cells(book, f"{prefix}.K[{j}]", width),
                 *_cells(book, f"{prefix}.products[{j}]", width, style="step"),
                 Cell((book.n(f"{prefix}.dots[{j}]"),), style="result"))
        rows.append(Row((book.token(s, j),), cells, fragment=step()))
    columns = ((Math("k_j"),), (Math(r"q \odot k_j"),), (Math(r"q \cdot k_j"),))
    bars = pictures.signed_bars(
        book, [(book.token(s, j),) for j in range(book.length)],
        [[f"{prefix}.dots[{j}]"] for j in range(book.length)], pictures.head_tone(h),
        "One bar per source: its length is the dot product of the receiver's query with "
        "that source's key", fragments=tuple(range(1, book.length + 1)))
    return (
        Para(book.say("query {q} = {v}", q=Math("q"),
                      v=book.listing(f"{prefix}.Q[{book.last}]"))),
        *pictures.beside([Table(columns, tuple(rows), corner=book.say("source"),
                                style="steps", spans=(width, width, 1))], bars),
        Formula(r"q \cdot k_j = \sum_c q_c\, k_{j,c}", fragment=step()),
    )


def _softmax(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    score, exp, denominator, weight = 1, 2, 3, 4
    rows = tuple(
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.dots[{j}]"),)),
            Cell((book.n(f"{prefix}.scores[{j}]"),), score),
            Cell((book.n(f"{prefix}.exps[{j}]"),), exp),
            Cell((book.n(f"{prefix}.weights[{j}]"),), weight, "result"),
        ))
        for j in range(book.length))
    return (
        Columns((
            (Table((book.say("dot"), book.say("score"), (Math("e^{s_j}"),), (Math(r"\alpha_j"),)),
                   rows, corner=book.say("source"), style="steps"),),
            (
                Formula(r"s_j = \frac{q\cdot k_j}{\sqrt{d_k}},\qquad "
                        r"\alpha_j = \frac{e^{s_j}}{\sum_{j'} e^{s_{j'}}}"),
                Para(book.say("Divide each dot product by {r} = {v}.", r=Math(r"\sqrt{d_k}"),
                              v=book.n(f"{prefix}.scale")), fragment=score),
                Para(book.say("Exponentiate every score."), fragment=exp),
                Para(book.say("Shared denominator: {d}", d=book.n(f"{prefix}.denominator")),
                     fragment=denominator),
                Para(book.say("Weights sum to {w}.", w=book.n(f"{prefix}.weights_sum")),
                     fragment=weight),
                pictures.column_bars(
                    book, [(book.token(s, j),) for j in range(book.length)],
                    [f"{prefix}.weights[{j}]" for j in range(book.length)],
                    pictures.head_tone(h), "Each source's weight as a bar: its "
                    "exponential's share of the shared denominator", size="short",
                    fragment=weight),
            ),
        )),
    )


def _weights(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    top = book.top(s, h)
    return (
        pictures.arcs(book, s, [(prefix, h, (book.head(h),))],
                      "Attention arcs into the final receiver: each arc's width is the "
                      "weight of its source", numbers=True),
        Para(book.say("{a} says how much the final “{r}”, at position {p}, reads from source "
                      "{j}. The strongest source here is {src}.", a=Math(r"\alpha_{j}"),
                      r=book.receiver(s), p=book.pos(book.last), j=Math("j"),
                      src=book.token(s, top)), fragment=1),
    )


def _values(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    width = book.head_width
    names = pictures.feature_names(book, h)
    rows = (*((_names_row(names, before=1),) if names else ()), *(
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.weights[{j}]"),)),
            *_cells(book, f"{prefix}.V[{j}]", width, fragment=1),
        ))
        for j in range(book.length)))
    columns = ((Math(r"\alpha_j"),), (Math("v_j"),))
    values = pictures.signed_bars(
        book, [(book.token(s, j),) for j in range(book.length)],
        [[f"{prefix}.V[{j}][{c}]" for c in range(width)] for j in range(book.length)],
        pictures.head_tone(h), "Each source's value row as bars, one lane per coordinate, "
        "each lane named by its feature", fragments=(1,) * book.length,
        names=names if width <= NARROW_HEAD else ())
    return (
        *pictures.beside([Table(columns, rows, corner=book.say("source"), style="steps",
                                spans=(1, width))], values),
        Para(book.say("Each source brings a value row {v}; the weights stay beside their "
                      "sources.", v=Math("v_j = e_j W_V")), fragment=1),
    )


def _contributions(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    width = book.head_width
    top = book.top(s, h)
    names = pictures.feature_names(book, h)
    products, total = 1, 2
    rows = [_names_row(names, before=1, repeat=2)] if names else []
    rows += [
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.weights[{j}]"),)),
            *_cells(book, f"{prefix}.V[{j}]", width),
            *_cells(book, f"{prefix}.contributions[{j}]", width, products, "step"),
        ), style="focus" if j == top else "")
        for j in range(book.length)]
    rows.append(Row(book.say("sum"), (
        Cell(()), *(Cell(()) for _ in range(width)),
        *_cells(book, f"{prefix}.message", width, style="result"),
    ), fragment=total, style="total"))
    columns = ((Math(r"\alpha_j"),), (Math("v_j"),), (Math(r"\alpha_j v_j"),))
    bars = pictures.signed_bars(
        book, [*((book.token(s, j),) for j in range(book.length)), (Text("sum"),)],
        [*([f"{prefix}.contributions[{j}][{c}]" for c in range(width)]
           for j in range(book.length)),
         [f"{prefix}.message[{c}]" for c in range(width)]],
        pictures.head_tone(h), "Each source's weighted value as bars, one lane per "
        "coordinate named by its feature, and their sum, the message",
        fragments=(*(products,) * book.length, total),
        names=names if width <= NARROW_HEAD else ())
    return (
        *pictures.beside([Table(columns, tuple(rows), corner=book.say("source"),
                                style="steps", spans=(1, width, width))], bars),
        # the first head multiplies one row out; a later head's reader checks the sum
        Para(_shares(book, s, h, names or pictures.coordinate_names(book, h)),
             fragment=total) if _is_recap(h) else
        Para(book.say("{src}: {a} × {v} = {c}", src=book.token(s, top),
                      a=book.n(f"{prefix}.weights[{top}]"),
                      v=book.listing(f"{prefix}.V[{top}]"),
                      c=book.listing(f"{prefix}.contributions[{top}]")), fragment=products),
    )


def _shares(book: Book, s: str, h: int, names: Sequence[Runs]) -> Runs:
    """What the strongest source brings to each coordinate of the message, against the
    whole coordinate: the rest comes from every other source."""
    prefix, top = f"{s}.h{h}", book.top(s, h)
    parts: list[Inline] = []
    for c, name in enumerate(names):
        parts += [*name, Text(" "), book.n(f"{prefix}.contributions[{top}][{c}]"),
                  Text(" of "), book.n(f"{prefix}.message[{c}]"),
                  Text(", " if c < len(names) - 2 else " and " if c < len(names) - 1 else "")]
    return book.say("“{src}” brings {parts}; the rest comes from the other sources.",
                    src=book.token(s, top), parts=tuple(parts))


def _message(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    names = pictures.feature_names(book, h)
    return (
        Columns((
            (book.matrix(f"{prefix}.H", book.token_rows(s), names,
                         corner=book.labelled("H", h), focus=(book.last,)),),
            (
                Para(book.say("The message of the final “{r}”: {m}", r=book.receiver(s),
                              m=_named(book, f"{prefix}.message", h)), fragment=1),
                Para(book.say("It is the last row of {h}, a {shape} row. Each other row is "
                              "that token's own message, reading only the tokens up to it.",
                              h=Math("H = AV"), shape=book.n("shapes.message")),
                     fragment=2),
                pictures.arcs(book, s, [(prefix, h, (book.head(h),))],
                              "Every source's arc flows into the receiver's message",
                              size="panel", note=(Text("m = "),
                                                  *book.listing(f"{prefix}.message"))),
            ),
        )),
    )


def _is_recap(h: int) -> bool:
    return h > 1


def _recap(book: Book, h: int) -> Prose:
    """The opening a later head's recap slide shares: same steps, this head's matrices."""
    return book.say("Same steps as the first head, with the {name} head's own {wq}, {wk} and "
                    "{wv}.", name=book.head(h), wq=Math("W_Q"), wk=Math("W_K"),
                    wv=Math("W_V"))


def _qk_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    if _is_recap(h):
        return (book.say("{recap} Point at the highlighted last row of {q}: the final “{r}” "
                         "now asks for {v}, a different query from the same input row. Ask "
                         "the room which key row will match it best before the next slide.",
                         recap=_recap(book, h), q=book.labelled("Q", h), r=book.receiver(s),
                         v=book.listing(f"{s}.h{h}.Q[{book.last}]")),)
    return (book.say("Point at the highlighted last row of {q}: that is the query of the "
                     "final “{r}”, {v}, and it is the only query we follow. Every row of {k} "
                     "on the right is a source it will be compared with, itself included. "
                     "The one point: a head scores sources by holding one query against "
                     "every key.", q=book.labelled("Q", h), r=book.receiver(s),
                     v=book.listing(f"{s}.h{h}.Q[{book.last}]"), k=book.labelled("K", h)),)


def _dots_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    top = book.top(s, h)
    return (book.say("Step through the rows: for each source, multiply its key by the query "
                     "coordinate by coordinate, then add up the products. The longest bar "
                     "is {src}, with a dot product of {d}. Leave them with this: a large dot "
                     "product means the key points the same way as the query.",
                     src=book.token(s, top), d=book.n(f"{s}.h{h}.dots[{top}]")),)


def _softmax_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    top = book.top(s, h)
    if _is_recap(h):
        return (book.say("{recap} The scale is the same, {v}, but the denominator is now {d}, "
                         "and {src} takes the weight {w}. These weights, too, sum to one.",
                         recap=_recap(book, h), v=book.n(f"{s}.h{h}.scale"),
                         d=book.n(f"{s}.h{h}.denominator"), src=book.token(s, top),
                         w=book.n(f"{s}.h{h}.weights[{top}]")),)
    return (book.say("Walk the columns left to right: divide each dot product by {v}, "
                     "exponentiate, then share out the denominator {d}. Read the bold weight "
                     "of {src} aloud: {w}. Ask the room why we scale before the softmax; the "
                     "point is that the weights are positive and sum to one.",
                     v=book.n(f"{s}.h{h}.scale"), d=book.n(f"{s}.h{h}.denominator"),
                     src=book.token(s, top), w=book.n(f"{s}.h{h}.weights[{top}]")),)


def _weights_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    top = book.top(s, h)
    if _is_recap(h):
        return (book.say("The {name} head's arcs: the widest now comes from {src}, weight {w}, "
                         "while the first head's widest arc came from {other}. Same receiver, "
                         "same input rows, a different preference: that is why each head "
                         "keeps its own weights.",
                         name=book.head(h), src=book.token(s, top),
                         w=book.n(f"{s}.h{h}.weights[{top}]"),
                         other=book.token(s, book.top(s, 1))),)
    return (book.say("Point at the widest arc, from {src}: its weight {w} is most of the "
                     "receiver's attention. Every other source still gets a thin arc, never "
                     "exactly zero. These weights are the last row of this head's attention "
                     "matrix, drawn so each sits beside its source.",
                     src=book.token(s, top), w=book.n(f"{s}.h{h}.weights[{top}]")),)


def _values_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    top = book.top(s, h)
    return (book.say("Now the content: each source brings a value row, made by {wv} from its "
                     "input row. Point at {src}: its value is {v}. The keys chose the "
                     "weights; the values are what gets mixed, and they are not the weights.",
                     wv=Math("W_V"), src=book.token(s, top),
                     v=book.listing(f"{s}.h{h}.V[{top}]")),)


def _contributions_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    top = book.top(s, h)
    if _is_recap(h):
        return (book.say("The {name} head's weights now scale its own value rows. Read the "
                         "highlighted row, {src}: it brings {c}. Then read each column down "
                         "to the sum row, the message {m}. Stress the column where {src} "
                         "brings little: that coordinate still adds up from the many weakly "
                         "weighted sources, each a small share.", name=book.head(h),
                         src=book.token(s, top), m=_named(book, f"{s}.h{h}.message", h),
                         c=_named(book, f"{s}.h{h}.contributions[{top}]", h)),)
    return (book.say("Each weight scales its whole value row. Read the highlighted row: "
                     "{src} gives {c}. Then add down each column to get the sum row, {m}; "
                     "ask the room which sources they could leave out without changing the "
                     "sum much.", src=book.token(s, top),
                     c=_named(book, f"{s}.h{h}.contributions[{top}]", h),
                     m=_named(book, f"{s}.h{h}.message", h)),)


def _message_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    if _is_recap(h):
        return (book.say("The {name} head's message is {m}, the last row of its own {hm}. It "
                         "differs from the first head's {m1} because the weights favoured "
                         "other sources. Next we put the heads' messages side by side.",
                         name=book.head(h), m=_named(book, f"{s}.h{h}.message", h),
                         hm=book.labelled("H", h), m1=_named(book, f"{s}.h1.message", 1)),)
    return (book.say("Point at the highlighted last row of {hm}: the message of the final "
                     "“{r}” is {m}. It is the weights times the values, one row of {av}; the "
                     "other rows are the messages of the other receivers. The point: a head "
                     "sends each token one message as wide as the head.",
                     hm=book.labelled("H", h), r=book.receiver(s),
                     m=book.listing(f"{s}.h{h}.message"), av=Math("H = AV")),)


_SLIDES: tuple[tuple[str, str, Build, Notes], ...] = (
    ("qk", "Queries and keys", _qk, _qk_notes),
    ("dots", "One dot product per source", _dots, _dots_notes),
    ("softmax", "Scores become weights", _softmax, _softmax_notes),
    ("weights", "A weight for every source", _weights, _weights_notes),
    ("values", "Values beside the weights", _values, _values_notes),
    ("contributions", "Each source's contribution", _contributions, _contributions_notes),
    ("message", "The head's message", _message, _message_notes),
)
