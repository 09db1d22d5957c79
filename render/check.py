"""``lecture check``: prove every figure in a build equals a fresh recomputation.

The proof runs along a chain, each link checked here:

1. **Files.** Every output (clip, captions, manifest, the deck and its assets) has the
   sha256 its record holds; nothing is missing, empty or unexpected; each clip carries its
   scene's name, cache key and the sha256 of the worksheet it was rendered from (the one
   its manifest names) in its container tags; the deck names the digest of every clip it
   embeds. A clip reused from a build of another worksheet is fine when every value and
   worksheet fact it shows is unchanged: that is what its cache key covers.
2. **Figures.** Every ``data-key`` element of the deck, every figure and caption in the
   scenes' manifests, every cue of each ``.srt`` (one per recorded caption) and every cue
   embedded in the deck equals the display text of a fresh computation from the worksheet.
3. **The lecture.** ``lecture/lecture.mp4`` holds every clip's packets, in order, each
   shifted by its clip's start, with a chapter per part where the part's first clip
   starts; each cue of the lecture's captions is its clip's cue, shifted; every figure of
   the transcript equals its fresh display text; each clip's WebVTT holds its SubRip's
   cues (see :mod:`render.export`).
4. **Pixels** (``--frames``). Every figure a manifest places on screen is read back with
   OCR from the decoded clip and equals its fresh display text (see :mod:`render.frames`).
5. **Sound** (``--audio``). Every figure a narrated caption speaks is heard back from the
   clip's sound track under the caption's span by an offline recogniser that is never
   told the number, and equals its fresh display text (see :mod:`render.hearing`).

A build whose worksheet changed since it was made is reported as stale, and so is each
output whose own sources (its import closure) changed, naming the files. The lecture's
scenes a partial build never built are named too.
"""

from __future__ import annotations

import json
import re
from base64 import b64decode
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from string import Formatter
from typing import Any

from narration.english import ENGLISH
from narration.text import speakable, spoken_text
from outline import lecture_order, video_stem
from outputs.files import OutputError, file_digest
from outputs.html import read_html
from render.build import DECK_RECORD, KEPT, deck_sources, scene_sources
from render.closure import ROOT
from render.export import (
    CHAPTERS,
    LANGUAGE,
    LECTURE_FILES,
    MILLISECOND,
    SUBRIP,
    TRANSCRIPT,
    VIDEO,
    WEBVTT,
    Chapter,
    Cue,
    ExportError,
    Media,
    Placed,
    chapters_text,
    clock,
    lecture_chapters,
    lecture_sources,
    merged_cues,
    place_clips,
    read_media,
    read_transcript,
    read_webvtt,
    shown_once,
    subrip_cues,
    ticks,
)
from render.export import FOLDER as LECTURE
from render.export import RECORD as LECTURE_RECORD
from render.scenes import clip_sound, clip_tags, pick_scenes
from render.script import SCRIPT, SCRIPT_RECORD, script_text
from render.spoken import read_spoken
from render.storyboard import FOLDER as STORYBOARD
from render.storyboard import PAGE as STORYBOARD_PAGE
from render.storyboard import RECORD as STORYBOARD_RECORD
from render.storyboard import image_path, image_size, read_page, section_captions
from slides.captions import CaptionError, read_subrip, webvtt_texts
from worksheet import Style, Values, Worksheet, load_worksheet

__all__ = ["CheckReport", "Mismatch", "Problem", "check_build", "read_srt"]

NUMBER = re.compile(r"−?\d[\d,]*(?:\.\d+)?(?:e[+−-]?\d+)?")
_SLOT = re.compile(r"\{([A-Za-z_]\w*)\}")
_VTT_DATA = "data:text/vtt;charset=utf-8;base64,"
AUDIO_SLACK = 0.05
"""Seconds a sound track may end before its last cue (AAC frames and rounding)."""


@dataclass(frozen=True)
class Mismatch:
    key: str
    shown: str
    expected: str
    where: str


@dataclass(frozen=True)
class Problem:
    """An output that is not what its record says: missing, empty, altered, unexpected."""

    path: str
    what: str


@dataclass
class CheckReport:
    mismatches: list[Mismatch] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    """How many of each thing were checked, by plural noun ("files", "srt captions")."""
    frames: list[Any] = field(default_factory=list)
    """Per clip, with ``--frames``: a :class:`render.frames.SceneReading`."""
    hearing: list[Any] = field(default_factory=list)
    """Per narrated clip, with ``--audio``: a :class:`render.hearing.ClipHearing`."""
    lecture: list[str] = field(default_factory=list)
    """Every scene of the lecture, in order, for the worksheet checked against."""
    missing: list[str] = field(default_factory=list)
    """The lecture's scenes the build never built (nor tried to), in lecture order."""
    unjoined: str = ""
    """Why a build that holds every clip of the lesson has no joined lecture (empty when
    it has one, or lacks a clip)."""

    @property
    def ok(self) -> bool:
        """Everything the build holds matches; a partial build can be ok."""
        return not self.mismatches and not self.problems and not self.stale

    @property
    def complete(self) -> bool:
        """The build holds every scene of the lecture, and the lecture joined from them."""
        return not self.missing and not self.unjoined

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def counted(self) -> str:
        """The counts in English: "1 scene, 2 records, 1 srt caption"."""
        return ", ".join(_counted(n, what) for what, n in self.counts.items())

    def never_built(self) -> str:
        """The sentence naming the lecture's scenes the build lacks ("18 of the lecture's
        19 scenes were never built: …"); empty when the build is complete."""
        if not self.missing:
            return ""
        n = len(self.missing)
        return (f"{n} of the lecture's {ENGLISH.no('scene', len(self.lecture))} "
                f"{ENGLISH.plural_verb('was', n)} never built: {', '.join(self.missing)}")


def _counted(n: int, things: str) -> str:
    """``n`` with the plural noun phrase ``things`` in agreement ("1 srt caption", "2 srt
    captions"). A single thing takes the singular of the phrase's first plural word: nouns
    in front of the head stay singular in English ("srt captions"), and words after it
    qualify it ("figures read from pixels")."""
    words = things.split()
    if n == 1:
        for i, word in enumerate(words):
            single = ENGLISH.singular_noun(word)
            if single:
                words[i] = single
                break
    return f"{n} {' '.join(words)}"


