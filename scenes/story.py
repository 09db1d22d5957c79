"""The opening story: the prompt, kinds of detail, one head against two, two readings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UL,
    UP,
    AnimationGroup,
    Arrow,
    Create,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    SurroundingRectangle,
    VGroup,
    Write,
)

from outline import part
from scenes.kit import (
    INK,
    LEAST_FIGURE_SIZE,
    MUTED,
    NEGATIVE,
    SAFE_BOTTOM,
    Bound,
    Fade,
    LectureScene,
    baseline,
    brackets,
    copied_features,
    cued,
    fade_in,
    fade_out,
    fit,
    grow,
    noted,
    on_baseline,
    panel,
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
PROMPT_Y = 0.3
"""Where the prompt stands: high enough for the faint arcs over it, with its rows of
numbers and the clues under it."""
LOWER_Y = 1.7
"""How far below the centre the prompt's lower line stands: the question, the clues, the
receiver's row."""
CELL_HEIGHT = 0.26
"""The height of one cell of a token's row of numbers, drawn under the prompt."""
BLANK_WIDTH = 1.1
"""The width of the empty slot after the prompt: the next word."""


class RiverBankPrompt(LectureScene):
    """The walkthrough sentence: the goal (a guess for the blank), the viewer's own guess at
    which words help, the clues lit, each token's row of numbers, and the receiver that
    gathers context from every position."""

    draws_its_own_map = True  # only the boxes this clip explains: the words, the next word

    def construct(self) -> None:
        name = self.ws.walkthrough
        self.tokens = self.ws.sentences[name]
        self.last = len(self.tokens) - 1
        self.section("where we are")
        goal = self.the_goal()

        self.section("prefix")
        with self.silence("the goal gives way to the sentence"):
            self.play(fade_out(goal), *filter(None, [self.unpoint()]), run_time=0.5)
        heading = self.title("Which earlier words help predict the next one?")
        row = self.token_row(self.tokens, width=11.0).move_to(UP * PROMPT_Y)
        row.shift(LEFT * (BLANK_WIDTH + 0.5) / 2)
        positions = VGroup(*(self.bound("{p}", LEAST_FIGURE_SIZE, mono=True,
                                        p=f"dims.positions[{j}]")
                             .next_to(row[j], DOWN, buff=0.2) for j in range(len(row))))
        slot = DashedVMobject(Rectangle(width=BLANK_WIDTH, height=row.height + 0.2,
                                        stroke_color=INK, stroke_width=2.5), num_dashes=22)
        slot.next_to(row, RIGHT, buff=0.5).set_y(row[self.last].get_y())
        asked = self.label("next word?", 22).next_to(slot, UP, buff=0.2)
        self.say("The prefix has {n:known token}, numbered from the first; the empty slot "
                 "after them is the next word.", Write(heading), fade_in(row, positions),
                 Create(slot), fade_in(asked), n="dims.tokens")

        self.section("your guess")
        self.guess(row)

        self.section("rows")
        self.rows(row, positions, slot)

        self.section("receiver")
        box = self.highlight(row[self.last], INK)
        mine = self.strips[self.last]
        named = self.label("receiver", 20).next_to(mine, DOWN, buff=0.15)
        named.align_to(mine, RIGHT).shift(RIGHT * 0.3)
        self.say("The last known token, “{w}” at position {p}, is the receiver:",
                 Create(box), fade_in(named),
                 self.point_at(row[self.last], positions[self.last]),
                 words={"w": self.tokens[self.last]}, p=f"dims.positions[{self.last}]")
        reads = self.gathering(row, box)
        self.say("it will gather context from every earlier position and itself.",
                 self.unpoint(), LaggedStart(*map(Create, reads), lag_ratio=0.1))
        self.say("Everything we compute serves one goal: a better guess for that blank.",
                 self.point_at(slot, asked))
        self.wait(0.5)

    def the_goal(self) -> VGroup:
        """The part's opening over the lesson's goal, drawn small: the words so far, the
        model (its inside left for later), and the next word, lit. Returns what it drew."""
        opened = part("prompt")
        self.where = opened.steps

        def stage(lines: Sequence[str], lit: bool) -> VGroup:
            texts = VGroup(*(self.label(text, 26, INK if lit else MUTED) for text in lines))
            return panel(texts.arrange(DOWN, buff=0.08), INK if lit else FAINT, buff=0.2,
                         stroke=3.0 if lit else 1.5)

        strip = VGroup(stage(("the words", "so far"), False),
                       stage(("the model:", "opened in", "the clips ahead"), False),
                       stage(("next", "word"), True))
        strip.arrange(RIGHT, buff=1.0).move_to(UP * 0.3)
        wires = VGroup(*(Arrow(a.get_right(), b.get_left(), buff=0.1, color=FAINT,
                               stroke_width=2.5, tip_length=0.15,
                               max_tip_length_to_length_ratio=0.5)
                         for a, b in pairwise(strip)))
        self.say(opened.opening, Fade(VGroup(strip, wires)), self.point_at(strip[-1]))
        return VGroup(strip, wires)

    def guess(self, row: VGroup) -> None:
        """The viewer's own guess first; then each head's favourite source lit as a
        candidate clue, with what it tells."""
        ask = self.label("your guess: which words would you use?", 26)
        ask.move_to(DOWN * LOWER_Y)
        self.say("Before any numbers: which of these words would you use to guess it? "
                 "Pick a few.", fade_in(ask))
        with self.silence("a moment to guess"):
            self.wait(1.2)
        clues: list[tuple[int, int]] = []  # (source, head) of each head's favourite, once
        for head in range(1, self.ws.n_heads + 1):
            top = self.v.value(f"{self.ws.walkthrough}.h{head}.order")[0]
            if top != self.last and all(top != j for j, _ in clues):
                clues.append((top, head))
        notes, self.clue_boxes = VGroup(), [self.highlight(row[j], MUTED) for j, _ in clues]
        for j, head in clues:
            role = self.ws.lesson.head_names[head - 1]
            note = self.bound("“{w}”: the {role}", 24, words={"w": self.tokens[j],
                                                              "role": role})
            notes.add(note)
        notes.arrange(RIGHT, buff=0.9).move_to(DOWN * LOWER_Y)
        fit(notes, 12.4)
        for n, ((j, head), note) in enumerate(zip(clues, notes, strict=True)):
            role = self.ws.lesson.head_names[head - 1]
            said = ("“{w}” tells the {role}: it rules out many next words." if n == 0 else
                    "“{w}” tells the {role}: it rules out more.")
            self.say(said, *([fade_out(ask)] if n == 0 else []),
                     Create(self.clue_boxes[n]), fade_in(note),
                     self.point_at(row[j], note, each=True),
                     words={"w": self.tokens[j], "role": role})
        target = self.ws.lesson.targets.get(self.ws.walkthrough)
        if target is not None and clues:
            hint = self.bound("so the blank is likely a word like “{t}”", 24, MUTED,
                              words={"t": target}).next_to(notes, DOWN, buff=0.35)
            self.say("Together they make a word like “{t}” likely; the rest of the lesson "
                     "weighs such clues with numbers.", fade_in(hint), self.point_at(hint),
                     words={"t": target})
            notes.add(hint)
        self.clue_notes = notes

    def rows(self, row: VGroup, positions: VGroup, slot: Mobject) -> None:
        """Each token becomes a row of numbers, its embedding: a strip of cells under every
        token, the receiver's spelled out under it; the blank's strip is an empty outline."""
        d = self.ws.d_model
        pitch = min(b.get_x() - a.get_x() for a, b in pairwise(row))
        side = min(0.22, 0.8 * pitch / d)
        y = positions.get_bottom()[1] - 0.3

        def strip(x: float) -> VGroup:
            cells = VGroup(*(Rectangle(width=side, height=CELL_HEIGHT, stroke_color=MUTED,
                                       stroke_width=1.5) for _ in range(d)))
            return cells.arrange(RIGHT, buff=0).move_to([x, y, 0])

        strips = VGroup(*(strip(token.get_x()) for token in row))
        empty = DashedVMobject(Rectangle(width=side * d, height=CELL_HEIGHT, stroke_color=INK,
                                         stroke_width=2), num_dashes=16)
        empty.move_to([slot.get_x(), y, 0])
        mine = strips[self.last]
        line = self.bound("row of “{w}”, {d} numbers: ", 22, d="dims.d_model",
                          words={"w": self.tokens[self.last]})
        line = VGroup(line, self.vec(f"{self.ws.walkthrough}.E[{self.last}]", 22))
        line.arrange(RIGHT, buff=0.12)
        line.move_to([mine.get_right()[0] + 0.3 - line.width / 2, -LOWER_Y, 0])
        none = self.label("no row yet", 20, MUTED).next_to(empty, DOWN, buff=0.15)
        none.align_to(empty, LEFT).shift(LEFT * 0.1)
        self.play(fade_out(self.clue_notes, *self.clue_boxes), *filter(None, [self.unpoint()]))
        self.say("To a model, each token becomes a row of {d:number}: its embedding.",
                 LaggedStart(*map(fade_in, strips), lag_ratio=0.1), fade_in(line),
                 self.point_at(mine, line, each=True), d="dims.d_model")
        self.say("The blank has no row yet: it is what the model must predict.",
                 Create(empty), fade_in(none), self.point_at(empty, none))
        self.strips = strips

    def gathering(self, row: VGroup, box: Mobject) -> VGroup:
        """Faint arcs from every earlier token into the receiver, nested so that none
        crosses another (the nearest lowest, landing leftmost), and a loop on the receiver
        itself: it reads its own row too."""
        count = self.last
        left, right = box.get_left()[0] + 0.08, box.get_right()[0] - 0.2
        top = box.get_top()[1] + 0.02
        arcs = VGroup()
        for rank, j in enumerate(reversed(range(count))):
            share = rank / max(count - 1, 1)
            end = np.array([left + (right - left) * share, top, 0.0])
            start = row[j].get_top() + UP * 0.1
            lift = min(0.3 + 2.0 * share, 0.3 + 0.35 * (end[0] - start[0]))  # short: low
            arcs.add(arc_arrow(start, end, lift, FAINT, width=2.0, tip=0.12))
        corner = box.get_corner(UP + RIGHT)
        arcs.add(arc_arrow(corner + LEFT * 0.12 + UP * 0.02, corner + DOWN * 0.2 + RIGHT * 0.02,
                           0.22, FAINT, width=2.0, tip=0.12))
        return arcs


# ---------------------------------------------------------------------- illustrations


@dataclass(frozen=True)
class Reading:
    """One illustrative head: the source word it might favour and the role it plays."""

    source: int
    role: str


