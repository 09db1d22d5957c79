"""Counting in English (``1 scene``, ``2 scenes``, ``was``/``were``) with ``inflect``.

inflect 7 wraps its methods in typeguard's ``@typechecked``, which re-parses inflect's
whole source once per method when the module is imported: 2.4 s in every process that
counts (each scene's render, every ``lecture check``), for run-time checks of the
arguments we pass, which are always plain strings and numbers. The import below leaves
those methods as inflect wrote them; everything else is inflect's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typeguard

__all__ = ["ENGLISH"]


def _as_written(target: Any = None, **_: Any) -> Any | Callable[[Any], Any]:
    """typeguard's decorator, leaving what it decorates as it is."""
    return target if target is not None else (lambda decorated: decorated)


_instrument = typeguard.typechecked
typeguard.typechecked = _as_written
try:
    import inflect
finally:
    typeguard.typechecked = _instrument

ENGLISH = inflect.engine()
"""The one English engine: plurals, agreement and ``no`` (``1 scene``, ``2 scenes``)."""
