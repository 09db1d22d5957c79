"""The lesson a scene renders: the worksheet, its values and voice, read through
recorders that note every key and fact a scene reads (its dependencies)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import is_dataclass
from functools import cache
from pathlib import Path
from typing import Any

from narration.voices import Voice, open_voice
from worksheet import DEFAULT_WORKSHEET, Values, Worksheet, load_worksheet, read_handed_values
from worksheet.results import Experiment, chosen_experiment, load_experiment

LESSON_WORDS: frozenset[str] = frozenset()
"""Words the lesson itself brings to ``{slot}`` texts, besides the worksheet's strings."""


@cache
def _lesson(path: str, stamp: float, experiment: str = "", experiment_stamp: float = 0.0
            ) -> tuple[Worksheet, Values, Experiment | None]:
    ws = load_worksheet(path)
    chosen = chosen_experiment(experiment or None, ws)
    results = load_experiment(chosen, ws) if chosen is not None else None
    handed = os.environ.get("LECTURE_VALUES")
    values = read_handed_values(Path(handed), ws, results) if handed else None
    if values is None:  # run on its own (plain manim): compute them here
        from worksheet import compute_values

        values = compute_values(ws, results)
    return ws, values, results



def _current() -> tuple[str, float, str, float]:
    path = Path(os.environ.get("LECTURE_WORKSHEET") or DEFAULT_WORKSHEET)
    experiment = os.environ.get("LECTURE_EXPERIMENT") or ""
    return (str(path), path.stat().st_mtime if path.exists() else 0.0, experiment,
            Path(experiment).stat().st_mtime if experiment and Path(experiment).exists()
            else 0.0)


def current_lesson() -> tuple[Worksheet, Values]:
    """The worksheet named by ``$LECTURE_WORKSHEET`` (or the default) and its values, with
    the results of the experiment named by ``$LECTURE_EXPERIMENT`` (unset: the bundled one
    where it fits; ``none``: none)."""
    return _lesson(*_current())[:2]


def current_experiment() -> Experiment | None:
    """The experiment named by ``$LECTURE_EXPERIMENT`` (checked), or ``None``."""
    return _lesson(*_current())[2]


@cache
def _voice(engine: str, model: str, cache_dir: str) -> Voice:
    return open_voice(engine, Path(model) if model else None,
                      Path(cache_dir) if cache_dir else None)


def lesson_voice() -> Voice:
    """The voice named by ``$LECTURE_NARRATION`` (``piper``, the default; ``espeak``;
    ``none``), ``$LECTURE_VOICE`` (a Piper model) and ``$LECTURE_SPEECH_CACHE``."""
    return _voice(os.environ.get("LECTURE_NARRATION") or "piper",
                  os.environ.get("LECTURE_VOICE") or "",
                  os.environ.get("LECTURE_SPEECH_CACHE") or "")


@cache
def _words(path: str, stamp: float) -> frozenset[str]:
    return _lesson(path, stamp)[0].words | LESSON_WORDS


def lesson_words() -> frozenset[str]:
    """Words a scene may show or say besides bound numbers: the worksheet's own strings
    and the fixed lesson vocabulary."""
    return _words(*_current()[:2])


class RecordingValues:
    """The values, remembering every key a scene reads (its dependencies)."""

    def __init__(self, values: Values) -> None:
        self._values = values
        self.read: set[str] = set()

    def text(self, key: str) -> str:
        self.read.add(key)
        return self._values.text(key)

    def value(self, key: str) -> Any:
        self.read.add(key)
        return self._values.value(key)

    def spoken(self, key: str) -> str:
        self.read.add(key)
        return self._values.spoken(key)


class RecordingWorksheet:
    """The worksheet, remembering every fact a scene reads: its words, names, order and
    sizes (``sentences``, ``lesson.features``, ``n_heads``...), the dependencies that are
    not values."""

    def __init__(self, node: Any, facts: set[str] | None = None, path: str = "") -> None:
        self._node, self._path = node, path
        self.facts: set[str] = set() if facts is None else facts

    def __getattr__(self, name: str) -> Any:
        node = getattr(self._node, name)
        path = f"{self._path}.{name}" if self._path else name
        if is_dataclass(node):
            return RecordingWorksheet(node, self.facts, path)
        if callable(node):
            raise AttributeError(f"scenes read worksheet facts, not methods such as {path}()")
        if isinstance(node, Mapping):
            return _RecordingMapping(node, self.facts, path)
        self.facts.add(path)
        return node


class _RecordingMapping(Mapping[str, Any]):
    """A worksheet mapping (sentences, targets): looking up one entry records that entry;
    going through all of them records the whole mapping, its order included."""

    def __init__(self, node: Mapping[str, Any], facts: set[str], path: str) -> None:
        self._node, self._facts, self._path = node, facts, path

    def __getitem__(self, key: str) -> Any:
        self._facts.add(f"{self._path}.{key}")
        return self._node[key]

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is an entry depends on every entry: records the whole mapping
        (one entry that is absent would name no fact)."""
        self._facts.add(self._path)
        return key in self._node

    def __iter__(self) -> Iterator[str]:
        self._facts.add(self._path)
        return iter(self._node)

    def __len__(self) -> int:
        self._facts.add(self._path)
        return len(self._node)


def copied_features(values: RecordingValues, head: int, kind: str) -> list[int] | None:
    """The input feature each column of a head's ``W_K`` or ``W_V`` (``kind``) copies, when
    every column is a hand-made selector (``params.hN.K_features``); otherwise ``None``."""
    picked = [int(f) for f in values.value(f"params.h{head}.{kind}_features")]
    return None if min(picked) < 0 else picked
