"""The worksheet's own model as an ONNX graph, for the deck's explorer slide.

The explorer lets a student build a sentence from the worksheet's vocabulary and shows,
computed in the browser, what the lesson computes for its last token. The graph holds
exactly the worksheet's parameters in float64 (ONNX Runtime Web's WebAssembly kernels
compute every operator used here in double) and follows :mod:`worksheet.compute` step
for step, so that its figures, formatted as the lecture formats them, are the lecture's:

``ids``
    int64 ``[1, T]``, ``1 ≤ T ≤`` the worksheet's context (its ``pos_emb`` rows).
``q``, ``k``, ``v``
    ``[heads, d_head]``: the last token's query, key and value row in every head
    (``S.hN.Q[T-1]``, ``S.hN.K[T-1]``, ``S.hN.V[T-1]``).
``weights``
    ``[heads, T]``: each head's weights from the last token over the sentence, the way
    the lesson shows them one step at a time: ``q·k`` as products summed, divided by
    ``√d_head``, exponentials over their sum (``S.hN.weights``).
``messages``
    ``[heads, d_head]``: each head's weighted sum of value rows (``S.hN.message``).
``joined``, ``delta``, ``updated``
    ``[heads·d_head]``, ``[d_model]``, ``[d_model]``: the last row of the joined
    messages (the softmax of the scaled scores times ``V``, as the layer computes its
    grid), of ``ΔE`` after ``W_O`` and of ``E′ = E + ΔE`` (``S.joined``, ``S.delta``,
    ``S.E_prime`` at ``T-1``).
``hidden``, ``logits``, ``probs``, ``prediction``
    the prediction MLP on that row: its hidden row after ReLU, the logits, the
    probabilities and the most probable id (``S.hidden``, ``S.logits[T-1]``,
    ``S.probs``, ``S.prediction``).

The graph is built node by node (:class:`worksheet.graphs.Graph`) under fixed names and
the fixed IR version, so one worksheet always gives the same bytes: ``lecture check``
can export it again and compare (:func:`explorer_graph`).
"""

from __future__ import annotations

import hashlib
import math
from typing import NamedTuple

import numpy as np

from worksheet.graphs import Graph
from worksheet.schema import Worksheet

__all__ = ["OUTPUTS", "ExplorerGraph", "explorer_graph"]

OUTPUTS = ("q", "k", "v", "weights", "messages", "joined", "delta", "updated", "hidden",
           "logits", "probs", "prediction")
"""The graph's outputs, in the order it lists them."""
_END = np.iinfo(np.int64).max
"""A slice's end that means "to the last entry"."""


class ExplorerGraph(NamedTuple):
    """The explorer's ONNX graph for one worksheet, and its sha256 (hex)."""

    graph: bytes
    sha256: str


def explorer_graph(ws: Worksheet) -> ExplorerGraph:
    """The worksheet model's graph for the last token of a sentence of ``T`` ids."""
    from onnx import TensorProto

    g = Graph({})
    heads, d_head, width = ws.n_heads, ws.d_head, ws.d_model

    def parameter(name: str, value: np.ndarray) -> str:
        return g.tensor(name, np.ascontiguousarray(value, dtype=np.float64))

    def axes(*values: int) -> str:
        return g.const(list(values))

    def last(tensor: str, axis: int) -> str:
        """The last entry along ``axis``, the axis kept (of length one)."""
        return g.op("Slice", tensor, axes(-1), axes(_END), axes(axis))

    tok_emb, pos_emb = parameter("tok_emb", ws.tok_emb), parameter("pos_emb", ws.pos_emb)
    W = {kind: parameter(f"W_{kind}", np.stack([getattr(h, kind) for h in ws.heads]))
         for kind in ("Q", "K", "V")}                                     # [heads, D, d]
    W_O = parameter("W_O", ws.W_O)
    W_hidden, b_hidden = parameter("W_hidden", ws.W_hidden), parameter("b_hidden", ws.b_hidden)
    W_vocab, b_vocab = parameter("W_vocab", ws.W_vocab), parameter("b_vocab", ws.b_vocab)
    scale = g.const(math.sqrt(d_head), np.float64)

    length = g.op("Shape", "ids", start=1, end=2)                          # [1]: T
    tokens = g.op("Gather", tok_emb, g.op("Reshape", "ids", axes(-1)), axis=0)  # [T, D]
    positions = g.op("Slice", pos_emb, axes(0), length, axes(0))            # [T, D]
    E = g.op("Add", tokens, positions)
    Q, K, V = (g.op("MatMul", E, W[kind]) for kind in ("Q", "K", "V"))      # [heads, T, d]
    q = last(Q, 1)                                                          # [heads, 1, d]

    # The receiver's weights as the lesson shows them, one step at a time.
    dots = g.op("ReduceSum", g.op("Mul", q, K), axes(2), keepdims=0)         # [heads, T]
    exps = g.op("Exp", g.op("Div", dots, scale))
    weights = g.op("Div", exps, g.op("ReduceSum", exps, axes(1), keepdims=1))
    contributions = g.op("Mul", g.op("Unsqueeze", weights, axes(2)), V)     # [heads, T, d]
    messages = g.op("ReduceSum", contributions, axes(1), keepdims=0)         # [heads, d]

    # The update as the layer computes its grid: softmax(q Kᵀ / √d) V, heads joined, W_O.
    grid = g.op("Div", g.op("MatMul", q, g.op("Transpose", K, perm=[0, 2, 1])), scale)
    H = g.op("MatMul", g.op("Softmax", grid, axis=-1), V)                    # [heads, 1, d]
    joined = g.op("Reshape", g.op("Transpose", H, perm=[1, 0, 2]), axes(1, heads * d_head))
    delta = g.op("MatMul", joined, W_O)                                     # [1, D]
    updated = g.op("Add", last(E, 0), delta)
    hidden = g.op("Relu", g.op("Add", g.op("MatMul", updated, W_hidden), b_hidden))
    logits = g.op("Add", g.op("MatMul", hidden, W_vocab), b_vocab)           # [1, vocab]
    probs = g.op("Softmax", logits, axis=-1)
    prediction = g.op("ArgMax", probs, axis=1, keepdims=0)                  # [1]

    rows = axes(heads, d_head)
    flat = axes(-1)
    shown = {"q": g.op("Reshape", q, rows), "k": g.op("Reshape", last(K, 1), rows),
             "v": g.op("Reshape", last(V, 1), rows), "weights": weights, "messages": messages,
             "joined": g.op("Reshape", joined, flat), "delta": g.op("Reshape", delta, flat),
             "updated": g.op("Reshape", updated, flat), "hidden": g.op("Reshape", hidden, flat),
             "logits": g.op("Reshape", logits, flat), "probs": g.op("Reshape", probs, flat),
             "prediction": prediction}
    for name in OUTPUTS:
        g.output(name, shown[name])

    helper, double = g.helper, TensorProto.DOUBLE
    shapes = {"q": [heads, d_head], "k": [heads, d_head], "v": [heads, d_head],
              "weights": [heads, "T"], "messages": [heads, d_head],
              "joined": [heads * d_head], "delta": [width], "updated": [width],
              "hidden": [ws.hidden], "logits": [len(ws.vocab)], "probs": [len(ws.vocab)]}
    outputs = [helper.make_tensor_value_info(name, double, shapes[name])
               for name in OUTPUTS if name != "prediction"]
    outputs.append(helper.make_tensor_value_info("prediction", TensorProto.INT64, [1]))
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "T"])]
    graph = g.model(inputs, outputs, "worksheet_explorer")
    return ExplorerGraph(graph, hashlib.sha256(graph).hexdigest())
