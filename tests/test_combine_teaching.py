"""The combine clips show what their voice names: W_O's rows and the joined row labelled by
head and feature, every term of the first coordinate's sum (the zero ones greyed), E′ for
every token, the updated row drawn as a row, probabilities that visibly add up to the
total, and the other context's messages, updated rows and shared word.

Scenes run as dry runs (no video); expected values come from the worksheet document and
the float64 numpy recomputation in :mod:`tests.reference`, never from the scenes."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from scenes.kit import HEAD_COLOURS, INK, MUTED, NEGATIVE, shown_indices
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet
from worksheet.formatting import Style

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

SCENES = ("ConcatOutputResidual", "PredictionMLP", "OtherContext")
LABELS = ("default", "four", "wide", "seed")
NAMED = ["default", "four", "seed"]
"""Worksheets whose value columns copy features (the default's: feature i in joined
coordinate i) or mix them (the others'): a coordinate is named by what its column carries."""
TOP_WORDS = 5
"""How many of the most probable words the prediction lists, before the other words."""


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, dict[str, Any]]]:
    """The three scenes' dry runs on each worksheet, by worksheet label and scene."""
    return dry_runs(SCENES, LABELS)

def texts(result: dict[str, Any], section: str) -> list[dict[str, Any]]:
    found = [s for s in result["sections"] if s["name"] == section]
    assert found, f"no section {section!r}: {[s['name'] for s in result['sections']]}"
    return found[0]["texts"]


