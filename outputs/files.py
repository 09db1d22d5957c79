"""Writing outputs so that a reader never sees a half-written file."""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["KeptJSON", "OutputError", "cache_home", "check_writable", "file_digest",
           "remembered_digest", "write_bytes", "write_json", "write_text"]


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


def cache_home() -> Path:
    """``$XDG_CACHE_HOME/multihead-lecture`` (``~/.cache/multihead-lecture``): what builds
    keep between processes to go faster. Anything in it may be deleted."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "multihead-lecture"


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file beside it, then a rename."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file beside it, then a rename.
    ``durable=False`` skips the flush to disk, for caches that may be lost in a crash."""
    check_writable(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            if durable:
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


class KeptJSON:
    """A JSON object kept between processes in :func:`cache_home`'s file ``name``.

    :attr:`entries` reads it at first use (a missing or unreadable file reads as empty);
    :meth:`save` writes it back whole when :attr:`changed` (a read-only home keeps
    nothing; a file another process rewrote meanwhile loses only time).
    """

    def __init__(self, name: str) -> None:
        self.path = cache_home() / name
        self._entries: dict[str, Any] | None = None
        self.changed = False

    @property
    def entries(self) -> dict[str, Any]:
        if self._entries is None:
            try:
                read = json.loads(self.path.read_text(encoding="utf-8"))
                self._entries = read if isinstance(read, dict) else {}
            except (OSError, ValueError):
                self._entries = {}
        return self._entries

    def save(self) -> None:
        if not self.changed:
            return
        self.changed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(self.path, json.dumps(self.entries, sort_keys=True).encode(),
                        durable=False)
        except OSError:  # a read-only home: made again next time
            pass


class _Digests(KeptJSON):
    """sha256 of files by their path, size, modification time and inode, in
    ``digests.json``; saved once, as the process ends."""

    def __init__(self) -> None:
        super().__init__("digests.json")

    def get(self, path: Path) -> str:
        stat = path.stat()
        key = f"{path.resolve()} {stat.st_size} {stat.st_mtime_ns} {stat.st_ino}"
        if key not in self.entries:
            self.entries[key] = file_digest(path)
            if not self.changed:
                atexit.register(self.save)
            self.changed = True
        return self.entries[key]

    def save(self) -> None:
        # Only files that still exist: a build folder removed takes its entries with it.
        self._entries = {key: digest for key, digest in self.entries.items()
                         if Path(key.rsplit(" ", 3)[0]).exists()}
        super().save()


_DIGESTS = _Digests()


def remembered_digest(path: Path) -> str:
    """sha256 of a file's bytes, hashed again only when its size, modification time or
    inode changed since any process last hashed it (as make and git judge a file).

    For deciding what to build (a no-change build would otherwise hash every clip and
    the 60 MB voice model each time); ``lecture check`` always hashes the bytes.
    """
    return _DIGESTS.get(path)
