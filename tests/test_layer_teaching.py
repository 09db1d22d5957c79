"""The roles-and-shapes clip, the projections clip and the wide-head clip read like the
lesson: the final receiver's row goes through head 1's three matrices, drawn with their
numbers, and on through W_O and the residual; the score's scale is said and written; each
line of code is outlined as its step is said. In the projections clip a row's coordinates are
explained before they are used, the voice names one column of W_Q while that column is
outlined, W_K and W_V are called separate parameters, the second head says only what
differs; the wide head's matrices show their numbers, its favourite source is explained by a
sum of the heads' dot products, and its message names what each coordinate carries. Every
number is checked against a fresh numpy recomputation, digit for digit."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs_by_pair
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "four", "wide")
SCENES = ("RolesAndShapes", "ReceiverProjections", "OneWideHead")


@pytest.fixture(scope="module")
def shown() -> dict[tuple[str, str], dict[str, Any]]:
    """Both scenes' dry runs, by (worksheet label, scene)."""
    return dry_runs_by_pair(SCENES, LABELS)


@pytest.fixture(scope="module")
def lesson() -> dict[str, dict[str, Any]]:
    """Each worksheet's walkthrough sentence recomputed in numpy, with its parameters."""
    made = {}
    for label in LABELS:
        ws = load_worksheet(WORKSHEETS[label])
        doc = ws.document
        made[label] = {**reference.sentence(doc, ws.walkthrough),
                       "tokens": list(ws.sentences[ws.walkthrough]), "name": ws.walkthrough,
                       "features": list(ws.lesson.features), "d_head": ws.d_head,
                       "d_model": ws.d_model,
                       **{f"W_{kind}": [np.array(p[kind], dtype=np.float64)
                                        for p in doc["headsLesson"]["projections"]]
                          for kind in "QKV"}}
    return made


def digits(text: str, expected: float) -> bool:
    """Whether ``text`` shows ``expected`` digit for digit, to as many decimals as it has."""
    places = len(text.split(".")[1]) if "." in text else 0
    made = f"{float(expected):.{places}f}"
    if float(made) == 0:
        made = made.lstrip("-")
    return text == made.replace("-", "−")


def caption(result: dict[str, Any], words: str) -> tuple[int, dict[str, Any]]:
    (found,) = ((i, c) for i, c in enumerate(result["manifest"]["captions"])
                if words in c["template"])
    return found


def section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    (texts,) = (s["texts"] for s in result["sections"] if s["name"] == name)
    return texts


def figure(said: dict[str, Any], key: str) -> str:
    (text,) = (f["text"] for f in said["figures"] if f["key"] == key)
    return text


def selector(matrix: np.ndarray) -> list[int] | None:
    """The input feature each column copies, when every column has one nonzero entry."""
    picked = []
    for column in matrix.T:
        rows = np.flatnonzero(column)
        if len(rows) != 1:
            return None
        picked.append(int(rows[0]))
    return picked


# ---------------------------------------------------------------------- outlines


def _outlined(shown: dict[tuple[str, str], dict[str, Any]],
              name: str) -> list[tuple[int, list[str], list[str]]]:
    """``name``'s pointers on the bundled worksheet: the caption each is made with (counted
    from zero), the value keys of the numbers inside what it outlines and the texts it
    outlines."""
    return [(o["caption"], o["keys"], o["texts"])
            for o in shown[("default", name)]["outlined"]]


@pytest.fixture(scope="module")
def outlines(shown) -> list[tuple[int, list[str], list[str]]]:
    """The projections clip's pointers on the bundled worksheet."""
    return _outlined(shown, "ReceiverProjections")


@pytest.fixture(scope="module")
def roles_outlines(shown) -> list[tuple[int, list[str], list[str]]]:
    """The roles-and-shapes clip's pointers on the bundled worksheet."""
    return _outlined(shown, "RolesAndShapes")


# ---------------------------------------------------------------------- clip 06


