"""The scene kit: bound figures, captions, sections with a figure manifest, components.

Every number a scene shows is a :class:`Bound` text made from value keys through the
shared formatter; captions are made the same way by :meth:`LectureScene.say`. At each
section end the scene records what is on screen, read back from its mobjects, and at the
end writes ``<Scene>.figures.json`` beside the video.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, is_dataclass
from functools import cache
from pathlib import Path
from string import Formatter
from typing import Any

import inflect
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    Group,
    Line,
    Mobject,
    Scene,
    SurroundingRectangle,
    Text,
    VGroup,
    VMobject,
    config,
)
from manim.animation.animation import Wait, prepare_animation
from manim.utils.family import extract_mobject_family_members

from narration.text import spoken_text
from narration.voices import Speech, Voice, open_voice
from scenes.order import check_limits
from scenes.palette import BACKGROUND, HEAD_COLOURS, INK, MUTED, NEGATIVE, blend
from worksheet import DEFAULT_WORKSHEET, Values, Worksheet, compute_values, load_worksheet

__all__ = [
    "FONT",
    "HEAD_COLOURS",
    "INK",
    "LONGEST_STILL",
    "MONO",
    "MUTED",
    "NEGATIVE",
    "SAFE_BOTTOM",
    "Bound",
    "Fade",
    "LectureScene",
    "RecordingValues",
    "Word",
    "baseline",
    "current_lesson",
    "fade_in",
    "fade_out",
    "fill",
    "fit",
    "joined",
    "lighten",
    "on_baseline",
    "separator",
    "standing",
    "vector",
]

FONT = "DejaVu Sans"
MONO = "DejaVu Sans Mono"
NUMBER_SIZE = 22
WORD_SIZE = 24
TITLE_SIZE = 34
LESSON_WORDS: frozenset[str] = frozenset()
"""Words the lesson itself brings to ``{slot}`` texts, besides the worksheet's strings."""
CAPTION_WORDS_PER_SECOND = 2.8
MIN_CAPTION_SECONDS = 2.0
BREATH = 0.35
"""Least quiet after a spoken sentence before the next one; a step played in between
counts toward it."""
LONGEST_SILENCE = 1.5
"""Longer quiet stretches in a narrated scene are marked with :meth:`LectureScene.silence`."""

SAFE_BOTTOM = -config.frame_height / 2 + 0.15 * config.frame_height
"""Nothing is drawn below this line: the bottom 15% is where a player puts subtitles."""
LONGEST_STILL = 8.0
"""The longest stretch, in seconds, in which nothing on screen moves."""

_DIGIT = re.compile(r"\d")
_ENGLISH = inflect.engine()
_SLOT = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


@cache
def _lesson(path: str, stamp: float) -> tuple[Worksheet, Values]:
    ws = load_worksheet(path)
    return ws, compute_values(ws)


def _current() -> tuple[str, float]:
    path = Path(os.environ.get("LECTURE_WORKSHEET") or DEFAULT_WORKSHEET)
    return str(path), path.stat().st_mtime if path.exists() else 0.0


def current_lesson() -> tuple[Worksheet, Values]:
    """The worksheet named by ``$LECTURE_WORKSHEET`` (or the default) and its values."""
    return _lesson(*_current())


@cache
def _voice(engine: str, model: str, cache_dir: str) -> Voice:
    return open_voice(engine, Path(model) if model else None,
                      Path(cache_dir) if cache_dir else None)


def lesson_voice() -> Voice:
    """The voice named by ``$LECTURE_NARRATION`` (``piper``, the default; ``espeak``;
    ``none``), ``$LECTURE_VOICE`` (a Piper model) and ``$LECTURE_SPEECH_CACHE``."""
    return _voice(os.environ.get("LECTURE_NARRATION") or "piper",
                  os.environ.get("LECTURE_VOICE") or "",
                  os.environ.get("LECTURE_SPEECH_CACHE") or "")


@cache
def _words(path: str, stamp: float) -> frozenset[str]:
    return _lesson(path, stamp)[0].words | LESSON_WORDS


def lesson_words() -> frozenset[str]:
    """Words a scene may show or say besides bound numbers: the worksheet's own strings
    and the fixed lesson vocabulary."""
    return _words(*_current())


class RecordingValues:
    """The values, remembering every key a scene reads (its dependencies)."""

    def __init__(self, values: Values) -> None:
        self._values = values
        self.read: set[str] = set()

    def text(self, key: str) -> str:
        self.read.add(key)
        return self._values.text(key)

    def value(self, key: str) -> Any:
        self.read.add(key)
        return self._values.value(key)

    def spoken(self, key: str) -> str:
        self.read.add(key)
        return self._values.spoken(key)


class RecordingWorksheet:
    """The worksheet, remembering every fact a scene reads: its words, names, order and
    sizes (``sentences``, ``lesson.features``, ``n_heads``...), the dependencies that are
    not values."""

    def __init__(self, node: Any, facts: set[str] | None = None, path: str = "") -> None:
        self._node, self._path = node, path
        self.facts: set[str] = set() if facts is None else facts

    def __getattr__(self, name: str) -> Any:
        node = getattr(self._node, name)
        path = f"{self._path}.{name}" if self._path else name
        if is_dataclass(node):
            return RecordingWorksheet(node, self.facts, path)
        if callable(node):
            raise AttributeError(f"scenes read worksheet facts, not methods such as {path}()")
        if isinstance(node, Mapping):
            return _RecordingMapping(node, self.facts, path)
        self.facts.add(path)
        return node


