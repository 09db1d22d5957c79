"""The head walkthrough points at what it computes: the query beside every key, each dot
product with its factors, weights that carry over into the value step, the message summed
from the weighted rows; later heads get a short recap beside head 1 unless ``full_heads``
asks for the whole walk, and that option re-renders exactly the scenes that read it.

Scenes run as dry runs (no video); the build tests stand a dry run's manifest in for the
render, so they check the cache keys without encoding a clip."""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from narration.voices import Narration
from outline import SceneEntry, lecture_order
from render import build as build_module
from render.build import BuildOptions, build, plan
from render.cli import main
from scenes.kit import shown_indices
from tests.conftest import DRY_RUNS
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, Style, compute_values, format_number, load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

RECAP_LONGEST = 40.0
"""A later head's whole clip, in seconds, when it only recaps: its computation shown
briefly (one worked score, the denominator, the top weight as a division, its weight
beside head 1's, the weighted rows summed into the message, the two messages side by
side), each step's result said in one short sentence, in at most forty seconds."""
NAMES = ("RiverBankPrompt", "HeadWalkthrough1", "HeadWalkthrough2")


def _entries() -> dict[str, SceneEntry]:
    return {e.name: e for e in lecture_order(load_worksheet(DEFAULT_WORKSHEET).n_heads)}


def _dry(names: Sequence[str], full_heads: bool) -> dict[str, dict[str, Any]]:
    """Dry-run scenes of the default worksheet with ``$LECTURE_FULL_HEADS`` set."""
    before = os.environ.get("LECTURE_FULL_HEADS")
    os.environ["LECTURE_FULL_HEADS"] = "1" if full_heads else "0"
    try:  # the worker processes inherit the environment
        results = run_scenes([(_entries()[n], DEFAULT_WORKSHEET) for n in names])
    finally:
        if before is None:
            os.environ.pop("LECTURE_FULL_HEADS")
        else:
            os.environ["LECTURE_FULL_HEADS"] = before
    out = {}
    for (_, name), result in results.items():
        assert result["error"] is None, result["error"]
        out[name] = result["manifest"]
    return out


@pytest.fixture(scope="module")
def runs() -> dict[bool, dict[str, dict[str, Any]]]:
    """Manifests by the ``full_heads`` option, then by scene."""
    return {False: _dry(NAMES, False), True: _dry(["HeadWalkthrough2"], True)}


@pytest.fixture(scope="module")
def values() -> Any:
    return compute_values(load_worksheet(DEFAULT_WORKSHEET))


def figures_in(manifest: Mapping[str, Any], section: str) -> set[tuple[str, str]]:
    (found,) = [s for s in manifest["sections"] if s["name"] == section]
    return {(f["key"], f["text"]) for f in found["figures"]}


def section_of(manifest: Mapping[str, Any], time: float) -> dict[str, Any]:
    """The section a moment of the scene falls in (sections end at their last frame)."""
    rate = manifest["frame_rate"]
    for section in manifest["sections"]:
        if time + 0.5 / rate < (section["frame"] + 1) / rate:  # half a frame: rounding
            return section
    return manifest["sections"][-1]


def test_an_integer_scale_shows_as_an_integer(values) -> None:
    assert format_number(math.sqrt(4), Style.PARAM) == "2"
    assert format_number(math.sqrt(2), Style.PARAM) == "1.414"
    assert values["dims.sqrt_d_head"].style is Style.PARAM
    assert values.text("dims.sqrt_d_head") == format_number(math.sqrt(2), Style.PARAM)


@pytest.mark.parametrize(("full", "name"), [(False, "HeadWalkthrough1"),
                                            (False, "HeadWalkthrough2"),
                                            (True, "HeadWalkthrough2")])
def test_every_number_said_is_on_screen_when_its_section_ends(runs, full: bool,
                                                              name: str) -> None:
    manifest = runs[full][name]
    for caption in manifest["captions"]:
        section = section_of(manifest, caption["start"])
        shown = {(f["key"], f["text"]) for f in section["figures"]}
        for figure in caption["figures"]:
            assert (figure["key"], figure["text"]) in shown, (section["name"], caption["text"])


