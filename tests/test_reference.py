"""Every displayed text agrees, to its last digit, with an independent numpy recomputation.

The rule: each text lies within half a unit of its last shown digit of the float64 numpy
value from :mod:`tests.reference` (whole numbers and shapes exactly), for every key of
every test worksheet, of any shape.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import reference
from worksheet import DEFAULT_WORKSHEET, Style, Values, compute_values, load_worksheet, parse_key

DATA = Path(__file__).parent / "data"
WORKSHEETS = {
    "default": DEFAULT_WORKSHEET,
    "three-heads": DATA / "three-heads.json",
    "seed-three-heads": DATA / "seed-three-heads.json",
    "one-wide-head": DATA / "one-wide-head.json",
    "four-heads": DATA / "four-heads.json",
    "markup-words": DATA / "markup-words.json",
}
EXACT = 1e-12  # float64 rounding of a few operations: consistency checks, not display

STEPS = ["Q", "K", "V", "products", "dots", "scores", "exps", "denominator", "weights",
         "contributions", "message", "A", "H"]


@pytest.fixture(scope="module", params=list(WORKSHEETS))
def case(request: pytest.FixtureRequest) -> tuple[dict[str, Any], Values, dict[str, Any]]:
    """``(filled document as JSON data, computed values, reference values)``."""
    ws = load_worksheet(WORKSHEETS[request.param])
    doc = json.loads(json.dumps(dict(ws.document)))
    return doc, compute_values(ws), reference.values(doc)


def close(actual: object, expected: object) -> None:
    """Equal up to float64 rounding (relative to the magnitude, at least one)."""
    a, b = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.abs(b).max(initial=0.0)))
    np.testing.assert_allclose(a, b, rtol=0, atol=EXACT * scale)


def disagreements(values: Values, expected: dict[str, Any]) -> list[str]:
    """Every key whose shape or displayed text disagrees with the reference."""
    wrong = []
    for key, figure in values.items():
        ref = expected[key]
        if figure.style is not Style.SHAPE and np.shape(ref) != figure.shape:
            wrong.append(f"{key}: shape {list(figure.shape)}, numpy {list(np.shape(ref))}")
            continue
        for leaf in figure.leaves():
            _, index = parse_key(leaf.key)
            value = ref if figure.style is Style.SHAPE or not index else np.asarray(ref)[index]
            if not reference.within_display(leaf.text, leaf.style, value):
                wrong.append(f"{leaf.key} ({leaf.style.value}): shows {leaf.text!r}, "
                             f"numpy {value!r}")
    return wrong


def test_every_displayed_text_matches_numpy_to_its_last_digit(case) -> None:
    _, values, expected = case
    assert sorted(set(values) - set(expected)) == [], "keys without a reference value"
    assert sorted(set(expected) - set(values)) == [], "reference keys the program lacks"
    wrong = disagreements(values, expected)
    assert not wrong, f"{len(wrong)} displayed texts disagree:\n" + "\n".join(wrong[:200])


def test_a_reference_off_by_one_last_digit_is_reported(case) -> None:
    _, values, expected = case
    nudged = {"lab.next_prob": 0.002, "params.W_O": 0.002, "lab.X": 1, "dims.d_model": 1}
    for key, step in nudged.items():
        changed = {**expected, key: np.asarray(expected[key]) + step}
        assert any(line.startswith(f"{key}[") or line.startswith(f"{key} ")
                   for line in disagreements(values, changed)), key
    changed = {**expected, "shapes.E": [size + 1 for size in expected["shapes.E"]]}
    assert disagreements(values, changed) == [
        f"shapes.E (shape): shows {values.text('shapes.E')!r}, numpy {changed['shapes.E']!r}"]


def test_the_reference_gradient_matches_finite_differences(case) -> None:
    doc, _, expected = case
    if not doc["lesson"]["targets"]:
        pytest.skip("no observed next words, no loss")
    params = reference.lm_parameters(doc)
    X, y, heads = np.asarray(expected["lab.X"]), np.asarray(expected["lab.y"]), \
        expected["dims.heads"]
    _, _, grads = reference.lm_loss(params, X, y, heads, gradient=True)
    step = 1e-6
    for key, array in params.items():
        numeric = np.zeros_like(array)
        for i in np.ndindex(array.shape):
            moved = []
            for sign in (1, -1):
                shifted = {name: value.copy() for name, value in params.items()}
                shifted[key][i] += sign * step
                moved.append(reference.lm_loss(shifted, X, y, heads)[1])
            numeric[i] = (moved[0] - moved[1]) / (2 * step)
        np.testing.assert_allclose(grads[key], numeric, rtol=0, atol=1e-7, err_msg=key)
    # The loss does not depend on unused token rows or on positions past the sentences:
    # exactly zero gradient there, so AdamW leaves them to the weight decay alone.
    unused = np.setdiff1d(np.arange(len(doc["vocab"])), X)
    assert not grads["tok_emb"][unused].any()
    assert not grads["pos_emb"][X.shape[1]:].any()


def test_the_reference_adamw_step_moves_each_entry_by_the_learning_rate() -> None:
    params = {"p": np.array([1.0, -2.0, 3.0])}
    grads = {"p": np.array([0.5, -1e-3, 0.0])}
    stepped = reference.adamw_first_step(params, grads, 0.1)["p"]
    decayed = params["p"] * (1 - 0.1 * reference.ADAMW_WEIGHT_DECAY)
    close(stepped[2], decayed[2])  # no gradient, no update beyond the decay
    close(decayed[:2] - stepped[:2], 0.1 * np.sign(grads["p"][:2]) * np.array(
        [0.5 / (0.5 + reference.ADAMW_EPS), 1e-3 / (1e-3 + reference.ADAMW_EPS)]))


def test_the_reference_is_plain_numpy() -> None:
    tree = ast.parse(Path(reference.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if name.split(".")[0] == "torch"}
    assert not imported & {"worksheet.compute", "worksheet.model", "worksheet.schema"}


def test_sentence_keeps_its_step_by_step_layout(case) -> None:
    doc, _, expected = case
    for name in doc["sentences"]:
        ref = reference.sentence(doc, name)
        for h, head in enumerate(ref["heads"], start=1):
            for step in STEPS:
                assert np.array_equal(head[step], expected[f"{name}.h{h}.{step}"])


def test_head_shares_add_up_to_the_update(case) -> None:
    doc, values, _ = case
    heads = len(doc["headsLesson"]["projections"])
    for name in doc["sentences"]:
        total = sum(np.array(values.value(f"{name}.h{h}.share")) for h in range(1, heads + 1))
        close(total, values.value(f"{name}.delta"))
        terms = np.array(values.value(f"{name}.update_terms"))
        close(terms.sum(axis=0), values.value(f"{name}.delta")[-1])


def test_each_receiver_weights_sum_to_one_and_skip_the_future(case) -> None:
    doc, values, _ = case
    for name in doc["sentences"]:
        for h in range(1, len(doc["headsLesson"]["projections"]) + 1):
            A = np.array(values.value(f"{name}.h{h}.A"))
            close(A.sum(axis=1), np.ones(len(A)))
            assert not np.triu(A, 1).any()
            close(values.value(f"{name}.h{h}.weights_sum"), 1.0)
            close(values.value(f"{name}.h{h}.weights"), A[-1])


def test_bias_counts_follow_the_formula(case) -> None:
    doc, values, _ = case
    width = len(next(iter(doc["tok_emb"].values())))
    assert values.value("bias.params_without") == 4 * width * width
    assert values.value("bias.extra") == 4 * width
    assert values.value("bias.in_proj_bias") == [3 * width]
    for model, count in reference.trained_parameter_counts(doc).items():
        assert values.value(f"trained.{model}.params") == count


def test_pytorch_layer_agrees_with_the_scratch_layer(case) -> None:
    _, values, _ = case
    assert values.value("mha.max_diff_delta") < 1e-12
    assert values.value("mha.max_diff_A") < 1e-12


def test_batch_lab_loss_falls_and_generation_continues_the_first_sentence(case) -> None:
    doc, values, expected = case
    names = list(doc["sentences"])
    assert values.value("lab.next_id") == expected[f"{names[0]}.prediction"]
    close(values.value("lab.next_prob"), expected[f"{names[0]}.probs"].max())
    if doc["lesson"]["targets"]:
        assert values.value("lab.finite_grads") == values.value("lab.param_tensors")
        assert values.value("lab.loss_after") < values.value("lab.loss")
        assert expected["lab.loss_after"] < expected["lab.loss"]
        final = np.array([expected[f"{name}.logits"][-1] for name in names])
        log_probs = final - np.log(np.exp(final).sum(axis=1, keepdims=True))
        targets = [expected[f"{name}.target"] for name in names]
        close(expected["lab.loss"], -log_probs[np.arange(len(names)), targets].mean())
    else:
        assert not {"lab.loss", "lab.y", "lab.loss_after"} & set(values)


def test_the_labs_adamw_step_is_torchs_adamw_step() -> None:
    """The lab's update (torch's functional AdamW, which spares every process the import
    of ``torch._dynamo``) moves every parameter exactly as ``torch.optim.AdamW`` does."""
    import torch

    from worksheet.compute import _adamw_first_step

    torch.manual_seed(3)
    models = [torch.nn.Linear(4, 3) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    for model in models:
        model(torch.randn(5, 4, generator=torch.Generator().manual_seed(5))).square().sum() \
            .backward()
    before = [p.detach().clone() for p in models[0].parameters()]
    _adamw_first_step(models[0], 0.05)
    optimizer = torch.optim.AdamW(models[1].parameters(), lr=0.05)
    optimizer.step()
    for mine, theirs, old in zip(models[0].parameters(), models[1].parameters(), before,
                                 strict=True):
        assert torch.equal(mine, theirs)
        assert not torch.equal(mine, old)  # a real update


# --------------------------------------------------------------------------- decisions a
# viewer sees: which coordinate, patch or model a sentence names is a value, held equal to
# the reference's choice on every worksheet above and on the variants below.


def test_the_wide_heads_thresholds_are_the_lessons() -> None:
    from worksheet import compute

    assert (compute.ALMOST_THE_SAME, compute.CHANGED_MUCH) == (reference.ALMOST_THE_SAME,
                                                               reference.CHANGED_MUCH)


def test_the_wide_heads_kept_and_changed_coordinates_say_what_their_numbers_do(case) -> None:
    """The twin head's kept coordinate comes through within 5%, its changed one is off by
    30% or more, and "drops" is said exactly when the wide head's number is the smaller."""
    doc, values, _ = case
    last = len(doc["sentences"][next(iter(doc["sentences"]))]) - 1
    for name in doc["sentences"]:
        twin = values.value(f"{name}.wide.twin")
        if twin < 0:
            assert values.value(f"{name}.wide.kept") == values.value(f"{name}.wide.changed") \
                == -1
            continue
        assert values.value(f"{name}.h{twin + 1}.top_source") == \
            values.value(f"{name}.wide.top_source")
        width = values.value("dims.d_head")
        for kind in ("kept", "changed"):
            k = values.value(f"{name}.wide.{kind}")
            if k < 0:
                continue
            assert twin * width <= k < (twin + 1) * width
            wide = values.value(f"{name}.wide.message[{k}]")
            separate = values.value(f"{name}.joined[{last}][{k}]")
            off = abs(wide / separate - 1)
            assert off <= 0.05 if kind == "kept" else off >= 0.3
            if kind == "changed":
                assert values.value(f"{name}.wide.changed_drops") == int(wide < separate)


