"""The experiment's corpus: stories read, checked, split by document and tokenized.

A corpus is a UTF-8 text file, or a folder of ``.txt`` files (read in sorted order), of
short stories. A file holding ``<|endoftext|>`` (the TinyStories format) is cut at that
marker; any other file at blank lines. Each story goes to a split by a stable hash of its
text, so a story's split never depends on the order of the files or on the other
stories, and repeated stories land in the same split (no test story is also trained on).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from worksheet.errors import ExperimentError

__all__ = ["END_OF_TEXT", "MIN_DOCUMENTS", "SPLITS", "Corpus", "encode_split", "read_corpus",
           "split_of", "train_tokenizer"]

END_OF_TEXT = "<|endoftext|>"
"""The story separator of TinyStories; also the tokenizer's one special token (id 0)."""
SPLITS = ("train", "validation", "test")
_BOUNDS = (0.90, 0.95)
"""A story whose hash fraction is below 0.90 trains, below 0.95 validates, else tests."""
MIN_DOCUMENTS = 20
"""Fewer stories than this is not a corpus to compare models on."""
_EXPECTED = f"stories separated by blank lines or {END_OF_TEXT}"
_BLANK_LINES = re.compile(r"\n[ \t]*\n")


def split_of(document: str) -> str:
    """The split a story belongs to: the first 8 bytes of the sha256 of its UTF-8 text,
    as a fraction of 2⁶⁴, against the bounds 0.90 and 0.95."""
    fraction = int.from_bytes(hashlib.sha256(document.encode("utf-8")).digest()[:8],
                              "big") / 2**64
    return next((name for name, bound in zip(SPLITS, _BOUNDS, strict=False)
                 if fraction < bound), SPLITS[-1])


@dataclass(frozen=True)
class Corpus:
    """A checked corpus: its stories by split, in reading order, and a digest of them."""

    source: str
    splits: dict[str, tuple[str, ...]]
    sha256: str

    @property
    def documents(self) -> int:
        return sum(len(docs) for docs in self.splits.values())


def _files(path: Path) -> list[Path]:
    if not path.exists():
        raise ExperimentError(f"{path}: not found; expected a text file or a folder of .txt "
                              f"files of {_EXPECTED}")
    if path.is_file():
        return [path]
    files = sorted(p for p in path.rglob("*.txt") if p.is_file())
    if not files:
        raise ExperimentError(f"{path}: no .txt files in this folder; expected .txt files "
                              f"of {_EXPECTED}")
    return files


def _text(file: Path) -> str:
    data = file.read_bytes()
    if b"\x00" in data:
        raise ExperimentError(f"{file}: binary data (a NUL byte at offset {data.index(0)}); "
                              f"expected UTF-8 text of {_EXPECTED}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ExperimentError(f"{file}: not UTF-8 text (byte 0x{data[error.start]:02x} at "
                              f"offset {error.start}); expected UTF-8 text of "
                              f"{_EXPECTED}") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _stories(text: str) -> list[str]:
    parts = text.split(END_OF_TEXT) if END_OF_TEXT in text else _BLANK_LINES.split(text)
    return [story for story in (part.strip() for part in parts) if story]


def read_corpus(path: Path) -> Corpus:
    """Read, check and split a corpus.

    Raises
    ------
    ExperimentError
        One line naming the file and what is wrong: missing, not text, empty, too few
        stories, or a split left without a story.
    """
    documents: list[str] = []
    for file in _files(path):
        documents += _stories(_text(file))
    if not documents:
        raise ExperimentError(f"{path}: empty (no stories); expected {_EXPECTED}")
    if len(documents) < MIN_DOCUMENTS:
        found = f"{len(documents)} stor{'y' if len(documents) == 1 else 'ies'}"
        raise ExperimentError(f"{path}: {found}; expected at least {MIN_DOCUMENTS} {_EXPECTED}")
    splits: dict[str, list[str]] = {name: [] for name in SPLITS}
    digest = hashlib.sha256()
    for document in documents:
        splits[split_of(document)].append(document)
        digest.update(document.encode("utf-8") + b"\x00")
    for name, docs in splits.items():
        if not docs:
            raise ExperimentError(f"{path}: no story fell into the {name} split "
                                  f"({len(documents)} stories, about 5% go to validation and "
                                  f"5% to test); expected more {_EXPECTED}")
    return Corpus(str(path), {name: tuple(docs) for name, docs in splits.items()},
                  digest.hexdigest())


def train_tokenizer(documents: Iterable[str], vocab: int) -> object:
    """A byte-level BPE of at most ``vocab`` tokens, ``<|endoftext|>`` first (id 0).

    Every byte is in the alphabet, so any text can be encoded; a corpus too small to
    learn ``vocab - 257`` merges gives a smaller vocabulary (``get_vocab_size()``).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=[END_OF_TEXT],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tokenizer.train_from_iterator(documents, trainer=trainer)
    return tokenizer


def encode_split(tokenizer: object, documents: Sequence[str], chunk: int = 1024) -> np.ndarray:
    """One token stream for a split: ``<|endoftext|>`` before every story, as int32."""
    end = tokenizer.token_to_id(END_OF_TEXT)  # type: ignore[attr-defined]
    pieces: list[np.ndarray] = []
    for start in range(0, len(documents), chunk):
        for encoding in tokenizer.encode_batch(documents[start:start + chunk]):  # type: ignore[attr-defined]
            pieces.append(np.array([end, *encoding.ids], dtype=np.int32))
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