class _RecordingMapping(Mapping[str, Any]):
    """A worksheet mapping (sentences, targets): looking up one entry records that entry;
    going through all of them records the whole mapping, its order included."""

    def __init__(self, node: Mapping[str, Any], facts: set[str], path: str) -> None:
        self._node, self._facts, self._path = node, facts, path

    def __getitem__(self, key: str) -> Any:
        self._facts.add(f"{self._path}.{key}")
        return self._node[key]

    def __iter__(self) -> Iterator[str]:
        self._facts.add(self._path)
        return iter(self._node)

    def __len__(self) -> int:
        self._facts.add(self._path)
        return len(self._node)


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
            made[word] = _ENGLISH.plural_verb(spec[1:], count)
            parts.append("{" + word + "}")
        elif spec.startswith("all "):
            noun = _ENGLISH.plural(spec[4:], count)
            if count == 2:
                made[word] = f"both {noun}"
                parts.append("{" + word + "}")
            else:
                made[word] = noun
                parts.append("all {" + slot + "} {" + word + "}")
        else:
            made[word] = _ENGLISH.plural(spec, count)
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
    return Filled("".join(parts), tuple(figures), tuple(spans), spoken)


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
        if token not in lesson_words():
            raise ValueError(f"{token!r} is not a word of the worksheet")
        self.token = token
        kwargs.setdefault("font", FONT)
        super().__init__(token, **kwargs)


@dataclass
class CaptionRecord:
    text: str
    start: float
    end: float
    figures: list[tuple[str, str]]
    template: str
    slots: dict[str, str]
    words: dict[str, str]
    spoken: str
    speech: Speech | None
    """What the voice said and where it is; ``None`` when the scene is silent."""


@dataclass
class SilenceRecord:
    """A stretch the scene keeps silent on purpose, and why."""

    start: float
    end: float
    why: str


