"""No number is typed by hand where the viewer sees it: scene sources contain no digit in
any string, and make text only through the kit's bound helpers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SCENES = Path(__file__).parent.parent / "scenes"
SOURCES = sorted(SCENES.glob("*.py"))
# Ways to put text or numbers on screen that bypass the bound helpers.
RAW_TEXT = {"Text", "MarkupText", "Paragraph", "DecimalNumber", "Integer", "Variable", "Tex",
            "MathTex", "SingleStringMathTex", "Title", "BulletedList", "Table", "Code"}


# Kit methods whose string arguments are shown: templates, labels, headers, titles.
DISPLAY_METHODS = {"say", "bound", "label", "title", "vec", "make_column", "column"}
SHOWN_KEYWORDS = {"template", "header", "text", "words"}


def _strings(node: ast.AST) -> list[str]:
    """String constants in an argument, including the fixed parts of f-strings."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


def shown_literals(source: str) -> list[tuple[int, str]]:
    """Digits in strings passed to the kit's display methods (keys are keyword values)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in DISPLAY_METHODS):
            continue
        shown = list(node.args) + [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        for argument in shown:
            found += [(node.lineno, text) for text in _strings(argument)
                      if re.search(r"\d", re.sub(r"\{[A-Za-z_]\w*\}", "", text))]
    return found


@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_no_shown_string_in_a_scene_file_contains_a_digit(source: Path) -> None:
    assert shown_literals(source.read_text(encoding="utf-8")) == []


# Captions reach the video and the manifest only through the kit's ``say``.
RAW_CAPTIONS = {"add_subcaption", "add_sound"}
NUMBER_MOBJECTS = {"DecimalNumber", "Integer", "Variable"}


def bypasses(source: str, kit: bool = False) -> list[tuple[int, str]]:
    """Calls and imports that put text, numbers or captions on screen around the kit:
    ``Text(...)``, ``manim.Text(...)``, ``m.DecimalNumber``, ``self.add_subcaption(...)``.

    The kit itself may make text (its ``Bound``, ``Word`` and labels check themselves),
    but no module may use Manim's number mobjects, which format numbers on their own.
    """
    forbidden = NUMBER_MOBJECTS if kit else RAW_TEXT | RAW_CAPTIONS
    found = []
    for node in ast.walk(ast.parse(source)):
        name = None
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.alias):
            name = (node.asname or node.name).split(".")[-1]
            if node.name.split(".")[-1] in forbidden:
                name = node.name.split(".")[-1]
        if name in forbidden:
            found.append((getattr(node, "lineno", 0), name))
    return found


@pytest.mark.parametrize("source", [s for s in SOURCES if s.name != "order.py"],
                         ids=lambda s: s.name)
def test_scenes_make_text_only_through_the_kit(source: Path) -> None:
    assert bypasses(source.read_text(encoding="utf-8")) == []


def test_the_kit_uses_no_number_mobject() -> None:
    for module in sorted((SCENES / "kit").glob("*.py")):
        assert bypasses(module.read_text(encoding="utf-8"), kit=True) == [], module.name


def test_the_scan_catches_attribute_calls_aliases_and_captions() -> None:
    source = ("import manim as m\n"
              "from manim import DecimalNumber as D\n"
              "x = m.Text('0.718')\n"
              "y = m.mobject.text.text_mobject.MarkupText('1')\n"
              "self.add_subcaption('the weight is 0.718')\n"
              "z = D(0.718)\n")
    names = [name for _, name in bypasses(source)]
    assert {"Text", "MarkupText", "add_subcaption", "DecimalNumber"} <= set(names)
    assert bypasses("self.bound('Head {h}', h='dims.head_numbers[0]')\n") == []
    assert bypasses("from manim import Integer\n", kit=True) == [(1, "Integer")]


def test_the_check_catches_a_typed_number() -> None:
    source = 'self.say("The weight is 0.718.")\nself.bound("{x} of 10", x="dims.tokens")\n'
    assert shown_literals(source) == [(1, "The weight is 0.718."), (2, "{x} of 10")]
    assert shown_literals('self.bound("Head {h}", h="dims.head_numbers[0]")') == []


def code_literals(source: str) -> list[tuple[int, str]]:
    """Digits in code listings (strings given to the kit's ``code``, directly or as a
    module constant) outside the kit's fixed code literals."""
    from scenes.kit import CODE_LITERALS

    tree = ast.parse(source)
    constants = {target.id: node.value.value for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, str)
                 for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
                and getattr(node.func, "id", getattr(node.func, "attr", "")) == "code"):
            continue
        for argument in node.args[:1]:
            texts = _strings(argument) + ([constants[argument.id]] if isinstance(
                argument, ast.Name) and argument.id in constants else [])
            for text in texts:
                for literal in CODE_LITERALS:
                    text = text.replace(literal, " ")
                if re.search(r"\d", text):
                    found.append((node.lineno, text))
    return found


@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_code_listings_show_digits_only_in_the_kits_code_literals(source: Path) -> None:
    assert code_literals(source.read_text(encoding="utf-8")) == []


def test_the_code_check_catches_a_typed_number() -> None:
    source = ('LISTING = "A = scores.softmax(-1)"\nBAD = "H1 = head(E)"\n'
              'code(LISTING)\ncode(BAD)\ncode("x[0]")\n')
    assert code_literals(source) == [(4, "H1 = head(E)"), (5, "x[0]")]


@pytest.mark.parametrize("name", ["combine.py", "grids.py"])
def test_the_combine_and_grids_modules_import_no_other_scene_module(name: str) -> None:
    tree = ast.parse((SCENES / name).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
    scene_modules = {m for m in imported if m.startswith("scenes.")}
    assert scene_modules <= {"scenes.kit", "scenes.kit.palette"}, scene_modules
