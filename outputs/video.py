"""Frames of an encoded clip, decoded with PyAV: for the OCR proof, the deck's posters and
the storyboard."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["video_frames"]


def video_frames(video: Path, wanted: Iterable[int]) -> Iterator[tuple[int, Any]]:
    """``(number, av.VideoFrame)`` for each of the frames numbered ``wanted`` (from zero)
    that ``video`` has, in increasing order.

    Seeks to the keyframe before each wanted frame and decodes forward from there.
    """
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        rate = float(stream.average_rate or stream.guessed_rate)
        base = float(stream.time_base)
        position, decoded = -1, None
        for target in sorted(set(wanted)):
            if decoded is None or target - position > 2 * rate:  # far ahead: seek
                container.seek(int(target / rate / base), stream=stream, backward=True)
                decoded, position = container.decode(stream), -1
            for frame in decoded:
                position = round(float(frame.pts) * base * rate)
                if position >= target:
                    break
            if position == target:
                yield target, frame
