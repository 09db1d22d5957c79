"""Read and validate a worksheet file into a typed, read-only :class:`Worksheet`.

The file follows the seed notebook's schema (``vocab``, ``sentences``, ``tok_emb``,
``pos_emb``, ``headsLesson.projections``/``W_O``, ``W_hidden``, ``b_hidden``,
``W_vocab``, ``b_vocab``) plus a ``lesson`` object holding this project's extras.
Pydantic models declare it: a field's type and description say what it holds (its sizes
as ``{slots}``, such as ``a {d_model}×{d_head} matrix``, that an error message fills with the
figures the document states), model validators check the rules across fields. Every
problem is reported as a :class:`~worksheet.errors.WorksheetError` naming the JSON path
and what was expected; nothing else escapes :func:`load_worksheet`.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, TypeVar

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetPydanticSchema,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic import dataclasses as typed
from pydantic_core import core_schema

from worksheet import DEFAULT_WORKSHEET
from worksheet.defaults import filled_lesson
from worksheet.errors import Invalid, WorksheetError, describe, translated

__all__ = [
    "DEFAULT_WORKSHEET",
    "RESERVED_NAMES",
    "Head",
    "Lesson",
    "Patches",
    "Toy",
    "Trained",
    "Translation",
    "Worksheet",
    "load_worksheet",
    "parse_worksheet",
]


# Top-level value-key prefixes; a sentence may not share one of these names.
RESERVED_NAMES = frozenset(
    {"dims", "params", "shapes", "bias", "toy", "mha", "trained", "patches", "lab"}
)
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# The trained-comparison models are really built; this limit keeps them in memory.
_TRAINED_MAX_PARAMETERS = 50_000_000
GLOSS_LENGTH = 40
"""Longest gloss, in characters: it is set beside a predicted word on one line."""
NOTE_LENGTH = 32
"""Longest feature note, in characters: it is set on one line beside a head's table."""


# --------------------------------------------------------------------------- field types


def _frozen_array(value: list[Any]) -> np.ndarray:
    """A read-only float64 array of validated numbers; a matrix's rows must agree."""
    widths = [len(row) for row in value if isinstance(row, list)]
    usual = Counter(widths).most_common(1)[0][0] if widths else 0
    for i, width in enumerate(widths):
        if width != usual:
            raise Invalid(f"expected a row of {usual} numbers like the others, got {width}", i)
    array = np.array(value, dtype=np.float64)
    array.flags.writeable = False
    return array


def _array(nested: Any) -> GetPydanticSchema:
    """Validate as ``nested`` lists of numbers, keep as an array."""
    return GetPydanticSchema(lambda _, handler: core_schema.no_info_after_validator_function(
        _frozen_array, handler(nested)))


def _lower_and_unique(words: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    for i, word in enumerate(words):
        if word != word.lower():
            raise Invalid(f"expected a lower-case word, got {word!r}", i)
        if word in seen:
            raise Invalid(f"duplicate word {word!r} (also vocab[{seen[word]}])", i)
        seen[word] = i
    return words


def _sentence_name(name: str) -> str:
    if not _NAME.match(name) or name in RESERVED_NAMES:
        raise Invalid("expected a sentence name of letters, digits and _ starting with a "
                      f"letter, not one of {', '.join(sorted(RESERVED_NAMES))}")
    return name


Number = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-_FLOAT32_MAX,
                                le=_FLOAT32_MAX, description="a number within float32 range")]
Word = Annotated[str, StringConstraints(strict=True, pattern=r"\S"),
                 Field(description="a non-empty word")]
Count = Annotated[int, Field(strict=True, ge=1, description="a whole number ≥ 1")]
Vector = Annotated[np.ndarray, _array(Annotated[list[Number], Field(min_length=1)])]


