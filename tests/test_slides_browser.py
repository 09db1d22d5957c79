"""The deck in a real browser (Playwright driving Debian's Chromium, never a downloaded one):
every slide renders from disk and over http without errors or requests to other hosts,
formulas are typeset, switchers show the other sentence's and head's numbers, clips play
with captions, the PDF has one page per slide at slide size. Screenshots of three slides
go to ``build/review/`` for a person to look at."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from slides.deck import build_deck, deck_context, find_clips
from slides.pdf import SLIDE_SIZE
from tests.conftest import DATA, THREE_HEADS
from tests.test_slides_html import markup_worksheet, rendered_clips
from worksheet import DEFAULT_WORKSHEET, Values, compute_values, load_worksheet

REVIEW = Path(__file__).resolve().parent.parent / "build" / "review"

READY = """() => window.Reveal && Reveal.isReady()
    && [...document.querySelectorAll('.math, .formula')].every(e => e.querySelector('.katex'))"""

# Visit every slide with all fragments shown; report any slide that is not displayed,
# has no title, lays content outside the slide (KaTeX internals and notes excepted), or
# lets a column's content spill into its neighbour.
EVERY_SLIDE = """([width, height]) => {
  Reveal.configure({transition: 'none', fragments: false});
  const problems = [];
  for (const slide of Reveal.getSlides()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    const title = slide.querySelector('h2');
    if (!slide.classList.contains('present') || !slide.checkVisibility()
        || !title || !title.textContent.trim() || title.getBoundingClientRect().height === 0) {
      problems.push([slide.id, 'not shown']);
      continue;
    }
    for (const element of slide.querySelectorAll('*')) {
      if (element.closest('aside.notes, [hidden]')
          || (element.parentElement && element.parentElement.closest('.katex'))) continue;
      const r = element.getBoundingClientRect();
      if (!r.width && !r.height) continue;
      if (r.right - box.left > width + 1 || r.bottom - box.top > height + 1) {
        problems.push([slide.id, 'overflows', element.tagName, element.className]);
        break;
      }
    }
    for (const column of slide.querySelectorAll('.column')) {
      const edge = column.getBoundingClientRect().right;
      for (const child of column.children) {
        if (child.checkVisibility() && child.getBoundingClientRect().right > edge + 1) {
          problems.push([slide.id, 'spills out of its column', child.tagName]);
        }
      }
    }
  }
  return problems;
}"""

VISIBLE_FIGURES = """(id) => [...document.getElementById(id).querySelectorAll('[data-key]')]
    .filter(e => e.checkVisibility() && !e.closest('aside.notes'))
    .map(e => [e.dataset.key, e.textContent])"""


@dataclass(frozen=True)
class Built:
    index: Path
    slides: int
    values: Values


def _build(folder: Path, source: Path) -> Built:
    ws = load_worksheet(source)
    values = compute_values(ws)
    index = build_deck(ws, values, folder)
    slides = len(deck_context(ws, values, find_clips(ws, folder / "video")).slides)
    return Built(index, slides, values)


@pytest.fixture(scope="module")
def decks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    sources = {"default": DEFAULT_WORKSHEET, "three": THREE_HEADS,
               "four-heads": DATA / "four-heads.json",
               "one-wide-head": DATA / "one-wide-head.json"}
    sources["markup"] = markup_worksheet(tmp_path_factory.mktemp("sources"))
    built = {name: _build(tmp_path_factory.mktemp(name), source)
             for name, source in sources.items()}
    with_clips = tmp_path_factory.mktemp("clips")
    rendered_clips(with_clips, ("RiverBankPrompt", "HeadWalkthrough2"), 2, sound=True)
    built["clips"] = _build(with_clips, DEFAULT_WORKSHEET)
    return built


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep the test output clean."""


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on localhost; yield the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@dataclass
class Visit:
    page: Page
    errors: list[str]
    requests: list[str]


@contextmanager
def visit(browser: Browser, url: str) -> Iterator[Visit]:
    """Open ``url`` and wait until the deck is ready and every formula typeset."""
    width, height = SLIDE_SIZE
    page = browser.new_page(viewport={"width": width, "height": height})
    seen = Visit(page, [], [])
    page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on("request", lambda request: seen.requests.append(request.url))
    try:
        page.goto(url)
        page.wait_for_function(READY, timeout=30_000)
        yield seen
    finally:
        page.close()


