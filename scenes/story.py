"""The opening story: the prompt, kinds of detail, one head against two, two readings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    AnimationGroup,
    Arrow,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
    Write,
)

from scenes.kit import (
    INK,
    MUTED,
    Bound,
    LectureScene,
    cued,
    fade_in,
    fade_out,
    fit,
    grow,
    on_baseline,
    shown_indices,
    vector,
)
from scenes.kit.palette import FAINT

ILLUSTRATION_SIZE = 30
ROLE_SIZE = 22
GLOSSARY = (("query", "what the receiving word looks for"),
            ("key", "what each word offers to be matched"),
            ("value", "what a word sends if it is chosen"))
"""The three roles in plain words, shown the first time the lecture names them."""
GLOSS_SIZE = 22
GLOSS_WIDTH = 4.8
"""The glossary's width once it has moved aside for the arrows."""
GLOSS_RIGHT = 1.9
"""The glossary ends this far left of the centre, clear of the receiver's box."""
GLOSS_TOP = -1.05


class RiverBankPrompt(LectureScene):
    """The walkthrough sentence: its prefix, the receiver, and the unknown next word."""

    def construct(self) -> None:
        name = self.ws.walkthrough
        tokens = self.ws.sentences[name]
        last = len(tokens) - 1
        self.section("prefix")
        heading = self.title("Which earlier words help predict the next one?")
        row = self.token_row(tokens, width=11.5)
        row.add(self.label("___").next_to(row, RIGHT, buff=0.22).align_to(row[0], DOWN))
        row.move_to(UP * 0.6)
        positions = [self.bound("{p}", 18, mono=True, p=f"dims.positions[{j}]")
                     .next_to(row[j], DOWN, buff=0.25) for j in range(len(tokens))]
        self.say("The prefix has {n:known token}, numbered from the first.",
                 Write(heading), FadeIn(row[:-1]), *map(FadeIn, positions),
                 n="dims.tokens")

        self.section("receiver")
        box = self.highlight(row[last], INK)
        note = self.label("receiver", 22).next_to(positions[last], DOWN)
        self.say("The last known token, “{w}” at position {p}, is the receiver:",
                 Create(box), FadeIn(note), words={"w": tokens[last]},
                 p=f"dims.positions[{last}]")
        self.say("it will gather context from every earlier position and itself.",
                 self.point_at(row[:-1]))

        self.section("unknown")
        blank = self.label("next word?", 22).next_to(row[-1], UP, buff=0.45)
        self.say("The blank has no row yet. Everything we compute serves one goal: "
                 "a better guess for that blank.", FadeIn(row[-1]), FadeIn(blank),
                 self.point_at(row[-1]))
        self.wait(0.5)


# ---------------------------------------------------------------------- illustrations


@dataclass(frozen=True)
class Reading:
    """One illustrative head: the source word it might favour and the role it plays."""

    source: int
    role: str


ILLUSTRATION = INK
"""Illustrative heads are drawn neutral: the head colours belong to the worksheet's heads."""


def arc_arrow(start: np.ndarray, end: np.ndarray, lift: float, colour: str,
              width: float = 5.0) -> Arrow:
    """An arrow from ``start`` to ``end`` bowing upward so that its apex is ``lift`` higher."""
    chord = float(np.linalg.norm(end - start))
    angle = -4 * math.atan(2 * lift / chord)
    return Arrow(start, end, buff=0.04, path_arc=angle, color=colour, stroke_width=width,
                 tip_length=0.2, max_tip_length_to_length_ratio=0.5)


