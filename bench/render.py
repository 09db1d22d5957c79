"""Measure one scene's Manim render under glibc's default heap and under the settings a
build gives it (``render.scenes.HEAP_FRAMES``), and check both write the same clip; then
the same scene at ``--quality draft``.

    .venv/bin/python bench/render.py [SCENE] [--quality l] [--repeat 2]

Prints user and system CPU seconds and page faults (the median of the repeats) for each
setting. Runs Manim alone, silent, as a build's worker does; about a minute per render
of the trained-models scene at -ql.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from outline import lecture_order  # noqa: E402
from render.scenes import HEAP_FRAMES, MANIM_FLAGS, SCENES_DIR  # noqa: E402
from scenes import drawing  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, load_worksheet  # noqa: E402


def render(module: str, scene: str, quality: str, tunables: str | None,
           media: Path) -> tuple[float, float, int, str]:
    """One render: user CPU, system CPU, minor page faults, the clip's sha256."""
    env = {**os.environ, "LECTURE_WORKSHEET": str(DEFAULT_WORKSHEET),
           "LECTURE_NARRATION": "none", "LECTURE_VALUES": "",
           **drawing(quality)}  # as a build sets it
    env.pop("GLIBC_TUNABLES", None)
    if tunables:
        env["GLIBC_TUNABLES"] = tunables
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "manim", "render", *MANIM_FLAGS[quality],
                    "--disable_caching", "--progress_bar", "none", "--media_dir", str(media),
                    str(SCENES_DIR / f"{module}.py"), scene],
                   check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    clip = next(p for p in media.rglob(f"{scene}.mp4") if "partial_movie_files" not in p.parts)
    return (after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
            after.ru_minflt - before.ru_minflt,
            hashlib.sha256(clip.read_bytes()).hexdigest())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scene", nargs="?", default="TrainedComparison")
    parser.add_argument("--quality", default="l")
    parser.add_argument("--repeat", type=int, default=2)
    options = parser.parse_args()
    entry = next(e for e in lecture_order(load_worksheet().n_heads) if e.name == options.scene)
    digests = set()
    settings = (("glibc defaults", options.quality, None),
                ("HEAP_FRAMES", options.quality, HEAP_FRAMES),
                ("draft", "draft", HEAP_FRAMES))
    for name, quality, tunables in settings:
        runs = []
        for _ in range(options.repeat):
            with tempfile.TemporaryDirectory(prefix="lecture-bench-render-") as folder:
                runs.append(render(entry.module, entry.name, quality, tunables,
                                   Path(folder)))
        if quality == options.quality:
            digests.update(run[3] for run in runs)
        user, system = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        faults = statistics.median(r[2] for r in runs)
        print(f"{name:15s} user {user:6.1f} s  system {system:5.1f} s  "
              f"CPU {user + system:6.1f} s  minor faults {faults:,.0f}")
    print("same clip bytes" if len(digests) == 1 else f"clips differ: {sorted(digests)}")


if __name__ == "__main__":
    main()
