"""The values tree: stable keys, one display format, read-only, and the JSON command."""

from __future__ import annotations

import dataclasses
import json

import pytest

from worksheet import MINUS, Style, Values, format_number, format_value, parse_key


def test_an_indexed_key_reaches_one_entry(default_values: Values) -> None:
    figure = default_values["river.h1.weights[5]"]
    assert figure.key == "river.h1.weights[5]"
    assert figure.text == "0.718"
    assert default_values.text("river.h1.Q[9][1]") == "2.3"
    assert parse_key("river.h1.Q[9][1]") == ("river.h1.Q", (9, 1))


def test_unknown_and_out_of_range_keys_are_refused(default_values: Values) -> None:
    with pytest.raises(KeyError, match="no value named"):
        default_values["river.h9.weights"]
    with pytest.raises(KeyError, match="out of range"):
        default_values["river.h1.weights[10]"]
    with pytest.raises(KeyError, match="several numbers"):
        default_values.text("river.h1.weights")
    assert "river.h1.weights[9]" in default_values
    assert "river.h1.weights[10]" not in default_values


def test_values_cannot_be_changed(default_values: Values) -> None:
    figure = default_values["river.h1.weights"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        figure.value = (1.0,)  # type: ignore[misc]
    assert isinstance(figure.value, tuple)
    with pytest.raises(TypeError):
        default_values["x"] = figure  # type: ignore[index]


def test_leaves_cover_every_number_once(default_values: Values) -> None:
    keys = [leaf.key for leaf in default_values.leaves()]
    assert len(keys) == len(set(keys))
    assert "river.h2.contributions[1][0]" in keys
    for leaf in list(default_values.leaves())[:: max(1, len(keys) // 200)]:
        looked_up = default_values[leaf.key]
        assert isinstance(looked_up.text, str)
        assert (looked_up.value, looked_up.text) == (leaf.value, leaf.text)


@pytest.mark.parametrize(("value", "style", "text"), [
    (0.71764, Style.FIXED3, "0.718"),
    (-0.0178, Style.FIXED3, f"{MINUS}0.018"),
    (-0.0001, Style.FIXED3, "0.000"),
    (2.299999952316284, Style.PARAM, "2.3"),
    (0.25, Style.PARAM, "0.25"),
    (1.0, Style.PARAM, "1"),
    (-0.1000000015, Style.PARAM, f"{MINUS}0.1"),
    (-0.0001, Style.PARAM, "0"),
    (4096, Style.COUNT, "4,096"),
    (2332832, Style.COUNT, "2,332,832"),
    (13, Style.INDEX, "13"),
    (15429041.593, Style.FIXED3, "1.543e+07"),
    (-999999.9996, Style.FIXED3, f"{MINUS}1.000e+06"),
    (999999.9994, Style.FIXED3, "999999.999"),
    (-15000000.0, Style.PARAM, f"{MINUS}1.5e+07"),
    (4.4e-16, Style.BELOW, f"< 1e{MINUS}12"),
    (0.0, Style.BELOW, f"< 1e{MINUS}12"),
])
def test_the_shared_formatter(value: float, style: Style, text: str) -> None:
    assert format_number(value, style) == text


def test_noise_above_the_bound_is_refused() -> None:
    with pytest.raises(ValueError, match="not below"):
        format_number(2e-12, Style.BELOW)


def test_shapes_read_like_pytorch_sizes() -> None:
    assert format_value([10, 4], Style.SHAPE) == "[10, 4]"
    assert format_value([12], Style.SHAPE) == "[12]"
    with pytest.raises(ValueError):
        format_number(float("nan"), Style.FIXED3)


def test_weights_messages_and_updates_use_three_decimals(default_values: Values) -> None:
    for key in ("river.h1.weights", "river.h2.message", "river.delta", "river.E_prime",
                "cheque.h1.contributions", "river.probs"):
        assert default_values[key].style is Style.FIXED3


def test_values_json_lists_every_value(lecture, default_values: Values) -> None:
    result = lecture("values", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert set(document) == {"worksheet", "values", "experiment"}
    assert len(document["worksheet"]["sha256"]) == 64
    assert document["worksheet"]["path"].endswith("multihead-worksheet.json")
    # the default worksheet's lecture shows the bundled experiment's results as well
    from worksheet.results import BUNDLED

    assert document["experiment"]["path"] == str((BUNDLED / "experiment.json").resolve())
    results = {key for key in document["values"] if key.startswith("trained.results.")}
    assert results and set(document["values"]) - results == set(default_values)
    none = json.loads(lecture("values", "--json", "--experiment", "none").stdout)
    assert set(none) == {"worksheet", "values"} and set(none["values"]) == set(default_values)
    entry = document["values"]["river.h1.weights"]
    assert entry["text"][5] == "0.718"
    assert entry["value"][5] == pytest.approx(0.7176441550254822, abs=1e-7)
    assert document["values"]["river.h1.denominator"]["text"] == "183.244"


def test_values_are_the_same_in_every_process(in_processes) -> None:
    (first, _), (second, _) = in_processes("values", "--json")
    assert json.loads(first.stdout)["values"]  # a real document, not two empty answers
    assert first.stdout == second.stdout


def test_values_table_names_keys(lecture) -> None:
    result = lecture("values")
    assert result.exit_code == 0
    assert "river.h1.denominator" in result.stdout and "183.244" in result.stdout


def test_environment_variable_selects_the_worksheet(lecture, monkeypatch) -> None:
    from tests.conftest import THREE_HEADS

    monkeypatch.setenv("LECTURE_WORKSHEET", str(THREE_HEADS))
    document = json.loads(lecture("values", "--json").stdout)
    assert document["worksheet"]["path"] == str(THREE_HEADS)
    assert "boat.h3.weights" in document["values"]
