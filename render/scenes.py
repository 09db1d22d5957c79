"""Render lecture scenes with Manim, one process per scene, into ``OUT/video/``.

Each scene becomes ``NN-<Scene>.mp4`` with its captions ``.srt`` and its figure
manifest ``.figures.json``; NN is the scene's place in the lecture order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Any

import scenes
from narration.voices import Narration
from outline import SceneEntry, video_stem
from outputs.files import file_digest
from render.config import scene_environment
from worksheet import NO_EXPERIMENT

if TYPE_CHECKING:
    from narration.track import Track

__all__ = ["QUALITIES", "RenderError", "Tags", "clip_sound", "clip_tags", "pick_scenes",
           "read_duration", "render_scene", "scene_outputs", "sound_track", "tag_clip"]

AAC_BITRATE = 96_000

QUALITIES = {"l": "low_quality", "m": "medium_quality", "h": "high_quality",
             "k": "fourk_quality"}
DRAFT_FRAME_RATE = 5
"""Frames per second of ``draft``: ``l``'s pictures with a third of the frames, and of
each animation only the picture it ends on, drawn once and held for as long as it lasts.
Each section ends on the picture ``l`` shows, with the same figures and captions; every
step rounds to a whole frame, so times drift by up to a frame per caption."""
HALL_FRAME_RATE = 30
"""Frames per second of ``hall``: ``h``'s 1080 lines for a projector, at half ``h``'s frame
rate (the lecture's motion is slow; every frame costs the same to draw and encode)."""
MANIM_FLAGS = {**{letter: (f"-q{letter}",) for letter in QUALITIES},
               "draft": ("-ql", "--frame_rate", str(DRAFT_FRAME_RATE)),
               "hall": ("-qh", "--frame_rate", str(HALL_FRAME_RATE))}
"""What Manim is given for each quality: its own letters, ``draft`` and ``hall``."""
SCENES_DIR = Path(scenes.__file__).parent
SUFFIXES = (".mp4", ".srt", ".figures.json")
HEAP_FRAMES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456"
"""glibc settings for Manim's process. Manim allocates a frame-sized array for every frame
it draws (1.6 MB at 480p, 8 MB at 1080p), and under glibc's defaults each one is mapped
from the kernel and unmapped again: the page faults cost a tenth of a render's CPU. Kept
in the heap instead, a render is that much faster and draws the same frames
(``bench/render.py`` measures it and compares the clips)."""


class RenderError(RuntimeError):
    """A scene failed to render; the message holds the end of Manim's output."""


def pick_scenes(entries: Sequence[SceneEntry], names: Sequence[str]) -> list[SceneEntry]:
    """The named scenes in lecture order (all scenes when no name is given).

    Raises
    ------
    KeyError
        Naming an unknown scene and what to do: a file's name belongs to ``--worksheet``,
        a misspelt name gets the closest scene's.
    """
    known = {entry.name: entry for entry in entries}
    for name in names:
        if name in known:
            continue
        if name.endswith(".json") or Path(name).is_file():
            raise KeyError(f"no scene named {name!r}; a worksheet is given as "
                           f"`--worksheet {name}`")
        close = get_close_matches(name, known, n=1)
        guess = f"; did you mean {close[0]}?" if close else ""
        raise KeyError(f"no scene named {name!r}{guess} (`lecture list` shows them)")
    wanted = set(names)
    return [entry for entry in entries if not wanted or entry.name in wanted]


def scene_outputs(video_dir: Path, entries: Sequence[SceneEntry],
                  entry: SceneEntry) -> tuple[Path, ...]:
    """Where a scene's video, captions and figure manifest go."""
    stem = video_stem(tuple(entries), entry.name)
    return tuple(video_dir / f"{stem}{suffix}" for suffix in SUFFIXES)


Tags = Callable[[Path], Mapping[str, str]]
"""Given the rendered scene's figure manifest, the tags to write into its clip."""


def render_scene(entry: SceneEntry, worksheet: Path, quality: str,
                 destinations: Sequence[Path], tags: Tags | None = None,
                 narration: Narration | None = None,
                 options: Mapping[str, bool] | None = None,
                 experiment: Path | None = None,
                 cancel: threading.Event | None = None,
                 values: Path | None = None) -> None:
    """Render one scene in its own Manim process and move its outputs into place.

    The scene speaks its captions with the ``narration``'s voice; their sentences become
    the clip's sound track, at −16 LUFS (see :mod:`narration.track`). The clip carries
    ``lecture_scene``, ``lecture_worksheet`` (the sha256 of the worksheet the scene read)
    and whatever ``tags`` adds (a build adds ``lecture_key``, the scene's cache key) in its
    container metadata. ``options`` (see :data:`render.config.SCENE_OPTIONS`, such as
    ``full_heads``) reach the scene through its environment, and so does ``experiment``
    (a checked ``experiment.json``, as ``$LECTURE_EXPERIMENT``; none when ``None``).
    Setting ``cancel`` stops Manim and moves nothing into place. ``values`` is the file in
    which the caller handed over the values it computed (:func:`worksheet.hand_values`);
    the scene reads them instead of computing them again.

    Raises
    ------
    RenderError
        When Manim fails or is cancelled, or an expected output is missing.
    """
    with tempfile.TemporaryDirectory(prefix=f"lecture-{entry.name}-") as media:
        command = [sys.executable, "-m", "manim", "render", *MANIM_FLAGS[quality],
                   "--disable_caching",
                   "--progress_bar", "none", "--media_dir", media,
                   str(SCENES_DIR / f"{entry.module}.py"), entry.name]
        env = {**os.environ, "LECTURE_WORKSHEET": str(worksheet.resolve()),
               **(narration or Narration()).environment(),
               **scene_environment(options or {}),
               "LECTURE_EXPERIMENT": str(experiment.resolve()) if experiment
               else NO_EXPERIMENT,
               "LECTURE_VALUES": str(values.resolve()) if values else "",
               **scenes.drawing(quality),
               "GLIBC_TUNABLES": ":".join(filter(None, (os.environ.get("GLIBC_TUNABLES"),
                                                         HEAP_FRAMES)))}
        returncode, output = _run(command, env, entry, cancel)
        if returncode != 0:
            raise RenderError(f"{entry.name} failed (exit {returncode}): "
                              f"{_last_error(output)}")
        produced = []
        for suffix in SUFFIXES:
            found = sorted(Path(media).rglob(f"{entry.name}{suffix}"))
            found = [p for p in found if "partial_movie_files" not in p.parts]
            if not found:
                raise RenderError(f"{entry.name}: Manim wrote no {suffix} file")
            produced.append(found[0])
        manifest = json.loads(produced[2].read_text(encoding="utf-8"))
        # The worksheet the scene read, not the file as it is now: it may have been saved
        # again while the scene rendered.
        metadata = {"lecture_scene": entry.name,
                    "lecture_worksheet": manifest["worksheet"]["sha256"],
                    **(tags(produced[2]) if tags else {})}
        track = sound_track(manifest)
        staged = []
        for source, target in zip(produced, destinations, strict=True):
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = target.with_name(f".{target.name}.tmp")
            if target.suffix == ".mp4":
                tag_clip(source, staging, metadata, track)
            else:
                shutil.copyfile(source, staging)
            staged.append((staging, target))
        for staging, target in staged:
            os.replace(staging, target)


def _run(command: Sequence[str], env: Mapping[str, str], entry: SceneEntry,
         cancel: threading.Event | None) -> tuple[int, str]:
    """Run Manim to the end, or until ``cancel`` is set; its exit status and output."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, env=env)
    while True:
        try:
            stdout, stderr = process.communicate(timeout=0.25)
            return process.returncode, stderr + stdout
        except subprocess.TimeoutExpired:
            if cancel is None or not cancel.is_set():
                continue
        process.terminate()
        try:
            process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        raise RenderError(f"{entry.name}: cancelled")


def sound_track(manifest: Mapping[str, Any]) -> Track | None:
    """The scene's spoken sentences laid on one track, or ``None`` for a silent scene.

    Raises
    ------
    RenderError
        When a sentence's audio is missing or not the one the scene spoke.
    """
    sentences = []
    for caption in manifest.get("captions", []):
        speech = caption.get("speech")
        if not speech:
            continue
        path = Path(speech["file"])
        if not path.is_file() or file_digest(path) != speech["sha256"]:
            raise RenderError(f"{manifest.get('scene')}: the speech of caption "
                              f"{caption['index']} is missing or changed in {path.parent}")
        sentences.append((float(caption["start"]), path))
    if not sentences:
        return None
    from narration.track import lay_track

    try:
        return lay_track(sentences, float(manifest["duration"]))
    except ValueError as error:
        raise RenderError(f"{manifest.get('scene')}: {error}") from None


def tag_clip(source: Path, target: Path, metadata: Mapping[str, str],
             track: Track | None = None) -> None:
    """Copy a clip's video (no re-encoding) with ``metadata`` added to its container tags,
    its index at the front so browsers can start playing before it has all arrived, and
    ``track`` as its sound (AAC), in place of any the clip had."""
    import av

    with av.open(str(source)) as clip, av.open(
            str(target), "w", format="mp4",
            options={"movflags": "use_metadata_tags+faststart"}) as tagged:
        tagged.metadata.update({**clip.metadata, **metadata})
        kinds = ("video",) if track is not None else ("video", "audio")
        streams = {stream.index: tagged.add_stream_from_template(stream)
                   for stream in clip.streams if stream.type in kinds}
        sound = None
        if track is not None:
            sound = tagged.add_stream("aac", rate=track.rate, layout="mono")
            sound.bit_rate = AAC_BITRATE
        for packet in clip.demux(*(clip.streams[i] for i in streams)):
            if packet.dts is None:
                continue
            packet.stream = streams[packet.stream.index]
            tagged.mux(packet)
        if sound is not None and track is not None:
            from narration.track import audio_frames

            for frame in audio_frames(track):
                for packet in sound.encode(frame):
                    tagged.mux(packet)
            for packet in sound.encode():
                tagged.mux(packet)


def clip_sound(path: Path) -> tuple[float, float] | None:
    """``(seconds, peak)`` of a clip's sound track, decoded; ``None`` without one."""
    from narration.track import read_sound

    return read_sound(path)


def clip_tags(path: Path) -> dict[str, str]:
    """The container tags of a clip.

    Raises
    ------
    ValueError
        When ``path`` is not a readable video.
    """
    import av

    try:
        with av.open(str(path)) as clip:
            if not clip.streams.video:
                raise ValueError(f"{path.name}: no video stream")
            return dict(clip.metadata)
    except av.FFmpegError as error:
        raise ValueError(f"{path.name}: not a readable video ({error})") from None


def _last_error(output: str) -> str:
    """The line that says what went wrong, from Manim's (possibly boxed) traceback."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_.]*(Error|Exception)\b.*:", line):
            return line
    return " ".join(lines[-3:]) or "no output"


def read_duration(manifest: Path) -> float | None:
    """A rendered scene's length in seconds, from its figure manifest."""
    try:
        return float(json.loads(manifest.read_text(encoding="utf-8"))["duration"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
