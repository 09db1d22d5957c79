"""The ``lecture`` command line as its users' habits expect it: Manim's ``-ql``, ``-h`` with
examples that run, every usage error as one line with exit status 2, a refused build that
leaves nothing behind, a hint for a worksheet given as a scene and for a misspelt scene,
a check that names what a partial build lacks (and fails it with ``--complete``), and a
stopped serve that says which build command finishes its folder.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import Result

from outline import lecture_order
from render.check import CheckReport
from render.cli import main
from render.scenes import QUALITIES as MANIM_QUALITIES
from tests.test_serve import serving
from worksheet import DEFAULT_WORKSHEET, load_worksheet

LECTURE = str(Path(sys.executable).with_name("lecture"))
BUILT_SCENE = "RiverBankPrompt"
"""The one scene of the shared partial build: the shortest clip."""
SILENT = ("--narration", "none")


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The installed ``lecture`` entry point, as a shell runs it."""
    return subprocess.run([LECTURE, *map(str, args)], capture_output=True, text=True,
                          check=False, stdin=subprocess.DEVNULL)


def one_error_line(stderr: str) -> str:
    """The single line a refusal prints; fails on anything else."""
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("lecture: error: "), stderr
    assert "Traceback" not in stderr and "Usage:" not in stderr, stderr
    return stderr.rstrip("\n")


def lecture_scenes() -> list[str]:
    return [entry.name for entry in lecture_order(load_worksheet(DEFAULT_WORKSHEET).n_heads)]


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of one scene of the lecture, silent."""
    out = tmp_path_factory.mktemp("partial")
    process = run("build", BUILT_SCENE, *SILENT, "--out", out)
    assert process.returncode == 0, process.stderr
    return out


def commands(group: click.Group = main, path: tuple[str, ...] = ("lecture",)
             ) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every group and command of ``lecture``, with the words that call it."""
    yield path, group
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        else:
            yield (*path, name), command


def parse(argv: list[str]) -> click.Context:
    """What ``lecture`` makes of a command line's words, without running it."""
    command: click.Command = main
    name, words, context = argv[0], argv[1:], None
    while isinstance(command, click.Group):  # down to the command the words call
        context = command.make_context(name, words[:1], parent=context)
        name, words = words[0], words[1:]
        command = command.commands[name]
    return command.make_context(name, words, parent=context)


# ---------------------------------------------------------------------------- -q


def test_every_quality_option_has_manims_short_form() -> None:
    with_quality = {" ".join(path): command for path, command in commands()
                    if any(p.name == "quality" for p in command.params)}
    assert set(with_quality) == {"lecture build", "lecture render", "lecture serve"}
    for command in with_quality.values():
        (option,) = [p for p in command.params if p.name == "quality"]
        assert sorted(option.opts) == ["--quality", "-q"]
        assert set(MANIM_QUALITIES) <= set(option.type.choices)  # Manim's letters, at least


@pytest.mark.parametrize(("flags", "status"), [
    (["-ql"], "reused"), (["--quality", "l"], "reused"), (["-q", "l"], "reused"),
    (["-qm"], "would render"), (["--quality", "m"], "would render"),
])
def test_dash_ql_is_quality_l(lecture: Callable[..., Result], partial: Path, flags: list[str],
                              status: str) -> None:
    """The shared build was made at quality l: ``-ql`` finds its clip current, ``-qm`` would
    render it again because the quality changed."""
    result = lecture("build", BUILT_SCENE, *flags, *SILENT, "--dry-run", "--out", partial)
    assert result.exit_code == 0, result.stderr
    (row,) = [line for line in result.stderr.splitlines() if BUILT_SCENE in line]
    assert status in row
    assert ("quality" in row) == (status == "would render")


# ---------------------------------------------------------------------------- help


