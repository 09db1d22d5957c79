"""The reviewers' storyboard, proven on a real build of two scenes from the worksheet whose
words hold ``<``, ``&`` and quotes: every built scene in lecture order, one image per
section end showing that frame of the clip, under it the captions spoken in that section,
and ``lecture check`` naming any image that is altered, missing or unexpected.

Expectations come from the manifests, the records and the clips themselves, decoded here
with PyAV; never from the storyboard's own code.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import av
import pytest
from PIL import Image, ImageChops, ImageStat

from outputs.files import file_digest
from tests.conftest import run_lecture as lecture

MARKUP = Path(__file__).parent / "data" / "markup-words.json"
DRAFT = ("--narration", "none", "--quality", "draft")
"""Silent, at the draft quality: the storyboard takes each section's end from the
manifest's own frame rate, whichever it is."""
# The opening scene and a later one whose captions quote "<river>" and "fisher"man".
SCENES = ["RiverBankPrompt", "OtherContext"]
WIDTH = 427


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("storyboard")
    process = lecture("build", *SCENES, "--worksheet", MARKUP, *DRAFT, "-j", "2", "--out", out)
    assert process.returncode == 0, process.stderr[-3000:]
    return out


@pytest.fixture()
def copy(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    return out


class Page(HTMLParser):
    """Scenes in page order, each with its figures: ``{"img": src, "captions": [...]}``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scenes: list[tuple[str, list[dict[str, Any]]]] = []
        self.sources: list[str] = []
        self.tags: set[str] = set()
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.tags.add(tag)
        self.sources += [str(v) for k, v in attrs if k in ("src", "href") and v]
        if tag == "section" and "data-scene" in named:
            self.scenes.append((str(named["data-scene"]), []))
        elif tag == "figure":
            self.scenes[-1][1].append({"img": None, "captions": []})
        elif tag == "img":
            self.scenes[-1][1][-1]["img"] = named["src"]
        elif "data-caption" in named:
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._text is not None:
            self.scenes[-1][1][-1]["captions"].append("".join(self._text))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def page_of(out: Path) -> Page:
    page = Page()
    page.feed((out / "storyboard.html").read_text(encoding="utf-8"))
    return page


def manifests(out: Path) -> list[dict[str, Any]]:
    """The built scenes' manifests, in lecture order (the clips' NN prefix)."""
    return [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((out / "video").glob("*.figures.json"))]


def stem_of(out: Path, scene: str) -> str:
    return next((out / "video").glob(f"*-{scene}.mp4")).stem


def spoken_in_each_section(manifest: dict[str, Any]) -> list[list[str]]:
    """A caption goes with the first section ending, at (frame + 1) / rate, at or after its
    midpoint."""
    ends = [(s["frame"] + 1) / manifest["frame_rate"] for s in manifest["sections"]]
    groups: list[list[str]] = [[] for _ in ends]
    for caption in manifest["captions"]:
        middle = (caption["start"] + caption["end"]) / 2
        later = [i for i, end in enumerate(ends) if end >= middle]
        groups[later[0] if later else len(ends) - 1].append(caption["text"])
    return groups


def clip_frame(clip: Path, number: int) -> Image.Image:
    """Frame ``number`` (from zero) of a clip, decoded from the start."""
    with av.open(str(clip)) as container:
        for index, frame in enumerate(container.decode(video=0)):
            if index == number:
                return frame.to_image().convert("RGB")
    raise AssertionError(f"{clip.name} has no frame {number}")


# --------------------------------------------------------------------------- the page


def test_the_page_lists_every_built_scene_in_lecture_order(built: Path) -> None:
    page = page_of(built)
    assert [scene for scene, _ in page.scenes] == [m["scene"] for m in manifests(built)]
    assert [scene for scene, _ in page.scenes] == SCENES
    text = (built / "storyboard.html").read_text(encoding="utf-8")
    for manifest in manifests(built):
        assert f"{manifest['duration']:.1f} s" in text
    assert "The river-bank prompt" in text and "The other bank" in text


def test_one_image_per_section_end_each_the_clips_frame(built: Path) -> None:
    record = json.loads((built / "records" / "storyboard.json").read_text(encoding="utf-8"))
    shown = dict(page_of(built).scenes)
    for manifest in manifests(built):
        stem = stem_of(built, manifest["scene"])
        clip = built / "video" / f"{stem}.mp4"
        with av.open(str(clip)) as container:
            stream = container.streams.video[0]
            ratio = stream.width / stream.height
        figures = shown[manifest["scene"]]
        assert len(figures) == len(manifest["sections"])
        for number, (section, figure) in enumerate(zip(manifest["sections"], figures,
                                                       strict=True), start=1):
            assert figure["img"] == f"storyboard/{stem}-{number}.jpg"
            assert figure["img"] in record["outputs"]
            image = Image.open(built / figure["img"])
            image.load()
            assert image.format == "JPEG" and image.width == WIDTH
            assert abs(image.height - WIDTH / ratio) <= 0.5
            frame = clip_frame(clip, section["frame"]).resize(image.size)
            difference = ImageStat.Stat(ImageChops.difference(frame, image.convert("RGB")))
            assert max(difference.mean) < 3, (figure["img"], difference.mean)


def test_under_each_frame_the_captions_spoken_in_its_section(built: Path) -> None:
    shown = dict(page_of(built).scenes)
    quoted = 0
    for manifest in manifests(built):
        figures = shown[manifest["scene"]]
        expected = spoken_in_each_section(manifest)
        assert [f["captions"] for f in figures] == expected
        assert sum(map(len, expected)) == len(manifest["captions"])
        quoted += sum("<river>" in text for group in expected for text in group)
    assert quoted > 0  # the page shows the worksheet's markup as text


def test_the_page_escapes_words_loads_nothing_and_is_readable(built: Path) -> None:
    text = (built / "storyboard.html").read_text(encoding="utf-8")
    page = page_of(built)
    assert "&lt;river&gt;" in text and "<river>" not in text
    assert "script" not in page.tags
    assert all(not re.match(r"^[a-z]+:|^//", src) for src in page.sources), page.sources
    assert "url(" not in text and "@import" not in text
    sizes = [int(n) for n in re.findall(r"font(?:-size)?:[^;]*?(\d+)px", text)]
    assert sizes and min(sizes) >= 14
    assert re.search(r"body \{[^}]*background: #000", text)


# --------------------------------------------------------------------------- the build


def test_a_no_change_build_extracts_nothing_and_keeps_every_file(copy: Path) -> None:
    before = {p: (p.stat().st_mtime_ns, p.read_bytes())
              for p in sorted((copy / "storyboard").iterdir())}
    page = (copy / "storyboard.html").read_bytes()
    process = lecture("build", *SCENES, "--worksheet", MARKUP, *DRAFT, "--out", copy)
    assert process.returncode == 0, process.stderr[-2000:]
    images = sum(len(m["sections"]) for m in manifests(copy))
    assert f"storyboard 0 frames extracted, {images} reused" in process.stderr
    assert {p: (p.stat().st_mtime_ns, p.read_bytes())
            for p in sorted((copy / "storyboard").iterdir())} == before
    assert (copy / "storyboard.html").read_bytes() == page


def test_only_the_frames_of_a_re_rendered_scene_are_extracted(copy: Path,
                                                               tmp_path: Path) -> None:
    doc = json.loads(MARKUP.read_text(encoding="utf-8"))
    doc["sentences"]["cheque"][0] = "The"  # the other context's first word
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(doc), encoding="utf-8")
    river = sorted((copy / "storyboard").glob("*-RiverBankPrompt-*.jpg"))
    kept = {p: p.stat().st_mtime_ns for p in river}
    process = lecture("build", *SCENES, "--worksheet", edited, *DRAFT, "--out", copy)
    assert process.returncode == 0, process.stderr[-2000:]
    states = {s["name"]: s["status"] for s in
              json.loads((copy / "build.json").read_text(encoding="utf-8"))["scenes"]}
    assert states == {"RiverBankPrompt": "reused", "OtherContext": "rendered"}
    other = next(m for m in manifests(copy) if m["scene"] == "OtherContext")
    assert (f"storyboard {len(other['sections'])} frames extracted, {len(river)} reused"
            in process.stderr)
    assert {p: p.stat().st_mtime_ns for p in river} == kept
    assert [f["captions"] for f in dict(page_of(copy).scenes)["OtherContext"]] \
        == spoken_in_each_section(other)
    assert lecture("check", "--out", copy).returncode == 0


def test_lecture_storyboard_writes_the_same_page_and_images_again(copy: Path) -> None:
    expected = {p.name: p.read_bytes() for p in (copy / "storyboard").iterdir()}
    page = (copy / "storyboard.html").read_bytes()
    shutil.rmtree(copy / "storyboard")
    (copy / "storyboard.html").unlink()
    process = lecture("storyboard", "--out", copy)
    assert process.returncode == 0, process.stderr
    assert {p.name: p.read_bytes() for p in (copy / "storyboard").iterdir()} == expected
    assert (copy / "storyboard.html").read_bytes() == page
    assert lecture("check", "--out", copy).returncode == 0


# --------------------------------------------------------------------------- the check


def test_the_check_proves_every_storyboard_file(built: Path) -> None:
    record = json.loads((built / "records" / "storyboard.json").read_text(encoding="utf-8"))
    files = sorted(p.relative_to(built).as_posix() for p in (built / "storyboard").iterdir())
    assert sorted(record["outputs"]) == sorted([*files, "storyboard.html"])
    for rel, digest in record["outputs"].items():
        assert file_digest(built / rel) == digest
    process = lecture("check", "--out", built)
    assert process.returncode == 0, process.stdout[-2000:]
    captions = sum(len(m["captions"]) for m in manifests(built))
    assert f"{len(files)} storyboard frames, {captions} storyboard captions" in process.stdout


@pytest.mark.parametrize("spoil", ["altered", "missing", "unexpected"])
def test_a_spoiled_storyboard_image_fails_the_check_naming_it(copy: Path, spoil: str) -> None:
    image = sorted((copy / "storyboard").glob("*-OtherContext-*.jpg"))[1]
    rel = image.relative_to(copy).as_posix()
    if spoil == "altered":
        Image.open(image).rotate(180).save(image, "JPEG")
    elif spoil == "missing":
        image.unlink()
    else:
        shutil.copyfile(image, image.with_name("extra.jpg"))
        rel = "storyboard/extra.jpg"
    process = lecture("check", "--out", copy)
    assert process.returncode == 1
    assert f"{rel}: {spoil}" in process.stdout, process.stdout[-2000:]


def test_a_page_caption_that_differs_fails_the_check_naming_its_key(copy: Path) -> None:
    page = copy / "storyboard.html"
    other = next(m for m in manifests(copy) if m["scene"] == "OtherContext")
    caption = next(c for c in other["captions"] if c["figures"])
    figure = caption["figures"][0]
    html = page.read_text(encoding="utf-8")
    escaped = caption["text"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") \
        .replace('"', "&#34;").replace("'", "&#39;")
    assert escaped in html
    html = html.replace(escaped, escaped.replace(figure["text"], "9.999", 1))
    page.write_text(html, encoding="utf-8")
    record_path = copy / "records" / "storyboard.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["outputs"]["storyboard.html"] = file_digest(page)  # a careless tool's update
    record_path.write_text(json.dumps(record), encoding="utf-8")
    process = lecture("check", "--out", copy)
    assert process.returncode == 1
    assert figure["key"] in process.stdout and "storyboard.html" in process.stdout


def test_without_a_build_the_command_says_so_and_writes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "none"
    process = lecture("storyboard", "--out", missing)
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert "no build" in process.stderr and "lecture build" in process.stderr
    assert not missing.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert lecture("storyboard", "--out", empty).returncode == 2
    assert list(empty.iterdir()) == []
