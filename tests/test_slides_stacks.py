"""The stacks the last student review scored 3 of 5, each defect it named checked on the
deck's data: the recall stands before the heads, the one-head picture says whose weights it
draws, crowded lanes keep their heaviest arcs, the toy's weights are in its picture, the
features are named where first used, every head's path runs through the shapes, the roles
slide adds each head's keys, the trained stack says what its samples are, a training step
is drawn, and cross-attention says what is new. Numbers are recomputed in numpy."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import numpy as np
import pytest
import torch

from slides.context import Deck, Label, Num, Rect, Table, Word
from slides.context import Path as Arc
from slides.deck import deck_context
from tests import reference
from tests.test_slides_pictures import WORKSHEETS, fresh, pictures_in, slide
from tests.test_slides_structure import walk
from worksheet import Worksheet, compute_values, load_worksheet

HALF = 0.0005 + 1e-9
"""How far a figure shown to three decimals may be from its exact value."""


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    ws = load_worksheet(WORKSHEETS[request.param])
    return {"ws": ws, "deck": deck_context(ws, compute_values(ws)),
            "ref": reference.worksheet_values(ws.document)}


@pytest.fixture(scope="module")
def measured(default_ws: Worksheet) -> Deck:
    from worksheet.results import BUNDLED, load_experiment

    return deck_context(default_ws, compute_values(default_ws,
                                                   load_experiment(BUNDLED, default_ws)))


def text(node: Any) -> str:
    """What a viewer reads in ``node``: prose, words and numbers, in order."""
    return "".join(getattr(item, "text", "") for item, _ in walk(node))


def value(num: Num) -> float:
    return float(num.text.replace("−", "-").replace(",", ""))


def nums(node: Any) -> list[Num]:
    return [item for item, _ in walk(node) if isinstance(item, Num)]


# ------------------------------------------------------------------ order


def test_the_recall_has_its_own_stack_right_after_the_prompt(case) -> None:
    """Part II's Maya example is recalled before the heads use query, key and value, in
    the stack of the lesson part "recall"; the roles-and-shapes stack no longer repeats it."""
    deck: Deck = case["deck"]
    ids = [stack.id for stack in deck.stacks]
    assert ids[ids.index("prompt") + 1] == "recall"
    recall = deck.stacks[ids.index("recall")]
    assert recall.part == "recall"
    assert any("Maya" in text(s.blocks) for s in recall.slides)
    roles = deck.stacks[ids.index("roles-shapes")]
    assert not any("Maya" in text(s.blocks) for s in roles.slides)


# ------------------------------------------------------------------ one head, several heads


def test_the_several_heads_lanes_colour_only_each_heads_heaviest_arcs(case) -> None:
    """Fewer lines to follow: each lane colours its heaviest arcs, which are the largest
    weights of a fresh softmax, and draws the lighter ones faint."""
    from slides.lesson.story import STRONGEST

    ws: Worksheet = case["ws"]
    s = ws.walkthrough
    several = slide(case["deck"], "one-two-heads-several-heads")
    (picture,) = pictures_in(several.blocks)
    for h in range(1, ws.n_heads + 1):
        drawn = {int(re.search(r"\[(\d+)\]", arc.draws)[1]) for arc in picture.shapes
                 if isinstance(arc, Arc) and arc.draws.startswith(f"{s}.h{h}.weights[")
                 and arc.tone == f"head-{h}"}
        faint = [arc for arc in picture.shapes if isinstance(arc, Arc)
                 and arc.draws.startswith(f"{s}.h{h}.weights[") and arc.tone == "faint"]
        weights = np.asarray(case["ref"][f"{s}.h{h}.weights"], dtype=float)
        assert len(drawn) == STRONGEST < ws.length == len(drawn) + len(faint)
        assert min(weights[sorted(drawn)]) >= max(np.delete(weights, sorted(drawn)))


# ------------------------------------------------------------------ readings


def test_the_features_are_named_on_the_first_slide_that_uses_them(case) -> None:
    """One line says what each coordinate of a token's row stands for, on the first slide
    where a feature's name appears (as the worksheet's word, not the English one)."""
    ws: Worksheet = case["ws"]
    features = list(ws.lesson.features)
    # a feature's name that is also a head's name or a word of the vocabulary is ambiguous
    only = set(features) - set(ws.lesson.head_names) - set(ws.vocab)
    first = next(s for s in case["deck"].slides if s.role != "title" and any(
        isinstance(item, Word) and item.text in only for item, _ in walk(s.blocks)))
    listed = ", ".join(features[:-1]) + " and " + features[-1]
    assert re.search(r"stands for one feature[^.]*: " + re.escape(listed) + r"\.",
                     text(first.blocks)), first.id


# ------------------------------------------------------------------ roles and shapes


def test_the_join_slide_puts_each_heads_messages_side_by_side(case) -> None:
    """Each head's message block in its colour, then the joined block, one row per token
    and every head's columns in that head's colour in head order, then the update as wide
    as the input rows; the slide calls it joining and names concatenation once."""
    ws: Worksheet = case["ws"]
    n, head = ws.length, ws.d_head
    join = slide(case["deck"], "roles-shapes-join")
    (picture,) = pictures_in(join.blocks)
    blocks = [s for s in picture.shapes if isinstance(s, Rect) and s.role == "block"]
    assert len(blocks) == ws.n_heads * n * head + n * ws.n_heads * head + n * ws.d_model
    columns = sorted({b.x for b in blocks})
    cell = blocks[0].w
    joined_left = columns[ws.n_heads * head]
    joined = sorted({(b.x, b.fill) for b in blocks if joined_left <= b.x
                     < joined_left + ws.n_heads * head * cell - 0.01})
    assert [fill for _, fill in joined] == [f"head-{c // head + 1}"
                                           for c in range(ws.n_heads * head)]
    rows = {b.y for b in blocks if b.x == joined_left}
    assert len(rows) == n
    said = " ".join(text(s.glyphs) for s in picture.shapes if isinstance(s, Label))
    assert "join" in said and "concat" not in said
    assert text(join.blocks).count("concatenation") == 1


def test_every_heads_path_runs_through_the_shapes_picture(case) -> None:
    """Each head's queries, scores, weights and messages are drawn in its colour (the
    first head in front, the others as layers behind), a legend names each head, and the
    mask is said to hide the sources after the receiver."""
    ws: Worksheet = case["ws"]
    shapes_slide = slide(case["deck"], "roles-shapes-shapes")
    (picture,) = pictures_in(shapes_slide.blocks)
    front = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "block"
             and r.fill == "head-1"]
    layers = [r for r in picture.shapes if isinstance(r, Rect) and r.role == "layer"]
    n, d = ws.length, ws.d_head
    # head 1's Q, K, V and H blocks, its scores and weights below the diagonal
    assert len(front) >= 4 * n * d + 2 * n * (n + 1) // 2
    for h in range(2, ws.n_heads + 1):  # behind Q, K, V, the scores, A and H
        assert len([r for r in layers if r.fill == f"head-{h}"]) == 6
    legend = [g.text for shape in picture.shapes if isinstance(shape, Label)
              for g in shape.glyphs]
    for name in ws.lesson.head_names:
        assert name in legend
    assert "hides the sources after the receiver" in text(shapes_slide.blocks)


def test_the_roles_slide_adds_each_heads_key_of_each_favourite_source(case) -> None:
    """New after the readings: the same token's key differs from head to head, and its
    score with the receiver's query follows; each figure equals a numpy recomputation."""
    ws: Worksheet = case["ws"]
    ref = case["ref"]
    s, last = ws.walkthrough, ws.length - 1
    roles = slide(case["deck"], "roles-shapes-roles")
    (table,) = [b for b in roles.blocks if isinstance(b, Table)]
    tops = list(dict.fromkeys(int(ref[f"{s}.h{h}.top_source"])
                              for h in range(1, ws.n_heads + 1)))
    E = reference.embed(ws.document, s)
    for h, row in enumerate(table.rows, 1):
        head = ws.document["headsLesson"]["projections"][h - 1]
        q = E[last] @ np.asarray(head["Q"], dtype=float)
        K = E @ np.asarray(head["K"], dtype=float)
        query, *keys = row.cells
        assert np.allclose([value(x) for x in nums(query.runs)], q, atol=HALF)
        for j, cell in zip(tops, keys, strict=True):
            *key, score = nums(cell.runs)
            assert np.allclose([value(x) for x in key], K[j], atol=HALF)
            assert abs(value(score) - q @ K[j] / np.sqrt(ws.d_head)) <= HALF
            assert score.key == f"{s}.h{h}.scores[{j}]"
            assert abs(value(score) - fresh(ref, score.key)) <= HALF
    assert "different key" in roles.title[0].text