class SeveralKindsOfDetail(LectureScene):
    """Illustrations (not measured attention) of why one receiver wants several readings.

    A coat described by colour, material and shape; a plural subject against a nearer
    location; an object against the event that happened to it; and the same object after a
    different event. Each reading appears as the voice names it.
    """

    def construct(self) -> None:
        self.section("coat")
        heading = self.title("One token can need several kinds of detail")
        badge = self.label("illustration: plausible readings, not measured attention", 20,
                           MUTED).next_to(heading, DOWN, buff=0.2)
        coat = self.example(["Mia", "buttoned", "her", "red", "wool", "hooded", "coat"],
                            [Reading(3, "colour"), Reading(4, "material"), Reading(5, "shape")])
        reader = self.label("head: one reader that forms its own weights over the sentence",
                            ROLE_SIZE, MUTED).next_to(coat.receiver, DOWN, buff=0.5).set_x(0)
        self.say("At “coat”, more than one earlier word is useful.", Write(heading),
                 fade_in(badge, coat.words, coat.receiver), Create(coat.box))
        self.say("Each reader of the sentence is called a head: it forms its own weights over "
                 "the words.", fade_in(reader))
        for n, line in enumerate(("One head could favour “red”, for its colour;",
                                  "another “wool”, for its material;",
                                  "a third “hooded”, for its shape.")):
            self.say(line, Create(coat.arrows[n]), fade_in(coat.roles[n]))
        self.say("Every head still sees every word, the coat included.",
                 self.point_at(coat.words))
        self.say("And this is an illustration, not attention measured in a model.",
                 self.point_at(badge))

        self.section("dogs")
        self.play(fade_out(coat, reader), self.unpoint(),
                  self.retitle(heading, "The subject, not the nearest noun"))
        dogs = self.example(["The", "dogs", "near", "the", "gate", "usually"],
                            [Reading(1, "subject"), Reading(4, "location")],
                            "next word: “bark”, not “barks”")
        self.say("At “usually”, the plural subject “dogs” is useful,",
                 fade_in(dogs.words, dogs.receiver), Create(dogs.box), Create(dogs.arrows[0]),
                 fade_in(dogs.roles[0]))
        self.say("and so is the place, “gate”. Separate heads can keep both.",
                 Create(dogs.arrows[1]), fade_in(dogs.roles[1]))
        right, wrong = self.clues(dogs, 1, 4)
        self.say("The verb that follows must agree with “dogs”: “bark”, not “barks”.",
                 fade_in(dogs.hint, right), self.point_at(dogs.words[1]))
        self.say("The nearer noun “gate” is singular: a misleading clue for the verb.",
                 self.unpoint(), Create(wrong.outline), fade_in(wrong.note),
                 dogs.words[4].animate.set_color(MUTED))

        self.section("glass")
        self.play(fade_out(dogs, right, wrong),
                  self.retitle(self._heading, "What “It” refers to, and what happened"))
        event = ["She", "dropped", "the", "glass", ".", "It"]
        glass = self.example(event, [Reading(3, "reference"), Reading(1, "event")],
                             "a plausible next word: “broke”")
        self.say("At “It”, one head can look up what “It” refers to: the glass.",
                 fade_in(glass.words, glass.receiver), Create(glass.box),
                 Create(glass.arrows[0]), fade_in(glass.roles[0]))
        self.say("Another looks up what happened to it: dropped. The two run side by side.",
                 Create(glass.arrows[1]), fade_in(glass.roles[1]))
        self.say("Object plus event make “broke” likely, though never certain.",
                 fade_in(glass.hint))

        self.section("washed")
        washed = self.example([*event[:1], "washed", *event[2:]],
                              [Reading(3, "reference"), Reading(1, "event")],
                              "a plausible next word: “gleamed”")
        self.play(fade_out(glass), fade_in(*(m for m in washed if m is not washed.hint)),
                  self.retitle(self._heading, "Same object, another event"))
        self.say("Keep the glass, change the event: she washed it.",
                 self.point_at(washed.words[1]))
        self.say("The object clue stays;", self.point_at(washed.words[3]))
        self.say("the event clue changes, and now a word like “gleamed” fits better than "
                 "“broke”.", fade_in(washed.hint), self.point_at(washed.hint))
        learned = self.label("trained heads learn their roles from the loss", 22, MUTED)
        learned.next_to(washed.hint, DOWN, buff=0.3)
        self.say("Again, a sketch of useful information, not a measured attention map.",
                 self.point_at(badge))
        self.say("Trained heads learn their roles from the prediction loss alone; some "
                 "overlap, some matter little.", fade_in(learned), self.point_at(learned))

        self.section("worksheet")
        self.play(fade_out(washed, learned), self.unpoint(),
                  self.retitle(self._heading, "Back to our own sentence"))
        self.bridge(badge)

    def example(self, words: Sequence[str], readings: Sequence[Reading],
                hint: str | None = None) -> VGroup:
        """A sentence whose last word is the receiver, with one arc per reading.

        The result has attributes ``words``, ``box``, ``receiver`` (its label), ``arrows``,
        ``roles`` and ``hint``.
        """
        row = on_baseline(VGroup(*(self.label(w, ILLUSTRATION_SIZE) for w in words)), 0.3)
        fit(row.move_to(DOWN * 0.6), 12.5)
        receiver = row[-1]
        box = self.highlight(receiver, MUTED)  # a white outline is what the voice names
        note = self.label("receiver", ROLE_SIZE, MUTED).next_to(box, DOWN, buff=0.15)
        nearest_first = sorted(readings, key=lambda r: -r.source)
        arrows, roles = VGroup(), VGroup()
        for reading in readings:
            rank = nearest_first.index(reading)
            source = row[reading.source]
            start = source.get_top() + UP * 0.12
            end_x = receiver.get_left()[0] + receiver.width * (rank + 1) / (len(readings) + 1)
            end = np.array([end_x, box.get_top()[1] + 0.04, 0.0])
            arrow = arc_arrow(start, end, 0.5 + 1.0 * rank, ILLUSTRATION)
            arrows.add(arrow)
            # Left of the apex, where the wider arcs above are still high.
            role = self.label(f"{reading.role} head", ROLE_SIZE, ILLUSTRATION)
            role.next_to(arrow, UP, buff=0.08)
            role.shift(RIGHT * (arrow.get_center()[0] + 0.15 - role.get_right()[0]))
            roles.add(role)
        group = VGroup(row, box, note, arrows, roles)
        group.words, group.box, group.receiver = row, box, note
        group.arrows, group.roles = arrows, roles
        group.hint = None
        if hint is not None:
            group.hint = self.label(hint, 24, MUTED).next_to(note, DOWN, buff=0.45)
            group.hint.set_x(0)
            group.add(group.hint)
        return group

    def clues(self, example: VGroup, good: int, bad: int) -> tuple[Mobject, VGroup]:
        """Under the words, the clue that decides (named) and the misleading one: a dashed
        muted outline with its own name, so that it never reads as a right clue.

        The misleading clue's result has attributes ``outline`` and ``note``."""
        words = example.words
        right = self.label("agreement clue", ROLE_SIZE - 2, INK)
        right.next_to(words[good], DOWN, buff=0.22)
        outline = DashedVMobject(SurroundingRectangle(words[bad], color=MUTED, buff=0.08,
                                                      stroke_width=3), num_dashes=24)
        note = self.label("misleading", ROLE_SIZE - 2, MUTED)
        note.next_to(outline, DOWN, buff=0.14)
        clear = example.receiver.get_left()[0] - 0.25  # clear of "receiver" beside it
        if note.get_right()[0] > clear:
            note.shift(LEFT * (note.get_right()[0] - clear))
        wrong = VGroup(outline, note)
        wrong.outline, wrong.note = outline, note
        return right, wrong

    def bridge(self, badge: Mobject) -> None:
        """Back to the worksheet's sentence, where every number will be computed."""
        tokens = self.ws.sentences[self.ws.walkthrough]
        row = self.token_row(tokens, width=12).move_to(UP * 0.2)
        facts = self.bound("tokens: {n}     heads: {h}     every weight computed", 24,
                           MUTED, n="dims.tokens", h="dims.heads").next_to(row, DOWN, 0.6)
        self.say("Now back to our own sentence of {n:token}.", fade_out(badge), fade_in(row),
                 n="dims.tokens")
        self.say("From here on nothing is sketched: the worksheet's layer, with {h:head}, "
                 "computes every weight.", fade_in(facts), self.point_at(facts),
                 h="dims.heads")


