"""The opening story teaches what its voice says: "head" is defined in plain words before a
head is named, the misleading clue is marked apart from the clue that decides, and the
recall works one source through in full (its dot product coordinate by coordinate, the
division by the square root of the head width, the softmax's exponential, sum and
quotient) and says why its values equal its keys.

Scenes run as dry runs (no video); expected numbers come from the worksheet document and
the float64 numpy recomputation in :mod:`tests.reference`, never from the scenes, and shown
texts are compared digit for digit with those numbers in the lecture's display format."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from scenes.kit import INK, MUTED, shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet
from worksheet.formatting import Style, format_number

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("SeveralKindsOfDetail", "MayaRecall")
LABELS = ("default", "three", "four", "wide")


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, dict[str, Any]]]:
    """Both scenes' dry runs on each worksheet, by worksheet label and scene."""
    return dry_runs(SCENES, LABELS)


@pytest.fixture(scope="module")
def head_one() -> dict[str, dict[str, Any]]:
    """Head 1's arithmetic for the walkthrough sentence's final receiver, per worksheet,
    recomputed in numpy, with the worksheet's name for it and its head width."""
    made = {}
    for label in LABELS:
        ws = load_worksheet(WORKSHEETS[label])
        head = reference.sentence(ws.document, ws.walkthrough)["heads"][0]
        params = reference.worksheet_values(ws.document)
        made[label] = {**head, "p": f"{ws.walkthrough}.h1", "last": ws.length - 1,
                       "top": int(np.argmax(head["weights"])), "d": head["Q"].shape[1],
                       "W_K": np.asarray(params["params.h1.W_K"]),
                       "W_V": np.asarray(params["params.h1.W_V"]),
                       "tokens": ws.sentences[ws.walkthrough], "length": ws.length}
    return made


def param(x: float) -> str:
    """A hand-chosen number or its exact product, as the lecture displays it."""
    return format_number(float(x), Style.PARAM)


def fixed(x: float) -> str:
    """A computed real, as the lecture displays it."""
    return format_number(float(x), Style.FIXED3)


