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

from slides.context import Agenda, Deck, Label, Math, Num, Picture, Rect, Slide, Table, Text, Word
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


_SUM = re.compile(r"^(\S+) × (\S+) \+ (\S+) × (\S+) = (\S+)$")


def _sums(s: Slide) -> list[list[Num]]:
    """Every ``a × x + b × y = m`` written on a slide, as its five bound numbers."""
    found = []
    for block in s.blocks:
        if not isinstance(block, Table):
            continue
        for row in block.rows:
            for cell in row.cells:
                runs = cell.runs
                text = "".join(getattr(r, "text", "") for r in runs)
                if _SUM.match(text):
                    found.append([r for r in runs if isinstance(r, Num)])
    return found


def _digits(value: float, shown: str) -> str:
    """``value`` written with as many decimals as ``shown`` has."""
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return f"{value:.{decimals}f}".replace("-", "−")


def test_the_toys_sums_are_shown_and_equal_a_numpy_recomputation_digit_for_digit(
        case) -> None:
    """One head mixes both coordinates with one weight row; separate heads use the row of
    the head for each coordinate. Every weight, value and mixture shown equals, digit for
    digit, plain numpy on the worksheet's toy."""
    toy = case["doc"]["lesson"]["toy"]
    values, weights = np.array(toy["values"], float), np.array(toy["weights"], float)
    sums = _sums(slide(case["deck"], "one-two-heads-toy"))
    assert len(sums) == 4
    rows = []
    for a, x, b, y, m in sums:
        (r, i), (s0, c), (r2, i2), (s1, c2) = (
            tuple(int(k) for k in re.findall(r"\[(\d+)\]", num.key)) for num in (a, x, b, y))
        assert a.key.startswith("toy.weights") and x.key.startswith("toy.values")
        assert (r, i, s0, r2, i2, s1, c2) == (r, 0, 0, r, 1, 1, c)
        mixed = float(weights[r] @ values[:, c])
        assert m.key.endswith(f"[{c}]")
        for num, expected in ((a, weights[r, 0]), (x, values[0, c]), (b, weights[r, 1]),
                              (y, values[1, c]), (m, mixed)):
            assert num.text == _digits(float(expected), num.text), (num.key, num.text)
        rows.append((m.key.split("[")[0], r, c))
    assert rows == [("toy.one_head", 0, 0), ("toy.one_head", 0, 1),
                    ("toy.two_heads", 0, 0), ("toy.two_heads", 1, 1)]


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
