"""Beyond the worked example: the bias flag, PyTorch's layer, trained models, patches, the lab.

Each scene reads its numbers from the lesson-wide value groups ``bias.*``, ``mha.*``,
``trained.*``, ``patches.*`` and ``lab.*``; shapes are drawn from shape keys, never typed.
Head colours mark only what belongs to a head (a head's queries, its slice of a tensor,
a model's heads); everything else is neutral.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    Group,
    GrowFromEdge,
    LaggedStart,
    ManimColor,
    Mobject,
    Rectangle,
    Square,
    SurroundingRectangle,
    SVGMobject,
    VGroup,
    Write,
    config,
    interpolate_color,
)

from scenes.kit import (
    ELIDE_AFTER,
    INK,
    MUTED,
    SAFE_BOTTOM,
    Fade,
    LectureScene,
    baseline,
    fit,
    shown_indices,
    standing,
    vector,
)
from scenes.palette import FAINT, NEUTRAL_FILL, PANEL, ink_on

__all__ = ["BatchLab", "BiasFlag", "ImagePatches", "PyTorchLayer", "TrainedComparison"]

CONTENT_WIDTH = 13.2
CONTENT_TOP = 2.95
CONTENT_BOTTOM = SAFE_BOTTOM + 0.2
"""The content area ends above the subtitle band, with room for a pointer's outline."""
DARK_PIXEL = ManimColor("#1A1A1A")
LIGHT_PIXEL = ManimColor("#F2F2F2")
FLAT_COLUMNS = 16
"""A flattened patch shows all its values up to this many, then elides the middle."""
SLAB_OFFSET = (0.24, 0.17)
"""How far each slab of a drawn tensor block sits behind the one in front (x, y)."""


def arrow(start: Mobject, end: Mobject, direction: Sequence[float] = RIGHT,
          colour: str = MUTED) -> Arrow:
    """A thin arrow from ``start`` to ``end``, leaving ``start`` in ``direction``."""
    forward = (start.get_right(), end.get_left()) if tuple(direction) == tuple(RIGHT) else \
        (start.get_bottom(), end.get_top())
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


def mask_grid(tokens: int, width: float) -> VGroup:
    """A receivers × sources grid: allowed cells lit, future (masked) cells dark."""
    cell = width / tokens
    cells = VGroup()
    for r in range(tokens):
        for c in range(tokens):
            allowed = c <= r
            cells.add(Square(cell, stroke_width=0.5, stroke_color=FAINT,
                             fill_color=MUTED if allowed else NEUTRAL_FILL,
                             fill_opacity=0.9 if allowed else 1.0)
                      .move_to([c * cell, -r * cell, 0]))
    return cells


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


# --------------------------------------------------------------------------- pytorch


