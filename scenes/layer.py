"""The layer's machinery: query, key and value roles, every shape, the final receiver's
projections in each head, and one wide head against the separate heads."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    Mobject,
    Rectangle,
    VGroup,
    Write,
)

from scenes.kit import INK, MUTED, LectureScene, fit, shown_indices, vector
from scenes.story import chip

CARD_SIZE = 22
MIN_SCALE = 0.8
"""Smallest shrink that keeps the projections' smallest labels legible at 480p."""


def card(*lines: Mobject, colour: str = MUTED) -> VGroup:
    """Lines of text stacked in a rounded box: one stage of the layer."""
    body = VGroup(*lines).arrange(DOWN, buff=0.1)
    return chip(body, colour)


def flow(cards: Sequence[Mobject], colour: str = MUTED, buff: float = 0.5) -> VGroup:
    """Cards in a row joined by arrows, left to right."""
    row = VGroup(*cards).arrange(RIGHT, buff=buff)
    arrows = VGroup(*(Arrow(a.get_right(), b.get_left(), buff=0.06, color=colour,
                            stroke_width=3, max_tip_length_to_length_ratio=0.35)
                      for a, b in pairwise(cards)))
    group = VGroup(row, arrows)
    group.cards = list(cards)
    return group


def stack(frame: Mobject, colours: Sequence[str], step: float = 0.1) -> VGroup:
    """Copies of ``frame`` offset behind it, one per head: the stage repeats per head."""
    copies = VGroup()
    for i, colour in reversed(list(enumerate(colours))):
        copies.add(frame.copy().set_stroke(colour, opacity=1.0).shift((RIGHT + DOWN) * step * i))
    return copies


