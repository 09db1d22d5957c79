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
    LEAST_FIGURE_SIZE,
    MUTED,
    SAFE_BOTTOM,
    LectureScene,
    baseline,
    brackets,
    column_shifts,
    cued,
    fade_in,
    fade_out,
    fit,
    on_baseline,
    separator,
    shown_indices,
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
LABEL = 20
"""Size of the labels naming a joined coordinate by head and feature."""
FRAME_WIDTH = 13.2
TOP = 2.9
"""Highest y for content under a title."""
BOTTOM = SAFE_BOTTOM + 0.12
"""Lowest y for content: above the subtitle band (a pointer's outline included)."""
GROW = 1.3
"""How much a small layout may grow to fill the frame."""
GAP = 0.1
"""Space between the boxes of the joined row stood on end beside W_O."""


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


def with_index(shown: Sequence[int | None], keep: int) -> list[int | None]:
    """Indices a row shows (``None`` for an elided run), with ``keep`` among them: when it
    would be elided it takes the place of the last leading index, "…" on either side."""
    if keep in shown:
        return list(shown)
    cut = shown.index(None)
    picked = sorted({*shown[:cut - 1], keep, *shown[cut + 1:]})
    made: list[int | None] = []
    for index in picked:
        if made and index - made[-1] > 1:
            made.append(None)
        made.append(index)
    return made


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


def feature(scene: LectureScene, c: int | None, size: float, template: str = "{f}",
            colour: str = MUTED) -> Mobject:
    """A feature name (a worksheet word) for coordinate ``c``, or "…" for an elided one."""
    if c is None:
        return scene.label("…", size, colour)
    return scene.bound(template, size, colour, words={"f": scene.ws.lesson.features[c]})


def owner(scene: LectureScene, coordinate: int) -> int:
    """The head whose message supplies a joined coordinate."""
    return coordinate // scene.ws.d_head + 1


def copied_feature(scene: LectureScene, c: int) -> int | None:
    """The model feature joined coordinate ``c`` carries: the one its head's value column
    copies (``params.hN.V_features``), or ``None`` for a column that mixes features."""
    picked = int(scene.v.value(f"params.h{owner(scene, c)}.V_features")[c % scene.ws.d_head])
    return None if picked < 0 else picked


def carried(scene: LectureScene, c: int, slot: str = "f") -> tuple[str, dict[str, str],
                                                                   dict[str, str]]:
    """What joined coordinate ``c`` carries, as a template fragment with its words and
    keys: the copied feature (``{f}``), or for a column that mixes features its place in
    its head's message (``value {f}``, the number bound)."""
    copied = copied_feature(scene, c)
    if copied is None:
        return "value {" + slot + "}", {}, {slot: f"dims.value_numbers[{c % scene.ws.d_head}]"}
    return "{" + slot + "}", {slot: scene.ws.lesson.features[copied]}, {}


def carried_name(scene: LectureScene, c: int, size: float, colour: str = MUTED,
                 template: str = "{f}", words: dict[str, str] | None = None,
                 **keys: str) -> Mobject:
    """A label naming what joined coordinate ``c`` carries (see :func:`carried`) inside
    ``template``, whose slot ``{f}`` it fills (``words`` and ``keys`` fill the others)."""
    fragment, named, bound = carried(scene, c)
    return scene.bound(template.replace("{f}", fragment), size, colour,
                       words={**named, **(words or {})}, **bound, **keys)


def coordinate_label(scene: LectureScene, c: int, size: float = LABEL,
                     stacked: bool = False) -> Mobject:
    """``H2 person``: the head a joined coordinate comes from and what it carries (the
    feature its head's value column copies, else ``value 1``…), in the head's colour;
    ``stacked``, the head over what it carries (a narrow label for a cell)."""
    h, colour = owner(scene, c), scene.head_colour(owner(scene, c))
    head = f"dims.head_numbers[{h - 1}]"
    if not stacked:
        return carried_name(scene, c, size, colour, "H{h} {f}", h=head)
    return VGroup(scene.bound("H{h}", size, colour, h=head),
                  carried_name(scene, c, size, colour)).arrange(DOWN, buff=0.06)


def signed_slot(scene: LectureScene, slot: str, key: str, enclosed: bool = True) -> str:
    """A template slot for ``key``, in parentheses when its value is negative and
    ``enclosed`` (a factor, or a term after the first)."""
    return "({" + slot + "})" if scene.v.value(key) < 0 and enclosed else "{" + slot + "}"


