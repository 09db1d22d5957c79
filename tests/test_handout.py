"""The PDF handout (``lecture slides --pdf``), read back from the file Chromium printed.

One real print of the default deck, made once for the module. The PDF is read with
pikepdf alone: its catalogue, metadata and bookmarks as objects, and every page's
content stream interpreted here (graphics and text state, each font's glyph widths and
ToUnicode map), so that every glyph drawn and every image painted has a box on its page
and a text. The deck's own HTML, parsed here with the standard library, says which
panels each switcher state shows.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pikepdf
import pytest

from slides.context import Cite, Math, Num, Runs, Slot, Text, Word
from slides.deck import build_deck, deck_context

TOLERANCE = 0.5
"""How far (in points) a glyph's or image's box may reach past the page: rounding only."""


# ------------------------------------------------------------------ reading the PDF


Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """``m`` then ``n`` (PDF's row-vector convention: a point is ``p · m · n``)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + b * c2, a * b2 + b * d2, c * a2 + d * c2, c * b2 + d * d2,
            e * a2 + f * c2 + e2, e * b2 + f * d2 + f2)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return x * a + y * c + e, x * b + y * d + f


def box_of(m: Matrix, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
    """The page box of the rectangle ``(x0, y0)``–``(x1, y1)`` drawn under ``m``."""
    corners = [apply(m, x, y) for x in (x0, x1) for y in (y0, y1)]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _hex(token: bytes) -> int:
    return int(token.strip(b"<>") or b"0", 16)


def _unicode(token: bytes) -> str:
    raw = bytes.fromhex(token.strip(b"<>").decode())
    return raw.decode("utf-16-be", errors="replace")


def to_unicode(cmap: bytes) -> dict[int, str]:
    """A ToUnicode CMap's ``bfchar`` and ``bfrange`` entries: code -> text."""
    found: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S):
        for code, text in re.findall(rb"(<[0-9A-Fa-f]*>)\s*(<[0-9A-Fa-f]*>)", block):
            found[_hex(code)] = _unicode(text)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", cmap, re.S):
        for low, high, target in re.findall(
                rb"(<[0-9A-Fa-f]*>)\s*(<[0-9A-Fa-f]*>)\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block):
            low_code, high_code = _hex(low), _hex(high)
            if target.startswith(b"["):
                for k, text in enumerate(re.findall(rb"<[0-9A-Fa-f]*>", target)):
                    found[low_code + k] = _unicode(text)
            else:
                start = _unicode(target)
                for k in range(high_code - low_code + 1):
                    found[low_code + k] = start[:-1] + chr(ord(start[-1]) + k)
    return found


@dataclass
class Font:
    """What drawing a string in a font needs: code width in bytes, each code's advance
    (in glyph space, thousandths of the text size unless ``matrix`` says otherwise), the
    vertical extent of its glyphs, and each code's text."""

    bytes_per_code: int
    widths: dict[int, float]
    default_width: float
    ascent: float
    descent: float
    text: dict[int, str]
    matrix: Matrix = (0.001, 0.0, 0.0, 0.001, 0.0, 0.0)

    @classmethod
    def read(cls, font: pikepdf.Object) -> Font:
        text = to_unicode(font.ToUnicode.read_bytes()) if "/ToUnicode" in font else {}
        if font.Subtype == "/Type0":
            cid = font.DescendantFonts[0]
            widths: dict[int, float] = {}
            entries = list(cid.get("/W", []))
            k = 0
            while k < len(entries):
                first = int(entries[k])
                if isinstance(entries[k + 1], pikepdf.Array):
                    for n, width in enumerate(entries[k + 1]):
                        widths[first + n] = float(width)
                    k += 2
                else:
                    for code in range(first, int(entries[k + 1]) + 1):
                        widths[code] = float(entries[k + 2])
                    k += 3
            descriptor = cid.FontDescriptor
            return cls(2, widths, float(cid.get("/DW", 1000)), float(descriptor.Ascent),
                       float(descriptor.Descent), text)
        first = int(font.get("/FirstChar", 0))
        widths = {first + n: float(w) for n, w in enumerate(font.get("/Widths", []))}
        if font.Subtype == "/Type3":
            matrix = tuple(float(v) for v in font.FontMatrix)
            _, bottom, _, top = (float(v) for v in font.FontBBox)
            return cls(1, widths, 0.0, max(bottom, top), min(bottom, top), text,
                       matrix)  # type: ignore[arg-type]
        descriptor = font.FontDescriptor
        return cls(1, widths, 0.0, float(descriptor.Ascent), float(descriptor.Descent), text)

    def codes(self, string: bytes) -> list[int]:
        step = self.bytes_per_code
        return [int.from_bytes(string[k:k + step], "big") for k in range(0, len(string), step)]


@dataclass(frozen=True)
class Mark:
    """One glyph or image on a page: its box in page space, and its text (images: "")."""

    box: tuple[float, ...]
    text: str
    kind: str


class PageReader:
    """Interpret one page's content stream (and its forms), collecting every :class:`Mark`."""

    def __init__(self) -> None:
        self.marks: list[Mark] = []
        self._fonts: dict[int, Font] = {}

    def font(self, obj: pikepdf.Object) -> Font:
        key = obj.objgen if obj.is_indirect else id(obj)
        if key not in self._fonts:
            self._fonts[key] = Font.read(obj)
        return self._fonts[key]

    def run(self, stream: pikepdf.Object, resources: pikepdf.Object, ctm: Matrix) -> None:
        fonts = resources.get("/Font", {})
        xobjects = resources.get("/XObject", {})
        stack: list[tuple] = []
        font: Font | None = None
        size = char_spacing = word_spacing = rise = leading = 0.0
        scale = 1.0
        tm = tlm = IDENTITY

        def show(string: bytes) -> None:
            nonlocal tm
            assert font is not None, "text shown before any font was set"
            for code in font.codes(string):
                width = font.widths.get(code, font.default_width)
                glyph = multiply(font.matrix, (size * scale, 0, 0, size, 0, rise))
                drawn = multiply(multiply(glyph, tm), ctm)
                self.marks.append(Mark(box_of(drawn, 0, font.descent, width, font.ascent),
                                       font.text.get(code, ""), "glyph"))
                advance = (width * font.matrix[0] * size + char_spacing
                           + (word_spacing if font.bytes_per_code == 1 and code == 32 else 0))
                tm = multiply((1, 0, 0, 1, advance * scale, 0), tm)

        for operands, operator in pikepdf.parse_content_stream(stream):
            op = str(operator)
            if op == "q":
                stack.append((ctm, font, size, char_spacing, word_spacing, rise, leading, scale))
            elif op == "Q":
                ctm, font, size, char_spacing, word_spacing, rise, leading, scale = stack.pop()
            elif op == "cm":
                ctm = multiply(tuple(float(v) for v in operands), ctm)  # type: ignore[arg-type]
            elif op == "BT":
                tm = tlm = IDENTITY
            elif op == "Tf":
                font, size = self.font(fonts[operands[0]]), float(operands[1])
            elif op == "Tc":
                char_spacing = float(operands[0])
            elif op == "Tw":
                word_spacing = float(operands[0])
            elif op == "Tz":
                scale = float(operands[0]) / 100
            elif op == "TL":
                leading = float(operands[0])
            elif op == "Ts":
                rise = float(operands[0])
            elif op == "Tm":
                tm = tlm = tuple(float(v) for v in operands)  # type: ignore[assignment]
            elif op in ("Td", "TD"):
                tx, ty = float(operands[0]), float(operands[1])
                if op == "TD":
                    leading = -ty
                tm = tlm = multiply((1, 0, 0, 1, tx, ty), tlm)
            elif op == "T*":
                tm = tlm = multiply((1, 0, 0, 1, 0, -leading), tlm)
            elif op == "Tj":
                show(bytes(operands[0]))
            elif op in ("'", '"'):
                if op == '"':
                    word_spacing, char_spacing = float(operands[0]), float(operands[1])
                tm = tlm = multiply((1, 0, 0, 1, 0, -leading), tlm)
                show(bytes(operands[-1]))
            elif op == "TJ":
                for item in operands[0]:
                    if isinstance(item, pikepdf.String):
                        show(bytes(item))
                    else:
                        tm = multiply((1, 0, 0, 1, -float(item) / 1000 * size * scale, 0), tm)
            elif op == "Do":
                xobject = xobjects[operands[0]]
                if xobject.Subtype == "/Image":
                    self.marks.append(Mark(box_of(ctm, 0, 0, 1, 1), "", "image"))
                elif xobject.Subtype == "/Form":
                    matrix = tuple(float(v) for v in xobject.get("/Matrix", IDENTITY))
                    self.run(xobject, xobject.get("/Resources", resources),
                             multiply(matrix, ctm))  # type: ignore[arg-type]
            elif op == "INLINE IMAGE":
                self.marks.append(Mark(box_of(ctm, 0, 0, 1, 1), "", "image"))


@dataclass(frozen=True)
class Page:
    number: int
    media: tuple[float, float, float, float]
    marks: tuple[Mark, ...]

    @property
    def text(self) -> str:
        """Every glyph's text in drawing order, without white space."""
        return squeeze("".join(mark.text for mark in self.marks))

    def beyond(self) -> list[Mark]:
        """The marks whose box reaches past the page (more than :data:`TOLERANCE`)."""
        x0, y0, x1, y1 = self.media
        return [mark for mark in self.marks
                if mark.box[0] < x0 - TOLERANCE or mark.box[1] < y0 - TOLERANCE
                or mark.box[2] > x1 + TOLERANCE or mark.box[3] > y1 + TOLERANCE]


def read_pages(pdf: pikepdf.Pdf) -> list[Page]:
    pages = []
    for number, page in enumerate(pdf.pages, start=1):
        reader = PageReader()
        reader.run(page.obj, page.Resources, IDENTITY)
        x0, y0, x1, y1 = (float(v) for v in page.MediaBox)
        pages.append(Page(number, (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)),
                          tuple(reader.marks)))
    return pages


