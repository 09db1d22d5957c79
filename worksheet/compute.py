"""Compute, once and with torch, every number the lecture displays.

Everything the lecture shows is computed in float64, so every displayed digit is true
(float32 holds about seven significant digits, fewer than a denominator such as
``15429041.593`` shows). The result is a :class:`~worksheet.values.Values` tree. Key
layout (``S`` is a sentence name, ``hN`` a head counted from one, indices count from
zero):

``dims.*``
    model width, head width and its square root ``sqrt_d_head`` (the scale of the
    scores, ``2`` for a width of four), heads, tokens, vocabulary, hidden size, context, and the
    labels ``positions`` (1…T), ``head_numbers`` (1…H), ``hidden_units`` (1…the hidden
    size) and ``value_numbers`` (1…the head width: a head's value coordinates) that scenes
    and slides show.
``params.*``
    the worksheet's parameters, including each head's block ``params.hN.W_O``, and
    ``params.hN.K_reads``: how much of each input feature a head's keys read (the sum of
    the absolute entries of that feature's row of its ``W_K``), and ``params.hN.K_order``:
    the features from the most read to the least (ties in feature order);
    ``params.hN.K_features`` and ``params.hN.V_features``: the input feature each
    coordinate of the head's keys (values) copies when its column of ``W_K`` (``W_V``) has
    a single nonzero entry, ``-1`` for a column that mixes features; ``params.hN.V_is_K``:
    ``1`` when its ``W_V`` has the same entries as its ``W_K``, else ``0``.
``S.*``
    ``ids``, ``E``; per head ``Q K V products dots scale scores exps denominator weights
    weights_sum contributions message A H share top_source message_top`` (``message_top``: the
    message's coordinate of largest magnitude), the final receiver's message as
    its two heaviest terms and the rest (``order rest mostly_rest``), and two asides on the final
    receiver's softmax: ``unscaled.weights`` (the softmax of the dot products without the
    division by the square root of the head width) and ``stable.max stable.scores
    stable.exps stable.denominator stable.weights`` (the largest score subtracted before
    exponentiating); ``mask joined delta E_prime update_terms hidden_pre hidden logits probs
    prediction target``, with ``probs_sum``, ``ranked`` (the vocabulary from the most
    probable word down) and ``probs_rest`` (``probs_rest[k]``: the probability of every word
    outside the ``k`` most probable); for the final receiver ``hidden_terms`` (``[c][k]``:
    E′ coordinate ``c`` times ``W_hidden[c][k]``), ``logit_terms`` (``[k][w]``: hidden number
    ``k`` times ``W_vocab[k][w]``), ``top_hidden`` (the hidden number that adds most to
    the predicted word's logit), ``top_input`` (the E′ coordinate adding most to it),
    ``logit_others`` (what the other hidden numbers add to that logit) and ``input_top``
    (the receiver's input coordinate of largest magnitude);
    ``S.wide.*`` for one wide head, with its value rows ``S.wide.V`` (every head's value
    row side by side), ``order rest mostly_rest`` and ``diluted``, and ``twin kept changed
    changed_drops``: the head whose favourite the wide head shares, and which of its
    coordinates comes through almost the same and which changes much (:func:`_wide_twin`);
    ``S.other_head``: the first head (from zero) whose strongest source is not head 1's,
    ``-1`` for none.
``shapes.*``
    shapes of every matrix in the layer, for the walkthrough sentence, and of the heads'
    query projections packed side by side (``W_Q_packed``, ``q_packed``).
``bias.* toy.* mha.* trained.* patches.* lab.*``
    the bias flag (with ``zero_rows``, how many of head 1's query rows of the walkthrough
    sentence are all zero, and ``zero_row``, the first of them, only when there is one;
    ``query_reads``, the input features head 1's ``W_Q`` reads, its rows with a nonzero
    entry; ``zero_row_unread``, with a zero row, ``1`` when that token has none of those
    features, ``0`` when what it has cancels out), the
    two-source toy (``toy.row_sums``: what each of its weight rows adds up to;
    ``toy.head_messages``: each head's two-coordinate mixture, one row per head), the PyTorch
    comparison (``mha.single.*``: the same call on the walkthrough sentence alone, without a
    batch axis: shapes, PyTorch's returned weights ``weights``, the largest differences and
    the floating-point width ``bits`` it ran in), the trained-model sizes
    (with each attention model's score scale ``trained.headsN.scale``, ``model_count`` and
    ``attention_fewer``: 1 when every attention model has fewer parameters than the MLP),
    the image-patch example (with ``twins``, the first two patches with equal rows,
    ``[-1, -1]`` for none, and ``twins_same_pixels``; and its colour version: ``channels``,
    ``values_per_patch_rgb``, ``shape.image_rgb``, ``shape.flat_rgb``, ``shape.W_rgb``) and
    the batch lab (with
    ``lab.mix.*``: where each piece of a joined row comes from, joined right and wrong;
    ``lab.swap.*``: the batch model with PyTorch's layer in place of ours, each sentence's
    likeliest next word ``ours_id``/``library_id`` and its probability
    ``ours_prob``/``library_prob``, the largest gap ``max_diff_logits``;
    ``lab.cross.*``: the translation example's word counts ``english`` and ``german`` and
    the shape ``shape.A`` of its cross-attention weights).
``trained.results.*``
    only with an experiment (:mod:`worksheet.results`): what it trained on and how
    (``seeds``, ``seed_count``, ``steps``, ``batch``, ``context``, ``tokens_per_step``,
    ``documents.*`` and ``tokens.*`` per split, ``device``, ``prompt``), per model ``M``
    (``mlp``, ``heads1``, ``heads4``…) the per-seed ``M.perplexity``, ``M.loss``,
    ``M.seconds`` (training steps only), ``M.tokens_per_second``, ``M.best_step`` and
    ``M.continuations`` (one per seed, in the order of the seeds), their
    ``M.perplexity_mean``/``_low``/``_high`` and ``M.seconds_mean``/``_low``/``_high``
    (mean, lowest and highest over the seeds), ``M.loss_mean``; ``ticks.perplexity`` and
    ``ticks.seconds``, the round ticks of an axis from zero to the largest seed of any
    model (:func:`~worksheet.results.axis_ticks`); and ``best``, ``verdict``
    and ``spread``: the model with the lowest mean perplexity, the sentence that says so,
    and the sentence on whether the seeds' ranges overlap; models by place in the lesson's
    order (0 the MLP): ``lowest_perplexity``, ``lowest_seconds``, ``widest_seconds``
    (highest less lowest seconds), ``attention_low`` and ``attention_high`` (the attention
    models' lowest and highest seed perplexity).
``trained.results.live.*``
    only with an experiment that ships its models (:mod:`worksheet.live`): the live slide's
    opening example, the lesson's prompt worked by the shipped checkpoints: its
    ``tokens``, ``characters_per_token``, ``words`` and ``single`` (words that are one
    token); per shipped model ``M.continuation`` (greedy); the weights of the attention
    model with the most heads at the prompt's last token, ``weights[h][j]`` (pads left
    out), the tokens' ``labels`` and the ``tallest`` weight.

Keys that need observed next words (``S.target``, ``lab.y``, ``lab.target_prob`` (each
sentence's probability of its target before the step), ``lab.loss``,
``lab.shape.y``, ``lab.finite_grads``, ``lab.loss_after``, ``lab.swap.loss``) exist only
when the worksheet names them.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from torch.optim.adamw import adamw

from worksheet.errors import ExperimentError, WorksheetError
from worksheet.formatting import Style, format_value
from worksheet.live import live_figures
from worksheet.model import (
    DTYPE,
    AttentionLM,
    FixedWindowMLP,
    TinyLM,
    causal_mask,
    to_pytorch,
)
from worksheet.results import (
    Experiment,
    against_baseline,
    axis_ticks,
    mean,
    model_name,
    model_names,
    summarise,
    verdict,
)
from worksheet.schema import Worksheet
from worksheet.values import Figure, Values

__all__ = ["compute_values"]

_P, _F3, _C, _I, _S, _B = (Style.PARAM, Style.FIXED3, Style.COUNT, Style.INDEX, Style.SHAPE,
                           Style.BELOW)
_F1, _W, _T = Style.FIXED1, Style.WHOLE, Style.TEXT


class _Sheet:
    """Collects figures in computation order."""

    def __init__(self) -> None:
        self.figures: dict[str, Figure] = {}

    def put(self, key: str, value: Any, style: Style) -> None:
        if key in self.figures:
            raise AssertionError(f"value {key} computed twice")
        self.figures[key] = Figure(key, _plain(value, style), style)

    def shape(self, key: str, tensor: torch.Tensor | Iterable[int]) -> None:
        size = tensor.shape if isinstance(tensor, torch.Tensor) else tensor
        self.put(key, list(size), _S)


def _plain(value: Any, style: Style) -> Any:
    """Torch/float values as nested tuples of Python numbers."""
    if isinstance(value, torch.Tensor):
        value = value.detach().tolist()
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v, style) for v in value)
    if style is Style.TEXT:
        return str(value)
    if style in (Style.COUNT, Style.INDEX, Style.SHAPE):
        return int(value)
    return float(value)


def _t(array: Any) -> torch.Tensor:
    return torch.tensor(array, dtype=DTYPE)


def compute_values(ws: Worksheet, experiment: Experiment | None = None) -> Values:
    """Every displayed value of the lesson, computed from the worksheet (and the
    ``trained.results.*`` of an experiment, when one is given).

    Raises
    ------
    WorksheetError
        When the worksheet's numbers make a displayed value non-finite (too large
        for float64 arithmetic).
    ExperimentError
        When the experiment's parameter counts are not those of the worksheet's models.
    """
    torch.manual_seed(ws.lesson.seed)
    sheet = _Sheet()
    model = TinyLM.from_worksheet(ws)
    _dims(sheet, ws)
    _params(sheet, ws)
    for name in ws.sentences:
        _sentence(sheet, ws, model, name)
    _shapes(sheet, ws)
    _bias(sheet, ws)
    _toy(sheet, ws)
    _mha(sheet, ws, model)
    _trained(sheet, ws)
    if experiment is not None:
        _results(sheet, ws, experiment)
        for key, value, style in live_figures(experiment, ws.lesson.trained):
            sheet.put(key, value, style)
    _patches(sheet, ws)
    _lab(sheet, ws)
    values = Values(sheet.figures)
    for leaf in values.leaves():
        if leaf.style not in (Style.SHAPE, Style.TEXT) and not math.isfinite(leaf.value):
            raise WorksheetError("top level", f"computing {leaf.key} gave a non-finite number; "
                                 "use smaller embeddings or projections", ws.source)
        try:
            leaf.text  # noqa: B018 - every value must have its display text
        except ValueError as error:
            raise WorksheetError("top level", f"computing {leaf.key}: {error}",
                                 ws.source) from None
    return values


def _dims(sheet: _Sheet, ws: Worksheet) -> None:
    sheet.put("dims.d_model", ws.d_model, _C)
    sheet.put("dims.d_head", ws.d_head, _C)
    # The scale every score is divided by: whole when the head width is a square (√4 = 2).
    sheet.put("dims.sqrt_d_head", math.sqrt(ws.d_head), _P)
    sheet.put("dims.heads", ws.n_heads, _C)
    sheet.put("dims.joined", ws.n_heads * ws.d_head, _C)
    # The wide head's scale, whole when the joined width is a square (√4 = 2).
    sheet.put("dims.sqrt_joined", math.sqrt(ws.n_heads * ws.d_head), _P)
    sheet.put("dims.tokens", ws.length, _C)
    sheet.put("dims.sentences", len(ws.sentences), _C)
    sheet.put("dims.vocab", len(ws.vocab), _C)
    sheet.put("dims.hidden", ws.hidden, _C)
    sheet.put("dims.context", ws.context, _C)
    sheet.put("dims.positions", list(range(1, ws.length + 1)), _I)
    sheet.put("dims.head_numbers", list(range(1, ws.n_heads + 1)), _I)
    sheet.put("dims.value_numbers", list(range(1, ws.d_head + 1)), _I)
    sheet.put("dims.hidden_units", list(range(1, ws.hidden + 1)), _I)


def _selected_features(matrix: torch.Tensor) -> list[int]:
    """Per column, the one input feature it copies (its single nonzero entry), or ``-1``
    for a column that mixes features (or reads none)."""
    picked = []
    for column in matrix.T:
        rows = torch.nonzero(column).flatten().tolist()
        picked.append(rows[0] if len(rows) == 1 else -1)
    return picked


def _params(sheet: _Sheet, ws: Worksheet) -> None:
    sheet.put("params.tok_emb", _t(ws.tok_emb), _P)
    sheet.put("params.pos_emb", _t(ws.pos_emb), _P)
    W_O = _t(ws.W_O)
    for h, head in enumerate(ws.heads, start=1):
        for kind in ("Q", "K", "V"):
            sheet.put(f"params.h{h}.W_{kind}", _t(getattr(head, kind)), _P)
        sheet.put(f"params.h{h}.W_O", W_O[(h - 1) * ws.d_head:h * ws.d_head], _P)
        reads = _t(head.K).abs().sum(dim=-1)
        sheet.put(f"params.h{h}.K_reads", reads, _P)
        sheet.put(f"params.h{h}.K_order", torch.sort(reads, descending=True, stable=True)
                  .indices, _I)
        for kind in ("K", "V"):
            sheet.put(f"params.h{h}.{kind}_features",
                      _selected_features(_t(getattr(head, kind))), _I)
        sheet.put(f"params.h{h}.V_is_K", int(torch.equal(_t(head.V), _t(head.K))), _I)
    sheet.put("params.W_O", W_O, _P)
    sheet.put("params.W_hidden", _t(ws.W_hidden), _P)
    sheet.put("params.b_hidden", _t(ws.b_hidden), _P)
    sheet.put("params.W_vocab", _t(ws.W_vocab), _P)
    sheet.put("params.b_vocab", _t(ws.b_vocab), _P)


def _attention_row(sheet: _Sheet, prefix: str, Q: torch.Tensor, K: torch.Tensor,
                   V: torch.Tensor) -> torch.Tensor:
    """The final receiver's calculation, one visible step at a time; returns the full grid A."""
    q = Q[-1]
    products = q * K
    dots = products.sum(dim=-1)
    scale = math.sqrt(Q.shape[-1])
    scores = dots / scale
    exps = scores.exp()
    denominator = exps.sum()
    weights = exps / denominator
    contributions = weights[:, None] * V
    sheet.put(f"{prefix}.products", products, _P)
    sheet.put(f"{prefix}.dots", dots, _P)
    sheet.put(f"{prefix}.scale", scale, _F3)
    sheet.put(f"{prefix}.scores", scores, _F3)
    sheet.put(f"{prefix}.exps", exps, _F3)
    sheet.put(f"{prefix}.denominator", denominator, _F3)
    sheet.put(f"{prefix}.weights", weights, _F3)
    sheet.put(f"{prefix}.weights_sum", weights.sum(), _F3)
    sheet.put(f"{prefix}.contributions", contributions, _F3)
    sheet.put(f"{prefix}.message", contributions.sum(dim=0), _F3)
    sheet.put(f"{prefix}.top_source", int(weights.argmax()), _I)
    sheet.put(f"{prefix}.message_top", int(contributions.sum(dim=0).abs().argmax()), _I)
    # How many times the second largest score and exponential go into the largest (0 when
    # the second score is not positive: no gap to compare).
    first, second = torch.sort(weights, descending=True, stable=True).indices[:2].tolist()
    positive = float(scores[second]) > 0
    sheet.put(f"{prefix}.score_gap", scores[first] / scores[second] if positive else 0.0,
              _F3)
    sheet.put(f"{prefix}.exp_gap", exps[first] / exps[second] if positive else 0.0, _F3)
    length = Q.shape[0]
    grid = (Q @ K.T / scale).masked_fill(causal_mask(length), float("-inf"))
    A = grid.softmax(dim=-1)
    sheet.put(f"{prefix}.A", A, _F3)
    sheet.put(f"{prefix}.H", A @ V, _F3)
    return A


