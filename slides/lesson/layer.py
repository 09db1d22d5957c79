"""The layer's roles and shapes, each head's projections, and one wide head for comparison."""

from __future__ import annotations

from dataclasses import replace

from slides.context import (
    Bullets,
    Cell,
    Columns,
    Formula,
    Item,
    Math,
    Para,
    Row,
    Runs,
    Stack,
    Table,
    Text,
    Word,
)
from slides.lesson import asides, pictures
from slides.lesson.kit import Book, Section

__all__ = ["projections", "roles_shapes", "wide_head"]

ATTENTION = r"A = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)"


def roles_shapes(book: Book) -> list[Stack]:
    """Query, key and value in every head; every shape in the layer, every head's path
    drawn; how each head's own keys make its preference in our sentence."""
    s = book.sentence
    section = Section("roles-shapes", "roles-shapes", "Roles and shapes")
    section.add("choose", "Recap: every token gets a query, key and value in every head", [
        Para(book.say("In every head, each token has a query {q} (what it looks for), a key "
                      "{k} (what it offers) and a value {v} (what it sends):", q=Math("q"),
                      k=Math("k"), v=Math("v"))),
        Formula(r"q_i^{(h)} = e_i\,W_Q^{(h)},\qquad k_j^{(h)} = e_j\,W_K^{(h)},\qquad "
                r"v_j^{(h)} = e_j\,W_V^{(h)}", fragment=1),
        _roles(book),
        Para(book.say("All rows at once: {e} stacks every token's row, and each head turns "
                      "it into its own {q}, {k} and {v}.", e=Math("E"), q=Math("Q"),
                      k=Math("K"), v=Math("V")), fragment=2),
    ], [
        "Recap the three roles in one line each: the query is what the receiver looks for, "
        "the key what a source offers, the value what it sends. Point at the formula: every "
        "head has its own three projections. A superscript names the head, a subscript the "
        "token.",
        "Point at the picture: the same input rows on the left, and every head's own "
        "queries, keys and values in its colour, one row per token.",
    ])
    section.add("shapes", "Every shape in the layer", [
        pictures.layer_shapes(
            book, "Every tensor in the layer drawn to its shape, one cell per number: the "
            "input rows, each head's queries, its scores and weights with the sources after "
            "each receiver hidden, its messages, one layer per head in the head's colour, "
            "the heads joined, and the update"),
        Formula(ATTENTION + r",\qquad H = AV", fragment=1),
        Bullets((
            Item(book.say("{s}: each row of scores becomes weights adding up to one; "
                          "{dk} = {d}, a head's query width", s=Text("softmax"),
                          dk=Math("d_k"), d=book.n("dims.d_head")), 1),
            Item(book.say("{m}, the mask: it hides the sources after the receiver (grey, "
                          "above the diagonal) with minus infinity, so their weight is zero; "
                          "zero elsewhere", m=Math("M")), 2),
            Item(book.say("{h}: a head's messages; joined and mapped by {wo}, they give "
                          "{de}, added to {e}", h=Math("H"), wo=Math("W_O"),
                          de=Math(r"\Delta E"), e=Math("E")), 3),
        )),
    ], [
        book.say("Walk the picture from left to right and read each shape aloud: {e} is {se}, "
                 "each head's {q} is {sq}, the scores are {ss}. Every head has its own "
                 "blocks, drawn one behind another in the heads' colours. In the score grid "
                 "a row is a receiver and a column a source; the grey triangle holds the "
                 "sources after each receiver, which the mask hides. "
                 "Point at the joined matrix, {j}: concatenation joins coordinates, so there "
                 "is still one row per token. Then {wo}, {o}, maps it to the update, and {ep} "
                 "keeps the shape of {e}.",
                 e=Math("E"), se=book.n("shapes.E"), q=Math("Q"), sq=book.n("shapes.Q"),
                 ss=book.n("shapes.scores"), j=book.n("shapes.joined"), wo=Math("W_O"),
                 o=book.n("shapes.W_O"), ep=Math("E'")),
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


def _competition(book: Book, fragment: int) -> tuple[Para, ...]:
    """Why a score alone does not fix a weight: the first head's rival to another head's
    favourite source, whose score the softmax compares it with; nothing with one head, or
    when every head favours the same source."""
    s, first = book.sentence, book.top(book.sentence, 1)
    other = next((h for h in book.heads if book.top(s, h) != first), None)
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
        names=[(Text("“"), book.token(s, j), Text("” at "), book.pos(j)) for j in places]),
        fragment=3)


