"""The opening story teaches what its voice says: the recall of query, key and value comes
right after the prompt, before any head is split off, opening on one attention (one row
branching into a query, a key and a value, no heads), with the Maya sentence on screen and
our sentence's blank after its receiver; "head" is defined in plain words before a head is
named; the misleading clue is marked apart from the clue that decides; the one head's value
rows are named and summed into its message, and each head is shown on its own; the toy
draws each head's value map, keeps one head's result beside the two heads', names the
person detail on screen and ends on its caveat; no two arrows cross and no outline cuts a
bracket.

Scenes run as dry runs (no video); expected numbers come from the worksheet document and
the float64 numpy recomputation in :mod:`tests.reference`, never from the scenes, and shown
texts are compared digit for digit with those numbers in the lecture's display format."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from outline import PARTS, lecture_order, part
from scenes.kit import HEAD_COLOURS, INK, MUTED, shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import ENTRIES, WORKSHEETS, dry_runs
from worksheet import load_worksheet
from worksheet.formatting import Style, format_number

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("RiverBankPrompt", "SeveralKindsOfDetail", "OneHeadTwoHeads", "SettingAndPerson",
          "MayaRecall")
LABELS = ("default", "four", "wide")
"""Two, four and one heads; three heads are covered by the scene rules (on seed-three-heads)."""


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, dict[str, Any]]]:
    """The story scenes' dry runs on each worksheet, by worksheet label and scene."""
    return dry_runs(SCENES, LABELS)


@pytest.fixture(scope="module")
def lessons() -> dict[str, dict[str, Any]]:
    """Per worksheet: the worksheet, its walkthrough sentence recomputed in numpy (every
    head's arithmetic for the final receiver), its values recomputed in numpy, and the
    walkthrough's tokens."""
    made = {}
    for label in LABELS:
        ws = load_worksheet(WORKSHEETS[label])
        made[label] = {"ws": ws, "sentence": reference.sentence(ws.document, ws.walkthrough),
                       "values": reference.worksheet_values(ws.document),
                       "tokens": ws.sentences[ws.walkthrough], "last": ws.length - 1}
    return made


@pytest.fixture(scope="module")
def head_one(lessons) -> dict[str, dict[str, Any]]:
    """Head 1's arithmetic for the walkthrough sentence's final receiver, per worksheet,
    with the worksheet's name for it."""
    return {label: {**lesson["sentence"]["heads"][0], "p": f"{lesson['ws'].walkthrough}.h1",
                    "last": lesson["last"], "tokens": lesson["tokens"]}
            for label, lesson in lessons.items()}


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


def test_the_recall_comes_right_after_the_prompt_before_any_head_is_split() -> None:
    """Clips 03-04 use the words query, key and value: the recall is its own part, the
    second, about the heads; no later part repeats its clip."""
    ids = [p.id for p in PARTS]
    assert ids[:3] == ["prompt", "recall", "details"]
    recall = part("recall")
    assert recall.scenes == (("story", "MayaRecall", "Recall: query, key and value"),)
    assert recall.steps == ("heads",) and recall.opening
    assert all("MayaRecall" not in (name for _, name, _ in p.scenes) for p in PARTS
               if p.id != "recall")
    for label, entries in ENTRIES.items():
        names = [e.name for e in entries]
        assert names[:3] == ["RiverBankPrompt", "MayaRecall", "SeveralKindsOfDetail"], label
        assert names.index("MayaRecall") < names.index("OneHeadTwoHeads")
    assert [e.name for e in lecture_order(2) if e.part == "roles-shapes"] == ["RolesAndShapes"]


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_stays_in_words_and_leaves_the_arithmetic_to_the_clips_after(
        runs, head_one, label: str) -> None:
    """Clips 07 and 08 derive head 1's numbers step by step: the recall shows none of them
    (no query, key, score, weight or message of any head), only the Maya example, how a
    match becomes a weight, and our sentence's receiver; it promises no numbers it does not
    show, and says where the numbers come."""
    head, result = head_one[label], runs[label]["MayaRecall"]
    figures = {f["key"] for c in result["manifest"]["captions"] for f in c["figures"]}
    figures |= {f[0] for s in result["sections"] for t in s["texts"] for f in t["figures"]}
    assert not [key for key in figures if key.startswith(head["p"].split(".")[0] + ".")]
    named = {key for key in figures if key.startswith("dims.head_numbers[")}  # the heads
    assert figures - named <= {"dims.tokens"}, figures
    told = captions(result)
    assert told[0] == part("recall").opening
    assert result["manifest"]["where"] == ["heads"]
    assert told[1:3] == ["In Part II's example, at “She”, the query looks for a person.",
                         "Maya's key offers one: a good match."]
    assert "score" in told[3] and "softmax" in told[3] and "square root" not in told[3]
    assert told[4] == "So “She” receives mostly Maya's value, scaled by her weight."
    assert told[5] == "Our own sentence stops at a blank: the next word, to predict."
    assert told[6] == (f"The word before it, the final “{head['tokens'][head['last']]}”, asks, "
                       "as “She” did.")
    assert "step by step" in told[-1]
    assert not any("with numbers" in c or "in numbers" in c for c in told)
    assert 25 <= result["manifest"]["duration"] <= 40


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_opens_on_one_attention_with_no_heads(runs, label: str) -> None:
    """Part II had one attention: the opening draws one row branching into one query, one
    key and one value, under a block that says there are no heads yet, below a small map
    whose attention step is lit; no head is named or coloured, whatever the worksheet's
    number of heads."""
    result = runs[label]["MayaRecall"]
    texts = section(result, "where we are")
    assert result["manifest"]["where"] == ["heads"]
    assert not [t["text"] for t in texts if re.search(r"\bheads?\s*\d", t["text"], re.I)]
    assert not [t for t in texts if set(t["colours"]) & set(HEAD_COLOURS)]
    roles = []
    for role in ("query", "key", "value"):
        (found,) = [t["box"] for t in texts if t["text"] == role]
        roles.append(found)
    assert all(a[2] < b[0] for a, b in pairwise(roles))  # side by side, in this order
    (row,) = [t["box"] for t in texts if t["text"] == "one word's row"]
    assert all(row[1] > box[3] for box in roles)  # the row above: it branches into them
    assert roles[0][2] < (row[0] + row[2]) / 2 < roles[2][0]
    (block,) = [t["box"] for t in texts if "no heads yet" in t["text"]]
    (lit,) = [t["box"] for t in texts if t["text"] == "attention"]
    assert lit[1] > block[3] > row[3]  # the map's step, then the block opened up


