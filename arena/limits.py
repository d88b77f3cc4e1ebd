"""`Limits`: the time and memory limits a game is played under, one frozen value.

Built in one place, `make_limits`, from a tournament config or from command-line flags (the
defaults are those of `arena.defaults`); carried by the referee's `MatchSettings` and by every
`GameRecord`, so a stored game says what limits it was played under.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arena import defaults
from arena.errors import UsageError

__all__ = ["Limits", "make_limits"]

MIB = 2**20


@dataclass(frozen=True)
class Limits:
    """Per-move time limit, its grace, the start-up limit (seconds), the memory limit of one
    bot (MiB; None: no limit) and its task cap. Raises ValueError when a value is out of range."""

    timeout_s: float
    grace_s: float = defaults.GRACE_S
    startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S
    memory_limit_mb: int | None = defaults.MEMORY_LIMIT_MB
    #: the most tasks (processes and threads) a bot may run at once, where cgroups count them
    #: (None: no cap)
    max_tasks: int | None = defaults.MAX_TASKS

    def __post_init__(self) -> None:
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s!r}")
        if not (math.isfinite(self.grace_s) and self.grace_s >= 0):
            raise ValueError(f"grace_s must be >= 0, got {self.grace_s!r}")
        if not (math.isfinite(self.startup_timeout_s) and self.startup_timeout_s > 0):
            raise ValueError(f"startup_timeout_s must be > 0, got {self.startup_timeout_s!r}")
        mem = self.memory_limit_mb
        if mem is not None and mem < defaults.MIN_MEMORY_MB:
            raise ValueError(f"memory_limit_mb must be at least {defaults.MIN_MEMORY_MB} MiB, "
                             f"got {mem}")
        tasks = self.max_tasks
        if tasks is not None and tasks < defaults.MIN_TASKS:
            raise ValueError(f"max_tasks must be at least {defaults.MIN_TASKS}, got {tasks}")

    @property
    def memory_limit_bytes(self) -> int | None:
        return None if self.memory_limit_mb is None else self.memory_limit_mb * MIB

    @property
    def deadline_s(self) -> float:
        """How long a timed request may take before it is late: the limit plus the grace."""
        return self.timeout_s + self.grace_s

    def played_under(self, isolated: bool, cgroups: bool) -> dict[str, Any]:
        """Every limit of a game as its record keeps them (`GameRecord.limits`): these, the
        sandbox the bots had (`isolated`) and whether each bot was asked a cgroup."""
        return {"timeout_s": self.timeout_s, "grace_s": self.grace_s,
                "startup_timeout_s": self.startup_timeout_s,
                "memory_limit_mb": self.memory_limit_mb, "max_tasks": self.max_tasks,
                "isolation": "namespaces" if isolated else "none", "cgroups": cgroups}

    def to_dict(self) -> dict[str, Any]:
        """The limits as a config says them (`max_tasks` only when not the default, so that
        the fingerprints of results made before it existed still match)."""
        out: dict[str, Any] = {"timeout_s": self.timeout_s, "grace_s": self.grace_s,
                               "startup_timeout_s": self.startup_timeout_s,
                               "memory_limit_mb": self.memory_limit_mb}
        if self.max_tasks != defaults.MAX_TASKS:
            out["max_tasks"] = self.max_tasks
        return out


def make_limits(timeout_s: float, grace_s: float | None = None,
                startup_timeout_s: float | None = None,
                memory_limit_mb: int | None = defaults.MEMORY_LIMIT_MB,
                where: str = "limits", max_tasks: int | None = defaults.MAX_TASKS) -> Limits:
    """The one way to build `Limits` from a config or flags (None: the default of
    `arena.defaults` for grace and start-up; `memory_limit_mb=None` and `max_tasks=None` mean
    no limit). Raises
    UsageError naming `where` for a value out of range."""
    try:
        return Limits(
            timeout_s=float(timeout_s),
            grace_s=defaults.GRACE_S if grace_s is None else float(grace_s),
            startup_timeout_s=(defaults.STARTUP_TIMEOUT_S if startup_timeout_s is None
                               else float(startup_timeout_s)),
            memory_limit_mb=None if memory_limit_mb is None else int(memory_limit_mb),
            max_tasks=None if max_tasks is None else int(max_tasks))
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {e}") from None
