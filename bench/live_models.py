"""Measure the live slide: each model's generation speed in the browser beside torch on the
CPU, and the bytes the runtime and the models add to the deck.

    .venv/bin/python bench/live_models.py [--experiment DIR] [--repeat N]

The deck is built with the experiment (default: the one the lecture ships) into a
temporary folder and opened from disk in headless Chromium (Debian's, through
Playwright), where ONNX Runtime Web runs on WebAssembly with one thread. Each model
continues the lesson's prompt greedily, as the slide does (up to twenty tokens); a speed
is the predictions made divided by the seconds their runs took, the best of N runs. torch
continues the same prompt with the same rule (``continue_prompt``), on one thread and
on torch's own number of threads. Every model makes the same number of predictions in
both, since both take the same tokens.

The sizes are each file the live slide adds to the deck, as its source is (the npm
package's file, the ONNX graph, ``tokenizer.json``) and as the deck holds it (a classic
script; the binary and the graphs in base64).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from slides import live  # noqa: E402
from slides.assets import live_runtime  # noqa: E402
from slides.deck import build_deck  # noqa: E402
from slides.pdf import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from worksheet import compute_values, load_worksheet  # noqa: E402
from worksheet.experiment import continue_prompt, load_checkpoint, model_specs  # noqa: E402
from worksheet.results import chosen_experiment, load_experiment  # noqa: E402


def _mb(size: int) -> str:
    return f"{size / 1e6:7.2f} MB"


def sizes(deck: Path, data: live.LiveData) -> list[tuple[str, int, int]]:
    """``(what, bytes as published, bytes in the deck)`` for every file the slide adds."""
    runtime = live_runtime()
    graphs = sum(len(graph) for graph in data.graphs.values())
    rows = [
        ("ONNX Runtime Web script", runtime.script.stat().st_size, live.ORT_SCRIPT),
        ("its WebAssembly glue", runtime.glue.stat().st_size, live.ORT_GLUE),
        ("its WebAssembly binary", runtime.wasm.stat().st_size, live.ORT_WASM),
        ("tokenizers library", runtime.tokenizers.stat().st_size, live.TOKENIZERS),
        ("tokenizers licence", runtime.licence.stat().st_size, live.TOKENIZERS_LICENCE),
        ("tokenizer.json", len(data.tokenizer), live.TOKENIZER),
        ("the models' ONNX graphs", graphs, live.MODELS),
        ("the slide's script and style",
         sum((ROOT / "slides" / "static" / n).stat().st_size for n in ("live.js", "live.css")),
         None),
    ]
    return [(what, raw, (deck / held).stat().st_size if held else raw)
            for what, raw, held in rows]


def browser_speeds(index: Path, prompt: str, repeat: int) -> tuple[dict[str, float], float]:
    """Tokens per second of each model in the page (best of ``repeat``), and the seconds
    from opening the slide to the models being ready."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(index.as_uri())
        page.wait_for_function("() => window.Reveal && Reveal.isReady()")
        started = time.perf_counter()
        page.evaluate("window.liveModels.ready()")
        ready = time.perf_counter() - started
        speeds = {}
        for model in page.evaluate("window.LIVE_MODELS.models.map(m => m.id)"):
            runs = [page.evaluate("([m, t]) => window.liveModels.continuation(m, t)",
                                  [model, prompt]) for _ in range(repeat)]
            speeds[model] = max(run["runs"] / run["seconds"] for run in runs)
        browser.close()
    return speeds, ready


def torch_speeds(folder: Path, ws: object, prompt: str, repeat: int, threads: int
                 ) -> dict[str, float]:
    """Tokens per second of each model in torch on the CPU (best of ``repeat``)."""
    sizes_ = ws.lesson.trained
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids, end = tokenizer.encode(prompt).ids, tokenizer.token_to_id(live.END_OF_TEXT)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    speeds = {}
    try:
        for spec in model_specs(sizes_):
            model = load_checkpoint(spec, sizes_, folder / f"{spec.name}.safetensors")
            best = 0.0
            for _ in range(repeat):
                started = time.perf_counter()
                made = continue_prompt(model, ids, sizes_.context, end, live.MOST_TOKENS)
                seconds = time.perf_counter() - started
                runs = len(made) + (len(made) < live.MOST_TOKENS)
                best = max(best, runs / seconds)
            speeds[spec.name] = best
    finally:
        torch.set_num_threads(before)
    return speeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    ws = load_worksheet()
    folder = options.experiment or chosen_experiment(None, ws)
    if folder is None:
        raise SystemExit("no experiment: give --experiment DIR (one written with --ship)")
    folder = folder if folder.is_dir() else folder.parent
    experiment = load_experiment(folder, ws)
    data = live.live_data(folder)
    if data is None:
        raise SystemExit(f"{folder}: ships no models; write it with --ship")
    prompt = next(p["text"] for p in data.document["prompts"] if p["kind"] == "lesson")
    with tempfile.TemporaryDirectory(prefix="live-bench-") as out:
        started = time.perf_counter()
        index = build_deck(ws, compute_values(ws, experiment), Path(out), experiment=folder)
        built = time.perf_counter() - started
        added = sizes(index.parent, data)
        browser, ready = browser_speeds(index, prompt, options.repeat)
    one = torch_speeds(folder, ws, prompt, options.repeat, 1)
    many = torch_speeds(folder, ws, prompt, options.repeat, torch.get_num_threads())
    print(f"prompt: {json.dumps(prompt)}, up to {live.MOST_TOKENS} tokens, best of "
          f"{options.repeat}; deck built in {built:.2f} s; models ready in the page "
          f"{ready:.2f} s after the slide opened")
    print(f"  {'model':<8} {'browser (wasm, 1 thread)':>26} {'torch, 1 thread':>17} "
          f"{'torch, ' + str(torch.get_num_threads()) + ' threads':>17}   tokens/s")
    for model in browser:
        print(f"  {model:<8} {browser[model]:>26,.1f} {one[model]:>17,.1f} {many[model]:>17,.1f}")
    print(f"  (median browser/torch on one thread: "
          f"{statistics.median(browser[m] / one[m] for m in browser):.2f})")
    print(f"  {'file the slide adds':<30} {'published':>10} {'in the deck':>12}")
    for what, raw, held in added:
        print(f"  {what:<30} {_mb(raw):>10} {_mb(held):>12}")
    print(f"  {'all':<30} {_mb(sum(r for _, r, _ in added)):>10} "
          f"{_mb(sum(h for _, _, h in added)):>12}")


if __name__ == "__main__":
    main()
