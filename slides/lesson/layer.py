"""The layer's roles and shapes, each head's projections, and one wide head for comparison."""

from __future__ import annotations

from dataclasses import replace

from slides.context import (
    Bullets,
    Cell,
    Columns,
    Formula,
    Inline,
    Item,
    Math,
    Para,
    Row,
    Runs,
    Stack,
    Sub,
    Table,
    Text,
    Word,
)
from slides.lesson import pictures
from slides.lesson.kit import QKV, Book, Section

__all__ = ["projections", "roles_shapes", "wide_head"]

ATTENTION = r"A = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)"


def roles_shapes(book: Book) -> list[Stack]:
    """Query, key and value in every head; every shape in the layer, every head's path
    drawn; how each head's own keys make its preference in our sentence."""
    s = book.sentence
    section = Section("roles-shapes", "roles-shapes", "Roles and shapes")
    section.add("choose", "Recap: every token gets a query, key and value in every head", [
        Para(book.say("In every head, each token has a query {q} (what it looks for), a key "
                      "{k} (what it offers) and a value {v} (what it sends). For the "
                      "receiver's row {e} and token {j}'s row {ej}:", q=Math("q"), k=Math("k"),
                      v=Math("v"), e=Math("e"), j=Math("j"), ej=Math("e_j"))),
        Formula(QKV, fragment=1),
        _roles(book),
        Para(book.say("All rows at once: {e} stacks every token's row. Each head has its own "
                      "three matrices {wq}, {wk} and {wv}, each {s}: a row per input feature "
                      "and a column per coordinate of the head. Each makes one block, so "
                      "every head's {q}, {k} and {v} are {o}.", e=Math("E"), wq=Math("W_Q"),
                      wk=Math("W_K"), wv=Math("W_V"), s=book.n("shapes.W_Q"), q=Math("Q"),
                      k=Math("K"), v=Math("V"), o=book.n("shapes.Q")), fragment=2),
    ], [
        "Recap the three roles in one line each: the query is what the receiver looks for, "
        "the key what a source offers, the value what it sends. Point at the formula: every "
        "head has its own three projections. A superscript names the head, a subscript the "
        "token; the receiver's row and its query go without one.",
        book.say("Point at the picture: the same input rows on the left, then every head's "
                 "three projection matrices, each {s}, in the head's colour. Each matrix "
                 "makes one block: every head's own queries, keys and values, one row per "
                 "token.", s=book.n("shapes.W_Q")),
    ])
    section.add("shapes", "Every shape in a head, from rows to messages", [
        pictures.layer_shapes(
            book, "Every tensor of a head drawn to its shape, one cell per number: the input "
            "rows, the head's queries, keys and values, its scores and weights with the "
            "sources after each receiver hidden, and its messages, one layer per head in the "
            "head's colour"),
        Formula(ATTENTION + r",\qquad H = AV", fragment=1),
        Bullets((
            Item(book.say("{s} turns each row of scores into weights adding up to one; "
                          "{dk} = {d}, a head's query width.", s=Text("softmax"),
                          dk=Math("d_k"), d=book.n("dims.d_head")), 1),
            Item(book.say("{m}, the mask, hides the sources after the receiver (grey): "
                          "weight zero. The final “{r}”, the last row, still reads all {t} "
                          "tokens.", m=Math("M"), r=book.receiver(), t=book.n("dims.tokens")),
                 2),
            Item(book.say("{h}: one message per token, {shape}.", h=Math("H"),
                          shape=book.n("shapes.H")), 3),
        )),
    ], [
        book.say("Walk the picture from left to right and read each shape aloud: {e} is {se}, "
                 "each head's {q} is {sq}, the scores are {ss}. Every head has its own "
                 "blocks, drawn one behind another in the heads' colours. In the score grid "
                 "a row is a receiver and a column a source; the grey triangle holds the "
                 "sources after each receiver, which the mask hides. The last row, the final "
                 "“{r}”, keeps every source. End on {h}: one message per token.",
                 e=Math("E"), se=book.n("shapes.E"), q=Math("Q"), sq=book.n("shapes.Q"),
                 ss=book.n("shapes.scores"), r=book.receiver(), h=Math("H")),
    ])
    section.add("join", "The heads' messages are joined", [
        _joined(book),
        Para(book.say("Joining (concatenation) puts each token's messages side by side: one "
                      "row per token, {j}, not more rows.", j=book.n("shapes.joined"))),
        Para(book.say("After the heads, {wo}, a {o} matrix, maps the joined rows to the update "
                      "{de}, which is added to {e}. We take that step once every head is "
                      "computed.", wo=Math("W_O"), o=book.n("shapes.W_O"),
                      de=Math(r"\Delta E"), e=Math("E")), fragment=1),
    ], [
        book.say("Point at the heads' message blocks, {h} each, then at the joined block, "
                 "{j}: joining keeps one row per token and puts the heads' coordinates side "
                 "by side. We call it joining; the paper's word is concatenation.",
                 h=book.n("shapes.H"), j=book.n("shapes.joined")),
        book.say("Reveal the last line only as a preview: {wo} maps the joined rows back to "
                 "the model's width, and the residual adds the result to {e}. Both get their "
                 "own slides after the heads' walkthroughs.", wo=Math("W_O"), e=Math("E")),
    ])
    tops = list(dict.fromkeys(book.top(s, h) for h in book.heads))
    last = book.last
    keys = Table(
        (book.say("query of the final “{r}”", r=book.receiver()),
         *(book.say("key of {w}, and its score", w=book.token(s, j)) for j in tops)),
        tuple(Row((book.head(h),), (
            Cell(book.listing(f"{s}.h{h}.Q[{last}]")),
            *(Cell((*book.listing(f"{s}.h{h}.K[{j}]"), Text(" → "),
                    book.n(f"{s}.h{h}.scores[{j}]"))) for j in tops)),
            fragment=h) for h in book.heads),
        corner=book.say("head"))
    section.add("roles", "The same token offers a different key in each head", [
        Para(book.say("Each head has its own query of the receiver and its own keys, so one "
                      "token offers a different key, and gets a different score {sc}, in "
                      "each head.", sc=Math(r"q \cdot k / \sqrt{d_k}"))),
        keys,
        pictures.weight_bars(
            book, [(book.token(s, j),) if h == 1 else () for j in tops for h in book.heads],
            [f"{s}.h{h}.weights[{j}]" for j in tops for h in book.heads],
            [pictures.head_tone(h) for _ in tops for h in book.heads],
            "For each head's strongest source, one bar per head as long as the weight that "
            "head gives it at the final receiver, in the head's colour",
            values=[(book.n(f"{s}.h{h}.weights[{j}]"), Text(" from the "), book.head(h),
                     Text(" head")) for j in tops for h in book.heads],
            fragments=[book.ws.n_heads + 1 for _ in tops for h in book.heads], size="short"),
        *_competition(book, fragment=book.ws.n_heads + 1),
    ], [
        (*book.say("Reveal the heads one at a time and read each head's key of the same "
                   "source, and the score it gets:"),
         *(part for h in book.heads
           for part in book.say(" the {name} head scores {src} at {sc}{end}",
                                src=book.token(s, book.top(s, h)), name=book.head(h),
                                sc=book.n(f"{s}.h{h}.scores[{book.top(s, h)}]"),
                                end=Text("." if h == book.ws.n_heads else ";"))),
         *book.say(" Then reveal the weights those scores become after the softmax. The "
                   "point: the heads differ because their projections give the same token "
                   "different keys. Ask the room whether a trained model's heads come with "
                   "names.")),
    ])
    return [section.stack()]


