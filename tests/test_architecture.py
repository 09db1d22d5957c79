"""Data flows one way: only the worksheet package computes (and imports torch)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parent.parent
COMPUTING = {"torch", "scipy"}
# numpy is geometry in scenes (Manim's points are arrays); elsewhere it is computation.
NO_NUMPY = ("render", "slides")
# Reading pixels back is image processing, not lesson arithmetic.
IMAGES = {"render/frames.py": {"numpy", "scipy"}}


def _imports(file: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_worksheet_package_computes() -> None:
    offenders = []
    for package in ("render", "scenes", "slides"):
        for file in sorted((ROOT / package).rglob("*.py")):
            found = _imports(file) & (COMPUTING | ({"numpy"} if package in NO_NUMPY else set()))
            found -= IMAGES.get(file.relative_to(ROOT).as_posix(), set())
            if found:
                offenders.append(f"{file.relative_to(ROOT)}: {sorted(found)}")
    assert (ROOT / "render" / "cli.py").is_file()
    assert offenders == []


def test_the_worksheet_package_does_not_reach_back() -> None:
    for file in sorted((ROOT / "worksheet").rglob("*.py")):
        assert not _imports(file) & {"render", "scenes", "slides", "manim", "narration"}, file


def test_narration_sits_below_scenes_and_render() -> None:
    for file in sorted((ROOT / "narration").rglob("*.py")):
        assert not _imports(file) & {"render", "scenes", "slides", "manim", "torch",
                                     "worksheet"}, file


SCENE_MODULES = sorted(p for p in (ROOT / "scenes").glob("*.py")
                       if p.name not in {"__init__.py", "order.py"})


def test_colours_come_from_the_palette_only() -> None:
    import re

    for file in sorted((ROOT / "scenes").rglob("*.py")):
        if file.name == "palette.py":
            continue
        literals = re.findall(r"[\"']#[0-9A-Fa-f]{6}[\"']", file.read_text(encoding="utf-8"))
        assert literals == [], f"{file.name}: {literals}: name them in scenes/palette.py"


def test_head_colours_are_reached_only_through_a_head() -> None:
    """A scene colours a thing by head (``self.head_colour(h)``), never by picking an entry
    of the head colours for something else."""
    for file in SCENE_MODULES:
        assert "HEAD_COLOURS" not in file.read_text(encoding="utf-8"), file.name


def test_no_scene_module_imports_another() -> None:
    names = {p.stem for p in SCENE_MODULES}
    for file in SCENE_MODULES:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.removeprefix("scenes.") not in names - {file.stem} \
                    or not node.module.startswith("scenes."), (file.name, node.module)