def _copied_names(book: Book, h: int, kind: str) -> list[Runs]:
    """Column headings for head ``h``'s projection: the feature each coordinate of its
    keys (``K``) or values (``V``) copies, or none when a column mixes features."""
    copied = all(int(book.value(f"params.h{h}.{kind}_features[{c}]")) >= 0
                 for c in range(book.head_width))
    return list(pictures.coordinate_names(book, h, kind)) if copied else []


def _position_note(book: Book) -> Para:
    """What the features are (and the glue feature, when the worksheet has one), and what
    the receiver's position row adds: nothing, when the worksheet's row for that position
    is zeros."""
    last = book.last
    zero = all(float(book.value(f"params.pos_emb[{last}][{c}]")) == 0.0
               for c in range(book.width))
    glue = "glue" in book.ws.lesson.features
    template = "The features are invented for teaching" + (
        "; glue is one we gave to small function words such as “{r}”. " if glue else ". ")
    template += ("Position {p}'s row is all zeros here, so the receiver's row equals its "
                 "token row; at other positions the same token gets other rows." if zero else
                 "The position row makes the same token's row differ from place to place.")
    return Para(book.say(template, r=book.receiver(), p=book.pos(last)), style="note",
                fragment=3)


def _roles(book: Book) -> pictures.Picture:
    """The input rows, then every head's queries, keys and values in the head's colour."""
    steps: list[pictures.Step] = [("shapes.E", "TF", (Text("E"),), None)]
    for h in book.heads:
        # the head's name on each block while two heads leave room; its colour says it
        name = (Word(book.ws.lesson.head_names[h - 1], sup=True),) if book.ws.n_heads <= 2 \
            else ()
        steps += [(f"shapes.{kind}", "Td", (Text(kind), *name), h) for kind in "QKV"]
    return pictures.tensor_steps(
        book, steps, [(Text("project"),), *([None] * (len(steps) - 2))],
        "The input rows, then each head's own queries, keys and values as blocks in the "
        "head's colour, one row per token", size="strip",
        cell=max(10.0, min(20.0, 48.0 / book.head_width, 60.0 / book.ws.n_heads)),
        reach=70.0)


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
        _position_note(book),
        _positioned(book),
    ], [
        book.say("Point at the highlighted last row of {e}: the row of the final “{r}”, "
                 "{v}. Reveal the table: its token row plus its position row gives that row. "
                 "The feature names are invented for teaching, and every head starts from this "
                 "same {e}.", e=Math("E"), r=book.receiver(), v=book.listing(f"{s}.E[{last}]")),
        book.say("Then point at the bars: the rows of “{r}” wherever it stands in the "
                 "sentence. One token row, different position rows, so the rows differ and a "
                 "head can tell the positions apart.", r=book.receiver()),
    ])
    for h in book.heads:
        top = book.top(s, h)
        # a column named by the feature its key (value) coordinate copies, when every
        # column copies one; the query's coordinates are matched against the keys', so
        # they share the keys' names
        mats = tuple(
            (book.matrix(f"params.h{h}.W_{kind}", book.feature_columns(),
                         _copied_names(book, h, "V" if kind == "V" else "K"),
                         corner=book.labelled(f"W_{kind}", h)),)
            for kind in "QKV")
        section.add(f"h{h}", book.say("Head {n}: the {name} head's projections",
                                      n=book.number(h), name=book.head(h)), [
            Columns(mats),
            Para(book.say("Query of the final “{r}”: {q} = {v}; key and value of {src}: {k} "
                          "and {vv}", r=book.receiver(), q=Math(r"e\,W_Q"),
                          v=book.listing(f"{s}.h{h}.Q[{last}]"), src=book.token(s, top),
                          k=book.listing(f"{s}.h{h}.K[{top}]"),
                          vv=book.listing(f"{s}.h{h}.V[{top}]")), fragment=1),
            _projected(book, h),
            Para(book.say("One lane per coordinate of the head, named by the feature its key "
                          "copies; a bar pointing left, in red, is negative."), style="note",
                 fragment=1),
        ], [
            book.say("Point at the {name} head's three matrices. Reveal the query of the final "
                     "“{r}”, {q}: each coordinate is the input row times one column of {wq}. "
                     "Then the key and value of {src}, {k} and {v}. {wk} and {wv} may hold "
                     "equal numbers here, yet keys decide the matching and values carry what "
                     "gets mixed.", name=book.head(h), r=book.receiver(),
                     q=book.listing(f"{s}.h{h}.Q[{last}]"), wq=Math("W_Q"),
                     src=book.token(s, top), k=book.listing(f"{s}.h{h}.K[{top}]"),
                     v=book.listing(f"{s}.h{h}.V[{top}]"), wk=Math("W_K"), wv=Math("W_V")),
        ])
    asides.projection_asides(book, section)
    return [section.stack()]


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
        Para(book.say("One wide head at the final “{r}”: its single weight row mixes all {m} "
                      "value coordinates, giving {msg}.", r=book.receiver(),
                      m=book.n("dims.d_model"), msg=wide_message),
             fragment=2),
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
        Para(book.say("One row serves every coordinate: the wide head gives “{t}” {w}, "
                      "where the {name} head gave it {x}. Separate heads keep separate rows, "
                      "and {wo} combines them later.", t=book.token(s, book.top(s, 1)),
                      name=book.head(1), w=book.n(f"{s}.wide.weights[{book.top(s, 1)}]"),
                      x=book.n(f"{s}.h1.weights[{book.top(s, 1)}]"), wo=Math("W_O")),
             fragment=2),
    ], [
        book.say("Point at each source's bars: the wide head's weight beside each head's "
                 "weight. Ask the room between which sources the wide head had to compromise. "
                 "Close with the caution: separate rows, later combined by {wo}, are a useful "
                 "choice, not proof that one wide head cannot learn.", wo=Math("W_O")),
    ])
    top, last = book.top(s, 1), book.last
    first = pictures.coordinate_names(book, 1)[0]
    diluted = book.value(f"{s}.wide.diluted") == 1
    section.add("messages", "One shared row mixes the readings", [
        pictures.retoned(pictures.signed_bars(
            book, [name for _, _, name in names],
            [[f"{s}.joined[{last}][{i}]", f"{s}.wide.message[{i}]"]
             for i in range(len(names))], "neutral",
            "For every message coordinate, named by its feature, two bars: the separate "
            "heads' message in the head's colour and the wide head's in grey", size="panel",
            names=[(Text("separate heads"),), (Text("one wide head"),)]),
            {f"{s}.joined[{last}][{i}]": pictures.head_tone(h)
             for i, (h, _, _) in enumerate(names)}),
        Para(book.say("The wide head gives “{t}” {w}, where the {name} head gave it {x}. "
                      "So its {f} is {a}, against the {name} head's {b}"
                      + (": one row for every coordinate dilutes the {name} head's reading."
                         if diluted else "."), t=book.token(s, top),
                      w=book.n(f"{s}.wide.weights[{top}]"), name=book.head(1),
                      x=book.n(f"{s}.h1.weights[{top}]"), f=first,
                      a=book.n(f"{s}.wide.message[0]"), b=book.n(f"{s}.h1.message[0]")),
             fragment=1),
    ], [
        book.say("Point at the first pair of bars, {f}: the {name} head's {b} against the "
                 "wide head's {a}. Then read the cause: the wide head gives “{t}” {w}, not "
                 "{x}, because one softmax must serve every coordinate at once. Separate heads "
                 "keep each reading at full strength for {wo} to combine.", f=first,
                 name=book.head(1), b=book.n(f"{s}.h1.message[0]"),
                 a=book.n(f"{s}.wide.message[0]"), t=book.token(s, top),
                 w=book.n(f"{s}.wide.weights[{top}]"), x=book.n(f"{s}.h1.weights[{top}]"),
                 wo=Math("W_O")),
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