def negative(number: Mobject) -> bool:
    """Whether a bound number shows a negative value (the kit colours those)."""
    figures = getattr(number, "figures", ())
    return bool(figures) and figures[0][1].startswith("−")


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
        return owner(self, coordinate)

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
        heads = range(1, self.ws.n_heads + 1)
        numbers = [[self.num(f"{self.s}.h{h}.message[{i}]", SIZE, self.head_colour(h))
                    for i in range(self.d)] for h in heads]
        names = [[carried_name(self, (h - 1) * self.d + i, LABEL) for i in range(self.d)]
                 for h in heads]
        joined = [self.num(f"{self.s}.joined[{self.last}][{i}]", SIZE,
                           self.head_colour(self.owner(i))) for i in range(self.ws.d_model)]
        self.joined_labels = VGroup(*(coordinate_label(self, i, stacked=True)
                                      for i in range(self.ws.d_model)))
        widths = [n.width for n in joined] + [n.width for row in numbers for n in row] + \
            [n.width for n in self.joined_labels] + [n.width for row in names for n in row]
        self.cell_width = max(widths) + 0.28
        self.strips = VGroup(*(strip(row, [self.head_colour(h)] * self.d, self.cell_width)
                               for h, row in zip(heads, numbers, strict=True)))
        labelled = VGroup()
        for h, block, row in zip(heads, self.strips, names, strict=True):
            for name, cell in zip(row, block, strict=True):
                name.next_to(cell, UP, buff=0.12)
            top = VGroup(*row)
            for name in row:  # the names stand on one line, whatever their descenders
                name.shift(UP * (baseline(row[0]) - baseline(name)))
            labelled.add(VGroup(self.head_label(h, 22).next_to(top, UP, buff=0.18), top, block))
        labelled.arrange(RIGHT, buff=0.8, aligned_edge=DOWN)
        each = self.bound("{d} numbers each", 20, MUTED, d="dims.d_head")
        labelled.add(each.next_to(labelled, DOWN, buff=0.25))
        fit(labelled, FRAME_WIDTH)
        labelled.move_to(UP * 1.3)
        self.joined = strip(joined, [self.head_colour(self.owner(i))
                                     for i in range(self.ws.d_model)], self.cell_width)
        for label, cell in zip(self.joined_labels, self.joined, strict=True):
            label.next_to(cell, UP, buff=0.12)
        for label in self.joined_labels:  # the features on one line, whatever they hold
            label.shift(UP * (baseline(self.joined_labels[0][1]) - baseline(label[1])))
        self.joined_row = VGroup(self.joined, self.joined_labels)
        self.joined_row.scale(self.strips[0].height / self.joined.height)
        self.joined_row.shift(DOWN * 0.8 - self.joined.get_center())
        self.labelled = labelled
        # The receiver named on screen as the voice names it: the sentence's last token.
        self.receiver_note = self.bound("receiver: the final “{w}”", 22, INK,
                                        words={"w": self.receiver})
        self.receiver_note.next_to(labelled, UP, buff=0.35)
        template = "Every head has handed the receiver “{w}” its own message of {d} numbers."
        self.say(template, cued(template, [
            ("receiver", fade_in(self.receiver_note)),
            *zip(("its", "own", "message", "of"), map(fade_in, labelled[:-1]), strict=False),
            ("{d}", fade_in(each))], opening=[Write(self.heading)]),
            words={"w": self.receiver}, d="dims.d_head")

    def concatenate(self) -> None:
        joins = [AnimationGroup(TransformFromCopy(block, self.joined_block(h)),
                                fade_in(*self.joined_labels[(h - 1) * self.d:h * self.d]))
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
                                           ("{n}.", self.point_at(self.joined_row))]),
                 h="dims.heads", d="dims.d_head", n="dims.joined")

    def one_matrix(self) -> None:
        layout = self.projection_layout()
        pointer = self.unpoint()
        with self.silence("the joined row stands on end left of W_O"):
            self.play(fade_out(self.labelled), fade_out(self.shape),
                      fade_out(self.receiver_note), *optional(pointer))
            self.play(Transform(self.joined_row, layout.joined_row))
        template = "W_O is one matrix of shape {shape}: a row per joined coordinate, a column " \
                   "per coordinate of the update."
        self.say(template, cued(template, [("a row", self.point_at(self.joined_labels)),
                                           ("a column", self.point_at(self.W.col_names))],
                                opening=[fade_in(self.times, self.W, self.W_name)]),
                 shape="shapes.W_O")
        template = "Its rows fall into blocks of {d}, one per head: each block multiplies " \
                   "only its own head's message." if self.ws.n_heads > 1 else \
            "With one head, all {d} rows multiply that head's message."
        blocks = [(cue, self.point_at(self.block_rows(h), self.joined_block(h, labelled=True),
                                        each=True, buff=0.05))
                  for h, cue in zip(range(1, self.ws.n_heads + 1),
                                    ("Its", "one per", "multiplies", "own"), strict=False)]
        if self.ws.n_heads == 1:
            blocks = [("rows", blocks[0][1])]
        # Each bar comes before its pointer: what joins the scene after a pointer would go
        # unseen while the next step fades that pointer.
        self.say(template, cued(template, [(cue, AnimationGroup(fade_in(self.bars[h]), anim))
                                           for h, (cue, anim) in enumerate(blocks)]),
                 d="dims.d_head")

    def shares_step(self) -> None:
        """Each head's share comes in as the voice names it: head 1's first, then the
        others', each with its message and its block of W_O outlined."""
        def share(h: int) -> Animation:
            return AnimationGroup(fade_in(self.shares[h - 1]), self.point_at(
                self.joined_block(h, labelled=True), self.block_rows(h), self.shares[h - 1],
                each=True, buff=0.05))

        template = "Head {h}'s message times its own block gives its share of the update, " \
                   "one number per column."
        self.say(template, cued(template, [("share", share(1))]), h="dims.head_numbers[0]")
        if self.ws.n_heads == 1:
            return
        template = "Head {h}'s share comes the same way" + \
            (", and so does every other head's." if self.ws.n_heads > 2 else ".")
        cues = [("share", share(2))]
        if self.ws.n_heads > 2:
            cues.append(("every other", AnimationGroup(
                fade_in(*self.shares[2:]), self.point_at(*self.shares[2:]))))
        self.say(template, cued(template, cues), h="dims.head_numbers[1]")

    def mixing(self) -> None:
        i, h = self.path, self.owner(self.path)
        g = self.ws.lesson.features[0]
        fragment, named, keyed = carried(self, i)
        # "its person coordinate", or for a value column that mixes features "its value
        # coordinate 1"
        copied = copied_feature(self, i) is not None
        phrase = fragment + " coordinate" if copied else "value coordinate {f}"
        m, w, t = (f"{self.s}.joined[{self.last}][{i}]", f"params.W_O[{i}][0]",
                   f"{self.s}.update_terms[{i}][0]")
        head = f"dims.head_numbers[{h - 1}]"
        template = "Yet a row reaches every column: W_O is where " + \
            ("the heads' messages can mix across coordinates." if self.ws.n_heads > 1 else
             "the message's coordinates can mix.")
        row = VGroup(*self.W.cells[i])
        self.say(template, cued(template, [("a row", self.point_at(row, buff=0.05))]))
        coordinate = VGroup(self.joined[i], self.joined_labels[i])
        entry = self.W.cells[i][0]
        template = "Follow head {h}'s " + phrase + ", {m}: its W_O entry in the {g} column " \
                   "is {w}."
        # both outlined together, so the pair stays in view as the sentence ends
        self.say(template, cued(template, [("{m}", self.point_at(coordinate, buff=0.05)),
                                           ("entry", self.point_at(coordinate, entry,
                                                                   each=True, buff=0.05))]),
                 h=head, m=m, w=w, words={**named, "g": g}, **keyed)
        template = "A trained model learns such entries; this one is set by hand so the " \
                   "mixing shows."
        self.say(template, cued(template, [("this one", self.point_at(entry))]))
        template = "Their product, {m} × " + signed_slot(self, "w", w) + " = {t}, is what " \
            "head {h}'s " + (fragment if copied else phrase) + " writes into {g}."
        share = self.shares[h - 1][1][0]  # that head's share, in the first column
        self.say(template, cued(template, [("Their", fade_in(self.path_line)),
                                           ("{t}", self.point_at(self.path_line)),
                                           ("writes", self.point_at(self.path_line, share,
                                                                    each=True))]),
                 m=m, w=w, t=t, h=head, words={**named, "g": g}, **keyed)

    def update(self) -> None:
        self.say("Adding the shares gives the receiver's update Δe.",
                 Create(self.rule), fade_in(self.delta), self.point_at(self.delta))
        self.say("Concatenating and multiplying by W_O once computes exactly this sum.",
                 self.point_at(self.joined_row, self.W, each=True))

    def first_coordinate(self) -> None:
        feature_name = self.ws.lesson.features[0]
        equation = self.equation
        template = "In all, the {f} update sums each joined number times the {g} entry of " \
                   "its row."
        self.say(template, cued(template, [("{g}", self.point_at(self.column_of(0)))],
                                opening=[fade_in(equation.factors)]),
                 words={"f": feature_name, "g": feature_name})
        total = f"{self.s}.delta[{self.last}][0]"
        if len(equation.greyed):
            template = "Terms with a zero entry drop out; the rest add to {x}."
            cues = [("drop out", self.point_at(*equation.greyed, each=True)),
                    ("{x}", self.point_at(equation.total))]
        else:
            template = "The terms add up to {x}."
            cues = [("{x}", self.point_at(equation.total))]
        self.say(template, cued(template, cues, opening=[fade_in(equation.products)]), x=total)

    def residual(self) -> None:
        pointer = self.unpoint()
        self.play(*map(fade_out, [self.W, self.joined_row, self.times, self.shares, self.rule,
                                 self.delta, self.equation, self.path_line, self.bars,
                                 self.W_name]),
                  *optional(pointer), self.retitle(self.heading, "Add the update: E′ = E + ΔE"))
        c = int(self.v.value(f"{self.s}.input_top"))
        table, rows = self.residual_layout(c)
        at = f"[{self.last}][{c}]"
        template = "The residual connection adds the update Δe to the receiver's input row e: " \
                   "e′ = e + Δe."
        self.say(template, cued(template, [("adds", self.point_at(table.update_row)),
                                           ("input", self.point_at(table.input_row))],
                                opening=[fade_in(table)]))
        template = "The layer only adds what the heads found: adding instead of replacing " \
                   "keeps the input row."
        self.say(template, cued(template, [("only adds", self.point_at(table.update_row)),
                                           ("keeps", self.point_at(table.input_row))]))
        # Shown on the coordinate whose input is largest: there the kept input is plain.
        template = "For {f}, {e} + " + signed_slot(self, "u", f"{self.s}.delta{at}") + " = {p}."
        self.say(template, cued(template, [("{f}", self.point_at(table.picked)),
                                           ("{p}", self.point_at(table.kept, table.summed,
                                                                 each=True))]),
                 words={"f": self.ws.lesson.features[c]}, e=f"{self.s}.E{at}",
                 u=f"{self.s}.delta{at}", p=f"{self.s}.E_prime{at}")
        self.section("every row")
        template = "Every token row is updated the same way, so E′ keeps the shape of E, " \
                   "{shape}."
        self.say(template, cued(template, [("Every", AnimationGroup(
            Transform(table, table.beside), fade_in(rows),
            self.point_at(rows.matrix.body, rows.matrix.row_labels))),
            ("{shape}", AnimationGroup(fade_in(rows.shape), self.point_at(rows.shape)))]),
            shape="shapes.E_prime")
        self.say("Its last row goes on to the prediction.",
                 self.point_at(rows.last_row, table.result, each=True, buff=0.07))
        self.wait(0.5)

    # ------------------------------------------------------------------ layouts

    def column_of(self, c: int) -> VGroup:
        """Shown column ``c`` of W_O, with its name."""
        return VGroup(self.W.col_names[c], *(row[c] for row in self.W.cells))

    def block_rows(self, h: int) -> VGroup:
        """The rows of W_O that multiply head ``h``'s message."""
        rows = range((h - 1) * self.d, h * self.d)
        return VGroup(*(cell for r in rows for cell in self.W.cells[r]))

    def joined_block(self, h: int, labelled: bool = False) -> VGroup:
        """Head ``h``'s cells of the joined row (with their labels when ``labelled``)."""
        picked = slice((h - 1) * self.d, h * self.d)
        return VGroup(*self.joined[picked], *(self.joined_labels[picked] if labelled else ()))

    def projection_layout(self) -> VGroup:
        """The joined row stood on end left of W_O, each joined number level with the row
        of W_O it multiplies and named on its left ("H2 person"), a bar per head's block
        of rows; under W_O's columns each head's share and their sum ΔE; to the right W_O's
        name and shape, one coordinate's path and the sum for the first feature. The
        joined row's place comes back as ``joined_row``."""
        s, last, n = self.s, self.last, self.ws.d_model
        columns = shown_indices(n)
        names = [feature(self, c, SIZE) for c in columns]
        sums = [f"{s}.delta[{last}]",
                *(f"{s}.h{h}.share[{last}]" for h in range(1, self.ws.n_heads + 1))]
        below = [self.num(f"{key}[{c}]", SIZE) for c in columns if c is not None
                 for key in sums]
        # Columns far enough apart for their names, and for the shares and ΔE written
        # under them, right-aligned with W_O's entries.
        room = [(max(self.num(f"params.W_O[{r}][{c}]", SIZE).width for r in range(n)),
                 max(self.num(f"{key}[{c}]", SIZE).width for key in sums), name.width)
                for c, name in zip(columns, names, strict=True) if c is not None]
        gap = max(0.45, *(wide + 0.3 - entry for entry, wide, _ in room),
                  *(named + 0.25 - entry for entry, _, named in room))
        tall = n > ELIDE_AFTER  # more rows: set them closer, so that the shares fit below
        W = self.matrix("params.W_O", size=SIZE, v_buff=0.15 if tall else 0.22,
                        col_labels=names, h_buff=gap)
        rights = [VGroup(*(row[k] for row in W.cells)).get_right()[0]
                  for k in range(len(columns))]
        for k, name in enumerate(names):
            name.set_x(VGroup(*(row[k] for row in W.cells)).get_x())
        for name in names:  # the names on one line, whatever their descenders
            name.shift(UP * (baseline(names[0]) - baseline(name)))
        for h in range(1, self.ws.n_heads):
            y = (W.cells[h * self.d - 1][0].get_y() + W.cells[h * self.d][0].get_y()) / 2
            W.add(Line([W.body.get_left()[0] - 0.05, y, 0], [W.body.get_right()[0] + 0.05, y, 0],
                       stroke_color=FAINT, stroke_width=1.5))
        W.col_names = VGroup(*names)
        bars = VGroup()
        x = W.brackets.get_right()[0] + 0.18
        for h in range(1, self.ws.n_heads + 1):
            rows = W.cells[(h - 1) * self.d:h * self.d]
            top, bottom = rows[0][0].get_top()[1], rows[-1][0].get_bottom()[1]
            bars.add(Line([x, top, 0], [x, bottom, 0], stroke_color=self.head_colour(h),
                          stroke_width=5))
        # A row times a matrix, the row stood on end: joined number r level with row r of
        # W_O, which it multiplies, named on its left by its head and what it carries; the
        # boxes apart, so that an outline round some of them passes clear of the next.
        pitch = W.cells[1][0].get_y() - W.cells[0][0].get_y() if n > 1 else 0.5
        joined = self.joined_row.copy()
        cells, labels = joined
        joined.scale(self.cell_width / cells[0][0].width)  # as first laid out, unfitted
        sign = self.label("×", 30, MUTED)
        sign.next_to(W.brackets, LEFT, buff=0.25)
        column_x = sign.get_left()[0] - 0.25 - self.cell_width / 2
        for cell, label, row in zip(cells, labels, W.cells, strict=True):
            cell[0].stretch_to_fit_height(abs(pitch) - GAP)
            cell.move_to([column_x, row[0].get_y(), 0])
            on_baseline(label, 0.12).next_to(cell, LEFT, buff=0.2)
            label.shift(UP * (baseline(cell[1]) - baseline(label[0])))
        called = self.label("joined row", 22)
        called.move_to([cells.get_x(), names[0].get_y(), 0])
        times = VGroup(sign, called)
        pitch_shares, y = (0.34 if tall else 0.46), W.brackets.get_bottom()[1] - 0.35
        # The share labels end left of W_O, and left of the widest number under its first
        # column.
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
                              f"{s}.h{h}.share[{last}]", self.head_colour(h),
                              y - k * pitch_shares)
                          for k, h in enumerate(range(1, self.ws.n_heads + 1))))
        rule = separator(W.body.width + 0.3).move_to(
            [W.body.get_x(), shares.get_bottom()[1] - 0.14, 0])
        delta = row(self.label("their sum, Δe", SIZE), f"{s}.delta[{last}]", INK,
                    rule.get_y() - 0.32)
        body = VGroup(joined, times, W, bars, shares, delta, rule)
        # W_O's name, the path followed and the first feature's sum on the right.
        name = VGroup(self.bound("W_O, shape {shape},", SIZE, INK, shape="shapes.W_O"),
                      self.bound("in blocks of {d} rows", SIZE, INK, d="dims.d_head"))
        name.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        i, h = self.path, self.owner(self.path)
        w = f"params.W_O[{i}][0]"
        path_line = VGroup(
            carried_name(self, i, SIZE, self.head_colour(h), "Head {h}'s {f} → {g}:",
                         words={"g": self.ws.lesson.features[0]},
                         h=f"dims.head_numbers[{h - 1}]"),
            self.bound("{m} × " + signed_slot(self, "w", w) + " = {t}", SIZE, self.head_colour(h),
                       mono=True, m=f"{s}.joined[{last}][{i}]", w=w,
                       t=f"{s}.update_terms[{i}][0]"))
        path_line.arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        room = FRAME_WIDTH - body.width - 0.6
        equation = self.water_sum(max(room, path_line.width, name.width))
        side = VGroup(name, path_line, equation).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        side.next_to(bars, RIGHT, buff=0.6).align_to(names[0], UP)
        layout = VGroup(body, side)
        layout.scale(min(GROW, FRAME_WIDTH / layout.width, (TOP - BOTTOM) / layout.height))
        layout.move_to([0, (TOP + BOTTOM) / 2, 0])
        layout.joined_row = joined
        self.W, self.times, self.shares, self.delta, self.rule = W, times, shares, delta, rule
        self.bars, self.path_line, self.equation, self.W_name = bars, path_line, equation, name
        return layout

    def water_sum(self, width: float) -> VGroup:
        """The first feature's update as joined coordinate × W_O entry terms in their
        heads' colours, a term whose entry is zero greyed; then the products of the other
        terms and their total. With more than four terms, their products alone after the
        name (the greyed ones included). Attributes ``factors``, ``products``, ``greyed``
        (the greyed terms) and ``total``."""
        s, last = self.s, self.last
        terms = list(range(self.ws.d_model))
        zero = {i for i in terms if self.v.value(f"params.W_O[{i}][0]") == 0}
        few = len(terms) <= ELIDE_AFTER
        name = feature(self, 0, SIZE, "{f} update =")
        factors: list[Mobject] = [name]
        products: list[Mobject] = []
        greyed: list[Mobject] = []
        for place, i in enumerate(terms):
            a, b = f"{s}.joined[{last}][{i}]", f"params.W_O[{i}][0]"
            colour = MUTED if i in zero else self.head_colour(self.owner(i))
            if few:
                factors.append(self.bound(("+ " if place else "") + signed_slot(self, "a", a)
                                          + " × " + signed_slot(self, "b", b), SIZE, colour,
                                          mono=True, a=a, b=b))
                if i in zero:
                    greyed.append(factors[-1])
        for place, i in enumerate([i for i in terms if not few or i not in zero] or terms):
            t = f"{s}.update_terms[{i}][0]"
            colour = MUTED if i in zero else self.head_colour(self.owner(i))
            products.append(self.bound(("+ " if place else "= " if few else "")
                                       + signed_slot(self, "t", t, place > 0), SIZE, colour,
                                       mono=True, t=t))
            if i in zero and not few:
                greyed.append(products[-1])
        total = self.bound("= {x}", SIZE, INK, mono=True, x=f"{s}.delta[{last}][0]")
        if few:
            factors_flow, products_flow = flow(factors, width), flow([*products, total], width)
            equation = VGroup(factors_flow, products_flow).arrange(DOWN, buff=0.22,
                                                                   aligned_edge=LEFT)
        else:
            equation = flow([name, *products, total], width)
            factors_flow, products_flow = VGroup(name), VGroup(*products, total)
        equation.factors, equation.products = factors_flow, products_flow
        equation.greyed, equation.total = greyed, total
        return equation


    def residual_layout(self, c: int) -> tuple[VGroup, VGroup]:
        """On its own in the middle, the receiver's input row e, update Δe and their sum
        e′ under the feature names, coordinate ``c`` among them (``picked``: its name and
        three numbers; ``kept`` and ``summed``: its input and its sum; ``input_row``,
        ``update_row``, ``result``); ``beside``: the same table smaller on the left, its
        sum level with the receiver's row of E′ for every token on the right, which is
        the second group (``matrix``, ``last_row``, ``shape``), the receiver's row bright
        and the others muted."""
        s, last = self.s, self.last
        columns = with_index(shown_indices(self.ws.d_model), c)
        rows = [("input row e", "E"), ("update Δe", "delta"), ("e′ = e + Δe", "E_prime")]
        cells: list[Mobject] = [VGroup()]
        # names as large as the rows' own, so that the table stays legible beside E′
        cells += [feature(self, k, 20) if k is not None else VGroup() for k in columns]
        for text, key in rows:
            cells.append(self.label(text, 20, MUTED))
            cells += [self.num(f"{s}.{key}[{last}][{k}]", 22) if k is not None
                      else self.label("…", 22) for k in columns]
        grid = VGroup(*cells).arrange_in_grid(rows=len(rows) + 1, cols=len(columns) + 1,
                                              buff=(0.35, 0.35), cell_alignment=RIGHT)
        width = len(columns) + 1
        names = [name for name in cells[1:width] if len(name)]
        for name in names:  # the names on one line, whatever their descenders
            name.shift(UP * (baseline(names[0]) - baseline(name)))
        numbers = VGroup(*cells[2 * width + 1:3 * width])
        rule = separator(numbers.width + 0.3).next_to(numbers, DOWN, buff=0.17)
        table = VGroup(grid, rule)
        place = columns.index(c) + 1
        table.picked = VGroup(*(cells[r * width + place] for r in range(len(rows) + 1)))
        table.kept, table.summed = cells[width + place], cells[3 * width + place]
        table.input_row = VGroup(*cells[width:2 * width])
        table.update_row = VGroup(*cells[2 * width:3 * width])
        table.result = VGroup(*cells[3 * width:4 * width])
        fit(table, FRAME_WIDTH, TOP - BOTTOM)
        table.move_to([0, (TOP + BOTTOM) / 2, 0])

        every = self.every_row(columns)
        beside = table.copy()
        beside.scale(min(1.0, (FRAME_WIDTH - every.width - 0.6) / beside.width))
        both = VGroup(beside, every).arrange(RIGHT, buff=0.6)
        # the receiver's sum level with its row of E′
        beside.shift(UP * (every.last_row.get_y() - beside[0][-1].get_y()))
        fit(both, FRAME_WIDTH, TOP - BOTTOM)
        both.move_to([0, (TOP + BOTTOM) / 2, 0])
        table.beside = beside
        return table, every

    def every_row(self, columns: Sequence[int | None]) -> VGroup:
        """E′ for every token, a row per token under the feature names (``columns``), the
        receiver's row bright and the others muted (negatives keep their colour); its shape
        under it. Attributes ``matrix`` (``body``, ``row_labels``), ``last_row``, ``shape``."""
        s, last = self.s, self.last
        tokens = self.ws.sentences[s]
        size = 20
        cells = []
        for j in range(len(tokens)):
            for k in columns:
                cell = self.label("…", size) if k is None else \
                    self.num(f"{s}.E_prime[{j}][{k}]", size)
                if j != last and not negative(cell):
                    cell.set_color(MUTED)
                cells.append(cell)
        # a long sentence's rows closer, so that its figures keep their size
        body = VGroup(*cells).arrange_in_grid(rows=len(tokens), cols=len(columns),
                                              buff=(0.3, 0.15 if len(tokens) > 10 else 0.19),
                                              cell_alignment=RIGHT)
        sides = brackets(body)
        labels = VGroup()
        for j, token in enumerate(tokens):
            label = self.word(token, SMALL + 1, INK if j == last else MUTED)
            label.next_to(sides, LEFT, buff=0.2).set_y(cells[j * len(columns)].get_y())
            labels.add(label)
        names = VGroup(*(feature(self, k, 18).next_to(cells[place], UP, buff=0.28)
                         for place, k in enumerate(columns) if k is not None))
        for name in names:  # the names on one line, whatever their descenders
            name.shift(UP * (baseline(names[0]) - baseline(name)))
        matrix = VGroup(body, sides, labels, names)
        matrix.body, matrix.row_labels = body, labels
        shape = self.bound("E′ has shape {shape}", 22, MUTED, shape="shapes.E_prime")
        shape.next_to(matrix, DOWN, buff=0.3).match_x(body)
        every = VGroup(matrix, shape)
        every.matrix, every.shape = matrix, shape
        every.last_row = VGroup(labels[last], *cells[last * len(columns):(last + 1) * len(columns)])
        return every


