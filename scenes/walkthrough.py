"""One head, step by step, for the final receiver: one scene per head of the worksheet.

``HeadWalkthrough1`` … ``HeadWalkthroughN`` are generated below from the worksheet's head
count; each only sets ``head``.
"""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    RIGHT,
    UP,
    Create,
    LaggedStart,
    Mobject,
    VGroup,
    Write,
)

from scenes.kit import (
    ELIDE_AFTER,
    INK,
    MUTED,
    LectureScene,
    column_shifts,
    current_lesson,
    fade_in,
    fade_out,
    fit,
    joined,
    vector,
)

TABLE_WIDTH = 13.2
HEADER_Y = 2.45
GAP = 0.55


class HeadWalkthrough(LectureScene):
    """Q and K, dot products, scaling, exponentials, weights, values, contributions, message."""

    head = 1

    def construct(self) -> None:
        h, name = self.head, self.ws.walkthrough
        self.p = f"{name}.h{h}"
        self.tokens = self.ws.sentences[name]
        self.last = len(self.tokens) - 1
        self.top = self.v.value(f"{self.p}.top_source")
        self.colour = self.head_colour(h)
        self.row_h = min(0.46, 5.0 / len(self.tokens))
        self.size = min(22.0, self.row_h * 46)
        self.ys = [HEADER_Y - 0.5 - j * self.row_h for j in range(len(self.tokens))]
        head_key = f"dims.head_numbers[{h - 1}]"

        self.section("queries and keys")
        heading = self.title("Head {h}: one receiver, step by step", h=head_key)
        heading.set_color(self.colour)
        self.queries_and_keys(head_key, heading)
        self.build_table()
        self.section("dot products")
        with self.silence("the projections make way for the table"):
            self.play(fade_out(self.matrices))
        self.dot_products()
        self.section("scaling")
        self.switch(["source", "dot", "score"])
        self.say("Divide every dot product by the square root of the head width, "
                 "√{d} = {s}, so the scores stay in a moderate range.",
                 d="dims.d_head", s=f"{self.p}.scale")
        self.section("exponentials")
        self.exponentials()
        self.section("weights")
        self.weights()
        self.section("values")
        with self.silence("the sum and its frame leave"):
            self.play(fade_out(self.box), fade_out(self.total))
        self.switch(["source", "weight", "value"])
        self.say("Each source also offers a value row. The keys decided the weights; the "
                 "values carry the content that gets mixed.")
        self.section("contributions")
        self.contributions()
        self.section("message")
        self.message(head_key)

    # ------------------------------------------------------------------ steps

    def queries_and_keys(self, head_key: str, heading: Mobject) -> None:
        size = self.size
        Q = self.matrix(f"{self.p}.Q", row_labels=[self.word(t, size) for t in self.tokens],
                        size=size, colour=self.colour)
        K = self.matrix(f"{self.p}.K", row_labels=[self.word(t, size) for t in self.tokens],
                        size=size)
        pair = VGroup(Q, K).arrange(RIGHT, buff=1.4)
        labels = VGroup(self.label("queries Q", 24, self.colour).next_to(Q.body, UP, 0.25),
                        self.label("keys K", 24).next_to(K.body, UP, 0.25))
        pair.add(labels)
        fit(pair, TABLE_WIDTH, heading.get_bottom()[1] + 3.6)
        pair.next_to(heading, DOWN, buff=0.35)
        box = self.highlight(VGroup(*Q.cells[self.last]), self.colour)
        query, keys = vector("q", f"{self.p}.Q[{self.last}]", len(Q.cells[0]))
        self.say("Head {h} projects every input row into a query and a key. We follow the "
                 "final query, " + query + ", and compare it with every key.",
                 Write(heading), fade_in(pair), Create(box), h=head_key, **keys)
        self.matrices = VGroup(pair, box)

    def dot_products(self) -> None:
        self.switch(["source"])
        names = self.steps[0][1:]
        shown = [self.columns[name] for name in names]
        self.arrange([self.columns["source"], *shown])
        self.play(*(fade_in(c.header) for c in shown))
        rows = [VGroup(*(c.cells[j] for c in shown)) for j in range(len(self.tokens))]
        self.say("Multiply the query and each key coordinate by coordinate, then add: one "
                 "dot product per source. “{w}” scores highest, {d}.",
                 LaggedStart(*map(fade_in, rows), lag_ratio=0.3),
                 words={"w": self.tokens[self.top]}, d=f"{self.p}.dots[{self.top}]")
        self.remove(*rows, *(c.header for c in shown))  # regroup by column, no visual change
        self.add(*shown)
        self.visible = self.steps[0]

    def exponentials(self) -> None:
        self.switch(["source", "dot", "score", "exp"])
        exps = self.columns["exp"]
        self.total = self.bound("sum of the exponentials = {t}", self.size * self.scale,
                                self.colour, t=f"{self.p}.denominator")
        self.total.next_to(exps, DOWN, buff=0.3).align_to(exps, RIGHT)
        self.say("Exponentials turn every score into a positive number. All {n} of them, "
                 "the receiver itself included, add up to {t}: the shared denominator.",
                 fade_in(self.total), n="dims.tokens", t=f"{self.p}.denominator")

    def weights(self) -> None:
        self.switch(["source", "score", "exp", "weight"])
        weights = self.columns["weight"]
        self.box = self.highlight(VGroup(self.columns["source"].cells[self.top],
                                         weights.cells[self.top]), self.colour)
        self.say("Each exponential divided by {t} is a weight; together the weights sum to "
                 "{one}. “{w}” receives {x}.", Create(self.box),
                 words={"w": self.tokens[self.top]}, t=f"{self.p}.denominator",
                 one=f"{self.p}.weights_sum", x=f"{self.p}.weights[{self.top}]")

    def contributions(self) -> None:
        self.switch(["source", "weight", "value", "contribution"])
        value = f"{self.p}.V[{self.top}]"
        width = len(self.v.value(value))
        inner_v, keys_v = vector("v", value, width)
        inner_c, keys_c = vector("c", f"{self.p}.contributions[{self.top}]", width)
        self.say("The weight scales the whole value row: for “{w}”, {x} × " + inner_v + " = "
                 + inner_c + ". Small weights shrink a source's row toward zero.",
                 words={"w": self.tokens[self.top]}, x=f"{self.p}.weights[{self.top}]",
                 **keys_v, **keys_c)

    def message(self, head_key: str) -> None:
        target = self.columns["contribution"]
        total = self.vec(f"{self.p}.message", self.size * self.scale, self.colour,
                         template="message = {v}")
        total.next_to(target, DOWN, buff=0.3).align_to(target, RIGHT)
        inner, keys = vector("m", f"{self.p}.message", len(self.v.value(f"{self.p}.message")))
        self.say("Adding the contributions coordinate by coordinate gives head {h}'s message "
                 "for the receiver: " + inner + ".", fade_in(total), h=head_key, **keys)
        self.wait(0.5)

    # ------------------------------------------------------------------ the table

    def build_table(self) -> None:
        """Every column of the table, scaled once so the widest step fits the frame."""
        size, p = self.size, self.p
        width = len(self.v.value(f"{p}.Q[{self.last}]"))
        products, _ = joined("a", "", width, " + ")
        makers = {
            "source": ("source", lambda j: self.word(
                self.tokens[j], size, self.colour if j == self.top else INK)),
            "key": ("key", lambda j: self.vec(f"{p}.K[{j}]", size)),
            "products": ("query × key, coordinate by coordinate", lambda j: self.bound(
                products, size, mono=True, **joined("a", f"{p}.products[{j}]", width, "")[1])),
            "dot": ("dot", lambda j: self.num(f"{p}.dots[{j}]", size)),
            "score": ("score = dot ÷ √d", lambda j: self.num(f"{p}.scores[{j}]", size)),
            "exp": ("exp(score)", lambda j: self.num(f"{p}.exps[{j}]", size)),
            "weight": ("weight", lambda j: self.num(f"{p}.weights[{j}]", size, self.colour)),
            "value": ("value row", lambda j: self.vec(f"{p}.V[{j}]", size)),
            "contribution": ("weight × value",
                             lambda j: self.vec(f"{p}.contributions[{j}]", size)),
        }
        self.columns = {
            name: self.column(self.label(header, size * 0.8, MUTED),
                              [cell(j) for j in range(len(self.tokens))], self.ys, HEADER_Y)
            for name, (header, cell) in makers.items()}
        first = ["source", "key", "products", "dot"] if width <= ELIDE_AFTER else \
            ["source", "products", "dot"]
        steps = [first, ["source", "dot", "score", "exp"],
                 ["source", "score", "exp", "weight"],
                 ["source", "weight", "value", "contribution"]]
        self.scale = min(1.0, *(
            (TABLE_WIDTH - GAP * (len(step) - 1))
            / sum(self.columns[name].width for name in step) for step in steps))
        for column in self.columns.values():
            column.scale(self.scale, about_point=[0, HEADER_Y, 0])
        self.steps = steps
        self.visible: list[str] = []

    def arrange(self, columns: Sequence[VGroup]) -> None:
        """Set columns side by side, the table centred in the frame."""
        width = sum(c.width for c in columns) + GAP * (len(columns) - 1)
        left = max(-TABLE_WIDTH / 2, -width / 2)
        for column, shift in zip(columns, column_shifts(columns, left, GAP), strict=True):
            column.shift(RIGHT * shift)

    def switch(self, names: list[str]) -> None:
        """Animate from the visible columns to ``names``: drop, slide, add."""
        with self.silence("the table trades columns for the next step"):
            self._switch(names)

    def _switch(self, names: list[str]) -> None:
        leaving = [self.columns[n] for n in self.visible if n not in names]
        if leaving:
            self.play(*map(fade_out, leaving), run_time=0.6)
        kept = [n for n in names if n in self.visible]
        before = {n: self.columns[n].get_left()[0] for n in kept}
        self.arrange([self.columns[n] for n in names])
        moves = []
        for n in kept:
            target = self.columns[n].get_left()[0]
            self.columns[n].shift(RIGHT * (before[n] - target))
            moves.append(self.columns[n].animate.shift(RIGHT * (target - before[n])))
        if moves:
            self.play(*moves, run_time=0.8)
        arriving = [self.columns[n] for n in names if n not in self.visible]
        if arriving:
            self.play(*map(fade_in, arriving), run_time=0.8)
        self.visible = names


def _generate() -> None:
    """One scene class per head of the current worksheet."""
    ws, _ = current_lesson()
    for head in range(1, ws.n_heads + 1):
        name = f"HeadWalkthrough{head}"
        globals()[name] = type(name, (HeadWalkthrough,), {"head": head, "__module__": __name__,
                                                           "__doc__": HeadWalkthrough.__doc__})


_generate()
