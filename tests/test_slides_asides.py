"""The lesson's six asides: why scores are divided by the square root of the head width,
the stable softmax, one packed projection split into heads, the features each head's keys
read, what PyTorch's attention block leaves out, and colour patches.

Their new values are checked against plain numpy (``tests/reference.py`` and the lesson's
formulas here), and each aside's slide against what it must show: its picture, in every
state, drawing exactly the figures its lesson is about.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from outline import STEPS
from slides.context import Bullets, Deck, Label, Num, Picture, Rect, Slide, Switch
from slides.deck import deck_context
from slides.lesson.pictures import COLUMN_HEIGHT
from tests import reference
from tests.conftest import DATA, THREE_HEADS
from tests.test_slides_pictures import panels, pictures_in
from worksheet import DEFAULT_WORKSHEET, Values, compute_values, load_worksheet

WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS,
              "four": DATA / "four-heads.json", "wide": DATA / "one-wide-head.json"}
EXACT = 1e-12
ROUNDING = 0.01
"""Picture coordinates are written with two decimals."""
ASIDES = {"head-1": ("softmax", ["scale", "stable"], "weights"),
          "projections": (None, ["split", "features"], None),
          "pytorch": ("same", ["outside"], "model"),
          "patches": ("rows", ["rgb"], "sequence")}
"""Where each aside stands in its stack: after which slide, and before which."""


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    values = compute_values(ws)
    doc = json.loads(json.dumps(dict(ws.document)))
    return {"ws": ws, "values": values, "doc": doc, "deck": deck_context(ws, values),
            "ref": reference.values(doc)}


def close(actual: object, expected: object) -> None:
    a, b = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    np.testing.assert_allclose(a, b, rtol=0, atol=EXACT * scale)


def slide(deck: Deck, id: str) -> Slide:
    return next(s for s in deck.slides if s.id == id)


def drawn(picture: Picture, role: str | None = None) -> dict[str, Rect]:
    """The picture's rectangles that draw a value, by the key they draw."""
    return {shape.draws: shape for shape in picture.shapes if isinstance(shape, Rect)
            and shape.draws and (role is None or shape.role == role)}


def labelled(picture: Picture) -> set[str]:
    """Every key written in the picture's labels."""
    return {glyph.key for shape in picture.shapes if isinstance(shape, Label)
            for glyph in shape.glyphs if isinstance(glyph, Num)}


def fresh(ref: dict[str, Any], key: str) -> float:
    name = key.split("[", 1)[0]
    index = tuple(int(i) for i in re.findall(r"\[(\d+)\]", key))
    return float(np.asarray(ref[name], dtype=float)[index])


# ------------------------------------------------------------------ the values


def test_the_stable_softmax_gives_the_same_weights(case) -> None:
    values: Values = case["values"]
    for name in case["ws"].sentences:
        for h in range(1, case["ws"].n_heads + 1):
            prefix = f"{name}.h{h}"
            scores = np.asarray(values.value(f"{prefix}.scores"))
            shifted = np.asarray(values.value(f"{prefix}.stable.scores"))
            exps = np.asarray(values.value(f"{prefix}.stable.exps"))
            close(values.value(f"{prefix}.stable.max"), scores.max())
            close(shifted, scores - scores.max())
            assert shifted.max() == 0 and (exps <= 1).all() and exps.max() == 1
            close(values.value(f"{prefix}.stable.denominator"), exps.sum())
            close(values.value(f"{prefix}.stable.weights"), values.value(f"{prefix}.weights"))
            # the shift divides every exponential, and the denominator, by e^max
            close(np.asarray(values.value(f"{prefix}.exps")) / np.exp(scores.max()), exps)


