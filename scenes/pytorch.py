"""`nn.MultiheadAttention` with the worksheet's weights copied in, from the `mha.*` values."""


from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    LaggedStart,
    Square,
    VGroup,
    Write,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
    baseline,
    fit,
)
from scenes.kit.topic import (
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
        pointer = self.unpoint()
        self.play(Fade(VGroup(self.inputs, self.heading), appear=False),
                  *([] if pointer is None else [pointer]), run_time=0.5)
        self.heading = self.title("Scratch layer and PyTorch agree")
        self.play(Write(self.heading), results.animate.move_to([0, 1.6, 0]), run_time=0.6)
        panel.next_to(results, DOWN, buff=0.8)
        self.say("Entry by entry, the largest difference from our scratch layer in ΔE is {d}.",
                 Fade(VGroup(table, panel[1])), self.point_at(VGroup(*rows[0])),
                 d="mha.max_diff_delta")
        self.say("In the weights it is {a}: float rounding, nothing more.",
                 Fade(verdict), self.point_at(VGroup(*rows[1])), a="mha.max_diff_A")
