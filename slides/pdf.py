"""Print a built deck to a tagged PDF handout at slide size, with Debian's Chromium.

Playwright drives ``/usr/bin/chromium`` (never a downloaded browser). Reveal.js's print
view (``?print-pdf``) lays every slide out on a page of exactly the slide size; the deck
is configured to print each slide once, with all its fragments shown. Three things make
that view a handout:

- **Every switcher state.** Before Reveal.js starts, each switchable slide is printed
  once per state it can show (each sentence, each head): its copies follow it, each
  with that state's panel and heading, and its panel caption names the state. The
  slide's own state comes first.
- **Nothing beyond a page.** The print rules (``static/print.css``; inlined here when a
  deck does not load them) apply, and the deck fits each slide's tables and pictures.
  A slide whose content still reaches past its page's padding is then scaled down as a
  whole, about its top left corner, until it fits.
- **An accessible file.** Chromium writes a tagged PDF (structure tree, marked
  content). pikepdf then adds what Chromium leaves out: the document's title and
  language in the catalogue, the document information and the XMP metadata, a bookmark
  per stack (with the stack's title, on its title slide's page) with one per slide
  beneath it, and a viewer that shows the title and opens on the bookmarks. Reveal.js
  hides all slides but the first from assistive software, so Chromium would tag only
  that one: each printed slide is shown to it first.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from slides.assets import DeckError

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "PRINT_RULES", "SLIDE_SIZE", "Handout", "HandoutPage",
           "print_pdf"]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]
SLIDE_SIZE = (1280, 720)
"""Width and height of a slide in CSS pixels (as configured in ``static/deck.js``)."""
PRINT_RULES = Path(__file__).resolve().parent / "static" / "print.css"
"""The print view's stylesheet; a deck that does not load it gets it inlined."""


@dataclass(frozen=True)
class HandoutPage:
    """One printed page: its slide, the stack it belongs to, and how it was printed."""

    slide: str
    """The slide's id (a copy for another switcher state has its original's id)."""
    stack: int
    """Index of the slide's stack in the deck."""
    heading: str
    """The slide's heading as printed (its bookmark under its stack's)."""
    state: str
    """The switcher state shown (``"sentence=cheque head=2"``); empty on a plain slide."""
    scale: float
    """1 when the slide fits its page as laid out; less when it was scaled down to fit."""


@dataclass(frozen=True)
class Handout:
    """What :func:`print_pdf` wrote, and how long each stage took (in seconds)."""

    path: Path
    title: str
    language: str
    stacks: tuple[str, ...]
    """Each stack's title, in deck order: the top-level bookmarks."""
    pages: tuple[HandoutPage, ...]
    timings: dict[str, float]


