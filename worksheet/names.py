"""Plain names for value keys, as a reader (or a screen reader) meets them: the transcript
lists the figures on screen under these names, not under keys such as ``river.h1.weights``.

A key's parts name where the value lives (a sentence, a head, a model) and what it is. The
name says what it is first, then where: ``river.h1.weights`` is "attention weights (the
“river” sentence, head 1)". A first part that is not one of the lesson's own groups is a
sentence's id, and is named as that sentence.
"""

from __future__ import annotations

import re

from worksheet.values import parse_key

__all__ = ["PLACES", "THINGS", "UnnamedKey", "plain_name"]

PLACES = {
    "bias": "the bias option", "dims": "the lesson's sizes", "lab": "the batch lab",
    "mha": "PyTorch's attention layer", "params": "the worksheet's parameters",
    "patches": "the image patches", "shapes": "the shapes", "toy": "the two-source example",
    "trained": "the trained models", "wide": "one wide head", "stable": "the stable softmax",
    "unscaled": "without dividing by the square root of the head width",
    "single": "one sentence alone", "notebook": "the notebook's check",
    "shape": "shapes", "parts": "parameters by part", "results": "training results",
    "documents": "documents", "ticks": "chart ticks", "mix": "joining the heads",
    "mlp": "the model without attention", "live": "the live models in the slides",
    "swap": "PyTorch's layer swapped into the model",
    "cross": "the translation example of cross-attention",
}
"""The parts of a key that say where a value lives; ``h<N>`` (head N) and ``heads<N>``
(the trained model with N heads) are named from their number."""

