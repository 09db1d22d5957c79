"""The live slide opens on the lesson's prompt already worked: ``trained.results.live.*``.

The values are held to :func:`tests.reference.live_values`, a plain numpy float64 forward
pass over the shipped checkpoints' weights (the tokenizer split by the ``tokenizers``
library itself); the slide's page to the values, figure by figure; the docs to the keys.
What the browser computes for the same prompt is held to the same figures in
``tests/test_live_browser.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from slides.assets import deck_assets
from slides.deck import deck_context, render_html
from tests import experiments, reference
from tests.test_slides_html import DeckPage
from worksheet import Style, Values, Worksheet, compute_values
from worksheet.live import token_label
from worksheet.results import BUNDLED, load_experiment, shown_text

LIVE = "trained.results.live"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "worksheet.md"


@pytest.fixture(scope="module")
def values(default_ws: Worksheet) -> Values:
    return compute_values(default_ws, load_experiment(BUNDLED, default_ws))


@pytest.fixture(scope="module")
def live_keys(values: Values) -> list[str]:
    return [key for key in values if key.startswith(f"{LIVE}.")]


def test_the_opening_example_equals_a_numpy_pass_over_the_checkpoints(
        values: Values, live_keys: list[str]) -> None:
    expected = reference.live_values(BUNDLED)
    assert sorted(live_keys) == sorted(expected)
    for key in ("tokens", "words", "single"):
        assert values.text(f"{LIVE}.{key}") == f"{expected[f'{LIVE}.{key}']:,}", key
    assert values.text(f"{LIVE}.characters_per_token") == \
        format(expected[f"{LIVE}.characters_per_token"], ".1f")
    for model in ("mlp", "heads1", "heads4"):
        key = f"{LIVE}.{model}.continuation"
        assert values.text(key) == shown_text(expected[key]), model
    weights = np.asarray(expected[f"{LIVE}.weights"])
    assert values[f"{LIVE}.weights"].shape == weights.shape
    assert np.allclose(weights.sum(axis=1), 1.0)  # the pads are left out, and hold nothing
    shown = values[f"{LIVE}.weights"].text
    for (h, j), weight in np.ndenumerate(weights):
        assert reference.within_display(shown[h][j], Style.FIXED3, weight), (h, j)
    assert reference.within_display(values.text(f"{LIVE}.tallest"), Style.FIXED3,
                                    expected[f"{LIVE}.tallest"])
    labels = [shown_text(text).strip() or "␣" for text in expected[f"{LIVE}.labels"]]
    assert values.value(f"{LIVE}.labels") == \
        [label if len(label) <= 7 else label[:6] + "…" for label in labels]


def test_the_example_says_what_the_lesson_prompt_is_made_of(values: Values) -> None:
    """The lesson's sentence is ten words of plain English: every word a run of letters,
    none of them lost, and more tokens than words."""
    prompt = values.text("trained.results.prompt")
    assert values.value(f"{LIVE}.words") == len(prompt.split()) == 10
    assert values.value(f"{LIVE}.single") <= values.value(f"{LIVE}.words") \
        < values.value(f"{LIVE}.tokens")
    assert len(values.value(f"{LIVE}.labels")) == values.value(f"{LIVE}.tokens")
    assert values.value(f"{LIVE}.labels")[-1] == "the"


def test_a_tokens_label_is_one_short_line() -> None:
    assert token_label(" fisherman") == "fisher…"
    assert token_label(" bank") == "bank"
    assert token_label("\n\t") == "␣"
    assert token_label("a\x10") == "a·"


def test_an_experiment_without_shipped_models_has_no_example(default_ws: Worksheet,
                                                             tmp_path: Path) -> None:
    folder = experiments.write(tmp_path / "experiment", experiments.document(default_ws))
    without = compute_values(default_ws, load_experiment(folder, default_ws))
    assert "trained.results.verdict" in without
    assert not [key for key in without if key.startswith(f"{LIVE}.")]


@pytest.fixture(scope="module")
def slide(default_ws: Worksheet, values: Values) -> DeckPage:
    """The live slide's section of the deck's page."""
    html = render_html(deck_context(default_ws, values, live=True), deck_assets())
    section = re.search(r'<section[^>]*id="trained-live".*?</section>', html, flags=re.S)
    assert section is not None
    return DeckPage(section.group())


def test_the_slide_opens_on_every_figure_of_the_example_bound_to_its_key(
        slide: DeckPage, values: Values, live_keys: list[str]) -> None:
    assert slide.nested == []
    wrong = [(key, text) for key, text in slide.figures if text != values.text(key)]
    assert wrong == []
    shown = {key for key, _ in slide.figures}
    leaves = {leaf.key for key in live_keys for leaf in values[key].leaves()}
    # every figure is shown but the bars' weights, which the bars draw
    assert leaves - shown == {key for key in leaves if key.startswith(f"{LIVE}.weights[")}
    drawn = [attributes["data-draws"] for tag, attributes in slide.tags
             if "live-bar" in (attributes.get("class") or "").split()]
    assert sorted(drawn) == sorted(key for key in leaves if key.startswith(f"{LIVE}.weights["))


def test_the_bars_stand_as_tall_as_their_weights(slide: DeckPage, values: Values) -> None:
    tallest = values.value(f"{LIVE}.tallest")
    bars = [attributes for _, attributes in slide.tags
            if "live-bar" in (attributes.get("class") or "").split()]
    for bar in bars:
        share = float(re.search(r"--share: ([0-9.e-]+)", bar["style"]).group(1))
        assert share == pytest.approx(values.value(bar["data-draws"]) / tallest, abs=1e-12)
        assert bar["title"].endswith(": " + values.text(bar["data-draws"]))
    assert max(float(re.search(r"--share: ([0-9.e-]+)", bar["style"]).group(1))
               for bar in bars) == 1.0


def test_the_slide_says_in_words_that_speed_waits_for_a_run(slide: DeckPage,
                                                           values: Values) -> None:
    text = " ".join(slide.visible)
    assert not re.search(r"\d", text)
    assert text.count("after a run") == 3  # one per model, in the speed column
    assert "Worked out when the deck was made." in text
    assert "–" not in text
    prompt = values.text("trained.results.prompt")
    inputs = [attributes for tag, attributes in slide.tags if tag == "input"]
    assert [field.get("value") for field in inputs] == [prompt]


def test_the_docs_name_every_key_of_the_example(live_keys: list[str]) -> None:
    docs = DOCS.read_text(encoding="utf-8")
    section = docs[docs.index(f"`{LIVE}.*`"):]
    for key in live_keys:
        name = key.removeprefix(f"{LIVE}.")
        name = re.sub(r"^(mlp|heads\d+)\.", "M.", name)
        assert f"`{name}`" in section, key
