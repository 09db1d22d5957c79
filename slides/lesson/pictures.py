"""Diagrams drawn from the values: attention arcs, weight bars, grids, tensor blocks, the
model map and the output projection, each a :class:`~slides.context.Picture`.

Every coordinate is decided here, so the template only writes SVG elements. A shape's
size may follow a value's exact magnitude (a bar's length is its weight, an arc's width is
its attention), read with :meth:`Book.value`, and the shape names the key it draws
(``draws``), so a test can recompute it. Every number written in a picture is a bound
:class:`~slides.context.Num`. Tones name the palette in ``static/pictures.css``: a head's
colour only for that head, ``negative`` for negative values, neutral greys for the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import product

from outline import STEPS
from slides.context import (
    Block,
    Columns,
    Glyph,
    Label,
    Line,
    Num,
    Path,
    Picture,
    Rect,
    Shape,
    Sub,
    Table,
    Text,
    Word,
)
from slides.lesson.kit import Book
from slides.lesson.layout import across
from slides.lesson.room import free_spot

__all__ = [
    "ARC_WIDTH",
    "BAR_LENGTH",
    "BESIDE_MOST",
    "COLUMN_HEIGHT",
    "architecture",
    "arcs",
    "beside",
    "clue_arcs",
    "column_bars",
    "coordinate_names",
    "cross_attention",
    "dot_chart",
    "feature_names",
    "head_name",
    "head_tone",
    "heatmap",
    "heatmaps",
    "history_row",
    "join_mix",
    "key_reads",
    "keyed",
    "layer_shapes",
    "mask",
    "model_map",
    "named_vector",
    "ordinal_head",
    "ordinal_names",
    "output_projection",
    "packed_query",
    "padding_mask",
    "paired_bars",
    "parameter_bars",
    "patch_names",
    "query_key_value",
    "retoned",
    "shift",
    "signed_bars",
    "tensor_steps",
    "toy_bars",
    "weight_bars",
]

ARC_WIDTH = 26.0
"""Stroke width of an arc carrying the whole attention (weight one)."""
BAR_LENGTH = 520.0
"""Length of a bar for weight one."""
COLUMN_HEIGHT = 100.0
"""Height of an upright bar for weight one."""
_FONT = 22.0
_MIDDLE = 20.0
"""Column names over cells too narrow for :data:`_FONT`."""
_SMALL = 18.0
_SPAN = 420.0
_LEGIBLE = 4.0
"""Bars shorter than this (in a crowded picture) go without their number, which the
table beside them shows."""


BESIDE_MOST = 12
"""The most table cells across that still leave a picture room beside the tables."""


def beside(tables: Sequence[Table], picture: Picture, below: bool = False) -> tuple[Block, ...]:
    """``tables`` side by side with ``picture`` beside them when they leave room for it;
    otherwise the picture goes under them, shortened (``below``), or is left out, so a
    worksheet with wide heads still fits its slides."""
    columns = tuple((table,) for table in tables)
    if sum(across(table) for table in tables) <= BESIDE_MOST:
        return (Columns((*columns, (picture,))),)
    placed: tuple[Block, ...] = (Columns(columns),) if len(tables) > 1 else tuple(tables)
    if below:
        return (*placed, replace(picture, size="short"))
    return placed


def head_tone(h: int | None) -> str:
    """The palette tone of head ``h`` (counted from one); neutral for no head."""
    return f"head-{h}" if h is not None else "neutral"


def _r(x: float) -> float:
    return round(x, 2)


def _arrowhead(x: float, y: float, dx: float, dy: float, tone: str = "muted",
               size: float = 9.0) -> Path:
    """A filled triangle pointing along (dx, dy) with its tip at (x, y)."""
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / length, dy / length
    bx, by = x - ux * size, y - uy * size
    px, py = -uy * size * 0.55, ux * size * 0.55
    return Path(f"M {_r(x)} {_r(y)} L {_r(bx + px)} {_r(by + py)} L {_r(bx - px)} {_r(by - py)} Z",
                tone, filled=True, role="arrowhead")


def _arrow(x1: float, y1: float, x2: float, y2: float, tone: str = "muted",
           fragment: int | None = None) -> list[Shape]:
    head = _arrowhead(x2, y2, x2 - x1, y2 - y1, tone)
    return [Line(_r(x1), _r(y1), _r(x2 - (x2 - x1) * 0.0), _r(y2), tone, 2.0, role="arrow",
                 fragment=fragment),
            Path(head.d, tone, filled=True, role="arrowhead", fragment=fragment)]


def _span(glyphs: Sequence[Glyph], size: float) -> float:
    """About how wide ``glyphs`` are set at ``size`` (a sans-serif's average advance;
    subscripts and superscripts smaller), so a picture's box can hold its labels."""
    return sum(len(g.text) * size * (0.42 if isinstance(g, Sub) or getattr(g, "sup", False)
                                     else 0.58) for g in glyphs)


def _label(x: float, y: float, *glyphs: Glyph, anchor: str = "start", tone: str = "ink",
           size: float = _FONT, bold: bool = False, rotate: float = 0.0,
           fragment: int | None = None) -> Label:
    return Label(_r(x), _r(y), tuple(glyphs), anchor, tone, size, bold, rotate, fragment)


def _w_o() -> tuple[Glyph, ...]:
    return (Text("W"), Sub("O"))


# --------------------------------------------------------------------------- arcs


def _arc_lane(book: Book, prefix: str, tone: str, base: float, rise: float,
              x: Sequence[float], fragment: int | None = None,
              label_top: bool = True, clear: float = 0.0, strongest: int = 0) -> list[Shape]:
    """Arcs from every source to the receiver above the line at ``base`` (with
    ``strongest``, only that many heaviest, read from the row's ``order`` key, in ``tone``,
    the lighter ones faint); with
    ``label_top``, the strongest weight written at its source, raised when it would reach
    left of ``clear`` (where the lane's name ends)."""
    last = book.last
    shapes: list[Shape] = []
    span = max(x[last] - x[0], 1.0)
    heavy = ({int(book.value(f"{prefix}.order[{k}]")) for k in range(strongest)}
             if strongest else set(range(book.length)))
    for j in range(book.length):
        key = f"{prefix}.weights[{j}]"
        width = _r(float(book.value(key)) * ARC_WIDTH)
        if j == last:
            loop = 34.0
            d = (f"M {_r(x[j] - 8)} {_r(base - 4)} C {_r(x[j] - loop)} {_r(base - loop * 1.6)} "
                 f"{_r(x[j] + loop)} {_r(base - loop * 1.6)} {_r(x[j] + 8)} {_r(base - 4)}")
        else:
            height = rise * (0.35 + 0.65 * (x[last] - x[j]) / span)
            middle = (x[j] + x[last]) / 2
            d = (f"M {_r(x[j])} {_r(base - 4)} Q {_r(middle)} {_r(base - 2 * height)} "
                 f"{_r(x[last])} {_r(base - 4)}")
        shapes.append(Path(d, tone if j in heavy else "faint", width, role="arc", draws=key,
                           fragment=fragment))
    if label_top:
        # the strongest weight at its source's end of the arc, just left of where the arc
        # leaves the line (higher for the first source, clear of the lane's name), so it
        # reads as that source's weight and not as a token's under the arc's top
        top = int(book.value(f"{prefix}.top_source"))
        weight = book.n(f"{prefix}.weights[{top}]")
        raised = x[top] - 10 - _span((weight,), _FONT) < max(clear, x[0])
        shapes.append(_label(x[top] - 10, base - (34 if raised else 12), weight, anchor="end",
                             bold=True, fragment=fragment))
    return shapes


def _token_row(book: Book, sentence: str, x: Sequence[float], y: float,
               focus: Sequence[int] = ()) -> list[Shape]:
    shapes: list[Shape] = []
    for j in range(book.length):
        shapes.append(Rect(_r(x[j] - 5), _r(y - 10), 10, 10, "ink" if j in focus else "faint",
                           role="token"))
        shapes.append(_label(x[j], y + 18, book.token(sentence, j), anchor="end",
                             size=_SMALL, rotate=-35.0,
                             tone="ink" if j in focus else "muted", bold=j in focus))
    return shapes


def arcs(book: Book, sentence: str, lanes: Sequence[tuple[str, int | None, tuple[Glyph, ...]]],
         description: str, size: str = "full", numbers: bool = False,
         note: tuple[Glyph, ...] = (), strongest: int = 0, every_lane: bool = False,
         lane: float | None = None) -> Picture:
    """Attention arcs into the final receiver, one lane per weight row.

    ``lanes`` holds ``(prefix, head, name)``: the weights ``<prefix>.weights[j]``, the head
    whose colour they take (``None``: neutral, such as the wide head) and the lane's
    name. Each arc's stroke width is its weight times :data:`ARC_WIDTH`. ``numbers``
    writes every weight of the last lane under its source; ``note`` is written above the
    receiver. ``strongest`` colours only each lane's heaviest arcs, fewer lines to follow.
    ``every_lane`` writes the tokens under every lane, not only under the last; ``lane``
    sets a lane's height (lower: flatter arcs, less room above them).
    """
    width = 1000.0
    left, right = 150.0, 40.0
    step = (width - left - right) / max(book.length - 1, 1)
    x = [left + j * step for j in range(book.length)]
    words = 84.0 if every_lane and len(lanes) > 1 else 0.0
    lane = lane or (150.0 if len(lanes) == 1 else 100.0 if words else 108.0 if not strongest
                    else 128.0)
    top = 20.0
    shapes: list[Shape] = []
    for i, (prefix, head, name) in enumerate(lanes):
        base = top + lane * (i + 1) + words * i
        if words and i < len(lanes) - 1:  # the last lane's tokens are written below
            for j in range(book.length):
                shapes.append(_label(x[j] + 6, base + 20, book.token(sentence, j),
                                     anchor="end", size=_FONT, rotate=-35.0,
                                     bold=j == book.last,
                                     tone="ink" if j == book.last else "muted"))
        shapes.append(Line(x[0] - 10, base, x[-1] + 10, base, "faint", 1.5, role="baseline"))
        shapes.append(_label(10, base - 10, *name, tone="ink", bold=True))
        # with every weight written under its source, the last lane needs no label of its own
        shapes += _arc_lane(book, prefix, head_tone(head), base, lane * 0.42, x,
                            label_top=not (numbers and i == len(lanes) - 1),
                            clear=10 + _span(name, _FONT) * 1.1 + 8, strongest=strongest)
        for j in range(book.length):
            shapes.append(Rect(_r(x[j] - 4), _r(base - 4), 8, 8,
                               "ink" if j == book.last else "faint", role="token"))
    bottom = top + lane * len(lanes) + words * (len(lanes) - 1)
    if numbers:
        prefix = lanes[-1][0]
        for j in range(book.length):
            shapes.append(_label(x[j], bottom + 22, book.n(f"{prefix}.weights[{j}]"),
                                 anchor="middle", size=_SMALL))
        bottom += 26
    if note:
        shapes.append(_label(x[-1], top + 16, *note, anchor="end", bold=True))
    for j in range(book.length):
        shapes.append(_label(x[j] + 6, bottom + 20, book.token(sentence, j), anchor="end",
                             size=_FONT, rotate=-35.0, bold=j == book.last,
                             tone="ink" if j == book.last else "muted"))
    return Picture(width, bottom + (100 if words else 120), description, tuple(shapes), size,
                   summary=_arcs_summary(book, sentence, lanes))


def _arcs_summary(book: Book, sentence: str,
                  lanes: Sequence[tuple[str, int | None, tuple[Glyph, ...]]]) -> tuple[Glyph, ...]:
    """Each lane's weights, strongest first (in the order its ``order`` key gives), each
    after its source: what the arcs' widths show, for a reader who cannot see them."""
    glyphs: list[Glyph] = []
    for n, (prefix, _, name) in enumerate(lanes):
        glyphs += [*name, Text(": weights into the final token, strongest first: ")]
        for k in range(book.length):
            j = int(book.value(f"{prefix}.order[{k}]"))
            glyphs += [book.token(sentence, j), Text(" "), book.n(f"{prefix}.weights[{j}]"),
                       Text(", " if k < book.length - 1 else
                            "; " if n < len(lanes) - 1 else ".")]
    return tuple(glyphs)


Clue = tuple[int, str | tuple[Glyph, ...], int | None]
"""A clue of :func:`clue_arcs`: its source's index, the reading it stands for, its reveal
step (``None``: shown with the slide)."""


