"""WCAG 2.1 A and AA, proven in a real browser: axe-core (npm, used only here) in Debian's
Chromium finds no violation, at any impact, on every slide of the default deck and of a
three-head deck in every switcher state, on the storyboard, on the transcript and on the
page ``lecture serve`` serves, with its banner showing.

Auditing slide by slide, state by state, would cost a minute of the suite. Instead each
deck is audited once, in Reveal.js's print view (``?print-pdf``), where every slide is
laid out as a page with its fragments shown, after every switcher panel and heading
variant has been unhidden and the switchers (hidden in print) shown: the audit first counts
that every slide, panel, heading variant and switcher of the file is displayed at once.
To spend no second page load, it runs on the print view test_slides_hall.py opens to
measure the printed pages (:func:`audited_in_print`). The served page is audited on a clip's
slide with its banner. The pictures' descriptions are held to the values, and ``lecture
check`` to them; reduced motion turns off transitions (a focused switcher's outline is
measured in test_slides_browser.py, on the page that presses it).
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from html import unescape
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

from render.check import check_build
from render.server import DeckServer, Hub
from slides.assets import NODE_MODULES
from slides.context import Columns, Picture, Switch
from slides.deck import deck_context
from slides.pdf import SLIDE_SIZE
from tests.test_slides_browser import READY
from worksheet import BUNDLED_EXPERIMENT, DEFAULT_WORKSHEET, compute_values, load_worksheet
from worksheet.results import load_experiment

AXE = NODE_MODULES / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BANNER = "worksheet.json: line 3 column 7: invalid JSON"
"""The error the served page's banner shows while it is audited."""

# Lay every slide, panel, heading variant and switcher out at once, then count them. Then
# take the drawn shapes out of the pictures, keeping each <svg> with its <title> and <desc>:
# axe can judge neither the contrast of SVG text (it marks it incomplete) nor anything else
# inside a drawing, and walking 16,000 shapes was a third of each audit's time.
# test_every_text_a_picture_draws_has_the_contrast_of_body_text holds the drawn text to
# 4.5:1 from the palette instead.
EVERYTHING = """() => {
  document.querySelectorAll('.panel[hidden], .variant[hidden]')
    .forEach(e => { e.hidden = false; });
  const style = document.createElement('style');
  style.textContent = 'html.reveal-print .reveal .switcher { display: flex !important; }';
  document.head.appendChild(style);
  const shown = selector => [...document.querySelectorAll(selector)]
    .filter(e => e.checkVisibility()).length;
  const counted = {slides: shown('.reveal .slides section:not(.stack)'),
    total: Reveal.getTotalSlides(), pages: document.querySelectorAll('.pdf-page').length,
    panels: shown('.panels > .panel'), variants: shown('.variant'),
    switchers: shown('.switcher'), buttons: shown('.switcher button'),
    pictures: shown('svg.picture')};
  counted.shapes = 0;
  for (const svg of document.querySelectorAll('svg.picture')) {
    for (const child of [...svg.children]) {
      if (child.tagName !== 'title' && child.tagName !== 'desc') {
        child.remove();
        counted.shapes += 1;
      }
    }
  }
  return counted;
}"""

AXE_OPTIONS = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"],
               "selectors": False, "elementRef": False, "iframes": False}
"""Every WCAG 2.1 A and AA rule; only the violations are listed node by node."""

AUDIT = """async (options) => {
  const result = await axe.run(document, options);
  return {rules: result.passes.length + result.violations.length + result.incomplete.length,
          inapplicable: result.inapplicable.length,
          violations: result.violations.map(rule => [rule.id, rule.impact,
            rule.nodes.slice(0, 3).map(node => node.html.slice(0, 160))])};
}"""