# ------------------------------------------------------------------ reading the deck


def plain(runs: Runs) -> str:
    """A title's text as a reader sees it (a formula as its plain runs)."""
    parts = []
    for run in runs:
        if isinstance(run, Text | Num | Word | Cite):
            parts.append(run.text)
        elif isinstance(run, Math):
            parts.append("".join(text for text, _ in run.plain))
        elif isinstance(run, Slot):
            pass
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def squeeze(text: str) -> str:
    """Text as compared between the page and the deck: compatibility forms (a ligature as
    its letters), case folded (kickers print in capitals), without white space."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


@dataclass
class Part:
    """What a slide (or one switcher panel of it) shows: its text runs (each text node,
    squeezed), and the text alternative of each of its pictures."""

    runs: list[str] = field(default_factory=list)
    pictures: list[str] = field(default_factory=list)


@dataclass
class SlideText:
    """One slide of the deck's HTML: what it always shows, and what each switcher panel
    shows (with its state: sentence and head)."""

    id: str
    common: Part
    panels: list[tuple[tuple[str | None, str | None], Part]]


NOT_DRAWN_TAGS = {"aside", "nav", "title", "desc", "script", "style", "template", "video",
                  "button", "select", "annotation"}
"""Text that a printed page does not draw, or need not: speaker notes, the switchers (print
leaves them out), an SVG picture's title and description, a video's fallback, a control's
label and a menu's choices (only the chosen one shows)."""
NOT_DRAWN_CLASSES = {"math", "formula", "variant"}
"""Formulas (KaTeX sets them in the browser, in its own glyphs) and state-dependent
headings."""
VOID = {"br", "img", "input", "meta", "link", "hr", "source", "track", "wbr", "col"}