def placed(texts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each figure's key, its display text and the box of the text that shows it."""
    return {key: {"text": shown_text, "box": text["box"]} for text in texts
            for key, shown_text in text["figures"]}


def shown_columns(length: int) -> list[int]:
    """The entries a row of ``length`` shows (the first two and the last past four)."""
    return list(range(length)) if length <= 4 else [0, 1, length - 1]


def favourite(made: dict[str, Any]) -> int:
    """Head 1's favourite source for the final receiver, recomputed."""
    return int(np.argmax(made["heads"][0]["weights"]))


@pytest.mark.parametrize("label", LABELS)
def test_the_query_is_the_receivers_and_the_key_and_value_its_favourites(shown, lesson,
                                                                          label: str) -> None:
    """W_Q takes the receiver's row; W_K and W_V take the row of the source head 1 favours
    (not the receiver's own, which is zero on the bundled worksheet), each row of E named
    by its word and each product shown and said digit for digit."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last, top = made["name"], len(made["tokens"]) - 1, favourite(made)
    texts = section(result, "a source's key")
    assert {t["text"] for t in texts if t["kind"] == "word"} == \
        {made["tokens"][-1], made["tokens"][top]}
    on_screen = placed(texts)
    for kind, j in (("Q", last), ("K", top), ("V", top)):
        row = made["E"][j]
        for c in shown_columns(made["d_model"]):
            assert digits(on_screen[f"{name}.E[{j}][{c}]"]["text"], row[c])
        W = made[f"W_{kind}"][0]
        for r in shown_columns(W.shape[0]):
            for c in shown_columns(W.shape[1]):
                assert digits(on_screen[f"params.h1.W_{kind}[{r}][{c}]"]["text"], W[r, c])
        made_here = row @ W  # that row times this head's matrix
        np.testing.assert_allclose(made_here, made["heads"][0][kind][j])
        said = next(c for c in result["manifest"]["captions"]  # the one that names the row
                    if f"W_{kind}" in c["template"] and all(
                        any(f["key"] == f"{name}.h1.{kind}[{j}][{c_}]" for f in c["figures"])
                        for c_ in shown_columns(made["d_head"])))
        for c in shown_columns(made["d_head"]):
            key = f"{name}.h1.{kind}[{j}][{c}]"
            assert digits(figure(said, key), made_here[c])
            assert digits(on_screen[key]["text"], made_here[c])
    if label == "default":  # a source that is found and passes something on
        assert made["tokens"][top] == "river" and np.abs(made["heads"][0]["K"][top]).sum() > 1


@pytest.mark.parametrize("label", LABELS)
def test_head_ones_matrices_name_their_rows_and_columns(shown, lesson, label: str) -> None:
    """Each matrix's rows are named by the input features; each column by the feature that
    coordinate of the head holds (W_Q's as its key's: a query coordinate is matched with
    the key coordinate in its place), or by its number where the head's columns mix."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    texts = section(result, "a source's key")
    picked = shown_columns(made["d_model"])
    boxes = {}
    for kind in "QKV":
        cells = [t for t in texts if any(k.startswith(f"params.h1.W_{kind}[") for k, _ in
                                         t["figures"])]
        boxes[kind] = (min(t["box"][0] for t in cells), max(t["box"][2] for t in cells),
                       max(t["box"][3] for t in cells))
    for r in picked:  # the row names stand left of W_Q, in its rows' order
        (label_,) = (t for t in texts if t["text"] == made["features"][r]
                     and t["box"][2] < boxes["Q"][0] and t["box"][3] < boxes["Q"][2])
        assert label_
    for kind in "QKV":
        copies = selector(made["W_V" if kind == "V" else "W_K"][0])
        left, right, top_ = boxes[kind]
        above = [t["text"] for t in texts if left - 0.6 <= (t["box"][0] + t["box"][2]) / 2
                 <= right + 0.6 and top_ < t["box"][1] < top_ + 0.8 and not t["figures"]]
        expected = ([made["features"][c] for c in copies] if copies is not None else [])
        for name_ in expected[:2]:
            assert name_ in above, (kind, above)
    if label == "default":
        assert selector(made["W_K"][0]) == [0, 1]  # water and finance
    said = caption(result, "Head {h}'s W_Q")[1]
    assert "per coordinate of the head" in said["text"]


def test_the_receivers_only_feature_is_explained(shown, lesson) -> None:
    """The final "the" holds only glue: the clip says what glue is before W_Q is named."""
    result, made = shown[("default", "RolesAndShapes")], lesson["default"]
    row = made["E"][-1]
    (only,) = np.flatnonzero(row)
    i, said = caption(result, "made-up feature")
    assert said["words"]["f"] == made["features"][only] == "glue"
    last = len(made["tokens"]) - 1
    assert digits(figure(said, f"{made['name']}.E[{last}][{only}]"), row[only])
    first_w_q = next(k for k, c in enumerate(result["manifest"]["captions"])
                     if "W_Q" in c["template"] and k > 2)
    assert i < first_w_q


def test_each_matrix_is_outlined_as_its_row_is_said(shown, lesson, roles_outlines) -> None:
    result, made = shown[("default", "RolesAndShapes")], lesson["default"]
    name, last, top = made["name"], len(made["tokens"]) - 1, favourite(made)
    captions = result["manifest"]["captions"]
    for kind, j in (("Q", last), ("K", top), ("V", top)):
        i = next(i for i, c in enumerate(captions)
                 if any(f["key"].startswith(f"{name}.h1.{kind}[{j}]") for f in c["figures"]))
        keys = {key for index, found, _ in roles_outlines if index == i for key in found}
        assert {f"params.h1.W_{kind}[{r}][{c}]" for r in range(made["d_model"])
                for c in range(made["d_head"])} <= keys
        assert {f"{name}.E[{j}][{c}]" for c in range(made["d_model"])} <= keys
        assert f"{name}.h1.{kind}[{j}][0]" in keys
        others = {k for k in "QKV" if k != kind}
        assert not any(key.startswith(tuple(f"params.h1.W_{k}" for k in others))
                       for key in keys)


def test_the_scores_scale_is_said_and_written_as_d_k(shown, lesson) -> None:
    result, made = shown[("default", "RolesAndShapes")], lesson["default"]
    texts = section(result, "inside a head")
    assert "scores = QKᵀ ÷ √d_k" in {t["text"] for t in texts}
    assert not any("√d" in t["text"] and "√d_k" not in t["text"] for t in texts)
    width = made["heads"][0]["K"].shape[1]  # one head's key width
    assert made["heads"][0]["scale"] == pytest.approx(np.sqrt(width))
    (written,) = (t for t in texts if t["text"].startswith("d_k = "))
    assert digits(written["figures"][0][1], width)
    (said,) = (c for c in result["manifest"]["captions"] if "√d_k" in c["template"]
               and "d_k =" in c["template"])
    assert digits(figure(said, "dims.d_head"), width)
    assert "key width" in said["text"]


@pytest.mark.parametrize("label", LABELS)
def test_the_receivers_joined_row_is_carried_through_w_o_and_the_residual(
        shown, lesson, label: str) -> None:
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last = made["name"], len(made["tokens"]) - 1
    on_screen = placed(section(result, "residual"))
    joined = made["joined"][-1]
    W_O = made["W_O"]
    delta = joined @ W_O  # the receiver's row of the update, recomputed here
    updated = made["E"][-1] + delta
    np.testing.assert_allclose(delta, made["delta"][-1])
    columns = shown_columns(made["d_model"])
    for r in columns:
        assert digits(on_screen[f"{name}.joined[{last}][{r}]"]["text"], joined[r])
        for c in columns:
            assert digits(on_screen[f"params.W_O[{r}][{c}]"]["text"], W_O[r, c])
    for c in columns:
        boxes = []
        for key, row in (("delta", delta), ("E", made["E"][-1]), ("E_prime", updated)):
            text = on_screen[f"{name}.{key}[{last}][{c}]"]
            assert digits(text["text"], row[c])
            boxes.append(text["box"])
        assert boxes[0][1] > boxes[1][3] and boxes[1][1] > boxes[2][3]  # ΔE, + E, = E′
        assert max(b[2] for b in boxes) - min(b[2] for b in boxes) < 0.02  # one column


def test_each_code_line_is_outlined_as_its_step_is_said(shown, lesson,
                                                        roles_outlines) -> None:
    result, made = shown[("default", "RolesAndShapes")], lesson["default"]
    captions = result["manifest"]["captions"]
    for words, line in (("triu", ".triu(1)"), ("masked_fill", "masked_fill(future"),
                        ("mix the values", "return A @ V")):
        (i,) = (i for i, c in enumerate(captions) if words in c["template"])
        texts = [t for index, _, found in roles_outlines if index == i for t in found]
        assert any(line in t for t in texts), (words, texts)
    (said,) = (c for c in captions if "masked_fill" in c["template"])
    assert "minus infinity" in said["text"] and "no weight" in said["text"]
    head = made["heads"][0]  # the claim itself: masked sources get weight zero
    n = len(made["tokens"])
    scores = head["Q"] @ head["K"].T / np.sqrt(made["d_head"])
    scores[np.triu(np.ones((n, n), dtype=bool), 1)] = -np.inf
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    assert np.all(weights[np.triu(np.ones((n, n), dtype=bool), 1)] == 0)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)


