"""``lecture build``: every scene and then the deck, incremental, parallel and safe.

Stages: gather and validate (worksheet, code fingerprints, cache keys) → render the
scenes whose key changed (one Manim process per scene, ``-j`` at a time) → assemble the
script, the storyboard, the clips' WebVTT, the joined lecture (when every clip is there
and current; :mod:`render.export`) and the deck → write ``build.json``. Each rendered
scene leaves a record in ``records/`` the moment it is done, so an interrupted build
loses only the scenes in flight, and shard outputs merge by copying ``video/`` and
``records/`` into one folder.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from narration.voices import Narration
from outline import TITLE, SceneEntry, check_limits, lecture_order, video_stem
from outputs.files import file_digest, remembered_digest, write_json, write_text
from render.closure import PACKAGES, ROOT, import_closure
from render.scenes import RenderError, pick_scenes, render_scene, scene_outputs
from render.script import SCRIPT, SCRIPT_RECORD, script_text
from worksheet import Style, hand_values
from worksheet.lock import FolderLock

if TYPE_CHECKING:
    from worksheet import Worksheet
    from worksheet.results import Experiment

__all__ = ["DECK_RECORD", "EXPERIMENT_OPTION", "KEPT", "Build", "BuildLock", "BuildOptions",
           "BuildResult", "LockError", "SceneOutcome", "build", "code_fingerprint",
           "deck_sources", "file_digest", "plan", "remove_leftovers", "scene_sources",
           "shard_entries", "unchanged"]

CODE_SUFFIXES = {".py", ".j2", ".json", ".css", ".js", ".html"}
SCENE_DRIVER = "render/scenes.py"
"""Renders every scene and tags its clip: part of every scene's dependencies."""
DECK_MODULE = "slides/deck.py"
DECK_RECORD = "records/slides.json"
KEPT = ("rendered", "reused", "stale")
"""Scene statuses whose outputs are in the folder and must match their records."""
EXPERIMENT_OPTION = "experiment"
"""The option a scene that shows the experiment's results records: the sha256 of the
``experiment.json`` it rendered with, or ``None`` (it enters that scene's key alone)."""


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
    narration: Narration = field(default_factory=Narration)
    """Who speaks the captions."""
    scene_options: Mapping[str, bool] = field(default_factory=dict)
    """Settings scenes read themselves (``full_heads``, see
    :data:`render.config.SCENE_OPTIONS`); each enters the key of the scenes that read it."""
    experiment: Path | None = None
    """The folder (or ``experiment.json``) of ``lecture experiment`` whose results join the
    values; checked against the worksheet before anything is written."""


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
    storyboard: str = "not built (shard)"
    storyboard_failed: bool = False
    lecture: str = "not built (shard)"
    """What became of ``lecture/``, the joined lecture (see :mod:`render.export`)."""
    lecture_failed: bool = False
    seconds: float = 0.0

    @property
    def failed(self) -> list[SceneOutcome]:
        return [s for s in self.scenes if s.status == "failed"]


# --------------------------------------------------------------------------- fingerprints


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def code_fingerprint(root: Path = ROOT) -> dict[str, str]:
    """sha256 of every source and template file that shapes the outputs, by relative path."""
    files: dict[str, str] = {}
    for folder in PACKAGES:
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


def scene_sources(entry: SceneEntry, root: Path = ROOT) -> list[str]:
    """The files a scene's clip depends on: the import closure of its module and of the
    render driver."""
    return import_closure([root / "scenes" / f"{entry.module}.py", root / SCENE_DRIVER], root)


def deck_sources(root: Path = ROOT) -> list[str]:
    """The files the deck depends on: the deck builder's import closure, the slides'
    templates and static files, and Reveal.js and KaTeX: in a checkout ``package-lock.json``,
    which pins ``node_modules/``; installed, every file of the copy in ``slides/vendor/``
    (each library's ``package.json`` among them), which the slides' files already cover."""
    data = [path.relative_to(root).as_posix() for path in sorted((root / "slides").rglob("*"))
            if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts]
    lock = ["package-lock.json"] if (root / "package-lock.json").is_file() else []
    return sorted({*import_closure([root / DECK_MODULE], root), *data, *lock})


