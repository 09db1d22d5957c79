"""``lecture build``: every scene and then the deck, incremental, parallel and safe.

Stages: gather and validate (worksheet, code fingerprints, cache keys) → render the
scenes whose key changed (one Manim process per scene, ``-j`` at a time) → assemble the
deck → write ``build.json``. Each rendered scene leaves a record in ``records/`` the
moment it is done, so an interrupted build loses only the scenes in flight, and shard
outputs merge by copying ``video/`` and ``records/`` into one folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from render.files import write_json
from render.scenes import RenderError, pick_scenes, render_scene, scene_outputs
from scenes.order import SceneEntry, check_limits, lecture_order
from worksheet import Worksheet, load_worksheet

__all__ = ["BuildLock", "BuildOptions", "BuildResult", "LockError", "SceneOutcome", "build",
           "code_fingerprint", "file_digest", "shard_entries"]

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("worksheet", "scenes", "slides", "render")
CODE_SUFFIXES = {".py", ".j2", ".json", ".css", ".js", ".html"}
SCENE_CODE = ("scenes/kit.py", "scenes/order.py", "render/scenes.py")


class LockError(RuntimeError):
    """Another build is writing into the same folder."""


@dataclass(frozen=True)
class BuildOptions:
    worksheet: Path
    out: Path
    quality: str = "l"
    jobs: int = 2
    shard: tuple[int, int] | None = None
    """``(I, N)``: render only the I-th of N deterministic shares of the scenes."""
    scenes: tuple[str, ...] = ()
    """Only these scenes (all when empty)."""


@dataclass
class SceneOutcome:
    entry: SceneEntry
    status: str  # "rendered", "reused", "failed", "skipped (other shard)"
    reason: str
    seconds: float = 0.0
    error: str = ""


@dataclass
class BuildResult:
    scenes: list[SceneOutcome] = field(default_factory=list)
    slides: str = "not built (shard)"
    slides_key: str | None = None
    seconds: float = 0.0

    @property
    def failed(self) -> list[SceneOutcome]:
        return [s for s in self.scenes if s.status == "failed"]


# --------------------------------------------------------------------------- fingerprints


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_fingerprint(root: Path = ROOT) -> dict[str, str]:
    """sha256 of every source and template file that shapes the outputs, by relative path."""
    files: dict[str, str] = {}
    for folder in CODE_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
                files[path.relative_to(root).as_posix()] = file_digest(path)
    lock = root / "package-lock.json"
    if lock.is_file():
        files["package-lock.json"] = file_digest(lock)
    return files


def tool_versions() -> dict[str, str]:
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return {"manim": version("manim"), "torch": version("torch"),
            "project": version("multihead-lecture")}


def structure(ws: Worksheet) -> dict[str, Any]:
    """What scenes read from the worksheet besides values: words, names and sizes."""
    return {"vocab": ws.vocab, "sentences": dict(ws.sentences), "features": ws.lesson.features,
            "heads": ws.lesson.head_names, "targets": dict(ws.lesson.targets),
            "toy": ws.lesson.toy.sources, "trained": ws.lesson.trained.heads,
            "sizes": [ws.n_heads, ws.d_head, ws.d_model, ws.length, ws.hidden]}


def shard_entries(entries: Sequence[SceneEntry], shard: tuple[int, int] | None
                  ) -> list[SceneEntry]:
    """The I-th of N shares, dealing scenes round-robin in lecture order."""
    if shard is None:
        return list(entries)
    index, count = shard
    return [entry for i, entry in enumerate(entries) if i % count == index - 1]


# --------------------------------------------------------------------------- lock


class BuildLock:
    """``OUT/.build.lock`` holding the builder's pid; a lock left by a dead process is taken."""

    def __init__(self, out: Path) -> None:
        self.path = out / ".build.lock"

    def __enter__(self) -> BuildLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                handle = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self._holder()
                if holder is not None and _alive(holder):
                    raise LockError(f"another build (pid {holder}) is writing into "
                                    f"{self.path.parent}; wait for it to finish") from None
                self.path.unlink(missing_ok=True)  # left by a build that was killed
                continue
            with os.fdopen(handle, "w") as stream:
                stream.write(str(os.getpid()))
            return self
        raise LockError(f"cannot take {self.path}; remove it if no build is running")

    def _holder(self) -> int | None:
        try:
            return int(self.path.read_text().strip())
        except (OSError, ValueError):
            return None

    def __exit__(self, *exc: object) -> None:
        if self._holder() == os.getpid():
            self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------- records


def _remove_leftovers(out: Path) -> None:
    """Staging files of a build that was killed mid-write (never counted as outputs)."""
    for folder in (out, out / "video", out / "records"):
        for path in folder.glob(".*.tmp"):
            path.unlink(missing_ok=True)


