"""What the live slides run, written beside the deck so that it works from disk, offline.

A browser opened on ``index.html`` from disk may load classic scripts (``<script src>``)
but may neither ``fetch`` a file nor import a module from it. So everything a live slide
needs is a classic script that sets one global. The runtime, shared by the trained
models' slide and the worksheet explorer (:mod:`slides.explorer`), is in every deck
(:data:`RUNTIME_SCRIPTS`, :func:`write_runtime`):

``lib/onnxruntime-web/ort.wasm.min.js``
    ONNX Runtime Web's WebAssembly build, as published (the global ``ort``);
``lib/onnxruntime-web/ort-wasm-glue.js``
    the Emscripten glue the runtime imports, as a string (``LIVE_GLUE``): the slide
    imports it from a ``blob:`` URL, which a page from disk may;
``lib/onnxruntime-web/ort-wasm-binary.js``
    the WebAssembly binary in base64 (``LIVE_WASM``), handed to the runtime as bytes.

A deck whose experiment ships its models also holds (:func:`write_live`):

``lib/tokenizers/tokenizers.js``
    the tokenizers' CommonJS build wrapped to set ``LiveTokenizers``, and its licence;
``live/tokenizer.js``
    the experiment's ``tokenizer.json`` (``LIVE_TOKENIZER``);
``live/models.js``
    the window, the end-of-text id, the rules of what the slide shows (how many tokens a
    model writes, how a continuation and a token's label are cut: those
    :mod:`worksheet.live` works the slide's opening example by), the example prompts and
    each model's ONNX graph in base64, exported again from its shipped checkpoint and held
    to the sha256 the experiment records (``LIVE_MODELS``).

The slide (``static/live.js``, through ``static/runtime.js``) loads them in that order
(:data:`LIVE_SCRIPTS`) when it is first shown, so a deck opens as fast with them as
without.
"""

from __future__ import annotations

import json
from base64 import b64encode
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from outputs.files import write_text
from slides.assets import DeckError, Runtime, live_runtime
from worksheet.errors import ExperimentError
from worksheet.live import BLANK_LABEL, LABEL_CHARACTERS, MOST_TOKENS
from worksheet.results import FILE, SHOWN_CHARACTERS, UNPRINTABLE, model_name

__all__ = ["END_OF_TEXT", "LIVE_SCRIPTS", "MOST_TOKENS", "RUNTIME_SCRIPTS", "LiveData",
           "classic_script", "live_data", "write_live", "write_runtime"]

END_OF_TEXT = "<|endoftext|>"

ORT_SCRIPT = "lib/onnxruntime-web/ort.wasm.min.js"
ORT_GLUE = "lib/onnxruntime-web/ort-wasm-glue.js"
ORT_WASM = "lib/onnxruntime-web/ort-wasm-binary.js"
TOKENIZERS = "lib/tokenizers/tokenizers.js"
TOKENIZERS_LICENCE = "lib/tokenizers/LICENSE"
TOKENIZER = "live/tokenizer.js"
MODELS = "live/models.js"
RUNTIME_SCRIPTS = (ORT_SCRIPT, ORT_GLUE, ORT_WASM)
"""ONNX Runtime Web's scripts, in the order a slide loads them (paths inside the deck
folder)."""
LIVE_SCRIPTS = (*RUNTIME_SCRIPTS, TOKENIZERS, TOKENIZER, MODELS)
"""The live slide's scripts, in the order it loads them."""


@dataclass(frozen=True)
class LiveData:
    """An experiment's shipped models, ready to write beside a deck."""

    folder: Path
    document: dict[str, Any]
    tokenizer: bytes
    """``tokenizer.json`` as shipped."""
    graphs: dict[str, bytes]
    """Each model's ONNX graph, by its name in the experiment."""

    @property
    def end(self) -> int:
        """The id of ``<|endoftext|>``: where a text ends, and the pad of a short window."""
        special = (self.document.get("tokenizer") or {}).get("special") or {}
        if END_OF_TEXT in special:
            return int(special[END_OF_TEXT])
        added = json.loads(self.tokenizer).get("added_tokens") or []
        found = [token["id"] for token in added if token.get("content") == END_OF_TEXT]
        if not found:
            raise DeckError(f"{self.folder / 'tokenizer.json'}: no {END_OF_TEXT} token; "
                            "expected the tokenizer `lecture experiment` trains")
        return int(found[0])


