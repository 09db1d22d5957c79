"""The PyTorch clip shows what it says: the per-head steps the library call replaces, one
sentence called without a batch axis (its shapes those torch returns here for an unbatched
input), each copied block's shape and head bands, a causal mask in clip 14's colours, the
three inputs outlined as the voice names them, one weight grid per head from each layer,
shaded from the weights recomputed here in numpy, its masked cells hatched so that no small
weight reads as masked, and a few of their numbers side by side."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from scenes.kit.palette import MUTED, NEUTRAL_FILL
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import SHAPES_ON, WORKSHEETS, dry_runs
from worksheet import load_worksheet
from worksheet.formatting import MINUS, NOISE, Style

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

NAME = "PyTorchLayer"
OKABE_ITO_HEADS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7")
GRID_WORKSHEETS = ("default", "four", "wide")
"""Two heads over ten tokens, four heads over three, one wide head over twelve."""


@pytest.fixture(scope="module")
def shown() -> dict[str, dict[str, Any]]:
    """The clip dry-run on each worksheet the scene rules run on (their runs are shared),
    by worksheet label."""
    return {label: runs[NAME] for label, runs in dry_runs([NAME], list(SHAPES_ON)).items()}

def _texts(result: dict[str, Any], section: str) -> list[str]:
    return [t["text"] for s in result["sections"] if s["name"] == section
            for t in s["texts"]]


def _said(result: dict[str, Any]) -> str:
    return " ".join(c["text"] for c in result["manifest"]["captions"])


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_library_call_frames_every_per_head_step_it_replaces(shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    texts = Counter(_texts(shown[label], "what it packages"))
    heads = ws.n_heads
    assert texts["nn.MultiheadAttention"] == 1
    assert texts["project Q, K, V"] == 1
    assert texts[f"split into {heads} head{'s' if heads > 1 else ''}"] == 1
    for step in ("score", "softmax", "mix"):  # one lane per head
        assert texts[step] == heads, step
    assert texts["join"] == 1 and texts["W_O"] == 1
    assert {f"Head {h}" for h in range(1, heads + 1)} <= set(texts)


def _unbatched_shapes(ws: Any) -> tuple[list[int], list[int]]:
    """What nn.MultiheadAttention returns for one sentence without a batch axis, with
    per-head weights: the update's shape and the weights' shape (any weights will do)."""
    import torch
    from torch import nn

    length = ws.length
    layer = nn.MultiheadAttention(ws.d_model, ws.n_heads, bias=False, batch_first=True)
    E = torch.zeros(length, ws.d_model)
    mask = torch.ones(length, length, dtype=torch.bool).triu(1)
    with torch.no_grad():
        delta, A = layer(E, E, E, attn_mask=mask, average_attn_weights=False)
    return list(delta.shape), list(A.shape)


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_clip_calls_one_sentence_without_a_batch_axis(shown, label: str) -> None:
    """E is one sentence, [tokens, d_model]; the update and the per-head weights come back
    in the shapes torch gives an unbatched input; batch_first is said to wait for a batch
    axis, and no sentence but the first is drawn."""
    ws = load_worksheet(WORKSHEETS[label])
    delta, A = _unbatched_shapes(ws)
    shape = f"[{ws.length}, {ws.d_model}]"
    assert f"E {shape}" in set(_texts(shown[label], "constructor"))
    assert f"E {shape}" in set(_texts(shown[label], "the call"))
    returned = set(_texts(shown[label], "what comes back"))
    assert f"delta [{', '.join(map(str, delta))}]" in returned
    assert f"A [{', '.join(map(str, A))}]" in returned
    assert len(A) == 3 and A[0] == ws.n_heads  # heads × receivers × sources
    section = next(s for s in shown[label]["sections"] if s["name"] == "the call")
    words = [t["text"] for t in section["texts"] if t["kind"] == "word"]
    assert sorted(words) == sorted(ws.sentences[ws.walkthrough])
    said = _said(shown[label])
    assert "batch axis lines up" not in said and "[batch" not in " ".join(
        t for name in ("constructor", "the call", "what comes back")
        for t in _texts(shown[label], name))
    assert "batch_first=True only matters for inputs with a batch axis" in said


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_each_copied_block_carries_its_shape_and_pytorch_stores_out_by_in(
        shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    d, heads, d_head = ws.d_model, ws.n_heads, ws.d_head
    joined = heads * d_head
    texts = set(_texts(shown[label], "copied weights"))
    for kind in ("W_Q", "W_K", "W_V"):
        assert f"{kind} [{d}, {joined}]" in texts, kind  # ours: [in, out]
        assert f"{kind}ᵀ [{joined}, {d}]" in texts, kind  # theirs: [out, in]
    assert f"W_O [{joined}, {d}]" in texts and f"W_Oᵀ [{d}, {joined}]" in texts
    assert f"in_proj_weight [{3 * joined}, {d}]" in texts
    assert f"out_proj.weight [{d}, {joined}]" in texts
    assert {"scratch layer: [in, out]", "PyTorch: [out, in]"} <= texts
    assert any(f"[{d}, {d_head}]" in text for text in texts)  # one head's band
    assert {f"Head {h}" for h in range(1, heads + 1)} <= texts
    said = _said(shown[label])
    assert "[out, in]" in said and "transposed" in said
    # The packing is one sentence here, said with the transposition it shows and never
    # as a recap: the clip before no longer draws PyTorch's storage.
    packing = [c["text"] for c in shown[label]["manifest"]["captions"]
               if "in_proj_weight" in c["text"] or "out_proj.weight" in c["text"]]
    assert len(packing) == 1 and "transposed" in packing[0]
    assert not any("last clip" in c["text"] for c in shown[label]["manifest"]["captions"])


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_mask_has_clip_14s_legend(shown, label: str) -> None:
    texts = set(_texts(shown[label], "the call"))
    assert {"receivers ↓", "sources →", "masked: a later source (True)",
            "may attend (False)"} <= texts
    assert "True means blocked" in _said(shown[label])


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_causal_is_defined_when_the_mask_is_handed_over(shown, label: str) -> None:
    (said,) = [c["text"] for c in shown[label]["manifest"]["captions"]
               if c["text"].startswith("attn_mask=causal")]
    assert "a source may not be later than its receiver" in said, said


def _section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return next(s for s in result["sections"] if s["name"] == name)["texts"]


def _middle(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
@pytest.mark.parametrize("section", ["what comes back", "agreement"])
def test_every_grid_names_its_rows_and_columns_by_token(shown, label: str,
                                                        section: str) -> None:
    """Each receiver's word stands left of the grids, one per row from the top down, evenly
    spaced; above every grid, each source's word (or its first letters) in sentence order,
    on one line, evenly spaced."""
    ws = load_worksheet(WORKSHEETS[label])
    tokens = ws.sentences[ws.walkthrough]
    grids = ws.n_heads * (2 if section == "agreement" else 1)
    texts = _section(shown[label], section)
    lines: dict[float, list[dict[str, Any]]] = {}
    for t in texts:
        lines.setdefault(round(t["box"][1], 2), []).append(t)
    columns = []
    for line in lines.values():
        line.sort(key=lambda t: t["box"][0])
        for start in range(0, len(line) - len(tokens) + 1):
            run = line[start:start + len(tokens)]
            if all(t["text"] and token.startswith(t["text"]) for t, token in
                   zip(run, tokens, strict=True)):
                columns.append(run)
    assert len(columns) == grids, [[t["text"] for t in run] for run in columns]
    for run in columns:
        xs = [_middle(t["box"])[0] for t in run]
        steps = np.diff(xs)
        assert steps.min() > 0 and steps.max() - steps.min() < 0.02, xs
    left = min(t["box"][0] for run in columns for t in run)
    rows = []
    for token in tokens:  # the word, left of every grid, the highest not yet taken
        candidates = sorted((t for t in texts if t["text"] == token and t["kind"] == "word"
                             and t["box"][2] < left and t not in rows),
                            key=lambda t: -t["box"][1])
        assert candidates, token
        rows.append(candidates[0])
    ys = [_middle(t["box"])[1] for t in rows]
    steps = -np.diff(ys)
    assert steps.min() > 0 and steps.max() - steps.min() < 0.02, ys
    assert abs(steps.mean() - (np.diff([_middle(t["box"])[0] for t in columns[0]]).mean())) \
        < 0.02, "square cells: rows as far apart as columns"


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_returned_weights_are_named_by_sentence_and_head(shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    texts = Counter(_texts(shown[label], "what comes back"))
    for h in range(1, ws.n_heads + 1):
        assert texts[f"Head {h}"] == 1
    assert texts["each grid: receivers ↓, sources →"] == 1


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_only_one_outline_points_at_a_time(shown, label: str) -> None:
    """Each outline is gone by the time the next one is drawn, and at the latest as the
    sentence after its own begins to point elsewhere."""
    result = shown[label]
    seen = [(caption, first, last) for caption, first, last in result["pointed"]
            if first is not None]
    captions = result["manifest"]["captions"]
    for (_, _, last), (caption, first, _) in pairwise(seen):
        assert last <= first + 0.01, (captions[caption]["text"], last, first)


class Probe:
    """Mixed into every dry run of the clip (``tests.scene_runner.PROBES``): notes every
    weight grid (which layer, which head, where, each cell's fill and the lines drawn
    across it, whether it is on screen when the agreement begins), the mask's cells, the
    grids' legend (its swatches, and whether it is on screen while the grids are), each
    outline with the caption it was drawn for, and where the code's lines stood during the
    call."""

    def setup(self) -> None:
        self.probe_outlines: list[tuple[int, list[float]]] = []
        self.probe_code: list[list[float]] = []
        self.probe_on_screen: list[bool] = []
        self.probe_legend_shown: list[bool] = []
        super().setup()  # type: ignore[misc]

    def probe_legend_on_screen(self) -> bool:
        members = {id(m) for m in self.get_mobject_family_members()}  # type: ignore[attr-defined]
        return all(id(m) in members for m in self.legend.get_family())  # type: ignore[attr-defined]

    def point_at(self, *mobs: Any, **kwargs: Any) -> Any:
        made = super().point_at(*mobs, **kwargs)  # type: ignore[misc]
        box = self._pointer  # type: ignore[attr-defined]
        self.probe_outlines.append((len(self.captions), [  # type: ignore[attr-defined]
            float(box.get_left()[0]), float(box.get_bottom()[1]), float(box.get_right()[0]),
            float(box.get_top()[1])]))
        return made

    def numbers(self) -> None:  # the grids as the agreement finds them
        members = {id(m) for m in self.get_mobject_family_members()}  # type: ignore[attr-defined]
        self.probe_on_screen.extend(id(g) in members for pair in self.pairs  # type: ignore[attr-defined]
                                    for g in pair)
        self.probe_legend_shown.append(self.probe_legend_on_screen())
        super().numbers()  # type: ignore[misc]

    def returned(self) -> None:  # the code as it stood during the call
        self.probe_code.extend([float(line.get_left()[0]), float(line.get_bottom()[1]),
                                float(line.get_right()[0]), float(line.get_top()[1])]
                               for line in self.code_lines)  # type: ignore[attr-defined]
        super().returned()  # type: ignore[misc]
        self.probe_legend_shown.append(self.probe_legend_on_screen())  # with the grids

    def probed(self) -> dict[str, Any]:
        def fills(cells: Any) -> list[tuple[str, float]]:
            return [(cell.get_fill_color().to_hex().upper(), float(cell.get_fill_opacity()))
                    for cell in cells]

        def across(cell: Any) -> list[str]:
            """The colour of each line drawn over a cell (its own edge aside)."""
            return [part.get_stroke_color().to_hex().upper() for part in cell.get_family()[1:]
                    if part.has_points() and part.get_stroke_width() > 0]

        def look(cell: Any) -> dict[str, Any]:
            return {"fill": fills([cell])[0], "across": across(cell),
                    "edge": float(cell.get_stroke_width())}

        captions = [c["text"] for c in self.manifest()["captions"]]  # type: ignore[attr-defined]
        grids = [g for pair in self.pairs for g in pair]  # type: ignore[attr-defined]
        return {
            "grids": [{"source": g.source, "head": g.head, "x": float(g.get_x()),
                       "y": float(g.get_y()), "on screen": seen,
                       "cells": [fills(row) for row in g.cells],
                       "looks": [[look(cell) for cell in row] for row in g.cells]}
                      for g, seen in zip(grids, self.probe_on_screen, strict=True)],
            "mask": fills(self.mask[0]),  # type: ignore[attr-defined]
            "mask looks": [look(cell) for cell in self.mask[0]],  # type: ignore[attr-defined]
            "legend": [look(entry[0]) for entry in self.legend],  # type: ignore[attr-defined]
            "legend shown": self.probe_legend_shown,
            "outlines": [(captions[i], box) for i, box in self.probe_outlines
                         if i < len(captions)],
            "code": self.probe_code,
        }


@pytest.fixture(scope="module")
def drawn(shown) -> dict[str, dict[str, Any]]:
    return {label: shown[label]["probed"] for label in GRID_WORKSHEETS}


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_each_head_has_the_scratch_grid_beside_pytorchs(drawn, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    grids = drawn[label]["grids"]
    assert [(g["source"], g["head"]) for g in grids] == [
        (source, h) for h in range(1, ws.n_heads + 1) for source in ("scratch", "PyTorch")]
    assert all(g["on screen"] for g in grids)
    xs = [g["x"] for g in grids]
    assert xs == sorted(xs) and len({round(g["y"], 3) for g in grids}) == 1


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_every_grid_cell_is_shaded_by_its_recomputed_weight(drawn, label: str) -> None:
    """Masked cells (a later source) in clip 14's neutral fill; every other cell in its
    head's colour, its opacity rising in step with the weight numpy computes here."""
    doc = load_worksheet(WORKSHEETS[label]).document
    first = next(iter(doc["sentences"]))
    for grid in drawn[label]["grids"]:
        weights = reference.sentence(doc, first)["heads"][grid["head"] - 1]["A"]
        tokens = len(weights)
        colour = OKABE_ITO_HEADS[grid["head"] - 1]
        masked = {grid["cells"][i][j] for i in range(tokens) for j in range(i + 1, tokens)}
        assert masked <= {(NEUTRAL_FILL.upper(), 1.0)}
        allowed = [(i, j) for i in range(tokens) for j in range(i + 1)]
        assert {grid["cells"][i][j][0] for i, j in allowed} == {colour}
        shade = np.array([grid["cells"][i][j][1] for i, j in allowed])
        weight = np.array([weights[i, j] for i, j in allowed])
        slope, offset = np.polyfit(weight, shade, 1)
        assert slope > 0.5, (grid["source"], grid["head"], slope)
        assert np.abs(slope * weight + offset - shade).max() < 1e-6


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_the_mask_uses_clip_14s_colours(drawn, label: str) -> None:
    """Clip 14 fills a masked cell (a later source) with the neutral fill and colours
    only the allowed ones; here, with no weights, the allowed cells stay open."""
    tokens = load_worksheet(WORKSHEETS[label]).length
    cells = drawn[label]["mask"]
    for r in range(tokens):
        for c in range(tokens):
            fill, opacity = cells[r * tokens + c]
            if c > r:
                assert (fill, opacity) == (NEUTRAL_FILL.upper(), 1.0), (r, c)
            else:
                assert opacity == 0.0, (r, c)


