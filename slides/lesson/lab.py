"""The executable lab: the batched model as annotated listings, training, PyTorch, what next.

The lecture has already shown every worked number; the lab shows only what the code adds:
the batch and head axes (each line's tensor shape written beside it as a comment), the
checks against the worksheet, training, generation and the library layer. A slide's
listing comes in cells, like a notebook's: the first with the slide, each next one a step
later, the tensor pictures revealed with the lines that reshape.
"""

from __future__ import annotations

from collections.abc import Sequence

from slides.context import (
    Cell,
    Code,
    Columns,
    Glyph,
    Math,
    Num,
    Para,
    Row,
    Runs,
    Stack,
    Table,
    Text,
    Word,
)
from slides.lesson import pictures
from slides.lesson.kit import Book, Prose, Section
from slides.lesson.layout import across

__all__ = ["lab"]

LEARNED = ("embeddings", "heads", "W_O", "MLP", "prediction")
"""The model map's steps that hold parameters (joining and the residual hold none)."""

Line = tuple[str, Prose | Num | None]
"""One line of code and its annotation (written after ``#``; ``None``: no comment)."""


def lab(book: Book) -> list[Stack]:
    """The lab's sections, each a stack."""
    return [_batch(book), _training(book), _library(book)]


def _cells(*groups: Sequence[Line], start: int = 0) -> tuple[Code, ...]:
    """A listing in cells: the first shown with the slide (or at reveal step ``start``),
    each next one a step later, every annotation starting in one column."""
    width = max((len(code) for group in groups for code, note in group if note is not None),
                default=0)
    cells = []
    for step, group in enumerate(groups):
        lines: list[Runs] = []
        for code, note in group:
            if note is None:
                lines.append((Text(code),))
            else:
                shown = (Text(note),) if isinstance(note, str) else \
                    note if isinstance(note, tuple) else (note,)
                lines.append((Text(f"{code.ljust(width)}  # "), *shown))
        cells.append(Code(tuple(lines), fragment=start + step or None))
    return tuple(cells)


def _tensor(name: str) -> tuple[Text, ...]:
    return (Text(name),)


def _strip(book: Book, steps: list[pictures.Step],
           operations: list[tuple[Glyph, ...] | None], what: str,
           fragment: int | None, masked: bool = False,
           added: tuple[Glyph, ...] = (), cell: float = 14.0,
           mask_from: int = 0, reach: float = 90.0,
           operation_size: float = 18.0) -> pictures.Picture:
    """The batch's tensors along some lines of the code, drawn from their shapes (cells
    of ``cell`` units: smaller on a slide with a longer listing; arrows ``reach`` long:
    shorter on a long chain; ``operation_size``, the arrows' names). With ``masked``,
    grids from step ``mask_from`` on grey their future sources."""
    picture = pictures.tensor_steps(book, steps, operations, what, size="strip", cell=cell,
                                    masked=masked, added=added, mask_from=mask_from,
                                    reach=reach, operation_size=operation_size)
    return pictures.Picture(picture.width, picture.height, picture.description,
                            picture.shapes, picture.size, fragment)


# --------------------------------------------------------------------------- the batch


