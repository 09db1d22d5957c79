"""Every row at once: all queries, keys and values projected, one masked attention grid per
head, H = AV drawn for one head, and the heads' coordinates joined while the token rows
stay."""

from __future__ import annotations

import math
from collections.abc import Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Mobject,
    Rectangle,
    ReplacementTransform,
    VGroup,
    Write,
)

from scenes.kit import (
    INK,
    MUTED,
    SAFE_BOTTOM,
    LectureScene,
    column_shifts,
    fade_in,
    fade_out,
    shown_indices,
    vector,
    weight_cell,
)
from scenes.kit.palette import NEUTRAL_FILL

__all__ = ["AttentionGrids", "side_by_side"]

FRAME_WIDTH = 13.2
TOP = 2.4
"""Highest y for content under the title and its formula line."""
BOTTOM = SAFE_BOTTOM + 0.1
"""Lowest y for content: above the subtitle band."""
SIZE = 21
LABEL_SIZE = 18
NAME_SIZE = 24
"""A name with a number in it (``Head 2: Q``): its digit as tall as a matrix's."""
GAP = 0.6
LEGIBLE = 20.0
"""The least size, once fitted, of a number in monospace: its digits stay 2.5% of the frame
tall, legible from the back of a hall."""
HALL_SIZE = 22
"""Numbers and names in the pictures built for the hall."""
GRID_ROOM = 3.4
"""Height of a shaded grid's cells: the rest of the content area holds its sources' names."""
NARROW_ROOM = 3.0
"""Width of the grid's cells in H = AV, where V and H need the room for their numbers."""


def side_by_side(groups: Sequence[Mobject], gap: float = GAP, grow: float = 1.0) -> VGroup:
    """Groups in a row, ``gap`` apart, centred in the content area; shrunk to fit it, or
    grown by up to ``grow`` when small."""
    for group, shift in zip(groups, column_shifts(groups, 0.0, gap), strict=True):
        group.shift(RIGHT * shift)
    row = VGroup(*groups)
    row.scale(min(grow, FRAME_WIDTH / row.width, (TOP - BOTTOM) / row.height))
    return row.move_to([0, (TOP + BOTTOM) / 2, 0])


def fitted_scale(groups: Sequence[Mobject], gap: float = GAP) -> float:
    """The scale :func:`side_by_side` would shrink ``groups`` by (one at most)."""
    width = sum(g.width for g in groups) + gap * (len(groups) - 1)
    height = max(g.height for g in groups)
    return min(1.0, FRAME_WIDTH / width, (TOP - BOTTOM) / height)