class PyTorchLayer(LibraryScene):
    """nn.MultiheadAttention with the scratch layer's weights: same outputs, same shapes."""

    def construct(self) -> None:
        self.section("what it packages")
        self.stage("nn.MultiheadAttention packages the heads")
        self.packages()
        self.section("constructor")
        self.stage("Build the layer: sizes, bias, batch_first")
        self.constructor()
        self.section("copied weights")
        self.stage("Copy the weights, do not draw new ones")
        self.copied_weights()
        self.section("the batch")
        self.stage("All sentences in one call")
        self.batch_call()
        self.section("agreement")
        self.agreement()

    def packages(self) -> None:
        steps = [self.label("project Q, K, V", 22),
                 self.bound("split into {n:head}", 22, n="dims.heads"),
                 self.label("attention per head", 22),
                 self.label("concatenate", 22),
                 self.label("W_O", 22)]
        inner = VGroup(*steps).arrange(RIGHT, buff=0.65)
        links = VGroup(*(arrow(a, b) for a, b in pairwise(steps)))
        name = self.code("nn.MultiheadAttention", 24)
        name.next_to(inner, UP, buff=0.3).align_to(inner, LEFT)
        layer = VGroup(name, inner, links)
        box = frame(layer, MUTED, buff=0.25)
        before = self.label("token rows + position rows = E", 22, MUTED)
        after = VGroup(self.label("residual: E′ = E + ΔE", 22, MUTED),
                       self.label("prediction MLP and vocabulary", 22, MUTED)
                       ).arrange(DOWN, buff=0.7)
        column = VGroup(before, VGroup(layer, box), after).arrange(DOWN, buff=0.75)
        place(column)
        flow = VGroup(arrow(before, box, DOWN), arrow(box, after[0], DOWN),
                      arrow(after[0], after[1], DOWN))
        self.say("One library call replaces our per-head code.", Fade(VGroup(name, box)),
                 self.point_at(name))
        self.say("It projects queries, keys and values, then splits them into {n:head}.",
                 Fade(VGroup(*steps[:2])), Create(links[0]), self.point_at(steps[1]),
                 n="dims.heads")
        self.say("It runs each head's attention, concatenates the messages and applies W_O.",
                 LaggedStart(Create(links[1]), Fade(steps[2]), Create(links[2]),
                             Fade(steps[3]), Create(links[3]), Fade(steps[4]), lag_ratio=0.4),
                 self.point_at(VGroup(*steps[2:])), run_time=3.0)
        self.say("It stops there. Position rows come in from outside; the residual and the "
                 "vocabulary head stay in our own model.", Fade(before), Fade(after),
                 *map(Create, flow), self.point_at(after), run_time=2.5)

    def constructor(self) -> None:
        lines = VGroup(self.code("mha = nn.MultiheadAttention(", 26),
                       self.bound("{d}, {h},", 26, mono=True, d="dims.d_model",
                                  h="dims.heads"),
                       self.code("bias=False,", 26),
                       self.code("batch_first=True)", 26))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.22)
        lines[1:].shift(RIGHT * 0.9)
        notes = VGroup(self.bound("d_model = {d}, heads = {h}", 22, MUTED,
                                  d="dims.d_model", h="dims.heads"),
                       self.label("no offsets, like the scratch layer", 22, MUTED),
                       self.label("inputs come batch first", 22, MUTED))
        column = max(line.get_right()[0] for line in lines) + 0.8
        for note, line in zip(notes, lines[1:], strict=True):
            note.move_to([column + note.width / 2, line.get_y(), 0])
            note.shift(UP * (baseline(line) - baseline(note)))
        layout = VGroup(self.shape("E", "lab.shape.E", 26),
                        self.label("= [batch, tokens, d_model]", 24))
        layout.arrange(RIGHT, buff=0.25)
        layout[1].shift(UP * (baseline(layout[0]) - baseline(layout[1])))
        default = self.label("without it, PyTorch reads [tokens, batch, d_model]", 22, MUTED)
        body = VGroup(VGroup(lines, notes), layout, default).arrange(DOWN, buff=0.7)
        place(body)
        self.say("We build the layer from our own sizes: width {d} and {h:head}.",
                 Fade(lines[:2]), Fade(notes[0]), self.point_at(lines[1], notes[0]),
                 d="dims.d_model", h="dims.heads")
        self.say("bias=False leaves out the offsets, exactly as the scratch layer does.",
                 Fade(lines[2]), Fade(notes[1]), self.point_at(lines[2]))
        self.say("batch_first=True says our inputs are laid out batch, tokens, d_model.",
                 Fade(lines[3]), Fade(notes[2]), self.point_at(lines[3]))
        self.say("That is the layout of E, {e}: one slab of token rows per sentence.",
                 Fade(layout), self.point_at(layout), e="lab.shape.E")
        self.say("Without it, PyTorch expects tokens first and would attend across our "
                 "sentences instead of across their tokens.", Fade(default),
                 self.point_at(default))

    def copied_weights(self) -> None:
        side = 0.95

        def block(name: str, edge: str = MUTED) -> VGroup:
            return VGroup(Square(side, color=edge, stroke_width=2), self.label(name, 22))

        ours = VGroup(*(block(name) for name in ("W_Q", "W_K", "W_V")))
        ours.arrange(DOWN, buff=0.25)
        ours.add(block("W_O").next_to(ours, DOWN, buff=0.6))
        theirs = VGroup(*(block(name + "ᵀ", INK) for name in ("W_Q", "W_K", "W_V")))
        theirs.arrange(DOWN, buff=0)
        theirs.add(block("W_Oᵀ", INK))
        theirs.next_to(ours, RIGHT, buff=2.6)
        theirs[:3].move_to([theirs.get_x(), ours[:3].get_y(), 0])
        theirs[3].set_y(ours[3].get_y())
        moves = VGroup(*(arrow(a, b) for a, b in zip(ours, theirs, strict=True)))
        names = VGroup(self.shape("in_proj_weight", "mha.in_proj_weight", 24)
                       .next_to(theirs[:3], RIGHT, buff=0.4),
                       self.shape("out_proj.weight", "mha.out_proj_weight", 24)
                       .next_to(theirs[3], RIGHT, buff=0.4))
        headers = headers_above([(self.label("scratch layer", 22, MUTED), ours),
                                 (self.label("nn.MultiheadAttention", 22, MUTED), theirs)])
        note = self.label("each block holds every head's matrix, side by side; "
                          "bias=False, no dropout", 20, MUTED)
        body = VGroup(ours, theirs, moves, names, headers)
        note.next_to(body, DOWN, buff=0.5)
        place(VGroup(body, note))
        self.say("We copy the scratch layer's own parameters instead of drawing random ones.",
                 Fade(VGroup(ours, headers)), self.point_at(ours))
        self.say("The query, key and value matrices, transposed and stacked, fill "
                 "in_proj_weight, {i}.", *map(Create, moves[:3]),
                 Fade(VGroup(theirs[:3], names[0])), self.point_at(names[0]),
                 i="mha.in_proj_weight")
        self.say("W_O, transposed, fills out_proj.weight, {o}.", Create(moves[3]),
                 Fade(VGroup(theirs[3], names[1])), self.point_at(names[1]),
                 o="mha.out_proj_weight")
        self.say("With no bias and no dropout, both layers compute the same function.",
                 Fade(note), self.point_at(note))

    def batch_call(self) -> None:
        code = VGroup(self.code("delta, A = mha(E, E, E,"),
                      self.code("    attn_mask=causal,"),
                      self.code("    average_attn_weights=False)"))
        code.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        code[1:].shift(RIGHT * 0.9)
        source = self.shape("E", "lab.shape.E", 24)
        source_note = self.bound("{n:all sentence} at once", 20, MUTED, n="dims.sentences")
        mask = mask_grid(self.ws.length, 2.0)
        mask_note = self.label("causal mask: no future sources", 20, MUTED)
        left = VGroup(VGroup(source, source_note).arrange(DOWN, buff=0.15),
                      VGroup(mask, mask_note).arrange(DOWN, buff=0.2)).arrange(DOWN, buff=0.5)
        results = grid([[self.shape("delta", "mha.delta", 24),
                         self.label("sentences × tokens × width", 20, MUTED)],
                        [self.shape("A", "mha.A", 24),
                         self.label("sentences × heads × receivers × sources", 20, MUTED)]],
                       h_buff=0.4, v_buff=0.35)
        right = VGroup(code, results).arrange(DOWN, aligned_edge=LEFT, buff=0.7)
        place(VGroup(left, right).arrange(RIGHT, buff=1.0))
        self.say("E stacks {n:all sentence}, shape {e}.", Fade(left[0]),
                 self.point_at(source), n="dims.sentences", e="lab.shape.E")
        self.say("We pass it as query, key and value input, with the causal mask.",
                 Fade(code), Fade(left[1]), self.point_at(code[0]))
        self.say("The update ΔE comes back as {d}, batch first like E.",
                 Fade(VGroup(*results.rows[0])), self.point_at(VGroup(*results.rows[0])),
                 d="mha.delta")
        self.say("average_attn_weights=False keeps the head axis, so the weights come back "
                 "as {a}.", Fade(VGroup(*results.rows[1])),
                 self.point_at(code[2], VGroup(*results.rows[1])), a="mha.A")
        self.results, self.inputs = results, VGroup(left, code)

    def agreement(self) -> None:
        rows = [[self.label("largest difference in ΔE", 24),
                 self.num("mha.max_diff_delta", 26)],
                [self.label("largest difference in A", 24),
                 self.num("mha.max_diff_A", 26)]]
        table = grid(rows, h_buff=0.6, v_buff=0.3)
        verdict = self.label("equal up to float rounding", 26, INK)
        block = VGroup(table, verdict).arrange(DOWN, buff=0.4)
        panel = VGroup(block, frame(block, MUTED, 0.25))
        fit(panel, CONTENT_WIDTH)
        results = self.results
        self.unpoint()
        self.play(Fade(VGroup(self.inputs, self.heading), appear=False),
                  *(Fade(m, appear=False) for m in self.mobjects
                    if isinstance(m, SurroundingRectangle)), run_time=0.5)
        self.heading = self.title("Scratch layer and PyTorch agree")
        self.play(Write(self.heading), results.animate.move_to([0, 1.6, 0]), run_time=0.6)
        panel.next_to(results, DOWN, buff=0.8)
        self.say("Entry by entry, the largest difference from our scratch layer in ΔE is {d}.",
                 Fade(VGroup(table, panel[1])), self.point_at(VGroup(*rows[0])),
                 d="mha.max_diff_delta")
        self.say("In the weights it is {a}: float rounding, nothing more.",
                 Fade(verdict), self.point_at(VGroup(*rows[1])), a="mha.max_diff_A")


