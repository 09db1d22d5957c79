"""Measure narration on this machine: synthesis speed, and narrated builds first and cached.

    .venv/bin/python bench/narration.py [--jobs N]

Figures:

- the whole lecture narrated with a fresh speech cache (every sentence synthesised), then
  again into a fresh folder with the cache warm (nothing synthesised), and a rebuild with
  nothing changed;
- synthesis speed: every sentence of that lecture spoken again by Piper into an empty
  cache, by N worker processes that each load the voice once, as seconds of work per
  second of audio (wall clock and CPU);
- the same build silent (``--narration none``), for comparison;
- per clip: its length, the narration in it and its longest silence.

Takes about ten minutes at -ql on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from narration.voices import open_voice  # noqa: E402


def timed(*args: str | Path, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    process = subprocess.run([str(BIN / "lecture"), *map(str, args)], capture_output=True,
                             text=True, check=False, env={**os.environ, **(env or {})})
    if process.returncode != 0:
        sys.exit(f"failed: lecture {' '.join(map(str, args))}\n{process.stderr[-2000:]}")
    return time.perf_counter() - started


def _speak_all(job: tuple[list[str], str]) -> tuple[float, float, float]:
    """Seconds of wall clock, seconds of CPU, seconds of audio for one worker's share."""
    texts, cache = job
    cpu, wall = time.process_time(), time.perf_counter()
    voice = open_voice("piper", cache_dir=Path(cache))
    audio = sum(speech.seconds for speech in map(voice.speak, texts) if speech)
    return time.perf_counter() - wall, time.process_time() - cpu, audio


def silences(manifest: dict) -> tuple[float, float]:
    """The longest stretch without speech, and the longest one no marked silence covers."""
    captions, marked = manifest["captions"], manifest["silences"]
    edges = [0.0] + [t for c in captions for t in (c["start"], c["end"])] + \
        [manifest["duration"]]
    gaps = [(edges[i], edges[i + 1]) for i in range(0, len(edges), 2)]
    unmarked = [b - a - sum(max(0.0, min(b, s["end"]) - max(a, s["start"])) for s in marked)
                for a, b in gaps]
    return max(b - a for a, b in gaps), max(unmarked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="lecture-narration-") as folder:
        work = Path(folder)
        speech = {"LECTURE_SPEECH_CACHE": str(work / "speech")}
        figures["narrated build, fresh speech cache"] = timed(
            "build", "--out", work / "first", "-j", options.jobs, env=speech)
        figures["narrated build, speech cached"] = timed(
            "build", "--out", work / "second", "-j", options.jobs, env=speech)
        figures["narrated rebuild, nothing changed"] = timed(
            "build", "--out", work / "second", env=speech)
        figures["silent build (--narration none)"] = timed(
            "build", "--out", work / "silent", "-j", options.jobs, "--narration", "none")
        figures["silent rebuild, nothing changed"] = timed(
            "build", "--out", work / "silent", "--narration", "none")
        manifests = [json.loads(p.read_text()) for p in
                     sorted((work / "first" / "video").glob("*.figures.json"))]
        texts = sorted({c["spoken"] for m in manifests for c in m["captions"]})
        shares = [(texts[i::options.jobs], str(work / "again")) for i in range(options.jobs)]
        started = time.perf_counter()
        with ProcessPoolExecutor(options.jobs) as pool:
            results = list(pool.map(_speak_all, shares))
        wall = time.perf_counter() - started
        cpu = sum(r[1] for r in results)
        audio = sum(r[2] for r in results)
    print(f"{'measure':42} seconds")
    for name, seconds in figures.items():
        print(f"{name:42} {seconds:8.2f}")
    print(f"sentences: {len(texts)}, {audio:.0f} s of speech; synthesis with {options.jobs} "
          f"workers: {wall:.1f} s wall, {wall / audio:.3f} s per second of audio "
          f"({cpu / audio:.3f} s of CPU per second)")
    print(f"{'clip':28} {'length':>7} {'speech':>7} {'longest silence':>16} "
          f"{'unmarked':>9}")
    for manifest in manifests:
        spoken = sum(c["speech"]["seconds"] for c in manifest["captions"])
        longest, unmarked = silences(manifest)
        print(f"{manifest['scene']:28} {manifest['duration']:7.1f} {spoken:7.1f} "
              f"{longest:16.2f} {unmarked:9.2f}")
    total = sum(m["duration"] for m in manifests)
    print(f"{'lecture':28} {total:7.1f} {audio:7.1f}")


if __name__ == "__main__":
    main()
