"""Scene subtitles: SubRip ``.srt`` read with :mod:`srt`, WebVTT for ``<track>`` written and
read with :mod:`webvtt` (webvtt-py).

WebVTT cue text is markup: a ``<`` opens a tag and ``&`` a character reference. webvtt-py
writes a cue's text as given and reads it back with its references left in, so the plain
text of a SubRip cue is escaped here on the way in and unescaped on the way out.
"""

from __future__ import annotations

import html
from datetime import timedelta

import srt
from webvtt import Caption, WebVTT
from webvtt.errors import MalformedCaptionError, MalformedFileError

__all__ = ["CaptionError", "read_subrip", "srt_to_vtt", "webvtt_texts"]


class CaptionError(ValueError):
    """A subtitle file cannot be read; the message names the file and, where known, the line.

    ``source`` is the file, ``detail`` what is wrong in it.
    """

    def __init__(self, source: str, detail: str) -> None:
        super().__init__(f"{source}: {detail}")
        self.source = source
        self.detail = detail


def read_subrip(text: str, source: str = "<srt>") -> list[srt.Subtitle]:
    """The cues of SubRip subtitles, in file order.

    Raises
    ------
    CaptionError
        When some text is not a cue (a number, a timing line, the cue's text), naming the
        line where the unreadable text starts, or a cue's text holds an empty line.
    """
    text = text.removeprefix("\ufeff")
    try:
        cues = list(srt.parse(text))
    except srt.SRTParseError as error:
        skipped = error.unmatched_content
        start = error.expected_start + len(skipped) - len(skipped.lstrip())
        line = text.count("\n", 0, start) + 1
        shown = "\n".join(text[start:].splitlines()[:2])
        raise CaptionError(source, f"line {line}: expected a cue, "
                           "its number then a timing such as 00:00:01,000 --> 00:00:02,500; "
                           f"got {shown!r}") from None
    for cue in cues:  # srt takes text after an empty line as the cue's if no timing follows
        if not all(cue.content.splitlines()):
            raise CaptionError(source, f"cue {cue.index}: its text {cue.content!r} has an empty "
                               "line, where a cue ends; expected the next cue's number and "
                               "timing after it")
    return cues


def _stamp(time: timedelta) -> str:
    return srt.timedelta_to_srt_timestamp(time).replace(",", ".")


def srt_to_vtt(text: str, source: str = "<srt>") -> str:
    """Convert SubRip subtitles to WebVTT: same cues and timings, cue text as plain text.

    Raises
    ------
    CaptionError
        When the subtitles cannot be read (see :func:`read_subrip`).
    """
    cues = [Caption(_stamp(cue.start), _stamp(cue.end), html.escape(cue.content, quote=False))
            for cue in read_subrip(text, source)]
    return WebVTT(captions=cues).content


def webvtt_texts(text: str, source: str = "<vtt>") -> list[str]:
    """The cue texts of WebVTT captions, in order, with character references undone.

    Raises
    ------
    CaptionError
        When the text is not WebVTT (no ``WEBVTT`` header) or a cue's timing cannot be read.
    """
    try:
        captions = WebVTT.from_string(text, strict=True)
    except MalformedFileError:
        raise CaptionError(source, "not WebVTT: expected its first line to be WEBVTT") from None
    except MalformedCaptionError as error:
        raise CaptionError(source, f"a cue that cannot be read ({error})") from None
    return [html.unescape(caption.raw_text) for caption in captions.captions]
