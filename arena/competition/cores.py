"""The cores this process may run on (the default worker count, and one core per worker)."""

from __future__ import annotations

import os

__all__ = ["usable_core_ids", "usable_cores"]


def usable_core_ids() -> list[int]:
    """The ids of the cores this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def usable_cores() -> int:
    """How many cores this process may run on."""
    return len(usable_core_ids())
