"""The one display format for every number the lecture shows, and its spoken form.

Scenes, captions, slides and the checker all turn values into text here, so a
figure reads the same everywhere and a checker can compare text with text. The voice
speaks the display text in words (:func:`speak`): exactly the digits on screen, so
what is heard and what is seen are the same rounding of the same value.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

__all__ = ["LARGE", "MINUS", "NOISE", "Style", "format_number", "format_value", "speak",
           "speak_value"]

MINUS = "\u2212"  # a true minus sign, as typeset


class Style(StrEnum):
    """How a value is displayed."""

    FIXED3 = "fixed3"
    """Computed reals (weights, scores, messages, updates): always three decimals, ``0.718``."""
    PARAM = "param"
    """Hand-chosen inputs and their exact products, and the square root of a size: up to
    three decimals, trailing zeros dropped, ``2.3``, ``1``, ``√4`` as ``2``."""
    COUNT = "count"
    """Sizes and parameter counts: whole numbers with thousands separators, ``4,096``."""
    INDEX = "index"
    """Token ids and positions: plain whole numbers, ``13``."""
    SHAPE = "shape"
    """Tensor shapes, written as PyTorch lists them: ``[10, 4]``."""
    BELOW = "below"
    """Rounding noise, such as two float64 computations' largest difference: the bound
    it stays under, ``< 1e−12``, the same on every machine."""
    FIXED1 = "fixed1"
    """Measured reals a tenth resolves (perplexities, seconds of training): always one
    decimal, ``43.7``."""
    WHOLE = "whole"
    """Measured rates (tokens per second): rounded to a whole number, with thousands
    separators, ``182,344``."""
    TEXT = "text"
    """Words a model wrote, or a verdict chosen from the numbers: the string itself, shown
    and spoken as it is (never read as figures)."""


LARGE = 1e6
"""From this magnitude on, reals are shown in scientific notation with four significant
digits (``1.543e+07``): only digits that are true, at a width that fits a table cell."""
NOISE = 1e-12
"""The bound a :attr:`Style.BELOW` value is shown under."""


def _signed(text: str) -> str:
    return text.replace("-", MINUS)


def _fixed(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    if float(text) == 0.0:  # never show "-0.000"
        text = text.lstrip("-")
    return text


def format_number(value: float | int, style: Style) -> str:
    """Display text of one number in the given style.

    Examples
    --------
    >>> format_number(0.71764, Style.FIXED3)
    '0.718'
    >>> format_number(-0.1000000015, Style.PARAM)
    '−0.1'
    >>> format_number(4096, Style.COUNT)
    '4,096'
    >>> format_number(43.66, Style.FIXED1)
    '43.7'
    >>> format_number(182344.49, Style.WHOLE)
    '182,344'
    """
    if style is Style.SHAPE:
        raise ValueError("a shape is formatted as a whole list, not number by number")
    if style is Style.TEXT:
        if not isinstance(value, str):
            raise ValueError(f"a text value must be a string, got {value!r}")
        return value
    if isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"cannot display {value!r}")
    if style in (Style.FIXED3, Style.PARAM):
        text = _fixed(float(value), 3)
        if abs(float(text)) >= LARGE:
            mantissa, exponent = f"{float(value):.3e}".split("e")
            text = f"{mantissa}e{exponent}"
        if style is Style.PARAM:
            text = _trimmed(text)
        return _signed(text)
    if style is Style.FIXED1:
        text = _fixed(float(value), 1)
        if abs(float(text)) >= LARGE:
            raise ValueError(f"{value!r} is too large for one decimal")
        return _signed(text)
    if style is Style.WHOLE:
        text = f"{round(float(value)):,}"
        return _signed("0" if text == "-0" else text)
    if style is Style.COUNT:
        return _signed(f"{_whole(value):,}")
    if style is Style.INDEX:
        return _signed(str(_whole(value)))
    if style is Style.BELOW:
        if abs(value) >= NOISE:
            raise ValueError(f"{value!r} is not below {NOISE:g}; it is no rounding noise")
        return _signed(f"< {NOISE:.0e}")
    raise ValueError(f"unknown style {style!r}")


def _trimmed(text: str) -> str:
    """Trailing zeros of the decimals dropped: ``2.300`` → ``2.3``, ``1.500e+07`` →
    ``1.5e+07``, ``1.000`` → ``1``."""
    mantissa, e, exponent = text.partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return (mantissa or "0") + e + exponent


def _whole(value: float | int) -> int:
    if float(value) != int(value):
        raise ValueError(f"expected a whole number, got {value!r}")
    return int(value)


def format_value(value: Any, style: Style) -> Any:
    """Display text of a number or of a nested list of numbers (same nesting, strings).

    A :attr:`Style.SHAPE` value is a list of sizes and becomes one string, ``[10, 4]``.
    """
    if style is Style.SHAPE:
        return "[" + ", ".join(str(_whole(size)) for size in value) + "]"
    if isinstance(value, (list, tuple)):
        return [format_value(item, style) for item in value]
    return format_number(value, style)


# --------------------------------------------------------------------------- speech

DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def _whole_words(number: int) -> str:
    """``183`` → ``one hundred eighty-three`` (American: no "and")."""
    from num2words import num2words

    return num2words(number, lang="en").replace(" and ", " ")


def _real_words(text: str) -> str:
    """A displayed real, ``−183.244`` or ``1.543e+07``, in words."""
    sign = "minus " if text.startswith(MINUS) else ""
    mantissa, _, exponent = text.removeprefix(MINUS).partition("e")
    whole, _, decimals = mantissa.partition(".")
    words = sign + _whole_words(int(whole))
    if decimals:
        words += " point " + " ".join(DIGIT_WORDS[int(d)] for d in decimals)
    if exponent:
        power = int(exponent.replace(MINUS, "-"))
        words += " times ten to the " + ("minus " if power < 0 else "") + \
            _whole_words(abs(power))
    return words


def speak(text: str, style: Style) -> str:
    """The words a voice says for one display text of the given style.

    Examples
    --------
    >>> speak("0.718", Style.FIXED3)
    'zero point seven one eight'
    >>> speak("\u22120.018", Style.FIXED3)
    'minus zero point zero one eight'
    >>> speak("[10, 4]", Style.SHAPE)
    'ten by four'
    >>> speak("2,332,832", Style.COUNT)
    'two million, three hundred thirty-two thousand, eight hundred thirty-two'
    """
    if style is Style.SHAPE:
        return " by ".join(_whole_words(int(size)) for size in text.strip("[]").split(", "))
    if style is Style.BELOW:
        return "less than " + _real_words(text.removeprefix("< "))
    if style is Style.TEXT:
        return text
    if style in (Style.COUNT, Style.INDEX, Style.WHOLE):
        words = _whole_words(int(text.removeprefix(MINUS).replace(",", "")))
        return ("minus " if text.startswith(MINUS) else "") + words
    return _real_words(text)


def speak_value(value: Any, style: Style) -> Any:
    """Spoken forms of a number or nested list of numbers (same nesting as its text)."""
    text = format_value(value, style)
    if isinstance(text, list):
        return [speak_value(v, style) for v in value]
    return speak(text, style)
