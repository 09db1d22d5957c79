"""Hear every spoken figure back from a clip's sound track (``lecture check --audio``).

The manifests say what each caption says and when; this module proves it against the
encoded sound. For each caption it cuts the decoded AAC track to the caption's time span
and recognises that stretch offline with PocketSphinx (its bundled US English model),
under a grammar made of the caption's own words in which every number slot is left
open: the slot accepts *any* number of its display style, spelled from number words
generally (any whole number below a billion, any decimals of the style's length, a
sign, a power of ten, a shape's "by"). The recogniser is never told which number to
expect. Each slot's words are its own (``seven_s2`` is "seven" heard in slot 2), so what
it heard in each slot is read back with :func:`render.spoken.read_spoken`, the check's
own parser, and compared with the fresh display text.

The bundled model cannot always tell this voice's "sixteen" from "sixty", "thirteen"
from "thirty" or "four" from "forty". So when the caption is found in the sound but a
slot is heard as another number, that slot is heard once more within the *shape* of the
caption's reading (:func:`shaped_as`): the same kinds of number words in the same order,
each free within its kind (any digit, any teen, any tens word). The shape of "sixteen"
is that of every teen: the digits still come from the sound.

A sound track swapped for another clip's cannot pass: under each caption it holds other
words, or silence, where the caption's sentence is not found at all, or numbers that are
not the caption's.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from string import Formatter
from typing import Any

import numpy as np

from narration.text import speakable
from render.cores import map_per_core
from render.spoken import read_spoken
from worksheet import Style

__all__ = ["RATE", "CaptionJob", "ClipHearing", "HeardFigure", "HearingError", "Slot",
           "caption_grammar", "caption_jobs", "clip_samples", "hear_caption", "hear_clip",
           "hear_clips", "hear_figures", "hear_manifests", "require_recogniser", "said_as",
           "shaped_as", "slot_words"]

RATE = 16000
"""Samples per second the acoustic model was trained on."""
MARGIN = (0.15, 0.25)
"""Seconds of sound kept before and after a caption's span: a cue starts and ends with
its voice (the speech is cut to its voiced part), and cues are at least 0.35 s apart."""

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
          "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_KINDS = (("zero", *_ONES), _TEENS, _TENS)
_ENDING = {"voiceless": "S", "sibilant": "IH Z", "other": "Z"}
_ENDINGS = "(" + " | ".join(f"'s_{kind}" for kind in _ENDING) + ")"
"""A possessive after a slot ("Head {h}'s"), said as the number's ending needs."""
_SIBILANTS = {"S", "Z", "SH", "ZH", "CH", "JH"}
_VOICELESS = {"P", "T", "K", "F", "TH"}
_TOKEN = re.compile(r"[a-z0-9']+")


@dataclass(frozen=True)
class Slot:
    """A number slot of a caption: its key, display style and fresh display text."""

    name: str
    key: str
    style: Style
    expected: str


@dataclass(frozen=True)
class CaptionJob:
    """What to hear in one caption: its time span, template, word slots and number slots.

    ``words`` fill the slots said as written (a token, a model's words): no figures.
    ``spoken`` is the caption's own reading of each figure by key, the narration's spoken
    form of its fresh display text: the recogniser only ever gets its shape
    (:func:`shaped_as`), for a slot the open grammar heard as another number.
    """

    index: int
    start: float
    end: float
    template: str
    words: dict[str, str]
    slots: dict[str, Slot]
    spoken: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HeardFigure:
    """One spoken figure: what was expected, what the open grammar heard (``free``) and
    what was heard in the end (``heard``: when the open grammar heard another number, what
    is heard within the shape of the caption's reading)."""

    caption: int
    start: float
    key: str
    expected: str
    free: str | None
    heard: str | None

    @property
    def matched(self) -> bool:
        return self.heard == self.expected

    @property
    def shaped(self) -> bool:
        """Heard as shown only within the shape of the caption's reading."""
        return self.matched and self.free != self.expected


