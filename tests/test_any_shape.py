"""Nothing assumes two heads, ten tokens or width four: shapes come from the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.conftest import THREE_HEADS
from worksheet import Values, compute_values, load_worksheet


def test_three_heads_width_six_nine_tokens(three_values: Values) -> None:
    assert three_values.value("dims.heads") == 3
    assert three_values.value("dims.d_model") == 6
    assert three_values.value("dims.tokens") == 9
    assert three_values.value("dims.context") == 11
    assert three_values.value("dims.sentences") == 3
    assert three_values.value("shapes.E") == [9, 6]
    assert three_values.value("shapes.A") == [9, 9]
    assert three_values.value("shapes.joined") == [9, 6]
    assert three_values.value("mha.A") == [3, 3, 9, 9]
    for name in ("river", "cheque", "boat"):
        assert len(three_values.value(f"{name}.h3.weights")) == 9
        assert f"{name}.h4.weights" not in three_values


def test_three_head_commands_work(lecture, tmp_path: Path) -> None:
    result = lecture("values", "--json", "--worksheet", THREE_HEADS)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["values"]["boat.h3.message"]["text"] == [
        f"{x:.3f}".replace("-", "\u2212")
        for x in document["values"]["boat.h3.message"]["value"]]
    out = tmp_path / "three.json"
    assert lecture("worksheet", "export", out, "--worksheet", THREE_HEADS).exit_code == 0
    assert len(json.loads(out.read_text())["headsLesson"]["cases"]["boat"]["heads"]) == 3


def test_one_head_of_joined_projections_is_the_wide_head(edited, default_values) -> None:
    def merge_heads(doc: dict) -> None:
        heads = doc["headsLesson"]["projections"]
        doc["headsLesson"]["projections"] = [
            {kind: [[x for h in heads for x in h[kind][r]] for r in range(4)] for kind in "QKV"}]
        doc["lesson"]["headNames"] = ["wide"]
        doc["lesson"]["bias"]["offset"] = [0.2, -0.1, 0.0, 0.0]

    one = compute_values(load_worksheet(edited(merge_heads)))
    assert one.value("dims.heads") == 1 and one.value("dims.d_head") == 4
    for step in ("weights", "message", "denominator", "A", "H"):
        np.testing.assert_allclose(one.value(f"river.h1.{step}"),
                                   default_values.value(f"river.wide.{step}"), atol=1e-6)


def test_sentences_shorter_than_the_context_and_other_names(edited) -> None:
    def short(doc: dict) -> None:
        doc["sentences"] = {"lake": ["she", "sat", "beside", "the", "water", "and", "the"],
                            "money": ["she", "took", "the", "cheque", "into", "the", "bank"]}
        doc["lesson"]["targets"] = {"lake": "fish", "money": "and"}

    values = compute_values(load_worksheet(edited(short)))
    assert values.value("dims.tokens") == 7
    assert values.value("lab.shape.X") == [2, 7]
    assert "lake.h2.weights[6]" in values and "river.h1.weights" not in values
