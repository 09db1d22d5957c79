"""Data flows one way, as the README's table of packages draws it: each package imports only
the packages its row names, only the worksheet package computes (and imports torch), and
scene modules share a kit instead of importing each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
COMPUTING = {"torch", "scipy"}
# numpy is geometry in scenes (Manim's points are arrays) and samples in narration (sound);
# in these packages it could only be lesson arithmetic.
NO_NUMPY = {"outline", "outputs", "render", "slides"}
# Reading pixels back is image processing, laying a sound track and hearing it again signal
# processing: none is lesson arithmetic.
SIGNALS = {"render/frames.py": {"numpy", "scipy"}, "narration/track.py": {"scipy"},
           "render/hearing.py": {"numpy"}}
# The measurements may train the experiment's models themselves.
MEASURING = {"bench"}


def _imports(file: Path) -> set[str]:
    """Top-level names ``file`` imports, at module level or inside functions."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def project_packages(root: Path) -> list[str]:
    """Every folder of the project that holds Python code, but the tests: the packages
    (an ``__init__.py``) and ``bench/``, found on disk, never listed by hand."""
    return sorted(folder.name for folder in root.iterdir()
                  if folder.is_dir() and folder.name not in {"tests", "docs"}
                  and not folder.name.startswith(".") and any(folder.glob("*.py"))
                  and not (folder / "pyvenv.cfg").exists())


def drawn_layers(readme: str) -> dict[str, set[str]]:
    """The README's table of packages: ``package → the packages it may import``.

    Rows read ``| `name/` | what it holds | `a/`, `b/` |``; a dash imports nothing of ours.
    """
    table = readme.split("<!-- layers -->")[1]
    layers: dict[str, set[str]] = {}
    for row in re.findall(r"^\|\s*`(\w+)/`\s*\|[^|]*\|([^|]*)\|\s*$", table, re.MULTILINE):
        name, imports = row
        layers[name] = set(re.findall(r"`(\w+)/`", imports))
    return layers


def violations(root: Path, layers: dict[str, set[str]]) -> list[str]:
    """Each import that runs against the drawn flow, as ``file: package``."""
    found = []
    packages = set(layers)
    for package, allowed in layers.items():
        for file in sorted((root / package).rglob("*.py")):
            against = (_imports(file) & packages) - allowed - {package}
            found += [f"{file.relative_to(root).as_posix()}: {name}" for name in sorted(against)]
    return found


@pytest.fixture(scope="module")
def layers() -> dict[str, set[str]]:
    return drawn_layers((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_draws_every_package_and_no_other(layers: dict[str, set[str]]) -> None:
    assert sorted(layers) == project_packages(ROOT)
    for allowed in layers.values():
        assert allowed <= set(layers), sorted(allowed - set(layers))


def test_every_import_follows_the_drawn_flow(layers: dict[str, set[str]]) -> None:
    assert violations(ROOT, layers) == []


def test_the_flow_check_catches_slides_importing_render(
        layers: dict[str, set[str]], tmp_path: Path) -> None:
    """The check above can fail: a slides module that imports render is named."""
    for package in layers:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "slides" / "deck.py").write_text(
        "def build():\n    from render.build import plan\n    return plan\n", encoding="utf-8")
    assert violations(tmp_path, layers) == ["slides/deck.py: render"]


def test_only_the_worksheet_package_computes(layers: dict[str, set[str]]) -> None:
    offenders = []
    for package in set(layers) - {"worksheet"} - MEASURING:
        for file in sorted((ROOT / package).rglob("*.py")):
            found = _imports(file) & (COMPUTING | ({"numpy"} if package in NO_NUMPY else set()))
            found -= SIGNALS.get(file.relative_to(ROOT).as_posix(), set())
            if found:
                offenders.append(f"{file.relative_to(ROOT)}: {sorted(found)}")
    assert offenders == []


# The hall measurement renders scenes in its own process to time Cairo and encoding apart.
TIMES_MANIM = {"bench/hall.py"}


def test_only_scenes_draw_with_manim(layers: dict[str, set[str]]) -> None:
    offenders = [f"{file.relative_to(ROOT)}" for package in set(layers) - {"scenes"}
                 for file in sorted((ROOT / package).rglob("*.py"))
                 if "manim" in _imports(file)
                 and file.relative_to(ROOT).as_posix() not in TIMES_MANIM]
    assert offenders == []


SCENE_MODULES = sorted(p for p in (ROOT / "scenes").glob("*.py") if p.name != "__init__.py")


def test_colours_come_from_the_palette_only() -> None:
    palette = ROOT / "scenes" / "kit" / "palette.py"
    assert palette.is_file()
    for file in sorted((ROOT / "scenes").rglob("*.py")):
        if file == palette:
            continue
        literals = re.findall(r"[\"']#[0-9A-Fa-f]{6}[\"']", file.read_text(encoding="utf-8"))
        assert literals == [], f"{file.name}: {literals}: name them in scenes/kit/palette.py"


def test_head_colours_are_reached_only_through_a_head() -> None:
    """A scene colours a thing by head (``self.head_colour(h)``), never by picking an entry
    of the head colours for something else."""
    for file in SCENE_MODULES:
        assert "HEAD_COLOURS" not in file.read_text(encoding="utf-8"), file.name


def test_no_scene_module_imports_another() -> None:
    names = {p.stem for p in SCENE_MODULES}
    for file in SCENE_MODULES:
        imported = {node.module.removeprefix("scenes.")
                    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("scenes.")}
        assert imported & (names - {file.stem}) == set(), file.name
