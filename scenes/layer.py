"""The layer's machinery: where the heads sit in the model, query, key and value roles, one
head as code, every shape, the final receiver's projections in each head, and one wide head
against the separate heads."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Create,
    FadeIn,
    LaggedStart,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.kit import (
    BAR_UNIT,
    ENGLISH,
    INK,
    MUTED,
    NEGATIVE,
    SAFE_BOTTOM,
    LectureScene,
    brackets,
    code,
    copied_features,
    fade_in,
    fade_out,
    fit,
    grow,
    model_map,
    panel,
    shown_indices,
    vector,
)
from scenes.kit import joined as slots_of
from scenes.kit.topic import mask_grid

CARD_SIZE = 22
CODE_SIZE = 19
MAP_SIZE = 28
"""Label size of this file's model maps: the whole frame wide, legible at 480p."""
QUERY_GAP = 0.6
"""Gap between the joined W_Q and the wide query under it (before the page's scale)."""
LEGIBLE_ENTRY = 15.5
"""Smallest size a matrix entry is drawn at: legible at 480p, with a little to spare."""
MIN_SCALE = 0.8
"""Smallest shrink that keeps the projections' smallest labels legible at 480p."""
OUTLINE_ROOM = 0.16
"""Gap between a whole matrix and a pointer's outline round it: clear of its brackets' arms
and of its name above."""
POINTER_ROOM = 0.22
"""Gap between a row of numbers and its brackets, so that the outline round an end
number (a pointer's, 0.08 out) stays clear of the bracket."""

HEAD_CODE = """
def head(E, W_Q, W_K, W_V):
    Q, K, V = E @ W_Q, E @ W_K, E @ W_V
    scores = Q @ K.T / math.sqrt(Q.shape[-1])
    n = len(E)
    future = torch.ones(n, n, dtype=torch.bool).triu(1)
    A = scores.masked_fill(future, -torch.inf).softmax(-1)
    return A @ V
"""
"""One head, as the lesson's lab writes it: Part II's calculation with its own matrices."""

LAYER_CODE = """
H = [head(E, W_Q[h], W_K[h], W_V[h]) for h in heads]
joined = torch.cat(H, dim=-1)
E_prime = E + joined @ W_O
"""
"""Multi-head attention: the same function once per head, joined, then W_O."""

"""A fragment of a sentence and what makes its step (made when the sentence begins)."""


def card(*lines: Mobject, colour: str = MUTED) -> VGroup:
    """Lines of text stacked in a rounded box: one stage of the layer."""
    return panel(VGroup(*lines).arrange(DOWN, buff=0.1), colour)


def flow(cards: list[Mobject], colour: str = MUTED, buff: float = 0.5) -> VGroup:
    """Cards in a row joined by arrows, left to right. ``step(i)`` fades in card ``i``
    with the arrow that leads to it."""
    row = VGroup(*cards).arrange(RIGHT, buff=buff)
    arrows = VGroup(*(Arrow(a.get_right(), b.get_left(), buff=0.06, color=colour,
                            stroke_width=3, max_tip_length_to_length_ratio=0.35)
                      for a, b in pairwise(cards)))
    group = VGroup(row, arrows)
    group.cards = list(cards)
    group.step = lambda i: fade_in(cards[i], arrows[i - 1]) if i else fade_in(cards[0])
    return group


def _products(indices: Iterable[int | None], left: tuple[str, Callable[[int], str]],
              right: tuple[str, Callable[[int], str]]) -> tuple[list[str], dict[str, str]]:
    """The terms of a sum of products, ``{e0} × {w0}``, one per index (``…`` where the
    kit leaves indices out), and the value key of every slot they name."""
    (a, key_a), (b, key_b) = left, right
    terms, slots = [], {}
    for i in indices:
        if i is None:
            terms.append("…")
            continue
        slots[f"{a}{i}"], slots[f"{b}{i}"] = key_a(i), key_b(i)
        terms.append(f"{{{a}{i}}} × {{{b}{i}}}")
    return terms, slots


def carried_names(scene: LectureScene, size: float) -> list[Mobject]:
    """Above each shown coordinate of a joined row: the feature its head's value column
    copies (when that head's ``W_V`` copies one feature per column), in the head's colour,
    else the head it comes from; "…" where coordinates are elided."""
    labels: list[Mobject] = []
    d = scene.ws.d_head
    for k in shown_indices(scene.ws.d_model):
        if k is None:
            labels.append(scene.label("…", size, MUTED))
            continue
        head, column = k // d + 1, k % d
        copies = copied_features(scene.v, head, "V")
        if copies is None:
            labels.append(scene.head_label(head, size))
        else:
            labels.append(scene.bound("{f}", size, scene.head_colour(head),
                                      words={"f": scene.ws.lesson.features[copies[column]]}))
    return labels


def mixing_entry(scene: LectureScene) -> tuple[int, int] | None:
    """The first entry of W_O off its diagonal that is not zero, among those shown, as
    (row, column); ``None`` when there is none."""
    shown = [k for k in shown_indices(scene.ws.d_model) if k is not None]
    W_O = scene.v.value("params.W_O")
    return next(((r, c) for r in shown for c in shown if r != c and float(W_O[r][c]) != 0),
                None)


