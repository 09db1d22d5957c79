"""The bias flag: what `bias=True` adds to each projection, from the `bias.*` values."""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Brace,
    DashedVMobject,
    GrowArrow,
    LaggedStart,
    Rectangle,
    ReplacementTransform,
    Square,
    Succession,
    TransformFromCopy,
    VGroup,
)

from outline import part
from scenes.kit import (
    ELIDE_AFTER,
    INK,
    MUTED,
    Cued,
    Fade,
    brackets,
    model_map,
    vector,
)
from scenes.kit.palette import NEUTRAL_FILL
from scenes.kit.topic import (
    CONTENT_TOP,
    LibraryScene,
    grid,
    headers_above,
    mask_grid,
    place,
)

__all__ = ["BiasFlag"]

AROUND_TEXT = 0.15
"""A pointer's clearance around a line of text, so its outline never sits on the glyphs."""

POSITIONS_SHOWN = 3
"""How many position rows stand beside the one bias row (all of them when there are fewer)."""

BAND_TINT = 0.15
"""Fill of the tint behind one head's columns (or rows) of a packed matrix."""

NUMBER_SIZE_SMALL = 17
"""Numbers of a packed matrix wider than four columns."""

HEADS_LABEL_ROOM = 0.6
"""Room kept above the heads' names for the line that gives each head's shape."""

SPREAD = 0.9
"""How far apart the heads' own matrices stand before they are pushed together."""

SQUARE_SIDE = 1.5
"""Side of a projection's square of weights, whatever the model width."""

STRIP = 0.28
"""Width of the strip of head colours along a stacked block's rows (clear of its name)."""


# --------------------------------------------------------------------------- bias


