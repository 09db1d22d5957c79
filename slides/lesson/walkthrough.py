"""One stack per head: its message for the final receiver, computed one visible step at a time.

Every slide carries a sentence switcher and a head switcher: each state is a panel built
here from that sentence's and head's values, and the browser only shows one of them.
"""

from __future__ import annotations

from collections.abc import Callable

from slides.context import Block, Cell, Columns, Formula, Math, Para, Row, Stack, Table, Text
from slides.lesson import pictures
from slides.lesson.kit import Book, Section, Steps

__all__ = ["head_walkthrough"]

Build = Callable[[Book, str, int], tuple[Block, ...]]


def head_walkthrough(book: Book) -> list[Stack]:
    """A stack for each head of the worksheet."""
    return [_head_stack(book, h) for h in book.heads]


def _head_stack(book: Book, h: int) -> Stack:
    section = Section(f"head-{h}", "head-walkthrough",
                      lambda g: book.say("Head {n}, the {name} head, step by step",
                                         n=book.number(g), name=book.head(g)), head=h)
    for id, title, build, notes in _SLIDES:
        switch, switcher = book.switch(lambda s, g, build=build: build(book, s, g or h),
                                       heads=True, head=h)
        section.add(id, book.say(title), [switch], notes, switcher)
    return section.stack()


def _cells(book: Book, key: str, count: int, fragment: int | None = None,
           style: str = "") -> tuple[Cell, ...]:
    return tuple(Cell((book.n(f"{key}[{c}]"),), fragment, style) for c in range(count))


def _qk(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    rows = book.token_rows(s)
    return (
        pictures.model_map(book, "heads", head=h),
        Columns((
            (book.matrix(f"{prefix}.Q", rows, corner=book.labelled("Q", h),
                         focus=(book.last,)),),
            (book.matrix(f"{prefix}.K", rows, corner=book.labelled("K", h)),),
        )),
        Para(book.say("We follow the query of the final “{r}”, a {q} row, and compare it with "
                      "every key: {kt} is {shape}.", r=book.receiver(s),
                      q=book.n("shapes.q_row"), kt=Math(r"K^\top"),
                      shape=book.n("shapes.KT")), fragment=1),
    )


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
    rows = tuple(
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.weights[{j}]"),)),
            *_cells(book, f"{prefix}.V[{j}]", width, fragment=1),
        ))
        for j in range(book.length))
    columns = ((Math(r"\alpha_j"),), (Math("v_j"),))
    values = pictures.signed_bars(
        book, [(book.token(s, j),) for j in range(book.length)],
        [[f"{prefix}.V[{j}][{c}]" for c in range(width)] for j in range(book.length)],
        pictures.head_tone(h), "Each source's value row as bars, one per coordinate",
        fragments=(1,) * book.length)
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
    products, total = 1, 2
    rows = [
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
        pictures.head_tone(h), "Each source's weighted value as bars, and their sum, the "
        "message", fragments=(*(products,) * book.length, total))
    return (
        *pictures.beside([Table(columns, tuple(rows), corner=book.say("source"),
                                style="steps", spans=(1, width, width))], bars),
        Para(book.say("{src}: {a} × {v} = {c}", src=book.token(s, top),
                      a=book.n(f"{prefix}.weights[{top}]"),
                      v=book.listing(f"{prefix}.V[{top}]"),
                      c=book.listing(f"{prefix}.contributions[{top}]")), fragment=products),
    )


def _message(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix = f"{s}.h{h}"
    return (
        Columns((
            (book.matrix(f"{prefix}.H", book.token_rows(s),
                         corner=book.labelled("H", h), focus=(book.last,)),),
            (
                Formula(r"m = \sum_j \alpha_j\, v_j"),
                Para(book.say("The message of the final “{r}”: {m}", r=book.receiver(s),
                              m=book.listing(f"{prefix}.message")), fragment=1),
                Para(book.say("It is the last row of {h}: a {shape} row.", h=Math("H = AV"),
                              shape=book.n("shapes.message")), fragment=2),
                pictures.arcs(book, s, [(prefix, h, (book.head(h),))],
                              "Every source's arc flows into the receiver's message",
                              size="panel", note=(Text("m = "),
                                                  *book.listing(f"{prefix}.message"))),
            ),
        )),
    )


_SLIDES: tuple[tuple[str, str, Build, tuple[str, ...]], ...] = (
    ("qk", "Queries and keys", _qk, (
        "Every token has a query and a key in every head. We follow one query row, the "
        "receiver's, and hold it against all the key rows.",
        "Use the switchers to show the same step for another sentence or another head; "
        "every panel was computed from the worksheet before the deck was written.",
    )),
    ("dots", "One dot product per source", _dots, (
        "Transposing K puts each source's key in a column, so the query row times K "
        "transposed gives one raw dot product per source.",
        "Step through the sources one by one: multiply coordinate by coordinate, then add.",
    )),
    ("softmax", "Scores become weights", _softmax, (
        "Scale every dot product by the square root of the head width, exponentiate, and "
        "divide by the sum of all exponentials. Every source is allowed for the final "
        "receiver, including the receiver itself.",
        "Displayed numbers are rounded; the computation keeps full precision. A numerically "
        "stable softmax subtracts the largest score first, which leaves the weights "
        "unchanged. Earlier receivers cannot see later sources: that is the causal mask of "
        "the full attention matrix.",
    )),
    ("weights", "A weight for every source", _weights, (
        "These are the entries of the last row of this head's attention matrix, shown "
        "vertically so each weight sits beside its source.",
        "The receiver stays fixed; only the source index changes.",
    )),
    ("values", "Values beside the weights", _values, (
        "V = E W_V has one row per source: projected value vectors, not token ids and not "
        "weights.",
        "The keys helped choose the weights; the values supply the content to mix.",
    )),
    ("contributions", "Each source's contribution", _contributions, (
        "One weight scales both coordinates of its source's value. A small weight shrinks "
        "the whole value row; the signs come from the value.",
        "Then add down the sources, keeping the coordinates separate. The products shown "
        "are rounded, the sums use full precision.",
    )),
    ("message", "The head's message", _message, (
        "This is one row of H = AV: the weight row times V gives a message as wide as the "
        "head.",
        "We laid the weights out vertically only to keep each source's weight next to its "
        "value; the matrix product does exactly the same multiply and add.",
    )),
)
