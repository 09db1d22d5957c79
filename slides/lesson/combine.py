"""After the heads: concatenation, W_O, the residual, the prediction, other contexts, grids."""

from __future__ import annotations

from dataclasses import replace

from slides.context import (
    Block,
    Bullets,
    Cell,
    Code,
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
from slides.lesson import pictures
from slides.lesson.explorer import add_explorer_slide
from slides.lesson.kit import CONCAT, Book, Section, Steps
from slides.lesson.layout import across

__all__ = ["combine", "grids", "other_context", "prediction"]

RESIDUAL = r"E' = E + \Delta E"
_BARS_PER_COLUMN = 10
_MAP_BESIDE_MESSAGES = 3
"""With more heads, their message lines fill the slide and the model map stays out."""
_NAMED_BLOCKS = 3
"""The most heads whose message blocks each carry the head's name above them."""


DELTA = rf"\Delta E = {CONCAT}\, W_O"


ROW_SPAN = 160.0
"""How long a weight of one is drawn in the bars beside a grid of numbers."""


def _last_row(book: Book, s: str, h: int, upright: bool = False) -> pictures.Picture:
    """The grid's outlined last row as bars in the head's colour: the receiver's weights,
    which the walkthrough computed one step at a time. Beside the grid the bars lie down,
    a row per source; under a wide grid they stand up, a column per source."""
    keys = [f"{s}.h{h}.A[{book.last}][{j}]" for j in range(book.length)]
    tokens = [(book.token(s, j),) for j in range(book.length)]
    if upright:
        return pictures.column_bars(book, tokens, keys, pictures.head_tone(h),
                                    "The grid's last row as upright bars: the weight the "
                                    "final receiver gives each source", size="short")
    return pictures.weight_bars(
        book, tokens, keys, pictures.head_tone(h),
        "The grid's last row as bars: the weight the final receiver gives each source",
        per_unit=ROW_SPAN, legend=[(pictures.head_tone(h), (Text("the receiver's row"),), None)],
        size="narrow")


def _head_groups(book: Book) -> tuple[tuple[Runs, ...], tuple[int, ...]]:
    """Column headings naming the head each joined coordinate comes from."""
    return (tuple((book.head(h),) for h in book.heads),
            tuple(book.head_width for _ in book.heads))


def _joined_names(book: Book) -> tuple[Runs, ...]:
    """A name for each joined coordinate, head after head: the feature its head's value
    column copies; none at all when some head's values mix features."""
    names = [pictures.feature_names(book, h) for h in book.heads]
    return tuple(name for named in names for name in named) if all(names) else ()


def _aligned(book: Book) -> bool:
    """Whether joined coordinate ``i`` carries model feature ``i`` for every ``i`` (each
    head's value columns copy the features its place in the joined row lines up with), so
    the joined row and the update can share the feature columns."""
    d = book.head_width
    return book.ws.n_heads * d == book.width and all(
        int(f) == (h - 1) * d + c for h in book.heads
        for c, f in enumerate(book.values.value(f"params.h{h}.V_features")))


def _row(book: Book, key: str, count: int, style: str = "") -> tuple[Cell, ...]:
    return tuple(Cell((book.n(f"{key}[{c}]"),), style=style) for c in range(count))


def _journey(book: Book, messages_only: bool = False) -> tuple[Block, ...]:
    """The receiver's row through the combining steps as one grid: each head's message in
    its own coordinates, the joined row, the update, the input row and the new row (with
    ``messages_only``, the messages alone, each in its head's columns)."""
    s, last, d = book.sentence, book.last, book.head_width
    joined_width = book.ws.n_heads * d
    step = Steps()
    messages = [Row(book.say("{name} head", name=book.head(h)), (
        *(Cell(()) for _ in range((h - 1) * d)), *_row(book, f"{s}.h{h}.message", d),
        *(Cell(()) for _ in range(joined_width - h * d))), fragment=step())
        for h in book.heads]
    joined = Row(book.say("joined"), _row(book, f"{s}.joined[{last}]", joined_width),
                 fragment=step(), style="total")
    update = (
        Row(book.say("{d}, through {wo}", d=Math(r"\Delta e"), wo=Math("W_O")),
            _row(book, f"{s}.delta[{last}]", book.width), fragment=step()),
        Row(book.say("{e}, the input row", e=Math("e")), _row(book, f"{s}.E[{last}]",
                                                              book.width), fragment=step()),
        Row(book.say("{e} = {a} + {b}", e=Math("e'"), a=Math("e"), b=Math(r"\Delta e")),
            _row(book, f"{s}.E_prime[{last}]", book.width, "result"), style="total",
            fragment=step()),
    )
    corner = book.say("final “{r}”", r=book.receiver())
    if messages_only:
        columns, spans = _head_groups(book)
        return (Table(columns, tuple(messages), corner=corner, style="steps", spans=spans),)
    if _aligned(book):
        return (Table(book.feature_columns(), (*messages, joined, *update), corner=corner,
                      style="steps"),)
    columns, spans = _head_groups(book)
    return (Table(columns, (*messages, joined), corner=corner, style="steps", spans=spans),
            Table(book.feature_columns(), update, corner=corner, style="steps"))


def _mixing(book: Book) -> tuple[int, int] | None:
    """The first entry of ``W_O`` (row, column) that carries one head's joined coordinate
    into a feature of another head's columns, as the output projection outlines it; none
    when the joined coordinates do not line up with the features."""
    d = book.head_width
    if book.ws.n_heads * d != book.width:
        return None
    for i in range(book.width):
        for c in range(book.width):
            if c // d != i // d and float(book.value(f"params.W_O[{i}][{c}]")) != 0:
                return i, c
    return None


def _cross_term(book: Book, fragment: int) -> tuple[Block, ...]:
    """The outlined entry read aloud: which head's coordinate it carries into which
    feature, and the sum of that feature's terms, the cross-head one among them."""
    found = _mixing(book)
    if found is None:
        return ()
    s, last = book.sentence, book.last
    i, c = found
    h = i // book.head_width + 1
    terms = [k for k in range(book.width) if float(book.value(f"params.W_O[{k}][{c}]")) != 0]
    parts: list = []
    for n, k in enumerate(terms):
        parts += [*((Text(" + "),) if n else ()), book.n(f"{s}.update_terms[{k}][{c}]")]
    return (Para(book.say(
        "The outlined {w} sits in a row of the {name} head's block but in {f}'s column, "
        "another head's feature: {f}'s update, {sum} = {d}, takes {t} from the {name} "
        "head's {m}. So {wo} lets one head write into another head's features.",
        w=book.n(f"params.W_O[{i}][{c}]"), name=book.head(h), wo=Math("W_O"),
        m=book.n(f"{s}.joined[{last}][{i}]"), f=book.feature(c),
        t=book.n(f"{s}.update_terms[{i}][{c}]"), sum=tuple(parts),
        d=book.n(f"{s}.delta[{last}][{c}]")), fragment=fragment),)


def _reading(book: Book) -> Runs:
    """What the new row holds, head by head: the first feature each head's values copy,
    its new value, and the same feature of the source the head read most. Empty when a
    head's values mix features."""
    s, last = book.sentence, book.last
    parts: list = []
    for h in book.heads:
        f = int(book.values.value(f"params.h{h}.V_features")[0])
        if f < 0:
            return ()
        top = book.top(s, h)
        parts += [*((Text("; "),) if h > 1 else ()), *book.say(
            "{f} {v}, near {src}'s {x}, the feature the {name} head carries",
            f=book.feature(f),
            v=book.n(f"{s}.E_prime[{last}][{f}]"), src=book.token(s, top),
            x=book.n(f"{s}.E[{top}][{f}]"), name=book.head(h))]
    return book.say("Read the new row: {parts}.", parts=tuple(parts))


def combine(book: Book) -> list[Stack]:
    """Messages, then concatenation, W_O and the residual."""
    s, last = book.sentence, book.last
    section = Section("combine", "combine", "Combining the heads")
    room = book.ws.n_heads <= _MAP_BESIDE_MESSAGES
    section.add("together", "Bring the messages back together", [
        *((pictures.model_map(book, "concat"),) if room else ()),
        *_journey(book, messages_only=True),
        Para(book.say("Each head sends the final receiver a message in its own coordinates. "
                      "Next: join them, map them with {wo}, add them to the row.",
                      wo=Math("W_O")), fragment=book.ws.n_heads),
    ], [
        book.say("Reveal the heads' messages one by one, reading each aloud: each in its own "
                 "columns. Tell the room that the next slides join them, map them with {wo} "
                 "and add the result to the receiver's row, one move per slide.",
                 wo=Math("W_O")),
    ])
    columns, spans = _head_groups(book)
    names = _joined_names(book)
    joined = book.matrix(f"{s}.joined", book.token_rows(s), columns, focus=(last,),
                         fragment=1)
    names_row = Row((), tuple(Cell(name) for name in names), style="names")
    section.add("concat", "Concatenate the messages, not the tokens", [
        Para(book.say("Each head's {h} has one row per token. Joining them side by side gives "
                      "{j}: still one row per token, now with every head's coordinates.",
                      h=Math("H"), j=book.n("shapes.joined"))),
        Columns((
            (replace(joined, corner=(Math(r"\operatorname{Concat}_h H^{(h)}"),),
                     spans=spans, rows=(*((names_row,) if names else ()), *joined.rows)),),
            (_joining(book),),
        )),
        Formula(DELTA, fragment=2),
    ], [
        book.say("Point at the joined matrix: {j}, one row per token, each head's coordinates "
                 "side by side in its colour. Concatenation neither adds the messages nor "
                 "stacks the tokens. Reveal the formula: {h} runs over the heads, {names}. "
                 "Ask the room what shape stacking the tokens would give instead, and why "
                 "the next layer could not use it.", j=book.n("shapes.joined"), h=Math("h"),
                 names=book.head_list()),
    ])
    projection = pictures.output_projection(
        book, s, "The output projection as a matrix: one block of rows per head in its "
        "colour, the joined row beside it and the update below; a dashed line parts the "
        "columns by head, and outlined entries carry one head's message into another "
        "head's columns")
    mixing = _mixing(book) is not None
    section.add("w-o", book.say("{wo} mixes the joined row into an update", wo=Math("W_O")), [
        projection,
        Para(book.say("Each joined coordinate {m} scales its row of {wo}; each column adds "
                      "up to one coordinate of {d}.", m=Math("m"), wo=Math("W_O"),
                      d=Math(r"\Delta e")), fragment=1),
        *((Para(book.say("The dashed line separates the features the heads' values carry, "
                         "one group per head."), fragment=2),) if mixing else ()),
        *_cross_term(book, 3),
    ], [
        book.say("Point at one column of the matrix and read it from top to bottom: each "
                 "joined coordinate times its row of {wo}, added up, gives that coordinate of "
                 "{de}. Then the dashed line: left of it the first head's features, right of "
                 "it the next head's. The outlined entry crosses it, so one head's message "
                 "reaches another head's feature. The point: {wo} decides how each message "
                 "reaches each embedding coordinate.", wo=Math("W_O"), de=Math(r"\Delta e")),
    ])
    lanes = [f"{s}.h{h}.share[{last}]" for h in book.heads] + [f"{s}.delta[{last}]"]
    shares = pictures.signed_bars(
        book, [(book.feature(c),) for c in range(book.width)],
        [[f"{lane}[{c}]" for lane in lanes] for c in range(book.width)],
        [*(pictures.head_tone(h) for h in book.heads), "ink"],
        "For every feature, one bar per head, as long as that head's share of the update, "
        "in the head's colour, and their sum, the update", size="full",
        names=[*((book.head(h),) for h in book.heads), (Text("= Δe"),)])
    section.add("blocks", book.say("Each head's share of the update"), [
        Formula(r"\Delta e = \sum_h m^{(h)}\, W_O^{(h)}"),
        Para(book.say("Split {wo} into one block of rows per head, {wh}. Each head's message "
                      "times its own block is that head's share; the shares add up to {d}.",
                      wo=Math("W_O"), wh=Math(r"W_O^{(h)}"), d=Math(r"\Delta e"))),
        shares,
    ], [
        book.say("Split {wo} into one block of rows per head. Point at each head's bars: its "
                 "message times its own block, its share of the update. Then the last lane, "
                 "their sum, {d}. Concatenating and multiplying once computes exactly this "
                 "sum of shares, which is why we keep the paper's notation.", wo=Math("W_O"),
                 d=book.listing(f"{s}.delta[{last}]")),
    ])
    residual = Table(book.feature_columns(), (
        Row((Math("e"),), _row(book, f"{s}.E[{last}]", book.width)),
        Row((Math(r"\Delta e"),), _row(book, f"{s}.delta[{last}]", book.width), fragment=1),
        Row((Math("e'"),), _row(book, f"{s}.E_prime[{last}]", book.width, "result"),
            fragment=2, style="total"),
    ), corner=(book.receiver(),))
    reading = _reading(book)
    section.add("residual", "Add the update to the original row", [
        Columns(((residual,), (
            Formula(RESIDUAL),
            Para(book.say("Adding keeps the input row: the word stays itself, and the heads' "
                          "update adds what they found in the context.")),
        ))),
        pictures.signed_bars(
            book, [(book.feature(c),) for c in range(book.width)],
            [[f"{s}.E[{last}][{c}]", f"{s}.delta[{last}][{c}]",
              f"{s}.E_prime[{last}][{c}]"] for c in range(book.width)],
            ("neutral", "muted", "ink"),
            "For every feature three bars in three lanes: the receiver's row, its update "
            "and their sum", size="strip", names=((Text("e"),), (Text("+ Δe"),),
                                                   (Text("= e′"),))),
        *((Para(reading, fragment=3),) if reading else ()),
    ], [
        book.say("Point at the three rows: the receiver's row, its update, and their sum "
                 "{ep}. Say why we add rather than replace: the row keeps what the word was "
                 "and gains what the heads found. Read the bars feature by feature. This is "
                 "Part II's residual again: every token gets its own updated row, {shape} in "
                 "all, and only the last one feeds the prediction.",
                 ep=book.listing(f"{s}.E_prime[{last}]"), shape=book.n("shapes.E_prime")),
    ])
    return [section.stack()]


def _one_call(book: Book) -> pictures.Picture:
    """One call of the head function, line by line, for the first head: the input rows,
    its queries, keys and values, the scores (future grey), the weights, the messages."""
    name = Word(book.ws.lesson.head_names[0], sup=True)
    return pictures.tensor_steps(
        book, [("shapes.E", "TF", (Text("E"),), None),
               *((f"shapes.{kind}", "Td", (Text(kind), name), 1) for kind in "QKV"),
               ("shapes.scores", "TS", (Text("scores"),), None),
               ("shapes.A", "TS", (Text("A"),), None),
               ("shapes.H", "Td", (Text("H"), name), 1)],
        [(Text("project"),), None, None, (Text("QKᵀ/√d_k + M"),), (Text("softmax"),),
         (Text("A V"),)],
        "One call of the head function for the first head, line by line: the input rows, "
        "the head's queries, keys and values, the scores with the future grey, the "
        "weights, and the messages", size="strip", masked=True, reach=64.0, cell=12.0)


def _projecting(book: Book, h: int) -> pictures.Picture:
    """The token rows times one head's query matrix, as blocks: E neutral, the rest in the
    head's colour."""
    name = Word(book.ws.lesson.head_names[h - 1], sup=True)
    steps: list[pictures.Step] = [("shapes.E", "TF", (Text("E"),), None),
                                  ("shapes.W_Q", "Fd", (Text("W"), pictures.Sub("Q"), name), h),
                                  ("shapes.Q", "Td", (Text("Q"), name), h)]
    return pictures.tensor_steps(
        book, steps, [(Text("×"),), (Text("="),)],
        "Every token row times one head's query matrix: a block of queries in the head's "
        "colour, one row per token", size="panel", reach=40.0)


def _joining(book: Book) -> pictures.Picture:
    """Each head's message rows as a block in its colour, joined side by side, the joined
    block's columns headed by the head they came from."""
    # each block named by its head while few heads leave room; the joined block's
    # headers name them all
    named = book.ws.n_heads <= _NAMED_BLOCKS
    heads: list[pictures.Step] = [
        ("shapes.H", "Td", (Text("H"), *((Word(book.ws.lesson.head_names[h - 1], sup=True),)
                                        if named else ())), h)
        for h in book.heads]
    joined: pictures.Step = ("shapes.joined", "TD", (Text("joined"),), None)
    return pictures.tensor_steps(
        book, [*heads, joined], [*([None] * (book.ws.n_heads - 1)), (Text("concat"),)],
        "Each head's message matrix as a block in its colour; concatenation puts them side "
        "by side, one row per token, each group of columns headed by its head",
        size="strip", cell=max(12.0, min(18.0, 36.0 / book.head_width)), headers=True)


_TOP_WORDS = 3
"""How many of the most probable words the readout slide lists before the rest."""


def _hidden_grid(book: Book, s: str) -> Table:
    """The hidden layer as one grid, a column per hidden unit: its value before the ReLU
    and after it, the units the ReLU keeps in bold and those it sets to zero in grey."""
    units = tuple((Text("u"), book.n(f"dims.hidden_units[{k}]")) for k in range(book.ws.hidden))
    after = tuple(
        Cell((book.n(f"{s}.hidden[{k}]"),),
             style="step" if float(book.value(f"{s}.hidden[{k}]")) == 0 else "result")
        for k in range(book.ws.hidden))
    return Table(units, (
        Row((Math(r"e' W_u + b_u"),), _row(book, f"{s}.hidden_pre", book.ws.hidden),
            fragment=1),
        Row((Math(r"u = \operatorname{ReLU}"),), after, fragment=2),
    ), corner=book.say("hidden unit"), style="steps")


def _readout(book: Book, s: str) -> tuple[Block, ...]:
    """The most probable words' logits and probabilities, then every other word's
    probability together, as a table and as bars."""
    last = book.last
    ids = [int(book.value(f"{s}.ranked[{k}]")) for k in range(_TOP_WORDS)]
    rows = [Row((book.vocab(f"{s}.ranked[{k}]"),), (
        Cell((book.n(f"{s}.logits[{last}][{i}]"),)),
        Cell((book.n(f"{s}.probs[{i}]"),), style="result"))) for k, i in enumerate(ids)]
    rows.append(Row(book.say("every other word"), (
        Cell(()), Cell((book.n(f"{s}.probs_rest[{_TOP_WORDS}]"),))), style="total"))
    table = Table((book.say("logit {z}", z=Math("z")), book.say("probability {p}", p=Math("p"))),
                  tuple(rows), corner=book.say("word"), style="steps")
    bars = pictures.weight_bars(
        book, [*((book.vocab(f"{s}.ranked[{k}]"),) for k in range(_TOP_WORDS)),
               (Text("every other word"),)],
        [*(f"{s}.probs[{i}]" for i in ids), f"{s}.probs_rest[{_TOP_WORDS}]"], "neutral",
        "The most probable words' probabilities as bars, and every other word's together",
        per_unit=PROBABILITY_SPAN, focus=[0], size="short")
    return (Columns(((table,), (bars,))),)


def prediction(book: Book) -> list[Stack]:
    """The last updated row through the prediction MLP, the readout and the softmax."""
    s, last = book.sentence, book.last
    section = Section("prediction", "prediction", "The prediction")
    predicted = int(book.value(f"{s}.prediction"))
    section.add("mlp", "Back to predicting the next word", [
        pictures.model_map(book, "MLP"),
        book.vector(f"{s}.E_prime[{last}]", (Math("e'"),), book.feature_columns()),
        _hidden_grid(book, s),
        Para(book.say("{wh} is a learned matrix that turns the {d} features into {n} hidden "
                      "units {u}; {bh} adds a learned offset to each unit. ReLU keeps a "
                      "positive value (bold) and sets a negative one to zero (grey).",
                      wh=Math("W_u"), d=book.n("dims.d_model"), n=book.n("dims.hidden"),
                      bh=Math("b_u"), u=Math("u")),
             fragment=2),
    ], [
        book.say("Point at the updated last row, then reveal the hidden layer unit by unit: "
                 "{wh} mixes the features, {bh} shifts each unit. Reveal the ReLU row and "
                 "point at the grey cells: the units that were negative are switched off. "
                 "Remind the room that the MLP is Part II's; more heads change how this row "
                 "gathered its context, not the prediction step. The letters are new on "
                 "purpose: h counts heads, so the hidden units are {u}.", wh=Math("W_u"),
                 bh=Math("b_u"), u=Math("u")),
    ])
    section.add("readout", "From the hidden units to a word", [
        Formula(r"z = u\,W_z + b_z,\qquad p_i = \frac{e^{z_i}}{\sum_{i'} e^{z_{i'}}}"),
        Para(book.say("{wv} and {bv} give each of the {v} words of the vocabulary a score, "
                      "its logit {z}, from the hidden units {h}. The softmax turns the logits "
                      "into probabilities that sum to one.", wv=Math("W_z"), bv=Math("b_z"),
                      v=book.n("dims.vocab"), z=Math("z"), h=Math("u"))),
        *_readout(book, s),
        Para(book.say("Most likely next word: {w}, probability {p}."
                      + (" The observed next word is {t}." if book.observed else ""),
                      w=book.vocab(f"{s}.prediction"), p=book.n(f"{s}.probs[{predicted}]"),
                      **book.target(s)), fragment=1),
    ], [
        book.say("Read the formula aloud: the hidden units times {wv}, plus {bv}, give one "
                 "logit per word; the softmax makes them probabilities. Point at the top of "
                 "the table, {w}, and read its logit and probability, {p}. Ask the room why "
                 "the largest logit always wins the largest probability.", wv=Math("W_z"),
                 bv=Math("b_z"), w=book.vocab(f"{s}.prediction"),
                 p=book.n(f"{s}.probs[{predicted}]")),
    ])
    section.add("probabilities", "Probabilities over the vocabulary", [
        _vocabulary_bars(book, s),
        Para(book.say("Highlighted: the predicted word {w} and the observed word {t}."
                      if book.observed else "Highlighted: the predicted word {w}.",
                      w=book.vocab(f"{s}.prediction"), **book.target(s))),
        Para(book.say("Attention weights choose source positions; these probabilities "
                      "choose the next token."), fragment=1),
    ], [
        book.say("Point at the highlighted bar of {w}, the most probable word. Then contrast "
                 "the two kinds of weights: attention weights choose source positions, these "
                 "probabilities choose the next token. In training the observed next word is "
                 "the target, whatever the model predicts.", w=book.vocab(f"{s}.prediction")),
    ])
    return [section.stack()]


PROBABILITY_SPAN = 300.0
"""How long a probability of one is drawn in the vocabulary's bars (two columns of bars
share the slide's width)."""


def _vocabulary_bars(book: Book, s: str) -> Columns:
    """The vocabulary's probabilities as bars, a column of pictures of at most
    :data:`_BARS_PER_COLUMN` words each; the predicted and the observed word outlined."""
    vocab = book.ws.vocab
    chunks = [range(start, min(start + _BARS_PER_COLUMN, len(vocab)))
              for start in range(0, len(vocab), _BARS_PER_COLUMN)]
    prediction_id = int(book.value(f"{s}.prediction"))
    target_id = int(book.value(f"{s}.target")) if book.observed else None
    columns: list[tuple[Block, ...]] = []
    for chunk in chunks:
        columns.append((pictures.weight_bars(
            book, [(Word(vocab[i]),) for i in chunk], [f"{s}.probs[{i}]" for i in chunk],
            "neutral", "The probability of each word of the vocabulary as a bar; the "
            "predicted and the observed word outlined", per_unit=PROBABILITY_SPAN,
            focus=[k for k, i in enumerate(chunk) if i in (prediction_id, target_id)]),))
    return Columns(tuple(columns))


def other_context(book: Book) -> list[Stack]:
    """The other sentences: switch the context and see every head's reading change."""
    section = Section("other-context", "other-context", "Another context")
    others = [name for name in book.sentences if name != book.sentence]
    switch, switcher = book.switch(lambda s, _: _context_panel(book, s), heads=False,
                                   sentence=others[0] if others else book.sentence)
    section.add("switch", "Try another context", [switch], [
        book.say("Use the sentence switcher to change the context and watch every head's arcs "
                 "move; read the new prediction aloud, {w}. Say that every panel was computed "
                 "in advance from the same hand-chosen parameters: an arithmetic explorer, "
                 "not a trained language model.", w=book.vocab(
                     f"{others[0] if others else book.sentence}.prediction")),
    ], switcher)
    d = book.head_width
    names = _joined_names(book)
    rows = (*((Row((), (*(Cell(name) for name in names), Cell(())), style="names"),)
              if names else ()),
            *(Row((Word(name),), (
                *(cell for h in book.heads for cell in _row(book, f"{name}.h{h}.message", d)),
                Cell((book.vocab(f"{name}.prediction"),)),
            )) for name in book.sentences))
    section.add("every", "Every context, every head", [
        Table((*((book.head(h),) for h in book.heads), book.say("prediction")), rows,
              corner=book.say("final messages"), spans=(*(d for _ in book.heads), 1)),
        _favourites(book),
        Para(_first_head_contrast(book), fragment=1),
    ], [
        "Point at the table row by row: each sentence's final message from every head, and "
        "its prediction. Ask the room which head's message changed most between the "
        "contexts, and why. The lab computes these same numbers in one batch.",
        "The bars say why: in each context, each head's strongest source and its weight, in "
        "the head's colour. The heads keep their parameters; the words they find change.",
    ])
    add_explorer_slide(book, section)
    return [section.stack()]


def _first_head_contrast(book: Book) -> Runs:
    """The first head's message in every context, each coordinate named: what the same
    parameters send from different words."""
    parts: list = []
    for n, name in enumerate(book.sentences):
        parts += [*((Text("; "),) if n else ()), *book.say(
            "{m} for {s}", s=Word(name),
            m=pictures.named_vector(book, f"{name}.h1.message", 1))]
    return book.say("Same parameters, different words: the {name} head sends {parts}.",
                    name=book.head(1), parts=tuple(parts))


def _favourites(book: Book) -> pictures.Picture:
    """For every sentence and head, the weight the head gives its strongest source at the
    final receiver, as a bar in the head's colour, named by the sentence and the source."""
    pairs = [(s, h) for s in book.sentences for h in book.heads]
    return pictures.weight_bars(
        book, [(Word(s),) if h == 1 else () for s, h in pairs],
        [f"{s}.h{h}.weights[{book.top(s, h)}]" for s, h in pairs],
        [pictures.head_tone(h) for _, h in pairs],
        "For every sentence and every head, a bar as long as the weight the head gives its "
        "strongest source at the final receiver, in the head's colour",
        values=[(book.n(f"{s}.h{h}.weights[{book.top(s, h)}]"), Text(" on "),
                 book.token(s, book.top(s, h)), Text(", "), book.head(h), Text(" head"))
                for s, h in pairs], size="strip")


def _context_panel(book: Book, s: str) -> tuple[Block, ...]:
    lanes = [(f"{s}.h{h}", h, (book.head(h),)) for h in book.heads]
    return (
        pictures.arcs(book, s, lanes, "Each head's attention arcs into this sentence's final "
                      "receiver, each as wide as its weight", size="strip"),
        Bullets(tuple(Item(book.say("{name} head's message: {m}", name=book.head(h),
                                    m=pictures.named_vector(book, f"{s}.h{h}.message", h)))
                      for h in book.heads)),
        Para(book.say("Prediction: {w} (observed: {t})" if book.observed else "Prediction: {w}",
                      w=book.vocab(f"{s}.prediction"), **book.target(s))),
    )


def grids(book: Book) -> list[Stack]:
    """Whole matrices: projections, the mask, every head's grid, the joined messages."""
    section = Section("grids", "grids", "Attention grids")

    def projected(s: str, h: int | None) -> tuple[Block, ...]:
        head = h or 1
        return pictures.beside((
            book.matrix(f"{s}.E", book.token_rows(s), book.feature_columns(),
                        corner=(Math("E"),)),
            book.matrix(f"params.h{head}.W_Q", book.feature_columns(),
                        corner=book.labelled("W_Q", head)),
            book.matrix(f"{s}.h{head}.Q", book.token_rows(s),
                        corner=book.labelled("Q", head), fragment=1),
        ), _projecting(book, head), below=True)

    switch, switcher = book.switch(projected, heads=True)
    section.add("project", "Project every row with the same head matrix", [switch], [
        book.say("Point at {e}, then at the first head's {wq}, then at the queries they give, "
                 "one row per token. Switch heads to show a different projection of the same "
                 "{e}. Say that {wk} and {wv} work the same way, all tokens at once.",
                 e=Math("E"), wq=Math("W_Q"), wk=Math("W_K"), wv=Math("W_V")),
    ], switcher)
    s = book.sentence
    section.add("mask", "The mask keeps every receiver in its past", [
        Columns((
            (pictures.mask(book, s, "The causal mask added to the scores: zero where the "
                           "receiver may read, minus infinity in the grey future cells",
                           size="full"),),
            (Formula(r"A = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}"
                     r" + M\right)"),
             Para(book.say("{m} adds {z} where a receiver may read a source and {inf} where "
                           "the source lies in its future (grey).", m=Math("M"),
                           z=book.n(f"{s}.mask[{book.last}][{book.last}]"),
                           inf=Math(r"-\infty"))),
             Para(book.say("A score plus {inf} exponentiates to zero, so future sources get "
                           "weight zero; the softmax runs over the allowed ones.",
                           inf=Math(r"-\infty")), fragment=1),
             Formula(r"H = AV", fragment=2)),
        )),
    ], [
        book.say("Point at the grey cells: future sources, where the mask holds minus "
                 "infinity; the allowed cells hold {z}. Reveal why: a score plus minus "
                 "infinity exponentiates to zero, so future sources get weight zero. The "
                 "point: each receiver reads only itself and earlier tokens.",
                 z=book.n(f"{s}.mask[{book.last}][{book.last}]")),
    ])

    def heat(s: str, _: int | None) -> tuple[Block, ...]:
        return (pictures.heatmaps(book, s, "Every head's attention grid as a heat map, side "
                                  "by side: each allowed cell shaded by its weight in the "
                                  "head's colour, future cells grey"),)

    def grid(s: str, h: int | None) -> tuple[Block, ...]:
        head = h or 1
        table = book.matrix(f"{s}.h{head}.A", book.token_rows(s),
                            tuple((book.token(s, j),) for j in range(book.length)),
                            corner=book.labelled("A", head),
                            focus=(book.last,), shade=True, causal=True,
                            tone=pictures.head_tone(head))
        if across(table) <= pictures.BESIDE_MOST:
            return (Columns(((table,), (_last_row(book, s, head),))),)
        return (table, _last_row(book, s, head, upright=True))

    switch, switcher = book.switch(heat, heads=False)
    section.add("heads", "Each head makes its own grid", [switch], [
        book.say("Point at the darkest cells of each row: that is where the receiver reads. "
                 "The grids stand side by side: each head makes its own from the same {e}; "
                 "the grey triangle is the future, the same for every head. Ask the room "
                 "which source column lights up for each head, and why.", e=Math("E")),
    ], switcher)
    switch, switcher = book.switch(grid, heads=True)
    section.add("numbers", "One head's grid in numbers", [
        switch,
        Para(book.say("A row can only spread its weight over the sources before it: an early "
                      "receiver gives most of it to the best match it has so far, even when a "
                      "better one comes later."), style="note"),
    ], [
        book.say("Point at the outlined last row: it is the row we computed step by step, "
                 "with {w} on {t} for the first head. Every row sums to one, and every "
                 "cell right of the diagonal is zero because the mask removed it.",
                 w=book.n(f"{book.sentence}.h1.weights[{book.top(book.sentence, 1)}]"),
                 t=book.token(book.sentence, book.top(book.sentence, 1))),
    ], switcher)
    columns, spans = _head_groups(book)

    def joined(s: str, _: int | None) -> tuple[Block, ...]:
        return (Columns((
            (replace(book.matrix(f"{s}.joined", book.token_rows(s), columns),
                     corner=(Math(r"\operatorname{Concat}_h H^{(h)}"),), spans=spans),),
            (_joining(book),),
        )),)

    switch, switcher = book.switch(joined, heads=False)
    section.add("join", "Join coordinates, not token rows", [
        switch,
        Formula(DELTA + r",\qquad " + RESIDUAL, fragment=1),
        Para(book.say("{h} runs over the heads: {names}.", h=Math("h"), names=book.head_list()),
             fragment=1),
    ], [
        book.say("Point at the joined matrix: each head's columns in its colour, still one row "
                 "per token. Reveal the formula and say that {h} runs over the heads. Ask the "
                 "room what joining rows instead of coordinates would do to the number of "
                 "tokens the next layer sees.", h=Math("h")),
    ], switcher)
    section.add("code", "One head is the single-head calculation again", [
        _one_call(book),
        Code((
            book.say("def head(E, W_Q, W_K, W_V, M, d_k):   # M: the mask; d_k: the "
                     "head's width"),
            book.say("    Q, K, V = E @ W_Q, E @ W_K, E @ W_V"),
            book.say("    scores = Q @ K.T / sqrt(d_k) + M   # K.T: K transposed"),
            book.say("    A = softmax(scores)                # over sources, row by row"),
            book.say("    return A @ V"),
        )),
        Para(book.say("No new attention rule: the same function, called with each head's "
                      "own matrices."), fragment=1),
    ], [
        "Read the function aloud line by line: project, score, mask, softmax, mix. It is Part "
        "II's head, unchanged. The point: multi-head attention adds no new attention rule, "
        "only more calls, each with its own head's matrices.",
        "The picture follows the lines one by one for the first head: the input rows, its "
        "queries, keys and values, the masked scores, the weights and the messages.",
    ])
    section.add("call", "Call it once per head", [
        pictures.tensor_steps(
            book, [("shapes.E", "TF", (Text("E"),), None),
                   *(("shapes.H", "Td", (Text("H"), Word(book.ws.lesson.head_names[h - 1],
                                                          sup=True)), h) for h in book.heads),
                   ("shapes.joined", "TD", (Text("joined"),), None),
                   ("shapes.delta", "TF", (Text("ΔE"),), None),
                   ("shapes.E_prime", "TF", (Text("E′"),), None)],
            [(Text("head(E)"),), *([None] * (book.ws.n_heads - 1)),
             (Text("concat"),), (Text("times "), Text("W"), pictures.Sub("O")),
             (Text("plus E"),)],
            "The same input rows go into one call per head, each returning its message "
            "block in the head's colour; the blocks are joined side by side, mapped by the "
            "output projection and added to the input rows", size="strip", reach=72.0),
        Code((
            book.say("H = [head(E, W_Q[h], W_K[h], W_V[h], M, d_k) for h in heads]"),
            (*book.say("joined = concat(H)             # "), book.n("shapes.joined")),
            (*book.say("delta_E = joined @ W_O         # "), book.n("shapes.delta")),
            (*book.say("E_prime = E + delta_E          # "), book.n("shapes.E_prime")),
        )),
        Para(book.say("One sentence, no batch axis. The lab checks these outputs against the "
                      "worksheet numbers."), fragment=1),
    ], [
        book.say("Point at the blocks: the heads' messages joined, mapped by {wo} to the "
                 "update, then added to {e}. Read the shape in the comments aloud, {j} for the "
                 "joined rows. The calls do not depend on each other, so they can run in "
                 "parallel.", wo=Math("W_O"), e=Math("E"), j=book.n("shapes.joined")),
    ])
    section.add("loss", "The same loss trains every head", [
        Bullets((
            Item(book.say("training: the observed next token is the target of a "
                          "cross-entropy loss on the vocabulary logits"), 1),
            Item(book.say("that one loss sends gradients into every head's projections and "
                          "into {wo}", wo=Math("W_O")), 2),
            Item(book.say("no example is labelled with a head's role"), 3),
            Item(book.say("inference: weights stay fixed; run the prefix, choose a token, "
                          "append it, repeat"), 4),
        )),
        pictures.model_map(book, ("heads", "W_O"), spans=(
            ("heads", "prediction", (Text("one loss at the next word: gradients reach every "
                                          "head and "), Text("W"), pictures.Sub("O"))),)),
    ], [
        book.say("Reveal the lines one by one and stress the second: one loss sends gradients "
                 "into every head's projections and into {wo}. No example is labelled with a "
                 "head's role, so any roles are found, not given. The full executable loop is "
                 "in the lab at the end.", wo=Math("W_O")),
        book.say("Point at the map: the loss is measured at the next word, and the bracket "
                 "spans every step it trains, the lit heads and {wo} among them.",
                 wo=Math("W_O")),
    ])
    return [section.stack()]
