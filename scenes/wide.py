"""One wide head against the separate heads (clip 10: OneWideHead)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Create,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    VGroup,
    Write,
)

from scenes.kit import (
    BAR_UNIT,
    ENGLISH,
    INK,
    LEAST_FIGURE_SIZE,
    MUTED,
    SAFE_BOTTOM,
    LectureScene,
    WeightBar,
    brackets,
    copied_features,
    cued,
    fade_in,
    fade_out,
    fill,
    fit,
    grow,
    model_map,
    shown_indices,
)
from scenes.kit import joined as slots_of
from scenes.kit.topic import carried_names

QUERY_GAP = 0.6
"""Gap between the joined W_Q and the wide query under it (before the page's scale)."""
OUTLINE_ROOM = 0.16
"""Gap between a whole matrix and a pointer's outline round it: clear of its brackets' arms
and of its name above."""


class OneWideHead(LectureScene):
    """The heads' projections, numbers and all, joined into one wide head; why its one
    weight row favours the source whose matches add up most; one weight row serves every
    value coordinate, while separate heads keep a row each; the messages, coordinate by
    coordinate, and the one a head loses most worked as its sum of weight × value, for the
    wide head and for that head."""

    draws_its_own_map = True  # it opens with the map, heads lit

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.heads = list(range(1, self.ws.n_heads + 1))
        self.section("where we are")
        heading = self.title("One wide head instead of separate heads")
        whole = model_map(self, lit=("heads",), size=20).move_to(DOWN * 0.2)
        self.say("Once more inside the heads: what if they were one wide head instead?",
                 Write(heading), fade_in(whole), self.point_at(whole.stages["heads"]))
        self.play(self.unpoint(), fade_out(whole))
        self.section("own projections")
        self.join_projections(heading)
        self.section("scale")
        self.play(self.unpoint(), fade_out(self.blocks))
        self.scales()
        shown = [self.scale_lines]
        if len(self.heads) > 1:
            self.section("pooled")
            self.play(*filter(None, [self.unpoint()]), fade_out(*shown))
            self.pooled(heading)
            shown = [self.sums]
        self.section("weights")
        self.play(*filter(None, [self.unpoint()]), fade_out(*shown))
        self.weight_table(heading)
        self.section("compare")
        self.compare()
        self.section("mixing")
        self.mixing()
        known = all(copied_features(self.v, h, "V") is not None for h in self.heads)
        self.sums = self.coordinate_sums() if known and len(self.heads) > 1 else None
        if self.sums is not None:
            self.section("messages")
            self.messages(heading)
        else:
            self.play(*filter(None, [self.unpoint()]))

    def join_projections(self, heading: Mobject) -> None:
        """Each head's W_Q with its numbers, then every head's W_K and W_V; the W_Q blocks
        close up into one wide W_Q, every entry kept, and the final receiver's wide query
        appears under it, each head's coordinates in that head's colour."""
        size = 22
        mats = VGroup()
        parts = VGroup()
        for head in self.heads:
            colour = self.head_colour(head)
            mat = self.matrix(f"params.h{head}.W_Q", size=size, colour=colour)
            name = self.head_label(head, 22).next_to(mat, DOWN, buff=0.2)
            shape = self.bound("W_Q  {s}", 20, colour, s="shapes.W_Q").next_to(mat, UP, 0.2)
            mats.add(mat)
            parts.add(VGroup(mat, name, shape))
        parts.arrange(RIGHT, buff=0.6, aligned_edge=UP)
        first = mats[0]
        names = VGroup(*(self.feature(i, 20) for i in range(self.ws.d_model)))
        for label, row in zip(names, first.cells, strict=True):
            label.set_y(row[0].get_y())
            label.shift(RIGHT * (first.brackets[0].get_left()[0] - 0.2 - label.get_right()[0]))
        # Room under the matrices for the wide query and its name, kept while scaling.
        query_room = Rectangle(width=0.1, height=QUERY_GAP + 1.1, stroke_width=0)
        query_room.next_to(mats, DOWN, buff=0)
        page = VGroup(names, parts, query_room)
        top = heading.get_bottom()[1] - 0.4
        before = page.width
        room = top - 0.3 - (SAFE_BOTTOM + 0.3)
        scale = min(1.8, 13.0 / page.width, room / page.height)
        page.scale(scale)
        page.remove(query_room)
        gap = 0.45 * page.width / before
        page.move_to([0, top - page.height / 2 - 0.3, 0])
        self.say("Each head has its own W_Q, {s}, with the numbers it was given.",
                 fade_in(names, parts), self.point_at(*mats, each=True, buff=OUTLINE_ROOM),
                 s="shapes.W_Q")
        others = self.keys_and_values(top, room)
        self.section("keys and values")
        room_round = OUTLINE_ROOM * min(1.0, others.drawn_at)
        if others.steps is None:
            self.tell("The same holds for W_K and W_V: every head owns its three projections.",
                      fade_out(names, parts), fade_in(others),
                      cues=[("W_K", lambda: self.point_at(
                          *(m[0] for m in others.matrices), each=True, buff=room_round))])
        else:  # W_K's row, then W_V's in its place
            keys, values = others.steps
            self.tell("The same holds for W_K and W_V: every head owns its three projections.",
                      fade_out(names, parts), fade_in(keys),
                      cues=[("W_K", lambda: self.point_at(
                          *(m[0] for m in keys[1]), each=True, buff=room_round)),
                            ("W_V", lambda: AnimationGroup(fade_out(keys), fade_in(values),
                                                           self.point_at(
                                *(m[0] for m in values[1]), each=True, buff=room_round)))])
            others = values
        self.section("join projections")
        bodies = VGroup(*(mat.body for mat in mats))
        closed = bodies.copy().arrange(RIGHT, buff=gap).move_to(bodies)
        closed.align_to(bodies, UP)
        closed.set_x(bodies.get_x())
        sides = brackets(closed)
        shift = names.get_right()[0] - (sides[0].get_left()[0] - 0.35)  # names stay beside
        wide = self.bound("one wide W_Q  [{m}, {j}]", 24, INK, m="dims.d_model",
                          j="dims.joined").next_to(VGroup(closed, sides), UP, buff=0.25)
        query = self.wide_query(closed, sides, scale)

        # Each piece on its own, so that the cued join can take away the ones it drops.
        dropped = [piece for part, mat in zip(parts, mats, strict=True)
                   for piece in (part[1], part[2], mat.brackets)]

        def join() -> Animation:
            return AnimationGroup(
                *(mat.body.animate.shift(target.get_center() - mat.body.get_center())
                  for mat, target in zip(mats, closed, strict=True)),
                names.animate.shift(LEFT * shift), fade_out(*dropped), fade_in(sides, wide))

        self.tell("Back to W_Q: set side by side, the heads' blocks are the projection of one "
                  "wide head; no entry changes.", fade_out(others),
                  fade_in(names, *bodies, *dropped), cues=[("side by side", join)])
        self.tell("Joined, the wide projection has {j} columns: every query, key and value "
                  "is {k} coordinates long.",
                  cues=[("Joined", lambda: self.point_at(wide, VGroup(closed, sides),
                                                         each=True, buff=OUTLINE_ROOM))],
                  j="dims.joined", k="dims.joined")
        self.tell("The final “{w}” gets this wide query: each head's query, side by side.",
                  fade_in(query),
                  cues=[("wide query", lambda: self.point_at(query.row))],
                  words={"w": self.tokens[self.last]})
        self.blocks = VGroup(bodies, names, sides, wide, query)

    def keys_and_values(self, top: float, room: float) -> VGroup:
        """Every head's W_K and W_V with their numbers, each under its name, the input
        features named beside each row of matrices: in one row, or W_K above W_V, whichever
        draws them larger. ``matrices``: each matrix with its name above it; ``drawn_at``: the
        scale they are drawn at; ``steps``: when one picture would draw the numbers too small,
        W_K's row and W_V's, each drawn on the whole page, to be shown one after the other
        (else ``None``)."""
        made = {}
        for kind in "KV":
            for head in self.heads:
                colour = self.head_colour(head)
                mat = self.matrix(f"params.h{head}.W_{kind}", size=22, colour=colour)
                shape = self.bound(f"W_{kind}  {{s}}", 22, colour,
                                   s=f"shapes.W_{kind}").next_to(mat, UP, 0.25)
                made[kind, head] = VGroup(mat, shape)
        names_width = max(self.feature(i, 22).width for i in range(self.ws.d_model)) + 0.35
        rows = VGroup(*(VGroup(*(made[kind, h] for h in self.heads)).arrange(
            RIGHT, buff=0.5, aligned_edge=UP) for kind in "KV")).arrange(DOWN, buff=0.4)
        row_scale = min(1.8, 13.0 / (rows.width + names_width), room / rows.height)
        line = VGroup(*made.values()).copy().arrange(RIGHT, buff=0.5, aligned_edge=UP)
        line_scale = min(1.8, 13.0 / (line.width + names_width), room / line.height)
        by_kind = [[made[kind, h] for h in self.heads] for kind in "KV"]
        drawn_at = max(row_scale, line_scale)
        split = 22 * drawn_at < LEAST_FIGURE_SIZE  # too many numbers for one picture
        lines = by_kind if split or row_scale >= line_scale else [list(made.values())]
        page = VGroup()
        for items in lines:
            group = VGroup(*items).arrange(RIGHT, buff=0.5, aligned_edge=UP)
            first = items[0][0]
            names = VGroup(*(self.feature(i, 22) for i in range(self.ws.d_model)))
            for label, cells in zip(names, first.cells, strict=True):
                label.set_y(cells[0].get_y())
                label.shift(RIGHT * (first.brackets[0].get_left()[0] - 0.35
                                     - label.get_right()[0]))
            page.add(VGroup(names, group))
        page.steps = None
        if split:  # W_K, then W_V, each on the whole page
            page.steps, scales = list(page), []
            for step in page.steps:
                scales.append(min(1.8, 13.0 / step.width, room / step.height))
                step.scale(scales[-1]).move_to([0, top - step.height / 2 - 0.1, 0])
            page.drawn_at = min(scales)
            return page
        page.arrange(DOWN, buff=0.25)
        page.drawn_at = drawn_at
        page.scale(page.drawn_at)
        page.matrices = list(made.values())
        return page.move_to([0, top - page.height / 2 - 0.1, 0])

    def wide_query(self, closed: VGroup, sides: VGroup, scale: float) -> VGroup:
        """The final receiver's query of the wide head, under the joined W_Q (``closed``,
        each head's block where it will stand): each shown coordinate under its column, in
        its head's colour, bound to that head's query; its name beneath."""
        numbers = VGroup()
        y = sides.get_bottom()[1] - QUERY_GAP * scale
        for head, block in zip(self.heads, closed, strict=True):
            for place, c in enumerate(shown_indices(self.ws.d_head)):
                number = (self.label("…", 22, MUTED) if c is None else
                          self.num(f"{self.s}.h{head}.Q[{self.last}][{c}]", 22,
                                   self.head_colour(head)))
                number.scale(scale).move_to([block[place].get_x(), y, 0])
                numbers.add(number)
        if any(b.get_left()[0] - a.get_right()[0] < 0.25 * scale for a, b in pairwise(numbers)):
            numbers.arrange(RIGHT, buff=0.35 * scale).move_to([closed.get_x(), y, 0])
        span = Rectangle(width=max(closed.width, numbers.width), height=numbers.height)
        row = VGroup(numbers, brackets(span.move_to([closed.get_x(), numbers.get_y(), 0])))
        name = self.bound("query of the final “{w}”", 20 * scale, INK,
                          words={"w": self.tokens[self.last]})
        name.next_to(row, DOWN, buff=0.2 * scale).set_x(row.get_x())
        query = VGroup(name, row)
        query.row = row
        return query

    def feature(self, index: int | None, size: float) -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided coordinate."""
        if index is None:
            return self.label("…", size, MUTED)
        return self.bound("{f}", size, MUTED, words={"f": self.ws.lesson.features[index]})

    def scales(self) -> None:
        """The wide head's dot product for its favourite source, product by product, and
        its √ scale, against each head's own products and scale."""
        top = self.v.value(f"{self.s}.wide.top_source")
        words = {"w": self.tokens[top]}
        terms, slots = slots_of("p", f"{self.s}.wide.products[{top}]", self.ws.d_model, " + ")
        lines = VGroup(self.bound("wide head, “{w}”:  " + terms + " = {c},   then ÷ √{j}", 26,
                                  INK, words=words, c=f"{self.s}.wide.dots[{top}]",
                                  j="dims.joined", **slots))
        for head in self.heads:
            terms, slots = slots_of("p", f"{self.s}.h{head}.products[{top}]", self.ws.d_head,
                                  " + ")
            lines.add(self.bound("Head {h}:  " + terms + " = {c},   then ÷ √{d}", 26,
                                 self.head_colour(head), h=f"dims.head_numbers[{head - 1}]",
                                 c=f"{self.s}.h{head}.dots[{top}]", d="dims.d_head",
                                 **slots))
        lines.arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        factors = self.factors(lines[0], top)
        page = VGroup(factors, lines)
        fit(page, 13.0, 5.5).move_to(DOWN * 0.2)
        self.scale_lines = page
        self.say("The wide head adds up {j} coordinate products per source, here for “{w}”, "
                 "and divides by √{k};", fade_in(factors, lines[0]),
                 self.point_at(factors.numbers, factors.products),
                 words=words, j="dims.joined", k="dims.joined")
        self.say("each separate head adds up {d}, divides by √{e}, then runs its own softmax.",
                 fade_in(*lines[1:]), self.point_at(*lines[1:]), d="dims.d_head",
                 e="dims.d_head")

    def factors(self, products: Mobject, top: int) -> VGroup:
        """Above each wide product: the final receiver's query coordinate, and under it
        the favourite source's key coordinate, in the colour of the head they come from;
        each row named on its left."""
        size = 26
        gap = 0.5
        numbers = VGroup()
        shown = shown_indices(self.ws.d_model)
        places = [sum(1 for m in shown[:i] if m is not None) for i in range(len(shown))]
        # An elided "…" stands midway between its neighbours' products.
        xs = [VGroup(*products.figure_glyphs(p)).get_x() if k is not None else None
              for k, p in zip(shown, places, strict=True)]
        xs = [x if x is not None else (xs[i - 1] + xs[i + 1]) / 2 for i, x in enumerate(xs)]
        for r, (kind, j) in enumerate((("Q", self.last), ("K", top))):
            y = products.get_y() + gap * (2 - r)
            row = VGroup()
            for k, x in zip(shown, xs, strict=True):
                number = (self.label("…", size, MUTED) if k is None else
                          self.num(f"{self.s}.h{k // self.ws.d_head + 1}.{kind}[{j}]"
                                   f"[{k % self.ws.d_head}]", size,
                                   self.head_colour(k // self.ws.d_head + 1)))
                row.add(number.move_to([x, y, 0]))
            numbers.add(row)
        left = VGroup(*products.figure_glyphs(0)).get_left()[0] - 0.4
        names = VGroup(
            self.bound("query of “{w}”", 22, MUTED, words={"w": self.tokens[self.last]}),
            self.bound("× key of “{w}”", 22, MUTED, words={"w": self.tokens[top]}))
        for name, row in zip(names, numbers, strict=True):
            name.move_to([left, row.get_y(), 0], aligned_edge=RIGHT)
        made = VGroup(names, numbers)
        made.numbers = numbers
        made.products = VGroup(*(glyph for p in range(places[-1] + (shown[-1] is not None))
                                 for glyph in products.figure_glyphs(p)))
        return made

    def weight_table(self, heading: Mobject) -> None:
        """Source words, each with the wide head's weight bar beside every head's: the bars
        of a row are that source's weights, one scale for all. Right of them, room for each
        source's value row and, under the table, for the messages the weights mix
        (:meth:`mixing` shows them). Each number stands after its bar, or, where that
        leaves the numbers too small to read, over it."""
        count = len(self.tokens)
        row_h = min(0.42, 4.2 / count)
        size = max(LEAST_FIGURE_SIZE + 0.5, min(24.0, row_h * 52))
        header_y = 2.35
        ys = [header_y - 0.55 - j * row_h for j in range(count)]
        columns = [(self.label("wide head", 22), f"{self.s}.wide.weights", MUTED, INK)]
        columns += [(self.head_label(h, 22), f"{self.s}.h{h}.weights", self.head_colour(h),
                     self.head_colour(h)) for h in self.heads]
        words = VGroup(*(self.word(t, size).move_to([-0.3, y, 0], aligned_edge=RIGHT)
                         for t, y in zip(self.tokens, ys, strict=True)))
        top = heading.get_bottom()[1] - 0.3
        for under in (False, True):
            bars, lefts = self.bar_columns(columns, ys, size, row_h, under)
            self.cells: list[list[Mobject]] = bars  # the share row stands under them
            for (header, *_), left in zip(columns, lefts, strict=False):
                header.move_to([left, header_y, 0], aligned_edge=LEFT)
            self.mix = self.mix_rows(ys, header_y, size, row_h, lefts[-1] + 0.1)
            whole = VGroup(words, *(header for header, *_ in columns), *map(VGroup, bars),
                           self.mix.hidden)
            scale = min(1.0, 13.4 / whole.width, (top - (SAFE_BOTTOM + 0.1)) / whole.height)
            if under or min(size, 22) * scale >= LEAST_FIGURE_SIZE + 0.5:
                break
        shown = [VGroup(header, *cells) for (header, *_), cells in zip(columns, bars,
                                                                       strict=True)]
        table = VGroup(words, *shown)
        weights_only = VGroup(*table)
        whole = VGroup(table, self.mix.hidden)
        whole.shift(RIGHT * -whole.get_center()[0])
        whole.scale(scale)
        whole.shift(UP * (top - whole.get_top()[1]))
        # Under the weight columns (where the messages will stand).
        note = VGroup(self.bound("wide head: one column for all {j} value coordinates",
                                 LEAST_FIGURE_SIZE, MUTED, j="dims.joined"),
                      self.bound("each head: a column for its {d}", LEAST_FIGURE_SIZE, MUTED,
                                 d="dims.d_head")).arrange(DOWN, buff=0.12)
        note.next_to(VGroup(*(column[-1] for column in self.cells)), DOWN, buff=0.3)
        note.set_x(max(weights_only.get_x(), -6.8 + note.width / 2))
        table.add(note)
        self.words = words
        self.headers = VGroup(*(column[0] for column in shown))
        self.table = table
        self.note = note
        self.say("Here are the wide head's weights for every source, each drawn as a bar.",
                 fade_in(words, shown[0][0]),
                 LaggedStart(*map(grow, self.cells[0]), lag_ratio=0.1))
        self.say("Each separate head has its own column, for its own coordinates.",
                 fade_in(*(column[0] for column in shown[1:]), note),
                 LaggedStart(*(grow(bar) for cells in self.cells[1:] for bar in cells),
                             lag_ratio=0.05),
                 self.point_at(*shown[1:]))
        self.play(self.unpoint())

    def bar_columns(self, columns: list[tuple], ys: list[float], size: float, row_h: float,
                    under: bool) -> tuple[list[list[WeightBar]], list[float]]:
        """A column of weight bars for each of ``columns`` (header, key, fill, ink), one
        scale for all, each at its row's ``ys``: the bar, its number after it; or, ``under``,
        the number at the row and the bar under it, no longer than the widest number. The
        bars by column, and where each column starts (and, last, where the value rows may
        start)."""
        heaviest = max(float(w) for _, key, _, _ in columns for w in self.v.value(key))
        height = row_h * (0.2 if under else 0.55)
        if under:
            widest = max(self.num(f"{key}[{j}]", size).width for _, key, _, _ in columns
                         for j in range(len(ys)))
            unit = widest / max(heaviest, 1e-9)
        else:  # the bars share the width the value rows leave: shorter with more heads
            unit = min(BAR_UNIT, 3.3 / len(columns) / max(heaviest, 1e-9))
        bars = [[self.weight_bar(f"{key}[{j}]", fill_colour, size, height, unit, ink)
                 for j in range(len(ys))] for _, key, fill_colour, ink in columns]
        if under:
            for cells in bars:
                for bar in cells:
                    bar.number.move_to(bar.bar.get_left() + UP * row_h * 0.1,
                                       aligned_edge=LEFT)
                    bar.bar.next_to(bar.number, DOWN, buff=row_h * 0.1).align_to(
                        bar.number, LEFT)
        lefts, at = [], 0.0
        for (header, *_), cells in zip(columns, bars, strict=True):
            lefts.append(at)
            at += max([header.width, *(bar.width for bar in cells)]) + (0.4 if under else 0.5)
        for left, cells in zip(lefts, bars, strict=True):
            for bar, y in zip(cells, ys, strict=True):
                middle = bar.number.get_y() - row_h * 0.1 if under else bar.bar.get_y()
                bar.shift([left - bar.get_left()[0], y - middle, 0])
        return bars, [*lefts, at]

    def mix_rows(self, ys: list[float], header_y: float, size: float, row_h: float,
                 left: float) -> VGroup:
        """Each source's value row (every head's values side by side, each coordinate in
        its head's colour, under the feature it carries), from ``left``; under the table,
        the wide head's message and the separate heads' joined one, each named in the word
        column, and a row for the weight each column puts on the sources that carry the
        twin head's changed coordinate. Attributes: ``names``, ``values`` (rows of cells),
        ``columns`` (the value cells by coordinate), ``wide`` and ``joined`` (the messages'
        numbers), ``titles``, ``share`` (the share row's name and numbers, or ``None``),
        ``shown`` (the coordinates drawn) and ``hidden`` (everything, for the layout)."""
        shown, d = shown_indices(self.ws.d_model), self.ws.d_head
        names = carried_names(self, size)  # a head's number where no name
        values = [[self.label("…", size, MUTED) if k is None else
                   self.num(f"{self.s}.wide.V[{j}][{k}]", size, self.head_colour(k // d + 1))
                   for k in shown] for j in range(len(self.tokens))]

        def message(key: str, coloured: bool) -> list[Mobject]:
            return [self.label("…", size, MUTED) if k is None else
                    self.num(f"{key}[{k}]", size,
                             self.head_colour(k // d + 1) if coloured else INK)
                    for k in shown]

        wide = message(f"{self.s}.wide.message", False)
        joined = message(f"{self.s}.joined[{self.last}]", True)
        width = max(m.width for m in [*names, *wide, *joined, *(c for r in values for c in r)])
        pitch = width + 0.35
        below = [ys[-1] - row_h * (1.25 + r) for r in range(3)]
        for c in range(len(shown)):
            right = left + c * pitch + width
            names[c].move_to([right - width / 2, header_y, 0])
            for cell, y in zip([row[c] for row in values] + [wide[c], joined[c]],
                               [*ys, *below[:2]], strict=True):
                cell.move_to([right, y, 0], aligned_edge=RIGHT)
        rule = Line([left, ys[-1] - row_h * 0.75, 0], [left + len(shown) * pitch - 0.35,
                                                      ys[-1] - row_h * 0.75, 0],
                    stroke_color=MUTED, stroke_width=2)
        titles = VGroup(self.label("wide head", size, INK),
                        self.label("separate heads, joined", size, INK))
        for title, y in zip(titles, below[:2], strict=True):  # each beside its numbers
            title.move_to([left - 0.3, y, 0], aligned_edge=RIGHT)
        share = None
        w = f"{self.s}.wide"
        twin, changed = self.v.value(f"{w}.twin"), self.v.value(f"{w}.changed")
        copies = copied_features(self.v, twin + 1, "V") if twin >= 0 else None
        if changed in shown and copies is not None and len(self.heads) > 1:
            feature = self.ws.lesson.features[copies[changed % d]]
            share = VGroup(
                self.bound("weight on {g} rows", size, MUTED, words={"g": feature}),
                self.num(f"{w}.carried_share", size),
                self.num(f"{w}.twin_carried_share", size, self.head_colour(twin + 1)))
            share[0].move_to([-0.3, below[2], 0], aligned_edge=RIGHT)
            for number, column in zip(share[1:], (0, twin + 1), strict=True):
                number.move_to([self.cells[column][0].get_left()[0], below[2], 0],
                               aligned_edge=LEFT)
            share.feature = feature
        mix = VGroup(*names, *(c for r in values for c in r), rule, *wide, *joined, *titles,
                     *([share] if share else []))
        mix.names, mix.values, mix.wide, mix.joined = VGroup(*names), values, wide, joined
        mix.columns = [VGroup(*(row[c] for row in values)) for c in range(len(shown))]
        mix.rule, mix.titles, mix.share, mix.shown, mix.hidden = rule, titles, share, shown, mix
        return mix

    def compare(self) -> None:
        """For each head's favourite source: the head's weight, then the wide head's, in one
        sentence, each boxed as it is said."""
        boxes = VGroup()
        picks = []
        for column, head in enumerate(self.heads, start=1):
            top = self.v.value(f"{self.s}.h{head}.top_source")
            colour = self.head_colour(head)
            pair = VGroup(self.highlight(self.cells[0][top].number, colour),
                          self.highlight(self.cells[column][top].number, colour),
                          self.highlight(self.words[top], colour))
            boxes.add(pair)
            picks.append((head, top, pair))
        self.boxes = boxes
        if len(self.heads) == 1:
            head, top, pair = picks[0]
            self.say("With a single head there is nothing to join: the wide head is that "
                     "head, and “{w}” gets {x} either way.", *map(Create, pair),
                     words={"w": self.tokens[top]}, x=f"{self.s}.wide.weights[{top}]")
            return
        parts, theirs, keys, words, cues = [], [], {}, {}, []
        for i, (head, top, pair) in enumerate(picks):
            parts.append(f"head {{h{i}}} gives “{{w{i}}}” {{x{i}}}")
            theirs.append(f"{{y{i}}}")
            keys |= {f"h{i}": f"dims.head_numbers[{head - 1}]",
                     f"x{i}": f"{self.s}.h{head}.weights[{top}]",
                     f"y{i}": f"{self.s}.wide.weights[{top}]"}
            words[f"w{i}"] = self.tokens[top]
            cues.append((f"{{x{i}}}", lambda pair=pair: AnimationGroup(Create(pair[1]),
                                                                      Create(pair[2]))))
        cues += [(f"{{y{i}}}", lambda pair=pair: Create(pair[0]))
                 for i, (_, _, pair) in enumerate(picks)]
        said = ENGLISH.join(parts)
        self.tell_cued(said[0].upper() + said[1:] + "; the wide head's single column gives "
                       "them " + ENGLISH.join(theirs) + ".", cues=cues, words=words, **keys)
        self.tell("One column has to serve every coordinate, so it cannot follow each "
                  "head's favourite at once: it favours the source whose matches add up "
                  "highest, while separate heads each keep their own.",
                  cues=[("One column", lambda: self.point_at(*self.cells[0])),
                        ("separate", lambda: self.point_at(
                            *(cell for cells in self.cells[1:] for cell in cells)))])

    def pooled(self, heading: Mobject) -> None:
        """Why the wide head favours its top source, in two pictures: its dot product for a
        source is the sum of every head's, divided once by √(joined width), for the wide
        head's favourite and each head's favourite, summed term by term in the heads'
        colours; then the softmax of those scores, its exponentials and their sum over
        every source, gives the weights."""
        top = self.v.value(f"{self.s}.wide.top_source")
        picks = [int(j) for j in self.v.value(f"{self.s}.wide.picked")]  # top first
        table = self.legible(lambda small: self.scoring_table(heading, picks, small))
        header, rows, own = table.header, table.rows, table.own
        first = rows[0]
        words = {"w": self.tokens[top]}
        self.tell("Which source will the wide head favour? For each source, its dot product "
                  "adds up every head's.", fade_in(header, first),
                  cues=[("adds", lambda: self.point_at(first.terms, first.sum))], words=words)
        slots = {f"a{chr(97 + k)}": f"{self.s}.h{h}.dots[{top}]"
                 for k, h in enumerate(self.heads)}
        terms = " + ".join("{" + slot + "}" for slot in slots)
        self.tell_cued("For “{w}”: " + terms + " = {c}, divided by √{j}, that is by {x}, gives "
                       "the score {y}.",
                       cues=[("{c}", lambda: self.point_at(first.sum)),
                             ("{x}", lambda: self.point_at(first.scale)),
                             ("{y}", lambda: self.point_at(first.score))],
                       words=words, c=f"{self.s}.wide.dots[{top}]", j="dims.joined",
                       x="dims.sqrt_joined", y=f"{self.s}.wide.scores[{top}]", **slots)
        if len({str(self.v.value(key)) for key in slots.values()}) == 1:
            if len(self.heads) == 2:
                self.tell("Head {a} and head {b} happen to give “{w}” the same dot product.",
                          self.point_at(*first.terms, each=True), words=words,
                          a="dims.head_numbers[0]", b="dims.head_numbers[1]")
            else:
                self.tell("Every head happens to give “{w}” the same dot product.",
                          self.point_at(*first.terms, each=True), words=words)
        for row, j, mark in zip(rows[1:], picks[1:], own, strict=True):
            favourite = next(h for h in self.heads
                             if self.v.value(f"{self.s}.h{h}.top_source") == j)
            slots = {f"a{chr(97 + k)}": f"{self.s}.h{h}.dots[{j}]"
                     for k, h in enumerate(self.heads)}
            terms = " + ".join("{" + slot + "}" for slot in slots)
            self.tell("Head {h}'s favourite, “{w}”, which it weights {o}, totals " + terms
                      + " = {c}: a lower score, {y}.", fade_in(row),
                      cues=[("{o}", lambda mark=mark: AnimationGroup(fade_in(mark),
                                                                     self.point_at(mark))),
                            ("totals", lambda row=row: self.point_at(row.terms, row.sum)),
                            ("{y}", lambda row=row: self.point_at(row.score))],
                      words={"w": self.tokens[j]}, h=f"dims.head_numbers[{favourite - 1}]",
                      o=f"{self.s}.h{favourite}.weights[{j}]",
                      c=f"{self.s}.wide.dots[{j}]", y=f"{self.s}.wide.scores[{j}]", **slots)
        self.section("softmax")
        self.softmax(heading, table, picks)

    def softmax(self, heading: Mobject, scoring: VGroup, picks: list[int]) -> None:
        """The scores carried over into a table of their own: e to each, the other sources'
        and the sum of them all, and each weight as its division by that sum."""
        table = self.legible(lambda small: self.softmax_table(heading, picks, small))
        header, rows, total = table.header, table.rows, table.total
        self.sums = table
        top = picks[0]
        exps = [row.exp for row in rows]
        moved = [(a, b) for old, new in zip(scoring.rows, rows, strict=True)
                 for a, b in ((old.word, new.word), (old.score, new.score))]
        # the scores move into the softmax's table as its sentence begins
        carried = [*(ReplacementTransform(a, b) for a, b in moved),
                   self.gone(scoring.header, *scoring.own,
                             *(cell for row in scoring.rows for cell in row
                               if cell is not row.word and cell is not row.score)),
                   fade_in(header[0])]
        # every term of the sum is said, so that what is heard adds up
        raised = ", ".join(f"{{e{i}}} for “{{w{i}}}”" for i in range(len(picks)))
        self.tell_cued("The softmax raises e to each score: " + raised + " and {o} from "
                       "the other {n:source} add up to {d}.",
                       *carried, fade_in(header[1], *exps),
                       cues=[*((f"{{e{i}}}", lambda row=row: self.point_at(row.exp))
                               for i, row in enumerate(rows)),
                             ("{o}", lambda: AnimationGroup(fade_in(total.others),
                                                            self.point_at(total.number))),
                             ("{d}", lambda: AnimationGroup(
                                 fade_in(total.sum), self.point_at(*exps, total.number,
                                                                   total.total)))],
                       words={f"w{i}": self.tokens[j] for i, j in enumerate(picks)},
                       o=f"{self.s}.wide.exps_others", n=f"{self.s}.wide.others",
                       d=f"{self.s}.wide.denominator",
                       **{f"e{i}": f"{self.s}.wide.exps[{j}]" for i, j in enumerate(picks)})
        for row, j in zip(rows, picks, strict=True):
            self.tell_cued("The weight of “{w}” is {e} ÷ {d} = {x}.",
                           *([fade_in(header[-1])] if j == top else []),
                           cues=[("÷", lambda row=row: AnimationGroup(
                               fade_in(row.weight), self.point_at(row.exp, row.weight)))],
                           words={"w": self.tokens[j]}, e=f"{self.s}.wide.exps[{j}]",
                           d=f"{self.s}.wide.denominator", x=f"{self.s}.wide.weights[{j}]")
        self.tell("So one weight row pools every head's match, and “{w}”, with the largest "
                  "total, gets the largest weight.", words={"w": self.tokens[top]},
                  cues=[("“{w}”", lambda: self.point_at(rows[0]))])

    def legible(self, build: Callable[[float], VGroup]) -> VGroup:
        """A table ``build`` makes with its labels at a given size, that size grown until
        the scale the table is drawn at still shows them at :data:`LEAST_FIGURE_SIZE`."""
        small = LEAST_FIGURE_SIZE
        for _ in range(3):
            table = build(small)
            if small * table.drawn_at >= LEAST_FIGURE_SIZE:
                break
            small = LEAST_FIGURE_SIZE / table.drawn_at + 0.3
        return table

    def placed(self, heading: Mobject, table: VGroup) -> VGroup:
        """``table`` scaled (never past 1.3) to fit the page under ``heading``, centred;
        ``drawn_at``: that scale."""
        top_y = heading.get_bottom()[1] - 0.5
        scale = min(1.3, 13.0 / table.width, (top_y - (SAFE_BOTTOM + 0.3)) / table.height)
        table.scale(scale)
        table.move_to([0, top_y - table.height / 2, 0])
        table.drawn_at = scale
        return table

    @staticmethod
    def columns(rows: list[VGroup], headed: Mapping[int, Mobject], gaps: Sequence[float],
                right: Sequence[int], least: Mapping[int, float] | None = None,
                ) -> tuple[list[float], list[float]]:
        """Lay ``rows`` out in columns, each as wide as its widest cell or header
        (``headed``: a header by column) and at least as ``least`` says, ``gaps`` after
        each; cells centred, those of the ``right`` columns right-aligned; headers above.
        The columns' centres and widths."""
        least = least or {}
        widths = [max([*(row[c].width for row in rows), least.get(c, 0.0)]
                      + ([headed[c].width] if c in headed else [])) for c in range(len(gaps))]
        xs, at = [], 0.0
        for width, gap in zip(widths, gaps, strict=True):
            xs.append(at + width / 2)
            at += width + gap
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cell.move_to([xs[c], -r * 0.8, 0])
                if c in right:
                    cell.shift(RIGHT * (xs[c] + widths[c] / 2 - cell.get_right()[0]))
        for c, label in headed.items():
            label.move_to([xs[c], 0.75, 0])
        return xs, widths

    def scoring_table(self, heading: Mobject, picks: list[int], small: float) -> VGroup:
        """Each picked source's wide dot product as the sum of the heads' terms, its scale
        and its score, the labels at ``small`` (before the scale it is drawn at); under a
        head's favourite (not the wide head's), that head's own weight. Attributes
        ``header``, ``rows``, ``own`` and ``drawn_at``."""
        size = 26
        header = VGroup(*(self.head_label(h, small) for h in self.heads),
                        self.label("wide dot", small, MUTED),
                        self.bound("÷ √{j}", small, MUTED, j="dims.joined"),
                        self.label("score", small, MUTED))
        rows = []
        for j in picks:
            terms = [self.num(f"{self.s}.h{h}.dots[{j}]", size, self.head_colour(h))
                     for h in self.heads]
            cells = [self.word(self.tokens[j], size)]
            for k, term in enumerate(terms):
                cells += [term] if k == 0 else [self.label("+", size, MUTED), term]
            cells += [self.label("=", size, MUTED), self.num(f"{self.s}.wide.dots[{j}]", size),
                      # "÷ 2 =": the division written out (√4, whole), not a bare number
                      self.bound("÷ {x} =", size, MUTED, mono=True, x="dims.sqrt_joined"),
                      self.num(f"{self.s}.wide.scores[{j}]", size)]
            line = VGroup(*cells)
            line.terms, line.word = VGroup(*terms), cells[0]
            line.sum, line.scale, line.score = cells[-3], cells[-2], cells[-1]
            rows.append(line)
        # Columns: word, each head's term (with "+" between), "=", sum, scale, score.
        count = len(rows[0])
        term_columns = [1 + 2 * k for k in range(len(self.heads))]
        headed = dict(zip([*term_columns, *range(count - 3, count)], header, strict=True))
        self.columns(rows, headed, [0.4 if c == 0 or c >= count - 3 else 0.2
                                    for c in range(count)], right=(0,))
        own = []  # under a head's favourite (not the wide head's): that head's own weight,
        # beneath the head's term
        for row, j in zip(rows[1:], picks[1:], strict=True):
            h = next(h for h in self.heads if self.v.value(f"{self.s}.h{h}.top_source") == j)
            mark = self.bound("Head {h}: {a}", small, self.head_colour(h),
                              h=f"dims.head_numbers[{h - 1}]", a=f"{self.s}.h{h}.weights[{j}]")
            term = row.terms[self.heads.index(h)]
            own.append(mark.next_to(term, DOWN, buff=0.12).align_to(term, LEFT))
        table = self.placed(heading, VGroup(header, *rows, *own))
        table.header, table.rows, table.own = header, rows, own
        return table

    def softmax_table(self, heading: Mobject, picks: list[int], small: float) -> VGroup:
        """Each picked source's score, e to it, and its weight written as the division that
        makes it; under the e^score column, the other sources' sum and the sum of them all.
        Attributes ``header``, ``rows``, ``total`` and ``drawn_at``."""
        size = 26
        header = VGroup(self.label("score", small, MUTED), self.label("e^score", small, MUTED),
                        self.label("weight", small, MUTED))
        rows = []
        for j in picks:
            line = VGroup(self.word(self.tokens[j], size),
                          self.num(f"{self.s}.wide.scores[{j}]", size),
                          self.num(f"{self.s}.wide.exps[{j}]", size),
                          # the weight as the division that makes it: e^score ÷ their sum
                          self.bound("÷ {d} = {x}", size, INK, mono=True,
                                     d=f"{self.s}.wide.denominator",
                                     x=f"{self.s}.wide.weights[{j}]"))
            line.word, line.score, line.exp, line.weight = line
            rows.append(line)
        # The e^score column is as wide as the other sources' sum written under it.
        under = self.bound("+ {o}", size, INK, mono=True, o=f"{self.s}.wide.exps_others")
        xs, widths = self.columns(rows, dict(zip((1, 2, 3), header, strict=True)),
                                  [0.5, 0.6, 0.4, 0.0], right=(0, 2), least={2: under.width})
        total = self.exp_sum(rows, xs, widths, size, small)
        table = self.placed(heading, VGroup(header, *rows, total))
        table.header, table.rows, table.total = header, rows, total
        return table

    def exp_sum(self, rows: list[VGroup], xs: list[float], widths: list[float],
                size: float, small: float) -> VGroup:
        """Under the e^score column of the pooled table: the other sources' e^score summed
        (named in the word column), a rule, and the sum of them all, the softmax's
        denominator, each number right under the ones it adds to. Attributes: ``others``
        (the other sources' line) and ``sum`` (the rule and the total)."""
        column = len(rows[0]) - 2  # the e^score column
        right = xs[column] + widths[column] / 2
        words_right = xs[0] + widths[0] / 2
        y = -len(rows) * 0.8
        name = self.bound("other {n:source}", small, MUTED, n=f"{self.s}.wide.others")
        number = self.bound("+ {o}", size, INK, mono=True, o=f"{self.s}.wide.exps_others")
        total_name = self.bound("all {n}", small, MUTED, n="dims.tokens")
        total = self.num(f"{self.s}.wide.denominator", size)
        for mob, at, level in ((name, words_right, y), (number, right, y),
                               (total_name, words_right, y - 0.85), (total, right, y - 0.85)):
            mob.move_to([at, level, 0], aligned_edge=RIGHT)
        rule = Line([right - number.width, y - 0.42, 0], [right, y - 0.42, 0],
                    stroke_color=MUTED, stroke_width=2)
        made = VGroup(name, number, rule, total_name, total)
        made.others, made.sum = VGroup(name, number), VGroup(rule, total_name, total)
        made.number, made.total = number, total
        return made

    def tell_cued(self, template: str, *shown: Animation,
                  cues: Sequence[tuple[str, Callable[[], Animation]]] = (),
                  words: Mapping[str, str] | None = None, **keys: str) -> None:
        """:meth:`tell`, with each cue placed where the voice says it: a number takes
        longer to say than its slot takes to read, so in a sentence of numbers the cues
        would otherwise run ahead of the voice."""
        away = self.unpoint()
        opening = [*shown, *([away] if away else [])]
        spoken = {name: self.v.spoken(key) for name, key in keys.items()} | dict(words or {})
        speech = self.voice.speak(fill(template, self.v, keys, words).spoken)
        steps = [(fragment, make()) for fragment, make in cues]
        self.say(template, cued(template, steps, speech.seconds if speech else None,
                                opening=opening, spoken=spoken), words=words, **keys)

    def mixing(self) -> None:
        """The value rows beside the weights; each message coordinate summed down its value
        column, weight × value, for the wide head's one column and for each head's own;
        then, where the features are known, how the coordinates of the head whose favourite
        the wide head shares come through, and why the one that changes does."""
        mix, d = self.mix, self.ws.d_head
        known = all(copied_features(self.v, h, "V") is not None for h in self.heads)
        shown = mix.shown
        named = {}
        for k in shown:
            if known and k is not None:
                named[f"f{k}"] = self.ws.lesson.features[
                    copied_features(self.v, k // d + 1, "V")[k % d]]
        self.play(*filter(None, [self.unpoint()]), fade_out(self.boxes, self.note))
        self.tell_values(named)
        order = self.v.value(f"{self.s}.wide.order")[:2]
        heavy = [piece for j in order for piece in (self.cells[0][j], VGroup(*mix.values[j]))]

        def summed(row: list[Mobject], column: int) -> list[tuple[str, Callable]]:
            """A cue for each shown coordinate: its number appears as its value column and
            the weight column that mixes it are outlined."""
            made = []
            for p, k in enumerate(shown):
                if k is None:
                    continue
                weights = VGroup(*self.cells[column if column >= 0 else k // d + 1])
                made.append(("{f" + str(k) + "}" if known else "{" + f"x{k}" + "}",
                             lambda p=p, weights=weights: AnimationGroup(
                                 fade_in(row[p]), self.point_at(weights, mix.columns[p],
                                                                each=True))))
            return made

        listing = ENGLISH.join(["…" if k is None else
                                "{f" + str(k) + "} {x" + str(k) + "}" if known else
                                "{x" + str(k) + "}" for k in shown])
        keys_w = {f"x{k}": f"{self.s}.wide.message[{k}]" for k in shown if k is not None}
        keys_j = {f"x{k}": f"{self.s}.joined[{self.last}][{k}]" for k in shown if k is not None}
        self.tell_cued("Each coordinate of the wide head's message adds up weight × value down "
                       "its column: " + listing + ".", fade_in(mix.titles[0], mix.rule),
                       cues=[("weight × value", lambda: self.point_at(*heavy, each=True)),
                             *summed(mix.wide, 0)],
                       words=named, **keys_w)
        if len(self.heads) == 1:
            self.tell_cued("The one head, on its own, sends the same: " + listing + ".",
                           fade_in(mix.titles[1]), cues=summed(mix.joined, -1), words=named,
                           **keys_j)
            return
        self.tell_cued("The separate heads, each with its own column, send " + listing
                       + " once joined.", fade_in(mix.titles[1]), cues=summed(mix.joined, -1),
                       words=named, **keys_j)
        twin = self.v.value(f"{self.s}.wide.twin")
        if known and self.tell_kept(mix, twin + 1 if twin >= 0 else None):
            self.tell_carriers(mix, twin + 1)

    def tell_values(self, named: dict[str, str]) -> None:
        """The value rows come in beside the weights: which features each head's values
        hold, in its colour, and what the feature that will change stands for."""
        mix = self.mix
        cells = VGroup(*(cell for row in mix.values for cell in row))
        if not named:
            self.tell("Beside the weights, the value rows, each coordinate in the colour of "
                      "its head.", fade_in(mix.names, cells),
                      cues=[("value rows", lambda: self.point_at(cells))])
            return
        parts, words = [], {}
        for head in self.heads:
            copies = copied_features(self.v, head, "V")
            slots = []
            for c, feature in enumerate(copies):
                words[f"v{head}_{c}"] = self.ws.lesson.features[feature]
                slots.append("{" + f"v{head}_{c}" + "}")
            parts.append(ENGLISH.join(slots) + f" from head {{h{head}}}")
        keys = {f"h{h}": f"dims.head_numbers[{h - 1}]" for h in self.heads}
        cues = [("value rows", lambda: self.point_at(cells))]
        said = "Beside the weights, the value rows: " + ", ".join(parts)
        share = mix.share
        note = self.ws.lesson.feature_notes.get(share.feature) if share is not None else None
        if note:
            column = mix.columns[mix.shown.index(self.v.value(f"{self.s}.wide.changed"))]
            header = mix.names[mix.shown.index(self.v.value(f"{self.s}.wide.changed"))]
            said += "; {g} stands for {n}"
            words |= {"g": share.feature, "n": note}
            cues.append(("{g}", lambda: self.point_at(header, column)))
        self.tell_cued(said + ".", fade_in(mix.names, cells), cues=cues, words=words, **keys)

    def tell_carriers(self, mix: VGroup, twin: int) -> None:
        """Why the twin head's changed coordinate moves: the sources that carry it get
        much less (or more) of the wide head's column than of the twin head's, both sums
        written in the row under the table as they are said."""
        share = mix.share
        if share is None:
            return
        w = f"{self.s}.wide"
        carriers = [j for j, c in enumerate(self.v.value(f"{w}.carriers")) if c]
        column = mix.columns[mix.shown.index(self.v.value(f"{w}.changed"))]
        marked = [column[j] for j in carriers]
        less = self.v.value(f"{w}.changed_drops")
        self.tell_cued("The wide head moves weight " + ("off" if less else "onto")
                       + " the rows that carry {g}: they get {a} of its column, against {b} "
                       "of head {h}'s.",
                       cues=[("rows", lambda: self.point_at(*marked, each=True)),
                             ("{a}", lambda: AnimationGroup(
                                 fade_in(share[0], share[1]),
                                 self.point_at(share[1], *(self.cells[0][j].number
                                                           for j in carriers),
                                               each=True))),
                             ("{b}", lambda: AnimationGroup(
                                 fade_in(share[2]),
                                 self.point_at(share[2], *(self.cells[twin][j].number
                                                           for j in carriers),
                                               each=True)))],
                       words={"g": share.feature}, a=f"{w}.carried_share",
                       b=f"{w}.twin_carried_share", h=f"dims.head_numbers[{twin - 1}]")

    def messages(self, heading: Mobject) -> None:
        """The two messages move up into a table of their own, under the name of what each
        coordinate carries; under it, the coordinate the wide head weakens most, worked as
        its sum of weight × value for the wide head and for the head it weakens."""
        mix = self.mix
        size = 26
        names = carried_names(self, 20)

        def row(key: str, coloured: bool) -> list[Mobject]:
            d = self.ws.d_head
            return [self.label("…", size, MUTED) if k is None else
                    self.num(f"{key}[{k}]", size,
                             self.head_colour(k // d + 1) if coloured else INK)
                    for k in mix.shown]

        wide_row = row(f"{self.s}.wide.message", False)
        joined_row = row(f"{self.s}.joined[{self.last}]", True)
        pitch = max(m.width for m in [*names, *wide_row, *joined_row]) + 0.45
        for c, (name, a, b) in enumerate(zip(names, wide_row, joined_row, strict=True)):
            for mob, y in ((name, 0.8), (a, 0.0), (b, -0.8)):
                mob.move_to([c * pitch, y, 0])
        titles = VGroup(self.label("wide head", 22, INK),
                        self.label("separate heads, joined", 22, INK))
        start = min(m.get_left()[0] for m in [*names, *wide_row, *joined_row])
        for title, y in zip(titles, (0.0, -0.8), strict=True):
            title.move_to([start - 0.5, y, 0], aligned_edge=RIGHT)
        table = VGroup(VGroup(*names), titles, *wide_row, *joined_row)
        table.wide, table.joined, table.shown = wide_row, joined_row, mix.shown
        fit(table, 13.0)
        table.next_to(heading, DOWN, buff=0.4).set_x(0)
        fit(self.sums, 13.0, table.get_bottom()[1] - 0.35 - (SAFE_BOTTOM + 0.1))
        self.sums.next_to(table, DOWN, buff=0.35).set_x(0)
        moved = [*zip(mix.names, names, strict=True), *zip(mix.titles, titles, strict=True),
                 *zip(mix.wide, wide_row, strict=True), *zip(mix.joined, joined_row, strict=True)]
        left = [self.words, self.headers, *(cell for cells in self.cells for cell in cells),
                mix.rule, *(cell for r in mix.values for cell in r),
                *([mix.share] if mix.share is not None else [])]
        with self.silence("the two messages move up to be worked"):
            self.play(*filter(None, [self.unpoint()]), self.gone(*left),
                      *(ReplacementTransform(a, b) for a, b in moved), run_time=1.2)
        self.tell_sums(table, self.sums)
        self.play(*filter(None, [self.unpoint()]))

    def coordinate_sums(self) -> VGroup | None:
        """For the first head whose favourite is not the wide head's: the coordinate it
        sends most, worked as a sum of weight × value, for the wide head and for that head,
        side by side: the two heaviest sources, the rest, and the total. ``None`` when every
        head favours the wide head's source.

        Attributes: ``blocks`` (the wide head's, the head's; each with ``title``, ``rows``
        (the two heaviest sources'), ``rest`` and ``total``), ``head``, ``column`` (the
        coordinate in the joined row), ``feature``, ``twin`` (the first head that favours the
        wide head's source, or ``None``)."""
        top = self.v.value(f"{self.s}.wide.top_source")
        head = next((h for h in self.heads
                     if self.v.value(f"{self.s}.h{h}.top_source") != top), None)
        if head is None:
            return None
        c = self.v.value(f"{self.s}.h{head}.message_top")
        k = (head - 1) * self.ws.d_head + c
        feature = self.ws.lesson.features[copied_features(self.v, head, "V")[c]]
        blocks = VGroup(
            self.sum_block(f"{self.s}.wide", k, INK,
                           self.bound("wide head: {f}", 22, INK, words={"f": feature}), feature),
            self.sum_block(f"{self.s}.h{head}", c, self.head_colour(head),
                           self.bound("Head {h}: {f}", 22, self.head_colour(head),
                                      words={"f": feature},
                                      h=f"dims.head_numbers[{head - 1}]"), feature))
        blocks.arrange(RIGHT, buff=1.2, aligned_edge=UP)
        note = self.label("weights rounded; each part uses the unrounded weight", 18, MUTED)
        sums = VGroup(blocks, note.next_to(blocks, DOWN, buff=0.25))
        sums.blocks, sums.head, sums.column, sums.feature = blocks, head, k, feature
        twin = self.v.value(f"{self.s}.wide.twin")
        sums.twin = twin + 1 if twin >= 0 else None
        return sums

    def sum_block(self, prefix: str, coordinate: int, colour: str, title: Mobject,
                  feature: str) -> VGroup:
        """One coordinate of a head's message (``prefix`` its values) as a sum worked in
        columns: each of its two heaviest sources' weight × value and part, the rest, a
        rule and the total, the parts set right under one another."""
        size = 22
        order = self.v.value(f"{prefix}.order")[:2]
        rows = []
        for j in order:
            word = self.word(self.tokens[j], size)
            product = self.bound("{a} × {v}", size, colour, mono=True,
                                 a=f"{prefix}.weights[{j}]", v=f"{prefix}.V[{j}][{coordinate}]")
            part = self.bound("≈ {x}", size, INK, mono=True,
                              x=f"{prefix}.contributions[{j}][{coordinate}]")
            rows.append(VGroup(word, product, part))
        rest = VGroup(self.label("the rest", size, MUTED),
                      self.bound("{x}", size, INK, mono=True, x=f"{prefix}.rest[{coordinate}]"))
        total = self.bound("{x}", size, INK, mono=True, x=f"{prefix}.message[{coordinate}]")
        word_right = max(r[0].width for r in rows) + 0.0
        product_left = word_right + 0.35
        part_right = product_left + max(r[1].width for r in rows) + 0.35 + max(
            r[2].width for r in rows)
        for i, line in enumerate(rows):
            y = -0.55 * i
            line[0].move_to([word_right, y, 0], aligned_edge=RIGHT)
            line[1].move_to([product_left, y, 0], aligned_edge=LEFT)
            line[2].move_to([part_right, y, 0], aligned_edge=RIGHT)
        rest[0].move_to([word_right, -1.1, 0], aligned_edge=RIGHT)
        rest[1].move_to([part_right, -1.1, 0], aligned_edge=RIGHT)
        rule = Line([part_right - 1.2, -1.42, 0], [part_right, -1.42, 0], stroke_color=MUTED,
                    stroke_width=2)
        total.move_to([part_right, -1.75, 0], aligned_edge=RIGHT)
        for line in rows:  # each row's word and product in line with its part
            for mob in line[:2]:
                mob.set_y(line[2].get_y())
        # What the product's two numbers are: the weight, and the source's value there.
        header = self.bound("weight × {f} value", size * 0.8, MUTED, words={"f": feature})
        header.next_to(VGroup(*(r[1] for r in rows)), UP, buff=0.22).align_to(rows[0][1], LEFT)
        body = VGroup(header, *rows, rest, rule, total)
        title.next_to(body, UP, buff=0.3).align_to(body, LEFT)
        block = VGroup(title, body)
        block.title, block.rows, block.rest, block.total = title, rows, rest, total
        block.header = header
        block.rule = rule
        return block

    def tell_kept(self, table: VGroup, twin: int | None) -> bool:
        """How the coordinates of the head whose favourite the wide head shares come
        through: one about the same, one that changes much, when there are such (said only
        then; whether it was said)."""
        w, d, shown = f"{self.s}.wide", self.ws.d_head, table.shown
        a, b = self.v.value(f"{w}.kept"), self.v.value(f"{w}.changed")
        if twin is None or a not in shown or b not in shown:
            return False  # none such (-1), or a coordinate the table elides
        copies = copied_features(self.v, twin, "V")
        words = {"f": self.ws.lesson.features[copies[a % d]],
                 "g": self.ws.lesson.features[copies[b % d]]}
        places = [shown.index(a), shown.index(b)]
        pairs = [VGroup(table.wide[p], table.joined[p]) for p in places]
        self.tell_cued("Head {h}'s {f} comes through almost the same, {a} against {b}; its {g} "
                       + ("drops" if self.v.value(f"{w}.changed_drops") else "grows")
                       + ", {c} against {e}.",
                       cues=[("{f}", lambda: self.point_at(pairs[0])),
                             ("{g}", lambda: self.point_at(pairs[1]))],
                       words=words, h=f"dims.head_numbers[{twin - 1}]",
                       a=f"{self.s}.wide.message[{a}]", b=f"{self.s}.joined[{self.last}][{a}]",
                       c=f"{self.s}.wide.message[{b}]",
                       e=f"{self.s}.joined[{self.last}][{b}]")
        return True

    def tell_sums(self, table: VGroup, sums: VGroup) -> None:
        """The coordinate worked as a sum for the wide head and for the head it weakens;
        then what the shared row costs, on the two messages' numbers."""
        wide, own = sums.blocks
        k, head, twin = sums.column, sums.head, sums.twin
        c = k - (head - 1) * self.ws.d_head
        w, h = f"{self.s}.wide", f"{self.s}.h{head}"
        first, second = self.v.value(f"{w}.order")[:2]
        mine = self.v.value(f"{h}.order")[0]
        self.tell("Worked out, the wide head's {f} takes {a} × {v}, about {x}, from “{u}”,",
                  fade_in(wide.title, wide.header, *wide.rows[0]),
                  cues=[("takes", lambda: self.point_at(wide.rows[0]))],
                  words={"f": sums.feature, "u": self.tokens[first]},
                  a=f"{w}.weights[{first}]", v=f"{w}.V[{first}][{k}]",
                  x=f"{w}.contributions[{first}][{k}]")
        self.tell("then {a} × {v}, about {x}, from “{u}”, and {r} from the rest: {m} in all.",
                  cues=[("then", lambda: AnimationGroup(fade_in(*wide.rows[1]),
                                                         self.point_at(wide.rows[1]))),
                        ("rest", lambda: AnimationGroup(fade_in(wide.rest),
                                                        self.point_at(wide.rest))),
                        ("all", lambda: AnimationGroup(
                            fade_in(wide.rule, wide.total, sums[1]),
                            self.point_at(wide.total)))],
                  words={"u": self.tokens[second]}, a=f"{w}.weights[{second}]",
                  v=f"{w}.V[{second}][{k}]", x=f"{w}.contributions[{second}][{k}]",
                  r=f"{w}.rest[{k}]", m=f"{w}.message[{k}]")
        self.tell("Head {h} takes its {f} mostly from “{u}”: {a} × {v}, about {x}, and {m} "
                  "in all.", fade_in(own),
                  cues=[("mostly", lambda: self.point_at(own.rows[0])),
                        ("in all", lambda: self.point_at(own.total))],
                  words={"f": sums.feature, "u": self.tokens[mine]},
                  h=f"dims.head_numbers[{head - 1}]", a=f"{h}.weights[{mine}]",
                  v=f"{h}.V[{mine}][{c}]", x=f"{h}.contributions[{mine}][{c}]",
                  m=f"{h}.message[{c}]")
        # The takeaway, on the two messages' numbers for this coordinate.
        shown = table.shown
        both = VGroup(*(row[shown.index(k)] if k in shown else VGroup(*row)
                        for row in (table.wide, table.joined)))
        weak = {first: wide.rows[0], second: wide.rows[1]}.get(mine, wide.rest)
        role = self.ws.lesson.head_names[head - 1]
        signal = ("head {h}'s {r} signal" if role != f"head {head}" else "head {h}'s signal")
        like = ("The wide head's one row favours “{v}”, as head {t}'s does, so "
                if twin is not None else "With one row for all, ")
        self.tell(like + signal + " from “{u}” is weakened, not lost: {p} still arrives, and "
                  "{f} is {m} against {n}.",
                  cues=[("weakened", lambda: self.point_at(weak[-1], own.rows[0][-1],
                                                           each=True)),
                        ("{m}", lambda: self.point_at(both))],
                  words={"f": sums.feature, "u": self.tokens[mine], "r": role,
                         **({"v": self.tokens[first]} if twin is not None else {})},
                  h=f"dims.head_numbers[{head - 1}]",
                  **({"t": f"dims.head_numbers[{twin - 1}]"} if twin is not None else {}),
                  p=f"{w}.contributions[{mine}][{k}]", m=f"{w}.message[{k}]",
                  n=f"{self.s}.joined[{self.last}][{k}]")
