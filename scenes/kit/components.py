"""Drawing components made from value keys: matrices, fans, vectors, columns,
and the pictures the scenes share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Arrow,
    Group,
    GrowFromEdge,
    Mobject,
    Rectangle,
    Scene,
    SurroundingRectangle,
    Text,
    VGroup,
    VMobject,
    config,
)
from manim.animation.animation import prepare_animation
from manim.utils.family import extract_mobject_family_members
from manim.utils.iterables import list_update

from narration.text import spoken_text
from outline import STEPS
from scenes.kit.fade import fade_in
from scenes.kit.layout import (
    BAR_UNIT,
    CAPTION_WORDS_PER_SECOND,
    MIN_CAPTION_SECONDS,
    MONO,
    NUMBER_SIZE,
    WORD_SIZE,
)
from scenes.kit.palette import BACKGROUND, INK, MUTED, blend
from scenes.kit.text import Bound, _no_digits, baseline, lighten, shown_indices, vector


class Components:
    """Drawing methods of :class:`LectureScene` (they use its ``num``, ``word``,
    ``label`` and values)."""

    def token_row(self, tokens: Sequence[str], size: float = WORD_SIZE,
                  width: float | None = None, buff: float = 0.22) -> VGroup:
        """The sentence's tokens in a row, shrunk to ``width`` if needed."""
        row = VGroup(*(self.word(t, size) for t in tokens)).arrange(RIGHT, buff=buff)
        limit = width or config.frame_width - 1.0
        if row.width > limit:
            row.scale_to_fit_width(limit)
        return row

    def matrix(self, key: str, rows: Sequence[int] | None = None,
               row_labels: Sequence[Mobject] | None = None,
               col_labels: Sequence[Mobject] | None = None, size: float = NUMBER_SIZE,
               colour: str = INK, h_buff: float = 0.3, v_buff: float = 0.14) -> VGroup:
        """A matrix of bound numbers with square brackets and optional labels.

        ``rows`` picks which rows of the value to show (all by default); wide matrices
        elide middle columns with "…". The result has attributes ``cells`` (rows of
        :class:`Bound`), ``body`` and ``brackets``.
        """
        value = self.v.value(key)
        is_vector = not isinstance(value[0], list)
        columns = [0] if is_vector else shown_indices(len(value[0]))
        width = len(columns)
        picked = list(range(len(value))) if rows is None else list(rows)

        def cell(r: int, c: int | None) -> Mobject:
            if c is None:
                return self.label("…", size, colour)
            return self.num(f"{key}[{r}]" if is_vector else f"{key}[{r}][{c}]", size, colour)

        cells = [[cell(r, c) for c in columns] for r in picked]
        body = VGroup(*(item for row in cells for item in row))
        body.arrange_in_grid(rows=len(picked), cols=width, buff=(h_buff, v_buff),
                             cell_alignment=RIGHT)
        sides = brackets(body)
        group = VGroup(body, sides)
        if row_labels is not None:
            labels = VGroup(*row_labels)
            edge = sides[0].get_left()[0] - 0.2
            for label, row in zip(labels, cells, strict=True):
                label.set_y(row[0].get_y())
                label.shift(RIGHT * (edge - label.get_right()[0]))
            group.add(labels)
        if col_labels is not None:
            heads = VGroup(*col_labels)
            for label, c in zip(heads, range(width), strict=True):
                label.next_to(cells[0][c], UP, buff=0.25)
            group.add(heads)
        group.cells = cells
        group.body = body
        group.brackets = sides
        return group

    def fan(self, sources: Sequence[Mobject], receiver: Mobject, weights_key: str,
            colour: str, max_width: float = 14.0) -> VGroup:
        """Arrows from every source to the receiver, stroke width ∝ the computed weight."""
        weights = self.v.value(weights_key)
        arrows = VGroup()
        for source, weight in zip(sources, weights, strict=True):
            width = max(0.6, max_width * float(weight))
            # Leaving from below the word, so a slanted arrow clears its descenders.
            arrows.add(Arrow(source.get_bottom() + DOWN * 0.06, receiver.get_top(), buff=0.08,
                             stroke_width=width, color=colour,
                             max_tip_length_to_length_ratio=0.06,
                             stroke_opacity=0.35 + 0.65 * float(weight)))
        return arrows

    def vec(self, key: str, size: float = NUMBER_SIZE, colour: str = INK,
            template: str = "{v}") -> Bound:
        """A vector value as ``[a, b, …]``, optionally inside a template with slot ``{v}``."""
        length = len(self.v.value(key))
        inner, keys = vector("x", key, length)
        return self.bound(template.replace("{v}", inner), size, colour, mono=True, **keys)

    def column(self, header: Mobject, cells: Sequence[Mobject], ys: Sequence[float],
               header_y: float) -> VGroup:
        """A table column: ``cells[j]`` at height ``ys[j]``, right-aligned under ``header``."""
        for cell, y in zip(cells, ys, strict=True):
            cell.move_to([-cell.width / 2, y, 0])
        header.move_to([-header.width / 2, header_y, 0])
        column = VGroup(header, *cells)
        column.cells = list(cells)
        column.header = header
        return column

    def highlight(self, mob: Mobject, colour: str) -> SurroundingRectangle:
        return SurroundingRectangle(mob, color=colour, buff=0.06, stroke_width=3)

    def weight_bar(self, key: str, colour: str, size: float = NUMBER_SIZE,
                   height: float = 0.24, unit: float = BAR_UNIT,
                   text_colour: str | None = None) -> WeightBar:
        """A bar as long as the weight ``key`` (``unit`` long at weight one), its number
        after it; :func:`grow` draws it."""
        bar = WeightBar(key, float(self.v.value(key)), self.num(key, size, text_colour or colour),
                        colour, height, unit)
        self._weight_bars.append(bar)  # recorded at section ends while its bar is drawn
        return bar


