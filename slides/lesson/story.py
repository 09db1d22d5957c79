"""The opening: the prompt, why one token needs several readings, one head against several."""

from __future__ import annotations

from slides.context import (
    Block,
    Bullets,
    Columns,
    Formula,
    Inline,
    Item,
    Math,
    Para,
    Stack,
    Text,
)
from slides.lesson import pictures
from slides.lesson.kit import QKV, Book, Section, Steps

__all__ = ["MAYA", "details", "one_two_heads", "prompt", "readings", "recall"]


def prompt(book: Book) -> list[Stack]:
    """Title (what a head is, what the worksheet holds) and the river-bank prompt."""
    section = Section("prompt", "prompt", "The prompt")
    section.add("title", "Multi-head attention, step by step", [
        Para(book.say("Several attention heads read the same sentence, each with weights of "
                      "its own."), style="lead"),
        Para(book.say("A head is one way of reading the context: at each token it weighs "
                      "the tokens so far and sends back one message, a mix of what they "
                      "offer with those weights.")),
        _widths(book),
        Para(book.say("Our worksheet is a small model written out by hand. Each of its {t} "
                      "tokens is a row of {m} numbers, its coordinates; each of its {h} "
                      "sends every token a message only {d} coordinates wide. Every number "
                      "on these slides is computed from it and can be checked.",
                      t=book.n("dims.tokens"), m=book.n("dims.d_model"),
                      h=book.counted("dims.heads", "head", "heads"), d=book.n("dims.d_head"))),
    ], [
        book.say("Welcome the room to the third part of the series. Say what a head is in "
                 "one breath: at each token it weighs the earlier tokens and sends back one "
                 "weighted message. Then point at the picture: the worksheet's {t} token rows, "
                 "{m} numbers each, and every head's messages, one per token, {d} numbers "
                 "each. The one point for today: several heads read the same tokens, each "
                 "with weights of its own, and every number shown can be checked.",
                 t=book.n("dims.tokens"), m=book.n("dims.d_model"), d=book.n("dims.d_head")),
    ])
    section.add("receiver", "Back to our prompt", [
        Para(book.say("Which earlier words would help you guess what comes next?")),
        _favourites(book),
        Para(book.say("The final “{r}”, at position {p}, is the receiver: the last token we "
                      "know. The word to predict comes after it.", r=book.receiver(),
                      p=book.pos(book.last)), fragment=1),
        Para(book.say("Each arrow points from the word one of our {h} will read most, "
                      "in that head's colour.",
                      h=book.counted("dims.heads", "head", "heads")), fragment=2),
    ], [
        book.say("Read the sentence aloud and ask the room to guess the next word before "
                 "anything else. Then point at the outlined final “{r}”, at position {p}: it "
                 "is the receiver, the last token we know. Most guesses use two clues, where "
                 "we are and who is there; keep both in mind.",
                 r=book.receiver(), p=book.pos(book.last)),
        book.say("Reveal the arrows: each head of this worksheet, in its own colour, reads "
                 "most from one earlier word. The rest of the lecture computes those weights; "
                 "for now the arrows only say where each head looks."),
    ])
    return [section.stack()]


MAYA = ("Maya", "reached", "the", "door", ".", "She")
"""Part II's example in words: She's query looks for a person, and Maya offers one."""


def recall(book: Book) -> list[Stack]:
    """Part II's query, key and value, recalled on its own example before the heads use
    them."""
    section = Section("recall", "recall", "Recall: query, key and value")
    section.add("title", "Recall: query, key and value", [
        Para(book.say("In Part II's later-layer example, the query at “She” looked for a "
                      "person. The key at “Maya” matched that request, and Maya's value "
                      "supplied the details.")),
        pictures.clue_arcs(
            MAYA, [(0, "key: a person; value: her details", None)],
            "Part II's example in words: the query at She looks for a person, Maya's key "
            "offers one, and an arrow carries Maya's value to She",
            receiver_name="query: looking for a person", rise=0.25),
        Bullets((
            Item(book.say("query: what a token is looking for"), 1),
            Item(book.say("key: what a token offers to be matched with"), 1),
            Item(book.say("value: what a token sends when it is read"), 1),
        )),
        Para(book.say("Every head has all three. It makes them with three projections: "
                      "three matrices, each turning a token's row into a new row: "
                      "its query, its key or its value."), fragment=2),
    ], [
        "Before we split attention into heads, remind the room of the Maya example from "
        "Part II: the query at She looks for a person, the key at Maya matches it, and "
        "Maya's value supplies the details. The vectors hold numbers, not written "
        "questions.",
        "Reveal the three roles in one line each, then define a projection: a matrix that "
        "turns a token's row into a new row. Three projections keep looking, offering and "
        "sending apart, and every head we meet next has its own three.",
    ])
    return [section.stack()]


