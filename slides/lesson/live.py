"""The trained models live in the deck: one slide that runs all three in the browser.

The student types a prompt or picks one of the experiment's; every model continues it
greedily and the slide shows each continuation, each model's speed on this device, how
well the tokenizer's vocabulary covers the prompt, and the four-head model's attention
weights at the last position. Nothing on it is a figure of the values: the browser
computes every number (``static/live.js``), from the files :mod:`slides.live` writes
beside the deck. A deck whose experiment ships no models leaves the slide out
(:attr:`~slides.lesson.kit.Book.live`).
"""

from __future__ import annotations

from num2words import num2words

from slides.context import Live, LiveModel, Num, PromptGroup, Runs, Slot, Text
from slides.lesson.kit import Book, Section
from slides.live import LIVE_SCRIPTS, MOST_TOKENS

__all__ = ["PROMPT_GROUPS", "add_live_slide", "live_block"]

PROMPT_GROUPS = (("training", "from the training texts"), ("held-out", "from held-out texts"),
                 ("lesson", "the lesson's sentence"), ("outside", "from outside the corpus"))
"""The experiment's kinds of example prompt, in the order the slide lists them."""

MESSAGES = (
    ("loading", "Loading the models into this browser…"),
    ("ready", "Ready: type a prompt or pick one, then run the models."),
    ("running", "Running…"),
    ("done", ""),
    ("empty", "Type a prompt first."),
    ("failed", "The models could not run in this browser."),
    ("truncated", "The window holds only its end."),
)
"""What the slide's script says while it works, by name (no figure: it says no number)."""


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


def live_block(book: Book) -> Live:
    """The live slide's block for the worksheet's trained models."""
    heads = book.ws.lesson.trained.heads
    most = max(heads)
    models = (LiveModel("mlp", _name(book, "mlp")),
              *(LiveModel(f"heads{h}", _name(book, f"heads{h}"), h) for h in heads))
    return Live(
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
        note=book.say("computed live in your browser"),
        scripts=LIVE_SCRIPTS,
        messages=MESSAGES,
    )


def add_live_slide(book: Book, section: Section) -> None:
    """Append the live slide to the trained comparison's stack, when the deck carries the
    models (:attr:`Book.live`)."""
    if not book.live:
        return
    block = live_block(book)
    most = block.attention
    count = num2words(len(block.models))
    section.add("live", f"Give all {count} models the same prompt", [block], [
        book.say("Everything on this slide is computed now, in this browser, by the very "
                 "models the results came from: the {c}-token window, the tokenizer and each "
                 "model's shipped checkpoint in eight bits, run by ONNX Runtime Web on "
                 "WebAssembly, offline. Type a prompt or pick one, then press the button: each "
                 "model writes its most likely next token, up to {n} of them or until the end "
                 "of a text.", c=book.n("trained.context"), n=Text(num2words(MOST_TOKENS))),
        (Text("Read the table from the top: the fixed-window MLP"),
         *(run for model in block.models[1:] for run in (Text(", then "), *model.name)),
         *book.say(". Tokens per second are this device's: the tokens each model predicted "
                   "divided by the seconds its runs took. Pick a training prompt, then a "
                   "held-out one, then one from outside the corpus (code, German) and ask "
                   "which model copes.")),
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
        "shown and needs no network. lecture check proves every other figure of the deck; "
        "it cannot prove what a browser computes, so this slide marks its figures as live.",
    ])