def _rest(sheet: _Sheet, prefix: str, weights: torch.Tensor, V: torch.Tensor) -> None:
    """The final receiver's message as its two heaviest terms and the rest: ``order`` (the
    sources from the heaviest weight down, ties in sentence order), ``rest`` (the message
    less the two heaviest sources' weight × value rows) and ``mostly_rest`` (the first
    coordinate of which the rest makes more than half, ``-1`` when there is none)."""
    order = torch.sort(weights, descending=True, stable=True).indices
    terms = weights[:, None] * V
    message = terms.sum(dim=0)
    rest = message - terms[order[:2]].sum(dim=0)
    share = torch.where(message != 0, rest / message.where(message != 0, 1.0), 0.0)
    mostly = [c for c in range(len(share)) if float(share[c]) > 0.5]
    sheet.put(f"{prefix}.order", order, _I)
    sheet.put(f"{prefix}.rest", rest, _F3)
    sheet.put(f"{prefix}.mostly_rest", mostly[0] if mostly else -1, _I)
    # 1 for a source past the two heaviest whose value in that coordinate is at least half
    # the largest there: the rows that make the rest large despite small weights.
    large = torch.zeros(len(weights), dtype=torch.long)
    if mostly:
        column = V[:, mostly[0]]
        for j in order[2:].tolist():
            large[j] = int(float(column[j]) > 0 and float(column[j]) >= float(column.max()) / 2)
    sheet.put(f"{prefix}.rest_large", large, _I)


