"""``lecture check --frames``: read every figure back from the pixels of the encoded clips.

For each clip, the frame at the end of every section is decoded (PyAV), and every figure
the manifest says is on screen is cropped at its recorded pixel box and read with
tesseract (through ``tesserocr``). The reading knows nothing of the scenes: it is given
the box and a character set (digits, ``. , − e + [ ] <``), never the text to expect.
Its answer is compared with the fresh display text of the figure's key; a figure that
cannot be read is a failure, not a skip.

Reading a crop: the box plus a small margin is split by Otsu's threshold into background
(the larger class) and ink, ink is scaled to a fixed digit height and binarised, marks
that lie mostly outside the glyph box (a neighbour, a highlight frame) are dropped, and so
is the dot inside DejaVu Sans Mono's zero, which tesseract otherwise reads as a nine (where
a dim zero's dot touches its ring, the dot is found at higher ink levels). Three
such preparations are read; when they disagree, two more are read and the most frequent
reading wins (a tie is a failure). Periods and commas, the one pair tesseract confuses at
480p, are then settled by the height of their marks.

numpy and scipy.ndimage here process images; they compute nothing of the lesson.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from outputs.video import video_frames
from render.cores import map_per_core

__all__ = [
    "CHARACTERS",
    "TESSDATA",
    "FigureReading",
    "OcrError",
    "SceneReading",
    "normalise",
    "read_clip",
    "read_clips",
    "read_crop",
    "require_ocr",
]

TESSDATA = Path(os.environ.get("TESSDATA_PREFIX", "/usr/share/tesseract-ocr/5/tessdata"))
CHARACTERS = "0123456789.,-e+[]<l"
"""What the reader may answer: every character a displayed figure can hold (a minus of any
kind reads as ``-``), and ``l``, which DejaVu Sans Mono's ``1`` resembles."""


@dataclass(frozen=True)
class _Preparation:
    height: float
    """Target height of the glyph box, in pixels."""
    level: float
    """Share of full ink above which a pixel counts as ink."""
    margin: int
    """Pixels kept around the glyph box before scaling, in a frame :data:`TUNED_AT` tall."""


TUNED_AT = 480
"""The frame height the preparations' margins are given for: a taller frame widens them in
proportion, so a stroke as tall as its glyph box (a "1") never spans the crop and is never
taken for a box's border."""
FIRST = (_Preparation(34, 0.35, 3), _Preparation(30, 0.35, 2), _Preparation(38, 0.35, 3))
"""Read first; when all three agree, that is the reading."""
MORE = (_Preparation(32, 0.45, 2), _Preparation(26, 0.35, 3))
"""Read as well when the first three disagree."""
PAD = 12


class OcrError(RuntimeError):
    """The OCR engine or its data is missing; the message says what to install."""


def normalise(text: str) -> str:
    """Text as compared: no spaces, every minus sign the same, ``l`` read as ``1``."""
    for dash in ("\u2212", "\u2013", "\u2014", "-"):
        text = text.replace(dash, "\u2212")
    return "".join(text.split()).replace("l", "1")


# --------------------------------------------------------------------------- preparing


def _otsu(values: np.ndarray) -> float:
    """The grey level that best splits ``values`` into two classes."""
    hist, edges = np.histogram(values, bins=64, range=(0, 255))
    levels = np.arange(64)
    weight = np.cumsum(hist)
    total = weight[-1]
    mass = np.cumsum(hist * levels)
    lower = weight[:-1]
    upper = total - lower
    valid = (lower > 0) & (upper > 0)
    if not valid.any():
        return float(values.mean())
    mean_lower = mass[:-1] / np.where(lower > 0, lower, 1)
    mean_upper = (mass[-1] - mass[:-1]) / np.where(upper > 0, upper, 1)
    between = np.where(valid, lower * upper * (mean_lower - mean_upper) ** 2, -1)
    return float(edges[int(np.argmax(between)) + 1])


def _ink(gray: np.ndarray) -> np.ndarray:
    """0 for background, 1 for full ink: the larger Otsu class is the background."""
    cut = _otsu(gray.ravel())
    low, high = gray[gray <= cut], gray[gray > cut]
    if not len(low) or not len(high):
        return np.zeros_like(gray)
    if len(low) >= len(high):
        background, ink = float(np.median(low)), float(np.percentile(high, 90))
    else:
        background, ink = float(np.median(high)), float(np.percentile(low, 10))
    if ink == background:
        return np.zeros_like(gray)
    return np.clip((gray - background) / (ink - background), 0.0, 1.0)


def _without_rules(mask: np.ndarray) -> np.ndarray:
    """``mask`` without the columns and rows inked across nine tenths of the crop: the
    border of a box drawn beside the figure. A glyph lies within the crop's margins, so
    it never spans one."""
    mask = mask.copy()
    mask[:, mask.mean(axis=0) > 0.9] = False
    mask[mask.mean(axis=1) > 0.9, :] = False
    return mask


DOT_LEVELS = (0.5, 0.65, 0.8)
"""Ink levels at which the dot inside a zero is looked for: a dim zero (a head's colour on
the dark background) joins its dot to its ring at the reading level, not at all of these."""


