"""The bias flag: what `bias=True` adds to each projection, from the `bias.*` values."""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    DashedVMobject,
    GrowArrow,
    LaggedStart,
    Rectangle,
    Square,
    Succession,
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
    cued,
    model_map,
    on_baseline,
    vector,
)
from scenes.kit.palette import NEUTRAL_FILL
from scenes.kit.topic import (
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
"""How many position rows the picture of what the flag leaves alone draws."""

BAND_TINT = 0.15
"""Fill of the tint behind one head's columns (or rows) of a packed matrix."""

NUMBER_SIZE_SMALL = 21
"""Numbers of a packed matrix wider than four columns (legible from the back of a hall)."""

HALL_SIZE = 20.5
"""The least font size of a number once its picture is fitted: its digits stay 2.5% of the
frame tall, legible from the back of a hall."""

SPREAD = 0.9
"""How far apart the heads' own matrices stand before they are pushed together."""

SQUARE_SIDE = 1.5
"""Side of a projection's square of weights, whatever the model width."""

LETTER = 1.4
"""How much larger an offset symbol's letter is than its head and coordinate numbers, which
keep the packed matrix's size (legible from the back of a hall)."""


# --------------------------------------------------------------------------- bias


class BiasFlag(LibraryScene):
    """A projection bias: one offset row shared by every row, and what bias=True costs."""

    draws_its_own_map = True  # the map stays for a second sentence: the flag reaches W_O too

    def construct(self) -> None:
        self.section("where we are")
        self.where_in_the_model()
        self.section("the flag")
        self.stage("A bias adds an offset")
        self.the_flag()
        self.section("shared offset")
        self.stage("A bias adds one row, b, to every row")
        self.shared_offset()
        self.section("packed heads")
        self.stage("Each head's W_Q, packed into one")
        self.packed_heads()
        self.section("which projections")
        self.stage("What bias=True, the default, switches on")
        self.projections()
        self.section("this lesson")
        self.stage("This lesson leaves the bias out")
        self.this_lesson()

    def where_in_the_model(self) -> None:
        """The model map with the part's steps lit, as every part opens, then W_O named:
        the output projection can carry a bias as well."""
        opened = part("bias")
        self.where = opened.steps
        whole = model_map(self, lit=opened.steps, size=20).move_to([0, 0.2, 0])
        # What the question is about, drawn as each place is named: a "+ b" that may be there.
        asked = [self.label("+ b ?", 22, INK).next_to(whole.stages[stage], DOWN, buff=0.3)
                 for stage in ("heads", "W_O")]
        self.say(opened.opening, cued(opened.opening, [("bias", Fade(asked[0]))],
                                      opening=[Fade(whole),
                                               self.point_at(whole.stages["heads"])]))
        self.say("W_O, the output projection, can carry one too.", Fade(asked[1]),
                 self.point_at(whole.stages["W_O"], asked[1]))

    def the_flag(self) -> None:
        """What a bias is, in the lesson's terms: a projection is a multiplication, q = e W_Q;
        a bias adds a learned offset after it, q = e W_Q + b. Only then is the switch named,
        as PyTorch spells it, beside the line it gives."""
        lines = [self.code("q = e · W_Q", 30) for _ in range(2)]
        offset = self.code("+ b", 30)
        offset.set_color(self.head_colour(1))  # head 1's b, as the sum below draws it
        with_offset = on_baseline(VGroup(lines[1], offset), 0.3)
        flags = [self.code("bias=" + flag, 26) for flag in ("False", "True")]
        rows = grid([[flags[0], lines[0]], [flags[1], with_offset]], h_buff=0.8, v_buff=0.6,
                    aligns="rl")
        spelled = self.label("in PyTorch", 22, INK).next_to(VGroup(*flags), UP, buff=0.35)
        e_is = self.label("e: a token's row, q: its query", 22, MUTED)
        b_is = self.label("b: a learned offset, one per query coordinate", 22, MUTED)
        notes = VGroup(e_is, b_is).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        notes.next_to(rows, DOWN, buff=0.6).align_to(lines[0], LEFT)
        place(VGroup(rows, spelled, notes))
        self.say("A projection multiplies a token's row e by W_Q, giving its query q.",
                 Fade(VGroup(lines[0], e_is)), self.point_at(lines[0], buff=AROUND_TEXT))
        said = "A bias adds a learned offset b after the multiplication."
        self.say(said, cued(said, [("offset", self.point_at(offset, b_is, each=True,
                                                            buff=AROUND_TEXT))],
                            opening=[Fade(lines[1]), Fade(offset),
                                     Fade(b_is)], step=0.8))
        said = "PyTorch calls this switch the bias flag: bias=True adds b, bias=False does not."
        self.say(said, cued(said, [
            ("this switch", Fade(spelled)),
            ("bias=True", AnimationGroup(Fade(flags[1]), self.point_at(
                flags[1], with_offset, buff=AROUND_TEXT))),
            ("bias=False", AnimationGroup(Fade(flags[0]), self.point_at(
                flags[0], lines[0], buff=AROUND_TEXT)))], step=0.8))

    def shared_offset(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        colour = self.head_colour(1)  # head 1's queries, with and without the offset
        row_h = min(0.5, 4.6 / len(tokens))
        size = max(HALL_SIZE, min(24.0, row_h * 46))
        v_buff = 0.18  # room for a pointer's outline between rows
        Q = self.matrix(f"{name}.h1.Q", row_labels=[self.word(t, min(size, 20)) for t in tokens],
                        size=size, colour=colour, v_buff=v_buff, h_buff=0.18)
        b = self.vec("bias.offset", size)
        shifted = self.matrix("bias.Q_offset", size=size, colour=colour, v_buff=v_buff,
                              h_buff=0.18)
        plus = self.label("+", size * 1.3)
        plus.next_to(Q, RIGHT, buff=0.3).set_y(Q.body.get_y())
        b.next_to(plus, RIGHT, buff=0.3)
        shifted.next_to(b, RIGHT, buff=0.6).align_to(Q.body, UP)
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
            (self.label("bias b", size, INK), b),
            (self.label("Q + b", size, colour), shifted.body)])
        place(VGroup(Q, plus, b, arrows, shifted, headers))

        self.say("Here are head {h}'s query rows, one per token.",
                 Fade(VGroup(Q, headers[0])), self.point_at(Q.body), h=head)
        values, value_keys = vector("b", "bias.offset", len(self.v.value("bias.offset")))
        self.say("Here b is " + values + ", chosen for illustration; with the flag on, "
                 "training learns it.",
                 LaggedStart(Fade(plus), Fade(VGroup(b, headers[1])), lag_ratio=0.5),
                 self.point_at(b, buff=AROUND_TEXT), **value_keys)
        steps = [(0.0, Fade(headers[2]))] + [(0.0, gone) for gone in self.unpointed()]
        for k, (row, arrow) in enumerate(zip(shifted.cells, arrows, strict=True)):
            steps += [(0.3 + 0.25 * k, GrowArrow(arrow)),
                      (0.5 + 0.25 * k, Fade(VGroup(*row)))]
        steps.append((0.5 + 0.25 * len(arrows), Fade(shifted.brackets)))
        self.say("The same b is added to every row, giving Q + b.", Cued(steps))
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
            said, names = "For “{w}”, the projection gives all zeros, " + q, {"w": tokens[row]}
            reads = [int(f) for f in self.v.value("bias.query_reads")]
            if self.v.value("bias.zero_row_unread") and len(reads) < self.ws.d_model:
                # Why: the token has none of the few features this head's queries read.
                features = self.ws.lesson.features
                named = [f"“{{f{k}}}”" for k in range(len(reads))]
                listed = named[0] if len(named) == 1 else \
                    ", ".join(named[:-1]) + " and " + named[-1]
                said += ": this head's W_Q reads only " + listed + ", which “{w}” lacks"
                names |= {f"f{k}": features[f] for k, f in enumerate(reads)}
            self.say(said + ".", self.point_at(before), words=names, **q_keys)
            self.say("Adding b gives " + s + ", the bias itself: a bias moves even a zero "
                     "row.", self.point_at(after), **s_keys)
        else:
            self.say("The final receiver, “{w}”, has the query " + q + ".",
                     self.point_at(before), words={"w": tokens[row]}, **q_keys)
            self.say("Adding b moves each coordinate by b's entry: " + s + ".",
                     self.point_at(after), **s_keys)

    # ------------------------------------------------------------ packed heads

    def query_weights(self, size: float, room: float = 0.0) -> VGroup:
        """W_Q as the lesson packs it, from each head's own ``[d_model, d_head]`` matrix:
        head h's numbers, in its colour, fill the h-th band of columns.

        ``room`` is the least width of a column (for the offsets drawn under it).
        Attributes: ``cells[r][c]`` (the packed entry ``[r][c]``), ``bands`` (one tinted
        rectangle per head), ``body``, ``brackets``, ``features`` (each row's coordinate
        name, left of the brackets) and ``pitch`` (the distance between rows).
        """
        d, width = self.ws.d_model, self.ws.d_head
        cells = [[self.num(f"params.h{c // width + 1}.W_Q[{r}][{c % width}]", size,
                           self.head_colour(c // width + 1)) for c in range(d)]
                 for r in range(d)]
        across = max(room, *(cell.width for row in cells for cell in row)) + (
            0.35 if d <= ELIDE_AFTER else 0.22)
        down = max(cell.height for row in cells for cell in row) + 0.16

        def spot(row: float, column: float) -> np.ndarray:
            return np.array([column * across, -row * down, 0.0])

        for r, row in enumerate(cells):
            for c, cell in enumerate(row):
                cell.move_to(spot(r, c))
        body = VGroup(*(cell for row in cells for cell in row))
        bands = VGroup(*(self.head_band(h, d, width, spot, across, down)
                         for h in self.head_numbers()))
        sides = brackets(VGroup(body, bands), pad=0.06)
        features = VGroup(*(self.bound("{f}", min(size, 22), MUTED,
                                       words={"f": self.ws.lesson.features[r]})
                            .move_to(spot(r, 0)) for r in range(d)))
        for name in features:  # each row's coordinate, right-aligned left of the bracket
            name.shift(RIGHT * (sides[0].get_left()[0] - 0.15 - name.get_right()[0]))
        picture = VGroup(bands, body, sides, features)
        picture.cells, picture.bands, picture.body, picture.brackets = cells, bands, body, sides
        picture.features, picture.pitch = features, down
        return picture

    def head_band(self, head: int, d: int, width: int, spot: Any, across: float,
                  down: float) -> Rectangle:
        """A tint behind head ``head``'s columns of a packed matrix."""
        middle = (head - 1) * width + (width - 1) / 2
        colour = self.head_colour(head)
        band = Rectangle(width=width * across, height=d * down, stroke_color=colour,
                         stroke_width=1.5, fill_color=colour, fill_opacity=BAND_TINT)
        return band.move_to(spot((d - 1) / 2, middle))

    def head_numbers(self) -> range:
        return range(1, self.ws.n_heads + 1)

    def offset_symbol(self, head: int, k: int, size: float) -> VGroup:
        """Offset ``k`` of head ``head`` as a symbol: b, the head above it (the lesson's
        superscripts name heads) and the coordinate below, in the head's colour. A learned
        number that the example does not set."""
        symbol = self.bound("b{h}{i}", size, self.head_colour(head),
                            h=f"dims.head_numbers[{head - 1}]", i=f"dims.value_numbers[{k}]")
        letter = symbol.submobjects[0]
        letter.scale(LETTER, about_edge=DOWN + RIGHT)  # the numbers keep the hall's size
        for index, edge in ((0, UP), (1, DOWN)):
            script = VGroup(*symbol.figure_glyphs(index))
            script.next_to(letter, RIGHT, buff=0.04).align_to(letter, edge)
            script.shift(edge * script.height * 0.3)
        return symbol

    def query_offsets(self, weights: VGroup, size: float) -> VGroup:
        """The packed query bias under ``weights``: one slot per column, in the column's
        head colour. Head 1's slots hold its b; the other heads' offsets are learned numbers
        that the example does not set, each written as a symbol where its slot would be.
        Attributes ``slots`` (every column's place, for layout; only head 1's are drawn)
        and ``heads`` (what each head's offsets draw: head 1's slots and numbers, the other
        heads' symbols)."""
        d, width = self.ws.d_model, self.ws.d_head
        pitch = weights.cells[0][1].get_x() - weights.cells[0][0].get_x() if d > 1 else 0.6
        slots, heads = VGroup(), [VGroup() for _ in self.head_numbers()]
        y = weights.brackets.get_bottom()[1] - size / 40 - 0.1
        for c in range(d):
            head, k = c // width + 1, c % width
            colour = self.head_colour(head)
            slot = Rectangle(width=pitch - 0.1, height=min(size / 40, weights.pitch - 0.1),
                             stroke_width=2, stroke_color=colour, fill_opacity=0.0)
            slot.move_to([weights.cells[0][c].get_x(), y, 0])
            slots.add(slot)
            if head == 1:
                heads[0].add(slot, self.num(f"bias.offset[{k}]", size, colour).move_to(slot))
            else:
                heads[head - 1].add(self.offset_symbol(head, k, size).move_to(slot))
        row = VGroup(slots, *heads)
        row.slots, row.heads = slots, heads
        return row

    def product_rows(self, weights: VGroup, offsets: VGroup, size: float) -> VGroup:
        """What the multiplication section draws, laid out with the packed picture so that
        the picture's fit leaves room for it: the final receiver's row e left of W_Q, and
        under W_Q, column by column, e · W_Q (where the offsets stand at first), then the
        offsets (moved one row down), then head 1's sum. Attributes ``token`` (e, its name
        and the product sign), ``product``, ``total``, ``names`` (the three rows' names)
        and ``step`` (the distance between those rows)."""
        name, width = self.ws.walkthrough, self.ws.d_head
        tokens = self.ws.sentences[name]
        last = len(tokens) - 1
        row = self.vec(f"{name}.E[{last}]", size)
        times = self.label("·", size * 1.3)
        token = VGroup(row, times).arrange(RIGHT, buff=0.25)
        token.next_to(weights.features, LEFT, buff=0.4).set_y(weights.body.get_y())
        called = self.bound("e, the final “{w}”", 22, INK, words={"w": tokens[-1]})
        called.next_to(row, UP, buff=0.25)
        token.add(called)
        step = max(weights.pitch, *(m.height + 0.08 for m in offsets.heads))
        rows = [offsets.slots.get_y() - step * k for k in range(3)]
        product = VGroup(*(self.num(f"{name}.h{c // width + 1}.Q[{last}][{c % width}]", size,
                                    self.head_colour(c // width + 1))
                           .move_to([cell.get_x(), rows[0], 0])
                           for c, cell in enumerate(weights.cells[0])))
        total = VGroup(*(self.num(f"bias.Q_offset[{last}][{c}]", size, self.head_colour(1))
                         .move_to([weights.cells[0][c].get_x(), rows[2], 0])
                         for c in range(width)))
        names = VGroup(*(self.label(text, min(size, 22), INK).move_to([0, y, 0])
                         for text, y in zip(("e · W_Q", "+ b", "= sum"), rows, strict=True)))
        for label in names:
            label.shift(RIGHT * (weights.brackets[0].get_left()[0] - 0.15
                                 - label.get_right()[0]))
        made = VGroup(token, product, total, names)
        made.token, made.product, made.total, made.names, made.step = \
            token, product, total, names, step
        return made

    def packed_heads(self) -> None:
        """Each head's W_Q, [d_model, d_head], with its bias row beneath; pushed together
        they are the packed W_Q and the packed query offsets, one band per head."""
        d, heads = self.ws.d_model, self.ws.n_heads
        size = NUMBER_SIZE_SMALL if d > 4 else 28
        name, width = self.ws.walkthrough, self.ws.d_head
        last = len(self.ws.sentences[name]) - 1
        shown = [f"bias.offset[{c}]" for c in range(width)] + \
            [f"bias.Q_offset[{last}][{c}]" for c in range(width)] + \
            [f"{name}.h{h}.Q[{last}][{c}]" for h in self.head_numbers() for c in range(width)]
        room = max(self.num(key, size).width for key in shown)  # the columns' widest row
        weights = self.query_weights(size, room=room)
        offsets = self.query_offsets(weights, size)
        names = VGroup(*(self.head_label(h, 22).next_to(weights.bands[h - 1], UP, buff=0.2)
                         for h in self.head_numbers()))
        each = self.bound("each head's W_Q: {s}", 22, INK, s="shapes.W_Q")
        each.next_to(VGroup(weights.bands, names), UP, buff=0.25)
        packed_name = self.shape("W_Q", "shapes.W_Q_packed", 24)
        packed_name.next_to(weights.features, LEFT, buff=0.3)
        offsets_name = self.bound("{n} query offsets", 22, INK,
                                  n="bias.offsets_per_projection")
        offsets_name.next_to(offsets.slots, LEFT, buff=0.3)
        later = self.product_rows(weights, offsets, size) if heads > 1 else VGroup()
        place(VGroup(weights, offsets, names, each, packed_name, offsets_name, later))
        # Apart first: each head's columns, its bias row beneath, a gap between heads.
        apart = [RIGHT * SPREAD * (h - (heads + 1) / 2) for h in self.head_numbers()]
        pieces = [VGroup(VGroup(*(weights.cells[r][c] for r in range(d)
                                  for c in range((h - 1) * width, h * width))),
                         weights.bands[h - 1], offsets.heads[h - 1], names[h - 1])
                  for h in self.head_numbers()]
        pieces[0].add(weights.features)
        for piece, shift in zip(pieces, apart, strict=True):
            piece.shift(shift)
        own = VGroup(*(brackets(VGroup(weights.bands[h - 1],
                                       *(weights.cells[r][c] for r in range(d)
                                         for c in range((h - 1) * width, h * width))),
                                pad=0.06)
                       for h in self.head_numbers()))
        first = VGroup(*(weights.cells[r][c] for r in range(d) for c in range(width)))
        self.say("Each head has its own query matrix, {s}, drawn here side by side."
                 if heads > 1 else "The one head has its own query matrix, {s}.",
                 Fade(VGroup(*(VGroup(p[0], p[1]) for p in pieces), own, names, each,
                             weights.features)),
                 self.point_at(first, weights.bands[0]), s="shapes.W_Q")
        values, value_keys = vector("b", "bias.offset", width)
        self.say("Under head {h}'s matrix sits its bias b, " + values + ", one offset per "
                 "query column.", Fade(offsets.heads[0]),
                 self.point_at(offsets.heads[0], buff=AROUND_TEXT / 2),
                 h="dims.head_numbers[0]", **value_keys)
        if heads > 1:
            others = ("Head {o} has offsets of its own" if heads == 2 else
                      "The other heads have offsets of their own") + \
                " too: learned numbers, which our hand-chosen example leaves as symbols."
            self.say(others, Fade(VGroup(*offsets.heads[1:])),
                     self.point_at(*offsets.heads[1:], each=True, buff=AROUND_TEXT / 2),
                     **({"o": "dims.head_numbers[1]"} if heads == 2 else {}))
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
            self.section("multiplied")
            self.multiplied(offsets, VGroup(offsets_name, packed_name, each), later)
        else:
            self.say("Its b is then all {n} query offsets.", Fade(offsets_name),
                     self.point_at(offsets.heads[0], offsets_name),
                     n="bias.offsets_per_projection")

    def multiplied(self, offsets: VGroup, names_before: VGroup, later: VGroup) -> None:
        """The final receiver's row e, left of the packed W_Q, times W_Q: under the matrix,
        e · W_Q (every head's query coordinates), + b (the offsets, moved down beneath it)
        and, for head 1, whose offsets have values, the sum. ``names_before`` (the
        offsets', the packed matrix's and the heads' shapes) leave as e comes in."""
        width = self.ws.d_head
        token, product, total, names = later.token, later.product, later.total, later.names
        said = "Row e of the final “{w}”, times W_Q, gives every head's query at once."
        self.tell(said, cues=[
            ("Row e", lambda: AnimationGroup(
                Fade(token), Fade(*names_before, appear=False),
                VGroup(*offsets.heads).animate.shift(DOWN * later.step),
                self.point_at(token))),
            ("every head's", lambda: AnimationGroup(
                Fade(VGroup(product, names[0])), self.point_at(product)))],
            words={"w": self.ws.sentences[self.ws.walkthrough][-1]})
        said = "Then head {h}'s query columns get head {h}'s offsets, and no other head's."
        self.tell(said, cues=[
            ("offsets", lambda: AnimationGroup(
                Fade(VGroup(names[1], names[2], total)),
                self.point_at(*product[:width], offsets.heads[0], total)))],
            h="dims.head_numbers[0]")

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
        size = 22
        mask = mask_grid(min(self.ws.length, 6), 0.8)
        rows = VGroup(*(Rectangle(width=0.9, height=0.14, stroke_width=1, stroke_color=MUTED,
                                  fill_color=NEUTRAL_FILL, fill_opacity=1)
                        for _ in range(POSITIONS_SHOWN))).arrange(DOWN, buff=0.08)
        layers = VGroup(Rectangle(width=0.35, height=0.8), Rectangle(width=0.35, height=0.5))
        layers.set_style(stroke_color=MUTED, stroke_width=2, fill_color=NEUTRAL_FILL,
                         fill_opacity=1).arrange(RIGHT, buff=0.35)
        link = Arrow(layers[0].get_right(), layers[1].get_left(), buff=0.05,
                     stroke_width=2, color=MUTED, tip_length=0.12)
        own = self.label("+ b", size, INK).next_to(layers, RIGHT, buff=0.15)  # its biases
        pictures = [mask, rows, VGroup(layers, link, own)]
        names = ["causal mask", "position rows", "prediction MLP"]
        items = VGroup(*(VGroup(picture, self.label(text, size, INK)).arrange(DOWN, buff=0.2)
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
            weights.add(self.bound("{d} × {d} = {w} weights", 24, INK, d="dims.d_model",
                                   w="bias.weights_per_projection"))
            offsets.add(self.bound("+ {n} offsets", 24, INK, n="bias.offsets_per_projection"))
            VGroup(weights[-1], offsets[-1]).arrange(DOWN, buff=0.15).next_to(block, DOWN,
                                                                             buff=0.2)
            blocks.add(VGroup(block, weights[-1], offsets[-1]))
        blocks.arrange(RIGHT, buff=0.55, aligned_edge=UP)
        squares = [block[0].square for block in blocks]
        rows = [block[0].offsets for block in blocks]
        # "× 4" under a matrix counts its rows; here the count is of projections, said so.
        counts = VGroup(
            self.bound("bias=False: {p} projections × {w} = {a}", 24, mono=True,
                       p="bias.projections", w="bias.weights_per_projection",
                       a="bias.params_without"),
            self.bound("+ offsets:  {p} projections × {o} = {c}", 24, mono=True,
                       p="bias.projections", o="bias.offsets_per_projection", c="bias.extra"),
            self.bound("bias=True:  {a} + {c} = {b} parameters", 24, mono=True,
                       a="bias.params_without", c="bias.extra", b="bias.params_with"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        alone = self.untouched()
        VGroup(counts, alone).arrange(RIGHT, buff=0.9).next_to(blocks, DOWN, buff=0.5)
        place(VGroup(blocks, counts, alone))
        self.say("With bias=True, the default, every projection here has a bias.",
                 LaggedStart(*(Fade(VGroup(block[0].square, block[0][0])) for block in blocks),
                             lag_ratio=0.3),
                 LaggedStart(*(Fade(row) for row in rows), lag_ratio=0.3),
                 self.point_at(*rows, each=True), run_time=2.5)
        said = "Each matrix is {d} by {d}: {w} weights; its bias adds {n} offsets."
        self.say(said, cued(said, [("Each", self.point_at(*squares, each=True)),
                                   ("its bias", self.point_at(*rows, each=True))],
                            opening=[Fade(weights), Fade(offsets)], step=0.8),
                 d="dims.d_model", w="bias.weights_per_projection",
                 n="bias.offsets_per_projection")
        if self.ws.n_heads > 1:
            said = "W_O mixes the joined heads, so its offsets, grey, belong to no head."
            self.say(said, cued(said, [("W_O", self.point_at(squares[3])),
                                       ("offsets", self.point_at(rows[3]))], step=0.8))
        said = "Without the bias, the layer has {a} parameters; the offsets add {c}, for {b}."
        self.say(said, cued(said, [
            ("{a}", AnimationGroup(Fade(counts[0]), self.point_at(counts[0],
                                                                  buff=AROUND_TEXT / 2))),
            ("{c}", AnimationGroup(Fade(counts[1]), self.point_at(counts[1],
                                                                  buff=AROUND_TEXT / 2))),
            ("{b}", AnimationGroup(Fade(counts[2]), self.point_at(counts[2],
                                                                  buff=AROUND_TEXT / 2)))],
            step=0.8), a="bias.params_without", c="bias.extra", b="bias.params_with")
        self.tell("The flag leaves the mask and the position rows alone; the prediction MLP "
                  "keeps its own biases.", Fade(alone[0]),
                  cues=[("mask", lambda: Succession(Fade(alone.mask),
                                                     self.point_at(alone.mask))),
                        ("position rows", lambda: Succession(
                            Fade(alone.positions), self.point_at(alone.positions))),
                        ("prediction", lambda: Succession(Fade(alone.mlp),
                                                           self.point_at(alone.mlp)))])

    # ------------------------------------------------------------ this lesson

    def this_lesson(self) -> None:
        """The four projections again, their offset rows taken away: bias=False."""
        blocks = VGroup(*(self.projection_block(name, by_rows=name == "W_O",
                                                heads_in_bias=name != "W_O")
                          for name in ("W_Q", "W_K", "W_V", "W_O")))
        blocks.arrange(RIGHT, buff=0.9, aligned_edge=UP)
        flag = self.code("bias=False", 32)
        aside = self.label("simplification, not “no bias is better”", 24, INK)
        rows = [block.offsets for block in blocks]
        VGroup(flag, blocks, aside).arrange(DOWN, buff=0.6)
        place(VGroup(flag, blocks, aside))
        empty = VGroup(*(DashedVMobject(Rectangle(width=row.width, height=row.height,
                                                  stroke_color=MUTED, stroke_width=1.5),
                                        num_dashes=16).move_to(row) for row in rows))
        kept = VGroup(*(VGroup(*(part for part in block if part is not block.offsets))
                        for block in blocks))
        self.say("This lesson uses bias=False, so the layer gives exactly our hand-chosen "
                 "example's numbers.", Fade(VGroup(kept, empty, flag)),
                 self.point_at(flag, buff=AROUND_TEXT))
        said = "Every offset row is gone: a simplification, not a claim that no bias is " \
            "better."
        self.say(said, cued(said, [
            ("gone", self.point_at(*empty, each=True, buff=AROUND_TEXT / 2)),
            ("a simplification", AnimationGroup(Fade(aside),
                                                self.point_at(aside, buff=AROUND_TEXT)))],
            step=0.5))
