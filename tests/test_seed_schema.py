"""A worksheet in the seed notebook's own schema works: the ``lesson`` object and each of its
parts are optional, and ``lecture worksheet fill`` makes every default explicit."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DATA
from worksheet import WorksheetError, compute_values, load_worksheet, parse_worksheet
from worksheet.defaults import BUILT_IN, LESSON_PARTS

SEED_THREE = DATA / "seed-three-heads.json"


def without_lesson(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` in the seed notebook's schema."""
    return {key: copy.deepcopy(value) for key, value in doc.items() if key != "lesson"}


def test_a_seed_schema_worksheet_takes_every_default(default_doc) -> None:
    ws = parse_worksheet(without_lesson(default_doc))
    assert ws.lesson.features == ("f1", "f2", "f3", "f4")
    assert ws.lesson.head_names == ("head 1", "head 2")
    assert dict(ws.lesson.targets) == {}
    assert ws.lesson.bias_offset.tolist() == [0.2, -0.1]
    assert ws.lesson.toy.values.tolist() == BUILT_IN["toy"]["values"]
    assert ws.lesson.patches.image.tolist() == BUILT_IN["patches"]["image"]
    assert ws.lesson.trained.heads == tuple(BUILT_IN["trained"]["heads"])
    assert (ws.lesson.learning_rate, ws.lesson.seed) == (BUILT_IN["lab"]["learningRate"],
                                                        BUILT_IN["lab"]["seed"])


def test_without_observed_words_the_values_say_only_what_the_model_predicts(
        default_doc, default_values) -> None:
    values = compute_values(parse_worksheet(without_lesson(default_doc)))
    for name in default_doc["sentences"]:
        assert f"{name}.target" not in values and f"{name}.target" in default_values
        assert values.text(f"{name}.prediction") == default_values.text(f"{name}.prediction")
    for key in ("lab.y", "lab.shape.y", "lab.loss", "lab.finite_grads", "lab.loss_after"):
        assert key not in values and key in default_values
    assert values.text("lab.next_prob") == default_values.text("lab.next_prob")


NEEDS = {"features": "featureNotes"}
"""A part that names another's entries: left out with it (the defaults name other ones)."""


@pytest.mark.parametrize("part", LESSON_PARTS)
def test_each_lesson_part_may_be_left_out_alone(default_doc, part: str) -> None:
    doc = copy.deepcopy(default_doc)
    del doc["lesson"][part]
    if part in NEEDS:
        with pytest.raises(WorksheetError, match=f"lesson.{NEEDS[part]}.* not a feature"):
            parse_worksheet(doc)
        del doc["lesson"][NEEDS[part]]
        default_doc = {**default_doc, "lesson": {**default_doc["lesson"], NEEDS[part]: {}}}
    filled = parse_worksheet(doc).document["lesson"]
    assert list(filled) == list(LESSON_PARTS)
    for other in LESSON_PARTS:
        if other != part:
            assert filled[other] == default_doc["lesson"][other], other


def test_the_bias_default_follows_the_head_width() -> None:
    doc = json.loads(SEED_THREE.read_text(encoding="utf-8"))
    heads = doc["headsLesson"]["projections"]
    # Two heads of width three instead of three of width two: same model width six.
    doc["headsLesson"]["projections"] = [
        {kind: [a + b[:1] for a, b in zip(heads[0][kind], heads[1][kind], strict=True)]
         for kind in "QKV"},
        {kind: [a[1:] + b for a, b in zip(heads[1][kind], heads[2][kind], strict=True)]
         for kind in "QKV"}]
    ws = parse_worksheet(doc)
    assert (ws.n_heads, ws.d_head) == (2, 3)
    assert ws.lesson.bias_offset.tolist() == [0.2, -0.1, 0]
    assert ws.lesson.head_names == ("head 1", "head 2")


def test_an_unknown_lesson_part_is_named(default_doc) -> None:
    doc = copy.deepcopy(default_doc)
    doc["lesson"]["colours"] = ["red"]
    with pytest.raises(WorksheetError, match=r"lesson\.colours: not a lesson part"):
        parse_worksheet(doc)


def test_targets_name_every_sentence_or_none(default_doc) -> None:
    doc = copy.deepcopy(default_doc)
    doc["lesson"]["targets"] = {}
    assert dict(parse_worksheet(doc).lesson.targets) == {}
    doc["lesson"]["targets"] = {"river": "water"}
    with pytest.raises(WorksheetError, match=r"lesson\.targets\.cheque: missing"):
        parse_worksheet(doc)


def test_fill_writes_every_default_and_means_the_same(lecture, default_doc,
                                                      tmp_path: Path) -> None:
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps(without_lesson(default_doc)), encoding="utf-8")
    out = tmp_path / "filled.json"
    result = lecture("worksheet", "fill", seed, out)
    assert result.exit_code == 0, result.stderr
    filled = json.loads(out.read_text(encoding="utf-8"))
    assert list(filled["lesson"]) == list(LESSON_PARTS)
    assert filled["lesson"]["features"] == ["f1", "f2", "f3", "f4"]
    assert filled["lesson"]["targets"] == {}
    assert {k: v for k, v in filled.items() if k != "lesson"} == without_lesson(default_doc)
    before = compute_values(load_worksheet(seed)).to_json()
    assert compute_values(load_worksheet(out)).to_json() == before


def test_fill_keeps_a_complete_worksheet_as_it_is(lecture, default_doc,
                                                   tmp_path: Path) -> None:
    out = tmp_path / "same.json"
    assert lecture("worksheet", "fill", DATA.parent.parent / "worksheet" /
                   "multihead-worksheet.json", out).exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8")) == default_doc


def test_fill_refuses_bad_input_in_one_line_and_writes_nothing(lecture, default_doc,
                                                              tmp_path: Path) -> None:
    doc = without_lesson(default_doc)
    doc["headsLesson"]["W_O"] = [[1, 2]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "filled.json"
    result = lecture("worksheet", "fill", bad, out)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "headsLesson.W_O" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_the_three_head_seed_worksheet_is_the_three_head_one_without_extras() -> None:
    seed = load_worksheet(SEED_THREE)
    full = load_worksheet(DATA / "three-heads.json")
    assert seed.n_heads == 3 and seed.lesson.head_names == ("head 1", "head 2", "head 3")
    seed_values, full_values = compute_values(seed), compute_values(full)
    assert seed_values.text("river.h3.denominator") == full_values.text("river.h3.denominator")


def test_a_seed_schema_worksheet_builds_its_clips_and_deck_and_passes_the_check(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    lecture = str(Path(sys.executable).with_name("lecture"))
    out = tmp_path / "seed"
    scenes = ["PredictionMLP", "BatchLab"]  # the two that use observed next words
    built = subprocess.run([lecture, "build", *scenes, "--worksheet", SEED_THREE, "--quality",
                            "draft", "--narration", "none", "--out", out, "-j", "2"],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    checked = subprocess.run([lecture, "check", "--out", out, "--frames"],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout[-2000:]
    assert "all figures match" in checked.stdout
    html = (out / "slides" / "index.html").read_text(encoding="utf-8")
    assert "No observed targets, no loss" in html and 'data-key="lab.loss"' not in html
