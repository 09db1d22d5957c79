"""One way to fade: opacity scaled in place, without Manim's deep copies."""

from __future__ import annotations

from typing import Any

from manim import Animation, Group, Mobject, Scene, VMobject


class Fade(Animation):
    """Fade mobjects in or out by scaling each part's own opacity, without copying them.

    Manim's ``FadeIn``/``FadeOut`` deep-copy everything they touch, which is slow for
    tables of numbers; this keeps every part's fill and stroke opacities (so shading by
    weight survives) and scales them by the animation's progress. A fade-out takes the
    mobjects off screen and restores their opacities.
    """

    def __init__(self, *mobjects: Mobject, appear: bool = True, **kwargs: Any) -> None:
        self.members, self.appear = mobjects, appear
        group = Group(*mobjects)
        self.parts = [(part, part.fill_rgbas[:, 3].copy(), part.stroke_rgbas[:, 3].copy())
                      for part in group.family_members_with_points()
                      if isinstance(part, VMobject)]
        super().__init__(group, **kwargs)

    def create_starting_mobject(self) -> Mobject:
        return self.mobject

    def _setup_scene(self, scene: Scene) -> None:
        if self.appear:
            scene.add(*self.members)

    def interpolate_mobject(self, alpha: float) -> None:
        progress = self.rate_func(alpha)
        self.set_opacity(progress if self.appear else 1.0 - progress)

    def set_opacity(self, share: float) -> None:
        """Each part at ``share`` of its own opacities (written straight into its colours,
        which is much cheaper than ``set_fill`` for hundreds of glyphs)."""
        for part, fill, stroke in self.parts:
            part.fill_rgbas[:, 3] = fill * share
            part.stroke_rgbas[:, 3] = stroke * share

    def clean_up_from_scene(self, scene: Scene) -> None:
        super().clean_up_from_scene(scene)
        if not self.appear:
            scene.remove(*self.members)
            self.set_opacity(1.0)


def fade_in(*mobjects: Mobject) -> Fade:
    """Bring mobjects on screen, fading them in without copies."""
    return Fade(*mobjects)


def fade_out(*mobjects: Mobject) -> Fade:
    """Fade mobjects out without copies and take them off screen."""
    return Fade(*mobjects, appear=False)