@dataclass
class ClipHearing:
    """Every spoken figure of one clip, heard; seconds of sound and of work (CPU)."""

    clip: str
    figures: list[HeardFigure] = field(default_factory=list)
    sound_seconds: float = 0.0
    seconds: float = 0.0
    error: str = ""

    @property
    def heard(self) -> int:
        return sum(1 for figure in self.figures if figure.matched)

    @property
    def heard_freely(self) -> int:
        """Figures heard as shown with every slot open."""
        return sum(1 for figure in self.figures if figure.matched and not figure.shaped)

    @property
    def share(self) -> float:
        """The share of the clip's spoken figures heard as shown (1 when it has none)."""
        return self.heard / len(self.figures) if self.figures else 1.0


# --------------------------------------------------------------------------- grammar


def _numbers(style: Style, tag: str) -> list[str]:
    """JSGF rules for any number of ``style``, every word tagged with its slot; the first
    rule is the slot's."""
    def words(names: Sequence[str]) -> str:
        return " | ".join(f"{name}_{tag}" for name in names)

    def rule(name: str) -> str:
        return f"<{name}_{tag}>"

    def said(word: str) -> str:
        return f"{word}_{tag}"

    rules = {
        "one": words(_ONES),
        "digit": f"{said('zero')} | {rule('one')}",
        "u100": f"{rule('one')} | ({words(_TENS)}) [{rule('one')}] | {words(_TEENS)}",
        "u1000": f"{rule('u100')} | {rule('one')} {said('hundred')} [{rule('u100')}]",
        "positive": f"{rule('u1000')} [{said('thousand')} [{rule('u1000')}]] | "
                    f"{rule('u1000')} {said('million')} [{rule('u1000')} {said('thousand')}] "
                    f"[{rule('u1000')}]",
        "whole": f"{said('zero')} | {rule('positive')}",
        "signed": f"[{said('minus')}] {rule('whole')}",
        "power": f"{said('times')} {said('ten')} {said('to')} {said('the')} [{said('minus')}] "
                 f"{rule('positive')}",
    }
    point = said("point")
    decimals = {
        Style.FIXED3: f"{point} {rule('digit')} {rule('digit')} {rule('digit')}",
        Style.FIXED1: f"{point} {rule('digit')}",
        Style.PARAM: f"[{point} ({rule('one')} | {rule('digit')} {rule('one')} | "
                     f"{rule('digit')} {rule('digit')} {rule('one')})]",
    }
    if style is Style.SHAPE:
        body = f"{rule('whole')} ({said('by')} {rule('whole')})*"
    elif style in (Style.COUNT, Style.INDEX, Style.WHOLE):
        body = rule("signed")
    elif style is Style.BELOW:
        body = f"{said('less')} {said('than')} {rule('one')} {rule('power')}"
    else:
        body = f"{rule('signed')} {decimals[style]} [{rule('power')}]"
    lines = [f"{rule('slot')} = {body};"]
    lines += [f"{rule(name)} = {text};" for name, text in rules.items()]
    return lines


def slot_words() -> list[str]:
    """Every word a number slot may hear, untagged."""
    return ["zero", *_ONES, *_TEENS, *_TENS, "hundred", "thousand", "million", "point",
            "minus", "times", "to", "the", "by", "less", "than"]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("-", " "))


def _number_slots(job: CaptionJob) -> list[Slot]:
    """The caption's number slots in the order it says them (a slot said twice, twice)."""
    return [job.slots[name] for _, name, _, _ in Formatter().parse(job.template)
            if name is not None and name in job.slots]


