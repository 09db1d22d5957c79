"""The experiment's results in the lecture: ``trained.results.*`` values, the trained
scene and slides, and ``lecture check`` over them.

The experiment is a hand-written ``experiment.json`` (:mod:`tests.experiments`) for the
default worksheet, so nothing trains here. Its figures are recomputed below from the JSON
alone, with Python's own formatting: means with :mod:`statistics`, perplexity as
``exp`` of the test loss, one decimal by ``format``.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests import experiments, reference
from tests.conftest import LESSON_OPTIONS
from tests.conftest import run_lecture as lecture
from worksheet import Style, Values, Worksheet, compute_values
from worksheet.results import load_experiment

MODELS = ("mlp", "heads1", "heads4")
NAMES = {"mlp": "the fixed-window MLP", "heads1": "attention with one head",
         "heads4": "attention with four heads"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, default_ws: Worksheet) -> Path:
    return experiments.write(tmp_path_factory.mktemp("results") / "experiment",
                             experiments.document(default_ws))


@pytest.fixture(scope="module")
def results(folder: Path, default_ws: Worksheet) -> Values:
    return compute_values(default_ws, load_experiment(folder, default_ws))


def one(x: float) -> str:
    return format(x, ".1f")


# --------------------------------------------------------------------------- values


def test_every_figure_equals_a_recomputation_from_the_json(folder: Path, results: Values
                                                           ) -> None:
    doc = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    seeds = doc["training"]["seeds"]
    assert results.value("trained.results.seeds") == seeds
    assert results.text("trained.results.steps") == f"{doc['training']['steps']:,}"
    assert results.text("trained.results.tokens.train") == \
        f"{doc['corpus']['tokens']['train']:,}"
    for model in MODELS:
        runs = sorted((r for r in doc["runs"] if r["model"] == model),
                      key=lambda r: seeds.index(r["seed"]))
        perplexity = [math.exp(r["test_loss"]) for r in runs]
        seconds = [r["train_seconds"] for r in runs]
        key = f"trained.results.{model}"
        assert results[f"{key}.perplexity"].text == [one(p) for p in perplexity]
        assert results.text(f"{key}.perplexity_mean") == one(statistics.mean(perplexity))
        assert results.text(f"{key}.perplexity_low") == one(min(perplexity))
        assert results.text(f"{key}.perplexity_high") == one(max(perplexity))
        assert results[f"{key}.loss"].text == [format(r["test_loss"], ".3f") for r in runs]
        assert results[f"{key}.seconds"].text == [one(s) for s in seconds]
        assert results.text(f"{key}.seconds_mean") == one(statistics.mean(seconds))
        assert results.text(f"{key}.seconds_low") == one(min(seconds))
        assert results.text(f"{key}.seconds_high") == one(max(seconds))
        assert results[f"{key}.tokens_per_second"].text == \
            [f"{round(r['tokens_per_second']):,}" for r in runs]
        assert results[f"{key}.best_step"].text == [f"{r['best_step']:,}" for r in runs]
        assert len(results.value(f"{key}.continuations")) == len(seeds)


def test_every_figure_has_a_style_a_display_text_and_a_spoken_form(results: Values) -> None:
    keys = [k for k in results if k.startswith("trained.results.")]
    assert keys
    for leaf in (leaf for key in keys for leaf in results[key].leaves()):
        assert isinstance(leaf.text, str) and leaf.text, leaf.key
        assert isinstance(leaf.spoken, str) and leaf.spoken, leaf.key
        if leaf.style is Style.TEXT:
            assert leaf.spoken == leaf.text  # words are said as they are
        else:
            assert not any(c.isdigit() for c in leaf.spoken), leaf.key


def test_a_continuation_is_shown_on_one_line_with_unprintables_marked(results: Values
                                                                      ) -> None:
    shown = results.text("trained.results.mlp.continuations[0]")
    assert shown == experiments.CONTINUATIONS["mlp"].replace("\x10", "·")
    assert "·" in results.text("trained.results.heads1.continuations[0]")  # was U+FFFD
    assert results.text("trained.results.prompt") == "The fisherman sat beside the river " \
        "bank and watched the"


@pytest.mark.parametrize(("losses", "best", "clear"), [
    (experiments.LOSSES, "heads4", True),
    # four heads best on average, but one of its seeds is worse than one of one head's
    ({**experiments.LOSSES, "heads4": (3.215, 3.420, 3.238)}, "heads4", False),
    ({"mlp": (3.0, 3.01, 3.02), "heads1": (3.3, 3.4, 3.5), "heads4": (3.2, 3.3, 3.4)},
     "mlp", True),
])
def test_the_verdict_follows_the_numbers(default_ws: Worksheet, tmp_path: Path,
                                         losses: dict[str, tuple[float, ...]], best: str,
                                         clear: bool) -> None:
    folder = experiments.write(tmp_path, experiments.document(default_ws, losses))
    values = compute_values(default_ws, load_experiment(folder, default_ws))
    means = {m: statistics.mean(math.exp(x) for x in losses[m]) for m in MODELS}
    assert min(means, key=means.get) == best
    assert values.text("trained.results.best") == NAMES[best]
    headline = values.text("trained.results.verdict")
    assert headline.lower() == f"{NAMES[best]} has the lowest mean perplexity in this run".lower()
    spread = values.text("trained.results.spread")
    assert ("beats every seed of the others" in spread) is clear
    assert ("within the spread over seeds" in spread) is not clear


def test_without_an_experiment_there_are_no_results(default_values: Values) -> None:
    assert not [k for k in default_values if k.startswith("trained.results")]


# --------------------------------------------------------------------------- refusals


BROKEN: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "format": (lambda d: d.update(format=2), "format: expected 1"),
    "sizes": (lambda d: d["sizes"].update(width=32), "sizes: expected the trained sizes"),
    "missing field": (lambda d: d["runs"][3].pop("test_loss"), "runs[3].test_loss: missing"),
    "not finite": (lambda d: d["runs"][0].update(train_seconds="fast"),
                   "runs[0].train_seconds: expected a finite positive number"),
    "perplexity": (lambda d: d["runs"][1].update(test_perplexity=12.0),
                   "runs[1].test_perplexity: expected exp(test_loss)"),
    "missing run": (lambda d: d["runs"].pop(), "runs: expected one run per model and seed"),
    "parameters": (lambda d: [r.update(parameters=7) for r in d["runs"] if r["model"] == "mlp"],
                   "parameters: expected 2,332,832"),
}


@pytest.mark.parametrize("case", [*BROKEN, "not json", "no file"])
def test_a_bad_experiment_is_refused_in_one_line_and_nothing_is_written(
        case: str, default_ws: Worksheet, tmp_path: Path) -> None:
    folder = tmp_path / "experiment"
    if case == "not json":
        folder.mkdir()
        (folder / "experiment.json").write_text("{runs: oops", encoding="utf-8")
        expected = "not JSON"
    elif case == "no file":
        expected = "not found"
    else:
        doc = experiments.document(default_ws)
        change, expected = BROKEN[case]
        change(doc)
        experiments.write(folder, doc)
    out = tmp_path / "out"
    process = lecture("build", "TrainedComparison", "--narration", "none", "--experiment",
                      folder, "--out", out)
    assert process.returncode == 2, process.stderr
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in process.stderr, process.stderr
    assert expected in lines[0] and "experiment.json" in lines[0], lines[0]
    assert not out.exists()


# --------------------------------------------------------------------------- the scene


def _dry_run(worksheet: str, experiment: str) -> dict[str, Any]:
    import os

    os.environ["LECTURE_EXPERIMENT"] = experiment
    from outline import lecture_order
    from tests.scene_runner import _run

    entry = next(e for e in lecture_order(2) if e.name == "TrainedComparison")
    return _run(entry, worksheet)


@pytest.fixture(scope="module")
def shown(folder: Path, default_ws: Worksheet) -> dict[str, Any]:
    """The scene's dry run with the experiment (a fresh interpreter, as a render has)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_dry_run, default_ws.source,
                           str(folder / "experiment.json")).result()


