"""The trained comparison's three models: their sizes from the `trained.*` values and, when
the build has an experiment, its results from `trained.results.*`: perplexity and
training time with one dot per seed, each model's continuation of the lesson's sentence,
and the verdict those numbers give."""

from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    AnimationGroup,
    Dot,
    GrowFromEdge,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    Square,
    VGroup,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
    current_experiment,
)
from scenes.kit.palette import FAINT, NEUTRAL_FILL
from scenes.kit.topic import (
    LibraryScene,
    grid,
    place,
)

__all__ = ["TrainedComparison"]

CHART_WIDTH = 6.4
"""Length of a dot chart's axis, from zero to a little past the largest figure."""
RESULTS = "trained.results"


class TrainedComparison(LibraryScene):
    """The trained comparison's models and sizes, then, with an experiment, its results."""

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
        self.section("sizes")
        self.stage("The trained models and their sizes")
        self.sizes(measured)
        if not measured:
            self.section("how to measure")
            self.how_to_measure()
            return
        self.section("perplexity")
        self.stage("Held-out perplexity, one dot per seed")
        self.chart("perplexity", "perplexity on held-out stories: lower is better")
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

    # ----------------------------------------------------------------- sizes

    def sizes(self, measured: bool) -> None:
        shared = self.bound("shared: vocabulary {v} · context {c} · width {w}", 24, MUTED,
                            v="trained.vocab", c="trained.context", w="trained.width")
        entries = [(self.label("fixed-window MLP", 26), "trained.mlp.params",
                    "trained.mlp.W_hidden")]
        entries += [(self.model_name(h), f"trained.heads{h}.params",
                     f"trained.heads{h}.W_hidden") for h in self.heads]
        largest = max(float(self.v.value(key)) for _, key, _ in entries)
        rows = []
        for name, key, first in entries:
            length = max(0.05, 4.6 * float(self.v.value(key)) / largest)
            bar = Rectangle(width=length, height=0.46, stroke_color=MUTED, stroke_width=1.5,
                            fill_color=NEUTRAL_FILL, fill_opacity=1)
            count = self.num(key, 26, mono=False).next_to(bar, RIGHT, buff=0.2)
            rows.append([name, VGroup(bar, count), self.shape("first matrix", first, 22)])
        table = grid(rows, h_buff=0.5, v_buff=0.7)
        for bar_cell in (row[1] for row in rows):
            bar_cell.align_to(rows[0][1], LEFT)
        place(VGroup(shared, table).arrange(DOWN, buff=0.8))
        self.say("Trained on short stories: vocabulary {v}, context {c}, width {w}.",
                 LaggedStart(Fade(shared), self.point_at(shared),
                             *(Fade(row[0]) for row in rows), lag_ratio=0.5),
                 run_time=3.0, v="trained.vocab", c="trained.context", w="trained.width")
        grows = [AnimationGroup(GrowFromEdge(row[1][0], LEFT), Fade(row[1][1])) for row in rows]
        counts = {self.v.value(f"trained.heads{h}.params") for h in self.heads}
        # Without results the shapes come in unsaid: the time goes to what is missing.
        shapes = [] if measured else [Fade(row[2]) for row in rows]
        if len(counts) == 1:  # one width: the head count does not change the size
            self.say("The MLP has {m} parameters;", grows[0], *shapes,
                     self.point_at(rows[0][0], rows[0][1]), m="trained.mlp.params")
            self.say("attention, with {h:head} or {k}, has {p}.",
                     LaggedStart(*grows[1:], lag_ratio=0.6),
                     self.point_at(*(r[1] for r in rows[1:])),
                     h=f"trained.heads{self.heads[0]}.heads",
                     k=f"trained.heads{self.heads[-1]}.heads",
                     p=f"trained.heads{self.heads[0]}.params")
        else:
            self.say("The fixed-window MLP has {m} parameters.", grows[0], *shapes,
                     self.point_at(rows[0][0], rows[0][1]), m="trained.mlp.params")
            for h, row, grown in zip(self.heads, rows[1:], grows[1:], strict=True):
                self.say("Attention with {h:head}: {p}.", grown, self.point_at(row[0], row[1]),
                         h=f"trained.heads{h}.heads", p=f"trained.heads{h}.params")
        if not measured:
            return
        mlp_first = AnimationGroup(Fade(rows[0][2]), self.point_at(rows[0][2]))
        attention_first = AnimationGroup(Fade(VGroup(*(row[2] for row in rows[1:]))),
                                         self.point_at(*(row[2] for row in rows[1:])))
        self.say("The MLP's first matrix, {m}, reads the whole window; attention's, {a}, one "
                 "token.", LaggedStart(mlp_first, attention_first, lag_ratio=1.0),
                 run_time=6.0, m="trained.mlp.W_hidden",
                 a=f"trained.heads{self.heads[0]}.W_hidden")

    def how_to_measure(self) -> None:
        """No experiment in this build: say how to make one, and claim nothing."""
        self.stage("How well each predicts: not measured in this build")
        steps = VGroup(
            self.label("train every model on a story corpus:", 24, MUTED),
            self.code("lecture experiment --corpus stories.txt --out results", 24),
            self.label("then build the lecture with its results:", 24, MUTED),
            self.code("lecture build --experiment results", 24),
        ).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        place(steps)
        self.say("How well each predicts is not measured here: run lecture experiment on "
                 "stories, then build with its results.",
                 LaggedStart(Fade(steps[0]), Fade(steps[1]), Fade(steps[2]), Fade(steps[3]),
                             lag_ratio=0.5), self.point_at(steps))

    # ----------------------------------------------------------------- results

    def chart(self, metric: str, axis_name: str) -> None:
        """One row per model: a dot per seed on a shared axis from zero, the mean as a
        tick, the mean and range written at the end; each model named as it is pointed at.

        Dot places follow the exact values (read to place them, never shown): the figures
        written beside them are the bound ones.
        """
        seeds = len(self.v.value(f"{RESULTS}.seeds"))
        largest = max(float(self.v.value(f"{RESULTS}.{m}.{metric}_high")) for m in self.models)
        unit = CHART_WIDTH / (largest * 1.08)
        rows, marks = [], []
        for model in self.models:
            key = f"{RESULTS}.{model}.{metric}"
            axis = Line([0, 0, 0], [CHART_WIDTH, 0, 0], color=FAINT, stroke_width=2)
            dots = VGroup(*(Dot([unit * float(self.v.value(f"{key}[{s}]")), 0, 0], radius=0.09,
                                color=INK, fill_opacity=0.85)
                            for s in range(seeds)))
            mean = unit * float(self.v.value(f"{key}_mean"))
            tick = Line([mean, -0.26, 0], [mean, 0.26, 0], color=MUTED,
                        stroke_width=4)
            figures = self.bound("mean {m}, from {lo} to {hi}", 22, INK, m=f"{key}_mean",
                                 lo=f"{key}_low", hi=f"{key}_high")
            rows.append([self.name_of(model, 24), VGroup(axis, dots, tick), figures])
            marks.append((dots, tick))
        table = grid(rows, h_buff=0.45, v_buff=0.55, aligns="lll")
        legend = self.label(axis_name + "; a tick marks the mean", 20, MUTED)
        place(VGroup(table, legend).arrange(DOWN, buff=0.45))
        frame = [*(Fade(row[0]) for row in rows), *(Fade(row[1][0]) for row in rows),
                 Fade(legend)]
        template = "{name}: {m} on average, from {lo} to {hi}." if metric == "perplexity" \
            else "{name}: {m} seconds on average, from {lo} to {hi}."
        for model, row, (dots, tick) in zip(self.models, rows, marks, strict=True):
            key = f"{RESULTS}.{model}.{metric}"
            spoken = "The fixed-window MLP" if model == "mlp" else "Attention with {h:head}"
            keys = {"m": f"{key}_mean", "lo": f"{key}_low", "hi": f"{key}_high"}
            if model != "mlp":
                keys["h"] = f"trained.{model}.heads"
            self.say(template.replace("{name}", spoken), *frame,
                     LaggedStart(*(Fade(dot) for dot in dots), Fade(tick), Fade(row[2]),
                                 lag_ratio=0.3),
                     self.point_at(row[1], row[2]), **keys)
            frame = []  # the axes and names came with the first model

    def continuations(self) -> None:
        prompt = self.bound("“{p} …”", 24, INK, p=f"{RESULTS}.prompt")
        rows = []
        for model in self.models:
            text = self.bound("{c}", 20, MUTED, c=f"{RESULTS}.{model}.continuations[0]")
            rows.append([self.name_of(model, 22), text])
        table = grid(rows, h_buff=0.45, v_buff=0.45)
        note = self.bound("sampled from each model's first seed, seed {s}", 20, MUTED,
                          s=f"{RESULTS}.seeds[0]")
        place(VGroup(prompt, table, note).arrange(DOWN, buff=0.5))
        self.say("Each model, from its first seed, goes on from the lesson's sentence.",
                 Fade(prompt), Fade(note), self.point_at(prompt))
        self.say("Read them side by side: the same prompt, the same sampling.",
                 LaggedStart(*(Fade(VGroup(*row)) for row in rows), lag_ratio=0.4),
                 self.point_at(table))

    def verdict(self) -> None:
        self.stage("What this run says")
        headline = self.bound("{v}.", 26, INK, v=f"{RESULTS}.verdict")
        spread = self.bound("{s}.", 26, INK, s=f"{RESULTS}.spread")
        caveat = self.label("one experiment on one corpus, not a law", 24, MUTED)
        place(VGroup(headline, spread, caveat).arrange(DOWN, buff=0.45))
        self.say("{v}.", Fade(headline), self.point_at(headline), v=f"{RESULTS}.verdict")
        self.say("{s}.", Fade(spread), self.point_at(spread), s=f"{RESULTS}.spread")
        self.say("That is one experiment on one corpus, not a law.", Fade(caveat),
                 self.point_at(caveat))
