"""A stack's title slide places its part in the model before listing what it goes through.

The clips open each part with the same map and the same sentence
(:attr:`outline.Part.opening`); the slide shows the map with the part's steps lit, says the
sentence, and keeps the agenda below, so a title slide orients as its clip does.
"""

from __future__ import annotations

from dataclasses import replace

from outline import part
from slides.context import Agenda, Math, Para, Stack, Text
from slides.lesson import pictures
from slides.lesson.kit import Book

__all__ = ["CHANGES", "OWN_OPENINGS", "PLAIN_HEADS", "placed"]

_FORMULAS = {"W_O": Math("W_O")}
"""Names in an opening sentence that the deck writes as formulas."""

OWN_OPENINGS: dict[str, tuple[tuple[str, ...], str]] = {
    # one loss trains every step that has parameters
    "lab-training": (("embeddings", "heads", "W_O", "MLP", "prediction"),
                     "The same model in code, now learning: a loss on the observed next words, "
                     "one optimizer step, then generation one token at a time."),
    # the whole model lit: the PyTorch stack lit the layer alone, this stack checks it all
    "lab-library": (("embeddings", "heads", "concat", "W_O", "residual", "MLP", "prediction"),
                    "We swap PyTorch's layer into our batch model; the rest of the model "
                    "stays the same, and we check the whole model's output. Then a look at "
                    "what comes next."),
}
"""The steps and sentence of a stack that shares its part with others but covers other
ground (the lab's later stacks); every other stack opens as its part does."""

PLAIN_HEADS = frozenset({"trained", "patches"})
"""Stacks about models other than the worksheet's (the trained ones, an image model): their
map numbers the heads instead of naming the worksheet's roles."""

CHANGES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "lab-library": (("heads", "W_O", "PyTorch's layer, swapped in"),
                    ("embeddings", "prediction", "our model around it, unchanged")),
    "patches": (("embeddings", "embeddings", "patches + one extra row"),
                ("heads", "heads", "no mask"),
                ("prediction", "prediction", "a class instead")),
}
"""What a stack changes in the model, written under the map's boxes as
``(first step, last step, what changes)``."""


def placed(book: Book, stack: Stack) -> Stack:
    """``stack`` with its title slide opening on the model map and its part's sentence.

    A stack whose first slide is not a generated title slide (an agenda) is unchanged.
    """
    first = stack.slides[0] if stack.slides else None
    if first is None or first.role != "title" or not any(
            isinstance(block, Agenda) for block in first.blocks):
        return stack
    lesson_part = part(stack.part)
    steps, opening = OWN_OPENINGS.get(stack.id, (lesson_part.steps, lesson_part.opening))
    spans = tuple((first, last, (Text(change),))
                  for first, last, change in CHANGES.get(stack.id, ()))
    lead: list = [pictures.model_map(book, steps, head=stack.head, spans=spans,
                                     plain=stack.id in PLAIN_HEADS)]
    if opening:
        template = opening
        for name in _FORMULAS:
            template = template.replace(name, "{" + name + "}")
        lead.append(Para(book.say(template, **_FORMULAS), style="lead"))
    notes = (*first.notes[:-1], (*first.notes[-1], *book.say(
        " The map shows where this part sits in the model: the lit boxes are its steps.")))
    opened = replace(first, blocks=(*lead, *first.blocks), notes=notes)
    return replace(stack, slides=(opened, *stack.slides[1:]))