# ---------------------------------------------------------------------- one head, two heads


NODE_Y = 0.75
"""How far below the centre a reading's receiver stands, with its name and message under it."""


def chip(content: Mobject, colour: str, width: float = 0.0) -> VGroup:
    """A rounded box around ``content``, at least ``width`` wide: a receiver or a message."""
    frame = RoundedRectangle(corner_radius=0.12, width=max(width, content.width + 0.4),
                             height=content.height + 0.3, stroke_color=colour, stroke_width=2)
    frame.move_to(content)
    return VGroup(frame, content)


def landing(receiver: Mobject, count: int) -> list[np.ndarray]:
    """``count`` points spread along the receiver's top edge, left to right, so that
    arrows from a row of sources arrive side by side instead of on one spot."""
    left, right = receiver.get_left()[0] + 0.15, receiver.get_right()[0] - 0.15
    top = receiver.get_top()[1] + 0.06
    return [np.array([left + (right - left) * (i + 0.5) / count, top, 0.0])
            for i in range(count)]


def spread(fan: VGroup, receiver: Mobject) -> VGroup:
    """Land a fan's arrows side by side along the receiver's top edge, each with a tip
    sized and shaded like its shaft, so thin arrows stay thin all the way."""
    for arrow, end in zip(fan, landing(receiver, len(fan)), strict=True):
        start, width = arrow.get_start(), arrow.get_stroke_width()
        opacity = arrow.get_stroke_opacity()
        arrow.pop_tips()
        arrow.put_start_and_end_on(start, end)
        arrow.add_tip(tip_length=0.1 + 0.012 * width, tip_width=0.1 + 0.015 * width)
        arrow.tip.set_fill(opacity=opacity).set_stroke(opacity=opacity)
    return fan