def live_data(experiment: Path | None) -> LiveData | None:
    """The models an experiment ships (``experiment`` is its folder or its
    ``experiment.json``); ``None`` without an experiment or when it ships none (a deck
    then has no live slide).

    Raises
    ------
    DeckError
        When a shipped file is missing or differs from the experiment's record.
    """
    if experiment is None:
        return None
    experiment = Path(experiment)
    folder = experiment if experiment.is_dir() else experiment.parent
    source = folder / FILE
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise DeckError(f"{source}: cannot read the experiment ({error})") from None
    if not ((document.get("shipped") or {}).get("models")):
        return None
    from worksheet.graphs import shipped

    try:
        files = shipped(folder, document)
    except ExperimentError as error:
        raise DeckError(str(error)) from None
    return LiveData(folder, document, files.tokenizer, files.graphs)


def classic_script(name: str, value: Any) -> str:
    """A classic script setting ``window.NAME`` to ``value`` (JSON, ASCII only)."""
    return f"window.{name} = {json.dumps(value, ensure_ascii=True, separators=(',', ':'))};\n"


def _models(data: LiveData) -> dict[str, Any]:
    sizes = data.document["sizes"]
    order = ["mlp", *(f"heads{h}" for h in sizes["heads"])]
    return {
        "context": sizes["context"], "vocab": sizes["vocab"], "end": data.end,
        "most": MOST_TOKENS, "shown": SHOWN_CHARACTERS, "unprintable": UNPRINTABLE,
        "label": LABEL_CHARACTERS, "blank": BLANK_LABEL,
        "prompts": [{"kind": p["kind"], "text": p["text"]}
                    for p in data.document.get("prompts") or []],
        "models": [{"id": model, "name": model_name(model),
                    "heads": None if model == "mlp" else int(model.removeprefix("heads")),
                    "graph": b64encode(data.graphs[model]).decode("ascii")}
                   for model in order if model in data.graphs],
    }


def models_script(data: LiveData) -> str:
    """The text of the deck's :data:`MODELS` file: what ``lecture check`` compares too."""
    return classic_script("LIVE_MODELS", _models(data))


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, text)


def write_runtime(folder: Path, runtime: Runtime | None = None) -> None:
    """Write ONNX Runtime Web into the deck folder ``folder`` (:data:`RUNTIME_SCRIPTS`)."""
    runtime = live_runtime() if runtime is None else runtime
    _write(folder, _runtime_scripts(runtime.script, runtime.glue, runtime.wasm,
                                    runtime.wasm.stat().st_mtime_ns))


@cache
def _runtime_scripts(script: Path, glue: Path, wasm: Path, _stamp: int) -> dict[str, str]:
    """The runtime's three scripts, made once per process (the WebAssembly binary's base64
    is 20 MB; a deck rebuilt on every save would encode it every time)."""
    return {
        ORT_SCRIPT: script.read_text(encoding="utf-8"),
        ORT_GLUE: classic_script("LIVE_GLUE", glue.read_text(encoding="utf-8")),
        ORT_WASM: classic_script("LIVE_WASM", b64encode(wasm.read_bytes()).decode("ascii")),
    }


def write_live(folder: Path, data: LiveData, runtime: Runtime | None = None) -> None:
    """Write the live slide's tokenizers and models into the deck folder ``folder`` (the
    runtime they run on is :func:`write_runtime`'s)."""
    runtime = live_runtime() if runtime is None else runtime
    _write(folder, {
        TOKENIZERS: "(function () {\nvar module = {exports: {}}, exports = module.exports;\n"
                    + runtime.tokenizers.read_text(encoding="utf-8")
                    + "\nwindow.LiveTokenizers = module.exports;\n})();\n",
        TOKENIZERS_LICENCE: runtime.licence.read_text(encoding="utf-8"),
        TOKENIZER: classic_script("LIVE_TOKENIZER", json.loads(data.tokenizer)),
        MODELS: models_script(data),
    })
