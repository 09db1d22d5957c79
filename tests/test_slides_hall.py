"""The deck as a lecturer shows it in a hall and a student reads it on a phone (issue 11),
measured in a real browser (Playwright driving Debian's Chromium):

- at 1280×720 every text on every slide is at least 24 px and every table and listing at
  least 20 px, and tables are as large as the slide allows; on a phone nothing is under
  12 px as shown;
- what a slide names is outlined, never filled, so its bar or shade stays visible;
- a sentence or head chosen on one slide of a stack is still chosen on the next, and the
  heading names the head shown;
- slides are numbered on screen and on every printed page, and print leaves out the
  switcher buttons;
- every stack opens on its title and its clips close it, each with a poster that is a
  frame of the clip and notes of its own;
- every concept slide shows its picture, and the mask slide shows 0 and −∞ with the
  future cells grey.

Superscript labels (a head's name on a matrix symbol) and KaTeX's own sub- and
superscripts are set smaller by design and are not measured.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import av
import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page

from outline import lecture_order
from slides.deck import build_deck
from slides.pdf import SLIDE_SIZE
from tests.conftest import THREE_HEADS
from tests.test_accessibility import audited_in_print
from tests.test_slides_browser import READY, go
from tests.test_slides_html import rendered_clips
from tests.test_slides_pictures import concept_slides
from worksheet import Values, Worksheet, compute_values, load_worksheet

TEXT_PX, TABLE_PX, PHONE_PX = 24, 20, 12
PICTURE_PX = 16
"""The least size of a picture's labels in a hall (sub- and superscripts aside)."""
PHONE = {"width": 390, "height": 844}
POSTER_FRAME = 6
"""The section end the test manifests name; the tiny clips show a grey of 20 per frame."""

# Every visible text of every slide, with all fragments shown: slide, where it stands
# (a table or listing, or elsewhere), its size as shown in CSS pixels, and the text.
TEXT_SIZES = """() => {
  Reveal.configure({transition: 'none', fragments: false});
  const found = [];
  for (const slide of Reveal.getSlides()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!node.textContent.trim() || element.closest('aside.notes, .katex, sup.tok')
          || !element.checkVisibility()) continue;
      // Shown size: the computed size times any scaling between layout and screen.
      const block = element.closest('p, li, td, th, pre, h2, button, div, caption');
      // (to two decimals, as Reveal.js scales: offsetHeight is rounded to whole pixels)
      const scale = block.offsetHeight
        ? Math.round(block.getBoundingClientRect().height / block.offsetHeight * 100) / 100
        : 1;
      const svg = element.closest('svg');
      if (svg) {  // a picture's label: its size in user units times the picture's scale
        if (element.closest('tspan.sub, tspan.sup')) continue;
        const box = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
        const shown = box && box.width ? Math.min(r.width / box.width, r.height / box.height) : 1;
        found.push([slide.id, 'picture', parseFloat(getComputedStyle(element).fontSize) * shown,
                    node.textContent.trim().slice(0, 30)]);
        continue;
      }
      found.push([slide.id, element.closest('table, pre') ? 'table' : 'text',
                  parseFloat(getComputedStyle(element).fontSize) * scale,
                  node.textContent.trim().slice(0, 30)]);
    }
  }
  return found;
}"""

# For each slide with a table or listing: its type size, and whether the slide would
# still fit with that type two pixels larger (it should not: the tables fill the slide).
ROOM_TO_GROW = """() => {
  Reveal.configure({transition: 'none', fragments: false});
  const found = [];
  for (const slide of Reveal.getSlides()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    const sized = [...slide.querySelectorAll('table, pre')].filter(e => e.checkVisibility());
    if (!sized.length) continue;
    const before = sized.map(e => e.style.fontSize);
    const size = Math.min(...sized.map(e => parseFloat(getComputedStyle(e).fontSize)));
    sized.forEach(e => {
      e.style.fontSize = (parseFloat(getComputedStyle(e).fontSize) + 2) + 'px'; });
    const box = slide.getBoundingClientRect();
    const style = getComputedStyle(slide);
    const bottom = box.top + slide.clientHeight - parseFloat(style.paddingBottom);
    const right = box.left + slide.clientWidth - parseFloat(style.paddingRight);
    const parts = [...slide.querySelectorAll('table, pre, pre code, p, .column, .formula, h2')]
      .filter(e => e.checkVisibility() && !e.closest('aside.notes'));
    const spills = parts.some(e => e.getBoundingClientRect().bottom > bottom + 1
                                   || e.getBoundingClientRect().right > right + 1
                                   || e.scrollWidth > e.clientWidth + 1 && e.matches('code'));
    sized.forEach((e, i) => { e.style.fontSize = before[i]; });
    const pictured = [...slide.querySelectorAll('figure.picture')].some(
      e => e.checkVisibility());
    found.push([slide.id, size, spills, pictured]);
  }
  return found;
}"""


