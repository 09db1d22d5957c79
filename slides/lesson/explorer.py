"""The worksheet's own model live in the deck: one slide where the student builds a sentence.

The slide closes the "other context" stack: after the worksheet's sentences side by side,
the student makes sentences of their own from the vocabulary (changing any word, adding
one, removing the last, or starting again from one of the worksheet's sentences) and
sees, for the last word, each head's query, key and value, its weights over the sentence,
its message, the update and the predicted word.

The slide opens on the walkthrough's sentence with its figures already in the page, bound
figures of the values like any other slide's (:class:`OpenedExplorer`), so it reads before
any script runs and in print. Every sentence the student makes is computed by the browser
with the worksheet's parameters (``static/explorer.js``, from the graph
:mod:`slides.explorer` writes beside the deck) and formatted in the style the lecture gives
the same quantity (``static/format.js``).
"""

from __future__ import annotations

from dataclasses import dataclass

from slides.context import Explorer, Math, Num, Runs, Slot, Start, Text, Word
from slides.explorer import EXPLORER_SCRIPTS
from slides.lesson.kit import Book, Section

__all__ = ["OpenedExplorer", "add_explorer_slide", "explorer_block"]

MESSAGES = (
    ("loading", "Loading the model into this browser…"),
    ("ready", ""),
    ("full", "The context is full."),
    ("failed", "The model could not run in this browser."),
)
"""What the slide's script says while it works, by name (no figure: it says no number)."""

QUANTITIES = (("q", "Q"), ("k", "K"), ("v", "V"), ("weights", "weights"),
              ("message", "message"))
"""Each head's quantity the slide shows, and the value key whose style it takes."""


def _styles(book: Book) -> tuple[tuple[str, str], ...]:
    """The display style of each quantity shown: the lecture's for the same quantity."""
    s = book.sentence
    styles = [(name, str(book.values[f"{s}.h1.{key}"].style)) for name, key in QUANTITIES]
    styles += [("delta", str(book.values[f"{s}.delta"].style)),
               ("probability", str(book.values[f"{s}.probs"].style))]
    return tuple(styles)


@dataclass(frozen=True)
class OpenedExplorer(Explorer):
    """The explorer with its first sentence's figures in the page: the walkthrough
    sentence's words, each head's weights over them (with each weight's exact value, the
    length of its bar), each head's query, key, value and message at the last word, the
    update and the prediction, each figure bound to its key. The script replaces them
    once the student changes the sentence."""

    opened: str = ""
    """The name of the sentence the page opens on."""
    words: tuple[Word, ...] = ()
    """The first sentence's words as its menus show them (vocabulary words)."""
    weights: tuple[tuple[tuple[Num, float], ...], ...] = ()
    """Per head, per word: the weight shown and its value (the bar's length)."""
    vectors: tuple[tuple[tuple[Num, ...], ...], ...] = ()
    """Per head: its query, key, value and message at the last word, in :data:`VECTORS`
    order."""
    delta: tuple[Num, ...] = ()
    word: Word | None = None
    probability: Num | None = None


VECTORS = (("q", "Q[{last}]"), ("k", "K[{last}]"), ("v", "V[{last}]"), ("message", "message"))
"""The explorer's name for each vector shown and its value key under a head's prefix."""


def _entries(book: Book, key: str) -> tuple[Num, ...]:
    return tuple(book.n(f"{key}[{c}]") for c in range(len(book.values.value(key))))


def explorer_block(book: Book) -> OpenedExplorer:
    """The explorer's block for the worksheet, opened on the walkthrough's sentence."""
    ws = book.ws
    s, last = book.sentence, book.last
    predicted = int(book.value(f"{s}.prediction"))
    return OpenedExplorer(
        vocab=ws.vocab,
        starts=tuple(Start(name, ws.ids(name)) for name in book.sentences),
        context=ws.context,
        heads=tuple((book.head(h),) for h in book.heads),
        styles=_styles(book),
        start_label=book.say("Start from"),
        add_label=book.say("Add a word"),
        pick_label="choose…",
        remove_label=book.say("Remove the last word"),
        word_label="A word of the sentence: choose another",
        weights_label=book.say("weights"),
        weights_description="The sentence, one column per word, each word a menu to "
                            "change it; under it, one row per head in the head's colour: "
                            "the weight the last word gives that word, as a number and as "
                            "a bar as long as the weight",
        columns=(book.say("query {q}", q=Math("q")), book.say("key {k}", k=Math("k")),
                 book.say("value {v}", v=Math("v")), book.say("message")),
        update=book.say("The last word's update {d}: {delta}", d=Math(r"\Delta E"),
                        delta=Slot("delta")),
        prediction=book.say("Most likely next word: {w}, with probability {p}",
                            w=Slot("word"), p=Slot("probability")),
        note=book.say("computed live in your browser"),
        scripts=EXPLORER_SCRIPTS,
        messages=MESSAGES,
        opened=s,
        words=tuple(Word(ws.vocab[i]) for i in ws.ids(s)),
        weights=tuple(tuple((book.n(f"{s}.h{h}.weights[{j}]"),
                             float(book.value(f"{s}.h{h}.weights[{j}]")))
                            for j in range(book.length)) for h in book.heads),
        vectors=tuple(tuple(_entries(book, f"{s}.h{h}." + key.format(last=last))
                            for _, key in VECTORS) for h in book.heads),
        delta=_entries(book, f"{s}.delta[{last}]"),
        word=book.vocab(f"{s}.prediction"),
        probability=book.n(f"{s}.probs[{predicted}]"),
    )


def _sentences(book: Book) -> Runs:
    """The worksheet's sentences by name: ``river``, ``river and cheque``…"""
    names = [Word(name) for name in book.sentences]
    runs: list[Text | Word] = []
    for i, name in enumerate(names):
        if i:
            runs.append(Text(" and " if i == len(names) - 1 else ", "))
        runs.append(name)
    return tuple(runs)


def add_explorer_slide(book: Book, section: Section) -> None:
    """Append the explorer to the stack of other contexts."""
    first = book.sentence
    others = [name for name in book.sentences if name != first]
    section.add("explorer", "Try your own sentence", [explorer_block(book)], [
        book.say("The slide opens on {s} with the walkthrough's own figures, written into "
                 "the page; once the model has loaded, this browser computes them again, and "
                 "every change after that, from the worksheet's own numbers: the same "
                 "embeddings, head projections, {wo} and prediction layers as every other "
                 "slide. The buttons start again from {all}.",
                 wo=Math("W_O"), s=Word(first), all=_sentences(book)),
        book.say("Each word of the sentence is a menu: change one and watch every head's "
                 "weights, its message, the update {d} and the prediction follow. Ask the "
                 "room to guess first which head will move when one word changes"
                 + ("; then press {a} and {b} in turn and compare." if others else "."),
                 d=Math(r"\Delta E"),
                 **({"a": Word(first), "b": Word(others[0])} if others else {})),
        book.say("Add a word at the end and the last word changes, so the query changes; "
                 "remove it and the old numbers come back. The sentence holds at most {n} "
                 "words, the worksheet's context. The badge marks the figures as live: the "
                 "lecture's checks prove every printed figure, not what a browser computes. "
                 "This is an arithmetic explorer on hand-chosen numbers, not a trained "
                 "language model.", n=book.n("dims.context")),
    ])
