"""Read and validate a worksheet file into a typed, read-only :class:`Worksheet`.

The file follows the seed notebook's schema (``vocab``, ``sentences``, ``tok_emb``,
``pos_emb``, ``headsLesson.projections``/``W_O``, ``W_hidden``, ``b_hidden``,
``W_vocab``, ``b_vocab``) plus a ``lesson`` object holding this project's extras.
Every problem is reported as a :class:`~worksheet.errors.WorksheetError` naming the
JSON path and what was expected; nothing else escapes :func:`load_worksheet`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from worksheet.defaults import LESSON_PARTS, filled_lesson
from worksheet.errors import WorksheetError

__all__ = [
    "DEFAULT_WORKSHEET",
    "RESERVED_NAMES",
    "Head",
    "Lesson",
    "Patches",
    "Toy",
    "Trained",
    "Worksheet",
    "load_worksheet",
    "parse_worksheet",
]

DEFAULT_WORKSHEET = Path(__file__).with_name("multihead-worksheet.json")

# Top-level value-key prefixes; a sentence may not share one of these names.
RESERVED_NAMES = frozenset(
    {"dims", "params", "shapes", "bias", "toy", "mha", "trained", "patches", "lab"}
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# The trained-comparison models are really built; these limits keep them in memory.
_TRAINED_LIMITS = {"vocab": 100_000, "context": 1_024, "width": 1_024, "hidden": 4_096}
_TRAINED_MAX_PARAMETERS = 50_000_000


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class Head:
    """One attention head's projections, each ``d_model × d_head`` (row vectors: ``E @ W``)."""

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray


@dataclass(frozen=True)
class Toy:
    """The two-source illustration: value rows per source and one weight row per head."""

    sources: tuple[str, str]
    values: np.ndarray
    weights: np.ndarray


@dataclass(frozen=True)
class Patches:
    """The image-patch example: a square image cut into square patches."""

    image: np.ndarray
    size: int
    projection: np.ndarray
    cls: np.ndarray
    positions: np.ndarray


@dataclass(frozen=True)
class Trained:
    """Sizes of the trained comparison models described by the lesson."""

    vocab: int
    context: int
    width: int
    hidden: int
    heads: tuple[int, ...]


@dataclass(frozen=True)
class Lesson:
    """The lesson extras that are not part of the seed's model schema."""

    features: tuple[str, ...]
    head_names: tuple[str, ...]
    targets: Mapping[str, str]
    bias_offset: np.ndarray
    toy: Toy
    patches: Patches
    trained: Trained
    learning_rate: float
    seed: int


@dataclass(frozen=True)
class Worksheet:
    """A validated worksheet. Arrays are read-only float64 copies of the file's numbers."""

    source: str
    sha256: str
    document: Mapping[str, Any]
    vocab: tuple[str, ...]
    sentences: Mapping[str, tuple[str, ...]]
    tok_emb: np.ndarray
    pos_emb: np.ndarray
    heads: tuple[Head, ...]
    W_O: np.ndarray
    W_hidden: np.ndarray
    b_hidden: np.ndarray
    W_vocab: np.ndarray
    b_vocab: np.ndarray
    lesson: Lesson

    @property
    def d_model(self) -> int:
        return int(self.tok_emb.shape[1])

    @property
    def d_head(self) -> int:
        return int(self.heads[0].Q.shape[1])

    @property
    def n_heads(self) -> int:
        return len(self.heads)

    @property
    def hidden(self) -> int:
        return int(self.W_hidden.shape[1])

    @property
    def context(self) -> int:
        return int(self.pos_emb.shape[0])

    @property
    def length(self) -> int:
        """Tokens per sentence (all sentences have the same length)."""
        return len(next(iter(self.sentences.values())))

    @property
    def walkthrough(self) -> str:
        """The first sentence: the worked example; the others are alternative contexts."""
        return next(iter(self.sentences))

    @property
    def words(self) -> frozenset[str]:
        """Every string the worksheet holds: vocabulary, tokens, sentence names, feature
        and head names, observed next words and the toy's source words."""
        found = {*self.vocab, *self.sentences, *self.lesson.features, *self.lesson.head_names,
                 *self.lesson.targets.values(), *self.lesson.toy.sources}
        for tokens in self.sentences.values():
            found.update(tokens)
        return frozenset(found)

    def fact(self, name: str) -> Any:
        """A fact of the worksheet by dotted name, as plain JSON data: ``"walkthrough"``,
        ``"sentences"`` (names and tokens, in order), ``"sentences.river"`` (one sentence's
        tokens), ``"lesson.toy.sources"``.

        Scenes record the facts they read, so a build knows when a worksheet edit changes
        what a scene shows (its words, names, order or sizes).

        Raises
        ------
        KeyError
            When ``name`` names no fact.
        """
        node: Any = self
        for part in name.split("."):
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif not part.startswith("_") and hasattr(node, part):
                node = getattr(node, part)
            else:
                raise KeyError(f"{name!r} is not a worksheet fact")
        if callable(node):
            raise KeyError(f"{name!r} is a method, not a worksheet fact")
        return _plain(node)

    def ids(self, sentence: str) -> tuple[int, ...]:
        """Vocabulary ids of a sentence's tokens (looked up in lower case, as the seed does)."""
        index = {word: i for i, word in enumerate(self.vocab)}
        return tuple(index[token.lower()] for token in self.sentences[sentence])


