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
)
from slides.lesson import pictures
from slides.lesson.kit import Book, Section
from worksheet.results import model_name

__all__ = ["bias", "patches", "pytorch", "trained"]


def bias(book: Book) -> list[Stack]:
    """A learned offset on the projections, and what the bias flag adds."""
    s = book.sentence
    section = Section("bias", "bias", "The bias flag")
    section.add("offset", "A bias adds a learned offset", [
        Para(book.say("Offset {b} = {v}, added to every query row of the {name} head.",
                      b=Math("b_Q"), v=book.listing("bias.offset"), name=book.head(1))),
        *pictures.beside((
            book.matrix(f"{s}.h1.Q", book.token_rows(s), corner=(Math("Q"),),
                        focus=(book.last,)),
            book.matrix("bias.Q_offset", book.token_rows(s), corner=(Math("Q + b_Q"),),
                        focus=(book.last,), fragment=1),
        ), pictures.shift(book, s, f"{s}.h1.Q", "bias.Q_offset", "bias.offset",
                          pictures.head_tone(1), "Every query row before and after the "
                          "offset, one panel per coordinate: each arrow is the same shift",
                          fragment=1)),
    ], [
        book.say("Point at the offset {b}, {v}, and reveal the shifted queries: every query "
                 "row of the {name} head moves by the same arrow. Say that this offset is "
                 "illustrative; with biases on, training learns it. Unlike a position row, a "
                 "projection bias is the same for every position and every example.",
                 b=Math("b_Q"), v=book.listing("bias.offset"), name=book.head(1)),
    ])
    counts = ("bias.params_without", "bias.params_with")
    per_unit = pictures.BAR_LENGTH / max(float(book.value(key)) for key in counts)
    section.add("flag", "Which projections the bias flag touches", [
        pictures.weight_bars(book, (book.say("without biases"), book.say("with biases")),
                             counts, "neutral", "The layer's parameter count without and "
                             "with biases, as bars of proportional length",
                             size="short", fragments=(None, 1), per_unit=per_unit),
        Bullets((
            Item(book.say("without biases: {n} parameters", n=book.n("bias.params_without"))),
            Item(book.say("with biases: {n} parameters, {e} more", n=book.n("bias.params_with"),
                          e=book.n("bias.extra")), 1),
            Item(book.say("{w} offsets each for the query, key, value and output projections; "
                          "each head's slice is {d} wide", w=book.n("bias.offsets_per_projection"),
                          d=book.n("bias.head_slice")), 2),
            Item(book.say("stored as in_proj_bias {a} and out_proj.bias {b}",
                          a=book.n("bias.in_proj_bias"), b=book.n("bias.out_proj_bias")), 3),
        )),
        Para(book.say("The flag leaves the mask, the position embeddings and the prediction "
                      "layers alone."), fragment=4),
    ], [
        book.say("Point at the two bars and read the counts aloud: {a} parameters without "
                 "biases, {b} with them, {e} more. Reveal where they sit: {w} offsets for each "
                 "projection. The flag leaves the mask, the positions and the prediction "
                 "layers alone; PyTorch switches biases on by default.",
                 a=book.n("bias.params_without"), b=book.n("bias.params_with"),
                 e=book.n("bias.extra"), w=book.n("bias.offsets_per_projection")),
    ])
    return [section.stack()]


