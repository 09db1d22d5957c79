"""After the heads: join their messages, mix them with W_O, add the residual, predict
the next word, and read a different context with the same parameters."""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    Line,
    Mobject,
    Rectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.kit import (
    ELIDE_AFTER,
    INK,
    MUTED,
    SAFE_BOTTOM,
    LectureScene,
    column_shifts,
    cued,
    fade_in,
    fade_out,
    fit,
    separator,
    shown_indices,
    vector,
    weight_cell,
)
from scenes.kit.palette import FAINT

__all__ = [
    "ConcatOutputResidual",
    "OtherContext",
    "PredictionMLP",
    "flow",
    "strip",
]

SIZE = 20
"""Number size in these scenes, before any fitting."""
SMALL = 17
FRAME_WIDTH = 13.2
TOP = 2.9
"""Highest y for content under a title."""
BOTTOM = SAFE_BOTTOM + 0.12
"""Lowest y for content: above the subtitle band (a pointer's outline included)."""
GROW = 1.3
"""How much a small layout may grow to fill the frame."""


def flow(pieces: Sequence[Mobject], width: float, buff: float = 0.18,
         line_buff: float = 0.22) -> VGroup:
    """Set ``pieces`` left to right, starting a new line when one would pass ``width``."""
    lines: list[list[Mobject]] = [[]]
    used = 0.0
    for piece in pieces:
        if lines[-1] and used + buff + piece.width > width:
            lines.append([])
            used = 0.0
        used += piece.width + (buff if lines[-1] else 0.0)
        lines[-1].append(piece)
    rows = VGroup(*(VGroup(*line).arrange(RIGHT, buff=buff) for line in lines))
    return rows.arrange(DOWN, buff=line_buff, aligned_edge=LEFT)


def optional(animation: Animation | None) -> list[Animation]:
    """``[animation]``, or nothing when there is none (an unpoint with nothing pointed at)."""
    return [] if animation is None else [animation]


def strip(numbers: Sequence[Mobject], colours: Sequence[str], width: float,
          height: float = 0.42) -> VGroup:
    """Numbers in touching boxes, one box per coordinate, each outlined in its colour."""
    cells = VGroup()
    for number, colour in zip(numbers, colours, strict=True):
        frame = Rectangle(width=width, height=height, stroke_color=colour, stroke_width=2)
        cells.add(VGroup(frame, number.move_to(frame)))
    return cells.arrange(RIGHT, buff=0)


