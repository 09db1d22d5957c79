"""The lesson's outline: its parts in running order, each one typed record that the
scenes, the slides and the render command all read.

Light on purpose (no Manim, no torch): a part names its scene module, its scenes and the
steps of the model it is about (lit on the model map when the part begins). Per-head
walkthrough scenes are generated, one per head of the worksheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from worksheet import Worksheet

__all__ = [
    "LIMITS",
    "PARTS",
    "STEPS",
    "STEP_NAMES",
    "TITLE",
    "LayoutLimitError",
    "Part",
    "SceneEntry",
    "check_limits",
    "lecture_order",
    "part",
    "video_stem",
]

TITLE = "Multi-head attention, step by step"
"""The lecture's title: of the deck, the script and the storyboard."""

LIMITS = {"heads": 4, "tokens": 12, "width": 8}
"""The most the scenes lay out legibly at 854×480."""

STEPS = ("embeddings", "heads", "concat", "W_O", "residual", "MLP", "prediction")
"""The model map's boxes, in the order data flows through the layer."""
STEP_NAMES = {"embeddings": "the token and position embeddings", "heads": "the attention heads",
              "concat": "joining the heads", "W_O": "the output projection W_O",
              "residual": "the residual", "MLP": "the MLP", "prediction": "the next word"}
"""How the narration names each step."""


class LayoutLimitError(ValueError):
    """The worksheet is larger than the scenes can lay out legibly."""


def check_limits(ws: Worksheet) -> None:
    """Refuse worksheets the frame cannot hold, naming the limit.

    Raises
    ------
    LayoutLimitError
        When heads, tokens or model width exceed :data:`LIMITS`.
    """
    found = {"heads": ws.n_heads, "tokens": ws.length, "width": ws.d_model}
    for name, limit in LIMITS.items():
        if found[name] > limit:
            raise LayoutLimitError(f"{ws.source}: the scenes lay out at most {limit} {name}, "
                                   f"this worksheet has {found[name]}")


@dataclass(frozen=True)
class Part:
    """One part of the lesson: a stack of slides and the clips that show it."""

    id: str
    """Shared by the slides (a stack per part) and the clips (attached to their part)."""
    scenes: tuple[tuple[str, str, str], ...]
    """``(module, class name, title)`` of each scene, in order: the module is the file under
    ``scenes/`` that defines it; ``{h}`` in name and title marks a scene made once per head."""
    steps: tuple[str, ...]
    """Which of :data:`STEPS` the part is about."""
    opening: str = ""
    """The sentence its first clip opens with, over the model map with :attr:`steps` lit:
    where the part is in the model and why it is there (none when the clip draws its own
    map)."""

    def __post_init__(self) -> None:
        unknown = [step for step in self.steps if step not in STEPS]
        if unknown or not self.scenes:
            raise ValueError(f"part {self.id}: unknown steps {unknown} or no scenes")


@dataclass(frozen=True)
class SceneEntry:
    """One scene of the lecture."""

    name: str
    """Scene class name, as given to ``manim`` on the command line."""
    module: str
    """File under ``scenes/`` (without ``.py``) that defines the scene."""
    part: str
    """Lesson part id, shared with the slides (which attach this scene's clip there)."""
    title: str
    head: int | None = None
    """For per-head scenes: the head, counted from one."""
    family: str | None = None
    """For per-head scenes: the class they are generated from (e.g. ``HeadWalkthrough``)."""


