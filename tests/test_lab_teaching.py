"""The batch lab teaches with pictures: each id under its word, one labelled block per
sentence and head, the token-table lookup plus the position rows, every attention weight
drawn, A × V = messages, the wrong join beside the right one, the residual before the
logits, the targets' probabilities beside the loss, the tensors that get gradients, and the
window that drops the oldest token. Checked on dry runs of several worksheets."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scenes.kit.palette import INK, MUTED
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import compute_values, load_worksheet
from worksheet.formatting import Style

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "wide", "four", "seed")
"""Two heads; one wide head; four heads of three tokens; three heads, three sentences and
no observed targets (the seed's schema, whose runs the scene rules share)."""


@pytest.fixture(scope="module")
def lab() -> dict[str, dict[str, Any]]:
    """The lab's dry run on each worksheet, by label."""
    return {label: runs["BatchLab"] for label, runs in dry_runs(["BatchLab"], LABELS).items()}

def texts(result: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The texts on screen when ``section`` ends."""
    return next(s["texts"] for s in result["sections"] if s["name"] == section)


def keyed(found: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The texts that show the figure ``key``."""
    return [t for t in found if any(k == key for k, _ in t["figures"])]


def centre(text: dict[str, Any]) -> tuple[float, float]:
    left, bottom, right, top = text["box"]
    return (left + right) / 2, (bottom + top) / 2


@pytest.mark.parametrize("label", LABELS)
def test_every_id_stands_under_the_word_it_stands_for(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    shown = texts(lab[label], "batch")
    words = [t for t in shown if t["kind"] == "word"]
    pairs = [(f"lab.X[{i}][{j}]", token) for i, name in enumerate(ws.sentences)
             for j, token in enumerate(ws.sentences[name])]
    if ws.lesson.targets:
        pairs += [(f"lab.y[{i}]", ws.lesson.targets[name])
                  for i, name in enumerate(ws.sentences)]
    for key, token in pairs:
        (number,) = keyed(shown, key)
        x, y = centre(number)
        above = [w for w in words if abs(centre(w)[0] - x) < 0.05 and centre(w)[1] > y]
        word = min(above, key=lambda w: centre(w)[1] - y)
        assert word["text"] == token, key
        assert ws.vocab.index(token.lower()) == int(number["text"]), key


@pytest.mark.parametrize("label", LABELS)
def test_after_the_transpose_each_sentence_and_head_has_one_labelled_block(
        lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    shown = texts(lab[label], "head axis")
    batch, heads = len(ws.sentences), ws.n_heads
    shapes = [t for t in shown if t["text"] == f"[{ws.length}, {ws.d_head}]"]
    assert len(shapes) == batch * heads
    assert all({k for k, _ in t["figures"]} == {"dims.tokens", "dims.d_head"} for t in shapes)
    xs = sorted({round(centre(t)[0], 2) for t in shapes})
    ys = sorted({round(centre(t)[1], 2) for t in shapes})
    assert (len(xs), len(ys)) == (heads, batch)  # a grid: sentences down, heads across
    head_labels = [t for t in shown if t["text"].startswith("Head ")]
    assert sorted(t["text"] for t in head_labels) == [f"Head {h}" for h in range(1, heads + 1)]
    assert all(centre(h)[1] > max(ys) for h in head_labels)
    names = [t for t in shown if t["text"] in ws.sentences]
    assert len(names) == batch and all(t["box"][2] < min(xs) for t in names)
    # The full width is named only as the sum of the heads' widths, not under the blocks.
    assert f"d_model {ws.d_model}" not in {t["text"] for t in shown}
    assert f"d_model {ws.d_model} = heads {heads} × d_head {ws.d_head}" \
        in {t["text"] for t in shown}


@pytest.mark.parametrize("label", LABELS)
def test_attention_draws_every_weight_and_says_what_d_is(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    values = compute_values(ws)
    manifest = lab[label]["manifest"]
    reads = set(manifest["reads"])
    for name in ws.sentences:  # every grid's weights shade its cells
        assert {f"{name}.h{h}.A" for h in range(1, ws.n_heads + 1)} <= reads
    shown = {t["text"] for t in texts(lab[label], "attention")}
    batch, heads, length = len(ws.sentences), ws.n_heads, ws.length
    assert f"{values.text('lab.A_weights')} weights" in shown
    assert f"= {batch} × {heads} × {length} × {length}" in shown
    assert batch * heads * length * length == values.value("lab.A_weights")
    for caption in manifest["captions"]:
        if "√d" in caption["text"]:
            assert f"d = {ws.d_head}" in caption["text"]


def test_the_pieces_of_a_joined_row_are_where_numpy_puts_them() -> None:
    """``lab.mix.*`` says which head and token fill each piece of a joined row; joining
    numbered messages with numpy, right (transpose, then reshape) and wrong (reshape
    only), puts exactly those there."""
    for label in LABELS:
        ws = load_worksheet(WORKSHEETS[label])
        values = compute_values(ws)
        batch, heads, length, width = len(ws.sentences), ws.n_heads, ws.length, ws.d_head
        messages = np.arange(batch * heads * length * width).reshape(batch, heads, length,
                                                                     width)
        joined = {"right": messages.transpose(0, 2, 1, 3).reshape(batch, length, -1),
                  "wrong": messages.reshape(batch, length, -1)}
        for kind, rows in joined.items():
            tokens = values.value(f"lab.mix.{kind}_token")
            owners = values.value(f"lab.mix.{kind}_head")
            for r in range(length):
                for k in range(heads):
                    piece = rows[0, r, k * width:(k + 1) * width]
                    source = messages[0, owners[r][k] - 1, tokens[r][k] - 1]
                    assert (piece == source).all(), (label, kind, r, k)
        if heads > 1:  # the wrong join puts two tokens of one head in the first row
            assert values.value("lab.mix.wrong_token")[0][:2] == [1, 2]
            assert values.value("lab.mix.wrong_head")[0][:2] == [1, 1]


@pytest.mark.parametrize("label", LABELS)
def test_the_wrong_join_is_drawn_beside_the_right_one(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    shown = texts(lab[label], "joining the heads")
    heads, length = ws.n_heads, ws.length
    right = [keyed(shown, f"lab.mix.right_token[{r}][{k}]") for r in range(length)
             for k in range(heads)]
    wrong = [keyed(shown, f"lab.mix.wrong_token[{r}][{k}]") for r in range(length)
             for k in range(heads)]
    assert all(len(found) == 1 for found in right + wrong)
    assert max(centre(t[0])[0] for t in right) < min(centre(t[0])[0] for t in wrong)
    for r in range(length):  # row r of both joins stands level with token r's messages
        ys = {round(centre(t[0])[1], 2) for t in right[r * heads:(r + 1) * heads]
              + wrong[r * heads:(r + 1) * heads]}
        assert len(ys) == 1, r
    headers = {t["text"] for t in shown}
    assert {"right: transpose,", "wrong: reshape"} <= headers


@pytest.mark.parametrize("label", LABELS)
def test_the_residual_stands_between_the_update_and_the_logits(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    shown = texts(lab[label], "to the logits")
    at = {t["text"]: centre(t)[0] for t in shown}
    assert at["ΔE"] < at["E + ΔE"] < at["logits"]
    (vocabulary,) = keyed(shown, "dims.vocab")
    assert vocabulary["text"] == f"vocabulary: {len(ws.vocab)} words"
    said = " ".join(c["text"] for c in lab[label]["manifest"]["captions"])
    assert f"each of the {len(ws.vocab)} words of the vocabulary" in said


@pytest.mark.parametrize("label", LABELS)
def test_the_targets_stand_beside_the_loss(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    sections = [s["name"] for s in lab[label]["sections"]]
    if not ws.lesson.targets:
        assert "the loss" not in sections and "one training step" not in sections
        return
    shown = texts(lab[label], "the loss")
    (loss,) = keyed(shown, "lab.loss")
    for i, name in enumerate(ws.sentences):
        (target,) = keyed(shown, f"lab.y[{i}]")
        word = next(t for t in shown if t["kind"] == "word"
                    and t["text"] == ws.lesson.targets[name]
                    and abs(centre(t)[1] - centre(target)[1]) < 0.05)
        assert word["box"][2] < target["box"][0] < loss["box"][0]


@pytest.mark.parametrize("label", [label for label in LABELS if label != "seed"])
def test_every_tensor_that_gets_a_gradient_is_named(lab, label: str) -> None:
    from scenes.lab import PARAMETER_TENSORS
    from worksheet.model import TinyLM

    ws = load_worksheet(WORKSHEETS[label])
    # The model's own parameter names, in its order, and what the lecture calls them.
    lecture = {"token_embedding.weight": "token table",
               "position_embedding.weight": "position table",
               "attention.W_Q": "W_Q", "attention.W_K": "W_K", "attention.W_V": "W_V",
               "attention.W_O": "W_O", "hidden.weight": "W_hidden", "hidden.bias": "b_hidden",
               "readout.weight": "W_vocab", "readout.bias": "b_vocab"}
    model = TinyLM.from_worksheet(ws)
    named = [lecture[name] for name, _ in model.named_parameters()]
    assert named == [name for _, names in PARAMETER_TENSORS for name in names]
    shown = texts(lab[label], "one training step")
    chips = [t["text"] for t in shown if t["text"] in set(named)]
    assert sorted(chips) == sorted(named)
    count = compute_values(ws).value("lab.param_tensors")
    assert len(chips) == count
    assert any(t["text"] == f"finite gradients in all {count} parameter tensors"
               for t in shown)


@pytest.mark.parametrize("label", LABELS)
def test_the_window_keeps_the_last_tokens_and_greys_the_oldest(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    values = compute_values(ws)
    history, context = values.value("lab.shape.history[1]"), ws.context
    shown = texts(lab[label], "one new token")
    tokens = [*ws.sentences[ws.walkthrough], ws.vocab[values.value("lab.next_id")]]
    row = sorted((t for t in shown if t["kind"] == "word"
                  and abs(centre(t)[1] - max(centre(w)[1] for w in shown
                                             if w["kind"] == "word")) < 0.05),
                 key=lambda t: centre(t)[0])
    assert [t["text"] for t in row] == tokens
    texts_shown = {t["text"] for t in shown}
    if history > context:
        out = history - context
        assert all(t["colours"] == [MUTED] for t in row[:out])
        assert all(t["colours"] == [INK] for t in row[out:])
        assert f"the window: the last {context} tokens" in texts_shown
        assert "falls out" in texts_shown
    else:
        assert all(t["colours"] == [INK] for t in row)
        assert f"all {history} tokens fit the window of {context}" in texts_shown


def _reference_logits(doc: Any, rows: slice = slice(None)) -> np.ndarray:
    """numpy's final-position logits of the worksheet's own weights, one row a sentence."""
    X = np.array([reference.token_ids(doc, name) for name in doc["sentences"]])[rows]
    heads = len(doc["headsLesson"]["projections"])
    logits, _, _ = reference.lm_loss(reference.lm_parameters(doc), X, None, heads)
    return np.asarray(logits)


@pytest.mark.parametrize("label", LABELS)
def test_embedding_adds_each_ids_token_row_and_its_position_row(lab, label: str) -> None:
    """Each token drawn is a sum written down a column: the id, its row of the token table,
    the position's row, and their sum, the row of E, top to bottom, every number numpy's to
    its last digit."""
    ws = load_worksheet(WORKSHEETS[label])
    doc = ws.document
    first = next(iter(doc["sentences"]))
    ids = reference.token_ids(doc, first)
    E = reference.embed(doc, first)
    shown = texts(lab[label], "embedding")
    rows = [j for j in range(ws.length) if keyed(shown, f"lab.X[0][{j}]")]
    assert rows and rows == list(range(len(rows)))
    for j in rows:
        (id_text,) = keyed(shown, f"lab.X[0][{j}]")
        assert int(id_text["text"]) == ids[j]
        token_row = np.array(doc["tok_emb"][doc["vocab"][ids[j]]], dtype=float)
        parts = [(f"params.tok_emb[{ids[j]}]", token_row),
                 (f"params.pos_emb[{j}]", np.array(doc["pos_emb"][j], dtype=float)),
                 (f"{first}.E[{j}]", E[j])]
        ys = [centre(id_text)[1]]
        for key, row in parts:
            (text,) = keyed(shown, f"{key}[0]")
            assert abs(centre(text)[0] - centre(id_text)[0]) < 0.05, key  # one column
            ys.append(centre(text)[1])
            for figure, digits in text["figures"]:
                column = int(figure.rsplit("[", 1)[1].rstrip("]"))
                assert figure.startswith(key)
                assert reference.within_display(digits, Style.PARAM, row[column]), figure
        assert ys == sorted(ys, reverse=True), j
    said = " ".join(c["text"] for c in lab[label]["manifest"]["captions"])
    assert "token table" in said and "position table" in said


@pytest.mark.parametrize("label", LABELS)
def test_each_grid_times_its_values_is_drawn_as_a_product(lab, label: str) -> None:
    """A × V = messages, three labelled pieces in that order, and one product per
    sentence and head."""
    ws = load_worksheet(WORKSHEETS[label])
    shown = texts(lab[label], "attention")
    named = {t["text"]: t for t in shown if t["text"] in ("A", "V", "messages")}
    assert set(named) == {"A", "V", "messages"}
    assert centre(named["A"])[0] < centre(named["V"])[0] < centre(named["messages"])[0]
    blocks = len(ws.sentences) * ws.n_heads
    assert sum(t["text"] == "×" for t in shown) == blocks
    assert sum(t["text"] == "=" for t in shown) == blocks


@pytest.mark.parametrize("label", LABELS)
def test_the_loss_is_the_mean_of_the_targets_negative_logs(lab, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    if not ws.lesson.targets:
        return
    doc = ws.document
    names = list(doc["sentences"])
    logits = _reference_logits(doc)
    chances = [reference.softmax(row)[doc["vocab"].index(ws.lesson.targets[name].lower())]
               for row, name in zip(logits, names, strict=True)]
    shown = texts(lab[label], "the loss")
    digits = []
    for i in range(len(names)):
        (beside,) = [t for t in keyed(shown, f"lab.target_prob[{i}]")
                     if t["text"].startswith("p = ")]
        (target,) = keyed(shown, f"lab.y[{i}]")
        assert abs(centre(beside)[1] - centre(target)[1]) < 0.05  # on the target's line
        digits.append(beside["text"].removeprefix("p = "))
        assert reference.within_display(digits[-1], Style.FIXED3, chances[i])
    mean = "(−ln " + " − ln ".join(digits) + f") ÷ {len(names)}"
    assert mean in {t["text"] for t in shown}
    (loss,) = keyed(shown, "lab.loss")
    assert reference.within_display(loss["text"], Style.FIXED3, -np.mean(np.log(chances)))


@pytest.mark.parametrize("label", LABELS)
def test_generation_reads_the_worksheets_own_weights(lab, label: str) -> None:
    """After a training step the voice says generation reloads the worksheet's weights,
    and the probability shown is that of those weights (numpy), not the stepped ones."""
    ws = load_worksheet(WORKSHEETS[label])
    said = " ".join(c["text"] for c in lab[label]["manifest"]["captions"])
    if ws.lesson.targets:
        assert "reloads the worksheet's own weights, from before that step" in said
    probs = reference.softmax(_reference_logits(ws.document, slice(0, 1))[0])
    (shown,) = keyed(texts(lab[label], "one new token"), "lab.next_prob")
    assert shown["text"] == f"probability {shown['figures'][0][1]}"
    assert reference.within_display(shown["figures"][0][1], Style.FIXED3, probs.max())
