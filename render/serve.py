"""``lecture serve``: edit the worksheet and watch the lecture follow.

One process serves the build folder over http (:mod:`render.server`), watches the
worksheet and the project's sources (``watchfiles``), and keeps the build folder up to
date through the stages of :class:`render.build.Build`:

- On a save, the deck is rebuilt at once from the clips there are, and every open page
  reloads itself on the slide it showed. Saves in quick succession make one rebuild.
- Scenes whose cache key no longer holds render in the background, ``-j`` at a time,
  each into a staging folder; a finished one is moved in, the deck is rebuilt with it,
  and the pages swap it in. The pages list the clips being redone.
- A worksheet that cannot be used (saved half-edited, or invalid) leaves the last good
  deck in place and shows its one-line error on every page and in the terminal, until
  a save that can be used.
- A change to a project module this process has loaded restarts the process in place,
  on the same port, once the new code imports (until then its error is on every page,
  and the deck is rebuilt only for worksheet saves, with the code loaded); other changes
  (templates, styles, scene modules, which render in their own processes) only rebuild.

The session's controller is the only writer of the build folder, and it writes only
whole stages: after each, ``build.json``, the records and the outputs agree (scenes not
redone yet are recorded as stale), so Ctrl-C leaves a folder that ``lecture check``
reads and ``lecture build`` completes.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
import webbrowser
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from outline import LIMITS, LayoutLimitError, SceneEntry, lecture_order, video_stem
from outputs.files import OutputError
from render.build import (
    CODE_SUFFIXES,
    DECK_RECORD,
    Build,
    BuildLock,
    BuildOptions,
    SceneOutcome,
    remove_leftovers,
)
from render.closure import PACKAGES, ROOT
from render.config import Settings
from render.scenes import pick_scenes, scene_outputs
from render.server import DeckServer, Hub
from worksheet import DEFAULT_WORKSHEET, ExperimentError, WorksheetError

__all__ = ["STAGING", "ServeOptions", "Session", "serve"]

STAGING = ".serve"
"""The folder, inside the build folder, where scenes render before they are moved in."""
SETTLE_MS = 120
"""A save is handled once the watched files have been quiet this long: an editor's
burst of writes, or several saves in quick succession, make one rebuild."""
RESTART_CHECK_SECONDS = 300
RENDER_AFTER_SECONDS = 1.5
"""Renders start this long after a save's deck is out: the pages reload first, without a
scene render starting beside them, and a save soon after renders only once."""


@dataclass(frozen=True)
class ServeOptions:
    build: BuildOptions
    """What to build, and where: the folder that is served."""
    host: str = "127.0.0.1"
    port: int = 8000
    """0 takes any free port."""
    render: bool = True
    """Re-render the scenes whose key changed; without, their clips stay as they are and
    the pages list them as out of date."""
    open_browser: bool = False


@dataclass
class _Job:
    """One scene rendering in the background."""

    entry: SceneEntry
    reason: str
    build: Build
    """The build (worksheet revision and code) it renders for."""
    folder: Path
    started: float = field(default_factory=time.time)
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set when the session stops, or when a later save makes the scene's clip hold
    again (an edit undone): the render stops and moves nothing in."""