@pytest.mark.parametrize("path", [" ".join(path) for path, _ in commands()])
def test_h_and_help_show_the_same_page_with_examples_that_parse(
        lecture: Callable[..., Result], path: str) -> None:
    words = path.split()[1:]
    short, long = lecture(*words, "-h"), lecture(*words, "--help")
    assert short.exit_code == long.exit_code == 0, short.stderr
    assert short.stdout == long.stdout
    page = short.stdout.splitlines()
    assert page[0].startswith(f"Usage: {path} ")
    start = page.index("  Examples:") + 1
    examples = []
    for line in page[start:]:
        if not line.startswith("    lecture"):
            break
        examples.append(line.strip())
    assert 1 <= len(examples) <= 3, page
    scenes = set(lecture_scenes())
    for example in examples:
        argv = shlex.split(example, comments=True)
        argv = argv[:argv.index(">")] if ">" in argv else argv
        assert argv[:len(path.split())] == path.split(), example
        context = parse(argv)  # a bad option or value raises here
        assert set(context.params.get("scene_names") or ()) <= scenes, example


def test_lecture_alone_prints_its_help() -> None:
    process = run()
    assert process.returncode == 0
    assert process.stdout.startswith("Usage: lecture [OPTIONS] COMMAND [ARGS]...")
    assert "Examples:" in process.stdout and "Commands:" in process.stdout


# ---------------------------------------------------------------------------- one line


@pytest.mark.parametrize(("args", "says"), [
    (["build", "-qz"], "--quality: expected one of l, m, h, k, draft, hall, got 'z'; "
     "see `lecture build -h`"),
    (["render", "--quality", "z"], "--quality: expected one of l, m, h, k, draft, hall, got 'z'; "
     "see `lecture render -h`"),
    (["build", "--qualty", "l"], "no option --qualty (did you mean --quality?); "
     "see `lecture build -h`"),
    (["biuld"], "no command named 'biuld' (did you mean build?); see `lecture -h`"),
    (["worksheet", "export"], "missing argument OUT; see `lecture worksheet export -h`"),
    (["experiment"], "missing option --corpus; see `lecture experiment -h`"),
    (["build", "--shard", "3/2"], "--shard: expected 1 ≤ I ≤ N, got '3/2'; "
     "see `lecture build -h`"),
    (["build", "--shard", "half"], "--shard: expected I/N such as 1/2, got 'half'"),
    (["build", "-j", "0"], "--jobs: expected a whole number ≥ 1, got '0'"),
    (["serve", "--port", "70000"], "--port: expected a whole number ≥ 0 and ≤ 65535, "
     "got '70000'; see `lecture serve -h`"),
    (["build", "--out"], "option '--out' requires an argument; see `lecture build -h`"),
    (["values", "extra"], "got unexpected extra argument (extra); see `lecture values -h`"),
], ids=lambda value: " ".join(value) if isinstance(value, list) else None)
def test_a_usage_error_is_one_line_with_status_2(args: list[str], says: str) -> None:
    process = run(*args)
    assert process.returncode == 2
    assert process.stdout == ""
    line = one_error_line(process.stderr)
    assert says in line


# ---------------------------------------------------------------------------- scene names


@pytest.fixture()
def bad_worksheet(edited: Callable[..., Path]) -> Path:
    return edited(lambda doc: doc["headsLesson"]["projections"][1].update(K=[[0.0]]))


@pytest.mark.parametrize(("refusal", "says"), [
    ("NoSuchScene", "no scene named 'NoSuchScene' (`lecture list` shows them)"),
    ("HeadWalktrough1", "no scene named 'HeadWalktrough1'; did you mean HeadWalkthrough1? "
     "(`lecture list` shows them)"),
    ("my.json", "no scene named 'my.json'; a worksheet is given as `--worksheet my.json`"),
    ("bad worksheet", "headsLesson.projections[1].K: expected"),
    ("missing experiment", "nowhere"),
])
def test_a_refused_build_creates_nothing(lecture: Callable[..., Result], bad_worksheet: Path,
                                         tmp_path: Path, refusal: str, says: str) -> None:
    out = tmp_path / "out"
    args: list[str | Path] = {"bad worksheet": [BUILT_SCENE, "--worksheet", bad_worksheet],
                              "missing experiment": [BUILT_SCENE, "--experiment",
                                                     tmp_path / "nowhere"]
                              }.get(refusal, [BUILT_SCENE, refusal])
    result = lecture("build", *args, *SILENT, "--out", out)
    assert result.exit_code == 2, result.stderr
    assert says in one_error_line(result.stderr)
    assert not out.exists()


