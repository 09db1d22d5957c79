"""The opening story: the prompt, kinds of detail, one head against two, two readings."""

from __future__ import annotations

from manim import DOWN, RIGHT, UP, Create, FadeIn, Write

from scenes.kit import LectureScene


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
        blank = self.label("next word?", 22).next_to(row[-1], UP, buff=0.3)
        self.say("The blank has no row yet. Everything we compute serves one goal: "
                 "a better guess for that blank.", FadeIn(row[-1]), FadeIn(blank))
        self.wait(0.5)
