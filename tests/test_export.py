"""``lecture worksheet export`` writes the seed's schema with cases that code written for
the seed's worksheet accepts unchanged, and every exported matrix is a fresh computation."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests import reference
from tests.conftest import THREE_HEADS

SEED_KEYS = {"vocab", "sentences", "tok_emb", "pos_emb", "headsLesson", "W_hidden", "b_hidden",
             "W_vocab", "b_vocab"}


@pytest.fixture(params=["default", "three"])
def exported(request, lecture, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "exported.json"
    args = ["worksheet", "export", out]
    if request.param == "three":
        args += ["--worksheet", THREE_HEADS]
    result = lecture(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def test_export_keeps_the_seed_schema(exported: dict[str, Any]) -> None:
    assert SEED_KEYS <= set(exported)
    cases = exported["headsLesson"]["cases"]
    assert list(cases) == list(exported["sentences"])
    heads = len(exported["headsLesson"]["projections"])
    for name, case in cases.items():
        assert set(case) == {"tokens", "E", "heads", "logits", "wide"}
        assert case["tokens"] == exported["sentences"][name]
        assert len(case["heads"]) == heads
        length = len(case["tokens"])
        for head in case["heads"]:
            assert set(head) == {"Q", "K", "V", "A", "messages"}
            assert np.array(head["A"]).shape == (length, length)
        assert np.array(case["logits"]).shape == (length, len(exported["vocab"]))
        assert set(case["wide"]) == {"A", "messages"}


def test_every_exported_matrix_is_a_fresh_computation(exported: dict[str, Any]) -> None:
    for name, case in exported["headsLesson"]["cases"].items():
        ref = reference.sentence(exported, name)
        np.testing.assert_allclose(case["E"], ref["E"], atol=1e-5)
        for head, ref_head in zip(case["heads"], ref["heads"], strict=True):
            for kind in "QKVA":
                np.testing.assert_allclose(head[kind], ref_head[kind], atol=1e-5)
            np.testing.assert_allclose(head["messages"], ref_head["H"], atol=1e-5)
            assert not np.triu(np.array(head["A"]), 1).any()
        np.testing.assert_allclose(case["logits"], ref["logits"], atol=1e-4)
        np.testing.assert_allclose(case["wide"]["A"], ref["wide"]["A"], atol=1e-5)
        np.testing.assert_allclose(case["wide"]["messages"], ref["wide"]["H"], atol=1e-5)


def seed_style_lab(worksheet: dict[str, Any]) -> None:
    """What the seed notebook's lab cells do with the file, written against its schema:
    load the tables as module weights, check the per-head projections, the wide head,
    the batched attention grids and the final logits against the stored cases."""
    word_to_id = {word: i for i, word in enumerate(worksheet["vocab"])}
    names = list(worksheet["sentences"])
    projections = worksheet["headsLesson"]["projections"]
    cases = worksheet["headsLesson"]["cases"]
    n_heads, d_head = len(projections), len(projections[0]["Q"][0])

    case = cases[names[0]]
    E = torch.tensor(case["E"])
    for h, projection in enumerate(projections):
        Q, K, V = [E @ torch.tensor(projection[kind], dtype=torch.float32) for kind in "QKV"]
        for kind, actual in [("Q", Q), ("K", K), ("V", V)]:
            torch.testing.assert_close(actual, torch.tensor(case["heads"][h][kind]))
        weights = (Q[-1:] @ K.T / math.sqrt(d_head)).softmax(dim=-1)
        torch.testing.assert_close(weights[0], torch.tensor(case["heads"][h]["A"][-1]))
        torch.testing.assert_close((weights @ V)[0],
                                   torch.tensor(case["heads"][h]["messages"][-1]))
    wide = [torch.cat([torch.tensor(head[kind]) for head in case["heads"]], dim=-1)
            for kind in "QKV"]
    wide_weights = (wide[0][-1] @ wide[1].T / math.sqrt(wide[0].shape[-1])).softmax(-1)
    torch.testing.assert_close(wide_weights, torch.tensor(case["wide"]["A"][-1]))
    torch.testing.assert_close(wide_weights @ wide[2], torch.tensor(case["wide"]["messages"][-1]))

    # Packed projections as nn.Linear-style weights, the way a model loads them.
    def t(data: Any) -> torch.Tensor:
        return torch.tensor(data, dtype=torch.float32)

    packed = {kind: t([[x for head in projections for x in head[kind][r]]
                       for r in range(len(projections[0][kind]))]).T
              for kind in "QKV"}
    X = torch.tensor([[word_to_id[w.lower()] for w in worksheet["sentences"][n]] for n in names])
    batch, length = X.shape
    token_table = t([worksheet["tok_emb"][w] for w in worksheet["vocab"]])
    E = token_table[X] + t(worksheet["pos_emb"])[:length]
    Qh, Kh, Vh = [(E @ packed[kind].T).reshape(batch, length, n_heads, d_head).transpose(1, 2)
                  for kind in "QKV"]
    future = torch.ones(length, length, dtype=torch.bool).triu(1)
    A = (Qh @ Kh.transpose(-2, -1) / math.sqrt(d_head)).masked_fill(future, float("-inf"))
    A = A.softmax(dim=-1)
    expected = torch.tensor([[h["A"] for h in cases[n]["heads"]] for n in names])
    torch.testing.assert_close(A, expected)
    joined = (A @ Vh).transpose(1, 2).contiguous().reshape(batch, length, n_heads * d_head)
    updated = E + joined @ t(worksheet["headsLesson"]["W_O"])
    hidden = F.relu(updated[:, -1] @ t(worksheet["W_hidden"]) + t(worksheet["b_hidden"]))
    logits = hidden @ t(worksheet["W_vocab"]) + t(worksheet["b_vocab"])
    torch.testing.assert_close(logits, torch.tensor([cases[n]["logits"][-1] for n in names]))


def test_code_written_for_the_seed_worksheet_runs_on_the_export(exported) -> None:
    seed_style_lab(exported)


def test_export_rejects_a_missing_folder_before_any_work(lecture, tmp_path: Path) -> None:
    result = lecture("worksheet", "export", tmp_path / "missing" / "out.json")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr
    assert not (tmp_path / "missing").exists()


def test_export_is_the_same_in_every_process(in_processes) -> None:
    (_, first), (_, second) = in_processes("worksheet", "export", "exported.json")
    written = (first / "exported.json").read_bytes()
    assert json.loads(written)["headsLesson"]["cases"]
    assert written == (second / "exported.json").read_bytes()
