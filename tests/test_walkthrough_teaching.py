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
from scenes.kit.palette import HEAD_COLOURS
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
WALKED_TOKENS = {label: load_worksheet(WORKSHEETS[label]).sentences[WALKED[label]]
                 for label in LABELS}
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
    head, tokens = sentence[label]["heads"][1], WALKED_TOKENS[label]
    top = int(np.argmax(head["weights"]))
    _, said = caption(result, "gets weight")
    assert said["figures"][-1]["key"] == f"{WALKED[label]}.h2.weights[{top}]"
    assert close(said["figures"][-1]["text"], head["weights"][top])
    assert said["words"]["w"] == tokens[top]
    # Head 1's weight for the same word, said as its bars come in: "only" when it is less.
    mine = said["figures"][-1]["text"]
    _, said = caption(result, "Head {g} gave")
    assert said["words"]["w"] == tokens[top]
    (ones,) = [f for f in said["figures"] if not f["key"].startswith("dims.")]
    expected = sentence[label]["heads"][0]["weights"][top]
    assert ones["key"] == f"{WALKED[label]}.h1.weights[{top}]" and close(ones["text"], expected)
    assert ("only" in said["text"]) == (number(ones["text"]) < number(mine))


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_divides_the_same_word_by_each_heads_sum_and_says_why(shown, sentence,
                                                                        label: str) -> None:
    """Where head 1's bars come in beside head 2's, the top word's weight is worked out for
    both heads, ``exp ÷ sum = weight``: with the same score (fisherman's 3.415 in both),
    only the sums differ, so the voice says why head 1's is larger (river outscored it
    there) while both sums are outlined."""
    heads, tokens = sentence[label]["heads"], WALKED_TOKENS[label]
    result = shown[label]["HeadWalkthrough2"]
    top = int(np.argmax(heads[1]["weights"]))
    texts = section(result, "recap weights")
    for h, head in enumerate(heads[:2], start=1):
        p = f"{WALKED[label]}.h{h}"
        exps = np.exp(head["scores"])
        (worked,) = [t for t in texts if "÷" in t["text"] and t["figures"]
                     and t["figures"][0][0] == f"{p}.exps[{top}]"]
        assert [key for key, _ in worked["figures"]] == [
            f"{p}.exps[{top}]", f"{p}.denominator", f"{p}.weights[{top}]"]
        for (_, text), expected in zip(worked["figures"],
                                       (exps[top], exps.sum(), exps[top] / exps.sum()),
                                       strict=True):
            assert close(text, expected), (h, text, expected)
    k, said = caption(result, "Head {g} gave")
    leader = int(np.argmax(heads[0]["weights"]))
    why = leader != top and heads[0]["weights"][top] < heads[1]["weights"][top]
    assert ("outscored" in said["text"]) == why
    if not why:
        return
    # Head 1's leader scores above the top word in head 1, which makes head 1's sum larger.
    assert heads[0]["scores"][leader] > heads[0]["scores"][top]
    assert np.exp(heads[0]["scores"]).sum() > np.exp(heads[1]["scores"]).sum()
    assert said["words"]["u"] == tokens[leader]
    # As the reason is said, both sums are outlined, and the leader's bar in head 1.
    (why_outline,) = [o for o in result["outlined"] if o["caption"] == k
                      and f"{WALKED[label]}.h1.weights[{leader}]" in o["keys"]]
    for h in (1, 2):
        (total,) = [box for t in texts for (key, _), box in zip(t["figures"], t["pixels"],
                                                                strict=True)
                    if key == f"{WALKED[label]}.h{h}.denominator"]
        assert any(left <= total[0] and top <= total[1] and total[2] <= right
                   and total[3] <= bottom for left, top, right, bottom in why_outline["boxes"])
    if label == "default":  # the review's case: the same score, 3.415, in both heads
        assert math.isclose(heads[0]["scores"][top], heads[1]["scores"][top])


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_names_each_heads_coordinates_beside_its_message_as_they_join(
        shown, label: str) -> None:
    """Head 1's message is not on head 2's axes: each message in the joined row carries
    the features its coordinates hold, when each value coordinate copies one feature."""
    ws, ref = parameters(label)
    texts = section(shown[label]["HeadWalkthrough2"], "recap joined")
    for h in (1, 2):
        picked = selected(ref[f"params.h{h}.W_V"])
        if picked is None:
            continue
        names = [ws.lesson.features[i] for i in picked]
        assert any(t["text"] == f"({', '.join(names)})" for t in texts), (h, names)


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
    (tail,) = [t for t in texts if t["text"].startswith("= ")]
    message = [text for _, text in tail["figures"]]
    assert [key for key, _ in tail["figures"]] == \
        [f"{WALKED[label]}.h2.message[{c}]" for c in range(len(head["message"]))]
    written = sum(head["weights"][j] * head["V"][j] for j in shown_sources)
    rest = sum((head["weights"][j] * head["V"][j] for j in ranked[len(shown_sources):]),
               np.zeros_like(written))
    assert all(close(text, m) for text, m in zip(message, written + rest, strict=True))
    # The rows not written out appear as one sum, the rest, before the message.
    rests = [t for t in texts if t["figures"] and t["figures"][0][0].startswith(
        f"{WALKED[label]}.h2.rest[")]
    assert len(rests) == (len(shown_sources) < len(ranked))
    for term in rests:
        assert term["text"].startswith("+ [")
        assert [close(text, r) for (_, text), r in zip(term["figures"], rest, strict=True)] \
            == [True] * len(rest)
    # Head 1's bars have left: beside the products they would read as one of them.
    assert not any(key.startswith(f"{WALKED[label]}.h1.") for key in on_screen)
    assert not any(t["text"] == "Head 1" for t in texts)