OVERLAP_PX = 3
"""How far two texts' ink may run into each other, in CSS pixels, before they overlap."""
HALF = SLIDE_SIZE[1] / 2
"""Issue 24: a content slide's content reaches at least half way down the slide."""

# Every slide in every switcher state, all fragments shown: the text boxes that overlap
# (two texts' ink boxes sharing more than OVERLAP_PX both ways), and where the slide's
# content ends. A text box is a text node's line box, or a whole formula or picture label,
# trimmed to the middle of its line so that the leading of stacked lines does not count.
STATE_LAYOUT = """(overlapPx) => {
  Reveal.configure({transition: 'none', fragments: false});
  const found = [];
  const KEEP = 0.6;
  const corners = (x, y, w, h, map) => {
    const cut = h * (1 - KEEP) / 2;
    return [[x, y + cut], [x + w, y + cut], [x + w, y + h - cut], [x, y + h - cut]].map(map);
  };
  const flat = (r) => corners(r.left, r.top, r.width, r.height, p => p);
  const drawn = (text) => {  // an SVG label's own box, turned as the label is turned
    const b = text.getBBox(), m = text.getScreenCTM();
    return corners(b.x, b.y, b.width, b.height,
                   ([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  const depth = (p, q) => {  // least overlap of two convex quads along their edges' normals
    let least = Infinity;
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        const len = Math.hypot(x2 - x1, y2 - y1);
        if (len < 1e-6) continue;
        const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
        const along = (poly2) => poly2.map(([x, y]) => x * nx + y * ny);
        const a = along(p), b = along(q);
        least = Math.min(least, Math.min(Math.max(...a), Math.max(...b))
                                - Math.max(Math.min(...a), Math.min(...b)));
      }
    }
    return least;
  };
  const boxes = (slide) => {
    const out = [];
    const seen = new Set();
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!node.textContent.trim() || element.closest('aside.notes')
          || !element.checkVisibility()) continue;
      const whole = element.closest('.katex, svg text');
      if (whole) {
        if (seen.has(whole)) continue;
        seen.add(whole);
        out.push([whole.textContent.trim(), whole.matches('svg text') ? drawn(whole)
                  : flat(whole.getBoundingClientRect()), whole]);
        continue;
      }
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width < 1 || r.height < 1) continue;
        out.push([node.textContent.trim(), flat(r), element]);
      }
    }
    return out;
  };
  const states = (slide) => {
    const axes = [...slide.querySelectorAll('.switcher .choices')].map(
      group => [...group.querySelectorAll('button')]);
    let combos = [[]];
    for (const buttons of axes) {
      combos = combos.flatMap(c => buttons.map(b => [...c, b]));
    }
    return combos;
  };
  for (const slide of Reveal.getSlides()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    for (const combo of states(slide)) {
      combo.forEach(button => button.click());
      const state = combo.map(b => b.dataset.value).join('/');
      const texts = boxes(slide);
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [a, ra, ea] = texts[i], [b, rb, eb] = texts[j];
          if (ea === eb) continue;
          if (depth(ra, rb) > overlapPx) {
            found.push(['overlap', slide.id, state, a.slice(0, 30), b.slice(0, 30)]);
          }
        }
      }
      const top = slide.getBoundingClientRect().top;
      const shown = [...slide.querySelectorAll(
        'p, li, table, figure, pre, img, video, .formula, .tokens, .katex-display')]
        .filter(e => e.checkVisibility() && !e.closest('aside.notes'));
      const end = Math.max(0, ...shown.map(e => e.getBoundingClientRect().bottom - top));
      found.push(['end', slide.id, state, slide.dataset.role || '', end]);
    }
  }
  return found;
}"""


