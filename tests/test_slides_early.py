"""The deck's opening stacks teach in order: a term is defined on or before the first slide
that uses it, the toy's sums are the worksheet's own arithmetic written out, a weight
written on an arc stands at its source, and each head's picture is told apart by its
colour and its named coordinates."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from slides.context import (
    Agenda,
    Columns,
    Deck,
    Formula,
    Label,
    Math,
    Num,
    Para,
    Picture,
    Rect,
    Slide,
    Table,
    Text,
    Word,
)
from slides.context import Path as Arc
from slides.deck import deck_context
from tests import reference
from tests.conftest import DATA, THREE_HEADS
from tests.test_slides_pictures import pictures_in, slide
from worksheet import DEFAULT_WORKSHEET, Worksheet, compute_values, load_worksheet

WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS}


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    return {"ws": ws, "deck": deck_context(ws, compute_values(ws)),
            "doc": json.loads(WORKSHEETS[request.param].read_text(encoding="utf-8")),
            "ref": reference.worksheet_values(ws.document)}


def _shown(node: Any) -> Iterator[str]:
    """Every text a viewer reads on a slide: prose, worksheet words, formulas and numbers,
    pictures' labels included; speaker notes and a title slide's agenda (a list of the
    titles to come) left out."""
    if isinstance(node, tuple):
        for item in node:
            yield from _shown(item)
    elif isinstance(node, (Text, Word)):
        yield node.text
    elif isinstance(node, Num):
        yield node.text
    elif isinstance(node, Math):
        yield node.tex
    elif isinstance(node, Agenda):
        return
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            yield from _shown(getattr(node, name))


def _text(s: Slide) -> str:
    return " ".join(_shown((s.title, s.blocks)))


def _first(deck: Deck, pattern: str) -> int:
    """The position in the deck of the first slide whose shown text matches ``pattern``."""
    return next(i for i, s in enumerate(deck.slides) if re.search(pattern, _text(s)))


# ------------------------------------------------------------------ terms before use


@pytest.mark.parametrize("term", ["query", "key", "value"])
def test_query_key_and_value_are_defined_on_the_first_slide_that_uses_them(
        case, term: str) -> None:
    """The first slide that says query (key, value) is the slide that says what it is, in
    plain words: a bullet opening with the word and a colon."""
    deck: Deck = case["deck"]
    words = {"query": r"\bquer(y|ies)\b", "key": r"\bkeys?\b", "value": r"\bvalues?\b"}
    defining = [i for i, s in enumerate(deck.slides)
                if re.search(rf"(^|\s){term}: \w+", _text(s))]
    assert defining, f"no slide defines {term}"
    assert _first(deck, words[term]) >= defining[0], deck.slides[_first(deck, words[term])].id


def test_the_first_slide_says_what_a_head_and_the_worksheet_are(case) -> None:
    deck: Deck = case["deck"]
    assert _first(deck, r"\bheads?\b") == 0
    first = _text(deck.slides[0])
    assert "A head is" in first and "worksheet is" in first and "coordinates" in first
    assert any(isinstance(block, Picture) for block in deck.slides[0].blocks)


def test_the_prompt_shows_its_sentence_once(case) -> None:
    """The receiver slide draws the sentence once, with the arrows, not a second time as a
    strip of boxes above them."""
    ws: Worksheet = case["ws"]
    s = slide(case["deck"], "prompt-receiver")
    text = _text(s)
    assert text.count(ws.sentences[ws.walkthrough][1]) == 1
    assert "query" not in text


# ------------------------------------------------------------------ the toy


def _digits(value: float, shown: str) -> str:
    """``value`` written with as many decimals as ``shown`` has."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return f"{value:.{decimals}f}".replace("-", "−")


def _index(key: str) -> tuple[int, ...]:
    return tuple(int(k) for k in re.findall(r"\[(\d+)\]", key))