def pytorch(book: Book) -> list[Stack]:
    """nn.MultiheadAttention with the same weights, and the whole model again."""
    section = Section("pytorch", "pytorch", "PyTorch's layer")
    section.add("layer", "PyTorch packages the head calculation", [
        pictures.model_map(book, "heads"),
        Code((
            (*book.say("mha = nn.MultiheadAttention(embed_dim="), book.n("dims.d_model"),
             *book.say(", num_heads="), book.n("dims.heads"), *book.say(", bias=False)")),
            book.say("delta_E, A = mha(E, E, E, attn_mask=future,"),
            book.say("                 average_attn_weights=False)"),
            book.say("E_prime = E + delta_E"),
        )),
        Bullets((
            Item(book.say("in_proj_weight {a} stacks every head's query, key and value "
                          "projections; out_proj.weight {b} is {wo}", wo=Math("W_O"),
                          a=book.n("mha.in_proj_weight"), b=book.n("mha.out_proj_weight")), 1),
            Item(book.say("for our sentences, ΔE comes back as {d} and the weights as {w}: "
                          "one grid per sentence and head", d=book.n("mha.delta"),
                          w=book.n("mha.A")), 2),
        )),
    ], [
        book.say("Read the constructor aloud: embedding width {m}, {h} heads, no bias. Point "
                 "at in_proj_weight, {a}, which holds every head's projections, and at "
                 "out_proj.weight, {b}, which is {wo}. Say what the layer leaves to us: the "
                 "positions, the residual and the vocabulary classifier.",
                 m=book.n("dims.d_model"), h=book.n("dims.heads"),
                 a=book.n("mha.in_proj_weight"), b=book.n("mha.out_proj_weight"),
                 wo=Math("W_O")),
    ])
    section.add("same", "Same weights, same answers", [
        Para(book.say("Copy the scratch projections and {wo} into the library layer, then "
                      "compare.", wo=Math("W_O"))),
        Bullets((
            Item(book.say("largest difference in ΔE: {d}", d=book.n("mha.max_diff_delta")), 1),
            Item(book.say("largest difference in the attention weights: {d}",
                          d=book.n("mha.max_diff_A")), 2),
        )),
        Para(book.say("Differences at the level of float rounding: the two implementations "
                      "agree."), fragment=3),
    ], [
        book.say("Say why we copy the weights: comparing two randomly initialised layers "
                 "would prove nothing. Reveal the largest differences, {d} in the update and "
                 "{a} in the attention weights. The point: only float rounding separates the "
                 "scratch code from the library.", d=book.n("mha.max_diff_delta"),
                 a=book.n("mha.max_diff_A")),
    ])
    section.add("model", "Back to the complete multi-head model", [
        pictures.model_map(book, "prediction"),
        Flow((
            FlowStep(book.say("{e}", e=Math("E")), (book.n("shapes.E"),)),
            FlowStep(book.say("each head's {h}", h=Math("H")), (book.n("shapes.H"),), 1),
            FlowStep(book.say("joined"), (book.n("shapes.joined"),), 2),
            FlowStep(book.say("{d}", d=Math(r"\Delta E")), (book.n("shapes.delta"),), 3),
            FlowStep(book.say("{e}", e=Math("E'")), (book.n("shapes.E_prime"),), 4),
            FlowStep(book.say("last row"), (book.n("shapes.last_row"),), 5),
            FlowStep(book.say("vocabulary"), (book.n("dims.vocab"),), 6),
        )),
        Para(book.say("All heads computed, messages joined, {wo} applied, residual added; "
                      "the last row goes to the familiar prediction MLP.", wo=Math("W_O")),
             fragment=7),
    ], [
        book.say("Walk the flow once more and read the shapes aloud, from {e} to the "
                 "vocabulary of {v} words. Every arrow on this map has now been computed. Add "
                 "the caution: a teaching model with one attention update, not every part of "
                 "a deep production Transformer.", e=book.n("shapes.E"),
                 v=book.n("dims.vocab")),
    ])
    return [section.stack()]


