"""Measure printing the PDF handout on this machine, stage by stage.

    .venv/bin/python bench/handout.py [--worksheet PATH] [--repeat N]

The deck is built once (without its PDF); then :func:`slides.pdf.print_pdf` prints it N
times, each into a fresh file. For each stage (starting Chromium, loading and laying out
the print view with every switcher state, Chromium's tagged PDF, pikepdf's metadata and
bookmarks) it gives the best wall time of the N runs, and the CPU time of the whole print
(this process's and Chromium's, sampled from /proc: what a loaded machine shares out). It also says
what was printed: pages, slides, the further pages of switcher states, bookmarks, slides
scaled down to fit, and the file's size.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from slides.deck import build_deck  # noqa: E402
from slides.pdf import Handout, print_pdf  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def _descendants() -> dict[int, float]:
    """CPU seconds used so far by every process descended from this one, by pid."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS
    mine, todo = set(), [os.getpid()]
    while todo:
        pid = todo.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        mine.update(children)
        todo.extend(children)
    return {pid: times[pid] for pid in mine}


class CpuMeter:
    """CPU time of this process and of the processes it starts (the Playwright driver,
    Chromium and its helpers), sampled from /proc while they run."""

    def __init__(self, every: float = 0.1) -> None:
        self._seen: dict[int, float] = {}
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(self._every):
            for pid, seconds in _descendants().items():
                self._seen[pid] = max(seconds, self._seen.get(pid, 0.0))

    def __enter__(self) -> CpuMeter:
        self._own = resource.getrusage(resource.RUSAGE_SELF)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF)
        self.seconds = (own.ru_utime - self._own.ru_utime + own.ru_stime - self._own.ru_stime
                        + sum(self._seen.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worksheet", type=Path, default=DEFAULT_WORKSHEET)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    ws = load_worksheet(options.worksheet)
    values = compute_values(ws)
    with tempfile.TemporaryDirectory(prefix="handout-bench-") as folder:
        index = build_deck(ws, values, Path(folder))
        runs: list[tuple[Handout, float, float]] = []
        for n in range(options.repeat):
            target = Path(folder) / f"handout-{n}.pdf"
            wall = time.perf_counter()
            with CpuMeter() as cpu:
                handout = print_pdf(index, target)
            runs.append((handout, time.perf_counter() - wall, cpu.seconds))
        size = runs[-1][0].path.stat().st_size

    handout = runs[-1][0]
    slides = len({(page.stack, page.slide) for page in handout.pages})
    scaled = [(page.slide, page.scale) for page in handout.pages if page.scale < 1]
    print(f"{options.worksheet.name}: best of {options.repeat}")
    print(f"  pages                      {len(handout.pages):6d}"
          f"  ({slides} slides, {len(handout.pages) - slides} more for switcher states)")
    print(f"  bookmarks                  {len(handout.stacks):6d}  stacks, with "
          f"{slides} slides beneath them")
    print(f"  scaled down to fit         {len(scaled):6d}  "
          + ", ".join(f"{slide} ×{scale:.3f}" for slide, scale in scaled))
    print(f"  size                       {size / 1e6:6.2f} MB")
    for stage in ("browser", "layout", "print", "metadata", "total"):
        best = min(run[0].timings[stage] for run in runs)
        print(f"  {stage + ' (wall)':<26} {best:6.2f} s")
    print(f"  {'print_pdf (wall)':<26} {min(run[1] for run in runs):6.2f} s")
    print(f"  {'print_pdf (CPU)':<26} {min(run[2] for run in runs):6.2f} s"
          "  (this process and Chromium's)")


if __name__ == "__main__":
    main()
