"""The built deck as files: every figure element equals a fresh recomputation, no digit is
shown outside one, worksheet words display literally, clips attach to their part, and the
deck folder is written whole or not at all."""

from __future__ import annotations

import json
import re
from base64 import b64decode
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from outline import lecture_order, video_stem
from outputs.files import OutputError
from slides import deck as deck_module
from slides.assets import DeckError, deck_assets
from slides.captions import CaptionError, srt_to_vtt, webvtt_texts
from slides.deck import TEMPLATES, build_deck
from slides.explorer import EXPLORER_SCRIPTS
from tests import reference
from tests.conftest import DATA, THREE_HEADS
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet

WORKSHEETS = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}


class DeckPage(HTMLParser):
    """Reads ``index.html``: figure elements, and the text a viewer sees outside them.

    Hidden from the visible text: figure elements (checked separately), scripts, styles,
    TeX source (``.math``, ``.formula``) and the names of cited works (``<cite>``, whose
    years and section numbers belong to the work, collected in ``cited``); attributes are
    never text.
    """

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: list[tuple[str, str]] = []
        self.cited: list[str] = []
        self.visible: list[str] = []
        self.nested: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._open: list[tuple[str, bool, str | None]] = []
        self._text: list[str] = []
        self.feed(html)
        self.close()

    def _figure(self) -> str | None:
        return next((key for _, _, key in reversed(self._open) if key is not None), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if self._figure() is not None:
            self.nested.append(f"<{tag}> inside {self._figure()}")
        if tag in _VOID:
            return
        classes = (attributes.get("class") or "").split()
        hidden = tag in ("script", "style", "cite") or "math" in classes or "formula" in classes
        self._open.append((tag, hidden, attributes.get("data-key")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            name, _, key = self._open.pop()
            if key is not None:
                self.figures.append((key, "".join(self._text)))
                self._text = []
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][0] == "cite":
            self.cited.append(data)
        if self._figure() is not None:
            self._text.append(data)
        elif not any(hidden for _, hidden, _ in self._open):
            self.visible.append(data)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    decks = {}
    for name, path in WORKSHEETS.items():
        ws = load_worksheet(path)
        decks[name] = build_deck(ws, compute_values(ws), tmp_path_factory.mktemp(name))
    return decks


def page(index: Path) -> DeckPage:
    return DeckPage(index.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ figures


@pytest.mark.parametrize("which", list(WORKSHEETS))
def test_every_figure_element_equals_a_fresh_recomputation(built, which: str) -> None:
    deck = page(built[which])
    fresh = compute_values(load_worksheet(WORKSHEETS[which]))
    assert deck.nested == []
    assert len(deck.figures) > 2000
    wrong = [(key, text, fresh.text(key)) for key, text in deck.figures
             if text != fresh.text(key)]
    assert wrong == []
    shown = {key for key, _ in deck.figures}
    ws = load_worksheet(WORKSHEETS[which])
    for name in ws.sentences:
        for h in range(1, ws.n_heads + 1):
            for j in range(ws.length):
                for step in ("dots", "scores", "exps", "weights"):
                    assert f"{name}.h{h}.{step}[{j}]" in shown
            assert f"{name}.h{h}.denominator" in shown
            for c in range(ws.d_head):
                assert f"{name}.h{h}.message[{c}]" in shown


_CHECKED = re.compile(r"^(?P<s>\w+)\.(?:h(?P<h>\d+)\.(?P<step>dots|scores|exps|weights|"
                      r"contributions|message|denominator|Q|K|V|A|H)|(?P<whole>E|joined|delta|"
                      r"E_prime))(?P<index>(?:\[\d+\])*)$")


@pytest.mark.parametrize("which", list(WORKSHEETS))
def test_grids_mark_every_future_source_as_masked(built, which: str) -> None:
    ws = load_worksheet(WORKSHEETS[which])
    html = built[which].read_text(encoding="utf-8")
    future = ws.length * (ws.length - 1) // 2
    assert html.count('class="masked"') == len(ws.sentences) * ws.n_heads * future
    for cell in re.findall(r'<td class="masked">(.*?)</td>', html):
        receiver, source = re.search(r'data-key="[^"]+\.A\[(\d+)\]\[(\d+)\]"',
                                     cell).groups()
        assert int(source) > int(receiver)


@pytest.mark.parametrize("which", list(WORKSHEETS))
def test_figures_agree_with_an_independent_numpy_recomputation(built, which: str) -> None:
    doc = json.loads(WORKSHEETS[which].read_text(encoding="utf-8"))
    sentences = {name: reference.sentence(doc, name) for name in doc["sentences"]}
    values = compute_values(load_worksheet(WORKSHEETS[which]))
    compared = 0
    for key, text in page(built[which]).figures:
        match = _CHECKED.match(key)
        if not match or match["s"] not in sentences:
            continue
        case = sentences[match["s"]]
        if match["step"]:
            array = case["heads"][int(match["h"]) - 1][match["step"]]
        else:
            array = case[match["whole"]]
        index = tuple(int(i) for i in re.findall(r"\d+", match["index"]))
        expected = float(np.asarray(array)[index])
        assert reference.within_display(text, values[key].style, expected), (key, text,
                                                                              expected)
        compared += 1
    assert compared > 1500


# ------------------------------------------------------------------ no numeric literals


@pytest.mark.parametrize("which", list(WORKSHEETS))
def test_no_digit_is_shown_outside_a_figure_element(built, which: str) -> None:
    text = " ".join(page(built[which]).visible)
    digits = [text[max(0, m.start() - 30):m.end() + 30] for m in re.finditer(r"\d", text)]
    assert digits == []


def test_only_the_references_slide_names_works_with_digits(built) -> None:
    """Issue 11: the one place a digit may stand outside a figure is a cited work's name."""
    html = built["default"].read_text(encoding="utf-8")
    before, references = html.split('<section class="stack" id="references"', 1)
    assert "<cite>" not in before
    cited = " ".join(page(built["default"]).cited)
    for needed in ("Vaswani", "(2017)", "§3.2.2", "Voita", "(2019)", "3Blue1Brown",
                   "Illustrated Transformer"):
        assert needed in cited, needed
    assert references.count("<cite>") == len(page(built["default"]).cited)


def _prose(index: Path) -> str:
    """The deck's text as a viewer reads it, figures included (notes and code left out)."""
    html = index.read_text(encoding="utf-8")
    html = re.sub(r'<aside class="notes">.*?</aside>', " ", html, flags=re.S)
    html = re.sub(r"<(script|style|pre|code)\b.*?</\1>", " ", html, flags=re.S)
    # a picture's title and description are read, not seen; they quote the tokens as the
    # worksheet splits them ("the glass . It")
    html = re.sub(r"<(title|desc) id=.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", "", html))


_SLIPS = re.compile(r"\b[Aa] (?:8|11|18|8\d)\b|\w \.(?=\s|$)|\w ,")
""""a" before a number said with a vowel ("a 8×8"), and a space before a full stop or a
comma ("the glass ."), which the reviews found."""


@pytest.mark.parametrize("which", list(WORKSHEETS))
def test_the_prose_has_no_slip_the_reviews_found(built, which: str) -> None:
    text = _prose(built[which])
    assert [text[max(0, m.start() - 30):m.end() + 10] for m in _SLIPS.finditer(text)] == []
    assert _SLIPS.search("A 8×8 image") and _SLIPS.search("the glass . It")


def test_the_templates_show_no_digit() -> None:
    templates = sorted(TEMPLATES.rglob("*.j2"))
    assert len(templates) > 10
    for template in templates:
        source = template.read_text(encoding="utf-8")
        shown = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", " ", source, flags=re.S)
        shown = re.sub(r"<[^>]*>", " ", shown)
        assert not re.search(r"\d", shown), f"{template.name}: {shown!r}"


def test_the_no_digit_check_catches_a_literal(built) -> None:
    html = built["default"].read_text(encoding="utf-8")
    spoiled = re.sub(r"(<h2[^>]*>Back to our prompt)</h2>", r"\1 10</h2>", html, count=1)
    assert spoiled != html
    assert re.search(r"\d", " ".join(DeckPage(spoiled).visible))


# ------------------------------------------------------------------ escaping


def markup_worksheet(folder: Path) -> Path:
    """The markup-words worksheet, with head and feature names full of markup too."""
    doc = json.loads((DATA / "markup-words.json").read_text(encoding="utf-8"))
    doc["lesson"]["headNames"] = ["<set&ting>", "per'so\"n"]
    doc["lesson"]["features"] = ["water & wave", "<finance>", "person", "glue"]
    source = folder / "markup.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    return source


def test_words_with_markup_characters_display_literally(tmp_path: Path) -> None:
    source = markup_worksheet(tmp_path)
    ws = load_worksheet(source)
    index = build_deck(ws, compute_values(ws), tmp_path / "out")
    html = index.read_text(encoding="utf-8")
    deck = DeckPage(html)
    text = "".join(deck.visible)
    for word in ("<river>", "b&nk", 'fisher"man', "it's", "<set&ting>", "per'so\"n",
                 "water & wave", "<finance>"):
        assert word in text, word
    assert "<river>" not in html and "&lt;river&gt;" in html
    assert not [tag for tag, _ in deck.tags if tag in ("river", "finance", "set&ting")]
    assert '<sup class="tok">&lt;set&amp;ting&gt;</sup>' in html
    fresh = compute_values(load_worksheet(source))
    assert all(text == fresh.text(key) for key, text in deck.figures)


# ------------------------------------------------------------------ files and errors


def test_the_deck_folder_holds_exactly_what_it_loads(built) -> None:
    index = built["default"]
    folder = index.parent
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    loaded = {attributes.get("src") or attributes.get("href")
              for tag, attributes in page(index).tags if tag in ("script", "link")}
    loaded.discard("data:,")
    assert loaded <= files
    # the explorer's model and the runtime it runs on, loaded when its slide is shown
    expected = {asset.target for asset in deck_assets().files} | {"index.html"} \
        | set(EXPLORER_SCRIPTS)
    assert files == expected
    assert any(name.startswith("lib/katex/dist/fonts/") for name in files)
    for name in ("index.html", "deck.js", "deck.css", "lib/reveal/theme/white.css",
                 "lib/katex/dist/katex.min.css"):
        assert not re.search(r"url\(\s*['\"]?https?:|(src|href)=\"https?:",
                             (folder / name).read_text(encoding="utf-8")), name
    assert 'local: "lib/katex"' in (folder / "deck.js").read_text(encoding="utf-8")


def test_missing_assets_are_reported_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="npm ci"):
        deck_assets(tmp_path)


def test_the_command_writes_the_deck(lecture, tmp_path: Path) -> None:
    result = lecture("slides", "--out", tmp_path / "build", "--worksheet", THREE_HEADS)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "build" / "slides" / "index.html").is_file()
    assert "wrote" in result.stderr


