"""Every scene, built without writing video: each figure on screen and in each caption is a
fresh recomputation, no number appears unbound, and the layout fits and stays legible."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations, pairwise
from string import Formatter
from typing import Any

import inflect
import numpy as np
import pytest

from outline import lecture_order
from scenes.kit import BREATH, LONGEST_SILENCE
from tests.conftest import DRY_RUNS, THREE_HEADS
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

HALF_WIDTH, HALF_HEIGHT = 14.222 / 2, 8.0 / 2
_ENGLISH = inflect.engine()
MIN_FONT_SIZE = 15.0  # digits about 9 px tall at 854×480
DATA = THREE_HEADS.parent
WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS,
              "wide": DATA / "one-wide-head.json", "four": DATA / "four-heads.json",
              "markup": DATA / "markup-words.json", "seed": DATA / "seed-three-heads.json"}
ENTRIES = {label: lecture_order(load_worksheet(path).n_heads)
           for label, path in WORKSHEETS.items()}
TRAINED_ON = ("default", "four")
"""The worksheets TrainedComparison is dry-run on: it reads only the trained sizes and the
experiment, and the other test worksheets share the default's trained sizes (and so its
bundled experiment): their runs would be the default's again."""
RULES_ON = ("default", "wide", "four", "markup", "seed")
"""The worksheets every scene's rules run on. Not ``three``: it has the parameters, shape
and sentences of ``seed`` (which is it in the seed's schema), and differs only in its
lesson's names (features, heads, targets), which the teaching tests read on it."""
MARKUP_SCENES = ("RiverBankPrompt", "PredictionMLP")
"""The scenes run on ``markup``, whose sentences, vocabulary, features and heads are full of
markup characters and whose shape is the default's: the prompt (every token of both
sentences) and the prediction (features, heads' names and the vocabulary). Every scene
writes names through the same kit, so these prove it escapes them; the shapes are every
other worksheet's (the deck's markup tests cover every slide)."""
SHAPES_ON = tuple(label for label in RULES_ON if label != "markup")
"""The worksheets of different shapes: what the scenes outside :data:`MARKUP_SCENES` run on."""
CASES = [(label, entry.name) for label, entries in ENTRIES.items() for entry in entries
         if label in RULES_ON and (entry.name != "TrainedComparison" or label in TRAINED_ON)
         and (label != "markup" or entry.name in MARKUP_SCENES)]


