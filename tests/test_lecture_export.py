"""The lecture as one file set (``lecture/``), proven on a real narrated build of three
short scenes taken as the whole lesson (the outline is cut down to them for the build and
the check), on the worksheet whose words hold ``<``, ``&`` and quotes, and on the shared
build of the whole lesson.

Expectations come from the clips themselves, read here with PyAV, ``srt`` and webvtt-py,
and from the outline; never from the exporter's own code.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import av
import pytest
import srt
import webvtt

from narration.voices import Narration
from outline import PARTS, TITLE, lecture_order
from outputs.files import file_digest
from tests.conftest import run_lecture

MARKUP = Path(__file__).parent / "data" / "markup-words.json"
SCENES = ("RiverBankPrompt", "HeadWalkthrough2", "OtherContext")
"""Three short scenes of three parts; the last one's captions quote "<river>" and "b&nk"."""


def short_lesson(n_heads: int) -> tuple[Any, ...]:
    return tuple(entry for entry in lecture_order(n_heads) if entry.name in SCENES)


def as_the_lesson(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the three scenes the whole lesson for the build, the deck and the check."""
    import render.build
    import render.check
    import slides.deck

    for module in (render.build, render.check, slides.deck):
        monkeypatch.setattr(module, "lecture_order", short_lesson)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from render.build import BuildOptions, build

    out = tmp_path_factory.mktemp("lecture")
    with pytest.MonkeyPatch.context() as monkeypatch:
        as_the_lesson(monkeypatch)
        result = build(BuildOptions(MARKUP, out, "draft", 2, narration=Narration("espeak")))
    assert not result.failed and result.lecture == "joined", result
    yield out


@pytest.fixture(autouse=True)
def three_scene_lesson(monkeypatch: pytest.MonkeyPatch) -> None:
    as_the_lesson(monkeypatch)


@pytest.fixture()
def copy(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    return out


def clips(out: Path) -> list[Path]:
    """The lesson's clips, in lecture order (their names start with their place)."""
    return sorted((out / "video").glob("*.mp4"))


def length(clip: Path) -> Fraction:
    """Seconds until the last packet of any stream ends."""
    with av.open(str(clip)) as container:
        return max(Fraction(packet.pts + packet.duration) * packet.stream.time_base
                   for packet in container.demux() if packet.dts is not None)


def starts(out: Path) -> list[Fraction]:
    at, found = Fraction(0), []
    for clip in clips(out):
        found.append(at)
        at += length(clip)
    return found


def in_ms(seconds: Fraction) -> int:
    return int(seconds * 1000 + Fraction(1, 2))


def subtitles(path: Path) -> list[tuple[int, int, str]]:
    return [(cue.start // srt.timedelta(milliseconds=1), cue.end // srt.timedelta(milliseconds=1),
             cue.content) for cue in srt.parse(path.read_text(encoding="utf-8"))]


def check(out: Path) -> tuple[int, list[str], str]:
    """The check's exit status, its ✗ lines, and all it printed."""
    process = run_lecture("check", "--out", out)
    problems = [line for line in process.stdout.splitlines() if line.startswith("✗")]
    return process.returncode, problems, process.stdout


def rerecord(out: Path, rel: str) -> None:
    """Give the lecture's record the new digest of ``rel``, as a careless tool would."""
    path = out / "records" / "lecture.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["outputs"][rel] = file_digest(out / rel)
    path.write_text(json.dumps(record), encoding="utf-8")


# --------------------------------------------------------------------------- the file


def test_each_chapter_is_a_part_starting_where_its_first_clip_starts(built: Path) -> None:
    begins = starts(built)
    with av.open(str(built / "lecture" / "lecture.mp4")) as joined:
        chapters = joined.chapters()
        assert joined.metadata["title"] == TITLE
        assert {s.type: s.metadata["language"] for s in joined.streams
                if s.type in ("video", "audio")} == {"video": "eng", "audio": "eng"}
    titles = {name.replace("{h}", "2"): title.replace("{h}", "2")
              for part in PARTS for _, name, title in part.scenes}
    assert [chapter["metadata"]["title"] for chapter in chapters] == [
        titles[scene] for scene in SCENES]
    assert [Fraction(chapter["start"]) * chapter["time_base"] for chapter in chapters] == [
        Fraction(in_ms(start), 1000) for start in begins]
    assert begins[0] == 0 and begins[1] > 20  # the first clip lasts its twenty-odd seconds


def test_each_clips_packets_land_at_its_start_in_sync(built: Path) -> None:
    """Both streams of every clip start where its chapter says, each within half a tick
    of its own clock, and the joined streams are the clips' packets, in order."""
    packets: dict[str, list[tuple[int, bytes]]] = {"video": [], "audio": []}
    with av.open(str(built / "lecture" / "lecture.mp4")) as joined:
        bases = {s.type: s.time_base for s in joined.streams}
        for packet in joined.demux():
            if packet.dts is not None and packet.stream.type in packets:
                packets[packet.stream.type].append((packet.pts, bytes(packet)))
    seen = {"video": 0, "audio": 0}
    for clip, start in zip(clips(built), starts(built), strict=True):
        with av.open(str(clip)) as source:
            own = [(p.stream.type, p.pts, bytes(p)) for p in source.demux() if p.dts is not None]
        for kind in packets:
            mine = [(pts, data) for k, pts, data in own if k == kind]
            assert mine, f"{clip.name} has no {kind}: the build is narrated"
            placed = packets[kind][seen[kind]:seen[kind] + len(mine)]
            assert [data for _, data in placed] == [data for _, data in mine]
            first = Fraction(placed[0][0]) * bases[kind]
            assert abs(first - (start + Fraction(mine[0][0]) * bases[kind])) <= bases[kind] / 2
            seen[kind] += len(mine)
    assert seen == {kind: len(found) for kind, found in packets.items()}


def test_the_merged_captions_are_each_clips_captions_shifted(built: Path) -> None:
    expected = []
    for clip, start in zip(clips(built), starts(built), strict=True):
        shift = in_ms(start)
        expected += [(a + shift, b + shift, text)
                     for a, b, text in subtitles(clip.with_suffix(".srt"))]
    assert len(expected) > 10 and subtitles(built / "lecture" / "lecture.srt") == expected
    vtt = webvtt.read(str(built / "lecture" / "lecture.vtt"))
    assert [(c.start_time.in_milliseconds(), c.end_time.in_milliseconds(),
             c.raw_text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
            for c in vtt.captions] == expected
    assert any("<river>" in text for _, _, text in expected)


def test_every_clip_has_its_captions_as_webvtt_beside_it(built: Path) -> None:
    for clip in clips(built):
        shown = webvtt.read(str(clip.with_suffix(".vtt")))
        assert [(c.start_time.in_milliseconds(), c.end_time.in_milliseconds())
                for c in shown.captions] == [(a, b) for a, b, _ in subtitles(
                    clip.with_suffix(".srt"))]


def test_chapters_txt_lists_each_part_from_zero(built: Path) -> None:
    lines = (built / "lecture" / "chapters.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("0:00 ")
    for line, start in zip(lines, starts(built), strict=True):
        seconds = int(start)
        assert line.split(" ", 1)[0] == f"{seconds // 60}:{seconds % 60:02d}"


# --------------------------------------------------------------------------- transcript


def test_the_transcript_escapes_and_shows_each_sections_figures(built: Path) -> None:
    from outputs.html import read_html

    html = (built / "lecture" / "transcript.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in html and "<main" in html and "<nav" in html
    assert "&lt;river&gt;" in html and "b&amp;nk" in html and "<river>" not in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing from elsewhere
    page = read_html(html)
    for clip in clips(built):
        manifest = json.loads(clip.with_name(clip.stem + ".figures.json").read_text("utf-8"))
        shown = next(e for e in page.iter() if e.attrs.get("data-clip") == clip.stem)
        sections = [e for e in shown.iter("section")]
        assert [s.attrs["data-section"] for s in sections] == [
            s["name"] for s in manifest["sections"]]
        for element, section in zip(sections, manifest["sections"], strict=True):
            once: dict[str, str] = {}  # each figure where it first appears
            for figure in section["figures"]:
                once.setdefault(figure["key"], figure["text"])
            assert [(e.attrs["data-key"], e.text) for e in element.iter()
                    if "data-key" in e.attrs] == list(once.items())
        said = [e.text for e in shown.iter() if "data-caption" in e.attrs]
        assert said == [c["text"] for c in manifest["captions"]]
    # each row of figures is named in words, never by its value key
    names = [e.text for e in page.iter("dt")]
    assert names and not [n for n in names if re.search(r"[_\[\]]|\w\.\w", n)]
    assert "Attention weights (the “river” sentence, head 2)" in names
    headings = [e.tag for e in page.iter() if re.fullmatch(r"h\d", e.tag)]
    assert headings[0] == "h1" and all(int(b[1]) - int(a[1]) <= 1
                                       for a, b in itertools.pairwise(headings))


# --------------------------------------------------------------------------- the proof


def test_an_honest_lecture_passes_the_check(built: Path) -> None:
    status, problems, stdout = check(built)
    assert status == 0 and not problems, stdout[-2000:]
    for counted in ("3 lecture chapters", "lecture packets", "lecture captions",
                    "transcript figures", "clip webvtt captions"):
        assert counted in stdout


def test_a_chapter_moved_fails_the_check_in_one_line(copy: Path) -> None:
    path = copy / "lecture" / "lecture.mp4"
    moved = path.with_name("moved.mp4")
    with av.open(str(path)) as source, av.open(str(moved), "w", format="mp4") as target:
        chapters = source.chapters()
        chapters[1]["start"] += 500  # half a second late
        target.metadata.update(source.metadata)
        streams = {s.index: target.add_stream_from_template(s) for s in source.streams
                   if s.type in ("video", "audio")}
        for s in source.streams:
            if s.index in streams:
                streams[s.index].metadata.update(s.metadata)
        target.set_chapters(chapters)
        for packet in source.demux(*(source.streams[i] for i in streams)):
            if packet.dts is not None:
                packet.stream = streams[packet.stream.index]
                target.mux(packet)
    moved.replace(path)
    rerecord(copy, "lecture/lecture.mp4")
    status, problems, stdout = check(copy)
    assert status == 1 and len(problems) == 1, stdout[-2000:]
    assert problems[0].startswith("✗ lecture/lecture.mp4: chapter 2 is")


@pytest.mark.parametrize("where", ["srt", "vtt"])
def test_a_cue_moved_fails_the_check_in_one_line(copy: Path, where: str) -> None:
    path = copy / "lecture" / f"lecture.{where}"
    text = path.read_text(encoding="utf-8")
    stamp = re.compile(r"(\d\d):(\d\d):(\d\d)([.,])(\d\d\d)( --> )")
    last = list(stamp.finditer(text))[-1]  # the start of the last cue, of the last clip
    hours, minutes, seconds, mark, millis, arrow = last.groups()
    later = int(millis) + 40 + 1000 * (int(seconds) + 60 * (int(minutes) + 60 * int(hours)))
    moved = (f"{later // 3_600_000:02d}:{later // 60_000 % 60:02d}:{later // 1000 % 60:02d}"
             f"{mark}{later % 1000:03d}{arrow}")
    path.write_text(text[:last.start()] + moved + text[last.end():], encoding="utf-8")
    rerecord(copy, f"lecture/lecture.{where}")
    status, problems, stdout = check(copy)
    assert status == 1 and len(problems) == 1, stdout[-2000:]
    assert re.match(rf"✗ lecture/lecture\.{where}: cue \d+ is", problems[0])


def test_a_figure_changed_in_the_transcript_fails_naming_its_key(copy: Path) -> None:
    path = copy / "lecture" / "transcript.html"
    html = path.read_text(encoding="utf-8")
    found = re.search(r'data-key="(river\.h2\.weights\[\d+\])">([^<]+)<', html)
    assert found, "head 2's weights are on screen in its walkthrough"
    path.write_text(html.replace(found[0], f'data-key="{found[1]}">0.999<', 1), encoding="utf-8")
    rerecord(copy, "lecture/transcript.html")
    status, _, stdout = check(copy)
    rows = [line for line in stdout.splitlines() if found[1] in line]
    assert status == 1 and rows and "0.999" in rows[0] and found[2] in rows[0], stdout[-2000:]
    assert "transcript.html" in stdout


def test_a_build_without_every_clip_removes_the_lecture(copy: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A lesson that gained a scene the folder never built (as a worksheet with one more
    head gains a walkthrough), built in part: its three clips are kept, the lecture goes."""
    from render.build import BuildOptions, build

    later = lecture_order(2)[-1]  # a scene the folder never built, after the three
    monkeypatch.setattr("render.build.lecture_order", lambda n: (*short_lesson(n), later))
    same = tmp_path / "same-words.json"  # another file: the build decides scene by scene
    shutil.copyfile(MARKUP, same)
    result = build(BuildOptions(same, copy, "draft", 2, scenes=SCENES[:2],
                                narration=Narration("espeak")))
    assert [s.entry.name for s in result.scenes] == list(SCENES) and not result.failed
    assert result.lecture.startswith("not joined") and not (copy / "lecture").exists()
    assert all(clip.with_suffix(".vtt").is_file() for clip in clips(copy))


def test_a_build_with_nothing_changed_keeps_the_lecture(copy: Path) -> None:
    from render.build import BuildOptions, build

    options = BuildOptions(MARKUP, copy, "draft", 2, narration=Narration("espeak"))
    assert not build(options).failed  # up to date with any source edited since the module's build
    before = {p.name: p.stat().st_mtime_ns for p in (copy / "lecture").iterdir()}
    result = build(options)
    assert result.lecture == "reused"
    assert {p.name: p.stat().st_mtime_ns for p in (copy / "lecture").iterdir()} == before


# --------------------------------------------------------------------------- whole lesson


def test_the_whole_lessons_chapters_are_its_parts(lesson: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the real outline
    entries = lecture_order(2)
    with av.open(str(lesson / "lecture" / "lecture.mp4")) as joined:
        chapters = joined.chapters()
        assert [s.type for s in joined.streams if s.type != "data"] == ["video"]  # silent
    firsts = {}
    for entry, start in zip(entries, starts(lesson), strict=True):
        firsts.setdefault(entry.part, (entry, start))
    assert len(chapters) == len(PARTS) == len(firsts)
    for chapter, part in zip(chapters, PARTS, strict=True):
        entry, start = firsts[part.id]
        assert Fraction(chapter["start"]) * chapter["time_base"] == Fraction(in_ms(start), 1000)
        titles = [e.title for e in entries if e.part == part.id]
        assert chapter["metadata"]["title"] == "; ".join(titles)
