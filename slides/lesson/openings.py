"""A stack's title slide places its part in the model before listing what it goes through.

The clips open each part with the same map and the same sentence
(:attr:`outline.Part.opening`); the slide shows the map with the part's steps lit, says the
sentence, and keeps the agenda below, so a title slide orients as its clip does.
"""

from __future__ import annotations

from dataclasses import replace

from outline import part
from slides.context import Agenda, Math, Para, Stack
from slides.lesson import pictures
from slides.lesson.kit import Book

__all__ = ["placed"]

_FORMULAS = {"W_O": Math("W_O")}
"""Names in an opening sentence that the deck writes as formulas."""


def placed(book: Book, stack: Stack) -> Stack:
    """``stack`` with its title slide opening on the model map and its part's sentence.

    A stack whose first slide is not a generated title slide (an agenda) is unchanged.
    """
    first = stack.slides[0] if stack.slides else None
    if first is None or first.role != "title" or not any(
            isinstance(block, Agenda) for block in first.blocks):
        return stack
    lesson_part = part(stack.part)
    lead: list = [pictures.model_map(book, lesson_part.steps, head=stack.head)]
    if lesson_part.opening:
        template = lesson_part.opening
        for name in _FORMULAS:
            template = template.replace(name, "{" + name + "}")
        lead.append(Para(book.say(template, **_FORMULAS), style="lead"))
    notes = (*first.notes[:-1], (*first.notes[-1], *book.say(
        " The map shows where this part sits in the model: the lit boxes are its steps.")))
    opened = replace(first, blocks=(*lead, *first.blocks), notes=notes)
    return replace(stack, slides=(opened, *stack.slides[1:]))
