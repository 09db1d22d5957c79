"""The opening: the prompt, why one token needs several readings, one head against several."""

from __future__ import annotations

from slides.context import (
    Block,
    Bullets,
    Cell,
    Columns,
    Formula,
    Item,
    Math,
    Para,
    Row,
    Stack,
    Table,
    Text,
    Word,
)
from slides.lesson import pictures
from slides.lesson.kit import Book, Section, Steps

__all__ = ["details", "one_two_heads", "prompt", "readings"]


def prompt(book: Book) -> list[Stack]:
    """Title and the river-bank prompt."""
    s = book.sentence
    section = Section("prompt", "prompt", "The prompt")
    section.add("title", "Multi-head attention, step by step", [
        Para(book.say("Several attention heads read the same context, each with weights of "
                      "its own. Every number on these slides is computed from the worksheet "
                      "and can be checked against it."), style="lead"),
        Para(book.say("This worksheet: {h} heads, each {d} coordinates wide, in a model "
                      "{m} coordinates wide; {n} sentences of {t} tokens.",
                      h=book.n("dims.heads"), d=book.n("dims.d_head"),
                      m=book.n("dims.d_model"), n=book.n("dims.sentences"),
                      t=book.n("dims.tokens"))),
    ], [
        "Part III of the attention series. In Part II one head computed one weighted "
        "message per token; today several heads do it side by side and we combine what "
        "they send.",
        "The worked example uses hand-chosen numbers so every step can be followed by hand. "
        "Trained models appear near the end, and they are a different thing: keep the two "
        "apart.",
    ])
    section.add("receiver", "Back to our prompt", [
        book.strip(s, focus=(book.last,), blank=True),
        Para(book.say("Which earlier words would help you guess what comes next?")),
        Para(book.say("The final “{r}”, at position {p}, is the receiver: the last token we "
                      "know. The blank has no query yet.", r=book.receiver(), p=book.pos(
                          book.last)), fragment=1),
    ], [
        "Let the room guess the next word first. Most people use more than one clue: where "
        "we are, and who is there.",
        "Stress the receiver. The model predicts the next word from the row of the last "
        "known token; the unknown word itself has no row and no query.",
    ])
    return [section.stack()]


def _example(book: Book, section: Section, name: str, title: str, sentence: str,
             clues: tuple[str, ...], point: str, notes: list[str]) -> None:
    """An illustration slide: the example sentence, its clues one by one, then the point."""
    section.add(name, title, [
        Para(book.say(sentence), style="example"),
        Bullets(tuple(Item(book.say(clue), step) for step, clue in enumerate(clues, 1))),
        Para(book.say(point), fragment=len(clues) + 1),
    ], notes)


def details(book: Book) -> list[Stack]:
    """Illustrations of why one receiver may want several separate readings."""
    section = Section("details", "details", "Several kinds of detail")
    _example(book, section, "coat", "One word can need several kinds of detail",
             "Mia buttoned her red wool hooded coat",
             ("colour: red", "material: wool", "shape: hooded"),
             "One head can already read several words, but it reads them all with one set "
             "of weights. Do we want the same mixture for every kind of detail?", [
                 "At the word coat, several earlier words are informative for different "
                 "reasons.",
                 "This is an illustration of possible readings, not attention measured in a "
                 "trained model. A query is a vector of numbers, not an English question, and "
                 "every source also has a key and a value. The highlighted words are "
                 "plausible useful sources; the others are not masked and do not get exactly "
                 "zero weight.",
             ])
    section.add("readings", "Separate heads can keep separate readings", [
        Bullets((
            Item(book.say("a colour head might favour red"), 1),
            Item(book.say("a material head might favour wool"), 2),
            Item(book.say("a shape head might favour hooded"), 3),
        )),
        Para(book.say("Each head receives the same input rows and returns its own weighted "
                      "message. The output projection then combines the messages."),
             fragment=4),
    ], [
        "This is a possible division of work, not jobs that anyone assigns. Every head sees "
        "every row, including coat itself.",
        "A single head can encode several attributes too. What extra heads add is "
        "independent source weighting: each head chooses its own mixture.",
    ])
    _example(book, section, "agreement", "The nearest noun is not always the subject",
             "The dogs near the gate usually ___",
             ("subject clue: dogs is plural, so “bark” fits and “barks” does not",
              "location clue: gate says where the dogs are"),
             "Two heads can keep both clues without having to favour the same source.", [
                 "The receiver is the last known token, usually, not the verb we are about "
                 "to predict. Both useful sources come before the receiver.",
                 "The nearer singular noun, gate, does not decide agreement. These semantic "
                 "roles are illustrations, not measured heads.",
             ])
    _example(book, section, "object-event", "An object and an event are different clues",
             "She dropped the glass . It ___",
             ("one reading retrieves what “It” refers to: glass",
              "another retrieves what happened to it: dropped"),
             "Together they make “broke” a plausible continuation, not a certain one.", [
                 "Here the full stop counts as a token, and It is the receiver. Both useful "
                 "sources are in its known prefix.",
                 "The heads run in parallel: the event head does not wait for the reference "
                 "head's result. Rows from earlier layers can already carry context that "
                 "helps these matches.",
             ])
    _example(book, section, "swap-event", "Change the event, keep the object",
             "She washed the glass . It ___",
             ("the object clue is unchanged: glass",
              "the event clue now supports “sparkled” instead"),
             "Separate messages carry the object clue and the event clue side by side.", [
                 "This is a schematic of useful information, not a promise that a trained "
                 "attention map stays the same after a word is swapped.",
                 "All head projections learn together from the prediction loss. "
                 "Interpretable roles sometimes emerge, but some heads overlap and some can "
                 "be pruned (Voita and colleagues showed this for translation models). More "
                 "heads are a capacity choice to test, not an automatic improvement.",
             ])
    return [section.stack()]


