"""The worksheet in the seed's schema, with the computed cases its notebook asserts against."""

from __future__ import annotations

import copy
from typing import Any

from worksheet.schema import Worksheet
from worksheet.values import Values

__all__ = ["export_document"]


def export_document(ws: Worksheet, values: Values) -> dict[str, Any]:
    """The worksheet document plus ``headsLesson.cases``.

    For each sentence: ``tokens``, ``E``, ``heads[h].Q/K/V/A/messages`` (full matrices,
    ``A`` with zeros above the diagonal), ``logits`` (one row per position) and
    ``wide.A``/``wide.messages``. Every matrix comes from the computed values.
    """
    document = copy.deepcopy(dict(ws.document))
    lesson = dict(document["headsLesson"])
    cases: dict[str, Any] = {}
    for name, tokens in ws.sentences.items():
        cases[name] = {
            "tokens": list(tokens),
            "E": values.value(f"{name}.E"),
            "heads": [
                {
                    "Q": values.value(f"{name}.h{h}.Q"),
                    "K": values.value(f"{name}.h{h}.K"),
                    "V": values.value(f"{name}.h{h}.V"),
                    "A": values.value(f"{name}.h{h}.A"),
                    "messages": values.value(f"{name}.h{h}.H"),
                }
                for h in range(1, ws.n_heads + 1)
            ],
            "logits": values.value(f"{name}.logits"),
            "wide": {
                "A": values.value(f"{name}.wide.A"),
                "messages": values.value(f"{name}.wide.H"),
            },
        }
    lesson["cases"] = cases
    document["headsLesson"] = lesson
    return document
