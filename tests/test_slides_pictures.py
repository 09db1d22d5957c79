"""The deck's pictures: every concept slide has one, and what they draw is the lesson's
arithmetic, recomputed here in plain numpy (``tests/reference.py``), never read back from
the program: arcs as wide as their weights, bars as long, future cells masked, the mask
as zero and minus infinity, W_O in one block of rows per head with its cross-head terms;
and ``lecture check`` reads the numbers inside the SVGs like every other figure."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from render.check import check_build
from slides.context import (
    Block,
    Code,
    Columns,
    Deck,
    Explorer,
    Label,
    Line,
    Live,
    Num,
    Para,
    Picture,
    Rect,
    Slide,
    Stack,
    Switch,
    Text,
)
from slides.context import (
    Path as Arc,
)
from slides.deck import build_deck, deck_context
from slides.lesson.pictures import ARC_WIDTH, BAR_LENGTH, COLUMN_HEIGHT
from tests import reference
from tests.conftest import DATA, THREE_HEADS
from worksheet import (
    BUNDLED_EXPERIMENT,
    DEFAULT_WORKSHEET,
    Worksheet,
    compute_values,
    load_worksheet,
)
from worksheet.results import load_experiment

WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS}
SEED_THREE = DATA / "seed-three-heads.json"
"""A worksheet without observed next words (``lesson.targets``)."""
ROUNDING = 0.01
"""Coordinates are written with two decimals."""


def exempt(slide: Slide) -> bool:
    """Whether a slide may go without a picture: a stack's title slide (its agenda), a
    clip, the references, or a slide the viewer works with (the explorer, the live
    models). Every other slide explains a step of the lesson."""
    return (slide.role in ("title", "clip") or slide.id.endswith("-title")
            or slide.part == "references"
            or any(isinstance(block, (Explorer, Live)) for block in slide.blocks))


def concept_ids(deck: Deck) -> list[str]:
    """The deck's slides that explain a step of the lesson, each of which must show a
    picture: all of them but the exempt ones, so a new slide is one too."""
    return [s.id for s in deck.slides if not exempt(s)]


def concept_slides(ws: Worksheet) -> list[str]:
    """The concept slides of the worksheet's deck (:func:`concept_ids`)."""
    return concept_ids(deck_context(ws, compute_values(ws)))


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    values = compute_values(ws)
    return {"name": request.param, "ws": ws, "deck": deck_context(ws, values),
            "ref": reference.worksheet_values(ws.document)}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    out = tmp_path_factory.mktemp("pictures")
    build_deck(ws, compute_values(ws), out)
    return out


def panels(blocks: tuple[Block, ...]) -> Iterator[tuple[Block, ...]]:
    """The blocks a viewer can be shown: a slide's own, or each switcher panel's."""
    switches = [b for b in blocks if isinstance(b, Switch)]
    if not switches:
        yield blocks
    for switch in switches:
        for panel in switch.panels:
            yield tuple(b for b in blocks if not isinstance(b, Switch)) + panel.blocks


def pictures_in(blocks: tuple[Block, ...]) -> list[Picture]:
    found: list[Picture] = []
    for block in blocks:
        if isinstance(block, Picture):
            found.append(block)
        elif isinstance(block, Columns):
            for column in block.columns:
                found += pictures_in(column)
        elif isinstance(block, Switch):
            for panel in block.panels:
                found += pictures_in(panel.blocks)
    return found


def all_pictures(deck: Deck) -> Iterator[tuple[Slide, Picture]]:
    for slide in deck.slides:
        for picture in pictures_in(slide.blocks):
            yield slide, picture


def slide(deck: Deck, id: str) -> Slide:
    return next(s for s in deck.slides if s.id == id)


def fresh(ref: dict[str, Any], key: str) -> float:
    """The reference value of one entry, ``name[i][j]``."""
    name = key.split("[", 1)[0]
    index = tuple(int(i) for i in re.findall(r"\[(\d+)\]", key))
    return float(np.asarray(ref[name], dtype=float)[index])


# ------------------------------------------------------------------ every concept slide


def test_every_concept_slide_shows_a_picture_in_every_state(case) -> None:
    deck: Deck = case["deck"]
    wanted = concept_ids(deck)
    left_out = [s for s in deck.slides if s.id not in wanted]
    # what may go without a picture is the stacks' titles, the references and the explorer
    assert {s.role or s.id for s in left_out} == {"title", "other-context-explorer"}
    assert len(left_out) == len(deck.stacks) + 1
    assert len(wanted) > 70
    missing = [id for id in wanted
               if not all(pictures_in(shown) for shown in panels(slide(deck, id).blocks))]
    assert missing == []