class ConcatOutputResidual(LectureScene):
    """The heads' messages joined side by side; W_O one matrix whose rows fall in per-head
    blocks, any head's coordinate writing into any output coordinate; ΔE and E′ = E + ΔE."""

    def construct(self) -> None:
        s, self.last = self.ws.walkthrough, self.ws.length - 1
        self.s, self.d = s, self.ws.d_head
        self.receiver = self.ws.sentences[s][self.last]
        self.path = self.mixing_row()
        self.section("messages")
        self.heading = self.title("Join the messages, mix them with W_O, add them")
        self.messages()
        self.section("concatenate")
        self.concatenate()
        self.section("one matrix")
        self.one_matrix()
        self.section("shares")
        self.shares_step()
        self.section("mixing")
        self.mixing()
        self.section("update")
        self.update()
        self.section("first coordinate")
        self.first_coordinate()
        self.section("residual")
        self.residual()

    def owner(self, coordinate: int) -> int:
        """The head whose message supplies a joined coordinate."""
        return coordinate // self.d + 1

    def mixing_row(self) -> int:
        """The joined coordinate whose path into the first output coordinate the scene
        follows: the one with the largest W_O entry in that column, among the coordinates
        of the heads after the first (with one head: among its other coordinates)."""
        rows = list(range(self.d, self.ws.d_model)) if self.ws.n_heads > 1 else \
            list(range(1, self.ws.d_model))
        column = [row[0] for row in self.v.value("params.W_O")]
        return max(rows, key=lambda r: (abs(column[r]), -r))

    # ------------------------------------------------------------------ steps

    def messages(self) -> None:
        numbers = [[self.num(f"{self.s}.h{h}.message[{i}]", SIZE, self.head_colour(h))
                    for i in range(self.d)] for h in range(1, self.ws.n_heads + 1)]
        joined = [self.num(f"{self.s}.joined[{self.last}][{i}]", SIZE,
                           self.head_colour(self.owner(i))) for i in range(self.ws.d_model)]
        widths = [n.width for n in joined] + [n.width for row in numbers for n in row]
        self.cell_width = max(widths) + 0.28
        self.strips = VGroup(*(strip(row, [self.head_colour(h)] * self.d, self.cell_width)
                               for h, row in enumerate(numbers, start=1)))
        labelled = VGroup(*(VGroup(self.head_label(h, 22), block).arrange(DOWN, buff=0.22)
                            for h, block in enumerate(self.strips, start=1)))
        labelled.arrange(RIGHT, buff=0.8)
        each = self.bound("{d} numbers each", 20, MUTED, d="dims.d_head")
        labelled.add(each.next_to(labelled, DOWN, buff=0.25))
        fit(labelled, FRAME_WIDTH)
        labelled.move_to(UP * 1.3)
        self.joined = strip(joined, [self.head_colour(self.owner(i))
                                     for i in range(self.ws.d_model)], self.cell_width)
        self.joined.match_height(self.strips[0]).move_to(DOWN * 0.8)
        self.labelled = labelled
        template = "Every head has handed the receiver “{w}” its own message of {d} numbers."
        self.say(template, cued(template, [*zip(("handed", "own", "message", "of"),
                                                map(fade_in, labelled[:-1]), strict=False),
                                           ("{d}", fade_in(each))],
                                opening=[Write(self.heading)]),
                 words={"w": self.receiver}, d="dims.d_head")

    def concatenate(self) -> None:
        joins = [TransformFromCopy(block, VGroup(*self.joined[(h - 1) * self.d:h * self.d]))
                 for h, block in enumerate(self.strips, start=1)]
        self.shape = self.bound("{h} × {d} = {n} numbers in one joined row" if self.ws.n_heads > 1
                                else "one joined row: {n} numbers", 22, MUTED,
                                **({"h": "dims.heads", "d": "dims.d_head"}
                                   if self.ws.n_heads > 1 else {}), n="dims.joined")
        self.shape.next_to(self.joined, DOWN, buff=0.35)
        if self.ws.n_heads == 1:
            self.say("With a single head there is nothing to join: its message of {n} "
                     "numbers is already the joined row.", *joins, fade_in(self.shape),
                     n="dims.joined")
            return
        self.say("Concatenation sets the messages side by side.", *joins)
        template = "Coordinates are joined, not added: {h} heads × {d} numbers make one row " \
                   "of {n}."
        self.say(template, cued(template, [("{n}", fade_in(self.shape)),
                                           ("{n}.", self.point_at(self.joined))]),
                 h="dims.heads", d="dims.d_head", n="dims.joined")

    def one_matrix(self) -> None:
        layout = self.projection_layout()
        pointer = self.unpoint()
        with self.silence("the joined row moves to the left of W_O"):
            self.play(fade_out(self.labelled), fade_out(self.shape),
                      *optional(pointer))
            self.play(Transform(self.joined, layout.joined))
        template = "W_O is one matrix of shape {shape}: a row for each joined coordinate, " \
                   "a column for each coordinate of the update."
        self.say(template, cued(template, [("a row", self.point_at(VGroup(*self.W.cells[0]),
                                                                  buff=0.05)),
                                           ("a column", self.point_at(self.column_of(0)))],
                                opening=[fade_in(self.times, self.W)]),
                 shape="shapes.W_O")
        template = "Its rows fall into blocks of {d}, one per head: each block multiplies " \
                   "only its own head's message." if self.ws.n_heads > 1 else \
            "With one head, all {d} rows multiply that head's message."
        blocks = [(cue, self.point_at(self.block_rows(h), self.joined_block(h), each=True,
                                        buff=0.05))
                  for h, cue in zip(range(1, self.ws.n_heads + 1),
                                    ("Its", "one per", "multiplies", "own"), strict=False)]
        if self.ws.n_heads == 1:
            blocks = [("rows", blocks[0][1])]
        self.say(template, cued(template, [(cue, AnimationGroup(anim, fade_in(self.bars[h])))
                                           for h, (cue, anim) in enumerate(blocks)]),
                 d="dims.d_head")

    def shares_step(self) -> None:
        template = "A head's message times its own block is that head's share of the update, " \
                   "one number per column."
        self.say(template, cued(template, [("share", self.point_at(self.shares))],
                                opening=[fade_in(self.shares)]))

    def mixing(self) -> None:
        i, h = self.path, self.owner(self.path)
        f, g = self.ws.lesson.features[i], self.ws.lesson.features[0]
        m, w, t = (f"{self.s}.joined[{self.last}][{i}]", f"params.W_O[{i}][0]",
                   f"{self.s}.update_terms[{i}][0]")
        template = "Yet a row reaches every column, so a head's coordinate can write into any " \
                   "coordinate of the update."
        self.say(template, cued(template, [("a row", self.point_at(VGroup(*self.W.cells[i]),
                                                                  buff=0.05)),
                                           ("any", self.point_at(self.W.col_names))]))
        template = "Follow head {h}'s {f} coordinate, {m}: its W_O entry in the {g} column " \
                   "is {w}."
        self.say(template, cued(template, [("{m}", self.point_at(self.joined[i])),
                                           ("{w}", self.point_at(self.W.cells[i][0], buff=0.05))]),
                 h=f"dims.head_numbers[{h - 1}]", m=m, w=w, words={"f": f, "g": g})
        template = "Their product, {m} × {w} = {t}, is what head {h}'s {f} writes into {g}."
        self.say(template, cued(template, [("Their", fade_in(self.path_line)),
                                           ("{t}", self.point_at(self.path_line)),
                                           ("{f} writes", self.point_at(self.joined[i])),
                                           ("into {g}", self.point_at(self.W.col_names[0]))]),
                 m=m, w=w, t=t, h=f"dims.head_numbers[{h - 1}]", words={"f": f, "g": g})
        template = "It is the {g} entry of head {h}'s share: {t}."
        self.say(template, cued(template, [("{g}", self.point_at(self.shares[h - 1][1][0]))]),
                 h=f"dims.head_numbers[{h - 1}]", t=t, words={"g": g})

    def update(self) -> None:
        self.say("Adding the shares gives the update ΔE for the receiver.",
                 Create(self.rule), fade_in(self.delta), self.point_at(self.delta))
        self.say("Concatenating and multiplying by W_O once computes exactly this sum.",
                 self.point_at(self.joined, self.W, each=True))

    def first_coordinate(self) -> None:
        feature = self.ws.lesson.features[0]
        template = "In all, the {f} coordinate is each joined number times the {g} entry of " \
                   "its row, summed. Terms with a zero entry drop out; the rest add to {x}."
        self.say(template, cued(template, [("{g}", self.point_at(self.column_of(0))),
                                           ("{x}", self.point_at(self.equation[-1]))],
                                opening=[fade_in(self.equation)]),
                 words={"f": feature, "g": feature}, x=f"{self.s}.delta[{self.last}][0]")

    def residual(self) -> None:
        pointer = self.unpoint()
        self.play(*map(fade_out, [self.W, self.joined, self.times, self.shares, self.rule,
                                 self.delta, self.equation, self.path_line, self.bars]),
                  *optional(pointer), self.retitle(self.heading, "Add the update: E′ = E + ΔE"))
        table = self.residual_table()
        feature = self.ws.lesson.features[0]
        last = f"[{self.last}][0]"
        self.say("The residual connection adds the update to the receiver's own input row: "
                 "E′ = E + ΔE.", fade_in(table))
        template = "For {f}, {e} + " + self.signed("u", f"{self.s}.delta{last}") + " = {p}."
        self.say(template, cued(template, [("{e}", self.point_at(table.column[0])),
                                           ("{u}", self.point_at(table.column[1])),
                                           ("{p}", self.point_at(table.column[2]))]),
                 words={"f": feature}, e=f"{self.s}.E{last}", u=f"{self.s}.delta{last}",
                 p=f"{self.s}.E_prime{last}")
        template = "Every token row is updated the same way, so E′ keeps the shape of E, " \
                   "{shape}."
        self.say(template, cued(template, [("Every", self.point_at(table[0])),
                                           ("E′", fade_in(table.shape)),
                                           ("{shape}", self.point_at(table.shape))]),
                 shape="shapes.E_prime")
        self.say("Its last row goes on to the prediction.", self.point_at(table.result))
        self.wait(0.5)

    # ------------------------------------------------------------------ layouts

    def column_of(self, c: int) -> VGroup:
        """Shown column ``c`` of W_O, with its name."""
        return VGroup(self.W.col_names[c], *(row[c] for row in self.W.cells))

    def block_rows(self, h: int) -> VGroup:
        """The rows of W_O that multiply head ``h``'s message."""
        return VGroup(*(cell for row in self.W.cells[(h - 1) * self.d:h * self.d]
                        for cell in row))

    def joined_block(self, h: int) -> VGroup:
        return VGroup(*self.joined[(h - 1) * self.d:h * self.d])

    def projection_layout(self) -> VGroup:
        """The joined row times W_O (a bar per head's block of rows); under W_O's columns
        each head's share and their sum ΔE; to the right one coordinate's path and the sum
        for the first feature. The joined row's place comes back as ``joined``."""
        s, last, n = self.s, self.last, self.ws.d_model
        columns = shown_indices(n)
        names = [self.feature(c, SIZE) for c in columns]
        below = [self.num(f"{key}[{c}]", SIZE) for c in columns if c is not None
                 for key in [f"{s}.delta[{last}]",
                             *(f"{s}.h{h}.share[{last}]" for h in range(1, self.ws.n_heads + 1))]]
        # Columns wide enough for their names and for the shares and ΔE written under them.
        gap = max(0.45, *(name.width for name in names),
                  max(m.width for m in below) + 0.3)
        tall = n > ELIDE_AFTER  # eight rows: set them closer so the labels stay legible
        W = self.matrix("params.W_O", size=SIZE, v_buff=0.14 if tall else 0.22,
                        col_labels=names, h_buff=gap)
        rights = [VGroup(*(row[k] for row in W.cells)).get_right()[0]
                  for k in range(len(columns))]
        for k, name in enumerate(names):
            name.set_x(VGroup(*(row[k] for row in W.cells)).get_x())
        for h in range(1, self.ws.n_heads):
            y = (W.cells[h * self.d - 1][0].get_y() + W.cells[h * self.d][0].get_y()) / 2
            W.add(Line([W.body.get_left()[0] - 0.05, y, 0], [W.body.get_right()[0] + 0.05, y, 0],
                       stroke_color=FAINT, stroke_width=1.5))
        W.col_names = VGroup(*names)
        bars = VGroup()
        for h in range(1, self.ws.n_heads + 1):
            rows = W.cells[(h - 1) * self.d:h * self.d]
            top, bottom = rows[0][0].get_top()[1], rows[-1][0].get_bottom()[1]
            x = W.brackets.get_right()[0] + 0.18
            bars.add(Line([x, top, 0], [x, bottom, 0], stroke_color=self.head_colour(h),
                          stroke_width=5))
        # A row times a matrix: the joined row on the left of W_O, level with its middle;
        # a long row (eight numbers) goes on the line above, the × before W_O.
        joined = self.joined.copy()
        name = self.bound("W_O, shape {shape}, in blocks of {d} rows", SIZE, INK,
                          shape="shapes.W_O", d="dims.d_head")
        name.next_to(W.brackets, DOWN, buff=0.2)
        W.add(name)
        sign, called = self.label("×", 30, MUTED), self.label("joined row", 22)
        if tall:  # the row's left end is set once the share labels are placed
            joined.next_to(W.col_names, UP, buff=0.45)
            sign.next_to(W.brackets, LEFT, buff=0.3)
        else:
            joined.next_to(W.brackets, LEFT, buff=0.9).set_y(W.body.get_y())
            sign.move_to([(joined.get_right()[0] + W.brackets.get_left()[0]) / 2,
                          W.body.get_y(), 0])
            called.next_to(joined, DOWN, buff=0.2)
        times = VGroup(sign, called)
        pitch, y = (0.4 if tall else 0.46), name.get_bottom()[1] - (0.35 if tall else 0.45)
        # The labels end left of W_O, and left of the widest number under its first column.
        label_right = min(W.brackets.get_left()[0] - 0.2,
                          rights[0] - max(m.width for m in below[:1 + self.ws.n_heads]) - 0.3)

        def row(label: Mobject, key: str, colour: str, at: float) -> VGroup:
            numbers = VGroup(*(self.label("…", SIZE, colour) if c is None else
                               self.num(f"{key}[{c}]", SIZE, colour) for c in columns))
            for k, number in enumerate(numbers):
                number.move_to([rights[k], at, 0], aligned_edge=RIGHT)
            label.move_to([label_right, at, 0], aligned_edge=RIGHT)
            return VGroup(label, numbers)

        shares = VGroup(*(row(self.bound("Head {h}'s share", SIZE, self.head_colour(h),
                                         h=f"dims.head_numbers[{h - 1}]"),
                              f"{s}.h{h}.share[{last}]", self.head_colour(h), y - k * pitch)
                          for k, h in enumerate(range(1, self.ws.n_heads + 1))))
        rule = separator(W.body.width + 0.3).move_to(
            [W.body.get_x(), shares.get_bottom()[1] - 0.14, 0])
        delta = row(self.label("their sum, ΔE", SIZE), f"{s}.delta[{last}]", INK,
                    rule.get_y() - 0.32)
        i, h = self.path, self.owner(self.path)
        w = f"params.W_O[{i}][0]"
        path_line = VGroup(
            self.bound("Head {h}'s {f} → {g}:", SIZE, self.head_colour(h),
                       words={"f": self.ws.lesson.features[i], "g": self.ws.lesson.features[0]},
                       h=f"dims.head_numbers[{h - 1}]"),
            self.bound("{m} × " + self.signed("w", w) + " = {t}", SIZE, self.head_colour(h),
                       mono=True, m=f"{s}.joined[{last}][{i}]", w=w,
                       t=f"{s}.update_terms[{i}][0]"))
        path_line.arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        core = VGroup(times, W, bars, shares, delta, rule)
        if tall:  # over the labels and W_O, clear of the path and sum beside W_O below it
            joined.align_to(core, LEFT)
            called.next_to(joined, UP, buff=0.15).align_to(joined, LEFT)
        body = VGroup(joined, core)

        def scale(group: Mobject) -> float:
            return min(GROW, FRAME_WIDTH / group.width, (TOP - BOTTOM) / group.height)

        # The path and the sum beside W_O, or under the shares when that leaves them larger.
        beside = self.water_sum(max(4.0, FRAME_WIDTH - core.width - 0.7))
        side = VGroup(path_line.copy(), beside).arrange(DOWN, buff=0.45, aligned_edge=LEFT)
        side.next_to(bars, RIGHT, buff=0.7).align_to(W.col_names, UP)
        under = self.water_sum(max(4.0, FRAME_WIDTH - path_line.width - 0.8))
        low = VGroup(path_line.copy(), under).arrange(RIGHT, buff=0.8, aligned_edge=UP)
        low.next_to(body, DOWN, buff=0.4).align_to(body, LEFT)
        if scale(VGroup(body, low)) > scale(VGroup(body, side)):
            side, equation = low, under
        else:
            equation = beside
        path_line = side[0]
        layout = VGroup(body, side)
        layout.scale(scale(layout))
        layout.move_to([0, (TOP + BOTTOM) / 2, 0])
        layout.joined = joined
        self.W, self.times, self.shares, self.delta, self.rule = W, times, shares, delta, rule
        self.bars, self.path_line, self.equation = bars, path_line, equation
        return layout

    def water_sum(self, width: float) -> VGroup:
        """The first feature's update as message coordinate × W_O entry terms, in head colours:
        the factors on one line, their products and the total on the next (more than four
        terms: the products alone)."""
        s, last = self.s, self.last
        terms = [i for i in range(self.ws.d_model)
                 if self.v.value(f"{s}.update_terms[{i}][0]") != 0] or \
            list(range(self.ws.d_model))
        factors: list[Mobject] = [self.feature(0, SIZE, "{f} update =")]
        products: list[Mobject] = []
        for place, i in enumerate(terms):
            colour, plus = self.head_colour(self.owner(i)), "+ " if place else ""
            a, t = f"{s}.joined[{last}][{i}]", f"{s}.update_terms[{i}][0]"
            b = f"params.W_O[{i}][0]"
            factors.append(self.bound(plus + self.signed("a", a) + " × " + self.signed("b", b),
                                      SIZE, colour, mono=True, a=a, b=b))
            products.append(self.bound((plus or "= ") + self.signed("t", t, place > 0), SIZE,
                                       colour, mono=True, t=t))
        products.append(self.bound("= {x}", SIZE, INK, mono=True, x=f"{s}.delta[{last}][0]"))
        if len(terms) > ELIDE_AFTER:  # many terms: their products alone, after the name
            t = f"{s}.update_terms[{terms[0]}][0]"
            first = self.bound(self.signed("t", t, False), SIZE,
                               self.head_colour(self.owner(terms[0])), mono=True, t=t)
            return VGroup(flow([factors[0], first, *products[1:]], width))
        return VGroup(flow(factors, width), flow(products, width)).arrange(
            DOWN, buff=0.22, aligned_edge=LEFT)

    def signed(self, slot: str, key: str, enclosed: bool = True) -> str:
        """A template slot for ``key``, in parentheses when its value is negative and
        ``enclosed`` (a factor, or a term after the first)."""
        negative = self.v.value(key) < 0
        return "({" + slot + "})" if negative and enclosed else "{" + slot + "}"

    def residual_table(self) -> VGroup:
        s, last = self.s, self.last
        columns = shown_indices(self.ws.d_model)
        rows = [("input row E", "E"), ("update ΔE", "delta"), ("E′ = E + ΔE", "E_prime")]
        cells: list[Mobject] = [VGroup()]
        cells += [self.feature(c, SMALL) if c is not None else VGroup() for c in columns]
        for text, key in rows:
            cells.append(self.label(text, 22, MUTED))
            cells += [self.num(f"{s}.{key}[{last}][{c}]", 24) if c is not None
                      else self.label("…", 24) for c in columns]
        table = VGroup(*cells).arrange_in_grid(rows=len(rows) + 1, cols=len(columns) + 1,
                                               buff=(0.55, 0.35), cell_alignment=RIGHT)
        width = len(columns) + 1
        numbers = VGroup(*cells[2 * width + 1:3 * width])
        rule = separator(numbers.width + 0.3).next_to(numbers, DOWN, buff=0.17)
        shape = self.bound("E′ has shape {shape}", 22, MUTED, shape="shapes.E_prime")
        shape.next_to(table, DOWN, buff=0.45)
        group = VGroup(table, rule, shape)
        fit(group, FRAME_WIDTH)
        group.move_to([0, 0.2, 0])
        group.column = [cells[(r + 1) * width + 1] for r in range(len(rows))]
        group.result = VGroup(*cells[3 * width:4 * width])
        group.shape = shape
        group.remove(shape)
        return group

    def feature(self, c: int | None, size: float, template: str = "{f}") -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided column."""
        if c is None:
            return self.label("…", size, MUTED)
        return self.bound(template, size, MUTED, words={"f": self.ws.lesson.features[c]})



TOP_WORDS = 5
"""How many of the most probable words the prediction shows."""
BAR = 3.0
"""Length of a probability bar for probability one."""
HEAD_SIZE = 16


class PredictionMLP(LectureScene):
    """The receiver's updated row through the prediction MLP to vocabulary probabilities."""

    def construct(self) -> None:
        self.s, self.last = self.ws.walkthrough, self.ws.length - 1
        self.section("updated row")
        heading = self.title("From the updated row to the next word")
        self.updated_row(heading)
        self.section("hidden layer")
        self.hidden_layer()
        self.section("logits")
        self.logits()
        self.section("probabilities")
        self.probabilities()
        self.section("two choices")
        self.two_choices()

    # ------------------------------------------------------------------ steps

    def updated_row(self, heading: Mobject) -> None:
        self.build_pipeline()
        template = "Only the receiver's updated row E′ feeds the prediction: {n} numbers that " \
                   "now carry context from every head."
        self.say(template, cued(template, [("{n}", self.point_at(self.row[0].body))],
                                opening=[Write(heading), fade_in(self.row)]), n="dims.d_model")

    def hidden_layer(self) -> None:
        pre, hidden = self.steps[1][0], self.steps[3][0]
        template = "W_hidden and b_hidden turn it into {n} hidden pre-activations."
        self.say(template, cued(template, [("{n}", self.point_at(pre.body))],
                                opening=[fade_in(*self.steps[:2])]), n="dims.hidden")
        template = "ReLU keeps the positive ones and sets the negative ones to zero."
        values = self.v.value(f"{self.s}.hidden_pre")
        self.marks = VGroup(*(self.highlight(column.cells[r][0], INK)
                              for column in (pre, hidden) for r, value in enumerate(values)
                              if value <= 0))
        half = len(self.marks) // 2
        cues = [("ReLU", fade_in(*self.steps[2:]))]
        if half:
            cues += [("negative", AnimationGroup(*optional(self.unpoint()),
                                                 Create(self.marks[:half]))),
                     ("zero", Create(self.marks[half:]))]
        self.say(template, cued(template, cues))

    def logits(self) -> None:
        pointer = self.unpoint()
        with self.silence("the pipeline slides over to make room for the logits"):
            self.play(*map(fade_out, [self.row, *self.steps[:-1], self.marks]),
                      *optional(pointer))
            self.play(self.steps[-1].animate.shift(RIGHT * self.slide))
        template = "W_vocab and b_vocab give one logit per vocabulary word, {v} in all."
        self.say(template, cued(template, [("{v}", fade_in(self.table.count)),
                                           ("all", self.point_at(self.table.count))],
                                opening=[fade_in(self.readout)]), v="dims.vocab")
        self.say("The words listed here have the largest logits.", fade_in(self.table.words),
                 fade_in(self.table.logits), self.point_at(self.table.logits[0]))

    def probabilities(self) -> None:
        p = self.v.value(f"{self.s}.prediction")
        template = "Softmax over the whole vocabulary turns logits into probabilities; each " \
                   "bar is as long as its probability."
        self.say(template, cued(template, [("Softmax", fade_in(self.table.probs)),
                                           ("probabilities", self.point_at(self.table.probs[0])),
                                           ("bar", AnimationGroup(*map(Create, self.table.bars)))]))
        template = "“{w}” gets {x}: the predicted word."
        place = self.table.place
        self.say(template, cued(template, [("{w}", self.point_at(self.table.words[0][place])),
                                           ("{x}", self.point_at(self.table.probs[0][place],
                                                                 self.table.bars[place])),
                                           ("predicted", fade_in(self.predicted))]),
                 words={"w": self.ws.vocab[p]}, x=f"{self.s}.probs[{p}]")

    def two_choices(self) -> None:
        template = "Two softmaxes, two jobs: attention weights choose which source positions " \
                   "a head reads, and vocabulary probabilities choose which word comes next."
        pointer = self.unpoint()
        self.say(template, cued(template, [("attention", fade_in(self.contrast[0])),
                                           ("vocabulary", fade_in(self.contrast[1])),
                                           ("which word", self.point_at(self.contrast[1]))],
                                opening=optional(pointer)))
        self.wait(0.5)

    # ------------------------------------------------------------------ layout

    def build_pipeline(self) -> None:
        """E′ → pre-activations → ReLU, then the hidden row beside the top words."""
        s, last = self.s, self.last
        features = self.ws.lesson.features
        row = self.matrix(f"{s}.E_prime[{last}]", size=SIZE, v_buff=0.22, row_labels=[
            self.bound("{f}", SMALL, MUTED, words={"f": f}) for f in features])
        pre = self.matrix(f"{s}.hidden_pre", size=SIZE, v_buff=0.22)
        hidden = self.matrix(f"{s}.hidden", size=SIZE, v_buff=0.22)
        for (cell,), value in zip(hidden.cells, self.v.value(f"{s}.hidden"), strict=True):
            if value <= 0:  # what ReLU zeroed; the negatives before it keep their colour
                cell.set_color(MUTED)
        parts = [self.headed(row, self.bound("E′, last row ({n} numbers)", SMALL, MUTED,
                                             n="dims.d_model")),
                 self.arrow("× W_hidden + b_hidden"),
                 self.headed(pre, self.bound("{n} pre-activations", SMALL, MUTED,
                                             n="dims.hidden")),
                 self.arrow("ReLU"), self.headed(hidden, "hidden")]
        self.contrast = VGroup(
            self.label("attention weights: which sources a head reads", 22, MUTED),
            self.label("vocabulary probabilities: which word comes next", 22, INK),
        ).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        self.contrast.move_to([0, BOTTOM + self.contrast.height / 2, 0])
        above = self.contrast.get_top()[1] + 0.3
        pipeline = VGroup(*parts).arrange(RIGHT, buff=0.25)
        top = max(part[1].get_y() for part in parts[::2])
        for part in parts[::2]:
            part[1].set_y(top)
        fit(pipeline, FRAME_WIDTH, TOP - above)
        pipeline.move_to([0, (TOP + above) / 2, 0])
        self.row, self.steps = parts[0], parts[1:]
        self.table = self.top_words()
        self.readout = self.arrow("× W_vocab + b_vocab")
        after = VGroup(self.readout, self.table)
        self.slide = -7.0 + 0.3 - parts[-1].get_left()[0]
        left = parts[-1].get_right()[0] + self.slide + 0.25
        after.arrange(RIGHT, buff=0.25)
        fit(after, 7.0 - 0.3 - left)
        after.next_to([left, parts[-1].get_y(), 0], RIGHT, buff=0)
        self.readout.set_y(parts[-1].get_y())
        self.predicted = self.table.predicted

    def headed(self, column: VGroup, header: str | Mobject) -> VGroup:
        label = self.label(header, SMALL, MUTED) if isinstance(header, str) else header
        label.next_to(column.brackets, UP, buff=0.25)
        return VGroup(column, label)

    def arrow(self, text: str) -> VGroup:
        label = self.label(text, SMALL, MUTED)
        length = max(1.2, label.width + 0.2)
        line = Arrow(LEFT * length / 2, RIGHT * length / 2, buff=0, stroke_width=3,
                     color=MUTED, max_tip_length_to_length_ratio=0.15)
        return VGroup(line, label.next_to(line, UP, buff=0.12))

    def top_words(self) -> VGroup:
        """The most probable words: word, logit, probability and a bar of that length."""
        s, last = self.s, self.last
        probs = self.v.value(f"{s}.probs")
        order = sorted(range(len(probs)), key=lambda i: -probs[i])[:TOP_WORDS]
        pitch = 0.55
        headers = [self.label(t, SMALL, MUTED) for t in ("word", "logit", "probability")]
        words, logits, values, bars = VGroup(), VGroup(), VGroup(), VGroup()
        for place, i in enumerate(order):
            y = -place * pitch
            words.add(self.word(self.ws.vocab[i], 22).move_to([0, y, 0], aligned_edge=RIGHT))
            logits.add(self.num(f"{s}.logits[{last}][{i}]", SIZE)
                       .move_to([1.7, y, 0], aligned_edge=RIGHT))
            values.add(self.num(f"{s}.probs[{i}]", SIZE).move_to([3.2, y, 0],
                                                                 aligned_edge=RIGHT))
            bars.add(Rectangle(width=max(0.02, BAR * probs[i]), height=0.3, stroke_width=0,
                               fill_color=MUTED, fill_opacity=1.0)
                     .move_to([3.5, y, 0], aligned_edge=LEFT))
        for header, column in zip(headers, (words, logits, values), strict=True):
            header.next_to(column, UP, buff=0.3).align_to(column, RIGHT)
        p = self.v.value(f"{s}.prediction")
        place = order.index(p) if p in order else 0
        predicted = self.label("predicted", SMALL, INK).next_to(bars[place], RIGHT, buff=0.2)
        count = self.bound("{v} vocabulary words; the largest logits:", SMALL, INK, v="dims.vocab")
        count.next_to(VGroup(*headers), UP, buff=0.3).align_to(words, LEFT)
        table = VGroup(words, logits, values, bars, *headers, predicted, count)
        table.place, table.predicted, table.count = place, predicted, count
        table.words = VGroup(words, headers[0])
        table.logits = VGroup(logits, headers[1])
        table.probs = VGroup(values, headers[2])
        table.bars, table.order = bars, order
        return table


