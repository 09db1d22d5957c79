"""``lecture check``: prove every figure in a build equals a fresh recomputation.

It reads, without rendering: every ``data-key`` element of the deck, every figure and
caption in the scenes' figure manifests, and every caption of each ``.srt`` file; it
recomputes all values from the worksheet and compares display texts. A build whose
worksheet or code changed since it was made is reported as stale, by name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from render.build import code_fingerprint
from render.files import OutputError
from worksheet import Values, load_worksheet

__all__ = ["CheckReport", "Mismatch", "check_build", "read_srt"]

NUMBER = re.compile(r"−?\d[\d,]*(?:\.\d+)?(?:e[−-]?\d+)?")
_SLOT = re.compile(r"\{([A-Za-z_]\w*)\}")


@dataclass(frozen=True)
class Mismatch:
    key: str
    shown: str
    expected: str
    where: str


@dataclass
class CheckReport:
    mismatches: list[Mismatch] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.stale


_VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "source", "track", "wbr", "col"})


class _DataKeys(HTMLParser):
    """Collects ``(key, text content)`` of every element carrying ``data-key``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, int]] = []
        self._open: list[tuple[str | None, list[str], int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        key = dict(attrs).get("data-key")
        self._open.append((key, [], self.getpos()[0]))

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._open:
            return
        key, parts, line = self._open.pop()
        text = "".join(parts)
        if key is not None:
            self.found.append((key, text, line))
        if self._open:
            self._open[-1][1].append(text)

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][1].append(data)


def read_srt(path: Path) -> dict[int, str]:
    """Caption text by index from an ``.srt`` file."""
    captions: dict[int, str] = {}
    blocks = re.split(r"\r?\n\r?\n+", path.read_text(encoding="utf-8").strip())
    for block in blocks:
        lines = block.splitlines()
        if len(lines) >= 3 and lines[0].strip().isdigit():
            captions[int(lines[0])] = "\n".join(lines[2:])
    return captions


def _expected(values: Values, key: str) -> str:
    try:
        return values.text(key)
    except KeyError:
        return "(no such value)"


def _check_deck(out: Path, values: Values, report: CheckReport) -> None:
    index = out / "slides" / "index.html"
    if not index.is_file():
        report.counts["deck figures"] = 0
        return
    parser = _DataKeys()
    parser.feed(index.read_text(encoding="utf-8"))
    for key, text, line in parser.found:
        expected = _expected(values, key)
        if text != expected:
            report.mismatches.append(Mismatch(key, text, expected,
                                              f"slides/index.html line {line}"))
    report.counts["deck figures"] = len(parser.found)


def _compare(figures: list[dict[str, str]], values: Values, report: CheckReport, kind: str,
             where: str) -> None:
    """Each recorded ``{key, text}`` against the fresh display text of its key."""
    for figure in figures:
        report.counts[kind] = report.counts.get(kind, 0) + 1
        expected = _expected(values, figure["key"])
        if figure["text"] != expected:
            report.mismatches.append(Mismatch(figure["key"], figure["text"], expected, where))


def _check_manifest(path: Path, values: Values, report: CheckReport) -> None:
    manifest = json.loads(path.read_text(encoding="utf-8"))
    where = path.name
    for section in manifest.get("sections", []):
        _compare(section.get("figures", []), values, report, "screen figures",
                 f"{where} section “{section['name']}”")
    srt_path = path.with_name(path.name.replace(".figures.json", ".srt"))
    srt = read_srt(srt_path) if srt_path.is_file() else {}
    if not srt_path.is_file():
        report.mismatches.append(Mismatch("(captions)", "missing", srt_path.name, where))
    for caption in manifest.get("captions", []):
        slots = caption.get("slots", {})
        fresh = {name: _expected(values, key) for name, key in slots.items()}
        _compare(caption.get("figures", []), values, report, "caption figures",
                 f"{where} caption {caption['index']}")
        expected_text = caption["template"].format(**fresh, **caption.get("words", {}))
        shown_text = srt.get(caption["index"])
        report.counts["srt captions"] = report.counts.get("srt captions", 0) + 1
        if shown_text is not None and shown_text != expected_text:
            _locate(shown_text, expected_text, caption, srt_path.name, report)
        elif shown_text is None and srt:
            report.mismatches.append(Mismatch("(caption)", "missing", expected_text,
                                              f"{srt_path.name} caption {caption['index']}"))


def _locate(shown: str, expected: str, caption: dict[str, Any], where: str,
            report: CheckReport) -> None:
    """Name the key of each number that differs between a shown and an expected caption."""
    slots = caption.get("slots", {})
    order = [slots[name] for name in _SLOT.findall(caption["template"]) if name in slots]
    got, want = NUMBER.findall(shown), NUMBER.findall(expected)
    place = f"{where} caption {caption['index']}"
    if len(got) == len(want) == len(order):
        for key, a, b in zip(order, got, want, strict=True):
            if a != b:
                report.mismatches.append(Mismatch(key, a, b, place))
        if got != want or shown != expected:
            if not any(m.where == place for m in report.mismatches):
                report.mismatches.append(Mismatch("(caption text)", shown, expected, place))
        return
    report.mismatches.append(Mismatch("(caption text)", shown, expected, place))


def _stale(out: Path, build: dict[str, Any], ws_sha: str, ws_path: str,
           report: CheckReport) -> None:
    recorded = build.get("worksheet", {})
    if recorded.get("sha256") != ws_sha:
        report.stale.append(f"worksheet {ws_path} changed since the build "
                            f"(built from {recorded.get('sha256', '?')[:12]}, "
                            f"now {ws_sha[:12]})")
    before, now = build.get("code", {}), code_fingerprint()
    for name in sorted(set(before) | set(now)):
        if before.get(name) != now.get(name):
            change = "added" if name not in before else "removed" if name not in now \
                else "changed"
            report.stale.append(f"{name} {change} since the build")
    for scene in build.get("scenes", []):
        if scene.get("status") == "failed":
            report.stale.append(f"scene {scene['name']} failed in the build")
        for rel in scene.get("outputs", []):
            if not (out / rel).is_file():
                report.stale.append(f"{rel} is missing")


def check_build(out: Path, worksheet: Path | None = None) -> CheckReport:
    """Verify a build folder against a fresh computation.

    Raises
    ------
    OutputError
        When the folder holds no ``build.json``.
    WorksheetError
        When the worksheet cannot be read.
    """
    build_file = out / "build.json"
    try:
        build = json.loads(build_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"{build_file}: not found; run `lecture build --out {out}` "
                          "first") from None
    except (OSError, ValueError) as error:
        raise OutputError(f"{build_file}: unreadable ({error})") from None
    path = worksheet or Path(build.get("worksheet", {}).get("path", ""))
    ws = load_worksheet(path)
    from worksheet import compute_values

    values = compute_values(ws)
    report = CheckReport()
    _stale(out, build, ws.sha256, str(path), report)
    _check_deck(out, values, report)
    manifests = sorted((out / "video").glob("*.figures.json"))
    for manifest in manifests:
        _check_manifest(manifest, values, report)
    report.counts["scenes"] = len(manifests)
    return report