# --------------------------------------------------------------------------- trained


class TrainedComparison(LibraryScene):
    """The trained comparison's models and their sizes; their results are not ours."""

    def construct(self) -> None:
        self.heads = list(self.ws.lesson.trained.heads)
        self.section("sizes")
        self.stage("The trained models and their sizes")
        self.sizes()

    def model_name(self, heads: int, size: float = 26) -> VGroup:
        """``attention, N heads`` and one small square per head, in its head's colour."""
        name = self.bound("attention, {h:head}", size, INK, h=f"trained.heads{heads}.heads")
        squares = VGroup(*(Square(0.24, stroke_width=0, fill_color=self.head_colour(h + 1),
                                  fill_opacity=1) for h in range(heads)))
        squares.arrange(RIGHT, buff=0.06).next_to(name, RIGHT, buff=0.2)
        return VGroup(name, squares)

    def sizes(self) -> None:
        shared = self.bound("shared: vocabulary {v} · context {c} · width {w}", 24, MUTED,
                            v="trained.vocab", c="trained.context", w="trained.width")
        entries = [(self.label("fixed-window MLP", 26), "trained.mlp.params",
                    "trained.mlp.W_hidden")]
        entries += [(self.model_name(h), f"trained.heads{h}.params",
                     f"trained.heads{h}.W_hidden") for h in self.heads]
        largest = max(float(self.v.value(key)) for _, key, _ in entries)
        rows = []
        for name, key, first in entries:
            length = max(0.05, 4.6 * float(self.v.value(key)) / largest)
            bar = Rectangle(width=length, height=0.46, stroke_color=MUTED, stroke_width=1.5,
                            fill_color=NEUTRAL_FILL, fill_opacity=1)
            count = self.num(key, 26, mono=False).next_to(bar, RIGHT, buff=0.2)
            rows.append([name, VGroup(bar, count), self.shape("first matrix", first, 22)])
        table = grid(rows, h_buff=0.5, v_buff=0.7)
        for bar_cell in (row[1] for row in rows):
            bar_cell.align_to(rows[0][1], LEFT)
        note = self.label("how well each predicts and how long each trains: measured by "
                          "training, not part of this worksheet", 22, MUTED)
        place(VGroup(shared, table, note).arrange(DOWN, buff=0.8))
        self.say("These models were trained on short stories: vocabulary {v}, context {c}, "
                 "width {w}.", LaggedStart(Fade(shared), self.point_at(shared),
                                           *(Fade(row[0]) for row in rows), lag_ratio=0.5),
                 run_time=3.0, v="trained.vocab", c="trained.context", w="trained.width")
        self.say("The fixed-window MLP has {m} parameters.", GrowFromEdge(rows[0][1][0], LEFT),
                 Fade(rows[0][1][1]), self.point_at(rows[0][0], rows[0][1]),
                 m="trained.mlp.params")
        for h, row in zip(self.heads, rows[1:], strict=True):
            self.say("Attention with {h:head}: {p}.", GrowFromEdge(row[1][0], LEFT),
                     Fade(row[1][1]), self.point_at(row[0], row[1]),
                     h=f"trained.heads{h}.heads", p=f"trained.heads{h}.params")
        mlp_first = AnimationGroup(Fade(rows[0][2]), self.point_at(rows[0][2]))
        attention_first = AnimationGroup(Fade(VGroup(*(row[2] for row in rows[1:]))),
                                         self.point_at(*(row[2] for row in rows[1:])))
        self.say("The MLP's first matrix, {m}, reads the whole window; the attention models' "
                 "reads one row, {a}.", LaggedStart(mlp_first, attention_first, lag_ratio=1.0),
                 run_time=7.0, m="trained.mlp.W_hidden",
                 a=f"trained.heads{self.heads[0]}.W_hidden")
        self.say("How well each predicts, and how fast it trains, comes from training: not "
                 "part of this worksheet.", Fade(note),
                 self.point_at(note))


