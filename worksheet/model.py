"""Torch modules for the worksheet model and the trained comparison models.

Row-vector convention throughout: a projection is ``rows @ W`` with ``W`` of shape
``[in, out]``, the way the worksheet stores it.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from worksheet.schema import Trained, Worksheet

__all__ = ["DTYPE", "AttentionLM", "FixedWindowMLP", "MultiHeadSelfAttention", "TinyLM",
           "blocked_sources", "causal_mask", "to_pytorch"]


DTYPE = torch.float64
"""The worksheet model computes in float64: every digit the lecture shows is true."""


def causal_mask(length: int) -> torch.Tensor:
    """``True`` where a receiver would read a later source (blocked)."""
    return torch.ones(length, length, dtype=torch.bool).triu(1)


def blocked_sources(length: int, padding: torch.Tensor) -> torch.Tensor:
    """``[B, T, T]``, ``True`` where a receiver may not read a source: a later source, or a
    pad source for a real receiver (``padding`` is ``[B, T]``, ``True`` at a pad)."""
    pads = padding[:, None, :] & ~padding[:, :, None]
    return causal_mask(length)[None] | pads


class MultiHeadSelfAttention(nn.Module):
    """Causal self-attention with separate heads, no biases, written out step by step.

    Parameters
    ----------
    width
        Model width ``d_model``.
    heads
        Number of heads; each head has width ``width // heads``.
    """

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.width, self.heads, self.head_width = width, heads, width // heads
        self.W_Q = nn.Parameter(torch.zeros(width, width))
        self.W_K = nn.Parameter(torch.zeros(width, width))
        self.W_V = nn.Parameter(torch.zeros(width, width))
        self.W_O = nn.Parameter(torch.zeros(width, width))

    def split(self, rows: torch.Tensor) -> torch.Tensor:
        """``[B, T, width]`` → ``[B, heads, T, head_width]``: projected coordinates per head."""
        batch, length, _ = rows.shape
        return rows.reshape(batch, length, self.heads, self.head_width).transpose(1, 2)

    def forward(self, E: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Return ``(ΔE, A)`` with ``A`` of shape ``[B, heads, T, T]``."""
        batch, length, _ = E.shape
        Q, K, V = (self.split(E @ W) for W in (self.W_Q, self.W_K, self.W_V))
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.head_width)
        A = scores.masked_fill(causal_mask(length), float("-inf")).softmax(dim=-1)
        joined = (A @ V).transpose(1, 2).reshape(batch, length, self.width)
        return joined @ self.W_O, A


class TinyLM(nn.Module):
    """Embeddings, one multi-head attention update with residual, and a prediction MLP."""

    def __init__(self, vocab: int, context: int, width: int, heads: int, hidden: int) -> None:
        super().__init__()
        self.context = context
        self.token_embedding = nn.Embedding(vocab, width)
        self.position_embedding = nn.Embedding(context, width)
        self.attention = MultiHeadSelfAttention(width, heads)
        self.hidden = nn.Linear(width, hidden)
        self.readout = nn.Linear(hidden, vocab)

    @classmethod
    def from_worksheet(cls, ws: Worksheet) -> TinyLM:
        """A model holding exactly the worksheet's parameters."""
        model = cls(len(ws.vocab), ws.context, ws.d_model, ws.n_heads, ws.hidden).to(DTYPE)

        def t(array: object) -> torch.Tensor:
            return torch.tensor(array, dtype=DTYPE)

        with torch.no_grad():
            model.token_embedding.weight.copy_(t(ws.tok_emb))
            model.position_embedding.weight.copy_(t(ws.pos_emb))
            for kind in ("Q", "K", "V"):
                packed = torch.cat([t(getattr(head, kind)) for head in ws.heads], dim=1)
                getattr(model.attention, f"W_{kind}").copy_(packed)
            model.attention.W_O.copy_(t(ws.W_O))
            model.hidden.weight.copy_(t(ws.W_hidden).T)
            model.hidden.bias.copy_(t(ws.b_hidden))
            model.readout.weight.copy_(t(ws.W_vocab).T)
            model.readout.bias.copy_(t(ws.b_vocab))
        return model

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Token rows plus position rows: ``E`` of shape ``[B, T, width]``."""
        positions = torch.arange(ids.shape[1])
        return self.token_embedding(ids) + self.position_embedding(positions)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Next-token logits after the last position, ``[B, vocab]``."""
        if ids.shape[1] > self.context:
            raise ValueError(f"at most {self.context} tokens fit the context window")
        E = self.embed(ids)
        delta, _ = self.attention(E)
        updated = E + delta
        return self.readout(F.relu(self.hidden(updated[:, -1])))