def _why_wide(book: Book, fragment: int) -> Para:
    """Why the wide head picks its favourite source: its dot product is the sum of the
    heads' dot products (the same projected coordinates, joined), shown for its favourite
    and for the first head's favourite (or its own runner-up), then their scores."""
    s = book.sentence
    top = int(book.value(f"{s}.wide.top_source"))
    rival = book.top(s, 1)
    if rival == top:
        rival = int(book.value(f"{s}.wide.order[1]"))

    def summed(j: int) -> tuple[Inline, ...]:
        parts: list[Inline] = []
        for h in book.heads:
            parts += [*((Text(" + "),) if h > 1 else ()), book.n(f"{s}.h{h}.dots[{j}]")]
        return (*parts, Text(" = "), book.n(f"{s}.wide.dots[{j}]"))

    return Para(book.say(
        "Why {top}? A wide dot product adds the heads' dot products: {top} {a}, {rival} {b}. "
        "Divided by {sw}: {x} against {y}.", top=book.token(s, top), rival=book.token(s, rival),
        a=summed(top), b=summed(rival), sw=book.n(f"{s}.wide.scale"),
        x=book.n(f"{s}.wide.scores[{top}]"), y=book.n(f"{s}.wide.scores[{rival}]")),
        fragment=fragment)