TOP_WORDS = 5
"""How many of the most probable words the prediction lists."""
BAR = 3.0
"""Length of a probability bar for probability one."""
LONG_ROW = 12
"""Longer hidden rows show their first entries, "…", and their last."""
HEAD_SIZE = 17
"""Size of the head labels over the other context's weight columns."""
PANEL = 20
"""Size of the words and numbers beside the bars of the two softmaxes."""
NAME = LEAST_FIGURE_SIZE
"""Size of the names beside the prediction's rows, some of which hold a count: at the
hall's least size, for the picture is laid out to need no shrinking."""
RELU_ARROW = 0.45
"""Length of the arrow from the pre-activations to the hidden row."""
BAR_PITCH = 0.36
"""Distance between the rows of the two softmaxes' bars."""
LEAST_BAR_PITCH = 0.3
"""The closest those rows come, for a long sentence, before the picture shrinks instead."""


def row_indices(length: int, keep: int = 0) -> list[int | None]:
    """Entries a hidden row shows: all of them, or for a long row its first ones, ``None``
    for the elided middle, and its last; entry ``keep`` always among them."""
    if length <= LONG_ROW:
        return list(range(length))
    return with_index([*range(LONG_ROW - 2), None, length - 1], keep)


class PredictionMLP(LectureScene):
    """The receiver's updated row through the prediction MLP to vocabulary probabilities:
    W_hidden as a matrix and one pre-activation worked out from its column, the path from
    E′ (traced back to the input and the heads) to the predicted word's logit, all of that
    logit accounted for, and the two softmaxes side by side."""

    def construct(self) -> None:
        self.s, self.last = self.ws.walkthrough, self.ws.length - 1
        self.predicted = int(self.v.value(f"{self.s}.prediction"))
        self.unit = int(self.v.value(f"{self.s}.top_hidden"))
        self.source = int(self.v.value(f"{self.s}.top_input"))
        self.section("updated row")
        heading = self.title("From the updated row to the next word")
        self.updated_row(heading)
        self.section("hidden layer")
        self.hidden_layer()
        self.section("logits")
        self.logits()
        self.section("probabilities")
        self.probabilities()
        self.section("path to the word")
        self.path_to_the_word()
        self.section("two choices")
        self.two_choices()

    def updated_row(self, heading: Mobject) -> None:
        self.build_pipeline()
        template = "Only the receiver's row of E′ feeds the prediction: {n} numbers with " \
                   "context from every head."
        self.say(template, cued(template, [("{n}", self.point_at(self.row.body,
                                                                self.row.brackets))],
                                opening=[Write(heading), fade_in(self.updated)]),
                 n="dims.d_model")

    def hidden_layer(self) -> None:
        pre, weights, worked = self.pre, self.weights, self.worked
        template = "W_hidden, {d} rows by {n} columns, and the bias b_hidden map these {d} " \
                   "numbers to {n}."
        self.say(template, cued(template, [
            ("W_hidden", self.point_at(weights.matrix)),
            ("b_hidden", self.point_at(weights.bias)),
            ("to {n}", AnimationGroup(fade_in(pre), self.point_at(pre.row)))],
            opening=[fade_in(weights)]), d="dims.d_model", n="dims.hidden")
        template = "Each is a pre-activation: E′ times one column of W_hidden, plus that " \
                   "column's bias."
        self.say(template, cued(template, [
            ("pre-activation", self.point_at(pre.name)),
            ("one column", self.point_at(self.row.body, weights.column, each=True)),
            ("plus that", self.point_at(weights.column, weights.column_bias, each=True))]))
        entry = [pre.row.cells[pre.row.shown.index(self.unit)]]
        template = "Here the products and the bias add up to {x}, this column's entry."
        self.say(template, cued(template, [
            ("products", AnimationGroup(fade_in(worked), self.point_at(worked.factors))),
            ("{x}", self.point_at(worked.total, *entry, each=True))]),
            x=f"{self.s}.hidden_pre[{self.unit}]")
        template = "ReLU keeps the positive ones and sets the negative ones to zero."
        values = self.v.value(f"{self.s}.hidden_pre")
        self.marks = VGroup(*(self.highlight(row.cells[place], INK)
                              for row in (pre.row, self.hidden.row)
                              for place, i in enumerate(row.shown)
                              if i is not None and values[i] <= 0))
        half = len(self.marks) // 2
        # the worked sum gives way to ReLU and the hidden row under the pre-activations
        cues = [("ReLU", AnimationGroup(fade_in(self.relu, self.hidden)))]
        if half:
            cues += [("negative", Create(self.marks[:half])),
                     ("zero", Create(self.marks[half:]))]
        self.say(template, cued(template, cues, opening=[
            *optional(self.unpoint()), fade_out(worked)]))

    def logits(self) -> None:
        pointer = self.unpoint()
        with self.silence("the hidden row moves up to make room for the logits"):
            self.play(*map(fade_out, [self.updated, self.weights, self.pre, self.relu,
                                      self.marks]), *optional(pointer))
            self.play(Transform(self.hidden, self.raised))
        template = "W_vocab and b_vocab give one logit per vocabulary word, {v} in all."
        table = self.table
        self.say(template, cued(template, [
            ("logit", fade_in(table.words, table.logits, table.others)),
            ("{v}", AnimationGroup(fade_in(table.count), self.point_at(table.count)))],
            opening=[fade_in(self.readout.stem, self.readout[1][0])]), v="dims.vocab")
        template = "A logit is a raw score, larger for a likelier word; the largest come first."
        self.say(template, cued(template, [("raw score", self.point_at(table.logits))]))

    def probabilities(self) -> None:
        table = self.table
        template = "Softmax over the whole vocabulary turns logits into probabilities; each " \
                   "bar is as long as its probability."
        self.say(template, cued(template, [  # the bars before the pointer round them
            ("Softmax", fade_in(table.probs)),
            ("probabilities", self.point_at(table.probs)),
            ("bar", AnimationGroup(*map(Create, table.bars),
                                   self.point_at(table.probs, table.bars)))]))
        total = f"{self.s}.probs_sum"
        if len(table.rest):
            template = "The other words share the rest, {r}; all {v} probabilities add up " \
                       "to {one}."
            self.say(template, cued(template, [
                ("{r}", AnimationGroup(fade_in(table.rest), self.point_at(table.rest_row))),
                ("{one}", AnimationGroup(fade_in(table.total), self.point_at(table.total)))]),
                r=f"{self.s}.probs_rest[{table.shown}]", v="dims.vocab", one=total)
        else:
            template = "The probabilities of all {v} words add up to {one}."
            self.say(template, cued(template, [("{one}", AnimationGroup(
                fade_in(table.total), self.point_at(table.total)))]), v="dims.vocab", one=total)
        template = "“{w}” gets {x}: the predicted word."
        place = table.place
        self.say(template, cued(template, [("{w}", self.point_at(table.word_cells[place])),
                                           ("{x}", self.point_at(table.prob_cells[place],
                                                                 table.bars[place])),
                                           ("predicted", AnimationGroup(
                                               fade_in(table.predicted), self.point_at(
                                                   table.prob_cells[place], table.bars[place],
                                                   table.predicted)))]),
                 words={"w": self.ws.vocab[self.predicted]},
                 x=f"{self.s}.probs[{self.predicted}]")

    def path_to_the_word(self) -> None:
        """The payoff: the coordinate of E′ the path starts from, traced back to the input
        and the heads' update; through one hidden number to the predicted word's logit,
        and what the rest of that logit is."""
        s, last, k, c, p = self.s, self.last, self.unit, self.source, self.predicted
        path, trace, receipt = self.path, self.path.trace, self.path.receipt
        pointer = self.unpoint()
        with self.silence("the word table gives way to the path from the updated row"):
            self.play(self.gone(self.raised, self.hidden, self.readout, self.table),
                      *optional(pointer), run_time=0.8)
        at = f"[{last}][{c}]"
        template = "Why “{w}”? E′'s {f} coordinate is input {e} plus update " + \
            signed_slot(self, "d", f"{s}.delta{at}", False) + "."
        self.say(template, cued(template, [
            ("{f}", self.point_at(path.steps[0])),
            ("input", AnimationGroup(fade_in(trace.sum), self.point_at(trace.sum)))],
            opening=[fade_in(path.steps[0])]),
            words={"w": self.ws.vocab[p], "f": self.ws.lesson.features[c]},
            e=f"{s}.E{at}", d=f"{s}.delta{at}")
        if trace.parts:
            template = "The update is " + " plus ".join(part.template for part in trace.parts) \
                + "."
            keys = {slot: key for part in trace.parts for slot, key in part.keys.items()}
            cues = [("update", AnimationGroup(fade_in(trace.heads),
                                              self.point_at(trace.heads)))]
            if len(trace.shares):
                last_slot = "{" + list(trace.parts[-1].keys)[-1] + "}"
                cues.append((last_slot, AnimationGroup(fade_in(trace.shares), self.point_at(
                    trace.heads, trace.shares))))
            self.say(template, cued(template, cues), **keys)
        template = "It feeds the hidden number {h}; times W_vocab's entry " + \
            signed_slot(self, "u", f"params.W_vocab[{k}][{p}]", False) + \
            ", that adds {t} to the logit."
        self.say(template, cued(template, [
            ("{h}", AnimationGroup(fade_in(path.arrows[0], path.steps[1]),
                                   self.point_at(path.steps[1]))),
            ("W_vocab", AnimationGroup(fade_in(path.arrows[1], path.steps[2]),
                                       self.point_at(path.arrows[1]))),
            ("adds", AnimationGroup(fade_in(receipt.rows[0]),
                                    self.point_at(path.steps[2], receipt.rows[0], each=True)))]),
            h=f"{s}.hidden[{k}]", u=f"params.W_vocab[{k}][{p}]",
            t=f"{s}.logit_terms[{k}][{p}]")
        template = "The other hidden numbers add {o} and the bias {b}, for a logit of {l}."
        self.say(template, cued(template, [
            ("other", AnimationGroup(fade_in(receipt.rows[1]), self.point_at(receipt.rows[1]))),
            ("bias", AnimationGroup(fade_in(receipt.rows[2]), self.point_at(receipt.rows[2]))),
            ("{l}", AnimationGroup(fade_in(receipt.rule, receipt.rows[3]),
                                   self.point_at(receipt.rows[3])))]),
            o=f"{s}.logit_others",
            b=f"params.b_vocab[{p}]", l=f"{s}.logits[{last}][{p}]")

    def two_choices(self) -> None:
        pointer = self.unpoint()
        attention, vocabulary = self.softmaxes
        with self.silence("the path gives way to the two softmaxes"):
            self.play(self.gone(self.path), *optional(pointer), run_time=0.8)
        template = "Two softmaxes, two jobs: attention weights choose which source positions " \
                   "a head reads, and vocabulary probabilities choose which word comes next."
        self.say(template, cued(template, [
            ("attention", AnimationGroup(fade_in(attention), self.point_at(attention.bars))),
            ("vocabulary", AnimationGroup(fade_in(vocabulary),
                                          self.point_at(vocabulary.bars)))]))
        self.wait(0.5)

    # ------------------------------------------------------------------ layout

    def build_pipeline(self) -> None:
        """E′'s last row; W_hidden under it, a row per coordinate of E′ named by its feature,
        its columns over the pre-activations they make, and b_hidden under W_hidden; the
        pre-activations, then under them that pre-activation worked out, which gives way
        to ReLU and the hidden row; one under another with their names on the left. Then,
        for the logits, the hidden row raised to the top (``raised``), the readout arrow
        and the table of the most probable words; the path from E′ to the predicted word
        (``path``) and the two softmaxes (``softmaxes``)."""
        s, last = self.s, self.last
        columns = shown_indices(self.ws.d_model)
        names = [feature(self, c, SMALL) for c in columns]
        self.row = self.matrix(f"{s}.E_prime", rows=[last], size=SIZE, h_buff=0.35,
                               col_labels=names)
        for c, name in zip(columns, names, strict=True):
            if c is None:  # "…" stands low in its line: level it with the feature names
                name.set_y(names[0].get_y())
        self.updated = self.stage(self.row, self.bound("E′, last row: {n} numbers", NAME,
                                                       MUTED, n="dims.d_model"))
        self.pre = self.stage(self.row_vector(f"{s}.hidden_pre"),
                              self.bound("{n} pre-activations", NAME, MUTED, n="dims.hidden"))
        self.worked = self.pre_activation()
        self.relu = self.arrow(self.label("ReLU: negatives become zero", SMALL, MUTED),
                               RELU_ARROW)
        self.hidden = self.stage(self.row_vector(f"{s}.hidden"),
                                 self.label("hidden", NAME, MUTED))
        values = self.v.value(f"{s}.hidden")
        for place, i in enumerate(self.hidden.row.shown):
            if i is not None and values[i] <= 0:  # what ReLU zeroed
                self.hidden.row.cells[place].set_color(MUTED)
        stacked = self.stack([self.updated, self.pre])
        self.weights = self.hidden_weights(columns)
        # W_hidden between E′ and the pre-activations
        self.pre.shift(DOWN * (self.weights.height + 0.2))
        self.weights.next_to(self.updated, DOWN, buff=0.15)
        self.weights.shift(RIGHT * (self.pre.row.cells[0].get_x()
                                    - self.weights.cells[0][0].get_x()))
        # ReLU and the hidden row under the pre-activations
        for part, above in ((self.relu, self.pre), (self.hidden, self.relu)):
            part.shift(RIGHT * (self.pre.row.get_left()[0] - part.row.get_left()[0])
                       if hasattr(part, "row") else
                       RIGHT * (self.pre.row.get_left()[0] + 0.5 - part.stem.get_x()))
            part.shift(UP * (above.get_bottom()[1] - 0.15 - part.get_top()[1]))
        self.stages = VGroup(*stacked, self.weights, self.relu, self.hidden)
        fit(self.stages, FRAME_WIDTH)
        # the worked sum stands where ReLU and the hidden row come in after it, as wide as
        # the frame: it is not one of the stages, whose names line up on the left
        fit(self.worked, FRAME_WIDTH).next_to(self.pre, DOWN, buff=0.15)
        page = VGroup(self.stages, self.worked)
        fit(page, None, TOP - BOTTOM)
        page.move_to([0, (TOP + BOTTOM) / 2, 0])
        self.stages.set_x(0)
        # from the names' left edge, as far left as the frame needs
        self.worked.align_to(self.stages, LEFT)
        self.worked.shift(LEFT * max(0.0, self.worked.get_right()[0] - FRAME_WIDTH / 2))

        raised = self.hidden.copy()
        self.table = self.top_words()
        self.readout = self.arrow(VGroup(
            self.bound("× W_vocab ({n} × {v}) + b_vocab", NAME, MUTED, n="dims.hidden",
                       v="dims.vocab"), self.table.count).arrange(DOWN, buff=0.12,
                                                                  aligned_edge=LEFT))
        after = self.stack([raised, self.readout, self.table])
        fit(after, FRAME_WIDTH, TOP - BOTTOM)
        after.move_to([0, (TOP + BOTTOM) / 2, 0]).align_to([0, TOP, 0], UP)
        self.table.set_x(0)
        self.raised = raised
        self.path = self.word_path()
        self.softmaxes = self.two_softmaxes()

    def hidden_weights(self, rows: Sequence[int | None]) -> VGroup:
        """W_hidden as a matrix, a row for each coordinate of E′ (``rows``, named by its
        feature) and a column over each pre-activation shown; b_hidden as a row under it.
        Attributes ``matrix``, ``cells`` (its numbers, by row), ``bias``, ``names`` (the
        names on the left), ``column`` and ``column_bias`` (the column and bias of the hidden number
        the path follows)."""
        k, shown = self.unit, self.pre.row.shown
        xs = [cell.get_x() for cell in self.pre.row.cells]

        def entry(key: str | None) -> Mobject:
            return self.label("…", SIZE) if key is None else self.num(key, SIZE)

        cells = [[entry(None if c is None or i is None else f"params.W_hidden[{c}][{i}]")
                  for i in shown] for c in rows]
        pitch = 0.42
        for r, line in enumerate(cells):
            for x, cell in zip(xs, line, strict=True):
                cell.move_to([x, -r * pitch, 0])
        body = VGroup(*(cell for line in cells for cell in line))
        matrix = VGroup(body, brackets(body))
        bias_cells = [entry(None if i is None else f"params.b_hidden[{i}]") for i in shown]
        for x, cell in zip(xs, bias_cells, strict=True):
            cell.move_to([x, -len(rows) * pitch - 0.2, 0])
        bias_body = VGroup(*bias_cells)
        bias = VGroup(bias_body, brackets(bias_body))
        edge = min(matrix[1].get_left()[0], bias[1].get_left()[0]) - 0.2
        features = VGroup(*(feature(self, c, SMALL).move_to(
            [edge, line[0].get_y(), 0], aligned_edge=RIGHT) for c, line in zip(rows, cells,
                                                                               strict=True)))
        bias_name = self.label("b_hidden", NAME, MUTED).move_to(
            [edge, bias_body.get_y(), 0], aligned_edge=RIGHT)
        name = self.label("W_hidden", NAME, MUTED)
        name.next_to(features, LEFT, buff=0.3).set_y(body.get_y())
        place = shown.index(k)
        weights = VGroup(name, features, matrix, bias_name, bias)
        weights.matrix, weights.bias = VGroup(matrix, features), VGroup(bias_name, bias)
        weights.cells = cells
        weights.names = VGroup(name, features, bias_name)
        weights.column = VGroup(*(line[place] for line in cells))
        weights.column_bias = bias_cells[place]
        return weights

    def pre_activation(self) -> VGroup:
        """That hidden number worked out: each coordinate of E′ times its entry of the
        column (a zero entry greyed), plus the bias; then the products that are left, the
        bias and their total. Attributes ``factors`` and ``total``."""
        s, last, k = self.s, self.last, self.unit
        terms = range(self.ws.d_model)
        zero = {c for c in terms if self.v.value(f"params.W_hidden[{c}][{k}]") == 0}
        factors: list[Mobject] = []
        for place, c in enumerate(terms):
            a, b = f"{s}.E_prime[{last}][{c}]", f"params.W_hidden[{c}][{k}]"
            factors.append(self.bound(("+ " if place else "") + signed_slot(self, "a", a, place > 0)
                                      + " × " + signed_slot(self, "b", b), SIZE,
                                      MUTED if c in zero else INK, mono=True, a=a, b=b))
        bias = f"params.b_hidden[{k}]"
        factors.append(self.bound("+ " + signed_slot(self, "b", bias), SIZE, INK, mono=True,
                                  b=bias))
        products = [self.bound(("= " if place == 0 else "+ ") +
                               signed_slot(self, "t", f"{s}.hidden_terms[{c}][{k}]", place > 0),
                               SIZE, INK, mono=True, t=f"{s}.hidden_terms[{c}][{k}]")
                    for place, c in enumerate([c for c in terms if c not in zero] or [0])]
        products.append(self.bound("+ " + signed_slot(self, "b", bias), SIZE, INK, mono=True,
                                   b=bias))
        total = self.bound("= {x}", SIZE, INK, mono=True, x=f"{s}.hidden_pre[{k}]")
        width = FRAME_WIDTH  # lines close together: the sum stands under the rows at full size
        first = flow(factors, width, line_buff=0.14)
        second = flow([*products, total], width, line_buff=0.14)
        worked = VGroup(first, second).arrange(DOWN, buff=0.16, aligned_edge=LEFT)
        worked.factors, worked.total = first, total
        return worked

    def word_path(self) -> VGroup:
        """A page of its own: at the top, E′'s coordinate → the hidden number → what it adds
        to the predicted word's logit, each step a name over its number, the arrows
        between them named by what they do (``steps``, ``arrows``); under its start, that
        coordinate traced back (``trace``: :meth:`update_trace`); under its end, the whole
        logit as a sum (``receipt``: :meth:`logit_receipt`)."""
        s, last, k, c, p = self.s, self.last, self.unit, self.source, self.predicted
        word = {"w": self.ws.vocab[p]}

        def step(name: Mobject, number: Mobject) -> VGroup:
            return VGroup(name, number).arrange(DOWN, buff=0.14)

        steps = [step(feature(self, c, SMALL, "E′, {f}"),
                      self.num(f"{s}.E_prime[{last}][{c}]", SIZE)),
                 step(self.label("hidden number", SMALL, MUTED),
                      self.num(f"{s}.hidden[{k}]", SIZE)),
                 step(VGroup(self.label("added to the logit", SMALL, MUTED),
                             self.bound("of “{w}”", SMALL, MUTED, words=word)).arrange(
                                 DOWN, buff=0.08),
                      self.num(f"{s}.logit_terms[{k}][{p}]", SIZE))]
        u = f"params.W_vocab[{k}][{p}]"
        labels = [(self.label("W_hidden, bias, ReLU", SMALL, MUTED), None),
                  (self.bound("× " + signed_slot(self, "u", u, False), SIZE, INK, u=u),
                   self.label("an entry of W_vocab", SMALL, MUTED))]
        arrows = []
        for label, under in labels:
            length = max(1.6, label.width + 0.3, 0 if under is None else under.width + 0.3)
            stem = Arrow(LEFT * length / 2, RIGHT * length / 2, buff=0, stroke_width=3,
                         color=MUTED, max_tip_length_to_length_ratio=0.15)
            arrow = VGroup(label.next_to(stem, UP, buff=0.1), stem)
            if under is not None:
                arrow.add(under.next_to(stem, DOWN, buff=0.1))
            arrows.append(arrow)
        parts = [steps[0], arrows[0], steps[1], arrows[1], steps[2]]
        VGroup(*parts).arrange(RIGHT, buff=0.3, aligned_edge=DOWN)  # the numbers on a line
        for arrow, before in zip(arrows, steps, strict=False):  # level with the numbers
            arrow.shift(UP * (before[1].get_y() - arrow[1].get_y()))
        line = VGroup(*parts)
        trace, receipt = self.update_trace(), self.logit_receipt()
        trace.next_to(line, DOWN, buff=0.5).align_to(line, LEFT)
        receipt.next_to(line, DOWN, buff=0.5).align_to(line, RIGHT)
        if trace.get_right()[0] > receipt.get_left()[0] - 0.6:  # no room side by side
            receipt.next_to(trace, DOWN, buff=0.4).align_to(line, RIGHT)
        path = VGroup(line, trace, receipt)
        path.scale(min(GROW, FRAME_WIDTH / path.width, (TOP - BOTTOM) / path.height))
        path.move_to([0, (TOP + BOTTOM) / 2, 0])
        path.steps, path.arrows, path.trace, path.receipt = steps, arrows, trace, receipt
        return path

    def update_trace(self) -> VGroup:
        """E′'s coordinate as input plus update (``sum``); the update as what each head
        sent into it (``heads``): its message coordinate, times its W_O entry unless that
        is one, or its share when several of its coordinates feed in; then, when a product
        is shown, the heads' shares (``shares``). ``parts``: per head sending anything, the
        caption fragment (``template``) and its ``keys``."""
        s, last, c = self.s, self.last, self.source
        at = f"[{last}][{c}]"
        line = self.bound("{p} = input {e} + update " + signed_slot(self, "d", f"{s}.delta{at}"),
                          SIZE, INK, mono=True, p=f"{s}.E_prime{at}", e=f"{s}.E{at}",
                          d=f"{s}.delta{at}")
        W_O = self.v.value("params.W_O")
        parts, heads, shares = [], [self.bound("update {d} =", SIZE, INK, mono=True,
                                               d=f"{s}.delta{at}")], []
        product = False
        for h in range(1, self.ws.n_heads + 1):
            rows = [i for i in range((h - 1) * self.ws.d_head, h * self.ws.d_head)
                    if W_O[i][c] != 0]
            if not rows:
                continue
            keys = {f"h{h}": f"dims.head_numbers[{h - 1}]"}
            if len(rows) > 1:
                fragment = "head {h#}'s share {x#}"
                keys[f"x{h}"] = f"{s}.h{h}.share{at}"
            elif W_O[rows[0]][c] == 1:
                fragment = "head {h#}'s {m#}"
                keys[f"m{h}"] = f"{s}.joined[{last}][{rows[0]}]"
            else:
                fragment = signed_slot(self, f"w{h}", f"params.W_O[{rows[0]}][{c}]") + \
                    " × head {h#}'s {m#}"
                keys = {f"w{h}": f"params.W_O[{rows[0]}][{c}]", **keys,
                        f"m{h}": f"{s}.joined[{last}][{rows[0]}]"}
                product = True
            fragment = fragment.replace("#", str(h))
            part = VGroup()
            part.template, part.keys = fragment, keys
            parts.append(part)
            colour = self.head_colour(h)
            heads.append(self.bound(("+ " if len(parts) > 1 else "") + fragment, SIZE, colour,
                                    mono=True, **keys))
            share = f"{s}.h{h}.share{at}"
            shares.append(self.bound(("+ " if len(parts) > 1 else "= ") +
                                     signed_slot(self, "x", share, len(parts) > 1), SIZE,
                                     colour, mono=True, x=share))
        if len(parts) == 1 and not product and self.ws.n_heads == 1:
            parts, heads = [], heads[:1]  # one head's share is the update itself
        width = FRAME_WIDTH - 1.0
        made = flow(heads, width) if parts else VGroup()
        summed = flow(shares, width) if product else VGroup()
        if product:  # the shares under the products, from under the first one
            summed.next_to(made, DOWN, buff=0.2).align_to(heads[1], LEFT)
        trace = VGroup(line, VGroup(made, summed)).arrange(DOWN, buff=0.3, aligned_edge=LEFT) \
            if parts else VGroup(line)
        trace.sum, trace.heads, trace.shares, trace.parts = line, made, summed, parts
        return trace

    def logit_receipt(self) -> VGroup:
        """The predicted word's logit as an addition, numbers right-aligned in a column,
        each with what it is: what the path adds, what the other hidden numbers add, the
        bias, and under a rule their total (``rows``, ``rule``)."""
        s, last, k, p = self.s, self.last, self.unit, self.predicted
        word = {"w": self.ws.vocab[p]}
        lines = [(f"{s}.logit_terms[{k}][{p}]", self.label("along this path", SMALL, MUTED)),
                 (f"{s}.logit_others", self.label("from the other hidden numbers", SMALL,
                                                  MUTED)),
                 (f"params.b_vocab[{p}]", self.bound("the bias of “{w}”", SMALL, MUTED,
                                                     words=word)),
                 (f"{s}.logits[{last}][{p}]", self.bound("the logit of “{w}”", SMALL, INK,
                                                         words=word))]
        pitch, rows = 0.46, []
        for place, (key, what) in enumerate(lines):
            y = -place * pitch - (0.14 if place == len(lines) - 1 else 0)
            number = self.bound(signed_slot(self, "x", key, 0 < place < len(lines) - 1),
                                SIZE, INK, mono=True, x=key).move_to([0, y, 0],
                                                                     aligned_edge=RIGHT)
            rows.append(VGroup(number, what.move_to([0.35, y, 0], aligned_edge=LEFT)))
            if place:
                rows[-1].add(self.label("=" if place == len(lines) - 1 else "+", SIZE, INK))
        numbers = VGroup(*(row[0] for row in rows))
        for row in rows[1:]:
            row[2].move_to([numbers.get_left()[0] - 0.3, row[0].get_y(), 0])
        rule = separator(VGroup(*rows).width + 0.2).move_to(
            [VGroup(*rows).get_x(), (rows[-2].get_y() + rows[-1].get_y()) / 2, 0])
        receipt = VGroup(*rows, rule)
        receipt.rows, receipt.rule = rows, rule
        return receipt

    def two_softmaxes(self) -> VGroup:
        """Side by side: head 1's attention weights at the receiver, one bar per source,
        and the vocabulary probabilities of the most probable words, one bar per word; each
        with its total."""
        s, last = self.s, self.last
        tokens = self.ws.sentences[s]
        colour = self.head_colour(1)
        weights = [self.weight_bar(f"{s}.h1.weights[{j}]", colour, PANEL, 0.22)
                   for j in range(len(tokens))]
        heading = [self.label("attention weights", 24, INK),
                   self.label("which sources a head reads", PANEL, INK),
                   self.bound("Head {h} at the receiver, the final “{w}”", PANEL, colour,
                              h="dims.head_numbers[0]", words={"w": tokens[last]})]
        sources = [self.word(t, PANEL) for t in tokens]
        every = (self.label("all sources", PANEL, INK), self.num(f"{s}.h1.weights_sum", PANEL))
        ranked = self.v.value(f"{s}.ranked")
        shown = min(TOP_WORDS, len(ranked))
        names = [self.word(self.ws.vocab[i], PANEL) for i in ranked[:shown]]
        bars = [self.weight_bar(f"{s}.probs[{i}]", MUTED, PANEL, 0.22, text_colour=INK)
                for i in ranked[:shown]]
        if shown < len(ranked):
            names.append(self.label("the other words", PANEL, MUTED))
            bars.append(self.weight_bar(f"{s}.probs_rest[{shown}]", MUTED, PANEL, 0.22,
                                        text_colour=INK))
        words = [self.label("vocabulary probabilities", 24, INK),
                 self.label("which word comes next", PANEL, INK),
                 self.bound("over the {v} vocabulary words", PANEL, MUTED, v="dims.vocab")]
        all_words = (self.bound("all {v} words", PANEL, INK, v="dims.vocab"),
                     self.num(f"{s}.probs_sum", PANEL))

        def side_by_side(pitch: float) -> VGroup:
            attention = self.bar_panel(heading, sources, weights, *every, pitch)
            vocabulary = self.bar_panel(words, names, bars, *all_words, pitch)
            return VGroup(attention, vocabulary).arrange(RIGHT, buff=0.9, aligned_edge=UP)

        both = side_by_side(BAR_PITCH)
        over = both.height - (TOP - BOTTOM)
        if over > 0:  # a long sentence: its rows closer together rather than smaller
            both = side_by_side(max(LEAST_BAR_PITCH, BAR_PITCH - (over + 0.02) / max(
                len(sources), len(names))))
        fit(both, FRAME_WIDTH, TOP - BOTTOM)
        both.move_to([0, (TOP + BOTTOM) / 2, 0])
        return both

    def bar_panel(self, heading: Sequence[Mobject], names: Sequence[Mobject],
                  bars: Sequence[Mobject], every: Mobject, total: Mobject,
                  pitch: float) -> VGroup:
        """Heading lines over rows ``pitch`` apart of a name (right-aligned) and its bar, a
        rule, and the total. Attributes ``bars`` and ``total``."""
        rows = VGroup()
        for j, (name, bar) in enumerate(zip(names, bars, strict=True)):
            name.move_to([0, -j * pitch, 0], aligned_edge=RIGHT)
            bar.move_to([0.2, -j * pitch, 0], aligned_edge=LEFT)
            rows.add(VGroup(name, bar))
        y = -len(names) * pitch - 0.12
        every.move_to([0, y, 0], aligned_edge=RIGHT)
        total.move_to([0.2, y, 0], aligned_edge=LEFT)
        rule = separator(rows.width + 0.2).move_to([rows.get_x(),
                                                    (y - (len(names) - 1) * pitch) / 2, 0])
        sum_row = VGroup(rule, every, total)
        head = VGroup(*heading).arrange(DOWN, buff=0.12)
        head.next_to(VGroup(rows, sum_row), UP, buff=0.3)
        panel = VGroup(head, rows, sum_row)
        panel.bars = VGroup(*(bar for bar in bars))
        panel.total = VGroup(every, total)
        return panel

    def stack(self, parts: Sequence[Mobject]) -> VGroup:
        """Parts one under another: a stage's row starting at one line, its name right-aligned
        before it; an arrow's stem under the rows' first entries; the words of a table
        right-aligned under the names."""
        stages = [part for part in parts if hasattr(part, "row")]
        line = 0.0
        for part in stages:
            part.shift(RIGHT * (line - part.row.get_left()[0]))
        names = max(part.name.get_right()[0] for part in stages)
        y = 0.0
        for part in parts:
            if hasattr(part, "stem"):
                part.shift(RIGHT * (line + 0.5 - part.stem.get_x()))
            elif hasattr(part, "word_cells"):
                part.shift(RIGHT * (names - part.word_cells.get_right()[0]))
            part.shift(UP * (y - part.get_top()[1]))
            y = part.get_bottom()[1] - 0.2
        return VGroup(*parts)

    def stage(self, row: VGroup, name: Mobject) -> VGroup:
        """A row of numbers with its name on the left, level with its numbers."""
        name.next_to(row.brackets, LEFT, buff=0.3).set_y(row.body.get_y())
        stage = VGroup(row, name)
        stage.row, stage.name = row, name
        return stage

    def row_vector(self, key: str) -> VGroup:
        """A vector value as one bracketed row of numbers: ``cells`` in order, ``shown`` the
        index of each (``None`` for "…"), ``body`` and ``brackets``."""
        shown = row_indices(len(self.v.value(key)), self.unit)
        cells = [self.label("…", SIZE) if i is None else self.num(f"{key}[{i}]", SIZE)
                 for i in shown]
        body = VGroup(*cells).arrange(RIGHT, buff=0.3)
        row = VGroup(body, brackets(body))
        row.cells, row.shown, row.body, row.brackets = cells, shown, body, row[1]
        return row

    def arrow(self, label: Mobject, length: float = 0.7) -> VGroup:
        """A short downward arrow with its label on its right."""
        stem = Arrow(UP * length / 2, DOWN * length / 2, buff=0, stroke_width=3, color=MUTED,
                     max_tip_length_to_length_ratio=0.25)
        arrow = VGroup(stem, label.next_to(stem, RIGHT, buff=0.2))
        arrow.stem = stem
        return arrow

    def top_words(self) -> VGroup:
        """The most probable words: word, logit, probability and a bar of that length; the
        other words' share; and under a rule, all the words' total."""
        s, last = self.s, self.last
        ranked = self.v.value(f"{s}.ranked")
        probs = self.v.value(f"{s}.probs")
        shown = min(TOP_WORDS, len(ranked))
        pitch = 0.48

        def bar(value: float, y: float) -> Rectangle:
            return Rectangle(width=max(0.02, BAR * value), height=0.28, stroke_width=0,
                             fill_color=MUTED, fill_opacity=1.0).move_to([3.5, y, 0],
                                                                        aligned_edge=LEFT)

        def at(mob: Mobject, x: float, y: float) -> Mobject:
            return mob.move_to([x, y, 0], aligned_edge=RIGHT)

        headers = [self.label(t, SMALL, MUTED) for t in ("word", "logit", "probability")]
        words, logits, values, bars = VGroup(), VGroup(), VGroup(), VGroup()
        for place, i in enumerate(ranked[:shown]):
            y = -place * pitch
            words.add(at(self.word(self.ws.vocab[i], 22), 0, y))
            logits.add(at(self.num(f"{s}.logits[{last}][{i}]", SIZE), 1.7, y))
            values.add(at(self.num(f"{s}.probs[{i}]", SIZE), 3.2, y))
            bars.add(bar(probs[i], y))
        for header, column in zip(headers, (words, logits, values), strict=True):
            header.next_to(column, UP, buff=0.3).align_to(column, RIGHT)
        y = -shown * pitch
        others, rest = VGroup(), VGroup()
        if shown < len(ranked):
            others.add(at(self.label("the other words", 22, MUTED), 0, y),
                       at(self.label("…", SIZE, MUTED), 1.7, y))
            key = f"{s}.probs_rest[{shown}]"
            rest.add(at(self.num(key, SIZE), 3.2, y), bar(self.v.value(key), y))
            y -= pitch
        y -= 0.12  # room for the rule
        every = at(self.bound("all {v} words", 22, INK, v="dims.vocab"), 0, y)
        whole = bar(self.v.value(f"{s}.probs_sum"), y)
        left = min(every.get_left()[0], words.get_left()[0], *(m.get_left()[0] for m in others))
        rule = Line([left - 0.1, y + (pitch + 0.12) / 2, 0],
                    [whole.get_right()[0] + 0.1, y + (pitch + 0.12) / 2, 0],
                    stroke_color=MUTED, stroke_width=1.5)
        total = VGroup(rule, every, at(self.num(f"{s}.probs_sum", SIZE), 3.2, y), whole)
        p = self.v.value(f"{s}.prediction")
        place = list(ranked[:shown]).index(p) if p in ranked[:shown] else 0
        predicted = self.label("predicted", SMALL, INK).next_to(bars[place], RIGHT, buff=0.2)
        count = self.bound("{v} vocabulary words, one logit each", NAME, INK,
                           v="dims.vocab")
        total.add(self.label("(each value rounded)", SMALL, MUTED).next_to(whole, RIGHT,
                                                                          buff=0.2))
        table = VGroup(*headers, words, logits, values, bars, others, rest, total, predicted)
        table.place, table.predicted, table.count, table.shown = place, predicted, count, shown
        table.words = VGroup(words, headers[0])
        table.logits = VGroup(logits, headers[1])
        table.probs = VGroup(values, headers[2])
        table.word_cells, table.prob_cells, table.logit_cells = words, values, logits
        table.bars, table.others, table.rest, table.total = bars, others, rest, total
        table.rest_row = VGroup(others, rest)
        return table