def test_the_undivided_weights_are_the_softmax_of_the_dot_products_and_sharper(case) -> None:
    doc, values = case["doc"], case["values"]
    for name in case["ws"].sentences:
        E = reference.embed(doc, name)
        for h, head in enumerate(doc["headsLesson"]["projections"], start=1):
            prefix = f"{name}.h{h}"
            q = E[-1] @ np.asarray(head["Q"], dtype=float)
            dots = (E @ np.asarray(head["K"], dtype=float)) @ q
            undivided = np.exp(dots - dots.max()) / np.exp(dots - dots.max()).sum()
            close(values.value(f"{prefix}.unscaled.weights"), undivided)
            weights = np.asarray(values.value(f"{prefix}.weights"))
            assert int(np.argmax(undivided)) == int(np.argmax(weights))
            if len(q) > 1:  # divided by more than one: the undivided row is sharper
                assert undivided.max() > weights.max()
    trained = doc["lesson"]["trained"]
    for heads in trained["heads"]:
        assert values.value(f"trained.heads{heads}.scale") == \
            pytest.approx(np.sqrt(trained["width"] // heads), abs=EXACT)


def test_one_packed_projection_gives_every_heads_query(case) -> None:
    doc, values, ws = case["doc"], case["values"], case["ws"]
    E = reference.embed(doc, ws.walkthrough)
    packed = np.concatenate([np.asarray(p["Q"], dtype=float)
                             for p in doc["headsLesson"]["projections"]], axis=1)
    assert values.value("shapes.W_Q_packed") == list(packed.shape)
    row = E[-1:] @ packed
    assert values.value("shapes.q_packed") == list(row.shape)
    queries = np.concatenate([values.value(f"{ws.walkthrough}.h{h}.Q")[-1]
                              for h in range(1, ws.n_heads + 1)])
    close(row[0], queries)


def test_what_each_heads_keys_read_and_in_which_order(case) -> None:
    doc, values = case["doc"], case["values"]
    for h, head in enumerate(doc["headsLesson"]["projections"], start=1):
        reads = np.abs(np.asarray(head["K"], dtype=float)).sum(axis=1)
        close(values.value(f"params.h{h}.K_reads"), reads)
        order = values.value(f"params.h{h}.K_order")
        assert sorted(order) == list(range(len(reads)))
        # most read first; features read alike stay in their own order
        assert all(reads[a] > reads[b] or (reads[a] == reads[b] and a < b)
                   for a, b in pairwise(order))


def test_a_colour_patch_holds_three_values_a_pixel(case) -> None:
    values, doc = case["values"], case["doc"]
    image = np.asarray(doc["lesson"]["patches"]["image"], dtype=float)
    size = doc["lesson"]["patches"]["size"]
    colour = np.stack([image] * 3)  # red, green and blue
    flat = np.array([colour[:, r:r + size, c:c + size].reshape(-1)
                     for r in range(0, image.shape[0], size)
                     for c in range(0, image.shape[1], size)])
    assert values.value("patches.channels") == 3
    assert values.value("patches.shape.image_rgb") == list(colour.shape)
    assert values.value("patches.shape.flat_rgb") == list(flat.shape)
    assert values.value("patches.values_per_patch_rgb") == size * size * 3
    assert values.value("patches.count") == (image.shape[0] // size) * (image.shape[1] // size)
    assert values.value("patches.shape.W_rgb") == \
        [flat.shape[1], len(doc["lesson"]["patches"]["projection"][0])]


# ------------------------------------------------------------------ the slides


def test_each_aside_stands_where_its_lesson_needs_it(case) -> None:
    deck: Deck = case["deck"]
    for stack_id, (before, asides, after) in ASIDES.items():
        ids = [s.id for s in next(st for st in deck.stacks if st.id == stack_id).slides]
        at = ids.index(f"{stack_id}-{asides[0]}")
        assert ids[at:at + len(asides)] == [f"{stack_id}-{a}" for a in asides], stack_id
        if before:
            assert ids[at - 1] == f"{stack_id}-{before}", stack_id
        if after:
            assert ids[at + len(asides)] == f"{stack_id}-{after}", stack_id
        for id in ids[at:at + len(asides)]:
            assert slide(deck, id).notes, id
            for shown in panels(slide(deck, id).blocks):
                assert pictures_in(shown), id
    later = [s.id for st in deck.stacks if st.part == "head-walkthrough" and st.head != 1
             for s in st.slides]
    assert not [id for id in later if id.endswith(("-scale", "-stable"))]


def test_the_scale_slide_draws_both_rows_of_weights_to_scale(case) -> None:
    ws, ref = case["ws"], case["ref"]
    s = slide(case["deck"], "head-1-scale")
    panels = [p for b in s.blocks if isinstance(b, Switch) for p in b.panels]
    assert [p.sentence for p in panels] == list(ws.sentences)
    for panel in panels:
        (picture,) = pictures_in(panel.blocks)
        columns = drawn(picture, "column")
        prefix = f"{panel.sentence}.h1"
        wanted = {f"{prefix}{kind}.weights[{j}]" for kind in ("", ".unscaled")
                  for j in range(ws.length)}
        assert set(columns) == wanted
        for key, bar in columns.items():
            assert abs(bar.h - fresh(ref, key) * COLUMN_HEIGHT) <= ROUNDING, key
        top = int(np.argmax(ref[f"{prefix}.weights"]))
        assert {f"{prefix}.weights[{top}]", f"{prefix}.unscaled.weights[{top}]"} <= \
            labelled(picture)


def test_the_stable_slide_fits_each_old_weight_over_its_new_one(case) -> None:
    ws, ref = case["ws"], case["ref"]
    s = slide(case["deck"], "head-1-stable")
    for panel in (p for b in s.blocks if isinstance(b, Switch) for p in b.panels):
        (picture,) = pictures_in(panel.blocks)
        prefix = f"{panel.sentence}.h1"
        columns = drawn(picture, "column")
        for j in range(ws.length):
            new, old = columns[f"{prefix}.stable.weights[{j}]"], columns[f"{prefix}.weights[{j}]"]
            assert (old.x, old.w) == (new.x, new.w) and old.dashed and old.fill == "none"
            assert abs(old.y + old.h - (new.y + new.h)) <= ROUNDING
            assert abs(old.h - fresh(ref, f"{prefix}.weights[{j}]") * COLUMN_HEIGHT) <= ROUNDING
            assert abs(new.h - old.h) <= 2 * ROUNDING  # the same weight, by numpy
        keys = {key for key, _ in _nums(panel.blocks)}
        assert {f"{prefix}.stable.max", f"{prefix}.stable.denominator"} <= keys
        assert {f"{prefix}.stable.exps[{j}]" for j in range(ws.length)} <= keys


def test_the_split_slide_draws_every_heads_block_of_the_packed_projection(case) -> None:
    ws = case["ws"]
    s, last = ws.walkthrough, ws.length - 1
    (picture,) = pictures_in(slide(case["deck"], "projections-split").blocks)
    cells = drawn(picture, "weight")
    assert set(cells) == {f"params.h{h}.W_Q[{c}][{k}]" for h in range(1, ws.n_heads + 1)
                          for c in range(ws.d_model) for k in range(ws.d_head)}
    for key, cell in cells.items():
        assert cell.fill == f"head-{key.split('.h')[1].split('.')[0]}" or \
            cell.fill in ("negative", "paper")
    queries = drawn(picture, "query")
    assert set(queries) == {f"{s}.h{h}.Q[{last}][{k}]" for h in range(1, ws.n_heads + 1)
                            for k in range(ws.d_head)}
    # each query coordinate stands under the column of the packed matrix that makes it
    for h in range(1, ws.n_heads + 1):
        for k in range(ws.d_head):
            assert queries[f"{s}.h{h}.Q[{last}][{k}]"].x == cells[f"params.h{h}.W_Q[0][{k}]"].x
    assert {"shapes.last_row", "shapes.W_Q_packed", "shapes.q_packed", "shapes.q_row"} <= \
        labelled(picture)
    assert {f"{s}.E[{last}][{c}]" for c in range(ws.d_model)} <= labelled(picture)
    outlines = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "reads"]
    rows = [c.y for c in cells.values()]
    assert len(outlines) == ws.n_heads
    assert all(o.y <= min(rows) and o.y + o.h >= max(rows) for o in outlines)


def test_the_features_slide_shows_each_heads_keys_by_feature(case) -> None:
    ws, ref = case["ws"], case["ref"]
    (picture,) = pictures_in(slide(case["deck"], "projections-features").blocks)
    cells = drawn(picture, "weight")
    heads = range(1, ws.n_heads + 1)
    assert set(cells) == {f"params.h{h}.W_K[{c}][{k}]" for h in heads
                          for c in range(ws.d_model) for k in range(ws.d_head)}
    bars = drawn(picture, "bar")
    assert set(bars) == {f"params.h{h}.K_reads[{c}]" for h in heads for c in range(ws.d_model)}
    longest = max(bars, key=lambda key: fresh(ref, key))
    unit = bars[longest].w / fresh(ref, longest)
    for key, bar in bars.items():  # one scale for every head
        assert abs(bar.w - fresh(ref, key) * unit) <= ROUNDING, key
    names = {"".join(g.text for g in shape.glyphs) for shape in picture.shapes
             if isinstance(shape, Label)}
    assert set(ws.lesson.features) <= names
    bullets = [b for b in slide(case["deck"], "projections-features").blocks
               if isinstance(b, Bullets)]
    said = ["".join(run.text for run in item.runs) for b in bullets for item in b.items]
    for h, line in zip(heads, said, strict=True):
        order = ref[f"params.h{h}.K_order"]
        assert ws.lesson.features[order[0]] in line and ws.lesson.features[order[1]] in line


def test_the_outside_slide_brackets_the_library_block_and_marks_the_rest(case) -> None:
    (picture,) = pictures_in(slide(case["deck"], "pytorch-outside").blocks)
    lit = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "lit"]
    boxes = [s for s in picture.shapes if isinstance(s, Rect) and s.role in ("box", "lit")]
    inside = {"heads", "concat", "W_O"}
    columns = sorted({b.x for b in boxes})
    lit_columns = sorted({b.x for b in lit})
    assert [STEPS[columns.index(x)] for x in lit_columns] == ["heads", "concat", "W_O"]
    outside = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "outside"]
    marked = sorted(STEPS[columns.index(o.x + 4)] for o in outside if o.x + 4 in columns)
    assert marked == sorted(set(STEPS) - inside)
    assert len(outside) == len(STEPS) - len(inside) + 1  # and the training loop
    words = " ".join(g.text for s in picture.shapes if isinstance(s, Label) for g in s.glyphs)
    assert "nn.MultiheadAttention" in words and "training loop" in words
    (bullets,) = [b for b in slide(case["deck"], "pytorch-outside").blocks
                  if isinstance(b, Bullets)]
    said = " ".join("".join(getattr(r, "text", "") for r in item.runs) for item in bullets.items)
    for left_out in ("position", "residual", "prediction layers", "training loop"):
        assert left_out in said


