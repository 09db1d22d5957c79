"""Build hook: the wheel carries the library files the deck uses (Reveal.js, KaTeX, and for
the live slide ONNX Runtime Web and the tokenizers).

Everything else is declared in ``pyproject.toml``. ``build_py`` copies the files
:func:`slides.assets.vendored_files` names from ``node_modules/`` (``npm ci`` in a
checkout) into ``slides/vendor/`` of the package, and ``sdist`` carries the same files
under ``node_modules/`` (``MANIFEST.in`` adds ``package.json`` and ``package-lock.json``),
so a wheel built from the sdist alone is complete. An editable install copies nothing: it
reads ``node_modules/`` in place.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from slides.assets import NODE_MODULES, vendored_files  # noqa: E402


def _libraries() -> list[str]:
    """The files to carry, relative to ``node_modules/``; every one must be there."""
    names = vendored_files(NODE_MODULES)
    missing = [name for name in names if not (NODE_MODULES / name).is_file()]
    if not any(name.endswith(".woff2") for name in names):
        missing.append("katex/dist/fonts/*.woff2")
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise SystemExit(f"{NODE_MODULES / missing[0]}: not found{more}; the package carries "
                         "the deck's libraries: run `npm ci` before building it")
    return names


class BuildWithLibraries(build_py):
    """``build_py`` that also copies the deck's libraries into ``slides/vendor/``."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        vendor = Path(self.build_lib, "slides", "vendor")
        for name in _libraries():
            target = vendor / name
            self.mkpath(str(target.parent))
            self.copy_file(str(NODE_MODULES / name), str(target))


class SdistWithLibraries(sdist):
    """``sdist`` that also carries what :class:`BuildWithLibraries` reads."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        for name in _libraries():
            target = Path(base_dir, "node_modules", name)
            self.mkpath(str(target.parent))
            self.copy_file(str(NODE_MODULES / name), str(target))


setup(cmdclass={"build_py": BuildWithLibraries, "sdist": SdistWithLibraries})