def clue_arcs(words: Sequence[str], clues: Sequence[Clue], description: str,
              receiver_name: str = "receiver", tones: Sequence[str] = (),
              rise: float = 0.4) -> Picture:
    """An illustration sentence as a row of tokens, its last the receiver, with an arrow
    bowing from each clue word to the receiver, and the reading it stands for named
    under its word.

    ``clues`` holds ``(source index, reading, reveal step)``; a reading is prose or glyphs
    (such as a head's name). An arc from further away rises higher, in proportion, and
    lands further right on the receiver, so no two arcs cross; names that would touch go
    on a lower line. ``receiver_name`` is written after the last token; ``tones``, one per
    clue, colour the arrows (a head's colour for a head's clue; ink without). ``rise`` is
    an arc's height for its length: lower keeps a long sentence's arcs flat.
    """
    size, gap, pad, chip_h, name_size = 26.0, 22.0, 8.0, 38.0, 20.0
    widths = [_span((Text(word),), size) + 2 * pad for word in words]
    total = sum(widths) + gap * (len(words) - 1)
    width = max(total + 60.0, 760.0)
    lefts, x = [], (width - total) / 2
    for w in widths:
        lefts.append(x)
        x += w + gap
    centres = [left + w / 2 for left, w in zip(lefts, widths, strict=True)]
    receiver = len(words) - 1
    # the clues by their source, nearest the receiver first
    nearest = sorted(range(len(clues)), key=lambda k: -clues[k][0])
    ends = [centres[receiver] + 12.0 * (rank - (len(clues) - 1) / 2)
            for rank in range(len(clues))]
    # As high as wide, in proportion: two arcs then fall at one slope, and the longer one,
    # landing further right, stays above the shorter everywhere.
    rises = [rise * (end - centres[clues[k][0]]) for end, k in zip(ends, nearest, strict=True)]
    base = 20.0 + max(rises, default=0.0)
    foot = base - 6
    shapes: list[Shape] = []
    for j, (left, w) in enumerate(zip(lefts, widths, strict=True)):
        focus = j == receiver or any(source == j for source, _, _ in clues)
        shapes.append(Rect(_r(left), _r(base), _r(w), chip_h, "paper",
                           "ink" if j == receiver else "faint", 2.5 if j == receiver else 1.5,
                           role="token"))
        shapes.append(_label(centres[j], base + 27, Text(words[j]), anchor="middle",
                             size=size, bold=focus, tone="ink" if focus else "muted"))
    shapes.append(_label(lefts[receiver] + widths[receiver] + 10, base + 27,
                         Text(receiver_name), anchor="start", size=name_size, tone="muted"))
    lines: list[list[tuple[float, float]]] = []
    lowest = base + chip_h
    for rank, k in enumerate(nearest):
        source, _, step = clues[k]
        tone = tones[k] if tones else "ink"
        start, end = centres[source], ends[rank]
        middle, height = (start + end) / 2, rises[rank]
        shapes.append(Path(f"M {_r(start)} {_r(foot)} Q {_r(middle)} {_r(foot - 2 * height)} "
                           f"{_r(end)} {_r(foot)}", tone, 3.0 if tones else 2.5, role="clue",
                           fragment=step))
        shapes.append(Path(_arrowhead(end, foot, end - middle, 2 * height).d, tone,
                           filled=True, role="arrowhead", fragment=step))
    for source, reading, step in sorted(clues, key=lambda clue: (clue[0], clue[2] or 0)):
        glyphs = (Text(reading),) if isinstance(reading, str) else reading
        half = _span(glyphs, name_size) / 2 + 6
        centre = max(centres[source], half)  # a long name under the first word stays in view
        span = (centre - half, centre + half)
        line = next((n for n, taken in enumerate(lines)
                     if all(span[1] < a or b < span[0] for a, b in taken)), len(lines))
        if line == len(lines):
            lines.append([])
        lines[line].append(span)
        y = base + chip_h + 26 + 26 * line
        lowest = max(lowest, y)
        shapes.append(_label(centre, y, *glyphs, anchor="middle",
                             size=name_size, tone="ink", bold=True, fragment=step))
    right = max(width, lefts[receiver] + widths[receiver] + 10
                + _span((Text(receiver_name),), name_size) + 20)
    return Picture(_r(right), _r(lowest + 14), description, tuple(shapes), "strip")


def query_key_value(book: Book, sentence: str, description: str,
                    steps: tuple[int, int, int, int] = (1, 2, 3, 4)) -> Picture:
    """The sentence as a row of tokens, the receiver outlined, with the three short rows
    of numbers a head makes from each token: the receiver's query under it, then a key
    and a value under every token (the receiver's own included), each row named on the
    left and revealed at its step of ``steps``; at the last step a line from the query
    drops into every key, the comparison that gives each token its weight. A schematic:
    the boxes hold no numbers; each has as many cells as a head has coordinates (four at
    most)."""
    size, gap, pad, chip_h = 24.0, 14.0, 8.0, 36.0
    cells, cell, box_h, row = min(book.head_width, 4), 14.0, 22.0, 36.0
    names = ((Text("query"),), (Text("key"),), (Text("value"),))
    left = 24.0 + max(_span(name, _MIDDLE) for name in names)
    words = [book.token(sentence, j) for j in range(book.length)]
    widths = [max(_span((word,), size) + 2 * pad, cells * cell + 12) for word in words]
    shapes: list[Shape] = []
    centres, x = [], left
    for j, (word, w) in enumerate(zip(words, widths, strict=True)):
        receiver = j == book.last
        shapes.append(Rect(_r(x), 10.0, _r(w), chip_h, "paper", "ink" if receiver else "faint",
                           2.5 if receiver else 1.5, role="token"))
        shapes.append(_label(x + w / 2, 36.0, word, anchor="middle", size=size, bold=receiver,
                             tone="ink" if receiver else "muted"))
        centres.append(x + w / 2)
        x += w + gap
    top = 10.0 + chip_h + 14.0
    for r, (name, step) in enumerate(zip(names, steps[:3], strict=True)):
        y = top + r * row
        shapes.append(_label(left - 14, y + box_h - 5, *name, anchor="end", size=_MIDDLE,
                             bold=True, fragment=step))
        owners = [book.last] if r == 0 else range(book.length)
        if r == 1:  # the query compared with every key: a line along the query's row
            middle = top + box_h / 2
            query_left = centres[book.last] - cells * cell / 2
            shapes.append(Line(_r(centres[0]), _r(middle), _r(query_left), _r(middle), "muted",
                               2.0, role="compare", fragment=steps[3]))
            for j in range(book.length):  # the receiver's own key sits under its query
                start = top + box_h if j == book.last else middle
                shapes.append(Line(_r(centres[j]), _r(start), _r(centres[j]), _r(y - 2),
                                   "muted", 2.0, role="compare", fragment=steps[3]))
        for j in owners:
            start = centres[j] - cells * cell / 2
            for c in range(cells):
                shapes.append(Rect(_r(start + c * cell), y, cell, box_h,
                                   "neutral" if r == 0 else "neutral-fill", "ink" if r == 0
                                   else "neutral", 1.0, role=("query", "key", "value")[r],
                                   fragment=step))
    return Picture(_r(x + 10), _r(top + 3 * row + 4), description, tuple(shapes), "strip")


def ordinal_names(count: int) -> list[tuple[Glyph, ...]]:
    """Coordinates named in words by their place: ``first coordinate``, ``second …``."""
    return [(Text(f"{_ORDINALS[c]} coordinate" if c < len(_ORDINALS) else "a coordinate"),)
            for c in range(count)]


def coordinate_names(book: Book, h: int, kind: str = "V") -> list[tuple[Glyph, ...]]:
    """Each coordinate of head ``h``'s keys (``kind`` ``K``) or values (``V``) named by the
    input feature its column copies (``params.hN.K_features``), or in words when the
    column mixes features."""
    by_place = ordinal_names(book.head_width)
    names: list[tuple[Glyph, ...]] = []
    for c in range(book.head_width):
        feature = int(book.value(f"params.h{h}.{kind}_features[{c}]"))
        names.append((book.feature(feature),) if feature >= 0 else by_place[c])
    return names


def toy_bars(book: Book, names: Sequence[tuple[Glyph, ...]], description: str,
             steps: Sequence[int]) -> Picture:
    """The two-source toy as bars, one lane per coordinate, on one scale: the two
    sources' values (``names``, each ending in its letter); then one head alone, whose one
    weight row mixes both coordinates (``toy.one_head``, in ink); then each of two heads,
    whose own values are one coordinate of the sources, so it sends one number
    (``toy.two_heads``): the first head's bar stands in the first lane only, the second
    head's in the second, each in its head's colour. A row is named by its weights
    (``first head: 0.8 A + 0.2 B``). ``steps`` reveals the one head, then each head."""
    letters = [name[-1].text.split()[-1] if isinstance(name[-1], Text) else "" for name in names]
    heads = len(book.values.value("toy.weights"))

    def mixed(who: str, h: int) -> tuple[Glyph, ...]:
        return (Text(f"{who}: "), book.n(f"toy.weights[{h}][0]"), Text(f" {letters[0]} + "),
                book.n(f"toy.weights[{h}][1]"), Text(f" {letters[1]}"))

    labels: list[tuple[Glyph, ...]] = [*names, mixed("one head", 0)]
    labels += [mixed(f"{_ORDINALS[h]} head", h) for h in range(heads)]
    groups = [[f"toy.values[{i}][{c}]" for c in range(2)] for i in range(2)]
    groups.append([f"toy.one_head[{c}]" for c in range(2)])
    # every head row spans both lanes so the lanes line up; the lane a head does not
    # send is removed below
    groups += [[f"toy.two_heads[{c}]" for c in range(2)] for _ in range(heads)]
    picture = signed_bars(book, labels, groups, "neutral", description, size="strip",
                          names=[(Text("first coordinate"),), (Text("second coordinate"),)],
                          fragments=[None, None, *steps[:heads + 1]],
                          row_tones=["neutral", "neutral", "ink",
                                     *(head_tone(h + 1) for h in range(heads))])
    sent = {steps[h + 1]: f"toy.two_heads[{h}]" for h in range(heads)}
    shapes = [shape for shape in picture.shapes
              if shape.fragment not in sent
              or (shape.draws if isinstance(shape, Rect) else
                  shape.key if isinstance(shape, Label) else sent[shape.fragment])
              in (None, sent[shape.fragment])]
    return replace(picture, shapes=tuple(shapes))


def layer_shapes(book: Book, description: str) -> Picture:
    """Every tensor of a head drawn to its shape (:func:`tensor_steps`), from the input
    rows to the head's messages, with what the score grid's rows and columns stand for
    written under it and the masked triangle of the score and weight grids named inside it
    (the join that follows is a picture of its own).

    A head's own tensors (its queries, scores, weights and messages) are drawn for every
    head: the first head's in front, in its colour, each further head's as a layer behind
    it in that head's colour (role ``layer``), so every head's path runs from the input to
    its messages; a legend names the heads' colours.
    """
    cell = 14.0
    names = ("E", "Q", "K", "V", "scores", "A", "H")
    keys = ("shapes.E", "shapes.Q", "shapes.K", "shapes.V", "shapes.scores", "shapes.A",
            "shapes.H")
    axes = ("TF", "Td", "Td", "Td", "TS", "TS", "Td")
    picture = tensor_steps(
        book, [(key, kind, (Text(name),), 1 if kind == "Td" else None) for key, kind, name in
               zip(keys, axes, names, strict=True)],
        [(Text("× W "), book.n("shapes.W_Q")), None, None, (Text("Q Kᵀ"),),
         (Text("softmax"),), (Text("times V"),)],
        description, size="strip", masked=True, reach=60.0, cell=cell,
        operation_size=_MIDDLE)
    where = {"".join(g.text for g in shape.glyphs): shape for shape in picture.shapes
             if isinstance(shape, Label) and shape.bold}
    n = book.length
    side = n * cell
    heads = book.ws.n_heads
    step = min(8.0, 18.0 / max(heads - 1, 1))
    layers: list[Shape] = []
    for name, columns in (("Q", book.head_width), ("K", book.head_width),
                          ("V", book.head_width), ("scores", n), ("A", n),
                          ("H", book.head_width)):
        x, y = where[name].x, where[name].y + 18
        for h in range(heads, 1, -1):  # the furthest behind first
            shift = (h - 1) * step
            layers.append(Rect(_r(x + shift), _r(y - shift), _r(columns * cell), _r(side),
                               head_tone(h), "paper", 1.0, role="layer"))
        # the front head's grid is partly see-through (its hidden cells): it stands on paper
        layers.append(Rect(_r(x), _r(y), _r(columns * cell), _r(side), "paper",
                           role="backing"))
    front = {name: (where[name].x, where[name].x + side) for name in ("scores", "A")}
    shapes = [replace(shape, fill=head_tone(1), opacity=1.0)
              if isinstance(shape, Rect) and shape.role == "block" and shape.fill == "neutral"
              and any(a <= shape.x < b for a, b in front.values()) else shape
              for shape in picture.shapes]
    notes: list[Shape] = []
    for name in ("scores", "A") if side >= 110 else ():  # only where the word fits
        x, y = where[name].x, where[name].y + 18  # a tensor's name stands over its block
        notes.append(_label(x + side * 0.7, y + side * 0.3, Text("hidden"), anchor="middle",
                            size=_SMALL, tone="ink"))
    x, bottom = where["scores"].x, where["scores"].y + 18 + side + 36
    notes.append(_label(x, bottom + 26, Text("row: a receiver"), size=_SMALL, tone="muted"))
    notes.append(_label(x, bottom + 48, Text("column: a source"), size=_SMALL, tone="muted"))
    # the legend stands right of the messages, the last tensor, level with its top
    names = [head_name(book, h) for h in book.heads]
    left = where["H"].x + book.head_width * cell + (heads - 1) * step + 24
    legend, tall = _legend([(head_tone(h), names[h - 1], None) for h in book.heads], left,
                           where["H"].y + 18)
    width = left + 36 + max(_span(name, _MIDDLE) for name in names) + 10
    return replace(picture, shapes=(*layers, *shapes, *notes, *legend),
                   width=_r(max(picture.width, width)),
                   height=_r(max(picture.height, bottom + 58, where["H"].y + 18 + tall)))


# --------------------------------------------------------------------------- bars


Legend = Sequence[tuple[str, tuple[Glyph, ...], int | None]]
"""Entries of a picture's legend: ``(tone, name, reveal step)``, one line each."""


_LEGEND_LINE = 30.0
"""The height of one line of a legend (:func:`_legend`), swatch and name."""
_LEGEND_GAP = 24.0
"""The space between two entries of a legend set in a row."""
_LEGEND_CLEAR = 20.0
"""How far a legend placed inside a picture keeps from its shapes."""
_ROW_LABELS = 74.0
"""How wide a slide's row is in heights of a picture's smallest label, when the deck
shows that label at the hall's least size: the row's 1192 px over 16 px."""


def _legend(entries: Legend, x: float, y: float,
            size: float = _MIDDLE) -> tuple[list[Shape], float]:
    """A swatch and its name (set at ``size``) per line from ``(x, y)``; returns the
    shapes and the height."""
    shapes: list[Shape] = []
    for i, (tone, name, fragment) in enumerate(entries):
        top = y + i * _LEGEND_LINE
        shapes.append(Rect(x, _r(top + 4), 26.0, 18.0, tone, role="swatch", fragment=fragment))
        shapes.append(_label(x + 36, top + 20, *name, size=size, fragment=fragment))
    return shapes, _LEGEND_LINE * len(entries) + (8.0 if entries else 0.0)


def head_name(book: Book, h: int) -> tuple[Glyph, ...]:
    """Head ``h`` as a legend names it: ``head 1, setting``, its number and its worksheet
    name."""
    return (Text("head "), book.number(h), Text(", "), book.head(h))


def _heads_drawn(picture: Picture) -> dict[int, set[int | None]]:
    """The heads whose tone a shape of ``picture`` takes, each with the reveal steps of
    those shapes."""
    drawn: dict[int, set[int | None]] = {}
    for shape in picture.shapes:
        painted = (shape.fill, shape.stroke) if isinstance(shape, Rect) else (shape.tone,)
        for tone in painted:
            if tone.startswith("head-"):
                drawn.setdefault(int(tone.removeprefix("head-")), set()).add(shape.fragment)
    return drawn


