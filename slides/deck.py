"""Build the Reveal.js deck: gather and validate everything, then write it in one move.

Stages, each usable on its own:

1. :func:`deck_context` turns the worksheet values into the typed deck (stacks, slides,
   fragments, switcher panels), closing each part's stack with a clip slide for every
   rendered scene (in lecture order when a part holds several);
2. :func:`find_clips` finds rendered scenes in ``OUT/video/``, converts their subtitles
   to WebVTT, which the clip's ``<track>`` carries as a ``data:`` URL, and picks the
   frame each clip's poster shows (:mod:`slides.posters`);
3. :func:`render_html` displays the deck through the jinja2 templates;
4. :func:`build_deck` does all of that, then writes ``OUT/slides/`` into a staging
   folder and swaps it into place, so a failed build never leaves a half-written deck.
   Every deck carries ONNX Runtime Web and the worksheet's own model, which the explorer
   slide runs in the browser (:mod:`slides.live`, :mod:`slides.explorer`). Given an
   experiment that ships its models, the deck carries them too, and the trained stack
   ends on the live slide.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from base64 import b64encode
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from outline import STEP_NAMES, TITLE, SceneEntry, lecture_order, part, video_stem
from outputs.files import OutputError, file_digest, write_text
from outputs.html import read_html
from slides.assets import Assets, DeckError, deck_assets
from slides.captions import CaptionError, srt_to_vtt
from slides.context import Deck, Runs, Slide, Stack, Text, Video, number_pictures
from slides.explorer import write_explorer
from slides.lesson import build_stacks
from slides.lesson.kit import Book
from slides.live import live_data, write_live, write_runtime
from slides.pdf import print_pdf
from slides.posters import manifest_of, poster_frame, poster_tools, write_poster
from worksheet import Values, Worksheet

__all__ = ["Clip", "build_deck", "deck_context", "find_clips", "poster_sources",
           "render_html"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
TRANSCRIPT = "lecture/transcript.html"
"""The lecture's transcript in a build folder (written by ``render.export`` before the
deck), which each clip slide links to."""


@dataclass(frozen=True)
class Clip:
    """A rendered scene: its place in the running order, its video and its captions."""

    entry: SceneEntry
    stem: str
    video: Path
    captions: str | None
    """WebVTT text converted from the scene's ``.srt``; ``None`` without subtitles."""
    digest: str
    """sha256 of the video file."""
    frame: int | None = None
    """The frame its poster shows (``None``: no poster)."""
    steps: tuple[str, ...] = ()
    """Its sections' names in order, from its manifest (the map's opening, and names that
    carry a head's number, left out)."""
    transcript: str | None = None
    """Its part of the lecture's transcript, relative to the deck's ``index.html``
    (``None`` when the build has no transcript, or it does not hold the clip)."""

    @property
    def poster(self) -> str | None:
        """The poster's path inside the deck folder."""
        return None if self.frame is None else f"posters/{self.stem}.jpg"


def find_clips(ws: Worksheet, video_folder: Path) -> tuple[Clip, ...]:
    """Every scene of the running order rendered as ``video_folder/NN-<Scene>.mp4``.

    Raises
    ------
    DeckError
        When a scene's ``.srt`` or manifest cannot be read, or its clip decoded.
    """
    entries = lecture_order(ws.n_heads)
    anchors = _transcript_anchors(video_folder.parent / TRANSCRIPT)
    clips = []
    for entry in entries:
        stem = video_stem(entries, entry.name)
        video = video_folder / f"{stem}.mp4"
        if not video.is_file():
            continue
        subtitles = video.with_suffix(".srt")
        captions = None
        if subtitles.is_file():
            try:
                captions = srt_to_vtt(subtitles.read_text(encoding="utf-8"), str(subtitles))
            except (CaptionError, OSError, UnicodeDecodeError) as error:
                raise DeckError(f"{subtitles}: cannot use these captions ({error})") from None
        manifest = manifest_of(video)
        # Named steps only: a section named by a head's number is a repeat of its kind.
        steps = tuple(dict.fromkeys(
            section["name"] for section in (manifest or {}).get("sections", [])
            if section["name"] not in ("where we are", "opening")
            and not any(char.isdigit() for char in section["name"])))
        # the clip's own heading when its part has several clips, else its first section's
        anchor = next((a for a in (stem, f"{stem}-1") if a in anchors), None)
        clips.append(Clip(entry, stem, video, captions, file_digest(video),
                          poster_frame(video, manifest), steps,
                          None if anchor is None else f"../{TRANSCRIPT}#{anchor}"))
    return tuple(clips)