@contextmanager
def opened(browser: Browser, built: Built, where: str) -> Iterator[tuple[Visit, str]]:
    """The deck from disk or over http; also yields the prefix every request must have."""
    if where == "disk":
        with visit(browser, built.index.as_uri()) as seen:
            yield seen, built.index.parent.as_uri() + "/"
        return
    with served(built.index.parent) as base, visit(browser, base + "index.html") as seen:
        yield seen, base


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two CSS ``rgb(...)`` colours."""
    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
        r, g, b_ = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
                    for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def go(page: Page, slide_id: str) -> None:
    page.evaluate("""(id) => { const at = Reveal.getIndices(document.getElementById(id));
                               Reveal.slide(at.h, at.v); }""", slide_id)


# ------------------------------------------------------------------ rendering


@pytest.mark.parametrize("where", ["disk", "http"])
def test_every_slide_renders_offline_with_formulas_and_no_errors(browser, decks,
                                                                 where: str) -> None:
    built = decks["default"]
    with opened(browser, built, where) as (seen, local):
        page = seen.page
        assert page.evaluate("Reveal.getTotalSlides()") == built.slides
        formulas = page.evaluate("document.querySelectorAll('.math, .formula').length")
        assert formulas > 100
        assert page.evaluate("document.querySelectorAll('.katex').length") >= formulas
        assert page.evaluate("document.querySelectorAll('.katex-error').length") == 0
        assert page.evaluate(EVERY_SLIDE, list(SLIDE_SIZE)) == []
        assert seen.errors == []
        # (the explorer imports its runtime's glue from a blob: URL when it is shown)
        outside = [url for url in seen.requests
                   if not url.startswith((local, "data:", "blob:"))]
        assert outside == []
        assert any(url.endswith("lib/katex/dist/katex.min.js") for url in seen.requests)


@pytest.mark.parametrize("name", ["three", "four-heads", "one-wide-head", "markup"])
def test_the_layout_fits_other_worksheet_shapes(browser, decks, name: str) -> None:
    built = decks[name]
    with opened(browser, built, "disk") as (seen, _):
        assert seen.page.evaluate("Reveal.getTotalSlides()") == built.slides
        assert seen.page.evaluate(EVERY_SLIDE, list(SLIDE_SIZE)) == []
        assert seen.page.evaluate("document.querySelectorAll('.katex-error').length") == 0
        assert seen.errors == []


def test_markup_words_reach_the_viewer_literally(browser, decks) -> None:
    with opened(browser, decks["markup"], "disk") as (seen, _):
        go(seen.page, "prompt-receiver")
        sentence = seen.page.text_content("#prompt-receiver svg")
        for word in ("<river>", "b&nk", 'fisher"man', "it's"):
            assert word in sentence
        go(seen.page, "head-1-qk")
        corner = seen.page.inner_text("#head-1-qk .panel:not([hidden]) th.corner")
        assert corner.endswith("<set&ting>")


def test_fragments_reveal_the_dot_products_source_by_source(browser, decks) -> None:
    built = decks["default"]
    with opened(browser, built, "disk") as (seen, _):
        page = seen.page
        go(page, "head-1-dots")
        rows = "#head-1-dots .panel:not([hidden]) table.steps tbody tr"
        shown = f"() => [...document.querySelectorAll('{rows}')].map(r => " \
                "r.classList.contains('visible'))"
        assert page.evaluate(shown) == [False] * 10
        page.evaluate("Reveal.nextFragment()")
        assert page.evaluate(shown) == [True] + [False] * 9
        page.evaluate("Reveal.nextFragment(); Reveal.nextFragment()")
        assert page.evaluate(shown) == [True] * 3 + [False] * 7


# ------------------------------------------------------------------ switchers


def _check_panel(page: Page, values: Values, slide_id: str, sentence: str,
                 head: int | None) -> dict[str, str]:
    figures = dict(page.evaluate(VISIBLE_FIGURES, slide_id))
    assert figures
    for key, text in figures.items():
        assert text == values.text(key), key
        if key.split(".")[0] in ("river", "cheque"):
            assert key.startswith(sentence + "."), key
        found = re.search(r"\.h(\d+)\.", key)
        if found and head is not None:
            assert int(found[1]) == head, key
    return figures


def _press(page: Page, slide_id: str, axis: str, value: str) -> None:
    page.click(f'#{slide_id} .switcher button[data-axis="{axis}"][data-value="{value}"]')


@pytest.mark.parametrize(("slide_id", "heads"), [("head-1-weights", False),
                                                 ("head-1-softmax", False),
                                                 ("grids-project", True), ("grids-numbers", True)])
def test_switchers_show_the_other_sentences_and_heads_numbers(browser, decks, slide_id: str,
                                                              heads: bool) -> None:
    """A head's own stack switches only the sentence; the grids switch sentence and head."""
    built = decks["default"]
    with opened(browser, built, "http") as (seen, _):
        page = seen.page
        go(page, slide_id)
        river = _check_panel(page, built.values, slide_id, "river", 1)
        _press(page, slide_id, "sentence", "cheque")
        cheque = _check_panel(page, built.values, slide_id, "cheque", 1)
        assert list(cheque.values()) != list(river.values())
        buttons = page.locator(f'#{slide_id} .switcher button[data-axis="head"]').count()
        if not heads:
            assert buttons == 0
        else:
            assert buttons == 2
            _press(page, slide_id, "head", "2")
            _check_panel(page, built.values, slide_id, "cheque", 2)
            assert page.get_attribute(f'#{slide_id} button[data-value="2"]', "aria-pressed") \
                == "true"
        assert seen.errors == []


