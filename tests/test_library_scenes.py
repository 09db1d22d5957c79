"""The library scenes (bias flag, PyTorch layer, trained models, patches, lab), built without
writing video on every test worksheet: what a caption says is on screen when its section
ends, and the pictures the lesson asks for are there."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import DRY_RUNS
from tests.scene_runner import run_scenes
from tests.test_scenes import ENTRIES, WORKSHEETS
from worksheet import compute_values, load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("BiasFlag", "PyTorchLayer", "TrainedComparison", "ImagePatches", "BatchLab")
CASES = [(label, name) for label in WORKSHEETS for name in SCENES]


@pytest.fixture(scope="module")
def shown() -> dict[str, dict[str, Any]]:
    """Dry runs of these scenes on every test worksheet, by worksheet label and scene."""
    jobs = [(entry, WORKSHEETS[label]) for label, entries in ENTRIES.items()
            for entry in entries if entry.name in SCENES]
    results = run_scenes(jobs)
    return {label: {name: results[(str(WORKSHEETS[label]), name)] for name in SCENES}
            for label in WORKSHEETS}


def _result(shown: dict, label: str, name: str) -> dict[str, Any]:
    result = shown[label][name]
    assert result["error"] is None, result["error"]
    return result


def _manifest(shown: dict, label: str, name: str) -> dict[str, Any]:
    return _result(shown, label, name)["manifest"]


def _section_of(manifest: dict[str, Any], start: float) -> dict[str, Any]:
    """The section in which a caption starting at ``start`` seconds is said.

    The last section ends with the scene, which gives the rate its frame numbers count
    in (a dry run counts at its own rate, whatever the manifest's header says).
    """
    sections = manifest["sections"]
    frame = start * (sections[-1]["frame"] + 1) / manifest["duration"]
    return next((s for s in sections if frame < s["frame"] + 1), sections[-1])


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_number_a_caption_says_is_on_screen_when_its_section_ends(
        shown, label: str, name: str) -> None:
    manifest = _manifest(shown, label, name)
    for caption in manifest["captions"]:
        section = _section_of(manifest, caption["start"])
        shown = {(f["key"], f["text"]) for f in section["figures"]}
        said = {(f["key"], f["text"]) for f in caption["figures"]}
        assert said <= shown, (section["name"], caption["text"], sorted(said - shown))


@pytest.mark.parametrize(("label", "name"), [(label, "PyTorchLayer") for label in WORKSHEETS])
def test_the_pytorch_layer_is_built_batch_first_with_the_lessons_sizes(shown, label: str,
                                                                        name: str) -> None:
    manifest = _manifest(shown, label, name)
    values = compute_values(load_worksheet(WORKSHEETS[label]))
    texts = [t for s in _result(shown, label, name)["sections"] if s["name"] == "constructor"
             for t in s["texts"]]
    sizes = f"{values.text('dims.d_model')}, {values.text('dims.heads')},"
    assert {"mha = nn.MultiheadAttention(", sizes, "bias=False,", "batch_first=True)"} \
        <= {t["text"] for t in texts}
    said = " ".join(c["text"] for c in manifest["captions"])
    assert "batch_first=True" in said and "batch, tokens, d_model" in said


@pytest.mark.parametrize(("label", "name"), [(label, "BatchLab") for label in WORKSHEETS])
def test_the_lab_draws_the_reshape_and_the_transpose_with_bound_sides(shown, label: str,
                                                                      name: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    manifest = _manifest(shown, label, name)
    section = next(s for s in manifest["sections"] if s["name"] == "head axis")
    keys = {f["key"]: f["text"] for f in section["figures"]}
    batch, tokens = len(ws.sentences), ws.length
    assert keys["lab.shape.Q"] == f"[{batch}, {tokens}, {ws.d_model}]"
    assert keys["lab.shape.Q_split"] == f"[{batch}, {tokens}, {ws.n_heads}, {ws.d_head}]"
    assert keys["lab.shape.Q_heads"] == f"[{batch}, {ws.n_heads}, {tokens}, {ws.d_head}]"
    for key, size in (("dims.sentences", batch), ("dims.tokens", tokens),
                      ("dims.d_model", ws.d_model), ("dims.heads", ws.n_heads),
                      ("dims.d_head", ws.d_head)):
        assert keys[key] == str(size), key


@pytest.mark.parametrize(("label", "name"),
                         [(label, "TrainedComparison") for label in WORKSHEETS])
def test_the_trained_models_take_well_under_a_minute(shown, label: str, name: str) -> None:
    """Without an experiment: the sizes, then how to measure them, and no claim."""
    manifest = _manifest(shown, label, name)
    assert manifest["duration"] <= 40.0  # paced by reading time; narrated it is longer
    said = " ".join(c["text"] for c in manifest["captions"])
    assert "not measured here" in said and "lecture experiment" in said
    assert "perplexity" not in said
    assert manifest["options"] == {"experiment": None}
