"""The HTTP side of ``lecture serve``: the build folder's files, read-only, and a live channel.

Only files under the build folder are served: a request that names a hidden file, climbs
out with ``..`` (written plainly or percent-encoded) or follows a link out of the folder
is refused, and a folder is served only through its ``index.html``, never listed. The
deck's ``index.html`` is served with a small script added before ``</body>`` (the file
on disk stays as the build wrote it); the script listens on ``/__lecture__/events``, a
server-sent-events stream of the :class:`Hub`'s state, and reloads the page, on the
same slide, when the deck it shows is no longer the one on disk.
"""

from __future__ import annotations

import json
import mimetypes
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote, urlsplit

__all__ = ["LIVE", "DeckServer", "Hub"]

LIVE = "/__lecture__/"
"""Where the live channel and its script live; no build folder holds such a name."""
STATIC = Path(__file__).resolve().parent / "static"
RELOAD_FILES = {"reload.js": "text/javascript; charset=utf-8",
                "reload.css": "text/css; charset=utf-8"}
DECK_PAGE = ("slides", "index.html")
WAITING_PAGE = STATIC / "waiting.html"
"""Shown at the deck's address until the first deck is on disk."""
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".json": "application/json",
         ".svg": "image/svg+xml", ".woff2": "font/woff2", ".woff": "font/woff",
         ".ttf": "font/ttf", ".mp4": "video/mp4", ".vtt": "text/vtt; charset=utf-8",
         ".srt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8",
         ".jpg": "image/jpeg", ".png": "image/png", ".pdf": "application/pdf"}
PING_SECONDS = 10.0
"""A quiet event stream sends a comment this often, so a closed page is noticed."""
_RANGE = re.compile(r"bytes=(\d*)-(\d*)$")


class Hub:
    """What every open page is told, and the way to wait for it to change.

    The state is a JSON object: ``deck`` (the key of the deck on disk), ``error`` (the
    one-line error of the last save, or ``None``), ``clips`` (the clips being redone)
    and ``rebuilds`` (how many saves have been handled). Thread-safe.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._state: dict[str, Any] = {"deck": None, "error": None, "clips": [],
                                       "rebuilds": 0}
        self._version = 0
        self._closed = False

    def update(self, **changes: Any) -> None:
        """Change some fields; pages hear the whole state once, if anything changed."""
        with self._changed:
            if all(self._state.get(name) == value for name, value in changes.items()):
                return
            self._state.update(changes)
            self._version += 1
            self._changed.notify_all()

    def state(self) -> dict[str, Any]:
        with self._changed:
            return json.loads(json.dumps(self._state))

    def close(self) -> None:
        """End every event stream."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def follow(self, ping: float = PING_SECONDS) -> Iterator[str | None]:
        """The state as JSON, at once and after each change; ``None`` when ``ping``
        seconds pass without one. Ends when the hub is closed."""
        seen = -1
        while True:
            with self._changed:
                if not self._closed and self._version == seen:
                    self._changed.wait(ping)
                if self._closed:
                    return
                if self._version == seen:
                    text = None
                else:
                    seen, text = self._version, json.dumps(self._state, ensure_ascii=False)
            yield text


@dataclass(frozen=True)
class _Range:
    start: int
    end: int  # inclusive


def _byte_range(header: str | None, size: int) -> _Range | bool | None:
    """The one range a ``Range`` header asks for; ``None`` for the whole file (no header,
    or one this server does not split, such as several ranges); ``False`` when it cannot
    be satisfied."""
    if not header:
        return None
    match = _RANGE.match(header.strip())
    if not match or not (match[1] or match[2]):
        return None
    if match[1]:
        start = int(match[1])
        end = min(int(match[2]), size - 1) if match[2] else size - 1
    else:  # the last N bytes
        start, end = max(0, size - int(match[2])), size - 1
    if start >= size or start > end:
        return False
    return _Range(start, end)


