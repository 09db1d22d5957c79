"""The bias flag teaches with pictures: the model map names W_O as well as the heads; one
bias row, drawn once, is added to every query row; a row the projection sends to zero becomes
the bias itself (where the worksheet has one); each head's own W_Q is pushed against the
others' into the packed W_Q, and head 1's b becomes head 1's slice of the packed query
offsets, the other heads having offsets of their own; the parameter counts are derived on
pictures of the four projections, under the default flag, W_O's offsets belonging to no
head. The clip opens on what a bias is, q = e W_Q + b, and names PyTorch's flag only after
that (the library comes in the next clip); it stays short. Checked on dry runs of several
worksheets, every expected number recomputed here from the worksheet."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scenes.kit import HEAD_COLOURS, NEGATIVE
from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet
from worksheet.formatting import Style

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "seed", "wide", "four")
"""Two heads with a query row of zeros; three heads (in the seed's schema, whose runs the
scene rules share); one wide head; four heads of three tokens."""
PROJECTIONS = 4
"""W_Q, W_K, W_V and W_O."""
SAME_PLACE = 0.05
"""How far apart (scene units) two centres may be and still count as one row or column."""
LONGEST_LABEL = 6
"""Words a label may have where the lesson draws pictures instead of sentences."""


@pytest.fixture(scope="module")
def bias() -> dict[str, dict[str, Any]]:
    """The bias flag's dry run on each worksheet, by label."""
    return {label: runs["BiasFlag"] for label, runs in dry_runs(["BiasFlag"], LABELS).items()}

def texts(result: dict[str, Any], section: str) -> list[dict[str, Any]]:
    """The texts on screen when ``section`` ends."""
    return next(s["texts"] for s in result["sections"] if s["name"] == section)