@pytest.fixture(scope="module")
def default_deck(tmp_path_factory: pytest.TempPathFactory, default_ws: Worksheet,
                 default_values: Values) -> Path:
    return build_deck(default_ws, default_values, tmp_path_factory.mktemp("hall"))


@pytest.fixture(scope="module")
def three_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = load_worksheet(THREE_HEADS)
    return build_deck(ws, compute_values(ws), tmp_path_factory.mktemp("three"))


def _manifest(video: Path, frame: int) -> None:
    """A figure manifest beside a test clip naming ``frame`` as its last section end."""
    sections = [{"name": "opening", "frame": 2}, {"name": "the end", "frame": frame}]
    video.with_suffix(".figures.json").write_text(json.dumps({"sections": sections}),
                                                  encoding="utf-8")


@pytest.fixture(scope="module")
def clip_deck(tmp_path_factory: pytest.TempPathFactory, default_ws: Worksheet,
              default_values: Values) -> Path:
    """The default deck with a (tiny) clip for every scene of the lecture; all but the
    first scene have a manifest."""
    out = tmp_path_factory.mktemp("clips")
    names = tuple(entry.name for entry in lecture_order(default_ws.n_heads))
    stems = rendered_clips(out, names, default_ws.n_heads)
    for name in names[1:]:
        _manifest(out / "video" / f"{stems[name]}.mp4", POSTER_FRAME)
    return build_deck(default_ws, default_values, out)


def _open(browser: Browser, index: Path, viewport: dict[str, int] | None = None,
          query: str = "") -> Page:
    width, height = SLIDE_SIZE
    page = browser.new_page(viewport=viewport or {"width": width, "height": height})
    page.goto(index.as_uri() + query)
    if query == "?print-pdf":
        page.wait_for_function("() => document.querySelectorAll('.pdf-page').length > 0 "
                               "&& window.Reveal && Reveal.isReady()", timeout=60_000)
        page.wait_for_timeout(500)
    else:
        page.wait_for_function(READY, timeout=30_000)
    page.evaluate("document.fonts.ready.then(() => true)")
    return page


def _too_small(sizes: list[list], text_px: float, table_px: float,
               picture_px: float = PICTURE_PX) -> list[list]:
    least = {"table": table_px, "picture": picture_px}
    return [row for row in sizes if row[2] < least.get(row[1], text_px) - 0.01]


# ------------------------------------------------------------------ type sizes


def test_every_slide_is_set_for_a_hall(browser, default_deck: Path) -> None:
    page = _open(browser, default_deck)
    try:
        assert page.evaluate("Reveal.getScale()") == 1
        sizes = page.evaluate(TEXT_SIZES)
        slides = page.evaluate("Reveal.getTotalSlides()")
    finally:
        page.close()
    assert {row[0] for row in sizes} and len({row[0] for row in sizes}) == slides
    tables = {row[0] for row in sizes if row[1] == "table"}
    assert len(tables) > 40
    assert _too_small(sizes, TEXT_PX, TABLE_PX) == []


def test_the_size_check_catches_small_type(browser, default_deck: Path) -> None:
    """The measure is real: a slide whose tables are forced small is reported."""
    page = _open(browser, default_deck)
    try:
        page.add_style_tag(content="#grids-numbers table.grid-table td "
                                   "{ font-size: 15px !important; }"
                                   "#prompt-receiver p { font-size: 18px !important; }")
        small = _too_small(page.evaluate(TEXT_SIZES), TEXT_PX, TABLE_PX)
    finally:
        page.close()
    assert {row[0] for row in small} == {"grids-numbers", "prompt-receiver"}


def test_tables_grow_until_the_slide_is_full(browser, default_deck: Path) -> None:
    page = _open(browser, default_deck)
    try:
        grown = page.evaluate(ROOM_TO_GROW)
    finally:
        page.close()
    assert len(grown) > 40
    # Each slide's tables are as large as the slide allows: two pixels more and something
    # leaves the slide, unless they already reach the largest size the deck uses.
    largest = max(size for _, size, _, _ in grown)
    assert largest >= 36
    # (a slide whose picture shares the row gives the tables its room as they grow: there
    # the picture, not the slide's edge, is the limit, and only the size floor applies)
    room = [(slide, size) for slide, size, spills, pictured in grown
            if not spills and size < largest and not pictured]
    assert room == []