def arc_arrow(start: np.ndarray, end: np.ndarray, lift: float, colour: str,
              width: float = 5.0, tip: float = 0.2) -> Arrow:
    """An arrow from ``start`` to ``end`` bowing upward so that its apex is ``lift`` higher."""
    chord = float(np.linalg.norm(end - start))
    angle = -4 * math.atan(2 * lift / chord)
    return Arrow(start, end, buff=0.04, path_arc=angle, color=colour, stroke_width=width,
                 tip_length=tip, max_tip_length_to_length_ratio=0.5)


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
                            ROLE_SIZE, MUTED).next_to(coat.words, DOWN, buff=1.05).set_x(0)
        self.say("At “coat”, more than one earlier word is useful.", Write(heading),
                 fade_in(badge, coat.words, coat.receiver), Create(coat.box))
        self.say("Each reader of the sentence is called a head: it forms its own weights over "
                 "the words.", fade_in(reader))
        for n, line in enumerate(("One head could favour “red”, for its colour;",
                                  "another “wool”, for its material;",
                                  "a third “hooded”, for its shape.")):
            self.say(line, Create(coat.arrows[n]), fade_in(coat.roles[n]))
        every = self.every_word(coat)
        legend = self.label("thin arcs below: every head reads every word; a thick arc: the "
                            "word it favours", ROLE_SIZE - 2, MUTED)
        legend.next_to(reader, DOWN, buff=0.2)
        self.say("Every head still sees every word, the coat included; each favours one.",
                 LaggedStart(*map(Create, every), lag_ratio=0.3), fade_in(legend))
        self.say("And this is an illustration, not attention measured in a model.",
                 self.point_at(badge))

        self.section("dogs")
        self.play(fade_out(coat, reader, every, legend), self.unpoint(),
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
        self.say("The nearer noun “gate” is singular: misleading for the verb's agreement, yet "
                 "still useful for the place.",
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
        learned.next_to(washed.hint, DOWN, buff=0.2)
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
        note = self.label("receiver", ROLE_SIZE, MUTED).next_to(box, RIGHT, buff=0.3)
        nearest_first = sorted(readings, key=lambda r: -r.source)
        arrows, roles = VGroup(), VGroup()
        for kind, reading in enumerate(readings, start=1):
            # Each kind of detail is what a head may come to read: it is drawn as one, in
            # that head's colour (Okabe–Ito, colour-blind safe), and named in words too, so
            # that colour is never the only cue.
            colour = self.head_colour(kind)
            rank = nearest_first.index(reading)
            source = row[reading.source]
            start = source.get_top() + UP * 0.12
            end_x = receiver.get_left()[0] + receiver.width * (rank + 1) / (len(readings) + 1)
            end = np.array([end_x, box.get_top()[1] + 0.04, 0.0])
            arrow = arc_arrow(start, end, 0.5 + 1.0 * rank, colour)
            arrows.add(arrow)
            # Left of the apex, where the wider arcs above are still high.
            role = self.label(f"{reading.role} head", ROLE_SIZE, colour)
            role.next_to(arrow, UP, buff=0.08)
            role.shift(RIGHT * (arrow.get_center()[0] + 0.15 - role.get_right()[0]))
            roles.add(role)
        group = VGroup(row, box, note, arrows, roles)
        group.words, group.box, group.receiver = row, box, note
        group.arrows, group.roles = arrows, roles
        group.hint = None
        if hint is not None:
            group.hint = self.label(hint, 24, MUTED).next_to(row, DOWN, buff=1.0)
            group.hint.set_x(0)
            group.add(group.hint)
        return group

    def every_word(self, example: VGroup) -> VGroup:
        """Thin faint arcs under the sentence, from every word into the receiver and a loop
        on the receiver itself: every head reads all of them, whichever word its thick arc
        above marks as its favourite. Nested (the farther, the deeper), so none crosses."""
        words, box = example.words, example.box
        left, right = box.get_left()[0] + 0.1, box.get_right()[0] - 0.25
        bottom = box.get_bottom()[1] - 0.02
        count = len(words) - 1
        arcs = VGroup()
        for rank, word in enumerate(reversed(words[:-1])):  # the nearest first: shallowest
            share = rank / max(count - 1, 1)
            end = np.array([left + (right - left) * (1 - share), bottom, 0.0])
            arcs.add(arc_arrow(word.get_bottom() + DOWN * 0.1, end, -(0.25 + 0.55 * share),
                               MUTED, width=1.5, tip=0.1))
        corner = box.get_corner(DOWN + RIGHT)
        arcs.add(arc_arrow(corner + LEFT * 0.12, corner + UP * 0.2 + RIGHT * 0.02, -0.2,
                           MUTED, width=1.5, tip=0.1))
        return arcs

    def clues(self, example: VGroup, good: int, bad: int) -> tuple[Mobject, VGroup]:
        """Under the words, the clue that decides (named) and the misleading one: a dashed
        muted outline with its own name, so that it never reads as a right clue.

        The misleading clue's result has attributes ``outline`` and ``note``."""
        words = example.words
        right = self.label("agreement clue", ROLE_SIZE - 2, INK)
        right.next_to(words[good], DOWN, buff=0.22)
        outline = DashedVMobject(SurroundingRectangle(words[bad], color=MUTED, buff=0.08,
                                                      stroke_width=3), num_dashes=24)
        note = VGroup(self.label("misleading for agreement,", ROLE_SIZE - 4, MUTED),
                      self.label("useful for the place", ROLE_SIZE - 4, MUTED))
        note.arrange(DOWN, buff=0.08).next_to(outline, DOWN, buff=0.14)
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
HAIRLINE = 0.6
"""The least stroke width of an arrow: a weight too small to see as a width still shows
its source's arrow, so none goes missing."""
SIDE_HAIRLINE = 1.4
"""The least stroke width of an arrow when every head's fan is drawn at once, faint: thin
enough to read as light, wide enough to see on the dark screen."""
FAINTEST = 0.6
"""Opacity of an arrow whose weight is zero."""
ROW_Y = 2.35
"""Where the sentence stands in the one-head and several-heads pictures: high, so that the
one head's value rows and each head's message fit under the receiver."""
NODE_TOP = 0.95
"""Where the one head's receiver stands; the several heads' wider one stands a little
lower, their queries and messages under it."""
DIMMED = 0.15
"""Opacity of a head's arrows and keys while another head is being shown."""
TOY_BAR = 1.2
"""The length of a toy weight bar at weight one."""
LEGEND_X = 6.4
"""How far from the centre the notes over the sentence reach, the keys' legend on the
left and the later clips' note on the right: the frame's edges, whatever the sentence's
length, so that the two never meet."""
LOWEST = SAFE_BOTTOM + 0.05
"""The one head's value rows and the toy's lines stop here, just above the subtitles."""


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


def weighted_arrow(start: np.ndarray, end: np.ndarray, weight: float, colour: str,
                   per_weight: float, least: float = HAIRLINE) -> Arrow:
    """One arrow of a fan: ``per_weight`` times its weight wide, so that a weight four
    times as large draws a shaft four times as wide, but never under ``least``; as opaque
    as the weight is large, with a tip sized like its shaft."""
    width = max(least, per_weight * float(weight))
    opacity = FAINTEST + (1 - FAINTEST) * float(weight)
    arrow = Arrow(start, end, buff=0.08, stroke_width=width, color=colour,
                  stroke_opacity=opacity, tip_length=0.1 + 0.012 * width,
                  max_tip_length_to_length_ratio=0.5)
    arrow.tip.set_fill(opacity=opacity).set_stroke(opacity=opacity)
    return arrow


def weighted_fan(sources: Sequence[Mobject], receiver: Mobject, weights: Sequence[float],
                 colour: str, per_weight: float = 16.0) -> VGroup:
    """An arrow from each source to the receiver, landing side by side on its top edge, as
    wide as its weight (:func:`weighted_arrow`)."""
    return VGroup(*(weighted_arrow(source.get_bottom() + DOWN * 0.06, end, weight, colour,
                                   per_weight)
                    for source, end, weight in zip(sources, landing(receiver, len(sources)),
                                                   weights, strict=True)))


SIDE_FAINT = 0.45
"""Opacity of a head's lighter arrows when every head's fan is drawn into one receiver."""
FAN_GAP = 0.07
"""How far apart, under a source word, the arrows of different heads leave it."""


def interleaved_fans(sources: Sequence[Mobject], receiver: Mobject,
                     weights: Sequence[Sequence[float]], colours: Sequence[str],
                     per_weight: float = 8.0) -> list[VGroup]:
    """One fan per head into one shared receiver, none crossing another: under each source
    word the heads' arrows leave side by side in head order, and they land on the
    receiver's top edge in the same order (source by source, head by head), so that no two
    arrows swap sides on the way down. Returns each head's fan."""
    n = len(colours)
    ends = landing(receiver, len(sources) * n)
    fans = [VGroup() for _ in range(n)]
    for j, source in enumerate(sources):
        for k in range(n):
            start = source.get_bottom() + DOWN * 0.06 + RIGHT * FAN_GAP * (k - (n - 1) / 2)
            fans[k].add(weighted_arrow(start, ends[j * n + k], weights[k][j], colours[k],
                                       per_weight, SIDE_HAIRLINE))
    return fans


def used(template: str, words: dict[str, str], keys: dict[str, str]) -> dict[str, Any]:
    """The words and keys of ``template``'s slots among ``words`` and ``keys``, as keyword
    arguments for ``say``: one sentence may use only some of a figure's slots."""
    return {"words": {k: w for k, w in words.items() if "{" + k + "}" in template},
            **{k: key for k, key in keys.items() if "{" + k + "}" in template}}


def underline(glyphs: Mobject) -> Line:
    """A line just under ``glyphs``: the numbers inside a longer text that the voice names."""
    y = glyphs.get_bottom()[1] - 0.08
    return Line([glyphs.get_left()[0], y, 0], [glyphs.get_right()[0], y, 0], color=INK,
                stroke_width=4)


class OneHeadTwoHeads(LectureScene):
    """The idea before the numbers: one head is one weight row, used for every feature of
    the values; two heads are two weight rows, each with its own queries, keys and values.

    The sentence shows it with the computed weights of one wide head (its two heaviest
    sources' value rows under their features, and the message they add up to) and then
    each head in turn: its query, its keys, its weight row and its message. The two-source
    toy works it out: one shared row gives one mixture, and the weight each wanted result
    needs is derived, showing that one row cannot give both. The heads' readings of our
    sentence are the next clip's.
    """

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        receiver = {"w": self.tokens[self.last]}
        self.section("one head")
        heading = self.title("One head sends one message")
        self.row = self.token_row(self.tokens, width=12.4).move_to(UP * ROW_Y)
        mark = self.highlight(self.row[self.last], INK)
        single = self.one_receiver()
        self.say("With one head, the final “{w}” reads the sentence just one way.",
                 Write(heading),
                 fade_in(self.row), Create(mark), fade_in(single.node), words=receiver)
        glossary = self.glossary(single.message)
        said = ("A query is what the receiving word looks for; a key is what each word offers; "
                "a value is what a word sends if it is chosen.")
        self.say(said, cued(said, [
            ("A query", AnimationGroup(fade_in(glossary[0]), self.point_at(
                glossary[0], single.node, each=True))),
            ("a key", AnimationGroup(fade_in(glossary[1]), self.point_at(
                glossary[1], self.row, each=True))),
            ("a value", AnimationGroup(fade_in(glossary[2]), self.point_at(glossary[2])))]))
        self.say("Its query, matched with every key, gives each word a weight, drawn as the "
                 "arrow's width.",
                 LaggedStart(AnimationGroup(*filter(None, [self.unpoint()]), run_time=0.5),
                             LaggedStart(*map(Create, single.fan), lag_ratio=0.3, run_time=4),
                             lag_ratio=1.0))
        self.say("With those weights it mixes their values into one message.",
                 Create(single.link), fade_in(single.message), self.point_at(single.message))
        self.same_weights(single, glossary)

        self.section("several heads")
        heads = list(range(1, self.ws.n_heads + 1))
        if len(heads) > 1:
            node, several = self.shared_receiver(heads)
            self.play(fade_out(single, self.scaled), self.unpoint(),
                      self.retitle(heading, "Several heads send several messages"))
            queries = [reader.query for reader in several]
            later = self.label("numbers worked out in later clips", 20, MUTED)
            later.next_to(self.row, UP, buff=0.25).set_x(LEGEND_X - later.width / 2)
            self.say("With {h:head}, the same receiver asks {q:query} at once, one per head; "
                     "how each query is made comes in later clips.",
                     fade_in(node), LaggedStart(*(AnimationGroup(Create(r.link), fade_in(r.query))
                                                  for r in several), lag_ratio=0.3),
                     fade_in(later), self.point_at(*queries, each=True), h="dims.heads",
                     q="dims.heads")
            self.one_head_at_a_time(several)
            self.message_sizes(several)
            several = [node, later, *several]
        else:
            several = [single]
            self.play(self.retitle(heading, "This layer has a single head"))
            self.say("This worksheet's layer has a single head, so the receiver gets a "
                     "single message.", self.point_at(single.message))
            self.say("The toy that follows shows what a second head adds.", self.unpoint())

        self.section("toy")
        away = self.unpoint()
        rest = [self.scaled] if len(heads) == 1 else []
        self.play(fade_out(self._heading, self.row, mark, *several, *rest),
                  *filter(None, [away]))
        self.toy()

    def same_weights(self, single: VGroup, glossary: VGroup) -> None:
        """Under the message: the two heaviest sources' value rows (what each word would
        contribute if read, one number per feature), under the features their coordinates
        carry, each after its one weight; then the message itself, filled with the sum over
        every source, and where its largest coordinate comes from: mostly from the word the
        one weight row favours, even where the other word carries more of that feature."""
        key = f"{self.s}.wide"
        order = self.v.value(f"{key}.order")
        picked = sorted(order[:2])
        labels = [self.bound("“{w}”  {x} ×", 24, INK, mono=True, words={"w": self.tokens[j]},
                             x=f"{key}.weights[{j}]") for j in picked]
        names = self.wide_feature_names()
        columns = shown_indices(len(self.v.value(f"{key}.V")[0]))
        heads = None if names is None else [
            self.label("…", 20, MUTED) if c is None else
            self.bound("{f}", 20, MUTED, words={"f": names[c]}) for c in columns]
        rows = self.matrix(f"{key}.V", rows=picked, row_labels=labels, col_labels=heads,
                           size=24, h_buff=0.65, v_buff=0.25)
        if heads is not None:  # the feature names stand on one line, whatever their letters
            line = max(baseline(name) for name in heads)
            for name in heads:
                name.shift(UP * (line - baseline(name)))
        weight_head = self.label("weight", 20, MUTED)
        figure = labels[0].figures_span(0, 0)
        weight_head.move_to([figure.get_x(), 0, 0])
        if heads is not None:  # on the feature names' line
            weight_head.shift(UP * (baseline(heads[0]) - baseline(weight_head)))
        else:  # clear of the outline round the rows
            weight_head.set_y(rows.brackets.get_top()[1] + 0.2 + weight_head.height / 2)
        meaning = VGroup(self.label("value row: what a word", 20, MUTED),
                         self.label("would contribute if read,", 20, MUTED))
        counted = VGroup()  # the count of coordinates, where no feature names head them
        if heads is not None:
            meaning.add(self.label("one number per feature", 20, MUTED))
        else:  # over the columns, where the feature names would stand: it fits there
            count = self.bound("one number per coordinate, {c} in all", LEAST_FIGURE_SIZE,
                               MUTED, c="dims.joined")
            count.move_to([rows.brackets.get_x(), weight_head.get_y(), 0])
            count.shift(UP * (baseline(weight_head) - baseline(count)))
            counted.add(count)
        columns_head = heads if heads is not None else list(counted)
        red = VGroup()  # what red means, under the meaning, where a shown number is red
        if any(cell.figures[0][1].startswith("−") for row in rows.cells for cell in row
               if getattr(cell, "figures", None)):
            red.add(self.label("red: below zero", 20, NEGATIVE))
        # Left of the words' labels, its foot level with the rows': the rows keep the width
        # the hall's size needs, and the key rises beside the header line, where it is free.
        aside = VGroup(*meaning, *red).arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        red.shift(DOWN * 0.08)
        aside.next_to(VGroup(*labels), LEFT, buff=0.5).align_to(rows.body, DOWN)
        note = self.label("one weight scales the whole value row;", 20, MUTED)
        others = self.bound("summed over all {n:word}, the others add a little", 20, MUTED,
                            n="dims.tokens")
        notes = VGroup(note, others).arrange(RIGHT, buff=0.3)
        payoff = self.payoff(names, columns)
        lines = VGroup(notes, *([payoff.line] if payoff else []))
        lines.arrange(DOWN, buff=0.16).next_to(rows, DOWN, buff=0.25)
        lines.set_x(VGroup(aside, rows).get_x())
        table = VGroup(weight_head, rows, aside, counted, lines)
        fit(table, 13.2, single.message.get_bottom()[1] - 0.2 - LOWEST)
        table.next_to(single.message, DOWN, buff=0.2).set_x(0)
        self.scaled = table
        numbers = self.vec(f"{key}.message", 22)
        filled = chip(VGroup(self.label("one message", 22), numbers).arrange(RIGHT, buff=0.3),
                      INK)
        filled.move_to(single.message)
        first, second = (picked.index(j) for j in order[:2])
        self.say("The two words it weighs most: “{a}” with {x}, “{b}” with {y}, the widths "
                 "of their arrows.",
                 fade_out(glossary), fade_in(*labels, weight_head),
                 self.point_at(self.row[order[0]], labels[first], self.row[order[1]],
                               labels[second], each=True),
                 words={"a": self.tokens[order[0]], "b": self.tokens[order[1]]},
                 x=f"{key}.weights[{order[0]}]", y=f"{key}.weights[{order[1]}]")
        if names is None:
            said = ("A value row is what a word would contribute to the message if read, one "
                    "number per coordinate, {c:coordinate} in all.")
            words: dict[str, str] = {}
            count = {"c": "dims.joined"}
        else:
            count = {}
            said = ("A value row is what a word would contribute to the message if read: one "
                    "number per feature, " + ", ".join(f"{{f{c}}}" for c in range(len(names) - 1))
                    + f" and {{f{len(names) - 1}}}.")
            words = {f"f{c}": name for c, name in enumerate(names)}
        self.say(said, cued(said, [
            ("A value row", AnimationGroup(fade_in(rows.body, rows.brackets, meaning, red),
                                           self.point_at(rows.body, rows.brackets))),
            ("one number per", AnimationGroup(fade_in(*columns_head), self.point_at(
                *columns_head, buff=0.03 if heads is not None else 0.08)))],
            step=1.0), words=words, **count)
        legend = self.feature_legend(names, lines.get_top()[1] - 0.05)
        if legend is not None:  # each note comes as it is said
            said, words, drawn = legend
            entries = [] if drawn is None else [entry for line in drawn for entry in line]
            cues = [(f"{{f{k}}}", AnimationGroup(fade_in(entry), self.point_at(entry)))
                    for k, entry in enumerate(entries)]
            self.say(said, *([cued(said, cues, step=0.8)] if cues else []), words=words)
        gone = [fade_out(legend[2])] if legend is not None and legend[2] is not None else []
        self.say("One weight scales a word's whole value row, so every feature is mixed with "
                 "the same weights.", *gone, fade_in(note),
                 self.point_at(rows.body, rows.brackets, *labels))
        self.say("Summed over all {n:word}, they make the message.", fade_in(others),
                 fade_out(single.message), fade_in(filled), self.point_at(filled),
                 n="dims.tokens")
        single.remove(single.message)
        single.add(filled)
        single.message = filled
        if payoff is not None:
            self.tell_payoff(payoff, names, rows, picked.index(order[0]),
                             picked.index(order[1]), numbers)

    def feature_legend(self, names: list[str] | None, top: float
                       ) -> tuple[str, dict[str, str], VGroup | None] | None:
        """What the features of the value rows stand for, in the worksheet's notes: the
        sentence, its words, and a legend under the rows from ``top`` down, two notes to a
        line (``None`` where it does not fit above the subtitles at a readable size: then
        it is only said). ``None`` where no feature is noted."""
        told = noted(names or [], self.ws.lesson.feature_notes)
        if told is None:
            return None
        said, words, kept = told
        notes = self.ws.lesson.feature_notes
        entries = [self.bound("{f}: {n}", NOTE_TEXT, MUTED, words={"f": name, "n": notes[name]})
                   for name in kept]
        legend = VGroup(*(VGroup(*entries[k:k + 2]).arrange(RIGHT, buff=0.6)
                          for k in range(0, len(entries), 2)))
        legend.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        if legend.width > 13.2 or legend.height > top - LOWEST:
            return said, words, None
        legend.move_to([0, top - legend.height / 2, 0])
        return said, words, legend

    def payoff(self, names: list[str] | None, columns: Sequence[int | None]) -> VGroup | None:
        """The line that says where the message's largest coordinate comes from: the two
        heaviest words' terms for it. ``None`` when that coordinate is elided. Attributes
        ``line`` (the coordinate, then each word's term: three texts), ``coordinate`` (its
        index), ``column`` (its place among the shown ones), ``term`` (the heaviest word's
        term, to underline), ``slots`` and ``words`` (its keys and words)."""
        key = f"{self.s}.wide"
        c = self.v.value(f"{key}.message_top")
        if c not in columns:
            return None
        top, second = self.v.value(f"{key}.order")[:2]
        slots = {"a": f"{key}.weights[{top}]", "v0": f"{key}.V[{top}][{c}]",
                 "t0": f"{key}.contributions[{top}][{c}]", "b": f"{key}.weights[{second}]",
                 "v1": f"{key}.V[{second}][{c}]", "t1": f"{key}.contributions[{second}][{c}]",
                 "m": f"{key}.message[{c}]"}
        words = {"w0": self.tokens[top], "w1": self.tokens[second]}
        if names is not None:
            words["f"] = names[c]
        parts = [(("{f}" if names is not None else "its largest number") + " {m}:"),
                 "{a} × {v0} = {t0} from “{w0}”,", "{b} × {v1} = {t1} from “{w1}”"]
        line = on_baseline(VGroup(*(self.bound(part, 22, INK, **used(part, words, slots))
                                    for part in parts)), 0.3)
        made = VGroup(line)
        made.line, made.coordinate, made.column = line, c, columns.index(c)
        made.term, made.slots, made.words = line[1].figures_span(2, 2), slots, words
        return made

    def tell_payoff(self, payoff: VGroup, names: list[str] | None, rows: VGroup, top: int,
                    second: int, message: Bound) -> None:
        """Say where the message's largest coordinate comes from, its heaviest term
        underlined, and the value each word carries for it underlined in the rows (an
        outline there would cut the rows' bracket); where the second word carries more of
        it, say why that does not help: one weight row serves every feature."""
        slots, words = payoff.slots, payoff.words
        cells = [rows.cells[r][payoff.column] for r in (top, second)]
        marks = [underline(payoff.term), underline(cells[0]),
                 underline(message.figures_span(payoff.coordinate, payoff.coordinate)),
                 underline(cells[1])]
        terms = self.v.value(f"{self.s}.wide.contributions")
        order = self.v.value(f"{self.s}.wide.order")
        c = payoff.coordinate
        # "mostly" only where the heaviest word's term is more than all the others' together
        total = self.v.value(f"{self.s}.wide.message")[c]
        mostly = abs(terms[order[0]][c]) > abs(total - terms[order[0]][c])
        opening = "Its {f}, {m}," if names is not None else "Its largest number, {m},"
        said = (opening + (" comes mostly from “{w0}”: {a} × {v0} = {t0}, while “{w1}” adds "
                           "only {t1}." if mostly else
                           " gets {t0} from “{w0}” and {t1} from “{w1}”."))
        self.say(said, fade_in(payoff.line), *map(Create, marks[:3]),
                 self.point_at(payoff.line[1]), **used(said, words, slots))
        self.scaled.add(*marks[:3])
        values = self.v.value(f"{self.s}.wide.V")
        if abs(values[order[1]][c]) > abs(values[order[0]][c]):
            more = "more {f}" if names is not None else "more of it"
            said = ("Yet “{w1}” carries " + more + ", {v1}: one weight row serves every "
                    "feature, and in it “{w0}” weighs most.")
            self.say(said, Create(marks[3]), self.point_at(payoff.line[2]),
                     **used(said, words, slots))
            self.scaled.add(marks[3])

    def wide_feature_names(self) -> list[str] | None:
        """The feature each coordinate of the wide head's value rows copies (every head's
        value coordinates, head after head), or ``None`` where one mixes features."""
        copies = [copied_features(self.v, head, "V") for head in range(1, self.ws.n_heads + 1)]
        if any(c is None for c in copies):
            return None
        return [self.ws.lesson.features[f] for picked in copies for f in picked]

    def one_head_at_a_time(self, several: Sequence[VGroup]) -> None:
        """Each head in turn, the others' arrows and keys dimmed: its keys (a dot in its
        colour under each word, where its arrow leaves), its weight row (the arrows, its two
        heaviest bright) and its message, each coordinate named by its feature where the
        worksheet's heads copy features."""
        legend = None
        for k, reader in enumerate(several):
            head = k + 1
            h = {"h": f"dims.head_numbers[{head - 1}]"}
            names = copied_features(self.v, head, "K")
            looks = {} if names is None else {
                f"f{c}": self.ws.lesson.features[f] for c, f in enumerate(names)}
            wanted = " and ".join(f"{{f{c}}}" for c in range(len(looks)))
            dim = [mob.animate.set_opacity(DIMMED) for other in several[:k]
                   for mob in (other.fan, other.keys)]
            new_legend = self.bound("dots: Head {h}'s keys, one per word", 20,
                                    self.head_colour(head), **h)
            new_legend.next_to(self.row, UP, buff=0.25).set_x(-LEGEND_X + new_legend.width / 2)
            swap = [fade_in(new_legend)] + ([fade_out(legend)] if legend is not None else [])
            legend = new_legend
            if k == 0:
                self.say("Head {h} makes its query from this word's row with its own query "
                         "matrix" + (": it looks for " + wanted + "." if looks else "."),
                         self.point_at(reader.query), **used(wanted + "{h}", looks, h))
            steps = [  # made after the sentence before, whose pointer they replace
                ("keys", AnimationGroup(*swap, LaggedStart(*map(fade_in, reader.keys),
                                                           lag_ratio=0.05),
                                        self.point_at(legend))),
                ("weight row", AnimationGroup(
                    LaggedStart(*map(Create, reader.fan), lag_ratio=0.05),
                    *filter(None, [self.unpoint()]))),
                ("message", AnimationGroup(Create(reader.down), fade_in(reader.message),
                                           self.point_at(reader.message)))]
            if k == 0:
                said = ("Its own keys give its own weight row, and its message is what that "
                        "row mixes.")
            elif k == 1:
                said = ("Head {h} does the same: its own keys, weight row and message, "
                        + ("looking for " + wanted + "." if looks else "all its own."))
            else:
                said = "Then head {h}: its keys, weight row and message, all its own."
            self.say(said, *dim, cued(said, steps, step=1.0), **used(said, looks, h))
        self.legend = legend
        several[-1].add(legend)

    def message_sizes(self, several: Sequence[VGroup]) -> None:
        """Why a head's message has fewer numbers than the one head's: each head's own value
        matrix keeps its own coordinates (its own features, named where the worksheet's
        heads copy them). Every head's fan comes back, the two heaviest arrows of each
        bright and the rest faint, with every head's keys."""
        n = len(several)
        names = [copied_features(self.v, head, "V") for head in range(1, n + 1)]
        keeps = self.bound("each head's own value matrix keeps {d:coordinate} of the {j}, so "
                           "its message has {d:number}", 20, MUTED, d="dims.d_head",
                           j="dims.joined")
        bottom = min(reader.message.get_bottom()[1] for reader in several)
        fit(keeps, 13.2).move_to([0, bottom - 0.15 - keeps.height / 2, 0])
        back = [arrow.animate.set_opacity(opacity) for reader in several
                for arrow, opacity in zip(reader.fan, reader.rest, strict=True)]
        back += [reader.keys.animate.set_opacity(1.0) for reader in several[:-1]]
        keys: dict[str, str] = {"d": "dims.d_head", "j": "dims.joined"}
        cues = [("its own value matrix", AnimationGroup(fade_in(keeps), self.point_at(keeps)))]
        if any(named is None for named in names):
            said = ("A head's message has {d:number}, not {j}: its own value matrix makes "
                    "value rows of {d:coordinate}.")
            words: dict[str, str] = {}
            cues.append(("value rows of", self.point_at(
                *(reader.message for reader in several), each=True)))
        else:
            parts, words = [], {}
            for head, named in enumerate(names, start=1):
                slots = []
                for c, f in enumerate(named):
                    words[f"f{head}_{c}"] = self.ws.lesson.features[f]
                    slots.append(f"{{f{head}_{c}}}")
                keys[f"h{head}"] = f"dims.head_numbers[{head - 1}]"
                parts.append(" and ".join(slots) + f" for head {{h{head}}}")
                cues.append((slots[0], self.point_at(several[head - 1].message)))
            said = ("A head's message has {d:number}, not {j}: its own value matrix keeps "
                    "only its own features, " + "; ".join(parts) + ".")
        legend = self.label("dots: each head's keys, in its colour", 20, MUTED)
        legend.move_to(self.legend, aligned_edge=LEFT)
        self.say(said, cued(said, cues, step=1.0,
                            opening=[*back, fade_out(self.legend), fade_in(legend)]),
                 words=words, **keys)
        several[-1].remove(self.legend)
        several[-1].add(legend)
        several[-1].add(self.beside_one_head(keeps, names[0]))

    def beside_one_head(self, keeps: Mobject, first: list[int] | None) -> Mobject:
        """Head 1's first coordinate beside the one head's, in a section of its own, in
        place of ``keeps``: the one head sent it mixed by one weight row; head 1 sends it
        with a row of its own, led by its heaviest word. Returns what stays on screen."""
        words = {"w": self.tokens[int(self.v.value(f"{self.s}.h1.top_source"))]}
        slots = {"a": f"{self.s}.wide.message[0]", "b": f"{self.s}.h1.message[0]",
                 "h": "dims.head_numbers[0]"}
        if first is not None:
            words["f"] = self.ws.lesson.features[first[0]]
            shown = "the one head sent {f} {a}; head {h} alone sends {b}"
            said = ("Beside the one head: it sent {f} {a}; head {h} alone sends {b}, with a "
                    "weight row of its own, led by “{w}”.")
        else:
            shown = "first coordinate: the one head {a}, head {h} alone {b}"
            said = ("Beside the one head: its first coordinate was {a}; head {h} alone sends "
                    "{b}, with a weight row of its own, led by “{w}”.")
        line = self.bound(shown, 20, INK, **used(shown, words, slots))
        fit(line, 12.4).move_to(keeps)
        self.section("beside the one head")  # the sizes' section ends with its line shown
        self.say(said, fade_out(keeps), fade_in(line), self.point_at(line),
                 **used(said, words, slots))
        return line

    def glossary(self, message: Mobject) -> VGroup:
        """Query, key and value in plain words, one line each, under the message."""
        lines = VGroup(*(on_baseline(VGroup(self.label(f"{term}:", GLOSS_SIZE),
                                            self.label(meaning, GLOSS_SIZE, MUTED)), 0.2)
                         for term, meaning in GLOSSARY))
        lines.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        return fit(lines, 12.0).next_to(message, DOWN, buff=0.5).set_x(0)

    def one_receiver(self) -> VGroup:
        """The receiver of one wide head, fed by a fan whose widths are its computed
        weights, with a message chip beneath; attributes ``node``, ``fan``, ``link`` and
        ``message``."""
        node = chip(self.word(self.tokens[self.last], 24, INK), INK, 3.2)
        node.move_to([0, NODE_TOP, 0])
        message = chip(self.label("one message", 22), INK).next_to(node, DOWN, buff=0.3)
        link = Arrow(node.get_bottom(), message.get_top(), buff=0.06, color=INK,
                     stroke_width=3, max_tip_length_to_length_ratio=0.3)
        fan = weighted_fan(list(self.row), node, self.v.value(f"{self.s}.wide.weights"), INK)
        reader = VGroup(fan, node, link, message)
        reader.node, reader.fan, reader.link, reader.message = node, fan, link, message
        return reader

    def shared_receiver(self, heads: Sequence[int]) -> tuple[VGroup, list[VGroup]]:
        """The receiver once, wide, fed by every head's fan (their arrows interleaved so
        that none crosses another, each leaving from a dot for that head's key; each head's
        two heaviest arrows bright, the rest faint); under it, one column per head: its
        query, then its message with its numbers, each coordinate named by the feature it
        is matched with (the query) or carries (the message) where the heads copy features.

        Returns the receiver and one group per head, with attributes ``query``, ``link``
        (receiver to query), ``keys`` (its dots), ``fan``, ``rest`` (each arrow's opacity
        when every head is shown), ``down`` (query to message) and ``message``."""
        n = len(heads)
        spacing = min(3.6, 13.2 / n)  # four heads' messages keep the hall's size
        node = chip(self.word(self.tokens[self.last], 24, INK), INK, spacing * n - 0.4)
        node.move_to([0, NODE_TOP - 0.25, 0])
        colours = [self.head_colour(head) for head in heads]
        fans = interleaved_fans(list(self.row), node,
                                [self.v.value(f"{self.s}.h{head}.weights") for head in heads],
                                colours)
        made = []
        for i, (head, colour, fan) in enumerate(zip(heads, colours, fans, strict=True)):
            x = (i - (n - 1) / 2) * spacing
            heavy = self.v.value(f"{self.s}.h{head}.order")[:2]
            rest = [float(arrow.get_stroke_opacity()) if j in heavy else SIDE_FAINT
                    for j, arrow in enumerate(fan)]
            for j, arrow in enumerate(fan):
                if j not in heavy:
                    arrow.set_stroke(opacity=SIDE_FAINT)
                    arrow.tip.set_fill(opacity=SIDE_FAINT).set_stroke(opacity=SIDE_FAINT)
            query = self.named_vector(f"{self.s}.h{head}.Q[{self.last}]", "Head {h}'s query",
                                      copied_features(self.v, head, "K"), colour,
                                      h=f"dims.head_numbers[{head - 1}]")
            fit(query, spacing - 0.3).next_to(node, DOWN, buff=0.3).set_x(x)
            name = self.bound("Head {h}'s message", 21, colour,
                              h=f"dims.head_numbers[{head - 1}]")
            numbers = self.named_vector(f"{self.s}.h{head}.message", None,
                                        copied_features(self.v, head, "V"), colour)
            message = chip(VGroup(name, numbers).arrange(DOWN, buff=0.15), colour)
            fit(message, spacing - 0.2).next_to(query, DOWN, buff=0.3)
            link = Arrow([x, node.get_bottom()[1], 0], query.get_top(), buff=0.06,
                         color=colour, stroke_width=3, max_tip_length_to_length_ratio=0.3)
            down = Arrow(query.get_bottom(), message.get_top(), buff=0.06, color=colour,
                         stroke_width=3, max_tip_length_to_length_ratio=0.3)
            keys = VGroup(*(Dot(arrow.get_start(), radius=0.05, color=colour) for arrow in fan))
            reader = VGroup(fan, keys, link, query, down, message)
            reader.query, reader.link, reader.fan, reader.keys = query, link, fan, keys
            reader.down, reader.message, reader.rest = down, message, rest
            made.append(reader)
        return node, made

    def named_vector(self, key: str, name: str | None, features: list[int] | None,
                     colour: str, **keys: str) -> Mobject:
        """A head's vector, its name (a template filled from ``keys``) over it when given:
        ``Head 1's query`` over ``[a, b]``, or, where each coordinate is one feature, over
        ``water a, finance b`` on one line (a query); without a name, one line per
        coordinate (a message)."""
        if features is None:
            numbers = self.vec(key, 20, colour)
            return numbers if name is None else VGroup(
                self.bound(name, 20, colour, **keys), numbers).arrange(DOWN, buff=0.08)
        words = {f"f{c}": self.ws.lesson.features[f] for c, f in enumerate(features)}
        slots = {f"x{c}": f"{key}[{c}]" for c in range(len(features))}
        if name is not None:
            parts = ", ".join(f"{{f{c}}} {{x{c}}}" for c in range(len(features)))
            return VGroup(self.bound(name, 20, colour, **keys),
                          self.bound(parts, 20, colour, words=words, **slots)).arrange(
                DOWN, buff=0.08)
        return VGroup(*(self.bound(f"{{f{c}}}: {{x{c}}}", 20, colour,
                                   words={f"f{c}": words[f"f{c}"]}, **{f"x{c}": slots[f"x{c}"]})
                        for c in range(len(features)))).arrange(DOWN, buff=0.08)

    def toy(self) -> None:
        """The two-source toy: one shared weight row gives one mixture; two heads, each with
        its own weight row and its own value matrix (drawn: the value each source sends
        it), give what one row cannot. One head's result stays beside the two heads' joined
        results while they are compared; it ends on the picture and the caveat."""
        heading = self.title("A two-source toy: one weight row or two?")
        sources = [self.label(f"source {name}", 24) for name in ("A", "B")]
        values = self.matrix("toy.values", size=24, row_labels=sources, h_buff=0.8,
                             col_labels=[self.label(c, 20, MUTED)
                                         for c in ("first", "second")])
        stand_in = {"a": self.ws.lesson.toy.sources[0], "b": self.ws.lesson.toy.sources[1]}
        caption = self.bound("made-up value rows: A stands in for “{a}”, B for “{b}”", 20,
                             MUTED, words=stand_in)
        caption.next_to(values, UP, buff=0.55).align_to(values, LEFT)
        table = VGroup(values, caption)
        table.move_to([-6.7 + table.width / 2, 2.0, 0])
        rows_y = [values.cells[r][0].get_y() for r in (0, 1)]
        self.bar_left = values.get_right()[0] + 0.55
        self.bar_top = values[-1].get_y()  # the column labels
        self.results_y = rows_y[-1] - 0.7
        shared = self.bar_column(self.label("one head", 20, INK), "toy.weights[0]", MUTED,
                                 INK, rows_y)
        own = [self.bar_column(self.label(f"{name} head", 20, self.head_colour(k)),
                               f"toy.weights[{k - 1}]", self.head_colour(k),
                               self.head_colour(k), rows_y, sends=k - 1)
               for k, name in ((1, "first"), (2, "second"))]
        # The table and every column, centred together in the frame.
        VGroup(table, shared, *own).shift(
            LEFT * (table.get_left()[0] + own[-1].get_right()[0]) / 2)
        self.say("A separate toy with made-up numbers: two sources, A and B, whose value "
                 "rows have two coordinates each.", Write(heading), FadeIn(table),
                 self.point_at(values, buff=0.12))

        v = {f"v{r}{c}": f"toy.values[{r}][{c}]" for r in (0, 1) for c in (0, 1)}
        w = {"a": "toy.weights[0][0]", "b": "toy.weights[0][1]",
             "c": "toy.weights[1][0]", "d": "toy.weights[1][1]"}
        self.section("one mixture")
        one = [self.bound("one head, first coordinate:  {a} × {v00} + {b} × {v10} = {m}", 24,
                          INK, a=w["a"], b=w["b"], v00=v["v00"], v10=v["v10"],
                          m="toy.one_head[0]"),
               self.bound("one head, second coordinate:  {a} × {v01} + {b} × {v11} = {m}", 24,
                          INK, a=w["a"], b=w["b"], v01=v["v01"], v11=v["v11"],
                          m="toy.one_head[1]")]
        lines = VGroup(*one)
        self.place(lines)
        one_result = self.result(shared, "toy.one_head", INK, "one head: {v}")
        self.say("One head has one weight row, {a} for A and {b} for B. The first "
                 "coordinate: {a} × {v00} + {b} × {v10} = {m};",
                 fade_in(shared.header), *map(grow, shared.bars), fade_in(one[0]),
                 self.point_at(*shared.bars, one[0], each=True), a=w["a"], b=w["b"],
                 v00=v["v00"], v10=v["v10"], m="toy.one_head[0]")
        self.say("the second, with the same pair: {m}.", fade_in(one[1], one_result),
                 self.point_at(one[1], one_result, each=True), m="toy.one_head[1]")

        self.section("two mixtures")
        two = [self.bound("first head, first coordinate only:  {a} × {v00} + {b} × {v10} = {t}",
                          24, self.head_colour(1), a=w["a"], b=w["b"], v00=v["v00"],
                          v10=v["v10"], t="toy.two_heads[0]"),
               self.bound("second head, second coordinate only:  {c} × {v01} + {d} × {v11} = "
                          "{t}", 24, self.head_colour(2), c=w["c"], d=w["d"], v01=v["v01"],
                          v11=v["v11"], t="toy.two_heads[1]")]
        joined_result = self.result(VGroup(*own), "toy.two_heads", INK, "two heads: {v}")
        why = self.label("each head's own value matrix chooses what each source sends it", 22,
                         MUTED)
        away = self.unpoint()
        with self.silence("the one head's lines make way"):
            self.play(fade_out(*one), *filter(None, [away]), run_time=0.4)
        lines = VGroup(*two)
        self.place(lines)
        why.move_to([0, lines.get_bottom()[1] - 0.9, 0])
        split = ("Two heads, each with its own value matrix: the first head reads the first "
                 "coordinate of each row, and the second head the second coordinate.")
        self.say(split, cued(split, [
            ("Two heads", AnimationGroup(fade_in(own[0].header, own[1].header), fade_in(why),
                                         self.point_at(why))),
            ("the first head", AnimationGroup(fade_in(own[0].sends),
                                              self.point_at(own[0].sends))),
            ("the second head", AnimationGroup(fade_in(own[1].sends),
                                               self.point_at(own[1].sends)))]))
        self.say("Each has its own weight row too: the first head gets {t0},",
                 *map(grow, own[0].bars), fade_in(two[0]), self.point_at(two[0]),
                 t0="toy.two_heads[0]")
        self.say("and the second, with {c} and {d}, gets {t1}.", *map(grow, own[1].bars),
                 fade_in(two[1]), self.point_at(two[1]), c=w["c"], d=w["d"],
                 t1="toy.two_heads[1]")
        ones, o_keys = vector("o", "toy.one_head", 2)
        twos, t_keys = vector("t", "toy.two_heads", 2)
        self.say("Side by side: one head gives " + ones + "; two heads give " + twos + ".",
                 fade_out(why), fade_in(joined_result),
                 self.point_at(one_result, joined_result, each=True), **o_keys, **t_keys)
        toy_values, one_mix = self.v.value("toy.values"), self.v.value("toy.one_head")
        payoff = None
        if toy_values[1][1] > toy_values[0][1] and one_mix[1] < self.v.value("toy.two_heads")[1]:
            # What is at stake, when B is the source rich in the second coordinate.
            payoff = self.bound("second coordinate: a person detail, which B carries as {vB}",
                                24, INK, vB="toy.values[1][1]")
            lines.add(payoff)
            self.place(lines)
            marks = VGroup(*(underline(glyphs) for glyphs in (
                payoff.figures_span(0, 0), one_result.figures_span(1, 1),
                joined_result.figures_span(1, 1))))
            lines.add(marks)
            self.say("Say the second coordinate is a person detail, which B carries as {vB}: "
                     "one head passes on only {o}, two heads pass on {t}.", fade_in(payoff),
                     LaggedStart(*map(Create, marks), lag_ratio=0.5),
                     self.point_at(payoff, own[1].sends, one_result, joined_result,
                                   each=True),
                     vB="toy.values[1][1]", o="toy.one_head[1]", t="toy.two_heads[1]")

        self.section("required")
        one_less = {"one": "toy.row_sums[0]"}
        define = self.bound("one shared row:  a for A,  {one} − a for B", 24, MUTED,
                            **one_less)
        needs = [self.bound("{x} = a × {vA} + ({one} − a) × {vB}   →   a = ({x} − {vB}) ÷ "
                            "({vA} − {vB}) = {r}", 24, self.head_colour(k + 1),
                            x=f"toy.two_heads[{k}]", vA=f"toy.values[0][{k}]",
                            vB=f"toy.values[1][{k}]", r=f"toy.required[{k}]", **one_less)
                 for k in (0, 1)]
        required = self.v.value("toy.required")
        clash = required[0] != required[1]
        verdict = self.label("one shared row cannot meet both" if clash
                             else "here one shared row happens to meet both", 24, MUTED)
        derivation = VGroup(define, *needs, verdict)
        self.place(derivation)
        away = self.unpoint()
        with self.silence("the worked lines make way for the question"):
            self.play(fade_out(*lines), *filter(None, [away]), run_time=0.4)
        self.say("Could one shared row give both? Call A's weight a; B then gets {one} minus a.",
                 fade_in(define), self.point_at(define), **one_less)
        self.say("For {x0}, a × {vA} + ({one} minus a) × {vB} must equal {x0}: a is {r0}.",
                 fade_in(needs[0]), self.point_at(needs[0]), x0="toy.two_heads[0]",
                 vA="toy.values[0][0]", vB="toy.values[1][0]", r0="toy.required[0]",
                 **one_less)
        self.say("For {x1}, the same steps give a = {r1}: one row cannot be both at once."
                 if clash else "For {x1}, the same steps give a = {r1}: here one row could "
                 "do both.", fade_in(needs[1], verdict), self.point_at(needs[1], verdict),
                 x1="toy.two_heads[1]", r1="toy.required[1]")

        self.section("caveat")
        caveat = VGroup(self.label("separate weighting buys this;", 26),
                        self.label("it does not prove that one head always fails", 26, MUTED))
        caveat.arrange(DOWN, buff=0.2)
        ending = VGroup(verdict.copy(), caveat).arrange(DOWN, buff=0.5)
        ending.move_to([0, (self.results_y - 0.4 + LOWEST) / 2, 0])
        self.say("The toy shows what separate weighting buys; it does not prove that one head "
                 "always fails.", fade_out(define, *needs), verdict.animate.move_to(ending[0]),
                 fade_in(caveat), self.point_at(caveat))

    def bar_column(self, header: Mobject, key: str, fill: str, ink: str,
                   rows_y: Sequence[float], sends: int | None = None) -> VGroup:
        """A column of the toy's weight bars, one per source row, set right of the last
        column drawn; with ``sends``, the head's value map after the bars: the value each
        source sends it (that coordinate of its value row). Attributes ``header``, ``bars``
        and ``sends`` (empty without a value map)."""
        bars = [self.weight_bar(f"{key}[{r}]", fill, 22, 0.3, TOY_BAR, ink) for r in (0, 1)]
        for bar, y in zip(bars, rows_y, strict=True):
            bar.shift([self.bar_left - bar.get_left()[0], y - bar.bar.get_y(), 0])
        header.move_to([self.bar_left, self.bar_top, 0], aligned_edge=LEFT)
        column = VGroup(header, *bars)
        sent = VGroup()
        if sends is not None:
            x = max(b.get_right()[0] for b in bars) + 0.3
            name = self.label("sends", 20, ink)
            cells = [self.num(f"toy.values[{r}][{sends}]", 22, ink) for r in (0, 1)]
            width = max(m.width for m in [name, *cells])
            for cell, y in zip(cells, rows_y, strict=True):
                cell.move_to([x + width, y, 0], aligned_edge=RIGHT)
            name.move_to([x + width, self.bar_top, 0], aligned_edge=RIGHT)
            sent = VGroup(name, *cells, brackets(VGroup(*cells), pad=0.1, arm=0.08))
            column.add(sent)
        column.header, column.bars, column.sends = header, bars, sent
        self.bar_left = column.get_right()[0] + 0.45
        return column

    def result(self, under: Mobject, key: str, colour: str, template: str) -> Mobject:
        """A toy result under the columns ``under``, on the results' line."""
        made = self.vec(key, 22, colour, template=template)
        return made.move_to([under.get_x(), self.results_y, 0])

    def place(self, lines: VGroup) -> None:
        """Stack the toy's lines under its table and results, left-aligned, above the
        subtitles' band."""
        lines.arrange(DOWN, buff=0.32, aligned_edge=LEFT)
        top = self.results_y - 0.4
        fit(lines, 13.0, top - LOWEST)
        lines.move_to([0, top - lines.height / 2, 0])


# ---------------------------------------------------------------------- the two readings


@dataclass
class TermRow:
    """One line of a head's message sum: a label, its weight, value row and term (any of
    them may be absent: the rest and the message have no weight or value row)."""

    label: Mobject
    weight: Mobject | None
    value: list[Mobject]
    term: list[Mobject]

    def parts(self) -> VGroup:
        return VGroup(self.label, *filter(None, [self.weight]), *self.value, *self.term)


NOTE_SIZE = 20
"""The size of the numbers over the words that explain the rest, and of a feature's name
over its note."""
NOTE_TEXT = 18
"""The size of a feature's note: its longest fits left of the receiver."""
NOTES_LEFT, NOTES_TOP = -6.8, 0.85
"""Where the feature notes stand: left of the receiver, under its leftmost arrows."""
NOTES_BOX = (4.0, 1.6)
"""The room the notes have there (width, height); notes that need more are only said."""
ELIDED_PITCH = 0.55
"""The width of a message table's elided column: the room of its "…", not of a number."""


class SettingAndPerson(LectureScene):
    """Each head's reading of the full sentence: arrows whose widths are its weights, then
    its message worked as weight × value row for its two heaviest sources, the rest of the
    sources together, and their sum, under the features its value coordinates carry."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.section("sentence")
        heading = self.title("Each head reads the sentence its own way")
        self.row = self.token_row(self.tokens, width=12.4).move_to(UP * 2.2)
        mark = self.highlight(self.row[self.last], INK)
        cast = VGroup(*(self.bound("Head {h}: {role}", 24, self.head_colour(h),
                                   h=f"dims.head_numbers[{h - 1}]",
                                   words={"role": self.ws.lesson.head_names[h - 1]})
                        for h in range(1, self.ws.n_heads + 1)))
        fit(cast.arrange(RIGHT, buff=0.8).move_to(DOWN * 1.0), 12.4)
        self.say("Back to the full sentence, and its final “{w}”.", Write(heading),
                 fade_in(self.row), Create(mark), words={"w": self.tokens[self.last]})
        self.say("For each head, arrows will run from every source to the final “{w}”, each "
                 "as wide as that head's weight for it.",
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
        """One head's panel: its fan (every arrow visible, as wide as its weight), its top
        source's weight, and its message worked term by term under its features."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        h = {"h": f"dims.head_numbers[{head - 1}]"}
        order = self.v.value(f"{p}.order")
        top = order[0]
        role = self.ws.lesson.head_names[head - 1]
        node = chip(self.word(self.tokens[self.last], 26, colour), colour, 5.0)
        node.move_to(UP * 0.35)
        fan = weighted_fan(list(self.row), node, self.v.value(f"{p}.weights"), colour)
        weight = self.num(f"{p}.weights[{top}]", 22, colour).next_to(self.row[top], UP, 0.2)
        box = self.highlight(self.row[top], colour)
        name = self.bound("Head {h}: the {role} reading", 22, colour, words={"role": role},
                          **h)
        name.next_to(node, DOWN, buff=0.15)
        table = self.terms(head)
        table.source.next_to(node, RIGHT, buff=0.4)
        first = head == 1
        self.say("Head {h}, our {role} head: each arrow is as wide as its weight, which "
                 "later clips work out step by step." if first else
                 "Now head {h}, the {role} head, with its own weights.",
                 fade_in(node, name), LaggedStart(*map(Create, fan), lag_ratio=0.08),
                 words={"role": role}, **h)
        self.say("Its largest weight goes to “{w}”: {x}; every other arrow is thinner, none "
                 "missing." if first else "This time “{w}” gets the widest arrow, {x}.",
                 Create(box), fade_in(weight), self.point_at(weight),
                 words={"w": self.tokens[top]}, x=f"{p}.weights[{top}]")
        width = self.ws.d_head
        value, v_keys = vector("v", f"{p}.V[{top}]", width)
        term, t_keys = vector("t", f"{p}.contributions[{top}]", width)
        heaviest = table.rows[0]
        named = self.feature_names(head)
        if first:
            meaning = ("" if named is None else
                       ", one number per feature: " + " then ".join(
                           "{f" + str(c) + "}" for c in range(width)))
            said = ("A value row is what a word would contribute to the message if read. "
                    "“{w}”'s, for head {h}, is " + value + meaning + ".")
            self.say(said, fade_in(table.names, heaviest.label, *heaviest.value,
                                   table.source),
                     cued(said, [(value, self.point_at(*heaviest.value, each=True))]),
                     words={"w": self.tokens[top], **({f"f{c}": named[c] for c in range(width)}
                                                      if named is not None else {})},
                     **h, **v_keys)
            self.say_notes(head, named, table)
            said = "Times its weight, {x}, it adds " + term + "."
            self.say(said, fade_in(table.later_header, heaviest.weight, *heaviest.term,
                                   table.signs[0]),
                     self.point_at(heaviest.weight, *heaviest.term, each=True),
                     x=f"{p}.weights[{top}]", **t_keys)
        else:
            said = "“{w}”'s value row for head {h}, " + value + ", times {x} adds " + term + "."
            self.say(said, fade_in(table.header, heaviest.parts(), table.signs[0],
                                   table.source),
                     cued(said, [(value, self.point_at(*heaviest.value, table.source,
                                                       each=True)),
                                 ("{x}", self.point_at(*heaviest.term))]),
                     words={"w": self.tokens[top]}, x=f"{p}.weights[{top}]", **h, **v_keys,
                     **t_keys)
        if not first:
            self.say_notes(head, named, table)
        rest, r_keys = vector("r", f"{p}.rest", width)
        if len(table.rows) > 3:  # a second source, then the rest
            second = order[1]
            more, m_keys = vector("u", f"{p}.contributions[{second}]", width)
            self.say("“{w}”, with {x}, adds " + more + "; all the others together add "
                     + rest + ".", fade_in(*(r.parts() for r in table.rows[1:3]),
                                           *table.signs[1:3]),
                     self.point_at(*table.rows[1].term, *table.rows[2].term),
                     words={"w": self.tokens[second]}, x=f"{p}.weights[{second}]", **m_keys,
                     **r_keys)
        message, m_keys = vector("m", f"{p}.message", width)
        total = table.rows[-1]
        if named is not None and None not in shown_indices(width):
            listing = ", ".join("{f" + str(c) + "} {m" + str(c) + "}" for c in range(width))
            words = {f"f{c}": named[c] for c in range(width)}
            said = "Added up, they make the message: " + listing + "."
        else:
            words, said = {}, "Added up, they make the message, " + message + "."
        self.say(said, fade_in(table.line, total.parts()), self.point_at(*total.term),
                 words=words, **m_keys)
        mostly = self.v.value(f"{p}.mostly_rest")
        if mostly >= 0 and named is not None:
            self.say("Its {f} coordinate, {m}, is mostly the rest: {r} of it comes from many "
                     "small weights.", self.point_at(total.term[mostly],
                                                     table.rows[-2].term[mostly]),
                     words={"f": named[mostly]}, m=f"{p}.message[{mostly}]",
                     r=f"{p}.rest[{mostly}]")
            table.add(self.why_the_rest(head, named[mostly], mostly))
        return VGroup(fan, node, name, box, weight, table)

    def say_notes(self, head: int, named: list[str] | None, table: VGroup) -> None:
        """Say what the head's features stand for, and show it left of the receiver (part
        of ``table`` from then on), where the worksheet notes them."""
        notes = self.notes(head, named)
        if notes is not None:
            said, words, panel = notes
            self.say(said, *([fade_in(panel), self.point_at(panel)] if panel else []),
                     words=words)
            if panel is not None:
                table.add(panel)

    def notes(self, head: int, named: list[str] | None
              ) -> tuple[str, dict[str, str], VGroup | None] | None:
        """What the features of the head's value rows stand for, from the worksheet's
        notes: the sentence that says so, its words, and the notes drawn left of the
        receiver, a feature's name over its note (``None`` where they do not fit there at
        a readable size: then they are only said). ``None`` where no feature has a note."""
        told = noted(named or [], self.ws.lesson.feature_notes)
        if told is None:
            return None
        said, words, kept = told
        colour = self.head_colour(head)
        panel = VGroup(*(VGroup(self.bound("{f}", NOTE_SIZE, colour, words={"f": feature}),
                                self.bound("{n}", NOTE_TEXT, MUTED,
                                           words={"n": self.ws.lesson.feature_notes[feature]}))
                         .arrange(DOWN, buff=0.08, aligned_edge=LEFT) for feature in kept))
        panel.arrange(DOWN, buff=0.18, aligned_edge=LEFT)
        if panel.width > NOTES_BOX[0] or panel.height > NOTES_BOX[1]:
            return said, words, None
        panel.move_to([NOTES_LEFT, NOTES_TOP, 0], aligned_edge=UL)
        return said, words, panel

    def why_the_rest(self, head: int, feature: str, c: int) -> Mobject:
        """Why many small weights add up to much of one coordinate: over each word among
        the rest, its value row's number for that feature, so that the eye sees how many
        carry some; the voice names one (the receiver's own where it is among the rest)."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        order = self.v.value(f"{p}.order")
        rest = order[2:]
        j = self.last if self.last in rest else rest[0]
        over = VGroup(*(self.num(f"{p}.V[{i}][{c}]", NOTE_SIZE, colour)
                        .next_to(self.row[i], UP, buff=0.18) for i in rest))
        said = ("Why so much? Over each of the other words stands its value row's {f}; "
                "many small weights times these add up. " +
                ("The final “{w}” alone carries {g}." if j == self.last else
                 "“{w}” alone carries {g}."))
        self.say(said, LaggedStart(*map(fade_in, over), lag_ratio=0.1),
                 self.point_at(*over, each=True), words={"w": self.tokens[j], "f": feature},
                 g=f"{p}.V[{j}][{c}]")
        return over

    def feature_names(self, head: int) -> list[str] | None:
        """The feature each of the head's value coordinates copies, by the worksheet's
        names (``params.hN.V_features``), or ``None`` where a coordinate mixes features."""
        copies = copied_features(self.v, head, "V")
        return None if copies is None else [self.ws.lesson.features[f] for f in copies]

    def terms(self, head: int) -> VGroup:
        """The message as a table: a row per heavy source (its word, weight, value row and
        weight × value row), a row for the rest, a rule and the message, under a header
        naming each coordinate's feature (or its number). Attributes ``rows`` (of
        :class:`TermRow`), ``header`` (with ``names``, over the value rows, and
        ``later_header``, the rest of it), ``signs`` (the × and = of each source row, and the
        + of the rest), ``line`` and ``source`` (what a value row is, in words)."""
        p, colour, size = f"{self.s}.h{head}", self.head_colour(head), 20
        order = self.v.value(f"{p}.order")
        shown = shown_indices(self.ws.d_head)
        names = self.feature_names(head)

        def cells(key: str, tint: str = INK) -> list[Mobject]:
            return [self.label("…", size, MUTED) if c is None else
                    self.num(f"{key}[{c}]", size, tint) for c in shown]

        rows = [TermRow(self.bound("“{w}”", size, words={"w": self.tokens[j]}),
                        self.num(f"{p}.weights[{j}]", size, colour),
                        cells(f"{p}.V[{j}]"), cells(f"{p}.contributions[{j}]"))
                for j in order[:2]]
        if len(order) > 2:
            rows.append(TermRow(self.label("all the others", size, MUTED), None, [],
                                cells(f"{p}.rest")))
        rows.append(TermRow(self.label("message", size), None, [],
                            cells(f"{p}.message", colour)))
        if names is None:  # a coordinate's number is a figure: at the hall's size
            heads = [self.label("…", 18, MUTED) if c is None else
                     self.bound("value {n}", LEAST_FIGURE_SIZE, MUTED, n=f"dims.value_numbers[{c}]")
                     for c in shown]
        else:
            heads = [self.label("…", 18, MUTED) if c is None else
                     self.bound("{f}", 18, MUTED, words={"f": names[c]}) for c in shown]
        copies = [h.copy() for h in heads]
        pitch = max(m.width for r in rows for m in [*r.value, *r.term, *heads]) + 0.3
        # The elided middle takes only the room of its "…": wide heads keep their size.
        widths = [ELIDED_PITCH if c is None else pitch for c in shown]
        ends = list(np.cumsum(widths))  # each column's right edge, from the block's left
        label_w = max(r.label.width for r in rows)
        weight_w = max(r.weight.width for r in rows if r.weight is not None)
        x_weight = -6.4 + label_w + 0.35
        x_times = x_weight + weight_w + 0.3
        x_value = x_times + 0.45
        x_equals = x_value + ends[-1] + 0.05
        x_term = x_equals + 0.5
        ys = [-0.55 - 0.42 * (i + 1) for i in range(len(rows))]
        ys[-1] -= 0.12  # under the rule
        signs = []
        for row, y in zip(rows, ys, strict=True):
            row.label.move_to([-6.4, y, 0], aligned_edge=LEFT)
            if row.weight is not None:
                row.weight.move_to([x_weight, y, 0], aligned_edge=LEFT)
                times = self.label("×", size).move_to([x_times + 0.1, y, 0])
                equals = self.label("=", size).move_to([x_equals + 0.2, y, 0])
                signs.append(VGroup(times, equals))
            for k, cell in enumerate(row.value):
                cell.move_to([x_value + ends[k] - 0.15, y, 0], aligned_edge=RIGHT)
            for k, cell in enumerate(row.term):
                cell.move_to([x_term + ends[k] - 0.15, y, 0], aligned_edge=RIGHT)
            for mob in [row.label, row.weight, *row.value, *row.term]:
                if mob is not None:
                    mob.set_y(y)
        if len(order) > 2:
            signs.append(self.label("+", size).move_to([x_equals + 0.2, ys[-2], 0]))
        for k, (a, b) in enumerate(zip(heads, copies, strict=True)):
            a.move_to([x_value + ends[k] - widths[k] / 2 - 0.15, -0.55, 0])
            b.move_to([x_term + ends[k] - widths[k] / 2 - 0.15, -0.55, 0])
        header = VGroup(*heads, *copies)
        right = x_term + ends[-1]
        line = Line([x_term, (ys[-1] + ys[-2]) / 2, 0], [right, (ys[-1] + ys[-2]) / 2, 0],
                    stroke_color=MUTED, stroke_width=1.5)
        weight_head = self.label("weight", 18, MUTED).move_to([x_weight, -0.55, 0],
                                                               aligned_edge=LEFT)
        header.add(weight_head)
        table = VGroup(header, *(r.parts() for r in rows), *signs, line)
        if table.width > 13.2:  # wide heads: the elided rows still fit, a little smaller
            table.scale(13.2 / table.width, about_point=[table.get_x(), -0.55, 0])
        table.shift(RIGHT * (-table.get_center()[0]))
        source = VGroup(self.label("value row: what a word", 18, MUTED),
                        self.label("would contribute if read", 18, MUTED))
        source.arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        table.add(source)
        table.rows, table.header, table.signs, table.line = rows, header, signs, line
        table.source, table.names = source, VGroup(*heads)
        table.later_header = VGroup(*copies, weight_head)
        return table

    def side_by_side(self, heading: Mobject) -> None:
        """All heads at once into the one receiver: each head's fan interleaved with the
        others' so that none crosses another, only each head's two heaviest arrows bright
        (the rest faint); under the receiver, each head's message with every coordinate
        named by the feature it carries (or numbered)."""
        n = self.ws.n_heads
        spacing = min(3.6, 12.4 / n)
        node = chip(self.word(self.tokens[self.last], 24, INK), INK, spacing * n - 0.4)
        node.move_to([0, -0.35, 0])
        colours = [self.head_colour(head) for head in range(1, n + 1)]
        fans = interleaved_fans(list(self.row), node,
                                [self.v.value(f"{self.s}.h{head}.weights")
                                 for head in range(1, n + 1)], colours, 12.0)
        faint = []
        for head, fan in enumerate(fans, start=1):
            heavy = self.v.value(f"{self.s}.h{head}.order")[:2]
            faint += [arrow for j, arrow in enumerate(fan) if j not in heavy]
        columns = VGroup()
        for head, colour in enumerate(colours, start=1):
            name = self.bound("Head {h}: {role}", 22, colour,
                              h=f"dims.head_numbers[{head - 1}]",
                              words={"role": self.ws.lesson.head_names[head - 1]})
            columns.add(VGroup(name, self.named_message(head)).arrange(DOWN, buff=0.2))
        for i, column in enumerate(columns):
            fit(column, spacing - 0.3)
            column.move_to([(i - (n - 1) / 2) * spacing, 0, 0])
            column.align_to(node, UP).shift(DOWN * (node.height + 0.35))
        links = VGroup(*(Arrow([column.get_x(), node.get_bottom()[1], 0], column.get_top(),
                               buff=0.04, stroke_width=3, color=colour,
                               max_tip_length_to_length_ratio=0.4)
                         for column, colour in zip(columns, colours, strict=True)))
        note = self.label("hand-chosen numbers, not a trained model", 22, MUTED)
        note.next_to(heading, DOWN, buff=0.25)
        self.say("All the heads read the same words at once, and the final “{w}” gets "
                 "{n:message}, one from each head, kept apart.",
                 self.retitle(heading, "Reading with {h:all head} at once", h="dims.heads"),
                 fade_in(node), LaggedStart(*(LaggedStart(*map(Create, fan), lag_ratio=0.05)
                                              for fan in fans), lag_ratio=0.4),
                 LaggedStart(*(AnimationGroup(Create(link), fade_in(column))
                               for link, column in zip(links, columns, strict=True)),
                             lag_ratio=0.4),
                 n="dims.heads", words={"w": self.tokens[self.last]})
        self.say("Each head's two heaviest arrows stay bright; its small weights fade back.",
                 *(arrow.animate.set_stroke(opacity=SIDE_FAINT).set_fill(opacity=SIDE_FAINT)
                   for arrow in faint))
        self.say("These are hand-chosen numbers; the role names say what we built each head "
                 "to do, not jobs a trained model is given.", fade_in(note),
                 self.point_at(note, *(column[0] for column in columns), each=True))

    def named_message(self, head: int) -> VGroup:
        """A head's message, one line per shown coordinate: the feature it carries (or its
        number) and its value, in the head's colour; an ellipsis for elided ones."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        names = self.feature_names(head)
        lines = VGroup()
        for c in shown_indices(self.ws.d_head):
            if c is None:
                lines.add(self.label("…", 20, MUTED))
            elif names is None:
                lines.add(self.bound("value {n}: {m}", 20, colour, n=f"dims.value_numbers[{c}]",
                                     m=f"{p}.message[{c}]"))
            else:
                lines.add(self.bound("{f}: {m}", 20, colour, words={"f": names[c]},
                                     m=f"{p}.message[{c}]"))
        lines.arrange(DOWN, buff=0.1)
        return chip(lines, colour)


