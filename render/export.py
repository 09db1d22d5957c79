"""The lecture as one set of files, ``OUT/lecture/``: what a lecturer uploads.

A build that holds every clip of the lesson, each of them current, joins them here:

- ``lecture.mp4``: every clip's packets in lecture order, remuxed with PyAV (nothing is
  encoded again), with one container chapter per lesson part, titled as the outline
  titles its scenes, the lecture's title and the language of its tracks;
- ``lecture.srt`` and ``lecture.vtt``: every caption, shifted to where its clip starts;
- ``chapters.txt``: one ``0:00 Title`` line per chapter, as video platforms read them from
  a description;
- ``transcript.html``: the narration by part and section and, under each section, the
  figures on screen at its end, from the clips' manifests: a text alternative for what
  the video shows (plain HTML, autoescaped, nothing loaded from elsewhere).

Every whole build (not a shard) also writes the captions of each clip as WebVTT beside
it, ``video/NN-Scene.vtt``. A build that lacks a clip of the lesson, or keeps one out of
date, removes ``lecture/``: no joined file outlives the clips it was joined from.

**Timing.** A clip lasts until the end of its longest stream (the latest packet's
``pts + duration``, an exact fraction of a second), and clip *k* starts at the exact sum
of the lengths of the clips before it. Each time written is that start rounded to the
nearest unit of its own clock: a stream's packets to its time base, chapters and captions
to the millisecond. ``lecture check`` recomputes all of it from the clips.

``records/lecture.json`` holds the sha256 of every file written here, the SubRip file each
clip's WebVTT was made from, the code the lecture was made with and its key (its clips,
manifests, titles, code and tools): a build with nothing changed writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any

from outline import SceneEntry, video_stem
from outputs.files import OutputError, file_digest, remembered_digest, write_json, write_text
from render.closure import ROOT, import_closure
from worksheet.names import plain_name

__all__ = ["CHAPTERS", "FOLDER", "KINDS", "LANGUAGE", "LECTURE_FILES", "MILLISECOND", "RECORD",
           "SUBRIP", "TRANSCRIPT", "VIDEO", "WEBVTT", "Chapter", "Cue", "ExportError", "Media",
           "Packet", "Placed", "ShownSection", "Stream", "Transcript", "chapters_text",
           "clip_webvtt", "clock", "lecture_chapters", "lecture_sources", "merged_cues",
           "place_clips", "read_media", "read_transcript", "read_webvtt", "shown_once",
           "subrip_cues", "ticks", "transcript_context", "transcript_html", "withdraw",
           "write_exports"]

FOLDER = "lecture"
VIDEO = f"{FOLDER}/lecture.mp4"
SUBRIP = f"{FOLDER}/lecture.srt"
WEBVTT = f"{FOLDER}/lecture.vtt"
CHAPTERS = f"{FOLDER}/chapters.txt"
TRANSCRIPT = f"{FOLDER}/transcript.html"
LECTURE_FILES = (VIDEO, SUBRIP, WEBVTT, CHAPTERS, TRANSCRIPT)
RECORD = "records/lecture.json"
LANGUAGE = "eng"
"""The language of the tracks, as MP4 tags it (ISO 639-2)."""
KINDS = ("video", "audio")
"""The streams a clip brings into the lecture (the chapters' text track is the lecture's)."""
MILLISECOND = Fraction(1, 1000)
MODULE = "render/export.py"
TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE = "transcript.html.j2"
_LAST_INDEX = re.compile(r"\[\d+\]$")


class ExportError(OutputError):
    """The clips cannot be joined into one file; the message says which clip and why."""


# --------------------------------------------------------------------------- timing


def ticks(seconds: Fraction, unit: Fraction) -> int:
    """``seconds`` in whole ``unit``s, rounded to the nearest (halves up)."""
    return math.floor(seconds / unit + Fraction(1, 2))


def clock(seconds: Fraction | float, places: int = 0) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour on), with ``places`` decimals of a second; whole
    seconds are rounded down."""
    scale = 10 ** places
    total = math.floor(Fraction(seconds) * scale)
    whole, part = divmod(total, scale)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
    return f"{text}.{part:0{places}d}" if places else text


