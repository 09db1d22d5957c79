"""Typed settings, layered: defaults < project file < environment < command-line flags.

The project file is ``lecture.toml`` in the current folder, for example::

    worksheet = "my-worksheet.json"
    out = "build"
    narration = "piper"          # or "espeak", or "none" for silent clips
    voice = "voices/my-voice.onnx"

Environment variables: ``LECTURE_WORKSHEET``, ``LECTURE_OUT``, ``LECTURE_NARRATION``,
``LECTURE_VOICE``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from worksheet import DEFAULT_WORKSHEET

__all__ = ["PROJECT_FILE", "Settings", "SettingsError", "resolve_settings"]

PROJECT_FILE = "lecture.toml"


class SettingsError(ValueError):
    """A setting has an unusable value; the message names the setting and its source."""


@dataclass(frozen=True)
class Settings:
    """Everything a command needs to know about where to read and write."""

    worksheet: Path = DEFAULT_WORKSHEET
    """The worksheet JSON file to compile."""
    out: Path = Path("build")
    """The output folder."""
    narration: str = "piper"
    """Who speaks the captions: ``piper``, ``espeak`` or ``none`` (silent clips)."""
    voice: Path | None = None
    """A Piper voice model (``.onnx``, its ``.onnx.json`` beside it); the bundled voice
    ``en_US-joe-medium`` when unset."""


_ENVIRONMENT = {"worksheet": "LECTURE_WORKSHEET", "out": "LECTURE_OUT",
                "narration": "LECTURE_NARRATION", "voice": "LECTURE_VOICE"}
NARRATIONS = ("piper", "espeak", "none")


def _typed(key: str, value: str, where: str, folder: Path | None = None) -> object:
    """A setting's value as its field wants it; paths relative to ``folder``."""
    if key == "narration":
        if value not in NARRATIONS:
            raise SettingsError(f"{where}: narration: expected one of {', '.join(NARRATIONS)}, "
                                f"got {value!r}")
        return value
    return folder / value if folder is not None else Path(value)


def _from_project(folder: Path) -> dict[str, object]:
    file = folder / PROJECT_FILE
    if not file.is_file():
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"{file}: invalid TOML ({error})") from None
    known = {f.name for f in fields(Settings)}
    result: dict[str, object] = {}
    for key, value in data.items():
        if key not in known:
            raise SettingsError(f"{file}: {key}: unknown setting; expected one of "
                                f"{', '.join(sorted(known))}")
        if not isinstance(value, str) or not value:
            raise SettingsError(f"{file}: {key}: expected a string, got {value!r}")
        result[key] = _typed(key, value, str(file), folder)
    return result


def resolve_settings(flags: Mapping[str, object], environ: Mapping[str, str] | None = None,
                     folder: Path | None = None) -> Settings:
    """Combine the layers; a flag left as ``None`` falls through to the layer below."""
    environ = os.environ if environ is None else environ
    settings = replace(Settings(), **_from_project(folder or Path.cwd()))
    from_env = {key: _typed(key, environ[var], f"${var}") for key, var in _ENVIRONMENT.items()
                if environ.get(var)}
    settings = replace(settings, **from_env)
    given = {key: _typed(key, str(value), f"--{key}") for key, value in flags.items()
             if value is not None}
    return replace(settings, **given)