@pytest.mark.parametrize("label", LABELS)
def test_roles_clip_works_the_querys_first_coordinate_term_by_term(shown, lesson,
                                                                   label: str) -> None:
    """"Its first coordinate is the row times W_Q's first column, added up": each shown
    term on screen, and the sum of all of them on screen and said."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last = made["name"], len(made["tokens"]) - 1
    row, W_Q = made["E"][-1], made["W_Q"][0]
    terms = row * W_Q[:, 0]  # the receiver's row times W_Q's first column, entry by entry
    np.testing.assert_allclose(terms.sum(), made["heads"][0]["Q"][-1][0])
    rows = shown_columns(made["d_model"])
    keys = [key for r in rows for key in (f"{name}.E[{last}][{r}]", f"params.h1.W_Q[{r}][0]")]
    keys.append(f"{name}.h1.Q[{last}][0]")
    expected = [number for r in rows for number in (row[r], W_Q[r, 0])] + [terms.sum()]
    (line,) = (t for t in section(result, "roles") if [k for k, _ in t["figures"]] == keys)
    assert all(digits(text, number) for (_, text), number in zip(line["figures"], expected,
                                                                  strict=True))
    assert line["text"].count(" × ") == len(rows)
    assert line["text"].endswith(" = " + line["figures"][-1][1])
    assert ("…" in line["text"]) == (len(rows) < made["d_model"])
    _, said = caption(result, "first column")  # the terms are shown; the sum is said
    assert [f["key"] for f in said["figures"]] == keys[-1:]
    assert digits(said["figures"][0]["text"], terms.sum())
    assert "row times W_Q's first column" in said["text"]


@pytest.mark.parametrize("label", LABELS)
def test_roles_clip_dots_the_top_sources_key_with_the_query(shown, lesson, label: str) -> None:
    """Head 1's favourite source ("river" on the bundled worksheet): the query dotted with
    its key gives its dot product, shown and said; divided by √d_k and softmaxed over every
    source it is the source's weight, in one line, shown and said."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last, head = made["name"], len(made["tokens"]) - 1, made["heads"][0]
    top = favourite(made)
    q, k = head["Q"][-1], head["K"][top]
    np.testing.assert_allclose(made["E"][top] @ made["W_K"][0], k)
    dot = float(q @ k)
    columns = shown_columns(made["d_head"])
    texts = section(result, "a source's key")
    dot_keys = [key for c in columns
                for key in (f"{name}.h1.Q[{last}][{c}]", f"{name}.h1.K[{top}][{c}]")]
    dot_keys.append(f"{name}.h1.dots[{top}]")
    expected = [number for c in columns for number in (q[c], k[c])] + [dot]
    (match,) = (t for t in texts if [key for key, _ in t["figures"]] == dot_keys)
    assert all(digits(text, number) for (_, text), number in zip(match["figures"], expected,
                                                                  strict=True))
    _, said = caption(result, "dotted with that key")
    assert digits(figure(said, f"{name}.h1.dots[{top}]"), dot)
    score = dot / np.sqrt(made["d_head"])  # the scale, then the softmax over every source
    scores = head["Q"][-1] @ head["K"].T / np.sqrt(made["d_head"])
    weight = np.exp(score) / np.exp(scores).sum()
    assert weight == pytest.approx(head["weights"][top])
    keys = [f"{name}.h1.dots[{top}]", "dims.d_head", f"{name}.h1.scores[{top}]",
            "dims.tokens", f"{name}.h1.weights[{top}]"]
    (line,) = (t for t in texts if [key for key, _ in t["figures"]] == keys)
    numbers = [dot, made["d_head"], score, len(made["tokens"]), weight]
    assert all(digits(text, number) for (_, text), number in zip(line["figures"], numbers,
                                                                  strict=True))
    assert "softmax" in line["text"] and "√" in line["text"]
    _, said = caption(result, "Divided by √{k}")
    assert digits(figure(said, f"{name}.h1.scores[{top}]"), score)
    assert digits(figure(said, f"{name}.h1.weights[{top}]"), weight)
    assert said["words"]["u"] == made["tokens"][top]
    if label == "default":
        assert made["tokens"][top] == "river" and match["figures"][-1][1] == "6.9"
        assert (line["figures"][2][1], line["figures"][4][1]) == ("4.879", "0.718")


@pytest.mark.parametrize("label", LABELS)
def test_roles_clip_names_e_as_so_many_tokens_of_so_many_coordinates(shown, lesson,
                                                              label: str) -> None:
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    tokens, width = made["E"].shape
    assert tokens == len(made["tokens"]) and width == made["d_model"]
    texts = section(result, "inside a head")
    (shape,) = (t for t in texts
                if [tuple(f) for f in t["figures"]] == [("shapes.E", f"[{tokens}, {width}]")])
    (count,) = (t for t in texts if t["text"] == f"{tokens} tokens,")
    (each,) = (t for t in texts if t["text"] == f"{width} coordinates each")
    assert [key for key, _ in count["figures"]] == ["dims.tokens"]
    assert [key for key, _ in each["figures"]] == ["dims.d_model"]
    assert shape["box"][1] > count["box"][3] > each["box"][3]  # on E's card, under its shape
    _, said = caption(result, "coordinates each")
    assert f"E is [{tokens}, {width}]: {tokens} tokens, {width} coordinates each" in said["text"]


