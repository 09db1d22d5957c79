"""``lecture build`` is incremental, safe and checkable, proven on real renders of a few
scenes (the whole lesson renders the same way; bench/ measures it)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NARRATED_SCENES, run_lecture
from worksheet import DEFAULT_WORKSHEET, Style, compute_values, load_worksheet

LECTURE = str(Path(sys.executable).with_name("lecture"))
# Two short scenes that do not depend on W_O and a short one that does: every test that
# edits W_O re-renders it, narrated.
SCENES = list(NARRATED_SCENES)
DRAFT = ("--quality", "draft")
"""Every build here but one is at the draft quality: -ql's pictures at 5 frames a second,
each animation drawn once at its end, narrated all the same. What -ql adds is only frames between
the section ends, and the test of the draft quality renders -ql beside it and holds the
two to the same frames."""
SILENT = ("--narration", "none", *DRAFT)
"""What a test of the build's bookkeeping renders with (shards, a failing scene): the
voice is proven by the narrated builds."""


def lecture(*args: str | Path, check: bool = False) -> subprocess.CompletedProcess[str]:
    process = run_lecture(*args)
    if check:
        assert process.returncode == 0, process.stdout + process.stderr
    return process


def build_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "build.json").read_text(encoding="utf-8"))


def statuses(out: Path) -> dict[str, str]:
    return {s["name"]: s["status"] for s in build_json(out)["scenes"]}


def digests(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes()
            for folder in ("video", "records") for p in sorted((out / folder).glob("*"))}


def edit_w_o(doc_path: Path, target: Path) -> Path:
    doc = json.loads(doc_path.read_text(encoding="utf-8"))
    doc["headsLesson"]["W_O"][2][0] = 0.5
    target.write_text(json.dumps(doc), encoding="utf-8")
    return target


@pytest.fixture
def built(narrated: Path) -> Path:
    """The scenes' narrated build, shared with test_hearing: read-only (a test that
    builds into it or alters it copies it first)."""
    return narrated


def test_first_build_renders_every_scene_and_records_it(built: Path) -> None:
    document = build_json(built)
    assert document["worksheet"]["sha256"] == load_worksheet(DEFAULT_WORKSHEET).sha256
    assert set(document["versions"]) == {"manim", "torch", "project"}
    assert statuses(built) == dict.fromkeys(SCENES, "rendered")
    for scene in document["scenes"]:
        assert len(scene["key"]) == 64
        assert [Path(o).suffix for o in scene["outputs"]] == [".json", ".mp4", ".srt"]
        for output in scene["outputs"]:
            assert (built / output).stat().st_size > 0
    assert (built / "slides" / "index.html").is_file()


def test_check_passes_on_a_fresh_build(built: Path) -> None:
    process = lecture("check", "--out", built)
    assert process.returncode == 0, process.stdout
    assert "all figures match" in process.stdout


def test_a_rebuild_with_nothing_changed_renders_nothing(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "build"
    shutil.copytree(built, out)
    before = digests(out)
    started = time.perf_counter()
    process = lecture("build", *SCENES, *DRAFT, "--out", out, check=True)
    elapsed = time.perf_counter() - started
    assert statuses(out) == dict.fromkeys(SCENES, "reused")
    assert "0 rendered" in process.stderr and "slides reused" in process.stderr
    assert digests(out) == before
    assert elapsed < 10  # the figure for the whole lesson is measured in bench/


def _nothing_to_do(out: Path, **changes: Any) -> Any:
    """What the fingerprint comparison of a build with these options says (``None``: the
    full build must decide)."""
    from narration.voices import Narration
    from render.build import BuildOptions, unchanged

    options = {"worksheet": DEFAULT_WORKSHEET, "out": out, "scenes": tuple(SCENES),
               "narration": Narration(), "quality": "draft", **changes}
    return unchanged(BuildOptions(**options))


def _retouch(path: Path, change: Any) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_build_with_nothing_to_do_only_compares_fingerprints(built: Path,
                                                                tmp_path: Path) -> None:
    """Every input of the build is compared; a change to any one sends the build the full
    way (validating, deciding scene by scene); with none, every scene is kept."""
    from narration.voices import Narration

    def fresh() -> Path:
        out = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        shutil.copytree(built, out)
        return out

    same = _nothing_to_do(fresh())
    assert [(s.entry.name, s.status) for s in same.scenes] == [(n, "reused") for n in SCENES]
    assert same.slides == "reused" and same.storyboard.startswith("0 frames extracted")
    assert _nothing_to_do(fresh(), scenes=("BiasFlag",)) is None  # never built here
    assert _nothing_to_do(fresh(), quality="m") is None
    assert _nothing_to_do(fresh(), narration=Narration("espeak")) is None
    assert _nothing_to_do(fresh(), scene_options={"full_heads": True}) is None
    copy = tmp_path / "same-bytes.json"
    shutil.copyfile(DEFAULT_WORKSHEET, copy)
    assert _nothing_to_do(fresh(), worksheet=copy) is None  # another file
    for change in (lambda d: d["worksheet"].update(sha256="0" * 64),
                   lambda d: d["code"].update({"render/build.py": "0" * 64}),
                   lambda d: d["versions"].update(manim="0.0"),
                   lambda d: d["scenes"][0].update(status="stale"),
                   lambda d: d.update(shard="1/2")):
        out = fresh()
        _retouch(out / "build.json", change)
        assert _nothing_to_do(out) is None
    for output in ("video/*.srt", "storyboard/*.jpg", "slides/index.html", "script.md"):
        out = fresh()
        changed = next(out.glob(output))
        changed.write_bytes(changed.read_bytes() + b" ")
        assert _nothing_to_do(out) is None, output


def test_a_build_with_nothing_to_do_neither_validates_nor_computes(built: Path,
                                                                    tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    process = subprocess.run([sys.executable, "-X", "importtime", LECTURE, "build", *SCENES,
                              *DRAFT, "--out", str(out)], capture_output=True, text=True,
                             check=False)
    assert process.returncode == 0, process.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in process.stderr.splitlines()
                if line.startswith("import time:")}
    assert "render.build" in imported  # the measure reads real imports
    assert not {"pydantic", "torch", "manim", "worksheet.schema"} & imported
    assert statuses(out) == dict.fromkeys(SCENES, "reused")


def test_a_w_o_edit_rerenders_exactly_the_dependent_scenes(built: Path,
                                                           tmp_path: Path) -> None:
    out = tmp_path / "edited"
    shutil.copytree(built, out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "edited.json")
    old = compute_values(load_worksheet(DEFAULT_WORKSHEET))
    new = compute_values(load_worksheet(edited))
    # What a scene shows of a value: its text, and its number unless that is rounding
    # noise shown only as the bound it stays under.
    changed = {key for key in old if old[key].text != new[key].text
               or (old[key].style is not Style.BELOW and old.value(key) != new.value(key))}
    assert "params.W_O" in changed and "river.h2.weights" not in changed
    assert "mha.max_diff_delta" not in changed
    expected = {}
    for scene in SCENES:
        manifest = next((out / "video").glob(f"*-{scene}.figures.json"))
        reads = json.loads(manifest.read_text())["reads"]
        depends = any(key.split("[")[0] in changed for key in reads)
        expected[scene] = "rendered" if depends else "reused"
    assert set(expected.values()) == {"rendered", "reused"}
    process = lecture("build", *SCENES, *DRAFT, "--out", out, "--worksheet", edited,
                      check=True)
    assert statuses(out) == expected
    assert "values changed" in process.stderr
    assert json.loads((out / "build.json").read_text())["slides"]["status"] == "rebuilt"
    assert lecture("check", "--out", out).returncode == 0


def test_without_tesseract_data_the_pixel_check_stops_in_one_line(built: Path,
                                                                   tmp_path: Path) -> None:
    env = {**os.environ, "TESSDATA_PREFIX": str(tmp_path / "no-tessdata")}
    process = subprocess.run([LECTURE, "check", "--out", str(built), "--frames"],
                             capture_output=True, text=True, check=False, env=env)
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert "eng.traineddata: not found" in process.stderr and "tesseract-ocr" in process.stderr


def test_a_worksheet_edited_after_the_build_is_reported_stale(built: Path,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "copy"
    shutil.copytree(built, out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "later.json")
    process = lecture("check", "--out", out, "--worksheet", edited)
    assert process.returncode == 1
    assert "stale: worksheet" in process.stdout
    assert "changed since the build" in process.stdout


@pytest.mark.parametrize("target", ["deck", "manifest", "srt"])
def test_a_tampered_number_fails_the_check_naming_key_and_file(built: Path, tmp_path: Path,
                                                               target: str) -> None:
    out = tmp_path / "tampered"
    shutil.copytree(built, out)
    values = compute_values(load_worksheet(DEFAULT_WORKSHEET))
    key = "river.h2.weights[1]"
    right = values.text(key)
    if target == "deck":
        path = out / "slides" / "index.html"
        text = path.read_text(encoding="utf-8")
        marker = f'data-key="{key}">{right}<'
        assert marker in text
        path.write_text(text.replace(marker, f'data-key="{key}">0.999<', 1), encoding="utf-8")
        where = "slides/index.html"
    elif target == "manifest":
        path = next((out / "video").glob("*-HeadWalkthrough2.figures.json"))
        manifest = json.loads(path.read_text(encoding="utf-8"))
        for section in manifest["sections"]:
            for figure in section["figures"]:
                if figure["key"] == key:
                    figure["text"] = "0.999"
        path.write_text(json.dumps(manifest), encoding="utf-8")
        where = path.name
    else:
        path = next((out / "video").glob("*-HeadWalkthrough2.srt"))
        text = path.read_text(encoding="utf-8")
        said = f" weight {right}."  # the recap says the weight of head 2's favourite
        assert text.count(said) == 1
        path.write_text(text.replace(said, said.replace(right, "0.999")), encoding="utf-8")
        where = path.name
    process = lecture("check", "--out", out)
    assert process.returncode == 1
    rows = [line for line in process.stdout.splitlines() if key in line]
    assert rows and "0.999" in rows[0] and right in rows[0]
    assert where in process.stdout


def _wait_for(predicate, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _start_build(out: Path, worksheet: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([LECTURE, "build", *SCENES, *DRAFT, "--out", str(out), "--worksheet",
                             str(worksheet), "-j", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_a_killed_build_leaves_the_previous_outputs_and_the_next_one_completes(
        built: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    shutil.copytree(built, out)
    before = digests(out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "edited.json")
    process = _start_build(out, edited)
    _wait_for(lambda: bool(_manim_pids("PredictionMLP", process.pid))
              and (out / ".build.lock").exists())
    time.sleep(2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert digests(out) == before  # nothing half-written, nothing replaced
    finished = lecture("build", *SCENES, *DRAFT, "--out", out, "--worksheet", edited)
    assert finished.returncode == 0, finished.stderr
    assert not (out / ".build.lock").exists()
    assert lecture("check", "--out", out).returncode == 0


def test_ctrl_c_stops_cleanly_and_keeps_finished_scenes(built: Path, tmp_path: Path) -> None:
    """Ctrl-C while a scene renders stops that scene too, even when its Manim never heard
    the signal (one that started just after it): here only the build itself hears it."""
    out = tmp_path / "interrupted"
    shutil.copytree(built, out)
    before = digests(out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "edited.json")
    process = _start_build(out, edited)
    _wait_for(lambda: bool(_manim_pids("PredictionMLP", process.pid)))
    manim = _manim_pids("PredictionMLP", process.pid)
    for pid in manim:  # held still, so it cannot finish before the build hears Ctrl-C
        os.kill(pid, signal.SIGSTOP)
    os.kill(process.pid, signal.SIGINT)
    _wait_for(lambda: all(_stopped_by_build(pid) for pid in manim))
    for pid in manim:
        os.kill(pid, signal.SIGCONT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in stderr and "interrupted: finished scenes are kept" in stderr
    assert not [pid for pid in manim if Path(f"/proc/{pid}").exists()]
    assert digests(out) == before  # the scene in flight was stopped, not finished
    assert not (out / ".build.lock").exists()
    assert not list(out.rglob(".*.tmp"))
    # That the next build completes is proven after a kill, above.


def test_a_second_build_into_the_same_folder_is_refused(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "busy"
    shutil.copytree(built, out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "edited.json")
    first = _start_build(out, edited)
    try:
        # Rendering, so under the lock (a build also holds it for a moment, to see whether
        # anything changed, and takes it again once it has read the worksheet).
        _wait_for(lambda: bool(_manim_pids("PredictionMLP", first.pid)))
        started = time.perf_counter()
        second = lecture("build", "--out", out)
        assert time.perf_counter() - started < 15
        assert second.returncode == 2
        assert "another build" in second.stderr and str(out) in second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()


def test_shards_merge_into_one_build_without_rerendering(tmp_path: Path) -> None:
    scenes = ["RiverBankPrompt", "MayaRecall"]  # the two shortest clips
    shards = []
    for index in (1, 2):
        out = tmp_path / f"shard{index}"
        process = lecture("build", *scenes, *SILENT, "--out", out, "--shard", f"{index}/2",
                          check=True)
        assert "1 rendered" in process.stderr and "slides not built (shard)" in process.stderr
        shards.append(out)
    mine = [{n for n, s in statuses(out).items() if s == "rendered"} for out in shards]
    assert mine[0] | mine[1] == set(scenes) and not mine[0] & mine[1]
    merged = tmp_path / "merged"
    for out in shards:
        for folder in ("video", "records"):
            shutil.copytree(out / folder, merged / folder, dirs_exist_ok=True)
    lecture("build", *scenes, *SILENT, "--out", merged, check=True)
    assert statuses(merged) == dict.fromkeys(scenes, "reused")
    assert lecture("check", "--out", merged).returncode == 0


def test_an_unknown_scene_is_refused_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "out"
    process = lecture("build", "RiverBankPrompt", "NoSuchScene", "--out", out)
    assert process.returncode == 2 and "no scene named 'NoSuchScene'" in process.stderr
    assert not out.exists()


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 once it is gone)."""
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _stopped_by_build(pid: int) -> bool:
    """Whether process ``pid`` is gone or has a termination signal waiting for it (a
    stopped process takes its signals once it is continued)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    waiting = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
    return bool(waiting & (1 << (signal.SIGTERM - 1) | 1 << (signal.SIGKILL - 1)))


def _manim_pids(scene: str, under: int) -> list[int]:
    """The Manim processes rendering ``scene`` that descend from process ``under`` (other
    tests may render the same scene at the same time, on the other worker)."""
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"manim" not in command or scene.encode() not in command:
            continue
        ancestor = int(proc.name)
        while ancestor > 1 and ancestor != under:
            ancestor = _parent(ancestor)
        if ancestor == under:
            pids.append(int(proc.name))
    return pids


def test_a_failing_scene_is_reported_and_the_others_finish(tmp_path: Path) -> None:
    out = tmp_path / "out"
    process = subprocess.Popen([LECTURE, "build", "RiverBankPrompt", "HeadWalkthrough2", *SILENT,
                                "--out", str(out), "-j", "2"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: bool(_manim_pids("HeadWalkthrough2", process.pid)))
    for pid in _manim_pids("HeadWalkthrough2", process.pid):
        os.kill(pid, signal.SIGKILL)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 1
    assert "HeadWalkthrough2 failed" in stderr
    assert statuses(out) == {"RiverBankPrompt": "rendered", "HeadWalkthrough2": "failed"}
    assert (out / "slides" / "index.html").is_file()


def test_srt_captions_match_recomputed_tensors(built: Path) -> None:

    from render.check import read_srt
    from tests import reference

    ws = load_worksheet(DEFAULT_WORKSHEET)
    values = compute_values(ws)
    numpy = reference.worksheet_values(ws.document)
    checked = 0
    for manifest_path in sorted((built / "video").glob("*.figures.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        srt = read_srt(manifest_path.with_name(manifest_path.name.replace(".figures.json",
                                                                          ".srt")))
        assert sorted(srt) == [c["index"] for c in manifest["captions"]]
        for caption in manifest["captions"]:
            text = srt[caption["index"]]
            for figure in caption["figures"]:
                assert figure["text"] in text
                style = values[figure["key"]].style
                expected = reference.expected_at(numpy, figure["key"], style)
                assert reference.within_display(figure["text"], style, expected), \
                    (figure, expected)
                checked += 1
    assert checked == sum(len(c["figures"]) for path in (built / "video").glob("*.figures.json")
                          for c in json.loads(path.read_text(encoding="utf-8"))["captions"]) > 0


def test_render_writes_numbered_silent_outputs_and_list_shows_durations(tmp_path: Path
                                                                        ) -> None:
    """``render`` of one scene without a voice: its numbered clip, captions and figures,
    the clip silent (no sound track, no speech in its captions), and ``list`` gives its
    length and names the scenes not rendered."""
    from render.scenes import clip_sound

    lecture("render", "RiverBankPrompt", "--narration", "none", *DRAFT, "--out", tmp_path,
            check=True)
    names = sorted(p.name for p in (tmp_path / "video").iterdir())
    assert names == ["01-RiverBankPrompt.figures.json", "01-RiverBankPrompt.mp4",
                     "01-RiverBankPrompt.srt"]
    manifest = next(iter(manifests_of(tmp_path).values()))
    assert manifest["narration"]["engine"] == "none"
    assert all(c["speech"] is None for c in manifest["captions"])
    assert clip_sound(tmp_path / "video" / "01-RiverBankPrompt.mp4") is None
    listing = lecture("list", "--out", tmp_path, check=True).stdout
    first = next(line for line in listing.splitlines() if "RiverBankPrompt" in line)
    assert " s" in first and "not rendered" not in first
    assert "not rendered" in listing


def test_a_worksheet_too_large_for_the_frame_stops_with_the_limit(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_worksheets", Path(__file__).parent / "data" / "make_worksheets.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    doc = maker.shaped(11, 5, 5, {"river": ["river", "bank", "the"]}, {"river": "water"},
                       context=3)
    doc["lesson"]["headNames"] = ["a", "b", "c", "d", "e"]
    path = tmp_path / "five-heads.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert lecture("values", "--worksheet", path).returncode == 0
    for command in ("render", "build"):
        process = lecture(command, "--worksheet", path, "--out", tmp_path / "out")
        assert process.returncode == 2, process.stderr
        assert "at most 4 heads, this worksheet has 5" in process.stderr
    assert not (tmp_path / "out" / "video").exists()


# --------------------------------------------------------------------------- narration


def manifests_of(out: Path) -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted((out / "video").glob("*.figures.json"))}


def srt_times(path: Path) -> list[tuple[float, float]]:
    import srt

    return [(cue.start.total_seconds(), cue.end.total_seconds())
            for cue in srt.parse(path.read_text("utf-8"))]


def test_every_caption_is_spoken_and_its_cue_is_its_speech(built: Path) -> None:
    for name, manifest in manifests_of(built).items():
        assert manifest["narration"]["engine"] == "piper", name
        captions = manifest["captions"]
        cues = srt_times(built / "video" / name.replace(".figures.json", ".srt"))
        assert len(cues) == len(captions)
        for caption, (start, end), following in zip(captions, cues, [*captions[1:], None],
                                                    strict=True):
            speech = caption["speech"]
            assert speech is not None and Path(speech["file"]).is_file()
            assert caption["end"] - caption["start"] == pytest.approx(speech["seconds"],
                                                                      abs=2e-3)
            assert (start, end) == pytest.approx((caption["start"], caption["end"]), abs=2e-3)
            if following is not None:
                assert following["start"] >= caption["end"]  # no sentence over another


def test_no_unmarked_stretch_without_speech_lasts_over_a_second_and_a_half(
        built: Path) -> None:
    for name, manifest in manifests_of(built).items():
        captions, marked = manifest["captions"], manifest["silences"]
        edges = [0.0, *(t for c in captions for t in (c["start"], c["end"])),
                 manifest["duration"]]
        for start, end in zip(edges[::2], edges[1::2], strict=True):
            covered = sum(max(0.0, min(end, s["end"]) - max(start, s["start"]))
                          for s in marked)
            assert end - start - covered <= 1.5, (name, start, end)


def test_each_clip_sounds_at_minus_16_lufs_without_clipping(built: Path) -> None:
    import av
    import numpy as np
    import pyloudnorm

    for name, manifest in manifests_of(built).items():
        clip = built / "video" / name.replace(".figures.json", ".mp4")
        with av.open(str(clip)) as container:
            stream = container.streams.audio[0]
            assert stream.codec_context.name == "aac"
            samples = np.concatenate([f.to_ndarray().ravel() for f in container.decode(stream)])
            rate = stream.rate
        assert len(samples) / rate >= max(c["end"] for c in manifest["captions"])
        lufs = pyloudnorm.Meter(rate).integrated_loudness(samples.astype(np.float64))
        assert abs(lufs - (-16.0)) <= 0.5, (name, lufs)
        assert 20 * np.log10(np.abs(samples).max()) <= -0.5, name  # −1 dBFS, AAC's slack


def test_a_tampered_spoken_number_fails_the_check_naming_it(built: Path,
                                                             tmp_path: Path) -> None:
    from tests import tamper

    out = tmp_path / "spoken"
    shutil.copytree(built, out)
    path = next((out / "video").glob("*-HeadWalkthrough2.figures.json"))
    manifest = json.loads(path.read_text(encoding="utf-8"))
    values = compute_values(load_worksheet(DEFAULT_WORKSHEET))
    key = "river.h2.weights[1]"
    right = values.spoken(key)
    caption = next(c for c in manifest["captions"] if right in c["spoken"])
    caption["spoken"] = caption["spoken"].replace(right, "zero point nine nine nine")
    path.write_text(json.dumps(manifest), encoding="utf-8")
    tamper.rerecord_file(out, "HeadWalkthrough2", path)
    process = lecture("check", "--out", out)
    assert process.returncode == 1
    rows = [line for line in process.stdout.splitlines() if key in line]
    assert rows and "0.999" in rows[0] and values.text(key) in rows[0], process.stdout
    assert f"{path.name} spoken caption {caption['index']}" in process.stdout


def test_a_narrated_clip_without_its_sound_fails_the_check(built: Path,
                                                          tmp_path: Path) -> None:
    from tests import tamper

    out = tmp_path / "mute"
    shutil.copytree(built, out)
    tamper.strip_sound(out, "RiverBankPrompt")
    process = lecture("check", "--out", out)
    assert process.returncode == 1
    clip = tamper.clip_of(out, "RiverBankPrompt").name
    assert f"video/{clip}: narrated, but has no sound track" in process.stdout


def test_a_sound_track_shorter_than_its_cues_fails_the_check(built: Path,
                                                             tmp_path: Path) -> None:
    from tests import tamper

    out = tmp_path / "short"
    shutil.copytree(built, out)
    tamper.shorten_sound(out, "RiverBankPrompt", 5.0)
    process = lecture("check", "--out", out)
    assert process.returncode == 1
    clip = tamper.clip_of(out, "RiverBankPrompt").name
    assert f"video/{clip}: its sound lasts 5." in process.stdout
    assert "shorter than its cues" in process.stdout


def test_a_rebuild_synthesises_only_the_sentences_that_changed(built: Path,
                                                                 tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = manifests_of(built)
    for manifest in before.values():  # a cache holding exactly what the build said
        for caption in manifest["captions"]:
            file = Path(caption["speech"]["file"])
            (cache / file.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, cache / file.parent.name / file.name)
    out = tmp_path / "edited"
    shutil.copytree(built, out)
    edited = edit_w_o(DEFAULT_WORKSHEET, tmp_path / "edited.json")
    env = {**os.environ, "LECTURE_SPEECH_CACHE": str(cache)}
    process = subprocess.run([LECTURE, "build", *SCENES, *DRAFT, "--out", str(out), "--worksheet",
                              str(edited)], capture_output=True, text=True, check=False, env=env)
    assert process.returncode == 0, process.stderr[-2000:]
    said_before = {c["spoken"] for m in before.values() for c in m["captions"]}
    said_after = {c["spoken"] for m in manifests_of(out).values() for c in m["captions"]}
    new = said_after - said_before
    assert new  # the W_O edit changes what PredictionMLP says
    assert len(list(cache.rglob("*.wav"))) == len(said_before) + len(new)


def _offline() -> list[str]:
    """The command prefix that runs a command in a network namespace of its own (no
    network at all); the test that needs it is skipped where none can be made."""
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "--net", "true"], check=False).returncode != 0:
        pytest.skip("cannot make a network namespace here")
    return ["unshare", "--net"]


def test_another_voice_speaks_without_a_network_espeak_speaks_and_a_missing_voice_is_refused(
        tmp_path: Path) -> None:
    """A Piper voice the user keeps elsewhere speaks every sentence afresh (an empty
    speech cache) with no network; espeak speaks too; a voice file that is not there is
    refused in one line before anything is written."""
    from narration.voices import default_voice_model
    from render.scenes import clip_sound

    model = default_voice_model()
    mine = tmp_path / "voices" / "my-voice.onnx"
    mine.parent.mkdir()
    shutil.copyfile(model, mine)
    shutil.copyfile(f"{model}.json", f"{mine}.json")
    cache = tmp_path / "empty-cache"
    process = subprocess.run([*_offline(), LECTURE, "render", "RiverBankPrompt", "--voice",
                              str(mine), *DRAFT, "--out", str(tmp_path / "mine")],
                             capture_output=True, text=True, check=False,
                             env={**os.environ, "LECTURE_SPEECH_CACHE": str(cache)})
    assert process.returncode == 0, process.stderr[-2000:]
    lecture("render", "RiverBankPrompt", "--narration", "espeak", *DRAFT, "--out",
            tmp_path / "espeak", check=True)
    engines = {}
    for name in ("mine", "espeak"):
        manifest = next(iter(manifests_of(tmp_path / name).values()))
        engines[name] = manifest["narration"]["engine"]
        assert all(c["speech"]["seconds"] > 1 for c in manifest["captions"])
        sound = clip_sound(next((tmp_path / name / "video").glob("*.mp4")))
        assert sound is not None and sound[0] > 10
    assert engines == {"mine": "piper", "espeak": "espeak"}
    spoken = {c["spoken"] for c in next(iter(manifests_of(tmp_path / "mine").values()))
              ["captions"]}
    assert len(list(cache.rglob("*.wav"))) == len(spoken) > 0

    process = lecture("render", "RiverBankPrompt", "--voice", tmp_path / "none.onnx",
                      "--out", tmp_path / "missing")
    assert process.returncode == 2
    assert process.stderr.strip().count("\n") == 0 and "none.onnx" in process.stderr
    assert "Traceback" not in process.stderr and not (tmp_path / "missing").exists()


def test_the_draft_quality_ends_each_section_on_the_frame_that_dash_ql_shows(
        lesson: Path, tmp_path: Path) -> None:
    """``--quality draft`` has ``-ql``'s pictures at 5 frames a second, as the shared
    lesson (whose MayaRecall, a short clip, is the draft compared here) is built: the same
    captions and sections, with the same figures in the same boxes; each step rounds up to
    a whole frame, so the times
    drift by at most a draft frame (0.2 s) per caption; and the frame each section ends on
    looks the same (both are compressed, so within a few levels)."""
    from render.frames import decode_frames

    lecture("render", "MayaRecall", "--narration", "none", "--quality", "l",
            "--out", tmp_path / "l", check=True)
    clips = {}
    for quality, out in (("l", tmp_path / "l"), ("draft", lesson)):  # the lesson is draft
        (name,) = [n for n in manifests_of(out) if "MayaRecall" in n]
        manifest = manifests_of(out)[name]
        video = out / "video" / name.replace(".figures.json", ".mp4")
        clips[quality] = (manifest, decode_frames(video, [s["frame"] for s in
                                                          manifest["sections"]]))
    (ql, ql_frames), (draft, draft_frames) = clips["l"], clips["draft"]
    assert (ql["frame_rate"], draft["frame_rate"]) == (15, 5)
    drift = 0.2 * len(ql["captions"]) + 1e-6
    assert abs(draft["duration"] - ql["duration"]) <= drift
    timeless = [{k: v for k, v in c.items() if k not in ("start", "end")}
                for c in draft["captions"]]
    assert timeless == [{k: v for k, v in c.items() if k not in ("start", "end")}
                        for c in ql["captions"]]
    for ours, theirs in zip(draft["captions"], ql["captions"], strict=True):
        assert abs(ours["start"] - theirs["start"]) <= 0.2 * ours["index"] + 1e-6
    assert len(draft["sections"]) == len(ql["sections"]) > 1
    for ours, theirs in zip(draft["sections"], ql["sections"], strict=True):
        assert (ours["name"], ours["figures"]) == (theirs["name"], theirs["figures"])
        assert abs((ours["frame"] + 1) / 5 - (theirs["frame"] + 1) / 15) <= drift
        a = draft_frames[ours["frame"]].astype(int)
        b = ql_frames[theirs["frame"]].astype(int)
        assert a.shape == b.shape == (480, 854, 3)
        difference = abs(a - b)
        assert difference.mean() < 1.5 and (difference > 48).mean() < 0.002, ours["name"]
