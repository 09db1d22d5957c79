"""Measure `lecture serve`'s save-to-page latency on this machine.

    .venv/bin/python bench/serve.py [--from BUILD] [--saves 10] [--slide combine-w-o]

It starts `lecture serve --no-render` on a copy of the default worksheet (in a fresh
folder, or in a copy of the build folder BUILD, clips and all), opens the deck in
Debian's Chromium on the slide that shows ``params.W_O[2][0]``, and then, ``--saves``
times, writes a new value for that entry and times the save until the page shows the new
text in that ``data-key`` element. It prints each latency, their median, lowest and
highest, and the server's own share (from save to the deck on disk, as it reports).

With ``--render SCENE`` (give ``--from`` a build that holds SCENE's clip) it serves with
that scene re-rendering, and also times each save until the scene's new clip has swapped
in on the page: what a re-render adds to a save (narrated as the build was, unless
``--narration``).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import Error as PlaywrightError  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from slides.pdf import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from worksheet import DEFAULT_WORKSHEET, compute_values, parse_worksheet  # noqa: E402

KEY = "params.W_O[2][0]"
ENTRY = ("headsLesson", "W_O", 2, 0)


def shown(page: Page, key: str) -> str | None:
    try:
        return page.evaluate("(key) => { const e = document.querySelector("
                             "`[data-key=\"${key}\"]`); return e && e.textContent; }", key)
    except PlaywrightError:  # the page is reloading
        return None


def digest(page: Page, selector: str) -> str | None:
    """The sha256 of the clip the page embeds now."""
    try:
        return page.evaluate("(s) => { const v = document.querySelector(s); "
                             "return v && v.dataset.sha256; }", selector)
    except PlaywrightError:
        return None


def expected_text(doc: dict) -> str:
    return compute_values(parse_worksheet(doc))[KEY].text


def start(folder: Path, worksheet: Path, render: str | None, narration: str | None
          ) -> tuple[subprocess.Popen[str], str]:
    lecture = Path(sys.executable).parent / "lecture"
    process = subprocess.Popen(
        [str(lecture), "serve", "--out", str(folder), "--worksheet", str(worksheet),
         "--port", "0", *([render] if render else ["--no-render"]),
         *(["--narration", narration] if narration else [])],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, bufsize=1)
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"serving (http://\S+)", line)
        if found:
            return process, found[1]
    raise SystemExit("lecture serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, default=None,
                        help="a build folder to copy (default: a fresh, deck-only folder)")
    parser.add_argument("--saves", type=int, default=10)
    parser.add_argument("--slide", default="combine-w-o")
    parser.add_argument("--render", metavar="SCENE", default=None,
                        help="also time SCENE's re-render until its clip swaps in")
    parser.add_argument("--narration", choices=["piper", "espeak", "none"], default=None)
    options = parser.parse_args()
    doc = json.loads(DEFAULT_WORKSHEET.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as scratch:
        folder = Path(scratch) / "build"
        if options.source is not None:
            shutil.copytree(options.source, folder)
        worksheet = Path(scratch) / "worksheet.json"
        worksheet.write_text(json.dumps(doc), encoding="utf-8")
        process, url = start(folder, worksheet, options.render, options.narration)
        server_lines: list[str] = []
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                page.goto(f"{url}#/{options.slide}")
                deadline = time.monotonic() + 120
                while shown(page, KEY) != expected_text(doc):
                    assert time.monotonic() < deadline, "the first deck never showed"
                    time.sleep(0.1)
                time.sleep(1.0)
                latencies, swaps = [], []
                clip = f"video[src$='-{options.render}.mp4']"
                for n in range(options.saves):
                    edited = copy.deepcopy(doc)
                    edited["headsLesson"]["W_O"][2][0] = round(0.3 + 0.05 * n, 2)
                    want = expected_text(edited)
                    saved = time.perf_counter()
                    worksheet.write_text(json.dumps(edited), encoding="utf-8")
                    while shown(page, KEY) != want:
                        assert time.perf_counter() - saved < 30, f"save {n + 1} never showed"
                        time.sleep(0.01)
                    latencies.append(time.perf_counter() - saved)
                    print(f"save {n + 1}: {latencies[-1]:.2f} s ({want})")
                    if options.render:
                        before = digest(page, clip)
                        while digest(page, clip) in (before, None):
                            assert time.perf_counter() - saved < 900, "the clip never came"
                            time.sleep(0.1)
                        swaps.append(time.perf_counter() - saved)
                        print(f"  its {options.render} clip swapped in after {swaps[-1]:.1f} s")
                    time.sleep(1.0)
                browser.close()
        finally:
            process.terminate()
            _, rest = process.communicate(timeout=120)
            server_lines = rest.splitlines()
    if swaps:
        print(f"save to re-rendered clip, {len(swaps)} saves: median "
              f"{statistics.median(swaps):.1f} s, lowest {min(swaps):.1f} s, highest "
              f"{max(swaps):.1f} s")
    rebuilds = [float(m[1]) for line in server_lines
                if (m := re.search(r"deck rebuilt in ([\d.]+) s", line))]
    print(f"save to page, {len(latencies)} saves: median {statistics.median(latencies):.2f} s, "
          f"lowest {min(latencies):.2f} s, highest {max(latencies):.2f} s")
    print("server rebuilds:", ", ".join(f"{r:.2f}" for r in rebuilds))
    if rebuilds[1:]:
        print(f"server's share (save seen to deck on disk): median "
              f"{statistics.median(rebuilds[1:]):.2f} s")


if __name__ == "__main__":
    main()
