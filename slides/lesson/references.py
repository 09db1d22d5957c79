"""The closing references slide: where the formula, the claim about heads and the way of
drawing come from.

The works are the ones the lesson itself cites (its seed documents): the formula is
Vaswani et al.'s §3.2.2, the caution that heads overlap and can be pruned is Voita et
al.'s, the pictures follow 3Blue1Brown's attention lesson and Jay Alammar's Illustrated
Transformer, and the library layer is PyTorch's ``nn.MultiheadAttention``; the trained
comparison's corpus (the fortunes collection) is named beside the stories it replaces
(TinyStories), and the image patches follow the Vision Transformer. A work's name
may hold a year or a section number, so it is a :class:`~slides.context.Cite`, the one
kind of deck prose allowed digits.
"""

from __future__ import annotations

from dataclasses import dataclass

from slides.context import Bullets, Cite, Item, Math, Para, Stack, Text
from slides.lesson.kit import Book, Section

__all__ = ["REFERENCES", "Reference", "references"]


@dataclass(frozen=True)
class Reference:
    """One cited work and what the lesson takes from it."""

    work: str
    used_for: str


REFERENCES = (
    Reference("Vaswani et al. (2017), Attention Is All You Need, NeurIPS, §3.2.2 Multi-Head "
              "Attention", "the formula: the heads, their concatenation and "),
    Reference("Voita et al. (2019), Analyzing Multi-Head Self-Attention, ACL",
              "heads overlap, and some can be pruned"),
    Reference("3Blue1Brown (Grant Sanderson), the attention lesson of the Deep Learning "
              "series", "operands kept in view, a weight drawn as a length"),
    Reference("Jay Alammar, The Illustrated Transformer", "one step per picture"),
    Reference("PyTorch, torch.nn.MultiheadAttention (documentation)", "the lab's library "
              "layer"),
    Reference("Eldan and Li (2023), TinyStories, arXiv", "children's stories often used "
              "for small models like ours; not our corpus"),
    Reference("Debian's fortunes collection (quotations, jokes and sayings)",
              "our trained models' corpus"),
    Reference("Dosovitskiy et al. (2021), An Image is Worth 16x16 Words, ICLR",
              "patches and the CLS row"),
)
"""The works cited, in the order the slide lists them."""


def references(book: Book) -> list[Stack]:
    """A stack of one slide, the references, which is its own title."""
    section = Section("references", "references", "References")
    items = []
    for reference in REFERENCES:
        used = (Text(reference.used_for), Math("W_O"), Text(".")) \
            if reference.used_for.endswith("and ") else (Text(reference.used_for + "."),)
        items.append(Item((Cite(reference.work), Text(" — "), *used)))
    section.add("title", "References", [
        Bullets(tuple(items)),
        Para(book.say("The example, its numbers and its pictures are this lesson's own."),
             style="source"),
    ], [
        book.say("Close on where the pieces come from: the formula for the heads, their "
                 "concatenation and {wo} is from Vaswani and colleagues. When someone asks "
                 "whether each head has a clean job, point at Voita and colleagues: some "
                 "heads specialise, others overlap and can be pruned.", wo=Math("W_O")),
        (Text("The pictures borrow their habits from "), Cite("3Blue1Brown"),
         Text("'s attention lesson and Jay Alammar's Illustrated Transformer; the river-bank "
              "example and every number are ours.")),
    ])
    return [section.stack()]
