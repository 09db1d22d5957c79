"""The batch lab: token ids to a batch, the heads' reshape and transpose as tensor blocks,
attention in every block, the heads joined back, the residual and the logits, the loss and
one training step, and one new token, from the `lab.*` values."""

from __future__ import annotations

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
    Mobject,
    Rectangle,
    ReplacementTransform,
    Triangle,
    VGroup,
)

from scenes.kit import (
    INK,
    LEAST_FIGURE_SIZE,
    MUTED,
    Fade,
    baseline,
    fit,
    panel,
    weight_cell,
)
from scenes.kit.palette import BACKGROUND, FAINT, PANEL, blend, ink_on
from scenes.kit.topic import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    CONTENT_WIDTH,
    LibraryScene,
    arrow,
    grid,
    place,
    slab_stack,
    slots,
)

__all__ = ["PARAMETER_TENSORS", "BatchLab"]


PARAMETER_TENSORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("embeddings", ("token table", "position table")),
    ("attention", ("W_Q", "W_K", "W_V", "W_O")),
    ("prediction MLP", ("W_hidden", "b_hidden", "W_vocab", "b_vocab")),
)
"""The lab model's learned tensors by the part they belong to, in the lecture's names: the
two embedding tables, the heads' projections packed side by side and W_O, and the MLP's
weights and offsets (the scene checks their number against ``lab.param_tensors``)."""

CONTENT_HEIGHT = CONTENT_TOP - CONTENT_BOTTOM
LABEL = 20
"""Side labels, headers and notes."""
SMALL = 18
"""Labels inside a dense picture (each block's shape, a word above its id)."""
PIECE = LEAST_FIGURE_SIZE
"""Token positions written inside the joined rows' pieces (figures: the least size)."""


def _cell_lines(box: Rectangle, rows: int, columns: int) -> VGroup:
    """Faint lines cutting ``box`` into ``rows`` × ``columns`` cells."""
    lines = VGroup()
    left, right = box.get_left()[0], box.get_right()[0]
    bottom, top = box.get_bottom()[1], box.get_top()[1]
    for r in range(1, rows):
        y = top - r * (top - bottom) / rows
        lines.add(Line([left, y, 0], [right, y, 0], stroke_color=FAINT, stroke_width=1))
    for c in range(1, columns):
        x = left + c * (right - left) / columns
        lines.add(Line([x, bottom, 0], [x, top, 0], stroke_color=FAINT, stroke_width=1))
    return lines


def _tinted(colour: str, width: float, height: float) -> Rectangle:
    """A block in a head's colour, as the tensor blocks draw a head's slice."""
    return Rectangle(width=width, height=height, stroke_color=colour, stroke_width=2.5,
                     fill_color=colour, fill_opacity=0.35)