def test_the_recall_shows_the_maya_sentence_and_how_a_match_becomes_a_weight(runs) -> None:
    """Part II's sentence is on screen, in order on one line; the query sits under "She",
    the key and the value under "Maya"; the score and the softmax are written out in words,
    as the example is (no formula with a width this example never had)."""
    texts = section(runs["default"]["MayaRecall"], "in words")
    words = ["Maya", "reached", "the", "door", ".", "She"]
    boxes = []
    for word in words:
        (found,) = [t["box"] for t in texts if t["text"] == word]
        boxes.append(found)
    assert all(a[2] < b[0] for a, b in pairwise(boxes))
    tops = [b[3] for word, b in zip(words, boxes, strict=True) if word != "."]
    assert max(tops) - min(tops) < 0.1  # one line

    def under(text: str, word: str) -> bool:
        (box,) = [t["box"] for t in texts if t["text"] == text]
        above = boxes[words.index(word)]
        return box[3] < above[1] and box[0] < (above[0] + above[2]) / 2 < box[2]

    assert under("She's query", "She") and under("Maya's key", "Maya")
    assert under("Maya's value", "Maya") and under("She's message", "She")
    shown_texts = {t["text"] for t in texts}
    assert "score: how well a word's key matches the query" in shown_texts
    assert any(t.startswith("softmax over every word's score") for t in shown_texts)
    assert not any("√" in t for t in shown_texts)


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_draws_every_words_weight_and_scales_mayas_value_by_hers(runs,
                                                                            label: str) -> None:
    """The softmax is over every word, She's own too: a "weight at She" row under the
    sentence, left of Maya's bar and clear of the cards under it, with a note beside "She"
    that the word that asks reads itself too, while the voice says so and that Maya's
    weight is the largest; the value reaches "She" scaled by that weight (said and written
    under the arrow), not copied."""
    result = runs[label]["MayaRecall"]
    texts = section(result, "in words")
    (maya,) = [t["box"] for t in texts if t["text"] == "Maya"]
    (she,) = [t["box"] for t in texts if t["text"] == "She"]
    (name,) = [t["box"] for t in texts if t["text"] == "weight at “She”"]
    (key,) = [t["box"] for t in texts if t["text"] == "Maya's key"]
    assert name[2] < maya[0] and name[3] < maya[1]  # left of Maya's bar, under the words
    assert name[1] - key[3] > 0.3  # a clear gap above the cards
    asker = [t["box"] for t in texts if t["text"] in ("She asks, and", "reads herself too")]
    assert len(asker) == 2 and all(box[0] > she[2] for box in asker)  # beside "She"
    told = captions(result)
    assert told[3] == ("Every word's key gets a score, She's own too; a softmax turns the "
                       "scores into weights, Maya's the largest by far.")
    (scaled,) = [t["box"] for t in texts if t["text"] == "× Maya's weight"]
    (value,) = [t["box"] for t in texts if t["text"] == "Maya's value"]
    (message,) = [t["box"] for t in texts if t["text"] == "She's message"]
    assert value[2] < scaled[0] and scaled[2] < message[0]  # on the arrow between them
    assert not any("flows" in c for c in told)


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_says_what_a_row_is_and_turns_scores_into_weights(runs, label: str) -> None:
    """One word's row is said, under its name, to be its token's numbers plus its
    position's; when the voice says every word's key gets a score, the pointer goes round
    a row of score boxes (a score per word, no number: the example has none), and the
    softmax turns them into the weight bars: the recall ends with the weight row, the
    score row gone."""
    result = runs[label]["MayaRecall"]
    opening = section(result, "where we are")
    (row,) = [t["box"] for t in opening if t["text"] == "one word's row"]
    (made,) = [t["box"] for t in opening
               if t["text"] == "its token's numbers + its position's numbers"]
    assert made[3] < row[1] and made[0] < (row[0] + row[2]) / 2 < made[2]
    told = captions(result)
    scores = told.index(next(c for c in told if c.startswith("Every word's key gets a score")))
    pointed = [o for o in result["outlined"] if o["caption"] == scores]
    assert pointed[0]["texts"] == ["score at “She”"] and not pointed[0]["keys"]
    assert len(pointed[0]["boxes"]) == 1  # one outline round the name and every box
    assert any(any(t.startswith("softmax over") for t in o["texts"]) for o in pointed[1:])
    ending = {t["text"] for t in section(result, "in words")}
    assert "weight at “She”" in ending and "score at “She”" not in ending


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_shows_why_the_final_token_asks_the_blank_after_it(runs, lessons,
                                                                        label: str) -> None:
    """Our sentence ends in a visible blank, right after the receiver on its line, under
    "predict the next word"; the receiver is named as the last word known, the one that
    asks."""
    texts = section(runs[label]["MayaRecall"], "our sentence")
    lesson = lessons[label]
    last = lesson["tokens"][lesson["last"]]
    rows = [t["box"] for t in texts if t["text"] == last]
    receiver = max(rows, key=lambda box: box[0])  # the sentence's final token
    (blank,) = [t["box"] for t in texts if t["text"] == "___"]
    assert receiver[2] < blank[0] < receiver[2] + 0.6
    assert abs(blank[1] - receiver[1]) < 0.15  # on the sentence's line
    (goal,) = [t["box"] for t in texts if t["text"] == "predict the next word"]
    assert goal[1] > blank[3] and goal[0] < (blank[0] + blank[2]) / 2 < goal[2]
    assert f"“{last}”: the last word known, so it asks" in {t["text"] for t in texts}


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
    wrong, useful = only("misleading for agreement,"), only("useful for the place")
    right = only("agreement clue")
    assert gate["colours"] == [MUTED] and dogs["colours"] == [INK]
    assert wrong["colours"] == useful["colours"] == [MUTED] and right["colours"] == [INK]
    assert under(wrong, gate) and under(useful, wrong) and under(right, dogs)
    assert not under(wrong, dogs) and not under(right, gate)
    assert not any(t["text"] == "misleading" for t in texts)  # never misleading alone


# --------------------------------------------------------------------------- one head, two heads