def _variant(tmp_path: Path, change: Any) -> tuple[Values, dict[str, Any]]:
    """The default worksheet with ``change`` applied to its filled document: its values
    and the reference's."""
    doc = json.loads(json.dumps(dict(load_worksheet(DEFAULT_WORKSHEET).document)))
    change(doc)
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ws = load_worksheet(path)
    return compute_values(ws), reference.values(json.loads(json.dumps(dict(ws.document))))


def _swap_two_pixels(doc: dict[str, Any]) -> None:
    """The bottom-right patch's first two pixels swapped with the bottom-left one's: the
    projection's first two rows are equal, so the patches' rows stay equal."""
    image = doc["lesson"]["patches"]["image"]
    image[4][0], image[4][1], image[4][4], image[4][5] = 0, 1, 1, 0


def _no_equal_patches(doc: dict[str, Any]) -> None:
    doc["lesson"]["patches"]["image"][7][7] = 0


@pytest.mark.parametrize(("change", "twins", "same"), [
    (_swap_two_pixels, [2, 3], 0), (_no_equal_patches, None, None)])
def test_twin_patches_are_the_first_equal_rows_and_say_whether_their_pixels_are(
        tmp_path: Path, change: Any, twins: list[int] | None, same: int | None) -> None:
    values, expected = _variant(tmp_path, change)
    assert not disagreements(values, expected)
    assert sorted(set(values) ^ set(expected)) == []
    if twins is None:
        assert values.value("patches.twins") == [-1, -1]
        assert values.value("patches.twins_same_pixels") == 0
        return
    assert values.value("patches.twins") == twins
    assert values.value("patches.twins_same_pixels") == same