def showing(found: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The texts that show the figure ``key``."""
    return [t for t in found if any(f[0] == key for f in t["figures"])]


def one(found: list[dict[str, Any]], key: str) -> dict[str, Any]:
    shown = showing(found, key)
    assert len(shown) == 1, (key, [t["text"] for t in shown])
    return shown[0]


def middle(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def setup(label: str) -> tuple[Any, dict[str, Any], str, int]:
    """``(worksheet, numpy values, walkthrough sentence, receiver index)``."""
    ws = load_worksheet(WORKSHEETS[label])
    return ws, reference.worksheet_values(ws.document), ws.walkthrough, ws.length - 1


def carried(ws: Any, i: int) -> str:
    """What joined coordinate ``i`` carries, worked out here from the worksheet's own W_V:
    the feature its head's value column copies (its one nonzero entry), else "value j",
    the column's place in that head's message."""
    head, column = divmod(i, ws.d_head)
    W_V = np.array(ws.document["headsLesson"]["projections"][head]["V"], dtype=np.float64)
    rows = np.flatnonzero(W_V[:, column])
    return ws.lesson.features[rows[0]] if len(rows) == 1 else f"value {column + 1}"


def test_some_worksheet_has_a_value_column_that_does_not_carry_its_place_s_feature() -> None:
    """Otherwise naming joined coordinate i after feature i would pass the tests below."""
    assert any(carried(ws, i) != ws.lesson.features[i]
               for ws in (load_worksheet(WORKSHEETS[label]) for label in NAMED)
               for i in range(ws.d_model))


@pytest.mark.parametrize("label", NAMED)
def test_every_joined_coordinate_and_w_o_row_is_named_by_head_and_what_it_carries(
        runs, label: str) -> None:
    """"Head 2's person coordinate, 1.552" is findable: the joined row stands on end beside
    W_O, its head and what its value column carries ("person", or "value 1" for a column
    that mixes features) named just left of its cell, and the row of W_O it multiplies
    level with it on the right, so the one name labels both."""
    ws, _, s, last = setup(label)
    found = texts(runs[label]["ConcatOutputResidual"], "one matrix")
    for i in range(ws.d_model):
        head, feature = i // ws.d_head + 1, carried(ws, i)
        cell = one(found, f"{s}.joined[{last}][{i}]")["box"]

        def level(box: list[float]) -> bool:
            return cell[1] <= middle(box)[1] <= cell[3]  # noqa: B023

        named = {t["text"] for t in found
                 if level(t["box"]) and 0 <= cell[0] - t["box"][2] < 2.0}
        assert {f"H{head}", feature} <= named, (i, named)
        entries = [t["box"] for t in found if any(f[0].startswith(f"params.W_O[{i}][")
                                                 for f in t["figures"])]
        assert entries and all(level(b) and b[0] > cell[2] for b in entries), (i, entries)


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_receiver_the_voice_names_is_named_on_screen(runs, label: str) -> None:
    """"Every head has handed the receiver 'the'…": the screen says which token that is."""
    ws, _, s, last = setup(label)
    result = runs[label]["ConcatOutputResidual"]
    token = ws.sentences[s][last]
    said = next(c for c in result["manifest"]["captions"] if "receiver" in c["text"])
    assert said["words"].get("w") == token, said["text"]
    named = [t for t in texts(result, "messages") if t["text"].startswith("receiver")]
    assert [t["words"] for t in named] == [[token]], named
    assert f"final “{token}”" in named[0]["text"]


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_residual_sum_stands_in_the_middle_and_the_voice_says_why_it_adds(
        runs, label: str) -> None:
    """While the voice adds the update to the input row, that sum is the picture, in the
    middle (not half a screen left empty for every token's rows still to come); and it
    says why the layer adds rather than replaces."""
    _, numpy, s, last = setup(label)
    result = runs[label]["ConcatOutputResidual"]
    found = texts(result, "residual")
    rows = [one(found, f"{s}.{key}[{last}][0]")["box"] for key in ("E", "delta", "E_prime")]
    table = [t["box"] for t in found if any(f[0].startswith((f"{s}.E[{last}]",
                                                              f"{s}.delta[{last}]",
                                                              f"{s}.E_prime[{last}]"))
                                            for f in t["figures"])]
    left, right = min(b[0] for b in table), max(b[2] for b in table)
    names = [t["box"] for t in found if t["text"] in ("input row e", "update Δe")]
    left = min([left, *(b[0] for b in names)])
    assert abs((left + right) / 2) < 0.6, (left, right)
    assert rows[0][1] > rows[1][1] > rows[2][1], "E, then ΔE, then their sum, downwards"
    assert not showing(found, f"{s}.E_prime[0][0]"), "the other tokens' rows come later"
    assert np.allclose(numpy[f"{s}.E"][last] + numpy[f"{s}.delta"][last],
                       numpy[f"{s}.E_prime"][last])
    said = [c["text"] for c in result["manifest"]["captions"]]
    assert any("instead of replacing" in text and "keeps the input row" in text
               for text in said), said
    every = texts(result, "every row")
    assert showing(every, f"{s}.E_prime[0][0]"), "then every token's updated row"


def pointed_keys(result: dict[str, Any], caption: int) -> set[str]:
    """The value keys of everything outlined while caption ``caption`` is said."""
    return {key for o in result["outlined"] if o["caption"] == caption for key in o["keys"]}


def caption_index(result: dict[str, Any], words: str) -> int:
    said = [c["text"] for c in result["manifest"]["captions"]]
    found = [k for k, text in enumerate(said) if words in text]
    assert len(found) == 1, (words, said)
    return found[0]


@pytest.mark.parametrize("label", ["default", "four"])
def test_each_heads_share_is_shown_as_the_voice_names_it(runs, label: str) -> None:
    """Head 1's share is outlined while its sentence is said, and no other head's; head
    2's comes with the next sentence."""
    ws, _, s, last = setup(label)
    result = runs[label]["ConcatOutputResidual"]
    first = caption_index(result, "Head 1's message times its own block")
    shares = {h: {f"{s}.h{h}.share[{last}][{c}]" for c in shown_indices(ws.d_model)
                  if c is not None} for h in range(1, ws.n_heads + 1)}
    now = pointed_keys(result, first)
    assert shares[1] <= now and not now & shares[2], now
    assert shares[2] <= pointed_keys(result, first + 1)
    assert result["manifest"]["captions"][first + 1]["text"].startswith("Head 2's share")


def test_the_voice_says_why_w_o_mixes_the_heads(runs) -> None:
    """The one entry that carries head 2's coordinate into another feature has its
    reason: W_O is where the heads' messages mix; training learns such entries, and this
    one is set by hand so the mixing shows; the entry is outlined as that is said."""
    _, numpy, _, _ = setup("default")
    result = runs["default"]["ConcatOutputResidual"]
    k = caption_index(result, "where the heads' messages can mix across coordinates")
    reason = caption_index(result, "set by hand so the mixing shows")
    assert reason > k and "trained model learns such entries" in \
        result["manifest"]["captions"][reason]["text"]
    assert numpy["params.W_O"][2][0] != 0, "head 2's person row reaches the water column"
    assert "params.W_O[2][0]" in pointed_keys(result, reason)


@pytest.mark.parametrize("label", ["default", "wide"])
def test_the_residual_keeps_an_input_that_is_not_zero(runs, label: str) -> None:
    """The kept input is shown on the receiver's input coordinate of largest size (the
    default's glue, 2.3 + 0.269 = 2.569), its input and sum outlined; as the voice says
    "keeps the input row" the input row is outlined, not the update. The receiver's own
    rows are named e, Δe and e′ (ΔE is the [10, 4] matrix)."""
    ws, numpy, s, last = setup(label)
    E = numpy[f"{s}.E"][last]
    c = int(np.argmax(np.abs(E)))
    assert E[c] != 0
    result = runs[label]["ConcatOutputResidual"]
    captions = result["manifest"]["captions"]
    k = caption_index(result, "For ")
    assert captions[k]["words"] == {"f": ws.lesson.features[c]}
    said = {f["key"] for f in captions[k]["figures"]}
    assert {f"{s}.E[{last}][{c}]", f"{s}.delta[{last}][{c}]", f"{s}.E_prime[{last}][{c}]"} \
        == said
    assert {f"{s}.E[{last}][{c}]", f"{s}.E_prime[{last}][{c}]"} <= pointed_keys(result, k)
    keeps = caption_index(result, "keeps the input row")
    last_pointer = [o for o in result["outlined"] if o["caption"] == keeps][-1]
    assert last_pointer["keys"] and all(key.startswith(f"{s}.E[{last}]")
                                        for key in last_pointer["keys"]), last_pointer
    names = {t["text"] for t in texts(result, "residual")}
    assert {"input row e", "update Δe", "e′ = e + Δe"} <= names
    assert "their sum, Δe" in {t["text"] for t in texts(result, "update")}


def test_the_first_coordinate_shows_every_term_and_greys_the_zero_entries(runs) -> None:
    ws, numpy, s, last = setup("default")
    found = texts(runs["default"]["ConcatOutputResidual"], "first coordinate")
    W_O = numpy["params.W_O"]
    assert (W_O[:, 0] == 0).any(), "the default worksheet has terms that drop out"
    # a factor of the sum (not W_O's own entry, nor the product of the path followed)
    terms = [t for t in found if "×" in t["text"] and "=" not in t["text"]]
    for i in range(ws.d_model):
        term = one(terms, f"params.W_O[{i}][0]")
        assert any(f[0] == f"{s}.joined[{last}][{i}]" for f in term["figures"]), term["text"]
        colours = set(term["colours"])
        if W_O[i, 0] == 0:
            assert colours <= {MUTED, NEGATIVE}, (term["text"], colours)
            assert showing(found, f"{s}.update_terms[{i}][0]") == [], "a zero term drops out"
        else:
            assert HEAD_COLOURS[i // ws.d_head] in colours, (term["text"], colours)
            assert [t for t in showing(found, f"{s}.update_terms[{i}][0]")
                    if "×" not in t["text"]], f"term {i}'s product"
    assert [t for t in showing(found, f"{s}.delta[{last}][0]") if t["text"].startswith("= ")]


@pytest.mark.parametrize("label", ["default", "wide"])
def test_the_residual_shows_every_tokens_updated_row_the_receivers_bright(runs,
                                                                         label: str) -> None:
    ws, numpy, s, last = setup(label)
    found = texts(runs[label]["ConcatOutputResidual"], "every row")
    # the first and last coordinates, and the one whose input the voice follows
    columns = {0, ws.d_model - 1, int(np.argmax(np.abs(numpy[f"{s}.E"][last])))}
    for j in range(ws.length):
        for c in columns:
            key = f"{s}.E_prime[{j}][{c}]"
            shown = [t for t in showing(found, key) if t["text"] == t["figures"][0][1]]
            assert shown, key
            if numpy[f"{s}.E_prime"][j][c] < 0:
                continue  # negatives keep their own colour in every row
            expected = INK if j == last else MUTED
            assert any(t["figure_colours"] == [expected] for t in shown), (key, shown)


def test_the_updated_row_is_drawn_as_a_row_with_its_name_beside_it(runs) -> None:
    ws, _, s, last = setup("default")
    found = texts(runs["default"]["PredictionMLP"], "updated row")
    cells = [one(found, f"{s}.E_prime[{last}][{c}]")["box"]
             for c in shown_indices(ws.d_model) if c is not None]
    ys = [middle(box)[1] for box in cells]
    assert max(ys) - min(ys) < 0.05, ys
    assert all(a[2] < b[0] for a, b in pairwise(cells)), cells
    name = next(t["box"] for t in found if t["text"] == f"E′, last row: {ws.d_model} numbers")
    assert cells[0][1] <= middle(name)[1] <= cells[0][3]
    assert 0 < cells[0][0] - name[2] < 1.0, (name, cells[0])


def test_the_logits_are_listed_when_the_voice_counts_them_and_a_logit_is_defined(
        runs) -> None:
    _, numpy, s, last = setup("default")
    result = runs["default"]["PredictionMLP"]
    order = np.argsort(-numpy[f"{s}.probs"], kind="stable")[:TOP_WORDS]
    found = texts(result, "logits")
    for i in order:
        one(found, f"{s}.logits[{last}][{i}]")
    assert any("vocabulary words" in t["text"] for t in showing(found, "dims.vocab"))
    said = [c["text"] for c in result["manifest"]["captions"]]
    assert any("logit is a raw score" in text for text in said), said


def test_the_probabilities_visibly_add_up_to_the_total(runs) -> None:
    ws, numpy, s, _ = setup("default")
    found = texts(runs["default"]["PredictionMLP"], "probabilities")
    probs = numpy[f"{s}.probs"]
    order = np.argsort(-probs, kind="stable")
    words = [t for t in found if t["kind"] == "word"]
    listed = sorted(words, key=lambda t: -middle(t["box"])[1])
    assert [t["text"] for t in listed[:TOP_WORDS]] == [ws.vocab[i] for i in order[:TOP_WORDS]]
    rest, total = one(found, f"{s}.probs_rest[{TOP_WORDS}]"), one(found, f"{s}.probs_sum")
    values = compute_values(ws)
    assert abs(values.value(f"{s}.probs_rest[{TOP_WORDS}]")
               - (1 - probs[order[:TOP_WORDS]].sum())) < 1e-12
    assert abs(values.value(f"{s}.probs_sum") - 1) < 1e-12
    lowest_word = min(middle(t["box"])[1] for t in listed[:TOP_WORDS])
    assert middle(total["box"])[1] < middle(rest["box"])[1] < lowest_word
    other = next(t for t in found if t["text"] == "the other words")
    assert abs(middle(other["box"])[1] - middle(rest["box"])[1]) < 0.05
    every = next(t for t in found if t["text"] == f"all {len(ws.vocab)} words")
    assert abs(middle(every["box"])[1] - middle(total["box"])[1]) < 0.05


def followed(numpy: dict[str, Any], s: str, last: int) -> tuple[int, int, int]:
    """``(predicted word, hidden number, E′ coordinate)``: the hidden number that adds most
    to the predicted word's logit, and the coordinate of E′ whose term adds most to it,
    worked out here from the numpy recomputation (the first of equals)."""
    word = int(np.argmax(numpy[f"{s}.probs"]))
    hidden = np.maximum(numpy[f"{s}.hidden_pre"], 0)
    unit = int(np.argmax(hidden * numpy["params.W_vocab"][:, word]))
    source = int(np.argmax(numpy[f"{s}.E_prime"][last] * numpy["params.W_hidden"][:, unit]))
    return word, unit, source


def figure_box(found: list[dict[str, Any]], key: str, lowest: bool = True) -> list[float]:
    """The box of the text that is the figure ``key`` alone, perhaps in parentheses (not a
    sum quoting it); of several, the lowest (or the highest)."""
    boxes = [t["box"] for t in showing(found, key)
             if t["text"].strip("()") == t["figures"][0][1]]
    assert boxes, key
    return (min if lowest else max)(boxes, key=lambda box: box[1])


@pytest.mark.parametrize("label", ["default", "four"])
def test_one_pre_activation_is_worked_out_from_its_column_of_w_hidden(runs,
                                                                       label: str) -> None:
    """W_hidden is drawn as a matrix, a row per coordinate of E′ named by its feature on
    its line, each column standing over the pre-activation it makes; the column the voice
    follows is a column (its entries one under another, b_hidden's entry under them, the
    pre-activation under that) and is outlined as "one column" is said; every factor pair
    and the bias stand in the worked sum, whose total is that pre-activation."""
    ws, numpy, s, last = setup(label)
    _, unit, _ = followed(numpy, s, last)
    assert compute_values(ws).value(f"{s}.top_hidden") == unit
    W, b = numpy["params.W_hidden"], numpy["params.b_hidden"]
    assert np.isclose(numpy[f"{s}.E_prime"][last] @ W[:, unit] + b[unit],
                      numpy[f"{s}.hidden_pre"][unit])
    result = runs[label]["PredictionMLP"]
    found = texts(result, "hidden layer")
    pre = figure_box(found, f"{s}.hidden_pre[{unit}]")
    rows = [c for c in shown_indices(ws.d_model) if c is not None]
    column = [figure_box(found, f"params.W_hidden[{c}][{unit}]") for c in rows]
    bias = figure_box(found, f"params.b_hidden[{unit}]")
    for upper, lower in pairwise([*column, bias, pre]):
        assert lower[3] < upper[1], "one under another, the pre-activation last"
        assert abs(middle(lower)[0] - middle(upper)[0]) < 0.1, (upper, lower)
    for c, entry in zip(rows, column, strict=True):
        named = [t for t in found if t["text"] == ws.lesson.features[c]
                 and abs(middle(t["box"])[1] - middle(entry)[1]) < 0.1
                 and t["box"][2] < entry[0]]
        assert named, f"W_hidden's row {c} is named by its feature on its line"
    others = [j for j in range(len(b)) if j != unit and showing(found, f"params.W_hidden[0][{j}]")]
    assert others, "the whole matrix, not the column alone"
    for j in others:
        over = figure_box(found, f"params.W_hidden[0][{j}]")
        under = figure_box(found, f"{s}.hidden_pre[{j}]")
        assert abs(middle(over)[0] - middle(under)[0]) < 0.1, "each column over its number"
    said = result["manifest"]["captions"]
    k = next(i for i, c in enumerate(said) if "one column of W_hidden" in c["text"])
    keys = {key for o in result["outlined"] if o["caption"] == k for key in o["keys"]}
    assert {f"params.W_hidden[{c}][{unit}]" for c in rows} <= keys
    assert not any(key.startswith("params.W_hidden[") and not key.endswith(f"[{unit}]")
                   for key in keys), "only the column the voice follows"
    # the worked sum, outlined as the voice says "products" (it gives way to ReLU after)
    worked = [o for o in result["outlined"]
              if o["caption"] == caption_index(result, "the products and the bias add up")]
    summed = worked[0]["keys"]
    for c in range(ws.d_model):
        assert {f"{s}.E_prime[{last}][{c}]", f"params.W_hidden[{c}][{unit}]"} <= set(summed), c
    assert f"params.b_hidden[{unit}]" in summed
    assert any(text.startswith("= ") and f"{s}.hidden_pre[{unit}]" in o["keys"]
               for o in worked[1:] for text in o["texts"])


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_path_leads_from_e_prime_through_a_hidden_number_to_the_words_logit(
        runs, label: str) -> None:
    """The payoff: E′'s coordinate (and what the heads' update put into it), the hidden
    number it feeds, and what that adds to the predicted word's logit, left to right,
    with the voice naming the feature and the word."""
    ws, numpy, s, last = setup(label)
    word, unit, source = followed(numpy, s, last)
    result = runs[label]["PredictionMLP"]
    found = texts(result, "path to the word")
    steps = [figure_box(found, key, lowest=False) for key in (
        f"{s}.E_prime[{last}][{source}]", f"{s}.hidden[{unit}]",
        f"{s}.logit_terms[{unit}][{word}]")]
    assert steps[0][2] < steps[1][0] and steps[1][2] < steps[2][0], steps
    one(found, f"params.W_vocab[{unit}][{word}]")
    assert any(t["text"] == "an entry of W_vocab" for t in found), "the × names its matrix"
    added = compute_values(ws).value(f"{s}.logit_terms[{unit}][{word}]")
    assert np.isclose(added, np.maximum(numpy[f"{s}.hidden_pre"][unit], 0)
                      * numpy["params.W_vocab"][unit, word])
    said = [c for c in result["manifest"]["captions"] if c["text"].startswith("Why")]
    assert said and said[0]["words"] == {"w": ws.vocab[word],
                                         "f": ws.lesson.features[source]}, said


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_paths_start_is_traced_back_to_the_input_and_each_heads_part(runs,
                                                                          label: str) -> None:
    """E′'s coordinate is shown as input + update (numpy: their sum is it), and the update
    as what each head sent into it: a head whose one feeding coordinate passes through
    W_O times an entry other than one shows that entry and that coordinate of its message
    (the default: 0.25 × head 2's 1.552), then every head's share, which add up to it."""
    ws, numpy, s, last = setup(label)
    _, _, c = followed(numpy, s, last)
    result = runs[label]["PredictionMLP"]
    found = texts(result, "path to the word")
    keys = {f"{s}.E_prime[{last}][{c}]", f"{s}.E[{last}][{c}]", f"{s}.delta[{last}][{c}]"}
    assert any(keys <= {f[0] for f in t["figures"]} and "input" in t["text"] for t in found)
    assert np.isclose(numpy[f"{s}.E"][last][c] + numpy[f"{s}.delta"][last][c],
                      numpy[f"{s}.E_prime"][last][c])
    W_O, d = numpy["params.W_O"], ws.d_head
    shares = [numpy[f"{s}.joined"][last][h * d:(h + 1) * d] @ W_O[h * d:(h + 1) * d, c]
              for h in range(ws.n_heads)]
    assert np.isclose(sum(shares), numpy[f"{s}.delta"][last][c])
    for h in range(ws.n_heads):
        feeding = [i for i in range(h * d, (h + 1) * d) if W_O[i, c] != 0]
        if len(feeding) == 1 and W_O[feeding[0], c] != 1:
            i = feeding[0]
            assert any({f"params.W_O[{i}][{c}]", f"{s}.joined[{last}][{i}]"}
                       <= {f[0] for f in t["figures"]} for t in found), (h, i)
        elif len(feeding) > 1:
            assert showing(found, f"{s}.h{h + 1}.share[{last}][{c}]"), h
    if label == "default":  # head 1's coordinate as it is, head 2's through its entry
        assert list(np.flatnonzero(W_O[:, c])) == [0, 2] and W_O[0, c] == 1
        m = numpy[f"{s}.joined"][last]
        expected = f"The update is head 1's {m[0]:.3f} plus {W_O[2, c]:g} × head 2's {m[2]:.3f}."
        said = [t["text"] for t in result["manifest"]["captions"]]
        assert expected in said, said


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_whole_logit_is_accounted_for(runs, label: str) -> None:
    """Under the path: what it adds, what the other hidden numbers add (numpy's sum of
    their terms) and the bias, in a column whose total, under a rule, is the logit."""
    ws, numpy, s, last = setup(label)
    word, unit, _ = followed(numpy, s, last)
    found = texts(runs[label]["PredictionMLP"], "path to the word")
    hidden = np.maximum(numpy[f"{s}.hidden_pre"], 0)
    terms = hidden * numpy["params.W_vocab"][:, word]
    others = terms.sum() - terms[unit]
    assert reference.within_display(one(found, f"{s}.logit_others")["text"].strip("()"),
                                    Style.FIXED3, others)
    logit = numpy[f"{s}.logits"][last][word]
    assert np.isclose(terms[unit] + others + numpy["params.b_vocab"][word], logit)
    column = [figure_box(found, key) for key in (
        f"{s}.logit_terms[{unit}][{word}]", f"{s}.logit_others", f"params.b_vocab[{word}]",
        f"{s}.logits[{last}][{word}]")]
    for upper, lower in pairwise(column):
        assert lower[3] < upper[1] and abs(upper[2] - lower[2]) < 0.05, (upper, lower)
    assert any(t["text"] == f"the logit of “{ws.vocab[word]}”" for t in found)


def test_the_two_softmaxes_stand_side_by_side(runs) -> None:
    """Head 1's attention weights at the receiver (every source) beside the vocabulary
    probabilities of the most probable words, each with its total."""
    ws, numpy, s, _ = setup("default")
    found = texts(runs["default"]["PredictionMLP"], "two choices")
    weights = [one(found, f"{s}.h1.weights[{j}]")["box"] for j in range(ws.length)]
    order = np.argsort(-numpy[f"{s}.probs"], kind="stable")[:TOP_WORDS]
    probs = [one(found, f"{s}.probs[{i}]")["box"] for i in order]
    assert max(b[2] for b in weights) < min(b[0] for b in probs), "attention on the left"
    assert min(b[1] for b in weights) < max(b[3] for b in probs), "side by side"
    one(found, f"{s}.h1.weights_sum")
    one(found, f"{s}.probs_sum")


def test_the_two_jobs_read_alike(runs) -> None:
    found = texts(runs["default"]["PredictionMLP"], "two choices")
    lines = [t for t in found if t["text"].startswith(("attention weights", "vocabulary prob"))]
    assert len(lines) == 2
    assert lines[0]["colours"] == lines[1]["colours"] == [INK]


@pytest.mark.parametrize("label", NAMED)
def test_each_context_shows_its_messages_the_update_and_e_prime_in_the_model_features(
        runs, label: str) -> None:
    """Each joined coordinate stands under its head and what its value column carries;
    the step to E′ is drawn: under the model's features (E′ is in the model's coordinates,
    not the heads'), the receiver's update, input row and updated row, one column each, with
    no head's name over them. They are one row of each matrix, named as clips 11 and 12
    name the receiver's rows: Δe, e and e′, never ΔE, E or E′ (on screen or in a caption)."""
    ws, numpy, _, last = setup(label)
    found = texts(runs[label]["OtherContext"], "updated rows")

    def over(box: list[float], reach: float = 0.9) -> list[str]:
        return [t["text"] for t in found if t["box"][0] < box[2] and box[0] < t["box"][2]
                and box[3] <= t["box"][1] < box[3] + reach]

    for name in ws.sentences:
        for c in shown_indices(ws.d_model):
            if c is None:
                continue
            message = one(found, f"{name}.joined[{last}][{c}]")["box"]
            head, what = f"H{c // ws.d_head + 1}", carried(ws, c)
            named = over(message)
            assert {head, what} <= set(named) or f"{head} {what}" in named, (name, c, named)
            column = [one(found, f"{name}.{key}[{last}][{c}]")["box"]
                      for key in ("delta", "E", "E_prime")]
            assert column[0][1] > column[1][1] > column[2][1], (name, c, column)
            assert all(a[0] < b[2] and b[0] < a[2] for a, b in pairwise(column)), column
            assert abs(middle(column[0])[1] - middle(message)[1]) < 0.05, "ΔE level with them"
            heading = over(column[0], 0.6)
            assert heading == [ws.lesson.features[c]], (name, c, heading)
            assert np.allclose(numpy[f"{name}.E"][last] + numpy[f"{name}.delta"][last],
                               numpy[f"{name}.E_prime"][last])
        assert {"messages", "× W_O"} <= {t["text"] for t in found}
    names = {t["text"] for t in found}
    assert {"Δe", "+ e", "= e′"} <= names and not {"ΔE", "+ E", "= E′"} & names
    said = " ".join(c["text"] for c in runs[label]["OtherContext"]["manifest"]["captions"])
    assert "Δe" in said and not [name for name in ("ΔE", "E′", "row E") if name in said]
    first, second = list(ws.sentences)[:2]
    assert not np.allclose(numpy[f"{first}.E_prime"][last], numpy[f"{second}.E_prime"][last])


@pytest.mark.parametrize("label", ["default", "seed"])
def test_the_second_sentence_shows_the_value_rows_its_new_weights_mix(runs,
                                                                      label: str) -> None:
    """"The new weights mix the value rows differently": head 1's value row of every
    token of the second sentence stands on its token's line, after head 1's weight."""
    ws, _, _, _ = setup(label)
    name = list(ws.sentences)[1]
    result = runs[label]["OtherContext"]
    found = texts(result, "values")
    for j in range(ws.length):
        weight = one(found, f"{name}.h1.weights[{j}]")["box"]
        row = [t["box"] for t in found
               if any(f[0].startswith(f"{name}.h1.V[{j}][") for f in t["figures"])]
        assert len(row) == 1, (j, row)
        assert weight[2] < row[0][0] and abs(middle(weight)[1] - middle(row[0])[1]) < 0.05
    said = [c["text"] for c in result["manifest"]["captions"]]
    assert any("mix the value rows" in text for text in said), said


def test_the_closing_sentence_names_the_word_both_contexts_share(runs) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    closing = runs["default"]["OtherContext"]["manifest"]["captions"][-1]
    shared = [t for t in ws.sentences["river"] if t in ws.sentences["cheque"]
              and t.lower() != ws.sentences["river"][-1].lower()]
    assert shared[0] == "bank"
    assert closing["words"].get("b") == "bank", closing["text"]
    assert "same receiver, same parameters" in closing["text"]


def test_the_head_labels_stand_on_one_line_with_room_between(runs) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    found = texts(runs["default"]["OtherContext"], "weights")
    labels = [t for t in found if t["text"].startswith("Head ")]
    assert len(labels) == ws.n_heads * len(ws.sentences)
    bottoms = [t["box"][1] for t in labels]
    assert max(bottoms) - min(bottoms) < 0.01, bottoms
    row = sorted(t["box"] for t in labels)
    gaps = [b[0] - a[2] for a, b in pairwise(row)]
    assert min(gaps) > 0.15, gaps
    weights = [t for t in found if any(".weights[" in f[0] for f in t["figures"])]
    for a in weights:  # the numbers in one token's row keep clear of each other's cells
        for b in weights:
            if a is not b and abs(middle(a["box"])[1] - middle(b["box"])[1]) < 0.05 \
                    and a["box"][2] < b["box"][0]:
                assert b["box"][0] - a["box"][2] > 0.25, (a["text"], b["text"])



@pytest.mark.parametrize("label", ["default", "four", "seed"])
def test_each_outline_in_the_reading_says_what_it_marks(runs, label: str) -> None:
    """On the top sentence's line the final token is tagged "receiver" and the word every
    sentence shares "same word", each tag just above its word (the lines below are outlined
    alike), so the outlined "bank" does not read as the receiver."""
    ws, _, _, last = setup(label)
    found = texts(runs[label]["OtherContext"], "same word")
    words = [t for t in found if t["kind"] == "word"]
    first = next(iter(ws.sentences))
    receiver = ws.sentences[first][last]
    shared = next(t for t in ws.sentences[first] if t.lower() != receiver.lower()
                  and all(t in ws.sentences[n] for n in ws.sentences))
    for tag, token in (("receiver", receiver), ("same word", shared)):
        tags = [t for t in found if t["text"] == tag]
        assert len(tags) == 1, (tag, len(tags))
        for t in tags:
            under = [w for w in words if w["text"] == token and 0 < t["box"][1] - w["box"][3]
                     < 0.45 and abs(middle(w["box"])[0] - middle(t["box"])[0]) < 1.2]
            assert under, (tag, t["box"])
    said = runs[label]["OtherContext"]["manifest"]["captions"][-1]
    assert said["words"].get("b") == shared


@pytest.mark.parametrize("label", ["default", "four", "seed"])
def test_the_input_row_is_the_same_in_every_sentence_so_attention_makes_the_difference(
        runs, label: str) -> None:
    """Same receiver word at the same place: numpy's input row E is identical in every
    sentence, the + E rows shown are digit for digit the same, and the voice draws the
    conclusion that every difference in E′ comes through attention."""
    ws, numpy, _, last = setup(label)
    names = list(ws.sentences)
    for name in names[1:]:
        assert np.array_equal(numpy[f"{name}.E"][last], numpy[f"{names[0]}.E"][last])
    found = texts(runs[label]["OtherContext"], "updated rows")
    for c in shown_indices(ws.d_model):
        if c is None:
            continue
        shown = {one(found, f"{name}.E[{last}][{c}]")["text"] for name in names}
        assert len(shown) == 1, (c, shown)
    result = runs[label]["OtherContext"]
    (said,) = [c for c in result["manifest"]["captions"] if "same in each sentence" in c["text"]]
    assert "comes through attention" in said["text"]
    assert said["words"] == {"w": ws.sentences[names[0]][last]}
    assert "final “" in said["text"] and "same place" in said["text"]


@pytest.mark.parametrize("label", ["default", "seed", "four"])
def test_the_second_heads_weights_and_value_rows_are_shown_too(runs, label: str) -> None:
    """Not head 1 alone: head 2's weight of every token of the second sentence, with its
    value row on the same line after it, numbers equal to numpy's."""
    ws, numpy, _, _ = setup(label)
    name = list(ws.sentences)[1]
    result = runs[label]["OtherContext"]
    found = texts(result, "second head's values")
    for j in range(ws.length):
        weight = one(found, f"{name}.h2.weights[{j}]")
        assert reference.within_display(weight["text"], Style.FIXED3,
                                        numpy[f"{name}.h2.weights"][j])
        row = [t["box"] for t in found
               if any(f[0].startswith(f"{name}.h2.V[{j}][") for f in t["figures"])]
        assert len(row) == 1, (j, row)
        box = weight["box"]
        assert box[2] < row[0][0] and abs(middle(box)[1] - middle(row[0])[1]) < 0.05
        assert not showing(found, f"{name}.h1.weights[{j}]"), "head 1's left its place"
    said = [c["text"] for c in result["manifest"]["captions"]]
    assert any(text.startswith("Head 2 does the same with its own weights") for text in said)


def test_a_predicted_word_the_viewer_may_not_know_is_explained(runs) -> None:
    ws = load_worksheet(DEFAULT_WORKSHEET)
    result = runs["default"]["OtherContext"]
    assert ws.vocab[compute_values(ws).value("cheque.prediction")] == "teller"
    (said,) = [c for c in result["manifest"]["captions"] if c["text"].startswith("A “")]
    assert said["text"] == "A “teller” is a bank clerk."
    assert said["words"] == {"w": "teller", "g": ws.lesson.glosses["teller"]}
    found = texts(result, "prediction")
    prediction = next(t for t in found if t["text"].startswith("→ “teller”"))
    (gloss,) = [t for t in found if t["text"] == "“teller”: a bank clerk"]
    assert abs(middle(gloss["box"])[1] - middle(prediction["box"])[1]) < 0.1
    assert gloss["box"][0] > prediction["box"][2]


def test_the_readings_numbers_are_larger_than_the_floor(runs) -> None:
    """The two readings keep their numbers at least a size 16 (the rules' floor is 15)."""
    found = texts(runs["default"]["OtherContext"], "same word")
    sizes = [t["font_size"] for t in found if t["figures"] and t["kind"] != "word"]
    assert sizes and min(sizes) >= 16.0, min(sizes)
