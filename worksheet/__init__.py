"""The worksheet: parameters, validation, the torch computation and the display format.

Data flows one way: a worksheet file is validated into a :class:`Worksheet`,
:func:`compute_values` turns it into an immutable :class:`Values` tree, and scenes,
slides and checks read that tree. Only this package computes. Torch is imported only
when values are computed, pydantic when a worksheet is validated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from worksheet.errors import ExperimentError, WorksheetError
from worksheet.formatting import MINUS, Style, format_number, format_value
from worksheet.values import Figure, Values, hand_values, parse_key, read_handed_values

__all__ = [
    "BUNDLED_EXPERIMENT",
    "DEFAULT_WORKSHEET",
    "MINUS",
    "NO_EXPERIMENT",
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

DEFAULT_WORKSHEET = Path(__file__).with_name("multihead-worksheet.json")
"""The worksheet the lecture is built from unless another is named."""
BUNDLED_EXPERIMENT = Path(__file__).with_name("trained")
"""The experiment the lecture ships (:mod:`worksheet.results`)."""
NO_EXPERIMENT = "none"
"""The experiment setting that asks for none, even where the bundled one fits."""

_LATER = {"Worksheet": "worksheet.schema", "load_worksheet": "worksheet.schema",
          "parse_worksheet": "worksheet.schema", "compute_values": "worksheet.compute"}
"""Imported when first used: validation needs pydantic and numpy, computing torch; a build
with nothing to do needs neither."""


def __getattr__(name: str) -> Any:
    if name in _LATER:
        from importlib import import_module

        return getattr(import_module(_LATER[name]), name)
    raise AttributeError(f"module 'worksheet' has no attribute {name!r}")
