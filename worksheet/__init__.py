"""The worksheet: parameters, validation, the torch computation and the display format.

Data flows one way: a worksheet file is validated into a :class:`Worksheet`,
:func:`compute_values` turns it into an immutable :class:`Values` tree, and scenes,
slides and checks read that tree. Only this package computes. Torch is imported only
when values are computed, so reading and validating a worksheet stays fast.
"""

from __future__ import annotations

from typing import Any

from worksheet.errors import ExperimentError, WorksheetError
from worksheet.formatting import MINUS, Style, format_number, format_value
from worksheet.schema import DEFAULT_WORKSHEET, Worksheet, load_worksheet, parse_worksheet
from worksheet.values import Figure, Values, hand_values, parse_key, read_handed_values

__all__ = [
    "DEFAULT_WORKSHEET",
    "MINUS",
    "ExperimentError",
    "Figure",
    "Style",
    "Values",
    "Worksheet",
    "WorksheetError",
    "compute_values",
    "format_number",
    "format_value",
    "hand_values",
    "load_worksheet",
    "parse_key",
    "parse_worksheet",
    "read_handed_values",
]


def __getattr__(name: str) -> Any:
    if name == "compute_values":
        from worksheet.compute import compute_values

        return compute_values
    raise AttributeError(f"module 'worksheet' has no attribute {name!r}")