def test_the_scale_is_said_and_shown_as_the_root_it_is(runs, values) -> None:
    manifest = runs[False]["HeadWalkthrough1"]
    (caption,) = [c for c in manifest["captions"] if "dims.sqrt_d_head" in c["slots"].values()]
    assert values.text("dims.sqrt_d_head") in caption["text"]
    assert ("dims.sqrt_d_head", values.text("dims.sqrt_d_head")) in figures_in(manifest,
                                                                                "scaling")


def test_the_query_stays_beside_every_key_and_each_dot_shows_its_factors(runs,
                                                                           values) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    p, tokens = "river.h1", ws.sentences[ws.walkthrough]
    last, width = len(tokens) - 1, len(values.value(f"river.h1.Q[{len(tokens) - 1}]"))
    manifest = runs[False]["HeadWalkthrough1"]
    (section,) = [s for s in manifest["sections"] if s["name"] == "dot products"]
    keys = [f["key"] for f in section["figures"]]
    for i in shown_indices(width):
        if i is None:
            continue
        query = f"{p}.Q[{last}][{i}]"
        # Once in the query line, once beside each key and once in each row's factors.
        assert keys.count(query) == 1 + 2 * len(tokens)
        for j in range(len(tokens)):
            assert keys.count(f"{p}.K[{j}][{i}]") == 2  # the key, and its factor
    assert all(f"{p}.dots[{j}]" in keys for j in range(len(tokens)))


def test_the_weights_carry_over_and_the_rows_sum_into_the_message(runs, values) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    n = len(ws.sentences[ws.walkthrough])
    manifest = runs[False]["HeadWalkthrough1"]
    weights = {(f"river.h1.weights[{j}]", values.text(f"river.h1.weights[{j}]"))
               for j in range(n)}
    for section in ("weights", "values", "contributions", "message"):
        assert weights <= figures_in(manifest, section), section
    assert ("river.h1.weights_sum", values.text("river.h1.weights_sum")) in \
        figures_in(manifest, "weights")
    width = len(values.value("river.h1.message"))
    message = {(f"river.h1.message[{i}]", values.text(f"river.h1.message[{i}]"))
               for i in shown_indices(width) if i is not None}
    parts = {(f"river.h1.contributions[{j}][{i}]",
              values.text(f"river.h1.contributions[{j}][{i}]"))
             for j in range(n) for i in shown_indices(width) if i is not None}
    assert parts <= figures_in(manifest, "message")
    assert message <= figures_in(manifest, "message")


def test_a_later_head_recaps_beside_head_one_within_forty_seconds(runs, values) -> None:
    """Head 1's weights stand beside the later head's for comparison; its message does not
    (a review read it as part of the later head's column): it comes only at the end, beside
    the later head's message, as the two are joined."""
    recap = runs[False]["HeadWalkthrough2"]
    assert recap["duration"] <= RECAP_LONGEST
    shown = {key for s in recap["sections"][:-1] for key, _ in figures_in(recap, s["name"])}
    assert {"river.h1.weights[0]", "river.h2.weights[0]", "river.h2.message[0]"} <= shown
    assert "river.h1.message[0]" not in shown
    assert recap["sections"][-1]["name"] == "recap joined"
    joined = {key for key, _ in figures_in(recap, "recap joined")}
    assert {"river.h1.message[0]", "river.h2.message[0]"} <= joined
    full = runs[False]["HeadWalkthrough1"]
    assert not {c["template"] for c in recap["captions"]} & {c["template"]
                                                              for c in full["captions"]}


def test_full_heads_walks_every_head_through_every_step(runs) -> None:
    first, second = runs[False]["HeadWalkthrough1"], runs[True]["HeadWalkthrough2"]
    # Head 1 opens the part on the model map; the walk itself is the same for head 2.
    assert first["where"] and not second["where"]
    from outline import part

    walk = [c["template"] for c in first["captions"]
            if c["template"] != part("head-walkthrough").opening]
    assert [c["template"] for c in second["captions"]] == walk
    assert [s["name"] for s in second["sections"]] == \
        [s["name"] for s in first["sections"] if s["name"] != "where we are"]


