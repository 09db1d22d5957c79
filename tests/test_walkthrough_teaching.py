"""What the head walkthrough and the opening story show a student, checked against a fresh
numpy computation: a later head's recap computes its message on screen (its query beside
its keys, its scores, the sum of their exponentials, its weights beside head 1's, its
largest weighted value rows adding up to the message); the first head writes out its top
source's contribution as weight × value row while the voice says it; the opening defines
query, key and value before it uses them; the readings draw each head's message.

Scenes run as dry runs (no video), as in ``test_scenes.py``."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pytest

from scenes.kit import shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "four")
SCENES = ("OneHeadTwoHeads", "SettingAndPerson", "HeadWalkthrough1", "HeadWalkthrough2")
WALKED = {label: load_worksheet(WORKSHEETS[label]).walkthrough for label in LABELS}
"""The sentence each worksheet walks through."""
ROLES = ("query", "key", "value")


@pytest.fixture(scope="module")
def shown(monkeypatch_module: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """Each scene's dry run (by worksheet label, then scene), later heads recapped."""
    monkeypatch_module.delenv("LECTURE_FULL_HEADS", raising=False)
    return dry_runs(SCENES, LABELS)

@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


@pytest.fixture(scope="module")
def sentence() -> dict[str, dict[str, Any]]:
    """The walkthrough sentence's arithmetic per worksheet, recomputed in numpy."""
    made = {}
    for label, path in ((label, WORKSHEETS[label]) for label in LABELS):
        ws = load_worksheet(path)
        made[label] = reference.sentence(ws.document, ws.walkthrough)
    return made


def number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def close(text: str, expected: float) -> bool:
    """Whether a displayed number shows ``expected`` to its last shown digit."""
    digits = re.search(r"\.(\d+)", text.split("e")[0])
    unit = 10.0 ** -(len(digits.group(1)) if digits else 0)
    if "e" in text:
        unit *= 10.0 ** int(text.split("e")[1])
    return abs(number(text) - float(expected)) <= unit / 2 + 1e-9 * max(1.0, abs(expected))


def section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """The texts on screen at the end of a section."""
    (found,) = [s["texts"] for s in result["sections"] if s["name"] == name]
    return found


def figures(texts: list[dict[str, Any]]) -> dict[str, str]:
    return {key: text for t in texts for key, text in t["figures"]}


def caption(result: dict[str, Any], words: str) -> tuple[int, dict[str, Any]]:
    (found,) = [(k, c) for k, c in enumerate(result["manifest"]["captions"])
                if words in c["template"]]
    return found


