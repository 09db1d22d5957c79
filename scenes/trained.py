"""The trained comparison's models: each drawn with its parameters counted by part
(`trained.*`), and, when the lecture has an experiment, what they learned from and how well
they predict (`trained.results.*`): perplexity and training time with one dot per seed,
each model's continuation of the lesson's sentence, and the verdict those numbers give.
Without one, what a fair comparison measures."""

import itertools
from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Circle,
    Create,
    Dot,
    LaggedStart,
    Line,
    Mobject,
    Polygon,
    Rectangle,
    Square,
    VGroup,
    VMobject,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
    current_experiment,
)
from scenes.kit.components import panel
from scenes.kit.layout import fit
from scenes.kit.palette import BACKGROUND, FAINT, NEUTRAL_FILL
from scenes.kit.topic import (
    CONTENT_BOTTOM,
    CONTENT_WIDTH,
    LibraryScene,
    arrow,
    grid,
    place,
)

__all__ = ["TrainedComparison"]

CHART_WIDTH = 6.4
"""Length of a bar at the largest parameter count, and of the zoomed dot chart's axis."""
DOT_AXIS = 5.0
"""Length of a dot chart's axis from zero, a little past the largest figure: shorter than
:data:`CHART_WIDTH`, as the figures written beside each row take two lines' width."""
RESULTS = "trained.results"
PAD_SHARE = 3 / 8
"""How much of the window a short prompt's pads take in the masked grids' picture."""
DEVICES = {"cpu": "CPU", "cuda": "graphics card", "mps": "Apple graphics chip"}
"""How the narration names the device the experiment records its runs on."""


