"""The live slide's example, worked once: the lesson's prompt through the shipped models.

The deck's live slide runs the experiment's shipped models in the browser. So that it
reads before any script runs (and in print, in a PDF, in a screenshot), it opens on the
lesson's prompt already worked: what each model writes after it when it takes its likeliest
token again and again, how the tokenizer's vocabulary covers it, and where its last token
looks in each head of the attention model with the most heads. :func:`live_figures`
computes them here, from the very checkpoints the slide runs (each held to the sha256 the
experiment records), with the lesson's own classes in float64, by the rules the slide's
script follows (``slides/static/live.js``): the window of the last ``context`` tokens
left-padded with ``<|endoftext|>``, the largest logit (the lowest id among equals), at most
:data:`MOST_TOKENS`, the continuation cut as the results slides cut theirs
(:func:`~worksheet.results.shown_text`), words as runs of letters.

Nothing that depends on the device is computed: how fast a model runs is measured by the
browser that runs it.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from outputs.files import cache_home, write_bytes
from worksheet.errors import ExperimentError
from worksheet.formatting import Style
from worksheet.results import Experiment, shown_text
from worksheet.schema import Trained

__all__ = ["BLANK_LABEL", "LABEL_CHARACTERS", "MOST_TOKENS", "PREFIX", "STYLES", "LiveExample",
           "coverage", "live_example", "live_figures", "token_label"]

PREFIX = "trained.results.live"
"""Where the example's values are: ``trained.results.live.*``."""
MOST_TOKENS = 20
"""How many tokens each model writes at most (it stops earlier at the end of a text)."""
LABEL_CHARACTERS = 7
"""A token's label under its bars is at most this many characters (then cut with ``…``)."""
BLANK_LABEL = "␣"
"""The label of a token that shows nothing (a space, a line break)."""
STYLES = {"tokens": Style.COUNT, "characters_per_token": Style.FIXED1, "words": Style.COUNT,
          "single": Style.COUNT, "continuation": Style.TEXT, "weights": Style.FIXED3,
          "labels": Style.TEXT, "tallest": Style.FIXED3}
"""How each value is shown (a model's ``M.continuation`` by its last part): the slide's
script shows what it computes in the same places in the same styles."""


@dataclass(frozen=True)
class LiveExample:
    """The lesson's prompt, worked by the shipped models."""

    prompt: str
    tokens: int
    """How many tokens the prompt is."""
    characters: int
    words: int
    """Runs of letters in the prompt."""
    single: int
    """How many of those words the vocabulary holds as one token."""
    continuations: dict[str, str]
    """Each shipped model's greedy continuation, as shown, by its name in the experiment."""
    attention: str | None
    """The attention model whose weights are kept (the one with the most heads), if shipped."""
    weights: tuple[tuple[float, ...], ...]
    """Per head, per token of the prompt's window (pads left out): the weight its last
    token gives that token."""
    labels: tuple[str, ...]
    """Per token of the window, its label under the bars (:func:`token_label`)."""


def token_label(text: str) -> str:
    """A token's text as the label under its bars: on one line (:func:`shown_text`), at
    most :data:`LABEL_CHARACTERS` characters, :data:`BLANK_LABEL` when nothing shows.

    Examples
    --------
    >>> token_label(" fisherman")
    'fisher…'
    >>> token_label("\\n")
    '␣'
    """
    shown = shown_text(text).strip()
    if not shown:
        return BLANK_LABEL
    if len(shown) > LABEL_CHARACTERS:
        return shown[:LABEL_CHARACTERS - 1] + "…"
    return shown


def _letter_runs(text: str) -> Iterator[tuple[int, str]]:
    """``(start, run)`` for every run of letters (Unicode category L) in ``text``."""
    start = None
    for i, character in enumerate(text):
        letter = unicodedata.category(character).startswith("L")
        if letter and start is None:
            start = i
        elif not letter and start is not None:
            yield start, text[start:i]
            start = None
    if start is not None:
        yield start, text[start:]


def coverage(tokenizer: Any, text: str) -> dict[str, int]:
    """How the vocabulary covers ``text``: its ``tokens`` and ``characters``, its
    ``words`` (runs of letters, each with the space before it when there is one, as a
    byte-level tokenizer splits text) and how many of them are ``single`` tokens."""
    def count(piece: str) -> int:
        return len(tokenizer.encode(piece, add_special_tokens=False).ids)

    words = [(" " if start and text[start - 1] == " " else "") + run
             for start, run in _letter_runs(text)]
    return {"tokens": count(text), "characters": len(text), "words": len(words),
            "single": sum(count(word) == 1 for word in words)}


def _read(folder: Path, record: Mapping[str, Any], field: str, what: str) -> bytes:
    """A shipped file, held to the sha256 its record gives."""
    file = folder / record["file"]
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ExperimentError(f"{file}: cannot read {what} ({error.strerror}); expected the "
                              "file the experiment ships") from None
    if hashlib.sha256(data).hexdigest() != record.get("sha256"):
        raise ExperimentError(f"{file}: sha256 differs from {field}.sha256; expected the "
                              "file the experiment wrote")
    return data