def _transcript_anchors(page: Path) -> frozenset[str]:
    """The ids of the transcript beside the deck (none when there is no transcript: a
    build that does not hold every clip of the lecture writes none)."""
    try:
        text = page.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    except (OSError, UnicodeDecodeError) as error:
        raise DeckError(f"{page}: cannot read the transcript ({error})") from None
    return frozenset(str(element.attrs["id"]) for element in read_html(text).iter()
                     if element.attrs.get("id"))


def poster_sources(clips: Sequence[Clip]) -> dict[str, dict[str, str | int]]:
    """What each poster of the deck shows, for the deck's record: the clip (relative to
    the build folder), its sha256, the frame, and the decoder and encoder that made the
    image (their versions decide its bytes), keyed by the poster's path there."""
    made_by = poster_tools()
    return {f"slides/{clip.poster}": {"clip": f"video/{clip.stem}.mp4", "sha256": clip.digest,
                                      "frame": clip.frame, "made_by": made_by}
            for clip in clips if clip.poster is not None}


def deck_context(ws: Worksheet, values: Values, clips: Sequence[Clip] = (),
                 live: bool = False) -> Deck:
    """The typed deck for a worksheet; the clips of a lesson part close its (first) stack,
    in lecture order (a part may hold several scenes). With ``live``, the deck carries the
    trained models, and the trained stack ends on the slide that runs them."""
    book = Book(ws, values, live)
    stacks = list(build_stacks(book))
    order = {entry.name: i for i, entry in enumerate(lecture_order(ws.n_heads))}
    placed: dict[int, list[Clip]] = {}
    for clip in sorted(clips, key=lambda c: order[c.entry.name]):
        where = next((i for i, stack in enumerate(stacks)
                      if stack.part == clip.entry.part and stack.head == clip.entry.head),
                     None)
        if where is None:
            raise DeckError(f"{clip.video}: scene {clip.entry.name} belongs to lesson part "
                            f"{clip.entry.part!r}, which has no stack in the deck")
        placed.setdefault(where, []).append(clip)
    for where, mine in placed.items():
        stacks[where] = _with_clips(book, stacks[where], mine)
    return number_pictures(Deck(TITLE, tuple(stacks)))


def _with_clips(book: Book, stack: Stack, clips: Sequence[Clip]) -> Stack:
    """One slide per clip after the stack's slides: ``<stack>-clip``, ``<stack>-clip-2``…"""
    slides = tuple(_clip_slide(book, stack, clip, "" if n == 1 else f"-{n}")
                   for n, clip in enumerate(clips, start=1))
    return replace(stack, slides=(*stack.slides, *slides))


def _scene_title(book: Book, entry: SceneEntry) -> Runs:
    """The scene's title from the outline, a head's number bound to its key."""
    template = next(title for _, name, title in part(entry.part).scenes
                    if name.replace("{h}", "") == (entry.family or entry.name))
    return book.say(template, h=book.number(entry.head)) if entry.head else book.say(template)