def test_the_recap_is_short(shown) -> None:
    """Read at caption pace, within forty seconds: a recap, not a second walk (the first
    head's takes three minutes). Every step is still drawn (one worked score, the sum, the
    top weight as a division, both heads' bars, the weighted rows summed into the message,
    both messages side by side); the voice says one short sentence a step, naming its
    result (issue 24: the recap had grown to 85 s narrated)."""
    assert shown["default"]["HeadWalkthrough2"]["manifest"]["duration"] <= 40.0


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_reads_each_query_coordinate_by_the_feature_its_keys_hold(
        shown, sentence, label: str) -> None:
    """Head 2's query is said with what each of its coordinates asks for, a zero too:
    ``[2.3, 0]: 2.3 for person, 0 for glue``."""
    ws, ref = parameters(label)
    head = sentence[label]["heads"][1]
    first = shown[label]["HeadWalkthrough2"]["manifest"]["captions"][0]
    p, last = f"{WALKED[label]}.h2", len(head["K"]) - 1
    query = head["Q"][last]
    picked = selected(ref["params.h2.W_K"])
    coordinates = [c for c in shown_indices(len(query)) if c is not None]
    said = [f for f in first["figures"] if f["key"].startswith(f"{p}.Q[")]
    # Once each: in its reading when each key coordinate copies one feature, else as the
    # vector.
    assert [f["key"] for f in said] == [f"{p}.Q[{last}][{c}]" for c in coordinates]
    assert all(close(f["text"], query[c]) for f, c in zip(said, coordinates, strict=True))
    if picked is None:
        return
    for c in coordinates:
        feature = ws.lesson.features[picked[c]]
        assert first["words"][f"c{c}"] == feature
        assert f"{said[c]['text']} for {feature}" in first["text"], first["text"]
    if label == "default":  # the coordinate the review missed: a zero, said
        assert 0.0 in [float(query[c]) for c in coordinates]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_titles_head_one_only_while_it_is_shown(shown, label: str) -> None:
    result = shown[label]["HeadWalkthrough2"]
    bars = {s["name"]: {b["key"].split(".")[1] for b in s["bars"]}
            for s in result["manifest"]["sections"]}
    for name in ("recap scores", "recap sum", "recap division"):
        titles = [t["text"] for t in section(result, name)
                  if "Head" in t["text"] and t["font_size"] > 30]
        assert titles and not any("beside" in t for t in titles), (name, titles)
        assert "h1" not in bars[name], name
    (title,) = [t["text"] for t in section(result, "recap weights")
                if "Head" in t["text"] and t["font_size"] > 30]
    assert title == "Head 2, beside head 1" and bars["recap weights"] == {"h1", "h2"}
    (title,) = [t["text"] for t in section(result, "recap message")
                if "Head" in t["text"] and t["font_size"] > 30]
    assert title == "Head 2's message" and "h1" not in bars["recap message"]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_evaluates_its_top_weighted_value_row(shown, sentence, label: str) -> None:
    """``0.693 × [2.1, 0]`` written as the voice says the top weight, and its product,
    ``[1.455, 0.000]``, in the weight × value column, both outlined as it is said."""
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p, top = f"{WALKED[label]}.h2", int(np.argmax(head["weights"]))
    width = len(head["V"][top])
    coordinates = [c for c in shown_indices(width) if c is not None]
    k, said = caption(result, "scaled by its weight")
    assert [f["key"] for f in said["figures"]] == [f"{p}.weights[{top}]"]
    assert close(said["figures"][0]["text"], head["weights"][top])
    assert said["words"]["w"] == WALKED_TOKENS[label][top]
    texts = section(result, "recap message")
    (term,) = [t for t in texts if "×" in t["text"] and t["figures"]
               and t["figures"][0][0] == f"{p}.weights[{top}]"]
    keys = [f"{p}.weights[{top}]", *(f"{p}.V[{top}][{c}]" for c in coordinates)]
    assert [key for key, _ in term["figures"]] == keys
    expected = [head["weights"][top], *head["V"][top][coordinates]]
    assert all(close(text, e) for (_, text), e in zip(term["figures"], expected, strict=True))
    product = figures(texts)
    for c in coordinates:
        assert close(product[f"{p}.contributions[{top}][{c}]"],
                     head["weights"][top] * head["V"][top][c])
    pointed = {key for o in result["outlined"] if o["caption"] == k for key in o["keys"]}
    assert set(keys) | {f"{p}.contributions[{top}][{c}]" for c in coordinates} <= pointed


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_reads_head_twos_message(shown, sentence, label: str) -> None:
    """The message is read: its largest coordinate's feature (person), led by the top
    source (fisherman), when each value coordinate copies one feature."""
    ws, ref = parameters(label)
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p = f"{WALKED[label]}.h2"
    # The sentence that reads the message comes just before the join that ends the clip.
    last = result["manifest"]["captions"][-2]
    message = [f for f in last["figures"] if f["key"].startswith(f"{p}.message[")]
    coordinates = [c for c in shown_indices(len(head["message"])) if c is not None]
    assert [f["key"] for f in message] == [f"{p}.message[{c}]" for c in coordinates]
    assert all(close(f["text"], head["message"][c])
               for f, c in zip(message, coordinates, strict=True))
    picked = selected(ref["params.h2.W_V"])
    largest = int(np.argmax(np.abs(head["message"])))
    if picked is None or largest not in coordinates:
        assert "mostly" not in last["text"]
        return
    assert last["words"]["c"] == ws.lesson.features[picked[largest]]
    assert last["words"]["w"] == WALKED_TOKENS[label][int(np.argmax(head["weights"]))]
    assert f"mostly {last['words']['c']}, from “{last['words']['w']}”" in last["text"]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_works_one_division_out(shown, sentence, label: str) -> None:
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p, top = f"{WALKED[label]}.h2", int(np.argmax(head["weights"]))
    exps = np.exp(head["scores"])
    # Written out beside the bars, ``exp ÷ sum = weight``; the voice says its result.
    (worked,) = [t for t in section(result, "recap division") if "÷" in t["text"]
                 and t["figures"] and t["figures"][0][0] == f"{p}.exps[{top}]"]
    assert [key for key, _ in worked["figures"]] == [
        f"{p}.exps[{top}]", f"{p}.denominator", f"{p}.weights[{top}]"]
    for (_, text), expected in zip(worked["figures"],
                                   (exps[top], exps.sum(), exps[top] / exps.sum()),
                                   strict=True):
        assert close(text, expected)
    _, said = caption(result, "gets weight {x}")
    assert [(f["key"], f["text"]) for f in said["figures"]] == [tuple(worked["figures"][-1])]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_writes_what_the_small_weights_add_as_one_sum(shown, sentence,
                                                                label: str) -> None:
    """The rows past the two largest come into the message's sum as one term, labelled
    under it, while the voice says "the other rows", each of them outlined with it."""
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p = f"{WALKED[label]}.h2"
    ranked = np.argsort(-head["weights"], kind="stable")
    rest = (head["weights"][ranked[2:], None] * head["V"][ranked[2:]]).sum(axis=0)
    labels = [t for t in section(result, "recap message") if t["text"] == "the other sources"]
    if len(ranked) <= 3:  # every term is written out: no rest to speak of
        assert not labels
        return
    # The rest is labelled: which rows it sums, right under it.
    (written,) = [t for t in section(result, "recap message") if t["figures"]
                  and t["figures"][0][0].startswith(f"{p}.rest[")]
    (under,) = labels
    assert under["box"][3] < written["box"][1]
    assert under["box"][0] < (written["box"][0] + written["box"][2]) / 2 < under["box"][2]
    assert [close(text, r) for (_, text), r in zip(written["figures"], rest, strict=True)] \
        == [True] * len(rest)
    k, _ = caption(result, "the other rows")
    pointed = [set(o["keys"]) for o in result["outlined"] if o["caption"] == k]
    (together,) = [keys for keys in pointed if any(key.startswith(f"{p}.rest[") for key in keys)]
    width = len(head["message"])
    for j in ranked[2:]:
        assert {f"{p}.contributions[{j}][{c}]" for c in shown_indices(width)
                if c is not None} <= together, j


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
    k, said = caption(result, "In numbers, with the unrounded weight")
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
    # That they are still two parameters is said where the roles are introduced, not again
    # over a note that does not show it.
    assert not any("separate parameters" in t for t in caption_texts(result))


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
    assert any(f"key width is {d_head}" in t for t in captions[why - 1:why + 1])
    softmax = [k for k, t in enumerate(captions) if "softmax" in t]
    exps = next(k for k, t in enumerate(captions) if "exponential widens" in t)
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


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_numbers_the_rows_and_marks_the_receiver(shown, label: str) -> None:
    """Three rows may read "the": each row carries its position, and the receiver's row
    (the last) is drawn in the head's colour and named with its position."""
    ws = load_worksheet(WORKSHEETS[label])
    tokens = ws.sentences[WALKED[label]]
    result = shown[label]["HeadWalkthrough1"]
    texts = section(result, "query and keys")
    numbers = {t["figures"][0][0]: t for t in texts
               if len(t["figures"]) == 1 and t["figures"][0][0].startswith("dims.positions[")}
    expected = np.arange(1, len(tokens) + 1)
    assert [numbers[f"dims.positions[{j}]"]["text"] for j in range(len(tokens))] == \
        [str(n) for n in expected]
    rows = sorted((t for t in texts if t["kind"] == "word"), key=lambda t: -t["box"][1])
    assert [t["text"] for t in rows] == list(tokens)
    colour = HEAD_COLOURS[0].lower()
    assert [colour in [c.lower() for c in t["colours"]] for t in rows] == \
        [False] * (len(tokens) - 1) + [True]
    last = numbers[f"dims.positions[{len(tokens) - 1}]"]
    assert abs((last["box"][1] + last["box"][3]) - (rows[-1]["box"][1] + rows[-1]["box"][3])) < 0.2
    _, said = caption(result, "at position {n}")
    assert said["words"]["r"] == tokens[-1] and said["figures"][0]["text"] == str(expected[-1])


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_shows_the_exponential_widening_the_top_gap(shown, sentence,
                                                             label: str) -> None:
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    first, second = np.argsort(-head["weights"], kind="stable")[:2]
    _, said = caption(result, "widens the gaps")
    p = f"{WALKED[label]}.h1"
    a, b = head["scores"][[first, second]]
    if b <= 0:  # no ratio to compare: the four numbers alone
        assert [f["key"] for f in said["figures"]] == [
            f"{p}.scores[{first}]", f"{p}.scores[{second}]", f"{p}.exps[{first}]",
            f"{p}.exps[{second}]"]
        assert np.exp(a) - np.exp(b) > a - b > 0
        return
    # The gap said and drawn as a ratio: a few times between the scores, many between
    # their exponentials.
    assert [f["key"] for f in said["figures"]] == [
        f"{p}.scores[{first}]", f"{p}.scores[{second}]", f"{p}.score_gap",
        f"{p}.exps[{first}]", f"{p}.exps[{second}]", f"{p}.exp_gap"]
    expected = (a, b, a / b, np.exp(a), np.exp(b), np.exp(a - b))
    for f, value in zip(said["figures"], expected, strict=True):
        assert close(f["text"], value)
    assert np.exp(a - b) > a / b > 1  # the gap the voice says widens, widens
    texts = section(result, "exponentials")
    on_screen = figures(texts)
    assert close(on_screen[f"{p}.score_gap"], a / b)
    assert close(on_screen[f"{p}.exp_gap"], np.exp(a - b))
    # The ratios are labelled as the top source over the second (not column totals), and
    # each pair is outlined as it is read, before its ratio: the review saw the scores
    # never boxed and the box on one ratio while the voice read the other.
    tokens = WALKED_TOKENS[label]
    assert any(t["text"] == f"{tokens[first]} ÷ {tokens[second]}" for t in texts)
    k, _ = caption(result, "widens the gaps")
    steps = [set(o["keys"]) for o in result["outlined"] if o["caption"] == k]
    assert steps == [{f"{p}.scores[{first}]", f"{p}.scores[{second}]"}, {f"{p}.score_gap"},
                     {f"{p}.exps[{first}]", f"{p}.exps[{second}]"},
                     {f"{p}.score_gap", f"{p}.exp_gap"}]


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_divides_the_top_exponential_by_the_sum_and_says_the_bars_are_rounded(
        shown, sentence, label: str) -> None:
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    p, top = f"{WALKED[label]}.h1", int(np.argmax(head["weights"]))
    total = np.exp(head["scores"]).sum()
    keys = [f"{p}.exps[{top}]", f"{p}.denominator", f"{p}.weights[{top}]"]
    (line,) = [t for t in section(result, "dividing") if "÷" in t["text"]]
    assert [key for key, _ in line["figures"]] == keys
    for (_, text), expected in zip(line["figures"], (np.exp(head["scores"][top]), total,
                                                      np.exp(head["scores"][top]) / total),
                                   strict=True):
        assert close(text, expected)
    k, said = caption(result, "{e} ÷ {t} = {w}")
    assert [f["key"] for f in said["figures"]] == keys
    rounded, _ = caption(result, "rounded weights")
    assert rounded == k + 1
    assert [f["key"] for f in caption(result, "rounded weights")[1]["figures"]] == \
        [f"{p}.weights_sum"]
    if label == "default":  # why it is said: the shown bars do not add up to one
        assert abs(np.round(head["weights"], 3).sum() - 1.0) > 5e-4


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_heads_the_query_column_with_whose_query_it_is(shown, sentence,
                                                               label: str) -> None:
    """Only the receiver has a query here: the column's header names it, its numbers stand
    above the header, and the rows hold copies."""
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    p, last = f"{WALKED[label]}.h1", len(head["K"]) - 1
    query = head["Q"][last]
    coordinates = [c for c in shown_indices(len(query)) if c is not None]
    for name in ("query and keys", "dot products"):
        texts = section(result, name)
        assert not any(t["text"] == "query" for t in texts), name
    texts = section(result, "query and keys")
    (header,) = [t for t in texts if t["text"] == f"query of “{WALKED_TOKENS[label][last]}”"]
    (line,) = [t for t in texts if t["text"].startswith("q = [")]
    assert [key for key, _ in line["figures"]] == [f"{p}.Q[{last}][{c}]" for c in coordinates]
    assert all(close(text, query[c])
               for (_, text), c in zip(line["figures"], coordinates, strict=True))
    assert line["box"][1] > header["box"][3]  # the numbers above the header
    assert line["box"][0] < header["box"][2] and header["box"][0] < line["box"][2]
    cells = [t for t in texts if t is not line and t["figures"]
             and t["figures"][0][0] == f"{p}.Q[{last}][{coordinates[0]}]"]
    assert len(cells) == len(head["K"])  # the receiver's own, and a copy in every other row
    assert all(header["box"][1] > cell["box"][3] for cell in cells)  # above the rows


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_draws_one_score_as_its_dot_over_the_root(shown, sentence,
                                                          label: str) -> None:
    """√d is drawn with its numbers: ``6.9 ÷ √2 = 6.9 ÷ 1.414 = 4.879`` for the top row."""
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    p, top = f"{WALKED[label]}.h1", int(np.argmax(head["scores"]))
    width = len(head["K"][top])
    dot = head["Q"][-1] @ head["K"][top]
    keys = [f"{p}.dots[{top}]", "dims.d_head", f"{p}.dots[{top}]", "dims.sqrt_d_head",
            f"{p}.scores[{top}]"]
    (worked,) = [t for t in section(result, "scaling")
                 if [key for key, _ in t["figures"]] == keys]
    assert "√" in worked["text"] and worked["text"].count("÷") == 2
    for (_, text), expected in zip(worked["figures"], (dot, width, dot, math.sqrt(width),
                                                       dot / math.sqrt(width)), strict=True):
        assert close(text, expected)
    _, said = caption(result, "divided by √{d}")
    assert [f["key"] for f in said["figures"]][-3:] == keys[2:]
    assert said["words"]["w"] == WALKED_TOKENS[label][top]


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_writes_the_softmax_over_its_two_columns(shown, label: str) -> None:
    result = shown[label]["HeadWalkthrough1"]
    texts = section(result, "weights")
    (name,) = [t for t in texts if t["text"] == "softmax"]
    headers = [next(t for t in texts if t["text"] == text) for text in ("exp(score)", "weight")]
    assert all(name["box"][1] > h["box"][3] for h in headers)  # above both headers
    middle = (name["box"][0] + name["box"][2]) / 2
    assert headers[0]["box"][0] < middle < headers[1]["box"][2]


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_draws_where_its_message_goes_next(shown, label: str) -> None:
    """The join is drawn, not only said: every head's slot on the line under the rows,
    beside the message."""
    ws = load_worksheet(WORKSHEETS[label])
    result = shown[label]["HeadWalkthrough1"]
    texts = section(result, "next")
    (message,) = [t for t in texts if t["text"].startswith("message = ")]
    slots = [t for t in texts if len(t["figures"]) == 1 and t["figures"][0][0].startswith(
        "dims.head_numbers[") and t["text"] == f"Head {t['figures'][0][1]}"]
    assert sorted(t["figures"][0] for t in slots) == \
        [(f"dims.head_numbers[{h}]", str(h + 1)) for h in range(ws.n_heads)]
    low, high = message["box"][1], message["box"][3]
    assert all(low - 0.1 < (t["box"][1] + t["box"][3]) / 2 < high + 0.1 for t in slots)
    assert all(t["box"][2] < message["box"][0] for t in slots)


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_shows_why_it_divides_by_the_root_of_the_width(shown, sentence,
                                                              label: str) -> None:
    """Beside the scores, one source's products added at the head's width and at the
    width of every head's keys joined: more products, a larger dot, and its score held
    back by the square root of the wider width."""
    heads = sentence[label]["heads"]
    result = shown[label]["HeadWalkthrough1"]
    ws = load_worksheet(WORKSHEETS[label])
    texts = section(result, "scaling")
    _, said = caption(result, "a wider key adds more products")
    (source,) = {int(f["key"].split("[")[1].rstrip("]")) for f in said["figures"]
                 if ".dots[" in f["key"]}
    assert said["words"]["u"] == WALKED_TOKENS[label][source]
    narrow = heads[0]["Q"][-1] @ heads[0]["K"][source]
    wide = sum(h["Q"][-1] @ h["K"][source] for h in heads)  # every head's keys joined
    joined = ws.d_head * ws.n_heads
    on_screen = figures(texts)
    assert close(on_screen[f"{WALKED[label]}.wide.dots[{source}]"], wide)
    assert close(on_screen[f"{WALKED[label]}.h1.dots[{source}]"], narrow)
    assert close(on_screen[f"{WALKED[label]}.wide.scores[{source}]"], wide / math.sqrt(joined))
    assert close(on_screen["dims.joined"], joined)
    (card,) = [t for t in texts if t["text"] == f"key width {joined}, more features:"]
    assert card
    if label == "default":  # the example the voice gives grows with the width
        assert abs(wide) > abs(narrow)
    if narrow == 0 or wide / narrow / math.sqrt(ws.n_heads) <= 1:
        assert not [c for c in caption_texts(result) if c.startswith("Undivided")]
        return
    # Twice the width: the dot product doubles, the score grows by √2 only; said, drawn,
    # and why it matters.
    growth = wide / narrow
    _, said = caption(result, "Undivided")
    keys = {f["key"]: f["text"] for f in said["figures"]}
    name = WALKED[label]
    assert close(keys[f"{name}.wide.dot_growth"], growth)
    assert close(keys[f"{name}.wide.score_growth"], growth / math.sqrt(ws.n_heads))
    assert close(keys[f"{name}.h1.scores[{source}]"], narrow / math.sqrt(ws.d_head))
    assert close(on_screen[f"{name}.wide.dot_growth"], growth)
    assert close(on_screen[f"{name}.wide.score_growth"], growth / math.sqrt(ws.n_heads))
    if label == "default":
        assert close(keys[f"{name}.wide.dot_growth"], 2.0)
        assert close(keys[f"{name}.wide.score_growth"], math.sqrt(2))
    k, _ = caption(result, "Undivided")
    assert "nearly all the weight to one token" in caption_texts(result)[k + 1]


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_outlines_each_coordinate_column_as_it_adds_it(shown, sentence,
                                                              label: str) -> None:
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    p = f"{WALKED[label]}.h1"
    k, said = caption(result, "one coordinate at a time")
    assert "the first coordinates make" in said["text"]
    coordinates = [c for c in shown_indices(len(head["message"])) if c is not None]
    assert [f["key"] for f in said["figures"]] == [f"{p}.message[{c}]" for c in coordinates]
    assert all(close(f["text"], head["message"][c])
               for f, c in zip(said["figures"], coordinates, strict=True))
    assert caption_texts(result)[k + 1].startswith("The sums use the unrounded numbers")


