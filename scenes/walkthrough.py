"""One head, step by step, for the final receiver: one scene per head of the worksheet.

``HeadWalkthrough1`` … ``HeadWalkthroughN`` are generated below from the worksheet's head
count; each only sets ``head``. The first head gets the full walk: the query beside every
key, each dot product with its coordinate factors, the scores as weight bars, every value
row shrinking by its weight and the rows adding up into the message. Each later head gets
a short recap of the same computation, in under forty seconds: the pictures show each step
(its query beside its keys, one score worked out, the sum of the exponentials, its top
weight as a division, its weights as bars beside the first head's, its value rows scaled
by its weights and added into its message, then both messages side by side) and the voice
names only each step's result, unless ``$LECTURE_FULL_HEADS`` (``lecture render
--full-heads``) asks for the full walk for every head.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    LaggedStart,
    Line,
    Mobject,
    SurroundingRectangle,
    Transform,
    VGroup,
    Write,
)

from scenes.kit import (
    INK,
    Bound,
    Fade,
    LectureScene,
    cued,
    current_lesson,
    fade_in,
    fade_out,
    fill,
    fit,
    grow,
    joined,
    on_baseline,
    panel,
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
POSITION_GAP = 0.3
"""From a row's position number to the widest token, at a font size of 22."""
LEAST_SIZE = 20.0
"""The smallest font size of any text that holds a figure: a lone digit then stands 12 px
tall at 480p, 2.5% of the frame, legible from the back of a lecture hall. Columns that
would need less are split across steps instead."""
RECAP_LAST_ROW = -1.4
"""Where the recap's rows end: three lines go under them."""
SUM_Y = -1.84
"""The recap's first line under the rows: the sum of the exponentials, then the message
written as its largest weighted value rows."""
LINE_GAP = 0.5
"""From the last row to the line under it."""
NOTE_GAP = 0.35
"""From the recap's sum line to the note under it, and from the note to the message."""
ORDINALS = ("first", "second", "third", "fourth")
"""How the voice names the coordinates of a row it adds column by column (an elided row's
last is "last")."""
TERMS = 2
"""How many of the largest weighted value rows the recap writes out in the message's sum."""
WEIGHTS_STEP = ["exp", "weight", "first"]
"""The recap's columns as the weights are made: the exponentials, then this head's weights
made from them, then head one's for comparison (last, so no column sits between a head's
exponentials and its weights)."""
MESSAGE_STEP = ["weight", "value", "contribution"]
"""The recap's columns as the message is made: this head's weights, value rows and their
products (head one's weights have left: beside the products they would read as one of
them)."""
ROW_BUFF = (0.16, 0.06)
"""The room an outline round a whole row of cells keeps from its first and last glyphs."""
TIGHT_BUFF = 0.05
"""The room an outline round one row keeps from its text: clear of the next rows however
tight they stand."""
COLUMN_BUFF = (0.16, 0.06)
"""The room an outline round a whole column of rows keeps from their brackets (across) and
from the header above (up)."""


def full_heads_requested() -> bool:
    """Whether ``$LECTURE_FULL_HEADS`` asks for the full walk on every head."""
    return os.environ.get(FULL_HEADS, "").strip().lower() in ("1", "true", "yes", "on")