def test_only_later_heads_read_the_option(runs) -> None:
    assert runs[False]["HeadWalkthrough1"]["options"] == {}
    assert runs[False]["RiverBankPrompt"].get("options", {}) == {}
    assert runs[False]["HeadWalkthrough2"]["options"] == {"full_heads": False}
    assert runs[True]["HeadWalkthrough2"]["options"] == {"full_heads": True}


# --------------------------------------------------------------------------- the build


@pytest.fixture()
def fake_render(runs, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Stand a dry run's manifest in for each render (the option picks which), with empty
    clips; yields the names of the scenes rendered."""
    rendered: list[str] = []

    def render_scene(entry: SceneEntry, worksheet: Path, quality: str,
                     destinations: Sequence[Path], tags: Any = None,
                     narration: Narration | None = None,
                     options: Mapping[str, bool] | None = None,
                     experiment: Path | None = None,
                     cancel: threading.Event | None = None,
                     values: Path | None = None) -> None:
        assert values is not None and values.is_file()  # the build's values, handed over
        full = bool((options or {}).get("full_heads"))
        manifest = runs[full].get(entry.name) or runs[False][entry.name]
        video, srt, figures = destinations
        video.parent.mkdir(parents=True, exist_ok=True)
        figures.write_text(json.dumps(manifest), encoding="utf-8")
        video.write_bytes(json.dumps(tags(figures) if tags else {}).encode())
        srt.write_text("", encoding="utf-8")
        rendered.append(entry.name)

    monkeypatch.setattr(build_module, "render_scene", render_scene)
    yield rendered


def _options(out: Path, full_heads: bool) -> BuildOptions:
    return BuildOptions(DEFAULT_WORKSHEET, out, jobs=1, shard=(1, 1), scenes=NAMES,
                        narration=Narration("none"),
                        scene_options={"full_heads": full_heads})


def _statuses(result: Any) -> dict[str, tuple[str, str]]:
    return {s.entry.name: (s.status, s.reason) for s in result.scenes
            if s.entry.name in NAMES}


def test_toggling_full_heads_rerenders_only_the_later_heads(fake_render, tmp_path) -> None:
    out = tmp_path / "out"
    build(_options(out, False))
    assert sorted(fake_render) == sorted(NAMES)
    assert {n: s for n, (s, _) in _statuses(plan(_options(out, False))).items()} == \
        dict.fromkeys(NAMES, "reused")
    toggled = _statuses(plan(_options(out, True)))
    assert toggled["HeadWalkthrough2"] == ("would render", "option changed: full_heads")
    assert toggled["HeadWalkthrough1"][0] == toggled["RiverBankPrompt"][0] == "reused"
    fake_render.clear()
    build(_options(out, True))
    assert fake_render == ["HeadWalkthrough2"]
    assert {n: s for n, (s, _) in _statuses(plan(_options(out, True))).items()} == \
        dict.fromkeys(NAMES, "reused")
    record = json.loads((out / "records" / "HeadWalkthrough2.json").read_text())
    assert record["parts"]["options"] == {"full_heads": True}
    assert "options" not in json.loads(
        (out / "records" / "HeadWalkthrough1.json").read_text())["parts"]


@pytest.mark.parametrize(("how", "expected"), [
    (["--full-heads"], "would render"),
    (["--recap-heads"], "reused"),
    ([], "reused"),
    ("env", "would render"),
    ("toml", "would render"),
])
def test_the_option_reaches_the_build_from_every_layer(fake_render, tmp_path, monkeypatch,
                                                       how, expected: str) -> None:
    out = tmp_path / "out"
    build(_options(out, False))
    env = {"LECTURE_FULL_HEADS": "1" if how == "env" else ""}
    flags = how if isinstance(how, list) else []
    project = tmp_path / "project"
    project.mkdir()
    if how == "toml":
        (project / "lecture.toml").write_text("full_heads = true\n")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["build", "--dry-run", "--narration", "none", "--shard",
                                       "1/1", "--out", str(out), *NAMES, *flags], env=env)
    assert result.exit_code == 0, result.output
    (row,) = [line for line in result.output.splitlines() if "HeadWalkthrough2" in line]
    assert expected in row
    (first,) = [line for line in result.output.splitlines() if "HeadWalkthrough1" in line]
    assert "reused" in first