@pytest.mark.parametrize("label", LABELS)
def test_roles_clip_sets_the_update_lines_under_w_os_columns(shown, lesson, label: str) -> None:
    """ΔE, E and E′ are worked in columns, numbers set right as W_O's are: each coordinate
    ends within the column of W_O that makes it and starts clear of the column before."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last = made["name"], len(made["tokens"]) - 1
    on_screen = placed(section(result, "residual"))
    columns = shown_columns(made["d_model"])
    before = -np.inf  # the right edge of the column to the left
    for c in columns:
        column = [on_screen[f"params.W_O[{r}][{c}]"]["box"] for r in columns]
        left, right = min(b[0] for b in column), max(b[2] for b in column)
        for key in ("delta", "E", "E_prime"):
            box = on_screen[f"{name}.{key}[{last}][{c}]"]["box"]
            assert left <= box[2] <= right + 0.02 and box[0] > before, (key, c)
        before = right


@pytest.mark.parametrize("label", LABELS)
def test_roles_clip_says_what_an_entry_off_w_os_diagonal_moves(shown, lesson,
                                                               label: str) -> None:
    """The first nonzero entry of W_O off its diagonal (among those shown) is said with its
    number: that much of one joined coordinate goes into another coordinate of ΔE, whose
    sum of products (joined coordinate × W_O entry, the nonzero ones) is written out and,
    when every term is shown, said; the joined row names what each coordinate carries."""
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    name, last = made["name"], len(made["tokens"]) - 1
    W_O, d = made["W_O"], made["d_head"]
    columns = shown_columns(made["d_model"])
    found = [(r, c) for r in columns for c in columns if r != c and W_O[r, c] != 0]
    said = [c for c in result["manifest"]["captions"] if "Off the diagonal" in c["template"]]
    if not found:
        assert not said
        return
    (r, c), (said,) = found[0], said
    (entry,) = {f["text"] for f in said["figures"] if f["key"] == f"params.W_O[{r}][{c}]"}
    assert digits(entry, W_O[r, c])
    texts = section(result, "mixing")
    assert placed(texts)[f"params.W_O[{r}][{c}]"]["text"] == entry
    joined = made["joined"][-1]
    terms = [k for k in columns if W_O[k, c] != 0]
    total = joined @ W_O[:, c]  # the whole column, every term
    np.testing.assert_allclose(total, made["delta"][-1][c])
    keys = [key for k in terms for key in (f"{name}.joined[{last}][{k}]",
                                           f"params.W_O[{k}][{c}]")]
    keys.append(f"{name}.delta[{last}][{c}]")
    (written,) = (t for t in texts if [key for key, _ in t["figures"]] == keys)
    numbers = [x for k in terms for x in (joined[k], W_O[k, c])] + [total]
    assert all(digits(text, x) for (_, text), x in zip(written["figures"], numbers,
                                                        strict=True))
    assert written["words"] == [made["features"][c]]
    if len(columns) == made["d_model"]:  # every term shown: said term by term
        assert [f["key"] for f in said["figures"]][-len(keys):] == keys
    assert digits(figure(said, f"{name}.delta[{last}][{c}]"), total)
    copies = selector(made["W_V"][r // d])
    if copies is not None:  # the joined coordinate is that head's copy of one feature
        assert said["words"] == {"f": made["features"][copies[r % d]],
                                 "g": made["features"][c]}
        names = {t["text"] for t in texts if t["box"][1] > max(
            b["box"][3] for b in texts if any(k.startswith(f"{name}.joined[") for k, _ in
                                              b["figures"]))}
        assert made["features"][copies[r % d]] in names
    if label == "default":
        assert (said["words"]["f"], said["words"]["g"]) == ("person", "water")
        assert "2.617 × 1 + 1.552 × 0.25 = 3.005" in said["text"] and W_O[r, c] == 0.25
        assert written["text"].endswith("2.617 × 1 + 1.552 × 0.25 = 3.005")


def test_the_heads_messages_say_where_they_come_from(shown) -> None:
    """The messages the heads send come with what they are (weights times value rows),
    and a negative one with what its colour means."""
    result = shown[("default", "RolesAndShapes")]
    _, said = caption(result, "Back to")
    assert "weights times its value rows" in said["text"]
    texts = section(result, "after the heads")
    assert any(f[1].startswith("−") for t in texts for f in t["figures"])
    assert "(red: below zero)" in {t["text"] for t in texts}


class GridProbe:
    """Mixed into every dry run of the roles clip (``tests.scene_runner.PROBES``): at the
    end of each caption, the caption and every grid of shapes then on screen (a mobject with
    rows of ``cells``, none of them text), as which of its cells are filled, and its width."""

    def setup(self) -> None:
        self.grids_said: list[tuple[str, list[tuple[list[list[bool]], float]]]] = []
        super().setup()  # type: ignore[misc]

    def say(self, template: str, *animations: Any, **kwargs: Any) -> None:
        from manim import Text

        super().say(template, *animations, **kwargs)  # type: ignore[misc]
        on = self.get_mobject_family_members()  # type: ignore[attr-defined]
        ids = {id(m) for m in on}
        grids = []
        for mob in on:
            rows = getattr(mob, "cells", None)
            if not rows or not all(isinstance(row, list) for row in rows):
                continue
            cells = [cell for row in rows for cell in row]
            if any(isinstance(cell, Text) for cell in cells) or not all(
                    id(cell) in ids for cell in cells):
                continue
            grids.append(([[cell.get_fill_opacity() > 0.5 for cell in row] for row in rows],
                          float(mob.width)))
        self.grids_said.append((self.captions[-1].text, grids))  # type: ignore[attr-defined]

    def probed(self) -> list[tuple[str, list[tuple[list[list[bool]], float]]]]:
        return self.grids_said


def test_roles_clip_shows_the_mask_grid_when_the_mask_is_spoken_of(shown, lesson) -> None:
    """Whenever a caption speaks of the mask (the future, masked scores), the sentence's
    causal mask is drawn: receivers down, sources across, each later source filled; where
    the code explains it, large enough to read (cells about 13 px at 480p)."""
    said = shown[("default", "RolesAndShapes")]["probed"]
    n = len(lesson["default"]["tokens"])
    future = np.triu(np.ones((n, n), dtype=bool), 1)  # a receiver's later sources
    assert np.array_equal(future, lesson["default"]["mask"].astype(bool))
    spoken = [(text, grids) for text, grids in said
              if re.search(r"\bmask|\bfuture\b", text, re.IGNORECASE)]
    assert len(spoken) >= 3  # "softmax(scores + mask)" is said where it is shown
    widths = []
    for text, grids in spoken:
        drawn = [width for grid, width in grids if np.array_equal(np.array(grid), future)]
        assert drawn, text
        widths.append(max(drawn))
    assert min(widths) >= 1.5 and max(widths) >= 0.2 * n  # 854 px span 14.2 units
    _, said = caption(shown[("default", "RolesAndShapes")], "softmax gives the weights A")
    assert "mask" in said["text"]


def test_the_roles_clip_stays_under_its_length(shown) -> None:
    """Paced by reading time, as the dry runs are; the voice is a little slower."""
    for label in LABELS:
        assert shown[(label, "RolesAndShapes")]["manifest"]["duration"] <= 160.0


# ---------------------------------------------------------------------- clip 07


def test_the_receivers_coordinates_are_explained_before_w_q(shown, lesson) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    captions = result["manifest"]["captions"]
    first_w_q = next(i for i, c in enumerate(captions) if "W_Q" in c["template"])
    before = captions[:first_w_q]
    assert any(set(made["features"]) <= set(c["words"].values()) for c in before)
    row = made["E"][-1]
    strongest = int(np.argmax(row))
    assert np.count_nonzero(row) == 1  # the receiver's row is that feature alone
    i, said = caption(result, "toy feature")
    assert i < first_w_q and "function words" in said["template"]
    assert said["words"] == {"w": made["tokens"][-1], "f": made["features"][strongest]}
    assert said["words"]["f"] == "glue"
    assert digits(figure(said, f"{made['name']}.E[{len(made['tokens']) - 1}][{strongest}]"),
                  row[strongest])
    i, said = caption(result, "need not have names")
    assert i < first_w_q


def test_one_column_of_w_q_is_outlined_as_the_voice_names_it(shown, lesson,
                                                            outlines) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    i, said = caption(result, "first column")
    last, name = len(made["tokens"]) - 1, made["name"]
    keys = {key for index, found, _ in outlines if index == i for key in found}
    column = {f"params.h1.W_Q[{r}][0]" for r in range(made["d_model"])}
    assert column <= keys
    assert not any(k.startswith("params.h1.W_Q[") and not k.endswith("[0]") for k in keys)
    assert {f"{name}.E[{last}][{c}]" for c in range(made["d_model"])} <= keys
    assert f"{name}.h1.Q[{last}][0]" in keys
    expected = made["E"][-1] @ made["W_Q"][0][:, 0]
    assert expected == pytest.approx(made["heads"][0]["Q"][-1][0])
    assert digits(figure(said, f"{name}.h1.Q[{last}][0]"), expected)


def test_equal_w_k_and_w_v_are_called_separate_parameters(shown, lesson, outlines) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    assert np.array_equal(made["W_K"][0], made["W_V"][0])
    i, said = caption(result, "equal entries")
    assert "separate parameters" in said["template"]
    keys = {key for index, found, _ in outlines if index == i for key in found}
    assert any(k.startswith("params.h1.W_K[") for k in keys)
    assert any(k.startswith("params.h1.W_V[") for k in keys)
    texts = {t["text"] for t in section(result, "head 1 key and value")}
    assert "same entries here, two separate parameters" in texts


def test_the_second_head_says_only_what_differs(shown, lesson) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    captions = result["manifest"]["captions"]
    starts = [i for i, c in enumerate(captions) if c["template"].startswith("Head {h}")]
    first, second = starts[0], starts[1]
    assert captions[second]["slots"]["h"] == "dims.head_numbers[1]"
    one, two = captions[first:second], captions[second:]
    assert len(two) < len(one)
    assert not {c["template"] for c in one} & {c["template"] for c in two}
    q = made["heads"][1]["Q"][-1]
    (live,) = np.flatnonzero(q)
    keyed = selector(made["W_K"][1])
    assert keyed is not None
    _, said = caption(result, "asks for {f}")
    assert said["words"]["f"] == made["features"][keyed[live]] == "person"
    _, said = caption(result, "Its W_K reads")
    first_keyed = selector(made["W_K"][0])
    assert [said["words"][f"f{k}"] for k in range(2)] == \
        [made["features"][c] for c in keyed] == ["person", "glue"]
    assert [said["words"][f"g{k}"] for k in range(2)] == \
        [made["features"][c] for c in first_keyed]


# ---------------------------------------------------------------------- clip 10


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_heads_projections_show_their_numbers(shown, lesson, label: str) -> None:
    result, made = shown[(label, "OneWideHead")], lesson[label]
    placed = {key: text for t in section(result, "own projections")
              for key, text in t["figures"]}
    for h, W_Q in enumerate(made["W_Q"], start=1):
        columns = range(W_Q.shape[1]) if W_Q.shape[1] <= 4 else (0, 1, W_Q.shape[1] - 1)
        for r in range(W_Q.shape[0]):
            for c in columns:
                assert digits(placed[f"params.h{h}.W_Q[{r}][{c}]"], W_Q[r, c])


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_wide_score_adds_every_heads_dot_product(shown, lesson, label: str) -> None:
    result, made = shown[(label, "OneWideHead")], lesson[label]
    wide, heads, name = made["wide"], made["heads"], made["name"]
    top = int(np.argmax(wide["weights"]))
    pooled = sum(head["dots"] for head in heads)
    np.testing.assert_allclose(pooled, wide["dots"])  # one wide dot product = every head's
    assert wide["scale"] == pytest.approx(np.sqrt(made["d_model"]))
    assert top == int(np.argmax(pooled))  # the largest total wins the one weight row
    if label == "default":
        assert made["tokens"][top] == "fisherman" and wide["scale"] == 2.0
    _, said = caption(result, "For “{w}”:")
    assert said["words"]["w"] == made["tokens"][top]
    for h, head in enumerate(heads, start=1):
        assert digits(figure(said, f"{name}.h{h}.dots[{top}]"), head["dots"][top])
    assert digits(figure(said, f"{name}.wide.dots[{top}]"), wide["dots"][top])
    assert digits(figure(said, "dims.sqrt_joined"), wide["scale"])
    assert digits(figure(said, f"{name}.wide.scores[{top}]"), wide["scores"][top])
    on_screen = {key for t in section(result, "pooled") for key, _ in t["figures"]}
    assert {f"{name}.h{h}.dots[{top}]" for h in range(1, len(heads) + 1)} <= on_screen
    assert f"{name}.wide.scores[{top}]" in on_screen


def test_the_messages_name_what_each_coordinate_carries(shown, lesson) -> None:
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, d = made["name"], made["d_head"]
    texts = section(result, "messages")
    carried = []
    for W_V in made["W_V"]:
        carried += [made["features"][c] for c in selector(W_V)]
    for k, feature in enumerate(carried):
        number = max((t for t in texts  # the table's, above any sum worked below it
                      if any(f[0] == f"{name}.wide.message[{k}]" for f in t["figures"])),
                     key=lambda t: t["box"][1])
        assert digits(number["text"], made["wide"]["message"][k])
        middle = (number["box"][0] + number["box"][2]) / 2
        above = [t for t in texts if t["text"] == feature and t["box"][1] > number["box"][3]
                 and t["box"][0] <= middle <= t["box"][2]]
        assert above, (k, feature)
    for key, values in (("wide.message", made["wide"]["message"]),
                        (f"joined[{len(made['tokens']) - 1}]", made["joined"][-1])):
        said = next(c for c in result["manifest"]["captions"]
                    if any(f["key"].startswith(f"{name}.{key}[") for f in c["figures"]))
        for k, feature in enumerate(carried):
            shown_text = figure(said, f"{name}.{key}[{k}]")
            assert digits(shown_text, values[k])
            assert f"{feature} {shown_text}" in said["text"]  # each number after its name
    assert len(carried) == made["d_model"] and d * len(made["W_V"]) == made["d_model"]


def test_no_caption_reads_a_bare_list_of_numbers(shown, lesson) -> None:
    """Where each coordinate has a name (the bundled worksheet), a list of numbers as wide
    as the model is never read as a bracketed list: each number comes after its name; a
    shorter list comes with a sentence that says what it is."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    for said in result["manifest"]["captions"]:
        for group in re.findall(r"\[([^\]]*)\]", said["text"]):
            assert len(group.split(", ")) < made["d_model"], said["text"]
            rest = re.sub(r"\[[^\]]*\]", " ", said["text"])
            assert len(re.findall(r"[A-Za-z]+", rest)) >= 5, said["text"]


