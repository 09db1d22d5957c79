"""An independent recomputation in plain numpy (float64) to check the torch values against.

Written from the lesson's formulas, not from ``worksheet.compute`` or ``worksheet.model``:
it reads the JSON document (the worksheet's *filled* document, ``load_worksheet(path)
.document``, so that every ``lesson`` part is present) and shares no code with the package
beyond the file format and the display format. :func:`values` returns every value the
lecture displays under the key ``compute_values`` gives it; :func:`within_display` says
whether a display text shows a reference value to its last digit.

Shapes, parameter counts and sizes are worked out by formula from the lesson's sizes, not
read off arrays built the way the program builds them. The batch lab's gradient is an
analytic backward pass of the small model (see :func:`lm_loss`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from worksheet.formatting import LARGE, MINUS, NOISE, Style

__all__ = [
    "adamw_first_step",
    "display_error",
    "embed",
    "expected_at",
    "head_final_row",
    "joined_pieces",
    "lab",
    "lm_loss",
    "lm_parameters",
    "other_head",
    "patch_twins",
    "patches",
    "result_choices",
    "sentence",
    "softmax",
    "softmax_asides",
    "token_ids",
    "toy",
    "trained",
    "trained_parameter_counts",
    "values",
    "wide_carriers",
    "wide_others",
    "wide_twin",
    "within_display",
    "worksheet_values",
]

Doc = Mapping[str, Any]

ADAMW_BETAS = (0.9, 0.999)
"""``torch.optim.AdamW``'s default ``betas``."""
ADAMW_EPS = 1e-8
"""``torch.optim.AdamW``'s default ``eps``."""
ADAMW_WEIGHT_DECAY = 0.01
"""``torch.optim.AdamW``'s default ``weight_decay``."""
RGB = 3
"""Values per pixel of a colour image."""
SLACK = 1e-12
"""Relative slack of :func:`within_display` for a true value on a rounding tie, which two
float64 computations may round either way. Far above float64 rounding (about 1e-16), far
below a displayed unit: near ``1e6`` a unit of three decimals is only ``1e-9`` of the
value, so a slack of ``1e-9`` would already double the half unit there."""


# --------------------------------------------------------------------------- the layer


def _array(node: Any) -> np.ndarray:
    return np.array(node, dtype=np.float64)


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax along the last axis (shifted by the maximum; ``-inf`` entries become 0)."""
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def _causal(length: int) -> np.ndarray:
    """``True`` above the diagonal: the later sources a receiver may not read."""
    return np.triu(np.ones((length, length), dtype=bool), 1)


def token_ids(doc: Doc, name: str) -> list[int]:
    """Vocabulary ids of a sentence's tokens, each looked up in lower case."""
    vocab = list(doc["vocab"])
    return [vocab.index(word.lower()) for word in doc["sentences"][name]]


def embed(doc: Doc, sentence: str) -> np.ndarray:
    """Token rows plus position rows of one sentence, ``[T, d_model]``."""
    words = [w.lower() for w in doc["sentences"][sentence]]
    tok = np.array([doc["tok_emb"][w] for w in words], dtype=float)
    return tok + np.array(doc["pos_emb"], dtype=float)[: len(words)]


def head_final_row(E: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray,
                   W_V: np.ndarray) -> dict[str, Any]:
    """The final receiver's arithmetic for one head, step by step, and the full grids.

    Parameters
    ----------
    E
        The sentence's rows, ``[T, d_model]``.
    W_Q, W_K, W_V
        The head's projections, ``[d_model, d_head]`` (row vectors: ``E @ W``).

    Returns
    -------
    dict
        ``Q K V products dots scale scores exps denominator weights weights_sum
        contributions message top_source message_top A H`` (``message_top``: the
        message's coordinate of largest magnitude, the first of equals).
    """
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    q = Q[-1]
    products = np.array([[q[c] * K[j, c] for c in range(len(q))] for j in range(len(K))])
    dots = products.sum(axis=1)
    scale = math.sqrt(len(q))
    scores = dots / scale
    exps = np.exp(scores)
    denominator = exps.sum()
    weights = exps / denominator
    contributions = weights[:, None] * V
    grid = Q @ K.T / scale
    grid[_causal(len(E))] = -np.inf
    A = softmax(grid)
    return {"Q": Q, "K": K, "V": V, "products": products, "dots": dots, "scale": scale,
            "scores": scores, "exps": exps, "denominator": denominator, "weights": weights,
            "weights_sum": weights.sum(), "contributions": contributions,
            "message": contributions.sum(axis=0), "top_source": int(np.argmax(weights)),
            **gaps(scores, exps, weights),
            "message_top": int(np.argmax(np.abs(contributions.sum(axis=0)))),
            "A": A, "H": A @ V}


def gaps(scores: np.ndarray, exps: np.ndarray, weights: np.ndarray) -> dict[str, float]:
    """The largest score and exponential over the second largest (by weight), 0 when the
    second score is not positive."""
    first, second = np.argsort(-weights, kind="stable")[:2]
    if scores[second] <= 0:
        return {"score_gap": 0.0, "exp_gap": 0.0}
    return {"score_gap": float(scores[first] / scores[second]),
            "exp_gap": float(exps[first] / exps[second])}


def rest(weights: np.ndarray, V: np.ndarray) -> dict[str, Any]:
    """The message as its two heaviest terms and the rest: the sources by weight (ties in
    order), the message less those two terms, and the first coordinate more than half rest
    (``-1`` for none)."""
    order = np.argsort(-weights, kind="stable")
    message = weights @ V
    left = message - sum(weights[j] * V[j] for j in order[:2])
    mostly = [c for c in range(len(message)) if message[c] != 0 and left[c] / message[c] > 0.5]
    large = np.zeros(len(weights), dtype=int)
    if mostly:
        column = V[:, mostly[0]]
        for j in order[2:]:
            large[j] = int(column[j] > 0 and column[j] >= column.max() / 2)
    return {"order": order, "rest": left, "mostly_rest": mostly[0] if mostly else -1,
            "rest_large": large}


ALMOST_THE_SAME = 0.05
"""The lesson's "almost the same": a wide-head coordinate within 5% of the separate heads'."""
CHANGED_MUCH = 0.3
"""The lesson's "changes much": a wide-head coordinate off by 30% or more of theirs."""