def test_a_new_slide_without_a_picture_is_caught(case) -> None:
    """The rule is every slide but the exempt ones, so a slide added without a picture
    is a concept slide that fails, not one a hand-kept list forgot."""
    deck: Deck = case["deck"]
    bare = Slide("grids-new-idea", (Text("A new idea"),), (Para((Text("In words only."),)),),
                 ((Text("Say it."),),), "grids")
    grown = Deck(deck.title, (*deck.stacks, Stack("grids", "grids", (Text("More"),), (bare,))))
    assert "grids-new-idea" in concept_ids(grown)
    assert not pictures_in(bare.blocks)


def test_with_the_experiment_every_result_slide_shows_a_picture_too() -> None:
    """The bundled experiment adds the corpus, the results and the continuations: each
    of them a concept slide with its picture."""
    ws = load_worksheet(DEFAULT_WORKSHEET)
    deck = deck_context(ws, compute_values(ws, load_experiment(BUNDLED_EXPERIMENT, ws)))
    wanted = concept_ids(deck)
    assert {"trained-corpus", "trained-perplexity", "trained-cost",
            "trained-continuations"} <= set(wanted)
    assert [id for id in wanted if not pictures_in(slide(deck, id).blocks)] == []


def test_no_slide_repeats_the_picture_of_the_slide_before(case) -> None:
    """Each concept slide's picture shows its own step (the call of every head is not
    the single head's function again): no two neighbours in a stack share a picture."""
    for stack in case["deck"].stacks:
        shown = [(s.id, {tuple(replace(shape, fragment=None) for shape in p.shapes)
                         for p in pictures_in(s.blocks)})  # revealed later or not
                 for s in stack.slides if not exempt(s)]
        for (before, a), (after, b) in pairwise(shown):
            assert not a & b, (before, after)


def test_every_picture_is_an_accessible_svg_with_a_view_box(built: Path) -> None:
    html = (built / "slides" / "index.html").read_text(encoding="utf-8")
    sections = dict(re.findall(r'<section id="([^"]+)"[^>]*>(.*?)</section>', html, re.S))
    ws = load_worksheet(DEFAULT_WORKSHEET)
    before = 0
    for id in concept_slides(ws):
        svgs = re.findall(r"<svg [^>]*>", sections[id])
        assert svgs, id
        for svg in svgs:
            assert 'role="img"' in svg and re.search(r'aria-labelledby="[^"]+-title"', svg), svg
            assert re.search(r'viewBox="0 0 [\d.]+ [\d.]+"', svg), svg
        before += len(svgs)
    assert before >= len(concept_slides(ws))


def test_the_pictures_show_no_number_outside_a_bound_label(case) -> None:
    for slide_, picture in all_pictures(case["deck"]):
        for shape in picture.shapes:
            if isinstance(shape, Label):
                for glyph in shape.glyphs:
                    if not isinstance(glyph, Num):
                        assert not re.search(r"\d", glyph.text), (slide_.id, glyph)
        assert not re.search(r"\d", picture.description), slide_.id


# ------------------------------------------------------------------ shapes carry numbers


def test_each_arc_is_as_wide_as_its_weight(case) -> None:
    ref = case["ref"]
    arcs = [(s.id, shape) for s, p in all_pictures(case["deck"]) for shape in p.shapes
            if isinstance(shape, Arc) and shape.role == "arc"]
    assert len(arcs) > 100
    for id, arc in arcs:
        assert re.fullmatch(r"\w+\.(h\d+|wide)\.weights\[\d+\]", arc.draws), (id, arc.draws)
        assert abs(arc.width - fresh(ref, arc.draws) * ARC_WIDTH) <= ROUNDING, (id, arc.draws)


def test_a_receivers_arcs_add_up_to_one_full_width(case) -> None:
    """Every lane's widths sum to the width of weight one: the weights form a softmax."""
    for id, picture in ((s.id, p) for s, p in all_pictures(case["deck"])):
        lanes: dict[str, float] = {}
        for shape in picture.shapes:
            if isinstance(shape, Arc) and shape.role == "arc":
                prefix = shape.draws.rsplit(".weights", 1)[0]
                lanes[prefix] = lanes.get(prefix, 0.0) + shape.width
        for prefix, total in lanes.items():
            assert total == pytest.approx(ARC_WIDTH, abs=ROUNDING * case["ws"].length), \
                (id, prefix)