class DeckText(HTMLParser):
    """Every slide of the deck's HTML with what it shows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.slides: list[SlideText] = []
        self._open: list[tuple[str, Part | None, bool]] = []
        self._titled: Part | None = None  # a picture named by its <title>, being read
        self._title: list[str] | None = None

    def _part(self) -> Part | None:
        return next((part for _, part, _ in reversed(self._open) if part is not None), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        part = None
        skip = tag in NOT_DRAWN_TAGS or bool(classes & NOT_DRAWN_CLASSES)
        if tag == "section" and "stack" not in classes:
            self.slides.append(SlideText(attributes.get("id") or "", Part(), []))
            part = self.slides[-1].common
        elif tag == "div" and "panel" in classes and self.slides:
            part = Part()
            state = (attributes.get("data-sentence"), attributes.get("data-head"))
            self.slides[-1].panels.append((state, part))
        elif "hidden" in attributes:
            skip = True
        if tag == "svg" and "picture" in classes and not self._skipping():
            mine = self._part()
            if mine is not None and attributes.get("aria-label"):
                mine.pictures.append(attributes["aria-label"] or "")
            else:
                self._titled = mine
        if tag == "title" and self._titled is not None:
            self._title = []
        if tag not in VOID:
            self._open.append((tag, part, skip))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # an empty element (an SVG shape) holds no text

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._title is not None and self._titled is not None:
            self._titled.pictures.append(" ".join("".join(self._title).split()))
            self._titled = self._title = None
        if tag == "svg":
            self._titled = None
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def _skipping(self) -> bool:
        return any(skip for _, _, skip in self._open)

    def handle_data(self, data: str) -> None:
        if self._title is not None:
            self._title.append(data)
        text = squeeze(data)
        if not text or self._skipping():
            return
        part = self._part()
        if part is not None:
            part.runs.append(text)


def deck_slides(index: Path) -> list[SlideText]:
    parser = DeckText()
    parser.feed(index.read_text(encoding="utf-8"))
    return parser.slides


# ------------------------------------------------------------------ the handout


@pytest.fixture(scope="module")
def handout(tmp_path_factory, default_ws, default_values):
    out = tmp_path_factory.mktemp("handout")
    index = build_deck(default_ws, default_values, out, pdf=True)
    pdf = pikepdf.open(index.parent / "slides.pdf")
    yield {"index": index, "pdf": pdf, "pages": read_pages(pdf),
           "deck": deck_context(default_ws, default_values)}
    pdf.close()


def test_the_handout_is_tagged_with_its_title_and_language(handout) -> None:
    pdf, deck = handout["pdf"], handout["deck"]
    root = pdf.Root
    assert "/StructTreeRoot" in root
    tree = root.StructTreeRoot
    assert tree.get("/K") is not None and "/ParentTree" in tree
    assert bool(root.MarkInfo.Marked) is True
    lang = re.search(r'<html lang="([^"]+)"', handout["index"].read_text(encoding="utf-8"))
    assert lang and str(root.Lang) == lang.group(1) == "en"
    assert str(pdf.docinfo.Title) == deck.title
    with pdf.open_metadata() as meta:
        assert meta["dc:title"] == deck.title
    assert bool(root.ViewerPreferences.DisplayDocTitle) is True
    # every page's content is marked: its marked-content sequences reach the tree
    for page in pdf.pages:
        assert "/StructParents" in page


def structure(pdf: pikepdf.Pdf) -> list[tuple[str, int | None, str | None]]:
    """Every structure element of the tagged PDF: its type, the page its first marked
    content is on (index), and its alternative text."""
    pages = {page.obj.objgen: k for k, page in enumerate(pdf.pages)}

    def page_of(node: pikepdf.Object) -> int | None:
        todo = [node]
        while todo:
            item = todo.pop()
            if isinstance(item, pikepdf.Array):
                todo.extend(reversed(list(item)))
            elif isinstance(item, pikepdf.Dictionary):
                if "/Pg" in item:
                    return pages.get(item.Pg.objgen)
                if "/K" in item:
                    todo.append(item.K)
        return None

    found = []
    todo = [pdf.Root.StructTreeRoot.K]
    while todo:
        node = todo.pop()
        if isinstance(node, pikepdf.Array):
            todo.extend(node)
        elif isinstance(node, pikepdf.Dictionary) and "/S" in node:
            found.append((str(node.S), page_of(node),
                          str(node.Alt) if "/Alt" in node else None))
            if "/K" in node:
                todo.append(node.K)
    return found


def test_every_page_is_tagged_with_its_heading_and_pictures(handout) -> None:
    """Reveal.js hides all slides but one from assistive software, and Chromium tags only
    what that software sees: every page must still carry its slide's structure."""
    elements = structure(handout["pdf"])
    count = len(handout["pages"])
    headings = [page for kind, page, _ in elements if kind == "/H2"]
    assert sorted(headings) == list(range(count))  # one slide heading on every page
    kinds = Counter(kind for kind, _, _ in elements)
    assert kinds["/P"] > count and kinds["/Table"] and kinds["/TD"] and kinds["/Figure"]
    # every picture printed (a slide's on each of its pages, a panel's on its own) keeps
    # its text alternative
    expected: Counter[str] = Counter()
    for slide, pages in slide_pages(handout):
        for label in slide.common.pictures:
            expected[" ".join(label.split())] += len(pages)
        for _, part in slide.panels:
            expected.update(" ".join(label.split()) for label in part.pictures)
    alternatives = Counter(" ".join(alt.split()) for kind, _, alt in elements
                           if kind == "/Figure" and alt)
    assert sum(expected.values()) > count / 2
    assert expected - alternatives == Counter()


