"""Typed settings, layered: defaults < project file < environment < command-line flags.

The project file is ``lecture.toml`` in the current folder, for example::

    worksheet = "my-worksheet.json"
    out = "build"

Environment variables: ``LECTURE_WORKSHEET``, ``LECTURE_OUT``.
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


_ENVIRONMENT = {"worksheet": "LECTURE_WORKSHEET", "out": "LECTURE_OUT"}


def _from_project(folder: Path) -> dict[str, Path]:
    file = folder / PROJECT_FILE
    if not file.is_file():
        return {}
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SettingsError(f"{file}: invalid TOML ({error})") from None
    known = {f.name for f in fields(Settings)}
    result: dict[str, Path] = {}
    for key, value in data.items():
        if key not in known:
            raise SettingsError(f"{file}: {key}: unknown setting; expected one of "
                                f"{', '.join(sorted(known))}")
        if not isinstance(value, str) or not value:
            raise SettingsError(f"{file}: {key}: expected a path string, got {value!r}")
        result[key] = folder / value
    return result


def resolve_settings(flags: Mapping[str, object], environ: Mapping[str, str] | None = None,
                     folder: Path | None = None) -> Settings:
    """Combine the layers; a flag left as ``None`` falls through to the layer below."""
    environ = os.environ if environ is None else environ
    settings = replace(Settings(), **_from_project(folder or Path.cwd()))
    from_env = {key: Path(environ[var]) for key, var in _ENVIRONMENT.items()
                if environ.get(var)}
    settings = replace(settings, **from_env)
    given = {key: Path(str(value)) for key, value in flags.items() if value is not None}
    return replace(settings, **given)