def test_the_default_patches_twins_hold_the_same_pixels(case) -> None:
    _, values, _ = case
    i, j = values.value("patches.twins")
    if i < 0:
        return
    flat = np.asarray(values.value("patches.flat"))
    rows = np.asarray(values.value("patches.rows"))
    assert i < j and np.array_equal(rows[i], rows[j])
    assert not any(np.array_equal(rows[a], rows[b]) for a in range(len(rows))
                   for b in range(a + 1, len(rows)) if (a, b) < (i, j))
    assert values.value("patches.twins_same_pixels") == int(np.array_equal(flat[i], flat[j]))


def test_the_other_head_is_the_first_to_favour_another_source(case) -> None:
    doc, values, _ = case
    heads = len(doc["headsLesson"]["projections"])
    for name in doc["sentences"]:
        tops = [values.value(f"{name}.h{h}.top_source") for h in range(1, heads + 1)]
        differ = [h for h in range(heads) if tops[h] != tops[0]]
        assert values.value(f"{name}.other_head") == (differ[0] if differ else -1)


@pytest.mark.parametrize("seconds", [
    None,
    # the MLP fastest; one head's seeds spread widest although four heads' highest is higher
    {"mlp": (61.2, 60.8, 62.0), "heads1": (80.0, 99.0, 90.0), "heads4": (104.7, 103.9, 105.5)},
    # four heads fastest on average; the MLP's range the widest
    {"mlp": (50.0, 150.0, 100.0), "heads1": (95.3, 96.1, 94.9), "heads4": (60.0, 61.0, 62.0)},
])
def test_the_fastest_and_the_widest_spread_models_are_the_numbers(
        tmp_path: Path, seconds: dict[str, tuple[float, ...]] | None) -> None:
    from tests import experiments
    from worksheet.results import load_experiment

    ws = load_worksheet(DEFAULT_WORKSHEET)
    document = experiments.document(ws) if seconds is None else \
        experiments.document(ws, seconds=seconds)
    folder = experiments.write(tmp_path / "experiment", document)
    values = compute_values(ws, load_experiment(folder, ws))
    choices = reference.result_choices(document)
    for key, place in choices.items():
        assert values.value(key) == place, key
    models = ["mlp", *(f"heads{h}" for h in ws.lesson.trained.heads)]
    assert values.value("trained.model_count") == len(models)
    if seconds is not None:
        widest = models[choices["trained.results.widest_seconds"]]
        highest = max(models, key=lambda m: max(seconds[m]))
        assert (widest, highest) in {("heads1", "heads4"), ("mlp", "mlp")}
