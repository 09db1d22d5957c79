"""Four asides the main line of the lesson passes by, each a slide with its picture.

- in the first head's stack, after the softmax: why the dot products are divided by
  the square root of the head width (:func:`after_step`, slide ``scale``), and the
  stable softmax, which subtracts the largest score first (slide ``stable``);
- in the PyTorch stack: what the library's attention block leaves out
  (:func:`outside_the_block`, slide ``outside``);
- in the image-patch stack: one patch flattened in grey and in colour
  (:func:`colour_patch`, drawn on the stack's ``rgb`` slide).

Each function adds its slides to the stack's :class:`~slides.lesson.kit.Section` where
the stack's builder calls it. Every number is a bound figure; a shape's size follows a
value only through :meth:`Book.value`, and names the key it draws (``draws``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from outline import STEPS
from slides.context import (
    Block,
    Bullets,
    Cell,
    Columns,
    Formula,
    Glyph,
    Item,
    Label,
    Line,
    Math,
    Para,
    Path,
    Picture,
    Rect,
    Row,
    Shape,
    Sub,
    Table,
    Text,
)
from slides.lesson import pictures
from slides.lesson.kit import Book, Prose, Section

__all__ = [
    "after_step",
    "block_map",
    "colour_patch",
    "outside_the_block",
    "paired_columns",
    "stable_columns",
]

_FONT, _SMALL = 20.0, 18.0
"""Label sizes in a picture's own units (the deck shows them no smaller than its least)."""
_CHANNELS = ("red", "green", "blue")
"""A colour pixel's channels by name, in the order they are stored."""


def _label(x: float, y: float, *glyphs: Glyph, anchor: str = "start", tone: str = "ink",
           size: float = _FONT, bold: bool = False, rotate: float = 0.0,
           fragment: int | None = None) -> Label:
    return Label(round(x, 2), round(y, 2), tuple(glyphs), anchor, tone, size, bold, rotate,
                 fragment)


def _width(glyphs: Sequence[Glyph], size: float) -> float:
    """About how wide ``glyphs`` are set at ``size``."""
    return sum(len(g.text) * size * (0.42 if isinstance(g, Sub) or getattr(g, "sup", False)
                                     else 0.58) for g in glyphs)


def _fill(value: float, tone: str) -> str:
    """A matrix entry's fill: the tone when positive, the negative tone, paper at zero."""
    return tone if value > 0 else "negative" if value < 0 else "paper"


# --------------------------------------------------------------------------- the head's softmax


def after_step(book: Book, section: Section, step: str, h: int) -> None:
    """The asides that follow a walkthrough step: after the first head's softmax, why the
    scores are scaled and the stable softmax."""
    if h != 1 or step != "softmax":
        return
    switch, switcher = book.switch(lambda s, _: _scaled(book, s, h), heads=False)
    section.add("scale", book.say("Why divide the dot products by {r}?", r=Math(r"\sqrt{d_k}")),
                [switch], _scaled_notes(book, h), switcher)
    switch, switcher = book.switch(lambda s, _: _stable(book, s, h), heads=False)
    section.add("stable", "A stable softmax subtracts the largest score first", [switch],
                _stable_notes(book, h), switcher)


def _widest_trained(book: Book) -> str:
    """The trained attention model with the widest heads (its key prefix)."""
    return f"trained.heads{min(book.ws.lesson.trained.heads)}"


