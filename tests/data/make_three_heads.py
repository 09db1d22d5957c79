"""Regenerate ``three-heads.json``: three heads of width two, model width six, nine tokens.

Run ``.venv/bin/python tests/data/make_three_heads.py``. The parameters are random but
seeded and rounded to one decimal, so the file is the same on every run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
DEFAULT = HERE.parent.parent / "worksheet" / "multihead-worksheet.json"


def main() -> None:
    base = json.loads(DEFAULT.read_text(encoding="utf-8"))
    rng = np.random.default_rng(3)
    width, heads, d_head, hidden, context = 6, 3, 2, 5, 11

    def table(*shape: int, scale: float = 1.0) -> list:
        return np.round(rng.normal(0, scale, shape), 1).tolist()

    vocab = base["vocab"]
    doc = {
        "vocab": vocab,
        "sentences": {
            "river": ["fisherman", "sat", "beside", "the", "river", "bank", "and", "watched",
                      "the"],
            "cheque": ["She", "took", "the", "cheque", "into", "the", "bank", "and", "the"],
            "boat": ["The", "boat", "sat", "beside", "the", "bank", "and", "watched", "the"],
        },
        "tok_emb": {word: table(width) for word in vocab},
        "pos_emb": table(context, width, scale=0.2),
        "headsLesson": {
            "projections": [{kind: table(width, d_head, scale=0.8) for kind in "QKV"}
                            for _ in range(heads)],
            "W_O": table(heads * d_head, width, scale=0.5),
        },
        "W_hidden": table(width, hidden),
        "b_hidden": table(hidden, scale=0.3),
        "W_vocab": table(hidden, len(vocab)),
        "b_vocab": table(len(vocab), scale=0.3),
        "lesson": dict(base["lesson"]),
    }
    doc["lesson"]["features"] = ["water", "finance", "person", "glue", "time", "place"]
    doc["lesson"]["headNames"] = ["setting", "person", "place"]
    doc["lesson"]["targets"] = {"river": "water", "cheque": "teller", "boat": "fish"}
    doc["lesson"]["bias"] = {"offset": [0.2, -0.1]}
    (HERE / "three-heads.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
