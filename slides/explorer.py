"""What the explorer slide runs: the worksheet's own model, written beside the deck.

Every deck holds, beside the runtime it shares with the live slide
(:data:`~slides.live.RUNTIME_SCRIPTS`), one classic script that sets
``EXPLORER_MODEL``: the worksheet model's ONNX graph in base64 and its sha256
(:func:`worksheet.explorer.explorer_graph`, float64, exported again at every build). The
slide (``static/explorer.js``) loads them when it is first shown.
"""

from __future__ import annotations

from base64 import b64encode
from pathlib import Path

from outputs.files import write_text
from slides.live import RUNTIME_SCRIPTS, classic_script
from worksheet import Worksheet

__all__ = ["EXPLORER_MODEL", "EXPLORER_SCRIPTS", "explorer_script", "write_explorer"]

EXPLORER_MODEL = "explorer/model.js"
"""The explorer's graph, inside the deck folder."""
EXPLORER_SCRIPTS = (*RUNTIME_SCRIPTS, EXPLORER_MODEL)
"""The explorer slide's scripts, in the order it loads them."""


def explorer_script(ws: Worksheet) -> str:
    """The text of :data:`EXPLORER_MODEL` for a worksheet: ``window.EXPLORER_MODEL =
    {"graph": <base64>, "sha256": <hex>}``."""
    from worksheet.explorer import explorer_graph

    graph, digest = explorer_graph(ws)
    return classic_script("EXPLORER_MODEL", {"graph": b64encode(graph).decode("ascii"),
                                             "sha256": digest})


def write_explorer(folder: Path, ws: Worksheet) -> None:
    """Write the explorer's graph into the deck folder ``folder``."""
    target = folder / EXPLORER_MODEL
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, explorer_script(ws))