def test_weight_bars_are_as_long_as_their_weights(case) -> None:
    ref = case["ref"]
    checked = 0
    for id, picture in ((s.id, p) for s, p in all_pictures(case["deck"])):
        for shape in picture.shapes:
            if not (isinstance(shape, Rect) and ".weights[" in shape.draws):
                continue
            expected = fresh(ref, shape.draws)
            if shape.role == "bar":
                assert abs(shape.w - expected * BAR_LENGTH) <= ROUNDING, (id, shape.draws)
            else:
                assert shape.role == "column"
                assert abs(shape.h - expected * COLUMN_HEIGHT) <= ROUNDING, (id, shape.draws)
            checked += 1
    assert checked > 50


def test_signed_bars_share_one_scale_and_negative_ones_take_the_negative_tone(case) -> None:
    ref = case["ref"]
    pictures = 0
    for id, picture in ((s.id, p) for s, p in all_pictures(case["deck"])):
        bars = [shape for shape in picture.shapes
                if isinstance(shape, Rect) and shape.role == "bar" and shape.draws]
        if not bars or all(".weights[" in b.draws for b in bars):
            continue
        pictures += 1
        scales = set()
        for bar in bars:
            value = fresh(ref, bar.draws)
            assert (bar.fill == "negative") == (value < 0), (id, bar.draws)
            if abs(value) > 0.05:
                scales.add(round(bar.w / abs(value), 0))
        assert len(scales) <= 1 or max(scales) - min(scales) <= 1, (id, scales)
    # Issue 11: a later head's stack is a recap without its dot products, values and
    # contributions, which are the signed bars of the walkthrough.
    assert pictures > 5


def test_heatmap_cells_are_shaded_by_weight_and_masked_exactly_in_the_future(case) -> None:
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    n = ws.length
    future = {(i, j) for i in range(n) for j in range(n) if j > i}
    grids = 0
    for shown in panels(slide(case["deck"], "grids-heads").blocks):
        for picture in pictures_in(shown):
            masked = {tuple(int(i) for i in re.findall(r"\[(\d+)\]", r.draws))
                      for r in picture.shapes if isinstance(r, Rect) and r.role == "masked"}
            assert masked == future
            weights = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "weight"]
            heads = {cell.draws.split(".h")[1].split(".")[0] for cell in weights}
            assert len(weights) == len(heads) * n * (n + 1) // 2
            for cell in weights:
                assert cell.opacity == pytest.approx(fresh(ref, cell.draws), abs=0.006)
                assert cell.fill == f"head-{cell.draws.split('.h')[1].split('.')[0]}"
            grids += len(heads)
    assert grids == len(ws.sentences) * ws.n_heads


def test_the_mask_slide_adds_zero_or_minus_infinity_never_a_table_of_ones(case) -> None:
    ws: Worksheet = case["ws"]
    n = ws.length
    mask = slide(case["deck"], "grids-mask")
    (picture,) = pictures_in(mask.blocks)
    zeros = [s for s in picture.shapes if isinstance(s, Label) and s.key]
    infinities = [s for s in picture.shapes if isinstance(s, Label)
                  and s.glyphs == (Text("−∞"),)]
    assert len(infinities) == n * (n - 1) // 2
    assert len(zeros) == n * (n + 1) // 2
    for label in zeros:
        i, j = (int(x) for x in re.findall(r"\[(\d+)\]", label.key))
        assert j <= i and label.glyphs[0].text == "0"
    masked = {tuple(int(x) for x in re.findall(r"\[(\d+)\]", r.draws))
              for r in picture.shapes if isinstance(r, Rect) and r.role == "masked"}
    assert masked == {(i, j) for i in range(n) for j in range(n) if j > i}
    shown_keys = [num.key for num in _nums(mask.blocks)]
    assert all(fresh(case["ref"], key) == 0 for key in shown_keys if ".mask[" in key)


def test_the_mask_slide_in_the_html_shows_zero_and_minus_infinity(built: Path) -> None:
    html = (built / "slides" / "index.html").read_text(encoding="utf-8")
    section = re.search(r'<section id="grids-mask".*?</section>', html, re.S)[0]
    n = load_worksheet(DEFAULT_WORKSHEET).length
    assert section.count(">−∞</text>") == n * (n - 1) // 2
    assert len(re.findall(r'<text [^>]*data-key="river\.mask\[\d+\]\[\d+\]">0</text>',
                          section)) == n * (n + 1) // 2
    assert "<td" not in section
    assert section.count('data-role="masked"') == n * (n - 1) // 2