# ------------------------------------------------------------------ trained, lab


def test_the_trained_stack_says_whose_run_the_lesson_reports_and_what_samples_are(
        measured: Deck) -> None:
    """Plain words for whose training the figures come from, and validation and checkpoint
    defined where the corpus is split; no slide speaks of "the original lesson"."""
    corpus = text(slide(measured, "trained-corpus").blocks)
    assert "We trained these models ourselves" in corpus and "we did not repeat" in corpus
    assert "for validation, text held out from training" in corpus
    assert "checkpoint (saved weights)" in corpus
    trained = next(stack for stack in measured.stacks if any(
        s.id == "trained-corpus" for s in stack.slides))
    for s in trained.slides:
        assert "original lesson" not in text(s.blocks), s.id
        assert "lesson this lecture follows" not in text(s.blocks), s.id
    continued = text(slide(measured, "trained-continuations").blocks)
    assert "Each line is a sample" in continued and "none is fluent" in continued
    assert "Notice" in continued


def test_the_cross_attention_slide_says_who_asks_and_what_is_new(case) -> None:
    after = slide(case["deck"], "lab-library-next")
    said = text(after.blocks)
    assert "translation" in said  # who gives the queries, who the keys and values
    assert "English written so far gives the queries" in said
    assert "German gives the keys and values" in said
    assert "no mask" in said
    # a real translation pair: every word being translated may reach the receiver, and the
    # lines say only that, not how much
    (picture,) = pictures_in(after.blocks)
    reach = [x for x in picture.shapes if getattr(x, "role", "") == "reach"]
    chips = [x for x in picture.shapes if getattr(x, "role", "") == "token"]
    assert reach and all(x.dashed for x in reach)
    top = min(x.y for x in chips)
    assert len(reach) == len([x for x in chips if x.y == top])
    assert "not how much" in said
    # the pair differs in length, and the weights' shape is the one torch gives for it:
    # one row per English word written, one column per German word being translated
    pair = case["ws"].lesson.translation
    german, english = len(pair.german), len(pair.english)
    assert german != english
    assert len([x for x in chips if x.y == top]) == german
    assert len([x for x in chips if x.y != top]) == english
    mha = torch.nn.MultiheadAttention(case["ws"].d_model, case["ws"].n_heads, bias=False)
    _, A = mha(torch.zeros(english, case["ws"].d_model), torch.zeros(german, case["ws"].d_model),
               torch.zeros(german, case["ws"].d_model))
    shown = {n.key: n.text for n, _ in walk(after.blocks) if isinstance(n, Num)}
    assert shown["lab.cross.shape.A"] == f"[{english}, {german}]" == str(list(A.shape))
    word, words = pair.contracted
    # the shape is told by the counts; the contracted pair only says why lengths may part
    assert f"{english} English words so far against {german} German" in said
    assert f"German “{word}” is English “{words}”" in said
    assert "each English row reading every German column" in said
    assert "the next step after this lecture" in said



