"""Plain names for value keys (what the transcript lists figures under): every value of
every test worksheet has one, in words, and no two values share one."""

from __future__ import annotations

import re

import pytest

from tests.test_scenes import WORKSHEETS
from worksheet import compute_values, load_worksheet
from worksheet.names import UnnamedKey, plain_name
from worksheet.results import chosen_experiment, load_experiment


@pytest.mark.parametrize("label", sorted(WORKSHEETS))
def test_every_value_has_a_plain_name_of_its_own(label: str) -> None:
    ws = load_worksheet(WORKSHEETS[label])
    chosen = chosen_experiment(None, ws)
    values = compute_values(ws, None if chosen is None else load_experiment(chosen, ws))
    named: dict[str, str] = {}
    for key in values:
        name = plain_name(key)
        words = re.sub(r"“[^”]*”", "", name)  # a sentence's id is the author's to choose
        assert not re.search(r"[_\[\]]|\w\.\w", words), f"{key}: {name}"
        assert name[0].isupper(), name
        assert named.setdefault(name, key) == key, f"{key} and {named[name]} read {name!r}"
    assert len(named) == len(values) > 400


@pytest.mark.parametrize(("key", "name"), [
    ("river.h1.weights", "Attention weights (the “river” sentence, head 1)"),
    ("cheque.h2.Q[9]", "Queries Q, row 10 (the “cheque” sentence, head 2)"),
    ("dims.head_numbers", "Head numbers (the lesson's sizes)"),
    ("trained.heads4.params", "Parameters (the trained models, the model with 4 heads)"),
    ("trained.heads1.params", "Parameters (the trained models, the model with 1 head)"),
    ("river.wide.denominator", "Softmax denominator (the “river” sentence, one wide head)"),
    ("mha.single.weights[1][4]",
     "Attention weights, block 2, row 5 (PyTorch's attention layer, one sentence alone)"),
])
def test_a_key_reads_as_what_it_is_then_where(key: str, name: str) -> None:
    assert plain_name(key) == name


def test_a_value_added_without_a_name_is_refused_naming_its_part() -> None:
    with pytest.raises(UnnamedKey, match="'brand_new'"):
        plain_name("river.h1.brand_new")
    with pytest.raises(UnnamedKey, match="'nowhere'"):
        plain_name("trained.nowhere.params")
