"""Measure training throughput of the trained comparison's models on this machine.

    .venv/bin/python bench/experiment.py [--worksheet PATH] [--steps N] [--batch B]
                                         [--threads T] [--eval-windows W]

At the worksheet's trained sizes, each model (the fixed-window MLP, then attention with
each head count) takes ``--steps`` timed training steps, the same ``train_step`` and
learning rate as ``lecture experiment``, on random token windows (throughput does not
depend on which tokens they are), after a few untimed warm-up steps. Printed per model:
milliseconds per step, input tokens per second (batch × context per step), one
validation measurement of ``--eval-windows`` windows, and the time 1,000 steps take with
a measurement every 100 (the command's defaults).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from worksheet import DEFAULT_WORKSHEET, load_worksheet  # noqa: E402
from worksheet.experiment import (  # noqa: E402
    ExperimentOptions,
    model_specs,
    train_step,
)

_WARM_UP = 5
_EVAL_CHUNK = 512


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worksheet", type=Path, default=DEFAULT_WORKSHEET)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--batch", type=int, default=ExperimentOptions.batch)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--eval-windows", type=int, default=ExperimentOptions.eval_windows)
    options = parser.parse_args()
    sizes = load_worksheet(options.worksheet).lesson.trained
    torch.set_num_threads(options.threads)
    torch.use_deterministic_algorithms(True)
    generator = torch.Generator().manual_seed(0)

    def windows(count: int) -> tuple[torch.Tensor, torch.Tensor]:
        rows = torch.randint(0, sizes.vocab, (count, sizes.context + 1), generator=generator)
        return rows[:, :-1], rows[:, -1]

    print(f"sizes: vocab {sizes.vocab}, context {sizes.context}, width {sizes.width}, "
          f"hidden {sizes.hidden}; batch {options.batch}; threads {options.threads}; "
          f"torch {torch.__version__}")
    print(f"{'model':8} {'parameters':>11} {'ms/step':>8} {'tokens/s':>10} "
          f"{'eval s':>7} {'1,000 steps s':>14}")
    for spec in model_specs(sizes):
        torch.manual_seed(0)
        model = spec.build(sizes)
        optimizer = torch.optim.AdamW(model.parameters(), lr=ExperimentOptions.learning_rate)
        batches = [windows(options.batch) for _ in range(_WARM_UP + options.steps)]
        for ids, targets in batches[:_WARM_UP]:
            train_step(model, optimizer, ids, targets)
        started = time.perf_counter()
        for ids, targets in batches[_WARM_UP:]:
            train_step(model, optimizer, ids, targets)
        per_step = (time.perf_counter() - started) / options.steps
        ids, _ = windows(options.eval_windows)
        started = time.perf_counter()
        with torch.no_grad():
            for chunk in ids.split(_EVAL_CHUNK):
                model.logits(chunk)
        evaluation = time.perf_counter() - started
        parameters = sum(p.numel() for p in model.parameters())
        tokens = options.batch * sizes.context / per_step
        thousand = 1000 * per_step + 10 * evaluation
        print(f"{spec.name:8} {parameters:>11,} {1000 * per_step:>8.2f} {tokens:>10,.0f} "
              f"{evaluation:>7.2f} {thousand:>14.1f}")


if __name__ == "__main__":
    main()
