"""Regenerate the test worksheets of other shapes from the default one.

- ``three-heads.json``: three heads of width two, model width six, nine-token sentences,
  three sentences, eleven position rows;
- ``one-wide-head.json``: one head of width eight, twelve tokens (the widest layout);
- ``four-heads.json``: four heads of width two, model width eight, three tokens; its
  trained comparison has other sizes than the bundled experiment's (a smaller vocabulary,
  three attention models), so its lecture shows no results;
- ``markup-words.json``: the default worksheet with words that contain ``<``, ``&`` and
  quotes, which must display literally;
- ``seed-three-heads.json``: ``three-heads.json`` in the seed notebook's own schema, with
  no ``lesson`` object (every lesson part takes its default).

Run ``.venv/bin/python tests/data/make_worksheets.py``. Parameters are random but seeded
and rounded to one decimal, so the files are the same on every run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
DEFAULT = HERE.parent.parent / "worksheet" / "multihead-worksheet.json"
FEATURES = ["water", "finance", "person", "glue", "time", "place", "size", "mood"]


def shaped(seed: int, width: int, heads: int, sentences: dict[str, list[str]],
           targets: dict[str, str], context: int, hidden: int = 5) -> dict[str, Any]:
    """A worksheet of the given shape with seeded random parameters."""
    base = json.loads(DEFAULT.read_text(encoding="utf-8"))
    rng = np.random.default_rng(seed)
    d_head = width // heads

    def table(*shape: int, scale: float = 1.0) -> list:
        return np.round(rng.normal(0, scale, shape), 1).tolist()

    vocab = base["vocab"]
    lesson = dict(base["lesson"])
    lesson.update(features=FEATURES[:width], targets=targets,
                  headNames=["setting", "person", "place", "time"][:heads],
                  bias={"offset": np.round(np.linspace(0.2, -0.1, d_head), 2).tolist()})
    return {
        "vocab": vocab,
        "sentences": sentences,
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
        "lesson": lesson,
    }


RENAMED = {"river": "<river>", "bank": "b&nk", "fisherman": 'fisher"man', "sat": "it's",
           "water": "<b>water</b>", "teller": "&amp;teller"}


def markup_words() -> dict[str, Any]:
    """The default worksheet with markup-like characters in some words."""
    doc = json.loads(DEFAULT.read_text(encoding="utf-8"))

    def rename(word: str) -> str:
        return RENAMED.get(word.lower(), word)

    doc["vocab"] = [rename(w) for w in doc["vocab"]]
    doc["tok_emb"] = {rename(w): row for w, row in doc["tok_emb"].items()}
    doc["sentences"] = {name: [rename(w) for w in words]
                        for name, words in doc["sentences"].items()}
    doc["lesson"]["targets"] = {name: rename(w) for name, w in doc["lesson"]["targets"].items()}
    doc["lesson"]["toy"]["sources"] = [rename(w) for w in doc["lesson"]["toy"]["sources"]]
    return doc


def main() -> None:
    worksheets = {
        "three-heads.json": shaped(3, 6, 3, {
            "river": ["fisherman", "sat", "beside", "the", "river", "bank", "and", "watched",
                      "the"],
            "cheque": ["She", "took", "the", "cheque", "into", "the", "bank", "and", "the"],
            "boat": ["The", "boat", "sat", "beside", "the", "bank", "and", "watched", "the"],
        }, {"river": "water", "cheque": "teller", "boat": "fish"}, context=11),
        "one-wide-head.json": shaped(5, 8, 1, {
            "river": ["The", "fisherman", "sat", "beside", "the", "river", "bank", "and",
                      "watched", "the", "boat", "and"],
            "cheque": ["She", "took", "the", "cheque", "into", "the", "bank", "and", "asked",
                       "the", "clerk", "and"],
        }, {"river": "the", "cheque": "the"}, context=12),
        "four-heads.json": shaped(7, 8, 4, {
            "river": ["river", "bank", "the"],
            "cheque": ["cheque", "bank", "the"],
        }, {"river": "water", "cheque": "teller"}, context=4),
        "markup-words.json": markup_words(),
    }
    worksheets["four-heads.json"]["lesson"]["trained"] = {
        "vocab": 2000, "context": 64, "width": 64, "hidden": 256, "heads": [1, 2, 4]}
    worksheets["seed-three-heads.json"] = {key: value for key, value in
                                           worksheets["three-heads.json"].items()
                                           if key != "lesson"}
    for name, doc in worksheets.items():
        (HERE / name).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