class Session:
    """The controller: handles saves and finished renders, one at a time, in order.

    It runs in its own thread (:meth:`run`); watchers and render threads only put events
    on its queue.
    """

    def __init__(self, options: ServeOptions, hub: Hub, say: Callable[[str], None]) -> None:
        self.options = options
        self.hub = hub
        self.say = say
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.cancel = threading.Event()
        self.current: Build | None = None
        self.todo: list[tuple[SceneEntry, str]] = []
        """Scenes whose outputs do not hold for the current build, with why."""
        self.running: dict[str, _Job] = {}
        self.failed: dict[str, str] = {}
        """Scenes that failed for the current build: not tried again until a change."""
        self.unnamed: list[SceneEntry] = []
        """Scenes out of date that are not rendered: others were named."""
        self.restart = False
        self.code_error: str | None = None
        """Why the project's code, as saved, does not import: shown until it does."""
        self.rebuilds = 0
        self.render_after = 0.0
        """No render starts before this ``time.monotonic()``."""
        self.threads: list[threading.Thread] = []

    @property
    def out(self) -> Path:
        return self.options.build.out

    # ------------------------------------------------------------------ events

    def changed(self, paths: Iterable[Path]) -> None:
        """Watched files changed (called from a watcher thread)."""
        self.events.put(("changed", frozenset(paths)))

    def stop(self) -> None:
        """Stop after the current stage; renders in flight are cancelled then."""
        self.cancel.set()
        self.events.put(("stop", None))

    def run(self) -> None:
        """Build once, then handle events until :meth:`stop`, or until a change to loaded
        code asks for a restart (``self.restart``)."""
        self._guarded(self._rebuild, "the first build")
        self._schedule()
        while True:
            batch = [self.events.get()]
            while True:  # everything that arrived meanwhile is handled as one
                try:
                    batch.append(self.events.get_nowait())
                except queue.Empty:
                    break
            stopping = any(kind == "stop" for kind, _ in batch)
            landed = [payload for kind, payload in batch if kind == "rendered"]
            changed = frozenset().union(*(p for kind, p in batch if kind == "changed"))
            for job, outcome in landed:
                self._guarded(lambda j=job, o=outcome: self._land(j, o), "a finished scene")
            if stopping:
                if landed:
                    self._guarded(self._reassemble, "the last deck")
                break
            code = self._loaded_code(changed)
            if code and self._can_restart():
                self.restart = True
                break
            if changed - code:  # the loaded code is as it was: rebuild for the rest only
                self._guarded(self._rebuild, "the rebuild")
            elif landed:
                self._guarded(self._reassemble, "the deck")
            self._schedule()
        self._finish()

    def _guarded(self, step: Callable[[], None], what: str) -> None:
        """Run one stage; a defect in it is shown, and the session goes on."""
        try:
            step()
        except Exception as error:  # a server must outlive a defect in one stage
            traceback.print_exc()
            message = f"lecture serve: {what} failed ({type(error).__name__}: {error}); see " \
                      "the terminal"
            self.hub.update(error=self._errors(message))
            self.say(message)

    # ------------------------------------------------------------------ stages

    def _rebuild(self) -> None:
        """Read the worksheet as saved and rebuild the deck from it; on bad input keep the
        last good deck and show the error."""
        started = time.perf_counter()
        self.rebuilds += 1
        try:
            run = Build(self.options.build)
        except KeyError as error:  # a named scene this worksheet's heads do not have
            self._refuse(str(error).strip("'\""))
            return
        except WorksheetError as error:
            self._refuse(error.one_line())
            return
        except (LayoutLimitError, ExperimentError, OutputError) as error:
            self._refuse(str(error))
            return
        self.current, self.failed = run, {}
        self.render_after = time.monotonic() + RENDER_AFTER_SECONDS
        if self._reassemble():
            self.say(f"deck rebuilt in {time.perf_counter() - started:.2f} s"
                     + self._clips_summary())

    def _refuse(self, message: str) -> None:
        self.hub.update(error=self._errors(message), rebuilds=self.rebuilds)
        self.say(f"{message} (the page keeps the last good deck)" if self.hub.state()["deck"] else
                 f"{message} (the deck is built from the first save that can be used)")

    def _reassemble(self) -> bool:
        """Write the deck, the script, the storyboard and ``build.json`` for the current
        build, with every scene that does not hold recorded as stale; tell the pages."""
        if self.current is None:
            return False
        outcomes, self.todo = self.current.decide()
        self.unnamed = [o.entry for o in outcomes if o.status == "stale"]
        try:
            result = self.current.assemble(outcomes + self.current.kept(self.todo))
        except OutputError as error:  # a clip's captions, the deck's assets, the disk
            self._refuse(str(error))
            return False
        wanted = {entry.name for entry, _ in self.todo}
        for job in self.running.values():
            if job.entry.name not in wanted:  # its clip holds again: no need to finish
                job.cancel.set()
        self.hub.update(deck=result.slides_key, error=self._errors(), rebuilds=self.rebuilds,
                        clips=self._clips())
        return True

    def _schedule(self) -> None:
        """Start renders of out-of-date scenes, ``-j`` at a time, in lecture order, once
        the last save's pages have had their moment."""
        wait = self.render_after - time.monotonic()
        if wait > 0 and self.options.render and self.todo:
            timer = threading.Timer(wait, self.events.put, args=(("tick", None),))
            timer.daemon = True
            timer.start()
        elif self.current is not None and self.options.render and not self.cancel.is_set():
            for entry, reason in self.todo:
                if len(self.running) >= max(1, self.options.build.jobs):
                    break
                if entry.name in self.running or entry.name in self.failed:
                    continue
                job = _Job(entry, reason, self.current, self.out / STAGING / entry.name)
                self.running[entry.name] = job
                thread = threading.Thread(target=self._render, args=(job,), daemon=True,
                                          name=f"render {entry.name}")
                self.threads.append(thread)
                thread.start()
        self.hub.update(clips=self._clips())

    def _render(self, job: _Job) -> None:
        """Render one scene into its staging folder (in a render thread)."""
        shutil.rmtree(job.folder, ignore_errors=True)
        try:
            [outcome] = job.build.render([(job.entry, job.reason)], out=job.folder,
                                         cancel=job.cancel)
        except Exception as error:  # reported like a failed scene
            outcome = SceneOutcome(job.entry, "failed", job.reason, error=str(error))
        self.events.put(("rendered", (job, outcome)))

    def _land(self, job: _Job, outcome: SceneOutcome) -> None:
        """Move a finished scene's outputs and record into the build folder, unless the
        clip there holds for the current worksheet (a render for an edit since undone)."""
        name = job.entry.name
        self.running.pop(name, None)
        current = self.current
        needed = any(entry.name == name for entry, _ in self.todo)
        try:
            if outcome.status == "rendered" and current is not None and needed \
                    and job.build.entries == current.entries:
                (self.out / "video").mkdir(parents=True, exist_ok=True)
                (self.out / "records").mkdir(parents=True, exist_ok=True)
                outputs = scene_outputs(job.folder / "video", job.build.entries, job.entry)
                for source in (*outputs, job.folder / "records" / f"{name}.json"):
                    os.replace(source, self.out / source.relative_to(job.folder))
                self.say(f"clip {video_stem(job.build.entries, name)} rendered in "
                         f"{outcome.seconds:.0f} s")
            elif outcome.status == "failed" and job.build is current \
                    and not job.cancel.is_set() and not self.cancel.is_set():
                self.failed[name] = outcome.error
                self.say(f"clip of {name} failed: {outcome.error}")
        finally:
            shutil.rmtree(job.folder, ignore_errors=True)

    def _finish(self) -> None:
        """Cancel renders in flight, wait for their threads, remove the staging folder."""
        self.cancel.set()
        for job in self.running.values():
            job.cancel.set()
        for thread in self.threads:
            thread.join(timeout=30)
        shutil.rmtree(self.out / STAGING, ignore_errors=True)

    # ------------------------------------------------------------------ code changes

    def _errors(self, message: str | None = None) -> str | None:
        """The one line the pages show: this save's error, and the code's while it does
        not import."""
        return "; and ".join(filter(None, [message, self.code_error])) or None

    def _loaded_code(self, paths: frozenset[Path]) -> frozenset[Path]:
        """Those of ``paths`` that are modules this process has loaded."""
        loaded = {Path(module.__file__).resolve() for module in list(sys.modules.values())
                  if getattr(module, "__file__", None)}
        return frozenset(path for path in paths
                         if path.suffix == ".py" and path.resolve() in loaded)

    def _can_restart(self) -> bool:
        """Whether this process's project modules import as they are now saved; if not,
        the error is shown and the session goes on with the code it has."""
        names = sorted(name for name, module in list(sys.modules.items())
                       if getattr(module, "__file__", None)
                       and Path(module.__file__).resolve().is_relative_to(ROOT)
                       and name.split(".")[0] in PACKAGES)
        check = subprocess.run([sys.executable, "-c", "import " + ", ".join(names)],
                               capture_output=True, text=True, cwd=ROOT, check=False,
                               timeout=RESTART_CHECK_SECONDS, stdin=subprocess.DEVNULL)
        if check.returncode == 0:
            self.say("project code changed: restarting")
            return True
        lines = [line.strip() for line in check.stderr.splitlines() if line.strip()]
        where = next((line for line in reversed(lines) if line.startswith("File ")), "")
        last = lines[-1] if lines else "no output"
        self.code_error = f"the changed code does not import: {last}" \
                          + (f" ({where})" if where else "")
        self.hub.update(error=self._errors())
        self.say(f"{self.code_error}; the page keeps the last good deck until it does")
        return False

    # ------------------------------------------------------------------ telling

    def _clips(self) -> list[dict[str, Any]]:
        """The clips that do not hold, for the pages: stem, scene, title, state. Without
        rendering, a scene that has no clip yet is not listed: the deck has no slide for
        it."""
        if self.current is None:
            return []
        kept = {outcome.entry.name for outcome in self.current.kept(self.todo)}
        clips = []
        for entry, _ in self.todo:
            if not self.options.render and entry.name not in kept:
                continue
            job = self.running.get(entry.name)
            state = "rendering" if job else "failed" if entry.name in self.failed else \
                "queued" if self.options.render else "out of date"
            clips.append({"stem": video_stem(self.current.entries, entry.name),
                          "scene": entry.name, "title": entry.title, "state": state,
                          "started": job.started if job else None,
                          "error": self.failed.get(entry.name)})
        for entry in self.unnamed:
            clips.append({"stem": video_stem(self.current.entries, entry.name),
                          "scene": entry.name, "title": entry.title, "state": "out of date",
                          "started": None, "error": None})
        return sorted(clips, key=lambda clip: clip["stem"])

    def _clips_summary(self) -> str:
        count = len(self._clips())
        if not count:
            return "; every clip is up to date" if self.options.render else ""
        verb = "to redo" if self.options.render else "out of date (--no-render)"
        return f"; {count} clip{'s' if count != 1 else ''} {verb}"