def read_srt(path: Path) -> dict[int, str]:
    """Caption text by index from an ``.srt`` file.

    Raises
    ------
    CaptionError
        When the file holds text that is not a cue.
    """
    return {cue.index: cue.content
            for cue in read_subrip(path.read_text(encoding="utf-8"), path.name)}


def _expected(values: Values, key: str) -> str:
    try:
        return values.text(key)
    except KeyError:
        return "(no such value)"


def _caption_text(caption: dict[str, Any], values: Values) -> str:
    fresh = {name: _expected(values, key) for name, key in caption.get("slots", {}).items()}
    return caption["template"].format(**fresh, **caption.get("words", {}))


def _spoken(values: Values, key: str) -> str:
    try:
        return values.spoken(key)
    except KeyError:
        return "(no such value)"


def _said_slots(template: str, spoken: str,
                words: dict[str, str] | None = None) -> list[tuple[str, str]] | None:
    """Each ``(slot, words)`` of a spoken caption, found around its literal text (and
    around its word slots, said as written, so two slots side by side stay apart)."""
    words = words or {}
    items: list[tuple[str, str]] = []  # ("word", text), ("pause", ","), ("slot", name)
    for literal, slot, _, _ in Formatter().parse(template):
        for token in re.findall(r",|[^\s,]+", speakable(literal)):
            if token != "," or not items or items[-1] != ("pause", ","):
                items.append(("pause", ",") if token == "," else ("word", token))
        if slot is not None:
            items.append(("slot", slot))

    def stop(item: tuple[str, str] | None, at: int) -> bool:
        return item is None or (item[0] == "word" and item[1][at] in ".;:?!")

    # spoken_text drops a pause at either end and beside a stop; elsewhere it stays, and
    # it is what tells two neighbouring numbers apart.
    pieces, names = [], []
    for i, (kind, text) in enumerate(items):
        if kind == "slot" and text in words:
            pieces.append(r"\s+".join(map(re.escape, words[text].split())))
        elif kind == "slot":
            pieces.append(f"(?P<s{len(names)}>.+?)")
            names.append(text)
        elif kind == "word":
            pieces.append(re.escape(text))
        else:
            before, after = items[i - 1] if i else None, \
                items[i + 1] if i + 1 < len(items) else None
            pieces.append(",?" if stop(before, -1) or stop(after, 0) else ",")
    match = re.fullmatch(r"\s*".join(pieces), spoken)
    if match is None:
        return None
    heard = dict((name, match[f"s{i}"].strip(" ,")) for i, name in enumerate(names))
    return [(name, heard[name] if name in heard else words[name])
            for _, name, _, _ in Formatter().parse(template) if name is not None]


def _check_spoken(caption: dict[str, Any], values: Values, where: str,
                  report: CheckReport) -> None:
    """The caption's spoken words against a fresh spoken form, and each number in them,
    parsed back, against the fresh display text."""
    slots, words = caption.get("slots", {}), caption.get("words", {})
    expected = spoken_text(caption["template"],
                           {**words, **{name: _spoken(values, key) for name, key in slots.items()}})
    said = caption["spoken"]
    # Said as expected: each slot was heard as its fresh spoken form. Otherwise find what
    # was heard in each slot around the template's literal words.
    found = [(name, _spoken(values, slots[name]) if name in slots else words.get(name, ""))
             for _, name, _, _ in Formatter().parse(caption["template"]) if name is not None] \
        if said == expected else _said_slots(caption["template"], said, words)
    wrong = 0
    for name, heard in found or []:
        if name not in slots:
            continue
        key = slots[name]
        report.count("spoken figures")
        try:
            figure = values[key]
        except KeyError:
            report.mismatches.append(Mismatch(key, heard, "(no such value)", where))
            wrong += 1
            continue
        read = read_spoken(heard, figure.style)
        if read != figure.text:
            report.mismatches.append(Mismatch(key, heard if read is None else read,
                                              figure.text, where))
            wrong += 1
    if said != expected and not wrong:  # a difference no spoken number explains
        report.mismatches.append(Mismatch("(spoken text)", said, expected, where))


# --------------------------------------------------------------------------- files


def _verify(out: Path, rel: str, digest: str, record: str, report: CheckReport) -> bool:
    path = out / rel
    if not path.is_file():
        report.problems.append(Problem(rel, f"missing (named by {record})"))
        return False
    if path.stat().st_size == 0:
        report.problems.append(Problem(rel, "empty"))
        return False
    if file_digest(path) != digest:
        report.problems.append(Problem(rel, f"altered: its sha256 differs from {record}"))
        return False
    report.count("files")
    return True


def _read_record(out: Path, rel: str, report: CheckReport) -> dict[str, Any] | None:
    try:
        return json.loads((out / rel).read_text(encoding="utf-8"))
    except FileNotFoundError:
        report.problems.append(Problem(rel, "missing"))
    except (OSError, ValueError) as error:
        report.problems.append(Problem(rel, f"unreadable ({error})"))
    return None