class AttentionGrids(LectureScene):
    """All rows projected, one masked grid per head, H = AV, coordinates joined."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.heads = list(range(1, self.ws.n_heads + 1))
        self.section("every row")
        self.heading = self.title("Every row, every head: attention grids")
        self.projections()
        self.formula = self.grid_formula()
        grid_pages = [[h] for h in self.heads]  # a grid, and the panel that reads its rows
        for number, page in enumerate(grid_pages, start=1):
            # The first grid is built up in steps (scores, second row) before its page.
            self.section("scores" if number == 1 else f"grids {number}")
            self.grids(page, first=number == 1)
        if len(grid_pages) > 1:
            self.section("grids side by side")
            self.overview()
        self.section("values")
        self.product()
        if len(self.heads) > 1:
            self.section("messages")
            self.messages()
        self.section("joined")
        self.joined()

    def leave(self, *mobs: Mobject) -> list[Animation]:
        """Fades taking ``mobs`` and the pointer away."""
        away = self.unpoint()
        return [self.gone(*mobs), *([away] if away else [])]

    # ------------------------------------------------------------------ steps

    def projections(self) -> None:
        """E, its coordinates named, and head 1's queries, keys and values for every row."""
        formula = self.subtitle("each head projects every row of E into its own Q, K and V")
        names = [self.feature(c) for c in shown_indices(self.ws.d_model)]
        spacing = max(0.3, max(name.width for name in names) - 0.1)  # names stay apart
        E = self.matrix(f"{self.s}.E", row_labels=self.word_labels(), size=SIZE,
                        col_labels=names, h_buff=spacing)
        E.add(self.bound("E: {n} rows", NAME_SIZE, INK, n="dims.tokens")
              .next_to(E, UP, buff=0.2))
        colour = self.head_colour(1)
        made = []
        for kind in "QKV":
            M = self.matrix(f"{self.s}.h1.{kind}", size=SIZE, colour=colour)
            M.add(self.bound("Head {h}: " + kind, NAME_SIZE, colour,
                             h="dims.head_numbers[0]").next_to(M.brackets, UP, buff=0.2))
            made.append(M)
        Q, K, V = made
        # All three beside E when they fit legibly; otherwise they take turns in one place.
        together = fitted_scale([E, *made]) * SIZE >= LEGIBLE
        before = Q.width
        side_by_side([E, *made] if together else [E, Q], grow=1.3)
        for M in made:  # the names on one line, whatever the matrices' heights
            if not together:
                M.scale(Q.width / before if M is not Q else 1.0).move_to(Q)
            M[-1].set_y(E[-1].get_y())
        self.tell("The walkthrough followed one receiver. In practice every row is "
                  "projected at once.", Write(self.heading), fade_in(formula), fade_in(E))
        self.tell("E has one row per token; its columns are the coordinates named above it.",
                  cues=[("one row", lambda: self.point_at(*E[2])),
                        ("columns", lambda: self.point_at(E[3]))])

        def show(M: Mobject, before: Mobject | None) -> Animation:
            """``M`` in, pointed at with those beside it that the voice has named."""
            away = [] if together or before is None else [fade_out(before)]
            named = made[:made.index(M) + 1] if together else [M]
            return AnimationGroup(*away, fade_in(M),
                                  self.point_at(*(N.body for N in named), each=True))

        template = "Head {h} turns all {n} rows of E into {m} query rows, {m} key rows and " \
                   "{m} value rows."
        self.tell(template, cues=[("query", lambda: show(Q, None)), ("key", lambda: show(K, Q)),
                                  ("value", lambda: show(V, K))],
                  h="dims.head_numbers[0]", n="dims.tokens", m="dims.tokens")
        self.projected = VGroup(formula, E, *(made if together else [V]))
        if len(self.heads) > 1:
            self.section("other heads")
            self.other_head(made, together)

    def other_head(self, made: list[VGroup], together: bool) -> None:
        """Head 2's queries, keys and values where head 1's stood: the same rows of E, other
        numbers."""
        colour, others = self.head_colour(2), []
        for kind, M in zip("QKV", made, strict=True):
            N = self.matrix(f"{self.s}.h2.{kind}", size=SIZE, colour=colour)
            N.add(self.bound("Head {h}: " + kind, NAME_SIZE, colour,
                             h="dims.head_numbers[1]").next_to(N.brackets, UP, buff=0.2))
            # Head 2's rows level with head 1's (and E's): the same first and last row.
            first, last = (M.cells[k][0].get_y() for k in (0, -1))
            N.scale((first - last) / (N.cells[0][0].get_y() - N.cells[-1][0].get_y()))
            N.shift(M.body.get_center() - N.body.get_center())
            N.shift(UP * (first - N.cells[0][0].get_y()))
            N[-1].next_to(N.brackets, UP, buff=0.2).set_y(M[-1].get_y())
            others.append(N)
        shown = made if together else made[-1:]
        swapped = others if together else others[-1:]
        template = "Each other head does the same with its own projections: here are " \
                   "head {h}'s."
        self.tell(template, *(ReplacementTransform(M, N) for M, N in
                              zip(shown, swapped, strict=True)),
                  cues=[("own projections", lambda: self.point_at(
                      *(N.body for N in swapped), each=True))],
                  h="dims.head_numbers[1]")
        self.projected = VGroup(self.projected[0], self.projected[1], *swapped)

    def grids(self, page: list[int], first: bool) -> None:
        """Each head's grid, shaded by weight, beside a panel that reads one row aloud: the
        scores of the receiver we followed, then the weights of the rows the voice names."""
        leaving = self.projected if first else self.page
        h = page[0]
        grid = self.grid(h)
        last = self.last
        if first:
            blank = self.grid(h, shaded=False)
            scores = self.panel(h, last, scores=True)
            tallest = self.panel(h, last)  # the bottom row's weights and their sum
            tallest.align_to(blank, DOWN)  # level with the grid's bottom row, not below it
            self.page = side_by_side([blank, tallest], gap=0.8, grow=1.2)
            self.shown_panel(tallest, scores)
            for made in (grid,):
                made.scale(blank.cells.width / made.cells.width)
                made.shift(blank.cells.get_center() - made.cells.get_center())
            self.play(*self.leave(leaving), fade_in(self.formula))
            self.tell("Each head fills a whole grid: one row per receiver, one column per "
                      "source.", fade_in(blank),
                      cues=[("receiver", lambda: self.point_at(blank.labels, blank.down)),
                            ("source", lambda: self.point_at(blank.sources, blank.across))])
            self.tell("First come the scores, QKᵀ/√d: the bottom row's are the ones we "
                      "computed for the receiver we followed.", fade_in(scores),
                      cues=[("scores", lambda: self.point_at(self.formula[0])),
                            ("bottom row", lambda: self.point_at(VGroup(*blank.rows[last]),
                                                                 scores.body, each=True))])
            self.tell("The mask M blocks every later source: the grey cells get weight zero.",
                      fade_in(grid), self.gone(blank),
                      cues=[("mask", lambda: self.point_at(self.formula[1], self.formula[2])),
                            ("grey", lambda: self.point_at(*grid.masked_row, buff=0))])
            weights = self.shown_panel(scores, self.panel(h, last))
            self.tell("Softmax turns each row of scores into weights: the grid A.",
                      fade_out(scores), fade_in(weights),
                      cues=[("weights", lambda: self.point_at(VGroup(*grid.rows[last]),
                                                              weights.body, each=True))])
            panel = self.second_row(grid, h, weights)
            self.tell("Each row's weights add up to one: before rounding, the bottom row "
                      "sums to {x}.",
                      cues=[("bottom row", lambda: self.point_at(VGroup(*grid.rows[last]),
                                                                 panel.total, each=True))],
                      x=f"{self.s}.h{h}.weights_sum")
        else:
            panel = self.panel(h, last)
            panel.align_to(grid, DOWN)  # as on the first page: level with its bottom row
            self.page = side_by_side([grid, panel], gap=0.8, grow=1.2)
            with self.silence("the next head's grid appears"):
                self.play(*self.leave(leaving), fade_in(grid, panel))
        self.page = VGroup(grid, panel)
        top = self.v.value(f"{self.s}.h{h}.top_source")
        template = "In head {h}'s grid the bottom row is the receiver we followed: its " \
                   "largest weight, {x}, goes to “{w}”."
        self.tell(template, cues=[
            ("bottom row", lambda: self.point_at(*grid.rows[last])),
            ("{x}", lambda: self.point_at(grid.top_cell, panel.lines[top][1], each=True,
                                          buff=0.04))],
            h=f"dims.head_numbers[{h - 1}]",
            x=f"{self.s}.h{h}.A[{last}][{top}]", words={"w": self.tokens[top]})

    def shown_panel(self, old: VGroup, new: VGroup) -> VGroup:
        """``new`` where ``old`` stands, their tops level."""
        return new.move_to(old, aligned_edge=UP + LEFT)

    def second_row(self, grid: VGroup, h: int, weights: VGroup) -> VGroup:
        """What the second receiver's row shows: it may read only the first word and itself,
        so its weight is shared between two cells. Returns the bottom row's panel, shown
        after it."""
        bottom = self.panel(h, self.last)
        self.shown_panel(weights, bottom)
        if len(self.tokens) < 3:  # its row is the bottom row, told below
            self.section("grids 1")
            return weights
        second = self.shown_panel(weights, self.panel(h, 1))
        self.section("second row")
        template = "Row {p}, “{w}”, may read only “{u}” and itself: head {h} shares its " \
                   "weight between them, {x} and {y}."
        self.tell(template, fade_out(weights), fade_in(second),
                  cues=[("Row", lambda: self.point_at(grid.labels[1], *grid.rows[1])),
                        ("{x}", lambda: self.point_at(second.body))],
                  p="dims.positions[1]", h=f"dims.head_numbers[{h - 1}]",
                  x=f"{self.s}.h{h}.A[1][0]", y=f"{self.s}.h{h}.A[1][1]",
                  words={"w": self.tokens[1], "u": self.tokens[0]})
        self.section("grids 1")
        self.play(fade_out(second), fade_in(bottom), *filter(None, [self.unpoint()]))
        return bottom

    def panel(self, h: int, i: int, scores: bool = False) -> VGroup:
        """Receiver ``i``'s row of head ``h`` read aloud, one source a line: its word and its
        weight (or, for the receiver we followed, its score), for the sources it may read;
        under the bottom row of weights, their sum. Attributes ``lines`` (by source),
        ``body`` (the numbers) and ``total``."""
        mask = self.v.value(f"{self.s}.mask")
        colour = self.head_colour(h)
        heading = self.bound("scores, row {p}" if scores else "weights, row {p}",
                             HALL_SIZE, MUTED, p=f"dims.positions[{i}]")
        lines, body = VGroup(), VGroup()
        readable = [j for j in range(len(self.tokens)) if not mask[i][j]]
        room = GRID_ROOM + 0.9
        pitch = min(0.45, room / (len(readable) + 2))
        words = [self.word(self.tokens[j], HALL_SIZE) for j in readable]
        numbers = [self.num(f"{self.s}.h{h}.scores[{j}]" if scores else
                            f"{self.s}.h{h}.A[{i}][{j}]", HALL_SIZE, colour) for j in readable]
        right = max(w.width for w in words) + 0.4 + max(n.width for n in numbers)
        for k, (word, number) in enumerate(zip(words, numbers, strict=True)):
            number.move_to([right, -k * pitch, 0], aligned_edge=RIGHT)
            word.move_to([0, -k * pitch, 0], aligned_edge=LEFT)
            lines.add(VGroup(word, number))
            body.add(number)
        heading.next_to(lines, UP, buff=0.25).align_to(lines, LEFT)
        group = VGroup(heading, lines)
        total = VGroup()
        if i == self.last and not scores:
            total = self.sum_label(h).next_to(lines, DOWN, buff=0.2).align_to(lines, RIGHT)
            group.add(total)
        group.lines = {j: line for j, line in zip(readable, lines, strict=True)}
        group.body, group.total = body, total
        return group

    def overview(self) -> None:
        self.play(*self.leave(self.page))
        tallest = max(self.word(t, LABEL_SIZE).width for t in self.tokens)  # names upright
        cell = min(0.42, (FRAME_WIDTH - 2.0 - GAP * len(self.heads))
                   / (len(self.heads) * len(self.tokens)),
                   (TOP - BOTTOM - tallest - 1.2) / len(self.tokens))
        shaded = [self.grid(h, cell=cell, words=h == 1) for h in self.heads]
        self.page = side_by_side(shaded, grow=1.5)
        self.tell("Side by side, with shading only: the first row is the same in every "
                  "head, since the first receiver can read only itself.", fade_in(self.page),
                  cues=[("first row", lambda: self.point_at(
                      *(grid.rows[0] for grid in shaded), each=True))])
        tops = [self.v.value(f"{self.s}.h{h}.top_source") for h in self.heads]
        if len(set(tops)) > 1:  # the values say where the heads part: the bottom row
            every_own = len(set(tops)) == len(tops)  # no two heads on the same source
            self.tell("Further down the heads part ways: in the bottom row, " + (
                      "each head's largest weight falls on its own source." if every_own else
                      "not every head puts its largest weight on the same source."),
                      cues=[("bottom row", lambda: self.point_at(
                          *(VGroup(*grid.rows[self.last]) for grid in shaded), each=True)),
                            ("largest", lambda: self.point_at(
                                *(grid.top_cell for grid in shaded), each=True, buff=0))])
        else:
            self.tell("Further down, each head shades its rows its own way.",
                      cues=[("each", lambda: self.point_at(shaded[0].cells)),
                            ("own", lambda: self.point_at(shaded[-1].cells))])

    def product(self) -> None:
        """Head 1's H = AV: its grid, its value rows, and the messages they make."""
        self.play(*self.leave(self.page, self.formula),
                  self.retitle(self.heading, "Every receiver's message at once"))
        self.formula = self.subtitle("H = AV: each row of A mixes the rows of V")
        self.product_parts = self.equation(1)
        A, _, V, _, H = self.product_parts
        weighted = VGroup(*A.rows[self.last])
        message = VGroup(*H.cells[self.last])
        inner, keys = vector("m", f"{self.s}.h1.H[{self.last}]", self.ws.d_head)
        self.tell("Head {h}'s grid A times its value rows V gives H = AV.",
                  fade_in(self.formula), fade_in(self.product_parts), h="dims.head_numbers[0]")
        self.tell("The bottom row of A weights every row of V, and the weighted rows add "
                  "up to the bottom row of H,",
                  cues=[("bottom row of A", lambda: self.point_at(weighted)),
                        ("every row of V", lambda: self.point_at(weighted, V.body, each=True)),
                        ("bottom row of H", lambda: self.point_at(weighted, message,
                                                                  each=True))])
        self.tell("the message " + inner + " we computed for the receiver we followed.",
                  cues=[("message", lambda: self.point_at(message))], **keys)
        self.tell("Every other row of H is made the same way, from its own row of A.",
                  cues=[("other row", lambda: self.point_at(H.body))])

    def equation(self, h: int) -> VGroup:
        """``A × V = H`` for head ``h``, laid out in the content area: each with its name
        above, every token's row of the three at one height; the receivers' and the
        sources' names where they fit at a hall's size."""
        # The most names first, then the widest room between columns that still fits.
        layouts = [(receivers, sources, spread)
                   for receivers, sources in ((True, True), (False, True), (True, False))
                   for spread in (0.3, 0.22, 0.15)]
        for receivers, sources, spread in layouts:
            pieces = self.equation_pieces(h, receivers, sources, spread)
            if fitted_scale(pieces, 0.2) * SIZE >= LEGIBLE:
                break
        A, _, V, _, H = pieces
        side_by_side(pieces, gap=0.2, grow=1.3)
        for name in (V[-1], H[-1]):  # all names on the line of the grid's head label
            name.set_y(A.label.get_y())
        return VGroup(*pieces)

    def equation_pieces(self, h: int, receivers: bool, sources: bool,
                        spread: float) -> list[Mobject]:
        """``A``, ``×``, ``V``, ``=``, ``H`` for head ``h``: A shaded, with or without its
        receivers' names; V with or without its sources' names (its rows stand level with
        A's, so A's names name them too); ``spread`` apart, the columns of V and H."""
        probe = self.num(f"{self.s}.h{h}.V[0][0]", SIZE)
        pitch = max(probe.height + 0.16, min(0.42, GRID_ROOM / len(self.tokens)))
        A = self.grid(h, cell=pitch, words=receivers, sources=False, name="A",
                      width=min(pitch, NARROW_ROOM / len(self.tokens)))
        V = self.rows_matrix(h, "V", pitch, sources, spread)
        H = self.rows_matrix(h, "H", pitch, False, spread)
        for M in (V, H):
            M.shift(UP * (A.rows[0].get_y() - M.cells[0][0].get_y()))
        times, equals = self.label("×", 28), self.label("=", 28)
        for sign in (times, equals):
            sign.set_y(A.cells.get_y())
        return [A, times, V, equals, H]

    def rows_matrix(self, h: int, kind: str, pitch: float, names: bool,
                    spread: float) -> VGroup:
        """Head ``h``'s ``V`` or ``H``, its rows ``pitch`` apart, its name above it."""
        key, colour = f"{self.s}.h{h}.{kind}", self.head_colour(h)
        labels = (lambda: [self.word(t, LABEL_SIZE) for t in self.tokens]) if names \
            else (lambda: None)
        probe = self.matrix(key, size=SIZE, colour=colour)
        tallest = max(cell.height for row in probe.cells for cell in row)
        M = self.matrix(key, size=SIZE, colour=colour, row_labels=labels(),
                        v_buff=max(0.05, pitch - tallest), h_buff=spread)
        M.add(self.bound("Head {h}: " + kind, NAME_SIZE, colour,
                         h=f"dims.head_numbers[{h - 1}]").next_to(M.brackets, UP, buff=0.2))
        return M

    def messages(self) -> None:
        """Head 2's A × V = H where head 1's stood, then every head's H side by side."""
        other = self.equation(2)
        self.tell("Every head does the same with its own grid and its own values: here is "
                  "head {h}'s.", *self.leave(self.product_parts), fade_in(other),
                  cues=[("own grid", lambda: self.point_at(other[0].cells)),
                        ("own values", lambda: self.point_at(other[2].body))],
                  h="dims.head_numbers[1]")
        blocks = []
        for h in self.heads:
            H = self.matrix(f"{self.s}.h{h}.H", size=SIZE, colour=self.head_colour(h),
                            row_labels=self.word_labels() if h == 1 else None)
            H.add(self.head_label(h, NAME_SIZE).next_to(H.brackets, UP, buff=0.2))
            blocks.append(H)
        self.blocks = side_by_side(blocks, gap=0.9, grow=1.3)
        self.shape = self.bound("each H: shape {shape}", NAME_SIZE, MUTED,
                                shape="shapes.H")
        self.shape.next_to(self.blocks, DOWN, buff=0.2)
        whole = VGroup(self.blocks, self.shape)
        whole.scale(min(1.0, (TOP - BOTTOM) / whole.height))
        whole.move_to([0, (TOP + BOTTOM) / 2, 0])
        rows = [VGroup(*H.cells[self.last]) for H in blocks]
        self.tell("Each H has shape {shape}, and its last row is that head's message.",
                  *self.leave(other), fade_in(self.blocks),
                  cues=[("{shape}", lambda: fade_in(self.shape)),
                        ("last row", lambda: self.point_at(*rows, each=True))],
                  shape="shapes.H")

    def joined(self) -> None:
        if len(self.heads) == 1:
            H = self.product_parts[-1]
            self.tell("With a single head there is nothing to join: its H already holds every "
                      "coordinate, one row per token.",
                      self.retitle(self._heading, "One head: nothing to join"),
                      cues=[("its H", lambda: self.point_at(H.body))])
            self.play(*filter(None, [self.unpoint()]))
            return
        formula = self.subtitle("Concat(H of every head): coordinates joined, rows kept")
        J = self.matrix(f"{self.s}.joined", size=SIZE, row_labels=self.word_labels())
        columns = shown_indices(self.ws.d_model)
        for row in J.cells:
            for cell, c in zip(row, columns, strict=True):
                negative = c is not None and cell.figures[0][1].startswith("\u2212")
                if not negative:  # a negative keeps its own colour
                    head = None if c is None else c // self.ws.d_head + 1
                    cell.set_color(MUTED if head is None else self.head_colour(head))
        tags = self.column_heads(J, columns)
        J.add(tags, self.bound("joined, shape {shape}", NAME_SIZE, INK, shape="shapes.joined")
              .next_to(tags if len(tags) else J.brackets, UP, buff=0.2))
        side_by_side([J], grow=1.3)
        self.tell("Concatenation joins coordinates, not token rows: the heads' columns sit "
                  "side by side.", self.retitle(self._heading, "Join coordinates, keep the rows"),
                  ReplacementTransform(self.formula, formula), self.gone(self.blocks, self.shape),
                  fade_in(J), cues=[("columns", lambda: self.point_at(J.body))])
        self.tell("That gives shape {shape}, still one row per token: each token's row "
                  "now carries every head's message.",
                  cues=[("{shape}", lambda: self.point_at(J[-1])),
                        ("each token's row", lambda: self.point_at(*J.cells[self.last]))],
                  shape="shapes.joined")
        self.play(*filter(None, [self.unpoint()]))

    # ------------------------------------------------------------------ pieces

    def column_heads(self, J: Mobject, columns: list[int | None]) -> VGroup:
        """"Head N" over each head's shown columns of the joined matrix, in the head's
        colour: the columns' colour is not the only thing that says whose they are."""
        tags = VGroup()
        for h in self.heads:
            mine = [k for k, c in enumerate(columns)
                    if c is not None and c // self.ws.d_head + 1 == h]
            if not mine:
                continue
            over = VGroup(*(J.cells[0][k] for k in mine))
            tag = self.head_label(h, HALL_SIZE)
            tag.next_to(J.brackets, UP, buff=0.15).set_x(over.get_x())
            tags.add(tag)
        return tags

    def subtitle(self, text: str) -> Mobject:
        return self.label(text, LABEL_SIZE + 2, MUTED).move_to([0, TOP + 0.45, 0])

    def feature(self, index: int | None) -> Mobject:
        """A coordinate's name (a worksheet word), or "…" for the elided ones."""
        if index is None:
            return self.label("…", LABEL_SIZE, MUTED)
        return self.bound("{f}", LABEL_SIZE, MUTED, words={"f": self.ws.lesson.features[index]})

    def grid_formula(self) -> VGroup:
        """The grid's formula and a key to the shaded, masked cells."""
        swatch = Rectangle(width=0.3, height=0.3, stroke_width=0, fill_color=NEUTRAL_FILL,
                           fill_opacity=1.0)
        line = VGroup(self.label("A = softmax(QKᵀ/√d + M)", LABEL_SIZE + 2, MUTED), swatch,
                      self.label("masked: a later source", LABEL_SIZE, MUTED))
        line.arrange(RIGHT, buff=0.3)
        line[1].shift(RIGHT * 0.4)
        line[2].next_to(swatch, RIGHT, buff=0.15)
        return line.move_to([0, TOP + 0.45, 0])

    def word_labels(self) -> list[Mobject]:
        return [self.word(t, LABEL_SIZE) for t in self.tokens]

    def sum_label(self, h: int) -> Mobject:
        """The sum of head ``h``'s bottom row of weights, before rounding."""
        return self.bound("Σ = {x}", HALL_SIZE, MUTED, mono=True,
                          x=f"{self.s}.h{h}.weights_sum")

    def grid(self, h: int, cell: float | None = None, words: bool = True,
             sources: bool = True, shaded: bool = True, name: str = "",
             width: float | None = None) -> VGroup:
        """Head ``h``'s attention grid: receivers as rows, sources as columns (each named,
        turned upright, above its column), masked cells in the neutral fill, the others
        shaded by weight in the head's colour (``shaded``; else only outlined, waiting for
        their scores). No numbers: a panel beside it reads a row aloud at a size a hall can
        read. ``cell`` is a row's height, ``width`` a column's (``cell`` by default).

        Attributes: ``cells``, ``rows`` (every cell of a row), ``visible`` (a row's unmasked
        cells), ``labels`` (the receivers' names), ``sources`` (the sources' names),
        ``down`` and ``across`` (the axes' names), ``masked_row``, ``top_cell`` and
        ``label`` (the head's name)."""
        s, T, colour = self.s, len(self.tokens), self.head_colour(h)
        mask = self.v.value(f"{s}.mask")
        weights = self.v.value(f"{s}.h{h}.A")
        top = self.v.value(f"{s}.h{h}.top_source")
        tallest = max(self.word(t, LABEL_SIZE).width for t in self.tokens) if sources else 0
        size = cell if cell is not None else min(0.42, GRID_ROOM / T,
                                                  (TOP - BOTTOM - tallest - 0.8) / T)
        across_size = width if width is not None else size
        cells = VGroup()
        rows = [VGroup() for _ in range(T)]
        visible = [VGroup() for _ in range(T)]
        masked_row, top_cell = VGroup(), VGroup()
        for i in range(T):
            for j in range(T):
                if mask[i][j]:
                    box = Rectangle(width=across_size - 0.04, height=size - 0.04,
                                    stroke_width=0, fill_color=NEUTRAL_FILL, fill_opacity=1.0)
                elif shaded:
                    box, _ = weight_cell(colour, weights[i][j], across_size - 0.04, size - 0.04)
                    visible[i].add(box)
                else:
                    box = Rectangle(width=across_size - 0.04, height=size - 0.04,
                                    stroke_width=1, stroke_color=MUTED)
                    visible[i].add(box)
                if not shaded and mask[i][j]:
                    box.set_fill(opacity=0.0).set_stroke(MUTED, width=1)
                box.move_to([j * across_size, -i * size, 0])
                cells.add(box)
                rows[i].add(box)
                if i == 0 and mask[i][j]:
                    masked_row.add(box)
                if i == T - 1 and j == top:
                    top_cell.add(box)
        group = VGroup(cells)
        labels, names, down, across = VGroup(), VGroup(), VGroup(), VGroup()
        if words:
            labels = VGroup(*(self.word(t, LABEL_SIZE).move_to(
                [-across_size / 2 - 0.15, -i * size, 0], aligned_edge=RIGHT)
                for i, t in enumerate(self.tokens)))
            down = self.label("receiver", LABEL_SIZE, MUTED).rotate(math.pi / 2)
            down.next_to(labels, LEFT, buff=0.2)
            group.add(labels, down)
        if sources:
            names = VGroup(*(self.word(t, LABEL_SIZE).rotate(math.pi / 2).move_to(
                [j * across_size, size / 2 + 0.12, 0], aligned_edge=DOWN)
                for j, t in enumerate(self.tokens)))
            across = self.label("source", LABEL_SIZE, MUTED).next_to(names, UP, buff=0.15)
            group.add(names, across)
        label = self.bound("Head {h}: " + name if name else "Head {h}", NAME_SIZE + 2,
                           colour, h=f"dims.head_numbers[{h - 1}]")
        if sources and words:  # above the receivers' names, beside the sources'
            label.move_to([-across_size / 2 - 0.15, names.get_bottom()[1] + 0.3, 0],
                          aligned_edge=RIGHT)
        else:
            label.next_to(VGroup(cells, names, across), UP, buff=0.2)
        group.add(label)
        group.cells, group.rows, group.visible = cells, rows, visible
        group.labels, group.sources, group.label = labels, names, label
        group.down, group.across = down, across
        group.masked_row = masked_row if len(masked_row) else rows[0]
        group.top_cell = top_cell
        return group