ALMOST_THE_SAME = 0.05
"""A wide-head message coordinate within this share of the separate heads' value comes
through almost the same (``S.wide.kept``)."""
CHANGED_MUCH = 0.3
"""A wide-head message coordinate off by at least this share of the separate heads' value
changes much (``S.wide.changed``)."""


def _wide_twin(sheet: _Sheet, name: str, ws: Worksheet, joined: torch.Tensor,
               wide: torch.Tensor) -> None:
    """How the head whose favourite source the wide head shares fares in the wide head's
    message. ``twin``: the first such head, counted from zero; of its coordinates in the
    joined row, ``kept``: the first the wide head sends within :data:`ALMOST_THE_SAME` of
    the separate heads' number, and ``changed``: the first off by at least
    :data:`CHANGED_MUCH` of it (coordinates where the separate heads send zero are
    neither); each ``-1`` when there is none. ``changed_drops``: 1 when the wide head's
    number at ``changed`` is below the separate heads' (it drops), else 0 (it grows, or
    there is no such coordinate)."""
    top = sheet.figures[f"{name}.wide.top_source"].value
    twin = next((h for h in range(ws.n_heads)
                 if sheet.figures[f"{name}.h{h + 1}.top_source"].value == top), -1)
    own = [twin * ws.d_head + c for c in range(ws.d_head)] if twin >= 0 else []
    off = {k: abs(float(wide[k] / joined[k]) - 1) for k in own if float(joined[k])}
    kept = next((k for k in off if off[k] <= ALMOST_THE_SAME), -1)
    changed = next((k for k in off if off[k] >= CHANGED_MUCH), -1)
    sheet.put(f"{name}.wide.twin", twin, _I)
    sheet.put(f"{name}.wide.kept", kept, _I)
    sheet.put(f"{name}.wide.changed", changed, _I)
    sheet.put(f"{name}.wide.changed_drops",
              int(changed >= 0 and bool(wide[changed] < joined[changed])), _I)


def _wide_carriers(sheet: _Sheet, name: str, V: torch.Tensor, weights: torch.Tensor) -> None:
    """Why the twin head's ``changed`` coordinate moves in the wide head's message: the
    sources that carry it and how much weight each row puts on them. ``carriers``: 1 for each
    source whose value there is positive and at least half the largest there (all 0 when
    there is no such coordinate); ``carried_share`` and ``twin_carried_share``: the wide
    head's and the twin head's weights summed over those sources."""
    changed = sheet.figures[f"{name}.wide.changed"].value
    twin = sheet.figures[f"{name}.wide.twin"].value
    carriers = torch.zeros(len(weights), dtype=torch.long)
    if changed >= 0:
        column = V[:, changed]
        carriers = ((column > 0) & (column >= column.max() / 2)).long()
    chosen = carriers.bool()
    own = sheet.figures[f"{name}.h{twin + 1}.weights"].value if twin >= 0 else None
    sheet.put(f"{name}.wide.carriers", carriers, _I)
    sheet.put(f"{name}.wide.carried_share", weights[chosen].sum(), _F3)
    sheet.put(f"{name}.wide.twin_carried_share",
              torch.tensor(own, dtype=weights.dtype)[chosen].sum() if own is not None
              else torch.tensor(0.0), _F3)