def _record_path(out: Path, entry: SceneEntry) -> Path:
    return out / "records" / f"{entry.name}.json"


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _outputs_intact(out: Path, record: Mapping[str, Any]) -> bool:
    for rel, digest in record.get("outputs", {}).items():
        path = out / rel
        if not path.is_file() or file_digest(path) != digest:
            return False
    return bool(record.get("outputs"))


@dataclass(frozen=True)
class _Keys:
    """The parts of one scene's cache key, as digests."""

    sources: str
    settings: str
    structure: str
    values: dict[str, str]

    def key(self) -> str:
        return _digest([self.sources, self.settings, self.structure, self.values])


class _Planner:
    """Decides per scene whether its recorded outputs still hold, and why not."""

    def __init__(self, options: BuildOptions, ws: Worksheet, code: Mapping[str, str],
                 versions: Mapping[str, str], previous: Mapping[str, Any]) -> None:
        self.options, self.ws, self.code = options, ws, code
        self.settings = _digest({"quality": options.quality, "manim": versions["manim"]})
        self.structure = _digest(structure(ws))
        self._values: Any = None
        # The last complete build checked every record against these very values.
        computation = {k: v for k, v in code.items() if k.startswith("worksheet/")}
        last = previous.get("scenes", [])
        self.values_unchanged = (
            previous.get("worksheet", {}).get("sha256") == ws.sha256
            and {k: v for k, v in previous.get("code", {}).items()
                 if k.startswith("worksheet/")} == computation
            and previous.get("shard") is None and bool(last)
            and all(s.get("status") in ("rendered", "reused") for s in last))

    @property
    def values(self) -> Any:
        if self._values is None:
            from worksheet import compute_values

            self._values = compute_values(self.ws)
        return self._values

    def sources(self, entry: SceneEntry) -> str:
        files = [f"scenes/{entry.module}.py", *SCENE_CODE]
        return _digest({name: self.code.get(name, "") for name in files})

    def value_digests(self, reads: Iterable[str]) -> dict[str, str] | None:
        digests = {}
        for key in sorted(reads):
            try:
                digests[key] = _digest(self.values.value(key))[:16]
            except KeyError:
                return None
        return digests

    def keys(self, entry: SceneEntry, reads: Iterable[str]) -> _Keys | None:
        values = self.value_digests(reads)
        if values is None:
            return None
        return _Keys(self.sources(entry), self.settings, self.structure, values)

    def decide(self, entry: SceneEntry) -> tuple[bool, str]:
        """``(reuse, reason)`` for one scene."""
        record = _read_json(_record_path(self.options.out, entry))
        if record is None:
            return False, "new scene"
        old = record.get("parts", {})
        if old.get("sources") != self.sources(entry):
            return False, "scene code changed"
        if old.get("settings") != self.settings:
            return False, "quality or Manim version changed"
        if old.get("structure") != self.structure:
            return False, "worksheet words or sizes changed"
        now = None if self.values_unchanged else self.value_digests(old.get("values", {}))
        if now is None and not self.values_unchanged:
            return False, "a value it showed no longer exists"
        changed = [k for k, digest in (now or {}).items() if old["values"].get(k) != digest]
        if changed:
            more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
            return False, f"values changed: {', '.join(changed[:3])}{more}"
        if not _outputs_intact(self.options.out, record):
            return False, "outputs missing or modified"
        return True, "unchanged"


# --------------------------------------------------------------------------- build


Progress = Callable[[str, SceneEntry, float], None]
"""Hears ``("plan", first entry, number of scenes to render)``, then ``("start", entry, 0)``
and ``("done" | "failed", entry, seconds)`` for each rendered scene."""