def shard_entries(entries: Sequence[SceneEntry], shard: tuple[int, int] | None
                  ) -> list[SceneEntry]:
    """The I-th of N shares, dealing scenes round-robin in lecture order."""
    if shard is None:
        return list(entries)
    index, count = shard
    return [entry for i, entry in enumerate(entries) if i % count == index - 1]


# --------------------------------------------------------------------------- lock


class BuildLock(FolderLock):
    """``OUT/.build.lock``, locked while a build (or a serve) writes into ``OUT``."""

    def __init__(self, out: Path) -> None:
        super().__init__(out / ".build.lock")

    def busy(self, holder: int | None) -> Exception:
        by = "" if holder is None else f" (pid {holder})"
        return LockError(f"another build{by} is writing into {self.path.parent}; "
                         "wait for it to finish (a `lecture serve` there: stop it)")

    def stuck(self, error: OSError) -> Exception:
        return LockError(f"cannot lock {self.path} ({error.strerror or error}); "
                         "expected a folder this user can write")


# --------------------------------------------------------------------------- records


def remove_leftovers(out: Path) -> None:
    """Remove the staging files of a build that was killed mid-write (never counted as
    outputs)."""
    for folder in (out, out / "video", out / "records", out / "storyboard", out / "lecture"):
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
        if not path.is_file() or remembered_digest(path) != digest:
            return False
    return bool(record.get("outputs"))


@dataclass(frozen=True)
class _Keys:
    """The parts of one scene's cache key."""

    sources: dict[str, str]
    """sha256 of each file of the scene's import closure."""
    settings: str
    facts: dict[str, str]
    """Digest of each worksheet fact the scene read (words, names, order, sizes)."""
    values: dict[str, str]
    """Digest of each value the scene read: number, display text and style."""
    options: dict[str, Any] = field(default_factory=dict)
    """Each scene option the scene read (such as ``full_heads``), with the value it saw."""

    def key(self) -> str:
        parts = [self.sources, self.settings, self.facts, self.values]
        # Only scenes that read an option carry it: toggling it re-renders them alone.
        return _digest([*parts, self.options] if self.options else parts)

    def parts(self) -> dict[str, Any]:
        parts = {"sources": self.sources, "settings": self.settings, "facts": self.facts,
                 "values": self.values}
        return {**parts, "options": self.options} if self.options else parts


def _changed(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    return sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))


def _some(names: Sequence[str]) -> str:
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return ", ".join(names[:3]) + more


def _settings(options: BuildOptions, versions: Mapping[str, str]) -> str:
    """What every clip of a build is made with besides its sources and values."""
    return _digest({"quality": options.quality, "manim": versions["manim"],
                    "voice": options.narration.voice().id})


def _option(options: BuildOptions, name: str, experiment: str | None) -> Any:
    """A scene option's value in a build (its default when not given); ``experiment`` is
    the sha256 of the build's ``experiment.json``, or ``None``."""
    from render.config import Settings

    if name == EXPERIMENT_OPTION:
        return experiment
    return options.scene_options.get(name, getattr(Settings(), name, None))


