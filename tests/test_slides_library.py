"""The slides beyond the worked example read like the lesson: the bias slide says the
example had none and why a model may want one; PyTorch's layer shows the shapes a real
torch run gives; the trained comparison names its own run and defines its words; the
patch slides define every letter they use and name their patches in order; the lab's
listing is torch that runs, its letters defined, its pictures masking only after the mask.

Expected shapes come from torch itself, run here on the sizes the slides state, never from
the program's own output.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
import torch

from slides.context import (
    Code,
    Deck,
    Formula,
    Item,
    Label,
    Math,
    Num,
    Para,
    Rect,
    Slide,
    Table,
)
from slides.deck import deck_context
from tests import reference
from tests.test_slides_pictures import WORKSHEETS, pictures_in, slide
from tests.test_slides_structure import walk
from worksheet import Values, Worksheet, compute_values, load_worksheet


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    values = compute_values(ws)
    return {"ws": ws, "values": values, "deck": deck_context(ws, values)}


@pytest.fixture(scope="module")
def measured(default_ws: Worksheet) -> Deck:
    """The default lecture with the bundled experiment's results."""
    from worksheet.results import BUNDLED, load_experiment

    return deck_context(default_ws, compute_values(default_ws,
                                                   load_experiment(BUNDLED, default_ws)))


def text(node: Any) -> str:
    """Everything a viewer reads in ``node``: prose, numbers and words, in order."""
    return "".join(getattr(item, "text", "") for item, _ in walk(node)
                   if not isinstance(item, (Math, Formula)))


def shape(runs: str) -> list[int]:
    """The first ``[a, b, …]`` written in ``runs``."""
    found = re.search(r"\[(\d+(?:, \d+)*)\]", runs)
    assert found, runs
    return [int(n) for n in found[1].split(", ")]


def listing(s: Slide) -> list[tuple[str, str]]:
    """Each line of a slide's code as (code, comment)."""
    lines = []
    for block, _ in walk(s.blocks):
        if isinstance(block, Code):
            for line in block.lines:
                said = "".join(getattr(run, "text", "") for run in line)
                code, _, note = said.partition("#")
                lines.append((code.strip(), note.strip()))
    return lines


# ------------------------------------------------------------------ the bias


def test_the_bias_slide_says_the_example_had_none_and_why_one_is_wanted(case) -> None:
    offset = text(slide(case["deck"], "bias-offset").blocks)
    assert "no bias" in offset
    assert "does not depend on the input" in offset
    assert "Made up" in offset  # the offset shown is an illustration
    flag = slide(case["deck"], "bias-flag")
    (named,) = [item for item, _ in walk(flag.blocks)
                if isinstance(item, Item) and "in_proj_bias" in text(item)]
    said = text(named)
    assert "PyTorch" in said and "out_proj.bias" in said  # the library's names, as its own
    assert said.index("PyTorch") < said.index("in_proj_bias")
    assert "bias flag" not in text(flag.title)


# ------------------------------------------------------------------ PyTorch's layer


def test_the_pytorch_slide_shows_the_shapes_a_torch_run_gives(case) -> None:
    s = slide(case["deck"], "pytorch-layer")
    code = " ".join(c for c, _ in listing(s))
    assert "batch_first=True" in code
    numbers = {item.key: item.text for item, _ in walk(s.blocks) if isinstance(item, Num)}
    width, heads = int(numbers["dims.d_model"]), int(numbers["dims.heads"])
    said = text(tuple(b for b in s.blocks if isinstance(b, Para)))
    assert "as a batch" in said and "batch_first=True" in said  # the batch, introduced
    E = torch.zeros(shape(numbers["lab.shape.E"]), dtype=torch.float64)
    mha = torch.nn.MultiheadAttention(width, heads, bias=False, batch_first=True,
                                      dtype=torch.float64)
    future = torch.ones(E.shape[1], E.shape[1], dtype=torch.bool).triu(1)
    delta, A = mha(E, E, E, attn_mask=future, average_attn_weights=False)
    assert shape(numbers["mha.delta"]) == list(delta.shape)
    assert shape(numbers["mha.A"]) == list(A.shape)
    (picture,) = pictures_in(s.blocks)
    drawn = {label.key: label.glyphs[0].text for label in picture.shapes
             if isinstance(label, Label) and label.key}
    assert shape(drawn["mha.delta"]) == list(delta.shape)
    assert shape(drawn["mha.A"]) == list(A.shape)
    assert shape(drawn["lab.shape.E"]) == list(E.shape)