def _matrix(width: str) -> Any:
    """A matrix type whose rows each hold ``width`` numbers: a figure, or a ``{size}`` slot
    that an error message fills in (see :func:`_sizes`)."""
    row = Annotated[list[Number], Field(min_length=1, description=f"a row of {width} numbers")]
    return Annotated[np.ndarray, _array(Annotated[list[row], Field(min_length=1)])]


def _size(limit: int) -> Any:
    return Field(strict=True, ge=1, le=limit, description=f"a whole number from 1 to {limit:,} "
                 "(the lesson builds these models to count them)")


def _shape(array: np.ndarray, shape: tuple[int | None, ...], why: str, *at: str | int) -> None:
    """Refuse ``array`` unless it has ``shape`` (``None``: any size)."""
    if any(want not in (None, got) for want, got in zip(shape, array.shape, strict=True)):
        wanted = "×".join("n" if n is None else str(n) for n in shape)
        raise Invalid(f"expected {wanted} numbers{why}, got {'×'.join(map(str, array.shape))}",
                      *at)


# --------------------------------------------------------------------------- the worksheet


@typed.dataclass(frozen=True)
class Head:
    """One attention head's projections, each ``d_model × d_head`` (row vectors: ``E @ W``)."""

    Q: _matrix("{d_head}") = Field(description="a {d_model}×{d_head} matrix")
    K: _matrix("{d_head}") = Field(description="a {d_model}×{d_head} matrix")
    V: _matrix("{d_head}") = Field(description="a {d_model}×{d_head} matrix")


@typed.dataclass(frozen=True)
class Toy:
    """The two-source illustration: value rows per source and one weight row per head."""

    sources: tuple[Word, ...] = Field(min_length=2, max_length=2, description="two source words")
    values: _matrix("2") = Field(description="a 2×2 matrix, one row of values per source")
    weights: _matrix("2") = Field(description="a 2×2 matrix, one row of weights per head")

    @model_validator(mode="after")
    def _weighs(self) -> Toy:
        _shape(self.values, (2, 2), "", "values")
        _shape(self.weights, (2, 2), "", "weights")
        for i, row in enumerate(self.weights):
            if abs(row.sum() - 1.0) > 1e-9 or (row < 0).any():
                raise Invalid("expected two non-negative weights summing to 1, got "
                              f"{row.tolist()}", "weights", i)
        for c in range(2):
            if self.values[0, c] == self.values[1, c]:
                raise Invalid(f"expected the two sources to differ in coordinate {c}, got "
                              f"{self.values[0, c]} twice", "values")
        return self