def _wide_others(sheet: _Sheet, name: str, ws: Worksheet) -> None:
    """The softmax's sum over the sources the wide head's scene leaves out: ``picked`` (the
    wide head's favourite, then each head's favourite not yet named), ``others`` (how many
    sources are not picked) and ``exps_others`` (their e^score summed: with the picked
    sources' it makes the denominator)."""
    tops = [sheet.figures[f"{name}.wide.top_source"].value]
    tops += [sheet.figures[f"{name}.h{h}.top_source"].value for h in range(1, ws.n_heads + 1)]
    picked = list(dict.fromkeys(tops))
    exps = torch.tensor(sheet.figures[f"{name}.wide.exps"].value, dtype=torch.float64)
    rest = [j for j in range(len(exps)) if j not in picked]
    sheet.put(f"{name}.wide.picked", picked, _I)
    sheet.put(f"{name}.wide.others", len(rest), _C)
    sheet.put(f"{name}.wide.exps_others", exps[rest].sum(), _F3)


def _wide_growth(sheet: _Sheet, name: str) -> None:
    """``dot_growth`` and ``score_growth``: how many times the wide head's dot product and
    score for its favourite source exceed head 1's for the same source (0 when head 1's dot
    product for it is 0: no ratio to show)."""
    top = sheet.figures[f"{name}.wide.top_source"].value
    growth = {}
    for step in ("dots", "scores"):
        narrow = float(sheet.figures[f"{name}.h1.{step}"].value[top])
        wide = float(sheet.figures[f"{name}.wide.{step}"].value[top])
        growth[step] = wide / narrow if narrow != 0 else 0.0
    sheet.put(f"{name}.wide.dot_growth", growth["dots"], _F3)
    sheet.put(f"{name}.wide.score_growth", growth["scores"], _F3)


def _softmax_asides(sheet: _Sheet, prefix: str, Q: torch.Tensor, K: torch.Tensor) -> None:
    """Two asides on the final receiver's softmax: its weights had the dot products not
    been divided by the square root of the head width (a sharper row), and the stable
    softmax, which subtracts the largest score before exponentiating (the same row)."""
    dots = K @ Q[-1]
    scores = dots / math.sqrt(Q.shape[-1])
    sheet.put(f"{prefix}.unscaled.weights", dots.softmax(dim=-1), _F3)
    largest = scores.max()
    shifted = scores - largest
    exps = shifted.exp()
    denominator = exps.sum()
    sheet.put(f"{prefix}.stable.max", largest, _F3)
    sheet.put(f"{prefix}.stable.scores", shifted, _F3)
    sheet.put(f"{prefix}.stable.exps", exps, _F3)
    sheet.put(f"{prefix}.stable.denominator", denominator, _F3)
    sheet.put(f"{prefix}.stable.weights", exps / denominator, _F3)


def _sentence(sheet: _Sheet, ws: Worksheet, model: TinyLM, name: str) -> None:
    ids = torch.tensor([ws.ids(name)])
    with torch.no_grad():
        E = model.embed(ids)[0]
    W_O = _t(ws.W_O)
    sheet.put(f"{name}.ids", ids[0], _I)
    sheet.put(f"{name}.E", E, _P)
    sheet.put(f"{name}.mask", causal_mask(len(E)).int(), _I)
    messages, parts = [], {"Q": [], "K": [], "V": []}
    for h, head in enumerate(ws.heads, start=1):
        prefix = f"{name}.h{h}"
        Q, K, V = (E @ _t(getattr(head, kind)) for kind in ("Q", "K", "V"))
        for kind, tensor in zip("QKV", (Q, K, V), strict=True):
            sheet.put(f"{prefix}.{kind}", tensor, _P)
            parts[kind].append(tensor)
        A = _attention_row(sheet, prefix, Q, K, V)
        _softmax_asides(sheet, prefix, Q, K)
        H = A @ V
        messages.append(H)
        sheet.put(f"{prefix}.share", H @ W_O[(h - 1) * ws.d_head:h * ws.d_head], _F3)
        _rest(sheet, prefix, A[-1], V)
    joined = torch.cat(messages, dim=-1)
    delta = joined @ W_O
    updated = E + delta
    sheet.put(f"{name}.joined", joined, _F3)
    sheet.put(f"{name}.update_terms", joined[-1][:, None] * W_O, _F3)
    sheet.put(f"{name}.delta", delta, _F3)
    sheet.put(f"{name}.E_prime", updated, _F3)

    wide = {kind: torch.cat(tensors, dim=-1) for kind, tensors in parts.items()}
    A = _attention_row(sheet, f"{name}.wide", wide["Q"], wide["K"], wide["V"])
    sheet.put(f"{name}.wide.V", wide["V"], _P)
    _rest(sheet, f"{name}.wide", A[-1], wide["V"])
    # 1 when the wide head's first message coordinate lies nearer zero than head 1's: the
    # first head's reading is diluted by sharing one weight row.
    wide_message = A[-1] @ wide["V"]
    sheet.put(f"{name}.wide.diluted", int(wide_message[0].abs() < joined[-1][0].abs()), _I)
    _wide_twin(sheet, name, ws, joined[-1], wide_message)
    _wide_carriers(sheet, name, wide["V"], A[-1])
    _wide_others(sheet, name, ws)
    _wide_growth(sheet, name)
    # The first head, counted from zero, whose strongest source is not head 1's (-1 when
    # every head's is).
    first = sheet.figures[f"{name}.h1.top_source"].value
    sheet.put(f"{name}.other_head", next(
        (h for h in range(1, ws.n_heads)
         if sheet.figures[f"{name}.h{h + 1}.top_source"].value != first), -1), _I)

    hidden_pre = updated @ _t(ws.W_hidden) + _t(ws.b_hidden)
    logits = F.relu(hidden_pre) @ _t(ws.W_vocab) + _t(ws.b_vocab)
    probs = logits[-1].softmax(dim=-1)
    sheet.put(f"{name}.hidden_pre", hidden_pre[-1], _F3)
    sheet.put(f"{name}.hidden", F.relu(hidden_pre[-1]), _F3)
    # Each term of the receiver's pre-activations (E′ coordinate × W_hidden entry) and of
    # its logits (hidden number × W_vocab entry); the hidden number that adds most to the
    # predicted word's logit (the first of equals).
    sheet.put(f"{name}.hidden_terms", updated[-1][:, None] * _t(ws.W_hidden), _F3)
    logit_terms = F.relu(hidden_pre[-1])[:, None] * _t(ws.W_vocab)
    sheet.put(f"{name}.logit_terms", logit_terms, _F3)
    top_hidden = int(logit_terms[:, probs.argmax()].argmax())
    sheet.put(f"{name}.top_hidden", top_hidden, _I)
    # The E′ coordinate whose term adds most to that hidden number (the first of equals).
    sheet.put(f"{name}.top_input",
              int((updated[-1] * _t(ws.W_hidden)[:, top_hidden]).argmax()), _I)
    # What the other hidden numbers add to that logit (its bias apart), and the receiver's
    # input coordinate of largest magnitude (the first of equals).
    word_terms = logit_terms[:, probs.argmax()]
    sheet.put(f"{name}.logit_others", word_terms.sum() - word_terms[top_hidden], _F3)
    sheet.put(f"{name}.input_top", int(E[-1].abs().argmax()), _I)
    sheet.put(f"{name}.logits", logits, _F3)
    sheet.put(f"{name}.probs", probs, _F3)
    # The vocabulary from the most probable word down (ties in vocabulary order), and the
    # probability left outside the k most probable words, for every k from 0 to the size.
    ranked = torch.sort(probs, descending=True, stable=True).indices
    outside = torch.cat([probs[ranked].flip(0).cumsum(dim=0).flip(0), probs.new_zeros(1)])
    sheet.put(f"{name}.probs_sum", probs.sum(), _F3)
    sheet.put(f"{name}.ranked", ranked, _I)
    sheet.put(f"{name}.probs_rest", outside, _F3)
    sheet.put(f"{name}.prediction", int(probs.argmax()), _I)
    if name in ws.lesson.targets:
        sheet.put(f"{name}.target", ws.vocab.index(ws.lesson.targets[name]), _I)
    # Whether the receiver's input row is the walkthrough receiver's: then any difference
    # between the two sentences' E′ rows comes through attention alone.
    first = model.embed(torch.tensor([ws.ids(ws.walkthrough)]))[0, -1]
    sheet.put(f"{name}.same_input", int(bool(torch.equal(E[-1], first))), _I)