def test_the_toy_tells_one_account_each_head_sends_one_value_column(case) -> None:
    """As in the clip: one head mixes both coordinates with one weight row; each of two
    heads has its own values, one coordinate of the sources, so it sends one number: the
    first head's bar stands only in the first lane, the second head's only in the second.
    Every bar equals numpy digit for digit, and each row is named by its own weights; the
    slide never says a head outputs both coordinates."""
    toy = case["doc"]["lesson"]["toy"]
    values, weights = np.array(toy["values"], float), np.array(toy["weights"], float)
    one_head = weights[0] @ values  # one weight row mixes both coordinates
    sent = [weights[h] @ values[:, h] for h in range(2)]  # head h reads value column h
    toy_slide = slide(case["deck"], "one-two-heads-toy")
    (picture,) = pictures_in(toy_slide.blocks)
    bars = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "bar"]
    assert not [b for b in bars if b.draws.startswith("toy.head_messages")]
    written = {label.key: label.glyphs[0].text for label in picture.shapes
               if isinstance(label, Label) and label.key}
    for c in range(2):
        assert written[f"toy.one_head[{c}]"] == _digits(one_head[c], written[f"toy.one_head[{c}]"])
    heads = [b for b in bars if b.draws.startswith("toy.two_heads")]
    assert sorted(b.draws for b in heads) == ["toy.two_heads[0]", "toy.two_heads[1]"]
    zeros = sorted({x.x1 for x in picture.shapes if getattr(x, "role", "") == "zero"})
    for bar in heads:  # one bar per head, in the lane of the coordinate it sends
        (h,) = _index(bar.draws)
        assert written[bar.draws] == _digits(sent[h], written[bar.draws])
        assert bar.fill == f"head-{h + 1}"
        lane = max(i for i, zero in enumerate(zeros) if zero <= bar.x + 1)
        assert lane == h, bar.draws
    for h in range(2):  # the row's name holds the head's own weights
        (name,) = [label for label in picture.shapes if isinstance(label, Label)
                   and "".join(g.text for g in label.glyphs).startswith(
                       ("first head", "second head")[h])]
        shown = [g for g in name.glyphs if isinstance(g, Num)]
        assert [_index(g.key) for g in shown] == [(h, 0), (h, 1)]
        assert [g.text for g in shown] == [_digits(w, g.text) for w, g in
                                           zip(weights[h], shown, strict=True)]
    said = _text(toy_slide)
    assert "outputs both coordinates" not in said and "kept" not in said
    assert "first head's values are the first coordinates" in said
    assert not [b for b in toy_slide.blocks if isinstance(b, Table)]


def test_one_head_is_a_worksheet_head_and_its_message_is_drawn(case) -> None:
    """The one-head slide shows one of the worksheet's heads, not a head built later: its
    arcs are head 1's weights, and its message m is drawn, each bar equal to numpy's
    weighted sum of head 1's values."""
    ws: Worksheet = case["ws"]
    s = ws.walkthrough
    one = slide(case["deck"], "one-two-heads-one-head")
    assert "wide" not in _text(one)
    arcs, message = pictures_in(one.blocks)
    drawn = [x.draws for x in arcs.shapes if isinstance(x, Arc) and x.role == "arc"]
    assert drawn == [f"{s}.h1.weights[{j}]" for j in range(ws.length)]
    weights = np.asarray(case["ref"][f"{s}.h1.weights"], dtype=float)
    head = ws.document["headsLesson"]["projections"][0]
    m = weights @ (reference.embed(ws.document, s) @ np.asarray(head["V"], dtype=float))
    bars = [x for x in message.shapes if isinstance(x, Rect) and x.role == "bar"]
    assert [b.draws for b in bars] == [f"{s}.h1.message[{c}]" for c in range(ws.d_head)]
    written = {label.key: label.glyphs[0].text for label in message.shapes
               if isinstance(label, Label) and label.key}
    for c, bar in enumerate(bars):
        assert written[bar.draws] == _digits(m[c], written[bar.draws])
    assert any(isinstance(g, Text) and "message m" in g.text for x in message.shapes
               if isinstance(x, Label) for g in x.glyphs)


def test_every_lane_of_several_heads_names_its_tokens_and_the_prose_teaches(case) -> None:
    """Each head's lane has the sentence's tokens under it, so no lane is read without
    words; the slide's prose is about the heads, not about how the picture is drawn."""
    ws: Worksheet = case["ws"]
    several = slide(case["deck"], "one-two-heads-several-heads")
    (picture,) = pictures_in(several.blocks)
    bases = sorted({x.y1 for x in picture.shapes if getattr(x, "role", "") == "baseline"})
    assert len(bases) == ws.n_heads
    words = ws.sentences[ws.walkthrough]
    tokens = [x for x in picture.shapes if isinstance(x, Label) and x.rotate
              and len(x.glyphs) == 1 and isinstance(x.glyphs[0], Word)]
    for lower, upper in zip(bases, [*bases[1:], float("inf")], strict=True):
        under = [x.glyphs[0].text for x in tokens if lower < x.y < upper]
        assert under == list(words), lower
    prose = " ".join(_shown(tuple(b for b in several.blocks if not isinstance(b, Picture))))
    assert "faint" not in prose and "heaviest" not in prose


def test_one_notation_for_query_key_and_value(case) -> None:
    """The receiver's row and query go without an index wherever the heads' projections are
    written: the same formula on the several-heads and the recap slide, never ``q_i``."""
    from slides.lesson.kit import QKV

    formulas = {s.id: [b.tex for b in s.blocks if isinstance(b, Formula)]
                for s in case["deck"].slides if s.part in ("one-two-heads", "roles-shapes")}
    for id in ("one-two-heads-several-heads", "roles-shapes-choose"):
        assert QKV in formulas[id], id
    assert not [id for id, tex in formulas.items() if any("q_i" in t or "e_i" in t for t in tex)]