class RolesAndShapes(LectureScene):
    """Where the heads sit in the model; the final receiver's row of E and what its
    coordinates mean; head 1's W_Q turning it into its query, W_K and W_V turning its
    favourite source's row into that source's key and value (rows and columns named); the
    query dotted with the key, scaled and softmaxed into the source's weight; the shape of
    every matrix in the layer, the mask drawn as it is named; the heads' messages joined,
    and the receiver's joined row carried through W_O (one mixed coordinate written as its
    sum) and the residual, numbers and all; one head as code, and the whole in one line."""

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        heading, page = self.overview()
        heading, page = self.roles(heading, page)
        heading, page = self.inside_each_head(heading, page)
        heading, page = self.after_the_heads(heading, page)
        page = self.update(page)
        heading, page = self.listing(heading, page)
        self.summary(heading, page)

    def new_title(self, old: Mobject, text: str) -> tuple[Mobject, Animation]:
        """A new heading for a new topic, and the step that swaps it for ``old``."""
        new = self.title(text)
        return new, AnimationGroup(fade_out(old), fade_in(new))

    def overview(self) -> tuple[Mobject, Mobject]:
        """The whole model, each part named as the voice reaches it."""
        self.section("the model")
        heading = self.title("Where the heads sit in the model")
        whole = model_map(self, lit=("heads",), size=MAP_SIZE).move_to(DOWN * 0.2)
        stages = whole.stages
        self.tell("Each token's row goes through every head; W_O mixes the joined messages "
                  "into an update added back, and the MLP predicts.",
                  Write(heading), fade_in(whole),
                  cues=[("Each", lambda: self.point_at(stages["embeddings"])),
                        ("every head", lambda: self.point_at(stages["heads"])),
                        ("W_O", lambda: self.point_at(stages["W_O"])),
                        ("joined", lambda: self.point_at(stages["concat"])),
                        ("added", lambda: self.point_at(stages["residual"])),
                        ("MLP", lambda: self.point_at(stages["MLP"], stages["prediction"]))])
        return heading, whole

    def roles_picture(self) -> VGroup:
        """The receiver's row of E and, under it, the row of head 1's favourite source, under
        their coordinates' names; beneath them head 1's W_Q (which takes the receiver's row),
        W_K and W_V (which take the source's), each row named by its input feature and each
        column by the head's coordinate, over the row it makes and that row's role.

        Attributes: ``source`` (the rows of E: ``receiver`` and ``other``, each with
        ``body`` and ``cells``, ``other`` being the receiver's row again when the receiver is
        its own favourite; ``names``), ``maker`` (the head's line and the matrices' row
        names), ``blocks`` (each with ``matrix``, ``result`` and ``role``) and ``working``."""
        colour, size, last = self.head_colour(1), 22, self.last
        top = self.v.value(f"{self.s}.h1.top_source")
        rows_of_e = [last] if top == last else [last, top]
        names = [self.feature(c, 20) for c in shown_indices(self.ws.d_model)]
        spacing = max(0.5, max(name.width for name in names) + 0.3 - 0.35)
        E = self.matrix(f"{self.s}.E", rows=rows_of_e, size=24, h_buff=spacing, v_buff=0.42,
                        col_labels=names)
        tags = {last: "receiver", top: "source"} if top != last else {last: "receiver, "
                                                                       "and its own source"}
        lines = []
        for r, cells in zip(rows_of_e, E.cells, strict=True):
            numbers = VGroup(*cells)
            span = Rectangle(width=E.body.width, height=numbers.height)
            sides = brackets(span.move_to([E.body.get_x(), numbers.get_y(), 0]), pad=0.2)
            word = self.word(self.tokens[r], 26).next_to(sides, LEFT, buff=0.2)
            tag = self.label(tags[r], 20, MUTED).next_to(sides, RIGHT, buff=0.25)
            line = VGroup(word, numbers, sides, tag)
            line.body, line.cells = numbers, cells
            lines.append(line)
        for name in names:  # clear of an outline round the first row
            name.shift(UP * 0.12)
        source = VGroup(VGroup(*names), *lines)
        source.receiver, source.other = lines[0], lines[-1]
        source.names = VGroup(*names)
        specs = [("Q", last, "q", "query: what it looks for"),
                 ("K", top, "k", "key: what it can be found by"),
                 ("V", top, "v", "value: what it passes on")]
        picked = [i for i in shown_indices(self.ws.d_model) if i is not None]
        first = 1  # head 1 is the head this clip follows
        blocks = VGroup()
        for kind, row, name, role in specs:
            heads = self.coordinate_names(kind)
            plain = self.matrix(f"params.h{first}.W_{kind}", rows=picked, size=size)
            entry = min(cell.width for line in plain.cells for cell in line)
            matrix = self.matrix(f"params.h{first}.W_{kind}", rows=picked, size=size,
                                 colour=colour, col_labels=heads,
                                 h_buff=max(0.3, max(h.width for h in heads) + 0.2 - entry))
            matrix.columns = VGroup(*heads)
            taken = self.bound("“{u}” × W_" + kind, 22, colour,
                               words={"u": self.tokens[row]})
            matrix.add(taken.next_to(matrix.columns, UP, buff=0.15))
            result = self.vec(f"{self.s}.h{first}.{kind}[{row}]", size, colour,
                              template=name + " = {v}")
            told = self.label(role, 20, MUTED)
            block = VGroup(matrix, result, told).arrange(DOWN, buff=0.32)
            block.matrix, block.result, block.role = matrix, result, told
            blocks.add(block)
        blocks.arrange(RIGHT, buff=0.6, aligned_edge=UP)
        W_Q = blocks[0].matrix
        rows = VGroup(*(self.feature(i, 20) for i in picked))
        for label, cells in zip(rows, W_Q.cells, strict=True):
            label.set_y(cells[0].get_y())
            label.shift(RIGHT * (W_Q.brackets[0].get_left()[0] - 0.3 - label.get_right()[0]))
        complete = len(picked) == self.ws.d_model
        maker = self.bound("Head {h}'s own matrices: a row per input feature" + (
            "" if complete else " (some shown)") + ", a column per coordinate of the head",
                           20, colour, h="dims.head_numbers[0]")
        maker.next_to(VGroup(rows, blocks), UP, buff=0.2).set_x(VGroup(rows, blocks).get_x())
        picture = VGroup(source, VGroup(maker, rows, blocks)).arrange(DOWN, buff=0.25)
        working = self.working(picked, top)
        working.next_to(blocks, DOWN, buff=0.25).set_x(blocks.get_x())
        picture.add(working)
        picture.source, picture.maker, picture.rows = source, maker, rows
        picture.blocks, picture.working = blocks, working
        return picture

    def coordinate_names(self, kind: str) -> list[Mobject]:
        """Above each shown column of head 1's ``W_Q``, ``W_K`` or ``W_V``: the feature that
        coordinate of the head holds (a query coordinate is matched with the key coordinate
        in its place), or its number when the head's columns mix features."""
        copies = copied_features(self.v, 1, "V" if kind == "V" else "K")
        names: list[Mobject] = []
        for c in shown_indices(self.ws.d_head):
            if c is None:
                names.append(self.label("…", 20, MUTED))
            elif copies is None:
                names.append(self.bound("{n}", 20, MUTED, n=f"dims.value_numbers[{c}]"))
            else:
                names.append(self.bound("{f}", 20, MUTED,
                                        words={"f": self.ws.lesson.features[copies[c]]}))
        return names

    def working(self, picked: list[int], top: int) -> VGroup:
        """Head 1's worked lines: the query's first coordinate as the receiver's row times
        W_Q's first column, term by term; the query dotted with the favourite source's key;
        that dot product scaled and turned into the source's weight. Each line has
        ``spoken`` (the template the voice reads) and ``spoken_keys``."""
        colour, last = self.head_colour(1), self.last
        first = 1  # head 1, the head this clip follows
        terms, slots = _products(shown_indices(self.ws.d_model),
                                 ("e", lambda r: f"{self.s}.E[{last}][{r}]"),
                                 ("w", lambda r: f"params.h{first}.W_Q[{r}][0]"))
        slots["q"] = f"{self.s}.h{first}.Q[{last}][0]"
        sum_template = " + ".join(terms) + " = {q}"
        query = self.bound("q, first coordinate:  " + sum_template, 20, colour, **slots)
        query.spoken, query.spoken_keys = sum_template, slots
        dot_terms, dot_slots = _products(shown_indices(self.ws.d_head),
                                         ("q", lambda c: f"{self.s}.h{first}.Q[{last}][{c}]"),
                                         ("k", lambda c: f"{self.s}.h{first}.K[{top}][{c}]"))
        dot_slots["d"] = f"{self.s}.h{first}.dots[{top}]"
        dot_template = " + ".join(dot_terms) + " = {d}"
        match = self.bound("q · k:  " + dot_template, 20, colour, **dot_slots)
        match.spoken, match.spoken_keys = dot_template, dot_slots
        weight_keys = {"d": f"{self.s}.h{first}.dots[{top}]", "k": "dims.d_head",
                       "s": f"{self.s}.h{first}.scores[{top}]", "n": "dims.tokens",
                       "a": f"{self.s}.h{first}.weights[{top}]"}
        weight = self.bound("{d} ÷ √{k} = {s}   →   softmax over all {n} sources   →   "
                            "weight {a}", 20, colour, **weight_keys)
        weight.spoken_keys = weight_keys
        lines = VGroup(query, weight).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        lines.add(match.move_to(query, aligned_edge=LEFT))  # in the query's place, after it
        lines.query, lines.match, lines.weight = query, match, weight
        return lines

    def roles(self, heading: Mobject, previous: Mobject) -> tuple[Mobject, Mobject]:
        """The final receiver's row of E and what its coordinates mean; head 1's W_Q, each
        row and column named, making the receiver's query, worked for one coordinate; W_K
        and W_V making the favourite source's key and value from its own row; the query
        dotted with that key, scaled and softmaxed into the source's weight."""
        self.section("coordinates")
        picture = self.roles_picture()
        top_y = heading.get_bottom()[1] - 0.25
        picture.scale(min(1.3, 13.4 / picture.width,
                          (top_y - (SAFE_BOTTOM + 0.15)) / picture.height))
        picture.move_to([0, top_y - picture.height / 2, 0])
        source, blocks, working = picture.source, picture.blocks, picture.working
        receiver, other = source.receiver, source.other
        heading, title = self.new_title(heading, "Queries ask, keys advertise, values carry")
        last, top = self.last, self.v.value(f"{self.s}.h1.top_source")
        word = {"w": self.tokens[last]}
        self.tell("Follow the receiver, the final “{w}”: its row of E has one coordinate per "
                  "named feature.", self.gone(previous), title,
                  fade_in(source.names, receiver),
                  cues=[("row", lambda: self.point_at(receiver.body)),
                        ("named", lambda: self.point_at(source.names))], words=word)
        row = self.v.value(f"{self.s}.E[{last}]")
        shown = shown_indices(self.ws.d_model)
        largest = max((c for c in shown if c is not None), key=lambda c: row[c])
        if row[largest] > 0 and all(x == 0 for c, x in enumerate(row) if c != largest):
            cell = receiver.cells[shown.index(largest)]
            self.tell("Only {f} is nonzero, {x}: a made-up feature for small words like "
                      "“{w}”.", cues=[("{x}", lambda: self.point_at(cell))],
                      words={**word, "f": self.ws.lesson.features[largest]},
                      x=f"{self.s}.E[{last}][{largest}]")
        self.section("roles")
        W_Q, W_K, W_V = (block.matrix for block in blocks)
        inner, keys = vector("q", f"{self.s}.h1.Q[{last}]", self.ws.d_head)
        self.tell("Head {h}'s W_Q turns the row into its query, " + inner + ": what “{w}” "
                  "looks for, per coordinate of the head.",
                  fade_in(picture.maker, picture.rows),
                  cues=[("W_Q", lambda: AnimationGroup(
                      fade_in(blocks[0].matrix, blocks[0].result, blocks[0].role),
                      self.point_at(receiver.body, W_Q, blocks[0].result, each=True,
                                    buff=0.1))),
                        ("coordinate of", lambda: self.point_at(W_Q.columns))],
                  words=word, h="dims.head_numbers[0]", **keys)
        column = VGroup(*(cells[0] for cells in W_Q.cells))
        self.tell("Its first coordinate is the row times W_Q's first column, added up: {q}.",
                  fade_in(working.query),
                  cues=[("row times", lambda: self.point_at(receiver.body, column, each=True)),
                        ("added", lambda: self.point_at(working.query, buff=0.06))],
                  q=working.query.spoken_keys["q"])
        self.section("a source's key")
        inner_k, keys_k = vector("k", f"{self.s}.h1.K[{top}]", self.ws.d_head)
        inner_v, keys_v = vector("v", f"{self.s}.h1.V[{top}]", self.ws.d_head)
        shows = [fade_out(working.query)] + ([fade_in(other)] if other is not receiver else [])
        self.tell(("W_K turns the source “{u}”'s own row into its key, "
                   if other is not receiver else "As a source, the same row goes through W_K "
                   "into its key, ") + inner_k + ": what it can be found by;", *shows,
                  cues=[("W_K", lambda: AnimationGroup(
                      fade_in(blocks[1].matrix, blocks[1].result, blocks[1].role),
                      self.point_at(other.body, W_K, blocks[1].result, each=True,
                                    buff=0.1)))],
                  words={"u": self.tokens[top]}, **keys_k)
        self.tell("W_V turns it into its value, " + inner_v + ": what it passes on.",
                  cues=[("W_V", lambda: AnimationGroup(
                      fade_in(blocks[2].matrix, blocks[2].result, blocks[2].role),
                      self.point_at(other.body, W_V, blocks[2].result, each=True,
                                    buff=0.1)))], **keys_v)
        match, weight = working.match, working.weight
        self.tell("The query dotted with that key gives " + match.spoken + ": how well they "
                  "match.",
                  cues=[("dotted", lambda: AnimationGroup(
                      fade_in(match), self.point_at(blocks[0].result, blocks[1].result,
                                                    each=True))),
                        ("gives", lambda: self.point_at(match, buff=0.06))],
                  **match.spoken_keys)
        self.tell("Divided by √{k}, that is {s}; softmax over all {n} sources makes it the "
                  "weight {a}, which scales “{u}”'s value.",
                  cues=[("Divided", lambda: AnimationGroup(fade_in(weight),
                                                           self.point_at(weight, buff=0.06))),
                        ("scales", lambda: self.point_at(blocks[2].result))],
                  words={"u": self.tokens[top]},
                  **{k: key for k, key in weight.spoken_keys.items() if k != "d"})
        return heading, picture

    def shape(self, name: str, key: str, colour: str = INK) -> Mobject:
        """``name  [rows, columns]`` (or the shape alone) with the shape bound to its key."""
        return self.bound(f"{name}  {{s}}" if name else "{s}", CARD_SIZE, colour, s=key)

    def inside_each_head(self, heading: Mobject, previous: Mobject) -> tuple[Mobject, VGroup]:
        """Projection and attention, framed once per head, each card as it is named; the
        scale d_k written on its card as it is said."""
        self.section("inside a head")
        project = flow([
            card(self.shape("E", "shapes.E"),
                 self.bound("{n} tokens,", CARD_SIZE - 2, MUTED, n="dims.tokens"),
                 self.bound("{m} coordinates each", CARD_SIZE - 2, MUTED, m="dims.d_model")),
            card(self.shape("W_Q", "shapes.W_Q"), self.shape("W_K", "shapes.W_K"),
                 self.shape("W_V", "shapes.W_V")),
            card(self.shape("Q", "shapes.Q"), self.shape("K", "shapes.K"),
                 self.shape("V", "shapes.V")),
            card(self.shape("Kᵀ", "shapes.KT")),
        ])
        attend = flow([
            card(self.label("scores = QKᵀ ÷ √d_k", CARD_SIZE),
                 self.bound("d_k = {d}", CARD_SIZE, d="dims.d_head"),
                 self.shape("", "shapes.scores")),
            card(self.label("A = softmax(scores + mask)", CARD_SIZE), self.shape("", "shapes.A")),
            card(self.label("H = AV", CARD_SIZE), self.shape("", "shapes.H")),
        ])
        body = VGroup(project, attend).arrange(DOWN, buff=0.35)
        fit(body, 12.4)
        frame = Rectangle(width=body.width + 0.5, height=body.height + 0.5, stroke_width=2,
                          stroke_color=MUTED)
        frame.move_to(body)
        frames = VGroup(frame)
        label = VGroup(self.bound("in each head (heads: {h}), with its own matrices:", 20, MUTED,
                                  h="dims.heads"),
                       *(self.head_label(h, 20) for h in range(1, self.ws.n_heads + 1)))
        label.arrange(RIGHT, buff=0.25)
        group = VGroup(frames, body)
        group.next_to(heading, DOWN, buff=0.5)
        label.next_to(frame, UP, buff=0.1).align_to(frame, LEFT)
        group.add(label)
        mask = self.mask_picture(1.9, compact=True)
        fit(mask, None, frame.get_bottom()[1] - 0.2 - (SAFE_BOTTOM + 0.05))
        mask.next_to(frame, DOWN, buff=0.2).align_to(attend.cards[1], LEFT)
        heading, title = self.new_title(heading, "Every matrix in the layer, and its shape")
        cards = project.cards

        def step(flow_: VGroup, i: int) -> Animation:
            return AnimationGroup(flow_.step(i), self.point_at(flow_.cards[i]))

        self.tell("In each head, E is {e}: {n} tokens, {m} coordinates each.",
                  self.gone(previous), title, fade_in(frames, label), project.step(0),
                  cues=[("{e}", lambda: self.point_at(cards[0]))],
                  e="shapes.E", n="dims.tokens", m="dims.d_model")
        self.tell("It meets W_Q, W_K and W_V, each {w}; out come Q, K and V, {q} each.",
                  cues=[("{w}", lambda: step(project, 1)), ("{q}", lambda: step(project, 2))],
                  w="shapes.W_Q", q="shapes.Q")
        scores = attend.cards[0]
        frame_, (formula, scale, shape) = scores
        self.tell("Q times Kᵀ, {kt}, gives the scores, {s}, divided by √d_k: d_k = {d}, one "
                  "head's key width.",
                  cues=[("Kᵀ", lambda: step(project, 3)),
                        ("scores", lambda: AnimationGroup(fade_in(frame_, formula, shape),
                                                          self.point_at(scores))),
                        ("d_k =", lambda: fade_in(scale))],
                  kt="shapes.KT", s="shapes.scores", d="dims.d_head")
        self.tell("With the mask added, softmax gives the weights A, {a}; H = AV is {h}, a "
                  "message row per token.",
                  cues=[("mask", lambda: AnimationGroup(fade_in(mask),
                                                        self.point_at(mask.grid))),
                        ("softmax", lambda: step(attend, 1)),
                        ("H =", lambda: step(attend, 2))],
                  a="shapes.A", h="shapes.H")
        group.add(mask)
        return heading, group

    def after_the_heads(self, heading: Mobject, inside: VGroup) -> tuple[Mobject, VGroup]:
        """The heads' messages for the receiver joined into one row, drawn; every row
        joined the same way. The later stages wait on the flow for :meth:`update`."""
        self.section("after the heads")
        row = flow([
            card(self.label("joined heads", CARD_SIZE), self.shape("", "shapes.joined")),
            card(self.shape("W_O", "shapes.W_O")),
            card(self.label("ΔE", CARD_SIZE), self.shape("", "shapes.delta")),
            card(self.label("E′ = E + ΔE", CARD_SIZE), self.shape("", "shapes.E_prime")),
            card(self.label("last row of E′", CARD_SIZE), self.shape("", "shapes.last_row")),
        ])
        fit(row, 12.6)
        label = self.label("after the heads", 20, MUTED).next_to(row, UP, buff=0.2)
        label.align_to(row, LEFT)
        after = VGroup(row, label).next_to(heading, DOWN, buff=0.4).set_x(0)
        join = self.join_picture()
        room = after.get_bottom()[1] - 0.6 - (SAFE_BOTTOM + 0.2)
        join.scale(min(1.3, 13.0 / join.width, room / join.height))
        join.next_to(after, DOWN, buff=0.6).set_x(0)
        cards = row.cards
        heading, title = self.new_title(heading, "After the heads: join, W_O, residual")
        word = {"w": self.tokens[self.last]}
        several = self.ws.n_heads > 1
        self.tell("Back to “{w}”: each head sends it a message of width {d}: its weights "
                  "times its value rows." if several else "Back to “{w}”: its one head sends "
                  "it a message of width {d}: its weights times its value rows.",
                  self.gone(inside), title, fade_in(join.messages),
                  cues=[("head", lambda: self.point_at(*join.messages.rows, each=True))],
                  words=word, d="dims.d_head")
        self.tell("Joining sets them side by side in one row of width {j}; for every token, "
                  "{k}." if several else "With one head, joining keeps its coordinates: one "
                  "row of width {j}; for every token, {k}.", cues=[
                      ("Joining" if several else "joining",
                       lambda: AnimationGroup(*join.moves)),
                      ("one row", lambda: AnimationGroup(fade_in(join.frame),
                                                         self.point_at(join.joined,
                                                                       *join.frame[:2]))),
                      ("every", lambda: AnimationGroup(fade_in(label), row.step(0),
                                                       self.point_at(cards[0])))],
                  j="dims.joined", k="shapes.joined")
        self.after, self.join = row, join
        return heading, VGroup(after, join)

    def update_picture(self, top: float) -> VGroup:
        """The receiver's joined row times W_O; beneath, as a sum worked in columns, its
        row of ΔE, its row of E added, and its row of E′: ``[joined] × W_O`` over
        ``= ΔE / + E / = E′``, the three rows in one grid so that their coordinates line up.

        Attributes: ``joined`` (the row, its brackets and note), ``matrix``, ``times`` (the
        sign), ``lines`` (= ΔE, + E, = E′: each a name, its numbers and brackets) and
        ``note``."""
        size, d, last = 24, self.ws.d_head, self.last
        shown = shown_indices(self.ws.d_model)
        numbers = VGroup(*(self.label("…", size, MUTED) if k is None else
                           self.num(f"{self.s}.joined[{last}][{k}]", size,
                                    self.head_colour(k // d + 1))
                           for k in shown)).arrange(RIGHT, buff=0.3)
        joined = VGroup(numbers, brackets(numbers, pad=POINTER_ROOM))
        joined.numbers = numbers
        names = carried_names(self, 20)
        for name, number in zip(names, numbers, strict=True):
            name.next_to(joined[1], UP, buff=0.15).set_x(number.get_x())
        joined.names = VGroup(*names)
        joined.add(joined.names)
        keys = ("delta", "E", "E_prime")
        cells = [[self.label("…", size, MUTED) if c is None else
                  self.num(f"{self.s}.{key}[{last}][{c}]", size) for c in shown]
                 for key in keys]
        # W_O's columns as wide apart as the result's, so each result sits under its column.
        widest = max(cell.width for line in cells for cell in line)
        entries = self.matrix("params.W_O", rows=[k for k in shown if k is not None], size=24)
        entry = min(cell.width for row in entries.cells for cell in row)
        matrix = self.matrix("params.W_O", rows=[k for k in shown if k is not None], size=24,
                             h_buff=max(0.3, widest + 0.4 - entry))
        matrix.add(self.label("W_O", 24).next_to(matrix.brackets, UP, buff=0.15))
        times = self.label("×", 30).next_to(matrix.brackets, LEFT, buff=0.3)
        joined.next_to(times, LEFT, buff=0.3)
        for mob in (joined, times):
            mob.set_y(matrix.body.get_y())
        joined.add(self.label("joined row", 20, MUTED).next_to(joined[1], DOWN, buff=0.2))
        grid = VGroup(*(cell for line in cells for cell in line))
        grid.arrange_in_grid(rows=len(keys), cols=len(shown), buff=(0.4, 0.38),
                             cell_alignment=RIGHT)
        for place, _ in enumerate(shown):  # each column's right edge under W_O's
            edge = max(row[place].get_right()[0] for row in matrix.cells)
            for line in cells:
                line[place].shift(RIGHT * (edge - line[place].get_right()[0]))
        lines = VGroup()
        for name, line in zip(("=  ΔE", "+  E", "=  E′"), cells, strict=True):
            row = VGroup(*line)
            span = Rectangle(width=grid.width, height=row.height)
            span.move_to([grid.get_x(), row.get_y(), 0])
            sides = brackets(span, pad=POINTER_ROOM)  # clear of a pointer's outline
            shown_line = VGroup(self.label(name, 26).next_to(sides, LEFT, buff=0.25), row,
                                sides)
            shown_line.numbers = row
            lines.add(shown_line)
        right = max(line[0].get_right()[0] for line in lines)
        for line in lines:
            line[0].shift(RIGHT * (right - line[0].get_right()[0]))
        lines.shift(DOWN * (lines.get_top()[1] - (matrix.get_bottom()[1] - 0.3)))
        note = self.bound("rows of “{w}”", 20, MUTED, words={"w": self.tokens[last]})
        note.next_to(lines, RIGHT, buff=0.4)
        picture = VGroup(joined, times, matrix, lines, note)
        found = mixing_entry(self)
        picture.sum = None
        if found is not None:  # the mixed coordinate of ΔE as its sum of products
            c = found[1]
            W_O = self.v.value("params.W_O")
            terms, slots = _products([k for k in shown if k is None or float(W_O[k][c]) != 0],
                                     ("j", lambda k: f"{self.s}.joined[{last}][{k}]"),
                                     ("w", lambda k: f"params.W_O[{k}][{c}]"))
            slots["t"] = f"{self.s}.delta[{last}][{c}]"
            template = " + ".join(terms) + " = {t}"
            written = self.bound("{g} of ΔE:  " + template, 22, INK,
                                 words={"g": self.ws.lesson.features[c]}, **slots)
            # Where "+ E" comes next: it gives way to that row.
            written.move_to(lines[1].numbers).align_to(lines[1][2], RIGHT)
            # Said term by term when every term is shown; else only its total.
            whole = None not in shown
            written.spoken = template if whole else "{t}"
            written.spoken_keys = slots if whole else {"t": slots["t"]}
            picture.add(written)
            picture.sum = written
        room = top - (SAFE_BOTTOM + 0.2)
        picture.scale(min(1.2, 13.0 / picture.width, room / picture.height))
        picture.move_to([0, top - picture.height / 2, 0])
        picture.joined, picture.matrix, picture.times = joined, matrix, times
        picture.lines, picture.note = lines, note
        return picture

    def update(self, page: VGroup) -> VGroup:
        """The receiver's joined row carried on with its numbers: times W_O into its row of
        ΔE, plus its row of E into its row of E′, the flow's shapes named beside."""
        self.section("update")
        row, join = self.after, self.join
        cards = row.cards
        top = page[0].get_bottom()[1] - 0.3
        chain = self.update_picture(top)
        joined, lines = chain.joined, chain.lines
        word = {"w": self.tokens[self.last]}
        shown = shown_indices(self.ws.d_model)
        moves = [ReplacementTransform(join.joined[k], joined.numbers[place])
                 for place, k in enumerate(shown) if k is not None]
        dropped = [join.joined[k] for k in range(self.ws.d_model) if k not in shown]
        dots = [joined.numbers[place] for place, k in enumerate(shown) if k is None]
        self.tell("W_O, {o}, mixes the joined row into “{w}”'s row of the update ΔE, {d}.",
                  fade_out(join.messages, join.frame, *dropped), *moves,
                  fade_in(joined[1], joined[2], *dots),
                  cues=[("W_O", lambda: AnimationGroup(
                      row.step(1), fade_in(chain.times, chain.matrix),
                      self.point_at(chain.matrix))),
                        ("ΔE", lambda: AnimationGroup(
                            row.step(2), fade_in(chain.note, lines[0]),
                            self.point_at(lines[0].numbers)))],
                  words=word, o="shapes.W_O", d="shapes.delta")
        self.mixing_entry(chain)
        self.section("residual")
        self.tell("Adding its row of E gives its row of E′ = E + ΔE, {p};",
                  *([fade_out(chain.sum)] if chain.sum is not None else []),
                  cues=[("Adding", lambda: AnimationGroup(fade_in(lines[1]),
                                                          self.point_at(lines[1].numbers))),
                        ("E′", lambda: AnimationGroup(row.step(3), fade_in(lines[2]),
                                                      self.point_at(lines[2].numbers)))],
                  p="shapes.E_prime")
        self.tell("only the last row, {r}, predicts the next word.",
                  cues=[("only", lambda: AnimationGroup(row.step(4), self.point_at(
                      cards[4], lines[2].numbers, each=True)))], r="shapes.last_row")
        return VGroup(page[0], chain)

    def mixing_entry(self, chain: VGroup) -> None:
        """The first entry of W_O off its diagonal that is not zero, said with what it
        does: it carries part of one joined coordinate into another coordinate of ΔE, whose
        sum of products is written out. Said only when the worksheet's W_O has one among the
        entries shown."""
        found = mixing_entry(self)
        if found is None:
            return
        self.section("mixing")
        r, c = found
        d, places = self.ws.d_head, shown_indices(self.ws.d_model)
        head, column = r // d + 1, r % d
        cell = chain.matrix.cells[places.index(r) - (None in places[:places.index(r)])][
            places.index(c)]
        source = VGroup(chain.joined.numbers[places.index(r)],
                        chain.joined.names[places.index(r)])
        target = chain.lines[0].numbers[places.index(c)]
        written = chain.sum
        copies = copied_features(self.v, head, "V")
        keys = {"x": f"params.W_O[{r}][{c}]", **written.spoken_keys}
        cues = [("{x}", lambda: self.point_at(cell)),
                ("joined", lambda: self.point_at(source)),
                ("into", lambda: AnimationGroup(fade_in(written),
                                                self.point_at(target, written, each=True)))]
        words = {"g": self.ws.lesson.features[c]}
        if copies is not None:
            words["f"] = self.ws.lesson.features[copies[column]]
        self.tell("Off the diagonal, the {x} in W_O takes {x} times the joined "
                  + ("{f} coordinate" if copies is not None else "coordinate on its row")
                  + " into {g}: " + written.spoken + ".", cues=cues, words=words, **keys)

    def join_picture(self) -> VGroup:
        """Each head's message row for the last token, spaced apart, and the joined row they
        close up into: each head's coordinates in their own place and colour.

        Attributes: ``messages`` (with ``rows``: each head's bracketed numbers),
        ``joined`` (the joined numbers), ``frame`` (its brackets, each head's underline and
        the label) and ``moves``
        (each head's numbers copied into the joined row)."""
        size, d = 22, self.ws.d_head
        heads = range(1, self.ws.n_heads + 1)
        pieces, rows = VGroup(), []
        for h in heads:
            colour = self.head_colour(h)
            numbers = VGroup(*(self.num(f"{self.s}.h{h}.H[{self.last}][{c}]", size, colour)
                               for c in range(d))).arrange(RIGHT, buff=0.3)
            bracketed = VGroup(self.label("[", size + 4, MUTED), numbers,
                               self.label("]", size + 4, MUTED)).arrange(RIGHT, buff=0.12)
            rows.append(bracketed)
            pieces.add(VGroup(self.head_label(h, 20), bracketed).arrange(DOWN, buff=0.3))
        pieces.arrange(RIGHT, buff=0.9, aligned_edge=DOWN)
        heard = self.bound("messages for “{w}”, width {d} each", 20, MUTED,
                           words={"w": self.tokens[self.last]}, d="dims.d_head")
        if any(n.figures[0][1].startswith("−") for r in rows for n in r[1]):
            heard = VGroup(heard, self.label("(red: below zero)", 20, NEGATIVE))
            heard.arrange(RIGHT, buff=0.3)
        messages = VGroup(pieces, heard.next_to(pieces, UP, buff=0.3))
        joined = VGroup()
        for h in heads:
            for c in range(d):
                k = (h - 1) * d + c
                joined.add(self.num(f"{self.s}.joined[{self.last}][{k}]", size,
                                    self.head_colour(h)))
        joined.arrange(RIGHT, buff=0.3)
        frame = VGroup(self.label("[", size + 4, MUTED), self.label("]", size + 4, MUTED))
        frame[0].next_to(joined, LEFT, buff=0.12)
        frame[1].next_to(joined, RIGHT, buff=0.12)
        for h in heads:  # each head's share of the row underlined in its colour
            share = VGroup(*joined[(h - 1) * d:h * d])
            frame.add(Line(share.get_corner(DOWN + LEFT), share.get_corner(DOWN + RIGHT),
                           stroke_color=self.head_colour(h), stroke_width=3).shift(DOWN * 0.24))
        row = VGroup(joined, frame).next_to(pieces, DOWN, buff=0.6)
        row.set_x(pieces.get_x())
        width = self.bound("joined: one row, width {j}", 20, MUTED, j="dims.joined")
        frame.add(width.next_to(row, DOWN, buff=0.3))
        picture = VGroup(messages, row)
        picture.messages, picture.joined, picture.frame = messages, joined, frame
        messages.rows = rows
        numbers = [r[1] for r in rows]
        # Introducers: a cued step adds what they make to the scene itself.
        picture.moves = [TransformFromCopy(numbers[h - 1], VGroup(*joined[(h - 1) * d:h * d]),
                                           introducer=True) for h in heads]
        return picture

    def listing(self, heading: Mobject, previous: Mobject) -> tuple[Mobject, Mobject]:
        """One head as a short function, then the layer calling it once per head: each line
        outlined as the voice says what it does."""
        self.section("one head in code")
        one = code(HEAD_CODE, CODE_SIZE)
        layer = code(LAYER_CODE, CODE_SIZE)
        calls = VGroup()
        for head in range(1, self.ws.n_heads + 1):
            colour = self.head_colour(head)
            calls.add(panel(VGroup(self.head_label(head, 18),
                                   self.label("own W_Q, W_K, W_V", 16, colour))
                            .arrange(DOWN, buff=0.08), colour, buff=0.1))
        calls.arrange(DOWN, buff=0.15)
        upper = VGroup(one, calls).arrange(RIGHT, buff=0.7)
        page = VGroup(upper, layer).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        page.next_to(heading, DOWN, buff=0.5).set_x(0)
        # The mask, drawn large where the layer's lines come later: it goes as they come.
        mask = self.mask_picture(2.6)
        fit(mask, 13.0, layer.get_top()[1] - (SAFE_BOTTOM + 0.15))
        mask.move_to(layer, aligned_edge=UP).align_to(page, LEFT)
        line = one.lines
        heading, title = self.new_title(heading, "The same steps as code")

        def show(*lines: Mobject) -> Animation:
            return AnimationGroup(fade_in(*lines), self.point_at(*lines))

        self.tell("Written as code, one head projects E into Q, K and V, then scores every "
                  "receiver against every source.", self.gone(previous), title,
                  cues=[("one head", lambda: show(line[0])),
                        ("projects", lambda: show(line[1])),
                        ("scores", lambda: show(line[2]))])
        self.tell("The triu line marks every source after the receiver: its future.",
                  cues=[("triu", lambda: show(*line[3:5])),
                        ("future", lambda: AnimationGroup(fade_in(mask),
                                                          self.point_at(mask.grid)))])
        self.tell("masked_fill sets them to minus infinity, so the softmax gives them no "
                  "weight; the weights mix the values.",
                  cues=[("masked_fill", lambda: show(line[5])), ("mix", lambda: show(line[6]))])
        self.tell("The layer calls it once per head, joins the messages, applies W_O and "
                  "adds the result to E.",
                  fade_out(mask),
                  cues=[("calls", lambda: AnimationGroup(show(layer.lines[0]),
                                                         *(fade_in(c) for c in calls))),
                        ("joins", lambda: show(layer.lines[1])),
                        ("applies", lambda: show(layer.lines[2]))])
        return heading, page

    def mask_picture(self, width: float, compact: bool = False) -> VGroup:
        """The causal mask of the sentence, ``width`` wide, receivers down and sources
        across, with its key: each later source masked. ``compact``: the key in two short
        lines, for a picture with little height to spare."""
        grid = mask_grid(len(self.tokens), width,
                         label=lambda text: self.label(text, 20, MUTED))
        if compact:
            axes = self.label("a row per receiver, a column per source", 20, MUTED)
            grid.legend.arrange(RIGHT, buff=0.5)
        else:
            axes = VGroup(self.label("a row per receiver,", 20, MUTED),
                          self.label("a column per source", 20, MUTED))
            axes.arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        notes = VGroup(axes, grid.legend).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        picture = VGroup(grid, notes.next_to(grid, RIGHT, buff=0.3))
        picture.grid = grid
        return picture

    def summary(self, heading: Mobject, previous: Mobject) -> None:
        """The model once more, the layer's path lit, under one line that says it all."""
        self.section("in one line")
        whole = model_map(self, lit=("heads", "concat", "W_O", "residual"), size=MAP_SIZE)
        line = self.label("every head: E → Q, K, V → A → H      then: join → W_O → E + ΔE",
                          26, INK)
        group = VGroup(whole, fit(panel(line, MUTED, buff=0.25), 13.0))
        group.arrange(DOWN, buff=0.8).move_to(DOWN * 0.3)
        stages = whole.stages
        _, title = self.new_title(heading, "The layer in one line")
        self.tell("In one line: each head makes queries, keys, values, weights and messages;",
                  self.gone(previous), title, fade_in(whole), Write(group[1]),
                  cues=[("each head", lambda: self.point_at(stages["heads"]))])
        self.tell("they are joined, mixed by W_O and added back.",
                  cues=[("joined", lambda: self.point_at(stages["concat"])),
                        ("W_O", lambda: self.point_at(stages["W_O"])),
                        ("added", lambda: self.point_at(stages["residual"]))])
        self.play(*filter(None, [self.unpoint()]))

    def feature(self, index: int | None, size: float) -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided coordinate."""
        if index is None:
            return self.label("…", size, MUTED)
        return self.bound("{f}", size, MUTED, words={"f": self.ws.lesson.features[index]})


# ---------------------------------------------------------------------- projections


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


# ---------------------------------------------------------------------- one wide head


class OneWideHead(LectureScene):
    """The heads' projections, numbers and all, joined into one wide head; why its one
    weight row favours the source whose matches add up most; one weight row serves every
    value coordinate, while separate heads keep a row each; the messages, coordinate by
    coordinate, and the one a head loses most worked as its sum of weight × value, for the
    wide head and for that head."""

    draws_its_own_map = True  # it opens with the map, heads lit

    def construct(self) -> None:
        self.s = self.ws.walkthrough
        self.tokens = self.ws.sentences[self.s]
        self.last = len(self.tokens) - 1
        self.heads = list(range(1, self.ws.n_heads + 1))
        self.section("where we are")
        heading = self.title("One wide head instead of separate heads")
        whole = model_map(self, lit=("heads",), size=20).move_to(DOWN * 0.2)
        self.say("Once more inside the heads: what if they were one wide head instead?",
                 Write(heading), fade_in(whole), self.point_at(whole.stages["heads"]))
        self.play(self.unpoint(), fade_out(whole))
        self.section("own projections")
        self.join_projections(heading)
        self.section("scale")
        self.play(self.unpoint(), fade_out(self.blocks))
        self.scales()
        shown = [self.scale_lines]
        if len(self.heads) > 1:
            self.section("pooled")
            self.play(*filter(None, [self.unpoint()]), fade_out(*shown))
            self.pooled(heading)
            shown = [self.sums]
        self.section("weights")
        self.play(*filter(None, [self.unpoint()]), fade_out(*shown))
        self.weight_table(heading)
        self.section("compare")
        self.compare()
        self.section("messages")
        shown = [self.table, self.boxes]
        self.play(*filter(None, [self.unpoint()]), fade_out(*shown))
        self.messages(heading)

    def join_projections(self, heading: Mobject) -> None:
        """Each head's W_Q with its numbers, then every head's W_K and W_V; the W_Q blocks
        close up into one wide W_Q, every entry kept, and the final receiver's wide query
        appears under it, each head's coordinates in that head's colour."""
        size = 22
        mats = VGroup()
        parts = VGroup()
        for head in self.heads:
            colour = self.head_colour(head)
            mat = self.matrix(f"params.h{head}.W_Q", size=size, colour=colour)
            name = self.head_label(head, 22).next_to(mat, DOWN, buff=0.2)
            shape = self.bound("W_Q  {s}", 20, colour, s="shapes.W_Q").next_to(mat, UP, 0.2)
            mats.add(mat)
            parts.add(VGroup(mat, name, shape))
        parts.arrange(RIGHT, buff=0.6, aligned_edge=UP)
        first = mats[0]
        names = VGroup(*(self.feature(i, 20) for i in range(self.ws.d_model)))
        for label, row in zip(names, first.cells, strict=True):
            label.set_y(row[0].get_y())
            label.shift(RIGHT * (first.brackets[0].get_left()[0] - 0.2 - label.get_right()[0]))
        # Room under the matrices for the wide query and its name, kept while scaling.
        query_room = Rectangle(width=0.1, height=QUERY_GAP + 1.1, stroke_width=0)
        query_room.next_to(mats, DOWN, buff=0)
        page = VGroup(names, parts, query_room)
        top = heading.get_bottom()[1] - 0.4
        before = page.width
        room = top - 0.3 - (SAFE_BOTTOM + 0.3)
        scale = min(1.8, 13.0 / page.width, room / page.height)
        page.scale(scale)
        page.remove(query_room)
        gap = 0.45 * page.width / before
        page.move_to([0, top - page.height / 2 - 0.3, 0])
        self.say("Each head has its own W_Q, {s}, with the numbers it was given.",
                 fade_in(names, parts), self.point_at(*mats, each=True, buff=OUTLINE_ROOM),
                 s="shapes.W_Q")
        others = self.keys_and_values(top, room)
        self.section("keys and values")
        self.tell("The same holds for W_K and W_V: every head owns its three projections.",
                  fade_out(names, parts), fade_in(others),
                  cues=[("W_K", lambda: self.point_at(
                      *(m[0] for m in others.matrices), each=True,
                      buff=OUTLINE_ROOM * min(1.0, others.drawn_at)))])
        self.section("join projections")
        bodies = VGroup(*(mat.body for mat in mats))
        closed = bodies.copy().arrange(RIGHT, buff=gap).move_to(bodies)
        closed.align_to(bodies, UP)
        closed.set_x(bodies.get_x())
        sides = brackets(closed)
        shift = names.get_right()[0] - (sides[0].get_left()[0] - 0.35)  # names stay beside
        wide = self.bound("one wide W_Q  [{m}, {j}]", 24, INK, m="dims.d_model",
                          j="dims.joined").next_to(VGroup(closed, sides), UP, buff=0.25)
        query = self.wide_query(closed, sides, scale)

        # Each piece on its own, so that the cued join can take away the ones it drops.
        dropped = [piece for part, mat in zip(parts, mats, strict=True)
                   for piece in (part[1], part[2], mat.brackets)]

        def join() -> Animation:
            return AnimationGroup(
                *(mat.body.animate.shift(target.get_center() - mat.body.get_center())
                  for mat, target in zip(mats, closed, strict=True)),
                names.animate.shift(LEFT * shift), fade_out(*dropped), fade_in(sides, wide))

        self.tell("Back to W_Q: set side by side, the heads' blocks are the projection of one "
                  "wide head; no entry changes.", fade_out(others),
                  fade_in(names, *bodies, *dropped), cues=[("side by side", join)])
        self.tell("Joined, the wide projection has {j} columns: every query, key and value "
                  "is {k} coordinates long.",
                  cues=[("Joined", lambda: self.point_at(wide, VGroup(closed, sides),
                                                         each=True, buff=OUTLINE_ROOM))],
                  j="dims.joined", k="dims.joined")
        self.tell("The final “{w}” gets this wide query: each head's query, side by side.",
                  fade_in(query),
                  cues=[("wide query", lambda: self.point_at(query.row))],
                  words={"w": self.tokens[self.last]})
        self.blocks = VGroup(bodies, names, sides, wide, query)

    def keys_and_values(self, top: float, room: float) -> VGroup:
        """Every head's W_K and W_V with their numbers, each under its name, the input
        features named beside each row of matrices: in one row, or W_K above W_V, whichever
        draws them larger. ``matrices``: each matrix with its name above it; ``drawn_at``: the
        scale they are drawn at."""
        made = {}
        for kind in "KV":
            for head in self.heads:
                colour = self.head_colour(head)
                mat = self.matrix(f"params.h{head}.W_{kind}", size=22, colour=colour)
                shape = self.bound(f"W_{kind}  {{s}}", 22, colour,
                                   s=f"shapes.W_{kind}").next_to(mat, UP, 0.25)
                made[kind, head] = VGroup(mat, shape)
        names_width = max(self.feature(i, 22).width for i in range(self.ws.d_model)) + 0.35
        rows = VGroup(*(VGroup(*(made[kind, h] for h in self.heads)).arrange(
            RIGHT, buff=0.5, aligned_edge=UP) for kind in "KV")).arrange(DOWN, buff=0.4)
        row_scale = min(1.8, 13.0 / (rows.width + names_width), room / rows.height)
        line = VGroup(*made.values()).copy().arrange(RIGHT, buff=0.5, aligned_edge=UP)
        line_scale = min(1.8, 13.0 / (line.width + names_width), room / line.height)
        lines = [list(made.values())] if line_scale > row_scale else \
            [[made[kind, h] for h in self.heads] for kind in "KV"]
        page = VGroup()
        for items in lines:
            group = VGroup(*items).arrange(RIGHT, buff=0.5, aligned_edge=UP)
            first = items[0][0]
            names = VGroup(*(self.feature(i, 22) for i in range(self.ws.d_model)))
            for label, cells in zip(names, first.cells, strict=True):
                label.set_y(cells[0].get_y())
                label.shift(RIGHT * (first.brackets[0].get_left()[0] - 0.35
                                     - label.get_right()[0]))
            page.add(VGroup(names, group))
        page.arrange(DOWN, buff=0.25)
        page.drawn_at = max(row_scale, line_scale, LEGIBLE_ENTRY / 22)
        page.scale(page.drawn_at)
        page.matrices = list(made.values())
        return page.move_to([0, top - page.height / 2 - 0.1, 0])

    def wide_query(self, closed: VGroup, sides: VGroup, scale: float) -> VGroup:
        """The final receiver's query of the wide head, under the joined W_Q (``closed``,
        each head's block where it will stand): each shown coordinate under its column, in
        its head's colour, bound to that head's query; its name beneath."""
        numbers = VGroup()
        y = sides.get_bottom()[1] - QUERY_GAP * scale
        for head, block in zip(self.heads, closed, strict=True):
            for place, c in enumerate(shown_indices(self.ws.d_head)):
                number = (self.label("…", 22, MUTED) if c is None else
                          self.num(f"{self.s}.h{head}.Q[{self.last}][{c}]", 22,
                                   self.head_colour(head)))
                number.scale(scale).move_to([block[place].get_x(), y, 0])
                numbers.add(number)
        if any(b.get_left()[0] - a.get_right()[0] < 0.25 * scale for a, b in pairwise(numbers)):
            numbers.arrange(RIGHT, buff=0.35 * scale).move_to([closed.get_x(), y, 0])
        span = Rectangle(width=max(closed.width, numbers.width), height=numbers.height)
        row = VGroup(numbers, brackets(span.move_to([closed.get_x(), numbers.get_y(), 0])))
        name = self.bound("query of the final “{w}”", 20 * scale, INK,
                          words={"w": self.tokens[self.last]})
        name.next_to(row, DOWN, buff=0.2 * scale).set_x(row.get_x())
        query = VGroup(name, row)
        query.row = row
        return query

    def feature(self, index: int | None, size: float) -> Mobject:
        """A feature name (a worksheet word), or "…" for an elided coordinate."""
        if index is None:
            return self.label("…", size, MUTED)
        return self.bound("{f}", size, MUTED, words={"f": self.ws.lesson.features[index]})

    def scales(self) -> None:
        """The wide head's dot product for its favourite source, product by product, and
        its √ scale, against each head's own products and scale."""
        top = self.v.value(f"{self.s}.wide.top_source")
        words = {"w": self.tokens[top]}
        terms, slots = slots_of("p", f"{self.s}.wide.products[{top}]", self.ws.d_model, " + ")
        lines = VGroup(self.bound("wide head, “{w}”:  " + terms + " = {c},   then ÷ √{j}", 26,
                                  INK, words=words, c=f"{self.s}.wide.dots[{top}]",
                                  j="dims.joined", **slots))
        for head in self.heads:
            terms, slots = slots_of("p", f"{self.s}.h{head}.products[{top}]", self.ws.d_head,
                                  " + ")
            lines.add(self.bound("Head {h}:  " + terms + " = {c},   then ÷ √{d}", 26,
                                 self.head_colour(head), h=f"dims.head_numbers[{head - 1}]",
                                 c=f"{self.s}.h{head}.dots[{top}]", d="dims.d_head",
                                 **slots))
        lines.arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        factors = self.factors(lines[0], top)
        page = VGroup(factors, lines)
        fit(page, 13.0, 5.5).move_to(DOWN * 0.2)
        self.scale_lines = page
        self.say("The wide head adds up {j} coordinate products per source, here for “{w}”, "
                 "and divides by √{k};", fade_in(factors, lines[0]),
                 self.point_at(factors.numbers, factors.products),
                 words=words, j="dims.joined", k="dims.joined")
        self.say("each separate head adds up {d}, divides by √{e}, then runs its own softmax.",
                 fade_in(*lines[1:]), self.point_at(*lines[1:]), d="dims.d_head",
                 e="dims.d_head")

    def factors(self, products: Mobject, top: int) -> VGroup:
        """Above each wide product: the final receiver's query coordinate, and under it
        the favourite source's key coordinate, in the colour of the head they come from;
        each row named on its left."""
        size = 26
        gap = 0.5
        numbers = VGroup()
        shown = shown_indices(self.ws.d_model)
        places = [sum(1 for m in shown[:i] if m is not None) for i in range(len(shown))]
        # An elided "…" stands midway between its neighbours' products.
        xs = [VGroup(*products.figure_glyphs(p)).get_x() if k is not None else None
              for k, p in zip(shown, places, strict=True)]
        xs = [x if x is not None else (xs[i - 1] + xs[i + 1]) / 2 for i, x in enumerate(xs)]
        for r, (kind, j) in enumerate((("Q", self.last), ("K", top))):
            y = products.get_y() + gap * (2 - r)
            row = VGroup()
            for k, x in zip(shown, xs, strict=True):
                number = (self.label("…", size, MUTED) if k is None else
                          self.num(f"{self.s}.h{k // self.ws.d_head + 1}.{kind}[{j}]"
                                   f"[{k % self.ws.d_head}]", size,
                                   self.head_colour(k // self.ws.d_head + 1)))
                row.add(number.move_to([x, y, 0]))
            numbers.add(row)
        left = VGroup(*products.figure_glyphs(0)).get_left()[0] - 0.4
        names = VGroup(
            self.bound("query of “{w}”", 22, MUTED, words={"w": self.tokens[self.last]}),
            self.bound("× key of “{w}”", 22, MUTED, words={"w": self.tokens[top]}))
        for name, row in zip(names, numbers, strict=True):
            name.move_to([left, row.get_y(), 0], aligned_edge=RIGHT)
        made = VGroup(names, numbers)
        made.numbers = numbers
        made.products = VGroup(*(glyph for p in range(places[-1] + (shown[-1] is not None))
                                 for glyph in products.figure_glyphs(p)))
        return made

    def weight_table(self, heading: Mobject) -> None:
        """Source words, each with the wide head's weight bar beside every head's: the bars
        of a row are that source's weights, one scale for all."""
        count = len(self.tokens)
        row_h = min(0.44, 4.6 / count)
        size = min(24.0, row_h * 52)
        header_y = 2.35
        ys = [header_y - 0.55 - j * row_h for j in range(count)]
        columns = [(self.label("wide head", 22), f"{self.s}.wide.weights", MUTED, INK)]
        columns += [(self.head_label(h, 22), f"{self.s}.h{h}.weights", self.head_colour(h),
                     self.head_colour(h)) for h in self.heads]
        heaviest = max(float(w) for _, key, _, _ in columns for w in self.v.value(key))
        unit = min(BAR_UNIT, 1.7 / max(heaviest, 1e-9))
        words = VGroup(*(self.word(t, size).move_to([-0.3, y, 0], aligned_edge=RIGHT)
                         for t, y in zip(self.tokens, ys, strict=True)))
        self.cells: list[list[Mobject]] = []
        table = VGroup(words)
        shown = []
        bars = [[self.weight_bar(f"{key}[{j}]", fill, size, row_h * 0.55, unit, ink)
                 for j in range(count)] for _, key, fill, ink in columns]
        pitch = max(bar.width for cells in bars for bar in cells) + 0.5
        for k, ((header, *_), cells) in enumerate(zip(columns, bars, strict=True)):
            left = pitch * k
            for bar, y in zip(cells, ys, strict=True):
                bar.shift([left - bar.get_left()[0], y - bar.bar.get_y(), 0])
            header.move_to([left, header_y, 0], aligned_edge=LEFT)
            self.cells.append(cells)
            shown.append(VGroup(header, *cells))
            table.add(header, *cells)
        note = self.bound("wide head: one column for all {j} value coordinates     "
                          "each head: a column for its {d}", 20, MUTED,
                          j="dims.joined", d="dims.d_head")
        note.next_to(VGroup(*(column[-1] for column in self.cells)), DOWN, buff=0.35)
        table.shift(RIGHT * -table.get_center()[0])
        note.set_x(0)
        table.add(note)
        top = heading.get_bottom()[1] - 0.3
        fit(table, 13.4, top - (SAFE_BOTTOM + 0.1))
        table.shift(UP * (top - table.get_top()[1]))
        self.words = words
        self.table = table
        self.say("Here are the wide head's weights for every source, each drawn as a bar.",
                 fade_in(words, shown[0][0]),
                 LaggedStart(*map(grow, self.cells[0]), lag_ratio=0.1))
        self.say("Its one row of weights, drawn here as a column, multiplies every value "
                 "coordinate.",
                 self.point_at(shown[0], buff=0.15))  # clear of the longest number
        self.say("Each separate head has its own column, for its own coordinates.",
                 fade_in(*(column[0] for column in shown[1:]), note),
                 LaggedStart(*(grow(bar) for cells in self.cells[1:] for bar in cells),
                             lag_ratio=0.05),
                 self.point_at(*shown[1:]))
        self.play(self.unpoint())

    def compare(self) -> None:
        """For each head's favourite source: the wide head's weight against the head's."""
        boxes = VGroup()
        for column, head in enumerate(self.heads, start=1):
            top = self.v.value(f"{self.s}.h{head}.top_source")
            colour = self.head_colour(head)
            pair = VGroup(self.highlight(self.cells[0][top], colour),
                          self.highlight(self.cells[column][top], colour),
                          self.highlight(self.words[top], colour))
            boxes.add(pair)
            if len(self.heads) == 1:
                self.say("With a single head there is nothing to join: the wide head is that "
                         "head, and “{w}” gets {x} either way.", *map(Create, pair),
                         words={"w": self.tokens[top]}, x=f"{self.s}.wide.weights[{top}]")
                continue
            self.say("Head {h} gives “{w}” {x}.", Create(pair[1]), Create(pair[2]),
                     words={"w": self.tokens[top]}, h=f"dims.head_numbers[{head - 1}]",
                     x=f"{self.s}.h{head}.weights[{top}]")
            self.say("The wide head's single column gives it {y}.", Create(pair[0]),
                     y=f"{self.s}.wide.weights[{top}]")
        if len(self.heads) > 1:
            self.say("One column has to serve every coordinate: where the heads disagree, the "
                     "wide head can follow only one mixture,", self.point_at(*self.cells[0]))
            self.say("while separate heads each keep their own.",
                     self.point_at(*(cell for cells in self.cells[1:] for cell in cells)))
        self.boxes = boxes

    def pooled(self, heading: Mobject) -> None:
        """Why the wide head favours its top source: its dot product for a source is the
        sum of every head's, divided once by √(joined width); then the softmax, its
        exponentials and their sum over every source, gives the weights. The wide head's
        favourite and each head's favourite, summed term by term in the heads' colours."""
        top = self.v.value(f"{self.s}.wide.top_source")
        picks = list(dict.fromkeys([top] + [self.v.value(f"{self.s}.h{h}.top_source")
                                            for h in self.heads]))
        size = 26
        header = VGroup(*(self.head_label(h, 20) for h in self.heads),
                        self.label("wide dot", 20, MUTED),
                        self.bound("÷ √{j}", 20, MUTED, j="dims.joined"),
                        self.label("score", 20, MUTED),
                        self.label("e^score", 20, MUTED),
                        self.label("weight", 20, MUTED))
        rows = []
        for j in picks:
            terms = [self.num(f"{self.s}.h{h}.dots[{j}]", size, self.head_colour(h))
                     for h in self.heads]
            cells = [self.word(self.tokens[j], size)]
            for k, term in enumerate(terms):
                cells += [term] if k == 0 else [self.label("+", size, MUTED), term]
            cells += [self.label("=", size, MUTED), self.num(f"{self.s}.wide.dots[{j}]", size),
                      # "÷ 2.000 =": the division written out, not a bare number
                      self.bound("÷ {x} =", size, MUTED, mono=True, x=f"{self.s}.wide.scale"),
                      self.num(f"{self.s}.wide.scores[{j}]", size),
                      self.num(f"{self.s}.wide.exps[{j}]", size),
                      self.num(f"{self.s}.wide.weights[{j}]", size)]
            line = VGroup(*cells)
            line.terms, line.word = VGroup(*terms), cells[0]
            line.sum, line.scale, line.score = cells[-5], cells[-4], cells[-3]
            line.exp, line.weight = cells[-2], cells[-1]
            line.scoring = VGroup(*cells[:-2])
            rows.append(line)
        # Columns: word, each head's term (with "+" between), "=", sum, scale, score, exp,
        # weight.
        count = len(rows[0])
        term_columns = [1 + 2 * k for k in range(len(self.heads))]
        headed = dict(zip([*term_columns, *range(count - 5, count)], header, strict=True))
        widths = [max([row[c].width for row in rows]
                      + ([headed[c].width] if c in headed else [])) for c in range(count)]
        xs, at = [], 0.0
        for c, width in enumerate(widths):
            xs.append(at + width / 2)
            at += width + (0.4 if c == 0 or c >= count - 5 else 0.2)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                cell.move_to([xs[c], -r * 0.8, 0])
                if c == 0:
                    cell.shift(RIGHT * (xs[0] + widths[0] / 2 - cell.get_right()[0]))
        for c, label in headed.items():
            label.move_to([xs[c], 0.75, 0])
        total = self.bound("sum of e^score over all {n} sources = {d}", 20, MUTED,
                           n="dims.tokens", d=f"{self.s}.wide.denominator")
        total.next_to(VGroup(*rows), DOWN, buff=0.45).align_to(rows[0].weight, RIGHT)
        own = []  # under a head's favourite (not the wide head's): that head's own weight,
        # beneath the head's term
        for row, j in zip(rows[1:], picks[1:], strict=True):
            h = next(h for h in self.heads if self.v.value(f"{self.s}.h{h}.top_source") == j)
            mark = self.bound("Head {h}: {a}", 20, self.head_colour(h),
                              h=f"dims.head_numbers[{h - 1}]", a=f"{self.s}.h{h}.weights[{j}]")
            term = row.terms[self.heads.index(h)]
            own.append(mark.next_to(term, DOWN, buff=0.12).align_to(term, LEFT))
        table = VGroup(header, *rows, total, *own)
        top_y = heading.get_bottom()[1] - 0.5
        table.scale(min(1.3, 13.0 / table.width, (top_y - (SAFE_BOTTOM + 0.3)) / table.height))
        table.move_to([0, top_y - table.height / 2, 0])
        self.sums = table
        scoring_header = VGroup(*header[:-2])
        first = rows[0]
        words = {"w": self.tokens[top]}
        self.tell("Why does the wide head favour “{w}”? For each source, its dot product adds "
                  "up every head's.", fade_in(scoring_header, first.scoring),
                  cues=[("adds", lambda: self.point_at(first.terms, first.sum))], words=words)
        slots = {f"a{chr(97 + k)}": f"{self.s}.h{h}.dots[{top}]"
                 for k, h in enumerate(self.heads)}
        terms = " + ".join("{" + slot + "}" for slot in slots)
        self.tell("For “{w}”: " + terms + " = {c}, divided by √{j} = {x}, gives the score {y}.",
                  cues=[("{c}", lambda: self.point_at(first.sum)),
                        ("{x}", lambda: self.point_at(first.scale)),
                        ("{y}", lambda: self.point_at(first.score))],
                  words=words, c=f"{self.s}.wide.dots[{top}]", j="dims.joined",
                  x=f"{self.s}.wide.scale", y=f"{self.s}.wide.scores[{top}]", **slots)
        if len({str(self.v.value(key)) for key in slots.values()}) == 1:
            if len(self.heads) == 2:
                self.tell("Head {a} and head {b} happen to give “{w}” the same dot product.",
                          self.point_at(first.terms), words=words, a="dims.head_numbers[0]",
                          b="dims.head_numbers[1]")
            else:
                self.tell("Every head happens to give “{w}” the same dot product.",
                          self.point_at(first.terms), words=words)
        for row, j, mark in zip(rows[1:], picks[1:], own, strict=True):
            favourite = next(h for h in self.heads
                             if self.v.value(f"{self.s}.h{h}.top_source") == j)
            slots = {f"a{chr(97 + k)}": f"{self.s}.h{h}.dots[{j}]"
                     for k, h in enumerate(self.heads)}
            terms = " + ".join("{" + slot + "}" for slot in slots)
            self.tell("Head {h}'s favourite, “{w}”, which it weights {o}, totals " + terms
                      + " = {c}: a lower score, {y}.", fade_in(row.scoring),
                      cues=[("{o}", lambda mark=mark: AnimationGroup(fade_in(mark),
                                                                     self.point_at(mark))),
                            ("totals", lambda row=row: self.point_at(row.terms, row.sum)),
                            ("{y}", lambda row=row: self.point_at(row.score))],
                      words={"w": self.tokens[j]}, h=f"dims.head_numbers[{favourite - 1}]",
                      o=f"{self.s}.h{favourite}.weights[{j}]",
                      c=f"{self.s}.wide.dots[{j}]", y=f"{self.s}.wide.scores[{j}]", **slots)
        self.tell("The softmax raises e to each score: e to the {y} is {e}, and over all {n} "
                  "sources these add up to {d}.", fade_in(header[-2], *(row.exp for row in rows)),
                  cues=[("{e}", lambda: self.point_at(first.exp)),
                        ("{d}", lambda: FadeIn(total))],
                  y=f"{self.s}.wide.scores[{top}]", e=f"{self.s}.wide.exps[{top}]",
                  n="dims.tokens", d=f"{self.s}.wide.denominator")
        for row, j in zip(rows, picks, strict=True):
            self.tell("The weight of “{w}” is {e} ÷ {d} = {x}.",
                      *([fade_in(header[-1])] if j == top else []),
                      cues=[("{x}", lambda row=row: AnimationGroup(
                          fade_in(row.weight), self.point_at(row.exp, row.weight)))],
                      words={"w": self.tokens[j]}, e=f"{self.s}.wide.exps[{j}]",
                      d=f"{self.s}.wide.denominator", x=f"{self.s}.wide.weights[{j}]")
        self.tell("So one weight row pools every head's match, and “{w}”, with the largest "
                  "total, gets the largest weight.", words=words,
                  cues=[("“{w}”", lambda: self.point_at(first))])

    def messages(self, heading: Mobject) -> None:
        """The wide head's message against the separate heads' joined messages, under the
        name of what each coordinate carries; then, where the features are known, how the
        coordinates of the head the wide row resembles fare, and one coordinate worked as
        its sum of weight × value for the wide head and for the head it weakens."""
        shown = shown_indices(self.ws.d_model)
        d = self.ws.d_head
        size = 26
        names = carried_names(self, 20)
        wide_key, joined_key = f"{self.s}.wide.message", f"{self.s}.joined[{self.last}]"

        def row(key: str, coloured: bool) -> list[Mobject]:
            return [self.label("…", size, MUTED) if k is None else
                    self.num(f"{key}[{k}]", size,
                             self.head_colour(k // d + 1) if coloured else INK)
                    for k in shown]

        wide_row, joined_row = row(wide_key, False), row(joined_key, True)
        pitch = max(m.width for m in [*names, *wide_row, *joined_row]) + 0.45
        for c, (name, a, b) in enumerate(zip(names, wide_row, joined_row, strict=True)):
            for mob, y in ((name, 0.8), (a, 0.0), (b, -0.8)):
                mob.move_to([c * pitch, y, 0])
        titles = VGroup(self.label("wide head", 22, INK),
                        self.label("separate heads, joined", 22, INK))
        start = min(m.get_left()[0] for m in [*names, *wide_row, *joined_row])
        for title, y in zip(titles, (0.0, -0.8), strict=True):
            title.move_to([start - 0.5, y, 0], aligned_edge=RIGHT)
        wide_line = VGroup(titles[0], *wide_row)
        joined_line = VGroup(titles[1], *joined_row)
        head_row = VGroup(*names)
        table = VGroup(head_row, wide_line, joined_line)
        table.wide, table.joined, table.shown = wide_row, joined_row, shown
        fit(table, 13.0)
        known = all(copied_features(self.v, h, "V") is not None for h in self.heads)
        sums = self.coordinate_sums() if known and len(self.heads) > 1 else None
        if sums is None:
            table.move_to([0, (heading.get_bottom()[1] + SAFE_BOTTOM) / 2, 0])
        else:
            table.next_to(heading, DOWN, buff=0.4).set_x(0)
            fit(sums, 13.0, table.get_bottom()[1] - 0.35 - (SAFE_BOTTOM + 0.1))
            sums.next_to(table, DOWN, buff=0.35).set_x(0)
        named = {}
        if known:
            parts = []
            for k in shown:
                if k is None:
                    parts.append("…")
                    continue
                feature = copied_features(self.v, k // d + 1, "V")[k % d]
                named[f"f{k}"] = self.ws.lesson.features[feature]
                parts.append("{f" + str(k) + "} {x" + str(k) + "}")
            listing = ENGLISH.join(parts)
        else:
            listing = ""
        keys_w = {f"x{k}": f"{wide_key}[{k}]" for k in shown if k is not None}
        keys_j = {f"x{k}": f"{joined_key}[{k}]" for k in shown if k is not None}
        inner_w, vec_w = vector("w", wide_key, self.ws.d_model)
        inner_j, vec_j = vector("s", joined_key, self.ws.d_model)
        self.tell("Each coordinate of a message carries one feature of the values, named "
                  "above it in the colour of the head whose values hold it." if known
                  else "Each coordinate of a message comes from one "
                  "head's values; that head is named above it.", fade_in(head_row, titles),
                  cues=[("named", lambda: self.point_at(head_row))])
        if known:
            self.tell("Mixed with that single row, the wide head's message carries "
                      + listing + ".", fade_in(*wide_row),
                      cues=[("carries", lambda: self.point_at(wide_line))],
                      words=named, **keys_w)
        else:
            self.tell("Mixed with that single row, the wide head's message is " + inner_w
                      + ", coordinate by coordinate.", fade_in(*wide_row),
                      cues=[("message", lambda: self.point_at(wide_line))], **vec_w)
        if len(self.heads) == 1:
            self.tell("The one head, on its own, sends the same: " + inner_j + ".",
                      fade_in(*joined_row), cues=[("same", lambda: self.point_at(joined_line))],
                      **vec_j)
        elif known:
            self.tell("The separate heads, each with its own row, send " + listing
                      + " once joined.", fade_in(*joined_row),
                      cues=[("separate", lambda: self.point_at(joined_line))],
                      words=named, **keys_j)
        else:
            self.tell("The separate heads, each with its own row, send " + inner_j
                      + " once joined.", fade_in(*joined_row),
                      cues=[("separate", lambda: self.point_at(joined_line))], **vec_j)
        if sums is not None:
            self.tell_kept(table, sums.twin)
            self.tell_sums(table, sums)
        self.play(*filter(None, [self.unpoint()]))

    def coordinate_sums(self) -> VGroup | None:
        """For the first head whose favourite is not the wide head's: the coordinate it
        sends most, worked as a sum of weight × value, for the wide head and for that head,
        side by side: the two heaviest sources, the rest, and the total. ``None`` when every
        head favours the wide head's source.

        Attributes: ``blocks`` (the wide head's, the head's; each with ``title``, ``rows``
        (the two heaviest sources'), ``rest`` and ``total``), ``head``, ``column`` (the
        coordinate in the joined row), ``feature``, ``twin`` (the first head that favours the
        wide head's source, or ``None``)."""
        top = self.v.value(f"{self.s}.wide.top_source")
        head = next((h for h in self.heads
                     if self.v.value(f"{self.s}.h{h}.top_source") != top), None)
        if head is None:
            return None
        c = self.v.value(f"{self.s}.h{head}.message_top")
        k = (head - 1) * self.ws.d_head + c
        feature = self.ws.lesson.features[copied_features(self.v, head, "V")[c]]
        blocks = VGroup(
            self.sum_block(f"{self.s}.wide", k, INK,
                           self.bound("wide head: {f}", 22, INK, words={"f": feature})),
            self.sum_block(f"{self.s}.h{head}", c, self.head_colour(head),
                           self.bound("Head {h}: {f}", 22, self.head_colour(head),
                                      words={"f": feature},
                                      h=f"dims.head_numbers[{head - 1}]")))
        blocks.arrange(RIGHT, buff=1.2, aligned_edge=UP)
        note = self.label("weights rounded; each part uses the unrounded weight", 18, MUTED)
        sums = VGroup(blocks, note.next_to(blocks, DOWN, buff=0.25))
        sums.blocks, sums.head, sums.column, sums.feature = blocks, head, k, feature
        twin = self.v.value(f"{self.s}.wide.twin")
        sums.twin = twin + 1 if twin >= 0 else None
        return sums

    def sum_block(self, prefix: str, coordinate: int, colour: str, title: Mobject) -> VGroup:
        """One coordinate of a head's message (``prefix`` its values) as a sum worked in
        columns: each of its two heaviest sources' weight × value and part, the rest, a
        rule and the total, the parts set right under one another."""
        size = 22
        order = self.v.value(f"{prefix}.order")[:2]
        rows = []
        for j in order:
            word = self.word(self.tokens[j], size)
            product = self.bound("{a} × {v}", size, colour, mono=True,
                                 a=f"{prefix}.weights[{j}]", v=f"{prefix}.V[{j}][{coordinate}]")
            part = self.bound("≈ {x}", size, INK, mono=True,
                              x=f"{prefix}.contributions[{j}][{coordinate}]")
            rows.append(VGroup(word, product, part))
        rest = VGroup(self.label("the rest", size, MUTED),
                      self.bound("{x}", size, INK, mono=True, x=f"{prefix}.rest[{coordinate}]"))
        total = self.bound("{x}", size, INK, mono=True, x=f"{prefix}.message[{coordinate}]")
        word_right = max(r[0].width for r in rows) + 0.0
        product_left = word_right + 0.35
        part_right = product_left + max(r[1].width for r in rows) + 0.35 + max(
            r[2].width for r in rows)
        for i, line in enumerate(rows):
            y = -0.55 * i
            line[0].move_to([word_right, y, 0], aligned_edge=RIGHT)
            line[1].move_to([product_left, y, 0], aligned_edge=LEFT)
            line[2].move_to([part_right, y, 0], aligned_edge=RIGHT)
        rest[0].move_to([word_right, -1.1, 0], aligned_edge=RIGHT)
        rest[1].move_to([part_right, -1.1, 0], aligned_edge=RIGHT)
        rule = Line([part_right - 1.2, -1.42, 0], [part_right, -1.42, 0], stroke_color=MUTED,
                    stroke_width=2)
        total.move_to([part_right, -1.75, 0], aligned_edge=RIGHT)
        for line in rows:  # each row's word and product in line with its part
            for mob in line[:2]:
                mob.set_y(line[2].get_y())
        body = VGroup(*rows, rest, rule, total)
        title.next_to(body, UP, buff=0.3).align_to(body, LEFT)
        block = VGroup(title, body)
        block.title, block.rows, block.rest, block.total = title, rows, rest, total
        block.rule = rule
        return block

    def tell_kept(self, table: VGroup, twin: int | None) -> None:
        """How the coordinates of the head whose favourite the wide head shares come
        through: one about the same, one that changes much, when there are such (said only
        then)."""
        w, d, shown = f"{self.s}.wide", self.ws.d_head, table.shown
        a, b = self.v.value(f"{w}.kept"), self.v.value(f"{w}.changed")
        if twin is None or a not in shown or b not in shown:
            return  # none such (-1), or a coordinate the table elides
        copies = copied_features(self.v, twin, "V")
        words = {"f": self.ws.lesson.features[copies[a % d]],
                 "g": self.ws.lesson.features[copies[b % d]]}
        places = [shown.index(a), shown.index(b)]
        pairs = [VGroup(table.wide[p], table.joined[p]) for p in places]
        self.tell("Head {h}'s {f} comes through almost the same, {a} against {b}; its {g} "
                  + ("drops" if self.v.value(f"{w}.changed_drops") else "grows")
                  + ", {c} against {e}.",
                  cues=[("{f}", lambda: self.point_at(pairs[0])),
                        ("{g}", lambda: self.point_at(pairs[1]))],
                  words=words, h=f"dims.head_numbers[{twin - 1}]",
                  a=f"{self.s}.wide.message[{a}]", b=f"{self.s}.joined[{self.last}][{a}]",
                  c=f"{self.s}.wide.message[{b}]", e=f"{self.s}.joined[{self.last}][{b}]")

    def tell_sums(self, table: VGroup, sums: VGroup) -> None:
        """The coordinate worked as a sum for the wide head and for the head it weakens;
        then what the shared row costs, on the two messages' numbers."""
        wide, own = sums.blocks
        k, head, twin = sums.column, sums.head, sums.twin
        c = k - (head - 1) * self.ws.d_head
        w, h = f"{self.s}.wide", f"{self.s}.h{head}"
        first, second = self.v.value(f"{w}.order")[:2]
        mine = self.v.value(f"{h}.order")[0]
        self.tell("Each coordinate adds up weight × value over the sources: the wide head's "
                  "{f} takes {a} × {v}, about {x}, from “{u}”,",
                  fade_in(wide.title, *wide.rows[0]),
                  cues=[("takes", lambda: self.point_at(wide.rows[0]))],
                  words={"f": sums.feature, "u": self.tokens[first]},
                  a=f"{w}.weights[{first}]", v=f"{w}.V[{first}][{k}]",
                  x=f"{w}.contributions[{first}][{k}]")
        self.tell("then {a} × {v}, about {x}, from “{u}”, and {r} from the rest: {m} in all.",
                  cues=[("then", lambda: AnimationGroup(fade_in(*wide.rows[1]),
                                                         self.point_at(wide.rows[1]))),
                        ("rest", lambda: AnimationGroup(fade_in(wide.rest),
                                                        self.point_at(wide.rest))),
                        ("all", lambda: AnimationGroup(
                            fade_in(wide.rule, wide.total, sums[1]),
                            self.point_at(wide.total)))],
                  words={"u": self.tokens[second]}, a=f"{w}.weights[{second}]",
                  v=f"{w}.V[{second}][{k}]", x=f"{w}.contributions[{second}][{k}]",
                  r=f"{w}.rest[{k}]", m=f"{w}.message[{k}]")
        self.tell("Head {h} takes its {f} mostly from “{u}”: {a} × {v}, about {x}, and {m} "
                  "in all.", fade_in(own),
                  cues=[("mostly", lambda: self.point_at(own.rows[0])),
                        ("in all", lambda: self.point_at(own.total))],
                  words={"f": sums.feature, "u": self.tokens[mine]},
                  h=f"dims.head_numbers[{head - 1}]", a=f"{h}.weights[{mine}]",
                  v=f"{h}.V[{mine}][{c}]", x=f"{h}.contributions[{mine}][{c}]",
                  m=f"{h}.message[{c}]")
        # The takeaway, on the two messages' numbers for this coordinate.
        shown = table.shown
        both = VGroup(*(row[shown.index(k)] if k in shown else VGroup(*row)
                        for row in (table.wide, table.joined)))
        weak = {first: wide.rows[0], second: wide.rows[1]}.get(mine, wide.rest)
        role = self.ws.lesson.head_names[head - 1]
        signal = ("head {h}'s {r} signal" if role != f"head {head}" else "head {h}'s signal")
        like = "The wide head's one row looks like head {t}'s, so " if twin is not None else \
            "With one row for all, "
        self.tell(like + signal + " from “{u}” is weakened, not lost: {p} still arrives, and "
                  "{f} is {m} against {n}.",
                  cues=[("weakened", lambda: self.point_at(weak[-1], own.rows[0][-1],
                                                           each=True)),
                        ("{m}", lambda: self.point_at(both))],
                  words={"f": sums.feature, "u": self.tokens[mine], "r": role},
                  h=f"dims.head_numbers[{head - 1}]",
                  **({"t": f"dims.head_numbers[{twin - 1}]"} if twin is not None else {}),
                  p=f"{w}.contributions[{mine}][{k}]", m=f"{w}.message[{k}]",
                  n=f"{self.s}.joined[{self.last}][{k}]")
