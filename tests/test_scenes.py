"""Every scene, built without writing video: each figure on screen and in each caption is a
fresh recomputation, no number appears unbound, and the layout fits and stays legible."""

from __future__ import annotations

import re
from itertools import combinations, pairwise
from typing import Any

import inflect
import pytest

from scenes.kit import BREATH, LONGEST_SILENCE
from scenes.order import lecture_order
from tests.conftest import THREE_HEADS
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet

HALF_WIDTH, HALF_HEIGHT = 14.222 / 2, 8.0 / 2
_ENGLISH = inflect.engine()
MIN_FONT_SIZE = 15.0  # digits about 9 px tall at 854×480
DATA = THREE_HEADS.parent
WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS,
              "wide": DATA / "one-wide-head.json", "four": DATA / "four-heads.json",
              "markup": DATA / "markup-words.json", "seed": DATA / "seed-three-heads.json"}
ENTRIES = {label: lecture_order(load_worksheet(path).n_heads)
           for label, path in WORKSHEETS.items()}
CASES = [(label, entry.name) for label, entries in ENTRIES.items() for entry in entries]


@pytest.fixture(scope="session")
def shown(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """Dry-run the scenes the selected tests need (all of them in a full run)."""
    wanted = set()
    for item in request.session.items:
        params = getattr(item, "callspec", None)
        if params is not None and "name" in params.params:
            wanted.add((params.params.get("label", "markup"), params.params["name"]))
    if any(item.name.startswith("test_the_prompt_shows") for item in request.session.items):
        wanted.add(("markup", "RiverBankPrompt"))
    jobs = [(entry, WORKSHEETS[label]) for label, entries in ENTRIES.items()
            for entry in entries if (label, entry.name) in wanted]
    results = run_scenes(jobs)
    return {label: {name: results[(str(path), name)] for (key_path, name) in results
                    if key_path == str(path)} for label, path in WORKSHEETS.items()}


@pytest.fixture(scope="session")
def fresh() -> dict[str, Any]:
    return {label: compute_values(load_worksheet(path)) for label, path in WORKSHEETS.items()}


def _result(shown: dict, label: str, name: str) -> dict[str, Any]:
    result = shown[label][name]
    assert result["error"] is None, result["error"]
    return result


def _unbound_digits(text: str, figures: list, words: list[str]) -> str:
    """What is left of ``text`` after removing its bound figures and worksheet words."""
    for word in words:
        text = text.replace(word, " ", 1)
    for figure in figures:
        shown = figure["text"] if isinstance(figure, dict) else figure[1]
        assert shown in text, f"{shown!r} not found in {text!r}"
        text = text.replace(shown, " ", 1)
    return "".join(re.findall(r"\d", text))


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_figure_is_a_fresh_recomputation(shown, fresh, label: str, name: str) -> None:
    manifest = _result(shown, label, name)["manifest"]
    values = fresh[label]
    assert manifest["scene"] == name
    pairs = [f for s in manifest["sections"] for f in s["figures"]]
    pairs += [f for c in manifest["captions"] for f in c["figures"]]
    assert pairs, "a scene should show at least one bound figure"
    for figure in pairs:
        assert values.text(figure["key"]) == figure["text"], figure


@pytest.mark.parametrize(("label", "name"), CASES)
def test_captions_show_only_bound_numbers(shown, fresh, label: str, name: str) -> None:
    captions = _result(shown, label, name)["manifest"]["captions"]
    assert captions, "every scene narrates its steps"
    for caption in captions:
        assert caption["end"] > caption["start"]
        assert _unbound_digits(caption["text"], caption["figures"],
                               list(caption["words"].values())) == "", caption["text"]
        slots = {slot: _Counted(fresh[label].text(key), fresh[label].value(key))
                 for slot, key in caption["slots"].items()}
        assert caption["template"].format(**slots, **caption["words"]) == caption["text"]


class _Counted(str):
    """A figure's text that also formats the kit's counted slots, as English says them:
    ``{n:head}`` "1 head" / "3 heads", ``{n:all sentence}`` "both sentences" / "all 3
    sentences", ``{n:?is}`` "is" / "are"."""

    def __new__(cls, text: str, count: object) -> _Counted:
        made = super().__new__(cls, text)
        made.count = count
        return made

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        if spec.startswith("?"):
            return _ENGLISH.plural_verb(spec[1:], self.count)
        if spec.startswith("all "):
            noun = _ENGLISH.plural(spec[4:], self.count)
            return f"both {noun}" if self.count == 2 else f"all {self} {noun}"
        return f"{self} {_ENGLISH.plural(spec, self.count)}"


@pytest.mark.parametrize(("label", "name"), CASES)
def test_on_screen_text_shows_only_bound_numbers(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            assert _unbound_digits(text["text"], text["figures"], text["words"]) == "", \
                (section["name"], text["text"])


@pytest.mark.parametrize(("label", "name"), CASES)
def test_layout_fits_the_frame_without_overlaps(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        boxes = [(t["text"], t["box"]) for t in section["texts"]]
        for text, (left, bottom, right, top) in boxes:
            assert -HALF_WIDTH <= left and right <= HALF_WIDTH, (section["name"], text)
            assert -HALF_HEIGHT <= bottom and top <= HALF_HEIGHT, (section["name"], text)
        for (a, box_a), (b, box_b) in combinations(boxes, 2):
            width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
            height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
            assert width <= 0.01 or height <= 0.01, (section["name"], a, b)


@pytest.mark.parametrize("name", [e.name for e in ENTRIES["markup"]])
def test_words_with_markup_characters_display_literally(shown, name: str) -> None:
    ws = load_worksheet(WORKSHEETS["markup"])
    allowed = set(ws.vocab) | {t for words in ws.sentences.values() for t in words}
    for section in _result(shown, "markup", name)["sections"]:
        for text in section["texts"]:
            if text["kind"] == "word":
                assert text["text"] in allowed, text["text"]
            for word in text["words"]:
                assert word in text["text"]


def test_the_prompt_shows_markup_words_literally(shown) -> None:
    words = {t["text"] for s in _result(shown, "markup", "RiverBankPrompt")["sections"]
             for t in s["texts"] if t["kind"] == "word"}
    assert {"<river>", "b&nk", 'fisher"man', "it's"} <= words


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_text_is_legible_at_480p(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            assert text["font_size"] >= MIN_FONT_SIZE, (section["name"], text["text"],
                                                       text["font_size"])


@pytest.mark.parametrize(("label", "name"), CASES)
def test_a_narrated_clip_keeps_no_unmarked_silence_longer_than_the_limit(shown, label: str,
                                                                          name: str) -> None:
    manifest = _result(shown, label, name)["manifest"]
    captions, marked = manifest["captions"], manifest["silences"]
    # Dry runs pace each step by reading time; narrated, at least a breath separates two
    # sentences, and the steps played in between count toward it.
    quiet = [(0.0, captions[0]["start"])]
    quiet += [(a["end"], max(b["start"], a["end"] + BREATH)) for a, b in pairwise(captions)]
    quiet += [(captions[-1]["end"], max(manifest["duration"], captions[-1]["end"] + BREATH))]
    for start, end in quiet:
        covered = sum(max(0.0, min(end, s["end"]) - max(start, s["start"])) for s in marked)
        assert end - start - covered <= LONGEST_SILENCE + 1e-6, (start, end, marked)
    assert all(s["why"] and s["end"] > s["start"] for s in marked)
