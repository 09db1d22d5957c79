"""The speaker's script: the narration of the whole lecture, in order, as ``DIR/script.md``.

One section per clip, one line per caption with the time it starts in the clip. A
lecturer can read it aloud over silent clips, print it as notes, or search it. The build
writes it from the scenes' manifests; the check writes it again from a fresh computation
and requires the two to be the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["SCRIPT", "SCRIPT_RECORD", "script_text"]

SCRIPT = "script.md"
SCRIPT_RECORD = "records/script.json"


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}:{rest:02d}"


def script_text(title: str, clips: Iterable[tuple[str, str, dict[str, Any], list[str]]]) -> str:
    """The script for ``(clip stem, clip title, manifest, caption texts)`` in lecture order.

    The caption texts are passed separately so that a checker can pass freshly computed
    ones for the same manifests.
    """
    lines = [f"# {title}: the speaker's script", ""]
    for stem, heading, manifest, texts in clips:
        lines += [f"## {stem}: {heading}", "",
                  f"{_clock(float(manifest.get('duration', 0)))} in all, "
                  f"{len(texts)} narrated steps.", ""]
        for caption, text in zip(manifest.get("captions", []), texts, strict=True):
            lines.append(f"- **{_clock(float(caption['start']))}** {text}")
        lines.append("")
    return "\n".join(lines)

