"""The final round robin's length before it starts: the durations measured on its boards (kept
apart from the rating games), the wall time of its games on N workers, and the Dask route.

- **Calibration games** (`arena.league.final_measure` plays them: `league final --dry-run
  --measure`, the admin page's "Measure the final's boards") are kept in
  ``DIR/final-measure/games.json``, one `MeasuredGame` each: their board, time limit and
  measured duration. They are not rating games: no rating, standing or leaderboard reads them;
  only `arena.league.final.plan_final` does, beside the rating games' durations.
- **Wall time on N workers** (`makespan_s`): each worker first starts the final's bots (it
  keeps them between games, so a measured game's bot start-ups, `bot_startups_s`, are taken
  out of its duration and counted once per bot and worker), then plays the final's games,
  longest first, each to the worker that frees up first (what the tournament's schedule and
  executors do; the model of docs/scaling.md). It is never below the longest single game, and
  more workers never take longer (`wall_times_s`: a cluster can leave a worker idle).
- **The Dask route** (`dask_commands`): the commands docs/scaling.md describes, with this
  machine's name as the scheduler's host and the league folder's absolute path.
"""

from __future__ import annotations

import heapq
import json
import os
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["DASK_PORT", "DASK_WORKERS", "GAMES_FILE", "MEASURE_DIR", "MeasuredGame",
           "add_measured", "bot_startups_s", "dask_commands", "game_think_s", "makespan_s",
           "measured_games",
           "wall_times_s"]

#: the league's folder of calibration games (games.json), their process's state and log
MEASURE_DIR = "final-measure"
GAMES_FILE = "games.json"
#: the Dask worker counts the plan shows beside this machine's own workers
DASK_WORKERS = (4, 8, 16)
#: the Dask scheduler's default port (`dask scheduler`)
DASK_PORT = 8786


@dataclass(frozen=True)
class MeasuredGame:
    """One calibration game on a board of the final: its board (the key the cost model names it
    by, `arena.competition.progress.key_and_prior`), the game's fields, the time limit it was
    played at and its measured durations."""

    board: str
    game: str
    M: int
    N: int
    K: int
    params: tuple[tuple[str, int], ...]
    timeout_s: float
    duration_s: float  # wall time, start to end
    think_s: float  # of which the bots thought (moves and initPlayer)
    player1: str
    player2: str
    reason: str  # how it ended (win, draw, a fault)
    finished_at: float  # seconds since the epoch
    #: of `duration_s`, the wait for the bot processes started for this game (they start at
    #: once: the slowest one's start-up), and how many (a worker of the final starts each bot
    #: once and keeps it: `bot_startups_s`)
    startup_s: float = 0.0
    started: int = 0
    #: the sides as the league keys them (``sub:ID``, a reference bot's SPEC), and what each
    #: thought (`arena.league.final.final_player_keys`)
    key1: str = ""
    key2: str = ""
    think1_s: float = 0.0
    think2_s: float = 0.0
    #: every limit the game was played under (its record's, `GameRecord.limits`)
    limits: dict[str, object] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> MeasuredGame:
        params = data.get("params") or ()
        assert isinstance(params, (list, tuple))
        return cls(str(data["board"]), str(data["game"]), int(str(data["M"])),
                   int(str(data["N"])), int(str(data["K"])),
                   tuple((str(k), int(v)) for k, v in params),
                   float(str(data["timeout_s"])), float(str(data["duration_s"])),
                   float(str(data["think_s"])), str(data["player1"]), str(data["player2"]),
                   str(data["reason"]), float(str(data["finished_at"])),
                   float(str(data.get("startup_s", 0.0))), int(str(data.get("started", 0))),
                   str(data.get("key1", "")), str(data.get("key2", "")),
                   float(str(data.get("think1_s", 0.0))), float(str(data.get("think2_s", 0.0))),
                   dict(limits) if isinstance(limits := data.get("limits"), dict) else {})


def _games_path(league_dir: Path) -> Path:
    return Path(league_dir) / MEASURE_DIR / GAMES_FILE


def measured_games(league_dir: Path) -> list[MeasuredGame]:
    """The league's calibration games, oldest first ([] when none was played; a file that
    cannot be read counts as none: the plan then extrapolates, and says so)."""
    try:
        data = json.loads(_games_path(league_dir).read_text(encoding="utf-8"))
        return [MeasuredGame.from_dict(d) for d in data]
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        return []


