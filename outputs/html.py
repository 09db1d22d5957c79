"""Reading back the HTML pages a build writes (the deck, the storyboard): a small element
tree made with the standard library's parser, enough to find elements by tag or attribute
and read their text.

Character references are resolved. An end tag closes the innermost open element of its
name and every element opened inside it; an end tag with no such element is ignored, and
so are the end tags of void elements (``<img>``, ``<track>``…), which hold nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Element", "read_html"]

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None]
    line: int
    """The line of its start tag, from one."""
    children: list[Element | str] = field(default_factory=list)

    def iter(self, tag: str | None = None) -> Iterator[Element]:
        """This element and every element inside it, in document order (of ``tag`` only,
        when given)."""
        if tag is None or self.tag == tag:
            yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter(tag)

    @property
    def text(self) -> str:
        """Its text content: the text of everything inside it, in order."""
        return "".join(child if isinstance(child, str) else child.text
                       for child in self.children)


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("", {}, 0)
        self._open = [self.root]

    def _element(self, tag: str, attrs: list[tuple[str, str | None]]) -> Element:
        element = Element(tag, dict(attrs), self.getpos()[0])
        self._open[-1].children.append(element)
        return element

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = self._element(tag, attrs)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)  # <x/>, as in SVG: opened and closed at once

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self._open) - 1, 0, -1):
            if self._open[depth].tag == tag:
                del self._open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self._open[-1].children.append(data)


def read_html(text: str) -> Element:
    """The element tree of an HTML page, under a root element whose tag is empty."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root
