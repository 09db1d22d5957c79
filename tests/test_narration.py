"""Narration on its own: captions read out as a voice says them, voices that speak offline
into a cache (the same words, the same samples), and a sound track at −16 LUFS that never
clips."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from narration.text import speakable, spoken_text
from narration.track import PEAK, TARGET_LUFS, lay_track, loudness
from narration.voices import Narration, VoiceError, open_voice


@pytest.mark.parametrize(("literal", "said"), [
    ("E′ = E + ΔE", "E prime equals E plus delta E"),
    ("√", "the square root of"),
    (" × ", " times "),
    ("Q times Kᵀ, ", "Q times K transpose, "),
    ("W_O, transposed, fills out_proj.weight ", "W O, transposed, fills out proj dot weight "),
    ("“", ","),
    (" (", ", "),
    ("H = AV", "H equals A V"),
    ("average_attn_weights=False keeps", "average attention weights equals False keeps"),
])
def test_symbols_are_read_out(literal: str, said: str) -> None:
    assert speakable(literal).strip() == said.strip()


def test_a_template_is_spoken_with_its_slots_in_words() -> None:
    said = spoken_text("For “{w}”, {x} × [{v0}, {v1}] = {c}.",
                       {"w": "river", "x": "zero point seven one eight", "v0": "three point one",
                        "v1": "minus zero point one", "c": "two point two two five"})
    assert said == ("For, river, zero point seven one eight times three point one, minus zero "
                    "point one equals two point two two five.")
    assert spoken_text("Its target: “{w}”.", {"w": "water"}) == "Its target: water."


def tone(seconds: float, rate: int = 22050, level: float = 0.2) -> np.ndarray:
    """A voice-like test signal: a 220 Hz tone with sharp 5 ms bursts, syllable-shaped."""
    t = np.arange(int(seconds * rate)) / rate
    signal = level * np.sin(2 * np.pi * 220 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2)
    signal[::rate // 5] = 0.99  # clicks that would clip once the speech is made louder
    return signal


def write_wav(path: Path, samples: np.ndarray, rate: int = 22050) -> Path:
    with wave.open(str(path), "wb") as audio:
        audio.setnchannels(1)
        audio.setsampwidth(2)
        audio.setframerate(rate)
        audio.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def test_the_track_is_at_minus_16_lufs_and_never_clips(tmp_path: Path) -> None:
    quiet = write_wav(tmp_path / "a.wav", tone(3.0, level=0.05))
    loud = write_wav(tmp_path / "b.wav", tone(2.0, level=0.3))
    track = lay_track([(0.5, quiet), (5.0, loud)], 8.0)
    assert abs(track.lufs - TARGET_LUFS) < 0.1
    assert abs(loudness(track.samples, track.rate) - TARGET_LUFS) < 0.1
    assert np.abs(track.samples).max() <= PEAK + 1e-9
    assert len(track.samples) == int(np.ceil(8.0 * track.rate))
    voiced = np.nonzero(np.abs(track.samples) > 1e-6)[0]
    assert voiced[0] == pytest.approx(0.5 * track.rate, abs=2)
    assert not track.samples[int(3.6 * track.rate):int(4.9 * track.rate)].any()  # the gap


def test_a_sentence_past_the_clip_is_refused(tmp_path: Path) -> None:
    speech = write_wav(tmp_path / "a.wav", tone(2.0))
    with pytest.raises(ValueError, match="runs past the clip's end"):
        lay_track([(1.0, speech)], 2.0)


def test_espeak_speaks_into_the_cache_once(tmp_path: Path) -> None:
    voice = open_voice("espeak", cache_dir=tmp_path)
    first = voice.speak("The weight is zero point seven one eight.")
    assert first is not None and first.seconds > 1.0
    stamp = first.path.stat().st_mtime_ns
    again = voice.speak("The weight is zero point seven one eight.")
    assert again == first and again.path.stat().st_mtime_ns == stamp
    other = voice.speak("The weight is zero point one six six.")
    assert other is not None and other.path != first.path
    assert len(list(tmp_path.rglob("*.wav"))) == 2


def test_piper_speaks_the_same_samples_every_time(tmp_path: Path) -> None:
    text = "Head one favours river, with weight zero point seven one eight."
    one = open_voice("piper", cache_dir=tmp_path / "one").speak(text)
    two = open_voice("piper", cache_dir=tmp_path / "two").speak(text)
    assert one is not None and two is not None
    assert one.sha256 == two.sha256 and 2.0 < one.seconds < 8.0


@pytest.mark.parametrize("engine", ["piper", "espeak"])
def test_a_sentence_starts_and_ends_with_the_voice(tmp_path: Path, engine: str) -> None:
    """The cue is the speech's time, so the speech carries no quiet lead-in or tail."""
    speech = open_voice(engine, cache_dir=tmp_path).speak(
        "“Bank” is a word. Head one gives it zero point seven one eight.")
    assert speech is not None
    with wave.open(str(speech.path), "rb") as audio:
        rate = audio.getframerate()
        samples = np.frombuffer(audio.readframes(audio.getnframes()), np.int16) / 32768
    loud = np.flatnonzero(np.abs(samples) > np.abs(samples).max() / 100)  # −40 dB
    assert loud[0] / rate <= 0.07 and (len(samples) - loud[-1]) / rate <= 0.07


