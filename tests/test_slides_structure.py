"""The deck as plain data: stacks per lesson part, fragments where the lesson steps, notes
everywhere, switchers whose panels hold exactly their sentence's and head's numbers."""

from __future__ import annotations

import re
from base64 import b64decode
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

import pytest

from outline import PARTS, lecture_order
from slides.context import (
    Agenda,
    Block,
    Code,
    Deck,
    Formula,
    Math,
    Num,
    Panel,
    Para,
    Picture,
    Slide,
    Switch,
    Text,
    Video,
)
from slides.deck import Clip, deck_context
from slides.lesson import BUILDERS
from slides.lesson.openings import OWN_OPENINGS
from tests import reference
from tests.conftest import THREE_HEADS
from worksheet import Values, Worksheet, compute_values, load_worksheet


@pytest.fixture(scope="module")
def three_ws() -> Worksheet:
    return load_worksheet(THREE_HEADS)


@pytest.fixture(scope="module")
def three_deck_values(three_ws: Worksheet) -> Values:
    return compute_values(three_ws)


@pytest.fixture(scope="module")
def default_deck(default_ws: Worksheet, default_values: Values) -> Deck:
    return deck_context(default_ws, default_values)


@pytest.fixture(scope="module")
def three_deck(three_ws: Worksheet, three_deck_values: Values) -> Deck:
    return deck_context(three_ws, three_deck_values)


def walk(node: Any, step: int | None = None) -> Iterator[tuple[Any, int | None]]:
    """Every dataclass and inline item under ``node``, with the reveal step it appears at."""
    if isinstance(node, tuple):
        for item in node:
            yield from walk(item, step)
        return
    if not is_dataclass(node):
        return
    own = getattr(node, "fragment", None)
    step = own if own is not None else step
    yield node, step
    for field in fields(node):
        yield from walk(getattr(node, field.name), step)


def nums(node: Any) -> list[tuple[str, int | None]]:
    return [(item.key, step) for item, step in walk(node) if isinstance(item, Num)]


def slide(deck: Deck, id: str) -> Slide:
    return next(s for s in deck.slides if s.id == id)


def active_panel(s: Slide) -> Panel:
    return next(p for item, _ in walk(s.blocks) if isinstance(item, Switch)
                for p in item.panels if p.active)


def first_step(keys: list[tuple[str, int | None]], pattern: str) -> int:
    found = [step for key, step in keys if re.search(pattern, key) and step is not None]
    assert found, pattern
    return min(found)


# ------------------------------------------------------------------ stacks and slides


@pytest.mark.parametrize("which", ["default", "three"])
def test_every_lesson_part_has_its_stacks_with_the_expected_slides(which, request) -> None:
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    ws: Worksheet = request.getfixturevalue("default_ws" if which == "default" else "three_ws")
    heads = ws.n_heads
    assert set(BUILDERS) == {part.id for part in PARTS}
    parts = [stack.part for stack in deck.stacks]
    assert list(dict.fromkeys(parts)) == [part.id for part in PARTS] + ["references"]
    counts = {stack.id: len(stack.slides) for stack in deck.stacks}
    # Issue 11: each stack opens on a title slide (the prompt's is the deck's title), and
    # the deck closes on its references.
    expected = {
        # query, key and value are defined where one head is first opened
        # the recall of query, key and value comes right after the prompt: one slide, its
        # title slide, that holds the Maya example and the three roles
        "prompt": 2, "recall": 0, "details": 5, "one-two-heads": 4, "readings": heads + 1,
        # the projections end on one packed projection split into heads and the features
        # each head reads
        "roles-shapes": 4, "projections": heads + 3,
        # Issue 11: head 1 goes through every step; a later head's stack goes again through
        # them with its own numbers, its weighted values included so its message can be
        # checked. The first head's softmax is followed by why the scores are scaled and the
        # stable softmax. The wide head ends on its message beside the heads'; the
        # prediction shows the readout and softmax before the vocabulary's bars.
        "head-1": 9, **{f"head-{h}": 5 for h in range(2, heads + 1)},
        "wide-head": 4, "combine": 5, "prediction": 3, "other-context": 3, "grids": 8,
        # PyTorch's layer adds what its block leaves out; the patches add colour patches.
        # Without an experiment, the trained stack: the models drawn, the padding mask,
        # where the parameters are, what a comparison measures.
        "bias": 2, "pytorch": 4, "trained": 4 + len(ws.lesson.trained.heads), "patches": 5,
        # The lab's library stack: PyTorch's layer swapped into the whole model and checked,
        # the batch's tensors inside its call drawn; then cross-attention.
        "lab-batch": 5, "lab-training": 2, "lab-library": 2,
    }
    expected = {stack: count + (stack != "prompt") for stack, count in expected.items()}
    assert counts == {**expected, "references": 1}
    for stack in deck.stacks:
        assert stack.slides[0].role == "title", stack.id
    assert [s.head for s in deck.stacks if s.part == "head-walkthrough"] == \
        list(range(1, heads + 1))


