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
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    LaggedStart,
    Mobject,
    ReplacementTransform,
    RoundedRectangle,
    VGroup,
    VMobject,
    Write,
)

from scenes.kit import INK, MUTED, LectureScene, fade_in, fade_out, fit, on_baseline, vector
from scenes.palette import FAINT

ILLUSTRATION_SIZE = 30
ROLE_SIZE = 22


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
        self.say("The prefix has {n} known tokens, numbered from the first.",
                 Write(heading), FadeIn(row[:-1]), *map(FadeIn, positions),
                 n="dims.tokens")

        self.section("receiver")
        box = self.highlight(row[last], self.head_colour(1))
        note = self.label("receiver", 22, self.head_colour(1)).next_to(positions[last], DOWN)
        self.say("The last known token, “{w}” at position {p}, is the receiver: "
                 "it will gather context from every earlier position and itself.",
                 Create(box), FadeIn(note), words={"w": tokens[last]},
                 p=f"dims.positions[{last}]")

        self.section("unknown")
        blank = self.label("next word?", 22).next_to(row[-1], UP, buff=0.45)
        self.say("The blank has no row yet. Everything we compute serves one goal: "
                 "a better guess for that blank.", FadeIn(row[-1]), FadeIn(blank))
        self.wait(0.5)


# ---------------------------------------------------------------------- illustrations


@dataclass(frozen=True)
class Reading:
    """One illustrative head: the source word it might favour and the role it plays."""

    source: int
    role: str
    colour: str


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
    different event.
    """

    def construct(self) -> None:
        colour, material, shape = (self.head_colour(h) for h in (1, 2, 3))
        self.section("coat")
        heading = self.title("One token can need several kinds of detail")
        badge = self.label("illustration: plausible readings, not measured attention", 20,
                           MUTED).next_to(heading, DOWN, buff=0.2)
        coat = self.example(["Mia", "buttoned", "her", "red", "wool", "hooded", "coat"],
                            [Reading(3, "colour", colour), Reading(4, "material", material),
                             Reading(5, "shape", shape)])
        self.say("At “coat”, more than one earlier word is useful: one tells its colour, "
                 "one its material, one its shape. This is an illustration, not attention "
                 "measured in a model.", Write(heading), FadeIn(badge), FadeIn(coat.words),
                 Create(coat.box), FadeIn(coat.receiver))
        self.say("Picture three heads, each free to favour a different word: red, wool, "
                 "hooded. Every head still sees every word, the coat included.",
                 LaggedStart(*(FadeIn(VGroup(a, r)) for a, r in zip(coat.arrows, coat.roles,
                                                                     strict=True)),
                             lag_ratio=0.5))

        self.section("dogs")
        self.play(FadeOut(coat))
        dogs = self.example(["The", "dogs", "near", "the", "gate", "usually"],
                            [Reading(1, "subject", colour), Reading(4, "location", material)],
                            "next word: “bark”, not “barks”")
        self.say("At “usually”, the plural subject “dogs” and the place “gate” are both "
                 "useful, and they sit in different spots. In this illustration, separate "
                 "heads keep both.", FadeIn(dogs.words), Create(dogs.box),
                 FadeIn(dogs.receiver), *map(FadeIn, dogs.arrows), *map(FadeIn, dogs.roles))
        self.say("The verb that follows must agree with “dogs”, so “bark” fits; the nearer "
                 "singular “gate” does not decide it.", FadeIn(dogs.hint))

        self.section("glass")
        self.play(FadeOut(dogs))
        event = ["She", "dropped", "the", "glass", ".", "It"]
        glass = self.example(event, [Reading(3, "reference", colour),
                                     Reading(1, "event", shape)],
                             "a plausible next word: “broke”")
        self.say("At “It”, one illustrative head looks up what “It” refers to, the glass; "
                 "another looks up what happened to it, dropped. The two run side by side.",
                 FadeIn(glass.words), Create(glass.box), FadeIn(glass.receiver),
                 *map(FadeIn, glass.arrows), *map(FadeIn, glass.roles))
        self.say("Object plus event make “broke” likely, though never certain.",
                 FadeIn(glass.hint))

        self.section("washed")
        washed = self.example([*event[:1], "washed", *event[2:]],
                              [Reading(3, "reference", colour), Reading(1, "event", shape)],
                              "a plausible next word: “sparkled”")
        changed = self.highlight(washed.words[1], shape)
        self.play(FadeOut(glass))
        self.say("Keep the glass, change the event. After “washed”, a word like “sparkled” "
                 "fits better than “broke”: the object clue stays, the event clue changes.",
                 FadeIn(washed), Create(changed))
        self.say("Again a sketch of useful information, not a measured attention map. "
                 "Trained heads learn their roles from the prediction loss alone; some "
                 "overlap, some matter little.")

        self.section("worksheet")
        self.play(FadeOut(washed), FadeOut(changed))
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
        box = self.highlight(receiver, INK)
        note = self.label("receiver", ROLE_SIZE, MUTED).next_to(box, DOWN, buff=0.15)
        nearest_first = sorted(readings, key=lambda r: -r.source)
        arrows, roles = VGroup(), VGroup()
        for rank, reading in enumerate(nearest_first):
            source = row[reading.source]
            start = source.get_top() + UP * 0.12
            end_x = receiver.get_left()[0] + receiver.width * (rank + 1) / (len(readings) + 1)
            end = np.array([end_x, box.get_top()[1] + 0.04, 0.0])
            arrow = arc_arrow(start, end, 0.5 + 0.95 * rank, reading.colour)
            arrows.add(arrow)
            # Left of the apex, where the wider arcs above are still high.
            role = self.label(f"{reading.role} head", ROLE_SIZE, reading.colour)
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

    def bridge(self, badge: Mobject) -> None:
        """Back to the worksheet's sentence, where every number will be computed."""
        tokens = self.ws.sentences[self.ws.walkthrough]
        row = self.token_row(tokens, width=12).move_to(UP * 0.2)
        facts = self.bound("tokens: {n}     heads: {h}     every weight computed", 24,
                           MUTED, n="dims.tokens", h="dims.heads").next_to(row, DOWN, 0.6)
        self.say("Now back to our own sentence. From here on nothing is sketched: the "
                 "worksheet's layer, with head count {h}, computes every weight over these "
                 "{n} tokens.", FadeOut(badge), FadeIn(row), FadeIn(facts),
                 h="dims.heads", n="dims.tokens")


