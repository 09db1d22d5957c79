"""The pixel reader on its own: figures drawn with PIL in the lecture's fonts, at the size
a 480p clip shows them, are read back whatever their colours, with neighbours around
them, and periods are told from commas by the height of their marks."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from render.frames import FIRST, _settle_punctuation, normalise, prepare, read_crop

FONTS = "/usr/share/fonts/truetype/dejavu/"
INK, GROUND = (242, 242, 242), (0, 0, 0)


def drawn(text: str, font: str = "DejaVuSansMono.ttf", size: int = 15,
          ink: tuple[int, int, int] = INK, ground: tuple[int, int, int] = GROUND,
          around: str = "") -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A frame with ``text`` drawn in it, and the glyph box of ``text`` (not of
    ``around``, which is drawn on both sides of it as a neighbour would be)."""
    image = Image.new("RGB", (240, 60), ground)
    draw = ImageDraw.Draw(image)
    face = ImageFont.truetype(FONTS + font, size)
    x = 20 + (draw.textlength(around + "  ", font=face) if around else 0)
    if around:
        draw.text((20, 20), around, font=face, fill=ink)
        draw.text((x + draw.textlength(text + "  ", font=face), 20), around, font=face,
                  fill=ink)
    draw.text((x, 20), text, font=face, fill=ink)
    left, top, right, bottom = draw.textbbox((x, 20), text, font=face)
    return np.asarray(image), (float(left), float(top), float(right), float(bottom))


@pytest.mark.parametrize("text", ["0.718", "−0.018", "183.244", "4,096", "2,332,832",
                                  "[10, 4]", "1.543e+07", "< 1e−12", "0", "13"])
def test_figures_in_the_lecture_font_are_read(text: str) -> None:
    frame, box = drawn(text)
    assert read_crop(frame, box) == normalise(text)


@pytest.mark.parametrize(("ink", "ground"), [((30, 30, 30), (230, 159, 0)),
                                             ((242, 242, 242), (86, 180, 233)),
                                             ((20, 20, 20), (250, 250, 250))])
def test_either_polarity_and_coloured_grounds_read_the_same(ink, ground) -> None:
    frame, box = drawn("0.840", ink=ink, ground=ground)
    assert read_crop(frame, box) == "0.840"


def test_neighbours_outside_the_box_are_not_read() -> None:
    frame, box = drawn("2.3", around="9")
    assert read_crop(frame, box) == "2.3"


def test_the_dot_inside_a_mono_zero_is_dropped_before_reading() -> None:
    frame, box = drawn("0")
    page = prepare(frame, box, FIRST[0])
    ink = page < 128
    rows = np.nonzero(ink.any(axis=1))[0]
    middle = ink[(rows.min() + rows.max()) // 2]
    assert np.count_nonzero(np.diff(middle.astype(int))) == 4  # two strokes, no dot between


def page_with(mark_height: int) -> np.ndarray:
    """Two digit-like strokes 34 pixels tall and a small mark standing on their line."""
    page = np.full((60, 80), 255, dtype=np.uint8)
    page[10:44, 10:14] = 0
    page[10:44, 50:54] = 0
    page[44 - mark_height:44, 30:34] = 0
    return page


def test_periods_and_commas_are_settled_by_the_height_of_their_marks() -> None:
    assert _settle_punctuation("4,2", [page_with(6)] * 3) == "4.2"
    assert _settle_punctuation("4.2", [page_with(13)] * 3) == "4,2"
    assert _settle_punctuation("4,2", [page_with(9)] * 3) == "4,2"  # in between: OCR stands
    assert _settle_punctuation("42", [page_with(6)] * 3) == "42"  # no mark read: unchanged


def test_readings_are_compared_without_spaces_and_with_one_minus() -> None:
    assert normalise("[10, 4]") == "[10,4]"
    assert normalise("-0.1") == normalise("\u22120.1") == normalise("\u20140.1")
    assert normalise("l.5") == "1.5"


@pytest.mark.parametrize("how", FIRST)
def test_a_stroke_as_tall_as_its_glyph_box_survives_at_1080p(how) -> None:
    """A "1" at the hall's 1080p is one upright stroke from the top of its glyph box to the
    bottom; the crop's margin grows with the frame, so the stroke never spans nine tenths of
    the crop and is never taken for a box's border and wiped."""
    frame = np.zeros((1080, 1920, 3), dtype=np.uint8)
    frame[49:96, 664:672] = 230  # the stem, from the glyph box's top row to its bottom row
    page = prepare(frame, (654.8, 49.25, 682.6, 95.7), how)
    assert (page == 0).sum() > 0.5 * 8 * 47 * (how.height / 46.45) ** 2