@pytest.mark.parametrize("which", ["default", "three"])
def test_each_stack_opens_on_the_model_map_with_its_parts_steps_lit(which, request) -> None:
    """Issue 24: a title slide orients as its part's first clip does: the model map with
    the part's steps lit (one head's box in a head's stack), the part's opening sentence,
    then the agenda; the lab's later stacks, which cover other ground than the part's clip,
    each with steps and a sentence of their own."""
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    ws: Worksheet = request.getfixturevalue("default_ws" if which == "default" else "three_ws")
    for stack in deck.stacks:
        first = stack.slides[0]
        if not any(isinstance(block, Agenda) for block in first.blocks):
            continue  # the deck's own title and the references
        lesson_part = next(p for p in PARTS if p.id == stack.part)
        steps, opening = OWN_OPENINGS.get(stack.id, (lesson_part.steps, lesson_part.opening))
        picture, *rest = first.blocks
        assert isinstance(picture, Picture), stack.id
        lit = [shape for shape in picture.shapes if getattr(shape, "role", "") == "lit"]
        heads = 0 if "heads" not in steps else 1 if stack.head else ws.n_heads
        assert len(lit) == len(steps) - ("heads" in steps) + heads, stack.id
        said = [block for block in rest if isinstance(block, Para)]
        shown = "".join(run.text if isinstance(run, Text) else run.tex
                        for block in said for run in block.runs)
        assert shown == opening, stack.id
        assert isinstance(rest[-1], Agenda), stack.id


LAB_MOST = 12
"""Issue 11: the lab's slides, titles included, once it stopped repeating the lecture (the
library stack's swap and its check of the whole model share one slide)."""


@pytest.mark.parametrize("which", ["default", "three"])
def test_the_lab_is_short_and_every_content_slide_shows_a_picture_or_a_listing(
        which, request) -> None:
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    lab = [s for stack in deck.stacks if stack.part == "lab" for s in stack.slides]
    assert 0 < len(lab) <= LAB_MOST, [s.id for s in lab]
    for s in (s for s in lab if s.role != "title"):
        blocks = [item for item, _ in walk(s.blocks) if isinstance(item, Block)]
        listings = [b for b in blocks if isinstance(b, Code)]
        assert not (len(s.blocks) == 1 and sum(len(b.lines) for b in listings) == 1), s.id
        assert listings or any(isinstance(b, Picture) for b in blocks), s.id
        annotated = [line for b in listings for line in b.lines
                     if any("#" in getattr(run, "text", "") and not isinstance(run, Num)
                            for run in line)]
        assert annotated, f"{s.id}: its listing carries no annotation"
        said = " ".join("".join(getattr(run, "text", "") for run in note) for note in s.notes)
        sentences = re.split(r"(?<=[.!?])\s+", said.strip())
        assert 2 <= len(sentences) <= 4, (s.id, sentences)


def test_the_lab_listings_annotate_each_batch_tensor_with_its_shape(default_deck: Deck) -> None:
    lab = [s for s in default_deck.slides if s.id.startswith("lab-batch-")]
    keys = {run.key for s in lab for block, _ in walk(s.blocks) if isinstance(block, Code)
            for line in block.lines for run in line if isinstance(run, Num)}
    assert {f"lab.shape.{name}" for name in ("X", "E", "Q", "Q_split", "Q_heads", "scores",
                                             "messages", "joined", "delta", "logits")} <= keys
    assert "lab.A_weights" in keys


def test_slide_ids_are_unique_and_every_slide_has_speaker_notes(default_deck: Deck,
                                                                   three_deck: Deck) -> None:
    for deck in (default_deck, three_deck):
        ids = [s.id for s in deck.slides]
        assert len(ids) == len(set(ids))
        for s in deck.slides:
            text = "".join(getattr(item, "text", "") for item, _ in walk(s.notes))
            assert len(text) > 40, s.id
            assert s.title, s.id