class OneHeadTwoHeads(LectureScene):
    """One head sends the receiver one weighted message; several heads send one each,
    every arrow as wide as its computed weight.

    Then the two-source toy: one shared weight row against a row per head, with the
    first-source weights each coordinate would require.
    """

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        receiver = {"w": self.tokens[self.last]}
        self.section("one head")
        heading = self.title("One head sends one message")
        self.row = self.token_row(self.tokens, width=12.4).move_to(UP * 1.9)
        mark = self.highlight(self.row[self.last], INK)
        (single,) = self.receivers([None])
        self.say("With one head, the final “{w}” reads the sentence just one way.",
                 Write(heading),
                 fade_in(self.row), Create(mark), fade_in(single.node), words=receiver)
        glossary = self.glossary(single.node)
        said = ("A query is what the receiving word looks for; a key is what each word offers "
                "to be matched; a value is what a word sends if it is chosen.")
        self.say(said, cued(said, [
            ("A query", AnimationGroup(fade_in(glossary[0]), self.point_at(
                glossary[0], single.node, each=True))),
            ("a key", AnimationGroup(fade_in(glossary[1]), self.point_at(
                glossary[1], self.row, each=True))),
            ("a value", AnimationGroup(fade_in(glossary[2]), self.point_at(glossary[2])))]))
        # The glossary makes way for the arrows: it moves to the lower left, smaller, and
        # stays there while the one head is on screen.
        aside = glossary.copy()
        fit(aside, GLOSS_WIDTH)
        aside.move_to([0, GLOSS_TOP - aside.height / 2, 0])
        aside.align_to([-GLOSS_RIGHT - GLOSS_WIDTH, 0, 0], LEFT)
        self.say("Its query, matched with every key, gives each known token a weight, drawn as "
                 "the arrow's width: here, the weights of one head built from our worksheet.",
                 LaggedStart(AnimationGroup(self.unpoint(), Transform(glossary, aside),
                                            run_time=0.8),
                             LaggedStart(*map(Create, single.fan), lag_ratio=0.3, run_time=4),
                             lag_ratio=1.0))
        self.say("With those weights it mixes their values into one message.",
                 Create(single.link), fade_in(single.message))
        self.say("That message can hold several features, but all of them were mixed with "
                 "the same weights.", self.point_at(single.message))

        self.section("several heads")
        heads = list(range(1, self.ws.n_heads + 1))
        if len(heads) > 1:
            several = self.receivers(heads)
            self.play(fade_out(single, glossary), self.unpoint(),
                      self.retitle(heading, "Several heads send several messages"))
            self.say("With {h:head}, the same receiver asks {q:query} at once, one per head.",
                     fade_in(*(r.node for r in several)), h="dims.heads", q="dims.heads")
            said = ("Head {h} uses its own keys and weights: its widest arrow comes from "
                    "“{w}”, and it sends its own message.",
                    "Head {h} weighs the same words differently; its widest arrow comes from "
                    "“{w}”.",
                    "Head {h} leans most on “{w}” and sends a third message.",
                    "And head {h} favours “{w}”.")
            for head, reader, template in zip(heads, several, said, strict=False):
                top = self.v.value(f"{self.s}.h{head}.top_source")
                self.say(template,
                         LaggedStart(*map(Create, reader.fan), lag_ratio=0.2, run_time=3),
                         Create(reader.link), fade_in(reader.message),
                         h=f"dims.head_numbers[{head - 1}]", words={"w": self.tokens[top]})
        else:
            several = [single]
            self.play(self.retitle(heading, "This layer has a single head"))
            self.say("This worksheet's layer has a single head, so the receiver gets a "
                     "single message.", self.point_at(single.message))
            self.say("The toy that follows shows what a second head adds.", self.unpoint())

        self.section("toy")
        away = self.unpoint()
        rest = [glossary] if len(heads) == 1 else []
        self.play(fade_out(self._heading, self.row, mark, *several, *rest),
                  *filter(None, [away]))
        self.toy()

    def glossary(self, receiver: Mobject) -> VGroup:
        """Query, key and value in plain words, one line each, between the sentence and the
        receiver, where the arrows will go."""
        lines = VGroup(*(on_baseline(VGroup(self.label(f"{term}:", GLOSS_SIZE),
                                            self.label(meaning, GLOSS_SIZE, MUTED)), 0.2)
                         for term, meaning in GLOSSARY))
        lines.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        middle = (self.row.get_bottom()[1] + receiver.get_top()[1]) / 2
        return fit(lines, 12.0).move_to([0, middle, 0])

    def receivers(self, heads: Sequence[int | None]) -> list[VGroup]:
        """One receiver node per head (``None``: one wide head), fed by a fan whose widths
        are that head's computed weights, with a message chip beneath.

        Each result has attributes ``node``, ``fan``, ``link`` and ``message``.
        """
        spacing = min(3.6, 12.4 / len(heads))
        made = []
        for i, head in enumerate(heads):
            colour = INK if head is None else self.head_colour(head)
            node = chip(self.word(self.tokens[self.last], 24, colour), colour,
                        min(4.0, spacing - 0.4))
            node.move_to([(i - (len(heads) - 1) / 2) * spacing, -0.6, 0])
            if head is None:
                name = self.label("one message", 22)
            else:
                name = self.bound("Head {h}: {role}", 22, colour,
                                  h=f"dims.head_numbers[{head - 1}]",
                                  words={"role": self.ws.lesson.head_names[head - 1]})
            message = chip(name, colour).next_to(node, DOWN, buff=0.5)
            fit(message, spacing - 0.2)
            link = Arrow(node.get_bottom(), message.get_top(), buff=0.06, color=colour,
                         stroke_width=3, max_tip_length_to_length_ratio=0.3)
            weights = f"{self.s}.wide.weights" if head is None else f"{self.s}.h{head}.weights"
            fan = spread(self.fan(list(self.row), node, weights, colour,
                                  max_width=14.0 if head is None else 10.0), node)
            reader = VGroup(fan, node, link, message)
            reader.node, reader.fan, reader.link, reader.message = node, fan, link, message
            made.append(reader)
        return made

    def toy(self) -> None:
        """The two-source toy: shared weights give one mixture, separate heads two."""
        first, second = self.ws.lesson.toy.sources
        names = {"s": first, "t": second}
        heading = self.title("A two-source toy: one weight row or two?")
        values = self.matrix("toy.values", size=24,
                             row_labels=[self.bound("{s}", 24, words={"s": first}),
                                         self.bound("{t}", 24, words={"t": second})],
                             h_buff=1.1, col_labels=[self.label("first", 20, MUTED),
                                                     self.label("second", 20, MUTED)])
        caption = self.label("value rows", 20, MUTED).next_to(values, UP, buff=0.55)
        table = VGroup(values, caption).move_to([-4.2, 1.75, 0])
        self.say("A separate toy with made-up numbers: two sources, “{s}” and “{t}”,",
                 Write(heading), FadeIn(table), words=names)
        rows_y = [values.cells[r][0].get_y() for r in (0, 1)]
        self.bar_left = values.get_right()[0] + 0.9
        self.bar_top = values[-1].get_y()  # the column labels
        self.say("whose value rows have two coordinates each.", self.point_at(values.body))

        v = {f"v{r}{c}": f"toy.values[{r}][{c}]" for r in (0, 1) for c in (0, 1)}
        w = {"a": "toy.weights[0][0]", "b": "toy.weights[0][1]",
             "c": "toy.weights[1][0]", "d": "toy.weights[1][1]"}
        self.section("one mixture")
        one = self.bound("one head:  {a} × [{v00}, {v01}] + {b} × [{v10}, {v11}] = "
                         "[{m0}, {m1}]", 24, INK, m0="toy.one_head[0]", m1="toy.one_head[1]",
                         a=w["a"], b=w["b"], **v)
        lines = VGroup(one)
        self.place(lines)
        shared = self.bar_column(self.label("one head", 20, INK), "toy.weights[0]", MUTED,
                                 INK, rows_y)
        self.say("One head with weights {a} and {b} mixes both coordinates with that same "
                 "pair:", FadeIn(one), fade_in(shared.header), *map(grow, shared.bars),
                 self.unpoint(), a=w["a"], b=w["b"])
        (start, _), (_, end) = one.spans[6], one.spans[7]  # m0 and m1, with their brackets
        result = [glyph for glyph in one.submobjects[start - 1:end + 1] if glyph.has_points()]
        self.say("the result is [{m0}, {m1}].", self.point_at(*result),
                 m0="toy.one_head[0]", m1="toy.one_head[1]")

        self.section("two mixtures")
        two = [self.bound("first head, first coordinate:  {a} × {v00} + {b} × {v10} = {t0}",
                          24, self.head_colour(1), t0="toy.two_heads[0]", a=w["a"],
                          b=w["b"], v00=v["v00"], v10=v["v10"]),
               self.bound("second head, second coordinate:  {c} × {v01} + {d} × {v11} = {t1}",
                          24, self.head_colour(2), t1="toy.two_heads[1]", c=w["c"],
                          d=w["d"], v01=v["v01"], v11=v["v11"])]
        lines.add(*two)
        away = self.unpoint()  # the outline goes before the lines it circles make room
        if away is not None:
            with self.silence("the outline leaves before the lines move"):
                self.play(away, run_time=0.3)
        self.place(lines)
        own = [self.bar_column(self.label(("first head", "second head")[k], 20,
                                          self.head_colour(k + 1)), f"toy.weights[{k}]",
                               self.head_colour(k + 1), self.head_colour(k + 1), rows_y)
               for k in (0, 1)]
        self.say("Two heads can each keep a row of their own: the first gets {t0} from the "
                 "first coordinate;", fade_in(two[0], own[0].header), *map(grow, own[0].bars),
                 t0="toy.two_heads[0]")
        self.say("the second, with weights {c} and {d}, gets {t1} from the second.",
                 fade_in(two[1], own[1].header), *map(grow, own[1].bars),
                 self.point_at(*own[1].bars), t1="toy.two_heads[1]", c=w["c"], d=w["d"])

        self.section("required")
        needs = [self.bound("“{s}” weight needed for {x}:  {r}", 24, self.head_colour(k + 1),
                            words={"s": first}, x=f"toy.two_heads[{k}]", r=f"toy.required[{k}]")
                 for k in (0, 1)]
        required = self.v.value("toy.required")
        clash = required[0] != required[1]
        verdict = self.label("one shared row cannot meet both" if clash
                             else "here one shared row happens to meet both", 24, MUTED)
        lines.add(*needs, verdict)
        self.place(lines)
        self.say("With these values fixed, {x0} needs a “{s}” weight of {r0},",
                 fade_in(needs[0]), self.point_at(needs[0]), words=names,
                 x0="toy.two_heads[0]", r0="toy.required[0]")
        self.say("and {x1} needs {r1}.", fade_in(needs[1]), self.point_at(needs[1]),
                 x1="toy.two_heads[1]", r1="toy.required[1]")
        self.say("A single weight row would have to be both at once." if clash
                 else "Here a single weight row could do both.", fade_in(verdict),
                 self.point_at(verdict))
        self.say("The toy shows what separate weighting buys; it does not prove that one head "
                 "always fails.", self.unpoint())

    def bar_column(self, header: Mobject, key: str, fill: str, ink: str,
                   rows_y: Sequence[float]) -> VGroup:
        """A column of the toy's weight bars, one per source row, set right of the last
        column drawn; attributes ``header`` and ``bars``."""
        bars = [self.weight_bar(f"{key}[{r}]", fill, 22, 0.3, 1.8, ink) for r in (0, 1)]
        for bar, y in zip(bars, rows_y, strict=True):
            bar.shift([self.bar_left - bar.get_left()[0], y - bar.bar.get_y(), 0])
        header.move_to([self.bar_left, self.bar_top, 0], aligned_edge=LEFT)
        column = VGroup(header, *bars)
        column.header, column.bars = header, bars
        self.bar_left = column.get_right()[0] + 0.6
        return column

    @staticmethod
    def place(lines: VGroup) -> None:
        """Stack the toy's lines under its table, left-aligned, within the frame."""
        lines.arrange(DOWN, buff=0.32, aligned_edge=LEFT)
        fit(lines, 13.0, 3.0)
        lines.move_to([0, 0.5 - lines.height / 2, 0])


