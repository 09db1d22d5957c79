"""The trained comparison's three models and their sizes, from the `trained.*` values."""



from manim import (
    DOWN,
    LEFT,
    RIGHT,
    AnimationGroup,
    GrowFromEdge,
    LaggedStart,
    Rectangle,
    Square,
    VGroup,
)

from scenes.kit import (
    INK,
    MUTED,
    Fade,
)
from scenes.kit.palette import NEUTRAL_FILL
from scenes.kit.topic import (
    LibraryScene,
    grid,
    place,
)

__all__ = ["TrainedComparison"]


# --------------------------------------------------------------------------- trained


class TrainedComparison(LibraryScene):
    """The trained comparison's models and their sizes; their results are not ours."""

    def construct(self) -> None:
        self.heads = list(self.ws.lesson.trained.heads)
        self.section("sizes")
        self.stage("The trained models and their sizes")
        self.sizes()

    def model_name(self, heads: int, size: float = 26) -> VGroup:
        """``attention, N heads`` and one small square per head, in its head's colour."""
        name = self.bound("attention, {h:head}", size, INK, h=f"trained.heads{heads}.heads")
        squares = VGroup(*(Square(0.24, stroke_width=0, fill_color=self.head_colour(h + 1),
                                  fill_opacity=1) for h in range(heads)))
        squares.arrange(RIGHT, buff=0.06).next_to(name, RIGHT, buff=0.2)
        return VGroup(name, squares)

    def sizes(self) -> None:
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
        note = self.label("how well each predicts and how long each trains: measured by "
                          "training, not part of this worksheet", 22, MUTED)
        place(VGroup(shared, table, note).arrange(DOWN, buff=0.8))
        self.say("Trained on short stories: vocabulary {v}, context {c}, width {w}.",
                 LaggedStart(Fade(shared), self.point_at(shared),
                             *(Fade(row[0]) for row in rows), lag_ratio=0.5),
                 run_time=3.0, v="trained.vocab", c="trained.context", w="trained.width")
        grows = [AnimationGroup(GrowFromEdge(row[1][0], LEFT), Fade(row[1][1])) for row in rows]
        counts = {self.v.value(f"trained.heads{h}.params") for h in self.heads}
        if len(counts) == 1:  # one width: the head count does not change the size
            self.say("The MLP has {m} parameters;", grows[0],
                     self.point_at(rows[0][0], rows[0][1]), m="trained.mlp.params")
            self.say("attention, with {h:head} or {k}, has {p}.",
                     LaggedStart(*grows[1:], lag_ratio=0.6),
                     self.point_at(*(r[1] for r in rows[1:])),
                     h=f"trained.heads{self.heads[0]}.heads",
                     k=f"trained.heads{self.heads[-1]}.heads",
                     p=f"trained.heads{self.heads[0]}.params")
        else:
            self.say("The fixed-window MLP has {m} parameters.", grows[0],
                     self.point_at(rows[0][0], rows[0][1]), m="trained.mlp.params")
            for h, row, grown in zip(self.heads, rows[1:], grows[1:], strict=True):
                self.say("Attention with {h:head}: {p}.", grown, self.point_at(row[0], row[1]),
                         h=f"trained.heads{h}.heads", p=f"trained.heads{h}.params")
        mlp_first = AnimationGroup(Fade(rows[0][2]), self.point_at(rows[0][2]))
        attention_first = AnimationGroup(Fade(VGroup(*(row[2] for row in rows[1:]))),
                                         self.point_at(*(row[2] for row in rows[1:])))
        self.say("The MLP's first matrix, {m}, reads the whole window; attention's, {a}, one "
                 "token.", LaggedStart(mlp_first, attention_first, lag_ratio=1.0),
                 run_time=6.0, m="trained.mlp.W_hidden",
                 a=f"trained.heads{self.heads[0]}.W_hidden")
        self.say("How well each predicts is measured in training: not part of this worksheet.",
                 Fade(note), self.point_at(note))