def _hatched(look: dict[str, Any]) -> bool:
    """Crossed by at least two lines, all in the muted colour of the mask's hatching."""
    return len(look["across"]) >= 2 and set(look["across"]) == {MUTED.upper()}


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_a_masked_cell_is_hatched_and_no_weight_however_small_is(shown, drawn,
                                                                  label: str) -> None:
    """A masked cell must not read as one more shade of weight: every masked cell of every
    grid (and of the mask handed to the call) is hatched; no allowed cell has a line across
    it, not even those whose weight numpy finds nearest zero, and each keeps a faint edge,
    an open cell as the mask draws it. The grids' legend shows both, hatched and open, and
    is on screen whenever the grids are; the voice names the hatching at the legend."""
    ws = load_worksheet(WORKSHEETS[label])
    doc, tokens = ws.document, ws.length
    first = next(iter(doc["sentences"]))
    seen = drawn[label]
    for grid in seen["grids"]:
        weights = reference.sentence(doc, first)["heads"][grid["head"] - 1]["A"]
        looks = grid["looks"]
        for i in range(tokens):
            for j in range(tokens):
                if j > i:
                    assert _hatched(looks[i][j]), (grid["source"], grid["head"], i, j)
                else:
                    assert looks[i][j]["across"] == [] and looks[i][j]["edge"] > 0, (i, j)
        allowed = [(i, j) for i in range(tokens) for j in range(i + 1)]
        i, j = min(allowed, key=lambda cell: weights[cell])  # the weight nearest zero
        assert grid["cells"][i][j] != looks[0][-1]["fill"] and looks[i][j]["across"] == []
    for r in range(tokens):
        for c in range(tokens):
            look = seen["mask looks"][r * tokens + c]
            assert _hatched(look) if c > r else look["across"] == [], (r, c)
    open_, masked = seen["legend"]
    assert open_["across"] == [] and open_["fill"][1] == 0.0 and _hatched(masked)
    assert seen["legend shown"] == [True, True]  # as the grids come back, and beside both
    for section in ("what comes back", "agreement"):
        named = set(_texts(shown[label], section))
        assert {"masked (future)", "may attend: shaded by weight"} <= named, section
    said = shown[label]["manifest"]["captions"]
    (told,) = [k for k, caption in enumerate(said) if caption["text"].startswith("Hatched")]
    outlined = [o["texts"] for o in shown[label]["outlined"] if o["caption"] == told]
    assert outlined[0] == ["masked (future)"], outlined  # the key first, then the cells


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_passing_e_outlines_the_three_inputs_not_the_mask(drawn, label: str) -> None:
    """As the voice says E is passed as query, key and value, the outline holds the code
    line ``E, E, E,`` and nothing of the lines around it (the call, the mask)."""
    call, inputs, mask = drawn[label]["code"][:3]
    (box,) = [box for caption, box in drawn[label]["outlines"]
              if caption.startswith("We pass E three times")]
    left, bottom, right, top = box
    assert left < inputs[0] and right > inputs[2] and bottom < inputs[1] and top > inputs[3]
    assert top < call[1] and bottom > mask[3]
    (mask_box,) = [box for caption, box in drawn[label]["outlines"]
                   if caption.startswith("attn_mask=causal")]
    assert mask_box[3] < inputs[1] and mask_box[1] < mask[1]  # then the mask line


