"""Timing helper shared by the benchmarks: best of several rounds, so machine noise only adds."""

from __future__ import annotations

import time
from typing import Callable


def best_of(fn: Callable[[], object], rounds: int = 7, number: int = 20) -> float:
    """Seconds per call of the fastest round of `number` calls."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best
