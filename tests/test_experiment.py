"""The trained comparison, really trained: `lecture experiment` on a small story corpus.

The corpus is made here: a few hundred short stories from templates, like TinyStories
but tiny. The worksheet is the default one with small trained sizes, so a byte-level BPE
of 300 tokens and 40 steps per run take a moment. The figures in ``experiment.json`` are
checked against a fresh computation that shares no code with the experiment beyond the
model classes: the split rule, the token streams, the windows and the test loss.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from click.testing import Result
from safetensors.torch import load_file
from tokenizers import Tokenizer
from torch.nn import functional as F

from worksheet import load_worksheet
from worksheet.experiment import Event, ExperimentOptions, run_experiment
from worksheet.model import AttentionLM, FixedWindowMLP
from worksheet.schema import Trained

ROOT = Path(__file__).parent.parent
SIZES = {"vocab": 300, "context": 8, "width": 16, "hidden": 32, "heads": [1, 4]}
OPTIONS = ExperimentOptions(steps=40, seeds=(11, 29), batch=16, eval_every=10,
                            eval_windows=128, threads=1)
FLAGS = ["--steps", "40", "--seeds", "11,29", "--batch", "16", "--eval-every", "10",
         "--eval-windows", "128", "--threads", "1", "--device", "cpu"]
TIMING = ("train_seconds", "wall_seconds", "tokens_per_second")
RUN_FIELDS = {"model", "class", "heads", "seed", "parameters", "steps", "best_step",
              "validation_loss", "test_loss", "test_perplexity", "train_seconds",
              "wall_seconds", "tokens_per_second", "device", "checkpoint", "continuation",
              "curve", "files"}
PROMPT = "The fisherman sat beside the river bank and watched the"


def stories(count: int, seed: int = 0) -> list[str]:
    """Short stories from templates: names, animals, places and feelings recombined."""
    pick = random.Random(seed)
    names = ["Lily", "Tom", "Mia", "Ben", "Sue", "Max", "Anna", "Sam"]
    animals = ["dog", "cat", "bird", "fish", "frog", "bunny"]
    places = ["park", "garden", "river", "forest", "house", "beach"]
    things = ["ball", "kite", "box", "hat", "cake", "boat"]
    moods = ["happy", "sad", "sleepy", "brave", "hungry"]
    made = []
    for _ in range(count):
        a, b = pick.sample(names, 2)
        lines = [f"Once upon a time, there was a little {pick.choice(animals)} named {a}.",
                 f"{a} liked to play in the {pick.choice(places)} with a red "
                 f"{pick.choice(things)}."]
        for _ in range(pick.randint(2, 5)):
            lines.append(pick.choice([
                f"One day, {a} met {b} near the {pick.choice(places)}.",
                f"{b} was very {pick.choice(moods)} and wanted the {pick.choice(things)}.",
                f"They shared the {pick.choice(things)} and felt {pick.choice(moods)}.",
                f"The fisherman sat beside the river bank and watched the "
                f"{pick.choice(animals)}.",
                f'{a} said, "Let us go to the {pick.choice(places)} together!"',
            ]))
        lines.append(f"At the end of the day, {a} and {b} were {pick.choice(moods)} friends.")
        made.append(" ".join(lines))
    return made


STORIES = stories(400)


def split_by_hash(documents: list[str]) -> dict[str, list[str]]:
    """The documented split rule, written again: sha256, first 8 bytes, 0.90 / 0.95."""
    splits: dict[str, list[str]] = {"train": [], "validation": [], "test": []}
    for doc in documents:
        fraction = int(hashlib.sha256(doc.encode()).hexdigest()[:16], 16) / 2**64
        splits["train" if fraction < 0.9 else "validation" if fraction < 0.95 else "test"]\
            .append(doc)
    return splits


def mlp_parameters(s: dict[str, Any]) -> int:
    """Embedding, hidden layer over the concatenated window, readout (with biases)."""
    v, c, w, h = s["vocab"], s["context"], s["width"], s["hidden"]
    return v * w + (c * w * h + h) + (h * v + v)


def attention_parameters(s: dict[str, Any]) -> int:
    """Token and position embeddings, W_Q/W_K/W_V/W_O (no biases, any head count),
    hidden layer over the last row, readout."""
    v, c, w, h = s["vocab"], s["context"], s["width"], s["hidden"]
    return v * w + c * w + 4 * w * w + (w * h + h) + (h * v + v)


def without_timing(document: dict[str, Any]) -> dict[str, Any]:
    document = copy.deepcopy(document)
    for run in document["runs"]:
        for field in TIMING:
            run.pop(field)
    return document


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("experiment")


@pytest.fixture(scope="module")
def sheet(folder: Path, default_doc: dict[str, Any]) -> Path:
    doc = copy.deepcopy(default_doc)
    doc["lesson"]["trained"] = SIZES
    path = folder / "small-trained.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def corpus(folder: Path) -> Path:
    path = folder / "stories.txt"
    path.write_text("\n\n".join(STORIES) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def reference(folder: Path, sheet: Path, corpus: Path) -> tuple[Path, dict[str, Any]]:
    """One uninterrupted experiment through the command: its folder and its document."""
    from click.testing import CliRunner

    from render.cli import main

    out = folder / "reference"
    result = CliRunner().invoke(main, ["experiment", "--corpus", str(corpus), "--worksheet",
                                       str(sheet), "--out", str(out), *FLAGS])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return out, json.loads((out / "experiment.json").read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- the models


def test_logits_alone_equal_the_traced_forward_pass() -> None:
    sizes = Trained(vocab=50, context=8, width=16, hidden=32, heads=(1, 4))
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (5, 8))
    for model in (FixedWindowMLP(sizes), AttentionLM(sizes, 1), AttentionLM(sizes, 4)):
        with torch.no_grad():
            torch.testing.assert_close(model.logits(ids), model(ids)["logits"])


# --------------------------------------------------------------------------- the record


def test_experiment_json_has_every_field_for_every_model_and_seed(
        reference: tuple[Path, dict[str, Any]]) -> None:
    out, doc = reference
    assert [(r["model"], r["seed"]) for r in doc["runs"]] == [
        (m, s) for m in ("mlp", "heads1", "heads4") for s in (11, 29)]
    for run in doc["runs"]:
        assert set(run) == RUN_FIELDS
        assert run["device"] == "cpu"
        assert run["steps"] == 40
        assert run["train_seconds"] > 0 and run["wall_seconds"] >= run["train_seconds"]
        assert run["tokens_per_second"] == pytest.approx(40 * 16 * 8 / run["train_seconds"])
        assert isinstance(run["continuation"], str) and run["continuation"]
        assert (out / run["checkpoint"]).is_file()
    assert doc["prompt"]["text"] == PROMPT
    assert doc["sizes"] == SIZES
    assert (out / "tokenizer.json").is_file()
    assert not list(out.glob("**/*.tmp")) and not list((out / "progress").glob("*.pt"))


def test_parameter_counts_follow_from_the_sizes(reference: tuple[Path, dict[str, Any]]
                                                ) -> None:
    _, doc = reference
    expected = {"mlp": mlp_parameters(SIZES), "heads1": attention_parameters(SIZES),
                "heads4": attention_parameters(SIZES)}
    assert {name: model["parameters"] for name, model in doc["models"].items()} == expected
    assert all(run["parameters"] == expected[run["model"]] for run in doc["runs"])


def test_perplexity_is_the_exponential_of_the_test_loss(
        reference: tuple[Path, dict[str, Any]]) -> None:
    for run in reference[1]["runs"]:
        assert run["test_perplexity"] == pytest.approx(math.exp(run["test_loss"]), rel=1e-12)


def test_the_kept_checkpoint_is_the_lowest_validation_loss(
        reference: tuple[Path, dict[str, Any]]) -> None:
    for run in reference[1]["runs"]:
        curve = run["curve"]
        assert [point["step"] for point in curve] == [10, 20, 30, 40]
        lowest = min(curve, key=lambda point: point["validation_loss"])
        assert run["best_step"] == lowest["step"]
        assert run["validation_loss"] == lowest["validation_loss"]


def test_the_split_follows_the_hash_of_each_story(reference: tuple[Path, dict[str, Any]]
                                                  ) -> None:
    out, doc = reference
    splits = split_by_hash(STORIES)
    assert doc["corpus"]["documents"] == {name: len(docs) for name, docs in splits.items()}
    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    assert tokenizer.get_vocab_size() == doc["tokenizer"]["vocab"] == SIZES["vocab"]
    end = tokenizer.token_to_id("<|endoftext|>")
    assert doc["corpus"]["tokens"] == {
        name: sum(1 + len(tokenizer.encode(d).ids) for d in docs) for name, docs in splits.items()}
    assert end == doc["tokenizer"]["special"]["<|endoftext|>"] == 0


def _test_windows(out: Path) -> tuple[torch.Tensor, torch.Tensor]:
    """The test stories encoded and windowed here, as the documented rule says."""
    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    stream = []
    for story in split_by_hash(STORIES)["test"]:
        stream += [0, *tokenizer.encode(story).ids]
    context = SIZES["context"]
    count = len(stream) - context
    n = min(128, count)
    starts = [i * count // n for i in range(n)]
    return (torch.tensor([stream[s:s + context] for s in starts]),
            torch.tensor([stream[s + context] for s in starts]))


def test_the_test_loss_is_recomputed_from_the_checkpoint(
        reference: tuple[Path, dict[str, Any]]) -> None:
    """A fresh model, the saved weights, the test stories encoded and windowed here."""
    out, doc = reference
    ids, targets = _test_windows(out)
    sizes = Trained(**{**SIZES, "heads": tuple(SIZES["heads"])})
    for run in doc["runs"]:
        model = FixedWindowMLP(sizes) if run["heads"] is None else AttentionLM(sizes,
                                                                               run["heads"])
        model.load_state_dict(load_file(out / run["checkpoint"]))
        model.eval()
        with torch.no_grad():
            loss = F.cross_entropy(model(ids)["logits"].double(), targets).item()
        assert loss == pytest.approx(run["test_loss"], abs=1e-5), run["model"]


# --------------------------------------------------------------------------- reproducible


def _compare(out: Path, doc: dict[str, Any], reference: tuple[Path, dict[str, Any]]) -> None:
    ref_out, ref_doc = reference
    assert without_timing(doc)["runs"] == without_timing(ref_doc)["runs"]
    for run in ref_doc["runs"]:
        mine, theirs = load_file(out / run["checkpoint"]), load_file(ref_out / run["checkpoint"])
        assert mine.keys() == theirs.keys()
        assert all(torch.equal(mine[name], theirs[name]) for name in mine), run["checkpoint"]


def test_the_same_seed_on_cpu_gives_identical_results(
        tmp_path: Path, sheet: Path, corpus: Path,
        reference: tuple[Path, dict[str, Any]]) -> None:
    doc = run_experiment(load_worksheet(sheet), corpus, tmp_path / "again", OPTIONS)
    _compare(tmp_path / "again", doc, reference)
    assert (tmp_path / "again" / "tokenizer.json").read_bytes() == \
        (reference[0] / "tokenizer.json").read_bytes()
    by_seed = {r["seed"]: r["test_loss"] for r in doc["runs"] if r["model"] == "mlp"}
    assert by_seed[11] != by_seed[29]


class _Stop:
    """A progress hook that interrupts once, at a given step of a given run."""

    def __init__(self, run: str, step: int, error: type[BaseException]) -> None:
        self.run, self.step, self.error = run, step, error
        self.fired = False
        self.starts: list[tuple[str, int]] = []

    def __call__(self, event: Event) -> None:
        if event.kind == "start":
            self.starts.append((event.run, event.step))
        if not self.fired and event.kind == "step" and event.run == self.run \
                and event.step == self.step:
            self.fired = True
            raise self.error


class _Killed(BaseException):
    """Stands for SIGKILL: nothing is saved on the way out."""


@pytest.mark.parametrize(("error", "step", "resumed_at"),
                         [(KeyboardInterrupt, 17, 17), (_Killed, 25, 20)],
                         ids=["ctrl-c saves the step", "a kill resumes from the last evaluation"])
def test_an_interrupted_experiment_resumes_to_the_same_result(
        tmp_path: Path, sheet: Path, corpus: Path, reference: tuple[Path, dict[str, Any]],
        error: type[BaseException], step: int, resumed_at: int) -> None:
    ws, out = load_worksheet(sheet), tmp_path / "resumed"
    stop = _Stop("heads1 seed 29", step, error)
    with pytest.raises(error):
        run_experiment(ws, corpus, out, OPTIONS, stop)
    assert not (out / "experiment.json").exists()
    assert (out / "progress" / "heads1-seed29.pt").is_file()
    again = _Stop("", 0, KeyboardInterrupt)
    doc = run_experiment(ws, corpus, out, OPTIONS, again)
    # Finished runs are not trained again; the interrupted one goes on where it was saved.
    assert again.starts == [("heads1 seed 29", resumed_at), ("heads4 seed 11", 0),
                            ("heads4 seed 29", 0)]
    _compare(out, doc, reference)


def test_ctrl_c_on_the_command_stops_and_the_same_command_resumes(
        tmp_path: Path, sheet: Path, corpus: Path) -> None:
    """A real SIGINT to a real process: exit 130 with a line saying how to go on."""
    flags = ["--steps", "100", "--seeds", "5", "--batch", "16", "--eval-every", "10",
             "--eval-windows", "64", "--threads", "1", "--device", "cpu"]
    command = [sys.executable, "-c", "from render.cli import main; main()", "experiment",
               "--corpus", str(corpus), "--worksheet", str(sheet), *flags]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "signalled"
    process = subprocess.Popen([*command, "--out", str(out)], env=env, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300  # a busy machine starts Python and torch slowly
    while not any((out / "progress").glob("*.pt")) and process.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not (out / "experiment.json").exists()
    subprocess.run([*command, "--out", str(out)], env=env, cwd=tmp_path, check=True,
                   capture_output=True)
    options = ExperimentOptions(steps=100, seeds=(5,), batch=16, eval_every=10,
                                eval_windows=64, threads=1, device="cpu")
    whole = run_experiment(load_worksheet(sheet), corpus, tmp_path / "whole", options)
    resumed = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    assert without_timing(resumed)["runs"] == without_timing(whole)["runs"]


# --------------------------------------------------------------------------- refusals


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


BAD_CORPORA: dict[str, tuple[Callable[[Path], Path], str]] = {
    "missing path": (lambda d: d / "nowhere.txt", "nowhere.txt: not found; expected"),
    "empty file": (lambda d: _write(d / "empty.txt", b"\n\n  \n"),
                   "empty.txt: empty (no stories); expected"),
    "too few stories": (lambda d: _write(d / "few.txt", "\n\n".join(STORIES[:5]).encode()),
                        "few.txt: 5 stories; expected at least 20"),
    "binary file": (lambda d: _write(d / "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
                    "image.txt: binary data (a NUL byte at offset 8); expected UTF-8 text"),
    "undecodable text": (lambda d: _write(d / "latin.txt", "\n\n".join(STORIES).encode()
                                          + "\n\nUn café.".encode("latin-1")),
                         "latin.txt: not UTF-8 text (byte 0xe9 at offset"),
    "folder without text": (lambda d: (d / "nothing").mkdir() or d / "nothing",
                            "nothing: no .txt files in this folder; expected"),
    "one split left empty": (lambda d: _write(d / "train-only.txt", "\n\n".join(
        s for s in STORIES[:60] if s in split_by_hash(STORIES[:60])["train"]).encode()),
        "no story fell into the validation split"),
}


@pytest.mark.parametrize("case", BAD_CORPORA)
def test_a_bad_corpus_is_refused_with_one_line(case: str, tmp_path: Path, sheet: Path,
                                               lecture: Callable[..., Result]) -> None:
    make, expected = BAD_CORPORA[case]
    out = tmp_path / "out"
    result = lecture("experiment", "--corpus", make(tmp_path), "--worksheet", sheet,
                     "--out", out, *FLAGS)
    assert result.exit_code == 2, (result.stderr, result.exception)
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("lecture: error: ")
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_a_corpus_too_small_for_the_worksheets_vocabulary_is_refused(
        tmp_path: Path, corpus: Path, lecture: Callable[..., Result]) -> None:
    """The default worksheet's 4,000 tokens: these stories give a BPE of far fewer. The
    models keep the lesson's sizes, so the tokenizer must have exactly that many."""
    out = tmp_path / "out"
    result = lecture("experiment", "--corpus", corpus, "--out", out, *FLAGS)
    assert result.exit_code == 2
    line = result.stderr
    assert line.count("\n") == 1 and line.startswith("lecture: error: ")
    assert "stories.txt: its train split yields a byte-level BPE of only" in line
    assert "expected 4,000 (lesson.trained.vocab of" in line
    assert not out.exists()