class WeightBar(VGroup):
    """A weight as a bar, its number after it: attributes ``key``, ``weight``, ``bar`` and
    ``number``. Section ends record the weight each bar on screen draws (:meth:`drawn`)."""

    LEAST = 0.02
    """The shortest bar drawn, so a weight near zero still shows where its bar starts."""

    def __init__(self, key: str, weight: float, number: Mobject, colour: str, height: float,
                 unit: float) -> None:
        bar = Rectangle(width=max(self.LEAST, unit * weight), height=height,
                        fill_color=colour, fill_opacity=1.0, stroke_width=0)
        number.next_to(bar, RIGHT, buff=0.12)
        super().__init__(bar, number)
        self.key, self.weight, self.bar, self.number = key, weight, bar, number
        self._unit, self._height = unit, height

    @property
    def floor(self) -> float:
        """The weight the shortest bar shows: a smaller weight is drawn this long."""
        return round(self.LEAST / self._unit, 6)

    def drawn(self) -> float:
        """The weight the bar's length shows, at whatever scale the picture now has (its
        height, which no weight changes, gives the scale)."""
        return self.bar.width * self._height / (self.bar.height * self._unit)


def brackets(body: Mobject, pad: float = 0.12, arm: float = 0.12) -> VGroup:
    """Square brackets around a block or a row of numbers."""
    left, right = body.get_left()[0] - pad, body.get_right()[0] + pad
    bottom, top = body.get_bottom()[1] - pad, body.get_top()[1] + pad

    def bracket(x: float, direction: int) -> VMobject:
        shape = VMobject(stroke_color=MUTED, stroke_width=2)
        shape.set_points_as_corners([[x + direction * arm, top, 0], [x, top, 0],
                                     [x, bottom, 0], [x + direction * arm, bottom, 0]])
        return shape

    return VGroup(bracket(left, 1), bracket(right, -1))


CODE_LITERALS: tuple[str, ...] = ("shape[-1]", ".triu(1)", ".softmax(-1)", "dim=-1")
"""The only digits a code listing may show: fixed PyTorch idioms naming an axis or a
diagonal, never a lesson number (those come from value keys, as everywhere else)."""


CODE_SIZE = 18


CODE_PITCH = 1.6
"""Line pitch of a code listing, in ems of its font."""


