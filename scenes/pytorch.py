"""`nn.MultiheadAttention` with the worksheet's weights copied in, from the `mha.*` values:
the per-head steps it packages, how it is built, how our weights fill its two tensors, and
one batched call whose returned weight grids are drawn."""


from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    Create,
    DoubleArrow,
    LaggedStart,
    Line,
    Rectangle,
    Square,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
    baseline,
    fit,
    panel,
    weight_cell,
)
from scenes.kit.palette import FAINT, NEUTRAL_FILL, PANEL
from scenes.kit.topic import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    CONTENT_WIDTH,
    LibraryScene,
    arrow,
    frame,
    grid,
    headers_above,
    mask_grid,
    place,
)

__all__ = ["PyTorchLayer"]

"""A fragment of a sentence and what makes its step (made when the sentence begins)."""

SMALL = 18
"""Notes, axis names and legends."""


# --------------------------------------------------------------------------- pytorch


class PyTorchLayer(LibraryScene):
    """nn.MultiheadAttention with the scratch layer's weights: same outputs, same shapes."""

    def construct(self) -> None:
        self.names = list(self.ws.sentences)
        self.heads = list(range(1, self.ws.n_heads + 1))
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
        self.section("what comes back")
        self.returned()
        self.section("agreement")
        self.agreement()

    # ----------------------------------------------------------------- narration

    # ----------------------------------------------------------------- what it packages

    def step_box(self, text: str, colour: str = FAINT, size: float = 20) -> VGroup:
        """One step of the layer's work, framed."""
        return panel(self.label(text, size), colour, buff=0.12)

    def lanes(self) -> VGroup:
        """One row per head: its label, then score → softmax → mix in the head's colour."""
        rows = VGroup()
        for h in self.heads:
            colour = self.head_colour(h)
            boxes = [self.step_box(text, colour) for text in ("score", "softmax", "mix")]
            row = VGroup(self.head_label(h, SMALL), *boxes).arrange(RIGHT, buff=0.5)
            row.add(*(arrow(a, b, colour=colour) for a, b in pairwise(boxes)))
            rows.add(row)
        return rows.arrange(DOWN, buff=0.22, aligned_edge=LEFT)

    def packages(self) -> None:
        project = self.step_box("project Q, K, V")
        split = panel(self.bound("split into {n:head}", 20, n="dims.heads"), FAINT, buff=0.12)
        lanes = self.lanes()
        join, w_o = self.step_box("join"), self.step_box("W_O")
        row = VGroup(project, split, lanes, join, w_o).arrange(RIGHT, buff=0.55)
        links = VGroup(arrow(project, split),
                       *(arrow(split, lane) for lane in lanes),
                       *(arrow(lane, join) for lane in lanes), arrow(join, w_o))
        name = self.code("nn.MultiheadAttention", 24)
        name.next_to(row, UP, buff=0.35).align_to(row, LEFT)
        layer = VGroup(name, row, links)
        box = frame(layer, MUTED, buff=0.25)
        before = self.label("token rows + position rows = E", 20, MUTED)
        after = VGroup(self.label("residual: E′ = E + ΔE", 20, MUTED),
                       self.label("prediction MLP and vocabulary", 20, MUTED))
        after.arrange(RIGHT, buff=0.9)
        column = VGroup(before, VGroup(layer, box), after).arrange(DOWN, buff=0.65)
        place(column)
        below = Line(after[0].get_top(), after[0].get_top()).set_y(box.get_bottom()[1])
        flow = VGroup(arrow(before, box, DOWN), arrow(below, after[0], DOWN),
                      arrow(after[0], after[1]))
        ours = VGroup(project, split, lanes, join, w_o, links)
        self.tell("One library call replaces all of our per-head code, step by step.",
                  Fade(ours), cues=[("library call", lambda: Fade(VGroup(name, box))),
                                    ("per-head code", lambda: self.point_at(lanes))])
        self.say("It projects queries, keys and values, then splits them into {n:head}.",
                 self.point_at(project, split), n="dims.heads")
        self.tell("Each head scores its sources, takes the softmax and mixes the values.",
                  cues=[("score", lambda: self.point_at(*(lane[1] for lane in lanes))),
                        ("mixes", lambda: self.point_at(*(lane[3] for lane in lanes)))])
        self.say("Then it joins the heads' messages and applies W_O.",
                 self.point_at(join, w_o))
        self.say("It stops there. Position rows come in from outside; the residual and the "
                 "prediction layers stay in our own model.", Fade(before), Fade(after),
                 *map(Create, flow), self.point_at(before, after, each=True), run_time=2.5)

    # ----------------------------------------------------------------- constructor

    def reading(self, sentences_first: bool) -> VGroup:
        """E's sentences as rows of token cells, and the axis attention runs along: along
        each sentence when the batch comes first; across the sentences, position by
        position, when PyTorch reads the first axis as tokens."""
        tokens, count = self.ws.length, len(self.names)
        side = min(0.42, 4.2 / tokens)
        cells = [[Square(side, stroke_color=FAINT, stroke_width=1.5, fill_color=PANEL,
                         fill_opacity=1).move_to([j * side, -i * side, 0])
                  for j in range(tokens)] for i in range(count)]
        grid_cells = VGroup(*(cell for row in cells for cell in row))
        inset = side * 0.18
        if sentences_first:  # one arrow along each sentence's row
            runs = [(row[0].get_left() + RIGHT * inset, row[-1].get_right() + LEFT * inset)
                    for row in cells]
        else:  # one arrow down each column: the same position in every sentence
            runs = [(cells[0][j].get_top() + DOWN * inset, cells[-1][j].get_bottom() + UP * inset)
                    for j in range(tokens)]
        reach = VGroup(*(DoubleArrow(start, end, buff=0, stroke_width=2.5, color=INK,
                                     tip_length=min(0.12, side * 0.3),
                                     max_tip_length_to_length_ratio=0.3)
                         for start, end in runs))
        names = VGroup()
        for row, name in zip(cells, self.names, strict=True):
            label = self.sentence_name(name, SMALL, MUTED)
            label.move_to(row[0]).shift(RIGHT * (grid_cells.get_left()[0] - 0.2
                                                 - label.get_right()[0]))
            names.add(label)
        across, down = (("tokens", "batch: sentences") if sentences_first
                        else ("read as batch", "read as tokens"))
        side_name = self.label(down + " ↓", SMALL, MUTED)
        side_name.next_to(VGroup(names, grid_cells), UP, buff=0.15).align_to(names, RIGHT)
        top = self.label(across + " →", SMALL, MUTED)
        top.next_to(side_name, RIGHT, buff=0.5)
        top.shift(UP * (baseline(side_name) - baseline(top)))
        note = self.label("attention runs along each sentence" if sentences_first
                          else "attention runs across the sentences", SMALL, INK)
        heading = self.code("batch_first=True", 20) if sentences_first else \
            self.label("without it", 20)
        body = VGroup(side_name, top, names, grid_cells, reach)
        note.next_to(body, DOWN, buff=0.2)
        heading.next_to(body, UP, buff=0.2)
        return VGroup(heading, body, note)

    def constructor(self) -> None:
        lines = VGroup(self.code("mha = nn.MultiheadAttention(", 24),
                       self.bound("{d}, {h},", 24, mono=True, d="dims.d_model",
                                  h="dims.heads"),
                       self.code("bias=False,", 24),
                       self.code("batch_first=True)", 24))
        lines.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        lines[1:].shift(RIGHT * 0.9)
        notes = VGroup(self.bound("d_model = {d}, heads = {h}", 20, MUTED,
                                  d="dims.d_model", h="dims.heads"),
                       self.label("no offsets, like the scratch layer", 20, MUTED),
                       self.label("inputs come batch first", 20, MUTED))
        column = max(line.get_right()[0] for line in lines) + 0.8
        for note, line in zip(notes, lines[1:], strict=True):
            note.move_to([column + note.width / 2, line.get_y(), 0])
            note.shift(UP * (baseline(line) - baseline(note)))
        layout = VGroup(self.shape("E", "lab.shape.E", 24),
                        self.label("= [batch, tokens, d_model]", 22))
        layout.arrange(RIGHT, buff=0.25)
        layout[1].shift(UP * (baseline(layout[0]) - baseline(layout[1])))
        readings = VGroup(self.reading(True), self.reading(False)).arrange(RIGHT, buff=1.0,
                                                                           aligned_edge=UP)
        body = VGroup(VGroup(lines, notes), layout, readings).arrange(DOWN, buff=0.5)
        place(body)
        ours, default = readings
        self.say("We build the layer from our own sizes: width {d} and {h:head}.",
                 Fade(lines[:2]), Fade(notes[0]), self.point_at(lines[1], notes[0]),
                 d="dims.d_model", h="dims.heads")
        self.say("bias=False leaves out the offsets, exactly as the scratch layer does.",
                 Fade(lines[2]), Fade(notes[1]), self.point_at(lines[2]))
        self.say("batch_first=True says our inputs are laid out batch, tokens, d_model.",
                 Fade(lines[3]), Fade(notes[2]), self.point_at(lines[3]))
        self.tell("That is the layout of E, {e}: the batch axis lines up the sentences, "
                  "each one a row of tokens.", Fade(layout), Fade(ours),
                  cues=[("{e}", lambda: self.point_at(layout)),
                        ("batch axis", lambda: self.point_at(ours[1][0], ours[1][2]))],
                  e="lab.shape.E")
        self.tell("Without it, PyTorch reads the first axis as tokens, and would attend "
                  "across our sentences instead of along them.", Fade(default),
                  cues=[("first axis", lambda: self.point_at(default[1][0])),
                        ("across", lambda: self.point_at(default[1][3:], default[2]))])

    # ----------------------------------------------------------------- copied weights

    def weight_block(self, side: float, by_rows: bool) -> VGroup:
        """A square weight matrix with one band per head in the head's colour: columns
        (``by_rows`` false) or rows. Attributes ``square`` and ``bands``."""
        square = Square(side, stroke_color=MUTED, stroke_width=2, fill_color=PANEL,
                        fill_opacity=1)
        bands = VGroup()
        share = side / len(self.heads)
        for index, h in enumerate(self.heads):
            colour = self.head_colour(h)
            band = Rectangle(width=side if by_rows else share,
                             height=share if by_rows else side, stroke_color=colour,
                             stroke_width=2, fill_color=colour, fill_opacity=0.4)
            offset = -side / 2 + share * (index + 0.5)
            band.move_to([0, -offset, 0] if by_rows else [offset, 0, 0])
            bands.add(band)
        block = VGroup(square, bands)
        block.square, block.bands = square, bands
        return block

    def copied_weights(self) -> None:
        side, size = 0.9, 22
        d, j = "dims.d_model", "dims.joined"
        kinds = ("W_Q", "W_K", "W_V")
        # Ours act as E W, [in, out]: each head's outputs are a band of columns. W_O takes
        # the joined heads in, so its head bands are rows. PyTorch stores [out, in].
        ours = VGroup(*(self.weight_block(side, False) for _ in kinds))
        ours.arrange(DOWN, buff=0.2)
        ours.add(self.weight_block(side, True).next_to(ours, DOWN, buff=0.45))
        theirs = VGroup(*(self.weight_block(side, True) for _ in kinds)).arrange(DOWN, buff=0)
        theirs.add(self.weight_block(side, False))
        theirs.next_to(ours, RIGHT, buff=2.4)
        theirs[:3].move_to([theirs.get_x(), ours[:3].get_y(), 0])
        theirs[3].set_y(ours[3].get_y())
        our_names = VGroup(*(self.bound(kind + " [{a}, {b}]", size, mono=True, a=d, b=j)
                             .next_to(block, LEFT, buff=0.25)
                             for kind, block in zip(kinds, ours, strict=False)),
                           self.shape("W_O", "shapes.W_O", size)
                           .next_to(ours[3], LEFT, buff=0.25))
        their_names = VGroup(*(self.bound(kind + "ᵀ [{b}, {a}]", size, mono=True, a=d,
                                          b=j).next_to(block, RIGHT, buff=0.25)
                               for kind, block in zip(kinds, theirs, strict=False)),
                             self.bound("W_Oᵀ [{a}, {b}]", size, mono=True, a=d, b=j)
                             .next_to(theirs[3], RIGHT, buff=0.25))
        brace = Brace(VGroup(theirs[:3], their_names[:3]), RIGHT, buff=0.15, color=MUTED)
        names = VGroup(self.shape("in_proj_weight", "mha.in_proj_weight", size)
                       .next_to(brace, RIGHT, buff=0.15),
                       self.shape("out_proj.weight", "mha.out_proj_weight", size))
        names[1].move_to([names[0].get_center()[0], theirs[3].get_y(), 0])
        names[1].align_to(names[0], LEFT)
        moves = VGroup(*(arrow(a, b) for a, b in zip(ours, theirs, strict=True)))
        heads = VGroup(*(self.head_label(h, 20) for h in self.heads)).arrange(RIGHT, buff=0.3)
        each = self.bound("one head, its whole matrix {s}" if len(self.heads) == 1 else
                          "one band per head, each {s}", 20, MUTED, s="shapes.W_Q")
        legend = VGroup(each, heads).arrange(RIGHT, buff=0.3)
        heads.shift(UP * (baseline(each) - baseline(heads[0])))
        legend.next_to(ours, UP, buff=0.2)
        legend.shift(RIGHT * (ours.get_x() - heads.get_x()))
        headers = headers_above([(self.label("scratch layer: [in, out]", size - 2, MUTED),
                                  VGroup(ours, legend)),
                                 (self.label("PyTorch: [out, in]", size - 2, MUTED), theirs)])
        headers[0].set_x(ours.get_x())
        note = self.label("bias=False, no dropout: nothing else is added", 20, MUTED)
        body = VGroup(ours, theirs, moves, our_names, their_names, brace, names, legend,
                      headers)
        note.next_to(body, DOWN, buff=0.3)
        place(VGroup(body, note))
        squares = VGroup(*(block.square for block in ours))
        self.say("We copy the scratch layer's own parameters instead of drawing random ones.",
                 Fade(VGroup(squares, our_names, headers[0])), self.point_at(ours, our_names))
        template = ("Each block holds its one head's matrix whole, {s}." if len(self.heads) == 1
                    else "Each block holds every head's matrix, {s}, side by side: one band "
                    "of columns per head.")
        self.say(template, Fade(VGroup(*(block.bands for block in ours))), Fade(legend),
                 self.point_at(ours[0], legend), s="shapes.W_Q")
        self.say("PyTorch stores every weight the other way round, as [out, in]: "
                 "transposed, so columns become rows.", Fade(headers[1]),
                 *(TransformFromCopy(a, b) for a, b in zip(ours[:3], theirs[:3], strict=True)),
                 *map(Create, moves[:3]), Fade(their_names[:3]),
                 self.point_at(theirs[0], their_names[0]), run_time=2.0)
        self.say("The query, key and value blocks, stacked, fill in_proj_weight, {i}.",
                 Create(brace), Fade(names[0]), self.point_at(names[0]),
                 i="mha.in_proj_weight")
        self.say("W_O, transposed, fills out_proj.weight, {o}.", Create(moves[3]),
                 TransformFromCopy(ours[3], theirs[3]), Fade(their_names[3]),
                 Fade(names[1]), self.point_at(names[1]), o="mha.out_proj_weight")
        self.say("With no bias and no dropout, both layers compute the same function.",
                 Fade(note), self.point_at(note))

    # ----------------------------------------------------------------- the batch

    def mask_picture(self) -> VGroup:
        """The causal mask with its axes named, and its legend (``legend``, placed by the
        caller): True blocks a cell. ``first_row`` holds the first receiver's blocked cells."""
        tokens = self.ws.length
        width = min(3.0, 0.3 * tokens)
        cells = mask_grid(tokens, width)
        sources = self.label("sources →", SMALL, MUTED).next_to(cells, UP, buff=0.15)
        receivers = self.label("receivers ↓", SMALL, MUTED)
        receivers.next_to(cells, LEFT, buff=0.2).align_to(cells, UP)
        swatches = []
        for fill, opacity, text in ((NEUTRAL_FILL, 1.0, "True: blocked, a later source"),
                                    (MUTED, 0.9, "False: allowed")):
            swatch = Square(0.26, stroke_color=FAINT, stroke_width=0.5, fill_color=fill,
                            fill_opacity=opacity)
            swatches.append(VGroup(swatch, self.label(text, SMALL, MUTED))
                            .arrange(RIGHT, buff=0.15))
        picture = VGroup(cells, sources, receivers)
        picture.legend = VGroup(*swatches).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        picture.first_row = VGroup(*(cells[c] for c in range(1, tokens)))  # blocked cells
        return picture

    def batch_call(self) -> None:
        tokens = self.ws.length
        rows = [[self.sentence_name(name, 20, MUTED),
                 *(self.word(t, 22) for t in self.ws.sentences[name])]
                for name in self.names]
        words = grid(rows, h_buff=0.28, v_buff=0.32, aligns="l" + "c" * tokens)
        source = self.shape("E", "lab.shape.E", 24)
        axis = self.bound("batch axis ↓ {n:sentence}, one per row", 20, MUTED,
                          n="dims.sentences")
        top = VGroup(source, axis).arrange(RIGHT, buff=0.5)
        axis.shift(UP * (baseline(source) - baseline(axis)))
        each = self.bound("each word stands for its row of {d} numbers", 20, MUTED,
                          d="dims.d_model")
        E = VGroup(top, words, each).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        code = VGroup(self.code("delta, A = mha(E, E, E,", 24),
                      self.code("    attn_mask=causal,", 24),
                      self.code("    average_attn_weights=False)", 24))
        code.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        code[1:].shift(RIGHT * 0.9)
        mask = self.mask_picture()
        left = VGroup(code, mask.legend).arrange(DOWN, buff=0.6, aligned_edge=LEFT)
        lower = VGroup(left, mask).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        place(VGroup(E, lower).arrange(DOWN, buff=0.55))
        self.tell("The batch axis lines up our sentences: E holds {n:all sentence} at once, "
                  "shape {e}.", Fade(E), cues=[
                      ("batch axis", lambda: self.point_at(axis, VGroup(*(r[0] for r in rows)))),
                      ("{e}", lambda: self.point_at(source))],
                  n="dims.sentences", e="lab.shape.E")
        self.tell("We pass E as query, key and value input, with the causal mask.",
                  Fade(code), cues=[("We pass", lambda: self.point_at(code[0])),
                                    ("causal mask", lambda: AnimationGroup(
                                        Fade(mask), Fade(mask.legend),
                                        self.point_at(code[1])))])
        self.tell("In PyTorch's mask, True means blocked: each receiver's row blocks every "
                  "source after it.",
                  cues=[("True", lambda: self.point_at(mask.legend[0])),
                        ("each receiver", lambda: self.point_at(mask.first_row, buff=0))])
        self.code_lines, self.batch_rows, self.mask = code, E, mask

    # ----------------------------------------------------------------- what comes back

    def weight_grid(self, name: str, head: int, cell: float) -> VGroup:
        """One returned weight grid: receivers as rows, sources as columns, blocked cells in
        the neutral fill, the others shaded by weight in the head's colour.

        The shades read the scratch layer's weights: PyTorch's returned grid equals them up
        to ``mha.max_diff_A``, which the clip states as it ends. Attributes ``sentence``,
        ``head`` and ``cells`` (rows of cells)."""
        tokens, colour = self.ws.length, self.head_colour(head)
        mask = self.v.value(f"{name}.mask")
        weights = self.v.value(f"{name}.h{head}.A")
        rows = []
        for i in range(tokens):
            row = []
            for j in range(tokens):
                if mask[i][j]:
                    box = Rectangle(width=cell * 0.9, height=cell * 0.9, stroke_width=0,
                                    fill_color=NEUTRAL_FILL, fill_opacity=1.0)
                else:
                    box, _ = weight_cell(colour, weights[i][j], cell * 0.9, cell * 0.9)
                row.append(box.move_to([j * cell, -i * cell, 0]))
            rows.append(row)
        boxes = VGroup(*(box for row in rows for box in row))
        border = Rectangle(width=cell * tokens, height=cell * tokens, stroke_color=FAINT,
                           stroke_width=1.5).move_to(boxes)
        made = VGroup(border, boxes)
        made.sentence, made.head, made.cells = name, head, rows
        return made

    def returned_grids(self, room: float) -> VGroup:
        """Every returned grid: one row per sentence, one column per head, named, in at
        most ``room`` of height. Attributes ``heads``, ``names``, ``axes`` and ``grids``
        (rows of grids)."""
        tokens, count = self.ws.length, len(self.names)
        cell = min(0.6, (room - 0.35 * count) / (count * tokens),
                   6.0 / (len(self.heads) * tokens))
        table = [[self.sentence_name(name, SMALL, MUTED),
                  *(self.weight_grid(name, h, cell) for h in self.heads)]
                 for name in self.names]
        body = grid(table, h_buff=0.3, v_buff=0.3, aligns="r" + "c" * len(self.heads))
        heads = VGroup(*(self.head_label(h, SMALL).next_to(table[0][h], UP, buff=0.15)
                         for h in self.heads))
        axes = self.label("each grid: receivers ↓, sources →", SMALL, MUTED)
        axes.next_to(VGroup(*table[-1][1:]), DOWN, buff=0.2)
        made = VGroup(heads, body, axes)
        made.heads, made.axes = heads, axes
        made.names = VGroup(*(row[0] for row in table))
        made.grids = [row[1:] for row in table]
        return made

    def returned(self) -> None:
        results = grid([[self.shape("delta", "mha.delta", 22),
                         self.label("sentences × tokens × width", SMALL, MUTED)],
                        [self.shape("A", "mha.A", 22),
                         self.label("sentences × heads × receivers × sources", SMALL, MUTED)]],
                       h_buff=0.3, v_buff=0.3)
        for row in results.rows:
            row[1].next_to(row[0], DOWN, buff=0.12).align_to(row[0], LEFT)
        delta_row, a_row = (VGroup(*row) for row in results.rows)
        a_row.next_to(delta_row, DOWN, buff=0.35).align_to(delta_row, LEFT)
        code = self.code_lines.copy()
        left = VGroup(code, VGroup(delta_row, a_row)).arrange(DOWN, buff=0.55,
                                                             aligned_edge=LEFT)
        grids = self.returned_grids(CONTENT_TOP - CONTENT_BOTTOM - 0.9)
        whole = VGroup(left, grids).arrange(RIGHT, buff=0.9)
        fit(whole, CONTENT_WIDTH, CONTENT_TOP - CONTENT_BOTTOM)
        whole.move_to([0, (CONTENT_TOP + CONTENT_BOTTOM) / 2, 0])
        with self.silence("the inputs make way for what comes back"):
            self.play(Fade(VGroup(self.batch_rows, self.mask, self.mask.legend),
                           appear=False),
                      self.code_lines.animate.scale(code.height / self.code_lines.height)
                      .move_to(code), *self.unpointed(), run_time=0.8)
        self.say("The update ΔE comes back as {d}, batch first like E.", Fade(delta_row),
                 self.point_at(delta_row), d="mha.delta")
        names = grids.names
        self.tell("average_attn_weights=False keeps the head axis, so the weights come back "
                  "as {a}.", Fade(a_row),
                  cues=[("average_attn_weights", lambda: self.point_at(self.code_lines[2])),
                        ("{a}", lambda: AnimationGroup(
                            LaggedStart(*(Fade(VGroup(*row)) for row in grids.grids),
                                        lag_ratio=0.3),
                            Fade(grids.heads), Fade(names), Fade(grids.axes),
                            self.point_at(a_row)))],
                  a="mha.A")
        self.tell("That is one grid for each sentence and head: receivers down, sources "
                  "across, shaded by weight.",
                  cues=[("each sentence", lambda: self.point_at(*names, each=True)),
                        ("head", lambda: self.point_at(*grids.heads, each=True)),
                        ("receivers", lambda: self.point_at(grids.grids[0][0],
                                                            grids.axes, each=True))])
        self.results, self.grids, self.inputs = VGroup(delta_row, a_row), grids, \
            self.code_lines

    def agreement(self) -> None:
        rows = [[self.label("largest difference in ΔE", 22),
                 self.num("mha.max_diff_delta", 24)],
                [self.label("largest difference in A", 22),
                 self.num("mha.max_diff_A", 24)]]
        table = grid(rows, h_buff=0.6, v_buff=0.3)
        verdict = self.label("equal up to float rounding", 24, INK)
        block = VGroup(table, verdict).arrange(DOWN, buff=0.4)
        card = VGroup(block, frame(block, MUTED, 0.25))
        results = self.results
        fit(card, self.grids.get_left()[0] + CONTENT_WIDTH / 2 - 0.4)
        self.play(Fade(VGroup(self.inputs, self.heading), appear=False), *self.unpointed(),
                  run_time=0.5)
        self.heading = self.title("Scratch layer and PyTorch agree")
        self.play(Write(self.heading), results.animate.shift(
            UP * (self.grids.get_top()[1] - results.get_top()[1])), run_time=0.6)
        card.next_to(results, DOWN, buff=0.6).align_to(results, LEFT)
        self.say("Entry by entry, the largest difference from our scratch layer in ΔE is "
                 "{d}.", Fade(VGroup(table, card[1])), self.point_at(VGroup(*rows[0])),
                 d="mha.max_diff_delta")
        self.tell("In the weights it is {a}: float rounding, nothing more.",
                  Fade(verdict), cues=[("{a}", lambda: self.point_at(VGroup(*rows[1]))),
                                       ("float rounding", lambda: self.point_at(self.grids))],
                  a="mha.max_diff_A")
