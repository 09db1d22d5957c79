"""The worksheet schema: every place says what it expects, the rules of the lesson's own
examples hold, odd JSON values are refused in one line, and what the rest of the project
reads is read-only data."""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from worksheet import WorksheetError, load_worksheet, parse_worksheet
from worksheet.schema import Trained


def _places(node: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    children = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, child in children:
        yield from _places(child, (*path, key))


def _json_path(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _refusal(doc: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> str:
    doc = copy.deepcopy(doc)
    change(doc)
    with pytest.raises(WorksheetError) as caught:
        parse_worksheet(doc, "my.json")
    return caught.value.one_line()


def _at(path: tuple, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def test_every_place_of_the_worksheet_says_what_it_expects_instead_of_null(default_doc) -> None:
    for path in list(_places(default_doc))[1:]:  # the top level: see test_errors
        line = _refusal(default_doc, _at(path, None))
        where = _json_path(path)
        assert line.startswith(f"my.json: {where}: expected "), (where, line)
        expected = line.removeprefix(f"my.json: {where}: expected ")
        assert expected.endswith(", got null") and len(expected) > len(", got null") + 5, line


@pytest.mark.parametrize(("path", "value", "message"), [
    (("lesson", "toy", "weights", 1), [0.5, 0.4],
     "lesson.toy.weights[1]: expected two non-negative weights summing to 1, got [0.5, 0.4]"),
    (("lesson", "toy", "values", 1), [10, 8],
     "lesson.toy.values: expected the two sources to differ in coordinate 0, got 10.0 twice"),
    (("lesson", "toy", "sources"), ["river"],
     'lesson.toy.sources: expected two source words, got a list of 1'),
    (("lesson", "patches", "size"), 3,
     "lesson.patches.size: expected a patch side dividing the image side 8, got 3"),
    (("lesson", "patches", "image", 7), [1] * 7,
     "lesson.patches.image[7]: expected a row of 8 numbers like the others, got 7"),
    (("lesson", "patches", "positions"), [[0, 0, 0, 0]] * 4,
     "lesson.patches.positions: expected 5×4 numbers (one row for the CLS row and one per "
     "patch), got 4×4"),
    (("lesson", "trained", "heads", 1), 5,
     "lesson.trained.heads[1]: expected a head count dividing the width 64, got 5"),
    (("lesson", "trained", "hidden"), 5000,
     "lesson.trained.hidden: expected a whole number from 1 to 4,096 (the lesson builds these "
     "models to count them), got 5000"),
    (("lesson", "trained"), {"vocab": 100_000, "context": 64, "width": 64, "hidden": 4096,
                             "heads": [1, 4]},  # 64·64·4096 + 100,000·(64 + 4096) weights
     "lesson.trained: expected models of at most 50,000,000 parameters (they are built to be "
     "counted), got about 432,777,216"),
    (("lesson", "lab", "seed"), 2**32,
     "lesson.lab.seed: expected a whole number from 0 to 4294967295 (a random seed), "
     "got 4294967296"),
    (("lesson", "lab", "learningRate"), 0,
     "lesson.lab.learningRate: expected a positive number within float32 range, got 0"),
    (("lesson", "bias", "offset"), [0.2, -0.1, 0],
     "lesson.bias.offset: expected 2 numbers (the head width), got 3"),
    (("lesson", "features"), ["water", "finance"],
     "lesson.features: expected 4 feature names (one per model coordinate), got 2"),
])
def test_the_lessons_own_examples_keep_their_rules(default_doc, path: tuple, value: Any,
                                                   message: str) -> None:
    assert _refusal(default_doc, _at(path, value)) == f"my.json: {message}"


@pytest.mark.parametrize(("path", "value", "message"), [
    (("b_hidden", 0), 10**400, "b_hidden[0]: expected a number, got a number of 401 digits"),
    (("lesson", "trained", "width"), True,
     "lesson.trained.width: expected a whole number from 1 to 1,024 (the lesson builds these "
     "models to count them), got true"),
    (("lesson", "patches", "size"), 4.0,
     "lesson.patches.size: expected the patch side in pixels, a whole number ≥ 1, got 4.0"),
    (("vocab", 2), "  ", 'vocab[2]: expected a non-empty word, got "  "'),
    (("sentences", "river", 0), ["the"], 'sentences.river[0]: expected a non-empty word, '
     "got a list of 1"),
    (("headsLesson", "projections", 0), [], "headsLesson.projections[0]: expected an object "
     "with Q, K and V, got an empty list"),
    (("headsLesson", "W_O", 1), [0, 0, 0, 0, 0],
     "headsLesson.W_O[1]: expected a row of 4 numbers like the others, got 5"),
    (("pos_emb", 2), "NaN", 'pos_emb[2]: expected a row of 4 numbers, got "NaN"'),
    (("lesson", "headNames"), {}, "lesson.headNames: expected a list of 2 names, one per head, "
     "got an empty object"),
])
def test_odd_json_values_are_named_with_what_was_expected(default_doc, path: tuple, value: Any,
                                                          message: str) -> None:
    assert _refusal(default_doc, _at(path, value)) == f"my.json: {message}"


def _delete(*paths: tuple) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        for path in paths:
            node = doc
            for key in path[:-1]:
                node = node[key]
            del node[path[-1]]

    return change


# The default worksheet: 20 words, model width 4, 2 heads of width 2, hidden size 8; an
# 8×8 image in patches of 4×4 (4 patches + the CLS row), projected to width 4.
@pytest.mark.parametrize(("change", "message"), [
    (_delete(("headsLesson", "projections", 1, "V")),
     "headsLesson.projections[1].V: missing; expected a 4×2 matrix"),
    (_at(("W_vocab", 7), []), "W_vocab[7]: expected a row of 20 numbers, got an empty list"),
    (_delete(("W_hidden",)), "W_hidden: missing; expected a 4×8 matrix"),
    (_at(("b_hidden",), None), "b_hidden: expected a list of 8 numbers (the hidden size, as "
     "wide as W_hidden), got null"),
    (_at(("lesson", "features"), "f"), 'lesson.features: expected a list of 4 names, one per '
     'model coordinate, got "f"'),
    (_delete(("lesson", "bias", "offset")),
     "lesson.bias.offset: missing; expected a list of 2 numbers (the head width)"),
    (_delete(("lesson", "patches", "projection")), "lesson.patches.projection: missing; "
     "expected a 16×4 matrix, one row per pixel of a patch"),
    (_at(("lesson", "patches", "positions"), {}), "lesson.patches.positions: expected a 5×4 "
     "matrix, one row for the CLS row and one per patch, got an empty object"),
    (_at(("lesson", "toy", "values", 0), None),
     "lesson.toy.values[0]: expected a row of 2 numbers, got null"),
    # a size read from another place when its first place is the broken one
    (_at(("tok_emb", "the"), None),
     "tok_emb.the: expected a row of 4 numbers (the model width), got null"),
    (_at(("headsLesson", "projections", 0, "Q"), None),
     "headsLesson.projections[0].Q: expected a 4×2 matrix, got null"),
    (_at(("headsLesson", "projections"), [{}, {}]),
     "headsLesson.projections[0].Q: missing; expected a 4×2 matrix"),
    (_delete(("W_hidden",), ("b_hidden",)), "W_hidden: missing; expected a 4×hidden matrix"),
    (_delete(("lesson", "patches", "projection"), ("lesson", "patches", "cls"),
             ("lesson", "patches", "positions")),
     "lesson.patches.projection: missing; expected a 16×n matrix, one row per pixel of a patch"),
])
def test_shapes_are_given_in_the_sizes_the_worksheet_states(default_doc, change,
                                                             message: str) -> None:
    assert _refusal(default_doc, change) == f"my.json: {message}"


def test_a_size_the_worksheet_does_not_state_is_named_by_its_symbol(default_doc) -> None:
    def no_width(doc: dict[str, Any]) -> None:
        doc["tok_emb"]["the"] = None
        doc["pos_emb"][0] = "row"

    assert _refusal(default_doc, no_width) == \
        "my.json: tok_emb.the: expected a row of d_model numbers (the model width), got null"


def test_only_the_first_problem_in_file_order_is_reported(default_doc) -> None:
    def two_problems(doc: dict[str, Any]) -> None:
        doc["b_vocab"][3] = math.nan
        doc["vocab"][0] = "The"

    assert _refusal(default_doc, two_problems) == \
        "my.json: vocab[0]: expected a lower-case word, got 'The'"


def test_a_number_too_long_for_python_is_invalid_json(tmp_path: Path) -> None:
    bad = tmp_path / "long.json"
    bad.write_text('{"vocab": [' + "1" * 5000 + "]}", encoding="utf-8")
    with pytest.raises(WorksheetError, match=r"long\.json: file: invalid JSON \(a number of "
                       r"more than 4300 digits\)$"):
        load_worksheet(bad)


def test_the_worksheet_hands_on_read_only_arrays_and_dataclasses(default_ws, default_doc) -> None:
    arrays = [default_ws.tok_emb, default_ws.pos_emb, default_ws.W_O, default_ws.b_vocab,
              default_ws.heads[1].K, default_ws.lesson.bias_offset,
              default_ws.lesson.toy.weights, default_ws.lesson.patches.cls]
    assert all(a.dtype == "float64" and not a.flags.writeable for a in arrays)
    # the token table's rows follow the vocabulary's order, not the file's
    doc = copy.deepcopy(default_doc)
    doc["tok_emb"] = dict(reversed(doc["tok_emb"].items()))
    assert parse_worksheet(doc).tok_emb.tolist() == [doc["tok_emb"][w] for w in doc["vocab"]]
    # scenes record the facts they read by walking these dataclasses
    for part in (default_ws.heads[0], default_ws.lesson, default_ws.lesson.toy,
                 default_ws.lesson.patches, default_ws.lesson.trained):
        assert dataclasses.is_dataclass(part)
        with pytest.raises(dataclasses.FrozenInstanceError):
            part.__setattr__(dataclasses.fields(part)[0].name, None)
    assert default_ws.fact("lesson.trained.heads") == [1, 4]


def test_trained_sizes_made_in_code_follow_the_same_rules() -> None:
    assert Trained(vocab=50, context=8, width=16, hidden=32, heads=(1, 4)).heads == (1, 4)
    with pytest.raises(ValueError, match="dividing the width 16"):
        Trained(vocab=50, context=8, width=16, hidden=32, heads=(3,))
