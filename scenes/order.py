"""The lecture's running order: which scene comes when, and which lesson part it shows.

Light on purpose (no Manim import): the render command, the slides and the checks read
it. Per-head walkthrough scenes are generated, one per head of the worksheet.
"""

from __future__ import annotations

from dataclasses import dataclass

from worksheet import Worksheet

__all__ = ["LIMITS", "PARTS", "LayoutLimitError", "SceneEntry", "check_limits", "lecture_order",
           "video_stem"]

LIMITS = {"heads": 4, "tokens": 12, "width": 8}
"""The most the scenes lay out legibly at 854×480."""


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


# (part id, module, class name, title); "{h}" marks the per-head walkthrough.
PARTS: tuple[tuple[str, str, str, str], ...] = (
    ("prompt", "story", "RiverBankPrompt", "The river-bank prompt"),
    ("details", "story", "SeveralKindsOfDetail", "One token needs several kinds of detail"),
    ("one-two-heads", "story", "OneHeadTwoHeads", "One head, two heads, and the two-source toy"),
    ("readings", "story", "SettingAndPerson", "Setting and person readings"),
    ("roles-shapes", "story", "MayaRecall", "Recall: query, key and value"),
    ("roles-shapes", "layer", "RolesAndShapes", "Query, key, value and every shape"),
    ("projections", "layer", "ReceiverProjections", "Projections for the final receiver"),
    ("head-walkthrough", "walkthrough", "HeadWalkthrough{h}", "Head {h}, step by step"),
    ("wide-head", "layer", "OneWideHead", "One wide head against separate heads"),
    ("combine", "combine", "ConcatOutputResidual", "Concatenate, W_O, residual"),
    ("prediction", "combine", "PredictionMLP", "The prediction MLP"),
    ("other-context", "combine", "OtherContext", "The other bank"),
    ("grids", "grids", "AttentionGrids", "Attention grids"),
    ("bias", "library", "BiasFlag", "The bias flag"),
    ("pytorch", "library", "PyTorchLayer", "nn.MultiheadAttention with copied weights"),
    ("trained", "library", "TrainedComparison", "The trained comparison's three models"),
    ("patches", "library", "ImagePatches", "Image patches as embedding rows"),
    ("lab", "library", "BatchLab", "The batch lab"),
)


def lecture_order(n_heads: int) -> tuple[SceneEntry, ...]:
    """Every scene in lecture order, with one walkthrough scene per head."""
    entries: list[SceneEntry] = []
    for part, module, name, title in PARTS:
        if "{h}" in name:
            entries += [SceneEntry(name.format(h=h), module, part, title.format(h=h), h,
                                   name.replace("{h}", ""))
                        for h in range(1, n_heads + 1)]
        else:
            entries.append(SceneEntry(name, module, part, title))
    return tuple(entries)


def video_stem(entries: tuple[SceneEntry, ...], name: str) -> str:
    """File stem of a rendered scene: ``NN-<Scene>``, NN its place in lecture order."""
    for number, entry in enumerate(entries, start=1):
        if entry.name == name:
            return f"{number:02d}-{name}"
    raise KeyError(f"no scene named {name!r}")
