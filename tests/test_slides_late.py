"""The later stacks of the deck read like the lesson: a later head's message can be checked
source by source, the wide head's message stands beside the heads' with every coordinate
named, the combining steps are one grid, the hidden layer has a heading per unit, the
readout and softmax come before the prediction, other contexts name their coordinates,
and the explorer's page holds its first sentence's figures before any script runs.

Every expected figure is recomputed here in plain numpy from the worksheet's document (or
taken from the independent float64 recomputation in ``tests/reference.py``); a coordinate's
name is found from which input row a column of ``W_V`` reads.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from slides.context import (
    Block,
    Bullets,
    Columns,
    Deck,
    Formula,
    Label,
    Num,
    Para,
    Picture,
    Rect,
    Slide,
    Switch,
    Table,
    Text,
    Word,
)
from slides.deck import build_deck, deck_context
from tests import reference
from tests.conftest import THREE_HEADS
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet

WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS}
HALF_UNIT = 0.0005 + 1e-9
"""How far a figure shown to three decimals may be from its exact value."""


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    return {"name": request.param, "ws": ws, "doc": ws.document,
            "deck": deck_context(ws, compute_values(ws)),
            "ref": reference.worksheet_values(ws.document)}


# ------------------------------------------------------------------ reading the deck


def slide(deck: Deck, id: str) -> Slide:
    return next(s for s in deck.slides if s.id == id)


def blocks_of(blocks: tuple[Block, ...]) -> list[Block]:
    """Every block, columns opened, the first panel of a switch (the state shown first)."""
    found: list[Block] = []
    for block in blocks:
        if isinstance(block, Columns):
            for column in block.columns:
                found += blocks_of(column)
        elif isinstance(block, Switch):
            shown = next(p for p in block.panels if p.active)
            found += blocks_of(shown.blocks)
        else:
            found.append(block)
    return found


def of_kind(s: Slide, kind: type) -> list[Any]:
    return [b for b in blocks_of(s.blocks) if isinstance(b, kind)]


def text(runs: tuple[Any, ...]) -> str:
    return "".join(getattr(r, "text", "") or getattr(r, "tex", "") for r in runs)


def shown(num: Num) -> float:
    return float(num.text.replace("−", "-"))


def close(num: Num, value: float) -> bool:
    return abs(shown(num) - float(value)) <= HALF_UNIT + 1e-6 * abs(float(value))


# ------------------------------------------------------------------ the lesson, recomputed


def value_names(doc: dict[str, Any], h: int) -> list[str | None]:
    """The feature each column of head ``h``'s W_V copies (its one nonzero row), or None
    for a column that mixes features."""
    W_V = np.asarray(doc["headsLesson"]["projections"][h - 1]["V"], dtype=float)
    names: list[str | None] = []
    for column in W_V.T:
        rows = np.flatnonzero(column)
        names.append(doc["lesson"]["features"][rows[0]] if len(rows) == 1 else None)
    return names


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def wide_message(ref: dict[str, Any], sentence: str, heads: int) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """One head as wide as all heads together: their projections side by side, one
    softmax over the final receiver's scores; its weights and its message."""
    Q, K, V = (np.hstack([np.asarray(ref[f"{sentence}.h{h}.{kind}"], dtype=float)
                          for h in range(1, heads + 1)]) for kind in "QKV")
    weights = softmax(K @ Q[-1] / np.sqrt(Q.shape[1]))
    return weights, weights @ V


