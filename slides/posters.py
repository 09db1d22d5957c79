"""Poster images for the deck's clips: one frame of each clip, decoded with PyAV.

A clip's poster is its last section-end frame, the frame its scene's manifest
(``NN-<Scene>.figures.json``) records under ``sections[].frame``, so the poster shows the
part's last step with its figures on screen; a clip without a manifest shows its last
frame. The image is a JPEG at the clip's own size, written the same way every time, so
the deck's record can hold its digest and ``lecture check`` can prove it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from slides.assets import DeckError

__all__ = ["QUALITY", "last_frame", "manifest_of", "poster_frame", "poster_tools", "write_poster"]

QUALITY = 88
"""JPEG quality of a poster."""


def manifest_of(video: Path) -> dict[str, Any] | None:
    """The figure manifest written beside ``video`` by its render, if there is one.

    Raises
    ------
    DeckError
        When the manifest exists but cannot be read as JSON.
    """
    path = video.with_suffix(".figures.json")
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DeckError(f"{path}: cannot read the clip's manifest ({error})") from None


def poster_frame(video: Path, manifest: dict[str, Any] | None) -> int:
    """The frame a clip's poster shows: its last section end, else its last frame."""
    sections = (manifest or {}).get("sections") or []
    if sections:
        return int(sections[-1]["frame"])
    return last_frame(video)


def last_frame(video: Path) -> int:
    """The number (from zero) of the last frame of ``video``.

    Raises
    ------
    DeckError
        When the clip cannot be decoded or holds no frame.
    """
    import av

    try:
        with av.open(str(video)) as container:
            count = sum(1 for _ in container.decode(container.streams.video[0]))
    except (av.FFmpegError, OSError, IndexError) as error:
        raise DeckError(f"{video}: cannot decode the clip ({error})") from None
    if not count:
        raise DeckError(f"{video}: the clip holds no frame")
    return count - 1


def poster_tools() -> str:
    """The decoder and the JPEG encoder a poster is made with, and their versions."""
    import av
    import PIL

    return f"PyAV {av.__version__}, Pillow {PIL.__version__}"


def write_poster(video: Path, frame: int, target: Path) -> None:
    """Save frame ``frame`` of ``video`` as the JPEG ``target``.

    Raises
    ------
    DeckError
        When the clip cannot be decoded or lacks the frame.
    """
    import av

    from outputs.video import video_frames

    try:
        found = next((picture for number, picture in video_frames(video, [frame])
                      if number == frame), None)
    except (av.FFmpegError, OSError) as error:
        raise DeckError(f"{video}: cannot decode the clip ({error})") from None
    if found is None:
        raise DeckError(f"{video}: has no frame {frame}, which its poster should show")
    target.parent.mkdir(parents=True, exist_ok=True)
    found.to_image().convert("RGB").save(target, "JPEG", quality=QUALITY)
    os.chmod(target, 0o644)