class BiasFlag(LibraryScene):
    """A projection bias: one offset row shared by every row, and what bias=True costs."""

    draws_its_own_map = True  # the map stays for a second sentence: the flag reaches W_O too

    def construct(self) -> None:
        self.section("where we are")
        self.where_in_the_model()
        self.section("shared offset")
        self.stage("A bias adds one row, b, to every row")
        self.shared_offset()
        self.section("not a position row")
        self.stage("A bias is not a position row")
        self.not_a_position_row()
        self.section("packed heads")
        self.stage("One W_Q holds every head's queries")
        self.packed_heads()
        self.section("which projections")
        self.stage("What the bias flag switches on")
        self.projections()
        self.section("stored transposed")
        self.stage("How PyTorch stores the projections")
        self.stored_transposed()
        self.section("stored shapes")
        self.stored_shapes()
        self.section("this lesson")
        self.stage("This lesson leaves the bias out")
        self.this_lesson()

    def where_in_the_model(self) -> None:
        """The model map with the part's steps lit, as every part opens, then W_O named:
        the flag gives the output projection its offsets as well."""
        opened = part("bias")
        self.where = opened.steps
        whole = model_map(self, lit=opened.steps, size=20).move_to([0, 0.2, 0])
        self.say(opened.opening, Fade(whole), self.point_at(whole.stages["heads"]))
        self.say("The same flag also gives W_O, the output projection, a bias.",
                 self.point_at(whole.stages["W_O"]))

    def shared_offset(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        colour = self.head_colour(1)  # head 1's queries, with and without the offset
        row_h = min(0.5, 4.4 / len(tokens))
        size = min(24.0, row_h * 46)
        Q = self.matrix(f"{name}.h1.Q", row_labels=[self.word(t, size) for t in tokens],
                        size=size, colour=colour)
        b = self.vec("bias.offset", size)
        shifted = self.matrix("bias.Q_offset", size=size, colour=colour)
        plus = self.label("+", size * 1.3)
        plus.next_to(Q, RIGHT, buff=0.45).set_y(Q.body.get_y())
        b.next_to(plus, RIGHT, buff=0.45)
        shifted.next_to(b, RIGHT, buff=2.0).align_to(Q.body, UP)
        shifted.shift(UP * (Q.body.get_top()[1] - shifted.body.get_top()[1]))
        # One b, and an arrow from it to every row of the sum: the same row added to each.
        arrows = VGroup(*(Arrow(b.get_right(), [shifted.brackets[0].get_left()[0],
                                                 row[0].get_y(), 0],
                                buff=0.12, stroke_width=2, color=MUTED, tip_length=0.14,
                                max_tip_length_to_length_ratio=0.2)
                          for row in shifted.cells))
        head = "dims.head_numbers[0]"
        headers = headers_above([
            (self.bound("Head {h} queries Q", size, colour, h=head), Q.body),
            (self.label("bias b", size, MUTED), b),
            (self.label("Q + b", size, colour), shifted.body)])
        place(VGroup(Q, plus, b, arrows, shifted, headers))

        self.say("Here are head {h}'s query rows, one for each token of the sentence.",
                 Fade(VGroup(Q, headers[0])), self.point_at(Q.body), h=head)
        self.say("A bias is one more row of numbers, b.",
                 LaggedStart(Fade(plus), Fade(VGroup(b, headers[1])), lag_ratio=0.5),
                 self.point_at(headers[1], buff=AROUND_TEXT))
        values, value_keys = vector("b", "bias.offset", len(self.v.value("bias.offset")))
        self.say("Its values here, " + values + ", are chosen for illustration; with the "
                 "flag on, training learns them.", self.point_at(b, buff=AROUND_TEXT),
                 **value_keys)
        steps = [(0.0, Fade(headers[2]))] + [(0.0, gone) for gone in self.unpointed()]
        for k, (row, arrow) in enumerate(zip(shifted.cells, arrows, strict=True)):
            steps += [(0.3 + 0.25 * k, GrowArrow(arrow)),
                      (0.5 + 0.25 * k, Fade(VGroup(*row)))]
        steps.append((0.5 + 0.25 * len(arrows), Fade(shifted.brackets)))
        self.say("The same b is added to every row, and that gives Q + b.", Cued(steps))
        self.one_row(name, tokens, Q, shifted)

    def one_row(self, name: str, tokens: list[str], Q: VGroup, shifted: VGroup) -> None:
        """One row before and after: a row the projection sends to zero, where there is
        one (it becomes the bias itself), else the final receiver."""
        width = len(self.v.value("bias.offset"))
        zero = bool(self.v.value("bias.zero_rows"))
        row = int(self.v.value("bias.zero_row")) if zero else len(tokens) - 1
        q, q_keys = vector("q", f"{name}.h1.Q[{row}]", width)
        s, s_keys = vector("s", f"bias.Q_offset[{row}]", width)
        before, after = VGroup(*Q.cells[row]), VGroup(*shifted.cells[row])
        if zero:
            self.say("For “{w}”, the projection gives all zeros, " + q + ".",
                     self.point_at(before), words={"w": tokens[row]}, **q_keys)
            self.say("Adding b gives " + s + ", the bias itself: a bias moves even a zero "
                     "row.", self.point_at(after), **s_keys)
        else:
            self.say("The final receiver, “{w}”, has the query " + q + ".",
                     self.point_at(before), words={"w": tokens[row]}, **q_keys)
            self.say("Adding b moves each coordinate by b's entry: " + s + ".",
                     self.point_at(after), **s_keys)

    def not_a_position_row(self) -> None:
        """A few position rows, each different, beside the one bias row."""
        count = len(self.v.value("params.pos_emb"))
        shown = min(POSITIONS_SHOWN, count)
        rows = [[self.bound("position {p}", 28, MUTED, p=f"dims.positions[{i}]"),
                 self.vec(f"params.pos_emb[{i}]", 28)] for i in range(shown)]
        table = grid(rows, h_buff=0.5, v_buff=0.4, aligns="rl")
        more = self.label("⋮", 28, MUTED).next_to(table, DOWN, buff=0.25)
        more.set_x(rows[0][1].get_x())
        positions = VGroup(table, more) if count > shown else VGroup(table)
        b = self.vec("bias.offset", 34)
        every = self.label("at every position, in every sentence", 24, MUTED)
        bias = VGroup(b, every).arrange(DOWN, buff=0.3)
        VGroup(positions, bias).arrange(RIGHT, buff=1.6)
        head = "dims.head_numbers[0]"
        headers = headers_above([
            (self.label("position rows, added to the embeddings", 24, INK), positions),
            (self.bound("bias b, added to head {h}'s queries", 24, INK, h=head), bias)],
            buff=0.45)
        place(VGroup(positions, bias, headers))
        self.say("Position rows work differently: each position adds a row of its own.",
                 Fade(VGroup(positions, headers[0])),
                 self.point_at(*(r[1] for r in rows), each=True, buff=0.1))
        self.say("The bias is a single row, the same at every position and in every "
                 "sentence.", Fade(VGroup(bias, headers[1])),
                 self.point_at(b, buff=AROUND_TEXT))

    # ------------------------------------------------------------ packed heads

    def query_weights(self, size: float, transposed: bool = False,
                      room: float = 0.0) -> VGroup:
        """W_Q as the lesson packs it, from each head's own ``[d_model, d_head]`` matrix:
        head h's numbers, in its colour, fill the h-th band of columns (of rows when
        ``transposed``, as PyTorch stores it). Every cell sits on one pitch, so the
        transpose only swaps places.

        ``room`` is the least width of a column (for the offsets drawn under it).
        Attributes: ``cells[r][c]`` (the packed entry ``[r][c]``, drawn at row ``c``,
        column ``r`` when transposed), ``bands`` (one tinted rectangle per head),
        ``body`` and ``brackets``.
        """
        d, width = self.ws.d_model, self.ws.d_head
        cells = [[self.num(f"params.h{c // width + 1}.W_Q[{r}][{c % width}]", size,
                           self.head_colour(c // width + 1)) for c in range(d)]
                 for r in range(d)]
        across = max(room, *(cell.width for row in cells for cell in row)) + (
            0.35 if d <= ELIDE_AFTER else 0.22)
        down = max(cell.height for row in cells for cell in row) + 0.28

        def spot(row: float, column: float) -> np.ndarray:
            return np.array([column * across, -row * down, 0.0])

        for r, row in enumerate(cells):
            for c, cell in enumerate(row):
                cell.move_to(spot(c, r) if transposed else spot(r, c))
        body = VGroup(*(cell for row in cells for cell in row))
        bands = VGroup(*(self.head_band(h, d, width, spot, across, down, transposed)
                         for h in self.head_numbers()))
        sides = brackets(VGroup(body, bands), pad=0.06)
        picture = VGroup(bands, body, sides)
        picture.cells, picture.bands, picture.body, picture.brackets = cells, bands, body, sides
        return picture

    def head_band(self, head: int, d: int, width: int, spot: Any, across: float,
                  down: float, by_rows: bool) -> Rectangle:
        """A tint behind head ``head``'s columns (or rows) of a packed matrix."""
        middle = (head - 1) * width + (width - 1) / 2
        colour = self.head_colour(head)
        band = Rectangle(width=d * across if by_rows else width * across,
                         height=width * down if by_rows else d * down, stroke_color=colour,
                         stroke_width=1.5, fill_color=colour, fill_opacity=BAND_TINT)
        return band.move_to(spot(middle, (d - 1) / 2) if by_rows else
                            spot((d - 1) / 2, middle))

    def head_numbers(self) -> range:
        return range(1, self.ws.n_heads + 1)

    def query_offsets(self, weights: VGroup, size: float) -> VGroup:
        """The packed query bias under ``weights``: one slot per column, in the column's
        head colour; head 1's slots hold its b (the other heads' offsets are not in the
        worksheet, so their slots stay empty). Attributes ``slots`` and ``heads`` (the
        slots of each head, with head 1's numbers)."""
        d, width = self.ws.d_model, self.ws.d_head
        pitch = weights.cells[0][1].get_x() - weights.cells[0][0].get_x() if d > 1 else 0.6
        slots, heads = VGroup(), [VGroup() for _ in self.head_numbers()]
        y = weights.brackets.get_bottom()[1] - size / 40 - 0.1
        for c in range(d):
            head = c // width + 1
            slot = Rectangle(width=pitch - 0.1, height=size / 40, stroke_width=2,
                             stroke_color=self.head_colour(head))
            slot.move_to([weights.cells[0][c].get_x(), y, 0])
            slots.add(slot)
            heads[head - 1].add(slot)
            if head == 1:
                heads[0].add(self.num(f"bias.offset[{c}]", size, self.head_colour(1))
                             .move_to(slot))
        row = VGroup(slots, *heads)
        row.slots, row.heads = slots, heads
        return row

    def packed_heads(self) -> None:
        """Each head's W_Q, [d_model, d_head], with its bias row beneath; pushed together
        they are the packed W_Q and the packed query offsets, one band per head."""
        d, heads = self.ws.d_model, self.ws.n_heads
        size = NUMBER_SIZE_SMALL if d > 4 else 28
        room = max(self.num(f"bias.offset[{c}]", size).width for c in range(self.ws.d_head))
        weights = self.query_weights(size, room=room)
        offsets = self.query_offsets(weights, size)
        names = VGroup(*(self.head_label(h, 22).next_to(weights.bands[h - 1], UP, buff=0.2)
                         for h in self.head_numbers()))
        packed_name = self.shape("W_Q", "shapes.W_Q_packed", 24)
        packed_name.next_to(weights.brackets, LEFT, buff=0.3)
        offsets_name = self.bound("{n} query offsets", 20, MUTED,
                                  n="bias.offsets_per_projection")
        offsets_name.next_to(offsets.slots, LEFT, buff=0.3)
        place(VGroup(weights, offsets, names, packed_name, offsets_name),
              top=CONTENT_TOP - HEADS_LABEL_ROOM)
        # Apart first: each head's columns, its bias row beneath, a gap between heads.
        width = self.ws.d_head
        apart = [RIGHT * SPREAD * (h - (heads + 1) / 2) for h in self.head_numbers()]
        pieces = [VGroup(VGroup(*(weights.cells[r][c] for r in range(d)
                                  for c in range((h - 1) * width, h * width))),
                         weights.bands[h - 1], offsets.heads[h - 1], names[h - 1])
                  for h in self.head_numbers()]
        for piece, shift in zip(pieces, apart, strict=True):
            piece.shift(shift)
        own = VGroup(*(brackets(VGroup(weights.bands[h - 1],
                                       *(weights.cells[r][c] for r in range(d)
                                         for c in range((h - 1) * width, h * width))),
                                pad=0.06)
                       for h in self.head_numbers()))
        each = self.bound("each head's W_Q: {s}", 22, MUTED, s="shapes.W_Q")
        each.next_to(VGroup(weights.bands, names), UP, buff=0.25)
        first = VGroup(*(weights.cells[r][c] for r in range(d) for c in range(width)))
        self.say("Each head has its own query matrix, {s}, drawn here side by side."
                 if heads > 1 else "The one head has its own query matrix, {s}.",
                 Fade(VGroup(*(VGroup(p[0], p[1]) for p in pieces), own, names, each)),
                 self.point_at(first, weights.bands[0]), s="shapes.W_Q")
        values, value_keys = vector("b", "bias.offset", width)
        self.say("Under head {h}'s matrix sits its bias b, " + values + ", one offset per "
                 "query column.", Fade(offsets.heads[0]),
                 self.point_at(offsets.heads[0], buff=AROUND_TEXT / 2),
                 h="dims.head_numbers[0]", **value_keys)
        if heads > 1:
            self.say("Every other head has a bias row of its own, left empty here.",
                     Fade(VGroup(*offsets.heads[1:])),
                     self.point_at(*offsets.heads[1:], each=True, buff=AROUND_TEXT / 2))
            for piece, shift in zip(pieces, apart, strict=True):
                piece.shift(-shift)  # the pointer is drawn where head 1's columns will be
            pointer = self.point_at(VGroup(*(weights.cells[r][0] for r in range(d))),
                                    weights.bands[0])
            for piece, shift in zip(pieces, apart, strict=True):
                piece.shift(shift)
            self.say("Pushed together, the heads' matrices make one W_Q, {p}: head {h}'s "
                     "columns come first.",
                     *(piece.animate.shift(-shift) for piece, shift in
                       zip(pieces, apart, strict=True)),
                     Fade(own, appear=False), Fade(packed_name),
                     Fade(weights.brackets), pointer, run_time=2.0, p="shapes.W_Q_packed",
                     h="dims.head_numbers[0]")
        else:
            self.say("With one head, that matrix is the whole W_Q, {p}.",
                     Fade(own, appear=False), Fade(packed_name),
                     Fade(weights.brackets), self.point_at(weights.brackets, packed_name),
                     p="shapes.W_Q_packed")
        if heads > 1:
            self.say("The bias packs the same way: head {h}'s b is the first slice of the "
                     "{n} query offsets.", Fade(offsets_name),
                     self.point_at(offsets.heads[0], buff=AROUND_TEXT / 2),
                     h="dims.head_numbers[0]", n="bias.offsets_per_projection")
            self.say("So in Q + b, head {h}'s query columns get head {h}'s offsets, and "
                     "no other head's.",
                     self.point_at(weights.bands[0], offsets.heads[0]),
                     h="dims.head_numbers[0]")
        else:
            self.say("Its b is then all {n} query offsets.", Fade(offsets_name),
                     self.point_at(offsets.heads[0], offsets_name),
                     n="bias.offsets_per_projection")

    # ------------------------------------------------------------ which projections

    def projection_block(self, name: str, by_rows: bool, heads_in_bias: bool) -> VGroup:
        """One projection drawn: its name, a square of weights tinted by head (columns, or
        rows for W_O, which takes the joined heads in) and, beneath, its row of offsets.
        Attributes ``square`` and ``offsets``."""
        d, width = self.ws.d_model, self.ws.d_head
        cell = SQUARE_SIDE / d
        square = VGroup(Square(SQUARE_SIDE, stroke_color=MUTED, stroke_width=2))
        for h in self.head_numbers():
            colour = self.head_colour(h)
            middle = -SQUARE_SIDE / 2 + cell * width * (h - 0.5)
            band = Rectangle(width=SQUARE_SIDE if by_rows else cell * width,
                             height=cell * width if by_rows else SQUARE_SIDE,
                             stroke_width=1, stroke_color=colour, fill_color=colour,
                             fill_opacity=0.35)
            square.add(band.move_to([0, -middle, 0] if by_rows else [middle, 0, 0]))
        offsets = VGroup()
        for c in range(d):
            colour = self.head_colour(c // width + 1) if heads_in_bias else MUTED
            offsets.add(Square(cell, stroke_width=1, stroke_color=colour, fill_color=colour,
                               fill_opacity=0.5))
        offsets.arrange(RIGHT, buff=0).next_to(square, DOWN, buff=0.15)
        title = self.label(name, 26).next_to(square, UP, buff=0.2)
        block = VGroup(title, square, offsets)
        block.square, block.offsets = square, offsets
        return block

    def untouched(self) -> VGroup:
        """Small pictures of what the flag leaves alone: the causal mask, the position
        rows, the prediction MLP. Attributes ``mask``, ``positions`` and ``mlp``."""
        size = 20
        mask = mask_grid(min(self.ws.length, 6), 0.8)
        rows = VGroup(*(Rectangle(width=0.9, height=0.14, stroke_width=1, stroke_color=MUTED,
                                  fill_color=NEUTRAL_FILL, fill_opacity=1)
                        for _ in range(POSITIONS_SHOWN))).arrange(DOWN, buff=0.08)
        layers = VGroup(Rectangle(width=0.35, height=0.8), Rectangle(width=0.35, height=0.5))
        layers.set_style(stroke_color=MUTED, stroke_width=2, fill_color=NEUTRAL_FILL,
                         fill_opacity=1).arrange(RIGHT, buff=0.35)
        link = Arrow(layers[0].get_right(), layers[1].get_left(), buff=0.05,
                     stroke_width=2, color=MUTED, tip_length=0.12)
        pictures = [mask, rows, VGroup(layers, link)]
        names = ["causal mask", "position rows", "prediction MLP"]
        items = VGroup(*(VGroup(picture, self.label(text, size, MUTED)).arrange(DOWN, buff=0.2)
                         for picture, text in zip(pictures, names, strict=True)))
        items.arrange(RIGHT, buff=0.5, aligned_edge=DOWN)
        heading = self.label("unchanged by the flag", size, INK).next_to(items, UP, buff=0.3)
        group = VGroup(heading, items)
        group.mask, group.positions, group.mlp = items[0], items[1], items[2]
        return group

    def projections(self) -> None:
        names = ["W_Q", "W_K", "W_V", "W_O"]
        blocks, weights, offsets = VGroup(), VGroup(), VGroup()
        for name in names:
            block = self.projection_block(name, by_rows=name == "W_O",
                                          heads_in_bias=name != "W_O")
            weights.add(self.bound("{d} × {d} = {w} weights", 20, INK, d="dims.d_model",
                                   w="bias.weights_per_projection"))
            offsets.add(self.bound("+ {n} offsets", 20, INK, n="bias.offsets_per_projection"))
            VGroup(weights[-1], offsets[-1]).arrange(DOWN, buff=0.15).next_to(block, DOWN,
                                                                             buff=0.2)
            blocks.add(VGroup(block, weights[-1], offsets[-1]))
        blocks.arrange(RIGHT, buff=0.55, aligned_edge=UP)
        blocks[3].shift(RIGHT * 0.5)
        squares = [block[0].square for block in blocks]
        rows = [block[0].offsets for block in blocks]
        packs = VGroup(self.label("in_proj: queries, keys, values", 20, MUTED)
                       .next_to(blocks[:3], UP, buff=0.25),
                       self.label("out_proj", 20, MUTED).next_to(blocks[3], UP, buff=0.25))
        packs[1].align_to(packs[0], DOWN)
        counts = VGroup(
            self.bound("bias=False: {p} × {w} = {a} parameters", 22, mono=True,
                       p="bias.projections", w="bias.weights_per_projection",
                       a="bias.params_without"),
            self.bound("offsets:    {p} × {o} = {c}", 22, mono=True, p="bias.projections",
                       o="bias.offsets_per_projection", c="bias.extra"),
            self.bound("bias=True:  {a} + {c} = {b} parameters", 22, mono=True,
                       a="bias.params_without", c="bias.extra", b="bias.params_with"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        alone = self.untouched()
        VGroup(counts, alone).arrange(RIGHT, buff=0.9).next_to(blocks, DOWN, buff=0.5)
        place(VGroup(packs, blocks, counts, alone))
        self.say("PyTorch's default, bias=True, gives each of the query, key, value and "
                 "output projections a bias.",
                 LaggedStart(*(Fade(VGroup(block[0].square, block[0][0])) for block in blocks),
                             lag_ratio=0.3), Fade(packs),
                 LaggedStart(*(Fade(row) for row in rows), lag_ratio=0.3),
                 self.point_at(*rows, each=True), run_time=2.5)
        self.say("Each projection's matrix is {d} by {d}: {w} weights.",
                 Fade(weights), self.point_at(*squares, each=True),
                 d="dims.d_model", w="bias.weights_per_projection")
        self.say("Its bias adds {n} offsets, one per model coordinate.", Fade(offsets),
                 self.point_at(*rows, each=True), n="bias.offsets_per_projection")
        self.say("Without the bias, {p} matrices of {w} weights make {a} parameters.",
                 Fade(counts[0]), self.point_at(counts[0], *squares, each=True,
                                                buff=AROUND_TEXT / 2),
                 p="bias.projections", w="bias.weights_per_projection",
                 a="bias.params_without")
        self.say("The bias adds {o} offsets to each of the {p} projections: {c} more.",
                 Fade(counts[1]), self.point_at(counts[1], *rows, each=True,
                                                buff=AROUND_TEXT / 2),
                 o="bias.offsets_per_projection", p="bias.projections", c="bias.extra")
        self.say("With the bias, the layer has {b} parameters.", Fade(counts[2]),
                 self.point_at(counts[2], buff=AROUND_TEXT), b="bias.params_with")
        self.tell("The flag leaves the mask, the position rows and the prediction layers "
                  "alone.", Fade(alone[0]),
                  cues=[("mask", lambda: Succession(Fade(alone.mask),
                                                     self.point_at(alone.mask))),
                        ("position rows", lambda: Succession(
                            Fade(alone.positions), self.point_at(alone.positions))),
                        ("prediction", lambda: Succession(Fade(alone.mlp),
                                                           self.point_at(alone.mlp)))])

    # ------------------------------------------------------------ stored shapes

    def stored_transposed(self) -> None:
        """The lesson's W_Q [in, out], its head bands columns, beside the same numbers as
        PyTorch stores them, [out, in]: each head's columns turn into its rows."""
        d = self.ws.d_model
        size = NUMBER_SIZE_SMALL if d > 4 else 26
        ours = self.query_weights(size)
        theirs = self.query_weights(size, transposed=True)
        theirs.next_to(ours, RIGHT, buff=3.2 if d <= ELIDE_AFTER else 1.9).align_to(ours, UP)
        lesson = VGroup(self.label("in this lesson", 22, MUTED), self.code("E · W_Q", 24),
                        self.bound("W_Q [in, out] = {s}", 22, mono=True,
                                   s="shapes.W_Q_packed")).arrange(DOWN, buff=0.35)
        lesson.next_to(ours, UP, buff=0.3)
        stored = VGroup(self.label("in PyTorch", 22, MUTED),
                        self.bound("W_Qᵀ [out, in] = {t}", 22, mono=True,
                                   t="bias.in_proj_block")).arrange(DOWN, buff=0.35)
        stored.next_to(theirs, UP, buff=0.3).align_to(lesson, DOWN)
        turn = Arrow(ours.get_right(), theirs.get_left(), buff=0.25, stroke_width=3,
                     color=MUTED, tip_length=0.2)
        turn_name = self.label("transpose", 20, MUTED).next_to(turn, UP, buff=0.1)
        place(VGroup(ours, theirs, lesson, stored, turn, turn_name))
        self.transposed = theirs
        self.lesson_side = VGroup(ours, lesson, stored, turn, turn_name)
        self.say("In this lesson a projection is E · W_Q, with W_Q shaped inputs by "
                 "outputs, {s}.", Fade(VGroup(ours, lesson)),
                 self.point_at(lesson[1:], buff=AROUND_TEXT), s="shapes.W_Q_packed")
        d_cells = [(r, c) for r in range(d) for c in range(d)]
        self.say("PyTorch stores each matrix transposed, outputs by inputs: {t}.",
                 Fade(VGroup(stored, turn, turn_name, theirs.brackets)),
                 *(TransformFromCopy(ours.cells[r][c], theirs.cells[r][c]) for r, c in d_cells),
                 *(TransformFromCopy(a, b) for a, b in zip(ours.bands, theirs.bands,
                                                           strict=True)),
                 self.point_at(stored[1], buff=AROUND_TEXT), run_time=2.5,
                 t="bias.in_proj_block")
        self.say("The first head's columns turn into its rows, one row per output."
                 if self.ws.n_heads > 1 else
                 "Each column of W_Q turns into a row, one row per output.",
                 self.point_at(ours.bands[0], theirs.bands[0], each=True, buff=0))

    def stored_shapes(self) -> None:
        """The transposed W_Q shrinks into the first of three stacked blocks (queries, keys,
        values, each [out, in]); the packed offsets stand beside, then W_O's."""
        theirs = self.transposed
        d = self.ws.d_model
        insides = [VGroup(self.code(name + "ᵀ", 22),
                          self.bound("[out, in] = {s}", 18, MUTED, mono=True,
                                     s="bias.in_proj_block")).arrange(DOWN, buff=0.12)
                   for name in ("W_Q", "W_K", "W_V")]
        # Room for a pointer inside, and for the strip of head colours clear of the name.
        width = max(inside.width for inside in insides) + 0.9 + 2 * STRIP
        height = max(inside.height for inside in insides) + 0.6
        blocks = VGroup()
        for inside in insides:
            box = Rectangle(width=width, height=height, stroke_color=MUTED, stroke_width=2)
            tints = VGroup()
            for h in self.head_numbers():
                share = height * self.ws.d_head / d
                colour = self.head_colour(h)
                tints.add(Rectangle(width=STRIP, height=share, stroke_width=0,
                                    fill_color=colour, fill_opacity=0.6)
                          .move_to(box.get_corner(UP + LEFT)
                                   + RIGHT * STRIP / 2 + DOWN * share * (h - 0.5)))
            blocks.add(VGroup(tints, box, inside.move_to(box).shift(RIGHT * STRIP / 2)))
        blocks.arrange(DOWN, buff=0)
        brace = Brace(blocks, RIGHT, color=MUTED)
        packed = self.shape("in_proj_weight", "bias.in_proj_weight", 22)
        packed.next_to(brace, RIGHT, buff=0.2)
        slot = height / d
        biases = VGroup()
        for block in range(3):
            for c in range(d):
                colour = self.head_colour(c // self.ws.d_head + 1)
                biases.add(Rectangle(width=0.32, height=slot, stroke_width=1,
                                     stroke_color=colour, fill_color=colour,
                                     fill_opacity=0.5 if block == 0 else 0.2))
        biases.arrange(DOWN, buff=0)
        biases.next_to(packed, RIGHT, buff=0.6).match_y(blocks)
        bias_name = VGroup(self.shape("in_proj_bias", "bias.in_proj_bias", 22),
                           self.label("one offset per row", 18, MUTED)
                           ).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        bias_name.next_to(biases, RIGHT, buff=0.25)
        rows = [[self.shape("out_proj.weight", "bias.out_proj_weight", 22),
                 self.label("W_O, stored transposed", 20, MUTED)],
                [self.shape("out_proj.bias", "bias.out_proj_bias", 22),
                 self.label("output offsets", 20, MUTED)]]
        rest = grid(rows, h_buff=0.5, v_buff=0.3)
        right = VGroup(blocks, brace, packed, biases, bias_name)
        rest.next_to(right, DOWN, buff=0.45)
        everything = VGroup(right, rest)
        place(everything)
        # The transposed matrix becomes the first block: its bands the block's tints, its
        # brackets the block's outline, its numbers giving way to the block's name.
        self.remove(theirs)
        self.add(theirs.bands, theirs.body, theirs.brackets)
        tints, box, inside = blocks[0]
        with self.silence("the lesson's matrix makes way for the stack"):
            self.play(Fade(self.lesson_side, appear=False), run_time=0.5)
        self.say("It stacks the query, key and value matrices along the rows into "
                 "in_proj_weight, {w}.",
                 ReplacementTransform(theirs.bands, tints),
                 ReplacementTransform(theirs.brackets, box),
                 Fade(theirs.body, appear=False), Fade(inside),
                 LaggedStart(Fade(blocks[1]), Fade(blocks[2]), Fade(VGroup(brace, packed)),
                             lag_ratio=0.5),
                 self.point_at(packed, buff=AROUND_TEXT), run_time=2.5,
                 w="bias.in_proj_weight")
        first = VGroup(*biases[:self.ws.d_head])
        b = self.label("b", 22, self.head_colour(1)).next_to(first, LEFT, buff=0.15)
        self.say("Their offsets sit together in in_proj_bias, {b}, the first head's b on "
                 "top." if self.ws.n_heads > 1 else
                 "Their offsets sit together in in_proj_bias, {b}, the head's b on top.",
                 Fade(VGroup(biases, bias_name, b)),
                 self.point_at(VGroup(first, b), bias_name[0], each=True,
                               buff=AROUND_TEXT / 2), b="bias.in_proj_bias")
        self.say("W_O is stored transposed in out_proj.weight, {w}, and its offsets in "
                 "out_proj.bias, {b}.", Fade(VGroup(*rows[0], *rows[1])),
                 self.point_at(rows[0][0], rows[1][0], each=True, buff=AROUND_TEXT / 2),
                 w="bias.out_proj_weight", b="bias.out_proj_bias")

    # ------------------------------------------------------------ this lesson

    def this_lesson(self) -> None:
        """The four projections again, their offset rows taken away: bias=False."""
        blocks = VGroup(*(self.projection_block(name, by_rows=name == "W_O",
                                                heads_in_bias=name != "W_O")
                          for name in ("W_Q", "W_K", "W_V", "W_O")))
        blocks.arrange(RIGHT, buff=0.9, aligned_edge=UP)
        flag = self.code("bias=False", 32)
        gone = VGroup(self.code("in_proj_bias: None", 22), self.code("out_proj.bias: None", 22)
                      ).arrange(RIGHT, buff=0.8)
        aside = self.label("a simplification, not a verdict", 24, MUTED)
        rows = [block.offsets for block in blocks]
        VGroup(flag, blocks, gone, aside).arrange(DOWN, buff=0.6)
        gone[0].set_x(blocks[:3].get_x())  # in_proj's offsets under W_Q, W_K and W_V
        gone[1].set_x(blocks[3].get_x())
        place(VGroup(flag, blocks, gone, aside))
        empty = VGroup(*(DashedVMobject(Rectangle(width=row.width, height=row.height,
                                                  stroke_color=MUTED, stroke_width=1.5),
                                        num_dashes=16).move_to(row) for row in rows))
        self.say("This lesson uses bias=False, so the layer matches the hand-chosen worksheet "
                 "exactly.", Fade(VGroup(blocks, flag)), self.point_at(flag, buff=AROUND_TEXT))
        self.say("Without the flag, every offset row is gone.",
                 *(Fade(row, appear=False) for row in rows), Fade(empty), Fade(gone),
                 self.point_at(*empty, each=True, buff=AROUND_TEXT / 2))
        self.say("That is a simplification, not a claim that no bias is better.",
                 Fade(aside), self.point_at(aside, buff=AROUND_TEXT))