def dry_runs(names: Sequence[str], labels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The dry runs of the scenes ``names`` on the worksheets ``labels`` (those of
    :data:`WORKSHEETS` that have them), by label then scene name: a scene that raised fails
    the test that asked for it. Runs already made in this worker are not made again."""
    jobs = [(entry, WORKSHEETS[label]) for label in labels for entry in ENTRIES[label]
            if entry.name in names]
    results = run_scenes(jobs)
    made: dict[str, dict[str, Any]] = {}
    for entry, path in jobs:
        result = results[(str(path), entry.name)]
        assert result["error"] is None, f"{entry.name} on {path.name}: {result['error']}"
        label = next(label for label in labels if WORKSHEETS[label] == path)
        made.setdefault(label, {})[entry.name] = result
    return made


def dry_runs_by_pair(names: Sequence[str], labels: Sequence[str]
                     ) -> dict[tuple[str, str], dict[str, Any]]:
    """:func:`dry_runs`, keyed by (worksheet label, scene name)."""
    return {(label, name): result for label, runs in dry_runs(names, labels).items()
            for name, result in runs.items()}


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
    """Each worksheet's values, with the experiment its lecture shows (the bundled one where
    the trained sizes fit), computed here again."""
    from worksheet.results import chosen_experiment, load_experiment

    made = {}
    for label, path in WORKSHEETS.items():
        ws = load_worksheet(path)
        chosen = chosen_experiment(None, ws)
        made[label] = compute_values(ws, None if chosen is None else
                                     load_experiment(chosen, ws))
    return made


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
        assert _filled(caption, fresh[label]) == caption["text"]


def _filled(caption: dict[str, Any], values: Any) -> str:
    """The caption's template filled from fresh values; a counted slot (``{n:head}``,
    ``{n:all sentence}``, ``{n:?is}``) becomes the English its count needs."""
    parts = []
    for literal, slot, spec, _ in Formatter().parse(caption["template"]):
        parts.append(literal)
        if slot is None:
            continue
        if slot in caption["words"]:
            parts.append(caption["words"][slot])
            continue
        key = caption["slots"][slot]
        text, count = values.text(key), values.value(key)
        if not spec:
            parts.append(text)
        elif spec.startswith("?"):
            parts.append(_ENGLISH.plural_verb(spec[1:], count))
        elif spec.startswith("all "):
            noun = _ENGLISH.plural(spec[4:], count)
            parts.append(f"both {noun}" if count == 2 else f"all {text} {noun}")
        else:
            parts.append(f"{text} {_ENGLISH.plural(spec, count)}")
    return "".join(parts)


@pytest.mark.parametrize(("label", "name"), CASES)
def test_on_screen_text_shows_only_bound_numbers(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            assert _unbound_digits(text["text"], text["figures"], text["words"]) == "", \
                (section["name"], text["text"])


def assert_in_frame_without_overlaps(section: dict[str, Any]) -> None:
    """Every text of a dry run's section lies inside the frame, and no two overlap."""
    boxes = [(t["text"], t["box"]) for t in section["texts"]]
    for text, (left, bottom, right, top) in boxes:
        assert -HALF_WIDTH <= left and right <= HALF_WIDTH, (section["name"], text)
        assert -HALF_HEIGHT <= bottom and top <= HALF_HEIGHT, (section["name"], text)
    for (a, box_a), (b, box_b) in combinations(boxes, 2):
        width = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
        height = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
        assert width <= 0.01 or height <= 0.01, (section["name"], a, b)


HALL_GLYPH = 0.025
"""The least height of a figure's glyph box, as a share of the frame's height: legible from
the back of a lecture hall (27 px at 1080p, 12 px at 480p). Every scene is held to it on
every worksheet it runs on; ``bench/hall.py --glyphs`` counts a build's figures below it."""


def small_figures(manifest: dict[str, Any]) -> list[tuple[str, str, str, float]]:
    """The figures of a manifest whose glyph box is shorter than :data:`HALL_GLYPH` of its
    frame: (section, key, text, height in pixels)."""
    least = HALL_GLYPH * manifest["frame_size"][1]
    return [(section["name"], figure["key"], figure["text"],
             round(figure["box"][3] - figure["box"][1], 1))
            for section in manifest["sections"] for figure in section["figures"]
            if figure["box"][3] - figure["box"][1] < least]


def test_a_figure_below_the_hall_height_is_named() -> None:
    manifest = {"frame_size": [854, 480], "sections": [{"name": "sum", "figures": [
        {"key": "a", "text": "0.718", "box": [10, 100, 40, 112.0]},
        {"key": "b", "text": "6.9", "box": [10, 200, 30, 211.5]}]}]}
    assert small_figures(manifest) == [("sum", "b", "6.9", 11.5)]


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_figure_is_legible_from_the_back_of_a_hall(shown, label: str, name: str) -> None:
    small = small_figures(_result(shown, label, name)["manifest"])
    assert small == [], f"{len(small)} figures below {HALL_GLYPH:.1%} of the frame: {small[:5]}"


