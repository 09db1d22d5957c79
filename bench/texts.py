"""Measure what keeping laid-out texts saves, and print each figure in seconds.

    .venv/bin/python bench/texts.py [SCENE ...]

For the named scenes (default: three), each in a process of its own as a build runs them,
at ``-ql`` without narration: the scene's render with an empty text cache and again with
the texts it kept; then, in one process as the tests run them, the dry runs of all of
them, cold and kept. Each cache is a fresh temporary folder (``$XDG_CACHE_HOME``), so the
user's own cache is neither read nor changed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from outline import lecture_order  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, compute_values, hand_values, load_worksheet  # noqa: E402

SCENES = ("AttentionGrids", "HeadWalkthrough1", "BatchLab")

DRY_RUN = """
import sys
from tests.scene_runner import _run
from outline import lecture_order
entries = {e.name: e for e in lecture_order(2)}
for name in sys.argv[3:]:
    result = _run(entries[name], sys.argv[1], sys.argv[2])
    assert result["error"] is None, result["error"]
"""


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", default=list(SCENES))
    names = parser.parse_args().scenes
    entries = {entry.name: entry for entry in lecture_order(2)}
    with tempfile.TemporaryDirectory(prefix="texts-bench-") as folder:
        base = Path(folder)
        worksheet = load_worksheet(DEFAULT_WORKSHEET)
        values = base / "values.pickle"
        hand_values(compute_values(worksheet), values, worksheet)
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LECTURE_NARRATION": "none",
               "LECTURE_WORKSHEET": str(DEFAULT_WORKSHEET), "LECTURE_VALUES": str(values)}
        print(f"{'scene':<20} {'cold':>7} {'kept':>7}")
        for name in names:
            entry = entries[name]
            cache = {**env, "XDG_CACHE_HOME": str(base / f"cache-{name}")}
            command = [sys.executable, "-m", "manim", "render", "-ql", "--disable_caching",
                       "--progress_bar", "none", "--media_dir", str(base / "media"),
                       str(ROOT / "scenes" / f"{entry.module}.py"), name]
            cold, kept = timed(command, cache), timed(command, cache)
            print(f"{name:<20} {cold:7.1f} {kept:7.1f}")
        cache = {**env, "XDG_CACHE_HOME": str(base / "cache-dry")}
        command = [sys.executable, "-c", DRY_RUN, str(DEFAULT_WORKSHEET), str(values), *names]
        cold, kept = timed(command, cache), timed(command, cache)
        print(f"{'dry runs, together':<20} {cold:7.1f} {kept:7.1f}")


if __name__ == "__main__":
    main()
