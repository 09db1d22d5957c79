"""Colour is never the only carrier of a head (WCAG 2.1 AA, 1.4.1 "use of colour"): every
picture of the deck that draws something in a head's colour (a bar, a cell, an arc, a
block, a lane tinted ``head-N``) also names that head in its own visible text, as a
legend entry, a direct label or a heading: "head N", or the N-th of the worksheet's
``lesson.headNames``. A reader who cannot tell the colours apart still reads whose it is.

The head's number is read from the tone itself and its name from the worksheet file, not
from the deck's own labels; every picture of every slide is read, every switcher panel's
too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from slides.context import Deck, Label, Line, Num, Path, Picture, Rect, Shape, Text, Word
from slides.deck import deck_context
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
            "heads": ws.n_heads}


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