def test_the_silent_voice_says_nothing_and_each_voice_has_its_own_id(tmp_path: Path) -> None:
    assert open_voice("none", cache_dir=tmp_path).speak("anything") is None
    ids = {open_voice(engine, cache_dir=tmp_path).id for engine in ("none", "espeak", "piper")}
    assert len(ids) == 3


def test_bad_voices_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(VoiceError, match="no such Piper voice"):
        Narration("piper", tmp_path / "missing.onnx").voice()
    model = tmp_path / "half.onnx"
    model.write_bytes(b"onnx")
    with pytest.raises(VoiceError, match=r"half\.onnx\.json: not found"):
        Narration("piper", model).voice()
    with pytest.raises(VoiceError, match="unknown narration"):
        Narration("shout").voice()


class _SecondVoice:
    """A voice whose every sentence lasts one second (no synthesis needed)."""

    engine = id = "one-second"
    silent = False

    def speak(self, text: str):
        from narration.voices import Speech
        return Speech(Path(__file__), 1.0, "0" * 64)


def _pause_scene(pause: float, marked: bool):
    from scenes.kit import LectureScene

    class Pause(LectureScene):
        def setup(self) -> None:
            super().setup()
            self.voice = _SecondVoice()

        def construct(self) -> None:
            self.say("Head {h} speaks.", h="dims.head_numbers[0]")
            if marked:
                with self.silence("a pause to look at the table"):
                    self.wait(pause)
            elif pause:
                self.wait(pause)
            self.say("Head {h} speaks.", h="dims.head_numbers[1]")

    return Pause


def _render(scene_class, tmp_path: Path):
    from manim import tempconfig

    with tempconfig({"dry_run": True, "quality": "low_quality", "disable_caching": True,
                     "verbosity": "ERROR", "progress_bar": "none",
                     "media_dir": str(tmp_path)}):
        scene = scene_class(skip_animations=True)
        scene.render()
    return scene.manifest()


def test_a_breath_separates_sentences_and_a_step_between_them_counts_toward_it(
        tmp_path: Path) -> None:
    from scenes.kit import BREATH

    for pause, gap in ((0.0, BREATH), (1.0, 1.0)):
        first, second = _render(_pause_scene(pause, False), tmp_path)["captions"]
        assert first["end"] - first["start"] == pytest.approx(1.0)
        assert second["start"] - first["end"] == pytest.approx(gap, abs=0.07)


def test_an_unmarked_long_silence_is_refused_and_a_marked_one_is_kept(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"2\.00 s without speech before caption 2.*silence"):
        _render(_pause_scene(2.0, False), tmp_path)
    manifest = _render(_pause_scene(2.0, True), tmp_path)
    assert [s["why"] for s in manifest["silences"]] == ["a pause to look at the table"]
    first, second = manifest["captions"]
    assert second["start"] - first["end"] == pytest.approx(2.0, abs=0.07)
