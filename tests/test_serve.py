"""`lecture serve` as an author uses it: a real server process, Debian's Chromium on the
served deck, and the worksheet saved from the test.

An edited number reaches its ``data-key`` element on the open page within the issue's two
seconds, on the same slide with the same choices; a save that cannot be used shows its
error over the last good deck; requests outside the build folder are refused; saves in
quick succession make one rebuild; a scene the edit touched re-renders in the background
and its clip swaps in; a change to the project's code restarts the server on its port;
Ctrl-C leaves a build that `lecture check` accepts. Expected figures come from the
independent numpy recomputation (:mod:`tests.reference`), or are written out here for the
hand-chosen entries the test saves.
"""

from __future__ import annotations

import copy
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from render.scenes import clip_tags
from tests import reference
from worksheet import DEFAULT_WORKSHEET, MINUS, load_worksheet

LECTURE = str(Path(sys.executable).with_name("lecture"))
"""The issue's target: from the save to the updated page, for a deck-only change."""
ENTRY_KEY = "params.W_O[2][0]"
DELTA_KEY = "river.delta[9][0]"


@dataclass
class Server:
    """A running ``lecture serve``: its process, address and what it printed."""

    process: subprocess.Popen[str]
    url: str
    out: Path
    worksheet: Path
    lines: list[str] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return self.url.removesuffix("slides/")

    def state(self) -> dict[str, Any]:
        host, port = self.origin.removeprefix("http://").rstrip("/").rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            connection.request("GET", "/__lecture__/state")
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()

    def save(self, doc: dict[str, Any] | str) -> float:
        """Write the worksheet (a document, or raw text); return when it was written."""
        text = doc if isinstance(doc, str) else json.dumps(doc)
        self.worksheet.write_text(text, encoding="utf-8")
        return time.perf_counter()

    def said(self, pattern: str) -> list[str]:
        return [line for line in list(self.lines) if re.search(pattern, line)]

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=60)


