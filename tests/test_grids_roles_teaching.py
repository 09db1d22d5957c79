"""The roles-and-shapes clip and the attention-grids clip read like the lesson: worked
numbers before code, one token through the query, key and value cards, the heads' messages
joined coordinate by coordinate, a closing line; E's coordinates named, K drawn, V beside the
grid so that H = AV can be read, a row of weights that sums to one, and the second receiver's
row explained. Every number is checked against a fresh numpy recomputation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs_by_pair
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "four", "wide")
SCENES = ("RolesAndShapes", "AttentionGrids")
FRAME_WIDTH = 14.222
TIME_SLACK = 0.01


@pytest.fixture(scope="module")
def shown() -> dict[tuple[str, str], dict[str, Any]]:
    """Both scenes' dry runs, by (worksheet label, scene)."""
    return dry_runs_by_pair(SCENES, LABELS)

@pytest.fixture(scope="module")
def lesson() -> dict[str, dict[str, Any]]:
    """Each worksheet's walkthrough sentence, recomputed in numpy, with its tokens."""
    made = {}
    for label, path in ((label, WORKSHEETS[label]) for label in LABELS):
        ws = load_worksheet(path)
        made[label] = {**reference.sentence(ws.document, ws.walkthrough),
                       "tokens": list(ws.sentences[ws.walkthrough]), "name": ws.walkthrough,
                       "features": list(ws.lesson.features), "d_head": ws.d_head,
                       "d_model": ws.d_model}
    return made


def number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    (texts,) = (s["texts"] for s in result["sections"] if s["name"] == name)
    return texts