MAP_SIZE = 16


MAP_STAGES = STEPS
"""The stages of :func:`model_map`, left to right."""


_MAP_LABELS = {"embeddings": ("token", "+ position"), "concat": ("concat",),
               "W_O": ("W_O",), "residual": ("residual", "E + ΔE"), "MLP": ("MLP",),
               "prediction": ("next", "word")}


class CodeLine(Bound):
    """One line of a code listing in the monospace font, shown literally.

    Its digits may stand only inside :data:`CODE_LITERALS`. Each literal it holds is
    recorded as one of its words, so a section record accounts for every digit shown.
    """

    def __init__(self, line: str, size: float = CODE_SIZE, colour: str = INK) -> None:
        literals: list[str] = []
        rest = line
        for literal in CODE_LITERALS:
            literals += [literal] * rest.count(literal)
            rest = rest.replace(literal, " " * len(literal))
        _no_digits(rest, f"code line {line!r} outside its code literals {CODE_LITERALS}:")
        self.figures, self.spans, self.words = (), (), tuple(literals)
        Text.__init__(self, line, disable_ligatures=True, font=MONO, font_size=size,
                      color=colour)


@cache
def _advance(size: float) -> float:
    """The width of one character of the monospace font at ``size``."""
    return Text("x" * 20, font=MONO, font_size=size).width / 20


def code(source: str, size: float = CODE_SIZE, colour: str = INK) -> VGroup:
    """A short code listing, one :class:`CodeLine` per line, indentation kept and lines
    standing on evenly spaced baselines. The group's ``lines`` are the lines in order
    (``None`` for a blank line, which keeps its space)."""
    advance = _advance(size)
    pitch = CODE_PITCH * advance / 0.6  # DejaVu Sans Mono advances 0.6 em
    listing = VGroup()
    listing.lines = []
    for row, text in enumerate(source.strip("\n").splitlines()):
        body = text.lstrip(" ")
        if not body:
            listing.lines.append(None)
            continue
        line = lighten(CodeLine(body, size, colour))
        line.shift(RIGHT * ((len(text) - len(body)) * advance - line.get_left()[0])
                   + UP * (-row * pitch - baseline(line)))
        listing.add(line)
        listing.lines.append(line)
    return listing


def panel(content: Mobject, colour: str = MUTED, width: float = 0.0, buff: float = 0.15,
          stroke: float = 2.0) -> VGroup:
    """A rounded outline around ``content``, at least ``width`` wide: one stage or card."""
    frame = SurroundingRectangle(content, color=colour, buff=buff, corner_radius=0.1,
                                 stroke_width=stroke)
    if frame.width < width:
        frame.stretch_to_fit_width(width)
    return VGroup(frame, content)