# --------------------------------------------------------------------------- the recap


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_puts_head_twos_query_beside_its_keys_with_one_score_each(
        shown, sentence, label: str) -> None:
    head = sentence[label]["heads"][1]
    on_screen = figures(section(shown[label]["HeadWalkthrough2"], "recap scores"))
    p, last = f"{WALKED[label]}.h2", len(head["K"]) - 1
    for c, q in enumerate(head["Q"][last]):
        assert close(on_screen[f"{p}.Q[{last}][{c}]"], q)
    for j, (key, score) in enumerate(zip(head["K"], head["scores"], strict=True)):
        for c, k in enumerate(key):
            assert close(on_screen[f"{p}.K[{j}][{c}]"], k), (j, c)
        assert close(on_screen[f"{p}.scores[{j}]"], score), j
        assert math.isclose(score, head["Q"][last] @ key / math.sqrt(len(key)))


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_shows_and_says_the_sum_of_the_exponentials(shown, sentence,
                                                                label: str) -> None:
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    on_screen = figures(section(result, "recap sum"))
    total = float(np.exp(head["scores"]).sum())
    assert close(on_screen[f"{WALKED[label]}.h2.denominator"], total)
    for j, e in enumerate(np.exp(head["scores"])):
        assert close(on_screen[f"{WALKED[label]}.h2.exps[{j}]"], e)
    _, said = caption(result, "add up to {t}")
    assert [f["key"] for f in said["figures"]] == [f"{WALKED[label]}.h2.denominator"]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_draws_head_twos_weights_beside_head_ones(shown, sentence,
                                                            label: str) -> None:
    result = shown[label]["HeadWalkthrough2"]
    (bars,) = [s["bars"] for s in result["manifest"]["sections"]
               if s["name"] == "recap weights"]
    count = len(sentence[label]["heads"][0]["weights"])
    assert {b["key"] for b in bars} == {f"{WALKED[label]}.h{h}.weights[{j}]" for h in (1, 2)
                                        for j in range(count)}
    head = sentence[label]["heads"][1]
    top = int(np.argmax(head["weights"]))
    _, said = caption(result, "Its largest, {x}")
    assert said["figures"][0]["key"] == f"{WALKED[label]}.h2.weights[{top}]"
    assert close(said["figures"][0]["text"], head["weights"][top])
    assert said["words"]["w"] == load_worksheet(WORKSHEETS[label]).sentences[WALKED[label]][top]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_adds_the_largest_weighted_value_rows_into_the_message(
        shown, sentence, label: str) -> None:
    """The line under the rows reads ``w × v + w × v + … = message``: its terms are the
    largest weights with their value rows, and they and the rest add up to the message."""
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    texts = section(result, "recap message")
    on_screen = figures(texts)
    for j, row in enumerate(head["V"]):
        for c, v in enumerate(row):
            assert close(on_screen[f"{WALKED[label]}.h2.V[{j}][{c}]"], v)
    terms = [t for t in texts if "×" in t["text"] and t["figures"]]  # not the header
    assert terms, "the message is written as a sum of weighted value rows"
    shown_sources = []
    for term in terms:
        weight_key = term["figures"][0][0]
        j = int(re.search(r"weights\[(\d+)\]", weight_key).group(1))
        assert [key for key, _ in term["figures"][1:]] == \
            [f"{WALKED[label]}.h2.V[{j}][{c}]" for c in range(len(head["V"][j]))]
        shown_sources.append(j)
    ranked = list(np.argsort(-head["weights"], kind="stable"))
    assert shown_sources == ranked[:len(shown_sources)]
    assert len(shown_sources) >= min(2, len(ranked))
    (tail,) = [t for t in texts if t["text"].lstrip("+ …").startswith("=")]
    message = [text for _, text in tail["figures"]]
    assert [key for key, _ in tail["figures"]] == \
        [f"{WALKED[label]}.h2.message[{c}]" for c in range(len(head["message"]))]
    written = sum(head["weights"][j] * head["V"][j] for j in shown_sources)
    rest = sum((head["weights"][j] * head["V"][j] for j in ranked[len(shown_sources):]),
               np.zeros_like(written))
    assert all(close(text, m) for text, m in zip(message, written + rest, strict=True))
    assert ("…" in tail["text"]) == (len(shown_sources) < len(ranked))
    # Every head's message stands under its own bars, head 1's for comparison.
    ones = sentence[label]["heads"][0]["message"]
    assert all(close(on_screen[f"{WALKED[label]}.h1.message[{c}]"], m) for c, m in enumerate(ones))


def test_the_recap_is_short(shown) -> None:
    """Read at caption pace; narrated, its sentences took 35 s (the limit is 40)."""
    assert shown["default"]["HeadWalkthrough2"]["manifest"]["duration"] <= 30.0


# --------------------------------------------------------------------------- head 1


def test_head_one_writes_the_top_contribution_as_weight_times_value(shown,
                                                                     sentence) -> None:
    head = sentence["default"]["heads"][0]
    result = shown["default"]["HeadWalkthrough1"]
    top = int(np.argmax(head["weights"]))
    width = len(head["V"][top])
    p = f"{WALKED['default']}.h1"
    keys = [f"{p}.weights[{top}]", *(f"{p}.V[{top}][{c}]" for c in range(width)),
            *(f"{p}.contributions[{top}][{c}]" for c in range(width))]
    (product,) = [t for t in section(result, "written product")
                  if [key for key, _ in t["figures"]] == keys]
    assert "×" in product["text"] and "=" in product["text"]
    shown_figures = [text for _, text in product["figures"]]
    assert close(shown_figures[0], head["weights"][top])
    for c in range(width):
        assert close(shown_figures[1 + c], head["V"][top][c])
        assert close(shown_figures[1 + width + c], head["weights"][top] * head["V"][top][c])
    k, said = caption(result, "In numbers")
    assert [f["key"] for f in said["figures"]] == keys
    # The weight, the value row and the product are each pointed at as the voice says them.
    assert sum(made == k for made, _, _ in result["pointed"]) >= 3


def selected(matrix: np.ndarray) -> list[int] | None:
    """The input feature each column of a hand-made selector copies, else ``None``."""
    nonzero = np.asarray(matrix) != 0
    return list(np.argmax(nonzero, axis=0)) if np.all(nonzero.sum(axis=0) == 1) else None


def header_named(texts: list[dict[str, Any]], base: str, features: list[str] | None) -> bool:
    """Whether a column header reads ``base (feature, feature)``, or just ``base``."""
    wanted = base if features is None else f"{base} ({', '.join(features)})"
    return any(t["text"] == wanted for t in texts)