# ---------------------------------------------------------------------------- watching


def _watch(roots: list[Path], wanted: Callable[[Path], bool], session: Session,
           stop: threading.Event, recursive: bool) -> None:
    import watchfiles

    existing = [root for root in roots if root.exists()]
    if not existing:
        return
    for changes in watchfiles.watch(*existing, watch_filter=lambda _, p: wanted(Path(p)),
                                    step=SETTLE_MS, stop_event=stop, recursive=recursive,
                                    raise_interrupt=False):
        session.changed(Path(path) for _, path in changes)


def _watchers(options: ServeOptions, session: Session, stop: threading.Event
              ) -> list[threading.Thread]:
    """One thread for the worksheet (and the experiment), watched in their folders so an
    editor's save by rename is seen, and one for the project's sources."""
    files = {options.build.worksheet.resolve()}
    if options.build.experiment is not None:
        experiment = options.build.experiment.resolve()
        files.add(experiment if experiment.suffix == ".json" else experiment / "experiment.json")
    out = options.build.out.resolve()

    def source(path: Path) -> bool:
        return (path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts
                and not path.is_relative_to(out))

    folders = sorted({file.parent for file in files})
    packages = [ROOT / name for name in PACKAGES]
    return [threading.Thread(target=_watch, daemon=True, name="watch worksheet",
                             args=(folders, lambda p: p in files, session, stop, False)),
            threading.Thread(target=_watch, daemon=True, name="watch sources",
                             args=(packages, source, session, stop, True))]


