"""Manim scenes for every part of the lesson, one module per topic, and their kit.

Importing this package does not import Manim; the running order is :mod:`outline`,
shared with the slides and the render command.
"""

DRAWN = "LECTURE_DRAWN"
"""The environment variable that says which frames a render draws: ``ends`` draws only
the picture each animation ends on (see :meth:`scenes.kit.scene.LectureScene.play_internal`);
otherwise every frame."""
ENDS_ONLY = "ends"


def drawing(quality: str) -> dict[str, str]:
    """The environment that tells a scene process which frames to draw at ``quality``:
    the draft quality draws each animation's end only."""
    return {DRAWN: ENDS_ONLY if quality == "draft" else ""}
