"""Assemble a local English corpus for ``lecture experiment`` from Debian's fortunes.

    apt-get install fortunes          # Debian 12: about 2.5 MB of quotations and jokes
    .venv/bin/python bench/fortunes_corpus.py OUT.txt

No story corpus (such as TinyStories) can be fetched on this machine, which reaches only
the package registries; Debian's ``fortunes`` package is real English text, in short
documents. Each of its files holds texts separated by a line ``%``; this writes every
text once, as one document, with documents separated by a blank line (the corpus format
``lecture experiment`` reads). Blank lines inside a text are dropped so that they do not
split it, and the pictures (``art``, ``ascii-art``) are left out. Files and texts are
taken in sorted order, so the output is the same on every machine with that package.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FORTUNES = Path("/usr/share/games/fortunes")
PICTURES = {"art", "ascii-art"}


def documents(folder: Path) -> list[str]:
    """Every text of every fortunes file in ``folder``, in file and text order."""
    found: list[str] = []
    for file in sorted(folder.iterdir()):
        if file.suffix or file.name in PICTURES or not file.is_file():
            continue  # .dat indexes and .u8 links have suffixes
        text = file.read_text(encoding="utf-8", errors="strict")
        for part in text.split("\n%\n"):
            lines = [line.rstrip() for line in part.strip("%\n").splitlines()]
            body = "\n".join(line for line in lines if line.strip())
            if body:
                found.append(body)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the corpus file to write")
    parser.add_argument("--fortunes", type=Path, default=FORTUNES,
                        help=f"the fortunes folder (default: {FORTUNES})")
    args = parser.parse_args()
    if not args.fortunes.is_dir():
        print(f"{args.fortunes}: no such folder; install Debian's fortunes package "
              "(apt-get install fortunes)", file=sys.stderr)
        return 2
    texts = documents(args.fortunes)
    unique = list(dict.fromkeys(texts))
    args.out.write_text("\n\n".join(unique) + "\n", encoding="utf-8")
    size = args.out.stat().st_size
    print(f"{args.out}: {len(unique):,} documents ({len(texts) - len(unique):,} repeats "
          f"dropped), {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
