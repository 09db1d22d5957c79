"""Where a render's time goes at the hall quality (1080p30), beside ``-ql`` and ``-qh``.

    .venv/bin/python bench/hall.py [SCENE ...] [--quality l h hall]

Each scene is rendered silent, in a fresh process per run, three ways at each quality:
``full`` (as a build renders it), ``draw`` (Cairo draws every frame, nothing is encoded)
and ``logic`` (the scene's animations run frame by frame, nothing drawn or encoded). The
differences give the scene's own work, Cairo's drawing and PyAV's encoding, in CPU seconds
of the process and its threads. Speech is not in these figures: ``bench/narration.py``
measures it (a sentence is synthesised once and cached). The clip of each ``full`` run is
read back to give its size and frame rate. Defaults: three scenes of different kinds.

    .venv/bin/python bench/hall.py --glyphs OUT

counts, clip by clip, the figures of a build whose glyph box is shorter than the hall's
least height (2.5% of the frame: 27 px at 1080p, 12 px at 480p).

    .venv/bin/python bench/hall.py --lesson [--jobs N] [--frames] [--out OUT]

times the whole narrated lesson as ``lecture build --quality hall -j N`` makes it from an
empty speech cache (wall clock, and CPU seconds of the build and all its workers), then
splits that CPU: speech (every sentence of the build synthesised again, by N workers),
each scene's own work and Cairo's drawing (each scene rendered silent at the hall quality
in the ``logic`` and ``draw`` ways above), and the rest, which is encoding, muxing the
sound, and the script, storyboard and deck. ``--frames`` also times ``lecture check
--frames`` of that build; ``--out OUT`` keeps the build in OUT. About half an hour on two
cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from render.scenes import DRAFT_FRAME_RATE, HALL_FRAME_RATE, HEAP_FRAMES  # noqa: E402

SETTINGS = {"l": ("low_quality", None), "h": ("high_quality", None),
            "hall": ("high_quality", HALL_FRAME_RATE), "draft": ("low_quality", DRAFT_FRAME_RATE)}
"""Each quality as Manim's settings: its quality name and the frame rate it overrides."""
DEFAULT_SCENES = ("RiverBankPrompt", "HeadWalkthrough1", "AttentionGrids")
MODES = ("full", "draw", "logic")