class OtherContext(LectureScene):
    """The same parameters on the other sentences: weights, messages and prediction change."""

    def construct(self) -> None:
        self.names = list(self.ws.sentences)
        self.last = self.ws.length - 1
        self.section("contexts")
        heading = self.title("Same parameters, a different context")
        self.build()
        others = self.names[1:]
        self.say("The parameters stay exactly as they were; only the sentence changes.",
                 Write(heading), fade_in(self.columns[0].tokens))
        template = "Next to the {a} sentence we now read " + self.listing("b", others) + "."
        self.say(template, cued(template, [(f"{{b{i}}}", fade_in(c.tokens))
                                           for i, c in enumerate(self.columns[1:])]),
                 words={"a": self.names[0], **{f"b{i}": n for i, n in enumerate(others)}})
        self.section("weights")
        for h in range(1, self.ws.n_heads + 1):
            self.weights(h)
        self.section("messages")
        self.messages()
        self.section("prediction")
        self.prediction()

    def listing(self, slot: str, names: list[str]) -> str:
        """``the {b0} sentence and the {b1} sentence`` for any number of names."""
        parts = ["the {" + f"{slot}{i}" + "} sentence" for i in range(len(names))]
        return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]

    # ------------------------------------------------------------------ steps

    def weights(self, h: int) -> None:
        words: dict[str, str] = {}
        keys: dict[str, str] = {}
        parts, cues = [], []
        for i, (name, column) in enumerate(zip(self.names, self.columns, strict=True)):
            top = self.v.value(f"{name}.h{h}.top_source")
            words[f"w{i}"], words[f"s{i}"] = self.ws.sentences[name][top], name
            keys[f"x{i}"] = f"{name}.h{h}.weights[{top}]"
            parts.append("“{w#}” ({x#}) in the {s#} sentence".replace("#", str(i)))
            cues.append((f"{{x{i}}}", self.point_at(column.heads[h - 1].cells[top])))
        template = "Its largest weight goes to " + ", ".join(parts) + "."
        self.say("Head {h} weighs its sources anew in each context.",
                 *(fade_in(c.heads[h - 1]) for c in self.columns),
                 h=f"dims.head_numbers[{h - 1}]")
        self.say(template, cued(template, cues), words=words, **keys)

    def messages(self) -> None:
        first, second = self.names[:2]
        width = self.ws.d_head
        inner_a, keys_a = vector("a", f"{first}.h1.message", width)
        inner_b, keys_b = vector("b", f"{second}.h1.message", width)
        pointer = self.unpoint()
        self.say("New weights mix different value rows, so every message changes.",
                 *(fade_in(c.messages) for c in self.columns), *optional(pointer))
        template = "Head {h} sends " + inner_a + " in the {s} sentence but " + inner_b + \
            " in the {t} one."
        self.say(template, cued(template, [
            ("{a0}", self.point_at(self.columns[0].messages[0])),
            ("{b0}", self.point_at(self.columns[1].messages[0]))]),
            h="dims.head_numbers[0]", words={"s": first, "t": second}, **keys_a, **keys_b)

    def prediction(self) -> None:
        words: dict[str, str] = {}
        keys: dict[str, str] = {}
        parts, cues = [], []
        pointer = self.unpoint()
        rows = self.point_at(*(c.messages for c in self.columns))
        for i, (name, column) in enumerate(zip(self.names, self.columns, strict=True)):
            p = self.v.value(f"{name}.prediction")
            words[f"w{i}"], words[f"s{i}"] = self.ws.vocab[p], name
            keys[f"x{i}"] = f"{name}.probs[{p}]"
            parts.append("“{w#}” ({x#}) after the {s#} sentence".replace("#", str(i)))
            cues.append((f"{{w{i}}}", AnimationGroup(fade_in(column.prediction),
                                                     self.point_at(column.prediction))))
        template = "The updated row changes, and so does the prediction: " + ", ".join(parts) \
            + "."
        self.say(template, cued(template, [("updated", rows), *cues], opening=optional(pointer)),
                 words=words, **keys)
        self.wait(0.5)

    # ------------------------------------------------------------------ layout

    def build(self) -> None:
        numbers = [self.num(f"{self.names[0]}.h1.weights[{j}]", SMALL)
                   for j in range(self.ws.length)]
        labels = [self.head_label(h, HEAD_SIZE) for h in range(1, self.ws.n_heads + 1)]
        self.cell = max(m.width for m in [*numbers, *labels]) + 0.12
        self.columns = [self.context(name) for name in self.names]
        for column, shift in zip(self.columns, column_shifts(self.columns, 0.0), strict=True):
            column.shift(RIGHT * shift)
        group = VGroup(*self.columns)
        group.scale(min(1.25, FRAME_WIDTH / group.width, (TOP - BOTTOM) / group.height))
        group.move_to([0, (TOP + BOTTOM) / 2, 0])

    def context(self, name: str) -> VGroup:
        """One sentence: its tokens, each head's weight beside every token, each head's
        message for the receiver, and the predicted word."""
        tokens = self.ws.sentences[name]
        pitch, size = 0.36, 18
        header = self.bound("{n}", 24, INK, words={"n": name})
        words = VGroup(*(self.word(t, size).move_to([0, -(j + 1) * pitch, 0], aligned_edge=RIGHT)
                         for j, t in enumerate(tokens)))
        receiver = self.highlight(words[self.last], MUTED)
        header.move_to([0, 0.3, 0], aligned_edge=UP + RIGHT)
        tokens_group = VGroup(header, words, receiver)
        heads = []
        for h in range(1, self.ws.n_heads + 1):
            colour, x = self.head_colour(h), 0.25 + (h - 0.5) * self.cell
            cells = VGroup()
            for j in range(len(tokens)):
                key = f"{name}.h{h}.weights[{j}]"
                box, ink = weight_cell(colour, self.v.value(key), self.cell - 0.06,
                                       pitch - 0.06)
                box.move_to([x, -(j + 1) * pitch, 0])
                cells.add(VGroup(box, self.num(key, SMALL, ink).move_to(box)))
            label = self.head_label(h, HEAD_SIZE).move_to([x, header.get_y(), 0])
            head = VGroup(label, cells)
            head.cells = cells
            heads.append(head)
        messages = VGroup()
        for h in range(1, self.ws.n_heads + 1):
            inner, keys = vector("m", f"{name}.h{h}.message", self.ws.d_head)
            messages.add(self.bound("Head {h} " + inner, SMALL, self.head_colour(h), mono=True,
                                    h=f"dims.head_numbers[{h - 1}]", **keys))
        messages.arrange(DOWN, buff=0.16, aligned_edge=LEFT)
        messages.next_to(words, DOWN, buff=0.3).align_to(words, LEFT)
        p = self.v.value(f"{name}.prediction")
        prediction = self.bound("predicts “{w}”, {x}", 20, INK, words={"w": self.ws.vocab[p]},
                                x=f"{name}.probs[{p}]")
        prediction.next_to(messages, DOWN, buff=0.25).align_to(messages, LEFT)
        column = VGroup(tokens_group, *heads, messages, prediction)
        column.tokens, column.heads = tokens_group, heads
        column.messages, column.prediction = messages, prediction
        return column
