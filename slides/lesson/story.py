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
        book.say("Welcome the room to the third part of the series. Read the line under the "
                 "title aloud: this worksheet has {h} heads, each {d} coordinates wide, in a "
                 "model {m} wide. The one point for today: several heads read the same tokens, "
                 "each with weights of its own, and every number shown can be checked.",
                 h=book.n("dims.heads"), d=book.n("dims.d_head"), m=book.n("dims.d_model")),
    ])
    section.add("receiver", "Back to our prompt", [
        book.strip(s, focus=(book.last,), blank=True),
        Para(book.say("Which earlier words would help you guess what comes next?")),
        Para(book.say("The final “{r}”, at position {p}, is the receiver: the last token we "
                      "know. The blank has no query yet.", r=book.receiver(), p=book.pos(
                          book.last)), fragment=1),
        _favourites(book),
        Para(book.say("Each arrow points from the word one of our {h} heads will read most.",
                      h=book.n("dims.heads")), fragment=2),
    ], [
        book.say("Read the sentence aloud and ask the room to guess the blank before anything "
                 "else. Then point at the highlighted final “{r}”, at position {p}: it is the "
                 "receiver, the last token we know, and the blank has no query yet. Most "
                 "guesses use two clues, where we are and who is there; keep both in mind.",
                 r=book.receiver(), p=book.pos(book.last)),
        book.say("Reveal the arrows: each head of this worksheet, in its own colour, reads "
                 "most from one earlier word. The rest of the lecture computes those weights; "
                 "for now the arrows only say where each head looks."),
    ])
    return [section.stack()]


def _favourites(book: Book) -> pictures.Picture:
    """The walkthrough sentence with an arrow from each head's favourite source (read from
    its key) into the receiver, in the head's colour and named by the head."""
    s = book.sentence
    words = [book.token(s, j).text for j in range(book.length)]
    clues = [(book.top(s, h), (book.head(h),), 2) for h in book.heads]
    return pictures.clue_arcs(
        words, clues, "The prompt as tokens, the final token the receiver, with one arrow "
        "per head from the word that head reads most", tones=[pictures.head_tone(h)
                                                             for h in book.heads], rise=0.2)


def _example(book: Book, section: Section, name: str, title: str, sentence: str,
             clues: tuple[tuple[str, str], ...], point: str, notes: list[str]) -> None:
    """An illustration slide: the example sentence as tokens whose last is the receiver,
    then each clue in turn, an arrow from its word with a line saying what it gives, then
    the point. ``clues`` holds ``(source word, what the reading retrieves)``; the arrow is
    named by the text before the colon."""
    words = sentence.split()
    readings = [(words.index(source), clue.split(":")[0], step)
                for step, (source, clue) in enumerate(clues, 1)]
    described = "; ".join(f"the {clue.split(':')[0]} arrow from {source} "
                          f"({clue.split(':', 1)[1].strip()})" for source, clue in clues)
    section.add(name, title, [
        pictures.clue_arcs(words, readings, f"The sentence “{sentence} …” as tokens, "
                           f"{words[-1]} the receiver; {described}"),
        Bullets(tuple(Item(book.say(clue), step) for step, (_, clue) in enumerate(clues, 1))),
        Para(book.say(point), fragment=len(clues) + 1),
        Para(book.say("An illustration, not measured attention: the other words still get "
                      "some weight."), style="note"),
    ], notes)


