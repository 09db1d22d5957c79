"""The one display format for every number the lecture shows.

Scenes, captions, slides and the checker all turn values into text here, so a
figure reads the same everywhere and a checker can compare text with text.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Any

__all__ = ["LARGE", "MINUS", "NOISE", "Style", "format_number", "format_value"]

MINUS = "\u2212"  # a true minus sign, as typeset


class Style(StrEnum):
    """How a value is displayed."""

    FIXED3 = "fixed3"
    """Computed reals (weights, scores, messages, updates): always three decimals, ``0.718``."""
    PARAM = "param"
    """Hand-chosen inputs and their exact products: up to three decimals, ``2.3``, ``1``."""
    COUNT = "count"
    """Sizes and parameter counts: whole numbers with thousands separators, ``4,096``."""
    INDEX = "index"
    """Token ids and positions: plain whole numbers, ``13``."""
    SHAPE = "shape"
    """Tensor shapes, written as PyTorch lists them: ``[10, 4]``."""
    BELOW = "below"
    """Rounding noise, such as two float64 computations' largest difference: the bound
    it stays under, ``< 1e−12``, the same on every machine."""


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
    """
    if style is Style.SHAPE:
        raise ValueError("a shape is formatted as a whole list, not number by number")
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