def to_pytorch(layer: MultiHeadSelfAttention) -> nn.MultiheadAttention:
    """``nn.MultiheadAttention`` holding the same weights as the scratch layer."""
    mha = nn.MultiheadAttention(layer.width, layer.heads, bias=False, dropout=0.0,
                                batch_first=True).to(layer.W_Q.dtype)
    with torch.no_grad():
        # nn.Linear-style weights act as rows @ weight.T, hence the transposes.
        mha.in_proj_weight.copy_(torch.cat([layer.W_Q.T, layer.W_K.T, layer.W_V.T], dim=0))
        mha.out_proj.weight.copy_(layer.W_O.T)
    return mha


class FixedWindowMLP(nn.Module):
    """Baseline of the trained comparison: concatenate every token row, then an MLP."""

    def __init__(self, sizes: Trained) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(sizes.vocab, sizes.width)
        self.hidden = nn.Linear(sizes.context * sizes.width, sizes.hidden)
        self.readout = nn.Linear(sizes.hidden, sizes.vocab)

    def forward(self, ids: torch.Tensor) -> dict[str, torch.Tensor]:
        """Every intermediate tensor of one forward pass, by name."""
        rows = self.token_embedding(ids)
        flat = rows.flatten(1)
        hidden = F.relu(self.hidden(flat))
        return {"rows": rows, "flat": flat, "hidden": hidden, "logits": self.readout(hidden)}

    def logits(self, ids: torch.Tensor, padding: torch.Tensor | None = None) -> torch.Tensor:
        """Next-token logits ``[B, vocab]`` alone: what training and sampling need. The MLP
        has no mask: it reads every row of the window, pads included (``padding`` is
        accepted, as the attention models take it, and has no effect)."""
        return self.readout(F.relu(self.hidden(self.token_embedding(ids).flatten(1))))


class AttentionLM(nn.Module):
    """Trained-comparison attention model: positions, one attention update, prediction MLP."""

    def __init__(self, sizes: Trained, heads: int) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(sizes.vocab, sizes.width)
        self.position_embedding = nn.Embedding(sizes.context, sizes.width)
        self.attention = nn.MultiheadAttention(sizes.width, heads, bias=False, batch_first=True)
        self.hidden = nn.Linear(sizes.width, sizes.hidden)
        self.readout = nn.Linear(sizes.hidden, sizes.vocab)

    def forward(self, ids: torch.Tensor, padding: torch.Tensor | None = None
                ) -> dict[str, torch.Tensor]:
        """Every intermediate tensor of one forward pass (head tensors for batch item 0).

        ``padding`` (``[B, T]``, ``True`` at a pad) blocks pad sources for real receivers,
        as well as the future; a pad receiver keeps its causal prefix, so that no row of
        the weights is empty (its output is never read).
        """
        length = ids.shape[1]
        E = self.embed(ids)
        heads = self.attention.num_heads
        W_q, W_k, W_v = self.attention.in_proj_weight.chunk(3)
        per_head = [(E[0] @ W.T).reshape(length, heads, -1).transpose(0, 1)
                    for W in (W_q, W_k, W_v)]
        blocked = blocked_sources(length, padding).repeat_interleave(heads, dim=0) \
            if padding is not None else causal_mask(length)
        delta, A = self.attention(E, E, E, attn_mask=blocked, average_attn_weights=False)
        H = A[0] @ per_head[2]
        joined = H.transpose(0, 1).reshape(length, -1)
        updated = E + delta
        hidden = F.relu(self.hidden(updated[:, -1]))
        return {"E": E, "Q": per_head[0], "K": per_head[1], "V": per_head[2], "A": A[0],
                "H": H, "joined": joined, "delta": delta, "hidden": hidden,
                "logits": self.readout(hidden)}

    def logits(self, ids: torch.Tensor, padding: torch.Tensor | None = None) -> torch.Tensor:
        """Next-token logits ``[B, vocab]`` alone, equal to ``forward(ids)["logits"]``.

        The prediction reads only the last row of the update, and under the causal mask
        the last receiver reads every source but the pads, so only the last query is
        attended with: the same layer and weights, a ``T``-th of the score work.
        """
        E = self.embed(ids)
        last = E[:, -1:]
        delta, _ = self.attention(last, E, E, key_padding_mask=padding, need_weights=False)
        return self.readout(F.relu(self.hidden((last + delta)[:, 0])))

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Token rows plus position rows: ``E`` of shape ``[B, T, width]``."""
        return self.token_embedding(ids) + self.position_embedding(
            torch.arange(ids.shape[1], device=ids.device))

    def last(self, ids: torch.Tensor, padding: torch.Tensor | None = None
             ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits [B, vocab], A [B, heads, T])``: the last position's prediction and
        each head's weights over the sources."""
        E = self.embed(ids)
        last = E[:, -1:]
        delta, A = self.attention(last, E, E, key_padding_mask=padding,
                                  need_weights=True, average_attn_weights=False)
        return self.readout(F.relu(self.hidden((last + delta)[:, 0]))), A[:, :, 0]
