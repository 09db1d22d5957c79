"""The ``lecture`` command."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import wraps
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from outputs.files import OutputError, check_writable, write_json
from render.config import SettingsError, resolve_settings, scene_options
from render.versions import print_versions

__all__ = ["main"]

_ERROR = "lecture: error: "
"""How every refusal starts: one line on stderr, exit status 2."""


class _Choice(click.Choice):
    """A choice refused as "expected one of l, m, h, k, got 'z'"."""

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        return f"expected one of {', '.join(map(str, self.choices))}, got {value!r}"


def _bounds(kind: click.IntRange | click.FloatRange) -> str:
    """A range as it reads in a sentence: "≥ 1", "≥ 0 and ≤ 65535", "> 0"."""
    bounds = []
    if kind.min is not None:
        bounds.append(f"{'>' if kind.min_open else '≥'} {kind.min}")
    if kind.max is not None:
        bounds.append(f"{'<' if kind.max_open else '≤'} {kind.max}")
    return " and ".join(bounds)


class _Whole(click.IntRange):
    """A whole number in a range, refused as "expected a whole number ≥ 1, got '0'"."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"expected a whole number {_bounds(self)}, got {value!r}", param, ctx)


class _Number(click.FloatRange):
    """A number in a range, refused as "expected a number > 0, got 'x'"."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"expected a number {_bounds(self)}, got {value!r}", param, ctx)


def _param_name(error: click.BadParameter) -> str:
    """The parameter as the command line spells it: ``--quality``, ``OUT``."""
    param = error.param
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    if param is not None:
        return param.human_readable_name
    hint = error.param_hint
    return hint if isinstance(hint, str) else " / ".join(hint or ["value"])


def _did_you_mean(possibilities: Sequence[str] | None) -> str:
    """The closest name Click found, as a question; empty without one."""
    return f" (did you mean {possibilities[0]}?)" if possibilities else ""


def _clause(text: str) -> str:
    """Click's sentence ("Got unexpected extra argument (x).") as a clause of ours."""
    text = text.strip().removesuffix(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _one_line(error: click.ClickException) -> str:
    """A Click error in the project's one line: what is wrong, and which command's help
    says how to call it."""
    if isinstance(error, click.exceptions.NoSuchCommand):
        what = f"no command named {error.command_name!r}{_did_you_mean(error.possibilities)}"
    elif isinstance(error, click.NoSuchOption):
        what = f"no option {error.option_name}{_did_you_mean(error.possibilities)}"
    elif isinstance(error, click.MissingParameter):
        kind = error.param_type or (error.param.param_type_name if error.param else "value")
        what = f"missing {kind} {_param_name(error)}"
    elif isinstance(error, click.BadParameter):
        what = f"{_param_name(error)}: {_clause(error.message)}"
    else:
        what = _clause(error.format_message())
    ctx = error.ctx if isinstance(error, click.UsageError) else None
    where = f"; see `{ctx.command_path} -h`" if ctx is not None else ""
    return f"{_ERROR}{what}{where}"


class _Command(click.Command):
    """A ``lecture`` command: its usage errors all know it, so their line names its help."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:  # Click's parser leaves some without a context
            error.ctx = error.ctx or ctx
            raise


class _Lecture(_Command, click.Group):
    """A group whose every usage error (a bad value, an unknown option or command, a
    missing argument) is one line on stderr with exit status 2, as the project's own
    refusals are; called with no arguments, it prints its help. Its commands and
    groups are of its kind."""

    command_class = _Command
    group_class = type

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        """Run the command line; Click's own handling, but for how errors are shown.

        Commands report their outcome by exiting (``sys.exit``) or returning ``None``.
        """
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            click.echo(error.ctx.get_help())
            sys.exit(0)
        except click.ClickException as error:
            click.echo(_one_line(error), err=True)
            sys.exit(error.exit_code)
        except click.Abort:  # Ctrl-C or end of input outside a command's own handling
            click.echo("lecture: interrupted", err=True)
            sys.exit(130)
        sys.exit(status if isinstance(status, int) else 0)


_WORKSHEET = click.option(
    "--worksheet", "worksheet_path", type=click.Path(dir_okay=False, path_type=Path),
    default=None, help="Worksheet JSON file (default: $LECTURE_WORKSHEET, lecture.toml, or the "
    "bundled worksheet).")


_EXPERIMENT = click.option(
    "--experiment", "experiment_path", type=click.Path(path_type=Path), default=None,
    help="The folder `lecture experiment` wrote (or its experiment.json): its results join "
    "the values as trained.results.*; `none` for none (default: $LECTURE_EXPERIMENT, "
    "lecture.toml, or the bundled experiment when the worksheet's trained sizes are its own).")


def _load_experiment(settings: Any, ws: Any) -> Any:
    """The settings' experiment, read and checked against the worksheet; ``None`` without."""
    from worksheet.results import chosen_experiment, load_experiment

    path = chosen_experiment(settings.experiment, ws)
    return None if path is None else load_experiment(path, ws)


def _console(stderr: bool = False) -> Console:
    """A console that does not wrap lines at 80 columns when writing to a file or a CI log."""
    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, width=None if stream.isatty() else 160)