def ordinal_head(h: int) -> tuple[Glyph, ...]:
    """Head ``h`` named by its place, ``first head``: a head that is not one of the
    worksheet's (a toy's, an illustration's, a trained model's)."""
    return (Text(f"{_ORDINALS[h - 1]} head"),)


def _names_head(book: Book, label: Label, h: int) -> bool:
    """Whether ``label`` names head ``h``: by its place (``first head``), by its number
    after "head", or by its worksheet name (alone only when no feature has that name; a
    feature's word names a coordinate, not a head)."""
    said = "".join(glyph.text for glyph in label.glyphs)
    if ordinal_head(h)[0].text in said:
        return True
    if h > book.ws.n_heads:
        return False
    number, name = book.number(h).key, book.head(h).text
    alone = name not in book.ws.lesson.features
    return any((isinstance(glyph, Num) and glyph.key == number and "head" in said)
               or (isinstance(glyph, Word) and glyph.text == name
                   and (alone or glyph.sup or "head" in said)) for glyph in label.glyphs)


def keyed(book: Book, picture: Picture,
          name: Callable[[int], tuple[Glyph, ...]] | None = None) -> Picture:
    """``picture`` with a legend when one of the heads whose colour it draws is named by
    none of its labels: one swatch and name per head drawn (``name``: a head's name,
    :func:`head_name` unless given; given, the legend is always drawn), so that colour
    never alone tells whose a bar, a cell or a block is. An entry is revealed with its
    head's shapes when they all share one step, and set as the picture's smallest label,
    which decides how large the deck shows the picture.

    The legend stands where the drawing leaves room, so that the picture keeps its size
    and the slide its type: in the picture's top right or top left corner, its entries
    one under another or in a row, or else in a row between the labels along its top
    (:func:`~slides.lesson.room.free_spot`); where the names find no such room, the
    heads' numbers alone (``head 1``) may. Only a picture with room for neither grows: a
    strip, which has the slide's width to itself, by a column of the names right of it
    while the slide's row still holds it; any other picture by a row of them under it."""
    drawn = sorted(_heads_drawn(picture).items())
    labels = [shape for shape in picture.shapes if isinstance(shape, Label)]
    told = name is None and all(any(_names_head(book, label, h) for label in labels)
                                for h, _ in drawn)
    if not drawn or told:
        return picture
    size = picture.smallest or _MIDDLE
    forms = [name] if name else [lambda h: head_name(book, h),
                                 lambda h: (Text("head "), book.number(h))]

    def legend(form: Callable[[int], tuple[Glyph, ...]]) -> tuple[Legend, list[float]]:
        entries = [(head_tone(h), form(h), next(iter(steps)) if len(steps) == 1 else None)
                   for h, steps in drawn]
        return entries, [36 + _span(entry, size) for _, entry, _ in entries]

    for corner, form in product((True, False), forms):
        entries, spans = legend(form)
        # in a corner the entries may stand one under another; between two labels along
        # the top only in a row, and further off them, so as not to read as either's
        clear = _LEGEND_CLEAR if corner else 2 * _LEGEND_CLEAR
        if corner and (at := free_spot(picture, max(spans), _LEGEND_LINE * len(entries),
                                       _span, clear)):
            return replace(picture, shapes=(*picture.shapes,
                                            *_legend(entries, at[0], _r(at[1] - 2), size)[0]))
        in_row = sum(spans) + _LEGEND_GAP * (len(spans) - 1)
        if at := free_spot(picture, in_row, _LEGEND_LINE, _span, clear, corner):
            return replace(picture, shapes=(*picture.shapes,
                                            *_legend_row(entries, spans, *at, size)))
    entries, spans = legend(forms[0])
    wide = picture.width + 10 + max(spans) + 10
    if picture.size == "strip" and _LEGEND_LINE * len(entries) <= picture.height \
            and wide <= _ROW_LABELS * size:
        return replace(picture, shapes=(*picture.shapes,
                                        *_legend(entries, picture.width + 10, 2.0, size)[0]),
                       width=_r(wide))
    return replace(picture,
                   shapes=(*picture.shapes,
                           *_legend_row(entries, spans, 20.0, picture.height + 6, size)),
                   width=_r(max(picture.width, 20 + sum(spans)
                                + _LEGEND_GAP * (len(spans) - 1) + 10)),
                   height=_r(picture.height + 4 + _LEGEND_LINE))


def _legend_row(entries: Legend, spans: Sequence[float], x: float, y: float,
                size: float) -> list[Shape]:
    """The ``entries`` of a legend side by side from ``(x, y)``, each ``spans`` wide."""
    shapes: list[Shape] = []
    for entry, span in zip(entries, spans, strict=True):
        shapes += _legend([entry], _r(x), _r(y - 2), size)[0]
        x += span + _LEGEND_GAP
    return shapes


def weight_bars(book: Book, labels: Sequence[tuple[Glyph, ...]], keys: Sequence[str],
                tones: str | Sequence[str], description: str,
                values: Sequence[Sequence[Glyph]] = (), size: str = "panel",
                fragments: Sequence[int | None] = (), per_unit: float = BAR_LENGTH,
                legend: Legend = (), focus: Sequence[int] = ()) -> Picture:
    """One bar per key, its length the value times ``per_unit`` (for a weight in [0, 1]:
    :data:`BAR_LENGTH`; for counts, the longest bar's share of it).

    ``tones`` is one tone or one per bar; ``values`` optionally writes other glyphs after
    each bar instead of the key's own number. The picture is as wide as its longest bar
    and the label after it. ``legend`` names the tones above the bars; the rows in
    ``focus`` are outlined, as a table outlines the row it names.
    """
    row = 36.0
    left = 26.0 + max((_span(label, _FONT) for label in labels), default=0.0)
    shapes, top = _legend(legend, 20.0, 8.0)
    top += 8.0
    right = max((20.0 + 36 + _span(name, _MIDDLE) + 10 for _, name, _ in legend),
                default=0.0)
    bars: list[tuple[float, int | None]] = []
    for i, (label, key) in enumerate(zip(labels, keys, strict=True)):
        y = top + i * row
        tone = tones if isinstance(tones, str) else tones[i]
        fragment = fragments[i] if fragments else None
        length = _r(float(book.value(key)) * per_unit)
        shapes.append(_label(left - 12, y + 20, *label, anchor="end", tone="ink",
                             bold=i in focus, fragment=fragment))
        shapes.append(Rect(left, _r(y + 4), length, row - 10, tone, role="bar", draws=key,
                           fragment=fragment))
        glyphs = tuple(values[i]) if values else (book.n(key),)
        shapes.append(_label(left + length + 10, y + 22, *glyphs, tone="ink",
                             fragment=fragment))
        right = max(right, left + length + 10 + _span(glyphs, _FONT) + 16)
        bars.append((y, fragment))
    for i in focus:
        y, fragment = bars[i]
        shapes.append(Rect(6, _r(y), _r(right - 12), row - 2, "none", "ink", 2.5, role="focus",
                           fragment=fragment))
    shapes.append(Line(left, top - 6, left, top + row * len(keys), "muted", 2.0, role="axis"))
    summary: list[Glyph] = []
    if legend:
        summary.append(Text("Its colours: "))
        for k, (_, name, _) in enumerate(legend):
            summary += [*((Text(", "),) if k else ()), *name]
        summary.append(Text(". "))
    summary.append(Text("Its bars, from the top: "))
    for i, (label, key) in enumerate(zip(labels, keys, strict=True)):
        glyphs = tuple(values[i]) if values else (book.n(key),)
        named = (*label, Text(" ")) if "".join(g.text for g in label).strip() else ()
        summary += [*named, *glyphs, Text(", " if i < len(keys) - 1 else ".")]
    return keyed(book, Picture(_r(right), _r(top + 8 + row * len(keys)), description,
                               tuple(shapes), size, summary=tuple(summary)))


def dot_chart(book: Book, labels: Sequence[tuple[Glyph, ...]], keys: Sequence[str],
              description: str, ticks: str, unit: tuple[Glyph, ...], size: str = "full",
              fragment: int | None = None, span: float = 460.0) -> Picture:
    """One row per key prefix ``K`` (a model's figure over seeds): a ring per seed at
    ``K[i]`` on one scale from zero, the seeds a little apart up and down so that close
    ones stay apart, and a tick at ``K_mean`` (the table beside it gives the figures).
    Under the rows an axis with a tick at
    each value of ``ticks`` (a list key: round numbers from zero) and the ``unit`` under
    it; ``span`` is the axis's length (shorter beside a table). Rings and ticks name the
    key whose value placed them (``draws``)."""
    row, left = 42.0, 230.0
    marks = [float(v) for v in book.values.value(ticks)]
    largest = max([*(float(book.value(f"{key}_high")) for key in keys), *marks])
    unit_length = span / (largest * 1.08)
    shapes: list[Shape] = []
    seeds = len(book.values.value(keys[0])) if keys else 0
    for i, (label, key) in enumerate(zip(labels, keys, strict=True)):
        y = 24 + i * row
        shapes.append(_label(left - 14, y + 7, *label, anchor="end", fragment=fragment))
        shapes.append(Line(left, y, left + span, y, "faint", 2.0, role="axis",
                           fragment=fragment))
        for seed in range(len(book.values.value(key))):
            entry = f"{key}[{seed}]"
            x, r = _r(left + unit_length * float(book.value(entry))), 7.0
            at = _r(y + (seed - (seeds - 1) / 2) * 8.0)
            shapes.append(Path(f"M {_r(x - r)} {at} a {r} {r} 0 1 0 {2 * r} 0 "
                               f"a {r} {r} 0 1 0 {-2 * r} 0 Z", "ink", 2.5, role="dot",
                               draws=entry, fragment=fragment))
        mean = _r(left + unit_length * float(book.value(f"{key}_mean")))
        shapes.append(Line(mean, y - 17, mean, y + 17, "muted", 3.0, role="mean",
                           fragment=fragment))
    axis = 24 + len(keys) * row - 10
    shapes.append(Line(left, axis, left + span, axis, "muted", 2.0, role="axis",
                       fragment=fragment))
    for k in range(len(marks)):
        entry = f"{ticks}[{k}]"
        x = _r(left + unit_length * marks[k])
        shapes.append(Line(x, axis, x, axis + 8, "muted", 2.0, role="tick", fragment=fragment))
        shapes.append(_label(x, axis + 30, book.n(entry), anchor="middle",
                             fragment=fragment))
    shapes.append(_label(left + span / 2, axis + 58, *unit, anchor="middle", tone="muted",
                         fragment=fragment))
    # A key under the names: what a ring is and what the upright line is.
    r, key_x = 7.0, 24.0
    shapes.append(Path(f"M {_r(key_x - r)} {_r(axis + 24)} a {r} {r} 0 1 0 {2 * r} 0 "
                       f"a {r} {r} 0 1 0 {-2 * r} 0 Z", "ink", 2.5, role="legend",
                       fragment=fragment))
    shapes.append(_label(key_x + 16, axis + 30, Text("one seed"), size=_SMALL,
                         fragment=fragment))
    shapes.append(Line(key_x, axis + 42, key_x, axis + 66, "muted", 3.0, role="legend",
                       fragment=fragment))
    shapes.append(_label(key_x + 16, axis + 60, Text("the mean of the seeds"), size=_SMALL,
                         fragment=fragment))
    right = max(left + span + 40, left + span / 2 + _span(unit, _FONT) / 2 + 10)
    return Picture(_r(right), axis + 74, description, tuple(shapes), size)


def join_mix(book: Book, description: str, fragment: int | None = None) -> Picture:
    """The first sentence's joined rows, made two ways: the messages swapped back and then
    reshaped (left), and reshaped directly (right). Each column is a row (a token) of the
    joined tensor, each cell one head-width piece of it, coloured by the head it came from
    and labelled with the position of the token it came from (``lab.mix.{right,wrong}_*``);
    a piece from another token is outlined."""
    right = book.values.value("lab.mix.right_token")
    tokens, pieces = len(right), len(right[0])
    cell_w, cell_h, top, gap, left = 40.0, 34.0, 62.0, 90.0, 110.0
    panel = tokens * cell_w
    shapes: list[Shape] = []
    shapes.append(_label(left - 12, top - 10, Text("row"), anchor="end", size=_SMALL,
                         tone="muted", fragment=fragment))
    for p, (kind, title) in enumerate((("right", "swap, then reshape"),
                                       ("wrong", "reshape only"))):
        x0 = left + p * (panel + gap)
        shapes.append(_label(x0 + panel / 2, top - 38, Text(title), anchor="middle",
                             bold=True, fragment=fragment))
        for r in range(tokens):
            x = x0 + r * cell_w
            shapes.append(_label(x + (cell_w - 4) / 2, top - 10, book.pos(r), anchor="middle",
                                 size=_SMALL, tone="muted", fragment=fragment))
            for k in range(pieces):
                y = top + k * cell_h
                head = int(book.value(f"lab.mix.{kind}_head[{r}][{k}]"))
                token = f"lab.mix.{kind}_token[{r}][{k}]"
                mixed = int(book.value(token)) != r + 1
                shapes.append(Rect(_r(x), _r(y), cell_w - 4, cell_h - 4, head_tone(head),
                                   "ink" if mixed else "paper", 2.5 if mixed else 1.0,
                                   role="piece", fragment=fragment))
                shapes.append(_label(x + (cell_w - 4) / 2, y + cell_h / 2 + 4, book.n(token),
                                     anchor="middle", size=_SMALL, bold=mixed,
                                     fragment=fragment))
    bottom = top + pieces * cell_h
    shapes.append(_label(left, bottom + 24, Text("each piece: the token it came from, in "
                                                 "its head's colour"), size=_SMALL,
                         tone="muted", fragment=fragment))
    return keyed(book, Picture(_r(left + 2 * panel + gap + 10), bottom + 34, description,
                               tuple(shapes), "strip"))