def _competition(book: Book, fragment: int) -> tuple[Para, ...]:
    """Why a score alone does not fix a weight: the first head's rival to another head's
    favourite source, whose score the softmax compares it with; nothing with one head, or
    when every head favours the same source."""
    s, first = book.sentence, book.top(book.sentence, 1)
    other = int(book.value(f"{s}.other_head")) + 1 or None  # -1 (none) gives None
    if other is None:
        return ()
    j = book.top(s, other)
    return (Para(book.say(
        "A score alone does not fix a weight: {src} scores {a} in the {one} head and {b} in "
        "the {two} head, yet its weight is {x} in the first and {y} in the second. The "
        "softmax compares each score with the other scores of the same head, and in the "
        "{one} head {rival} scores higher, {c}, so it takes most of the weight.",
        src=book.token(s, j), one=book.head(1), two=book.head(other),
        a=book.n(f"{s}.h1.scores[{j}]"), b=book.n(f"{s}.h{other}.scores[{j}]"),
        x=book.n(f"{s}.h1.weights[{j}]"), y=book.n(f"{s}.h{other}.weights[{j}]"),
        rival=book.token(s, first), c=book.n(f"{s}.h1.scores[{first}]")),
        fragment=fragment),)


NARROW_HEAD = 4
"""The widest head whose coordinates stand side by side as lanes of bars."""


def _positioned(book: Book) -> pictures.Picture:
    """The input rows of every occurrence of the receiver's token (found by its id), one
    lane each, one bar per feature: the same token row, made different by position."""
    s, last = book.sentence, book.last
    token_id = int(book.value(f"{s}.ids[{last}]"))
    places = [j for j in range(book.length) if int(book.value(f"{s}.ids[{j}]")) == token_id]
    return replace(pictures.signed_bars(
        book, [(book.feature(c),) for c in range(book.width)],
        [[f"{s}.E[{j}][{c}]" for j in places] for c in range(book.width)],
        ["ink" if j == last else "neutral" for j in places],
        "The input row of the receiver's token at each position where it stands, one lane "
        "per position, one bar per feature", size="strip",
        names=[(Text("“"), book.token(s, j), Text("” at "), book.pos(j)) for j in places],
        after=56.0, span=120.0), fragment=1)


def _roles(book: Book) -> pictures.Picture:
    """The input rows times every head's three projection matrices, drawn one by one in
    the head's colour, then the queries, keys and values each of them makes."""
    def name(h: int) -> tuple[Word, ...]:
        # the head's name over each block while two heads leave room; its colour says it
        return (Word(book.ws.lesson.head_names[h - 1], sup=True),) if book.ws.n_heads <= 2 \
            else ()

    steps: list[pictures.Step] = [("shapes.E", "TF", (Text("E"),), None)]
    steps += [("shapes.W_Q", "Fd", (Text("W"), Sub(kind), *name(h)), h)
              for h in book.heads for kind in "QKV"]
    steps += [(f"shapes.{kind}", "Td", (Text(kind), *name(h)), h)
              for h in book.heads for kind in "QKV"]
    made = 3 * book.ws.n_heads
    return pictures.tensor_steps(
        book, steps, [(Text("×"),), *([None] * (made - 1)), (Text("="),),
                      *([None] * (made - 1))],
        "The input rows times each head's three projection matrices, a row per input "
        "feature and a column per coordinate of the head, drawn one by one in the head's "
        "colour; each matrix makes one block of queries, keys or values in the same colour, "
        "one row per token", size="strip",
        cell=max(8.0, min(16.0, 36.0 / book.head_width, 48.0 / book.ws.n_heads)),
        reach=36.0, operation_size=22.0)


