"""The projections clip and the wide-head clip read like the lesson: a row's coordinates are
explained before they are used, the voice names one column of W_Q while that column is
outlined, W_K and W_V are called separate parameters, the second head says only what
differs; the wide head's matrices show their numbers, its favourite source is explained by a
sum of the heads' dot products, and its message names what each coordinate carries. Every
number is checked against a fresh numpy recomputation, digit for digit."""

from __future__ import annotations

import multiprocessing
import os
import re
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests import reference
from tests.conftest import DRY_RUNS
from tests.test_scenes import WORKSHEETS, dry_runs_by_pair
from worksheet import load_worksheet

pytestmark = pytest.mark.xdist_group(DRY_RUNS)
"""Dry runs are cached in the worker's memory: these modules share one worker."""

LABELS = ("default", "four", "wide")
SCENES = ("ReceiverProjections", "OneWideHead")


@pytest.fixture(scope="module")
def shown() -> dict[tuple[str, str], dict[str, Any]]:
    """Both scenes' dry runs, by (worksheet label, scene)."""
    return dry_runs_by_pair(SCENES, LABELS)


@pytest.fixture(scope="module")
def lesson() -> dict[str, dict[str, Any]]:
    """Each worksheet's walkthrough sentence recomputed in numpy, with its parameters."""
    made = {}
    for label in LABELS:
        ws = load_worksheet(WORKSHEETS[label])
        doc = ws.document
        made[label] = {**reference.sentence(doc, ws.walkthrough),
                       "tokens": list(ws.sentences[ws.walkthrough]), "name": ws.walkthrough,
                       "features": list(ws.lesson.features), "d_head": ws.d_head,
                       "d_model": ws.d_model,
                       **{f"W_{kind}": [np.array(p[kind], dtype=np.float64)
                                        for p in doc["headsLesson"]["projections"]]
                          for kind in "QKV"}}
    return made


def digits(text: str, expected: float) -> bool:
    """Whether ``text`` shows ``expected`` digit for digit, to as many decimals as it has."""
    places = len(text.split(".")[1]) if "." in text else 0
    made = f"{float(expected):.{places}f}"
    if float(made) == 0:
        made = made.lstrip("-")
    return text == made.replace("-", "−")


def caption(result: dict[str, Any], words: str) -> tuple[int, dict[str, Any]]:
    (found,) = ((i, c) for i, c in enumerate(result["manifest"]["captions"])
                if words in c["template"])
    return found


def section(result: dict[str, Any], name: str) -> list[dict[str, Any]]:
    (texts,) = (s["texts"] for s in result["sections"] if s["name"] == name)
    return texts


def figure(said: dict[str, Any], key: str) -> str:
    (text,) = (f["text"] for f in said["figures"] if f["key"] == key)
    return text


def selector(matrix: np.ndarray) -> list[int] | None:
    """The input feature each column copies, when every column has one nonzero entry."""
    picked = []
    for column in matrix.T:
        rows = np.flatnonzero(column)
        if len(rows) != 1:
            return None
        picked.append(int(rows[0]))
    return picked


# ---------------------------------------------------------------------- outlines


def _outlines(name: str, worksheet: str) -> list[tuple[int, list[str]]]:
    """Run ``name`` without video and note every pointer: the caption it is made with
    (counted from zero) and the value keys of the numbers inside what it outlines."""
    os.environ["LECTURE_WORKSHEET"] = worksheet
    os.environ["LECTURE_VALUES"] = ""
    os.environ["LECTURE_NARRATION"] = "none"
    from manim import tempconfig

    import scenes.layer as layer
    from scenes.kit.text import Bound

    made: list[tuple[int, list[str]]] = []

    class Watched(getattr(layer, name)):  # type: ignore[misc]
        def point_at(self, *mobs: Any, **kwargs: Any) -> Any:
            keys = [key for mob in mobs for part in mob.get_family()
                    if isinstance(part, Bound) for key, _ in part.figures]
            made.append((len(self.captions), keys))
            return super().point_at(*mobs, **kwargs)

    Watched.__name__ = Watched.__qualname__ = name
    media = Path(tempfile.gettempdir()) / f"lecture-tests-media-{os.getpid()}"
    with tempconfig({"dry_run": True, "quality": "low_quality", "disable_caching": True,
                     "verbosity": "ERROR", "progress_bar": "none", "media_dir": str(media)}):
        scene = Watched(skip_animations=True)
        scene.renderer.camera.capture_mobjects = lambda *_, **__: None
        scene.render()
    return made