# ------------------------------------------------------------------ the built page


class Paragraphs(HTMLParser):
    """Each slide's paragraphs in the built ``index.html``: the text a viewer reads (TeX
    source included) and its numbers, each with the value key it is bound to."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.slides: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {}
        self._slide: str | None = None
        self._para: list[str] | None = None
        self._nums: list[tuple[str, str]] = []
        self._key: str | None = None
        self._depth = 0
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "section" and attributes.get("id"):
            self._slide = attributes["id"]
            self.slides.setdefault(self._slide, [])
        elif tag == "p" and self._slide is not None:
            self._para, self._nums = [], []
        elif self._para is not None and tag == "span":
            self._depth += 1
            if attributes.get("data-key"):
                self._key = attributes["data-key"]
                self._nums.append((self._key, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "p" and self._para is not None and self._slide is not None:
            self.slides[self._slide].append(("".join(self._para), self._nums))
            self._para = None
        elif tag == "span" and self._para is not None:
            self._key = None

    def handle_data(self, data: str) -> None:
        if self._para is None:
            return
        self._para.append(data)
        if self._key is not None:
            key, shown = self._nums[-1]
            self._nums[-1] = (key, shown + data)


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def page(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> dict[str, Any]:
    from slides.deck import build_deck

    ws = load_worksheet(WORKSHEETS[request.param])
    index = build_deck(ws, compute_values(ws), tmp_path_factory.mktemp(request.param))
    html = (index if index.suffix == ".html" else index / "index.html").read_text(
        encoding="utf-8")
    return {"ws": ws, "paras": Paragraphs(html).slides}


def shown(number: str) -> float:
    return float(number.replace("−", "-").replace(",", ""))


def final_row(ws: Worksheet, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Head ``h``'s scores and weights at the final receiver, recomputed in float64."""
    E = reference.embed(ws.document, ws.walkthrough)
    head = ws.document["headsLesson"]["projections"][h - 1]
    scores = (E[-1] @ np.asarray(head["Q"], dtype=float)) @ (
        E @ np.asarray(head["K"], dtype=float)).T / np.sqrt(ws.d_head)
    weights = np.exp(scores - scores.max())
    return scores, weights / weights.sum()


