"""The explorer slide: the worksheet's own model in the browser (Playwright driving Debian's
Chromium), opened from disk.

The worksheet's sentences show exactly the figures the rest of the deck prints for them;
on sentences a student could build, every figure shown is a fresh torch float64
computation in the lecture's display format, digit for digit; the page asks for nothing
but its own files, ``blob:`` and ``data:``; the page's formatter writes every value of every
test worksheet as Python's does; the exported graph computes what ``compute_values``
computes for every test worksheet.

Every expected figure is computed here afresh: with torch from ``TinyLM.from_worksheet``,
the lesson's steps written out below, and formatted by ``worksheet.formatting``.
"""

from __future__ import annotations

import json
import math
import random
import re
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from playwright.sync_api import Browser, Page

from slides.deck import build_deck
from slides.explorer import EXPLORER_MODEL, explorer_script
from slides.pdf import SLIDE_SIZE
from tests.conftest import DATA
from worksheet import (
    DEFAULT_WORKSHEET,
    Style,
    Values,
    Worksheet,
    compute_values,
    format_number,
    load_worksheet,
)
from worksheet.explorer import OUTPUTS, explorer_graph
from worksheet.model import TinyLM
from worksheet.results import BUNDLED, load_experiment

ROOT = Path(__file__).resolve().parent.parent
FORMAT_JS = ROOT / "slides" / "static" / "format.js"
REVIEW = ROOT / "build" / "review"
WORKSHEETS = [DEFAULT_WORKSHEET, *sorted(DATA.glob("*.json"))]
SLIDE = "other-context-explorer"
SEQUENCES = 20
SEED = 20250
TEXT_PX = 24
"""The least size of the slide's text at 1280×720 (the deck's hall size for prose)."""


# ------------------------------------------------------------------ the lecture's figures


def lecture_figures(ws: Worksheet, values: Values, name: str) -> dict[str, str]:
    """What the deck prints for sentence ``name``, by the explorer's names of the same
    quantities: the last token's vectors, each head's weights, ΔE and the prediction."""
    last = ws.length - 1
    shown: dict[str, str] = {}
    for h in range(1, ws.n_heads + 1):
        for c in range(ws.d_head):
            for kind in ("Q", "K", "V"):
                shown[f"h{h}.{kind.lower()}[{c}]"] = values.text(f"{name}.h{h}.{kind}[{last}][{c}]")
            shown[f"h{h}.message[{c}]"] = values.text(f"{name}.h{h}.message[{c}]")
        for j in range(ws.length):
            shown[f"h{h}.weights[{j}]"] = values.text(f"{name}.h{h}.weights[{j}]")
    for c in range(ws.d_model):
        shown[f"delta[{c}]"] = values.text(f"{name}.delta[{last}][{c}]")
    predicted = int(values.value(f"{name}.prediction"))
    shown["prediction"] = ws.vocab[predicted]
    shown["probability"] = values.text(f"{name}.probs[{predicted}]")
    return shown


def recomputed(ws: Worksheet, values: Values, ids: list[int]) -> dict[str, str]:
    """The same figures for any sentence of ids, computed afresh in torch float64 and
    formatted in the style the lecture gives each quantity."""
    model = TinyLM.from_worksheet(ws)
    s, d = ws.walkthrough, ws.d_head

    def style(key: str) -> Style:
        return values[f"{s}.{key}"].style

    shown: dict[str, str] = {}
    with torch.no_grad():
        tokens = torch.tensor([ids])
        E = model.embed(tokens)[0]
        layer = model.attention
        for h in range(1, ws.n_heads + 1):
            block = slice((h - 1) * d, h * d)
            Q, K, V = (E @ W[:, block] for W in (layer.W_Q, layer.W_K, layer.W_V))
            exps = ((Q[-1] * K).sum(dim=-1) / math.sqrt(d)).exp()
            weights = exps / exps.sum()
            message = (weights[:, None] * V).sum(dim=0)
            for c in range(d):
                for kind, rows in (("q", Q), ("k", K), ("v", V)):
                    shown[f"h{h}.{kind}[{c}]"] = format_number(float(rows[-1, c]),
                                                               style(f"h1.{kind.upper()}"))
                shown[f"h{h}.message[{c}]"] = format_number(float(message[c]),
                                                            style("h1.message"))
            for j, weight in enumerate(weights.tolist()):
                shown[f"h{h}.weights[{j}]"] = format_number(weight, style("h1.weights"))
        delta, _ = layer(E[None])
        for c, entry in enumerate(delta[0, -1].tolist()):
            shown[f"delta[{c}]"] = format_number(entry, style("delta"))
        probs = model(tokens)[0].softmax(dim=-1)
    predicted = int(probs.argmax())
    shown["prediction"] = ws.vocab[predicted]
    shown["probability"] = format_number(float(probs[predicted]), style("probs"))
    return shown


