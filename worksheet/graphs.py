"""ONNX graphs of the trained comparison's models, for the deck's live slide.

Each graph computes what the lesson's class computes for the *last* position of a full
window, from the very weights of a checkpoint:

``mlp``
    ``ids`` (int64 ``[1, context]``) → ``logits`` ``[1, vocab]``: every token row, the
    rows joined into one long row, the hidden layer with ReLU, the vocabulary layer.
``headsN``
    ``ids`` and ``padding`` (bool ``[1, context]``, true at a pad) → ``logits`` and
    ``weights`` ``[N, context]``: the last receiver's weights in every head, pads blocked.

The graph is built node by node with :mod:`onnx.helper` (no tracing), with fixed names and
a fixed IR version, so the same weights always give the same bytes: a build exports the
shipped checkpoints again and ``lecture check`` compares the files' sha256 with the
experiment's record.

A weight matrix stored in 8 bits (:func:`quantise`: one scale per row) enters the graph
as it is stored, with a ``DequantizeLinear`` node in front: the runtime computes with the
same float32 weights that :func:`dequantise` gives torch.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from worksheet.errors import ExperimentError

__all__ = ["IR_VERSION", "OPSET", "Graph", "Shipped", "attention_graph", "dequantise",
           "mlp_graph", "model_graph", "quantise", "shipped"]

OPSET = 17
IR_VERSION = 8
"""The ONNX IR version of opset 17, written explicitly so that the bytes do not follow
the installed ``onnx`` package's default."""
PRODUCER = "multihead-lecture"
SCALE = ".scale"
"""Suffix of a quantised matrix's per-row scales in a checkpoint."""

Weights = Mapping[str, np.ndarray]


def quantise(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(int8 matrix, float32 scale per row)``, symmetric: row ``i`` is
    ``q[i] * scale[i]`` with ``|q| ≤ 127`` (a zero row keeps scale 1)."""
    weight = np.asarray(weight, dtype=np.float32)
    largest = np.abs(weight).max(axis=1)
    scale = np.where(largest > 0, largest / 127, 1).astype(np.float32)
    q = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def dequantise(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The float32 matrix a quantised one stands for: what ``DequantizeLinear`` computes."""
    return q.astype(np.float32) * scale.astype(np.float32)[:, None]


class Graph:
    """Nodes and initializers under fixed names; every tensor name is made here."""

    def __init__(self, weights: Weights) -> None:
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.weights = weights
        self.nodes: list = []
        self.initializers: list = []
        self.count = 0

    def const(self, value: np.ndarray | list | float, dtype: type = np.int64) -> str:
        self.count += 1
        name = f"const{self.count}"
        self.initializers.append(self.numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def op(self, kind: str, *inputs: str, **attributes: object) -> str:
        self.count += 1
        output = f"{kind.lower()}{self.count}"
        self.nodes.append(self.helper.make_node(kind, list(inputs), [output],
                                                name=f"n{self.count}", **attributes))
        return output

    def tensor(self, name: str, value: np.ndarray) -> str:
        """A named initializer holding ``value`` as it is (its dtype kept)."""
        self.initializers.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def output(self, name: str, tensor: str) -> None:
        """Name ``tensor`` as the graph output ``name`` (an ``Identity`` node)."""
        self.nodes.append(self.helper.make_node("Identity", [tensor], [name], name=name))

    def weight(self, name: str) -> str:
        """A checkpoint tensor as float32: itself, or its 8-bit rows dequantised."""
        value = self.weights[name]
        self.initializers.append(self.numpy_helper.from_array(value, name))
        if value.dtype == np.int8:
            scale = name + SCALE
            self.initializers.append(self.numpy_helper.from_array(
                np.asarray(self.weights[scale], np.float32), scale))
            return self.op("DequantizeLinear", name, scale, axis=0)
        if value.dtype != np.float32:
            raise ValueError(f"{name}: expected float32 or int8 weights, got {value.dtype}")
        return name

    def linear(self, rows: str, layer: str) -> str:
        """``rows @ W.T + b`` of an ``nn.Linear`` (bias optional)."""
        inputs = [rows, self.weight(f"{layer}.weight")]
        if f"{layer}.bias" in self.weights:
            inputs.append(self.weight(f"{layer}.bias"))
        return self.op("Gemm", *inputs, transB=1)

    def model(self, inputs: list, outputs: list, name: str) -> bytes:
        from onnx import TensorProto  # noqa: F401  (types come through helper)

        helper = self.helper
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, producer_name=PRODUCER, ir_version=IR_VERSION,
                                  opset_imports=[helper.make_opsetid("", OPSET)])
        return model.SerializeToString()


def _ids_input(helper: object, context: int) -> object:
    from onnx import TensorProto

    return helper.make_tensor_value_info("ids", TensorProto.INT64, [1, context])


def mlp_graph(weights: Weights, context: int, vocab: int) -> bytes:
    """The fixed-window MLP's next-token logits after a full window of ``context`` ids."""
    from onnx import TensorProto

    g = Graph(weights)
    rows = g.op("Gather", g.weight("token_embedding.weight"), "ids", axis=0)  # [1, T, W]
    flat = g.op("Reshape", rows, g.const([1, -1]))                             # [1, T·W]
    hidden = g.op("Relu", g.linear(flat, "hidden"))
    g.linear(hidden, "readout")
    g.nodes[-1].output[0] = "logits"
    return g.model([_ids_input(g.helper, context)],
                   [g.helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, vocab])],
                   "fixed_window_mlp")


