"""What the adaptive final must decide (`Goal`): its settings' one home, read by league.yaml's
checks without the planner (`arena.competition.adaptive_final`, which needs numpy: every
league process reads its config, and numpy is not cheap to import)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Goal"]


@dataclass(frozen=True)
class Goal:
    """What the adaptive final must decide: the full order (`top_k` None) or the first
    `top_k` places, each neighbouring pair at `confidence`; two entries whose strengths differ
    by less than `tie_elo` (at that confidence; 0: never) are a tie. `max_fraction` bounds the
    games (a share of the full round robin's, never below the floor's): when it is spent, the
    pairs still open are ties at the goal's confidence. `rounds` is the full round robin's
    (`final_pairs`): its every pair meets on every board `rounds` times with each colour.
    `burst` bounds the game pairs an open pair gets in one step, `first` places count more: an
    open pair among them gets 4 x `burst` (a podium decided is what a class looks at first);
    `seed` shuffles the floor."""

    confidence: float = 0.95
    top_k: int | None = None
    tie_elo: float = 0.0
    max_fraction: float = 1.0
    rounds: int = 1
    burst: int = 8
    seed: int = 0
    first: int = 3

    def __post_init__(self) -> None:
        if not 0.5 < self.confidence < 1.0:
            raise ValueError(f"confidence must be in (0.5, 1), got {self.confidence!r}")
        if self.top_k is not None and self.top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {self.top_k!r}")
        if self.rounds < 1 or self.burst < 1 or self.tie_elo < 0:
            raise ValueError("rounds and burst must be at least 1, tie_elo at least 0")
        if not 0.0 < self.max_fraction <= 1.0:
            raise ValueError(f"max_fraction must be in (0, 1], got {self.max_fraction!r}")