def test_w_k_w_v_and_the_wide_query_are_drawn_with_their_numbers(shown, lesson) -> None:
    """"The same holds for W_K and W_V" shows them; "4 coordinates long" shows the final
    receiver's wide query: each head's query, side by side."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, last = made["name"], len(made["tokens"]) - 1
    own = {key: text for t in section(result, "keys and values") for key, text in t["figures"]}
    for h in range(1, len(made["W_K"]) + 1):
        for kind in "KV":
            W = made[f"W_{kind}"][h - 1]
            for r in range(W.shape[0]):
                for c in range(W.shape[1]):
                    assert digits(own[f"params.h{h}.W_{kind}[{r}][{c}]"], W[r, c])
    joined_q = np.concatenate([head["Q"][-1] for head in made["heads"]])
    np.testing.assert_allclose(made["wide"]["products"][made["wide"]["top_source"]],
                               joined_q * np.concatenate([head["K"][made["wide"]["top_source"]]
                                                          for head in made["heads"]]))
    query = [text for t in section(result, "join projections") for key, text in t["figures"]
             if key.startswith(f"{name}.h") and f".Q[{last}]" in key]
    assert len(query) == made["d_model"] == 4
    assert all(digits(text, q) for text, q in zip(query, joined_q, strict=True))
    _, said = caption(result, "gets this wide query")
    assert said["words"]["w"] == made["tokens"][last] == "the"


def test_the_wide_products_are_written_for_its_favourite(shown, lesson) -> None:
    """"Adds up 4 coordinate products" writes them out, each head's too."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide = made["name"], made["wide"]
    top = wide["top_source"]
    on_screen = {key: text for t in section(result, "scale") for key, text in t["figures"]}
    for c in range(made["d_model"]):
        assert digits(on_screen[f"{name}.wide.products[{top}][{c}]"], wide["products"][top][c])
    for h, head in enumerate(made["heads"], start=1):
        for c in range(made["d_head"]):
            assert digits(on_screen[f"{name}.h{h}.products[{top}][{c}]"],
                          head["products"][top][c])
    assert digits(on_screen[f"{name}.wide.dots[{top}]"], wide["dots"][top])


