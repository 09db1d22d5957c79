"""Measure the build on this machine, in one run, and print each figure with its ratio.

    .venv/bin/python bench/build.py [--quality l] [--jobs N]

Figures: a full build at -j 1 and at -j N (fresh folders); a no-change rebuild against
re-running plain ``manim`` on the same scenes with its own cache; ``lecture check`` and
``lecture check --frames`` (every on-screen figure read back with OCR) of that build; a
rebuild after one W_O entry is edited; the deck build. Takes about a quarter of an hour at
-ql on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

from outline import lecture_order  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, load_worksheet  # noqa: E402


def timed(command: list[str], **kwargs: object) -> float:
    started = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{process.stderr[-2000:]}")
    return seconds


def lecture(*args: str | Path) -> list[str]:
    return [str(BIN / "lecture"), *map(str, args)]


def rendered(out: Path) -> int:
    scenes = json.loads((out / "build.json").read_text())["scenes"]
    return sum(1 for s in scenes if s["status"] == "rendered")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="l")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    q, jobs = options.quality, options.jobs
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="lecture-bench-") as folder:
        work = Path(folder)
        figures["full build -j 1"] = timed(lecture("build", "--out", work / "one", "-j", "1",
                                                   "--quality", q))
        figures[f"full build -j {jobs}"] = timed(lecture("build", "--out", work / "many", "-j",
                                                         str(jobs), "--quality", q))
        figures["no-change rebuild"] = timed(lecture("build", "--out", work / "many",
                                                     "--quality", q))
        entries = lecture_order(load_worksheet(DEFAULT_WORKSHEET).n_heads)
        media = work / "manim-media"

        def plain_manim() -> float:
            return sum(timed([str(BIN / "manim"), "render", f"-q{q}", "--media_dir", str(media),
                              str(ROOT / "scenes" / f"{e.module}.py"), e.name],
                             stdin=subprocess.DEVNULL) for e in entries)

        plain_manim()  # fills Manim's own cache
        figures["plain manim re-run, own cache"] = plain_manim()
        figures["lecture check"] = timed(lecture("check", "--out", work / "many"))
        figures["lecture check --frames"] = timed(lecture("check", "--out", work / "many",
                                                          "--frames"))
        edited = work / "edited.json"
        doc = json.loads(DEFAULT_WORKSHEET.read_text())
        doc["headsLesson"]["W_O"][2][0] = 0.5
        edited.write_text(json.dumps(doc))
        figures["rebuild after one W_O edit"] = timed(lecture(
            "build", "--out", work / "many", "--worksheet", edited, "--quality", q))
        edit_rendered = rendered(work / "many")
        figures["deck build (lecture slides)"] = timed(lecture("slides", "--out",
                                                               work / "deck"))
    print(f"{'measure':40} seconds")
    for name, seconds in figures.items():
        print(f"{name:40} {seconds:8.2f}")
    print(f"scenes: {len(entries)}; re-rendered after the W_O edit: {edit_rendered}")
    print(f"speed-up -j {jobs} over -j 1: "
          f"{figures['full build -j 1'] / figures[f'full build -j {jobs}']:.2f}×")
    print(f"no-change rebuild vs plain manim re-run: "
          f"{figures['plain manim re-run, own cache'] / figures['no-change rebuild']:.0f}× "
          f"faster")


if __name__ == "__main__":
    main()
