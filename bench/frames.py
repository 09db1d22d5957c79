"""Measure the pixel proof: build a lesson, then read every on-screen figure back with OCR.

    .venv/bin/python bench/frames.py [--quality l|h] [--worksheet P]... [--keep DIR]

For each worksheet (the default one when none is given): a full build at the quality
asked for, then ``lecture check --frames``, timed. Prints, per worksheet, the figures
placed on screen, read and matched, the seconds the check took, and every figure that was
not read as expected. ``--keep DIR`` builds into DIR/<worksheet stem> and keeps it, so a
second run only checks (the build reuses every clip).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"│ (\S+\.mp4)\s+│ (\d+)\s+│ (\d+)\s+│ (\d+)\s+│")


def run(*args: str | Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    process = subprocess.run([str(BIN / "lecture"), *map(str, args)], capture_output=True,
                             text=True, check=False, stdin=subprocess.DEVNULL)
    return process, time.perf_counter() - started


def measure(worksheet: Path, out: Path, quality: str) -> None:
    built, build_seconds = run("build", "--out", out, "--worksheet", worksheet,
                               "--quality", quality)
    if built.returncode != 0:
        sys.exit(f"build failed for {worksheet}:\n{built.stderr[-2000:]}")
    checked, seconds = run("check", "--out", out, "--frames")
    rows = [(m[1], int(m[2]), int(m[3]), int(m[4])) for m in ROW.finditer(checked.stdout)]
    placed = sum(r[1] for r in rows)
    read = sum(r[2] for r in rows)
    matched = sum(r[3] for r in rows)
    print(f"{worksheet.name} at -q{quality}: {len(rows)} clips, {placed} figures, {read} read, "
          f"{matched} matched; check --frames {seconds:.1f} s (build {build_seconds:.0f} s)")
    for line in checked.stdout.splitlines():
        if ".mp4 frame" in line:
            print("   ", line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quality", default="l", choices=["l", "m", "h", "k"])
    parser.add_argument("--worksheet", type=Path, action="append", default=[])
    parser.add_argument("--keep", type=Path, default=None)
    options = parser.parse_args()
    worksheets = options.worksheet or [ROOT / "worksheet" / "multihead-worksheet.json"]
    with tempfile.TemporaryDirectory(prefix="lecture-frames-") as folder:
        base = options.keep or Path(folder)
        for worksheet in worksheets:
            measure(worksheet.resolve(), base / f"{worksheet.stem}-q{options.quality}",
                    options.quality)


if __name__ == "__main__":
    main()
