"""The trained comparison, really trained: the lesson's three models on a story corpus.

:func:`run_experiment` reads and splits a corpus (:mod:`worksheet.corpus`), trains a
byte-level BPE of the worksheet's trained vocabulary on the train split, then trains
:class:`~worksheet.model.FixedWindowMLP` and one :class:`~worksheet.model.AttentionLM`
per head count of ``lesson.trained.heads``, the very classes whose shapes the lesson
shows, once per seed, with the same batches, context and update budget. Results go to
``OUT/experiment.json`` beside ``OUT/tokenizer.json`` and one safetensors checkpoint per
run.

Every model predicts the token after a window of ``context`` tokens, so one example is a
window of the train split's token stream and the token after it. A *step* is one AdamW
update on ``batch`` such windows, drawn uniformly (with replacement) by a generator
seeded from the run's seed and the step number alone; every model of a seed therefore
sees the same batches, and a resumed run the same batches it would have seen. Every
``eval_every`` steps (and at the last) the validation loss is measured on fixed, evenly
spaced windows of the validation split; the checkpoint with the lowest one is kept, and
its test loss measured the same way at the end.

A run's state (model, optimizer, step, RNG state, best checkpoint so far, curve, timings)
is saved under ``OUT/progress/``, beside the plan and the encoded splits, at every
evaluation and when the run is interrupted (Ctrl-C or SIGTERM stop it after the current
step), so running the same command again goes on from there and reaches the result an
uninterrupted run reaches.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from worksheet.corpus import (
    END_OF_TEXT,
    SPLITS,
    Corpus,
    encode_split,
    read_corpus,
    train_tokenizer,
)
from worksheet.errors import ExperimentError
from worksheet.lock import FolderLock
from worksheet.model import AttentionLM, FixedWindowMLP
from worksheet.schema import Trained, Worksheet

__all__ = ["DEVICES", "FORMAT", "SAMPLING", "Event", "ExperimentOptions", "ModelSpec",
           "learning_rate", "mean_loss", "model_specs", "resolve_device", "run_experiment",
           "train_step"]

FORMAT = 1
"""Version of ``experiment.json`` and of the saved run state."""
DEVICES = ("auto", "cpu", "cuda")
SAMPLING: Mapping[str, Any] = {"seed": 0, "temperature": 0.8, "max_tokens": 40}
"""How each model continues the lesson's sentence: the same generator seed for every
model, softmax at this temperature, at most this many tokens (or up to ``<|endoftext|>``)."""
WEIGHT_DECAY = 0.01
WARMUP_STEPS = 100
"""Linear warm-up length (at most a tenth of the steps), then a cosine decay."""
FINAL_FRACTION = 0.1
"""The learning rate at the last step, as a fraction of the peak."""
_EVAL_CHUNK = 512
_BYTE_ALPHABET = 256


@dataclass(frozen=True)
class ExperimentOptions:
    """How to train; the model sizes come from the worksheet."""

    steps: int = 2000
    """AdamW updates per run."""
    seeds: tuple[int, ...] = (11, 29, 47)
    """One run of every model per seed; a seed fixes the initialisation and the batches."""
    device: str = "auto"
    """``cpu``, ``cuda``, or ``auto`` (CUDA when available)."""
    batch: int = 64
    """Windows per step."""
    learning_rate: float = 3e-3
    """Peak AdamW learning rate."""
    eval_every: int = 100
    """Steps between validation measurements (and saved states)."""
    eval_windows: int = 4096
    """Windows of the validation and of the test split measured (all when fewer)."""
    threads: int | None = None
    """CPU threads for torch (default: torch's own choice)."""
    corpus_title: str = ""
    """What the corpus is, in a few words, as the lecture names it (default: the name of
    its file or folder)."""


@dataclass(frozen=True)
class Event:
    """What the experiment tells its progress display.

    ``kind`` is ``plan`` (``steps``: every run's steps together, ``step``: those already
    done), ``start`` (a run begins at ``step`` of ``steps``), ``step`` (one step done, with
    the training ``loss`` and the ``best`` validation loss so far) or ``done`` (``loss``:
    the test loss, ``best``: the validation loss of the kept checkpoint).
    """

    kind: str
    run: str
    step: int
    steps: int
    loss: float | None = None
    best: float | None = None


Report = Callable[[Event], None]


@dataclass(frozen=True)
class ModelSpec:
    """One of the compared models: ``mlp``, or ``heads<N>`` for attention with N heads."""

    name: str
    heads: int | None

    @property
    def class_name(self) -> str:
        return "FixedWindowMLP" if self.heads is None else "AttentionLM"

    def build(self, sizes: Trained) -> nn.Module:
        return FixedWindowMLP(sizes) if self.heads is None else AttentionLM(sizes, self.heads)


def model_specs(sizes: Trained) -> list[ModelSpec]:
    """The fixed-window MLP, then an attention model per head count, as the lesson lists."""
    return [ModelSpec("mlp", None), *(ModelSpec(f"heads{h}", h) for h in sizes.heads)]


def learning_rate(step: int, steps: int, peak: float) -> float:
    """The rate of update ``step`` (1-based): linear warm-up, then cosine to a tenth."""
    warm = max(1, min(WARMUP_STEPS, steps // 10))
    if step <= warm:
        return peak * step / warm
    progress = (step - warm) / max(1, steps - warm)
    return peak * (FINAL_FRACTION + (1 - FINAL_FRACTION) * 0.5 * (1 + math.cos(math.pi * progress)))


def resolve_device(device: str) -> str:
    """``auto`` → ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda`` must exist."""
    if device not in DEVICES:
        raise ExperimentError(f"--device: expected one of {', '.join(DEVICES)}, got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ExperimentError("--device cuda: torch sees no CUDA device here; use --device cpu "
                              "or auto")
    return device


# --------------------------------------------------------------------------- files


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write through ``write(temporary)`` beside ``path``, then rename: all or nothing."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _write_json(path: Path, data: Any) -> None:
    _atomic(path, lambda t: t.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                         encoding="utf-8"))


class _Lock(FolderLock):
    """``progress/lock``, locked while an experiment trains into the folder."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder / "lock")

    def busy(self, holder: int | None) -> Exception:
        by = "" if holder is None else f" (pid {holder})"
        return ExperimentError(f"{self.path.parent.parent}: another experiment{by} is writing "
                               "here; wait for it or use another --out")

    def stuck(self, error: OSError) -> Exception:
        return ExperimentError(f"cannot lock {self.path} ({error.strerror or error}); "
                               "expected a folder this user can write")


class _Interrupts:
    """SIGINT and SIGTERM stop training after the current step, its state saved; a second
    signal stops at once (the state saved at the last evaluation stands)."""

    def __init__(self) -> None:
        self.asked = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for number in (signal.SIGINT, signal.SIGTERM):
                self.previous[number] = signal.signal(number, self._ask)
        return self

    def _ask(self, _number: int, _frame: object) -> None:
        if self.asked:
            raise KeyboardInterrupt
        self.asked = True

    def check(self) -> None:
        if self.asked:
            raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)


@contextmanager
def _torch_settings(threads: int, device: str) -> Iterator[None]:
    """Deterministic algorithms and a fixed thread count while training, restored after."""
    if device == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    previous = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=device != "cpu")
    try:
        yield
    finally:
        torch.set_num_threads(previous[0])
        torch.use_deterministic_algorithms(previous[1])


# --------------------------------------------------------------------------- data


class _Windows:
    """Windows of ``context`` tokens of one split's stream, each with the token after it."""

    def __init__(self, stream: np.ndarray, context: int, device: str) -> None:
        self.stream = torch.from_numpy(stream)
        self.offsets = torch.arange(context + 1)
        self.count = len(stream) - context
        self.device = device

    def take(self, starts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        rows = self.stream[starts[:, None] + self.offsets].long().to(self.device)
        return rows[:, :-1], rows[:, -1]

    def spread(self, most: int) -> torch.Tensor:
        """Up to ``most`` evenly spaced window starts covering the whole split."""
        n = min(most, self.count)
        return torch.arange(n) * self.count // n


def _batch_starts(seed: int, step: int, count: int, batch: int) -> torch.Tensor:
    """The windows of step ``step`` of a run with ``seed``: a function of the two alone."""
    generator = torch.Generator().manual_seed(seed * 2**32 + step)
    return torch.randint(0, count, (batch,), generator=generator)


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, ids: torch.Tensor,
               targets: torch.Tensor) -> float:
    """One step: the mean next-token cross-entropy of the batch, one AdamW update; the loss."""
    loss = F.cross_entropy(model.logits(ids), targets)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.detach().item()


def mean_loss(model: nn.Module, windows: _Windows, starts: torch.Tensor) -> float:
    """Mean cross-entropy (nats per token) of the model over the given windows."""
    model.eval()
    total = 0.0
    with torch.no_grad():
        for chunk in starts.split(_EVAL_CHUNK):
            ids, targets = windows.take(chunk)
            total += float(F.cross_entropy(model.logits(ids).double(), targets,
                                           reduction="sum"))
    model.train()
    return total / len(starts)


def window(tokens: list[int], context: int, end: int) -> tuple[list[int], list[bool]]:
    """The last ``context`` tokens, left-padded with ``end`` (``<|endoftext|>``, a story
    start in the token stream) to a full window, and which positions are pads.

    The fixed-window MLP reads every row of the window, pads included; the attention
    models block the pads as sources (the padding mask).
    """
    pads = max(0, context - len(tokens))
    return [end] * pads + tokens[-context:], [True] * pads + [False] * (context - pads)


def continue_prompt(model: nn.Module, prompt: list[int], context: int, end: int,
                    most: int, temperature: float | None = None, seed: int = 0,
                    device: str = "cpu") -> list[int]:
    """The tokens the model writes after ``prompt``, up to ``most`` or ``<|endoftext|>``.

    Greedy (the largest logit; the lowest id among equals) without a ``temperature``;
    otherwise sampled from the softmax at that temperature with a generator seeded with
    ``seed``. Each step reads the last full window (:func:`window`).
    """
    tokens, made = list(prompt), []
    generator = torch.Generator().manual_seed(seed)
    model.eval()
    with torch.no_grad():
        for _ in range(most):
            ids, padding = window(tokens, context, end)
            logits = model.logits(torch.tensor([ids], device=device),
                                  torch.tensor([padding], device=device))[0].double().cpu()
            if temperature is None:
                token = int(torch.argmax(logits))
            else:
                probabilities = (logits / temperature).softmax(-1)
                token = int(torch.multinomial(probabilities, 1, generator=generator))
            if token == end:
                break
            made.append(token)
            tokens.append(token)
    model.train()
    return made


# --------------------------------------------------------------------------- runs


def _count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def _cpu_copy(model: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


@dataclass
class _Setup:
    """What every run of one experiment shares."""

    ws: Worksheet
    options: ExperimentOptions
    device: str
    out: Path
    tokenizer: Any
    windows: dict[str, _Windows]
    evaluation: dict[str, torch.Tensor]
    prompt: list[int]
    report: Report
    interrupts: _Interrupts


def _metadata(spec: ModelSpec, seed: int, step: int, quantisation: str | None = None
              ) -> dict[str, str]:
    """A checkpoint's metadata as one JSON text with sorted keys: safetensors writes a
    metadata map in no fixed order, and the file's sha256 must not change between runs."""
    about = {"model": spec.class_name, "heads": spec.heads, "seed": seed, "step": step}
    if quantisation:
        about["quantisation"] = quantisation
    return {"lecture": json.dumps(about, sort_keys=True)}


def _run(setup: _Setup, spec: ModelSpec, seed: int) -> dict[str, Any]:
    """Train one model with one seed (or go on from its saved state); its result."""
    name = f"{spec.name}-seed{seed}"
    progress = setup.out / "progress"
    state_file, result_file = progress / f"{name}.pt", progress / f"{name}.json"
    options, sizes, device = setup.options, setup.ws.lesson.trained, setup.device
    label = f"{spec.name} seed {seed}"
    if result_file.is_file():
        result = json.loads(result_file.read_text(encoding="utf-8"))
        setup.report(Event("done", label, options.steps, options.steps, result["test_loss"],
                           result["validation_loss"]))
        return result
    torch.manual_seed(seed)
    model = spec.build(sizes).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=options.learning_rate,
                                  weight_decay=WEIGHT_DECAY)
    state: dict[str, Any] = {"step": 0, "best_loss": math.inf, "best_step": 0,
                             "best": None, "curve": [], "pending": [],
                             "train_seconds": 0.0, "wall_seconds": 0.0}
    if state_file.is_file():
        saved = torch.load(state_file, map_location="cpu", weights_only=True)
        model.load_state_dict(saved.pop("model"))
        optimizer.load_state_dict(saved.pop("optimizer"))
        torch.set_rng_state(saved.pop("rng"))
        state.update(saved)
    marked = time.perf_counter()

    def save() -> None:
        nonlocal marked
        now = time.perf_counter()
        state["wall_seconds"] += now - marked
        marked = now
        whole = {**state, "format": FORMAT, "model": model.state_dict(),
                 "optimizer": optimizer.state_dict(), "rng": torch.get_rng_state()}
        _atomic(state_file, lambda t: torch.save(whole, t))

    train = setup.windows["train"]
    setup.report(Event("start", label, state["step"], options.steps))
    for step in range(state["step"] + 1, options.steps + 1):
        started = time.perf_counter()
        ids, targets = train.take(_batch_starts(seed, step, train.count, options.batch))
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, options.steps, options.learning_rate)
        state["pending"].append(train_step(model, optimizer, ids, targets))
        state["train_seconds"] += time.perf_counter() - started
        state["step"] = step
        if step % options.eval_every == 0 or step == options.steps:
            validation = mean_loss(model, setup.windows["validation"],
                                   setup.evaluation["validation"])
            state["curve"].append({"step": step, "train_loss": float(np.mean(state["pending"])),
                                   "validation_loss": validation})
            state["pending"] = []
            if validation < state["best_loss"]:
                state.update(best_loss=validation, best_step=step, best=_cpu_copy(model))
            save()
        try:
            setup.report(Event("step", label, step, options.steps, state["pending"][-1]
                               if state["pending"] else state["curve"][-1]["train_loss"],
                               state["best_loss"]))
            setup.interrupts.check()
        except KeyboardInterrupt:
            save()
            raise
    if state["best"] is None:
        raise ExperimentError(f"{label}: training diverged (validation loss "
                              f"{state['curve'][-1]['validation_loss']}); use a lower --lr")
    model.load_state_dict(state["best"])
    test = mean_loss(model, setup.windows["test"], setup.evaluation["test"])
    checkpoint = setup.out / f"{name}.safetensors"
    from safetensors.torch import save_file

    _atomic(checkpoint, lambda t: save_file(
        {k: v.contiguous() for k, v in state["best"].items()}, str(t),
        metadata=_metadata(spec, seed, state["best_step"])))
    tokens = options.steps * options.batch * sizes.context
    result = {
        "model": spec.name, "class": spec.class_name, "heads": spec.heads, "seed": seed,
        "parameters": _count(model), "steps": options.steps, "best_step": state["best_step"],
        "validation_loss": state["best_loss"], "test_loss": test,
        "test_perplexity": math.exp(test), "train_seconds": state["train_seconds"],
        "wall_seconds": state["wall_seconds"] + time.perf_counter() - marked,
        "tokens_per_second": tokens / state["train_seconds"], "device": device,
        "checkpoint": checkpoint.name, "curve": state["curve"],
    }
    _write_json(result_file, result)
    state_file.unlink(missing_ok=True)
    setup.report(Event("done", label, options.steps, options.steps, test, state["best_loss"]))
    return result


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def export_onnx(spec: ModelSpec, weights: Mapping[str, np.ndarray], sizes: Trained) -> bytes:
    """The ONNX graph of one model's last-position prediction (:mod:`worksheet.graphs`)."""
    from worksheet.graphs import model_graph

    return model_graph(spec.name, weights, {"context": sizes.context, "vocab": sizes.vocab})


def load_checkpoint(spec: ModelSpec, sizes: Trained, path: Path) -> nn.Module:
    """The lesson's class holding a checkpoint's weights (8-bit rows dequantised)."""
    from safetensors.numpy import load_file

    from worksheet.graphs import SCALE, dequantise

    stored = load_file(str(path))
    weights = {name: torch.from_numpy(dequantise(value, stored[name + SCALE])
                                      if value.dtype == np.int8 else value)
               for name, value in stored.items() if not name.endswith(SCALE)}
    model = spec.build(sizes)
    model.load_state_dict(weights)
    return model.eval()


def _finish(setup: _Setup, spec: ModelSpec, result: dict[str, Any]) -> dict[str, Any]:
    """A trained run's continuation of the lesson's sentence and its ONNX graph beside its
    checkpoint, with both files' sha256 (done again whenever the document is written)."""
    from safetensors.numpy import load_file

    sizes = setup.ws.lesson.trained
    checkpoint = setup.out / result["checkpoint"]
    model = load_checkpoint(spec, sizes, checkpoint)
    end = setup.tokenizer.token_to_id(END_OF_TEXT)
    made = continue_prompt(model, setup.prompt, sizes.context, end, SAMPLING["max_tokens"],
                           SAMPLING["temperature"], SAMPLING["seed"])
    graph = checkpoint.with_suffix(".onnx")
    data = export_onnx(spec, load_file(str(checkpoint)), sizes)
    _atomic(graph, lambda t: t.write_bytes(data))
    return {**result, "continuation": setup.tokenizer.decode(made),
            "files": {"checkpoint": {"file": checkpoint.name, "sha256": _sha256(checkpoint)},
                      "onnx": {"file": graph.name, "sha256": _sha256(graph)}}}


PROMPT_CHARACTERS = (24, 80)
"""An example prompt is a document's first line, cut at a space to at most the second
figure, when that leaves at least the first."""
PROMPTS_PER_SPLIT = 3
_PLAIN = re.compile(r"[A-Z][A-Za-z]*(?:[ ,;:.!?'\"-]+[A-Za-z]+)*")
"""A prompt is plain prose: a capital, then words of letters between spaces and
punctuation; no digits or other symbols."""
OUTSIDE_PROMPTS = ("def forward(self, ids):", "Der Fischer saß am Ufer und sah")
"""Prompts from outside any English story corpus: code, and German."""


def example_prompts(corpus: Corpus, lesson_sentence: str) -> list[dict[str, str]]:
    """Prompts for the live models, by kind: from the first documents of the train split
    (``training``) and of the test split (``held-out``), in corpus order, whose first line
    is plain prose of five words or more (:data:`PROMPT_CHARACTERS`), without its last
    word, so that the model has it to find;
    then the lesson's sentence (``lesson``) and :data:`OUTSIDE_PROMPTS` (``outside``)."""
    low, high = PROMPT_CHARACTERS
    made = []
    for split, kind in (("train", "training"), ("test", "held-out")):
        taken = 0
        for document in corpus.splits[split]:
            line = " ".join(document.strip().split("\n")[0].split())
            if len(line) > high:
                line = line[:high + 1].rsplit(" ", 1)[0]
            cut = line.rsplit(" ", 1)[0] if " " in line else ""
            if len(cut) < low or not _PLAIN.fullmatch(cut) or len(cut.split()) < 5:
                continue
            made.append({"kind": kind, "text": cut})
            taken += 1
            if taken == PROMPTS_PER_SPLIT:
                break
    made.append({"kind": "lesson", "text": lesson_sentence})
    made += [{"kind": "outside", "text": text} for text in OUTSIDE_PROMPTS]
    return made


def median_run(results: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The run of ``model`` with the median test perplexity (the lower middle of an even
    count; among equals the first seed)."""
    runs = sorted((r for r in results if r["model"] == model),
                  key=lambda r: r["test_perplexity"])
    return runs[(len(runs) - 1) // 2]


QUANTISATION = "int8, one scale per row of every matrix; vectors in float32"


def _ship(setup: _Setup, specs: list[ModelSpec], document: dict[str, Any], ship: Path) -> None:
    """``ship/``: the document, the tokenizer, and per model its median seed's checkpoint
    with every matrix in 8 bits (:func:`worksheet.graphs.quantise`), its ONNX graph's
    sha256 (the graph itself is exported again where it is needed), and that checkpoint's
    test loss measured again: what the lecture ships and runs live."""
    from safetensors.numpy import load_file, save_file

    from worksheet.graphs import SCALE, quantise

    ship.mkdir(parents=True, exist_ok=True)
    sizes = setup.ws.lesson.trained
    shipped = {}
    for spec in specs:
        run = median_run(document["runs"], spec.name)
        weights = {}
        for name, value in load_file(str(setup.out / run["checkpoint"])).items():
            if value.ndim == 2:
                weights[name], weights[name + SCALE] = quantise(value)
            else:
                weights[name] = value.astype(np.float32)
        file = ship / f"{spec.name}.safetensors"
        metadata = _metadata(spec, run["seed"], run["best_step"], QUANTISATION)
        _atomic(file, lambda t, w=weights, m=metadata: save_file(w, str(t), metadata=m))
        model = load_checkpoint(spec, sizes, file)
        loss = mean_loss(model, setup.windows["test"], setup.evaluation["test"])
        graph = export_onnx(spec, load_file(str(file)), sizes)
        shipped[spec.name] = {
            "seed": run["seed"], "best_step": run["best_step"],
            "test_loss": loss, "test_perplexity": math.exp(loss),
            "checkpoint": {"file": file.name, "sha256": _sha256(file)},
            "onnx": {"file": f"{spec.name}.onnx", "sha256": hashlib.sha256(graph).hexdigest(),
                     "bytes": len(graph)}}
    _atomic(ship / "tokenizer.json",
            lambda t: t.write_bytes((setup.out / "tokenizer.json").read_bytes()))
    _write_json(ship / "experiment.json", {
        **document, "shipped": {
            "rule": "per model, the seed with the median test perplexity",
            "quantisation": QUANTISATION, "models": shipped}})


# --------------------------------------------------------------------------- experiment


def _check_options(options: ExperimentOptions, sizes: Trained, source: str) -> None:
    for field in ("steps", "batch", "eval_every", "eval_windows"):
        if getattr(options, field) < 1:
            raise ExperimentError(f"--{field.replace('_', '-')}: expected a whole number ≥ 1, "
                                  f"got {getattr(options, field)}")
    if not options.seeds or len(set(options.seeds)) != len(options.seeds) or \
            not all(0 <= s < 2**31 for s in options.seeds):
        raise ExperimentError(f"--seeds: expected distinct whole numbers from 0 to 2³¹−1, got "
                              f"{', '.join(map(str, options.seeds)) or 'none'}")
    if not (options.learning_rate > 0 and math.isfinite(options.learning_rate)):
        raise ExperimentError(f"--lr: expected a positive number, got {options.learning_rate}")
    if sizes.vocab <= _BYTE_ALPHABET:
        raise ExperimentError(f"{source}: lesson.trained.vocab: expected more than "
                              f"{_BYTE_ALPHABET} for a byte-level BPE (256 bytes and "
                              f"{END_OF_TEXT}), got {sizes.vocab}")


def _streams(corpus: Corpus, tokenizer: Any, sizes: Trained, ws: Worksheet
             ) -> dict[str, np.ndarray]:
    learned = tokenizer.get_vocab_size()
    if learned != sizes.vocab:
        raise ExperimentError(f"{corpus.source}: its train split yields a byte-level BPE of "
                              f"only {learned:,} tokens; expected {sizes.vocab:,} "
                              f"(lesson.trained.vocab of {ws.source}): give more stories, or "
                              "a worksheet with a smaller trained vocabulary")
    streams = {name: encode_split(tokenizer, corpus.splits[name]) for name in SPLITS}
    for name, stream in streams.items():
        if len(stream) <= sizes.context:
            raise ExperimentError(f"{corpus.source}: the {name} split holds {len(stream):,} "
                                  f"tokens; expected more than the context of {sizes.context} "
                                  "(one window and its next token): give more stories")
    return streams


def _tokenizer(out: Path, corpus: Corpus, vocab: int) -> Any:
    from tokenizers import Tokenizer

    saved = out / "tokenizer.json"
    if saved.is_file() and (out / "progress" / "plan.json").is_file():
        return Tokenizer.from_file(str(saved))  # the one this experiment's runs started with
    return train_tokenizer(corpus.splits["train"], vocab)


def _plan(ws: Worksheet, corpus: Corpus, options: ExperimentOptions, device: str,
          threads: int) -> dict[str, Any]:
    """What a run's result depends on besides its model and seed: resuming needs the same."""
    sizes = ws.lesson.trained
    return {"format": FORMAT, "corpus_sha256": corpus.sha256,
            "sizes": {"vocab": sizes.vocab, "context": sizes.context, "width": sizes.width,
                      "hidden": sizes.hidden, "heads": list(sizes.heads)},
            "prompt": " ".join(ws.sentences[ws.walkthrough]), "steps": options.steps,
            "batch": options.batch, "learning_rate": options.learning_rate,
            "eval_every": options.eval_every, "eval_windows": options.eval_windows,
            "device": device, "threads": threads, "torch": torch.__version__}


def _check_plan(out: Path, plan: dict[str, Any]) -> None:
    saved = out / "progress" / "plan.json"
    if not saved.is_file():
        return
    try:
        before = json.loads(saved.read_text(encoding="utf-8"))
    except ValueError:
        raise ExperimentError(f"{saved}: unreadable; remove {out / 'progress'} to start "
                              "afresh") from None
    changed = [key for key in plan if before.get(key) != plan[key]]
    if changed:
        what = ", ".join(f"{key} {before.get(key)!r} → {plan[key]!r}"
                         if not isinstance(plan[key], dict) else key for key in changed)
        raise ExperimentError(f"{out}: holds an experiment with other settings ({what}); use "
                              "another --out, or the same corpus, worksheet and options to "
                              "resume it")


def run_experiment(ws: Worksheet, corpus_path: Path, out: Path,
                   options: ExperimentOptions = ExperimentOptions(),
                   report: Report | None = None, ship: Path | None = None) -> dict[str, Any]:
    """Train every model with every seed and write ``OUT/experiment.json``; its document.

    With ``ship``, also write there what the lecture ships: the document, the tokenizer
    and each model's median-seed checkpoint in 8 bits (:func:`_ship`).

    Everything is checked before anything is written: the options, the corpus, the
    tokenizer's vocabulary and the splits' sizes. A folder holding an unfinished
    experiment with the same settings is resumed.

    Raises
    ------
    ExperimentError
        One line naming what cannot be used and what was expected.
    KeyboardInterrupt
        On Ctrl-C or SIGTERM, once the current run's state is saved.
    """
    report = report or (lambda event: None)
    sizes = ws.lesson.trained
    _check_options(options, sizes, ws.source)
    device = resolve_device(options.device)
    if out.exists() and not out.is_dir():
        raise ExperimentError(f"{out}: is a file; expected a folder for the experiment")
    threads = options.threads or torch.get_num_threads()
    corpus = read_corpus(corpus_path)
    plan = _plan(ws, corpus, options, device, threads)
    _check_plan(out, plan)
    tokenizer = _tokenizer(out, corpus, sizes.vocab)
    cached = out / "progress" / "tokens.safetensors"
    if cached.is_file() and (out / "progress" / "plan.json").is_file():
        from safetensors.numpy import load_file

        streams = load_file(cached)
    else:
        streams = _streams(corpus, tokenizer, sizes, ws)
    windows = {name: _Windows(stream, sizes.context, device) for name, stream in streams.items()}
    evaluation = {name: windows[name].spread(options.eval_windows)
                  for name in ("validation", "test")}
    prompt_text = plan["prompt"]
    specs = model_specs(sizes)
    progress = out / "progress"
    resuming = (progress / "plan.json").is_file()
    progress.mkdir(parents=True, exist_ok=True)
    with _Lock(progress), _torch_settings(threads, device), _Interrupts() as interrupts:
        for left in [*out.glob(".*.tmp"), *progress.glob(".*.tmp")]:  # a kill mid-write
            left.unlink(missing_ok=True)
        if not resuming:
            from safetensors.numpy import save_file

            _atomic(out / "tokenizer.json", lambda t: tokenizer.save(str(t)))
            _atomic(cached, lambda t: save_file(streams, str(t)))
            _write_json(progress / "plan.json", plan)
        setup = _Setup(ws, options, device, out, tokenizer, windows, evaluation,
                       tokenizer.encode(prompt_text).ids, report, interrupts)
        runs = [(spec, seed) for spec in specs for seed in options.seeds]
        report(Event("plan", "", sum(_done_steps(progress, spec, seed, options.steps)
                                     for spec, seed in runs), len(runs) * options.steps))
        results = [_finish(setup, spec, _run(setup, spec, seed)) for spec, seed in runs]
        document = _document(ws, corpus, tokenizer, streams, evaluation, options, plan,
                             specs, results)
        document["tokenizer"]["sha256"] = _sha256(out / "tokenizer.json")
        _write_json(out / "experiment.json", document)
        if ship is not None:
            _ship(setup, specs, document, ship)
    return document


def _done_steps(progress: Path, spec: ModelSpec, seed: int, steps: int) -> int:
    name = f"{spec.name}-seed{seed}"
    if (progress / f"{name}.json").is_file():
        return steps
    if (progress / f"{name}.pt").is_file():
        return int(torch.load(progress / f"{name}.pt", map_location="cpu",
                              weights_only=True)["step"])
    return 0


def _document(ws: Worksheet, corpus: Corpus, tokenizer: Any, streams: dict[str, np.ndarray],
              evaluation: dict[str, torch.Tensor], options: ExperimentOptions,
              plan: dict[str, Any], specs: list[ModelSpec], results: list[dict[str, Any]]
              ) -> dict[str, Any]:
    parameters = {r["model"]: r["parameters"] for r in results}
    return {
        "format": FORMAT,
        "worksheet": {"path": ws.source, "sha256": ws.sha256},
        "sizes": plan["sizes"],
        "corpus": {
            "path": corpus.source, "sha256": corpus.sha256,
            "title": options.corpus_title or Path(corpus.source).stem,
            "split": "by the sha256 of each story's text: its first 8 bytes as a fraction of "
                     "2^64, below 0.90 train, below 0.95 validation, else test",
            "documents": {name: len(corpus.splits[name]) for name in SPLITS},
            "tokens": {name: len(streams[name]) for name in SPLITS},
            "evaluated_windows": {name: len(starts) for name, starts in evaluation.items()},
        },
        "tokenizer": {"file": "tokenizer.json", "kind": "byte-level BPE",
                      "vocab": tokenizer.get_vocab_size(),
                      "special": {END_OF_TEXT: tokenizer.token_to_id(END_OF_TEXT)}},
        "training": {
            "optimizer": "AdamW", "learning_rate": options.learning_rate,
            "weight_decay": WEIGHT_DECAY,
            "schedule": f"linear warm-up over min({WARMUP_STEPS}, steps/10) steps, then "
                        f"cosine decay to {FINAL_FRACTION} of the peak",
            "steps": options.steps, "batch": options.batch, "context": ws.lesson.trained.context,
            "tokens_per_step": options.batch * ws.lesson.trained.context,
            "eval_every": options.eval_every, "loss": "cross-entropy in nats per token",
            "threads": plan["threads"], "torch": plan["torch"], "seeds": list(options.seeds),
        },
        "prompts": example_prompts(corpus, plan["prompt"]),
        "prompt": {"sentence": ws.walkthrough, "text": plan["prompt"],
                   "tokens": len(tokenizer.encode(plan["prompt"]).ids),
                   "padding": f"left-padded with {END_OF_TEXT} to the context"},
        "sampling": dict(SAMPLING),
        "models": {spec.name: {"class": spec.class_name, "heads": spec.heads,
                               "parameters": parameters[spec.name]} for spec in specs},
        "runs": results,
    }