def _check_files(out: Path, build: dict[str, Any], report: CheckReport) -> dict[str, str]:
    """Every recorded output against its digest, each clip's tags, nothing unexpected.

    Returns the digest recorded for each output, by relative path.
    """
    recorded: dict[str, str] = {}
    expected_records = {DECK_RECORD, SCRIPT_RECORD, STORYBOARD_RECORD}
    shared = {DECK_RECORD, SCRIPT_RECORD, STORYBOARD_RECORD, LECTURE_RECORD}
    for scene in build.get("scenes", []):
        if scene.get("status") not in KEPT:
            continue
        rel = f"records/{scene['name']}.json"
        expected_records.add(rel)
        record = _read_record(out, rel, report)
        if record is None:
            continue
        if record.get("key") != scene.get("key"):
            report.problems.append(Problem(rel, "its key differs from build.json's"))
        outputs = record.get("outputs", {})
        intact = {output for output, digest in outputs.items()
                  if _verify(out, output, digest, rel, report)}
        recorded.update(outputs)
        clips = [o for o in outputs if o.endswith(".mp4")]
        manifests = [o for o in outputs if o.endswith(".figures.json")]
        if clips and manifests and {clips[0], manifests[0]} <= intact:
            source = json.loads((out / manifests[0]).read_text(encoding="utf-8"))
            _check_tags(out, clips[0], scene["name"], record.get("key"),
                        source.get("worksheet", {}).get("sha256"), report)
            _check_sound(out, clips[0], source, report)
    if not build.get("shard"):
        script = _read_record(out, SCRIPT_RECORD, report) or {}
        for output, digest in script.get("outputs", {}).items():
            recorded[output] = digest
            _verify(out, output, digest, SCRIPT_RECORD, report)
    board = None if build.get("shard") else _read_record(out, STORYBOARD_RECORD, report)
    if board is not None:
        for output, digest in board.get("outputs", {}).items():
            recorded[output] = digest
            _verify(out, output, digest, STORYBOARD_RECORD, report)
        for clip, digest in board.get("clips", {}).items():
            if recorded.get(clip) != digest:
                report.problems.append(Problem(STORYBOARD_PAGE, f"shows another rendering of "
                                               f"{clip} ({digest[:12]}) than its record names"))
        if STORYBOARD_PAGE not in board.get("outputs", {}):
            report.problems.append(Problem(STORYBOARD_PAGE, "not recorded"))
    deck = None if build.get("shard") else _read_record(out, DECK_RECORD, report)
    if deck is not None:
        for output, digest in deck.get("outputs", {}).items():
            recorded[output] = digest
            _verify(out, output, digest, DECK_RECORD, report)
        for clip, digest in deck.get("clips", {}).items():
            if recorded.get(clip) != digest:
                report.problems.append(Problem(clip, f"the deck embeds another rendering "
                                               f"({digest[:12]}) than its record names"))
        if "slides/index.html" not in deck.get("outputs", {}):
            report.problems.append(Problem("slides/index.html", "not recorded"))
        _check_posters(out, deck, recorded, report)
    exports = None if build.get("shard") else _read_record(out, LECTURE_RECORD, report)
    if exports is not None:
        expected_records.add(LECTURE_RECORD)
        for output, digest in exports.get("outputs", {}).items():
            recorded[output] = digest
            _verify(out, output, digest, LECTURE_RECORD, report)
    for folder in ("video", "slides", "records", STORYBOARD, LECTURE):
        for path in sorted((out / folder).rglob("*")):
            rel = path.relative_to(out).as_posix()
            if path.is_file() and rel not in recorded and rel not in expected_records:
                report.problems.append(Problem(rel, "unexpected: no record names it"))
    report.count("records", len(expected_records - shared))
    return recorded


def _check_posters(out: Path, deck: dict[str, Any], recorded: dict[str, str],
                   report: CheckReport) -> None:
    """Each poster is recorded as the last section-end frame of its clip's current
    rendering, and every image in the deck's poster folder is such a poster."""
    posters = deck.get("posters", {})
    for rel, source in posters.items():
        clip = str(source.get("clip"))
        if recorded.get(clip) != source.get("sha256"):
            report.problems.append(Problem(rel, f"recorded from another rendering of {clip} "
                                           "than the one built"))
        manifest = out / Path(clip).with_suffix(".figures.json")
        if manifest.is_file():
            sections = json.loads(manifest.read_text(encoding="utf-8")).get("sections") or []
            if sections and source.get("frame") != sections[-1].get("frame"):
                report.problems.append(Problem(rel, f"shows frame {source.get('frame')}, not "
                                               f"the last section end of {clip}"))
        report.count("deck posters")
    for rel in deck.get("outputs", {}):
        if rel.startswith("slides/posters/") and rel not in posters:
            report.problems.append(Problem(rel, "a poster no clip is recorded for"))


def _check_sound(out: Path, rel: str, manifest: dict[str, Any], report: CheckReport) -> None:
    """A narrated clip has a sound track that lasts at least as long as its cues."""
    spoken = [c for c in manifest.get("captions", []) if c.get("speech")]
    if manifest.get("narration", {}).get("engine", "none") == "none" and not spoken:
        return
    sound = clip_sound(out / rel)
    if sound is None:
        report.problems.append(Problem(rel, "narrated, but has no sound track"))
        return
    last = max((float(c["end"]) for c in spoken), default=0.0)
    if sound[0] + AUDIO_SLACK < last:
        report.problems.append(Problem(rel, f"its sound lasts {sound[0]:.2f} s, shorter than "
                                       f"its cues ({last:.2f} s)"))
    report.count("sound tracks")


def _check_tags(out: Path, rel: str, scene: str, key: str | None, worksheet: str | None,
                report: CheckReport) -> None:
    try:
        tags = clip_tags(out / rel)
    except ValueError as error:
        report.problems.append(Problem(rel, str(error)))
        return
    wanted = {"lecture_scene": scene, "lecture_key": key, "lecture_worksheet": worksheet}
    for tag, value in wanted.items():
        if tags.get(tag) != value:
            shown = tags.get(tag, "none")
            report.problems.append(Problem(rel, f"tag {tag} is {shown[:16]}, expected "
                                           f"{(value or '?')[:16]}"))
    report.count("clip tags")


# --------------------------------------------------------------------------- figures


def _check_deck(out: Path, values: Values, recorded: dict[str, str],
                captions: dict[str, list[dict[str, Any]]], report: CheckReport) -> None:
    index = out / "slides" / "index.html"
    report.counts.setdefault("deck figures", 0)
    if not index.is_file():
        if not any(p.path == "slides/index.html" for p in report.problems):
            report.problems.append(Problem("slides/index.html", "missing"))
        return
    page = read_html(index.read_text(encoding="utf-8"))
    figures = [element for element in page.iter() if "data-key" in element.attrs]
    for element in figures:
        key, text = str(element.attrs["data-key"]), element.text
        expected = _expected(values, key)
        if text != expected:
            report.mismatches.append(Mismatch(key, text, expected,
                                              f"slides/index.html line {element.line}"))
    report.count("deck figures", len(figures))
    for video in page.iter("video"):
        src, digest = str(video.attrs.get("src")), video.attrs.get("data-sha256")
        name = Path(src).name
        copy = f"slides/{src}"
        if digest != recorded.get(f"video/{name}") or digest != recorded.get(copy):
            report.problems.append(Problem(copy, "the deck names another clip digest than "
                                           "the records"))
        poster = video.attrs.get("poster")
        if poster is not None and f"slides/{poster}" not in recorded:
            report.problems.append(Problem(f"slides/{poster}", "the deck shows a poster no "
                                           "record names"))
        track = next(video.iter("track"), None)
        _check_deck_captions(None if track is None else track.attrs.get("src"),
                             captions.get(name.removesuffix(".mp4")),
                             f"slides/index.html captions of {name}", values, report)
        report.count("deck clips")


