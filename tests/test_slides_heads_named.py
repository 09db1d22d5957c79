"""Colour is never the only carrier of a head (WCAG 2.1 AA, 1.4.1 "use of colour"): every
picture of the deck that draws something in a head's colour (a bar, a cell, an arc, a
block, a lane tinted ``head-N``) also names that head in its own visible text, as a
legend entry, a direct label or a heading: "head N", or the N-th of the worksheet's
``lesson.headNames``. A reader who cannot tell the colours apart still reads whose it is.

The head's number is read from the tone itself and its name from the worksheet file, not
from the deck's own labels; every picture of every slide is read, every switcher panel's
too. A legend added to name a head stands in room the drawing leaves (a free corner), so
that the picture keeps its size on the slide, and never on the drawing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from slides.context import Deck, Label, Line, Num, Path, Picture, Rect, Shape, Text, Word
from slides.deck import deck_context
from slides.lesson import pictures
from slides.lesson.kit import Book
from tests.test_slides_pictures import WORKSHEETS, pictures_in
from worksheet import compute_values, load_worksheet

TONE = re.compile(r"^head-(\d+)$")


def tones(shape: Shape) -> tuple[str, ...]:
    """The palette tones a shape is painted with."""
    if isinstance(shape, Rect):
        return (shape.fill, shape.stroke)
    if isinstance(shape, (Line, Path, Label)):
        return (shape.tone,)
    return ()


def heads_drawn(picture: Picture) -> set[int]:
    """The heads (counted from one) whose colour some shape of the picture takes."""
    return {int(m.group(1)) for shape in picture.shapes for tone in tones(shape)
            if (m := TONE.match(tone))}


PLACES = ("first", "second", "third", "fourth", "fifth", "sixth")
"""A head named by its place, as the deck names heads that are not the worksheet's (a toy's,
an illustration's, a trained model's)."""


def named(picture: Picture, h: int, names: list[str]) -> bool:
    """Whether one of the picture's labels names head ``h``: "head h" or "h-th head" (in
    words) in its text, or the head's name from the worksheet as one of its words (a
    trained model's heads beyond the worksheet's have no name)."""
    number = re.compile(rf"\bhead\s+{h}\b|\b{PLACES[h - 1]}\s+head\b", re.IGNORECASE)
    name = names[h - 1] if h <= len(names) else None
    for shape in picture.shapes:
        if not isinstance(shape, Label):
            continue
        said = "".join(glyph.text for glyph in shape.glyphs)
        if number.search(said):
            return True
        if any(isinstance(glyph, Word) and glyph.text == name for glyph in shape.glyphs):
            return True
    return False


def every_picture(deck: Deck) -> Iterator[tuple[str, Picture]]:
    for slide in deck.slides:
        for picture in pictures_in(slide.blocks):
            yield slide.id, picture


def offenders(deck: Deck, names: list[str]) -> list[str]:
    return [f"{slide} {picture.id or picture.description!r}: head {h} shown only by colour"
            for slide, picture in every_picture(deck)
            for h in sorted(heads_drawn(picture)) if not named(picture, h, names)]


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    path = WORKSHEETS[request.param]
    ws = load_worksheet(path)
    names = json.loads(path.read_text(encoding="utf-8"))["lesson"]["headNames"]
    return {"deck": deck_context(ws, compute_values(ws)), "names": names,
            "heads": ws.n_heads, "ws": ws}


def test_the_walk_finds_pictures_in_every_head_colour(case) -> None:
    """The check reads real pictures: every head of the worksheet is drawn in its colour
    somewhere (a trained model of more heads may add colours)."""
    drawn = set().union(*(heads_drawn(p) for _, p in every_picture(case["deck"])))
    assert drawn >= set(range(1, case["heads"] + 1))


def test_every_head_colour_in_a_picture_is_named_in_it(case) -> None:
    found = offenders(case["deck"], case["names"])
    assert not found, f"{len(found)} pictures:\n" + "\n".join(found)


def test_a_picture_coloured_without_a_name_is_caught(case) -> None:
    """The check itself: a bar in a head's colour beside unrelated text fails it, and the
    same bar with its head's name beside it passes."""
    bar = Rect(0, 0, 10, 10, "head-2", role="bar")
    name = case["names"][1]
    for unnamed in ((Word("river"),), (Text("head"), Num("x", "1")), (Text("third head"),)):
        assert not named(Picture(100, 20, "a bar", (bar, Label(20, 10, unnamed))), 2,
                         case["names"])
    for naming in ((Text("head "), Num("x", "2"), Text(", "), Word(name)),
                   (Text("Q"), Word(name, sup=True)), (Word(name),),
                   (Text("second head: colour"),)):
        assert named(Picture(100, 20, "a bar", (bar, Label(20, 10, naming))), 2,
                     case["names"])


