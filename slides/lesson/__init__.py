"""The lesson as slides: one builder per lesson part, in the lecture's running order.

The parts come from :data:`outline.PARTS`, shared with the videos, so a rendered
clip lands on the stack of its part. Each builder turns a :class:`~slides.lesson.kit.Book`
into one or more stacks; the references close the deck.
"""

from __future__ import annotations

from collections.abc import Callable

from outline import PARTS
from slides.context import Stack
from slides.lesson import (
    combine,
    lab,
    layer,
    library,
    references,
    story,
    walkthrough,
)
from slides.lesson.kit import Book
from slides.lesson.openings import placed

__all__ = ["BUILDERS", "build_stacks"]

BUILDERS: dict[str, Callable[[Book], list[Stack]]] = {
    "prompt": story.prompt,
    "recall": story.recall,
    "details": story.details,
    "one-two-heads": story.one_two_heads,
    "readings": story.readings,
    "roles-shapes": layer.roles_shapes,
    "projections": layer.projections,
    "head-walkthrough": walkthrough.head_walkthrough,
    "wide-head": layer.wide_head,
    "combine": combine.combine,
    "prediction": combine.prediction,
    "other-context": combine.other_context,
    "grids": combine.grids,
    "bias": library.bias,
    "pytorch": library.pytorch,
    "trained": library.trained,
    "patches": library.patches,
    "lab": lab.lab,
}
"""Lesson part id → the builder of its stacks."""


def build_stacks(book: Book) -> tuple[Stack, ...]:
    """Every stack of the deck, part by part in lecture order, then the references; each
    stack's title slide opens on the model map (:func:`~slides.lesson.openings.placed`).

    Raises
    ------
    KeyError
        When the running order names a part that has no builder here.
    """
    parts = [part.id for part in PARTS]
    missing = [part for part in parts if part not in BUILDERS]
    if missing:
        raise KeyError(f"no slides for lesson part(s) {', '.join(missing)}")
    lesson = [placed(book, stack) for part in parts for stack in BUILDERS[part](book)]
    return (*lesson, *references.references(book))