class DeckServer(ThreadingHTTPServer):
    """Serves ``root`` (the build folder) read-only, and the live channel of ``hub``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], root: Path, hub: Hub) -> None:
        self.root = root.resolve()
        self.hub = hub
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page that goes away mid-answer (it reloaded, or closed) is no error."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in str(host) else host
        return f"http://{shown}:{port}/slides/"


class _Handler(BaseHTTPRequestHandler):
    server: DeckServer
    protocol_version = "HTTP/1.1"
    server_version = "lecture-serve"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal is for what the author needs to know."""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    # ------------------------------------------------------------------ dispatch

    def _answer(self, body: bool) -> None:
        try:
            path = unquote(urlsplit(self.path).path, errors="strict")
        except UnicodeDecodeError:
            self._refuse(HTTPStatus.BAD_REQUEST, "the path is not UTF-8")
            return
        if path.startswith(LIVE):
            self._live(path[len(LIVE):], body)
            return
        if path == "/":
            self._redirect("/slides/")
            return
        parts = [part for part in path.split("/") if part]
        if any(part in (".", "..") or "\\" in part or "\0" in part for part in parts):
            self._refuse(HTTPStatus.FORBIDDEN, "only files inside the build folder are served")
            return
        if any(part.startswith(".") for part in parts):  # locks, staging folders
            self._refuse(HTTPStatus.NOT_FOUND, "not found")
            return
        target = self.server.root.joinpath(*parts)
        try:
            resolved = target.resolve(strict=False)
        except (OSError, RuntimeError):
            self._refuse(HTTPStatus.NOT_FOUND, "not found")
            return
        if not resolved.is_relative_to(self.server.root):
            self._refuse(HTTPStatus.FORBIDDEN, "only files inside the build folder are served")
            return
        if tuple(parts) == DECK_PAGE[:1] and not path.endswith("/"):
            self._redirect("/slides/")
            return
        if tuple(parts) in (DECK_PAGE, DECK_PAGE[:1]):
            self._deck_page(body)
            return
        if resolved.is_dir():
            if not path.endswith("/"):
                self._redirect(path + "/")
            elif (resolved / "index.html").is_file():
                self._file(resolved / "index.html", body)
            else:  # never a listing
                self._refuse(HTTPStatus.NOT_FOUND, "not found")
            return
        self._file(resolved, body)

    # ------------------------------------------------------------------ answers

    def _headers(self, status: HTTPStatus, kind: str, length: int | None,
                 extra: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if length is not None:
            self.send_header("Content-Length", str(length))
        # Files are asked again every time (an ETag makes that cheap); pages never stored.
        self.send_header("Cache-Control", "no-cache" if extra and "ETag" in extra
                         else "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _refuse(self, status: HTTPStatus, why: str) -> None:
        data = f"{status.value} {status.phrase}: {why}\n".encode()
        self._headers(status, "text/plain; charset=utf-8", len(data))
        if self.command != "HEAD":
            self.wfile.write(data)

    def _redirect(self, location: str) -> None:
        self._headers(HTTPStatus.FOUND, "text/plain; charset=utf-8", 0,
                      {"Location": location})

    def _bytes(self, data: bytes, kind: str, body: bool) -> None:
        self._headers(HTTPStatus.OK, kind, len(data))
        if body:
            self.wfile.write(data)

    def _file(self, path: Path, body: bool) -> None:
        try:
            stream: BinaryIO = path.open("rb")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            self._refuse(HTTPStatus.NOT_FOUND, "not found")
            return
        except OSError:
            self._refuse(HTTPStatus.FORBIDDEN, "cannot be read")
            return
        with stream:
            stat = os.fstat(stream.fileno())
            size = stat.st_size
            kind = TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] \
                or "application/octet-stream"
            # A rebuilt deck is new files (the build swaps folders), so new tags.
            tag = f'"{stat.st_ino:x}-{stat.st_mtime_ns:x}-{size:x}"'
            if self.headers.get("If-None-Match") == tag:
                self._headers(HTTPStatus.NOT_MODIFIED, kind, None, {"ETag": tag})
                return
            wanted = _byte_range(self.headers.get("Range"), size)
            if wanted is False:
                self._headers(HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, kind, 0,
                              {"Content-Range": f"bytes */{size}"})
                return
            start, end, status = 0, size - 1, HTTPStatus.OK
            extra = {"Accept-Ranges": "bytes", "ETag": tag}
            if isinstance(wanted, _Range):
                start, end, status = wanted.start, wanted.end, HTTPStatus.PARTIAL_CONTENT
                extra["Content-Range"] = f"bytes {start}-{end}/{size}"
            self._headers(status, kind, end - start + 1, extra)
            if not body:
                return
            stream.seek(start)
            left = end - start + 1
            try:
                while left > 0:
                    block = stream.read(min(left, 1 << 16))
                    if not block:
                        break
                    self.wfile.write(block)
                    left -= len(block)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    def _deck_page(self, body: bool) -> None:
        """The deck with the live script added; the waiting page until there is a deck.

        The deck's key is read before the file: a page that gets a newer file than its key
        says reloads once more, and none keeps an older deck than the one on disk.
        """
        deck = self.server.hub.state()["deck"]
        page = self.server.root.joinpath(*DECK_PAGE)
        try:
            html = page.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            html, deck = WAITING_PAGE.read_text(encoding="utf-8"), None
        snippet = (f'<link rel="stylesheet" href="{LIVE}reload.css">\n'
                   f"<script>window.LECTURE_SERVE = {json.dumps({'deck': deck})};</script>\n"
                   f'<script src="{LIVE}reload.js"></script>\n')
        at = html.rfind("</body>")
        html = html[:at] + snippet + html[at:] if at >= 0 else html + snippet
        self._bytes(html.encode("utf-8"), TYPES[".html"], body)

    def _live(self, name: str, body: bool) -> None:
        if name == "events" and body:
            self._events()
        elif name == "events":
            self._headers(HTTPStatus.OK, "text/event-stream; charset=utf-8", 0)
        elif name == "state":
            self._bytes(json.dumps(self.server.hub.state(), ensure_ascii=False).encode(),
                        TYPES[".json"], body)
        elif name in RELOAD_FILES:
            self._bytes((STATIC / name).read_bytes(), RELOAD_FILES[name], body)
        else:
            self._refuse(HTTPStatus.NOT_FOUND, "not found")

    def _events(self) -> None:
        """Server-sent events: the hub's state at once and after every change."""
        self.close_connection = True
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(b"retry: 500\n\n")
            for text in self.server.hub.follow():
                message = ": ping\n\n" if text is None else f"event: state\ndata: {text}\n\n"
                self.wfile.write(message.encode("utf-8"))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass

