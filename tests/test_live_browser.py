"""The live slide in a real browser (Playwright driving Debian's Chromium), opened from disk:
the trained models the lecture ships run in the page and give torch's logits, attention
weights and greedy continuations; the page's tokenizer splits text as Python's does; the
page fetches nothing but its own files; the slide opens on the lesson's prompt already
worked, and running the models on it gives those figures again, digit for digit; the
slide shows each model's speed and fits a hall's slide.

Every expected figure is computed here afresh, from the shipped checkpoints with the
lesson's classes in torch and from ``tokenizer.json`` with Python's ``tokenizers``, or is
a value of the lecture (``trained.results.live.*``, held to numpy in
``tests/test_live_values.py``); the deck is built once by ``lecture slides``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch
from click.testing import CliRunner
from playwright.sync_api import Browser
from tokenizers import Tokenizer

from render.cli import main
from slides.pdf import SLIDE_SIZE
from worksheet import Values, Worksheet, compute_values
from worksheet.experiment import continue_prompt, load_checkpoint, model_specs, window
from worksheet.formatting import Style, format_value
from worksheet.results import chosen_experiment, load_experiment, shown_text

REVIEW = Path(__file__).resolve().parent.parent / "build" / "review"
TRICKY = ["", " ", "  two leading spaces", "tabs\tand\nnew lines\n\n", "naïve café, déjà vu",
          "漁師は川岸に座った", "fish 🐟🎣 and 👨‍👩‍👧", "it's, don't; they'll",
          "3.14159 × 10^-9 = 1e-9", "a <|endoftext|> in the middle",
          "non\u00a0breaking\u2028line"]
"""Strings a byte-level tokenizer may split differently if a port gets a detail wrong:
empty, spaces, control characters, accents, CJK, emoji joined by zero-width joiners,
contractions, digits, the special token inside a text, Unicode's own spaces."""
MOST = 20
"""The tokens the slide asks of each model."""
LIVE = "trained.results.live"
LOGITS, WEIGHTS = 1e-4, 1e-5


@dataclass(frozen=True)
class Shipped:
    folder: Path
    document: dict[str, Any]
    tokenizer: Tokenizer
    models: dict[str, torch.nn.Module]

    @property
    def context(self) -> int:
        return self.document["sizes"]["context"]

    @property
    def end(self) -> int:
        return self.tokenizer.token_to_id("<|endoftext|>")

    def prompts(self) -> list[str]:
        return [prompt["text"] for prompt in self.document["prompts"]]


