"""The trained models live in the deck: one slide that runs all three in the browser.

The student types a prompt or picks one of the experiment's; every model continues it
greedily and the slide shows each continuation, each model's speed on this device, how
well the tokenizer's vocabulary covers the prompt, and the four-head model's attention
weights at the last position.

The slide opens on the lesson's prompt already worked (:class:`OpenedLive`): each model's
continuation, the coverage figures, the weights' bars and the tallest weight are bound
figures of the values (``trained.results.live.*``, :mod:`worksheet.live`), so the slide reads
before any script runs, in print and in a screenshot. Only each model's speed waits for a
run, and the slide says so in words. Every prompt the student runs is computed by the
browser (``static/live.js``, from the files :mod:`slides.live` writes beside the deck),
which replaces those figures. A deck whose experiment ships no models leaves the slide out
(:attr:`~slides.lesson.kit.Book.live`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from num2words import num2words

from slides.context import Live, LiveModel, Num, Para, PromptGroup, Runs, Slot, Text
from slides.lesson.kit import Book, Section
from slides.live import LIVE_SCRIPTS, MOST_TOKENS
from worksheet.live import PREFIX, STYLES

__all__ = ["PROMPT_GROUPS", "LiveBar", "OpenedLive", "add_live_slide", "live_block"]

PROMPT_GROUPS = (("training", "from the training texts"), ("held-out", "from held-out texts"),
                 ("lesson", "the lesson's sentence"), ("outside", "from outside the corpus"))
"""The experiment's kinds of example prompt, in the order the slide lists them."""

MESSAGES = (
    ("built", "Worked out when the deck was made."),
    ("loading", "Loading the models into this browser…"),
    ("ready", "Ready to run in this browser."),
    ("running", "Running…"),
    ("done", ""),
    ("empty", "Type a prompt first."),
    ("failed", "The models could not run in this browser."),
    ("truncated", "The window holds only its end."),
)
"""What the slide's script says while it works, by name (no figure: it says no number);
``built`` is what the slide says before the script has run."""
COVERAGE = ("tokens", "characters", "single", "words")
"""The coverage line's places, in its order."""
OPENED = {"tokens": "tokens", "characters": "characters_per_token", "single": "single",
          "words": "words", "tallest": "tallest", "weight": "weights"}
"""The value (under ``trained.results.live``) whose figure each place opens with, and whose
display style (:data:`worksheet.live.STYLES`) the script gives the figures it computes
there."""


@dataclass(frozen=True)
class LiveBar:
    """One bar of the opening weights: the key it draws, its weight as shown, and its
    height as a share of the tallest bar's."""

    key: str
    weight: Num
    share: float


@dataclass(frozen=True)
class OpenedLive(Live):
    """The live slide with the lesson's prompt already worked, each figure bound to its
    key; the script replaces them when the student runs the models."""

    prompt: str = ""
    """The prompt the slide opens on, in its text box."""
    opened: tuple[tuple[str, Num], ...] = ()
    """The coverage line's figures and the tallest weight, by the name of their place."""
    continuations: tuple[tuple[str, Num], ...] = ()
    """Each model's continuation of the prompt, by the model's name in the experiment."""
    bars: tuple[tuple[LiveBar, ...], ...] = ()
    """Per head, per token of the prompt's window: its bar."""
    labels: tuple[Num, ...] = ()
    """Per token of the window, its label under the bars."""
    pending: Runs = ()
    """Said where a figure waits for a run on this device (each model's speed)."""
    styles: tuple[tuple[str, str], ...] = ()
    """The display style of each figure the script computes (a :class:`~worksheet.Style`
    value), by the name of its place: the style of the value it opens with."""


def _name(book: Book, model: str) -> Runs:
    """A model as the trained stack names it (``fixed-window MLP``, ``4 × 16-wide heads``)
    with the checkpoint the slide runs: its seed and training step."""
    run = f"trained.results.{model}"
    checkpoint = {"s": book.n(f"{run}.shipped_seed")}
    if model == "mlp":
        return book.say("fixed-window MLP, seed {s}", **checkpoint)
    key = f"trained.{model}"
    heads = "head" if model == "heads1" else "heads"
    return book.say("{n} × {d}-wide " + heads + ", seed {s}", n=book.n(f"{key}.heads"),
                    d=book.n(f"{key}.d_head"), **checkpoint)


def _full(book: Book, model: str) -> Num:
    """The test perplexity the shipped seed's full-precision checkpoint had."""
    run = f"trained.results.{model}"
    seeds = list(book.values.value("trained.results.seeds"))
    return book.n(f"{run}.perplexity[{seeds.index(book.values.value(f'{run}.shipped_seed'))}]")


def _short(book: Book, model: str) -> Runs:
    if model == "mlp":
        return book.say("MLP")
    return book.say("{n}-head model", n=book.n(f"trained.{model}.heads"))


def _bar(book: Book, head: int, token: int) -> LiveBar:
    """The bar of one head's weight (head and token counted from zero), as tall against
    the tallest bar as the weight is against the tallest weight."""
    key = f"{PREFIX}.weights[{head}][{token}]"
    tallest = float(book.value(f"{PREFIX}.tallest"))
    return LiveBar(key, book.n(key), float(book.value(key)) / tallest if tallest else 0.0)


