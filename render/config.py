"""Typed settings, layered: defaults < project file < environment < command-line flags.

The project file is ``lecture.toml`` in the current folder, for example::

    worksheet = "my-worksheet.json"
    out = "build"
    narration = "piper"          # or "espeak", or "none" for silent clips
    voice = "voices/my-voice.onnx"
    full_heads = true            # the full walkthrough for every head, not only the first
    experiment = "build/experiment"   # the results of `lecture experiment` (its folder)

Environment variables: ``LECTURE_WORKSHEET``, ``LECTURE_OUT``, ``LECTURE_NARRATION``,
``LECTURE_VOICE``, ``LECTURE_FULL_HEADS``, ``LECTURE_EXPERIMENT`` (``1``/``true``/``yes``/``on`` or
``0``/``false``/``no``/``off``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from worksheet import DEFAULT_WORKSHEET

__all__ = ["PROJECT_FILE", "SCENE_OPTIONS", "Settings", "SettingsError", "resolve_settings",
           "scene_environment", "scene_options"]

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
    full_heads: bool = False
    """Walk every head through every step; by default only the first head gets the full
    walkthrough and each later head a short recap beside it."""
    experiment: Path | None = None
    """The folder ``lecture experiment`` wrote (or its ``experiment.json``): its results
    become the ``trained.results.*`` values; without one the lecture shows the trained
    models' sizes and says how to produce results."""


_ENVIRONMENT = {"worksheet": "LECTURE_WORKSHEET", "out": "LECTURE_OUT",
                "narration": "LECTURE_NARRATION", "voice": "LECTURE_VOICE",
                "full_heads": "LECTURE_FULL_HEADS", "experiment": "LECTURE_EXPERIMENT"}
NARRATIONS = ("piper", "espeak", "none")
SWITCHES = ("full_heads",)
"""Settings that are on or off: ``true``/``false`` in the project file, a flag pair on
the command line, ``1``/``0`` (or yes/no, on/off, true/false) in the environment."""
_YES, _NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
SCENE_OPTIONS = ("full_heads",)
"""Settings that scenes read themselves, from their environment. A scene records the ones
it read in its manifest, and those enter its cache key (and no other scene's)."""


def _typed(key: str, value: str, where: str, folder: Path | None = None) -> object:
    """A setting's value as its field wants it; paths relative to ``folder``."""
    if key in SWITCHES:
        if value.strip().lower() in _YES:
            return True
        if value.strip().lower() in _NO:
            return False
        raise SettingsError(f"{where}: {key}: expected one of {', '.join(_YES + _NO)}, "
                            f"got {value!r}")
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
        if key in SWITCHES:
            if not isinstance(value, bool):
                raise SettingsError(f"{file}: {key}: expected true or false, got {value!r}")
            result[key] = value
            continue
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
    given = {key: value if isinstance(value, bool) else _typed(key, str(value), f"--{key}")
             for key, value in flags.items() if value is not None}
    return replace(settings, **given)


def scene_options(settings: Settings) -> dict[str, bool]:
    """The settings scenes read, by name."""
    return {name: getattr(settings, name) for name in SCENE_OPTIONS}


def scene_environment(options: Mapping[str, bool]) -> dict[str, str]:
    """Environment variables that hand ``options`` to a scene process (``1`` or ``0``)."""
    return {_ENVIRONMENT[name]: "1" if value else "0" for name, value in options.items()}
