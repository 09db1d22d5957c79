"""The layer's roles and shapes, each head's projections, and one wide head for comparison."""

from __future__ import annotations

from dataclasses import replace

from slides.context import (
    Bullets,
    Cell,
    Columns,
    Flow,
    FlowStep,
    Formula,
    Item,
    Math,
    Para,
    Row,
    Stack,
    Table,
    Text,
)
from slides.lesson import pictures
from slides.lesson.kit import Book, Section

__all__ = ["projections", "roles_shapes", "wide_head"]

ATTENTION = r"A = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)"


def roles_shapes(book: Book) -> list[Stack]:
    """Query, key and value; every shape in the layer; the heads' roles in our sentence."""
    s = book.sentence
    section = Section("roles-shapes", "roles-shapes", "Roles and shapes")
    section.add("choose", "How does each head choose what to read?", [
        Bullets((
            Item(book.say("{q}: what the receiver is looking for", q=Math("q")), 1),
            Item(book.say("{k}: what each source offers for matching", k=Math("k")), 2),
            Item(book.say("{v}: what each source sends once it is chosen", v=Math("v")), 3),
        )),
        Formula(r"q_i^{(h)} = e_i\,W_Q^{(h)},\qquad k_j^{(h)} = e_j\,W_K^{(h)},\qquad "
                r"v_j^{(h)} = e_j\,W_V^{(h)}", fragment=4),
    ], [
        "Every head has its own three projections. A superscript names the head; a "
        "subscript names the token, as in Part II.",
        "The visual ideas owe a lot to Grant Sanderson's attention videos and Jay Alammar's "
        "Illustrated Transformer; the example, numbers and row-vector convention are ours.",
    ])
    section.add("recap", "Recap: a query meets a key", [
        Para(book.say("In Part II's later-layer example, the query at “She” looked for a "
                      "person. The key at “Maya” matched that request, and Maya's value "
                      "supplied the details.")),
        Para(book.say("A head keeps these roles apart with three separate projections."),
             fragment=1),
    ], [
        "This is the verbal example from Part II, an illustration of what later-layer rows "
        "could represent, not measured outputs.",
        "Every token has a query, a key and a value; the example only follows one query and "
        "one key. The vectors hold numbers, not written questions or records.",
    ])
    section.add("shapes", "Every shape in the layer", [
        Flow((
            FlowStep(book.say("{e}", e=Math("E")), (book.n("shapes.E"),)),
            FlowStep(book.say("{q} per head", q=Math("Q, K, V")), (book.n("shapes.Q"),), 1),
            FlowStep(book.say("{s}", s=Math(r"QK^\top")), (book.n("shapes.scores"),), 2),
            FlowStep(book.say("{a}", a=Math("A")), (book.n("shapes.A"),), 3),
            FlowStep(book.say("{h}", h=Math("H = AV")), (book.n("shapes.H"),), 4),
            FlowStep(book.say("joined"), (book.n("shapes.joined"),), 5),
            FlowStep(book.say("{d}", d=Math(r"\Delta E")), (book.n("shapes.delta"),), 6),
            FlowStep(book.say("{e}", e=Math(r"E'")), (book.n("shapes.E_prime"),), 7),
        )),
        Formula(ATTENTION + r",\qquad H = AV", fragment=3),
        Para(book.say("Each head's {wq} is {w}; {wo} is {o}. Concatenation joins "
                      "coordinates, so the joined matrix is {j}, with one row per token.",
                      wq=Math("W_Q"), w=book.n("shapes.W_Q"), wo=Math("W_O"),
                      o=book.n("shapes.W_O"), j=book.n("shapes.joined")), fragment=5),
    ], [
        "One sentence, no batch axis. Each head projects E into its own Q, K and V. Q times "
        "K transposed gives one score per receiver and source; scaling, the causal mask and "
        "the row-wise softmax keep that shape.",
        "A has one row per receiver and one column per source. H = AV has one message row "
        "per receiver. The heads' H matrices are joined side by side, W_O maps the joined "
        "rows to the update ΔE, and E′ = E + ΔE keeps E's shape. Only its last row feeds "
        "the prediction MLP.",
        "W_O is not an inverse of the input projections; in general it maps the joined "
        "width back to the model width.",
    ])
    section.add("roles", "The same roles in our sentence", [
        Bullets(tuple(
            Item(book.say("the {name} head: strongest source at the final “{r}” is {src}",
                          name=book.head(h), r=book.receiver(),
                          src=book.token(s, book.top(s, h))), h)
            for h in book.heads)),
        Para(book.say("The names are our reading of chosen numbers. Training learns the "
                      "projections without assigning these jobs."),
             fragment=book.ws.n_heads + 1),
    ], [
        "We name the heads after what the hand-chosen matrices make them do in this "
        "sentence. A trained model's heads come without names.",
    ])
    return [section.stack()]