@pytest.fixture(scope="module")
def shipped(default_ws: Worksheet) -> Shipped:
    import json

    folder = chosen_experiment(None, default_ws)
    if folder is None:
        pytest.skip("the lecture ships no experiment for the default worksheet's sizes")
    document = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    sizes = default_ws.lesson.trained
    models = {spec.name: load_checkpoint(spec, sizes, folder / f"{spec.name}.safetensors")
              for spec in model_specs(sizes)}
    return Shipped(folder, document, Tokenizer.from_file(str(folder / "tokenizer.json")),
                   models)


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory, shipped: Shipped) -> Path:
    out = tmp_path_factory.mktemp("live")
    result = CliRunner().invoke(main, ["slides", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return out / "slides" / "index.html"


@pytest.fixture(scope="module")
def page(browser: Browser, deck: Path) -> Any:
    """The deck on the live slide, its models loaded; every URL it asked for."""
    width, height = SLIDE_SIZE
    opened = browser.new_page(viewport={"width": width, "height": height})
    asked: list[str] = []
    opened.on("request", lambda request: asked.append(request.url))
    opened.goto(deck.as_uri() + "#/trained-live")
    opened.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    assert opened.evaluate("window.liveModels.ready()") is True
    yield opened, asked
    opened.close()


@pytest.fixture(scope="module")
def values(default_ws: Worksheet, shipped: Shipped) -> Values:
    """The lecture's values with the shipped experiment: the figures the slide opens on."""
    return compute_values(default_ws, load_experiment(shipped.folder, default_ws))


FIGURES = """() => {
  const root = document.querySelector('.live');
  const text = e => e.textContent;
  return {
    coverage: Object.fromEntries([...root.querySelectorAll('.live-facts [data-live]')]
      .map(e => [e.dataset.live, text(e)])),
    tallest: text(root.querySelector('[data-live=tallest]')),
    continuations: Object.fromEntries([...root.querySelectorAll('tr[data-model]')]
      .map(r => [r.dataset.model, text(r.querySelector('[data-live=continuation]'))])),
    speeds: [...root.querySelectorAll('[data-live=speed]')].map(text),
    bars: [...root.querySelectorAll('.live-bar')].map(b => [b.dataset.head, b.title]),
    labels: [...root.querySelectorAll('.live-token')].map(text),
    bound: root.querySelectorAll('[data-key^="trained.results.live."]').length,
    prompt: root.querySelector('input').value,
  };
}"""
"""What the live slide shows: its figures by place, each bar's head and title (its token
and its weight as shown), the tokens' labels, how many figures are bound to a value."""


def _opening(values: Values) -> dict[str, Any]:
    """The figures the slide opens on, as the lecture's values show them."""
    weights = values[f"{LIVE}.weights"].text
    labels = values.value(f"{LIVE}.labels")
    return {
        "coverage": {"tokens": values.text(f"{LIVE}.tokens"),
                     "characters": values.text(f"{LIVE}.characters_per_token"),
                     "single": values.text(f"{LIVE}.single"),
                     "words": values.text(f"{LIVE}.words")},
        "tallest": values.text(f"{LIVE}.tallest"),
        "continuations": {model: values.text(f"{LIVE}.{model}.continuation")
                          for model in ("mlp", "heads1", "heads4")},
        "bars": [[str(h + 1), f"{labels[j]}: {weight}"] for h, row in enumerate(weights)
                 for j, weight in enumerate(row)],
        "labels": labels,
        "prompt": values.text("trained.results.prompt"),
    }


def test_the_slide_opens_on_the_lesson_prompt_already_worked(browser: Browser, deck: Path,
                                                            values: Values) -> None:
    """Before any model has run (in a page of its own): every figure is the value's,
    bound to its key, and each speed says in words that it waits for a run."""
    width, height = SLIDE_SIZE
    fresh = browser.new_page(viewport={"width": width, "height": height})
    try:
        fresh.goto(deck.as_uri() + "#/trained-live")
        fresh.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
        shown = fresh.evaluate(FIGURES)
        REVIEW.mkdir(parents=True, exist_ok=True)
        fresh.screenshot(path=str(REVIEW / "live-slide-opened.png"))
    finally:
        fresh.close()
    expected = _opening(values)
    assert {key: shown[key] for key in expected} == expected
    assert shown["speeds"] == ["after a run"] * 3
    leaves = sum(1 for key in values if key.startswith(f"{LIVE}.")
                 for _ in values[key].leaves())
    weights = sum(len(row) for row in values.value(f"{LIVE}.weights"))
    assert shown["bound"] == leaves - weights  # the bars draw the weights; the rest are text


def test_running_the_lesson_prompt_gives_the_opening_figures_digit_for_digit(
        page, values: Values) -> None:
    """The browser's own figures for the prompt the slide opens on are the values', to the
    last digit; they replace the bound ones, and each model's speed is measured."""
    live, _ = page
    prompt = values.text("trained.results.prompt")
    live.evaluate("(t) => window.liveModels.run(t)", prompt)
    assert live.evaluate("document.querySelector('.live').dataset.state") == "done"
    shown = live.evaluate(FIGURES)
    expected = _opening(values)
    assert {key: shown[key] for key in expected} == expected
    assert shown["bound"] == 0  # every figure now is the browser's
    for speed in shown["speeds"]:
        # one decimal, as the lecture's own formatter writes it (no thousands separator)
        assert re.fullmatch(r"\d+\.\d", speed), speed
        assert format_value(float(speed), Style.FIXED1) == speed


def _torch(shipped: Shipped, name: str, text: str) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Logits after ``text`` (and, for an attention model, each head's last weights), by
    the lesson's class in torch, from the window the reference builds."""
    ids, padding = window(shipped.tokenizer.encode(text).ids, shipped.context, shipped.end)
    model = shipped.models[name]
    with torch.no_grad():
        ids_t, padding_t = torch.tensor([ids]), torch.tensor([padding])
        if name == "mlp":
            return model.logits(ids_t, padding_t)[0], None
        logits, weights = model.last(ids_t, padding_t)
        return logits[0], weights[0]


def _five(shipped: Shipped) -> list[str]:
    """A prompt of every kind, the training and held-out kinds once each: five in all."""
    by_kind: dict[str, list[str]] = {}
    for prompt in shipped.document["prompts"]:
        by_kind.setdefault(prompt["kind"], []).append(prompt["text"])
    chosen = [by_kind["training"][0], by_kind["held-out"][0], *by_kind["lesson"],
              *by_kind["outside"]]
    assert len(chosen) == 5, chosen
    return chosen


def test_each_models_logits_and_weights_equal_torchs(page, shipped: Shipped) -> None:
    live, _ = page
    for text in _five(shipped):
        for name in shipped.models:
            expected, weights = _torch(shipped, name, text)
            shown = live.evaluate("([n, t]) => window.liveModels.logits(n, t)", [name, text])
            got = torch.tensor(shown["logits"], dtype=torch.float64)
            assert got.shape == expected.shape
            assert (got - expected.double()).abs().max() <= LOGITS, (name, text)
            if weights is None:
                assert shown["weights"] is None
                continue
            drawn = torch.tensor(shown["weights"], dtype=torch.float64).reshape(weights.shape)
            assert (drawn - weights.double()).abs().max() <= WEIGHTS, (name, text)


def test_each_models_greedy_continuation_is_torchs_token_for_token(page,
                                                                 shipped: Shipped) -> None:
    live, _ = page
    for text in _five(shipped)[1:3]:
        prompt = shipped.tokenizer.encode(text).ids
        for name, model in shipped.models.items():
            expected = continue_prompt(model, prompt, shipped.context, shipped.end, MOST)
            made = live.evaluate("([n, t]) => window.liveModels.continuation(n, t)",
                                 [name, text])
            assert made["ids"] == expected, (name, text)
            assert made["runs"] == min(MOST, len(expected) + 1)


def test_the_page_splits_text_into_the_tokens_python_does(page, shipped: Shipped) -> None:
    live, _ = page
    texts = [*shipped.prompts(), *TRICKY]
    split = live.evaluate("async (texts) => { const found = [];"
                          " for (const t of texts) found.push(await window.liveModels.encode(t));"
                          " return found; }", texts)
    assert split == [shipped.tokenizer.encode(text).ids for text in texts]


def _coverage(tokenizer: Tokenizer, text: str) -> dict[str, int]:
    """Tokens, characters and words (runs of letters, with the space before them) of a
    text, and how many of the words are one token."""
    words = [(" " if m.start() and text[m.start() - 1] == " " else "") + m.group()
             for m in re.finditer(r"[^\W\d_]+", text)]
    return {"tokens": len(tokenizer.encode(text).ids), "characters": len(text),
            "words": len(words),
            "single": sum(len(tokenizer.encode(word).ids) == 1 for word in words)}


def test_the_coverage_of_a_prompt_is_counted_as_python_counts_it(page,
                                                                 shipped: Shipped) -> None:
    live, _ = page
    for text in shipped.prompts():
        assert live.evaluate("(t) => window.liveModels.coverage(t)", text) == \
            _coverage(shipped.tokenizer, text), text


def test_the_slide_shows_every_models_speed_and_fits_the_slide(page, shipped: Shipped) -> None:
    live, _ = page
    text = next(p["text"] for p in shipped.document["prompts"] if p["kind"] == "held-out")
    live.select_option(".live select", text)
    live.wait_for_function("() => document.querySelector('.live').dataset.state === 'done'",
                           timeout=30_000)
    rows = live.eval_on_selector_all(
        ".live tr[data-model]", "rows => rows.map(r => [r.dataset.model,"
        " r.querySelector('[data-live=continuation]').textContent,"
        " r.querySelector('[data-live=speed]').textContent])")
    assert [model for model, _, _ in rows] == list(shipped.models)
    for model, continuation, speed in rows:
        assert re.fullmatch(r"\d+\.\d", speed), (model, speed)  # the lecture's fixed1
        assert format_value(float(speed), Style.FIXED1) == speed
        assert float(speed.replace(",", "")) > 0
        expected = continue_prompt(shipped.models[model], shipped.tokenizer.encode(text).ids,
                                   shipped.context, shipped.end, MOST)
        assert continuation == shown_text(shipped.tokenizer.decode(expected)), model
    coverage = _coverage(shipped.tokenizer, text)
    facts = live.eval_on_selector_all(".live .live-facts [data-live]",
                                      "spans => spans.map(s => [s.dataset.live, s.textContent])")
    assert dict(facts) == {"tokens": f"{coverage['tokens']:,}", "words": f"{coverage['words']:,}",
                           "single": f"{coverage['single']:,}",
                           "characters": f"{coverage['characters'] / coverage['tokens']:.1f}"}
    assert live.locator(".live .live-bar").count() > 0
    assert live.inner_text(".live .live-badge").strip() == "runs live in your browser"
    REVIEW.mkdir(parents=True, exist_ok=True)
    live.screenshot(path=str(REVIEW / "live-slide.png"))
    problems = live.evaluate("""() => {
      const slide = document.querySelector('#trained-live'), box = slide.getBoundingClientRect();
      const style = getComputedStyle(slide);
      const bottom = box.top + slide.clientHeight - parseFloat(style.paddingBottom);
      const problems = [];
      for (const e of slide.querySelectorAll('*')) {
        if (e.closest('aside.notes') || !e.checkVisibility()) continue;
        const r = e.getBoundingClientRect();
        if (r.width && (r.right > box.right + 1 || r.bottom > bottom + 1)) {
          problems.push(['outside', e.tagName, e.className.baseVal ?? e.className]);
        }
        for (const node of e.childNodes) {
          if (node.nodeType === 3 && node.textContent.trim()
              && parseFloat(getComputedStyle(e).fontSize) < 20) {
            problems.push(['small', e.tagName, node.textContent.slice(0, 20)]);
          }
        }
      }
      return problems;
    }""")
    assert problems == []


def test_the_page_asks_for_nothing_but_its_own_files(page, deck: Path) -> None:
    _, asked = page
    assert asked
    others = [url for url in asked if not url.startswith((deck.parent.as_uri() + "/", "blob:",
                                                          "data:"))]
    assert others == []
    assert any(url.endswith("live/models.js") for url in asked)
