"""Measure the proof by sound: hear every spoken figure of a narrated build back.

    .venv/bin/python bench/hearing.py --out DIR [--build] [--quality Q] [-j N] [SCENE]...

Hears every narrated clip in DIR (built first with ``--build``: narrated by the default
voice, at the draft quality unless ``--quality`` says otherwise), as ``lecture check
--audio`` does, and prints per clip: its spoken figures, how many the open grammar heard
as shown, how many were heard in the end (the rest within the shape of the caption's own
reading), the seconds of sound and of CPU. Every figure not heard freely is listed.

Then each clip's captions are heard in the next clip's sound, as if the sound tracks had
been swapped: the figures heard there should be none. With ``--shapes``, every figure is
also heard within the shape of its caption's reading (as the second hearing does for the
few the open grammar hears otherwise), to measure how well that hearing tells the digits
apart on its own.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from render.hearing import (  # noqa: E402
    CaptionJob,
    ClipHearing,
    caption_jobs,
    clip_samples,
    hear_caption,
    hear_clips,
    shaped_as,
)
from render.spoken import read_spoken  # noqa: E402


def values_of(out: Path) -> Any:
    """The fresh values of the worksheet (and experiment) the build names."""
    from worksheet import compute_values, load_worksheet
    from worksheet.results import load_experiment

    build = json.loads((out / "build.json").read_text(encoding="utf-8"))
    worksheet = load_worksheet(Path(build["worksheet"]["path"]))
    experiment = build.get("experiment")
    return compute_values(worksheet, load_experiment(Path(experiment["path"]), worksheet)
                          if experiment else None)


def narrated(out: Path, scenes: list[str]) -> list[tuple[Path, dict[str, Any]]]:
    clips = []
    for path in sorted((out / "video").glob("*.figures.json")):
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("narration", {}).get("engine", "none") == "none":
            continue
        if scenes and manifest.get("scene") not in scenes:
            continue
        clips.append((path.with_name(path.name.replace(".figures.json", ".mp4")), manifest))
    return clips


def report(hearings: list[ClipHearing], seconds: float) -> None:
    print(f"{'clip':32} {'figures':>7} {'free':>5} {'heard':>5} {'share':>6} "
          f"{'sound s':>8} {'cpu s':>6}")
    for h in hearings:
        print(f"{h.clip:32} {len(h.figures):7} {h.heard_freely:5} {h.heard:5} "
              f"{h.share:6.0%} {h.sound_seconds:8.1f} {h.seconds:6.1f}")
    figures = sum(len(h.figures) for h in hearings)
    free = sum(h.heard_freely for h in hearings)
    heard = sum(h.heard for h in hearings)
    sound = sum(h.sound_seconds for h in hearings)
    cpu = sum(h.seconds for h in hearings)
    print(f"{'all':32} {figures:7} {free:5} {heard:5} {heard / max(figures, 1):6.0%} "
          f"{sound:8.1f} {cpu:6.1f}")
    print(f"heard {heard} of {figures} spoken figures ({free} with every slot open); "
          f"{cpu:.0f} s of CPU for {sound / 60:.1f} min of sound "
          f"({cpu / max(sound, 1e-9):.3f}x real time), {seconds:.0f} s on the clock")
    for h in hearings:
        for f in h.figures:
            if not f.matched or f.shaped:
                how = "heard within its shape" if f.matched else f"NOT HEARD: {f.heard}"
                print(f"    {h.clip} caption {f.caption}: {f.key} {f.expected}, "
                      f"open grammar heard {f.free}; {how}")


def within_shapes(jobs: list[tuple[Path, list[CaptionJob]]]) -> None:
    """Hear every figure within the shape of its caption's reading; print how many are
    heard as shown."""
    from string import Formatter

    heard = total = 0
    for video, captions in jobs:
        samples = clip_samples(video)
        for job in captions:
            slots = [job.slots[name] for _, name, _, _ in Formatter().parse(job.template)
                     if name is not None and name in job.slots]
            if not slots:
                continue
            held = {tag: shaped_as(job.spoken[slot.key], tag) for tag, slot in enumerate(slots)}
            for slot, words in zip(slots, hear_caption(samples, job, held), strict=True):
                total += 1
                text = None if words is None else read_spoken(words, slot.style)
                heard += text == slot.expected
                if text != slot.expected:
                    print(f"    {video.name} caption {job.index}: {slot.key} {slot.expected}, "
                          f"heard within its shape as {text}")
    print(f"within their shapes: {heard} of {total} figures heard as shown")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", metavar="SCENE")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--quality", default="draft")
    parser.add_argument("-j", "--jobs", type=int, default=None)
    parser.add_argument("--shapes", action="store_true")
    options = parser.parse_args()
    if options.build:
        started = time.perf_counter()
        process = subprocess.run([str(BIN / "lecture"), "build", *options.scenes, "--out",
                                  str(options.out), "--quality", options.quality],
                                 capture_output=True, text=True, check=False,
                                 stdin=subprocess.DEVNULL)
        if process.returncode != 0:
            sys.exit(f"build failed:\n{process.stderr[-2000:]}")
        print(f"built in {time.perf_counter() - started:.0f} s")
    values = values_of(options.out)
    clips = narrated(options.out, options.scenes)
    if not clips:
        sys.exit(f"{options.out}: no narrated clip to hear")
    jobs = [(video, caption_jobs(manifest, values)) for video, manifest in clips]
    started = time.perf_counter()
    hearings = hear_clips(jobs, options.jobs)
    report(hearings, time.perf_counter() - started)

    swapped = [(clips[(i + 1) % len(clips)][0], captions)
               for i, (_, captions) in enumerate(jobs)]
    started = time.perf_counter()
    heard = hear_clips(swapped, options.jobs)
    print(f"\neach clip's captions in the next clip's sound ({time.perf_counter() - started:.0f}"
          " s on the clock):")
    for (video, _), (sound, _), h in zip(clips, swapped, heard, strict=True):
        print(f"    {video.name} in {sound.name}'s sound: {h.heard} of {len(h.figures)} "
              f"figures heard ({h.heard_freely} with every slot open)")
    print(f"swapped: {sum(h.heard for h in heard)} of {sum(len(h.figures) for h in heard)} "
          "figures heard")
    if options.shapes:
        within_shapes(jobs)


if __name__ == "__main__":
    main()
