"""The bias flag teaches with pictures: the model map names W_O as well as the heads; one
bias row, drawn once, is added to every query row; a row the projection sends to zero becomes
the bias itself (where the worksheet has one); position rows, each different, stand beside
the one bias row; the parameter counts are derived on screen; and PyTorch's packed weight
is shown as the three matrices, each transposed, stacked along the rows. Checked on dry runs
of several worksheets, every expected number recomputed here from the worksheet."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "three", "wide", "four")
"""Two heads with a query row of zeros; three heads; one wide head; four heads of three
tokens."""
PROJECTIONS = 4
"""W_Q, W_K, W_V and W_O."""


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
    assert "learned" not in " ".join(said)
    assert "training learns" in values


@pytest.mark.parametrize("label", LABELS)
def test_several_different_position_rows_stand_beside_one_bias_row(bias, label: str) -> None:
    found = texts(bias[label], "not a position row")
    positions = np.asarray(numbers(label)["params.pos_emb"])
    rows = [r for r in range(len(positions)) if keyed(found, f"params.pos_emb[{r}][0]")]
    assert len(rows) >= min(2, len(positions))
    assert len({tuple(positions[r]) for r in rows}) == len(rows)  # each position its own
    (b,) = keyed(found, "bias.offset[0]")
    assert all(centre(keyed(found, f"params.pos_emb[{r}][0]")[0])[0] < centre(b)[0]
               for r in rows)


@pytest.mark.parametrize("label", LABELS)
def test_the_parameter_counts_are_derived_on_screen(bias, label: str) -> None:
    d = load_worksheet(WORKSHEETS[label]).d_model
    found = {t["text"] for t in texts(bias[label], "which projections")}
    without, extra = PROJECTIONS * d * d, PROJECTIONS * d
    assert f"{d} × {d} = {shown(d * d)} weights" in found
    assert f"+ {d} offsets" in found
    assert (f"bias=False: {PROJECTIONS} × {shown(d * d)} = {shown(without)} parameters"
            in found)
    assert f"offsets:    {PROJECTIONS} × {d} = {shown(extra)}" in found
    assert (f"bias=True:  {shown(without)} + {shown(extra)} = {shown(without + extra)} "
            "parameters") in found


@pytest.mark.parametrize("label", LABELS)
def test_the_packed_weight_is_three_transposed_matrices_stacked(bias, label: str) -> None:
    d = load_worksheet(WORKSHEETS[label]).d_model
    found = [t["text"] for t in texts(bias[label], "stored shapes")]
    assert f"W_Q [in, out] = [{d}, {d}]" in found
    assert [t for t in found if t.endswith("ᵀ")] == ["W_Qᵀ", "W_Kᵀ", "W_Vᵀ"]
    assert found.count(f"[out, in] = [{d}, {d}]") == 3
    assert f"in_proj_weight [{3 * d}, {d}]" in found
    said = " ".join(captions(bias[label]))
    assert "transposed" in said and "stacks the query, key and value matrices" in said
