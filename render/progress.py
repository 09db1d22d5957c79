"""A rich progress display for builds: one line per scene in flight, one overall."""

from __future__ import annotations

import threading
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from outline import SceneEntry

__all__ = ["BuildProgress"]


class BuildProgress:
    """Receives ``(event, entry, seconds)`` from a build and draws it."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("left"), TimeRemainingColumn(), console=console,
                                 transient=True)
        self.overall: TaskID | None = None
        self.tasks: dict[str, TaskID] = {}
        self.lock = threading.Lock()

    def __enter__(self) -> BuildProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def update(self, event: str, entry: SceneEntry, seconds: float) -> None:
        with self.lock:
            if event == "plan":
                self.overall = self.progress.add_task("all scenes", total=int(seconds))
            elif event == "start":
                self.tasks[entry.name] = self.progress.add_task(entry.name, total=1)
            else:
                task = self.tasks.pop(entry.name)
                self.progress.update(task, completed=1)
                self.progress.remove_task(task)
                if self.overall is not None:
                    self.progress.advance(self.overall)
                mark = "✓" if event == "done" else "✗"
                self.progress.console.print(f"{mark} {entry.name} ({seconds:.1f} s)")
