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
    LEAST_FIGURE_SIZE,
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
    mask_cell,
    mask_grid,
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
        self.stage("One more row, then position rows")
        self.sequence()
        self.section("no mask")
        self.stage("An image needs no causal mask")
        self.no_mask()
        self.section("classifier")
        self.stage("The CLS row can classify the whole image")
        self.classifier()
        self.section("what changes")
        self.stage("What changes for an image")
        self.what_changes()

    def swatch(self, patch: int, side: float = 0.34) -> Mobject:
        """A thumbnail of patch ``patch``'s own pixels: it names the patch's row."""
        return self.patches[patch].copy().scale_to_fit_height(side)

    def shade(self, pixel: float) -> ManimColor:
        """Grey level of a pixel value (clipped to the range zero to one)."""
        return interpolate_color(DARK_PIXEL, LIGHT_PIXEL, min(max(pixel, 0.0), 1.0))

    def tile(self, key: str, pixel: float, side: float = 0.66) -> VGroup:
        """One pixel value on a square of its own shade, in the ink that reads on it."""
        fill = self.shade(pixel)
        number = self.num(key, LEAST_FIGURE_SIZE, ink_on(fill.to_hex()))
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
        image, side = VGroup(self.patches, self.patches.outlines), 1.8
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

    def twin_patches(self) -> tuple[int, int] | None:
        """The first two patches whose embedding rows are equal (``patches.twins``; ``None``
        when every row differs): only their position rows can tell them apart."""
        first, second = self.v.value("patches.twins")
        return None if first < 0 else (first, second)

    @staticmethod
    def twin_rows(rows: list[Mobject], twins: tuple[int, int]) -> list[Mobject]:
        """What to outline for the twin patches' two rows: one outline round both when they
        are neighbours (two would cross between them), else one each."""
        return [VGroup(*rows)] if twins[1] == twins[0] + 1 else rows

    def sequence(self) -> None:
        count = int(self.v.value("patches.count"))
        rows = self.matrix("patches.rows", size=20,
                           row_labels=[self.swatch(i) for i in range(count)])
        positions = self.matrix("patches.positions", size=20)
        sequence = self.matrix("patches.sequence", size=20)
        plus, equals = self.label("+", 28), self.label("=", 28)
        VGroup(rows, plus, positions).arrange(RIGHT, buff=0.5)
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
        headers = headers_above([(self.bound("CLS + {n} patch rows", 22, n="patches.count"),
                                  rows),
                                 (self.label("positions", 22), positions)])
        # The sum goes on below, as a long equation does: its "=" under the "+".
        sequence.next_to(VGroup(rows, positions), DOWN, buff=1.0).align_to(positions, LEFT)
        equals.move_to([plus.get_x(), sequence.get_y(), 0])
        headers.add(self.shape("sequence", "patches.shape.sequence", 22)
                    .next_to(sequence, UP, buff=0.3))
        patch_rows = self.bound("{n} patch rows", 22, n="patches.count").move_to(headers[0])
        place(VGroup(rows, plus, positions, equals, sequence, cls, cls_name, headers))
        patch_rows.move_to(headers[0])
        inner, keys = vector("c", "patches.cls", len(cls))
        self.say("Here are the {n} patch rows.", Fade(VGroup(rows, patch_rows)),
                 self.point_at(rows), n="patches.count")
        twins = self.twin_patches()
        if twins is not None:
            same = bool(self.v.value("patches.twins_same_pixels"))
            self.say("Two patches hold the same pixels, so their rows are identical." if same
                     else "Two patches give identical rows.",
                     self.point_at(*self.twin_rows([VGroup(rows[2][i], *rows.cells[i])
                                                    for i in twins], twins), each=True,
                                   buff=0.04))
        self.say("Put one more learned row in front of them, " + inner + ": CLS, short for "
                 "class.", Fade(VGroup(cls, cls_name)), Fade(patch_rows, appear=False),
                 Fade(headers[0]), self.point_at(cls, cls_name), **keys)
        self.say("It comes from no patch: it gathers from all of them, to answer for the "
                 "whole image.", self.point_at(VGroup(cls_name, cls), rows.body, each=True))
        self.say("Add a position row to each row.", Fade(VGroup(plus, positions, headers[1])),
                 self.point_at(positions))
        self.say("The sequence is {s}, ready for attention like any sentence.",
                 Fade(VGroup(equals, sequence, headers[2])), self.point_at(sequence, headers[2]),
                 s="patches.shape.sequence")
        if twins is not None:  # the CLS row comes first: patch i is row i + 1
            shown = [outline for matrix in (positions, sequence) for outline in
                     self.twin_rows([VGroup(*matrix.cells[i + 1]) for i in twins], twins)]
            self.say("Those two rows now differ, and only their position rows tell them apart.",
                     self.point_at(*shown, each=True, buff=0.04))
            self.say("Without positions, attention could not tell where a patch sits in the "
                     "image.", self.point_at(positions))

    def row_names(self, height: float) -> list[Mobject]:
        """Names of the sequence's rows: "CLS", then each patch's thumbnail."""
        count = int(self.v.value("patches.count"))
        return [self.label("CLS", 20, MUTED), *(self.swatch(i, height) for i in range(count))]

    def open_grid(self, rows: int, width: float) -> VGroup:
        """A receivers × sources grid with no mask: every cell open, as clip 14 draws an
        allowed cell; ``cells`` holds them as rows."""
        side = width / rows
        cells = [[mask_cell(side, masked=False).move_to([c * side, -r * side, 0])
                  for c in range(rows)] for r in range(rows)]
        made = VGroup(*(cell for row in cells for cell in row))
        made.cells = cells
        return made

    def no_mask(self) -> None:
        """A sentence's causal triangle beside the image's open grid: every row reads every
        row, its receivers named as the sequence's rows."""
        total = int(self.v.value("patches.total_rows"))
        causal = mask_grid(total, 2.2, label=lambda text: self.label(text, 20, MUTED))
        image = self.open_grid(total, 2.2)
        names = VGroup(*self.row_names(0.3))
        for name, row in zip(names, image.cells, strict=True):
            name.next_to(row[0], LEFT, buff=0.15)
        sources = VGroup(*self.row_names(0.3))
        for name, cell in zip(sources, image.cells[0], strict=True):
            name.next_to(cell, UP, buff=0.12)
        titles = (self.label("words: causal mask", 22),
                  self.bound("image: {t} rows, no mask", 22, t="patches.total_rows"))
        sides = [VGroup(titles[0], causal), VGroup(titles[1], VGroup(names, sources, image))]
        for side, drawn in zip(sides, (causal, image), strict=True):
            side[0].next_to(drawn, UP, buff=0.7).set_x(drawn.get_x())
        axes = self.label("a row per receiver, a column per source", 20, MUTED)
        key = VGroup(axes, causal.legend.arrange(RIGHT, buff=0.5)).arrange(DOWN, buff=0.2)
        pair = VGroup(*sides).arrange(RIGHT, buff=1.6, aligned_edge=DOWN)
        place(VGroup(pair, key).arrange(DOWN, buff=0.5))
        self.say("A sentence is read with a causal mask: no word may read the words after it.",
                 Fade(sides[0]), Fade(key), self.point_at(causal))
        self.say("Classifying a whole image needs no such mask.", Fade(sides[1]),
                 self.point_at(image))
        self.say("Each of the {t} rows may read every other row, before or after it.",
                 self.point_at(image, names, sources), t="patches.total_rows")

    def classifier(self) -> None:
        sequence = self.matrix("patches.sequence", size=20, row_labels=self.row_names(0.3))
        header = self.bound("{t} rows: sequence {s}", 22, mono=True, t="patches.total_rows",
                            s="patches.shape.sequence")
        header.next_to(sequence, UP, buff=0.3)
        encoder = self.box(self.label("encoder", 22), self.label("attention, no mask,", 20, MUTED),
                           self.label("then an MLP,", 20, MUTED),
                           self.label("layer after layer", 20, MUTED))
        updated = VGroup(*(Rectangle(width=1.1, height=0.16, stroke_width=0, fill_color=MUTED,
                                     fill_opacity=0.8)
                           for _ in range(int(self.v.value("patches.total_rows")))))
        updated.arrange(DOWN, buff=0.14)
        updated[0].set_fill(INK)  # the row that goes on
        names = VGroup(*self.row_names(0.26))
        for name, bar in zip(names, updated, strict=True):
            name.next_to(bar, LEFT, buff=0.15)
        rows_out = VGroup(names, updated)
        outputs = VGroup(rows_out, self.label("updated rows", 20, MUTED)).arrange(DOWN, buff=0.25)
        classifier = self.box(self.label("classifier", 22),
                              self.label("final CLS row in,", 20, MUTED),
                              self.label("class probabilities out", 20, MUTED))
        VGroup(sequence, encoder, outputs).arrange(RIGHT, buff=0.9)
        for part in (encoder, rows_out):
            part.shift(UP * (sequence.get_y() - part.get_y()))
        outputs[1].next_to(rows_out, DOWN, buff=0.25)
        header.next_to(sequence, UP, buff=0.3)
        # The classifier sits above the rows, fed by the top one: the CLS row.
        classifier.next_to(updated[0], UP, buff=0.7)
        place(VGroup(header, sequence, encoder, outputs, classifier))
        links = VGroup(arrow(sequence, encoder), arrow(encoder, rows_out),
                       arrow(updated[0], classifier, UP))
        self.say("The rows go into an encoder: layers of attention with no mask, each followed "
                 "by an MLP.", Fade(VGroup(header, sequence)), Fade(encoder), Create(links[0]),
                 self.point_at(encoder))
        self.say("It updates every row, and the {t} rows come out in the same order.",
                 Fade(outputs), Create(links[1]), self.point_at(outputs),
                 t="patches.total_rows")
        self.say("The CLS row's final state feeds a classifier trained with the image's label.",
                 Fade(classifier), Create(links[2]),
                 self.point_at(VGroup(names[0], updated[0]), classifier, each=True))

    def box(self, *lines: Mobject) -> VGroup:
        """Lines of text in a rounded outline: one stage of the image model."""
        body = VGroup(*lines).arrange(DOWN, buff=0.1)
        return VGroup(body, frame(body, MUTED))

    def what_changes(self) -> None:
        """What an image changes beside the word model, row by row as the voice names it."""
        pairs = (("token rows", "patch rows"), ("no extra row", "a CLS row"),
                 ("a causal mask", "no mask"), ("a next-word prediction", "a classifier"))
        rows = [[self.label(old, 24, MUTED), self.label("→", 24, MUTED), self.label(new, 24)]
                 for old, new in pairs]
        table = grid(rows, h_buff=0.6, v_buff=0.4, aligns="rcl")
        heads = headers_above([(self.label("words", 22, MUTED), VGroup(*(r[0] for r in rows))),
                               (self.label("image", 22, MUTED), VGroup(*(r[2] for r in rows)))])
        note = self.label("a roadmap, not a trained model", 20, MUTED)
        place(VGroup(VGroup(heads, table), note).arrange(DOWN, buff=0.7))
        said = ("Beside the word model, the rows come from patches, a CLS row joins them, the "
                "mask goes, and a classifier replaces the next word.")
        fragments = ("the rows come", "a CLS row", "the mask goes", "a classifier")
        self.tell(said, Fade(heads), cues=[
            (fragment, lambda row=row: Fade(VGroup(*row)))
            for fragment, row in zip(fragments, rows, strict=True)])
        self.say("This is a roadmap, not a trained model.", Fade(note), self.point_at(note))
