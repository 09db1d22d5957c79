"""The default worksheet reproduces every number the seed lesson prints for its example.

The expected figures below are transcribed from the seed notebook's printed output
(the lesson's reference), not from this program's run.
"""

from __future__ import annotations

import numpy as np
import pytest

from worksheet import Values

TOL = 5e-4
TOKENS = ["The", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the"]

# Implied by the seed's printed K matrices (head 1 keys = water/finance, head 2 = person/glue).
SEED_E = [
    [0.1, 0.0, 0.1, 2.3], [2.0, 0.1, 2.1, 0.0], [0.3, 0.0, 0.6, 1.9], [0.6, -0.1, 0.1, 2.0],
    [0.1, 0.1, 0.0, 2.3], [3.1, -0.1, 0.0, 0.1], [0.7, 0.7, 0.1, 0.8], [-0.1, 0.1, 0.1, 2.2],
    [0.7, 0.0, 0.7, 1.7], [0.0, 0.0, 0.0, 2.3],
]
SEED = {
    1: {
        "Q": [[2.3, 2.3], [0, 0], [1.9, 1.9], [2.0, 2.0], [2.3, 2.3], [0.1, 0.1], [0.8, 0.8],
              [2.2, 2.2], [1.7, 1.7], [2.3, 2.3]],
        "K": [[0.1, 0], [2.0, 0.1], [0.3, 0], [0.6, -0.1], [0.1, 0.1], [3.1, -0.1], [0.7, 0.7],
              [-0.1, 0.1], [0.7, 0], [0, 0]],
        "products": [[0.23, 0], [4.6, 0.23], [0.69, 0], [1.38, -0.23], [0.23, 0.23],
                     [7.13, -0.23], [1.61, 1.61], [-0.23, 0.23], [1.61, 0], [0, 0]],
        "dots": [0.23, 4.83, 0.69, 1.15, 0.46, 6.9, 3.22, 0.0, 1.61, 0.0],
        "scores": [0.163, 3.415, 0.488, 0.813, 0.325, 4.879, 2.277, 0.0, 1.138, 0.0],
        "exps": [1.177, 30.427, 1.629, 2.255, 1.384, 131.504, 9.746, 1.0, 3.122, 1.0],
        "denominator": 183.24386596679688,
        "weights": [0.006, 0.166, 0.009, 0.012, 0.008, 0.718, 0.053, 0.005, 0.017, 0.005],
        "contributions": [
            [0.0006420988, 0.0], [0.3320914209, 0.0166045707], [0.0026667707, 0.0],
            [0.0073837726, -0.0012306287], [0.0007554977, 0.0007554977],
            [2.2246968746, -0.0717644170], [0.0372311659, 0.0372311659],
            [-0.0005457209, 0.0005457209], [0.0119258026, 0.0], [0.0, 0.0]],
        "message": [2.616847515106201, -0.01785808987915516],
    },
    2: {
        "Q": [[2.3, 0], [0, 0], [1.9, 0], [2.0, 0], [2.3, 0], [0.1, 0], [0.8, 0], [2.2, 0],
              [1.7, 0], [2.3, 0]],
        "K": [[0.1, 2.3], [2.1, 0], [0.6, 1.9], [0.1, 2.0], [0, 2.3], [0, 0.1], [0.1, 0.8],
              [0.1, 2.2], [0.7, 1.7], [0, 2.3]],
        "products": [[0.23, 0], [4.83, 0], [1.38, 0], [0.23, 0], [0, 0], [0, 0], [0.23, 0],
                     [0.23, 0], [1.61, 0], [0, 0]],
        "dots": [0.23, 4.83, 1.38, 0.23, 0.0, 0.0, 0.23, 0.23, 1.61, 0.0],
        "scores": [0.163, 3.415, 0.976, 0.163, 0.0, 0.0, 0.163, 0.163, 1.138, 0.0],
        "exps": [1.177, 30.427, 2.653, 1.177, 1.0, 1.0, 1.177, 1.177, 3.122, 1.0],
        "denominator": 43.908485412597656,
        "weights": [0.027, 0.693, 0.060, 0.027, 0.023, 0.023, 0.027, 0.027, 0.071, 0.023],
        "contributions": [
            [0.0026796793, 0.0616326258], [1.4552171230, 0.0], [0.0362568945, 0.1148134917],
            [0.0026796793, 0.0535935871], [0.0, 0.0523816720], [0.0, 0.0022774641],
            [0.0026796793, 0.0214374345], [0.0026796793, 0.0589529462],
            [0.0497701131, 0.1208702773], [0.0, 0.0523816720]],
        "message": [1.551962971687317, 0.5383411645889282],
    },
}
SEED_CHEQUE = {1: [0.05300545319914818, 2.471384286880493],
               2: [2.3669915199279785, 0.4609062373638153]}


def close(actual: object, expected: object) -> None:
    np.testing.assert_allclose(np.array(actual, dtype=float), np.array(expected, dtype=float),
                               atol=TOL, rtol=0)


def test_the_walkthrough_sentence_is_the_river_bank(default_ws) -> None:
    assert default_ws.walkthrough == "river"
    assert list(default_ws.sentences["river"]) == TOKENS
    assert default_ws.ids("river") == (0, 1, 2, 3, 0, 4, 5, 6, 7, 0)


def test_token_plus_position_rows_are_the_seed_input_rows(default_values: Values) -> None:
    close(default_values.value("river.E"), SEED_E)


@pytest.mark.parametrize("head", [1, 2])
@pytest.mark.parametrize("quantity", ["Q", "K", "products", "dots", "scores", "exps",
                                      "denominator", "weights", "contributions", "message"])
def test_each_head_step_matches_the_seed(default_values: Values, head: int,
                                         quantity: str) -> None:
    close(default_values.value(f"river.h{head}.{quantity}"), SEED[head][quantity])


@pytest.mark.parametrize("head", [1, 2])
def test_value_rows_equal_key_rows_in_this_worksheet(default_values: Values, head: int) -> None:
    close(default_values.value(f"river.h{head}.V"), SEED[head]["K"])


def test_shared_denominators_display_as_in_the_seed(default_values: Values) -> None:
    assert default_values.text("river.h1.denominator") == "183.244"
    assert default_values.text("river.h2.denominator") == "43.908"


def test_messages_display_as_in_the_seed(default_values: Values) -> None:
    assert default_values["river.h1.message"].text == ["2.617", "\u22120.018"]
    assert default_values["river.h2.message"].text == ["1.552", "0.538"]


def test_head_one_favours_river_and_head_two_favours_fisherman(default_values: Values) -> None:
    assert TOKENS[default_values.value("river.h1.top_source")] == "river"
    assert TOKENS[default_values.value("river.h2.top_source")] == "fisherman"


def test_one_wide_head_weighs_river_and_fisherman_as_the_seed_prints(
        default_values: Values) -> None:
    weights = default_values.value("river.wide.weights")
    close([weights[5], weights[1]], [0.178, 0.708])
    close([default_values.value("river.h1.weights[5]"),
           default_values.value("river.h1.weights[1]")], [0.718, 0.166])


def test_water_update_is_head_one_plus_a_quarter_of_head_two(default_values: Values) -> None:
    terms = default_values.value("river.update_terms")
    assert default_values.value("params.W_O[2][0]") == pytest.approx(0.25)
    close(terms[0][0], 2.617)
    close(default_values.value("river.h2.message[0]"), 1.552)
    close(default_values.value("river.delta[9][0]"), 3.005)
    assert default_values.text("river.delta[9][0]") == "3.005"


@pytest.mark.parametrize("head", [1, 2])
def test_cheque_messages_match_the_seed(default_values: Values, head: int) -> None:
    close(default_values.value(f"cheque.h{head}.message"), SEED_CHEQUE[head])
    assert default_values[f"cheque.h{head}.message"].text == [
        f"{x:.3f}" for x in SEED_CHEQUE[head]]


def test_the_lesson_reads_well(default_ws, default_values: Values) -> None:
    assert default_ws.vocab[default_values.value("river.prediction")] == "water"
    assert default_ws.vocab[default_values.value("cheque.prediction")] == "teller"
    assert len(default_ws.vocab) == 20
    assert {"water", "teller"} <= set(default_ws.vocab)
    assert all(len(tokens) == 10 for tokens in default_ws.sentences.values())


def test_the_two_source_toy_matches_the_seed(default_values: Values) -> None:
    close(default_values.value("toy.one_head"), [8.4, 2.4])
    close(default_values.value("toy.two_heads"), [8.4, 6.6])
    close(default_values.value("toy.required"), [0.8, 0.2])


def test_bias_example_matches_the_seed(default_values: Values) -> None:
    close(default_values.value("bias.Q_offset[9]"), [2.5, 2.2])
    assert default_values.value("bias.params_without") == 64
    assert default_values.value("bias.params_with") == 80
    assert default_values.value("bias.extra") == 16
    assert default_values.text("bias.in_proj_bias") == "[12]"
    assert default_values.text("bias.out_proj_bias") == "[4]"


def test_trained_model_shapes_match_the_seed(default_values: Values) -> None:
    assert default_values.value("trained.mlp.flat_width") == 4096
    assert default_values.value("trained.mlp.W_hidden") == [4096, 256]
    assert default_values.value("trained.mlp.W_vocab") == [256, 4000]
    assert default_values.value("trained.heads4.Q") == [64, 16]
    assert default_values.value("trained.heads4.A") == [64, 64]
    assert default_values.value("trained.heads4.joined") == [64, 64]
    assert default_values.value("trained.heads1.Q") == [64, 64]
    # Four smaller heads keep the attention parameter count of one wide head.
    assert (default_values.value("trained.heads1.params")
            == default_values.value("trained.heads4.params"))


def test_patch_example_matches_the_seed(default_values: Values) -> None:
    assert default_values.value("patches.count") == 4
    assert default_values.value("patches.values_per_patch") == 16
    assert default_values.value("patches.shape.W") == [16, 4]
    assert default_values.value("patches.total_rows") == 5
    assert default_values.value("patches.shape.image") == [8, 8]