# --------------------------------------------------------------------------- patches


class ImagePatches(LibraryScene):
    """An image cut into patches, each flattened and projected into one embedding row."""

    def construct(self) -> None:
        self.section("image")
        self.stage("Image patches can be the embedding rows")
        self.image()
        self.section("flattened patches")
        self.flatten()
        self.section("shared projection")
        self.stage("One shared projection per patch")
        self.project()
        self.section("sequence")
        self.stage("A CLS row, then position rows")
        self.sequence()
        self.section("classifier")
        self.stage("The CLS row can classify the whole image")
        self.classifier()

    def swatch(self, patch: int, side: float = 0.34) -> Mobject:
        """A thumbnail of patch ``patch``'s own pixels: it names the patch's row."""
        return self.patches[patch].copy().scale_to_fit_height(side)

    def shade(self, pixel: float) -> ManimColor:
        """Grey level of a pixel value (clipped to the range zero to one)."""
        return interpolate_color(DARK_PIXEL, LIGHT_PIXEL, min(max(pixel, 0.0), 1.0))

    def tile(self, key: str, pixel: float, side: float = 0.62) -> VGroup:
        """One pixel value on a square of its own shade, in the ink that reads on it."""
        fill = self.shade(pixel)
        number = self.num(key, 18, ink_on(fill.to_hex()))
        square = Square(side, stroke_width=0.5, stroke_color=MUTED, fill_color=fill,
                        fill_opacity=1)
        return VGroup(square, number.move_to(square))

    def pixels(self, box: float) -> VGroup:
        """The image as shaded squares, grouped by patch; each group is outlined."""
        image = self.v.value("patches.image")
        side, size = len(image), int(self.v.value("patches.size"))
        per_side = side // size
        cell = box / side
        groups = [VGroup() for _ in range(per_side * per_side)]
        for r, row in enumerate(image):
            for c, pixel in enumerate(row):
                square = Square(cell, stroke_width=0.5, stroke_color=MUTED,
                                fill_color=self.shade(pixel), fill_opacity=1)
                square.move_to([c * cell, -r * cell, 0])
                groups[(r // size) * per_side + c // size].add(square)
        patches = VGroup(*groups)
        patches.outlines = VGroup(*(Rectangle(width=g.width, height=g.height, color=INK,
                                              stroke_width=3).move_to(g) for g in groups))
        return patches

    def image(self) -> None:
        self.patches = self.pixels(4.0)
        facts = VGroup(
            self.bound("{a} × {b} pixels, shaded by value", 24, a="patches.side",
                       b="patches.side"),
            self.bound("patches of {a} × {b} pixels", 24, a="patches.size", b="patches.size"),
            self.bound("{a} × {b} = {n} patches", 24, a="patches.per_side",
                       b="patches.per_side", n="patches.count"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        note = self.label("a shape illustration, not a trained vision model", 20, MUTED)
        right = VGroup(facts, note).arrange(DOWN, aligned_edge=LEFT, buff=0.8)
        place(VGroup(self.patches, right).arrange(RIGHT, buff=1.2))
        self.say("Words are not the only source of rows.", Fade(note), self.point_at(note))
        self.say("Take a small greyscale image, {s} by {t} pixels, each square shaded by its "
                 "value.", Fade(self.patches), Fade(facts[0]), self.point_at(self.patches),
                 s="patches.side", t="patches.side")
        self.play(self.patches.animate.arrange_in_grid(
            rows=int(self.v.value("patches.per_side")), buff=0.25).move_to(self.patches),
            *self.unpointed(), run_time=0.8)
        for group, outline in zip(self.patches, self.patches.outlines, strict=True):
            outline.move_to(group)
        self.say("Cut it into square patches of {p} by {q} pixels.",
                 *map(Create, self.patches.outlines), Fade(facts[1]),
                 self.point_at(self.patches.outlines[0]), p="patches.size", q="patches.size")
        self.say("That makes {n} per side, {c} patches in all.", Fade(facts[2]),
                 self.point_at(facts[2]), n="patches.per_side", c="patches.count")
        self.facts = VGroup(facts, note)

    def flatten(self) -> None:
        flat = self.v.value("patches.flat")
        width = len(flat[0])
        shown = list(range(width)) if width <= FLAT_COLUMNS else \
            [*range(FLAT_COLUMNS - 2), None, width - 1]
        rows = [[self.swatch(i)] + [self.label("…", 20) if c is None
                                    else self.tile(f"patches.flat[{i}][{c}]", flat[i][c])
                                    for c in shown] for i in range(len(flat))]
        table = grid(rows, h_buff=0.06, v_buff=0.06, aligns="c" * (len(shown) + 1))
        header = self.bound("flat {s}: {k} values per patch, one row each", 22, mono=True,
                            s="patches.shape.flat", k="patches.values_per_patch")
        block = VGroup(header, table).arrange(DOWN, buff=0.35)
        self.play(Fade(self.facts, appear=False), *self.unpointed(), run_time=0.5)
        image, side = VGroup(self.patches, self.patches.outlines), 1.9
        top = CONTENT_TOP - side - 0.3
        fit(block, CONTENT_WIDTH, top - CONTENT_BOTTOM)
        block.move_to([0, top - block.height / 2, 0])
        self.play(image.animate.scale_to_fit_height(side).move_to([0, CONTENT_TOP - side / 2, 0]),
                  run_time=0.6)
        self.say("Read each patch row by row into one flat list of {k} values.", Fade(header),
                 Fade(VGroup(*rows[0])), self.point_at(self.patches.outlines[0], *rows[0]),
                 k="patches.values_per_patch")
        self.say("Each patch becomes one row, as each word became one token.",
                 LaggedStart(*(Fade(VGroup(*row)) for row in rows[1:]), lag_ratio=0.4),
                 self.point_at(table), run_time=2.0)

    def tall_matrix(self, key: str, size: float, colour: str = INK) -> VGroup:
        """A matrix showing its first two rows, a "⋮" row and its last row."""
        length = len(self.v.value(key))
        if length <= ELIDE_AFTER:
            return self.matrix(key, size=size, colour=colour)
        shown = self.matrix(key, rows=[0, 1, length - 1], size=size, colour=colour)
        gap = shown.cells[0][0].get_y() - shown.cells[1][0].get_y()
        for cell in shown.cells[-1]:
            cell.shift(DOWN * gap)
        dots = VGroup(*(self.label("⋮", size, colour).move_to(
            [cell.get_x(), shown.cells[1][0].get_y() - gap, 0]) for cell in shown.cells[-1]))
        stretch_brackets(shown, gap, UP)
        shown.add(dots)
        return shown

    def project(self) -> None:
        count = int(self.v.value("patches.count"))
        flat = self.matrix("patches.flat", row_labels=[self.swatch(i) for i in range(count)],
                           size=20)
        W = self.tall_matrix("patches.W", 20)
        rows = self.matrix("patches.rows", size=20)
        times, equals = self.label("×", 28), self.label("=", 28)
        equation = VGroup(flat, times, W, equals, rows).arrange(RIGHT, buff=0.4)
        headers = headers_above([(self.shape("flat", "patches.shape.flat", 22), flat),
                                 (self.shape("W", "patches.shape.W", 22), W),
                                 (self.shape("rows", "patches.shape.rows", 22), rows)])
        note = self.label("the same matrix for every patch, learned from the image task", 20,
                          MUTED)
        place(VGroup(VGroup(equation, headers), note).arrange(DOWN, buff=0.7))
        self.say("Each flat patch is one row of {f}.", Fade(VGroup(flat, headers[0])),
                 self.point_at(headers[0]), f="patches.shape.flat")
        self.say("One projection W, {w}, multiplies every one of them.",
                 Fade(VGroup(times, W, headers[1])), self.point_at(W, headers[1]),
                 w="patches.shape.W")
        self.say("It is the same matrix for every patch, learned from the image task.",
                 Fade(note), self.point_at(note))
        self.say("Out come the embedding rows, one per patch: {r}.",
                 Fade(VGroup(equals, rows, headers[2])), self.point_at(rows, headers[2]),
                 r="patches.shape.rows")

    def sequence(self) -> None:
        count = int(self.v.value("patches.count"))
        rows = self.matrix("patches.rows", size=20,
                           row_labels=[self.swatch(i) for i in range(count)])
        positions = self.matrix("patches.positions", size=20)
        sequence = self.matrix("patches.sequence", size=20)
        plus, equals = self.label("+", 28), self.label("=", 28)
        equation = VGroup(rows, plus, positions, equals, sequence).arrange(RIGHT, buff=0.5)
        first, second = (positions.cells[r][0].get_y() for r in (0, 1))
        rows.shift(UP * (second - rows.cells[0][0].get_y()))
        stretch_brackets(rows, first - second, DOWN)
        cls = VGroup(*(self.label("…", 20) if c is None
                       else self.num(f"patches.cls[{c}]", 20)
                       for c in shown_indices(len(self.v.value("patches.cls")))))
        for cell, below in zip(cls, rows.cells[0], strict=True):
            cell.set_y(first).align_to(below, RIGHT)
        cls_name = self.label("CLS", 20, MUTED).set_y(first)
        cls_name.align_to(rows[2], RIGHT)
        plus.set_y(positions.get_y())
        equals.set_y(positions.get_y())
        headers = headers_above([(self.bound("CLS + {n} patch rows", 22, n="patches.count"),
                                  rows),
                                 (self.label("positions", 22), positions),
                                 (self.shape("sequence", "patches.shape.sequence", 22),
                                  sequence)])
        place(VGroup(equation, cls, cls_name, headers))
        inner, keys = vector("c", "patches.cls", len(cls))
        self.say("Here are the {n} patch rows.", Fade(VGroup(rows, headers[0])),
                 self.point_at(rows), n="patches.count")
        self.say("Put one learned CLS row, " + inner + ", in front of them.",
                 Fade(VGroup(cls, cls_name)), self.point_at(cls, cls_name), **keys)
        self.say("Add a position row to each row.", Fade(VGroup(plus, positions, headers[1])),
                 self.point_at(positions))
        self.say("The sequence is {s}, ready for attention like any sentence.",
                 Fade(VGroup(equals, sequence, headers[2])), self.point_at(sequence, headers[2]),
                 s="patches.shape.sequence")

    def classifier(self) -> None:
        sequence = self.matrix("patches.sequence", size=20)
        header = self.bound("{t} rows: sequence {s}", 22, mono=True, t="patches.total_rows",
                            s="patches.shape.sequence")
        header.next_to(sequence, UP, buff=0.3)
        left = VGroup(header, sequence)
        encoder = self.label("encoder: attention without a causal mask", 22)
        encoder = VGroup(encoder, frame(encoder, MUTED))
        cls = self.label("final CLS row", 22)
        classifier = self.label("classifier → class probabilities", 22)
        flow = VGroup(encoder, cls, classifier).arrange(DOWN, buff=0.7)
        flow.next_to(sequence, RIGHT, buff=1.2)
        flow.shift(UP * (sequence.get_y() - encoder.get_y()))
        note = self.label("a roadmap, not a trained model", 20, MUTED)
        place(VGroup(VGroup(left, flow), note).arrange(DOWN, buff=0.7))
        links = VGroup(arrow(sequence, encoder), arrow(encoder, cls, DOWN),
                       arrow(cls, classifier, DOWN))
        self.say("Classifying a whole image needs no causal mask.", Fade(left), Fade(encoder),
                 Create(links[0]), self.point_at(encoder))
        self.say("Each of the {t} rows may read every other row, before or after it.",
                 self.point_at(sequence), t="patches.total_rows")
        self.say("After the encoder, the CLS row's final state feeds a classifier trained with "
                 "the image's label.", Fade(VGroup(cls, classifier)), *map(Create, links[1:]),
                 self.point_at(cls))
        self.say("This is a roadmap, not a trained model.", Fade(note), self.point_at(note))


# --------------------------------------------------------------------------- lab


class BatchLab(LibraryScene):
    """The executable lab: a batch of ids, the head axis as tensor blocks, one step, one token."""

    def construct(self) -> None:
        self.section("batch")
        self.stage("The lab: every sentence in one batch")
        self.batch()
        self.section("head axis")
        self.stage("Reshape, then transpose: heads before tokens")
        self.head_axis()
        self.section("attention shapes")
        self.stage("Shapes through attention and back")
        self.attention_shapes()
        if self.ws.lesson.targets:
            self.section("one training step")
            self.stage("The loss and one training step")
            self.training_step()
        self.section("one new token")
        self.stage("Generate one token")
        self.generate()

    def batch(self) -> None:
        names = list(self.ws.sentences)
        observed = bool(self.ws.lesson.targets)
        size = 22.0
        rows = []
        for i, name in enumerate(names):
            ids = [self.num(f"lab.X[{i}][{j}]", size) for j in range(self.ws.length)]
            target = [self.label("→", size),
                      self.word(self.word_of(f"lab.y[{i}]"), size),
                      self.num(f"lab.y[{i}]", size)] if observed else []
            rows.append([self.sentence_name(name, size, MUTED), *ids, *target])
        extra = len(rows[0]) - 1 - self.ws.length
        table = grid(rows, h_buff=0.32, v_buff=0.4,
                     aligns="l" + "c" * self.ws.length + "cll"[:extra])
        ids = VGroup(*(cell for row in rows for cell in row[1:1 + self.ws.length]))
        targets = VGroup(*(cell for row in rows for cell in row[1 + self.ws.length:]))
        headers = VGroup(self.shape("X", "lab.shape.X", 24).next_to(ids, UP, buff=0.4))
        if observed:
            headers.add(self.shape("y", "lab.shape.y", 24).next_to(targets, UP, buff=0.4))
            headers[1].align_to(headers[0], DOWN)
        note = self.label("token ids, not embeddings", 20, MUTED)
        place(VGroup(VGroup(table, headers), note).arrange(DOWN, buff=0.7))
        self.say("The lab stacks the token ids of every sentence into one batch X of shape "
                 "{x}.", Fade(VGroup(*(row[0] for row in rows))), Fade(ids), Fade(headers[0]),
                 self.point_at(headers[0]), x="lab.shape.X")
        self.say("They are whole numbers, ids into the vocabulary, not embeddings.",
                 Fade(note), self.point_at(VGroup(*rows[0][1:1 + self.ws.length])))
        if not observed:
            self.say("This worksheet records no observed next words, so the batch has no "
                     "targets and the lab computes no loss.", self.point_at(note))
            return
        pieces = [(f"“{{w{i}}}”", {}) for i in range(len(names))]
        phrase, _ = slots(pieces, ", ", " and ")
        self.say("Each sentence has one observed next word, its target: " + phrase + ".",
                 Fade(targets), self.point_at(targets),
                 words={f"w{i}": self.word_of(f"lab.y[{i}]") for i in range(len(names))})
        self.say("Together the targets form y, shape {y}.", Fade(headers[1]),
                 self.point_at(headers[1]), y="lab.shape.y")

    def axis(self, name: str, key: str) -> Mobject:
        """A side label of a tensor block: the axis name and its bound size."""
        return self.bound(name + " {n}", 20, MUTED, n=key)

    def head_axis(self) -> None:
        heads, d_head = self.ws.n_heads, self.ws.d_head
        batch = len(self.ws.sentences)
        cell_w = min(0.6, 3.6 / (heads * d_head))
        cell_h = min(0.36, 3.4 / self.ws.length)
        width, height = heads * d_head * cell_w, self.ws.length * cell_h
        gap = 0.45
        parts = [(1 / heads, self.head_colour(h + 1)) for h in range(heads)]
        block = slab_stack(width, height, batch, parts)
        front = block.front.face
        tokens = self.axis("tokens", "dims.tokens")
        model = self.axis("d_model", "dims.d_model")
        split = self.bound("heads {h} × d_head {d}", 20, MUTED, h="dims.heads",
                           d="dims.d_head")
        depth = self.axis("batch", "dims.sentences")
        entries = [("X", "X"), ("E", "E"), ("Q = E W_Q", "Q"), ("reshape", "Q_split"),
                   ("transpose", "Q_heads")]
        rows = [[self.code(name, 22), self.num(f"lab.shape.{key}", 22)]
                for name, key in entries]
        table = grid(rows, h_buff=0.45, v_buff=0.3)
        axes = [self.label(text, 20, MUTED) for text in (
            "[batch, tokens, d_model]", "[batch, tokens, heads, d_head]",
            "[batch, heads, tokens, d_head]")]
        names = VGroup(*(self.head_label(h + 1, 20) for h in range(heads)))

        # The block with its side labels, and room kept on its right for the heads to
        # spread out into; the table of shapes beside it; all centred in the content area.
        tokens.next_to(front, LEFT, buff=0.25)
        model.next_to(front, DOWN, buff=0.2)
        split.next_to(model, DOWN, buff=0.15)
        depth.next_to(block[0].face, RIGHT, buff=0.15).align_to(block[0].face, UP)
        room = Rectangle(width=width + gap * (heads - 1), height=height, stroke_width=0,
                         fill_opacity=0).align_to(front, LEFT + DOWN)
        room.stretch_to_fit_width(room.width + depth.width + 0.15
                                  + (batch - 1) * SLAB_OFFSET[0], about_edge=LEFT)
        picture = VGroup(tokens, block, model, split, depth, room)
        for note in axes:
            note.next_to(table, DOWN, buff=0.45).align_to(table, LEFT)
        layout = VGroup(picture, VGroup(table, *axes)).arrange(RIGHT, buff=0.9)
        place(layout)
        shifts = [h * gap * front.width / width for h in range(heads)]  # as placed
        spread = [VGroup(*(slab.slices[h] for slab in block)) for h in range(heads)]
        for name, piece, shift in zip(names, spread, shifts, strict=True):
            name.next_to(piece, UP, buff=0.2).shift(RIGHT * shift)
        names.set_y(max(name.get_y() for name in names))
        centre = front.get_x() + shifts[-1] / 2

        self.say("Embedding turns the ids X, {x}, into rows E, {e}: batch, tokens, width.",
                 Fade(VGroup(*rows[0], *rows[1])), self.point_at(VGroup(*rows[1])),
                 x="lab.shape.X", e="lab.shape.E")
        self.say("One projection makes every head's queries at once: Q, {q}.",
                 Fade(VGroup(*rows[2])), Fade(VGroup(*(slab.face for slab in block))),
                 Fade(VGroup(tokens, model, depth)), Fade(axes[0]),
                 self.point_at(VGroup(*rows[2])), run_time=1.5, q="lab.shape.Q")
        self.say("Its sides: {b:sentence} deep, {t:token} tall, {m} coordinates wide.",
                 self.point_at(block, tokens, model, depth), b="dims.sentences",
                 t="dims.tokens", m="dims.d_model")
        self.say("Reshape cuts the width into {h:head} of {d} coordinates each: {s}.",
                 Fade(VGroup(*(slab.slices for slab in block))), Fade(split),
                 Fade(VGroup(*rows[3])), Fade(axes[0], appear=False), Fade(axes[1]),
                 self.point_at(VGroup(*rows[3])), run_time=1.5,
                 h="dims.heads", d="dims.d_head", s="lab.shape.Q_split")
        self.say("Nothing moves yet: each head's queries are a slice of every token row.",
                 self.point_at(block.front.slices[0], split))
        depth_goal = depth.copy().shift(RIGHT * shifts[-1])
        self.say("Transpose puts heads before tokens: {t}, one block of token rows per "
                 "sentence and head.",
                 *(piece.animate.shift(RIGHT * shift) for piece, shift in zip(spread, shifts,
                                                                              strict=True)),
                 Fade(VGroup(*(slab.face for slab in block)), appear=False),
                 model.animate.set_x(centre), split.animate.set_x(centre),
                 depth.animate.move_to(depth_goal), Fade(VGroup(*rows[4])),
                 Fade(axes[1], appear=False), Fade(axes[2]), Fade(names),
                 self.point_at(VGroup(*rows[4])), run_time=2.0, t="lab.shape.Q_heads")
        self.say("Keys and values take the same two steps, so attention runs on every "
                 "sentence and head at once.", self.point_at(*spread, names))

    def attention_shapes(self) -> None:
        entries = [("scores", "scores", "Q Kᵀ ÷ √d, future sources masked"),
                   ("A", "A", "softmax over the last axis, the sources"),
                   ("messages", "messages", "A V: one message per head and token"),
                   ("joined", "joined", "transpose back, then reshape"),
                   ("ΔE", "delta", "joined W_O"),
                   ("logits", "logits", "last updated rows → prediction MLP")]
        rows = [[self.code(name, 22), self.num(f"lab.shape.{key}", 22),
                 self.label(note, 20, MUTED)] for name, key, note in entries]
        rows[1][2] = self.bound("softmax over the sources: {n} weights", 20, MUTED,
                                n="lab.A_weights")
        table = grid(rows, h_buff=0.6, v_buff=0.3)
        place(table)

        def reveal(*indices: int) -> list:
            shown = VGroup(*(cell for i in indices for cell in rows[i]))
            return [Fade(shown), self.point_at(VGroup(*(VGroup(*rows[i]) for i in indices)))]

        self.say("The scores and weights hold one grid per sentence and head, {a}.",
                 *reveal(0, 1), a="lab.shape.A")
        self.say("That is {n} weights in all.", self.point_at(rows[1][2]), n="lab.A_weights")
        self.say("Weighted sums of the values give one message per head and token, {m}.",
                 *reveal(2), m="lab.shape.messages")
        self.say("Transpose back before joining, or token rows and head rows get mixed: "
                 "{j} again.", *reveal(3), j="lab.shape.joined")
        self.say("W_O gives ΔE, {d}, and the last updated rows give the logits, {l}.",
                 *reveal(4, 5), d="lab.shape.delta", l="lab.shape.logits")

    def training_step(self) -> None:
        before = self.card("cross-entropy loss", "lab.loss", 34)
        step = self.card("AdamW, learning rate", "lab.learning_rate", 34)
        after = self.card("loss after one step", "lab.loss_after", 34)
        chain = VGroup(before, step, after).arrange(RIGHT, buff=1.0)
        links = VGroup(arrow(before, step), arrow(step, after))
        every = self.v.value("lab.finite_grads") == self.v.value("lab.param_tensors")
        if every:
            grads = self.bound("finite gradients in {t:all parameter tensor}", 24,
                               t="lab.param_tensors")
        else:
            grads = self.bound("finite gradients in {f} of {t:parameter tensor}", 24,
                               f="lab.finite_grads", t="lab.param_tensors")
        note = self.label("one step shows learning; it does not make a trained model", 20,
                          MUTED)
        place(VGroup(VGroup(chain, links), grads, note).arrange(DOWN, buff=0.8))
        self.say("Cross-entropy scores the logits against the observed targets, never against "
                 "sampled words: loss {l}.", Fade(before), self.point_at(before), l="lab.loss")
        if every:
            self.say("One backward pass reaches every projection: all of the "
                     "{t:parameter tensor} get finite gradients.", Fade(grads),
                     self.point_at(grads), t="lab.param_tensors")
        else:
            self.say("One backward pass: {f} of the {t:parameter tensor} get finite "
                     "gradients.", Fade(grads), self.point_at(grads), f="lab.finite_grads",
                     t="lab.param_tensors")
        self.say("Then one AdamW step, with learning rate {r}.", Create(links[0]), Fade(step),
                 self.point_at(step), r="lab.learning_rate")
        self.say("On this batch the loss is now {a}.", Create(links[1]), Fade(after),
                 self.point_at(after), a="lab.loss_after")
        self.say("One step demonstrates learning; it does not make a trained model.",
                 Fade(note), self.point_at(note))

    def generate(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        word = self.word_of("lab.next_id")
        row = self.token_row([*tokens, word], width=CONTENT_WIDTH)
        new = row[-1]
        facts = VGroup(self.bound("next id {i}", 24, i="lab.next_id"),
                       self.bound("probability {p}", 24, p="lab.next_prob"),
                       self.shape("history", "lab.shape.history", 24)
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        note = self.label("weights stay fixed; crop the history to the context window", 20,
                          MUTED)
        place(VGroup(row, facts, note).arrange(DOWN, buff=0.8))
        self.say("At inference the weights stay fixed, and the model reads the “{s}” prefix.",
                 Fade(row[:-1]), self.point_at(row[:-1]), words={"s": name})
        self.say("It takes the most probable next id, {i}: “{w}”, with probability {p}.",
                 Fade(facts[:2]), Fade(new), self.point_at(new, facts[:2]), words={"w": word},
                 i="lab.next_id", p="lab.next_prob")
        self.say("Appending it makes the history {h}.", Fade(facts[2]),
                 self.point_at(facts[2]), h="lab.shape.history")
        self.say("Repeat to keep generating, keeping only the last context-window tokens.",
                 Fade(note), self.point_at(note))