# ---------------------------------------------------------------------- the Maya recall


MAYA = ("Maya", "reached", "the", "door", ".", "She")
"""Part II's example in words: at "She", the query looks for a person, and Maya offers one."""
ROLES = ("query", "key", "value")
MAYA_WIDTH = 8.0
"""The Maya sentence spans this much, so that the cards under "Maya" and "She" leave room
between them for the arrow that says they match, and the weight row's name and the note
on She's own weight fit either side of it."""
MAYA_STUB = 0.14
SCORE_BOX = 0.24
"""The side of an empty box that stands for one word's score under the Maya sentence,
before the softmax turns it into a weight bar."""
"""A word other than Maya gets a weight bar this long: a stub that shows it has a weight,
far smaller than Maya's."""
MAYA_WORDS_Y = 1.95
"""Where the Maya sentence stands; its weight bars, then the cards, come under it."""
MAYA_CARDS_Y = (0.3, -0.95)
"""The heights of the two rows of cards: query and key, then value and message."""
PLAN_SIZE = 24
"""The size of the lines that say what our sentence's query, keys and values will be."""


class MayaRecall(LectureScene):
    """Before any head is split off: Part II's query, key and value, recalled in words on
    its own sentence (Maya and "She"), with the scores and softmax that turn matches into
    weights, then handed on to our sentence, whose final word asks about the blank after it.

    It opens on Part II's one attention: a small map with one attention block lit, and that
    block opened up, one word's row branching into a query, a key and a value."""

    draws_its_own_map = True

    def construct(self) -> None:
        self.section("where we are")
        opening = self.where_in_the_model()
        self.section("in words")
        with self.silence("the map gives way to the recall"):
            self.play(fade_out(opening), self.unpoint(), run_time=0.5)
        heading = self.title("Recall: query, key and value")
        picture = self.in_words(heading)
        self.section("our sentence")
        self.ahead(heading, picture)

    def where_in_the_model(self) -> VGroup:
        """Part II's model, small: the rows, one attention block (lit: the part's step),
        then on to the next word; under it that block opened up, one word's row branching
        into a query, a key and a value. No heads: they are split off later. Returns what
        it drew."""
        opened = part("recall")
        self.where = opened.steps  # the attention step, drawn as the one block it was

        def stage(lines: Sequence[str], lit: bool) -> VGroup:
            texts = VGroup(*(self.label(text, 20, INK if lit else MUTED) for text in lines))
            return panel(texts.arrange(DOWN, buff=0.06), INK if lit else FAINT, buff=0.1,
                         stroke=3.0 if lit else 1.5)

        block = stage(("attention",), True)
        strip = VGroup(stage(("token", "+ position"), False), block,
                       self.label("…", 20, MUTED), stage(("next", "word"), False))
        strip.arrange(RIGHT, buff=0.6).move_to([0, 2.6, 0])
        wires = VGroup(*(Arrow(a.get_right(), b.get_left(), buff=0.08, color=FAINT,
                               stroke_width=2, tip_length=0.1,
                               max_tip_length_to_length_ratio=0.5)
                         for a, b in pairwise(strip)))
        row = chip(VGroup(self.label("one word's row", 24),
                          self.label("its token's numbers + its position's numbers", 18,
                                     MUTED)).arrange(DOWN, buff=0.1), INK)
        roles = VGroup(*(chip(self.label(role, 26), INK, 2.0) for role in ROLES))
        roles.arrange(RIGHT, buff=0.7).next_to(row, DOWN, buff=1.0)
        branches = VGroup(*(Arrow(row.get_bottom(), role.get_top(), buff=0.08, color=INK,
                                  stroke_width=3, max_tip_length_to_length_ratio=0.2)
                            for role in roles))
        name = self.label("one attention, no heads yet", 22, MUTED)
        inside = VGroup(name, VGroup(row, branches, roles)).arrange(DOWN, buff=0.35)
        opened_up = panel(inside, INK, buff=0.3)
        opened_up.next_to(strip, DOWN, buff=0.7).set_x(0)
        zoom = VGroup(*(DashedVMobject(Line(block.get_corner(DOWN + side),
                                            opened_up.get_corner(UP + side)),
                                       num_dashes=12, dashed_ratio=0.5).set_stroke(FAINT, 1.5)
                        for side in (LEFT, RIGHT)))
        said = opened.opening
        cues = [(fragment, step) for fragment, step in (
            ("attention", AnimationGroup(Create(zoom), fade_in(opened_up[0], name),
                                         self.point_at(block))),
            ("each row", AnimationGroup(fade_in(row), self.point_at(row))),
            ("a query", AnimationGroup(LaggedStart(*map(Create, branches), lag_ratio=0.3),
                                       LaggedStart(*map(fade_in, roles), lag_ratio=0.3),
                                       self.point_at(*roles, each=True))))
            if fragment in said]
        self.say(said, cued(said, cues, step=1.2, opening=[Fade(strip, wires)]))
        return VGroup(strip, wires, zoom, opened_up)

    def in_words(self, heading: Mobject) -> VGroup:
        """Part II's verbal example on its own sentence: She's query asks for a person,
        Maya's key matches, every word gets a weight (She's own too), and Maya's value
        carries details. No worksheet numbers and no formula: the real vectors hold them."""
        badge = self.label("Part II's example, in words; real vectors hold numbers", 20,
                           MUTED).next_to(heading, DOWN, buff=0.2)
        labels = [self.label(w, 30) for w in MAYA]
        gap = (MAYA_WIDTH - sum(w.width for w in labels)) / (len(labels) - 1)
        words = on_baseline(VGroup(*labels), max(0.3, gap)).move_to(UP * MAYA_WORDS_Y)
        maya, she = words[0], words[-1]
        box = self.highlight(she, MUTED)
        query = self.card("She's query", "looking for: a person")
        key = self.card("Maya's key", "can be found as: a person")
        value = self.card("Maya's value", "passes on: details about Maya")
        got = self.card("She's message", "receives: details about Maya")
        upper, lower = MAYA_CARDS_Y
        for card, word, y in ((query, she, upper), (key, maya, upper), (value, maya, lower),
                              (got, she, lower)):
            card.move_to([max(-6.6 + card.width / 2, min(word.get_x(), 6.6 - card.width / 2)),
                          y, 0])
        match = Arrow(query.get_left(), key.get_right(), buff=0.15, color=INK,
                      stroke_width=4, max_tip_length_to_length_ratio=0.08)
        note = self.label("good match", 22, MUTED).next_to(match, UP, buff=0.1)
        carry = Arrow(value.get_right(), got.get_left(), buff=0.15, color=INK,
                      stroke_width=4, max_tip_length_to_length_ratio=0.08)
        scaled = self.label("× Maya's weight", 18, MUTED).next_to(carry, DOWN, buff=0.2)
        score = VGroup(self.label("score: how well a word's key matches the query", 22),
                       self.label("softmax over every word's score → weights that sum to one",
                                  22, MUTED)).arrange(DOWN, buff=0.15)
        score.next_to(VGroup(value, got, scaled), DOWN, buff=0.35).set_x(0)
        weights = self.maya_weights(words)
        scored = ("Every word's key gets a score, She's own too; a softmax turns the scores "
                  "into weights, Maya's the largest by far.")
        self.say("In Part II's example, at “She”, the query looks for a person.",
                 Write(heading), fade_in(badge, words), Create(box), fade_in(query),
                 self.point_at(box, query, each=True))
        self.say("Maya's key offers one: a good match.",
                 fade_in(key), Create(match), fade_in(note), self.point_at(maya, key, each=True))
        self.say(scored, cued(scored, [
            ("Every word's", AnimationGroup(fade_in(score[0], weights.scored),
                                            LaggedStart(*map(Create, weights.scores),
                                                        lag_ratio=0.15),
                                            self.point_at(weights.scored, *weights.scores))),
            ("She's own", AnimationGroup(fade_in(weights.asker),
                                         self.point_at(weights.scores[-1], weights.asker))),
            ("a softmax", AnimationGroup(
                fade_in(score[1]), fade_out(weights.scored), fade_in(weights.name),
                *(ReplacementTransform(box, bar)
                  for box, bar in zip(weights.scores, weights.bars, strict=True)),
                self.point_at(score[1]))),
            ("Maya's the", self.point_at(weights.bars[0]))], step=1.0))
        weights.remove(*weights.scores, weights.scored)  # the boxes became the bars
        weights.add(*weights.bars)
        self.say("So “She” receives mostly Maya's value, scaled by her weight.",
                 fade_in(value), Create(carry), fade_in(scaled), fade_in(got),
                 self.point_at(VGroup(carry, scaled)))
        return VGroup(badge, words, box, query, key, value, match, note, carry, scaled, got,
                      score, weights)

    def maya_weights(self, words: VGroup) -> VGroup:
        """Under each word of the Maya sentence, first an empty box for its score at "She"
        (a score, no number: the example has none), then a bar for its weight, into which
        the box turns: Maya's as wide as her name, every other word's a short stub, She's
        own too, with a note that the word that asks is one of the words it reads. A picture
        of the softmax's winner in words, no worksheet numbers; attributes ``scores`` (the
        boxes), ``scored`` (their row's name), ``name`` (the bars' row's name), ``bars``
        and ``asker``. The bars are not in the group: each box turns into its bar."""
        y = words.get_bottom()[1] - 0.32
        bars = [Rectangle(width=word.width if k == 0 else MAYA_STUB, height=0.16,
                          fill_color=INK, fill_opacity=1.0, stroke_width=0)
                .move_to([word.get_left()[0], y, 0], aligned_edge=LEFT)
                for k, word in enumerate(words)]
        scores = [Rectangle(width=SCORE_BOX, height=SCORE_BOX, stroke_color=INK,
                            stroke_width=2, fill_opacity=0.0)
                  .move_to([word.get_left()[0], y, 0], aligned_edge=LEFT) for word in words]
        name = self.label("weight at “She”", 20, MUTED)
        name.next_to(bars[0], LEFT, buff=0.3).set_y(y)
        scored = self.label("score at “She”", 20, MUTED)
        scored.move_to(name, aligned_edge=RIGHT)
        asker = VGroup(self.label("She asks, and", 18, MUTED),
                       self.label("reads herself too", 18, MUTED)).arrange(DOWN, buff=0.08,
                                                                         aligned_edge=LEFT)
        asker.next_to(words[-1], RIGHT, buff=0.25).align_to(words[-1], UP)
        made = VGroup(scored, *scores, name, asker)
        made.name, made.bars, made.asker = name, bars, asker
        made.scores, made.scored = scores, scored
        return made

    def ahead(self, heading: Mobject, picture: VGroup) -> None:
        """Our sentence, ending in a blank to predict; its final token, the last word
        known, is the one that asks, as "She" did. The numbers are left to later clips."""
        tokens = self.ws.sentences[self.ws.walkthrough]
        last = len(tokens) - 1
        row = self.token_row(tokens, width=11.2)
        blank = self.label("___", 30)
        row.add(blank.next_to(row, RIGHT, buff=0.25).align_to(row[0], DOWN))
        row.move_to(UP * 1.2)
        goal = self.label("predict the next word", 24)
        goal.next_to(row, UP, buff=0.75).align_to(blank, RIGHT)
        aim = Arrow([blank.get_x(), goal.get_bottom()[1], 0], blank.get_top(), buff=0.1,
                    color=INK, stroke_width=3, tip_length=0.16,
                    max_tip_length_to_length_ratio=0.4)
        box = self.highlight(row[last], INK)
        asks = self.bound("“{w}”: the last word known, so it asks", 24, INK,
                          words={"w": tokens[last]})
        asks.next_to(box, DOWN, buff=0.35).align_to(blank, RIGHT)
        receiver = {"w": tokens[last]}
        plan = VGroup(*(on_baseline(VGroup(self.label(f"{role}:", PLAN_SIZE),
                                           self.bound(text, PLAN_SIZE, MUTED, **slots)), 0.2)
                        for role, text, slots in (
                            ("query", "what “{w}” looks for", {"words": receiver}),
                            ("keys", "what each of the {n:word} offers", {"n": "dims.tokens"}),
                            ("values", "what the weights mix into the message “{w}” receives",
                             {"words": receiver}))))
        fit(plan.arrange(DOWN, buff=0.3, aligned_edge=LEFT), 12.0)
        plan.next_to(asks, DOWN, buff=0.6).set_x(0)
        self.say("Our own sentence stops at a blank: the next word, to predict.",
                 fade_out(picture), self.retitle(heading, "Next: our own sentence"),
                 fade_in(row), Create(aim), fade_in(goal), self.point_at(blank, goal, each=True))
        self.say("The word before it, the final “{w}”, asks, as “She” did.",
                 Create(box), fade_in(asks, plan[0]), self.point_at(box, asks, each=True),
                 words=receiver)
        self.say("Later clips work out its query, the keys and the values, step by step.",
                 LaggedStart(*map(fade_in, plan[1:]), lag_ratio=0.5),
                 self.point_at(plan, buff=0.2))

    def card(self, role: str, text: str) -> VGroup:
        """A role name over what it says, in a box: a word picture of one vector."""
        body = VGroup(self.label(role, 24), self.label(text, 20, MUTED)).arrange(DOWN, buff=0.12)
        return chip(body, FAINT, 3.8)