def test_every_number_shows_an_independent_numpy_recomputation(
        default_deck: Deck, default_ws: Worksheet, default_values: Values, three_deck: Deck,
        three_ws: Worksheet, three_deck_values: Values) -> None:
    """Each bound number's text shows, to its last digit, what plain numpy recomputes from
    the worksheet for its key (the style only says how it is written)."""
    for deck, ws, values in ((default_deck, default_ws, default_values),
                             (three_deck, three_ws, three_deck_values)):
        numpy = reference.worksheet_values(ws.document)
        found = [item for item, _ in walk(deck.stacks) if isinstance(item, Num)]
        assert len(found) > 1000
        for num in found:
            style = values[num.key].style
            assert reference.within_display(num.text, style,
                                            reference.expected_at(numpy, num.key, style)), \
                (num.key, num.text)


def test_prose_and_formulas_written_for_the_deck_contain_no_digit(default_deck: Deck,
                                                                   three_deck: Deck) -> None:
    for deck in (default_deck, three_deck):
        for item, _ in walk(deck.stacks):
            if isinstance(item, Text):
                assert not re.search(r"\d", item.text), item.text
            if isinstance(item, (Math, Formula)):
                assert not re.search(r"\d", item.tex), item.tex


def test_the_lesson_formulas_are_there(default_deck: Deck) -> None:
    tex = " ".join(item.tex for item, _ in walk(default_deck.stacks)
                   if isinstance(item, (Math, Formula)))
    for formula in (r"A = \operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)",
                    "H = AV", r"\Delta E = \operatorname{Concat}_h\!\left(H^{(h)}\right)\, W_O",
                    r"E' = E + \Delta E",
                    r"\alpha_j = \frac{e^{s_j}}{\sum_{j'} e^{s_{j'}}}",
                    r"m = \sum_j \alpha_j\, v_j", r"\Delta e = \sum_h m^{(h)}\, W_O^{(h)}",
                    r"\text{perplexity} = \exp(\text{cross-entropy})"):
        assert formula in tex, formula


# ------------------------------------------------------------------ fragments


def test_dot_products_appear_source_by_source(default_deck: Deck, default_ws: Worksheet,
                                              ) -> None:
    keys = nums(active_panel(slide(default_deck, "head-1-dots")).blocks)
    steps = [first_step(keys, rf"\.dots\[{j}\]$") for j in range(default_ws.length)]
    assert steps == sorted(set(steps)) and len(steps) == default_ws.length


def test_exponentials_come_before_the_denominator_and_the_weights(default_deck: Deck) -> None:
    keys = nums(active_panel(slide(default_deck, "head-1-softmax")).blocks)
    scores, exps = first_step(keys, r"\.scores\["), first_step(keys, r"\.exps\[")
    denominator, weights = first_step(keys, r"\.denominator$"), first_step(keys, r"\.weights\[")
    assert scores < exps < denominator < weights


def test_contributions_come_before_their_sum(default_deck: Deck) -> None:
    keys = nums(active_panel(slide(default_deck, "head-1-contributions")).blocks)
    assert first_step(keys, r"\.contributions\[") < first_step(keys, r"\.message\[")


def test_messages_then_concatenation_then_w_o_then_residual(default_deck: Deck) -> None:
    keys = nums(slide(default_deck, "combine-together").blocks)
    messages = [first_step(keys, rf"\.h{h}\.message") for h in (1, 2)]
    assert messages[0] < messages[1]
    # then one move per slide, in order: the joined rows, W_O's update, the new row
    ids = [s.id for s in next(st for st in default_deck.stacks if st.id == "combine").slides]
    first = {}
    for pattern in (r"\.joined\[", r"\.delta\[", r"\.E_prime\["):
        first[pattern] = next(i for i, id in enumerate(ids) if any(
            re.search(pattern, key) for key, _ in nums(slide(default_deck, id).blocks)))
    assert ids.index("combine-together") < first[r"\.joined\["] < first[r"\.delta\["] \
        < first[r"\.E_prime\["]


def test_the_toy_reveals_one_head_then_two_then_the_required_weights(default_deck) -> None:
    keys = nums(slide(default_deck, "one-two-heads-toy").blocks)
    assert first_step(keys, r"toy\.one_head") < first_step(keys, r"toy\.two_heads") \
        < first_step(keys, r"toy\.required")


# ------------------------------------------------------------------ switchers