def trained(book: Book) -> list[Stack]:
    """The genuinely trained comparison: sizes and shapes of its models."""
    section = Section("trained", "trained", "The trained comparison")
    section.add("mlp", "The live MLP reads a flattened window", [
        Flow((
            FlowStep(book.say("token rows"), (book.n("trained.mlp.rows"),)),
            FlowStep(book.say("flattened"), (book.n("trained.mlp.flat_width"),), 1),
            FlowStep(book.say("hidden, {w}", w=book.n("trained.mlp.W_hidden")),
                     (book.n("trained.hidden"),), 2),
            FlowStep(book.say("logits"), (book.n("trained.mlp.logits"),), 3),
        )),
        Para(book.say("{p} parameters, most of them in the first layer.",
                      p=book.n("trained.mlp.params")), fragment=4),
    ], [
        book.say("Now switch to the real browser models, not the worksheet. Walk the flow and "
                 "read the parameter count aloud: {p}, most of it in the first layer. The "
                 "baseline flattens the window in a fixed order, so every slot has weights "
                 "of its own and no position table is needed.",
                 p=book.n("trained.mlp.params")),
    ])
    for heads in book.ws.lesson.trained.heads:
        key = f"trained.heads{heads}"
        section.add(f"heads{heads}", book.say("Attention with {n} × {d}-wide heads",
                                               n=book.n(f"{key}.heads"),
                                               d=book.n(f"{key}.d_head")), [
            Flow((
                FlowStep(book.say("{e}", e=Math("E")), (book.n(f"{key}.E"),)),
                FlowStep(book.say("each head's {q}", q=Math("Q")), (book.n(f"{key}.Q"),), 1),
                FlowStep(book.say("each head's {a}", a=Math("A")), (book.n(f"{key}.A"),), 2),
                FlowStep(book.say("each head's {h}", h=Math("H")), (book.n(f"{key}.H"),), 3),
                FlowStep(book.say("joined"), (book.n(f"{key}.joined"),), 4),
                FlowStep(book.say("{wo}", wo=Math("W_O")), (book.n(f"{key}.W_O"),), 5),
                FlowStep(book.say("MLP in"), (book.n(f"{key}.W_hidden"),), 6),
            )),
            Para(book.say("{p} parameters in all, {a} of them in attention.",
                          p=book.n(f"{key}.params"), a=book.n(f"{key}.attention_params")),
                 fragment=7),
        ], [
            book.say("Walk the flow for {n} heads, each {d} wide, reading the shapes aloud. "
                     "Reveal the count: {p} parameters, {a} of them in attention. Each head "
                     "has its own softmax with future and padding masks, and the joined heads "
                     "go through {wo} before the residual.", n=book.n(f"{key}.heads"),
                     d=book.n(f"{key}.d_head"), p=book.n(f"{key}.params"),
                     a=book.n(f"{key}.attention_params"), wo=Math("W_O")),
        ])
    rows = tuple(Row((book.n(f"trained.heads{heads}.heads"),), (
        Cell((book.n(f"trained.heads{heads}.d_head"),)),
        Cell((book.n(f"trained.heads{heads}.attention_params"),)),
        Cell((book.n(f"trained.heads{heads}.params"),)),
    )) for heads in book.ws.lesson.trained.heads)
    section.add("width", "Keep the total width fixed", [
        Table((book.say("head width"), book.say("attention parameters"),
               book.say("all parameters")), rows, corner=book.say("heads")),
        Para(book.say("More heads split the same width {w}: more attention patterns, each "
                      "comparing fewer coordinates, for the same parameter count.",
                      w=book.n("trained.width")), fragment=1),
    ], [
        book.say("Point at the table: the attention parameter counts match across the head "
                 "counts. More heads split the same width {w} into more patterns, each "
                 "comparing fewer coordinates. Implementations keep one large {wq}, project "
                 "first and then reshape the result into heads.", w=book.n("trained.width"),
                 wq=Math("W_Q")),
    ])
    if RESULTS_KEY in book.values:
        _measured(book, section)
    else:
        _unmeasured(book, section)
    return [section.stack()]


RESULTS = "trained.results"
RESULTS_KEY = f"{RESULTS}.verdict"
"""Present only when the build has an experiment (``lecture build --experiment DIR``)."""
HOW_TO_MEASURE = ("lecture experiment --corpus stories.txt --out results",
                  "lecture build --experiment results")


def _models(book: Book) -> list[tuple[str, Runs]]:
    """``(model, its name)`` for the MLP and each attention model, in the lesson's order."""
    named: list[tuple[str, Runs]] = [("mlp", book.say("fixed-window MLP"))]
    named += [(f"heads{h}", book.say("{n} × {d}-wide heads", n=book.n(f"trained.heads{h}.heads"),
                                     d=book.n(f"trained.heads{h}.d_head")))
              for h in book.ws.lesson.trained.heads]
    return named


def _sizes(book: Book) -> Bullets:
    sizes = [Item(book.say("{n} × {d}-wide heads: {p} parameters",
                           n=book.n(f"trained.heads{heads}.heads"),
                           d=book.n(f"trained.heads{heads}.d_head"),
                           p=book.n(f"trained.heads{heads}.params")))
             for heads in book.ws.lesson.trained.heads]
    sizes.append(Item(book.say("flattened-window MLP: {p} parameters",
                               p=book.n("trained.mlp.params"))))
    return Bullets(tuple(sizes))