@pytest.mark.parametrize(("label", "name"), CASES)
def test_layout_fits_the_frame_without_overlaps(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        assert_in_frame_without_overlaps(section)


@pytest.mark.parametrize(("label", "name"), CASES)
def test_at_rest_no_text_touches_another_and_no_edge_strikes_a_text(shown, label: str,
                                                                    name: str) -> None:
    """After every animation and at every section end (the dry run's watch)."""
    faults = _result(shown, label, name)["faults"]
    assert faults == [], "\n".join(faults[:10])


@pytest.mark.parametrize(("label", "name"), CASES)
def test_no_sentence_is_spoken_over_an_empty_screen(shown, label: str, name: str) -> None:
    """After every animation that ends while a sentence is spoken, something stands under
    the title: a sentence never goes on over a blank or faded-out picture."""
    result = _result(shown, label, name)
    for caption in result["manifest"]["captions"]:
        for moment, count in result["rests"]:
            if caption["start"] < moment < caption["end"] - 1e-3:
                assert count > 0, (caption["text"], moment)


def pointer_faults(captions: list[dict[str, Any]],
                   pointed: list[list[Any]]) -> list[str]:
    """Issue 24's pointer rule: an outline that points appears while a sentence is spoken,
    and is gone as the sentence after next begins (the next may still be about it: it
    goes with that sentence's first animation at the latest); a pointer swapped for the
    next inside one animation is within its sentence."""
    faults = []
    for _, first, last in pointed:
        if first is None:  # shown and gone again within one (cued) animation
            continue
        said = [k for k, c in enumerate(captions)
                if c["start"] - TIME_SLACK <= first <= c["end"] + TIME_SLACK]
        if not said:
            faults.append(f"a pointer appears at {first:.2f} s, between sentences")
            continue
        k = said[0]
        if k + 2 < len(captions) and last > captions[k + 2]["start"] + TIME_SLACK:
            faults.append(f"the pointer of “{captions[k]['text']}” stays until {last:.2f} s, "
                          f"into the sentence after next, at {captions[k + 2]['start']:.2f} s")
    return faults


TIME_SLACK = 0.01
"""Seconds: animation ends and caption times are rounded to the millisecond."""


@pytest.mark.parametrize(("label", "name"), CASES)
def test_a_pointer_appears_in_its_sentence_and_is_gone_when_the_one_after_next_begins(
        shown, label: str, name: str) -> None:
    result = _result(shown, label, name)
    assert pointer_faults(result["manifest"]["captions"], result["pointed"]) == []


def test_the_pointer_rule_sees_a_late_pointer_and_one_that_stays() -> None:
    captions = [{"text": t, "start": s, "end": e}
                for t, s, e in (("one", 0.0, 2.0), ("two", 2.5, 4.0), ("three", 4.5, 6.0))]
    assert pointer_faults(captions, [[0, 1.0, 4.5], [1, None, None]]) == []
    assert len(pointer_faults(captions, [[0, 2.2, 3.0]])) == 1  # between sentences
    assert len(pointer_faults(captions, [[0, 1.0, 5.0]])) == 1  # into the third


def test_the_still_rule_sees_a_change_of_place_or_colour_but_not_an_unseen_one() -> None:
    from manim import RIGHT, Square

    from tests.crossing import drawn

    square = Square()
    before = drawn([square])
    assert drawn([square.copy()]) == before
    assert drawn([square.copy().shift(RIGHT)]) != before
    assert drawn([square.copy().set_color("#D55E00")]) != before
    assert drawn([square, Square().set_opacity(0)]) == before  # drawn, but not to be seen


def test_the_layout_rules_see_a_touch_and_a_strike_but_not_an_outline_around() -> None:
    from manim import LEFT, RIGHT, Line, SurroundingRectangle, Text

    from tests.crossing import layout_faults

    share = Text("share", font_size=24)
    touching = Text("−2.228", font_size=24).next_to(share, RIGHT, buff=0.01)
    apart = Text("−2.228", font_size=24).next_to(share, RIGHT, buff=0.2)
    assert len(layout_faults([share, touching])) == 1
    assert layout_faults([share, apart]) == []
    assert layout_faults([share, SurroundingRectangle(share, buff=0.08)]) == []
    assert len(layout_faults([share, SurroundingRectangle(share, buff=0.0)])) == 1
    struck = Line(LEFT * 3, RIGHT * 3).move_to(share)
    assert len(layout_faults([share, struck])) == 1
    line = Text("= [8.4, 2.4]", font_size=24)  # glyphs: "=", "[", "8", …; spaces draw none
    assert layout_faults([line, SurroundingRectangle(line[1:], buff=0.05)]) == []
    assert len(layout_faults([line, SurroundingRectangle(line[2:], buff=0.05)])) == 1


@pytest.mark.parametrize("name", [e.name for e in ENTRIES["markup"]
                                  if ("markup", e.name) in CASES])
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


# ----------------------------------------------------------------- teaching rules (issue 10)
# Independent of the kit's own bookkeeping where it can be: contrast is recomputed here from
# the WCAG formula, and the subtitle band and still limit are restated as numbers.

SUBTITLE_BAND_TOP = -HALF_HEIGHT + 0.15 * 2 * HALF_HEIGHT  # the bottom 15% of the frame
STILL_LIMIT = 8.0
OKABE_ITO_HEADS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7")


def _wcag(first: str, second: str) -> float:
    def lum(colour: str) -> float:
        rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((lum(first), lum(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_matches_wcag_examples() -> None:
    assert _wcag("#FFFFFF", "#000000") == pytest.approx(21.0)
    assert _wcag("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)  # WCAG's own example


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_text_stands_out_from_what_is_behind_it(shown, label: str, name: str) -> None:
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            assert text["colours"], (section["name"], text["text"])
            for colour in text["colours"]:
                ratio = _wcag(colour, text["behind"])
                assert ratio >= 4.5, (section["name"], text["text"], colour, text["behind"],
                                      round(ratio, 2))


@pytest.mark.parametrize(("label", "name"), CASES)
def test_nothing_is_drawn_in_the_subtitle_band(shown, label: str, name: str) -> None:
    lowest = _result(shown, label, name)["manifest"]["lowest"]
    assert lowest["y"] is not None
    assert lowest["y"] >= SUBTITLE_BAND_TOP - 1e-6, lowest
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            assert text["box"][1] >= SUBTITLE_BAND_TOP - 1e-6, (section["name"], text["text"])


@pytest.mark.parametrize(("label", "name"), CASES)
def test_no_still_stretch_is_longer_than_the_limit(shown, label: str, name: str) -> None:
    """As the stills meter measures a clip: a still lasts until the picture changes, not
    until the next animation (one that ends where it began shows nothing new)."""
    result = _result(shown, label, name)
    start, end = result["manifest"]["longest_still"]
    assert end - start <= STILL_LIMIT + 1e-6, (start, end)
    edges = [0.0, *(t for change in sorted(result["changes"]) for t in change),
             max([float(end), *(c["end"] for c in result["manifest"]["captions"])])]
    stills = [(a, b) for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a]
    assert [(a, b) for a, b in stills if b - a > STILL_LIMIT + 1e-6] == []


@pytest.mark.parametrize(("label", "name"), CASES)
def test_negative_numbers_have_their_own_colour(shown, label: str, name: str) -> None:
    negative, other = set(), set()
    for section in _result(shown, label, name)["sections"]:
        for text in section["texts"]:
            for (_, shown_text), colour in zip(text["figures"], text["figure_colours"],
                                               strict=True):
                (negative if shown_text.startswith("\u2212") else other).add(colour)
    assert len(negative) <= 1, negative  # one colour of their own...
    assert not negative & set(OKABE_ITO_HEADS), negative  # ...not a head's...
    assert not negative & other, negative  # ...and no other number's


def _section_at(manifest: dict[str, Any], moment: float) -> dict[str, Any]:
    for section in manifest["sections"]:
        if (section["frame"] + 1) / manifest["frame_rate"] >= moment - 1e-6:
            return section
    return manifest["sections"][-1]


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_number_a_caption_states_is_on_screen(shown, label: str, name: str) -> None:
    manifest = _result(shown, label, name)["manifest"]
    for caption in manifest["captions"]:
        section = _section_at(manifest, (caption["start"] + caption["end"]) / 2)
        on_screen = {figure["text"] for figure in section["figures"]}
        for figure in caption["figures"]:
            assert figure["text"] in on_screen, (caption["text"], figure, section["name"])


_SINGULAR = r"(head|sentence|token|row|column|coordinate|tensor|parameter|word|source|key|" \
            r"query|value|patch|model|step|number|position|feature)"
_BAD_ENGLISH = (
    re.compile(r"\b1 " + _SINGULAR[:-1] + r"|quer)(s|ies)\b"),  # "1 heads"
    re.compile(r"\ball 2\b"),                            # "all 2 sentences": both
    re.compile(r"\bhead count\b"),
    re.compile(r"\b(\d+) of the \1\b"),                  # "10 of the 10"
    re.compile(r"\b([2-9]|\d\d+) " + _SINGULAR + r"\b(?!s)(?! [a-z]+s\b)"),  # "2 head",
    # but not a noun used as an adjective: "4 coordinate products", "10 query rows"
    re.compile(r"\bdivides? by \d+\.0+\b"),              # "divides by 2.000"
)


@pytest.mark.parametrize(("label", "name"), CASES)
def test_captions_count_in_good_english(shown, label: str, name: str) -> None:
    for caption in _result(shown, label, name)["manifest"]["captions"]:
        text = caption["text"]
        for slot, word in caption["words"].items():
            if "__" not in slot:  # a worksheet's own word ("head 2"), not a count's noun
                text = text.replace(word, "…")
        for pattern in _BAD_ENGLISH:
            assert not pattern.search(text), (pattern.pattern, caption["text"])


OPENING_WORDS = 5
"""How many words of a clip's first sentence make its opening."""


@pytest.mark.parametrize("label", list(WORKSHEETS))
def test_no_opening_sentence_starts_more_than_three_clips(label: str) -> None:
    results = run_scenes([(e, WORKSHEETS[label]) for e in ENTRIES[label]
                          if (label, e.name) in CASES])
    openings: dict[str, list[str]] = {}
    for (_, name), result in results.items():
        assert result["error"] is None, result["error"]
        first = result["manifest"]["captions"][0]["template"]
        openings.setdefault(" ".join(first.split()[:OPENING_WORDS]), []).append(name)
    assert all(len(names) <= 3 for names in openings.values()), \
        {opening: names for opening, names in openings.items() if len(names) > 3}


def _words_beside_numbers(caption: dict[str, Any]) -> list[str]:
    """The words of a caption outside its numbers (a figure that is a sentence counts, and
    so does "=", which is said "equals")."""
    text = caption["text"]
    for figure in caption["figures"]:
        if not re.search(r"[A-Za-z]", figure["text"]):
            text = text.replace(figure["text"], " ", 1)
    return re.findall(r"[A-Za-z][\w′'’]+|=", text)


@pytest.mark.parametrize(("label", "name"), CASES)
def test_no_caption_is_a_bare_list_of_numbers(shown, label: str, name: str) -> None:
    for caption in _result(shown, label, name)["manifest"]["captions"]:
        assert len(_words_beside_numbers(caption)) >= 2, caption["text"]


def test_a_bare_list_is_told_from_a_sentence() -> None:
    def caption(text: str, *figures: str) -> dict[str, Any]:
        return {"text": text, "figures": [{"text": f} for f in figures]}

    assert _words_beside_numbers(caption("[2.023, 0.075].", "2.023", "0.075")) == []
    assert len(_words_beside_numbers(caption("giving [1.68, 1.37].", "1.68", "1.37"))) == 1
    assert len(_words_beside_numbers(caption("Head 2 gives “river” 0.718.", "2",
                                             "0.718"))) == 3
    assert len(_words_beside_numbers(caption("Both models beat the MLP.",
                                             "Both models beat the MLP"))) == 5


def test_the_english_rules_catch_what_the_review_found() -> None:
    found = ["all 2 sentences", "10 of the 10 parameter tensors", "with head count 2",
             "divides by 2.000", "1 heads", "3 head", "1 queries"]
    for text in found:
        assert any(p.search(text) for p in _BAD_ENGLISH), text
    for text in ("both sentences", "all 3 sentences", "1 head", "2 heads", "10 of 12",
                 "Head 1 has", "1 is", "4 coordinate products", "10 query rows"):
        assert not any(p.search(text) for p in _BAD_ENGLISH), text


@pytest.mark.parametrize(("label", "name"), [(label, "RolesAndShapes") for label in WORKSHEETS])
def test_the_overview_maps_the_model_and_shows_one_head_as_code(shown, label: str,
                                                               name: str) -> None:
    sections = {s["name"]: s["texts"] for s in _result(shown, label, name)["sections"]}
    heads = load_worksheet(WORKSHEETS[label]).n_heads
    model = [t["text"] for t in sections["the model"]]
    for stage in ("token", "+ position", "concat", "W_O", "residual", "E + ΔE", "MLP", "next",
                  "word"):
        assert stage in model, stage
    assert sorted(t for t in model if t.startswith("Head ")) == \
        sorted(f"Head {h}" for h in range(1, heads + 1))
    listing = [t["text"] for t in sections["one head in code"]]
    for line in ("def head(E, W_Q, W_K, W_V):", "Q, K, V = E @ W_Q, E @ W_K, E @ W_V",
                 "A = scores.masked_fill(future, -torch.inf).softmax(-1)", "return A @ V",
                 "joined = torch.cat(H, dim=-1)"):
        assert line in listing, line
    assert len([t for t in listing if t.startswith("Head ")]) == heads


@pytest.mark.parametrize(("label", "name"), [(label, "AttentionGrids") for label in WORKSHEETS])
def test_the_grids_scene_retitles_when_the_topic_changes(shown, label: str, name: str) -> None:
    from scenes.kit import TITLE_SIZE

    titles = {t["text"] for s in _result(shown, label, name)["sections"]
              for t in s["texts"] if abs(t["font_size"] - TITLE_SIZE) < 0.5}
    assert len(titles) >= 3, titles


@pytest.mark.parametrize(("label", "name"), [("default", "ConcatOutputResidual")])
def test_w_o_writes_head_twos_person_coordinate_into_water(shown, label: str,
                                                            name: str) -> None:
    """Head 2 reads the person and glue coordinates (its W_V picks rows three and four),
    so its first message coordinate is the person one; W_O's row for it has a non-zero
    entry in the water column: the scene follows that path with the actual product."""
    from tests.reference import sentence

    ws = load_worksheet(DEFAULT_WORKSHEET)
    doc = ws.document
    assert ws.lesson.features[2] == "person" and ws.lesson.features[0] == "water"
    river = sentence(doc, ws.walkthrough)
    message = river["heads"][1]["H"][-1][0]  # head 2's first coordinate, the person one
    entry = np.float64(doc["headsLesson"]["W_O"][2][0])  # row 3: head 2's first row
    expected = {"m": f"{message:.3f}", "w": f"{entry:g}", "t": f"{message * entry:.3f}"}
    manifest = _result(shown, label, name)["manifest"]
    product = next(c for c in manifest["captions"] if "×" in c["template"]
                   and c["words"] == {"f": "person", "g": "water"})
    said = {f["key"]: f["text"] for f in product["figures"]}
    assert {slot: said[product["slots"][slot]] for slot in expected} == expected, \
        (product["text"], expected)
    mixing = next(s for s in manifest["sections"] if s["name"] == "mixing")
    on_screen = {f["key"]: f["text"] for f in mixing["figures"]}
    assert on_screen[f"{ws.walkthrough}.update_terms[2][0]"] == expected["t"]
    assert on_screen["params.W_O[2][0]"] == expected["w"]


@pytest.mark.parametrize(("label", "name"), CASES)
def test_each_part_opens_on_the_model_map_with_its_steps_lit(shown, label: str,
                                                             name: str) -> None:
    from outline import PARTS

    entries = ENTRIES[label]
    entry = next(e for e in entries if e.name == name)
    first = next(e for e in entries if e.part == entry.part) is entry
    steps = next(p.steps for p in PARTS if p.id == entry.part)
    manifest = _result(shown, label, name)["manifest"]
    if name in ("ReceiverProjections", "OneWideHead"):  # they draw their own, heads lit
        assert manifest["where"] == [] and steps == ("heads",)
    elif name == "TrainedComparison":  # its models are not the worksheet's: no worksheet map
        assert manifest["where"] == []
    else:
        assert manifest["where"] == (list(steps) if first else [])


@pytest.fixture(scope="session")
def numpy_values() -> dict[str, Any]:
    """Every value, recomputed in plain numpy float64 from each worksheet's document."""
    from tests import reference

    return {label: reference.worksheet_values(load_worksheet(path).document)
            for label, path in WORKSHEETS.items()}


def _numpy_at(numpy: dict[str, Any], key: str) -> float:
    from tests import reference
    from worksheet import Style

    return float(reference.expected_at(numpy, key, Style.FIXED3))


@pytest.mark.parametrize(("label", "name"), CASES)
def test_every_weight_bar_is_as_long_as_its_weight(shown, numpy_values, label: str,
                                                   name: str) -> None:
    """A bar's length, read at the scale its picture has on screen, is the weight numpy
    recomputes (or the shortest bar, for a weight too small to see)."""
    for section in _result(shown, label, name)["manifest"]["sections"]:
        for bar in section["bars"]:
            weight = _numpy_at(numpy_values[label], bar["key"])
            assert bar["drawn"] == pytest.approx(max(weight, bar["floor"]), abs=2e-6), \
                (section["name"], bar)


def _bars(manifest: dict[str, Any], section: str) -> set[tuple[str, str]]:
    """``(key, colour)`` of the weight bars on screen at the end of ``section``."""
    return {(b["key"], b["colour"]) for s in manifest["sections"] if s["name"] == section
            for b in s["bars"]}


@pytest.mark.parametrize(("label", "name"),
                         [(label, "OneWideHead") for label in WORKSHEETS])
def test_the_wide_head_and_each_head_give_every_source_a_bar_side_by_side(
        shown, label: str, name: str) -> None:
    from scenes.kit import HEAD_COLOURS

    ws = load_worksheet(WORKSHEETS[label])
    bars = _bars(_result(shown, label, name)["manifest"], "compare")
    s, count = ws.walkthrough, len(ws.sentences[ws.walkthrough])
    wide = {key for key, colour in bars if ".wide." in key and colour not in HEAD_COLOURS}
    assert wide == {f"{s}.wide.weights[{j}]" for j in range(count)}
    heads = bars - {(key, colour) for key, colour in bars if key in wide}
    assert heads == {(f"{s}.h{h}.weights[{j}]", HEAD_COLOURS[h - 1])
                     for h in range(1, ws.n_heads + 1) for j in range(count)}


@pytest.mark.parametrize(("label", "name"), [("default", "OneHeadTwoHeads")])
def test_the_toy_draws_the_shared_row_and_each_heads_row_as_bars(shown, label: str,
                                                                 name: str) -> None:
    from scenes.kit import HEAD_COLOURS, MUTED

    manifest = _result(shown, label, name)["manifest"]
    shared = {("toy.weights[0][0]", MUTED), ("toy.weights[0][1]", MUTED)}
    assert _bars(manifest, "one mixture") == shared
    assert _bars(manifest, "two mixtures") == shared | {
        (f"toy.weights[{head}][{source}]", HEAD_COLOURS[head])
        for head in (0, 1) for source in (0, 1)}