@pytest.mark.parametrize("key", ["Space", "Enter"])
def test_a_focused_switcher_button_takes_space_and_enter_without_changing_slide(
        browser, decks, key: str) -> None:
    built = decks["default"]
    with opened(browser, built, "disk") as (seen, _):
        page = seen.page
        go(page, "head-1-weights")
        before = page.evaluate("JSON.stringify(Reveal.getIndices())")
        page.focus('#head-1-weights .switcher button[data-value="cheque"]')
        page.keyboard.press(key)
        assert page.evaluate("JSON.stringify(Reveal.getIndices())") == before
        assert page.get_attribute('#head-1-weights button[data-value="cheque"]',
                                  "aria-pressed") == "true"
        _check_panel(page, built.values, "head-1-weights", "cheque", 1)
        # Focused from the keyboard, the button shows an outline of 3:1 against the slide
        # and against a pressed neighbour's accent (WCAG 2.4.7, 1.4.11).
        outline = page.evaluate("""() => {
            const b = document.activeElement, s = getComputedStyle(b);
            const behind = e => {  // the first opaque background behind e
              for (let x = e; x; x = x.parentElement) {
                const colour = getComputedStyle(x).backgroundColor;
                if (colour !== 'rgba(0, 0, 0, 0)') return colour;
              }
              return 'rgb(255, 255, 255)';
            };
            return [b.matches('.switcher button:focus-visible'), s.outlineStyle,
                    parseFloat(s.outlineWidth), s.outlineColor,
                    behind(b.closest('.switcher')),
                    getComputedStyle(b).backgroundColor,
                    Reveal.getConfig().transition,
                    getComputedStyle(document.querySelector('.fragment')).transitionDuration];
        }""")
        assert seen.errors == []
    focused, line, width, colour, slide, accent, transition, duration = outline
    assert focused and line == "solid" and width >= 2
    assert contrast(colour, slide) >= 3 and contrast(colour, accent) >= 3
    # without a wish for reduced motion (test_accessibility.py) the deck moves
    assert transition == "fade" and duration != "0s"


def test_speaker_notes_write_formulas_as_text_for_the_speaker_view(decks) -> None:
    html = decks["default"].index.read_text(encoding="utf-8")
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', html, re.S)
    assert any('class="math-plain">W<sub>O</sub>' in note for note in notes)
    assert not any("\\(" in note or "\\" in note for note in notes)


def test_the_context_switcher_changes_the_prediction(browser, decks) -> None:
    built = decks["default"]
    with opened(browser, built, "disk") as (seen, _):
        page = seen.page
        go(page, "other-context-switch")
        _check_panel(page, built.values, "other-context-switch", "cheque", None)
        _press(page, "other-context-switch", "sentence", "river")
        _check_panel(page, built.values, "other-context-switch", "river", None)


# ------------------------------------------------------------------ clips, review, PDF


@pytest.mark.parametrize("where", ["disk", "http"])
def test_clips_play_on_their_slide_with_captions(browser, decks, where: str) -> None:
    built = decks["clips"]
    with opened(browser, built, where) as (seen, local):
        page = seen.page
        go(page, "head-2-clip")
        page.evaluate("document.querySelector('#head-2-clip video').textTracks[0].mode = "
                      "'showing'")
        page.wait_for_function("""() => { const v = document.querySelector('#head-2-clip video');
            return v.readyState >= 1 && v.textTracks[0].cues
                && v.textTracks[0].cues.length === 2; }""", timeout=10_000)
        assert page.evaluate("document.querySelector('#head-2-clip video').textTracks[0]"
                             ".cues[0].getCueAsHTML().textContent") == \
            "The final <b>the</b> & its query"
        # The clip's sound plays too: the deck does not mute it.
        page.click("#head-2-clip video")  # a viewer's gesture, which lets sound play
        page.evaluate("() => { const v = document.querySelector('#head-2-clip video');"
                      " v.currentTime = 0; return v.play(); }")
        page.wait_for_function("""() => { const v = document.querySelector('#head-2-clip video');
            return !v.muted && v.webkitAudioDecodedByteCount > 0; }""", timeout=10_000)
        assert seen.errors == []
        assert [u for u in seen.requests if not u.startswith((local, "data:"))] == []


def test_screenshots_of_three_slides_for_review(browser, decks) -> None:
    REVIEW.mkdir(parents=True, exist_ok=True)
    with opened(browser, decks["default"], "disk") as (seen, _):
        seen.page.evaluate("Reveal.configure({transition: 'none', fragments: false})")
        for slide_id in ("head-1-softmax", "grids-heads", "combine-together"):
            go(seen.page, slide_id)
            target = REVIEW / f"slide-{slide_id}.png"
            seen.page.screenshot(path=str(target))
            assert target.stat().st_size > 10_000