def caption_grammar(job: CaptionJob,
                    held: Mapping[int, str] | None = None) -> tuple[str, list[str]]:
    """The JSGF grammar of one caption: its literal words in order, each number slot open
    to any number of its style, except the slots numbered in ``held`` (in the order said),
    whose expansion is given there (see :func:`said_as` and :func:`shaped_as`). Also
    returns the literal words, for the dictionary."""
    held = held or {}
    sequence: list[str] = []
    rules: list[str] = []
    literal: list[str] = []
    tag = 0
    for text, name, _, _ in Formatter().parse(job.template):
        tokens = _tokens(speakable(text))
        if name is not None and name in job.words:
            tokens += _tokens(job.words[name])
        literal += [token for token in tokens if token != "'s"]
        sequence += [_ENDINGS if token == "'s" else token for token in tokens]
        if name is not None and name in job.slots:
            if tag in held:
                rules.append(f"<slot_s{tag}> = {held[tag]};")
            else:
                rules += _numbers(job.slots[name].style, f"s{tag}")
            sequence.append(f"<slot_s{tag}>")
            tag += 1
    body = " ".join(sequence) or "<NULL>"
    text = "\n".join(["#JSGF V1.0;", "grammar caption;", f"public <caption> = {body};", *rules])
    return text + "\n", literal


def said_as(words: str, tag: int) -> str:
    """A slot's expansion that is exactly ``words`` (a reading heard before)."""
    return " ".join(f"{word}_s{tag}" for word in _tokens(words))


def shaped_as(words: str, tag: int) -> str:
    """A slot's expansion with the shape of the reading ``words`` and every number word
    in it free within its kind: a digit (zero to nine) any digit, a teen any teen, a
    tens word any tens word; "point", "hundred", "thousand", "by" and the like stay.
    "sixteen thousand, six hundred forty" becomes (any teen) thousand (any digit)
    hundred (any tens word)."""
    parts = []
    for word in _tokens(words):
        kind = next((kind for kind in _KINDS if word in kind), None)
        parts.append(f"({' | '.join(f'{other}_s{tag}' for other in kind)})" if kind
                     else f"{word}_s{tag}")
    return " ".join(parts)


# --------------------------------------------------------------------------- recogniser


class HearingError(RuntimeError):
    """The recogniser cannot run; the message says what to install."""


def require_recogniser() -> None:
    """Fail early, with what to do, when PocketSphinx or its bundled model is missing.

    Raises
    ------
    HearingError
        When ``pocketsphinx`` cannot be imported or has no US English model.
    """
    try:
        from pocketsphinx import get_model_path
    except ImportError as error:
        raise HearingError(f"the offline recogniser is not installed ({error}); run "
                           "./setup.sh, or pip install pocketsphinx") from None
    model = Path(get_model_path("en-us"))
    if not (model / "en-us").is_dir() or not (model / "cmudict-en-us.dict").is_file():
        raise HearingError(f"{model}: PocketSphinx's US English model is missing; reinstall "
                           "pocketsphinx (its wheel bundles the model)")


@cache
def _decoder() -> Any:
    """PocketSphinx with its bundled US English model and dictionary, no search yet. The
    hypothesis is the grammar search's own best path: the lattice's best path, which
    PocketSphinx takes by default, may leave the grammar (three decimals heard as two)."""
    from pocketsphinx import Decoder

    return Decoder(lm=None, samprate=RATE, loglevel="FATAL", bestpath=False)


def _split(word: str, lookup: Any) -> list[str] | None:
    """A word missing from the dictionary as the fewest dictionary words it is written
    as ("softmax" as "soft max"), each of two letters or more; ``None`` when none fit."""
    best: list[list[str] | None] = [[]] + [None] * len(word)
    for end in range(2, len(word) + 1):
        for begin in range(0, end - 1):
            if best[begin] is None or lookup(word[begin:end]) is None:
                continue
            pieces = [*best[begin], word[begin:end]]  # type: ignore[misc]
            if best[end] is None or len(pieces) < len(best[end]):  # type: ignore[arg-type]
                best[end] = pieces
    return best[-1]