def audit(page: Page) -> dict[str, Any]:
    """axe-core's WCAG 2.1 A and AA rules on the page as it is now."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate(AUDIT, AXE_OPTIONS)


def _counted(html: str) -> dict[str, int]:
    """How many slides, panels, heading variants, switchers and pictures the file holds."""
    return {"slides": len(re.findall(r'<section id="[^"]+" data-part=', html)),
            "panels": html.count('<div class="panel"'),
            "variants": html.count('<span class="variant"'),
            "switchers": html.count('<nav class="switcher"'),
            "buttons": len(re.findall(r"<button type=\"button\" data-axis=", html)),
            "pictures": html.count('<svg class="picture"')}


def everything_at_once(page: Page, html: str) -> dict[str, int]:
    """On the deck's print view, open in ``page`` and printed: show every panel, heading
    variant and switcher, and prove that it then shows all of the file ``html``."""
    shown = page.evaluate(EVERYTHING)
    counted = _counted(html)
    assert shown["slides"] == shown["total"] == shown["pages"] == counted["slides"]
    for what in ("panels", "variants", "switchers", "buttons", "pictures"):
        assert shown[what] == counted[what], what
    assert counted["panels"] > 30 and counted["buttons"] > 30 and shown["shapes"] > 5000
    return counted


STATIC = Path(__file__).resolve().parents[1] / "slides" / "static"
PALETTE_FILES = ("deck.css", "pictures.css")
"""Where the deck's colours are named, in the order the deck loads them (the later wins)."""