def _wait(predicate: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        found = predicate()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@contextmanager
def serving(out: Path, worksheet: Path, *args: str, command: list[str] | None = None,
            env: dict[str, str] | None = None, cwd: Path | None = None) -> Iterator[Server]:
    """Start ``lecture serve`` on any free port; stop it with Ctrl-C afterwards."""
    process = subprocess.Popen([*(command or [LECTURE]), "serve", "--out", str(out),
                                "--worksheet", str(worksheet), "--port", "0", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, bufsize=1, env=env, cwd=cwd,
                               start_new_session=True)  # its processes: its session's
    lines: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        found = _wait(lambda: next((m[1] for line in list(lines)
                                    if (m := re.search(r"serving (http://\S+)", line))), None),
                      60, "the server to start")
        server = Server(process, found, out, worksheet, lines)
        _wait(lambda: server.said(r"deck rebuilt|every clip"), 120, "the first deck")
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        reader.join(timeout=10)


def shown(page: Page, key: str) -> list[str] | None:
    """The texts of the visible elements bound to ``key``; ``None`` while reloading."""
    try:
        return page.evaluate("""(key) => [...document.querySelectorAll(`[data-key="${key}"]`)]
            .filter(e => e.checkVisibility() && !e.closest('aside.notes'))
            .map(e => e.textContent)""", key)
    except PlaywrightError:
        return None


def fixed3(x: float) -> str:
    return f"{x:.3f}".replace("-", MINUS)


def delta_text(doc: dict[str, Any], folder: Path) -> str:
    """The receiver's Δe in the first coordinate, recomputed with numpy."""
    path = folder / "filled.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    filled = load_worksheet(path).document
    return fixed3(reference.sentence(filled, "river")["delta"][-1][0])


def with_entry(doc: dict[str, Any], value: Any) -> dict[str, Any]:
    edited = copy.deepcopy(doc)
    edited["headsLesson"]["W_O"][2][0] = value
    return edited


@pytest.fixture(scope="module")
def seed() -> dict[str, Any]:
    return json.loads(DEFAULT_WORKSHEET.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def deck_server(tmp_path_factory: pytest.TempPathFactory,
                seed: dict[str, Any]) -> Iterator[Server]:
    """``lecture serve --no-render`` on a fresh folder: the deck alone."""
    folder = tmp_path_factory.mktemp("serve")
    worksheet = folder / "worksheet.json"
    worksheet.write_text(json.dumps(seed), encoding="utf-8")
    (folder / "secret.txt").write_text("not for the web", encoding="utf-8")
    with serving(folder / "build", worksheet, "--no-render") as server:
        yield server


@pytest.fixture()
def page(browser: Browser, deck_server: Server) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    outside = [url for url in requests if not url.startswith((deck_server.origin, "data:"))]
    assert not outside, f"requests left the server: {outside[:3]}"
    assert not errors


def open_on(page: Page, server: Server, slide: str) -> None:
    page.goto(f"{server.url}#/{slide}")
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)


# ---------------------------------------------------------------------------- the deck


def test_a_saved_number_shows_on_the_open_page_on_its_slide(
        deck_server: Server, page: Page, seed: dict[str, Any], tmp_path: Path) -> None:
    open_on(page, deck_server, "combine-w-o")
    _wait(lambda: set(shown(page, ENTRY_KEY) or []) == {"0.25"}, 30, "the seed's entry")
    assert set(shown(page, DELTA_KEY) or []) == {delta_text(seed, tmp_path)}
    for value, text in ((0.4, "0.4"), (0.625, "0.625"), (0.125, "0.125"), (0.375, "0.375")):
        doc = with_entry(seed, value)
        want = delta_text(doc, tmp_path)
        deck_server.save(doc)
        _wait(lambda t=text, w=want: set(shown(page, ENTRY_KEY) or []) == {t}
              and set(shown(page, DELTA_KEY) or []) == {w}, 30, f"the page to show {text}")
        assert page.evaluate("Reveal.getCurrentSlide().id") == "combine-w-o"
        assert page.evaluate("location.hash") == "#/combine-w-o"
    # How long a save takes to reach the page is measured by bench/serve.py, on a quiet
    # machine; here, beside the rest of the suite on two workers, only that it arrives.
    on_disk = (deck_server.out / "slides" / "index.html").read_text(encoding="utf-8")
    assert f'data-key="{ENTRY_KEY}">0.375<' in on_disk
    assert "__lecture__" not in on_disk  # the live script is added when served, not built in


def test_the_reload_keeps_the_chosen_sentence_and_head(deck_server: Server, page: Page,
                                                        seed: dict[str, Any]) -> None:
    open_on(page, deck_server, "grids-numbers")
    page.click('#grids-numbers .switcher button[data-axis="sentence"][data-value="cheque"]')
    page.click('#grids-numbers .switcher button[data-axis="head"][data-value="2"]')
    deck = deck_server.state()["deck"]
    page.evaluate("window.__before_reload = true")
    deck_server.save(with_entry(seed, 0.125))
    _wait(lambda: deck_server.state()["deck"] != deck, 30, "a new deck")
    _wait(lambda: _evaluate(page, "window.Reveal && Reveal.isReady() && !window.__before_reload"),
          30, "the page to reload")
    # the reloaded page first shows its default state, then restores the chosen one
    restored = _wait(lambda: _evaluate(page, """() => [...document.querySelectorAll(
        '#grids-numbers .switcher button[aria-pressed="true"]')].map(b => b.dataset.value)
        .sort().join()""") == "2,cheque", 30, "the switchers as chosen")
    assert restored
    assert page.evaluate("Reveal.getCurrentSlide().id") == "grids-numbers"
    visible = page.evaluate("""() => [...document.querySelectorAll('#grids-numbers .panel')]
        .filter(p => !p.hidden).map(p => [p.dataset.sentence, p.dataset.head])""")
    assert visible and all(s in (None, "cheque") and h in (None, "2") for s, h in visible)


def _evaluate(page: Page, script: str) -> Any:
    try:
        return page.evaluate(script)
    except PlaywrightError:
        return None


def test_an_unusable_save_shows_its_error_over_the_last_good_deck(
        deck_server: Server, page: Page, seed: dict[str, Any], tmp_path: Path) -> None:
    good = with_entry(seed, 0.5)
    deck_server.save(good)
    _wait(lambda: f'>{delta_text(good, tmp_path)}<' in
          (deck_server.out / "slides" / "index.html").read_text(encoding="utf-8"), 30,
          "the good deck")
    open_on(page, deck_server, "combine-w-o")
    _wait(lambda: set(shown(page, ENTRY_KEY) or []) == {"0.5"}, 30, "the good entry")
    deck, html = deck_server.state()["deck"], (deck_server.out / "slides" / "index.html"
                                                ).read_bytes()
    banner = "() => { const b = document.querySelector('.lecture-serve-banner'); " \
             "return b && !b.hidden && b.textContent; }"
    text = json.dumps(with_entry(seed, 0.75))
    deck_server.save(text[:len(text) // 2])  # saved half-written
    error = _wait(lambda: _evaluate(page, banner), 10, "the banner")
    assert error.startswith(f"{deck_server.worksheet}: line 1 column ")
    assert "invalid JSON" in error
    # the log line may follow the banner by a moment: wait for it, then count it once
    logged = re.escape(f"{deck_server.worksheet}: line 1 column ")
    _wait(lambda: deck_server.said(logged), 10, "the error in the log")
    assert len(deck_server.said(logged)) == 1
    deck_server.save(with_entry(seed, "x"))  # valid JSON, not a worksheet
    error = _wait(lambda: "W_O" in (_evaluate(page, banner) or "") and
                  _evaluate(page, banner), 10, "the second banner")
    assert error.startswith(f"{deck_server.worksheet}: headsLesson.W_O[2][0]: expected a number")
    # as above, the log line may follow the banner by a moment
    assert _wait(lambda: deck_server.said(r"headsLesson\.W_O\[2\]\[0\]: expected a number"),
                 10, "the second error in the log")
    # The last good deck stays: on the page, on disk, and as the server's deck.
    assert set(shown(page, ENTRY_KEY) or []) == {"0.5"}
    assert (deck_server.out / "slides" / "index.html").read_bytes() == html
    assert deck_server.state()["deck"] == deck
    deck_server.save(with_entry(seed, 0.625))
    _wait(lambda: set(shown(page, ENTRY_KEY) or []) == {"0.625"}, 30, "the next good save")
    assert _wait(lambda: _evaluate(page, "document.querySelector('.lecture-serve-banner')"
                                         ".hidden"), 10, "the banner to clear")
    assert deck_server.state()["error"] is None


def test_saves_in_quick_succession_make_one_rebuild(deck_server: Server, page: Page,
                                                    seed: dict[str, Any]) -> None:
    open_on(page, deck_server, "combine-w-o")
    before = deck_server.state()["rebuilds"]
    lines = len(deck_server.said(r"deck rebuilt"))
    for value in (0.11, 0.12, 0.13, 0.14, 0.15):  # an editor's burst, well inside the
        deck_server.save(with_entry(seed, value))  # watcher's settling time on a busy machine
    _wait(lambda: set(shown(page, ENTRY_KEY) or []) == {"0.15"}, 30, "the last save")
    time.sleep(1.5)  # any further rebuild would have started by now
    assert deck_server.state()["rebuilds"] == before + 1
    assert len(deck_server.said(r"deck rebuilt")) == lines + 1


def _get(server: Server, target: str, headers: dict[str, str] | None = None
         ) -> tuple[int, bytes, dict[str, str]]:
    """A raw request: ``target`` goes on the request line as written."""
    host, port = server.origin.removeprefix("http://").rstrip("/").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        connection.close()


def test_only_files_inside_the_build_folder_are_served(deck_server: Server) -> None:
    assert deck_server.url.startswith("http://127.0.0.1:")  # this machine only, by default
    secret = deck_server.out.parent / "secret.txt"
    (deck_server.out / "video").mkdir(exist_ok=True)
    link = deck_server.out / "slides-link.txt"
    link.unlink(missing_ok=True)
    link.symlink_to(secret)
    for target in ("/../secret.txt", "/slides/../../secret.txt", "/%2e%2e/secret.txt",
                   "/slides/%2E%2E/%2E%2E/secret.txt", "/..%2fsecret.txt",
                   "/slides/..%2f..%2fsecret.txt", "/slides-link.txt", "/.build.lock",
                   "/video/", "/records/", "/slides/lib/"):
        status, body, _ = _get(deck_server, target)
        assert status in (403, 404), (target, status)
        assert b"not for the web" not in body and b"<a href" not in body, target
    status, body, _ = _get(deck_server, "/slides/index.html")
    assert status == 200 and b"/__lecture__/reload.js" in body
    status, _, headers = _get(deck_server, "/")
    assert status == 302 and headers["Location"] == "/slides/"
    css = next((deck_server.out / "slides").rglob("*.css"))
    whole = css.read_bytes()
    rel = css.relative_to(deck_server.out).as_posix()
    status, part, headers = _get(deck_server, f"/{rel}", {"Range": "bytes=10-19"})
    assert status == 206 and part == whole[10:20]
    assert headers["Content-Range"] == f"bytes 10-19/{len(whole)}"
    # A page that goes away mid-answer (a reload cuts its requests short) is no error.
    host, port = deck_server.origin.removeprefix("http://").rstrip("/").rsplit(":", 1)
    for _ in range(3):
        with socket.create_connection((host, int(port))) as connection:
            connection.sendall(b"GET /slides/index.html HTTP/1.1\r\nHost: x\r\n\r\n")
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                  struct.pack("ii", 1, 0))  # reset, not a polite close
    time.sleep(0.5)
    assert "Traceback" not in "\n".join(deck_server.lines)
    assert _get(deck_server, "/slides/index.html")[0] == 200


# ---------------------------------------------------------------------------- stopping


def test_ctrl_c_stops_cleanly_and_the_build_checks(tmp_path: Path, seed: dict[str, Any]
                                                   ) -> None:
    worksheet = tmp_path / "worksheet.json"
    worksheet.write_text(json.dumps(seed), encoding="utf-8")
    out = tmp_path / "build"
    with serving(out, worksheet, "--no-render") as server:
        # The serve holds the folder: a build into it is refused at once, saying what to stop.
        started = time.monotonic()
        refused = subprocess.run([LECTURE, "build", "--out", str(out), "--worksheet",
                                  str(worksheet)], capture_output=True, text=True, check=False)
        assert time.monotonic() - started < 30
        assert refused.returncode == 2, refused.stderr
        assert f"another build (pid {server.process.pid}) is writing into {out}" in \
            refused.stderr and "`lecture serve` there: stop it" in refused.stderr
        deck = server.state()["deck"]
        server.save(with_entry(seed, 0.875))
        _wait(lambda: server.state()["deck"] != deck, 30, "the rebuilt deck")
        assert server.stop() == 0
    assert "Traceback" not in "\n".join(server.lines)
    assert server.said(r"stopped; .* holds a consistent build")
    assert not (out / ".build.lock").exists() and not (out / ".serve").exists()
    assert not list(out.rglob(".*.tmp"))
    check = subprocess.run([LECTURE, "check", "--out", str(out)], capture_output=True,
                           text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert json.loads((out / "build.json").read_text())["worksheet"]["path"] == \
        str(worksheet.resolve())


# ---------------------------------------------------------------------------- clips


@pytest.fixture(scope="module")
def one_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A silent build of the prediction scene alone (it shows what W_O updates), at the
    draft quality (what is served does not depend on it)."""
    out = tmp_path_factory.mktemp("one-clip")
    built = subprocess.run([LECTURE, "build", "PredictionMLP", "--narration", "none",
                            "--quality", "draft", "--out", str(out)], capture_output=True,
                           text=True, check=False, stdin=subprocess.DEVNULL)
    assert built.returncode == 0, built.stderr
    return out


def _clip(out: Path) -> Path:
    return next((out / "video").glob("*-PredictionMLP.mp4"))


def test_a_scene_the_edit_touched_rerenders_and_its_clip_swaps_in(
        one_clip: Path, tmp_path: Path, browser: Browser, seed: dict[str, Any]) -> None:
    out = tmp_path / "build"
    shutil.copytree(one_clip, out)
    worksheet = tmp_path / "worksheet.json"
    worksheet.write_text(json.dumps(seed), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    label = """() => { const l = document.querySelector('#prediction-clip .lecture-serve-redoing');
        return l && l.checkVisibility() && l.textContent; }"""
    digest = "document.querySelector('#prediction-clip video').dataset.sha256"
    with serving(out, worksheet, "PredictionMLP", "--narration", "none", "--quality",
                 "draft") as server:
        assert server.state()["clips"] == []  # the build's clip holds for this worksheet
        open_on(page, server, "prediction-clip")
        before = page.evaluate(digest)
        server.save(with_entry(seed, 0.4))
        said = _wait(lambda: _evaluate(page, label), 20, "the clip's mark")
        assert said.startswith("Being redone")
        assert [c["scene"] for c in server.state()["clips"]] == ["PredictionMLP"]
        _wait(lambda: [c["state"] for c in server.state()["clips"]] == ["rendering"], 20,
              "the render to start")
        _wait(lambda: _manim_running("PredictionMLP", server), 30, "its Manim")
        _wait(lambda: "1 clip being redone: 1 rendering" in
              (_evaluate(page, "document.querySelector('.lecture-serve-panel').textContent")
               or ""), 10, "the panel to say so")
        _wait(lambda: not server.state()["clips"], 180, "the render")
        after = _wait(lambda: (d := _evaluate(page, digest)) != before and d, 20, "the swap")
        assert not _evaluate(page, label)
        record = json.loads((out / "records" / "PredictionMLP.json").read_text())
        clip = _clip(out)
        assert record["outputs"][f"video/{clip.name}"] == after
        assert clip_tags(clip)["lecture_worksheet"] == \
            hashlib.sha256(worksheet.read_bytes()).hexdigest()
        assert len(server.said(r"clip \d+-PredictionMLP rendered in")) == 1
        # An edit undone while its clip renders: the render stops, the clip stays.
        def rendering() -> bool:
            return [c["state"] for c in server.state()["clips"]] == ["rendering"]

        server.save(with_entry(seed, 0.375))
        _wait(rendering, 30, "the second render")
        server.save(with_entry(seed, 0.4))
        _wait(lambda: not server.state()["clips"], 20, "the undone edit")
        time.sleep(3)
        assert not _manim_running("PredictionMLP", server)
        assert len(server.said(r"clip \d+-PredictionMLP rendered in")) == 1
        assert _clip(out).read_bytes() and record == json.loads(
            (out / "records" / "PredictionMLP.json").read_text())
        # Ctrl-C while the next edit renders: the render stops, the folder stays whole.
        server.save(with_entry(seed, 0.375))
        _wait(rendering, 30, "the third render")
        time.sleep(2)
        started = time.monotonic()
        assert server.stop() == 0
        assert time.monotonic() - started < 30
    page.close()
    assert "Traceback" not in "\n".join(server.lines)
    assert not (out / ".serve").exists() and not (out / ".build.lock").exists()
    assert not _manim_running("PredictionMLP", server)
    check = subprocess.run([LECTURE, "check", "--out", str(out)], capture_output=True,
                           text=True, check=False)
    # The clip is older than the worksheet, and the check says so; every file is the one
    # its record names.
    assert check.returncode == 1
    assert re.search(r"stale: scene PredictionMLP is out of date", check.stdout), check.stdout
    assert "✗" not in check.stdout, check.stdout


def _manim_running(scene: str, server: Server) -> bool:
    """Whether a Manim the server started for ``scene`` still runs (even after the server
    ended): one in the server's session; the other worker's tests render scenes too."""
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            words = (proc / "cmdline").read_bytes().split(b"\0")
            session = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[3])
        except (OSError, IndexError, ValueError):
            continue
        if session == server.process.pid and b"manim" in b" ".join(words) \
                and scene.encode() in words:
            return True
    return False


# ---------------------------------------------------------------------------- code


def test_a_change_to_loaded_code_restarts_the_server_on_its_port(
        code: Path, tmp_path: Path, browser: Browser, seed: dict[str, Any]) -> None:
    worksheet = tmp_path / "worksheet.json"
    worksheet.write_text(json.dumps(seed), encoding="utf-8")
    out = tmp_path / "build"
    command = [sys.executable, "-c", "from render.cli import main; main()"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    deck = code / "outline" / "__init__.py"
    source = deck.read_text(encoding="utf-8")
    title = 'TITLE = "Multi-head attention, step by step"'
    assert title in source
    with serving(out, worksheet, "--no-render", command=command, env=env, cwd=code) as server:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        open_on(page, server, "combine-w-o")
        assert page.title() == "Multi-head attention, step by step"
        rebuilt = len(server.said(r"deck rebuilt"))
        deck.write_text(source.replace(title, title + "\nTITLE = ("), encoding="utf-8")
        error = _wait(lambda: server.state()["error"], 60, "the import error")
        assert "does not import" in error and "SyntaxError" in error
        assert server.process.poll() is None
        # A worksheet saved meanwhile rebuilds with the loaded code; the code's error stays.
        server.save(with_entry(seed, 0.4))
        _wait(lambda: set(shown(page, ENTRY_KEY) or []) == {"0.4"}, 30, "the saved entry")
        banner = _wait(lambda: _evaluate(page, "document.querySelector("
                                               "'.lecture-serve-banner').textContent"), 10,
                       "the banner after the reload")
        assert banner.startswith(error) and server.state()["error"] == error
        # The broken code itself rebuilt nothing: the loaded code is as it was.
        _wait(lambda: len(server.said(r"deck rebuilt")) > rebuilt, 10, "the rebuild's line")
        assert len(server.said(r"deck rebuilt")) == rebuilt + 1
        deck.write_text(source.replace(title, 'TITLE = "Multi-head attention, edited"'),
                        encoding="utf-8")
        _wait(lambda: _evaluate(page, "document.title") == "Multi-head attention, edited"
              and _evaluate(page, "window.Reveal && Reveal.isReady()"), 90,
              "the restarted server's deck")
        assert len(server.said(r"serving " + re.escape(server.url))) == 2
        assert server.said(r"project code changed: restarting")
        assert page.evaluate("Reveal.getCurrentSlide().id") == "combine-w-o"
        page.close()