# ---------------------------------------------------------------------------- serve


def _deck_on_disk(out: Path) -> str | None:
    """The key of the deck an earlier build left in ``out``, if it is whole."""
    try:
        record = json.loads((out / DECK_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    key = record.get("key") if isinstance(record, dict) else None
    return key if isinstance(key, str) and (out / "slides" / "index.html").is_file() else None


def serve(options: ServeOptions, say: Callable[[str], None]) -> int:
    """Serve and rebuild until Ctrl-C (or SIGTERM); return the exit status.

    Raises
    ------
    OutputError
        When the build folder cannot be written or the address cannot be listened on.
    LockError
        When a build is writing into the folder.
    KeyError
        When a named scene is no scene of the lecture.
    """
    out = options.build.out
    pick_scenes(lecture_order(LIMITS["heads"]), options.build.scenes)  # names no scene: stop
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{out}: cannot create the output folder ({error.strerror})") \
            from None
    hub = Hub()
    try:
        server = DeckServer((options.host, options.port), out, hub)
    except OSError as error:
        raise OutputError(f"{options.host}:{options.port}: cannot listen there "
                          f"({error.strerror}); choose another --port or --host") from None
    hub.update(deck=_deck_on_disk(out))  # until the first rebuild, the last build's deck
    session = Session(options, hub, say)
    stopping = threading.Event()
    watch_stop = threading.Event()
    with BuildLock(out):
        remove_leftovers(out)
        shutil.rmtree(out / STAGING, ignore_errors=True)
        web = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                               daemon=True, name="http")
        controller = threading.Thread(target=session.run, name="controller", daemon=True)
        def stop(*_: object) -> None:
            session.cancel.set()  # renders that end now are not reported as failed
            stopping.set()

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            web.start()
            say(f"serving {server.url} from {out} (Ctrl-C stops)")
            if options.host not in ("127.0.0.1", "localhost", "::1"):
                say(f"note: --host {options.host} lets other machines see the deck")
            controller.start()
            for watcher in _watchers(options, session, watch_stop):
                watcher.start()
            if options.open_browser:
                webbrowser.open(server.url)
            while controller.is_alive() and not stopping.wait(0.2):
                pass
            if stopping.is_set():
                say("stopping: finishing the current step")
                for sig in previous:  # a second Ctrl-C ends at once
                    signal.signal(sig, signal.SIG_DFL)
            session.stop()
            controller.join()
        finally:
            watch_stop.set()
            hub.close()
            server.shutdown()
            server.server_close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    if session.restart and not stopping.is_set():
        port = str(server.server_address[1])
        os.execv(sys.executable, [*sys.orig_argv, "--port", port, "--no-open"])
    left = len(session.todo)
    say(f"stopped; {out} holds a consistent build"
        + (f" with {left} scene{'s' if left != 1 else ''} still to render: "
           f"`{_finishing_command(options.build)}` renders {'it' if left == 1 else 'them'}"
           if left else ""))
    return 0


def _finishing_command(build: BuildOptions) -> str:
    """The ``lecture build`` command that renders what a session left, in its folder and
    with its settings: its scenes, ``--out``, and each setting that is not the default
    (the worksheet, the quality, the voice, the full walkthroughs, the experiment)."""
    words = ["lecture", "build", *build.scenes, "--out", str(build.out)]
    if build.worksheet.resolve() != DEFAULT_WORKSHEET.resolve():
        words += ["--worksheet", str(build.worksheet)]
    if build.quality != BuildOptions.quality:
        words += ["--quality", build.quality]
    if build.narration.engine != Settings.narration:
        words += ["--narration", build.narration.engine]
    if build.narration.model is not None:
        words += ["--voice", str(build.narration.model)]
    if build.scene_options.get("full_heads"):
        words += ["--full-heads"]
    if build.experiment is not None:
        words += ["--experiment", str(build.experiment)]
    return shlex.join(words)
