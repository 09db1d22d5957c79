"""Random corruptions of a valid worksheet never produce a traceback: either the
worksheet still works, or the command exits 2 with one line naming what is wrong."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worksheet import DEFAULT_WORKSHEET

DOC = json.loads(DEFAULT_WORKSHEET.read_text(encoding="utf-8"))


def _locations(node: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(node, dict):
        for key, child in node.items():
            found += _locations(child, (*path, key))
    elif isinstance(node, list):
        for i, child in enumerate(node):
            found += _locations(child, (*path, i))
    return found


LOCATIONS = _locations(DOC)

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**40, 10**40),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from([math.nan, math.inf, -math.inf, 0, -1, 1e39, "the", "", "<b>&"]),
)
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)


@st.composite
def corruptions(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(DOC)
    for _ in range(draw(st.integers(1, 3))):
        locations = _locations(doc)
        where = draw(st.sampled_from(locations if doc is not None else [()]))
        action = draw(st.sampled_from(["replace", "delete", "append", "truncate"]))
        if not where:
            doc = draw(json_values) if action == "replace" else doc
            continue
        parent = doc
        try:
            for key in where[:-1]:
                parent = parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        last = where[-1]
        target = parent[last] if isinstance(parent, (dict, list)) else None
        if action == "replace":
            parent[last] = draw(json_values)
        elif action == "delete":
            del parent[last]
        elif action == "append" and isinstance(target, list):
            target.append(copy.deepcopy(target[-1]) if target and draw(st.booleans())
                          else draw(json_values))
        elif action == "truncate" and isinstance(target, list) and target:
            del target[draw(st.integers(0, len(target) - 1)):]
    return doc


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])
@given(document=corruptions())
def test_corrupted_worksheets_never_crash(document: Any, lecture, tmp_path: Path) -> None:
    source = tmp_path / "corrupt.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    out = tmp_path / "out.json"
    out.unlink(missing_ok=True)
    result = lecture("worksheet", "export", out, "--worksheet", source)
    assert result.exit_code in (0, 2), result.exception
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("lecture: error: ")
        assert not out.exists()
    else:
        assert out.exists()
