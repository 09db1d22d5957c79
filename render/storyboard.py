"""The reviewers' storyboard: the whole lecture on one static page, ``DIR/storyboard.html``.

Each built scene appears in lecture order with its title and duration and, for every
section, the frame at the section's end (decoded from the clip, saved as a small JPEG in
``DIR/storyboard/``) above the captions spoken in that section. A caption belongs to the
first section whose end, ``(frame + 1) / frame_rate`` seconds, is at or after the
caption's midpoint (one that ends after the last section goes with the last).

The page is plain HTML and CSS, escaped by Jinja's autoescape, and loads nothing from
another host. ``records/storyboard.json`` holds the sha256 of the page and of every image,
and for each image what it was taken from (the clip's sha256, the frame, the size and the
code that made it): a build extracts again only the frames whose source changed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from outputs.files import OutputError, file_digest, write_json, write_text
from outputs.html import read_html
from render.closure import ROOT, import_closure

__all__ = ["FOLDER", "PAGE", "RECORD", "WIDTH", "Board", "Caption", "Clip", "Panel",
           "ShownPanel", "ShownScene", "Storyboard", "StoryboardError", "WriteResult",
           "built_clips", "image_code", "image_path", "image_size", "read_page", "section_captions",
           "storyboard_context", "storyboard_html", "write_storyboard"]

PAGE = "storyboard.html"
FOLDER = "storyboard"
RECORD = "records/storyboard.json"
WIDTH = 427
"""Width of every frame image, in pixels (half of the 854 px of a ``-ql`` clip)."""
QUALITY = 85
"""JPEG quality of the frame images."""
TEMPLATES = Path(__file__).parent / "templates"
MODULE = "render/storyboard.py"


class StoryboardError(OutputError):
    """A clip cannot give the frames its manifest names; the message says which."""


# --------------------------------------------------------------------------- context


@dataclass(frozen=True)
class Caption:
    index: int
    start: float
    end: float
    text: str

    @property
    def clock(self) -> str:
        """Its start as ``m:ss.s``."""
        minutes, seconds = divmod(self.start, 60)
        return f"{int(minutes)}:{seconds:04.1f}"


@dataclass(frozen=True)
class Panel:
    """One section of a scene: the frame at its end and what was said in it."""

    number: int
    """The section's place in its scene, from one."""
    name: str
    frame: int
    end: float
    """Seconds into the clip at which the section ends."""
    image: str
    """The frame image, relative to the page."""
    width: int
    height: int
    captions: tuple[Caption, ...]


@dataclass(frozen=True)
class Board:
    """One scene of the lecture."""

    stem: str
    scene: str
    title: str
    duration: float
    panels: tuple[Panel, ...]

    @property
    def number(self) -> str:
        return self.stem.split("-", 1)[0]


@dataclass(frozen=True)
class Storyboard:
    title: str
    boards: tuple[Board, ...]
    width: int = WIDTH
    """Width of the frame images, in pixels."""

    @property
    def duration(self) -> float:
        return sum(board.duration for board in self.boards)

    @property
    def images(self) -> int:
        return sum(len(board.panels) for board in self.boards)


@dataclass(frozen=True)
class Clip:
    """One built scene as the storyboard reads it."""

    stem: str
    scene: str
    title: str
    video: str
    """The clip, relative to the build folder."""
    digest: str
    """The clip's sha256, as its record holds it."""
    manifest: Mapping[str, Any]


def image_path(stem: str, number: int) -> str:
    """Where the image of a scene's ``number``-th section end goes, relative to the build."""
    return f"{FOLDER}/{stem}-{number}.jpg"


def image_size(manifest: Mapping[str, Any]) -> tuple[int, int]:
    """``(width, height)`` of a frame image: :data:`WIDTH` wide, the clip's aspect ratio."""
    width, height = (int(n) for n in manifest.get("frame_size", (854, 480)))
    return WIDTH, max(1, round(WIDTH * height / width))


