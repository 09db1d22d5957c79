"""Every relative link and image in the README and the pages of ``docs/`` leads somewhere:
its file exists, and its ``#anchor`` is a heading of that file, so a page moved or renamed,
or a section retitled, fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# ``[text](target)`` and ``![alt](target)``; the text may wrap over lines.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(markdown: str) -> str:
    """``markdown`` without fenced code blocks and code spans, where brackets are code."""
    return CODE_SPAN.sub("", FENCE.sub("", markdown))


def link_targets(markdown: str) -> list[str]:
    """The targets of every Markdown link and image, in order, as written."""
    return LINK.findall(prose(markdown))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without Markdown, lower case, punctuation
    dropped (letters, digits, ``_`` and ``-`` stay), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """Every heading anchor of a page; a repeated heading gets ``-1``, ``-2`` as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", markdown)):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file, or whose anchor in it, does not exist."""
    broken = []
    for target in link_targets(page.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{page.name}: {target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(
                file.read_text(encoding="utf-8")):
            broken.append(f"{page.name}: {target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_and_image_leads_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve()
              for target in link_targets((ROOT / "README.md").read_text(encoding="utf-8"))}
    assert [page.name for page in PAGES[1:] if page.resolve() not in linked] == []


def test_every_storyboard_frame_kept_in_the_docs_is_shown() -> None:
    """Every picture kept in ``docs/storyboard/`` is shown on some page."""
    shown = {(page.parent / target).resolve() for page in PAGES
             for target in link_targets(page.read_text(encoding="utf-8"))}
    kept = sorted((ROOT / "docs" / "storyboard").glob("*.jpg"))
    assert kept and [image.name for image in kept if image.resolve() not in shown] == []


def test_slugs_follow_github() -> None:
    assert slug("Checking a build: the proof chain") == "checking-a-build-the-proof-chain"
    assert slug("What `make lecture` writes") == "what-make-lecture-writes"
    assert slug("Measured (this machine: 2 cores, Python 3.11)") == (
        "measured-this-machine-2-cores-python-311")
    assert slug("Interruptions, failures, shards") == "interruptions-failures-shards"
    assert anchors("# Notes\n## Notes\n```\n# not a heading\n```\n") == {"notes", "notes-1"}


def test_code_is_not_read_as_links() -> None:
    page = ("`lecture build [SCENE…](x)`\n```\n[a](b.md)\n```\n"
            "[c](d.md#e) ![f](g.jpg)\n[wrapped\ntext](h.md)")
    assert link_targets(page) == ["d.md#e", "g.jpg", "h.md"]


def test_a_renamed_page_and_a_retitled_section_are_caught(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "serve.md").write_text("# Serving\n## Safe by default\n",
                                                encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("[a](docs/serve.md#safe-by-default) [b](docs/build.md) "
                      "[c](docs/serve.md#safety) [d](https://example.org/x.md) [e](#top)\n"
                      "# Top\n", encoding="utf-8")
    assert broken_links(readme) == [
        "README.md: docs/build.md: no such file",
        "README.md: docs/serve.md#safety: no heading with that anchor",
    ]