def _row_beside(texts: list[dict[str, Any]], name: dict[str, Any]) -> list[dict[str, Any]]:
    """The texts on ``name``'s line, to its right, from left to right."""
    middle = _middle(name["box"])[1]
    return sorted((t for t in texts if abs(_middle(t["box"])[1] - middle) < 0.06
                   and t["box"][0] > name["box"][2]), key=lambda t: t["box"][0])


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_proof_lists_each_heads_strongest_weights_at_the_receiver(shown,
                                                                       label: str) -> None:
    """Not the first sources' weights (often the smallest) but, per head, the sources
    numpy finds heaviest at the last receiver, each named, its weight from the scratch
    layer then from PyTorch, both equal to numpy's to the last digit."""
    ws = load_worksheet(WORKSHEETS[label])
    doc = ws.document
    first = next(iter(doc["sentences"]))
    tokens = doc["sentences"][first]
    case = reference.sentence(doc, first)
    texts = _section(shown[label], "numbers")
    count = 2 if ws.n_heads > 1 else 3
    for h, head in enumerate(case["heads"], start=1):
        row = head["A"][-1]
        heaviest = np.argsort(-row, kind="stable")[:count]
        (name,) = [t for t in texts if t["text"] == f"Head {h}"]
        last = len(row) - 1
        heights = []
        for j in heaviest:
            keys = [{f"{first}.h{h}.A[{last}][{j}]"},
                    {f"mha.single.weights[{h - 1}][{last}][{j}]"}]
            found = [(word, _row_beside(texts, word)[:2]) for word in texts
                     if word["text"] == tokens[j] and word["kind"] == "word"]
            found = [(word, pair) for word, pair in found
                     if [{f[0] for f in t["figures"]} for t in pair] == keys]
            assert len(found) == 1, (h, j, len(found))
            word, (ours, theirs) = found[0]
            assert word["box"][0] > name["box"][2], "the word after its head's name"
            for text in (ours, theirs):
                assert reference.within_display(text["text"], Style.FIXED3, row[j]), (h, j)
            heights.append(_middle(word["box"])[1])
        assert abs(heights[0] - _middle(name["box"])[1]) < 0.06, "on the head's line"
        assert all(a > b for a, b in pairwise(heights)), "heaviest first, downwards"
    said = _said(shown[label])
    assert f"At the receiver “{tokens[-1]}”, each head's strongest weights" in said


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_receivers_update_row_stands_in_numbers_from_both_layers(shown,
                                                                     label: str) -> None:
    """ΔE is more than a shape: the receiver's row from the scratch layer, and under it
    PyTorch's, each shown coordinate equal to numpy's update to the last digit."""
    ws = load_worksheet(WORKSHEETS[label])
    doc = ws.document
    first = next(iter(doc["sentences"]))
    update = reference.sentence(doc, first)["delta"][-1]
    texts = _section(shown[label], "numbers")
    assert "the receiver's row of ΔE" in {t["text"] for t in texts}
    for layer, key in (("scratch", "mha.scratch_delta"), ("PyTorch", "mha.library_delta")):
        rows = [_row_beside(texts, t) for t in texts if t["text"] == layer]
        (numbers,) = [[t for t in row if t["figures"]] for row in rows
                      if any(t["figures"] for t in row)
                      and all(f[0].startswith(key) for t in row for f in t["figures"])]
        assert numbers, layer
        for text in numbers:
            ((figure, _),) = text["figures"]
            c = int(figure[len(key) + 1:-1])
            assert reference.within_display(text["text"], Style.FIXED3, update[c]), (layer, c)
        assert int(numbers[0]["figures"][0][0][len(key) + 1:-1]) == 0
    assert "So does the receiver's row of ΔE" in _said(shown[label])


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_clip_says_once_that_the_notebooks_float32_shows_the_same_digits(
        shown, label: str) -> None:
    """The notebook computes in float32 and we show float64: numpy, in both widths, gives
    the same three decimals for every weight and the whole update, and the clip says so,
    once, with the width bound to its value."""
    ws = load_worksheet(WORKSHEETS[label])
    first = next(iter(ws.document["sentences"]))
    wide = reference.narrow_call(ws.document, first, np.float64)
    narrow = reference.narrow_call(ws.document, first, np.float32)
    for ours, theirs in zip(wide, narrow, strict=True):
        assert np.array_equal(np.round(ours, 3), np.round(theirs.astype(np.float64), 3))
    captions = [c for c in shown[label]["manifest"]["captions"] if "notebook" in c["text"]]
    assert len(captions) == 1, [c["text"] for c in captions]
    assert captions[0]["text"] == ("The lesson's notebook computes with 32-bit numbers: to the "
                                   "digits shown here, its numbers are the same.")
    assert [f["key"] for f in captions[0]["figures"]] == ["mha.notebook.bits"]