def _fail(message: str) -> None:
    click.echo(f"{_ERROR}{message}", err=True)
    sys.exit(2)


def _friendly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Report bad input as one line on stderr with exit status 2, never a traceback."""
    from worksheet import ExperimentError, WorksheetError

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except WorksheetError as error:
            _fail(error.one_line())
        except (SettingsError, OutputError, ExperimentError) as error:
            _fail(str(error))

    return wrapper


@click.group("lecture", cls=_Lecture,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=print_versions, help="Show the project's version and its tools', and exit.")
def main() -> None:
    """Compile the multi-head attention worksheet into lecture values, videos and slides.

    \b
    Examples:
      lecture build -j 2                  # the whole lecture into build/
      lecture build HeadWalkthrough1 -qm  # one scene at 720p30, then the deck
      lecture check --complete            # prove every scene and figure of build/
    """


@main.command("values")
@_WORKSHEET
@_EXPERIMENT
@click.option("--json", "as_json", is_flag=True, help="Print every value as JSON.")
@_friendly
def values_command(worksheet_path: Path | None, experiment_path: Path | None,
                   as_json: bool) -> None:
    """Print every displayed value with its key and display text.

    \b
    Examples:
      lecture values
      lecture values --json > values.json
      lecture values --worksheet my.json
    """
    from worksheet import compute_values, load_worksheet

    settings = resolve_settings({"worksheet": worksheet_path, "experiment": experiment_path})
    ws = load_worksheet(settings.worksheet)
    experiment = _load_experiment(settings, ws)
    values = compute_values(ws, experiment)
    if as_json:
        document: dict[str, Any] = {"worksheet": {"path": ws.source, "sha256": ws.sha256}}
        if experiment is not None:
            document["experiment"] = {"path": str(experiment.path),
                                      "sha256": experiment.sha256}
        document["values"] = values.to_json()
        click.echo(json.dumps(document, ensure_ascii=False, indent=1))
        return
    table = Table("key", "text", title=f"{len(values)} values from {ws.source}")
    for key, figure in values.items():
        text = figure.text
        table.add_row(key, text if isinstance(text, str) else json.dumps(text, ensure_ascii=False))
    _console().print(table)


@main.group("worksheet")
def worksheet_group() -> None:
    """Work with worksheet files.

    \b
    Examples:
      lecture worksheet fill seed.json my.json
      lecture worksheet export build/multihead-worksheet.json --worksheet my.json
    """


@worksheet_group.command("export")
@click.argument("out", type=click.Path(path_type=Path))
@_WORKSHEET
@_friendly
def export_command(out: Path, worksheet_path: Path | None) -> None:
    """Write the worksheet in the seed's schema, with computed cases, to OUT.

    \b
    Examples:
      lecture worksheet export build/multihead-worksheet.json
      lecture worksheet export cases.json --worksheet my.json
    """
    from worksheet import compute_values, load_worksheet
    from worksheet.export import export_document

    settings = resolve_settings({"worksheet": worksheet_path})
    check_writable(out)
    ws = load_worksheet(settings.worksheet)
    write_json(out, export_document(ws, compute_values(ws)))
    click.echo(f"wrote {out} ({len(ws.sentences)} sentences, {ws.n_heads} heads)", err=True)


@worksheet_group.command("fill")
@click.argument("source", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@_friendly
def fill_command(source: Path, out: Path) -> None:
    """Write the worksheet SOURCE to OUT with every lesson default made explicit.

    A worksheet in the seed notebook's schema needs no ``lesson`` object; the filled copy
    shows every part the lecture uses (feature and head names, observed next words, the
    bias offset, the toy, the patches, the trained sizes, the lab), ready to edit.

    \b
    Examples:
      lecture worksheet fill seed.json my.json
    """
    from worksheet import load_worksheet

    check_writable(out)
    ws = load_worksheet(source)
    write_json(out, dict(ws.document))
    click.echo(f"wrote {out} (lesson parts: {', '.join(ws.document['lesson'])})", err=True)


_NARRATION = click.option(
    "--narration", type=_Choice(["piper", "espeak", "none"]), default=None,
    help="Who speaks the captions: Piper (default), espeak-ng, or none for silent clips.")
_VOICE = click.option(
    "--voice", "voice", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="A Piper voice model (.onnx with its .onnx.json beside it); default: the bundled "
    "en_US-joe-medium.")


def _narration(settings: Any) -> Any:
    from narration.voices import Narration, VoiceError

    narration = Narration(settings.narration, settings.voice)
    try:
        narration.voice()
    except VoiceError as error:
        _fail(str(error))
    return narration


QUALITIES = {"l": "480p15", "m": "720p30", "h": "1080p60", "k": "2160p60",
             "draft": "480p5, l's pictures, each animation shown as the picture it ends on, "
                      "to look over quickly",
             "hall": "1080p30, for a projector in a lecture hall"}
"""Each ``--quality`` the command takes, with what it renders; Manim's letters, so ``-ql``
means what it means to ``manim``, and ``draft``."""
_QUALITY = click.option(
    "-q", "--quality", type=_Choice(list(QUALITIES)), default="l", show_default=True,
    help="Render quality, as Manim's -q: " + ", ".join(f"{name} {what}"
                                                       for name, what in QUALITIES.items())
    + ".")
_FULL_HEADS = click.option(
    "--full-heads/--recap-heads", "full_heads", default=None,
    help="Walk every head through every step (default: the full walk for the first head "
    "and a short recap for each later one; $LECTURE_FULL_HEADS, or full_heads in "
    "lecture.toml).")
_OUT = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                    default=None, help="Output folder (default: $LECTURE_OUT, lecture.toml, "
                    "or build/).")


@main.command("slides")
@_WORKSHEET
@_EXPERIMENT
@_OUT
@click.option("--pdf", is_flag=True, help="Also write slides/slides.pdf through Chromium.")
@_friendly
def slides_command(worksheet_path: Path | None, experiment_path: Path | None,
                   out_dir: Path | None, pdf: bool) -> None:
    """Build the Reveal.js deck into OUT/slides/ (with the clips in OUT/video/ if rendered).

    \b
    Examples:
      lecture slides
      lecture slides --pdf --out site
    """
    from slides.deck import build_deck
    from worksheet import compute_values, load_worksheet

    settings = resolve_settings({"worksheet": worksheet_path, "out": out_dir,
                                 "experiment": experiment_path})
    ws = load_worksheet(settings.worksheet)
    experiment = _load_experiment(settings, ws)
    index = build_deck(ws, compute_values(ws, experiment), settings.out, pdf=pdf,
                       experiment=experiment.path if experiment else None)
    click.echo(f"wrote {index}", err=True)


@main.command("render")
@click.argument("scene_names", nargs=-1, metavar="[SCENE]...")
@_WORKSHEET
@_QUALITY
@_NARRATION
@_VOICE
@_FULL_HEADS
@_EXPERIMENT
@_OUT
@_friendly
def render_command(scene_names: tuple[str, ...], worksheet_path: Path | None, quality: str,
                   narration: str | None, voice: Path | None, full_heads: bool | None,
                   experiment_path: Path | None, out_dir: Path | None) -> None:
    """Render lecture scenes (all by default) into OUT/video/ as NN-<Scene>.mp4/.srt,
    without the build's cache.

    \b
    Examples:
      lecture render RiverBankPrompt -ql
      lecture render HeadWalkthrough1 -qh --narration none
    """
    from outline import LayoutLimitError, check_limits, lecture_order
    from render.scenes import RenderError, pick_scenes, render_scene, scene_outputs
    from worksheet import load_worksheet

    settings = resolve_settings({"worksheet": worksheet_path, "out": out_dir,
                                 "narration": narration, "voice": voice,
                                 "full_heads": full_heads, "experiment": experiment_path})
    ws = load_worksheet(settings.worksheet)
    experiment = _load_experiment(settings, ws)
    speaker = _narration(settings)
    try:
        check_limits(ws)
        entries = lecture_order(ws.n_heads)
        chosen = pick_scenes(entries, scene_names)
    except (LayoutLimitError, KeyError) as error:
        _fail(str(error).strip("'\""))
    console = _console(stderr=True)
    failed = 0
    for entry in chosen:
        started = time.perf_counter()
        try:
            render_scene(entry, settings.worksheet, quality,
                         scene_outputs(settings.out / "video", entries, entry),
                         narration=speaker, options=scene_options(settings),
                         experiment=None if experiment is None else experiment.path)
        except RenderError as error:
            failed += 1
            console.print(f"[red]✗[/red] {entry.name}: {error}")
            continue
        console.print(f"[green]✓[/green] {entry.name} ({time.perf_counter() - started:.1f} s)")
    if failed:
        sys.exit(1)


@main.command("list")
@_WORKSHEET
@_OUT
@_friendly
def list_command(worksheet_path: Path | None, out_dir: Path | None) -> None:
    """List the lecture's scenes in order, with the duration of each rendered clip.

    \b
    Examples:
      lecture list
      lecture list --out site --worksheet my.json
    """
    from outline import lecture_order
    from render.scenes import read_duration, scene_outputs
    from worksheet import load_worksheet

    settings = resolve_settings({"worksheet": worksheet_path, "out": out_dir})
    recorded = settings.out / "build.json"
    if worksheet_path is None and recorded.is_file():  # the worksheet the clips came from
        try:
            settings = replace(settings, worksheet=Path(
                json.loads(recorded.read_text(encoding="utf-8"))["worksheet"]["path"]))
        except (ValueError, KeyError, TypeError):
            pass
    ws = load_worksheet(settings.worksheet)
    entries = lecture_order(ws.n_heads)
    table = Table("#", "scene", "part", "title", "duration")
    total = 0.0
    for number, entry in enumerate(entries, start=1):
        duration = read_duration(scene_outputs(settings.out / "video", entries, entry)[2])
        total += duration or 0.0
        shown = f"{duration:.1f} s" if duration is not None else "not rendered"
        table.add_row(f"{number:02d}", entry.name, entry.part, entry.title, shown)
    _console().print(table)
    click.echo(f"{len(entries)} scenes, {total:.1f} s rendered in {settings.out / 'video'}")


def _parse_shard(_: click.Context, __: click.Parameter, value: str | None
                 ) -> tuple[int, int] | None:
    if value is None:
        return None
    try:
        index, count = (int(part) for part in value.split("/"))
    except ValueError:
        raise click.BadParameter(f"expected I/N such as 1/2, got {value!r}") from None
    if not 1 <= index <= count:
        raise click.BadParameter(f"expected 1 ≤ I ≤ N, got {value!r}")
    return index, count


@main.command("build")
@click.argument("scene_names", nargs=-1, metavar="[SCENE]...")
@_WORKSHEET
@_QUALITY
@click.option("-j", "--jobs", type=_Whole(min=1), default=None,
              help="Scenes rendered at once (default: the number of cores).")
@click.option("--shard", callback=_parse_shard, default=None, metavar="I/N",
              help="Render only the I-th of N deterministic shares of the scenes.")
@click.option("--dry-run", is_flag=True, help="Say which scenes would render and why; render "
              "and write nothing.")
@_NARRATION
@_VOICE
@_FULL_HEADS
@_EXPERIMENT
@_OUT
@_friendly
def build_command(scene_names: tuple[str, ...], worksheet_path: Path | None, quality: str,
                  jobs: int | None, shard: tuple[int, int] | None, dry_run: bool,
                  narration: str | None, voice: Path | None, full_heads: bool | None,
                  experiment_path: Path | None, out_dir: Path | None) -> None:
    """Render every scene that changed (or only the named ones), then the deck, into OUT.

    \b
    Examples:
      lecture build -j 2                               # the whole lecture into build/
      lecture build HeadWalkthrough1 -qm --narration none
      lecture build --worksheet my.json --out site --dry-run
    """
    from outline import LayoutLimitError
    from render.build import BuildOptions, LockError, build, plan
    from render.progress import BuildProgress

    settings = resolve_settings({"worksheet": worksheet_path, "out": out_dir,
                                 "narration": narration, "voice": voice,
                                 "full_heads": full_heads, "experiment": experiment_path})
    options = BuildOptions(settings.worksheet, settings.out, quality,
                           jobs or os.cpu_count() or 1, shard, scene_names,
                           _narration(settings), scene_options(settings),
                           settings.experiment)
    console = _console(stderr=True)
    try:
        if dry_run:
            result = plan(options)
        else:
            with BuildProgress(console) as progress:
                result = build(options, progress.update)
    except KeyboardInterrupt:
        console.print("interrupted: finished scenes are kept; the next build goes on from there")
        sys.exit(130)
    except (LockError, LayoutLimitError) as error:
        _fail(str(error))
    except KeyError as error:
        _fail(str(error).strip("'\""))
    title = f"{'plan' if dry_run else 'build'} of {settings.out}"
    table = Table("scene", "status", "why", "seconds", title=title)
    for outcome in result.scenes:
        colour = {"rendered": "green", "would render": "green", "reused": "cyan",
                  "failed": "red", "stale": "yellow"}.get(outcome.status, "")
        table.add_row(outcome.entry.name, f"[{colour}]{outcome.status}[/]" if colour
                      else outcome.status, outcome.reason,
                      f"{outcome.seconds:.1f}" if outcome.seconds else "")
    console.print(table)
    counts = {status: sum(1 for s in result.scenes if s.status == status)
              for status in ("rendered", "would render", "reused", "failed")}
    done = f"{counts['would render']} would render" if dry_run else \
        f"{counts['rendered']} rendered"
    storyboard = "" if dry_run else \
        f"; storyboard {result.storyboard}; lecture {result.lecture}"
    console.print(f"{done}, {counts['reused']} reused, {counts['failed']} failed; slides "
                  f"{result.slides}{storyboard}; {result.seconds:.1f} s", soft_wrap=True)
    for outcome in result.failed:
        console.print(f"[red]{outcome.entry.name} failed:[/red] {outcome.error}")
    if result.failed or result.storyboard_failed or result.lecture_failed:
        sys.exit(1)


@main.command("serve")
@click.argument("scene_names", nargs=-1, metavar="[SCENE]...")
@_WORKSHEET
@_OUT
@click.option("--port", type=_Whole(min=0, max=65535), default=8000, show_default=True,
              help="The port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; only this machine by default.")
@click.option("--open/--no-open", "open_browser", default=False,
              help="Open the deck in the default browser.")
@click.option("--render/--no-render", "render_clips", default=True,
              help="Re-render, in the background, the scenes a change puts out of date "
              "(default); without, their clips stay and the page lists them as out of date.")
@_QUALITY
@click.option("-j", "--jobs", type=_Whole(min=1), default=1, show_default=True,
              help="Scenes rendered at once in the background.")
@_NARRATION
@_VOICE
@_FULL_HEADS
@_EXPERIMENT
@_friendly
def serve_command(scene_names: tuple[str, ...], worksheet_path: Path | None,
                  out_dir: Path | None, port: int, host: str,
                  open_browser: bool, render_clips: bool, quality: str, jobs: int,
                  narration: str | None, voice: Path | None, full_heads: bool | None,
                  experiment_path: Path | None) -> None:
    """Build the deck into OUT, serve OUT over http and keep it up to date: on every save
    of the worksheet (or of the project's sources) the deck rebuilds and each open page
    reloads on its slide; clips whose scene changed re-render in the background and swap
    in as they finish. A worksheet that cannot be used shows its error on the page and
    the last good deck stays. Named scenes limit what re-renders, as with `lecture build`.
    Ctrl-C stops, leaving a consistent build in OUT.

    \b
    Examples:
      lecture serve --open
      lecture serve --worksheet my.json --no-render
      lecture serve HeadWalkthrough1 --narration none --port 8080
    """
    from render.build import BuildOptions, LockError
    from render.serve import ServeOptions, serve

    settings = resolve_settings({"worksheet": worksheet_path, "out": out_dir,
                                 "narration": narration, "voice": voice,
                                 "full_heads": full_heads, "experiment": experiment_path})
    build = BuildOptions(settings.worksheet, settings.out, quality, jobs, None, scene_names,
                         _narration(settings), scene_options(settings), settings.experiment)

    def say(message: str) -> None:
        click.echo(f"{time.strftime('%H:%M:%S')} {message}", err=True)

    try:
        status = serve(ServeOptions(build, host, port, render_clips, open_browser), say)
    except (LockError, KeyError) as error:
        _fail(str(error).strip("'\""))
    sys.exit(status)


@main.command("storyboard")
@_OUT
@_friendly
def storyboard_command(out_dir: Path | None) -> None:
    """Write OUT/storyboard.html for reviewers: every built scene in lecture order, the frame
    at each section's end with the captions spoken in that section (the build writes it
    too; this writes it again from the clips in OUT).

    \b
    Examples:
      lecture storyboard
      lecture storyboard --out site
    """
    from outline import LIMITS, TITLE, lecture_order
    from render.build import KEPT, BuildLock, LockError
    from render.storyboard import PAGE, built_clips, write_storyboard

    settings = resolve_settings({"out": out_dir})
    out = settings.out
    recorded = out / "build.json"
    try:
        document = json.loads(recorded.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"{recorded}: not found, so {out} holds no build; run "
                          f"`lecture build --out {out}` first") from None
    except (OSError, ValueError) as error:
        raise OutputError(f"{recorded}: unreadable ({error})") from None
    if document.get("shard"):
        raise OutputError(f"{out} holds shard {document['shard']} of a build; merge the "
                          "shards with `lecture build` first")
    names = [s["name"] for s in document.get("scenes", []) if s.get("status") in KEPT]
    # Every title any worksheet can give: the scenes' names say which are used.
    titles = {entry.name: entry.title for entry in lecture_order(LIMITS["heads"])}
    try:
        with BuildLock(out):
            clips = built_clips(out, names, titles)
            written = write_storyboard(out, TITLE, clips)
    except LockError as error:
        _fail(str(error))
    images = written.extracted + written.reused
    click.echo(f"wrote {out / PAGE} ({len(clips)} scenes, {images} frames: "
               f"{written.summary()})", err=True)


@main.command("check")
@click.argument("scene_names", nargs=-1, metavar="[SCENE]...")
@_OUT
@click.option("--worksheet", "worksheet_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Worksheet to check against (default: the one in build.json).")
@click.option("--frames", is_flag=True, help="Also read every on-screen figure back from the "
              "clips' pixels with OCR (tesseract); of the named scenes only, when some are "
              "named.")
@click.option("--audio", is_flag=True, help="Also hear every spoken figure back from the "
              "narrated clips' sound with an offline recogniser (PocketSphinx); of the named "
              "scenes only, when some are named.")
@click.option("--complete", is_flag=True, help="Also fail unless OUT holds every scene of the "
              "lecture and the lecture joined from them (for CI: a partial build passes "
              "without it).")
@_friendly
def check_command(scene_names: tuple[str, ...], out_dir: Path | None,
                  worksheet_path: Path | None, frames: bool, audio: bool,
                  complete: bool) -> None:
    """Verify OUT against its records and a fresh recomputation: every output's digest and
    tags, every figure in the deck, the figure manifests and the captions (and with
    --frames, in the pixels; with --audio, in the sound). Names the lecture's scenes OUT
    lacks. Exit 0 when all match, 1 on any mismatch, altered or stale output (or, with
    --complete, a missing scene), 2 on bad input.

    \b
    Examples:
      lecture check
      lecture check --complete --out site
      lecture check HeadWalkthrough1 --frames --audio
    """
    from render.check import check_build
    from render.frames import OcrError, require_ocr
    from render.hearing import HearingError, require_recogniser

    settings = resolve_settings({"out": out_dir})
    started = time.perf_counter()
    try:
        if frames:
            require_ocr()
        if audio:
            require_recogniser()
        report = check_build(settings.out, worksheet_path, frames=frames, scenes=scene_names,
                             audio=audio)
    except (OcrError, HearingError) as error:
        _fail(str(error))
    console = _console()
    for reason in report.stale:
        console.print(f"[yellow]stale:[/yellow] {reason}")
    for problem in report.problems:
        console.print(f"[red]✗[/red] {problem.path}: {problem.what}")
    if report.frames:
        table = Table("clip", "figures", "read", "matched", title="figures read from pixels")
        for reading in report.frames:
            table.add_row(reading.clip, str(len(reading.figures)), str(reading.read),
                          str(reading.matched))
        console.print(table)
    if report.hearing:
        table = Table("clip", "spoken figures", "heard", "within their shape", "share",
                      "CPU s", title="figures heard in the sound")
        for hearing in report.hearing:
            table.add_row(hearing.clip, str(len(hearing.figures)), str(hearing.heard),
                          str(hearing.heard - hearing.heard_freely), f"{hearing.share:.0%}",
                          f"{hearing.seconds:.1f}")
        console.print(table)
    elif audio:
        console.print("[yellow]no narrated clip to hear[/yellow]")
    if report.mismatches:
        table = Table("KEY", "shown", "expected", "where",
                      title=f"{len(report.mismatches)} figures differ")
        for m in report.mismatches:
            table.add_row(m.key, m.shown, m.expected, m.where)
        console.print(table)
    if report.missing:
        console.print(f"[yellow]not built:[/yellow] {report.never_built()}", soft_wrap=True)
    if report.unjoined:
        console.print(f"[yellow]not joined:[/yellow] {report.unjoined}", soft_wrap=True)
    incomplete = complete and not report.complete
    verdict = "check failed" if not report.ok else \
        "check failed (--complete: not every scene is built)" if incomplete and report.missing \
        else "check failed (--complete: the lecture is not joined)" if incomplete \
        else "all figures match"
    console.print(f"{verdict}: {report.counted()} ({time.perf_counter() - started:.1f} s)",
                  soft_wrap=True)
    if not report.ok or incomplete:
        sys.exit(1)


def _parse_seeds(_: click.Context, __: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        seeds = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected whole numbers separated by commas such as "
                                 f"11,29,47, got {value!r}") from None
    if len(set(seeds)) != len(seeds) or any(seed < 0 for seed in seeds):
        raise click.BadParameter(f"expected distinct whole numbers ≥ 0, got {value!r}")
    return seeds


@main.command("experiment")
@click.option("--corpus", "corpus", type=click.Path(path_type=Path), required=True,
              help="A UTF-8 text file, or a folder of .txt files, of stories separated by "
              "blank lines or <|endoftext|>.")
@_WORKSHEET
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="The experiment folder (default: experiment/ in the build folder, "
              "build/experiment).")
@click.option("--steps", type=_Whole(min=1), default=2000, show_default=True,
              help="AdamW updates per run.")
@click.option("--seeds", callback=_parse_seeds, default="11,29,47", show_default=True,
              help="One run of every model per seed.")
@click.option("--device", type=_Choice(["cpu", "cuda", "auto"]), default="auto",
              show_default=True, help="Where to train (auto: CUDA when torch sees a GPU).")
@click.option("--batch", type=_Whole(min=1), default=64, show_default=True,
              help="Windows of context tokens per step.")
@click.option("--lr", "learning_rate", type=_Number(min=0, min_open=True),
              default=3e-3, show_default=True, help="Peak AdamW learning rate.")
@click.option("--eval-every", type=_Whole(min=1), default=100, show_default=True,
              help="Steps between validation measurements and saved states.")
@click.option("--eval-windows", type=_Whole(min=1), default=4096, show_default=True,
              help="Validation and test windows measured (all, when a split has fewer).")
@click.option("--threads", type=_Whole(min=1), default=None,
              help="CPU threads for torch (default: torch's own choice).")
@click.option("--title", "corpus_title", default="",
              help="What the corpus is, in a few words, as the lecture names it (default: "
              "its file or folder name).")
@click.option("--ship", "ship_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Also write what a lecture ships here: experiment.json, "
              "tokenizer.json and each model's median-seed checkpoint in 8 bits.")
@_friendly
def experiment_command(corpus: Path, worksheet_path: Path | None, out_dir: Path | None,
                       steps: int, seeds: tuple[int, ...], device: str, batch: int,
                       learning_rate: float, eval_every: int, eval_windows: int,
                       threads: int | None, corpus_title: str, ship_dir: Path | None) -> None:
    """Train the lesson's trained-comparison models on a story corpus and write
    OUT/experiment.json, OUT/tokenizer.json and one checkpoint per model and seed.

    The fixed-window MLP and an attention model per head count, at the worksheet's
    trained sizes, each once per seed with the same batches and update budget; the
    checkpoint with the lowest validation loss is kept and its test loss reported.
    Interrupted (Ctrl-C, a kill), the same command goes on where it stopped.

    \b
    Examples:
      lecture experiment --corpus stories.txt --device cpu
      lecture experiment --corpus stories/ --steps 500 --seeds 11 --out build/quick
    """
    from render.progress import ExperimentProgress
    from worksheet import ExperimentError, load_worksheet
    from worksheet.experiment import ExperimentOptions, run_experiment

    settings = resolve_settings({"worksheet": worksheet_path})
    ws = load_worksheet(settings.worksheet)
    out = out_dir if out_dir is not None else settings.out / "experiment"
    options = ExperimentOptions(steps=steps, seeds=seeds, device=device, batch=batch,
                                learning_rate=learning_rate, eval_every=eval_every,
                                eval_windows=eval_windows, threads=threads,
                                corpus_title=corpus_title)
    console = _console(stderr=True)
    try:
        with ExperimentProgress(console) as progress:
            document = run_experiment(ws, corpus, out, options, progress.update, ship_dir)
    except ExperimentError as error:
        _fail(str(error))
    except KeyboardInterrupt:
        console.print(f"interrupted: each run's state is saved in {out / 'progress'}; the same "
                      "command goes on from there")
        sys.exit(130)
    table = Table("model", "seed", "parameters", "best step", "validation", "test",
                  "perplexity", "tokens/s", title=f"{out / 'experiment.json'}")
    for run in document["runs"]:
        table.add_row(run["model"], str(run["seed"]), f"{run['parameters']:,}",
                      str(run["best_step"]), f"{run['validation_loss']:.3f}",
                      f"{run['test_loss']:.3f}", f"{run['test_perplexity']:.1f}",
                      f"{run['tokens_per_second']:,.0f}")
    console.print(table)