def _per_seed(book: Book, metric: str, fragment: int | None = None) -> Table:
    """Mean, lowest and highest over seeds, then each seed's figure, one row per model."""
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
    return Table(columns, tuple(rows), corner=book.say("model"), fragment=fragment)


def _measured(book: Book, section: Section) -> None:
    """The experiment's results: tables over seeds, dot charts, continuations, verdict."""
    models = _models(book)
    section.add("perplexity", "Compare held-out next-token prediction", [
        Formula(r"\text{perplexity} = \exp(\text{cross-entropy})"),
        _per_seed(book, "perplexity"),
        pictures.dot_chart(book, [name for _, name in models],
                           [f"{RESULTS}.{m}.perplexity" for m, _ in models],
                           "Test perplexity of each model, one dot per seed, the mean "
                           "marked by a tick; lower is better", size="short", fragment=1),
        Para(book.say("{v}. {s}.", v=book.n(RESULTS_KEY), s=book.n(f"{RESULTS}.spread")),
             fragment=2),
        Para(book.say("One experiment on one corpus, not a law: {n} seeds, {s} steps of {b} "
                      "windows of {c} tokens each.", n=book.n(f"{RESULTS}.seed_count"),
                      s=book.n(f"{RESULTS}.steps"), b=book.n(f"{RESULTS}.batch"),
                      c=book.n(f"{RESULTS}.context")), fragment=3),
    ], [
        book.say("Read the formula aloud: perplexity is the exponential of the cross-entropy, "
                 "so lower is better. Every model saw the same stories, tokenizer, context "
                 "and {s} updates; each seed is one dot. Reveal the chart, then the verdict: "
                 "{v}. {o}. Say that this is one experiment, not a law: other data, sizes or "
                 "budgets may order the models differently.", s=book.n(f"{RESULTS}.steps"),
                 v=book.n(RESULTS_KEY), o=book.n(f"{RESULTS}.spread")),
    ])
    section.add("cost", "Compare size and training time too", [
        _sizes(book),
        _per_seed(book, "seconds", fragment=1),
        pictures.dot_chart(book, [name for _, name in models],
                           [f"{RESULTS}.{m}.seconds" for m, _ in models],
                           "Seconds spent in training steps by each model, one dot per "
                           "seed, the mean marked by a tick", size="short", fragment=2),
    ], [
        book.say("Read the sizes aloud; the flattened-window MLP has {p} parameters. Reveal "
                 "the training times, in seconds of training steps on the same machine, one "
                 "dot per seed: the cost of each model in this run.",
                 p=book.n("trained.mlp.params")),
    ])
    rows = tuple(Row(name, (Cell((book.n(f"{RESULTS}.{model}.continuations[0]"),)),))
                 for model, name in models)
    section.add("continuations", "The same sentence, continued by each model", [
        Para(book.say("“{p} …”", p=book.n(f"{RESULTS}.prompt"))),
        Table((book.say("continuation, first seed ({s})", s=book.n(f"{RESULTS}.seeds[0]")),),
              rows, corner=book.say("model"), style="words", fragment=1),
    ], [
        "Read the lesson's sentence, then each model's continuation: sampled from the first "
        "seed's checkpoint with the same generator for every model. Ask the room which reads "
        "most like a story, and whether that agrees with the perplexities.",
    ])


def _unmeasured(book: Book, section: Section) -> None:
    """No experiment in this build: the conditions of a fair comparison and how to run
    one; no claim about which model does better."""
    section.add("perplexity", "Compare held-out next-token prediction", [
        Formula(r"\text{perplexity} = \exp(\text{cross-entropy})"),
        Bullets((
            Item(book.say("same stories, tokenizer, context of {c} tokens and update budget "
                          "for every model", c=book.n("trained.context")), 1),
            Item(book.say("checkpoints chosen on validation data; several seeds per model"), 2),
            Item(book.say("lower perplexity means more probability on the observed tokens"), 3),
        )),
        Para(book.say("Not measured in this build: train the models, then build with the "
                      "results."), fragment=4),
        Code(tuple((Text(line),) for line in HOW_TO_MEASURE), fragment=4),
    ], [
        book.say("Read the formula aloud: perplexity is the exponential of the cross-entropy, "
                 "so lower is better. Reveal the conditions: the same stories, tokenizer, "
                 "context of {c} tokens and budget. This build has no experiment, so make no "
                 "claim about which model does better; the commands shown produce one.",
                 c=book.n("trained.context")),
    ])
    section.add("cost", "Compare size and training time too", [
        _sizes(book),
        Para(book.say("Training time is measured by the same experiment, on the same machine "
                      "for every model."), fragment=1),
    ], [
        book.say("Read the sizes aloud; the attention models' counts follow from the shared "
                 "width, the flattened-window MLP has {p}. How long each trains is measured "
                 "by the experiment, not part of this worksheet.",
                 p=book.n("trained.mlp.params")),
    ])