class RolesAndShapes(LectureScene):
    """Query, key and value roles, then the shape of every matrix in the layer."""

    def construct(self) -> None:
        self.section("roles")
        heading = self.title("Queries ask, keys advertise, values carry")
        roles = self.roles()
        self.say("From its row, every token makes three new ones. Its query says what it is "
                 "looking for, its key advertises what it can be found by, and its value holds "
                 "what it passes on.", Write(heading), FadeIn(roles))
        self.say("A receiver's query meets each source's key: a good match means a large "
                 "weight, and that weight scales the source's value.")

        self.section("inside a head")
        shapes = self.title("Every matrix in the layer, and its shape")
        inside = self.inside_each_head(shapes)
        self.play(FadeOut(roles), FadeOut(heading), FadeIn(shapes))
        self.say("Inside each head, E, {e}, meets that head's W_Q, W_K and W_V, each {w}: "
                 "Q, K and V come out {q} each.", FadeIn(inside.frames), FadeIn(inside.label),
                 FadeIn(inside.project), e="shapes.E", w="shapes.W_Q", q="shapes.Q")
        self.say("Q, {q}, times Kᵀ, {kt}, scores every receiver against every source: "
                 "{s}. The mask and softmax keep that shape, so A is {a}, and H = AV is {h}, "
                 "one message row per token.", FadeIn(inside.attend), q="shapes.Q",
                 kt="shapes.KT", s="shapes.scores", a="shapes.A", h="shapes.H")

        self.section("after the heads")
        after = self.after_the_heads(inside)
        self.say("The heads' H matrices are joined side by side, coordinates next to "
                 "coordinates, giving {j}. W_O, {o}, turns that into ΔE, {d}; adding E gives "
                 "E′, still {p}.", FadeIn(after), j="shapes.joined", o="shapes.W_O",
                 d="shapes.delta", p="shapes.E_prime")
        self.say("Only the last row of E′, {r}, goes on to predict the next word.",
                 r="shapes.last_row")

        self.section("one receiver")
        rows = self.receiver_rows(after)
        self.say("For the final receiver alone: its query row is {q}, each head's message "
                 "is {m}, and each message meets its own {b} block of W_O.",
                 LaggedStart(*map(FadeIn, rows), lag_ratio=0.4), q="shapes.q_row",
                 m="shapes.message", b="shapes.W_O_block")

    def roles(self) -> VGroup:
        """The receiver's query, a source's key and the same source's value, and what
        becomes of them."""
        tokens = self.ws.sentences[self.ws.walkthrough]
        source = self.v.value(f"{self.ws.walkthrough}.h1.top_source")
        colour = self.head_colour(1)
        specs = [(tokens[-1], "query", "asks: what am I", "looking for?"),
                 (tokens[source], "key", "advertises: what can", "I be found by?"),
                 (tokens[source], "value", "carries: what do I", "pass on if chosen?")]
        cards = VGroup()
        for token, role, first, second in specs:
            body = VGroup(self.word(token, 28), self.label(role, 30, colour),
                          VGroup(self.label(first, 22, MUTED), self.label(second, 22, MUTED))
                          .arrange(DOWN, buff=0.1)).arrange(DOWN, buff=0.3)
            cards.add(chip(body, colour, 3.9))
        cards.arrange(RIGHT, buff=0.45)
        uses = VGroup(self.label("query · key  →  how well they match  →  weight", 24),
                      self.label("weight × value  →  part of the receiver's message", 24))
        uses.arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        group = VGroup(cards, uses).arrange(DOWN, buff=0.7)
        return fit(group, 13.0).move_to(DOWN * 0.3)

    def shape(self, name: str, key: str, colour: str = INK) -> Mobject:
        """``name  [rows, columns]`` (or the shape alone) with the shape bound to its key."""
        return self.bound(f"{name}  {{s}}" if name else "{s}", CARD_SIZE, colour, s=key)

    def inside_each_head(self, heading: Mobject) -> VGroup:
        """Projection and attention, framed once per head."""
        colour = self.head_colour(1)
        project = flow([
            card(self.shape("E", "shapes.E")),
            card(self.shape("W_Q", "shapes.W_Q", colour), self.shape("W_K", "shapes.W_K", colour),
                 self.shape("W_V", "shapes.W_V", colour), colour=colour),
            card(self.shape("Q", "shapes.Q"), self.shape("K", "shapes.K"),
                 self.shape("V", "shapes.V")),
            card(self.shape("Kᵀ", "shapes.KT")),
        ])
        attend = flow([
            card(self.label("scores = QKᵀ ÷ √d", CARD_SIZE), self.shape("", "shapes.scores")),
            card(self.label("A = softmax(scores + mask)", CARD_SIZE), self.shape("", "shapes.A")),
            card(self.label("H = AV", CARD_SIZE), self.shape("", "shapes.H")),
        ])
        body = VGroup(project, attend).arrange(DOWN, buff=0.45)
        fit(body, 12.4)
        frame = Rectangle(width=body.width + 0.5, height=body.height + 0.5, stroke_width=2)
        frame.move_to(body)
        frames = stack(frame, [self.head_colour(h) for h in range(1, self.ws.n_heads + 1)])
        label = self.bound("in each head (heads: {h})", 20, colour, h="dims.heads")
        group = VGroup(frames, body)
        group.next_to(heading, DOWN, buff=0.55)
        label.next_to(frames[-1], UP, buff=0.08).align_to(frames[-1], LEFT)
        group.add(label)
        group.frames, group.label, group.project, group.attend = frames, label, project, attend
        return group

    def after_the_heads(self, inside: VGroup) -> VGroup:
        """Joining the head messages, W_O, the update and the residual."""
        row = flow([
            card(self.label("joined heads", CARD_SIZE), self.shape("", "shapes.joined")),
            card(self.shape("W_O", "shapes.W_O")),
            card(self.label("ΔE", CARD_SIZE), self.shape("", "shapes.delta")),
            card(self.label("E′ = E + ΔE", CARD_SIZE), self.shape("", "shapes.E_prime")),
            card(self.label("last row of E′", CARD_SIZE), self.shape("", "shapes.last_row")),
        ])
        fit(row, 12.6)
        row.next_to(inside.frames, DOWN, buff=0.7)
        label = self.label("after the heads", 20, MUTED).next_to(row, UP, buff=0.08)
        label.align_to(row, LEFT)
        return VGroup(row, label)

    def receiver_rows(self, after: Mobject) -> VGroup:
        """The single rows that belong to the final receiver."""
        colour = self.head_colour(1)
        rows = VGroup(self.shape("its query row q", "shapes.q_row", colour),
                      self.shape("one head's message", "shapes.message", colour),
                      self.shape("that head's W_O block", "shapes.W_O_block", colour))
        rows.arrange(RIGHT, buff=0.7)
        fit(rows, 12.6)
        label = self.label("the final receiver", 20, MUTED).next_to(rows, UP, buff=0.1)
        label.align_to(rows, LEFT)
        rows = VGroup(label, *rows)
        rows.next_to(after, DOWN, buff=0.45)
        return rows