def _batch(book: Book) -> Stack:
    section = Section("lab-batch", "lab", "Lab: the batched model in code")
    section.add("model", "An outline of the code: the layer and the model", [
        *_cells(
        [("class MultiHeadSelfAttention(nn.Module):", None),
         ("    W_Q, W_K, W_V, W_O", book.say("no bias; W_O is {s}", s=book.n("shapes.W_O"))),
         ("    def forward(self, E): ...", "project, split, score, mask,"),
         ("", "softmax, mix, join, W_O"),
         ("class TinyLM(nn.Module):", "tables, attention, MLP"),
         ("    def forward(self, X): ...", "E, E + delta, last row, logits")],
        [("model = TinyLM(vocab, context,", book.say(
            "vocabulary {v}, context {c}", v=book.n("dims.vocab"), c=book.n("dims.context"))),
         ("               D, heads, hidden)", book.say(
             "width D = {d}, {h}, hidden {n}", d=book.n("dims.d_model"),
             h=book.counted("dims.heads", "head", "heads"), n=book.n("dims.hidden"))),
         ("model = TinyLM.from_worksheet(worksheet)", book.say(
             "the same sizes, the lecture's {p} parameters", p=book.n("lab.params")))],
    ), pictures.model_map(book, "heads", spans=(
        ("heads", "W_O", (Text("MultiHeadSelfAttention"),)),
        ("embeddings", "prediction", (Text("TinyLM"),))))], [
        book.say("Point at the two classes, and at the brackets under the map: the "
                 "attention layer with its four matrices, and the small language model "
                 "around it. Then reveal the constructor and "
                 "read out the sizes: width {d} with {h}, {p} parameters in all.",
                 d=book.n("dims.d_model"), h=book.counted("dims.heads", "head", "heads"),
                 p=book.n("lab.params")),
        "Say that this is an outline, its bodies filled in on the next slides; the lesson's "
        "notebook calls the same classes ScratchMultiHead and TinyMultiHeadLM. Say clearly "
        "that from_worksheet, which builds the model with the worksheet's weights, is only "
        "how we reproduce the lecture's figures (training would start from random ones), "
        "and that D in the code is the lecture's model width.",
    ])
    rows = tuple(Row((Word(name),), (
        *(Cell((book.n(f"lab.X[{i}][{j}]"),)) for j in range(book.length)),
        *((Cell((book.n(f"lab.y[{i}]"), Text(" "), book.vocab(f"lab.y[{i}]")),
                style="result"),) if book.observed else ()),
    )) for i, name in enumerate(book.sentences))
    targets: Line = (("y = tensor([vocab.index(targets[s]) for s in sentences])",
                      book.n("lab.shape.y")) if book.observed else
        ("y = None", "no lesson.targets, so no y"))
    ids = Table((*((book.pos(j),) for j in range(book.length)),
                 *((book.say("y"),) if book.observed else ())), rows,
                corner=book.say("sentence"), style="matrix")
    words = tuple(_in_words(book, name) for name in book.sentences)
    looked_up = _strip(book, [("lab.shape.X", "BT", _tensor("X"), None),
                              ("lab.shape.E", "BTF", _tensor("E"), None)], [_tensor("tables")],
                       "The token ids, one column per sentence, index the tables: one row of "
                       "embeddings per token", None)
    # Beside the ids while they leave room, else under them at full strip height (the
    # tensors are tall: a short picture would shrink their labels).
    section.add("batch", "The sentences form one batch", [
        *_cells([("X = tensor([worksheet.ids(s) for s in sentences])", book.say(
            "{s}: B sentences, T tokens", s=book.n("lab.shape.X")))],
                [targets]),
        *((Columns(((ids,), (looked_up,))),) if across(ids) <= pictures.BESIDE_MOST
          else (ids, looked_up)),
        *words,
    ], [
        book.say("Read the sentences in words under the table, then their ids: each row "
                 "of the table is one sentence as token ids, so the batch X is "
                 "{s}: sentences down, positions across. These are integers that index "
                 "tables, not embeddings: the picture looks each one up, giving {e}.",
                 s=book.n("lab.shape.X"), e=book.n("lab.shape.E")),
        "Reveal y: one observed next id per sentence, the target of the loss. Leave with "
        "the first axis: from now on every tensor starts with the batch.",
    ])
    projected: pictures.Step = ("lab.shape.Q", "BTD", _tensor("Q"), None)
    headed: pictures.Step = ("lab.shape.Q_heads", "BHTd", _tensor("Q"), None)
    section.add("heads", "Embed, project, then split into heads", [
        Para(book.say("B: the sentences in the batch, {b}. T: the tokens in each, {t}. D: "
                      "the model width, {d} = heads × d_head = {h} × {dh}, d_head being one "
                      "head's width.", b=book.n("dims.sentences"), t=book.n("dims.tokens"),
                      d=book.n("dims.d_model"), h=book.n("dims.heads"),
                      dh=book.n("dims.d_head")), style="note"),
        *_cells(
            [("E = token_embedding(X) + position_embedding(arange(T))",
              book.say("E is {s}", s=book.n("lab.shape.E")))],
            [("Q, K, V = E @ W_Q, E @ W_K, E @ W_V",
              book.say("W_Q is {w}; each {s}", w=book.n("shapes.W_Q_packed"),
                       s=book.n("lab.shape.Q")))],
            [("Q = Q.reshape(B, T, heads, d_head)", book.say(
                "{s}: same numbers, new shape", s=book.n("lab.shape.Q_split"))),
             ('Q = einsum("bthd -> bhtd", Q)', book.say(
                 "{s}: swaps t and h", s=book.n("lab.shape.Q_heads")))],
        ),
        _strip(book, [projected, ("lab.shape.Q_split", "BTHd", _tensor("split"), None),
                      headed], [_tensor("reshape"), _tensor("swap")],
               "The projected rows: the reshape only names each row's coordinates by head, "
               "so the picture barely changes; the swap of axes then gives each head a block "
               "of its own", 2),
        Para(book.say("The reshape keeps every number in its place and only reads each "
                      "row's {d} coordinates as {h} blocks of {dh}; einsum's swap of t and h "
                      "then reorders the numbers, one block per head.",
                      d=book.n("dims.d_model"), h=book.n("dims.heads"),
                      dh=book.n("dims.d_head")), fragment=2, style="note"),
    ], [
        book.say("Read the letters first: B sentences, T tokens, D coordinates split into "
                 "heads of d_head each. The embeddings are {e}, and {w}, the heads' {s} "
                 "matrices side by side, {p}, projects every head at once.",
                 e=book.n("lab.shape.E"), w=Math("W_Q"), s=book.n("shapes.W_Q"),
                 p=book.n("shapes.W_Q_packed")),
        book.say("On the last step point at the picture: the reshape only labels each row's "
                 "coordinates as {h} head blocks, so nothing moves; einsum's letters swap the "
                 "token and head axes, giving {q}, one block per head, for K and V too.",
                 h=book.n("dims.heads"), q=book.n("lab.shape.Q_heads")),
    ])
    section.add("attend", "Score, mask, weigh and mix in every head", [
        *_cells(
            [("scores = Q @ K.mT / sqrt(d_head)", book.say(
                "{s}; .mT: transposed", s=book.n("lab.shape.scores")))],
            [("scores = scores.masked_fill(future, -inf)", "one mask, every head")],
            [("A = softmax(scores)", "over each row's sources"),
             ("assert_close(A, worksheet_A)", book.say("all {n} weights match",
                                                        n=book.n("lab.A_weights")))],
            [("messages = A @ V", book.n("lab.shape.messages"))],
        ),
        _strip(book, [("lab.shape.scores", "BHTS", _tensor("scores"), None),
                      ("lab.shape.A", "BHTS", _tensor("A"), None),
                      ("lab.shape.messages", "BHTd", _tensor("messages"), None)],
               [_tensor("mask, softmax"), _tensor("times V")],
               "One grid of scores per sentence and head, every source still open; after "
               "the mask and the softmax, the weights with the future sources grey; then one "
               "message row per token and head", 1, masked=True, mask_from=1, reach=64.0),
    ], [
        book.say("Point at the score shape {s}: one full grid per sentence and per head, and "
                 "the matrix product only contracts the coordinates.",
                 s=book.n("lab.shape.scores")),
        book.say("With the mask, the future sources turn grey in the weights. At the softmax "
                 "say the check aloud: all {n} weights equal the worksheet's. Leave with the "
                 "messages: the sources are summed out, each head keeps its own.",
                 n=book.n("lab.A_weights")),
    ])
    section.add("join", "Join the heads, project, predict", [
        *_cells(
            [('joined = einsum("bhtd -> bthd", messages)', book.say(
                "{s}: heads back behind tokens", s=book.n("lab.shape.Q_split"))),
             ("joined = joined.reshape(B, T, D)", book.n("lab.shape.joined"))],
            [("delta = joined @ W_O", book.n("lab.shape.delta")),
             ("updated = E + delta", "the residual")],
            [("logits = readout(relu(hidden(updated[:, last])))",
              book.say("{s}; last: the final position", s=book.n("lab.shape.logits")))],
        ),
        pictures.join_mix(book, "The first sentence's joined rows made two ways, one "
                          "column per token and one piece per head, each piece labelled "
                          "with the token it came from: swapped first, every row holds its "
                          "own token's pieces; reshaped directly, a row holds one head's "
                          "pieces of other tokens, outlined"),
        Para(book.say("Swap the axes before the reshape: reshaping the head-first messages "
                      "directly packs one head's messages for neighbouring tokens into a "
                      "row. The shapes still agree, so no error warns you."), style="note"),
    ], [
        "Point at the left grid: every row of the joined tensor holds its own token's "
        "pieces, one per head. Then the right grid: reshaped without the swap, a row holds "
        "one head's messages for neighbouring tokens, outlined where a piece is another "
        "token's.",
        book.say("Reveal the projection: {wo} mixes the heads and the residual keeps {e}. "
                 "Only the last row goes to the prediction MLP, so the logits are {l}: one "
                 "row of vocabulary scores per sentence.", wo=Math("W_O"), e=Math("E"),
                 l=book.n("lab.shape.logits")),
    ])
    return section.stack()


