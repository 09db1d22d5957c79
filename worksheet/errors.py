"""The error types a worksheet author sees: a worksheet, or an experiment, that cannot run.

The schema's validators raise :class:`Invalid`; :func:`translated` turns the first error
of a pydantic ``ValidationError`` into the one-line :class:`WorksheetError`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["ExperimentError", "Invalid", "WorksheetError", "describe", "translated"]


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


class Invalid(ValueError):
    """A rule across fields is broken: raised by a schema validator with the ``message``
    and where it applies (``at``: keys and list indices below the object it checks)."""

    def __init__(self, message: str, *at: str | int) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


def describe(node: Any) -> str:
    """A JSON value as the author would recognise it in the file, kept short."""
    if isinstance(node, list):
        return f"a list of {len(node)}" if node else "an empty list"
    if isinstance(node, dict):
        return "an object" if node else "an empty object"
    if isinstance(node, int) and abs(node) >= 10**20:
        return f"a number of {len(str(abs(node)))} digits"
    return json.dumps(node if not isinstance(node, str) or len(node) <= 20 else node[:17] + "...")


# pydantic's error types whose wording does not depend on the field
_EXPECTED = {"float_type": "a number", "finite_number": "a finite number"}
# a size named in a description: "a {d_model}×{d_head} matrix"
_SLOT = re.compile(r"\{([^{}]+)\}")


def translated(error: ValidationError, schema: Mapping[str, Any], prefix: tuple[str, ...] = (),
               source: str | None = None, sizes: Mapping[str, int] | None = None
               ) -> WorksheetError:
    """The first of pydantic's errors as a :class:`WorksheetError`: its location as the JSON
    path (below ``prefix``), and what was expected there, from the ``description`` of that
    place in the validated model's JSON ``schema`` or from the validator's own message.

    A description names sizes as ``{slots}``; each is written as its figure in ``sizes``
    when the document states it, else as the slot's name.
    """
    first = error.errors(include_url=False)[0]
    loc = first["loc"][:-1] if first["loc"][-1:] == ("[key]",) else first["loc"]
    problem = first.get("ctx", {}).get("error")
    if isinstance(problem, Invalid):
        return WorksheetError(_path((*prefix, *loc, *problem.at)), problem.message, source)
    path = _path((*prefix, *loc))
    if first["type"] == "extra_forbidden":
        known = ", ".join(_node(schema, loc[:-1]).get("properties", {}))
        return WorksheetError(path, f"not a {_path(prefix + loc[:-1])} part; expected one of "
                              f"{known}", source)
    expected = _EXPECTED.get(first["type"]) or _node(schema, loc).get("description", "")
    expected = _SLOT.sub(lambda slot: str((sizes or {}).get(slot[1], slot[1])), expected)
    if first["type"] == "missing":
        return WorksheetError(path, f"missing; expected {expected}", source)
    return WorksheetError(path, f"expected {expected}, got {describe(first['input'])}", source)


def _path(loc: tuple[str | int, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else part
    return text or "top level"


def _node(schema: Mapping[str, Any], loc: tuple[str | int, ...]) -> Mapping[str, Any]:
    """The JSON-schema node at ``loc``; its own description wins over its type's."""
    node = schema
    for part in loc:
        node = _resolved(schema, node)
        node = node.get("items") if isinstance(part, int) else node.get("properties", {}).get(
            part, node.get("additionalProperties"))
        node = node if isinstance(node, Mapping) else {}
    return node if "description" in node else _resolved(schema, node)


def _resolved(schema: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    """The definition a node refers to (pydantic before 2.9 wraps the reference in allOf)."""
    reference = node.get("$ref") or node.get("allOf", [{}])[0].get("$ref", "")
    return schema["$defs"][reference.rsplit("/", 1)[-1]] if reference else node