def test_the_toy_names_its_sources_neutrally_and_writes_out_the_one_head_mix(runs) -> None:
    """The toy's sources are "source A" and "source B", and the voice keeps them so (our
    sentence's real value rows differ); on screen, its made-up rows are tied to the words
    they stand in for. One head's single weight row is written out for each coordinate:
    the same pair of weights times each coordinate, then the sum."""
    result = runs["default"]["OneHeadTwoHeads"]
    toy = reference.toy(load_worksheet(WORKSHEETS["default"]).document)
    values, weights = toy["values"], toy["weights"][0]
    texts = shown(result, "one mixture")
    assert {"source A", "source B"} <= texts
    a, b = load_worksheet(WORKSHEETS["default"]).lesson.toy.sources
    assert f"made-up value rows: A stands in for “{a}”, B for “{b}”" in texts
    for c, place in enumerate(("first", "second")):
        mix = weights @ values[:, c]
        assert (f"one head, {place} coordinate:  {param(weights[0])} × {param(values[0, c])} + "
                f"{param(weights[1])} × {param(values[1, c])} = {param(mix)}") in texts
    toy_captions = captions(result)[said(result, "A separate toy with made-up numbers: two "
                                                 "sources, A and B, whose value rows have two "
                                                 "coordinates each."):]
    words = set(load_worksheet(WORKSHEETS["default"]).lesson.toy.sources)
    assert not any(word in caption for caption in toy_captions for word in words)


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_toy_derives_the_weight_each_wanted_result_needs(runs, lessons, label: str) -> None:
    """With A's weight a and B's the rest of the row, each result that two heads give is
    solved for a: a = (result − B's coordinate) ÷ (A's − B's); the two answers differ, so
    one shared row cannot give both."""
    result = runs[label]["OneHeadTwoHeads"]
    toy = reference.toy(lessons[label]["ws"].document)
    values, weights = toy["values"], toy["weights"]
    one = param(weights[0].sum())
    assert math.isclose(weights[0].sum(), 1.0)
    texts = shown(result, "required")
    answers = []
    for c in (0, 1):
        wanted = weights[c] @ values[:, c]
        a = (wanted - values[1, c]) / (values[0, c] - values[1, c])
        assert math.isclose(a * values[0, c] + (1 - a) * values[1, c], wanted)
        x, v_a, v_b = param(wanted), param(values[0, c]), param(values[1, c])
        assert (f"{x} = a × {v_a} + ({one} − a) × {v_b}   →   a = ({x} − {v_b}) ÷ "
                f"({v_a} − {v_b}) = {param(a)}") in texts
        answers.append(a)
    assert not math.isclose(*answers) and "one shared row cannot meet both" in texts
    said(result, f"Could one shared row give both? Call A's weight a; B then gets {one} "
                 "minus a.")


@pytest.mark.parametrize("label", ["default", "four"])
def test_clip_three_draws_each_heads_query_and_leaves_their_weights_to_clip_four(
        runs, lessons, label: str) -> None:
    """Several heads means several queries, drawn with their numbers; which word each head
    favours on our sentence is said only in the next clip."""
    result = runs[label]["OneHeadTwoHeads"]
    lesson = lessons[label]
    texts = shown(result, "several heads")
    for h, head in enumerate(lesson["sentence"]["heads"], start=1):
        query = head["Q"][lesson["last"]]
        names = coordinate_names(lesson, h, "W_K")
        if names is None:
            inner = ", ".join("…" if i is None else param(query[i])
                              for i in shown_indices(len(query)))
            assert f"Head {h}'s query" in texts and f"[{inner}]" in texts
        else:  # each number named by the feature of the keys it is matched with
            assert f"Head {h}'s query" in texts  # named, not only coloured
            assert ", ".join(f"{name} {param(x)}" for name, x in zip(names, query,
                                                                    strict=True)) in texts
    told = captions(result)
    assert not any("widest" in c or "favours “" in c or "leans most" in c for c in told)
    three = runs[label]["SettingAndPerson"]
    assert sum("widest" in c or "largest weight" in c for c in captions(three)) == \
        lesson["ws"].n_heads


@pytest.mark.parametrize("label", ["default", "four"])
def test_several_heads_draw_messages_and_say_where_each_query_comes_from(
        runs, lessons, label: str) -> None:
    """Each head's column ends in a message of its own, named as that head's message (the
    heads' kinds of detail are the next clip's) and holding its computed numbers; the voice
    takes the heads one at a time, the first saying its query is made from the receiver's
    row with the head's own weights, and each naming its keys, weight row and message."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    texts = shown(result, "several heads")
    n = lesson["ws"].n_heads
    assert {f"Head {h}'s message" for h in range(1, n + 1)} <= texts
    for h, head in enumerate(lesson["sentence"]["heads"], start=1):
        names = coordinate_names(lesson, h)
        if names is None:
            inner = ", ".join("…" if i is None else fixed(head["message"][i])
                              for i in shown_indices(len(head["message"])))
            assert f"[{inner}]" in texts
        else:  # one line per coordinate, named by the feature it carries
            assert {f"{name}: {fixed(x)}" for name, x in zip(names, head["message"],
                                                             strict=True)} <= texts
    names = lesson["ws"].lesson.head_names
    assert not any(name in text for name in names for text in texts if text.startswith("Head"))
    looks = [coordinate_names(lesson, h, "W_K") for h in (1, 2)]
    said(result, "Head 1 makes its query from this word's row with its own query matrix"
                 + (f": it looks for {' and '.join(looks[0])}." if looks[0] else "."))
    said(result, "Its own keys give its own weight row, and its message is what that row "
                 "mixes.")
    said(result, "Head 2 does the same: its own keys, weight row and message, "
                 + (f"looking for {' and '.join(looks[1])}." if looks[1] else "all its own."))
    for h in range(3, n + 1):
        said(result, f"Then head {h}: its keys, weight row and message, all its own.")
    assert "dots: each head's keys, in its colour" in texts  # every head's, at the end
    told = captions(result)
    assert not any("every head's" in c or "value map" in c for c in told)


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_toy_says_what_the_second_head_saves(runs, lessons, label: str) -> None:
    """Why two heads are better: B carries the second coordinate's detail, which one shared
    row dilutes and the second head passes on; the person detail and what B carries are
    written on screen while the voice says so."""
    result = runs[label]["OneHeadTwoHeads"]
    toy = reference.toy(lessons[label]["ws"].document)
    values, weights = toy["values"], toy["weights"]
    one = values.T @ weights[0]
    two = weights[1] @ values[:, 1]
    assert values[1, 1] > values[0, 1] and one[1] < two <= values[1, 1]
    said(result, f"Say the second coordinate is a person detail, which B carries as "
                 f"{param(values[1, 1])}: one head passes on only {param(one[1])}, two heads "
                 f"pass on {param(two)}.")
    assert (f"second coordinate: a person detail, which B carries as {param(values[1, 1])}"
            in shown(result, "two mixtures"))


def test_one_heads_weight_scales_each_whole_value_row(runs, lessons) -> None:
    """Under the message: the two heaviest sources' value rows, every coordinate under the
    feature it carries, each after its one weight, said to be two of the sentence's words;
    the message itself is filled with the sum over every word."""
    result, lesson = runs["default"]["OneHeadTwoHeads"], lessons["default"]
    wide = lesson["sentence"]["wide"]
    texts = section(result, "one head")
    features = coordinate_names(lesson, 1) + coordinate_names(lesson, 2)
    named = [t for t in texts if t["text"] in features]
    assert [t["text"] for t in sorted(named, key=lambda t: t["box"][0])] == features
    assert max(t["box"][1] for t in named) - min(t["box"][1] for t in named) < 0.1
    message = "[" + ", ".join(fixed(x) for x in wide["message"]) + "]"
    assert message in {t["text"] for t in texts}
    top, second = np.argsort(-wide["weights"], kind="stable")[:2]
    said(result, "The two words it weighs most: "
                 f"“{lesson['tokens'][top]}” with {fixed(wide['weights'][top])}, "
                 f"“{lesson['tokens'][second]}” with {fixed(wide['weights'][second])}, the "
                 "widths of their arrows.")
    said(result, "A value row is what a word would contribute to the message if read: one "
                 "number per feature, " + ", ".join(features[:-1]) + f" and {features[-1]}.")
    said(result, f"Summed over all {len(lesson['tokens'])} words, they make the message.")
    for j in np.argsort(-wide["weights"], kind="stable")[:2]:
        (label,) = [t for t in texts if t["text"] == f"“{lesson['tokens'][j]}”  "
                    f"{fixed(wide['weights'][j])} ×"]
        row = [t for t in texts if len(t["figures"]) == 1
               and t["figures"][0][0].startswith(f"river.wide.V[{j}]")]
        assert [t["text"] for t in row] == [param(x) for x in wide["V"][j]]
        assert all(abs(t["box"][1] - label["box"][1]) < 0.1 for t in row)  # on its line
        assert all(t["box"][3] < min(n["box"][1] for n in named) for t in row)  # under names
    said(result, "One weight scales a word's whole value row, so every feature is mixed with "
                 "the same weights.")


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_one_head_picture_says_what_its_head_is(runs, lessons, label: str) -> None:
    """The one head's value rows are as wide as every head's together (its weights are its
    own): a line over its value rows says they are two of the sentence's words and gives
    their width, and nothing said before the heads are shown leans on them."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    width = sum(np.asarray(lesson["values"][f"params.h{h}.W_V"]).shape[1]
                for h in range(1, lesson["ws"].n_heads + 1))
    assert lesson["sentence"]["wide"]["V"].shape[1] == width
    told = captions(result)
    several = next(k for k, c in enumerate(told) if c.startswith("With ") and "queries" in c)
    assert not any("put together" in c or "all the heads" in c for c in told[1:several])
    texts = section(result, "one head")
    names = [coordinate_names(lesson, h) for h in range(1, lesson["ws"].n_heads + 1)]
    if any(named is None for named in names):
        said(result, "A value row is what a word would contribute to the message if read, "
                     f"one number per coordinate, {width} coordinates in all.")
    else:
        assert sum(len(named) for named in names) == width
    rows = [t for t in texts if any(f[0].startswith(f"{lesson['ws'].walkthrough}.wide.V[")
                                    for f in t["figures"])]
    assert rows


