"""The combine clips show what their voice names: W_O's rows and the joined row labelled by
head and feature, every term of the first coordinate's sum (the zero ones greyed), E′ for
every token, the updated row drawn as a row, probabilities that visibly add up to the
total, and the other context's messages, updated rows and shared word.

Scenes run as dry runs (no video); expected values come from the worksheet document and
the float64 numpy recomputation in :mod:`tests.reference`, never from the scenes."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from scenes.kit import HEAD_COLOURS, INK, MUTED, NEGATIVE, shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("ConcatOutputResidual", "PredictionMLP", "OtherContext")
LABELS = ("default", "four", "wide")
TOP_WORDS = 5
"""How many of the most probable words the prediction lists, before the other words."""


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, dict[str, Any]]]:
    """The three scenes' dry runs on each worksheet, by worksheet label and scene."""
    return dry_runs(SCENES, LABELS)

def texts(result: dict[str, Any], section: str) -> list[dict[str, Any]]:
    found = [s for s in result["sections"] if s["name"] == section]
    assert found, f"no section {section!r}: {[s['name'] for s in result['sections']]}"
    return found[0]["texts"]


def showing(found: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The texts that show the figure ``key``."""
    return [t for t in found if any(f[0] == key for f in t["figures"])]


def one(found: list[dict[str, Any]], key: str) -> dict[str, Any]:
    shown = showing(found, key)
    assert len(shown) == 1, (key, [t["text"] for t in shown])
    return shown[0]


def middle(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def setup(label: str) -> tuple[Any, dict[str, Any], str, int]:
    """``(worksheet, numpy values, walkthrough sentence, receiver index)``."""
    ws = load_worksheet(WORKSHEETS[label])
    return ws, reference.worksheet_values(ws.document), ws.walkthrough, ws.length - 1


@pytest.mark.parametrize("label", ["default", "four"])
def test_every_joined_coordinate_and_w_o_row_is_named_by_head_and_feature(runs,
                                                                          label: str) -> None:
    """"Head 2's person coordinate, 1.552" is findable: its head and feature stand over
    its cell of the joined row, and W_O's row for it is labelled "H2 person"."""
    ws, _, s, last = setup(label)
    found = texts(runs[label]["ConcatOutputResidual"], "one matrix")
    for i in range(ws.d_model):
        head, feature = i // ws.d_head + 1, ws.lesson.features[i]
        cell = one(found, f"{s}.joined[{last}][{i}]")["box"]
        over = {t["text"] for t in found
                if cell[0] <= middle(t["box"])[0] <= cell[2]
                and cell[3] <= t["box"][1] < cell[3] + 0.8}
        assert {f"H{head}", feature} <= over, (i, over)
        entries = [t["box"] for t in found if any(f[0].startswith(f"params.W_O[{i}][")
                                                 for f in t["figures"])]
        named = [t for t in found if t["text"] == f"H{head} {feature}"]
        beside = [t for t in named
                  if min(b[1] for b in entries) <= middle(t["box"])[1] <= max(b[3] for b in entries)
                  and t["box"][0] > max(b[2] for b in entries)]
        assert len(beside) == 1, (i, [t["box"] for t in named], entries)


def test_the_first_coordinate_shows_every_term_and_greys_the_zero_entries(runs) -> None:
    ws, numpy, s, last = setup("default")
    found = texts(runs["default"]["ConcatOutputResidual"], "first coordinate")
    W_O = numpy["params.W_O"]
    assert (W_O[:, 0] == 0).any(), "the default worksheet has terms that drop out"
    # a factor of the sum (not W_O's own entry, nor the product of the path followed)
    terms = [t for t in found if "×" in t["text"] and "=" not in t["text"]]
    for i in range(ws.d_model):
        term = one(terms, f"params.W_O[{i}][0]")
        assert any(f[0] == f"{s}.joined[{last}][{i}]" for f in term["figures"]), term["text"]
        colours = set(term["colours"])
        if W_O[i, 0] == 0:
            assert colours <= {MUTED, NEGATIVE}, (term["text"], colours)
            assert showing(found, f"{s}.update_terms[{i}][0]") == [], "a zero term drops out"
        else:
            assert HEAD_COLOURS[i // ws.d_head] in colours, (term["text"], colours)
            assert [t for t in showing(found, f"{s}.update_terms[{i}][0]")
                    if "×" not in t["text"]], f"term {i}'s product"
    assert [t for t in showing(found, f"{s}.delta[{last}][0]") if t["text"].startswith("= ")]


@pytest.mark.parametrize("label", ["default", "wide"])
def test_the_residual_shows_every_tokens_updated_row_the_receivers_bright(runs,
                                                                         label: str) -> None:
    ws, numpy, s, last = setup(label)
    found = texts(runs[label]["ConcatOutputResidual"], "residual")
    columns = [c for c in shown_indices(ws.d_model) if c is not None]
    for j in range(ws.length):
        for c in columns:
            key = f"{s}.E_prime[{j}][{c}]"
            shown = [t for t in showing(found, key) if t["text"] == t["figures"][0][1]]
            assert shown, key
            if numpy[f"{s}.E_prime"][j][c] < 0:
                continue  # negatives keep their own colour in every row
            expected = INK if j == last else MUTED
            assert any(t["figure_colours"] == [expected] for t in shown), (key, shown)


def test_the_updated_row_is_drawn_as_a_row_with_its_name_beside_it(runs) -> None:
    ws, _, s, last = setup("default")
    found = texts(runs["default"]["PredictionMLP"], "updated row")
    cells = [one(found, f"{s}.E_prime[{last}][{c}]")["box"]
             for c in shown_indices(ws.d_model) if c is not None]
    ys = [middle(box)[1] for box in cells]
    assert max(ys) - min(ys) < 0.05, ys
    assert all(a[2] < b[0] for a, b in pairwise(cells)), cells
    name = next(t["box"] for t in found if t["text"] == f"E′, last row: {ws.d_model} numbers")
    assert cells[0][1] <= middle(name)[1] <= cells[0][3]
    assert 0 < cells[0][0] - name[2] < 1.0, (name, cells[0])


def test_the_logits_are_listed_when_the_voice_counts_them_and_a_logit_is_defined(
        runs) -> None:
    _, numpy, s, last = setup("default")
    result = runs["default"]["PredictionMLP"]
    order = np.argsort(-numpy[f"{s}.probs"], kind="stable")[:TOP_WORDS]
    found = texts(result, "logits")
    for i in order:
        one(found, f"{s}.logits[{last}][{i}]")
    assert any("vocabulary words" in t["text"] for t in showing(found, "dims.vocab"))
    said = [c["text"] for c in result["manifest"]["captions"]]
    assert any("logit is a raw score" in text for text in said), said


def test_the_probabilities_visibly_add_up_to_the_total(runs) -> None:
    ws, numpy, s, _ = setup("default")
    found = texts(runs["default"]["PredictionMLP"], "probabilities")
    probs = numpy[f"{s}.probs"]
    order = np.argsort(-probs, kind="stable")
    words = [t for t in found if t["kind"] == "word"]
    listed = sorted(words, key=lambda t: -middle(t["box"])[1])
    assert [t["text"] for t in listed[:TOP_WORDS]] == [ws.vocab[i] for i in order[:TOP_WORDS]]
    rest, total = one(found, f"{s}.probs_rest[{TOP_WORDS}]"), one(found, f"{s}.probs_sum")
    values = compute_values(ws)
    assert abs(values.value(f"{s}.probs_rest[{TOP_WORDS}]")
               - (1 - probs[order[:TOP_WORDS]].sum())) < 1e-12
    assert abs(values.value(f"{s}.probs_sum") - 1) < 1e-12
    lowest_word = min(middle(t["box"])[1] for t in listed[:TOP_WORDS])
    assert middle(total["box"])[1] < middle(rest["box"])[1] < lowest_word
    other = next(t for t in found if t["text"] == "the other words")
    assert abs(middle(other["box"])[1] - middle(rest["box"])[1]) < 0.05
    every = next(t for t in found if t["text"] == f"all {len(ws.vocab)} words")
    assert abs(middle(every["box"])[1] - middle(total["box"])[1]) < 0.05


def test_the_two_jobs_read_alike(runs) -> None:
    found = texts(runs["default"]["PredictionMLP"], "two choices")
    lines = [t for t in found if t["text"].startswith(("attention weights", "vocabulary prob"))]
    assert len(lines) == 2
    assert lines[0]["colours"] == lines[1]["colours"] == [INK]


@pytest.mark.parametrize("label", ["default", "four"])
def test_each_context_shows_its_labelled_messages_and_updated_row(runs, label: str) -> None:
    """Each joined coordinate stands under the head it came from; the features stand
    between the messages and E′, so E′ (in the model's coordinates, not the heads') is
    named by feature alone, each name just under its message coordinate and just over
    its E′ coordinate."""
    ws, numpy, _, last = setup(label)
    found = texts(runs[label]["OtherContext"], "updated rows")
    names = {t["text"] for t in found}

    def near(box: list[float], text: str, above: bool) -> list[dict[str, Any]]:
        return [t for t in found if t["text"] == text
                and t["box"][0] < box[2] and box[0] < t["box"][2]
                and (box[3] <= t["box"][1] < box[3] + 0.8 if above
                     else box[1] - 0.8 < t["box"][3] <= box[1])]

    for name in ws.sentences:
        for c in shown_indices(ws.d_model):
            if c is None:
                continue
            message = one(found, f"{name}.joined[{last}][{c}]")["box"]
            updated = one(found, f"{name}.E_prime[{last}][{c}]")["box"]
            feature = ws.lesson.features[c]
            assert near(message, f"H{c // ws.d_head + 1}", above=True), (name, c)
            assert near(message, feature, above=False) == near(updated, feature, above=True)
            assert len(near(updated, feature, above=True)) == 1, (name, c)
            assert not [t for t in found if t["text"].startswith("H")
                        and t["box"][0] < updated[2] and updated[0] < t["box"][2]
                        and updated[3] <= t["box"][1] < message[1]], "no head over E′"
        assert {"messages", "E′"} <= names
    first, second = list(ws.sentences)[:2]
    assert not np.allclose(numpy[f"{first}.E_prime"][last], numpy[f"{second}.E_prime"][last])


def test_the_closing_sentence_names_the_word_both_contexts_share(runs) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    closing = runs["default"]["OtherContext"]["manifest"]["captions"][-1]
    shared = [t for t in ws.sentences["river"] if t in ws.sentences["cheque"]
              and t.lower() != ws.sentences["river"][-1].lower()]
    assert shared[0] == "bank"
    assert closing["words"].get("b") == "bank", closing["text"]
    assert "same receiver, same parameters" in closing["text"]


def test_the_head_labels_stand_on_one_line_with_room_between(runs) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    found = texts(runs["default"]["OtherContext"], "weights")
    labels = [t for t in found if t["text"].startswith("Head ")]
    assert len(labels) == ws.n_heads * len(ws.sentences)
    bottoms = [t["box"][1] for t in labels]
    assert max(bottoms) - min(bottoms) < 0.01, bottoms
    row = sorted(t["box"] for t in labels)
    gaps = [b[0] - a[2] for a, b in pairwise(row)]
    assert min(gaps) > 0.15, gaps
    weights = [t for t in found if any(".weights[" in f[0] for f in t["figures"])]
    for a in weights:  # the numbers in one token's row keep clear of each other's cells
        for b in weights:
            if a is not b and abs(middle(a["box"])[1] - middle(b["box"])[1]) < 0.05 \
                    and a["box"][2] < b["box"][0]:
                assert b["box"][0] - a["box"][2] > 0.25, (a["text"], b["text"])