def test_the_softmax_is_shown_before_the_weight_bars(shown, lesson) -> None:
    """The scores, then e to each score and their sum over every source, then each weight,
    and only then the bars; heads that give the same dot product are said to."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide = made["name"], made["wide"]
    top = wide["top_source"]
    softmax_at, said = caption(result, "raises e to each score")
    assert digits(figure(said, f"{name}.wide.exps[{top}]"), np.exp(wide["scores"][top]))
    assert digits(figure(said, f"{name}.wide.denominator"), np.exp(wide["scores"]).sum())
    picks = [top] + [head["top_source"] for head in made["heads"]]
    weights_said = [c for c in result["manifest"]["captions"]
                    if c["template"].startswith("The weight of")]
    assert [c["words"]["w"] for c in weights_said] == \
        [made["tokens"][j] for j in dict.fromkeys(picks)] == ["fisherman", "river"]
    for said, j in zip(weights_said, dict.fromkeys(picks), strict=True):
        assert digits(figure(said, f"{name}.wide.weights[{j}]"), wide["weights"][j])
        assert digits(figure(said, f"{name}.wide.exps[{j}]"), wide["exps"][j])
    bars_at, _ = caption(result, "drawn as a bar")
    assert softmax_at < bars_at
    assert made["heads"][0]["dots"][top] == pytest.approx(made["heads"][1]["dots"][top])
    caption(result, "happen to give “{w}” the same dot product")


def _worked(made: dict[str, Any], prefix: str, values: np.ndarray, weights: np.ndarray,
            c: int) -> dict[str, Any]:
    """One message coordinate as a worked sum, recomputed: the two heaviest sources
    (ties in sentence order), their weight × value parts, the rest and the total."""
    order = np.argsort(-weights, kind="stable")[:2]
    parts = weights * values[:, c]
    return {"order": [int(j) for j in order], "parts": parts,
            "rest": parts.sum() - parts[order].sum(), "total": parts.sum(), "prefix": prefix}


def test_one_coordinate_is_worked_as_a_sum_for_the_wide_head_and_for_head_one(shown,
                                                                             lesson) -> None:
    """Water, the coordinate head 1 sends most, as Σ weight × value: for the wide head,
    "fisherman" 0.708 × 2 and "river" 0.178 × 3.1, the rest, 2.023; for head 1, "river"
    0.718 × 3.1 first, 2.617 in all. Each part, rest and total on screen and said."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, first = made["name"], made["wide"], made["heads"][0]
    c = first["message_top"]
    feature = made["features"][selector(made["W_V"][0])[c]]
    assert feature == "water"
    sums = [_worked(made, f"{name}.wide", wide["V"], wide["weights"], c),
            _worked(made, f"{name}.h1", first["V"], first["weights"], c)]
    np.testing.assert_allclose(sums[0]["total"], wide["message"][c])
    np.testing.assert_allclose(sums[1]["total"], made["joined"][-1][c])
    assert [made["tokens"][j] for j in sums[0]["order"]] == ["fisherman", "river"]
    assert [made["tokens"][j] for j in sums[1]["order"]] == ["river", "fisherman"]
    on_screen = placed(section(result, "messages"))
    lines = {key: t["text"] for t in section(result, "messages") for key, _ in t["figures"]}
    for worked in sums:
        prefix = worked["prefix"]
        for j in worked["order"]:
            key = f"{prefix}.contributions[{j}][{c}]"
            assert lines[key].startswith("≈ ") and digits(on_screen[key]["text"],
                                                          worked["parts"][j])
            assert f"{prefix}.weights[{j}]" in on_screen
        assert digits(on_screen[f"{prefix}.rest[{c}]"]["text"], worked["rest"])
        assert digits(on_screen[f"{prefix}.message[{c}]"]["text"], worked["total"])
    wide_sum, own = sums
    (j1, j2), mine = wide_sum["order"], own["order"][0]
    _, said = caption(result, "Worked out")
    assert said["words"] == {"f": feature, "u": made["tokens"][j1]}
    assert digits(figure(said, f"{name}.wide.contributions[{j1}][{c}]"),
                  wide_sum["parts"][j1])
    _, said = caption(result, "from the rest")
    assert said["words"] == {"u": made["tokens"][j2]}
    assert digits(figure(said, f"{name}.wide.rest[{c}]"), wide_sum["rest"])
    assert digits(figure(said, f"{name}.wide.message[{c}]"), wide_sum["total"])
    _, said = caption(result, "mostly from")
    assert said["words"]["u"] == made["tokens"][mine] == "river"
    assert digits(figure(said, f"{name}.h1.contributions[{mine}][{c}]"), own["parts"][mine])
    assert digits(figure(said, f"{name}.h1.message[{c}]"), own["total"])


def test_the_head_the_wide_row_follows_keeps_one_coordinate_and_loses_another(shown,
                                                                               lesson) -> None:
    """Head 2 favours "fisherman", as the wide head does: its person coordinate comes
    through almost the same (1.522 against 1.552); its glue drops (0.204 against 0.538)."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, last = made["name"], made["wide"], len(made["tokens"]) - 1
    assert made["heads"][1]["top_source"] == wide["top_source"]
    joined = made["joined"][-1]
    person, glue = 2, 3  # head 2's coordinates in the joined row
    assert abs(wide["message"][person] / joined[person] - 1) < 0.05
    assert wide["message"][glue] / joined[glue] < 0.5
    _, said = caption(result, "almost the same")
    assert said["words"] == {"f": "person", "g": "glue"} and "drops" in said["text"]
    for slot, key, number in (("a", f"wide.message[{person}]", wide["message"][person]),
                              ("b", f"joined[{last}][{person}]", joined[person]),
                              ("c", f"wide.message[{glue}]", wide["message"][glue]),
                              ("e", f"joined[{last}][{glue}]", joined[glue])):
        assert said["slots"][slot] == f"{name}.{key}"
        assert digits(figure(said, f"{name}.{key}"), number)


@pytest.mark.parametrize("label", LABELS)
def test_kept_and_changed_are_the_numbers_choice_and_drops_means_smaller(shown, lesson,
                                                                         label: str) -> None:
    """On every worksheet: the twin head's "almost the same" coordinate is within 5% of its
    separate-heads number and its changed one off by 30% or more (numpy, from the rule, not
    from the program); the verb is "drops" exactly when the wide head's number is the
    smaller. Said only with both such coordinates in the table (none with one head, and
    none on four heads, whose twin keeps both its coordinates within 30%)."""
    result, made = shown[(label, "OneWideHead")], lesson[label]
    wide, heads, joined = made["wide"], made["heads"], made["joined"][-1]
    said = [c for c in result["manifest"]["captions"] if "almost the same" in c["template"]]
    twins = [h for h, head in enumerate(heads) if head["top_source"] == wide["top_source"]]
    others = [h for h, head in enumerate(heads) if head["top_source"] != wide["top_source"]]
    if not twins or not others:
        assert not said
        return
    d, twin = made["d_head"], twins[0]
    own = [k for k in range(twin * d, (twin + 1) * d) if joined[k] != 0]
    off = {k: abs(wide["message"][k] / joined[k] - 1) for k in own}
    kept = [k for k in own if off[k] <= 0.05]
    changed = [k for k in own if off[k] >= 0.3]
    table = shown_columns(made["d_model"])
    if not kept or not changed or kept[0] not in table or changed[0] not in table:
        assert not said
        return
    (line,) = said
    name, last = made["name"], len(made["tokens"]) - 1
    assert line["slots"]["a"] == f"{name}.wide.message[{kept[0]}]"
    assert line["slots"]["c"] == f"{name}.wide.message[{changed[0]}]"
    assert line["slots"]["e"] == f"{name}.joined[{last}][{changed[0]}]"
    smaller = bool(wide["message"][changed[0]] < joined[changed[0]])
    assert ("drops" in line["text"]) is smaller and ("grows" in line["text"]) is not smaller


def test_the_favourite_of_head_one_shows_its_own_weight_when_named(shown, lesson,
                                                                   ) -> None:
    """"Head 1's favourite, river" comes with head 1's own weight for it, on screen beside
    the word and said."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, first = made["name"], made["heads"][0]
    j = first["top_source"]
    _, said = caption(result, "Head {h}'s favourite")
    assert said["words"]["w"] == made["tokens"][j] == "river"
    assert digits(figure(said, f"{name}.h1.weights[{j}]"), first["weights"][j])
    (mark,) = (t for t in section(result, "pooled")
               if [k for k, _ in t["figures"]] == ["dims.head_numbers[0]",
                                                   f"{name}.h1.weights[{j}]"])
    assert mark["text"] == "Head 1: 0.718"