class _Planner:
    """Decides per scene whether its recorded outputs still hold, and why not."""

    def __init__(self, options: BuildOptions, ws: Worksheet, code: Mapping[str, str],
                 versions: Mapping[str, str], previous: Mapping[str, Any],
                 experiment: Experiment | None = None, values: Any = None) -> None:
        self.options, self.ws, self.code = options, ws, code
        self.experiment = experiment
        self.settings = _settings(options, versions)
        self._values: Any = values
        self._sources: dict[str, dict[str, str]] = {}
        # The last complete build checked every record against these very values and facts.
        computation = {k: v for k, v in code.items() if k.startswith("worksheet/")}
        last = previous.get("scenes", [])
        self.worksheet_unchanged = (
            previous.get("worksheet", {}).get("sha256") == ws.sha256
            and {k: v for k, v in previous.get("code", {}).items()
                 if k.startswith("worksheet/")} == computation
            and (previous.get("experiment") or {}).get("sha256") == (
                experiment.sha256 if experiment else None)
            and previous.get("shard") is None and bool(last)
            and all(s.get("status") in ("rendered", "reused") for s in last))

    @property
    def values(self) -> Any:
        if self._values is None:
            from worksheet import compute_values

            self._values = compute_values(self.ws, self.experiment)
        return self._values

    def sources(self, entry: SceneEntry) -> dict[str, str]:
        if entry.module not in self._sources:  # scenes of one module share it
            self._sources[entry.module] = {name: self.code.get(name) or file_digest(ROOT / name)
                                           for name in scene_sources(entry)}
        return self._sources[entry.module]

    def value_digests(self, reads: Iterable[str]) -> dict[str, str] | None:
        digests = {}
        for key in sorted(reads):
            try:
                figure = self.values[key]
            except KeyError:
                return None
            # Rounding noise shows only its bound: its number changes nothing on screen.
            number = None if figure.style is Style.BELOW else figure.tolist()
            digests[key] = _digest({"value": number, "text": figure.text,
                                    "style": figure.style.value})[:16]
        return digests

    def fact_digests(self, facts: Iterable[str]) -> dict[str, str] | None:
        digests = {}
        for name in sorted(facts):
            try:
                digests[name] = _digest(self.ws.fact(name))[:16]
            except KeyError:
                return None
        return digests

    def keys(self, entry: SceneEntry, manifest: Mapping[str, Any]) -> _Keys | None:
        """The scene's key from what its manifest says it read; None when a value or fact
        it read no longer exists."""
        values = self.value_digests(manifest.get("reads", []))
        facts = self.fact_digests(manifest.get("facts", []))
        if values is None or facts is None:
            return None
        return _Keys(self.sources(entry), self.settings, facts, values,
                     dict(manifest.get("options") or {}))

    def option(self, name: str) -> Any:
        """A scene option's value in this build (its default when not given)."""
        return _option(self.options, name, self.experiment.sha256 if self.experiment else None)

    def decide(self, entry: SceneEntry) -> tuple[bool, str]:
        """``(reuse, reason)`` for one scene."""
        record = _read_json(_record_path(self.options.out, entry))
        if record is None:
            return False, "new scene"
        old = record.get("parts", {})
        code = _changed(old.get("sources", {}), self.sources(entry))
        if code:
            return False, f"scene code changed: {_some(code)}"
        if old.get("settings") != self.settings:
            return False, "quality, voice or Manim version changed"
        options = sorted(name for name, seen in old.get("options", {}).items()
                         if self.option(name) != seen)
        if options:
            return False, f"option changed: {_some(options)}"
        if not self.worksheet_unchanged:
            facts = self.fact_digests(old.get("facts", {}))
            if facts is None:
                return False, "a worksheet fact it showed no longer exists"
            if _changed(old.get("facts", {}), facts):
                return False, f"worksheet changed: {_some(_changed(old['facts'], facts))}"
            values = self.value_digests(old.get("values", {}))
            if values is None:
                return False, "a value it showed no longer exists"
            if _changed(old.get("values", {}), values):
                return False, f"values changed: {_some(_changed(old['values'], values))}"
        if not _outputs_intact(self.options.out, record):
            return False, "outputs missing or modified"
        return True, "unchanged"


# --------------------------------------------------------------------------- build


Progress = Callable[[str, SceneEntry, float], None]
"""Hears ``("plan", first entry, number of scenes to render)``, then ``("start", entry, 0)``
and ``("done" | "failed", entry, seconds)`` for each rendered scene."""