@pytest.mark.parametrize("label", ["default", "four"])
def test_each_toy_head_draws_its_value_map_beside_its_weights(runs, lessons,
                                                             label: str) -> None:
    """Each toy head's value map is drawn, in its colour: the value each source sends it
    (the head's own coordinate of that source's row), on that source's line."""
    result = runs[label]["OneHeadTwoHeads"]
    toy = reference.toy(lessons[label]["ws"].document)
    for name in ("two mixtures", "required"):
        texts = section(result, name)
        rows_y = []
        for source in ("source A", "source B"):
            (row,) = [t["box"] for t in texts if t["text"] == source]
            rows_y.append((row[1] + row[3]) / 2)
        for k in (0, 1):
            colour = HEAD_COLOURS[k]
            (header,) = [t for t in texts if t["text"] == "sends" and t["colours"] == [colour]]
            for r in (0, 1):
                (cell,) = [t for t in texts if [tuple(f) for f in t["figures"]] == [
                    (f"toy.values[{r}][{k}]", param(toy["values"][r, k]))]
                    and t["colours"] == [colour]]
                assert cell["text"] == param(toy["values"][r, k])
                assert abs((cell["box"][1] + cell["box"][3]) / 2 - rows_y[r]) < 0.1
                assert header["box"][0] - 0.3 < cell["box"][0] and \
                    cell["box"][2] <= header["box"][2] + 0.01


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_toy_ends_on_its_picture_and_its_caveat(runs, label: str) -> None:
    """The last sentence's caveat is written too, and the clip ends on the toy's picture
    (sources, bars, results, the verdict), the worked lines gone; each head's "sends"
    column stands well inside the frame."""
    result = runs[label]["OneHeadTwoHeads"]
    texts = section(result, "caveat")
    shown_texts = {t["text"] for t in texts}
    assert {"separate weighting buys this;", "it does not prove that one head always fails",
            "one shared row cannot meet both", "source A", "source B"} <= shown_texts
    assert any(t.startswith("one head: [") for t in shown_texts)
    assert any(t.startswith("two heads: [") for t in shown_texts)
    assert not any("→" in t or "coordinate only" in t for t in shown_texts)
    assert captions(result)[-1] == ("The toy shows what separate weighting buys; it does not "
                                    "prove that one head always fails.")
    assert max(t["box"][2] for t in texts if t["text"] == "sends") < 7.11 - 1.0


@pytest.mark.parametrize("label", ["default", "four"])
def test_one_heads_result_stays_beside_the_two_heads_results(runs, lessons,
                                                             label: str) -> None:
    """[8.4, 2.4] from one shared row and [8.4, 6.6] from two heads are on screen together,
    on one line, while the voice compares them and while the required weights are
    derived."""
    result = runs[label]["OneHeadTwoHeads"]
    toy = reference.toy(lessons[label]["ws"].document)
    one = "[" + ", ".join(param(x) for x in toy["values"].T @ toy["weights"][0]) + "]"
    two = "[" + ", ".join(param(toy["weights"][c] @ toy["values"][:, c])
                          for c in (0, 1)) + "]"
    assert one == "[" + ", ".join(param(x) for x in toy["one_head"]) + "]"
    assert two == "[" + ", ".join(param(x) for x in toy["two_heads"]) + "]"
    said(result, f"Side by side: one head gives {one}; two heads give {two}.")
    for name in ("two mixtures", "required"):
        texts = section(result, name)
        (a,) = [t["box"] for t in texts if t["text"] == f"one head: {one}"]
        (b,) = [t["box"] for t in texts if t["text"] == f"two heads: {two}"]
        assert abs(a[1] - b[1]) < 0.05 and a[2] < b[0]


