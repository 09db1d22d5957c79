"""The import closure that keys builds follows edits, and survives a file saved half-edited."""

from __future__ import annotations

import os
from pathlib import Path

from render.closure import import_closure


def _write(path: Path, text: str, stamp: int) -> None:
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))  # a distinct time for each save, however quick


def test_the_closure_follows_imports_through_an_edit_that_does_not_parse(tmp_path: Path
                                                                         ) -> None:
    slides = tmp_path / "slides"
    slides.mkdir()
    _write(slides / "__init__.py", "", 1)
    _write(slides / "helper.py", "VALUE = 1\n", 1)
    _write(slides / "other.py", "VALUE = 2\n", 1)
    deck = slides / "deck.py"
    _write(deck, "from slides.helper import VALUE\n", 1_000_000_000)
    assert import_closure([deck], tmp_path) == ["slides/__init__.py", "slides/deck.py",
                                                "slides/helper.py"]
    _write(deck, "from slides.other import (VALUE\n", 2_000_000_000)
    assert import_closure([deck], tmp_path) == ["slides/deck.py"]
    _write(deck, "import slides.other\nimport numpy\n", 3_000_000_000)
    assert import_closure([deck], tmp_path) == ["slides/__init__.py", "slides/deck.py",
                                                "slides/other.py"]