# Runs before any of the deck's scripts. Reveal.js's UMD bundle assigns ``window.Reveal``:
# the setter wraps its ``initialize`` so that, with the whole document parsed (the scripts
# close the body) and before the print view is laid out, every switchable slide is copied
# once per further state, and every slide records its stack. It also inlines the print rules
# when the deck does not load them, and notes when the print view is ready.
_PREPARE = r"""
(() => {
  const RULES = %(rules)s;
  const AXES = ["sentence", "head"];

  function matches(element, slide) {
    return AXES.every(axis => element.dataset[axis] === undefined
                              || element.dataset[axis] === slide.dataset[axis]);
  }
  function show(slide) {
    slide.querySelectorAll(".panel, .variant").forEach(element => {
      element.hidden = !matches(element, slide);
    });
    slide.querySelectorAll(".switcher button").forEach(button => {
      const chosen = slide.dataset[button.dataset.axis] === button.dataset.value;
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    });
  }
  function stateOf(slide) {
    return AXES.filter(axis => slide.dataset[axis] !== undefined
                               && slide.querySelector(`.switcher [data-axis="${axis}"]`))
      .map(axis => `${axis}=${slide.dataset[axis]}`).join(" ");
  }
  /* Every state the slide's switchers offer, the slide's own first; states that show the
   * same panels and headings are printed once. */
  function states(slide) {
    const choices = AXES.map(axis => [axis, [...new Set(
      [...slide.querySelectorAll(`.switcher button[data-axis="${axis}"]`)]
        .map(button => button.dataset.value))]]).filter(([, values]) => values.length);
    let combos = [{}];
    for (const [axis, values] of choices) {
      combos = combos.flatMap(combo => values.map(value => ({...combo, [axis]: value})));
    }
    const own = Object.fromEntries(choices.map(([axis, values]) =>
      [axis, values.includes(slide.dataset[axis]) ? slide.dataset[axis] : values[0]]));
    const shown = combo => {
      const probe = {dataset: {...slide.dataset, ...combo}};
      return [...slide.querySelectorAll(".panel, .variant")]
        .map(element => matches(element, probe) ? 1 : 0).join("");
    };
    const seen = new Set([shown(own)]);
    return [own, ...combos.filter(combo => {
      const key = shown(combo);
      return seen.has(key) ? false : (seen.add(key), true);
    })];
  }
  /* Where a stack's title is: its own label if it has one; else the kicker of its first
   * slide that is neither its title slide nor one whose heading follows the switchers (the
   * kicker of such a slide is the stack's title); else its title slide's heading. */
  function stackTitle(stack, slides) {
    const label = stack.dataset.title || stack.getAttribute("aria-label");
    if (label) return label;
    for (const slide of slides) {
      const kicker = slide.querySelector(":scope > .kicker");
      if (slide.dataset.role !== "title" && kicker && !kicker.querySelector(".variant")) {
        return kicker;
      }
    }
    return slides.length ? slides[0].querySelector("h1, h2") : null;
  }

  // A copy's ids get the state's suffix, and so do the references to them inside it (a
  // picture's title and description): no id repeats, and each copy names its own.
  const REFERENCES = ["aria-labelledby", "aria-describedby", "aria-controls", "for"];
  function renumber(copy, suffix) {
    const renamed = new Set();
    copy.querySelectorAll("[id]").forEach(element => {
      renamed.add(element.id);
      element.id += suffix;
    });
    copy.querySelectorAll(REFERENCES.map(name => `[${name}]`).join(", ")).forEach(element => {
      REFERENCES.forEach(name => {
        const value = element.getAttribute(name);
        if (value === null) return;
        element.setAttribute(name, value.split(/\s+/)
          .map(id => renamed.has(id) ? id + suffix : id).join(" "));
      });
    });
    copy.querySelectorAll('a[href^="#"]').forEach(link => {
      const target = link.getAttribute("href").slice(1);
      if (renamed.has(target)) link.setAttribute("href", `#${target}${suffix}`);
    });
  }

  function prepare() {
    if (window.__printPrepared) return;
    if (!document.querySelector('link[rel="stylesheet"][href$="print.css"]')) {
      const style = document.createElement("style");
      style.dataset.print = "rules";
      style.textContent = RULES;
      document.head.appendChild(style);
    }
    const titles = [];
    document.querySelectorAll(".reveal .slides > section").forEach((outer, stack) => {
      const slides = outer.classList.contains("stack")
        ? [...outer.querySelectorAll(":scope > section")] : [outer];
      titles.push(stackTitle(outer, slides));
      slides.forEach(slide => {
        slide.dataset.printStack = stack;
        slide.dataset.printSlide = slide.id;
        if (!slide.classList.contains("switchable")) return;
        let last = slide;
        states(slide).forEach((combo, k) => {
          const copy = k === 0 ? slide : slide.cloneNode(true);
          if (k > 0) {
            copy.removeAttribute("id");
            renumber(copy, `-state-${k}`);
            last.after(copy);
            last = copy;
          }
          Object.assign(copy.dataset, combo);
          show(copy);
          copy.dataset.printState = stateOf(copy);
        });
      });
    });
    window.__printStacks = titles;
    window.__printPrepared = true;
  }

  let reveal;
  Object.defineProperty(window, "Reveal", {
    configurable: true,
    get() { return reveal; },
    set(value) {
      reveal = value;
      const initialize = value && value.initialize;
      if (typeof initialize === "function") {
        value.initialize = function (...args) { prepare(); return initialize.apply(this, args); };
      }
    },
  });
  window.addEventListener("pdf-ready", () => { window.__deckPrinted = true; });
})();
"""

_READY = """() => window.__deckPrinted === true
    && [...document.querySelectorAll('.math, .formula')].every(e => e.querySelector('.katex'))"""