def test_one_bookmark_per_stack_with_its_title_in_order(handout) -> None:
    pdf, deck, pages = handout["pdf"], handout["deck"], handout["pages"]
    with pdf.open_outline() as outline:
        top = list(outline.root)
        titles = [item.title for item in top]
        firsts = [pdf.pages.index(pikepdf.Page(item.destination[0])) for item in top]
    assert titles == [plain(stack.title) for stack in deck.stacks]
    assert firsts == sorted(firsts) and firsts[0] == 0 and len(set(firsts)) == len(firsts)
    # each stack's bookmark opens on its title slide
    for stack, first in zip(deck.stacks, firsts, strict=True):
        assert stack.slides[0].role == "title"
        assert squeeze(plain(stack.slides[0].title)) in pages[first].text, stack.id


def slide_pages(handout) -> list[tuple[SlideText, list[Page]]]:
    """Each slide of the deck with its printed pages, in order: one page per panel on a
    switchable slide, else one."""
    pages, found, at = handout["pages"], [], 0
    for slide in deck_slides(handout["index"]):
        count = max(1, len(slide.panels))
        found.append((slide, pages[at:at + count]))
        at += count
    assert at == len(pages), f"{len(pages)} pages printed for {at} slides and states"
    return found


def test_nothing_lies_beyond_any_page(handout) -> None:
    pages = handout["pages"]
    assert {page.media for page in pages} == {(0.0, 0.0, 960.0, 540.0)}  # 1280 × 720 px
    glyphs = sum(1 for page in pages for mark in page.marks if mark.kind == "glyph")
    assert glyphs > 100 * len(pages)  # the reader saw the text
    beyond = {page.number: [m.text or m.kind for m in page.beyond()][:12] for page in pages
              if page.beyond()}
    assert beyond == {}