def keyed(found: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The texts that show the figure ``key``."""
    return [t for t in found if any(k == key for k, _ in t["figures"])]


def captions(result: dict[str, Any]) -> list[str]:
    return [c["text"] for c in result["manifest"]["captions"]]


def centre(text: dict[str, Any]) -> tuple[float, float]:
    left, bottom, right, top = text["box"]
    return (left + right) / 2, (bottom + top) / 2


def numbers(label: str) -> dict[str, Any]:
    """The worksheet's values, recomputed in numpy."""
    return reference.worksheet_values(load_worksheet(WORKSHEETS[label]).document)


def shown(value: Any) -> str:
    """A whole number as the lesson writes it."""
    return f"{int(value):,}"


@pytest.mark.parametrize("label", LABELS)
def test_the_map_names_w_o_as_well_as_the_heads(bias, label: str) -> None:
    result = bias[label]
    first, second = captions(result)[:2]
    assert "heads" in first and "W_O" in second
    assert result["manifest"]["where"] == ["heads"]  # the part's steps, lit as it opens
    on_map = {t["text"] for t in texts(result, "where we are")}
    heads = {f"Head {h}" for h in range(1, load_worksheet(WORKSHEETS[label]).n_heads + 1)}
    assert heads | {"W_O"} <= on_map


@pytest.mark.parametrize("label", LABELS)
def test_the_bias_row_is_drawn_once_and_added_to_every_row(bias, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    found = texts(bias[label], "shared offset")
    (b,) = keyed(found, "bias.offset[0]")  # one b, not one per row
    sums = [keyed(found, f"bias.Q_offset[{r}][0]") for r in range(ws.length)]
    assert all(len(row) == 1 for row in sums)  # every row of Q + b is drawn
    ys = [centre(row[0])[1] for row in sums]
    x, y = centre(b)
    assert min(ys) - 0.05 <= y <= max(ys) + 0.05  # b faces the rows it is added to
    assert all(centre(row[0])[0] > x for row in sums)
    expected = numbers(label)
    first = np.asarray(expected[f"{ws.walkthrough}.h1.Q"]) + np.asarray(expected["bias.offset"])
    close = np.asarray(expected["bias.Q_offset"]) - first
    assert np.abs(close).max() < 1e-12  # the drawn sum is Q plus the same b in every row


@pytest.mark.parametrize("label", LABELS)
def test_a_zero_query_row_becomes_the_bias_itself_where_there_is_one(bias, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    expected = numbers(label)
    Q = np.asarray(expected[f"{ws.walkthrough}.h1.Q"])
    zero = [r for r, row in enumerate(Q) if not row.any()]
    manifest = bias[label]["manifest"]
    itself = [c for c in manifest["captions"] if "the bias itself" in c["text"]]
    if not zero:
        assert itself == [] and "bias.zero_row" not in manifest["reads"]
        return
    row = zero[0]
    assert np.array_equal(np.asarray(expected["bias.Q_offset"])[row], expected["bias.offset"])
    before = next(c for c in manifest["captions"] if "all zeros" in c["text"])
    assert ws.sentences[ws.walkthrough][row] in before["text"]
    assert {f["key"].split("]")[0] for f in before["figures"]} == \
        {f"{ws.walkthrough}.h1.Q[{row}"}
    assert {f["text"] for f in before["figures"]} == {"0"}
    # Why it is zero, where the reason is simple: the head's W_Q reads few features, and
    # this token has none of them.
    W_Q = np.asarray(expected["params.h1.W_Q"])
    reads = [f for f, weights in enumerate(W_Q) if weights.any()]
    token = np.asarray(expected[f"{ws.walkthrough}.E"])[row]
    simple = len(reads) < ws.d_model and not token[reads].any()
    assert ("reads only" in before["text"]) == simple
    if simple:
        assert all(f"“{ws.lesson.features[f]}”" in before["text"] for f in reads)
    offset = {f["key"]: f["text"] for c in manifest["captions"] for f in c["figures"]
              if f["key"].startswith("bias.offset[")}
    (caption,) = itself
    prefix = f"bias.Q_offset[{row}]"
    assert caption["figures"] and all(f["key"].startswith(prefix) for f in caption["figures"])
    assert [f["text"] for f in caption["figures"]] == \
        [offset["bias.offset" + f["key"].removeprefix(prefix)] for f in caption["figures"]]


@pytest.mark.parametrize("label", LABELS)
def test_the_offset_values_are_said_to_be_chosen_for_illustration(bias, label: str) -> None:
    said = captions(bias[label])
    (values,) = [c for c in said if "illustration" in c]
    assert "learned" not in values  # these values were chosen, not learned
    assert "training learns" in values


@pytest.mark.parametrize("label", LABELS)
def test_the_parameter_counts_are_derived_on_screen(bias, label: str) -> None:
    d = load_worksheet(WORKSHEETS[label]).d_model
    found = {t["text"] for t in texts(bias[label], "which projections")}
    without, extra = PROJECTIONS * d * d, PROJECTIONS * d
    assert f"{d} × {d} = {shown(d * d)} weights" in found
    assert f"+ {d} offsets" in found
    # The totals count projections, and say so: "× d" under a matrix counts its rows.
    assert f"bias=False: {PROJECTIONS} projections × {shown(d * d)} = {shown(without)}" in found
    assert f"+ offsets:  {PROJECTIONS} projections × {d} = {shown(extra)}" in found
    assert (f"bias=True:  {shown(without)} + {shown(extra)} = {shown(without + extra)} "
            "parameters") in found


def packed_query_weights(label: str) -> np.ndarray:
    """W_Q packed: the heads' own ``[d_model, d_head]`` matrices side by side, head 1 first."""
    ws, expected = load_worksheet(WORKSHEETS[label]), numbers(label)
    return np.concatenate([np.asarray(expected[f"params.h{h}.W_Q"], dtype=float)
                           for h in range(1, ws.n_heads + 1)], axis=1)


def head_of(label: str, column: int) -> int:
    """The head whose output column ``column`` of the packed W_Q is."""
    return column // load_worksheet(WORKSHEETS[label]).d_head + 1


def cell_key(label: str, r: int, c: int) -> str:
    """The key of the packed W_Q's entry ``[r][c]``: head h's own matrix, its column."""
    width = load_worksheet(WORKSHEETS[label]).d_head
    return f"params.h{c // width + 1}.W_Q[{r}][{c % width}]"


def in_head_colour(text: dict[str, Any], head: int, value: float) -> bool:
    """A number drawn in its head's colour (a negative one in the negative colour)."""
    want = NEGATIVE if value < 0 else HEAD_COLOURS[(head - 1) % len(HEAD_COLOURS)]
    return [c.upper() for c in text["figure_colours"]] == [want.upper()]


def centres(cells: list[list[dict[str, Any]]]) -> tuple[np.ndarray, np.ndarray]:
    """The x and y of a grid of texts' centres."""
    points = np.array([[centre(cell) for cell in row] for row in cells])
    return points[..., 0], points[..., 1]


def is_grid(xs: np.ndarray, ys: np.ndarray) -> bool:
    """Columns share an x and run left to right; rows share a y and run downward."""
    return bool(np.ptp(xs, axis=0).max() < SAME_PLACE and np.ptp(ys, axis=1).max() < SAME_PLACE
                and (np.diff(xs[0]) > 0).all() and (np.diff(ys[:, 0]) < 0).all())


@pytest.mark.parametrize("label", LABELS)
def test_each_heads_w_q_is_pushed_against_the_others_into_the_packed_w_q(bias, label: str
                                                                         ) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    d = ws.d_model
    packed = packed_query_weights(label)
    assert packed.shape == (d, d)
    found = texts(bias[label], "packed heads")
    cells = []
    for r in range(d):
        row = []
        for c in range(d):
            (cell,) = keyed(found, cell_key(label, r, c))  # drawn once, from head h's own
            assert reference.within_display(cell["text"], Style.PARAM, packed[r, c]), \
                (r, c, cell["text"], packed[r, c])
            assert in_head_colour(cell, head_of(label, c), packed[r, c])
            row.append(cell)
        cells.append(row)
    xs, ys = centres(cells)
    assert is_grid(xs, ys)  # one [d, d] matrix: head 1's columns first, then head 2's, …
    steps = np.diff(xs[0])
    assert np.ptp(steps) < SAME_PLACE  # pushed together: no gap left between heads
    assert f"W_Q [{d}, {d}]" in {t["text"] for t in found}
    said = [c for c in bias[label]["manifest"]["captions"]
            if any(f["key"] == "shapes.W_Q" for f in c["figures"])]
    assert said and f"[{d}, {ws.d_head}]" in said[0]["text"]  # each head's own shape, first


@pytest.mark.parametrize("label", LABELS)
def test_head_ones_b_is_head_ones_slice_of_the_packed_query_offsets(bias, label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    d, width = ws.d_model, ws.d_head
    offset = np.asarray(numbers(label)["bias.offset"], dtype=float)
    assert offset.shape == (width,)
    found = texts(bias[label], "packed heads")
    columns = [centre(keyed(found, cell_key(label, 0, c))[0])[0] for c in range(d)]
    lowest = min(centre(keyed(found, cell_key(label, d - 1, c))[0])[1] for c in range(d))
    for i in range(width):
        (b,) = keyed(found, f"bias.offset[{i}]")
        assert reference.within_display(b["text"], Style.PARAM, offset[i])
        assert in_head_colour(b, 1, offset[i])
        x, y = centre(b)
        assert abs(x - columns[i]) < SAME_PLACE and y < lowest  # under head 1's column i
    others = [t for t in found if t["figures"] and centre(t)[1] < lowest
              and centre(t)[0] > columns[width - 1] + SAME_PLACE]
    # The other heads' slices hold no invented numbers: a symbol each, b with its head
    # and coordinate, under its own column, in its head's colour.
    for c in range(width, d):
        head, k = head_of(label, c), c % width
        (symbol,) = [t for t in others if abs(centre(t)[0] - columns[c]) < SAME_PLACE]
        assert [key for key, _ in symbol["figures"]] == \
            [f"dims.head_numbers[{head - 1}]", f"dims.value_numbers[{k}]"]
        assert symbol["text"] == f"b{head}{k + 1}"
        assert {c.upper() for c in symbol["figure_colours"]} == \
            {HEAD_COLOURS[(head - 1) % len(HEAD_COLOURS)].upper()}
    assert len(others) == d - width
    assert f"{d} query offsets" in {t["text"] for t in found}
    captions_ = bias[label]["manifest"]["captions"]
    start = next(i for i, c in enumerate(captions_)
                 if any(f["key"] == "shapes.W_Q" for f in c["figures"]))
    b_said = next(c for c in captions_[start:] if "bias.offset[0]" in
                  {f["key"] for f in c["figures"]})
    said = {f["key"]: f["text"] for f in b_said["figures"] if f["key"].startswith("bias.offset[")}
    assert said and all(text == keyed(found, key)[0]["text"] for key, text in said.items())
    slice_said = next(c for c in captions_[start:] if "query offsets" in c["text"])
    assert f" {d} query offsets" in slice_said["text"]
    assert ("first slice" in slice_said["text"]) == (ws.n_heads > 1)


def words(text: str) -> list[str]:
    """The words of a text (an equation's numbers and signs are not words)."""
    return [w for w in text.split() if any(ch.isalpha() for ch in w)]


@pytest.mark.parametrize("label", LABELS)
def test_the_projections_and_the_bias_free_lesson_are_pictures_not_sentences(bias, label: str
                                                                            ) -> None:
    for section in ("which projections", "this lesson"):
        found = texts(bias[label], section)
        long = [t["text"] for t in found if len(words(t["text"])) > LONGEST_LABEL]
        assert long == [], (section, long)
        assert {"W_Q", "W_K", "W_V", "W_O"} <= {t["text"] for t in found}  # drawn, named
    named = {t["text"] for t in texts(bias[label], "which projections")}
    assert {"causal mask", "position rows", "prediction MLP"} <= named


def boxes(found: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """The texts reading exactly ``text``, top first."""
    return sorted((t for t in found if t["text"] == text), key=lambda t: -centre(t)[1])


def on_one_line(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Each text's middle lies within the other's height: one line of the picture."""
    return all(other["box"][1] < centre(text)[1] < other["box"][3]
               for text, other in ((first, second), (second, first)))


@pytest.mark.parametrize("label", LABELS)
def test_it_says_what_a_bias_is_before_it_names_the_flag(bias, label: str) -> None:
    """The library comes in the next clip: this one never shows its call. It opens on the
    projection in the lesson's terms, q = e W_Q, adds b after the multiplication, and only
    then names the switch as PyTorch spells it, each name beside the line it gives."""
    result = bias[label]
    every = [t["text"] for s in result["sections"] for t in s["texts"]] + captions(result)
    assert not any("nn." in text or "MultiheadAttention" in text for text in every)
    found = texts(result, "the flag")
    plain, with_b = boxes(found, "q = e · W_Q")  # without the offset above, with it below
    (offset,) = boxes(found, "+ b")
    (on,), (off,) = boxes(found, "bias=True"), boxes(found, "bias=False")
    assert on_one_line(offset, with_b) and not on_one_line(offset, plain)
    assert offset["box"][0] > with_b["box"][2]  # b is added after the product
    assert on_one_line(on, with_b) and on_one_line(off, plain)  # each flag beside its line
    assert not on_one_line(on, plain) and not on_one_line(off, with_b)
    assert on["box"][2] < with_b["box"][0] and off["box"][2] < plain["box"][0]
    said = captions(result)
    start = next(i for i, c in enumerate(said) if "multiplies" in c)
    (definition,) = [i for i, c in enumerate(said) if "learned offset" in c]
    naming = next(i for i, c in enumerate(said) if "bias=" in c)
    assert start < definition < naming
    assert "after the multiplication" in said[definition]
    assert "PyTorch" in said[naming] and "this switch" in said[naming]
    assert not any("PyTorch" in c or "flag" in c for c in said[:naming])
    assert definition < next(i for i, c in enumerate(said) if "illustration" in c)
    named = [o["caption"] for o in result["outlined"]
             if {"bias=True", "bias=False"} & set(o["texts"])]
    assert named and min(named) == naming  # the flags are pointed at as they are named
    first = next(o for o in result["outlined"] if o["caption"] == start)
    assert first["texts"] == ["q = e · W_Q"]  # the clip's own start: the plain projection


@pytest.mark.parametrize("label", LABELS)
def test_the_projections_show_the_default_flag_and_what_w_o_offsets_are(bias,
                                                                        label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    found = {t["text"] for t in texts(bias[label], "which projections")}
    assert "What bias=True, the default, switches on" in found
    said = captions(bias[label])
    every = " ".join(said) + " ".join(t["text"] for s in bias[label]["sections"]
                                      for t in s["texts"])
    assert "in_proj" not in every and "out_proj" not in every  # no storage names unexplained
    assert any("belong to no head" in c for c in said) == (ws.n_heads > 1)
    (alone,) = [c for c in said if "leaves the mask" in c]
    assert "keeps its own biases" in alone
    # The packed offsets are added after the multiplication, never said over W_Q as Q + b.
    packed = [c for c in said if "no other head's" in c]
    assert packed == [] or all("Q + b" not in c for c in packed)
    if ws.n_heads > 1:  # the other heads' offsets are named for what they are
        (others,) = [c for c in said if "own too" in c]
        assert "learned numbers" in others and "hand-chosen example" in others
    assert not any("worksheet" in c for c in said)  # a word the viewer has not been taught


LONGEST = 122.0
"""Seconds the clip may last at caption pace: its length when it still opened on the
library call, which the opening in the lesson's own terms was not to exceed."""


def test_the_clip_stays_short(bias) -> None:
    """Read at caption pace, the clip stays near two minutes."""
    assert bias["default"]["manifest"]["duration"] <= LONGEST


@pytest.mark.parametrize("label", LABELS)
def test_the_multiplication_is_drawn_in_the_heads_columns(bias, label: str) -> None:
    """"After the multiplication" is a picture: the final receiver's e · W_Q in every head's
    columns, head 1's offsets beneath its own columns, and under those their sum; no
    number under another head's columns but its product (its offsets have no values)."""
    ws = load_worksheet(WORKSHEETS[label])
    if ws.n_heads == 1:
        assert "multiplied" not in {s["name"] for s in bias[label]["sections"]}
        return
    d, width, name = ws.d_model, ws.d_head, ws.walkthrough
    last = ws.length - 1
    expected = numbers(label)
    found = texts(bias[label], "multiplied")
    product = []
    for c in range(d):
        head, k = c // width + 1, c % width
        (cell,) = keyed(found, f"{name}.h{head}.Q[{last}][{k}]")
        value = expected[f"{name}.h{head}.Q"][last][k]
        assert reference.within_display(cell["text"], Style.PARAM, value)
        assert in_head_colour(cell, head, value)
        product.append(centre(cell))
    assert len({round(y, 2) for _, y in product}) == 1  # one row, e · W_Q
    for k in range(width):
        (b,) = keyed(found, f"bias.offset[{k}]")
        (total,) = keyed(found, f"bias.Q_offset[{last}][{k}]")
        sum_ = expected[f"{name}.h1.Q"][last][k] + expected["bias.offset"][k]
        assert reference.within_display(total["text"], Style.PARAM, sum_)
        xs = [product[k][0], centre(b)[0], centre(total)[0]]
        assert max(xs) - min(xs) < SAME_PLACE  # one column: product, offset, sum
        assert product[k][1] > centre(b)[1] > centre(total)[1]  # read top to bottom
    below = [t for t in found if t["figures"] and centre(t)[1] < product[0][1] - SAME_PLACE
             and centre(t)[0] > product[width - 1][0] + SAME_PLACE]
    assert all(k.startswith("dims.") for t in below for k, _ in t["figures"])  # symbols
    assert {"e · W_Q", "+ b"} <= {t["text"] for t in found}
    # The product's input is drawn: the final receiver's row e, named, left of W_Q, and the
    # product below the matrix, outside its brackets.
    (e,) = keyed(found, f"{name}.E[{last}][0]")
    for key, text in e["figures"]:  # a long row shows its ends
        assert key.startswith(f"{name}.E[{last}][")
        column = int(key.removeprefix(f"{name}.E[{last}][").rstrip("]"))
        assert reference.within_display(text, Style.PARAM, expected[f"{name}.E"][last][column])
    lowest_weight = min(centre(keyed(found, cell_key(label, d - 1, c))[0])[1] for c in range(d))
    leftmost = min(centre(keyed(found, cell_key(label, r, 0))[0])[0] for r in range(d))
    assert e["box"][2] < leftmost and product[0][1] < lowest_weight
    said = [c["text"] for c in bias[label]["manifest"]["captions"]]
    assert any(f"the final “{ws.sentences[name][-1]}”" in c for c in said)