def model_map(scene: Any, lit: str | Iterable[str] = (),
              size: float = MAP_SIZE, heads_lit: Iterable[int] | None = None) -> VGroup:
    """The whole model, small: token + position embeddings → one box per head (in its
    head colour) → concat → W_O → the residual (E + ΔE) → MLP → the next word.

    Stages named in ``lit`` (see :data:`MAP_STAGES`) are drawn bright, the rest muted, to
    say where the lecture is. It is never scaled, so its labels stay legible. The group's
    ``stages`` maps each stage to its box (``stages["heads"]`` groups the head boxes) and
    ``heads`` lists the head boxes in order. With ``heads_lit``, only those heads' boxes
    (numbered from 1) are bright when the heads are lit.
    """
    from scenes.kit.palette import FAINT  # imported here to leave the kit's header as it is

    bright = {lit} if isinstance(lit, str) else set(lit)
    unknown = bright - set(MAP_STAGES)
    if unknown:
        raise ValueError(f"model_map: no stage {sorted(unknown)}; stages: {MAP_STAGES}")

    def box(name: str) -> VGroup:
        colour = INK if name in bright else MUTED
        lines = VGroup(*(scene.label(text, size, colour) for text in _MAP_LABELS[name]))
        return panel(lines.arrange(DOWN, buff=0.06), INK if name in bright else FAINT,
                     buff=0.1, stroke=3.0 if name in bright else 1.5)

    heads = VGroup()
    chosen = None if heads_lit is None else set(heads_lit)
    for head in range(1, scene.ws.n_heads + 1):
        colour = scene.head_colour(head)
        on = "heads" in bright and (chosen is None or head in chosen)
        made = panel(scene.head_label(head, size), colour, buff=0.08,
                     stroke=3.0 if on else 1.5)
        made[0].set_stroke(opacity=1.0 if on else 0.6)
        heads.add(made)
    heads.arrange(DOWN, buff=0.08)
    stages = {name: heads if name == "heads" else box(name) for name in MAP_STAGES}
    row = VGroup(*stages.values()).arrange(RIGHT, buff=0.45)
    wires = VGroup()

    def wire(start: Any, end: Any) -> None:
        wires.add(Arrow(start, end, buff=0.04, stroke_width=2, color=FAINT, tip_length=0.1,
                        max_tip_length_to_length_ratio=0.5))

    embeddings, concat = stages["embeddings"], stages["concat"]
    for head in heads:
        wire(embeddings.get_right(), head.get_left())
        wire(head.get_right(), concat.get_left())
    chain = MAP_STAGES[2:]
    for i in range(len(chain) - 1):
        wire(stages[chain[i]].get_right(), stages[chain[i + 1]].get_left())
    # The residual: the embedding rows skip past the heads and are added back.
    residual = stages["residual"]
    over = max(heads.get_top()[1], residual.get_top()[1]) + 0.18
    skip = VMobject(stroke_color=FAINT, stroke_width=2)
    skip.set_points_as_corners([embeddings.get_top(), [embeddings.get_x(), over, 0],
                                [residual.get_x(), over, 0], residual.get_top()])
    wires.add(skip)
    group = VGroup(wires, row)
    group.stages, group.heads = stages, list(heads)
    return group


def grow(bar: WeightBar) -> Animation:
    """A :meth:`Components.weight_bar` growing from zero, its number appearing."""
    return AnimationGroup(GrowFromEdge(bar.bar, LEFT), fade_in(bar.number))


def weight_opacity(weight: float) -> float:
    """Fill opacity of a cell shaded by an attention weight (zero: nearly clear; one: full)."""
    return 0.06 + 0.94 * max(0.0, min(1.0, weight))


def weight_cell(colour: str, weight: float, width: float,
                height: float) -> tuple[VMobject, str]:
    """A cell shaded by ``weight`` in a head's ``colour``, and the text colour that reads on
    it (white or black, whichever contrasts more with the blended fill)."""
    from scenes.kit.palette import ink_on

    opacity = weight_opacity(weight)
    box = Rectangle(width=width, height=height, stroke_width=0, fill_color=colour,
                    fill_opacity=opacity)
    return box, ink_on(blend(colour, BACKGROUND, opacity))