class Build:
    """One build of ``options.out``, in stages that can run on their own.

    Creating it gathers and validates everything the build needs (the worksheet, the
    layout limits, the named scenes, the experiment, the code's fingerprints) and writes
    nothing. Then
    :meth:`decide` says which scenes still hold and which must render, :meth:`render`
    renders some of them, and :meth:`assemble` writes the script, the storyboard, the
    clips' WebVTT, the joined lecture, the deck and ``build.json`` from the scenes'
    outcomes. :func:`build` runs the stages in
    order under the folder's lock; ``lecture serve`` runs them again and again, holding
    the lock itself.

    Parameters
    ----------
    options
        What to build and where.
    ws
        The worksheet, when the caller has read it already (``lecture serve`` reads each
        saved revision once); read from ``options.worksheet`` otherwise.

    Raises
    ------
    WorksheetError, LayoutLimitError, ExperimentError
        When the worksheet or the experiment cannot be used.
    KeyError
        When a named scene is none of the lecture's.
    """

    def __init__(self, options: BuildOptions, ws: Worksheet | None = None) -> None:
        self.started = time.perf_counter()
        self.options = options
        self.ws, self.entries, code, versions, (experiment, values) = _gather(options, ws)
        self.code, self.versions, self.experiment = code, versions, experiment
        self.previous: dict[str, Any] = _read_json(options.out / "build.json") or {}
        self.planner = _Planner(options, self.ws, code, versions, self.previous, experiment,
                                values)

    def decide(self) -> tuple[list[SceneOutcome], list[tuple[SceneEntry, str]]]:
        """Each scene's fate: reused, stale or skipped (as outcomes), or to render, with
        the reason (the second list)."""
        return _decide_all(self.options, self.planner, self.entries)

    def kept(self, todo: Sequence[tuple[SceneEntry, str]]) -> list[SceneOutcome]:
        """The outcomes of scenes of ``todo`` left unrendered for now: one with outputs from
        an earlier build is kept as stale (its reason says why); one without is left out."""
        return [SceneOutcome(entry, "stale", f"not rebuilt: {reason}")
                for entry, reason in todo if _record_path(self.options.out, entry).is_file()]

    def render(self, todo: Sequence[tuple[SceneEntry, str]], notify: Progress | None = None,
               out: Path | None = None, cancel: threading.Event | None = None
               ) -> list[SceneOutcome]:
        """Render the scenes of ``todo``, ``options.jobs`` at a time, each recorded the
        moment it is done; into ``out`` instead of the build folder when given (a folder
        of the same layout: ``video/`` and ``records/``). Setting ``cancel`` stops the
        scenes in flight, which then fail."""
        options = self.options if out is None else replace(self.options, out=out)
        return _render_all(options, self.planner, self.entries, todo,
                           notify or (lambda *_: None), cancel)

    def assemble(self, outcomes: Sequence[SceneOutcome]) -> BuildResult:
        """Write what follows from the scenes' outcomes: the script, the storyboard, the
        clips' WebVTT, the lecture and the deck (not for a shard, which removes the
        lecture), then ``build.json``."""
        order = {entry.name: i for i, entry in enumerate(self.entries)}
        result = BuildResult(sorted(outcomes, key=lambda s: order[s.entry.name]))
        (self.options.out / "records").mkdir(parents=True, exist_ok=True)
        if self.options.shard is None:
            _write_script(self.options, self.entries)
            _write_storyboard(self.options, self.entries, result)
            _write_exports(self.options, self.entries, result)  # before the deck: its key
            result.slides, result.slides_key = _assemble_slides(self.options, self.planner,
                                                                self.previous)
        else:
            from render.export import withdraw

            withdraw(self.options.out)
        result.seconds = time.perf_counter() - self.started
        experiment = None if self.experiment is None else {
            "path": str(self.experiment.path), "sha256": self.experiment.sha256}
        self.previous = _write_build_json(
            self.options, {"path": str(Path(self.ws.source).resolve()), "sha256": self.ws.sha256},
            self.ws.n_heads, self.code, self.versions, result, experiment)
        return result


