"""The project installs with pip and works away from a checkout.

``python -m build`` makes the sdist from a copy of the checkout and then the wheel from
that sdist alone (unpacked in a folder of its own, with no ``node_modules/`` but what the
sdist carries), so the wheel tested here also proves the sdist complete. The wheel goes
into a fresh virtual environment (torch pinned first, as a user on a machine without a GPU
would), and ``lecture`` runs there in an empty folder, with no ``PYTHONPATH``: it computes
the checkout's numbers, writes a deck that loads only its own copy of Reveal.js and KaTeX,
and builds and checks a scene.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from render.versions import PROJECT
from slides import assets
from slides.assets import NODE_MODULES, deck_assets, live_runtime, vendored_files
from worksheet import DEFAULT_WORKSHEET, Values

ROOT = Path(__file__).resolve().parent.parent
TORCH = "torch==2.13.0"
"""Installed first and pinned exactly: pip then takes the local CPU build, not CUDA's."""
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "node_modules", "build", "dist",
                                     "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
                                     "media")
VENDOR = "slides/vendor/"


@dataclass(frozen=True)
class Install:
    """A fresh environment holding the wheel, and an empty folder to work in."""

    lecture: Path
    site: Path
    work: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.lecture), *args], cwd=self.work, env=self.env,
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _pip(python: Path, *args: str) -> None:
    """Install into the environment of ``python`` with this pip, which that environment
    lacks (``venv --without-pip``: bootstrapping a pip of its own costs 15 s). Nothing is
    compiled ahead (torch's thousands of modules cost 15 s): Python compiles what runs.
    Without ``PYTHONPATH``: a checkout on it would count the project as installed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--quiet", "--no-input", "--no-compile", *args], env=env,
                          capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist and the wheel built from it, from a copy of the checkout (which keeps
    the build's leftovers out of the checkout)."""
    base = tmp_path_factory.mktemp("dists")
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCES)
    (source / "node_modules").symlink_to(NODE_MODULES)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # With this environment's setuptools (the backend pyproject.toml names): two isolated
    # build environments, each installing it, cost 5 s and prove nothing more.
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                           str(base / "dist"), str(source)], capture_output=True, text=True,
                          env=env, timeout=600, check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return {"sdist": next((base / "dist").glob("*.tar.gz")),
            "wheel": next((base / "dist").glob("*.whl"))}