class HeadWalkthrough(LectureScene):
    """One head for the final receiver: query and keys, dot products, scaling, weights as
    bars, values scaled by their weights and summed into the message (or, for later heads,
    the same steps in brief, their weights beside head one's)."""

    head = 1

    @property
    def map_heads(self) -> tuple[int, ...]:
        """The opening map lights only this head: the part is inside a single head."""
        return (self.head,)

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
        self.width = len(self.v.value(f"{self.p}.Q[{self.last}]"))
        full = self.head == 1 or self.read_full_heads()
        rows = len(self.tokens)
        bottom = FOOT_Y + 0.5 if full else RECAP_LAST_ROW
        self.row_h = min(0.42, (ROWS_TOP - bottom) / max(1, rows - 1))
        self.size = max(LEAST_SIZE, min(22.0, self.row_h * 52))
        self.ys = [ROWS_TOP - j * self.row_h for j in range(rows)]
        # The lines under the rows follow a short table up.
        self.foot_y = max(FOOT_Y, self.ys[-1] - LINE_GAP)
        self.sum_y = max(SUM_Y, self.ys[-1] - LINE_GAP)
        self.note_y = self.sum_y - NOTE_GAP
        self.message_y = self.note_y - NOTE_GAP
        self.visible: list[str] = []
        self.followers: dict[str, list[Mobject]] = {}
        """What moves with a column when it slides (a sum written under it)."""
        self.shifts: dict[str, float] = {}
        """How far each column kept by the last :meth:`reflow` slides."""
        if full:
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
        self.section("dividing")
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
        words, mine = self.columns["word"], query.cells[self.last]
        # A fade, not a stroke: a title being written shows its letters doubled.
        self.say("Head {h} gives every token a key.", fade_in(self.heading),
                 fade_in(words),
                 LaggedStart(fade_in(keys.header), *map(fade_in, keys.cells), lag_ratio=0.15,
                             run_time=2.5),
                 h=self.h_key)
        # The receiver's own query stands in its row, and once above its column, which
        # names whose it is; the other rows get copies of it.
        inner, slots = vector("q", f"{self.p}.Q[{self.last}]", self.width)
        self.qline = self.vec(f"{self.p}.Q[{self.last}]", self.size * self.scale, self.colour,
                              template="q = {v}")
        self.qline.move_to([0, QUERY_Y, 0]).align_to(query.header, LEFT)
        self.followers["query"] = [self.qline]
        self.say("The receiver is “{r}” at position {n}, the last row; its query is q = "
                 + inner + ".", fade_in(query.header, mine, self.qline),
                 self.point_at(VGroup(*self.row_cells(self.last, "word", "key", "query")),
                               query.header, each=True, buff=TIGHT_BUFF),
                 words={"r": self.tokens[self.last]}, n=f"dims.positions[{self.last}]",
                 **slots)
        others = [cell for j, cell in enumerate(query.cells) if j != self.last]
        column = self.point_at(*query.cells, buff=COLUMN_BUFF)  # where the copies will stand
        # Each copy fades in at its row, from the receiver's row upward: copies sliding up
        # the column would pile over one another.
        self.say("The same query goes beside every key.",
                 LaggedStart(*map(fade_in, reversed(others)), lag_ratio=0.12, run_time=2.5),
                 column)

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
                 LaggedStart(*(Write(cell) for cell in first), lag_ratio=0.8, run_time=3.6),
                 self.point_at(*self.row_cells(0, *self.visible[1:]), buff=ROW_BUFF),
                 words={"w": self.tokens[0]}, d=f"{self.p}.dots[0]", **slots)
        rest = [VGroup(*self.row_cells(j, "expr", "dot")) for j in range(1, len(self.tokens))]
        self.say("Every other key meets the same query: one dot product per token.",
                 LaggedStart(*map(fade_in, rest), lag_ratio=0.2, run_time=3.0),
                 self.unpoint())
        top = self.top_source()
        self.say("“{w}” has the largest dot product, {d}.",
                 self.point_at(*self.row_cells(top, *self.visible)),
                 words={"w": self.tokens[top]}, d=f"{self.p}.dots[{top}]")

    def scaling(self) -> None:
        top = self.top_source()
        # One source's dot at this width and at the joined width of every head, beside
        # the scores (where the exponentials come next), when there is a wider key.
        self.why = self.wider_key() if self.ws.n_heads > 1 else None
        layout = ["word", "dot", "score", "why" if self.why is not None else "exp"]
        if self.why is not None:
            self.least["why"] = self.why.width
        with self.silence("the query and the factors make way for the scores"):
            self.play(self.unpoint(), self.new_title("Head {h}: from scores to weights"),
                      fade_out(self.qline), run_time=0.8)
            self.followers.pop("query")
            self.switch(["word", "dot", "score"], bring=False, layout=layout)
        scores = self.columns["score"]
        # One score worked out under the rows: the top row's dot divided by √d.
        self.scaled = self.bound("{x} ÷ √{d} = {x} ÷ {r} = {s}", self.size * self.scale, INK,
                                 mono=True, x=f"{self.p}.dots[{top}]", d="dims.d_head",
                                 r="dims.sqrt_d_head", s=f"{self.p}.scores[{top}]")
        self.scaled.move_to([0, self.foot_y, 0]).align_to(scores, RIGHT)
        said = "Each score is its dot product divided by √{d}, which is {r}: for “{w}”, " \
            "{x} ÷ {r} = {s}."
        self.voiced(said, [
            ("divided", self.point_at(scores.header)),
            ("“{w}”", AnimationGroup(fade_in(self.scaled), self.point_at(
                VGroup(*self.row_cells(top, "word", "dot", "score")), self.scaled,
                each=True)))],
            opening=[fade_in(scores.header), LaggedStart(*map(fade_in, scores.cells),
                                                         lag_ratio=0.15, run_time=2.5)],
            step=0.8, d="dims.d_head", r="dims.sqrt_d_head", words={"w": self.tokens[top]},
            x=f"{self.p}.dots[{top}]", s=f"{self.p}.scores[{top}]")
        if self.why is None:
            said = "Why √{d}? The key width is {d}: a wider key adds up more products, " \
                "and dividing by the square root of the width keeps scores from growing " \
                "with it."
            self.voiced(said, [
                ("Why", self.point_at(scores.header)),
                ("more products", self.point_at(self.columns["dot"].cells[top])),
                ("dividing", self.point_at(*self.row_cells(top, "dot", "score"),
                                           buff=TIGHT_BUFF))], step=0.8, d="dims.d_head")
            return
        self.compare_widths()

    def wider_key(self) -> VGroup:
        """A card beside the scores: one source's products added at this head's key width,
        then at the width of every head's keys joined, each sum divided by the square root
        of its width. Its ``narrow`` and ``wide`` are the two halves, ``wide_sum`` the wide
        dot and ``wide_score`` its score."""
        name = self.ws.walkthrough
        j = int(self.v.value(f"{name}.wide.top_source"))
        size = self.size * self.scale
        halves = []
        for prefix, width_key in ((self.p, "dims.d_head"), (f"{name}.wide", "dims.joined")):
            width = len(self.v.value(f"{prefix}.products[{j}]"))
            inner, keys = joined("p", f"{prefix}.products[{j}]", width, " + ")
            head = self.bound("key width {n}:" if prefix == self.p else
                              "key width {n}, more features:", self.note_size, MUTED,
                              n=width_key)
            # The products, their sum, then the division: two equations, never a chain,
            # each result named (the dot at one width may show the digits of the score at
            # the other), the root written as the root of the width.
            added = self.bound(inner, size, INK, mono=True, **keys)
            total = self.bound("dot = {x}", size, INK, mono=True, x=f"{prefix}.dots[{j}]")
            divided = self.bound("score = {x} ÷ √{n} = {s}", size, INK, mono=True,
                                 x=f"{prefix}.dots[{j}]", n=width_key,
                                 s=f"{prefix}.scores[{j}]")
            half = VGroup(head, added, total, divided).arrange(DOWN, aligned_edge=LEFT,
                                                                buff=self.row_h * 0.3)
            half.sum, half.score = total.figures_span(0, 0), divided.figures_span(2, 2)
            halves.append(half)
        card_parts = list(halves)
        growth = None
        if min(self.v.value(f"{name}.wide.dot_growth"),
               self.v.value(f"{name}.wide.score_growth")) > 1:
            # How many times the wider key's dot product and score exceed this one's.
            dot = self.bound("dot   ×{g}", size, INK, mono=True,
                             g=f"{name}.wide.dot_growth")
            score = self.bound("score ×{k}", size, INK, mono=True,
                               k=f"{name}.wide.score_growth")
            growth = VGroup(dot, score).arrange(DOWN, aligned_edge=LEFT, buff=self.row_h * 0.3)
            growth.dot, growth.score = dot, score
            card_parts.append(growth)
        body = VGroup(*card_parts).arrange(DOWN, aligned_edge=LEFT, buff=self.row_h * 0.9)
        card = panel(body, FAINT, buff=0.2, stroke=1.5)
        card.narrow, card.wide = halves
        card.growth = growth
        card.source = j
        card.move_to([0, (ROWS_TOP + self.ys[-1]) / 2, 0])
        card.shift(DOWN * max(0.0, card.get_top()[1] - HEADER_Y - 0.2))  # clear of the title
        return card

    def compare_widths(self) -> None:
        """Why √d, from numbers: a wider key adds more products into a larger dot, and the
        square root of the width holds its score back."""
        card, j = self.why, self.why.source
        card.align_to([self.lefts["why"], 0, 0], LEFT)
        name = self.ws.walkthrough
        said = "Why √{d}? The key width is {d}, and a wider key adds more products: at " \
            "width {n}, “{u}” would get {y} rather than {x}."
        self.voiced(said, [
            ("{d},", self.point_at(card.narrow.sum, self.columns["dot"].cells[j], each=True)),
            ("{n}", AnimationGroup(fade_in(card.wide), self.point_at(card.wide.sum)))],
            opening=[fade_in(card[0], card.narrow)], step=0.8,
            d="dims.d_head", n="dims.joined", words={"u": self.tokens[j]},
            y=f"{name}.wide.dots[{j}]", x=f"{self.p}.dots[{j}]")
        if card.growth is None:
            said = "Dividing by the square root of the width holds the score back: {y} ÷ " \
                "√{n} = {s}."
            self.voiced(said, [("{s}", self.point_at(card.wide.score))], step=0.8,
                        y=f"{name}.wide.dots[{j}]", n="dims.joined",
                        s=f"{name}.wide.scores[{j}]")
            return
        said = "Undivided, the score would grow {g} times, as the dot product does; divided " \
            "by the square root of the width, it grows only {k} times, from {a} to {s}."
        self.voiced(said, [
            ("{g}", AnimationGroup(fade_in(card.growth[0]), self.point_at(
                card.narrow.sum, card.wide.sum, card.growth.dot, each=True))),
            ("{k}", AnimationGroup(fade_in(card.growth[1]), self.point_at(
                card.growth.score, each=True))),
            ("{a}", self.point_at(card.narrow.score, card.wide.score, card.growth.score,
                                  each=True))], step=0.8,
            g=f"{name}.wide.dot_growth", k=f"{name}.wide.score_growth",
            a=f"{self.p}.scores[{j}]", s=f"{name}.wide.scores[{j}]")
        self.say("That matters: the weights come from exponentials of the scores, so very "
                 "large scores would give nearly all the weight to one token.",
                 self.point_at(card.growth.score))

    def exponentials(self) -> None:
        if self.why is not None:  # the card gives way to the exponentials' column
            with self.silence("the width comparison leaves"):
                self.play(fade_out(self.why, self.scaled), *optional(self.unpoint()),
                          run_time=0.6)
            self.switch(["word", "dot", "score"], bring=False,
                        layout=["word", "dot", "score", "exp"])
        self.visible.append("exp")
        exps, scores = self.columns["exp"], self.columns["score"]
        first, second = (int(j) for j in self.v.value(f"{self.p}.order")[:2])
        self.total = self.bound("sum = {t}", self.size * self.scale, INK, mono=True,
                                t=f"{self.p}.denominator")
        self.total.move_to([0, self.foot_y, 0]).align_to(exps, RIGHT)
        self.line = Line(exps.get_corner(DOWN + LEFT), exps.get_corner(DOWN + RIGHT),
                         stroke_color=FAINT, stroke_width=2).shift(DOWN * 0.12)
        self.followers["exp"] = [self.total, self.line]
        keys = {"a": f"{self.p}.scores[{first}]", "b": f"{self.p}.scores[{second}]",
                "x": f"{self.p}.exps[{first}]", "y": f"{self.p}.exps[{second}]"}
        opening = [fade_in(exps), *([fade_out(self.scaled)] if self.why is None else [])]
        gaps: list[Mobject] = []
        if self.v.value(f"{self.p}.score_gap") > 0:
            # The gap as a ratio under each column: the largest over the second largest.
            size = self.size * self.scale
            gaps = [self.bound("×{g}", size, INK, mono=True, g=f"{self.p}.score_gap"),
                    self.bound("×{g}", size, INK, mono=True, g=f"{self.p}.exp_gap")]
            for gap, column in zip(gaps, (scores, exps), strict=True):
                gap.move_to([0, self.foot_y, 0]).align_to(column, RIGHT)
            # The ratios are labelled as the top source over the second, on their left: a
            # ratio, not a column's total.
            pair = self.bound("{u} ÷ {w}", self.note_size, MUTED,
                              words={"u": self.tokens[first], "w": self.tokens[second]})
            pair.next_to(gaps[0], LEFT, buff=0.35).align_to(gaps[0], DOWN)
            gaps.insert(0, pair)
            said = "The exponential widens the gaps: the top scores, {a} and {b}, differ by " \
                "a factor of {r}; their exponentials, {x} and {y}, by a factor of {e}."
            # Each pair outlined as the voice reads it, then the ratio it makes.
            self.voiced(said, [
                ("{a}", self.point_at(scores.cells[first], scores.cells[second], each=True)),
                ("{r}", AnimationGroup(fade_in(*gaps[:2]), self.point_at(
                    pair, gaps[1], each=True))),
                ("{x}", self.point_at(exps.cells[first], exps.cells[second], each=True)),
                ("{e}", AnimationGroup(fade_in(gaps[2]), self.point_at(
                    pair, gaps[1], gaps[2], each=True)))],
                opening=opening, step=0.8, r=f"{self.p}.score_gap",
                e=f"{self.p}.exp_gap", **keys)
        else:
            said = "The exponential widens the gaps: the top scores, {a} and {b}, become " \
                "{x} and {y}."
            self.voiced(said, [
                ("{a}", self.point_at(scores.cells[first], scores.cells[second], each=True)),
                ("{x}", self.point_at(exps.cells[first], exps.cells[second], each=True))],
                opening=opening, step=0.8, **keys)
        self.section("exponentials' sum")
        self.say("Together the exponentials add up to {t}.",
                 *([fade_out(*gaps)] if gaps else []),
                 LaggedStart(Create(self.line), fade_in(self.total), lag_ratio=0.5,
                             run_time=2.0), self.point_at(self.total),
                 t=f"{self.p}.denominator")

    def weights(self) -> None:
        self.switch(["word", "exp", "weight"], bring=False)
        bars, exps = self.columns["weight"], self.columns["exp"]
        top = self.top_source()
        self.one = self.bound("sum = {one}", self.size * self.scale, INK, mono=True,
                              one=f"{self.p}.weights_sum")
        self.followers["weight"] = [self.one]
        self.say("Each exponential divided by {t} is a weight, drawn as a bar.",
                 fade_in(bars.header), self.point_at(self.total),
                 LaggedStart(*(grow(cell) for cell in bars.cells), lag_ratio=0.15,
                             run_time=3.0), t=f"{self.p}.denominator")
        division = self.bound("{e} ÷ {t} = {w}", self.size * self.scale, INK, mono=True,
                              e=f"{self.p}.exps[{top}]", t=f"{self.p}.denominator",
                              w=f"{self.p}.weights[{top}]")
        for glyph in division.figure_glyphs(2):
            glyph.set_fill(self.colour)  # the weight, as its bar's number shows it
        # Under the bars, where the weights' sum comes next.
        division.move_to([0, self.foot_y, 0]).align_to(bars, LEFT)
        self.one.move_to([0, self.foot_y, 0]).align_to(bars, LEFT)
        said = "For “{r}”: {e} ÷ {t} = {w}."
        self.voiced(said, [
            ("{e}", self.point_at(exps.cells[top], division.figures_span(0, 0), each=True)),
            ("{t}", self.point_at(self.total, division.figures_span(1, 1), each=True)),
            ("{w}", self.point_at(bars.cells[top], division.figures_span(2, 2), each=True))],
            opening=[fade_in(division)], step=0.8,
            words={"r": self.tokens[top]}, e=f"{self.p}.exps[{top}]",
            t=f"{self.p}.denominator", w=f"{self.p}.weights[{top}]")
        self.section("weights")
        self.say("The bars show rounded weights; unrounded, they sum to {one}.",
                 Fade(division, appear=False, run_time=0.6), fade_in(self.one),
                 self.point_at(VGroup(*bars.cells), self.one, each=True),
                 one=f"{self.p}.weights_sum")
        self.softmax = self.step_name("softmax", exps, bars)
        said = "Exponentials divided by their sum: this step is the softmax."
        headers = self.point_at(exps.header, bars.header, each=True)  # before the name's
        self.voiced(said, [
            ("softmax", AnimationGroup(fade_in(self.softmax), self.point_at(self.softmax)))],
            opening=[headers], step=0.8)
        self.say("“{w}” gets the longest bar, {x}.",
                 self.point_at(*self.row_cells(top, "word", "weight")),
                 words={"w": self.tokens[top]}, x=f"{self.p}.weights[{top}]")

    def step_name(self, name: str, first: VGroup, last: VGroup) -> VGroup:
        """A step's name over the columns it spans, above their headers, a line under it
        from the first column's left to the last one's right."""
        label = self.label(name, self.note_size, INK)
        left, right = first.get_left()[0], last.get_right()[0]
        rule = Line([left, HEADER_Y + 0.25, 0], [right, HEADER_Y + 0.25, 0],
                    stroke_color=FAINT, stroke_width=2)
        label.move_to([(left + right) / 2, QUERY_Y, 0])
        return VGroup(label, rule)

    def values(self) -> None:
        with self.silence("the exponentials leave; the bars stay"):
            self.play(fade_out(self.total, self.line, self.one, self.softmax), self.unpoint(),
                      self.new_title("Head {h}: mixing the values"), run_time=0.8)
            self.followers.pop("exp")
            self.followers.pop("weight")
            self.switch(["word", "weight", "value"], bring=False,
                        layout=["word", "weight", "value", "contribution"])
        values = self.columns["value"]
        self.say("Each token also offers a value row: the content that gets mixed.",
                 fade_in(values.header),
                 LaggedStart(*map(fade_in, values.cells), lag_ratio=0.15, run_time=2.5))
        self.note = None
        if self.v.value(f"params.h{self.head}.V_is_K"):
            self.note = self.label("chosen by hand: here W_V has the same entries as W_K",
                                   self.note_size, MUTED)
            self.note.move_to([0, self.foot_y, 0]).align_to(values, RIGHT)
            self.note.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - self.note.get_left()[0]))
            self.say("In this hand-made worksheet, W_V has the same entries as W_K, so each "
                     "value row equals its key.", fade_in(self.note),
                     self.point_at(*values.cells))

    def contributions(self) -> None:
        self.visible.append("contribution")
        parts = self.columns["contribution"]
        top = self.top_source()
        inner_v, keys_v = vector("v", f"{self.p}.V[{top}]", self.width)
        inner_c, keys_c = vector("c", f"{self.p}.contributions[{top}]", self.width)
        weight, value, part = self.row_cells(top, "weight", "value", "contribution")
        leaving = [self.note] if self.note is not None else []
        self.say("The weight scales the whole value row: “{w}” keeps {x} of its row.",
                 fade_in(parts.header), *([fade_out(*leaving)] if leaving else []),
                 LaggedStart(self.point_at(weight), AnimationGroup(
                     self.point_at(value, part, buff=TIGHT_BUFF), self.shrink(top)),
                     lag_ratio=1.0,
                     run_time=3.5), words={"w": self.tokens[top]},
                 x=f"{self.p}.weights[{top}]")
        self.section("written product")
        self.product = product = self.written_product(top)
        # The product written out under the rows, each factor outlined with its cell as the
        # voice names it: the weight, the value row, then the product.
        said = "In numbers, with the unrounded weight: {x} × " + inner_v + " = " + inner_c + "."
        factors = [product.figures_span(0, 0), product.figures_span(1, self.width_shown, 1, 1),
                   product.figures_span(self.width_shown + 1, 2 * self.width_shown, 1, 1)]
        self.voiced(said, [
            ("{x}", self.point_at(weight, factors[0], each=True)),
            (inner_v, self.point_at(value, factors[1], each=True)),
            (inner_c, self.point_at(part, factors[2], each=True))],
            opening=[fade_in(product)], step=0.8,
            x=f"{self.p}.weights[{top}]", **keys_v, **keys_c)
        rest = [j for j in range(len(self.tokens)) if j != top]
        self.say("Every other row shrinks by its own weight: a small weight pulls it close "
                 "to zero.", LaggedStart(*map(self.shrink, rest), lag_ratio=0.15,
                                         run_time=3.5), self.unpoint())
        self.say("Each row of this column is its weight times its value row.",
                 self.point_at(*parts.cells, buff=COLUMN_BUFF))

    def written_product(self, top: int) -> Bound:
        """``weight × value row = contribution`` for source ``top``, on the line under the
        rows, ending under the contributions."""
        inner_v, keys_v = vector("v", f"{self.p}.V[{top}]", self.width)
        inner_c, keys_c = vector("c", f"{self.p}.contributions[{top}]", self.width)
        product = self.bound("{x} × " + inner_v + " = " + inner_c, self.size * self.scale,
                             INK, mono=True, x=f"{self.p}.weights[{top}]", **keys_v, **keys_c)
        for glyph in product.figure_glyphs(0):
            glyph.set_fill(self.colour)  # the weight as its bar's number shows it
        fit(product, TABLE_WIDTH)
        product.move_to([0, self.foot_y, 0]).align_to(self.columns["contribution"], RIGHT)
        return product.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - product.get_left()[0]))

    def message(self) -> None:
        parts = self.columns["contribution"]
        total = self.vec(f"{self.p}.message", self.size * self.scale, self.colour,
                         template="message = {v}")
        total.move_to([0, self.foot_y, 0]).align_to(parts, RIGHT)
        line = Line(parts.get_corner(DOWN + LEFT), parts.get_corner(DOWN + RIGHT),
                    stroke_color=FAINT, stroke_width=2).shift(DOWN * 0.12)
        ghosts = [cell.copy() for cell in parts.cells]
        target = total[len("message = "):]
        gather = [Transform(ghost, target.copy().set_opacity(0)) for ghost in ghosts]
        self.rounding = rounding = self.label("sums use the unrounded numbers",
                                              self.note_size, MUTED)
        rounding.move_to([0, self.foot_y, 0]).align_to([self.lefts["word"], 0, 0], LEFT)
        # The written product gives way to the sum on the line under the rows; then each
        # coordinate's column is pointed at, figure by figure (one outline round the column
        # would cut the rows' brackets), with the sum it makes, as the voice names it; all
        # stays at full strength.
        shown = [i for i in shown_indices(self.width) if i is not None]
        slots = {f"m{i}": f"{self.p}.message[{i}]" for i in shown}
        named = [("{" + f"m{i}" + "}", ORDINALS[i] if i < len(ORDINALS) and
                  (k == i) else "last") for k, i in enumerate(shown)]
        said = "Add the weighted rows one coordinate at a time: " + ", ".join(
            f"the {word} coordinates make {slot}" for slot, word in named) + "."
        # Each coordinate's figures underlined, in every row and in the sum: an outline
        # round one number of a row would cut through the row.
        marks = [VGroup(*(underline(cell.figures_span(k, k)) for cell in parts.cells),
                        underline(total.figures_span(k, k))) for k in range(len(named))]
        cues = []
        for k, (slot, word) in enumerate(named):
            cues.append((f"{word} coordinates", AnimationGroup(
                *optional(self.unpoint()), *([Fade(marks[k - 1], appear=False)] if k else []),
                Create(VGroup(*marks[k][:-1])))))
            cues.append((slot, Create(marks[k][-1])))
        self.voiced(said, cues, opening=[Create(line), LaggedStart(
            Fade(self.product, appear=False, run_time=0.6),
            AnimationGroup(*gather, run_time=1.6), fade_in(total),
            lag_ratio=0.6)], step=0.9, **slots)
        self.remove(*ghosts)
        self.say("The sums use the unrounded numbers, so they may differ a little from the "
                 "rounded rows.", Fade(marks[-1], appear=False), fade_in(rounding),
                 self.point_at(rounding))
        inner, keys = vector("m", f"{self.p}.message", self.width)
        self.say("That sum, " + inner + ", is head {h}'s message for “{r}”.",
                 self.point_at(total), h=self.h_key, words={"r": self.tokens[self.last]},
                 **keys)
        self.section("next")
        self.payoff(total)
        self.wait(0.5)

    def payoff(self, total: Bound) -> None:
        """What the message says (its largest coordinate, when each value coordinate holds
        one named feature) and where it goes next: drawn as the head's place in the join
        of every head's message, or as the output projection's input for a single head."""
        top = self.top_source()
        c = int(self.v.value(f"{self.p}.message_top"))
        picked = [int(i) for i in self.v.value(f"params.h{self.head}.V_features")]
        names = self.ws.lesson.head_names
        if picked[c] >= 0 and len(names) >= self.head:
            said = "Its largest coordinate is {c}: a {role} clue, led by “{w}”."
            self.voiced(said, [
                ("{c}", self.point_at(self.coordinate(total, c))),
                ("led", self.point_at(self.coordinate(total, c),
                                      *self.row_cells(top, "word", "contribution"),
                                      each=True))], step=0.8,
                words={"c": self.ws.lesson.features[picked[c]],
                       "role": names[self.head - 1], "w": self.tokens[top]})
        ahead = self.next_step(total)
        shown = AnimationGroup(Fade(self.rounding, appear=False, run_time=0.6), fade_in(ahead))
        if self.ws.n_heads > 1:
            self.say("Next, it is joined with the other heads' messages.", shown,
                     self.point_at(total, ahead.slot, colour=self.colour, each=True))
        else:
            self.say("Next, the output projection turns it into the update for “{r}”.",
                     shown, self.point_at(total, ahead.slot, colour=self.colour, each=True),
                     words={"r": self.tokens[self.last]})

    def coordinate(self, vec: Bound, c: int) -> Mobject:
        """Coordinate ``c`` of a vector drawn with :meth:`vec` (the whole vector when ``c``
        is elided), with the bracket or comma on each side."""
        shown = [i for i in shown_indices(self.width) if i is not None]
        return vec.figures_span(shown.index(c), shown.index(c), 1, 1) if c in shown else vec

    def next_step(self, total: Bound) -> VGroup:
        """A pointer from the message to where it goes next, on the line under the rows left
        of it: every head's slot in the joined row, this head's outlined in its colour (or,
        for a single head, the output projection); its ``slot`` is this head's."""
        size = self.note_size
        if self.ws.n_heads > 1:
            slots = VGroup(*(self.head_label(h, size)
                             for h in range(1, self.ws.n_heads + 1))).arrange(RIGHT, buff=0.3)
            frames = VGroup(*(SurroundingRectangle(
                label, color=self.head_colour(h) if h == self.head else FAINT, buff=0.08,
                stroke_width=3 if h == self.head else 1.5, corner_radius=0.04)
                for h, label in enumerate(slots, start=1)))
            name = self.label("joined:", size, MUTED)
            slot = frames[self.head - 1]
        else:
            slots = VGroup(self.label("W_O", size, INK))
            frames = VGroup(SurroundingRectangle(slots, color=FAINT, buff=0.08,
                                                 stroke_width=1.5, corner_radius=0.04))
            name = self.label("next:", size, MUTED)
            slot = frames[0]
        sketch = VGroup(slots, frames)
        name.next_to(sketch, LEFT, buff=0.2)
        ahead = VGroup(name, sketch)
        ahead.move_to([0, self.foot_y, 0]).align_to([self.lefts["word"], 0, 0], LEFT)
        ahead.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - ahead.get_left()[0]))
        arrow = Arrow(total.get_left() + LEFT * 0.05, ahead.get_right() + RIGHT * 0.05,
                      buff=0.1, stroke_width=3, color=FAINT, max_tip_length_to_length_ratio=0.15)
        ahead.add(arrow)
        ahead.slot = slot
        return ahead

    # ------------------------------------------------------------------ the recap

    def recap(self) -> None:
        """This head's query beside its keys, its scores and the sum of their
        exponentials; its weights as bars beside head one's; then its value rows scaled by
        its weights, the largest terms written out, adding up to its message; then its
        message beside head one's. One sentence a step, each naming the step's result."""
        self.recap_columns()
        self.section("recap scores")
        self.heading = self.title("Head {h}: its own query and keys", h=self.h_key)
        self.heading.set_color(self.colour)
        self.recap_scores()
        self.section("recap sum")
        self.recap_sum()
        self.section("recap division")
        self.recap_weights()
        self.section("recap message")
        self.recap_message()
        self.wait(0.5)

    def recap_scores(self) -> None:
        """The query over the keys, then one score per key, the top one worked out."""
        self.arrange(["word", "key", "score", "exp"])
        self.visible = ["word", "key", "score", "exp"]
        keys, scores = self.columns["key"], self.columns["score"]
        size = self.size * self.scale
        self.qvec = self.vec(f"{self.p}.Q[{self.last}]", size, self.colour)
        self.qvec.move_to([0, QUERY_Y, 0]).align_to(keys, RIGHT)
        self.query = self.bound("query of “{r}”:", size, self.colour,
                                words={"r": self.tokens[self.last]})
        self.query.next_to(self.qvec, LEFT, buff=0.2).align_to(self.qvec, DOWN)
        inner, slots = vector("q", f"{self.p}.Q[{self.last}]", self.width)
        reading, named = self.query_reading()
        top = self.top_source()
        self.worked = self.worked_score(top)
        # What the query asks for is read by the features its keys hold (a zero too); a
        # query whose keys mix features is said as its numbers.
        said = ("Head {h}'s query, " + reading + ", scores “{w}” highest: {s}." if reading else
                "Head {h}'s query, " + inner + ", meets its keys and scores “{w}” highest: {s}.")
        self.voiced(said, [
            ("query", self.point_at(self.query, self.qvec)),
            ("for" if reading else "keys", self.point_at(self.qvec, keys.header, each=True)),
            ("scores", AnimationGroup(fade_in(scores.header), *optional(self.unpoint()),
                                      LaggedStart(*map(fade_in, scores.cells), lag_ratio=0.1))),
            ("“{w}”", self.point_at(*self.row_cells(top, "word", "key", "score"))),
            ("highest", AnimationGroup(fade_in(self.worked), self.point_at(
                self.worked.dot, self.qvec, keys.cells[top], each=True))),
            ("{s}", self.point_at(self.worked.score, scores.cells[top], each=True))],
            step=0.8, opening=[
                Write(self.heading), fade_in(self.columns["word"], keys.header),
                LaggedStart(*map(fade_in, keys.cells), lag_ratio=0.15, run_time=2.0),
                fade_in(self.query, self.qvec)],
            h=self.h_key, words={**named, "w": self.tokens[top]}, s=f"{self.p}.scores[{top}]",
            **slots)

    def worked_score(self, top: int) -> Bound:
        """``q×k + q×k = dot;  dot ÷ √d = score`` for source ``top`` (two equations: the
        dot product is not the score), on the line under the rows, ending under the
        scores."""
        terms, slots = self.terms(top)
        worked = self.bound(terms + " = {d};  {e} ÷ {r} = {s}", self.size * self.scale, INK,
                            mono=True, d=f"{self.p}.dots[{top}]", e=f"{self.p}.dots[{top}]",
                            r="dims.sqrt_d_head", s=f"{self.p}.scores[{top}]", **slots)
        fit(worked, TABLE_WIDTH)
        worked.move_to([0, self.sum_y, 0]).align_to(self.columns["score"], RIGHT)
        worked.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - worked.get_left()[0]))
        count = len(slots)
        worked.dot = worked.figures_span(0, count, 0, 0)
        worked.score = worked.figures_span(count + 3, count + 3, 0, 0)
        return worked

    def recap_sum(self) -> None:
        """The exponentials of the scores and their sum, the softmax's denominator."""
        exps = self.columns["exp"]
        self.total = self.bound("sum = {t}", self.size * self.scale, INK, mono=True,
                                t=f"{self.p}.denominator")
        self.total.move_to([0, self.sum_y, 0]).align_to(exps, RIGHT)
        self.line = Line(exps.get_corner(DOWN + LEFT), exps.get_corner(DOWN + RIGHT),
                         stroke_color=FAINT, stroke_width=2).shift(DOWN * 0.12)
        self.followers["exp"] = [self.total, self.line]
        away = optional(self.unpoint())
        said = "Their exponentials add up to {t}."
        self.voiced(said, [("{t}", AnimationGroup(
            Create(self.line), fade_in(self.total), self.point_at(self.total)))], opening=[
            fade_in(exps.header), *away, fade_out(self.worked),
            LaggedStart(*map(fade_in, exps.cells), lag_ratio=0.1, run_time=1.5)],
            t=f"{self.p}.denominator")

    def recap_weights(self) -> None:
        """The exponentials over their sum: this head's bars, beside head one's."""
        mine, exps = self.columns["weight"], self.columns["exp"]
        moves = self.reflow(["word", *WEIGHTS_STEP])
        top = self.top_source()
        division = self.worked_weight(self.head, top)
        division.move_to([0, self.sum_y, 0]).align_to([self.lefts["weight"], 0, 0], LEFT)
        # The query leaves and the columns slide first; the sum is outlined where it lands.
        # The division is written, not said: the voice names only its result.
        slide = AnimationGroup(fade_out(self.query, self.qvec), *optional(self.unpoint()),
                               self.new_title("Head {h}: its weights"), *moves)
        said = "Over that sum, “{w}” gets weight {x}."
        self.voiced(said, [
            ("Over", slide),
            ("sum", self.point_at(self.landed(self.total, "exp"))),
            ("“{w}”", AnimationGroup(fade_in(division), self.point_at(
                self.landed(exps.cells[top], "exp"), division.figures_span(0, 0), each=True))),
            ("{x}", AnimationGroup(fade_in(mine.header), LaggedStart(
                *(grow(cell) for cell in mine.cells), lag_ratio=0.1), self.point_at(
                mine.cells[top], division.figures_span(2, 2), each=True)))],
            step=0.8, words={"w": self.tokens[top]}, x=f"{self.p}.weights[{top}]")
        # Head one comes in beside this head's weights, and the title says so only then.
        self.section("recap weights")
        self.compare_weights(division)

    def compare_weights(self, division: Bound) -> None:
        """Head one's bars beside this head's, and the same word's weight worked out for
        both heads, one division over the other: where head one's sum is larger (its top
        source outscored the word), the same exponential gives a smaller weight."""
        first, mine = self.columns["first"], self.columns["weight"]
        words, exps = self.columns["word"], self.columns["exp"]
        top = self.top_source()
        # The exponentials and their sum are this head's: they leave as head one's bars come,
        # so that no column beside head one's bars reads as their source.
        opening = [fade_away(exps, self.total, self.line), fade_in(first.header),
                   self.new_title("Head {h}, beside head {g}"), LaggedStart(
                       *(grow(cell) for cell in first.cells), lag_ratio=0.1)]
        self.followers.pop("exp")
        self.visible.remove("exp")
        # Head one's division for the same word under this head's, each named by its head.
        theirs = self.worked_weight(1, top)
        theirs.move_to([0, self.sum_y - LINE_GAP, 0]).align_to(division, LEFT)
        names = [self.bound("Head {h}:", self.note_size, self.head_colour(h),
                            h=f"dims.head_numbers[{h - 1}]") for h in (self.head, 1)]
        for name, line in zip(names, (division, theirs), strict=True):
            name.next_to(line, LEFT, buff=0.25).align_to(line, DOWN)
        self.compared = VGroup(division, theirs, *names)
        # One clause: what head one gave the same word, said against this head's weight,
        # and why when head one's top source is another word.
        ones = f"{self.ws.walkthrough}.h1.weights[{top}]"
        leader = int(self.v.value(f"{self.ws.walkthrough}.h1.top_source"))
        mine_text, ones_text = (self.v.text(k) for k in (f"{self.p}.weights[{top}]", ones))
        cues = [("“{w}”", self.point_at(words.cells[top], mine.cells[top], first.cells[top],
                                        each=True)),
                ("{c}", AnimationGroup(fade_in(theirs, *names), self.point_at(
                    first.cells[top], theirs.figures_span(2, 2), each=True)))]
        if ones_text == mine_text:
            said = "Head {g} gave “{w}” the same, {c}."
        elif self.v.value(ones) < self.v.value(f"{self.p}.weights[{top}]"):
            said = "Head {g} gave “{w}” only {c}."
            if leader != top:  # a larger sum: another word scored higher in head one
                said = "Head {g} gave “{w}” only {c}: there, “{u}” outscored it."
                cues.append(("there", self.point_at(
                    words.cells[leader], first.cells[leader], theirs.figures_span(1, 1),
                    division.figures_span(1, 1), each=True)))
        else:
            said = "Head {g} gave “{w}” even more, {c}."
        self.voiced(said, cues, opening=opening, step=0.9, g="dims.head_numbers[0]",
                    words={"w": self.tokens[top], "u": self.tokens[leader]}, c=ones)

    def worked_weight(self, head: int, j: int) -> Bound:
        """``exp ÷ sum = weight`` for source ``j`` in ``head``, the weight in the head's
        colour, as its bar's number shows it."""
        prefix = f"{self.ws.walkthrough}.h{head}"
        division = self.bound("{e} ÷ {t} = {x}", self.size * self.scale, INK, mono=True,
                              e=f"{prefix}.exps[{j}]", t=f"{prefix}.denominator",
                              x=f"{prefix}.weights[{j}]")
        for glyph in division.figure_glyphs(2):
            glyph.set_fill(self.head_colour(head))
        return division

    def recap_message(self) -> None:
        """The value rows scaled by this head's weights, the largest written as ``weight ×
        value row`` and said; the next, and the rest as one sum, written into the message's
        sum; then the message under this head's bars."""
        values, mine = self.columns["value"], self.columns["weight"]
        parts = self.columns["contribution"]
        moves = self.reflow(["word", *MESSAGE_STEP])
        terms, tail = self.message_terms()
        messages = self.message_line()
        top = self.top_source()
        # Head one's bars leave, this head's bars close up, and the
        # title says what comes: then the value rows come.
        slide = AnimationGroup(*optional(self.unpoint()), fade_away(self.compared), *moves,
                               self.new_title("Head {h}'s message"))
        said = "Each value row is scaled by its weight: {a} for “{w}”."
        self.voiced(said, [
            ("Each", slide),
            ("value row", AnimationGroup(fade_in(values.header), LaggedStart(
                *map(fade_in, values.cells), lag_ratio=0.1))),
            ("scaled", AnimationGroup(fade_in(parts.header), LaggedStart(
                *map(fade_in, parts.cells), lag_ratio=0.1))),
            ("{a}", AnimationGroup(fade_in(terms[0]), self.point_at(
                VGroup(self.landed(mine.cells[top], "weight"), values.cells[top]), terms[0],
                each=True))),
            ("“{w}”", self.point_at(terms[0], parts.cells[top], each=True))], step=0.8,
            words={"w": self.tokens[top]}, a=f"{self.p}.weights[{top}]")
        self.message_sum(terms, tail, messages)
        self.section("recap joined")
        self.joined_messages(messages)

    def message_sum(self, terms: list[Bound], tail: Bound, messages: VGroup) -> None:
        """The other rows come into the sum (the next largest term, then the rest as one
        sum, labelled), which gives the message, read by its largest coordinate's feature
        and the top source when each value coordinate holds one feature."""
        order = [int(j) for j in self.v.value(f"{self.p}.order")]
        top = order[0]
        weights, values = self.columns["weight"], self.columns["value"]
        parts = self.columns["contribution"]
        later = list(zip(order[1:len(terms)], terms[1:], strict=True))
        cues: list[tuple[str, Animation]] = []
        if later:  # the next written terms, pointed at beside their rows
            cells = [cell for j, _ in later for cell in (weights.cells[j], values.cells[j])]
            cues.append(("Adding", AnimationGroup(*(fade_in(term) for _, term in later),
                                                  self.point_at(*cells, *(t for _, t in later),
                                                                each=True))))
        rest = tail.rest_term
        if rest is not None:  # the rows past the written terms, one sum, labelled
            label = self.label("the other sources", self.note_size, MUTED)
            label.move_to([rest.get_x(), self.note_y, 0])
            label.shift(LEFT * max(0.0, label.get_right()[0] - TABLE_WIDTH / 2))
            small = [parts.cells[j] for j in order[len(terms):]]
            cues.append(("other rows", AnimationGroup(fade_in(rest, label), self.point_at(
                *small, rest, each=True, buff=TIGHT_BUFF))))
        inner, keys = vector("m", f"{self.p}.message", self.width)
        cues.append((inner, AnimationGroup(fade_in(tail, messages), self.point_at(
            tail.result, messages.mine, each=True))))
        c = int(self.v.value(f"{self.p}.message_top"))
        picked = [int(i) for i in self.v.value(f"params.h{self.head}.V_features")]
        named = picked[c] >= 0 and c in shown_indices(self.width)
        lead = "Adding the other rows, the message is " if len(order) > 1 else \
            "Head {h}'s message is "
        said = lead + inner + (": mostly {c}, from “{w}”." if named else ".")
        if named:
            cues.append(("mostly", self.point_at(self.coordinate(tail, c),
                                                 self.columns["word"].cells[top], each=True)))
        if "{h}" in said:
            keys["h"] = self.h_key
        self.voiced(said, cues, step=0.8, words={
            "c": self.ws.lesson.features[picked[c]], "w": self.tokens[top]} if named else None,
            **keys)

    def joined_messages(self, messages: VGroup) -> None:
        """Head one's message and this head's side by side, each named and in its head's
        colour, where this head's message stood: as they go into the joined row."""
        size = self.size * self.scale
        heads = []
        for h in (1, self.head):
            # Each message named by its head and by what its coordinates hold: the two
            # heads' coordinates are different features, not one pair of axes.
            message = VGroup(self.head_label(h, size),
                             self.vec(f"{self.ws.walkthrough}.h{h}.message", size,
                                      self.head_colour(h)))
            names, words = self.coordinate_words("V", head=h)
            if names:
                message.add(self.bound("(" + names + ")", self.note_size, MUTED, words=words))
            heads.append(on_baseline(message, 0.2 * size / 20))
        row = VGroup(*heads).arrange(RIGHT, buff=0.6)
        fit(row, TABLE_WIDTH)
        row.move_to([0, self.message_y, 0]).align_to([self.lefts["word"], 0, 0], LEFT)
        row.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - row.get_left()[0]))
        said = "Then it is joined to head {g}'s message."
        self.voiced(said, [
            ("Then", AnimationGroup(Fade(messages, appear=False, run_time=0.6), fade_in(row),
                                    self.point_at(heads[1], buff=TIGHT_BUFF))),
            ("joined", self.point_at(*heads, each=True, buff=TIGHT_BUFF)),
            ("head", self.point_at(heads[0], buff=TIGHT_BUFF))], step=0.8,
            g="dims.head_numbers[0]")

    def voiced(self, said: str, cues: Sequence[tuple[str, Animation]], step: float = 0.6,
               opening: Sequence[Animation] = (), words: dict[str, str] | None = None,
               **keys: str) -> None:
        """Say ``said`` while ``cues`` play, each placed by :func:`cued` where the voice
        says its fragment, over the time the voice takes (the reading time without a
        voice)."""
        spoken = {name: self.v.spoken(key) for name, key in keys.items()} | (words or {})
        speech = self.voice.speak(fill(said, self.v, keys, words).spoken)
        self.say(said, cued(said, cues, speech.seconds if speech else None, step, opening,
                            spoken), words=words, **keys)

    def message_terms(self) -> tuple[list[Bound], Bound]:
        """The message as a sum: this head's largest weighted value rows, each ``weight ×
        value row``, then the rest (``+ rest``, the other rows' sum, kept as the tail's
        ``rest_term``; ``None`` when every row is written) and ``= message``; laid out on
        the line under the rows."""
        order = [int(j) for j in self.v.value(f"{self.p}.order")]
        shown = order if len(order) <= TERMS + 1 else order[:TERMS]
        size = self.size * self.scale
        terms = []
        for rank, j in enumerate(shown):
            inner, keys = vector(f"v{rank}_", f"{self.p}.V[{j}]", self.width)
            term = self.bound(("+ " if rank else "") + "{a} × " + inner, size, INK,
                              mono=True, a=f"{self.p}.weights[{j}]", **keys)
            for glyph in term.figure_glyphs(0):
                glyph.set_fill(self.colour)  # the weight, coloured as its bar's number
            terms.append(term)
        rest = None
        if len(shown) < len(order):  # the rest is the message less the largest terms
            inner, keys = vector("r", f"{self.p}.rest", self.width)
            rest = self.bound("+ " + inner, size, INK, mono=True, **keys)
        inner, keys = vector("m", f"{self.p}.message", self.width)
        tail = self.bound("= " + inner, size, INK, mono=True, **keys)
        for index, (_, text) in enumerate(tail.figures):
            if not text.startswith("−"):  # a negative keeps the colour of negatives
                for glyph in tail.figure_glyphs(index):
                    glyph.set_fill(self.colour)  # the message, as under its bars
        tail.result = tail.figures_span(0, len(keys) - 1, 1, 1)
        tail.rest_term = rest
        pieces = [*terms, *([rest] if rest else []), tail]
        # One line when it fits at full size; else two (only when no rest is labelled
        # under the first: at most three rows, room to spare), the message a line lower;
        # shrunk only when even two do not fit.
        lines: list[list[Bound]] = [[]]
        for piece in pieces:
            if lines[-1] and on_baseline(VGroup(*(m.copy() for m in lines[-1]), piece.copy()),
                                         0.2 * size / 20).width > TABLE_WIDTH:
                lines.append([])
            lines[-1].append(piece)
        if len(lines) > 1 + (rest is None):
            lines = [pieces]
        parts = self.columns["contribution"]
        if len(lines) > 1:
            self.message_y = self.sum_y - 2 * LINE_GAP
        for row, y in zip(lines, (self.sum_y, self.sum_y - LINE_GAP), strict=False):
            line = on_baseline(VGroup(*row), 0.2 * size / 20)
            fit(line, TABLE_WIDTH)
            line.move_to([0, y, 0]).set_x(self.lefts["contribution"] + parts.width
                                          - line.width / 2)
            line.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - line.get_left()[0]))
        return terms, tail

    def message_line(self) -> VGroup:
        """``message`` and this head's message under its weight bars."""
        size = self.size * self.scale
        label = self.label("message", size, MUTED)
        mine = self.vec(f"{self.p}.message", size, self.colour)
        mine.move_to([0, self.message_y, 0]).align_to([self.lefts["weight"], 0, 0], LEFT)
        words = self.columns["word"]
        # Right-aligned under the tokens, kept inside the table and clear of the message.
        room = self.lefts["weight"] - GAP * 0.4 - max(-TABLE_WIDTH / 2, self.lefts["word"])
        if label.width > room:
            label.scale(max(room, label.width * LEAST_SIZE / label.font_size) / label.width)
        label.move_to([0, self.message_y, 0]).align_to(
            [min(self.lefts["word"] + words.width, self.lefts["weight"] - GAP * 0.4), 0, 0],
            RIGHT)
        label.shift(RIGHT * max(0.0, -TABLE_WIDTH / 2 - label.get_left()[0]))
        line = VGroup(label, mine)
        names, words = self.coordinate_words("V")
        if names:  # what each coordinate of this head's message holds
            line.add(self.bound("(" + names + ")", self.note_size, MUTED, words=words)
                     .next_to(mine, RIGHT, buff=0.2).align_to(mine, DOWN))
        line.mine = mine
        return line

    # ------------------------------------------------------------------ building blocks

    def build_columns(self) -> None:
        """Every column of the walk, scaled once so the widest step fits the frame."""
        size, p, last = self.size, self.p, self.last

        def header(text: str) -> Mobject:
            return self.label(text, size * 0.8, MUTED)

        self.make_columns({
            "word": (header("token"), lambda j: self.token_cell(j, size), RIGHT),
            "key": (self.named_header("key", "K", size), lambda j: self.vec(f"{p}.K[{j}]", size),
                    RIGHT),
            "query": (self.receivers_query(size * 0.8),
                      lambda j: self.vec(f"{p}.Q[{last}]", size, self.colour), LEFT),
            "expr": (header("query × key"),
                     lambda j: self.bound(self.terms(j)[0], size, mono=True,
                                          **self.terms(j)[1]), RIGHT),
            "dot": (header("dot"), lambda j: self.bound("= {d}", size, mono=True,
                                                        d=f"{p}.dots[{j}]"), RIGHT),
            "score": (self.bound("score = dot ÷ √{d} (= {r})", size * 0.8, MUTED,
                                 d="dims.d_head", r="dims.sqrt_d_head"),
                      lambda j: self.num(f"{p}.scores[{j}]", size), RIGHT),
            "exp": (header("exp(score)"), lambda j: self.num(f"{p}.exps[{j}]", size), RIGHT),
            "weight": (header("weight"), lambda j: self.bar(p, j, self.colour, size), LEFT),
            "value": (self.named_header("value row", "V", size),
                      lambda j: self.vec(f"{p}.V[{j}]", size), RIGHT),
            "contribution": (header("weight × value"),
                             lambda j: self.vec(f"{p}.contributions[{j}]", size), RIGHT),
        })
        wide = self.wide = ["word", "key", "query", "expr", "dot"]
        steps = [["word", "key", "query"], ["word", "expr", "dot"],
                 ["word", "dot", "score", "exp"], ["word", "exp", "weight"],
                 ["word", "weight", "value", "contribution"]]
        self.roomy = self.natural(wide) <= TABLE_WIDTH
        if self.roomy:
            steps.append(wide)
        self.fit_columns(steps)

    def recap_columns(self) -> None:
        """The recap's columns: this head's keys, scores, exponentials, weights and value
        rows, and head one's weights; scaled once so that each step fits the frame."""
        size, p = self.size, self.p

        def header(text: str) -> Mobject:
            return self.label(text, size * 0.8, MUTED)

        ones = f"{self.ws.walkthrough}.h1"
        self.make_columns({
            "word": (header("token"), lambda j: self.token_cell(j, size), RIGHT),
            "key": (self.named_header("key", "K", size), lambda j: self.vec(f"{p}.K[{j}]", size),
                    RIGHT),
            "score": (self.bound("score = q·k ÷ √{d}", size * 0.8, MUTED, d="dims.d_head"),
                      lambda j: self.num(f"{p}.scores[{j}]", size), RIGHT),
            "exp": (header("exp(score)"), lambda j: self.num(f"{p}.exps[{j}]", size), RIGHT),
            "first": (self.head_label(1, size * 0.8),
                      lambda j: self.bar(ones, j, self.head_colour(1), size), LEFT),
            "weight": (self.head_label(self.head, size * 0.8),
                       lambda j: self.bar(p, j, self.colour, size), LEFT),
            "value": (self.named_header("value row", "V", size),
                      lambda j: self.vec(f"{p}.V[{j}]", size), RIGHT),
            "contribution": (header("weight × value"),
                             lambda j: self.vec(f"{p}.contributions[{j}]", size), RIGHT),
        })
        # A bar column is at least as wide as the message written under it.
        self.least["weight"] = self.vec(f"{p}.message", size).width
        self.fit_columns([["word", "key", "score", "exp"], ["word", *WEIGHTS_STEP],
                          ["word", *MESSAGE_STEP]])

    def token_cell(self, j: int, size: float) -> VGroup:
        """Token ``j`` after its position number, the numbers in a column of their own
        left of the tokens; the receiver's row in the head's colour."""
        receiver = j == self.last
        number = self.num(f"dims.positions[{j}]", size, self.colour if receiver else MUTED)
        word = self.word(self.tokens[j], size, self.colour if receiver else INK)
        widest = max(self.word(token, size).width for token in self.tokens)
        cell = on_baseline(VGroup(number, word), 0.0)
        number.shift(RIGHT * (word.get_right()[0] - widest - POSITION_GAP * size / 22
                              - number.get_right()[0]))
        return cell

    def receivers_query(self, size: float) -> Bound:
        """The query column's header: whose query the column holds (only the receiver asks;
        the other rows hold copies of its query)."""
        return self.bound("query of “{r}”", size, self.colour,
                          words={"r": self.tokens[self.last]})

    @property
    def note_size(self) -> float:
        """The font size of a muted note beside the table: a header's, legible however
        tight the table."""
        return max(LEAST_SIZE, self.size * self.scale * 0.8)

    def named_header(self, text: str, kind: str, size: float) -> Mobject:
        """A column header, with the feature each coordinate holds when this head's ``W_K``
        (``kind`` ``K``) or ``W_V`` (``V``) copies one feature per coordinate."""
        names, words = self.coordinate_words(kind)
        if not names:
            return self.label(text, size * 0.8, MUTED)
        return self.bound(text + " (" + names + ")", size * 0.8, MUTED, words=words)

    def query_reading(self) -> tuple[str, dict[str, str]]:
        """``{q0} for {c0}, {q1} for {c1}``: each shown coordinate of the receiver's query
        with the feature this head's keys hold there (the query's slots as :func:`vector`
        names them), and the words; empty when some key coordinate mixes features."""
        names, words = self.coordinate_words("K")
        if not names:
            return "", {}
        parts = ["…" if i is None else "{" + f"q{i}" + "} for {" + f"c{i}" + "}"
                 for i in shown_indices(self.width)]
        return ", ".join(parts), words

    def coordinate_words(self, kind: str, last: str = ", ", head: int | None = None,
                         slot: str = "c") -> tuple[str, dict[str, str]]:
        """``{c0}, {c1}`` naming the features the shown coordinates of the keys (``K``) or
        values (``V``) of ``head`` (this head by default) hold (``last`` before the last
        name), and the words that fill them (slots named ``slot`` and the coordinate);
        empty when some coordinate mixes features."""
        head = self.head if head is None else head
        picked = [int(i) for i in self.v.value(f"params.h{head}.{kind}_features")]
        if min(picked) < 0:
            return "", {}
        parts, words = [], {}
        for i in shown_indices(len(picked)):
            if i is None:
                parts.append("…")
                continue
            words[f"{slot}{i}"] = self.ws.lesson.features[picked[i]]
            parts.append("{" + f"{slot}{i}" + "}")
        return ", ".join(parts[:-1]) + (last if len(parts) > 1 else "") + parts[-1], words

    def make_columns(self, makers: dict[str, tuple[Mobject, Callable[[int], Mobject], Any]]
                     ) -> None:
        """Columns by name from ``(header, cell maker, aligned side)``."""
        self.sides = {name: side for name, (_, _, side) in makers.items()}
        self.columns = {name: self.column([cell(j) for j in range(len(self.tokens))], side,
                                          head)
                        for name, (head, cell, side) in makers.items()}
        self.least: dict[str, float] = {}
        """Widths a column keeps free for what is written under it."""
        self.lefts: dict[str, float] = {}
        """Where each column of the current layout starts."""

    def fit_columns(self, steps: Sequence[Sequence[str]]) -> None:
        """Scale the columns so that the widest step fits the table's width, never below
        :data:`LEAST_SIZE` (the steps are chosen to fit at that size), headers kept
        legible."""
        self.scale = 1.0
        # Headers kept legible may widen a tight table again: scale until every step fits.
        for _ in range(4):
            factor = min(1.0, *(TABLE_WIDTH / self.natural(step) for step in steps))
            factor = max(factor, LEAST_SIZE / (self.size * self.scale))
            self.scale *= factor
            for name, column in self.columns.items():
                column.scale(factor, about_point=[0, HEADER_Y, 0])
                if column.header.font_size < LEAST_SIZE:  # headers stay legible
                    column.header.scale(LEAST_SIZE / column.header.font_size,
                                        about_edge=self.sides[name])
                for cell, y in zip(column.cells, self.ys, strict=True):
                    cell.set_y(y)  # the rows keep their heights
            self.least = {name: width * factor for name, width in self.least.items()}
            if factor > 0.999:
                break

    def span(self, name: str) -> float:
        """How much room a column takes in a row of columns."""
        drawn = self.columns[name].width if name in self.columns else 0.0
        return max(drawn, self.least.get(name, 0.0))

    def natural(self, names: Sequence[str]) -> float:
        return sum(self.span(n) for n in names) + GAP * (len(names) - 1)

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

    @property
    def width_shown(self) -> int:
        """How many entries of a row of the head's width are shown (the rest elided)."""
        return sum(i is not None for i in shown_indices(self.width))

    def top_source(self) -> int:
        return int(self.v.value(f"{self.p}.top_source"))

    def row_cells(self, j: int, *names: str) -> list[Mobject]:
        return [self.columns[n].cells[j] for n in names]

    def shrink(self, j: int) -> Animation:
        """Row ``j``'s ``weight × value`` fades in at its place, beside its value row:
        nothing crosses the row's numbers on its way (a copy of the value row sliding over
        would run through them)."""
        return Fade(self.columns["contribution"].cells[j], run_time=1.6)

    # ------------------------------------------------------------------ moving columns

    def arrange(self, names: Sequence[str]) -> None:
        """Set columns side by side, the table centred in the frame."""
        left = max(-TABLE_WIDTH / 2, -self.natural(names) / 2)
        for name in names:
            if name in self.columns:  # else a slot kept for something else (a card)
                column = self.columns[name]
                column.shift(RIGHT * (left - column.get_left()[0]))
            self.lefts[name] = left
            left += self.span(name) + GAP

    def landed(self, mob: Mobject, name: str) -> Mobject:
        """Where ``mob``, of column ``name`` (or following it), will stand once the column
        has slid: a copy to point at before the slide is played."""
        return mob.copy().shift(RIGHT * self.shifts.get(name, 0.0))

    def new_title(self, text: str, **keys: str) -> Any:
        """The heading for a new topic, in the head's colour (``{h}``: this head's number;
        ``{g}``: head one's)."""
        change = self.retitle(self.heading, text, h=self.h_key, **(
            {"g": "dims.head_numbers[0]"} if "{g}" in text else {}), **keys)
        self.heading = self._heading
        self.heading.set_color(self.colour)
        return change

    def reflow(self, names: list[str], layout: list[str] | None = None) -> list[Animation]:
        """From the visible columns to ``names``, placed as in ``layout`` (the next steps'
        columns, so they need not slide again): the animations that fade the leaving
        columns and slide the kept ones (with what follows them). New columns are left for
        the caller to reveal; :attr:`lefts` tells where they will stand."""
        layout = layout or names
        leaving = [self.columns[n] for n in self.visible if n not in names]
        kept = [n for n in names if n in self.visible]
        before = {n: self.columns[n].get_left()[0] for n in kept}
        self.arrange(layout)
        moves: list[Animation] = [fade_away(*leaving)] if leaving else []
        self.shifts = {}
        for n in kept:
            target = self.columns[n].get_left()[0]
            self.shifts[n] = target - before[n]
            self.columns[n].shift(RIGHT * (before[n] - target))
            if abs(target - before[n]) > 1e-3:
                moving = VGroup(self.columns[n], *self.followers.get(n, []))
                moves.append(moving.animate.shift(RIGHT * (target - before[n])))
        self.visible = list(names)
        return moves

    def switch(self, names: list[str], animate: bool = True, bring: bool = True,
               layout: list[str] | None = None) -> None:
        """From the visible columns to ``names`` (see :meth:`reflow`), in a silence: leaving
        ones fade, kept ones slide; new ones fade in (``bring``) or are left for the next
        step to reveal."""
        if not animate:
            self.arrange(layout or names)
            self.visible = list(names)
            return
        arriving = [self.columns[n] for n in names if n not in self.visible] if bring else []
        leaving = [n for n in self.visible if n not in names]
        moves = self.reflow(names, layout)
        fading, sliding = (moves[:1], moves[1:]) if leaving else ([], moves)
        steps = [fading + optional(self.unpoint()), sliding,
                 [fade_in(*arriving)] if arriving else []]
        if not any(steps):
            return
        with self.silence("the table trades columns for the next step"):
            for step, run_time in zip(steps, (0.6, 0.8, 0.8), strict=True):
                if step:
                    self.play(*step, run_time=run_time)


def underline(mob: Mobject) -> Line:
    """A short rule just under ``mob``: points at one number inside a row of numbers."""
    return Line(mob.get_corner(DOWN + LEFT) + DOWN * 0.06, mob.get_corner(DOWN + RIGHT)
                + DOWN * 0.06, stroke_color=INK, stroke_width=3)


def optional(animation: Animation | None) -> list[Animation]:
    """An animation that may be ``None`` (nothing to take away), as a list to unpack."""
    return [] if animation is None else [animation]


def fade_away(*mobjects: Mobject) -> Animation:
    """Fade mobjects out piece by piece, however their pieces came on screen (a column
    whose cells faded in one by one, a bar grown apart from its number): played inside a
    cued step, a fade takes off screen only what the scene holds as it is given."""
    return fade_out(*(part for mob in mobjects for part in mob.family_members_with_points()))


def _generate() -> None:
    """One scene class per head of the current worksheet."""
    ws, _ = current_lesson()
    for head in range(1, ws.n_heads + 1):
        name = f"HeadWalkthrough{head}"
        globals()[name] = type(name, (HeadWalkthrough,), {"head": head, "__module__": __name__,
                                                           "__doc__": HeadWalkthrough.__doc__})


_generate()