def _shapes(sheet: _Sheet, ws: Worksheet) -> None:
    """Shapes of the layer's matrices, read off the walkthrough sentence's tensors."""
    values = sheet.figures
    name = ws.walkthrough

    def shape_of(key: str) -> list[int]:
        return list(values[key].shape)

    sheet.shape("shapes.E", shape_of(f"{name}.E"))
    for kind in ("Q", "K", "V"):
        sheet.shape(f"shapes.W_{kind}", shape_of(f"params.h1.W_{kind}"))
        sheet.shape(f"shapes.{kind}", shape_of(f"{name}.h1.{kind}"))
    packed = torch.cat([_t(head.Q) for head in ws.heads], dim=-1)  # one W_Q for every head
    sheet.shape("shapes.W_Q_packed", packed)
    sheet.shape("shapes.q_packed", _t(values[f"{name}.E"].tolist())[-1:] @ packed)
    sheet.shape("shapes.KT", shape_of(f"{name}.h1.K")[::-1])
    sheet.shape("shapes.q_row", [1, *shape_of(f"{name}.h1.Q")[1:]])
    sheet.shape("shapes.scores", shape_of(f"{name}.h1.A"))
    sheet.shape("shapes.A", shape_of(f"{name}.h1.A"))
    sheet.shape("shapes.H", shape_of(f"{name}.h1.H"))
    sheet.shape("shapes.message", [1, *shape_of(f"{name}.h1.message")])
    sheet.shape("shapes.joined", shape_of(f"{name}.joined"))
    sheet.shape("shapes.W_O", shape_of("params.W_O"))
    sheet.shape("shapes.W_O_block", shape_of("params.h1.W_O"))
    sheet.shape("shapes.delta", shape_of(f"{name}.delta"))
    sheet.shape("shapes.E_prime", shape_of(f"{name}.E_prime"))
    sheet.shape("shapes.last_row", [1, *shape_of(f"{name}.E_prime")[1:]])


def _parameter_count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _bias(sheet: _Sheet, ws: Worksheet) -> None:
    Q = _t(sheet.figures[f"{ws.walkthrough}.h1.Q"].tolist())
    offset = _t(ws.lesson.bias_offset)
    sheet.put("bias.offset", offset, _P)
    sheet.put("bias.Q_offset", Q + offset, _P)
    without = nn.MultiheadAttention(ws.d_model, ws.n_heads, bias=False)
    with_bias = nn.MultiheadAttention(ws.d_model, ws.n_heads, bias=True)
    sheet.put("bias.params_without", _parameter_count(without), _C)
    sheet.put("bias.params_with", _parameter_count(with_bias), _C)
    sheet.put("bias.extra", _parameter_count(with_bias) - _parameter_count(without), _C)
    sheet.put("bias.offsets_per_projection", ws.d_model, _C)
    sheet.put("bias.head_slice", ws.d_head, _C)
    sheet.shape("bias.in_proj_weight", with_bias.in_proj_weight)
    sheet.shape("bias.in_proj_bias", with_bias.in_proj_bias)
    sheet.shape("bias.out_proj_weight", with_bias.out_proj.weight)
    sheet.shape("bias.out_proj_bias", with_bias.out_proj.bias)
    # The packed weight stacks the query, key and value matrices, each stored [out, in].
    blocks = with_bias.in_proj_weight.split(ws.d_model)
    sheet.shape("bias.in_proj_block", blocks[0])
    sheet.put("bias.projections", len(blocks) + 1, _C)  # and the output projection
    sheet.put("bias.weights_per_projection", blocks[0].numel(), _C)
    # Rows the projection sends to zero: with the bias, such a row becomes the bias itself.
    zero_rows = [r for r, row in enumerate(Q) if not bool(row.any())]
    sheet.put("bias.zero_rows", len(zero_rows), _C)
    # The input features head 1's queries read: the rows of its W_Q with a nonzero entry.
    reads = [f for f, row in enumerate(_t(ws.heads[0].Q)) if bool(row.any())]
    sheet.put("bias.query_reads", reads, _I)
    if zero_rows:
        sheet.put("bias.zero_row", zero_rows[0], _I)
        # Why that row is zero: its token has none of the features the queries read (1),
        # or what it has cancels out (0).
        row = _t(sheet.figures[f"{ws.walkthrough}.E"].tolist())[zero_rows[0]]
        sheet.put("bias.zero_row_unread", int(not bool(row[reads].any())), _I)


def _toy(sheet: _Sheet, ws: Worksheet) -> None:
    toy = ws.lesson.toy
    values, weights = _t(toy.values), _t(toy.weights)
    one_head = weights[0] @ values
    # each head mixes both coordinates with its own weight row; the separate heads'
    # result keeps coordinate c from head c
    head_messages = weights @ values
    two_heads = torch.stack([head_messages[c, c] for c in range(values.shape[1])])
    # The first source's weight that would produce each separate coordinate on its own.
    required = (two_heads - values[1]) / (values[0] - values[1])
    sheet.put("toy.row_sums", weights.sum(dim=1), _P)
    sheet.put("toy.values", values, _P)
    sheet.put("toy.weights", weights, _P)
    sheet.put("toy.one_head", one_head, _P)
    sheet.put("toy.head_messages", head_messages, _P)
    sheet.put("toy.two_heads", two_heads, _P)
    sheet.put("toy.required", required, _P)


