"""`nn.MultiheadAttention` with the worksheet's weights copied in, from the `mha.*` values:
the per-head steps it packages, how it is built, how our weights fill its two tensors, and
one batched call whose returned weight grids are drawn."""


from collections.abc import Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Brace,
    Create,
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
    LEAST_FIGURE_SIZE,
    MUTED,
    Fade,
    baseline,
    fit,
    panel,
    shown_indices,
    weight_cell,
)
from scenes.kit.palette import FAINT, PANEL
from scenes.kit.topic import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    CONTENT_WIDTH,
    LibraryScene,
    arrow,
    frame,
    grid,
    headers_above,
    mask_cell,
    mask_grid,
    place,
)

__all__ = ["PyTorchLayer"]

SMALL = 18
"""Notes, axis names and legends (words only: a text holding a figure is at least
:data:`FIGURE`)."""
FIGURE = LEAST_FIGURE_SIZE
"""The least size of a text that holds a figure, as the frame shows it: nothing holding a
figure is scaled below it."""
COLUMN = 16
"""A grid's source names, cut to fit their columns."""
OPEN_EDGE = 0.8
"""Stroke of an allowed cell's faint edge, as the kit's mask grid draws an open cell."""
NAMED_CELL = 0.24
"""The smallest grid cell whose row still fits a token's name beside it."""
ROW_WORDS = 1.6
"""Room left of a grid for the receivers' words (the longest token at :data:`COLUMN`)."""
STRONGEST = 2
"""How many of each head's strongest weights at the receiver the proof lists (one more
for a single head)."""


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
        self.stage("Build the layer from our sizes")
        self.constructor()
        self.section("copied weights")
        self.stage("Copy the weights, do not draw new ones")
        self.copied_weights()
        self.section("the call")
        self.stage("One sentence in one call")
        self.call()
        self.section("what comes back")
        self.returned()
        self.section("agreement")
        self.agreement()
        self.section("numbers")
        self.numbers()
        self.section("differences")
        self.differences()

    # ----------------------------------------------------------------- narration

    # ----------------------------------------------------------------- what it packages

    def step_box(self, text: str, colour: str = FAINT, size: float = 20) -> VGroup:
        """One step of the layer's work, framed."""
        return panel(self.label(text, size), colour, buff=0.1)

    def lanes(self) -> VGroup:
        """One row per head: its label, then score → softmax → mix in the head's colour."""
        rows = VGroup()
        for h in self.heads:
            colour = self.head_colour(h)
            boxes = [self.step_box(text, colour) for text in ("score", "softmax", "mix")]
            VGroup(*boxes).arrange(RIGHT, buff=0.35)
            name = self.head_label(h, FIGURE).next_to(boxes[0], LEFT, buff=0.25)
            row = VGroup(name, *boxes)
            row.add(*(arrow(a, b, colour=colour) for a, b in pairwise(boxes)))
            rows.add(row)
        return rows.arrange(DOWN, buff=0.22, aligned_edge=LEFT)

    def packages(self) -> None:
        project = self.step_box("project Q, K, V")
        split = panel(self.bound("split into {n:head}", FIGURE, n="dims.heads"), FAINT,
                      buff=0.1)
        lanes = self.lanes()
        join, w_o = self.step_box("join"), self.step_box("W_O")
        row = VGroup(project, split, lanes, join, w_o).arrange(RIGHT, buff=0.4)
        links = VGroup(arrow(project, split),
                       *(arrow(split, lane) for lane in lanes),
                       *(arrow(lane, join) for lane in lanes), arrow(join, w_o))
        name = self.code("nn.MultiheadAttention", 24)
        name.next_to(row, UP, buff=0.35).align_to(row, LEFT)
        layer = VGroup(name, row, links)
        box = frame(layer, MUTED, buff=0.2)
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
                       self.label("matters only with a batch axis: later", 20, MUTED))
        column = max(line.get_right()[0] for line in lines) + 0.8
        for note, line in zip(notes, lines[1:], strict=True):
            note.move_to([column + note.width / 2, line.get_y(), 0])
            note.shift(UP * (baseline(line) - baseline(note)))
        layout = VGroup(self.shape("E", "shapes.E", 24),
                        self.label("= [tokens, d_model]: one sentence, no batch axis", 22))
        layout.arrange(RIGHT, buff=0.25)
        layout[1].shift(UP * (baseline(layout[0]) - baseline(layout[1])))
        body = VGroup(VGroup(lines, notes), layout).arrange(DOWN, buff=0.7)
        place(body)
        self.say("We build the layer from our own sizes: width {d} and {h:head}.",
                 Fade(lines[:2]), Fade(notes[0]), self.point_at(lines[1], notes[0]),
                 d="dims.d_model", h="dims.heads")
        self.say("bias=False leaves out the offsets, exactly as the scratch layer does.",
                 Fade(lines[2]), Fade(notes[1]), self.point_at(lines[2]))
        self.say("batch_first=True only matters for inputs with a batch axis, laid out "
                 "batch, tokens, d_model; batches come later.",
                 Fade(lines[3]), Fade(notes[2]), self.point_at(lines[3], notes[2]))
        self.say("Here E is one sentence alone, {e}: a row of {d} numbers per token.",
                 Fade(layout), self.point_at(layout), e="shapes.E", d="dims.d_model")

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
        side, size = 0.8, FIGURE
        d, j = "dims.d_model", "dims.joined"
        kinds = ("W_Q", "W_K", "W_V")
        # Ours act as E W, [in, out]: each head's outputs are a band of columns. W_O takes
        # the joined heads in, so its head bands are rows. PyTorch stores [out, in].
        ours = VGroup(*(self.weight_block(side, False) for _ in kinds))
        ours.arrange(DOWN, buff=0.15)
        ours.add(self.weight_block(side, True).next_to(ours, DOWN, buff=0.35))
        theirs = VGroup(*(self.weight_block(side, True) for _ in kinds)).arrange(DOWN, buff=0)
        theirs.add(self.weight_block(side, False))
        theirs.next_to(ours, RIGHT, buff=1.8)
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
        headers = headers_above([(self.label("scratch layer: [in, out]", size, MUTED),
                                  VGroup(our_names, ours)),
                                 (self.label("PyTorch: [out, in]", size, MUTED),
                                  VGroup(theirs, their_names))], buff=0.25)
        # The key to the bands, on a line of its own above both columns: beside the blocks
        # it would take the width their names need.
        heads = VGroup(*(self.head_label(h, size) for h in self.heads)).arrange(RIGHT, buff=0.3)
        each = self.bound("one head, its whole matrix {s}" if len(self.heads) == 1 else
                          "one band per head, each {s}", size, MUTED, s="shapes.W_Q")
        legend = VGroup(each, heads).arrange(RIGHT, buff=0.3)
        heads.shift(UP * (baseline(each) - baseline(heads[0])))
        note = self.label("bias=False, no dropout: nothing else is added", size, MUTED)
        body = VGroup(ours, theirs, moves, our_names, their_names, brace, names, headers)
        legend.next_to(body, UP, buff=0.3)
        note.next_to(body, DOWN, buff=0.3)
        place(VGroup(legend, body, note))
        squares = VGroup(*(block.square for block in ours))
        self.say("We copy the scratch layer's own parameters instead of drawing random ones.",
                 Fade(VGroup(squares, our_names, headers[0])), self.point_at(ours, our_names))
        template = ("Each block holds its one head's matrix whole, {s}." if len(self.heads) == 1
                    else "Each block holds every head's matrix, {s}, side by side: one band "
                    "of columns per head.")
        self.say(template, Fade(VGroup(*(block.bands for block in ours))), Fade(legend),
                 self.point_at(legend, ours[0], each=True), s="shapes.W_Q")
        self.say("PyTorch stores each weight transposed, as [out, in]: Q, K and V stack "
                 "into in_proj_weight, {i}, and W_O fills out_proj.weight, {o}.",
                 Fade(headers[1]),
                 *(TransformFromCopy(a, b) for a, b in zip(ours, theirs, strict=True)),
                 *map(Create, moves), Fade(their_names), Create(brace), Fade(names),
                 self.point_at(names[0], names[1], each=True), run_time=3.0,
                 i="mha.in_proj_weight", o="mha.out_proj_weight")
        self.say("With no bias and no dropout, both layers compute the same function.",
                 Fade(note), self.point_at(note))

    # ----------------------------------------------------------------- the call

    def mask_picture(self) -> VGroup:
        """The causal mask with its axes named, in clip 14's colours (the kit's mask grid):
        masked cells (a later source, True in PyTorch's mask) in the neutral fill, hatched
        as the weight grids will be, allowed cells left open. ``legend`` (allowed, then
        masked) is placed by the caller; ``first_row`` holds the first receiver's masked
        cells."""
        tokens = self.ws.length
        cells = mask_grid(tokens, min(3.0, 0.3 * tokens),
                          lambda text: self.label(text, SMALL, MUTED),
                          ("may attend (False)", "masked: a later source (True)"), hatched=True)
        sources = self.label("sources →", SMALL, MUTED).next_to(cells, UP, buff=0.15)
        receivers = self.label("receivers ↓", SMALL, MUTED)
        receivers.next_to(cells, LEFT, buff=0.2).align_to(cells, UP)
        picture = VGroup(cells, sources, receivers)
        picture.legend = cells.legend
        picture.first_row = VGroup(*cells.cells[0][1:])
        return picture

    def call(self) -> None:
        name = self.ws.walkthrough
        words = VGroup(*(self.word(t, 22) for t in self.ws.sentences[name]))
        words.arrange(RIGHT, buff=0.28)
        source = self.shape("E", "shapes.E", 24)
        each = self.bound("one sentence: each word stands for its row of {d} numbers", 20,
                          MUTED, d="dims.d_model")
        top = VGroup(source, each).arrange(RIGHT, buff=0.5)
        each.shift(UP * (baseline(source) - baseline(each)))
        E = VGroup(top, words).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        code = VGroup(self.code("delta, A = mha(", 24), self.code("E, E, E,", 24),
                      self.code("attn_mask=causal,", 24),
                      self.code("average_attn_weights=False)", 24))
        code.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        code[1:].shift(RIGHT * 0.9)
        passed = code[1]  # the three inputs, on a line of their own
        mask = self.mask_picture()
        left = VGroup(code, mask.legend).arrange(DOWN, buff=0.6, aligned_edge=LEFT)
        lower = VGroup(left, mask).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        place(VGroup(E, lower).arrange(DOWN, buff=0.55))
        self.say("E is the “{s}” sentence alone, shape {e}.", Fade(E),
                 self.point_at(source), words={"s": name}, e="shapes.E")
        self.say("We pass E three times: as the query, the key and the value input.",
                 Fade(code[:2]), self.point_at(passed))
        self.say("attn_mask=causal hands the layer the causal mask: a source may not be "
                 "later than its receiver.", Fade(code[2]),
                 Fade(mask), Fade(mask.legend), self.point_at(code[2]))
        self.tell("In PyTorch's mask, True means blocked: each receiver's row masks every "
                  "source after it.",
                  cues=[("True", lambda: self.point_at(mask.legend[1])),
                        ("each receiver", lambda: self.point_at(mask.first_row, buff=0))])
        self.code_lines, self.inputs_shown, self.mask = code, E, mask

    # ----------------------------------------------------------------- what comes back

    def weight_grid(self, weights: Sequence[Sequence[float]], head: int,
                    cell: float) -> VGroup:
        """One head's weight grid: receivers as rows, sources as columns, masked cells
        hatched on the neutral fill, the others open (faintly edged) and shaded by weight in
        the head's colour, so that a weight near zero never reads as a masked cell.
        Attributes ``head`` and ``cells`` (rows of cells)."""
        tokens, colour = self.ws.length, self.head_colour(head)
        mask = self.v.value(f"{self.ws.walkthrough}.mask")
        rows = []
        for i in range(tokens):
            row = []
            for j in range(tokens):
                if mask[i][j]:
                    box = mask_cell(cell * 0.9, masked=True, outline=False, hatched=True)
                else:
                    box, _ = weight_cell(colour, weights[i][j], cell * 0.9, cell * 0.9)
                    box.set_stroke(FAINT, OPEN_EDGE)
                row.append(box.move_to([j * cell, -i * cell, 0]))
            rows.append(row)
        boxes = VGroup(*(box for row in rows for box in row))
        border = Rectangle(width=cell * tokens, height=cell * tokens, stroke_color=FAINT,
                           stroke_width=1.5).move_to(boxes)
        made = VGroup(border, boxes)
        made.head, made.cells = head, rows
        return made

    def library_grids(self, cell: float) -> list[VGroup]:
        """The grids PyTorch returns, one per head, from its own weights."""
        returned = self.v.value("mha.single.weights")
        grids = []
        for h in self.heads:
            made = self.weight_grid(returned[h - 1], h, cell)
            made.source = "PyTorch"
            grids.append(made)
        return grids

    def scratch_grids(self, cell: float) -> list[VGroup]:
        """The scratch layer's grids, one per head, from its own weights."""
        name = self.ws.walkthrough
        grids = []
        for h in self.heads:
            made = self.weight_grid(self.v.value(f"{name}.h{h}.A"), h, cell)
            made.source = "scratch"
            grids.append(made)
        return grids

    def returned(self) -> None:
        results = grid([[self.shape("delta", "mha.single.delta", 22),
                         self.label("tokens × width, like E", SMALL, MUTED)],
                        [self.shape("A", "mha.single.A", 22),
                         self.label("heads × receivers × sources", SMALL, MUTED)]],
                       h_buff=0.3, v_buff=0.3)
        for row in results.rows:
            row[1].next_to(row[0], DOWN, buff=0.12).align_to(row[0], LEFT)
        delta_row, a_row = (VGroup(*row) for row in results.rows)
        a_row.next_to(delta_row, DOWN, buff=0.35).align_to(delta_row, LEFT)
        code = self.code_lines.copy().scale(0.85)  # smaller: the grids and their words need room
        left = VGroup(code, VGroup(delta_row, a_row)).arrange(DOWN, buff=0.55,
                                                             aligned_edge=LEFT)
        tokens = self.ws.length
        cell = min(0.35, 5.6 / (len(self.heads) * tokens), 3.4 / tokens)
        grids = self.library_grids(cell)
        shown = VGroup(*grids).arrange(RIGHT, buff=0.35)
        tokens_named = self.token_axes(grids, cell)
        heads = VGroup(*(self.head_label(h, FIGURE).next_to(VGroup(g, columns), UP, buff=0.15)
                         for h, g, columns in zip(self.heads, grids, tokens_named.columns,
                                                  strict=True)))
        axes = self.label("each grid: receivers ↓, sources →", SMALL, MUTED)
        axes.next_to(shown, DOWN, buff=0.2)
        legend = self.grid_legend().next_to(axes, DOWN, buff=0.2)
        right = VGroup(heads, tokens_named, shown, axes, legend)
        whole = VGroup(left, right).arrange(RIGHT, buff=0.6)
        fit(whole, CONTENT_WIDTH, CONTENT_TOP - CONTENT_BOTTOM)
        whole.move_to([0, (CONTENT_TOP + CONTENT_BOTTOM) / 2, 0])
        with self.silence("the inputs make way for what comes back"):
            self.play(Fade(VGroup(self.inputs_shown, self.mask, self.mask.legend),
                           appear=False),
                      self.code_lines.animate.scale(code.height / self.code_lines.height)
                      .move_to(code), *self.unpointed(), run_time=0.8)
        self.say("The update ΔE comes back as {d}, the same shape as E.", Fade(delta_row),
                 self.point_at(delta_row), d="mha.single.delta")
        self.tell("average_attn_weights=False keeps the head axis, so the weights come back "
                  "as {a}.", Fade(a_row),
                  cues=[("average_attn_weights", lambda: self.point_at(self.code_lines[3])),
                        ("{a}", lambda: AnimationGroup(
                            LaggedStart(*(Fade(g) for g in grids), lag_ratio=0.3),
                            Fade(heads), Fade(tokens_named), Fade(axes), Fade(legend),
                            self.point_at(a_row)))],
                  a="mha.single.A")
        self.tell("That is one grid per head: receivers down, sources across, shaded by "
                  "weight.",
                  cues=[("one grid per head", lambda: self.point_at(*heads, each=True)),
                        ("receivers", lambda: self.point_at(
                            VGroup(tokens_named.rows, tokens_named.columns[0], grids[0]), axes,
                            each=True))])
        self.results, self.grids, self.inputs = VGroup(delta_row, a_row), grids, \
            self.code_lines
        self.grid_labels, self.legend = VGroup(heads, tokens_named, axes), legend
        masked = grids[0].cells[0][1:]  # the first receiver's later sources
        self.tell("Hatched cells are the future sources, masked: their weight is exactly "
                  "zero.", cues=[("Hatched", lambda: self.point_at(legend[1])),
                                 ("future", lambda: self.point_at(*masked, buff=0))])

    def grid_legend(self) -> VGroup:
        """The key to the weight grids' cells, in the mask picture's style: an open cell
        shaded by its weight, a hatched one masked."""
        entries = [(False, "may attend: shaded by weight"), (True, "masked (future)")]
        legend = VGroup(*(VGroup(mask_cell(0.3, masked, hatched=True),
                                 self.label(text, SMALL, MUTED)).arrange(RIGHT, buff=0.15)
                          for masked, text in entries))
        return legend.arrange(DOWN, buff=0.15, aligned_edge=LEFT)

    def token_axes(self, grids: Sequence[VGroup], cell: float) -> VGroup:
        """The sentence's tokens along the grids' axes: each receiver's word left of the
        first grid, on its row; each source's word above its column of every grid, cut to
        its first letters where the whole word would not fit the column. Nothing where
        the rows are too close for a word (``cell`` below :data:`NAMED_CELL`). Attributes
        ``rows`` and ``columns`` (one group per grid)."""
        if cell < NAMED_CELL:
            axes = VGroup()
            axes.rows, axes.columns = VGroup(), [VGroup() for _ in grids]
            return axes
        tokens = self.ws.sentences[self.ws.walkthrough]
        first = grids[0].cells
        rows = VGroup(*(self.word(t, COLUMN, MUTED).next_to(first[i][0], LEFT, buff=0.12)
                        for i, t in enumerate(tokens)))
        columns = VGroup()
        for made in grids:
            names = VGroup()
            for j, t in enumerate(tokens):
                name = self.short(t, cell - 0.08)
                names.add(name.next_to(made.cells[0][j], UP, buff=0.08))
            line = max(baseline(name) for name in names)
            for name in names:  # the words on one line, whatever their letters
                name.shift(UP * (line - baseline(name)))
            columns.add(names)
        axes = VGroup(rows, columns)
        axes.rows, axes.columns = rows, columns
        return axes

    def short(self, token: str, room: float) -> VGroup:
        """``token`` in the columns' muted size, cut to as many first letters as fit ``room``
        (at least one)."""
        for end in range(len(token), 0, -1):
            made = self.word(token, COLUMN, MUTED) if end == len(token) else \
                self.label(token[:end], COLUMN, MUTED)
            if made.width <= room or end == 1:
                return made
        raise ValueError(f"empty token {token!r}")

    # ----------------------------------------------------------------- agreement

    def strongest(self, size: float) -> VGroup:
        """Each head's strongest weights at the last receiver (the sources the values
        order first), from each layer: one row per source, its head, its word, then the
        scratch layer's weight and PyTorch's. Attribute ``rows`` (head, word, ours,
        theirs) and ``header``."""
        name, last = self.ws.walkthrough, self.ws.length - 1
        tokens = self.ws.sentences[name]
        count = STRONGEST if len(self.heads) > 1 else STRONGEST + 1
        rows = []
        for h in self.heads:
            order = self.v.value(f"{name}.h{h}.order")
            for rank, j in enumerate(order[:count]):
                rows.append([self.head_label(h, size) if rank == 0 else VGroup(),
                             self.word(tokens[j], size),
                             self.num(f"{name}.h{h}.A[{last}][{j}]", size),
                             self.num(f"mha.single.weights[{h - 1}][{last}][{j}]", size)])
        header = [VGroup(), VGroup(), self.label("scratch", size, MUTED),
                  self.label("PyTorch", size, MUTED)]
        body = grid([header, *rows], h_buff=0.35, v_buff=0.16, aligns="llrr")
        title = self.bound("receiver “{w}”: each head's strongest weights", size, INK,
                           words={"w": tokens[last]})
        made = VGroup(title, body).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        made.rows, made.header = rows, header
        return made

    def delta_rows(self, size: float) -> VGroup:
        """The last receiver's row of ΔE from each layer, under the model's features.
        Attribute ``rows`` (name, numbers…) per layer."""
        columns = shown_indices(self.ws.d_model)
        features = [VGroup()] + [self.label("…", size, MUTED) if c is None else
                                 self.bound("{f}", size, MUTED,
                                            words={"f": self.ws.lesson.features[c]})
                                 for c in columns]
        table = [[self.label(label, size, MUTED),
                  *(self.label("…", size, MUTED) if c is None else self.num(f"{key}[{c}]", size)
                    for c in columns)]
                 for label, key in (("scratch", "mha.scratch_delta"),
                                    ("PyTorch", "mha.library_delta"))]
        body = grid([features, *table], h_buff=0.35, v_buff=0.16,
                    aligns="l" + "r" * len(columns))
        title = self.label("the receiver's row of ΔE", size, INK)
        made = VGroup(title, body).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        made.rows = table
        return made

    def agreement(self) -> None:
        count, tokens = len(self.heads), self.ws.length
        # Two grids per head and the receivers' words in the content's width, at no more
        # than the returned grids' cell: the heads' names then keep their size.
        room = CONTENT_WIDTH - ROW_WORDS - count * 0.25 - (count - 1) * 0.5
        cell = min(self.grids[0].width / tokens, room / (2 * count * tokens))
        ours = self.scratch_grids(cell)
        targets = [g.copy() for g in self.grids]
        pairs = VGroup(*(VGroup(mine, target).arrange(RIGHT, buff=0.25)
                         for mine, target in zip(ours, targets, strict=True)))
        pairs.arrange(RIGHT, buff=0.5)
        in_order = [g for pair in zip(ours, targets, strict=True) for g in pair]
        width = pairs.width
        for named in (cell, 0.0):  # the tokens named if the rows keep room for them
            axes = self.token_axes(in_order, named)
            names = VGroup(*(self.label(text, 20, MUTED).next_to(VGroup(g, columns), UP,
                                                                 buff=0.12)
                             for text, g, columns in zip(("scratch", "PyTorch")
                                                         * len(self.heads), in_order,
                                                         axes.columns, strict=True)))
            heads = VGroup(*(self.head_label(h, 20).next_to(names[2 * i:2 * i + 2], UP,
                                                            buff=0.12)
                             for i, h in enumerate(self.heads)))
            key = self.legend.copy().next_to(pairs, DOWN, buff=0.3)
            place(VGroup(heads, names, axes, pairs, key))
            if not len(axes) or cell * pairs.width / width >= NAMED_CELL:
                break
        self.play(Fade(VGroup(self.inputs, self.heading, self.results, self.grid_labels),
                       appear=False), *self.unpointed(), run_time=0.5)
        self.heading = self.title("Scratch layer and PyTorch agree")
        self.play(Write(self.heading), self.legend.animate.replace(key),
                  *(g.animate.replace(target)
                                         for g, target in zip(self.grids, targets, strict=True)),
                  run_time=0.6)
        self.say("Beside PyTorch's grids, the scratch layer's own: the same shading, cell "
                 "by cell.", Fade(VGroup(*ours)), Fade(names), Fade(heads), Fade(axes),
                 self.point_at(*(VGroup(heads[i], names[2 * i:2 * i + 2], pair,
                                        axes.columns[2 * i:2 * i + 2],
                                        *([axes.rows] if i == 0 else []))
                                 for i, pair in enumerate(pairs)), each=True))
        self.pairs = [(mine, theirs) for mine, theirs in zip(ours, self.grids, strict=True)]
        self.pictures = VGroup(*ours, *self.grids, names, heads, axes, self.legend)

    def numbers(self) -> None:
        weights, delta = self.strongest(FIGURE), self.delta_rows(FIGURE)
        place(VGroup(weights, delta).arrange(RIGHT, buff=0.9, aligned_edge=UP))
        self.play(Fade(self.pictures, appear=False), *self.unpointed(), run_time=0.5)
        receiver = self.ws.sentences[self.ws.walkthrough][-1]
        self.say("At the receiver “{w}”, each head's strongest weights come out the same "
                 "from both layers.", Fade(weights), self.point_at(weights),
                 words={"w": receiver})
        self.say("So does the receiver's row of ΔE, number for number.", Fade(delta),
                 self.point_at(delta))
        self.weights, self.delta = weights, delta

    def differences(self) -> None:
        """The largest gaps between the layers and the width they computed in, under the
        row of ΔE (the weights make way: side by side, all three would not fit at the
        figures' size)."""
        rows = [[self.label("largest difference in ΔE", FIGURE),
                 self.num("mha.single.max_diff_delta", 22)],
                [self.label("largest difference in A", FIGURE),
                 self.num("mha.single.max_diff_A", 22)]]
        table = grid(rows, h_buff=0.6, v_buff=0.3)
        verdict = self.bound("computed with {b}-bit numbers: equal up to rounding", FIGURE,
                             INK, b="mha.single.bits")
        agrees = bool(self.v.value("mha.notebook.agrees"))
        said = ("the notebook's {n}-bit numbers: the same to the digits shown" if agrees
                else "the notebook's {n}-bit numbers: last digits may differ")
        notebook = self.bound(said, FIGURE, MUTED, n="mha.notebook.bits")
        block = VGroup(table, verdict, notebook).arrange(DOWN, buff=0.3)
        card = VGroup(block, frame(block, MUTED, 0.25))
        delta = self.delta.copy()
        place(VGroup(delta, card).arrange(DOWN, buff=0.5))
        with self.silence("the weights make way for the differences"):
            self.play(Fade(self.weights, appear=False), self.delta.animate.move_to(delta),
                      *self.unpointed(), run_time=0.6)
        self.say("Entry by entry, the largest difference in ΔE is {d}, and in the weights "
                 "{a}.", Fade(VGroup(table, card[1])), self.point_at(table),
                 d="mha.single.max_diff_delta", a="mha.single.max_diff_A")
        self.say("Both ran with {b}-bit numbers, whose rounding errors lie far below that bound.",
                 Fade(verdict), self.point_at(verdict), b="mha.single.bits")
        template = ("The lesson's notebook computes with {n}-bit numbers: to the digits shown "
                    "here, its numbers are the same." if agrees else
                    "The lesson's notebook computes with {n}-bit numbers, so its last digits "
                    "may differ from these.")
        self.say(template, Fade(notebook), self.point_at(notebook), n="mha.notebook.bits")
