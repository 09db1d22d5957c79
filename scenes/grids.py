"""Every row at once: all queries, keys and values projected, one masked attention grid per
head, H = AV drawn for one head, and the heads' coordinates joined while the token rows
stay."""

from __future__ import annotations

import math
from collections.abc import Sequence

from manim import (
    DOWN,
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

__all__ = ["AttentionGrids", "pages", "side_by_side"]

FRAME_WIDTH = 13.2
TOP = 2.4
"""Highest y for content under the title and its formula line."""
BOTTOM = SAFE_BOTTOM + 0.1
"""Lowest y for content: above the subtitle band."""
SIZE = 20
CELL_SIZE = 16
LABEL_SIZE = 18
GAP = 0.6
PITCH = 0.4
"""Row height of a grid with numbers."""
LEGIBLE = 15.5
"""The smallest number size a fitted picture may show (a little above the tests' floor)."""

"""A fragment of a sentence and what makes its step (made when the sentence begins)."""


def pages(count: int, width: float, room: float, gap: float = GAP) -> list[list[int]]:
    """Split ``count`` equally wide items into as few, as even pages as fit ``room``."""
    per_page = max(1, int((room + gap) // (width + gap)))
    n_pages = math.ceil(count / per_page)
    size = math.ceil(count / n_pages)
    return [list(range(start, min(count, start + size))) for start in range(0, count, size)]


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
        grid_pages = self.grid_pages()
        for number, page in enumerate(grid_pages, start=1):
            self.section(f"grids {number}")
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
        E.add(self.bound("E: {n} rows", LABEL_SIZE + 4, INK, n="dims.tokens")
              .next_to(E, UP, buff=0.2))
        colour = self.head_colour(1)
        made = []
        for kind in "QKV":
            M = self.matrix(f"{self.s}.h1.{kind}", size=SIZE, colour=colour)
            M.add(self.bound("Head {h}: " + kind, LABEL_SIZE + 4, colour,
                             h="dims.head_numbers[0]").next_to(M.brackets, UP, buff=0.2))
            made.append(M)
        Q, K, V = made
        # All three beside E when they fit legibly; otherwise they take turns in one place.
        together = fitted_scale([E, *made]) * LABEL_SIZE >= LEGIBLE
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
            away = [] if together or before is None else [fade_out(before)]
            return AnimationGroup(*away, fade_in(M), self.point_at(M.body))

        template = "Head {h} turns all {n} rows of E into {m} query rows, {m} key rows and " \
                   "{m} value rows."
        self.tell(template, cues=[("query", lambda: show(Q, None)), ("key", lambda: show(K, Q)),
                                  ("value", lambda: show(V, K))],
                  h="dims.head_numbers[0]", n="dims.tokens", m="dims.tokens")
        if len(self.heads) > 1:
            self.tell("Each of the other heads does the same, with its own projections.")
        self.projected = VGroup(formula, E, *(made if together else [V]))

    def grids(self, page: list[int], first: bool) -> None:
        leaving = self.projected if first else self.page
        self.page = side_by_side([self.grid(h) for h in page], grow=1.5)
        if first:
            self.play(*self.leave(leaving), fade_in(self.formula))
            self.tell("Each head now fills a whole grid A: one row per receiver, one column "
                      "per source.", fade_in(self.page))
            grid = self.page[0]
            self.tell("The mask M blocks every later source: the grey cells get weight zero.",
                      cues=[("mask", lambda: self.point_at(self.formula[1], self.formula[2])),
                            ("grey", lambda: self.point_at(*grid.masked_row, buff=0))])
            self.second_row(grid, page[0])
            self.tell("Each row's weights add up to one: before rounding, the bottom row "
                      "sums to {x}.",
                      cues=[("bottom row", lambda: self.point_at(*grid.rows[self.last],
                                                                 grid.total))],
                      x=f"{self.s}.h{page[0]}.weights_sum")
        else:
            with self.silence("the next page of grids appears"):
                self.play(*self.leave(leaving), fade_in(self.page))
        for h, grid in zip(page, list(self.page), strict=True):
            top = self.v.value(f"{self.s}.h{h}.top_source")
            template = "In head {h}'s grid the bottom row is the receiver we followed: its " \
                       "largest weight, {x}, goes to “{w}”."
            self.tell(template, cues=[
                ("bottom row", lambda grid=grid: self.point_at(*grid.rows[self.last])),
                ("{x}", lambda grid=grid: self.point_at(grid.top_cell, buff=0))],
                h=f"dims.head_numbers[{h - 1}]",
                x=f"{self.s}.h{h}.A[{self.last}][{top}]", words={"w": self.tokens[top]})

    def second_row(self, grid: VGroup, h: int) -> None:
        """What the second receiver's row shows: it may read only the first word and itself,
        so its weight is shared between two cells."""
        if len(self.tokens) < 3:  # its row is the bottom row, told below
            return
        template = "Row {p}, “{w}”, may read only “{u}” and itself: head {h} shares its " \
                   "weight between them, {x} and {y}."
        self.tell(template, cues=[("Row", lambda: self.point_at(grid.labels[1],
                                                               *grid.rows[1])),
                                  ("{x}", lambda: self.point_at(*grid.visible[1]))],
                  p="dims.positions[1]", h=f"dims.head_numbers[{h - 1}]",
                  x=f"{self.s}.h{h}.A[1][0]", y=f"{self.s}.h{h}.A[1][1]",
                  words={"w": self.tokens[1], "u": self.tokens[0]})

    def overview(self) -> None:
        self.play(*self.leave(self.page))
        cell = min(0.42, (FRAME_WIDTH - 2.0 - GAP * len(self.heads))
                   / (len(self.heads) * len(self.tokens)))
        shaded = [self.grid(h, cell=cell, numbers=False, words=h == 1, total=False)
                  for h in self.heads]
        self.page = side_by_side(shaded, grow=1.5)
        self.tell("Side by side, with shading only: the first row is the same in every "
                  "head, since the first receiver can read only itself.", fade_in(self.page),
                  cues=[("first row", lambda: self.point_at(
                      *(grid.rows[0] for grid in shaded), each=True))])
        self.tell("Further down, each head spreads its weights its own way.",
                  cues=[("each", lambda: self.point_at(shaded[0].cells)),
                        ("own", lambda: self.point_at(shaded[-1].cells))])

    def product(self) -> None:
        """Head 1's H = AV: its grid, its value rows, and the messages they make."""
        self.play(*self.leave(self.page, self.formula),
                  self.retitle(self.heading, "Every receiver's message at once"))
        self.formula = self.subtitle("H = AV: each row of A mixes the rows of V")
        # The grid with its numbers if they stay legible, else shaded; names where they fit.
        for numbers, receivers, sources in ((True, True, False), (False, True, True),
                                            (False, False, True)):
            pieces = self.equation(numbers, receivers, sources)
            smallest = CELL_SIZE if numbers else LABEL_SIZE
            if fitted_scale(pieces, 0.3) * smallest >= LEGIBLE:
                break
        A, _, V, _, H = pieces
        side_by_side(pieces, gap=0.3, grow=1.3)
        for name in (V[-1], H[-1]):  # all names on the line of the grid's head label
            name.set_y(A.label.get_y())
        self.product_parts = VGroup(*pieces)
        weighted = VGroup(*A.rows[self.last])
        message = VGroup(*H.cells[self.last])
        inner, keys = vector("m", f"{self.s}.h1.H[{self.last}]", self.ws.d_head)
        self.tell("Head {h}'s grid A times its value rows V gives H = AV.",
                  fade_in(self.formula), fade_in(self.product_parts), h="dims.head_numbers[0]")
        self.tell("The bottom row of A weights every row of V, and the weighted rows add "
                  "up to the bottom row of H,",
                  cues=[("bottom row of A", lambda: self.point_at(weighted)),
                        ("every row of V", lambda: self.point_at(V.body)),
                        ("bottom row of H", lambda: self.point_at(message))])
        self.tell("the message " + inner + " we computed for the receiver we followed.",
                  cues=[("message", lambda: self.point_at(message))], **keys)
        self.tell("Every other row of H is made the same way, from its own row of A.",
                  cues=[("other row", lambda: self.point_at(H.body))])

    def equation(self, numbers: bool, receivers: bool, sources: bool) -> list[Mobject]:
        """``A × V = H`` for head 1, each with its name above, every token's row of the three
        at one height. A with or without its numbers and its receivers' names; V with or
        without its sources' names."""
        A = self.grid(1, cell=None if numbers else 0.42, numbers=numbers, words=receivers,
                      total=False, name="A")
        pitch = A.rows[0].get_y() - A.rows[1].get_y() if len(self.tokens) > 1 else PITCH
        V = self.rows_matrix("V", pitch, sources)
        H = self.rows_matrix("H", pitch, False)
        for M in (V, H):
            M.shift(UP * (A.rows[0].get_y() - M.cells[0][0].get_y()))
        times, equals = self.label("×", 30), self.label("=", 30)
        for sign in (times, equals):
            sign.set_y(A.cells.get_y())
        return [A, times, V, equals, H]

    def rows_matrix(self, kind: str, pitch: float, names: bool) -> VGroup:
        """Head 1's ``V`` or ``H``, its rows ``pitch`` apart, its name above it."""
        key, colour = f"{self.s}.h1.{kind}", self.head_colour(1)
        labels = (lambda: [self.word(t, LABEL_SIZE) for t in self.tokens]) if names \
            else (lambda: None)
        probe = self.matrix(key, size=CELL_SIZE + 2, colour=colour)
        tallest = max(cell.height for row in probe.cells for cell in row)
        M = self.matrix(key, size=CELL_SIZE + 2, colour=colour, row_labels=labels(),
                        v_buff=max(0.05, pitch - tallest))
        M.add(self.bound("Head {h}: " + kind, LABEL_SIZE + 4, colour, h="dims.head_numbers[0]")
              .next_to(M.brackets, UP, buff=0.2))
        return M

    def messages(self) -> None:
        self.play(*self.leave(self.product_parts))
        blocks = []
        for h in self.heads:
            H = self.matrix(f"{self.s}.h{h}.H", size=SIZE, colour=self.head_colour(h),
                            row_labels=self.word_labels() if h == 1 else None)
            H.add(self.head_label(h, LABEL_SIZE + 4).next_to(H.brackets, UP, buff=0.2))
            blocks.append(H)
        self.blocks = side_by_side(blocks, gap=0.9, grow=1.3)
        self.shape = self.bound("each H: shape {shape}", LABEL_SIZE + 2, MUTED,
                                shape="shapes.H")
        self.shape.next_to(self.blocks, DOWN, buff=0.2)
        whole = VGroup(self.blocks, self.shape)
        whole.scale(min(1.0, (TOP - BOTTOM) / whole.height))
        whole.move_to([0, (TOP + BOTTOM) / 2, 0])
        self.tell("Every head does the same with its own grid and its own values.",
                  fade_in(self.blocks))
        rows = [VGroup(*H.cells[self.last]) for H in blocks]
        self.tell("Each H has shape {shape}, and its last row is that head's message.",
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
        J.add(self.bound("joined, shape {shape}", LABEL_SIZE + 4, INK, shape="shapes.joined")
              .next_to(J.brackets, UP, buff=0.2))
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

    def grid_pages(self) -> list[list[int]]:
        cell = self.num(f"{self.s}.h1.A[0][0]", CELL_SIZE).width + 0.16
        labels = [self.row_label(i) for i in range(len(self.tokens))]
        total = self.sum_label(1).width + 0.2
        width = len(self.tokens) * cell + max(label.width for label in labels) + 0.15 + total
        groups = pages(len(self.heads), width, FRAME_WIDTH)
        return [[self.heads[i] for i in group] for group in groups]

    def row_label(self, i: int) -> Mobject:
        """A receiver's word and position."""
        return self.bound("{w} {p}", LABEL_SIZE, INK, words={"w": self.tokens[i]},
                          p=f"dims.positions[{i}]")

    def sum_label(self, h: int) -> Mobject:
        """The sum of head ``h``'s bottom row of weights, before rounding."""
        return self.bound("Σ = {x}", CELL_SIZE, MUTED, x=f"{self.s}.h{h}.weights_sum")

    def grid(self, h: int, cell: float | None = None, numbers: bool = True,
             words: bool = True, total: bool = True, name: str = "") -> VGroup:
        """Head ``h``'s attention grid: receivers as rows, sources as columns, masked cells
        in the neutral fill, the others shaded by weight in the head's colour, each number
        in the ink that reads on its cell; with ``total``, the bottom row's sum beside it.

        Attributes: ``cells``, ``rows`` (every cell of a row), ``visible`` (a row's unmasked
        cells), ``labels`` (the receivers' names), ``masked_row``, ``top_cell``, ``total``
        and ``label`` (the head's name)."""
        s, T, colour = self.s, len(self.tokens), self.head_colour(h)
        mask = self.v.value(f"{s}.mask")
        weights = self.v.value(f"{s}.h{h}.A")
        top = self.v.value(f"{s}.h{h}.top_source")
        probe = self.num(f"{s}.h{h}.A[0][0]", CELL_SIZE)
        width = cell if cell is not None else probe.width + 0.16
        height = cell if cell is not None else PITCH
        cells = VGroup()
        rows = [VGroup() for _ in range(T)]
        visible = [VGroup() for _ in range(T)]
        masked_row, top_cell = VGroup(), VGroup()
        for i in range(T):
            for j in range(T):
                if mask[i][j]:
                    box = Rectangle(width=width - 0.04, height=height - 0.04, stroke_width=0,
                                    fill_color=NEUTRAL_FILL, fill_opacity=1.0)
                    ink = INK
                else:
                    box, ink = weight_cell(colour, weights[i][j], width - 0.04, height - 0.04)
                    visible[i].add(box)
                box.move_to([j * width, -i * height, 0])
                cells.add(box)
                rows[i].add(box)
                if i == 0 and mask[i][j]:
                    masked_row.add(box)
                if i == T - 1 and j == top:
                    top_cell.add(box)
                if numbers and not mask[i][j]:
                    cells.add(self.num(f"{s}.h{h}.A[{i}][{j}]", CELL_SIZE, ink).move_to(box))
        group = VGroup(cells)
        labels = VGroup()
        if words:
            labels = VGroup(*(self.row_label(i).move_to([-width / 2 - 0.15, -i * height, 0],
                                                        aligned_edge=RIGHT)
                              for i in range(T)))
            group.add(labels)
        positions = VGroup()
        if numbers:
            positions = VGroup(*(self.bound("{p}", LABEL_SIZE, MUTED, p=f"dims.positions[{j}]")
                                 .move_to([j * width, height / 2 + 0.22, 0]) for j in range(T)))
            group.add(positions)
        label = self.bound("Head {h}: " + name if name else "Head {h}", LABEL_SIZE + 4,
                           colour, h=f"dims.head_numbers[{h - 1}]")
        if numbers and words:  # beside the source numbers, above the receivers' names
            label.move_to([-width / 2 - 0.15, positions.get_y(), 0], aligned_edge=RIGHT)
        else:
            label.next_to(cells, UP, buff=0.2)
        group.add(label)
        summed = VGroup()
        if total:
            summed = self.sum_label(h).next_to(rows[T - 1], RIGHT, buff=0.2)
            group.add(summed)
        group.cells, group.rows, group.visible = cells, rows, visible
        group.labels, group.label, group.total = labels, label, summed
        group.masked_row = masked_row if len(masked_row) else rows[0]
        group.top_cell = top_cell
        return group