def test_weights_drawn_as_columns_are_called_columns(shown) -> None:
    """While the weights stand as columns of bars, the voice calls each head's weights a
    column (a row of the attention matrix, drawn here as a column)."""
    result = shown[("default", "OneWideHead")]
    captions = result["manifest"]["captions"]
    start = next(i for i, c in enumerate(captions) if "drawn as a bar" in c["template"])
    end = next(i for i, c in enumerate(captions) if "the value rows" in c["template"])
    for said in captions[start + 1:end]:
        assert " row" not in said["text"] or "drawn here as a column" in said["text"], \
            said["text"]
    assert sum("column" in c["text"] for c in captions[start:end]) >= 3


def test_the_wide_scale_is_written_as_a_division(shown, lesson) -> None:
    """In the pooled table the scale reads "÷ 2 =" under "÷ √4", so that "9.66 ÷ 2 = 4.830"
    reads along the row, never a bare "2.000" between the dot product and the score; the
    voice says "divided by √4, that is by 2"."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    texts = [t for t in section(result, "pooled")
             if any(key == "dims.sqrt_joined" for key, _ in t["figures"])]
    assert len(texts) == 2  # one on the favourite's row, one on head 1's favourite's
    for text in texts:
        ((_, scale),) = text["figures"]
        assert scale == "2" and float(scale) == np.sqrt(made["d_model"])
        assert text["text"] == f"÷ {scale} ="
    assert "÷ √4" in [t["text"] for t in section(result, "pooled")]
    _, said = caption(result, "For “{w}”:")
    assert "divided by √4, that is by 2," in said["text"]


def test_a_product_of_rounded_numbers_is_never_written_as_exact(shown, lesson) -> None:
    """"0.708 × 2 = 1.417" does not add up as written (0.708 × 2 is 1.416): a product of
    rounded weights is never followed by "=" unless it adds up; its part is written "≈"
    on screen, said as "about", beside a note that the parts use the unrounded weights;
    every such part is still the unrounded product, digit for digit."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, first = made["name"], made["wide"], made["heads"][0]
    number = r"(−?[0-9]+(?:\.[0-9]+)?)"
    product = re.compile(number + r" × " + number + r" = " + number)

    def value(text: str) -> float:
        return float(text.replace("−", "-"))

    texts = [t["text"] for t in section(result, "messages")]
    texts += [c["text"] for c in result["manifest"]["captions"]]
    for text in texts:
        for a, b, c in product.findall(text):
            assert digits(c, value(a) * value(b)), text
    c = first["message_top"]
    top = wide["top_source"]
    near = [t for t in section(result, "messages") if t["text"].startswith("≈ ")]
    on_screen = {key: text for t in near for key, text in t["figures"]}
    expected = {f"{name}.wide.contributions[{top}][{c}]":
                wide["weights"][top] * wide["V"][top][c],
                f"{name}.h1.contributions[{first['top_source']}][{c}]":
                first["weights"][first["top_source"]] * first["V"][first["top_source"]][c]}
    for key, product_ in expected.items():
        assert digits(on_screen[key], product_), key
    assert "weights rounded; each part uses the unrounded weight" in texts
    _, said = caption(result, "Worked out")
    weight = figure(said, f"{name}.wide.weights[{top}]")
    part = figure(said, f"{name}.wide.contributions[{top}][{c}]")
    assert f"{weight} × {figure(said, f'{name}.wide.V[{top}][{c}]')}, about {part}," \
        in said["text"]
    assert digits(part, wide["weights"][top] * wide["V"][top][c])
    assert not digits(part, value(weight) * wide["V"][top][c])  # why it says "about"


