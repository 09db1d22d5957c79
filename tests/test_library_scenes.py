"""The library scenes (bias flag, PyTorch layer, trained models, patches, lab), built without
writing video on every test worksheet: what a caption says is on screen when its section
ends, and the pictures the lesson asks for are there."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from tests.conftest import DRY_RUNS
from tests.scene_runner import run_scenes
from tests.test_scenes import ENTRIES, SHAPES_ON, TRAINED_ON, WORKSHEETS
from worksheet import compute_values, load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("BiasFlag", "PyTorchLayer", "TrainedComparison", "ImagePatches", "BatchLab")
CASES = [(label, name) for label in SHAPES_ON for name in SCENES
         if name != "TrainedComparison" or label in TRAINED_ON]
"""Not on ``markup``: none of these scenes is among ``test_scenes.MARKUP_SCENES``."""


@pytest.fixture(scope="module")
def shown() -> dict[str, dict[str, Any]]:
    """Dry runs of these scenes on every test worksheet, by worksheet label and scene."""
    jobs = [(entry, WORKSHEETS[label]) for label, entries in ENTRIES.items()
            for entry in entries if (label, entry.name) in CASES]
    results = run_scenes(jobs)
    return {label: {name: results[(str(WORKSHEETS[label]), name)] for name in SCENES
                    if (label, name) in CASES} for label in WORKSHEETS}


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


@pytest.mark.parametrize(("label", "name"), [(label, "PyTorchLayer") for label in SHAPES_ON])
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


@pytest.mark.parametrize(("label", "name"), [(label, "BatchLab") for label in SHAPES_ON])
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



def _counts_by_part(sizes: Any) -> dict[str, int]:
    """Each trained model's parameters by part, from the sizes alone (weights and biases
    of every layer written out here)."""
    v, c, w, h = sizes.vocab, sizes.context, sizes.width, sizes.hidden
    counts = {"trained.mlp.parts.token": v * w, "trained.mlp.parts.hidden": c * w * h + h,
              "trained.mlp.parts.vocab": h * v + v}
    counts["trained.mlp.params"] = v * w + c * w * h + h + h * v + v
    for heads in sizes.heads:
        model = f"trained.heads{heads}"
        parts = {"token": v * w, "position": c * w, "attention": 4 * w * w,
                 "hidden": w * h + h, "vocab": h * v + v}
        counts.update({f"{model}.parts.{part}": n for part, n in parts.items()})
        counts[f"{model}.params"] = sum(parts.values())
    return counts


@pytest.mark.parametrize(("label", "name"),
                         [(label, "TrainedComparison") for label in TRAINED_ON])
def test_the_trained_part_counts_by_part_and_names_no_command(shown, label: str,
                                                               name: str) -> None:
    """Every model drawn with its parameters counted by part (recomputed from the sizes);
    results only with the bundled experiment, whose corpus is named; without one, what a
    comparison measures and no claim. Never a command."""
    from worksheet.results import BUNDLED

    manifest = _manifest(shown, label, name)
    ws = load_worksheet(WORKSHEETS[label])
    figures = {f["key"]: f["text"] for s in manifest["sections"] for f in s["figures"]}
    for key, count in _counts_by_part(ws.lesson.trained).items():
        assert figures[key] == f"{count:,}", key
    said = " ".join(c["text"] for c in manifest["captions"])
    for tooling in ("lecture ", "--", "build", "command", ".json", "not measured"):
        assert tooling not in said, tooling
    sections = [s["name"] for s in manifest["sections"]]
    if label == "four":  # trained sizes of its own: no experiment fits
        assert manifest["options"] == {"experiment": None}
        assert sections[-1] == "what a comparison measures"
        assert "perplexity" in said and "lowest" not in said and "in this run" not in said
        return
    document = json.loads((BUNDLED / "experiment.json").read_text(encoding="utf-8"))
    assert manifest["options"]["experiment"] == hashlib.sha256(
        (BUNDLED / "experiment.json").read_bytes()).hexdigest()
    assert document["corpus"]["title"] in said
    assert f"{sum(document['corpus']['documents'].values()):,} texts" in said
    assert f"{document['corpus']['documents']['test']:,} of them are held out" in said
    assert f"{document['training']['steps']:,} steps" in said
    assert sections[-5:] == ["perplexity", "perplexity, zoomed", "training time",
                             "continuations", "verdict"]