def _widths(book: Book) -> pictures.Picture:
    """The worksheet's token rows as a block, then every head's messages, one per token,
    narrower, in the head's colour."""
    steps: list[pictures.Step] = [("shapes.E", "TF", (Text("token rows"),), None)]
    steps += [("shapes.H", "Td", book.say("{name} head's messages", name=book.head(h)), h)
              for h in book.heads]
    return pictures.tensor_steps(
        book, steps, [None] * (len(steps) - 1),
        "The worksheet's token rows as a block, one row per token and one cell per number, "
        "then each head's messages, one per token and narrower, in the head's colour",
        size="short", cell=12.0)


def _favourites(book: Book) -> pictures.Picture:
    """The walkthrough sentence with an arrow from each head's favourite source (read from
    its key) into the receiver, in the head's colour and named by the head; the arrows
    come with the slide's second step."""
    s = book.sentence
    words = [book.token(s, j).text for j in range(book.length)]
    clues = [(book.top(s, h), book.say("{name} head", name=book.head(h)), 2)
             for h in book.heads]
    return pictures.clue_arcs(
        words, clues, "The prompt as tokens, the final token the receiver with the word to "
        "predict after it, and one arrow per head from the word that head reads most",
        receiver_name="receiver, then ___", tones=[pictures.head_tone(h) for h in book.heads],
        rise=0.2)