# ------------------------------------------------------------------ roles and shapes


def test_the_recap_draws_every_heads_three_projection_matrices(case) -> None:
    """The recap draws each head's own W_Q, W_K and W_V, one matrix per block named by its
    kind, each labelled with its shape and drawn in the head's colour, and each makes one
    block of queries, keys or values in that colour; the shapes picture writes the
    projection's shape on its arrow."""
    ws: Worksheet = case["ws"]
    (choose,) = pictures_in(slide(case["deck"], "roles-shapes-choose").blocks)
    names = [(x, "".join(g.text for g in x.glyphs)) for x in choose.shapes
             if isinstance(x, Label) and x.bold]
    matrices = [x for x, name in names if name.startswith("W")]
    assert [name[:2] for _, name in names if name.startswith("W")] == \
        ["WQ", "WK", "WV"] * ws.n_heads
    shapes = [x for x in choose.shapes if isinstance(x, Label) and x.key == "shapes.W_Q"]
    assert [x.glyphs[0].text for x in shapes] == [f"[{ws.d_model}, {ws.d_head}]"] * len(matrices)
    assert [round(x.x) for x in shapes] == [round(w.x) for w in matrices]
    blocks = [r for r in choose.shapes if isinstance(r, Rect) and r.role == "block"]
    for h in range(1, ws.n_heads + 1):  # three W's and three outputs, cell by cell
        own = [r for r in blocks if r.fill == f"head-{h}"]
        assert len(own) == 3 * ws.d_model * ws.d_head + 3 * ws.length * ws.d_head
    (layer,) = pictures_in(slide(case["deck"], "roles-shapes-shapes").blocks)
    (arrow,) = [x for x in layer.shapes if isinstance(x, Label) and "× W" in
                "".join(g.text for g in x.glyphs)]
    assert [g.key for g in arrow.glyphs if isinstance(g, Num)] == ["shapes.W_Q"]


def test_the_shapes_picture_draws_query_key_and_value_as_three_blocks(case) -> None:
    """Q, K and V are three tensors, each named over its own block, each with every head's
    layer behind it."""
    ws: Worksheet = case["ws"]
    (picture,) = pictures_in(slide(case["deck"], "roles-shapes-shapes").blocks)
    named = {"".join(g.text for g in x.glyphs): x for x in picture.shapes
             if isinstance(x, Label) and x.bold}
    assert {"Q", "K", "V"} <= set(named) and "Q, K, V" not in named
    assert named["Q"].x < named["K"].x < named["V"].x < named["scores"].x
    layers = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "layer"]
    for h in range(2, ws.n_heads + 1):  # Q, K, V, scores, A and H of every further head
        assert len([r for r in layers if r.fill == f"head-{h}"]) == 6


# ------------------------------------------------------------------ projections


def test_a_projection_slide_says_what_a_row_and_a_column_of_w_are(case) -> None:
    """In the slide's main text (no small print): a row of each matrix is an input
    feature, a column a coordinate of the head's output; W_Q's columns are named by what
    they look for, the feature the same coordinate of the keys copies."""
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    for h in range(1, ws.n_heads + 1):
        s = slide(case["deck"], f"projections-h{h}")
        said = " ".join(_shown(tuple(b for b in s.blocks if isinstance(b, Para))))
        assert "a row is an input feature and a column one coordinate" in said
        assert not [b for b in s.blocks if isinstance(b, Para) and b.style == "note"]
        tables = [b for b in _blocks(s) if isinstance(b, Table)]
        w_q = next(t for t in tables if "W_Q" in "".join(getattr(r, "tex", "") for r in t.corner))
        copied = np.asarray(ref[f"params.h{h}.K_features"])
        if (copied >= 0).all():
            headings = ["".join(_shown(column)) for column in w_q.columns]
            assert headings == [f"looks for {ws.lesson.features[f]}" for f in copied]


def _blocks(s: Slide) -> list[Any]:
    """A slide's blocks, a column's blocks in their place."""
    found: list[Any] = []
    for block in s.blocks:
        found += [b for column in block.columns for b in column] \
            if isinstance(block, Columns) else [block]
    return found


def test_the_query_row_is_drawn_under_the_packed_matrix_not_inside_it(case) -> None:
    """Each head's dashed outline holds its columns of W_Q only; the query row they make
    stands below every outline, and every label is set at least as large as the deck's
    picture labels."""
    (picture,) = pictures_in(slide(case["deck"], "projections-split").blocks)
    outlines = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "reads"]
    queries = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "query"]
    assert outlines and queries
    assert max(o.y + o.h for o in outlines) < min(q.y for q in queries)
    assert min(x.size for x in picture.shapes if isinstance(x, Label)) >= 18