def _joined(book: Book) -> pictures.Picture:
    """Every head's messages, each a narrow block in its colour, joined side by side into
    one block with a row per token, then mapped by ``W_O`` to the update."""
    heads: list[pictures.Step] = [
        ("shapes.H", "Td", (Text("H"), Word(book.ws.lesson.head_names[h - 1], sup=True)), h)
        for h in book.heads]
    return pictures.tensor_steps(
        book, [*heads, ("shapes.joined", "TD", (Text("joined"),), None),
               ("shapes.delta", "TF", (Text("ΔE"),), None)],
        [*([None] * (book.ws.n_heads - 1)), (Text("join"),), (Text("× W"), Sub("O"))],
        "Each head's messages as a narrow block in its colour, one row per token, joined "
        "side by side into one block that still has a row per token, each group of columns "
        "named by its head; the output projection then maps it to the update, as wide as "
        "the input rows", size="strip", reach=70.0, headers=True, cell=15.0,
        operation_size=22.0)


def _projected(book: Book, h: int) -> pictures.Picture:
    """The head's query of the receiver and the key and value of its strongest source, as
    bars (one lane per coordinate), revealed with the lines that name them; a wider head's
    projection as blocks instead."""
    s, last, top = book.sentence, book.last, book.top(book.sentence, h)
    if book.head_width > NARROW_HEAD:
        name = Word(book.ws.lesson.head_names[h - 1], sup=True)
        return pictures.tensor_steps(
            book, [("shapes.E", "TF", (Text("E"),), None),
                   ("shapes.W_Q", "Fd", (Text("W"), pictures.Sub("Q"), name), h),
                   ("shapes.Q", "Td", (Text("Q"), name), h)], [(Text("×"),), (Text("="),)],
            "Every token row times the head's query matrix: a block of queries in the "
            "head's colour, one row per token", size="short", reach=40.0)
    coordinates = range(book.head_width)
    return pictures.signed_bars(
        book, [(Text("query of “"), book.receiver(), Text("”")),
               (Text("key of “"), book.token(s, top), Text("”")),
               (Text("value of “"), book.token(s, top), Text("”"))],
        [[f"{s}.h{h}.Q[{last}][{c}]" for c in coordinates],
         [f"{s}.h{h}.K[{top}][{c}]" for c in coordinates],
         [f"{s}.h{h}.V[{top}][{c}]" for c in coordinates]], pictures.head_tone(h),
        "The receiver's query and the strongest source's key and value as bars, one lane "
        "per coordinate of the head, named over the lane", size="short",
        names=pictures.coordinate_names(book, h, "K"), fragments=(1, 1, 1))


