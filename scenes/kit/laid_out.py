"""Texts laid out once, for this process and the ones after it.

Laying out a text (Pango writes an SVG, Manim parses its glyph outlines) takes 10–50 ms,
and a scene shows hundreds: about half of a scene's dry run, a quarter of its render. A
text depends only on its words, size, colour and face, so each one is laid out once,
kept in memory for the process and, compressed, in :func:`outputs.files.cache_home`'s
``texts/`` folder for every later process: the next scene, the next build, serve's
rebuilds. Loading a kept text takes about 2 ms and gives the same points, bit for bit.

A kept text is keyed by its kit key and by everything else its outline depends on: the
Manim, ManimPango, svgelements and NumPy versions, the two faces, and the source of
:mod:`scenes.kit.text` (where the text classes live). A file that does not load (cut
short, or from another version of a class) is laid out again and replaced.
"""

from __future__ import annotations

import hashlib
import pickle
import zlib
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

from manim import Mobject

from outputs.files import cache_home, write_bytes
from scenes.kit import text
from scenes.kit.layout import FONT, MONO

__all__ = ["LaidOut"]


@cache
def _signature() -> bytes:
    """What every kept text's outline depends on besides its own key."""
    versions = [version(name) for name in ("manim", "manimpango", "svgelements", "numpy")]
    source = Path(text.__file__).read_bytes()
    return repr((versions, FONT, MONO, hashlib.sha256(source).hexdigest())).encode()


class LaidOut:
    """Laid-out texts by key: made once, then copied.

    ``folder`` keeps them between processes (``None``: only in memory). Only copies leave
    the store, so a scene may move or recolour what it gets.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.texts: dict[tuple[Any, ...], Mobject] = {}

    def get(self, key: tuple[Any, ...], make: Callable[[], Mobject]) -> Any:
        """A copy of the text for ``key``; ``make`` lays it out when no store holds it."""
        if key not in self.texts:
            self.texts[key] = self._load(key) or self._keep(key, make())
        return self.texts[key].copy()

    def _path(self, key: tuple[Any, ...]) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(_signature() + repr(key).encode()).hexdigest()
        return self.folder / digest[:2] / f"{digest}.pickle.z"

    def _load(self, key: tuple[Any, ...]) -> Mobject | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            kept = pickle.loads(zlib.decompress(path.read_bytes()))
        except Exception:  # missing, cut short or stale: lay it out again
            return None
        return kept if isinstance(kept, Mobject) else None

    def _keep(self, key: tuple[Any, ...], made: Mobject) -> Mobject:
        made = text.lighten(made)
        path = self._path(key)
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_bytes(path, zlib.compress(pickle.dumps(made, protocol=5)), durable=False)
            except OSError:  # a read-only home: lay it out again next time
                pass
        return made


LAID_OUT = LaidOut(cache_home() / "texts")
"""The texts of this process, kept in the user's cache."""