def test_the_features_title_agrees_with_what_the_keys_read(case) -> None:
    """When some head's keys read no part of some feature (numpy on its W_K), the title
    says the keys read only some; the picture keeps a row for every feature."""
    ws: Worksheet = case["ws"]
    s = slide(case["deck"], "projections-features")
    title = " ".join(_shown(s.title))
    unread = any(not np.abs(np.asarray(p["K"], dtype=float)).sum(axis=1).all()
                 for p in ws.document["headsLesson"]["projections"])
    assert ("only some" in title) == unread
    (picture,) = pictures_in(s.blocks)
    names = {"".join(g.text for g in x.glyphs) for x in picture.shapes if isinstance(x, Label)}
    assert set(ws.lesson.features) <= names


# ------------------------------------------------------------------ arcs


def test_an_arcs_weight_label_lies_nearer_its_source_than_any_other_token(case) -> None:
    """A weight written on an arc picture stands at its source's end of the arc, where it
    cannot be read as the weight of a token under the arc's top."""
    checked = 0
    for s in case["deck"].slides:
        for picture in pictures_in(s.blocks):
            arcs = [x for x in picture.shapes if isinstance(x, Arc) and x.role == "arc"]
            if not arcs:
                continue
            # the receiver-side end of every arc of a lane is its last token's square; the
            # other end, where the arc leaves the line, is its source's
            sources = {}
            for arc in arcs:
                j = int(re.search(r"\.weights\[(\d+)\]$", arc.draws)[1])
                start = re.match(r"M ([-\d.]+) ([-\d.]+)", arc.d)
                sources.setdefault(j, float(start[1]))
            for label in (x for x in picture.shapes if isinstance(x, Label) and x.key):
                found = re.search(r"\.weights\[(\d+)\]$", label.key)
                if not found:
                    continue
                j = int(found[1])
                width = len(label.glyphs[0].text) * label.size * 0.58
                centre = {"start": label.x + width / 2, "end": label.x - width / 2,
                          "middle": label.x}[label.anchor]
                nearest = min(sources, key=lambda k: abs(sources[k] - centre))
                assert nearest == j, (s.id, label.key)
                checked += 1
    assert checked > 10


# ------------------------------------------------------------------ colours and names


def test_separate_heads_are_drawn_in_separate_colours(case) -> None:
    """The one-head sketch draws its readings in ink; the separate heads' sketch gives each
    head its own colour."""
    def tones(id: str) -> list[str]:
        (picture,) = pictures_in(slide(case["deck"], id).blocks)
        return [x.tone for x in picture.shapes if getattr(x, "role", "") == "clue"]

    assert set(tones("details-coat")) == {"ink"}
    heads = tones("details-readings")
    assert len(set(heads)) == len(heads) == 3 and all(t.startswith("head-") for t in heads)


def test_each_heads_message_names_the_feature_of_each_coordinate(case) -> None:
    """Each head's message is drawn one bar per coordinate, in the head's colour, the bar
    named by the head and by the input feature that coordinate's value copies."""
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s = ws.walkthrough
    (picture,) = pictures_in(slide(case["deck"], "readings-all").blocks)
    bars = [x for x in picture.shapes if isinstance(x, Rect) and x.role == "bar"]
    names = [x for x in picture.shapes if isinstance(x, Label) and not x.key
             and x.anchor == "end"]
    assert len(bars) == len(names) == ws.n_heads * ws.d_head
    for bar, name in zip(bars, names, strict=True):
        h, c = (int(k) for k in re.search(r"\.h(\d+)\.message\[(\d+)\]$", bar.draws).groups())
        value = float(np.asarray(ref[f"{s}.h{h}.message"], dtype=float)[c])
        assert bar.fill == ("negative" if value < 0 else f"head-{h}")
        feature = int(np.asarray(ref[f"params.h{h}.V_features"])[c])
        words = "".join(g.text for g in name.glyphs)
        assert words.startswith(ws.lesson.head_names[h - 1])
        if feature >= 0:
            assert words.endswith(ws.lesson.features[feature])


def test_a_count_of_one_head_is_said_in_the_singular() -> None:
    """A one-head worksheet's deck says "1 head", never "1 heads"; a count word agrees with
    its number wherever the deck counts heads."""
    ws = load_worksheet(DATA / "one-wide-head.json")
    deck = deck_context(ws, compute_values(ws))
    said = [_text(s) for s in deck.slides]
    assert not [t for t in said if re.search(r"(?<![\d.])1\s+(heads|queries)\b", t)]
    assert any(re.search(r"(?<![\d.])1\s+head\b", t) for t in said)
