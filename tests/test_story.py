"""The opening story read like the lesson: the one-head and several-head pictures draw every
arrow from a computed weight, and count their heads in English."""

from __future__ import annotations

from typing import Any

import pytest

from outline import lecture_order
from tests.conftest import DRY_RUNS
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, Worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("OneHeadTwoHeads",)


@pytest.fixture(scope="module")
def shown(default_ws: Worksheet) -> dict[str, dict[str, Any]]:
    entries = [e for e in lecture_order(default_ws.n_heads) if e.name in SCENES]
    results = run_scenes([(entry, DEFAULT_WORKSHEET) for entry in entries])
    for result in results.values():
        assert result["error"] is None, result["error"]
    return {name: results[(str(DEFAULT_WORKSHEET), name)]["manifest"] for name in SCENES}


def test_every_arrow_of_one_head_and_two_heads_is_a_computed_weight(shown) -> None:
    reads = set(shown["OneHeadTwoHeads"]["reads"])
    assert {"river.wide.weights", "river.h1.weights", "river.h2.weights"} <= reads


def test_head_counts_agree_in_english(shown) -> None:
    texts = [c["text"] for m in shown.values() for c in m["captions"]]
    assert ("With 2 heads, the same receiver asks 2 queries at once, one per head; how each "
            "query is made comes in later clips.") in texts
    assert not any("head count" in text for text in texts)