def _plain(node: Any) -> Any:
    """Worksheet data as JSON data; a mapping keeps its order as a list of pairs."""
    if isinstance(node, np.ndarray):
        return node.tolist()
    if isinstance(node, Mapping):
        return [[key, _plain(value)] for key, value in node.items()]
    if isinstance(node, (list, tuple)):
        return [_plain(item) for item in node]
    if is_dataclass(node):
        return {f.name: _plain(getattr(node, f.name)) for f in fields(node)}
    if isinstance(node, np.generic):
        return node.item()
    return node


# --------------------------------------------------------------------------- reading


def _describe(node: Any) -> str:
    if isinstance(node, bool):
        return "true" if node else "false"
    if node is None:
        return "null"
    if isinstance(node, float) and math.isnan(node):
        return "NaN"
    if isinstance(node, float) and math.isinf(node):
        return "Infinity" if node > 0 else "-Infinity"
    if isinstance(node, (int, float)):
        return repr(node)
    if isinstance(node, str):
        text = node if len(node) <= 20 else node[:17] + "..."
        return json.dumps(text)
    if isinstance(node, list):
        return f"a list of {len(node)}"
    if isinstance(node, dict):
        return "an object"
    return type(node).__name__


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _get(node: Mapping[str, Any], path: str, key: str, expected: str) -> Any:
    if key not in node:
        raise WorksheetError(_child(path, key), f"missing; expected {expected}")
    return node[key]


def _object(node: Any, path: str, expected: str = "an object") -> Mapping[str, Any]:
    if not isinstance(node, dict):
        raise WorksheetError(path or "top level", f"expected {expected}, got {_describe(node)}")
    return node


def _number(node: Any, path: str) -> float:
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        raise WorksheetError(path, f"expected a number, got {_describe(node)}")
    value = float(node)
    if not math.isfinite(value):
        raise WorksheetError(path, f"expected a finite number, got {_describe(node)}")
    if abs(value) > _FLOAT32_MAX:
        raise WorksheetError(path, f"expected a number within float32 range, got {node!r}")
    return value


def _integer(node: Any, path: str, minimum: int = 1) -> int:
    if isinstance(node, bool) or not isinstance(node, int):
        raise WorksheetError(path, f"expected a whole number ≥ {minimum}, got {_describe(node)}")
    if node < minimum:
        raise WorksheetError(path, f"expected a whole number ≥ {minimum}, got {node}")
    return node


def _size(n: int | None) -> str:
    return "n" if n is None else str(n)


def _vector(node: Any, path: str, length: int | None, why: str = "") -> np.ndarray:
    if not isinstance(node, list):
        raise WorksheetError(path, f"expected a list of {_size(length)} numbers{why}, "
                             f"got {_describe(node)}")
    if length is not None and len(node) != length:
        raise WorksheetError(path, f"expected {length} numbers{why}, got {len(node)}")
    if not node:
        raise WorksheetError(path, f"expected at least one number{why}, got an empty list")
    values = [_number(x, _child(path, i)) for i, x in enumerate(node)]
    return _frozen(np.array(values, dtype=np.float64))


