"""The batch lab: token ids to a batch, the heads' reshape and transpose as tensor
blocks, and one training step, from the `lab.*` values."""



from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    Mobject,
    Rectangle,
    VGroup,
)

from scenes.kit import (
    MUTED,
    Fade,
)
from scenes.kit.topic import (
    CONTENT_WIDTH,
    SLAB_OFFSET,
    LibraryScene,
    arrow,
    grid,
    place,
    slab_stack,
    slots,
)

__all__ = ["BatchLab"]


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
        tokens.next_to(front, LEFT, buff=0.4)
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
            self.say("One backward pass reaches every projection: each of the "
                     "{t:parameter tensor} receives a finite gradient.", Fade(grads),
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
                       self.bound("history: {n:token}, window: {c}", 24,
                                  n="lab.shape.history[1]", c="dims.context")
                       ).arrange(DOWN, aligned_edge=LEFT, buff=0.3)
        note = self.label("weights stay fixed; crop the history to the context window", 20,
                          MUTED)
        longer = self.v.value("lab.shape.history[1]") > self.v.value("dims.context")
        place(VGroup(row, facts, note).arrange(DOWN, buff=0.8))
        self.say("At inference the weights stay fixed, and the model reads the “{s}” prefix.",
                 Fade(row[:-1]), self.point_at(row[:-1]), words={"s": name})
        self.say("It takes the most probable next id, {i}: “{w}”, with probability {p}.",
                 Fade(facts[:2]), Fade(new), self.point_at(new, facts[:2], each=True),
                 words={"w": word},
                 i="lab.next_id", p="lab.next_prob")
        self.say("Appending it makes the history {n:token} long, " + (
            "one more than the window of {c}." if longer else "still within the window of "
            "{c}."), Fade(facts[2]), self.point_at(facts[2]), n="lab.shape.history[1]",
            c="dims.context")
        self.say("To keep generating, repeat the step, feeding the model only the last {c} "
                 "tokens." if longer else "Repeat to keep generating; once the history "
                 "outgrows the window, only its last {c} tokens are fed in.",
                 Fade(note), self.point_at(note), c="dims.context")
