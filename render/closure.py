"""The project files an output depends on, computed from the sources, never listed by hand.

A scene module's dependencies are its import closure: every project module it imports,
directly or through others (a helper borrowed from another scene module, the kit, the
formatter), with the ``__init__`` of each package on the way. Imports inside functions
count too, since they run when the scene does.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

__all__ = ["PACKAGES", "ROOT", "import_closure"]

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("worksheet", "narration", "outline", "outputs", "scenes", "slides", "render")
"""The project's own packages; imports of anything else (manim, torch) are tool versions."""


def _module_file(name: str, root: Path) -> Path | None:
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _packages_of(name: str, root: Path) -> list[Path]:
    """The ``__init__.py`` files that importing ``name`` runs."""
    parts = name.split(".")
    found = []
    for depth in range(1, len(parts) + 1):
        init = root.joinpath(*parts[:depth], "__init__.py")
        if init.is_file():
            found.append(init)
    return found


def _imports(file: Path, root: Path) -> tuple[str, ...]:
    """Project module names ``file`` imports (``from a import b`` counts ``a`` and ``a.b``),
    read again whenever the file changes (``lecture serve`` asks for the same files for
    hours while they are edited)."""
    stat = file.stat()
    return _parsed_imports(file, root, stat.st_mtime_ns, stat.st_size)


@cache
def _parsed_imports(file: Path, root: Path, mtime: int, size: int) -> tuple[str, ...]:
    try:
        tree = ast.parse(file.read_text(encoding="utf-8"))
    except SyntaxError:  # saved half-edited: the file alone, by its digest, until it parses
        return ()
    package = ".".join(file.relative_to(root).with_suffix("").parts[:-1])
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
    return tuple(name for name in names if name.split(".")[0] in PACKAGES)


def import_closure(files: Iterable[Path], root: Path = ROOT) -> list[str]:
    """Every project file the given source files depend on (themselves included), as
    paths relative to ``root``, sorted."""
    seen: set[Path] = set()
    located: dict[str, list[Path]] = {}  # module name → the files importing it runs
    todo = [Path(f).resolve() for f in files]
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        for name in _imports(file, root):
            if name not in located:
                found = _module_file(name, root)
                located[name] = _packages_of(name, root) + ([found] if found else [])
            todo += located[name]
    return sorted(path.relative_to(root).as_posix() for path in seen)
