"""Print a built deck to PDF at slide size, one page per slide, with Debian's Chromium.

Playwright drives ``/usr/bin/chromium`` (never a downloaded browser). Reveal.js's print
view (``?print-pdf``) lays every slide out on a page of exactly the slide size; the deck
is configured to print each slide once, with all its fragments shown.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from slides.assets import DeckError

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "SLIDE_SIZE", "print_pdf"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]
SLIDE_SIZE = (1280, 720)
"""Width and height of a slide in CSS pixels (as configured in ``static/deck.js``)."""

_READY = """() => window.__deckPrinted === true
    && [...document.querySelectorAll('.math, .formula')].every(e => e.querySelector('.katex'))"""


def print_pdf(index: Path, target: Path, *, timeout_ms: int = 120_000) -> None:
    """Write ``target``: the deck at ``index`` printed through Reveal.js's print view.

    The browser runs in a worker thread: Playwright's synchronous API refuses a thread
    that already runs an event loop (a notebook, or another Playwright session).

    Raises
    ------
    DeckError
        When Chromium cannot be started or the deck does not finish laying out.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_print, index, target, timeout_ms).result()


def _print(index: Path, target: Path, timeout_ms: int) -> None:
    from playwright.sync_api import Error, sync_playwright

    width, height = SLIDE_SIZE
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.add_init_script("window.addEventListener('pdf-ready', () => "
                                     "{ window.__deckPrinted = true; });")
                page.goto(index.resolve().as_uri() + "?print-pdf")
                page.wait_for_function(_READY, timeout=timeout_ms)
                page.evaluate("document.fonts.ready.then(() => true)")
                page.pdf(path=str(target), prefer_css_page_size=True, print_background=True)
            finally:
                browser.close()
    except Error as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "unknown error"
        raise DeckError(f"{target}: cannot print the deck with {CHROMIUM}: {first}") from None