@pytest.fixture(scope="module")
def installed(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Install:
    base = tmp_path_factory.mktemp("installed")
    venv = base / "venv"
    subprocess.run(["python3.11", "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    _pip(python, TORCH)
    _pip(python, str(dists["wheel"]))
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    work = base / "work"
    work.mkdir()
    # As a user's shell: bytecode is written (installed with --no-compile, the first run
    # compiles what it imports, once).
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")
           and not k.startswith("LECTURE_")}
    return Install(venv / "bin" / "lecture", site, work, env)


# ------------------------------------------------------------------ what the files hold


def _package_files() -> set[str]:
    """Every file of the checkout's packages (folders with an ``__init__.py``, tests
    aside), relative to the checkout."""
    packages = [p.parent for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests"]
    return {path.relative_to(ROOT).as_posix() for package in packages
            for path in package.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_wheel_holds_every_package_file_and_the_used_libraries(dists) -> None:
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = {name for name in wheel.namelist() if ".dist-info/" not in name}
        vendored = {name.removeprefix(VENDOR): _sha256(wheel.read(name))
                    for name in names if name.startswith(VENDOR)}
    assert names - {VENDOR + name for name in vendored} == _package_files()
    expected = vendored_files(NODE_MODULES)
    assert sum(name.endswith(".woff2") for name in expected) > 10
    assert vendored == {name: _sha256((NODE_MODULES / name).read_bytes())
                        for name in expected}


def test_the_sdist_carries_the_libraries_and_their_lock(dists) -> None:
    with tarfile.open(dists["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"setup.py", "package.json", "package-lock.json"} <= names
    assert {f"node_modules/{name}" for name in vendored_files(NODE_MODULES)} <= names
    assert not any(name.startswith("tests/") for name in names)


def test_an_installed_copy_of_the_libraries_comes_first(monkeypatch, tmp_path: Path) -> None:
    for name in vendored_files(NODE_MODULES):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(NODE_MODULES / name, tmp_path / name)
    monkeypatch.setattr(assets, "VENDOR", tmp_path)
    sources = {asset.source for asset in deck_assets().files} | set(live_runtime().paths)
    assert sum(source.is_relative_to(tmp_path) for source in sources) == \
        len(vendored_files(NODE_MODULES)) - 4  # each package.json is read, not copied
    assert not any(source.is_relative_to(NODE_MODULES) for source in sources)


# ------------------------------------------------------------------ the installed command


def _locked_version(library: str) -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    return lock["packages"][f"node_modules/{library}"]["version"]


def test_the_installed_version_names_the_vendored_libraries(installed: Install) -> None:
    shown = installed.run("--version")
    assert shown.returncode == 0, shown.stderr
    lines = dict(line.split(": ", 1) for line in shown.stdout.splitlines())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert lines[PROJECT] == project["version"]
    python = installed.lecture.with_name("python")
    for name in ("manim", "torch"):
        asked = subprocess.run([str(python), "-c", "import importlib.metadata as m; "
                                f"print(m.version({name!r}))"], capture_output=True, text=True,
                               env=installed.env, check=True)
        assert lines[name] == asked.stdout.strip()
    for shown_as, library in (("reveal.js", "reveal.js"), ("KaTeX", "katex")):
        manifest = installed.site / VENDOR / library / "package.json"
        vendored = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        assert lines[shown_as] == vendored == _locked_version(library)


def test_the_installed_values_are_the_checkouts(installed: Install,
                                                default_values: Values) -> None:
    shown = installed.run("values", "--json")
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    worksheet = Path(document["worksheet"]["path"])
    assert worksheet.is_relative_to(installed.site), worksheet
    assert document["worksheet"]["sha256"] == _sha256(DEFAULT_WORKSHEET.read_bytes())
    # the wheel carries the bundled experiment, whose results join the values
    from worksheet.results import BUNDLED, load_experiment

    experiment = Path(document["experiment"]["path"])
    assert experiment.is_relative_to(installed.site), experiment
    assert document["experiment"]["sha256"] == _sha256(
        (BUNDLED / "experiment.json").read_bytes())
    from worksheet import compute_values, load_worksheet

    ws = load_worksheet(DEFAULT_WORKSHEET)
    checkout = compute_values(ws, load_experiment(BUNDLED, ws))
    assert {key: entry["text"] for key, entry in document["values"].items()} == {
        key: checkout[key].text for key in checkout}
    assert set(default_values) < set(checkout)


class _Loads(HTMLParser):
    """Every ``src`` and ``href`` of ``<script>`` and ``<link>`` in a page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.loaded: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "link"):
            self.loaded += [value for name, value in attrs if name in ("src", "href") and value]


def test_the_installed_deck_loads_only_its_vendored_libraries(installed: Install) -> None:
    done = installed.run("slides", "--out", "out")
    assert done.returncode == 0, done.stderr
    deck = installed.work / "out" / "slides"
    html = (deck / "index.html").read_text(encoding="utf-8")
    loaded = set(_Loads(html).loaded) - {"data:,"}
    assert {"lib/reveal/reveal.js", "lib/reveal/plugin/math.js"} <= loaded
    assert all((deck / name).is_file() for name in loaded), loaded
    for name in ("index.html", "deck.js", "deck.css", "lib/katex/dist/katex.min.css"):
        text = (deck / name).read_text(encoding="utf-8")
        assert not re.search(r"url\(\s*['\"]?https?:|(src|href)=\"https?:", text), name
    vendor = installed.site / "slides" / "vendor"
    assert (deck / "lib/reveal/reveal.js").read_bytes() == \
        (vendor / "reveal.js/dist/reveal.js").read_bytes()
    assert (deck / "lib/katex/dist/katex.min.js").read_bytes() == \
        (vendor / "katex/dist/katex.min.js").read_bytes()
    assert not (installed.site / "node_modules").exists()


def test_the_installed_build_renders_a_scene_that_checks(installed: Install) -> None:
    built = installed.run("build", "RiverBankPrompt", "--narration", "none", "--quality",
                          "draft", "--out", "built")
    assert built.returncode == 0, built.stderr[-3000:]
    out = installed.work / "built"
    record = json.loads((out / "build.json").read_text(encoding="utf-8"))
    assert [(s["name"], s["status"]) for s in record["scenes"]] == [
        ("RiverBankPrompt", "rendered")]
    assert list((out / "video").glob("*-RiverBankPrompt.mp4"))
    assert (out / "slides" / "index.html").is_file()
    deck = json.loads((out / "records" / "slides.json").read_text(encoding="utf-8"))
    assert {f"{VENDOR}reveal.js/package.json", f"{VENDOR}katex/package.json"} <= \
        set(deck["sources"])
    checked = installed.run("check", "--out", "built")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "all figures match" in checked.stdout + checked.stderr