def placed(texts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each figure's key and the text record that shows it."""
    return {key: text for text in texts for key, _ in text["figures"]}


def caption(result: dict[str, Any], words: str) -> dict[str, Any]:
    (found,) = (c for c in result["manifest"]["captions"] if words in c["template"])
    return found


# ---------------------------------------------------------------------- clip 06


@pytest.mark.parametrize("label", list(LABELS))
def test_the_code_comes_after_every_worked_number(shown, label: str) -> None:
    result = shown[(label, "RolesAndShapes")]
    names = [s["name"] for s in result["sections"]]
    assert names.index("one head in code") > max(
        names.index(n) for n in ("coordinates", "roles", "after the heads"))
    captions = result["manifest"]["captions"]
    code = next(i for i, c in enumerate(captions) if "as code" in c["template"])
    worked = [i for i, c in enumerate(captions)
              if any(not f["key"].startswith(("shapes.", "dims.")) for f in c["figures"])]
    assert worked and max(worked) < code


@pytest.mark.parametrize("label", list(LABELS))
def test_joining_sets_each_heads_coordinates_side_by_side(shown, lesson, label: str) -> None:
    result, made = shown[(label, "RolesAndShapes")], lesson[label]
    last, d = len(made["tokens"]) - 1, made["d_head"]
    on_screen = placed(section(result, "after the heads"))
    xs = []
    for h, head in enumerate(made["heads"], start=1):
        for c in range(d):
            k = (h - 1) * d + c
            message = on_screen[f"{made['name']}.h{h}.H[{last}][{c}]"]
            joined = on_screen[f"{made['name']}.joined[{last}][{k}]"]
            assert message["text"] == joined["text"]
            assert number(joined["text"]) == pytest.approx(head["H"][last][c], abs=0.0006)
            assert made["joined"][last][k] == head["H"][last][c]  # joining moves, never mixes
            assert message["box"][1] > joined["box"][3]  # the messages stand above the join
            xs.append(joined["box"][0])
    assert xs == sorted(xs)  # head by head, coordinate by coordinate, left to right
    assert len(xs) == made["d_model"]


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_joined_grid_names_each_head_over_its_own_columns(shown, lesson,
                                                               label: str) -> None:
    """Colour is not the only thing that says whose columns they are (WCAG 1.4.1): each
    head whose columns are shown is named over them, in the frame the section ends on."""
    made = lesson[label]
    texts = section(shown[(label, "AttentionGrids")], "joined")
    on_screen = placed(texts)
    d = made["d_head"]
    named = 0
    for h in range(1, made["d_model"] // d + 1):
        columns = [on_screen.get(f"{made['name']}.joined[0][{(h - 1) * d + c}]")
                   for c in range(d)]
        columns = [box["box"] for box in columns if box is not None]
        if not columns:  # this head's columns are elided ("…")
            continue
        (tag,) = (t for t in texts if t["text"] == f"Head {h}")
        left, right = min(b[0] for b in columns), max(b[2] for b in columns)
        middle = (tag["box"][0] + tag["box"][2]) / 2
        assert left <= middle <= right, (h, tag["box"], left, right)
        assert tag["box"][1] > max(b[3] for b in columns)  # above the first row
        named += 1
    assert named >= 2


@pytest.mark.parametrize("label", list(LABELS))
def test_the_clip_opens_on_a_frame_wide_map_and_ends_on_one_line(shown, label: str) -> None:
    result = shown[(label, "RolesAndShapes")]
    model = section(result, "the model")
    stages = [t for t in model if t["text"] in ("token", "concat", "MLP", "word")]
    assert min(t["font_size"] for t in stages) >= 24
    left = min(t["box"][0] for t in model if t["text"] == "token")
    right = max(t["box"][2] for t in model if t["text"] == "word")
    assert right - left >= 0.75 * FRAME_WIDTH
    assert result["sections"][-1]["name"] == "in one line"
    lines = [t for t in result["sections"][-1]["texts"] if "→" in t["text"]]
    assert len(lines) == 1 and "W_O" in lines[0]["text"] and "H" in lines[0]["text"]
    assert result["manifest"]["captions"][-2]["template"].startswith("In one line")


# ---------------------------------------------------------------------- clip 14


@pytest.mark.parametrize("label", list(LABELS))
def test_e_names_its_coordinates_and_head_one_draws_q_k_and_v(shown, lesson,
                                                              label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    texts = section(result, "every row")
    keys = {key for t in texts for key, _ in t["figures"]}
    assert any(k.startswith(f"{made['name']}.E[") for k in keys)
    names = {t["text"] for t in texts}
    d = made["d_model"]
    shown_features = [0, 1, d - 1] if d > 4 else list(range(d))
    assert {made["features"][c] for c in shown_features} <= names
    numbers_top = max(t["box"][3] for t in texts
                      if any(k.startswith(f"{made['name']}.E[") for k, _ in t["figures"]))
    for t in texts:
        if t["text"] in made["features"]:
            assert t["box"][1] > numbers_top  # the names stand above E's columns
    values = [t for t in texts if any(k.startswith(f"{made['name']}.h1.V[")
                                      for k, _ in t["figures"])]
    assert values, "head 1's values are on screen as the projections end"


@pytest.mark.parametrize("label", list(LABELS))
def test_keys_are_drawn_and_w_o_is_not_named(shown, lesson, label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    assert f"{made['name']}.h1.K" in {r.split("[")[0] for r in result["manifest"]["reads"]}
    assert all("W_O" not in c["text"] for c in result["manifest"]["captions"])
    for s in result["sections"]:
        if s["name"] != "where we are":  # the model map names every box
            assert all("W_O" not in t["text"] for t in s["texts"]), s["name"]


@pytest.mark.parametrize("label", list(LABELS))
def test_the_receivers_weights_sum_to_one_before_rounding(shown, lesson, label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    on_screen = placed(section(result, "grids 1"))
    sums = [key for key in on_screen if key.endswith(".weights_sum")]
    assert sums, "the first page shows the sum of a row of weights"
    for key in sums:
        h = int(key.split(".h")[1].split(".")[0])
        row = made["heads"][h - 1]["A"][-1]
        assert row.sum() == pytest.approx(1.0, abs=1e-12)
        assert on_screen[key]["text"].startswith("Σ")
        assert number(on_screen[key]["text"].split("=")[1]) == pytest.approx(row.sum(),
                                                                             abs=0.0005)
    said = caption(result, "before rounding")
    assert said["figures"][0]["key"] in sums


@pytest.mark.parametrize("label", list(LABELS))
def test_the_second_receivers_row_is_read_aloud(shown, lesson, label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    said = caption(result, "may read only")
    assert said["words"]["w"] == made["tokens"][1] and said["words"]["u"] == made["tokens"][0]
    weights = {f["key"]: number(f["text"]) for f in said["figures"]}
    A = made["heads"][0]["A"]
    assert weights[f"{made['name']}.h1.A[1][0]"] == pytest.approx(A[1][0], abs=0.0005)
    assert weights[f"{made['name']}.h1.A[1][1]"] == pytest.approx(A[1][1], abs=0.0005)
    assert A[1][0] + A[1][1] == pytest.approx(1.0)  # the two cells it may read hold it all


@pytest.mark.parametrize("label", list(LABELS))
def test_h_equals_a_times_v_with_v_drawn_between(shown, lesson, label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    texts = section(result, "values")
    on_screen = placed(texts)
    head = made["heads"][0]
    np.testing.assert_allclose(head["A"] @ head["V"], head["H"])
    values = {k: t for k, t in on_screen.items() if k.startswith(f"{made['name']}.h1.V[")}
    messages = {k: t for k, t in on_screen.items() if k.startswith(f"{made['name']}.h1.H[")}
    assert len({k.split("]")[0] for k in values}) == len(made["tokens"])  # every source row
    for group, matrix in ((values, head["V"]), (messages, head["H"])):
        for key, text in group.items():
            i, c = (int(x) for x in key.split("[", 1)[1].rstrip("]").split("]["))
            assert number(text["text"]) == pytest.approx(matrix[i][c], abs=0.006)
    names = {t["text"]: t for t in texts if t["text"].endswith((": A", ": V", ": H"))}
    a, v, h = (names[f"Head 1: {kind}"]["box"][0] for kind in "AVH")
    assert a < v < h  # A × V = H, left to right
    for i in range(len(made["tokens"])):  # each token's rows of V and H at one height
        value, message = (group[f"{made['name']}.h1.{kind}[{i}][0]"]["box"]
                          for group, kind in ((values, "V"), (messages, "H")))
        assert (value[1] + value[3]) / 2 == pytest.approx((message[1] + message[3]) / 2,
                                                          abs=0.05)
    said = caption(result, "the message ")  # not the scores, which "we computed" too
    last = len(made["tokens"]) - 1
    assert all(f["key"].startswith(f"{made['name']}.h1.H[{last}][") for f in said["figures"])


# ---------------------------------------------------------------------- both


@pytest.mark.parametrize("name", SCENES)
@pytest.mark.parametrize("label", list(LABELS))
def test_a_pointer_is_gone_once_the_next_sentence_has_begun(shown, label: str,
                                                            name: str) -> None:
    """Stricter than the lecture-wide rule: an outline appears while its own sentence is
    spoken and does not outlast the first step of the sentence after it."""
    result = shown[(label, name)]
    captions = result["manifest"]["captions"]
    for _, first, last in result["pointed"]:
        if first is None:
            continue
        said = [i for i, c in enumerate(captions)
                if c["start"] - TIME_SLACK <= first <= c["end"] + TIME_SLACK]
        assert said, f"a pointer appears at {first:.2f} s, between sentences"
        i = said[0]
        if i + 1 < len(captions):
            assert last <= captions[i + 1]["start"] + TIME_SLACK, \
                (captions[i]["text"], last, captions[i + 1]["start"])


def test_the_worksheets_here_are_the_shapes_the_clips_adapt_to() -> None:
    heads = {label: load_worksheet(WORKSHEETS[label]).n_heads for label in LABELS}
    assert heads == {"default": 2, "four": 4, "wide": 1}


# ---------------------------------------------------------------------- review 38


@pytest.mark.parametrize("label", list(LABELS))
def test_the_scores_are_read_before_softmax_makes_them_weights(shown, lesson,
                                                                label: str) -> None:
    """The grid is not finished at once: the receiver we followed has its scores QKᵀ/√d
    read aloud, every source's, before softmax turns the rows into weights."""
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    captions = result["manifest"]["captions"]
    scores = next(i for i, c in enumerate(captions) if "QKᵀ/√d" in c["text"])
    softmax = next(i for i, c in enumerate(captions) if "Softmax turns" in c["text"])
    assert scores < softmax
    pointed = {key for o in result["outlined"] if o["caption"] == scores for key in o["keys"]}
    T = len(made["tokens"])
    assert {f"{made['name']}.h1.scores[{j}]" for j in range(T)} <= pointed


@pytest.mark.parametrize("label", list(LABELS))
def test_each_grid_names_its_receivers_and_its_sources(shown, lesson, label: str) -> None:
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    texts = section(result, "grids 1")
    names = [t["text"] for t in texts]
    assert {"receiver", "source"} <= set(names)
    for token in set(made["tokens"]):  # a row and a column for each token, and its weight
        assert names.count(token) >= 2 * made["tokens"].count(token), token
    on_screen = placed(texts)
    last = len(made["tokens"]) - 1
    A = made["heads"][0]["A"]
    for j in range(last + 1):  # the bottom row read aloud beside the grid
        text = on_screen[f"{made['name']}.h1.A[{last}][{j}]"]["text"]
        assert number(text) == pytest.approx(A[last][j], abs=0.0005)


@pytest.mark.parametrize("label", list(LABELS))
def test_another_heads_projections_and_product_are_drawn(shown, lesson, label: str) -> None:
    """"Each other head does the same" is said over head 2's own Q, K and V, and "every head
    does the same" over head 2's own A × V = H."""
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    if len(made["heads"]) == 1:
        return
    texts = section(result, "other heads")
    keys = {key.split("[")[0] for t in texts for key, _ in t["figures"]}
    assert f"{made['name']}.h2.V" in keys
    captions = result["manifest"]["captions"]
    said = next(i for i, c in enumerate(captions) if "own grid and its own values" in c["text"])
    pointed = {key.split("[")[0] for o in result["outlined"] if o["caption"] == said
               for key in o["keys"]}
    assert f"{made['name']}.h2.V" in pointed


@pytest.mark.parametrize("label", list(LABELS))
def test_where_the_heads_part_ways_is_said_as_their_weights_say(shown, lesson,
                                                                 label: str) -> None:
    """Beside the grids side by side, what the voice says of the bottom rows is true of the
    recomputed weights: "its own source" only when no two heads put their largest weight on
    the same source, "not every head" when some do but not all."""
    result, made = shown[(label, "AttentionGrids")], lesson[label]
    if len(made["heads"]) == 1:
        return
    tops = [int(np.argmax(head["A"][-1])) for head in made["heads"]]
    said = [c["text"] for c in result["manifest"]["captions"] if "Further down" in c["text"]]
    assert len(said) == 1, said
    if len(set(tops)) == len(tops):
        assert "its own source" in said[0]
    elif len(set(tops)) > 1:
        assert "not every head puts its largest weight on the same source" in said[0]
    else:
        assert "source" not in said[0]