def projections(book: Book) -> list[Stack]:
    """The input rows, each head's query, key and value projections, one packed query
    projection split into heads, and the features each head's keys read."""
    s = book.sentence
    last = book.last
    section = Section("projections", "projections", "Projections")
    glue = "glue" in book.ws.lesson.features
    section.add("rows", "Start from position-aware rows", [
        Para(book.say("Each row of {e} is a token's row plus its position's row. The "
                      "features are invented for teaching" + (
                          "; glue marks small function words such as “{r}”." if glue else "."),
                      e=Math("E"), r=book.receiver())),
        Columns((
            (book.matrix(f"{s}.E", book.token_rows(s), book.feature_columns(),
                         corner=(Math("E"),), focus=(last,)),),
            (_positioned(book),),
        )),
        _position_line(book),
    ], [
        book.say("Point at the highlighted last row of {e}: the row of the final “{r}”, "
                 "{v}, its token row plus its position row. The feature names are invented "
                 "for teaching, and every head starts from this same {e}.", e=Math("E"),
                 r=book.receiver(), v=book.listing(f"{s}.E[{last}]")),
        book.say("Then point at the bars: the rows of “{r}” wherever it stands in the "
                 "sentence. One token row, different position rows, so the rows differ and a "
                 "head can tell the positions apart.", r=book.receiver()),
    ])
    for h in book.heads:
        top = book.top(s, h)
        # W_K's and W_V's columns named by the feature each copies, when every column
        # copies one; W_Q's by what its coordinate is matched with, the keys' feature
        mats = tuple(
            (book.matrix(f"params.h{h}.W_{kind}", book.feature_columns(),
                         _looks_for(book, h) if kind == "Q" else
                         pictures.feature_names(book, h, kind),
                         corner=book.labelled(f"W_{kind}", h)),)
            for kind in "QKV")
        section.add(f"h{h}", book.say("Head {n}: the {name} head's projections",
                                      n=book.number(h), name=book.head(h)), [
            Para(book.say("In each matrix a row is an input feature and a column one "
                          "coordinate of the head's output.")),
            Columns(mats),
            _query_line(book, h),
            _projected(book, h),
        ], [
            book.say("Point at the {name} head's three matrices: a row for each input "
                     "feature, a column for each coordinate the head makes. Reveal the query "
                     "of the final “{r}”, {q}: each coordinate is the input row times one "
                     "column of {wq}. Then the key and value of {src}, {k} and {v}. {wk} and "
                     "{wv} may hold equal numbers here, yet keys decide the matching and "
                     "values carry what gets mixed.", name=book.head(h), r=book.receiver(),
                     q=book.listing(f"{s}.h{h}.Q[{last}]"), wq=Math("W_Q"),
                     src=book.token(s, top), k=book.listing(f"{s}.h{h}.K[{top}]"),
                     v=book.listing(f"{s}.h{h}.V[{top}]"), wk=Math("W_K"), wv=Math("W_V")),
            "The bars: one lane per coordinate of the head, named by the feature its key "
            "copies; a bar pointing left, in red, is negative.",
        ])
    _split(book, section)
    _features(book, section)
    return [section.stack()]


def _position_line(book: Book) -> Para:
    """What the receiver's position row adds: nothing, when the worksheet's row for that
    position is zeros."""
    last = book.last
    zero = all(float(book.value(f"params.pos_emb[{last}][{c}]")) == 0.0
               for c in range(book.width))
    return Para(book.say(
        "Position {p}'s row is all zeros here, so the final “{r}” keeps its token row; at "
        "other positions the same token gets other rows." if zero else
        "The position row makes the same token's row differ from place to place.",
        p=book.pos(last), r=book.receiver()), fragment=1)


def _looks_for(book: Book, h: int) -> list[Runs]:
    """Column headings for head ``h``'s ``W_Q``: a query coordinate is matched with the
    same coordinate of every key, so each column looks for the feature that key
    coordinate copies; none when the keys' columns mix features."""
    return [(Text("looks for "), *name) for name in pictures.feature_names(book, h, "K")]


def _query_line(book: Book, h: int) -> Para:
    """How the receiver's row becomes the head's query, and why the head's strongest
    source matches it: a query coordinate meets the same coordinate of every key, and the
    source wins on the coordinate whose product is the largest."""
    s, last, top = book.sentence, book.last, book.top(book.sentence, h)
    present = [c for c in range(book.width) if float(book.value(f"{s}.E[{last}][{c}]"))]
    query = pictures.named_vector(book, f"{s}.h{h}.Q[{last}]", h, "K")
    if len(present) == 1:
        runs = book.say("The final “{r}” has only {f} in its row, so the {f} row of {wq} "
                        "makes its whole query: {q}.", r=book.receiver(),
                        f=book.feature(present[0]), wq=Math("W_Q"), q=query)
    else:
        runs = book.say("{wq} turns the row of the final “{r}” into its query: {q}.",
                        wq=Math("W_Q"), r=book.receiver(), q=query)
    best = max(range(book.head_width),
               key=lambda c: float(book.value(f"{s}.h{h}.products[{top}][{c}]")))
    names = pictures.feature_names(book, h, "K")
    wins = (*book.say(", so it matches best on "), *names[best]) if names else ()
    runs = (*runs, *book.say(" Each query coordinate meets the same coordinate of every "
                             "key. The key of {src} is {k}", src=book.token(s, top),
                             k=pictures.named_vector(book, f"{s}.h{h}.K[{top}]", h, "K")),
            *wins, Text("."))
    return Para(runs, fragment=1)