def paired_columns(book: Book, s: str, h: int, fragment: int | None = None) -> Picture:
    """For every source two upright bars side by side, each as tall as a weight times
    :data:`~slides.lesson.pictures.COLUMN_HEIGHT`: the weight with the dot products divided
    by the square root of the head width (the head's colour) and without the division
    (neutral, revealed at ``fragment``); the strongest source's two weights written over
    its bars."""
    prefix, top = f"{s}.h{h}", book.top(s, h)
    step, bar, left = 84.0, 24.0, 60.0
    base = 60.0 + pictures.COLUMN_HEIGHT
    shapes: list[Shape] = []
    legend = ((pictures.head_tone(h), (Text("divided by √d"), Sub("k")), None),
              ("neutral", (Text("not divided"),), fragment))
    x = left
    for tone, name, step_shown in legend:
        shapes.append(Rect(x, 8, 22, 16, tone, role="swatch", fragment=step_shown))
        shapes.append(_label(x + 30, 23, *name, size=_SMALL, fragment=step_shown))
        x += 30 + _width(name, _SMALL) + 40
    for j in range(book.length):
        x = left + j * step
        for k, (key, tone, shown) in enumerate((
                (f"{prefix}.weights[{j}]", pictures.head_tone(h), None),
                (f"{prefix}.unscaled.weights[{j}]", "neutral", fragment))):
            height = round(float(book.value(key)) * pictures.COLUMN_HEIGHT, 2)
            bar_x = x + step / 2 - bar + k * bar
            shapes.append(Rect(bar_x, round(base - height, 2), bar, height, tone,
                               role="column", draws=key, fragment=shown))
            if j == top:
                shapes.append(_label(bar_x + (bar - 3 if k == 0 else 3), base - height - 8,
                                     book.n(key), anchor="end" if k == 0 else "start",
                                     size=_SMALL, fragment=shown))
        shapes.append(_label(x + step / 2 + 8, base + 22, book.token(s, j), anchor="end",
                             rotate=-30.0, tone="ink" if j == top else "muted",
                             bold=j == top))
    shapes.append(Line(left, base, left + step * book.length, base, "muted", 2.0,
                       role="axis"))
    return pictures.keyed(book, Picture(
        left + step * book.length + 10, base + 80,
        "For every source two bars, one as tall as its weight with the dot products divided "
        "by the square root of the head width, one as tall as its weight without the "
        "division", tuple(shapes), "short"))


def _scaled(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix, top = f"{s}.h{h}", book.top(s, h)
    trained = _widest_trained(book)
    undivided = 1
    rows = tuple(
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.dots[{j}]"),)),
            Cell((book.n(f"{prefix}.weights[{j}]"),), style="result"),
            Cell((book.n(f"{prefix}.unscaled.weights[{j}]"),), undivided),
        ), style="focus" if j == top else "")
        for j in range(book.length))
    return (Columns((
        (Table((book.say("dot"), (Math(r"\alpha_j"),), book.say("undivided")), rows,
               corner=book.say("source"), style="steps"),),
        (
            Para(book.say("Divided by {r} = {v}: “{src}” takes {w}.", r=Math(r"\sqrt{d_k}"),
                          v=book.n(f"{prefix}.scale"), src=book.token(s, top),
                          w=book.n(f"{prefix}.weights[{top}]"))),
            Para(book.say("Undivided: “{src}” takes {u}, a sharper row.",
                          src=book.token(s, top),
                          u=book.n(f"{prefix}.unscaled.weights[{top}]")), fragment=undivided),
            Para(book.say("Summing {d} products spreads a dot product {r} times as far as one; "
                          "at width {w}, {t} times, and softmax would go all-or-nothing.",
                          d=book.n("dims.d_head"),
                          r=book.n(f"{prefix}.scale"), w=book.n(f"{trained}.d_head"),
                          t=book.n(f"{trained}.scale")), fragment=2),
            paired_columns(book, s, h, fragment=undivided),
        ),
    )),)


def _scaled_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    prefix, top = f"{s}.h{h}", book.top(s, h)
    trained = _widest_trained(book)
    return (
        book.say("Point at the coloured bars: the weights we just computed, {w} for “{src}”. "
                 "Reveal the grey bars: the same dot products without the division give "
                 "“{src}” {u}, and the others less. Ask the room which row they would rather "
                 "learn from, one that still hears the other sources or one that hears a "
                 "single source.", w=book.n(f"{prefix}.weights[{top}]"),
                 src=book.token(s, top), u=book.n(f"{prefix}.unscaled.weights[{top}]")),
        book.say("Then the reason in general: a dot product sums {d} products, so its "
                 "spread grows like the square root of the width, {t} times one product's "
                 "for a trained head {w} wide. Softmax of widely spread scores is nearly "
                 "all-or-nothing and its gradients vanish; dividing by {r} undoes the "
                 "growth.", d=book.n("dims.d_head"), t=book.n(f"{trained}.scale"),
                 w=book.n(f"{trained}.d_head"), r=Math(r"\sqrt{d_k}")),
    )