def test_the_scene_shows_and_says_the_results(shown: dict[str, Any], folder: Path,
                                              results: Values, default_ws: Worksheet) -> None:
    assert shown["error"] is None, shown["error"]
    manifest = shown["manifest"]
    experiment = load_experiment(folder, default_ws)
    assert manifest["options"] == {"experiment": experiment.sha256}
    sections = {s["name"]: s for s in manifest["sections"]}
    assert {"perplexity", "training time", "continuations", "verdict"} <= set(sections)
    for name, metric in (("perplexity", "perplexity"), ("training time", "seconds")):
        on_screen = {f["key"]: f["text"] for f in sections[name]["figures"]}
        for model in MODELS:
            for part in ("mean", "low", "high"):
                key = f"trained.results.{model}.{metric}_{part}"
                assert on_screen[key] == results.text(key), key
    texts = {f["key"]: f["text"] for f in sections["continuations"]["figures"]}
    for model in MODELS:
        key = f"trained.results.{model}.continuations[0]"
        assert texts[key] == results.text(key)
    for key, end in (("trained.results.verdict", "."), ("trained.results.spread", ".")):
        said = [c for c in manifest["captions"] if key in c["slots"].values()]
        assert said and said[0]["text"] == results.text(key) + end
    assert any("not a law" in c["text"] for c in manifest["captions"])