def one_two_heads(book: Book) -> list[Stack]:
    """One head's single message, several heads' messages, and the two-source toy."""
    s = book.sentence
    section = Section("one-two-heads", "one-two-heads", "One head, several heads")
    section.add("one-head", "One head sends one weighted message", [
        pictures.arcs(book, s, [(f"{s}.wide", None, (Text("one head"),))],
                      "One head's attention arcs into the final receiver: a single weight "
                      "row, each arc as wide as its weight", size="strip"),
        Para(book.say("One query, at the final “{r}”, decides how much to read from each of "
                      "the {t} known tokens. The head mixes their values with those weights "
                      "into one message.", r=book.receiver(), t=book.n("dims.tokens"))),
        Formula(r"m = \sum_j \alpha_j\, v_j", fragment=1),
    ], [
        "The prefix ends with the receiver; the blank is what we want to predict and has no "
        "query yet.",
        "The arcs are the weights of one head as wide as the whole model (the wide head we "
        "meet again later): each arc's width is its weight. One head can read several "
        "words and its message can carry several features. But the same weights mix every "
        "coordinate of that message. Calling the query a "
        "question about the setting is a description of a role, not a literal question.",
    ])
    section.add("several-heads", "Several heads send several messages", [
        _lanes(book, "strip"),
        Para(book.say("Same receiver, {h} queries. Each head has its own projections "
                      "{wq}, {wk} and {wv}, its own weights and its own message.",
                      h=book.n("dims.heads"), wq=Math(r"W_Q^{(h)}"),
                      wk=Math(r"W_K^{(h)}"), wv=Math(r"W_V^{(h)}"))),
        Formula(r"q^{(h)} = e\,W_Q^{(h)},\quad k_j^{(h)} = e_j\,W_K^{(h)},\quad "
                r"v_j^{(h)} = e_j\,W_V^{(h)}", fragment=1),
        Para(book.say("All heads read all {t} tokens and run in parallel. We combine their "
                      "messages afterwards.", t=book.n("dims.tokens")), fragment=2),
    ], [
        "A superscript names a head, a subscript names a token. The heads apply their own "
        "matrices to the same input rows, so at this receiver there is one query per head.",
        "Training can discover useful roles, but it does not hand out labels such as "
        "setting or person, and it does not guarantee that heads specialise this way.",
    ])
    section.add("toy", "Why separate weights help: a two-source toy", _toy(book), [
        "A separate toy with invented numbers, not the worksheet sentence. Two sources, two "
        "value coordinates.",
        "One head must use one weight row for both coordinates. Two heads can each pick the "
        "mixture that suits their coordinate. With fixed values, the first source's weight "
        "cannot take both required values at once. This shows why independent weighting "
        "helps; it does not prove that every single-head network fails.",
    ])
    return [section.stack()]