def test_the_comparison_says_its_precision_and_the_model_map_calls_no_head_a_layer(
        case) -> None:
    said = text(slide(case["deck"], "pytorch-same").blocks)
    assert "double precision" in said
    for id in ("pytorch-layer", "pytorch-same", "pytorch-model"):
        s = slide(case["deck"], id)
        assert "vocabulary head" not in text(s.blocks) + " ".join(text(n) for n in s.notes)


# ------------------------------------------------------------------ the trained models


def test_the_trained_stack_names_its_own_run_and_defines_its_words(measured: Deck) -> None:
    corpus = slide(measured, "trained-corpus")
    keys = {item.key for item, _ in walk(corpus.blocks) if isinstance(item, Num)}
    assert {"trained.results.corpus", "trained.results.documents.all",
            "trained.results.steps"} <= keys
    said = text(corpus.blocks)
    assert "ourselves" in said and "TinyStories" in said  # ours, not the original run
    assert "no model saw" in said  # held out, defined
    assert "a seed fixes" in said  # seed, defined
    perplexity = text(slide(measured, "trained-perplexity").blocks)
    assert "Lower is better" in perplexity
    assert "cross-entropy averages −log p" in perplexity
    # the original lesson's corpus is named, and no uncited claim of others' results is made
    assert "we did not repeat that" in said
    cost = text(slide(measured, "trained-cost").blocks)
    assert "Others" not in perplexity and "Others" not in cost
    assert "model, seconds" in cost and "(CPU)" in cost  # the unit and the hardware


# ------------------------------------------------------------------ image patches


def test_the_patch_slides_define_every_letter_they_use(case) -> None:
    stack = next(st for st in case["deck"].stacks if st.id == "patches")
    for s in stack.slides:
        tex = " ".join(item.tex for item, _ in walk(s.blocks)
                       if isinstance(item, (Math, Formula)))
        letters = set(re.findall(r"(?<![\\A-Za-z])([A-Z])(?![A-Za-z])",
                                 re.sub(r"\\text\{[^}]*\}", "", tex)))
        said = text(tuple(b for b in s.blocks if isinstance(b, Para)))
        for letter in letters:
            assert f"{letter}: " in said, (s.id, letter)
        # the image's height and width are words: H and W already name messages and
        # projections in this lecture (W may name the patches' shared projection, defined)
        assert "H" not in letters, s.id


def test_the_patches_are_named_in_reading_order_on_every_slide(case) -> None:
    values: Values = case["values"]
    count = values.value("patches.count")
    cut = slide(case["deck"], "patches-cut")
    (picture,) = pictures_in(cut.blocks)
    names = [label.glyphs[0].text for label in picture.shapes if isinstance(label, Label)
             and len(label.glyphs) == 1 and re.fullmatch(r"[a-z]+", label.glyphs[0].text)
             and label.glyphs[0].text != "flatten"]
    badges = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "patch-name"]
    assert len(badges) == count
    # reading order: the badges go left to right within a row of patches, rows top down
    assert [(r.y, r.x) for r in badges] == sorted((r.y, r.x) for r in badges)
    image, strip = names[:count], names[count:]
    assert image == strip and len(set(image)) == count
    (flat,) = [b for b in cut.blocks if isinstance(b, Table)]
    assert [text(row.label) for row in flat.rows] == image
    # the shared projection, one row per pixel value, then the patches' rows under W
    rows = slide(case["deck"], "patches-rows")
    *projection, projected = [b for b, _ in walk(rows.blocks) if isinstance(b, Table)]
    # W's rows in order, split in halves, bound to its entries; then the patches' rows
    keys = [n.key for t in projection for row in t.rows for c in row.cells for n in c.runs]
    assert keys == [f"patches.W[{r}][{c}]" for r, row in enumerate(values.value("patches.W"))
                    for c in range(len(row))]
    assert sum(len(t.rows) for t in projection) == values.value("patches.values_per_patch")
    assert [text(row.label) for row in projected.rows] == image
    sequence = slide(case["deck"], "patches-sequence")
    tables = [b for b, _ in walk(sequence.blocks) if isinstance(b, Table)]
    assert tables and all([text(row.label) for row in t.rows] == ["CLS", *image]
                          for t in tables)
    said = text(tuple(b for b in sequence.blocks if isinstance(b, Para)))
    # defined on the first slide that shows it, the stack's title included
    assert said.startswith("CLS, short for classification")
    stack = next(st for st in case["deck"].stacks if st.id == "patches")
    earlier = [s for s in stack.slides[:[s.id for s in stack.slides].index(sequence.id)]]
    assert not any("CLS" in text(b) for s in earlier for b, _ in walk(s.blocks)
                   if isinstance(b, (Para, Table)))
    for t in (*projection, projected, *tables):
        assert t.corner and not t.caption  # a heading over the table, no caption to break


