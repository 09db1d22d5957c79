"""The shared frame of the scenes beyond the worked example (bias, PyTorch, trained
models, patches, the lab): a content area above the subtitle band, a fresh stage per
section, tensor blocks, frames and grids; and labels that more than one scene puts over a
joined row."""


from collections.abc import Callable, Mapping, Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Arrow,
    Group,
    Line,
    ManimColor,
    Mobject,
    Rectangle,
    Square,
    SurroundingRectangle,
    SVGMobject,
    VGroup,
    Write,
    config,
)

from scenes.kit import (
    INK,
    MUTED,
    SAFE_BOTTOM,
    Fade,
    LectureScene,
    baseline,
    copied_features,
    fit,
    shown_indices,
    standing,
)
from scenes.kit.palette import FAINT, NEUTRAL_FILL, PANEL, PIXEL_DARK, PIXEL_LIGHT

__all__ = [
    "CONTENT_BOTTOM",
    "CONTENT_TOP",
    "CONTENT_WIDTH",
    "DARK_PIXEL",
    "FLAT_COLUMNS",
    "LIGHT_PIXEL",
    "MASK_TEXTS",
    "SLAB_OFFSET",
    "LibraryScene",
    "arrow",
    "carried_names",
    "frame",
    "grid",
    "headers_above",
    "mask_cell",
    "mask_grid",
    "place",
    "slab_stack",
    "slots",
    "stretch_brackets",
]

CONTENT_WIDTH = 13.2
CONTENT_TOP = 2.95
CONTENT_BOTTOM = SAFE_BOTTOM + 0.2
"""The content area ends above the subtitle band, with room for a pointer's outline."""
DARK_PIXEL = ManimColor(PIXEL_DARK)
LIGHT_PIXEL = ManimColor(PIXEL_LIGHT)
FLAT_COLUMNS = 16
"""A flattened patch shows all its values up to this many, then elides the middle."""
SLAB_OFFSET = (0.24, 0.17)
"""How far each slab of a drawn tensor block sits behind the one in front (x, y)."""


def arrow(start: Mobject, end: Mobject, direction: Sequence[float] = RIGHT,
          colour: str = MUTED) -> Arrow:
    """A thin arrow from ``start`` to ``end``, leaving ``start`` in ``direction`` (``RIGHT``,
    ``UP``, or else down)."""
    if tuple(direction) == tuple(RIGHT):
        forward = (start.get_right(), end.get_left())
    elif tuple(direction) == tuple(UP):
        forward = (start.get_top(), end.get_bottom())
    else:
        forward = (start.get_bottom(), end.get_top())
    return Arrow(*forward, buff=0.12, stroke_width=3, color=colour,
                 max_tip_length_to_length_ratio=0.25, max_stroke_width_to_length_ratio=8)


def frame(mob: Mobject, colour: str = FAINT, buff: float = 0.18) -> SurroundingRectangle:
    """A rounded outline around ``mob``."""
    return SurroundingRectangle(mob, color=colour, buff=buff, corner_radius=0.12,
                                stroke_width=2)


def grid(rows: Sequence[Sequence[Mobject]], h_buff: float = 0.45, v_buff: float = 0.22,
         aligns: str | None = None) -> VGroup:
    """Rows of cells in columns, left-aligned unless ``aligns`` ("lcr" per column) says."""
    body = VGroup(*(cell for row in rows for cell in row))
    columns = len(rows[0])
    body.arrange_in_grid(rows=len(rows), cols=columns, buff=(h_buff, v_buff),
                         col_alignments=aligns or "l" * columns)
    for row in rows:
        texts = sorted((cell for cell in row if isinstance(cell, SVGMobject)),
                       key=lambda text: -len(standing(text)))
        for text in texts[1:]:
            text.shift(UP * (baseline(texts[0]) - baseline(text)))
    body.rows = [list(row) for row in rows]
    return body


def headers_above(pairs: Sequence[tuple[Mobject, Mobject]], buff: float = 0.3) -> VGroup:
    """Each header above its mobject, their tops level, clear of the tallest mobject."""
    line = max(under.get_top()[1] for _, under in pairs) + buff \
        + max(header.height for header, _ in pairs)
    for header, under in pairs:
        header.set_x(under.get_x()).set_y(line - header.height / 2)
    return VGroup(*(header for header, _ in pairs))