def test_the_colour_patch_slide_shows_both_widths_and_the_length(case) -> None:
    values, ref = case["values"], case["ref"]
    (picture,) = pictures_in(slide(case["deck"], "patches-rgb").blocks)
    keys = labelled(picture)
    assert {"patches.values_per_patch", "patches.values_per_patch_rgb", "patches.count",
            "patches.per_side", "patches.shape.image"} <= keys
    grey = values.value("patches.values_per_patch")
    pixels = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "pixel-value"]
    flat = [r for r in pixels if r.draws.startswith("patches.flat[0][")]
    assert len(flat) == 2 * grey  # the patch and its flattened row
    for r in pixels:
        assert r.opacity == pytest.approx(fresh(ref, r.draws), abs=0.006)
    channels = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "channel"]
    assert len(channels) == 2 * values.value("patches.channels")  # layers and row segments
    segments = channels[values.value("patches.channels"):]
    narrowest = min(r.w for r in flat)
    strip = [r for r in flat if r.w == narrowest]  # the flattened row, not the patch
    assert len(strip) == grey
    assert all(seg.w == pytest.approx(grey * strip[0].w) for seg in segments)
    slide_keys = {key for key, _ in _nums(slide(case["deck"], "patches-rgb").blocks)}
    assert {"patches.shape.W_rgb", "patches.channels", "patches.side"} <= slide_keys


def _nums(node: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if isinstance(node, tuple):
        for item in node:
            found += _nums(item)
    elif isinstance(node, Num):
        found.append((node.key, node.text))
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            found += _nums(getattr(node, name))
    return found