def test_a_phone_shows_the_slide_at_its_own_size(browser, default_deck: Path) -> None:
    page = _open(browser, default_deck, PHONE)
    try:
        sizes = page.evaluate(TEXT_SIZES)
    finally:
        page.close()
    assert len({row[0] for row in sizes}) > 80
    assert len({row[0] for row in sizes if row[1] == "table"}) > 40
    assert _too_small(sizes, PHONE_PX, PHONE_PX, PHONE_PX) == []


# ------------------------------------------------------------------ the focus


def test_what_a_slide_names_is_outlined_not_filled(browser, default_deck: Path) -> None:
    page = _open(browser, default_deck)
    try:
        go(page, "grids-numbers")  # the receiver's row of a head's shaded attention grid
        rows = page.evaluate("""() => [...document.querySelectorAll(
                '#grids-numbers .panel:not([hidden]) tr.focus')].map(row => {
            const cell = [...row.querySelectorAll('td')].pop(), style = getComputedStyle(row);
            return {outline: style.outlineStyle, width: parseFloat(style.outlineWidth),
                    row: style.backgroundColor, cell: getComputedStyle(cell).backgroundColor,
                    bar: getComputedStyle(cell).backgroundImage, text: cell.textContent}; })""")
        focused = page.evaluate("""() => [...document.querySelectorAll('.focus')]
            .filter(e => e.checkVisibility()).length""")
        everywhere = page.evaluate("""() => [...document.querySelectorAll(
                '.focus, .focus > td, .focus > th')].map(e => getComputedStyle(e))
            .map(s => [s.backgroundColor, s.outlineStyle !== 'none' || s.borderTopWidth])""")
    finally:
        page.close()
    assert len(rows) == 1
    (row,) = rows
    assert row["outline"] != "none" and row["width"] >= 2
    assert row["row"] == "rgba(0, 0, 0, 0)"
    # the weight's heat fill still shows inside the outline
    assert row["cell"] != "rgba(0, 0, 0, 0)" or "gradient" in row["bar"], row
    assert focused >= 1
    fills = {colour for colour, _ in everywhere}
    assert not any(re.search(r"rgb\(255, 244, 194", colour) for colour in fills)


# ------------------------------------------------------------------ switchers


def _heading(page: Page, slide_id: str) -> str:
    """The kicker and title a viewer sees (in lower case: the kicker is set in capitals)."""
    return page.evaluate("""(id) => [...document.querySelectorAll(`#${id} .kicker, #${id} h2`)]
        .map(e => e.innerText).join(' | ')""", slide_id).lower()


def _shown(page: Page, slide_id: str) -> list[str]:
    return page.evaluate("""(id) => [...document.getElementById(id).querySelectorAll(
        '.panel:not([hidden]) [data-key]')].filter(e => e.checkVisibility())
        .map(e => e.dataset.key)""", slide_id)


def _caption(page: Page, slide_id: str) -> str:
    """What the visible panel says it shows (its sentence and head)."""
    return page.evaluate("""(id) => [...document.querySelectorAll(`#${id} .panel-caption`)]
        .filter(e => e.checkVisibility()).map(e => e.innerText).join(' | ')""", slide_id).lower()


