"""The trained comparison and the image patches say what their numbers make true: the model
the voice calls fastest has the lowest mean seconds, the one whose seeds "spread widely" has
the widest range (highest less lowest), the models are counted, not typed; the two patches
called twins are the first with equal rows, and "the same pixels" is said only when their
pixels are equal. Each choice is recomputed here in numpy from the experiment's JSON or the
worksheet, never read from the program."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import SHAPES_ON, TRAINED_ON, WORKSHEETS, dry_runs
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""


@pytest.fixture(scope="module")
def trained() -> dict[str, dict[str, Any]]:
    return {label: runs["TrainedComparison"]
            for label, runs in dry_runs(["TrainedComparison"], TRAINED_ON).items()}


@pytest.fixture(scope="module")
def patches() -> dict[str, dict[str, Any]]:
    return {label: runs["ImagePatches"]
            for label, runs in dry_runs(["ImagePatches"], SHAPES_ON).items()}


def _captions(result: dict[str, Any]) -> list[dict[str, Any]]:
    return result["manifest"]["captions"]


def _one(result: dict[str, Any], words: str) -> dict[str, Any]:
    (found,) = (c for c in _captions(result) if words in c["template"])
    return found


@pytest.mark.parametrize("label", TRAINED_ON)
def test_the_models_are_counted_never_typed(trained, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    count = 1 + len(ws.lesson.trained.heads)
    said = " ".join(c["text"] for c in _captions(trained[label]))
    assert "three" not in said.lower().split()
    keys = {f["key"] for c in _captions(trained[label]) for f in c["figures"]}
    assert "trained.model_count" in keys
    assert f"all {count} models" in said or f"{count} models" in said


def test_the_fastest_and_the_widest_spread_are_the_experiments(trained) -> None:
    """On the bundled experiment: the lowest mean seconds and the widest range, from the
    JSON's runs; the sentence's figures are that model's."""
    from worksheet.results import BUNDLED

    document = json.loads((BUNDLED / "experiment.json").read_text(encoding="utf-8"))
    models = ["mlp", *(f"heads{h}" for h in document["sizes"]["heads"])]
    seconds = {m: np.array([r["train_seconds"] for r in document["runs"] if r["model"] == m])
               for m in models}
    fastest = min(models, key=lambda m: seconds[m].mean())
    widest = max(models, key=lambda m: np.ptp(seconds[m]))
    result = trained["default"]
    said = _one(result, "has the lowest mean here")
    assert f"trained.results.{fastest}.seconds_mean" in {f["key"] for f in said["figures"]}
    spread = _one(result, "spread widely")
    assert {f["key"] for f in spread["figures"]} >= {f"trained.results.{widest}.seconds_low",
                                                     f"trained.results.{widest}.seconds_high"}


@pytest.mark.parametrize("label", SHAPES_ON)
def test_the_twin_patches_are_the_first_equal_rows_and_same_pixels_is_true(patches,
                                                                           label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    parts = reference.patches(json.loads(json.dumps(dict(ws.document))))
    rows, flat = parts["rows"], parts["flat"]
    pairs = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))
             if np.array_equal(rows[i], rows[j])]
    said = " ".join(c["text"] for c in _captions(patches[label]))
    if not pairs:
        assert "identical" not in said and "now differ" not in said
        return
    i, j = pairs[0]
    same = np.array_equal(flat[i], flat[j])
    assert ("hold the same pixels" in said) is bool(same)
    assert ("give identical rows" in said) is not bool(same)
    assert "now differ" in said
    (at,) = (k for k, c in enumerate(_captions(patches[label])) if "Two patches" in c["text"])
    outlined = {key.split("]")[0] + "]" for o in patches[label]["outlined"]
                if o["caption"] == at for key in o["keys"]}
    assert outlined == {f"patches.rows[{i}]", f"patches.rows[{j}]"}, outlined