@pytest.mark.parametrize("label", ["default", "four"])
def test_one_heads_value_rows_say_what_they_are_and_what_red_means(runs, lessons,
                                                                   label: str) -> None:
    """Before the value rows are used, the picture says what one is (what a word would
    contribute if read, one number per feature) left of the words' labels, heads the
    weights' column "weight", and says what red means wherever a shown number is below
    zero. Where no feature names head the columns, their count stands over the value rows
    instead ("one number per coordinate, 8 in all")."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    wide = lesson["sentence"]["wide"]
    texts = section(result, "one head")
    names = [coordinate_names(lesson, h) for h in range(1, lesson["ws"].n_heads + 1)]
    unit = "coordinate" if any(named is None for named in names) else "feature"
    lines = ["value row: what a word", "would contribute if read,"]
    count = f"one number per coordinate, {wide['V'].shape[1]} in all"
    if unit == "feature":
        lines.append("one number per feature")
    meaning = [t for t in texts if t["text"] in lines]
    assert len(meaning) == len(lines)
    cells = [t for t in texts if any(f[0].startswith(f"{lesson['ws'].walkthrough}.wide.V[")
                                     for f in t["figures"])]
    counted = [t["box"] for t in texts if t["text"] == count]
    if unit == "coordinate":  # over the value rows, right of the words' labels
        (over,) = counted
        assert over[1] > max(t["box"][3] for t in cells)
        assert over[0] < max(t["box"][2] for t in cells) and over[2] > min(
            t["box"][0] for t in cells)
    else:
        assert counted == []
    assert f"summed over all {len(lesson['tokens'])} words, the others add a little" in {
        t["text"] for t in texts}
    order = np.argsort(-wide["weights"], kind="stable")[:2]
    wanted = {f"“{lesson['tokens'][j]}”  {fixed(wide['weights'][j])} ×" for j in order}
    labels = [t for t in texts if t["text"] in wanted]
    assert len(labels) == 2
    assert max(t["box"][2] for t in meaning) < min(t["box"][0] for t in labels)
    if unit == "coordinate":
        assert counted[0][0] > max(t["box"][2] for t in labels)
    (weight,) = [t["box"] for t in texts if t["text"] == "weight"]
    assert weight[1] > max(t["box"][3] for t in labels)  # over the weights
    shown_values = [wide["V"][j][c] for j in order
                    for c in shown_indices(wide["V"].shape[1]) if c is not None]
    assert (min(shown_values) < 0) == ("red: below zero" in {t["text"] for t in texts})


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_one_head_message_shows_its_largest_number_comes_from_the_favourite(
        runs, lessons, label: str) -> None:
    """The payoff of one shared weight row: the message's largest coordinate is traced to
    the two heaviest words' terms (numpy's), written on screen and said. On our sentence
    the water comes mostly from "fisherman", though "river" carries more water, because
    the one row that favours "fisherman" serves every feature."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    wide, tokens = lesson["sentence"]["wide"], lesson["tokens"]
    c = int(np.argmax(np.abs(wide["message"])))
    top, second = np.argsort(-wide["weights"], kind="stable")[:2]
    terms = wide["weights"][:, None] * wide["V"]
    told = captions(result)
    if c not in shown_indices(wide["V"].shape[1]):
        assert not any(t.startswith("Its largest number") or "comes mostly from" in t
                       for t in told)
        return
    heads = [coordinate_names(lesson, h) for h in range(1, lesson["ws"].n_heads + 1)]
    names = None if any(n is None for n in heads) else [f for n in heads for f in n]
    m = fixed(wide["message"][c])
    w0, w1 = tokens[top], tokens[second]
    opening = f"Its {names[c]}, {m}," if names else f"Its largest number, {m},"
    mostly = abs(terms[top, c]) > abs(wide["message"][c] - terms[top, c])
    said(result, opening + (f" comes mostly from “{w0}”: {fixed(wide['weights'][top])} × "
                            f"{param(wide['V'][top, c])} = {fixed(terms[top, c])}, while "
                            f"“{w1}” adds only {fixed(terms[second, c])}." if mostly else
                            f" gets {fixed(terms[top, c])} from “{w0}” and "
                            f"{fixed(terms[second, c])} from “{w1}”."))
    line = [(names[c] if names else "its largest number") + f" {m}:",
            f"{fixed(wide['weights'][top])} × {param(wide['V'][top, c])} = "
            f"{fixed(terms[top, c])} from “{w0}”,", f"{fixed(wide['weights'][second])} × "
            f"{param(wide['V'][second, c])} = {fixed(terms[second, c])} from “{w1}”"]
    texts = section(result, "one head")
    parts = [next(t for t in texts if t["text"] == part) for part in line]
    assert all(a["box"][2] < b["box"][0] for a, b in pairwise(parts))  # one line, in order
    if label == "default":  # the lesson's point, on our sentence
        assert (names[c], w0, w1) == ("water", "fisherman", "river") and mostly
        assert wide["V"][second, c] > wide["V"][top, c]
        said(result, f"Yet “river” carries more water, {param(wide['V'][second, c])}: one "
                     "weight row serves every feature, and in it “fisherman” weighs most.")


