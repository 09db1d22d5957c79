"""Scene subtitles (SubRip ``.srt``) converted to WebVTT captions for ``<track>``."""

from __future__ import annotations

import re

__all__ = ["CaptionError", "srt_to_vtt"]

_TIME = r"(\d{1,2}):(\d{2}):(\d{2})[,.](\d{3})"
_TIMING = re.compile(rf"^\s*{_TIME}\s*-->\s*{_TIME}\s*$")


class CaptionError(ValueError):
    """A subtitle file cannot be read; the message names the file and the line."""


def _stamp(hours: str, minutes: str, seconds: str, millis: str) -> str:
    return f"{int(hours):02d}:{minutes}:{seconds}.{millis}"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def srt_to_vtt(text: str, source: str = "<srt>") -> str:
    """Convert SubRip subtitles to WebVTT: same cues and timings, cue text as plain text.

    Raises
    ------
    CaptionError
        When a cue has no timing line or an unreadable one.
    """
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    cues: list[str] = []
    number = 0
    while number < len(lines):
        if not lines[number].strip():
            number += 1
            continue
        start = number
        block: list[str] = []
        while number < len(lines) and lines[number].strip():
            block.append(lines[number])
            number += 1
        if block[0].strip().isdigit():
            block = block[1:]
        match = _TIMING.match(block[0]) if block else None
        if not match:
            raise CaptionError(f"{source}: line {start + 1}: expected a cue timing such as "
                               f"00:00:01,000 --> 00:00:02,500, got {block[0] if block else ''!r}")
        timing = f"{_stamp(*match.groups()[:4])} --> {_stamp(*match.groups()[4:])}"
        cues.append("\n".join([timing, *(_escape(line) for line in block[1:])]))
    return "WEBVTT\n\n" + "\n\n".join(cues) + ("\n" if cues else "")
