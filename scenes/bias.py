"""The bias flag: what `bias=True` adds to each projection, from the `bias.*` values."""



from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    LaggedStart,
    VGroup,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
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


# --------------------------------------------------------------------------- bias


class BiasFlag(LibraryScene):
    """A projection bias: one learned offset shared by every row, and what bias=True costs."""

    def construct(self) -> None:
        self.section("shared offset")
        self.stage("A bias adds the same learned offset to every row")
        self.shared_offset()
        self.section("which projections")
        self.stage("What the bias flag switches on")
        self.projections()
        self.section("stored shapes")
        self.stage("How PyTorch stores the weights and offsets")
        self.stored_shapes()

    def shared_offset(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        last = len(tokens) - 1
        colour = self.head_colour(1)  # head 1's queries, with and without the offset
        row_h = min(0.5, 4.4 / len(tokens))
        size = min(24.0, row_h * 46)
        Q = self.matrix(f"{name}.h1.Q", row_labels=[self.word(t, size) for t in tokens],
                        size=size, colour=colour)
        offsets = VGroup(*(self.vec("bias.offset", size).set_y(row[0].get_y())
                           for row in Q.cells))
        shifted = self.matrix("bias.Q_offset", size=size, colour=colour)
        plus, equals = self.label("+", size * 1.3), self.label("=", size * 1.3)
        offsets.next_to(Q, RIGHT, buff=0.75)
        plus.move_to((Q.get_right() + offsets.get_left()) / 2).set_y(Q.body.get_y())
        shifted.next_to(offsets, RIGHT, buff=0.75).align_to(Q.body, UP)
        shifted.shift(UP * (Q.body.get_top()[1] - shifted.body.get_top()[1]))
        equals.move_to((offsets.get_right() + shifted.get_left()) / 2).set_y(Q.body.get_y())
        head = "dims.head_numbers[0]"
        headers = headers_above([
            (self.bound("Head {h} queries Q", size, colour, h=head), Q.body),
            (self.label("offset b", size, MUTED), offsets),
            (self.label("Q + b", size, colour), shifted.body)])
        note = self.label("position rows differ from row to row; the bias is one row for all",
                          22, MUTED)
        picture = VGroup(Q, plus, offsets, equals, shifted, headers)
        place(VGroup(picture, note).arrange(DOWN, buff=0.35))

        self.say("Here are head {h}'s query rows, one for each token of the sentence.",
                 Fade(VGroup(Q, headers[0])), self.point_at(headers[0]), h=head)
        b, b_keys = vector("b", "bias.offset", len(self.v.value("bias.offset")))
        self.say("A bias adds one learned offset, b = " + b + ", to every row alike.",
                 LaggedStart(Fade(plus), Fade(VGroup(offsets, headers[1])), lag_ratio=0.5),
                 self.point_at(offsets), **b_keys)
        self.say("The sum, Q + b, is what the head then uses as its queries.",
                 Fade(equals), Fade(VGroup(shifted, headers[2])),
                 self.point_at(shifted.body))
        width = len(self.v.value("bias.offset"))
        q, q_keys = vector("q", f"{name}.h1.Q[{last}]", width)
        s, s_keys = vector("s", f"bias.Q_offset[{last}]", width)
        self.say("The final receiver, “{w}”, has query " + q + ".",
                 self.point_at(VGroup(*Q.cells[last])), words={"w": tokens[last]}, **q_keys)
        self.say("With the offset it becomes " + s + ".",
                 self.point_at(VGroup(*shifted.cells[last])), **s_keys)
        self.say("That is not a position embedding: position rows change from one position "
                 "to the next.", Fade(note), self.point_at(note))
        self.say("The bias is one row, the same for every position and every sentence.",
                 self.point_at(offsets))

    def projections(self) -> None:
        names = ["W_Q", "W_K", "W_V", "W_O"]
        blocks = VGroup()
        for name in names:
            title = self.label(name, 26)
            offsets = self.bound("+ {n} offsets", 20, INK, n="bias.offsets_per_projection")
            body = VGroup(title, offsets).arrange(DOWN, buff=0.2)
            blocks.add(VGroup(body, frame(body)))
        blocks.arrange(RIGHT, buff=0.45)
        blocks[3].shift(RIGHT * 0.5)
        packs = VGroup(self.label("in_proj: queries, keys, values", 20, MUTED)
                       .next_to(blocks[:3], UP, buff=0.25),
                       self.label("out_proj", 20, MUTED).next_to(blocks[3], UP, buff=0.25))
        packs[1].align_to(packs[0], DOWN)
        slice_note = self.bound("each head owns a slice of {d} of the query, key and "
                                "value offsets", 20, MUTED, d="bias.head_slice")
        slice_note.next_to(blocks, DOWN, buff=0.35)
        counts = VGroup(
            self.bound("bias=False: {a} parameters", 24, mono=True, a="bias.params_without"),
            self.bound("bias=True:  {b} parameters  (+{c})", 24, mono=True,
                       b="bias.params_with", c="bias.extra"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        counts.next_to(slice_note, DOWN, buff=0.5)
        untouched = self.label("unchanged by the flag: the causal mask, position rows and "
                               "the prediction MLP's own biases", 20, MUTED)
        untouched.next_to(counts, DOWN, buff=0.45)
        place(VGroup(packs, blocks, slice_note, counts, untouched))
        self.say("PyTorch's default, bias=True, gives each of the query, key, value and "
                 "output projections {n} offsets.",
                 LaggedStart(*(Fade(block) for block in blocks), lag_ratio=0.3),
                 Fade(packs), run_time=2.5, n="bias.offsets_per_projection")
        self.say("That is one offset per model coordinate.", self.point_at(blocks[0][0][1]))
        self.say("Split into heads, each head's query, key and value offsets are slices of "
                 "{d}.", Fade(slice_note), self.point_at(slice_note), d="bias.head_slice")
        self.say("Without the bias the layer has {a} parameters.", Fade(counts[0]),
                 self.point_at(counts[0]), a="bias.params_without")
        self.say("With it, {b}: that is {c} more trainable numbers.", Fade(counts[1]),
                 self.point_at(counts[1]), b="bias.params_with", c="bias.extra")
        self.say("The flag leaves the mask, the position rows and the prediction layers "
                 "alone.", Fade(untouched), self.point_at(untouched))

    def stored_shapes(self) -> None:
        entries = [("in_proj_weight", "bias.in_proj_weight", "W_Q, W_K, W_V stacked"),
                   ("in_proj_bias", "bias.in_proj_bias", "query, key, value offsets"),
                   ("out_proj.weight", "bias.out_proj_weight", "W_O"),
                   ("out_proj.bias", "bias.out_proj_bias", "output offsets")]
        rows = [[self.code(name, 24), self.num(key, 24), self.label(note, 22, MUTED)]
                for name, key, note in entries]
        table = grid(rows, h_buff=0.7, v_buff=0.4)
        lesson = self.label("this lesson: bias=False", 28, INK)
        aside = self.label("a simplification, not a verdict on biases", 22, MUTED)
        picture = place(VGroup(table, lesson, aside).arrange(DOWN, buff=0.6), top=2.6)
        self.say("PyTorch stores the three input offsets together in in_proj_bias, {ib}, "
                 "beside in_proj_weight, {iw}.", Fade(VGroup(*rows[0], *rows[1])),
                 self.point_at(VGroup(*rows[1])), ib="bias.in_proj_bias",
                 iw="bias.in_proj_weight")
        self.say("The output offsets sit in out_proj.bias, {ob}, beside out_proj.weight, {ow}.",
                 Fade(VGroup(*rows[2], *rows[3])), self.point_at(VGroup(*rows[3])),
                 ob="bias.out_proj_bias", ow="bias.out_proj_weight")
        self.say("This lesson uses bias=False, so the layer matches the hand-chosen worksheet "
                 "exactly.", Fade(picture[1]), self.point_at(picture[1]))
        self.say("That is a simplification, not a claim that no bias is better.",
                 Fade(picture[2]), self.point_at(picture[2]))