def hidden_layer(doc: dict[str, Any], ref: dict[str, Any], sentence: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The last updated row through the hidden layer, its ReLU and the vocabulary
    softmax."""
    row = np.asarray(ref[f"{sentence}.E_prime"], dtype=float)[-1]
    before = row @ np.asarray(doc["W_hidden"], dtype=float) + np.asarray(doc["b_hidden"])
    after = np.maximum(before, 0.0)
    logits = after @ np.asarray(doc["W_vocab"], dtype=float) + np.asarray(doc["b_vocab"])
    return before, after, logits


# ------------------------------------------------------------------ a later head


def test_a_later_head_shows_each_sources_weighted_value_under_named_coordinates(case):
    """Review s08: the recap skipped head 2's values and contributions, so its message
    could not be checked; its second coordinate comes from many weakly weighted sources."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s = ws.walkthrough
    for h in range(2, ws.n_heads + 1):
        shown_slide = slide(case["deck"], f"head-{h}-contributions")
        (table,) = of_kind(shown_slide, Table)
        weights = np.asarray(ref[f"{s}.h{h}.weights"], dtype=float)
        V = np.asarray(ref[f"{s}.h{h}.V"], dtype=float)
        products = weights[:, None] * V
        cells = {n.key: n for row in table.rows for cell in row.cells for n in cell.runs
                 if isinstance(n, Num)}
        for j in range(ws.length):
            for c in range(ws.d_head):
                assert close(cells[f"{s}.h{h}.contributions[{j}][{c}]"], products[j, c])
        for c in range(ws.d_head):
            assert close(cells[f"{s}.h{h}.message[{c}]"], products[:, c].sum())
        names = [text(cell.runs) for cell in table.rows[0].cells if cell.runs]
        expected = [n or ws.lesson.head_names[h - 1] for n in value_names(doc, h)]
        if all(value_names(doc, h)):
            assert names == expected * 2
        # the strongest source's share of each coordinate, read against the whole
        top = int(np.argmax(weights))
        said = [n for p in of_kind(shown_slide, Para) for n in p.runs if isinstance(n, Num)]
        for c in range(ws.d_head):
            assert any(n.key == f"{s}.h{h}.contributions[{top}][{c}]"
                       and close(n, products[top, c]) for n in said)
            assert any(n.key == f"{s}.h{h}.message[{c}]" for n in said)


def test_a_later_heads_title_does_not_promise_a_recap_and_every_step_again() -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    deck = deck_context(ws, compute_values(ws))
    title = text(slide(deck, "head-2-title").title)
    assert "recap" not in title.lower()


# ------------------------------------------------------------------ the wide head


def test_the_wide_heads_message_stands_beside_the_heads_with_every_coordinate_named(case):
    """Review s09: the wide head's message beside the two-head message, coordinates named,
    the payoff stated with the first head's strongest source's weight in both."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    compared = slide(case["deck"], "wide-head-messages")
    (picture,) = of_kind(compared, Picture)
    weights, message = wide_message(ref, s, ws.n_heads)
    joined = np.concatenate([np.asarray(ref[f"{s}.h{h}.message"], dtype=float)
                             for h in range(1, ws.n_heads + 1)])
    numbers = {g.key: g for shape in picture.shapes if isinstance(shape, Label)
               for g in shape.glyphs if isinstance(g, Num)}
    bars = {shape.draws: shape for shape in picture.shapes
            if isinstance(shape, Rect) and shape.role == "bar"}
    for i in range(ws.n_heads * ws.d_head):
        assert close(numbers[f"{s}.wide.message[{i}]"], message[i])
        assert close(numbers[f"{s}.joined[{last}][{i}]"], joined[i])
        head = i // ws.d_head + 1
        if joined[i] > 0:  # the heads' bars in their colours, the wide head's neutral
            assert bars[f"{s}.joined[{last}][{i}]"].fill == f"head-{head}"
        if message[i] > 0:
            assert bars[f"{s}.wide.message[{i}]"].fill == "neutral"
    labels = [text(shape.glyphs) for shape in picture.shapes if isinstance(shape, Label)]
    names = [n for h in range(1, ws.n_heads + 1) for n in value_names(doc, h)]
    for name in names:
        if name is not None:
            assert name in labels
    top = int(np.argmax(np.asarray(ref[f"{s}.h1.weights"], dtype=float)))
    said = {n.key: n for p in of_kind(compared, Para) for n in p.runs if isinstance(n, Num)}
    assert close(said[f"{s}.wide.weights[{top}]"], weights[top])
    assert close(said[f"{s}.h1.weights[{top}]"], ref[f"{s}.h1.weights"][top])
    assert close(said[f"{s}.wide.message[0]"], message[0])
    if case["name"] == "default":
        paragraph = text(of_kind(compared, Para)[0].runs)
        assert "river" in paragraph and "water" in paragraph


def test_every_heads_message_is_named_by_coordinate_without_a_denominator(case) -> None:
    """Review s09_044: two unlabelled bar axes and an irrelevant denominator column."""
    ws, doc = case["ws"], case["doc"]
    complete = slide(case["deck"], "wide-head-complete")
    keys = [n.key for b in blocks_of(complete.blocks) if isinstance(b, Table)
            for row in b.rows for cell in row.cells for n in cell.runs if isinstance(n, Num)]
    assert not any("denominator" in key for key in keys)
    (picture,) = of_kind(complete, Picture)
    labels = [text(shape.glyphs) for shape in picture.shapes if isinstance(shape, Label)]
    for h in range(1, ws.n_heads + 1):
        for name in value_names(doc, h):
            if name is not None:
                assert name in labels


# ------------------------------------------------------------------ combining


def test_the_combining_steps_are_one_grid_under_the_features(case) -> None:
    """Review s10_048: a wall of text whose last row wrapped; review deck38 s11_062: the
    first slide gave away the next four. It shows the heads' messages alone, each in its
    head's columns; the residual slide ends on the new row."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    together = slide(case["deck"], "combine-together")
    (table,) = of_kind(together, Table)
    assert len(table.rows) == ws.n_heads
    joined = np.asarray(ref[f"{s}.joined"], dtype=float)[last]
    d = ws.d_head
    for h, row in enumerate(table.rows, start=1):
        message = [shown(r) for cell in row.cells for r in cell.runs if isinstance(r, Num)]
        # the joined row is the heads' messages side by side
        assert message == pytest.approx(joined[(h - 1) * d:h * d], abs=HALF_UNIT)
        filled = [bool(cell.runs) for cell in row.cells]
        assert filled.index(True) == (h - 1) * d  # its own head's columns
    W_O = np.asarray(doc["headsLesson"]["W_O"], dtype=float)
    E = np.asarray(ref[f"{s}.E"], dtype=float)[last]
    updated = E + joined @ W_O
    (residual, *_) = of_kind(slide(case["deck"], "combine-residual"), Table)
    final = [r for cell in residual.rows[-1].cells for r in cell.runs if isinstance(r, Num)]
    assert [round(shown(n), 3) for n in final] == pytest.approx(updated, abs=HALF_UNIT)
    assert text(residual.columns[0]) == ws.lesson.features[0]


def test_w_o_is_drawn_once_and_its_cross_head_term_is_read_aloud(case) -> None:
    """Review s10_050/051: the same W_O figure twice, two tables of the same content, an
    unexplained dashed line."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    W_O = np.asarray(doc["headsLesson"]["W_O"], dtype=float)
    d = ws.d_head
    crossing = [(i, c) for i in range(W_O.shape[0]) for c in range(W_O.shape[1])
                if W_O[i, c] != 0 and i // d != c // d]
    w_o = slide(case["deck"], "combine-w-o")
    blocks = slide(case["deck"], "combine-blocks")
    assert not of_kind(w_o, Table) and not of_kind(blocks, Table)
    said = " ".join(text(p.runs) for p in of_kind(w_o, Para))
    if crossing:
        i, c = crossing[0]
        joined = np.asarray(ref[f"{s}.joined"], dtype=float)[last]
        numbers = {n.key: n for p in of_kind(w_o, Para) for n in p.runs if isinstance(n, Num)}
        assert close(numbers[f"{s}.update_terms[{i}][{c}]"], joined[i] * W_O[i, c])
        assert close(numbers[f"{s}.delta[{last}][{c}]"], joined @ W_O[:, c])
        assert "dashed line" in said and ws.lesson.features[c] in said


def test_the_residual_slide_says_why_and_reads_the_new_row(case) -> None:
    """Review s10_052: a reason for the residual and a reading of the new row."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    residual = slide(case["deck"], "combine-residual")
    said = " ".join(text(p.runs) for p in of_kind(residual, Para))
    assert "keeps the input row" in said
    E = np.asarray(ref[f"{s}.E"], dtype=float)
    E_prime = np.asarray(ref[f"{s}.E_prime"], dtype=float)[last]
    numbers = {n.key: n for p in of_kind(residual, Para) for n in p.runs if isinstance(n, Num)}
    for h in range(1, ws.n_heads + 1):
        name = value_names(doc, h)[0]
        if name is None or not all(value_names(doc, k)[0] for k in range(1, ws.n_heads + 1)):
            continue
        f = ws.lesson.features.index(name)
        top = int(np.argmax(np.asarray(ref[f"{s}.h{h}.weights"], dtype=float)))
        assert close(numbers[f"{s}.E_prime[{last}][{f}]"], E_prime[f])
        assert close(numbers[f"{s}.E[{top}][{f}]"], E[top, f])
        assert name in said and ws.sentences[s][top] in said


# ------------------------------------------------------------------ the prediction


def test_the_hidden_layer_is_one_grid_with_a_heading_per_hidden_unit(case) -> None:
    """Review s11: eight hidden values under four headers, misaligned."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s = ws.walkthrough
    before, after, _ = hidden_layer(doc, ref, s)
    mlp = slide(case["deck"], "prediction-mlp")
    (grid,) = [t for t in of_kind(mlp, Table) if len(t.columns) == len(before)]
    assert [text(column) for column in grid.columns] == \
        [f"u{k + 1}" for k in range(len(before))]
    pre, relu = grid.rows
    assert [shown(c.runs[0]) for c in pre.cells] == pytest.approx(before, abs=HALF_UNIT)
    assert [shown(c.runs[0]) for c in relu.cells] == pytest.approx(after, abs=HALF_UNIT)
    # the units the ReLU switches off look different from those it keeps
    assert {c.style for c, a in zip(relu.cells, after, strict=True) if a == 0} \
        .isdisjoint({c.style for c, a in zip(relu.cells, after, strict=True) if a > 0})
    said = " ".join(text(p.runs) for p in of_kind(mlp, Para))
    assert "W_u" in said and "b_u" in said


def test_the_readout_and_softmax_come_before_the_predicted_word(case) -> None:
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    s = ws.walkthrough
    _, _, logits = hidden_layer(doc, ref, s)
    probs = softmax(logits)
    order = np.argsort(-probs, kind="stable")
    ids = [s_.id for s_ in case["deck"].slides]
    assert ids.index("prediction-mlp") < ids.index("prediction-readout") \
        < ids.index("prediction-probabilities")
    readout = slide(case["deck"], "prediction-readout")
    assert any("e^{z_i}" in f.tex for f in of_kind(readout, Formula))
    (table,) = of_kind(readout, Table)
    top = [row for row in table.rows if any(isinstance(r, Word) for r in row.label)]
    assert [text(row.label) for row in top] == [ws.vocab[i] for i in order[:len(top)]]
    for row, i in zip(top, order, strict=False):
        assert close(row.cells[0].runs[0], logits[i]) and close(row.cells[1].runs[0], probs[i])
    assert close(table.rows[-1].cells[1].runs[0], probs[order[len(top):]].sum())
    said = text(of_kind(readout, Para)[-1].runs)
    assert ws.vocab[order[0]] in said


# ------------------------------------------------------------------ other contexts


def test_other_contexts_name_every_message_coordinate(case) -> None:
    """Review s12: the message vectors need coordinate names."""
    ws, doc, ref = case["ws"], case["doc"], case["ref"]
    names = [n for h in range(1, ws.n_heads + 1) for n in value_names(doc, h)]
    every = slide(case["deck"], "other-context-every")
    (table,) = of_kind(every, Table)
    rows = list(table.rows)
    if all(names):  # a row of coordinate names under the heads' headings
        assert [text(cell.runs) for cell in rows.pop(0).cells if cell.runs] == names
    assert [text(row.label) for row in rows] == list(ws.sentences)
    for row in rows:
        sentence = text(row.label)
        message = np.concatenate([np.asarray(ref[f"{sentence}.h{h}.message"], dtype=float)
                                  for h in range(1, ws.n_heads + 1)])
        numbers = [n for cell in row.cells for n in cell.runs if isinstance(n, Num)]
        assert [shown(n) for n in numbers] == pytest.approx(message, abs=HALF_UNIT)
    switch = slide(case["deck"], "other-context-switch")
    for panel in next(b for b in switch.blocks if isinstance(b, Switch)).panels:
        (bullets,) = [b for b in panel.blocks if isinstance(b, Bullets)]
        for h, item in enumerate(bullets.items, start=1):
            for c, name in enumerate(value_names(doc, h)):
                at = next(k for k, r in enumerate(item.runs)
                          if isinstance(r, Num) and r.key.endswith(f".message[{c}]"))
                if name is not None:
                    assert isinstance(item.runs[at - 2], Word)
                    assert item.runs[at - 2].text == name and item.runs[at - 1] == Text(" ")


# ------------------------------------------------------------------ the explorer's page


@pytest.fixture(scope="module")
def explorer_html(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any],
                                                                     Any]:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    index = build_deck(ws, compute_values(ws), tmp_path_factory.mktemp("late"))
    html = Path(index).read_text(encoding="utf-8")
    start = html.index('id="other-context-explorer"')
    section = html[start:html.index("</section>", start)]
    return section, reference.worksheet_values(ws.document), ws


def test_the_explorers_page_holds_its_first_sentences_figures(explorer_html) -> None:
    """Review s12_059: the explorer showed "Loading…" and dashes in its first state; the
    page itself must hold the first sentence's figures, each bound to its value."""
    section, ref, ws = explorer_html
    s, last = ws.walkthrough, ws.length - 1
    visible = re.sub(r"<[^>]+>", " ", section)
    assert "Loading" not in visible
    figures = dict(re.findall(r'data-quantity="([^"]+)"[^>]*>(?:<[^>]+>)*([^<]*)<', section))
    expected: dict[str, float] = {}
    for h in range(1, ws.n_heads + 1):
        for c in range(ws.d_head):
            for kind in "QKV":
                expected[f"h{h}.{kind.lower()}[{c}]"] = ref[f"{s}.h{h}.{kind}"][last][c]
            expected[f"h{h}.message[{c}]"] = ref[f"{s}.h{h}.message"][c]
        for j in range(ws.length):
            expected[f"h{h}.weights[{j}]"] = ref[f"{s}.h{h}.weights"][j]
    for c in range(ws.d_model):
        expected[f"delta[{c}]"] = ref[f"{s}.delta"][last][c]
    probs = np.asarray(ref[f"{s}.probs"], dtype=float)
    expected["probability"] = probs.max()
    for quantity, value in expected.items():
        assert abs(float(figures[quantity].replace("−", "-")) - value) <= HALF_UNIT, quantity
    assert figures["prediction"] == ws.vocab[int(np.argmax(probs))]
    # every figure is bound to its key, as on every other slide
    assert section.count('data-key="') >= len(expected)
