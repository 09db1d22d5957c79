"""Settings layer: defaults < lecture.toml < environment < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from render.config import Settings, SettingsError, resolve_settings
from worksheet import DEFAULT_WORKSHEET


def test_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    settings = resolve_settings({"worksheet": None}, environ={}, folder=tmp_path)
    assert settings == Settings(worksheet=DEFAULT_WORKSHEET, out=Path("build"))


def test_each_layer_overrides_the_one_below(tmp_path: Path) -> None:
    (tmp_path / "lecture.toml").write_text('worksheet = "project.json"\nout = "site"\n')
    project = resolve_settings({}, environ={}, folder=tmp_path)
    assert project.worksheet == tmp_path / "project.json" and project.out == tmp_path / "site"
    env = resolve_settings({}, environ={"LECTURE_WORKSHEET": "env.json"}, folder=tmp_path)
    assert env.worksheet == Path("env.json") and env.out == tmp_path / "site"
    flag = resolve_settings({"worksheet": "flag.json"}, environ={"LECTURE_WORKSHEET": "env.json"},
                            folder=tmp_path)
    assert flag.worksheet == Path("flag.json")


@pytest.mark.parametrize(("text", "words"), [
    ("worksheet = [1]", "expected a string"),
    ("narration = 'loud'", "narration: expected one of piper, espeak, none"),
    ("colour = 'red'", "unknown setting"),
    ("worksheet = ", "invalid TOML"),
])
def test_a_bad_project_file_is_named(tmp_path: Path, text: str, words: str) -> None:
    (tmp_path / "lecture.toml").write_text(text)
    with pytest.raises(SettingsError, match=words) as caught:
        resolve_settings({}, environ={}, folder=tmp_path)
    assert "lecture.toml" in str(caught.value)


def test_narration_and_voice_come_from_every_layer(tmp_path: Path) -> None:
    assert resolve_settings({}, environ={}, folder=tmp_path).narration == "piper"
    (tmp_path / "lecture.toml").write_text('narration = "espeak"\nvoice = "v/a.onnx"\n')
    project = resolve_settings({}, environ={}, folder=tmp_path)
    assert (project.narration, project.voice) == ("espeak", tmp_path / "v" / "a.onnx")
    env = resolve_settings({}, environ={"LECTURE_NARRATION": "none"}, folder=tmp_path)
    assert env.narration == "none"
    flag = resolve_settings({"narration": "piper", "voice": "b.onnx"},
                            environ={"LECTURE_NARRATION": "none"}, folder=tmp_path)
    assert (flag.narration, flag.voice) == ("piper", Path("b.onnx"))
    with pytest.raises(SettingsError, match=r"\$LECTURE_NARRATION: narration: expected"):
        resolve_settings({}, environ={"LECTURE_NARRATION": "mute"}, folder=tmp_path)
