"""What the benchmarks share: the best of several timed runs."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(run: Callable[[], object], repeat: int, before: Callable[[], object] = lambda: None
         ) -> float:
    """The fastest of ``repeat`` runs of ``run``, in seconds; ``before`` runs untimed
    ahead of each."""
    times = []
    for _ in range(repeat):
        before()
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)
