"""The project files an output depends on, computed from the sources, never listed by hand.

A scene module's dependencies are its import closure: every project module it imports,
directly or through others (a helper borrowed from another scene module, the kit, the
formatter), with the ``__init__`` of each package on the way. Imports inside functions
count too, since they run when the scene does.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from outputs.files import KeptJSON

__all__ = ["PACKAGES", "ROOT", "import_closure"]

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("worksheet", "narration", "outline", "outputs", "scenes", "slides", "render")
"""The project's own packages; imports of anything else (manim, torch) are tool versions."""


def _sources(root: Path) -> set[str]:
    """Every Python file of the project's packages, relative to ``root`` (one walk; the
    closure then locates modules among them without touching the disk again)."""
    found = set()
    for package in PACKAGES:
        for folder, folders, files in os.walk(root / package):
            folders[:] = [name for name in folders if name != "__pycache__"]
            base = Path(folder).relative_to(root).as_posix()
            found.update(f"{base}/{name}" for name in files if name.endswith(".py"))
    return found


def _run_by(name: str, sources: set[str]) -> list[str]:
    """The files importing module ``name`` runs: each package's ``__init__.py`` on the way,
    then the module itself (none for a name outside the project)."""
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return []
    run = [init for depth in range(1, len(parts) + 1)
           if (init := "/".join([*parts[:depth], "__init__.py"])) in sources]
    module = "/".join(parts) + ".py"
    return run + ([module] if module in sources else [])


def _imports(file: Path, root: Path) -> tuple[str, ...]:
    """Project module names ``file`` imports (``from a import b`` counts ``a`` and ``a.b``),
    read again whenever the file changes (``lecture serve`` asks for the same files for
    hours while they are edited)."""
    stat = file.stat()
    return _known_imports(file, root, stat.st_mtime_ns, stat.st_size)


@cache
def _known_imports(file: Path, root: Path, mtime: int, size: int) -> tuple[str, ...]:
    """The imports of ``file`` as it is now: from the parse cache when a file with these
    bytes in this package was parsed before (by any process), else parsed."""
    source = file.read_bytes()
    package = ".".join(file.relative_to(root).with_suffix("").parts[:-1])
    key = f"{hashlib.sha256(source).hexdigest()} {package}"
    parsed = _PARSED.entries
    if key not in parsed:
        parsed[key] = _parsed_imports(source, package)
        _PARSED.changed = True
    return tuple(parsed[key])


def _parsed_imports(source: bytes, package: str) -> list[str]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # saved half-edited: the file alone, by its digest
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]
    return [name for name in names if name.split(".")[0] in PACKAGES]


_PARSED = KeptJSON("imports.json")
"""What each source file imports, by the sha256 of its bytes and its package: a build, a
check and a serve read a few dozen files whose imports rarely change, and parsing them
all took most of a build with nothing to do."""


def import_closure(files: Iterable[Path], root: Path = ROOT) -> list[str]:
    """Every project file the given source files depend on (themselves included), as
    paths relative to ``root``, sorted."""
    sources = _sources(root)
    seen: set[str] = set()
    located: dict[str, list[str]] = {}  # module name → the files importing it runs
    todo = [Path(f).resolve().relative_to(root).as_posix() for f in files]
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        for name in _imports(root / file, root):
            if name not in located:
                located[name] = _run_by(name, sources)
            todo += located[name]
    _PARSED.save()
    return sorted(seen)
