"""Ways to spoil a build that leave only the pixels to tell: the tests use them to prove
that ``lecture check --frames`` catches what digests and tags cannot.

Each function changes a clip, then brings every record, tag and the deck up to date with
the new bytes, as a careless or dishonest tool would.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import av
import numpy as np

from narration.track import Track
from outputs.files import file_digest
from render.scenes import clip_tags, tag_clip


def clip_of(out: Path, scene: str) -> Path:
    return next((out / "video").glob(f"*-{scene}.mp4"))


def manifest_of(out: Path, scene: str) -> dict[str, Any]:
    path = next((out / "video").glob(f"*-{scene}.figures.json"))
    return json.loads(path.read_text(encoding="utf-8"))


def rerecord(out: Path, scene: str) -> None:
    """Make the records, the deck's copy and the deck itself agree with the clip's bytes."""
    clip = clip_of(out, scene)
    digest = file_digest(clip)
    record_path = out / "records" / f"{scene}.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["outputs"][f"video/{clip.name}"] = digest
    record_path.write_text(json.dumps(record), encoding="utf-8")
    copy = out / "slides" / "video" / clip.name
    shutil.copyfile(clip, copy)
    index = out / "slides" / "index.html"
    html = re.sub(rf'(src="video/{re.escape(clip.name)}" data-sha256=")[0-9a-f]+',
                  rf"\g<1>{digest}", index.read_text(encoding="utf-8"))
    index.write_text(html, encoding="utf-8")
    deck_path = out / "records" / "slides.json"
    deck = json.loads(deck_path.read_text(encoding="utf-8"))
    deck["outputs"][f"slides/video/{clip.name}"] = digest
    deck["outputs"]["slides/index.html"] = file_digest(index)
    deck["clips"][f"video/{clip.name}"] = digest
    for poster in deck.get("posters", {}).values():  # the posters name their clip too
        if poster["clip"] == f"video/{clip.name}":
            poster["sha256"] = digest
    deck_path.write_text(json.dumps(deck), encoding="utf-8")
    board_path = out / "records" / "storyboard.json"
    if board_path.exists():  # the storyboard names the clips its frames came from
        board = json.loads(board_path.read_text(encoding="utf-8"))
        board["clips"][f"video/{clip.name}"] = digest
        for frame in board["frames"].values():
            if frame["clip"] == f"video/{clip.name}":
                frame["sha256"] = digest
        board_path.write_text(json.dumps(board), encoding="utf-8")
    if (out / "records" / "lecture.json").exists():  # the lecture joins the clip too
        rejoin(out)


def rejoin(out: Path) -> None:
    """Join the lecture again from the clips as they are now, as a build would: a clip
    encoded otherwise than the others cannot join without re-encoding, and the lecture is
    then removed."""
    from outline import TITLE, lecture_order
    from render.export import ExportError, write_exports

    build = json.loads((out / "build.json").read_text(encoding="utf-8"))
    names = {s["name"] for s in build["scenes"] if s["status"] in ("rendered", "reused")}
    try:
        write_exports(out, lecture_order(build["heads"]), names, names, TITLE)
    except ExportError:
        pass


def swap_clip(out: Path, source: str, target: str) -> None:
    """Put ``source``'s clip where ``target``'s was, with ``target``'s tags and records."""
    clip = clip_of(out, target)
    tags = {k: v for k, v in clip_tags(clip).items() if k.startswith("lecture_")}
    staging = clip.with_name("swap.mp4")
    tag_clip(clip_of(out, source), staging, tags)
    staging.replace(clip)
    rerecord(out, target)