def _example(book: Book, section: Section, name: str, title: str, sentence: str,
             clues: tuple[tuple[str, str], ...], point: str, notes: list[str],
             after: str = "") -> None:
    """An illustration slide: the example sentence as tokens whose last is the receiver,
    then each clue in turn, an arrow from its word with a line saying what it gives, then
    the point. ``clues`` holds ``(source word, what the reading retrieves)``; the arrow is
    named by the text before the colon. ``after`` names the word to predict, written after
    the receiver."""
    words = sentence.split()
    readings = [(words.index(source), clue.split(":")[0], step)
                for step, (source, clue) in enumerate(clues, 1)]
    described = "; ".join(f"the {clue.split(':')[0]} arrow from {source} "
                          f"({clue.split(':', 1)[1].strip()})" for source, clue in clues)
    section.add(name, title, [
        pictures.clue_arcs(words, readings, f"The sentence “{sentence} …” as tokens, "
                           f"{words[-1]} the receiver; {described}",
                           receiver_name=f"receiver, then “{after}”?" if after else
                           "receiver"),
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
    kinds = ("colour", "material", "shape")
    section.add("readings", "Separate heads can keep separate readings", [
        pictures.clue_arcs(coat, [(3 + k, (*pictures.ordinal_head(k + 1), Text(f": {kind}")),
                                   k + 1) for k, kind in enumerate(kinds)],
                           "The coat sentence as tokens, coat the receiver, with one arrow "
                           "per head, each head in its own colour: a colour head from red, a "
                           "material head from wool, a shape head from hooded",
                           tones=[pictures.head_tone(k + 1) for k in range(len(kinds))]),
        Bullets((
            Item(book.say("a colour head might favour red"), 1),
            Item(book.say("a material head might favour wool"), 2),
            Item(book.say("a shape head might favour hooded"), 3),
        )),
        Para(book.say("Each head reads the same tokens with weights of its own and returns "
                      "its own message. A later step combines the messages."), fragment=4),
    ], [
        "Reveal the three heads one by one, each in its own colour, and point at the word "
        "each might favour. Compare with the slide before, where one head drew all three "
        "arrows with one set of weights. Stress that every head sees every token, coat "
        "included, and that nobody assigns these jobs. The point to leave with: what extra "
        "heads add is that each one chooses its own mixture of sources.",
    ])
    _example(book, section, "agreement", "The nearest noun is not always the subject",
             "The dogs near the gate usually",
             (("dogs", "subject: dogs is plural, so the next word is “bark”, not “barks”"),
              ("gate", "location: gate says where the dogs are")),
             "Two heads can keep both clues without having to favour the same source.", [
                 "Read the sentence and say that the word to predict comes after usually, the "
                 "last word we know. Ask the room: bark or barks? Point at dogs for the "
                 "agreement and at gate for the location, and note that the nearer noun, "
                 "gate, does not decide the verb. Two clues sit at two different sources, so "
                 "two heads can keep both.",
             ], after="bark")
    _example(book, section, "object-event", "What “It” refers to and what happened are "
             "different clues",
             "She dropped the glass . It",
             (("glass", "reference: what “It” refers to, the glass"),
              ("dropped", "event: what happened to it, dropped")),
             "Together they make “broke” a plausible next word, not a certain one.", [
                 "Read it with the full stop as a token of its own, so It is the receiver. "
                 "Reveal the two clues, glass and dropped, and ask what comes next: broke is "
                 "plausible, not certain. Add that the heads run side by side; the event "
                 "head does not wait for the reference head.",
             ], after="broke")
    _example(book, section, "swap-event", "Change the event, keep the reference",
             "She washed the glass . It",
             (("glass", "reference: unchanged, the glass"),
              ("washed", "event: now washed, which supports “gleamed” instead")),
             "Separate messages carry the reference clue and the event clue side by side.", [
                 "Change one word, dropped becomes washed, and ask the room for a new guess. "
                 "The reference clue stays on glass; only the event clue moves. Warn that this "
                 "is a schematic: trained heads overlap, some can be pruned, and more heads "
                 "are a capacity choice to test, not an automatic improvement.",
             ], after="gleamed")
    return [section.stack()]


def one_two_heads(book: Book) -> list[Stack]:
    """Query, key and value; one head's single message, several heads' messages, and the
    two-source toy."""
    s = book.sentence
    section = Section("one-two-heads", "one-two-heads", "One head, several heads")
    section.add("qkv", "Inside a head: query, key and value", [
        pictures.query_key_value(
            book, s, "The prompt as tokens, the receiver outlined; under the receiver its "
            "query, and under every token its key and its value, each a short row of "
            "numbers"),
        Bullets((
            Item(book.say("query: what the receiver is looking for"), 1),
            Item(book.say("key: what each token offers to be matched with"), 2),
            Item(book.say("value: what each token sends if it is read"), 3),
        )),
        Para(book.say("A head compares the receiver's query with every key, its own "
                      "included. The better a key matches, the larger that token's weight; "
                      "the head then sends the values mixed with those weights."),
             fragment=4),
        Para(book.say("Each is a short row of numbers the head computes from the token's "
                      "row, not a word or a question. Every token has all three; we follow "
                      "the receiver's query."), style="note"),
    ], [
        book.say("Define the three roles before we use them. Reveal the query under the "
                 "final “{r}”: what the receiver is looking for. Then a key under every "
                 "token: what it offers to be matched with. Then a value under every token: "
                 "what it sends if it is read.", r=book.receiver()),
        "Then the rule in one sentence: compare the query with every key; a good match gives "
        "a large weight; the message is the values mixed with those weights. Add that these "
        "are rows of numbers computed by the head, and that every token has all three.",
    ])
    top = book.top(s, 1)
    section.add("one-head", "One head sends one weighted message", [
        Para(book.say("Take one head, the {name} head: at the final “{r}” every known token "
                      "gets a weight, drawn as the width of its arc; the small loop over “{r}” "
                      "is its weight for itself. The same weights mix every coordinate of its "
                      "one message.", name=book.head(1), r=book.receiver())),
        pictures.arcs(book, s, [(f"{s}.h1", 1, book.say("{name} head", name=book.head(1)))],
                      "One head's attention arcs into the final receiver, each as wide as "
                      "its weight, the strongest weight written at its source",
                      size="strip", lane=100.0),
        Columns((
            (Formula(r"m = \sum_j \alpha_j\, v_j"),
             Para(book.say("{a}: the weight of token {j}; {v}: its value.",
                           a=Math(r"\alpha_j"), j=Math("j"), v=Math("v_j")))),
            (_message(book, 1),),
        ), fragment=1),
    ], [
        book.say("Point at the arcs of the {name} head: one weight per known token at the "
                 "final “{r}”, each arc as wide as its weight; the widest, {w}, comes from "
                 "{src}. Read the formula aloud: the message is the values weighted and "
                 "added.", name=book.head(1), r=book.receiver(),
                 w=book.n(f"{s}.h1.weights[{top}]"), src=book.token(s, top)),
        book.say("Reveal the message, one bar per coordinate: {m}. The point to land: one "
                 "head, one weight row, one message, and the same weights mix every "
                 "coordinate of it.", m=book.listing(f"{s}.h1.message")),
    ])
    section.add("several-heads", "Several heads send several messages", [
        _lanes(book, "full"),
        Para(book.say("Same receiver, {h}. Each head turns a token's row into its own query, "
                      "key and value:", h=book.counted("dims.heads", "head", "heads"))),
        Formula(QKV, fragment=1),
        Para(book.say("{e}: the receiver's embedding, its row of {m} numbers; {ej}: the "
                      "embedding of token {j}; {h}: the head. {wq}, {wk} and {wv} are "
                      "matrices of shape {s}, learned in training, one set per head.",
                      e=Math("e"), m=book.n("dims.d_model"), ej=Math("e_j"), j=Math("j"),
                      h=Math("(h)"), wq=Math("W_Q"), wk=Math("W_K"), wv=Math("W_V"),
                      s=book.n("shapes.W_Q")), fragment=1),
    ], [
        book.say("Point at the lanes, one per head, {h} of them, all flowing into the same "
                 "receiver; each head's few heaviest arcs are in its colour, the rest faint. "
                 "Each head has its own three matrices, {wq}, {wk} and {wv}, that "
                 "turn a token's row into its query, key and value, so it gets its own "
                 "weights and its own message. Ask the room: if training never names the "
                 "heads, how could we tell what each one does?",
                 h=book.n("dims.heads"), wq=Math("W_Q"), wk=Math("W_K"), wv=Math("W_V")),
    ])
    section.add("toy", "Why separate weights help: a two-source toy", _toy(book), [
        book.say("Say first that these are invented numbers, not our sentence: source A is "
                 "strong in the first coordinate, source B in the second. Reveal one head: "
                 "its one weight row, {a} for A and {b} for B, mixes both coordinates and "
                 "gives {m}; B's strong second coordinate shrinks to {y1}.",
                 a=book.n("toy.weights[0][0]"), b=book.n("toy.weights[0][1]"),
                 m=book.listing("toy.one_head"), y1=book.n("toy.one_head[1]")),
        book.say("Reveal the two heads. Each has its own value weights, so each source "
                 "sends it one coordinate: the first head reads the first coordinates and "
                 "sends {x}, the second reads the second coordinates and, with its own "
                 "weights, sends {y}. The punch line: one head would need A to take weight "
                 "{p} and weight {q} at once. Add the caveat: this shows what separate "
                 "weighting buys, not that one head always fails.",
                 x=book.n("toy.two_heads[0]"), y=book.n("toy.two_heads[1]"),
                 p=book.n("toy.required[0]"), q=book.n("toy.required[1]")),
    ])
    return [section.stack()]


def _message(book: Book, h: int, fragment: int | None = None) -> pictures.Picture:
    """Head ``h``'s message at the receiver, one bar per coordinate in the head's colour,
    each coordinate named by its place (the features are named on a later slide)."""
    s = book.sentence
    return pictures.signed_bars(
        book, pictures.ordinal_names(book.head_width),
        [[f"{s}.h{h}.message[{c}]"] for c in range(book.head_width)], pictures.head_tone(h),
        "The head's message at the final receiver, one bar per coordinate", size="short",
        fragments=[fragment] * book.head_width, span=260.0, after=70.0,
        names=[book.say("message m of the {name} head", name=book.head(h))])


def _lanes(book: Book, size: str) -> pictures.Picture:
    """Every head's arcs at the final receiver, one lane per head in its colour."""
    s = book.sentence
    return pictures.arcs(book, s, [(f"{s}.h{h}", h, (book.head(h),)) for h in book.heads],
                         "Each head's heaviest attention arcs into the same receiver, one "
                         "lane per head: each arc as wide as its weight, the strongest weight "
                         "written at its source, the tokens under every lane", size=size,
                         strongest=STRONGEST, every_lane=True)


STRONGEST = 3
"""How many of each head's heaviest arcs the several-heads picture colours: the lighter ones,
faint, would only crowd the lanes (the slide says so, without the count)."""


SOURCES = ("source A", "source B")
"""The toy's two sources: invented, so named apart from any word of the worksheet."""


def _toy(book: Book) -> list[Block]:
    """The two-source toy as the clip tells it: one head mixes both coordinates with one
    weight row; two heads each have their own values, one coordinate of the sources, and
    their own weight row, so each sends one number."""
    step = Steps()
    one = step()
    heads = [step() for _ in book.values.value("toy.weights")]
    need = step()
    a, b = Text(SOURCES[0]), Text(SOURCES[1])
    return [
        Para(book.say("Invented numbers: {a} is strong in the first coordinate, {b} in the "
                      "second.", a=a, b=b)),
        pictures.toy_bars(book, [(Text(name),) for name in SOURCES],
                          "Bars for the toy, one lane per coordinate: the two sources' "
                          "values; one head's mixture of both coordinates; then the first "
                          "head's one number in the first lane and the second head's in the "
                          "second, each in its colour and named by its weights",
                          [one, *heads]),
        Para(book.say("One head, one weight row for both coordinates: {m}. The second "
                      "coordinate, strong in {b}, shrinks to {y}.",
                      m=book.listing("toy.one_head"), b=b, y=book.n("toy.one_head[1]")),
             fragment=one),
        Para(book.say("Two heads, each with its own values and weights: the first head's "
                      "values are the first coordinates, so it sends {x}; the second's are the "
                      "second, so it sends {z}. Together: {t}.",
                      x=book.n("toy.two_heads[0]"), z=book.n("toy.two_heads[1]"),
                      t=book.listing("toy.two_heads")),
             fragment=heads[-1]),
        Para(book.say("One weight row cannot do both: {a} would need weight {p} and {q} at "
                      "once.", a=a, p=book.n("toy.required[0]"),
                      q=book.n("toy.required[1]")), fragment=need),
    ]


def readings(book: Book) -> list[Stack]:
    """Each head's whole weight row in the full sentence, then every head's message."""
    s = book.sentence
    section = Section("readings", "readings", "Readings in the full sentence")
    for h in book.heads:
        top = book.top(s, h)
        second, third = (int(book.value(f"{s}.h{h}.order[{i}]")) for i in (1, 2))
        section.add(f"h{h}", book.say("Head {n}, the {name} head, in the full sentence",
                                      n=book.number(h), name=book.head(h)), [
            pictures.column_bars(
                book, [(book.token(s, j),) for j in range(book.length)],
                [f"{s}.h{h}.weights[{j}]" for j in range(book.length)], pictures.head_tone(h),
                "This head's weights at the final receiver, one upright bar per source as "
                "tall as its weight, the sources in sentence order"),
            Para(book.say("At the final “{r}”, the {name} head gives {src} the weight {w} "
                          "and {next} the next largest, {v}. No other token gets more than "
                          "{u}, and all the weights add up to one.", r=book.receiver(),
                          name=book.head(h), src=book.token(s, top),
                          w=book.n(f"{s}.h{h}.weights[{top}]"),
                          next=book.token(s, second), v=book.n(f"{s}.h{h}.weights[{second}]"),
                          u=book.n(f"{s}.h{h}.weights[{third}]"))),
            Para(book.say("Its message is every token's value mixed with these weights, so "
                          "{src}'s value counts most.", src=book.token(s, top)), fragment=1),
        ], [
            book.say("Point at the tallest bar, {src}, and read its weight aloud: {w}. This "
                     "is the {name} head's whole weight row at the final “{r}”: the next bar "
                     "is lower, the rest lower still, and the bars add up to one. Remind the "
                     "room that the head's name says what these hand-chosen numbers were "
                     "built to do, not a job given to a trained head.",
                     src=book.token(s, top), w=book.n(f"{s}.h{h}.weights[{top}]"),
                     name=book.head(h), r=book.receiver()),
        ])
    features: list[Inline] = []
    for c in range(book.width):
        features += [book.feature(c), Text(", " if c < book.width - 2 else
                                           " and " if c == book.width - 2 else "")]
    glue = "glue" in book.ws.lesson.features
    section.add("all", "Keep every reading", [
        Para(book.say("Each of the {m} coordinates of a token's row stands for one feature "
                      "we invented for teaching: {f}." + (
                          " Glue marks small function words such as “{r}”." if glue else
                          "") + " A head's values copy some of them.",
                      m=book.n("dims.d_model"), f=tuple(features), r=book.receiver()),
             style="note"),
        _messages(book),
        Para(book.say("The heads keep different messages at the same token, one bar per "
                      "coordinate, named by the head and the feature its value copies. A bar "
                      "pointing left, in red, is negative."), fragment=book.ws.n_heads),
        *_elsewhere(book, book.ws.n_heads + 1),
    ], [
        "Reveal the heads' messages one by one: one bar per coordinate, named by the head "
        "and by the feature the head's values copy. Each head brings its own kind of "
        "information to the same receiver. Nothing makes the heads agree, and none waits "
        "for another.",
        "Then the last line: a message is a weighted sum over every source, so a coordinate "
        "can be large even where the strongest source brings little. Tell the room that the "
        "next part opens one head and computes its message from the parameters.",
    ])
    return [section.stack()]


def _elsewhere(book: Book, fragment: int) -> tuple[Para, ...]:
    """Where a coordinate of a message comes from when its strongest source brings least
    of it: among the positive coordinates to which the head's strongest source brings no
    negative part, the one where that part is the smallest share, said with the part and
    the whole coordinate; nothing when there is none."""
    s = book.sentence

    def part(h: int, c: int) -> float:
        return float(book.value(f"{s}.h{h}.contributions[{book.top(s, h)}][{c}]"))

    def whole(h: int, c: int) -> float:
        return float(book.value(f"{s}.h{h}.message[{c}]"))

    found = [(h, c) for h in book.heads for c in range(book.head_width)
             if whole(h, c) > 0 and part(h, c) >= 0]
    if not found:
        return ()
    h, c = min(found, key=lambda hc: part(*hc) / whole(*hc))
    top = book.top(s, h)
    return (Para(book.say(
        "A message mixes every source: the {name} head's {f} coordinate is {m}, yet "
        "“{src}”, its strongest source, brings only {p} of it. The rest comes from the "
        "other sources, each read a little.", name=book.head(h),
        f=pictures.coordinate_names(book, h)[c], m=book.n(f"{s}.h{h}.message[{c}]"),
        src=book.token(s, top), p=book.n(f"{s}.h{h}.contributions[{top}][{c}]")),
        fragment=fragment),)


def _messages(book: Book) -> pictures.Picture:
    """Every head's message at the receiver, one bar per coordinate in the head's colour,
    each named by the head and the feature its values copy; revealed with the head's row
    of the table."""
    s = book.sentence
    labels, keys, heads = [], [], []
    for h in book.heads:
        for c, name in enumerate(pictures.coordinate_names(book, h, "V")):
            labels.append(book.say("{head} head, {name}", head=book.head(h), name=name))
            keys.append([f"{s}.h{h}.message[{c}]"])
            heads.append(h)
    return pictures.signed_bars(
        book, labels, keys, "neutral", "Each head's message at the final receiver, one bar "
        "per coordinate in the head's colour, named by the head and the feature it copies",
        size="short", fragments=heads, row_tones=[pictures.head_tone(h) for h in heads])
