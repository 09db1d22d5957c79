"""The voice says the digits on screen: every display style has a spoken form, and the
check's own parser reads it back to the same display text, both ways."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from render.spoken import read_spoken
from worksheet import Style, Values, format_value
from worksheet.formatting import MINUS, speak, speak_value

REALS = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize(("text", "style", "words"), [
    ("0.718", Style.FIXED3, "zero point seven one eight"),
    (f"{MINUS}0.018", Style.FIXED3, "minus zero point zero one eight"),
    ("183.244", Style.FIXED3, "one hundred eighty-three point two four four"),
    ("2.3", Style.PARAM, "two point three"),
    ("1", Style.PARAM, "one"),
    ("[10, 4]", Style.SHAPE, "ten by four"),
    ("[12]", Style.SHAPE, "twelve"),
    ("2,332,832", Style.COUNT,
     "two million, three hundred thirty-two thousand, eight hundred thirty-two"),
    ("13", Style.INDEX, "thirteen"),
    ("1.543e+07", Style.FIXED3, "one point five four three times ten to the seven"),
    (f"< 1e{MINUS}12", Style.BELOW, "less than one times ten to the minus twelve"),
])
def test_each_style_speaks_its_display_text(text: str, style: Style, words: str) -> None:
    assert speak(text, style) == words
    assert read_spoken(words, style) == text


@settings(max_examples=400, deadline=None)
@given(value=REALS, style=st.sampled_from([Style.FIXED3, Style.PARAM]))
def test_reals_read_back_to_their_display_text(value: float, style: Style) -> None:
    text = format_value(value, style)
    assert read_spoken(speak(text, style), style) == text


@settings(max_examples=300, deadline=None)
@given(value=st.integers(min_value=0, max_value=10**12 - 1),
       style=st.sampled_from([Style.COUNT, Style.INDEX]))
def test_whole_numbers_read_back(value: int, style: Style) -> None:
    text = format_value(value, style)
    assert read_spoken(speak(text, style), style) == text


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=5))
def test_shapes_read_back(sizes: list[int]) -> None:
    text = format_value(sizes, Style.SHAPE)
    assert read_spoken(speak(text, Style.SHAPE), Style.SHAPE) == text


@settings(max_examples=100, deadline=None)
@given(noise=st.floats(min_value=0, max_value=9e-13))
def test_noise_reads_back_as_its_bound(noise: float) -> None:
    text = format_value(noise, Style.BELOW)
    assert read_spoken(speak(text, Style.BELOW), Style.BELOW) == text


@settings(max_examples=300, deadline=None)
@given(value=REALS, other=REALS)
def test_different_display_texts_never_speak_alike(value: float, other: float) -> None:
    a, b = format_value(value, Style.FIXED3), format_value(other, Style.FIXED3)
    assert (speak(a, Style.FIXED3) == speak(b, Style.FIXED3)) == (a == b)


@pytest.mark.parametrize(("words", "style"), [
    ("seventy-eleven point two", Style.FIXED3), ("zero point seven one banana", Style.FIXED3),
    ("one times ten to the minus twelve", Style.BELOW), ("ten by", Style.SHAPE),
])
def test_words_that_speak_no_number_read_as_none(words: str, style: Style) -> None:
    assert read_spoken(words, style) is None


def test_every_value_of_the_lesson_reads_back(default_values: Values) -> None:
    checked = 0
    for leaf in default_values.leaves():
        assert read_spoken(leaf.spoken, leaf.style) == leaf.text, leaf.key
        checked += 1
    assert checked > 3000
    assert speak_value([0.5, -2], Style.PARAM) == ["zero point five", "minus two"]