# Runs once the print view is laid out, the deck has fitted every slide and the fonts are
# in. Shows every printed slide to assistive software (the PDF's tags come from what it
# sees). Measures what each page draws: every text run, picture and painted box under its
# slide (speaker notes aside), cut to what clips it. Where that reaches past the page's
# padding, the slide is scaled down about its padding's top left corner until it lies
# inside. Returns the pages, the stacks' titles, and the document's title and language.
_CONTAIN = r"""() => {
  const SIDES = ["Top", "Right", "Bottom", "Left"];
  function textOf(element) {
    const copy = element.cloneNode(true);
    copy.querySelectorAll(".katex-html, annotation").forEach(e => e.remove());
    return copy.textContent.replace(/\s+/g, " ").trim();
  }
  /* The box of everything drawn under the slide: text runs, pictures, media, and boxes
   * with a background or border; each cut to the boxes of the ancestors that clip it.
   * The speaker notes and KaTeX's MathML (visually hidden; read by assistive software)
   * are not drawn. */
  function extent(slide) {
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    const range = document.createRange();
    const add = (box, clip) => {
      const l = Math.max(box.left, clip.left), t = Math.max(box.top, clip.top);
      const r = Math.min(box.right, clip.right), b = Math.min(box.bottom, clip.bottom);
      if (r - l <= 0 && b - t <= 0) return;
      left = Math.min(left, l); top = Math.min(top, t);
      right = Math.max(right, r); bottom = Math.max(bottom, b);
    };
    const painted = style => style.visibility === "visible" && (
      style.backgroundImage !== "none"
      || !/rgba\(.*, 0\)$|transparent/.test(style.backgroundColor)
      || SIDES.some(side => parseFloat(style["border" + side + "Width"]) > 0
                            && style["border" + side + "Style"] !== "none"));
    const visit = (element, clip) => {
      for (const node of element.childNodes) {
        if (node.nodeType === Node.TEXT_NODE) {
          if (!node.data.trim()) continue;
          const style = getComputedStyle(element);
          if (style.visibility !== "visible") continue;
          range.selectNodeContents(node);
          for (const box of range.getClientRects()) add(box, clip);
          continue;
        }
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        if (node.matches("aside.notes, .katex-mathml")) continue;
        const style = getComputedStyle(node);
        if (style.display === "none") continue;
        const box = node.getBoundingClientRect();
        if (node.matches("svg, img, video, canvas, iframe")) {
          if (style.visibility === "visible") add(box, clip);
          continue;  // a picture is drawn within its own box
        }
        if (painted(style)) add(box, clip);
        const inner = style.overflowX !== "visible" || style.overflowY !== "visible"
          ? {left: Math.max(clip.left, box.left), top: Math.max(clip.top, box.top),
             right: Math.min(clip.right, box.right), bottom: Math.min(clip.bottom, box.bottom)}
          : clip;
        visit(node, inner);
      }
    };
    visit(slide, {left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity});
    return {left, top, right, bottom};
  }
  const pages = [...document.querySelectorAll(".reveal .slides .pdf-page")];
  const found = pages.map(page => {
    const slide = page.querySelector(":scope > section");
    /* Reveal.js hides every slide but the current one from assistive software, in print
     * too (aria-hidden, and hidden overridden by its print style). Chromium tags the PDF
     * from what that software sees: each printed slide is shown to it. */
    if (slide) {
      slide.removeAttribute("aria-hidden");
      slide.hidden = false;
    }
    const frame = page.getBoundingClientRect();
    let scale = 1;
    if (slide) {
      const style = getComputedStyle(slide);
      const padding = SIDES.map(side => parseFloat(style["padding" + side]));
      const box = extent(slide);
      const left = frame.left + padding[3], top = frame.top + padding[0];
      const right = frame.left + page.clientWidth - padding[1];
      const bottom = frame.top + page.clientHeight - padding[2];
      if (box.right > right + 0.5 || box.bottom > bottom + 0.5) {
        const widths = box.right > right ? (right - left) / (box.right - left) : 1;
        const heights = box.bottom > bottom ? (bottom - top) / (box.bottom - top) : 1;
        scale = Math.floor(Math.min(widths, heights) * 1000) / 1000;
        slide.style.transformOrigin = `${padding[3]}px ${padding[0]}px`;
        slide.style.transform = `scale(${scale})`;
        slide.classList.add("print-scaled");
      }
    }
    return {
      slide: slide ? slide.dataset.printSlide || slide.id : "",
      stack: slide ? Number(slide.dataset.printStack) : -1,
      heading: slide ? textOf([...slide.querySelectorAll("h1, h2")]
        .find(e => e.checkVisibility()) || document.createElement("h2")) : "",
      state: slide ? slide.dataset.printState || "" : "",
      scale,
    };
  });
  const stacks = (window.__printStacks || []).map(title =>
    title === null ? "" : typeof title === "string" ? title : textOf(title));
  return {pages: found, stacks, title: document.title,
          language: document.documentElement.lang || ""};
}"""


