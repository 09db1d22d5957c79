"""Shared fixtures: the default and three-head worksheets, their values, a CLI runner,
Debian's Chromium for the browser tests (one per worker), and how the suite is spread over
pytest-xdist's workers.

``make test`` runs the suite on two workers (``-n 2 --dist loadgroup``). A test that reads
an expensive artefact its module builds once (a module- or session-scoped fixture of that
module: a build, a deck, a served folder) runs on the same worker as the module's other
tests, so the artefact is made once per run; the modules that dry-run scenes share one
group, since their dry runs are cached in the worker's memory (``tests/scene_runner.py``).
Every other test goes wherever a worker is free. Groups start in the order of
:data:`FIRST`, the longest first, so that the two workers finish together.
"""

from __future__ import annotations

import compileall
import copy
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from playwright.sync_api import Browser, sync_playwright

from render.cli import main
from render.closure import PACKAGES
from slides.pdf import CHROMIUM, CHROMIUM_ARGS
from worksheet import DEFAULT_WORKSHEET, Values, Worksheet, compute_values, load_worksheet

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
THREE_HEADS = DATA / "three-heads.json"
LECTURE = str(Path(sys.executable).with_name("lecture"))
"""The installed ``lecture`` command of this environment."""


@pytest.fixture(scope="session")
def default_doc() -> dict[str, Any]:
    return json.loads(DEFAULT_WORKSHEET.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def default_ws() -> Worksheet:
    return load_worksheet()


@pytest.fixture(scope="session")
def default_values(default_ws: Worksheet) -> Values:
    return compute_values(default_ws)


@pytest.fixture(scope="session")
def three_doc() -> dict[str, Any]:
    return json.loads(THREE_HEADS.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def three_values() -> Values:
    return compute_values(load_worksheet(THREE_HEADS))


@pytest.fixture()
def edited(default_doc: dict[str, Any], tmp_path: Path) -> Callable[..., Path]:
    """Write a copy of the default worksheet changed by ``change(doc)``; return its path."""

    def make(change: Callable[[dict[str, Any]], Any], name: str = "edited.json") -> Path:
        doc = copy.deepcopy(default_doc)
        change(doc)
        path = tmp_path / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    return make


@pytest.fixture()
def code(tmp_path: Path) -> Path:
    """A copy of the project's code, to edit (run it with ``PYTHONPATH`` set to it)."""
    copy = tmp_path / "code"
    for folder in PACKAGES:
        shutil.copytree(ROOT / folder, copy / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "package-lock.json", copy / "package-lock.json")
    (copy / "node_modules").symlink_to(ROOT / "node_modules")
    return copy


def run_lecture(*args: str | Path, cwd: Path | None = None,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``lecture ARGS`` with its exit status and output, as a shell runs it.

    ``lecture check`` in the folder and environment of this process runs in it: the
    suite checks a few dozen builds, and a command's own start-up (torch above all) costs
    about two seconds of CPU each time. The command is the same; only ``tests/test_cli.py``
    needs to prove the installed entry point itself, and runs it as a process."""
    words = [str(a) for a in args]
    if words[:1] == ["check"] and cwd is None and env is None:
        result = CliRunner().invoke(main, words, catch_exceptions=False)
        return subprocess.CompletedProcess([LECTURE, *words], result.exit_code,
                                           result.stdout, result.stderr)
    return subprocess.run([LECTURE, *words], capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL, cwd=cwd, env=env)


@pytest.fixture()
def lecture() -> Callable[..., Result]:
    """Run the ``lecture`` command in-process; stderr is kept separate."""

    def run(*args: str | Path) -> Result:
        return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)

    return run


HASH_SEEDS = ("1", "2")
"""``PYTHONHASHSEED``s of the processes a determinism test compares: sets and dicts built
from strings iterate in another order under each."""


@pytest.fixture()
def in_processes(tmp_path: Path) -> Callable[..., list[tuple[subprocess.CompletedProcess[str],
                                                             Path]]]:
    """Run the real ``lecture`` command once per hash seed, each in its own process and in
    a folder of its own; return each finished process (which must succeed) with its
    folder."""

    def run(*args: str | Path) -> list[tuple[subprocess.CompletedProcess[str], Path]]:
        done = []
        for seed in HASH_SEEDS:
            folder = tmp_path / f"hash-seed-{seed}"
            folder.mkdir()
            process = subprocess.run([LECTURE, *map(str, args)], capture_output=True,
                                     text=True, check=False, stdin=subprocess.DEVNULL,
                                     cwd=folder, env={**os.environ, "PYTHONHASHSEED": seed})
            assert process.returncode == 0, process.stderr[-2000:]
            done.append((process, folder))
        return done

    return run


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright (never a downloaded browser), one per worker:
    each test opens pages of its own in it."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


LESSON_OPTIONS = ("--narration", "none", "--quality", "draft")
"""How the shared lesson is built: silent, and at the draft quality, whose sections end on
the frames ``-ql`` shows with a third of the frames between (``tests/test_build.py`` holds
the two to the same figures). A build or plan against it passes the same options."""
NARRATED_SCENES = ("RiverBankPrompt", "HeadWalkthrough2", "PredictionMLP")
"""Two short scenes that do not depend on W_O and a short one that does (the prediction
reads the row W_O updates), narrated by the default voice at the draft quality: what
test_build edits and rebuilds, and what test_hearing hears."""
SHARED = {"lesson": [LECTURE, "build", "--out", "{out}", "-j", "2", *LESSON_OPTIONS],
          "narrated": [LECTURE, "build", *NARRATED_SCENES, "--quality", "draft",
                       "--out", "{out}", "-j", "2"]}
"""Folders made once per test run for every worker, by the command that makes each: the
fixture of the same name returns the folder (see :func:`shared`)."""
_MAKING: list[subprocess.Popen[bytes]] = []


def _common(config: pytest.Config) -> Path:
    """The run's own temporary folder, which pytest-xdist's workers' folders sit in."""
    base = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _start(config: pytest.Config, name: str) -> Path:
    """Start making the shared folder ``name`` unless a worker already has; its path."""
    root = _common(config)
    try:
        (root / f"{name}.started").open("x").close()
    except FileExistsError:
        return root / name
    command = " ".join(shlex.quote(part.format(out=root / name)) for part in SHARED[name])
    done = shlex.quote(str(root / f"{name}.exit"))
    _MAKING.append(subprocess.Popen(
        ["sh", "-c", f"{command} > {shlex.quote(str(root / f'{name}.log'))} 2>&1; "
                     f"echo $? > {done}.tmp && mv {done}.tmp {done}"],
        stdin=subprocess.DEVNULL, start_new_session=True))
    return root / name


def shared(request: pytest.FixtureRequest, name: str) -> Path:
    """The shared folder ``name``, read-only (a test that alters it copies it first), once
    it is made. The first worker to collect a test that uses it starts it in the
    background as the run begins, so it is made beside the other tests, not before them."""
    out = _start(request.config, name)
    exit_file = out.with_name(f"{name}.exit")
    deadline = time.monotonic() + 1800
    while not exit_file.exists():
        assert time.monotonic() < deadline, f"{name} was not made in 30 minutes"
        time.sleep(0.5)
    assert exit_file.read_text().strip() == "0", \
        out.with_name(f"{name}.log").read_text(encoding="utf-8")[-3000:]
    return out


@pytest.fixture(scope="session")
def lesson(request: pytest.FixtureRequest) -> Path:
    """The whole lesson, built from the default worksheet silent and at the draft quality
    (``-ql``'s pictures at 5 frames a second). The narrated build at ``-ql`` is proven on
    a few scenes in test_build, which also holds draft's section ends to ``-ql``'s;
    speaking the whole lesson at 15 frames a second would double the suite's time, and
    what the check reads from pixels depends on neither. Built once for every worker (see
    :data:`SHARED`), with the bundled experiment; tests that spoil it copy it."""
    return shared(request, "lesson")


@pytest.fixture(scope="session")
def narrated(request: pytest.FixtureRequest) -> Path:
    """:data:`NARRATED_SCENES`, narrated by the default Piper voice at the draft quality,
    built once for every worker (see :data:`SHARED`); tests that spoil it copy it."""
    return shared(request, "narrated")


def pytest_configure(config: pytest.Config) -> None:
    """Deliver Ctrl-C to the processes the tests start. A run started in the background by
    a shell without job control (as CI may start it) inherits SIGINT ignored, and so would
    every command a test runs: the tests that press Ctrl-C would find it unheard.

    Then, once per run, compile the project's modules: the suite starts a few hundred
    Python processes (each command, each scene's Manim), and where the environment says
    ``PYTHONDONTWRITEBYTECODE`` each of them would compile its imports again."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        for package in PACKAGES:  # only what changed since: a few milliseconds
            compileall.compile_dir(ROOT / package, quiet=1, workers=0)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the shared folders the collected tests use; and stop at once when
    pytest-xdist did not take the groups (as with pytest 9.2 and xdist 3.8, whose renamed
    node ids lack their ``@group``): every worker would then build every artefact."""
    if os.environ.get("PYTEST_XDIST_WORKER") and session.config.getoption("dist") == "loadgroup":
        lost = [item.nodeid for item in session.items
                if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
        if lost:
            pytest.exit(f"pytest-xdist did not group {lost[0]} (no @group in its id); "
                        "install a pytest it supports (see pyproject.toml)", returncode=3)
    for name in SHARED:
        if any(name in getattr(item, "fixturenames", ()) for item in session.items):
            _start(session.config, name)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Wait for a shared folder this worker started (another worker may still need it),
    unless the run was interrupted: then stop making it."""
    for process in _MAKING:
        if exitstatus == pytest.ExitCode.INTERRUPTED and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        process.wait()


DRY_RUNS = "dry-runs"
"""The group of the modules that dry-run scenes through :func:`tests.scene_runner.run_scenes`."""
FIRST = (DRY_RUNS, "test_build", "test_wheel", "test_serve", "test_results", "test_storyboard",
         "test_experiment", "test_cli", "test_slides_browser", "test_slides_hall")
"""Groups in the order they start, after the first test of a shared artefact: the longest
first (``.ci/run`` prints the slowest)."""


def _module_artefacts(item: pytest.Item) -> bool:
    """Whether the test uses a module- or session-scoped fixture of its own module (other
    than a :data:`SHARED` folder, which every worker may read)."""
    module = item.nodeid.split("::")[0]
    definitions = getattr(item, "_fixtureinfo", None)
    if definitions is None:
        return False
    return any(fixture.scope in ("module", "session") and fixture.baseid == module
               and name not in SHARED
               for name, fixtures in definitions.name2fixturedefs.items()
               for fixture in fixtures)


def _shares(item: pytest.Item) -> bool:
    """Whether the test uses a :data:`SHARED` folder."""
    return any(name in getattr(item, "fixturenames", ()) for name in SHARED)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group the tests that share a module's artefact, and put the longest groups first
    (pytest-xdist then hands out the largest groups first). The tests of a
    :data:`SHARED` folder come last, once it is likely made, on whichever worker is free."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _module_artefacts(item):
            item.add_marker(pytest.mark.xdist_group(Path(item.nodeid.split("::")[0]).stem))

    def rank(item: pytest.Item) -> tuple[int, int]:
        if _shares(item):
            return len(FIRST) + 1, 0
        marker = item.get_closest_marker("xdist_group")
        group = marker.args[0] if marker and marker.args else marker.kwargs.get("name") \
            if marker else None
        # Within the dry runs, the scene rules come first: their fixture dry-runs every
        # scene the session needs in one pool of processes, and the other modules then
        # find their runs made (a small pool per module would leave a core idle).
        later = group == DRY_RUNS and not item.nodeid.startswith("tests/test_scenes.py")
        return (FIRST.index(group) if group in FIRST else len(FIRST)), int(later)

    items.sort(key=rank)  # stable: within a rank, the collection's order