def test_a_vocabulary_below_the_byte_alphabet_and_a_missing_gpu_are_refused(
        tmp_path: Path, corpus: Path, edited: Callable[..., Path],
        lecture: Callable[..., Result]) -> None:
    small = edited(lambda doc: doc["lesson"].update(trained={**SIZES, "vocab": 200}))
    out = tmp_path / "out"
    result = lecture("experiment", "--corpus", corpus, "--worksheet", small, "--out", out,
                     *FLAGS)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "lesson.trained.vocab: expected more than 256 for a byte-level BPE (256 bytes and "
        "<|endoftext|>), got 200")
    if not torch.cuda.is_available():
        result = lecture("experiment", "--corpus", corpus, "--out", out, *FLAGS[:-2],
                         "--device", "cuda")
        assert result.exit_code == 2
        assert result.stderr == "lecture: error: --device cuda: torch sees no CUDA device " \
            "here; use --device cpu or auto\n"
    assert not out.exists()


def test_a_folder_of_other_settings_is_not_resumed(
        sheet: Path, corpus: Path, reference: tuple[Path, dict[str, Any]],
        lecture: Callable[..., Result]) -> None:
    out, _ = reference
    before = (out / "experiment.json").read_bytes()
    flags = [*FLAGS]
    flags[1] = "50"
    result = lecture("experiment", "--corpus", corpus, "--worksheet", sheet, "--out", out,
                     *flags)
    assert result.exit_code == 2
    assert "holds an experiment with other settings (steps 40 → 50)" in result.stderr
    assert (out / "experiment.json").read_bytes() == before