def _check_deck_captions(url: str | None, captions: list[dict[str, Any]] | None, where: str,
                         values: Values, report: CheckReport) -> None:
    if captions is None:
        return
    if not url or not url.startswith(_VTT_DATA):
        report.problems.append(Problem(where, "no embedded captions"))
        return
    try:
        cues = webvtt_texts(b64decode(url[len(_VTT_DATA):]).decode("utf-8"), where)
    except CaptionError as error:
        report.problems.append(Problem(where, error.detail))
        return
    except ValueError as error:
        report.problems.append(Problem(where, f"not base64 of UTF-8 text ({error})"))
        return
    if len(cues) != len(captions):
        report.problems.append(Problem(where, f"{len(cues)} cues for {len(captions)} "
                                       "recorded captions"))
    for shown, caption in zip(cues, captions, strict=False):
        report.count("deck captions")
        expected = _caption_text(caption, values)
        if shown != expected:
            _locate(shown, expected, caption, where, report)


def _compare(figures: list[dict[str, str]], values: Values, report: CheckReport, kind: str,
             where: str) -> None:
    """Each recorded ``{key, text}`` against the fresh display text of its key."""
    for figure in figures:
        report.count(kind)
        expected = _expected(values, figure["key"])
        if figure["text"] != expected:
            report.mismatches.append(Mismatch(figure["key"], figure["text"], expected, where))


def _check_manifest(path: Path, manifest: dict[str, Any], values: Values,
                    report: CheckReport) -> None:
    """A scene's recorded figures and captions, and its ``.srt``."""
    where = path.name
    for section in manifest.get("sections", []):
        _compare(section.get("figures", []), values, report, "screen figures",
                 f"{where} section “{section['name']}”")
        _check_bars(section.get("bars", []), values, report,
                    f"{where} section “{section['name']}”")
    srt_path = path.with_name(path.name.replace(".figures.json", ".srt"))
    captions = manifest.get("captions", [])
    srt: dict[int, str] = {}
    try:
        srt = read_srt(srt_path) if srt_path.is_file() else {}
    except CaptionError as error:
        report.problems.append(Problem(f"video/{srt_path.name}", error.detail))
    else:
        if captions and len(srt) != len(captions):
            report.problems.append(Problem(f"video/{srt_path.name}", f"{len(srt)} cues for "
                                           f"{len(captions)} recorded captions"))
    narrated = manifest.get("narration", {}).get("engine", "none") != "none"
    for caption in captions:
        _compare(caption.get("figures", []), values, report, "caption figures",
                 f"{where} caption {caption['index']}")
        if "spoken" in caption:
            _check_spoken(caption, values, f"{where} spoken caption {caption['index']}", report)
        if narrated and not caption.get("speech"):
            report.problems.append(Problem(f"video/{where}", f"caption {caption['index']} "
                                           "was not spoken"))
        expected_text = _caption_text(caption, values)
        shown_text = srt.get(caption["index"])
        report.count("srt captions")
        if shown_text is not None and shown_text != expected_text:
            _locate(shown_text, expected_text, caption, srt_path.name, report)


BAR_TOLERANCE = 1e-5
"""How far a bar's recorded length (in weight units, rounded to six places) may be from
its fresh weight."""


def _check_bars(bars: list[dict[str, Any]], values: Values, report: CheckReport,
                where: str) -> None:
    """Each weight bar on screen is as long as its freshly computed weight (or the shortest
    bar drawn, for a weight too small to see)."""
    for bar in bars:
        report.count("weight bars")
        try:
            weight = float(values.value(bar["key"]))
        except (KeyError, TypeError, ValueError):
            report.mismatches.append(Mismatch(str(bar.get("key")), "a bar", "no such value",
                                              where))
            continue
        expected = max(weight, float(bar.get("floor", 0.0)))
        if abs(float(bar.get("drawn", -1.0)) - expected) > BAR_TOLERANCE:
            report.mismatches.append(Mismatch(bar["key"], f"a bar of {bar.get('drawn')}",
                                              f"a bar of {expected:.6f}", where))


def _locate(shown: str, expected: str, caption: dict[str, Any], where: str,
            report: CheckReport) -> None:
    """Name the key of each number that differs between a shown and an expected caption."""
    slots = caption.get("slots", {})
    order = [slots[name] for name in _SLOT.findall(caption["template"]) if name in slots]
    got, want = NUMBER.findall(shown), NUMBER.findall(expected)
    place = f"{where} caption {caption['index']}"
    if len(got) == len(want) == len(order):
        for key, a, b in zip(order, got, want, strict=True):
            if a != b:
                report.mismatches.append(Mismatch(key, a, b, place))
        if got != want or shown != expected:
            if not any(m.where == place for m in report.mismatches):
                report.mismatches.append(Mismatch("(caption text)", shown, expected, place))
        return
    report.mismatches.append(Mismatch("(caption text)", shown, expected, place))


def _check_script(out: Path, ws: Worksheet, manifests: dict[Path, dict[str, Any]],
                  values: Values, report: CheckReport) -> None:
    """``script.md`` against one written from the manifests with fresh caption texts."""
    from outline import TITLE

    path = out / SCRIPT
    if not path.is_file():
        return  # reported with the records
    entries = lecture_order(ws.n_heads)
    titles = {entry.name: entry.title for entry in entries}
    clips = [(p.name.removesuffix(".figures.json"), titles.get(m.get("scene", ""), "?"), m,
              [_caption_text(c, values) for c in m.get("captions", [])])
             for p, m in sorted(manifests.items())]
    shown = path.read_text(encoding="utf-8").splitlines()
    expected = script_text(TITLE, clips).splitlines()
    for number, (a, b) in enumerate(zip(shown, expected, strict=False), start=1):
        if a != b:
            report.mismatches.append(Mismatch("(script line)", a, b, f"{SCRIPT} line {number}"))
            break
    if len(shown) != len(expected):
        report.problems.append(Problem(SCRIPT, f"{len(shown)} lines, expected {len(expected)}"))
    report.count("script lines", len(shown))