def add_measured(league_dir: Path, games: Iterable[MeasuredGame]) -> None:
    """Keep `games` beside the league's calibration games (the file is replaced whole, so a
    reader never sees half of it)."""
    path = _games_path(league_dir)
    path.parent.mkdir(exist_ok=True)
    kept = [asdict(g) for g in [*measured_games(league_dir), *games]]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(kept, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def bot_startups_s(extra: Mapping[str, object]) -> list[float]:
    """The start-up of each bot process a game started, seconds (its record's
    ``extra["startup_ms"]``; a bot kept from an earlier game started none)."""
    times = extra.get("startup_ms")
    if not isinstance(times, (list, tuple)):
        return []
    return [float(t) / 1000.0 for t in times if isinstance(t, (int, float))]


def game_think_s(seats: Iterable[tuple[str, str, float]],
                 players: Sequence[str]) -> dict[str, float]:
    """{board: the thinking of one game of the final there (both seats)}, from the measured
    `seats` (board, player, seconds that player thought in one game) of the boards that have
    them, for a round robin of `players` (every player plays as many games as every other).

    A player's thinking is taken as its own factor times the board's (`think = r[player] *
    m[board]`, fitted by alternating means): the measured games pair players unevenly (a rating
    game always has an entry in it; none is between two reference bots), so a player that
    thinks long, measured on one board, counts on every board. A player never measured counts
    as the mean measured one."""
    seats = [(b, p, max(0.0, t)) for b, p, t in seats]
    if not seats:
        return {}
    factor = dict.fromkeys((p for _, p, _ in seats), 1.0)
    board: dict[str, float] = {}
    for _ in range(_FIT_ROUNDS):
        board = _means((b, t / factor[p]) for b, p, t in seats)
        factor = {p: max(_FLOOR, r) for p, r in _means(
            (p, t / board[b]) for b, p, t in seats if board[b] > 0).items()}
        factor = {p: factor.get(p, 1.0) for _, p, _ in seats}
    usual = sum(factor.values()) / len(factor)
    mean_factor = sum(factor.get(p, usual) for p in players) / max(1, len(players))
    return {b: 2 * m * mean_factor for b, m in board.items()}


#: rounds of the alternating fit of `game_think_s`, and its least player factor (a bot that
#: answers at once still costs something, and divides nothing by zero)
_FIT_ROUNDS = 5
_FLOOR = 1e-3


def _means(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    sums: dict[str, list[float]] = {}
    for key, value in pairs:
        sums.setdefault(key, []).append(value)
    return {key: sum(v) / len(v) for key, v in sums.items()}


def makespan_s(groups: Iterable[tuple[float, int]], workers: int,
               start_s: float = 0.0) -> float:
    """The wall time of (seconds per game, games) groups on `workers` workers, each busy for
    `start_s` first (starting its bots): longest games first, each to the worker that frees up
    first. Whole rounds of one duration are dealt to every worker at once (a final of 92,800
    games is not placed one by one)."""
    workers = max(1, workers)
    free = [start_s] * workers
    for each_s, count in sorted(groups, reverse=True):
        rounds, rest = divmod(count, workers)
        if rounds:
            free = [t + rounds * each_s for t in free]
            heapq.heapify(free)
        for _ in range(rest):
            heapq.heappush(free, heapq.heappop(free) + each_s)
    return max(free)


def wall_times_s(groups: Sequence[tuple[float, int]], workers: Iterable[int],
                 start_s: float = 0.0) -> tuple[tuple[int, float], ...]:
    """(workers, wall time) for each count of `workers`, ascending: `makespan_s`, never more
    than with fewer workers (the extra ones may stay idle) and never less than the longest
    game."""
    out: list[tuple[int, float]] = []
    for n in sorted(set(workers)):
        seconds = makespan_s(groups, n, start_s)
        out.append((n, min(seconds, out[-1][1]) if out else seconds))
    return tuple(out)


def dask_commands(league_dir: Path, host: str | None = None) -> tuple[str, str, str]:
    """The three commands of the Dask route: the scheduler (on `host`, default this machine),
    a worker per core on every machine (docs/scaling.md), and the final on them."""
    host = host or socket.gethostname()
    address = f"tcp://{host}:{DASK_PORT}"
    return ("dask scheduler",
            f"dask worker {address} --nworkers $(nproc) --nthreads 1",
            f"cxarena league final {Path(league_dir).resolve()} --scheduler {address}")
