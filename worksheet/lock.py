"""A folder's writer lock: a file holding the writing process's pid.

``lecture build`` and ``lecture experiment`` each write one folder that a second run must
not write at the same time. The lock is taken by creating the file exclusively; a lock
left by a process that is gone (killed, or the machine restarted) is taken over.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["PidLock"]


class PidLock:
    """``path`` holding this process's pid while the ``with`` block runs.

    Subclasses say what went wrong in their own words: :meth:`busy` when another live
    process holds the lock, :meth:`stuck` when the file cannot be taken at all.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def busy(self, holder: int) -> Exception:
        return RuntimeError(f"{self.path}: held by the running process {holder}")

    def stuck(self) -> Exception:
        return RuntimeError(f"cannot take {self.path}; remove it if nothing is running")

    def __enter__(self) -> PidLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if holder is not None and holder != os.getpid() and _alive(holder):
                    raise self.busy(holder) from None
                self.path.unlink(missing_ok=True)  # left by a process that is gone
                continue
            with os.fdopen(handle, "w") as stream:
                stream.write(str(os.getpid()))
            return self
        raise self.stuck()

    def _holder(self) -> int | None:
        try:
            return int(self.path.read_text().strip())
        except (OSError, ValueError):
            return None

    def __exit__(self, *exc: object) -> None:
        if self._holder() == os.getpid():
            self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