def sequences(ws: Worksheet) -> list[list[int]]:
    """Seeded sentences of every length from one word to the context, then random ones."""
    rng = random.Random(SEED)
    lengths = [1, ws.context] + [rng.randint(1, ws.context) for _ in range(SEQUENCES - 2)]
    return [[rng.randrange(len(ws.vocab)) for _ in range(n)] for n in lengths]


# ------------------------------------------------------------------ the page


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory, default_ws: Worksheet,
         default_values: Values) -> Path:
    return build_deck(default_ws, default_values, tmp_path_factory.mktemp("explorer"))


@pytest.fixture(scope="module")
def page(browser: Browser, deck: Path) -> Any:
    """The deck on the explorer slide, its model loaded; every URL it asked for and every
    error it reported."""
    width, height = SLIDE_SIZE
    opened = browser.new_page(viewport={"width": width, "height": height})
    asked: list[str] = []
    errors: list[str] = []
    opened.on("request", lambda request: asked.append(request.url))
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(deck.as_uri() + f"#/{SLIDE}")
    opened.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    assert opened.evaluate("window.worksheetExplorer.ready()") is True
    opened.evaluate("window.worksheetExplorer.shown()")
    yield opened, asked, errors
    opened.close()


def shown(page: Page) -> dict[str, str]:
    return page.evaluate("window.worksheetExplorer.shown()")


def test_each_worksheet_sentence_shows_the_decks_own_figures(page, default_ws: Worksheet,
                                                              default_values: Values) -> None:
    live, _, _ = page
    assert shown(live) == lecture_figures(default_ws, default_values, default_ws.walkthrough)
    for name in [*default_ws.sentences][::-1]:
        live.click(f"#{SLIDE} .explorer-start button:has-text('{name}')")
        assert shown(live) == lecture_figures(default_ws, default_values, name), name
        assert live.get_attribute(f"#{SLIDE} .explorer-start button:has-text('{name}')",
                                  "aria-pressed") == "true"
        words = live.eval_on_selector_all(f"#{SLIDE} .explorer-word select",
                                          "menus => menus.map(m => m.selectedOptions[0].text)")
        assert words == [token.lower() for token in default_ws.sentences[name]]
    # every digit on the slide is one of those figures
    text = live.evaluate("""(id) => { const root = document.querySelector(`#${id} .explorer`);
        const copy = root.cloneNode(true);
        copy.querySelectorAll('[data-quantity], option').forEach(e => e.remove());
        return copy.textContent; }""", SLIDE)
    assert re.findall(r"\d", text) == []


def test_any_sentence_shows_a_fresh_torch_computation_digit_for_digit(
        page, default_ws: Worksheet, default_values: Values) -> None:
    live, _, _ = page
    sentences = sequences(default_ws)
    got = live.evaluate("""async (sentences) => { const found = [];
        for (const ids of sentences) found.push(await window.worksheetExplorer.show(ids));
        return found; }""", sentences)
    for ids, figures in zip(sentences, got, strict=True):
        assert figures == recomputed(default_ws, default_values, ids), ids


def test_the_menus_change_a_word_add_one_and_remove_the_last(page, default_ws: Worksheet,
                                                             default_values: Values) -> None:
    live, _, _ = page
    ws, root = default_ws, f"#{SLIDE} .explorer"
    live.click(f"{root} .explorer-start button:has-text('{ws.walkthrough}')")
    ids = list(ws.ids(ws.walkthrough))
    assert shown(live) == recomputed(ws, default_values, ids)
    assert live.is_disabled(f"{root} .explorer-add select")
    changed = (ids[-1] + 1) % len(ws.vocab)
    live.select_option(f"{root} .explorer-word >> nth={len(ids) - 1} >> select", str(changed))
    ids[-1] = changed
    assert shown(live) == recomputed(ws, default_values, ids)
    live.click(f"{root} .explorer-remove")
    ids.pop()
    assert shown(live) == recomputed(ws, default_values, ids)
    live.select_option(f"{root} .explorer-add select", str(ws.vocab.index("bank")))
    ids.append(ws.vocab.index("bank"))
    assert shown(live) == recomputed(ws, default_values, ids)
    assert live.input_value(f"{root} .explorer-add select") == ""
    for _ in range(len(ids) - 1):
        live.click(f"{root} .explorer-remove")
    assert shown(live) == recomputed(ws, default_values, ids[:1])
    assert live.is_disabled(f"{root} .explorer-remove")
    assert live.eval_on_selector_all(f"{root} .explorer-word", "words => words.length") == 1