def build(options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Run a build. ``progress(event, entry, seconds)`` hears "start"/"done"/"failed".

    Raises
    ------
    LockError
        When another build is running in the same folder.
    WorksheetError, LayoutLimitError, KeyError
        When the worksheet cannot be used, or a named scene is none of the lecture's
        (checked before anything is written, the folder included).
    """
    if (options.out / "build.json").is_file():
        with BuildLock(options.out):
            result = unchanged(options)
            if result is not None:
                return result
    run = Build(options)
    with BuildLock(options.out):
        remove_leftovers(options.out)
        outcomes, todo = run.decide()
        outcomes += run.render(todo, progress)
        return run.assemble(outcomes)


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def unchanged(options: BuildOptions) -> BuildResult | None:
    """The build of ``options`` when nothing it depends on changed, decided from
    fingerprints alone: no worksheet is validated, no value computed, nothing rendered;
    ``None`` when anything may differ (the full build then decides, scene by scene).

    Nothing changed when the last build of the folder was whole (not a shard), holds every
    scene asked for and kept each of them, and the worksheet's and the experiment's bytes,
    the code, the tool versions, the quality, the voice and the scene options are the
    same, and every output still has the digest its record holds. That build validated
    this very worksheet with this very code, and made or kept every scene, the script, the
    storyboard and the deck from them. It writes ``build.json`` again, as any build does.
    Call it holding the folder's lock.
    """
    from render.export import RECORD as LECTURE_RECORD
    from render.storyboard import RECORD as STORYBOARD_RECORD
    from render.storyboard import WriteResult, image_code

    started = time.perf_counter()
    previous = _read_json(options.out / "build.json") or {}
    scenes = previous.get("scenes") or []
    whole = options.shard is None and previous.get("shard") is None \
        and previous.get("quality") == options.quality \
        and isinstance(previous.get("heads"), int) \
        and not str(previous.get("storyboard", "")).startswith("failed") \
        and not str(previous.get("lecture", "")).startswith("failed") \
        and all(s.get("status") in ("rendered", "reused") for s in scenes)
    if not whole:
        return None
    lecture = lecture_order(previous["heads"])
    entries = [entry for entry in lecture if entry.name in {s.get("name") for s in scenes}]
    if [entry.name for entry in entries] != [s.get("name") for s in scenes]:
        return None
    try:
        if not set(pick_scenes(lecture, options.scenes)) <= set(entries):
            return None  # a scene it asks for was never built
        worksheet = {"path": str(options.worksheet.resolve()),
                     "sha256": _file_sha256(options.worksheet)}
        from worksheet import NO_EXPERIMENT

        experiment = None
        given = options.experiment
        if given is None:  # the bundled one, when the last build of this worksheet used it
            from worksheet import BUNDLED_EXPERIMENT as BUNDLED

            used = previous.get("experiment")
            given = BUNDLED if used and Path(used["path"]) == (BUNDLED / "experiment.json"
                                                              ).resolve() else None
        if given is not None and str(given) != NO_EXPERIMENT:
            file = given / "experiment.json" if given.is_dir() else given
            experiment = {"path": str(file.resolve()), "sha256": _file_sha256(file)}
    except (KeyError, OSError):
        return None  # the full build says what is wrong
    versions = tool_versions()
    if previous.get("worksheet") != worksheet or previous.get("experiment") != experiment \
            or previous.get("versions") != versions or previous.get("code") != code_fingerprint():
        return None
    settings = _settings(options, versions)
    sha = experiment["sha256"] if experiment else None
    for entry in entries:
        record = _read_json(_record_path(options.out, entry)) or {}
        parts = record.get("parts", {})
        if parts.get("settings") != settings or not _outputs_intact(options.out, record) or any(
                _option(options, name, sha) != seen
                for name, seen in parts.get("options", {}).items()):
            return None
    records = {name: _read_json(options.out / name) or {}
               for name in (SCRIPT_RECORD, STORYBOARD_RECORD, DECK_RECORD, LECTURE_RECORD)}
    frames = records[STORYBOARD_RECORD].get("frames", {})
    code = image_code() if frames else ""
    if not all(_outputs_intact(options.out, record) for record in records.values()) \
            or records[DECK_RECORD].get("key") != previous.get("slides", {}).get("key") \
            or any(frame.get("code") != code for frame in frames.values()):
        return None
    remove_leftovers(options.out)
    result = BuildResult([SceneOutcome(entry, "reused", "unchanged") for entry in entries],
                         slides="reused", slides_key=previous["slides"]["key"],
                         storyboard=WriteResult(0, len(frames)).summary(),
                         lecture="reused" if records[LECTURE_RECORD].get("key")
                         else str(previous.get("lecture", "not joined")))
    result.seconds = time.perf_counter() - started
    _write_build_json(options, worksheet, previous["heads"], previous["code"], versions, result,
                      experiment)
    return result


def plan(options: BuildOptions) -> BuildResult:
    """What :func:`build` would do, and why, without rendering or writing anything.

    Scenes it would render have the status ``"would render"``.
    """
    run = Build(options)
    outcomes, todo = run.decide()
    result = BuildResult(outcomes + [SceneOutcome(entry, "would render", reason)
                                     for entry, reason in todo])
    order = {entry.name: i for i, entry in enumerate(run.entries)}
    result.scenes.sort(key=lambda s: order[s.entry.name])
    if options.shard is None:
        unchanged = not todo and run.previous.get("slides", {}).get("key") == _deck_key(
            options, run.planner) and (options.out / "slides" / "index.html").is_file()
        result.slides = "would be reused" if unchanged else "would be rebuilt"
    result.seconds = time.perf_counter() - run.started
    return result


def _gather(options: BuildOptions, ws: Worksheet | None = None
            ) -> tuple[Worksheet, tuple[SceneEntry, ...], dict[str, str], dict[str, str],
                       tuple[Experiment | None, Any]]:
    """Validate everything a build needs before it writes anything (the worksheet is read
    from ``options.worksheet`` unless given).

    With an experiment, the values are computed here (its parameter counts must be the
    worksheet's models'), and handed on; without one they are computed when needed.
    """
    from worksheet import load_worksheet
    from worksheet.results import chosen_experiment, load_experiment

    ws = ws if ws is not None else load_worksheet(options.worksheet)
    check_limits(ws)
    entries = lecture_order(ws.n_heads)
    pick_scenes(entries, options.scenes)  # a name the lecture lacks stops here, not in OUT
    experiment, values = None, None
    chosen = chosen_experiment(options.experiment, ws)
    if chosen is not None:
        from worksheet import compute_values

        experiment = load_experiment(chosen, ws)
        values = compute_values(ws, experiment)
    return ws, entries, code_fingerprint(), tool_versions(), (experiment, values)


def _decide_all(options: BuildOptions, planner: _Planner, entries: Sequence[SceneEntry]
                ) -> tuple[list[SceneOutcome], list[tuple[SceneEntry, str]]]:
    """Each scene's fate: reused, stale or skipped (as outcomes), or to render (todo)."""
    outcomes: list[SceneOutcome] = []
    todo: list[tuple[SceneEntry, str]] = []
    mine = shard_entries(pick_scenes(entries, options.scenes), options.shard)
    for entry in entries:
        if entry not in mine:
            if options.shard is not None and (not options.scenes
                                              or entry.name in options.scenes):
                outcomes.append(SceneOutcome(entry, "skipped (other shard)", ""))
            elif _record_path(options.out, entry).is_file():  # kept from an earlier build
                reuse, reason = planner.decide(entry)
                outcomes.append(SceneOutcome(entry, "reused" if reuse else "stale",
                                             reason if reuse else f"not rebuilt: {reason}"))
            continue
        reuse, reason = planner.decide(entry)
        if reuse:
            outcomes.append(SceneOutcome(entry, "reused", reason))
        else:
            todo.append((entry, reason))
    return outcomes, todo


def _render_all(options: BuildOptions, planner: _Planner, entries: Sequence[SceneEntry],
                todo: Sequence[tuple[SceneEntry, str]], notify: Progress,
                cancel: threading.Event | None = None) -> list[SceneOutcome]:
    if not todo:
        return []
    notify("plan", todo[0][0], float(len(todo)))
    outcomes = []
    stop = cancel or threading.Event()
    handoff = tempfile.TemporaryDirectory(prefix="lecture-values-")
    values = Path(handoff.name) / "values.pickle"
    # Computed once, here, and read by every scene's process.
    hand_values(planner.values, values, planner.ws, planner.experiment)

    def one(entry: SceneEntry, reason: str) -> SceneOutcome:
        notify("start", entry, 0.0)
        began = time.perf_counter()
        targets = scene_outputs(options.out / "video", entries, entry)
        found: dict[str, _Keys] = {}

        def tags(manifest: Path) -> dict[str, str]:
            read = _read_json(manifest) or {}
            if read.get("worksheet", {}).get("sha256") != planner.ws.sha256:
                raise RenderError(f"{entry.name}: the worksheet changed while the scene "
                                  f"rendered; build again")
            keys = planner.keys(entry, read)
            if keys is None:
                raise RenderError(f"{entry.name}: its manifest names a value or worksheet "
                                  "fact that does not exist")
            found["keys"] = keys
            return {"lecture_key": keys.key()}

        try:
            render_scene(entry, options.worksheet, options.quality, targets, tags,
                         options.narration, options.scene_options,
                         planner.experiment.path if planner.experiment else None, stop,
                         values)
            _write_record(options, entry, found["keys"], targets)
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
    except BaseException:
        # Ctrl-C: start nothing new and stop the scenes in flight. Their Manim heard the
        # signal too, unless it started just after it: that one is stopped here.
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        handoff.cleanup()
    return outcomes


def _write_record(options: BuildOptions, entry: SceneEntry, keys: _Keys,
                  targets: Sequence[Path]) -> None:
    record = {
        "scene": entry.name,
        "key": keys.key(),
        "parts": keys.parts(),
        "outputs": {path.relative_to(options.out).as_posix(): remembered_digest(path)
                    for path in targets},
    }
    path = _record_path(options.out, entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, record)


def _write_script(options: BuildOptions, entries: Sequence[SceneEntry]) -> None:
    """``script.md`` from every rendered scene's manifest, in lecture order, and its record."""
    clips = []
    for entry in entries:
        manifest = _read_json(scene_outputs(options.out / "video", entries, entry)[2])
        if manifest is not None:
            clips.append((video_stem(tuple(entries), entry.name), entry.title, manifest,
                          [caption["text"] for caption in manifest.get("captions", [])]))
    path = options.out / SCRIPT
    key = _digest([TITLE, [(stem, heading, texts, manifest.get("duration"),
                            [caption["start"] for caption in manifest.get("captions", [])])
                           for stem, heading, manifest, texts in clips]])
    record = _read_json(options.out / SCRIPT_RECORD) or {}
    if record.get("key") == key and _outputs_intact(options.out, record):
        return  # the same script from the same captions
    write_text(path, script_text(TITLE, clips))
    write_json(options.out / SCRIPT_RECORD, {"key": key, "outputs": {SCRIPT: file_digest(path)}})


def _write_storyboard(options: BuildOptions, entries: Sequence[SceneEntry],
                      result: BuildResult) -> None:
    """``storyboard.html`` from every built scene, extracting only frames that changed."""
    from render.storyboard import StoryboardError, built_clips, write_storyboard
    names = [outcome.entry.name for outcome in result.scenes if outcome.status in KEPT]
    clips = built_clips(options.out, names, {entry.name: entry.title for entry in entries})
    try:
        result.storyboard = write_storyboard(options.out, TITLE, clips).summary()
    except StoryboardError as error:
        result.storyboard, result.storyboard_failed = f"failed: {error}", True


def _write_exports(options: BuildOptions, entries: Sequence[SceneEntry],
                   result: BuildResult) -> None:
    """Every kept clip's WebVTT and, when the build holds every clip of the lesson, each
    current, the joined lecture in ``lecture/``; an earlier one is removed otherwise."""
    from render.export import ExportError, write_exports
    from slides.captions import CaptionError

    kept = {outcome.entry.name for outcome in result.scenes if outcome.status in KEPT}
    current = {outcome.entry.name for outcome in result.scenes
               if outcome.status in ("rendered", "reused")}
    try:
        result.lecture = write_exports(options.out, entries, kept, current, TITLE)
    except (ExportError, CaptionError) as error:
        result.lecture, result.lecture_failed = f"failed: {error}", True


def _clips(options: BuildOptions) -> dict[str, str]:
    return {p.relative_to(options.out).as_posix(): remembered_digest(p)
            for p in sorted((options.out / "video").glob("*")) if p.is_file()}


def _deck_code(planner: _Planner) -> dict[str, str]:
    return {name: planner.code.get(name) or file_digest(ROOT / name) for name in deck_sources()}


def _deck_key(options: BuildOptions, planner: _Planner) -> str:
    """The deck's key: its sources, the worksheet, the experiment and every clip with its
    captions."""
    parts = [planner.ws.sha256, _deck_code(planner), _clips(options)]
    if planner.experiment is not None:
        parts.append(planner.experiment.sha256)
    return _digest(parts)


def _assemble_slides(options: BuildOptions, planner: _Planner,
                     previous: Mapping[str, Any]) -> tuple[str, str]:
    """Rebuild the deck unless its sources, the worksheet and every clip are the same; then
    record every file of the deck, the clip digests it embeds and what each poster shows."""
    key = _deck_key(options, planner)
    record = _read_json(options.out / DECK_RECORD) or {}
    if previous.get("slides", {}).get("key") == key and record.get("key") == key \
            and _outputs_intact(options.out, record):
        return "reused", key  # the same deck from the same sources: its record holds
    from slides.deck import build_deck, find_clips, poster_sources

    build_deck(planner.ws, planner.values, options.out,
               experiment=planner.experiment.path if planner.experiment else None)
    clips = _clips(options)
    sources = _deck_code(planner)
    deck = options.out / "slides"
    outputs = {path.relative_to(options.out).as_posix(): remembered_digest(path)
               for path in sorted(deck.rglob("*")) if path.is_file()}
    embedded = {rel: digest for rel, digest in clips.items()
                if f"slides/video/{Path(rel).name}" in outputs and rel.endswith(".mp4")}
    posters = {rel: source for rel, source in
               poster_sources(find_clips(planner.ws, options.out / "video")).items()
               if rel in outputs}
    write_json(options.out / DECK_RECORD, {"key": key, "sources": sources,
                                           "outputs": outputs, "clips": embedded,
                                           "posters": posters})
    return "rebuilt", key


def _write_build_json(options: BuildOptions, worksheet: Mapping[str, Any], heads: int,
                      code: Mapping[str, str], versions: Mapping[str, str], result: BuildResult,
                      experiment: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Write ``build.json``; return what it holds. ``worksheet`` and ``experiment`` are
    recorded as ``{"path", "sha256"}``."""
    scenes = []
    for outcome in result.scenes:
        record = _read_json(_record_path(options.out, outcome.entry)) or {}
        scenes.append({"name": outcome.entry.name, "status": outcome.status,
                       "reason": outcome.reason, "key": record.get("key"),
                       "outputs": sorted(record.get("outputs", {})),
                       "seconds": round(outcome.seconds, 2), "error": outcome.error})
    document = {
        "worksheet": dict(worksheet),
        "heads": heads,
        "experiment": None if experiment is None else dict(experiment),
        "versions": dict(versions),
        "quality": options.quality,
        "shard": None if options.shard is None else f"{options.shard[0]}/{options.shard[1]}",
        "code": dict(code),
        "scenes": scenes,
        "slides": {"status": result.slides, "key": result.slides_key},
        "storyboard": result.storyboard,
        "lecture": result.lecture,
        "seconds": round(result.seconds, 2),
    }
    write_json(options.out / "build.json", document)
    return document
