"""The executable lab: the worked numbers again, the batched model, training, PyTorch, what next."""

from __future__ import annotations

from slides.context import (
    Bullets,
    Cell,
    Code,
    Columns,
    Flow,
    FlowStep,
    Formula,
    Inline,
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
from slides.lesson.kit import Book, Section

__all__ = ["lab"]


def lab(book: Book) -> list[Stack]:
    """The lab's sections, each a stack."""
    return [_why(book), _numbers(book), _batch(book), _training(book), _library(book),
            _next(book)]


def _code(book: Book, *lines: str) -> Code:
    return Code(tuple(book.say(line) for line in lines))


def _why(book: Book) -> Stack:
    section = Section("lab-why", "lab", "Lab: the plan")
    section.add("characters", "Which earlier characters might help?", [
        Para(book.say("Part I predicted the next character of a name from the characters "
                      "before it. The question has not changed; the way the model reads its "
                      "context has.")),
        Para(book.say("This lab builds the attention layer in code, with a batch axis and a "
                      "head axis, and checks every result against the worksheet."),
             fragment=1),
    ], [
        "The lecture has shown the whole idea; the lab slows down the code. We create the "
        "examples, project the embeddings, expose the head axis, compute the messages and "
        "check the results.",
        "In the code, D is the model width called d_model in the lecture.",
    ])
    rows = tuple(Row((Word(name),), (
        *(Cell((Word(token),)) for token in book.ws.sentences[name]),
        *((Cell((book.vocab(f"{name}.target"),), style="result"),) if book.observed else ()),
    )) for name in book.sentences)
    section.add("examples", "The lab's examples", [
        Table((*((book.pos(j),) for j in range(book.length)),
               *((book.say("next"),) if book.observed else ())), rows,
              corner=book.say("sentence"), style="steps"),
        Para(book.say("The worksheet explains the arithmetic. Whether heads help is a "
                      "question for held-out results of trained models: keep the two "
                      "apart."), fragment=1),
    ], [
        "Each sentence ends at its receiver and has one observed next word, the target of "
        "the training loss.",
    ])
    section.add("rows", "From one weight row to several", [
        Bullets((
            Item(book.say("one head: one weight row, shared by every coordinate of its "
                          "value vectors")),
            Item(book.say("{h} heads: {h} weight rows, one per head, each with its own "
                          "{q}, {k}, {v} and softmax", h=book.n("dims.heads"),
                          q=Math("W_Q"), k=Math("W_K"), v=Math("W_V")), 1),
            Item(book.say("every head receives the full {e}", e=Math("E")), 2),
        )),
    ], [
        "What changes when the same input passes through several sets of projections: one "
        "message per head instead of one message in all.",
    ])
    section.add("split", "Project first, then split", [
        Columns(tuple(
            (book.matrix(f"params.h{h}.W_Q", book.feature_columns(),
                         corner=book.labelled("W_Q", h)),)
            for h in book.heads)),
        Para(book.say("Side by side these form one {d} × {j} matrix. We split the projected "
                      "coordinates into heads; no head gets only part of the raw embedding.",
                      d=book.n("dims.d_model"), j=book.n("dims.joined")), fragment=1),
    ], [
        "Every head can learn from every input coordinate. Splitting the raw embedding "
        "instead would hide features from heads.",
    ])
    return section.stack()


def _numbers(book: Book) -> Stack:
    s, last = book.sentence, book.last
    section = Section("lab-numbers", "lab", "Lab: the worked numbers")
    rows = tuple(Row((book.token(s, j),), (
        Cell((book.n(f"{s}.ids[{j}]"),), style="result"),
        *(Cell((book.n(f"{s}.E[{j}][{c}]"),)) for c in range(book.width)),
    )) for j in range(book.length))
    section.add("ids", "Token ids are not embeddings", [
        Table((book.say("id"), *book.feature_columns()), rows, corner=book.say("token")),
        Para(book.say("An id picks a row of the token table; {e} adds the position row. The "
                      "heads read the floating-point rows, never the ids.",
                      e=Math(r"E = \text{token row} + \text{position row}")), fragment=1),
    ], [
        "Ids are integers that index tables. The embedding rows are learned parameters, "
        "and both heads start from the same position-aware rows.",
    ])
    rows = tuple(Row((book.head(h),), (
        Cell(book.listing(f"{s}.h{h}.Q[{last}]")),
        Cell((book.token(s, book.top(s, h)),)),
        Cell(book.listing(f"{s}.h{h}.K[{book.top(s, h)}]")),
    ), fragment=h) for h in book.heads)
    section.add("queries", "Each head asks with its own query", [
        Table((book.say("query of “{r}”", r=book.receiver()), book.say("source"),
               book.say("its key")), rows, corner=book.say("head")),
        Para(book.say("The same input row gives a different query under a different "
                      "projection; the source keys differ too."),
             fragment=book.ws.n_heads + 1),
    ], [
        "The query changes because the projection matrix changes, not because the input "
        "did. The feature names exposed by each head belong to this designed worksheet.",
    ])
    columns = tuple((book.token(s, j),) for j in range(book.length))
    rows = tuple(Row((book.head(h),), (
        *(Cell((book.n(f"{s}.h{h}.weights[{j}]"),), fill=float(book.value(
            f"{s}.h{h}.weights[{j}]"))) for j in range(book.length)),
        Cell((book.n(f"{s}.h{h}.weights_sum"),), style="result"),
    ), fragment=h) for h in book.heads)
    section.add("softmax", "Each head has its own softmax", [
        Table((*columns, book.say("sum")), rows, corner=book.say("weights"), style="grid"),
        Para(book.say("Normalise over sources within a head. Never normalise across heads "
                      "or average their scores."), fragment=book.ws.n_heads + 1),
    ], [
        "Each weight is the exponential of its score divided by the sum of exponentials in "
        "the same head's row. All sources are allowed for the final query.",
    ])
    rows = tuple(Row((book.head(h),), (
        Cell((book.token(s, book.top(s, h)),)),
        Cell(book.listing(f"{s}.h{h}.contributions[{book.top(s, h)}]")),
        Cell(book.listing(f"{s}.h{h}.message"), style="result"),
    ), fragment=h) for h in book.heads)
    section.add("messages", "Each head sends its own kind of message", [
        Table((book.say("strongest source"), book.say("its contribution"),
               book.say("message")), rows, corner=book.say("head")),
        Para(book.say("Matching features choose where to read; values carry the "
                      "information."), fragment=book.ws.n_heads + 1),
    ], [
        "A contribution is a weight times its source's value row; the message adds the "
        "contributions of every source.",
    ])
    section.add("update", "Concatenate, project, add", [
        Para(book.say("Joined row: {j}", j=book.listing(f"{s}.joined[{last}]"))),
        Bullets(tuple(Item(_update_sum(book, c), 1) for c in range(book.width))),
        Para(book.say("Residual: {e}", e=book.listing(f"{s}.E_prime[{last}]")), fragment=2),
    ], [
        "Each update coordinate adds one term per joined coordinate: the joined value times "
        "its entry of W_O. Some terms bring one head's message into another head's "
        "feature.",
        "Concatenation keeps both feature groups; it does not average them. The residual "
        "then adds the update to the original row.",
    ])
    rows = tuple(Row((Word(name),), (
        Cell((book.vocab(f"{name}.prediction"),)),
        Cell((book.n(f"{name}.probs[{int(book.value(f'{name}.prediction'))}]"),)),
        *((Cell((book.vocab(f"{name}.target"),)),) if book.observed else ()),
    )) for name in book.sentences)
    headers = (book.say("predicted"), book.say("probability"),
               *((book.say("observed"),) if book.observed else ()))
    section.add("prediction", "The prediction MLP stays in place", [
        Table(headers, rows, corner=book.say("sentence")),
        Para(book.say("A token is chosen only after the vocabulary softmax."), fragment=1),
    ], [
        "Attention weights choose source positions; vocabulary probabilities choose "
        "possible next tokens. These are hand-chosen parameters, not trained results.",
    ])
    return section.stack()


def _update_sum(book: Book, c: int) -> Runs:
    """One update coordinate as the sum of its terms, every term bound to its key."""
    s, last = book.sentence, book.last
    joined = book.ws.n_heads * book.head_width
    terms: list[Inline] = [book.feature(c), Text(": ")]
    for i in range(joined):
        terms += [book.n(f"{s}.update_terms[{i}][{c}]"), Text(" + " if i < joined - 1 else "")]
    terms += [Text(" = "), book.n(f"{s}.delta[{last}][{c}]")]
    return tuple(terms)


def _batch(book: Book) -> Stack:
    section = Section("lab-batch", "lab", "Lab: the batched model")
    section.add("create", "Create the tables, projections and MLP", [
        Bullets((
            Item(book.say("vocabulary {v}, context {c}, width {d}, {h} heads, hidden size {n}",
                          v=book.n("dims.vocab"), c=book.n("dims.context"),
                          d=book.n("dims.d_model"), h=book.n("dims.heads"),
                          n=book.n("dims.hidden"))),
            Item(book.say("{p} parameters in all", p=book.n("lab.params")), 1),
            Item(book.say("the worksheet's weights are copied in so the outputs match the "
                          "printed numbers"), 2),
        )),
    ], [
        "Ordinary training starts from random parameters; loading the worksheet is only how "
        "we reproduce the figures, not a training algorithm.",
    ])
    section.add("implementation", "The whole implementation", [
        _code(book,
              "class ScratchMultiHead(nn.Module):",
              "    # W_Q, W_K, W_V, W_O: width × width, no bias",
              "    def split_heads(rows):  # [B, T, D] -> [B, heads, T, d_head]",
              "    def forward(E):         # project, split, score, mask,",
              "                            # softmax, mix, join, W_O",
              "",
              "class TinyMultiHeadLM(nn.Module):",
              "    # token and position tables, attention, hidden, readout",
              "    def forward(ids):       # E, E + ΔE, last row, MLP, logits"),
        Para(book.say("The next slides follow forward() one line at a time."), fragment=1),
    ], [
        "One file holds the layer and the small language model. The snippets that follow "
        "are its lines, with the shapes they produce for our batch.",
    ])
    rows = tuple(Row((Word(name),), tuple(
        Cell((book.n(f"lab.X[{i}][{j}]"),)) for j in range(book.length)
    )) for i, name in enumerate(book.sentences))
    targets = tuple(
        Item(book.say("{name}: {id} ({w})", name=Word(name), id=book.n(f"lab.y[{i}]"),
                      w=book.vocab(f"{name}.target")))
        for i, name in enumerate(book.sentences)) if book.observed else ()
    observed = (Para(book.say("Targets y {s}:", s=book.n("lab.shape.y")), fragment=1),
                Bullets(targets, fragment=1)) if book.observed else \
        (Para(book.say("This worksheet records no observed next words (lesson.targets), so "
                       "the batch has no targets y."), fragment=1),)
    section.add("batch", "The sentences form one batch", [
        Table(tuple((book.pos(j),) for j in range(book.length)), rows,
              corner=book.say("X {s}", s=book.n("lab.shape.X")), style="matrix"),
        *observed,
    ], [
        "These are integer ids, not embeddings. Each example has one observed target: the "
        "word that followed it.",
    ])
    weights_checked = Para(book.say("All {n} weights match the worksheet.",
                                    n=book.n("lab.A_weights")), fragment=2)
    delta_shape = Para(book.say("{d} is {s}.", d=Math(r"\Delta E"), s=book.n("lab.shape.delta")),
                       fragment=2)
    steps: tuple[tuple[str, str, tuple[str, ...], str, str, str, tuple[Para, ...]], ...] = (
        ("lookup", "Look up token rows and add position rows",
         ("E = token_embedding(X) + position_embedding(positions)",), "E", "lab.shape.E",
         "The tables are learned parameters; E holds floating-point rows, one per example "
         "and token.", ()),
        ("project", "Project the full input three times",
         ("Q, K, V = W_Q(E), W_K(E), W_V(E)",), "Q", "lab.shape.Q",
         "Three learned matrices give matching queries, matching keys and transmitted "
         "values, for every head at once.", ()),
        ("heads", "Make the head axis explicit",
         ("Q, K, V = split_heads(Q), split_heads(K), split_heads(V)",), "Q",
         "lab.shape.Q_heads",
         "Reshape groups each token's projected coordinates by head; a transpose then puts "
         "heads before tokens. The same operation applies to K and V.", ()),
        ("pairs", "Compute every query–key pair within each head",
         ("scores = Q @ K.mT / sqrt(d_head)",), "scores", "lab.shape.scores",
         "The example and head axes stay separate; the matrix product contracts only the "
         "matching-coordinate axis.", ()),
        ("mask", "Block future sources in every head",
         ("scores = scores.masked_fill(future, -inf)",), "scores", "lab.shape.scores",
         "True marks a blocked entry. One causal mask broadcasts over every example and "
         "every head.", ()),
        ("distribution", "Each row becomes a distribution over sources",
         ("A = softmax(scores)   # over the last axis: sources",), "A", "lab.shape.A",
         "Every allowed row sums to one and masked entries get weight zero. The lab checks "
         "all of these weights against the worksheet.", (weights_checked,)),
        ("mix", "Multiply the weights by the values",
         ("messages = A @ V",), "messages", "lab.shape.messages",
         "The source axis is summed out; each head keeps its own message per token.", ()),
        ("join", "Put each token's head messages side by side",
         ("joined = merge_heads(messages)   # transpose, then reshape",), "joined",
         "lab.shape.joined",
         "Transpose before reshaping: reshaping the head-first layout directly would mix "
         "token rows with head rows.", ()),
        ("final", "Project, add, and keep the final row",
         ("delta = W_O(joined)", "updated = E + delta",
          "logits = readout(relu(hidden(final row of updated)))"), "logits",
         "lab.shape.logits",
         "W_O combines the heads, the residual keeps E, and only the last updated row feeds "
         "this next-token loss.", (delta_shape,)),
    )
    tensors = _tensors(book)
    for id, title, lines, name, key, note, extra in steps:
        section.add(id, title, [
            _code(book, *lines),
            tensors[id],
            Para(book.say("{name} has shape {shape}", name=Math(_tex_name(name)),
                          shape=book.n(key)), fragment=1),
            *extra,
        ], [note])
    return section.stack()


def _tensors(book: Book) -> dict[str, pictures.Picture]:
    """The batch's tensors at each line of ``forward()``, drawn from their shapes: the
    batch as depth, each head's blocks in its colour, future scores grey."""
    def tensor(name: str) -> tuple[Text, ...]:
        return (Text(name),)

    def draw(steps: list[pictures.Step], operations: list[tuple[Text, ...] | None],
             what: str, masked: bool = False) -> pictures.Picture:
        return pictures.tensor_steps(book, steps, operations, what, size="strip",
                                     cell=14.0, masked=masked)

    embedded: pictures.Step = ("lab.shape.E", "BTF", tensor("E"), None)
    projected: pictures.Step = ("lab.shape.Q", "BTD", tensor("Q"), None)
    headed: pictures.Step = ("lab.shape.Q_heads", "BHTd", tensor("Q"), None)
    scores: pictures.Step = ("lab.shape.scores", "BHTS", tensor("scores"), None)
    weights: pictures.Step = ("lab.shape.A", "BHTS", tensor("A"), None)
    messages: pictures.Step = ("lab.shape.messages", "BHTd", tensor("messages"), None)
    joined: pictures.Step = ("lab.shape.joined", "BTD", tensor("joined"), None)
    return {
        "lookup": draw([("lab.shape.X", "BT", tensor("X"), None), embedded],
                       [tensor("look up")], "Token ids, then one embedding row per token"),
        "project": draw([embedded, projected], [tensor("project")],
                        "The embeddings projected: the new coordinates grouped by head, in "
                        "each head's colour"),
        "heads": draw([projected, ("lab.shape.Q_split", "BTHd", tensor("split"), None),
                       headed], [tensor("reshape"), tensor("transpose")],
                      "Reshape splits each row's coordinates by head; the transpose puts "
                      "the heads before the tokens"),
        "pairs": draw([headed, scores], [tensor("Q times K transposed")],
                      "One grid of scores per example and head"),
        "mask": draw([scores], [], "The scores with every future source blocked (grey)",
                     masked=True),
        "distribution": draw([weights], [], "One weight grid per example and head; blocked "
                             "cells get weight zero", masked=True),
        "mix": draw([weights, messages], [tensor("times V")],
                    "Weights times values: one message row per token and head"),
        "join": draw([messages, ("", "BTHd", tensor("transposed"), None), joined],
                     [tensor("transpose"), tensor("reshape")],
                     "Transpose the heads back behind the tokens, then reshape: the heads' "
                     "coordinates side by side"),
        "final": draw([joined, ("lab.shape.delta", "BTF", (Text("ΔE"),), None),
                       ("lab.shape.logits", "BV", tensor("logits"), None)],
                      [(Text("W"), pictures.Sub("O")), tensor("MLP, last row")],
                      "The joined rows mapped back to the model width, then the last row's "
                      "logits"),
    }


def _tex_name(name: str) -> str:
    return name if len(name) == 1 else rf"\mathrm{{{name}}}"


def _training(book: Book) -> Stack:
    section = Section("lab-training", "lab", "Lab: training and generation")
    if book.observed:
        section.add("loss", "Score the observed targets", [
            _code(book, "loss = cross_entropy(logits, y)"),
            Para(book.say("Loss on the batch: {l}", l=book.n("lab.loss")), fragment=1),
            Para(book.say("The targets are the observed ids; we never sample a generated token "
                          "to make a target."), fragment=2),
        ], [
            "More heads change the context update, not the definition of the next-token "
            "target.",
        ])
        section.add("step", "One loss trains all the projections", [
            _code(book, "optimizer = AdamW(model.parameters(), lr=learning_rate)",
                  "loss.backward()", "optimizer.step()"),
            Bullets((
                Item(book.say("learning rate {r}", r=book.n("lab.learning_rate"))),
                Item(book.say("{f} of {n} parameter tensors received finite gradients",
                              f=book.n("lab.finite_grads"), n=book.n("lab.param_tensors")), 1),
                Item(book.say("loss after one step: {l}", l=book.n("lab.loss_after")), 2),
            )),
        ], [
            "Heads are not assigned jobs or separate labels; they all receive gradients from "
            "the same prediction loss.",
            "A single step only demonstrates learning; it does not produce the trained models.",
        ])
    else:
        section.add("no-targets", "No observed targets, no loss", [
            Para(book.say("This worksheet records no observed next words, so there is no "
                          "cross-entropy to score and no training step to take.")),
            Para(book.say("Add lesson.targets, one word per sentence, to see the loss and "
                          "one AdamW step."), fragment=1),
        ], [
            "The target of the loss is always the observed next word, never a sampled one; "
            "without observed words the lab goes straight on to generation.",
        ])
    section.add("generate", "Generate one token, then repeat", [
        _code(book, "logits = model(history cropped to the context)",
              "next_id = logits.argmax()", "history = concat(history, next_id)"),
        Para(book.say("From the first sentence: next id {i} ({w}), probability {p}; the "
                      "history grows to {s}.", i=book.n("lab.next_id"), w=book.vocab(
                          "lab.next_id"), p=book.n("lab.next_prob"),
                      s=book.n("lab.shape.history")), fragment=1),
        Para(book.say("Keep at most the last {c} tokens: the context window.",
                      c=book.n("dims.context")), fragment=2),
    ], [
        "At inference the weights stay fixed and the prefix gets longer. A real application "
        "tokenizes a new prompt with the same vocabulary.",
    ])
    section.add("trace", "Trace one request through the full model", [
        Flow((
            FlowStep(book.say("ids"), (book.n("lab.shape.X"),)),
            FlowStep((Math("E"),), (book.n("lab.shape.E"),), 1),
            FlowStep(book.say("heads"), (book.n("lab.shape.Q_heads"),), 2),
            FlowStep((Math("A"),), (book.n("lab.shape.A"),), 3),
            FlowStep(book.say("messages"), (book.n("lab.shape.messages"),), 4),
            FlowStep(book.say("joined"), (book.n("lab.shape.joined"),), 5),
            FlowStep((Math(r"\Delta E"),), (book.n("lab.shape.delta"),), 6),
            FlowStep(book.say("logits"), (book.n("lab.shape.logits"),), 7),
        )),
        Para(book.say("Where does the observed target enter? Only at the loss."), fragment=8),
    ], [
        "Ask the room to name each shape before revealing it.",
    ])
    return section.stack()


def _library(book: Book) -> Stack:
    section = Section("lab-library", "lab", "Lab: PyTorch's layer")
    section.add("replace", "Replace the head calculation, not the whole model", [
        Code((
            (*book.say("mha = nn.MultiheadAttention(embed_dim="), book.n("dims.d_model"),
             *book.say(", num_heads="), book.n("dims.heads"), Text(",")),
            book.say("                            bias=False, batch_first=True)"),
        )),
        pictures.model_map(book, "heads"),
        Para(book.say("The layer replaces every head, their concatenation and {wo}. We still "
                      "add the residual and use our prediction MLP.", wo=Math("W_O")),
             fragment=1),
    ], [
        "batch_first=True means inputs shaped batch, tokens, width. bias=False and the "
        "default dropout of zero match our scratch implementation.",
    ])
    section.add("call", "Pass E as query, key and value input", [
        _code(book, "delta, A = mha(E, E, E, attn_mask=future,",
              "                average_attn_weights=False)",
              "updated = E + delta"),
        Para(book.say("{d} is {s}; {a} keeps the head axis: {w}.", d=Math(r"\mathrm{delta}"),
                      s=book.n("mha.delta"), a=Math("A"), w=book.n("mha.A")), fragment=1),
    ], [
        "PyTorch performs the learned projections internally. Without "
        "average_attn_weights=False it would return the heads' average grid.",
    ])
    section.add("compare", "Compare the same weights, not two random layers", [
        _code(book, "mha = copy_to_pytorch(model.attention)",
              "assert_close(delta_api, delta_scratch)", "assert_close(A_api, A_scratch)"),
        Para(book.say("Largest differences: {d} in the update, {a} in the weights.",
                      d=book.n("mha.max_diff_delta"), a=book.n("mha.max_diff_A")),
             fragment=1),
    ], [
        "The copy puts the scratch Q, K, V and W_O parameters into the library layer, so "
        "both implementations compute with identical numbers.",
    ])
    section.add("missing", "What the attention block does not include", [
        Bullets((
            Item(book.say("position embeddings"), 1),
            Item(book.say("the residual connection"), 2),
            Item(book.say("a vocabulary head"), 3),
            Item(book.say("a training loop"), 4),
        )),
    ], [
        "nn.MultiheadAttention is the attention block only; the rest of the model is still "
        "ours to write.",
    ])
    return section.stack()


def _next(book: Book) -> Stack:
    section = Section("lab-next", "lab", "Lab: the trained experiment and what comes next")
    rows = tuple(Row((book.n(f"trained.heads{heads}.heads"),), (
        Cell((book.n(f"trained.heads{heads}.W_Q"),)),
        Cell((book.n(f"trained.heads{heads}.Q"),)),
        Cell((book.n(f"trained.heads{heads}.W_O"),)),
        Cell((book.n(f"trained.heads{heads}.attention_params"),)),
    )) for heads in book.ws.lesson.trained.heads)
    section.add("parameters", "More heads need not mean more parameters", [
        Table(((Math("W_Q"),), book.say("each head's {q}", q=Math("Q")), (Math("W_O"),),
               book.say("attention parameters")), rows, corner=book.say("heads")),
        Para(book.say("The number of attention patterns grows while each pattern compares "
                      "fewer coordinates."), fragment=1),
    ], [
        "Move from the small worksheet to the real TinyStories checkpoints: the projection "
        "matrices keep their size whatever the head count.",
    ])
    section.add("results", "Score and cost on the trained models", [
        Bullets((
            Item(book.say("held-out perplexity, averaged over seeds: more heads did better "
                          "in this experiment"), 1),
            Item(book.say("same stories, tokenizer, context and update budget; "
                          "validation-selected checkpoints"), 2),
            Item(book.say("training time: the attention models cost about the same, more "
                          "heads slightly more"), 3),
        )),
        Formula(r"\text{perplexity} = \exp(\text{cross-entropy})", fragment=4),
    ], [
        "Lower perplexity is better. Better held-out prediction does not guarantee better "
        "text for every prompt. Try the same prompt with every model in the browser demo "
        "and compare continuations, vocabulary coverage and speed.",
    ])
    section.add("next", "Next: read a different sequence", [
        Para(book.say("So far {q}, {k} and {v} came from the same sequence. Cross-attention "
                      "takes queries from one sequence and keys and values from another.",
                      q=Math("Q"), k=Math("K"), v=Math("V"))),
        Para(book.say("Before that, the trained experiment's notebook inspects the "
                      "multi-head checkpoint, its per-head weights and all the results."),
             fragment=1),
    ], [
        "References: Attention Is All You Need for the formulas, the PyTorch documentation "
        "of MultiheadAttention for the API, Grant Sanderson's videos and Jay Alammar for the "
        "visual ideas. The diagrams and worked numbers are our own adaptation of Part II.",
    ])
    return section.stack()