def _check_storyboard(out: Path, manifests: dict[Path, dict[str, Any]], values: Values,
                      recorded: dict[str, str], report: CheckReport) -> None:
    """The storyboard page shows every recorded scene in lecture order, one image per
    section end, each recorded as that frame of the scene's current clip, and under it the
    fresh texts of the captions spoken in that section."""
    page = out / STORYBOARD_PAGE
    if not page.is_file():
        return  # reported with the records
    try:
        frames = json.loads((out / STORYBOARD_RECORD).read_text(encoding="utf-8"))["frames"]
    except (OSError, ValueError, KeyError):
        frames = {}
    shown = read_page(page.read_text(encoding="utf-8"))
    expected = sorted(manifests.items())
    names = [manifest.get("scene") for _, manifest in expected]
    if [scene.scene for scene in shown] != names:
        report.problems.append(Problem(STORYBOARD_PAGE, f"shows the scenes "
                                       f"{', '.join(s.scene for s in shown) or 'none'}; "
                                       f"expected {', '.join(map(str, names))}"))
    by_name = {scene.scene: scene for scene in shown}
    for path, manifest in expected:
        stem = path.name.removesuffix(".figures.json")
        scene = by_name.get(manifest.get("scene", ""))
        sections, captions = manifest.get("sections", []), manifest.get("captions", [])
        if scene is None:
            continue
        if len(scene.panels) != len(sections):
            report.problems.append(Problem(STORYBOARD_PAGE, f"{stem}: {len(scene.panels)} "
                                           f"frames for {len(sections)} sections"))
            continue
        clip = f"video/{stem}.mp4"
        groups = section_captions(sections, captions, float(manifest.get("frame_rate", 15)))
        for number, (section, panel, group) in enumerate(
                zip(sections, scene.panels, groups, strict=True), start=1):
            where = f"{STORYBOARD_PAGE} {stem} section “{section['name']}”"
            image = image_path(stem, number)
            report.count("storyboard frames")
            if panel.image != image:
                report.problems.append(Problem(STORYBOARD_PAGE, f"{where}: shows "
                                               f"{panel.image}, expected {image}"))
            source = frames.get(image, {})
            if (source.get("sha256"), source.get("frame"), source.get("size")) != (
                    recorded.get(clip), section["frame"], list(image_size(manifest))):
                report.problems.append(Problem(image, f"not recorded as frame "
                                               f"{section['frame']} of {clip}"))
            said = [captions[i] for i in group]
            if [index for index, _ in panel.captions] != [c["index"] for c in said]:
                report.problems.append(Problem(STORYBOARD_PAGE, f"{where}: shows captions "
                                               f"{[i for i, _ in panel.captions]}, expected "
                                               f"{[c['index'] for c in said]}"))
                continue
            for (_, text), caption in zip(panel.captions, said, strict=True):
                report.count("storyboard captions")
                fresh = _caption_text(caption, values)
                if text != fresh:
                    _locate(text, fresh, caption, where, report)


# --------------------------------------------------------------------------- the lecture


def _intact(rel: str, recorded: dict[str, str], report: CheckReport) -> bool:
    """Recorded, and found with its recorded digest (else already reported)."""
    return rel in recorded and not any(problem.path == rel for problem in report.problems)


def _first_difference(shown: Sequence[Any], expected: Sequence[Any]) -> int | None:
    """The first place where two sequences differ (the shorter one's length when one
    continues the other); ``None`` when they are equal."""
    for place, (a, b) in enumerate(zip(shown, expected, strict=False)):
        if a != b:
            return place
    return None if len(shown) == len(expected) else min(len(shown), len(expected))


def _check_cues(rel: str, shown: Sequence[Cue], expected: Sequence[Cue], what: str,
                report: CheckReport) -> None:
    """Cues against the cues they must equal, naming the first that differs."""
    place = _first_difference(shown, expected)
    report.count(what, len(shown))
    if place is None:
        return
    found = f"{shown[place]}" if place < len(shown) else "nothing"
    wanted = f"{expected[place]}" if place < len(expected) else "no more cues"
    report.problems.append(Problem(rel, f"cue {place + 1} is {found}; expected {wanted}"))


def _check_clip_captions(out: Path, recorded: dict[str, str], report: CheckReport) -> None:
    """Each clip's WebVTT holds the cues of its SubRip captions: times and texts."""
    for rel in sorted(r for r in recorded if r.startswith("video/") and r.endswith(".srt")):
        vtt = rel.removesuffix(".srt") + ".vtt"
        if vtt not in recorded:
            report.problems.append(Problem(vtt, "missing: every clip's captions are written "
                                           "as WebVTT beside it; run `lecture build`"))
            continue
        if not (_intact(rel, recorded, report) and _intact(vtt, recorded, report)):
            continue
        try:
            expected = subrip_cues((out / rel).read_text(encoding="utf-8"), rel)
            shown = read_webvtt((out / vtt).read_text(encoding="utf-8"), vtt)
        except CaptionError as error:
            report.problems.append(Problem(error.source, error.detail))
            continue
        _check_cues(vtt, shown, expected, "clip webvtt captions", report)