def stable_columns(book: Book, s: str, h: int, fragment: int | None = None) -> Picture:
    """The weights from the shifted exponentials as upright bars in the head's colour, and
    over each a dashed outline as tall as the weight computed without the shift: every
    outline fits its bar."""
    prefix = f"{s}.h{h}"
    picture = pictures.column_bars(
        book, [(book.token(s, j),) for j in range(book.length)],
        [f"{prefix}.stable.weights[{j}]" for j in range(book.length)],
        pictures.head_tone(h), "Each source's weight from the shifted exponentials as a "
        "bar, with a dashed outline as tall as its weight from the unshifted ones",
        size="short", fragment=fragment)
    bars = [shape for shape in picture.shapes if isinstance(shape, Rect)
            and shape.role == "column"]
    outlines: list[Shape] = []
    for j, bar in enumerate(bars):
        key = f"{prefix}.weights[{j}]"
        height = round(float(book.value(key)) * pictures.COLUMN_HEIGHT, 2)
        outlines.append(Rect(bar.x, round(bar.y + bar.h - height, 2), bar.w, height, "none",
                             "ink", 2.5, dashed=True, role="column", draws=key,
                             fragment=fragment))
    return replace(picture, shapes=(*picture.shapes, *outlines))


def _stable(book: Book, s: str, h: int) -> tuple[Block, ...]:
    prefix, top = f"{s}.h{h}", book.top(s, h)
    stable = f"{prefix}.stable"
    shifted, exponentiated, weighted = 1, 2, 3
    rows = tuple(
        Row((book.token(s, j),), (
            Cell((book.n(f"{prefix}.scores[{j}]"),)),
            Cell((book.n(f"{stable}.scores[{j}]"),), shifted),
            Cell((book.n(f"{stable}.exps[{j}]"),), exponentiated),
            Cell((book.n(f"{stable}.weights[{j}]"),), weighted, "result"),
        ), style="focus" if j == top else "")
        for j in range(book.length))
    return (Columns((
        (Table((book.say("score"), (Math("s_j - m"),), (Math("e^{s_j - m}"),),
                (Math(r"\alpha_j"),)), rows, corner=book.say("source"), style="steps"),),
        (
            Formula(r"m = \max_j s_j,\qquad \alpha_j = \frac{e^{s_j - m}}{\sum_{j'} "
                    r"e^{s_{j'} - m}}"),
            Para(book.say("Largest score: {m} = {v}, from “{src}”.", m=Math("m"),
                          v=book.n(f"{stable}.max"), src=book.token(s, top))),
            Para(book.say("The exponentials, none above one, sum to {d}.",
                          d=book.n(f"{stable}.denominator")), fragment=exponentiated),
            Para(book.say("Same weights: “{src}” still takes {w}.", src=book.token(s, top),
                          w=book.n(f"{stable}.weights[{top}]")), fragment=weighted),
            stable_columns(book, s, h, fragment=weighted),
        ),
    )),)


def _stable_notes(book: Book, h: int) -> tuple[Prose, ...]:
    s = book.sentence
    prefix, top = f"{s}.h{h}", book.top(s, h)
    return (
        book.say("Libraries avoid exponentiating raw scores: a large score would overflow. "
                 "Reveal the steps: subtract the largest score, {m}, so the biggest "
                 "exponential is exactly one and their sum is {d} instead of {old}.",
                 m=book.n(f"{prefix}.stable.max"), d=book.n(f"{prefix}.stable.denominator"),
                 old=book.n(f"{prefix}.denominator")),
        book.say("Point at the bars: each dashed outline is the weight from the previous "
                 "slide, and it fits its bar exactly; “{src}” still takes {w}. Numerator and "
                 "denominator shrink by the same factor, so the weights cannot change.",
                 src=book.token(s, top), w=book.n(f"{prefix}.stable.weights[{top}]")),
    )


# --------------------------------------------------------------------------- PyTorch's block


_INSIDE = ("heads", "concat", "W_O")
"""The model map's steps that ``nn.MultiheadAttention`` computes."""


