"""The kit's texts check themselves: a number reaches the screen or a caption only as a
figure bound to a value key, and a word only when the worksheet or the lesson holds it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scenes.kit import (
    CODE_LITERALS,
    Bound,
    CodeLine,
    RecordingValues,
    RecordingWorksheet,
    Word,
    code,
    fill,
    lesson_words,
)
from tests.conftest import THREE_HEADS
from worksheet import DEFAULT_WORKSHEET, compute_values, load_worksheet


@pytest.fixture(scope="module")
def values(default_values) -> RecordingValues:
    return RecordingValues(default_values)


def test_a_filled_template_knows_where_each_figure_stands(values) -> None:
    filled = fill("“{w}” receives {x}; head {h}.", values,
                  {"x": "river.h1.weights[5]", "h": "dims.head_numbers[0]"}, {"w": "river"})
    assert filled.text == "“river” receives 0.718; head 1."
    assert filled.figures == (("river.h1.weights[5]", "0.718"), ("dims.head_numbers[0]", "1"))
    assert [filled.text[a:b] for a, b in filled.spans] == ["0.718", "1"]


def test_a_template_may_not_type_a_number_or_leave_a_key_unused(values) -> None:
    with pytest.raises(ValueError, match="typed number"):
        fill("all 2 sentences", values, {})
    with pytest.raises(KeyError, match="no slot for h"):
        fill("the weight {x}", values, {"x": "river.h1.weights[5]", "h": "dims.heads"})
    with pytest.raises(KeyError, match="no key or word"):
        fill("the weight {x}", values, {})


def test_words_must_come_from_the_worksheet_or_the_lesson(values) -> None:
    assert {"river", "fisherman", "water", "setting", "cheque"} <= lesson_words()
    with pytest.raises(ValueError, match="neither a worksheet word nor a lesson word"):
        fill("the {w} row", values, {}, {"w": "42 rows"})


def test_a_bound_text_checks_its_figures_and_what_is_left() -> None:
    text = Bound("weight 0.718", [("river.h1.weights[5]", "0.718")], [(7, 12)])
    assert [g.has_points() for g in text.figure_glyphs(0)] == [True] * 5
    with pytest.raises(ValueError, match="is not at"):
        Bound("weight 0.718", [("river.h1.weights[5]", "0.718")], [(0, 5)])
    with pytest.raises(ValueError, match="typed number"):
        Bound("weight 0.718 of 10", [("river.h1.weights[5]", "0.718")], [(7, 12)])
    with pytest.raises(ValueError, match="neither a worksheet word"):
        Bound("Head 1", [], [], words=["Head 1"])


def test_a_word_must_be_a_worksheet_word() -> None:
    assert Word("fisherman").token == "fisherman"
    with pytest.raises(ValueError, match="not a word of the worksheet"):
        Word("0.718")


def test_a_recording_worksheet_notes_each_fact_read() -> None:
    ws = RecordingWorksheet(load_worksheet())
    assert ws.sentences[ws.walkthrough][1] == "fisherman"
    assert ws.lesson.toy.sources == ("river", "fisherman")
    assert ws.facts == {"walkthrough", "sentences.river", "lesson.toy.sources"}
    assert list(ws.sentences) == ["river", "cheque"]
    assert "sentences" in ws.facts
    with pytest.raises(AttributeError, match="not methods"):
        ws.ids("river")


def test_asking_whether_a_word_has_an_entry_records_the_whole_mapping() -> None:
    """"water" has no gloss: the answer depends on every gloss, and "lesson.glosses.water"
    would name no fact of the worksheet (a build then refuses the scene's manifest)."""
    ws = RecordingWorksheet(load_worksheet())
    assert "water" not in ws.lesson.glosses and "teller" in ws.lesson.glosses
    assert ws.facts == {"lesson.glosses"}
    for fact in ws.facts:
        load_worksheet().fact(fact)


def test_counted_slots_agree_in_english(default_values) -> None:
    values = RecordingValues(default_values)
    # The default worksheet has two sentences and two heads; recount them here.
    ws = load_worksheet(DEFAULT_WORKSHEET)
    assert (len(ws.sentences), ws.n_heads) == (2, 2)
    filled = fill("{n:all sentence}, {h:head}: the heads {h:?is} {h:parameter tensor}", values,
                  {"n": "dims.sentences", "h": "dims.heads"})
    assert filled.text == "both sentences, 2 heads: the heads are 2 parameter tensors"
    assert filled.figures == (("dims.heads", "2"), ("dims.heads", "2"))
    assert filled.spoken == "both sentences, two heads: the heads are two parameter tensors"
    assert "dims.sentences" in values.read  # read, though no digit shows


def test_a_count_of_three_reads_as_english() -> None:
    values = RecordingValues(compute_values(load_worksheet(THREE_HEADS)))
    filled = fill("all of {h:all head}; {h:?is}", values, {"h": "dims.heads"})
    assert filled.text == "all of all 3 heads; are"
    with pytest.raises(ValueError, match="not a whole number"):
        fill("{x:head}", values, {"x": "river.h1.weights[0]"})


def test_a_code_listing_shows_digits_only_in_its_fixed_code_literals() -> None:
    listing = code("def head(E):\n    A = scores.softmax(-1)\n    return A @ V\n")
    first, second, third = listing.lines
    assert [line.original_text for line in listing.lines] == [
        "def head(E):", "A = scores.softmax(-1)", "return A @ V"]
    assert second.words == (".softmax(-1)",) and first.words == ()
    assert second.get_left()[0] > first.get_left()[0] + 0.3  # indented
    assert abs(third.get_left()[0] - second.get_left()[0]) < 0.05
    assert first.get_y() > second.get_y() > third.get_y()
    assert "dim=-1" in CODE_LITERALS and ".triu(1)" in CODE_LITERALS
    with pytest.raises(ValueError, match="outside its code literals"):
        CodeLine("scores / math.sqrt(2)")
    with pytest.raises(ValueError, match="outside its code literals"):
        code("H1 = head(E, W_Q1, W_K1, W_V1)")


# ---- components: combine


def test_a_weight_cell_reads_at_every_weight_in_every_head_colour() -> None:
    from scenes.kit import weight_cell
    from scenes.kit.palette import BACKGROUND, HEAD_COLOURS, MIN_CONTRAST, blend, contrast

    for colour in HEAD_COLOURS:
        for step in range(101):
            box, ink = weight_cell(colour, step / 100, 0.5, 0.3)
            fill = blend(colour, BACKGROUND, float(box.get_fill_opacity()))
            assert contrast(ink, fill) >= MIN_CONTRAST, (colour, step, ink, fill)
        light = weight_cell(colour, 0.0, 0.5, 0.3)[0].get_fill_opacity()
        assert light < weight_cell(colour, 1.0, 0.5, 0.3)[0].get_fill_opacity()



def test_a_mask_grid_lights_no_masked_cell_and_opens_the_allowed_ones_as_clip_14() -> None:
    """Clip 14 fills a masked cell (a source later than its receiver) with the opaque
    neutral fill and leaves the colour to the cells a receiver may attend to; the kit's
    mask grid, without weights, leaves those open. Its legend names both, allowed first;
    called with sizes only (as older callers do), it has no legend."""
    from manim import Square, VGroup

    from scenes.kit.palette import NEUTRAL_FILL
    from scenes.kit.topic import MASK_TEXTS, mask_grid

    named: list[str] = []

    def label(text: str) -> VGroup:
        named.append(text)
        return VGroup(Square(0.1))

    tokens = 5
    grid = mask_grid(tokens, 1.5, label)
    assert len(grid) == tokens * tokens and len(grid.cells) == tokens
    for r, row in enumerate(grid.cells):
        for c, cell in enumerate(row):
            fill = (cell.get_fill_color().to_hex().upper(), float(cell.get_fill_opacity()))
            if c > r:
                assert fill == (NEUTRAL_FILL.upper(), 1.0), (r, c, fill)
            else:
                assert fill[1] == 0.0, (r, c, fill)
            assert abs(cell.width - 1.5 / tokens) < 1e-9
    assert grid.cells[0][0].get_x() < grid.cells[0][1].get_x()
    assert grid.cells[0][0].get_y() > grid.cells[1][0].get_y()  # receivers run down
    assert MASK_TEXTS == ("may attend", "masked") and named == list(MASK_TEXTS)
    allowed, masked = (entry[0] for entry in grid.legend)
    assert float(allowed.get_fill_opacity()) == 0.0
    assert (masked.get_fill_color().to_hex().upper(), float(masked.get_fill_opacity())) \
        == (NEUTRAL_FILL.upper(), 1.0)
    assert allowed.get_y() > masked.get_y()
    assert len(mask_grid(3, 0.6).legend) == 0

def test_cued_steps_start_where_their_words_stand_in_the_caption() -> None:
    from manim import Square

    from scenes.kit import cued, fade_in

    template = "one two three four five six seven eight nine ten {x} twelve"
    first, second = fade_in(Square()), fade_in(Square())
    steps = cued(template, [("one", first), ("{x}", second)], seconds=10.0, step=0.5)
    (start_a, a), (start_b, b) = steps.steps
    assert (a, b) == (first, second) and a.run_time == b.run_time == 0.5
    assert start_a == 0.0
    assert start_b == pytest.approx(10.0 * template.index("{x}") / len(template) - 0.25)
    assert steps.run_time == pytest.approx(start_b + 0.5)
    with pytest.raises(ValueError, match="not in the template"):
        cued(template, [("thirteen", fade_in(Square()))])


def test_a_cued_step_shows_nothing_before_its_moment() -> None:
    from manim import Scene, Square

    from scenes.kit import Cued, fade_in

    early, late = Square(), Square()
    steps = Cued([(0.0, fade_in(early)), (2.0, fade_in(late))])
    scene = Scene()
    steps._setup_scene(scene)
    steps.begin()
    steps.interpolate(1.0 / steps.natural)  # one second in: the first is arriving
    assert early in scene.mobjects and late not in scene.mobjects
    steps.finish()
    assert late in scene.mobjects
    assert float(late.get_fill_opacity()) == pytest.approx(float(early.get_fill_opacity()))


def rendered_frames(scene_class: type, folder: Path) -> list[np.ndarray]:
    """Every frame a small scene renders at 5 frames a second, as RGBA arrays."""
    from manim import tempconfig

    frames: list[np.ndarray] = []
    with tempconfig({"quality": "low_quality", "frame_rate": 5, "disable_caching": True,
                     "write_to_movie": False, "verbosity": "ERROR", "progress_bar": "none",
                     "media_dir": str(folder)}):
        scene = scene_class()
        add_frame = scene.renderer.add_frame
        scene.renderer.add_frame = lambda frame, num_frames=1: (
            frames.append(frame.copy()), add_frame(frame, num_frames))
        scene.render()
    return frames


def test_a_cued_step_that_removes_an_outline_leaves_no_ghost_in_the_frames(tmp_path) -> None:
    """Manim draws a still background and a list of moving mobjects, both made when a
    step begins: an outline faded out by a cued step must vanish from the frames at once,
    and one created by a later cue must appear, not wait for the next step."""
    from manim import BLUE, RED, Rectangle, Scene

    from scenes.kit import Cued, fade_in, fade_out

    old = Rectangle(width=4, height=2, color=RED, stroke_width=12).shift([-3, 0, 0])
    new = Rectangle(width=4, height=2, color=BLUE, stroke_width=12).shift([3, 0, 0])

    class Swap(Scene):
        def construct(self) -> None:
            self.add(old)
            self.play(Cued([(0.0, fade_out(old)), (1.0, fade_in(new)), (2.5, fade_in())]),
                      run_time=3.0)

    frames = rendered_frames(Swap, tmp_path)
    last = frames[-1]
    width = last.shape[1]
    left, right = last[:, : width // 2, :3], last[:, width // 2:, :3]
    assert (left[..., 0] > 150).sum() == 0  # no red left of the middle: the old outline
    assert (right[..., 2] > 150).sum() > 100  # the blue outline drawn on the right
    assert len(frames) >= 10


def test_a_cued_step_that_takes_away_an_outline_keeps_drawing_what_lies_after_it(
        tmp_path) -> None:
    """A cued step that fades out an outline added before a box it does not touch, and
    later fades in something else, keeps drawing that box in every frame: it lies between
    the taken-away outline and the next touched mobject, and was once in neither the still
    background nor the moving part, so it vanished until the step ended."""
    from manim import BLUE, GREEN, RED, Rectangle, Scene

    from scenes.kit import Cued, fade_in, fade_out

    old = Rectangle(width=3, height=2, color=RED, stroke_width=12).shift([-4, 0, 0])
    kept = Rectangle(width=3, height=2, color=GREEN, stroke_width=12)
    new = Rectangle(width=3, height=2, color=BLUE, stroke_width=12).shift([4, 0, 0])

    class Keep(Scene):
        def construct(self) -> None:
            self.add(old, kept)
            self.play(Cued([(0.0, fade_out(old)), (1.5, fade_in(new))]), run_time=3.0)

    frames = rendered_frames(Keep, tmp_path)
    width = frames[0].shape[1]
    middle = [frame[:, width // 3: 2 * width // 3, :3].astype(int) for frame in frames]
    green = [int(((part[..., 1] > 150) & (part[..., 2] < 150)).sum()) for part in middle]
    assert len(frames) >= 10
    assert min(green) > 100, green  # the untouched box in every frame
    assert (frames[-1][:, : width // 3, 0] > 150).sum() == 0  # the red outline gone


def test_a_scene_reads_the_values_its_build_handed_over_and_only_those(
        default_ws, default_values, tmp_path, monkeypatch) -> None:
    """A build computes the values once and hands them to every scene's process; a scene
    takes them only when they were computed from the worksheet it reads."""
    from dataclasses import replace

    from scenes.kit import lesson
    from worksheet import Values, hand_values

    marked = dict(default_values.items())
    marked["dims.tokens"] = replace(marked["dims.tokens"], value=99)  # as if handed over
    handed = tmp_path / "values.pickle"
    hand_values(Values(marked), handed, default_ws)
    monkeypatch.setenv("LECTURE_VALUES", str(handed))
    monkeypatch.setenv("LECTURE_WORKSHEET", str(DEFAULT_WORKSHEET))
    monkeypatch.setenv("LECTURE_EXPERIMENT", "none")  # values handed without one
    lesson._lesson.cache_clear()
    try:
        assert lesson.current_lesson()[1].text("dims.tokens") == "99"
        monkeypatch.setenv("LECTURE_WORKSHEET", str(THREE_HEADS))  # another worksheet
        assert lesson.current_lesson()[1].text("dims.tokens") == compute_values(
            load_worksheet(THREE_HEADS)).text("dims.tokens")
    finally:  # later tests in this process read the lesson afresh
        lesson._lesson.cache_clear()


# ------------------------------------------------------------------ texts laid out once


def _outline(mob) -> list[tuple[bytes, bytes, str]]:
    """Every point of a text, bit for bit, with each part's fill, in family order."""
    return [(part.points.tobytes(), part.fill_rgbas.tobytes(), type(part).__name__)
            for part in mob.get_family()]


def test_a_text_kept_on_disk_comes_back_exactly_as_laid_out(tmp_path) -> None:
    from scenes.kit.laid_out import LaidOut

    def make() -> Bound:
        return Bound("weight 0.718", [("river.h1.weights[5]", "0.718")], [(7, 12)],
                     font_size=30, color="#E8E8E8")

    key = ("bound", "weight 0.718", 30, "#E8E8E8", False)
    fresh = make()
    first = LaidOut(tmp_path).get(key, make)
    kept = list(tmp_path.rglob("*.pickle.z"))
    assert len(kept) == 1
    made = []
    again = LaidOut(tmp_path).get(key, lambda: made.append(1) or make())  # a new process
    assert made == []  # loaded, not laid out
    assert _outline(again) == _outline(first) == _outline(fresh)
    assert again.figures == fresh.figures and again.original_text == "weight 0.718"
    again.shift([1, 0, 0])  # a copy: what the store holds does not move
    assert _outline(LaidOut(tmp_path).get(key, make)) == _outline(fresh)


def test_a_kept_text_that_does_not_load_is_laid_out_again(tmp_path) -> None:
    from scenes.kit.laid_out import LaidOut

    key = ("word", "fisherman", 30, "#E8E8E8")
    LaidOut(tmp_path).get(key, lambda: Word("fisherman", font_size=30))
    (kept,) = tmp_path.rglob("*.pickle.z")
    kept.write_bytes(kept.read_bytes()[:100])  # cut short, as by a crash
    made = []
    word = LaidOut(tmp_path).get(key, lambda: made.append(1) or Word("fisherman", font_size=30))
    assert made == [1] and word.token == "fisherman"
    assert LaidOut(tmp_path).get(key, lambda: pytest.fail("laid out twice")).token == "fisherman"


def test_a_cache_that_cannot_be_written_still_lays_texts_out(tmp_path) -> None:
    from scenes.kit.laid_out import LaidOut

    blocked = tmp_path / "texts"
    blocked.write_text("a file where the folder would go")  # mkdir fails, even for root
    store = LaidOut(blocked)
    assert store.get(("word", "river", 30, "#E8E8E8"),
                     lambda: Word("river", font_size=30)).token == "river"
    assert blocked.is_file()
