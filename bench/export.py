"""Measure the lecture export (``lecture/``) on this machine and print each figure in seconds.

    .venv/bin/python bench/export.py --out DIR [--repeat N]

``DIR`` is a build of the whole lesson (for example
``lecture build --quality draft --narration none --out DIR``); the export there is
measured and left as it was found.

Figures (best of N): the export from scratch (every clip's WebVTT, the clips read, joined
into ``lecture.mp4``, the captions, chapters and transcript written), and its parts;
the export again with nothing changed; and what the lecture adds to ``lecture check``
(the same check with and without its lecture proof).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import render.check as checking  # noqa: E402
import render.export as export  # noqa: E402
from bench.timing import best  # noqa: E402
from outline import TITLE, lecture_order, video_stem  # noqa: E402
from render.build import KEPT  # noqa: E402


def measure(out: Path, repeat: int) -> None:
    document = json.loads((out / "build.json").read_text(encoding="utf-8"))
    entries = lecture_order(document["heads"])
    kept = {s["name"] for s in document["scenes"] if s["status"] in KEPT}
    current = {s["name"] for s in document["scenes"] if s["status"] in ("rendered", "reused")}
    if any(entry.name not in current for entry in entries):
        sys.exit(f"{out}: not every scene of the lesson is built and current; build it first")
    record = json.loads((out / export.RECORD).read_text(encoding="utf-8"))
    saved = Path(tempfile.mkdtemp(prefix="export-bench-"))
    for rel in [*record["outputs"], export.RECORD]:
        (saved / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / rel, saved / rel)

    def scratch() -> None:
        export.withdraw(out)

    def write() -> None:
        export.write_exports(out, entries, kept, current, TITLE)

    clips = [out / "video" / f"{video_stem(entries, e.name)}.mp4" for e in entries]
    media: list[export.Media] = []

    def read() -> None:
        media[:] = [export.read_media(clip) for clip in clips]

    def join() -> None:
        placed = export.place_clips(entries, [found.length for found in media])
        export._join(out, placed, media, export.lecture_chapters(placed), TITLE)

    real = checking._check_lecture

    def check_without() -> None:
        checking._check_lecture = lambda *_: None  # the check minus its lecture proof
        try:
            checking.check_build(out)
        finally:
            checking._check_lecture = real

    try:
        figures = {"from scratch": best(write, repeat, scratch),
                   "nothing changed": best(write, repeat),
                   "reading the clips (packets and lengths)": best(read, repeat),
                   "joining lecture.mp4 (remux)": best(join, repeat)}
        figures["captions, chapters, transcript, WebVTT"] = (
            figures["from scratch"] - figures["reading the clips (packets and lengths)"]
            - figures["joining lecture.mp4 (remux)"])
        figures["lecture check"] = best(lambda: checking.check_build(out), repeat)
        figures["lecture check without the lecture proof"] = best(check_without, repeat)
        figures["the lecture proof's share of it"] = (
            figures["lecture check"] - figures["lecture check without the lecture proof"])
    finally:  # leave the build as it was found
        scratch()
        for rel in [*record["outputs"], export.RECORD]:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(saved / rel, out / rel)
        shutil.rmtree(saved)
    seconds = sum(float(found.length) for found in media)
    size = (out / export.VIDEO).stat().st_size / 1e6
    print(f"{out}: {len(clips)} clips, {seconds:.1f} s of video, lecture.mp4 {size:.1f} MB, "
          f"quality {document['quality']}, best of {repeat}")
    for name, value in figures.items():
        print(f"  {name:<44} {value:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    measure(options.out, options.repeat)


if __name__ == "__main__":
    main()
