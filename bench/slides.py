"""Measure the slide deck build on this machine and print each figure in seconds.

    .venv/bin/python bench/slides.py [--worksheet PATH] [--repeat N]

Figures (best of N runs, fresh output folders): computing the values, building the deck
context, the whole deck build (assets copied, ``index.html`` written), the same with
``--pdf`` and, by difference, the PDF alone; then ``lecture slides`` and
``lecture slides --pdf`` end to end as commands.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slides.deck import build_deck, deck_context  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet  # noqa: E402


def best(run: Callable[[Path], object], repeat: int) -> float:
    """Fastest of ``repeat`` runs, each given a fresh folder."""
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="slides-bench-") as folder:
            started = time.perf_counter()
            run(Path(folder))
            times.append(time.perf_counter() - started)
    return min(times)


def command(*args: str) -> Callable[[Path], object]:
    lecture = Path(sys.executable).parent / "lecture"

    def run(folder: Path) -> None:
        subprocess.run([str(lecture), "slides", "--out", str(folder), *args], check=True,
                       capture_output=True)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worksheet", type=Path, default=DEFAULT_WORKSHEET)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    ws = load_worksheet(options.worksheet)
    values = compute_values(ws)
    figures = {
        "values (compute_values)": best(lambda _: compute_values(ws), options.repeat),
        "deck context": best(lambda _: deck_context(ws, values), options.repeat),
        "deck build": best(lambda out: build_deck(ws, values, out), options.repeat),
        "deck build with PDF": best(lambda out: build_deck(ws, values, out, pdf=True),
                                    options.repeat),
    }
    figures["PDF alone"] = figures["deck build with PDF"] - figures["deck build"]
    worksheet = ("--worksheet", str(options.worksheet))
    figures["lecture slides"] = best(command(*worksheet), options.repeat)
    figures["lecture slides --pdf"] = best(command(*worksheet, "--pdf"), options.repeat)
    slides = len(deck_context(ws, values).slides)
    print(f"{options.worksheet.name}: {slides} slides, best of {options.repeat}")
    for name, seconds in figures.items():
        print(f"  {name:<26} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