def test_w_o_is_drawn_in_one_block_of_rows_per_head_with_its_cross_head_terms(case) -> None:
    ws: Worksheet = case["ws"]
    W_O = np.asarray(case["ref"]["params.W_O"], dtype=float)
    d_head = ws.d_head
    aligned = W_O.shape[0] == W_O.shape[1]
    crossing = {(i, c) for i in range(W_O.shape[0]) for c in range(W_O.shape[1])
                if W_O[i, c] != 0 and i // d_head != c // d_head} if aligned else set()
    if case["name"] == "default":
        assert crossing  # the worksheet mixes heads; the picture must show where
    # the matrix is drawn once, on its own slide; the next splits the update by head
    assert not any(isinstance(s, Rect) and s.draws.startswith("params.W_O")
                   for p in pictures_in(slide(case["deck"], "combine-blocks").blocks)
                   for s in p.shapes)
    for id in ("combine-w-o",):
        pictures = pictures_in(slide(case["deck"], id).blocks)
        (picture,) = [p for p in pictures if any(
            isinstance(s, Rect) and s.draws.startswith("params.W_O") for s in p.shapes)]
        cells = {tuple(int(x) for x in re.findall(r"\[(\d+)\]", s.draws)): s
                 for s in picture.shapes if isinstance(s, Rect)
                 and s.draws.startswith("params.W_O")}
        assert set(cells) == {(i, c) for i in range(W_O.shape[0]) for c in range(W_O.shape[1])}
        for (i, c), cell in cells.items():
            head = i // d_head + 1
            value = W_O[i, c]
            expected = f"head-{head}" if value > 0 else "negative" if value < 0 else "paper"
            assert cell.fill == expected, (id, i, c)
            assert (cell.role == "mixing-cell") == ((i, c) in crossing), (id, i, c)
        blocks = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "block"]
        assert [b.fill for b in blocks] == [f"head-{h}" for h in range(1, ws.n_heads + 1)]
        assert all(b.h == pytest.approx(blocks[0].h) for b in blocks)
        outlines = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "mixing"]
        assert len(outlines) == len(crossing)
        labels = {s.key for s in picture.shapes if isinstance(s, Label) and s.key}
        assert {f"params.W_O[{i}][{c}]" for i, c in cells} <= labels


def test_the_model_map_lights_the_step_of_its_slide(case) -> None:
    lit = {"combine-together": "concat", "prediction-mlp": "MLP",
           "pytorch-model": "next word"}
    for id, name in lit.items():
        (picture,) = [p for p in pictures_in(slide(case["deck"], id).blocks)
                      if any(isinstance(s, Rect) and s.role == "lit" for s in p.shapes)]
        bold = [s for s in picture.shapes if isinstance(s, Label) and s.bold]
        assert ["".join(g.text for g in s.glyphs) for s in bold] == [name]
    for h in range(1, case["ws"].n_heads + 1):
        (switch,) = [b for b in slide(case["deck"], f"head-{h}-qk").blocks
                     if isinstance(b, Switch)]
        for panel in switch.panels:
            (picture,) = [p for p in pictures_in(panel.blocks)
                          if any(isinstance(s, Rect) and s.role == "lit" for s in p.shapes)]
            lit_boxes = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "lit"]
            assert [box.fill for box in lit_boxes] == [f"head-{h}"]


def test_the_bias_flag_lights_every_head_and_w_o_and_nothing_else(case) -> None:
    (picture,) = pictures_in(slide(case["deck"], "bias-flag").blocks)
    lit = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "lit"]
    heads = [box.fill for box in lit if box.fill.startswith("head-")]
    assert heads == [f"head-{h}" for h in range(1, case["ws"].n_heads + 1)]
    bold = {"".join(g.text for g in s.glyphs) for s in picture.shapes
            if isinstance(s, Label) and s.bold}
    assert bold == {*case["ws"].lesson.head_names, "WO"}
    assert len(lit) == case["ws"].n_heads + 1


