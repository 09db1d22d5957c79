"""Bad worksheets get one clear line naming the JSON path, exit status 2, and no output."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


def _widen_k(doc: dict[str, Any]) -> None:
    doc["headsLesson"]["projections"][1]["K"] = [[*row, 0.0] for row in
                                                 doc["headsLesson"]["projections"][1]["K"]]


def _duplicate_word(doc: dict[str, Any]) -> None:
    doc["vocab"][19] = "water"


def _long_sentence(doc: dict[str, Any]) -> None:
    for name in doc["sentences"]:
        doc["sentences"][name] = doc["sentences"][name] + ["the"]


def _short_w_vocab(doc: dict[str, Any]) -> None:
    doc["W_vocab"] = [row[:-1] for row in doc["W_vocab"]]


def _wide_pos(doc: dict[str, Any]) -> None:
    doc["pos_emb"] = [[*row, 0.0] for row in doc["pos_emb"]]


def _three_heads_of_two(doc: dict[str, Any]) -> None:
    projections = doc["headsLesson"]["projections"]
    projections.append(json.loads(json.dumps(projections[0])))


# (case id, change, expected JSON path, words the message must contain)
CASES = [
    ("missing W_O", _delete(["headsLesson", "W_O"]), "headsLesson.W_O",
     "missing; expected a 4×4 matrix"),
    ("missing vocab", _delete(["vocab"]), "vocab", "missing"),
    ("missing projections", _delete(["headsLesson", "projections"]),
     "headsLesson.projections", "missing"),
    ("missing lesson target", _delete(["lesson", "targets", "cheque"]),
     "lesson.targets.cheque", "missing"),
    ("wrong K shape", _widen_k, "headsLesson.projections[1].K", "expected 4×2 numbers, got 4×3"),
    ("NaN", _set(["pos_emb", 3, 1], math.nan), "pos_emb[3][1]",
     "expected a finite number, got NaN"),
    ("infinity", _set(["W_hidden", 0, 2], math.inf), "W_hidden[0][2]", "finite number"),
    ("string for number", _set(["headsLesson", "W_O", 1, 2], "0.5"), "headsLesson.W_O[1][2]",
     'expected a number, got "0.5"'),
    ("boolean for number", _set(["b_hidden", 0], True), "b_hidden[0]", "expected a number"),
    ("width mismatch in tok_emb", _set(["tok_emb", "river"], [3.1, -0.1, 0]), "tok_emb.river",
     "expected 4 numbers (the model width"),
    ("width mismatch in pos_emb", _wide_pos, "pos_emb", "expected n×4 numbers"),
    ("token not in vocab", _set(["sentences", "river", 5], "lake"), "sentences.river[5]",
     "'lake' is not in vocab"),
    ("sentence longer than pos_emb", _long_sentence, "sentences.river",
     "at most 10 tokens (one per pos_emb row), got 11"),
    ("empty sentence", _set(["sentences", "cheque"], []), "sentences.cheque", "empty"),
    ("duplicate vocabulary word", _duplicate_word, "vocab[19]", "duplicate word 'water'"),
    ("W_vocab not matching vocab", _short_w_vocab, "W_vocab", "expected 8×20 numbers"),
    ("b_vocab not matching vocab", _set(["b_vocab"], [0.0] * 19), "b_vocab", "expected 20"),
    ("heads times width", _three_heads_of_two, "headsLesson.projections",
     "heads × head width = model width 4"),
    ("unequal sentences", _set(["sentences", "cheque"], ["the", "bank"]), "sentences.cheque",
     "expected 10 tokens like sentences.river"),
    ("target outside vocab", _set(["lesson", "targets", "river"], "lake"),
     "lesson.targets.river", "vocabulary word"),
    ("gloss of a word outside vocab", _set(["lesson", "glosses", "lake"], "still water"),
     "lesson.glosses.lake", "not a vocabulary word"),
    ("gloss with a digit", _set(["lesson", "glosses", "teller"], "one of 3 clerks"),
     "lesson.glosses.teller", "without digits"),
    ("note of a name that is no feature", _set(["lesson", "featureNotes", "sand"], "grains"),
     "lesson.featureNotes.sand", "not a feature; expected one of water, finance, person, glue"),
    ("feature note with a digit", _set(["lesson", "featureNotes", "water"], "the 7 seas"),
     "lesson.featureNotes.water", "without digits"),
    ("feature note too long", _set(["lesson", "featureNotes", "glue"], "small words " * 3),
     "lesson.featureNotes.glue", "at most 32 characters"),
    ("unknown tok_emb word", _set(["tok_emb", "lake"], [0, 0, 0, 0]), "tok_emb.lake",
     "not a vocabulary word"),
    ("upper-case vocabulary", _set(["vocab", 0], "The"), "vocab[0]", "lower-case"),
    ("reserved sentence name", _set(["sentences", "dims"], ["the"] * 10), "sentences.dims",
     "sentence name"),
    ("oversized number", _set(["tok_emb", "the", 0], 1e39), "tok_emb.the[0]", "float32"),
]


def _assert_clean_failure(result, path: str, words: str, folder: Path) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f" {path}: " in lines[0]
    assert words in lines[0]
    assert sorted(p.name for p in folder.iterdir()) == ["edited.json"]


@pytest.mark.parametrize(("change", "path", "words"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_worksheet_is_refused_by_export(lecture, edited, tmp_path: Path, change, path,
                                            words) -> None:
    bad = edited(change)
    out = tmp_path / "out.json"
    result = lecture("worksheet", "export", out, "--worksheet", bad)
    _assert_clean_failure(result, path, words, tmp_path)


@pytest.mark.parametrize(("change", "path", "words"), [c[1:] for c in CASES[:6]],
                         ids=[c[0] for c in CASES[:6]])
def test_bad_worksheet_is_refused_by_values(lecture, edited, tmp_path: Path, change, path,
                                            words) -> None:
    result = lecture("values", "--json", "--worksheet", edited(change))
    _assert_clean_failure(result, path, words, tmp_path)


@pytest.mark.parametrize(("text", "path", "words"), [
    ('{"vocab": ["the",]', "line 1 column 18", "invalid JSON"),
    ("[1, 2, 3]", "top level", "expected a JSON object"),
    ('"just a string"', "top level", "expected a JSON object"),
    ("", "line 1 column 1", "invalid JSON"),
])
def test_malformed_files_are_refused(lecture, tmp_path: Path, text: str, path: str,
                                     words: str) -> None:
    bad = tmp_path / "edited.json"
    bad.write_text(text, encoding="utf-8")
    result = lecture("worksheet", "export", tmp_path / "out.json", "--worksheet", bad)
    _assert_clean_failure(result, path, words, tmp_path)


def test_a_missing_worksheet_file_is_named(lecture, tmp_path: Path) -> None:
    result = lecture("values", "--json", "--worksheet", tmp_path / "nope.json")
    assert result.exit_code == 2
    assert "nope.json: file: not found" in result.stderr


def test_a_previous_export_survives_a_failed_one(lecture, edited, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert lecture("worksheet", "export", out).exit_code == 0
    before = out.read_bytes()
    result = lecture("worksheet", "export", out, "--worksheet", edited(_widen_k))
    assert result.exit_code == 2
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edited.json", "out.json"]


def test_the_installed_command_prints_no_traceback(edited, tmp_path: Path) -> None:
    bad = edited(_set(["pos_emb", 3, 1], math.nan))
    lecture = Path(sys.executable).with_name("lecture")
    process = subprocess.run([str(lecture), "worksheet", "export", str(tmp_path / "o.json"),
                              "--worksheet", str(bad)], capture_output=True, text=True,
                             check=False)
    assert process.returncode == 2
    assert process.stdout == ""
    assert process.stderr.count("\n") == 1
    assert process.stderr.startswith("lecture: error: ")
    assert "pos_emb[3][1]: expected a finite number, got NaN" in process.stderr