# ---------------------------------------------------------------------- the two readings


class SettingAndPerson(LectureScene):
    """Each head's reading of the full sentence: arrows whose widths are its weights."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.section("sentence")
        heading = self.title("Each head reads the sentence its own way")
        self.row = self.token_row(self.tokens, width=12.4).move_to(UP * 1.6)
        mark = self.highlight(self.row[self.last], INK)
        cast = VGroup(*(self.bound("Head {h}: {role}", 24, self.head_colour(h),
                                   h=f"dims.head_numbers[{h - 1}]",
                                   words={"role": self.ws.lesson.head_names[h - 1]})
                        for h in range(1, self.ws.n_heads + 1)))
        fit(cast.arrange(RIGHT, buff=0.8).move_to(DOWN * 1.5), 12.4)
        self.say("Back to the full sentence, and its final “{w}”.", Write(heading),
                 fade_in(self.row), Create(mark), words={"w": self.tokens[self.last]})
        self.say("For each head, arrows will run from every source to the final “{w}”, as "
                 "wide as that head's computed weight.",
                 LaggedStart(*map(fade_in, cast), lag_ratio=0.5, run_time=3),
                 words={"w": self.tokens[self.last]})

        panel = cast
        for head in range(1, self.ws.n_heads + 1):
            self.section(f"head {head}")
            self.play(FadeOut(panel), *filter(None, [self.unpoint()]))
            panel = self.reading(head)
        if self.ws.n_heads > 1:
            self.section("side by side")
            self.play(FadeOut(panel), *filter(None, [self.unpoint()]))
            self.side_by_side(heading)

    def reading(self, head: int) -> VGroup:
        """One head's panel: its fan, its top source's weight, its name, and its message
        written as a sum of weighted value rows, the top source's term first."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        top = self.v.value(f"{p}.top_source")
        role = self.ws.lesson.head_names[head - 1]
        node = chip(self.word(self.tokens[self.last], 26, colour), colour, 5.0)
        node.move_to(DOWN * NODE_Y)
        fan = spread(self.fan(list(self.row), node, f"{p}.weights", colour), node)
        weight = self.num(f"{p}.weights[{top}]", 22, colour).next_to(self.row[top], UP, 0.2)
        box = self.highlight(self.row[top], colour)
        name = self.bound("Head {h}: the {role} reading", 24, colour,
                          h=f"dims.head_numbers[{head - 1}]", words={"role": role})
        name.next_to(node, DOWN, buff=0.3)
        total = self.message_sum(head)
        fit(total.next_to(name, DOWN, buff=0.35), 12.4)
        first = head == 1
        self.say("Head {h}, our {role} head: its arrows are drawn from its computed weights."
                 if first else "Now head {h}, the {role} head, with its own weights.",
                 fade_in(node, name), LaggedStart(*map(Create, fan), lag_ratio=0.08),
                 words={"role": role}, h=f"dims.head_numbers[{head - 1}]")
        self.say("Its largest weight goes to “{w}”: {x}." if first else
                 "This time “{w}” gets the widest arrow, {x}.", Create(box), fade_in(weight),
                 words={"w": self.tokens[top]}, x=f"{p}.weights[{top}]")
        if first:
            self.say("Every other arrow is thinner, but none is missing.",
                     self.point_at(self.row))
        width = len(self.v.value(f"{p}.message"))
        inner, keys = vector("m", f"{p}.message", width)
        if first:
            self.say("Its message adds up every source's value row, each times its weight.",
                     fade_in(total), self.point_at(total))
            said = "The heaviest weight, {x}, scales “{w}”'s value row; with every other " \
                "term it makes the message, " + inner + "."
            cues = [("{x}", self.point_at(total.term, self.row[top], each=True)),
                    (inner, self.point_at(total.result))]
            self.say(said, cued(said, cues), words={"w": self.tokens[top]},
                     x=f"{p}.weights[{top}]", **keys)
        else:
            said = "Its message, " + inner + ", gives the heaviest weight, {x}, to “{w}”'s " \
                "value row."
            cues = [(inner, self.point_at(total.result)),
                    ("{x}", self.point_at(total.term, self.row[top], each=True))]
            self.say(said, fade_in(total), cued(said, cues), words={"w": self.tokens[top]},
                     x=f"{p}.weights[{top}]", **keys)
        return VGroup(fan, node, name, box, weight, total)

    def message_sum(self, head: int) -> Bound:
        """``message = weight × value row + … = message`` for a head, the term of the source
        it weighs most written out; attributes ``term`` and ``result`` (their glyphs)."""
        p, top = f"{self.s}.h{head}", self.v.value(f"{self.s}.h{head}.top_source")
        width = len(self.v.value(f"{p}.message"))
        value, v_keys = vector("v", f"{p}.V[{top}]", width)
        message, m_keys = vector("m", f"{p}.message", width)
        total = self.bound("message = {x} × " + value + " + … = " + message, 22, INK,
                           mono=True, x=f"{p}.weights[{top}]", **v_keys, **m_keys)
        colour = self.head_colour(head)
        for index in (0, *range(len(v_keys) + 1, len(total.figures))):
            if not total.figures[index][1].startswith("−"):  # negatives keep their colour
                for glyph in total.figure_glyphs(index):
                    glyph.set_fill(colour)  # the weight and the message, in the head's colour
        total.term = total.figures_span(0, len(v_keys), after=1)
        total.result = total.figures_span(len(v_keys) + 1, len(total.figures) - 1, 1, 1)
        return total

    def side_by_side(self, heading: Mobject) -> None:
        """All heads at once, each with its own fan and receiver copy, and each head's
        message under its name."""
        n = self.ws.n_heads
        messages = VGroup(*(self.vec(f"{self.s}.h{head}.message", 20, self.head_colour(head))
                            for head in range(1, n + 1)))
        spacing = min(max(3.6, max(m.width for m in messages) + 0.4), 12.4 / n)
        group = VGroup()
        for head, message in zip(range(1, n + 1), messages, strict=True):
            colour = self.head_colour(head)
            node = chip(self.word(self.tokens[self.last], 24, colour), colour, spacing - 0.4)
            node.move_to([(head - 1 - (n - 1) / 2) * spacing, -NODE_Y, 0])
            name = self.bound("Head {h}: {role}", 22, colour,
                              h=f"dims.head_numbers[{head - 1}]",
                              words={"role": self.ws.lesson.head_names[head - 1]})
            fit(name.next_to(node, DOWN, buff=0.3), spacing - 0.2)
            fan = self.fan(list(self.row), node, f"{self.s}.h{head}.weights", colour,
                           max_width=10.0)
            group.add(VGroup(spread(fan, node), node, name))
            fit(message.next_to(name, DOWN, buff=0.3), spacing - 0.2)
        note = self.label("hand-chosen numbers, not a trained model", 22, MUTED)
        note.next_to(heading, DOWN, buff=0.25)
        self.say("All the heads read at once, from the same input rows.",
                 self.retitle(heading, "Reading with {h:all head} at once", h="dims.heads"),
                 LaggedStart(*map(fade_in, group), lag_ratio=0.4))
        self.say("So the final “{w}” receives {n:message}, one from each head, each mixed "
                 "with that head's own weights.",
                 LaggedStart(*map(fade_in, messages), lag_ratio=0.4),
                 self.point_at(*messages, each=True), n="dims.heads",
                 words={"w": self.tokens[self.last]})
        self.say("These are our hand-chosen numbers;", fade_in(note), self.point_at(note))
        self.say("the role names describe what we built them to do, not jobs a trained model "
                 "is given.", self.point_at(*(reader[2] for reader in group)))


