"""The immutable tree of computed values, each reachable by a stable key.

A key names a computed quantity, such as ``river.h1.weights``; a key with indices,
such as ``river.h1.weights[5]`` or ``river.h1.Q[9][0]``, names one entry of it
(indices count from zero, like Python; heads and positions in names count from one).
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from worksheet.formatting import Style, format_value, speak_value

if TYPE_CHECKING:
    from worksheet.results import Experiment
    from worksheet.schema import Worksheet

__all__ = ["Figure", "Values", "hand_values", "parse_key", "read_handed_values"]

_KEY = re.compile(r"^(?P<base>[A-Za-z][A-Za-z0-9_.]*?)(?P<index>(\[\d+\])*)$")

Nested = float | int | tuple["Nested", ...]


def parse_key(key: str) -> tuple[str, tuple[int, ...]]:
    """Split ``river.h1.Q[9][0]`` into ``("river.h1.Q", (9, 0))``.

    Raises
    ------
    KeyError
        When the key is not of that form.
    """
    match = _KEY.match(key)
    if not match:
        raise KeyError(f"{key!r} is not a value key (expected name.parts[index]...)")
    index = tuple(int(i) for i in re.findall(r"\[(\d+)\]", match["index"]))
    return match["base"], index


def _freeze(value: Any) -> Nested:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Nested) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Figure:
    """One displayed quantity: its key, its exact value and how it is displayed."""

    key: str
    value: Nested
    style: Style

    @property
    def text(self) -> Any:
        """Display text from the shared formatter (nested like the value)."""
        return format_value(_thaw(self.value), self.style)

    @property
    def spoken(self) -> Any:
        """What a voice says for it: the display text in words (nested like the value)."""
        return speak_value(_thaw(self.value), self.style)

    @property
    def shape(self) -> tuple[int, ...]:
        """Array shape of the value; ``()`` for a single number or a tensor shape."""
        if self.style is Style.SHAPE:
            return ()
        dims: list[int] = []
        node = self.value
        while isinstance(node, tuple):
            dims.append(len(node))
            node = node[0] if node else 0
        return tuple(dims)

    def tolist(self) -> Any:
        """The value as plain nested lists (for JSON)."""
        return _thaw(self.value)

    def leaves(self) -> Iterator[Figure]:
        """Every single number inside this figure, each with its own indexed key."""
        if self.style is Style.SHAPE or not isinstance(self.value, tuple):
            yield self
            return
        for i, item in enumerate(self.value):
            yield from Figure(f"{self.key}[{i}]", item, self.style).leaves()


class Values(Mapping[str, Figure]):
    """Read-only mapping from keys to :class:`Figure`; indexed keys reach single entries."""

    def __init__(self, figures: Mapping[str, Figure]) -> None:
        self._figures = dict(figures)

    def __getitem__(self, key: str) -> Figure:
        base, index = parse_key(key)
        if base not in self._figures:
            raise KeyError(f"no value named {base!r}")
        figure = self._figures[base]
        if not index:
            return figure
        node, style = figure.value, figure.style
        if style is Style.SHAPE:
            style = Style.COUNT
        for depth, i in enumerate(index):
            if not isinstance(node, tuple) or i >= len(node):
                raise KeyError(f"{key!r}: index {i} is out of range at depth {depth + 1} "
                               f"of {base} (shape {list(figure.shape) or 'scalar'})")
            node = node[i]
        return Figure(key, node, style)

    def __iter__(self) -> Iterator[str]:
        return iter(self._figures)

    def __len__(self) -> int:
        return len(self._figures)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        try:
            self[key]
        except KeyError:
            return False
        return True

    def text(self, key: str) -> str:
        """Display text of one entry, e.g. ``values.text("river.h1.weights[5]") == "0.718"``."""
        text = self[key].text
        if not isinstance(text, str):
            raise KeyError(f"{key!r} names several numbers; index one of them")
        return text

    def spoken(self, key: str) -> str:
        """Spoken form of one entry: ``values.spoken("river.h1.weights[5]")`` is
        ``"zero point seven one eight"``."""
        spoken = self[key].spoken
        if not isinstance(spoken, str):
            raise KeyError(f"{key!r} names several numbers; index one of them")
        return spoken

    def value(self, key: str) -> Any:
        """Exact value (number or nested lists) of a key."""
        return self[key].tolist()

    def leaves(self) -> Iterator[Figure]:
        """Every displayed number with its fully indexed key."""
        for figure in self._figures.values():
            yield from figure.leaves()

    def to_json(self) -> dict[str, dict[str, Any]]:
        """``{KEY: {"value": ..., "text": ...}}`` for every key, in computation order."""
        return {key: {"value": f.tolist(), "text": f.text} for key, f in self._figures.items()}



def _source(ws: Worksheet, experiment: Experiment | None) -> dict[str, str | None]:
    """What values are computed from: the worksheet and the experiment, by sha256."""
    return {"worksheet": ws.sha256, "experiment": experiment.sha256 if experiment else None}


def hand_values(values: Values, path: Path, ws: Worksheet,
                experiment: Experiment | None = None) -> None:
    """Write ``values``, computed from ``ws`` (and ``experiment``), for the processes a
    build starts (one per scene), so that they read what the build computed instead of
    computing it again."""
    path.write_bytes(pickle.dumps({"source": _source(ws, experiment),
                                   "values": values._figures},
                                  protocol=pickle.HIGHEST_PROTOCOL))


def read_handed_values(path: Path, ws: Worksheet,
                       experiment: Experiment | None = None) -> Values | None:
    """The values a build handed over in ``path``, when they were computed from ``ws``
    and ``experiment``; ``None`` otherwise (the reader then computes them itself)."""
    try:
        handed = pickle.loads(path.read_bytes())  # written by the build that started us
    except (OSError, pickle.UnpicklingError, EOFError):
        return None
    if handed.get("source") != _source(ws, experiment):
        return None
    return Values(handed["values"])