def _listed(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _clip_slide(book: Book, stack: Stack, clip: Clip, suffix: str) -> Slide:
    # Embedded: browsers refuse to load a separate track file into a page opened from file://.
    captions = None if clip.captions is None else \
        "data:text/vtt;charset=utf-8;base64," + b64encode(clip.captions.encode()).decode()
    title = _scene_title(book, clip.entry)
    notes: list[Runs] = [(
        Text("Play the clip “"), *title,
        *((Text("” now that the slides of “"), *stack.title,
           Text("” have shown every number: it goes through the same steps again, narrated "
                "and captioned, outlining what it names."))
          if not suffix else (Text("”, the part's next clip in lecture order, which goes on "
                                   "from the last one: let it run, then sum up the part."),)),
    )]
    lesson_part = part(clip.entry.part)
    if not suffix and lesson_part.opening:
        lit = [STEP_NAMES[step] for step in lesson_part.steps]
        notes.append((Text(f"It opens on the model map with {_listed(lit)} lit, saying: "
                           f"“{lesson_part.opening}”"),))
    if clip.steps:
        notes.append((Text(f"Its steps, in order: {_listed(list(clip.steps))}. The poster is "
                           f"the end of the last, “{clip.steps[-1]}”: a frame to pause on and "
                           "sum up."),))
    return Slide(f"{stack.id}-clip{suffix}", title,
                 (Video(f"video/{clip.stem}.mp4", captions, clip.digest, clip.poster,
                        transcript=clip.transcript),),
                 tuple(notes), stack.part, stack.head, role="clip")


@cache
def _environment() -> Environment:
    """The templates, compiled once and again only when one changes on disk (jinja2's
    ``auto_reload``)."""
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                       keep_trailing_newline=True)


def render_html(deck: Deck, assets: Assets) -> str:
    """``index.html`` for the deck."""
    return _environment().get_template("deck.html.j2").render(deck=deck, assets=assets)


def _prepare_output(out: Path) -> None:
    """Fail before any work when ``out/slides`` cannot be written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{out}: is a file; expected an output folder") from None
    except OSError as error:
        raise OutputError(f"{out}: cannot create the output folder ({error.strerror})") \
            from None
    target = out / "slides"
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target}: is a file; expected the deck's folder")
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputError(f"{out}: not writable; choose another --out folder")


@contextmanager
def _staging(out: Path) -> Iterator[Path]:
    """A fresh folder beside ``out/slides``; removed unless it was moved into place."""
    try:
        folder = Path(tempfile.mkdtemp(prefix=".slides-", dir=out))
    except OSError as error:
        raise OutputError(f"{out}: cannot write the deck ({error.strerror})") from None
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _publish(folder: Path, target: Path) -> None:
    """Swap the finished ``folder`` in as ``target``, replacing any previous deck."""
    folder.chmod(0o755)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=".slides-old-", dir=target.parent))
        os.replace(target, old / "slides")
    os.replace(folder, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    target.chmod(0o644)


def build_deck(ws: Worksheet, values: Values, out: Path, *, pdf: bool = False,
               experiment: Path | None = None) -> Path:
    """Write the deck to ``out/slides/index.html`` with its assets; return that path.

    With ``pdf``, also ``out/slides/slides.pdf``, one page per slide at slide size.
    Rendered clips in ``out/video/`` are copied in and shown on their part's stack. The
    worksheet's own model and the runtime it runs on go beside the deck (the explorer
    slide). An ``experiment`` (its folder, or its ``experiment.json``; the one ``values``
    were computed with) that ships its models puts them in the deck, with the live slide.

    Raises
    ------
    OutputError
        When ``out`` cannot be written, or (as :class:`~slides.assets.DeckError`) when
        the assets, a clip's captions or the browser for the PDF are unusable; the
        previous deck, if any, is then left untouched.
    """
    out = Path(out)
    _prepare_output(out)
    assets = deck_assets()
    live = live_data(experiment)
    clips = find_clips(ws, out / "video")
    html = render_html(deck_context(ws, values, clips, live is not None), assets)

    target = out / "slides"
    with _staging(out) as folder:
        try:
            for asset in assets.files:
                _copy(asset.source, folder / asset.target)
            for clip in clips:
                _copy(clip.video, folder / "video" / f"{clip.stem}.mp4")
                if clip.poster is not None:
                    write_poster(clip.video, clip.frame, folder / clip.poster)
            write_runtime(folder)
            write_explorer(folder, ws)
            if live is not None:
                write_live(folder, live)
            write_text(folder / "index.html", html)
        except OSError as error:
            raise OutputError(f"{target}: cannot write the deck ({error})") from None
        if pdf:
            print_pdf(folder / "index.html", folder / "slides.pdf")
        try:
            _publish(folder, target)
        except OSError as error:
            raise OutputError(f"{target}: cannot replace the previous deck ({error})") \
                from None
    return target / "index.html"