def build(options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Run a build. ``progress(event, entry, seconds)`` hears "start"/"done"/"failed".

    Raises
    ------
    LockError
        When another build is running in the same folder.
    WorksheetError, LayoutLimitError
        When the worksheet cannot be used (checked before anything is written).
    """
    started = time.perf_counter()
    ws = load_worksheet(options.worksheet)
    check_limits(ws)
    entries = lecture_order(ws.n_heads)
    code = code_fingerprint()
    versions = tool_versions()
    notify = progress or (lambda *_: None)
    with BuildLock(options.out):
        _remove_leftovers(options.out)
        previous = _read_json(options.out / "build.json") or {}
        result = BuildResult()
        planner = _Planner(options, ws, code, versions, previous)
        mine = shard_entries(pick_scenes(entries, options.scenes), options.shard)
        todo: list[tuple[SceneEntry, str]] = []
        for entry in entries:
            if entry not in mine:
                if options.shard is not None and (not options.scenes
                                                  or entry.name in options.scenes):
                    result.scenes.append(SceneOutcome(entry, "skipped (other shard)", ""))
                continue
            reuse, reason = planner.decide(entry)
            if reuse:
                result.scenes.append(SceneOutcome(entry, "reused", reason))
            else:
                todo.append((entry, reason))
        result.scenes += _render_all(options, planner, entries, todo, notify)
        order = {entry.name: i for i, entry in enumerate(entries)}
        result.scenes.sort(key=lambda s: order[s.entry.name])
        if options.shard is None:
            result.slides, result.slides_key = _assemble_slides(options, planner, previous)
        result.seconds = time.perf_counter() - started
        _write_build_json(options, ws, code, versions, result)
    return result


def _render_all(options: BuildOptions, planner: _Planner, entries: Sequence[SceneEntry],
                todo: Sequence[tuple[SceneEntry, str]], notify: Progress) -> list[SceneOutcome]:
    if not todo:
        return []
    planner.values  # noqa: B018 - compute once, before the workers start
    notify("plan", todo[0][0], float(len(todo)))
    outcomes = []

    def one(entry: SceneEntry, reason: str) -> SceneOutcome:
        notify("start", entry, 0.0)
        began = time.perf_counter()
        targets = scene_outputs(options.out / "video", entries, entry)
        try:
            render_scene(entry, options.worksheet, options.quality, targets)
            _write_record(options, planner, entry, targets)
        except RenderError as error:
            notify("failed", entry, time.perf_counter() - began)
            return SceneOutcome(entry, "failed", reason, time.perf_counter() - began,
                                str(error))
        seconds = time.perf_counter() - began
        notify("done", entry, seconds)
        return SceneOutcome(entry, "rendered", reason, seconds)

    pool = ThreadPoolExecutor(max_workers=max(1, options.jobs))
    try:
        futures = [pool.submit(one, entry, reason) for entry, reason in todo]
        for future in as_completed(futures):
            outcomes.append(future.result())
    finally:  # on Ctrl-C: start nothing new, let scenes in flight end
        pool.shutdown(wait=True, cancel_futures=True)
    return outcomes


def _write_record(options: BuildOptions, planner: _Planner, entry: SceneEntry,
                  targets: Sequence[Path]) -> None:
    manifest = _read_json(targets[2]) or {}
    keys = planner.keys(entry, manifest.get("reads", []))
    if keys is None:
        raise RenderError(f"{entry.name}: its manifest names a value that does not exist")
    record = {
        "scene": entry.name,
        "key": keys.key(),
        "parts": {"sources": keys.sources, "settings": keys.settings,
                  "structure": keys.structure, "values": keys.values},
        "outputs": {path.relative_to(options.out).as_posix(): file_digest(path)
                    for path in targets},
    }
    path = _record_path(options.out, entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, record)


def _assemble_slides(options: BuildOptions, planner: _Planner,
                     previous: Mapping[str, Any]) -> tuple[str, str]:
    """Rebuild the deck unless the worksheet, the slides code and every clip are the same."""
    clips = sorted((p.relative_to(options.out).as_posix(), file_digest(p))
                   for p in (options.out / "video").glob("*") if p.is_file())
    slides_code = {k: v for k, v in planner.code.items() if k.startswith("slides/")}
    key = _digest([planner.ws.sha256, slides_code, planner.code.get("package-lock.json"),
                   clips])
    index = options.out / "slides" / "index.html"
    if previous.get("slides", {}).get("key") == key and index.is_file():
        return "reused", key
    from slides.deck import build_deck

    build_deck(planner.ws, planner.values, options.out)
    return "rebuilt", key


def _write_build_json(options: BuildOptions, ws: Worksheet, code: Mapping[str, str],
                      versions: Mapping[str, str], result: BuildResult) -> None:
    scenes = []
    for outcome in result.scenes:
        record = _read_json(_record_path(options.out, outcome.entry)) or {}
        scenes.append({"name": outcome.entry.name, "status": outcome.status,
                       "reason": outcome.reason, "key": record.get("key"),
                       "outputs": sorted(record.get("outputs", {})),
                       "seconds": round(outcome.seconds, 2), "error": outcome.error})
    document = {
        "worksheet": {"path": str(Path(ws.source).resolve()), "sha256": ws.sha256},
        "versions": dict(versions),
        "quality": options.quality,
        "shard": None if options.shard is None else f"{options.shard[0]}/{options.shard[1]}",
        "code": dict(code),
        "scenes": scenes,
        "slides": {"status": result.slides, "key": result.slides_key},
        "seconds": round(result.seconds, 2),
    }
    write_json(options.out / "build.json", document)
