"""Image patches as embedding rows, from the `patches.*` values."""



from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    LaggedStart,
    ManimColor,
    Mobject,
    Rectangle,
    Square,
    VGroup,
    interpolate_color,
)

from scenes.kit import (
    ELIDE_AFTER,
    INK,
    MUTED,
    Fade,
    fit,
    shown_indices,
    vector,
)
from scenes.kit.palette import ink_on
from scenes.kit.topic import (
    CONTENT_BOTTOM,
    CONTENT_TOP,
    CONTENT_WIDTH,
    DARK_PIXEL,
    FLAT_COLUMNS,
    LIGHT_PIXEL,
    LibraryScene,
    arrow,
    frame,
    grid,
    headers_above,
    place,
    stretch_brackets,
)

__all__ = ["ImagePatches"]


# --------------------------------------------------------------------------- patches


class ImagePatches(LibraryScene):
    """An image cut into patches, each flattened and projected into one embedding row."""

    def construct(self) -> None:
        self.section("image")
        self.stage("Image patches can be the embedding rows")
        self.image()
        self.section("flattened patches")
        self.flatten()
        self.section("shared projection")
        self.stage("One shared projection per patch")
        self.project()
        self.section("sequence")
        self.stage("A CLS row, then position rows")
        self.sequence()
        self.section("classifier")
        self.stage("The CLS row can classify the whole image")
        self.classifier()

    def swatch(self, patch: int, side: float = 0.34) -> Mobject:
        """A thumbnail of patch ``patch``'s own pixels: it names the patch's row."""
        return self.patches[patch].copy().scale_to_fit_height(side)

    def shade(self, pixel: float) -> ManimColor:
        """Grey level of a pixel value (clipped to the range zero to one)."""
        return interpolate_color(DARK_PIXEL, LIGHT_PIXEL, min(max(pixel, 0.0), 1.0))

    def tile(self, key: str, pixel: float, side: float = 0.62) -> VGroup:
        """One pixel value on a square of its own shade, in the ink that reads on it."""
        fill = self.shade(pixel)
        number = self.num(key, 18, ink_on(fill.to_hex()))
        square = Square(side, stroke_width=0.5, stroke_color=MUTED, fill_color=fill,
                        fill_opacity=1)
        return VGroup(square, number.move_to(square))

    def pixels(self, box: float) -> VGroup:
        """The image as shaded squares, grouped by patch; each group is outlined."""
        image = self.v.value("patches.image")
        side, size = len(image), int(self.v.value("patches.size"))
        per_side = side // size
        cell = box / side
        groups = [VGroup() for _ in range(per_side * per_side)]
        for r, row in enumerate(image):
            for c, pixel in enumerate(row):
                square = Square(cell, stroke_width=0.5, stroke_color=MUTED,
                                fill_color=self.shade(pixel), fill_opacity=1)
                square.move_to([c * cell, -r * cell, 0])
                groups[(r // size) * per_side + c // size].add(square)
        patches = VGroup(*groups)
        patches.outlines = VGroup(*(Rectangle(width=g.width, height=g.height, color=INK,
                                              stroke_width=3).move_to(g) for g in groups))
        return patches

    def image(self) -> None:
        self.patches = self.pixels(4.0)
        facts = VGroup(
            self.bound("{a} × {b} pixels, shaded by value", 24, a="patches.side",
                       b="patches.side"),
            self.bound("patches of {a} × {b} pixels", 24, a="patches.size", b="patches.size"),
            self.bound("{a} × {b} = {n} patches", 24, a="patches.per_side",
                       b="patches.per_side", n="patches.count"),
        ).arrange(DOWN, aligned_edge=LEFT, buff=0.4)
        note = self.label("a shape illustration, not a trained vision model", 20, MUTED)
        right = VGroup(facts, note).arrange(DOWN, aligned_edge=LEFT, buff=0.8)
        place(VGroup(self.patches, right).arrange(RIGHT, buff=1.2))
        self.say("Words are not the only source of rows.", Fade(note), self.point_at(note))
        self.say("Take a small greyscale image, {s} by {t} pixels, each square shaded by its "
                 "value.", Fade(self.patches), Fade(facts[0]), self.point_at(self.patches),
                 s="patches.side", t="patches.side")
        self.play(self.patches.animate.arrange_in_grid(
            rows=int(self.v.value("patches.per_side")), buff=0.25).move_to(self.patches),
            *self.unpointed(), run_time=0.8)
        for group, outline in zip(self.patches, self.patches.outlines, strict=True):
            outline.move_to(group)
        self.say("Cut it into square patches of {p} by {q} pixels.",
                 *map(Create, self.patches.outlines), Fade(facts[1]),
                 self.point_at(self.patches.outlines[0]), p="patches.size", q="patches.size")
        self.say("That makes {n} per side, {c} patches in all.", Fade(facts[2]),
                 self.point_at(facts[2]), n="patches.per_side", c="patches.count")
        self.facts = VGroup(facts, note)

    def flatten(self) -> None:
        flat = self.v.value("patches.flat")
        width = len(flat[0])
        shown = list(range(width)) if width <= FLAT_COLUMNS else \
            [*range(FLAT_COLUMNS - 2), None, width - 1]
        rows = [[self.swatch(i)] + [self.label("…", 20) if c is None
                                    else self.tile(f"patches.flat[{i}][{c}]", flat[i][c])
                                    for c in shown] for i in range(len(flat))]
        table = grid(rows, h_buff=0.06, v_buff=0.06, aligns="c" * (len(shown) + 1))
        header = self.bound("flat {s}: {k} values per patch, one row each", 22, mono=True,
                            s="patches.shape.flat", k="patches.values_per_patch")
        block = VGroup(header, table).arrange(DOWN, buff=0.35)
        self.play(Fade(self.facts, appear=False), *self.unpointed(), run_time=0.5)
        image, side = VGroup(self.patches, self.patches.outlines), 1.9
        top = CONTENT_TOP - side - 0.3
        fit(block, CONTENT_WIDTH, top - CONTENT_BOTTOM)
        block.move_to([0, top - block.height / 2, 0])
        self.play(image.animate.scale_to_fit_height(side).move_to([0, CONTENT_TOP - side / 2, 0]),
                  run_time=0.6)
        self.say("Read each patch row by row into one flat list of {k} values.", Fade(header),
                 Fade(VGroup(*rows[0])), self.point_at(self.patches.outlines[0], *rows[0]),
                 k="patches.values_per_patch")
        self.say("Each patch becomes one row, as each word became one token.",
                 LaggedStart(*(Fade(VGroup(*row)) for row in rows[1:]), lag_ratio=0.4),
                 self.point_at(table), run_time=2.0)

    def tall_matrix(self, key: str, size: float, colour: str = INK) -> VGroup:
        """A matrix showing its first two rows, a "⋮" row and its last row."""
        length = len(self.v.value(key))
        if length <= ELIDE_AFTER:
            return self.matrix(key, size=size, colour=colour)
        shown = self.matrix(key, rows=[0, 1, length - 1], size=size, colour=colour)
        gap = shown.cells[0][0].get_y() - shown.cells[1][0].get_y()
        for cell in shown.cells[-1]:
            cell.shift(DOWN * gap)
        dots = VGroup(*(self.label("⋮", size, colour).move_to(
            [cell.get_x(), shown.cells[1][0].get_y() - gap, 0]) for cell in shown.cells[-1]))
        stretch_brackets(shown, gap, UP)
        shown.add(dots)
        return shown

    def project(self) -> None:
        count = int(self.v.value("patches.count"))
        flat = self.matrix("patches.flat", row_labels=[self.swatch(i) for i in range(count)],
                           size=20)
        W = self.tall_matrix("patches.W", 20)
        rows = self.matrix("patches.rows", size=20)
        times, equals = self.label("×", 28), self.label("=", 28)
        equation = VGroup(flat, times, W, equals, rows).arrange(RIGHT, buff=0.4)
        headers = headers_above([(self.shape("flat", "patches.shape.flat", 22), flat),
                                 (self.shape("W", "patches.shape.W", 22), W),
                                 (self.shape("rows", "patches.shape.rows", 22), rows)])
        note = self.label("the same matrix for every patch, learned from the image task", 20,
                          MUTED)
        place(VGroup(VGroup(equation, headers), note).arrange(DOWN, buff=0.7))
        self.say("Each flat patch is one row of {f}.", Fade(VGroup(flat, headers[0])),
                 self.point_at(headers[0]), f="patches.shape.flat")
        self.say("One projection W, {w}, multiplies every one of them.",
                 Fade(VGroup(times, W, headers[1])), self.point_at(W, headers[1]),
                 w="patches.shape.W")
        self.say("It is the same matrix for every patch, learned from the image task.",
                 Fade(note), self.point_at(note))
        self.say("Out come the embedding rows, one per patch: {r}.",
                 Fade(VGroup(equals, rows, headers[2])), self.point_at(rows, headers[2]),
                 r="patches.shape.rows")

    def sequence(self) -> None:
        count = int(self.v.value("patches.count"))
        rows = self.matrix("patches.rows", size=20,
                           row_labels=[self.swatch(i) for i in range(count)])
        positions = self.matrix("patches.positions", size=20)
        sequence = self.matrix("patches.sequence", size=20)
        plus, equals = self.label("+", 28), self.label("=", 28)
        equation = VGroup(rows, plus, positions, equals, sequence).arrange(RIGHT, buff=0.5)
        first, second = (positions.cells[r][0].get_y() for r in (0, 1))
        rows.shift(UP * (second - rows.cells[0][0].get_y()))
        stretch_brackets(rows, first - second, DOWN)
        cls = VGroup(*(self.label("…", 20) if c is None
                       else self.num(f"patches.cls[{c}]", 20)
                       for c in shown_indices(len(self.v.value("patches.cls")))))
        for cell, below in zip(cls, rows.cells[0], strict=True):
            cell.set_y(first).align_to(below, RIGHT)
        cls_name = self.label("CLS", 20, MUTED).set_y(first)
        cls_name.align_to(rows[2], RIGHT)
        plus.set_y(positions.get_y())
        equals.set_y(positions.get_y())
        headers = headers_above([(self.bound("CLS + {n} patch rows", 22, n="patches.count"),
                                  rows),
                                 (self.label("positions", 22), positions),
                                 (self.shape("sequence", "patches.shape.sequence", 22),
                                  sequence)])
        place(VGroup(equation, cls, cls_name, headers))
        inner, keys = vector("c", "patches.cls", len(cls))
        self.say("Here are the {n} patch rows.", Fade(VGroup(rows, headers[0])),
                 self.point_at(rows), n="patches.count")
        self.say("Put one learned CLS row, " + inner + ", in front of them.",
                 Fade(VGroup(cls, cls_name)), self.point_at(cls, cls_name), **keys)
        self.say("Add a position row to each row.", Fade(VGroup(plus, positions, headers[1])),
                 self.point_at(positions))
        self.say("The sequence is {s}, ready for attention like any sentence.",
                 Fade(VGroup(equals, sequence, headers[2])), self.point_at(sequence, headers[2]),
                 s="patches.shape.sequence")

    def classifier(self) -> None:
        sequence = self.matrix("patches.sequence", size=20)
        header = self.bound("{t} rows: sequence {s}", 22, mono=True, t="patches.total_rows",
                            s="patches.shape.sequence")
        header.next_to(sequence, UP, buff=0.3)
        left = VGroup(header, sequence)
        encoder = self.label("encoder: attention without a causal mask", 22)
        encoder = VGroup(encoder, frame(encoder, MUTED))
        cls = self.label("final CLS row", 22)
        classifier = self.label("classifier → class probabilities", 22)
        flow = VGroup(encoder, cls, classifier).arrange(DOWN, buff=0.7)
        flow.next_to(sequence, RIGHT, buff=1.2)
        flow.shift(UP * (sequence.get_y() - encoder.get_y()))
        note = self.label("a roadmap, not a trained model", 20, MUTED)
        place(VGroup(VGroup(left, flow), note).arrange(DOWN, buff=0.7))
        links = VGroup(arrow(sequence, encoder), arrow(encoder, cls, DOWN),
                       arrow(cls, classifier, DOWN))
        self.say("Classifying a whole image needs no causal mask.", Fade(left), Fade(encoder),
                 Create(links[0]), self.point_at(encoder))
        self.say("Each of the {t} rows may read every other row, before or after it.",
                 self.point_at(sequence), t="patches.total_rows")
        self.say("After the encoder, the CLS row's final state feeds a classifier trained with "
                 "the image's label.", Fade(VGroup(cls, classifier)), *map(Create, links[1:]),
                 self.point_at(cls))
        self.say("This is a roadmap, not a trained model.", Fade(note), self.point_at(note))
