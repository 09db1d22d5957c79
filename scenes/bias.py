"""The bias flag: what `bias=True` adds to each projection, from the `bias.*` values."""

from __future__ import annotations

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Brace,
    GrowArrow,
    LaggedStart,
    Rectangle,
    VGroup,
)

from outline import part
from scenes.kit import (
    INK,
    MUTED,
    Cued,
    Fade,
    model_map,
    vector,
)
from scenes.kit.topic import (
    LibraryScene,
    frame,
    grid,
    headers_above,
    place,
)

__all__ = ["BiasFlag"]

AROUND_TEXT = 0.15
"""A pointer's clearance around a line of text, so its outline never sits on the glyphs."""

POSITIONS_SHOWN = 3
"""How many position rows stand beside the one bias row (all of them when there are fewer)."""


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
        self.section("which projections")
        self.stage("What the bias flag switches on")
        self.projections()
        self.section("stored shapes")
        self.stage("How PyTorch stores the projections")
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

    def projections(self) -> None:
        names = ["W_Q", "W_K", "W_V", "W_O"]
        blocks, weights, offsets = VGroup(), VGroup(), VGroup()
        for name in names:
            title = self.label(name, 26)
            weights.add(self.bound("{d} × {d} = {w} weights", 20, INK, d="dims.d_model",
                                   w="bias.weights_per_projection"))
            offsets.add(self.bound("+ {n} offsets", 20, INK, n="bias.offsets_per_projection"))
            body = VGroup(title, weights[-1], offsets[-1]).arrange(DOWN, buff=0.22)
            blocks.add(VGroup(body, frame(body, buff=0.28)))
        blocks.arrange(RIGHT, buff=0.45)
        blocks[3].shift(RIGHT * 0.5)
        packs = VGroup(self.label("in_proj: queries, keys, values", 20, MUTED)
                       .next_to(blocks[:3], UP, buff=0.25),
                       self.label("out_proj", 20, MUTED).next_to(blocks[3], UP, buff=0.25))
        packs[1].align_to(packs[0], DOWN)
        slice_note = self.bound("each head owns a slice of {d} of the query, key and "
                                "value offsets", 20, MUTED, d="bias.head_slice")
        slice_note.next_to(blocks, DOWN, buff=0.4)
        counts = VGroup(
            self.bound("bias=False: {p} × {w} = {a} parameters", 24, mono=True,
                       p="bias.projections", w="bias.weights_per_projection",
                       a="bias.params_without"),
            self.bound("offsets:    {p} × {o} = {c}", 24, mono=True, p="bias.projections",
                       o="bias.offsets_per_projection", c="bias.extra"),
            self.bound("bias=True:  {a} + {c} = {b} parameters", 24, mono=True,
                       a="bias.params_without", c="bias.extra", b="bias.params_with"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        counts.next_to(slice_note, DOWN, buff=0.5)
        untouched = self.label("unchanged by the flag: the causal mask, position rows and "
                               "the prediction MLP's own biases", 20, MUTED)
        untouched.next_to(counts, DOWN, buff=0.5)
        place(VGroup(packs, blocks, slice_note, counts, untouched))
        self.say("PyTorch's default, bias=True, gives each of the query, key, value and "
                 "output projections a bias.",
                 LaggedStart(*(Fade(block) for block in blocks), lag_ratio=0.3),
                 Fade(packs), run_time=2.5)
        self.say("Each projection's matrix is {d} by {d}: {w} weights.",
                 self.point_at(*weights, each=True, buff=AROUND_TEXT / 2),
                 d="dims.d_model", w="bias.weights_per_projection")
        self.say("Its bias adds {n} offsets, one per model coordinate.",
                 self.point_at(*offsets, each=True, buff=AROUND_TEXT / 2),
                 n="bias.offsets_per_projection")
        self.say("Split into heads, each head's query, key and value offsets are slices of "
                 "{d}.", Fade(slice_note), self.point_at(slice_note, buff=AROUND_TEXT),
                 d="bias.head_slice")
        self.say("Without the bias, {p} matrices of {w} weights make {a} parameters.",
                 Fade(counts[0]), self.point_at(counts[0], buff=AROUND_TEXT),
                 p="bias.projections", w="bias.weights_per_projection",
                 a="bias.params_without")
        self.say("The bias adds {o} offsets to each of the {p} projections: {c} more.",
                 Fade(counts[1]), self.point_at(counts[1], buff=AROUND_TEXT),
                 o="bias.offsets_per_projection", p="bias.projections", c="bias.extra")
        self.say("With the bias, the layer has {b} parameters.", Fade(counts[2]),
                 self.point_at(counts[2], buff=AROUND_TEXT), b="bias.params_with")
        self.say("The flag leaves the mask, the position rows and the prediction layers "
                 "alone.", Fade(untouched), self.point_at(untouched, buff=AROUND_TEXT))

    def stored_shapes(self) -> None:
        """The lesson's W_Q [in, out] beside PyTorch's packed weight: each matrix stored
        transposed, [out, in], the three stacked along the rows; then the offsets."""
        lesson = VGroup(self.label("in this lesson", 22, MUTED), self.code("E · W_Q", 24),
                        self.bound("W_Q [in, out] = {s}", 22, mono=True,
                                   s="shapes.W_Q_packed")).arrange(DOWN, buff=0.3)
        insides = [VGroup(self.code(name + "ᵀ", 22),
                          self.bound("[out, in] = {s}", 18, MUTED, mono=True,
                                     s="bias.in_proj_block")).arrange(DOWN, buff=0.12)
                   for name in ("W_Q", "W_K", "W_V")]
        width = max(inside.width for inside in insides) + 0.9  # room for a pointer inside
        height = max(inside.height for inside in insides) + 0.6
        blocks = VGroup(*(VGroup(Rectangle(width=width, height=height, stroke_color=MUTED,
                                           stroke_width=2), inside)
                          for inside in insides)).arrange(DOWN, buff=0)
        for box, inside in blocks:
            inside.move_to(box)
        brace = Brace(blocks, RIGHT, color=MUTED)
        packed = self.shape("in_proj_weight", "bias.in_proj_weight", 24)
        packed.next_to(brace, RIGHT, buff=0.2)
        weight = VGroup(blocks, brace, packed)
        rows = [[self.shape("in_proj_bias", "bias.in_proj_bias", 22),
                 self.label("query, key and value offsets", 20, MUTED)],
                [self.shape("out_proj.weight", "bias.out_proj_weight", 22),
                 self.label("W_O, stored transposed", 20, MUTED)],
                [self.shape("out_proj.bias", "bias.out_proj_bias", 22),
                 self.label("output offsets", 20, MUTED)]]
        rest = grid(rows, h_buff=0.5, v_buff=0.3)
        top = VGroup(lesson, weight).arrange(RIGHT, buff=0.9)
        place(VGroup(top, rest).arrange(DOWN, buff=0.55))
        self.say("In this lesson a projection is E · W_Q, with W_Q shaped inputs by "
                 "outputs, {s}.", Fade(lesson), self.point_at(lesson[1:], buff=AROUND_TEXT),
                 s="shapes.W_Q_packed")
        self.say("PyTorch stores each matrix transposed, outputs by inputs: {t}.",
                 Fade(blocks[0]), self.point_at(blocks[0][1], buff=AROUND_TEXT),
                 t="bias.in_proj_block")
        self.say("It stacks the query, key and value matrices along the rows into "
                 "in_proj_weight, {w}.",
                 LaggedStart(Fade(blocks[1]), Fade(blocks[2]), Fade(VGroup(brace, packed)),
                             lag_ratio=0.5),
                 self.point_at(packed, buff=AROUND_TEXT), w="bias.in_proj_weight")
        self.say("Their offsets sit together in in_proj_bias, {b}.",
                 Fade(VGroup(*rows[0])), self.point_at(rows[0][0], buff=AROUND_TEXT),
                 b="bias.in_proj_bias")
        self.say("W_O is stored transposed in out_proj.weight, {w}, and its offsets in "
                 "out_proj.bias, {b}.", Fade(VGroup(*rows[1], *rows[2])),
                 self.point_at(rows[1][0], rows[2][0], each=True, buff=AROUND_TEXT / 2),
                 w="bias.out_proj_weight", b="bias.out_proj_bias")

    def this_lesson(self) -> None:
        flag = self.code("bias=False", 36)
        gone = VGroup(self.code("in_proj_bias: None", 24), self.code("out_proj.bias: None", 24)
                      ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        aside = self.label("a simplification, not a verdict on biases", 24, MUTED)
        place(VGroup(flag, gone, aside).arrange(DOWN, buff=0.6))
        self.say("This lesson uses bias=False, so the layer matches the hand-chosen worksheet "
                 "exactly.", Fade(VGroup(flag, gone)), self.point_at(flag, buff=AROUND_TEXT))
        self.say("That is a simplification, not a claim that no bias is better.",
                 Fade(aside), self.point_at(aside, buff=AROUND_TEXT))