def test_the_choice_carries_through_the_stack_and_the_heading_follows(
        browser, default_deck: Path, default_ws: Worksheet) -> None:
    other = default_ws.lesson.head_names[1].lower()
    first = default_ws.lesson.head_names[0].lower()
    sentence = list(default_ws.sentences)[1]
    page = _open(browser, default_deck)
    try:
        go(page, "grids-project")
        assert first in _caption(page, "grids-project")
        page.click(f'#grids-project button[data-axis="sentence"][data-value="{sentence}"]')
        page.click('#grids-project button[data-axis="head"][data-value="2"]')
        caption = _caption(page, "grids-project")
        assert other in caption and first not in caption
        go(page, "grids-numbers")  # a later slide of the same stack opens on that choice
        pressed = page.evaluate("""(id) => [...document.querySelectorAll(
            `#${id} button[aria-pressed="true"]`)].map(b => b.dataset.value)""", "grids-numbers")
        assert pressed == [sentence, "2"]
        keys = [k for k in _shown(page, "grids-numbers") if re.match(r"\w+\.h\d+\.", k)]
        assert keys and all(k.startswith(f"{sentence}.h2.") for k in keys)
        assert other in _caption(page, "grids-numbers")
        # Another stack keeps its own choice; a head's own stack offers no other head.
        go(page, "head-1-weights")
        assert page.evaluate("""() => [...document.querySelectorAll(
            '#head-1-weights button[aria-pressed="true"]')].map(b => b.dataset.value)""") == \
            [default_ws.walkthrough]
        page.click(f'#head-1-weights button[data-axis="sentence"][data-value="{sentence}"]')
        page.evaluate("Reveal.down({skipFragments: true})")
        now = page.evaluate("Reveal.getCurrentSlide().id")
        assert now == "head-1-values"
        assert page.get_attribute(f"#{now}", "data-sentence") == sentence
        assert first in _heading(page, now)
        # Back in the grids, their choice is still there.
        go(page, "grids-numbers")
        assert page.get_attribute("#grids-numbers", "data-head") == "2"
        assert page.get_attribute("#grids-numbers", "data-sentence") == sentence
    finally:
        page.close()


# ------------------------------------------------------------------ layout in every state


def _state_layout(browser: Browser, index: Path, spoil: str = "") -> list[list]:
    page = _open(browser, index)
    try:
        if spoil:
            page.evaluate(spoil)
        return page.evaluate(STATE_LAYOUT, OVERLAP_PX)
    finally:
        page.close()


@pytest.mark.parametrize("which", ["default", "three"])
def test_no_two_texts_overlap_and_content_slides_fill_half_in_every_state(
        browser, request, which: str) -> None:
    """Issue 24: at 1280×720, on every slide in every switcher state with every fragment
    shown, no text runs into another (a turned label is measured turned), and every slide
    but a title slide has content reaching at least half way down."""
    found = _state_layout(browser, request.getfixturevalue(f"{which}_deck"))
    overlaps = [row[1:] for row in found if row[0] == "overlap"]
    ends = [row[1:] for row in found if row[0] == "end"]
    assert len({(slide, state) for slide, state, *_ in ends}) > 100  # every state was seen
    assert overlaps == []
    assert [(slide, state, round(end)) for slide, state, role, end in ends
            if role != "title" and end < HALF] == []


def test_the_layout_sweep_sees_a_text_laid_over_another(browser, default_deck: Path) -> None:
    """The sweep above can fail: a paragraph moved onto the title is an overlap, and a
    slide emptied but for its title ends above half."""
    found = _state_layout(browser, default_deck, """() => {
        const slide = document.getElementById('combine-residual');
        const p = slide.querySelector('p:not(.kicker)');
        p.style.position = 'absolute'; p.style.top = '60px'; p.style.left = '60px';
        const empty = document.getElementById('grids-code');
        empty.querySelectorAll(':scope > :not(h2, .kicker, aside)').forEach(
            e => e.remove()); }""")
    assert any(row[:2] == ["overlap", "combine-residual"] for row in found)
    assert any(row[:2] == ["end", "grids-code"] and row[4] < HALF for row in found)


# ------------------------------------------------------------------ pictures


def test_every_concept_slide_shows_its_picture(browser, default_deck: Path,
                                               default_ws: Worksheet) -> None:
    """Shown, not only written: each concept slide has a visible picture of real size."""
    page = _open(browser, default_deck)
    try:
        page.evaluate("Reveal.configure({transition: 'none', fragments: false})")
        missing = []
        for slide_id in concept_slides(default_ws):
            go(page, slide_id)
            boxes = page.evaluate("""(id) => [...document.querySelectorAll(
                `#${id} figure.picture svg.picture`)].filter(e => e.checkVisibility())
                .map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })""",
                                  slide_id)
            if not any(w > 150 and h > 40 for w, h in boxes):
                missing.append((slide_id, boxes))
    finally:
        page.close()
    assert missing == []