def test_stories_separated_by_end_of_text_in_a_folder(tmp_path: Path) -> None:
    from worksheet.corpus import read_corpus

    (tmp_path / "b.txt").write_text("<|endoftext|>\n".join(STORIES[200:]), encoding="utf-8")
    (tmp_path / "a.txt").write_text("\n<|endoftext|>\n".join(
        s.replace(". ", ".\n\n", 1) for s in STORIES[:200]), encoding="utf-8")
    corpus = read_corpus(tmp_path)
    # With the marker, a blank line inside a story does not cut it.
    expected = {name: len(docs) for name, docs in split_by_hash(
        [s.replace(". ", ".\n\n", 1) for s in STORIES[:200]] + STORIES[200:]).items()}
    assert {name: len(docs) for name, docs in corpus.splits.items()} == expected


# --------------------------------------------------------------------------- live models


def _onnx(path: Path) -> Any:
    """An ONNX Runtime session without graph rewrites (the CPU runtime would otherwise
    fuse an 8-bit matrix with its product and round differently from the browser's)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _padded(tokens: list[int], context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Left-padded with token 0 (<|endoftext|>) to a full window, and where the pads are."""
    pads = max(0, context - len(tokens))
    ids = torch.tensor([[0] * pads + tokens[-context:]])
    return ids, torch.arange(context)[None] < pads