def test_the_roles_slide_gives_each_head_its_own_query_and_says_why_a_score_is_not_a_weight(
        page) -> None:
    """The table shows each head's own query, so the prose no longer claims one shared
    query row; and a source that one head favours is set against the first head's
    favourite, whose higher score takes the weight in the softmax."""
    ws: Worksheet = page["ws"]
    paras = page["paras"]["roles-shapes-roles"]
    said = " ".join(p for p, _ in paras)
    assert "same query row" not in said
    assert "its own query of the receiver and its own keys" in said
    rows = [final_row(ws, h) for h in range(1, ws.n_heads + 1)]
    first = int(np.argmax(rows[0][1]))
    others = [h for h in range(2, ws.n_heads + 1) if int(np.argmax(rows[h - 1][1])) != first]
    (competition,) = [p for p in paras if "does not fix a weight" in p[0]] or [None]
    if not others:
        assert competition is None
        return
    other = others[0]
    j = int(np.argmax(rows[other - 1][1]))
    words = ws.sentences[ws.walkthrough]
    prose, numbers = competition
    assert f"{words[j]} scores" in prose and f"head {words[first]} scores higher" in prose
    a, b, x, y, c = (shown(n) for _, n in numbers)
    assert abs(a - rows[0][0][j]) <= HALF and abs(b - rows[other - 1][0][j]) <= HALF
    assert abs(x - rows[0][1][j]) <= HALF and abs(y - rows[other - 1][1][j]) <= HALF
    assert abs(c - rows[0][0][first]) <= HALF and c > a and y > x
    s = ws.walkthrough
    assert [key for key, _ in numbers] == [
        f"{s}.h1.scores[{j}]", f"{s}.h{other}.scores[{j}]", f"{s}.h1.weights[{j}]",
        f"{s}.h{other}.weights[{j}]", f"{s}.h1.scores[{first}]"]


def test_each_reading_names_the_runner_up_and_bounds_the_rest(page) -> None:
    """No "every other token gets a little" where the runner-up gets a real share: each
    head's reading names its two heaviest sources and the largest weight left."""
    ws: Worksheet = page["ws"]
    words = ws.sentences[ws.walkthrough]
    for h in range(1, ws.n_heads + 1):
        paras = page["paras"][f"readings-h{h}"]
        assert not any("gets a little" in p for p, _ in paras)
        (prose, numbers), = [p for p in paras if "the next largest" in p[0]]
        weights = final_row(ws, h)[1]
        order = np.argsort(-weights, kind="stable")
        assert f"gives {words[order[0]]} the weight" in prose
        assert f"and {words[order[1]]} the next largest" in prose
        assert "No other token gets more than" in prose
        w, v, u = (shown(n) for _, n in numbers)
        assert np.allclose([w, v, u], weights[order[:3]], atol=HALF)




# ------------------------------------------------------------------ review 38, stacks s01–s10


