"""Bound texts: templates filled from value keys (counted slots agree in English),
texts that check their own figures, worksheet words, and baselines."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Formatter
from typing import Any

from manim import RIGHT, UP, Mobject, Text, VGroup, VMobject

from narration.english import ENGLISH
from narration.text import spoken_text
from scenes.kit.layout import FONT
from scenes.kit.lesson import RecordingValues, lesson_words

_DIGIT = re.compile(r"\d")




_SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _no_digits(text: str, what: str) -> str:
    if _DIGIT.search(_SLOT.sub("", text)):
        raise ValueError(f"{what} {text!r} contains a typed number; bind it to a value key")
    return text


@dataclass(frozen=True)
class Filled:
    """A template with its slots filled: the text and where each number stands in it.

    Attributes
    ----------
    text
        The filled text.
    figures
        ``(key, display text)`` of each number, in template order.
    spans
        ``(start, end)`` character offsets of each figure in ``text``.
    spoken
        The same template as a voice says it: figures in words, symbols read out.
    """

    text: str
    figures: tuple[tuple[str, str], ...]
    spans: tuple[tuple[int, int], ...]
    spoken: str = ""
    template: str = ""
    """The template with counted slots spelled out (``{n:head}`` as ``{n} {n__0}``)."""
    words: Mapping[str, str] = field(default_factory=dict)
    """The words it was filled with, those a count needed included (``n__0``: "heads")."""


def _counted(template: str, values: RecordingValues,
             keys: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """Rewrite counted slots into plain ones, with the words English needs for the count.

    ``{n:sentence}`` shows the count and the noun in agreement ("1 sentence",
    "3 sentences"); ``{n:all sentence}`` says "both sentences" for two and "all 3
    sentences" otherwise; ``{n:?is}`` is only the verb that agrees ("is" or "are").
    Plurals and agreement come from ``inflect``.
    """
    parts: list[str] = []
    made: dict[str, str] = {}
    for literal, slot, spec, _ in Formatter().parse(template):
        parts.append(literal.replace("{", "{{").replace("}", "}}"))
        if slot is None:
            continue
        if not spec:
            parts.append("{" + slot + "}")
            continue
        if slot not in keys:
            raise KeyError(f"template {template!r}: counted slot {{{slot}:{spec}}} has no key")
        count = values.value(keys[slot])
        if not isinstance(count, int) or isinstance(count, bool):
            raise ValueError(f"template {template!r}: {{{slot}:{spec}}} counts, but "
                             f"{keys[slot]} is {count!r}, not a whole number")
        word = f"{slot}__{len(made)}"
        if spec.startswith("?"):
            made[word] = ENGLISH.plural_verb(spec[1:], count)
            parts.append("{" + word + "}")
        elif spec.startswith("all "):
            noun = ENGLISH.plural(spec[4:], count)
            if count == 2:
                made[word] = f"both {noun}"
                parts.append("{" + word + "}")
            else:
                made[word] = noun
                parts.append("all {" + slot + "} {" + word + "}")
        else:
            made[word] = ENGLISH.plural(spec, count)
            parts.append("{" + slot + "} {" + word + "}")
    return "".join(parts), made


def fill(template: str, values: RecordingValues, keys: Mapping[str, str],
         words: Mapping[str, str] | None = None) -> Filled:
    """Fill a template's ``{name}`` slots: numbers from value keys, words literally.

    A slot may count: ``{n:head}``, ``{n:all sentence}``, ``{n:?is}`` (see
    :func:`_counted`), so that "2 heads", "both sentences" and "1 head is" agree.
    """
    _no_digits(template, "template")
    words = words or {}
    allowed = lesson_words()
    for name, word in words.items():
        if word not in allowed:
            raise ValueError(f"template {template!r}: word {{{name}}} = {word!r} is neither a "
                             "worksheet word nor a lesson word")
    named = {name for _, name, _, _ in Formatter().parse(template) if name is not None}
    template, made = _counted(template, values, keys)
    for key in (keys[name] for name in named if name in keys):
        values.value(key)  # a count that shows no digit ("both") is still read
    words = {**words, **made}
    parts: list[str] = []
    figures: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    at = 0
    for literal, slot, _, _ in Formatter().parse(template):
        parts.append(literal)
        at += len(literal)
        if slot is None:
            continue
        if slot in keys:
            shown = values.text(keys[slot])
            figures.append((keys[slot], shown))
            spans.append((at, at + len(shown)))
        elif slot in words:
            shown = words[slot]
        else:
            raise KeyError(f"template {template!r} has a slot {{{slot}}} with no key or word")
        parts.append(shown)
        at += len(shown)
    used = {name for _, name, _, _ in Formatter().parse(template)}
    unused = set(keys) - used
    keys = {slot: key for slot, key in keys.items() if slot in used}
    if unused - named:
        raise KeyError(f"template {template!r} has no slot for {', '.join(sorted(unused))}")
    spoken = spoken_text(template, {**words, **{slot: values.spoken(key)
                                                for slot, key in keys.items()}})
    return Filled("".join(parts), tuple(figures), tuple(spans), spoken, template, words)


ELIDE_AFTER = 4
"""Longer vectors show their first two entries, "…", and their last."""


def shown_indices(length: int) -> list[int | None]:
    """Indices a row of ``length`` numbers shows; ``None`` marks the elided middle."""
    if length <= ELIDE_AFTER:
        return list(range(length))
    return [0, 1, None, length - 1]


def joined(name: str, key: str, length: int, separator: str) -> tuple[str, dict[str, str]]:
    """Slots ``{name0}…`` for the entries of a vector, joined by ``separator``, elided."""
    slots: dict[str, str] = {}
    parts = []
    for i in shown_indices(length):
        if i is None:
            parts.append("…")
            continue
        slots[f"{name}{i}"] = f"{key}[{i}]"
        parts.append("{" + f"{name}{i}" + "}")
    return separator.join(parts), slots


def vector(name: str, key: str, length: int) -> tuple[str, dict[str, str]]:
    """Template text ``[{name0}, {name1}, …]`` and its keys for a vector value."""
    inner, slots = joined(name, key, length, ", ")
    return f"[{inner}]", slots


def noted(names: Sequence[str], notes: Mapping[str, str]
          ) -> tuple[str, dict[str, str], list[str]] | None:
    """The sentence that says what the features ``names`` stand for, in the worksheet's
    ``notes`` ("Here water stands for rivers; finance, for money."), with its words and
    the noted names in order; ``None`` where none of them is noted."""
    kept = [name for name in dict.fromkeys(names) if name in notes]
    if not kept:
        return None
    words: dict[str, str] = {}
    for k, name in enumerate(kept):
        words[f"f{k}"], words[f"n{k}"] = name, notes[name]
    parts = [f"{{f{k}}} stands for {{n{k}}}" if k == 0 else f"{{f{k}}}, for {{n{k}}}"
             for k in range(len(kept))]
    return "Here " + "; ".join(parts) + ".", words, kept


class Bound(Text):
    """Text whose numbers all come from value keys, e.g. ``Head {h}`` with ``h=dims...``.

    It checks itself: every figure stands at its span, every word is a worksheet or
    lesson word, and no other digit is left. Ligatures are off, so character ``i`` of the
    text is glyph ``i`` (a space is an empty dot), which lets a section end record where
    each figure was drawn.

    Attributes
    ----------
    figures
        ``(key, display text)`` of each number in the text, in template order.
    spans
        ``(start, end)`` of each figure in the text.
    words
        Worksheet words placed in the text (not numbers, whatever they contain).
    """

    def __init__(self, text: str, figures: Sequence[tuple[str, str]],
                 spans: Sequence[tuple[int, int]], words: Sequence[str] = (),
                 **kwargs: Any) -> None:
        self.figures, self.spans, self.words = tuple(figures), tuple(spans), tuple(words)
        _check_bound(text, self.figures, self.spans, self.words)
        kwargs.setdefault("font", FONT)
        super().__init__(text, disable_ligatures=True, **kwargs)

    def rebind(self, filled: Filled, words: Sequence[str]) -> Bound:
        """Take the figures of another filling of the same text (for a laid-out copy)."""
        _check_bound(self.original_text, filled.figures, filled.spans, tuple(words))
        self.figures, self.spans, self.words = filled.figures, filled.spans, tuple(words)
        return self

    def figure_glyphs(self, index: int) -> list[VMobject]:
        """The drawn glyphs of figure ``index``."""
        start, end = self.spans[index]
        return [glyph for glyph in self.submobjects[start:end] if glyph.has_points()]

    def figures_span(self, first: int, last: int, before: int = 0, after: int = 0) -> VGroup:
        """The drawn glyphs from figure ``first`` to figure ``last``, with ``before`` and
        ``after`` characters more (a vector's brackets), to point at or colour."""
        start, end = self.spans[first][0] - before, self.spans[last][1] + after
        return VGroup(*(glyph for glyph in self.submobjects[start:end] if glyph.has_points()))


def _check_bound(text: str, figures: Sequence[tuple[str, str]],
                 spans: Sequence[tuple[int, int]], words: Sequence[str]) -> None:
    if len(figures) != len(spans):
        raise ValueError(f"text {text!r}: {len(figures)} figures but {len(spans)} spans")
    rest = list(text)
    for (key, shown), (start, end) in zip(figures, spans, strict=True):
        if text[start:end] != shown:
            raise ValueError(f"text {text!r}: figure {key} = {shown!r} is not at {start}:{end}")
        rest[start:end] = [" "] * (end - start)
    left = "".join(rest)
    allowed = lesson_words()
    for word in words:
        if word not in allowed:
            raise ValueError(f"text {text!r}: {word!r} is neither a worksheet word nor a "
                             "lesson word")
        left = left.replace(word, " ", 1)
    _no_digits(left, f"text {text!r} outside its figures:")


class Word(Text):
    """A token from the worksheet, shown literally (never parsed as markup)."""

    def __init__(self, token: str, **kwargs: Any) -> None:
        check_word(token)
        self.token = token
        kwargs.setdefault("font", FONT)
        super().__init__(token, **kwargs)


def check_word(token: str) -> None:
    """Refuse a token that is neither a worksheet word nor a lesson word."""
    if token not in lesson_words():
        raise ValueError(f"{token!r} is not a word of the worksheet")


def lighten(mob: Mobject) -> Mobject:
    """Drop what a laid-out text keeps only for its own making: the parsed SVG paths of
    its glyphs, and the SVG's groups by id (which only ``Tex`` reads).

    Manim deep-copies every mobject an animation touches. The path objects cost about six
    times the rest of a glyph, and the groups by id (one group per SVG element, about
    three per glyph) two thirds of what is left.
    """
    for part in mob.get_family():
        if getattr(part, "path_obj", None) is not None:
            part.path_obj = None
        if getattr(part, "id_to_vgroup_dict", None):
            part.id_to_vgroup_dict = {}
    return mob


def standing(text: Mobject) -> list[Mobject]:
    """The glyphs of a text that stand on its baseline: letters and digits without tails.

    When a ligature (such as "ff") leaves fewer glyphs than characters, every glyph at
    least half as tall as the tallest counts instead; most of them stand on the line.
    """
    if getattr(text, "disable_ligatures", False):  # one glyph (or empty dot) per character
        return [g for c, g in zip(text.original_text, text.submobjects, strict=True)
                if c.isascii() and c.isalnum() and c not in "gjpqyQ"]
    chars = [c for c in text.original_text if not c.isspace()]
    glyphs = [g for g in text.submobjects if g.height > 0]
    if len(chars) != len(text.submobjects):
        tallest = max((g.height for g in glyphs), default=0.0)
        return [g for g in glyphs if g.height >= tallest / 2]
    return [g for c, g in zip(chars, text.submobjects, strict=True)
            if c.isascii() and c.isalnum() and c not in "gjpqyQ"]


def baseline(text: Mobject) -> float:
    """Where a text's letters stand (its bottom when no glyph is known to stand there).

    Centring texts in a row makes "heads" sit higher than "[64, 64]"; aligning on this
    line keeps rows level whatever ascenders or descenders they have.
    """
    bottoms = sorted(g.get_bottom()[1] for g in standing(text))
    return bottoms[len(bottoms) // 2] if bottoms else float(text.get_bottom()[1])


def on_baseline(words: VGroup, buff: float) -> VGroup:
    """Set text objects side by side on one shared baseline, as printed words sit."""
    words.arrange(RIGHT, buff=buff)
    line = baseline(words[0])
    for word in words[1:]:
        word.shift(UP * (line - baseline(word)))
    return words