# ------------------------------------------------------------------ the lab


def _einsum_shape(code: str, before: list[int]) -> list[int]:
    """The shape torch's einsum gives for the listing's own subscripts."""
    subscripts = re.search(r'einsum\("([^"]+)"', code)[1]
    return list(torch.einsum(subscripts, torch.zeros(before)).shape)


def test_the_lab_listing_runs_as_torch_with_its_letters_defined(case) -> None:
    values: Values = case["values"]
    sizes = {"B": values.value("dims.sentences"), "T": values.value("dims.tokens"),
             "D": values.value("dims.d_model"), "heads": values.value("dims.heads"),
             "d_head": values.value("dims.d_head")}
    heads = slide(case["deck"], "lab-batch-heads")
    defined = text(tuple(b for b in heads.blocks if isinstance(b, Para)))
    for letter in ("B: ", "T: ", "D: ", "d_head being"):
        assert letter in defined
    lines = listing(heads) + listing(slide(case["deck"], "lab-batch-join"))
    assert not any(re.search(r"transpose\((tokens|heads)", code) for code, _ in lines)
    shapes: list[list[int]] = []
    for code, note in lines:
        reshaped = re.search(r"reshape\(([^)]*)\)", code)
        if reshaped:
            expected = [int(sizes[name.strip()]) for name in reshaped[1].split(",")]
            assert shape(note) == expected, code
        if "einsum" in code:
            source = "Q" if "Q)" in code else "messages"
            before = shapes[-1] if source == "Q" else values.value("lab.shape.messages")
            assert _einsum_shape(code, before) == shape(note), code
        if re.search(r"\[\d", note):
            shapes.append(shape(note))
    assert any("einsum" in code for code, _ in listing(heads))