def projections(book: Book) -> list[Stack]:
    """The input rows, then each head's query, key and value projections."""
    s = book.sentence
    last = book.last
    token_id = int(book.value(f"{s}.ids[{last}]"))
    section = Section("projections", "projections", "Projections")
    rows = Table(
        book.feature_columns(),
        (Row(book.say("token {w}", w=book.receiver()),
             tuple(Cell((book.n(f"params.tok_emb[{token_id}][{c}]"),))
                   for c in range(book.width)), fragment=1),
         Row(book.say("position {p}", p=book.pos(last)),
             tuple(Cell((book.n(f"params.pos_emb[{last}][{c}]"),)) for c in range(book.width)),
             fragment=2),
         Row(book.say("row {e}", e=Math("e")),
             tuple(Cell((book.n(f"{s}.E[{last}][{c}]"),)) for c in range(book.width)),
             fragment=3, style="focus")))
    section.add("rows", "Start from position-aware rows", [
        Columns((
            (book.matrix(f"{s}.E", book.token_rows(s), book.feature_columns(),
                         corner=(Math("E"),), focus=(last,)),),
            (Para(book.say("The receiver's row is its token row plus its position row.")),
             rows),
        )),
    ], [
        "E holds embedding rows that already include position, not token ids. The feature "
        "names are invented for teaching; the last one is a toy feature for function "
        "words.",
        "Every head starts from this same E.",
    ])
    for h in book.heads:
        top = book.top(s, h)
        mats = tuple(
            (book.matrix(f"params.h{h}.W_{kind}", book.feature_columns(),
                         corner=book.labelled(f"W_{kind}", h)),)
            for kind in "QKV")
        section.add(f"h{h}", book.say("Head {n}: the {name} head's projections",
                                      n=book.number(h), name=book.head(h)), [
            Columns(mats),
            Para(book.say("Query of the final “{r}”: {q} = {v}", r=book.receiver(),
                          q=Math(r"e\,W_Q"), v=book.listing(f"{s}.h{h}.Q[{last}]")),
                 fragment=1),
            Para(book.say("Key and value of {src}: {k} and {v}", src=book.token(s, top),
                          k=book.listing(f"{s}.h{h}.K[{top}]"),
                          v=book.listing(f"{s}.h{h}.V[{top}]")), fragment=2),
        ], [
            "Each query coordinate is a dot product of the input row with one column of "
            "W_Q. The matrices are hand-chosen and sparse so the arithmetic stays readable; "
            "learned projections need not be sparse or interpretable.",
            "W_K and W_V act on every source row, not only the one shown. They may hold "
            "equal numbers in this worksheet, but they are separate parameters with "
            "different jobs: keys decide the matching, values carry what gets mixed.",
        ])
    return [section.stack()]


def wide_head(book: Book) -> list[Stack]:
    """All heads' results, then one wide head built from the same projected coordinates."""
    s = book.sentence
    section = Section("wide-head", "wide-head", "One wide head")
    rows = tuple(
        Row((book.head(h),), (
            Cell((book.n(f"{s}.h{h}.denominator"),)),
            Cell((book.token(s, book.top(s, h)),)),
            Cell(book.listing(f"{s}.h{h}.message")),
        ), fragment=h)
        for h in book.heads)
    section.add("complete", "Every head has its message", [
        Table((book.say("denominator"), book.say("strongest source"), book.say("message")),
              rows, corner=book.say("head")),
        Para(book.say("Queries and keys chose the weights; values supplied the content. "
                      "Each head's calculation is independent of the others."),
             fragment=book.ws.n_heads + 1),
    ], [
        "Each head computed its own scores, its own softmax and its own message. Every "
        "source contributed to every message.",
        "As in Part II, α is one attention weight and A the whole matrix; we followed its "
        "last row.",
    ])
    section.add("wider", "What if we made one head wider?", [
        Para(book.say("Join the heads' projections into one head of width {m}. Its dot "
                      "products are divided by {sw} instead of {sh}, and there is one "
                      "softmax.", m=book.n("dims.d_model"), sw=book.n(f"{s}.wide.scale"),
                      sh=book.n(f"{s}.h1.scale"))),
        replace(pictures.arcs(book, s, [(f"{s}.wide", None, (Text("wide head"),))],
                              "The wide head's attention arcs into the final receiver, each "
                              "as wide as its weight", size="strip", numbers=True),
                fragment=1),
        Para(book.say("One wide head at the final “{r}”: its single weight row mixes all {m} "
                      "value coordinates, giving {msg}.", r=book.receiver(),
                      m=book.n("dims.d_model"), msg=book.listing(f"{s}.wide.message")),
             fragment=2),
    ], [
        "A controlled comparison: no projection entry changes, we only regroup the "
        "coordinates. Wider queries and keys can compare more features, but their products "
        "still add up to one score per source.",
        "This does not compare separately trained models.",
    ])
    rows = [(f"{s}.wide", "neutral", (Text("one wide head"),))]
    rows += [(f"{s}.h{h}", pictures.head_tone(h), book.say("{name} head", name=book.head(h)))
             for h in book.heads]
    section.add("preferences", "Separate heads keep separate preferences", [
        pictures.paired_bars(book, s, rows, "For every source, the wide head's weight beside "
                             "each head's weight, bar lengths equal to the weights",
                             fragment=1),
        Para(book.say("The wide head uses one row for every value coordinate. Separate "
                      "heads keep separate rows, and {wo} combines them later.",
                      wo=Math("W_O")), fragment=2),
    ], [
        "Every row sums to one over all sources. The wide head has to compromise between "
        "the sources the separate heads prefer.",
        "This is a useful architectural choice, not proof that a wide head cannot learn "
        "useful relationships, nor that more heads always help. See section three of "
        "Attention Is All You Need.",
    ])
    return [section.stack()]
