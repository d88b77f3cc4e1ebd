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
import math
import os
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["DASK_PORT", "DASK_WORKERS", "GAMES_FILE", "MEASURE_DIR", "MOVES_Z", "BoardPrice",
           "GameMoves", "MeasuredGame", "move_factors", "moves_model", "price_boards",
           "worst_wall_s",
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
    #: the moves each side made (the opening's excluded) and their thinking on them (without
    #: initPlayer); 0 in a file written before they were kept
    moves1: int = 0
    moves2: int = 0
    move1_s: float = 0.0
    move2_s: float = 0.0
    #: every limit the game was played under (its record's, `GameRecord.limits`)
    limits: dict[str, object] = field(default_factory=dict)

    @property
    def init_s(self) -> float:
        """The sides' initPlayer time: their thinking beside their moves."""
        return max(0.0, self.think1_s + self.think2_s - self.move1_s - self.move2_s)

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
                   int(str(data.get("moves1", 0))), int(str(data.get("moves2", 0))),
                   float(str(data.get("move1_s", 0.0))), float(str(data.get("move2_s", 0.0))),
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
    factor, board = _fit_factors(seats)
    usual = sum(factor.values()) / len(factor)
    mean_factor = sum(factor.get(p, usual) for p in players) / max(1, len(players))
    return {b: 2 * m * mean_factor for b, m in board.items()}


#: rounds of the alternating fit of `game_think_s`, and its least player factor (a bot that
#: answers at once still costs something, and divides nothing by zero)
_FIT_ROUNDS = 5
_FLOOR = 1e-3


def _fit_factors(seats: Sequence[tuple[str, str, float]]
                 ) -> tuple[dict[str, float], dict[str, float]]:
    """({player: factor}, {board: time}) of (board, player, time) seats: a seat's time taken as
    its player's factor times its board's, fitted by alternating means."""
    factor = dict.fromkeys((p for _, p, _ in seats), 1.0)
    board: dict[str, float] = {}
    for _ in range(_FIT_ROUNDS):
        board = _means((b, t / factor[p]) for b, p, t in seats)
        factor = {p: max(_FLOOR, r) for p, r in _means(
            (p, t / board[b]) for b, p, t in seats if board[b] > 0).items()}
        factor = {p: factor.get(p, 1.0) for _, p, _ in seats}
    return factor, board


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


# ----------------------------------------------------------------- the price per move

@dataclass(frozen=True)
class GameMoves:
    """One measured game (rating or calibration) as the per-move price reads it: its board
    (key and cells, the most moves a game there can take), the moves each side made (the
    opening's excluded), what each side thought, and the rest of its duration (the referee's
    own time: the duration without its bots' start-up and thinking)."""

    board: str
    cells: int
    sides: tuple[str, str]
    moves: tuple[int, int]
    think_s: tuple[float, float]
    rest_s: float

    @property
    def plies(self) -> int:
        return self.moves[0] + self.moves[1]


@dataclass(frozen=True)
class BoardPrice:
    """One board's price per game: the moves a game takes (measured there, or modelled from
    the board's size, with `moves_high` the model's upper end), the field's mean seconds per
    move (thinking and the referee's own time), the expected seconds of a game, and the worst
    case: every one of the board's cells a move at the limit plus grace."""

    board: str
    cells: int
    moves: float
    moves_high: float
    moves_measured: int  # measured games on the board (0: modelled from board size)
    per_move_s: float
    each_s: float
    worst_s: float


#: the model's z for the upper end of a modelled board's moves (about 97.5 % one-sided)
MOVES_Z = 2.0


def _lstsq(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float, float]:
    """Least squares y = a + b x over `points`: (a, b, residual sd, mean x, sum of squares of
    x about its mean); b = 0 when the x do not differ."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx > 1e-12 else 0.0
    a = my - b * mx
    dof = n - (2 if sxx > 1e-12 else 1)
    sd = (sum((y - a - b * x) ** 2 for x, y in points) / dof) ** 0.5 if dof > 0 else 0.0
    return a, b, sd, mx, sxx


def moves_model(games: Sequence[tuple[int, int]]) -> Callable[[int], tuple[float, float]]:
    """From measured (cells, moves) games: a function of a board's cells giving (expected
    moves, upper end). The share of the board a game fills is fitted in log space against the
    log of its cells (`log(moves / cells) = a + b log(cells)`, b kept within [-1, 0]: a bigger
    board never fills a larger share, nor takes fewer moves); the upper end adds `MOVES_Z`
    standard errors of a prediction (the residual spread and the fit's own, which grows with
    the distance from the measured sizes). Both are at least 1 move and at most `cells`.
    Without games: every cell (the bound)."""
    pts = [(math.log(c), math.log(max(1, m) / c)) for c, m in games if c > 0 and m > 0]
    if not pts:
        return lambda cells: (float(cells), float(cells))
    a, b, sd, mx, sxx = _lstsq(pts)
    b = min(0.0, max(-1.0, b))
    a = sum(y - b * x for x, y in pts) / len(pts)
    # with one size only, the spread of the shares is all the model knows: at least 50 %
    sd = max(sd, 0.5 if sxx <= 1e-12 else 0.0)
    n = len(pts)

    def predict(cells: int) -> tuple[float, float]:
        x = math.log(max(1, cells))
        se = sd * math.sqrt(1 + 1 / n + ((x - mx) ** 2 / sxx if sxx > 1e-12 else (x - mx) ** 2))
        fill = a + b * x
        return (min(float(cells), max(1.0, cells * math.exp(fill))),
                min(float(cells), max(1.0, cells * math.exp(fill + MOVES_Z * se))))
    return predict


def move_factors(games: Sequence[GameMoves]) -> tuple[dict[str, float], dict[str, float]]:
    """({player: factor}, {board: seconds a move}) of the measured games: a seat's thinking
    per move taken as its player's factor times its board's (fitted by alternating means, as
    `game_think_s` does per game)."""
    seats = [(g.board, p, t / m) for g in games
             for p, m, t in zip(g.sides, g.moves, g.think_s, strict=True) if m > 0]
    return _fit_factors(seats)


def price_boards(boards: Sequence[tuple[str, int]], games: Sequence[GameMoves],
                 players: Sequence[str], timeout_s: float, deadline_s: float
                 ) -> dict[str, BoardPrice]:
    """{board: its `BoardPrice`} for the final's `boards` ((key, cells)) and `players`, from the
    measured `games` at the final's time limit.

    - **Moves a game takes**: the mean of the board's measured games; a board without any,
      `moves_model` over all the measured games (the upper end shown beside it).
    - **Seconds a move**: the players' thinking per move, each its own factor times the
      board's (`move_factors`; a player never measured counts as the mean one); a board
      without a measured game takes the per-move seconds fitted over the measured boards'
      sizes (`log(s) = a + b log(cells)`, b >= 0), never more than the deadline
      (limit + grace); plus the referee's own time per move (all measured games' rest over
      their moves).
    - **Worst case**: `cells` moves, each at `deadline_s` plus the referee's largest measured
      time per move (at least 1 ms): no game of the final can take longer, bar its bots'
      start-up, counted apart."""
    timed = [g for g in games if g.plies > 0]
    model = moves_model([(g.cells, g.plies) for g in timed])
    factor, per_board = move_factors(timed)
    usual = sum(factor.values()) / len(factor) if factor else 1.0
    field = sum(factor.get(p, usual) for p in players) / max(1, len(players))
    cells_of = {g.board: g.cells for g in timed}
    size_fit = [(math.log(cells_of[b]), math.log(s)) for b, s in per_board.items() if s > 0]
    if size_fit:
        sa, sb, *_ = _lstsq(size_fit)
        sb = max(0.0, sb)
        sa = sum(y - sb * x for x, y in size_fit) / len(size_fit)
    rest = sum(max(0.0, g.rest_s) for g in timed) / max(1, sum(g.plies for g in timed))
    rest_high = max([_REST_FLOOR_S, *(max(0.0, g.rest_s) / g.plies for g in timed)])
    out: dict[str, BoardPrice] = {}
    for board, cells in boards:
        mine = [g.plies for g in timed if g.board == board]
        if mine:
            moves = high = sum(mine) / len(mine)
        else:
            moves, high = model(cells)
        if board in per_board:
            think = field * per_board[board]
        elif size_fit:
            think = field * math.exp(sa + sb * math.log(max(1, cells)))
        else:
            think = timeout_s  # nothing measured: every move its full time
        per_move = min(think, deadline_s) + rest
        worst = cells * (deadline_s + rest_high)
        out[board] = BoardPrice(board, cells, moves, high, len(mine), per_move,
                                min(worst, moves * per_move), worst)
    return out


#: the least referee time per move the worst case counts
_REST_FLOOR_S = 1e-3


def worst_wall_s(groups: Iterable[tuple[float, int]], workers: int, start_s: float) -> float:
    """An upper bound of the wall time of (worst seconds per game, games) on `workers` workers
    that each start taking a game as soon as they are free, in any order (a greedy list
    schedule: never longer than the total over the workers plus the longest game), after
    `start_s` of start-up each."""
    groups = [(s, n) for s, n in groups if n > 0]
    if not groups:
        return start_s
    total = sum(s * n for s, n in groups)
    return start_s + total / max(1, workers) + max(s for s, _ in groups)