@pytest.mark.parametrize("which", ["default", "three"])
def test_switchable_slides_hold_a_panel_for_every_sentence_and_head(which, request) -> None:
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    ws: Worksheet = request.getfixturevalue("default_ws" if which == "default" else "three_ws")
    heads = [str(h) for h in range(1, ws.n_heads + 1)]
    switchable = [s for s in deck.slides if s.switcher is not None]
    walkthrough = [s for s in switchable if s.part == "head-walkthrough"]
    titles = [s for s in deck.slides if s.part == "head-walkthrough" and s.role == "title"]
    assert len(titles) == ws.n_heads and all(s.switcher is None for s in titles)
    assert len(walkthrough) == 9 + 5 * (ws.n_heads - 1)
    assert {s.id for s in switchable if s.part == "grids"} == \
        {"grids-project", "grids-heads", "grids-numbers", "grids-join"}
    for s in switchable:
        switcher = s.switcher
        assert [c.value for c in switcher.sentences] == list(ws.sentences)
        with_heads = bool(switcher.heads)
        if with_heads:
            assert [c.value for c in switcher.heads] == heads
        (switch,) = [item for item, _ in walk(s.blocks) if isinstance(item, Switch)]
        states = [(p.sentence, p.head) for p in switch.panels]
        expected = [(name, int(h) if with_heads else None) for name in ws.sentences
                    for h in (heads if with_heads else [None])]
        assert states == expected, s.id
        active = [p for p in switch.panels if p.active]
        assert [(p.sentence, p.head) for p in active] == [(switcher.sentence, switcher.head)]
        assert sum(c.chosen for c in switcher.sentences) == 1
        steps = {tuple(sorted({step for _, step in nums(p.blocks) if step is not None}))
                 for p in switch.panels}
        assert len(steps) == 1, f"{s.id}: panels reveal in different steps"
        for panel in switch.panels:
            for key, _ in nums(panel.blocks):
                if key.split(".")[0] in ws.sentences:
                    assert key.startswith(panel.sentence + "."), (s.id, key)
                head = re.search(r"\.h(\d+)\.", key)
                if head and panel.head is not None:
                    assert int(head[1]) == panel.head, (s.id, key)


def test_each_head_stack_shows_only_its_own_head(default_deck: Deck) -> None:
    for h in (1, 2):
        slides = next(st for st in default_deck.stacks if st.id == f"head-{h}").slides
        for s in slides[1:]:
            assert s.switcher.sentence == "river"
            heads = {int(m[1]) for key, _ in nums(s.blocks) if (m := re.search(r"\.h(\d+)\.",
                                                                              key))}
            assert heads == {h}, s.id


# ------------------------------------------------------------------ clips


def test_a_clip_closes_the_stack_of_its_part(default_ws: Worksheet,
                                             default_values: Values) -> None:
    entries = lecture_order(default_ws.n_heads)
    chosen = [e for e in entries if e.name in ("HeadWalkthrough2", "BiasFlag")]
    clips = [Clip(e, f"stem-{e.name}", Path("clip.mp4"), "WEBVTT\n", e.name.lower())
             for e in chosen]
    deck = deck_context(default_ws, default_values, clips)
    plain = deck_context(default_ws, default_values)
    assert len(deck.slides) == len(plain.slides) + 2
    stacks = {stack.id: stack for stack in deck.stacks}
    for stack_id, stem in (("head-2", "stem-HeadWalkthrough2"), ("bias", "stem-BiasFlag")):
        assert stacks[stack_id].slides[-1].role == "clip"
        (video,) = stacks[stack_id].slides[-1].blocks
        assert isinstance(video, Video)
        assert video.src == f"video/{stem}.mp4"
        assert video.digest == stem.removeprefix("stem-").lower()
        assert b64decode(video.captions.split(",", 1)[1]) == b"WEBVTT\n"
    assert not any(isinstance(item, Video) for item, _ in walk(plain.stacks))


def test_the_recall_clip_closes_its_own_stack_before_the_roles_clip(
        default_ws: Worksheet, default_values: Values) -> None:
    entries = {e.name: e for e in lecture_order(default_ws.n_heads)}
    # Given out of order: the deck follows the lecture, where the recall has its own part
    # right after the prompt, long before the roles and shapes.
    clips = [Clip(entries[name], f"stem-{name}", Path("clip.mp4"), None, name.lower())
             for name in ("RolesAndShapes", "MayaRecall")]
    deck = deck_context(default_ws, default_values, clips)
    plain = deck_context(default_ws, default_values)
    ids = [s.id for s in deck.stacks]
    assert ids.index("recall") < ids.index("roles-shapes")
    for stack_id, stem in (("recall", "stem-MayaRecall"), ("roles-shapes", "stem-RolesAndShapes")):
        stack = next(s for s in deck.stacks if s.id == stack_id)
        before = next(s for s in plain.stacks if s.id == stack_id)
        assert [s.id for s in stack.slides[-1:]] == [f"{stack_id}-clip"]
        assert stack.slides[-1].blocks[0].src == f"video/{stem}.mp4"
        assert stack.slides[:-1] == before.slides
    slide_ids = [s.id for s in deck.slides]
    assert len(slide_ids) == len(set(slide_ids)) == len(plain.slides) + 2