# ---------------------------------------------------------------------- projections


class ReceiverProjections(LectureScene):
    """Each head's query for the final receiver, and its top source's key and value."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.shown: VGroup | None = None
        for head in range(1, self.ws.n_heads + 1):
            self.section(f"head {head} query")
            self.query(head)
            self.source_rows(head)

    def clear(self) -> None:
        """Fade out what the previous step left on screen."""
        if self.shown is not None:
            self.play(FadeOut(self.shown))

    def query(self, head: int) -> None:
        """The receiver's input row times this head's W_Q."""
        p, colour, last = f"{self.s}.h{head}", self.head_colour(head), len(self.tokens) - 1
        number = f"dims.head_numbers[{head - 1}]"
        self.clear()
        heading = self.title("Head {h}: the receiver's query", h=number).set_color(colour)
        query = self.projection(last, [(f"params.h{head}.W_Q", f"{p}.Q", "W_Q", "q")],
                                colour, heading)
        inner, keys = vector("q", f"{p}.Q[{last}]", self.ws.d_head)
        self.say("Head {h} multiplies the receiver's input row by its own W_Q. Each query "
                 "coordinate is that row dotted with one column of W_Q, giving " + inner + ".",
                 Write(heading), FadeIn(query), h=number, **keys)
        self.shown = VGroup(heading, query)

    def source_rows(self, head: int) -> None:
        """The top source's row times W_K and W_V: side by side when both fit legibly,
        otherwise one after the other."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        top = self.v.value(f"{p}.top_source")
        heading = self.bound("Head {h}: the key and value of “{w}”", 34, colour,
                             h=f"dims.head_numbers[{head - 1}]", words={"w": self.tokens[top]})
        heading.move_to(self.shown[0])
        key = (f"params.h{head}.W_K", f"{p}.K", "W_K", "k")
        value = (f"params.h{head}.W_V", f"{p}.V", "W_V", "v")
        inner_k, keys_k = vector("k", f"{p}.K[{top}]", self.ws.d_head)
        inner_v, keys_v = vector("v", f"{p}.V[{top}]", self.ws.d_head)
        words = {"w": self.tokens[top]}
        both = self.projection(top, [key, value], colour, heading)
        if both.scaled >= MIN_SCALE:
            self.section(f"head {head} key and value")
            self.clear()
            self.say("Its strongest source, “{w}”, sends its own row through W_K and W_V: the "
                     "key " + inner_k + " decides how well it matches; the value " + inner_v
                     + " is what it would pass on.", FadeIn(heading), FadeIn(both),
                     words=words, **keys_k, **keys_v)
            self.shown = VGroup(heading, both)
            return
        self.section(f"head {head} key")
        self.clear()
        first = self.projection(top, [key], colour, heading)
        self.say("Its strongest source, “{w}”, sends its own row through W_K: the key "
                 + inner_k + " decides how well it matches.", FadeIn(heading), FadeIn(first),
                 words=words, **keys_k)
        self.section(f"head {head} value")
        self.play(FadeOut(first))
        second = self.projection(top, [value], colour, heading)
        self.say("The same row through W_V gives the value " + inner_v + ": what “{w}” would "
                 "pass on.", FadeIn(second), words=words, **keys_v)
        self.shown = VGroup(heading, second)

    def feature(self, index: int | None, size: float) -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided coordinate."""
        if index is None:
            return self.label("…", size, MUTED)
        return self.bound("{f}", size, MUTED, words={"f": self.ws.lesson.features[index]})

    def projection(self, row: int, products: Sequence[tuple[str, str, str, str]],
                   colour: str, heading: Mobject) -> VGroup:
        """Token ``row``'s input row on top; beneath it ``× W = result`` for each product.

        ``products`` holds (matrix key, result key, matrix name, result name).
        """
        size = 24
        width = self.ws.d_model
        names = [self.feature(c, 20) for c in shown_indices(width)]
        spacing = max(0.5, max(name.width for name in names) + 0.3 - 0.35)
        source = self.matrix(f"{self.s}.E", rows=[row], size=size, h_buff=spacing,
                             row_labels=[self.word(self.tokens[row], 28, colour)],
                             col_labels=names)
        pieces = VGroup()
        for matrix_key, result_key, matrix_name, result_name in products:
            W = self.matrix(matrix_key, size=size, colour=colour,
                            row_labels=[self.feature(i, 20) for i in range(width)])
            W.add(self.label(matrix_name, 26, colour).next_to(W.brackets, UP, buff=0.15))
            result = self.matrix(result_key, rows=[row], size=size, colour=colour)
            result.add(self.label(result_name, 26, colour).next_to(result.brackets, UP, 0.15))
            pieces.add(VGroup(self.label("×", 30), W, self.label("=", 30), result)
                       .arrange(RIGHT, buff=0.3))
        pieces.arrange(RIGHT, buff=1.0, aligned_edge=UP)
        group = VGroup(source, pieces).arrange(DOWN, buff=0.7)
        room = heading.get_bottom()[1] - 0.4 + 3.8
        before = group.width
        fit(group, 13.0, room)
        group.scaled = group.width / before
        return group.move_to([0, heading.get_bottom()[1] - 0.4 - room / 2, 0])


# ---------------------------------------------------------------------- one wide head


class OneWideHead(LectureScene):
    """The heads' projections joined into one wide head: one weight row serves every value
    coordinate, while separate heads keep a row each."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.heads = list(range(1, self.ws.n_heads + 1))
        self.section("join projections")
        heading = self.title("One wide head instead of separate heads")
        self.join_projections(heading)
        self.section("scale")
        self.play(FadeOut(self.blocks))
        self.scales()
        self.section("weights")
        self.play(FadeOut(self.scale_lines))
        self.weight_table()
        self.section("compare")
        self.compare()
        self.section("messages")
        self.play(FadeOut(self.table), FadeOut(self.boxes))
        self.messages()

    def join_projections(self, heading: Mobject) -> None:
        """Each head's W_Q as a block; the blocks close up into one wide W_Q."""
        unit = min(0.6, 7.0 / (len(self.heads) * self.ws.d_head), 3.6 / self.ws.d_model)
        parts = VGroup()
        for head in self.heads:
            colour = self.head_colour(head)
            block = Rectangle(width=unit * self.ws.d_head, height=unit * self.ws.d_model,
                              stroke_color=colour, stroke_width=2, fill_color=colour,
                              fill_opacity=0.3)
            name = self.head_label(head, 22).next_to(block, DOWN, buff=0.2)
            shape = self.bound("{s}", 20, colour, s="shapes.W_Q").next_to(block, UP, 0.2)
            parts.add(VGroup(block, name, shape))
        parts.arrange(RIGHT, buff=0.6).move_to(DOWN * 0.2)
        self.say("Each head has its own W_Q, {s}. Set them side by side, and likewise W_K and "
                 "W_V, and you have the projections of one wide head; no entry changes.",
                 Write(heading), FadeIn(parts), s="shapes.W_Q")
        blocks = VGroup(*(part[0] for part in parts))
        closed = blocks.copy().arrange(RIGHT, buff=0).move_to(blocks)
        wide = self.bound("one wide W_Q  [{m}, {j}]", 24, INK, m="dims.d_model",
                          j="dims.joined").next_to(closed, UP, buff=0.25)
        moves = [part[0].animate.shift(target.get_center() - part[0].get_center())
                 for part, target in zip(parts, closed, strict=True)]
        self.say("Joined, the wide projection has {j} columns: every query and key is {k} "
                 "coordinates long, and so is every value.", *moves,
                 *(FadeOut(VGroup(part[1], part[2])) for part in parts), FadeIn(wide),
                 j="dims.joined", k="dims.joined")
        self.blocks = VGroup(blocks, wide)

    def scales(self) -> None:
        """The wide head's √ scale against each head's."""
        lines = VGroup(self.bound("wide head:  one score per source, divided by √{j} = {x}", 26,
                                  INK, j="dims.joined", x=f"{self.s}.wide.scale"))
        for head in self.heads:
            lines.add(self.bound("Head {h}:  its own score per source, divided by √{d} = {x}",
                                 26, self.head_colour(head), h=f"dims.head_numbers[{head - 1}]",
                                 d="dims.d_head", x=f"{self.s}.h{head}.scale"))
        lines.arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        self.scale_lines = fit(lines, 13.0, 5.5).move_to(DOWN * 0.2)
        self.say("The wide head adds up {j} coordinate products per source and divides by "
                 "{x}; each separate head adds up {d} and divides by {y}, then runs its own "
                 "softmax.", FadeIn(lines), j="dims.joined", x=f"{self.s}.wide.scale",
                 d="dims.d_head", y=f"{self.s}.h1.scale")

    def weight_table(self) -> None:
        """Source words, the wide head's single weight row, and each head's row."""
        count = len(self.tokens)
        row_h = min(0.44, 4.6 / count)
        size = min(24.0, row_h * 52)
        header_y = 2.35
        ys = [header_y - 0.55 - j * row_h for j in range(count)]
        words = VGroup(*(self.word(t, size).move_to([0, y, 0], aligned_edge=RIGHT)
                         for t, y in zip(self.tokens, ys, strict=True)))
        columns = [(self.label("wide head", 22), f"{self.s}.wide.weights", INK)]
        columns += [(self.head_label(h, 22), f"{self.s}.h{h}.weights", self.head_colour(h))
                    for h in self.heads]
        self.cells: list[list[Mobject]] = []
        table = VGroup(words)
        for k, (header, key, colour) in enumerate(columns):
            x = 1.4 + 1.9 * k
            header.move_to([x, header_y, 0])
            cells = [self.num(f"{key}[{j}]", size, colour).move_to([x, y, 0])
                     for j, y in enumerate(ys)]
            self.cells.append(cells)
            table.add(header, *cells)
        note = self.bound("wide head: one row for all {j} value coordinates     "
                          "each head: its own row for its {d}", 20, MUTED,
                          j="dims.joined", d="dims.d_head")
        note.next_to(VGroup(*(column[-1] for column in self.cells)), DOWN, buff=0.35)
        table.shift(RIGHT * -table.get_center()[0])
        note.set_x(0)
        table.add(note)
        fit(table, 13.4)
        self.words = words
        self.table = table
        self.say("Here are the final receiver's weights: the wide head has one row, and "
                 "multiplies every value coordinate by it. Each separate head has its own row "
                 "for its own coordinates.", FadeIn(table))

    def compare(self) -> None:
        """For each head's favourite source: the wide head's weight against the head's."""
        boxes = VGroup()
        for column, head in enumerate(self.heads, start=1):
            top = self.v.value(f"{self.s}.h{head}.top_source")
            colour = self.head_colour(head)
            pair = VGroup(self.highlight(self.cells[0][top], colour),
                          self.highlight(self.cells[column][top], colour),
                          self.highlight(self.words[top], colour))
            boxes.add(pair)
            if len(self.heads) == 1:
                self.say("With a single head there is nothing to join: the wide head is that "
                         "head, and “{w}” gets {x} either way.", *map(Create, pair),
                         words={"w": self.tokens[top]}, x=f"{self.s}.wide.weights[{top}]")
                continue
            self.say("Head {h} gives “{w}” {x}. The wide head's single row gives it {y}.",
                     *map(Create, pair), words={"w": self.tokens[top]},
                     h=f"dims.head_numbers[{head - 1}]", x=f"{self.s}.h{head}.weights[{top}]",
                     y=f"{self.s}.wide.weights[{top}]")
        if len(self.heads) > 1:
            self.say("One row has to serve every coordinate: where the heads disagree about "
                     "which source matters, the wide head can follow only one mixture, while "
                     "separate heads each keep their own.")
        self.boxes = boxes

    def messages(self) -> None:
        """The wide head's message against the separate heads' joined messages."""
        wide = self.vec(f"{self.s}.wide.message", 26, INK,
                        template="wide head's message:  {v}")
        joined = self.vec(f"{self.s}.joined[{self.last}]", 26, INK,
                          template="separate heads, joined:  {v}")
        lines = VGroup(wide, joined).arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        fit(lines, 13.0).move_to(DOWN * 0.2)
        inner_w, keys_w = vector("w", f"{self.s}.wide.message", self.ws.d_model)
        inner_j, keys_j = vector("s", f"{self.s}.joined[{self.last}]", self.ws.d_model)
        ending = "; the separate heads, joined, give it " if len(self.heads) > 1 else \
            "; the one head, on its own, gives the same: "
        self.say("Mixing the values with the single row gives the receiver " + inner_w
                 + ending + inner_j + ".", FadeIn(lines), **keys_w, **keys_j)