def parameters(label: str) -> tuple[Any, dict[str, Any]]:
    ws = load_worksheet(WORKSHEETS[label])
    return ws, reference.values(json.loads(json.dumps(dict(ws.document))))


def caption_texts(result: dict[str, Any]) -> list[str]:
    return [c["text"] for c in result["manifest"]["captions"]]


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_names_what_each_key_and_value_coordinate_holds(shown, label: str) -> None:
    ws, ref = parameters(label)
    result = shown[label]["HeadWalkthrough1"]
    for kind, base, where in (("K", "key", "query and keys"), ("V", "value row", "values")):
        picked = selected(ref[f"params.h1.W_{kind}"])
        names = None if picked is None else [ws.lesson.features[i] for i in picked]
        assert header_named(section(result, where), base, names), (kind, names)


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_says_why_the_value_rows_repeat_the_keys(shown, label: str) -> None:
    """When the worksheet's W_V has W_K's entries, the values equal the keys: the scene says
    so on screen and aloud, and that they are still two parameters."""
    _, ref = parameters(label)
    same = np.array_equal(ref["params.h1.W_V"], ref["params.h1.W_K"])
    result = shown[label]["HeadWalkthrough1"]
    said = [t for t in caption_texts(result) if "W_V" in t and "W_K" in t]
    noted = [t["text"] for t in section(result, "values") if "W_V" in t["text"]]
    assert bool(said) == same and bool(noted) == same, (said, noted)
    if same:
        head = reference.sentence(json.loads(json.dumps(dict(load_worksheet(
            WORKSHEETS[label]).document))), WALKED[label])["heads"][0]
        assert np.array_equal(head["V"], head["K"])
        assert any("separate parameters" in t for t in caption_texts(result))


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_heads_the_scores_says_why_it_divides_and_names_the_softmax(
        shown, label: str) -> None:
    result = shown[label]["HeadWalkthrough1"]
    d_head = load_worksheet(WORKSHEETS[label]).d_head
    texts = section(result, "scaling")
    (header,) = [t for t in texts if t["text"].startswith(f"score = dot ÷ √{d_head} (= ")]
    assert close(dict(header["figures"])["dims.sqrt_d_head"], math.sqrt(d_head))
    captions = caption_texts(result)
    (why,) = [k for k, t in enumerate(captions) if "square root of the width" in t]
    assert f"key width is {d_head}" in captions[why]
    softmax = [k for k, t in enumerate(captions) if "softmax" in t]
    exps = next(k for k, t in enumerate(captions) if t.startswith("Exponentials"))
    assert softmax and softmax[0] > exps


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_shows_each_weighted_row_legibly_when_the_voice_says_it(
        shown, sentence, label: str) -> None:
    """As the voice says the top source keeps its weight of its row, that row's weighted
    numbers stand in the column; every weighted row is then written at the value rows'
    size (no specks)."""
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    p, top = f"{WALKED[label]}.h1", int(np.argmax(head["weights"]))
    # The section "contributions" ends with the sentence that says the top row is kept.
    k, _ = caption(result, "keeps {x} of its row")
    assert caption_texts(result)[k + 1].startswith("In numbers")
    at_once = figures(section(result, "contributions"))
    kept = head["weights"][top] * head["V"][top]
    for c, part in enumerate(kept):
        if c in shown_indices(len(kept)):
            assert close(at_once[f"{p}.contributions[{top}][{c}]"], part), c
    width = sum(i is not None for i in shown_indices(len(head["message"])))
    cells = {(t["figures"][0][0].split("[")[0].rsplit(".", 1)[1],
              int(t["figures"][0][0].split("[")[1].split("]")[0])): t
             for t in section(result, "written product") if len(t["figures"]) == width
             and t["figures"][0][0].startswith((f"{p}.contributions[", f"{p}.V["))}
    for j, (weight, row) in enumerate(zip(head["weights"], head["V"], strict=True)):
        part, value = cells[("contributions", j)], cells[("V", j)]
        for key, text in part["figures"]:
            c = int(key.rsplit("[", 1)[1].rstrip("]"))
            assert key.startswith(f"{p}.contributions[{j}]") and close(text, weight * row[c])
        height = lambda t: t["box"][3] - t["box"][1]  # noqa: E731
        assert height(part) >= 0.9 * height(value), j


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_notes_that_the_sums_use_unrounded_numbers(shown, sentence,
                                                            label: str) -> None:
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    texts = section(result, "message")
    assert any("unrounded" in t["text"] for t in texts)
    shown_parts = figures(texts)
    p = f"{WALKED[label]}.h1"
    # The note is needed: the rounded terms do not always add up to the rounded message.
    rounded = np.array([[number(shown_parts[f"{p}.contributions[{j}][{c}]"])
                         for c in range(len(head["message"]))]
                        for j in range(len(head["weights"]))]).sum(axis=0)
    if label == "default":
        assert any(abs(r - m) > 5e-4 for r, m in zip(rounded, head["message"], strict=True))