def section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The texts on screen at the end of a section."""
    found = [s["texts"] for s in result["sections"] if s["name"] == name]
    assert found, f"no section {name!r}: {[s['name'] for s in result['sections']]}"
    return found[0]


def shown(result: dict[str, Any], name: str) -> set[str]:
    return {t["text"] for t in section(result, name)}


def captions(result: dict[str, Any]) -> list[str]:
    return [c["text"] for c in result["manifest"]["captions"]]


def said(result: dict[str, Any], text: str) -> int:
    """The index of the one caption that reads ``text`` exactly."""
    found = [k for k, c in enumerate(captions(result)) if c == text]
    assert len(found) == 1, (text, captions(result))
    return found[0]


# --------------------------------------------------------------------------- the recall


def dot_line(head: dict[str, Any]) -> str:
    """``q·k = q0 × k0 + … = p0 + … = dot`` for head 1's favourite source, elided as the
    lecture elides long rows."""
    q, k = head["Q"][head["last"]], head["K"][head["top"]]
    factors = ["…" if i is None else f"{param(q[i])} × {param(k[i])}"
               for i in shown_indices(head["d"])]
    products = ["…" if i is None else param(q[i] * k[i]) for i in shown_indices(head["d"])]
    return (f"q·k = {' + '.join(factors)} = {' + '.join(products)} = "
            f"{param(head['dots'][head['top']])}")


@pytest.mark.parametrize("label", LABELS)
def test_the_recall_writes_out_one_dot_product_coordinate_by_coordinate(
        runs, head_one, label: str) -> None:
    """The favourite source's match is worked on screen, each coordinate's product from
    the query and the key, while the voice names the source and the sum."""
    head, result = head_one[label], runs[label]["MayaRecall"]
    top = head["top"]
    assert math.isclose(head["dots"][top], float(head["Q"][head["last"]] @ head["K"][top]))
    assert dot_line(head) in shown(result, "keys")
    said(result, f"For “{head['tokens'][top]}”, multiply query and key coordinate by "
                 f"coordinate, then add: {param(head['dots'][top])}.")


@pytest.mark.parametrize("label", LABELS)
def test_the_recall_divides_the_match_by_the_root_of_the_head_width(runs, head_one,
                                                                    label: str) -> None:
    head, result = head_one[label], runs[label]["MayaRecall"]
    top, d = head["top"], head["d"]
    score = head["dots"][top] / math.sqrt(d)
    assert math.isclose(score, head["scores"][top])
    root = param(math.sqrt(d))
    assert (f"score = q·k ÷ √{d} = {param(head['dots'][top])} ÷ {root} = {fixed(score)}"
            in shown(result, "scores"))
    said(result, f"Divided by √{d}, which is {root}, “{head['tokens'][top]}” scores "
                 f"{fixed(score)}.")


@pytest.mark.parametrize("label", LABELS)
def test_the_recall_shows_the_softmax_exponential_sum_and_quotient_in_order(
        runs, head_one, label: str) -> None:
    """Exponential, sum over every source, quotient: each written with its numbers, and
    the weight is said only after the dot product and the score."""
    head, result = head_one[label], runs[label]["MayaRecall"]
    top = head["top"]
    exps = np.exp(head["dots"] / math.sqrt(head["d"]))
    e, t, w = exps[top], exps.sum(), exps[top] / exps.sum()
    assert math.isclose(w, head["weights"][top])
    on_screen = shown(result, "softmax")
    assert (f"weight = exp({fixed(head['scores'][top])}) ÷ sum of all exps = "
            f"{fixed(e)} ÷ {fixed(t)}") in on_screen
    quotient = [x for x in section(result, "softmax") if x["text"] == f"= {fixed(w)}"]
    assert len(quotient) == 1, on_screen
    soft = said(result, f"Softmax: the exponential of {fixed(head['scores'][top])} is "
                        f"{fixed(e)}; all {head['length']} exponentials sum to {fixed(t)}.")
    weight = said(result, f"So the weight is {fixed(e)} ÷ {fixed(t)} = {fixed(w)}.")
    dot = [k for k, c in enumerate(captions(result)) if c.endswith(
        f"then add: {param(head['dots'][top])}.")]
    score = [k for k, c in enumerate(captions(result)) if c.startswith("Divided by √")]
    assert dot and score and dot[0] < score[0] < soft < weight


def test_the_recall_says_and_shows_why_its_values_equal_its_keys(runs, head_one) -> None:
    """On the default worksheet W_V has W_K's entries: both matrices stand side by side,
    every entry shown, and the voice says it and what sets the roles apart."""
    head, result = head_one["default"], runs["default"]["MayaRecall"]
    assert np.array_equal(head["W_V"], head["W_K"])
    assert np.allclose(head["V"], head["K"])
    texts = section(result, "values")
    for name in ("W_K", "W_V"):
        assert name in {t["text"] for t in texts}
        matrix = head[name]
        for (i, c), x in np.ndenumerate(matrix):
            if c not in shown_indices(matrix.shape[1]):
                continue
            (cell,) = [t for t in texts if [f[0] for f in t["figures"]]
                       == [f"params.h1.{name}[{i}][{c}]"]]
            assert cell["text"] == param(x), (name, i, c)
    assert "same entries, chosen by hand" in {t["text"] for t in texts}
    said(result, "Each source also has a value; here W_V has the same entries as W_K, so "
                 "values equal keys.")
    said(result, "They stay separate parameters: keys decide the match, values carry what "
                 "is mixed.")


@pytest.mark.parametrize("label", ["three", "wide"])
def test_where_values_differ_from_keys_the_recall_claims_no_equality(runs, head_one,
                                                                    label: str) -> None:
    head, result = head_one[label], runs[label]["MayaRecall"]
    assert not np.array_equal(head["W_V"], head["W_K"])
    assert not any("same entries" in c for c in captions(result))
    said(result, "Each source also has a value, made by its own matrix W_V.")
    said(result, "They stay separate parameters: keys decide the match, values carry what "
                 "is mixed.")


# --------------------------------------------------------------------------- kinds of detail


def test_a_head_is_defined_in_plain_words_before_a_head_is_named(runs) -> None:
    """After the part's opening, the first sentence that says "head" defines it, and the
    definition stays on screen beside the first readings."""
    result = runs["default"]["SeveralKindsOfDetail"]
    told = captions(result)[1:]  # the first is the part's opening over the model map
    first = next(c for c in told if re.search(r"\bheads?\b", c))
    assert first == ("Each reader of the sentence is called a head: it forms its own "
                     "weights over the words.")
    coat = section(result, "coat")
    (definition,) = [t for t in coat if t["text"].startswith("head: ")]
    assert definition["text"] == "head: one reader that forms its own weights over the sentence"
    assert {"colour head", "material head", "shape head"} <= {t["text"] for t in coat}


def test_the_misleading_clue_is_named_and_drawn_apart_from_the_deciding_one(runs) -> None:
    """"gate" is muted and labelled misleading under itself; "dogs" keeps the ink and is
    labelled the agreement clue: the two never look alike."""
    texts = section(runs["default"]["SeveralKindsOfDetail"], "dogs")

    def only(text: str) -> dict[str, Any]:
        (found,) = [t for t in texts if t["text"] == text]
        return found

    def under(label: dict[str, Any], word: dict[str, Any]) -> bool:
        (left, _, right, top), (w_left, w_bottom, w_right, _) = label["box"], word["box"]
        return top < w_bottom and left < w_right and right > w_left

    gate, dogs = only("gate"), only("dogs")
    wrong, right = only("misleading"), only("agreement clue")
    assert gate["colours"] == [MUTED] and dogs["colours"] == [INK]
    assert wrong["colours"] == [MUTED] and right["colours"] == [INK]
    assert under(wrong, gate) and under(right, dogs)
    assert not under(wrong, dogs) and not under(right, gate)