def wide_twin(case: Mapping[str, Any]) -> dict[str, int]:
    """For a :func:`sentence` result: ``twin``, the first head (from zero) whose strongest
    source is the wide head's; ``kept`` and ``changed``, the first of that head's joined-row
    coordinates the wide head sends within :data:`ALMOST_THE_SAME` of, or off by at least
    :data:`CHANGED_MUCH` of, the separate heads' nonzero number; ``-1`` for what does not
    exist; ``changed_drops``, whether the wide head's number there is the smaller."""
    wide, heads = case["wide"], case["heads"]
    same = np.flatnonzero([head["top_source"] == wide["top_source"] for head in heads])
    out = {"twin": -1, "kept": -1, "changed": -1, "changed_drops": 0}
    if not len(same):
        return out
    twin, width = int(same[0]), heads[0]["V"].shape[1]
    columns = np.arange(twin * width, (twin + 1) * width)
    separate, together = case["joined"][-1][columns], wide["message"][columns]
    columns, separate, together = (a[separate != 0] for a in (columns, separate, together))
    off = np.abs(together / separate - 1)
    out["twin"] = twin
    kept, changed = np.flatnonzero(off <= ALMOST_THE_SAME), np.flatnonzero(off >= CHANGED_MUCH)
    if len(kept):
        out["kept"] = int(columns[kept[0]])
    if len(changed):
        out["changed"] = int(columns[changed[0]])
        out["changed_drops"] = int(together[changed[0]] < separate[changed[0]])
    return out


def wide_carriers(case: Mapping[str, Any]) -> dict[str, Any]:
    """For a :func:`sentence` result: the sources that carry the twin head's changed
    coordinate (a positive value there, at least half the largest), and the weight the wide
    head and the twin head each put on them in all (0 with no such coordinate)."""
    found = wide_twin(case)
    V, length = case["wide"]["V"], len(case["wide"]["weights"])
    carriers = np.zeros(length, dtype=int)
    if found["changed"] >= 0:
        column = V[:, found["changed"]]
        carriers = ((column > 0) & (column >= column.max() / 2)).astype(int)
    chosen = carriers == 1
    twin = case["heads"][found["twin"]]["weights"] if found["twin"] >= 0 else np.zeros(length)
    return {"carriers": carriers, "carried_share": float(case["wide"]["weights"][chosen].sum()),
            "twin_carried_share": float(twin[chosen].sum())}


def wide_others(case: Mapping[str, Any]) -> dict[str, Any]:
    """For a :func:`sentence` result: the sources the wide head's softmax is shown for (its
    favourite, then each head's favourite, each once), how many others there are, and their
    exponentials' sum."""
    picked: list[int] = []
    for j in [case["wide"]["top_source"], *(head["top_source"] for head in case["heads"])]:
        if int(j) not in picked:
            picked.append(int(j))
    exps = case["wide"]["exps"]
    rest = [j for j in range(len(exps)) if j not in picked]
    return {"picked": np.array(picked), "others": len(rest),
            "exps_others": float(np.sum(exps[rest]))}


def wide_growth(case: Mapping[str, Any]) -> dict[str, float]:
    """For a :func:`sentence` result: the wide head's dot product and score for its
    strongest source over head 1's for the same source (0 when head 1's dot is 0)."""
    top = case["wide"]["top_source"]
    narrow, wide = case["heads"][0], case["wide"]
    return {f"{key}_growth": float(wide[step][top] / narrow[step][top])
            if narrow["dots"][top] != 0 else 0.0
            for key, step in (("dot", "dots"), ("score", "scores"))}


def other_head(case: Mapping[str, Any]) -> int:
    """The first head (from zero) whose strongest source is not head 1's, ``-1`` for none."""
    tops = np.array([head["top_source"] for head in case["heads"]])
    differ = np.flatnonzero(tops != tops[0])
    return int(differ[0]) if len(differ) else -1