@contextmanager
def _one_thread() -> Iterator[None]:
    """Torch on one thread: these models are too small to share, and on a busy machine
    threads that wait for each other take a hundred times longer."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


_SOURCES = ("live.py", "experiment.py", "model.py", "corpus.py", "results.py", "schema.py")
"""The modules whose code decides the example: a change to any of them is a new example."""


def _cache_file(experiment: Experiment, sizes: Trained) -> Path:
    """Where the example of this experiment (whose sha256 covers every shipped file's, each
    held to it before use), these sizes and this code is kept between processes."""
    from importlib.metadata import version

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for part in (experiment.sha256, repr(sizes), str(MOST_TOKENS), version("torch"),
                 version("tokenizers")):
        digest.update(part.encode("utf-8") + b"\0")
    for name in _SOURCES:
        digest.update((here / name).read_bytes())
    return cache_home() / "live" / f"{digest.hexdigest()}.json"


def live_example(experiment: Experiment, sizes: Trained) -> LiveExample | None:
    """The lesson's prompt worked by every model the experiment ships; ``None`` when it
    ships none (a deck then has no live slide). Every shipped file is held to its record
    each time; the example itself is worked once per experiment, sizes and code, and kept
    in the user's cache (``~/.cache/multihead-lecture/live``), which may be deleted.

    Raises
    ------
    ExperimentError
        When the tokenizer or a checkpoint is missing or differs from the record.
    """
    document = experiment.document
    shipped = (document.get("shipped") or {}).get("models") or {}
    if not shipped:
        return None
    folder = experiment.path.parent
    _read(folder, {"file": "tokenizer.json", **(document.get("tokenizer") or {})},
          "tokenizer", "the tokenizer")
    for name, model in shipped.items():
        _read(folder, model["checkpoint"], f"shipped.models.{name}.checkpoint",
              f"the checkpoint of {name}")
    cache = _cache_file(experiment, sizes)
    try:
        kept = json.loads(cache.read_text(encoding="utf-8"))
        return LiveExample(**{**kept, "weights": tuple(tuple(row) for row in kept["weights"]),
                              "labels": tuple(kept["labels"])})
    except (OSError, ValueError, TypeError, KeyError):
        pass
    example = _worked(experiment, sizes, shipped)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(cache, json.dumps(asdict(example)).encode("utf-8"), durable=False)
    except OSError:
        pass  # no cache: the next process works the example again
    return example


def _worked(experiment: Experiment, sizes: Trained, shipped: Mapping[str, Any]
            ) -> LiveExample:
    """:func:`live_example`, worked by the shipped checkpoints."""
    document = experiment.document
    import torch
    from tokenizers import Tokenizer

    from worksheet.corpus import END_OF_TEXT
    from worksheet.experiment import continue_prompt, load_checkpoint, model_specs, window

    folder = experiment.path.parent
    record = {"file": "tokenizer.json", **(document.get("tokenizer") or {})}
    tokenizer = Tokenizer.from_str(_read(folder, record, "tokenizer", "the tokenizer")
                                   .decode("utf-8"))
    end = tokenizer.token_to_id(END_OF_TEXT)
    if end is None:
        raise ExperimentError(f"{folder / record['file']}: no {END_OF_TEXT} token; expected "
                              "the tokenizer `lecture experiment` trains")
    prompt = document["prompt"]["text"]
    ids = tokenizer.encode(prompt, add_special_tokens=False).ids
    window_ids, padding = window(ids, sizes.context, end)
    kept = ids[-sizes.context:]
    pads = sizes.context - len(kept)
    attention = f"heads{max(sizes.heads)}"
    continuations: dict[str, str] = {}
    weights: tuple[tuple[float, ...], ...] = ()
    with _one_thread(), torch.no_grad():
        for spec in model_specs(sizes):
            if spec.name not in shipped:
                continue
            entry = shipped[spec.name]["checkpoint"]
            _read(folder, entry, f"shipped.models.{spec.name}.checkpoint",
                  f"the checkpoint of {spec.name}")
            model = load_checkpoint(spec, sizes, folder / entry["file"]).double()
            if spec.name == attention:
                _, A = model.last(torch.tensor([window_ids]), torch.tensor([padding]))
                weights = tuple(tuple(row[pads:].tolist()) for row in A[0])
            made = continue_prompt(model, ids, sizes.context, end, MOST_TOKENS)
            continuations[spec.name] = shown_text(tokenizer.decode(made))
    found = coverage(tokenizer, prompt)
    return LiveExample(
        prompt=prompt, tokens=found["tokens"], characters=found["characters"],
        words=found["words"], single=found["single"], continuations=continuations,
        attention=attention if weights else None, weights=weights,
        labels=tuple(token_label(tokenizer.decode([i])) for i in kept) if weights else ())


def live_figures(experiment: Experiment, sizes: Trained
                 ) -> list[tuple[str, Any, Style]]:
    """The ``trained.results.live.*`` values, ``(key, value, style)`` in the order the slide reads
    them; none when the experiment ships no models.

    ``tokens``, ``characters_per_token``, ``words``, ``single``: the prompt's coverage;
    ``M.continuation`` per shipped model ``M``; ``weights[h][j]``, ``labels[j]`` and
    ``tallest``: the weights of the attention model with the most heads at the prompt's
    last token (head ``h`` from zero, ``j`` over the window's tokens, pads left out), the
    tokens' labels and the largest weight.
    """
    example = live_example(experiment, sizes)
    if example is None:
        return []
    found = {"tokens": example.tokens, "characters_per_token":
             example.characters / max(example.tokens, 1), "words": example.words,
             "single": example.single}
    figures = [(f"{PREFIX}.{name}", value, STYLES[name]) for name, value in found.items()]
    figures += [(f"{PREFIX}.{model}.continuation", text, STYLES["continuation"])
                for model, text in example.continuations.items()]
    if example.weights:
        tallest = max(max(row) for row in example.weights)
        figures += [(f"{PREFIX}.{name}", value, STYLES[name]) for name, value in
                    (("weights", example.weights), ("labels", example.labels),
                     ("tallest", tallest))]
    return figures