def _check_lecture(out: Path, build: dict[str, Any], entries: Sequence[Any],
                   manifests: dict[Path, dict[str, Any]], values: Values,
                   recorded: dict[str, str], report: CheckReport) -> None:
    """The joined lecture against a fresh joining of the clips: its packets, chapters,
    captions, chapter list and transcript (see :mod:`render.export`)."""
    statuses = {scene.get("name"): scene.get("status") for scene in build.get("scenes", [])}
    whole = all(statuses.get(entry.name) in ("rendered", "reused") for entry in entries)
    written = [rel for rel in LECTURE_FILES if rel in recorded]
    if not whole:
        if written:
            report.problems.append(Problem(written[0], "joined from a build that lacks a "
                                           "clip of the lesson or keeps one out of date"))
        return
    if not written:
        report.unjoined = (f"the build holds every clip of the lesson, but no {LECTURE}/ "
                           "joined from them; run `lecture build`")
        return
    if len(written) < len(LECTURE_FILES):
        missing = next(rel for rel in LECTURE_FILES if rel not in written)
        report.problems.append(Problem(missing, "not recorded with the rest of the lecture; "
                                       "run `lecture build`"))
        return
    made_with = (json.loads((out / LECTURE_RECORD).read_text(encoding="utf-8"))
                 .get("sources") or {})
    if any(made_with.get(name) != file_digest(ROOT / name) for name in lecture_sources()):
        return  # made by other code: reported stale, and proven once it is made again
    try:
        media = [read_media(out / "video" / f"{video_stem(tuple(entries), e.name)}.mp4")
                 for e in entries]
    except ExportError as error:
        report.problems.append(Problem(VIDEO, f"cannot join the clips again: {error}"))
        return
    placed = place_clips(entries, [found.length for found in media])
    chapters = lecture_chapters(placed)
    if _intact(VIDEO, recorded, report):
        _check_joined(out, placed, media, chapters, report)
    try:
        expected = merged_cues((clip, subrip_cues(
            (out / "video" / f"{clip.stem}.srt").read_text(encoding="utf-8"),
            f"video/{clip.stem}.srt")) for clip in placed)
        for rel, read in ((SUBRIP, subrip_cues), (WEBVTT, read_webvtt)):
            if _intact(rel, recorded, report):
                _check_cues(rel, read((out / rel).read_text(encoding="utf-8"), rel), expected,
                            "lecture captions", report)
    except CaptionError as error:
        report.problems.append(Problem(error.source, error.detail))
    if _intact(CHAPTERS, recorded, report):
        shown = (out / CHAPTERS).read_text(encoding="utf-8").splitlines()
        lines = chapters_text(chapters).splitlines()
        place = _first_difference(shown, lines)
        if place is not None:
            read = repr(shown[place]) if place < len(shown) else "nothing"
            wanted = repr(lines[place]) if place < len(lines) else "no more lines"
            report.problems.append(Problem(CHAPTERS, f"line {place + 1} reads {read}; "
                                           f"expected {wanted}"))
        report.count("listed chapters", len(shown))
    if _intact(TRANSCRIPT, recorded, report):
        by_stem = {path.name.removesuffix(".figures.json"): manifest
                   for path, manifest in manifests.items()}
        _check_transcript(out, placed, by_stem, values, report)


def _check_joined(out: Path, placed: Sequence[Placed], media: Sequence[Media],
                  chapters: Sequence[Chapter], report: CheckReport) -> None:
    """``lecture.mp4``: its title and languages, a chapter per part starting where the
    part's first clip starts, and in each stream every clip's packets, in order, shifted by
    its start."""
    from outline import TITLE

    try:
        joined = read_media(out / VIDEO)
    except ExportError as error:
        report.problems.append(Problem(VIDEO, str(error)))
        return
    if joined.title != TITLE:
        report.problems.append(Problem(VIDEO, f"titled {joined.title!r}, expected {TITLE!r}"))
    for kind, language in (joined.languages or {}).items():
        if language != LANGUAGE:
            report.problems.append(Problem(VIDEO, f"its {kind} is in language {language!r}, "
                                           f"expected {LANGUAGE!r}"))
    expected = [(Fraction(ticks(c.start, MILLISECOND), 1000),
                 Fraction(ticks(c.end, MILLISECOND), 1000), c.title) for c in chapters]
    # A chapter's end is the next one's start: name the chapter that moved, not the one before.
    place = _first_difference([(start, title) for start, _, title in joined.chapters],
                              [(start, title) for start, _, title in expected])
    if place is None:
        place = _first_difference(joined.chapters, expected)
    report.count("lecture chapters", len(joined.chapters))
    if place is not None:
        def said(chapter: tuple[Fraction, Fraction, str] | None) -> str:
            return "nothing" if chapter is None else \
                f"“{chapter[2]}” at {clock(chapter[0], 3)}–{clock(chapter[1], 3)}"

        shown = joined.chapters[place] if place < len(joined.chapters) else None
        wanted = expected[place] if place < len(expected) else None
        report.problems.append(Problem(VIDEO, f"chapter {place + 1} is {said(shown)}; "
                                       f"expected {said(wanted)}"))
    kinds = sorted({kind for found in media for kind in found.streams} | set(joined.streams))
    for kind in kinds:
        stream = joined.streams.get(kind)
        sources = [(clip, found.streams[kind]) for clip, found in zip(placed, media,
                                                                     strict=True)
                   if kind in found.streams]
        if stream is None or len(sources) < len(placed):
            report.problems.append(Problem(VIDEO, f"its {kind} stream is not every clip's"))
            continue
        wanted_packets, owners = [], []
        for clip, source in sources:
            if (source.time_base, source.codec) != (stream.time_base, stream.codec):
                report.problems.append(Problem(VIDEO, f"its {kind} is encoded otherwise than "
                                               f"{clip.clip}'s"))
                break
            by = ticks(clip.start, source.time_base)
            wanted_packets += [packet.shifted(by) for packet in source.packets]
            owners += [(clip, n) for n in range(len(source.packets))]
        else:
            report.count("lecture packets", len(stream.packets))
            place = _first_difference(stream.packets, wanted_packets)
            if place is None:
                continue
            if place >= len(wanted_packets):
                report.problems.append(Problem(VIDEO, f"its {kind} has packets after the "
                                               "last clip's"))
                continue
            clip, n = owners[place]
            report.problems.append(Problem(VIDEO, f"its {kind} packet {place} is not packet "
                                           f"{n} of {clip.clip} placed at "
                                           f"{clock(clip.start, 3)}"))