def test_a_part_of_several_stacks_shows_its_clip_once(default_ws: Worksheet,
                                                      default_values: Values) -> None:
    (entry,) = (e for e in lecture_order(default_ws.n_heads) if e.name == "BatchLab")
    deck = deck_context(default_ws, default_values,
                        [Clip(entry, "stem-BatchLab", Path("clip.mp4"), None, "batchlab")])
    videos = [s.id for s in deck.slides if s.blocks and isinstance(s.blocks[0], Video)]
    assert videos == [f"{next(s for s in deck.stacks if s.part == 'lab').id}-clip"]


# ------------------------------------------------------------------ speaker notes


def spoken(s: Slide) -> str:
    """A slide's notes as the lecturer reads them: words and figures, formulas as TeX."""
    return " ".join(getattr(item, "text", "") or getattr(item, "tex", "")
                    for item, _ in walk(s.notes))


@pytest.mark.parametrize("which", ["default", "three"])
def test_notes_are_a_script_of_their_own_on_every_slide(which, request) -> None:
    """Issue 11: the notes say what to say, differ from slide to slide, and a projection
    matrix in them is a formula, never plain text."""
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    mine = [s for s in deck.slides if not s.part.startswith("lab")]
    assert len(mine) > 60
    for s in mine:
        assert len(spoken(s).split()) >= 25, s.id
        plain = " ".join(item.text for item, _ in walk(s.notes) if isinstance(item, Text))
        assert not re.search(r"\bW_[OQKV]\b", plain), s.id
    notes = [spoken(s) for s in deck.slides]
    repeated = {n for n in notes if notes.count(n) > 1}
    assert repeated == set()


@pytest.mark.parametrize("which", ["default", "three"])
def test_a_later_head_recaps_the_steps_without_a_head_switcher(which, request) -> None:
    """Issue 11: the first head's stack has every step; a later one is a recap with its own
    numbers, and no stack offers another head's panels."""
    deck: Deck = request.getfixturevalue(f"{which}_deck")
    ws: Worksheet = request.getfixturevalue("default_ws" if which == "default" else "three_ws")
    stacks = {s.head: s for s in deck.stacks if s.part == "head-walkthrough"}
    steps = ["qk", "dots", "softmax", "scale", "stable", "weights", "values", "contributions",
             "message"]
    assert [s.id for s in stacks[1].slides] == ["head-1-title", *(f"head-1-{x}" for x in steps)]
    for h in range(2, ws.n_heads + 1):
        assert [s.id for s in stacks[h].slides] == \
            [f"head-{h}-title", *(f"head-{h}-{x}" for x in ("qk", "softmax", "weights",
                                                              "contributions", "message"))]
        keys = {key for s in stacks[h].slides for key, _ in nums(s.blocks)}
        assert any(key.startswith(f"{ws.walkthrough}.h{h}.") for key in keys)
        assert not any(re.search(r"\.h1\.", key) for key in keys), h
    for stack in stacks.values():
        for s in stack.slides[1:]:
            assert s.switcher is not None and s.switcher.heads == (), s.id
            assert s.switcher.head is None


def test_the_default_lecture_shows_the_bundled_results_and_the_live_models(
        default_ws: Worksheet) -> None:
    """With the bundled experiment: what the models learned from, the models, the padding
    mask, where the parameters are, the results, the continuations and the live slide."""
    from worksheet.results import BUNDLED, load_experiment

    values = compute_values(default_ws, load_experiment(BUNDLED, default_ws))
    deck = deck_context(default_ws, values, live=True)
    trained = next(stack for stack in deck.stacks if stack.id == "trained")
    heads = default_ws.lesson.trained.heads
    assert [slide.id for slide in trained.slides[1:]] == [
        "trained-corpus", "trained-mlp", *(f"trained-heads{h}" for h in heads),
        "trained-padding", "trained-width", "trained-perplexity", "trained-cost",
        "trained-continuations", "trained-live"]