def test_the_results_fit_the_frame_legibly_above_the_subtitles(shown: dict[str, Any]
                                                                ) -> None:
    from tests.test_scenes import (
        MIN_FONT_SIZE,
        SUBTITLE_BAND_TOP,
        assert_in_frame_without_overlaps,
    )

    assert shown["error"] is None, shown["error"]
    for section in shown["sections"]:
        assert_in_frame_without_overlaps(section)
        for text in section["texts"]:
            assert text["font_size"] >= MIN_FONT_SIZE, (section["name"], text["text"])
    assert shown["manifest"]["lowest"]["y"] >= SUBTITLE_BAND_TOP - 1e-6


def _alone_under(texts: list[dict[str, Any]], key: str, bottom: float) -> dict[str, Any]:
    """The one text below ``bottom`` that shows the figure ``key`` and nothing else."""
    found = [t for t in texts if [k for k, _ in t["figures"]] == [key]
             and t["text"] == t["figures"][0][1] and t["box"][3] < bottom]
    assert len(found) == 1, (key, [t["text"] for t in texts])
    return found[0]


def test_each_chart_writes_round_ticks_from_zero_under_its_lowest_axis(
        shown: dict[str, Any], folder: Path) -> None:
    """Each dot chart (an axis from zero) writes, under its last row, zero and every round
    number up to the largest seed of any model (recomputed from the experiment's record),
    left to right and evenly spaced: a scale in round numbers, not the data's extremes."""
    doc = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    for name, metric, measure in (("perplexity", "perplexity",
                                   lambda r: math.exp(r["test_loss"])),
                                  ("training time", "seconds", lambda r: r["train_seconds"])):
        expected = reference.round_ticks(max(measure(r) for r in doc["runs"]
                                             if r["model"] in MODELS))
        texts = next(s for s in shown["sections"] if s["name"] == name)["texts"]
        bottom = min(t["box"][1] for t in texts
                     if t["text"].startswith(("attention", "fixed-window")))
        ticks = [_alone_under(texts, f"trained.results.ticks.{metric}[{i}]", bottom)
                 for i in range(len(expected))]
        assert [t["text"] for t in ticks] == [f"{value:,g}" for value in expected]
        assert not any(k == f"trained.results.ticks.{metric}[{len(expected)}]"
                       for t in texts for k, _ in t["figures"])
        centres = [(t["box"][0] + t["box"][2]) / 2 for t in ticks]
        gaps = [b - a for a, b in itertools.pairwise(centres)]
        assert all(gap > 0 for gap in gaps) and max(gaps) - min(gaps) < 0.05 * max(gaps)
        shown_extremes = {k for t in texts if t["box"][3] < bottom for k, _ in t["figures"]}
        assert not any(k.endswith(("_low", "_high")) for k in shown_extremes)


