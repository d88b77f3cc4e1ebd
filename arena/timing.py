"""Clock helpers for bots: a `Deadline` derived from the move time limit in one place."""

from __future__ import annotations

import time

__all__ = ["Deadline", "safe_budget_s"]


def safe_budget_s(timeout_s: float) -> float:
    """How long a bot may think per call under a limit of `timeout_s` seconds.

    Keeps a fixed reserve of 60 ms (process round trip, copying the board, the scheduler of a
    loaded machine) and at least 20% of the limit: 20 ms of 80 ms, 40 ms of 0.1 s, 0.8 s of 1 s.
    """
    return max(0.0, min(0.8 * timeout_s, timeout_s - 0.06))


class Deadline:
    """A point in time (time.perf_counter seconds) a bot must answer by."""

    __slots__ = ("start_s", "end_s")

    def __init__(self, budget_s: float) -> None:
        self.start_s = time.perf_counter()
        self.end_s = self.start_s + budget_s

    @classmethod
    def for_move(cls, timeout_s: float) -> Deadline:
        """A deadline for one move under a limit of `timeout_s` (see `safe_budget_s`)."""
        return cls(safe_budget_s(timeout_s))

    def expired(self) -> bool:
        return time.perf_counter() >= self.end_s

    def remaining_s(self) -> float:
        return self.end_s - time.perf_counter()

    def elapsed_s(self) -> float:
        return time.perf_counter() - self.start_s