class Cued(Animation):
    """Animations that each start at their own moment within one step, in their own time.

    Unlike ``Succession``, nothing of a later animation is on screen before it starts: each
    one joins the scene when its moment comes. When the step is played faster or slower
    than its natural length (as :meth:`LectureScene.say` fits it into the spoken sentence),
    every moment and duration scales with it.
    """

    def __init__(self, steps: Sequence[tuple[float, Animation]], **kwargs: Any) -> None:
        self.steps = [(start, prepare_animation(animation)) for start, animation in steps]
        self.natural = max((start + a.run_time for start, a in self.steps), default=0.0)
        self.started = [False] * len(self.steps)
        self.done = [False] * len(self.steps)
        self.scene: Scene | None = None
        kwargs.setdefault("run_time", max(self.natural, 1e-3))
        # What the steps move counts as moving: Manim paints everything else once, before
        # the step, into a still background, where a pointer faded out by a later step
        # would stay drawn to the end of the step (a ghost outline). As an "introducer"
        # the group is not added to the scene (each step adds its own).
        super().__init__(Group(*(animation.mobject for _, animation in self.steps)),
                         **{"rate_func": lambda t: t, "introducer": True, **kwargs})

    def _setup_scene(self, scene: Scene) -> None:
        self.scene = scene

    def begin(self) -> None:
        self.interpolate(0.0)

    def _start(self, index: int) -> Animation:
        animation = self.steps[index][1]
        if not self.started[index]:
            animation._setup_scene(self.scene)
            animation.begin()
            self.started[index] = True
        return animation

    def _end(self, index: int) -> None:
        animation = self._start(index)
        animation.finish()
        if self.scene is not None:
            animation.clean_up_from_scene(self.scene)
        self.done[index] = True

    def interpolate(self, alpha: float) -> None:
        now = self.rate_func(alpha) * self.natural
        before = (sum(self.started), sum(self.done))
        for index, (start, animation) in enumerate(self.steps):
            if self.done[index] or now < start:
                continue
            progress = (now - start) / animation.run_time if animation.run_time else 1.0
            if progress >= 1.0:
                self._end(index)
            else:
                self._start(index).interpolate(progress)
        if self.scene is not None and (sum(self.started), sum(self.done)) != before:
            # A step added or removed something: Manim draws the list of moving mobjects it
            # made when the whole step began, so it is made again from the scene as it is
            # now. Everything the still background (painted as the step began) does not
            # hold is drawn: counting only from the first mobject a step touches would
            # drop whatever lies between a mobject a step took away and the next touched
            # one, and it would vanish until the step ends. (An empty list would make
            # Manim draw everything over the still part.)
            scene = self.scene
            still = {id(mob) for mob in scene.static_mobjects}
            shown = extract_mobject_family_members(
                list_update(scene.mobjects, scene.foreground_mobjects),
                use_z_index=scene.renderer.camera.use_z_index, only_those_with_points=True)
            scene.moving_mobjects = [mob for mob in shown if id(mob) not in still] \
                or [Mobject()]

    def update_mobjects(self, dt: float) -> None:
        for index, (_, animation) in enumerate(self.steps):
            if self.started[index] and not self.done[index]:
                animation.update_mobjects(dt)

    def finish(self) -> None:
        for index in range(len(self.steps)):
            if not self.done[index]:
                self._end(index)

    def clean_up_from_scene(self, scene: Scene) -> None:
        self.finish()
        scene.remove(self.mobject)


def cued(template: str, cues: Sequence[tuple[str, Animation]], seconds: float | None = None,
         step: float = 0.6, opening: Sequence[Animation] = (),
         spoken: Mapping[str, str] | None = None) -> Cued:
    """Animations played in order, each when the voice reaches its cue in ``template``.

    ``cues`` pairs a fragment of the template (a slot such as ``"{x}"`` or a word) with the
    animation to play as it is said; times are estimated from the fragment's place in the
    template over ``seconds`` (the caption's reading time by default), and each plays for
    ``step`` seconds. Given ``spoken`` (each slot as the voice says it), the place is
    measured in the sentence as spoken: a number takes longer to say than its slot takes to
    read, so cues placed by the template's characters run ahead of the voice in a sentence
    full of numbers. ``opening`` animations play together from the start, for their own
    run time (not stretched over the sentence, as ``say`` stretches the animations played
    beside a cued step). Pass the result to :meth:`LectureScene.say`, which fits it into
    the spoken sentence.
    """
    total = seconds or max(MIN_CAPTION_SECONDS,
                           len(template.split()) / CAPTION_WORDS_PER_SECOND)

    def share(before: str) -> float:
        if spoken is None:
            return len(before) / max(1, len(template))
        return len(spoken_text(before, spoken)) / max(1, len(spoken_text(template, spoken)))

    steps: list[tuple[float, Animation]] = [(0.0, prepare_animation(a)) for a in opening]
    at = 0.0
    for fragment, animation in cues:
        where = template.find(fragment)
        if where < 0:
            raise ValueError(f"cue {fragment!r} is not in the template {template!r}")
        start = max(at, total * share(template[:where]) - step / 2)
        made = prepare_animation(animation)
        made.run_time = step
        steps.append((start, made))
        at = start + step
    return Cued(steps)
