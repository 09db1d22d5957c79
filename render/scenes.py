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
from collections.abc import Sequence
from pathlib import Path

import scenes
from scenes.order import SceneEntry, video_stem

__all__ = ["QUALITIES", "RenderError", "pick_scenes", "read_duration", "render_scene",
           "scene_outputs"]

QUALITIES = {"l": "low_quality", "m": "medium_quality", "h": "high_quality",
             "k": "fourk_quality"}
SCENES_DIR = Path(scenes.__file__).parent
SUFFIXES = (".mp4", ".srt", ".figures.json")


class RenderError(RuntimeError):
    """A scene failed to render; the message holds the end of Manim's output."""


def pick_scenes(entries: Sequence[SceneEntry], names: Sequence[str]) -> list[SceneEntry]:
    """The named scenes in lecture order (all scenes when no name is given).

    Raises
    ------
    KeyError
        Naming an unknown scene and listing the known ones.
    """
    known = {entry.name: entry for entry in entries}
    for name in names:
        if name not in known:
            raise KeyError(f"unknown scene {name!r}; expected one of {', '.join(known)}")
    wanted = set(names)
    return [entry for entry in entries if not wanted or entry.name in wanted]


def scene_outputs(video_dir: Path, entries: Sequence[SceneEntry],
                  entry: SceneEntry) -> tuple[Path, ...]:
    """Where a scene's video, captions and figure manifest go."""
    stem = video_stem(tuple(entries), entry.name)
    return tuple(video_dir / f"{stem}{suffix}" for suffix in SUFFIXES)


def render_scene(entry: SceneEntry, worksheet: Path, quality: str,
                 destinations: Sequence[Path]) -> None:
    """Render one scene in its own Manim process and move its outputs into place.

    Raises
    ------
    RenderError
        When Manim fails or an expected output is missing.
    """
    with tempfile.TemporaryDirectory(prefix=f"lecture-{entry.name}-") as media:
        command = [sys.executable, "-m", "manim", "render", f"-q{quality}", "--disable_caching",
                   "--progress_bar", "none", "--media_dir", media,
                   str(SCENES_DIR / f"{entry.module}.py"), entry.name]
        env = {**os.environ, "LECTURE_WORKSHEET": str(worksheet.resolve())}
        process = subprocess.run(command, capture_output=True, text=True, env=env, check=False,
                                 stdin=subprocess.DEVNULL)
        if process.returncode != 0:
            raise RenderError(f"{entry.name} failed (exit {process.returncode}): "
                              f"{_last_error(process.stderr + process.stdout)}")
        produced = []
        for suffix in SUFFIXES:
            found = sorted(Path(media).rglob(f"{entry.name}{suffix}"))
            found = [p for p in found if "partial_movie_files" not in p.parts]
            if not found:
                raise RenderError(f"{entry.name}: Manim wrote no {suffix} file")
            produced.append(found[0])
        for source, target in zip(produced, destinations, strict=True):
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = target.with_name(f".{target.name}.tmp")
            shutil.copyfile(source, staging)
            os.replace(staging, target)


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