def stretch_brackets(matrix: VGroup, extra: float, edge: Sequence[float]) -> None:
    """Lengthen a kit matrix's brackets by ``extra``, keeping the ``edge`` end fixed."""
    for bracket in matrix.brackets:
        bracket.stretch_to_fit_height(bracket.height + extra, about_edge=edge)


MASK_TEXTS = ("may attend", "masked")
"""The legend's names for an allowed cell and a masked one."""
HATCH_PITCH = 0.085
"""Distance between two hatch lines of a masked cell, across the lines."""


def _hatch(side: float) -> VGroup:
    """Diagonal lines across a square of ``side``, centred on the origin: the mark of a
    masked cell, which no weight's shade can be mistaken for."""
    half, lines = side / 2, VGroup()
    count = max(2, round(2 * side / (HATCH_PITCH * 2 ** 0.5)) - 1)
    for k in range(1, count + 1):
        c = side * (2 * k / (count + 1) - 1)  # the line y = x + c
        start = [-half, -half + c, 0] if c >= 0 else [-half - c, -half, 0]
        end = [half - c, half, 0] if c >= 0 else [half, half + c, 0]
        lines.add(Line(start, end, stroke_color=MUTED, stroke_width=1.4))
    return lines


def mask_cell(side: float, masked: bool, outline: bool = True,
              hatched: bool = False) -> Square:
    """A cell of a causal mask as clip 14 draws it: masked (a later source) in the neutral
    fill, allowed left open; ``outline`` edges it faintly. ``hatched`` crosses a masked
    cell with diagonal lines (its ``hatch``; empty on an allowed cell), for pictures whose
    open cells are shaded by weight, where a plain fill could read as one more shade."""
    cell = Square(side, stroke_color=FAINT, stroke_width=0.8 if outline else 0,
                  fill_color=NEUTRAL_FILL if masked else PANEL,
                  fill_opacity=1.0 if masked else 0.0)
    cell.hatch = _hatch(side) if masked and hatched else VGroup()
    if len(cell.hatch):
        cell.add(cell.hatch)
    return cell


def mask_grid(tokens: int, width: float, label: Callable[[str], Mobject] | None = None,
              texts: Sequence[str] = MASK_TEXTS, hatched: bool = False) -> VGroup:
    """A receivers × sources causal mask, ``width`` wide, in clip 14's colours: a source
    later than its receiver masked (neutral fill, crossed by diagonal lines if
    ``hatched``), every other cell open.

    The grid is the cells, row by row; ``cells`` holds them as rows. With ``label`` (a
    scene's text maker), ``legend`` is a key of swatches named by ``texts`` (allowed,
    then masked), for the caller to place; without, it is empty.
    """
    side = width / tokens
    made = VGroup()
    rows = []
    for r in range(tokens):
        row = [mask_cell(side, masked=c > r, hatched=hatched).move_to([c * side, -r * side, 0])
               for c in range(tokens)]
        made.add(*row)
        rows.append(row)
    made.cells = rows
    made.legend = VGroup()
    if label is not None:
        allowed, masked = texts
        made.legend = VGroup(*(VGroup(mask_cell(0.3, blocked, hatched=hatched), label(text))
                               .arrange(RIGHT, buff=0.15)
                               for blocked, text in ((False, allowed), (True, masked))))
        made.legend.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
    return made


def place(mob: Mobject, top: float = CONTENT_TOP, bottom: float = CONTENT_BOTTOM,
          width: float = CONTENT_WIDTH) -> Mobject:
    """Shrink ``mob`` into the content area below the title and centre it there."""
    fit(mob, width, top - bottom)
    return mob.move_to([0, (top + bottom) / 2, 0])


def slots(pieces: Sequence[tuple[str, Mapping[str, str]]], separator: str,
          last: str) -> tuple[str, dict[str, str]]:
    """Join template pieces (each with its keys) as "a, b and c"."""
    texts = [text for text, _ in pieces]
    keys = {name: key for _, piece in pieces for name, key in piece.items()}
    if len(texts) == 1:
        return texts[0], keys
    return separator.join(texts[:-1]) + last + texts[-1], keys


