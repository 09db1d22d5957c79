"""The opening story read like the lesson: the Maya recall follows head 1's query for the
final token, names the source that head favours, and shows the whole weighted sum as its
message; the one-head and several-head pictures draw every arrow from a computed weight."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from outline import lecture_order
from tests import reference
from tests.conftest import DRY_RUNS
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, Worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("MayaRecall", "OneHeadTwoHeads")


@pytest.fixture(scope="module")
def shown(default_ws: Worksheet) -> dict[str, dict[str, Any]]:
    entries = [e for e in lecture_order(default_ws.n_heads) if e.name in SCENES]
    results = run_scenes([(entry, DEFAULT_WORKSHEET) for entry in entries])
    for result in results.values():
        assert result["error"] is None, result["error"]
    return {name: results[(str(DEFAULT_WORKSHEET), name)]["manifest"] for name in SCENES}


@pytest.fixture(scope="module")
def head_one(default_ws: Worksheet) -> dict[str, Any]:
    """Head 1's arithmetic for the final receiver, recomputed in numpy."""
    return reference.sentence(default_ws.document, default_ws.walkthrough)["heads"][0]


def number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def caption(manifest: dict[str, Any], words: str) -> dict[str, Any]:
    (found,) = (c for c in manifest["captions"] if words in c["template"])
    return found


def test_the_recall_reads_head_one_for_the_final_receiver(shown, head_one) -> None:
    query = caption(shown["MayaRecall"], "makes the query")
    assert [number(f["text"]) for f in query["figures"][1:]] == \
        pytest.approx(head_one["Q"][-1], abs=0.05)
    assert all(f["key"].startswith("river.h1.Q[9]") for f in query["figures"][1:])


def test_the_recall_names_the_source_head_one_favours(shown, default_ws, head_one) -> None:
    favourite = caption(shown["MayaRecall"], "gets the most")
    tokens = default_ws.sentences[default_ws.walkthrough]
    assert favourite["words"]["w"] == tokens[int(np.argmax(head_one["weights"]))] == "river"
    (weight,) = favourite["figures"]
    assert number(weight["text"]) == pytest.approx(max(head_one["weights"]), abs=0.0005)


def test_the_recalled_message_is_the_weighted_sum_over_every_source(shown, head_one) -> None:
    message = caption(shown["MayaRecall"], "give the message")
    total = sum(w * v for w, v in zip(head_one["weights"], head_one["V"], strict=True))
    assert [number(f["text"]) for f in message["figures"][1:]] == \
        pytest.approx(total, abs=0.0005)
    last = shown["MayaRecall"]["sections"][-1]
    assert {f["text"] for f in message["figures"][1:]} <= {f["text"] for f in last["figures"]}


def test_the_recall_is_a_short_scene(shown) -> None:
    assert 30 <= shown["MayaRecall"]["duration"] <= 60


def test_every_arrow_of_one_head_and_two_heads_is_a_computed_weight(shown) -> None:
    reads = set(shown["OneHeadTwoHeads"]["reads"])
    assert {"river.wide.weights", "river.h1.weights", "river.h2.weights"} <= reads


def test_head_counts_agree_in_english(shown) -> None:
    texts = [c["text"] for m in shown.values() for c in m["captions"]]
    assert "With 2 heads, the same receiver asks 2 queries at once, one per head." in texts
    assert not any("head count" in text for text in texts)
