"""Beyond the worked example: the bias flag, PyTorch's layer, trained models, patches, the lab.

Each scene reads its numbers from the lesson-wide value groups ``bias.*``, ``mha.*``,
``trained.*``, ``patches.*`` and ``lab.*``; shapes are drawn from shape keys, never typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
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
    HEAD_COLOURS,
    INK,
    MUTED,
    Fade,
    LectureScene,
    baseline,
    fit,
    shown_indices,
    standing,
    vector,
)

__all__ = ["BatchLab", "BiasFlag", "ImagePatches", "PyTorchLayer", "TrainedComparison"]

CONTENT_WIDTH = 13.2
CONTENT_TOP = 2.95
CONTENT_BOTTOM = -3.75
DARK_PIXEL = ManimColor("#1A1A1A")
LIGHT_PIXEL = ManimColor("#F2F2F2")
FLAT_COLUMNS = 16
"""A flattened patch shows all its values up to this many, then elides the middle."""


def arrow(start: Mobject, end: Mobject, direction: Sequence[float] = RIGHT,
          colour: str = MUTED) -> Arrow:
    """A thin arrow from ``start`` to ``end``, leaving ``start`` in ``direction``."""
    forward = (start.get_right(), end.get_left()) if tuple(direction) == tuple(RIGHT) else \
        (start.get_bottom(), end.get_top())
    return Arrow(*forward, buff=0.12, stroke_width=3, color=colour,
                 max_tip_length_to_length_ratio=0.25, max_stroke_width_to_length_ratio=8)


def frame(mob: Mobject, colour: str = MUTED, buff: float = 0.18) -> SurroundingRectangle:
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
    """A receivers × sources grid: allowed cells lit, future cells dark."""
    cell = width / tokens
    cells = VGroup()
    for r in range(tokens):
        for c in range(tokens):
            allowed = c <= r
            cells.add(Square(cell, stroke_width=0.5, stroke_color=MUTED,
                             fill_color=HEAD_COLOURS[1] if allowed else DARK_PIXEL,
                             fill_opacity=0.8 if allowed else 1.0)
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


class LibraryScene(LectureScene):
    """Shared moves of this module's scenes: a fresh stage per section, shape lines."""

    def stage(self, heading: str, **keys: str) -> None:
        """Fade out whatever is on screen and write a new heading."""
        if self.mobjects:
            self.play(Fade(Group(*self.mobjects), appear=False), run_time=0.5)
        self.heading = self.title(heading, **keys)
        fit(self.heading, config.frame_width - 0.8)
        self.play(Write(self.heading), run_time=0.6)

    def shape(self, name: str, key: str, size: float = 22, colour: str = INK) -> Mobject:
        """``name [a, b]`` in monospace, the shape bound to ``key``."""
        return self.bound(name + " {s}", size, colour, mono=True, s=key)

    def card(self, heading: str, key: str, colour: str = INK, size: float = 30) -> VGroup:
        """A small heading above one big bound figure, framed."""
        top = self.label(heading, 20, MUTED)
        figure = self.num(key, size, colour, mono=False)
        body = VGroup(top, figure).arrange(DOWN, buff=0.18)
        return VGroup(body, frame(body, colour))

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
        colour = self.head_colour(1)
        row_h = min(0.5, 4.8 / len(tokens))
        size = min(24.0, row_h * 46)
        Q = self.matrix(f"{name}.h1.Q", row_labels=[self.word(t, size) for t in tokens],
                        size=size, colour=colour)
        offsets = VGroup(*(self.vec("bias.offset", size, MUTED).set_y(row[0].get_y())
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
        picture = VGroup(Q, plus, offsets, equals, shifted, headers)
        place(picture, bottom=-2.7)

        b, b_keys = vector("b", "bias.offset", len(self.v.value("bias.offset")))
        self.say("Head {h}'s query rows, plus one learned offset b = " + b + ", added to "
                 "every row alike.", Fade(VGroup(Q, headers[0])),
                 LaggedStart(Fade(plus), Fade(offsets), Fade(headers[1]),
                             Fade(equals), Fade(VGroup(shifted, headers[2]))),
                 h=head, **b_keys)
        boxes = VGroup(self.highlight(VGroup(*Q.cells[last]), colour),
                       self.highlight(offsets[last], MUTED),
                       self.highlight(VGroup(*shifted.cells[last]), colour))
        width = len(self.v.value("bias.offset"))
        q, q_keys = vector("q", f"{name}.h1.Q[{last}]", width)
        s, s_keys = vector("s", f"bias.Q_offset[{last}]", width)
        self.say("The final receiver, “{w}”, has query " + q + "; with the offset it "
                 "becomes " + s + ".", Create(boxes), words={"w": tokens[last]},
                 **q_keys, **s_keys)
        note = self.label("position rows differ from row to row; the bias is one row for all",
                          22, MUTED)
        note.next_to(picture, DOWN, buff=0.35)
        fit(note, CONTENT_WIDTH)
        self.say("That is not a position embedding: position rows change from one position "
                 "to the next, while the bias is the same for every position and every "
                 "sentence. It even shifts a row of zeros.", Fade(note))

    def projections(self) -> None:
        names = ["W_Q", "W_K", "W_V", "W_O"]
        blocks = VGroup()
        for name in names:
            title = self.label(name, 26)
            offsets = self.bound("+ {n} offsets", 20, HEAD_COLOURS[1],
                                 n="bias.offsets_per_projection")
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
            self.bound("bias=True:  {b} parameters  (+{c})", 24, HEAD_COLOURS[1], mono=True,
                       b="bias.params_with", c="bias.extra"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.25)
        counts.next_to(slice_note, DOWN, buff=0.5)
        untouched = self.label("unchanged by the flag: the causal mask, position rows and "
                               "the prediction MLP's own biases", 20, MUTED)
        untouched.next_to(counts, DOWN, buff=0.45)
        place(VGroup(packs, blocks, slice_note, counts, untouched))
        self.say("PyTorch's default, bias=True, gives each of the query, key, value and "
                 "output projections {n} offsets: one per model coordinate.",
                 Fade(VGroup(packs, blocks)), n="bias.offsets_per_projection")
        self.say("Split into heads, every head's query, key and value offsets are slices of "
                 "{d}.", Fade(slice_note), d="bias.head_slice")
        self.say("In total that is {c} more trainable numbers: {a} parameters without the "
                 "bias, {b} with it.", Fade(counts), c="bias.extra",
                 a="bias.params_without", b="bias.params_with")
        self.say("The flag leaves the mask, the position rows and the prediction layers "
                 "alone.", Fade(untouched))

    def stored_shapes(self) -> None:
        entries = [("in_proj_weight", "bias.in_proj_weight", "W_Q, W_K, W_V stacked"),
                   ("in_proj_bias", "bias.in_proj_bias", "query, key, value offsets"),
                   ("out_proj.weight", "bias.out_proj_weight", "W_O"),
                   ("out_proj.bias", "bias.out_proj_bias", "output offsets")]
        rows = [[self.code(name, 24), self.num(key, 24), self.label(note, 22, MUTED)]
                for name, key, note in entries]
        table = grid(rows, h_buff=0.7, v_buff=0.4)
        lesson = self.label("this lesson: bias=False", 28, HEAD_COLOURS[1])
        lesson.next_to(table, DOWN, buff=0.7)
        picture = place(VGroup(table, lesson), top=2.6)
        self.say("PyTorch stores the three input offsets together in in_proj_bias {ib} and "
                 "the output offsets in out_proj.bias {ob}, beside weights of {iw} and {ow}.",
                 Fade(table), ib="bias.in_proj_bias", ob="bias.out_proj_bias",
                 iw="bias.in_proj_weight", ow="bias.out_proj_weight")
        self.say("This lesson uses bias=False, so the layer matches the hand-chosen worksheet "
                 "exactly. That is a simplification, not a claim that no bias is better.",
                 Fade(picture[1]), Create(frame(picture[1], HEAD_COLOURS[1])))
        self.wait(0.5)


# --------------------------------------------------------------------------- pytorch


class PyTorchLayer(LibraryScene):
    """nn.MultiheadAttention with the scratch layer's weights: same outputs, same shapes."""

    def construct(self) -> None:
        self.section("what it packages")
        self.stage("nn.MultiheadAttention packages the heads")
        self.packages()
        self.section("copied weights")
        self.stage("Copy the weights, do not draw new ones")
        self.copied_weights()
        self.section("the batch")
        self.stage("All sentences in one call")
        self.batch_call()
        self.section("agreement")
        self.agreement()

    def packages(self) -> None:
        colour = self.head_colour(1)
        steps = [self.label("project Q, K, V", 22),
                 self.bound("split into {n} heads", 22, n="dims.heads"),
                 self.label("attention per head", 22),
                 self.label("concatenate", 22),
                 self.label("W_O", 22)]
        inner = VGroup(*steps).arrange(RIGHT, buff=0.65)
        links = VGroup(*(arrow(a, b) for a, b in pairwise(steps)))
        name = self.label("nn.MultiheadAttention", 24, colour)
        name.next_to(inner, UP, buff=0.3).align_to(inner, LEFT)
        layer = VGroup(name, inner, links)
        box = frame(layer, colour, buff=0.25)
        before = self.label("token rows + position rows = E", 22, MUTED)
        after = VGroup(self.label("residual: E′ = E + ΔE", 22, MUTED),
                       self.label("prediction MLP and vocabulary", 22, MUTED)
                       ).arrange(DOWN, buff=0.7)
        column = VGroup(before, VGroup(layer, box), after).arrange(DOWN, buff=0.75)
        place(column)
        flow = VGroup(arrow(before, box, DOWN), arrow(box, after[0], DOWN),
                      arrow(after[0], after[1], DOWN))
        self.say("One library call replaces our per-head code: it projects queries, keys and "
                 "values, splits them into {n} heads, runs each head's attention, "
                 "concatenates the messages and applies W_O.",
                 Fade(VGroup(layer, box)), LaggedStart(*map(Create, links)),
                 n="dims.heads")
        self.say("It stops there. Position rows, the residual and the vocabulary head stay "
                 "outside, in our own model.", Fade(before), Fade(after),
                 *map(Create, flow))

    def copied_weights(self) -> None:
        colour = self.head_colour(1)
        side = 0.95

        def block(name: str, edge: str = MUTED) -> VGroup:
            return VGroup(Square(side, color=edge, stroke_width=2), self.label(name, 22))

        ours = VGroup(*(block(name) for name in ("W_Q", "W_K", "W_V")))
        ours.arrange(DOWN, buff=0.25)
        ours.add(block("W_O").next_to(ours, DOWN, buff=0.6))
        theirs = VGroup(*(block(name + "ᵀ", colour) for name in ("W_Q", "W_K", "W_V")))
        theirs.arrange(DOWN, buff=0)
        theirs.add(block("W_Oᵀ", colour))
        theirs.next_to(ours, RIGHT, buff=2.6)
        theirs[:3].move_to([theirs.get_x(), ours[:3].get_y(), 0])
        theirs[3].set_y(ours[3].get_y())
        moves = VGroup(*(arrow(a, b) for a, b in zip(ours, theirs, strict=True)))
        names = VGroup(self.shape("in_proj_weight", "mha.in_proj_weight", 24, colour)
                       .next_to(theirs[:3], RIGHT, buff=0.4),
                       self.shape("out_proj.weight", "mha.out_proj_weight", 24, colour)
                       .next_to(theirs[3], RIGHT, buff=0.4))
        headers = headers_above([(self.label("scratch layer", 22, MUTED), ours),
                                 (self.label("nn.MultiheadAttention", 22, colour), theirs)])
        note = self.label("each block holds every head's matrix, side by side; "
                          "bias=False, no dropout", 20, MUTED)
        body = VGroup(ours, theirs, moves, names, headers)
        note.next_to(body, DOWN, buff=0.5)
        place(VGroup(body, note))
        self.say("We copy the scratch layer's own parameters: the query, key and value "
                 "matrices, transposed and stacked, fill in_proj_weight {i}.",
                 Fade(VGroup(ours, headers)), *map(Create, moves[:3]),
                 Fade(VGroup(theirs[:3], names[0])), i="mha.in_proj_weight")
        self.say("W_O, transposed, fills out_proj.weight {o}. With no bias and no dropout, "
                 "both layers compute the same function.", Create(moves[3]),
                 Fade(VGroup(theirs[3], names[1])), Fade(note), o="mha.out_proj_weight")

    def batch_call(self) -> None:
        code = VGroup(self.code("delta, A = mha(E, E, E,"),
                      self.code("    attn_mask=causal,"),
                      self.code("    average_attn_weights=False)"))
        code.arrange(DOWN, aligned_edge=LEFT, buff=0.15)
        code[1:].shift(RIGHT * 0.9)
        source = self.shape("E", "lab.shape.E", 24)
        source_note = self.bound("all {n} sentences at once", 20, MUTED, n="dims.sentences")
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
        self.say("E stacks all {n} sentences, shape {e}. We pass it as query, key and value "
                 "input, with the causal mask.", Fade(left), Fade(code),
                 n="dims.sentences", e="lab.shape.E")
        self.say("The update ΔE comes back as {d}. average_attn_weights=False keeps the head "
                 "axis, so the weights come back as {a}.", Fade(results),
                 d="mha.delta", a="mha.A")
        self.results, self.inputs = results, VGroup(left, code)

    def agreement(self) -> None:
        rows = [[self.label("largest difference in ΔE", 24),
                 self.num("mha.max_diff_delta", 26, HEAD_COLOURS[1])],
                [self.label("largest difference in A", 24),
                 self.num("mha.max_diff_A", 26, HEAD_COLOURS[1])]]
        table = grid(rows, h_buff=0.6, v_buff=0.3)
        verdict = self.label("equal up to float rounding", 26, HEAD_COLOURS[2])
        block = VGroup(table, verdict).arrange(DOWN, buff=0.4)
        panel = VGroup(block, frame(block, HEAD_COLOURS[2], 0.25))
        fit(panel, CONTENT_WIDTH)
        results = self.results
        self.play(Fade(VGroup(self.inputs, self.heading), appear=False), run_time=0.5)
        self.heading = self.title("Scratch layer and PyTorch agree")
        self.play(Write(self.heading), results.animate.move_to([0, 1.6, 0]), run_time=0.6)
        panel.next_to(results, DOWN, buff=0.8)
        self.say("Compared with our scratch layer entry by entry, the largest differences "
                 "are {d} in ΔE and {a} in the weights: float rounding, nothing more.",
                 Fade(panel), d="mha.max_diff_delta", a="mha.max_diff_A")
        self.wait(0.5)


# --------------------------------------------------------------------------- trained


class TrainedComparison(LibraryScene):
    """The trained comparison's models: sizes, shapes and parameter counts, no results."""

    def construct(self) -> None:
        self.heads = list(self.ws.lesson.trained.heads)
        self.section("sizes")
        self.stage("The trained comparison and its models")
        self.sizes()
        self.section("fixed-window MLP")
        self.stage("The fixed-window MLP reads one flattened window")
        self.mlp()
        self.section("attention models")
        self.stage("Attention models: one wide head or several narrow ones")
        self.attention_models()
        self.section("parameters")
        self.stage("Where the parameters are")
        self.parameters()

    def model_name(self, heads: int, size: float = 22, colour: str = INK) -> Mobject:
        noun = "head" if heads == 1 else "heads"
        return self.bound("attention, {h} " + noun, size, colour, h=f"trained.heads{heads}.heads")

    def heads_phrase(self, piece: str = "{h} {noun}", field: str = "",
                     last: str = " and ") -> tuple[str, dict[str, str]]:
        """One ``piece`` per attention model, joined as "a, b and c", with its keys.

        ``piece`` may use ``{h}`` (the head count), ``{noun}`` ("head" or "heads") and
        ``{x}`` (the model's value ``field``, such as ``params``).
        """
        pieces = []
        for i, h in enumerate(self.heads):
            text = piece.replace("{noun}", "head" if h == 1 else "heads")
            text = text.replace("{h}", f"{{h{i}}}").replace("{x}", f"{{x{i}}}")
            slots_in = {"h": f"trained.heads{h}.heads", "x": f"trained.heads{h}.{field}"}
            order = sorted((piece.index("{" + name + "}"), name) for name in slots_in
                           if "{" + name + "}" in piece)
            # Keys in reading order, so each figure is found where the caption shows it.
            pieces.append((text, {f"{name}{i}": slots_in[name] for _, name in order}))
        return slots(pieces, ", ", last)

    def sizes(self) -> None:
        cards = VGroup(self.card("vocabulary", "trained.vocab"),
                       self.card("context", "trained.context"),
                       self.card("width", "trained.width"),
                       self.card("hidden", "trained.hidden")).arrange(RIGHT, buff=0.5)
        models = VGroup(self.label("fixed-window MLP", 22),
                        *(self.model_name(h) for h in self.heads))
        models = VGroup(*(VGroup(m, frame(m, self.head_colour(i + 1)))
                          for i, m in enumerate(models))).arrange(RIGHT, buff=0.5)
        note = self.label("their losses and timings come from the trained experiment, "
                          "not from this worksheet", 20, MUTED)
        place(VGroup(cards, models, note).arrange(DOWN, buff=0.8))
        self.say("These models were genuinely trained on short stories. They share a "
                 "vocabulary of {v} tokens, a context of {c} tokens, width {w} and a hidden "
                 "layer of {n}.", LaggedStart(*map(Fade, cards)), v="trained.vocab",
                 c="trained.context", w="trained.width", n="trained.hidden")
        phrase, keys = self.heads_phrase()
        self.say("A fixed-window MLP, and attention models with " + phrase + ". Here we "
                 "build each one and read its shapes.",
                 LaggedStart(*map(Fade, models)), **keys)
        self.say("How well they predict and how long they train are results of the trained "
                 "experiment; this worksheet measures neither.", Fade(note))

    def mlp(self) -> None:
        stages = [("window", self.num("trained.mlp.rows")),
                  ("flatten", self.bound("{f} inputs", 22, mono=True, f="trained.mlp.flat_width")),
                  ("W_hidden, ReLU", self.num("trained.mlp.W_hidden")),
                  ("W_vocab", self.num("trained.mlp.W_vocab")),
                  ("logits", self.num("trained.mlp.logits"))]
        boxes = VGroup()
        for name, figure in stages:
            body = VGroup(self.label(name, 20, MUTED), figure).arrange(DOWN, buff=0.2)
            boxes.add(VGroup(body, frame(body)))
        boxes.arrange(RIGHT, buff=0.6)
        links = VGroup(*(arrow(a, b) for a, b in pairwise(boxes)))
        count = self.card("parameters", "trained.mlp.params", self.head_colour(1), 34)
        slots_note = self.label("fixed order tells slots apart: no position table", 20, MUTED)
        below = VGroup(count, slots_note).arrange(RIGHT, buff=0.8)
        place(VGroup(VGroup(boxes, links), below).arrange(DOWN, buff=0.9))
        self.say("The MLP lays its {c} token rows, each {w} wide, end to end in a fixed order: "
                 "{f} inputs.", Fade(boxes[:2]), Create(links[0]), c="trained.context",
                 w="trained.width", f="trained.mlp.flat_width")
        self.say("W_hidden {h} and a ReLU, then W_vocab {v} gives one logit per vocabulary "
                 "word.", Fade(boxes[2:]), *map(Create, links[1:]),
                 h="trained.mlp.W_hidden", v="trained.mlp.W_vocab")
        self.say("Position in the window is all it knows of order; it has no separate "
                 "position table. In total: {p} parameters.", Fade(below),
                 p="trained.mlp.params")

    def attention_models(self) -> None:
        entries = [("heads", "heads"), ("head width", "d_head"), ("E", "E"),
                   ("W_Q, all heads", "W_Q"), ("Q, one head", "Q"), ("A, one head", "A"),
                   ("H, one head", "H"), ("joined", "joined"), ("W_O", "W_O"),
                   ("W_hidden", "W_hidden"), ("logits", "logits"),
                   ("attention parameters", "attention_params"), ("parameters", "params")]
        header = [VGroup(), *(self.model_name(h, 20, self.head_colour(i + 2))
                              for i, h in enumerate(self.heads))]
        rows = [[self.label(name, 20, MUTED)]
                + [self.num(f"trained.heads{h}.{key}", 20) for h in self.heads]
                for name, key in entries]
        table = grid([header, *rows], h_buff=0.8, v_buff=0.16)
        place(table)
        self.say("Each attention model adds learned position rows, then one attention layer, "
                 "then the prediction MLP.", Fade(VGroup(*header, *(r[0] for r in rows))))
        phrase, keys = self.heads_phrase("{h} {noun} of width {x}", "d_head", " or ")
        self.say("The width is fixed, so the heads share it: " + phrase + ". Q and H narrow "
                 "per head, and every head gets its own A grid.",
                 LaggedStart(*(Fade(VGroup(*(r[c] for r in rows)))
                               for c in range(1, len(self.heads) + 1))), **keys)
        mark = rows[-2]
        box = self.highlight(VGroup(*mark), self.head_colour(1))
        self.say("E, W_Q, the joined messages and W_O keep their shapes, so the attention "
                 "layers hold the same {a} parameters: more heads give more grids, not more "
                 "weights.", Create(box), a=f"trained.heads{self.heads[0]}.attention_params")

    def parameters(self) -> None:
        entries = [(self.label("fixed-window MLP", 22), "trained.mlp.params",
                    "trained.mlp.W_hidden")]
        entries += [(self.model_name(h), f"trained.heads{h}.params",
                     f"trained.heads{h}.W_hidden") for h in self.heads]
        largest = max(float(self.v.value(key)) for _, key, _ in entries)
        rows = []
        for i, (name, key, first) in enumerate(entries):
            length = max(0.05, 4.5 * float(self.v.value(key)) / largest)
            bar = Rectangle(width=length, height=0.36, stroke_width=0,
                            fill_color=self.head_colour(i + 1), fill_opacity=0.85)
            count = self.num(key, 22, mono=False).next_to(bar, RIGHT, buff=0.2)
            rows.append([name, VGroup(bar, count), self.shape("first matrix", first, 20)])
        table = grid(rows, h_buff=0.5, v_buff=0.45)
        for bar_cell in (row[1] for row in rows):
            bar_cell.align_to(rows[0][1], LEFT)
        note = self.label("held-out losses and training times: see the trained experiment",
                          20, MUTED)
        place(VGroup(table, note).arrange(DOWN, buff=0.8))
        bars = [row[1][0] for row in rows]
        phrase, keys = self.heads_phrase("{x} with {h} {noun}", "params")
        self.say("Counting every parameter: the MLP has {m}; the attention models have "
                 + phrase + ".",
                 Fade(VGroup(*(row[0] for row in rows))),
                 *(GrowFromEdge(bar, LEFT) for bar in bars),
                 Fade(VGroup(*(row[1][1] for row in rows))),
                 m="trained.mlp.params", **keys)
        self.say("Its first matrix, {m}, reads the whole flattened window; the attention "
                 "models' first MLP matrix is only {a}. Most of the difference lies there.",
                 Fade(VGroup(*(row[2] for row in rows))),
                 m="trained.mlp.W_hidden", a=f"trained.heads{self.heads[0]}.W_hidden")
        self.say("Which model predicts better, and at what cost in time, is measured in the "
                 "trained experiment, not in this worksheet.", Fade(note))


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

    def patch_colour(self, patch: int) -> str:
        return HEAD_COLOURS[patch % len(HEAD_COLOURS)]

    def swatch(self, patch: int, side: float = 0.28) -> Square:
        return Square(side, stroke_width=0, fill_color=self.patch_colour(patch), fill_opacity=1)

    def shade(self, pixel: float) -> ManimColor:
        """Grey level of a pixel value (clipped to the range zero to one)."""
        return interpolate_color(DARK_PIXEL, LIGHT_PIXEL, min(max(pixel, 0.0), 1.0))

    def tile(self, key: str, pixel: float, side: float = 0.62) -> VGroup:
        """One pixel value on a square of its own shade."""
        number = self.num(key, 18, DARK_PIXEL.to_hex() if pixel >= 0.4 else INK)
        square = Square(side, stroke_width=0.5, stroke_color=MUTED,
                        fill_color=self.shade(pixel), fill_opacity=1)
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
        patches.outlines = VGroup(*(Rectangle(width=g.width, height=g.height,
                                              color=self.patch_colour(i), stroke_width=4)
                                    .move_to(g) for i, g in enumerate(groups)))
        return patches

    def image(self) -> None:
        self.patches = self.pixels(4.2)
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
        self.say("Words are not the only source of rows. Take a small greyscale image, {s} by "
                 "{t} pixels, each square shaded by its value.", Fade(self.patches),
                 Fade(facts[0]), Fade(note), s="patches.side", t="patches.side")
        self.play(self.patches.animate.arrange_in_grid(
            rows=int(self.v.value("patches.per_side")), buff=0.25).move_to(self.patches),
            run_time=0.8)
        for group, outline in zip(self.patches, self.patches.outlines, strict=True):
            outline.move_to(group)
        self.say("Cut it into square patches of {p} by {q} pixels: {n} per side, {c} patches "
                 "in all.", *map(Create, self.patches.outlines), Fade(facts[1:]),
                 p="patches.size", q="patches.size", n="patches.per_side", c="patches.count")
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
        self.play(Fade(self.facts, appear=False), run_time=0.5)
        image, side = VGroup(self.patches, self.patches.outlines), 2.4
        top = CONTENT_TOP - side - 0.45
        fit(block, CONTENT_WIDTH, top - CONTENT_BOTTOM)
        block.move_to([0, top - block.height / 2, 0])
        self.play(image.animate.scale_to_fit_height(side).move_to([0, CONTENT_TOP - side / 2, 0]),
                  run_time=0.6)
        self.say("Read each patch row by row into one flat list of {k} values. Each patch "
                 "becomes one row, as each word became one token.", Fade(header),
                 LaggedStart(*(Fade(VGroup(*row)) for row in rows), lag_ratio=0.4),
                 k="patches.values_per_patch")

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
        W = self.tall_matrix("patches.W", 20, HEAD_COLOURS[1])
        rows = self.matrix("patches.rows", size=20)
        times, equals = self.label("×", 28), self.label("=", 28)
        equation = VGroup(flat, times, W, equals, rows).arrange(RIGHT, buff=0.4)
        headers = headers_above([(self.shape("flat", "patches.shape.flat", 22), flat),
                                 (self.shape("W", "patches.shape.W", 22, HEAD_COLOURS[1]), W),
                                 (self.shape("rows", "patches.shape.rows", 22), rows)])
        note = self.label("the same matrix for every patch, learned from the image task", 20,
                          MUTED)
        place(VGroup(VGroup(equation, headers), note).arrange(DOWN, buff=0.7))
        self.say("One projection W, {w}, multiplies every flat patch: the same matrix for every "
                 "patch, learned from the image task.", Fade(VGroup(flat, headers[0])),
                 Fade(VGroup(times, W, headers[1])), Fade(note), w="patches.shape.W")
        self.say("Out come {c} embedding rows of width {d}, one per patch: {r}.",
                 Fade(VGroup(equals, rows, headers[2])), c="patches.count",
                 d="patches.shape.W[1]", r="patches.shape.rows")

    def sequence(self) -> None:
        colour = HEAD_COLOURS[2]
        count = int(self.v.value("patches.count"))
        rows = self.matrix("patches.rows", size=20,
                           row_labels=[self.swatch(i) for i in range(count)])
        positions = self.matrix("patches.positions", size=20)
        sequence = self.matrix("patches.sequence", size=20, colour=colour)
        plus, equals = self.label("+", 28), self.label("=", 28)
        equation = VGroup(rows, plus, positions, equals, sequence).arrange(RIGHT, buff=0.5)
        first, second = (positions.cells[r][0].get_y() for r in (0, 1))
        rows.shift(UP * (second - rows.cells[0][0].get_y()))
        stretch_brackets(rows, first - second, DOWN)
        cls = VGroup(*(self.label("…", 20, colour) if c is None
                       else self.num(f"patches.cls[{c}]", 20, colour)
                       for c in shown_indices(len(self.v.value("patches.cls")))))
        for cell, below in zip(cls, rows.cells[0], strict=True):
            cell.set_y(first).align_to(below, RIGHT)
        cls_name = self.label("CLS", 20, colour).set_y(first)
        cls_name.align_to(rows[2], RIGHT)
        plus.set_y(positions.get_y())
        equals.set_y(positions.get_y())
        headers = headers_above([(self.label("CLS + patch rows", 22), rows),
                                 (self.label("positions", 22), positions),
                                 (self.shape("sequence", "patches.shape.sequence", 22, colour),
                                  sequence)])
        place(VGroup(equation, cls, cls_name, headers))
        inner, keys = vector("c", "patches.cls", len(cls))
        self.say("Put one learned CLS row, " + inner + ", in front of the {n} patch rows.",
                 Fade(VGroup(rows, headers[0])), Fade(VGroup(cls, cls_name)),
                 n="patches.count", **keys)
        self.say("Add a position row to each of the {t} rows: the sequence is {s}, ready for "
                 "attention like any sentence.", Fade(VGroup(plus, positions, headers[1])),
                 Fade(VGroup(equals, sequence, headers[2])), t="patches.total_rows",
                 s="patches.shape.sequence")

    def classifier(self) -> None:
        colour = HEAD_COLOURS[2]
        sequence = self.matrix("patches.sequence", size=20, colour=colour)
        header = self.shape("sequence", "patches.shape.sequence", 22, colour)
        header.next_to(sequence, UP, buff=0.3)
        mark = self.highlight(VGroup(*sequence.cells[0]), colour)
        left = VGroup(header, sequence, mark)
        encoder = self.label("encoder: attention without a causal mask", 22)
        encoder = VGroup(encoder, frame(encoder, HEAD_COLOURS[1]))
        cls = self.label("final CLS row", 22, colour)
        classifier = self.label("classifier → class probabilities", 22)
        flow = VGroup(encoder, cls, classifier).arrange(DOWN, buff=0.7)
        flow.next_to(sequence, RIGHT, buff=1.2)
        flow.shift(UP * (sequence.get_y() - encoder.get_y()))
        note = self.label("a roadmap, not a trained model", 20, MUTED)
        place(VGroup(VGroup(left, flow), note).arrange(DOWN, buff=0.7))
        links = VGroup(arrow(sequence, encoder), arrow(encoder, cls, DOWN),
                       arrow(cls, classifier, DOWN))
        self.say("Classifying a whole image needs no causal mask: each of the {t} rows may "
                 "read every other row, before or after it.", Fade(left),
                 Fade(encoder), Create(links[0]), t="patches.total_rows")
        self.say("After the encoder, the CLS row's final state feeds a classifier trained "
                 "with the image's label. This is a roadmap, not a trained model.",
                 Fade(VGroup(cls, classifier, note)), *map(Create, links[1:]))


# --------------------------------------------------------------------------- lab


class BatchLab(LibraryScene):
    """The executable lab: a batch of ids, shapes through the head axes, one step, one token."""

    def construct(self) -> None:
        self.section("batch")
        self.stage("The lab: every sentence in one batch")
        self.batch()
        self.section("shapes")
        self.stage("Shapes through the batch and head axes")
        self.shapes()
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
                      self.word(self.word_of(f"lab.y[{i}]"), size, HEAD_COLOURS[1]),
                      self.num(f"lab.y[{i}]", size, HEAD_COLOURS[1])] if observed else []
            rows.append([self.sentence_name(name, size, MUTED), *ids, *target])
        extra = len(rows[0]) - 1 - self.ws.length
        table = grid(rows, h_buff=0.32, v_buff=0.4,
                     aligns="l" + "c" * self.ws.length + "cll"[:extra])
        ids = VGroup(*(cell for row in rows for cell in row[1:1 + self.ws.length]))
        targets = VGroup(*(cell for row in rows for cell in row[1 + self.ws.length:]))
        headers = VGroup(self.shape("X", "lab.shape.X", 24).next_to(ids, UP, buff=0.4))
        if observed:
            headers.add(self.shape("y", "lab.shape.y", 24, HEAD_COLOURS[1])
                        .next_to(targets, UP, buff=0.4))
            headers[1].align_to(headers[0], DOWN)
        note = self.label("token ids, not embeddings", 20, MUTED)
        place(VGroup(VGroup(table, headers), note).arrange(DOWN, buff=0.7))
        self.say("The lab stacks the token ids of all {n} sentences into one batch X of shape "
                 "{x}: whole numbers, not embeddings.",
                 Fade(VGroup(*(row[0] for row in rows))), Fade(ids), Fade(headers[0]),
                 Fade(note), n="dims.sentences", x="lab.shape.X")
        if not observed:
            self.say("This worksheet records no observed next words, so the batch has no "
                     "targets and the lab computes no loss; it goes on to shapes and "
                     "generation.")
            return
        pieces = [(f"“{{w{i}}}”", {}) for i in range(len(names))]
        phrase, _ = slots(pieces, ", ", " and ")
        self.say("Each sentence has one observed next word, its target: " + phrase + ". "
                 "Together they form y, shape {y}.", Fade(targets), Fade(headers[1]),
                 words={f"w{i}": self.word_of(f"lab.y[{i}]") for i in range(len(names))},
                 y="lab.shape.y")

    def shapes(self) -> None:
        entries = [("X", "X", "token ids"),
                   ("E", "E", "token rows + position rows"),
                   ("Q", "Q", "E W_Q: every head's queries together"),
                   ("Q by head", "Q_heads", "reshape, then transpose: heads before tokens"),
                   ("scores", "scores", "Q Kᵀ ÷ √d, future sources masked"),
                   ("A", "A", "softmax over the last axis, the sources"),
                   ("messages", "messages", "A V: one message per head and token"),
                   ("joined", "joined", "transpose back, then reshape"),
                   ("ΔE", "delta", "joined W_O"),
                   ("logits", "logits", "last updated rows → prediction MLP")]
        rows = [[self.code(name, 22), self.num(f"lab.shape.{key}", 22),
                 self.label(note, 20, MUTED)] for name, key, note in entries]
        table = grid(rows, h_buff=0.6, v_buff=0.2)
        place(table)
        colour = self.head_colour(1)
        groups = [VGroup(*(cell for row in rows[a:b] for cell in row))
                  for a, b in ((0, 3), (3, 6), (6, 10))]
        self.say("Embedding turns X {x} into E {e}: batch, tokens, width. One projection makes "
                 "every head's queries at once, Q {q}.", Fade(groups[0]),
                 x="lab.shape.X", e="lab.shape.E", q="lab.shape.Q")
        marks = VGroup(self.highlight(VGroup(*rows[3]), colour))
        self.say("Reshape, then transpose, moves the head axis before the tokens: {h}. The "
                 "scores and weights hold one grid per sentence and head, {a}; {n} weights in "
                 "all.", Fade(groups[1]), Create(marks[0]), h="lab.shape.Q_heads",
                 a="lab.shape.A", n="lab.A_weights")
        marks.add(self.highlight(VGroup(*rows[7]), colour))
        self.say("Transpose back before joining, or token rows and head rows get mixed: the "
                 "joined messages are {j} again, ΔE is {d}, and the last rows give logits {l}.",
                 Fade(groups[2]), Create(marks[1]), j="lab.shape.joined",
                 d="lab.shape.delta", l="lab.shape.logits")

    def training_step(self) -> None:
        colour = self.head_colour(1)
        before = self.card("cross-entropy loss", "lab.loss", colour, 34)
        step = self.card("AdamW, learning rate", "lab.learning_rate", INK, 34)
        after = self.card("loss after one step", "lab.loss_after", self.head_colour(2), 34)
        chain = VGroup(before, step, after).arrange(RIGHT, buff=1.0)
        links = VGroup(arrow(before, step), arrow(step, after))
        grads = self.bound("{f} of {t} parameter tensors received finite gradients", 24,
                           f="lab.finite_grads", t="lab.param_tensors")
        note = self.label("one step shows learning; it does not make a trained model", 20,
                          MUTED)
        place(VGroup(VGroup(chain, links), grads, note).arrange(DOWN, buff=0.8))
        self.say("Cross-entropy scores the logits against the observed targets, never against "
                 "sampled words: loss {l}.", Fade(before), l="lab.loss")
        self.say("One backward pass reaches every projection through the same loss: {f} of "
                 "the {t} parameter tensors got finite gradients.", Fade(grads),
                 f="lab.finite_grads", t="lab.param_tensors")
        self.say("One AdamW step with learning rate {r}, and the loss on this batch is {a}. One "
                 "step demonstrates learning; it does not make a trained model.",
                 Create(links[0]), Fade(step), Create(links[1]), Fade(after), Fade(note),
                 r="lab.learning_rate", a="lab.loss_after")

    def generate(self) -> None:
        colour = self.head_colour(1)
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        word = self.word_of("lab.next_id")
        row = self.token_row([*tokens, word], width=CONTENT_WIDTH)
        new = row[-1].set_color(colour)
        facts = VGroup(self.bound("next id {i}", 24, colour, i="lab.next_id"),
                       self.bound("probability {p}", 24, colour, p="lab.next_prob"),
                       self.shape("history", "lab.shape.history", 24)
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        note = self.label("weights stay fixed; crop the history to the context window", 20,
                          MUTED)
        place(VGroup(row, facts, note).arrange(DOWN, buff=0.8))
        box = self.highlight(new, colour)
        self.say("At inference the weights stay fixed. The model reads the “{s}” prefix and "
                 "takes the most probable next id, {i}: “{w}”, with probability {p}.",
                 Fade(row[:-1]), Fade(facts[:2]), words={"s": name, "w": word},
                 i="lab.next_id", p="lab.next_prob")
        self.say("Appending it makes the history {h}. Repeat to keep generating, keeping only "
                 "the last context-window tokens.", Fade(new), Create(box),
                 Fade(facts[2]), Fade(note), h="lab.shape.history")