def _para_with(slide_blocks: Any, words: str) -> Any:
    (found,) = [b for b in slide_blocks if hasattr(b, "runs") and words in text(b.runs)]
    return found


def test_the_wider_slide_says_why_the_wide_head_picks_its_source(case) -> None:
    """The wide head's dot product is the heads' dot products added (numpy: the joined
    query against the joined key), so the slide writes that sum for the source the wide
    head favours and for the first head's favourite, and that the first wins."""
    ws: Worksheet = case["ws"]
    ref, s = case["ref"], ws.walkthrough
    dots = [np.asarray(ref[f"{s}.h{h}.dots"], float) for h in range(1, ws.n_heads + 1)]
    wide = np.sum(dots, axis=0)
    np.testing.assert_allclose(wide, np.asarray(ref[f"{s}.wide.dots"], float), atol=1e-6)
    top = int(np.argmax(np.asarray(ref[f"{s}.wide.weights"], float)))
    why = _para_with(slide(case["deck"], "wide-head-wider").blocks, "adds the heads' dot")
    said = text(why.runs)
    assert said.startswith(f"Why {ws.sentences[s][top]}?")
    shown = {g.key: value(g) for g in nums(why.runs)}
    assert abs(shown[f"{s}.wide.dots[{top}]"] - wide[top]) <= 0.005
    for h in range(ws.n_heads):
        assert abs(shown[f"{s}.h{h + 1}.dots[{top}]"] - dots[h][top]) <= 0.005


def test_the_readings_slide_says_a_coordinate_comes_from_many_sources(case) -> None:
    """A message is a weighted sum over every source: the slide names a coordinate whose
    strongest source brings less than all of it, with numpy's contribution and total."""
    ws: Worksheet = case["ws"]
    ref, s = case["ref"], ws.walkthrough
    line = _para_with(slide(case["deck"], "readings-all").blocks, "A message mixes every")
    shown = {g.key: value(g) for g in nums(line.runs)}
    (whole,) = [k for k in shown if ".message[" in k]
    (part,) = [k for k in shown if ".contributions[" in k]
    h, c = (int(x) for x in re.search(r"\.h(\d+)\.message\[(\d+)\]", whole).groups())
    top = int(np.argmax(np.asarray(ref[f"{s}.h{h}.weights"], float)))
    contributions = np.asarray(ref[f"{s}.h{h}.contributions"], float)
    assert part == f"{s}.h{h}.contributions[{top}][{c}]"
    assert abs(shown[part] - contributions[top, c]) <= HALF
    assert abs(shown[whole] - contributions[:, c].sum()) <= HALF
    assert 0 <= contributions[top, c] < contributions[:, c].sum()
    assert not [b for b in slide(case["deck"], "readings-all").blocks if isinstance(b, Table)]


def test_a_projection_slide_says_on_which_feature_the_strongest_source_matches(case) -> None:
    """The query line names the feature on which the head's strongest source matches its
    query: the coordinate of the largest product q_c k_c, recomputed in numpy."""
    ws: Worksheet = case["ws"]
    ref, s = case["ref"], ws.walkthrough
    for h in range(1, ws.n_heads + 1):
        top = int(np.argmax(np.asarray(ref[f"{s}.h{h}.weights"], float)))
        q = np.asarray(ref[f"{s}.h{h}.Q"], float)[-1]
        k = np.asarray(ref[f"{s}.h{h}.K"], float)[top]
        features = np.asarray(ref[f"params.h{h}.K_features"])
        if (features < 0).any():
            continue
        best = ws.lesson.features[int(features[int(np.argmax(q * k))])]
        line = _para_with(slide(case["deck"], f"projections-h{h}").blocks, "matches best on")
        assert text(line.runs).endswith(f"matches best on {best}.")


def test_the_recall_is_one_slide_that_defines_a_projection(case) -> None:
    """The recall is a single slide: the Maya example, the three roles and what a
    projection is, before any slide says the word."""
    deck: Deck = case["deck"]
    (recall,) = [stack for stack in deck.stacks if stack.id == "recall"]
    assert len(recall.slides) == 1
    said = text(recall.slides[0].blocks)
    assert "Maya" in said and "projections: three matrices" in said
    for role in ("query:", "key:", "value:"):
        assert role in said