def section_captions(sections: Sequence[Mapping[str, Any]],
                     captions: Sequence[Mapping[str, Any]], frame_rate: float
                     ) -> list[list[int]]:
    """For each section, the positions in ``captions`` of the captions spoken in it.

    A caption belongs to the first section whose end, ``(frame + 1) / frame_rate``, is at
    or after its midpoint; a caption after the last section's end goes with the last.
    """
    ends = [(int(section["frame"]) + 1) / frame_rate for section in sections]
    groups: list[list[int]] = [[] for _ in sections]
    if not sections:
        return groups
    for position, caption in enumerate(captions):
        middle = (float(caption["start"]) + float(caption["end"])) / 2
        place = next((i for i, end in enumerate(ends) if end >= middle), len(ends) - 1)
        groups[place].append(position)
    return groups


def storyboard_context(title: str, clips: Iterable[Clip]) -> Storyboard:
    """The page's content for ``clips`` in lecture order, with each manifest's captions."""
    boards = []
    for clip in clips:
        manifest = clip.manifest
        captions = manifest.get("captions", [])
        sections = manifest.get("sections", [])
        rate = float(manifest.get("frame_rate", 15))
        width, height = image_size(manifest)
        panels = []
        for number, (section, group) in enumerate(
                zip(sections, section_captions(sections, captions, rate), strict=True), 1):
            panels.append(Panel(
                number, str(section["name"]), int(section["frame"]),
                (int(section["frame"]) + 1) / rate, image_path(clip.stem, number), width, height,
                tuple(Caption(int(captions[i]["index"]), float(captions[i]["start"]),
                              float(captions[i]["end"]), str(captions[i]["text"]))
                      for i in group)))
        boards.append(Board(clip.stem, clip.scene, clip.title,
                            float(manifest.get("duration", 0.0)), tuple(panels)))
    return Storyboard(title, tuple(boards))


