"""A game to play, and where the executors get them from.

`GameJob` is the one value that means "a game to play" between the tournament's schedule, the
league's pairs and the executors (`arena.competition.executor`, `.dask_executor`): the game
itself (its `Game` object, the rules and parameters), both players (SPEC and display name), the
seed, the opening, the game id and the labels the callers need back (round, pair id). A worker
turns it into the referee's `GameRequest` in one place, `GameJob.request`.

A `JobSource` hands jobs out one at a time, when a worker is free, so that a caller can decide
what to play next as games finish (the league claims a pair only when it can be played at
once). `SequenceSource` is the trivial source over a fixed list: the tournament's schedule.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from arena.entrants.specs import BotSpec
from arena.games import Game
from arena.records import GameRecord, board_of
from arena.referee.referee import GameRequest

__all__ = ["BotFiles", "GameJob", "GameOutcome", "JobSource", "SequenceSource"]


class BotFiles(Protocol):
    """A bot whose files travel with its job (the league's submitted versions, played on
    machines that do not have them): `spec` writes them under `root` (once) and returns the
    SPEC that plays them there."""

    def spec(self, root: Path) -> str: ...


@dataclass(frozen=True)
class GameJob:
    """One game to play: `rules` (the game and its parameters), `p1` (display name, SPEC
    `spec1`, options) moves first against `p2`, from `opening` (move texts in the game's
    notation), with `seed`. `round` and `pair_id` are labels for the caller. `files1` and
    `files2`: the players' files when they travel with the job (else None: `spec1`, `spec2`
    name files every worker has)."""

    game_id: str
    rules: Game
    p1: str
    p2: str
    spec1: str
    spec2: str
    seed: int
    options1: Mapping[str, Any] = field(default_factory=dict)
    options2: Mapping[str, Any] = field(default_factory=dict)
    opening: tuple[str, ...] = ()
    round: int = 0  # 1-based in a tournament; 0: no rounds
    pair_id: str = ""  # the game pair (same board, round, pairing and opening)
    files1: BotFiles | None = None
    files2: BotFiles | None = None

    # the game as the callers that key on its board see it (progress estimates, the final's
    # measures): a game played on boards (`arena.records.board_of`, Connect-X) by M, N, K,
    # another by its name and parameters
    @property
    def game(self) -> str:
        """The game's name (`arena.games`)."""
        return self.rules.name

    @property
    def board(self) -> tuple[int, int, int]:
        """(M, N, K) of a game played on boards, else (0, 0, 0)."""
        return board_of(self.rules) or (0, 0, 0)

    @property
    def M(self) -> int:
        return self.board[0]

    @property
    def N(self) -> int:
        return self.board[1]

    @property
    def K(self) -> int:
        return self.board[2]

    @property
    def params(self) -> tuple[tuple[str, int], ...]:
        """The game's parameters besides a board's M, N, K (none for Connect-X)."""
        return () if board_of(self.rules) else tuple(self.rules.params.items())

    @property
    def cells(self) -> int:
        return self.M * self.N

    def with_files(self, root: Path) -> GameJob:
        """This job with the SPECs of its travelling files written under `root` (itself when
        none travel)."""
        if self.files1 is None and self.files2 is None:
            return self
        return replace(self, spec1=self.files1.spec(root) if self.files1 else self.spec1,
                       spec2=self.files2.spec(root) if self.files2 else self.spec2,
                       files1=None, files2=None)

    def request(self, bot1: BotSpec, bot2: BotSpec) -> GameRequest:
        """The referee's request for this game, `bot1` and `bot2` being `spec1` and `spec2`
        parsed."""
        return GameRequest(bot1, bot2, self.rules, self.seed, (self.options1, self.options2),
                           game_id=self.game_id, opening=self.opening)


@dataclass(frozen=True)
class GameOutcome:
    """A finished game, or (record None) a game the harness itself failed to play."""

    game: GameJob
    record: GameRecord | None
    error: str = ""  # why the harness failed (never a bot fault: those are in the record)
    worker: int = -1


class JobSource(Protocol):
    """Where an executor gets its games: `take` the next (None: none now, ask again later),
    `finished` once no more will come, `done` with each game's outcome (before the executor
    yields it)."""

    def take(self) -> GameJob | None: ...

    @property
    def finished(self) -> bool: ...

    def done(self, outcome: GameOutcome) -> None: ...


class SequenceSource:
    """A fixed list of jobs, handed out in order."""

    def __init__(self, jobs: Iterable[GameJob]) -> None:
        self.jobs = deque(jobs)

    def take(self) -> GameJob | None:
        return self.jobs.popleft() if self.jobs else None

    @property
    def finished(self) -> bool:
        return not self.jobs

    def done(self, outcome: GameOutcome) -> None:
        """Nothing to do: the caller reads the outcomes the executor yields."""
