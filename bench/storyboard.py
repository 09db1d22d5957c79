"""Measure the storyboard on this machine and print each figure in seconds.

    .venv/bin/python bench/storyboard.py [--out DIR] [--repeat N] [SCENE ...]

Without ``--out`` it first builds the named scenes (default: two) at ``-ql`` without
narration into a temporary folder; with ``--out`` it measures the build already there
(for example the whole lesson in ``build/``), which it leaves as it found it.

Figures (best of N): writing the storyboard from scratch (every frame decoded, scaled and
saved, the page written), in-process and as ``lecture storyboard``; writing it again with
nothing changed; and what the storyboard adds to a no-change ``lecture build``: the same
build in-process with and without its storyboard step.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(ROOT))

import render.build as building  # noqa: E402
from bench.timing import best  # noqa: E402
from narration.voices import Narration  # noqa: E402
from outline import (  # noqa: E402
    LIMITS,
    TITLE,
    lecture_order,
)
from render.build import KEPT, BuildOptions, build  # noqa: E402
from render.storyboard import FOLDER, PAGE, RECORD, built_clips, write_storyboard  # noqa: E402

SCENES = ("RiverBankPrompt", "BiasFlag")


def measure(out: Path, repeat: int, voice: Path | None) -> None:
    document = json.loads((out / "build.json").read_text(encoding="utf-8"))
    names = [s["name"] for s in document["scenes"] if s["status"] in KEPT]
    titles = {entry.name: entry.title for entry in lecture_order(LIMITS["heads"])}
    saved = Path(tempfile.mkdtemp(prefix="storyboard-bench-"))
    shutil.copytree(out / FOLDER, saved / FOLDER)
    for name in (PAGE, RECORD):
        (saved / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / name, saved / name)

    def scratch() -> None:
        shutil.rmtree(out / FOLDER, ignore_errors=True)
        (out / PAGE).unlink(missing_ok=True)
        (out / RECORD).unlink(missing_ok=True)

    def write() -> None:
        write_storyboard(out, TITLE, built_clips(out, names, titles))

    def command() -> None:
        subprocess.run([str(BIN / "lecture"), "storyboard", "--out", str(out)], check=True,
                       capture_output=True)

    worksheet = Path(document["worksheet"]["path"])
    clips = built_clips(out, names, titles)
    engine = clips[0].manifest.get("narration", {}).get("engine", "piper")
    options = BuildOptions(worksheet, out, document["quality"], 1,
                           scenes=tuple(names), narration=Narration(engine, voice))
    real = building._write_storyboard

    def without() -> None:
        building._write_storyboard = lambda *_: None  # the build minus its storyboard step
        try:
            build(options)
        finally:
            building._write_storyboard = real

    try:
        figures = {
            "from scratch (in-process)": best(write, repeat, scratch),
            "from scratch (lecture storyboard)": best(command, repeat, scratch),
            "nothing changed (in-process)": best(write, repeat),
        }
        warm = build(options)  # imports and caches as a build would have them
        if any(outcome.status != "reused" for outcome in warm.scenes):
            sys.exit(f"{out}: a build there would render scenes (another voice or code?); "
                     "measure a build that is up to date")
        figures["no-change build"] = best(lambda: build(options), repeat)
        figures["no-change build without storyboard"] = best(without, repeat)
        figures["storyboard's share of it"] = (figures["no-change build"]
                                               - figures["no-change build without storyboard"])
    finally:  # leave the build as it was found
        scratch()
        shutil.copytree(saved / FOLDER, out / FOLDER)
        for name in (PAGE, RECORD):
            shutil.copyfile(saved / name, out / name)
        shutil.rmtree(saved)
    frames = sum(len(clip.manifest.get("sections", [])) for clip in clips)
    print(f"{out}: {len(clips)} scenes, {frames} section-end frames, best of {repeat}")
    for name, seconds in figures.items():
        print(f"  {name:<38} {seconds:6.3f} s")
    per_frame = figures["from scratch (in-process)"] / frames
    print(f"  {'per frame, from scratch':<38} {per_frame:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", default=list(SCENES))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--voice", type=Path, default=None,
                        help="The Piper voice the build in --out was narrated with, if not "
                        "the bundled one.")
    options = parser.parse_args()
    if options.out is not None:
        measure(options.out, options.repeat, options.voice)
        return
    with tempfile.TemporaryDirectory(prefix="storyboard-bench-build-") as folder:
        out = Path(folder)
        subprocess.run([str(BIN / "lecture"), "build", *options.scenes, "--narration", "none",
                        "--out", str(out)], check=True, capture_output=True)
        measure(out, options.repeat, None)


if __name__ == "__main__":
    main()