def _zero_dots(scaled: np.ndarray, level: float) -> np.ndarray:
    """The dots nested inside another mark (a zero's) where the ink exceeds ``level``,
    grown by two pixels to take the faint ink that joins them to the ring."""
    from scipy import ndimage

    strong = _without_rules(scaled > level)
    labels, _ = ndimage.label(strong, structure=np.ones((3, 3)))
    boxes = ndimage.find_objects(labels)
    dots = np.zeros_like(strong)
    for number, box in enumerate(boxes, start=1):
        if any(other != number and _nested(box, boxes[other - 1])
               for other in range(1, len(boxes) + 1)):
            dots |= labels == number
    return ndimage.binary_dilation(dots, iterations=2)


def _nested(inner: tuple[slice, slice], outer: tuple[slice, slice]) -> bool:
    """Whether box ``inner`` lies strictly within box ``outer``."""
    return all(o.start < i.start and i.stop < o.stop for i, o in zip(inner, outer, strict=True))


def _keep(mask: np.ndarray, glyphs: tuple[int, int, int, int]) -> np.ndarray:
    """Drop marks mostly outside the glyph box and marks nested inside another mark."""
    from scipy import ndimage

    labels, count = ndimage.label(mask, structure=np.ones((3, 3)))
    left, top, right, bottom = glyphs
    inside = np.zeros_like(mask)
    inside[top:bottom, left:right] = True
    boxes = ndimage.find_objects(labels)
    keep = np.zeros(count + 1, dtype=bool)
    for number, box in enumerate(boxes, start=1):
        part = labels[box] == number
        keep[number] = (part & inside[box]).sum() * 2 >= part.sum()

    for number, box in enumerate(boxes, start=1):
        if keep[number] and any(keep[other] and other != number and _nested(box, boxes[other - 1])
                                for other in range(1, count + 1)):
            keep[number] = False
    return keep[labels]


def prepare(frame: np.ndarray, box: Sequence[float], how: _Preparation) -> np.ndarray:
    """A crop of ``frame`` at ``box`` (left, top, right, bottom in pixels), as black ink on
    white, scaled, cleaned and padded for tesseract (uint8)."""
    from PIL import Image

    left, top, right, bottom = box
    height, width = frame.shape[:2]
    margin = max(how.margin, round(how.margin * height / TUNED_AT))
    x0, y0 = max(0, int(np.floor(left)) - margin), max(0, int(np.floor(top)) - margin)
    x1 = min(width, int(np.ceil(right)) + margin)
    y1 = min(height, int(np.ceil(bottom)) + margin)
    gray = frame[y0:y1, x0:x1].astype(float) @ np.array([0.299, 0.587, 0.114])
    ink = _ink(gray)
    scale = how.height / max(1.0, bottom - top)
    size = (max(1, round(ink.shape[1] * scale)), max(1, round(ink.shape[0] * scale)))
    scaled = np.asarray(Image.fromarray((255 * ink).astype(np.uint8)).resize(
        size, Image.Resampling.LANCZOS)) / 255.0
    glyphs = (max(0, int((left - x0) * scale)), max(0, int((top - y0) * scale)),
              int(np.ceil((right - x0) * scale)), int(np.ceil((bottom - y0) * scale)))
    inked = _without_rules(scaled > how.level)
    for level in DOT_LEVELS:
        inked &= ~_zero_dots(scaled, level)
    mask = _keep(inked, glyphs)
    page = np.full((mask.shape[0] + 2 * PAD, mask.shape[1] + 2 * PAD), 255, dtype=np.uint8)
    page[PAD:PAD + mask.shape[0], PAD:PAD + mask.shape[1]] = np.where(mask, 0, 255)
    return page


# --------------------------------------------------------------------------- reading


def require_ocr() -> None:
    """Fail at once when the pixels cannot be read: before a check's other work.

    Raises
    ------
    OcrError
        When tesserocr or tesseract's English data is missing.
    """
    try:
        import tesserocr  # noqa: F401
    except ImportError as error:
        raise OcrError(f"tesserocr is not installed ({error}); run ./setup.sh") from None
    if not (TESSDATA / "eng.traineddata").is_file():
        raise OcrError(f"{TESSDATA}/eng.traineddata: not found; install Debian's "
                       "tesseract-ocr (./setup.sh does it) or set TESSDATA_PREFIX")


class _Reader:
    """One tesseract engine, set up for single lines of figure characters."""

    def __init__(self) -> None:
        require_ocr()
        import tesserocr

        self.tesserocr = tesserocr
        self.api = tesserocr.PyTessBaseAPI(path=str(TESSDATA), lang="eng",
                                           psm=tesserocr.PSM.SINGLE_LINE)
        self.api.SetVariable("tessedit_char_whitelist", CHARACTERS)
        self.api.SetVariable("user_defined_dpi", "300")

    def read(self, page: np.ndarray) -> str:
        from PIL import Image

        self.api.SetImage(Image.fromarray(page))
        return normalise(self.api.GetUTF8Text())


_READER: _Reader | None = None