def _check_transcript(out: Path, placed: Sequence[Placed],
                      manifests: dict[str, dict[str, Any]], values: Values,
                      report: CheckReport) -> None:
    """The transcript shows every clip in order, each section's captions with fresh texts
    and the figures on screen at its end with fresh display texts."""
    try:
        shown = read_transcript((out / TRANSCRIPT).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        report.problems.append(Problem(TRANSCRIPT, f"unreadable ({error})"))
        return
    stems = [clip.stem for clip in placed]
    if list(shown) != stems:
        report.problems.append(Problem(TRANSCRIPT, f"shows the clips {', '.join(shown) or 'none'}"
                                       f"; expected {', '.join(stems)}"))
        return
    for stem in stems:
        manifest = manifests.get(stem, {})
        sections, captions = manifest.get("sections", []), manifest.get("captions", [])
        if len(shown[stem]) != len(sections):
            report.problems.append(Problem(TRANSCRIPT, f"{stem}: {len(shown[stem])} sections, "
                                           f"expected {len(sections)}"))
            continue
        groups = section_captions(sections, captions, float(manifest.get("frame_rate", 15)))
        for section, panel, group in zip(sections, shown[stem], groups, strict=True):
            where = f"{stem} section “{section['name']}”"
            said = [captions[i] for i in group]
            keys = [str(figure["key"]) for figure in shown_once(section.get("figures", []))]
            if panel.name != section["name"] or [i for i, _ in panel.said] != [
                    c["index"] for c in said] or [key for key, _ in panel.figures] != keys:
                report.problems.append(Problem(TRANSCRIPT, f"{where}: not the section, captions "
                                               "and figures its manifest records"))
                continue
            for (_, text), caption in zip(panel.said, said, strict=True):
                report.count("transcript captions")
                fresh = _caption_text(caption, values)
                if text != fresh:
                    _locate(text, fresh, caption, f"{TRANSCRIPT} {where}", report)
            _compare([{"key": key, "text": text} for key, text in panel.figures], values,
                     report, "transcript figures", f"{TRANSCRIPT} {where}")


# --------------------------------------------------------------------------- pixels


def _is_text(values: Values, key: str) -> bool:
    """Words (a continuation, a verdict), compared as text in the manifests and captions,
    are not read back from pixels: OCR reads figures, and model text is not one."""
    try:
        return values[key].style is Style.TEXT
    except KeyError:
        return False


def _check_frames(out: Path, manifests: dict[Path, dict[str, Any]], values: Values,
                  report: CheckReport) -> None:
    from render.frames import read_clips

    jobs = []
    for path, manifest in manifests.items():
        video = path.with_name(path.name.replace(".figures.json", ".mp4"))
        sections = [{**section, "figures": [f for f in section.get("figures", [])
                                            if not _is_text(values, f["key"])]}
                    for section in manifest.get("sections", [])]
        expected = {f["key"]: _expected(values, f["key"])
                    for section in sections for f in section["figures"]}
        jobs.append((video, sections, expected))
    for reading in read_clips(jobs):
        report.frames.append(reading)
        report.count("figures read from pixels", reading.read)
        if reading.error:
            report.problems.append(Problem(f"video/{reading.clip}", reading.error))
        for figure in reading.figures:
            if not figure.matched:
                read = "(unreadable)" if figure.read is None else figure.read
                report.mismatches.append(Mismatch(
                    figure.key, read, figure.expected,
                    f"video/{reading.clip} frame {figure.frame} (“{figure.section}”)"))


def _check_audio(manifests: dict[Path, dict[str, Any]], values: Values,
                 report: CheckReport) -> None:
    """Each narrated clip's spoken figures, heard in its sound, against their fresh texts."""
    from render.hearing import hear_manifests

    for hearing in hear_manifests(manifests, values):
        report.hearing.append(hearing)
        report.count("spoken figures heard", hearing.heard)
        if hearing.error:
            report.problems.append(Problem(f"video/{hearing.clip}", hearing.error))
        for figure in hearing.figures:
            if not figure.matched:
                report.mismatches.append(Mismatch(
                    figure.key, figure.heard or "(not heard)", figure.expected,
                    f"video/{hearing.clip} sound of caption {figure.caption}"))


# --------------------------------------------------------------------------- staleness


def _experiment(build: dict[str, Any], ws: Worksheet, report: CheckReport) -> Any:
    """The experiment the build used, read again from where it was; a changed file is
    reported stale (its fresh figures are then compared, naming what moved).

    Raises
    ------
    OutputError
        When the build used an experiment that is no longer there, or no longer valid.
    """
    from worksheet import ExperimentError
    from worksheet.results import load_experiment

    recorded = build.get("experiment")
    if not recorded:
        return None
    where = Path(str(recorded.get("path", "")))
    if not where.is_file():
        raise OutputError(f"the build used the experiment {where} (sha256 "
                          f"{str(recorded.get('sha256'))[:12]}), which is missing; restore it, "
                          "or build again with another --experiment")
    try:
        experiment = load_experiment(where, ws)
    except ExperimentError as error:
        raise OutputError(f"the build's experiment is no longer usable: {error}") from None
    if experiment.sha256 != recorded.get("sha256"):
        report.stale.append(f"experiment {where} changed since the build (built from "
                            f"{str(recorded.get('sha256'))[:12]}, now {experiment.sha256[:12]})")
    return experiment


def _check_explorer(out: Path, ws: Worksheet, report: CheckReport) -> None:
    """The worksheet explorer's model in the deck is the graph exported again from the
    worksheet, byte for byte."""
    from slides.explorer import EXPLORER_MODEL, explorer_script

    file = out / "slides" / EXPLORER_MODEL
    if not file.is_file() or file.read_text(encoding="utf-8") != explorer_script(ws):
        report.problems.append(Problem(f"slides/{EXPLORER_MODEL}", "missing, or not the "
                                       "graph the worksheet exports"))
        return
    report.count("explorer graphs")


def _check_live_models(out: Path, experiment: Any, graphs: dict[str, bytes],
                       report: CheckReport) -> None:
    """The live slide's models file is the one the deck's writer makes from the shipped
    checkpoints' graphs, exported again here, byte for byte."""
    from slides.live import MODELS, LiveData, models_script

    folder = experiment.path.parent
    tokenizer = (folder / experiment.document["tokenizer"]["file"]).read_bytes()
    expected = models_script(LiveData(folder, dict(experiment.document), tokenizer, graphs))
    file = out / "slides" / MODELS
    if not file.is_file() or file.read_text(encoding="utf-8") != expected:
        report.problems.append(Problem(f"slides/{MODELS}", "missing, or its models are not "
                                       "the graphs of the shipped checkpoints"))
        return
    report.count("live models", len(graphs))


def _check_shipped(experiment: Any, report: CheckReport) -> dict[str, bytes]:
    """The experiment's tokenizer and shipped checkpoints have the sha256 its record gives,
    and each checkpoint exported again gives the graph the record names; the graphs."""
    from worksheet import ExperimentError
    from worksheet.graphs import shipped

    try:
        graphs = shipped(experiment.path.parent, experiment.document).graphs
    except ExperimentError as error:
        report.problems.append(Problem(str(experiment.path.parent), str(error)))
        return {}
    report.count("shipped models", len(graphs))
    return graphs


def _stale(out: Path, build: dict[str, Any], ws: Worksheet, ws_path: str,
           report: CheckReport) -> None:
    """The worksheet, and each output's own sources (its import closure), against what the
    build recorded."""
    recorded = build.get("worksheet", {})
    if recorded.get("sha256") != ws.sha256:
        report.stale.append(f"worksheet {ws_path} changed since the build "
                            f"(built from {recorded.get('sha256', '?')[:12]}, "
                            f"now {ws.sha256[:12]})")
    entries = {entry.name: entry for entry in lecture_order(ws.n_heads)}
    for scene in build.get("scenes", []):
        name, status = scene["name"], scene.get("status")
        if status == "failed":
            report.stale.append(f"scene {name} failed in the build")
        elif status == "stale":
            report.stale.append(f"scene {name} is out of date ({scene.get('reason')}); "
                                "run `lecture build`")
        elif status in KEPT and name not in entries:
            report.stale.append(f"scene {name} is no longer part of the lecture")
        elif status in KEPT:
            record = json.loads((out / "records" / f"{name}.json").read_text("utf-8")) \
                if (out / "records" / f"{name}.json").is_file() else {}
            _code_changes(record.get("parts", {}).get("sources", {}),
                          scene_sources(entries[name]), f"scene {name}", report)
    if not build.get("shard") and (out / DECK_RECORD).is_file():
        deck = json.loads((out / DECK_RECORD).read_text(encoding="utf-8"))
        _code_changes(deck.get("sources", {}), deck_sources(), "the deck", report)
    if not build.get("shard") and (out / LECTURE_RECORD).is_file():
        joined = json.loads((out / LECTURE_RECORD).read_text(encoding="utf-8"))
        if joined.get("sources"):
            _code_changes(joined["sources"], lecture_sources(), "the lecture", report)


def _code_changes(before: dict[str, str], files: list[str], what: str,
                  report: CheckReport) -> None:
    now = {name: file_digest(ROOT / name) for name in files}
    changed = sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))
    if changed:
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        report.stale.append(f"{what}: {', '.join(changed[:3])}{more} changed since the build")


