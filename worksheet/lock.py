"""A folder's writer lock: an operating-system lock (:mod:`filelock`, ``flock`` on Unix).

``lecture build`` and ``lecture experiment`` each write one folder that a second run must
not write at the same time; the second run is refused at once, never made to wait. The
system frees the lock when its process ends, however it ends, so a lock file left by a
killed run is simply taken by the next one. The file holds the holder's pid, for the
message that refuses a second run, and is removed on release while still locked: a run
that opened it in that instant finds it unlinked and tries a fresh one.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = ["FolderLock"]


def _write_pid(descriptor: int) -> None:
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, str(os.getpid()).encode(), 0)


class FolderLock(ABC):
    """``path`` locked by this process while the ``with`` block runs.

    Subclasses say what went wrong in their own words: :meth:`busy` when another process
    holds the lock, :meth:`stuck` when the file cannot be opened or locked at all.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # One hold for the whole process (its threads work under it); a second lock of the
        # same path, even in this process, is another holder and is refused.
        self._lock = FileLock(path, blocking=False, thread_local=False, is_singleton=False,
                              on_acquired=_write_pid)

    @abstractmethod
    def busy(self, holder: int | None) -> Exception:
        """The error for a lock another process holds (``holder``: its pid, if known)."""

    @abstractmethod
    def stuck(self, error: OSError) -> Exception:
        """The error for a lock file that cannot be opened or locked."""

    def __enter__(self) -> FolderLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except Timeout:
            raise self.busy(self._holder()) from None
        except OSError as error:
            raise self.stuck(error) from None
        return self

    def _holder(self) -> int | None:
        """The pid the holder wrote, if it has yet."""
        try:
            return int(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)
        self._lock.release()