def attention_graph(weights: Weights, context: int, vocab: int, heads: int) -> bytes:
    """One attention model's next-token logits and its last receiver's weights per head,
    after a full window of ``context`` ids whose first pads are blocked as sources."""
    from onnx import TensorProto

    g = Graph(weights)
    width = weights["position_embedding.weight"].shape[1]
    d = width // heads
    tokens = g.op("Gather", g.weight("token_embedding.weight"), "ids", axis=0)  # [1, T, W]
    E = g.op("Reshape", g.op("Add", tokens, g.weight("position_embedding.weight")),
             g.const([context, width]))                                         # [T, W]
    qkv = g.op("Gemm", E, g.weight("attention.in_proj_weight"), transB=1)      # [T, 3W]

    def columns(first: int, rows_from: int) -> str:
        return g.op("Slice", qkv, g.const([rows_from, first]),
                    g.const([context, first + width]), g.const([0, 1]))

    q = g.op("Reshape", columns(0, context - 1), g.const([heads, 1, d]))       # [h, 1, d]
    K = g.op("Transpose", g.op("Reshape", columns(width, 0), g.const([context, heads, d])),
             perm=[1, 2, 0])                                                    # [h, d, T]
    V = g.op("Transpose", g.op("Reshape", columns(2 * width, 0),
                                g.const([context, heads, d])), perm=[1, 0, 2])  # [h, T, d]
    scores = g.op("Mul", g.op("MatMul", q, K), g.const(1 / math.sqrt(d), np.float32))
    blocked = g.op("Reshape", "padding", g.const([1, 1, context]))
    masked = g.op("Where", blocked, g.const(-np.inf, np.float32), scores)
    A = g.op("Softmax", masked, axis=-1)                                        # [h, 1, T]
    messages = g.op("MatMul", A, V)                                             # [h, 1, d]
    joined = g.op("Reshape", g.op("Transpose", messages, perm=[1, 0, 2]),
                  g.const([1, width]))
    delta = g.op("Gemm", joined, g.weight("attention.out_proj.weight"), transB=1)
    last = g.op("Slice", E, g.const([context - 1]), g.const([context]), g.const([0]))
    hidden = g.op("Relu", g.linear(g.op("Add", last, delta), "hidden"))
    g.linear(hidden, "readout")
    g.nodes[-1].output[0] = "logits"
    g.nodes.append(g.helper.make_node("Reshape", [A, g.const([heads, context])], ["weights"],
                                      name="weights"))
    inputs = [_ids_input(g.helper, context),
              g.helper.make_tensor_value_info("padding", TensorProto.BOOL, [1, context])]
    outputs = [g.helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, vocab]),
               g.helper.make_tensor_value_info("weights", TensorProto.FLOAT, [heads, context])]
    return g.model(inputs, outputs, f"attention_{heads}_heads")


def model_graph(model: str, weights: Weights, sizes: Mapping[str, int]) -> bytes:
    """The graph of one compared model by its name: ``mlp``, or ``headsN``."""
    if model == "mlp":
        return mlp_graph(weights, sizes["context"], sizes["vocab"])
    return attention_graph(weights, sizes["context"], sizes["vocab"],
                           int(model.removeprefix("heads")))


@dataclass(frozen=True)
class Shipped:
    """What an experiment ships, each file held to the sha256 its record gives."""

    tokenizer: bytes
    """``tokenizer.json`` as shipped."""
    graphs: dict[str, bytes]
    """Each model's ONNX graph, exported again from its checkpoint, by model name."""


def shipped(folder: Path, document: Mapping[str, Any]) -> Shipped:
    """The tokenizer and each shipped model's graph, exported again from its checkpoint in
    ``folder``. The tokenizer, each checkpoint and each graph must have the sha256 the
    experiment's record gives: the deck's live slide and ``lecture check`` both read them
    from here.

    Raises
    ------
    ExperimentError
        When the experiment ships no models, or a file is missing or differs.
    """
    from safetensors.numpy import load_file

    models = (document.get("shipped") or {}).get("models")
    if not models:
        raise ExperimentError(f"{folder / 'experiment.json'}: shipped: missing; expected the "
                              "checkpoints an experiment written with --ship holds")
    record = document.get("tokenizer") or {}
    file = folder / record.get("file", "tokenizer.json")
    try:
        tokenizer = file.read_bytes()
    except OSError as error:
        raise ExperimentError(f"{file}: cannot read the tokenizer the models were trained "
                              f"with ({error.strerror})") from None
    if hashlib.sha256(tokenizer).hexdigest() != record.get("sha256"):
        raise ExperimentError(f"{file}: sha256 differs from the experiment's "
                              "tokenizer.sha256; expected the tokenizer the experiment wrote")
    graphs = {}
    for model, entry in models.items():
        file = folder / entry["checkpoint"]["file"]
        if not file.is_file():
            raise ExperimentError(f"{file}: not found; expected the checkpoint of {model} "
                                  "that the experiment ships")
        data = file.read_bytes()
        if hashlib.sha256(data).hexdigest() != entry["checkpoint"]["sha256"]:
            raise ExperimentError(f"{file}: sha256 differs from shipped.models.{model}."
                                  "checkpoint.sha256; expected the file the experiment wrote")
        graph = model_graph(model, load_file(str(file)), document["sizes"])
        if hashlib.sha256(graph).hexdigest() != entry["onnx"]["sha256"]:
            raise ExperimentError(f"{file}: its graph's sha256 differs from shipped.models."
                                  f"{model}.onnx.sha256; expected the graph the experiment "
                                  "exported")
        graphs[model] = graph
    return Shipped(tokenizer, graphs)