def test_the_slide_is_legible_in_a_hall_and_marked_live(page, default_ws: Worksheet) -> None:
    live, _, _ = page
    live.click(f"#{SLIDE} .explorer-start button:has-text('{default_ws.walkthrough}')")
    shown(live)
    assert live.inner_text(f"#{SLIDE} .live-badge").strip() == "computed live in your browser"
    REVIEW.mkdir(parents=True, exist_ok=True)
    live.screenshot(path=str(REVIEW / "explorer-slide.png"))
    problems = live.evaluate("""([id, least]) => {
      const slide = document.getElementById(id), box = slide.getBoundingClientRect();
      const style = getComputedStyle(slide);
      const bottom = box.top + slide.clientHeight - parseFloat(style.paddingBottom);
      const problems = [];
      for (const e of slide.querySelectorAll('*')) {
        if (e.closest('aside.notes, .katex, option') || !e.checkVisibility()) continue;
        const r = e.getBoundingClientRect();
        if (r.width && (r.right > box.right + 1 || r.bottom > bottom + 1)) {
          problems.push(['outside', e.tagName, e.className]);
        }
        for (const node of e.childNodes) {
          if (node.nodeType === 3 && node.textContent.trim()
              && parseFloat(getComputedStyle(e).fontSize) < least) {
            problems.push(['small', e.tagName, node.textContent.slice(0, 20)]);
          }
        }
      }
      return problems;
    }""", [SLIDE, TEXT_PX])
    assert problems == []
    # a sentence of the longest word steps its type down (to 20 px at least) and stays
    # on the slide, scrolling sideways if it must
    longest = max(range(len(default_ws.vocab)), key=lambda i: len(default_ws.vocab[i]))
    live.evaluate("(ids) => window.worksheetExplorer.show(ids)", [longest] * default_ws.context)
    size, right, edge = live.evaluate("""(id) => {
      const grid = document.querySelector(`#${id} .explorer-weights`);
      return [parseFloat(getComputedStyle(grid).fontSize), grid.getBoundingClientRect().right,
              document.getElementById(id).getBoundingClientRect().right]; }""", SLIDE)
    assert 20 <= size < TEXT_PX and right <= edge


def test_the_page_asks_for_nothing_but_its_own_files(page, deck: Path) -> None:
    _, asked, errors = page
    others = [url for url in asked
              if not url.startswith((deck.parent.as_uri() + "/", "blob:", "data:"))]
    assert others == []
    assert any(url.endswith(EXPLORER_MODEL) for url in asked)
    assert errors == []


# ------------------------------------------------------------------ the graph


@pytest.fixture(scope="module")
def computed() -> dict[Path, tuple[Worksheet, Values]]:
    """Every test worksheet and its values, computed once (the default one with the
    bundled experiment's results, which hold every display style)."""
    found = {}
    for path in WORKSHEETS:
        ws = load_worksheet(path)
        experiment = load_experiment(BUNDLED, ws) if path == DEFAULT_WORKSHEET else None
        found[path] = (ws, compute_values(ws, experiment))
    return found


def test_the_deck_holds_the_worksheets_graph(deck: Path, default_ws: Worksheet) -> None:
    graph, digest = explorer_graph(default_ws)
    assert explorer_graph(default_ws) == (graph, digest)
    written = (deck.parent / EXPLORER_MODEL).read_text(encoding="utf-8")
    assert written == explorer_script(default_ws)
    assert f'"sha256":"{digest}"' in written


