"""The teaching rules per scene, from a dry run: the longest still, the lowest drawn point
(the subtitle band starts at ``SAFE_BOTTOM``) and every text below 4.5:1 contrast.

  .venv/bin/python bench/teaching.py [WORKSHEET] [SCENE ...]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from outline import lecture_order
from scenes.kit import LONGEST_STILL, SAFE_BOTTOM
from scenes.kit.palette import MIN_CONTRAST, contrast
from tests.scene_runner import run_scenes
from worksheet import DEFAULT_WORKSHEET, load_worksheet


def main() -> None:
    worksheet = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else DEFAULT_WORKSHEET
    entries = [e for e in lecture_order(load_worksheet(worksheet).n_heads)
               if len(sys.argv) < 3 or e.name in sys.argv[2:]]
    results = run_scenes([(e, worksheet) for e in entries])
    for entry in entries:
        result = results[(str(worksheet), entry.name)]
        if result["error"]:
            print(entry.name, "ERROR", result["error"][-600:])
            continue
        manifest = result["manifest"]
        faint = [f"{t['text'][:25]!r} {c} on {t['behind']} {contrast(c, t['behind']):.2f}"
                 for s in result["sections"] for t in s["texts"] for c in t["colours"]
                 if contrast(c, t["behind"]) < MIN_CONTRAST]
        low, (start, end) = manifest["lowest"], manifest["longest_still"]
        flags = ("STILL " if end - start > LONGEST_STILL else "") + \
                ("BAND " if low["y"] is not None and low["y"] < SAFE_BOTTOM else "") + \
                ("CONTRAST" if faint else "")
        print(f"{entry.name:24s} {manifest['duration']:6.1f} s  still {end - start:5.1f} s "
              f"at {start:5.1f}  lowest {low['y']:.2f} ({low['what'][:28]!r})  "
              f"{flags or 'ok'} {faint[:3]}")


if __name__ == "__main__":
    main()