def _in_words(book: Book, name: str) -> Para:
    """Sentence ``name`` in words, as the batch's table gives it in ids."""
    words: list = [Word(name), Text(": “")]
    for j in range(book.length):
        words += [*((Text(" "),) if j else ()), book.token(name, j)]
    return Para((*words, Text(" …”")), style="note")


# --------------------------------------------------------------------------- training


def _training(book: Book) -> Stack:
    section = Section("lab-training", "lab", "Lab: training and generation")
    if book.observed:
        section.add("step", "One loss trains every projection", [
            Para(book.say("{x}: the token ids. {y}: each sentence's observed next id. "
                          "{l}: the scores for every word, from the last position.",
                          x=Text("X"), y=Text("y"), l=Text("logits"))),
            *_cells(
                [("logits = model(X)", book.n("lab.shape.logits")),
                 ("loss = cross_entropy(logits, y)", book.n("lab.loss"))],
                [("optimizer = AdamW(model.parameters(), lr)", book.say(
                    "lr = {r}", r=book.n("lab.learning_rate"))),
                 ("optimizer.zero_grad()", "clear old gradients"),
                 ("loss.backward()", book.say("{f} of {n} tensors get finite gradients",
                                              f=book.n("lab.finite_grads"),
                                              n=book.n("lab.param_tensors"))),
                 ("optimizer.step()", book.say("then the loss is {l}",
                                               l=book.n("lab.loss_after")))],
            ),
            pictures.model_map(book, LEARNED),
            Para(book.say("{b}: how the loss changes with each number of every lit box. "
                          "{s}: move each number a little so the loss falls.",
                          b=Text("backward"), s=Text("step")), fragment=1),
        ], [
            book.say("Define the three names first: X the token ids, y the observed next ids, "
                     "logits the scores. Read the loss aloud, {l}: the cross-entropy of the "
                     "observed next ids, never of a sampled token.", l=book.n("lab.loss")),
            book.say("Point at the map: every box with parameters, {wo} and every head "
                     "included, gets a gradient from this one loss, and after one step the "
                     "loss is {a}; no head is given a job.", wo=Math("W_O"),
                     a=book.n("lab.loss_after")),
        ])
    else:
        section.add("no-targets", "No observed targets, no loss", [
            *_cells([("loss = cross_entropy(logits, y)", "needs y"),
                     ("optimizer.step()", "nothing to learn from")]),
            Para(book.say("Add lesson.targets, one word per sentence, to see the loss and "
                          "one AdamW step."), fragment=1),
            pictures.model_map(book, "prediction"),
        ], [
            "Point at the first line and at the lit box of the map: the loss would compare "
            "the predicted next word with the observed one, and this worksheet records "
            "none. Say how to add them, then go straight on to generation.",
        ])
    first = book.sentences[0]
    section.add("generate", "Generate one token, then repeat", [
        Para(book.say("history: the tokens so far, as ids. The training step changed the "
                      "weights a little, so we reload the worksheet's, building the model from "
                      "it again: its prediction is the lecture's. Each pass reads at most the "
                      "last {c} tokens, picks the likeliest next word and appends it. last: the "
                      "final axis, counted from the end, here the vocabulary's, then the "
                      "tokens'.",
                      c=book.n("dims.context"))),
        *_cells(
            [("model = TinyLM.from_worksheet(worksheet)", book.say("the lecture's weights")),
             ("for _ in range(new_tokens):", "one token per pass"),
             ("    logits = model(history[:, -context:])", book.say(
                 "at most the last {c} tokens", c=book.n("dims.context"))),
             ("    next_id = logits.argmax(dim=last, keepdim=True)", book.say(
                 "{i} ({w}), p = {p}", i=book.n("lab.next_id"), w=book.vocab("lab.next_id"),
                 p=book.n("lab.next_prob"))),
             ("    history = cat([history, next_id], dim=last)",
              book.n("lab.shape.history"))]),
        pictures.history_row(book, first, "The first sentence's tokens in a row, the chosen "
                             "next word appended and outlined, and a bracket over the last "
                             "tokens the next pass reads", fragment=1),
        Para(book.say("So the first sentence goes on “… {a} {b} {w}”, and the loop repeats "
                      "from the longer history.", a=book.token(first, book.last - 1),
                      b=book.token(first, book.last), w=book.vocab("lab.next_id")),
             fragment=1),
    ], [
        book.say("Say why we rebuild the model from the worksheet: the training step moved "
                 "the weights a little, and the worksheet's own weights reproduce the "
                 "lecture's prediction. Point at argmax: along the last axis, the "
                 "vocabulary, keeping that axis, so next_id is a column that cat appends "
                 "along the tokens; the first sentence's choice is {w}, with probability {p}.",
                 w=book.vocab("lab.next_id"),
                 p=book.n("lab.next_prob")),
        book.say("Point at the row: the new word appended, and the bracket over the last {c} "
                 "tokens, the context window the next pass reads; the first token drops out. "
                 "The history grows to {s}, and the loop repeats.",
                 c=book.n("dims.context"), s=book.n("lab.shape.history")),
    ])
    return section.stack()


