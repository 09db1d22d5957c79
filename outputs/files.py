"""Writing outputs so that a reader never sees a half-written file."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["OutputError", "check_writable", "file_digest", "write_json", "write_text"]


class OutputError(OSError):
    """An output path cannot be written; the message says which and why."""


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_writable(path: Path) -> None:
    """Fail early, before any work, when ``path`` cannot be created.

    Raises
    ------
    OutputError
        When the folder is missing or the path is a folder.
    """
    if path.is_dir():
        raise OutputError(f"{path}: is a folder; expected a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{path}: folder {parent} does not exist; create it first")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file beside it, then a rename."""
    check_writable(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)  # mkstemp creates owner-only files
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as indented UTF-8 JSON, atomically."""
    write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