def outside_the_block(book: Book, section: Section) -> None:
    """What the library's attention block leaves out, on the model map."""
    section.add("outside", "What the attention block leaves out", [
        block_map(book, fragment=1),
        Bullets((
            Item(book.say("the embeddings: we look up the token rows and add the position "
                          "rows to make {e}, before the call", e=Math("E")), 1),
            Item(book.say("the residual: {r} is ours", r=Math(r"E' = E + \Delta E")), 2),
            Item(book.say("the prediction layers: the MLP and the next-word layer"), 3),
            Item(book.say("the training loop: loss, gradients and updates"), 4),
        )),
    ], [
        book.say("Point at the bracket: the library's block computes the heads, joins "
                 "them and applies {wo}, and nothing else. Reveal the marks: the token rows "
                 "looked up and the position rows added make {e} before the call, and the "
                 "residual adds {d} afterwards.",
                 wo=Math("W_O"), e=Math("E"), d=Math(r"\Delta E")),
        "Then the rest: the prediction MLP and the next-word layer, and the whole training "
        "loop, loss, gradients and optimiser steps, all stay in our own code. Ask the room "
        "which of these a model without position rows would get wrong.",
    ])


def block_map(book: Book, fragment: int | None = None) -> Picture:
    """The model map with the library block's steps lit and bracketed; every other step
    outlined dashed and marked outside (at ``fragment``), and the training loop, which
    the map does not hold, as a dashed band under it."""
    picture = pictures.model_map(book, _INSIDE, spans=(
        (_INSIDE[0], _INSIDE[-1], (Text("nn.MultiheadAttention"),)),))
    boxes: dict[float, Rect] = {}
    for shape in picture.shapes:
        if isinstance(shape, Rect) and shape.role in ("box", "lit"):
            boxes.setdefault(shape.x, shape)
    steps = dict(zip(STEPS, sorted(boxes), strict=True))
    marks: list[Shape] = []
    for step, x in steps.items():
        if step in _INSIDE:
            continue
        box = boxes[x]
        marks.append(Rect(box.x - 4, box.y - 4, box.w + 8, box.h + 8, "none", "muted",
                          2.5, dashed=True, role="outside", fragment=fragment))
        marks.append(_label(box.x + box.w / 2, picture.height - 14, Text("outside"),
                            anchor="middle", size=_SMALL, tone="muted", fragment=fragment))
    band = picture.height + 10
    marks.append(Rect(10, band, picture.width - 20, 44, "none", "muted", 2.5, dashed=True,
                      role="outside", fragment=fragment))
    marks.append(_label(picture.width / 2, band + 29, Text("training loop: outside too"),
                        anchor="middle", size=_SMALL, tone="muted", fragment=fragment))
    return replace(picture, height=band + 54, shapes=(*picture.shapes, *marks),
                   description="The model map with the steps of the library's attention "
                   "block bracketed, and every other step, with the training loop, marked "
                   "outside it")


# --------------------------------------------------------------------------- image patches


