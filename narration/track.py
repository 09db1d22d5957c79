"""A clip's sound track: every spoken sentence at its time, at one loudness.

The sentences are laid on silence at the times the scene spoke them, then the whole track
is brought to −16 LUFS integrated loudness (EBU R128 / ITU-R BS.1770, measured with
``pyloudnorm``, whose gating leaves the silences out). Synthetic speech has sharp peaks:
at −16 LUFS they would clip, so a look-ahead limiter turns down just those few
milliseconds until no sample exceeds −1 dBFS, and the gain is measured again.
"""

from __future__ import annotations

import wave
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PEAK", "TARGET_LUFS", "Track", "audio_frames", "lay_track", "loudness", "normalise",
           "read_sound", "read_wav"]

FRAME = 1024
"""Samples per encoded frame (AAC's)."""

TARGET_LUFS = -16.0
PEAK = 10 ** (-1.0 / 20)
"""The highest sample allowed: −1 dBFS, a margin below clipping."""


@dataclass(frozen=True)
class Track:
    """Mono samples in [−1, 1] at ``rate``, with their measured loudness and peak."""

    samples: np.ndarray
    rate: int
    lufs: float
    peak: float

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """A 16-bit PCM WAV file as mono floats in [−1, 1], and its rate."""
    with wave.open(str(path), "rb") as audio:
        rate, channels = audio.getframerate(), audio.getnchannels()
        if audio.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16-bit samples")
        data = np.frombuffer(audio.readframes(audio.getnframes()), dtype="<i2")
    samples = data.astype(np.float64) / 32768.0
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1)
    return samples, rate


def loudness(samples: np.ndarray, rate: int) -> float:
    """Integrated loudness in LUFS (``-inf`` for silence)."""
    import pyloudnorm

    if len(samples) < rate // 2:  # the meter needs at least one 400 ms block
        samples = np.concatenate([samples, np.zeros(rate // 2 - len(samples))])
    return float(pyloudnorm.Meter(rate).integrated_loudness(samples))


def lay_track(sentences: Sequence[tuple[float, Path]], seconds: float) -> Track:
    """Each ``(start, wav)`` at its start time on a silent track ``seconds`` long, at
    −16 LUFS without clipping.

    Raises
    ------
    ValueError
        When the sentences do not share one sample rate or one would overrun the track.
    """
    pieces = [(start, *read_wav(path)) for start, path in sentences]
    rates = {rate for _, _, rate in pieces}
    if len(rates) > 1:
        raise ValueError(f"sentences at several sample rates: {sorted(rates)}")
    rate = rates.pop() if rates else 22050
    track = np.zeros(int(np.ceil(seconds * rate)))
    for start, samples, _ in pieces:
        at = round(start * rate)
        if at + len(samples) > len(track) + rate // 100:
            raise ValueError(f"a sentence at {start:.2f} s runs past the clip's end "
                             f"({seconds:.2f} s)")
        end = min(len(track), at + len(samples))
        track[at:end] += samples[:end - at]
    return normalise(track, rate)


def _limit(samples: np.ndarray, rate: int) -> np.ndarray:
    """Turn down only the peaks above :data:`PEAK`: the gain each sample needs, taken as
    the least over ±5 ms and then averaged over ±5 ms, which never exceeds the gain any
    sample in reach needs and changes smoothly (no clicks)."""
    from scipy.ndimage import minimum_filter1d, uniform_filter1d

    reach = max(1, int(rate * 0.005))
    need = np.minimum(1.0, PEAK / np.maximum(np.abs(samples), 1e-12))
    gain = uniform_filter1d(minimum_filter1d(need, 2 * reach + 1), 2 * reach + 1)
    return samples * np.minimum(gain, need)


def normalise(samples: np.ndarray, rate: int, rounds: int = 4) -> Track:
    """``samples`` at −16 LUFS with no sample above −1 dBFS."""
    measured = loudness(samples, rate)
    for _ in range(rounds):
        if not np.isfinite(measured) or abs(measured - TARGET_LUFS) < 0.05:
            break
        samples = _limit(samples * 10 ** ((TARGET_LUFS - measured) / 20), rate)
        measured = loudness(samples, rate)
    peak = float(np.abs(samples).max()) if len(samples) else 0.0
    return Track(samples, rate, measured, peak)


def audio_frames(track: Track) -> Iterator[Any]:
    """The track as mono float PyAV frames of :data:`FRAME` samples, ready to encode."""
    import av

    samples = track.samples.astype(np.float32)
    for at in range(0, len(samples), FRAME):
        frame = av.AudioFrame.from_ndarray(samples[None, at:at + FRAME], format="flt",
                                           layout="mono")
        frame.rate = track.rate
        yield frame


def read_sound(path: Path) -> tuple[float, float] | None:
    """``(seconds, peak)`` of a clip's sound track, decoded; ``None`` without one."""
    import av

    with av.open(str(path)) as clip:
        if not clip.streams.audio:
            return None
        stream = clip.streams.audio[0]
        parts = [frame.to_ndarray().ravel() for frame in clip.decode(stream)]
        samples = np.concatenate(parts) if parts else np.zeros(0)
        peak = float(np.abs(samples).max()) if len(samples) else 0.0
        return len(samples) / stream.rate, peak
