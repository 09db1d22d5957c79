"""Every row at once: all queries projected, one masked attention grid per head, H = AV per
head, and the heads' coordinates joined while the token rows stay."""

from __future__ import annotations

import math
from collections.abc import Sequence

from manim import (
    DOWN,
    RIGHT,
    UP,
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
    cued,
    fade_in,
    fade_out,
    shown_indices,
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


class AttentionGrids(LectureScene):
    """All rows projected, one masked grid per head, H = AV per head, coordinates joined."""

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
        self.section("messages")
        self.messages()
        self.section("joined")
        self.joined()

    # ------------------------------------------------------------------ steps

    def projections(self) -> None:
        formula = self.subtitle("Q = E W_Q for every row, with each head's own W_Q")
        E = self.matrix(f"{self.s}.E", row_labels=self.word_labels(), size=SIZE)
        E.add(self.bound("E: {n} rows", LABEL_SIZE + 4, INK, n="dims.tokens")
              .next_to(E.brackets, UP, buff=0.2))
        queries = []
        for h in self.heads:
            Q = self.matrix(f"{self.s}.h{h}.Q", size=SIZE, colour=self.head_colour(h))
            Q.add(self.bound("Head {h}: Q", LABEL_SIZE + 4, self.head_colour(h),
                             h=f"dims.head_numbers[{h - 1}]").next_to(Q.brackets, UP, buff=0.2))
            queries.append(Q)
        layout = side_by_side([E, *queries], grow=1.3)
        self.say("The walkthrough followed one receiver. In practice every row is projected "
                 "at once.", Write(self.heading), fade_in(formula), fade_in(E))
        template = "Each head turns all {n} rows of E into {m} query rows, and likewise keys " \
                   "and values."
        pointed = self.point_at(E.body)
        self.say(template, cued(template, [
            ("{n}", pointed),
            ("{m}", AnimationGroup(fade_in(*queries),
                                   self.point_at(*(Q.body for Q in queries))))]),
            n="dims.tokens", m="dims.tokens")
        self.projected = VGroup(formula, layout)

    def grids(self, page: list[int], first: bool) -> None:
        leaving = [self.projected] if first else [self.page]
        pointer = self.unpoint()
        self.page = side_by_side([self.grid(h) for h in page], grow=1.5)
        if first:
            self.play(*map(fade_out, leaving), *([pointer] if pointer else []),
                      fade_in(self.formula))
            self.say("Each head now fills a whole grid A: one row per receiver, one column "
                     "per source.", fade_in(self.page))
            grid = self.page[0]
            template = "The mask M blocks every later source: the grey cells get weight zero, " \
                       "and each row sums to one."
            self.say(template, cued(template, [
                ("mask", self.point_at(self.formula[1], self.formula[2])),
                ("grey", self.point_at(*grid.masked_row)),
                ("each row", self.point_at(grid.rows[self.last]))]))
        else:
            with self.silence("the next page of grids appears"):
                self.play(*map(fade_out, leaving), *([pointer] if pointer else []),
                          fade_in(self.page))
        for h, grid in zip(page, list(self.page), strict=True):
            top = self.v.value(f"{self.s}.h{h}.top_source")
            template = "In head {h}'s grid the bottom row is the receiver we followed: its " \
                       "largest weight, {x}, goes to “{w}”."
            self.say(template, cued(template, [("bottom row", self.point_at(grid.rows[self.last])),
                                               ("{x}", self.point_at(grid.top_cell, buff=0))]),
                     h=f"dims.head_numbers[{h - 1}]",
                     x=f"{self.s}.h{h}.A[{self.last}][{top}]", words={"w": self.tokens[top]})

    def overview(self) -> None:
        pointer = self.unpoint()
        self.play(fade_out(self.page), *([pointer] if pointer else []))
        cell = min(0.42, (FRAME_WIDTH - 2.0 - GAP * len(self.heads))
                   / (len(self.heads) * len(self.tokens)))
        shaded = [self.grid(h, cell=cell, numbers=False, words=h == 1) for h in self.heads]
        self.page = side_by_side(shaded, grow=1.5)
        template = "Side by side, with shading only: the first row is the same in every " \
                   "head, since the first receiver can read only itself."
        self.say(template, cued(template, [("first row", self.point_at(
            *(grid.rows[0] for grid in shaded), each=True))], opening=[fade_in(self.page)]))
        template = "Further down, each head spreads its weights its own way."
        self.say(template, cued(template, [("each", self.point_at(shaded[0].cells)),
                                           ("own", self.point_at(shaded[-1].cells))]))

    def messages(self) -> None:
        pointer = self.unpoint()
        self.play(fade_out(self.page), fade_out(self.formula), *([pointer] if pointer else []),
                  self.retitle(self.heading, "Every receiver's message at once"))
        self.formula = self.subtitle("H = AV, one message row per receiver")
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
        self.say("Multiplying each grid by its head's values, H = AV, gives every receiver "
                 "its message at once.", fade_in(self.formula), fade_in(self.blocks))
        template = "Each H has shape {shape}, and its last row is the message we computed."
        rows = [VGroup(*H.cells[self.last]) for H in blocks]
        self.say(template, cued(template, [("{shape}", fade_in(self.shape)),
                                           ("last row", self.point_at(*rows))]),
                 shape="shapes.H")

    def joined(self) -> None:
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
        pointer = self.unpoint()
        self.say("Concatenation joins coordinates, not token rows: the heads' columns sit "
                 "side by side.", self.retitle(self._heading, "Join coordinates, keep the rows"),
                 ReplacementTransform(self.formula, formula), fade_out(self.blocks, self.shape),
                 fade_in(J), *([pointer] if pointer else []))
        template = "That gives shape {shape}, still one row per token. W_O then mixes each " \
                   "row into an update for that token."
        self.say(template, cued(template, [("{shape}", self.point_at(J[-1])),
                                           ("W_O", self.point_at(VGroup(*J.cells[self.last])))]),
                 shape="shapes.joined")
        self.wait(0.5)

    # ------------------------------------------------------------------ pieces

    def subtitle(self, text: str) -> Mobject:
        return self.label(text, LABEL_SIZE + 2, MUTED).move_to([0, TOP + 0.45, 0])

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
        width = len(self.tokens) * cell + max(label.width for label in labels) + 0.15
        groups = pages(len(self.heads), width, FRAME_WIDTH)
        return [[self.heads[i] for i in group] for group in groups]

    def row_label(self, i: int) -> Mobject:
        """A receiver's word and position."""
        return self.bound("{w} {p}", LABEL_SIZE, INK, words={"w": self.tokens[i]},
                          p=f"dims.positions[{i}]")

    def grid(self, h: int, cell: float | None = None, numbers: bool = True,
             words: bool = True) -> VGroup:
        """Head ``h``'s attention grid: receivers as rows, sources as columns, masked cells
        in the neutral fill, the others shaded by weight in the head's colour, each number
        in the ink that reads on its cell."""
        s, T, colour = self.s, len(self.tokens), self.head_colour(h)
        mask = self.v.value(f"{s}.mask")
        weights = self.v.value(f"{s}.h{h}.A")
        top = self.v.value(f"{s}.h{h}.top_source")
        probe = self.num(f"{s}.h{h}.A[0][0]", CELL_SIZE)
        width = cell if cell is not None else probe.width + 0.16
        height = cell if cell is not None else PITCH
        cells = VGroup()
        rows = [VGroup() for _ in range(T)]
        masked_row, top_cell = VGroup(), VGroup()
        for i in range(T):
            for j in range(T):
                if mask[i][j]:
                    box = Rectangle(width=width - 0.04, height=height - 0.04, stroke_width=0,
                                    fill_color=NEUTRAL_FILL, fill_opacity=1.0)
                    ink = INK
                else:
                    box, ink = weight_cell(colour, weights[i][j], width - 0.04, height - 0.04)
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
        label = self.head_label(h, LABEL_SIZE + 4)
        if numbers and words:  # beside the source numbers, above the receivers' names
            label.move_to([-width / 2 - 0.15, positions.get_y(), 0], aligned_edge=RIGHT)
        else:
            label.next_to(cells, UP, buff=0.2)
        group.add(label)
        group.cells, group.rows = cells, rows
        group.masked_row = masked_row if len(masked_row) else rows[0]
        group.top_cell = top_cell
        return group