def slab_stack(width: float, height: float, depth: int, parts: Sequence[tuple[float, str]],
               ) -> VGroup:
    """A tensor drawn as ``depth`` stacked slabs (a 3-D-looking block), front slab last.

    Each slab is a neutral face (``slab.face``) over vertical slices (``slab.slices``),
    one per ``(share of the width, colour)`` in ``parts``; slices start invisible, so the
    block first reads as one undivided tensor. Z-indices keep back slabs behind front
    ones whatever is faded in later.
    """
    slabs = VGroup()
    for b in range(depth):
        back = depth - 1 - b
        face = Rectangle(width=width, height=height, stroke_color=MUTED, stroke_width=2,
                         fill_color=PANEL, fill_opacity=1)
        slices, x = VGroup(), -width / 2
        for share, colour in parts:
            piece = Rectangle(width=share * width, height=height, stroke_color=colour,
                              stroke_width=2.5, fill_color=colour, fill_opacity=0.35)
            slices.add(piece.move_to([x + share * width / 2, 0, 0]))
            x += share * width
        slab = VGroup(face, slices).shift([back * SLAB_OFFSET[0], back * SLAB_OFFSET[1], 0])
        face.set_z_index(2 * b)
        slices.set_z_index(2 * b + 1)
        slab.face, slab.slices = face, slices
        slabs.add(slab)
    slabs.front = slabs[-1]
    return slabs


class LibraryScene(LectureScene):
    """Shared moves of this module's scenes: a fresh stage per section, shape lines."""

    def stage(self, heading: str, **keys: str) -> None:
        """Fade out whatever is on screen and write a new heading."""
        self.unpoint()  # the pointer leaves with everything else
        if self.mobjects:
            self.play(Fade(Group(*self.mobjects), appear=False), run_time=0.5)
        self.heading = self.title(heading, **keys)
        fit(self.heading, config.frame_width - 0.8)
        self.play(Write(self.heading), run_time=0.6)

    def unpointed(self) -> list[Animation]:
        """The animation that takes the pointer away, if there is one, as a list to unpack."""
        gone = self.unpoint()
        return [] if gone is None else [gone]

    def shape(self, name: str, key: str, size: float = 22, colour: str = INK) -> Mobject:
        """``name [a, b]`` in monospace, the shape bound to ``key``."""
        return self.bound(name + " {s}", size, colour, mono=True, s=key)

    def card(self, heading: str, key: str, size: float = 30) -> VGroup:
        """A small heading above one big bound figure, framed."""
        top = self.label(heading, 20, MUTED)
        figure = self.num(key, size, INK, mono=False)
        body = VGroup(top, figure).arrange(DOWN, buff=0.18)
        return VGroup(body, frame(body))

    def word_of(self, key: str) -> str:
        """The vocabulary word whose id is the value of ``key``."""
        return self.ws.vocab[int(self.v.value(key))]

    def code(self, line: str, size: float = 22) -> Mobject:
        """One line of code in monospace (no numbers in it)."""
        return self.bound(line, size, mono=True)

    def sentence_name(self, name: str, size: float = 22, colour: str = INK) -> Mobject:
        """A sentence's name, shown literally (it need not be a vocabulary word)."""
        return self.bound("{n}", size, colour, words={"n": name})


def carried_names(scene: LectureScene, size: float) -> list[Mobject]:
    """Above each shown coordinate of a joined row: the feature its head's value column
    copies (when that head's ``W_V`` copies one feature per column), in the head's colour,
    else the head it comes from; "…" where coordinates are elided."""
    labels: list[Mobject] = []
    d = scene.ws.d_head
    for k in shown_indices(scene.ws.d_model):
        if k is None:
            labels.append(scene.label("…", size, MUTED))
            continue
        head, column = k // d + 1, k % d
        copies = copied_features(scene.v, head, "V")
        if copies is None:
            labels.append(scene.head_label(head, size))
        else:
            labels.append(scene.bound("{f}", size, scene.head_colour(head),
                                      words={"f": scene.ws.lesson.features[copies[column]]}))
    return labels
