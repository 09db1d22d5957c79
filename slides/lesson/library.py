"""Beyond the worked example: the bias flag, PyTorch's layer, the trained models, image patches."""

from __future__ import annotations

from slides.context import (
    Bullets,
    Cell,
    Code,
    Columns,
    Flow,
    FlowStep,
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
from slides.lesson import asides, live, pictures
from slides.lesson.kit import Book, Section
from worksheet.results import model_name

__all__ = ["bias", "patches", "pytorch", "trained"]


def bias(book: Book) -> list[Stack]:
    """A learned offset on the projections, and which of them PyTorch's bias flag adds."""
    s = book.sentence
    section = Section("bias", "bias", "Biases on the projections")
    zero = book.value("bias.zero_row") if "bias.zero_row" in book.values else None
    section.add("offset", "A bias adds a learned offset", [
        Para(book.say("Our worked example has no bias. A bias {b} is a learned row added to "
                      "every query: an offset that does not depend on the input.",
                      b=Math("b_Q"))),
        Para((*book.say("Made up to show one: {b} = {v} for the {name} head. Even a zero "
                        "query row", b=Math("b_Q"), v=book.listing("bias.offset"),
                        name=book.head(1)),
              *(book.say(" ({w}'s)", w=book.token(s, int(zero))) if zero is not None else ()),
              *book.say(" moves.")), fragment=1, style="note"),
        *pictures.beside((
            book.matrix(f"{s}.h1.Q", book.token_rows(s), corner=(Math("Q"),),
                        focus=(book.last,)),
            book.matrix("bias.Q_offset", book.token_rows(s), corner=(Math("Q + b_Q"),),
                        focus=(book.last,), fragment=1),
        ), pictures.shift(book, s, f"{s}.h1.Q", "bias.Q_offset", "bias.offset",
                          pictures.head_tone(1), "Every query row before and after the "
                          "offset, one panel per coordinate: each arrow is the same shift",
                          fragment=1), below=True),
    ], [
        book.say("Say first that the worked example has no bias: every number so far came "
                 "from the projections alone. A bias is an offset that does not depend on "
                 "the input; a query row that the projection sends to zero still gets it."),
        book.say("Reveal {b} = {v}: made up for this slide, with biases on training would "
                 "learn it. Every query row of the {name} head moves by the same arrow. "
                 "Unlike a position row, a projection bias is the same for every position "
                 "and every example.",
                 b=Math("b_Q"), v=book.listing("bias.offset"), name=book.head(1)),
    ])
    section.add("flag", "Which projections get a bias", [
        pictures.model_map(book, ("heads", "W_O"), spans=(
            ("heads", "heads", book.say("+ offsets on Q, K, V")),
            ("W_O", "W_O", book.say("+ an offset")))),
        Bullets((
            Item(book.say("without biases: {n} parameters", n=book.n("bias.params_without"))),
            Item(book.say("with biases: {n} parameters, {e} more", n=book.n("bias.params_with"),
                          e=book.n("bias.extra")), 1),
            Item(book.say("{w} offsets each for the query, key, value and output projections; "
                          "each head's slice is {d} wide", w=book.n("bias.offsets_per_projection"),
                          d=book.n("bias.head_slice")), 2),
            Item(book.say("PyTorch, the library we meet next, switches them all on or off "
                          "with one argument, its bias flag, and names them in_proj_bias {a} "
                          "(query, key, value) and out_proj.bias {b}",
                          a=book.n("bias.in_proj_bias"), b=book.n("bias.out_proj_bias")), 3),
        )),
        Para(book.say("Biases leave the mask, the position embeddings and the prediction "
                      "layers alone."), fragment=4),
    ], [
        book.say("Point at the lit boxes: the heads' query, key and value projections and "
                 "{o} each gain an offset row. Read the counts aloud: {a} parameters without "
                 "biases, {b} with them, {e} more, {w} offsets for each projection. In "
                 "PyTorch one argument, the bias flag, switches all of them, and it is on by "
                 "default; the mask, the positions and the prediction layers are untouched.",
                 o=Math("W_O"), a=book.n("bias.params_without"), b=book.n("bias.params_with"),
                 e=book.n("bias.extra"), w=book.n("bias.offsets_per_projection")),
    ])
    return [section.stack()]


def pytorch(book: Book) -> list[Stack]:
    """nn.MultiheadAttention with the same weights, and the whole model again."""
    section = Section("pytorch", "pytorch", "PyTorch's layer")
    section.add("layer", "PyTorch packages the head calculation", [
        Para((*book.say("{e} stacks the sentences ", e=Math("E")), *_names(book),
              *book.say(" as a batch: {s}, sentences first (batch_first=True). mha(E, E, E): "
                        "queries, keys and values from the same rows; future: our causal "
                        "mask.", s=book.n("lab.shape.E")))),
        Code((
            (*book.say("mha = nn.MultiheadAttention(embed_dim="), book.n("dims.d_model"),
             *book.say(", num_heads="), book.n("dims.heads"), *book.say(",")),
            book.say("                            bias=False, batch_first=True)"),
            book.say("delta_E, A = mha(E, E, E, attn_mask=future,  # True: blocked"),
            book.say("                 average_attn_weights=False)"),
            book.say("E_prime = E + delta_E"),
        )),
        pictures.tensor_steps(
            book, [("lab.shape.E", "BTF", (Text("E"),), None),
                   ("mha.delta", "BTF", (Text("ΔE"),), None),
                   ("mha.A", "BHTS", (Text("A"),), None)], [(Text("mha"),), None],
            "The batch of embeddings goes through the library layer: an update of the same "
            "shape, and for each sentence one grid of weights per head, future sources grey",
            size="strip", cell=min(12.0, 120.0 / book.length), masked=True),
        Para(book.say("{d} comes back as {ds}, like {e}; {a} as {as_}: for each sentence, one "
                      "grid per head, because average_attn_weights=False keeps the heads "
                      "apart.", d=Math(r"\Delta E"), ds=book.n("mha.delta"), e=Math("E"),
                      a=Math("A"), as_=book.n("mha.A")), fragment=1),
    ], [
        book.say("Say what a batch is: the {n} sentences stacked along a first axis, so the "
                 "layer runs them together; batch_first=True tells it that this axis comes "
                 "first. Read the constructor aloud: embedding width {m}, {h}, no bias. "
                 "Warn about the mask: in PyTorch a True entry blocks a source, the "
                 "opposite of a keep-mask.",
                 n=book.n("dims.sentences"), m=book.n("dims.d_model"),
                 h=book.counted("dims.heads", "head", "heads")),
        book.say("Point at the picture: the update {d} has the shape of {e}, and the weights "
                 "keep one grid per sentence and head. The layer leaves the positions, the "
                 "residual and the output layer to us.", d=book.n("mha.delta"),
                 e=book.n("lab.shape.E")),
    ])
    section.add("same", "Same weights, same answers", [
        Para(book.say("Copy our weights in. Each head's {q} is {qs}; side by side, the "
                      "heads' matrices make one {ps}, and likewise for {k} and {v}. PyTorch "
                      "stores each transposed, rows and columns swapped, and stacks the "
                      "three: in_proj_weight {a}. out_proj.weight {b} holds {wo}, "
                      "transposed too.",
                      q=Math("W_Q"), qs=book.n("shapes.W_Q"), ps=book.n("shapes.W_Q_packed"),
                      a=book.n("mha.in_proj_weight"), k=Math("W_K"), v=Math("W_V"),
                      b=book.n("mha.out_proj_weight"), wo=Math("W_O"))),
        pictures.model_map(book, ("heads", "concat", "W_O"), spans=(
            ("heads", "W_O", (Text("one library layer, our weights copied in"),)),)),
        Table(
            tuple((book.feature(c),) for c in range(book.width)),
            (Row(book.say("our code"),
                 tuple(Cell((book.n(f"mha.scratch_delta[{c}]"),)) for c in range(book.width))),
             Row(book.say("PyTorch"),
                 tuple(Cell((book.n(f"mha.library_delta[{c}]"),)) for c in range(book.width)))),
            corner=book.say("{d}, {s}, final “{r}”", d=Math(r"\Delta E"),
                            s=Word(book.sentence), r=book.receiver())),
        Para(book.say("Largest differences: {x} in {d}, {a} in the attention weights. Here "
                      "both run in {b}-bit floats (double precision), so this is rounding: "
                      "the two agree.", d=Math(r"\Delta E"), x=book.n("mha.max_diff_delta"),
                      a=book.n("mha.max_diff_A"), b=book.n("mha.single.bits")), fragment=1),
        *((Para(book.say("In PyTorch's default {n}-bit floats the gaps are larger, yet every "
                         "figure shown to three decimals stays the same.",
                         n=book.n("mha.notebook.bits")), fragment=1, style="note"),)
          if int(book.value("mha.notebook.agrees")) else ()),
    ], [
        book.say("Say why we copy the weights: comparing two randomly initialised layers "
                 "would prove nothing. Reveal the largest differences, {d} in the update and "
                 "{a} in the attention weights, both computed in {b}-bit floats. The point: "
                 "only float rounding separates the scratch code from the library. Point at "
                 "the transposes: PyTorch multiplies rows by the weight's transpose, so we "
                 "copy each matrix in transposed.", d=book.n("mha.max_diff_delta"),
                 a=book.n("mha.max_diff_A"), b=book.n("mha.single.bits")),
        "Point at the bracket on the map: the library layer stands in for the heads, their "
        "concatenation and the output projection, and nothing else.",
    ])
    asides.outside_the_block(book, section)
    section.add("model", "Back to the complete model, one sentence at a time", [
        pictures.model_map(book, "prediction"),
        Para(book.say("The batch {b} only stacks the sentences, and no sentence reads "
                      "another's rows, so we follow one: {e} is {s}.",
                      b=book.n("lab.shape.E"), e=Math("E"), s=book.n("shapes.E")),
             style="note"),
        Flow((
            FlowStep((Math("E"),), (book.n("shapes.E"),)),
            FlowStep((Math("H^{(h)}"),), (book.n("shapes.H"),), 1),
            FlowStep(book.say("joined"), (book.n("shapes.joined"),), 2),
            FlowStep((Math(r"\Delta E"),), (book.n("shapes.delta"),), 3),
            FlowStep((Math("E'"),), (book.n("shapes.E_prime"),), 4),
        )),
        Flow((  # the prediction's half on a line of its own, from E' again
            FlowStep((Math("E'"),), (book.n("shapes.E_prime"),), 5),
            FlowStep((Math("e'"),), (book.n("shapes.last_row"),), 5),
            FlowStep(book.say("hidden"), book.say("{n} units", n=book.n("dims.hidden")), 6),
            FlowStep(book.say("logits"), book.say("{n} words", n=book.n("dims.vocab")), 6),
        )),
        Para(book.say("Each head's messages {h}, joined, {wo} applied, residual added; the "
                      "last row {e} goes to the familiar prediction MLP and its output layer: "
                      "the logits, one per vocabulary word, before the softmax.",
                      h=Math("H^{(h)}"), wo=Math("W_O"), e=Math("e'")), fragment=7),
    ], [
        book.say("Say why the batch axis goes: the layer runs the sentences side by side "
                 "and never mixes them, so one sentence shows everything. Walk the flow once "
                 "more and read the shapes aloud, from {e} through the "
                 "hidden layer of {h} units to one score for each of the {v} words. Every "
                 "arrow on this map has now been computed. Add the caution: a teaching "
                 "model with one attention update, not every part of "
                 "a deep production Transformer.", e=book.n("shapes.E"),
                 h=book.n("dims.hidden"), v=book.n("dims.vocab")),
    ])
    return [section.stack()]


def _names(book: Book) -> Runs:
    """The lesson's sentences by name, joined with commas and a final "and"."""
    names = [Word(name) for name in book.sentences]
    runs: list = []
    for i, name in enumerate(names):
        runs += [*((Text(" and " if i == len(names) - 1 else ", "),) if i else ()), name]
    return tuple(runs)


def trained(book: Book) -> list[Stack]:
    """The genuinely trained comparison: what the models learned from, each model drawn
    with its parameters counted by part, then the results (or, without an experiment, what
    a comparison measures)."""
    section = Section("trained", "trained", "The trained comparison")
    measured = RESULTS_KEY in book.values
    if measured:
        _corpus(book, section)
    section.add("mlp", "The fixed-window MLP reads a flattened window", [
        pictures.architecture(book, "mlp", "The fixed-window MLP: its token rows joined into "
                              "one long row, a wide hidden layer, the vocabulary layer, each "
                              "with its parameter count"),
        Para(book.say("Joining the {c} rows in order gives every slot weights of its own, so "
                      "no position table is needed; the price is a hidden layer of {fh} "
                      "parameters.", c=book.n("trained.context"),
                      fh=book.n("trained.mlp.parts.hidden")), fragment=1),
    ], [
        book.say("These are the real models, not the worksheet. Walk the picture left to "
                 "right: {c} token rows of {w} numbers joined into one row of {f}, a first "
                 "layer to {h} with ReLU, the vocabulary layer. Read the counts under the "
                 "boxes: {t} in the token table, {fh} in the hidden layer, {vh} in the "
                 "vocabulary layer, {p} in all.", c=book.n("trained.context"),
                 w=book.n("trained.width"), f=book.n("trained.mlp.flat_width"),
                 h=book.n("trained.hidden"), t=book.n("trained.mlp.parts.token"),
                 fh=book.n("trained.mlp.parts.hidden"), vh=book.n("trained.mlp.parts.vocab"),
                 p=book.n("trained.mlp.params")),
    ])
    for heads in book.ws.lesson.trained.heads:
        key = f"trained.heads{heads}"
        section.add(f"heads{heads}", book.say("Attention with {n} × {d}-wide " + _heads(heads),
                                               n=book.n(f"{key}.heads"),
                                               d=book.n(f"{key}.d_head")), [
            pictures.architecture(book, f"heads{heads}", "An attention model: token and "
                                  "position rows, the attention layer with its "
                                  "projected row split into one block per head, the last row "
                                  "into a narrow prediction layer, the vocabulary layer, each "
                                  "with its parameter count"),
            Para(book.say("One head takes all {w} projected coordinates and has one grid of "
                          "weights: {k} × ({w} × {w}) + {w} × {w} = {p}.",
                          w=book.n("trained.width"), k=book.n("trained.projections"),
                          p=book.n(f"{key}.parts.attention")), fragment=1) if heads == 1 else
            Para(book.say("Each head takes {d} of the {w} projected coordinates and has its own "
                          "grid; the messages are joined back to {w} before {wo}: {n} × {k} × "
                          "({w} × {d}) + {w} × {w} = {p}, as many as one wide head.",
                          d=book.n(f"{key}.d_head"), w=book.n("trained.width"), wo=Math("W_O"),
                          n=book.n(f"{key}.heads"), k=book.n("trained.projections"),
                          p=book.n(f"{key}.parts.attention")), fragment=1),
        ], [
            book.say("Walk the picture: token rows plus learned position rows ({pp} "
                     "parameters); {q}, {k}, {v} and {wo}, four {w} × {w} matrices of {a} "
                     "parameters, their {w} coordinates split into {n} heads of {d}, each "
                     "with its own grid of weights and its own softmax. Only the last row "
                     "feeds the prediction MLP, {w} numbers instead of {f}: {hh} "
                     "parameters. {p} in all.",
                     pp=book.n(f"{key}.parts.position"), q=Math("W_Q"), k=Math("W_K"),
                     v=Math("W_V"), wo=Math("W_O"), w=book.n("trained.width"),
                     a=book.n(f"{key}.parts.attention"), n=book.n(f"{key}.heads"),
                     d=book.n(f"{key}.d_head"), f=book.n("trained.mlp.flat_width"),
                     hh=book.n(f"{key}.parts.hidden"), p=book.n(f"{key}.params")),
        ])
    _padding(book, section)
    first = f"trained.heads{book.ws.lesson.trained.heads[0]}"
    rows = tuple(Row((book.n(f"trained.heads{heads}.heads"),), (
        Cell((book.n(f"trained.heads{heads}.d_head"),)),
        Cell((book.n(f"trained.heads{heads}.parts.attention"),)),
        Cell((book.n(f"trained.heads{heads}.params"),)),
    )) for heads in book.ws.lesson.trained.heads)
    models = _models(book)
    section.add("width", "Where the parameters are", [
        pictures.parameter_bars(book, [name for _, name in models], [m for m, _ in models],
                                "Each model's parameters as one bar split by part: "
                                "embeddings, attention, first MLP layer, vocabulary layer"),
        Table((book.say("head width"), book.say("attention parameters"),
               book.say("all parameters")), rows, corner=book.say("heads"), fragment=1),
        Para(book.say("More heads split the same width {w}: the same {a} attention "
                      "parameters. The MLP is the largest because its hidden layer reads "
                      "{f} numbers.", w=book.n("trained.width"),
                      a=book.n(f"{first}.parts.attention"),
                      f=book.n("trained.mlp.flat_width")), fragment=2),
    ], [
        book.say("Point at the attention part of the bars: {a} parameters whatever the head "
                 "count, because the heads split the same {w} coordinates. Implementations "
                 "keep one large {wq}, project first and then reshape into heads. Then the "
                 "MLP's hidden layer: {m} parameters against {n}, because it reads all {f} "
                 "numbers of the window.", a=book.n(f"{first}.parts.attention"),
                 w=book.n("trained.width"), wq=Math("W_Q"),
                 m=book.n("trained.mlp.parts.hidden"), n=book.n(f"{first}.parts.hidden"),
                 f=book.n("trained.mlp.flat_width")),
    ])
    if measured:
        _measured(book, section)
    else:
        _unmeasured(book, section)
    return [section.stack()]


def _padding(book: Book, section: Section) -> None:
    """Why a short prompt needs a padding mask, on a small padded grid."""
    s = book.sentence
    words = [book.token(s, j) for j in range(min(book.length, 2 * pictures.PADS) - 1)]
    section.add("padding", "A short prompt needs a padding mask", [
        Para(book.say("A prompt shorter than the window of {c} tokens is padded on the left "
                      "to that length. Each grid of weights has a row per receiver and a "
                      "column per source.", c=book.n("trained.context"))),
        pictures.padding_mask(book, words, "One head's receivers by sources for a short "
                              "prompt padded on the left: the future above the diagonal "
                              "blocked, then the pads' columns blocked for every real "
                              "receiver, the pads' own rows faint", fragment=1),
        Para(book.say("The causal mask blocks the future; the padding mask blocks the pads, "
                      "so no real token reads them. Only the last row goes on to the "
                      "prediction."), fragment=1),
    ], [
        book.say("Say why pads exist: the models read windows of {c} tokens, and a shorter "
                 "prompt is filled on the left with pads, drawn small here. Point at the grey "
                 "triangle: the causal mask, as before. Reveal the dashed block: the padding "
                 "mask blocks the pads' columns for every real receiver. The pads' own rows "
                 "are computed but never used.", c=book.n("trained.context")),
    ])


def _corpus(book: Book, section: Section) -> None:
    """What the models learned from and for how long, as the experiment records it."""
    r = RESULTS
    seeds = len(book.values.value(f"{r}.seeds"))
    section.add("corpus", "Our own run: three models, one corpus", [
        Para(book.say("We trained these models ourselves; every figure in this part is ours. "
                      "The lesson's notebook reports a different run, and we did not repeat "
                      "that: it used children's stories (TinyStories), its own number of "
                      "updates and an Apple graphics processor. We used the texts and steps "
                      "below, on a computer's main processor (CPU).")),
        Bullets((
            Item(book.say("{n} texts: {t}", n=book.n(f"{r}.documents.all"),
                          t=book.n(f"{r}.corpus"))),
            Item(book.say("{a} to train on; {b} for validation, text held out from training "
                          "to pick which checkpoint (saved weights) we keep; {c} for the test, "
                          "texts no model saw at any point",
                          a=book.n(f"{r}.documents.train"),
                          b=book.n(f"{r}.documents.validation"),
                          c=book.n(f"{r}.documents.test")), 1),
            Item(book.say("one tokenizer of {v} tokens, windows of {c} tokens, width {w}",
                          v=book.n("trained.vocab"), c=book.n("trained.context"),
                          w=book.n("trained.width")), 2),
            Item(book.say("{s} steps of {b} windows for every model, once per seed (" + ", ".join(
                f"{{k{i}}}" for i in range(seeds)) + "): a seed fixes a run's random start, "
                "its first weights and its batches", s=book.n(f"{r}.steps"),
                b=book.n(f"{r}.batch"),
                **{f"k{i}": book.n(f"{r}.seeds[{i}]") for i in range(seeds)}), 3),
        )),
        pictures.weight_bars(
            book, [book.say("training"), book.say("validation"), book.say("test")],
            [f"{r}.documents.{part}" for part in ("train", "validation", "test")], "neutral",
            "The texts split three ways, each bar as long as its share of all the texts",
            per_unit=pictures.BAR_LENGTH / float(book.value(f"{r}.documents.all")),
            size="short", fragments=(1, 1, 1)),
    ], [
        book.say("Leave the worksheet: these models were really trained, by us, for this "
                 "lecture, not taken from anyone else's run. If someone knows a children's-story "
                 "run of such models, say plainly that we trained on a different corpus, so "
                 "no figure here is that run's. Name the corpus: "
                 "{n} texts, {t}. Each text went to training, validation or test by a hash of "
                 "its words, so {c} texts are held out. Every model saw the same batches for "
                 "{s} steps, once per seed.", n=book.n(f"{r}.documents.all"),
                 t=book.n(f"{r}.corpus"), c=book.n(f"{r}.documents.test"),
                 s=book.n(f"{r}.steps")),
    ])


RESULTS = "trained.results"
RESULTS_KEY = f"{RESULTS}.verdict"
"""Present only when the lecture has an experiment (the bundled one, or one given)."""
HOW_TO_MEASURE = ("lecture experiment --corpus stories.txt --out results",
                  "lecture build --experiment results")


def _heads(count: int) -> str:
    """``head`` or ``heads``, as the count wants."""
    return "head" if count == 1 else "heads"


def _models(book: Book) -> list[tuple[str, Runs]]:
    """``(model, its name)`` for the MLP and each attention model, in the lesson's order."""
    named: list[tuple[str, Runs]] = [("mlp", book.say("fixed-window MLP"))]
    named += [(f"heads{h}", book.say("{n} × {d}-wide " + _heads(h),
                                     n=book.n(f"trained.heads{h}.heads"),
                                     d=book.n(f"trained.heads{h}.d_head")))
              for h in book.ws.lesson.trained.heads]
    return named


def _shipped(book: Book, models: list[tuple[str, Runs]]) -> Runs:
    """Each model's name with the seed the live slide runs, in the lesson's order."""
    runs: list = []
    for i, (model, name) in enumerate(models):
        runs += [*(() if i == 0 else (Text("; "),)), *name, Text(", seed "),
                 book.n(f"{RESULTS}.{model}.shipped_seed")]
    return tuple(runs)


def _sizes(book: Book) -> Para:
    """Every model's parameter count in one sentence."""
    runs: list = [Text("Parameters: ")]
    for heads in book.ws.lesson.trained.heads:
        runs += book.say("{n} × {d}-wide " + _heads(heads) + ", {p}; ",
                         n=book.n(f"trained.heads{heads}.heads"),
                         d=book.n(f"trained.heads{heads}.d_head"),
                         p=book.n(f"trained.heads{heads}.params"))
    runs += book.say("fixed-window MLP, {p}.", p=book.n("trained.mlp.params"))
    return Para(tuple(runs))


def _per_seed(book: Book, metric: str, fragment: int | None = None,
              unit: Runs = ()) -> Table:
    """Mean, lowest and highest over seeds, then each seed's figure, one row per model;
    the ``unit`` of every figure, when it has one, in the corner."""
    seeds = len(book.values.value(f"{RESULTS}.seeds"))
    columns = (book.say("mean"), book.say("lowest"), book.say("highest"),
               *(book.say("seed {s}", s=book.n(f"{RESULTS}.seeds[{i}]")) for i in range(seeds)))
    rows = []
    for model, name in _models(book):
        key = f"{RESULTS}.{model}.{metric}"
        cells = [Cell((book.n(f"{key}_{part}"),)) for part in ("mean", "low", "high")]
        cells += [Cell((book.n(f"{key}[{i}]"),)) for i in range(seeds)]
        best = book.values.text(f"{RESULTS}.best") == model_name(model)
        rows.append(Row(name, tuple(cells), style="focus" if best and metric == "perplexity"
                        else ""))
    corner = (*book.say("model"), Text(", "), *unit) if unit else book.say("model")
    return Table(columns, tuple(rows), corner=corner, fragment=fragment)


def _measured(book: Book, section: Section) -> None:
    """The experiment's results: tables over seeds, dot charts, continuations, verdict."""
    models = _models(book)
    best = min((m for m, _ in models),
               key=lambda m: float(book.value(f"{RESULTS}.{m}.perplexity_mean")))
    section.add("perplexity", "Compare held-out next-token prediction", [
        Para(book.say("{f}: the cross-entropy averages −log p over the held-out tokens, p "
                      "the probability given to the token that really came next. Lower is "
                      "better.", f=Math(r"\text{perplexity} = \exp(\text{cross-entropy})"))),
        _per_seed(book, "perplexity"),
        pictures.dot_chart(book, [name for _, name in models],
                           [f"{RESULTS}.{m}.perplexity" for m, _ in models],
                           "Test perplexity of each model, one ring per seed, the mean marked "
                           "by an upright line, on an axis from zero with round ticks; lower "
                           "is better", f"{RESULTS}.ticks.perplexity",
                           (Text("test perplexity, lower is better"),), size="strip",
                           fragment=1),
        Para(book.say("{a}. {v}. {s}.", a=book.n(f"{RESULTS}.against_mlp"),
                      v=book.n(RESULTS_KEY), s=book.n(f"{RESULTS}.spread")), fragment=2),
    ], [
        book.say("Read the formula aloud: perplexity is the exponential of the cross-entropy, "
                 "so lower is better; the best mean, {p}, is as unsure as a choice among "
                 "about {p} equally likely tokens. Every model saw the same texts, tokenizer, "
                 "context and {s} updates; each seed is one dot. Reveal the chart, then the "
                 "verdict: {a}. {v}. {o}. Say that "
                 "this is one experiment, not a law: other "
                 "data, sizes or budgets may order the models differently, and this run does "
                 "not separate positions from attention.", s=book.n(f"{RESULTS}.steps"),
                 p=book.n(f"{RESULTS}.{best}.perplexity_mean"),
                 a=book.n(f"{RESULTS}.against_mlp"), v=book.n(RESULTS_KEY),
                 o=book.n(f"{RESULTS}.spread")),
    ])
    section.add("cost", "Compare size and training time too", [
        _sizes(book),
        _per_seed(book, "seconds", fragment=1, unit=book.say("seconds")),
        Columns((
            (pictures.dot_chart(book, [name for _, name in models],
                                [f"{RESULTS}.{m}.seconds" for m, _ in models],
                                "Seconds spent in training steps by each model, one ring per "
                                "seed, the mean marked by an upright line, on an axis from "
                                "zero with round ticks", f"{RESULTS}.ticks.seconds",
                                (Text("seconds of training steps, on the processor"),),
                                fragment=2),),
            (Para(book.say("Seconds spent in training steps, all on one computer's main "
                           "processor (CPU), no graphics card. Where two models' rings "
                           "overlap, our training cannot rank their speed."), fragment=3),),
        )),
    ], [
        book.say("Read the sizes aloud; the flattened-window MLP has {p} parameters. Reveal "
                 "the training times, in seconds of training steps on the computer's main "
                 "processor, with no graphics card, one dot per seed: where two models' dots "
                 "overlap, they cost about the same. Other machines give other seconds; "
                 "only the comparison within one machine means something.",
                 p=book.n("trained.mlp.params")),
    ])
    rows = tuple(Row(name, (Cell((book.n(f"{RESULTS}.{model}.continuations[0]"),)),))
                 for model, name in models)
    means = [f"{RESULTS}.{model}.perplexity_mean" for model, _ in models]
    section.add("continuations", "The same sentence, continued by each model", [
        Para(book.say("“{p} …”", p=book.n(f"{RESULTS}.prompt"))),
        Para(book.say("Each line is a sample: the model picks each next token at random, "
                      "favouring the likely ones. These are tiny models, trained briefly on a "
                      "small corpus, so none is fluent. Notice which ones "
                      "produce real words and phrases, and hold that beside the "
                      "perplexities."), style="note"),
        Table((book.say("continuation, first seed ({s})", s=book.n(f"{RESULTS}.seeds[0]")),),
              rows, corner=book.say("model"), style="words", fragment=1),
        pictures.weight_bars(
            book, [name for _, name in models], means, "neutral",
            "Each model's mean test perplexity as a bar, to hold beside its continuation: "
            "shorter is better", per_unit=pictures.BAR_LENGTH / max(
                float(book.value(key)) for key in means),
            values=[(book.n(key), Text(" mean perplexity")) for key in means],
            size="short", fragments=[2] * len(means)),
        *((Para(book.say("Next, live: each model's middle seed by perplexity, always taking "
                         "its likeliest token, which makes a small model repeat itself; words "
                         "the tokenizer does not hold whole arrive in pieces."),
                fragment=3, style="note"),) if book.live else ()),
    ], [
        "Read the lesson's sentence, then each model's continuation: sampled from the first "
        "seed's checkpoint with the same generator for every model. Ask the room which reads "
        "most like a story, and whether that agrees with the perplexities.",
        "Then reveal the bars, each model's mean perplexity, so the room can check its "
        "answer against the measurement.",
        *((book.say("Before the next slide, say what changes there: each model runs its "
                    "middle seed by perplexity ({seeds}), and it always takes its likeliest "
                    "token instead of sampling, which makes small models repeat themselves. "
                    "The tokenizer also cuts words it has not stored whole into pieces.",
                    seeds=_shipped(book, models)),) if book.live else ()),
    ])
    live.add_live_slide(book, section)


def _unmeasured(book: Book, section: Section) -> None:
    """No experiment: what a fair comparison of the three measures; no claim about which
    does better, and (on the slide) no word on how to run one."""
    models = _models(book)
    section.add("perplexity", "What a comparison measures", [
        Formula(r"\text{perplexity} = \exp(\text{cross-entropy})"),
        Bullets((
            Item(book.say("the same texts, tokenizer, window of {c} tokens and number of "
                          "steps for every model", c=book.n("trained.context")), 1),
            Item(book.say("perplexity on held-out texts: lower means more probability on "
                          "the tokens that really came"), 2),
            Item(book.say("several seeds per model: the spread is what chance alone does"), 3),
            Item(book.say("and the cost: parameters and seconds of training"), 4),
        )),
        pictures.weight_bars(
            book, [name for _, name in models], [f"trained.{m}.params" for m, _ in models],
            "neutral", "The cost side of the comparison: each model's parameter count as a "
            "bar of proportional length", per_unit=pictures.BAR_LENGTH / max(
                float(book.value(f"trained.{m}.params")) for m, _ in models),
            values=[(book.n(f"trained.{m}.params"), Text(" parameters")) for m, _ in models],
            size="short", fragments=[4] * len(models)),
    ], [
        book.say("Read the formula aloud: perplexity is the exponential of the cross-entropy, "
                 "so lower is better. Reveal the conditions of a fair comparison. This lecture "
                 "has no results for this worksheet's sizes, so make no claim about which "
                 "model does better. (To show results: {a}, then {b}.)",
                 a=Text(HOW_TO_MEASURE[0]), b=Text(HOW_TO_MEASURE[1])),
    ])


def patches(book: Book) -> list[Stack]:
    """Image patches as embedding rows, and a CLS row for classification."""
    section = Section("patches", "patches", "Image patches")
    count = int(book.value("patches.count"))
    names = tuple((Text(name),) for name in pictures.patch_names(count))
    section.add("cut", "Image patches can supply the embedding rows", [
        Para(book.say("An image of {a}×{a} pixels, cut into {n} patches of {p}×{p} pixels, "
                      "named in reading order; each patch flattens to {v} values.",
                      a=book.n("patches.side"), n=book.n("patches.count"),
                      p=book.n("patches.size"), v=book.n("patches.values_per_patch"))),
        pictures.patches(book, "The image's pixels (darker is larger) with its patches "
                         "outlined and named row by row, and each patch flattened into one "
                         "row of pixel values under the same name", size="strip"),
        book.matrix("patches.flat", names, corner=book.say("patch"), fragment=1),
    ], [
        book.say("Point at the image: {a} by {a} pixels, cut into {n} patches of {s} by {s}, "
                 "named row by row. Reveal the flattened rows: each patch gives {v} values, "
                 "read row by row within the patch. The point: the sequence length is now the "
                 "number of patches; this is a shape illustration, not a trained vision "
                 "model.", a=book.n("patches.side"), n=book.n("patches.count"),
                 s=book.n("patches.size"), v=book.n("patches.values_per_patch")),
    ])
    twins = [int(t) for t in book.values.value("patches.twins")]
    same = twins[0] >= 0 and int(book.value("patches.twins_same_pixels"))
    section.add("rows", "One shared projection makes the rows", [
        Para(book.say("W: one shared matrix, {s}, chosen by hand for this example (training "
                      "would learn it). One row per pixel, top half then bottom half; each of "
                      "the {v} pixels adds its row of {w}, scaled by its value.",
                      v=book.n("patches.values_per_patch"), w=Math("W"),
                      s=book.n("patches.shape.W"))),
        pictures.tensor_steps(
            book, [("patches.shape.flat", "TF", (Text("patches"),), None),
                   ("patches.shape.rows", "TF", (Text("rows"),), None)],
            [(Text("times W"),)],
            "The flattened patches, one row each, times the shared matrix give one row per "
            "patch", size="short", cell=12.0),
        Columns((
            *((_projection_rows(book, part, of),) for part, of in (
                (0, book.say("{w}, top", w=Math("W"))),
                (1, book.say("{w}, bottom", w=Math("W"))))),
            (book.matrix("patches.rows", names, corner=book.say("patch rows"), fragment=1),),
        )),
    ], [
        book.say("Point at {w}: one matrix for every patch, {s}, as every token goes through "
                 "the same lookup. Reveal the rows: a patch's row is its pixel values times "
                 "{w}, so a pixel at zero adds nothing.", w=Math("W"),
                 s=book.n("patches.shape.W")),
        *((book.say("Then the twins: patches {a} and {b} have the same pixels, so they get the "
                    "same row; only the position rows, next, will tell them apart.",
                    a=names[twins[0]][0], b=names[twins[1]][0]),) if same else ()),
    ])
    _colour(book, section)
    section.add("sequence", "One extra row and the positions complete the sequence", [
        Para(book.say("CLS, short for classification, is one more learned row, put first: it "
                      "has no patch of its own and will gather the whole image. Every row then "
                      "gets its position row added, as words do.")),
        pictures.tensor_steps(
            book, [("patches.shape.rows", "TF", (Text("rows"),), None),
                   ("patches.shape.sequence", "TF", (Text("sequence"),), None)],
            [(Text("CLS, positions"),)],
            "The patches' rows; a CLS row goes first and a position row is added to every "
            "row", size="short", cell=12.0),
        Columns((
            (_cls_and_rows(book, names),),
            (book.matrix("patches.positions", ((Text("CLS"),), *names),
                         corner=book.say("+ position"), fragment=1),),
            (book.matrix("patches.sequence", ((Text("CLS"),), *names),
                         corner=book.say("= sequence"), fragment=2),),
        )),
        *((Para(book.say("Patches {a} and {b} have the same pixels, so the same row; only "
                         "their positions make them differ.", a=names[twins[0]][0],
                         b=names[twins[1]][0]), fragment=2, style="note"),) if same else ()),
    ], [
        book.say("Say what CLS is: short for classification, a learned row with no patch "
                 "behind it, placed first; training shapes it into a question about the "
                 "whole image."),
        book.say("Reveal the position rows, then their sum with the rows: the sequence, {s}. "
                 "Attention still receives a sequence of embedding rows.",
                 s=book.n("patches.shape.sequence")),
    ])
    section.add("cls", "One updated row can classify the whole image", [
        Bullets((
            Item(book.say("the CLS row goes first, position rows are added")),
            Item(book.say("an encoder updates every row: attention layers like ours, where "
                          "every row may read every other"), 1),
            Item(book.say("no causal mask: the whole image is there at once, and nothing is "
                          "predicted left to right, so no row has a future to hide"), 1),
            Item(book.say("the final CLS row feeds a classifier trained with the image "
                          "label"), 2),
        )),
        pictures.classify_from_cls(
            book, "The sequence of rows with the CLS row first; the encoder updates every row "
            "and keeps the shape; only the updated CLS row goes on to the classifier, which "
            "names one class for the whole image"),
        Para(book.say("Next in the series: from pixels to an image class."), fragment=3),
    ], [
        "Reveal the steps: the CLS row first; an encoder, which is attention layers whose "
        "rows all read one another; no causal mask, because the image is complete and "
        "nothing is generated in order; a classifier on the final CLS row. Ask the room "
        "why a sentence being written needs the mask and an image does not. Close by saying "
        "that the next part of the series goes from pixels to an image class.",
    ])
    return [section.stack()]


def _colour(book: Book, section: Section) -> None:
    """A colour patch's width and the sequence length of any image, every letter said."""
    section.add("rgb", "Colour patches and the sequence length", [
        asides.colour_patch(book),
        Formula(r"\text{values per patch} = P \cdot P \cdot C,\qquad "
                r"T = \frac{\text{image height}}{P}\cdot\frac{\text{image width}}{P}",
                fragment=1),
        Para(book.say("P: the patch side in pixels, {p}. C: the channels, {c} in colour "
                      "(red, green, blue), a single one in grey. Colour: {p} × {p} × {c} = {v} "
                      "values a patch, so the projection is {w}.", p=book.n("patches.size"),
                      c=book.n("patches.channels"), v=book.n("patches.values_per_patch_rgb"),
                      w=book.n("patches.shape.W_rgb")), fragment=1),
        Para(book.say("T: the number of patch rows. Our image: ({h}/{p}) · ({h}/{p}) = {n} · "
                      "{n} = {t} rows, in grey or in colour; next, one extra row joins them.",
                      h=book.n("patches.side"), p=book.n("patches.size"),
                      n=book.n("patches.per_side"), t=book.n("patches.count")), fragment=2),
    ], [
        book.say("Point at the grey patch: {p} by {p} pixels flatten to {v} values. Reveal "
                 "the colour patch: every pixel holds {c} values, red, green and blue, so the "
                 "row is {rgb} values wide and the shared projection becomes {w}.",
                 p=book.n("patches.size"), v=book.n("patches.values_per_patch"),
                 c=book.n("patches.channels"), rgb=book.n("patches.values_per_patch_rgb"),
                 w=book.n("patches.shape.W_rgb")),
        book.say("Then the length: an image cut into patches of side {p} gives its height "
                 "over {p} times its width over {p} rows; ours gives {t}. The channels change "
                 "the width of a row, never the number of rows.", p=Math("P"),
                 t=book.n("patches.count")),
    ])


def _projection_rows(book: Book, part: int, corner: Runs) -> Table:
    """Half of the patches' shared projection, its rows for the top (``part`` 0) or the
    bottom (1) half of a patch's pixels, in reading order."""
    rows = book.values.value("patches.W")
    half = len(rows) // 2
    chosen = range(half) if part == 0 else range(half, len(rows))
    return Table((), tuple(Row((), tuple(Cell((book.n(f"patches.W[{r}][{c}]"),))
                                        for c in range(len(rows[r])))) for r in chosen),
                 corner=corner, style="matrix")


def _cls_and_rows(book: Book, names: tuple[tuple[Text], ...]) -> Table:
    """The CLS row over the projected patch rows, each row named."""
    width = len(book.values.value("patches.cls"))
    cls = Row((Text("CLS"),), tuple(Cell((book.n(f"patches.cls[{c}]"),))
                                    for c in range(width)), style="focus")
    rows = tuple(Row(name, tuple(Cell((book.n(f"patches.rows[{p}][{c}]"),))
                                 for c in range(width)))
                 for p, name in enumerate(names))
    return Table((), (cls, *rows), corner=book.say("CLS and rows"), style="matrix")