@pytest.mark.parametrize("path", WORKSHEETS, ids=lambda p: p.stem)
def test_the_graph_computes_the_lectures_figures(computed, path: Path) -> None:
    """Run by ONNX Runtime on the CPU in float64: every sentence of every test worksheet
    gives the figures ``compute_values`` gives, to the display's last digit."""
    import onnxruntime

    ws, values = computed[path]
    graph = explorer_graph(ws).graph
    session = onnxruntime.InferenceSession(graph, providers=["CPUExecutionProvider"])
    assert [o.name for o in session.get_outputs()] == list(OUTPUTS)
    for name in ws.sentences:
        out = dict(zip(OUTPUTS, session.run(None, {"ids": np.array([ws.ids(name)])}),
                       strict=True))
        assert all(array.dtype in (np.float64, np.int64) for array in out.values())
        last = ws.length - 1
        assert int(out["prediction"][0]) == values.value(f"{name}.prediction")
        for output, key in (("weights", "weights"), ("messages", "message"), ("q", "Q")):
            for h in range(ws.n_heads):
                row = out[output][h]
                expected = values[f"{name}.h{h + 1}.{key}"]
                texts = expected.text[last] if key == "Q" else expected.text
                assert [format_number(float(x), expected.style) for x in row] == texts
        for output, key in (("delta", "delta"), ("updated", "E_prime"), ("joined", "joined"),
                            ("logits", "logits")):
            expected = values[f"{name}.{key}"]
            assert [format_number(float(x), expected.style) for x in out[output]] == \
                expected.text[last], key
        for output, key in (("hidden", "hidden"), ("probs", "probs")):
            expected = values[f"{name}.{key}"]
            assert [format_number(float(x), expected.style) for x in out[output]] == \
                expected.text, key


# ------------------------------------------------------------------ the formatter


def _edge_values() -> list[float]:
    """Halves at every place the formats round, negative zeros, the edges of scientific
    notation, subnormals, and seeded floats of every magnitude and bit pattern."""
    edges = [0.0, -0.0, 0.0625, -0.0625, 0.0005, -0.0005, 1.0005, 2.675, 0.125, 0.375, 2.5,
             3.5, -0.5, -1.5, 0.05, 0.15, 0.25, 0.35, -0.0004, 999999.9995, 999999.9994,
             1e6, -1e6, 1234567.5, 99995000.0, -1.2345e7, 1.5e7, 5e-324, 2.2250738585072014e-308,
             1e-13, -1e-13, 1e300, 4503599627370496.5, 9007199254740993.0, 123.4565,
             0.1 + 0.2, -(0.1 + 0.2), 2.3, 1.0]
    rng = random.Random(SEED)
    for _ in range(2000):
        bits = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(bits):
            edges.append(bits)
        edges.append(rng.uniform(-2e6, 2e6))
        edges.append(rng.randint(-200_000, 200_000) / 2 ** rng.randint(0, 14))
    return edges


def _python(value: Any, style: Style) -> str | None:
    try:
        return format_number(value, style)
    except (ValueError, OverflowError):
        return None


def test_the_pages_formatter_writes_every_value_as_python_does(computed) -> None:
    """Every value of every test worksheet (with the bundled experiment's results for the
    default one, which hold every style), and edge cases in every numeric style, formatted
    by static/format.js under node in one process."""
    cases: list[tuple[Any, str, Any]] = []
    for _, values in computed.values():
        cases += [(figure.tolist(), str(figure.style), figure.text) for figure in values.values()]
    assert {style for _, style, _ in cases} == {str(style) for style in Style}
    for value in _edge_values():
        for style in (Style.FIXED3, Style.PARAM, Style.FIXED1, Style.WHOLE, Style.BELOW):
            cases.append((value, str(style), _python(value, style)))
    for value in (0, 7, -7, 4096, 2_332_832, -1_000_000, 10 ** 15, 4096.0):
        for style in (Style.COUNT, Style.INDEX):
            cases.append((value, str(style), _python(value, style)))
    script = """
const format = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([value, style]) => {
  try { return format.formatValue(value, style); } catch (error) { return null; }
})));
"""
    done = subprocess.run(["node", "-e", script, str(FORMAT_JS)], check=True, text=True,
                          capture_output=True,
                          input=json.dumps([[value, style] for value, style, _ in cases]))
    written = json.loads(done.stdout)
    expected = json.loads(json.dumps([text for _, _, text in cases]))
    wrong = [(case[:2], got, want) for case, got, want in zip(cases, written, expected,
                                                              strict=True) if got != want]
    assert wrong == []
    assert len(cases) > 20_000