def details(book: Book) -> list[Stack]:
    """Illustrations of why one receiver may want several separate readings."""
    section = Section("details", "details", "Several kinds of detail")
    _example(book, section, "coat", "One word can need several kinds of detail",
             "Mia buttoned her red wool hooded coat",
             (("red", "colour: red"), ("wool", "material: wool"),
              ("hooded", "shape: hooded")),
             "One head can already read several words, but it reads them all with one set "
             "of weights. Do we want the same mixture for every kind of detail?", [
                 "Read the sentence and reveal the three clues one at a time: red, wool, "
                 "hooded. Ask the room whether one mixture of these words can serve colour, "
                 "material and shape at once. Say that this illustrates possible readings; it "
                 "is not attention measured in a trained model.",
             ])
    coat = "Mia buttoned her red wool hooded coat".split()
    section.add("readings", "Separate heads can keep separate readings", [
        pictures.clue_arcs(coat, [(3, "colour head", 1), (4, "material head", 2),
                                  (5, "shape head", 3)],
                           "The coat sentence as tokens, coat the receiver, with one arrow "
                           "per head: a colour head from red, a material head from wool, a "
                           "shape head from hooded"),
        Bullets((
            Item(book.say("a colour head might favour red"), 1),
            Item(book.say("a material head might favour wool"), 2),
            Item(book.say("a shape head might favour hooded"), 3),
        )),
        Para(book.say("Each head receives the same input rows and returns its own weighted "
                      "message. The output projection then combines the messages."),
             fragment=4),
    ], [
        "Reveal the three heads one by one and point at the word each might favour. Stress "
        "that every head sees every row, coat included, and that nobody assigns these jobs. "
        "The point to leave with: what extra heads add is that each one chooses its own "
        "mixture of sources.",
    ])
    _example(book, section, "agreement", "The nearest noun is not always the subject",
             "The dogs near the gate usually",
             (("dogs", "subject: dogs is plural, so “bark” fits and “barks” does not"),
              ("gate", "location: gate says where the dogs are")),
             "Two heads can keep both clues without having to favour the same source.", [
                 "Read the sentence and ask the room: bark or barks? Point at dogs for the "
                 "agreement and at gate for the location, and note that the nearer noun, "
                 "gate, does not decide the verb. Two clues sit at two different sources, so "
                 "two heads can keep both.",
             ])
    _example(book, section, "object-event", "What “It” refers to and what happened are "
             "different clues",
             "She dropped the glass . It",
             (("glass", "reference: what “It” refers to, the glass"),
              ("dropped", "event: what happened to it, dropped")),
             "Together they make “broke” a plausible continuation, not a certain one.", [
                 "Read it with the full stop as a token of its own, so It is the receiver. "
                 "Reveal the two clues, glass and dropped, and ask what comes next: broke is "
                 "plausible, not certain. Add that the heads run side by side; the event "
                 "head does not wait for the reference head.",
             ])
    _example(book, section, "swap-event", "Change the event, keep the object",
             "She washed the glass . It",
             (("glass", "reference: unchanged, the glass"),
              ("washed", "event: now washed, which supports “gleamed” instead")),
             "Separate messages carry the object clue and the event clue side by side.", [
                 "Change one word, dropped becomes washed, and ask the room for a new guess. "
                 "The object clue stays on glass; only the event clue moves. Warn that this "
                 "is a schematic: trained heads overlap, some can be pruned, and more heads "
                 "are a capacity choice to test, not an automatic improvement.",
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
        Para(book.say("The arcs are computed weights of one head built from this "
                      "worksheet's numbers; a later part shows how it is made."), style="note"),
        Formula(r"m = \sum_j \alpha_j\, v_j", fragment=1),
    ], [
        book.say("Point at the arcs: one head, one weight row over the {t} known tokens, each "
                 "arc as wide as its weight. Read the formula aloud: the message is the "
                 "weighted sum of the values. The point to land: the same weights mix every "
                 "coordinate of that single message.", t=book.n("dims.tokens")),
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
        book.say("Point at the lanes, one per head, {h} of them, all flowing into the same "
                 "receiver. Each head has its own {wq}, {wk} and {wv}, so it gets its own "
                 "query, its own weights and its own message. Ask the room: if training never "
                 "names the heads, how could we tell what each one does?",
                 h=book.n("dims.heads"), wq=Math("W_Q"), wk=Math("W_K"), wv=Math("W_V")),
    ])
    section.add("toy", "Why separate weights help: a two-source toy", _toy(book), [
        book.say("Point at the two value rows: invented numbers, not our sentence. Reveal the "
                 "one-head message {m}, then the two heads' results, {x} and {y}. The punch "
                 "line is the last step: one head would need {src} to take weight {p} and "
                 "weight {q} at once, which no single weight row can do.",
                 m=book.listing("toy.one_head"), x=book.n("toy.two_heads[0]"),
                 y=book.n("toy.two_heads[1]"), src=Word(book.ws.lesson.toy.sources[0]),
                 p=book.n("toy.required[0]"), q=book.n("toy.required[1]")),
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
        "Two weight rows over the two sources, each in its head's colour: the first "
        "head's weights, for the first coordinate, then the second head's, for the second",
        fragments=[one if row == 0 else two for row in range(2) for _ in sources],
        legend=[(pictures.head_tone(1), (Text("one head; later the first head, for the "
                                              "first coordinate"),), one),
                (pictures.head_tone(2), (Text("the second head, for the second "
                                              "coordinate"),), two)])
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
            book.say("Point at the widest arc, from {src}, and read its weight aloud: {w}. This "
                     "is the {name} head at the final “{r}”, and every other source still "
                     "gets a thin arc. Remind the room that the head's name says what these "
                     "hand-chosen numbers were built to do, not a job given to a trained head.",
                     src=book.token(s, top), w=book.n(f"{s}.h{h}.weights[{top}]"),
                     name=book.head(h), r=book.receiver()),
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
        "Point at the table row by row: each head's strongest source, its weight and its "
        "message. Same receiver, different weight rows; nothing makes the heads agree, and "
        "none waits for another. Tell the room that the next part opens one head and "
        "computes its message from the parameters.",
    ])
    return [section.stack()]