def test_head_one_outlines_the_coordinate_it_reads(shown, sentence) -> None:
    """"Its largest coordinate is water" outlines that coordinate of the message (2.617),
    not the whole message or a row."""
    result = shown["default"]["HeadWalkthrough1"]
    head = sentence["default"]["heads"][0]
    p, c = f"{WALKED['default']}.h1", int(np.argmax(np.abs(head["message"])))
    k, _ = caption(result, "largest coordinate is {c}")
    (message,) = [t for t in section(result, "message") if t["text"].startswith("message = ")]
    placed = dict(zip((key for key, _ in message["figures"]), message["pixels"], strict=True))
    figure = placed[f"{p}.message[{c}]"]
    assert close(dict(message["figures"])[f"{p}.message[{c}]"], head["message"][c])
    left, top, right, bottom = result["outlined"][[o["caption"] for o in
                                                   result["outlined"]].index(k)]["boxes"][0]
    assert left <= figure[0] and right >= figure[2] and top <= figure[1] and \
        bottom >= figure[3]
    assert right - left < 2.5 * (figure[2] - figure[0])  # that number, not the message


@pytest.mark.parametrize("label", list(LABELS))
def test_head_one_ends_on_what_its_message_means_and_where_it_goes(shown, sentence,
                                                                  label: str) -> None:
    ws, ref = parameters(label)
    head = sentence[label]["heads"][0]
    result = shown[label]["HeadWalkthrough1"]
    captions = caption_texts(result)
    largest = int(np.argmax(np.abs(head["message"])))
    picked = selected(ref["params.h1.W_V"])
    if picked is not None:
        _, said = caption(result, "largest coordinate is {c}")
        assert said["words"]["c"] == ws.lesson.features[picked[largest]]
        assert said["words"]["w"] == ws.sentences[WALKED[label]][int(np.argmax(head["weights"]))]
        assert said["words"]["role"] == ws.lesson.head_names[0]
    assert "joined with the other heads" in captions[-1]