def test_the_mask_shows_zero_and_minus_infinity_with_grey_future_cells(
        browser, default_deck: Path, default_ws: Worksheet) -> None:
    n = len(next(iter(default_ws.sentences.values())))
    future = np.triu(np.ones((n, n), dtype=bool), 1)  # the source after the receiver
    page = _open(browser, default_deck)
    try:
        go(page, "grids-mask")
        cells = page.evaluate("""() => [...document.querySelectorAll(
            '#grids-mask svg.picture rect[data-draws]')].filter(e => e.checkVisibility())
            .map(e => [e.dataset.draws, e.dataset.role, getComputedStyle(e).fill])""")
        texts = page.evaluate("""() => [...document.querySelectorAll(
            '#grids-mask svg.picture text')].filter(e => e.checkVisibility())
            .map(e => [e.dataset.key || '', e.textContent])""")
    finally:
        page.close()
    assert len(cells) == n * n
    fills = {role: {fill for _, r, fill in cells if r == role} for role in ("masked", "cell")}
    assert fills["masked"] == {"rgb(212, 215, 221)"} and fills["cell"] == {"rgb(255, 255, 255)"}
    for draws, role, _ in cells:
        i, j = (int(k) for k in re.findall(r"\[(\d+)\]", draws))
        assert (role == "masked") == future[i, j], draws
    assert sum(text == "−∞" for _, text in texts) == int(future.sum())
    zeros = [text for key, text in texts if ".mask[" in key]
    assert zeros == ["0"] * int((~future).sum())
    assert not any(text in ("1", "True") for _, text in texts)


# ------------------------------------------------------------------ numbers and print


def test_slides_are_numbered_on_screen(browser, default_deck: Path) -> None:
    page = _open(browser, default_deck)
    try:
        total = page.evaluate("Reveal.getTotalSlides()")
        for slide_id in ("prompt-title", "head-1-weights", "references-title"):
            go(page, slide_id)
            index = page.evaluate("Reveal.getSlidePastCount()") + 1
            number = page.locator(".reveal > .slide-number")
            assert number.is_visible()
            assert re.sub(r"\s", "", number.inner_text()) == f"{index}/{total}"
            box = number.bounding_box()
            assert box["y"] + box["height"] <= SLIDE_SIZE[1]
            assert float(number.evaluate("e => getComputedStyle(e).fontSize")
                         .removesuffix("px")) >= TABLE_PX
    finally:
        page.close()


def test_print_numbers_every_page_and_leaves_out_the_switchers(browser,
                                                               default_deck: Path) -> None:
    page = _open(browser, default_deck, query="?print-pdf")
    try:
        pages = page.evaluate("""() => [...document.querySelectorAll('.pdf-page')].map(p => {
            const n = p.querySelector('.slide-number-pdf');
            return n && n.checkVisibility() ? n.innerText.trim() : null; })""")
        switchers = page.evaluate("""() => [...document.querySelectorAll('.switcher')]
            .filter(e => e.checkVisibility()).length""")
        present = page.evaluate("document.querySelectorAll('.switcher').length")
        captions = page.evaluate("""() => [...document.querySelectorAll('.panel-caption')]
            .filter(e => e.checkVisibility()).length""")
    finally:
        page.close()
    assert len(pages) > 80
    assert pages == [str(n) for n in range(1, len(pages) + 1)]
    assert present > 10 and switchers == 0
    assert captions > 10  # which sentence and head a printed panel shows is still said
    page = _open(browser, default_deck)
    try:
        page.emulate_media(media="print")
        assert page.evaluate("""() => [...document.querySelectorAll('.switcher')]
            .some(e => getComputedStyle(e).display !== 'none')""") is False
    finally:
        page.close()


# Each printed page: its slide, and how far its content reaches right and down from the
# page's corner (KaTeX's own clipped drawings and hidden speech text aside).
PRINTED_EXTENT = """() => [...document.querySelectorAll('.pdf-page')].map(page => {
  const box = page.getBoundingClientRect();
  const shown = [...page.querySelectorAll('section *')].filter(e => e.checkVisibility()
      && !e.closest('aside.notes, .katex-mathml, .katex svg')
      && e.getBoundingClientRect().height > 0);
  const rects = shown.map(e => e.getBoundingClientRect());
  return [page.querySelector('section').id, box.width, box.height,
          Math.max(0, ...rects.map(r => r.right - box.left)),
          Math.max(0, ...rects.map(r => r.bottom - box.top))];
})"""