def patch_twins(parts: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """For :func:`patches`: the first two patches (row-major) with equal projected rows
    (``[-1, -1]`` when every row differs), and whether their flat pixels are equal too."""
    rows, flat = parts["rows"], parts["flat"]
    pairs = [(i, j) for i in range(len(rows)) for j in range(len(rows))
             if i < j and np.array_equal(rows[i], rows[j])]
    if not pairs:
        return {"patches.twins": [-1, -1], "patches.twins_same_pixels": 0}
    i, j = min(pairs)
    return {"patches.twins": [i, j],
            "patches.twins_same_pixels": int(np.array_equal(flat[i], flat[j]))}


def result_choices(document: Mapping[str, Any]) -> dict[str, int]:
    """From an experiment's JSON document, models by their place in the lesson's order (the
    MLP, then by head count), the first of equals: the lowest mean perplexity and mean
    training seconds, the widest range of seconds over the seeds (highest less lowest), and
    the attention models' lowest and highest seed perplexity."""
    models = ["mlp", *(f"heads{h}" for h in document["sizes"]["heads"])]

    def runs(field: str) -> list[np.ndarray]:
        return [np.array([run[field] for run in document["runs"] if run["model"] == model])
                for model in models]

    seconds, perplexity = runs("train_seconds"), runs("test_perplexity")
    key = "trained.results"
    return {f"{key}.lowest_perplexity": int(np.argmin([np.mean(p) for p in perplexity])),
            f"{key}.lowest_seconds": int(np.argmin([np.mean(s) for s in seconds])),
            f"{key}.widest_seconds": int(np.argmax([np.ptp(s) for s in seconds])),
            f"{key}.attention_low": 1 + int(np.argmin([p.min() for p in perplexity[1:]])),
            f"{key}.attention_high": 1 + int(np.argmax([p.max() for p in perplexity[1:]]))}


def softmax_asides(dots: np.ndarray, scale: float) -> dict[str, Any]:
    """The final receiver's softmax two other ways: without dividing the dot products by
    ``scale`` (``unscaled.weights``), and with the largest score subtracted before
    exponentiating (``stable.*``: ``max scores exps denominator weights``)."""
    raw = np.exp(dots)
    scores = dots / scale
    largest = scores.max()
    shifted = scores - largest
    exps = np.exp(shifted)
    return {"unscaled.weights": raw / raw.sum(), "stable.max": largest,
            "stable.scores": shifted, "stable.exps": exps, "stable.denominator": exps.sum(),
            "stable.weights": exps / exps.sum()}


def _projections(doc: Doc, kind: str) -> list[np.ndarray]:
    return [_array(p[kind]) for p in doc["headsLesson"]["projections"]]


def sentence(doc: Doc, name: str) -> dict[str, Any]:
    """Everything the lesson computes for one sentence.

    Returns
    -------
    dict
        ``ids E mask heads joined update_terms delta E_prime wide hidden_pre hidden logits
        probs prediction W_O probs_sum ranked probs_rest hidden_terms logit_terms
        top_hidden``; ``heads[h]`` holds
        :func:`head_final_row`'s steps plus ``share``, that head's part of the update;
        ``probs_rest[k]`` is the probability outside the ``k`` most probable words.
    """
    E = embed(doc, name)
    W_O = _array(doc["headsLesson"]["W_O"])
    heads = [head_final_row(E, *mats) for mats in zip(
        *(_projections(doc, kind) for kind in "QKV"), strict=True)]
    d_head = heads[0]["Q"].shape[1]
    for h, head in enumerate(heads):
        head["share"] = head["H"] @ W_O[h * d_head:(h + 1) * d_head]
        head.update(rest(head["weights"], head["V"]))
    joined = np.concatenate([h["H"] for h in heads], axis=1)
    delta = joined @ W_O
    updated = E + delta
    wide = head_final_row(E, *(np.concatenate(_projections(doc, kind), axis=1)
                               for kind in "QKV"))
    wide.update(rest(wide["weights"], wide["V"]))
    hidden_pre = updated @ _array(doc["W_hidden"]) + _array(doc["b_hidden"])
    logits = np.maximum(hidden_pre, 0) @ _array(doc["W_vocab"]) + _array(doc["b_vocab"])
    probs = softmax(logits[-1])
    ranked = np.argsort(-probs, kind="stable")  # most probable first, ties by id
    hidden = np.maximum(hidden_pre[-1], 0)
    logit_terms = hidden[:, None] * _array(doc["W_vocab"])
    return {"ids": token_ids(doc, name), "E": E, "mask": _causal(len(E)).astype(int),
            "heads": heads, "joined": joined, "update_terms": joined[-1][:, None] * W_O,
            "delta": delta, "E_prime": updated, "wide": wide, "hidden_pre": hidden_pre[-1],
            "hidden": np.maximum(hidden_pre[-1], 0), "logits": logits, "probs": probs,
            "prediction": int(np.argmax(probs)), "W_O": W_O, "probs_sum": probs.sum(),
            "ranked": ranked,
            "hidden_terms": updated[-1][:, None] * _array(doc["W_hidden"]),
            "logit_terms": logit_terms,
            "top_hidden": int(np.argmax(logit_terms[:, np.argmax(probs)])),
            "top_input": int(np.argmax(updated[-1] * _array(doc["W_hidden"])[:, int(
                np.argmax(logit_terms[:, np.argmax(probs)]))])),
            "probs_rest": np.array([probs[ranked[k:]].sum() for k in range(len(probs) + 1)])}


def narrow_call(doc: Doc, name: str, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """The attention layer on sentence ``name`` computed throughout in ``dtype``: every
    head's weight grid ``[heads, T, T]`` and the update ``[T, d_model]``."""
    E = embed(doc, name).astype(dtype)
    grids, messages = [], []
    for W_Q, W_K, W_V in zip(*(_projections(doc, kind) for kind in "QKV"), strict=True):
        Q, K, V = (E @ W.astype(dtype) for W in (W_Q, W_K, W_V))
        scores = Q @ K.T / np.sqrt(dtype(Q.shape[1]))
        scores[_causal(len(E))] = -np.inf
        grids.append(softmax(scores))
        messages.append(grids[-1] @ V)
    W_O = _array(doc["headsLesson"]["W_O"]).astype(dtype)
    return np.stack(grids), np.concatenate(messages, axis=1) @ W_O


# --------------------------------------------------------------------------- lesson extras


def toy(doc: Doc) -> dict[str, np.ndarray]:
    """The two-source toy: one head's blend, two heads' blends, and the first source's
    weight that would give each coordinate on its own."""
    t = doc["lesson"]["toy"]
    values, weights = np.array(t["values"], float), np.array(t["weights"], float)
    one = weights[0] @ values
    two = np.array([weights[c] @ values[:, c] for c in range(2)])
    required = np.array([(two[c] - values[1, c]) / (values[0, c] - values[1, c])
                         for c in range(2)])
    # each head's own mixture of both coordinates: a row of weights times the values
    heads = np.array([[sum(weights[h, s] * values[s, c] for s in range(2)) for c in range(2)]
                      for h in range(2)])
    return {"values": values, "weights": weights, "row_sums": weights.sum(axis=1),
            "one_head": one, "two_heads": two, "required": required, "head_messages": heads}


def patches(doc: Doc) -> dict[str, np.ndarray]:
    """The image cut into patches (row-major), their projected rows and the sequence."""
    p = doc["lesson"]["patches"]
    image, size = np.array(p["image"], float), p["size"]
    side = image.shape[0]
    flat = np.array([image[r:r + size, c:c + size].reshape(-1)
                     for r in range(0, side, size) for c in range(0, side, size)])
    rows = flat @ np.array(p["projection"], float)
    sequence = np.vstack([np.array(p["cls"], float), rows]) + np.array(p["positions"], float)
    return {"flat": flat, "rows": rows, "sequence": sequence}


def trained_parameter_counts(doc: Doc) -> dict[str, int]:
    """Parameter counts by formula: embeddings, projections without bias, MLP with bias."""
    t = doc["lesson"]["trained"]
    V, T, w, h = t["vocab"], t["context"], t["width"], t["hidden"]
    readout = h * V + V
    counts = {"mlp": V * w + (T * w) * h + h + readout}
    for heads in t["heads"]:
        counts[f"heads{heads}"] = V * w + T * w + 4 * w * w + w * h + h + readout
    return counts


def trained(doc: Doc) -> dict[str, Any]:
    """``trained.*``: the comparison models' sizes, counts and tensor shapes by formula.

    The baseline embeds ``context`` tokens, concatenates their rows and runs an MLP; each
    attention model adds position rows and a bias-free ``nn.MultiheadAttention``
    (``in_proj_weight`` ``[3w, w]``, ``out_proj.weight`` ``[w, w]``).
    """
    t = doc["lesson"]["trained"]
    V, T, w, h = t["vocab"], t["context"], t["width"], t["hidden"]
    counts = trained_parameter_counts(doc)
    out: dict[str, Any] = {"trained.vocab": V, "trained.context": T, "trained.width": w,
                           "trained.hidden": h, "trained.mlp.params": counts["mlp"],
                           "trained.model_count": 1 + len(t["heads"]),
                           "trained.attention_fewer": int(all(
                               counts[f"heads{n}"] < counts["mlp"] for n in t["heads"])),
                           "trained.mlp.flat_width": T * w, "trained.mlp.rows": [T, w],
                           "trained.mlp.W_hidden": [T * w, h], "trained.mlp.W_vocab": [h, V],
                           "trained.mlp.logits": [V], "trained.matrix_params": w * w,
                           "trained.projections": 3,
                           "trained.mlp.parts.token": V * w,
                           "trained.mlp.parts.hidden": (T * w) * h + h,
                           "trained.mlp.parts.vocab": h * V + V}
    for heads in t["heads"]:
        prefix, d_head = f"trained.heads{heads}", w // heads
        out.update({f"{prefix}.parts.token": V * w, f"{prefix}.parts.position": T * w,
                    f"{prefix}.parts.attention": 4 * w * w, f"{prefix}.parts.hidden": w * h + h,
                    f"{prefix}.parts.vocab": h * V + V})
        out.update({f"{prefix}.params": counts[f"heads{heads}"],
                    f"{prefix}.attention_params": 4 * w * w, f"{prefix}.heads": heads,
                    f"{prefix}.d_head": d_head, f"{prefix}.scale": math.sqrt(d_head),
                    f"{prefix}.E": [T, w], f"{prefix}.W_Q": [w, w],
                    f"{prefix}.Q": [T, d_head], f"{prefix}.A": [T, T],
                    f"{prefix}.H": [T, d_head], f"{prefix}.joined": [T, w],
                    f"{prefix}.W_O": [w, w], f"{prefix}.W_hidden": [w, h],
                    f"{prefix}.logits": [V]})
    return out


# --------------------------------------------------------------------------- the batch lab


def lm_parameters(doc: Doc) -> dict[str, np.ndarray]:
    """The worksheet model's parameters as the lab's model holds them, in its order.

    Token embedding, position embedding, the packed ``W_Q W_K W_V`` (heads side by side)
    and ``W_O`` (no biases), the hidden layer's weight and bias, the readout's weight and
    bias. Weights stay in the worksheet's ``[in, out]`` orientation: an AdamW step acts
    entry by entry, so the orientation changes no value.
    """
    vocab = list(doc["vocab"])
    params = {"tok_emb": np.array([doc["tok_emb"][w] for w in vocab], dtype=float),
              "pos_emb": _array(doc["pos_emb"])}
    for kind in "QKV":
        params[f"W_{kind}"] = np.concatenate(_projections(doc, kind), axis=1)
    params["W_O"] = _array(doc["headsLesson"]["W_O"])
    for key in ("W_hidden", "b_hidden", "W_vocab", "b_vocab"):
        params[key] = _array(doc[key])
    return params


def lm_loss(params: Mapping[str, np.ndarray], X: np.ndarray, y: np.ndarray | None,
            heads: int, gradient: bool = False) -> tuple[np.ndarray, float, dict[str, Any]]:
    """Final-position logits, mean cross-entropy and (optionally) its exact gradient.

    The model: ``E = tok_emb[X] + pos_emb[:T]``; per head, the final receiver's scaled
    dot products with every source, softmax, weighted sum of value rows; the heads'
    messages side by side times ``W_O`` added to the final row; ``relu(row @ W_hidden +
    b_hidden) @ W_vocab + b_vocab``. Only the final receiver reaches the loss, so only its
    row is computed. The backward pass is the chain rule through those steps, written out.

    Parameters
    ----------
    params
        :func:`lm_parameters`'s arrays.
    X
        Token ids, ``[B, T]``.
    y
        Target ids, ``[B]``; ``None`` for logits only (loss reported as ``nan``).
    heads
        Number of heads the packed projections hold.
    gradient
        Also return the loss's gradient with respect to every parameter.

    Returns
    -------
    tuple
        ``(logits [B, vocab], loss, gradients by parameter name)``.
    """
    batch, length = X.shape
    width = params["W_Q"].shape[0]
    d_head = params["W_Q"].shape[1] // heads
    root = math.sqrt(d_head)
    E = params["tok_emb"][X] + params["pos_emb"][:length]
    grads = {key: np.zeros_like(value) for key, value in params.items()} if gradient else {}
    logits, losses, steps = [], [], []
    for b in range(batch):
        e = E[b, -1]
        parts = []
        for h in range(heads):
            cols = slice(h * d_head, (h + 1) * d_head)
            q = e @ params["W_Q"][:, cols]
            K, V = E[b] @ params["W_K"][:, cols], E[b] @ params["W_V"][:, cols]
            a = softmax(K @ q / root)
            parts.append((cols, q, K, V, a))
        joined = np.concatenate([a @ V for _, _, _, V, a in parts])
        u = e + joined @ params["W_O"]
        z = u @ params["W_hidden"] + params["b_hidden"]
        r = np.maximum(z, 0)
        lg = r @ params["W_vocab"] + params["b_vocab"]
        logits.append(lg)
        if y is not None:
            top = lg.max()
            losses.append(top + math.log(np.exp(lg - top).sum()) - lg[y[b]])
        steps.append((parts, joined, u, z, r, lg))
    loss = float(np.mean(losses)) if y is not None else math.nan
    if gradient:
        if y is None:
            raise ValueError("a gradient needs targets")
        for b, (parts, joined, u, z, r, lg) in enumerate(steps):
            d_lg = softmax(lg)
            d_lg[y[b]] -= 1.0
            d_lg /= batch
            grads["W_vocab"] += np.outer(r, d_lg)
            grads["b_vocab"] += d_lg
            d_z = (params["W_vocab"] @ d_lg) * (z > 0)
            grads["W_hidden"] += np.outer(u, d_z)
            grads["b_hidden"] += d_z
            d_u = params["W_hidden"] @ d_z
            grads["W_O"] += np.outer(joined, d_u)
            d_joined = params["W_O"] @ d_u
            d_E = np.zeros((length, width))
            d_E[-1] += d_u  # the residual connection
            for cols, q, K, V, a in parts:
                d_m = d_joined[cols]
                d_a = V @ d_m
                d_s = a * (d_a - a @ d_a) / root
                d_q, d_K, d_V = K.T @ d_s, np.outer(d_s, q), np.outer(a, d_m)
                grads["W_Q"][:, cols] += np.outer(E[b, -1], d_q)
                grads["W_K"][:, cols] += E[b].T @ d_K
                grads["W_V"][:, cols] += E[b].T @ d_V
                d_E[-1] += params["W_Q"][:, cols] @ d_q
                d_E += d_K @ params["W_K"][:, cols].T + d_V @ params["W_V"][:, cols].T
            np.add.at(grads["tok_emb"], X[b], d_E)
            grads["pos_emb"][:length] += d_E
    return np.array(logits), loss, grads


def adamw_first_step(params: Mapping[str, np.ndarray], grads: Mapping[str, np.ndarray],
                     lr: float) -> dict[str, np.ndarray]:
    """The parameters after ``torch.optim.AdamW``'s first step with its defaults.

    Decoupled weight decay ``p ← p·(1 − lr·wd)``, then ``p ← p − lr·m̂/(√v̂ + eps)`` with
    the bias-corrected moments of the first step, ``m̂ = g`` and ``v̂ = g²``.
    """
    beta1, beta2 = ADAMW_BETAS
    out = {}
    for key, p in params.items():
        g = grads[key]
        m_hat = (1 - beta1) * g / (1 - beta1)
        v_hat = (1 - beta2) * g * g / (1 - beta2)
        out[key] = p * (1 - lr * ADAMW_WEIGHT_DECAY) - lr * m_hat / (np.sqrt(v_hat) + ADAMW_EPS)
    return out


def joined_pieces(heads: int, length: int) -> dict[str, np.ndarray]:
    """``lab.mix.*``: the (token position, head number) of piece ``k`` of joined row ``r``.

    Joined right, row ``r`` is token ``r`` with every head's piece in head order. Reshaped
    without the transpose, the rows are read in memory order, every token of head 1 first:
    piece ``k`` of row ``r`` is message row ``c = r·H + k`` of that order, head ``c // T``
    and token ``c % T`` (both counted from one here).
    """
    r, k = np.meshgrid(np.arange(length), np.arange(heads), indexing="ij")
    c = r * heads + k
    return {"lab.mix.right_token": r + 1, "lab.mix.right_head": k + 1,
            "lab.mix.wrong_token": c % length + 1, "lab.mix.wrong_head": c // length + 1}


def lab(doc: Doc) -> dict[str, Any]:
    """``lab.*``: the batch of every sentence, its shapes, loss, one AdamW step, one token."""
    names = list(doc["sentences"])
    heads = len(doc["headsLesson"]["projections"])
    params = lm_parameters(doc)
    X = np.array([token_ids(doc, name) for name in names])
    batch, length = X.shape
    width = params["W_Q"].shape[0]
    d_head = width // heads
    vocab = len(doc["vocab"])
    out: dict[str, Any] = {
        "lab.X": X, "lab.shape.X": [batch, length], "lab.shape.E": [batch, length, width],
        "lab.shape.Q": [batch, length, width],
        "lab.shape.Q_split": [batch, length, heads, d_head],
        "lab.shape.Q_heads": [batch, heads, length, d_head],
        "lab.shape.scores": [batch, heads, length, length],
        "lab.shape.A": [batch, heads, length, length],
        "lab.shape.messages": [batch, heads, length, d_head],
        "lab.shape.joined": [batch, length, width], "lab.shape.delta": [batch, length, width],
        "lab.shape.logits": [batch, vocab], "lab.A_weights": batch * heads * length * length,
        "lab.params": sum(p.size for p in params.values()), "lab.param_tensors": len(params),
        "lab.learning_rate": float(doc["lesson"]["lab"]["learningRate"]),
        **joined_pieces(heads, length),
    }
    targets = doc["lesson"]["targets"]
    if targets:
        lr = float(doc["lesson"]["lab"]["learningRate"])
        y = np.array([list(doc["vocab"]).index(targets[name].lower()) for name in names])
        logits, loss, grads = lm_loss(params, X, y, heads, gradient=True)
        _, loss_after, _ = lm_loss(adamw_first_step(params, grads, lr), X, y, heads)
        out.update({"lab.y": y, "lab.shape.y": [batch], "lab.loss": loss,
                    "lab.target_prob": np.array([softmax(row)[t] for row, t in zip(
                        logits, y, strict=True)]),
                    "lab.finite_grads": sum(bool(np.isfinite(g).all()) for g in grads.values()),
                    "lab.loss_after": loss_after})
    # PyTorch's layer in place of ours computes the same function, so the swapped model's
    # predictions are the model's own, and its gaps are rounding only
    batch_logits, _, _ = lm_loss(params, X, None, heads)
    batch_probs = np.array([softmax(row) for row in batch_logits])
    best = batch_probs.argmax(axis=1)
    for model in ("ours", "library"):
        out[f"lab.swap.{model}_id"] = best
        out[f"lab.swap.{model}_prob"] = batch_probs[np.arange(batch), best]
    out["lab.swap.max_diff_logits"] = 0.0
    if targets:
        out["lab.swap.loss"] = out["lab.loss"]
    # cross-attention's example: one weight row per English word written, one column per
    # German word being translated
    pair = doc["lesson"]["translation"]
    out.update({"lab.cross.english": len(pair["english"]),
                "lab.cross.german": len(pair["german"]),
                "lab.cross.shape.A": [len(pair["english"]), len(pair["german"])]})
    first, _, _ = lm_loss(params, X[:1], None, heads)
    probs = softmax(first[0])
    out.update({"lab.next_id": int(np.argmax(probs)), "lab.next_prob": probs.max(),
                "lab.shape.prompt": [1, length], "lab.shape.history": [1, length + 1]})
    return out


# --------------------------------------------------------------------------- every value


def values(doc: Doc) -> dict[str, Any]:
    """Every value the lecture displays, by the key ``compute_values`` gives it.

    Parameters
    ----------
    doc
        The worksheet's filled document (``load_worksheet(path).document``; a plain JSON
        copy of it is fine).

    Returns
    -------
    dict
        Key to a number, a numpy array (same nesting as the displayed value) or, for a
        shape, a list of sizes.
    """
    lesson = doc["lesson"]
    names = list(doc["sentences"])
    projections = doc["headsLesson"]["projections"]
    n_heads = len(projections)
    width = len(doc["pos_emb"][0])
    d_head = len(projections[0]["Q"][0])
    length = len(doc["sentences"][names[0]])
    hidden = len(doc["b_hidden"])
    out: dict[str, Any] = {
        "dims.d_model": width, "dims.d_head": d_head,
        "dims.sqrt_d_head": np.sqrt(d_head), "dims.heads": n_heads,
        "dims.joined": n_heads * d_head, "dims.sqrt_joined": np.sqrt(n_heads * d_head),
        "dims.tokens": length, "dims.sentences": len(names),
        "dims.vocab": len(doc["vocab"]), "dims.hidden": hidden,
        "dims.context": len(doc["pos_emb"]), "dims.positions": np.arange(1, length + 1),
        "dims.head_numbers": np.arange(1, n_heads + 1),
        "dims.value_numbers": np.arange(1, d_head + 1),
        "dims.hidden_units": np.arange(1, hidden + 1),
    }

    W_O = _array(doc["headsLesson"]["W_O"])
    out["params.tok_emb"] = np.array([doc["tok_emb"][w] for w in doc["vocab"]], dtype=float)
    out["params.pos_emb"] = _array(doc["pos_emb"])
    for h, head in enumerate(projections, start=1):
        for kind in "QKV":
            out[f"params.h{h}.W_{kind}"] = _array(head[kind])
        out[f"params.h{h}.W_O"] = W_O[(h - 1) * d_head:h * d_head]
        reads = np.abs(_array(head["K"])).sum(axis=1)
        out[f"params.h{h}.K_reads"] = reads
        out[f"params.h{h}.K_order"] = np.argsort(-reads, kind="stable")
        for kind in "KV":
            matrix = _array(head[kind])
            nonzero = matrix != 0  # a selector column holds one nonzero entry
            out[f"params.h{h}.{kind}_features"] = np.where(
                nonzero.sum(axis=0) == 1, np.argmax(nonzero, axis=0), -1)
        out[f"params.h{h}.V_is_K"] = int(np.array_equal(_array(head["V"]), _array(head["K"])))
    out["params.W_O"] = W_O
    for key in ("W_hidden", "b_hidden", "W_vocab", "b_vocab"):
        out[f"params.{key}"] = _array(doc[key])

    row_steps = ("products", "dots", "scale", "scores", "exps", "denominator", "weights",
                 "weights_sum", "contributions", "message", "top_source", "message_top", "A",
                 "score_gap", "exp_gap",
                 "H")
    cases = {name: sentence(doc, name) for name in names}
    for name, case in cases.items():
        for key in ("ids", "E", "mask", "joined", "update_terms", "delta", "E_prime",
                    "hidden_pre", "hidden", "logits", "probs", "prediction", "probs_sum",
                    "ranked", "probs_rest", "hidden_terms", "logit_terms", "top_hidden",
                    "top_input"):
            out[f"{name}.{key}"] = case[key]
        for h, head in enumerate(case["heads"], start=1):
            for step in ("Q", "K", "V", *row_steps, "share", "order", "rest", "mostly_rest",
                         "rest_large"):
                out[f"{name}.h{h}.{step}"] = head[step]
            for step, value in softmax_asides(head["dots"], head["scale"]).items():
                out[f"{name}.h{h}.{step}"] = value
        for step in (*row_steps, "V", "order", "rest", "mostly_rest", "rest_large"):
            out[f"{name}.wide.{step}"] = case["wide"][step]
        out[f"{name}.wide.diluted"] = int(abs(case["wide"]["message"][0])
                                          < abs(case["heads"][0]["message"][0]))
        out.update({f"{name}.wide.{key}": value for key, value in wide_twin(case).items()})
        out.update({f"{name}.wide.{key}": value for key, value in wide_growth(case).items()})
        out.update({f"{name}.wide.{key}": value
                    for key, value in (wide_carriers(case) | wide_others(case)).items()})
        out[f"{name}.other_head"] = other_head(case)
        out[f"{name}.same_input"] = int(np.array_equal(case["E"][-1],
                                                       cases[names[0]]["E"][-1]))
        out.update(readout_trace(name, case))
        if lesson["targets"]:
            out[f"{name}.target"] = list(doc["vocab"]).index(lesson["targets"][name].lower())

    out.update({
        "shapes.E": [length, width], "shapes.W_Q": [width, d_head], "shapes.Q": [length, d_head],
        "shapes.W_K": [width, d_head], "shapes.K": [length, d_head],
        "shapes.W_V": [width, d_head], "shapes.V": [length, d_head],
        "shapes.KT": [d_head, length], "shapes.q_row": [1, d_head],
        "shapes.scores": [length, length], "shapes.A": [length, length],
        "shapes.H": [length, d_head], "shapes.message": [1, d_head],
        "shapes.joined": [length, n_heads * d_head], "shapes.W_O": [n_heads * d_head, width],
        "shapes.W_O_block": [d_head, width], "shapes.delta": [length, width],
        "shapes.E_prime": [length, width], "shapes.last_row": [1, width],
        "shapes.W_Q_packed": [width, n_heads * d_head], "shapes.q_packed": [1, n_heads * d_head],
    })

    # nn.MultiheadAttention packs Q, K and V into one [3d, d] weight (and one 3d bias);
    # the output projection is a [d, d] Linear (with a d bias).
    offset = _array(lesson["bias"]["offset"])
    out.update({
        "bias.offset": offset,
        "bias.Q_offset": cases[names[0]]["heads"][0]["Q"] + offset,
        "bias.params_without": 4 * width * width,
        "bias.params_with": 4 * width * width + 4 * width,
        "bias.extra": 4 * width, "bias.offsets_per_projection": width,
        "bias.head_slice": d_head, "bias.in_proj_weight": [3 * width, width],
        "bias.in_proj_bias": [3 * width], "bias.out_proj_weight": [width, width],
        "bias.out_proj_bias": [width], "bias.in_proj_block": [width, width],
        "bias.projections": 4, "bias.weights_per_projection": width * width,
    })
    zero_rows = [r for r, row in enumerate(cases[names[0]]["heads"][0]["Q"]) if not np.any(row)]
    out["bias.zero_rows"] = len(zero_rows)
    query_reads = np.flatnonzero(np.any(out["params.h1.W_Q"] != 0, axis=1))
    out["bias.query_reads"] = query_reads
    if zero_rows:
        out["bias.zero_row"] = zero_rows[0]
        token = cases[names[0]]["E"][zero_rows[0]]
        out["bias.zero_row_unread"] = int(not np.any(token[query_reads]))

    out.update({f"toy.{key}": value for key, value in toy(doc).items()})

    # The scratch layer and nn.MultiheadAttention compute the same function: the exact
    # difference is zero.
    out.update({
        "mha.max_diff_delta": 0.0, "mha.max_diff_A": 0.0,
        "mha.scratch_delta": cases[names[0]]["delta"][-1],
        "mha.library_delta": cases[names[0]]["delta"][-1],
        "mha.delta": [len(names), length, width],
        "mha.A": [len(names), n_heads, length, length],
        "mha.in_proj_weight": [3 * width, width], "mha.out_proj_weight": [width, width],
        # The same call on the first sentence alone: no batch axis, float64 throughout.
        "mha.single.max_diff_delta": 0.0, "mha.single.max_diff_A": 0.0,
        "mha.single.delta": [length, width], "mha.single.A": [n_heads, length, length],
        "mha.single.weights": np.stack([head["A"] for head in cases[names[0]]["heads"]]),
        "mha.single.bits": np.finfo(np.float64).bits,
    })
    # The notebook's float32 run of that call shows the same three decimals as float64.
    wide, narrow = narrow_call(doc, names[0], np.float64), narrow_call(doc, names[0], np.float32)
    out["mha.notebook.bits"] = np.finfo(np.float32).bits
    out["mha.notebook.agrees"] = int(all(np.array_equal(np.round(a, 3),
                                                        np.round(b.astype(np.float64), 3))
                                         for a, b in zip(wide, narrow, strict=True)))

    out.update(trained(doc))

    p = lesson["patches"]
    side, size = len(p["image"]), p["size"]
    count, per_patch = (side // size) ** 2, size * size
    p_width = len(p["projection"][0])
    parts = patches(doc)
    out.update({
        "patches.image": _array(p["image"]), "patches.size": size, "patches.side": side,
        "patches.per_side": side // size, "patches.count": count,
        "patches.values_per_patch": per_patch, "patches.flat": parts["flat"],
        "patches.W": _array(p["projection"]), "patches.rows": parts["rows"],
        "patches.cls": _array(p["cls"]), "patches.positions": _array(p["positions"]),
        "patches.sequence": parts["sequence"], "patches.total_rows": count + 1,
        "patches.shape.image": [side, side], "patches.shape.flat": [count, per_patch],
        "patches.shape.W": [per_patch, p_width], "patches.shape.rows": [count, p_width],
        "patches.shape.sequence": [count + 1, p_width],
        # a colour image: three values (red, green, blue) per pixel, channels first
        "patches.channels": RGB, "patches.values_per_patch_rgb": per_patch * RGB,
        "patches.shape.image_rgb": [RGB, side, side],
        "patches.shape.flat_rgb": [count, per_patch * RGB],
        "patches.shape.W_rgb": [per_patch * RGB, p_width],
    })
    out.update(patch_twins(parts))

    out.update(lab(doc))
    return out


# --------------------------------------------------------------------------- display check

_NUMBER = re.compile(r"^-?(?P<int>\d+)(?:\.(?P<dec>\d+))?(?:e(?P<exp>[+-]\d+))?$")
_COUNT = re.compile(r"^-?\d{1,3}(?:,\d{3})*$")
_INDEX = re.compile(r"^-?\d+$")
_SHAPE = re.compile(r"^\[(?:\d+(?:, \d+)*)?\]$")
_DECIMALS = 3
"""Decimals of :attr:`Style.FIXED3` and :attr:`Style.PARAM` (the mantissa's, when
scientific)."""


def _parse_real(text: str, style: Style) -> tuple[float, float] | None:
    """``(shown number, unit of its last digit)`` of a FIXED3/PARAM text, or ``None`` when
    the text is not in that style's form."""
    if "-" in text:  # a negative sign is always the true minus
        return None
    plain = text.replace(MINUS, "-")
    match = _NUMBER.match(plain)
    if not match or (text.startswith(MINUS) and float(plain) == 0.0):
        return None
    decimals = len(match["dec"] or "")
    exponent = int(match["exp"] or 0)
    if style is Style.FIXED3 and decimals != _DECIMALS:
        return None
    if style is Style.PARAM and (decimals > _DECIMALS or (match["dec"] or "1").endswith("0")):
        return None
    if match["exp"] is not None and not 1 <= int(match["int"]) <= 9:
        return None
    shown = float(plain)
    # PARAM drops trailing zeros, so "2" stands for 2.000: its unit is still 1e-3.
    return shown, 10.0 ** (exponent - _DECIMALS)


def _whole(expected: Any) -> int | None:
    value = np.asarray(expected)
    if value.shape != () or not np.isfinite(value) or float(value) != int(value):
        return None
    return int(value)


def display_error(text: str, style: Style, expected: Any) -> float:
    """How far a display text is from a reference value, in units of its last digit.

    ``0`` is exact; :func:`within_display` allows up to ``0.5`` (plus :data:`SLACK`).
    Whole-number, shape and noise styles give ``0`` when they agree and ``inf`` when not;
    so does a text not in its style's form.
    """
    if style in (Style.FIXED3, Style.PARAM):
        parsed = _parse_real(text, style)
        value = np.asarray(expected, dtype=float) if _is_number(expected) else None
        if parsed is None or value is None or value.shape != () or not np.isfinite(value):
            return math.inf
        shown, unit = parsed
        return abs(shown - float(value)) / unit
    return 0.0 if _exact(text, style, expected) else math.inf


def _is_number(expected: Any) -> bool:
    """A single real number (Python or numpy, not a bool)."""
    if isinstance(expected, np.ndarray):
        return expected.shape == () and np.issubdtype(expected.dtype, np.number)
    return isinstance(expected, (int, float, np.number)) and not isinstance(expected, bool)


def _exact(text: str, style: Style, expected: Any) -> bool:
    if style is Style.SHAPE:
        if not _SHAPE.match(text) or not isinstance(expected, (list, tuple, np.ndarray)):
            return False
        sizes = [_whole(size) for size in expected]
        shown = [int(size) for size in text[1:-1].split(", ") if size]
        return None not in sizes and shown == sizes
    if style is Style.BELOW:
        return (text == f"< {NOISE:.0e}".replace("-", MINUS) and _is_number(expected)
                and abs(float(expected)) < NOISE)
    if style in (Style.COUNT, Style.INDEX):
        form = _COUNT if style is Style.COUNT else _INDEX
        whole = _whole(expected) if _is_number(expected) else None
        if "-" in text or whole is None or not form.match(text.replace(MINUS, "-")):
            return False
        return int(text.replace(MINUS, "-").replace(",", "")) == whole
    return False


def within_display(text: str, style: Style, expected: Any) -> bool:
    """Whether a display text shows ``expected`` correctly to its last digit.

    FIXED3 and PARAM texts are parsed (true minus ``−``, scientific ``1.543e+07``); with
    ``e`` the exponent (0 when not scientific) the unit of the last digit is
    ``10**(e − 3)`` (PARAM drops trailing zeros, so ``"2"`` stands for ``2.000``), and the
    text holds when ``|shown − expected| ≤ unit/2 + SLACK·max(1, |expected|)``; the slack
    lets a true rounding tie round either way. COUNT (``4,096``), INDEX and SHAPE
    (``[10, 4]``) must equal ``expected`` exactly; BELOW must read ``< 1e−12`` with
    ``|expected|`` below ``1e-12``. A text not in its style's form never holds (an ASCII
    hyphen as minus, ``−0.000``, a FIXED3 text without three decimals, a PARAM text with a
    trailing zero, a number from ``1e6`` on not in scientific notation).

    Parameters
    ----------
    text
        One displayed text (a leaf's ``Figure.text``).
    style
        Its display style.
    expected
        The reference value: a number, or a list of sizes for SHAPE.

    Examples
    --------
    >>> within_display("0.718", Style.FIXED3, 0.71764)
    True
    >>> within_display("2", Style.PARAM, 2.4)
    False
    """
    if style in (Style.FIXED3, Style.PARAM):
        parsed = _parse_real(text, style)
        if parsed is None or not _is_number(expected) or not math.isfinite(float(expected)):
            return False
        shown, unit = parsed
        if (abs(shown) >= LARGE) != ("e" in text):
            return False
        reference = float(expected)
        return abs(shown - reference) <= unit / 2 + SLACK * max(1.0, abs(reference))
    return _exact(text, style, expected)


def worksheet_values(document: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`values` of a loaded worksheet's filled ``document`` (any mapping), as plain
    JSON data first, so that nothing of the program's own types reaches numpy."""
    import json

    return values(json.loads(json.dumps(dict(document))))


def expected_at(reference: Mapping[str, Any], key: str, style: Style) -> Any:
    """The reference value a displayed key shows: the whole value for a shape or an
    unindexed key, else the entry its ``[i][j]`` picks."""
    from worksheet import parse_key  # the key syntax only, no computation

    base, index = parse_key(key)
    if style is Style.SHAPE or not index:
        return reference[base]
    return np.asarray(reference[base])[index]


# --------------------------------------------------------------------------- the live slide

LIVE = "trained.results.live"
"""Where the live slide's opening example is among the values."""
LIVE_MOST = 20
"""The tokens the live slide asks of each model (the slide's own rule, restated)."""


def _checkpoint(path: Any) -> dict[str, np.ndarray]:
    """A shipped checkpoint's weights in float64: a stored 8-bit matrix times its row
    scales, the product rounded to float32 as ONNX's ``DequantizeLinear`` defines it."""
    from safetensors.numpy import load_file

    stored = load_file(str(path))
    weights = {}
    for name, value in stored.items():
        if name.endswith(".scale"):
            continue
        if value.dtype == np.int8:
            value = value.astype(np.float32) * stored[name + ".scale"][:, None]
        weights[name] = value.astype(np.float64)
    return weights


def _live_step(weights: Mapping[str, np.ndarray], heads: int, ids: list[int], pads: int
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """Logits after one full window of ids whose first ``pads`` are pads, and (an attention
    model) each head's weights of the last position over the window: the formulas of the
    lesson, written out (one receiver, the last)."""
    rows = weights["token_embedding.weight"][ids]
    if "attention.in_proj_weight" not in weights:  # the fixed-window MLP reads every row
        hidden = np.maximum(weights["hidden.weight"] @ rows.reshape(-1)
                            + weights["hidden.bias"], 0)
        return weights["readout.weight"] @ hidden + weights["readout.bias"], None
    E = rows + weights["position_embedding.weight"]
    width = E.shape[1]
    W_Q, W_K, W_V = np.split(weights["attention.in_proj_weight"], 3)
    q, K, V = W_Q @ E[-1], E @ W_K.T, E @ W_V.T
    d = width // heads
    A, messages = [], []
    for h in range(heads):
        part = slice(h * d, (h + 1) * d)
        scores = K[:, part] @ q[part] / math.sqrt(d)
        scores[:pads] = -np.inf
        a = softmax(scores)
        A.append(a)
        messages.append(a @ V[:, part])
    delta = weights["attention.out_proj.weight"] @ np.concatenate(messages)
    hidden = np.maximum(weights["hidden.weight"] @ (E[-1] + delta) + weights["hidden.bias"], 0)
    return weights["readout.weight"] @ hidden + weights["readout.bias"], np.array(A)


def live_values(folder: Any) -> dict[str, Any]:
    """The live slide's opening example (``trained.results.live.*``), recomputed from an
    experiment's folder: its ``experiment.json``, ``tokenizer.json`` (split by the
    ``tokenizers`` library itself) and shipped checkpoints, in numpy float64.

    The lesson's prompt in a window of the last ``context`` tokens, left-padded with
    ``<|endoftext|>``; greedy continuation (the first of the largest logits) up to
    :data:`LIVE_MOST` tokens or the end of a text, each model's returned as its raw text
    under ``M.continuation`` (shown by the display rule ``shown_text``); the weights of the
    model with the most heads, pads left out; words as runs of letters (``str.isalpha``).
    """
    import itertools
    import json
    from pathlib import Path

    from tokenizers import Tokenizer

    folder = Path(folder)
    doc = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    end = tokenizer.token_to_id("<|endoftext|>")
    context = doc["sizes"]["context"]
    text = doc["prompt"]["text"]
    prompt = tokenizer.encode(text, add_special_tokens=False).ids
    out: dict[str, Any] = {}
    most = f"heads{max(doc['sizes']['heads'])}"
    for model, entry in doc["shipped"]["models"].items():
        weights = _checkpoint(folder / entry["checkpoint"]["file"])
        heads = 0 if model == "mlp" else int(model.removeprefix("heads"))
        tokens, made = list(prompt), []
        for step in range(LIVE_MOST):
            kept = tokens[-context:]
            pads = context - len(kept)
            logits, A = _live_step(weights, heads, [end] * pads + kept, pads)
            if step == 0 and model == most:
                out[f"{LIVE}.weights"] = A[:, pads:]
                out[f"{LIVE}.tallest"] = float(A[:, pads:].max())
            token = int(np.argmax(logits))
            if token == end:
                break
            made.append(token)
            tokens.append(token)
        out[f"{LIVE}.{model}.continuation"] = tokenizer.decode(made)
    words = []
    position = 0
    for letters, run in itertools.groupby(text, key=str.isalpha):
        piece = "".join(run)
        if letters:
            spaced = position > 0 and text[position - 1] == " "
            words.append(" " + piece if spaced else piece)
        position += len(piece)
    count = len(prompt)
    out.update({
        f"{LIVE}.tokens": count,
        f"{LIVE}.characters_per_token": len(text) / count,
        f"{LIVE}.words": len(words),
        f"{LIVE}.single": sum(len(tokenizer.encode(w, add_special_tokens=False).ids) == 1
                              for w in words),
        f"{LIVE}.labels": [tokenizer.decode([i]) for i in prompt[-context:]],
    })
    return out


__all__ += ["live_values"]


# --------------------------------------------------------------------------- the readout trace

def readout_trace(name: str, case: Mapping[str, Any]) -> dict[str, Any]:
    """For the final receiver of sentence ``name`` (a :func:`sentence` result):
    ``logit_others``, what every hidden number other than ``top_hidden`` adds to the
    predicted word's logit (summed term by term here, the followed one skipped), and
    ``input_top``, the input coordinate of largest magnitude (the first of equals)."""
    word, top = case["prediction"], case["top_hidden"]
    terms = case["logit_terms"][:, word]
    others = sum(float(terms[k]) for k in range(len(terms)) if k != top)
    return {f"{name}.logit_others": others,
            f"{name}.input_top": int(np.argmax(np.abs(case["E"][-1])))}


__all__ += ["readout_trace"]


def round_ticks(largest: float) -> list[float]:
    """Round ticks from zero for a results chart, recomputed by search: the step is the
    smallest 1, 2 or 5 times a power of ten that keeps to five ticks up to ``largest``."""
    for power in range(-6, 12):
        for m in (1, 2, 5):
            step = m * 10.0 ** power
            if int(largest // step) + 1 <= 5:
                return [k * step for k in range(int(largest // step) + 1)]
    raise AssertionError(largest)