class BatchLab(LibraryScene):
    """The executable lab: a batch of ids, the head axis as tensor blocks, attention per
    block, joining the heads, the loss and one step, one new token."""

    def construct(self) -> None:
        self.section("batch")
        self.stage("The lab: every sentence in one batch")
        self.batch()
        self.section("embedding")
        self.stage("Embedding: a token row plus a position row")
        self.embedding()
        self.section("head axis")
        self.stage("Reshape, then transpose: heads before tokens")
        self.head_axis()
        self.section("attention")
        self.stage("Attention inside every block")
        self.attention()
        self.section("joining the heads")
        self.stage("Transpose back, then join the heads")
        self.joining()
        self.section("to the logits")
        self.stage("The residual and the logits")
        self.logits()
        if self.ws.lesson.targets:
            self.section("the loss")
            self.stage("The loss: logits against the targets")
            self.loss()
            self.section("one training step")
            self.stage("One training step")
            self.training_step()
        self.section("one new token")
        self.stage("Generate one token")
        self.generate()

    # ------------------------------------------------------------------ the batch

    def id_cell(self, token: str, key: str) -> VGroup:
        """A token's word above its id: ``cell.word``, ``cell.id``."""
        word, number = self.word(token, SMALL, MUTED), self.num(key, 22)
        cell = VGroup(word, number).arrange(DOWN, buff=0.14)
        cell.word, cell.id = word, number
        return cell

    def batch(self) -> None:
        names = list(self.ws.sentences)
        length = self.ws.length
        observed = bool(self.ws.lesson.targets)
        cells = [[self.id_cell(self.ws.sentences[name][j], f"lab.X[{i}][{j}]")
                  for j in range(length)] for i, name in enumerate(names)]
        targets = [self.id_cell(self.word_of(f"lab.y[{i}]"), f"lab.y[{i}]")
                   for i in range(len(names))] if observed else []
        arrows = [self.label("→", 22, MUTED) for _ in targets]
        rows = [[self.sentence_name(name, LABEL, MUTED), *cells[i],
                 *([arrows[i], targets[i]] if observed else [])]
                for i, name in enumerate(names)]
        table = grid(rows, h_buff=0.24, v_buff=0.45,
                     aligns="l" + "c" * length + ("cc" if observed else ""))
        for i, row in enumerate(rows):  # words on one line, ids (names, arrows) on another
            words, line = baseline(cells[i][0].word), baseline(cells[i][0].id)
            for cell in (*cells[i], *([targets[i]] if observed else [])):
                cell.word.shift(UP * (words - baseline(cell.word)))
                cell.id.shift(UP * (line - baseline(cell.id)))
            for text in (row[0], *([arrows[i]] if observed else [])):
                text.shift(UP * (line - baseline(text)))
        ids = VGroup(*(cell for row in cells for cell in row))
        headers = VGroup(self.shape("X", "lab.shape.X", 24).next_to(ids, UP, buff=0.35))
        if observed:
            headers.add(self.shape("y", "lab.shape.y", 24).next_to(VGroup(*targets), UP,
                                                                    buff=0.35))
            headers[1].align_to(headers[0], DOWN)
        note = self.label("token ids, not embeddings: each id stands for the word above it",
                          LABEL, MUTED)
        place(VGroup(VGroup(table, headers), note).arrange(DOWN, buff=0.7))
        self.say("The lab stacks the token ids of every sentence into one batch X of shape "
                 "{x}.", Fade(VGroup(*(row[0] for row in rows))), Fade(ids), Fade(headers[0]),
                 self.point_at(headers[0]), x="lab.shape.X")
        # One word everywhere it stands: the first sentence's last token, and every cell
        # that holds its id.
        last = f"lab.X[0][{length - 1}]"
        same = [cell for i, row in enumerate(cells) for j, cell in enumerate(row)
                if self.v.value(f"lab.X[{i}][{j}]") == self.v.value(last)]
        self.say("They are whole numbers, ids into the vocabulary: “{w}” is {i} wherever it "
                 "stands.", Fade(note), self.point_at(*same, each=True),
                 words={"w": self.ws.sentences[names[0]][-1]}, i=last)
        if not observed:
            self.say("This worksheet records no observed next words, so the batch has no "
                     "targets and the lab computes no loss.", self.point_at(note))
            return
        pieces = [(f"“{{w{i}}}”", {}) for i in range(len(names))]
        phrase, _ = slots(pieces, ", ", " and ")
        self.say("Each sentence has one observed next word, its target: " + phrase + ".",
                 Fade(VGroup(*arrows, *targets)), self.point_at(*targets, each=True),
                 words={f"w{i}": self.word_of(f"lab.y[{i}]") for i in range(len(names))})
        self.say("Together the targets form y, shape {y}.", Fade(headers[1]),
                 self.point_at(headers[1]), y="lab.shape.y")

    # ------------------------------------------------------------------ embedding

    def lookup(self, shown: int) -> VGroup:
        """The first sentence's first ``shown`` tokens, each a sum written down a column: its
        word, its id, its row of the token table, its row of the position table and their
        sum, its row of E; the lines' names on the left, "…" after the last column when the
        sentence is longer.

        The group's ``names`` (id, token table row, position row, row of E), ``signs`` (the
        "+" and "=" before the last two lines) and ``lines`` (words, ids, token rows,
        position rows, rows of E, each a list by column) are its parts; ``more`` is "…" or
        empty."""
        first = next(iter(self.ws.sentences))
        size = LEAST_FIGURE_SIZE
        lines: list[list[Mobject]] = [[], [], [], [], []]
        for j in range(shown):
            token = int(self.v.value(f"lab.X[0][{j}]"))
            for line, made in zip(lines, (
                    self.word(self.ws.sentences[first][j], 22, MUTED),
                    self.num(f"lab.X[0][{j}]", size), self.vec(f"params.tok_emb[{token}]", size),
                    self.vec(f"params.pos_emb[{j}]", size), self.vec(f"{first}.E[{j}]", size)),
                    strict=True):
                line.append(made)
        names = VGroup(*(self.label(text, LABEL, MUTED) for text in (
            "id", "token table row", "position row", "row of E")))
        signs = VGroup(self.label("+", size, MUTED), self.label("=", size, MUTED))
        pitch, sign_x, gap = 0.55, 0.35, 0.5
        ys = [-k * pitch for k in range(len(lines))]
        for name, y in zip(names, ys[1:], strict=True):
            name.shift(UP * (y - baseline(name)) + RIGHT * -name.get_right()[0])
        for sign, y in zip(signs, ys[3:], strict=True):
            sign.move_to([sign_x, 0, 0]).shift(UP * (y - baseline(sign)))
        left = sign_x + 0.45
        for j in range(shown):
            column = [line[j] for line in lines]
            middle = left + max(cell.width for cell in column) / 2
            for cell, y in zip(column, ys, strict=True):
                cell.set_x(middle).shift(UP * (y - baseline(cell)))
            left = middle + max(cell.width for cell in column) / 2 + gap
        more = VGroup()
        if self.ws.length > shown:
            more.add(self.label("…", 22, MUTED).next_to(lines[0][-1], RIGHT, buff=gap))
        made = VGroup(names, signs, *(VGroup(*line) for line in lines), more)
        made.names, made.signs, made.lines, made.more = names, signs, lines, more
        return made

    def embedding(self) -> None:
        length = self.ws.length
        batch = len(self.ws.sentences)
        cell = min(0.3, 2.6 / length)
        block = slab_stack(self.ws.d_model * cell, length * cell, batch, [])
        name = self.shape("E", "lab.shape.E", 22).next_to(block, DOWN, buff=0.25)
        stacked = VGroup(block, name)
        # As many tokens as fit beside the stacked block at full size (at least one).
        for shown in range(min(3, length), 0, -1):
            lookup = self.lookup(shown)
            if lookup.width + 0.6 + stacked.width <= CONTENT_WIDTH:
                break
        place(VGroup(lookup, stacked).arrange(RIGHT, buff=0.6))
        words, ids, tok, pos, out = (VGroup(*line) for line in lookup.lines)
        names, (plus, equals) = lookup.names, lookup.signs
        self.say("Embedding looks up each id's row in the token table.",
                 Fade(VGroup(words, lookup.more, ids, names[0], tok, names[1])),
                 self.point_at(tok, names[1]))
        self.say("Each position adds its own row from the position table.",
                 Fade(VGroup(plus, pos, names[2])), self.point_at(pos, names[2]))
        self.say("Their sum is the token's row of E.", Fade(VGroup(equals, out, names[3])),
                 self.point_at(out, names[3]))
        self.say("Every token of every sentence gets its row; stacked, they form E, {e}: "
                 "batch, tokens, width.", Fade(VGroup(*(slab.face for slab in block))),
                 Fade(name), self.point_at(stacked), e="lab.shape.E")

    # ------------------------------------------------------------------ the head axis

    def axis(self, name: str, key: str) -> Mobject:
        """A side label of a tensor block: the axis name and its bound size."""
        return self.bound(name + " {n}", LABEL, MUTED, n=key)

    def sentence_head_grid(self, cells: Sequence[Sequence[Mobject]],
                           shapes: Sequence[Sequence[Mobject]] = (),
                           h_buff: float = 0.45, v_buff: float = 0.3) -> VGroup:
        """``cells[b][h]`` in rows (sentences) and columns (heads), each with its shape label
        under it (if given), sentence names on the left and head labels on top.

        The group's ``names`` and ``heads`` are the labels; ``cells`` and ``shapes`` as given.
        """
        rows, columns = len(cells), len(cells[0])
        units = [[VGroup(cells[b][h], *([shapes[b][h]] if shapes else []))
                  for h in range(columns)] for b in range(rows)]
        for b in range(rows):
            for h in range(columns):
                if shapes:
                    shapes[b][h].next_to(cells[b][h], DOWN, buff=0.12)
        body = VGroup(*(unit for row in units for unit in row))
        body.arrange_in_grid(rows=rows, cols=columns, buff=(h_buff, v_buff))
        names = VGroup(*(self.sentence_name(name, LABEL, MUTED) for name in self.ws.sentences))
        edge = body.get_left()[0] - 0.3
        for name, row in zip(names, cells, strict=True):
            name.set_y(row[0].get_y())
            name.shift(RIGHT * (edge - name.get_right()[0]))
        heads = VGroup(*(self.head_label(h + 1, LABEL) for h in range(columns)))
        top = body.get_top()[1] + 0.2
        for label, cell in zip(heads, cells[0], strict=True):
            label.set_x(cell.get_x()).set_y(top + label.height / 2)
        whole = VGroup(body, names, heads)
        whole.cells, whole.shapes, whole.names, whole.heads = cells, shapes, names, heads
        return whole

    def head_axis(self) -> None:
        heads, d_head = self.ws.n_heads, self.ws.d_head
        batch, length = len(self.ws.sentences), self.ws.length
        cell_w = min(0.6, 3.6 / (heads * d_head))
        cell_h = min(0.36, 3.4 / length)
        width, height = heads * d_head * cell_w, length * cell_h
        parts = [(1 / heads, self.head_colour(h + 1)) for h in range(heads)]
        block = slab_stack(width, height, batch, parts)
        front = block.front.face
        tokens = self.axis("tokens", "dims.tokens")
        model = self.axis("d_model", "dims.d_model")
        split = self.bound("heads {h} × d_head {d}", LABEL, MUTED, h="dims.heads",
                           d="dims.d_head")
        depth = self.axis("batch", "dims.sentences")
        entries = [("X", "X"), ("E", "E"), ("Q = E W_Q", "Q"), ("reshape", "Q_split"),
                   ("transpose", "Q_heads")]
        rows = [[self.code(name, 22), self.num(f"lab.shape.{key}", 22)]
                for name, key in entries]
        table = grid(rows, h_buff=0.45, v_buff=0.3)
        axes = [self.label(text, LABEL, MUTED) for text in (
            "[batch, tokens, d_model]", "[batch, tokens, heads, d_head]",
            "[batch, heads, tokens, d_head]")]
        for note in axes:
            note.next_to(table, DOWN, buff=0.45).align_to(table, LEFT)
        widths = self.bound("d_model {m} = heads {h} × d_head {d}", LABEL, MUTED,
                            m="dims.d_model", h="dims.heads", d="dims.d_head")
        widths.next_to(axes[0], DOWN, buff=0.3).align_to(table, LEFT)
        side = VGroup(table, *axes, widths)

        # The block with its side labels in a room on the left, the shapes on the right.
        tokens.next_to(front, LEFT, buff=0.4)
        model.next_to(front, DOWN, buff=0.2)
        split.next_to(model, DOWN, buff=0.15)
        depth.next_to(block[0].face, RIGHT, buff=0.15).align_to(block[0].face, UP)
        picture = VGroup(tokens, block, model, split, depth)
        room = Rectangle(width=CONTENT_WIDTH - side.width - 0.7, height=CONTENT_HEIGHT,
                         stroke_width=0, fill_opacity=0)
        place(VGroup(room, side).arrange(RIGHT, buff=0.7))
        picture.move_to(room)

        # After the transpose: one block of token rows per sentence and head.
        scale = min(1.0, (CONTENT_HEIGHT - 0.5 - batch * 0.75) / (batch * height))
        shown = [[_tinted(self.head_colour(h + 1), width / heads * scale, height * scale)
                  for h in range(heads)] for _ in range(batch)]
        shapes = [[self.bound("[{t}, {d}]", LEAST_FIGURE_SIZE, MUTED, mono=True, t="dims.tokens",
                              d="dims.d_head") for _ in range(heads)] for _ in range(batch)]
        blocks = self.sentence_head_grid(shown, shapes)
        header = depth.copy()
        header.next_to(blocks.names, UP, buff=0.2).align_to(blocks.names, RIGHT)
        header.set_y(blocks.heads[0].get_y())
        fit(VGroup(blocks, header), room.width, room.height)
        VGroup(blocks, header).move_to(room)
        lines = VGroup(*(_cell_lines(box, length, d_head) for row in shown for box in row))
        # front slab = first sentence
        slices = [block[batch - 1 - b].slices for b in range(batch)]

        self.say("The ids X, {x}, became the rows E, {e}: batch, tokens, width.",
                 Fade(VGroup(*rows[0], *rows[1])), Fade(VGroup(*(slab.face for slab in block))),
                 Fade(VGroup(tokens, model, depth)), Fade(axes[0]),
                 self.point_at(VGroup(*rows[1])), run_time=1.5,
                 x="lab.shape.X", e="lab.shape.E")
        self.say("One projection makes every head's queries at once: Q, {q}, the same shape.",
                 Fade(VGroup(*rows[2])), self.point_at(VGroup(*rows[2])), q="lab.shape.Q")
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
        moves = [ReplacementTransform(slices[b][h], shown[b][h])
                 for b in range(batch) for h in range(heads)]
        self.say("Transpose puts heads before tokens: {t}, one block per sentence and head.",
                 *moves, Fade(VGroup(*(slab.face for slab in block)), appear=False),
                 Fade(tokens, appear=False), ReplacementTransform(depth, header),
                 ReplacementTransform(VGroup(model, split), widths),
                 Fade(VGroup(lines, *(s for row in shapes for s in row), blocks.names,
                             blocks.heads)),
                 Fade(VGroup(*rows[4])), Fade(axes[1], appear=False), Fade(axes[2]),
                 self.point_at(blocks, header), run_time=2.0, t="lab.shape.Q_heads")
        self.say("Each block is one sentence's {t:token row} for one head, {d} coordinates "
                 "wide.", self.point_at(shown[0][0], shapes[0][0]), t="dims.tokens",
                 d="dims.d_head")
        self.say("Keys and values take the same two steps, so attention runs on every "
                 "sentence and head at once.", self.point_at(VGroup(*rows[4]), axes[2]))

    # ------------------------------------------------------------------ attention

    def heat_map(self, name: str, head: int, side: float) -> VGroup:
        """One head's weights on one sentence: a receivers × sources grid, each allowed cell
        shaded by its weight in the head's colour, future cells dark."""
        weights = self.v.value(f"{name}.h{head}.A")
        masked = self.v.value(f"{name}.mask")
        length = len(weights)
        cell = side / length
        colour = self.head_colour(head)
        allowed, future = VGroup(), VGroup()
        for r in range(length):
            for c in range(length):
                if masked[r][c]:
                    box = Rectangle(width=cell, height=cell, stroke_width=0, fill_color=PANEL,
                                    fill_opacity=1)
                    future.add(box)
                else:
                    box, _ = weight_cell(colour, weights[r][c], cell, cell)
                    allowed.add(box)
                box.move_to([(c + 0.5) * cell, -(r + 0.5) * cell, 0])
        outline = Rectangle(width=side, height=side, stroke_color=FAINT, stroke_width=1.5)
        outline.move_to([side / 2, -side / 2, 0])
        made = VGroup(allowed, future, outline)
        made.allowed, made.masked, made.outline = allowed, future, outline
        return made

    def attention(self) -> None:
        names = list(self.ws.sentences)
        heads, d_head, length = self.ws.n_heads, self.ws.d_head, self.ws.length
        batch = len(names)
        formula = self.bound("A = softmax(Q Kᵀ ÷ √d), future sources masked; d = {d}, the "
                             "head width", LABEL, INK, d="dims.d_head")
        weights = self.shape("A", "lab.shape.A", 22)
        count = VGroup(self.bound("{n} weights", 24, n="lab.A_weights"),
                       self.bound("= {b} × {h} × {t} × {u}", LABEL, MUTED, b="dims.sentences",
                                  h="dims.heads", t="dims.tokens", u="dims.tokens")
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        messages = self.shape("messages", "lab.shape.messages", 22)
        side = VGroup(weights, count, messages)
        wide = 1 + 2 * d_head / length  # a map, its values and its messages, side by side

        def largest(room_w: float, room_h: float) -> float:
            """The largest map whose grid fits the room (names, labels, signs and gaps
            kept)."""
            return min(2.2, (room_h - 1.1 - (batch - 1) * 0.35) / batch,
                       (room_w - 1.4 - heads * 1.8) / (heads * wide))

        # The shapes beside the grid, or (for many heads) in a line under it.
        free = CONTENT_HEIGHT - formula.height - 0.5
        beside = largest(CONTENT_WIDTH - max(m.width for m in side) - 0.8, free)
        under = largest(CONTENT_WIDTH, free - max(m.height for m in side) - 0.5)
        if beside >= under:
            side.arrange(DOWN, aligned_edge=LEFT, buff=0.6)
        else:
            side.arrange(RIGHT, aligned_edge=UP, buff=0.8)
        size = max(beside, under)
        maps = [[self.heat_map(name, h + 1, size) for h in range(heads)] for name in names]
        out = [[_tinted(self.head_colour(h + 1), size * d_head / length, size)
                for h in range(heads)] for _ in names]
        values = [[Rectangle(width=size * d_head / length, height=size,
                             stroke_color=self.head_colour(h + 1), stroke_width=2,
                             fill_color=PANEL, fill_opacity=1) for h in range(heads)]
                  for _ in names]
        signs = [[(self.label("×", SMALL, MUTED), self.label("=", SMALL, MUTED))
                  for _ in range(heads)] for _ in names]
        for b in range(batch):
            for h in range(heads):
                times, equals = signs[b][h]
                times.next_to(maps[b][h], RIGHT, buff=0.16)
                values[b][h].next_to(times, RIGHT, buff=0.16)
                equals.next_to(values[b][h], RIGHT, buff=0.16)
                out[b][h].next_to(equals, RIGHT, buff=0.16)
        units = [[VGroup(maps[b][h], *signs[b][h], values[b][h], out[b][h])
                  for h in range(heads)] for b in range(batch)]
        blocks = self.sentence_head_grid(units, h_buff=0.5, v_buff=0.35)
        pieces = VGroup(*(self.label(text, SMALL, MUTED).next_to(part, DOWN, buff=0.12)
                          for text, part in (("A", maps[-1][0]), ("V", values[-1][0]),
                                             ("messages", out[-1][0]))))
        for piece in pieces[1:2]:  # "A" and "V" on one line, "messages" on the next
            piece.shift(UP * (baseline(pieces[0]) - baseline(piece)))
        pieces[2].shift(UP * (baseline(pieces[0]) - baseline(pieces[2]) - 0.32))
        blocks.add(pieces)
        body = VGroup(blocks, side).arrange(RIGHT if beside >= under else DOWN,
                                            buff=0.8 if beside >= under else 0.5)
        place(VGroup(formula, body).arrange(DOWN, buff=0.5))
        lines = VGroup(*(_cell_lines(box, length, d_head) for row in out for box in row))
        value_lines = VGroup(*(_cell_lines(box, length, d_head) for row in values
                               for box in row))
        frames = VGroup(*(m.outline for row in maps for m in row),
                        *(m.masked for row in maps for m in row))
        shading = VGroup(*(m.allowed for row in maps for m in row))
        sent = VGroup(*(box for row in out for box in row), lines)

        self.say("In every block, A is the softmax of Q Kᵀ ÷ √d, where d = {d}, the head "
                 "width.", Fade(formula), Fade(frames),
                 Fade(VGroup(blocks.names, blocks.heads)), self.point_at(formula),
                 d="dims.d_head")
        self.say("Each row becomes weights over the earlier sources: one grid per sentence "
                 "and head, {a}.", Fade(shading), Fade(weights),
                 self.point_at(VGroup(*(m for row in maps for m in row)), weights,
                               each=True),
                 a="lab.shape.A")
        self.say("That is {n} weights in all.", Fade(count), self.point_at(count),
                 n="lab.A_weights")
        times = VGroup(*(sign for row in signs for pair in row for sign in pair[:1]))
        equals = VGroup(*(pair[1] for row in signs for pair in row))
        self.tell("Each grid times its head's values V gives one message per token and "
                  "head: {m}.", Fade(pieces[0]),
                  cues=[("values V", lambda: AnimationGroup(
                      Fade(VGroup(times, *(box for row in values for box in row),
                                  value_lines, pieces[1])),
                      self.point_at(values[-1][0], pieces[1]))),
                        ("one message", lambda: AnimationGroup(
                            Fade(VGroup(equals, sent, messages, pieces[2])),
                            self.point_at(out[-1][0], pieces[2], messages, each=True)))],
                  m="lab.shape.messages")

    # ------------------------------------------------------------------ joining the heads

    def piece(self, key: str, head_key: str | None, head: int | None, width: float,
              height: float) -> VGroup:
        """One head-width piece of a message row: tinted by its head, its token's position
        written inside (the head from ``head_key``'s value, or ``head``)."""
        number = int(self.v.value(head_key)) if head_key else head
        colour = self.head_colour(number)
        box = Rectangle(width=width, height=height, stroke_color=colour, stroke_width=1.5,
                        fill_color=colour, fill_opacity=0.35)
        text = self.num(key, PIECE, ink_on(blend(colour, BACKGROUND, 0.35)), mono=False)
        return VGroup(box, text.move_to(box))

    def joined_rows(self, kind: str, width: float, height: float) -> VGroup:
        """The first sentence's joined rows, ``lab.mix.<kind>_*``: one row per token, one
        piece per head."""
        heads, length = self.ws.n_heads, self.ws.length
        rows = VGroup(*(VGroup(*(self.piece(f"lab.mix.{kind}_token[{r}][{k}]",
                                            f"lab.mix.{kind}_head[{r}][{k}]", None, width,
                                            height) for k in range(heads))
                               ).arrange(RIGHT, buff=0.04) for r in range(length)))
        return rows.arrange(DOWN, buff=0.05)

    def titled(self, lines: Sequence[str], body: Mobject, under: Mobject | None) -> VGroup:
        """A panel: a header of short lines above ``body``, an optional label under it."""
        header = VGroup(*(self.label(text, LABEL, MUTED) for text in lines)
                        ).arrange(DOWN, buff=0.1)
        header.next_to(body, UP, buff=0.25)
        if under is not None:
            under.next_to(body, DOWN, buff=0.2)
        made = VGroup(header, body, *([under] if under is not None else []))
        made.header, made.body, made.under = header, body, under
        return made

    def joining(self) -> None:
        heads, length = self.ws.n_heads, self.ws.length
        first = next(iter(self.ws.sentences))
        row_h = min(0.36, (CONTENT_HEIGHT - 1.6) / length)
        width, height = 0.56, row_h - 0.05
        heads_above = VGroup(*(self.head_label(h + 1, PIECE) for h in range(heads)))
        source = VGroup(*(VGroup(*(self.piece(f"dims.positions[{t}]", None, h + 1, width,
                                              height) for t in range(length))
                                 ).arrange(DOWN, buff=0.05) for h in range(heads))
                        ).arrange(RIGHT, buff=max(0.2, heads_above[0].width - width + 0.2))
        for label, column in zip(heads_above, source, strict=True):
            label.next_to(column, UP, buff=0.1)
        right = self.joined_rows("right", width, height)
        wrong = self.joined_rows("wrong", width, height)
        numbers = [VGroup(*(self.num(f"dims.positions[{r}]", PIECE, MUTED, mono=False)
                            .next_to(rows[r], LEFT, buff=0.15) for r in range(length)))
                   for rows in (right, wrong)]
        row_words = [self.label("row", PIECE, MUTED).next_to(rows, UP, buff=0.16)
                     .align_to(column, RIGHT) for column, rows in zip(numbers, (right, wrong),
                                                                       strict=True)]
        panels = VGroup(
            self.titled(["messages of", "each head"], VGroup(heads_above, source),
                        self.num("lab.shape.messages", LEAST_FIGURE_SIZE, MUTED)),
            self.titled(["right: transpose,", "then reshape"],
                        VGroup(row_words[0], numbers[0], right),
                        self.num("lab.shape.joined", LEAST_FIGURE_SIZE, MUTED)),
            self.titled(["wrong: reshape", "directly"],
                        VGroup(row_words[1], numbers[1], wrong),
                        self.num("lab.shape.joined", LEAST_FIGURE_SIZE, MUTED)),
        ).arrange(RIGHT, buff=1.0, aligned_edge=UP)
        for made, rows in zip(panels[1:], (right, wrong), strict=True):
            made.shift(UP * (source.get_top()[1] - rows.get_top()[1]))  # rows level
        top = max(made.header.get_top()[1] for made in panels)
        for made in panels:  # headers level
            made.header.shift(UP * (top - made.header.get_top()[1]))
        place(panels)
        same = self.v.value("lab.mix.wrong_token") == self.v.value("lab.mix.right_token")

        self.say("Attention leaves each head one message per token, numbered here by the "
                 "token's position in “{s}”.",
                 Fade(panels[0]), self.point_at(panels[0].body),
                 words={"s": first})
        self.say("Transpose back, then reshape: each row holds one token's messages, one from "
                 "every head.", Fade(panels[1]), self.point_at(right), run_time=1.0)
        if same:
            self.say("With one head, reshaping directly gives the same rows; with several, "
                     "it would mix token rows and head rows.", Fade(panels[2]),
                     self.point_at(wrong))
        else:
            self.say("Reshape directly, and a row holds neighbouring tokens of one head: "
                     "token rows and head rows get mixed.", Fade(panels[2]),
                     self.point_at(wrong[0], numbers[1][0], buff=0.03))
        self.say("Both come out as {j}, so nothing warns you: only the transpose makes the "
                 "rows right.", self.point_at(panels[1].under, panels[2].under, each=True),
                 j="lab.shape.joined")

    # ------------------------------------------------------------------ to the logits

    def tensor_column(self, drawing: Mobject, name: str, key: str | None) -> VGroup:
        """A tensor drawing with its name and (if keyed) its shape under it."""
        texts = [self.label(name, LABEL)]
        if key is not None:
            texts.append(self.num(key, LEAST_FIGURE_SIZE, MUTED))
        under = VGroup(*texts).arrange(DOWN, buff=0.1)
        made = VGroup(drawing, under.next_to(drawing, DOWN, buff=0.2))
        made.drawing, made.under = drawing, under
        return made

    def strip(self, rows: int, columns: int, cell: float) -> VGroup:
        """A flat tensor: ``rows`` × ``columns`` neutral cells."""
        box = Rectangle(width=columns * cell, height=rows * cell, stroke_color=MUTED,
                        stroke_width=2, fill_color=PANEL, fill_opacity=1)
        return VGroup(box, _cell_lines(box, rows, columns))

    def logits(self) -> None:
        heads, batch = self.ws.n_heads, len(self.ws.sentences)
        d_model, length, vocab = self.ws.d_model, self.ws.length, len(self.ws.vocab)
        cell = min(0.25, 1.1 / d_model, 2.6 / length)
        width, height = d_model * cell, length * cell
        parts = [(1 / heads, self.head_colour(h + 1)) for h in range(heads)]
        joined = slab_stack(width, height, batch, parts)
        delta, updated = slab_stack(width, height, batch, []), slab_stack(width, height, batch, [])
        last = self.strip(batch, d_model, cell)
        logits = self.strip(batch, vocab, min(0.25, 2.6 / vocab))
        columns = VGroup(self.tensor_column(joined, "joined", "lab.shape.joined"),
                         self.tensor_column(delta, "ΔE", "lab.shape.delta"),
                         self.tensor_column(updated, "E + ΔE", "lab.shape.E"),
                         self.tensor_column(last, "last rows", None),
                         self.tensor_column(logits, "logits", "lab.shape.logits"))
        columns.arrange(RIGHT, buff=1.15, aligned_edge=UP)
        for made in columns:  # the drawings on one line, each with its labels
            made.shift(UP * (columns[0].drawing.get_y() - made.drawing.get_y()))
        vocabulary = self.bound("vocabulary: {v} words", LABEL, INK, v="dims.vocab")
        vocabulary.next_to(columns[4].under, DOWN, buff=0.25)
        steps = [("× W_O",), ("residual", "+ E"), ("last row",), ("MLP",)]
        links, names = VGroup(), VGroup()
        for (before, after), lines in zip(pairwise(columns), steps, strict=True):
            link = arrow(before.drawing, after.drawing)
            link.set_y(columns[0].drawing.get_y())
            label = VGroup(*(self.label(text, SMALL, MUTED) for text in lines)
                           ).arrange(DOWN, buff=0.08).next_to(link, UP, buff=0.15)
            links.add(link)
            names.add(label)
        place(VGroup(columns, links, names, vocabulary))

        def shown(*indices: int) -> list:
            return [Fade(columns[i]) for i in indices]

        self.say("W_O mixes the joined heads into one update per token, ΔE, {d}.",
                 *shown(0, 1), Create(links[0]), Fade(names[0]),
                 self.point_at(columns[1]), d="lab.shape.delta")
        self.say("The residual adds that update to the embeddings: E + ΔE, still {e}.",
                 *shown(2), Create(links[1]), Fade(names[1]),
                 self.point_at(columns[2].under, names[1], each=True), e="lab.shape.E")
        self.say("The prediction MLP reads each sentence's last updated row and gives the "
                 "logits, {l}.", *shown(3, 4), Create(links[2]), Create(links[3]),
                 Fade(VGroup(names[2], names[3])), self.point_at(columns[4]),
                 l="lab.shape.logits")
        self.say("That is one score for each of the {v} words of the vocabulary.",
                 Fade(vocabulary), self.point_at(columns[4].drawing, vocabulary),
                 v="dims.vocab")

    # ------------------------------------------------------------------ the loss

    def loss(self) -> None:
        names = list(self.ws.sentences)
        vocab = len(self.ws.vocab)
        cell = min(0.3, 6.4 / vocab)
        strips, marks, labels = VGroup(), VGroup(), VGroup()
        rows = VGroup()
        for i, name in enumerate(names):
            probs = self.v.value(f"{name}.probs")
            boxes = VGroup()
            for w in range(vocab):
                box, _ = weight_cell(INK, probs[w], cell, cell)
                box.set_stroke(FAINT, 1, opacity=1)
                boxes.add(box)
            boxes.arrange(RIGHT, buff=0)
            target = boxes[int(self.v.value(f"lab.y[{i}]"))]
            mark = Triangle(color=INK, fill_color=INK, fill_opacity=1, stroke_width=0)
            mark.scale_to_fit_width(cell * 0.6).next_to(target, DOWN, buff=0.06)
            label = VGroup(self.word(self.word_of(f"lab.y[{i}]"), LEAST_FIGURE_SIZE),
                           self.num(f"lab.y[{i}]", LEAST_FIGURE_SIZE, MUTED),
                           self.bound("p = {p}", LEAST_FIGURE_SIZE, INK,
                                      p=f"lab.target_prob[{i}]")
                           ).arrange(RIGHT, buff=0.12)
            label[2].shift(RIGHT * 0.15)
            label.next_to(mark, DOWN, buff=0.06)
            label.set_x(min(max(label.get_x(), boxes.get_left()[0] + label.width / 2),
                            boxes.get_right()[0] - label.width / 2))
            name_label = self.sentence_name(name, LABEL, MUTED)
            name_label.next_to(boxes, LEFT, buff=0.3)
            rows.add(VGroup(name_label, boxes, mark, label))
            strips.add(boxes)
            marks.add(mark)
            labels.add(label)
        rows.arrange(DOWN, buff=0.35, aligned_edge=RIGHT)
        header = self.label("softmax of the logits: a probability for every word", LABEL,
                            MUTED).next_to(strips, UP, buff=0.3)
        card = self.card("cross-entropy loss", "lab.loss", 34)
        mean = "(" + " − ".join(["−ln {p0}", *(f"ln {{p{i}}}" for i in range(1, len(names)))]
                                ) + ") ÷ {n}"
        formula = VGroup(self.label("the mean of −ln p over the targets", SMALL, MUTED),
                         self.bound(mean, LABEL, INK, n="dims.sentences",
                                    **{f"p{i}": f"lab.target_prob[{i}]"
                                       for i in range(len(names))}))
        formula.arrange(DOWN, buff=0.15).next_to(card, DOWN, buff=0.25)
        picture = VGroup(VGroup(header, rows), VGroup(card, formula)).arrange(RIGHT, buff=1.0)
        VGroup(card, formula).shift(UP * (rows.get_y() - card.get_y()))
        link = arrow(rows, card)
        place(VGroup(picture, link))
        names_shown = VGroup(*(row[0] for row in rows))

        self.say("Softmax turns each sentence's logits into a probability for every word of "
                 "the vocabulary.", Fade(header), Fade(names_shown), Fade(strips),
                 self.point_at(strips))
        pieces = [(f"“{{w{i}}}”", {}) for i in range(len(names))]
        phrase, _ = slots(pieces, ", ", " and ")
        self.say("The targets are the observed next words, " + phrase + ".",
                 Fade(marks), Fade(VGroup(*(label[:2] for label in labels))),
                 self.point_at(*(label[:2] for label in labels), each=True),
                 words={f"w{i}": self.word_of(f"lab.y[{i}]") for i in range(len(names))})
        chances, _ = slots([(f"{{p{i}}}", {}) for i in range(len(names))], ", ", " and ")
        self.say("The model gives them probabilities " + chances + ".",
                 Fade(VGroup(*(label[2] for label in labels))),
                 self.point_at(*(label[2] for label in labels), each=True),
                 **{f"p{i}": f"lab.target_prob[{i}]" for i in range(len(names))})
        self.say("Cross-entropy averages their negative logs, never sampled words: loss {l}.",
                 Create(link), Fade(card), Fade(formula), self.point_at(card, formula),
                 l="lab.loss")

    # ------------------------------------------------------------------ one training step

    def tensors(self) -> VGroup:
        """The learned tensors as chips, grouped by part: ``made.chips`` in model order."""
        count = sum(len(names) for _, names in PARAMETER_TENSORS)
        if count != self.v.value("lab.param_tensors"):
            raise ValueError(f"BatchLab names {count} parameter tensors but the lab's model "
                             f"has {self.v.value('lab.param_tensors')}: update "
                             "PARAMETER_TENSORS")
        groups, chips = VGroup(), []
        for part, names in PARAMETER_TENSORS:
            made = [panel(self.label(name, SMALL), FAINT, buff=0.1) for name in names]
            chips += made
            body = VGroup(*made).arrange_in_grid(rows=2, buff=(0.15, 0.15))
            title = self.label(part, SMALL, MUTED).next_to(body, UP, buff=0.15)
            groups.add(VGroup(title, body))
        groups.arrange(RIGHT, buff=0.7, aligned_edge=UP)
        groups.chips = chips
        return groups

    def training_step(self) -> None:
        before = self.card("cross-entropy loss", "lab.loss", 30)
        step = self.card("AdamW, learning rate", "lab.learning_rate", 30)
        after = self.card("loss after one step", "lab.loss_after", 30)
        chain = VGroup(before, step, after).arrange(RIGHT, buff=1.0)
        links = VGroup(arrow(before, step), arrow(step, after))
        every = self.v.value("lab.finite_grads") == self.v.value("lab.param_tensors")
        if every:
            grads = self.bound("finite gradients in {t:all parameter tensor}", 22,
                               t="lab.param_tensors")
        else:
            grads = self.bound("finite gradients in {f} of {t:parameter tensor}", 22,
                               f="lab.finite_grads", t="lab.param_tensors")
        tensors = self.tensors()
        note = self.label("one step shows learning; it does not make a trained model", LABEL,
                          MUTED)
        place(VGroup(VGroup(chain, links), VGroup(grads, tensors).arrange(DOWN, buff=0.3),
                     note).arrange(DOWN, buff=0.6))
        backward = LaggedStart(*(Fade(chip) for chip in reversed(tensors.chips)),
                               lag_ratio=0.25)
        parts = VGroup(*(group[0] for group in tensors))
        if every:
            self.say("One backward pass reaches every parameter: each of the "
                     "{t:parameter tensor} receives a finite gradient.", Fade(before),
                     Fade(grads), Fade(parts), backward, self.point_at(grads, tensors),
                     run_time=2.5, t="lab.param_tensors")
        else:
            self.say("One backward pass: {f} of the {t:parameter tensor} get finite "
                     "gradients.", Fade(before), Fade(grads), Fade(parts), backward,
                     self.point_at(grads, tensors), run_time=2.5, f="lab.finite_grads",
                     t="lab.param_tensors")
        self.say("Then one AdamW step, with learning rate {r}.", Create(links[0]), Fade(step),
                 self.point_at(step), r="lab.learning_rate")
        self.say("On this batch the loss is now {a}.", Create(links[1]), Fade(after),
                 self.point_at(after), a="lab.loss_after")
        self.say("One step demonstrates learning; it does not make a trained model.",
                 Fade(note), self.point_at(note))

    # ------------------------------------------------------------------ one new token

    def generate(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        word = self.word_of("lab.next_id")
        row = self.token_row([*tokens, word], width=CONTENT_WIDTH)
        new = row[-1]
        history, context = self.v.value("lab.shape.history[1]"), self.v.value("dims.context")
        longer = history > context
        kept = row[len(row) - context:] if longer else row
        brace = Brace(kept, DOWN, buff=0.12, color=MUTED)
        if longer:
            window = self.bound("the window: the last {c:token}", LABEL, MUTED,
                                c="dims.context")
        else:
            window = self.bound("all {n:token} fit the window of {c}", LABEL, MUTED,
                                n="lab.shape.history[1]", c="dims.context")
        window.next_to(brace, DOWN, buff=0.12)
        dropped = row[:len(row) - context] if longer else VGroup()
        falls = self.label("falls out", SMALL, MUTED)
        if longer:
            falls.next_to(dropped, UP, buff=0.2).align_to(dropped, LEFT)
        facts = VGroup(self.bound("next id {i}", 24, i="lab.next_id"),
                       self.bound("probability {p}", 24, p="lab.next_prob"),
                       self.bound("history: {n:token}, window: {c}", 24,
                                  n="lab.shape.history[1]", c="dims.context")
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        note = self.label("the worksheet's weights, fixed; crop the history to the context "
                          "window", LABEL, MUTED)
        place(VGroup(VGroup(row, brace, window, *([falls] if longer else [])), facts, note
                     ).arrange(DOWN, buff=0.6))
        if self.ws.lesson.targets:  # the step above changed the weights: not these
            self.say("Generation reloads the worksheet's own weights, from before that step, "
                     "and reads the “{s}” prefix.", Fade(row[:-1]), self.point_at(row[:-1]),
                     words={"s": name})
        else:
            self.say("At inference the weights stay fixed, and the model reads the “{s}” "
                     "prefix.", Fade(row[:-1]), self.point_at(row[:-1]), words={"s": name})
        self.say("It takes the most probable next id, {i}: “{w}”, with probability {p}.",
                 Fade(facts[:2]), Fade(new), self.point_at(new, facts[:2], each=True),
                 words={"w": word},
                 i="lab.next_id", p="lab.next_prob")
        self.say("Appending it makes the history {n:token} long, " + (
            "one more than the window of {c}." if longer else "still within the window of "
            "{c}."), Fade(facts[2]), self.point_at(facts[2]), n="lab.shape.history[1]",
            c="dims.context")
        if longer:
            self.say("To keep generating, repeat the step, feeding the model only the last {c} "
                     "tokens.", Create(brace), Fade(window), Fade(note), Fade(falls),
                     *(token.animate.set_color(MUTED) for token in dropped),
                     self.point_at(kept, brace, window), c="dims.context")
        else:
            self.say("Repeat to keep generating; once the history outgrows the window, only "
                     "its last {c} tokens are fed in.", Create(brace), Fade(window),
                     Fade(note), self.point_at(kept, brace, window), c="dims.context")