def test_the_cls_row_is_named_outlined_and_alone_goes_to_a_class(case) -> None:
    """The classification picture names the first row CLS, outlines it in the sequence and
    in the encoder's output (both the sequence's shape), draws it alone, and ends on the
    classifier's answer for the whole image."""
    (picture,) = pictures_in(slide(case["deck"], "patches-cls").blocks)
    rows = [int(v) for v in case["ref"]["patches.shape.sequence"]]
    outlined = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "cls"]
    assert len(outlined) == 3
    texts = {"".join(g.text for g in s.glyphs): s for s in picture.shapes
             if isinstance(s, Label)}
    assert texts["CLS"].x < outlined[0].x and \
        outlined[0].y < texts["CLS"].y < outlined[0].y + outlined[0].h + 10
    assert [s.glyphs[0].text for s in picture.shapes if isinstance(s, Label)
            and s.glyphs and s.glyphs[0].text == str(rows)] == [str(rows)] * 2
    (answer,) = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "class"]
    assert answer.x > max(box.x for box in outlined)
    assert "the image's class" in texts


def test_the_shapes_picture_draws_one_cell_per_number_of_each_tensor(case) -> None:
    """Tensor blocks are drawn to size: counted from the worksheet's own dimensions, from
    the input rows to a head's messages; the join has a slide of its own."""
    ws: Worksheet = case["ws"]
    n = len(next(iter(ws.sentences.values())))
    width, head = ws.d_model, ws.d_head
    sizes = [n * width, n * head, n * head, n * head, n * n, n * n, n * head]
    (picture,) = pictures_in(slide(case["deck"], "roles-shapes-shapes").blocks)
    blocks = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "block"]
    assert len(blocks) == sum(sizes)
    cell = blocks[0].w
    # left to right, one tensor after another: a gap wider than a cell starts the next
    starts = sorted({b.x for b in blocks})
    groups = [[starts[0]]]
    for x in starts[1:]:
        (groups[-1].append(x) if x - groups[-1][-1] <= cell + ROUNDING
         else groups.append([x]))
    assert [len(g) for g in groups] == [width, head, head, head, n, n, head]
    future = [b for b in blocks if b.fill == "masked"]
    assert len(future) == 2 * n * (n - 1) // 2  # the scores' and the weights' future cells
    legend = [s for s in picture.shapes if isinstance(s, Label) and s.x >= max(starts)]
    assert legend and all(s.x + 1 >= max(starts) for s in legend)
    assert picture.width >= max(s.x for s in legend) + 60  # the legend's names fit


LAB_TENSORS = ("lab-batch-batch",)
"""The lab strips in which every tensor drawn is labelled with its own shape."""


def test_a_lab_tensor_has_one_cell_per_entry_of_its_shape(case) -> None:
    ref = case["ref"]
    for id in LAB_TENSORS:
        (picture,) = pictures_in(slide(case["deck"], id).blocks)
        shapes = [s.key for s in picture.shapes if isinstance(s, Label) and s.key
                  and (".shape." in s.key or s.key in ("mha.delta", "mha.A"))]
        cells = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "block"]
        assert len(cells) == sum(int(np.prod(ref[key])) for key in shapes), (id, shapes)


def test_a_worksheet_without_targets_pictures_its_training_slide_all_the_same() -> None:
    ws = load_worksheet(SEED_THREE)
    assert not ws.lesson.targets
    deck = deck_context(ws, compute_values(ws))
    ids = {s.id for s in deck.slides}
    assert "lab-training-step" not in ids
    for id in ("lab-training-no-targets", "lab-training-generate", "lab-batch-batch"):
        assert id in concept_slides(ws) and pictures_in(slide(deck, id).blocks), id


# ------------------------------------------------------------------ the student review


def _top(ref: dict[str, Any], sentence: str, h: int) -> int:
    """The source a head weights most at the receiver, recomputed from its weights."""
    return int(np.argmax(np.asarray(ref[f"{sentence}.h{h}.weights"], dtype=float)))


def _bars(picture: Picture) -> list[Rect]:
    return [s for s in picture.shapes if isinstance(s, Rect) and s.role == "bar"]


def _words(label: Label) -> str:
    return "".join(g.text for g in label.glyphs)


def test_each_heads_favourite_source_is_its_strongest_weight(case) -> None:
    """The roles slide compares like with like: for every head's strongest source, every
    head's weight on that same source, so each head's longest bar is at its own source;
    the other-context slide draws each sentence's and head's strongest weight in the
    head's colour."""
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s = ws.walkthrough
    heads = range(1, ws.n_heads + 1)
    (roles,) = pictures_in(slide(case["deck"], "roles-shapes-roles").blocks)
    tops = list(dict.fromkeys(_top(ref, s, h) for h in heads))
    assert [(bar.draws, bar.fill) for bar in _bars(roles)] == \
        [(f"{s}.h{h}.weights[{j}]", f"head-{h}") for j in tops for h in heads]
    for h in heads:
        own = [bar for bar in _bars(roles) if bar.fill == f"head-{h}"]
        assert max(own, key=lambda bar: bar.w).draws == f"{s}.h{h}.weights[{_top(ref, s, h)}]"
    (every,) = pictures_in(slide(case["deck"], "other-context-every").blocks)
    expected = [(f"{name}.h{h}.weights[{_top(ref, name, h)}]", f"head-{h}")
                for name in ws.sentences for h in heads]
    assert [(bar.draws, bar.fill) for bar in _bars(every)] == expected


