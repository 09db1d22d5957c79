"""A hand-written ``experiment.json`` for a worksheet: the document ``lecture experiment``
writes, with chosen figures, so tests of the results need no training.

Its parameter counts are the worksheet's models' (from the experiment tests' own
formulas); its perplexities are ``exp`` of its test losses, as a real run's are.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.test_experiment import attention_parameters, mlp_parameters
from worksheet import Worksheet

SEEDS = (11, 29, 47)
LOSSES: dict[str, tuple[float, ...]] = {
    # held-out cross-entropy per seed: the MLP worst, four heads best and clear of the rest
    "mlp": (3.912, 3.871, 3.958),
    "heads1": (3.402, 3.451, 3.377),
    "heads4": (3.215, 3.262, 3.238),
}
SECONDS: dict[str, tuple[float, ...]] = {
    "mlp": (61.24, 60.81, 62.05),
    "heads1": (95.33, 96.12, 94.88),
    "heads4": (104.71, 103.92, 105.46),
}
CONTINUATIONS = {
    "mlp": "cat and the dog were happy\x10 to the park park",
    "heads1": "fish swim in the water. Tom was happy and \ufffd said hello",
    "heads4": "little fish jump out of the water. Lily laughed and waved.",
}


def document(ws: Worksheet, losses: Mapping[str, Sequence[float]] = LOSSES,
             seconds: Mapping[str, Sequence[float]] = SECONDS,
             seeds: Sequence[int] = SEEDS, steps: int = 2000, batch: int = 64) -> dict[str, Any]:
    """The experiment document for ``ws``'s trained sizes with these figures."""
    t = ws.lesson.trained
    sizes = {"vocab": t.vocab, "context": t.context, "width": t.width, "hidden": t.hidden,
             "heads": list(t.heads)}
    models = {"mlp": mlp_parameters(sizes),
              **{f"heads{h}": attention_parameters(sizes) for h in t.heads}}
    runs = []
    for model, parameters in models.items():
        for i, seed in enumerate(seeds):
            loss = losses[model][i]
            runs.append({
                "model": model, "class": "FixedWindowMLP" if model == "mlp" else "AttentionLM",
                "heads": None if model == "mlp" else int(model.removeprefix("heads")),
                "seed": seed, "parameters": parameters, "steps": steps,
                "best_step": steps - 100 * i, "validation_loss": loss + 0.01,
                "test_loss": loss, "test_perplexity": math.exp(loss),
                "train_seconds": seconds[model][i], "wall_seconds": seconds[model][i] + 4.5,
                "tokens_per_second": steps * batch * t.context / seconds[model][i],
                "device": "cpu", "checkpoint": f"{model}-seed{seed}.safetensors",
                "continuation": CONTINUATIONS.get(model, "and then") + ("" if i == 0 else
                                                                       f" (seed {seed})"),
                "curve": [{"step": steps, "train_loss": loss, "validation_loss": loss + 0.01}],
            })
    prompt = " ".join(ws.sentences[ws.walkthrough])
    return {
        "format": 1,
        "worksheet": {"path": ws.source, "sha256": ws.sha256},
        "sizes": sizes,
        "corpus": {"path": "stories.txt", "sha256": "0" * 64, "split": "by hash",
                   "documents": {"train": 9000, "validation": 500, "test": 500},
                   "tokens": {"train": 1_800_000, "validation": 100_000, "test": 100_000},
                   "evaluated_windows": {"validation": 4096, "test": 4096}},
        "tokenizer": {"file": "tokenizer.json", "kind": "byte-level BPE", "vocab": t.vocab,
                      "special": {"<|endoftext|>": 0}},
        "training": {"optimizer": "AdamW", "learning_rate": 0.003, "steps": steps,
                     "batch": batch, "context": t.context, "tokens_per_step": batch * t.context,
                     "eval_every": 100, "seeds": list(seeds)},
        "prompt": {"sentence": ws.walkthrough, "text": prompt, "tokens": 12,
                   "padding": "left-padded"},
        "sampling": {"seed": 0, "temperature": 0.8, "max_tokens": 40},
        "models": {m: {"parameters": p} for m, p in models.items()},
        "runs": runs,
    }


def write(folder: Path, doc: Mapping[str, Any]) -> Path:
    """``folder/experiment.json`` holding ``doc``; the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "experiment.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False),
                                            encoding="utf-8")
    return folder