@pytest.mark.parametrize("label", ["default", "four"])
def test_several_heads_say_why_a_message_is_shorter_and_where_numbers_come(
        runs, lessons, label: str) -> None:
    """The queries' and messages' numbers are said to be worked out in later clips; why a
    head's message has fewer numbers than the one head's is said and written: each head's
    own value matrix keeps its own coordinates (on our sentence, its own features). The
    projections are called matrices, never weights, in this clip."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    n, d = lesson["ws"].n_heads, lesson["sentence"]["heads"][0]["V"].shape[1]
    joined = lesson["sentence"]["wide"]["V"].shape[1]
    texts = shown(result, "several heads")
    assert "numbers worked out in later clips" in texts
    said(result, f"With {n} heads, the same receiver asks {n} queries at once, one per head; "
                 "how each query is made comes in later clips.")
    assert (f"each head's own value matrix keeps {d} coordinates of the {joined}, so its "
            f"message has {d} numbers") in texts
    names = [coordinate_names(lesson, h) for h in range(1, n + 1)]
    if any(named is None for named in names):
        said(result, f"A head's message has {d} numbers, not {joined}: its own value matrix "
                     f"makes value rows of {d} coordinates.")
    else:
        kept = "; ".join(f"{' and '.join(named)} for head {h}"
                         for h, named in enumerate(names, start=1))
        said(result, f"A head's message has {d} numbers, not {joined}: its own value matrix "
                     f"keeps only its own features, {kept}.")
    told = captions(result)
    assert not any("own weights" in c or "value weights" in c for c in told)
    assert not any("value weights" in t for t in shown(result, "two mixtures"))
    assert any("own query matrix" in c for c in told)


def test_no_two_pointers_are_on_screen_at_once(runs) -> None:
    """Each outline the voice points with goes when the next one comes: no outline stays
    behind (a step made before the sentence it belongs to would leave its outline on
    screen)."""
    for label in ("default", "four"):
        for name in ("OneHeadTwoHeads", "MayaRecall"):
            spans = sorted((first, last) for _, first, last in runs[label][name]["pointed"]
                           if first is not None)
            for (_, a_last), (b_first, _) in pairwise(spans):
                assert a_last < b_first, (label, name, spans)


# --------------------------------------------------------------------------- shapes


def _box(mob: Any) -> list[float]:
    points = mob.get_all_points()
    return [float(points[:, 0].min()), float(points[:, 1].min()),
            float(points[:, 0].max()), float(points[:, 1].max())]


class ShapesProbe:
    """Mixed into every dry run of OneHeadTwoHeads (``tests.scene_runner.PROBES``): after
    every animation, the arrows on screen (start and end, and apart their opacities), the
    dots on screen (colour and opacity), the pointer's outlines and every bracket's box.
    Brackets are found by wrapping the kit's ``brackets`` for the length of the run (the
    scene's module and the kit's, put back when the notes are taken)."""

    def setup(self) -> None:
        import scenes.kit.components as components
        import scenes.story as story

        self.noted: list[dict[str, Any]] = []
        self.made_brackets: list[Any] = []
        self.original_brackets = original = components.brackets

        def noted(*args: Any, **kwargs: Any) -> Any:
            group = original(*args, **kwargs)
            self.made_brackets.append(group)
            return group

        components.brackets = story.brackets = noted
        super().setup()  # type: ignore[misc]

    def play(self, *animations: Any, **kwargs: Any) -> None:
        from manim import Arrow, Dot, SurroundingRectangle

        super().play(*animations, **kwargs)  # type: ignore[misc]
        family = self.get_mobject_family_members()  # type: ignore[attr-defined]
        seen = {id(m) for m in family}
        shown_arrows = [m for m in family if isinstance(m, Arrow)
                        and float(m.get_stroke_opacity()) > 0.01]
        arrows = [[*m.get_start()[:2].tolist(), *m.get_end()[:2].tolist()]
                  for m in shown_arrows]
        opacities = [float(m.get_stroke_opacity()) for m in shown_arrows]
        dots = [(m.get_fill_color().to_hex().upper(), float(m.get_fill_opacity()))
                for m in family if isinstance(m, Dot) and float(m.get_fill_opacity()) > 0.01]
        pointer = self._pointer  # type: ignore[attr-defined]
        outlines = [] if pointer is None or id(pointer) not in seen else [
            _box(m) for m in pointer.get_family() if isinstance(m, SurroundingRectangle)]
        shown_brackets = [_box(side) for group in self.made_brackets for side in group
                          if id(side) in seen]
        self.noted.append({"time": float(self.time), "arrows": arrows,  # type: ignore[attr-defined]
                           "opacities": opacities, "dots": dots, "outlines": outlines,
                           "brackets": shown_brackets})

    def probed(self) -> list[dict[str, Any]]:
        import scenes.kit.components as components
        import scenes.story as story

        components.brackets = story.brackets = self.original_brackets
        return self.noted


@pytest.fixture(scope="module")
def shapes(runs) -> dict[str, list[dict[str, Any]]]:
    """What OneHeadTwoHeads draws after every animation, on the default and four-head
    worksheets."""
    return {label: runs[label]["OneHeadTwoHeads"]["probed"] for label in ("default", "four")}


def _cross(a: list[float], b: list[float]) -> bool:
    """Whether two segments ``[x0, y0, x1, y1]`` cross (touching ends do not count)."""
    p, r = np.array(a[:2]), np.array(a[2:]) - np.array(a[:2])
    q, s = np.array(b[:2]), np.array(b[2:]) - np.array(b[:2])
    turn = r[0] * s[1] - r[1] * s[0]
    if abs(turn) < 1e-12:
        return False  # parallel: the fans never draw two arrows on one line
    t = ((q - p)[0] * s[1] - (q - p)[1] * s[0]) / turn
    u = ((q - p)[0] * r[1] - (q - p)[1] * r[0]) / turn
    return 1e-6 < t < 1 - 1e-6 and 1e-6 < u < 1 - 1e-6


@pytest.mark.parametrize("label", ["default", "four"])
def test_no_two_arrows_of_the_heads_pictures_cross(shapes, lessons, label: str) -> None:
    """Every head's fan reaches the receiver, and no arrow crosses another: the eye can
    follow each from its word to where it lands, whatever its head."""
    noted = shapes[label]
    n, length = lessons[label]["ws"].n_heads, lessons[label]["ws"].length
    most = max(len(moment["arrows"]) for moment in noted)
    assert most >= n * length  # every head's fan on screen at once
    for moment in noted:
        crossing = [(a, b) for a, b in combinations(moment["arrows"], 2) if _cross(a, b)]
        assert not crossing, (moment["time"], crossing[:3])


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_heads_are_shown_one_at_a_time_each_with_its_keys(shapes, lessons,
                                                              label: str) -> None:
    """When every head's arrows are on screen, only the last head's are bright: the
    others' are dimmed, as are their keys; the head being shown has a key dot in its colour
    for every word, where each of its arrows leaves."""
    n, length = lessons[label]["ws"].n_heads, lessons[label]["ws"].length
    moment = max(shapes[label], key=lambda m: len(m["arrows"]))
    fans = moment["opacities"]
    dimmed = [o for o in fans if o <= 0.2]
    assert len(dimmed) == (n - 1) * length and len(fans) - len(dimmed) >= length
    bright_dots = [colour for colour, opacity in moment["dots"] if opacity > 0.5]
    assert bright_dots == [HEAD_COLOURS[n - 1].upper()] * length
    assert sum(opacity <= 0.2 for _, opacity in moment["dots"]) == (n - 1) * length


@pytest.mark.parametrize("label", ["default", "four"])
def test_every_heads_fan_comes_back_with_its_two_heaviest_arrows_bright(shapes, lessons,
                                                                        label: str) -> None:
    """After the heads are shown one at a time, every head's fan is back at once, none
    dimmed: each head's two heaviest arrows bright, its others faint (but plainly drawn),
    every head's key dots shown."""
    n, length = lessons[label]["ws"].n_heads, lessons[label]["ws"].length
    most = max(len(m["arrows"]) for m in shapes[label])
    moment = [m for m in shapes[label] if len(m["arrows"]) == most][-1]
    links = 2 * n  # receiver to query, query to message, drawn fully
    bright = [o for o in moment["opacities"] if o >= 0.6 - 1e-6]
    faint = [o for o in moment["opacities"] if o < 0.6 - 1e-6]
    assert len(bright) == 2 * n + links
    assert len(faint) == n * length - 2 * n and all(0.4 <= o <= 0.5 for o in faint)
    assert len(moment["dots"]) == n * length and all(o > 0.5 for _, o in moment["dots"])


@pytest.mark.parametrize("label", ["default", "four"])
def test_no_outline_cuts_a_bracket(shapes, label: str) -> None:
    """What the voice points at is outlined clear of any bracket: a bracket lies well
    inside an outline or outside it, never under its edge."""
    margin = 0.05
    pointed = 0
    for moment in shapes[label]:
        for outline in moment["outlines"]:
            for bracket in moment["brackets"]:
                inside = (bracket[0] >= outline[0] + margin and bracket[1] >= outline[1] + margin
                          and bracket[2] <= outline[2] - margin
                          and bracket[3] <= outline[3] - margin)
                apart = (bracket[0] > outline[2] + margin or bracket[2] < outline[0] - margin
                         or bracket[1] > outline[3] + margin or bracket[3] < outline[1] - margin)
                pointed += inside
                assert inside or apart, (moment["time"], outline, bracket)
    assert pointed  # the value rows are pointed at, brackets and all