def _matrix(node: Any, path: str, rows: int | None, cols: int | None,
            why: str = "") -> np.ndarray:
    shape = f"{_size(rows)}×{_size(cols)}"
    if not isinstance(node, list) or not node:
        raise WorksheetError(path, f"expected {shape} numbers (a list of rows){why}, "
                             f"got {_describe(node)}")
    if not all(isinstance(row, list) for row in node):
        bad = next(i for i, row in enumerate(node) if not isinstance(row, list))
        raise WorksheetError(_child(path, bad), f"expected a row of {_size(cols)} numbers, "
                             f"got {_describe(node[bad])}")
    widths = [len(row) for row in node]
    if len(set(widths)) > 1:
        want = cols if cols is not None else widths[0]
        bad = next(i for i, width in enumerate(widths) if width != want)
        raise WorksheetError(_child(path, bad), f"expected a row of {want} numbers{why}, "
                             f"got {widths[bad]}")
    width = widths[0]
    if (rows is not None and len(node) != rows) or (cols is not None and width != cols) \
            or width == 0:
        raise WorksheetError(path, f"expected {shape} numbers{why}, got {len(node)}×{width}")
    values = [[_number(x, _child(_child(path, i), j)) for j, x in enumerate(row)]
              for i, row in enumerate(node)]
    return _frozen(np.array(values, dtype=np.float64))


def _words(node: Any, path: str, expected: str) -> list[str]:
    if not isinstance(node, list):
        raise WorksheetError(path, f"expected {expected}, got {_describe(node)}")
    if not node:
        raise WorksheetError(path, f"expected {expected}, got an empty list")
    for i, word in enumerate(node):
        if not isinstance(word, str) or not word.strip():
            raise WorksheetError(_child(path, i), f"expected a non-empty word, got "
                                 f"{_describe(word)}")
    return list(node)


# --------------------------------------------------------------------------- sections


def _read_vocab(doc: Mapping[str, Any]) -> tuple[str, ...]:
    words = _words(_get(doc, "", "vocab", "a list of lower-case words"), "vocab",
                   "a list of lower-case words")
    seen: dict[str, int] = {}
    for i, word in enumerate(words):
        if word != word.lower():
            raise WorksheetError(f"vocab[{i}]", f"expected a lower-case word, got {word!r}")
        if word in seen:
            raise WorksheetError(f"vocab[{i}]",
                                 f"duplicate word {word!r} (also vocab[{seen[word]}])")
        seen[word] = i
    return tuple(words)


def _read_embeddings(doc: Mapping[str, Any], vocab: tuple[str, ...]) -> np.ndarray:
    table = _object(_get(doc, "", "tok_emb", "an object mapping each vocabulary word to its row"),
                    "tok_emb", "an object mapping each vocabulary word to its row")
    for word in table:
        if word not in vocab:
            raise WorksheetError(f"tok_emb.{word}", "not a vocabulary word; add it to vocab "
                                 "or remove this row")
    first = _vector(_get(table, "tok_emb", vocab[0], "a row of numbers"), f"tok_emb.{vocab[0]}",
                    None)
    width = len(first)
    why = f" (the model width, set by tok_emb.{vocab[0]})"
    rows = [first] + [
        _vector(_get(table, "tok_emb", word, f"a row of {width} numbers"), f"tok_emb.{word}",
                width, why)
        for word in vocab[1:]
    ]
    return _frozen(np.stack(rows))