class TrainedComparison(LibraryScene):
    """The trained comparison's models and sizes, then, with an experiment, its results."""

    draws_its_own_map = True  # the worksheet's map is none of these models

    def setup(self) -> None:
        super().setup()
        experiment = current_experiment()
        self.options: dict[str, Any] = {
            "experiment": None if experiment is None else experiment.sha256}
        """What this scene read besides values (it enters the scene's cache key)."""

    def manifest(self) -> dict[str, Any]:
        return {**super().manifest(), "options": dict(self.options)}

    def construct(self) -> None:
        self.heads = list(self.ws.lesson.trained.heads)
        self.models = ["mlp", *(f"heads{h}" for h in self.heads)]
        measured = self.options["experiment"] is not None
        if measured:
            self.section("corpus")
            self.stage("{n:model}, one corpus", n="trained.model_count")
            self.corpus()
        self.section("fixed window")
        self.stage("The fixed-window MLP")
        self.mlp()
        for heads in self.heads:
            self.section(f"attention {heads}")
            self.stage("Attention, {h:head} of {d}", h=f"trained.heads{heads}.heads",
                       d=f"trained.heads{heads}.d_head")
            self.attention(heads)
        self.section("parameters")
        self.stage("Where the parameters are")
        self.parts()
        if not measured:
            self.section("what a comparison measures")
            self.what_is_measured()
            return
        self.section("perplexity")
        self.stage("Held-out perplexity, one dot per seed")
        self.chart("perplexity", "perplexity on held-out texts")
        self.section("perplexity, zoomed")
        self.stage("Zoomed in on the attention models")
        self.zoom()
        self.section("training time")
        self.stage("Training time, one dot per seed")
        self.chart("seconds", "seconds of training steps")
        self.section("continuations")
        self.stage("Each model continues the same sentence")
        self.continuations()
        self.section("verdict")
        self.verdict()

    # ----------------------------------------------------------------- names

    def model_name(self, heads: int, size: float = 26) -> VGroup:
        """``attention, N heads`` and one small square per head, in its head's colour."""
        name = self.bound("attention, {h:head}", size, INK, h=f"trained.heads{heads}.heads")
        squares = VGroup(*(Square(0.24, stroke_width=0, fill_color=self.head_colour(h + 1),
                                  fill_opacity=1) for h in range(heads)))
        squares.arrange(RIGHT, buff=0.06).next_to(name, RIGHT, buff=0.2)
        return VGroup(name, squares)

    def name_of(self, model: str, size: float = 26) -> Mobject:
        if model == "mlp":
            return self.label("fixed-window MLP", size)
        return self.model_name(int(model.removeprefix("heads")), size)

    # ----------------------------------------------------------------- the corpus

    def corpus(self) -> None:
        """The models by name, then what they learned from: the corpus as one bar
        split as the texts were (each part as long as its count), and the training budget."""
        r = RESULTS
        names = VGroup(*(self.name_of(model, 24) for model in self.models))
        names.arrange(RIGHT, buff=0.9)
        corpus = self.bound("{n} texts: {t}", 24, INK, n=f"{r}.documents.all", t=f"{r}.corpus")
        splits = (("train", "{a} to train on", MUTED), ("validation",
                  "{a} to choose checkpoints", FAINT), ("test", "{a} held out for the test", INK))
        unit = 10.0 / float(self.v.value(f"{r}.documents.all"))
        bar, legend = VGroup(), VGroup()
        for split, text, shade in splits:
            length = unit * float(self.v.value(f"{r}.documents.{split}"))
            bar.add(Rectangle(width=length, height=0.36, stroke_width=1, stroke_color=BACKGROUND,
                              fill_color=shade, fill_opacity=1))
            swatch = Square(0.24, stroke_width=0, fill_color=shade, fill_opacity=1)
            legend.add(VGroup(swatch, self.bound(text, 22, INK, a=f"{r}.documents.{split}"))
                       .arrange(RIGHT, buff=0.15))
        bar.arrange(RIGHT, buff=0)
        legend.arrange(RIGHT, buff=0.6)
        budget = VGroup(self.bound("{s} steps of {b} windows of {c} tokens", 22, INK,
                                   s=f"{r}.steps", b=f"{r}.batch", c="trained.context"),
                        self.bound("{k:seed} per model", 22, INK, k=f"{r}.seed_count"))
        budget.arrange(RIGHT, buff=0.6)
        page = VGroup(names, VGroup(corpus, bar, legend).arrange(DOWN, buff=0.3), budget)
        place(page.arrange(DOWN, buff=0.7))
        self.say("This run, made for this lecture, trains {n:model} to predict the next "
                 "token.", Fade(names), self.point_at(names), n="trained.model_count")
        self.say("They learn from one corpus of {n} texts: {t}.", Fade(corpus), Fade(bar),
                 self.point_at(corpus), n=f"{r}.documents.all", t=f"{r}.corpus")
        said = ("{a} train the models and {v} choose each model's best checkpoint; {c} of "
                "them are held out, for the test alone.")
        self.tell(said, Fade(legend), cues=[
            (slot, lambda item=item: self.point_at(item))
            for slot, item in zip(("{a}", "{v}", "{c}"), legend, strict=True)],
            a=f"{r}.documents.train", v=f"{r}.documents.validation", c=f"{r}.documents.test")
        self.say("Each model takes {s} steps, each on {b} windows of {c} tokens, once with each "
                 "of {k:seed}.", Fade(budget), self.point_at(budget[0]), s=f"{r}.steps",
                 b=f"{r}.batch", c="trained.context", k=f"{r}.seed_count")
        self.say("A seed fixes the first weights and the order of the batches.",
                 self.point_at(budget[1]))

    # ----------------------------------------------------------------- architectures

    def box(self, *lines: Mobject, colour: str = MUTED) -> VGroup:
        """A stage of a model's picture: its lines in a rounded outline."""
        return panel(VGroup(*lines).arrange(DOWN, buff=0.1), colour, buff=0.16)

    def counted(self, stages: list[Mobject], counts: list[str | None]) -> tuple[VGroup, VGroup,
                                                                                   VGroup]:
        """Stages left to right with arrows, each stage's parameter count under it."""
        row = VGroup(*stages).arrange(RIGHT, buff=0.45)
        arrows = VGroup(*(arrow(a, b) for a, b in itertools.pairwise(stages)))
        numbers = VGroup()
        floor = row.get_bottom()[1] - 0.3
        for stage, key in zip(stages, counts, strict=True):
            if key is None:
                continue
            count = self.num(key, 24, INK, mono=False)
            count.move_to([stage.get_x(), floor - count.height / 2, 0])
            stage.count = count
            numbers.add(count)
        return row, arrows, numbers

    def rows_icon(self, rows: int, colour: str = MUTED) -> VGroup:
        """A stack of thin rows: a window of embedding rows."""
        return VGroup(*(Rectangle(width=1.1, height=0.09, stroke_width=0, fill_color=colour,
                                  fill_opacity=0.8) for _ in range(rows))).arrange(DOWN,
                                                                                    buff=0.05)

    def masked_grid(self, colour: str, width: float) -> VGroup:
        """Receivers × sources of a padded window at its true size (a cell per receiver and
        source): the future blocked above the diagonal, and the pads of a short prompt (the
        first :data:`PAD_SHARE` of the window) blocked as sources for every real receiver;
        a pad's own row, computed but never read, faint."""
        size = int(self.v.value("trained.context"))
        pads = round(size * PAD_SHARE)
        cell = width / size

        def corner(column: float, row: float) -> list[float]:
            return [column * cell, -row * cell, 0]

        def staircase(first: int, last: int, opacity: float) -> Polygon:
            """Cells ``c <= r`` of rows and columns ``first`` to ``last`` (exclusive)."""
            points = [corner(first, first)]
            for r in range(first, last):
                points += [corner(r + 1, r), corner(r + 1, r + 1)]
            points.append(corner(first, last))
            return Polygon(*points, stroke_width=0, fill_color=colour, fill_opacity=opacity)

        blocked = Square(width, stroke_width=0.8, stroke_color=FAINT, fill_color=NEUTRAL_FILL,
                         fill_opacity=1).move_to([width / 2, -width / 2, 0])
        return VGroup(blocked, staircase(0, pads, 0.3), staircase(pads, size, 0.85))

    def grid_key(self, colour: str) -> VGroup:
        """What a masked grid's shades mean, each beside its swatch."""
        items = VGroup()
        for fill, opacity, text in ((colour, 0.85, "read"), (NEUTRAL_FILL, 1.0, "blocked"),
                                    (colour, 0.3, "a pad's own row, never read")):
            swatch = Square(0.24, stroke_width=0.8, stroke_color=FAINT, fill_color=fill,
                            fill_opacity=opacity)
            items.add(VGroup(swatch, self.label(text, 20)).arrange(RIGHT, buff=0.12))
        items.arrange(RIGHT, buff=0.35)
        items[2].next_to(items[0], DOWN, buff=0.12, aligned_edge=LEFT)  # two lines: narrow
        return items

    def total(self, key: str) -> Mobject:
        return self.bound("{p} parameters in all", 26, INK, p=key)

    def mlp(self) -> None:
        """64 rows joined into one long row, the wide first layer, the vocabulary layer."""
        m = "trained.mlp"
        rows = self.box(self.rows_icon(6), self.bound("{c} rows of the", 20, INK,
                                                      c="trained.context"),
                        self.bound("token table, {v} × {w}", 20, MUTED, v="trained.vocab",
                                   w="trained.width"))
        joined = self.box(Rectangle(width=1.9, height=0.12, stroke_width=0, fill_color=MUTED,
                                    fill_opacity=0.8),
                          self.bound("one row of {f}", 20, INK, f=f"{m}.flat_width"))
        hidden = self.box(self.label("hidden layer", 20), self.bound(
            "{f} → {h}, ReLU", 20, MUTED, f=f"{m}.flat_width", h="trained.hidden"), colour=INK)
        vocab = self.box(self.label("vocabulary layer", 20), self.bound(
            "{h} → {v}", 20, MUTED, h="trained.hidden", v="trained.vocab"))
        row, arrows, numbers = self.counted([rows, joined, hidden, vocab],
                                            [f"{m}.parts.token", None, f"{m}.parts.hidden",
                                             f"{m}.parts.vocab"])
        total = self.total(f"{m}.params")
        picture = VGroup(row, arrows, numbers, total)
        total.next_to(numbers, DOWN, buff=0.55)
        place(picture)
        self.say("The MLP reads a window of {c} tokens: {c} rows of its token table, each "
                 "{w} numbers wide.", Fade(rows), self.point_at(rows), c="trained.context",
                 w="trained.width")
        self.say("It joins them, in order, into one row of {f} numbers.",
                 Fade(arrows[0]), Fade(joined), self.point_at(joined), f=f"{m}.flat_width")
        self.say("No position table is needed: every slot has weights of its own.",
                 self.point_at(rows, joined))
        self.say("Its hidden layer maps those {f} numbers to {h}: {p} weights and biases.",
                 Fade(arrows[1]), Fade(hidden), Fade(hidden.count),
                 self.point_at(hidden, hidden.count), f=f"{m}.flat_width", h="trained.hidden",
                 p=f"{m}.parts.hidden")
        self.say("The token table holds {t} parameters; the vocabulary layer, from {h} to "
                 "{n} tokens, holds {v}.",
                 Fade(arrows[2]), Fade(vocab), Fade(rows.count), Fade(vocab.count),
                 self.point_at(rows.count, vocab.count), t=f"{m}.parts.token",
                 v=f"{m}.parts.vocab", h="trained.hidden", n="trained.vocab")
        self.say("{p} parameters in all.", Fade(total), self.point_at(total),
                 p=f"{m}.params")

    def attention(self, heads: int) -> None:
        """Token and position rows, the attention layer with its masked grids, the last
        row into a narrow prediction MLP."""
        a = f"trained.heads{heads}"
        rows = self.box(self.rows_icon(6), self.label("token table", 20),
                        self.label("+ position table", 20, MUTED))
        grids = VGroup(*(self.masked_grid(self.head_colour(h + 1), 1.7 if heads == 1 else 0.9)
                         for h in range(heads)))
        grids.arrange(RIGHT, buff=0.15)
        pads = self.label("pad sources", 20, MUTED).next_to(grids[0], DOWN, buff=0.12)
        pads.align_to(grids[0], LEFT)
        meaning = VGroup(self.bound("weights, {c} × {c}:", 20, INK, c="trained.context"),
                         self.label("a row per receiver,", 20),
                         self.label("a column per source", 20))
        meaning.arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        weights = VGroup(grids, pads, meaning, self.grid_key(self.head_colour(1)))
        VGroup(weights[2], weights[3]).arrange(DOWN, buff=0.2, aligned_edge=LEFT).next_to(
            grids, RIGHT, buff=0.3).align_to(grids, UP)
        layer = self.box(self.label("Q, K, V and W_O", 20, INK),
                         self.bound("four {w} × {w}", 20, MUTED, w="trained.width"),
                         colour=INK)
        last = self.box(self.label("hidden layer", 20), self.bound(
            "last row, {h} → {n}", 20, MUTED, h="trained.width", n="trained.hidden"))
        vocab = self.box(self.label("vocabulary layer", 20), self.bound(
            "{h} → {v}", 20, MUTED, h="trained.hidden", v="trained.vocab"))
        row, arrows, numbers = self.counted([rows, layer, last, vocab],
                                            [f"{a}.parts.token", f"{a}.parts.attention",
                                             f"{a}.parts.hidden", f"{a}.parts.vocab"])
        position = self.bound("+ {p} for positions", 20, MUTED, p=f"{a}.parts.position")
        position.next_to(rows.count, DOWN, buff=0.15)
        total = self.total(f"{a}.params")
        # under the right-hand counts, level with the positions' line under the first
        total.next_to(numbers, DOWN, buff=0.2).align_to(numbers, RIGHT)
        weights.next_to(layer, UP, buff=0.25).align_to(layer, LEFT)
        picture = VGroup(row, arrows, numbers, position, total, weights)
        total_sum = self.bound("{h} heads × {k} × ({w} × {d}) + {w} × {w} = {p}", 22, INK,
                               h=f"{a}.heads", k="trained.projections", w="trained.width",
                               d=f"{a}.d_head", p=f"{a}.parts.attention")
        if heads != self.heads[0]:  # the heads' sum, said below, has its line under all
            picture.add(total_sum.next_to(VGroup(numbers, position, total), DOWN, buff=0.3))
        place(picture)
        if heads != self.heads[0]:  # the parts around the heads were said for the first
            cut, joined = self.slices(a, heads, layer)
            self.say("{h:head} each take a slice of {d} coordinates from the same "
                     "projections.", Fade(rows), Fade(rows.count), Fade(position),
                     Fade(arrows[0]), Fade(layer), Fade(cut), self.point_at(cut.pieces),
                     h=f"{a}.heads", d=f"{a}.d_head")
            self.say("Each has its own softmax and grid of weights; their messages are joined "
                     "back to {w} before W_O.", Fade(weights), Fade(joined),
                     self.point_at(weights, joined, each=True), w="trained.width")
            self.say("{h} heads times {k} slices of {w} by {d}, plus W_O's {w} by {w}: {p} "
                     "parameters.", Fade(cut, appear=False), Fade(joined, appear=False),
                     Fade(layer.count), Fade(total_sum),
                     self.point_at(total_sum, layer.count, each=True), h=f"{a}.heads",
                     k="trained.projections", w="trained.width", d=f"{a}.d_head",
                     p=f"{a}.parts.attention")
            self.say("Exactly as many as one wide head.", self.point_at(layer.count))
            plus, skip = self.residual(arrows, layer)
            self.say("Everything around them stays as it was: {p} parameters in all.",
                     *(Fade(m) for m in (arrows[1], plus, skip, arrows[2], last, last.count,
                                         vocab, vocab.count, total)),
                     self.point_at(total), p=f"{a}.params")
            return
        self.say("Attention adds a position table, a learned row for each of the {c} places "
                 "in the window: {p} parameters.",
                 Fade(rows), Fade(rows.count), Fade(position),
                 self.point_at(rows, position, each=True),
                 c="trained.context", p=f"{a}.parts.position")
        self.say("With {h:head} of {w} coordinates, Q, K and V, and W_O, are four {w} by {w} "
                 "matrices: {p} parameters.", Fade(arrows[0]), Fade(layer), Fade(layer.count),
                 self.point_at(layer, layer.count), h=f"{a}.heads", w="trained.width",
                 p=f"{a}.parts.attention")
        self.say("Q and K make a {c} by {c} grid of weights: a row per receiver, a column per "
                 "source.", Fade(VGroup(grids, weights[2])), self.point_at(grids, weights[2]),
                 c="trained.context")
        self.say("A prompt shorter than the window is filled out on the left with pads, "
                 "filler tokens.", Fade(pads), self.point_at(pads))
        self.say("The future is blocked, and so are the pads, by the padding mask.",
                 Fade(weights[3]), self.point_at(grids, weights[3], each=True))
        plus, skip = self.residual(arrows, layer)
        self.say("W_O's output is added back to the rows that went in: the residual.",
                 Fade(arrows[1]), Fade(plus), Create(skip), self.point_at(plus))
        self.say("Only the last row goes on: the hidden layer reads just {w} numbers, {p} "
                 "parameters.", Fade(last), Fade(last.count), self.point_at(last, last.count),
                 w="trained.width", p=f"{a}.parts.hidden")
        self.say("With the same vocabulary layer, {p} parameters in all.", Fade(arrows[2]),
                 Fade(vocab), Fade(vocab.count), Fade(total), self.point_at(total),
                 p=f"{a}.params")

    def slices(self, a: str, heads: int, layer: Mobject) -> tuple[VGroup, VGroup]:
        """Under the projections, to their right: one projected row cut into the heads'
        slices (each in its head's colour, its width written under it), and below it the
        heads' messages joined back into one row of the full width."""
        width = 5.2
        pieces = VGroup(*(Rectangle(width=width / heads, height=0.32, stroke_color=BACKGROUND,
                                    stroke_width=3, fill_color=self.head_colour(h + 1),
                                    fill_opacity=0.85) for h in range(heads)))
        pieces.arrange(RIGHT, buff=0)
        sizes = VGroup(*(self.num(f"{a}.d_head", 20, INK, mono=False)
                         .next_to(piece, DOWN, buff=0.05) for piece in pieces))
        name = self.bound("a projected row of {w}, cut into {h:head}", 20, MUTED,
                          w="trained.width", h=f"{a}.heads").next_to(pieces, UP, buff=0.14)
        cut = VGroup(name, pieces, sizes)
        cut.pieces = VGroup(pieces, sizes)
        bar = Rectangle(width=width, height=0.32, stroke_width=0, fill_color=MUTED,
                        fill_opacity=0.8)
        caption = self.bound("their messages, joined: {w} again, into W_O", 20, MUTED,
                             w="trained.width").next_to(bar, DOWN, buff=0.08)
        joined = VGroup(bar, caption).next_to(cut, DOWN, buff=0.3)
        picture = VGroup(cut, joined)
        left, top = layer.get_right()[0] + 0.5, layer.get_bottom()[1] - 0.2
        fit(picture, 6.9 - left, top - CONTENT_BOTTOM)
        picture.next_to([left, top, 0], DOWN + RIGHT, buff=0)
        return cut, joined

    def residual(self, arrows: VGroup, layer: Mobject) -> tuple[VGroup, VMobject]:
        """The ⊕ on the arrow out of the attention layer, and the skip line that brings the
        rows going in round under the layer to it."""
        plus = self.sum_node(arrows[1])
        start, low = arrows[0].get_center(), layer.get_bottom()[1] - 0.14
        skip = VMobject(stroke_color=MUTED, stroke_width=3)
        skip.set_points_as_corners([start, [start[0], low, 0], [plus.get_x(), low, 0],
                                    plus.get_bottom()])
        return plus, skip

    def sum_node(self, link: Mobject) -> VGroup:
        """A small ⊕ on an arrow: where the rows are added back (the residual)."""
        ring = Circle(radius=0.15, color=INK, stroke_width=2.5).set_fill(BACKGROUND, 1.0)
        arms = VGroup(Line(LEFT * 0.08, RIGHT * 0.08), Line(DOWN * 0.08, UP * 0.08))
        arms.set_stroke(INK, 2.5)
        return VGroup(ring, arms).move_to(link.get_center())

    def parts(self) -> None:
        """Each model's count as a bar split by part: attention is small, the MLP's first
        layer is not."""
        order = ("token", "position", "attention", "hidden", "vocab")
        shades = {"token": FAINT, "position": FAINT, "attention": self.head_colour(1),
                  "hidden": INK, "vocab": MUTED}
        largest = max(float(self.v.value(f"trained.{m}.params")) for m in self.models)
        unit = CHART_WIDTH / largest
        rows = []
        for model in self.models:
            segments, x = VGroup(), 0.0
            for part in order:
                if model == "mlp" and part in ("position", "attention"):
                    continue  # the fixed window has neither
                key = f"trained.{model}.parts.{part}"
                length = unit * float(self.v.value(key))
                segments.add(Rectangle(width=max(length, 0.02), height=0.42, stroke_width=1,
                                       stroke_color=BACKGROUND, fill_color=shades[part],
                                       fill_opacity=1).move_to([x + length / 2, 0, 0]))
                segments[-1].part = part
                x += length
            total = self.num(f"trained.{model}.params", 22, INK, mono=False)
            rows.append([self.name_of(model, 22), VGroup(segments, total)])
            total.next_to(segments, RIGHT, buff=0.2)
        table = grid(rows, h_buff=0.4, v_buff=0.5)
        for cell in (row[1] for row in rows):
            cell.align_to(rows[0][1], LEFT)
        legend = VGroup()
        for part, name in (("attention", "attention"), ("hidden", "hidden layer"),
                           ("vocab", "vocabulary layer"), ("token", "token and position tables")):
            swatch = Square(0.22, stroke_width=0, fill_color=shades[part], fill_opacity=1)
            legend.add(VGroup(swatch, self.label(name, 20, MUTED)).arrange(RIGHT, buff=0.12))
        legend.arrange(RIGHT, buff=0.45)
        first = self.heads[0]
        # the attention slices are too thin to see: a callout points at each one
        callouts = VGroup()
        for row in rows[1:]:
            sliver = next(seg for seg in row[1][0] if seg.part == "attention")
            tip = sliver.get_bottom() + DOWN * 0.02
            note = self.label("attention", 18, self.head_colour(1))
            note.next_to(tip, DOWN, buff=0.08).shift(RIGHT * (note.width / 2 + 0.15))
            callouts.add(VGroup(note, Line(tip, note.get_left() + LEFT * 0.04,
                                           color=self.head_colour(1), stroke_width=2)))
        small = VGroup(self.bound("attention {a} · hidden layer with attention {n}", 22, INK,
                                  a=f"trained.heads{first}.parts.attention",
                                  n=f"trained.heads{first}.parts.hidden"),
                       self.bound("hidden layer in the MLP, which reads {f}: {m}", 22, INK,
                                  m="trained.mlp.parts.hidden", f="trained.mlp.flat_width"))
        small.arrange(DOWN, buff=0.15)
        table.add(callouts)
        place(VGroup(table, legend, small).arrange(DOWN, buff=0.4))
        self.say("Side by side, each bar split by part.",
                 LaggedStart(*(Fade(VGroup(*row)) for row in rows), Fade(legend),
                             lag_ratio=0.3), self.point_at(table))
        attention = [seg for row in rows[1:] for seg in row[1][0] if seg.part == "attention"]
        self.say("Attention costs {a} parameters whatever the number of heads: more heads, "
                 "the same width.", Fade(small), Fade(callouts), self.point_at(*attention),
                 a=f"trained.heads{first}.parts.attention")
        wide = [seg for seg in rows[0][1][0] if seg.part == "hidden"]
        self.say("The MLP is the largest: its hidden layer reads all {f} numbers of the "
                 "window.", self.point_at(*wide), f="trained.mlp.flat_width")
        self.say("That is {m} parameters, against {n} for the attention models' hidden "
                 "layer.", self.point_at(small), m="trained.mlp.parts.hidden",
                 n=f"trained.heads{first}.parts.hidden")

    def what_is_measured(self) -> None:
        """No experiment: what a fair comparison of the models measures, and no claim."""
        self.stage("What a comparison measures")
        lines = VGroup(
            self.bound("the same texts, tokenizer, window and number of steps for "
                       "{n:all model}", 24, n="trained.model_count"),
            self.label("perplexity on held-out texts: exp of the cross-entropy, lower is better",
                       24),
            self.label("several seeds per model: the spread is what chance alone does", 24),
            self.label("and the cost: parameters and seconds of training", 24),
        ).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        place(lines)
        self.say("A fair comparison trains {n:all model} on the same texts, with the same "
                 "tokenizer, window and number of steps.", Fade(lines[0]),
                 self.point_at(lines[0]), n="trained.model_count")
        self.say("It measures perplexity on texts none of them trained on: the exponential of "
                 "the cross-entropy, so lower is better.", Fade(lines[1]),
                 self.point_at(lines[1]))
        self.say("It trains each model with several seeds, so that the spread shows what "
                 "chance alone does.", Fade(lines[2]), self.point_at(lines[2]))
        self.say("And it weighs the cost: the parameters, and the seconds of training.",
                 Fade(lines[3]), self.point_at(lines[3]))

    # ----------------------------------------------------------------- results

    def chart(self, metric: str, axis_name: str) -> None:
        """One row per model: a dot per seed on a shared axis from zero with round ticks, the
        mean as a tall tick, the mean and range written at the end; each model named as it
        is pointed at.

        Dot places follow the exact values (read to place them, never shown): the figures
        written beside them are the bound ones.
        """
        seeds = len(self.v.value(f"{RESULTS}.seeds"))
        largest = max(float(self.v.value(f"{RESULTS}.{m}.{metric}_high")) for m in self.models)
        unit = DOT_AXIS / (largest * 1.08)
        rows, marks = [], []
        for model in self.models:
            key = f"{RESULTS}.{model}.{metric}"
            axis = Line([0, 0, 0], [DOT_AXIS, 0, 0], color=FAINT, stroke_width=2)
            dots = VGroup(*(Dot([unit * float(self.v.value(f"{key}[{s}]")), 0, 0], radius=0.09,
                                color=INK, fill_opacity=0.85)
                            for s in range(seeds)))
            mean = unit * float(self.v.value(f"{key}_mean"))
            tick = Line([mean, -0.26, 0], [mean, 0.26, 0], color=MUTED,
                        stroke_width=4)
            figures = VGroup(self.bound("mean {m}", 22, INK, m=f"{key}_mean"),
                             self.bound("from {lo} to {hi}", 22, MUTED, lo=f"{key}_low",
                                        hi=f"{key}_high"))
            figures.arrange(DOWN, buff=0.08, aligned_edge=LEFT)
            rows.append([self.name_of(model, 22), VGroup(axis, dots, tick), figures])
            marks.append((dots, tick))
        table = grid(rows, h_buff=0.45, v_buff=0.4, aligns="lll")
        scale = self.axis_ticks(rows[-1][1][0], unit, metric)
        legend = self.label(axis_name + " · one dot per seed · a tall tick marks the mean", 20,
                            MUTED)
        against = self.bound("{a}.", 24, INK, a=f"{RESULTS}.against_mlp")
        body = VGroup(table, scale)
        if metric == "perplexity":
            meaning = VGroup(self.label("perplexity = exp(mean cross-entropy per token)", 22),
                             self.label("lower is better", 22)).arrange(RIGHT, buff=0.5)
            shown = [body, VGroup(meaning, legend).arrange(DOWN, buff=0.2), against]
        else:
            meaning = self.label("one small run on " + self.machine() + ": timings depend "
                                 "on the hardware", 22)
            shown = [body, VGroup(legend, meaning).arrange(DOWN, buff=0.2)]
        place(VGroup(*shown).arrange(DOWN, buff=0.45))
        frame = [*(Fade(row[0]) for row in rows), *(Fade(row[1][0]) for row in rows),
                 Fade(scale), Fade(legend)]
        if metric == "seconds":
            self.timings(rows, marks, frame, meaning)
            return
        self.say("Perplexity is the exponential of the average cross-entropy on the "
                 "held-out texts.", *frame, Fade(meaning), self.point_at(meaning[0]))
        self.say("The lower it is, the more probability the model gave the tokens that "
                 "really came.", self.point_at(meaning[1]))
        for model, row, (dots, tick) in zip(self.models, rows, marks, strict=True):
            self.say(self.spoken_name(model) + ": {m} on average, from {lo} to {hi}.",
                     LaggedStart(*(Fade(dot) for dot in dots), Fade(tick), Fade(row[2]),
                                 lag_ratio=0.3),
                     self.point_at(row[1], row[2]), **self.figure_keys(model, metric))
        smaller = bool(self.v.value("trained.attention_fewer"))
        self.say("{a}, with fewer parameters." if smaller else "{a}.", Fade(against),
                 self.point_at(against), a=f"{RESULTS}.against_mlp")

    def spoken_name(self, model: str) -> str:
        """A model's name at the start of a sentence (its head count a slot ``{h}``)."""
        return "The fixed-window MLP" if model == "mlp" else "Attention with {h:head}"

    def figure_keys(self, model: str, metric: str) -> dict[str, str]:
        """The keys of a model's mean, lowest and highest figure, and of its head count."""
        key = f"{RESULTS}.{model}.{metric}"
        keys = {"m": f"{key}_mean", "lo": f"{key}_low", "hi": f"{key}_high"}
        if model != "mlp":
            keys["h"] = f"trained.{model}.heads"
        return keys

    def machine(self) -> str:
        """Where the experiment timed its runs, in words: one machine, and its device
        when the experiment names one this scene knows."""
        device = DEVICES.get(str(self.v.value(f"{RESULTS}.device")))
        return "one machine" if device is None else "one machine's " + device

    def timings(self, rows: list[list[Mobject]], marks: list[tuple[VGroup, Line]],
                frame: list[Fade], caveat: Mobject) -> None:
        """Training seconds: where the runs were timed, the lowest mean, the widest range
        (highest less lowest), and why this run cannot rank the models' speed."""
        seeds = LaggedStart(*(Fade(VGroup(dots, tick, row[2]))
                              for row, (dots, tick) in zip(rows, marks, strict=True)),
                            lag_ratio=0.3)
        self.say("Each dot is one seed's seconds of training steps, all timed on "
                 + self.machine() + ".",
                 *frame, seeds)
        fastest = self.models[self.v.value(f"{RESULTS}.lowest_seconds")]
        row = rows[self.models.index(fastest)]
        keys = {slot: key for slot, key in self.figure_keys(fastest, "seconds").items()
                if slot in ("m", "h")}
        self.say(self.spoken_name(fastest) + " has the lowest mean here: {m} seconds.",
                 self.point_at(row[2]), **keys)
        widest = self.models[self.v.value(f"{RESULTS}.widest_seconds")]
        row = rows[self.models.index(widest)]
        keys = self.figure_keys(widest, "seconds")
        del keys["m"]
        self.say("But the seeds spread widely: " + self.spoken_name(widest)[0].lower()
                 + self.spoken_name(widest)[1:] + " took from {lo} to {hi} seconds for the "
                 "same steps.", self.point_at(row[1], row[2]), **keys)
        self.say("Where two models' dots overlap, this run cannot rank their speed.",
                 self.point_at(VGroup(*(r[1] for r in rows))))
        self.say("This is one small run on one machine, and timings depend on the hardware.",
                 Fade(caveat), self.point_at(caveat))
        self.say("A larger run, on another machine, found more heads slightly slower.",
                 self.point_at(*(row[0] for row in rows[1:])))

    def axis_ticks(self, axis: Line, unit: float, metric: str) -> VGroup:
        """Under the lowest axis, its round ticks from zero (``ticks.<metric>``), each at its
        place with a short mark: the chart's scale."""
        key = f"{RESULTS}.ticks.{metric}"
        ticks = VGroup()
        for i, value in enumerate(self.v.value(key)):
            x = axis.get_start() + RIGHT * unit * float(value)
            mark = Line(x + DOWN * 0.36, x + DOWN * 0.48, color=MUTED, stroke_width=2)
            ticks.add(VGroup(mark, self.num(f"{key}[{i}]", 20, MUTED, mono=False)
                             .next_to(mark, DOWN, buff=0.08)))
        return ticks

    def zoom(self) -> None:
        """The attention models' seeds on an axis from their lowest to their highest
        perplexity (both written at its ends): dots that merge on the axis from zero."""
        attention = self.models[1:]
        lowest = self.models[self.v.value(f"{RESULTS}.attention_low")]
        highest = self.models[self.v.value(f"{RESULTS}.attention_high")]
        lo_key, hi_key = (f"{RESULTS}.{lowest}.perplexity_low",
                          f"{RESULTS}.{highest}.perplexity_high")
        lo, hi = float(self.v.value(lo_key)), float(self.v.value(hi_key))
        pad = (hi - lo) * 0.08 or 1.0
        unit = CHART_WIDTH / (hi - lo + 2 * pad)
        seeds = len(self.v.value(f"{RESULTS}.seeds"))
        rows = []
        for model in attention:
            key = f"{RESULTS}.{model}.perplexity"
            axis = Line([0, 0, 0], [CHART_WIDTH, 0, 0], color=FAINT, stroke_width=2)
            dots = VGroup(*(Dot([unit * (float(self.v.value(f"{key}[{i}]")) - lo + pad), 0, 0],
                                radius=0.1, color=INK) for i in range(seeds)))
            rows.append([self.name_of(model, 24), VGroup(axis, dots)])
        table = grid(rows, h_buff=0.45, v_buff=0.6)
        first_axis = rows[-1][1][0]
        ends = VGroup(self.num(lo_key, 22, MUTED, mono=False),
                      self.num(hi_key, 22, MUTED, mono=False))
        ends[0].next_to(first_axis.get_start() + RIGHT * unit * pad, DOWN, buff=0.25)
        ends[1].next_to(first_axis.get_end() - RIGHT * unit * pad, DOWN, buff=0.25)
        marks = VGroup(*(Line(end.get_top() + UP * 0.05, end.get_top() + UP * 0.2,
                              color=MUTED, stroke_width=2) for end in ends))
        note = self.label("zoomed in: the attention models only, one dot per seed", 20, MUTED)
        place(VGroup(VGroup(table, ends, marks), note).arrange(DOWN, buff=0.45))
        self.say("Zoomed in, from {lo} to {hi}: the attention models' seeds, one dot each, "
                 "mingle.", *(Fade(VGroup(*row)) for row in rows), Fade(ends), Fade(marks),
                 Fade(note), self.point_at(table, ends), lo=lo_key, hi=hi_key)

    def continuations(self) -> None:
        prompt = self.bound("“{p} …”", 24, INK, p=f"{RESULTS}.prompt")
        rows = []
        for model in self.models:
            text = self.bound("{c}", 22, INK, c=f"{RESULTS}.{model}.continuations[0]")
            fit(text, CONTENT_WIDTH)  # a long sample shrinks alone, not the figures with it
            rows.append(VGroup(self.name_of(model, 22), text).arrange(DOWN, buff=0.12,
                                                                      aligned_edge=LEFT))
        table = VGroup(*rows).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        note = self.bound("sampled from each model's first seed, seed {s}", 20, MUTED,
                          s=f"{RESULTS}.seeds[0]")
        best = self.models[self.v.value(f"{RESULTS}.lowest_perplexity")]
        reading = self.bound("perplexity {p}: as unsure as a choice among {p} of {v} tokens", 22,
                             INK, p=f"{RESULTS}.{best}.perplexity_mean", v="trained.vocab")
        place(VGroup(prompt, table, note, reading).arrange(DOWN, buff=0.4))
        self.say("Each model, from its first seed, goes on from the lesson's sentence.",
                 Fade(prompt), Fade(note), self.point_at(prompt))
        self.say("Read them side by side: the same prompt, each sampled at the same "
                 "temperature with the same random generator.",
                 LaggedStart(*(Fade(row) for row in rows), lag_ratio=0.4),
                 self.point_at(table))
        self.say("Even the best mean perplexity, {p}, is as unsure as a choice among {p} of "
                 "{v} equally likely tokens.", Fade(reading), self.point_at(reading),
                 p=f"{RESULTS}.{best}.perplexity_mean", v="trained.vocab")
        self.say("So these are word-like pieces, not yet fluent text.", self.point_at(table))

    def verdict(self) -> None:
        self.stage("What this run says")
        headline = self.bound("{v}.", 26, INK, v=f"{RESULTS}.verdict")
        spread = self.bound("{s}.", 26, INK, s=f"{RESULTS}.spread")
        against = self.bound("{a}.", 26, INK, a=f"{RESULTS}.against_mlp")
        positions = self.label("positions are not separated from attention", 24, MUTED)
        caveat = self.label("one experiment on one corpus, not a law", 24, MUTED)
        lines = VGroup(against, headline, spread, positions, caveat)
        for line in lines:  # a long sentence shrinks alone, not the others with it
            fit(line, CONTENT_WIDTH)
        place(lines.arrange(DOWN, buff=0.4))
        self.say("{a}.", Fade(against), self.point_at(against), a=f"{RESULTS}.against_mlp")
        self.say("{v}.", Fade(headline), self.point_at(headline), v=f"{RESULTS}.verdict")
        self.say("{s}.", Fade(spread), self.point_at(spread), s=f"{RESULTS}.spread")
        self.say("Only the attention models have a position table.", Fade(positions),
                 self.point_at(positions))
        self.say("So this run does not separate what positions add from what attention adds.",
                 self.point_at(positions, against, each=True))
        self.say("That is one experiment on one corpus, not a law.", Fade(caveat),
                 self.point_at(caveat))