# --------------------------------------------------------------------------- the library
# The PyTorch stack met the layer on its own: its call, the copied weights, what it leaves
# out. The lab adds the whole model with the layer swapped in, checked end to end.


def _swap(book: Book, section: Section) -> None:
    """PyTorch's layer wrapped to take our layer's call, holding our weights, and the whole
    model checked with it in place of ours."""
    lines: list[Line] = [
        ("class PyTorchAttention(nn.Module):", "our model calls attention(E)"),
        ("    def __init__(self, ours):", "ours: our attention layer"),
        ("        super().__init__()", None),
        ("        self.mha = to_pytorch(ours)", "copies our weights in"),
        ("    def forward(self, E):", "mha takes query, key, value, mask"),
        ("        return self.mha(E, E, E, attn_mask=future,", None),
        ("            average_attn_weights=False)", "(ΔE, A), as our layer returns"),
        ("logits = model(X)", book.say("TinyLM, our batch model: {s}",
                                       s=book.n("lab.shape.logits"))),
        ("model.attention = PyTorchAttention(model.attention)", "the only change"),
        ("assert_close(model(X), logits)", book.say(
            "largest gap {g}", g=book.n("lab.swap.max_diff_logits"))),
    ]
    if book.observed:
        lines.append(("cross_entropy(model(X), y)", book.say(
            "{l}, as with ours: {o}", l=book.n("lab.swap.loss"), o=book.n("lab.loss"))))
    (listing,) = _cells(lines)
    section.add("swap", "Swap PyTorch's layer into our model and check it", [
        listing,
        pictures.swapped_model(
            book, "The whole model in one row, embeddings, attention, residual, MLP, next "
            "word, its attention box dashed: PyTorch's layer with our weights copied in; "
            "beside it each sentence's likeliest next word and its probability, from our "
            "layer and from PyTorch's", fragment=1),
        *((Para((*book.say("The loss is the average of −ln p, p being each sentence's "
                           "probability of its observed next word: "), *_observed(book),
                 Text(".")), fragment=1, style="note"),) if book.observed else ()),
    ], [
        book.say("Say why a wrapper: our model hands its layer {e} alone and expects "
                 "({d}, {a}) back, while PyTorch's layer wants query, key and value inputs "
                 "and the mask; the wrapper builds that layer from ours, our weights copied "
                 "in as on the PyTorch slides, and keeps it as a part of its own, so the "
                 "model's parameters include it.", e=Math("E"), d=Math(r"\Delta E"),
                 a=Math("A")),
        book.say("Point at the dashed box: swapping the layer is the only change; the "
                 "embeddings, the residual, the MLP and the next-word layer stay ours. Reveal "
                 "the bars: each sentence gets the same next word with the same probability "
                 "from both layers, and the whole model's logits, {s}, differ by at most {g}.",
                 s=book.n("lab.shape.logits"), g=book.n("lab.swap.max_diff_logits")),
        *((book.say("Read the loss, {l}, and do it by hand with the room: the average of "
                    "minus the log of each sentence's probability for its observed next "
                    "word.", l=book.n("lab.swap.loss")),) if book.observed else ()),
    ])