def test_an_existing_file_given_as_a_scene_is_pointed_to_worksheet(
        lecture: Callable[..., Result], tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a worksheet", encoding="utf-8")
    result = lecture("build", notes, *SILENT, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert f"a worksheet is given as `--worksheet {notes}`" in one_error_line(result.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("command", ["render", "serve", "check"])
def test_every_command_taking_scenes_suggests_the_closest(
        lecture: Callable[..., Result], partial: Path, tmp_path: Path, command: str) -> None:
    out = partial if command == "check" else tmp_path / "out"
    flags = [] if command == "check" else list(SILENT)
    result = lecture(command, "PredictionMPL", *flags, "--out", out)
    assert result.exit_code == 2, result.stderr
    assert one_error_line(result.stderr) == "lecture: error: no scene named 'PredictionMPL'; " \
        "did you mean PredictionMLP? (`lecture list` shows them)"
    assert out.exists() == (command == "check")


# ---------------------------------------------------------------------------- check


def test_check_names_every_scene_a_partial_build_lacks(partial: Path) -> None:
    process = run("check", "--out", partial)
    assert process.returncode == 0, process.stdout
    scenes = lecture_scenes()
    missing = [name for name in scenes if name != BUILT_SCENE]
    assert f"{len(missing)} of the lecture's {len(scenes)} scenes were never built: " \
        f"{', '.join(missing)}" in process.stdout
    (verdict,) = [line for line in process.stdout.splitlines()
                  if line.startswith("all figures match: ")]
    tally = re.fullmatch(r"all figures match: (.*) \(\d+\.\d s\)", verdict).group(1)
    counts = [(n, things.strip()) for n, things in re.findall(r"(\d+) ([a-z ]+)", tally)]
    assert ("1", "scene") in counts and ("1", "record") in counts
    for n, things in counts:  # each count agrees with its noun: "1 scene", "46 files"
        assert things.endswith("s") == (n != "1"), verdict


def test_complete_fails_a_partial_build(partial: Path) -> None:
    process = run("check", "--complete", "--out", partial)
    assert process.returncode == 1
    assert "were never built" in process.stdout
    assert "check failed (--complete: not every scene is built)" in process.stdout
    assert "all figures match" not in process.stdout


def test_the_report_counts_in_english() -> None:
    report = CheckReport(lecture=["A", "B", "C"], missing=["B"],
                         counts={"scenes": 1, "srt captions": 2, "figures read from pixels": 1,
                                 "records": 0})
    assert report.counted() == "1 scene, 2 srt captions, 1 figure read from pixels, 0 records"
    assert report.never_built() == "1 of the lecture's 3 scenes was never built: B"
    assert not report.complete
    assert CheckReport(lecture=["A"]).complete and CheckReport().never_built() == ""


# ---------------------------------------------------------------------------- serve


def test_a_stopped_serve_names_the_build_that_finishes_its_folder(tmp_path: Path) -> None:
    worksheet = tmp_path / "worksheet.json"
    worksheet.write_text(json.dumps(json.loads(DEFAULT_WORKSHEET.read_text("utf-8"))),
                         encoding="utf-8")
    out = tmp_path / "site"
    with serving(out, worksheet, BUILT_SCENE, "--no-render", *SILENT) as server:
        assert server.stop() == 0
    (stopped,) = server.said(r"stopped; ")
    assert stopped.endswith(f"with 1 scene still to render: `lecture build {BUILT_SCENE} "
                            f"--out {out} --worksheet {worksheet} --narration none` renders it")
