"""Query, key and value roles, one head as code, and every shape of the layer (clip 06:
RolesAndShapes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import pairwise

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Line,
    Mobject,
    Rectangle,
    ReplacementTransform,
    TransformFromCopy,
    VGroup,
    Write,
)

from scenes.kit import (
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
    model_map,
    panel,
    shown_indices,
    vector,
)
from scenes.kit.topic import carried_names, mask_grid

CARD_SIZE = 22
ROLES_SIZE = 22
"""Size of the roles picture's numbers and of every text there that holds one: at the
picture's scale, a figure stays legible from the back of a hall."""
CODE_SIZE = 19
MAP_SIZE = 28
"""Label size of this file's model maps: the whole frame wide, legible at 480p."""
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
        W_K and W_V (which take the source's) under the role each makes, each row named by its
        input feature and each column by the head's coordinate, over the row it makes, set
        under the columns that make it.

        Attributes: ``source`` (the rows of E: ``receiver`` and ``other``, each with
        ``body`` and ``cells``, ``other`` being the receiver's row again when the receiver is
        its own favourite; ``names``), ``maker`` (the head's name, over the matrices' row
        names), ``rows`` (those names), ``blocks`` (each with ``matrix`` and ``result``) and
        ``working``."""
        colour, size, last = self.head_colour(1), ROLES_SIZE, self.last
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
        specs = [("Q", last, "q", "query"), ("K", top, "k", "key"), ("V", top, "v", "value")]
        picked = [i for i in shown_indices(self.ws.d_model) if i is not None]
        first = 1  # head 1 is the head this clip follows
        blocks = VGroup()
        for kind, row, name, role in specs:
            heads = self.coordinate_names(kind)
            made = f"{self.s}.h{first}.{kind}"
            plain = self.matrix(f"params.h{first}.W_{kind}", rows=picked, size=size)
            result = self.matrix(made, rows=[row], size=size, colour=colour)
            # Each column wide enough for its name and for the number of the row it makes,
            # set right-aligned under it: the gap makes up what the column's own entries lack.
            short = max(max(head.width - 0.1, number.width) - max(line[c].width
                                                                  for line in plain.cells)
                        for c, (head, number) in enumerate(zip(heads, result.cells[0],
                                                               strict=True)))
            matrix = self.matrix(f"params.h{first}.W_{kind}", rows=picked, size=size,
                                 colour=colour, col_labels=heads, h_buff=0.25 + max(0, short))
            matrix.columns = VGroup(*heads)
            taken = self.bound(role + ":  “{u}” × W_" + kind, ROLES_SIZE, colour,
                               words={"u": self.tokens[row]})
            matrix.add(taken.next_to(matrix.columns, UP, buff=0.15).align_to(matrix.brackets,
                                                                             LEFT))
            matrix.taken = taken
            result = self.row_under(matrix, result, name, colour)
            block = VGroup(matrix, result)
            block.matrix, block.result = matrix, result
            blocks.add(block)
        blocks.arrange(RIGHT, buff=0.45, aligned_edge=UP)
        W_Q = blocks[0].matrix
        rows = VGroup(*(self.feature(i, 20) for i in picked))
        for label, cells in zip(rows, W_Q.cells, strict=True):
            label.set_y(cells[0].get_y())
            label.shift(RIGHT * (W_Q.brackets[0].get_left()[0] - 0.3 - label.get_right()[0]))
        maker = self.head_label(first, ROLES_SIZE)
        maker.set_y(W_Q.taken.get_y()).align_to(rows, RIGHT)
        picture = VGroup(source, VGroup(maker, rows, blocks)).arrange(DOWN, buff=0.3)
        working = self.working(picked, top)
        working.next_to(blocks, DOWN, buff=0.3).set_x(blocks.get_x())
        picture.add(working)
        picture.source, picture.maker, picture.rows = source, maker, rows
        picture.blocks, picture.working = blocks, working
        return picture

    def row_under(self, matrix: VGroup, row: VGroup, name: str, colour: str) -> VGroup:
        """The one-row ``row`` (a :meth:`matrix`) that a row times ``matrix`` makes, set under
        ``matrix``'s columns (each number right-aligned as the column above it), between
        brackets as wide as the matrix's, ``name =`` before it. Attributes ``cells`` (the
        numbers) and ``body``."""
        cells = row.cells[0]
        y = matrix.brackets.get_bottom()[1] - 0.25 - max(cell.height for cell in cells) / 2
        for place, cell in enumerate(cells):
            edge = max(line[place].get_right()[0] for line in matrix.cells)
            cell.move_to([edge - cell.width / 2, y, 0])
        numbers = VGroup(*cells)
        left = min(numbers.get_left()[0], matrix.body.get_left()[0])
        span = Rectangle(width=matrix.body.get_right()[0] - left, height=numbers.height)
        sides = brackets(span.move_to([(left + matrix.body.get_right()[0]) / 2, y, 0]),
                         pad=0.12)
        named = self.label(name + " =", ROLES_SIZE, colour)
        named.next_to(sides, LEFT, buff=0.15)
        made = VGroup(named, numbers, sides)
        made.cells, made.body = cells, numbers
        return made

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
                names.append(self.bound("{n}", ROLES_SIZE, MUTED,
                                        n=f"dims.value_numbers[{c}]"))
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
        query = self.bound("q, first coordinate:  " + sum_template, ROLES_SIZE, colour,
                           **slots)
        query.spoken, query.spoken_keys = sum_template, slots
        dot_terms, dot_slots = _products(shown_indices(self.ws.d_head),
                                         ("q", lambda c: f"{self.s}.h{first}.Q[{last}][{c}]"),
                                         ("k", lambda c: f"{self.s}.h{first}.K[{top}][{c}]"))
        dot_slots["d"] = f"{self.s}.h{first}.dots[{top}]"
        dot_template = " + ".join(dot_terms) + " = {d}"
        match = self.bound("q · k:  " + dot_template, ROLES_SIZE, colour, **dot_slots)
        match.spoken, match.spoken_keys = dot_template, dot_slots
        weight_keys = {"d": f"{self.s}.h{first}.dots[{top}]", "k": "dims.d_head",
                       "s": f"{self.s}.h{first}.scores[{top}]", "n": "dims.tokens",
                       "a": f"{self.s}.h{first}.weights[{top}]"}
        weight = self.bound("{d} ÷ √{k} = {s}   →   softmax over all {n} sources   →   "
                            "weight {a}", ROLES_SIZE, colour, **weight_keys)
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
        picture.scale(min(1.3, 13.8 / picture.width,
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
                      fade_in(blocks[0].matrix, blocks[0].result),
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
                      fade_in(blocks[1].matrix, blocks[1].result),
                      self.point_at(other.body, W_K, blocks[1].result, each=True,
                                    buff=0.1)))],
                  words={"u": self.tokens[top]}, **keys_k)
        self.tell("W_V turns it into its value, " + inner_v + ": what it passes on.",
                  cues=[("W_V", lambda: AnimationGroup(
                      fade_in(blocks[2].matrix, blocks[2].result),
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
        after = VGroup(row).next_to(heading, DOWN, buff=0.4).set_x(0)
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
                      ("every", lambda: AnimationGroup(row.step(0),
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
        names = carried_names(self, 22)
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
        grid.arrange_in_grid(rows=len(keys), cols=len(shown), buff=(0.4, 0.46),
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
        note.next_to(lines[0][0], LEFT, buff=0.5)  # beside the first row, under the joined one
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
            written = self.bound("{g} of ΔE:  " + template, 24, INK,
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
            pieces.add(VGroup(self.head_label(h, 22), bracketed).arrange(DOWN, buff=0.3))
        pieces.arrange(RIGHT, buff=0.6, aligned_edge=DOWN)
        heard = self.bound("messages for “{w}”, width {d} each", 22, MUTED,
                           words={"w": self.tokens[self.last]}, d="dims.d_head")
        if any(n.figures[0][1].startswith("−") for r in rows for n in r[1]):
            heard = VGroup(heard, self.label("(red: below zero)", 22, NEGATIVE))
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
        width = self.bound("joined: one row, width {j}", 22, MUTED, j="dims.joined")
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
            calls.add(panel(VGroup(self.head_label(head, 22),
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