@pytest.mark.parametrize("label", list(SHAPES_ON))
def test_the_agreement_shows_the_measured_gap(shown, label: str) -> None:
    """The largest differences torch measures here against numpy, under the bound shown,
    in the width the lesson computes in."""
    import torch

    from worksheet.model import TinyLM, to_pytorch

    ws = load_worksheet(WORKSHEETS[label])
    doc = ws.document
    first = next(iter(doc["sentences"]))
    case = reference.sentence(doc, first)
    section = next(s for s in shown[label]["sections"] if s["name"] == "differences")
    model = TinyLM.from_worksheet(ws)
    E = torch.tensor(reference.embed(doc, first))
    with torch.no_grad():
        delta, A = to_pytorch(model.attention)(E, E, E, attn_mask=torch.ones(
            len(E), len(E), dtype=torch.bool).triu(1), average_attn_weights=False)
    weights = np.stack([head["A"] for head in case["heads"]])
    gaps = (np.abs(delta.numpy() - case["delta"]).max(), np.abs(A.numpy() - weights).max())
    shown_texts = {t["text"] for t in section["texts"]}
    assert max(gaps) < NOISE and f"< {NOISE:.0e}".replace("-", MINUS) in shown_texts
    bits = np.finfo(A.numpy().dtype).bits
    assert f"computed with {bits}-bit numbers: equal up to rounding" in shown_texts