# --------------------------------------------------------------------------- recap layout


def header_box(texts: list[dict[str, Any]], text: str) -> list[float]:
    (found,) = [t["box"] for t in texts if t["text"] == text]
    return found


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_keeps_each_heads_exponentials_beside_its_own_weights(shown,
                                                                       label: str) -> None:
    """Head 2's exponentials, then head 2's weights made from them, then head 1's: no
    column of one head sits between the other head's exponentials and weights."""
    texts = section(shown[label]["HeadWalkthrough2"], "recap weights")
    exps, mine, first = (header_box(texts, name) for name in ("exp(score)", "Head 2", "Head 1"))
    assert exps[2] < mine[0] < first[0]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_works_one_score_out(shown, sentence, label: str) -> None:
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p, top = f"{WALKED[label]}.h2", int(np.argmax(head["scores"]))
    dot = head["Q"][-1] @ head["K"][top]
    score = dot / math.sqrt(len(head["K"][top]))
    _, said = caption(result, "scores highest")
    keys = [f["key"] for f in said["figures"]]
    width = len(head["K"][top])
    assert keys == ["dims.d_head", f"{p}.dots[{top}]", "dims.sqrt_d_head", f"{p}.scores[{top}]"]
    for f, expected in zip(said["figures"], (width, dot, math.sqrt(width), score),
                           strict=True):
        assert close(f["text"], expected)
    (worked,) = [t for t in section(result, "recap scores") if "÷" in t["text"]
                 and t["figures"] and t["figures"][-1][0] == f"{p}.scores[{top}]"]
    assert close(worked["figures"][-1][1], score)


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_shows_every_weighted_row_and_names_the_message_coordinates(
        shown, sentence, label: str) -> None:
    ws, ref = parameters(label)
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    texts = section(result, "recap message")
    on_screen = figures(texts)
    p = f"{WALKED[label]}.h2"
    for j, (weight, row) in enumerate(zip(head["weights"], head["V"], strict=True)):
        for c, expected in enumerate(weight * row):
            assert close(on_screen[f"{p}.contributions[{j}][{c}]"], expected), (j, c)
    picked = selected(ref["params.h2.W_V"])
    names = None if picked is None else [ws.lesson.features[i] for i in picked]
    assert header_named(texts, "value row", names)
    # The message's coordinates are named beside it.
    assert any(t["text"] == f"({', '.join(names)})" for t in texts) if names else True
    assert any("small weights" in t for t in caption_texts(result))


# --------------------------------------------------------------------------- the story


@pytest.mark.parametrize("label", list(LABELS))
def test_the_opening_defines_query_key_and_value_before_using_them(shown,
                                                                   label: str) -> None:
    result = shown[label]["OneHeadTwoHeads"]
    captions = [c["text"] for c in result["manifest"]["captions"]]
    first = next(k for k, text in enumerate(captions)
                 if re.search(r"\b(quer(y|ies)|keys?|values?)\b", text))
    definition = captions[first]
    for role in ROLES:
        assert re.search(rf"\ba {role} is\b", definition, re.IGNORECASE), definition


@pytest.mark.parametrize("label", list(LABELS))
def test_each_reading_draws_the_message_its_head_sends(shown, sentence,
                                                      label: str) -> None:
    result = shown[label]["SettingAndPerson"]
    heads = sentence[label]["heads"]
    for h, head in enumerate(heads, start=1):
        on_screen = figures(section(result, f"head {h}"))
        top = int(np.argmax(head["weights"]))
        assert close(on_screen[f"{WALKED[label]}.h{h}.weights[{top}]"], head["weights"][top])
        for c, (v, m) in enumerate(zip(head["V"][top], head["message"], strict=True)):
            assert close(on_screen[f"{WALKED[label]}.h{h}.V[{top}][{c}]"], v)
            assert close(on_screen[f"{WALKED[label]}.h{h}.message[{c}]"], m)
    together = figures(section(result, "side by side"))
    for h, head in enumerate(heads, start=1):
        assert all(close(together[f"{WALKED[label]}.h{h}.message[{c}]"], m)
                   for c, m in enumerate(head["message"]))
