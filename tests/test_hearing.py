"""``lecture check --audio`` hears every spoken figure back from the clips' sound, proven on
a real narrated build of two short clips: it hears all of them, it hears a number said
otherwise as what was said, and a clip whose sound track is another clip's fails even
with every digest brought up to date."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from string import Formatter
from typing import Any

import pytest

from render.check import check_build
from render.hearing import (
    CaptionJob,
    Slot,
    caption_grammar,
    caption_jobs,
    clip_samples,
    hear_caption,
    shaped_as,
)
from render.spoken import read_spoken
from tests.conftest import NARRATED_SCENES, run_lecture
from worksheet import Style, Values, compute_values, load_worksheet
from worksheet.formatting import speak

SCENES = ("RiverBankPrompt", "HeadWalkthrough2")


@pytest.fixture(scope="module")
def built(narrated: Path) -> Path:
    """The two clips (and a third, not heard here), narrated by the default Piper voice at
    the draft quality: the suite's shared narrated build, read-only."""
    assert set(SCENES) <= set(NARRATED_SCENES)
    return narrated


@pytest.fixture(scope="module")
def values(built: Path) -> Values:
    from worksheet.results import load_experiment

    build = json.loads((built / "build.json").read_text(encoding="utf-8"))
    worksheet = load_worksheet(Path(build["worksheet"]["path"]))
    experiment = build.get("experiment")
    return compute_values(worksheet, load_experiment(Path(experiment["path"]), worksheet)
                          if experiment else None)


def manifest(out: Path, scene: str) -> dict[str, Any]:
    path = next((out / "video").glob(f"*-{scene}.figures.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def spoken_figures(out: Path, values: Values) -> int:
    """How many figures the two clips' captions speak (words a model wrote are none)."""
    return sum(1 for scene in SCENES for caption in manifest(out, scene)["captions"]
               for _, name, _, _ in Formatter().parse(caption["template"])
               if name in caption["slots"] and values[caption["slots"][name]].style
               is not Style.TEXT)


def test_every_spoken_figure_is_heard_in_the_sound(built: Path, values: Values) -> None:
    process = run_lecture("check", *SCENES, "--audio", "--out", built)
    assert process.returncode == 0, process.stdout
    assert "figures heard in the sound" in process.stdout
    rows = [line for line in process.stdout.splitlines() if ".mp4" in line and "│" in line]
    assert len(rows) == len(SCENES) and all("100%" in row for row in rows), process.stdout
    assert f"{spoken_figures(built, values)} spoken figures heard" in process.stdout


def test_the_recogniser_is_never_told_the_numbers(built: Path, values: Values) -> None:
    """A caption's grammar is the same whatever its figures' values: only their styles
    shape it. Heard again within a reading's shape, a number's words are free within their
    kinds: sixteen thousand, six hundred forty has the grammar of nineteen thousand, two
    hundred ninety."""
    jobs = [job for scene in SCENES for job in caption_jobs(manifest(built, scene), values)
            if job.slots]
    assert len(jobs) >= 8
    for job in jobs:
        other = CaptionJob(job.index, job.start, job.end, job.template, job.words,
                           {name: Slot(name, slot.key, slot.style, "999")
                            for name, slot in job.slots.items()},
                           {key: "nine hundred ninety-nine" for key in job.spoken})
        assert caption_grammar(job) == caption_grammar(other)
    shape = shaped_as(speak("16,640", Style.COUNT), 0)
    assert shape == shaped_as(speak("19,290", Style.COUNT), 0)
    assert shape != shaped_as(speak("60,640", Style.COUNT), 0)
    assert shaped_as(speak("0.718", Style.FIXED3), 1) == \
        shaped_as(speak("9.006", Style.FIXED3), 1)


def test_a_number_said_otherwise_is_heard_as_said(built: Path, values: Values) -> None:
    """The same sentence in the same voice with one digit changed is heard with that
    digit: the figure heard comes from the sound, not from the caption."""
    import numpy as np

    from narration.text import spoken_text
    from narration.track import read_wav
    from narration.voices import open_voice
    from render.hearing import RATE

    clip = next((built / "video").glob("*-HeadWalkthrough2.mp4"))
    job = next(job for job in caption_jobs(manifest(built, "HeadWalkthrough2"), values)
               if len(job.slots) == 1 and next(iter(job.slots.values())).style is Style.FIXED3)
    (name, slot), = job.slots.items()
    heard, = hear_caption(clip_samples(clip), job)
    assert heard is not None and read_spoken(heard, slot.style) == slot.expected
    other = slot.expected[:-1] + str((int(slot.expected[-1]) + 1) % 10)
    speech = open_voice("piper").speak(spoken_text(job.template,
                                                   {name: speak(other, slot.style)}))
    assert speech is not None
    said, rate = read_wav(speech.path)
    samples = np.zeros(round((job.end + 1) * RATE), dtype=np.int16)
    resampled = np.interp(np.arange(0, len(said), rate / RATE), np.arange(len(said)), said)
    at = round(job.start * RATE)
    samples[at:at + len(resampled)] = (resampled * 16000).astype(np.int16)[:len(samples) - at]
    heard, = hear_caption(samples, job)
    assert heard is not None and read_spoken(heard, slot.style) == other


def test_a_sound_track_swapped_for_another_clips_fails(built: Path, values: Values,
                                                        tmp_path: Path) -> None:
    """HeadWalkthrough2 with RiverBankPrompt's sound (cut to its own length: the prompt's
    clip is the longer), its tags, records and the deck brought up to date: everything else
    holds, the sound does not."""
    from render.scenes import clip_tags, tag_clip
    from tests import tamper

    out = tmp_path / "swapped"
    shutil.copytree(built, out)
    clip = tamper.clip_of(out, "HeadWalkthrough2")
    seconds = tamper.sound_of(clip).seconds
    other = tamper.clip_of(out, "RiverBankPrompt")
    assert tamper.sound_of(other).seconds > seconds
    staging = clip.with_name("swap.mp4")
    tag_clip(clip, staging, {k: v for k, v in clip_tags(clip).items() if k.startswith("lecture_")},
             tamper.sound_of(other, seconds))
    staging.replace(clip)
    tamper.rerecord(out, "HeadWalkthrough2")

    report = check_build(out, scenes=["HeadWalkthrough2"], audio=True)
    assert not report.problems and not report.stale
    hearing, = report.hearing
    assert hearing.figures and hearing.heard == 0
    assert report.mismatches and all("sound of caption" in m.where for m in report.mismatches)
    assert {m.key for m in report.mismatches} == {f.key for f in hearing.figures}
