"""The results of ``lecture experiment``, read back and checked before the lecture uses them.

:func:`load_experiment` reads ``DIR/experiment.json`` (or the file itself) and refuses,
with one line naming the field and what was expected, anything the lecture could not
show truthfully: another format version, other trained sizes than the worksheet's, a
missing or non-finite figure, a model or seed without its run, a perplexity that is not
the exponential of its test loss. A document made from another worksheet file is
accepted when its trained sizes are the worksheet's: the sizes are all that the
experiment's models take from it.

:func:`summarise` turns the runs into what the values hold per model (per seed, and the
mean, lowest and highest over seeds), and :func:`verdict` picks the sentence the lecture
says about them. Nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from worksheet import BUNDLED_EXPERIMENT, NO_EXPERIMENT
from worksheet.errors import ExperimentError
from worksheet.schema import Trained, Worksheet

__all__ = [
    "BUNDLED",
    "FILE",
    "FORMAT",
    "WITHOUT",
    "Experiment",
    "ModelResult",
    "against_baseline",
    "axis_ticks",
    "chosen_experiment",
    "load_experiment",
    "mean",
    "model_name",
    "model_names",
    "shown_text",
    "summarise",
    "verdict",
]

FILE = "experiment.json"
FORMAT = 1
BUNDLED = BUNDLED_EXPERIMENT
"""The experiment the lecture ships (its ``experiment.json``, tokenizer and one 8-bit
checkpoint per model): the default for every worksheet whose trained sizes it has."""
WITHOUT = NO_EXPERIMENT
"""The ``experiment.json`` format this lecture reads (that of :mod:`worksheet.experiment`)."""
PERPLEXITY_SLACK = 1e-9
"""How far, relatively, a run's ``test_perplexity`` may be from ``exp(test_loss)``."""

SHOWN_CHARACTERS = 90
"""A continuation is shown up to this many characters (cut at a space, then ``…``)."""
UNPRINTABLE = "·"
"""Shown for a control character, or for bytes that are no UTF-8 (``U+FFFD``), which a
little-trained byte-level model writes."""
_RUN_NUMBERS = ("validation_loss", "test_loss", "test_perplexity", "train_seconds",
                "wall_seconds", "tokens_per_second")
_RUN_COUNTS = ("parameters", "steps", "best_step")
_SPLITS = ("train", "validation", "test")


@dataclass(frozen=True)
class Experiment:
    """A checked ``experiment.json``: where it is, its sha256 and its document."""

    path: Path
    sha256: str
    document: Mapping[str, Any]

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(self.document["training"]["seeds"])

    def runs(self, model: str) -> list[Mapping[str, Any]]:
        """The runs of one model, in the order of the seeds."""
        by_seed = {run["seed"]: run for run in self.document["runs"] if run["model"] == model}
        return [by_seed[seed] for seed in self.seeds]


def _bundled_sizes() -> Any:
    try:
        return json.loads((BUNDLED / FILE).read_text(encoding="utf-8")).get("sizes")
    except (OSError, ValueError):
        return None


def chosen_experiment(given: Path | str | None, ws: Worksheet) -> Path | None:
    """The experiment a lecture of ``ws`` shows: the one given; none for
    :data:`WITHOUT`; without one, the bundled experiment when it has the worksheet's
    trained sizes (otherwise none: the lecture then says what a comparison measures)."""
    if given is not None:
        return None if str(given) == WITHOUT else Path(given)
    return BUNDLED if _bundled_sizes() == _sizes(ws.lesson.trained) else None


def model_names(sizes: Trained) -> list[str]:
    """The compared models as ``experiment.json`` names them: ``mlp``, then ``headsN``."""
    return ["mlp", *(f"heads{h}" for h in sizes.heads)]


def model_name(model: str) -> str:
    """How the lecture names a model in words: ``the fixed-window MLP``, ``attention with
    four heads`` (no digits: the name is said as well as shown)."""
    if model == "mlp":
        return "the fixed-window MLP"
    from num2words import num2words

    heads = int(model.removeprefix("heads"))
    return f"attention with {num2words(heads)} head{'' if heads == 1 else 's'}"