def _reader() -> _Reader:
    global _READER  # one engine per process, made on first use
    if _READER is None:
        _READER = _Reader()
    return _READER


PERIOD_UP_TO, COMMA_FROM = 0.255, 0.285
"""A mark low on the line no taller than this share of the digits is a period, one at least
this tall a comma (its tail); in between, the OCR's reading stands. Measured on the
lesson's clips at 480p: periods 0.16 to 0.27 of the digit height, commas 0.28 to 0.43."""


def _marks(page: np.ndarray) -> list[float]:
    """Height, as a share of the digits' height, of each small mark that sits low on the
    line (a period or a comma, not a minus), left to right."""
    from scipy import ndimage

    labels, _ = ndimage.label(page < 128, structure=np.ones((3, 3)))
    parts = sorted((box[1].start, box[1].stop, box[0].start, box[0].stop)
                   for box in ndimage.find_objects(labels))
    if not parts:
        return []
    tallest = max(bottom - top for _, _, top, bottom in parts)
    digits = [part for part in parts if part[3] - part[2] >= 0.6 * tallest]
    top = float(np.median([part[2] for part in digits]))
    height = float(np.median([part[3] for part in digits])) - top
    return [(bottom - upper) / height for left, right, upper, bottom in parts
            if bottom - upper < 0.45 * height and right - left < 0.45 * height
            and (upper + bottom) / 2 > top + 0.6 * height]


def _settle_punctuation(reading: str, pages: Sequence[np.ndarray]) -> str:
    """Tesseract mistakes a period for a comma now and then at 480p; the marks' own
    heights tell them apart. Each ``.`` or ``,`` of the reading becomes what its mark's
    height, averaged over the pages, says, when all pages find that many marks."""
    found = [_marks(page) for page in pages]
    places = [i for i, char in enumerate(reading) if char in ".,"]
    if not places or any(len(marks) != len(places) for marks in found):
        return reading
    settled = list(reading)
    for place, height in zip(places, np.mean(found, axis=0), strict=True):
        if height <= PERIOD_UP_TO:
            settled[place] = "."
        elif height >= COMMA_FROM:
            settled[place] = ","
    return "".join(settled)


def read_crop(frame: np.ndarray, box: Sequence[float]) -> str | None:
    """What the figure at ``box`` reads as, or ``None`` when the readings do not settle."""
    reader = _reader()
    pages = [prepare(frame, box, how) for how in FIRST]
    first = [reader.read(page) for page in pages]
    if first[0] and len(set(first)) == 1:
        return _settle_punctuation(first[0], pages)
    readings = first + [reader.read(prepare(frame, box, how)) for how in MORE]
    ranked = Counter(text for text in readings if text).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return _settle_punctuation(ranked[0][0], pages)


# --------------------------------------------------------------------------- clips


@dataclass(frozen=True)
class FigureReading:
    """One figure of a clip: where it was read, what was expected and what was read."""

    section: str
    frame: int
    key: str
    expected: str
    read: str | None

    @property
    def matched(self) -> bool:
        return self.read is not None and self.read == normalise(self.expected)


@dataclass
class SceneReading:
    clip: str
    figures: list[FigureReading] = field(default_factory=list)
    error: str = ""

    @property
    def read(self) -> int:
        return sum(1 for f in self.figures if f.read is not None)

    @property
    def matched(self) -> int:
        return sum(1 for f in self.figures if f.matched)


def decode_frames(video: Path, wanted: Iterable[int]) -> dict[int, np.ndarray]:
    """The frames numbered ``wanted`` (from zero) of ``video`` as RGB arrays.

    Seeks to the keyframe before each wanted frame and decodes forward from there.
    """
    return {n: frame.to_ndarray(format="rgb24") for n, frame in video_frames(video, wanted)}


def read_clip(video: Path, sections: Sequence[dict[str, Any]],
              expected: dict[str, str]) -> SceneReading:
    """Read every figure of one clip's sections; ``expected`` maps keys to fresh texts."""
    import av

    result = SceneReading(video.name)
    try:
        frames = decode_frames(video, [int(s["frame"]) for s in sections])
    except (av.FFmpegError, OSError, ValueError) as error:  # reported, not raised
        result.error = f"cannot decode {video.name}: {error}"
        return result
    for section in sections:
        frame = frames.get(int(section["frame"]))
        for figure in section["figures"]:
            read = None if frame is None else read_crop(frame, figure["box"])
            result.figures.append(FigureReading(section["name"], int(section["frame"]),
                                                figure["key"], expected[figure["key"]], read))
        if frame is None and section["figures"]:
            result.error = f"{video.name} has no frame {section['frame']}"
    return result


def _read_job(job: tuple[Path, list[dict[str, Any]], dict[str, str]]) -> SceneReading:
    return read_clip(*job)


def read_clips(jobs: Sequence[tuple[Path, list[dict[str, Any]], dict[str, str]]],
               workers: int | None = None) -> list[SceneReading]:
    """Read several clips, one worker process per core (each with its own engine)."""
    _reader()  # fail here, once, when tesseract is missing
    return map_per_core(_read_job, jobs, workers)
