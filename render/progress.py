"""Rich progress displays: a build's (one line per scene in flight, one overall) and an
experiment's (one line per training run, one overall)."""

from __future__ import annotations

import math
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

__all__ = ["BuildProgress", "ExperimentProgress"]


class BuildProgress:
    """Receives ``(event, entry, seconds)`` from a build and draws it.

    The display starts with the first event, once the build's inputs are checked: a
    refusal before it is the one line on stderr."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(),
                                 TextColumn("left"), TimeRemainingColumn(), console=console,
                                 transient=True)
        self.overall: TaskID | None = None
        self.tasks: dict[str, TaskID] = {}
        self.lock = threading.Lock()
        self.started = False

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.started:
            self.progress.__exit__(*exc)

    def update(self, event: str, entry: SceneEntry, seconds: float) -> None:
        with self.lock:
            if not self.started:
                self.progress.__enter__()
                self.started = True
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


class ExperimentProgress:
    """Receives the experiment's events and draws one line per run and one overall, each
    with the time left; a finished run leaves one line with its final losses."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("{task.fields[losses]}"),
                                 TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                                 console=console, transient=True)
        self.overall: TaskID | None = None
        self.task: TaskID | None = None
        self.started = False

    def __enter__(self) -> ExperimentProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.started:
            self.progress.__exit__(*exc)

    def update(self, event: Any) -> None:
        """``event`` is a :class:`worksheet.experiment.Event` (kind, run, step, steps, …).

        The display starts with the first event, once the inputs are checked: a refusal
        before it is the one line on stderr."""
        if not self.started:
            self.progress.__enter__()
            self.started = True
        if event.kind == "plan":
            self.overall = self.progress.add_task("all runs", total=event.steps,
                                                  completed=event.step, losses="")
        elif event.kind == "start":
            self.task = self.progress.add_task(event.run, total=event.steps,
                                               completed=event.step, losses="")
        elif event.kind == "step" and self.task is not None:
            best = "" if event.best is None or event.best == float("inf") else \
                f" · best validation {event.best:.3f}"
            self.progress.update(self.task, completed=event.step,
                                 losses=f"loss {event.loss:.3f}{best}")
            if self.overall is not None:
                self.progress.advance(self.overall)
        elif event.kind == "done":
            if self.task is not None:
                self.progress.remove_task(self.task)
                self.task = None
            self.progress.console.print(f"✓ {event.run}: validation {event.best:.3f}, test "
                                        f"{event.loss:.3f} (perplexity "
                                        f"{math.exp(event.loss):.1f})")