def _mha(sheet: _Sheet, ws: Worksheet, model: TinyLM) -> None:
    ids = torch.tensor([ws.ids(name) for name in ws.sentences])
    mha = to_pytorch(model.attention)
    with torch.no_grad():
        E = model.embed(ids)
        delta, A = model.attention(E)
        delta_api, A_api = mha(E, E, E, attn_mask=causal_mask(ids.shape[1]),
                               average_attn_weights=False)
    # Relative to the update's largest entry (when above one): rounding scales with it.
    scale = max(1.0, float(delta.abs().max()))
    sheet.put("mha.max_diff_delta", (delta - delta_api).abs().max() / scale, _B)
    sheet.put("mha.max_diff_A", (A - A_api).abs().max(), _B)
    # The walkthrough's receiver row of ΔE, from our layer and from the library's, to set
    # side by side (the walkthrough is the first sentence).
    sheet.put("mha.scratch_delta", delta[0, -1], _F3)
    sheet.put("mha.library_delta", delta_api[0, -1], _F3)
    sheet.shape("mha.delta", delta_api)
    sheet.shape("mha.A", A_api)
    sheet.shape("mha.in_proj_weight", mha.in_proj_weight)
    sheet.shape("mha.out_proj_weight", mha.out_proj.weight)
    # The clip's call: the walkthrough sentence alone, E [tokens, d_model], no batch axis.
    E_one = model.embed(torch.tensor([ws.ids(ws.walkthrough)]))[0].detach()
    with torch.no_grad():
        delta_one, A_one = model.attention(E_one[None])
        delta_lib, A_lib = mha(E_one, E_one, E_one, attn_mask=causal_mask(len(E_one)),
                               average_attn_weights=False)
    scale = max(1.0, float(delta_one.abs().max()))
    sheet.put("mha.single.max_diff_delta", (delta_one[0] - delta_lib).abs().max() / scale, _B)
    sheet.put("mha.single.max_diff_A", (A_one[0] - A_lib).abs().max(), _B)
    sheet.shape("mha.single.delta", delta_lib)
    sheet.shape("mha.single.A", A_lib)
    sheet.put("mha.single.weights", A_lib, _F3)
    sheet.put("mha.single.bits", torch.finfo(A_lib.dtype).bits, _C)
    # The lesson's notebook runs the same call in float32: whether its weights and its
    # update show the same three decimals as ours.
    narrow = to_pytorch(model.attention).float()
    E_narrow = E_one.float()
    with torch.no_grad():
        delta_narrow, A_narrow = narrow(E_narrow, E_narrow, E_narrow,
                                        attn_mask=causal_mask(len(E_one)),
                                        average_attn_weights=False)
    same = all(format_value(ours.tolist(), _F3) == format_value(theirs.double().tolist(), _F3)
               for ours, theirs in ((A_lib, A_narrow), (delta_lib, delta_narrow)))
    sheet.put("mha.notebook.bits", torch.finfo(A_narrow.dtype).bits, _C)
    sheet.put("mha.notebook.agrees", int(same), _C)


