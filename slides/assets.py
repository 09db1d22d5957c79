"""The files a deck needs beside its ``index.html``: Reveal.js, KaTeX and the deck's own.

Reveal.js and KaTeX come from the npm registry, pinned in ``package.json`` and
``package-lock.json``. A checkout gets them in ``node_modules/`` from the set-up
(``npm ci``); an installed package carries a copy in ``slides/vendor/``, laid out as in
``node_modules/``, which the wheel's build (``setup.py``) makes from :func:`vendored_files`.
The copy wins when it is there. Only what the deck uses is copied: Reveal's core, the
white theme (its fonts are embedded), the math and notes plugins, and KaTeX's script,
auto-render, stylesheet and WOFF2 fonts, with both licences and each ``package.json``
(its version). The math plugin finds KaTeX under ``lib/katex`` through its
``katex.local`` setting, so nothing is fetched from a CDN.

The runtime of the slides that compute in the browser comes the same way
(:class:`Runtime`): ONNX Runtime Web's WebAssembly build (its classic script, the
Emscripten glue and the binary), which :mod:`slides.live` writes into every deck (the
worksheet explorer runs on it), and the tokenizers' CommonJS build with its licence,
written only into a deck that has the live slide.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from outputs.files import OutputError

__all__ = ["NODE_MODULES", "VENDOR", "Asset", "Assets", "DeckError", "Runtime",
           "asset_versions", "deck_assets", "library_root", "live_runtime", "vendored_files"]

NODE_MODULES = Path(__file__).resolve().parent.parent / "node_modules"
VENDOR = Path(__file__).resolve().parent / "vendor"
STATIC = Path(__file__).resolve().parent / "static"

_REVEAL = ("dist/reset.css", "dist/reveal.css", "dist/theme/white.css", "dist/reveal.js",
           "dist/plugin/math.js", "dist/plugin/notes.js", "LICENSE")
_KATEX = ("dist/katex.min.css", "dist/katex.min.js", "dist/contrib/auto-render.min.js",
          "LICENSE")
_KATEX_FONTS = "katex/dist/fonts"
_ORT = "onnxruntime-web"
_ORT_FILES = ("dist/ort.wasm.min.js", "dist/ort-wasm-simd-threaded.mjs",
              "dist/ort-wasm-simd-threaded.wasm")
_TOKENIZERS = "@huggingface/tokenizers"
_TOKENIZERS_FILES = ("dist/tokenizers.min.cjs", "LICENSE")


class DeckError(OutputError):
    """The deck cannot be assembled (missing assets, unusable clips, no browser for the PDF)."""


@dataclass(frozen=True)
class Asset:
    """One file to copy: where it comes from and its path inside the deck folder."""

    source: Path
    target: str


@dataclass(frozen=True)
class Assets:
    """Every file to copy, and the stylesheets and scripts ``index.html`` loads, in order."""

    files: tuple[Asset, ...]
    stylesheets: tuple[str, ...]
    scripts: tuple[str, ...]


def library_root() -> Path:
    """Where Reveal.js and KaTeX are read from: the installed copy, else ``node_modules/``."""
    return VENDOR if VENDOR.is_dir() else NODE_MODULES


def vendored_files(modules: Path) -> list[str]:
    """The files of a ``node_modules`` folder that the deck uses, relative to it: what an
    installed package carries (the fonts are whatever KaTeX ships, hence the folder)."""
    fonts = sorted(f"{_KATEX_FONTS}/{font.name}"
                   for font in (modules / _KATEX_FONTS).glob("*.woff2"))
    return [*(f"reveal.js/{path}" for path in (*_REVEAL, "package.json")),
            *(f"katex/{path}" for path in (*_KATEX, "package.json")), *fonts,
            *(f"{_ORT}/{path}" for path in (*_ORT_FILES, "package.json")),
            *(f"{_TOKENIZERS}/{path}" for path in (*_TOKENIZERS_FILES, "package.json"))]


def asset_versions(modules: Path | None = None) -> dict[str, str | None]:
    """The versions of Reveal.js and KaTeX, from their ``package.json`` (``None`` when one
    is not there)."""
    modules = library_root() if modules is None else modules
    found: dict[str, str | None] = {}
    for name in ("reveal.js", "katex"):
        manifest = modules / name / "package.json"
        found[name] = (json.loads(manifest.read_text(encoding="utf-8")).get("version")
                       if manifest.is_file() else None)
    return found


def deck_assets(modules: Path | None = None) -> Assets:
    """Locate every asset the deck needs, in ``modules`` (default :func:`library_root`).

    Raises
    ------
    DeckError
        When Reveal.js or KaTeX is not installed, naming the missing file and the fix.
    """
    modules = library_root() if modules is None else modules
    reveal, katex = modules / "reveal.js", modules / "katex"
    files = [Asset(reveal / path, "lib/reveal/" + path.removeprefix("dist/"))
             for path in _REVEAL]
    files += [Asset(katex / path, "lib/katex/" + path) for path in _KATEX]
    fonts = sorted((modules / _KATEX_FONTS).glob("*.woff2"))
    files += [Asset(font, f"lib/katex/dist/fonts/{font.name}") for font in fonts]
    files += [Asset(STATIC / name, name)
              for name in ("deck.css", "pictures.css", "live.css", "explorer.css", "print.css",
                           "deck.js", "format.js", "runtime.js", "live.js", "explorer.js")]
    for asset in files:
        if not asset.source.is_file():
            raise DeckError(f"{asset.source}: not found; in a checkout, install Reveal.js "
                            "and KaTeX with `npm ci` (./setup.sh does it); an installed "
                            "package carries them: reinstall it")
    if not fonts:
        raise DeckError(f"{modules / _KATEX_FONTS}: no KaTeX fonts; run `npm ci`")
    return Assets(
        files=tuple(files),
        stylesheets=("lib/reveal/reset.css", "lib/reveal/reveal.css",
                     "lib/reveal/theme/white.css", "deck.css", "pictures.css", "live.css",
                     "explorer.css", "print.css"),
        scripts=("lib/reveal/reveal.js", "lib/reveal/plugin/math.js",
                 "lib/reveal/plugin/notes.js", "deck.js", "format.js", "runtime.js",
                 "live.js", "explorer.js"),
    )


@dataclass(frozen=True)
class Runtime:
    """The files the live slide's runtime is made from (:mod:`slides.live` writes them
    into the deck): ONNX Runtime Web's classic script, the Emscripten glue it imports and
    the WebAssembly binary it runs; the tokenizers' CommonJS build and its licence."""

    script: Path
    glue: Path
    wasm: Path
    tokenizers: Path
    licence: Path

    @property
    def paths(self) -> tuple[Path, ...]:
        return (self.script, self.glue, self.wasm, self.tokenizers, self.licence)


def live_runtime(modules: Path | None = None) -> Runtime:
    """Locate the live slide's runtime in ``modules`` (default :func:`library_root`).

    Raises
    ------
    DeckError
        When ONNX Runtime Web or the tokenizers are not installed, naming the fix.
    """
    modules = library_root() if modules is None else modules
    runtime = Runtime(*(modules / _ORT / path for path in _ORT_FILES),
                      *(modules / _TOKENIZERS / path for path in _TOKENIZERS_FILES))
    for path in runtime.paths:
        if not path.is_file():
            raise DeckError(f"{path}: not found; in a checkout, install ONNX Runtime Web and "
                            "the tokenizers with `npm ci` (./setup.sh does it); an installed "
                            "package carries them: reinstall it")
    return runtime