def _split(book: Book, section: Section) -> None:
    """One packed query projection: project first, then split into heads."""
    s, last = book.sentence, book.last
    section.add("split", "Project first, then split into heads", [
        pictures.packed_query(book, fragment=1),
        Para(book.say("One {wq} holds every head's columns side by side: {e} times it gives "
                      "one query row, and each head takes its own {d} coordinates of that "
                      "row.", wq=Math("W_Q"), e=Math("e"), d=book.n("dims.d_head"))),
        Para(book.say("No head gets a slice of {e}: each head's columns have a row for every "
                      "one of the {n} input features.", e=Math("e"), n=book.n("dims.d_model")),
             fragment=1),
    ], [
        book.say("Implementations keep one large {wq} of shape {shape}: every head's "
                 "columns side by side. Point at the row of the final “{r}” times it, which "
                 "gives {q}, the heads' queries in one row under the matrix; only then is "
                 "that row cut into heads of {d} coordinates.", wq=Math("W_Q"),
                 shape=book.n("shapes.W_Q_packed"), r=book.receiver(),
                 q=book.n("shapes.q_packed"), d=book.n("dims.d_head")),
        book.say("Reveal the outlines: each head's block spans every row, so every head "
                 "reads all {n} features of the input. A common mistake is to give each "
                 "head a slice of the raw row; that is not what happens. The query of the "
                 "{name} head is still {v}. Most entries are zero, a choice of this toy to "
                 "keep the arithmetic readable; trained matrices are dense.",
                 n=book.n("dims.d_model"), name=book.head(1),
                 v=book.listing(f"{s}.h1.Q[{last}]")),
    ])


def _features(book: Book, section: Section) -> None:
    """The features each head's keys read: every feature has a row in each ``W_K``; the
    toy's keys read only some of them, which the title says when they do."""
    first = [book.feature(int(book.value(f"params.h{h}.K_order[0]"))) for h in book.heads]
    second = [book.feature(int(book.value(f"params.h{h}.K_order[1]"))) for h in book.heads]
    selectors = all(int(book.value(f"params.h{h}.K_features[{c}]")) >= 0
                    for h in book.heads for c in range(book.head_width))
    # selecting keys read nothing else: their other rows are exactly zero
    reads: list[Item] = [
        Item(book.say("the {name} head's keys read only {a} and {b}" if selectors else
                      "the {name} head's keys read {a} and {b} most", name=book.head(h),
                      a=first[h - 1], b=second[h - 1]), 1)
        for h in book.heads]
    section.add("features", "Every feature has a row in each head's keys; ours read only "
                "some" if selectors else "Every head can read every feature, in its own mix", [
        pictures.key_reads(book, fragment=1),
        Para(book.say("Every head's {wk} has a row for each of the {n} input features; its "
                      "entries decide how much each feature counts."
                      + (" Each column of ours copies one feature, so a head's keys read "
                         "only some: a choice that keeps the arithmetic readable." if selectors
                         else ""), wk=Math("W_K"), n=book.n("dims.d_model"))),
        Bullets(tuple(reads)),
    ], [
        book.say("Point at the rows: the same {n} features feed every head, because each "
                 "{wk} has a row for each. Then at the cells: the entries differ, so each "
                 "head's keys weigh the features differently. A trained {wk} mixes every "
                 "feature a little.", n=book.n("dims.d_model"), wk=Math("W_K")),
        (*book.say("Reveal the bars, how much of each feature a head's keys read:"),
         *(part for h in book.heads
           for part in book.say(" {a} and {b} for the {name} head{end}", a=first[h - 1],
                                b=second[h - 1], name=book.head(h),
                                end=Text("." if h == book.ws.n_heads else ";"))),
         *book.say(" These readings belong to our designed numbers; training learns its own "
                   "mix.")),
    ])


