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
    assert "Others, training on children's stories" in perplexity  # beside the published claim


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
        # projections in this lecture
        assert not {"H", "W"} & letters, s.id


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
    rows = slide(case["deck"], "patches-rows")
    tables = [b for b, _ in walk(rows.blocks) if isinstance(b, Table)]
    assert tables and all([text(row.label) for row in t.rows] == ["CLS", *image]
                          for t in tables)
    said = text(tuple(b for b in rows.blocks if isinstance(b, Para)))
    assert said.startswith("CLS is")  # defined on the first slide that shows it
    for t in tables:
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


def test_every_tensor_of_the_join_is_labelled_with_its_shape(case) -> None:
    values: Values = case["values"]
    (picture,) = pictures_in(slide(case["deck"], "lab-batch-join").blocks)
    names = [label.glyphs[0].text for label in picture.shapes
             if isinstance(label, Label) and label.bold]
    shapes = [label for label in picture.shapes if isinstance(label, Label) and label.key]
    assert len(shapes) == len(names)
    reordered = shapes[names.index("reordered")]
    batch, heads, length, width = values.value("lab.shape.messages")
    assert shape(reordered.glyphs[0].text) == [batch, length, heads, width]
    said = text(slide(case["deck"], "lab-batch-join").blocks)
    assert "Reorder before the reshape" in said  # the pitfall, stated