# ---------------------------------------------------------------------- one head, two heads


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


def schematic_fan(sources: Sequence[Mobject], receiver: Mobject, colour: str) -> VGroup:
    """Thin arrows of equal width from every source to the receiver: who can read whom."""
    return VGroup(*(Arrow(s.get_bottom(), end, buff=0.08, stroke_width=2, color=colour,
                          stroke_opacity=0.6, tip_length=0.12,
                          max_tip_length_to_length_ratio=0.08)
                    for s, end in zip(sources, landing(receiver, len(sources)), strict=True)))


class OneHeadTwoHeads(LectureScene):
    """One head sends the receiver one weighted message; several heads send one each.

    Then the two-source toy: one shared weight row against a row per head, with the
    first-source weights each coordinate would require.
    """

    def construct(self) -> None:
        name = self.ws.walkthrough
        self.tokens = self.ws.sentences[name]
        self.last = len(self.tokens) - 1
        receiver = {"w": self.tokens[self.last]}
        self.section("one head")
        heading = self.title("One head sends one message")
        self.row = self.token_row(self.tokens, width=12.4).move_to(UP * 1.9)
        mark = self.highlight(self.row[self.last], INK)
        single = self.receivers([None])
        self.say("With one head, the final “{w}” forms a single query. It gives each of the "
                 "{n} known tokens a weight and mixes their values into one message.",
                 Write(heading), FadeIn(self.row), Create(mark), FadeIn(single),
                 words=receiver, n="dims.tokens")
        self.say("That message can hold several features, but all of them were mixed with "
                 "the same weights.")

        self.section("several heads")
        heads = list(range(1, self.ws.n_heads + 1))
        several = self.receivers(heads)
        retitled = self.title("Several heads send several messages" if len(heads) > 1
                              else "This layer has a single head")
        self.play(FadeOut(single), FadeOut(heading), FadeIn(retitled))
        heading = retitled
        if len(heads) > 1:
            self.say("With {h} heads, the same receiver asks {q} queries at once. Each head "
                     "has its own keys, values and weights, and sends its own message.",
                     FadeIn(several), h="dims.heads", q="dims.heads")
            self.say("The arrows only show who may read whom; the next scene draws their "
                     "widths from the computed weights.")
        else:
            self.say("This worksheet's layer has a single head, so the receiver gets a "
                     "single message. The toy that follows shows what a second head adds.",
                     FadeIn(several))

        self.section("toy")
        self.play(FadeOut(VGroup(heading, self.row, mark, several)))
        self.toy()

    def receivers(self, heads: Sequence[int | None]) -> VGroup:
        """One receiver node per head (``None``: the single head), fed by a fan, with a
        message chip beneath."""
        spacing = min(3.6, 12.4 / len(heads))
        group = VGroup()
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
            fan = schematic_fan(list(self.row), node, MUTED if head is None else colour)
            group.add(VGroup(fan, node, link, message))
        return group

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
        caption = self.label("value rows", 20, MUTED).next_to(values, RIGHT, buff=0.4)
        table = VGroup(values, caption).move_to(UP * 1.85)
        self.say("A separate toy with made-up numbers: two sources, “{s}” and “{t}”, whose "
                 "value rows have two coordinates each.", Write(heading), FadeIn(table),
                 words=names)

        v = {f"v{r}{c}": f"toy.values[{r}][{c}]" for r in (0, 1) for c in (0, 1)}
        w = {"a": "toy.weights[0][0]", "b": "toy.weights[0][1]",
             "c": "toy.weights[1][0]", "d": "toy.weights[1][1]"}
        self.section("one mixture")
        one = self.bound("one head:  {a} × [{v00}, {v01}] + {b} × [{v10}, {v11}] = "
                         "[{m0}, {m1}]", 24, INK, m0="toy.one_head[0]", m1="toy.one_head[1]",
                         a=w["a"], b=w["b"], **v)
        lines = VGroup(one)
        self.place(lines)
        self.say("One head with weights {a} and {b} mixes both coordinates with that same "
                 "pair: the result is [{m0}, {m1}].", FadeIn(one), a=w["a"], b=w["b"],
                 m0="toy.one_head[0]", m1="toy.one_head[1]")

        self.section("two mixtures")
        two = [self.bound("first head, first coordinate:  {a} × {v00} + {b} × {v10} = {t0}",
                          24, self.head_colour(1), t0="toy.two_heads[0]", a=w["a"],
                          b=w["b"], v00=v["v00"], v10=v["v10"]),
               self.bound("second head, second coordinate:  {c} × {v01} + {d} × {v11} = {t1}",
                          24, self.head_colour(2), t1="toy.two_heads[1]", c=w["c"],
                          d=w["d"], v01=v["v01"], v11=v["v11"])]
        lines.add(*two)
        self.place(lines)
        self.say("Two heads can each keep a row of their own: the first gets {t0} from the "
                 "first coordinate, the second, with weights {c} and {d}, gets {t1} from the "
                 "second.", LaggedStart(*map(FadeIn, two), lag_ratio=0.6),
                 t0="toy.two_heads[0]", t1="toy.two_heads[1]", c=w["c"], d=w["d"])

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
        self.say("With these values fixed, {x0} needs a “{s}” weight of {r0}, and {x1} "
                 "needs {r1}. " + ("A single weight row would have to be both at once."
                                   if clash else "Here a single weight row could do both."),
                 FadeIn(VGroup(*needs)), FadeIn(verdict), words=names,
                 x0="toy.two_heads[0]", r0="toy.required[0]", x1="toy.two_heads[1]",
                 r1="toy.required[1]")
        self.say("The toy shows what separate weighting buys; it does not prove that one head "
                 "always fails.")

    @staticmethod
    def place(lines: VGroup) -> None:
        """Stack the toy's lines under its table, left-aligned, within the frame."""
        lines.arrange(DOWN, buff=0.32, aligned_edge=LEFT)
        fit(lines, 13.0, 3.9)
        lines.move_to([0, 0.75 - lines.height / 2, 0])


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
        self.say("Back to the full sentence of {n} tokens. For each head, arrows run from "
                 "every source to the final “{w}”, as wide as that head's computed weight.",
                 Write(heading), FadeIn(self.row), Create(mark), FadeIn(cast),
                 words={"w": self.tokens[self.last]}, n="dims.tokens")

        panel = cast
        for head in range(1, self.ws.n_heads + 1):
            self.section(f"head {head}")
            self.play(FadeOut(panel))
            panel = self.reading(head)
        if self.ws.n_heads > 1:
            self.section("side by side")
            self.play(FadeOut(panel))
            self.side_by_side()

    def reading(self, head: int) -> VGroup:
        """One head's panel: its fan, its top source's weight and its name."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        top = self.v.value(f"{p}.top_source")
        role = self.ws.lesson.head_names[head - 1]
        node = chip(self.word(self.tokens[self.last], 26, colour), colour, 5.0)
        node.move_to(DOWN * 1.5)
        fan = spread(self.fan(list(self.row), node, f"{p}.weights", colour), node)
        weight = self.num(f"{p}.weights[{top}]", 22, colour).next_to(self.row[top], UP, 0.2)
        box = self.highlight(self.row[top], colour)
        name = self.bound("Head {h}: the {role} reading", 24, colour,
                          h=f"dims.head_numbers[{head - 1}]", words={"role": role})
        name.next_to(node, DOWN, buff=0.4)
        self.say("Head {h}, our {role} head, gives its largest weight to “{w}”: {x}. "
                 "Every other arrow is thinner, but none is missing.",
                 FadeIn(node), FadeIn(name), LaggedStart(*map(Create, fan), lag_ratio=0.08),
                 words={"role": role, "w": self.tokens[top]}, h=f"dims.head_numbers[{head - 1}]",
                 x=f"{p}.weights[{top}]")
        self.say("The message this head sends is therefore mostly what “{w}” carries in "
                 "this head's values.", Create(box), FadeIn(weight), words={"w": self.tokens[top]})
        return VGroup(fan, node, name, box, weight)

    def side_by_side(self) -> None:
        """All heads at once, each with its own fan and receiver copy."""
        n = self.ws.n_heads
        spacing = min(3.6, 12.4 / n)
        group = VGroup()
        for head in range(1, n + 1):
            colour = self.head_colour(head)
            node = chip(self.word(self.tokens[self.last], 24, colour), colour, spacing - 0.4)
            node.move_to([(head - 1 - (n - 1) / 2) * spacing, -1.5, 0])
            name = self.bound("Head {h}: {role}", 22, colour,
                              h=f"dims.head_numbers[{head - 1}]",
                              words={"role": self.ws.lesson.head_names[head - 1]})
            fit(name.next_to(node, DOWN, buff=0.3), spacing - 0.2)
            fan = self.fan(list(self.row), node, f"{self.s}.h{head}.weights", colour,
                           max_width=10.0)
            group.add(VGroup(spread(fan, node), node, name))
        self.say("All the heads read at once, from the same input rows. These are our "
                 "hand-chosen numbers; the role names describe what we built them to do, "
                 "not jobs a trained model is given.", FadeIn(group))


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
    """One source in the recall: its word, key, match, weight, value and arrow."""

    j: int
    word: Mobject
    key: Mobject
    match: Mobject
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
        self.play(self.retitle(heading, "The same roles in numbers: head {h}",
                               h="dims.head_numbers[0]"))
        top = self.v.value(f"{self.p}.top_source")
        tops = [top] + ([self.v.value(f"{self.s}.h2.top_source")] if self.ws.n_heads > 1 else [])
        self.layout(shown_sources(tops, self.last))
        query, q_keys = vector("q", f"{self.p}.Q[{self.last}]", self.ws.d_head)
        self.say("Now our own numbers, in head {h}. The final “{w}” makes the query "
                 + query + ".", fade_in(self.receiver), self.point_at(self.query),
                 h="dims.head_numbers[0]", words={"w": self.tokens[self.last]}, **q_keys)

        self.section("keys")
        self.play(fade_in(self.note, self.table_headers,
                          *(VGroup(r.word, r.key) for r in self.rows)))
        for n, row in enumerate(self.rows):
            template = ("The query meets each key: multiply coordinate by coordinate, then "
                        "add. For “{w}” at position {p}, the match is {d}." if n == 0 else
                        "Its own key, at position {p}: {d}." if row.j == self.last else
                        "For “{w}” at position {p}: {d}.")
            self.say(template, fade_in(row.match), self.point_at(row.key, row.match),
                     words={"w": self.tokens[row.j]}, p=f"dims.positions[{row.j}]",
                     d=f"{self.p}.dots[{row.j}]")

        self.section("weights")
        favourite = next(r for r in self.rows if r.j == top)
        self.say("Scaled, then put through a softmax over all {n:source}, the matches become "
                 "weights, drawn as arrow widths; “{w}” gets the most, {x}.",
                 *(ReplacementTransform(r.match, r.weight) for r in self.rows),
                 ReplacementTransform(self.headers[2], self.headers[3]),
                 LaggedStart(*(Create(r.arrow) for r in self.rows), lag_ratio=0.3),
                 self.point_at(favourite.word, favourite.weight), n="dims.tokens",
                 words={"w": self.tokens[top]}, x=f"{self.p}.weights[{top}]")

        self.section("values")
        self.say("Each source also has a value: what it passes on when it is chosen.",
                 LaggedStart(*(fade_in(r.value) for r in self.rows), lag_ratio=0.3),
                 self.point_at(*(r.value for r in self.rows)))
        message, m_keys = vector("m", f"{self.p}.message", self.ws.d_head)
        self.say("Every value is scaled by its weight, and all {n} are added: the message is "
                 + message + ".", fade_in(self.message), self.point_at(self.message),
                 n="dims.tokens", **m_keys)
        self.say("Queries ask, keys answer, values carry.", self.unpoint())

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
        self.say("Recall Part II's example in words. At “She”, the query asks for a person.",
                 Write(heading), fade_in(badge, she, query))
        self.say("Maya's key advertises a person, so it matches that query well.",
                 fade_in(maya, key), Create(match), fade_in(note))
        self.say("So Maya's value, the details about her, flows to “She”. Real vectors hold "
                 "numbers, not sentences like these.", fade_in(value), Create(carry),
                 fade_in(got), self.point_at(badge))
        self.play(fade_out(badge, maya, she, query, key, value, match, note, carry, got),
                  self.unpoint())
        return heading

    def card(self, role: str, text: str) -> VGroup:
        """A role name over what it says, in a box: a word picture of one vector."""
        body = VGroup(self.label(role, 24), self.label(text, 20, MUTED)).arrange(DOWN, buff=0.12)
        return chip(body, FAINT, 4.4)

    def layout(self, sources: Sequence[int]) -> None:
        """The receiver with its query on the left; one row per shown source on the right
        (word, key, match or weight, value) under column headers; an arrow from each
        source to the receiver, as wide as its weight; the message at the bottom."""
        p, size = self.p, 22
        node = chip(self.word(self.tokens[self.last], 28), self.colour)
        self.query = self.vec(f"{p}.Q[{self.last}]", size)
        self.receiver = VGroup(node, self.label("query", 20, MUTED), self.query)
        self.receiver.arrange(DOWN, buff=0.2).to_edge(LEFT, buff=0.45)
        ys = [1.2 - 1.2 * i for i in range(len(sources))]
        self.receiver.shift(UP * ((ys[0] + ys[-1]) / 2 - node.get_y()))
        rows = [SourceRow(j, self.bound("“{w}” ({p})", size, words={"w": self.tokens[j]},
                                        p=f"dims.positions[{j}]"),
                          self.vec(f"{p}.K[{j}]", size), self.num(f"{p}.dots[{j}]", size),
                          self.num(f"{p}.weights[{j}]", size, self.colour),
                          self.vec(f"{p}.V[{j}]", size), VMobject())
                 for j in sources]
        self.headers = [self.label(text, 20, MUTED)
                        for text in ("source (position)", "key", "q·k", "weight", "value")]
        cells = [[r.word for r in rows], [r.key for r in rows],
                 [r.match for r in rows] + [r.weight for r in rows], [r.value for r in rows]]
        heads = [self.headers[0], self.headers[1], *self.headers[2:4], self.headers[4]]
        for row, y in zip(rows, ys, strict=True):
            for mob in (row.word, row.key, row.match, row.weight, row.value):
                mob.set_y(y)
        for header in heads:
            header.set_y(ys[0] + 0.6)
        start = x = self.receiver.get_right()[0] + 1.8
        groups = list(zip(cells, [[heads[0]], [heads[1]], heads[2:4], [heads[4]]], strict=True))
        widths = [max(m.width for m in column + header) for column, header in groups]
        gap = min(1.3, max(0.5, (6.75 - start - sum(widths)) / (len(widths) - 1)))
        for (column, header), width in zip(groups, widths, strict=True):
            for mob in column + header:
                mob.set_x(x + mob.width / 2)
            x += width + gap
        table = VGroup(*(m for c in cells for m in c), *heads)
        if table.get_right()[0] > 6.75:
            table.scale((6.75 - start) / (table.get_right()[0] - start),
                        about_point=[start, ys[0], 0])
        self.table_headers = VGroup(heads[0], heads[1], heads[2], heads[4])
        self.message = self.vec(f"{p}.message", size, template="message = Σ weight × value = {v}")
        self.message.move_to([0, -2.3, 0]).align_to(self.receiver, LEFT)
        self.note = self.bound("a few of the {n:source}", 20, MUTED, n="dims.tokens")
        self.note.move_to([0, -2.3, 0]).align_to(table, RIGHT)
        for i, row in enumerate(rows):
            end = node.get_right() + DOWN * 0.12 * (i - (len(rows) - 1) / 2)
            width = max(1.0, 16.0 * float(self.v.value(f"{p}.weights[{row.j}]")))
            row.arrow = Arrow(row.word.get_left(), end, buff=0.12, color=self.colour,
                              stroke_width=width, max_tip_length_to_length_ratio=0.12)
        self.rows = rows