THINGS = {
    # the worked example
    "E": "embedding rows E", "E_prime": "updated rows E′", "delta": "update ΔE",
    "A": "attention grid A", "H": "messages H", "K": "keys K", "Q": "queries Q", "V": "values V",
    "values": "value rows", "KT": "keys turned on their side, Kᵀ",
    "contributions": "contributions to the message", "denominator": "softmax denominator",
    "dots": "dot products", "products": "coordinate products", "exps": "exponentials",
    "exp_gap": "ratio of the two largest exponentials", "message": "message",
    "message_top": "largest coordinate of the message",
    "mostly_rest": "coordinate made mostly by the other tokens",
    "order": "tokens from the largest weight down", "rest": "what the other tokens send",
    "rest_large": "coordinates where the other tokens send much",
    "scale": "scale (square root of the head width)",
    "score_gap": "gap between the two largest scores", "scores": "scaled scores",
    "share": "share of the update", "max": "largest score",
    "top_source": "token with the largest weight", "weights": "attention weights",
    "weights_sum": "sum of the weights", "hidden": "hidden units after ReLU",
    "hidden_pre": "hidden units before ReLU", "hidden_terms": "terms of the hidden units",
    "ids": "token numbers", "input_top": "largest input to the prediction",
    "joined": "joined messages", "logit_others": "largest other logit",
    "logit_terms": "terms of the logits", "logits": "logits", "mask": "mask",
    "other_head": "the other head", "prediction": "predicted word", "probs": "probabilities",
    "probs_rest": "probabilities of the other words", "probs_sum": "sum of the probabilities",
    "ranked": "words from the most likely down",
    "same_input": "whether both heads read the same input", "target": "expected next word",
    "top_hidden": "largest hidden unit", "top_input": "largest input",
    "update_terms": "terms of the update", "changed": "coordinate that changed most",
    "changed_drops": "whether that coordinate drops",
    "diluted": "whether the wide head dilutes the clue", "dot_growth": "growth of the dot products",
    "kept": "coordinate kept", "score_growth": "growth of the scores",
    "twin": "token that repeats another",
    "carriers": "sources that carry that coordinate",
    "carried_share": "weight on those sources",
    "twin_carried_share": "the matching head's weight on those sources",
    "picked": "sources shown", "others": "number of other sources",
    "exps_others": "exponentials of the other sources, summed",
    # bias, sizes and parameters
    "Q_offset": "queries with their offset", "extra": "extra parameters",
    "head_slice": "width of one head's slice", "in_proj_bias": "input projections' bias",
    "in_proj_block": "one block of the input projections",
    "in_proj_weight": "input projections' weights", "offset": "offset",
    "offsets_per_projection": "offsets per projection", "out_proj_bias": "output projection's bias",
    "out_proj_weight": "output projection's weights", "params_with": "parameters with bias",
    "params_without": "parameters without bias", "projections": "projections",
    "weights_per_projection": "weights per projection",
    "zero_row": "whether a row of zeros stays zero", "zero_rows": "rows of zeros",
    "query_reads": "features head 1's query matrix reads",
    "zero_row_unread": "whether the zero row lacks every feature the query reads",
    "context": "context length", "d_head": "head width", "d_model": "embedding width",
    "head_numbers": "head numbers", "heads": "number of heads", "positions": "positions",
    "sentences": "number of sentences", "sqrt_d_head": "square root of the head width",
    "sqrt_joined": "square root of the joined width",
    "tokens": "number of tokens", "value_numbers": "value coordinates", "vocab": "vocabulary size",
    "hidden_units": "hidden unit numbers", "W_O": "output matrix W O", "W_Q": "query matrix W Q",
    "W_K": "key matrix W K", "W_V": "value matrix W V", "W_hidden": "hidden layer's weights",
    "W_vocab": "vocabulary layer's weights", "b_hidden": "hidden layer's bias",
    "b_vocab": "vocabulary layer's bias", "pos_emb": "position embeddings",
    "tok_emb": "token embeddings", "K_features": "features the keys read",
    "K_order": "features in the order the keys read them",
    "K_reads": "how much the keys read each feature", "V_features": "features the values read",
    "V_is_K": "whether the values read what the keys read", "W_O_block": "one head's block of W O",
    "W_Q_packed": "all heads' query matrices side by side", "last_row": "last row",
    "q_packed": "one query row for all heads", "q_row": "one query row",
    # the lab and PyTorch
    "A_weights": "attention weights in the batch", "X": "token numbers X",
    "finite_grads": "tensors with finite gradients", "learning_rate": "learning rate",
    "loss": "loss", "loss_after": "loss after one step", "right_head": "heads, joined correctly",
    "right_token": "tokens, joined correctly", "wrong_head": "heads, joined wrongly",
    "wrong_token": "tokens, joined wrongly", "next_id": "next token's number",
    "next_prob": "next token's probability", "param_tensors": "parameter tensors",
    "params": "parameters", "Q_heads": "queries split into heads",
    "Q_split": "queries with their last axis split", "history": "tokens so far",
    "messages": "messages", "prompt": "prompt", "y": "expected next tokens",
    "target_prob": "expected words' probabilities", "library_delta": "update by PyTorch's layer",
    "scratch_delta": "update computed step by step", "max_diff_A": "largest difference in A",
    "max_diff_delta": "largest difference in the update", "agrees": "whether it agrees",
    "bits": "bits per number", "ours_id": "our model's next token numbers",
    "library_id": "next token numbers with PyTorch's layer",
    "ours_prob": "our model's next token probabilities",
    "library_prob": "next token probabilities with PyTorch's layer",
    "max_diff_logits": "largest difference in the logits",
    "english": "English words written", "german": "German words being translated",
    # image patches
    "W": "patch projection", "channels": "colour channels", "cls": "class row",
    "count": "number of patches", "flat": "patches laid flat", "image": "image",
    "per_side": "patches per side", "rows": "patch rows", "sequence": "sequence with the class row",
    "W_rgb": "patch projection for colour", "flat_rgb": "colour patches laid flat",
    "image_rgb": "colour image", "side": "image side", "size": "patch size",
    "total_rows": "rows with the class row", "twins": "patches with the same pixels",
    "twins_same_pixels": "whether those patches have the same pixels",
    "values_per_patch": "values per patch", "values_per_patch_rgb": "values per colour patch",
    "head_messages": "each head's message", "one_head": "one head's message",
    "required": "what the receiver needs", "row_sums": "sums of the weight rows",
    "two_heads": "two heads' message",
    # trained models
    "attention_fewer": "whether attention needs fewer parameters",
    "attention_params": "attention parameters", "matrix_params": "parameters of one matrix",
    "model_count": "number of models", "width": "width",
    "flat_width": "width of the flattened context", "attention": "attention",
    "position": "position embeddings", "token": "token embeddings",
    "against_mlp": "compared with the model without attention", "batch": "batch size",
    "corpus": "corpus", "all": "all", "test": "test", "train": "training",
    "validation": "validation", "continuations": "continuations",
    "perplexity_high": "highest perplexity", "perplexity_low": "lowest perplexity",
    "perplexity_mean": "mean perplexity", "seconds_high": "longest training time in seconds",
    "seconds_low": "shortest training time in seconds",
    "seconds_mean": "mean training time in seconds", "seed_count": "number of seeds",
    "seeds": "seeds", "spread": "spread", "steps": "training steps", "perplexity": "perplexity",
    "seconds": "seconds", "verdict": "verdict", "tokens_per_step": "tokens per step",
    "device": "device", "loss_mean": "mean loss", "tokens_per_second": "tokens per second",
    "best_step": "best step", "shipped_seed": "seed of the shipped model",
    "shipped_step": "step of the shipped model", "shipped_perplexity": "shipped model's perplexity",
    "lowest_perplexity": "model with the lowest perplexity", "lowest_seconds": "fastest model",
    "widest_seconds": "model with the widest spread of times",
    "attention_low": "attention model with the lower perplexity",
    "attention_high": "attention model with the higher perplexity", "best": "best model",
    "characters_per_token": "characters per token", "words": "words",
    "single": "words that are one token", "continuation": "continuation", "labels": "token labels",
    "tallest": "tallest weight",
}
"""What a value is, by the last part of its key (and, for a few, by a middle part: the
trained models' parameter ``parts``)."""