@pytest.fixture(scope="module")
def outlines() -> list[tuple[int, list[str]]]:
    """The projections clip's pointers on the bundled worksheet (in a process of its own,
    as every dry run)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(_outlines, "ReceiverProjections",
                           str(WORKSHEETS["default"])).result()


# ---------------------------------------------------------------------- clip 07


def test_the_receivers_coordinates_are_explained_before_w_q(shown, lesson) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    captions = result["manifest"]["captions"]
    first_w_q = next(i for i, c in enumerate(captions) if "W_Q" in c["template"])
    before = captions[:first_w_q]
    assert any(set(made["features"]) <= set(c["words"].values()) for c in before)
    row = made["E"][-1]
    strongest = int(np.argmax(row))
    assert np.count_nonzero(row) == 1  # the receiver's row is that feature alone
    i, said = caption(result, "toy feature")
    assert i < first_w_q and "function words" in said["template"]
    assert said["words"] == {"w": made["tokens"][-1], "f": made["features"][strongest]}
    assert said["words"]["f"] == "glue"
    assert digits(figure(said, f"{made['name']}.E[{len(made['tokens']) - 1}][{strongest}]"),
                  row[strongest])
    i, said = caption(result, "need not have names")
    assert i < first_w_q


def test_one_column_of_w_q_is_outlined_as_the_voice_names_it(shown, lesson,
                                                            outlines) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    i, said = caption(result, "first column")
    last, name = len(made["tokens"]) - 1, made["name"]
    keys = {key for index, found in outlines if index == i for key in found}
    column = {f"params.h1.W_Q[{r}][0]" for r in range(made["d_model"])}
    assert column <= keys
    assert not any(k.startswith("params.h1.W_Q[") and not k.endswith("[0]") for k in keys)
    assert {f"{name}.E[{last}][{c}]" for c in range(made["d_model"])} <= keys
    assert f"{name}.h1.Q[{last}][0]" in keys
    expected = made["E"][-1] @ made["W_Q"][0][:, 0]
    assert expected == pytest.approx(made["heads"][0]["Q"][-1][0])
    assert digits(figure(said, f"{name}.h1.Q[{last}][0]"), expected)


def test_equal_w_k_and_w_v_are_called_separate_parameters(shown, lesson, outlines) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    assert np.array_equal(made["W_K"][0], made["W_V"][0])
    i, said = caption(result, "equal entries")
    assert "separate parameters" in said["template"]
    keys = {key for index, found in outlines if index == i for key in found}
    assert any(k.startswith("params.h1.W_K[") for k in keys)
    assert any(k.startswith("params.h1.W_V[") for k in keys)
    texts = {t["text"] for t in section(result, "head 1 key and value")}
    assert "same entries here, two separate parameters" in texts


def test_the_second_head_says_only_what_differs(shown, lesson) -> None:
    result, made = shown[("default", "ReceiverProjections")], lesson["default"]
    captions = result["manifest"]["captions"]
    starts = [i for i, c in enumerate(captions) if c["template"].startswith("Head {h}")]
    first, second = starts[0], starts[1]
    assert captions[second]["slots"]["h"] == "dims.head_numbers[1]"
    one, two = captions[first:second], captions[second:]
    assert len(two) < len(one)
    assert not {c["template"] for c in one} & {c["template"] for c in two}
    q = made["heads"][1]["Q"][-1]
    (live,) = np.flatnonzero(q)
    keyed = selector(made["W_K"][1])
    assert keyed is not None
    _, said = caption(result, "asks for {f}")
    assert said["words"]["f"] == made["features"][keyed[live]] == "person"
    _, said = caption(result, "Its W_K reads")
    first_keyed = selector(made["W_K"][0])
    assert [said["words"][f"f{k}"] for k in range(2)] == \
        [made["features"][c] for c in keyed] == ["person", "glue"]
    assert [said["words"][f"g{k}"] for k in range(2)] == \
        [made["features"][c] for c in first_keyed]


# ---------------------------------------------------------------------- clip 10


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_heads_projections_show_their_numbers(shown, lesson, label: str) -> None:
    result, made = shown[(label, "OneWideHead")], lesson[label]
    placed = {key: text for t in section(result, "own projections")
              for key, text in t["figures"]}
    for h, W_Q in enumerate(made["W_Q"], start=1):
        columns = range(W_Q.shape[1]) if W_Q.shape[1] <= 4 else (0, 1, W_Q.shape[1] - 1)
        for r in range(W_Q.shape[0]):
            for c in columns:
                assert digits(placed[f"params.h{h}.W_Q[{r}][{c}]"], W_Q[r, c])


@pytest.mark.parametrize("label", ["default", "four"])
def test_the_wide_score_adds_every_heads_dot_product(shown, lesson, label: str) -> None:
    result, made = shown[(label, "OneWideHead")], lesson[label]
    wide, heads, name = made["wide"], made["heads"], made["name"]
    top = int(np.argmax(wide["weights"]))
    pooled = sum(head["dots"] for head in heads)
    np.testing.assert_allclose(pooled, wide["dots"])  # one wide dot product = every head's
    assert wide["scale"] == pytest.approx(np.sqrt(made["d_model"]))
    assert top == int(np.argmax(pooled))  # the largest total wins the one weight row
    if label == "default":
        assert made["tokens"][top] == "fisherman" and wide["scale"] == 2.0
    _, said = caption(result, "For “{w}”:")
    assert said["words"]["w"] == made["tokens"][top]
    for h, head in enumerate(heads, start=1):
        assert digits(figure(said, f"{name}.h{h}.dots[{top}]"), head["dots"][top])
    assert digits(figure(said, f"{name}.wide.dots[{top}]"), wide["dots"][top])
    assert digits(figure(said, f"{name}.wide.scale"), wide["scale"])
    assert digits(figure(said, f"{name}.wide.scores[{top}]"), wide["scores"][top])
    on_screen = {key for t in section(result, "pooled") for key, _ in t["figures"]}
    assert {f"{name}.h{h}.dots[{top}]" for h in range(1, len(heads) + 1)} <= on_screen
    assert f"{name}.wide.scores[{top}]" in on_screen


def test_the_messages_name_what_each_coordinate_carries(shown, lesson) -> None:
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    name, d = made["name"], made["d_head"]
    texts = section(result, "messages")
    carried = []
    for W_V in made["W_V"]:
        carried += [made["features"][c] for c in selector(W_V)]
    for k, feature in enumerate(carried):
        (number,) = (t for t in texts
                      if any(f[0] == f"{name}.wide.message[{k}]" for f in t["figures"]))
        assert digits(number["text"], made["wide"]["message"][k])
        middle = (number["box"][0] + number["box"][2]) / 2
        above = [t for t in texts if t["text"] == feature and t["box"][1] > number["box"][3]
                 and t["box"][0] <= middle <= t["box"][2]]
        assert above, (k, feature)
    for key, values in (("wide.message", made["wide"]["message"]),
                        (f"joined[{len(made['tokens']) - 1}]", made["joined"][-1])):
        said = next(c for c in result["manifest"]["captions"]
                    if any(f["key"].startswith(f"{name}.{key}[") for f in c["figures"]))
        for k, feature in enumerate(carried):
            shown_text = figure(said, f"{name}.{key}[{k}]")
            assert digits(shown_text, values[k])
            assert f"{feature} {shown_text}" in said["text"]  # each number after its name
    assert len(carried) == made["d_model"] and d * len(made["W_V"]) == made["d_model"]


def test_no_caption_reads_a_bare_list_of_numbers(shown, lesson) -> None:
    """Where each coordinate has a name (the bundled worksheet), a list of numbers as wide
    as the model is never read as a bracketed list: each number comes after its name; a
    shorter list comes with a sentence that says what it is."""
    result, made = shown[("default", "OneWideHead")], lesson["default"]
    for said in result["manifest"]["captions"]:
        for group in re.findall(r"\[([^\]]*)\]", said["text"]):
            assert len(group.split(", ")) < made["d_model"], said["text"]
            rest = re.sub(r"\[[^\]]*\]", " ", said["text"])
            assert len(re.findall(r"[A-Za-z]+", rest)) >= 5, said["text"]