TAG = 17
"""Size of the tags that say what an outlined word is."""
READING = LEAST_FIGURE_SIZE
"""Size of the readings' numbers and of the labels that name them: never scaled down."""
HEADING_GAP = 0.1
"""Room between a reading's heading row and the numbers under it."""
BARE_TOP = 3.7
"""Highest y for the readings when the title has made room for them."""


class OtherContext(LectureScene):
    """The same parameters on the other sentences: weights, the value rows they mix,
    messages, the update and the updated row, and the prediction change."""

    def construct(self) -> None:
        self.names = list(self.ws.sentences)
        self.last = self.ws.length - 1
        self.section("contexts")
        heading = self.heading = self.title("Same parameters, a different context")
        self.build()
        others = self.names[1:]
        self.say("The parameters stay exactly as they were; only the sentence changes.",
                 Write(heading), fade_in(self.columns[0].tokens))
        template = "Next to the {a} sentence we now read " + self.listing("b", others) + "."
        self.say(template, cued(template, [(f"{{b{i}}}", fade_in(c.tokens))
                                           for i, c in enumerate(self.columns[1:])]),
                 words={"a": self.names[0], **{f"b{i}": n for i, n in enumerate(others)}})
        for h in range(1, self.ws.n_heads + 1):
            if h == 1 or not self.apart:  # one head at a time: each its own picture
                self.section("weights" if h == 1 else f"head {h}'s weights")
            self.weights(h)
        self.section("values")
        self.value_rows()
        if self.ws.n_heads > 1:
            self.section("second head's values")
            self.second_head_values()
        self.section("messages")
        self.regroup()
        self.messages()
        self.section("updated rows")
        self.updated_rows()
        self.section("prediction")
        self.prediction()
        self.section("same word")
        self.same_word()

    def listing(self, slot: str, names: list[str]) -> str:
        """``the {b0} sentence and the {b1} sentence`` for any number of names."""
        parts = ["the {" + f"{slot}{i}" + "} sentence" for i in range(len(names))]
        return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]

    # ------------------------------------------------------------------ steps

    def weights(self, h: int) -> None:
        heads = [column.heads[h - 1] for column in self.columns]
        before = [] if self.apart or h == 1 else \
            [fade_out(column.heads[h - 2]) for column in self.columns]  # its place, now
        self.say("Head {h} weighs its sources anew in each context.",
                 *before, *map(fade_in, heads), self.point_at(*heads, each=True),
                 h=f"dims.head_numbers[{h - 1}]")
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
        self.say(template, cued(template, cues), words=words, **keys)

    def value_rows(self) -> None:
        """The second sentence's head 1 weights beside the value rows they mix (in the
        place of the other heads' weights)."""
        column = self.columns[1]
        template = "The new weights mix the value rows differently, so every head's message " \
                   "changes."
        if self.apart:
            changes = [fade_out(head) for head in column.heads[1:]]
        else:  # the value rows' room made, head 1's weights back in every sentence
            self.make_room()
            changes = [fade_in(each.heads[0]) for each in self.columns]
        opening = [*optional(self.unpoint()), *changes]
        self.say(template, cued(template, [
            ("weights", self.point_at(column.heads[0].cells)),
            ("value rows", AnimationGroup(fade_in(column.values), self.point_at(
                column.heads[0].cells, column.values.rows, each=True)))], opening=opening))

    def make_room(self) -> None:
        """The last head's weights go and the sentences move apart, leaving the second
        room for its value rows (what is not on screen moves with them at once)."""
        columns = self.columns
        with self.silence("the sentences make room for the value rows"):
            self.play(*optional(self.unpoint()), *(fade_out(c.heads[-1]) for c in columns),
                      *(c.tokens.animate.shift(RIGHT * room)
                        for c, room in zip(columns, self.room, strict=True)), run_time=0.8)
        for column, room in zip(columns, self.room, strict=True):
            for part in column.submobjects[1:]:
                part.shift(RIGHT * room)

    def second_head_values(self) -> None:
        """Head 2's weights and value rows in the place of head 1's, in the second
        sentence: each head mixes its own value rows."""
        column = self.columns[1]
        second = column.second
        template = "Head {h} does the same with its own weights and its own value rows" + \
            (", and so does every other head." if self.ws.n_heads > 2 else ".")
        others = [] if self.apart else \
            [change for each in self.columns if each is not column
             for change in (fade_out(each.heads[0]), fade_in(each.heads[1]))]  # alike
        opening = [*optional(self.unpoint()), fade_out(column.heads[0], column.values),
                   fade_in(second), *others]
        self.say(template, cued(template, [
            ("own weights", self.point_at(second.cells)),
            ("value rows", self.point_at(second.cells, second.rows, each=True))],
            opening=opening), h="dims.head_numbers[1]")

    def regroup(self) -> None:
        pointer = self.unpoint()
        second = getattr(self.columns[1], "second", VGroup())
        with self.silence("the sentences turn into lines to make room for the messages"):
            # whatever of the weights and value rows the scene still holds
            self.play(self.gone(*(head for column in self.columns for head in column.heads),
                                self.columns[1].values, second),
                      *optional(pointer), *([fade_out(self.heading)] if self.untitled else []),
                      run_time=0.8)
            self.play(*(Transform(column.tokens, block.line)
                        for column, block in zip(self.columns, self.blocks, strict=True)),
                      *(fade_in(block.receiver_tag) for block in self.blocks))

    def messages(self) -> None:
        first, second = self.blocks[:2]
        shown, hidden = [], set(range(self.ws.d_head)) - set(self.shown)
        for c in self.shown:
            if c is None and hidden:
                shown.append(None)
            elif c is not None and owner(self, c) == 1:
                shown.append(c)
        keys: dict[str, str] = {}
        for slot, name in (("a", self.names[0]), ("b", self.names[1])):
            keys.update({f"{slot}{c}": f"{name}.joined[{self.last}][{c}]"
                         for c in shown if c is not None})

        def vector(slot: str) -> str:
            return "[" + ", ".join("…" if c is None else "{" + f"{slot}{c}" + "}"
                                   for c in shown) + "]"

        coordinates = [c for c in shown if c is not None]
        template = "Each head now sends another message: head {h} sends " + vector("a") + \
            " in the {s} sentence but " + vector("b") + " in the {t} one."
        self.say(template, cued(template, [
            (f"{{a{coordinates[0]}}}", self.point_at(first.head_one)),
            (f"{{b{coordinates[0]}}}", self.point_at(first.head_one, second.head_one,
                                                      each=True))],
            opening=[fade_in(*(block.messages for block in self.blocks))]),
            h="dims.head_numbers[0]", words={"s": self.names[0], "t": self.names[1]}, **keys)
        before, after = (self.strongest(name) for name in self.names[:2])
        if before != after and {before, after} <= set(coordinates):
            was, was_words, was_keys = carried(self, before, "f")
            now, now_words, now_keys = carried(self, after, "g")
            template = "Its strongest coordinate moves from " + was + " to " + now + "."
            self.say(template, cued(template, [
                ("from", self.point_at(first.coordinate(before))),
                (" to ", self.point_at(first.coordinate(before), second.coordinate(after),
                                       each=True))]),
                words={**was_words, **now_words}, **was_keys, **now_keys)

    def updated_rows(self) -> None:
        first = self.blocks[0]
        template = "W_O turns each sentence's messages into the receiver's update Δe, in " \
                   "the model's coordinates, and the residual adds its input row e."
        self.say(template, cued(template, [
            ("W_O", AnimationGroup(fade_in(*(block.step for block in self.blocks)),
                                   self.point_at(*(block.step for block in self.blocks),
                                                 each=True))),
            ("update", AnimationGroup(fade_in(*(block.update for block in self.blocks)),
                                      self.point_at(*(block.update for block in self.blocks),
                                                    each=True))),
            ("input row", AnimationGroup(fade_in(*(block.input for block in self.blocks)),
                                         self.point_at(*(block.input for block in self.blocks),
                                                       each=True)))]))
        c = self.shown[0]
        name, last = self.names[0], self.last
        template = "So the updated row e′ changes too: in the {s} sentence, {f} gets {d} " \
                   "through W_O and {e} from e, making {p}."
        self.say(template, cued(template, [
            ("e′", AnimationGroup(fade_in(*(block.updated for block in self.blocks)),
                                  self.point_at(*(block.updated_row for block in self.blocks),
                                                each=True))),
            ("{d}", self.point_at(first.cell("delta", c))),
            ("{e}", self.point_at(first.cell("delta", c), first.cell("E", c), each=True)),
            ("making", self.point_at(first.cell("E_prime", c)))]),
            words={"s": name, "f": self.ws.lesson.features[c]},
            d=f"{name}.delta[{last}][{c}]", e=f"{name}.E[{last}][{c}]",
            p=f"{name}.E_prime[{last}][{c}]")
        if all(self.v.value(f"{other}.same_input") for other in self.names[1:]):
            inputs = [block.input for block in self.blocks]
            updates = [block.update for block in self.blocks]
            template = "Every receiver is the final “{w}”, in the same place, so its input " \
                "row e is the same in each sentence: every difference in e′ comes through " \
                "attention, in Δe."
            self.say(template, cued(template, [
                ("input row e", self.point_at(*inputs, each=True)),
                ("through attention", self.point_at(*updates, each=True))]),
                words={"w": self.ws.sentences[name][last]})

    def prediction(self) -> None:
        words: dict[str, str] = {}
        keys: dict[str, str] = {}
        parts, cues = [], []
        for i, (name, block) in enumerate(zip(self.names, self.blocks, strict=True)):
            p = self.v.value(f"{name}.prediction")
            words[f"w{i}"], words[f"s{i}"] = self.ws.vocab[p], name
            keys[f"x{i}"] = f"{name}.probs[{p}]"
            parts.append("“{w#}” ({x#}) after the {s#} sentence".replace("#", str(i)))
            cues.append((f"{{w{i}}}", AnimationGroup(fade_in(block.prediction),
                                                     self.point_at(block.prediction))))
        template = "Each sentence gets its own prediction: " + ", ".join(parts) + "."
        self.say(template, cued(template, cues), words=words, **keys)
        for block in self.blocks:
            if block.glossed is not None:
                self.say("A “{w}” is {g}.", fade_in(block.gloss),
                         self.point_at(block.prediction, block.gloss),
                         words={"w": block.glossed, "g": self.ws.lesson.glosses[block.glossed]})

    def same_word(self) -> None:
        word = self.shared_word()
        receivers = [column.tokens[1][self.last] for column in self.columns]
        readings = [part for block in self.blocks
                    for part in (block.updated_row, block.prediction)]
        cues: list[tuple[str, Animation]] = []
        if word is None:
            template = "Same receiver, same parameters: only the context differs, and with " \
                       "it the reading."
        else:
            template = "Same word “{b}”, same receiver, same parameters: only the context " \
                       "differs, and with it the reading."
            found = [column.tokens[1][self.ws.sentences[name].index(word)]
                     for name, column in zip(self.names, self.columns, strict=True)]
            # marked for the rest of the clip, as the receiver is, and named
            cues.append(("{b}", AnimationGroup(
                Create(VGroup(*(self.highlight(token, INK) for token in found))),
                fade_in(*(block.shared_tag for block in self.blocks)))))
        cues += [("receiver", self.point_at(*receivers, each=True, buff=0.16)),
                 ("reading", self.point_at(*readings, each=True))]
        self.say(template, cued(template, cues), words={} if word is None else {"b": word})
        self.wait(0.5)

    # ------------------------------------------------------------------ choices

    def strongest(self, name: str) -> int:
        """Head 1's message coordinate of the largest size in sentence ``name``."""
        message = self.v.value(f"{name}.h1.message")
        return max(range(len(message)), key=lambda i: (abs(message[i]), -i))

    def shared_word(self) -> str | None:
        """The first word of the first sentence that every sentence has, other than the
        receiver's word (in any case), or ``None``."""
        receiver = self.ws.sentences[self.names[0]][self.last].lower()
        for token in self.ws.sentences[self.names[0]]:
            if token.lower() != receiver and all(token in self.ws.sentences[name]
                                                 for name in self.names[1:]):
                return token
        return None

    # ------------------------------------------------------------------ layout

    def build(self) -> None:
        """The sentences side by side, each head's weights beside their tokens (all heads
        side by side, or where they would shrink under the hall's size, each head in the
        first one's place: ``apart``), and for the second sentence head 1's value rows after
        head 1's weights; and the reading that follows: each sentence on one line over its
        messages, their update, the input row and e′ (the receiver's rows, named as clips 11
        and 12 name them), its numbers at the least figure size."""
        numbers = [self.num(f"{self.names[0]}.h1.weights[{j}]", SMALL)
                   for j in range(self.ws.length)]
        labels = [self.head_label(h, HEAD_SIZE) for h in range(1, self.ws.n_heads + 1)]
        self.cell = max(m.width for m in [*numbers, *labels]) + 0.22
        # Every head's weights side by side where they fit at the hall's size, else one
        # head at a time, each in the place of the one before.
        for apart in (True, False):
            self.apart = apart
            self.columns = [self.context(name, values=k == 1)
                            for k, name in enumerate(self.names)]
            for column, shift in zip(self.columns, column_shifts(self.columns, 0.0),
                                     strict=True):
                column.shift(RIGHT * shift)
            group = VGroup(*self.columns)
            scale = min(1.25, FRAME_WIDTH / group.width, (TOP - BOTTOM) / group.height)
            if scale * min(SMALL, HEAD_SIZE) >= LEAST_FIGURE_SIZE:
                break
        group.scale(scale)
        group.move_to([0, (TOP + BOTTOM) / 2, 0])
        self.room = [0.0] * len(self.columns)
        if not self.apart:  # the value rows' room is made as they come, the weights centred
            values = self.columns[1]
            wide = values.get_right()[0] - max(head.get_right()[0] for head in values.heads)
            self.room = [-wide / 2 if k < 2 else wide / 2 for k in range(len(self.columns))]
            for column, room in zip(self.columns, self.room, strict=True):
                column.shift(LEFT * room)
        self.shown = shown_indices(self.ws.d_model)
        # Each coordinate named on one line (wider) or its head over what it carries
        # (taller), the rows apart or close: whichever leaves the readings larger (of
        # equals, the rows apart).
        # Where even the closest rows would shrink the numbers under the hall's size, the
        # title makes room for the readings.
        for top in (TOP, BARE_TOP):
            tries = [(self.readings(scale, stacked, gap, top), gap)
                     for stacked in (True, False) for gap in (0.24, 0.2)]
            (blocks, grown), _ = max(tries, key=lambda tried: (round(tried[0][1], 3),
                                                               tried[1]))
            if grown >= 1:
                break
        self.untitled = top == BARE_TOP
        blocks.scale(grown)
        blocks.move_to([0, (top + BOTTOM) / 2, 0])
        self.blocks = list(blocks)

    def readings(self, scale: float, stacked: bool, gap: float,
                 ceiling: float) -> tuple[VGroup, float]:
        """Every sentence's reading (:meth:`reading`), one under another with their tokens
        starting at one line, and the scale that fits them in the frame under ``ceiling``."""
        made = [self.reading(name, column.tokens.copy().scale(1 / scale), stacked, gap,
                             tagged=k == 0)
                for k, (name, column) in enumerate(zip(self.names, self.columns, strict=True))]
        top = 0.0
        for block in made:
            block.shift(LEFT * block.line[1].get_left()[0] + UP * (top - block.get_top()[1]))
            top = block.get_bottom()[1] - 0.22
        blocks = VGroup(*made)
        return blocks, min(1.2, FRAME_WIDTH / blocks.width, (ceiling - BOTTOM) / blocks.height)

    def context(self, name: str, values: bool = False) -> VGroup:
        """One sentence: its tokens, the receiver marked, and each head's weight beside
        every token (in its own place, or with ``apart`` false in the first head's); with
        ``values``, head 1's value row of every token after its weights
        (``values``, its rows ``values.rows``)."""
        tokens = self.ws.sentences[name]
        pitch, size = 0.36, 18
        header = self.bound("{n}", 24, INK, words={"n": name})
        words = VGroup(*(self.word(t, size).move_to([0, -(j + 1) * pitch, 0], aligned_edge=RIGHT)
                         for j, t in enumerate(tokens)))
        receiver = self.highlight(words[self.last], MUTED)
        header.move_to([0, 0.3, 0], aligned_edge=UP + RIGHT)
        tokens_group = VGroup(header, words, receiver)
        def weights(h: int, slot: int) -> VGroup:
            """Head ``h``'s weights beside the tokens, in the place of head ``slot``."""
            colour, x = self.head_colour(h), 0.25 + (slot - 0.5) * self.cell
            cells = VGroup()
            for j in range(len(tokens)):
                key = f"{name}.h{h}.weights[{j}]"
                box, ink = weight_cell(colour, self.v.value(key), self.cell - 0.16,
                                       pitch - 0.06)
                box.move_to([x, -(j + 1) * pitch, 0])
                cells.add(VGroup(box, self.num(key, SMALL, ink).move_to(box)))
            label = self.head_label(h, HEAD_SIZE).move_to([x, header.get_y(), 0])
            label.shift(UP * (baseline(header) - baseline(label)))  # on the name's line
            head = VGroup(label, cells)
            head.cells = cells
            return head

        def value_rows(h: int) -> VGroup:
            """Head ``h``'s value row of every token, after the first head's place."""
            left = 0.25 + self.cell + 0.1
            rows = VGroup(*(self.vec(f"{name}.h{h}.V[{j}]", SMALL, self.head_colour(h))
                            .move_to([left, -(j + 1) * pitch, 0], aligned_edge=LEFT)
                            for j in range(len(tokens))))
            title = self.bound("Head {h}'s value rows", HEAD_SIZE, self.head_colour(h),
                               h=f"dims.head_numbers[{h - 1}]")
            title.move_to([left, header.get_y(), 0], aligned_edge=LEFT)
            title.shift(UP * (baseline(header) - baseline(title)))
            made = VGroup(title, rows)
            made.rows = rows
            return made

        heads = [weights(h, h if self.apart else 1) for h in range(1, self.ws.n_heads + 1)]
        column = VGroup(tokens_group, *heads)
        column.tokens, column.heads = tokens_group, heads
        if values:
            column.values = value_rows(1)
            column.add(column.values)
            if self.ws.n_heads > 1:  # head 2's weights and value rows in head 1's place
                own, rows = weights(2, 1), value_rows(2)
                column.second = VGroup(own, rows)
                column.second.cells, column.second.rows = own.cells, rows.rows
                column.add(column.second)
        return column

    def reading(self, name: str, line: VGroup, stacked: bool, gap: float,
                tagged: bool = False) -> VGroup:
        """One sentence on one line (``line``: its name, tokens and receiver mark, as the
        column has them) with its prediction after it; under it, on the left, the
        receiver's joined messages under what each coordinate carries (its head and the
        feature its value column copies; ``stacked``, one over the other), named from under
        them, an arrow through W_O (rows ``gap`` apart), and on the right, under
        the model's features, the receiver's update Δe, input row e and e′ = e + Δe (``messages``,
        ``step``, ``update``, ``input``, ``updated``, ``prediction``)."""
        header, words, receiver = line
        on_baseline(words, 0.13)
        receiver.move_to(words[self.last])
        header.next_to(words, LEFT, buff=0.3)
        header.shift(UP * (baseline(words[0]) - baseline(header)))
        last = self.last

        def numbers(key: str, colour: str | None = None) -> list[Mobject]:
            return [self.label("…", READING) if c is None else
                    self.num(f"{name}.{key}[{last}][{c}]", READING,
                             colour or self.head_colour(owner(self, c))) for c in self.shown]

        def grid(rows: list[list[Mobject]]) -> VGroup:
            """The rows ``gap`` apart, the heading row closer to the first (an outline goes
            round a number with its heading, or round a whole row)."""
            cells = [cell for row in rows for cell in row]
            made = VGroup(*cells).arrange_in_grid(rows=len(rows), cols=len(rows[0]),
                                                  buff=(0.32, gap), cell_alignment=RIGHT)
            VGroup(*rows[0]).shift(DOWN * (gap - HEADING_GAP))
            return made

        joined = [[VGroup() if c is None else coordinate_label(self, c, READING, stacked=stacked)
                   for c in self.shown],
                  numbers("joined")]
        # e′ is in the model's coordinates: under the model's features, Δe + e = e′
        model = [[VGroup()] + [VGroup() if c is None else feature(self, c, READING)
                               for c in self.shown],
                 [self.label("Δe", READING, MUTED), *numbers("delta", INK)],
                 [self.label("+ e", READING, MUTED), *numbers("E", INK)],
                 [self.label("= e′", READING, MUTED), *numbers("E_prime", INK)]]
        left, right = grid(joined), grid(model)
        named = self.label("messages", READING, MUTED)
        stem = Arrow(LEFT * 0.5, RIGHT * 0.5, buff=0, stroke_width=3, color=MUTED,
                     max_tip_length_to_length_ratio=0.2)
        through = self.label("× W_O", READING, MUTED).next_to(stem, UP, buff=0.08)
        step = VGroup(through, stem)
        VGroup(left, step, right).arrange(RIGHT, buff=0.3, aligned_edge=UP)
        right.shift(UP * (joined[1][0].get_y() - model[1][1].get_y()))  # Δe level with them
        named.next_to(left, DOWN, buff=gap)  # in the room the model's lower rows leave
        step.shift(UP * (model[1][1].get_y() - stem.get_y()))
        rule = separator(VGroup(*model[3][1:]).width + 0.2).move_to(
            [VGroup(*model[3][1:]).get_x(), (model[2][1].get_y() + model[3][1].get_y()) / 2, 0])
        body = VGroup(left, named, step, right, rule)
        body.next_to(words, DOWN, buff=0.16).align_to(header, LEFT)
        p = self.v.value(f"{name}.prediction")
        prediction = self.bound("→ “{w}”, {x}", 20, INK, words={"w": self.ws.vocab[p]},
                                x=f"{name}.probs[{p}]")
        prediction.next_to(receiver, RIGHT, buff=0.25)
        prediction.shift(UP * (baseline(words[0]) - baseline(prediction)))
        # With ``tagged`` (the top line, the others outlined alike): what each outline is,
        # the receiver and the word every sentence shares.
        receiver_tag = self.label("receiver", TAG, MUTED).next_to(receiver, UP, buff=0.05)
        receiver_tag.align_to(receiver, RIGHT)  # clear of the prediction's outline
        shared = self.shared_word()
        tokens = self.ws.sentences[name]
        if not tagged:
            receiver_tag, shared = VGroup(), None
        shared_tag = VGroup() if shared is None else \
            self.label("same word", TAG, INK).next_to(words[tokens.index(shared)], UP,
                                                     buff=0.14)  # clear of its outline
        if len(shared_tag) and shared_tag.get_right()[0] > receiver_tag.get_left()[0] - 0.2:
            shared_tag.next_to(receiver_tag, LEFT, buff=0.25)  # neighbours: side by side
            shared_tag.align_to(receiver_tag, DOWN)
        gloss, glossed = VGroup(), None
        if self.ws.vocab[p] in self.ws.lesson.glosses:
            glossed = self.ws.vocab[p]
            gloss = self.bound("“{w}”: {g}", TAG, MUTED,
                               words={"w": glossed, "g": self.ws.lesson.glosses[glossed]})
            gloss.next_to(prediction, RIGHT, buff=0.25)
            gloss.shift(UP * (baseline(prediction) - baseline(gloss)))
        block = VGroup(line, body, prediction, receiver_tag, shared_tag, gloss)
        block.line, block.prediction = line, prediction
        block.receiver_tag, block.shared_tag = receiver_tag, shared_tag
        block.gloss, block.glossed = gloss, glossed
        block.messages = VGroup(left, named)
        block.step = step
        block.update = VGroup(*model[0], *model[1])
        block.input = VGroup(*model[2])
        block.updated = VGroup(*model[3], rule)
        block.updated_row = VGroup(*model[3])  # what a pointer outlines: clear of the rule
        heads, cells = joined
        block.head_one = VGroup(*(part for c, head, number in zip(
            self.shown, heads, cells, strict=True)
            if c is not None and owner(self, c) == 1 for part in (head, number)))
        rows = {"joined": cells, "delta": model[1][1:], "E": model[2][1:],
                "E_prime": model[3][1:]}

        def coordinate(c: int) -> VGroup:
            k = self.shown.index(c)
            return VGroup(heads[k], cells[k])

        def cell(key: str, c: int) -> Mobject:
            return rows[key][self.shown.index(c)]

        block.coordinate, block.cell = coordinate, cell
        return block
