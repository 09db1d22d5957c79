"""Caption text as a voice should say it.

A caption and its narration come from one template: the caption shows the template with
figures in digits, the voice says it with figures in words (``worksheet.formatting.speak``)
and with the template's own symbols read out: ``√`` as "the square root of", ``E′`` as
"E prime", ``W_O`` as "W O". Brackets, which a reader sees but a listener does not need,
are dropped; quotation marks around a word become the short pauses that set it off.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from string import Formatter

__all__ = ["speakable", "spoken_text"]

_SPOKEN = (
    (re.compile(r"average_attn_weights"), "average attention weights"),
    (re.compile(r"\battn\b"), "attention"),
    (re.compile(r"\bnn\.MultiheadAttention\b"), "N N dot multi-head attention"),
    (re.compile(r"(?<=\w)\.(?=[a-z_]+\b)"), " dot "),
    (re.compile(r"(?<=[A-Za-z])_(?=[A-Za-z])"), " "),
    (re.compile(r"ΔE"), "delta E"),
    (re.compile(r"Δ"), "delta "),
    (re.compile(r"′"), " prime"),
    (re.compile(r"ᵀ"), " transpose"),
    (re.compile(r"√"), "the square root of "),
    (re.compile(r"\s*×\s*"), " times "),
    (re.compile(r"\s*÷\s*"), " divided by "),
    (re.compile(r"\s*=\s*"), " equals "),
    (re.compile(r"\s*\+\s*"), " plus "),
    (re.compile(r"\s*→\s*"), " to "),
    (re.compile(r"…"), ", and so on"),
    (re.compile(r"\bAV\b"), "A V"),
    (re.compile(r"\b(CLS|MLP)\b"), lambda m: " ".join(m[0])),
    (re.compile(r"\bReLU\b"), "relu"),
    (re.compile(r"[“”]"), ","),  # a word mentioned, not used: set off by pauses
    (re.compile(r"[\[\]]"), ""),
    (re.compile(r"\s*\(\s*"), ", "),
    (re.compile(r"\s*\)"), ","),
)


def speakable(literal: str) -> str:
    """A template's literal text (no slots) as a voice should say it.

    Examples
    --------
    >>> speakable("; adding E gives E′, still ")
    '; adding E gives E prime, still '
    >>> speakable(" = ")
    ' equals '
    """
    for pattern, spoken in _SPOKEN:
        literal = pattern.sub(spoken, literal)
    return literal


def spoken_text(template: str, slots: Mapping[str, str]) -> str:
    """A caption template as a voice says it: its literal text read out, each ``{slot}``
    filled with the spoken form from ``slots`` (numbers in words, words as they are)."""
    said = []
    for literal, slot, _, _ in Formatter().parse(template):
        said.append(speakable(literal))
        if slot is not None:
            said.append(slots[slot])
    text = " ".join("".join(said).split())
    text = re.sub(r"\s*,(\s*,)+", ",", text)  # pauses run together: one is enough
    text = re.sub(r"\s+,", ",", text)
    text = re.sub(r",(?=\S)", ", ", text)
    text = re.sub(r",\s*([.;:?!])", r"\1", text)
    text = re.sub(r"([.;:?!]),", r"\1", text)
    return text.strip(" ,")