def patches(book: Book) -> list[Stack]:
    """Image patches as embedding rows, and a CLS row for classification."""
    section = Section("patches", "patches", "Image patches")
    count = int(book.value("patches.count"))
    section.add("cut", "Image patches can supply the embedding rows", [
        Para(book.say("A {a}×{a} image cut into {n} patches of {p}×{p} pixels; each patch "
                      "flattens to {v} values.", a=book.n("patches.side"),
                      n=book.n("patches.count"), p=book.n("patches.size"),
                      v=book.n("patches.values_per_patch"))),
        pictures.patches(book, "The image's pixels (darker is larger) with its patches "
                         "outlined, and each patch flattened into one row of pixel values",
                         size="strip"),
        book.matrix("patches.flat", tuple(() for _ in range(count)), fragment=1),
    ], [
        book.say("Point at the image: {a} by {a} pixels, cut into {n} patches of {s} by {s}. "
                 "Reveal the flattened rows: each patch gives {v} values. The point: the "
                 "sequence length is now the number of patches; this is a shape "
                 "illustration, not a trained vision model.", a=book.n("patches.side"),
                 n=book.n("patches.count"), s=book.n("patches.size"),
                 v=book.n("patches.values_per_patch")),
    ])
    rows = int(book.value("patches.total_rows"))
    section.add("rows", "One shared projection makes the rows", [
        pictures.tensor_steps(
            book, [("patches.shape.flat", "TF", (Text("patches"),), None),
                   ("patches.shape.rows", "TF", (Text("rows"),), None),
                   ("patches.shape.sequence", "TF", (Text("sequence"),), None)],
            [(Text("times W"),), (Text("CLS, positions"),)],
            "The flattened patches times one shared matrix give one row per patch; a CLS "
            "row goes first", size="short", cell=12.0),
        Columns((
            (book.matrix("patches.rows", tuple(() for _ in range(count)),
                         caption=book.say("flattened patches × {w} {s}", w=Math("W"),
                                          s=book.n("patches.shape.W"))),),
            (book.matrix("patches.sequence",
                         (book.say("CLS"), *(() for _ in range(rows - 1))),
                         caption=book.say("CLS row first, plus position rows: {s}",
                                          s=book.n("patches.shape.sequence")),
                         fragment=1),),
        )),
    ], [
        book.say("Point at the shared projection: every flattened patch goes through the same "
                 "matrix, as every token goes through the same lookup. Reveal the CLS row "
                 "placed first, then the position rows, giving {s}. Attention still receives "
                 "a sequence of embedding rows.", s=book.n("patches.shape.sequence")),
    ])
    section.add("cls", "One updated row can classify the whole image", [
        Bullets((
            Item(book.say("prepend a learned CLS row, add position rows")),
            Item(book.say("an encoder updates every row; no causal mask is needed"), 1),
            Item(book.say("the final CLS row feeds a classifier trained with the image "
                          "label"), 2),
        )),
        pictures.tensor_steps(
            book, [("patches.shape.sequence", "TF", (Text("sequence"),), None),
                   ("patches.shape.sequence", "TF", (Text("updated"),), None),
                   ("", "F", (Text("CLS row"),), None)],
            [(Text("encoder"),), (Text("first row"),), (Text("classifier"),)],
            "The sequence of rows, CLS first, keeps its shape through the encoder; only the "
            "updated CLS row goes on to the classifier", size="strip", cell=26.0),
        Para(book.say("Next in the series: from pixels to an image class."), fragment=3),
    ], [
        "Reveal the three steps: prepend a CLS row, let an encoder update every row without a "
        "causal mask, classify from the final CLS row. Ask the room why an image needs no "
        "causal mask. Close by saying that the next part of the series goes from pixels to an "
        "image class.",
    ])
    return [section.stack()]