# --------------------------------------------------------------------------- the readings


def coordinate_names(lesson: dict[str, Any], head: int, matrix: str = "W_V") -> list[str] | None:
    """The feature each value (or, with ``W_K``, key) coordinate of ``head`` copies (its
    matrix column's one nonzero entry), from the worksheet's names; ``None`` when a column
    mixes features."""
    W = np.asarray(lesson["values"][f"params.h{head}.{matrix}"])
    names = []
    for column in W.T:
        if np.count_nonzero(column) != 1:
            return None
        names.append(lesson["ws"].lesson.features[int(np.flatnonzero(column)[0])])
    return names


@pytest.mark.parametrize("label", ["default", "four"])
def test_each_reading_works_its_message_as_terms_the_rest_and_the_sum(runs, lessons,
                                                                     label: str) -> None:
    """Per head: the two heaviest sources' weight, value row and weight × value row, the
    rest of the sources summed, and the message, every number on screen; the value row's
    origin named; coordinates named by the feature they copy (else numbered)."""
    lesson = lessons[label]
    result = runs[label]["SettingAndPerson"]
    for h, head in enumerate(lesson["sentence"]["heads"], start=1):
        texts = [t["text"] for t in section(result, f"head {h}")]
        order = np.argsort(-head["weights"], kind="stable")
        terms = head["weights"][:, None] * head["V"]
        for j in order[:2]:
            assert fixed(head["weights"][j]) in texts
            for c in shown_indices(head["V"].shape[1]):
                if c is not None:
                    assert param(head["V"][j][c]) in texts
                    assert fixed(terms[j][c]) in texts
        rest = head["message"] - terms[order[:2]].sum(axis=0)
        for c in shown_indices(len(rest)):
            if c is not None:
                assert fixed(rest[c]) in texts and fixed(head["message"][c]) in texts
        assert "all the others" in texts
        if h == 1:  # a value row said in words (a later head's may give way to an example)
            assert {"value row: what a word", "would contribute if read"} <= set(texts)
        names = coordinate_names(lesson, h)
        expected = names or [f"value {c + 1}" for c in range(head["V"].shape[1])]
        noted = lesson["ws"].lesson.feature_notes  # a noted feature's name is over its note
        for name in (expected[0], expected[-1]):
            assert texts.count(name) == 2 + (name in noted), name
    if label == "default":
        assert coordinate_names(lesson, 1) == ["water", "finance"]
        assert coordinate_names(lesson, 2) == ["person", "glue"]


def test_head_twos_glue_coordinate_is_explained_by_its_many_small_weights(runs,
                                                                          lessons) -> None:
    """0.538 of glue does not come from "fisherman": the rest of the sources give most of
    it, and the voice says so with both numbers."""
    lesson, result = lessons["default"], runs["default"]["SettingAndPerson"]
    head = lesson["sentence"]["heads"][1]
    order = np.argsort(-head["weights"], kind="stable")
    rest = head["message"] - (head["weights"][order[:2], None] * head["V"][order[:2]]).sum(0)
    glue = coordinate_names(lesson, 2).index("glue")
    assert rest[glue] / head["message"][glue] > 0.5
    said(result, f"Its glue coordinate, {fixed(head['message'][glue])}, is mostly the rest: "
                 f"{fixed(rest[glue])} of it comes from many small weights.")


def test_each_kind_of_detail_has_its_own_colour_and_its_name(runs) -> None:
    """Colour, material and shape (and subject against place, reference against event)
    are told apart by colour, from the head palette, and by their names in words."""
    result = runs["default"]["SeveralKindsOfDetail"]
    for name, kinds in (("coat", ("colour", "material", "shape")),
                        ("dogs", ("subject", "location")),
                        ("glass", ("reference", "event"))):
        texts = section(result, name)
        colours = []
        for kind in kinds:
            (role,) = [t for t in texts if t["text"] == f"{kind} head"]
            colours += role["colours"]
        assert len(set(colours)) == len(kinds) == len(colours), (name, colours)
        assert set(colours) <= set(HEAD_COLOURS)


# --------------------------------------------------------------------------- the prompt


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_prompt_asks_for_a_guess_then_lights_each_heads_favourite_with_its_role(
        runs, lessons, label: str) -> None:
    """The viewer is asked first; then each head's heaviest source (numpy's) is outlined
    on the sentence and named under it with that head's role, while the voice says what it
    tells; the worksheet's target word closes the guess."""
    result, lesson = runs[label]["RiverBankPrompt"], lessons[label]
    told = captions(result)
    ask = said(result, "Before any numbers: which of these words would you use to guess it? "
                       "Pick a few.")
    texts = section(result, "your guess")
    clues = []
    for head, numbers in enumerate(lesson["sentence"]["heads"]):
        top = int(np.argmax(numbers["weights"]))
        if top != lesson["last"] and top not in clues:
            clues.append(top)
            word, role = lesson["tokens"][top], lesson["ws"].lesson.head_names[head]
            assert f"“{word}”: the {role}" in {t["text"] for t in texts}
            assert any(c.startswith(f"“{word}” tells the {role}:") for c in told[ask + 1:])
    assert clues
    target = lesson["ws"].lesson.targets[lesson["ws"].walkthrough]
    assert f"so the blank is likely a word like “{target}”" in {t["text"] for t in texts}


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_prompt_defines_a_row_before_the_blank_has_none(runs, lessons,
                                                            label: str) -> None:
    """"Row" is defined (a row of numbers, its embedding) before the voice says the blank
    has none, with the receiver's row spelled out on screen (numpy's embedding row); the
    blank is a slot on the sentence's line, after the receiver, named "next word?"."""
    result, lesson = runs[label]["RiverBankPrompt"], lessons[label]
    told = captions(result)
    width = lesson["ws"].d_model
    row = said(result, f"To a model, each token becomes a row of {width} numbers: its "
                       "embedding.")
    assert row < said(result, "The blank has no row yet: it is what the model must predict.")
    assert not any("row" in c for c in told[:row])
    texts = section(result, "rows")
    embedding = lesson["values"][f"{lesson['ws'].walkthrough}.E"][lesson["last"]]
    inner = ", ".join("…" if c is None else param(embedding[c])
                      for c in shown_indices(len(embedding)))
    assert f"[{inner}]" in {t["text"] for t in texts}
    assert "no row yet" in {t["text"] for t in texts}
    receiver = max((t["box"] for t in texts if t["text"] == lesson["tokens"][lesson["last"]]
                    and t["kind"] == "word"), key=lambda box: box[0])
    (asked,) = [t["box"] for t in texts if t["text"] == "next word?"]
    assert asked[0] > receiver[2]  # right of the receiver, over its slot