@pytest.mark.parametrize("which", ["default", "three"])
def test_every_printed_page_holds_its_content_within_its_edges(browser, request, which: str,
                                                               record_property) -> None:
    """Issue 24: printed, each slide is fitted to its page as on screen (the W_O slide
    reached 732 px down and tables ran off the right edge on 17 pages). Issue 25: the same
    print view, with every switcher state shown at once, passes axe-core's WCAG 2.1 A and
    AA rules (:func:`tests.test_accessibility.audited_in_print`)."""
    width, height = SLIDE_SIZE
    index = request.getfixturevalue(f"{which}_deck")
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.add_init_script("window.addEventListener('pdf-ready', () => "
                             "{ window.__deckPrinted = true; });")
        page.goto(index.as_uri() + "?print-pdf")
        page.wait_for_function("() => window.__deckPrinted === true", timeout=60_000)
        page.evaluate("document.fonts.ready.then(() => true)")
        extents = page.evaluate(PRINTED_EXTENT)
        audited_in_print(page, index.read_text(encoding="utf-8"), record_property)
    finally:
        page.close()
    assert len(extents) > 80
    assert [(slide, round(right), round(bottom)) for slide, w, h, right, bottom in extents
            if right > w + 1 or bottom > h + 1] == []


# ------------------------------------------------------------------ stacks and clips


def _frame(video: Path, number: int) -> np.ndarray:
    with av.open(str(video)) as container:
        for n, frame in enumerate(container.decode(container.streams.video[0])):
            if n == number:
                return frame.to_ndarray(format="rgb24").astype(int)
    raise AssertionError(f"{video} has no frame {number}")


def test_each_stack_opens_on_its_title_and_closes_on_its_clips(browser,
                                                               clip_deck: Path) -> None:
    page = _open(browser, clip_deck)
    try:
        stacks = page.evaluate("""() => [...document.querySelectorAll('section.stack')].map(
            stack => [...stack.children].filter(s => s.matches('section')).map(s => ({
                id: s.id, role: s.dataset.role || '',
                kicker: [...s.querySelector('.kicker').childNodes]
                  .filter(n => !(n.nodeType === 1 && n.hidden)).map(n => n.textContent).join(''),
                title: s.querySelector('h2').innerText,
                poster: s.querySelector('video') && s.querySelector('video').getAttribute('poster'),
                src: s.querySelector('video') && s.querySelector('video').getAttribute('src'),
                notes: s.querySelector('aside.notes').innerText })))""")
        loaded = page.evaluate("""() => Promise.all([...document.querySelectorAll('video')]
            .map(v => new Promise(done => { const image = new Image();
                image.onload = () => done([v.getAttribute('poster'), image.naturalWidth]);
                image.onerror = () => done([v.getAttribute('poster'), 0]);
                image.src = v.getAttribute('poster'); })))""")
    finally:
        page.close()
    deck_title = stacks[0][0]["title"]
    clips = []
    for slides in stacks:
        first = slides[0]
        assert first["role"] == "title", first["id"]
        if len(slides) > 1:
            # The title slide is titled as the stack's other slides are headed.
            assert first["title"].lower() in {slides[1]["kicker"].lower(), deck_title.lower()}
        roles = [s["role"] for s in slides]
        if "clip" in roles:
            at = roles.index("clip")
            assert set(roles[at:]) == {"clip"}, first["id"]
            clips += slides[at:]
    folder = clip_deck.parent
    assert len(clips) == len(list((folder / "video").glob("*.mp4")))
    assert len({c["notes"] for c in clips}) == len(clips)  # notes of their own
    assert all(width > 0 for _, width in loaded) and len(loaded) == len(clips)
    for clip in clips:
        source = folder.parent / "video" / Path(clip["src"]).name
        poster = np.asarray(Image.open(folder / clip["poster"]).convert("RGB")).astype(int)
        # The manifest's last section end, or the last of the test clip's ten frames.
        frame = POSTER_FRAME if source.with_suffix(".figures.json").exists() else 9
        wanted = _frame(source, frame)
        assert poster.shape == wanted.shape
        assert np.abs(poster - wanted).mean() < 3, clip["id"]