@dataclass(frozen=True)
class Packet:
    """One packet of a stream as the check compares it: its times, whether it starts a
    picture one can seek to, and the sha256 of its bytes."""

    pts: int | None
    dts: int
    key: bool
    digest: bytes

    def shifted(self, by: int) -> Packet:
        return Packet(None if self.pts is None else self.pts + by, self.dts + by, self.key,
                      self.digest)


@dataclass(frozen=True)
class Stream:
    kind: str
    time_base: Fraction
    codec: str
    """The sha256 of what a decoder needs to know before the first packet (codec, size,
    pixel or sample format, rate, layout, extradata): clips join into one stream only when
    theirs are equal."""
    packets: tuple[Packet, ...]


@dataclass(frozen=True)
class Media:
    """A clip's (or the lecture's) video and audio streams, by kind."""

    streams: Mapping[str, Stream]
    length: Fraction
    """Seconds until the end of its longest stream."""
    title: str = ""
    languages: Mapping[str, str] | None = None
    chapters: tuple[tuple[Fraction, Fraction, str], ...] = ()
    """``(start, end, title)`` of each container chapter, in seconds."""


def _codec(stream: Any) -> str:
    context = stream.codec_context
    video = stream.type == "video"
    facts = [context.name, stream.type,
             [context.width, context.height, str(context.pix_fmt)] if video
             else [context.sample_rate, context.layout.name, context.format.name],
             bytes(context.extradata or b"").hex()]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()


def read_media(path: Path) -> Media:
    """The video and audio packets of an MP4 file, its length, title, track languages and
    chapters.

    Raises
    ------
    ExportError
        When the file cannot be read as a video.
    """
    import av

    try:
        with av.open(str(path)) as container:
            chosen = [s for s in container.streams if s.type in KINDS]
            if not any(s.type == "video" for s in chosen):
                raise ExportError(f"{path.name}: no video stream")
            packets: dict[int, list[Packet]] = {s.index: [] for s in chosen}
            ends: dict[int, int] = {}
            for packet in container.demux(*chosen):
                if packet.dts is None:
                    continue
                index = packet.stream.index
                packets[index].append(Packet(packet.pts, packet.dts, packet.is_keyframe,
                                             hashlib.sha256(bytes(packet)).digest()))
                at = packet.pts if packet.pts is not None else packet.dts
                ends[index] = max(ends.get(index, at), at + (packet.duration or 0))
            streams = {s.type: Stream(s.type, Fraction(s.time_base), _codec(s),
                                      tuple(packets[s.index])) for s in chosen}
            length = max((Fraction(s.time_base) * ends[s.index] for s in chosen
                          if s.index in ends), default=Fraction(0))
            chapters = tuple(
                (chapter["start"] * chapter["time_base"], chapter["end"] * chapter["time_base"],
                 str(chapter["metadata"].get("title", "")))
                for chapter in container.chapters())
            return Media(streams, length, str(container.metadata.get("title", "")),
                         {s.type: str(s.metadata.get("language", "")) for s in chosen},
                         chapters)
    except av.FFmpegError as error:
        raise ExportError(f"{path.name}: not a readable video ({error})") from None


@dataclass(frozen=True)
class Placed:
    """A clip in the lecture: where it starts and how long it lasts, in seconds."""

    entry: SceneEntry
    stem: str
    start: Fraction
    length: Fraction

    @property
    def clip(self) -> str:
        """The clip, relative to the build folder."""
        return f"video/{self.stem}.mp4"


@dataclass(frozen=True)
class Chapter:
    part: str
    title: str
    start: Fraction
    end: Fraction


def place_clips(entries: Sequence[SceneEntry], lengths: Sequence[Fraction]
                ) -> tuple[Placed, ...]:
    """Each clip of ``entries`` (the whole lesson, in order) starting where the clips
    before it end."""
    placed, start = [], Fraction(0)
    for entry, length in zip(entries, lengths, strict=True):
        placed.append(Placed(entry, video_stem(tuple(entries), entry.name), start, length))
        start += length
    return tuple(placed)


def lecture_chapters(placed: Sequence[Placed]) -> tuple[Chapter, ...]:
    """One chapter per lesson part, from its first clip's start to the next part's: titled
    with its scenes' titles from the outline, in order (a part of one scene takes its
    title)."""
    groups: list[list[Placed]] = []
    for clip in placed:
        if groups and groups[-1][0].entry.part == clip.entry.part:
            groups[-1].append(clip)
        else:
            groups.append([clip])
    return tuple(Chapter(group[0].entry.part,
                         "; ".join(dict.fromkeys(clip.entry.title for clip in group)),
                         group[0].start, group[-1].start + group[-1].length)
                 for group in groups)