def _observed(book: Book) -> Runs:
    """Each sentence's probability of its observed next word, and that word, joined with
    commas and a final "and"."""
    runs: list = []
    for i, _ in enumerate(book.sentences):
        if i:
            runs.append(Text(" and " if i == len(book.sentences) - 1 else ", "))
        runs += [book.n(f"lab.target_prob[{i}]"), Text(" for "), book.vocab(f"lab.y[{i}]")]
    return tuple(runs)


def _library(book: Book) -> Stack:
    section = Section("lab-library", "lab", "Lab: PyTorch's layer, and what next")
    _swap(book, section)
    pair = book.ws.lesson.translation
    german, english = pair.contracted
    section.add("next", "Next: read a different sequence", [
        *_cells([("delta, A = mha(E, E, E)", "self-attention: one sequence")],
                [("delta, A = mha(E_english, E_german, E_german)", "cross-attention: two")]),
        pictures.translation(
            pair.german, pair.english, "Cross-attention in translation: the German sentence "
            "being translated gives the keys and values, the English written so far gives "
            "the queries, and its last word may read every German word", fragment=1),
        Para(book.say("In translation the English written so far gives the queries; the "
                      "German gives the keys and values. “{u}” is a river's bank only: it "
                      "settles which bank is meant. Lines show what may be read, not how "
                      "much.", u=Text(pair.decides)), fragment=2),
        Para(book.say("{ne} English words so far against {ng} German (German “{g}” is "
                      "English “{e}”), so {a} is {s}, each English row reading every German "
                      "column, with no mask. Cross-attention is the next step after this "
                      "lecture.",
                      ne=book.n("lab.cross.english"), ng=book.n("lab.cross.german"),
                      g=Text(german), e=Text(english), a=Math("A"),
                      s=book.n("lab.cross.shape.A")), fragment=2),
    ], [
        book.say("Point at the three arguments: so far {q}, {k} and {v} came from the same "
                 "rows; cross-attention takes the queries from one sequence and the keys and "
                 "values from another. In translation the words written so far ask, and the "
                 "sentence being translated answers: “{u}” is a river's bank only, where a "
                 "money bank would be “Bank”, so the German settles the lecture's question, "
                 "and with no future to hide in a finished sentence, every German word can "
                 "reach the receiver.",
                 q=Math("Q"), k=Math("K"), v=Math("V"), u=Text(pair.decides)),
        book.say("Count the words with the room: {e} English against {g} German, because "
                 "one German word, “{w}”, is two English ones and the German still holds the "
                 "river the English has not reached, so the weights are {s}, not square. "
                 "Cross-attention is the next step after this lecture.",
                 e=book.n("lab.cross.english"), g=book.n("lab.cross.german"), w=Text(german),
                 s=book.n("lab.cross.shape.A")),
    ])
    return section.stack()