def colour_patch(book: Book) -> Picture:
    """One patch of the image flattened in grey (its pixels shaded by value) and in colour
    (a layer of pixels per channel, flattened channel after channel), each row labelled
    with its width; the colour row at reveal step one. At step two, the whole image with
    its patches outlined: as many rows as patches across times patches down."""
    size = int(book.value("patches.size"))
    channels = int(book.value("patches.channels"))
    grey = len(book.values.value("patches.flat[0]"))
    pixel, depth = 22.0, 12.0
    strip = max(6.0, min(18.0, 700.0 / (grey * channels)))
    patch_left, top = 30.0, 40.0
    flat_left = patch_left + size * pixel + (channels - 1) * depth + 120
    shapes: list[Shape] = []

    def arrow(y: float, fragment: int | None) -> None:
        x1, x2 = flat_left - 100, flat_left - 20
        shapes.append(Line(x1, y, x2 - 8, y, "muted", 2.0, role="arrow", fragment=fragment))
        shapes.append(Path(f"M {x2} {y} L {x2 - 10} {y - 6} L {x2 - 10} {y + 6} Z", "muted",
                           filled=True, role="arrowhead", fragment=fragment))
        shapes.append(_label((x1 + x2) / 2, y - 10, Text("flatten"), anchor="middle",
                             size=_SMALL, tone="muted", fragment=fragment))

    # grey: the first patch's pixels, shaded by value
    shapes.append(_label(patch_left, top - 14, Text("grey"), bold=True))
    for v in range(grey):
        r, c = divmod(v, size)
        entry = f"patches.flat[0][{v}]"
        opacity = round(float(book.value(entry)), 2)
        shapes.append(Rect(patch_left + c * pixel, top + r * pixel, pixel, pixel, "paper",
                           "faint", 1.0, role="pixel"))
        shapes.append(Rect(patch_left + c * pixel, top + r * pixel, pixel, pixel, "ink",
                           opacity=opacity, role="pixel-value", draws=entry))
        shapes.append(Rect(flat_left + v * strip, top + size * pixel / 2 - strip / 2, strip,
                           strip, "paper", "faint", 1.0, role="pixel"))
        shapes.append(Rect(flat_left + v * strip, top + size * pixel / 2 - strip / 2, strip,
                           strip, "ink", opacity=opacity, role="pixel-value", draws=entry))
    grey_y = top + size * pixel / 2
    arrow(grey_y, None)
    shapes.append(_label(flat_left + grey * strip + 14, grey_y + 7,
                         book.n("patches.values_per_patch"), Text(" values"), size=_FONT))
    # colour: a layer per channel, behind one another, flattened channel after channel
    colour_top = top + size * pixel + 50 + (channels - 1) * depth
    shapes.append(_label(patch_left, colour_top - 14 - (channels - 1) * depth,
                         Text("colour"), bold=True, fragment=1))
    for k in reversed(range(channels)):
        x0, y0 = patch_left + k * depth, colour_top - k * depth
        shapes.append(Rect(x0, y0, size * pixel, size * pixel, "neutral-fill", "muted", 1.5,
                           opacity=1.0 - 0.2 * k, role="channel", fragment=1))
        for r in range(1, size):
            shapes.append(Line(x0, y0 + r * pixel, x0 + size * pixel, y0 + r * pixel,
                               "faint", 1.0, role="grid", fragment=1))
            shapes.append(Line(x0 + r * pixel, y0, x0 + r * pixel, y0 + size * pixel,
                               "faint", 1.0, role="grid", fragment=1))
    colour_y = colour_top + size * pixel / 2
    arrow(colour_y, 1)
    for k in range(channels):
        left = flat_left + k * grey * strip
        shapes.append(Rect(left, colour_y - strip / 2, grey * strip, strip, "neutral-fill",
                           "muted", 1.5, role="channel", fragment=1))
        for v in range(1, grey):
            shapes.append(Line(left + v * strip, colour_y - strip / 2, left + v * strip,
                               colour_y + strip / 2, "faint", 1.0, role="grid", fragment=1))
        shapes.append(_label(left + grey * strip / 2, colour_y + strip / 2 + 24,
                             Text(_CHANNELS[k] if k < len(_CHANNELS) else "channel"),
                             anchor="middle", size=_SMALL, tone="muted", fragment=1))
    shapes.append(_label(flat_left + channels * grey * strip + 14, colour_y + 7,
                         book.n("patches.values_per_patch_rgb"), Text(" values"), size=_FONT,
                         fragment=1))
    right = flat_left + channels * grey * strip + 14 + _width(
        (book.n("patches.values_per_patch_rgb"), Text(" values")), _FONT) + 10
    # the sequence length: the whole image, its patches outlined, one row per patch
    side = int(book.value("patches.side"))
    small = 12.0
    counted = (book.n("patches.per_side"), Text(" × "), book.n("patches.per_side"), Text(" = "),
               book.n("patches.count"), Text(" rows"))
    image_left = right - max(side * small, _width(counted, _SMALL)) - 10
    shapes.append(_label(image_left, top - 14, Text("image "), book.n("patches.shape.image"),
                         bold=True, fragment=2))
    for r in range(side):
        for c in range(side):
            entry = f"patches.image[{r}][{c}]"
            shapes.append(Rect(image_left + c * small, top + r * small, small, small, "paper",
                               "faint", 1.0, role="pixel", fragment=2))
            shapes.append(Rect(image_left + c * small, top + r * small, small, small, "ink",
                               opacity=round(float(book.value(entry)), 2), role="pixel-value",
                               draws=entry, fragment=2))
    for r in range(0, side, size):
        for c in range(0, side, size):
            shapes.append(Rect(image_left + c * small, top + r * small, size * small,
                               size * small, "none", "neutral", 3.0, dashed=True,
                               role="patch", fragment=2))
    shapes.append(_label(image_left, top + side * small + 26, *counted, size=_SMALL,
                         fragment=2))
    return Picture(round(right, 2), round(colour_top + size * pixel + 44, 2),
                   "One patch of the image flattened in grey, a value per pixel, and in "
                   "colour, a layer per channel flattened channel after channel into a "
                   "row as wide as a grey row for every channel; and the whole image with "
                   "its patches outlined, one row for each", tuple(shapes), "full")
