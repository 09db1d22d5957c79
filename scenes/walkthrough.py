"""One head, step by step, for the final receiver: one scene per head of the worksheet.

``HeadWalkthrough1`` … ``HeadWalkthroughN`` are generated below from the worksheet's head
count; each only sets ``head``. The first head gets the full walk: the query beside every
key, each dot product with its coordinate factors, the scores as weight bars, every value
row shrinking by its weight and the rows adding up into the message. Each later head gets
a short recap beside the first head's numbers, unless ``$LECTURE_FULL_HEADS`` (``lecture
render --full-heads``) asks for the full walk for every head.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    AnimationGroup,
    Create,
    LaggedStart,
    Line,
    Mobject,
    MoveToTarget,
    Transform,
    VGroup,
    Write,
)

from scenes.kit import (
    INK,
    LectureScene,
    column_shifts,
    current_lesson,
    fade_in,
    fade_out,
    grow,
    shown_indices,
    vector,
)
from scenes.kit.palette import FAINT, MUTED

FULL_HEADS = "LECTURE_FULL_HEADS"
"""Set to ``1`` for the full walk on every head (the ``full_heads`` setting)."""
TABLE_WIDTH = 13.4
QUERY_Y = 2.78
HEADER_Y = 2.32
ROWS_TOP = 1.9
FOOT_Y = -2.42
"""The line under the rows: the sum of the exponentials, then the message."""
GAP = 0.5
LEAST_SIZE = 15.5
"""The smallest font size a header may shrink to (figures stay legible at 480p from 15)."""


def full_heads_requested() -> bool:
    """Whether ``$LECTURE_FULL_HEADS`` asks for the full walk on every head."""
    return os.environ.get(FULL_HEADS, "").strip().lower() in ("1", "true", "yes", "on")


class HeadWalkthrough(LectureScene):
    """One head for the final receiver: query and keys, dot products, scaling, weights as
    bars, values scaled by their weights and summed into the message (or, for later heads,
    a recap beside head one's weights and message)."""

    head = 1

    def setup(self) -> None:
        super().setup()
        self.options: dict[str, bool] = {}
        """The scene options this scene read, with the values it saw (its manifest
        records them, and they enter its cache key)."""

    def construct(self) -> None:
        name = self.ws.walkthrough
        self.p = f"{name}.h{self.head}"
        self.tokens = self.ws.sentences[name]
        self.last = len(self.tokens) - 1
        self.colour = self.head_colour(self.head)
        self.h_key = f"dims.head_numbers[{self.head - 1}]"
        rows = len(self.tokens)
        self.row_h = min(0.42, (ROWS_TOP - FOOT_Y - 0.5) / max(1, rows - 1))
        self.size = min(22.0, self.row_h * 52)
        self.ys = [ROWS_TOP - j * self.row_h for j in range(rows)]
        if self.head == 1 or self.read_full_heads():
            self.walk()
        else:
            self.recap()

    def read_full_heads(self) -> bool:
        """Read the ``full_heads`` option, recording it (it enters the cache key)."""
        self.options = {"full_heads": full_heads_requested()}
        return self.options["full_heads"]

    def manifest(self) -> dict[str, Any]:
        """The kit's manifest and the options this scene read."""
        return {**super().manifest(), "options": dict(self.options)}

    # ------------------------------------------------------------------ the full walk

    def walk(self) -> None:
        self.build_columns()
        self.section("query and keys")
        self.heading = self.title("Head {h}: the query meets every key", h=self.h_key)
        self.heading.set_color(self.colour)
        self.queries_and_keys()
        self.section("dot products")
        self.dot_products()
        self.section("scaling")
        self.scaling()
        self.section("exponentials")
        self.exponentials()
        self.section("weights")
        self.weights()
        self.section("values")
        self.values()
        self.section("contributions")
        self.contributions()
        self.section("message")
        self.message()

    def queries_and_keys(self) -> None:
        keys, query = self.columns["key"], self.columns["query"]
        self.switch(["word", "key", "query"], animate=False,
                    layout=self.wide if self.roomy else None)
        self.query = self.bound("query of “{r}”: ", self.size * self.scale, self.colour,
                                words={"r": self.tokens[self.last]})
        self.qvec = self.vec(f"{self.p}.Q[{self.last}]", self.size * self.scale, self.colour)
        self.qvec.move_to([query.get_center()[0], QUERY_Y, 0])
        self.query.next_to(self.qvec, LEFT, buff=0.1)
        self.query.align_to(self.qvec, DOWN)
        self.say("Head {h} gives every token a key.", Write(self.heading),
                 fade_in(self.columns["word"], keys.header),
                 LaggedStart(*map(fade_in, keys.cells), lag_ratio=0.15, run_time=2.5),
                 h=self.h_key)
        inner, slots = vector("q", f"{self.p}.Q[{self.last}]", self.width)
        self.say("The receiver, “{r}”, brings its query: q = " + inner + ".",
                 fade_in(self.query, self.qvec), self.point_at(self.query, self.qvec),
                 words={"r": self.tokens[self.last]}, **slots)
        for cell in query.cells:
            cell.generate_target()
            cell.move_to(self.qvec)
        self.say("The same query goes beside every key.", fade_in(query.header),
                 LaggedStart(*map(MoveToTarget, query.cells), lag_ratio=0.12,
                             run_time=2.5), self.unpoint())

    def dot_products(self) -> None:
        expr, dot = self.columns["expr"], self.columns["dot"]
        if self.roomy:
            self.switch(self.wide, bring=False)
        else:  # a wide head: the factors stand in for the key and query columns
            self.switch(["word", "expr", "dot"], bring=False)
        first = self.row_cells(0, "expr", "dot")
        terms, slots = self.terms(0)
        self.say("Multiply coordinate by coordinate, then add. For “{w}”: " + terms
                 + " = {d}.", fade_in(expr.header, dot.header),
                 LaggedStart(*(Write(cell) for cell in first), lag_ratio=0.8, run_time=5.0),
                 self.point_at(*self.row_cells(0, *self.visible[1:])),
                 words={"w": self.tokens[0]}, d=f"{self.p}.dots[0]", **slots)
        rest = [VGroup(*self.row_cells(j, "expr", "dot")) for j in range(1, len(self.tokens))]
        self.say("Every other key meets the same query: one dot product per token.",
                 LaggedStart(*map(fade_in, rest), lag_ratio=0.2, run_time=3.0),
                 self.unpoint())
        top = self.top_source()
        self.say("“{w}” scores highest, {d}.",
                 self.point_at(*self.row_cells(top, *self.visible)),
                 words={"w": self.tokens[top]}, d=f"{self.p}.dots[{top}]")

    def scaling(self) -> None:
        with self.silence("the query and the factors make way for the scores"):
            self.play(fade_out(self.query, self.qvec), self.unpoint(),
                      self.new_title("Head {h}: from scores to weights"), run_time=0.8)
            self.switch(["word", "dot", "score"], bring=False,
                        layout=["word", "dot", "score", "exp"])
        scores = self.columns["score"]
        self.say("Divide each dot product by √{d}, which is {r}, to keep the scores moderate.",
                 fade_in(scores.header), self.point_at(scores.header),
                 LaggedStart(*map(fade_in, scores.cells), lag_ratio=0.15, run_time=2.5),
                 d="dims.d_head", r="dims.sqrt_d_head")

    def exponentials(self) -> None:
        self.visible.append("exp")
        exps = self.columns["exp"]
        self.total = self.bound("sum = {t}", self.size * self.scale, INK, mono=True,
                                t=f"{self.p}.denominator")
        self.total.move_to([0, FOOT_Y, 0]).align_to(exps, RIGHT)
        self.line = Line(exps.get_corner(DOWN + LEFT), exps.get_corner(DOWN + RIGHT),
                         stroke_color=FAINT, stroke_width=2).shift(DOWN * 0.12)
        self.followers["exp"] = [self.total, self.line]
        self.say("Exponentials make every score positive; together they add up to {t}.",
                 fade_in(exps),
                 LaggedStart(Create(self.line), fade_in(self.total), lag_ratio=0.5,
                             run_time=2.0), self.point_at(self.total),
                 t=f"{self.p}.denominator")

    def weights(self) -> None:
        self.switch(["word", "exp", "weight"], bring=False)
        bars = self.columns["weight"]
        one = self.bound("sum = {one}", self.size * self.scale, INK, mono=True,
                         one=f"{self.p}.weights_sum")
        one.move_to([0, FOOT_Y, 0]).align_to(bars, LEFT)
        self.followers["weight"] = [one]
        self.say("Each exponential divided by {t} is a weight, drawn as a bar.",
                 fade_in(bars.header), self.point_at(self.total),
                 LaggedStart(*(grow(cell) for cell in bars.cells), lag_ratio=0.15,
                             run_time=3.0), t=f"{self.p}.denominator")
        self.say("The weights sum to {one}.", fade_in(one), self.point_at(*bars.cells, one),
                 one=f"{self.p}.weights_sum")
        top = self.top_source()
        self.say("“{w}” gets the longest bar, {x}.",
                 self.point_at(*self.row_cells(top, "word", "weight")),
                 words={"w": self.tokens[top]}, x=f"{self.p}.weights[{top}]")

    def values(self) -> None:
        with self.silence("the exponentials leave; the bars stay"):
            self.play(fade_out(self.total, self.line), self.unpoint(),
                      self.new_title("Head {h}: mixing the values"), run_time=0.8)
            self.followers.pop("exp")
            self.switch(["word", "weight", "value"], bring=False,
                        layout=["word", "weight", "value", "contribution"])
        values = self.columns["value"]
        self.say("Each token also offers a value row: the content that gets mixed.",
                 fade_in(values.header),
                 LaggedStart(*map(fade_in, values.cells), lag_ratio=0.15, run_time=2.5))

    def contributions(self) -> None:
        self.visible.append("contribution")
        parts = self.columns["contribution"]
        top = self.top_source()
        inner_v, keys_v = vector("v", f"{self.p}.V[{top}]", self.width)
        inner_c, keys_c = vector("c", f"{self.p}.contributions[{top}]", self.width)
        weight, value, part = self.row_cells(top, "weight", "value", "contribution")
        self.say("The weight scales the whole value row: “{w}” keeps {x} of its row.",
                 fade_in(parts.header),
                 LaggedStart(self.point_at(weight), AnimationGroup(
                     self.point_at(value, part), self.shrink(top)), lag_ratio=1.0,
                     run_time=3.5), words={"w": self.tokens[top]},
                 x=f"{self.p}.weights[{top}]")
        ghost = self.ghosts.pop()
        # The pointer follows the voice: the weight, the value row, then the product.
        self.say("In numbers: {x} × " + inner_v + " = " + inner_c + ".",
                 LaggedStart(self.point_at(weight), self.point_at(value), AnimationGroup(
                     fade_out(ghost), self.point_at(part), Write(part)), lag_ratio=1.0,
                     run_time=7.0), x=f"{self.p}.weights[{top}]", **keys_v, **keys_c)
        rest = [j for j in range(len(self.tokens)) if j != top]
        self.say("Every other row shrinks by its own weight: a small weight pulls it close "
                 "to zero.", LaggedStart(*map(self.shrink, rest), lag_ratio=0.15,
                                         run_time=3.5), self.unpoint())
        self.say("Written out, each shrunken row is its weight times its value.",
                 fade_out(*self.ghosts), LaggedStart(*(fade_in(parts.cells[j]) for j in rest),
                                                     lag_ratio=0.1, run_time=2.0))

    def message(self) -> None:
        parts = self.columns["contribution"]
        total = self.vec(f"{self.p}.message", self.size * self.scale, self.colour,
                         template="message = {v}")
        total.move_to([0, FOOT_Y, 0]).align_to(parts, RIGHT)
        line = Line(parts.get_corner(DOWN + LEFT), parts.get_corner(DOWN + RIGHT),
                    stroke_color=FAINT, stroke_width=2).shift(DOWN * 0.12)
        ghosts = [cell.copy() for cell in parts.cells]
        target = total[len("message = "):]
        gather = [Transform(ghost, target.copy().set_opacity(0)) for ghost in ghosts]
        self.say("Add the weighted rows coordinate by coordinate.", Create(line),
                 LaggedStart(AnimationGroup(*gather, run_time=2.0), fade_in(total),
                             lag_ratio=0.6, run_time=3.0))
        self.remove(*ghosts)
        inner, keys = vector("m", f"{self.p}.message", self.width)
        self.say("That sum, " + inner + ", is head {h}'s message for “{r}”.",
                 self.point_at(total), h=self.h_key, words={"r": self.tokens[self.last]},
                 **keys)
        self.wait(0.5)

    # ------------------------------------------------------------------ the recap

    def recap(self) -> None:
        """Head one's weights and message, and this head's beside them."""
        ones = f"{self.ws.walkthrough}.h1"
        size = self.size
        words = self.column([self.word(t, size) for t in self.tokens], RIGHT)
        mine = self.bar_column(self.head_label(self.head, size), self.p, self.colour)
        first = self.bar_column(self.head_label(1, size), ones, self.head_colour(1))
        table = [words, first, mine]
        scale = min(1.0, TABLE_WIDTH / (sum(c.width for c in table) + 4 * GAP))
        for column in table:
            column.scale(scale, about_point=[0, HEADER_Y, 0])
        for column, shift in zip(table, column_shifts(table, 0, 2 * GAP), strict=True):
            column.shift(RIGHT * shift)
        VGroup(*table).set_x(0)
        messages = [self.vec(f"{key}.message", size * scale, colour)
                    for key, colour in ((ones, self.head_colour(1)), (self.p, self.colour))]
        for text, column in zip(messages, (first, mine), strict=True):
            text.move_to([column.get_center()[0], FOOT_Y, 0])
        label = self.label("message", size * scale, MUTED)
        label.move_to([0, FOOT_Y, 0]).align_to(words, RIGHT).align_to(messages[0], DOWN)
        self.section("recap weights")
        heading = self.title("Head {h}, beside head {g}", h=self.h_key,
                             g="dims.head_numbers[0]")
        heading.set_color(self.colour)
        self.say("Head {h} takes the same steps as head {g}, with its own queries, keys and "
                 "values.", Write(heading), fade_in(words, first.header, mine.header),
                 LaggedStart(*(grow(cell) for cell in first.cells), lag_ratio=0.1,
                             run_time=2.5), h=self.h_key, g="dims.head_numbers[0]")
        top = self.v.value(f"{self.p}.top_source")
        self.say("Head {h}'s own weights appear next to them; its largest, {x}, goes to "
                 "“{w}”.",
                 LaggedStart(*(grow(cell) for cell in mine.cells), lag_ratio=0.1,
                             run_time=2.5), self.point_at(words.cells[top], mine.cells[top]),
                 h=self.h_key, words={"w": self.tokens[top]},
                 x=f"{self.p}.weights[{top}]")
        lead = self.v.value(f"{ones}.top_source")
        self.say("Head {g} gave its largest weight, {y}, to “{u}”.",
                 self.point_at(words.cells[lead], first.cells[lead]),
                 g="dims.head_numbers[0]", words={"u": self.tokens[lead]},
                 y=f"{ones}.weights[{lead}]")
        self.section("recap message")
        inner, keys = vector("m", f"{self.p}.message", len(self.v.value(f"{self.p}.message")))
        self.say("Mixed by these weights, its values give the message " + inner + ".",
                 fade_in(label, *messages), self.point_at(messages[1]), **keys)
        self.wait(0.5)

    def bar_column(self, header: Mobject, prefix: str, colour: str) -> VGroup:
        """Weight bars of one head, a bar's length its weight, the number at its end."""
        return self.column([self.bar(prefix, j, colour, self.size)
                            for j in range(len(self.tokens))], LEFT, header)

    # ------------------------------------------------------------------ building blocks

    def build_columns(self) -> None:
        """Every column of the walk, scaled once so the widest step fits the frame."""
        size, p, last = self.size, self.p, self.last
        self.width = len(self.v.value(f"{p}.Q[{last}]"))

        def header(text: str) -> Mobject:
            return self.label(text, size * 0.8, MUTED)

        makers: dict[str, tuple[Mobject, Callable[[int], Mobject], Any]] = {
            "word": (header("token"), lambda j: self.word(self.tokens[j], size), RIGHT),
            "key": (header("key"), lambda j: self.vec(f"{p}.K[{j}]", size), RIGHT),
            "query": (header("query"),
                      lambda j: self.vec(f"{p}.Q[{last}]", size, self.colour), LEFT),
            "expr": (header("query × key"),
                     lambda j: self.bound(self.terms(j)[0], size, mono=True,
                                          **self.terms(j)[1]), RIGHT),
            "dot": (header("dot"), lambda j: self.bound("= {d}", size, mono=True,
                                                        d=f"{p}.dots[{j}]"), RIGHT),
            "score": (self.bound("÷ √{d} = {r}", size * 0.8, MUTED, d="dims.d_head",
                                 r="dims.sqrt_d_head"),
                      lambda j: self.num(f"{p}.scores[{j}]", size), RIGHT),
            "exp": (header("exp(score)"), lambda j: self.num(f"{p}.exps[{j}]", size), RIGHT),
            "weight": (header("weight"), lambda j: self.bar(p, j, self.colour, size), LEFT),
            "value": (header("value row"), lambda j: self.vec(f"{p}.V[{j}]", size), RIGHT),
            "contribution": (header("weight × value"),
                             lambda j: self.vec(f"{p}.contributions[{j}]", size), RIGHT),
        }
        self.columns = {name: self.column([cell(j) for j in range(len(self.tokens))], side,
                                          head)
                        for name, (head, cell, side) in makers.items()}
        wide = self.wide = ["word", "key", "query", "expr", "dot"]
        steps = [["word", "key", "query"], ["word", "expr", "dot"],
                 ["word", "dot", "score", "exp"], ["word", "exp", "weight"],
                 ["word", "weight", "value", "contribution"]]
        self.roomy = self.natural(wide) <= TABLE_WIDTH
        if self.roomy:
            steps.append(wide)
        self.scale = min(1.0, *(TABLE_WIDTH / self.natural(step) for step in steps))
        for column, (_, _, side) in zip(self.columns.values(), makers.values(), strict=True):
            column.scale(self.scale, about_point=[0, HEADER_Y, 0])
            if column.header.font_size < LEAST_SIZE:  # headers stay legible in a tight table
                column.header.scale(LEAST_SIZE / column.header.font_size, about_edge=side)
        self.visible: list[str] = []
        self.ghosts: list[Mobject] = []
        self.followers: dict[str, list[Mobject]] = {}
        """What moves with a column when it slides (a sum written under it)."""

    def natural(self, names: Sequence[str]) -> float:
        return sum(self.columns[n].width for n in names) + GAP * (len(names) - 1)

    def column(self, cells: Sequence[Mobject], side: Any, header: Mobject | None = None
               ) -> VGroup:
        """Cells at the row heights, aligned on ``side`` (RIGHT for numbers, LEFT for bars),
        under an optional header."""
        for cell, y in zip(cells, self.ys, strict=True):
            cell.move_to([0, y, 0]).align_to([0, 0, 0], side)
        parts = list(cells)
        if header is not None:
            header.move_to([0, HEADER_Y, 0]).align_to([0, 0, 0], side)
            parts.insert(0, header)
        column = VGroup(*parts)
        column.cells = list(cells)
        column.header = header
        return column

    def bar(self, prefix: str, j: int, colour: str, size: float) -> VGroup:
        """A bar as long as weight ``j`` of ``prefix``, its number after it."""
        return self.weight_bar(f"{prefix}.weights[{j}]", colour, size, self.row_h * 0.55)

    def terms(self, j: int) -> tuple[str, dict[str, str]]:
        """``{q0}×{k0} + {q1}×{k1} …`` for row ``j``, elided as long rows are."""
        parts, slots = [], {}
        for i in shown_indices(self.width):
            if i is None:
                parts.append("…")
                continue
            slots[f"q{i}"] = f"{self.p}.Q[{self.last}][{i}]"
            slots[f"k{i}"] = f"{self.p}.K[{j}][{i}]"
            parts.append("{" + f"q{i}" + "}×{" + f"k{i}" + "}")
        return " + ".join(parts), slots

    def top_source(self) -> int:
        return int(self.v.value(f"{self.p}.top_source"))

    def row_cells(self, j: int, *names: str) -> list[Mobject]:
        return [self.columns[n].cells[j] for n in names]

    def shrink(self, j: int) -> Transform:
        """A copy of value row ``j`` moves to its contribution's place, scaled by its
        weight: the picture of ``weight × value`` before its numbers are written out."""
        value = self.columns["value"].cells[j]
        part = self.columns["contribution"].cells[j]
        ghost = value.copy()
        self.ghosts.append(ghost)
        weight = float(self.v.value(f"{self.p}.weights[{j}]"))
        target = value.copy().scale(max(0.06, weight)).move_to(part)
        return Transform(ghost, target, run_time=1.6)

    # ------------------------------------------------------------------ moving columns

    def arrange(self, names: Sequence[str]) -> None:
        """Set columns side by side, the table centred in the frame."""
        columns = [self.columns[n] for n in names]
        left = max(-TABLE_WIDTH / 2, -self.natural(names) / 2)
        for column, shift in zip(columns, column_shifts(columns, left, GAP), strict=True):
            column.shift(RIGHT * shift)

    def new_title(self, text: str) -> Any:
        """The heading for a new topic, in the head's colour."""
        change = self.retitle(self.heading, text, h=self.h_key)
        self.heading = self._heading
        self.heading.set_color(self.colour)
        return change

    def switch(self, names: list[str], animate: bool = True, bring: bool = True,
               layout: list[str] | None = None) -> None:
        """From the visible columns to ``names``, placed as in ``layout`` (the next steps'
        columns, so they need not slide again): leaving ones fade, kept ones slide; new
        ones fade in (``bring``) or are left for the next step to reveal."""
        layout = layout or names
        if not animate:
            self.arrange(layout)
            self.visible = list(names)
            return
        leaving = [self.columns[n] for n in self.visible if n not in names]
        kept = [n for n in names if n in self.visible]
        before = {n: self.columns[n].get_left()[0] for n in kept}
        self.arrange(layout)
        moves = []
        for n in kept:
            target = self.columns[n].get_left()[0]
            self.columns[n].shift(RIGHT * (before[n] - target))
            if abs(target - before[n]) > 1e-3:
                moving = VGroup(self.columns[n], *self.followers.get(n, []))
                moves.append(moving.animate.shift(RIGHT * (target - before[n])))
        arriving = [self.columns[n] for n in names if n not in self.visible] if bring else []
        self.visible = list(names)
        pointer = self.unpoint()
        steps = [([fade_out(*leaving)] if leaving else []) + ([pointer] if pointer else []),
                 moves, [fade_in(*arriving)] if arriving else []]
        if not any(steps):
            return
        with self.silence("the table trades columns for the next step"):
            for step, run_time in zip(steps, (0.6, 0.8, 0.8), strict=True):
                if step:
                    self.play(*step, run_time=run_time)



def _generate() -> None:
    """One scene class per head of the current worksheet."""
    ws, _ = current_lesson()
    for head in range(1, ws.n_heads + 1):
        name = f"HeadWalkthrough{head}"
        globals()[name] = type(name, (HeadWalkthrough,), {"head": head, "__module__": __name__,
                                                           "__doc__": HeadWalkthrough.__doc__})


_generate()