class _Reader:
    """Reads fields of the document, each refusal naming the file and the field."""

    def __init__(self, source: Path) -> None:
        self.source = source

    def fail(self, field: str, expected: str, found: Any) -> ExperimentError:
        shown = json.dumps(found, ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return ExperimentError(f"{self.source}: {field}: expected {expected}, got {shown}")

    def get(self, node: Any, field: str, path: str) -> Any:
        if not isinstance(node, Mapping) or field not in node:
            raise ExperimentError(f"{self.source}: {path}: missing; expected it in every "
                                  "experiment.json `lecture experiment` writes")
        return node[field]

    def count(self, node: Any, field: str, path: str, least: int = 0) -> int:
        value = self.get(node, field, path)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise self.fail(path, f"a whole number ≥ {least}", value)
        return value

    def real(self, node: Any, field: str, path: str, positive: bool = False) -> float:
        value = self.get(node, field, path)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or (positive and value <= 0):
            raise self.fail(path, "a finite positive number" if positive else
                            "a finite number", value)
        return float(value)

    def text(self, node: Any, field: str, path: str) -> str:
        value = self.get(node, field, path)
        if not isinstance(value, str):
            raise self.fail(path, "a string", value)
        return value


def _sizes(sizes: Trained) -> dict[str, Any]:
    return {"vocab": sizes.vocab, "context": sizes.context, "width": sizes.width,
            "hidden": sizes.hidden, "heads": list(sizes.heads)}


def load_experiment(path: Path, ws: Worksheet) -> Experiment:
    """Read and check ``path`` (a folder holding ``experiment.json``, or the file).

    Raises
    ------
    ExperimentError
        One line: the file, the field, what was expected and what was found.
    """
    path = Path(path)
    file = path / FILE if path.is_dir() else path
    if not file.is_file():
        raise ExperimentError(f"{file}: not found; expected the {FILE} that `lecture "
                              "experiment --corpus STORIES --out DIR` writes into DIR")
    raw = file.read_bytes()
    read = _Reader(file)
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ExperimentError(f"{file}: not JSON ({error}); expected the {FILE} `lecture "
                              "experiment` writes") from None
    if not isinstance(document, Mapping):
        raise read.fail("top level", "an object", type(document).__name__)
    version = read.get(document, "format", "format")
    if version != FORMAT:
        raise read.fail("format", f"{FORMAT} (the version this lecture reads)", version)
    sizes = _sizes(ws.lesson.trained)
    found = read.get(document, "sizes", "sizes")
    if found != sizes:
        raise ExperimentError(
            f"{file}: sizes: expected the trained sizes of {ws.source}, "
            f"{json.dumps(sizes)}, got {json.dumps(found)}; run the experiment with this "
            "worksheet")
    _check_worksheet(read, document)
    training = read.get(document, "training", "training")
    read.count(training, "steps", "training.steps", 1)
    read.count(training, "batch", "training.batch", 1)
    context = read.count(training, "context", "training.context", 1)
    if context != ws.lesson.trained.context:
        raise read.fail("training.context", f"{ws.lesson.trained.context} (the trained "
                        "context)", context)
    read.count(training, "tokens_per_step", "training.tokens_per_step", 1)
    seeds = read.get(training, "seeds", "training.seeds")
    if not isinstance(seeds, list) or not seeds or len(set(map(str, seeds))) != len(seeds) \
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise read.fail("training.seeds", "a list of distinct whole numbers", seeds)
    read.text(read.get(document, "prompt", "prompt"), "text", "prompt.text")
    corpus = read.get(document, "corpus", "corpus")
    for part in ("documents", "tokens"):
        node = read.get(corpus, part, f"corpus.{part}")
        for split in _SPLITS:
            read.count(node, split, f"corpus.{part}.{split}", 1)
    _check_runs(read, document, model_names(ws.lesson.trained), seeds)
    return Experiment(file.resolve(), hashlib.sha256(raw).hexdigest(), document)


def _check_worksheet(read: _Reader, document: Mapping[str, Any]) -> None:
    """The document names a worksheet by its sha256 (another file with the same trained
    sizes is fine: those sizes are all its models took from it)."""
    made_from = read.get(document, "worksheet", "worksheet")
    sha = read.text(made_from, "sha256", "worksheet.sha256")
    if len(sha) != 64:
        raise read.fail("worksheet.sha256", "64 hex digits", sha)


def _check_runs(read: _Reader, document: Mapping[str, Any], models: Sequence[str],
                seeds: Sequence[int]) -> None:
    runs = read.get(document, "runs", "runs")
    if not isinstance(runs, list):
        raise read.fail("runs", "a list of runs", type(runs).__name__)
    seen: set[tuple[str, int]] = set()
    for i, run in enumerate(runs):
        where = f"runs[{i}]"
        model = read.text(run, "model", f"{where}.model")
        if model not in models:
            raise read.fail(f"{where}.model", f"one of {', '.join(models)}", model)
        seed = read.count(run, "seed", f"{where}.seed")
        if seed not in seeds:
            raise read.fail(f"{where}.seed", "one of training.seeds", seed)
        if (model, seed) in seen:
            raise read.fail(where, f"one run of {model} with seed {seed}", "a second one")
        seen.add((model, seed))
        for field in _RUN_COUNTS:
            read.count(run, field, f"{where}.{field}", 1 if field == "parameters" else 0)
        for field in _RUN_NUMBERS:
            read.real(run, field, f"{where}.{field}",
                      positive=field in ("test_perplexity", "train_seconds",
                                         "wall_seconds", "tokens_per_second"))
        loss, perplexity = run["test_loss"], run["test_perplexity"]
        if abs(perplexity - math.exp(loss)) > PERPLEXITY_SLACK * math.exp(loss):
            raise read.fail(f"{where}.test_perplexity", f"exp(test_loss) = {math.exp(loss)!r}",
                            perplexity)
        read.text(run, "continuation", f"{where}.continuation")
    missing = [f"{m} seed {s}" for m in models for s in seeds if (m, s) not in seen]
    if missing:
        raise ExperimentError(f"{read.source}: runs: expected one run per model and seed; "
                              f"missing {', '.join(missing[:3])}"
                              f"{' and more' if len(missing) > 3 else ''}")


# --------------------------------------------------------------------------- summaries


def shown_text(text: str) -> str:
    """A model's continuation as the lecture shows it: on one line, every control
    character and undecodable byte as :data:`UNPRINTABLE`, at most
    :data:`SHOWN_CHARACTERS` characters (cut at a space when there is one, then ``…``).

    Examples
    --------
    >>> shown_text("fish.\n\nThe end\x10")
    'fish. The end·'
    """
    line = re.sub(r"\s+", " ", text).strip()
    line = "".join(UNPRINTABLE if c == "\ufffd" or unicodedata.category(c)[0] == "C" else c
                   for c in line)
    if len(line) <= SHOWN_CHARACTERS:
        return line
    cut = line[:SHOWN_CHARACTERS]
    if " " in cut[SHOWN_CHARACTERS // 2:]:
        cut = cut[:cut.rindex(" ")]
    return cut.rstrip() + "…"


AXIS_TICKS = 5
"""The most ticks a result chart's axis carries, zero included."""


def axis_ticks(largest: float) -> list[float]:
    """Round ticks for an axis from zero that reaches ``largest``: zero and every multiple
    of one step up to ``largest``, the step the smallest of 1, 2 or 5 times a power of ten
    that keeps to :data:`AXIS_TICKS` ticks."""
    if largest <= 0:
        return [0.0]
    power = 10.0 ** math.floor(math.log10(largest / (AXIS_TICKS - 1)))
    step = next(m * power for m in (1, 2, 5, 10)
                if math.floor(largest / (m * power)) + 1 <= AXIS_TICKS)
    return [k * step for k in range(math.floor(largest / step) + 1)]


def mean(figures: Sequence[float]) -> float:
    """The mean over seeds, summed exactly."""
    return math.fsum(figures) / len(figures)


@dataclass(frozen=True)
class ModelResult:
    """One model's figures over the seeds (in the order of the seeds)."""

    model: str
    perplexity: tuple[float, ...]
    loss: tuple[float, ...]
    seconds: tuple[float, ...]
    tokens_per_second: tuple[float, ...]
    best_step: tuple[int, ...]
    parameters: int
    continuations: tuple[str, ...]
    """As shown (:func:`shown_text`)."""


def summarise(experiment: Experiment, sizes: Trained) -> list[ModelResult]:
    """Every model's results, in the lesson's order (the MLP, then by head count)."""
    made = []
    for model in model_names(sizes):
        runs = experiment.runs(model)
        made.append(ModelResult(
            model, tuple(r["test_perplexity"] for r in runs), tuple(r["test_loss"] for r in runs),
            tuple(r["train_seconds"] for r in runs), tuple(r["tokens_per_second"] for r in runs),
            tuple(r["best_step"] for r in runs), runs[0]["parameters"],
            tuple(shown_text(r["continuation"]) for r in runs)))
    return made


def verdict(results: Sequence[ModelResult]) -> tuple[str, str, str]:
    """``(best model, headline, spread)``: the model with the lowest mean perplexity, and
    whether its seeds' range (lowest to highest) stays clear of every other model's.

    Ranges that touch or overlap make the difference one the seeds alone could make, and
    the spread sentence says so. Either way the headline speaks of this run only; the
    lecture adds that one experiment is no law.
    """
    best = min(results, key=lambda r: mean(r.perplexity))
    close = [r for r in results if r is not best and min(r.perplexity) <= max(best.perplexity)]
    name = model_name(best.model)
    headline = f"{name[0].upper()}{name[1:]} has the lowest mean perplexity in this run"
    if not close:
        return best.model, headline, "Every seed of it beats every seed of the others"
    others = " and ".join(model_name(r.model) for r in close)
    return best.model, headline, (f"Its seeds overlap with those of {others}: the difference "
                                  "is within the spread over seeds")


def against_baseline(results: Sequence[ModelResult]) -> str:
    """What the attention models' perplexities say against the fixed-window MLP's: every
    seed of each beats every seed of the MLP, or not (then whose seeds overlap)."""
    mlp = next(r for r in results if r.model == "mlp")
    attention = [r for r in results if r.model != "mlp"]
    behind = [r for r in attention if max(r.perplexity) >= min(mlp.perplexity)]
    if not behind:
        which = "Both attention models" if len(attention) == 2 else \
            "Every attention model" if len(attention) > 2 else "Attention"
        return f"{which} beat the fixed-window MLP with every seed" if len(attention) > 1 \
            else f"{which} beats the fixed-window MLP with every seed"
    names = " and ".join(model_name(r.model) for r in behind)
    return f"The seeds of {names} overlap with those of the fixed-window MLP"