def _trained(sheet: _Sheet, ws: Worksheet) -> None:
    sizes = ws.lesson.trained
    sheet.put("trained.vocab", sizes.vocab, _C)
    sheet.put("trained.context", sizes.context, _C)
    sheet.put("trained.width", sizes.width, _C)
    sheet.put("trained.hidden", sizes.hidden, _C)
    # the models compared: the fixed-window MLP and one attention model per head count
    sheet.put("trained.model_count", len(model_names(sizes)), _C)
    ids = torch.zeros(1, sizes.context, dtype=torch.long)
    mlp = FixedWindowMLP(sizes)
    with torch.no_grad():
        trace = mlp(ids)
    sheet.put("trained.mlp.params", _parameter_count(mlp), _C)
    sheet.put("trained.matrix_params", sizes.width * sizes.width, _C)
    _parts(sheet, "trained.mlp", mlp)
    sheet.put("trained.mlp.flat_width", trace["flat"].shape[-1], _C)
    sheet.shape("trained.mlp.rows", trace["rows"][0])
    sheet.shape("trained.mlp.W_hidden", mlp.hidden.weight.T)
    sheet.shape("trained.mlp.W_vocab", mlp.readout.weight.T)
    sheet.shape("trained.mlp.logits", trace["logits"][0])
    for heads in sizes.heads:
        model = AttentionLM(sizes, heads)
        with torch.no_grad():
            trace = model(ids)
        prefix = f"trained.heads{heads}"
        sheet.put(f"{prefix}.params", _parameter_count(model), _C)
        sheet.put(f"{prefix}.attention_params", _parameter_count(model.attention), _C)
        if heads == sizes.heads[0]:  # Q, K and V: the rows of the packed input projection
            sheet.put("trained.projections", model.attention.in_proj_weight.shape[0]
                      // sizes.width, _C)
        _parts(sheet, prefix, model)
        sheet.put(f"{prefix}.heads", heads, _C)
        sheet.put(f"{prefix}.d_head", trace["Q"].shape[-1], _C)
        sheet.put(f"{prefix}.scale", math.sqrt(trace["Q"].shape[-1]), _P)
        sheet.shape(f"{prefix}.E", trace["E"][0])
        sheet.shape(f"{prefix}.W_Q", model.attention.in_proj_weight.chunk(3)[0].T)
        sheet.shape(f"{prefix}.Q", trace["Q"][0])
        sheet.shape(f"{prefix}.A", trace["A"][0])
        sheet.shape(f"{prefix}.H", trace["H"][0])
        sheet.shape(f"{prefix}.joined", trace["joined"])
        sheet.shape(f"{prefix}.W_O", model.attention.out_proj.weight.T)
        sheet.shape(f"{prefix}.W_hidden", model.hidden.weight.T)
        sheet.shape(f"{prefix}.logits", trace["logits"][0])
    # 1 when every attention model has fewer parameters than the fixed-window MLP
    counts = [sheet.figures[f"trained.heads{heads}.params"].value for heads in sizes.heads]
    sheet.put("trained.attention_fewer",
              int(all(count < sheet.figures["trained.mlp.params"].value for count in counts)),
              _I)


PARTS = {"token_embedding": "token", "position_embedding": "position",
         "attention": "attention", "hidden": "hidden", "readout": "vocab"}
"""A trained model's parts as its parameter count is split: ``<model>.parts.<part>``."""


def _parts(sheet: _Sheet, prefix: str, model: nn.Module) -> None:
    """Each part's parameters, counted from the model's own modules; they sum to all."""
    counted = 0
    for name, module in model.named_children():
        count = _parameter_count(module)
        sheet.put(f"{prefix}.parts.{PARTS[name]}", count, _C)
        counted += count
    assert counted == _parameter_count(model), prefix


def _results(sheet: _Sheet, ws: Worksheet, experiment: Experiment) -> None:
    """The experiment's figures: per seed as measured, and over seeds their mean, lowest
    and highest (no standard deviation: with a few seeds the range is what there is)."""
    doc, prefix = experiment.document, "trained.results"
    training = doc["training"]
    sheet.put(f"{prefix}.seeds", list(experiment.seeds), _I)
    sheet.put(f"{prefix}.seed_count", len(experiment.seeds), _C)
    for field in ("steps", "batch", "context", "tokens_per_step"):
        sheet.put(f"{prefix}.{field}", training[field], _C)
    for part in ("documents", "tokens"):
        for split in ("train", "validation", "test"):
            sheet.put(f"{prefix}.{part}.{split}", doc["corpus"][part][split], _C)
        sheet.put(f"{prefix}.{part}.all", sum(doc["corpus"][part].values()), _C)
    sheet.put(f"{prefix}.corpus", doc["corpus"].get("title") or "short texts", _T)
    sheet.put(f"{prefix}.device", str(doc["runs"][0].get("device", "?")), _T)
    sheet.put(f"{prefix}.prompt", doc["prompt"]["text"], _T)
    results = summarise(experiment, ws.lesson.trained)
    for result in results:
        model = f"{prefix}.{result.model}"
        counted = sheet.figures[f"trained.{result.model}.params"].value
        if result.parameters != counted:
            raise ExperimentError(f"{experiment.path}: runs of {result.model}: parameters: "
                                  f"expected {counted:,} (the worksheet's model), got "
                                  f"{result.parameters:,}")
        for name, seeds in (("perplexity", result.perplexity), ("seconds", result.seconds)):
            sheet.put(f"{model}.{name}", seeds, _F1)
            sheet.put(f"{model}.{name}_mean", mean(seeds), _F1)
            sheet.put(f"{model}.{name}_low", min(seeds), _F1)
            sheet.put(f"{model}.{name}_high", max(seeds), _F1)
        sheet.put(f"{model}.loss", result.loss, _F3)
        sheet.put(f"{model}.loss_mean", mean(result.loss), _F3)
        sheet.put(f"{model}.tokens_per_second", result.tokens_per_second, _W)
        sheet.put(f"{model}.best_step", result.best_step, _C)
        sheet.put(f"{model}.continuations", result.continuations, _T)
        shipped = (doc.get("shipped") or {}).get("models", {}).get(result.model)
        if shipped:  # the checkpoint the live slide runs
            sheet.put(f"{model}.shipped_seed", shipped["seed"], _I)
            sheet.put(f"{model}.shipped_step", shipped["best_step"], _C)
            sheet.put(f"{model}.shipped_perplexity", shipped["test_perplexity"], _F1)
    for name, seeds_of in (("perplexity", lambda r: r.perplexity),
                           ("seconds", lambda r: r.seconds)):
        # one axis for every model's dots: round ticks from zero to the largest seed
        sheet.put(f"{prefix}.ticks.{name}",
                  axis_ticks(max(max(seeds_of(r)) for r in results)), _P)
    # Models by their place in the lesson's order (0 the MLP, then by head count), the
    # first of equals: the lowest mean perplexity and mean seconds, the seeds' widest range
    # of seconds (highest less lowest), and of the attention models, the one with the lowest
    # seed's perplexity and the one with the highest.
    place = range(len(results))
    sheet.put(f"{prefix}.lowest_perplexity",
              min(place, key=lambda i: mean(results[i].perplexity)), _I)
    sheet.put(f"{prefix}.lowest_seconds",
              min(place, key=lambda i: mean(results[i].seconds)), _I)
    sheet.put(f"{prefix}.widest_seconds",
              max(place, key=lambda i: max(results[i].seconds) - min(results[i].seconds)), _I)
    attention = place[1:]
    sheet.put(f"{prefix}.attention_low", min(attention, key=lambda i: min(
        results[i].perplexity)), _I)
    sheet.put(f"{prefix}.attention_high", max(attention, key=lambda i: max(
        results[i].perplexity)), _I)
    best, headline, spread = verdict(results)
    sheet.put(f"{prefix}.best", model_name(best), _T)
    sheet.put(f"{prefix}.verdict", headline, _T)
    sheet.put(f"{prefix}.spread", spread, _T)
    sheet.put(f"{prefix}.against_mlp", against_baseline(results), _T)


RGB_CHANNELS = 3
"""Values per pixel of a colour image: red, green and blue."""


def _patches(sheet: _Sheet, ws: Worksheet) -> None:
    patches = ws.lesson.patches
    image, size = _t(patches.image), patches.size
    flat = image.unfold(0, size, size).unfold(1, size, size).reshape(-1, size * size)
    rows = flat @ _t(patches.projection)
    sequence = torch.cat([_t(patches.cls)[None], rows]) + _t(patches.positions)
    sheet.put("patches.image", image, _P)
    sheet.put("patches.size", size, _C)
    sheet.put("patches.side", image.shape[0], _C)
    sheet.put("patches.per_side", image.shape[0] // size, _C)
    sheet.put("patches.count", flat.shape[0], _C)
    sheet.put("patches.values_per_patch", flat.shape[1], _C)
    sheet.put("patches.flat", flat, _P)
    sheet.put("patches.W", _t(patches.projection), _P)
    sheet.put("patches.rows", rows, _F3)
    sheet.put("patches.cls", _t(patches.cls), _P)
    sheet.put("patches.positions", _t(patches.positions), _P)
    sheet.put("patches.sequence", sequence, _F3)
    sheet.put("patches.total_rows", sequence.shape[0], _C)
    # The first two patches (in row-major order) whose embedding rows are equal, [-1, -1]
    # when every row differs; and 1 when their pixels are equal too, 0 when only the
    # projection makes their rows equal (or there are no such two).
    twins = next(((i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))
                  if torch.equal(rows[i], rows[j])), (-1, -1))
    sheet.put("patches.twins", list(twins), _I)
    sheet.put("patches.twins_same_pixels",
              int(twins[0] >= 0 and torch.equal(flat[twins[0]], flat[twins[1]])), _I)
    sheet.shape("patches.shape.image", image)
    sheet.shape("patches.shape.flat", flat)
    sheet.shape("patches.shape.W", patches.projection.shape)
    sheet.shape("patches.shape.rows", rows)
    sheet.shape("patches.shape.sequence", sequence)
    # The same cut of a colour image: the grey image in each of the RGB channels, channels
    # first as PyTorch stores images; a patch then flattens to every channel's pixels.
    colour = image.expand(RGB_CHANNELS, *image.shape)
    flat_rgb = (colour.unfold(1, size, size).unfold(2, size, size)  # [C, rows, cols, P, P]
                .permute(1, 2, 0, 3, 4).reshape(flat.shape[0], -1))
    sheet.put("patches.channels", colour.shape[0], _C)
    sheet.put("patches.values_per_patch_rgb", flat_rgb.shape[1], _C)
    sheet.shape("patches.shape.image_rgb", colour)
    sheet.shape("patches.shape.flat_rgb", flat_rgb)
    sheet.shape("patches.shape.W_rgb", [flat_rgb.shape[1], patches.projection.shape[1]])


def _lab(sheet: _Sheet, ws: Worksheet) -> None:
    """The batch lab: every sentence in one batch, the loss, one AdamW step, one new token."""
    model = TinyLM.from_worksheet(ws)
    layer = model.attention
    X = torch.tensor([ws.ids(name) for name in ws.sentences])
    sheet.put("lab.X", X, _I)
    sheet.shape("lab.shape.X", X)
    with torch.no_grad():
        E = model.embed(X)
        Q = E @ layer.W_Q
        Q_split = Q.reshape(*Q.shape[:2], layer.heads, layer.head_width)
        Q_heads = layer.split(Q)
        K_heads, V_heads = layer.split(E @ layer.W_K), layer.split(E @ layer.W_V)
        scores = Q_heads @ K_heads.transpose(-2, -1) / math.sqrt(layer.head_width)
        A = scores.masked_fill(causal_mask(X.shape[1]), float("-inf")).softmax(dim=-1)
        messages = A @ V_heads
        joined = messages.transpose(1, 2).reshape(E.shape)
        delta = joined @ layer.W_O
        logits = model(X)
    for key, tensor in [("E", E), ("Q", Q), ("Q_split", Q_split), ("Q_heads", Q_heads),
                        ("scores", scores), ("A", A), ("messages", messages), ("joined", joined),
                        ("delta", delta), ("logits", logits)]:
        sheet.shape(f"lab.shape.{key}", tensor)
    sheet.put("lab.A_weights", A.numel(), _C)
    _joined_pieces(sheet, messages.shape)
    sheet.put("lab.params", _parameter_count(model), _C)
    sheet.put("lab.param_tensors", len(list(model.parameters())), _C)
    sheet.put("lab.learning_rate", ws.lesson.learning_rate, _P)
    _lab_swap(sheet, ws, X)
    _lab_cross(sheet, ws)
    if ws.lesson.targets:  # the loss needs every sentence's observed next word
        _lab_step(sheet, ws, model, X)

    fixed = TinyLM.from_worksheet(ws).eval()  # generation uses the worksheet's own weights
    history = X[:1]
    sheet.shape("lab.shape.prompt", history)
    with torch.no_grad():
        next_logits = fixed(history[:, -fixed.context:])
    next_id = next_logits.argmax(dim=-1, keepdim=True)
    sheet.put("lab.next_id", next_id[0, 0], _I)
    sheet.put("lab.next_prob", next_logits.softmax(dim=-1)[0, next_id[0, 0]], _F3)
    sheet.shape("lab.shape.history", torch.cat([history, next_id], dim=1))


class _LibraryAttention(nn.Module):
    """PyTorch's layer behind the scratch layer's call: ``E`` in, ``(ΔE, A)`` out."""

    def __init__(self, mha: nn.MultiheadAttention) -> None:
        super().__init__()
        self.mha = mha

    def forward(self, E: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.mha(E, E, E, attn_mask=causal_mask(E.shape[1]),
                        average_attn_weights=False)


def _lab_swap(sheet: _Sheet, ws: Worksheet, X: torch.Tensor) -> None:
    """The batch model with PyTorch's layer in place of ours: each sentence's likeliest next
    word and its probability from both models, the largest gap between their logits, and
    (with observed targets) the library model's loss."""
    ours = TinyLM.from_worksheet(ws).eval()
    library = TinyLM.from_worksheet(ws).eval()
    library.attention = _LibraryAttention(to_pytorch(ours.attention))
    with torch.no_grad():
        logits, logits_api = ours(X), library(X)
    for name, scores in (("ours", logits), ("library", logits_api)):
        probs = scores.softmax(dim=-1)
        best = probs.argmax(dim=-1)
        sheet.put(f"lab.swap.{name}_id", best, _I)
        sheet.put(f"lab.swap.{name}_prob", probs[torch.arange(len(best)), best], _F3)
    scale = max(1.0, float(logits.abs().max()))
    sheet.put("lab.swap.max_diff_logits", (logits - logits_api).abs().max() / scale, _B)
    if ws.lesson.targets:
        y = torch.tensor([ws.vocab.index(ws.lesson.targets[name]) for name in ws.sentences])
        sheet.put("lab.swap.loss", F.cross_entropy(logits_api, y), _F3)


def _lab_cross(sheet: _Sheet, ws: Worksheet) -> None:
    """Cross-attention's translation example: how many English words ask, how many German
    words answer, and the shape of the weights PyTorch's layer returns for them (one row
    per English word, one column per German word)."""
    pair = ws.lesson.translation
    mha = nn.MultiheadAttention(ws.d_model, ws.n_heads, bias=False, batch_first=True)
    english, german = torch.zeros(len(pair.english), ws.d_model), \
        torch.zeros(len(pair.german), ws.d_model)
    with torch.no_grad():
        _, A = mha(english, german, german)
    sheet.put("lab.cross.english", len(pair.english), _C)
    sheet.put("lab.cross.german", len(pair.german), _C)
    sheet.shape("lab.cross.shape.A", A)


def _joined_pieces(sheet: _Sheet, shape: torch.Size) -> None:
    """Where each head-width piece of the first sentence's joined rows comes from.

    The messages ``[batch, heads, tokens, d_head]`` are joined into ``[batch, tokens,
    heads × d_head]`` twice: transposed back before the reshape (``right``), and reshaped
    directly (``wrong``, which fills a row with consecutive token rows of one head). For
    piece ``k`` of row ``r``: ``lab.mix.right_token[r][k]`` is its token's position (1…T)
    and ``lab.mix.right_head[r][k]`` its head's number (1…H); likewise ``wrong_*``.
    """
    batch, heads, tokens, width = shape
    position = torch.arange(1, tokens + 1).view(1, 1, tokens, 1).expand(shape)
    head = torch.arange(1, heads + 1).view(1, heads, 1, 1).expand(shape)
    for name, label in (("token", position), ("head", head)):
        right = label.transpose(1, 2).reshape(batch, tokens, heads * width)
        wrong = label.reshape(batch, tokens, heads * width)
        sheet.put(f"lab.mix.right_{name}", right[0, :, ::width], _I)
        sheet.put(f"lab.mix.wrong_{name}", wrong[0, :, ::width], _I)


def _lab_step(sheet: _Sheet, ws: Worksheet, model: TinyLM, X: torch.Tensor) -> None:
    """The observed targets, their loss, and one AdamW step on it."""
    y = torch.tensor([ws.vocab.index(ws.lesson.targets[name]) for name in ws.sentences])
    sheet.put("lab.y", y, _I)
    sheet.shape("lab.shape.y", y)
    logits = model(X)
    loss = F.cross_entropy(logits, y)
    # Each sentence's probability of its target, whose −ln the loss averages.
    sheet.put("lab.target_prob", logits.detach().softmax(dim=-1)[torch.arange(len(y)), y], _F3)
    loss.backward()
    finite = sum(1 for p in model.parameters()
                 if p.grad is not None and bool(p.grad.isfinite().all()))
    _adamw_first_step(model, ws.lesson.learning_rate)
    with torch.no_grad():
        loss_after = F.cross_entropy(model(X), y)
    sheet.put("lab.loss", loss, _F3)
    sheet.put("lab.finite_grads", finite, _C)
    sheet.put("lab.loss_after", loss_after, _F3)


def _adamw_first_step(model: nn.Module, learning_rate: float) -> None:
    """``torch.optim.AdamW(model.parameters(), lr=learning_rate).step()`` from fresh state,
    through the functional form the class itself calls, with the class's defaults.

    The class would import ``torch._dynamo`` on its first use (1.8 s in every process that
    computes the values); its functional form runs the same update without it.
    """
    defaults = {name: parameter.default for name, parameter in
                inspect.signature(torch.optim.AdamW).parameters.items()}
    params = [p for p in model.parameters() if p.grad is not None]
    with torch.no_grad():
        adamw(params, [p.grad for p in params], [torch.zeros_like(p) for p in params],
              [torch.zeros_like(p) for p in params], [],
              [torch.tensor(0.0) for _ in params], foreach=False, amsgrad=False,
              beta1=defaults["betas"][0], beta2=defaults["betas"][1], lr=learning_rate,
              weight_decay=defaults["weight_decay"], eps=defaults["eps"], maximize=False)
