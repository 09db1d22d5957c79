"""The scene kit: one place for what every lecture scene shares.

- :mod:`~scenes.kit.lesson`: the worksheet, values and voice a scene renders, read through
  recorders that note every key and fact it reads;
- :mod:`~scenes.kit.text`: bound texts (numbers only from value keys, counted slots in
  English) and worksheet words;
- :mod:`~scenes.kit.record`: what each section end records (texts, pixel boxes, colours);
- :mod:`~scenes.kit.scene`: :class:`LectureScene`, narrated steps timed to the voice,
  pointing, the manifest;
- :mod:`~scenes.kit.components`: drawings made from value keys (matrices, fans, the model
  map, code listings, cued steps);
- :mod:`~scenes.kit.palette`: every colour and the contrast rule;
- :mod:`~scenes.kit.layout`: fonts, sizes, the subtitle band;
- :mod:`~scenes.kit.fade`: the one way to fade.

Scene modules import from here; they never import one another.
"""

from scenes.kit.components import (
    CODE_LITERALS,
    CodeLine,
    Components,
    Cued,
    WeightBar,
    brackets,
    code,
    cued,
    grow,
    model_map,
    panel,
    weight_cell,
    weight_opacity,
)
from scenes.kit.fade import Fade, fade_in, fade_out
from scenes.kit.layout import (
    BAR_UNIT,
    FONT,
    LEAST_FIGURE_SIZE,
    LONGEST_STILL,
    MONO,
    NUMBER_SIZE,
    SAFE_BOTTOM,
    TITLE_SIZE,
    WORD_SIZE,
    column_shifts,
    fit,
    separator,
)
from scenes.kit.lesson import (
    RecordingValues,
    RecordingWorksheet,
    copied_features,
    current_experiment,
    current_lesson,
    lesson_voice,
    lesson_words,
)
from scenes.kit.palette import HEAD_COLOURS, INK, MUTED, NEGATIVE
from scenes.kit.scene import BREATH, LONGEST_SILENCE, LectureScene
from scenes.kit.text import (
    ELIDE_AFTER,
    ENGLISH,
    Bound,
    Filled,
    Word,
    baseline,
    fill,
    joined,
    lighten,
    noted,
    on_baseline,
    shown_indices,
    standing,
    vector,
)

__all__ = [
    "BAR_UNIT",
    "BREATH",
    "CODE_LITERALS",
    "ELIDE_AFTER",
    "ENGLISH",
    "FONT",
    "HEAD_COLOURS",
    "INK",
    "LEAST_FIGURE_SIZE",
    "LONGEST_SILENCE",
    "LONGEST_STILL",
    "MONO",
    "MUTED",
    "NEGATIVE",
    "NUMBER_SIZE",
    "SAFE_BOTTOM",
    "TITLE_SIZE",
    "WORD_SIZE",
    "Bound",
    "CodeLine",
    "Components",
    "Cued",
    "Fade",
    "Filled",
    "LectureScene",
    "RecordingValues",
    "RecordingWorksheet",
    "WeightBar",
    "Word",
    "baseline",
    "brackets",
    "code",
    "column_shifts",
    "copied_features",
    "cued",
    "current_experiment",
    "current_lesson",
    "fade_in",
    "fade_out",
    "fill",
    "fit",
    "grow",
    "joined",
    "lesson_voice",
    "lesson_words",
    "lighten",
    "model_map",
    "noted",
    "on_baseline",
    "panel",
    "separator",
    "shown_indices",
    "standing",
    "vector",
    "weight_cell",
    "weight_opacity",
]