def _lanes(book: Book, size: str) -> pictures.Picture:
    """Every head's arcs at the final receiver, one lane per head in its colour."""
    s = book.sentence
    return pictures.arcs(book, s, [(f"{s}.h{h}", h, (book.head(h),)) for h in book.heads],
                         "Each head's attention arcs into the same receiver, one lane per "
                         "head: each arc as wide as its weight", size=size)


def _toy(book: Book) -> list[Block]:
    sources = book.ws.lesson.toy.sources
    step = Steps()
    values = Table(
        (book.say("first coordinate"), book.say("second coordinate")),
        tuple(Row((Word(name),), tuple(Cell((book.n(f"toy.values[{i}][{c}]"),))
                                      for c in range(2)))
              for i, name in enumerate(sources)),
        corner=book.say("value rows"))
    one = step()
    two = step()
    need = step()
    bars = pictures.weight_bars(
        book, [(Word(name),) for _ in range(2) for name in sources],
        [f"toy.weights[{row}][{i}]" for row in range(2) for i in range(len(sources))],
        [pictures.head_tone(row + 1) for row in range(2) for _ in sources],
        "Two weight rows over the two sources: the first coordinate's and the second's",
        fragments=[one if row == 0 else two for row in range(2) for _ in sources])
    return [
        Columns(((values, bars), (
            Para(book.say("One head, weights {w}: the message is {m}. Both coordinates use "
                          "the same mixture.", w=book.listing("toy.weights[0]"),
                          m=book.listing("toy.one_head")), fragment=one),
            Para(book.say("Two heads: weights {a} for the first coordinate give {x}; "
                          "weights {b} for the second give {y}.",
                          a=book.listing("toy.weights[0]"), x=book.n("toy.two_heads[0]"),
                          b=book.listing("toy.weights[1]"), y=book.n("toy.two_heads[1]")),
                 fragment=two),
            Para(book.say("To reach both with one head, {src} would need weight {p} and "
                          "weight {q} at the same time.", src=Word(sources[0]),
                          p=book.n("toy.required[0]"), q=book.n("toy.required[1]")),
                 fragment=need),
        ))),
    ]


def readings(book: Book) -> list[Stack]:
    """Each head's weights in the full sentence, then all readings together."""
    s = book.sentence
    section = Section("readings", "readings", "Readings in the full sentence")
    for h in book.heads:
        top = book.top(s, h)
        section.add(f"h{h}", book.say("Head {n}, the {name} head, in the full sentence",
                                      n=book.number(h), name=book.head(h)), [
            pictures.arcs(book, s, [(f"{s}.h{h}", h, (book.head(h),))],
                          "This head's attention arcs into the final receiver, each as wide "
                          "as its weight", numbers=True),
            Para(book.say("At the final “{r}”, the {name} head gives {src} the weight {w}: "
                          "its values carry this head's information to the receiver.",
                          r=book.receiver(), name=book.head(h), src=book.token(s, top),
                          w=book.n(f"{s}.h{h}.weights[{top}]")), fragment=1),
        ], [
            "These are hand-chosen parameters applied to the exact input rows of Part II. "
            "The head's name describes what this example was built to show, not a job "
            "assigned to a trained head.",
            "Arc widths are the computed attention weights of this head at the receiver, "
            "written under each source; every source gets some weight.",
        ])
    rows = tuple(
        Row((book.head(h),), (
            Cell((book.token(s, book.top(s, h)),)),
            Cell((book.n(f"{s}.h{h}.weights[{book.top(s, h)}]"),)),
            Cell(book.listing(f"{s}.h{h}.message")),
        ), fragment=h)
        for h in book.heads)
    section.add("all", "Keep every reading", [
        _lanes(book, "strip"),
        Table((book.say("strongest source"), book.say("its weight"), book.say("message")),
              rows, corner=book.say("head")),
        Para(book.say("The heads keep different mixtures at the same token. They run side "
                      "by side, not one after another."), fragment=len(rows) + 1),
    ], [
        "Same sentence, same receiver, different weight rows. Nothing forces the heads to "
        "agree, and nothing makes one wait for another.",
        "Next we open one head and compute its message from the parameters.",
    ])
    return [section.stack()]