def wide_head(book: Book) -> list[Stack]:
    """All heads' results, then one wide head built from the same projected coordinates."""
    s = book.sentence
    section = Section("wide-head", "wide-head", "One wide head")
    # every message coordinate by the feature its head's value column copies, head by head:
    # the wide head's coordinates are the same joined ones
    named = all(pictures.feature_names(book, h) for h in book.heads)
    names = [(h, c, name if named else (book.head(h), Text(", "), *name)) for h in book.heads
             for c, name in enumerate(pictures.coordinate_names(book, h))]
    rows = tuple(
        Row((book.head(h),), (
            Cell((book.token(s, book.top(s, h)),)),
            Cell((book.n(f"{s}.h{h}.weights[{book.top(s, h)}]"),)),
            Cell(pictures.named_vector(book, f"{s}.h{h}.message", h)),
        ), fragment=h)
        for h in book.heads)
    section.add("complete", "Every head has its message", [
        Table((book.say("strongest source"), book.say("its weight"), book.say("message")),
              rows, corner=book.say("head")),
        pictures.signed_bars(
            book, [name for _, _, name in names],
            [[f"{s}.h{h}.message[{c}]"] for h, c, _ in names], "neutral",
            "Each head's message at the final receiver, one bar per coordinate, named by its "
            "feature and in the head's colour", size="short",
            fragments=[h for h, _, _ in names],
            row_tones=[pictures.head_tone(h) for h, _, _ in names]),
        Para(book.say("Queries and keys chose the weights; values supplied the content. "
                      "Each head's calculation is independent of the others."),
             fragment=book.ws.n_heads + 1),
    ], [
        "Reveal the table one head at a time and read each strongest source, its weight and "
        "the message aloud. Point out that each head ran its own softmax, and that every "
        "source contributed to every message. The point: the heads' calculations are "
        "independent of one another.",
        "Point at the bars as each head appears: its message, one bar per coordinate, each "
        "named by the feature it carries, in the head's colour. Next we try one wide head "
        "instead and compare its message with these.",
    ])
    # the wide head's message, each coordinate after its feature when every head's values
    # copy features
    wide_message = tuple(
        part for i, (_, _, name) in enumerate(names)
        for part in (*((Text(", "),) if i else ()), *name, Text(" "),
                     book.n(f"{s}.wide.message[{i}]"))
    ) if named else book.listing(f"{s}.wide.message")
    section.add("wider", "What if we made one head wider?", [
        Para(book.say("Join the heads' projections into one head of width {m}. Its dot "
                      "products are divided by {sw} instead of {sh}, and there is one "
                      "softmax.", m=book.n("dims.d_model"), sw=book.n(f"{s}.wide.scale"),
                      sh=book.n(f"{s}.h1.scale"))),
        replace(pictures.arcs(book, s, [(f"{s}.wide", None, (Text("wide head"),))],
                              "The wide head's attention arcs into the final receiver, each "
                              "as wide as its weight", size="strip", numbers=True),
                fragment=1),
        _why_wide(book, fragment=2),
        Para(book.say("One wide head at the final “{r}”: its single weight row mixes all {m} "
                      "value coordinates, giving {msg}.", r=book.receiver(),
                      m=book.n("dims.d_model"), msg=wide_message),
             fragment=3),
    ], [
        book.say("Join the projections into one head {m} wide and point at the new scale, "
                 "{sw} instead of {sh}. Reveal the arcs: one softmax, one weight row for all "
                 "coordinates, and the message {msg}. Stress that this is a controlled "
                 "comparison: no projection entry changed, only the grouping.",
                 m=book.n("dims.d_model"), sw=book.n(f"{s}.wide.scale"),
                 sh=book.n(f"{s}.h1.scale"), msg=book.listing(f"{s}.wide.message")),
    ])
    rows = [(f"{s}.wide", "neutral", (Text("one wide head"),))]
    rows += [(f"{s}.h{h}", pictures.head_tone(h), book.say("{name} head", name=book.head(h)))
             for h in book.heads]
    section.add("preferences", "Separate heads keep separate preferences", [
        pictures.paired_bars(book, s, rows, "For every source, the wide head's weight beside "
                             "each head's weight, bar lengths equal to the weights",
                             fragment=1),
        Para(book.say("One wide head has one weight row for every coordinate. Separate "
                      "heads keep their own: the {one} head favours {a}, the {two} head {b}.",
                      one=book.head(1), two=book.head(book.ws.n_heads),
                      a=book.token(s, book.top(s, 1)),
                      b=book.token(s, book.top(s, book.ws.n_heads))),
             fragment=2),
    ], [
        "Point at each source's bars: the wide head's weight beside each head's weight. Ask "
        "the room between which sources the wide head had to compromise. Close with the "
        "caution: separate rows are a useful choice, not proof that one wide head cannot "
        "learn.",
    ])
    top, last = book.top(s, 1), book.last
    first = pictures.coordinate_names(book, 1)[0]
    diluted = book.value(f"{s}.wide.diluted") == 1
    section.add("messages", "One shared row mixes the readings", [
        pictures.keyed(book, pictures.retoned(pictures.signed_bars(
            book, [name for _, _, name in names],
            [[f"{s}.joined[{last}][{i}]", f"{s}.wide.message[{i}]"]
             for i in range(len(names))], "neutral",
            "For every message coordinate, named by its feature, two bars: the separate "
            "heads' message in the head's colour and the wide head's in grey", size="panel",
            names=[(Text("separate heads"),), (Text("one wide head"),)]),
            {f"{s}.joined[{last}][{i}]": pictures.head_tone(h)
             for i, (h, _, _) in enumerate(names)})),
        Para(book.say("The wide head gives “{t}” {w}, where the {name} head gave it {x}. "
                      "So its {f} is {a}, against the {name} head's {b}"
                      + (": one row for every coordinate dilutes the {name} head's reading."
                         if diluted else "."), t=book.token(s, top),
                      w=book.n(f"{s}.wide.weights[{top}]"), name=book.head(1),
                      x=book.n(f"{s}.h1.weights[{top}]"), f=first,
                      a=book.n(f"{s}.wide.message[0]"), b=book.n(f"{s}.h1.message[0]")),
             fragment=1),
        Para(book.say("Separate heads keep each reading at full strength. The next part "
                      "joins their messages and maps them back to the width of a token's "
                      "row."), fragment=2),
    ], [
        book.say("Point at the first pair of bars, {f}: the {name} head's {b} against the "
                 "wide head's {a}. Then read the cause: the wide head gives “{t}” {w}, not "
                 "{x}, because one softmax must serve every coordinate at once. Separate heads "
                 "keep each reading at full strength for the next step to combine.", f=first,
                 name=book.head(1), b=book.n(f"{s}.h1.message[0]"),
                 a=book.n(f"{s}.wide.message[0]"), t=book.token(s, top),
                 w=book.n(f"{s}.wide.weights[{top}]"), x=book.n(f"{s}.h1.weights[{top}]")),
    ])
    stack = section.stack()
    # the title slide previews the comparison: each head's narrow queries, joined into one
    # wide head's
    heads: list[pictures.Step] = [
        ("shapes.Q", "Td", (Text("Q"), Word(book.ws.lesson.head_names[h - 1], sup=True)), h)
        for h in book.heads]
    preview = pictures.tensor_steps(
        book, [*heads, ("shapes.joined", "TD", (Text("one wide head's Q"),), None)],
        [*([None] * (book.ws.n_heads - 1)), (Text("join"),)],
        "Each head's queries as a narrow block in its colour, joined side by side into the "
        "queries of one wide head", size="strip", reach=60.0)
    title = stack.slides[0]
    return [replace(stack, slides=(replace(title, blocks=(preview, *title.blocks)),
                                   *stack.slides[1:]))]