def run_one(scene: str, quality: str, mode: str) -> dict[str, float | int | str]:
    """Render ``scene`` in this process (a fresh one, started by :func:`measure`)."""
    os.environ.update(LECTURE_NARRATION="none", LECTURE_VALUES="")
    from manim import tempconfig
    from manim.scene.scene_file_writer import SceneFileWriter

    from outline import lecture_order
    from worksheet import load_worksheet

    entry = next(e for e in lecture_order(load_worksheet().n_heads) if e.name == scene)
    module = __import__(f"scenes.{entry.module}", fromlist=["_"])
    cls = getattr(module, entry.family or entry.name)
    if entry.family is not None:
        cls = type(entry.name, (cls,), {"head": entry.head})
    if mode != "full":  # no partial movie opened, fed, closed or joined into a clip
        for method in ("open_partial_movie_stream", "write_frame",
                       "close_partial_movie_stream", "finish"):
            setattr(SceneFileWriter, method, lambda *_, **__: None)
    name, rate = SETTINGS[quality]
    settings = {"quality": name, "disable_caching": True, "verbosity": "ERROR",
                "progress_bar": "none"}
    if rate is not None:
        settings["frame_rate"] = rate
    with tempfile.TemporaryDirectory(prefix="lecture-bench-hall-") as media, \
            tempconfig({**settings, "media_dir": media}):
        scene_object = cls()
        if mode == "logic":
            scene_object.renderer.camera.capture_mobjects = lambda *_, **__: None
        before = resource.getrusage(resource.RUSAGE_SELF)
        scene_object.render()
        after = resource.getrusage(resource.RUSAGE_SELF)
        result: dict[str, float | int | str] = {
            "cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime}
        if mode == "full":
            import av

            clip = next(p for p in Path(media).rglob(f"{scene}.mp4")
                        if "partial_movie_files" not in p.parts)
            with av.open(str(clip)) as container:
                stream = container.streams.video[0]
                result.update(size=f"{stream.width}x{stream.height}",
                              rate=f"{float(stream.average_rate):.0f}",
                              seconds=float(container.duration or 0) / av.time_base,
                              bytes=clip.stat().st_size)
    return result


def measure(scene: str, quality: str, mode: str) -> dict[str, float | int | str]:
    """One run in a fresh interpreter, as a build's worker renders (with its heap settings)."""
    env = {**os.environ, "GLIBC_TUNABLES": HEAP_FRAMES}
    out = subprocess.run([sys.executable, __file__, "--one", scene, quality, mode],
                         check=True, capture_output=True, text=True, env=env, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_lecture(*args: str | Path, env: dict[str, str],
                  may_fail: bool = False) -> tuple[float, float]:
    """Wall clock and CPU seconds (the command and every process it waited for). A failure
    ends the measurement, or with ``may_fail`` is printed and the measurement goes on."""
    command = [str(Path(sys.executable).parent / "lecture"), *map(str, args)]
    cpu, started = _children_cpu(), time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        failure = f"failed: {' '.join(command)}\n{process.stdout[-3000:]}{process.stderr[-2000:]}"
        if not may_fail:
            sys.exit(failure)
        print(failure, flush=True)
    return wall, _children_cpu() - cpu


def lesson(jobs: int, frames: bool, keep: Path | None) -> None:
    """See the module's ``--lesson``."""
    spec = importlib.util.spec_from_file_location("bench_narration",
                                                  ROOT / "bench" / "narration.py")
    assert spec is not None and spec.loader is not None
    narration = importlib.util.module_from_spec(spec)
    sys.modules["bench_narration"] = narration  # its workers find the function by name
    spec.loader.exec_module(narration)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, -j {jobs}")
    with tempfile.TemporaryDirectory(prefix="lecture-bench-lesson-") as folder:
        work, out = Path(folder), keep or Path(folder) / "hall"
        env = {**os.environ, "LECTURE_SPEECH_CACHE": str(work / "speech")}
        wall, cpu = timed_lecture("build", "--quality", "hall", "-j", str(jobs), "--out", out,
                                  env=env)
        manifests = [json.loads(p.read_text(encoding="utf-8"))
                     for p in sorted((out / "video").glob("*.figures.json"))]
        video = sum(m["duration"] for m in manifests)
        size = sum(p.stat().st_size for p in (out / "video").glob("*.mp4"))
        print(f"build: {len(manifests)} clips, {video:.0f} s of video, {size / 1e6:.0f} MB; "
              f"{wall:.0f} s wall, {cpu:.0f} s CPU", flush=True)
        if frames:
            check_wall, check_cpu = timed_lecture("check", "--frames", "--out", out, env=env,
                                                  may_fail=True)
            print(f"check --frames: {check_wall:.0f} s wall, {check_cpu:.0f} s CPU", flush=True)
        texts = sorted({c["spoken"] for m in manifests for c in m["captions"]})
        shares = [(texts[i::jobs], str(work / "again")) for i in range(jobs)]
        with ProcessPoolExecutor(jobs) as pool:
            speech = sum(r[1] for r in pool.map(narration._speak_all, shares))
        scenes = [m["scene"] for m in manifests]
        with ThreadPoolExecutor(jobs) as pool:
            logic = sum(float(r["cpu"]) for r in
                        pool.map(lambda s: measure(s, "hall", "logic"), scenes))
            draw = sum(float(r["cpu"]) for r in
                       pool.map(lambda s: measure(s, "hall", "draw"), scenes))
    rest = cpu - speech - draw
    print(f"{'where the build CPU went':32s} {'s':>7s} {'share':>6s}")
    for name, seconds in (("speech (Piper)", speech), ("scenes' own work", logic),
                          ("Cairo drawing", draw - logic),
                          ("encoding, sound, script, deck", rest)):
        print(f"{name:32s} {seconds:7.0f} {seconds / cpu:6.1%}")


def count_small_glyphs(out: Path) -> None:
    """Per clip of a build: its figures, how many are under the hall's least glyph height,
    and the median glyph height in pixels."""
    from tests.test_scenes import HALL_GLYPH, small_figures

    below = shown = 0
    for path in sorted((out / "video").glob("*.figures.json")):
        manifest = json.loads(path.read_text(encoding="utf-8"))
        heights = sorted(f["box"][3] - f["box"][1] for s in manifest["sections"]
                         for f in s["figures"])
        small = len(small_figures(manifest))
        median = heights[len(heights) // 2] if heights else 0.0
        print(f"{path.name.removesuffix('.figures.json'):28s} {len(heights):5d} figures "
              f"{small:5d} under {HALL_GLYPH:.1%}  median {median:5.1f} px "
              f"of {manifest['frame_size'][1]}")
        below, shown = below + small, shown + len(heights)
    print(f"{'all':28s} {shown:5d} figures {below:5d} under {HALL_GLYPH:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", nargs="*", default=list(DEFAULT_SCENES))
    parser.add_argument("--quality", nargs="+", default=["l", "h", "hall"],
                        choices=list(SETTINGS))
    parser.add_argument("--glyphs", type=Path, metavar="OUT",
                        help="only count, clip by clip, the figures of the build in OUT whose "
                        "glyph box is under 2.5%% of the frame height")
    parser.add_argument("--lesson", action="store_true",
                        help="time the whole narrated lesson's hall build and split its CPU")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--frames", action="store_true",
                        help="with --lesson: also time check --frames of that build")
    parser.add_argument("--out", type=Path, metavar="OUT",
                        help="with --lesson: build into OUT and keep it (default: a "
                        "temporary folder)")
    parser.add_argument("--one", nargs=3, metavar=("SCENE", "QUALITY", "MODE"),
                        help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.one:
        print(json.dumps(run_one(*options.one)))
        return
    if options.glyphs:
        count_small_glyphs(options.glyphs)
        return
    if options.lesson:
        lesson(options.jobs, options.frames, options.out)
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'scene':22s} {'quality':7s} {'clip':>18s} {'total':>7s} {'scene':>7s} "
          f"{'Cairo':>7s} {'encode':>7s}  (CPU s)")
    totals: dict[str, list[float]] = {}
    for scene in options.scenes:
        for quality in options.quality:
            runs = {mode: measure(scene, quality, mode) for mode in MODES}
            full, draw, logic = (float(runs[m]["cpu"]) for m in MODES)
            clip = f"{runs['full']['size']}@{runs['full']['rate']} {runs['full']['seconds']:.0f}s"
            print(f"{scene:22s} {quality:7s} {clip:>18s} {full:7.1f} {logic:7.1f} "
                  f"{draw - logic:7.1f} {full - draw:7.1f}")
            sums = totals.setdefault(quality, [0.0, 0.0, 0.0, 0.0])
            for i, figure in enumerate((full, logic, draw - logic, full - draw)):
                sums[i] += figure
    for quality, (full, logic, cairo, encode) in totals.items():
        print(f"{'all':22s} {quality:7s} {'':>18s} {full:7.1f} {logic:7.1f} {cairo:7.1f} "
              f"{encode:7.1f}")


if __name__ == "__main__":
    main()