def _read_sentences(doc: Mapping[str, Any], vocab: tuple[str, ...],
                    context: int) -> dict[str, tuple[str, ...]]:
    node = _object(_get(doc, "", "sentences", "an object of named token lists"), "sentences",
                   "an object of named token lists")
    if not node:
        raise WorksheetError("sentences", "expected at least one sentence, got none")
    known = set(vocab)
    sentences: dict[str, tuple[str, ...]] = {}
    length: int | None = None
    for name, tokens in node.items():
        path = f"sentences.{name}"
        if not _NAME.match(name) or name in RESERVED_NAMES:
            raise WorksheetError(path, "expected a sentence name of letters, digits and _ "
                                 "starting with a letter, not one of "
                                 f"{', '.join(sorted(RESERVED_NAMES))}")
        words = _words(tokens, path, "a non-empty list of tokens")
        for i, token in enumerate(words):
            if token.lower() not in known:
                raise WorksheetError(f"{path}[{i}]", f"token {token!r} is not in vocab "
                                     f"(looked up as {token.lower()!r})")
        if len(words) > context:
            raise WorksheetError(path, f"expected at most {context} tokens (one per pos_emb "
                                 f"row), got {len(words)}")
        if length is None:
            length = len(words)
        elif len(words) != length:
            first = next(iter(sentences))
            raise WorksheetError(path, f"expected {length} tokens like sentences.{first} "
                                 f"(the batch lab stacks all sentences), got {len(words)}")
        sentences[name] = tuple(words)
    return sentences


def _read_heads(lesson: Mapping[str, Any], width: int) -> tuple[tuple[Head, ...], np.ndarray]:
    projections = _get(lesson, "headsLesson", "projections", "a list of heads with Q, K and V")
    if not isinstance(projections, list) or not projections:
        raise WorksheetError("headsLesson.projections", "expected a non-empty list of heads "
                             f"with Q, K and V, got {_describe(projections)}")
    heads: list[Head] = []
    d_head: int | None = None
    for h, node in enumerate(projections):
        path = f"headsLesson.projections[{h}]"
        node = _object(node, path, "an object with Q, K and V")
        mats = {}
        for kind in ("Q", "K", "V"):
            mats[kind] = _matrix(_get(node, path, kind, f"a {width}×d_head matrix"),
                                 f"{path}.{kind}", width, d_head)
            d_head = mats[kind].shape[1]
        heads.append(Head(**mats))
    assert d_head is not None
    joined = len(heads) * d_head
    if joined != width:
        raise WorksheetError("headsLesson.projections",
                             f"expected heads × head width = model width {width} (as "
                             f"nn.MultiheadAttention requires), got {len(heads)} × {d_head} "
                             f"= {joined}")
    W_O = _matrix(_get(lesson, "headsLesson", "W_O", f"a {joined}×{width} matrix"),
                  "headsLesson.W_O", joined, width)
    return tuple(heads), W_O


def _read_toy(node: Any) -> Toy:
    path = "lesson.toy"
    node = _object(node, path, "an object with sources, values and weights")
    sources = _words(_get(node, path, "sources", "two source words"), f"{path}.sources",
                     "two source words")
    if len(sources) != 2:
        raise WorksheetError(f"{path}.sources", f"expected 2 source words, got {len(sources)}")
    values = _matrix(_get(node, path, "values", "a 2×2 matrix"), f"{path}.values", 2, 2)
    weights = _matrix(_get(node, path, "weights", "a 2×2 matrix"), f"{path}.weights", 2, 2)
    for i, row in enumerate(weights):
        if abs(row.sum() - 1.0) > 1e-9 or (row < 0).any():
            raise WorksheetError(f"{path}.weights[{i}]", "expected two non-negative weights "
                                 f"summing to 1, got {row.tolist()}")
    for c in range(2):
        if values[0, c] == values[1, c]:
            raise WorksheetError(f"{path}.values", f"expected the two sources to differ in "
                                 f"coordinate {c}, got {values[0, c]} twice")
    return Toy((sources[0], sources[1]), values, weights)