def test_an_unwritable_output_is_refused_in_one_line(lecture, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    result = lecture("slides", "--out", blocker / "deck")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "lecture: error:" in result.stderr
    with pytest.raises(OutputError, match="is a file"):
        build_deck(load_worksheet(), compute_values(load_worksheet()), blocker)
    (tmp_path / "out" / "slides").parent.mkdir()
    (tmp_path / "out" / "slides").write_text("in the way", encoding="utf-8")
    with pytest.raises(OutputError, match="slides: is a file"):
        build_deck(load_worksheet(), compute_values(load_worksheet()), tmp_path / "out")


def test_a_failed_build_leaves_the_previous_deck_untouched(tmp_path: Path, monkeypatch,
                                                            default_ws, default_values) -> None:
    index = build_deck(default_ws, default_values, tmp_path)
    before = index.read_text(encoding="utf-8")

    def no_browser(*_: object) -> None:
        raise DeckError("no browser here")

    monkeypatch.setattr(deck_module, "print_pdf", no_browser)
    with pytest.raises(DeckError, match="no browser"):
        build_deck(default_ws, default_values, tmp_path, pdf=True)

    def disk_full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(deck_module, "write_text", disk_full)
    with pytest.raises(OutputError, match="No space left"):
        build_deck(default_ws, default_values, tmp_path)
    assert index.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slides"]


def test_a_rebuild_replaces_the_previous_deck(tmp_path: Path, default_ws, default_values) -> None:
    (tmp_path / "slides").mkdir()
    (tmp_path / "slides" / "stale.txt").write_text("old", encoding="utf-8")
    index = build_deck(default_ws, default_values, tmp_path)
    assert not (tmp_path / "slides" / "stale.txt").exists() and index.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slides"]
    assert oct(index.stat().st_mode & 0o777) == oct(0o644)
    assert oct(index.parent.stat().st_mode & 0o777) == oct(0o755)


# ------------------------------------------------------------------ captions and clips


SRT = """1
00:00:00,000 --> 00:00:01,500
The final <b>the</b> & its query

2
00:00:01,500 --> 00:00:03,000
Each head reads differently
"""


def test_subrip_subtitles_become_webvtt() -> None:
    vtt = srt_to_vtt("\ufeff" + SRT.replace("\n", "\r\n"), "clip.srt")
    assert vtt == ("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nThe final &lt;b&gt;the&lt;/b&gt; "
                   "&amp; its query\n\n00:00:01.500 --> 00:00:03.000\nEach head reads "
                   "differently\n")
    # Read back, the cues are the SubRip texts again, markup characters and all.
    assert webvtt_texts(vtt) == ["The final <b>the</b> & its query",
                                 "Each head reads differently"]
    with pytest.raises(CaptionError, match=r"clip\.srt: line 1"):
        srt_to_vtt("1\n00:00:00 -> 00:00:01\nhello\n", "clip.srt")
    with pytest.raises(CaptionError, match=r"clip\.srt: line 5: .*got '2\\n00:00:01 -> "):
        srt_to_vtt(SRT.replace("00:00:01,500 --> 00:00:03,000", "00:00:01 -> 00:00:03"),
                   "clip.srt")
    # Text after an empty line, with no timing of its own, is no part of a cue.
    with pytest.raises(CaptionError, match=r"clip\.srt: cue 2: .*empty line"):
        srt_to_vtt(SRT + "\nstray words\n", "clip.srt")
    with pytest.raises(CaptionError, match=r"deck: not WebVTT"):
        webvtt_texts(vtt.removeprefix("WEBVTT"), "deck")


def tiny_mp4(path: Path, sound: bool = False) -> None:
    """Write a real one-second H.264 clip of 64×48 pixels, with an AAC tone if asked."""
    import av

    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        audio = container.add_stream("aac", rate=22050, layout="mono") if sound else None
        for i in range(10):
            pixels = np.full((48, 64, 3), i * 20, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(pixels, format="rgb24")):
                container.mux(packet)
        if audio is not None:
            time = np.arange(22050) / 22050
            tone = (0.3 * np.sin(2 * np.pi * 440 * time)).astype(np.float32)[None, :]
            frame = av.AudioFrame.from_ndarray(tone, format="fltp", layout="mono")
            frame.rate = 22050
            for packet in [*audio.encode(frame), *audio.encode()]:
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def rendered_clips(out: Path, names: tuple[str, ...], n_heads: int,
                   sound: bool = False) -> dict[str, str]:
    """Put a clip (and its subtitles) for each named scene into ``out/video``; return stems."""
    entries = lecture_order(n_heads)
    folder = out / "video"
    folder.mkdir(parents=True)
    stems = {}
    for name in names:
        stems[name] = video_stem(entries, name)
        tiny_mp4(folder / f"{stems[name]}.mp4", sound)
        (folder / f"{stems[name]}.srt").write_text(SRT, encoding="utf-8")
    return stems


def test_rendered_clips_play_on_their_part_with_captions(tmp_path: Path, default_ws,
                                                         default_values) -> None:
    stems = rendered_clips(tmp_path, ("RiverBankPrompt", "HeadWalkthrough2"), 2)
    index = build_deck(default_ws, default_values, tmp_path)
    folder = index.parent
    html = index.read_text(encoding="utf-8")
    for scene, stack in (("RiverBankPrompt", "prompt"), ("HeadWalkthrough2", "head-2")):
        stem = stems[scene]
        assert (folder / "video" / f"{stem}.mp4").read_bytes() == \
            (tmp_path / "video" / f"{stem}.mp4").read_bytes()
        # Issue 11: the clip closes its stack (after the title and the part's slides).
        section = html.split(f'<section class="stack" id="{stack}"', 1)[1].split(
            '<section class="stack"')[0].rsplit('<section id="', 1)[1]
        assert section.startswith(f'{stack}-clip"')
        assert f'src="video/{stem}.mp4"' in section
        track = re.search(r'<track kind="captions" src="data:text/vtt;charset=utf-8;base64,'
                          r'([^"]+)"', section)
        assert b64decode(track[1]).decode().startswith(
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nThe final &lt;b&gt;")
    assert sorted(p.name for p in (folder / "video").iterdir()) == \
        sorted(f"{stem}.mp4" for stem in stems.values())
    assert sorted(p.name for p in (folder / "posters").iterdir()) == \
        sorted(f"{stem}.jpg" for stem in stems.values())
    assert html.count("<video") == 2


def test_without_clips_the_deck_mentions_no_video(built) -> None:
    html = built["default"].read_text(encoding="utf-8")
    assert "<video" not in html
    text = " ".join(page(built["default"]).visible).lower()
    for word in ("clip", "missing", "not rendered", "rendered scene"):
        assert word not in text
