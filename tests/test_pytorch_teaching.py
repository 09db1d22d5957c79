"""The PyTorch clip shows what it says: the per-head steps the library call replaces, the
two readings of E's first axis, each copied block's shape and head bands, both sentences'
words, a labelled causal mask, and one weight grid per sentence and head, shaded from the
weights recomputed here in numpy."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

NAME = "PyTorchLayer"
OKABE_ITO_HEADS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7")
GRID_WORKSHEETS = ("default", "four", "wide")
"""Two heads over ten tokens, four heads over three, one wide head over twelve."""


@pytest.fixture(scope="module")
def shown() -> dict[str, dict[str, Any]]:
    """The clip dry-run on every test worksheet, by worksheet label."""
    return {label: runs[NAME] for label, runs in dry_runs([NAME], list(WORKSHEETS)).items()}

def _texts(result: dict[str, Any], section: str) -> list[str]:
    return [t["text"] for s in result["sections"] if s["name"] == section
            for t in s["texts"]]


def _said(result: dict[str, Any]) -> str:
    return " ".join(c["text"] for c in result["manifest"]["captions"])


@pytest.mark.parametrize("label", list(WORKSHEETS))
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


@pytest.mark.parametrize("label", list(WORKSHEETS))
def test_both_readings_of_the_first_axis_are_drawn(shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    texts = Counter(_texts(shown[label], "constructor"))
    assert texts["batch_first=True"] == 1 and texts["batch_first=True)"] == 1
    assert texts["without it"] == 1
    assert {"batch: sentences ↓", "tokens →", "read as tokens ↓", "read as batch →",
            "attention runs along each sentence",
            "attention runs across the sentences"} <= set(texts)
    for name in ws.sentences:  # every sentence is a row in both readings
        assert texts[name] == 2, name
    assert "batch axis lines up the sentences" in _said(shown[label])


@pytest.mark.parametrize("label", list(WORKSHEETS))
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


@pytest.mark.parametrize("label", list(WORKSHEETS))
def test_the_batch_shows_every_sentences_words_and_a_labelled_mask(shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    section = next(s for s in shown[label]["sections"] if s["name"] == "the batch")
    words = Counter(t["text"] for t in section["texts"] if t["kind"] == "word")
    assert words == Counter(t for tokens in ws.sentences.values() for t in tokens)
    texts = {t["text"] for t in section["texts"]}
    assert {"receivers ↓", "sources →", "True: blocked, a later source",
            "False: allowed"} <= texts
    count = len(ws.sentences)
    assert f"batch axis ↓ {count} sentence{'s' if count > 1 else ''}, one per row" in texts
    assert "True means blocked" in _said(shown[label])


@pytest.mark.parametrize("label", list(WORKSHEETS))
def test_the_returned_weights_are_named_by_sentence_and_head(shown, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    texts = Counter(_texts(shown[label], "what comes back"))
    for name in ws.sentences:
        assert texts[name] == 1, name
    for h in range(1, ws.n_heads + 1):
        assert texts[f"Head {h}"] == 1
    assert texts["each grid: receivers ↓, sources →"] == 1


@pytest.mark.parametrize("label", list(WORKSHEETS))
def test_only_one_outline_points_at_a_time(shown, label: str) -> None:
    """Each outline is gone by the time the next one is drawn, and at the latest as the
    sentence after its own begins to point elsewhere."""
    result = shown[label]
    seen = [(caption, first, last) for caption, first, last in result["pointed"]
            if first is not None]
    captions = result["manifest"]["captions"]
    for (_, _, last), (caption, first, _) in pairwise(seen):
        assert last <= first + 0.01, (captions[caption]["text"], last, first)


def _grid_shades(worksheet: str) -> list[dict[str, Any]]:
    """Dry-run the clip (in a fresh process, as the scene runner does) and read every
    returned weight grid as it stands at the end: where it is, and each cell's fill."""
    os.environ["LECTURE_WORKSHEET"] = worksheet
    os.environ["LECTURE_NARRATION"] = "none"
    os.environ.pop("LECTURE_VALUES", None)
    from manim import tempconfig

    from scenes.pytorch import PyTorchLayer

    media = Path(tempfile.gettempdir()) / f"lecture-tests-media-{os.getpid()}"
    with tempconfig({"dry_run": True, "quality": "low_quality", "disable_caching": True,
                     "verbosity": "ERROR", "progress_bar": "none", "media_dir": str(media)}):
        scene = PyTorchLayer(skip_animations=True)
        scene.renderer.camera.capture_mobjects = lambda *_, **__: None
        scene.render()
    shown = {id(m) for m in scene.get_mobject_family_members()}
    return [{"sentence": g.sentence, "head": g.head, "x": float(g.get_x()),
             "y": float(g.get_y()), "on screen": id(g) in shown,
             "cells": [[(cell.get_fill_color().to_hex().upper(),
                         float(cell.get_fill_opacity())) for cell in row] for row in g.cells]}
            for row in scene.grids.grids for g in row]


@pytest.fixture(scope="module")
def grids() -> dict[str, list[dict[str, Any]]]:
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        made = pool.map(_grid_shades, [str(WORKSHEETS[label]) for label in GRID_WORKSHEETS])
        return dict(zip(GRID_WORKSHEETS, made, strict=True))


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_one_grid_per_sentence_and_head_in_the_returned_order(grids, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    drawn = grids[label]
    assert [(g["sentence"], g["head"]) for g in drawn] == [
        (name, h) for name in ws.sentences for h in range(1, ws.n_heads + 1)]
    assert all(g["on screen"] for g in drawn)
    heads = ws.n_heads
    for i, grid in enumerate(drawn):  # sentences down, heads across, as A's axes run
        if i % heads:
            assert grid["x"] > drawn[i - 1]["x"] and grid["y"] == pytest.approx(
                drawn[i - 1]["y"])
        if i >= heads:
            assert grid["y"] < drawn[i - heads]["y"]


@pytest.mark.parametrize("label", GRID_WORKSHEETS)
def test_every_grid_cell_is_shaded_by_its_recomputed_weight(grids, label: str) -> None:
    """Blocked cells (a later source) in one neutral fill; every other cell in its head's
    colour, its opacity rising in step with the weight numpy computes here."""
    doc = load_worksheet(WORKSHEETS[label]).document
    for grid in grids[label]:
        weights = reference.sentence(doc, grid["sentence"])["heads"][grid["head"] - 1]["A"]
        tokens = len(weights)
        colour = OKABE_ITO_HEADS[grid["head"] - 1]
        blocked = {(c, o) for i in range(tokens) for j in range(i + 1, tokens)
                   for c, o in [grid["cells"][i][j]]}
        assert len(blocked) <= 1 and all(c != colour for c, _ in blocked)
        allowed = [(i, j) for i in range(tokens) for j in range(i + 1)]
        assert {grid["cells"][i][j][0] for i, j in allowed} == {colour}
        shade = np.array([grid["cells"][i][j][1] for i, j in allowed])
        weight = np.array([weights[i, j] for i, j in allowed])
        slope, offset = np.polyfit(weight, shade, 1)
        assert slope > 0.5, (grid["sentence"], grid["head"], slope)
        assert np.abs(slope * weight + offset - shade).max() < 1e-6