def chapters_text(chapters: Iterable[Chapter]) -> str:
    """A ``0:00 Title`` line per chapter: each start in whole seconds, rounded down."""
    return "".join(f"{clock(chapter.start)} {chapter.title}\n" for chapter in chapters)


# --------------------------------------------------------------------------- captions


@dataclass(frozen=True)
class Cue:
    """A caption: its times in whole milliseconds and its plain text."""

    start: int
    end: int
    text: str

    def shifted(self, by: int) -> Cue:
        return Cue(self.start + by, self.end + by, self.text)

    def __str__(self) -> str:
        return f"“{self.text}” at {clock(self.start * MILLISECOND, 3)}–" \
               f"{clock(self.end * MILLISECOND, 3)}"


def _ms(time: timedelta) -> int:
    return time // timedelta(milliseconds=1)


def subrip_cues(text: str, source: str) -> list[Cue]:
    """The cues of SubRip captions.

    Raises
    ------
    CaptionError
        When the text is not SubRip (see :func:`slides.captions.read_subrip`).
    """
    from slides.captions import read_subrip

    return [Cue(_ms(cue.start), _ms(cue.end), cue.content) for cue in read_subrip(text, source)]


def read_webvtt(text: str, source: str) -> list[Cue]:
    """The cues of WebVTT captions, their text with character references undone.

    Raises
    ------
    CaptionError
        When the text is not WebVTT or a cue's timing cannot be read.
    """
    import html

    from webvtt import WebVTT
    from webvtt.errors import MalformedCaptionError, MalformedFileError

    from slides.captions import CaptionError

    try:
        captions = WebVTT.from_string(text, strict=True).captions
    except MalformedFileError:
        raise CaptionError(source, "not WebVTT: expected its first line to be WEBVTT") from None
    except MalformedCaptionError as error:
        raise CaptionError(source, f"a cue that cannot be read ({error})") from None
    return [Cue(c.start_time.in_milliseconds(), c.end_time.in_milliseconds(),
                html.unescape(c.raw_text)) for c in captions]


def merged_cues(clips: Iterable[tuple[Placed, Sequence[Cue]]]) -> list[Cue]:
    """Every clip's cues, in lecture order, each shifted by its clip's start (rounded to
    the millisecond)."""
    return [cue.shifted(ticks(placed.start, MILLISECOND))
            for placed, cues in clips for cue in cues]


def _subrip(cues: Sequence[Cue]) -> str:
    import srt

    return srt.compose([srt.Subtitle(n, timedelta(milliseconds=cue.start),
                                     timedelta(milliseconds=cue.end), cue.text)
                        for n, cue in enumerate(cues, start=1)], reindex=False)


def clip_webvtt(subrip: str, source: str) -> str:
    """A clip's SubRip captions as WebVTT: the same cues, times and texts."""
    from slides.captions import srt_to_vtt

    return srt_to_vtt(subrip, source)


# --------------------------------------------------------------------------- transcript


@dataclass(frozen=True)
class Said:
    index: int
    text: str


@dataclass(frozen=True)
class Shown:
    key: str
    text: str


@dataclass(frozen=True)
class FigureRow:
    """Consecutive figures of one row of a value (a list of weights, a matrix's row)."""

    name: str
    """What the row is, in words (:func:`worksheet.names.plain_name`)."""
    figures: tuple[Shown, ...]


@dataclass(frozen=True)
class TranscriptSection:
    number: int
    name: str
    end: Fraction
    """Seconds into the lecture at which the section ends."""
    said: tuple[Said, ...]
    rows: tuple[FigureRow, ...]
    level: int
    """Its heading's level: under its clip's heading, or under the part's when the part
    is that one clip."""

    @property
    def clock(self) -> str:
        return clock(self.end)


@dataclass(frozen=True)
class TranscriptClip:
    stem: str
    scene: str
    title: str
    start: Fraction
    sections: tuple[TranscriptSection, ...]
    heading: bool
    """Whether it has a heading of its own (its part has several clips)."""