def palette(css: dict[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """The colours the stylesheets name (``--ink`` → ``#1d2230``) and the fill of each text
    class a picture may use (``ink-muted`` → its colour)."""
    css = css or {name: (STATIC / name).read_text(encoding="utf-8") for name in PALETTE_FILES}
    colours: dict[str, str] = {}
    for name in PALETTE_FILES:
        for root in re.findall(r":root\s*{([^}]*)}", css[name]):
            colours.update(re.findall(r"(--[\w-]+):\s*(#[0-9a-fA-F]{6})\b", root))
    inks = {klass: colours[var] for klass, var in re.findall(
        r"svg\.picture \.(ink-[\w-]+)\s*{\s*fill:\s*var\((--[\w-]+)\)", css["pictures.css"])}
    return colours, inks


def _rgb(colour: str) -> tuple[float, ...]:
    return tuple(int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))


def ratio(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG's contrast ratio of two sRGB colours (channels 0..1)."""
    def luminance(rgb: tuple[float, ...]) -> float:
        r, g, b_ = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


SHAPE = re.compile(r'<(rect|text) ([^>]*)>')
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def faint_text(html: str, css: dict[str, str] | None = None) -> list[tuple[str, str, float]]:
    """Every label the deck's pictures draw with less than 4.5:1 against what it is drawn
    on (the rectangles painted before it under its middle, each at its opacity, over the
    white page): its picture's title, its text class and its contrast. A text class the
    stylesheet does not colour counts as 0:1."""
    colours, inks = palette(css)
    page = _rgb(colours["--paper"])
    fills = {name[2:]: _rgb(value) for name, value in colours.items()}
    faint = []
    for svg in re.findall(r'<svg class="picture".*?</svg>', html, re.S):
        title = re.search(r"<title[^>]*>([^<]*)", svg)[1]
        rects: list[tuple[float, float, float, float, tuple[float, ...], float]] = []
        for tag, attributes in SHAPE.findall(svg):
            a = dict(ATTRIBUTE.findall(attributes))
            classes = a.get("class", "").split()
            if tag == "rect":
                fill = next((c[5:] for c in classes if c.startswith("fill-")), "none")
                if fill != "none":
                    rects.append((float(a["x"]), float(a["y"]), float(a["width"]),
                                  float(a["height"]), fills[fill],
                                  float(a.get("fill-opacity", 1))))
                continue
            ink = next(c for c in classes if c.startswith("ink-"))
            size, x = float(a["font-size"]), float(a["x"])
            x += {"start": 0.3, "middle": 0.0, "end": -0.3}[a["text-anchor"]] * size
            y = float(a["y"]) - 0.35 * size
            behind = page
            for left, top, width, height, fill, alpha in rects:
                if left <= x <= left + width and top <= y <= top + height:
                    behind = tuple(alpha * f + (1 - alpha) * b
                                   for f, b in zip(fill, behind, strict=True))
            found = ratio(_rgb(inks[ink]), behind) if ink in inks else 0.0
            if found < 4.5:
                faint.append((unescape(title), ink, round(found, 2)))
    return faint


def audited_in_print(page: Page, html: str, record_property: Any) -> None:
    """The deck's print view in ``page``, every state shown at once, passes axe."""
    assert faint_text(html) == []  # what axe cannot judge of the drawn shapes it is spared
    counted = everything_at_once(page, html)
    found = audit(page)
    record_property("axe", json.dumps({**found, **counted}))
    assert found["rules"] >= 15
    assert found["violations"] == []


@contextmanager
def serving(folder: Path, error: str | None) -> Iterator[str]:
    """The build ``folder`` as ``lecture serve`` serves it (its server, with the script it
    adds to the deck), its hub holding ``error``; yields the deck's URL."""
    hub = Hub()
    hub.update(deck="audited", error=error)
    server = DeckServer(("127.0.0.1", 0), folder, hub)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              daemon=True)
    thread.start()
    try:
        yield server.url + "index.html"
    finally:
        hub.close()
        server.shutdown()
        server.server_close()
        thread.join()


# ------------------------------------------------------------------ axe
# Every slide of the default and the three-head deck, in every state, is audited in print,
# on the page test_slides_hall.py opens to measure the printed pages (audited_in_print).


def test_the_served_deck_with_its_banner_and_a_clip_passes_axe_and_keeps_still(
        browser: Browser, lesson: Path, record_property) -> None:
    """The lesson's deck as ``lecture serve`` serves it, with an error in its banner, on
    the slide of its first clip (a video named by its title, with its captions and its
    link to the transcript). The other slides are taken out first: each of them is audited
    in print, and the clips are all alike (test_each_clip_is_named_by_its_title...).
    Opened with a wish for reduced motion, the deck turns off its transitions and
    auto-animation (without it, it fades: test_a_focused_switcher_button_takes_space_and_
    enter... in test_slides_browser.py)."""
    width, height = SLIDE_SIZE
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.emulate_media(reduced_motion="reduce")
        with serving(lesson, BANNER) as url:
            page.goto(url)
            page.wait_for_function(READY, timeout=30_000)
            still = page.evaluate("""() => {
                const c = Reveal.getConfig(), f = document.querySelector('.fragment');
                const s = getComputedStyle(f);
                return [c.transition, c.backgroundTransition, c.autoAnimate,
                        s.transitionDuration, s.animationName];
            }""")
            page.wait_for_function("() => { const b = document.querySelector("
                                   "'.lecture-serve-banner'); return b && !b.hidden"
                                   " && b.checkVisibility(); }", timeout=10_000)
            kept = page.evaluate("""() => {
              const clip = document.querySelector('section[data-role="clip"]');
              const at = Reveal.getIndices(clip);
              Reveal.slide(at.h, at.v);
              for (const slide of document.querySelectorAll('.reveal .slides section')) {
                if (slide !== clip && !slide.contains(clip)) slide.remove();
              }
              const video = clip.querySelector('video');
              return [clip.checkVisibility(), video.checkVisibility(),
                      video.getAttribute('aria-labelledby'),
                      clip.querySelectorAll('a[href*="transcript.html#"]').length,
                      document.querySelector('.lecture-serve-banner').textContent];
            }""")
            found = audit(page)
    finally:
        page.close()
    assert still[:3] == ["none", "none", False]
    assert set(still[3].split(", ")) == {"0s"} and still[4] == "none"
    record_property("axe", json.dumps(found))
    assert kept[:2] == [True, True] and kept[2] and kept[3] == 1 and BANNER in kept[4]
    assert found["rules"] >= 15
    assert found["violations"] == []


def test_the_storyboard_and_the_transcript_pass_axe(browser: Browser, lesson: Path) -> None:
    page = browser.new_page()
    found = {}
    try:
        for name in ("storyboard.html", "lecture/transcript.html"):
            page.goto((lesson / name).as_uri())
            found[name] = audit(page)
    finally:
        page.close()
    for result in found.values():
        assert result["rules"] >= 10
        assert result["violations"] == []


# ------------------------------------------------------------------ what axe cannot see


def _pictures(blocks: tuple[Any, ...]) -> Iterator[Picture]:
    for block in blocks:
        if isinstance(block, Picture):
            yield block
        elif isinstance(block, Columns):
            for column in block.columns:
                yield from _pictures(column)
        elif isinstance(block, Switch):
            for panel in block.panels:
                yield from _pictures(panel.blocks)


def test_every_picture_has_a_title_and_a_description_with_its_numbers(lesson: Path) -> None:
    """Each ``<svg>`` is named by its ``<title>`` and described by its ``<desc>`` (ids
    unique in the deck); each number a description holds is a bound figure with its key's
    display text; an arc picture reads each head's weights, strongest first."""
    ws = load_worksheet(DEFAULT_WORKSHEET)
    values = compute_values(ws, load_experiment(BUNDLED_EXPERIMENT, ws))  # as the lesson's
    html = (lesson / "slides" / "index.html").read_text(encoding="utf-8")
    svgs = re.findall(r"<svg class=\"picture\"[^>]*>\s*<title id=\"([^\"]+)\">[^<]+</title>"
                      r"\s*<desc id=\"([^\"]+)\">(.*?)</desc>", html, re.S)
    assert len(svgs) == html.count('<svg class="picture"') > 60
    every_id = Counter(re.findall(r' id="([^"]+)"', html))
    assert all(every_id[i] == 1 for pair in svgs for i in pair[:2])
    for title, desc, _ in svgs:
        svg = re.search(r"<svg [^>]*aria-labelledby=\"" + re.escape(title)
                        + r"\" aria-describedby=\"" + re.escape(desc) + '"', html)
        assert svg, title
    described = 0
    for _, _, text in svgs:
        figures = re.findall(r'<span data-key="([^"]+)">([^<]*)</span>', text)
        for key, shown in figures:
            assert shown == values.text(key), key
        described += len(figures)
        assert not re.search(r"\d", unescape(re.sub(r"<span data-key=[^>]*>[^<]*</span>", "",
                                                     text)))
    assert described > 500
    # the example: a head's weights over the tokens, strongest first
    deck = deck_context(ws, values)
    slide = next(s for s in deck.slides if s.id == "one-two-heads-one-head")
    picture = next(_pictures(slide.blocks))
    numbers = [g for g in picture.desc if g.kind == "num"]
    weights = [float(values.value(f"{ws.walkthrough}.h1.weights[{j}]"))
               for j in range(ws.length)]
    assert [n.key for n in numbers] == [
        f"{ws.walkthrough}.h1.weights[{j}]"
        for j in sorted(range(ws.length), key=lambda j: -weights[j])]
    words = "".join(g.text for g in picture.desc)
    top = max(range(ws.length), key=lambda j: weights[j])
    assert f"{ws.sentences[ws.walkthrough][top]} {values.text(numbers[0].key)}," in words


def test_a_grid_reads_row_by_row_and_bars_each_after_its_name(lesson: Path) -> None:
    """A heat map's description reads as a table, each receiver's row with its weight on
    each source it may read, head by head; a bar chart names each bar before its number."""
    ws = load_worksheet(DEFAULT_WORKSHEET)
    deck = deck_context(ws, compute_values(ws, load_experiment(BUNDLED_EXPERIMENT, ws)))
    slide = next(s for s in deck.slides if s.id == "grids-heads")
    picture = next(_pictures(slide.blocks))
    sentence, n = ws.walkthrough, ws.length
    assert [g.key for g in picture.desc if g.kind == "num"] == [
        f"{sentence}.h{h}.A[{i}][{j}]" for h in range(1, ws.n_heads + 1)
        for i in range(n) for j in range(i + 1)]
    words = "".join(g.text for g in picture.desc)
    tokens = ws.sentences[sentence]
    for h in range(1, ws.n_heads + 1):
        assert f"The {ws.lesson.head_names[h - 1]} head's weights, row by row" in words
    assert f"row {tokens[1]}: {tokens[0]} " in words
    slide = next(s for s in deck.slides if s.id == "grids-numbers")
    bars = next(p for p in _pictures(slide.blocks) if "Its bars" in "".join(
        g.text for g in p.desc))
    glyphs = bars.desc
    numbers = [k for k, g in enumerate(glyphs) if g.kind == "num"]
    assert len(numbers) == n
    for j, at in enumerate(numbers):  # each number right after its source's name
        assert glyphs[at].key.endswith(f"[{j}]") and glyphs[at - 2].text == tokens[j]


def test_lecture_check_fails_on_a_tampered_number_in_a_description(lesson: Path,
                                                                   tmp_path: Path) -> None:
    shutil.copytree(lesson / "slides", tmp_path / "slides",
                    ignore=shutil.ignore_patterns("video", "*.wasm", "*.onnx", "lib"))
    ws = load_worksheet(DEFAULT_WORKSHEET)
    experiment = load_experiment(BUNDLED_EXPERIMENT, ws)
    (tmp_path / "build.json").write_text(json.dumps(
        {"worksheet": {"path": str(DEFAULT_WORKSHEET)}, "scenes": [],
         "experiment": {"path": str(experiment.path), "sha256": experiment.sha256}}),
        encoding="utf-8")
    index = tmp_path / "slides" / "index.html"
    html = index.read_text(encoding="utf-8")
    desc = re.search(r'<desc id="[^"]+">.*?<span data-key="([^"]+)">(\d\.(\d+))</span>', html,
                     re.S)
    assert desc
    key, shown = desc[1], desc[2]
    spoiled = shown[:-1] + str((int(shown[-1]) + 1) % 10)
    html = html[:desc.start(2)] + spoiled + html[desc.end(2):]
    index.write_text(html, encoding="utf-8")
    report = check_build(tmp_path)
    assert [(m.key, m.shown, m.expected) for m in report.mismatches] == [(key, spoiled, shown)]
    assert not report.ok


def test_each_clip_is_named_by_its_title_and_links_its_part_of_the_transcript(
        lesson: Path) -> None:
    html = (lesson / "slides" / "index.html").read_text(encoding="utf-8")
    transcript = (lesson / "lecture" / "transcript.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="([^"]+)"', transcript))
    clips = re.findall(r'<section id="([^"]+)"[^>]*>(?:(?!</section>).)*?<video [^>]*'
                       r'src="video/([^"]+)\.mp4"[^>]*aria-labelledby="([^"]+)"'
                       r'(?:(?!</section>).)*?<a href="\.\./lecture/transcript\.html#([^"]+)"',
                       html, re.S)
    assert len(clips) == html.count("<video ") > 15
    for slide, stem, label, anchor in clips:
        assert label == f"{slide}-heading" and f'<h2 id="{label}">' in html
        assert anchor in anchors and anchor.startswith(stem)


# ------------------------------------------------------------------ keyboard and motion


def test_every_text_a_picture_draws_has_the_contrast_of_body_text(lesson: Path) -> None:
    """Axe leaves SVG text unjudged: each label of every picture of the lesson's deck
    (and, in test_slides_hall.py, of the three-head deck) has 4.5:1 against what it is
    drawn on, from the palette's own colours; a paler grey would be caught."""
    html = (lesson / "slides" / "index.html").read_text(encoding="utf-8")
    assert faint_text(html) == []
    assert html.count('class="ink-muted') > 100 and html.count('class="fill-masked') > 20
    css = {name: (STATIC / name).read_text(encoding="utf-8") for name in PALETTE_FILES}
    colours, _ = palette(css)
    paler = css["pictures.css"].replace(colours["--muted"], "#8a919c")
    assert {ink for _, ink, _ in faint_text(html, {**css, "pictures.css": paler})} == {
        "ink-muted"}