def column_bars(book: Book, labels: Sequence[tuple[Glyph, ...]], keys: Sequence[str],
                tone: str, description: str, size: str = "strip",
                fragment: int | None = None) -> Picture:
    """Upright bars side by side, one per key: a bar's height is its weight times
    :data:`COLUMN_HEIGHT`; the labels run underneath."""
    step, left, base = 84.0, 60.0, COLUMN_HEIGHT + 40
    shapes: list[Shape] = []
    for i, (label, key) in enumerate(zip(labels, keys, strict=True)):
        x = left + i * step
        height = _r(float(book.value(key)) * COLUMN_HEIGHT)
        shapes.append(Rect(_r(x + 18), _r(base - height), step - 36, height, tone,
                           role="column", draws=key, fragment=fragment))
        shapes.append(_label(x + step / 2, base - height - 8, book.n(key), anchor="middle",
                             fragment=fragment))
        shapes.append(_label(x + step / 2 + 8, base + 22, *label, anchor="end", rotate=-30.0,
                             tone="muted"))
    shapes.append(Line(left, base, left + step * len(keys), base, "muted", 2.0, role="axis"))
    return keyed(book, Picture(left + step * len(keys) + 10, base + 80, description,
                               tuple(shapes), size))


def paired_bars(book: Book, sentence: str, rows: Sequence[tuple[str, str, tuple[Glyph, ...]]],
                description: str, size: str = "full", fragment: int | None = None) -> Picture:
    """Several weight rows side by side, source by source: ``rows`` holds
    ``(prefix, tone, name)``; bar length is the weight times :data:`BAR_LENGTH`."""
    bar, gap, left = min(14.0, 36.0 / len(rows)), 10.0, 190.0
    group = bar * len(rows) + gap
    per_line = 3
    legend = 12.0 + 26.0 * ((len(rows) + per_line - 1) // per_line) + 6
    shapes: list[Shape] = []
    for r, (_, tone, name) in enumerate(rows):
        x, y = left + (r % per_line) * 230, 10 + (r // per_line) * 26
        shapes.append(Rect(x, y, 22, 16, tone, role="swatch"))
        shapes.append(_label(x + 30, y + 15, *name, size=_SMALL))
    for j in range(book.length):
        y = legend + j * group
        shapes.append(_label(left - 12, y + group / 2 + 2, book.token(sentence, j),
                             anchor="end", bold=j == book.last))
        for r, (prefix, tone, _) in enumerate(rows):
            key = f"{prefix}.weights[{j}]"
            length = _r(float(book.value(key)) * BAR_LENGTH)
            shapes.append(Rect(left, _r(y + r * bar), length, bar - 2, tone, role="bar",
                               draws=key, fragment=fragment if r else None))
            if float(book.value(key)) >= 0.1:
                shapes.append(_label(left + length + 8, y + r * bar + bar - 2, book.n(key),
                                     size=_SMALL, fragment=fragment if r else None))
    height = legend + group * book.length
    shapes.append(Line(left, legend - 4, left, height, "muted", 2.0, role="axis"))
    width = max(left + BAR_LENGTH + 120, left + per_line * 230)
    return keyed(book, Picture(width, height + 10, description, tuple(shapes), size))


LANE_SPAN = 170.0
"""The longest a lane's bars reach, from its most negative to its most positive value,
when a row has several bars (one bar a row reaches :data:`_SPAN`)."""


def signed_bars(book: Book, labels: Sequence[tuple[Glyph, ...]],
                groups: Sequence[Sequence[str]], tone: str | Sequence[str], description: str,
                size: str = "panel", names: Sequence[tuple[Glyph, ...]] = (),
                fragments: Sequence[int | None] = (),
                row_tones: Sequence[str] = (), after: float = 84.0,
                span: float | None = None) -> Picture:
    """Bars that may be negative: one row per label, one bar per key of its group. A
    group's bars stand side by side in lanes, one per coordinate (or per name, written over
    its lane), as the table beside them sets them in columns, each lane with its own zero
    line and as wide as its own bars and their labels. Negative bars take the ``negative``
    tone and grow to the left; one scale for the whole picture, so lengths compare across
    lanes. ``tone`` is one tone, or one per lane; ``row_tones``, one per row, overrides it
    (a row per head, in the head's colour). ``after`` is the room right of each lane's
    longest bar, for its number and what a caller writes after it; ``span``, how far a
    lane's bars reach (by default :data:`LANE_SPAN` when a row has several bars, more for
    one; less for a narrow column)."""
    drawn = [float(book.value(k)) for group in groups for k in group]
    low, high = -min(min(drawn, default=0.0), 0.0), max(max(drawn, default=0.0), 0.0)
    count = max((len(g) for g in groups), default=1)
    scale = (span or (_SPAN if count == 1 else LANE_SPAN)) / max(low + high, 1e-12)
    bar, row = 22.0, 32.0
    left = 12.0 + max((_span(label, _FONT) for label in labels), default=0.0) + 14.0
    top = 12.0 + (36.0 if names else 0.0)
    bottom = top + row * len(groups)
    tones = [tone] * count if isinstance(tone, str) else list(tone)
    shapes: list[Shape] = []
    zeros, x = [], left
    for c in range(count):  # each lane as wide as its own bars and their labels
        lane = [float(book.value(group[c])) for group in groups if c < len(group)]
        below, above = -min(min(lane), 0.0), max(max(lane), 0.0)
        zeros.append(x + (74.0 if below else 10.0) + below * scale)
        x = zeros[-1] + above * scale + after
    right = x
    for c, zero in enumerate(zeros):
        if names:  # centred over its lane, but never past the picture's left edge
            half = _span(names[c], _FONT) * 0.55  # bold runs a little wider
            middle = max(zero, half + 4.0)
            right = max(right, middle + half + 4.0)
            shapes.append(_label(middle, top - 14, *names[c], anchor="middle", bold=True))
        shapes.append(Line(_r(zero), top - 6, _r(zero), bottom, "muted", 2.0, role="zero"))
    for i, (label, group) in enumerate(zip(labels, groups, strict=True)):
        y = top + i * row
        fragment = fragments[i] if fragments else None
        shapes.append(_label(left - 14, y + row / 2 + 7, *label, anchor="end",
                             fragment=fragment))
        for c, key in enumerate(group):
            value = float(book.value(key))
            length = _r(abs(value) * scale)
            zero = zeros[c]
            shapes.append(Rect(_r(zero if value >= 0 else zero - length), _r(y + (row - bar) / 2),
                               length, bar, "negative" if value < 0 else
                               row_tones[i] if row_tones else tones[c],
                               role="bar", draws=key, fragment=fragment))
            if length >= _LEGIBLE or len(groups) * count <= 12:
                shapes.append(_label(zero + (length + 8 if value >= 0 else -length - 8),
                                     y + row / 2 + 6, book.n(key), size=_SMALL,
                                     anchor="start" if value >= 0 else "end",
                                     fragment=fragment))
    return keyed(book, Picture(_r(right), bottom + 8, description, tuple(shapes), size))


def shift(book: Book, sentence: str, before: str, after: str, offset: str, tone: str,
          description: str, size: str = "panel", fragment: int | None = None) -> Picture:
    """Each row's coordinates before and after adding one offset, one panel per coordinate:
    a tick in ``tone`` where the row was, an arrow to where it goes, every arrow of one
    length because the offset is shared by every position. Under each panel an axis
    with ticks at zero and at the receiver's values before and after, the value after
    written a line lower (the receiver's row is bold); a legend above names the tick and
    the arrow."""
    width = len(book.values.value(f"{before}[0]"))
    entries = [float(book.value(f"{k}[{j}][{c}]")) for k in (before, after)
               for j in range(book.length) for c in range(width)]
    low, high = min(min(entries), 0.0), max(max(entries), 0.0)
    left = 24.0 + max(_span((book.token(sentence, j),), _MIDDLE) for j in range(book.length))
    panel, margin, row, top = 330.0, 40.0, 32.0, 104.0
    scale = (panel - 2 * margin) / max(high - low, 1e-12)
    last = book.last
    bottom = top + row * book.length
    # the legend: a tick for before, an arrow for after
    shapes: list[Shape] = [
        Rect(left, 12, 3.0, 22.0, tone, role="swatch"),
        _label(left + 14, 31, Text("Q"), size=_FONT),
        *_arrow(left + 60, 23, left + 100, 23, "ink", fragment),
        _label(left + 110, 31, Text("Q + b"), Sub("Q"), size=_FONT, fragment=fragment),
    ]
    for c in range(width):
        origin = left + c * panel

        def at(value: float, origin: float = origin) -> float:
            return origin + margin + (value - low) * scale

        zero = at(0.0)
        shapes.append(Line(_r(zero), top - 8, _r(zero), bottom, "faint", 1.5, role="zero"))
        shapes.append(_label(origin + panel / 2, top - 30, Text(f"{_ORDINALS[c]} coordinate, "
                                                                 "shifted by "),
                             book.n(f"{offset}[{c}]"), anchor="middle", size=_MIDDLE))
        # the axis, with ticks at zero and at the receiver's values before and after
        shapes.append(Line(_r(at(low)), bottom + 8, _r(at(high)), bottom + 8, "muted", 2.0,
                           role="axis"))
        was, now = (float(book.value(f"{k}[{last}][{c}]")) for k in (before, after))
        ticks = [(at(was), f"{before}[{last}][{c}]", None),
                 (at(now), f"{after}[{last}][{c}]", fragment)]
        for x, _, step in ticks:
            shapes.append(Line(_r(x), bottom + 2, _r(x), bottom + 16, "ink", 2.0, role="tick",
                               fragment=step))
        for line, (x, key, step) in enumerate(ticks):  # before, then after a line lower
            shapes.append(_label(x, bottom + 40 + 26 * line, book.n(key), anchor="middle",
                                 size=_FONT, fragment=step))
        if abs(zero - at(was)) > 70:
            shapes.append(Line(_r(zero), bottom + 2, _r(zero), bottom + 16, "muted", 2.0,
                               role="tick"))
            shapes.append(_label(zero, bottom + 40, Text("zero"), anchor="middle",
                                 size=_FONT, tone="muted"))
    for j in range(book.length):
        y = top + j * row + row / 2
        shapes.append(_label(left - 12, y + 7, book.token(sentence, j), anchor="end",
                             size=_MIDDLE, bold=j == last))
        for c in range(width):
            origin = left + c * panel
            x1 = origin + margin + (float(book.value(f"{before}[{j}][{c}]")) - low) * scale
            x2 = origin + margin + (float(book.value(f"{after}[{j}][{c}]")) - low) * scale
            shapes.append(Rect(_r(x1 - 1.5), _r(y - 11), 3.0, 22.0, tone, role="point",
                               draws=f"{before}[{j}][{c}]"))
            shapes.append(Line(_r(x1), _r(y), _r(x2), _r(y), "ink", 3.0, role="shift",
                               fragment=fragment))
            shapes.append(replace(_arrowhead(x2, y, x2 - x1, 0.0, "ink", 8.0),
                                  draws=f"{after}[{j}][{c}]", role="point",
                                  fragment=fragment))
    return keyed(book, Picture(_r(left + panel * width), bottom + 76, description,
                               tuple(shapes), size))


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
"""Coordinates named in words (a picture's prose holds no digit)."""


def cross_attention(book: Book, target: str, source: str, description: str,
                    fragment: int | None = None) -> Picture:
    """Cross-attention drawn on two sentences: the ``source`` sentence's tokens above,
    which give the keys and values, the ``target`` sentence's below, which give the
    queries, and a line from every source token into the target's final receiver."""
    size, gap, pad, chip_h, name_size = 22.0, 14.0, 8.0, 36.0, _MIDDLE
    names = ((Text("keys and values"),), (Text("queries"),))
    left = 24.0 + max(_span(name, name_size) for name in names)
    rows = ((source, 20.0), (target, 200.0))
    shapes: list[Shape] = []
    centres: dict[str, list[float]] = {}
    right = 0.0
    for (sentence, y), name in zip(rows, names, strict=True):
        shapes.append(_label(left - 16, y + 25, *name, anchor="end", size=name_size,
                             tone="muted"))
        x, centres[sentence] = left, []
        for j in range(book.length):
            word = book.token(sentence, j)
            w = _span((word,), size) + 2 * pad
            receiver = sentence == target and j == book.last
            shapes.append(Rect(_r(x), y, _r(w), chip_h, "paper", "ink" if receiver else "faint",
                               2.5 if receiver else 1.5, role="token"))
            shapes.append(_label(x + w / 2, y + 25, word, anchor="middle", size=size,
                                 bold=receiver, tone="ink" if receiver or sentence == source
                                 else "muted"))
            centres[sentence].append(x + w / 2)
            x += w + gap
        right = max(right, x)
    end = centres[target][book.last]
    for j, start in enumerate(centres[source]):
        spread = (j - (book.length - 1) / 2) * 4.0
        shapes += _arrow(start, 20.0 + chip_h + 4, end + spread, 200.0 - 6, "muted", fragment)
    return Picture(_r(right + 10), 200.0 + chip_h + 12, description, tuple(shapes), "strip")


# --------------------------------------------------------------------------- grids


_CELL, _GRID_LEFT, _GRID_TOP = 46.0, 150.0, 130.0
"""A receiver × source grid's cell size and where its first cell starts."""


def _grid_labels(book: Book, sentence: str, bold_last: bool) -> list[Shape]:
    """The source tokens slanted above a grid's columns and the receivers before its rows."""
    n, cell, left, top = book.length, _CELL, _GRID_LEFT, _GRID_TOP
    labels: list[Shape] = [
        _label(left + j * cell + cell / 2 + 4, top - 8, book.token(sentence, j), size=_FONT,
               rotate=-45.0, tone="muted") for j in range(n)]
    labels += [_label(left - 8, top + i * cell + cell / 2 + 7, book.token(sentence, i),
                      anchor="end", size=_FONT, bold=bold_last and i == book.last)
               for i in range(n)]
    return labels


def _weight_cells(book: Book, key: str, tone: str, left: float, top: float,
                  cell: float) -> list[Shape]:
    """A receiver × source grid's cells from ``left, top``: each allowed cell shaded by its
    weight ``key[i][j]`` in ``tone``, every future cell grey."""
    shapes: list[Shape] = []
    for i in range(book.length):
        for j in range(book.length):
            x, y, entry = _r(left + j * cell), _r(top + i * cell), f"{key}[{i}][{j}]"
            if j > i:
                shapes.append(Rect(x, y, _r(cell), _r(cell), "masked", "paper", 1.0,
                                   role="masked", draws=entry))
                continue
            shapes.append(Rect(x, y, _r(cell), _r(cell), "paper", "faint", 1.0, role="cell"))
            shapes.append(Rect(x, y, _r(cell), _r(cell), tone,
                               opacity=_r(float(book.value(entry))), role="weight",
                               draws=entry))
    return shapes


def _grid_summary(book: Book, sentence: str, key: str,
                  name: Sequence[Glyph]) -> tuple[Glyph, ...]:
    """A receiver × source grid's weights ``key[i][j]`` read as a table, row by row: each
    receiver, then its weight on each source it may read (the later ones are masked)."""
    glyphs: list[Glyph] = [*name, Text(", row by row, each receiver's weight on each "
                                       "source it may read (the later sources masked): ")]
    for i in range(book.length):
        glyphs += [Text("row "), book.token(sentence, i), Text(": ")]
        for j in range(i + 1):
            glyphs += [book.token(sentence, j), Text(" "), book.n(f"{key}[{i}][{j}]"),
                       Text(", " if j < i else "; " if i < book.length - 1 else ".")]
    return tuple(glyphs)


def _weights_of(book: Book, head: int | None) -> tuple[Glyph, ...]:
    """``river head's weights`` (a head's name), or ``The weights``."""
    if head is None:
        return (Text("The weights"),)
    return (Text("The "), book.head(head), Text(" head's weights"))


def heatmap(book: Book, sentence: str, key: str, head: int | None, description: str,
            numbers: Sequence[int] = (), size: str = "panel") -> Picture:
    """A receiver × source grid: each allowed cell shaded by its weight in the head's
    colour, every future cell grey; rows listed in ``numbers`` show their values."""
    n = book.length
    cell, left, top = _CELL, _GRID_LEFT, _GRID_TOP
    tone = head_tone(head)
    shapes: list[Shape] = _grid_labels(book, sentence, bold_last=True)
    shapes += _weight_cells(book, key, tone, left, top, cell)
    for i in numbers:
        for j in range(i + 1):
            shapes.append(_label(left + j * cell + cell / 2, top + i * cell + cell / 2 + 5,
                                 book.n(f"{key}[{i}][{j}]"), anchor="middle", size=12.0))
    if book.last in numbers:
        y = top + book.last * cell
        shapes.append(Rect(left, y, cell * n, cell, "none", "ink", 2.5, role="focus"))
    bottom = top + cell * n
    # What the axes and the shading mean, under the grid: a swatch from pale to full.
    shapes.append(_label(left, bottom + 26, Text("row: receiver · column: source"),
                         size=_SMALL, tone="muted"))
    steps = 5
    for k in range(steps):
        shapes.append(Rect(left + k * 18, bottom + 38, 18, 14, tone,
                           opacity=_r((k + 1) / steps), role="scale"))
    shapes.append(_label(left + steps * 18 + 8, bottom + 50,
                         Text("more weight, darker · grey: the future"), size=_SMALL,
                         tone="muted"))
    width = max(left + cell * n + 20, left + steps * 18 + 8
                + _span((Text("more weight, darker · grey: the future"),), _SMALL) + 10)
    return Picture(width, bottom + 62, description, tuple(shapes), size,
                   summary=_grid_summary(book, sentence, key, _weights_of(book, head)))


def heatmaps(book: Book, sentence: str, description: str) -> Picture:
    """Every head's receiver × source grid side by side, each allowed cell shaded by its
    weight in its head's colour, the future grey; the receivers named once, on the left,
    each grid's sources above it and its head's name above them."""
    n, left, top, gap = book.length, 150.0, 150.0, 40.0
    cell = min(_CELL, 880.0 / (len(book.heads) * n))
    shapes: list[Shape] = [
        _label(left - 8, top + i * cell + cell / 2 + 7, book.token(sentence, i), anchor="end",
               size=_FONT, bold=i == book.last) for i in range(n)]
    for k, head in enumerate(book.heads):
        x0 = left + k * (n * cell + gap)
        tone, key = head_tone(head), f"{sentence}.h{head}.A"
        shapes.append(_label(x0 + n * cell / 2, 24, book.head(head), Text(" head"),
                             anchor="middle", tone="ink", bold=True, size=_FONT))
        shapes += [_label(x0 + j * cell + cell / 2 + 4, top - 8, book.token(sentence, j),
                          size=_FONT, rotate=-45.0, tone="muted") for j in range(n)]
        shapes += _weight_cells(book, key, tone, x0, top, cell)
    bottom = top + n * cell
    shapes.append(_label(left, bottom + 26, Text("row: receiver · column: source · more "
                                                 "weight, darker · grey: the future"),
                         size=_FONT, tone="muted"))
    width = left + len(book.heads) * (n * cell + gap)
    summary: list[Glyph] = []
    for k, head in enumerate(book.heads):
        summary += [*((Text(" "),) if k else ()),
                    *_grid_summary(book, sentence, f"{sentence}.h{head}.A",
                                   _weights_of(book, head))]
    return Picture(_r(width), _r(bottom + 42), description, tuple(shapes), "full",
                   summary=tuple(summary))


def mask(book: Book, sentence: str, description: str, size: str = "panel") -> Picture:
    """The additive causal mask: zero where a receiver may read, minus infinity (grey)
    where the source lies in its future. The zeros are the mask's own entries."""
    n = book.length
    cell, left, top = _CELL, _GRID_LEFT, _GRID_TOP
    shapes: list[Shape] = _grid_labels(book, sentence, bold_last=False)
    for i in range(n):
        y = top + i * cell
        for j in range(n):
            x = left + j * cell
            entry = f"{sentence}.mask[{i}][{j}]"
            if int(book.value(entry)):
                shapes.append(Rect(x, y, cell, cell, "masked", "paper", 1.0, role="masked",
                                   draws=entry))
                shapes.append(_label(x + cell / 2, y + cell / 2 + 7, Text("−∞"),
                                     anchor="middle", size=_FONT, tone="muted"))
            else:
                shapes.append(Rect(x, y, cell, cell, "paper", "faint", 1.0, role="cell",
                                   draws=entry))
                shapes.append(_label(x + cell / 2, y + cell / 2 + 7, book.n(entry),
                                     anchor="middle", size=_FONT))
    shapes.append(_label(left, top + cell * n + 28, Text("row: receiver · column: source"),
                         size=_FONT, tone="muted"))
    return Picture(left + cell * n + 20, top + cell * n + 40, description, tuple(shapes), size)


# --------------------------------------------------------------------------- tensors


def _block(book: Book, shape: Sequence[int], axes: str, x: float, y: float,
           cell: float, masked: bool, head: int | None) -> tuple[list[Shape], float, float]:
    """A tensor of ``shape`` drawn as a grid of cells, its leading (batch) axis as depth.

    ``axes`` names each axis: ``B`` batch, ``H`` heads, ``T`` tokens (rows), ``S`` sources,
    ``d`` one head's coordinates (in ``head``'s colour without an ``H`` axis), ``D`` the
    joined coordinates (coloured by the head they belong to), ``F`` the model's features
    and ``V`` the vocabulary (neutral); with ``masked``, a score grid's future cells are
    grey, and so are the later sentences' grids behind the first. Tokens without
    coordinates (``BT``, such as token ids) stand in one column, a row per token, as the
    tokens of every other tensor do.
    Returns the shapes, the width and the height used.
    """
    sizes = dict(zip(axes, shape, strict=True))
    depth = sizes.get("B", 1)
    heads = sizes.get("H", 1)
    inner = [axis for axis in axes if axis not in "BH"]
    if inner == ["T"]:
        rows, columns = sizes["T"], 1
    else:
        rows = sizes[inner[-2]] if len(inner) >= 2 else 1
        columns = shape[-1]
    split = "H" in axes and axes.index("H") > axes.index("T")
    offset = 10.0
    shapes: list[Shape] = []
    head_gap = cell * (0.3 if split else 1.6)
    group_width = columns * cell
    groups_width = heads * group_width + (heads - 1) * head_gap
    for b in reversed(range(depth)):
        bx, by = x + b * offset, y - b * offset
        for g in range(heads):
            gx = bx + g * (group_width + head_gap)
            for r in range(rows):
                for c in range(columns):
                    if "H" in axes:
                        tone = head_tone(g + 1)
                    elif axes.endswith("D"):
                        tone = head_tone(c // book.head_width + 1)
                    elif axes.endswith("d") and head is not None:
                        tone = head_tone(head)
                    else:
                        tone = "neutral"
                    # a later sentence peeks out behind the first only along two edges:
                    # drawn all masked, so its diagonal's ends do not float as stray cells
                    future = masked and axes.endswith("TS") and (c > r or b > 0)
                    shade = (1.0 if b == 0 else 0.55) * (0.6 if tone == "neutral" else 1.0)
                    shapes.append(Rect(_r(gx + c * cell), _r(by + r * cell), cell, cell,
                                       "masked" if future else tone, "paper", 1.0,
                                       opacity=_r(shade), role="block"))
    width = groups_width + (depth - 1) * offset
    height = rows * cell + (depth - 1) * offset
    return shapes, width, height


Step = tuple[str, str, tuple[Glyph, ...], int | None]
"""A tensor to draw: its shape key (empty: the previous sizes rearranged), axes, name and
head (for a single head's tensor)."""


def tensor_steps(book: Book, steps: Sequence[Step],
                 operations: Sequence[tuple[Glyph, ...] | None], description: str,
                 size: str = "full", cell: float = 14.0, masked: bool = False,
                 reach: float = 90.0, added: tuple[Glyph, ...] = (),
                 headers: bool = False, mask_from: int = 0,
                 operation_size: float = _SMALL) -> Picture:
    """Tensors left to right, each drawn from its shape value and labelled with it.

    ``steps`` holds :data:`Step` tuples; an empty key draws the tensor with the sizes seen
    so far rearranged by ``axes``. ``operations`` names the arrows between them
    (reshape, transpose…); ``None`` sets two tensors side by side without an arrow, as far
    apart as their labels need. ``reach`` is an arrow's length: shorter lets a long chain
    keep its labels' size. ``added`` outlines the last tensor's last row and writes its
    glyphs beside it (what the final step appended, such as a generated token).
    ``headers`` names, over a tensor of joined coordinates (axes ending in ``D``), the head
    each group of columns came from. With ``masked``, the steps from ``mask_from`` on have
    their future cells grey (the scores before the mask, the weights after it).
    ``operation_size`` sets the arrows' names (larger where a strip is drawn small).
    """
    lift = 0.0
    if headers:
        lift = max(_span((book.head(h),), _SMALL) for h in book.heads) * 0.71 + 12
    x, top = 20.0, 44.0 + lift
    shapes: list[Shape] = []
    heights: list[float] = []
    sizes: dict[str, int] = {}
    right = 0.0  # the right edge of the widest label so far
    for i, (key, axes, name, head) in enumerate(steps):
        if key:
            shape = [int(v) for v in book.values.value(key)]
        else:
            shape = [sizes[a] for a in axes]
        for axis, count in zip(axes, shape, strict=True):
            sizes.setdefault(axis, count)
        # a batch's later sentences stand above and behind the first: room for them
        batched = axes.startswith("B") and shape[0] > 1
        y = top + (10.0 * shape[0] if batched else 0.0)
        drawn, width, height = _block(book, shape, axes, x, y, cell,
                                      masked and i >= mask_from, head)
        shapes += drawn
        heights.append(height)
        bottom = top + height + 30
        named = headers and axes.endswith("D") and not batched
        shapes.append(_label(x, top - 18 - (lift if named else 0.0), *name, bold=True))
        name_right = x + _span(name, _FONT)
        right = max(right, name_right)
        if named:
            for h in book.heads:
                centre = x + ((h - 1) + 0.5) * book.head_width * cell
                shapes.append(_label(centre - 4, top - 8, book.head(h), size=_SMALL,
                                     rotate=-45.0, tone="ink"))
                right = max(right, centre + _span((book.head(h),), _SMALL) * 0.71)
        if key:
            shown = book.n(key)
            shapes.append(_label(x, bottom + 6, shown, tone="ink", size=_FONT))
            right = max(right, x + _span((shown,), _FONT))
        if added and i == len(steps) - 1:
            depth = (shape[0] - 1) * 10.0 if shape[0] > 1 else 0.0
            row_y, row_width = y + height - depth - cell, width - depth
            shapes.append(Rect(_r(x - 2), _r(row_y - 2), _r(row_width + 4), cell + 4, "none",
                               "ink", 3.0, role="added"))
            shapes += _arrow(x + width + 56, row_y + cell / 2, x + width + 10, row_y + cell / 2,
                             "ink")
            shapes.append(_label(x + width + 64, row_y + cell / 2 + 7, *added, size=_FONT))
            right = max(right, x + width + 64 + _span(added, _FONT))
        x += width + 30
        if i < len(operations) and operations[i] is None:
            x = max(x + 10, name_right + 16)  # side by side, but never name on name
        elif i < len(operations):
            shapes += _arrow(x, top + 60, x + reach, top + 60)
            shapes.append(_label(x + reach / 2, top + 45, *(operations[i] or ()),
                                 anchor="middle", size=operation_size, tone="muted"))
            x += reach + 30
    height = top + max(heights, default=0.0) + 50
    return keyed(book, Picture(_r(max(x, right + 10)), height, description, tuple(shapes),
                               size))


def history_row(book: Book, sentence: str, description: str,
                fragment: int | None = None) -> Picture:
    """Generation as words in a row: the ``sentence``'s tokens (the prompt), then, at
    ``fragment``, the chosen next word appended and outlined (role ``added``) with its id
    under it, and a bracket over the last ``dims.context`` tokens: what the next pass
    reads, the tokens before it faded (role ``cropped``)."""
    size, gap, pad, chip_h = 22.0, 10.0, 8.0, 38.0
    words: list[Glyph] = [book.token(sentence, j) for j in range(book.length)]
    words.append(book.vocab("lab.next_id"))
    context = int(book.value("dims.context"))
    cropped = max(0, len(words) - context)
    top, shapes = 64.0, []
    x, centres = 10.0, []
    for j, word in enumerate(words):
        w = _span((word,), size) + 2 * pad
        new = j == len(words) - 1
        step = fragment if new else None
        shapes.append(Rect(_r(x), top, _r(w), chip_h, "paper", "ink" if new else "faint",
                           3.0 if new else 1.5, role="added" if new else
                           "cropped" if j < cropped else "token", fragment=step))
        shapes.append(_label(x + w / 2, top + 26, word, anchor="middle", size=size,
                             bold=new, tone="muted" if j < cropped else "ink", fragment=step))
        centres.append((x, w))
        x += w + gap
    left, right = centres[cropped][0], centres[-1][0] + centres[-1][1]
    shapes.append(Path(f"M {_r(left)} {top - 8} L {_r(left)} {top - 18} L {_r(right)} "
                       f"{top - 18} L {_r(right)} {top - 8}", "muted", 2.0, role="window",
                       fragment=fragment))
    shapes.append(_label((left + right) / 2, top - 28, Text("the next pass reads the last "),
                         book.n("dims.context"), anchor="middle", size=_SMALL,
                         fragment=fragment))
    new_x, new_w = centres[-1]
    shapes.append(_label(new_x + new_w / 2, top + chip_h + 28, Text("id "),
                         book.n("lab.next_id"), anchor="middle", size=_SMALL,
                         fragment=fragment))
    shapes.append(_label(10, top + chip_h + 28, Text("history "),
                         book.n("lab.shape.prompt"), Text(", then "),
                         book.n("lab.shape.history"), size=_SMALL, tone="muted",
                         fragment=fragment))
    return Picture(_r(x), _r(top + chip_h + 40), description, tuple(shapes), "strip")


def classify_from_cls(book: Book, description: str, size: str = "strip",
                      cell: float = 26.0) -> Picture:
    """The patch sequence with its CLS row first, named and outlined; the encoder's
    updated rows, the same shape, the CLS row outlined again; that row alone; and the
    classifier's answer, one class for the whole image."""
    shape = [int(v) for v in book.values.value("patches.shape.sequence")]
    x, top, reach = 20.0 + _span((Text("patches"),), _SMALL) + 34.0, 44.0, 90.0
    shapes: list[Shape] = []
    heights: list[float] = []

    def row_outline(left: float, width: float) -> Rect:
        return Rect(_r(left - 2), _r(top - 2), _r(width + 4), cell + 4, "none", "ink", 3.0,
                    role="cls")

    def arrow(name: str) -> None:
        nonlocal x
        shapes.extend(_arrow(x, top + cell / 2, x + reach, top + cell / 2))
        shapes.append(_label(x + reach / 2, top + cell / 2 - 12, Text(name),
                             anchor="middle", size=_SMALL, tone="muted"))
        x += reach + 30

    for i, name in enumerate(("sequence", "updated")):
        drawn, width, height = _block(book, shape, "TF", x, top, cell, False, None)
        shapes += drawn
        shapes.append(row_outline(x, width))
        shapes.append(_label(x, top - 18, Text(name), bold=True))
        shapes.append(_label(x, top + height + 36, book.n("patches.shape.sequence"),
                             size=_FONT))
        if i == 0:  # the first row is the learned CLS row; the patches' rows follow
            shapes.append(_label(x - 14, top + cell / 2 + 7, Text("CLS"), anchor="end"))
            shapes.append(_label(x - 14, top + (cell + height) / 2 + 7, Text("patches"),
                                 anchor="end", tone="muted", size=_SMALL))
        heights.append(height)
        x += width + 30
        arrow(("encoder", "first row")[i])
    drawn, width, _ = _block(book, shape[1:], "F", x, top, cell, False, None)
    shapes += drawn
    shapes.append(row_outline(x, width))
    shapes.append(_label(x, top - 18, Text("CLS row"), bold=True))
    x += width + 30
    arrow("classifier")
    answer = (Text("the image's class"),)
    box = _span(answer, _FONT) + 24
    shapes.append(Rect(_r(x), _r(top - 8), _r(box), cell + 16, "none", "ink", 2.0,
                       role="class"))
    shapes.append(_label(x + box / 2, top + cell / 2 + 7, *answer, anchor="middle"))
    x += box + 10
    return Picture(_r(x), top + max(heights) + 50, description, tuple(shapes), size)


# --------------------------------------------------------------------------- the model map


def model_map(book: Book, lit: str | Sequence[str], head: int | None = None,
              size: str = "strip",
              spans: Sequence[tuple[str, str, tuple[Glyph, ...]]] = (),
              plain: bool = False) -> Picture:
    """The layer from embeddings to the next word, in :data:`outline.STEPS` order, with
    the step ``lit`` (or each of several) outlined in ink and every other box neutral; the
    heads are one box per head in its colour (``head`` alone when given).

    ``spans`` holds ``(first, last, name)``: a bracket under the boxes from step ``first``
    to step ``last`` with its name below, such as the code class that computes them; a
    span that overlaps an earlier one goes one level lower. With ``plain`` the heads are
    numbered, not named by the worksheet's roles: the map of a model other than the
    worksheet's."""
    lit = (lit,) if isinstance(lit, str) else tuple(lit)
    unknown = [step for step in (*lit, *(s for first, last, _ in spans for s in (first, last)))
               if step not in STEPS]
    if unknown:
        raise ValueError(f"model map: unknown step {unknown[0]!r}; expected one of {STEPS}")
    names: dict[str, tuple[Glyph, ...]] = {
        "embeddings": (Text("embeddings"),), "concat": (Text("concat"),), "W_O": _w_o(),
        "residual": (Text("+ residual"),), "MLP": (Text("MLP"),),
        "prediction": (Text("next word"),)}
    box, gap, y, tall = 132.0, 34.0, 70.0, 64.0
    shapes: list[Shape] = []
    x = 10.0
    centres: dict[str, float] = {}
    for step in STEPS:
        on = step in lit
        if step == "heads":
            count = book.ws.n_heads
            each = (tall + 44) / count
            for h in book.heads:
                hy = y - 22 + (h - 1) * each
                chosen = on and (head is None or head == h)
                shapes.append(Rect(x, _r(hy), box, _r(each - 4), head_tone(h),
                                   "ink" if chosen else "paper", 3.0 if chosen else 1.0,
                                   opacity=1.0 if chosen or not on else 0.35,
                                   role="lit" if chosen else "box"))
                # as large as the steps' names while the heads' boxes leave room
                name = (Text("head "), book.number(h)) if plain else (book.head(h),)
                shapes.append(_label(x + box / 2, hy + each / 2 + 5, *name,
                                     anchor="middle", size=min(_FONT, each - 12),
                                     bold=chosen))
        else:
            shapes.append(Rect(x, y, box, tall, "neutral-fill" if on else "paper",
                               "ink" if on else "faint", 3.0 if on else 1.5,
                               role="lit" if on else "box"))
            shapes.append(_label(x + box / 2, y + tall / 2 + 7, *names[step],
                                 anchor="middle", bold=on, tone="ink" if on else "muted"))
        centres[step] = x + box / 2
        if step != STEPS[-1]:
            shapes += _arrow(x + box + 2, y + tall / 2, x + box + gap - 2, y + tall / 2)
        x += box + gap
    skip_from, skip_to = centres["embeddings"], centres["residual"]
    shapes.append(Path(f"M {_r(skip_from)} {y} C {_r(skip_from)} {y - 60} {_r(skip_to)} "
                       f"{y - 60} {_r(skip_to)} {y - 2}", "muted", 2.0, role="skip"))
    shapes.append(_arrowhead(skip_to, y - 1, 0, 1))
    bottom = y + tall + 36
    placed: list[tuple[int, float, float]] = []
    for first, last, name in spans:
        left, right = centres[first] - box / 2, centres[last] + box / 2
        level = next(n for n in range(len(placed) + 1) if not any(
            at == n and left < end and start < right for at, start, end in placed))
        placed.append((level, left, right))
        under = y + tall + 34 + level * 54
        shapes.append(Path(f"M {_r(left)} {_r(under - 8)} L {_r(left)} {_r(under)} "
                           f"L {_r(right)} {_r(under)} L {_r(right)} {_r(under - 8)}",
                           "muted", 2.0, role="span"))
        # A name under the first box starts at its bracket: centred, a long one would
        # reach past the picture's left edge (and be cut there).
        first_box = left <= min(centres.values()) - box / 2
        shapes.append(_label(left if first_box else (left + right) / 2, under + 26, *name,
                             anchor="start" if first_box else "middle", size=_SMALL,
                             tone="ink"))
        bottom = max(bottom, under + 40)
    return Picture(x - gap + 10, bottom, _describe(lit), tuple(shapes), size)


def _describe(lit: Sequence[str]) -> str:
    return (f"The model from embeddings to the next word; this slide is about the "
            f"step{'s' if len(lit) > 1 else ''} {', '.join(lit)}")


# --------------------------------------------------------------------------- W_O


def output_projection(book: Book, sentence: str, description: str, joined: bool = True,
                      update: bool = True, size: str = "full") -> Picture:
    """``W_O`` as a matrix, its rows in one block per head (the head's colour), the joined
    row beside it and the update below. A non-zero entry in another head's columns (when
    the joined coordinates line up with the model's) is outlined: it mixes across heads."""
    d_head, width = book.head_width, book.width
    joined_width = book.ws.n_heads * d_head
    last = book.last
    cell_w, cell_h, gap = 86.0, 44.0, 12.0
    left = 300.0 if joined else 150.0
    top = 84.0
    aligned = joined_width == width
    shapes: list[Shape] = []
    for c in range(width):
        shapes.append(_label(left + c * cell_w + cell_w / 2, top - 14, book.feature(c),
                             anchor="middle", size=_MIDDLE, tone="muted"))
    if joined:
        shapes.append(_label(left - 120, top - 14, Text("m"), anchor="middle", bold=True))
    shapes.append(_label(left + width * cell_w / 2, top - 50, *_w_o(), anchor="middle",
                         bold=True, size=24.0))
    for i in range(joined_width):
        h = i // d_head + 1
        y = top + i * cell_h + (h - 1) * gap
        tone = head_tone(h)
        if i % d_head == 0:
            shapes.append(Rect(left - 14, _r(y), 8, d_head * cell_h, tone, role="block"))
            shapes.append(_label(left - (175 if joined else 22), y + d_head * cell_h / 2 + 6,
                                 *(_w_o() if not joined else ()),
                                 Word(book.ws.lesson.head_names[h - 1], sup=not joined),
                                 anchor="end", bold=True, size=_MIDDLE))
        if joined:
            shapes.append(Rect(left - 160, _r(y + 2), 80, cell_h - 4, tone, opacity=0.35,
                               role="joined"))
            shapes.append(_label(left - 120, y + cell_h / 2 + 7,
                                 book.n(f"{sentence}.joined[{last}][{i}]"), anchor="middle"))
        for c in range(width):
            x = left + c * cell_w
            entry = f"params.W_O[{i}][{c}]"
            value = float(book.value(entry))
            mixing = aligned and value != 0 and c // d_head + 1 != h
            shapes.append(Rect(x, _r(y), cell_w, cell_h,
                               tone if value > 0 else "negative" if value < 0 else "paper",
                               "faint", 1.0, opacity=0.45 if value else 1.0,
                               role="mixing-cell" if mixing else "weight", draws=entry))
            if mixing:
                shapes.append(Rect(x + 3, _r(y + 3), cell_w - 6, cell_h - 6, "none", "ink",
                                   3.0, dashed=True, role="mixing"))
            shapes.append(_label(x + cell_w / 2, y + cell_h / 2 + 7, book.n(entry),
                                 anchor="middle", tone="ink" if value else "muted",
                                 bold=bool(value)))
    bottom = top + joined_width * cell_h + (book.ws.n_heads - 1) * gap
    if aligned:
        for g in range(1, book.ws.n_heads):
            x = left + g * d_head * cell_w
            shapes.append(Line(x, top - 4, x, bottom + 4, "muted", 2.0, dashed=True,
                               role="head-columns"))
    if update:
        y = bottom + 24
        shapes.append(_label(left - 20, y + cell_h / 2 + 7, Text("Δe"), anchor="end",
                             bold=True))
        for c in range(width):
            x = left + c * cell_w
            shapes.append(Rect(x, y, cell_w, cell_h, "neutral-fill", "ink", 1.5,
                               role="update"))
            shapes.append(_label(x + cell_w / 2, y + cell_h / 2 + 7,
                                 book.n(f"{sentence}.delta[{last}][{c}]"), anchor="middle",
                                 bold=True))
        bottom = y + cell_h
    if aligned:
        shapes.append(Rect(left + width * cell_w + 24, top, 26, 18, "none", "ink", 3.0,
                           dashed=True, role="legend"))
        shapes.append(_label(left + width * cell_w + 58, top + 15, Text("mixes heads"),
                             size=_MIDDLE))
    return Picture(left + width * cell_w + 200, bottom + 20, description, tuple(shapes),
                   size)


# --------------------------------------------------------------------------- image patches


def patch_names(count: int) -> tuple[str, ...]:
    """Names for ``count`` patches in reading order (row by row): ``a``, ``b``, … ``z``,
    then ``aa``, ``ab``…, letters so that no digit is typed into a slide."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = []
    for n in range(count):
        name = ""
        n += 1
        while n:
            n, rest = divmod(n - 1, len(letters))
            name = letters[rest] + name
        names.append(name)
    return tuple(names)


def patches(book: Book, description: str, size: str = "full") -> Picture:
    """The image's pixels (darker is larger) with its patches outlined and named in
    reading order (:func:`patch_names`), and each patch flattened into one row of pixel
    values, named the same, in that order."""
    side = int(book.value("patches.side"))
    patch = int(book.value("patches.size"))
    count = int(book.value("patches.count"))
    per_row = len(book.values.value("patches.flat[0]"))
    cell, left, top = 30.0, 20.0, 50.0
    shapes: list[Shape] = [_label(left, 30, book.n("patches.shape.image"), bold=True)]
    for r in range(side):
        for c in range(side):
            entry = f"patches.image[{r}][{c}]"
            shapes.append(Rect(_r(left + c * cell), _r(top + r * cell), cell, cell, "paper",
                               "faint", 1.0, role="pixel"))
            shapes.append(Rect(_r(left + c * cell), _r(top + r * cell), cell, cell, "ink",
                               opacity=_r(float(book.value(entry))), role="pixel-value",
                               draws=entry))
    names = patch_names(count)
    badge = 26.0
    for n, (r, c) in enumerate((r, c) for r in range(0, side, patch)
                               for c in range(0, side, patch)):
        x, y = left + c * cell, top + r * cell
        shapes.append(Rect(_r(x), _r(y), patch * cell, patch * cell, "none", "neutral", 4.0,
                           dashed=True, role="patch"))
        shapes.append(Rect(_r(x + 4), _r(y + 4), badge, badge, "paper", "neutral", 1.5,
                           role="patch-name"))
        shapes.append(_label(x + 4 + badge / 2, y + 4 + badge * 0.75, Text(names[n]),
                             anchor="middle", size=_SMALL, bold=True))
    image_right = left + side * cell
    shapes += _arrow(image_right + 20, top + side * cell / 2, image_right + 110,
                     top + side * cell / 2)
    shapes.append(_label(image_right + 65, top + side * cell / 2 - 14, Text("flatten"),
                         anchor="middle", size=_SMALL, tone="muted"))
    strip_left, strip_cell = image_right + 160, 24.0
    strip_top = top + (side * cell - count * (strip_cell + 16)) / 2
    shapes.append(_label(strip_left, strip_top - 14, book.n("patches.shape.flat"), bold=True))
    for p in range(count):
        y = strip_top + p * (strip_cell + 16)
        for v in range(per_row):
            entry = f"patches.flat[{p}][{v}]"
            x = strip_left + v * strip_cell
            shapes.append(Rect(_r(x), _r(y), strip_cell, strip_cell, "paper", "faint", 1.0,
                               role="pixel"))
            shapes.append(Rect(_r(x), _r(y), strip_cell, strip_cell, "ink",
                               opacity=_r(float(book.value(entry))), role="pixel-value",
                               draws=entry))
        shapes.append(Rect(_r(strip_left), _r(y), per_row * strip_cell, strip_cell, "none",
                           "neutral", 3.0, dashed=True, role="patch"))
        shapes.append(_label(strip_left - 10, y + strip_cell * 0.75, Text(names[p]),
                             anchor="end", size=_SMALL, bold=True))
    return Picture(strip_left + per_row * strip_cell + 20, top + side * cell + 20,
                   description, tuple(shapes), size)


# --------------------------------------------------------------------------- trained models


PADS = 3
"""How many pads the padding-mask picture puts before its short prompt."""


def padding_mask(book: Book, words: Sequence[Glyph], description: str,
                 fragment: int | None = None) -> Picture:
    """A short prompt (``words``) padded on the left with :data:`PADS` pads, as one head's
    receivers × sources grid: a receiver reads the cells drawn dark; the causal mask blocks
    the future above the diagonal, and (at ``fragment``) the padding mask blocks the pads'
    columns for every real receiver, outlined and named; the pads' own rows, faint, are
    never used."""
    names: list[Glyph] = [Text("pad")] * PADS + list(words)
    size, cell = len(names), 40.0
    left = 24.0 + max(_span((name,), _FONT) for name in names)
    top = 24.0 + max(_span((name,), _FONT) for name in names) * 0.71
    shapes: list[Shape] = []
    for j, name in enumerate(names):
        shapes.append(_label(left + j * cell + cell / 2 + 4, top - 10, name, rotate=-45.0,
                             tone="muted" if j < PADS else "ink"))
        shapes.append(_label(left - 10, top + j * cell + cell / 2 + 8, name, anchor="end",
                             tone="muted" if j < PADS else "ink"))
    for r in range(size):
        for c in range(size):
            future, pad = c > r, c < PADS <= r
            blocked = future or (pad and fragment is None)
            fill = "masked" if blocked else "neutral"
            role = "future" if future else "pad" if pad else "unused" if r < PADS else "reads"
            faint = r < PADS and not blocked
            shapes.append(Rect(_r(left + c * cell), _r(top + r * cell), cell, cell, fill,
                               "paper", 1.0, opacity=0.45 if faint else 1.0, role=role))
            if pad and fragment is not None:  # blocked when the padding mask comes in
                shapes.append(Rect(_r(left + c * cell), _r(top + r * cell), cell, cell,
                                   "masked", "paper", 1.0, role="padded", fragment=fragment))
    bottom = top + size * cell
    shapes.append(Rect(_r(left - 3), _r(top + PADS * cell - 3), _r(PADS * cell + 6),
                       _r((size - PADS) * cell + 6), "none", "ink", 3.0, dashed=True,
                       role="padding", fragment=fragment))
    x = left + size * cell + 30
    notes = [((Text("dark: a source the receiver reads"),), None),
             ((Text("light, above the diagonal: the future,"),), None),
             ((Text("blocked by the causal mask"),), None),
             ((Text("dashed: the pads' columns, blocked by"),), fragment),
             ((Text("the padding mask for every real receiver"),), fragment),
             ((Text("faint rows: the pads' own, never used"),), None)]
    for i, (glyphs, step) in enumerate(notes):
        shapes.append(_label(x, top + 24 + i * 34, *glyphs, tone="ink", fragment=step))
    right = x + max(_span(glyphs, _FONT) for glyphs, _ in notes) + 10
    return Picture(_r(right), _r(bottom + 12), description, tuple(shapes), "full")


def architecture(book: Book, model: str, description: str) -> Picture:
    """One trained model left to right, each stage in a box with its parameter count
    (``trained.<model>.parts.*``) under it: the fixed-window MLP's rows joined into one
    long row before its wide first layer; an attention model's token and position rows,
    its projected row split into one coloured block per head inside the attention layer,
    then the last row into a narrow prediction layer, with the residual drawn as an arc over
    the attention layer. Each layer box shows its input row over its output row, their
    lengths growing with the square root of their widths. The total goes underneath."""
    key = f"trained.{model}"
    box_h, gap, art = 190.0, 46.0, 96.0
    top = 20.0 if model == "mlp" else 64.0
    widths = {"hidden": (f"{key}.flat_width" if model == "mlp" else "trained.width",
                         "trained.hidden"), "vocab": ("trained.hidden", "trained.vocab")}
    lefts: list[float] = []
    stages: list[tuple[float, list[tuple[Glyph, ...]], str | None, str]] = []
    if model == "mlp":
        stages.append((200.0, [(book.n("trained.context"), Text(" rows of the")),
                               (Text("token table, "), book.n("trained.vocab"), Text(" × "),
                                book.n("trained.width"))],
                       f"{key}.parts.token", "faint"))
        stages.append((190.0, [(Text("joined into"),), (Text("one row of "),
                                                        book.n(f"{key}.flat_width"))],
                       None, "faint"))
        stages.append((210.0, [(Text("hidden layer"),),
                               (book.n(f"{key}.flat_width"), Text(" → "),
                                book.n("trained.hidden"), Text(", ReLU"))],
                       f"{key}.parts.hidden", "ink"))
    else:
        heads = int(model.removeprefix("heads"))
        stages.append((180.0, [(Text("token table"),), (Text("+ position table"),)],
                       f"{key}.parts.token", "faint"))
        stages.append((250.0, [(Text("Q, K, V and "), *_w_o()),
                               (Text("four "), book.n("trained.width"), Text(" × "),
                                book.n("trained.width"))],
                       f"{key}.parts.attention", "ink"))
        stages.append((200.0, [(Text("hidden layer, last row"),),
                               (book.n("trained.width"), Text(" → "), book.n("trained.hidden"),
                                Text(", ReLU"))],
                       f"{key}.parts.hidden", "faint"))
    stages.append((190.0, [(Text("vocabulary layer"),),
                           (book.n("trained.hidden"), Text(" → "), book.n("trained.vocab"))],
                   f"{key}.parts.vocab", "faint"))
    shapes: list[Shape] = []
    x = 10.0
    for i, (width, lines, count, stroke) in enumerate(stages):
        shapes.append(Rect(x, top, width, box_h, "paper", stroke, 3.0 if stroke == "ink"
                           else 1.5, role="box"))
        picture_top = top + 14
        if i == 0:
            for r in range(8):
                shapes.append(Rect(_r(x + width / 2 - 55), _r(picture_top + 4 + r * 11), 110,
                                   7, "muted", role="row"))
        elif model == "mlp" and i == 1:
            shapes.append(Rect(_r(x + 14), _r(picture_top + art / 2 - 5), width - 28, 10,
                               "muted", role="row"))
        elif model != "mlp" and i == 1:
            # The projected row, its coordinates split into the heads (no grids: every
            # head's mask is the same, and the padding slide draws one large enough to read).
            heads = int(model.removeprefix("heads"))
            row_w, row_h, row_y = width - 28, 40.0, picture_top + art / 2 - 34
            for h in range(heads):
                hx = x + 14 + h * row_w / heads
                shapes.append(Rect(_r(hx), _r(row_y), _r(row_w / heads), row_h,
                                   head_tone(h + 1), "paper", 2.0, role="head"))
            shapes.append(_label(x + width / 2, row_y + row_h + 28, book.n("trained.width"),
                                 Text(" coordinates in "), book.n(f"{key}.heads"),
                                 Text(" × "), book.n(f"{key}.d_head"), anchor="middle",
                                 size=_SMALL, tone="muted"))
        elif count is not None and count.rsplit(".", 1)[-1] in widths:
            shapes += _layer_rows(book, widths[count.rsplit(".", 1)[-1]], x + width / 2,
                                  picture_top + 10, width - 40)
        lefts.append(x)
        for line_no, glyphs in enumerate(lines):
            shapes.append(_label(x + width / 2, top + art + 44 + line_no * 24, *glyphs,
                                 anchor="middle", size=_SMALL,
                                 tone="ink" if line_no == 0 else "muted"))
        if count is not None:
            shapes.append(_label(x + width / 2, top + box_h + 30, book.n(count),
                                 anchor="middle", size=_FONT, bold=True))
        if model != "mlp" and i == 0:
            shapes.append(_label(x + width / 2, top + box_h + 54, Text("+ "),
                                 book.n(f"{key}.parts.position"), Text(" positions"),
                                 anchor="middle", size=_SMALL, tone="muted"))
        if i < len(stages) - 1:
            shapes += _arrow(x + width + 4, top + box_h / 2, x + width + gap - 4,
                             top + box_h / 2)
        x += width + gap
    right = x - gap + 10
    if model != "mlp":
        start, end = lefts[0] + stages[0][0] / 2, lefts[2] + 30
        shapes.append(Path(f"M {_r(start)} {top} C {_r(start)} {top - 52} {_r(end)} "
                           f"{top - 52} {_r(end)} {top - 2}", "muted", 2.0, role="skip"))
        shapes.append(_arrowhead(end, top - 1, 0, 1))
        shapes.append(_label((start + end) / 2, top - 44, Text("+ residual: E + ΔE"),
                             anchor="middle", size=_SMALL, tone="muted"))
    shapes.append(_label(right / 2, top + box_h + 92, book.n(f"{key}.params"),
                         Text(" parameters in all"), anchor="middle", size=_FONT))
    # a trained model's heads are not the worksheet's: they are named by their place
    return keyed(book, Picture(right, top + box_h + 106, description, tuple(shapes), "full"),
                 ordinal_head)


def _layer_rows(book: Book, keys: tuple[str, str], centre: float, y: float,
                widest: float) -> list[Shape]:
    """A layer's input row over its output row, each as long as the square root of its
    width (``keys``: the two widths) relative to the longer one, an arrow between."""
    sizes = [float(book.value(k)) ** 0.5 for k in keys]
    shapes: list[Shape] = []
    for i, size in enumerate(sizes):
        length = max(12.0, widest * size / max(sizes))
        shapes.append(Rect(_r(centre - length / 2), _r(y + i * 52), _r(length), 12.0,
                           "muted" if i == 0 else "ink", role="row"))
    shapes += _arrow(centre, y + 16, centre, y + 48)
    return shapes


PART_TONES = (("token", "faint", "token and position tables"), ("position", "faint", ""),
              ("attention", "neutral", "attention"), ("hidden", "ink", "hidden layer"),
              ("vocab", "muted", "vocabulary layer"))
"""How the parameter bars colour each part, and its name in the legend ('' for none)."""


def parameter_bars(book: Book, labels: Sequence[tuple[Glyph, ...]], models: Sequence[str],
                   description: str, fragment: int | None = None) -> Picture:
    """One bar per model, as long as its parameter count and split by part
    (``trained.<model>.parts.*``, :data:`PART_TONES`), the count after it; a legend under."""
    row, left, span = 56.0, 230.0, 520.0
    largest = max(float(book.value(f"trained.{m}.params")) for m in models)
    unit = span / largest
    shapes: list[Shape] = []
    for i, (label, model) in enumerate(zip(labels, models, strict=True)):
        y = 20 + i * row
        shapes.append(_label(left - 14, y + 24, *label, anchor="end", fragment=fragment))
        x = left
        for part, tone, _ in PART_TONES:
            key = f"trained.{model}.parts.{part}"
            if key not in book.values:
                continue
            length = unit * float(book.value(key))
            shapes.append(Rect(_r(x), y, _r(max(length, 1.0)), 34.0, tone, "paper", 1.0,
                               role="part", draws=key, fragment=fragment))
            x += length
        shapes.append(_label(x + 12, y + 24, book.n(f"trained.{model}.params"),
                             fragment=fragment))
    y = 30 + len(models) * row
    x = 40.0
    for _, tone, name in PART_TONES:
        if not name:
            continue
        shapes.append(Rect(_r(x), y - 14, 18.0, 18.0, tone, role="swatch"))
        shapes.append(_label(x + 26, y, Text(name), size=_SMALL, tone="muted"))
        x += 26 + _span((Text(name),), _SMALL) + 30
    return Picture(max(left + span + 140, x), y + 16, description, tuple(shapes), "strip")


# --------------------------------------------------------------------------- packed projections


def _entry_fill(value: float, tone: str) -> str:
    """A matrix entry's fill: the tone when positive, the negative tone, paper at zero."""
    return tone if value > 0 else "negative" if value < 0 else "paper"


def packed_query(book: Book, fragment: int | None = None) -> Picture:
    """The receiver's row times one packed ``W_Q``: every head's columns side by side under
    a bar in the head's colour, a row per input feature (named on the left), and below the
    matrix, apart from it, the query row those columns make, cut into heads, an arrow from
    each head's block down to its part. With ``fragment``, each head's block of columns is
    outlined over every row of features (role ``reads``): each head reads every feature."""
    s, last = book.sentence, book.last
    width, d_head = book.width, book.head_width
    entries = [f"{s}.E[{last}][{c}]" for c in range(width)]
    entries += [f"params.h{h}.W_Q[{c}][{k}]" for h in book.heads for c in range(width)
                for k in range(d_head)]
    entries += [f"{s}.h{h}.Q[{last}][{k}]" for h in book.heads for k in range(d_head)]
    cell = max(56.0, min(72.0, max(_span((book.n(key),), _FONT) for key in entries) + 18))
    row, op = 44.0, 56.0
    names = max(_span((book.feature(c),), _FONT) for c in range(width)) + 18
    top = 88.0
    bottom = top + width * row
    middle = (top + bottom) / 2
    shapes: list[Shape] = []
    # the receiver's row, its features named over its cells
    e_left, e_top = 16.0, middle - row / 2
    shapes.append(_label(e_left, 22, Text("e "), book.n("shapes.last_row"), bold=True))
    for c, key in enumerate(entries[:width]):
        x = e_left + c * cell
        shapes.append(Rect(x, e_top, cell, row, "neutral-fill", "faint", 1.0, role="cell"))
        shapes.append(_label(x + cell / 2, e_top + row / 2 + 8, book.n(key), anchor="middle"))
        shapes.append(_label(x + cell / 2 + 4, e_top - 10, book.feature(c), size=_SMALL,
                             rotate=-45.0, tone="muted"))
    x = e_left + width * cell
    shapes.append(_label(x + op / 2, middle + 9, Text("×"), anchor="middle", size=30.0))
    m_left = x + op + names
    shapes.append(_label(m_left, 22, Text("W"), Sub("Q"), Text(" "),
                         book.n("shapes.W_Q_packed"), bold=True))
    for c in range(width):
        shapes.append(_label(m_left - 12, top + c * row + row / 2 + 8, book.feature(c),
                             anchor="end"))
    gap, q_top = 24.0, bottom + 64
    shapes.append(_label(m_left - 12, q_top + row / 2 + 8, Text("= q "),
                         book.n("shapes.q_packed"), anchor="end", bold=True))
    for h in book.heads:
        tone = head_tone(h)
        left = m_left + (h - 1) * d_head * cell
        shapes.append(Rect(left + 4, top - 18, d_head * cell - 8, 10, tone, role="block"))
        shapes.append(_label(left + d_head * cell / 2, top - 28, book.head(h),
                             anchor="middle", bold=True))
        for k in range(d_head):
            x = left + k * cell
            for c in range(width):
                entry = f"params.h{h}.W_Q[{c}][{k}]"
                value = float(book.value(entry))
                shapes.append(Rect(x, top + c * row, cell, row, _entry_fill(value, tone),
                                   "faint", 1.0, opacity=0.45 if value else 1.0, role="weight",
                                   draws=entry))
                shapes.append(_label(x + cell / 2, top + c * row + row / 2 + 8, book.n(entry),
                                     anchor="middle", tone="ink" if value else "muted"))
            key = f"{s}.h{h}.Q[{last}][{k}]"
            shapes.append(Rect(x, q_top, cell, row, tone, "faint", 1.0, opacity=0.35,
                               role="query", draws=key))
            shapes.append(_label(x + cell / 2, q_top + row / 2 + 8, book.n(key),
                                 anchor="middle", bold=True))
        centre = left + d_head * cell / 2
        shapes += _arrow(centre, bottom + 10, centre, q_top - 6)
        shapes.append(_label(left + d_head * cell / 2, q_top + row + 28,
                             book.n("shapes.q_row"), anchor="middle", size=_SMALL))
        if fragment is not None:
            shapes.append(Rect(left + 2, top - 4, d_head * cell - 4, width * row + 8,
                               "none", "ink", 3.0, dashed=True, role="reads",
                               fragment=fragment))
    right = m_left + book.ws.n_heads * d_head * cell + 20 + gap
    return Picture(_r(right), _r(q_top + row + 40),
                   "The receiver's row times one query projection that holds every head's "
                   "columns side by side, in the head's colour, a row per input feature; "
                   "below it, the query row those columns make, cut into heads", tuple(shapes),
                   "full")


def key_reads(book: Book, fragment: int | None = None) -> Picture:
    """Every head's ``W_K`` as a small heat table, a row per input feature (named once, on
    the left), and after each row a bar as long as how much of that feature the head's
    keys read (``params.hN.K_reads``), one scale for every head; bars revealed at
    ``fragment``."""
    width, d_head = book.width, book.head_width
    heads = list(book.heads)
    cell = max(44.0, min(60.0, 560.0 / (len(heads) * d_head)))
    row, span, number, gap = 40.0, 80.0, 46.0, 30.0
    left = max(_span((book.feature(c),), _FONT) for c in range(width)) + 24
    top = 64.0
    largest = max(float(book.value(f"params.h{h}.K_reads[{c}]")) for h in heads
                  for c in range(width))
    unit = span / largest if largest else 0.0
    shapes: list[Shape] = [
        _label(left - 12, top + c * row + row / 2 + 8, book.feature(c), anchor="end")
        for c in range(width)]
    x = left
    for h in heads:
        tone = head_tone(h)
        shapes.append(_label(x, top - 34, Text("W"), Sub("K"),
                             Word(book.ws.lesson.head_names[h - 1], sup=True), bold=True))
        shapes.append(Rect(x, top - 14, d_head * cell, 8, tone, role="block"))
        for c in range(width):
            y = top + c * row
            for k in range(d_head):
                entry = f"params.h{h}.W_K[{c}][{k}]"
                value = float(book.value(entry))
                shapes.append(Rect(x + k * cell, y, cell, row, _entry_fill(value, tone),
                                   "faint", 1.0, opacity=_r(min(1.0, 0.25 + abs(value) / 2))
                                   if value else 1.0, role="weight", draws=entry))
                shapes.append(_label(x + k * cell + cell / 2, y + row / 2 + 8, book.n(entry),
                                     anchor="middle", tone="ink" if value else "muted"))
            reads = f"params.h{h}.K_reads[{c}]"
            length = _r(float(book.value(reads)) * unit)
            bar_left = x + d_head * cell + 10
            shapes.append(Rect(bar_left, y + 8, length, row - 16, tone, role="bar",
                               draws=reads, fragment=fragment))
            shapes.append(_label(bar_left + length + 6, y + row / 2 + 8, book.n(reads),
                                 fragment=fragment))
        shapes.append(Line(x + d_head * cell + 10, top - 4, x + d_head * cell + 10,
                           top + width * row + 4, "muted", 2.0, role="axis",
                           fragment=fragment))
        x += d_head * cell + 10 + span + number + gap
    bottom = top + width * row
    shapes.append(_label(left, bottom + 30, Text("bar: how much of the feature the head's "
                                                 "keys read"), size=_SMALL, tone="muted",
                         fragment=fragment))
    return Picture(_r(x), _r(bottom + 44),
                   "Each head's key projection as a small table with a row per input "
                   "feature, shaded by its entries, and after each row a bar as long as how "
                   "much of that feature the head's keys read", tuple(shapes), "full")


# --------------------------------------------------------------------------- named vectors


def feature_names(book: Book, h: int, kind: str = "V") -> list[tuple[Glyph, ...]]:
    """The names of head ``h``'s coordinates (:func:`coordinate_names`) when every column
    of its ``W_V`` (``W_K`` for ``kind`` ``K``) copies one input feature; none otherwise,
    where a coordinate has no name worth a heading."""
    copied = all(int(f) >= 0 for f in book.values.value(f"params.h{h}.{kind}_features"))
    return list(coordinate_names(book, h, kind)) if copied else []


def named_vector(book: Book, key: str, h: int, kind: str = "V") -> tuple[Glyph, ...]:
    """Head ``h``'s vector value ``key`` inline, each entry after the name of the feature
    its coordinate carries (``water 2.617, finance −0.018``; for ``kind`` ``K``, the
    feature the keys' coordinate copies), or as ``[a, b, …]`` when those columns mix
    features; every entry bound to its key."""
    names = feature_names(book, h, kind)
    if not names:
        return book.listing(key)
    runs: list[Glyph] = []
    for c, name in enumerate(names):
        runs += [*name, Text(" "), book.n(f"{key}[{c}]"),
                 *((Text(", "),) if c < len(names) - 1 else ())]
    return tuple(runs)


def retoned(picture: Picture, tones: dict[str, str]) -> Picture:
    """``picture`` with each positive bar that draws a key of ``tones`` in that key's tone
    (a lane of bars coloured row by row, each by the head its value comes from)."""
    return replace(picture, shapes=tuple(
        replace(shape, fill=tones[shape.draws])
        if isinstance(shape, Rect) and shape.role == "bar" and shape.draws in tones
        and shape.fill != "negative" else shape
        for shape in picture.shapes))



_BELOW = 150.0
"""How far below the sentence being translated the one being written stands."""


def translation(source: Sequence[str], target: Sequence[str], description: str,
                fragment: int | None = None) -> Picture:
    """Cross-attention in translation, on words rather than the worksheet's sentences: the
    ``source`` sentence being translated above (it gives the keys and values), the
    ``target`` written so far below (it gives the queries), its last word the receiver,
    and a dashed line from every source word to it: what the receiver may read, not how
    much it reads."""
    size, gap, pad, chip_h, name_size = 22.0, 14.0, 8.0, 36.0, _MIDDLE
    names = ((Text("being translated: keys and values"),),
             (Text("being written: queries"),))
    left = 24.0 + max(_span(name, name_size) for name in names)
    rows = ((source, 20.0, False), (target, _BELOW, True))
    shapes: list[Shape] = []
    centres: list[list[float]] = []
    right = 0.0
    for (words, y, asks), name in zip(rows, names, strict=True):
        shapes.append(_label(left - 16, y + 25, *name, anchor="end", size=name_size,
                             tone="muted"))
        x, row = left, []
        for j, word in enumerate(words):
            w = _span((Text(word),), size) + 2 * pad
            receiver = asks and j == len(words) - 1
            shapes.append(Rect(_r(x), y, _r(w), chip_h, "paper", "ink" if receiver else "faint",
                               2.5 if receiver else 1.5, role="token"))
            shapes.append(_label(x + w / 2, y + 25, Text(word), anchor="middle", size=size,
                                 bold=receiver, tone="ink" if receiver or not asks
                                 else "muted"))
            row.append(x + w / 2)
            x += w + gap
        centres.append(row)
        right = max(right, x)
    end = centres[1][-1]
    for j, start in enumerate(centres[0]):
        spread = (j - (len(source) - 1) / 2) * 9.0
        x1, y1, x2, y2 = start, 20.0 + chip_h + 4, end + spread, _BELOW - 6
        shapes.append(Line(_r(x1), _r(y1), _r(x2), _r(y2), "muted", 2.0, dashed=True,
                           role="reach", fragment=fragment))
        shapes.append(replace(_arrowhead(x2, y2, x2 - x1, y2 - y1), fragment=fragment))
    return Picture(_r(right + 10), _BELOW + chip_h + 12, description, tuple(shapes), "strip")


def swapped_model(book: Book, description: str, fragment: int | None = None) -> Picture:
    """The whole model in one row, from the embeddings to the next word, its attention
    box dashed and named as PyTorch's layer with our weights; from the next word, each
    sentence's likeliest next word and its probability as a bar, from our layer and from
    PyTorch's, one pair of bars per sentence (revealed at ``fragment``)."""
    box, gap, tall, y = 132.0, 26.0, 64.0, 28.0
    boxes = ((Text("embeddings"),), (Text("PyTorch's"),), (Text("+ residual"),),
             (Text("MLP"),), (Text("next word"),))
    shapes: list[Shape] = []
    x = 10.0
    centres = []
    for i, name in enumerate(boxes):
        swapped = i == 1
        shapes.append(Rect(x, y, box, tall, "neutral-fill" if swapped else "paper",
                           "ink" if swapped else "faint", 3.0 if swapped else 1.5,
                           dashed=swapped, role="swapped" if swapped else "box"))
        if swapped:
            shapes.append(_label(x + box / 2, y + 28, *name, anchor="middle", bold=True))
            shapes.append(_label(x + box / 2, y + 54, Text("layer"), anchor="middle",
                                 bold=True))
            shapes.append(_label(x + box / 2, y + tall + 26, Text("our weights copied in"),
                                 anchor="middle", size=_MIDDLE, tone="ink"))
        else:
            shapes.append(_label(x + box / 2, y + tall / 2 + 7, *name, anchor="middle",
                                 tone="muted"))
        centres.append(x + box / 2)
        if i < len(boxes) - 1:
            shapes += _arrow(x + box + 2, y + tall / 2, x + box + gap - 2, y + tall / 2)
        x += box + gap
    skip_from, skip_to = centres[0], centres[2]
    shapes.append(Path(f"M {_r(skip_from)} {y} C {_r(skip_from)} {y - 26} {_r(skip_to)} "
                       f"{y - 26} {_r(skip_to)} {y - 2}", "muted", 2.0, role="skip"))
    shapes.append(_arrowhead(skip_to, y - 1, 0, 1))
    # the compared outputs, right of the next word: a pair of bars per sentence
    names = {"ours": (Text("our layer"),), "library": (Text("PyTorch's"),)}
    row, per_unit = 34.0, 120.0
    left = x + 10 + max(_span((Word(n),), _FONT) for n in book.sentences) \
        + max(_span(n, _MIDDLE) for n in names.values()) + 20
    top = 2.0
    right = left
    summary: list[Glyph] = [Text("Its bars, from the top: ")]
    for i, sentence in enumerate(book.sentences):
        for k, model in enumerate(("ours", "library")):
            by = top + (2 * i + k) * row
            key = f"lab.swap.{model}_prob[{i}]"
            if not k:
                shapes.append(_label(x + 10, by + 22, Word(sentence), tone="ink",
                                     fragment=fragment))
            shapes.append(_label(left - 10, by + 21, *names[model], anchor="end",
                                 size=_MIDDLE, tone="ink", fragment=fragment))
            length = _r(float(book.value(key)) * per_unit)
            shapes.append(Rect(left, _r(by + 4), length, row - 10, "neutral", role="bar",
                               draws=key, fragment=fragment))
            said = (book.n(key), Text(" "), book.vocab(f"lab.swap.{model}_id[{i}]"))
            shapes.append(_label(left + length + 8, by + 22, *said, tone="ink",
                                 fragment=fragment))
            right = max(right, left + length + 8 + _span(said, _FONT) + 10)
            summary += [Word(sentence), Text(", "), *names[model], Text(": "), *said,
                        Text(", " if (i, k) != (len(book.sentences) - 1, 1) else ".")]
    height = max(y + tall + 40, top + 2 * len(book.sentences) * row + 6)
    shapes.append(Line(left, top, left, top + 2 * len(book.sentences) * row, "muted", 2.0,
                       role="axis", fragment=fragment))
    return Picture(_r(right), _r(height), description, tuple(shapes), "strip",
                   summary=tuple(summary))
