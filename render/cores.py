"""Work spread over the machine's cores, one spawned worker process per core."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

__all__ = ["map_per_core"]

Job = TypeVar("Job")
Result = TypeVar("Result")


def map_per_core(function: Callable[[Job], Result], jobs: Sequence[Job],
                 workers: int | None = None) -> list[Result]:
    """``function`` of each job, in order: in this process when one worker is enough, else
    in a pool of fresh interpreters (spawned, so that none inherits a forked engine, torch or
    open recogniser), one per core unless ``workers`` says how many."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    if workers == 1:
        return [function(job) for job in jobs]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(function, jobs))
