"""The final receiver's projections in each head (clip 07: ReceiverProjections)."""

from __future__ import annotations

from collections.abc import Sequence

from manim import (
    DOWN,
    RIGHT,
    UP,
    Mobject,
    VGroup,
    Write,
)

from scenes.kit import (
    ENGLISH,
    MUTED,
    SAFE_BOTTOM,
    LectureScene,
    copied_features,
    fade_in,
    fade_out,
    fit,
    model_map,
    shown_indices,
    vector,
)

MIN_SCALE = 0.8
"""Smallest shrink that keeps the projections' smallest labels legible at 480p."""


class ReceiverProjections(LectureScene):
    """What a row's coordinates stand for, each head's query for the final receiver (one
    column of W_Q per query coordinate), and its top source's key and value; the second head
    onwards says only what differs."""

    draws_its_own_map = True  # it opens with the map, heads lit

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.shown: VGroup | None = None
        self.section("where we are")
        heading = self.title("Back inside the heads: projections")
        whole = model_map(self, lit=("heads",), size=20).move_to(DOWN * 0.2)
        self.say("We are back inside the heads, at their first step.", Write(heading),
                 fade_in(whole), self.point_at(whole.stages["heads"]))
        self.say("Each head projects the final receiver's row into its own query.",
                 self.point_at(whole.stages["embeddings"], whole.stages["heads"]))
        self.shown = VGroup(heading, whole)
        for head in range(1, self.ws.n_heads + 1):
            self.section(f"head {head} query")
            if head == 1:
                self.first_query()
            else:
                self.later_query(head)
            self.source_rows(head)

    def clear(self) -> None:
        """Fade out what the previous step left on screen, and its pointer."""
        if self.shown is not None:
            self.play(*filter(None, [self.unpoint()]), fade_out(self.shown))

    def feature_words(self, indices: Sequence[int], name: str = "f") -> tuple[str, dict]:
        """``{f0}, {f1} and {f2}``: the features named, and the words that fill them."""
        named = {f"{name}{k}": self.ws.lesson.features[i] for k, i in enumerate(indices)}
        return ENGLISH.join(["{" + slot + "}" for slot in named]), named

    def query_picture(self, head: int) -> tuple[Mobject, VGroup]:
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        heading = self.title("Head {h}: the receiver's query",
                             h=f"dims.head_numbers[{head - 1}]").set_color(colour)
        query = self.projection(self.last, [(f"params.h{head}.W_Q", f"{p}.Q", "W_Q", "q")],
                                colour, heading)
        return heading, query

    def first_query(self) -> None:
        """The receiver's row and what its coordinates mean, then the row times W_Q: one
        column of W_Q per query coordinate."""
        p, number = f"{self.s}.h1", "dims.head_numbers[0]"
        self.clear()
        heading, query = self.query_picture(1)
        source, pieces = query
        cells = [cell for cell in source.cells[0]]
        shown = shown_indices(self.ws.d_model)
        listing, named = self.feature_words(range(self.ws.d_model))
        self.tell("The receiver's row has one coordinate per feature, each named by hand for "
                  "this example: " + listing + ".", Write(heading), fade_in(source),
                  cues=[("feature", lambda: self.point_at(source[-1]))], words=named)
        row = self.v.value(f"{self.s}.E[{self.last}]")
        largest = max((c for c in shown if c is not None), key=lambda c: row[c])
        alone = all(x == 0 for c, x in enumerate(row) if c != largest) and row[largest] > 0
        words = {"w": self.tokens[self.last], "f": self.ws.lesson.features[largest]}
        cell = cells[shown.index(largest)]
        template = ("“{w}” holds only {f}, {x}: {f} is a toy feature we gave to function "
                    "words such as “{w}”." if alone else
                    "Of the coordinates shown, the largest in “{w}”'s row is {f}, {x}.")
        self.tell(template, cues=[("{x}", lambda: self.point_at(cell))], words=words,
                  x=f"{self.s}.E[{self.last}][{largest}]")
        self.tell("A real model learns its own features, and they need not have names.",
                  cues=[("features", lambda: self.point_at(source[-1]))])
        W, result = query.matrices[0], query.results[0]
        column = VGroup(*(r[0] for r in W.cells))
        first = result.cells[0][0]
        self.tell("Head {h} multiplies this row by its own W_Q.", fade_in(pieces),
                  cues=[("W_Q", lambda: self.point_at(W))], h=number)
        self.tell("The query's first coordinate is this row dotted with the first column of "
                  "W_Q: {x}.", cues=[("first column", lambda: self.point_at(
                      source.body, column, first, each=True))],
                  x=f"{p}.Q[{self.last}][0]")
        inner, keys = vector("q", f"{p}.Q[{self.last}]", self.ws.d_head)
        self.tell("Each coordinate has its own column; together they make the query "
                  + inner + ".", cues=[("query", lambda: self.point_at(result))], **keys)
        self.shown = VGroup(heading, query)

    def later_query(self, head: int) -> None:
        """The same row through this head's own W_Q: only what differs is said."""
        p, number = f"{self.s}.h{head}", f"dims.head_numbers[{head - 1}]"
        self.clear()
        heading, query = self.query_picture(head)
        W, result = query.matrices[0], query.results[0]
        inner, keys = vector("q", f"{p}.Q[{self.last}]", self.ws.d_head)
        self.tell("Head {h} takes the same row through its own W_Q, so the query changes: "
                  + inner + ".", Write(heading), fade_in(query),
                  cues=[("W_Q", lambda: self.point_at(W)),
                        ("changes", lambda: self.point_at(result))], h=number, **keys)
        q = self.v.value(f"{p}.Q[{self.last}]")
        live = [c for c, x in enumerate(q) if x != 0]
        keyed = copied_features(self.v, head, "K")
        if len(live) == 1 and keyed is not None and live[0] in shown_indices(len(q)):
            c = live[0]
            cell = result.cells[0][shown_indices(len(q)).index(c)]
            self.tell("Only one coordinate is nonzero, and this head's keys hold {f} there: "
                      "the query asks for {f}.", cues=[("Only", lambda: self.point_at(cell))],
                      words={"f": self.ws.lesson.features[keyed[c]]})
        self.shown = VGroup(heading, query)

    def source_rows(self, head: int) -> None:
        """The top source's row times W_K and W_V: side by side when both fit legibly,
        otherwise one after the other."""
        p, colour = f"{self.s}.h{head}", self.head_colour(head)
        top = self.v.value(f"{p}.top_source")
        heading = self.bound("Head {h}: the key and value of “{w}”", 34, colour,
                             h=f"dims.head_numbers[{head - 1}]", words={"w": self.tokens[top]})
        heading.move_to(self.shown[0])
        key = (f"params.h{head}.W_K", f"{p}.K", "W_K", "k")
        value = (f"params.h{head}.W_V", f"{p}.V", "W_V", "v")
        inner_k, keys_k = vector("k", f"{p}.K[{top}]", self.ws.d_head)
        inner_v, keys_v = vector("v", f"{p}.V[{top}]", self.ws.d_head)
        words = {"w": self.tokens[top]}
        same = self.v.value(f"params.h{head}.W_K") == self.v.value(f"params.h{head}.W_V")
        keyed = copied_features(self.v, head, "K")
        both = self.projection(top, [key, value], colour, heading)
        if both.scaled >= MIN_SCALE:
            self.section(f"head {head} key and value")
            self.clear()
            if head > 1:
                self.tell("Its strongest source, “{w}”, gives the key " + inner_k + " and the "
                          "value " + inner_v + ".", fade_in(heading, both),
                          cues=[("key", lambda: self.point_at(both.results[0])),
                                ("value", lambda: self.point_at(both.results[1]))],
                          words=words, **keys_k, **keys_v)
                self.differs(head, keyed, both.matrices[0])
                self.shown = VGroup(heading, both)
                return
            self.tell("Its strongest source, “{w}”, sends its own row through W_K and W_V.",
                      fade_in(heading, both), cues=[("W_K", lambda: self.point_at(
                          *both.matrices, each=True))], words=words)
            holds, named = ("", {}) if keyed is None else self.feature_words(
                [keyed[c] for c in range(self.ws.d_head) if c in shown_indices(self.ws.d_head)],
                "g")
            self.tell("The key " + inner_k + (", its " + holds + "," if holds else "")
                      + " decides how well it matches;",
                      cues=[("key", lambda: self.point_at(both.results[0]))],
                      words=named, **keys_k)
            self.tell("the value " + inner_v + " is what it would pass on.",
                      cues=[("value", lambda: self.point_at(both.results[1]))], **keys_v)
            if same:
                note = self.label("same entries here, two separate parameters", 20, MUTED)
                note.next_to(VGroup(*both.matrices), DOWN, buff=0.25)
                if note.get_bottom()[1] < SAFE_BOTTOM + 0.1:
                    note.next_to(both[0], RIGHT, buff=0.4)
                self.tell("W_K and W_V have equal entries here only to keep the arithmetic "
                          "easy; they are separate parameters with different jobs.",
                          fade_in(note), cues=[("equal", lambda: self.point_at(
                              *both.matrices, each=True))])
                both.add(note)
            self.shown = VGroup(heading, both)
            return
        self.section(f"head {head} key")
        self.clear()
        first = self.projection(top, [key], colour, heading)
        self.tell("Its strongest source, “{w}”, sends its own row through W_K:",
                  fade_in(heading, first), cues=[("W_K", lambda: self.point_at(
                      first.matrices[0]))], words=words)
        self.tell("the key " + inner_k + " decides how well it matches.",
                  cues=[("key", lambda: self.point_at(first.results[0]))], **keys_k)
        if head > 1:
            self.differs(head, keyed, first.matrices[0])
        self.section(f"head {head} value")
        second = self.projection(top, [value], colour, heading)
        self.play(*filter(None, [self.unpoint()]), fade_out(first))
        self.tell("The same row through W_V gives the value " + inner_v + ", what “{w}” "
                  "would pass on if chosen.", fade_in(second),
                  cues=[("value", lambda: self.point_at(second.results[0]))], words=words,
                  **keys_v)
        if same and head == 1:
            self.tell("W_V has the same entries as W_K here only to keep the arithmetic easy; "
                      "they are separate parameters with different jobs.",
                      cues=[("W_V", lambda: self.point_at(second.matrices[0]))])
        self.shown = VGroup(heading, second)

    def differs(self, head: int, keyed: list[int] | None, matrix: Mobject) -> None:
        """What this head's keys hold, against the first head's: said only when both key
        matrices copy one feature per column."""
        first = copied_features(self.v, 1, "K")
        if keyed is None or first is None or keyed == first:
            return
        columns = [c for c in range(self.ws.d_head) if c in shown_indices(self.ws.d_head)]
        mine, named = self.feature_words([keyed[c] for c in columns], "f")
        theirs, other = self.feature_words([first[c] for c in columns], "g")
        self.tell("Its W_K reads " + mine + ", where head {h}'s read " + theirs + ".",
                  cues=[("W_K", lambda: self.point_at(matrix))],
                  words={**named, **other}, h="dims.head_numbers[0]")

    def feature(self, index: int | None, size: float) -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided coordinate."""
        if index is None:
            return self.label("…", size, MUTED)
        return self.bound("{f}", size, MUTED, words={"f": self.ws.lesson.features[index]})

    def projection(self, row: int, products: Sequence[tuple[str, str, str, str]],
                   colour: str, heading: Mobject) -> VGroup:
        """Token ``row``'s input row on top; beneath it ``× W = result`` for each product.

        ``products`` holds (matrix key, result key, matrix name, result name).
        """
        size = 24
        width = self.ws.d_model
        names = [self.feature(c, 20) for c in shown_indices(width)]
        spacing = max(0.5, max(name.width for name in names) + 0.3 - 0.35)
        source = self.matrix(f"{self.s}.E", rows=[row], size=size, h_buff=spacing,
                             row_labels=[self.word(self.tokens[row], 28)],
                             col_labels=names)
        pieces, results, matrices = VGroup(), [], []
        for matrix_key, result_key, matrix_name, result_name in products:
            W = self.matrix(matrix_key, size=size, colour=colour,
                            row_labels=[self.feature(i, 20) for i in range(width)])
            W.add(self.label(matrix_name, 26, colour).next_to(W.brackets, UP, buff=0.15))
            result = self.matrix(result_key, rows=[row], size=size, colour=colour)
            result.add(self.label(result_name, 26, colour).next_to(result.brackets, UP, 0.15))
            results.append(result)
            matrices.append(W)
            pieces.add(VGroup(self.label("×", 30), W, self.label("=", 30), result)
                       .arrange(RIGHT, buff=0.3))
        pieces.arrange(RIGHT, buff=1.0, aligned_edge=UP)
        group = VGroup(source, pieces).arrange(DOWN, buff=0.7)
        top = heading.get_bottom()[1] - 0.4
        room = top - (SAFE_BOTTOM + 0.2)  # a pointer's outline stays above the band too
        before = group.width
        fit(group, 13.0, room)
        group.scaled = group.width / before
        group.results, group.matrices = results, matrices
        return group.move_to([0, top - room / 2, 0])