def _opened(book: Book, models: tuple[LiveModel, ...]) -> dict[str, Any]:
    """The lesson's prompt, worked when the values were computed (``trained.results.live.*``):
    every figure the slide opens on, bound to its key; nothing without those values."""
    if f"{PREFIX}.tokens" not in book.values:
        return {}
    weights = book.values.value(f"{PREFIX}.weights")
    bars = tuple(tuple(_bar(book, h, j) for j in range(len(row)))
                 for h, row in enumerate(weights))
    return {
        "prompt": book.values.text("trained.results.prompt"),
        "opened": tuple((place, book.n(f"{PREFIX}.{OPENED[place]}"))
                        for place in (*COVERAGE, "tallest")),
        "continuations": tuple((m.model, book.n(f"{PREFIX}.{m.model}.continuation"))
                               for m in models if f"{PREFIX}.{m.model}.continuation"
                               in book.values),
        "bars": bars,
        "labels": tuple(book.n(f"{PREFIX}.labels[{j}]") for j in range(len(weights[0]))),
        "pending": book.say("after a run"),
    }


def live_block(book: Book) -> OpenedLive:
    """The live slide's block for the worksheet's trained models, opened on the lesson's
    prompt when the values hold it."""
    heads = book.ws.lesson.trained.heads
    most = max(heads)
    models = (LiveModel("mlp", _name(book, "mlp")),
              *(LiveModel(f"heads{h}", _name(book, f"heads{h}"), h) for h in heads))
    return OpenedLive(
        models=models,
        groups=tuple(PromptGroup(kind, label) for kind, label in PROMPT_GROUPS),
        attention=f"heads{most}",
        heads=tuple((Text(f"{num2words(h, to='ordinal')} head"),) for h in range(1, most + 1)),
        prompt_label=book.say("Prompt"),
        pick_label="Or pick an example…",
        run_label=book.say(f"Run all {num2words(len(models))}"),
        coverage=book.say("{t} tokens, {c} characters per token; {s} of {w} words are one "
                          "token.", t=Slot("tokens"), c=Slot("characters"), s=Slot("single"),
                          w=Slot("words")),
        columns=(book.say("model"), book.say("its likeliest next token, again and again"),
                 book.say("tokens per second, one run here")),
        weights_caption=book.say("Where the prompt's last token looks in each of the {n} "
                                 "heads (the tallest bar is a weight of {t}):",
                                 n=book.n(f"trained.heads{most}.heads"), t=Slot("tallest")),
        weights_description="One row of bars per head, in the head's colour, and one "
                            "column per token of the prompt: a bar's height is the weight "
                            "the prompt's last token gives that token, on one scale for "
                            "all heads",
        note=book.say("runs live in your browser"),
        scripts=LIVE_SCRIPTS,
        messages=MESSAGES,
        styles=tuple((place, str(STYLES[key])) for place, key in OPENED.items()),
        **_opened(book, models),
    )


def add_live_slide(book: Book, section: Section) -> None:
    """Append the live slide to the trained comparison's stack, when the deck carries the
    models (:attr:`Book.live`)."""
    if not book.live:
        return
    block = live_block(book)
    most = block.attention
    count = num2words(len(block.models))
    section.add("live", f"Give all {count} models the same prompt", [block, Para(book.say(
        "No one chose these heads' jobs, as we did the worksheet's: compare the two."),
        style="note")], [
        book.say("The slide opens on the lesson's sentence, worked when the deck was built "
                 "by the very models the results came from. Press the button and this "
                 "browser works it again, offline: the {c}-token window, the tokenizer and "
                 "each model's shipped checkpoint in eight bits, run by ONNX Runtime Web on "
                 "WebAssembly; the figures come out the same. Then type a prompt or pick one: "
                 "each model writes its most likely next token, up to {n} of them or until "
                 "the end of a text.", c=book.n("trained.context"),
                 n=Text(num2words(MOST_TOKENS))),
        (Text("Read the table from the top: the fixed-window MLP"),
         *(run for model in block.models[1:] for run in (Text(", then "), *model.name)),
         *book.say(". Tokens per second are this device's, so they wait for a run: the "
                   "tokens each model predicted divided by the seconds its runs took. Pick "
                   "a training prompt, then a held-out one, then one from outside the corpus "
                   "(code, German) and ask which model copes.")),
        book.say("The bars are the attention weights of {m} for the prompt's last token, "
                 "one row per head in its colour; a bar's height is the weight, on one scale "
                 "for every head (the caption gives the tallest bar's); when a long prompt's "
                 "tokens do not all fit, a first column marked … sums the earliest. Ask "
                 "which head looks at the previous token and which spreads out. The coverage "
                 "line says how many of the prompt's words the vocabulary holds whole: a "
                 "prompt from outside the corpus breaks into many short tokens.",
                 m=_name(book, most)),
        (Text("Each model runs its median seed's checkpoint with its weights in eight "
              "bits; measured again on the test texts, its perplexity is "),
         *(run for i, model in enumerate(block.models)
           for run in ((Text("; ") if i else Text("")),
                       book.n(f"trained.results.{model.model}.shipped_perplexity"),
                       Text(" for the "), *_short(book, model.model),
                       Text(" (with its full weights, "), _full(book, model.model),
                       Text(")"))),
         Text(".")),
        "The models and the runtime are files beside index.html (live/models.js, "
        "live/tokenizer.js, lib/onnxruntime-web/); the slide loads them when it is first "
        "shown and needs no network. lecture check proves the figures the slide opens on, "
        "as every other figure of the deck; it cannot prove what a browser computes, so the "
        "badge marks the slide as live.",
    ])