def check_build(out: Path, worksheet: Path | None = None, frames: bool = False,
                scenes: Sequence[str] = (), audio: bool = False) -> CheckReport:
    """Verify a build folder against its records and a fresh computation.

    With ``frames``, also read every on-screen figure back from the clips' pixels; with
    ``audio``, hear every spoken figure back from their sound (of the named ``scenes``
    only, when some are named).

    Raises
    ------
    OutputError
        When the folder holds no ``build.json``, or a named scene is none of the lecture's.
    WorksheetError
        When the worksheet cannot be read.
    OcrError
        With ``frames``, when tesseract or its data is missing.
    """
    build_file = out / "build.json"
    try:
        build = json.loads(build_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"{build_file}: not found; run `lecture build --out {out}` "
                          "first") from None
    except (OSError, ValueError) as error:
        raise OutputError(f"{build_file}: unreadable ({error})") from None
    path = worksheet or Path(build.get("worksheet", {}).get("path", ""))
    ws = load_worksheet(path)
    entries = lecture_order(ws.n_heads)
    try:
        pick_scenes(entries, scenes)
    except KeyError as error:
        raise OutputError(error.args[0]) from None
    from worksheet import compute_values

    tried = {scene.get("name") for scene in build.get("scenes", [])
             if scene.get("status") in (*KEPT, "failed")}  # a failed one is reported stale
    report = CheckReport(lecture=[entry.name for entry in entries],
                         missing=[entry.name for entry in entries if entry.name not in tried])
    experiment = _experiment(build, ws, report)
    values = compute_values(ws, experiment)
    graphs: dict[str, bytes] = {}
    if experiment is not None and experiment.document.get("shipped"):
        graphs = _check_shipped(experiment, report)
    _stale(out, build, ws, str(path), report)
    recorded = _check_files(out, build, report)
    manifests: dict[Path, dict[str, Any]] = {}
    for rel in sorted(r for r in recorded if r.endswith(".figures.json")):
        try:
            manifests[out / rel] = json.loads((out / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # already reported as missing or altered
    for manifest_path, manifest in manifests.items():
        _check_manifest(manifest_path, manifest, values, report)
    captions = {p.name.removesuffix(".figures.json"): m.get("captions", [])
                for p, m in manifests.items()}
    if not build.get("shard"):
        _check_deck(out, values, recorded, captions, report)
        _check_explorer(out, ws, report)
        if graphs:
            _check_live_models(out, experiment, graphs, report)
        _check_script(out, ws, manifests, values, report)
        _check_storyboard(out, manifests, values, recorded, report)
        _check_clip_captions(out, recorded, report)
        _check_lecture(out, build, entries, manifests, values, recorded, report)
    report.counts["scenes"] = len(manifests)
    if frames or audio:
        known = {m.get("scene") for m in manifests.values()}
        unknown = sorted(set(scenes) - known)
        if unknown:
            raise OutputError(f"{out}: no rendered scene named {', '.join(unknown)}; "
                              f"expected one of {', '.join(sorted(known))}")
    picked = {p: m for p, m in manifests.items() if not scenes or m.get("scene") in scenes}
    if frames:
        _check_frames(out, picked, values, report)
    if audio:
        _check_audio(picked, values, report)
    return report