def _pronounce(decoder: Any, word: str) -> str:
    """Phones for a word: the dictionary's; else, for a possessive or a plural of a word
    it can say, that word's with the ending said as English says it; else its pieces'
    ("softmax" as "soft max"); else its letters, spelled."""
    lookup = decoder.lookup_word
    phones = lookup(word)
    if phones:
        return phones
    if word.endswith("'") and len(word) > 1:
        return _pronounce(decoder, word[:-1])
    for ending in ("'s", "s"):
        stem = word.removesuffix(ending)
        if stem != word and stem and (lookup(stem) or _split(stem, lookup)):
            base = _pronounce(decoder, stem)
            last = base.split()[-1]
            kind = "sibilant" if last in _SIBILANTS else \
                "voiceless" if last in _VOICELESS else "other"
            return f"{base} {_ENDING[kind]}"
    pieces = _split(word.replace("'", ""), lookup) or list(word)
    return " ".join(filter(None, map(lookup, pieces))) or "SIL"


def _prepare(decoder: Any, literal: Sequence[str], tags: int) -> None:
    """Add to the dictionary the caption's words it lacks and each slot's tagged words."""
    new = {word: _pronounce(decoder, word) for word in literal
           if decoder.lookup_word(word) is None}
    new.update((f"'s_{kind}", phones) for kind, phones in _ENDING.items()
               if decoder.lookup_word(f"'s_{kind}") is None)
    for tag in range(tags):
        new.update((f"{word}_s{tag}", decoder.lookup_word(word)) for word in slot_words()
                   if decoder.lookup_word(f"{word}_s{tag}") is None)
    for number, (word, phones) in enumerate(new.items()):
        decoder.add_word(word, phones, number == len(new) - 1)


def _heard(hypothesis: str, tags: int) -> list[list[str]]:
    """The words heard in each slot, from the tagged words of a hypothesis."""
    heard: list[list[str]] = [[] for _ in range(tags)]
    for word in hypothesis.split():
        base, _, tag = word.rpartition("_s")
        if base and tag.isdigit() and int(tag) < tags:
            heard[int(tag)].append(base)
    return heard


def clip_samples(video: Path) -> np.ndarray:
    """A clip's sound track as 16-bit mono samples at :data:`RATE` (empty without one)."""
    import av

    with av.open(str(video)) as clip:
        if not clip.streams.audio:
            return np.zeros(0, dtype=np.int16)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
        parts = []
        for frame in clip.decode(clip.streams.audio[0]):
            parts += [out.to_ndarray().ravel() for out in resampler.resample(frame)]
        parts += [out.to_ndarray().ravel() for out in resampler.resample(None)]
    return np.concatenate(parts).astype(np.int16) if parts else np.zeros(0, dtype=np.int16)


def hear_caption(samples: np.ndarray, job: CaptionJob,
                 held: Mapping[int, str] | None = None) -> list[str | None]:
    """The words heard in each number slot of one caption, in the order said (``None``
    where the recogniser found no reading of the caption in its sound). ``held`` gives
    some slots' expansions (see :func:`caption_grammar`)."""
    decoder = _decoder()
    grammar, literal = caption_grammar(job, held)
    tags = len(_number_slots(job))
    _prepare(decoder, literal, tags)
    decoder.add_jsgf_string("caption", grammar)
    decoder.activate_search("caption")
    first = max(0, round((job.start - MARGIN[0]) * RATE))
    last = min(len(samples), round((job.end + MARGIN[1]) * RATE))
    decoder.start_utt()
    if last > first:
        decoder.process_raw(samples[first:last].tobytes(), no_search=False, full_utt=True)
    decoder.end_utt()
    hypothesis = decoder.hyp()
    if hypothesis is None or not hypothesis.hypstr:
        return [None] * tags
    return [" ".join(words) or None for words in _heard(hypothesis.hypstr, tags)]


def _read(words: str | None, style: Style) -> str | None:
    return None if words is None else read_spoken(words, style)