def test_each_checkpoint_has_an_onnx_graph_that_predicts_as_torch(
        reference: tuple[Path, dict[str, Any]]) -> None:
    """Logits and the last receiver's weights of the graph beside each checkpoint equal the
    full forward pass of a fresh model holding its weights, pads blocked, for five windows
    from one token to a full one."""
    out, doc = reference
    sizes = Trained(**{**SIZES, "heads": tuple(SIZES["heads"])})
    generator = torch.Generator().manual_seed(3)
    for run in doc["runs"]:
        files = run["files"]
        for kind in ("checkpoint", "onnx"):
            data = (out / files[kind]["file"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == files[kind]["sha256"]
        model = FixedWindowMLP(sizes) if run["heads"] is None else AttentionLM(sizes,
                                                                               run["heads"])
        model.load_state_dict(load_file(out / run["checkpoint"]))
        model.eval()
        session = _onnx(out / files["onnx"]["file"])
        for length in (1, 3, 5, 7, 8):
            tokens = torch.randint(1, SIZES["vocab"], (length,), generator=generator).tolist()
            ids, padding = _padded(tokens, SIZES["context"])
            feed = {"ids": ids.numpy()}
            if run["heads"] is not None:
                feed["padding"] = padding.numpy()
            got = session.run(None, feed)
            with torch.no_grad():
                trace = model(ids, padding) if run["heads"] else model(ids)
            assert abs(got[0] - trace["logits"].numpy()).max() < 1e-4, (run["model"], length)
            if run["heads"] is not None:
                weights = trace["A"][:, -1]
                assert abs(got[1] - weights.numpy()).max() < 1e-6
                pads = weights[:, :SIZES["context"] - length]
                assert pads.numel() == 0 or float(pads.abs().max()) == 0.0


def test_a_short_prompt_blocks_its_pads_as_sources() -> None:
    """The padding mask as the seed writes it: a real receiver reads no pad, a pad receiver
    keeps its causal prefix; the last row's logits alone equal the full pass's."""
    sizes = Trained(vocab=50, context=8, width=16, hidden=32, heads=(4,))
    torch.manual_seed(1)
    model = AttentionLM(sizes, 4).eval()
    ids, padding = _padded([5, 6, 7], 8)
    with torch.no_grad():
        trace = model(ids, padding)
        torch.testing.assert_close(model.logits(ids, padding), trace["logits"])
    A = trace["A"]
    assert float(A[:, 5:, :5].abs().max()) == 0.0            # real receivers, pad sources
    assert float(A[:, 2, :3].sum(-1).min()) == pytest.approx(1.0)  # a pad's causal prefix
    assert float(A.triu(1).abs().max()) == 0.0               # never the future


def test_the_prompts_come_from_the_splits_and_outside_them(
        reference: tuple[Path, dict[str, Any]]) -> None:
    _, doc = reference
    splits = split_by_hash(STORIES)
    kinds = [p["kind"] for p in doc["prompts"]]
    assert kinds == ["training"] * 3 + ["held-out"] * 3 + ["lesson"] + ["outside"] * 2
    for prompt in doc["prompts"]:
        text = prompt["text"]
        assert 24 <= len(text) <= 80 or prompt["kind"] != "training"
        if prompt["kind"] == "lesson":
            continue
        if prompt["kind"] == "outside":
            assert not any(text in story for story in STORIES)
            continue
        home = splits["train" if prompt["kind"] == "training" else "test"]
        assert any(story.startswith(text + " ") for story in home), text
    assert doc["prompts"][6]["text"] == PROMPT


def test_the_continuation_is_sampled_with_the_pads_blocked(
        reference: tuple[Path, dict[str, Any]]) -> None:
    """Each run's continuation, sampled again here: the full forward pass on the last window
    (a story start's token 0 to its left), temperature and generator seed as recorded."""
    out, doc = reference
    tokenizer = Tokenizer.from_file(str(out / "tokenizer.json"))
    sizes = Trained(**{**SIZES, "heads": tuple(SIZES["heads"])})
    sampling = doc["sampling"]
    for run in doc["runs"]:
        model = FixedWindowMLP(sizes) if run["heads"] is None else AttentionLM(sizes,
                                                                               run["heads"])
        model.load_state_dict(load_file(out / run["checkpoint"]))
        model.eval()
        tokens, made = tokenizer.encode(PROMPT).ids, []
        generator = torch.Generator().manual_seed(sampling["seed"])
        for _ in range(sampling["max_tokens"]):
            ids, padding = _padded(tokens, SIZES["context"])
            with torch.no_grad():
                logits = (model(ids, padding) if run["heads"] else model(ids))["logits"]
            p = (logits[0].double() / sampling["temperature"]).softmax(-1)
            token = int(torch.multinomial(p, 1, generator=generator))
            if token == 0:
                break
            made.append(token)
            tokens.append(token)
        assert run["continuation"] == tokenizer.decode(made), run["model"]


def test_shipping_keeps_each_models_median_seed_in_8_bits(
        tmp_path: Path, sheet: Path, corpus: Path,
        reference: tuple[Path, dict[str, Any]]) -> None:
    """`--ship` on a finished experiment trains nothing and writes the median seed's
    weights in 8 bits: within half a step of each row's scale, with the test loss measured
    again (recomputed here from the 8-bit file) and the graph's sha256."""
    import shutil

    from safetensors.numpy import load_file as load_numpy

    out, doc = reference
    copy_of = tmp_path / "run"
    shutil.copytree(out, copy_of)
    ship = tmp_path / "ship"
    started = time.perf_counter()
    run_experiment(load_worksheet(sheet), corpus, copy_of, OPTIONS, ship=ship)
    assert time.perf_counter() - started < 20
    shipped = json.loads((ship / "experiment.json").read_text(encoding="utf-8"))
    assert shipped["runs"] == doc["runs"]
    assert (ship / "tokenizer.json").read_bytes() == (out / "tokenizer.json").read_bytes()
    assert hashlib.sha256((ship / "tokenizer.json").read_bytes()).hexdigest() == \
        doc["tokenizer"]["sha256"]
    sizes = Trained(**{**SIZES, "heads": tuple(SIZES["heads"])})
    test_ids, targets = _test_windows(out)
    for name in ("mlp", "heads1", "heads4"):
        runs = sorted((r for r in doc["runs"] if r["model"] == name),
                      key=lambda r: r["test_perplexity"])
        median = runs[(len(runs) - 1) // 2]
        entry = shipped["shipped"]["models"][name]
        assert entry["seed"] == median["seed"]
        file = ship / entry["checkpoint"]["file"]
        assert hashlib.sha256(file.read_bytes()).hexdigest() == entry["checkpoint"]["sha256"]
        small, full = load_numpy(file), load_numpy(out / median["checkpoint"])
        weights = {}
        for key, value in full.items():
            if value.ndim == 2:
                q, scale = small[key], small[key + ".scale"]
                assert q.dtype.name == "int8" and int(abs(q.astype(int)).max()) == 127
                restored = q.astype("float32") * scale[:, None]
                assert (abs(restored - value) <= scale[:, None] / 2 * 1.0001).all(), key
                weights[key] = torch.from_numpy(restored)
            else:
                assert (small[key] == value).all()
                weights[key] = torch.from_numpy(small[key])
        model = FixedWindowMLP(sizes) if median["heads"] is None else AttentionLM(
            sizes, median["heads"])
        model.load_state_dict(weights)
        model.eval()
        with torch.no_grad():
            loss = F.cross_entropy(model(test_ids)["logits"].double(), targets).item()
        assert entry["test_loss"] == pytest.approx(loss, abs=1e-5)
        assert entry["test_perplexity"] == pytest.approx(math.exp(entry["test_loss"]))