def print_pdf(index: Path, target: Path, *, timeout_ms: int = 120_000) -> Handout:
    """Write ``target``: the deck at ``index`` printed as a tagged, bookmarked handout.

    The browser runs in a worker thread: Playwright's synchronous API refuses a thread
    that already runs an event loop (a notebook, or another Playwright session).

    Raises
    ------
    DeckError
        When Chromium cannot be started, the deck does not finish laying out, or the
        PDF cannot be finished.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_print, Path(index), Path(target), timeout_ms).result()


def _print(index: Path, target: Path, timeout_ms: int) -> Handout:
    from playwright.sync_api import Error, sync_playwright

    width, height = SLIDE_SIZE
    timings: dict[str, float] = {}
    started = time.perf_counter()
    script = _PREPARE % {"rules": json.dumps(PRINT_RULES.read_text(encoding="utf-8"))}
    raw = target.with_name(f".{target.name}.chromium")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.add_init_script(script)
                timings["browser"] = time.perf_counter() - started
                page.goto(index.resolve().as_uri() + "?print-pdf")
                page.wait_for_function(_READY, timeout=timeout_ms)
                page.evaluate("document.fonts.ready.then(() => true)")
                if not page.evaluate("window.__printPrepared === true"):
                    raise DeckError(f"{target}: cannot print {index}: its slides were laid out "
                                    "before the handout could copy their switcher states (does "
                                    "the deck still load Reveal.js as a script?)")
                layout = page.evaluate(_CONTAIN)
                timings["layout"] = time.perf_counter() - started - timings["browser"]
                mark = time.perf_counter()
                page.pdf(path=str(raw), prefer_css_page_size=True, print_background=True,
                         tagged=True, outline=False)
                timings["print"] = time.perf_counter() - mark
            finally:
                browser.close()
    except Error as error:
        raw.unlink(missing_ok=True)
        first = str(error).strip().splitlines()[0] if str(error).strip() else "unknown error"
        raise DeckError(f"{target}: cannot print the deck with {CHROMIUM}: {first}") from None
    pages = tuple(HandoutPage(**entry) for entry in layout["pages"])
    handout = Handout(target, layout["title"], layout["language"], tuple(layout["stacks"]),
                      pages, timings)
    mark = time.perf_counter()
    try:
        _finish(raw, handout)
    finally:
        raw.unlink(missing_ok=True)
    timings["metadata"] = time.perf_counter() - mark
    timings["total"] = time.perf_counter() - started
    return handout


def _finish(raw: Path, handout: Handout) -> None:
    """Write ``handout.path`` from Chromium's ``raw`` PDF with the title, language,
    metadata, bookmarks and viewer preferences added."""
    import pikepdf

    target = handout.path
    try:
        with pikepdf.open(raw) as pdf:
            if len(pdf.pages) != len(handout.pages):
                raise DeckError(f"{target}: Chromium printed {len(pdf.pages)} pages for "
                                f"{len(handout.pages)} slides")
            root = pdf.Root
            if handout.language:
                root.Lang = pikepdf.String(handout.language)
            root.ViewerPreferences = root.get("/ViewerPreferences", pikepdf.Dictionary())
            root.ViewerPreferences.DisplayDocTitle = True
            root.PageMode = pikepdf.Name.UseOutlines
            pdf.docinfo[pikepdf.Name.Title] = handout.title
            with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
                meta["dc:title"] = handout.title
                if handout.language:
                    meta["dc:language"] = [handout.language]
            with pdf.open_outline() as outline:
                outline.root.clear()
                groups: dict[int, list[int]] = {}
                for k, page in enumerate(handout.pages):
                    groups.setdefault(page.stack, []).append(k)
                for number, mine in sorted(groups.items()):
                    title = handout.stacks[number] if number < len(handout.stacks) else ""
                    item = pikepdf.OutlineItem(title or handout.pages[mine[0]].heading, mine[0])
                    previous = None
                    for k in mine:
                        page = handout.pages[k]
                        if page.slide == previous:
                            continue  # a further switcher state of the same slide
                        previous = page.slide
                        item.children.append(pikepdf.OutlineItem(page.heading or page.slide, k))
                    outline.root.append(item)
            fd, staged = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            os.close(fd)
            try:
                pdf.save(staged)
                os.chmod(staged, 0o644)
                os.replace(staged, target)
            except BaseException:
                Path(staged).unlink(missing_ok=True)
                raise
    except DeckError:
        raise
    except (pikepdf.PdfError, OSError) as error:
        raise DeckError(f"{target}: cannot finish the printed PDF ({error})") from None
