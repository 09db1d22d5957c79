"""The lesson extras a worksheet may leave out, and how a missing part is filled in.

A worksheet in the seed notebook's own schema has no ``lesson`` object. Each part of it
(``features``, ``featureNotes``, ``headNames``, ``targets``, ``glosses``, ``bias``, ``toy``,
``patches``, ``trained``, ``lab``, ``translation``) is optional: a missing part takes its
default below, a given part is read as written. ``lecture worksheet fill`` writes a
worksheet with every default made explicit.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["BUILT_IN", "LESSON_PARTS", "filled_lesson"]

LESSON_PARTS = ("features", "featureNotes", "headNames", "targets", "glosses", "bias", "toy",
                "patches", "trained", "lab", "translation")
"""The parts of the ``lesson`` object, in the order ``fill`` writes them."""

_BIAS_OFFSET = (0.2, -0.1)
"""The illustrative projection offset; longer heads get zeros after it."""

BUILT_IN: Mapping[str, Any] = {
    "toy": {"sources": ["river", "fisherman"], "values": [[10, 1], [2, 8]],
            "weights": [[0.8, 0.2], [0.2, 0.8]]},
    "patches": {
        "image": [[0, 0, 0, 0, 0, 0, 0, 1], [0, 1, 1, 0, 0, 0, 1, 0], [0, 1, 1, 0, 0, 1, 0, 0],
                  [0, 0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0],
                  [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1, 1, 1, 1, 1],
                  [1, 1, 1, 1, 1, 1, 1, 1]],
        "size": 4,
        "projection": [[0.1, 0.1, 0.1, 0], [0.1, 0.1, 0.1, 0], [0.1, 0.1, -0.1, 0],
                       [0.1, 0.1, -0.1, 0.25], [0.1, 0.1, 0.1, 0], [0.1, 0.1, 0.1, 0],
                       [0.1, 0.1, -0.1, 0.25], [0.1, 0.1, -0.1, 0], [0.1, -0.1, 0.1, 0],
                       [0.1, -0.1, 0.1, 0.25], [0.1, -0.1, -0.1, 0], [0.1, -0.1, -0.1, 0],
                       [0.1, -0.1, 0.1, 0.25], [0.1, -0.1, 0.1, 0], [0.1, -0.1, -0.1, 0],
                       [0.1, -0.1, -0.1, 0]],
        "cls": [0.2, 0.2, 0.2, 0.2],
        "positions": [[0, 0, 0, 0], [0.1, 0, 0, 0], [0, 0.1, 0, 0], [0, 0, 0.1, 0],
                      [0, 0, 0, 0.1]],
    },
    "trained": {"vocab": 4000, "context": 64, "width": 64, "hidden": 256, "heads": [1, 4]},
    "lab": {"learningRate": 0.001, "seed": 7},
    # the fisherman sat on the bank of the river: "Ufer" is a river's bank only
    "translation": {"german": ["Der", "Fischer", "saß", "am", "Ufer", "des", "Flusses"],
                    "english": ["The", "fisherman", "sat", "on", "the"],
                    "contracted": ["am", "on the"], "decides": "Ufer"},
}
"""Parts that do not depend on the worksheet's sizes: the lesson's own examples."""


def _sized(width: int, d_head: int, n_heads: int) -> dict[str, Any]:
    """Defaults that follow the worksheet's sizes."""
    return {
        "features": [f"f{i + 1}" for i in range(width)],
        "featureNotes": {},
        "headNames": [f"head {h + 1}" for h in range(n_heads)],
        "targets": {},
        "glosses": {},
        "bias": {"offset": [*_BIAS_OFFSET, *[0] * d_head][:d_head]},
    }


def filled_lesson(lesson: Mapping[str, Any], width: int, d_head: int,
                  n_heads: int) -> dict[str, Any]:
    """Every part of a ``lesson`` object: the given ones as written, the rest defaulted.

    Parts the project does not know are kept after the known ones, so the reader can
    name them.
    """
    defaults = {**_sized(width, d_head, n_heads), **copy.deepcopy(dict(BUILT_IN))}
    filled = {part: copy.deepcopy(lesson[part]) if part in lesson else defaults[part]
              for part in LESSON_PARTS}
    filled.update({key: value for key, value in lesson.items() if key not in filled})
    return filled