@typed.dataclass(frozen=True)
class Patches:
    """The image-patch example: a square image cut into square patches."""

    image: _matrix("{side}") = Field(description="a square matrix of pixels")
    size: int = Field(strict=True, ge=1, description="the patch side in pixels, a whole "
                      "number ≥ 1")
    projection: _matrix("{n}") = Field(description="a {size²}×{n} matrix, one row per pixel "
                                       "of a patch")
    cls: Vector = Field(description="a row of {n} numbers, as wide as the projection")
    positions: _matrix("{n}") = Field(description="a {patches+1}×{n} matrix, one row for the "
                                      "CLS row and one per patch")

    @model_validator(mode="after")
    def _fits(self) -> Patches:
        side = self.image.shape[0]
        if self.image.shape[1] != side:
            raise Invalid(f"expected a square image, got {side}×{self.image.shape[1]}", "image")
        if side % self.size:
            raise Invalid(f"expected a patch side dividing the image side {side}, got "
                          f"{self.size}", "size")
        _shape(self.projection, (self.size * self.size, None), "", "projection")
        width = self.projection.shape[1]
        _shape(self.cls, (width,), "", "cls")
        _shape(self.positions, ((side // self.size) ** 2 + 1, width),
               " (one row for the CLS row and one per patch)", "positions")
        return self


@typed.dataclass(frozen=True)
class Translation:
    """Cross-attention's example: a German sentence being translated and its English
    translation written so far, of another length; ``contracted`` is one German word and
    the English words it stands for, ``decides`` the German word the English's last word
    most needs."""

    german: tuple[Word, ...] = Field(min_length=1, description="a list of German words")
    english: tuple[Word, ...] = Field(min_length=1, description="a list of English words")
    contracted: tuple[Word, ...] = Field(min_length=2, max_length=2, description="a German "
                                         "word and the English words it stands for")
    decides: Word = Field(description="a German word of the sentence")

    @model_validator(mode="after")
    def _differs(self) -> Translation:
        if len(self.german) == len(self.english):
            raise Invalid(f"expected lengths that differ (cross-attention's grid need not be "
                          f"square), got {len(self.german)} words in both", "english")
        german, english = self.contracted
        if german not in self.german:
            raise Invalid(f"expected a word of german, got {german!r}", "contracted", 0)
        words, written = english.split(), list(self.english)
        if not any(written[i:i + len(words)] == words for i in range(len(written))):
            raise Invalid(f"expected consecutive words of english, got {english!r}",
                          "contracted", 1)
        if self.decides not in self.german:
            raise Invalid(f"expected a word of german, got {self.decides!r}", "decides")
        return self


@typed.dataclass(frozen=True)
class Trained:
    """Sizes of the trained comparison models described by the lesson."""

    vocab: int = _size(100_000)
    context: int = _size(1_024)
    width: int = _size(1_024)
    hidden: int = _size(4_096)
    heads: tuple[Count, ...] = Field(min_length=1, description="a list of head counts")

    @model_validator(mode="after")
    def _buildable(self) -> Trained:
        largest = self.context * self.width * self.hidden + \
            self.vocab * (self.width + self.hidden)
        if largest > _TRAINED_MAX_PARAMETERS:
            raise Invalid(f"expected models of at most {_TRAINED_MAX_PARAMETERS:,} parameters "
                          f"(they are built to be counted), got about {largest:,}")
        for i, h in enumerate(self.heads):
            if self.width % h:
                raise Invalid(f"expected a head count dividing the width {self.width}, got {h}",
                              "heads", i)
        return self


@dataclass(frozen=True)
class Lesson:
    """The lesson extras that are not part of the seed's model schema."""

    features: tuple[str, ...]
    feature_notes: Mapping[str, str]
    """What each named feature stands for, in plain words, by feature name (some or none)."""
    head_names: tuple[str, ...]
    targets: Mapping[str, str]
    glosses: Mapping[str, str]
    """Plain words for vocabulary words a viewer may not know, by (lower-case) word."""
    bias_offset: np.ndarray
    toy: Toy
    patches: Patches
    trained: Trained
    learning_rate: float
    seed: int
    translation: Translation


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
        and head names, feature notes, observed next words, glosses the toy's source
        words and the translation's words."""
        found = {*self.vocab, *self.sentences, *self.lesson.features, *self.lesson.head_names,
                 *self.lesson.targets.values(), *self.lesson.glosses.values(),
                 *self.lesson.feature_notes.values(), *self.lesson.toy.sources,
                 *self.lesson.translation.german, *self.lesson.translation.english}
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


# --------------------------------------------------------------------------- the file


class _HeadsLesson(BaseModel):
    projections: list[Annotated[Head, Field(description="an object with Q, K and V")]] = \
        Field(min_length=1, description="a non-empty list of heads with Q, K and V")
    W_O: _matrix("{d_model}") = Field(description="a {d_model}×{d_model} matrix")


class _Seed(BaseModel):
    """The seed notebook's schema, its fields in the order they are checked."""

    model_config = ConfigDict(json_schema_extra={"description": "a JSON object with vocab, "
                              "sentences, tok_emb, pos_emb, headsLesson and the prediction MLP"})

    vocab: Annotated[list[Word], AfterValidator(_lower_and_unique)] = Field(
        min_length=1, description="a list of lower-case words")
    tok_emb: dict[str, Annotated[Vector, Field(description="a row of {d_model} numbers (the "
                                               "model width)")]] = \
        Field(description="an object mapping each vocabulary word to its row of numbers")
    pos_emb: _matrix("{d_model}") = Field(description="a list of rows of {d_model} numbers, "
                                          "one per position")
    sentences: dict[Annotated[str, AfterValidator(_sentence_name)], Annotated[
        list[Word], Field(min_length=1, description="a non-empty list of tokens")]] = Field(
        min_length=1, description="an object of named token lists")
    headsLesson: _HeadsLesson = Field(description="an object with projections and W_O")
    W_hidden: _matrix("{hidden}") = Field(description="a {d_model}×{hidden} matrix")
    b_hidden: Vector = Field(description="a list of {hidden} numbers (the hidden size, as wide "
                             "as W_hidden)")
    W_vocab: _matrix("{vocab_size}") = Field(description="a {hidden}×{vocab_size} matrix")
    b_vocab: Vector = Field(description="a list of {vocab_size} numbers, one per vocabulary "
                            "word")
    lesson: dict[str, Any] = Field(default_factory=dict,
                                   description="an object with the lesson extras")

    @property
    def sizes(self) -> tuple[int, int, int]:
        """Model width, head width and number of heads."""
        heads = self.headsLesson.projections
        return len(self.tok_emb[self.vocab[0]]), heads[0].Q.shape[1], len(heads)

    @model_validator(mode="after")
    def _consistent(self) -> _Seed:
        known = set(self.vocab)
        for word in self.tok_emb:
            if word not in known:
                raise Invalid("not a vocabulary word; add it to vocab or remove this row",
                              "tok_emb", word)
        if self.vocab[0] not in self.tok_emb:
            raise Invalid("missing; expected a row of numbers", "tok_emb", self.vocab[0])
        (width, d_head, n_heads), vocab = self.sizes, len(self.vocab)
        why = f" (the model width, set by tok_emb.{self.vocab[0]})"
        for word in self.vocab:
            if word not in self.tok_emb:
                raise Invalid(f"missing; expected a row of {width} numbers", "tok_emb", word)
            _shape(self.tok_emb[word], (width,), why, "tok_emb", word)
        _shape(self.pos_emb, (None, width), why, "pos_emb")
        self._check_sentences(known)
        for h, head in enumerate(self.headsLesson.projections):
            for kind in "QKV":
                _shape(getattr(head, kind), (width, d_head), "", "headsLesson", "projections",
                       h, kind)
        if n_heads * d_head != width:
            raise Invalid(f"expected heads × head width = model width {width} (as "
                          f"nn.MultiheadAttention requires), got {n_heads} × {d_head} = "
                          f"{n_heads * d_head}", "headsLesson", "projections")
        _shape(self.headsLesson.W_O, (width, width), "", "headsLesson", "W_O")
        _shape(self.W_hidden, (width, None), why, "W_hidden")
        hidden = self.W_hidden.shape[1]
        _shape(self.b_hidden, (hidden,), " (the hidden size, set by W_hidden)", "b_hidden")
        _shape(self.W_vocab, (hidden, vocab), " (hidden size × vocabulary size)", "W_vocab")
        _shape(self.b_vocab, (vocab,), " (the vocabulary size)", "b_vocab")
        return self

    def _check_sentences(self, known: set[str]) -> None:
        (first, tokens), context = next(iter(self.sentences.items())), len(self.pos_emb)
        for name, words in self.sentences.items():
            for i, token in enumerate(words):
                if token.lower() not in known:
                    raise Invalid(f"token {token!r} is not in vocab (looked up as "
                                  f"{token.lower()!r})", "sentences", name, i)
            if len(words) > context:
                raise Invalid(f"expected at most {context} tokens (one per pos_emb row), got "
                              f"{len(words)}", "sentences", name)
            if len(words) != len(tokens):
                raise Invalid(f"expected {len(tokens)} tokens like sentences.{first} (the batch "
                              f"lab stacks all sentences), got {len(words)}", "sentences", name)


class _Bias(BaseModel):
    offset: Vector = Field(description="a list of {d_head} numbers (the head width)")


class _Lab(BaseModel):
    learningRate: float = Field(strict=True, gt=0, le=_FLOAT32_MAX, allow_inf_nan=False,
                                description="a positive number within float32 range")
    seed: int = Field(strict=True, ge=0, lt=2**32,
                      description=f"a whole number from 0 to {2**32 - 1} (a random seed)")


def _phrase(longest: int) -> Any:
    """Plain words without digits, at most ``longest`` characters: shown and said as written."""
    return Annotated[str, StringConstraints(
        strict=True, pattern=r"^[^0-9]*[^0-9\s][^0-9]*$", max_length=longest),
                     Field(description=f"a short phrase without digits (at most {longest} "
                                       f"characters)")]


class _LessonParts(BaseModel):
    """The ``lesson`` object as :func:`~worksheet.defaults.filled_lesson` fills it in;
    validated with the :class:`_Seed` as context."""

    model_config = ConfigDict(extra="forbid")

    features: list[Word] = Field(description="a list of {d_model} names, one per model "
                                 "coordinate")
    headNames: list[Word] = Field(description="a list of {n_heads} names, one per head")
    targets: dict[str, Annotated[str, Field(strict=True, description="a vocabulary word")]] = \
        Field(description="an object mapping each sentence to its next word")
    glosses: dict[str, _phrase(GLOSS_LENGTH)] = \
        Field(description="an object mapping vocabulary words to plain words for them")
    featureNotes: dict[str, _phrase(NOTE_LENGTH)] = \
        Field(description="an object mapping feature names to what each stands for")
    bias: _Bias = Field(description="an object with the offset")
    toy: Toy = Field(description="an object with sources, values and weights")
    patches: Patches = Field(description="an object with image, size, projection, cls and "
                             "positions")
    trained: Trained = Field(description="an object with vocab, context, width, hidden and "
                             "heads")
    lab: _Lab = Field(description="an object with learningRate and seed")
    translation: Translation = Field(description="an object with german, english, "
                                     "contracted and decides")

    @model_validator(mode="after")
    def _fits(self, info: ValidationInfo) -> _LessonParts:
        seed: _Seed = info.context["seed"]
        width, d_head, n_heads = seed.sizes
        if len(self.features) != width:
            raise Invalid(f"expected {width} feature names (one per model coordinate), got "
                          f"{len(self.features)}", "features")
        if len(self.headNames) != n_heads:
            raise Invalid(f"expected {n_heads} head names (one per head), got "
                          f"{len(self.headNames)}", "headNames")
        for name in seed.sentences if self.targets else ():
            if name not in self.targets:
                raise Invalid("missing; expected the word that follows it (name every "
                              "sentence, or none)", "targets", name)
            if self.targets[name].lower() not in seed.vocab:
                raise Invalid(f"expected a vocabulary word, got {describe(self.targets[name])}",
                              "targets", name)
        for name in self.targets:
            if name not in seed.sentences:
                raise Invalid("not a sentence name", "targets", name)
        for word in self.glosses:
            if word.lower() not in seed.vocab:
                raise Invalid("not a vocabulary word; expected a word of vocab to explain",
                              "glosses", word)
        for name in self.featureNotes:
            if name not in self.features:
                raise Invalid(f"not a feature; expected one of {', '.join(self.features)}",
                              "featureNotes", name)
        _shape(self.bias.offset, (d_head,), " (the head width)", "bias", "offset")
        return self


def _sizes(document: Any) -> dict[str, int]:
    """The sizes that the descriptions' ``{slots}`` name, as far as a raw, perhaps malformed
    ``document`` states them. Each is the length of the first of its places that holds a
    non-empty list (``d_head`` failing that ``d_model`` / heads; the patch sizes only from a
    patch side that divides the image). A size nothing states is left out, and the message
    shows the slot's name instead."""

    def at(*path: Any) -> Any:
        node = document
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    def length(*path: Any) -> int | None:
        node = at(*path)
        return len(node) if isinstance(node, list) and node else None

    def first(*found: int | None) -> int | None:
        return next((size for size in found if size), None)

    heads, patches = ("headsLesson", "projections"), ("lesson", "patches")
    d_model = first(length("tok_emb", at("vocab", 0)), length("pos_emb", 0))
    n_heads = length(*heads)
    per_head = d_model // n_heads if d_model and n_heads and d_model % n_heads == 0 else None
    side, size = length(*patches, "image"), at(*patches, "size")
    fits = isinstance(size, int) and not isinstance(size, bool) and side and size > 0 and \
        side % size == 0  # a patch side the image admits
    sizes = {
        "d_model": d_model,
        "n_heads": n_heads,
        "d_head": first(*(length(*heads, h, kind, 0) for h in range(n_heads or 0)
                          for kind in "QKV"), per_head),
        "hidden": first(length("W_hidden", 0), length("b_hidden")),
        "vocab_size": length("vocab"),
        "side": side,
        "size²": size * size if fits else None,
        "patches+1": (side // size) ** 2 + 1 if fits else None,
        "n": first(length(*patches, "projection", 0), length(*patches, "cls"),
                   length(*patches, "positions", 0)),
    }
    return {symbol: value for symbol, value in sizes.items() if value}


_Model = TypeVar("_Model", bound=BaseModel)


def _validated(model: type[_Model], data: Any, source: str, document: Any, *prefix: str,
               **context: Any) -> _Model:
    """``data`` validated as ``model``; an error is translated with the sizes ``document``
    (the whole worksheet as it stands) states."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as error:
        raise translated(error, model.model_json_schema(), prefix, source,
                         _sizes(document)) from None


def parse_worksheet(document: Any, source: str = "<worksheet>", sha256: str = "") -> Worksheet:
    """Validate a decoded JSON document and return the typed worksheet.

    Raises
    ------
    WorksheetError
        Naming the JSON path of the first problem and what was expected there.
    """
    seed = _validated(_Seed, document, source, document)
    filled = filled_lesson(seed.lesson, *seed.sizes)
    parts = _validated(_LessonParts, filled, source, {**document, "lesson": filled}, "lesson",
                       seed=seed)
    tok_emb = np.stack([seed.tok_emb[word] for word in seed.vocab])
    tok_emb.flags.writeable = False
    targets = {name: parts.targets[name].lower() for name in seed.sentences if parts.targets}
    lesson = Lesson(
        features=tuple(parts.features), head_names=tuple(parts.headNames),
        targets=MappingProxyType(targets),
        glosses=MappingProxyType({word.lower(): gloss for word, gloss in parts.glosses.items()}),
        feature_notes=MappingProxyType(dict(parts.featureNotes)),
        bias_offset=parts.bias.offset, toy=parts.toy,
        patches=parts.patches, trained=parts.trained, learning_rate=parts.lab.learningRate,
        seed=parts.lab.seed, translation=parts.translation)
    return Worksheet(
        source=source, sha256=sha256, document=MappingProxyType({**document, "lesson": filled}),
        vocab=tuple(seed.vocab), tok_emb=tok_emb, pos_emb=seed.pos_emb,
        sentences=MappingProxyType({name: tuple(words) for name, words in
                                    seed.sentences.items()}),
        heads=tuple(seed.headsLesson.projections), W_O=seed.headsLesson.W_O,
        W_hidden=seed.W_hidden, b_hidden=seed.b_hidden, W_vocab=seed.W_vocab,
        b_vocab=seed.b_vocab, lesson=lesson)


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
    except ValueError:  # an integer literal beyond Python's limit on digits
        raise WorksheetError("file", "invalid JSON (a number of more than "
                             f"{sys.get_int_max_str_digits()} digits)", source) from None
    return parse_worksheet(document, source, hashlib.sha256(data).hexdigest())