def test_the_toys_bars_name_invented_sources_and_colour_each_head(case) -> None:
    """The toy's sources are invented, so they are not named by the worksheet's words;
    the sources stay neutral, the one head is drawn in ink (it is no head of ours), and
    each of the two heads' one number takes its head's colour."""
    ws: Worksheet = case["ws"]
    (picture,) = [p for p in pictures_in(slide(case["deck"], "one-two-heads-toy").blocks)
                  if _bars(p)]
    texts = [s for s in picture.shapes if isinstance(s, Label) and not s.key]
    names = {_words(t) for t in texts}
    assert {"source A", "source B"} <= names
    assert not names & set(ws.lesson.toy.sources)
    for bar in _bars(picture):
        index = [int(k) for k in re.findall(r"\[(\d+)\]", bar.draws)]
        if bar.fill == "negative":
            continue
        if bar.draws.startswith("toy.two_heads"):
            assert bar.fill == f"head-{index[0] + 1}", bar.draws
        elif bar.draws.startswith("toy.one_head"):
            assert bar.fill == "ink", bar.draws
        else:
            assert bar.fill == "neutral", bar.draws


def test_the_joined_block_names_the_head_of_each_group_of_columns(case) -> None:
    ws: Worksheet = case["ws"]
    for id in ("combine-concat", "grids-join"):
        for shown in panels(slide(case["deck"], id).blocks):
            (picture,) = pictures_in(shown)
            cells = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "block"]
            joined_x = max(c.x for c in cells) - (ws.n_heads * ws.d_head - 1) * cells[0].w
            headers = [s for s in picture.shapes if isinstance(s, Label) and s.rotate]
            assert [_words(h) for h in headers] == list(ws.lesson.head_names), id
            for h, header in enumerate(headers):
                group = [c for c in cells if c.x >= joined_x - ROUNDING
                         and c.fill == f"head-{h + 1}"]
                assert min(c.x for c in group) <= header.x + 4 <= max(c.x + c.w for c in group)
                assert header.y < min(c.y for c in group)


def test_the_offset_picture_has_a_legend_and_ticks_at_the_receivers_query(case) -> None:
    """Every row moves by the same arrow, in the offset's direction; the axis under each
    coordinate is ticked where the receiver's query was and where it goes, and those
    ticks are labelled with their own numbers."""
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    (picture,) = pictures_in(slide(case["deck"], "bias-offset").blocks)
    swatches = [x for x in picture.shapes if isinstance(x, Rect) and x.role == "swatch"]
    # the tick's swatch, and the head's in the legend that names it
    assert [x.fill for x in swatches] == ["head-1", "head-1"]
    names = [_words(x) for x in picture.shapes if isinstance(x, Label) and not x.key]
    assert "Q" in names and "Q + bQ" in names
    assert f"head 1, {ws.lesson.head_names[0]}" in names
    offset = np.asarray(ref["bias.offset"], dtype=float)
    points = {x.draws: x for x in picture.shapes if getattr(x, "role", "") == "point"}
    ticks = [x for x in picture.shapes if isinstance(x, Line) and x.role == "tick"]
    labels = {x.key: x for x in picture.shapes if isinstance(x, Label) and x.key}
    for c in range(len(offset)):
        shifts = []
        for j in range(ws.length):
            before = points[f"{s}.h1.Q[{j}][{c}]"].x + 1.5
            after = float(re.match(r"M ([-\d.]+)", points[f"bias.Q_offset[{j}][{c}]"].d)[1])
            shifts.append(after - before)
        assert max(shifts) - min(shifts) <= 2 * ROUNDING
        assert np.sign(shifts[0]) == np.sign(offset[c])
        for key, x in ((f"{s}.h1.Q[{last}][{c}]", points[f"{s}.h1.Q[{last}][{c}]"].x + 1.5),
                       (f"bias.Q_offset[{last}][{c}]", after)):
            assert any(abs(t.x1 - x) <= 2 * ROUNDING for t in ticks), key
            assert abs(labels[key].x - x) <= 2 * ROUNDING, key