def _read_patches(node: Any) -> Patches:
    path = "lesson.patches"
    node = _object(node, path, "an object with image, size, projection, cls and positions")
    image = _matrix(_get(node, path, "image", "a square matrix of pixels"), f"{path}.image",
                    None, None)
    side = image.shape[0]
    if image.shape[1] != side:
        raise WorksheetError(f"{path}.image", f"expected a square image, got "
                             f"{image.shape[0]}×{image.shape[1]}")
    size = _integer(_get(node, path, "size", "the patch side in pixels"), f"{path}.size")
    if side % size:
        raise WorksheetError(f"{path}.size", f"expected a patch side dividing the image side "
                             f"{side}, got {size}")
    count = (side // size) ** 2
    projection = _matrix(_get(node, path, "projection", f"a {size * size}×n matrix"),
                         f"{path}.projection", size * size, None)
    width = projection.shape[1]
    cls = _vector(_get(node, path, "cls", f"a row of {width} numbers"), f"{path}.cls", width)
    positions = _matrix(_get(node, path, "positions", f"a {count + 1}×{width} matrix"),
                        f"{path}.positions", count + 1, width,
                        " (one row for the CLS row and one per patch)")
    return Patches(image, size, projection, cls, positions)


def _read_trained(node: Any) -> Trained:
    path = "lesson.trained"
    node = _object(node, path, "an object with vocab, context, width, hidden and heads")
    sizes = {key: _integer(_get(node, path, key, "a whole number"), f"{path}.{key}")
             for key in ("vocab", "context", "width", "hidden")}
    for key, value in sizes.items():
        if value > _TRAINED_LIMITS[key]:
            raise WorksheetError(f"{path}.{key}", f"expected at most {_TRAINED_LIMITS[key]:,} "
                                 f"(the lesson builds these models to count them), got {value:,}")
    largest = sizes["context"] * sizes["width"] * sizes["hidden"] + \
        sizes["vocab"] * (sizes["width"] + sizes["hidden"])
    if largest > _TRAINED_MAX_PARAMETERS:
        raise WorksheetError(path, f"expected models of at most {_TRAINED_MAX_PARAMETERS:,} "
                             f"parameters (they are built to be counted), got about {largest:,}")
    heads = _get(node, path, "heads", "a list of head counts")
    if not isinstance(heads, list) or not heads:
        raise WorksheetError(f"{path}.heads", f"expected a list of head counts, got "
                             f"{_describe(heads)}")
    counts = tuple(_integer(h, f"{path}.heads[{i}]") for i, h in enumerate(heads))
    for i, h in enumerate(counts):
        if sizes["width"] % h:
            raise WorksheetError(f"{path}.heads[{i}]", f"expected a head count dividing the "
                                 f"width {sizes['width']}, got {h}")
    return Trained(heads=counts, **sizes)


def _read_lesson(node: Mapping[str, Any], width: int, d_head: int, n_heads: int,
                 vocab: tuple[str, ...], sentences: Mapping[str, Any]) -> Lesson:
    """Read a filled ``lesson`` object (see :func:`~worksheet.defaults.filled_lesson`)."""
    for key in node:
        if key not in LESSON_PARTS:
            raise WorksheetError(f"lesson.{key}", f"not a lesson part; expected one of "
                                 f"{', '.join(LESSON_PARTS)}")
    features = _words(node["features"], "lesson.features", f"{width} feature names")
    if len(features) != width:
        raise WorksheetError("lesson.features", f"expected {width} feature names (one per "
                             f"model coordinate), got {len(features)}")
    names = _words(node["headNames"], "lesson.headNames", f"{n_heads} head names")
    if len(names) != n_heads:
        raise WorksheetError("lesson.headNames", f"expected {n_heads} head names (one per "
                             f"head), got {len(names)}")
    targets_node = _object(node["targets"], "lesson.targets",
                           "an object mapping each sentence to its next word")
    targets: dict[str, str] = {}
    for name in sentences if targets_node else ():
        word = _get(targets_node, "lesson.targets", name, "the word that follows it (name "
                    "every sentence, or none)")
        if not isinstance(word, str) or word.lower() not in vocab:
            raise WorksheetError(f"lesson.targets.{name}", f"expected a vocabulary word, got "
                                 f"{_describe(word)}")
        targets[name] = word.lower()
    for name in targets_node:
        if name not in sentences:
            raise WorksheetError(f"lesson.targets.{name}", "not a sentence name")
    bias = _object(node["bias"], "lesson.bias", "an object with the offset")
    offset = _vector(_get(bias, "lesson.bias", "offset", f"{d_head} numbers"),
                     "lesson.bias.offset", d_head, " (the head width)")
    lab = _object(node["lab"], "lesson.lab", "an object with learningRate and seed")
    rate = _number(_get(lab, "lesson.lab", "learningRate", "a positive number"),
                   "lesson.lab.learningRate")
    if rate <= 0:
        raise WorksheetError("lesson.lab.learningRate", f"expected a positive number, got {rate}")
    seed = _integer(_get(lab, "lesson.lab", "seed", "a whole number"), "lesson.lab.seed", 0)
    if seed >= 2**32:
        raise WorksheetError("lesson.lab.seed", f"expected a seed below 2**32, got {seed}")
    return Lesson(
        features=tuple(features),
        head_names=tuple(names),
        targets=MappingProxyType(targets),
        bias_offset=offset,
        toy=_read_toy(node["toy"]),
        patches=_read_patches(node["patches"]),
        trained=_read_trained(node["trained"]),
        learning_rate=rate,
        seed=seed,
    )


def parse_worksheet(document: Any, source: str = "<worksheet>", sha256: str = "") -> Worksheet:
    """Validate a decoded JSON document and return the typed worksheet.

    Raises
    ------
    WorksheetError
        Naming the JSON path of the first problem and what was expected there.
    """
    try:
        return _parse(document, source, sha256)
    except WorksheetError as error:
        raise error.with_source(source) from None


def _parse(document: Any, source: str, sha256: str) -> Worksheet:
    doc = _object(document, "", "a JSON object with vocab, sentences, tok_emb, pos_emb, "
                  "headsLesson and the prediction MLP")
    vocab = _read_vocab(doc)
    tok_emb = _read_embeddings(doc, vocab)
    width = tok_emb.shape[1]
    why = f" (the model width, set by tok_emb.{vocab[0]})"
    pos_emb = _matrix(_get(doc, "", "pos_emb", f"a list of rows of {width} numbers"), "pos_emb",
                      None, width, why)
    sentences = _read_sentences(doc, vocab, pos_emb.shape[0])
    lesson_node = _object(_get(doc, "", "headsLesson", "an object with projections and W_O"),
                          "headsLesson")
    heads, W_O = _read_heads(lesson_node, width)
    W_hidden = _matrix(_get(doc, "", "W_hidden", f"a {width}×hidden matrix"), "W_hidden",
                       width, None, why)
    hidden = W_hidden.shape[1]
    b_hidden = _vector(_get(doc, "", "b_hidden", f"{hidden} numbers"), "b_hidden", hidden,
                       " (the hidden size, set by W_hidden)")
    W_vocab = _matrix(_get(doc, "", "W_vocab", f"a {hidden}×{len(vocab)} matrix"), "W_vocab",
                      hidden, len(vocab), " (hidden size × vocabulary size)")
    b_vocab = _vector(_get(doc, "", "b_vocab", f"{len(vocab)} numbers"), "b_vocab", len(vocab),
                      " (the vocabulary size)")
    d_head, n_heads = heads[0].Q.shape[1], len(heads)
    given = _object(doc.get("lesson", {}), "lesson", "an object with the lesson extras")
    filled = filled_lesson(given, width, d_head, n_heads)
    lesson = _read_lesson(filled, width, d_head, n_heads, vocab, sentences)
    return Worksheet(
        source=source,
        sha256=sha256,
        document=MappingProxyType({**doc, "lesson": filled}),
        vocab=vocab,
        sentences=MappingProxyType(sentences),
        tok_emb=tok_emb,
        pos_emb=pos_emb,
        heads=heads,
        W_O=W_O,
        W_hidden=W_hidden,
        b_hidden=b_hidden,
        W_vocab=W_vocab,
        b_vocab=b_vocab,
        lesson=lesson,
    )


def load_worksheet(path: str | Path | None = None) -> Worksheet:
    """Read, decode and validate a worksheet file (the default worksheet when ``path`` is None).

    Raises
    ------
    WorksheetError
        For an unreadable file, malformed JSON or any schema problem; the message names
        the file and the JSON path.
    """
    file = Path(path) if path is not None else DEFAULT_WORKSHEET
    source = str(file)
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise WorksheetError("file", "not found; expected a worksheet JSON file",
                             source) from None
    except OSError as error:
        raise WorksheetError("file", f"cannot be read ({error.strerror})", source) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorksheetError("file", f"expected UTF-8 text, got an undecodable byte at "
                             f"offset {error.start}", source) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise WorksheetError(f"line {error.lineno} column {error.colno}",
                             f"invalid JSON ({error.msg})", source) from None
    except RecursionError:
        raise WorksheetError("top level", "invalid JSON (nested too deeply)", source) from None
    return parse_worksheet(document, source, hashlib.sha256(data).hexdigest())