# ------------------------------------------------------------------ where the legend stands


def _overlap(a: Rect, b: Rect | Line) -> bool:
    """Whether two shapes' boxes share area (a line by its end points and half its width)."""
    if isinstance(b, Line):
        box = (min(b.x1, b.x2) - b.width / 2, min(b.y1, b.y2) - b.width / 2,
               max(b.x1, b.x2) + b.width / 2, max(b.y1, b.y2) + b.width / 2)
    else:
        box = (b.x, b.y, b.x + b.w, b.y + b.h)
    return a.x < box[2] and box[0] < a.x + a.w and a.y < box[3] and box[1] < a.y + a.h


def test_a_legend_keeps_off_the_drawing_and_inside_the_picture(case) -> None:
    """Wherever a head's legend stands (in a free corner, between the labels along the
    top, beside or under the drawing), its swatch lies inside the picture's box and on
    none of the picture's bars, cells, blocks or lines."""
    checked = 0
    for slide, picture in every_picture(case["deck"]):
        shapes = [s for s in picture.shapes if isinstance(s, (Rect, Line))]
        for swatch in (s for s in shapes if isinstance(s, Rect) and s.role == "swatch"
                       and TONE.match(s.fill)):
            checked += 1
            assert 0 <= swatch.x and swatch.x + swatch.w <= picture.width, slide
            assert 0 <= swatch.y and swatch.y + swatch.h <= picture.height, slide
            hit = [s for s in shapes if s is not swatch and _overlap(swatch, s)]
            assert hit == [], f"{slide}: the swatch at {swatch.x}, {swatch.y} lies on {hit}"
    assert checked > 20


def _book(case) -> Book:
    ws = case["ws"]
    return Book(ws, compute_values(ws))


def test_a_legend_takes_a_free_corner_before_it_grows_the_picture(case) -> None:
    """A bar with the picture's top right corner free: the legend stands there and the
    picture keeps its size, so the slide shows it as large as before. The same bar
    filling the picture: the legend goes under it, in a row, and the picture grows by it."""
    book = _book(case)
    name = case["names"][0]
    bar = Rect(20.0, 150.0, 200.0, 30.0, "head-1", role="bar")
    roomy = Picture(600.0, 200.0, "a bar", (bar,), "panel")
    keyed = pictures.keyed(book, roomy)
    assert (keyed.width, keyed.height) == (roomy.width, roomy.height)
    (swatch,) = [s for s in keyed.shapes if isinstance(s, Rect) and s.role == "swatch"]
    assert swatch.x > bar.x + bar.w and swatch.y + swatch.h < bar.y
    assert named(keyed, 1, case["names"])
    assert any(isinstance(s, Label) and any(isinstance(g, Word) and g.text == name
                                            for g in s.glyphs) for s in keyed.shapes)
    full = Picture(220.0, 40.0, "a bar", (replace(bar, y=5.0),), "panel")
    grown = pictures.keyed(book, full)
    assert grown.height > full.height and named(grown, 1, case["names"])
    (swatch,) = [s for s in grown.shapes if isinstance(s, Rect) and s.role == "swatch"]
    assert swatch.y >= full.height