def storyboard_html(board: Storyboard) -> str:
    """The page for ``board``."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)
    return environment.get_template("storyboard.html.j2").render(board=board)


# --------------------------------------------------------------------------- reading back


@dataclass
class ShownPanel:
    """A panel as a page shows it: its image and its captions ``(index, text)``."""

    image: str | None = None
    captions: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class ShownScene:
    scene: str
    panels: list[ShownPanel] = field(default_factory=list)


def read_page(html: str) -> list[ShownScene]:
    """The scenes, frame images and caption texts a storyboard page shows, in order."""
    scenes = []
    for section in read_html(html).iter("section"):
        if not section.attrs.get("data-scene"):
            continue
        scene = ShownScene(str(section.attrs["data-scene"]))
        for figure in section.iter("figure"):
            image = next(figure.iter("img"), None)
            scene.panels.append(ShownPanel(
                None if image is None else image.attrs.get("src"),
                [(int(str(span.attrs["data-caption"])), span.text) for span in figure.iter()
                 if span.attrs.get("data-caption") is not None]))
        scenes.append(scene)
    return scenes


# --------------------------------------------------------------------------- writing


@dataclass(frozen=True)
class WriteResult:
    extracted: int
    reused: int

    def summary(self) -> str:
        return f"{self.extracted} frames extracted, {self.reused} reused"


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def built_clips(out: Path, names: Iterable[str], titles: Mapping[str, str]) -> list[Clip]:
    """The built scenes ``names`` (in lecture order) that have a recorded clip and manifest."""
    clips = []
    for name in names:
        record = _read_json(out / "records" / f"{name}.json") or {}
        outputs = record.get("outputs", {})
        video = next((rel for rel in outputs if rel.endswith(".mp4")), None)
        manifest_rel = next((rel for rel in outputs if rel.endswith(".figures.json")), None)
        manifest = _read_json(out / manifest_rel) if manifest_rel else None
        if video is None or manifest is None:
            continue
        clips.append(Clip(Path(video).name.removesuffix(".mp4"), name, titles.get(name, name),
                          video, outputs[video], manifest))
    return clips


def image_code() -> str:
    """What the images depend on besides their clip: this code and the decoders."""
    files = {name: file_digest(ROOT / name) for name in import_closure([ROOT / MODULE], ROOT)}

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    text = json.dumps([files, version("av"), version("pillow"), WIDTH, QUALITY],
                      sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _extract(out: Path, clip: Clip, wanted: Mapping[int, list[str]],
             size: tuple[int, int]) -> None:
    """Save the frames ``wanted`` (frame → image paths) of ``clip`` as JPEGs, atomically."""
    from PIL import Image

    from outputs.video import video_frames

    found = set()
    try:
        for number, frame in video_frames(out / clip.video, wanted):
            image = frame.to_image().convert("RGB").resize(size, Image.Resampling.LANCZOS)
            for rel in wanted[number]:
                target = out / rel
                staging = target.with_name(f".{target.name}.tmp")
                try:
                    image.save(staging, "JPEG", quality=QUALITY, optimize=True)
                    os.chmod(staging, 0o644)
                    os.replace(staging, target)
                except BaseException:
                    staging.unlink(missing_ok=True)
                    raise
            found.add(number)
    except OSError as error:
        raise StoryboardError(f"{clip.video}: cannot decode ({error})") from None
    missing = sorted(set(wanted) - found)
    if missing:
        raise StoryboardError(f"{clip.video}: has no frame {missing[0]}, which its manifest "
                              "names as a section end")


def write_storyboard(out: Path, title: str, clips: Sequence[Clip]) -> WriteResult:
    """Write ``storyboard.html``, its frame images and ``records/storyboard.json``.

    Only the images whose source (clip, frame, size, code) differs from the record, or
    whose file is missing or altered, are extracted again; images no clip needs any more
    are removed.

    Raises
    ------
    StoryboardError
        When a clip cannot be decoded or lacks a frame its manifest names.
    """
    previous = _read_json(out / RECORD) or {}
    before_sources = previous.get("frames", {})
    before_outputs = previous.get("outputs", {})
    board = storyboard_context(title, clips)
    code = image_code()
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    sources: dict[str, dict[str, Any]] = {}
    extracted = reused = 0
    for clip, scene in zip(clips, board.boards, strict=True):
        wanted: dict[int, list[str]] = {}
        for panel in scene.panels:
            source = {"clip": clip.video, "sha256": clip.digest, "frame": panel.frame,
                      "size": [panel.width, panel.height], "code": code}
            sources[panel.image] = source
            path = out / panel.image
            if before_sources.get(panel.image) == source and path.is_file() \
                    and file_digest(path) == before_outputs.get(panel.image):
                reused += 1
                continue
            wanted.setdefault(panel.frame, []).append(panel.image)
            extracted += 1
        if wanted:
            _extract(out, clip, wanted, (scene.panels[0].width, scene.panels[0].height))
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.relative_to(out).as_posix() not in sources:
            path.unlink()
    page = out / PAGE
    # The page is the board through the template: the same board and code, the same page.
    key = hashlib.sha256(json.dumps(
        [asdict(board), code, {template.name: file_digest(template)
                               for template in sorted(TEMPLATES.glob("storyboard*"))}],
        sort_keys=True).encode("utf-8")).hexdigest()
    if previous.get("page") != key or not page.is_file() \
            or file_digest(page) != before_outputs.get(PAGE):
        html = storyboard_html(board)
        if not page.is_file() or page.read_text(encoding="utf-8") != html:
            write_text(page, html)
    outputs = {PAGE: file_digest(page)}
    outputs |= {rel: file_digest(out / rel) for rel in sorted(sources)}
    record = {"outputs": outputs, "frames": sources, "page": key,
              "clips": {clip.video: clip.digest for clip in clips}}
    if record != previous:
        write_json(out / RECORD, record)
    return WriteResult(extracted, reused)