def hear_figures(samples: np.ndarray, job: CaptionJob) -> list[HeardFigure]:
    """Hear one caption's figures: first with every slot open to any number of its style.
    When the caption was found in the sound but some slot was heard as another number,
    each such slot is heard again within the shape of the caption's own reading (the
    narration's spoken form of the shown text), every number word in it free within its
    kind (:func:`shaped_as`), the other slots held to what they were heard as."""
    slots = _number_slots(job)
    free = hear_caption(samples, job) if len(samples) else [None] * len(slots)
    read = [_read(words, slot.style) for words, slot in zip(free, slots, strict=True)]
    final = list(read)
    wrong = [tag for tag, (text, slot) in enumerate(zip(read, slots, strict=True))
             if text is not None and text != slot.expected and slot.key in job.spoken]
    if wrong:
        held = {tag: said_as(words, tag) for tag, words in enumerate(free) if words}
        held.update({tag: shaped_as(job.spoken[slots[tag].key], tag) for tag in wrong})
        again = hear_caption(samples, job, held)
        for tag in wrong:
            final[tag] = _read(again[tag], slots[tag].style)
    return [HeardFigure(job.index, job.start, slot.key, slot.expected, text, heard)
            for slot, text, heard in zip(slots, read, final, strict=True)]


def hear_clip(video: Path, captions: Sequence[CaptionJob]) -> ClipHearing:
    """Hear every number slot of every caption of one clip."""
    import av

    started = time.process_time()
    result = ClipHearing(video.name)
    try:
        samples = clip_samples(video)
    except (av.FFmpegError, OSError, ValueError) as error:  # reported, not raised
        result.error = f"cannot decode the sound of {video.name}: {error}"
        return result
    result.sound_seconds = len(samples) / RATE
    if not len(samples):
        result.error = f"{video.name} has no sound track to hear"
    for job in captions:
        if job.slots:
            result.figures += hear_figures(samples, job)
    result.seconds = time.process_time() - started
    return result


def caption_jobs(manifest: dict[str, Any], values: Any) -> list[CaptionJob]:
    """What to hear in each spoken caption of a manifest, with fresh display texts. A slot
    whose value is words (a model's) is said as written, like a word slot: it is no
    figure."""
    jobs = []
    for caption in manifest.get("captions", []):
        if not caption.get("speech"):
            continue
        words, slots, spoken = dict(caption.get("words", {})), {}, {}
        for name, key in caption.get("slots", {}).items():
            try:
                figure = values[key]
                text = values.text(key)
            except KeyError:
                slots[name] = Slot(name, key, Style.PARAM, "(no such value)")
                continue
            if figure.style is Style.TEXT:
                words[name] = text
            else:
                slots[name] = Slot(name, key, figure.style, text)
                spoken[key] = values.spoken(key)
        jobs.append(CaptionJob(int(caption["index"]), float(caption["start"]),
                               float(caption["end"]), caption["template"], words, slots,
                               spoken))
    return jobs


def _hear_job(job: tuple[Path, list[CaptionJob]]) -> ClipHearing:
    return hear_clip(*job)


def hear_manifests(manifests: dict[Path, dict[str, Any]], values: Any,
                   workers: int | None = None) -> list[ClipHearing]:
    """Hear every narrated clip beside its manifest (``*.figures.json``); silent clips
    have nothing to hear and are left out."""
    jobs = [(path.with_name(path.name.replace(".figures.json", ".mp4")),
             caption_jobs(manifest, values))
            for path, manifest in manifests.items()
            if manifest.get("narration", {}).get("engine", "none") != "none"]
    return hear_clips(jobs, workers)


def hear_clips(jobs: Sequence[tuple[Path, list[CaptionJob]]],
               workers: int | None = None) -> list[ClipHearing]:
    """Hear several clips, one worker process per core (each with its own recogniser)."""
    return map_per_core(_hear_job, jobs, workers)
