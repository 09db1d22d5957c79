"""The files a deck needs beside its ``index.html``: Reveal.js, KaTeX and the deck's own.

Reveal.js and KaTeX come from the npm registry, pinned in ``package.json`` and
``package-lock.json`` and installed into ``node_modules/`` by the set-up (``npm ci``).
Only what the deck uses is copied: Reveal's core, the white theme (its fonts are
embedded), the math and notes plugins, and KaTeX's script, auto-render, stylesheet and
WOFF2 fonts, with both licences. The math plugin finds KaTeX under ``lib/katex``
through its ``katex.local`` setting, so nothing is fetched from a CDN.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from outputs.files import OutputError

__all__ = ["NODE_MODULES", "Asset", "Assets", "DeckError", "deck_assets"]

NODE_MODULES = Path(__file__).resolve().parent.parent / "node_modules"
STATIC = Path(__file__).resolve().parent / "static"

_REVEAL = ("dist/reset.css", "dist/reveal.css", "dist/theme/white.css", "dist/reveal.js",
           "dist/plugin/math.js", "dist/plugin/notes.js", "LICENSE")
_KATEX = ("dist/katex.min.css", "dist/katex.min.js", "dist/contrib/auto-render.min.js",
          "LICENSE")


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


def deck_assets(node_modules: Path = NODE_MODULES) -> Assets:
    """Locate every asset the deck needs.

    Raises
    ------
    DeckError
        When Reveal.js or KaTeX is not installed, naming the missing file and the fix.
    """
    reveal, katex = node_modules / "reveal.js", node_modules / "katex"
    files = [Asset(reveal / path, "lib/reveal/" + path.removeprefix("dist/"))
             for path in _REVEAL]
    files += [Asset(katex / path, "lib/katex/" + path) for path in _KATEX]
    fonts = sorted((katex / "dist" / "fonts").glob("*.woff2"))
    files += [Asset(font, f"lib/katex/dist/fonts/{font.name}") for font in fonts]
    files += [Asset(STATIC / name, name) for name in ("deck.css", "pictures.css", "deck.js")]
    for asset in files:
        if not asset.source.is_file():
            raise DeckError(f"{asset.source}: not found; install Reveal.js and KaTeX with "
                            "`npm ci` in the project folder (./setup.sh does it)")
    if not fonts:
        raise DeckError(f"{katex / 'dist' / 'fonts'}: no KaTeX fonts; run `npm ci`")
    return Assets(
        files=tuple(files),
        stylesheets=("lib/reveal/reset.css", "lib/reveal/reveal.css",
                     "lib/reveal/theme/white.css", "deck.css", "pictures.css"),
        scripts=("lib/reveal/reveal.js", "lib/reveal/plugin/math.js",
                 "lib/reveal/plugin/notes.js", "deck.js"),
    )