def test_the_vocabulary_bars_outline_the_predicted_and_the_observed_word(case) -> None:
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s = ws.walkthrough
    probs = np.asarray(ref[f"{s}.probs"], dtype=float)
    outlined = {int(np.argmax(probs))}
    if ws.lesson.targets:
        outlined.add(ws.vocab.index(ws.lesson.targets[s]))
    found, drawn = set(), []
    for picture in pictures_in(slide(case["deck"], "prediction-probabilities").blocks):
        bars = _bars(picture)
        drawn += [int(re.findall(r"\[(\d+)\]", b.draws)[0]) for b in bars]
        for focus in (x for x in picture.shapes if isinstance(x, Rect) and x.role == "focus"):
            (bar,) = [b for b in bars if focus.y <= b.y <= focus.y + focus.h]
            found.add(int(re.findall(r"\[(\d+)\]", bar.draws)[0]))
    assert drawn == list(range(len(ws.vocab)))
    assert found == outlined


def test_every_heads_message_is_drawn_in_its_colour(case) -> None:
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    (picture,) = pictures_in(slide(case["deck"], "wide-head-complete").blocks)
    expected = [(f"{ws.walkthrough}.h{h}.message[{c}]", h) for h in range(1, ws.n_heads + 1)
                for c in range(ws.d_head)]
    bars = _bars(picture)
    assert [b.draws for b in bars] == [key for key, _ in expected]
    for bar, (key, h) in zip(bars, expected, strict=True):
        assert bar.fill == ("negative" if fresh(ref, key) < 0 else f"head-{h}")
        assert bar.fragment == h  # revealed with the head's row of the table


def test_the_grid_of_numbers_draws_its_last_row_beside_it(case) -> None:
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    last = ws.length - 1
    for panel in next(b for b in slide(case["deck"], "grids-numbers").blocks
                      if isinstance(b, Switch)).panels:
        (picture,) = pictures_in(panel.blocks)
        bars = _bars(picture)
        key = f"{panel.sentence}.h{panel.head}.A"
        assert [b.draws for b in bars] == [f"{key}[{last}][{j}]" for j in range(ws.length)]
        assert {b.fill for b in bars} == {f"head-{panel.head}"}
        weights = np.asarray(ref[key], dtype=float)[last]
        top = int(np.argmax(weights))
        for bar, weight in zip(bars, weights, strict=True):
            assert bar.w == pytest.approx(bars[top].w * weight / weights[top], abs=ROUNDING)


def test_the_call_of_every_head_starts_from_the_same_input_rows(case) -> None:
    """The head function's picture is one head's steps; the next slide's calls it once
    per head on the same input rows and joins the blocks."""
    ws: Worksheet = case["ws"]
    (code,) = pictures_in(slide(case["deck"], "grids-code").blocks)
    (call,) = pictures_in(slide(case["deck"], "grids-call").blocks)
    code_names = [_words(x) for x in code.shapes if isinstance(x, Label) and x.bold]
    call_names = [_words(x) for x in call.shapes if isinstance(x, Label) and x.bold]
    first = ws.lesson.head_names[0]
    assert code_names == ["E", f"Q{first}", f"K{first}", f"V{first}", "scores", "A",
                          f"H{first}"]
    assert call_names[0] == "E" and call_names[-3:] == ["joined", "ΔE", "E′"]
    heads = {x.fill for x in call.shapes if isinstance(x, Rect) and x.role == "block"}
    assert {f"head-{h}" for h in range(1, ws.n_heads + 1)} <= heads


def test_the_prompts_arrows_come_from_each_heads_favourite_word(case) -> None:
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s = ws.walkthrough
    (picture,) = pictures_in(slide(case["deck"], "prompt-receiver").blocks)
    chips = [x for x in picture.shapes if isinstance(x, Rect) and x.role == "token"]
    assert len(chips) == ws.length
    arrows = [x for x in picture.shapes if getattr(x, "role", "") == "clue"]
    starts = {x.tone: float(re.match(r"M ([-\d.]+)", x.d)[1]) for x in arrows}
    assert set(starts) == {f"head-{h}" for h in range(1, ws.n_heads + 1)}
    for h in range(1, ws.n_heads + 1):
        chip = chips[_top(ref, s, h)]
        assert chip.x <= starts[f"head-{h}"] <= chip.x + chip.w


# ------------------------------------------------------------------ W_O as a formula


