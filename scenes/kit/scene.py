"""The base of every lecture scene: bound numbers, narrated steps timed to the voice,
pointing, sections recorded, the manifest."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    AnimationGroup,
    Create,
    Group,
    Mobject,
    Scene,
    SurroundingRectangle,
    Text,
    VGroup,
    VMobject,
    config,
)
from manim.animation.animation import Wait, prepare_animation
from manim.utils.family import extract_mobject_family_members

from outline import check_limits, lecture_order
from scenes import DRAWN, ENDS_ONLY
from scenes.kit.components import Components, WeightBar, cued, model_map
from scenes.kit.fade import Fade, fade_out
from scenes.kit.laid_out import LAID_OUT
from scenes.kit.layout import (
    CAPTION_WORDS_PER_SECOND,
    FONT,
    MIN_CAPTION_SECONDS,
    MONO,
    NUMBER_SIZE,
    TITLE_SIZE,
    WORD_SIZE,
)
from scenes.kit.lesson import RecordingValues, RecordingWorksheet, current_lesson, lesson_voice
from scenes.kit.palette import HEAD_COLOURS, INK, NEGATIVE, blend
from scenes.kit.record import (
    CaptionRecord,
    SectionRecord,
    SilenceRecord,
    TextRecord,
    _drawn_under,
    _hex,
    _visible,
    patch,
    pixel_box,
)
from scenes.kit.text import Bound, Word, _no_digits, check_word, fill

BREATH = 0.35
"""Least quiet after a spoken sentence before the next one; a step played in between
counts toward it."""


LONGEST_SILENCE = 1.5
"""Longer quiet stretches in a narrated scene are marked with :meth:`LectureScene.silence`."""

Cue = tuple[str, Callable[[], Animation]]
"""A fragment of a spoken sentence and what to make and play when the voice reaches it
(see :meth:`LectureScene.tell`)."""


class LectureScene(Components, Scene):
    """Base of every lecture scene: bound numbers, narrated steps, recorded sections.

    Subclasses write ``construct`` with :meth:`num`, :meth:`bound`, :meth:`word`,
    :meth:`label`, :meth:`say` and :meth:`section`; they never format or compute numbers.
    """

    def setup(self) -> None:
        worksheet, values = current_lesson()
        check_limits(worksheet)
        self._sheet = worksheet  # unrecorded: only for the manifest header
        self.ws = RecordingWorksheet(worksheet)
        self.v = RecordingValues(values)
        self.voice = lesson_voice()
        self.sections: list[SectionRecord] = []
        self.captions: list[CaptionRecord] = []
        self.silences: list[SilenceRecord] = []
        self._spoken_until = 0.0  # when the last sentence ended
        self._section = "opening"
        self._weight_bars: list[WeightBar] = []
        self._pointer: Mobject | None = None
        self._heading: Mobject | None = None
        self.moves: list[tuple[float, float]] = []
        """When something on screen moved: the span of every animation but a wait."""
        self.lowest: tuple[float, float, str] = (math.inf, 0.0, "")
        """The lowest drawn point after any animation: ``(y, time, what)``."""
        self.where: tuple[str, ...] = ()
        """The model steps lit on the map this scene opened with (none if it did not)."""
        if not self.draws_its_own_map:
            self.where_we_are()

    draws_its_own_map = False
    """Scenes that open their part with their own model map set this."""
    map_heads: tuple[int, ...] | None = None
    """The heads the opening map lights, when the part is about some of them (all: None)."""

    def where_we_are(self) -> None:
        """Open a lesson part with the model map, the part's steps lit, and its opening
        sentence.

        Only the first scene of a part does it (later scenes of the part go on from there).
        """
        entries = lecture_order(self._sheet.n_heads)
        name = type(self).__name__
        mine = next((e for e in entries if e.name == name), None)
        if mine is None or next(e for e in entries if e.part == mine.part) is not mine:
            return
        from outline import part

        opened = part(mine.part)
        if not opened.opening:
            raise ValueError(f"outline part {opened.id!r}: give it an opening sentence, which "
                             f"{name} says over the model map")
        self.where = opened.steps
        whole = model_map(self, lit=opened.steps, size=20,
                          heads_lit=self.map_heads).move_to([0, 0.2, 0])
        self.say(opened.opening, Fade(whole))
        self._section = "where we are"  # recorded with the map on screen
        self._record_section()
        self._section = "opening"
        with self.silence("the map gives way to the part"):
            self.play(Fade(whole, appear=False), run_time=0.5)

    # ----------------------------------------------------------------- making text

    def num(self, key: str, size: float = NUMBER_SIZE, colour: str = INK,
            mono: bool = True) -> Bound:
        """One number, drawn from its key."""
        return self.bound("{x}", size, colour, mono=mono, x=key)

    def bound(self, template: str, size: float = WORD_SIZE, colour: str = INK,
              mono: bool = False, words: Mapping[str, str] | None = None,
              **keys: str) -> Bound:
        """Text with numbers filled in from keys: ``bound("Head {h}", h="dims.…")``."""
        filled = fill(template, self.v, keys, words)
        shown = tuple((words or {}).values())
        made = LAID_OUT.get(("bound", filled.text, size, colour, mono), lambda: Bound(
            filled.text, filled.figures, filled.spans, shown, font_size=size, color=colour,
            font=MONO if mono else FONT))
        made.rebind(filled, shown)
        for index, (_, text) in enumerate(filled.figures):
            if text.startswith("−"):  # a negative number: its own colour, wherever it is
                for glyph in made.figure_glyphs(index):
                    glyph.set_fill(NEGATIVE)
        return made

    def word(self, token: str, size: float = WORD_SIZE, colour: str = INK) -> Word:
        """A vocabulary word or token, shown literally."""
        check_word(token)  # a text laid out for another worksheet is checked again here
        return LAID_OUT.get(("word", token, size, colour),
                            lambda: Word(token, font_size=size, color=colour))

    def label(self, text: str, size: float = WORD_SIZE, colour: str = INK) -> Text:
        """Plain words; refuses digits, which must come from keys."""
        _no_digits(text, "label")
        return LAID_OUT.get(("label", text, size, colour),
                            lambda: Text(text, font=FONT, font_size=size, color=colour))

    def title(self, text: str, **keys: str) -> Bound:
        """The scene's heading at the top edge."""
        heading = self.bound(text, TITLE_SIZE, INK, **keys)
        return heading.to_edge(UP, buff=0.35)

    def head_colour(self, head: int) -> str:
        return HEAD_COLOURS[(head - 1) % len(HEAD_COLOURS)]

    def head_label(self, head: int, size: float = WORD_SIZE) -> Bound:
        """``Head N`` in the head's colour, N bound to ``dims.head_numbers``."""
        return self.bound("Head {h}", size, self.head_colour(head),
                          h=f"dims.head_numbers[{head - 1}]")

    # ----------------------------------------------------------------- timeline

    def play(self, *animations: Any, **kwargs: Any) -> None:
        """Play as Manim does, noting when the picture moves and its lowest point."""
        start = float(self.time)
        super().play(*animations, **kwargs)
        if not all(isinstance(a, Wait) for a in animations):
            self.moves.append((start, float(self.time)))
        self._note_lowest()

    def play_internal(self, skip_rendering: bool = False) -> None:
        """Play the animations, drawing every frame; or, where the build asks for each
        animation's end only (``$LECTURE_DRAWN`` is ``ends``: the draft quality), run
        them without drawing and hold the picture they end on for as many frames as they
        last. The clip then has the same length, section ends and figures at a fraction
        of the drawing."""
        if skip_rendering or self.renderer.skip_animations \
                or os.environ.get(DRAWN) != ENDS_ONLY:
            super().play_internal(skip_rendering)
            return
        super().play_internal(skip_rendering=True)
        frames = len(np.arange(0, self.duration, 1 / config.frame_rate))  # as Manim steps
        self.renderer.update_frame(self)
        self.renderer.add_frame(self.renderer.get_frame(), num_frames=frames)

    def _note_lowest(self) -> None:
        for top in self.mobjects:
            for part in top.family_members_with_points():
                if not _visible(part):
                    continue
                y = float(part.points[:, 1].min())
                if y < self.lowest[0]:
                    owner = getattr(top, "original_text", type(top).__name__)
                    self.lowest = (y, float(self.time), str(owner)[:60])

    def stills(self) -> list[tuple[float, float]]:
        """Stretches in which nothing moves, longest first."""
        edges = [0.0]
        for start, end in sorted(self.moves):
            edges += [start, end]
        edges.append(float(self.time))
        gaps = [(a, b) for a, b in zip(edges[::2], edges[1::2], strict=True) if b > a]
        return sorted(gaps, key=lambda gap: gap[0] - gap[1])

    # ----------------------------------------------------------------- narration

    def say(self, template: str, *animations: Any, run_time: float | None = None,
            words: Mapping[str, str] | None = None, **keys: str) -> None:
        """Narrate one step: a caption (numbers from keys) spoken while its animations play.

        The voice sets the pace: the animations play within the sentence (faster when they
        would outlast it), the step holds until the sentence ends, and a short breath
        follows. The caption's cue is the sentence's time. Without a voice, the step lasts
        as long as the caption takes to read.
        """
        filled = fill(template, self.v, keys, words)
        speech = self.voice.speak(filled.spoken)
        reading = max(MIN_CAPTION_SECONDS, len(filled.text.split()) / CAPTION_WORDS_PER_SECOND)
        length = speech.seconds if speech else reading
        if speech:
            if self.captions:
                self.hold_until(self._spoken_until + BREATH)
            self._guard_silence(f"before caption {len(self.captions) + 1}")
        start = float(self.time)
        if animations:
            made = [prepare_animation(animation) for animation in animations]
            natural = run_time or max(animation.run_time for animation in made)
            self.play(*made, run_time=min(natural, length) if speech else natural)
        self.hold_until(start + length)
        end = start + length if speech else float(self.time)
        if speech:
            self._spoken_until = end
        self.add_subcaption(filled.text, duration=end - start, offset=start - float(self.time))
        self.captions.append(CaptionRecord(filled.text, start, end, list(filled.figures),
                                           filled.template, dict(keys), dict(filled.words),
                                           filled.spoken, speech))

    def _guard_silence(self, where: str) -> None:
        """Refuse an unmarked stretch without speech longer than :data:`LONGEST_SILENCE`
        in a narrated scene: the author shortens the steps or marks them."""
        start, end = self._spoken_until, float(self.time)
        marked = sum(max(0.0, min(end, s.end) - max(start, s.start)) for s in self.silences)
        if end - start - marked > LONGEST_SILENCE + 0.5 / config.frame_rate:
            raise ValueError(
                f"{type(self).__name__}: {end - start - marked:.2f} s without speech {where} "
                f"(the limit is {LONGEST_SILENCE} s); shorten the steps in between or wrap "
                "them in `with self.silence(\"why\"):`")

    def hold_until(self, moment: float) -> None:
        """Wait until ``moment`` (seconds into the scene), to the next whole frame."""
        if self.renderer.skip_animations:
            if moment > float(self.time):
                self.wait(moment - float(self.time))
            return
        frames = math.ceil((moment - float(self.time)) * config.frame_rate - 1e-6)
        if frames > 0:
            self.wait((frames + 0.5) / config.frame_rate)

    @contextmanager
    def silence(self, why: str) -> Iterator[None]:
        """Mark what the block plays as a deliberate silence (a transition, a pause to
        look): narrated scenes keep any other silence under :data:`LONGEST_SILENCE`."""
        _no_digits(why, "silence reason")
        start = float(self.time)
        yield
        self.silences.append(SilenceRecord(start, float(self.time), why))

    # ----------------------------------------------------------------- sections

    def section(self, name: str) -> None:
        """End the current section (recording what is on screen) and start ``name``."""
        self._record_section()
        self._section = name
        self.next_section(name)

    def _record_section(self) -> None:
        if self._section == "opening" and not any(
                _visible(part) for top in self.mobjects
                for part in top.family_members_with_points()):
            return  # nothing drawn yet (or the opening map has gone): no section to show
        frames = round(float(self.time) * config.frame_rate)
        record = SectionRecord(self._section, max(0, frames - 1))
        self._note_lowest()  # also what was added without an animation
        seen: set[int] = set()
        texts = [m for top in self.mobjects for m in top.get_family() if isinstance(m, Text)]
        in_text = {id(part) for t in texts for part in t.get_family()}
        drawn = extract_mobject_family_members(self.mobjects, use_z_index=True)
        order = {id(m): i for i, m in enumerate(drawn)}
        patches = [patch(m, order[id(m)]) for m in drawn
                   if id(m) not in in_text and isinstance(m, VMobject)
                   and float(m.get_fill_opacity()) > 0.01]
        for top in self.mobjects:
            for mob in top.get_family():
                if id(mob) in seen or not isinstance(mob, Text) or not _visible(mob):
                    continue
                seen.add(id(mob))
                left, bottom = mob.get_corner(DOWN + LEFT)[:2]
                right, top_edge = mob.get_corner(UP + RIGHT)[:2]
                kind = "bound" if isinstance(mob, Bound) else \
                    "word" if isinstance(mob, Word) else "text"
                figures = list(mob.figures) if isinstance(mob, Bound) else []
                words = list(mob.words) if isinstance(mob, Bound) else \
                    [mob.token] if isinstance(mob, Word) else []
                pixels = [pixel_box(mob.figure_glyphs(i)) for i in range(len(figures))] \
                    if isinstance(mob, Bound) else []
                glyphs = [g for g in mob.submobjects if g.has_points()]
                first = min((order.get(id(g), 0) for g in glyphs), default=0)
                behind = _drawn_under(patches, mob.get_center(), first)
                colours = sorted({blend(_hex(g.get_fill_color()), behind,
                                        float(g.get_fill_opacity())) for g in glyphs
                                  if float(g.get_fill_opacity()) > 0.01})
                painted = [_hex(mob.figure_glyphs(i)[0].get_fill_color())
                           for i in range(len(figures))] if isinstance(mob, Bound) else []
                record.texts.append(TextRecord(kind, mob.original_text, figures, words,
                                               (float(left), float(bottom), float(right),
                                                float(top_edge)), float(mob.font_size),
                                               pixels, colours, behind, painted))
        # A bar may be drawn as a whole or its rectangle alone (grown on its own).
        made = [m for top in self.mobjects for m in top.get_family()
                if isinstance(m, WeightBar)] + self._weight_bars
        bars = {id(m): m for m in made if id(m.bar) in order and _visible(m.bar)}
        record.bars = [{"key": m.key, "drawn": round(float(m.drawn()), 6), "floor": m.floor,
                        "colour": _hex(m.bar.get_fill_color())} for m in bars.values()]
        self.sections.append(record)

    def tear_down(self) -> None:
        if self.captions and self.captions[-1].speech:
            self.hold_until(self._spoken_until + BREATH)
            self._guard_silence("at the end")
        self._record_section()
        artifact = self.output_plan.primary_artifact
        if artifact is not None and not config.dry_run:
            path = Path(artifact).with_suffix(".figures.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.tmp")
            temporary.write_text(json.dumps(self.manifest(), indent=1, ensure_ascii=False)
                                 + "\n", encoding="utf-8")
            os.replace(temporary, path)

    def manifest(self) -> dict[str, Any]:
        """What this scene showed: figures per section end, keys per caption, keys read."""

        def figures(pairs: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
            return [{"key": key, "text": text} for key, text in pairs]

        return {
            "scene": type(self).__name__,
            "worksheet": {"path": self._sheet.source, "sha256": self._sheet.sha256},
            "duration": round(float(self.time), 3),
            "frame_rate": config.frame_rate,
            "frame_size": [config.pixel_width, config.pixel_height],
            "sections": [{"name": s.name, "frame": s.frame,
                          "figures": [{"key": key, "text": text, "box": list(box)}
                                      for key, text, box in s.placed],
                          "bars": s.bars}
                         for s in self.sections],
            "narration": {"engine": self.voice.engine, "voice": self.voice.id},
            "captions": [{"index": i, "start": round(c.start, 3), "end": round(c.end, 3),
                          "text": c.text, "template": c.template, "slots": c.slots,
                          "words": c.words, "figures": figures(c.figures),
                          "spoken": c.spoken,
                          "speech": None if c.speech is None else {
                              "file": str(c.speech.path), "sha256": c.speech.sha256,
                              "seconds": round(c.speech.seconds, 4)}}
                         for i, c in enumerate(self.captions, start=1)],
            "silences": [{"start": round(x.start, 3), "end": round(x.end, 3), "why": x.why}
                         for x in self.silences],
            "where": list(self.where),
            "longest_still": [round(t, 3) for t in (self.stills() or [(0.0, 0.0)])[0]],
            "lowest": {"y": round(self.lowest[0], 3) if self.lowest[2] else None,
                       "time": round(self.lowest[1], 3), "what": self.lowest[2]},
            "reads": sorted(self.v.read),
            "facts": sorted(self.ws.facts),
        }






    # ----------------------------------------------------------------- pointing

    def retitle(self, heading: Mobject, text: str, **keys: str) -> Animation:
        """Change the heading when the topic changes: the new one fades in where the old
        one was (keep using the returned heading's place; ``heading`` leaves the scene)."""
        new = self.title(text, **keys)
        self._heading = new
        return AnimationGroup(Fade(heading, appear=False), Fade(new))

    def point_at(self, *mobs: Mobject, colour: str = INK, each: bool = False,
                 buff: float = 0.08) -> Animation:
        """Outline what the voice is naming now (an outline, never a fill, so the value
        inside keeps its colour); the previous pointer goes away in the same step.

        One outline goes round all of ``mobs``; with ``each``, one round each of them (two
        things far apart, whose common outline would cut through what lies between). A
        cell of a packed grid is outlined on its own edge (``buff=0``)."""
        outlines = [SurroundingRectangle(Group(*group), color=colour, buff=buff,
                                         stroke_width=3.5, corner_radius=0.05)
                    for group in ([[m] for m in mobs] if each else [mobs])]
        outline = outlines[0] if len(outlines) == 1 else VGroup(*outlines)
        old, self._pointer = self._pointer, outline
        if old is None:
            return Create(outline)
        return AnimationGroup(Fade(old, appear=False), Create(outline))

    def unpoint(self) -> Animation | None:
        """Take the pointer away (``None`` when nothing is pointed at)."""
        old, self._pointer = self._pointer, None
        return None if old is None else Fade(old, appear=False)

    def tell(self, template: str, *shown: Animation, cues: Sequence[Cue] = (),
             **keys: object) -> None:
        """Say one sentence that may point at several things in turn: the last sentence's
        pointer leaves as it begins, ``shown`` plays from its start, and each cue's step
        plays as the voice reaches its fragment (made here, after the old pointer has been
        taken away, so that each new outline replaces the one before)."""
        away = self.unpoint()
        opening = [*shown, *([away] if away else [])]
        if cues:
            steps = [(fragment, make()) for fragment, make in cues]
            self.say(template, cued(template, steps, opening=opening), **keys)
        else:
            self.say(template, *opening, **keys)

    def gone(self, *mobs: Mobject) -> Animation:
        """Fade out ``mobs`` as the scene holds them: a page whose parts came on one by one
        is taken away part by part, which a fade inside a cued step needs (it removes only
        what it is given)."""
        wanted = {id(m) for mob in mobs for m in mob.get_family()}
        held: list[Mobject] = []

        def walk(items: Sequence[Mobject]) -> None:
            for item in items:
                if id(item) in wanted:
                    held.append(item)
                elif any(id(m) in wanted for m in item.get_family()):
                    walk(item.submobjects)

        walk(self.mobjects)
        return fade_out(*held)