# --------------------------------------------------------------------------- build and check


class _Keys(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}
        self._open: list[tuple[str | None, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("br", "img", "meta", "link", "source", "track", "hr", "input"):
            self._open.append((dict(attrs).get("data-key"), []))

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            key, parts = self._open.pop()
            text = "".join(parts)
            if key:
                self.found[key] = text
            if self._open:
                self._open[-1][1].append(text)

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][1].append(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Path:
    """A build with the hand-written experiment: its deck, and one short scene. The trained
    scene itself is drawn with these results by the dry run above, and rendered (with the
    bundled experiment) in the shared lesson, whose pixels ``tests/test_proof.py`` reads."""
    out = tmp_path_factory.mktemp("built")
    process = lecture("build", "HeadWalkthrough2", *LESSON_OPTIONS, "--experiment", folder,
                      "--out", out, "-j", "1")
    assert process.returncode == 0, process.stdout + process.stderr
    return out


def test_the_build_records_its_experiment_and_check_passes(built: Path, folder: Path,
                                                           default_ws: Worksheet) -> None:
    recorded = json.loads((built / "build.json").read_text(encoding="utf-8"))["experiment"]
    experiment = load_experiment(folder, default_ws)
    assert recorded == {"path": str(experiment.path), "sha256": experiment.sha256}
    process = lecture("check", "--out", built)
    assert process.returncode == 0, process.stdout + process.stderr


def test_the_deck_shows_every_result_bound_to_its_key(built: Path, results: Values) -> None:
    parser = _Keys()
    parser.feed((built / "slides" / "index.html").read_text(encoding="utf-8"))
    shown = {k: v for k, v in parser.found.items() if k.startswith("trained.results.")}
    for model in MODELS:
        for part in ("mean", "low", "high"):
            for metric in ("perplexity", "seconds"):
                key = f"trained.results.{model}.{metric}_{part}"
                assert shown[key] == results.text(key), key
        for seed in range(3):
            key = f"trained.results.{model}.perplexity[{seed}]"
            assert shown[key] == results.text(key)
        assert shown[f"trained.results.{model}.continuations[0]"] == \
            results.text(f"trained.results.{model}.continuations[0]")
    for key in ("trained.results.verdict", "trained.results.spread"):
        assert shown[key] == results.text(key)
    html = (built / "slides" / "index.html").read_text(encoding="utf-8")
    assert "data-role=\"dot\"" in html and "more heads did better" not in html


def test_the_scene_and_deck_rebuild_when_the_experiment_changes(
        lesson: Path, folder: Path) -> None:
    """The lesson was built with the bundled experiment: planned again with it, the trained
    scene and the deck are reused; with another experiment both would be made again, and
    the scene's reason names the experiment."""
    def plan(*extra: str | Path) -> dict[str, str]:
        process = lecture("build", "TrainedComparison", *LESSON_OPTIONS, "--dry-run",
                          "--out", lesson, *extra)
        assert process.returncode == 0, process.stderr
        return {"scene": next(line for line in process.stderr.splitlines()
                              if "TrainedComparison" in line),
                "slides": process.stderr.splitlines()[-1]}

    same = plan()
    assert "reused" in same["scene"] and "would be reused" in same["slides"]
    changed = plan("--experiment", folder)
    assert "would render" in changed["scene"] and "experiment" in changed["scene"]
    assert "would be rebuilt" in changed["slides"]
    without = plan("--experiment", "none")
    assert "would render" in without["scene"] and "experiment" in without["scene"]


def test_check_reports_a_changed_experiment_stale_and_a_missing_one_in_one_line(
        built: Path, folder: Path) -> None:
    file = folder / "experiment.json"
    original = file.read_bytes()
    try:
        doc = json.loads(original)
        doc["runs"][0]["train_seconds"] += 5.0
        file.write_text(json.dumps(doc), encoding="utf-8")
        process = lecture("check", "--out", built)
        assert process.returncode == 1
        assert "experiment" in process.stdout and "changed since the build" in process.stdout
        assert "trained.results.mlp.seconds" in process.stdout  # the figure that moved
        file.unlink()
        process = lecture("check", "--out", built)
        assert process.returncode == 2
        assert len(process.stderr.strip().splitlines()) == 1 and "missing" in process.stderr
    finally:
        file.write_bytes(original)
    assert lecture("check", "--out", built).returncode == 0


def test_a_deck_without_an_experiment_says_what_a_comparison_measures(
        tmp_path: Path, default_ws: Worksheet) -> None:
    """The slides say what is compared and claim nothing; only the speaker notes say how
    to produce results."""
    import re

    from slides.deck import build_deck

    index = build_deck(default_ws, compute_values(default_ws, None), tmp_path)
    html = index.read_text(encoding="utf-8")
    notes = " ".join(re.findall(r'<aside class="notes">(.*?)</aside>', html, re.S))
    shown = re.sub(r'<aside class="notes">.*?</aside>', "", html, flags=re.S)
    assert "What a comparison measures" in shown
    assert "lecture experiment" not in shown and "--experiment" not in shown
    assert "lecture experiment --corpus" in notes
    assert "lowest mean perplexity" not in html and "trained.results" not in html


def test_lecture_toml_names_the_experiment(tmp_path: Path, folder: Path) -> None:
    from render.config import resolve_settings

    (tmp_path / "lecture.toml").write_text('experiment = "results"\n', encoding="utf-8")
    assert resolve_settings({}, {}, tmp_path).experiment == tmp_path / "results"
    assert resolve_settings({"experiment": folder}, {}, tmp_path).experiment == folder
    assert resolve_settings({}, {"LECTURE_EXPERIMENT": str(folder)}, tmp_path).experiment \
        == folder
    assert resolve_settings({}, {}, tmp_path / "elsewhere").experiment is None


def test_what_lecture_experiment_writes_becomes_values(tmp_path: Path,
                                                       default_doc: dict[str, Any]) -> None:
    """A real (tiny) experiment, at the experiment tests' small sizes, read back."""
    from tests.test_experiment import OPTIONS, SIZES, STORIES
    from worksheet import load_worksheet
    from worksheet.experiment import run_experiment

    doc = json.loads(json.dumps(default_doc))
    doc["lesson"]["trained"] = SIZES
    sheet = tmp_path / "small.json"
    sheet.write_text(json.dumps(doc), encoding="utf-8")
    corpus = tmp_path / "stories.txt"
    corpus.write_text("\n\n".join(STORIES) + "\n", encoding="utf-8")
    ws = load_worksheet(sheet)
    written = run_experiment(ws, corpus, tmp_path / "run", OPTIONS)
    values = compute_values(ws, load_experiment(tmp_path / "run", ws))
    for run in written["runs"]:
        index = list(OPTIONS.seeds).index(run["seed"])
        key = f"trained.results.{run['model']}"
        assert values.text(f"{key}.perplexity[{index}]") == one(math.exp(run["test_loss"]))
        assert values.text(f"{key}.seconds[{index}]") == one(run["train_seconds"])
    assert values.text("trained.results.prompt") == written["prompt"]["text"]
    assert values.text("trained.results.verdict")


def test_the_result_slides_are_set_for_a_hall(browser, built: Path) -> None:
    """The hall's type sizes hold on the trained slides with results too."""
    from tests.test_slides_hall import TABLE_PX, TEXT_PX, TEXT_SIZES, _open, _too_small

    page = _open(browser, built / "slides" / "index.html")
    try:
        sizes = page.evaluate(TEXT_SIZES)
    finally:
        page.close()
    trained = [row for row in sizes if row[0].startswith("trained-")]
    assert {"trained-perplexity", "trained-cost", "trained-continuations"} <= \
        {row[0] for row in trained}
    assert _too_small(trained, TEXT_PX, TABLE_PX) == []


def test_each_dot_sits_where_its_run_measured(folder: Path, default_ws: Worksheet,
                                              results: Values) -> None:
    """On every dot chart of the deck, a dot's distance along its axis is its own run's
    figure read from the JSON, on one scale for the whole chart, and each mean's tick
    sits at the mean of that model's runs."""
    import re

    from slides.context import Line, Picture
    from slides.context import Path as Dot
    from slides.deck import deck_context
    from tests.test_slides_pictures import pictures_in

    document = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    seeds = document["training"]["seeds"]
    runs = {(run["model"], run["seed"]): run for run in document["runs"]}
    field = {"perplexity": "test_perplexity", "seconds": "train_seconds"}
    rounding = 0.02  # coordinates are written with two decimals

    def measured(key: str) -> tuple[str, float]:
        model, what, index = re.fullmatch(r"trained\.results\.(\w+)\.(\w+)\[(\d+)\]",
                                          key).groups()
        return what, runs[(model, seeds[int(index)])][field[what]]

    charts: list[Picture] = [picture for slide in deck_context(default_ws, results).slides
                             for picture in pictures_in(slide.blocks)
                             if any(getattr(s, "role", "") == "dot" for s in picture.shapes)]
    assert len(charts) == 2  # perplexity, training time
    for chart in charts:
        (start,) = {s.x1 for s in chart.shapes if isinstance(s, Line) and s.role == "axis"}
        dots = [s for s in chart.shapes if isinstance(s, Dot) and s.role == "dot"]
        assert len(dots) == len(runs)
        # "M x-r y a r r …": a dot's centre is its starting point plus its radius
        placed = [(float(d.d.split()[1]) + float(d.d.split()[4]), *measured(d.draws))
                  for d in dots]
        (what,) = {kind for _, kind, _ in placed}
        far = max(placed, key=lambda p: p[2])
        scale = (far[0] - start) / far[2]
        assert scale > 0
        for x, _, value in placed:
            assert x == pytest.approx(start + scale * value, abs=2 * rounding)
        ticks = sorted(s.x1 for s in chart.shapes if isinstance(s, Line) and s.role == "mean")
        means = sorted(start + scale * statistics.mean(
            run[field[what]] for run in runs.values() if run["model"] == model)
            for model in {run["model"] for run in runs.values()})
        assert ticks == pytest.approx(means, abs=2 * rounding)


def test_check_proves_the_shipped_files_against_the_experiments_record(
        tmp_path: Path, default_ws: Worksheet) -> None:
    """The bundled experiment's tokenizer and checkpoints, and the graphs exported from
    them, have the recorded sha256; one changed byte in a checkpoint or the tokenizer is
    named as a problem."""
    import hashlib
    import shutil

    from render.check import CheckReport, _check_shipped
    from worksheet.results import BUNDLED

    folder = tmp_path / "trained"
    shutil.copytree(BUNDLED, folder)
    document = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    for name, entry in document["shipped"]["models"].items():
        data = (folder / entry["checkpoint"]["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["checkpoint"]["sha256"], name
    report = CheckReport(lecture=[], missing=[])
    graphs = _check_shipped(load_experiment(folder, default_ws), report)
    assert not report.problems and report.counts["shipped models"] == 3
    assert {name: hashlib.sha256(g).hexdigest() for name, g in graphs.items()} == {
        name: entry["onnx"]["sha256"] for name, entry in document["shipped"]["models"].items()}
    checkpoint = folder / "heads4.safetensors"
    kept = checkpoint.read_bytes()
    checkpoint.write_bytes(kept[:-1] + bytes([kept[-1] ^ 1]))
    report = CheckReport(lecture=[], missing=[])
    assert _check_shipped(load_experiment(folder, default_ws), report) == {}
    assert "heads4.safetensors: sha256 differs" in " ".join(p.what for p in report.problems)
    checkpoint.write_bytes(kept)
    with open(folder / "tokenizer.json", "a", encoding="utf-8") as file:
        file.write(" ")
    report = CheckReport(lecture=[], missing=[])
    assert _check_shipped(load_experiment(folder, default_ws), report) == {}
    assert "tokenizer.json: sha256 differs" in " ".join(p.what for p in report.problems)
