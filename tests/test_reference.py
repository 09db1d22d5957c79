"""Every computed value agrees with an independent numpy recomputation, for any shape."""

from __future__ import annotations

import numpy as np
import pytest

from tests import reference

TOL = 1e-4  # torch computes in float32, the reference in float64

STEPS = ["Q", "K", "V", "products", "dots", "scores", "exps", "denominator", "weights",
         "contributions", "message", "A", "H"]


@pytest.fixture(params=["default", "three"])
def case(request, default_doc, default_values, three_doc, three_values):
    if request.param == "default":
        return default_doc, default_values
    return three_doc, three_values


def close(actual: object, expected: object) -> None:
    np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float),
                               atol=TOL, rtol=TOL)


def test_every_sentence_and_head_matches_numpy(case) -> None:
    doc, values = case
    for name in doc["sentences"]:
        ref = reference.sentence(doc, name)
        close(values.value(f"{name}.E"), ref["E"])
        for h, head in enumerate(ref["heads"], start=1):
            for step in STEPS:
                close(values.value(f"{name}.h{h}.{step}"), head[step])
            block = ref["W_O"][(h - 1) * len(head["message"]):h * len(head["message"])]
            close(values.value(f"{name}.h{h}.share"), head["H"] @ block)
        for step in STEPS[3:]:
            close(values.value(f"{name}.wide.{step}"), ref["wide"][step])
        for key in ("joined", "delta", "E_prime", "hidden", "logits", "probs"):
            close(values.value(f"{name}.{key}"), ref[key])
        assert values.value(f"{name}.prediction") == ref["prediction"]


def test_head_shares_add_up_to_the_update(case) -> None:
    doc, values = case
    heads = len(doc["headsLesson"]["projections"])
    for name in doc["sentences"]:
        total = sum(np.array(values.value(f"{name}.h{h}.share")) for h in range(1, heads + 1))
        close(total, values.value(f"{name}.delta"))
        terms = np.array(values.value(f"{name}.update_terms"))
        close(terms.sum(axis=0), values.value(f"{name}.delta")[-1])


def test_each_receiver_weights_sum_to_one_and_skip_the_future(case) -> None:
    doc, values = case
    for name in doc["sentences"]:
        for h in range(1, len(doc["headsLesson"]["projections"]) + 1):
            A = np.array(values.value(f"{name}.h{h}.A"))
            close(A.sum(axis=1), np.ones(len(A)))
            assert not np.triu(A, 1).any()
            close(values.value(f"{name}.h{h}.weights_sum"), 1.0)
            close(values.value(f"{name}.h{h}.weights"), A[-1])


def test_toy_patches_and_trained_counts_match_numpy(case) -> None:
    doc, values = case
    for key, expected in reference.toy(doc).items():
        close(values.value(f"toy.{key}"), expected)
    for key, expected in reference.patches(doc).items():
        close(values.value(f"patches.{'sequence' if key == 'sequence' else key}"), expected)
    for model, count in reference.trained_parameter_counts(doc).items():
        assert values.value(f"trained.{model}.params") == count


def test_bias_counts_follow_the_formula(case) -> None:
    doc, values = case
    width = len(next(iter(doc["tok_emb"].values())))
    assert values.value("bias.params_without") == 4 * width * width
    assert values.value("bias.extra") == 4 * width
    assert values.value("bias.in_proj_bias") == [3 * width]
    close(values.value("bias.Q_offset"), np.array(values.value(
        f"{next(iter(doc['sentences']))}.h1.Q")) + doc["lesson"]["bias"]["offset"])


def test_pytorch_layer_agrees_with_the_scratch_layer(case) -> None:
    _, values = case
    assert values.value("mha.max_diff_delta") < 1e-12
    assert values.value("mha.max_diff_A") < 1e-12


def test_batch_lab_shapes_loss_and_generation(case) -> None:
    doc, values = case
    names = list(doc["sentences"])
    heads = len(doc["headsLesson"]["projections"])
    width = len(next(iter(doc["tok_emb"].values())))
    batch, length = len(names), len(doc["sentences"][names[0]])
    assert values.value("lab.shape.E") == [batch, length, width]
    assert values.value("lab.shape.Q_heads") == [batch, heads, length, width // heads]
    assert values.value("lab.shape.A") == [batch, heads, length, length]
    assert values.value("lab.shape.joined") == [batch, length, width]
    assert values.value("lab.shape.logits") == [batch, len(doc["vocab"])]
    targets = [doc["vocab"].index(doc["lesson"]["targets"][n]) for n in names]
    final_logits = np.array([reference.sentence(doc, n)["logits"][-1] for n in names])
    log_probs = final_logits - np.log(np.exp(final_logits).sum(axis=1, keepdims=True))
    close(values.value("lab.loss"), -log_probs[np.arange(batch), targets].mean())
    assert values.value("lab.finite_grads") == values.value("lab.param_tensors")
    assert values.value("lab.loss_after") < values.value("lab.loss")
    assert values.value("lab.next_id") == reference.sentence(doc, names[0])["prediction"]