# ---------------------------------------------------------------------- the Maya recall


def shown_sources(tops: Sequence[int], last: int, wanted: int = 3) -> list[int]:
    """A few source positions worth showing, in sentence order: the heads' favourite
    sources and the receiver itself, topped up from the start of the sentence."""
    picked = list(dict.fromkeys([*tops, last]))[:wanted]
    for position in range(last + 1):
        if len(picked) >= min(wanted, last + 1):
            break
        if position not in picked:
            picked.append(position)
    return sorted(picked)


@dataclass
class SourceRow:
    """One source in the recall: its word, key, match, score, weight, value and arrow."""

    j: int
    word: Mobject
    key: Mobject
    match: Mobject
    score: Mobject
    weight: Mobject
    value: Mobject
    arrow: Mobject


class MayaRecall(LectureScene):
    """Part II's query, key and value, first in words (Maya), then in the river-bank
    numbers: one head's query for the final token meets a few keys, the matches become
    weights, and the weights mix the values into the message."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.p = f"{self.s}.h1"
        self.colour = self.head_colour(1)
        self.section("in words")
        heading = self.in_words(self.title("Recall: query, key and value"))

        self.section("query")
        top = self.v.value(f"{self.p}.top_source")
        tops = [top] + ([self.v.value(f"{self.s}.h2.top_source")] if self.ws.n_heads > 1 else [])
        self.layout(shown_sources(tops, self.last), top)
        query, q_keys = vector("q", f"{self.p}.Q[{self.last}]", self.ws.d_head)
        retitled = self.retitle(heading, "The same roles in numbers: head {h}",
                                h="dims.head_numbers[0]")
        self.say("Now our numbers, head {h}: the final “{w}” makes the query " + query + ".",
                 retitled, fade_in(self.receiver), self.point_at(self.query),
                 h="dims.head_numbers[0]", words={"w": self.tokens[self.last]}, **q_keys)

        self.section("keys")
        favourite = next(r for r in self.rows if r.j == top)
        others = [r for r in self.rows if r is not favourite]
        with self.silence("the keys come in"):
            self.play(fade_in(self.note, self.table_headers,
                              *(VGroup(r.word, r.key) for r in self.rows)), self.unpoint(),
                      run_time=0.8)
        self.say("For “{w}”, multiply query and key coordinate by coordinate, then add: {d}.",
                 fade_in(self.work[0], favourite.match),
                 self.point_at(self.query, favourite.key, each=True),
                 words={"w": self.tokens[top]}, d=f"{self.p}.dots[{top}]")
        self.say("The other keys likewise.", fade_in(*(r.match for r in others)),
                 self.point_at(*(r.match for r in others), each=True))

        self.section("scores")
        self.say("Divided by √{dk}, which is {r}, “{w}” scores {s}.", fade_in(self.work[1]),
                 *(ReplacementTransform(r.match, r.score) for r in self.rows),
                 ReplacementTransform(self.headers[2], self.headers[3]),
                 self.point_at(favourite.score), words={"w": self.tokens[top]},
                 dk="dims.d_head", r="dims.sqrt_d_head", s=f"{self.p}.scores[{top}]")

        self.section("softmax")
        self.say("Softmax: the exponential of {s} is {e}; all {n} exponentials sum to {t}.",
                 fade_in(self.work[2]), self.point_at(self.work[2]),
                 s=f"{self.p}.scores[{top}]", e=f"{self.p}.exps[{top}]", n="dims.tokens",
                 t=f"{self.p}.denominator")
        self.say("So the weight is {e} ÷ {t} = {x}.", fade_in(self.work[3]),
                 *(ReplacementTransform(r.score, r.weight) for r in self.rows),
                 ReplacementTransform(self.headers[3], self.headers[4]),
                 self.point_at(self.work[3], favourite.weight, each=True),
                 e=f"{self.p}.exps[{top}]", t=f"{self.p}.denominator",
                 x=f"{self.p}.weights[{top}]")
        self.say("Drawn as arrow widths: “{w}” gets the most, {x}.",
                 LaggedStart(*(Create(r.arrow) for r in self.rows), lag_ratio=0.3),
                 self.point_at(favourite.word, favourite.weight),
                 words={"w": self.tokens[top]}, x=f"{self.p}.weights[{top}]")

        self.section("values")
        self.values_apart()

        self.section("message")
        message, m_keys = vector("m", f"{self.p}.message", self.ws.d_head)
        self.say("Weighted and added over all {n}, the values give the message " + message
                 + ".", fade_out(*self.projections), fade_in(self.message),
                 self.point_at(self.message), n="dims.tokens", **m_keys)

    def values_apart(self) -> None:
        """The values come in; where the hand-chosen W_V has W_K's entries (so each value
        equals its key) both matrices are shown side by side and the voice says so; either
        way, what sets the two roles apart."""
        p = "params.h1"
        same = self.v.value(f"{p}.W_V") == self.v.value(f"{p}.W_K")
        values = [r.value for r in self.rows]
        self.projections = []
        if same:
            pair = VGroup(*(VGroup(self.label(name, 22), self.matrix(f"{p}.{name}", size=20,
                                                                     v_buff=0.1))
                            .arrange(RIGHT, buff=0.2) for name in ("W_K", "W_V")))
            pair.arrange(RIGHT, buff=0.7)
            note = self.label("same entries, chosen by hand", 20, MUTED)
            shown = VGroup(pair, note).arrange(RIGHT, buff=0.5)
            fit(shown, 12.5, 1.6).move_to([0, -1.85, 0])
            self.projections = [shown]
            self.say("Each source also has a value; here W_V has the same entries as W_K, so "
                     "values equal keys.", fade_out(*self.work),
                     LaggedStart(*(fade_in(v) for v in values), lag_ratio=0.3),
                     fade_in(shown), self.point_at(*values, pair, each=True))
        else:
            self.say("Each source also has a value, made by its own matrix W_V.",
                     fade_out(*self.work),
                     LaggedStart(*(fade_in(v) for v in values), lag_ratio=0.3),
                     self.point_at(*values))
        self.say("They stay separate parameters: keys decide the match, values carry what is "
                 "mixed.", self.point_at(*(r.key for r in self.rows), *values, each=True))

    def in_words(self, heading: Mobject) -> Mobject:
        """Part II's verbal example: She's query asks for a person, Maya's key matches,
        Maya's value carries details. No numbers: the real vectors hold them."""
        badge = self.label("Part II's example, in words; real vectors hold numbers", 20,
                           MUTED).next_to(heading, DOWN, buff=0.2)
        maya, she = (chip(self.label(w, 30), INK) for w in ("Maya", "She"))
        maya.move_to(LEFT * 3.6 + UP * 1.1)
        she.move_to(RIGHT * 3.6 + UP * 1.1)
        query = self.card("query", "looking for: a person").next_to(she, DOWN, buff=0.35)
        key = self.card("key", "can be found as: a person").next_to(maya, DOWN, buff=0.35)
        value = self.card("value", "passes on: details about Maya")
        value.next_to(key, DOWN, buff=0.3)
        match = Arrow(query.get_left(), key.get_right(), buff=0.15, color=INK,
                      stroke_width=4, max_tip_length_to_length_ratio=0.08)
        note = self.label("good match", 22, MUTED).next_to(match, UP, buff=0.1)
        got = self.card("message", "receives: details about Maya").set_y(value.get_y())
        got.set_x(query.get_x())
        carry = Arrow(value.get_right(), got.get_left(), buff=0.15, color=INK,
                      stroke_width=4, max_tip_length_to_length_ratio=0.08)
        self.say("Recall Part II: at “She”, the query asks for a person.",
                 Write(heading), fade_in(badge, she, query))
        self.say("Maya's key offers one: a good match.",
                 fade_in(maya, key), Create(match), fade_in(note))
        self.say("So Maya's value, details about her, flows to “She”.",
                 fade_in(value), Create(carry),
                 fade_in(got), self.point_at(badge))
        self.play(fade_out(badge, maya, she, query, key, value, match, note, carry, got),
                  self.unpoint())
        return heading

    def card(self, role: str, text: str) -> VGroup:
        """A role name over what it says, in a box: a word picture of one vector."""
        body = VGroup(self.label(role, 24), self.label(text, 20, MUTED)).arrange(DOWN, buff=0.12)
        return chip(body, FAINT, 4.4)

    def layout(self, sources: Sequence[int], top: int) -> None:
        """The receiver with its query on the left; one row per shown source on the right
        (word, key, match then score then weight, value) under column headers; an arrow from
        each source to the receiver, as wide as its weight; under them the worked lines for
        the favourite source ``top``, later the message."""
        p, size = self.p, 22
        node = chip(self.word(self.tokens[self.last], 28), self.colour)
        self.query = self.vec(f"{p}.Q[{self.last}]", size)
        self.receiver = VGroup(node, self.label("query", 20, MUTED), self.query)
        self.receiver.arrange(DOWN, buff=0.2).to_edge(LEFT, buff=0.45)
        ys = [1.5 - 0.95 * i for i in range(len(sources))]
        self.receiver.shift(UP * ((ys[0] + ys[-1]) / 2 - node.get_y()))
        rows = [SourceRow(j, self.bound("“{w}” ({p})", size, words={"w": self.tokens[j]},
                                        p=f"dims.positions[{j}]"),
                          self.vec(f"{p}.K[{j}]", size), self.num(f"{p}.dots[{j}]", size),
                          self.num(f"{p}.scores[{j}]", size),
                          self.num(f"{p}.weights[{j}]", size, self.colour),
                          self.vec(f"{p}.V[{j}]", size), VMobject())
                 for j in sources]
        self.headers = [self.label(text, 20, MUTED) for text in
                        ("source (position)", "key", "q·k", "score", "weight", "value")]
        cells = [[r.word for r in rows], [r.key for r in rows],
                 [m for r in rows for m in (r.match, r.score, r.weight)], [r.value for r in rows]]
        heads = self.headers
        for row, y in zip(rows, ys, strict=True):
            for mob in (row.word, row.key, row.match, row.score, row.weight, row.value):
                mob.set_y(y)
        for header in heads:
            header.set_y(ys[0] + 0.6)
        groups = list(zip(cells, [[heads[0]], [heads[1]], heads[2:5], [heads[5]]], strict=True))
        widths = [max(m.width for m in column + header) for column, header in groups]
        room = 6.75 - self.receiver.get_right()[0]  # wide rows: the arrows get less room
        start = x = self.receiver.get_right()[0] + min(1.8, max(0.9, room - sum(widths)
                                                               - 0.35 * (len(widths) - 1)))
        gap = min(1.3, max(0.35, (6.75 - start - sum(widths)) / (len(widths) - 1)))
        for (column, header), width in zip(groups, widths, strict=True):
            for mob in column + header:
                mob.set_x(x + mob.width / 2)
            x += width + gap
        table = VGroup(*(m for c in cells for m in c), *heads)
        if table.get_right()[0] > 6.75:
            table.scale((6.75 - start) / (table.get_right()[0] - start),
                        about_point=[start, ys[0], 0])
            for header in heads:  # the headers stay legible however far the table shrinks
                if header.font_size < 15.5:
                    header.scale(15.5 / header.font_size)
        self.table_headers = VGroup(heads[0], heads[1], heads[2], heads[5])
        self.work = self.worked(top)
        self.message = self.vec(f"{p}.message", size, template="message = Σ weight × value = {v}")
        self.message.move_to([0, -2.3, 0]).align_to(self.receiver, LEFT)
        self.note = self.bound("a few of the {n:source}", 20, MUTED, n="dims.tokens")
        self.note.next_to(table, DOWN, buff=0.3).align_to(table, RIGHT)
        for i, row in enumerate(rows):
            end = node.get_right() + DOWN * 0.12 * (i - (len(rows) - 1) / 2)
            width = max(1.0, 16.0 * float(self.v.value(f"{p}.weights[{row.j}]")))
            row.arrow = Arrow(row.word.get_left(), end, buff=0.12, color=self.colour,
                              stroke_width=width, max_tip_length_to_length_ratio=0.12)
        self.rows = rows

    def worked(self, j: int) -> list[Mobject]:
        """Source ``j``'s arithmetic in full, a line per step under the table: the dot
        product coordinate by coordinate, the score, the softmax, and its quotient (the
        last written after the softmax's line, as its own step)."""
        p, size = self.p, 20
        factors, products, slots = [], [], {}
        for i in shown_indices(self.ws.d_head):
            if i is None:
                factors.append("…")
                products.append("…")
                continue
            slots |= {f"q{i}": f"{p}.Q[{self.last}][{i}]", f"k{i}": f"{p}.K[{j}][{i}]",
                      f"m{i}": f"{p}.products[{j}][{i}]"}
            factors.append("{" + f"q{i}" + "} × {" + f"k{i}" + "}")
            products.append("{" + f"m{i}" + "}")
        dot = self.bound("q·k = " + " + ".join(factors) + " = " + " + ".join(products)
                         + " = {d}", size, mono=True, d=f"{p}.dots[{j}]", **slots)
        score = self.bound("score = q·k ÷ √{dk} = {d} ÷ {r} = {s}", size, mono=True,
                           dk="dims.d_head", d=f"{p}.dots[{j}]", r="dims.sqrt_d_head",
                           s=f"{p}.scores[{j}]")
        soft = self.bound("weight = exp({s}) ÷ sum of all exps = {e} ÷ {t}", size,
                          mono=True, s=f"{p}.scores[{j}]", e=f"{p}.exps[{j}]",
                          t=f"{p}.denominator")
        lines = VGroup(dot, score, soft).arrange(DOWN, buff=0.22, aligned_edge=LEFT)
        fit(lines, 12.6).move_to([0, -1.95, 0]).align_to(self.receiver, LEFT)
        quotient = self.bound("= {x}", soft.font_size, self.colour, mono=True,
                              x=f"{p}.weights[{j}]").next_to(soft, RIGHT, buff=0.25)
        quotient.set_y(soft.get_y())
        return [dot, score, soft, quotient]
