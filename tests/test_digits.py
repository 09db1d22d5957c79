"""The display check itself: :func:`tests.reference.within_display`, both ways.

Hand-written texts and values only: a check that passed everything would pass here
nowhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.reference import display_error, within_display
from worksheet import Style, format_number

F3, P, C, N, S, B = (Style.FIXED3, Style.PARAM, Style.COUNT, Style.INDEX, Style.SHAPE,
                     Style.BELOW)

HOLDS: list[tuple[str, Style, Any]] = [
    ("0.718", F3, 0.71764),
    ("124.743", F3, 124.74346),
    ("1.543e+07", F3, 15429041.593),
    ("−2.617", F3, -2.6174),
    ("0.000", F3, -0.0003),
    ("1.000", F3, 0.99951),
    ("0.113", F3, 0.1125),  # a tie: either neighbour shows it to half a unit
    ("0.112", F3, 0.1125),
    ("0.113", F3, 0.11249999999999),  # within the float64 slack of the tie
    ("1.543e+07", F3, 15435000.0),  # exactly half a unit (1e4) away: a tie
    ("−1.000e+06", F3, -1000000.4),
    ("−0.1", P, -0.1),
    ("−0.1", P, -0.1000000015),
    ("2", P, 2.0004),
    ("2", P, 1.9996),
    ("0", P, 0.0004),
    ("2.3", P, 2.30049),
    ("13.648", P, 13.6485),
    ("1.5e+07", P, 15004000.0),
    ("1e+06", P, 1000400.0),
    ("4,096", C, 4096),
    ("2,332,832", C, 2332832),
    ("64", C, 64.0),
    ("13", N, 13),
    ("0", N, np.int64(0)),
    ("[10, 4]", S, [10, 4]),
    ("[10, 4]", S, (10, 4)),
    ("[3]", S, [np.int64(3)]),
    ("< 1e−12", B, 0.0),
    ("< 1e−12", B, 3e-13),
]

FAILS: list[tuple[str, Style, Any]] = [
    ("0.718", F3, 0.7186),
    ("0.718", F3, 0.7174),
    ("124.743", F3, 124.7436),
    ("1.543e+07", F3, 15436000.0),
    ("1.543e+07", F3, 15424000.0),
    ("1.543e+07", F3, 1543.0),  # the exponent counts
    ("−2.617", F3, 2.617),  # the sign counts
    ("2.617", F3, -2.617),
    ("0.113", F3, 0.112499),
    ("0.113", F3, 0.1124999999),  # 1e-10 past the tie: beyond float64 rounding
    ("0.72", F3, 0.72),  # FIXED3 shows three decimals
    ("1543000.000", F3, 1543000.0),  # from 1e6 on, scientific
    ("-2.617", F3, -2.617),  # an ASCII hyphen is not the minus sign
    ("−0.000", F3, -0.0001),  # never a negative zero
    ("0.718", F3, float("nan")),
    ("0.718", F3, [0.718]),
    ("2", P, 2.4),
    ("2", P, 2.0006),
    ("2.30", P, 2.3),  # PARAM drops trailing zeros
    ("2.3004", P, 2.3004),  # at most three decimals
    ("−0.1", P, 0.1),
    ("−0.1", P, -0.1006),
    ("1.5e+07", P, 15006000.0),
    ("4,096", C, 4095),
    ("4,096", C, 4096.5),
    ("4096", C, 4096),  # thousands separators
    ("4,096", N, 4096),  # no separators in an index
    ("13", N, 12),
    ("13", N, True),
    ("[10, 4]", S, [4, 10]),
    ("[10, 4]", S, [10, 4, 1]),
    ("[10, 4]", S, [10]),
    ("[10,4]", S, [10, 4]),
    ("< 1e−12", B, 2e-12),
    ("< 1e-12", B, 0.0),
    ("0", B, 0.0),
]


@pytest.mark.parametrize(("text", "style", "expected"), HOLDS)
def test_texts_within_half_a_unit_hold(text: str, style: Style, expected: Any) -> None:
    assert within_display(text, style, expected)


@pytest.mark.parametrize(("text", "style", "expected"), FAILS)
def test_texts_off_by_more_or_in_the_wrong_form_fail(text: str, style: Style,
                                                     expected: Any) -> None:
    assert not within_display(text, style, expected)


def test_the_error_is_measured_in_units_of_the_last_digit() -> None:
    assert display_error("0.718", F3, 0.718) == pytest.approx(0.0, abs=1e-9)
    assert display_error("0.718", F3, 0.71764) == pytest.approx(0.36)
    assert display_error("2", P, 2.0004) == pytest.approx(0.4)
    assert display_error("1.543e+07", F3, 15429041.593) == pytest.approx(0.0958407)
    assert display_error("4,096", C, 4096) == 0.0
    assert display_error("4,096", C, 4095) == float("inf")


@pytest.mark.parametrize("style", [F3, P])
def test_the_projects_own_format_holds_and_a_neighbouring_value_does_not(style: Style) -> None:
    rng = np.random.default_rng(2024)
    magnitudes = 10.0 ** rng.uniform(-4, 9, 2000)
    for value in magnitudes * rng.choice([-1.0, 1.0], magnitudes.size):
        text = format_number(value, style)
        assert within_display(text, style, value), (text, value)
        unit = 10.0 ** (int(text.partition("e")[2] or 0) - 3)
        assert not within_display(text, style, value + 1.5 * unit), (text, value)