@dataclass(frozen=True)
class TranscriptPart:
    id: str
    title: str
    start: Fraction
    clips: tuple[TranscriptClip, ...]

    @property
    def clock(self) -> str:
        return clock(self.start)

    @property
    def seconds(self) -> str:
        """Its start for a media fragment (``#t=``), to the millisecond."""
        return f"{ticks(self.start, MILLISECOND) / 1000:.3f}"


@dataclass(frozen=True)
class Transcript:
    title: str
    parts: tuple[TranscriptPart, ...]
    length: Fraction
    video: str = Path(VIDEO).name
    """The joined file, relative to the page."""

    @property
    def clock(self) -> str:
        return clock(self.length)


def shown_once(figures: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Each figure of a section once, where it first appears in the manifest (a query drawn
    beside each of ten keys is one figure, read once)."""
    first: dict[str, Mapping[str, Any]] = {}
    for figure in figures:
        first.setdefault(str(figure["key"]), figure)
    return list(first.values())


def _rows(figures: Sequence[Mapping[str, Any]]) -> tuple[FigureRow, ...]:
    """The figures in screen order, each once, consecutive ones of one row (their keys the
    same but for the last index) together."""
    rows: list[tuple[str, list[Shown]]] = []
    for figure in shown_once(figures):
        row = _LAST_INDEX.sub("", str(figure["key"]))
        if not rows or rows[-1][0] != row:
            rows.append((row, []))
        rows[-1][1].append(Shown(str(figure["key"]), str(figure["text"])))
    return tuple(FigureRow(plain_name(row), tuple(shown)) for row, shown in rows)


def transcript_context(title: str, placed: Sequence[Placed],
                       manifests: Mapping[str, Mapping[str, Any]],
                       chapters: Sequence[Chapter]) -> Transcript:
    """The page's content: per chapter, per clip (``manifests`` by stem), per section the
    captions spoken in it (as the storyboard groups them) and the figures on screen at its
    end."""
    from render.storyboard import section_captions

    parts = []
    for chapter in chapters:
        mine = [clip for clip in placed if clip.entry.part == chapter.part
                and chapter.start <= clip.start < chapter.end]
        heading = len(mine) > 1
        clips = []
        for clip in mine:
            manifest = manifests[clip.stem]
            sections, captions = manifest.get("sections", []), manifest.get("captions", [])
            rate = Fraction(str(manifest.get("frame_rate", 15)))
            clips.append(TranscriptClip(clip.stem, clip.entry.name, clip.entry.title,
                                        clip.start, tuple(
                TranscriptSection(
                    number, str(section["name"]),
                    clip.start + (int(section["frame"]) + 1) / rate,
                    tuple(Said(int(captions[i]["index"]), str(captions[i]["text"]))
                          for i in group),
                    _rows(section.get("figures", [])), 4 if heading else 3)
                for number, (section, group) in enumerate(
                    zip(sections, section_captions(sections, captions, float(rate)),
                        strict=True), start=1)), heading))
        parts.append(TranscriptPart(chapter.part, chapter.title, chapter.start, tuple(clips)))
    length = chapters[-1].end if chapters else Fraction(0)
    return Transcript(title, tuple(parts), length)


def transcript_html(transcript: Transcript) -> str:
    """The page for ``transcript``, autoescaped."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)
    return environment.get_template(TEMPLATE).render(transcript=transcript)


@dataclass
class ShownSection:
    """A section as the page shows it: its captions ``(index, text)`` and its figures
    ``(key, text)``, in order."""

    name: str
    said: list[tuple[int, str]]
    figures: list[tuple[str, str]]


def read_transcript(html: str) -> dict[str, list[ShownSection]]:
    """The sections the page shows, by clip stem, in page order."""
    from outputs.html import read_html

    clips: dict[str, list[ShownSection]] = {}
    for element in read_html(html).iter():
        stem = element.attrs.get("data-clip")
        if stem is None:
            continue
        clips[str(stem)] = [
            ShownSection(str(section.attrs["data-section"]),
                         [(int(str(said.attrs["data-caption"])), said.text)
                          for said in section.iter() if "data-caption" in said.attrs],
                         [(str(shown.attrs["data-key"]), shown.text)
                          for shown in section.iter() if "data-key" in shown.attrs])
            for section in element.iter() if "data-section" in section.attrs]
    return clips


# --------------------------------------------------------------------------- writing


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _intact(out: Path, outputs: Mapping[str, str], names: Iterable[str]) -> bool:
    return all(name in outputs and (out / name).is_file()
               and remembered_digest(out / name) == outputs[name] for name in names)


def lecture_sources() -> list[str]:
    """The files the lecture's making depends on: this module's import closure and the
    transcript's template."""
    return [*import_closure([ROOT / MODULE], ROOT), f"render/templates/{TEMPLATE}"]


def _code() -> dict[str, str]:
    """What the lecture depends on besides its clips: this code, its template and tools."""
    files = {name: file_digest(ROOT / name) for name in lecture_sources()}

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return {**files, **{tool: version(tool) for tool in ("av", "srt", "webvtt-py", "jinja2")}}


def _join(out: Path, placed: Sequence[Placed], media: Sequence[Media],
          chapters: Sequence[Chapter], title: str) -> None:
    """Write ``lecture.mp4``: every clip's packets shifted to its start, atomically."""
    import av

    first = media[0]
    for clip, found in zip(placed, media, strict=True):
        for kind in sorted(set(first.streams) | set(found.streams)):
            mine, theirs = found.streams.get(kind), first.streams.get(kind)
            if mine is None or theirs is None:
                raise ExportError(f"{clip.clip}: {'has no' if mine is None else 'has a'} "
                                  f"{kind} stream, unlike {placed[0].clip}; build the lesson "
                                  "again with one narration")
            if (mine.time_base, mine.codec) != (theirs.time_base, theirs.codec):
                raise ExportError(f"{clip.clip}: its {kind} is encoded otherwise than "
                                  f"{placed[0].clip}'s (time base {mine.time_base} against "
                                  f"{theirs.time_base}, or codec settings); build the lesson "
                                  "again at one quality")
    target = out / VIDEO
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(handle)
    staging = Path(name)
    try:
        with av.open(str(staging), "w", format="mp4",
                     options={"movflags": "+faststart"}) as joined:
            joined.metadata["title"] = title
            with av.open(str(out / placed[0].clip)) as template:
                streams = {s.type: joined.add_stream_from_template(s)
                           for s in template.streams if s.type in KINDS}
            for stream in streams.values():
                stream.metadata["language"] = LANGUAGE
            joined.set_chapters([
                {"id": number, "start": ticks(chapter.start, MILLISECOND),
                 "end": ticks(chapter.end, MILLISECOND), "time_base": MILLISECOND,
                 "metadata": {"title": chapter.title}}
                for number, chapter in enumerate(chapters, start=1)])
            for clip in placed:
                with av.open(str(out / clip.clip)) as source:
                    chosen = [s for s in source.streams if s.type in KINDS]
                    shift = {s.index: ticks(clip.start, Fraction(s.time_base)) for s in chosen}
                    for packet in source.demux(*chosen):
                        if packet.dts is None:
                            continue
                        by = shift[packet.stream.index]
                        if packet.pts is not None:
                            packet.pts += by
                        packet.dts += by
                        packet.stream = streams[packet.stream.type]
                        joined.mux(packet)
        with staging.open("rb") as stream:
            os.fsync(stream.fileno())
        os.chmod(staging, 0o644)
        os.replace(staging, target)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise


def _write_clip_captions(out: Path, names: Sequence[tuple[str, str]],
                         previous: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """``video/NN-Scene.vtt`` beside each clip ``(scene, stem)`` that has captions, made
    again only when its ``.srt`` changed; the SubRip digest each was made from and the
    digest of each."""
    sources, outputs = {}, {}
    made_from, before = previous.get("captions", {}), previous.get("outputs", {})
    for _, stem in names:
        subrip = out / "video" / f"{stem}.srt"
        if not subrip.is_file():
            continue
        rel = f"video/{stem}.vtt"
        source = remembered_digest(subrip)
        if made_from.get(rel) != source or not _intact(out, before, [rel]):
            write_text(out / rel, clip_webvtt(subrip.read_text(encoding="utf-8"), rel))
        sources[rel], outputs[rel] = source, remembered_digest(out / rel)
    return sources, outputs


def _lecture_key(out: Path, entries: Sequence[SceneEntry], title: str,
                 code: Mapping[str, str]) -> str:
    """The lecture's key: every clip with its captions and manifest, the scenes' parts and
    titles, the lecture's title, and :func:`_code`."""
    stems = [video_stem(tuple(entries), entry.name) for entry in entries]
    clips = [[entry.name, entry.part, entry.title, stem,
              *(remembered_digest(out / "video" / f"{stem}{suffix}")
                for suffix in (".mp4", ".srt", ".figures.json"))]
             for entry, stem in zip(entries, stems, strict=True)]
    text = json.dumps([title, clips, code], sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write_lecture(out: Path, entries: Sequence[SceneEntry], title: str) -> None:
    """Join the clips of ``entries`` and write the captions, chapters and transcript."""
    media = [read_media(out / "video" / f"{video_stem(tuple(entries), e.name)}.mp4")
             for e in entries]
    placed = place_clips(entries, [found.length for found in media])
    chapters = lecture_chapters(placed)
    (out / FOLDER).mkdir(parents=True, exist_ok=True)
    _join(out, placed, media, chapters, title)
    cues = merged_cues((clip, subrip_cues(
        (out / "video" / f"{clip.stem}.srt").read_text(encoding="utf-8"),
        f"video/{clip.stem}.srt")) for clip in placed)
    subrip = _subrip(cues)
    write_text(out / SUBRIP, subrip)
    write_text(out / WEBVTT, clip_webvtt(subrip, WEBVTT))
    write_text(out / CHAPTERS, chapters_text(chapters))
    manifests = {clip.stem: json.loads((out / "video" / f"{clip.stem}.figures.json")
                                       .read_text(encoding="utf-8")) for clip in placed}
    write_text(out / TRANSCRIPT,
               transcript_html(transcript_context(title, placed, manifests, chapters)))


def _remove(out: Path, names: Iterable[str]) -> None:
    for name in names:
        (out / name).unlink(missing_ok=True)
    folder = out / FOLDER
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


def write_exports(out: Path, entries: Sequence[SceneEntry], kept: Collection[str],
                  current: Collection[str], title: str) -> str:
    """Write each kept clip's WebVTT and, when every scene of ``entries`` (the lesson, in
    order) is ``current``, the lecture; otherwise remove any earlier lecture. Then
    ``records/lecture.json``. Returns what happened to the lecture, in a few words.

    Raises
    ------
    ExportError
        When the clips cannot be joined (the lecture is then removed; the WebVTT files and
        the record are written all the same).
    CaptionError
        When a clip's captions cannot be read.
    """
    previous = _read_json(out / RECORD) or {}
    before = previous.get("outputs", {})
    named = [(entry.name, video_stem(tuple(entries), entry.name)) for entry in entries
             if entry.name in kept]
    made_from, outputs = _write_clip_captions(out, named, previous)
    _remove(out, [rel for rel in before if rel.startswith("video/") and rel not in outputs])
    lacking = [entry.name for entry in entries if entry.name not in current]
    key, failure, sources = None, None, None
    if lacking:
        earlier = any(name in before for name in LECTURE_FILES)
        _remove(out, LECTURE_FILES)
        summary = (f"not joined ({len(lacking)} of {len(entries)} scenes not built or not "
                   f"current){'; the earlier one removed' if earlier else ''}")
    else:
        code = _code()
        key = _lecture_key(out, entries, title, code)
        sources = {name: code[name] for name in lecture_sources()}
        if previous.get("key") == key and _intact(out, before, LECTURE_FILES):
            summary = "reused"
        else:
            try:
                _write_lecture(out, entries, title)
                summary = "joined"
            except ExportError as error:
                _remove(out, LECTURE_FILES)
                key, failure, sources = None, error, None
        if key is not None:
            outputs |= {name: remembered_digest(out / name) for name in LECTURE_FILES}
    record = {"key": key, "sources": sources, "captions": made_from, "outputs": outputs}
    if record != previous:
        write_json(out / RECORD, record)
    if failure is not None:
        raise failure
    return summary


def withdraw(out: Path) -> None:
    """Remove the lecture, every clip's WebVTT and their record (a shard build: its folder
    holds a share of the clips, whose WebVTT the whole build that merges them writes)."""
    previous = _read_json(out / RECORD) or {}
    _remove(out, [*previous.get("outputs", {}), *LECTURE_FILES])
    (out / RECORD).unlink(missing_ok=True)

