"""The opening story teaches what its voice says: "head" is defined in plain words before a
head is named, the misleading clue is marked apart from the clue that decides, and the
recall stays with Maya in words, drawing the query, key and value its opening names, and
leaves the numbers to the clips that derive them.

Scenes run as dry runs (no video); expected numbers come from the worksheet document and
the float64 numpy recomputation in :mod:`tests.reference`, never from the scenes, and shown
texts are compared digit for digit with those numbers in the lecture's display format."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest

from scenes.kit import HEAD_COLOURS, INK, MUTED, shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet
from worksheet.formatting import Style, format_number

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("SeveralKindsOfDetail", "OneHeadTwoHeads", "SettingAndPerson", "MayaRecall")
LABELS = ("default", "three", "four", "wide")


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


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_recall_stays_in_words_and_leaves_the_arithmetic_to_the_clips_after(
        runs, head_one, label: str) -> None:
    """Clips 07 and 08 derive head 1's numbers step by step: the recall shows none of them
    (no query, key, score, weight or message of any head), only the Maya example and our
    sentence's receiver, and it says where the numbers come."""
    head, result = head_one[label], runs[label]["MayaRecall"]
    figures = {f["key"] for c in result["manifest"]["captions"] for f in c["figures"]}
    figures |= {f[0] for s in result["sections"] for t in s["texts"] for f in t["figures"]}
    assert not [key for key in figures if key.startswith(head["p"].split(".")[0] + ".")]
    named = {key for key in figures if key.startswith("dims.head_numbers[")}  # the map
    assert figures - named <= {"dims.tokens"}, figures
    told = captions(result)
    assert told[1:4] == ["Recall Part II: at “She”, the query asks for a person.",
                         "Maya's key offers one: a good match.",
                         "So Maya's value, details about her, flows to “She”."]
    assert told[4] == (f"Our own sentence's final “{head['tokens'][head['last']]}” will do "
                       "the same, with numbers.")
    assert "step by step" in told[-1]
    assert result["manifest"]["duration"] <= 40


def test_the_recall_opens_by_drawing_the_query_key_and_value_it_names(runs) -> None:
    """The opening says "the query, key and value a head makes from each row": the map
    shows all three, between the embeddings and the heads."""
    result = runs["default"]["MayaRecall"]
    assert "the query, key and value" in captions(result)[0]
    texts = section(result, "where we are")

    def box(text: str) -> list[float]:
        (found,) = [t["box"] for t in texts if t["text"] == text]
        return found

    roles = [box(name) for name in ("query", "key", "value")]
    embeddings, head = box("token"), box("Head 1")
    assert all(r[3] < min(embeddings[1], head[1]) for r in roles)  # under both boxes
    assert roles[0][0] < roles[1][0] < roles[2][0]


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


# --------------------------------------------------------------------------- one head, two heads


def test_the_toy_names_its_sources_neutrally_and_writes_out_the_one_head_mix(runs) -> None:
    """The toy's sources are "source A" and "source B" (not words of our sentence, whose
    real value rows differ), and one head's single weight row is written out for each
    coordinate: the same pair of weights times each coordinate, then the sum."""
    result = runs["default"]["OneHeadTwoHeads"]
    toy = reference.toy(load_worksheet(WORKSHEETS["default"]).document)
    values, weights = toy["values"], toy["weights"][0]
    texts = shown(result, "one mixture")
    assert {"source A", "source B"} <= texts
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
    for head in lesson["sentence"]["heads"]:
        query = head["Q"][lesson["last"]]
        inner = ", ".join("…" if i is None else param(query[i])
                          for i in shown_indices(len(query)))
        assert f"query [{inner}]" in texts
    told = captions(result)
    assert not any("widest" in c or "favours “" in c or "leans most" in c for c in told)
    three = runs[label]["SettingAndPerson"]
    assert sum("widest" in c or "largest weight" in c for c in captions(three)) == \
        lesson["ws"].n_heads


def test_one_heads_weight_scales_each_whole_value_row(runs, lessons) -> None:
    """Beside the one message: the two heaviest sources' value rows, every coordinate, each
    after its one weight."""
    result, lesson = runs["default"]["OneHeadTwoHeads"], lessons["default"]
    wide = lesson["sentence"]["wide"]
    texts = section(result, "one head")
    for j in np.argsort(-wide["weights"], kind="stable")[:2]:
        (label,) = [t for t in texts if t["text"] == f"“{lesson['tokens'][j]}” "
                    f"{fixed(wide['weights'][j])} ×"]
        row = [t for t in texts if any(f[0].startswith(f"river.wide.V[{j}]")
                                       for f in t["figures"])]
        assert [t["text"] for t in row] == [param(x) for x in wide["V"][j]]
        assert all(abs(t["box"][1] - label["box"][1]) < 0.1 for t in row)  # on its line
    said(result, "so every feature is mixed with the same weights.")


# --------------------------------------------------------------------------- the readings


def coordinate_names(lesson: dict[str, Any], head: int) -> list[str] | None:
    """The feature each value coordinate of ``head`` copies (its W_V column's one nonzero
    entry), from the worksheet's names; ``None`` when a column mixes features."""
    W_V = np.asarray(lesson["values"][f"params.h{head}.W_V"])
    names = []
    for column in W_V.T:
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
        assert {"all the others", "value row =", "embedding × W_V"} <= set(texts)
        names = coordinate_names(lesson, h)
        expected = names or [f"value {c + 1}" for c in range(head["V"].shape[1])]
        assert texts.count(expected[0]) == 2 and texts.count(expected[-1]) == 2
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