def test_posters_are_written_the_same_way_every_time(tmp_path: Path, default_ws: Worksheet,
                                                     default_values: Values) -> None:
    stems = rendered_clips(tmp_path, ("RiverBankPrompt", "BiasFlag"), default_ws.n_heads)
    _manifest(tmp_path / "video" / f"{stems['BiasFlag']}.mp4", POSTER_FRAME)
    first = build_deck(default_ws, default_values, tmp_path).parent / "posters"
    before = {p.name: p.read_bytes() for p in first.iterdir()}
    again = build_deck(default_ws, default_values, tmp_path).parent / "posters"
    assert {p.name: p.read_bytes() for p in again.iterdir()} == before
    assert sorted(before) == sorted(f"{stem}.jpg" for stem in stems.values())
    # The record names the decoder and encoder whose versions decide the bytes.
    from slides.deck import find_clips, poster_sources
    sources = poster_sources(find_clips(default_ws, tmp_path / "video"))
    assert len(sources) == len(stems)
    made_by = {source["made_by"] for source in sources.values()}
    assert made_by == {f"PyAV {av.__version__}, Pillow {Image.__version__}"}


def test_the_check_proves_each_poster_against_its_clip(tmp_path: Path) -> None:
    """``lecture check`` holds each poster to the clip rendering and the frame it records."""
    from render.check import CheckReport, _check_posters

    video = tmp_path / "video" / "01-Scene.mp4"
    video.parent.mkdir()
    _manifest(video, POSTER_FRAME)
    poster = "slides/posters/01-Scene.jpg"
    honest = {"outputs": {poster: "p" * 64},
              "posters": {poster: {"clip": "video/01-Scene.mp4", "sha256": "c" * 64,
                                   "frame": POSTER_FRAME}}}

    def problems(deck: dict, clip_digest: str = "c" * 64) -> list[str]:
        report = CheckReport()
        _check_posters(tmp_path, deck, {"video/01-Scene.mp4": clip_digest}, report)
        return [f"{p.path}: {p.what}" for p in report.problems]

    assert problems(honest) == []
    assert problems(honest, "d" * 64) == [
        f"{poster}: recorded from another rendering of video/01-Scene.mp4 than the one built"]
    moved = json.loads(json.dumps(honest))
    moved["posters"][poster]["frame"] = POSTER_FRAME - 1
    assert problems(moved) == [f"{poster}: shows frame {POSTER_FRAME - 1}, not the last "
                               "section end of video/01-Scene.mp4"]
    stray = json.loads(json.dumps(honest))
    stray["outputs"]["slides/posters/02-Other.jpg"] = "q" * 64
    assert problems(stray) == ["slides/posters/02-Other.jpg: a poster no clip is recorded for"]


def test_a_heads_grid_of_numbers_shades_in_the_colour_of_its_heat_map(
        browser, default_deck: Path, default_ws: Worksheet) -> None:
    """One palette: the numbers' shading and the heat map name each head by the same colour,
    and two heads never share it."""
    page = _open(browser, default_deck)
    seen = []
    try:
        page.evaluate("Reveal.configure({transition: 'none', fragments: false})")
        for h in range(1, default_ws.n_heads + 1):
            shown = []
            for slide_id in ("grids-heads", "grids-numbers"):
                go(page, slide_id)
                if slide_id == "grids-numbers":  # the heat maps stand side by side
                    page.click(f'#{slide_id} .switcher button[data-axis="head"]'
                               f'[data-value="{h}"]')
                shown.append(page.evaluate("""([id, h]) => {
                    const slide = document.getElementById(id);
                    const cell = [...slide.querySelectorAll('svg.picture rect[data-draws]')]
                        .find(r => r.checkVisibility() && r.dataset.role !== 'masked'
                              && r.dataset.draws.includes('.h' + h + '.A['));
                    if (cell) return getComputedStyle(cell).fill;
                    const table = [...slide.querySelectorAll('table')]
                        .find(t => t.checkVisibility());
                    const probe = document.createElement('span');
                    probe.style.color = 'var(--shade)';
                    table.appendChild(probe);
                    const shade = getComputedStyle(probe).color;
                    probe.remove();
                    return shade;
                }""", [slide_id, h]))
            seen.append(tuple(shown))
    finally:
        page.close()
    assert all(heat == shade for heat, shade in seen), seen
    assert len({shade for _, shade in seen}) == default_ws.n_heads