def test_the_scores_are_drawn_before_the_mask_and_the_weights_after(case) -> None:
    values: Values = case["values"]
    (picture,) = pictures_in(slide(case["deck"], "lab-batch-attend").blocks)
    cells = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "block"]
    batch, heads, length, _ = values.value("lab.shape.scores")
    grid = batch * heads * length * length
    scores, weights = cells[:grid], cells[grid:2 * grid]
    assert not any(c.fill == "masked" for c in scores)
    # the later sentence stands behind the first: drawn first, all of it masked, so no
    # lone cell of its diagonal shows at the corners; the front sentence's future masked
    behind, front = weights[:grid - grid // batch], weights[grid - grid // batch:]
    assert all(c.fill == "masked" for c in behind)
    index = np.arange(len(front))
    row, column = index // length % length, index % length
    assert [c.fill == "masked" for c in front] == list(column > row)


def test_the_join_shows_what_a_reshape_without_the_swap_puts_in_a_row(case) -> None:
    """The join's picture: the first sentence's joined rows made with the swap (every piece
    of row r from token r, head k + 1 in piece k) and without it (the head-first messages
    read in memory order: piece k of row r is flat entry r·H + k of the (head, token)
    grid), each piece in its head's colour and labelled with its token, recomputed here."""
    values: Values = case["values"]
    _, heads, length, _ = (int(v) for v in values.value("lab.shape.messages"))
    (picture,) = pictures_in(slide(case["deck"], "lab-batch-join").blocks)
    pieces = [x for x in picture.shapes if isinstance(x, Rect) and x.role == "piece"]
    tokens = {x.key: int(x.glyphs[0].text) for x in picture.shapes
              if isinstance(x, Label) and x.key and x.key.startswith("lab.mix.")}
    expected = []
    for kind in ("right", "wrong"):
        for r in range(length):
            for k in range(heads):
                flat = r * heads + k
                head, token = ((k + 1, r + 1) if kind == "right"
                               else (flat // length + 1, flat % length + 1))
                assert tokens[f"lab.mix.{kind}_token[{r}][{k}]"] == token, (kind, r, k)
                expected.append(f"head-{head}")
    assert [x.fill for x in pieces] == expected
    assert any(x.stroke == "ink" for x in pieces[len(pieces) // 2:])  # a mixed row, marked
    said = text(slide(case["deck"], "lab-batch-join").blocks)
    assert "Swap the axes before the reshape" in said  # the pitfall, stated


# ------------------------------------------------------------------ the trained charts


@pytest.mark.parametrize("metric, field, unit", [
    ("perplexity", "test_perplexity", "perplexity"), ("seconds", "train_seconds", "seconds")])
def test_each_dot_chart_has_an_axis_with_round_ticks_and_its_unit(
        measured: Deck, metric: str, field: str, unit: str) -> None:
    """Under the rings an axis from zero with a tick at each round number up to the
    largest run (recomputed from the experiment's JSON), each tick labelled with its value
    and placed on the rings' own scale, and the unit written under the axis."""
    import json

    from slides.context import Line
    from slides.context import Path as Ring
    from worksheet.results import BUNDLED

    document = json.loads((BUNDLED / "experiment.json").read_text(encoding="utf-8"))
    seeds = document["training"]["seeds"]
    runs = {(run["model"], run["seed"]): run[field] for run in document["runs"]}
    measures = list(runs.values())
    expected = reference.round_ticks(max(measures))
    s = slide(measured, "trained-perplexity" if metric == "perplexity" else "trained-cost")
    (chart,) = [p for p in pictures_in(s.blocks)
                if any(getattr(x, "role", "") == "dot" for x in p.shapes)]
    ticks = [x for x in chart.shapes if isinstance(x, Line) and x.role == "tick"]
    labels = [x for x in chart.shapes if isinstance(x, Label) and x.key
              and x.key.startswith(f"trained.results.ticks.{metric}[")]
    assert [float(x.glyphs[0].text.replace(",", "")) for x in labels] == expected
    assert [round(t.x1, 1) for t in ticks] == [round(x.x, 1) for x in labels]
    rings = [x for x in chart.shapes if isinstance(x, Ring) and x.role == "dot"]
    assert rings and all(not r.filled for r in rings)  # open, so close seeds stay apart
    (start,) = {x.x1 for x in chart.shapes if isinstance(x, Line) and x.role == "axis"}
    assert ticks[0].x1 == pytest.approx(start, abs=0.01)  # zero where the axis starts
    def run(key: str) -> float:
        model, index = re.fullmatch(r"trained\.results\.(\w+)\.\w+\[(\d+)\]", key).groups()
        return runs[(model, seeds[int(index)])]

    far = max(rings, key=lambda r: run(r.draws))
    centre = float(far.d.split()[1]) + float(far.d.split()[4])
    scale = (centre - start) / run(far.draws)
    for tick, value in zip(ticks, expected, strict=True):
        assert tick.x1 == pytest.approx(start + scale * value, abs=0.05)
    said = " ".join(g.text for x in chart.shapes if isinstance(x, Label) and not x.key
                    for g in x.glyphs)
    assert unit in said


def test_the_padding_mask_has_a_slide_of_its_own(measured: Deck) -> None:
    """The parameter slides speak of parameters; the padding mask is explained on its own
    slide, whose grid blocks the future above the diagonal and, with the mask, the pads'
    columns for every real receiver."""
    from slides.lesson.pictures import PADS

    ids = [s.id for s in measured.slides if s.part == "trained"]
    assert "trained-padding" in ids
    for id in ids:
        if id.startswith("trained-heads"):
            assert "pad" not in text(slide(measured, id).blocks), id
    s = slide(measured, "trained-padding")
    assert "padding mask" in text(s.blocks) and "causal mask" in text(s.blocks)
    (picture,) = pictures_in(s.blocks)
    cells = [r for r in picture.shapes if isinstance(r, Rect)
             and r.role in ("future", "pad", "unused", "reads")]
    size = int(len(cells) ** 0.5)
    assert size * size == len(cells) and size > PADS
    left, top = min(r.x for r in cells), min(r.y for r in cells)
    width = cells[0].w
    for r in cells:
        row, column = round((r.y - top) / width), round((r.x - left) / width)
        kind = "future" if column > row else "pad" if column < PADS <= row else \
            "unused" if row < PADS else "reads"
        assert r.role == kind, (row, column)
    padded = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "padded"]
    assert len(padded) == (size - PADS) * PADS and {r.fragment for r in padded} == {1}


# ------------------------------------------------------------------ the lab's training


def test_the_training_step_defines_its_names_and_lights_every_learned_box(case) -> None:
    """X, y and logits are said in words on the slide that uses them; the map lights every
    box that holds parameters (the embeddings, every head, W_O, the MLP, the output layer)
    and neither the join nor the residual, which hold none."""
    ws: Worksheet = case["ws"]
    if not ws.lesson.targets:
        pytest.skip("no observed next words, no loss")
    step = slide(case["deck"], "lab-training-step")
    said = text(tuple(b for b in step.blocks if isinstance(b, Para)))
    for name in ("X: ", "y: ", "logits: "):
        assert name in said, name
    code = " ".join(c for c, _ in listing(step))
    assert "model(X)" in code and "cross_entropy(logits, y)" in code
    (picture,) = pictures_in(step.blocks)
    lit = [x for x in picture.shapes if getattr(x, "role", "") == "lit"]
    assert len(lit) == 4 + ws.n_heads  # embeddings, W_O, MLP, the next word and each head
    names = {"".join(g.text for g in x.glyphs) for x in picture.shapes
             if isinstance(x, Label) and x.bold}
    assert "concat" not in names and "+ residual" not in names


def test_generation_reloads_crops_repeats_and_spells_out_its_word(case) -> None:
    """The slide says why the worksheet's weights come back, loops, crops the history to
    the context window, and writes the sentence's end with the new word; the picture is a
    row of the history's words, the new one last and outlined, a bracket over the last
    context-many tokens."""
    ws: Worksheet = case["ws"]
    values: Values = case["values"]
    s = slide(case["deck"], "lab-training-generate")
    said = text(tuple(b for b in s.blocks if isinstance(b, Para)))
    assert "reload" in said and "history: " in said
    code = " ".join(c for c, _ in listing(s))
    assert "for " in code and "history[:, -context:]" in code
    # one id per sentence, kept as a column, appended along the tokens
    assert "argmax(dim=last, keepdim=True)" in code and "dim=last)" in code
    assert "last: the final axis" in said
    first = ws.sentences[next(iter(ws.sentences))]
    word = ws.vocab[int(values.value("lab.next_id"))]
    assert f"… {first[-2]} {first[-1]} {word}" in said
    (picture,) = pictures_in(s.blocks)
    chips = [r for r in picture.shapes if isinstance(r, Rect)
             and r.role in ("token", "cropped", "added")]
    assert len({r.y for r in chips}) == 1  # one row
    assert [r.role for r in chips][-1] == "added" and len(chips) == len(first) + 1
    words = [x.glyphs[0].text for x in picture.shapes if isinstance(x, Label)
             and x.size > 20 and len(x.glyphs) == 1]
    assert words == [*first, word]
    context = int(values.value("dims.context"))
    cropped = [r for r in chips if r.role == "cropped"]
    assert len(cropped) == max(0, len(chips) - context)


def _library_model(ws: Worksheet, X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The worksheet's model run here with PyTorch's own layer as its attention, written
    from the worksheet's arrays: ``(logits, probabilities)`` after each sentence's last
    token."""
    def t(array: Any) -> torch.Tensor:
        return torch.tensor(np.asarray(array), dtype=torch.float64)

    mha = torch.nn.MultiheadAttention(ws.d_model, ws.n_heads, bias=False, batch_first=True,
                                      dtype=torch.float64)
    packed = {kind: torch.cat([t(getattr(head, kind)) for head in ws.heads], dim=1)
              for kind in ("Q", "K", "V")}
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([packed[k].T for k in ("Q", "K", "V")]))
        mha.out_proj.weight.copy_(t(ws.W_O).T)
        E = t(ws.tok_emb)[X] + t(ws.pos_emb)[: X.shape[1]]
        future = torch.ones(X.shape[1], X.shape[1], dtype=torch.bool).triu(1)
        delta, _ = mha(E, E, E, attn_mask=future)
        last = (E + delta)[:, -1]
        logits = torch.relu(last @ t(ws.W_hidden) + t(ws.b_hidden)) @ t(ws.W_vocab) \
            + t(ws.b_vocab)
    return logits, logits.softmax(dim=-1)


def test_the_library_swap_wraps_our_layer_and_shows_the_whole_model_with_it(case) -> None:
    """The wrapper gives PyTorch's layer our layer's call (E in; the query, key and value
    all E, with the causal mask), says why, and owns the layer it builds from ours, our
    weights copied in, as a submodule; one listing only. The picture is the whole model
    with its attention box (and only it) marked as PyTorch's layer, and each sentence's
    likeliest next word and its probability from both models, recomputed here with torch."""
    ws: Worksheet = case["ws"]
    s = slide(case["deck"], "lab-library-swap")
    assert len([b for b, _ in walk(s.blocks) if isinstance(b, Code)]) == 1
    lines = listing(s)
    code = " ".join(c for c, _ in lines)
    assert "class PyTorchAttention(nn.Module):" in code and "def forward(self, E):" in code
    assert "def __init__(self, ours):" in code and "super().__init__()" in code
    (copied,) = [n for c, n in lines if c == "self.mha = to_pytorch(ours)"]
    assert "our weights" in copied  # whose weights the library layer holds
    assert "return self.mha(E, E, E, attn_mask=future," in code
    assert "model.attention = PyTorchAttention(model.attention)" in code
    assert " mha(" not in code  # no layer the slide never made
    said = " ".join(n for _, n in lines)
    assert "attention(E)" in said and "query, key, value, mask" in said  # why a wrapper
    assert "TinyLM, our batch model" in said  # the model named as the batch slides named it
    (picture,) = pictures_in(s.blocks)
    boxes = [r for r in picture.shapes if isinstance(r, Rect) and r.role in ("box", "swapped")]
    names = [text(x.glyphs) for x in picture.shapes if isinstance(x, Label)
             and any(b.x < x.x < b.x + b.w and b.y < x.y < b.y + b.h for b in boxes)]
    assert names == ["embeddings", "PyTorch's", "layer", "+ residual", "MLP", "next word"]
    (swapped,) = [r for r in boxes if r.role == "swapped"]
    assert swapped.dashed and swapped is boxes[1]
    X = torch.tensor([ws.ids(name) for name in ws.sentences])
    _, probs = _library_model(ws, X)
    bars = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "bar"]
    assert [r.draws for r in bars] == [f"lab.swap.{m}_prob[{i}]" for i in range(len(X))
                                       for m in ("ours", "library")]
    written = [text(x.glyphs) for x in picture.shapes if isinstance(x, Label)
               and x.x > max(r.x for r in bars) and x.fragment == 1]
    for i in range(len(X)):
        best = int(probs[i].argmax())
        for k in range(2):
            p, word = written[2 * i + k].split(" ")
            assert abs(float(p) - float(probs[i, best])) <= 5e-4 and word == ws.vocab[best]
        assert bars[2 * i].w == bars[2 * i + 1].w  # the same length from both layers


def test_the_library_swap_checks_the_whole_model_and_ties_its_loss_to_each_sentence(
        case) -> None:
    """The check swaps the layer into the model and compares the model's logits; the loss
    PyTorch's layer gives inside the worksheet's model, run here, is the one the slide
    states, and the slide's probabilities of the observed next words, with their words,
    average to it as −ln p."""
    ws: Worksheet = case["ws"]
    s = slide(case["deck"], "lab-library-swap")
    code = " ".join(c for c, _ in listing(s))
    assert "model.attention = PyTorchAttention(model.attention)" in code
    assert "assert_close(model(X), logits)" in code
    assert code.index("logits = model(X)") < code.index("model.attention = ")
    if not ws.lesson.targets:
        assert "cross_entropy" not in code
        return
    X = torch.tensor([ws.ids(name) for name in ws.sentences])
    logits, probs = _library_model(ws, X)
    y = torch.tensor([ws.vocab.index(ws.lesson.targets[n]) for n in ws.sentences])
    loss = torch.nn.functional.cross_entropy(logits, y)
    (note,) = [n for c, n in listing(s) if c.startswith("cross_entropy(")]
    assert abs(float(note.split(",")[0]) - float(loss)) <= 5e-4
    (tie,) = [b for b in s.blocks if isinstance(b, Para) and "−ln p" in text(b)]
    shown = {run.key: run.text for run, _ in walk(tie) if isinstance(run, Num)}
    for i in range(len(ws.sentences)):
        p = float(probs[i, y[i]])
        assert abs(float(shown[f"lab.target_prob[{i}]"]) - p) <= 5e-4
        assert f"{shown[f'lab.target_prob[{i}]']} for {ws.vocab[int(y[i])]}" in text(tie)
    assert abs(float(-torch.log(probs[torch.arange(len(y)), y]).mean()) - float(loss)) < 1e-9


PYTHON = {"class", "def", "return", "self", "nn", "Module", "forward", "attn_mask",
          "average_attn_weights", "False", "True", "super", "__init__"}
"""Python's own words and PyTorch's (its module class, its layer's arguments): the lab's code
may use them without the deck introducing them."""


def test_the_lab_library_code_uses_only_names_the_deck_has_introduced(case) -> None:
    """Every other name in the library stack's code is one an earlier slide's code used,
    or is introduced on its own slide (a class it declares, a comment or sentence that
    names it, a comment on the line that calls it); the stack repeats neither the PyTorch
    stack's layer lines nor the batch slides' (the copy is one call, named where it is
    used), and "target" keeps its one meaning, the loss's observed next word."""
    deck = case["deck"]
    order = [s.id for s in deck.slides]
    earlier = set(re.findall(r"[A-Za-z_]\w*", " ".join(
        c for s in deck.slides[:order.index("lab-library-title")] for c, _ in listing(s))))
    for id in ("lab-library-swap", "lab-library-next"):
        s = slide(deck, id)
        code = " ".join(c for c, _ in listing(s))
        said = " ".join(n for _, n in listing(s)) + " " + text(
            tuple(b for b in s.blocks if isinstance(b, Para)))
        for name in set(re.findall(r"[A-Za-z_]\w*", code)) - PYTHON - earlier:
            language = name.removeprefix("E_").capitalize()
            explained = any(f"{name}(" in c and n for c, n in listing(s))  # its own line
            assert f"class {name}" in code or name in said or explained or (
                name.startswith("E_") and language in said), (id, name)
        for repeated in ("token_embedding", "readout", "updated[", "E + delta", "target"):
            assert repeated not in code, (id, repeated)


def test_the_lab_does_not_explain_again_what_the_pytorch_stack_did(case) -> None:
    """The PyTorch stack explains how the weights are stored and copied and what the
    batch_first flag means; the lab's library slide builds on it without saying it again."""
    s = slide(case["deck"], "lab-library-swap")
    said = text(s.blocks) + " ".join(text(n) for n in s.notes)
    for told in ("in_proj_weight", "out_proj", "transpose", "batch_first", "W_Q.T"):
        assert told not in said, told


def test_the_lab_library_title_map_is_not_the_pytorch_stacks(case) -> None:
    """The two stacks' title slides place different things: the PyTorch stack the layer
    alone, the lab's library stack the whole model around the swapped-in layer."""
    def lit(id: str) -> list[tuple[float, float]]:
        (picture, *_) = pictures_in(slide(case["deck"], id).blocks)
        return sorted((r.x, r.y) for r in picture.shapes
                      if isinstance(r, Rect) and r.role == "lit")

    assert lit("lab-library-title") != lit("pytorch-title")
