"""The error types a worksheet author sees: a worksheet, or an experiment, that cannot run."""

from __future__ import annotations

__all__ = ["ExperimentError", "WorksheetError"]


class WorksheetError(ValueError):
    """A worksheet cannot be used as written.

    Parameters
    ----------
    path
        Where the problem is: a JSON path such as ``headsLesson.projections[1].K``,
        or ``top level`` for the document itself.
    message
        What was expected and what was found, in one sentence.
    source
        The worksheet file, when there is one.
    """

    def __init__(self, path: str, message: str, source: str | None = None) -> None:
        self.path = path
        self.message = message
        self.source = source
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The error as one line for a terminal: file, JSON path, what to fix."""
        where = f"{self.source}: " if self.source else ""
        return f"{where}{self.path}: {self.message}"

    def with_source(self, source: str) -> WorksheetError:
        """The same error, naming the file it came from."""
        return WorksheetError(self.path, self.message, source)


class ExperimentError(ValueError):
    """The trained-comparison experiment cannot run as asked: a corpus, an output folder
    or an option is unusable. The message is one line: what, where, what was expected."""