def blank_figure(out: Path, scene: str, key: str) -> tuple[str, int]:
    """Paint over the figure ``key`` where ``scene``'s manifest first places it, for the
    last two seconds before that section ends; re-encode the clip nearly losslessly.

    Returns the section's name and frame.
    """
    manifest = manifest_of(out, scene)
    section, box = next((s, f["box"]) for s in manifest["sections"]
                        for f in s["figures"] if f["key"] == key)
    last = int(section["frame"])
    clip = clip_of(out, scene)
    tags = clip_tags(clip)
    staging = clip.with_name("blank.mp4")
    left, top, right, bottom = (int(np.floor(box[0])) - 2, int(np.floor(box[1])) - 2,
                                int(np.ceil(box[2])) + 2, int(np.ceil(box[3])) + 2)
    with av.open(str(clip)) as source, av.open(str(staging), "w") as target:
        stream = source.streams.video[0]
        rate = stream.average_rate
        encoded = target.add_stream("libx264", rate=rate)
        encoded.width, encoded.height = stream.width, stream.height
        encoded.pix_fmt = "yuv420p"
        encoded.options = {"crf": "0", "preset": "ultrafast"}  # lossless, and quick
        for number, frame in enumerate(source.decode(stream)):
            pixels = frame.to_ndarray(format="rgb24")
            if last - 2 * float(rate) <= number <= last:
                ring = np.concatenate([pixels[top - 1, left:right], pixels[bottom, left:right]])
                pixels[top:bottom, left:right] = np.median(ring, axis=0).astype(np.uint8)
            for packet in encoded.encode(av.VideoFrame.from_ndarray(pixels, format="rgb24")):
                target.mux(packet)
        for packet in encoded.encode():
            target.mux(packet)
    with av.open(str(clip)) as source:
        spoken = bool(source.streams.audio)
    tag_clip(staging, clip, {k: v for k, v in tags.items() if k.startswith("lecture_")},
             sound_of(clip) if spoken else None)  # a silent clip stays silent
    staging.unlink()
    rerecord(out, scene)
    return section["name"], last


def rerecord_file(out: Path, scene: str, path: Path) -> None:
    """Make ``scene``'s record agree with the new bytes of one of its outputs."""
    record_path = out / "records" / f"{scene}.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["outputs"][path.relative_to(out).as_posix()] = file_digest(path)
    record_path.write_text(json.dumps(record), encoding="utf-8")


def rerecord_deck_file(out: Path, rel: str) -> None:
    """Bring the deck record's digest of ``slides/REL`` up to date with the file as it is
    now, as a tamperer who knows the records would."""
    record = out / "records" / "slides.json"
    deck = json.loads(record.read_text(encoding="utf-8"))
    deck["outputs"][f"slides/{rel}"] = file_digest(out / "slides" / rel)
    record.write_text(json.dumps(deck), encoding="utf-8")


def strip_sound(out: Path, scene: str) -> None:
    """Keep only the video of ``scene``'s clip (tags and all), as a silent render would."""
    clip = clip_of(out, scene)
    staging = clip.with_name("silent.mp4")
    with av.open(str(clip)) as source, av.open(
            str(staging), "w", format="mp4",
            options={"movflags": "use_metadata_tags+faststart"}) as target:
        target.metadata.update(source.metadata)
        video = target.add_stream_from_template(source.streams.video[0])
        for packet in source.demux(source.streams.video[0]):
            if packet.dts is not None:
                packet.stream = video
                target.mux(packet)
    staging.replace(clip)
    rerecord(out, scene)


def sound_of(clip: Path, seconds: float | None = None) -> Track:
    """The clip's sound track as samples (its first ``seconds`` when given)."""
    with av.open(str(clip)) as source:
        stream = source.streams.audio[0]
        rate = stream.rate
        samples = np.concatenate([f.to_ndarray().ravel() for f in source.decode(stream)])
    if seconds is not None:
        samples = samples[:int(seconds * rate)]
    return Track(samples.astype(np.float64), rate, 0.0, 0.0)


def shorten_sound(out: Path, scene: str, seconds: float) -> None:
    """Cut ``scene``'s sound track to its first ``seconds``."""
    clip = clip_of(out, scene)
    staging = clip.with_name("short.mp4")
    tags = {k: v for k, v in clip_tags(clip).items() if k.startswith("lecture_")}
    tag_clip(clip, staging, tags, sound_of(clip, seconds))
    staging.replace(clip)
    rerecord(out, scene)
