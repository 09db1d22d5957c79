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


def test_full_heads_comes_from_every_layer(tmp_path: Path) -> None:
    assert resolve_settings({}, environ={}, folder=tmp_path).full_heads is False
    (tmp_path / "lecture.toml").write_text("full_heads = true\n")
    assert resolve_settings({}, environ={}, folder=tmp_path).full_heads is True
    env = resolve_settings({}, environ={"LECTURE_FULL_HEADS": "no"}, folder=tmp_path)
    assert env.full_heads is False
    flag = resolve_settings({"full_heads": True}, environ={"LECTURE_FULL_HEADS": "0"},
                            folder=tmp_path)
    assert flag.full_heads is True
    unset = resolve_settings({"full_heads": None}, environ={"LECTURE_FULL_HEADS": ""},
                             folder=tmp_path)
    assert unset.full_heads is True  # an empty variable and an absent flag fall through


@pytest.mark.parametrize(("toml", "environ", "words"), [
    ("full_heads = 'yes'", {}, "full_heads: expected true or false"),
    ("", {"LECTURE_FULL_HEADS": "maybe"}, r"\$LECTURE_FULL_HEADS: full_heads: expected one of"),
])
def test_a_bad_full_heads_is_named(tmp_path: Path, toml: str, environ: dict[str, str],
                                   words: str) -> None:
    (tmp_path / "lecture.toml").write_text(toml)
    with pytest.raises(SettingsError, match=words):
        resolve_settings({}, environ=environ, folder=tmp_path)


def test_scene_options_reach_the_scene_as_its_environment() -> None:
    from render.config import scene_environment, scene_options

    assert scene_options(Settings(full_heads=True)) == {"full_heads": True}
    assert scene_environment({"full_heads": True}) == {"LECTURE_FULL_HEADS": "1"}
    assert scene_environment({"full_heads": False}) == {"LECTURE_FULL_HEADS": "0"}
