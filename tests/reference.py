"""An independent recomputation in plain numpy (float64) to check the torch values against.

Written from the lesson's formulas, not from ``worksheet.compute``: it reads the raw
JSON document and shares no code with the package beyond the file format.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def embed(doc: dict[str, Any], sentence: str) -> np.ndarray:
    words = [w.lower() for w in doc["sentences"][sentence]]
    tok = np.array([doc["tok_emb"][w] for w in words], dtype=float)
    return tok + np.array(doc["pos_emb"], dtype=float)[: len(words)]


def head_final_row(E: np.ndarray, W_Q: np.ndarray, W_K: np.ndarray,
                   W_V: np.ndarray) -> dict[str, np.ndarray]:
    """The final receiver's arithmetic for one head, step by step."""
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    q = Q[-1]
    products = np.array([[q[c] * K[j, c] for c in range(len(q))] for j in range(len(K))])
    dots = products.sum(axis=1)
    scores = dots / math.sqrt(len(q))
    exps = np.exp(scores)
    denominator = exps.sum()
    weights = exps / denominator
    contributions = weights[:, None] * V
    n = len(E)
    grid = Q @ K.T / math.sqrt(len(q))
    grid[np.triu(np.ones((n, n), dtype=bool), 1)] = -np.inf
    A = softmax(grid)
    return {"Q": Q, "K": K, "V": V, "products": products, "dots": dots, "scores": scores,
            "exps": exps, "denominator": denominator, "weights": weights,
            "contributions": contributions, "message": contributions.sum(axis=0),
            "A": A, "H": A @ V}


def sentence(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """Everything the lesson computes for one sentence."""
    E = embed(doc, name)
    heads = []
    for p in doc["headsLesson"]["projections"]:
        heads.append(head_final_row(E, *(np.array(p[k], dtype=float) for k in "QKV")))
    W_O = np.array(doc["headsLesson"]["W_O"], dtype=float)
    joined = np.concatenate([h["H"] for h in heads], axis=1)
    delta = joined @ W_O
    updated = E + delta
    wide = head_final_row(E, *(np.concatenate(
        [np.array(p[k], dtype=float) for p in doc["headsLesson"]["projections"]], axis=1)
        for k in "QKV"))
    hidden_pre = updated @ np.array(doc["W_hidden"]) + np.array(doc["b_hidden"])
    logits = np.maximum(hidden_pre, 0) @ np.array(doc["W_vocab"]) + np.array(doc["b_vocab"])
    probs = softmax(logits[-1])
    return {"E": E, "heads": heads, "joined": joined, "delta": delta, "E_prime": updated,
            "wide": wide, "hidden": np.maximum(hidden_pre[-1], 0), "logits": logits,
            "probs": probs, "prediction": int(np.argmax(probs)), "W_O": W_O}


def toy(doc: dict[str, Any]) -> dict[str, np.ndarray]:
    t = doc["lesson"]["toy"]
    values, weights = np.array(t["values"], float), np.array(t["weights"], float)
    one = weights[0] @ values
    two = np.array([weights[c] @ values[:, c] for c in range(2)])
    required = np.array([(two[c] - values[1, c]) / (values[0, c] - values[1, c])
                         for c in range(2)])
    return {"one_head": one, "two_heads": two, "required": required}


def patches(doc: dict[str, Any]) -> dict[str, np.ndarray]:
    p = doc["lesson"]["patches"]
    image, size = np.array(p["image"], float), p["size"]
    side = image.shape[0]
    flat = np.array([image[r:r + size, c:c + size].reshape(-1)
                     for r in range(0, side, size) for c in range(0, side, size)])
    rows = flat @ np.array(p["projection"], float)
    sequence = np.vstack([np.array(p["cls"], float), rows]) + np.array(p["positions"], float)
    return {"flat": flat, "rows": rows, "sequence": sequence}


def trained_parameter_counts(doc: dict[str, Any]) -> dict[str, int]:
    """Parameter counts by formula: embeddings, projections without bias, MLP with bias."""
    t = doc["lesson"]["trained"]
    V, T, w, h = t["vocab"], t["context"], t["width"], t["hidden"]
    readout = h * V + V
    counts = {"mlp": V * w + (T * w) * h + h + readout}
    for heads in t["heads"]:
        counts[f"heads{heads}"] = V * w + T * w + 4 * w * w + w * h + h + readout
    return counts