def _nums(node: Any) -> Iterator[Num]:
    if isinstance(node, tuple):
        for item in node:
            yield from _nums(item)
    elif isinstance(node, Num):
        yield node
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            yield from _nums(getattr(node, name))


def _texts(node: Any) -> Iterator[Text]:
    if isinstance(node, tuple):
        for item in node:
            yield from _texts(item)
    elif isinstance(node, Text):
        yield node
    elif isinstance(node, (Code, Picture)):
        return
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            yield from _texts(getattr(node, name))


def test_w_o_is_typeset_as_a_formula_wherever_a_slide_names_it(case) -> None:
    for s in case["deck"].slides:
        for text in _texts((s.title, s.blocks)):
            assert "W_O" not in text.text, (s.id, text.text)


# ------------------------------------------------------------------ lecture check


class _SvgTexts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.keys: list[tuple[str, str]] = []
        self._key: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in ("text", "tspan") and named.get("data-key"):
            self._key = named["data-key"]

    def handle_data(self, data: str) -> None:
        if self._key:
            self.keys.append((self._key, data))
            self._key = None


def _minimal_build(out: Path) -> None:
    """Only what ``lecture check`` needs to reach the deck: the worksheet it came from."""
    (out / "build.json").write_text(json.dumps(
        {"worksheet": {"path": str(DEFAULT_WORKSHEET)}, "scenes": []}), encoding="utf-8")


def test_lecture_check_compares_the_numbers_inside_the_pictures(built: Path,
                                                                tmp_path: Path) -> None:
    shutil.copytree(built / "slides", tmp_path / "slides")
    _minimal_build(tmp_path)
    clean = check_build(tmp_path)
    assert clean.mismatches == []
    assert clean.counts["deck figures"] > 2000
    index = tmp_path / "slides" / "index.html"
    html = index.read_text(encoding="utf-8")
    reader = _SvgTexts()
    reader.feed(html)
    svg_keys = [key for key, _ in reader.keys]
    assert len(svg_keys) > 300
    key = "river.h1.weights[5]"
    target = re.search(r'<text [^>]*data-key="' + re.escape(key) + r'">(\d\.\d+)</text>', html)
    assert target, "the river weight of head 1 should be written inside an SVG"
    shown = target[1]
    spoiled = shown[:-1] + str((int(shown[-1]) + 1) % 10)
    html = html[:target.start(1)] + spoiled + html[target.end(1):]
    index.write_text(html, encoding="utf-8")
    report = check_build(tmp_path)
    wrong = [(m.key, m.shown, m.expected) for m in report.mismatches]
    assert wrong == [(key, spoiled, shown)]
    assert report.mismatches[0].where.startswith("slides/index.html line ")
    assert not report.ok


# ------------------------------------------------------------------ the detail sketches


def _arc_heights(d: str, xs: np.ndarray) -> np.ndarray:
    """Heights above its feet of a quadratic arc ``M x0 y0 Q cx cy x1 y1`` at ``xs``."""
    x0, y0, cx, cy, x1, _ = (float(n) for n in re.findall(r"-?[\d.]+", d))
    t = np.linspace(0.0, 1.0, 2001)
    x = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t ** 2 * x1
    y = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t ** 2 * y0
    return np.interp(xs, x, y0 - y, left=np.nan, right=np.nan)


def test_the_detail_sketches_draw_one_arrow_per_clue_and_no_two_arrows_cross(case) -> None:
    deck: Deck = case["deck"]
    for id, clues in (("details-coat", 3), ("details-readings", 3), ("details-agreement", 2),
                      ("details-object-event", 2), ("details-swap-event", 2)):
        (picture,) = pictures_in(slide(deck, id).blocks)
        arcs = [shape.d for shape in picture.shapes if getattr(shape, "role", "") == "clue"]
        assert len(arcs) == clues, id
        tokens = [shape for shape in picture.shapes if getattr(shape, "role", "") == "token"]
        assert all(0 <= t.x and t.x + t.w <= picture.width for t in tokens), id
        for a, b in ((a, b) for a in arcs for b in arcs if a != b):
            xs = np.linspace(0, picture.width, 4001)
            ha, hb = _arc_heights(a, xs), _arc_heights(b, xs)
            both = ~np.isnan(ha) & ~np.isnan(hb)
            difference = ha[both] - hb[both]
            # where both arcs stand, one stays above the other (touching only at a foot)
            assert (difference[np.abs(difference) > 1.0] > 0).all() or \
                (difference[np.abs(difference) > 1.0] < 0).all(), id