PARTS: tuple[Part, ...] = (
    Part("prompt", (("story", "RiverBankPrompt", "The river-bank prompt"),), ("prediction",),
         opening=("Everything in this lesson serves the last box of the model: a guess for "
                  "the next word.")),
    Part("recall", (("story", "MayaRecall", "Recall: query, key and value"),), ("heads",),
         opening=("First, a recall from Part II: attention makes three things from each row "
                  "it reads, a query, a key and a value.")),
    Part("details", (("story", "SeveralKindsOfDetail",
                      "One token needs several kinds of detail"),), ("heads",),
         opening=("Now the question of this lesson: why one word may want more than one "
                  "reading of its context.")),
    Part("one-two-heads", (("story", "OneHeadTwoHeads",
                            "One head, two heads, and the two-source toy"),), ("heads",),
         opening=("Still in the attention heads: one head makes one mixture, several heads "
                  "make several.")),
    Part("readings", (("story", "SettingAndPerson", "Setting and person readings"),),
         ("heads",),
         opening=("The heads again, now on our own sentence, where each one favours "
                  "different words.")),
    Part("roles-shapes", (("layer", "RolesAndShapes", "Query, key, value and every shape"),),
         ("embeddings", "heads"),
         opening=("From the embeddings into the heads: the query, key and value a head "
                  "makes from each row.")),
    Part("projections", (("projections", "ReceiverProjections",
                          "Projections for the final receiver"),), ("heads",)),
    Part("head-walkthrough", (("walkthrough", "HeadWalkthrough{h}",
                               "Head {h}, step by step"),), ("heads",),
         opening=("Now inside a single head, one step at a time, with every number "
                  "computed.")),
    Part("wide-head", (("wide", "OneWideHead", "One wide head against separate heads"),),
         ("heads",)),
    Part("combine", (("combine", "ConcatOutputResidual", "Concatenate, W_O, residual"),),
         ("concat", "W_O", "residual"),
         opening=("After the heads come three steps: joining their messages, the output "
                  "projection W_O, and the residual.")),
    Part("prediction", (("combine", "PredictionMLP", "The prediction MLP"),),
         ("MLP", "prediction"),
         opening=("The last two boxes: the MLP turns the updated row into a guess for the "
                  "next word.")),
    Part("other-context", (("combine", "OtherContext", "The other bank"),),
         ("heads", "prediction"),
         opening=("The heads and the prediction once more, now for the worksheet's other "
                  "sentences.")),
    Part("grids", (("grids", "AttentionGrids", "Attention grids"),), ("heads", "concat"),
         opening=("Every receiver at once: each head's weights as a grid, and the messages "
                  "they join into.")),
    Part("bias", (("bias", "BiasFlag", "The bias flag"),), ("heads",),
         opening=("A detail inside the heads: whether their projections carry a bias.")),
    Part("pytorch", (("pytorch", "PyTorchLayer", "nn.MultiheadAttention with copied weights"),),
         ("heads", "concat", "W_O"),
         opening=("The heads, the join and W_O together, as PyTorch's own attention layer "
                  "computes them.")),
    Part("trained", (("trained", "TrainedComparison", "Trained models compared"),),
         STEPS),
    Part("patches", (("patches", "ImagePatches", "Image patches as embedding rows"),),
         ("embeddings", "heads", "prediction"),
         opening=("For an image, pixel patches give the rows, one extra row joins them, "
                  "nothing is masked, and a classifier replaces the next word.")),
    Part("lab", (("lab", "BatchLab", "The batch lab"),), ("embeddings", "heads", "concat"),
         opening=("From the embeddings through the heads and the join, for a whole batch of "
                  "sentences at once.")),
)
"""The lesson, part by part, in running order."""


def part(part_id: str) -> Part:
    """The part with this id."""
    for candidate in PARTS:
        if candidate.id == part_id:
            return candidate
    raise KeyError(f"no lesson part {part_id!r}")


def lecture_order(n_heads: int) -> tuple[SceneEntry, ...]:
    """Every scene in lecture order, with one walkthrough scene per head."""
    entries: list[SceneEntry] = []
    for lesson_part in PARTS:
        for module, name, title in lesson_part.scenes:
            if "{h}" in name:
                entries += [SceneEntry(name.format(h=h), module, lesson_part.id,
                                       title.format(h=h), h, name.replace("{h}", ""))
                            for h in range(1, n_heads + 1)]
            else:
                entries.append(SceneEntry(name, module, lesson_part.id, title))
    return tuple(entries)


def video_stem(entries: tuple[SceneEntry, ...], name: str) -> str:
    """File stem of a rendered scene: ``NN-<Scene>``, NN its place in lecture order."""
    for number, entry in enumerate(entries, start=1):
        if entry.name == name:
            return f"{number:02d}-{name}"
    raise KeyError(f"no scene named {name!r}")
