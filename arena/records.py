"""Values that describe a finished game and cross process boundaries: `Reason`, `GameRecord`.

One answer to "is it over, and why": every game ends with `winner` (1 = the player who moved
first, 2 = the second, None = draw) and exactly one `Reason`. A fault (timeout, illegal, crash)
loses for the offender (`offender`, 1 or 2) and wins for the opponent.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

__all__ = ["FAULTS", "RECORD_SCHEMA", "GameRecord", "Reason", "StoredGame"]

#: version of the JSON form of a record (`GameRecord.to_dict`)
RECORD_SCHEMA = 1


class Reason(str, Enum):
    """Why a game ended."""

    CONNECT = "connect"  # K in a row
    DRAW = "draw"  # full board
    TIMEOUT = "timeout"  # no answer by the deadline (initPlayer or selectColumn)
    ILLEGAL = "illegal"  # full column, out of range, or not an integer
    CRASH = "crash"  # raised, exited, killed, closed its pipes, failed to start, out of memory


FAULTS = frozenset({Reason.TIMEOUT, Reason.ILLEGAL, Reason.CRASH})


@dataclass(frozen=True)
class GameRecord:
    """Everything stored about one game (the fields of `cxarena match --json`, and more)."""

    M: int
    N: int
    K: int
    p1: str  # SPEC of the player who moved first
    p2: str  # SPEC of the player who moved second
    names: tuple[str, str]  # playerName() of p1 and p2 ("" if never obtained)
    moves: tuple[int, ...]  # columns in order, from the empty board (opening included)
    times_ms: tuple[float, ...]  # measured wall time of each move, same length as moves
    #                              (0.0 for the opening's moves: nobody chose them)
    winner: int | None  # 1, 2, or None for a draw
    reason: Reason
    detail: str  # human-readable detail ("" for a normal end)
    seed: int
    offender: int | None = None  # 1 or 2 for a fault, else None
    stderr_tail: str = ""  # last lines of the offender's stderr, trimmed
    init_ms: tuple[float, float] = (0.0, 0.0)  # measured initPlayer time of p1, p2
    started_at: str = ""  # ISO 8601 UTC
    finished_at: str = ""  # ISO 8601 UTC
    version: str = ""  # harness version
    extra: dict[str, Any] = field(default_factory=dict)  # labels added by callers (game id ...)
    #: the opening the game started from (the first len(opening) entries of moves); () = the
    #: empty board. Stored records from before openings existed read back as ().
    opening: tuple[int, ...] = ()
    #: the game pair this game belongs to (the same opening, colours swapped); "" = unpaired
    pair_id: str = ""

    @property
    def is_fault(self) -> bool:
        return self.reason in FAULTS

    @property
    def played_times_ms(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The move times of p1 and of p2, opening moves left out."""
        skip = len(self.opening)
        p1 = tuple(t for i, t in enumerate(self.times_ms) if i >= skip and i % 2 == 0)
        p2 = tuple(t for i, t in enumerate(self.times_ms) if i >= skip and i % 2 == 1)
        return p1, p2

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["reason"] = self.reason.value
        d["names"] = list(self.names)
        d["moves"] = list(self.moves)
        d["times_ms"] = [round(t, 3) for t in self.times_ms]
        d["init_ms"] = [round(t, 3) for t in self.init_ms]
        d["opening"] = list(self.opening)
        d["schema"] = RECORD_SCHEMA
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        # "game_id" leads each line of `cxarena report --json`
        d = {k: v for k, v in d.items() if k not in ("schema", "game_id")}
        d["reason"] = Reason(d["reason"])
        d["names"] = tuple(d["names"])
        d["moves"] = tuple(d["moves"])
        d["times_ms"] = tuple(d["times_ms"])
        d["init_ms"] = tuple(d.get("init_ms", (0.0, 0.0)))
        d["opening"] = tuple(d.get("opening", ()))
        d["pair_id"] = str(d.get("pair_id", ""))
        return cls(**d)


@dataclass(frozen=True)
class StoredGame:
    """A stored game: its id, round, the players' display names and the full record."""

    game_id: str
    round: int
    player1: str  # display name of the first player
    player2: str
    record: GameRecord