def test_the_clip_ends_on_what_the_shared_row_costs(shown, lesson) -> None:
    """The last sentence is the takeaway: the wide row follows head 2's, so head 1's signal
    from "river" is weakened, not lost (0.552 still arrives); the wide head's water against
    the separate heads' water, each digit for digit, with both numbers outlined."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, first = made["name"], made["wide"], made["heads"][0]
    c, j = first["message_top"], first["top_source"]
    last = len(made["tokens"]) - 1
    said = result["manifest"]["captions"][-1]
    assert "weakened, not lost" in said["template"] and "as head {t}'s does" in \
        said["template"]
    assert said["words"] == {"f": "water", "u": "river", "r": "setting", "v": "fisherman"}
    assert made["tokens"][int(np.argmax(wide["weights"]))] == "fisherman" \
        == made["tokens"][int(np.argmax(made["heads"][1]["weights"]))]  # the shared favourite
    assert digits(figure(said, f"{name}.wide.contributions[{j}][{c}]"),
                  wide["weights"][j] * wide["V"][j][c])
    assert digits(figure(said, f"{name}.wide.message[{c}]"), wide["message"][c])
    assert digits(figure(said, f"{name}.joined[{last}][{c}]"), made["joined"][-1][c])
    assert abs(wide["message"][c] - made["joined"][-1][c]) > 0.5  # the loss is real
    assert wide["weights"][j] * wide["V"][j][c] > 0.5  # and so is what still arrives
    at = len(result["manifest"]["captions"]) - 1
    outlined = [keys for when, keys, _ in _outlined(shown, "OneWideHead") if when == at]
    assert any({f"{name}.wide.message[{c}]", f"{name}.joined[{last}][{c}]"} <= set(keys)
               for keys in outlined)


def test_the_wide_products_stand_under_their_query_and_key(shown, lesson) -> None:
    """The wide dot product is drawn with its factors: the final receiver's wide query
    over the favourite's wide key, over the products, each coordinate in its head's
    colour and left to right in order."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, d = made["name"], made["wide"], made["d_head"]
    top, last = wide["top_source"], len(made["tokens"]) - 1
    texts = section(result, "scale")
    (products,) = (t for t in texts
                   if any(key == f"{name}.wide.products[{top}][0]" for key, _ in t["figures"]))
    rows = []
    for kind, j in (("Q", last), ("K", top)):
        row = []
        for k in range(made["d_model"]):
            key = f"{name}.h{k // d + 1}.{kind}[{j}][{k % d}]"
            (text,) = (t for t in texts if any(f[0] == key for f in t["figures"]))
            assert digits(text["text"], made["heads"][k // d][kind][j][k % d]), key
            row.append(text)
        assert [t["box"][0] for t in row] == sorted(t["box"][0] for t in row)
        rows.append(row)
    np.testing.assert_allclose(
        [q * k for q, k in zip(np.concatenate([h["Q"][last] for h in made["heads"]]),
                               np.concatenate([h["K"][top] for h in made["heads"]]),
                               strict=True)], wide["products"][top])
    assert min(t["box"][1] for t in rows[0]) > max(t["box"][3] for t in rows[1])
    assert min(t["box"][1] for t in rows[1]) > products["box"][3]
    assert products["box"][0] < rows[0][0]["box"][0] < rows[0][-1]["box"][2] \
        < products["box"][2]


def test_the_question_comes_before_the_wide_heads_favourite_is_named(shown) -> None:
    """The pooled step asks which source the wide head will favour (it has not been shown
    yet), never why it favours one."""
    result = shown[("default", "OneWideHead")]
    texts = [c["text"] for c in result["manifest"]["captions"]]
    assert not [t for t in texts if t.startswith("Why does")]
    asked, _ = caption(result, "Which source will the wide head favour?")
    named, _ = caption(result, "For “{w}”:")
    assert asked < named


def test_both_equal_dot_products_are_boxed_as_the_voice_says_so(shown, lesson) -> None:
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, top = made["name"], made["wide"]["top_source"]
    at, _ = caption(result, "happen to give “{w}” the same dot product")
    (pointer,) = [o for o in result["outlined"] if o["caption"] == at]
    assert len(pointer["boxes"]) == 2  # one box round each head's 4.83
    assert sorted(pointer["keys"]) == [f"{name}.h1.dots[{top}]", f"{name}.h2.dots[{top}]"]
    assert made["heads"][0]["dots"][top] == made["heads"][1]["dots"][top]


def test_the_softmax_sum_and_each_division_are_written(shown, lesson) -> None:
    """"With 20.063 from the other 8 sources, these add up to 176.775": the other sources'
    e^score summed and the whole sum stand under the e^score column; each weight is
    written as its division, "÷ 176.775 = 0.708", in the softmax's own picture; numpy from the
    scores."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide = made["name"], made["wide"]
    exps = np.exp(wide["scores"])
    picks = [wide["top_source"], made["heads"][0]["top_source"]]
    others = [j for j in range(len(exps)) if j not in picks]
    assert len(others) == 8
    on_screen = placed(section(result, "softmax"))
    assert digits(on_screen[f"{name}.wide.exps_others"]["text"], exps[others].sum())
    assert digits(on_screen[f"{name}.wide.denominator"]["text"], exps.sum())
    for j in picks:
        assert digits(on_screen[f"{name}.wide.exps[{j}]"]["text"], exps[j])
    texts = [t["text"] for t in section(result, "softmax")]
    denominator = on_screen[f"{name}.wide.denominator"]["text"]
    for j in picks:
        assert f"÷ {denominator} = {on_screen[f'{name}.wide.weights[{j}]']['text']}" in texts
        np.testing.assert_allclose(exps[j] / exps.sum(), wide["weights"][j])
    _, said = caption(result, "raises e to each score")
    assert digits(figure(said, f"{name}.wide.exps_others"), exps[others].sum())
    assert "the other 8 sources" in said["text"]
    for j in picks:  # every term of the sum is heard, not only the first
        assert digits(figure(said, f"{name}.wide.exps[{j}]"), exps[j])
        assert f"for “{made['tokens'][j]}”" in said["text"]


def test_the_messages_are_summed_down_the_value_rows_beside_the_weights(shown,
                                                                        lesson) -> None:
    """Each source's four-wide value row stands beside the weights (numpy: every head's
    value row side by side); as the voice names each coordinate of a message, the weight
    column that mixes it and that coordinate's value column are outlined, and the message
    is that column's weight × value sum."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, heads = made["name"], made["wide"], made["heads"]
    values = np.concatenate([head["V"] for head in heads], axis=1)
    on_screen = placed(section(result, "mixing"))
    for j in range(len(made["tokens"])):
        assert digits(on_screen[f"{name}.wide.weights[{j}]"]["text"], wide["weights"][j])
        for k in range(made["d_model"]):
            assert digits(on_screen[f"{name}.wide.V[{j}][{k}]"]["text"], values[j, k])
    d = made["d_head"]
    for said_as, weights, message in (
            ("the wide head's message adds up", [wide["weights"]] * made["d_model"],
             f"{name}.wide.message"),
            ("The separate heads, each with its own column",
             [heads[k // d]["weights"] for k in range(made["d_model"])],
             f"{name}.joined[{len(made['tokens']) - 1}]")):
        at, said = caption(result, said_as)
        pointers = [o for o in result["outlined"] if o["caption"] == at]
        for k in range(made["d_model"]):
            expected = weights[k] @ values[:, k]
            assert digits(figure(said, f"{message}[{k}]"), expected)
            assert digits(on_screen[f"{message}[{k}]"]["text"], expected)
            column = {f"{name}.wide.V[{j}][{k}]" for j in range(len(made["tokens"]))}
            assert any(column <= set(o["keys"]) and len(o["boxes"]) == 2 for o in pointers), k


def test_why_the_glue_drops_is_shown_from_the_weights(shown, lesson) -> None:
    """Glue drops (0.204 against 0.538) because the wide head moves weight off the rows
    that carry glue (a glue value at least half the largest: seven words, 1.7 to 2.3): they
    get 0.082 of the wide column against 0.257 of head 2's. Numpy, then the caption and the
    row under the table."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, wide, second = made["name"], made["wide"], made["heads"][1]
    glue = second["V"][:, 1]
    carriers = (glue > 0) & (glue >= glue.max() / 2)
    assert [t for t, c in zip(made["tokens"], carriers, strict=True) if c] == \
        ["The", "sat", "beside", "the", "and", "watched", "the"]
    ours, theirs = wide["weights"][carriers].sum(), second["weights"][carriers].sum()
    assert ours < theirs / 3
    at, said = caption(result, "moves weight off the rows that carry {g}")
    assert said["words"] == {"g": "glue"}
    assert digits(figure(said, f"{name}.wide.carried_share"), ours)
    assert digits(figure(said, f"{name}.wide.twin_carried_share"), theirs)
    kept, _ = caption(result, "almost the same")
    assert at == kept + 1  # the reason right after the drop it explains
    on_screen = placed(section(result, "mixing"))
    assert digits(on_screen[f"{name}.wide.carried_share"]["text"], ours)
    assert digits(on_screen[f"{name}.wide.twin_carried_share"]["text"], theirs)
    pointers = [o for o in result["outlined"] if o["caption"] == at]
    marked = {f"{name}.wide.V[{j}][3]" for j in np.flatnonzero(carriers)}
    assert any(set(o["keys"]) == marked for o in pointers)
    _, said = caption(result, "the value rows")
    assert said["words"]["g"] == "glue" and "small words" in said["words"]["n"]


def test_the_wide_clip_stays_about_as_long(shown) -> None:
    """Paced by reading time, as the dry runs are: about the three minutes it had."""
    assert shown[("default", "OneWideHead")]["manifest"]["duration"] <= 192.0