# --------------------------------------------------------------------------- recap layout


def header_box(texts: list[dict[str, Any]], text: str) -> list[float]:
    (found,) = [t["box"] for t in texts if t["text"] == text]
    return found


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_keeps_each_heads_exponentials_beside_its_own_weights(shown,
                                                                       label: str) -> None:
    """Head 2's exponentials, then head 2's weights made from them; the exponentials and
    their sum leave as head 1's weights come in (a review read them as head 1's source)."""
    result = shown[label]["HeadWalkthrough2"]
    texts = section(result, "recap division")
    exps, mine = (header_box(texts, name) for name in ("exp(score)", "Head 2"))
    assert exps[2] < mine[0]
    texts = section(result, "recap weights")
    mine, first = (header_box(texts, name) for name in ("Head 2", "Head 1"))
    assert mine[2] < first[0]
    assert not [t for t in texts if t["text"] in ("exp(score)",) or
                t["text"].startswith("sum = ")]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_works_one_score_out(shown, sentence, label: str) -> None:
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p, top = f"{WALKED[label]}.h2", int(np.argmax(head["scores"]))
    dot = head["Q"][-1] @ head["K"][top]
    score = dot / math.sqrt(len(head["K"][top]))
    width = len(head["K"][top])
    # The voice names the top score; the screen works it out, under a header that says
    # how every score is made.
    _, said = caption(result, "highest")
    assert said["words"]["w"] == WALKED_TOKENS[label][top]
    assert said["figures"][-1]["key"] == f"{p}.scores[{top}]"
    assert close(said["figures"][-1]["text"], score)
    texts = section(result, "recap scores")
    (header,) = [t for t in texts if t["text"].startswith("score = q·k ÷ √")]
    assert [tuple(f) for f in header["figures"]] == [("dims.d_head", str(width))]
    (worked,) = [t for t in texts if "÷" in t["text"]
                 and t["figures"] and t["figures"][-1][0] == f"{p}.scores[{top}]"]
    assert close(worked["figures"][-1][1], score)
    assert close(dict(worked["figures"])["dims.sqrt_d_head"], math.sqrt(width))
    # Two equations, not one chain: the dot product is not the score.
    products, division = worked["text"].split(";")
    shown_dot = dict(worked["figures"])[f"{p}.dots[{top}]"]
    assert close(shown_dot, dot)
    assert products.rstrip().endswith(f"= {shown_dot}") and "÷" not in products
    assert division.strip().startswith(f"{shown_dot} ÷")


@pytest.mark.parametrize("label", list(LABELS))
def test_the_recap_adds_the_next_largest_term_as_the_other_rows_are_said(shown, sentence,
                                                                         label: str) -> None:
    """The written terms after the largest come into the sum as the voice turns to the
    other rows, each outlined with its row's weight and value row."""
    head = sentence[label]["heads"][1]
    result = shown[label]["HeadWalkthrough2"]
    p = f"{WALKED[label]}.h2"
    ranked = [int(j) for j in np.argsort(-head["weights"], kind="stable")]
    k, said = caption(result, "Adding the other rows")
    assert said["text"].startswith("Adding the other rows, the message is [")
    later = ranked[1:2] if len(ranked) > 3 else ranked[1:]  # the rest is one sum
    pointed = {key for o in result["outlined"] if o["caption"] == k for key in o["keys"]}
    for j in later:
        assert f"{p}.weights[{j}]" in pointed, j
        assert {f"{p}.V[{j}][{c}]" for c in range(len(head["V"][j]))} <= pointed, j


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
    # The rows left out of the written sum are named as one, where there are any.
    labelled = any(t["text"] == "the other sources" for t in texts)
    assert labelled == (len(head["weights"]) > 3)


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
