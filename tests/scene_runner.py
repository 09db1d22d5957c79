"""Run lecture scenes without writing video and return what they showed, as plain data.

Scenes run with Manim's dry run and skipped animations: construct runs in full, every
section end is recorded from the mobjects, and nothing is drawn, encoded or spoken (narration
``none``: each step lasts its reading time). Work is spread over
worker processes (one Manim per process, like the render command).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import tempfile
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from outline import SceneEntry
from tests.crossing import drawn, glance, layout_faults

PROBES = {"PyTorchLayer": "tests.test_pytorch_teaching:Probe",
          "RolesAndShapes": "tests.test_layer_teaching:GridProbe",
          "OneHeadTwoHeads": "tests.test_story_teaching:ShapesProbe"}
"""Scenes whose tests read more than a dry run records: a mixin class (``module:name``)
that takes notes during the run and gives them from its ``probed()``, as the run's
``probed``. It is mixed into every dry run of the scene, so the tests need no run of
their own."""


def _probed(name: str, cls: type) -> type:
    if name not in PROBES:
        return cls
    where, attribute = PROBES[name].split(":")
    probe = getattr(importlib.import_module(where), attribute)
    return type(cls.__name__, (probe, cls), {})


def _run(entry: SceneEntry, worksheet: str, values: str = "") -> dict[str, Any]:
    os.environ["LECTURE_WORKSHEET"] = worksheet
    os.environ["LECTURE_VALUES"] = values  # as a build hands them over (none: computed)
    os.environ["LECTURE_NARRATION"] = "none"  # paced by reading time: nothing to synthesise
    from manim import tempconfig

    try:
        module = importlib.import_module(f"scenes.{entry.module}")
        if entry.family is not None:
            cls = type(entry.name, (getattr(module, entry.family),), {"head": entry.head})
        else:
            cls = getattr(module, entry.name)
        cls = _probed(entry.name, _watched(cls))
        # A media folder per worker: Manim's text cache is not safe to share while writing.
        media = Path(tempfile.gettempdir()) / f"lecture-tests-media-{os.getpid()}"
        with tempconfig({"dry_run": True, "quality": "low_quality", "disable_caching": True,
                         "verbosity": "ERROR", "progress_bar": "none",
                         "media_dir": str(media)}):
            scene = cls(skip_animations=True)
            # Nothing is encoded: drawing each frame would only cost time (a sixth of it).
            scene.renderer.camera.capture_mobjects = lambda *_, **__: None
            scene.render()
            manifest = scene.manifest()  # inside the settings it ran with (frame rate)
            probed = scene.probed() if entry.name in PROBES else None
    except Exception:  # reported to the test, which fails with the traceback
        return {"scene": entry.name, "error": traceback.format_exc()}
    return {"scene": entry.name, "error": None, "manifest": manifest,
            "faults": scene.layout_faults, "rests": scene.rests, "pointed": scene.pointed,
            "changes": scene.changes, "outlined": scene.outlined, "probed": probed,
            "sections": [{"name": s.name, "texts": [asdict(t) for t in s.texts]}
                         for s in scene.sections]}


def _outline_record(outline: Any, mobs: tuple[Any, ...], caption: int,
                    each: bool) -> dict[str, Any]:
    """What one pointer draws and goes round (see ``Watched.outlined``)."""
    from manim import Text

    from scenes.kit.record import pixel_box
    from scenes.kit.text import Bound

    parts = list(outline.submobjects) if each and len(mobs) > 1 else [outline]
    family = [part for mob in mobs for part in mob.get_family()]
    return {"caption": caption, "boxes": [pixel_box([part]) for part in parts],
            "keys": [key for part in family if isinstance(part, Bound)
                     for key, _ in part.figures],
            "texts": [part.original_text for part in family if isinstance(part, Text)]}


def _watched(cls: type) -> type:
    """The scene class, noting after every animation and at every section end where the
    picture at rest breaks the layout rules (:mod:`tests.crossing`), each fault once."""

    class Watched(cls):  # type: ignore[misc, valid-type]
        layout_faults: list[str]
        rests: list[tuple[float, int]]
        """After every animation: when it ended and how many shapes were shown under the
        title band."""
        changes: list[tuple[float, float]]
        """The animations after which the picture differs from before: (start, end)."""
        pointed: list[list[Any]]
        """Each pointer's outline: the caption it was made with (counted from zero), and
        the ends of the first and the last animation after which it was shown."""
        outlined: list[dict[str, Any]]
        """Each pointer as drawn, in the same order: the caption it was made with, the
        pixel box ``(left, top, right, bottom)`` of each outline it draws, and the value
        keys and the texts of what it goes round."""

        def setup(self) -> None:
            self.layout_faults, self.rests, self.pointed, self.changes = [], [], [], []
            self.outlined = []
            self._outlines: list[tuple[Any, int]] = []
            super().setup()

        def point_at(self, *mobs: Any, **kwargs: Any) -> Any:
            made = super().point_at(*mobs, **kwargs)
            self.outlined.append(_outline_record(self._pointer, mobs, len(self.captions),
                                                 each=bool(kwargs.get("each"))))
            # pointed at with the sentence about to be said (a step's animations are made
            # as its arguments)
            self._outlines.append((self._pointer, len(self.captions)))
            self.pointed.append([len(self.captions), None, None])
            return made

        def play(self, *animations: Any, **kwargs: Any) -> None:
            before, start = drawn(self.mobjects), round(float(self.time), 3)
            super().play(*animations, **kwargs)
            self.note_layout()
            now = round(float(self.time), 3)
            after, below = glance(self.mobjects)
            if now > start and after != before:
                self.changes.append((start, now))
            self.rests.append((now, below))
            shown = {id(m) for m in self.get_mobject_family_members()}
            for (outline, _), seen in zip(self._outlines, self.pointed, strict=True):
                if id(outline) in shown:
                    seen[1] = now if seen[1] is None else seen[1]
                    seen[2] = now

        def _record_section(self) -> None:
            self.note_layout()
            super()._record_section()

        def note_layout(self) -> None:
            for fault in layout_faults(self.mobjects):
                said = f"{self._section}: {fault}"
                if not any(noted.endswith(said) for noted in self.layout_faults):
                    self.layout_faults.append(f"{float(self.time):.1f} s, {said}")

    Watched.__name__ = Watched.__qualname__ = cls.__name__  # the manifest names the scene
    return Watched


def _hand_values(worksheets: set[str], folder: Path) -> dict[str, str]:
    """Each worksheet's values, computed here once and handed to the scenes' processes as
    a build does; the files by worksheet."""
    from worksheet import compute_values, hand_values, load_worksheet

    handed = {}
    for number, path in enumerate(sorted(worksheets)):
        ws = load_worksheet(Path(path))
        handed[path] = str(folder / f"values-{number}.pickle")
        hand_values(compute_values(ws), Path(handed[path]), ws)
    return handed


_DONE: dict[tuple[SceneEntry, str, bool], dict[str, Any]] = {}
"""Dry runs already made in this test session: a run depends only on the scene, the
worksheet and the full-heads option, so the test files share them."""


def run_scenes(jobs: list[tuple[SceneEntry, Path]],
               workers: int = 2) -> dict[tuple[str, str], dict[str, Any]]:
    """Dry-run each (scene, worksheet) pair; results by (worksheet path, scene name)."""
    option = os.environ.get("LECTURE_FULL_HEADS", "").strip().lower() in ("1", "true", "yes",
                                                                          "on")
    keys = [(entry, str(path), option) for entry, path in jobs]
    missing = list(dict.fromkeys(key for key in keys if key not in _DONE))
    if missing:
        context = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked torch
        with tempfile.TemporaryDirectory(prefix="lecture-tests-values-") as folder, \
                ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            handed = _hand_values({path for _, path, _ in missing}, Path(folder))
            made = pool.map(_run, [entry for entry, _, _ in missing],
                            [path for _, path, _ in missing],
                            [handed[path] for _, path, _ in missing])
            _DONE.update(zip(missing, made, strict=True))
    return {(path, entry.name): _DONE[(entry, path, option)] for entry, path, _ in keys}