def test_the_prompt_opens_on_the_goal_alone(runs) -> None:
    """The opening names only what this clip explains: the words, the model as one box
    and the next word, lit; no head, join or projection yet."""
    result = runs["default"]["RiverBankPrompt"]
    texts = {t["text"] for t in section(result, "where we are")}
    assert {"next", "word"} <= texts
    assert not any(w in t for t in texts for w in ("W_O", "concat", "Head", "ΔE", "MLP"))
    assert result["manifest"]["where"] == ["prediction"]
    assert captions(result)[0] == part("prompt").opening


# --------------------------------------------------------------------------- the readings, again


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_readings_lean_on_no_projection_before_its_clip(runs, label: str) -> None:
    """Embeddings' projections come in a later clip: no caption or text of the readings
    names W_V or an embedding; a value row is said to be what a word would contribute, and
    the first weight is said to be worked out later."""
    result = runs[label]["SettingAndPerson"]
    told = captions(result)
    texts = {t["text"] for s in result["sections"] for t in s["texts"]}
    assert not any("W_V" in c or "embedding" in c for c in [*told, *texts])
    assert any(c.startswith("A value row is what a word would contribute") for c in told)
    assert any("later clips work out step by step" in c for c in told)
    assert not any("computed weight" in c for c in told)


@pytest.mark.parametrize("label", ["default", "four"])
def test_all_heads_read_into_one_receiver_with_named_message_coordinates(
        runs, lessons, label: str) -> None:
    """Side by side, the receiver word is drawn once under the sentence (not once per
    head), and each head's message names every coordinate by its feature (or number) beside
    numpy's value."""
    result, lesson = runs[label]["SettingAndPerson"], lessons[label]
    texts = section(result, "side by side")
    last = lesson["tokens"][lesson["last"]]
    words = [t for t in texts if t["text"] == last and t["kind"] == "word"]
    assert len(words) == lesson["tokens"].count(last) + 1
    for h, head in enumerate(lesson["sentence"]["heads"], start=1):
        names = coordinate_names(lesson, h) or [f"value {c + 1}"
                                                for c in range(len(head["message"]))]
        for c in shown_indices(len(head["message"])):
            if c is not None:
                assert f"{names[c]}: {fixed(head['message'][c])}" in {t["text"] for t in texts}


def test_the_glue_remark_shows_every_other_words_glue_over_it(runs, lessons) -> None:
    """After "mostly the rest", the voice says why: over every word outside the two
    heaviest stands its value row's glue (numpy's), and the receiver's own is named."""
    lesson, result = lessons["default"], runs["default"]["SettingAndPerson"]
    head = lesson["sentence"]["heads"][1]
    glue = coordinate_names(lesson, 2).index("glue")
    last = lesson["last"]
    heaviest = set(np.argsort(-np.asarray(head["weights"]), kind="stable")[:2].tolist())
    rest = [j for j in range(len(lesson["tokens"])) if j not in heaviest]
    assert last in rest
    k = said(result, "Why so much? Over each of the other words stands its value row's glue; "
                     "many small weights times these add up. The final "
                     f"“{lesson['tokens'][last]}” alone carries {param(head['V'][last][glue])}.")
    assert "mostly the rest" in captions(result)[k - 1]
    on_screen = Counter(t["text"] for t in section(result, "head 2"))
    wanted = Counter(param(head["V"][j][glue]) for j in rest)
    assert all(on_screen[text] >= count for text, count in wanted.items()), (wanted, on_screen)


def test_a_heads_features_are_said_in_the_worksheets_words_when_first_used(runs,
                                                                          lessons) -> None:
    """Each head's value-row sentence is followed by what its features stand for, in the
    worksheet file's own notes (read from the file here), drawn as well; a worksheet
    without notes says nothing of the kind."""
    lesson, result = lessons["default"], runs["default"]["SettingAndPerson"]
    document = json.loads(Path(lesson["ws"].source).read_text())
    notes = document["lesson"]["featureNotes"]
    told = captions(result)
    for h, first in ((1, "water"), (2, "person")):
        names = coordinate_names(lesson, h)
        assert names[0] == first
        k = said(result, f"Here {names[0]} stands for {notes[names[0]]}; {names[1]}, for "
                         f"{notes[names[1]]}.")
        assert f"for head {h}" in told[k - 1] and "value row" in told[k - 1]
        assert {*names, *(notes[n] for n in names)} <= shown(result, f"head {h}")
    assert not any("stands for" in c for c in captions(runs["four"]["SettingAndPerson"]))


def test_an_arrow_is_as_wide_as_its_weight_down_to_a_hairline() -> None:
    """A reading's arrows: a weight four times another draws a shaft four times as wide
    (0.718 against 0.166 was drawn 2.7 times as wide), and a weight too small to see still
    gets a hairline, so no source's arrow goes missing."""
    from scenes.story import HAIRLINE, weighted_arrow

    def width(weight: float) -> float:
        arrow = weighted_arrow(np.array([0.0, 2.0, 0.0]), np.array([1.0, -1.0, 0.0]), weight,
                               INK, 16.0)
        return float(arrow.get_stroke_width())

    assert width(0.718) / width(0.166) == pytest.approx(0.718 / 0.166, rel=1e-6)
    assert width(0.5) == pytest.approx(2 * width(0.25), rel=1e-6)
    assert width(0.005) == width(0.0) == HAIRLINE < width(0.166)


@pytest.mark.parametrize("label", ["default", "four"])
def test_head_ones_first_coordinate_is_set_beside_the_one_heads(runs, lessons,
                                                                label: str) -> None:
    """After the heads' messages, head 1's first coordinate beside the one head's (numpy's
    messages of the wide head and of head 1), head 1 led by its heaviest word."""
    result, lesson = runs[label]["OneHeadTwoHeads"], lessons[label]
    wide, first = lesson["sentence"]["wide"], lesson["sentence"]["heads"][0]
    led = lesson["tokens"][int(np.argmax(first["weights"]))]
    names = coordinate_names(lesson, 1)
    a, b = fixed(wide["message"][0]), fixed(first["message"][0])
    if names is not None:
        said(result, f"Beside the one head: it sent {names[0]} {a}; head 1 alone sends {b}, "
                     f"with a weight row of its own, led by “{led}”.")
        assert f"the one head sent {names[0]} {a}; head 1 alone sends {b}" in \
            shown(result, "beside the one head")
    else:
        said(result, f"Beside the one head: its first coordinate was {a}; head 1 alone sends "
                     f"{b}, with a weight row of its own, led by “{led}”.")