@dataclass
class TextRecord:
    """One text object visible at a section end."""

    kind: str
    text: str
    figures: list[tuple[str, str]]
    words: list[str]
    box: tuple[float, float, float, float]  # left, bottom, right, top in frame units
    font_size: float  # effective size after any scaling
    pixels: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Per figure: where its glyphs were drawn, ``(left, top, right, bottom)`` in pixels."""
    colours: list[str] = field(default_factory=list)
    """The fill colours of its glyphs (``#RRGGBB``, after their opacity over what is behind)."""
    behind: str = BACKGROUND
    """What is behind the text's centre: the fills under it, blended in drawing order."""
    figure_colours: list[str] = field(default_factory=list)
    """Per figure: the fill colour its glyphs were given (``#RRGGBB``)."""


@dataclass
class SectionRecord:
    name: str
    frame: int = 0
    """Index of the section's last video frame (counted from zero)."""
    texts: list[TextRecord] = field(default_factory=list)

    @property
    def figures(self) -> list[tuple[str, str]]:
        return [figure for record in self.texts for figure in record.figures]

    @property
    def placed(self) -> list[tuple[str, str, tuple[float, float, float, float]]]:
        """``(key, text, pixel box)`` of every figure on screen."""
        return [(key, text, box) for record in self.texts
                for (key, text), box in zip(record.figures, record.pixels, strict=True)]


def pixel_box(glyphs: Sequence[Mobject]) -> tuple[float, float, float, float]:
    """Where glyphs are drawn in the rendered frame: ``(left, top, right, bottom)`` pixels."""
    left = min(g.get_left()[0] for g in glyphs)
    right = max(g.get_right()[0] for g in glyphs)
    bottom = min(g.get_bottom()[1] for g in glyphs)
    top = max(g.get_top()[1] for g in glyphs)
    scale_x = config.pixel_width / config.frame_width
    scale_y = config.pixel_height / config.frame_height

    def px(x: float) -> float:
        return round((x + config.frame_width / 2) * scale_x, 2)

    def py(y: float) -> float:
        return round((config.frame_height / 2 - y) * scale_y, 2)

    return px(left), py(top), px(right), py(bottom)


def _hex(colour: Any) -> str:
    return str(colour.to_hex())[:7].upper()


def _drawn_under(shapes: Sequence[VMobject], point: Any) -> str:
    """The colour at ``point`` from filled shapes drawn in order over the background."""
    colour = BACKGROUND
    for shape in shapes:
        left, bottom = shape.get_corner(DOWN + LEFT)[:2]
        right, top = shape.get_corner(UP + RIGHT)[:2]
        if left <= point[0] <= right and bottom <= point[1] <= top:
            colour = blend(_hex(shape.get_fill_color()), colour,
                           float(shape.get_fill_opacity()))
    return colour


def _visible(mob: Mobject) -> bool:
    return isinstance(mob, VMobject) and (
        float(mob.get_fill_opacity()) > 0.01 or float(mob.get_stroke_opacity()) > 0.01)


class LectureScene(Scene):
    """Base of every lecture scene: bound numbers, narrated steps, recorded sections.

    Subclasses write ``construct`` with :meth:`num`, :meth:`bound`, :meth:`word`,
    :meth:`label`, :meth:`say` and :meth:`section`; they never format or compute numbers.
    """

    def setup(self) -> None:
        worksheet, values = current_lesson()
        check_limits(worksheet)
        self._sheet = worksheet  # unrecorded: only for the manifest header
        self.ws = RecordingWorksheet(worksheet)
        self.v = RecordingValues(values)
        self.voice = lesson_voice()
        self.sections: list[SectionRecord] = []
        self.captions: list[CaptionRecord] = []
        self.silences: list[SilenceRecord] = []
        self._spoken_until = 0.0  # when the last sentence ended
        self._section = "opening"
        self._texts: dict[tuple[Any, ...], Mobject] = {}
        self._pointer: Mobject | None = None
        self._heading: Mobject | None = None
        self.moves: list[tuple[float, float]] = []
        """When something on screen moved: the span of every animation but a wait."""
        self.lowest: tuple[float, float, str] = (math.inf, 0.0, "")
        """The lowest drawn point after any animation: ``(y, time, what)``."""

    def _once(self, key: tuple[Any, ...], make: Callable[[], Mobject]) -> Any:
        """Lay out each distinct text once (Pango and the SVG parse are slow); copy it
        after that. Copies are cheap because every text is lightened."""
        if key not in self._texts:
            self._texts[key] = lighten(make())
        return self._texts[key].copy()

    # ----------------------------------------------------------------- making text

    def num(self, key: str, size: float = NUMBER_SIZE, colour: str = INK,
            mono: bool = True) -> Bound:
        """One number, drawn from its key."""
        return self.bound("{x}", size, colour, mono=mono, x=key)

    def bound(self, template: str, size: float = WORD_SIZE, colour: str = INK,
              mono: bool = False, words: Mapping[str, str] | None = None,
              **keys: str) -> Bound:
        """Text with numbers filled in from keys: ``bound("Head {h}", h="dims.…")``."""
        filled = fill(template, self.v, keys, words)
        shown = tuple((words or {}).values())
        made = self._once(("bound", filled.text, size, colour, mono), lambda: Bound(
            filled.text, filled.figures, filled.spans, shown, font_size=size, color=colour,
            font=MONO if mono else FONT))
        made.rebind(filled, shown)
        for index, (_, text) in enumerate(filled.figures):
            if text.startswith("−"):  # a negative number: its own colour, wherever it is
                for glyph in made.figure_glyphs(index):
                    glyph.set_fill(NEGATIVE)
        return made

    def word(self, token: str, size: float = WORD_SIZE, colour: str = INK) -> Word:
        """A vocabulary word or token, shown literally."""
        return self._once(("word", token, size, colour),
                          lambda: Word(token, font_size=size, color=colour))

    def label(self, text: str, size: float = WORD_SIZE, colour: str = INK) -> Text:
        """Plain words; refuses digits, which must come from keys."""
        _no_digits(text, "label")
        return self._once(("label", text, size, colour),
                          lambda: Text(text, font=FONT, font_size=size, color=colour))

    def title(self, text: str, **keys: str) -> Bound:
        """The scene's heading at the top edge."""
        heading = self.bound(text, TITLE_SIZE, INK, **keys)
        return heading.to_edge(UP, buff=0.35)

    def head_colour(self, head: int) -> str:
        return HEAD_COLOURS[(head - 1) % len(HEAD_COLOURS)]

    def head_label(self, head: int, size: float = WORD_SIZE) -> Bound:
        """``Head N`` in the head's colour, N bound to ``dims.head_numbers``."""
        return self.bound("Head {h}", size, self.head_colour(head),
                          h=f"dims.head_numbers[{head - 1}]")

    # ----------------------------------------------------------------- timeline

    def play(self, *animations: Any, **kwargs: Any) -> None:
        """Play as Manim does, noting when the picture moves and its lowest point."""
        start = float(self.time)
        super().play(*animations, **kwargs)
        if not all(isinstance(a, Wait) for a in animations):
            self.moves.append((start, float(self.time)))
        self._note_lowest()

    def _note_lowest(self) -> None:
        for top in self.mobjects:
            for part in top.family_members_with_points():
                if not _visible(part):
                    continue
                y = float(part.points[:, 1].min())
                if y < self.lowest[0]:
                    owner = getattr(top, "original_text", type(top).__name__)
                    self.lowest = (y, float(self.time), str(owner)[:60])

    def stills(self) -> list[tuple[float, float]]:
        """Stretches in which nothing moves, longest first."""
        edges = [0.0]
        for start, end in sorted(self.moves):
            edges += [start, end]
        edges.append(float(self.time))
        gaps = [(a, b) for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a]
        return sorted(gaps, key=lambda gap: gap[0] - gap[1])

    # ----------------------------------------------------------------- narration

    def say(self, template: str, *animations: Any, run_time: float | None = None,
            words: Mapping[str, str] | None = None, **keys: str) -> None:
        """Narrate one step: a caption (numbers from keys) spoken while its animations play.

        The voice sets the pace: the animations play within the sentence (faster when they
        would outlast it), the step holds until the sentence ends, and a short breath
        follows. The caption's cue is the sentence's time. Without a voice, the step lasts
        as long as the caption takes to read.
        """
        filled = fill(template, self.v, keys, words)
        speech = self.voice.speak(filled.spoken)
        reading = max(MIN_CAPTION_SECONDS, len(filled.text.split()) / CAPTION_WORDS_PER_SECOND)
        length = speech.seconds if speech else reading
        if speech:
            if self.captions:
                self.hold_until(self._spoken_until + BREATH)
            self._guard_silence(f"before caption {len(self.captions) + 1}")
        start = float(self.time)
        if animations:
            made = [prepare_animation(animation) for animation in animations]
            natural = run_time or max(animation.run_time for animation in made)
            self.play(*made, run_time=min(natural, length) if speech else natural)
        self.hold_until(start + length)
        end = start + length if speech else float(self.time)
        if speech:
            self._spoken_until = end
        self.add_subcaption(filled.text, duration=end - start, offset=start - float(self.time))
        self.captions.append(CaptionRecord(filled.text, start, end, list(filled.figures),
                                           template, dict(keys), dict(words or {}),
                                           filled.spoken, speech))

    def _guard_silence(self, where: str) -> None:
        """Refuse an unmarked stretch without speech longer than :data:`LONGEST_SILENCE`
        in a narrated scene: the author shortens the steps or marks them."""
        start, end = self._spoken_until, float(self.time)
        marked = sum(max(0.0, min(end, s.end) - max(start, s.start)) for s in self.silences)
        if end - start - marked > LONGEST_SILENCE + 0.5 / config.frame_rate:
            raise ValueError(
                f"{type(self).__name__}: {end - start - marked:.2f} s without speech {where} "
                f"(the limit is {LONGEST_SILENCE} s); shorten the steps in between or wrap "
                "them in `with self.silence(\"why\"):`")

    def hold_until(self, moment: float) -> None:
        """Wait until ``moment`` (seconds into the scene), to the next whole frame."""
        if self.renderer.skip_animations:
            if moment > float(self.time):
                self.wait(moment - float(self.time))
            return
        frames = math.ceil((moment - float(self.time)) * config.frame_rate - 1e-6)
        if frames > 0:
            self.wait((frames + 0.5) / config.frame_rate)

    @contextmanager
    def silence(self, why: str) -> Iterator[None]:
        """Mark what the block plays as a deliberate silence (a transition, a pause to
        look): narrated scenes keep any other silence under :data:`LONGEST_SILENCE`."""
        _no_digits(why, "silence reason")
        start = float(self.time)
        yield
        self.silences.append(SilenceRecord(start, float(self.time), why))

    # ----------------------------------------------------------------- sections

    def section(self, name: str) -> None:
        """End the current section (recording what is on screen) and start ``name``."""
        self._record_section()
        self._section = name
        self.next_section(name)

    def _record_section(self) -> None:
        if self._section == "opening" and not self.mobjects:
            return
        frames = round(float(self.time) * config.frame_rate)
        record = SectionRecord(self._section, max(0, frames - 1))
        self._note_lowest()  # also what was added without an animation
        seen: set[int] = set()
        texts = [m for top in self.mobjects for m in top.get_family() if isinstance(m, Text)]
        in_text = {id(part) for t in texts for part in t.get_family()}
        drawn = extract_mobject_family_members(self.mobjects, use_z_index=True)
        order = {id(m): i for i, m in enumerate(drawn)}
        shapes = [m for m in drawn if id(m) not in in_text and isinstance(m, VMobject)
                  and float(m.get_fill_opacity()) > 0.01]
        for top in self.mobjects:
            for mob in top.get_family():
                if id(mob) in seen or not isinstance(mob, Text) or not _visible(mob):
                    continue
                seen.add(id(mob))
                left, bottom = mob.get_corner(DOWN + LEFT)[:2]
                right, top_edge = mob.get_corner(UP + RIGHT)[:2]
                kind = "bound" if isinstance(mob, Bound) else \
                    "word" if isinstance(mob, Word) else "text"
                figures = list(mob.figures) if isinstance(mob, Bound) else []
                words = list(mob.words) if isinstance(mob, Bound) else \
                    [mob.token] if isinstance(mob, Word) else []
                pixels = [pixel_box(mob.figure_glyphs(i)) for i in range(len(figures))] \
                    if isinstance(mob, Bound) else []
                glyphs = [g for g in mob.submobjects if g.has_points()]
                first = min((order.get(id(g), 0) for g in glyphs), default=0)
                behind = _drawn_under([m for m in shapes if order[id(m)] < first],
                                      mob.get_center())
                colours = sorted({blend(_hex(g.get_fill_color()), behind,
                                        float(g.get_fill_opacity())) for g in glyphs
                                  if float(g.get_fill_opacity()) > 0.01})
                painted = [_hex(mob.figure_glyphs(i)[0].get_fill_color())
                           for i in range(len(figures))] if isinstance(mob, Bound) else []
                record.texts.append(TextRecord(kind, mob.original_text, figures, words,
                                               (float(left), float(bottom), float(right),
                                                float(top_edge)), float(mob.font_size),
                                               pixels, colours, behind, painted))
        self.sections.append(record)

    def tear_down(self) -> None:
        if self.captions and self.captions[-1].speech:
            self.hold_until(self._spoken_until + BREATH)
            self._guard_silence("at the end")
        self._record_section()
        artifact = self.output_plan.primary_artifact
        if artifact is not None and not config.dry_run:
            path = Path(artifact).with_suffix(".figures.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.tmp")
            temporary.write_text(json.dumps(self.manifest(), indent=1, ensure_ascii=False)
                                 + "\n", encoding="utf-8")
            os.replace(temporary, path)

    def manifest(self) -> dict[str, Any]:
        """What this scene showed: figures per section end, keys per caption, keys read."""

        def figures(pairs: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
            return [{"key": key, "text": text} for key, text in pairs]

        return {
            "scene": type(self).__name__,
            "worksheet": {"path": self._sheet.source, "sha256": self._sheet.sha256},
            "duration": round(float(self.time), 3),
            "frame_rate": config.frame_rate,
            "frame_size": [config.pixel_width, config.pixel_height],
            "sections": [{"name": s.name, "frame": s.frame,
                          "figures": [{"key": key, "text": text, "box": list(box)}
                                      for key, text, box in s.placed]}
                         for s in self.sections],
            "narration": {"engine": self.voice.engine, "voice": self.voice.id},
            "captions": [{"index": i, "start": round(c.start, 3), "end": round(c.end, 3),
                          "text": c.text, "template": c.template, "slots": c.slots,
                          "words": c.words, "figures": figures(c.figures),
                          "spoken": c.spoken,
                          "speech": None if c.speech is None else {
                              "file": str(c.speech.path), "sha256": c.speech.sha256,
                              "seconds": round(c.speech.seconds, 4)}}
                         for i, c in enumerate(self.captions, start=1)],
            "silences": [{"start": round(x.start, 3), "end": round(x.end, 3), "why": x.why}
                         for x in self.silences],
            "longest_still": [round(t, 3) for t in (self.stills() or [(0.0, 0.0)])[0]],
            "lowest": {"y": round(self.lowest[0], 3) if self.lowest[2] else None,
                       "time": round(self.lowest[1], 3), "what": self.lowest[2]},
            "reads": sorted(self.v.read),
            "facts": sorted(self.ws.facts),
        }

    # ----------------------------------------------------------------- components

    def token_row(self, tokens: Sequence[str], size: float = WORD_SIZE,
                  width: float | None = None, buff: float = 0.22) -> VGroup:
        """The sentence's tokens in a row, shrunk to ``width`` if needed."""
        row = VGroup(*(self.word(t, size) for t in tokens)).arrange(RIGHT, buff=buff)
        limit = width or config.frame_width - 1.0
        if row.width > limit:
            row.scale_to_fit_width(limit)
        return row

    def matrix(self, key: str, rows: Sequence[int] | None = None,
               row_labels: Sequence[Mobject] | None = None,
               col_labels: Sequence[Mobject] | None = None, size: float = NUMBER_SIZE,
               colour: str = INK, h_buff: float = 0.3, v_buff: float = 0.14) -> VGroup:
        """A matrix of bound numbers with square brackets and optional labels.

        ``rows`` picks which rows of the value to show (all by default); wide matrices
        elide middle columns with "…". The result has attributes ``cells`` (rows of
        :class:`Bound`), ``body`` and ``brackets``.
        """
        value = self.v.value(key)
        is_vector = not isinstance(value[0], list)
        columns = [0] if is_vector else shown_indices(len(value[0]))
        width = len(columns)
        picked = list(range(len(value))) if rows is None else list(rows)

        def cell(r: int, c: int | None) -> Mobject:
            if c is None:
                return self.label("…", size, colour)
            return self.num(f"{key}[{r}]" if is_vector else f"{key}[{r}][{c}]", size, colour)

        cells = [[cell(r, c) for c in columns] for r in picked]
        body = VGroup(*(item for row in cells for item in row))
        body.arrange_in_grid(rows=len(picked), cols=width, buff=(h_buff, v_buff),
                             cell_alignment=RIGHT)
        brackets = _brackets(body)
        group = VGroup(body, brackets)
        if row_labels is not None:
            labels = VGroup(*row_labels)
            edge = brackets[0].get_left()[0] - 0.2
            for label, row in zip(labels, cells, strict=True):
                label.set_y(row[0].get_y())
                label.shift(RIGHT * (edge - label.get_right()[0]))
            group.add(labels)
        if col_labels is not None:
            heads = VGroup(*col_labels)
            for label, c in zip(heads, range(width), strict=True):
                label.next_to(cells[0][c], UP, buff=0.25)
            group.add(heads)
        group.cells = cells
        group.body = body
        group.brackets = brackets
        return group

    def fan(self, sources: Sequence[Mobject], receiver: Mobject, weights_key: str,
            colour: str, max_width: float = 14.0) -> VGroup:
        """Arrows from every source to the receiver, stroke width ∝ the computed weight."""
        weights = self.v.value(weights_key)
        arrows = VGroup()
        for source, weight in zip(sources, weights, strict=True):
            width = max(0.6, max_width * float(weight))
            arrows.add(Arrow(source.get_bottom(), receiver.get_top(), buff=0.08,
                             stroke_width=width, color=colour,
                             max_tip_length_to_length_ratio=0.06,
                             stroke_opacity=0.35 + 0.65 * float(weight)))
        return arrows

    def vec(self, key: str, size: float = NUMBER_SIZE, colour: str = INK,
            template: str = "{v}") -> Bound:
        """A vector value as ``[a, b, …]``, optionally inside a template with slot ``{v}``."""
        length = len(self.v.value(key))
        inner, keys = vector("x", key, length)
        return self.bound(template.replace("{v}", inner), size, colour, mono=True, **keys)

    def column(self, header: Mobject, cells: Sequence[Mobject], ys: Sequence[float],
               header_y: float) -> VGroup:
        """A table column: ``cells[j]`` at height ``ys[j]``, right-aligned under ``header``."""
        for cell, y in zip(cells, ys, strict=True):
            cell.move_to([-cell.width / 2, y, 0])
        header.move_to([-header.width / 2, header_y, 0])
        column = VGroup(header, *cells)
        column.cells = list(cells)
        column.header = header
        return column

    def highlight(self, mob: Mobject, colour: str) -> SurroundingRectangle:
        return SurroundingRectangle(mob, color=colour, buff=0.06, stroke_width=3)

    # ----------------------------------------------------------------- pointing

    def retitle(self, heading: Mobject, text: str, **keys: str) -> Animation:
        """Change the heading when the topic changes: the new one fades in where the old
        one was (keep using the returned heading's place; ``heading`` leaves the scene)."""
        new = self.title(text, **keys)
        self._heading = new
        return AnimationGroup(Fade(heading, appear=False), Fade(new))

    def point_at(self, *mobs: Mobject, colour: str = INK) -> Animation:
        """Outline what the voice is naming now (an outline, never a fill, so the value
        inside keeps its colour); the previous pointer goes away in the same step."""
        outline = SurroundingRectangle(Group(*mobs), color=colour, buff=0.08,
                                       stroke_width=3.5, corner_radius=0.05)
        old, self._pointer = self._pointer, outline
        if old is None:
            return Create(outline)
        return AnimationGroup(Fade(old, appear=False), Create(outline))

    def unpoint(self) -> Animation | None:
        """Take the pointer away (``None`` when nothing is pointed at)."""
        old, self._pointer = self._pointer, None
        return None if old is None else Fade(old, appear=False)


def _brackets(body: Mobject, pad: float = 0.12, arm: float = 0.12) -> VGroup:
    """Square brackets around a block of numbers."""
    left, right = body.get_left()[0] - pad, body.get_right()[0] + pad
    bottom, top = body.get_bottom()[1] - pad, body.get_top()[1] + pad

    def bracket(x: float, direction: int) -> VMobject:
        shape = VMobject(stroke_color=MUTED, stroke_width=2)
        shape.set_points_as_corners([[x + direction * arm, top, 0], [x, top, 0],
                                     [x, bottom, 0], [x + direction * arm, bottom, 0]])
        return shape

    return VGroup(bracket(left, 1), bracket(right, -1))


def fit(mob: Mobject, width: float | None = None, height: float | None = None) -> Mobject:
    """Shrink (never grow) ``mob`` to fit the given box."""
    if width is not None and mob.width > width:
        mob.scale_to_fit_width(width)
    if height is not None and mob.height > height:
        mob.scale_to_fit_height(height)
    return mob


def separator(width: float) -> Line:
    return Line(LEFT * width / 2, RIGHT * width / 2, stroke_color=MUTED, stroke_width=1.5)


def column_shifts(columns: Sequence[Mobject], left: float, gap: float = 0.55) -> list[float]:
    """Horizontal shifts that set columns side by side from ``left``, in order."""
    shifts, x = [], left
    for column in columns:
        shifts.append(x - column.get_left()[0])
        x += column.width + gap
    return shifts


def lighten(mob: Mobject) -> Mobject:
    """Drop the parsed SVG paths that text glyphs keep once their points are drawn.

    Manim deep-copies every mobject an animation touches, and those path objects make up
    most of the cost (about six times the rest of a glyph).
    """
    for part in mob.get_family():
        if getattr(part, "path_obj", None) is not None:
            part.path_obj = None
    return mob


class Fade(Animation):
    """Fade mobjects in or out by scaling each part's own opacity, without copying them.

    Manim's ``FadeIn``/``FadeOut`` deep-copy everything they touch, which is slow for
    tables of numbers; this keeps every part's fill and stroke opacities (so shading by
    weight survives) and scales them by the animation's progress. A fade-out takes the
    mobjects off screen and restores their opacities.
    """

    def __init__(self, *mobjects: Mobject, appear: bool = True, **kwargs: Any) -> None:
        self.members, self.appear = mobjects, appear
        group = Group(*mobjects)
        self.parts = [(part, part.fill_rgbas[:, 3].copy(), part.stroke_rgbas[:, 3].copy())
                      for part in group.family_members_with_points()
                      if isinstance(part, VMobject)]
        super().__init__(group, **kwargs)

    def create_starting_mobject(self) -> Mobject:
        return self.mobject

    def _setup_scene(self, scene: Scene) -> None:
        if self.appear:
            scene.add(*self.members)

    def interpolate_mobject(self, alpha: float) -> None:
        progress = self.rate_func(alpha)
        self.set_opacity(progress if self.appear else 1.0 - progress)

    def set_opacity(self, share: float) -> None:
        """Each part at ``share`` of its own opacities (written straight into its colours,
        which is much cheaper than ``set_fill`` for hundreds of glyphs)."""
        for part, fill, stroke in self.parts:
            part.fill_rgbas[:, 3] = fill * share
            part.stroke_rgbas[:, 3] = stroke * share

    def clean_up_from_scene(self, scene: Scene) -> None:
        super().clean_up_from_scene(scene)
        if not self.appear:
            scene.remove(*self.members)
            self.set_opacity(1.0)


def fade_in(*mobjects: Mobject) -> Fade:
    """Bring mobjects on screen, fading them in without copies."""
    return Fade(*mobjects)


def fade_out(*mobjects: Mobject) -> Fade:
    """Fade mobjects out without copies and take them off screen."""
    return Fade(*mobjects, appear=False)


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


# ---- components: layer

CODE_LITERALS: tuple[str, ...] = ("shape[-1]", ".triu(1)", ".softmax(-1)", "dim=-1")
"""The only digits a code listing may show: fixed PyTorch idioms naming an axis or a
diagonal, never a lesson number (those come from value keys, as everywhere else)."""
CODE_SIZE = 18
CODE_PITCH = 1.6
"""Line pitch of a code listing, in ems of its font."""
MAP_SIZE = 16
MAP_STAGES = ("embeddings", "heads", "concat", "W_O", "residual", "MLP", "prediction")
"""The stages of :func:`model_map`, left to right."""
_MAP_LABELS = {"embeddings": ("token", "+ position"), "concat": ("concat",),
               "W_O": ("W_O",), "residual": ("residual", "E + ΔE"), "MLP": ("MLP",),
               "prediction": ("next", "word")}


class CodeLine(Bound):
    """One line of a code listing in the monospace font, shown literally.

    Its digits may stand only inside :data:`CODE_LITERALS`. Each literal it holds is
    recorded as one of its words, so a section record accounts for every digit shown.
    """

    def __init__(self, line: str, size: float = CODE_SIZE, colour: str = INK) -> None:
        literals: list[str] = []
        rest = line
        for literal in CODE_LITERALS:
            literals += [literal] * rest.count(literal)
            rest = rest.replace(literal, " " * len(literal))
        _no_digits(rest, f"code line {line!r} outside its code literals {CODE_LITERALS}:")
        self.figures, self.spans, self.words = (), (), tuple(literals)
        Text.__init__(self, line, disable_ligatures=True, font=MONO, font_size=size,
                      color=colour)


@cache
def _advance(size: float) -> float:
    """The width of one character of the monospace font at ``size``."""
    return Text("x" * 20, font=MONO, font_size=size).width / 20


def code(source: str, size: float = CODE_SIZE, colour: str = INK) -> VGroup:
    """A short code listing, one :class:`CodeLine` per line, indentation kept and lines
    standing on evenly spaced baselines. The group's ``lines`` are the lines in order
    (``None`` for a blank line, which keeps its space)."""
    advance = _advance(size)
    pitch = CODE_PITCH * advance / 0.6  # DejaVu Sans Mono advances 0.6 em
    listing = VGroup()
    listing.lines = []
    for row, text in enumerate(source.strip("\n").splitlines()):
        body = text.lstrip(" ")
        if not body:
            listing.lines.append(None)
            continue
        line = lighten(CodeLine(body, size, colour))
        line.shift(RIGHT * ((len(text) - len(body)) * advance - line.get_left()[0])
                   + UP * (-row * pitch - baseline(line)))
        listing.add(line)
        listing.lines.append(line)
    return listing


def panel(content: Mobject, colour: str = MUTED, width: float = 0.0, buff: float = 0.15,
          stroke: float = 2.0) -> VGroup:
    """A rounded outline around ``content``, at least ``width`` wide: one stage or card."""
    frame = SurroundingRectangle(content, color=colour, buff=buff, corner_radius=0.1,
                                 stroke_width=stroke)
    if frame.width < width:
        frame.stretch_to_fit_width(width)
    return VGroup(frame, content)


def model_map(scene: LectureScene, lit: str | Iterable[str] = (),
              size: float = MAP_SIZE) -> VGroup:
    """The whole model, small: token + position embeddings → one box per head (in its
    head colour) → concat → W_O → the residual (E + ΔE) → MLP → the next word.

    Stages named in ``lit`` (see :data:`MAP_STAGES`) are drawn bright, the rest muted, to
    say where the lecture is. It is never scaled, so its labels stay legible. The group's
    ``stages`` maps each stage to its box (``stages["heads"]`` groups the head boxes) and
    ``heads`` lists the head boxes in order.
    """
    from scenes.palette import FAINT  # imported here to leave the kit's header as it is

    bright = {lit} if isinstance(lit, str) else set(lit)
    unknown = bright - set(MAP_STAGES)
    if unknown:
        raise ValueError(f"model_map: no stage {sorted(unknown)}; stages: {MAP_STAGES}")

    def box(name: str) -> VGroup:
        colour = INK if name in bright else MUTED
        lines = VGroup(*(scene.label(text, size, colour) for text in _MAP_LABELS[name]))
        return panel(lines.arrange(DOWN, buff=0.06), INK if name in bright else FAINT,
                     buff=0.1, stroke=3.0 if name in bright else 1.5)

    heads = VGroup()
    for head in range(1, scene.ws.n_heads + 1):
        colour = scene.head_colour(head)
        made = panel(scene.head_label(head, size), colour, buff=0.08,
                     stroke=3.0 if "heads" in bright else 1.5)
        made[0].set_stroke(opacity=1.0 if "heads" in bright else 0.6)
        heads.add(made)
    heads.arrange(DOWN, buff=0.08)
    stages = {name: heads if name == "heads" else box(name) for name in MAP_STAGES}
    row = VGroup(*stages.values()).arrange(RIGHT, buff=0.45)
    wires = VGroup()

    def wire(start: Any, end: Any) -> None:
        wires.add(Arrow(start, end, buff=0.04, stroke_width=2, color=FAINT, tip_length=0.1,
                        max_tip_length_to_length_ratio=0.5))

    embeddings, concat = stages["embeddings"], stages["concat"]
    for head in heads:
        wire(embeddings.get_right(), head.get_left())
        wire(head.get_right(), concat.get_left())
    chain = MAP_STAGES[2:]
    for i in range(len(chain) - 1):
        wire(stages[chain[i]].get_right(), stages[chain[i + 1]].get_left())
    # The residual: the embedding rows skip past the heads and are added back.
    residual = stages["residual"]
    over = max(heads.get_top()[1], residual.get_top()[1]) + 0.18
    skip = VMobject(stroke_color=FAINT, stroke_width=2)
    skip.set_points_as_corners([embeddings.get_top(), [embeddings.get_x(), over, 0],
                                [residual.get_x(), over, 0], residual.get_top()])
    wires.add(skip)
    group = VGroup(wires, row)
    group.stages, group.heads = stages, list(heads)
    return group


# ---- components: combine


def weight_opacity(weight: float) -> float:
    """Fill opacity of a cell shaded by an attention weight (zero: nearly clear; one: full)."""
    return 0.06 + 0.94 * max(0.0, min(1.0, weight))


def weight_cell(colour: str, weight: float, width: float,
                height: float) -> tuple[VMobject, str]:
    """A cell shaded by ``weight`` in a head's ``colour``, and the text colour that reads on
    it (white or black, whichever contrasts more with the blended fill)."""
    from manim import Rectangle

    from scenes.palette import ink_on

    opacity = weight_opacity(weight)
    box = Rectangle(width=width, height=height, stroke_width=0, fill_color=colour,
                    fill_opacity=opacity)
    return box, ink_on(blend(colour, BACKGROUND, opacity))


class Cued(Animation):
    """Animations that each start at their own moment within one step, in their own time.

    Unlike ``Succession``, nothing of a later animation is on screen before it starts: each
    one joins the scene when its moment comes. When the step is played faster or slower
    than its natural length (as :meth:`LectureScene.say` fits it into the spoken sentence),
    every moment and duration scales with it.
    """

    def __init__(self, steps: Sequence[tuple[float, Animation]], **kwargs: Any) -> None:
        self.steps = [(start, prepare_animation(animation)) for start, animation in steps]
        self.natural = max((start + a.run_time for start, a in self.steps), default=0.0)
        self.started = [False] * len(self.steps)
        self.done = [False] * len(self.steps)
        self.scene: Scene | None = None
        kwargs.setdefault("run_time", max(self.natural, 1e-3))
        super().__init__(Group(), **{"rate_func": lambda t: t, **kwargs})

    def _setup_scene(self, scene: Scene) -> None:
        self.scene = scene

    def begin(self) -> None:
        self.interpolate(0.0)

    def _start(self, index: int) -> Animation:
        animation = self.steps[index][1]
        if not self.started[index]:
            animation._setup_scene(self.scene)
            animation.begin()
            self.started[index] = True
        return animation

    def _end(self, index: int) -> None:
        animation = self._start(index)
        animation.finish()
        if self.scene is not None:
            animation.clean_up_from_scene(self.scene)
        self.done[index] = True

    def interpolate(self, alpha: float) -> None:
        now = self.rate_func(alpha) * self.natural
        for index, (start, animation) in enumerate(self.steps):
            if self.done[index] or now < start:
                continue
            progress = (now - start) / animation.run_time if animation.run_time else 1.0
            if progress >= 1.0:
                self._end(index)
            else:
                self._start(index).interpolate(progress)

    def update_mobjects(self, dt: float) -> None:
        for index, (_, animation) in enumerate(self.steps):
            if self.started[index] and not self.done[index]:
                animation.update_mobjects(dt)

    def finish(self) -> None:
        for index in range(len(self.steps)):
            if not self.done[index]:
                self._end(index)

    def clean_up_from_scene(self, scene: Scene) -> None:
        self.finish()
        scene.remove(self.mobject)


def cued(template: str, cues: Sequence[tuple[str, Animation]], seconds: float | None = None,
         step: float = 0.6, opening: Sequence[Animation] = ()) -> Cued:
    """Animations played in order, each when the voice reaches its cue in ``template``.

    ``cues`` pairs a fragment of the template (a slot such as ``"{x}"`` or a word) with the
    animation to play as it is said; times are estimated from the fragment's place in the
    template over ``seconds`` (the caption's reading time by default), and each plays for
    ``step`` seconds. ``opening`` animations play together from the start, for their own
    run time (not stretched over the sentence, as ``say`` stretches the animations played
    beside a cued step). Pass the result to :meth:`LectureScene.say`, which fits it into
    the spoken sentence.
    """
    total = seconds or max(MIN_CAPTION_SECONDS,
                           len(template.split()) / CAPTION_WORDS_PER_SECOND)
    steps: list[tuple[float, Animation]] = [(0.0, prepare_animation(a)) for a in opening]
    at = 0.0
    for fragment, animation in cues:
        where = template.find(fragment)
        if where < 0:
            raise ValueError(f"cue {fragment!r} is not in the template {template!r}")
        start = max(at, total * where / max(1, len(template)) - step / 2)
        made = prepare_animation(animation)
        made.run_time = step
        steps.append((start, made))
        at = start + step
    return Cued(steps)