_HEAD = re.compile(r"^h(\d+)$")
_MODEL = re.compile(r"^heads(\d+)$")


class UnnamedKey(KeyError):
    """A key has a part no name is given for (a value added without naming it here)."""


def _place(part: str, first: bool) -> str:
    if head := _HEAD.match(part):
        return f"head {head[1]}"
    if model := _MODEL.match(part):
        heads = int(model[1])
        return f"the model with {heads} head{'' if heads == 1 else 's'}"
    if part in PLACES and not (first and part not in _GROUPS):
        return PLACES[part]
    if first:
        return f"the “{part}” sentence"
    if part in THINGS:  # a middle part that is a thing (``parts.attention``)
        return THINGS[part]
    raise UnnamedKey(f"no plain name for the part {part!r} of a value key")


_GROUPS = frozenset({"bias", "dims", "lab", "mha", "params", "patches", "shapes", "toy",
                     "trained"})
"""The first parts that are the lesson's own groups; any other first part is a sentence."""


def plain_name(key: str) -> str:
    """The plain name of ``key`` (indices included: ``river.h1.Q[9]`` is row 10 of head 1's
    queries in the river sentence).

    Raises
    ------
    UnnamedKey
        When a part of the key has no name here.
    """
    base, index = parse_key(key)
    *where, what = base.split(".")
    if what not in THINGS:
        raise UnnamedKey(f"no plain name for {what!r}, the last part of the value key {key!r}")
    places = [_place(part, number == 0) for number, part in enumerate(where)]
    name = THINGS[what]
    if index:
        name += ", " + ", ".join(f"{'row' if depth == len(index) - 1 else 'block'} {i + 1}"
                                 for depth, i in enumerate(index))
    return f"{name[0].upper()}{name[1:]} ({', '.join(places)})" if places else \
        f"{name[0].upper()}{name[1:]}"