def test_no_text_is_cut_off(handout) -> None:
    """Chromium leaves out of the PDF whatever lies past a page (or past a picture's
    frame): a slide whose content runs off its page loses that text, which no box can then
    show. So every text run of every slide is on its page."""
    missing = {}
    for slide, pages in slide_pages(handout):
        assert slide.common.runs, slide.id
        for page in pages:
            lost = [run for run in slide.common.runs if run not in page.text]
            if lost:
                missing[(slide.id, page.number)] = lost[:6]
    assert missing == {}


def test_every_switcher_state_is_printed(handout) -> None:
    states = switchable = 0
    for slide, pages in slide_pages(handout):
        if not slide.panels:
            continue
        switchable += 1
        assert len(slide.panels) >= 2, slide.id
        unclaimed = list(pages)
        for state, part in slide.panels:
            runs = part.runs
            assert runs, (slide.id, state)
            page = next((page for page in unclaimed if all(run in page.text for run in runs)),
                        None)
            assert page is not None, (slide.id, state)
            unclaimed.remove(page)
            states += 1
            # the page names its state: its caption starts with the sentence's word
            sentence = state[0]
            assert sentence is None or squeeze(sentence) in runs[0], (slide.id, state, runs[0])
    assert switchable and states >= 2 * switchable
