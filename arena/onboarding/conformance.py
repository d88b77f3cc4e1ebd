"""The conformance check of one bot (`cxarena check-bot`), the same for every game: short games
against L0's strategy under the real referee, and a plain-words report of everything that would
cost the bot games in a tournament.

`run_check(spec, ...)` plays each game of the check (`arena.games.Game`s: by default the
course's Connect-X on the competition's smallest and largest boards and on 6x7x4,
`check_boards`; or any registered game with its parameters) twice, the bot moving first and then
second, against `RandomOpponent` (L0's strategy: a uniformly random legal move; repeated here
because arena imports no bot), under `arena.referee.referee.Referee` with the tournament's
limits (`default_settings`: the project's configs/tournament.yaml), in the order a tournament
plays them (`play_order`: dearest first). Processes are reused between games, as a tournament
worker reuses them (`fresh_game`: then the cheapest game once more in a process of its own), so
the first game starts the bot: its record gives the bot's start-up (process start to ``ready``),
or why it did not start (then no more games are played). Before any game, the bot's class is
loaded in a probe process, so that a SPEC naming no usable class is one plain usage error. The
`CheckReport` it returns says what failed:

- illegal moves, crashes (with the tail of the bot's stderr), timeouts;
- how close the answers came to the limit (max and 99th percentile of move time / limit);
- slow start-up; a name (playerName(), player_name()) that is empty, unprintable or too long.

Big games (`Game.cost()` over BIG_GAME_COST: Connect-X and m,n,k boards of more than 100 cells)
stop after `max_moves` plies (`MAX_MOVES`, `QUICK_MAX_MOVES`): the referee's move cap ends them
as draws.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import defaults
from arena.board import CXBoard
from arena.competition.settings import (
    BOARDS_FILE,
    REPO_CONFIGS,
    Isolation,
    PlaySettings,
    checked_board_set,
    load_boards,
    referee_settings,
)
from arena.entrants.exposure import bot_paths
from arena.entrants.probe import probe_each
from arena.entrants.specs import BotSpec, Kind, SpecError, parse_spec, time_limit_problem
from arena.errors import UsageError
from arena.games import Game
from arena.games.player import GamePlayer
from arena.limits import make_limits
from arena.player import CXPlayer
from arena.records import GameRecord, Reason, record_label
from arena.referee.referee import (
    FAILED_TO_START,
    MOVE_CAP_DETAIL,
    GameRequest,
    Referee,
    course_game,
)
from arena.referee.sandbox import resolve
from arena.results.fairness import load_account
from arena.tournament.config import load_limits
from arena.tournament.preflight import refuse_unseen_programs
from arena.wire.protocol import PROTOCOL_V2, version_of

__all__ = ["DEFAULT_TIMEOUT_S", "TOURNAMENT_CONFIG", "CheckGame", "CheckReport",
           "RandomOpponent", "check_boards", "course_games", "default_settings", "percentile",
           "play_order", "run_check"]

Board = tuple[int, int, int]

#: the one home of check-bot's default limits: the tournament config of the project this
#: arena runs from (a checkout's configs/), whatever the current folder
TOURNAMENT_CONFIG = REPO_CONFIGS / "tournament.yaml"
#: time limit when neither --time nor `TOURNAMENT_CONFIG` gives one
DEFAULT_TIMEOUT_S = defaults.TIMEOUT_S
#: the board every check plays besides the competition's smallest and largest
STANDARD_BOARD: Board = (6, 7, 4)
#: plies after which a big game stops (normal / --quick)
MAX_MOVES = 60
QUICK_MAX_MOVES = 12
#: games whose `Game.cost()` is over this are "big" (their games are capped): for Connect-X
#: and the m,n,k-game the cost is the board's cells
BIG_GAME_COST = 100
#: the opponent of every check game: L0's strategy, defined here (arena imports no bot)
OPPONENT = "L0"
OPPONENT_SPEC = "arena.onboarding.conformance:RandomOpponent"
#: playerName() longer than this is not usable in a standings table
MAX_NAME_CHARS = 40
#: start-up slower than this is reported (a warning), and as a failure past this fraction
#: of the start-up limit (a loaded tournament machine can be twice as slow)
SLOW_STARTUP_S = 5.0
STARTUP_FAIL_FRACTION = 0.5
#: with the strict rule (`check-bot --strict-time`), an answer (a move, initPlayer) slower
#: than this fraction of the limit fails the check: the tournament's machine is busier than the
#: student's, and the margin left is in its noise
FAIL_FRACTION = 0.9
#: an answer slower than this fraction of the limit passes with a warning: above what
#: `arena.timing.Deadline.for_move` budgets (at most 80 %)
WARN_FRACTION = 0.8
#: by default an answer fails the check when it left less than this many times the machine's
#: measured overhead before the point where a game charges a timeout (the limit plus the
#: grace): the overhead is the opponent's slowest answer in the check (an instant bot, so its
#: time is the pipe, the copy of the board and the machine's scheduling), at least
#: `MIN_MARGIN_MS`; what a game on this machine would charge, nothing stricter
JITTER_FACTOR = 3.0
MIN_MARGIN_MS = 2.0
#: the per-language advice to a bot that answered late or too close to the limit
_TIME_ADVICE = {
    Kind.PYTHON: ("stop searching at arena.timing.Deadline.for_move(timeout_in_secs) (at most "
                  "80% of the limit) and check deadline.expired() in every loop that may take "
                  "long"),
    Kind.KAGGLE: ("stop searching at about 80% of configuration.actTimeout, checking the clock "
                  "in every loop that may take long"),
    Kind.JAVA: ("the course's CXPlayerTester measures selectColumn inside the JVM, but here "
                "the clock is the referee's (wall time from the request to your answer, the "
                "copy of the board and the pipe included), so a bot that stops at 95-99% of "
                "timeout_in_secs is late: stop searching at about 80% of it (e.g. "
                "START + timeout_in_secs * 800 ms) and check the clock in every loop"),
    Kind.EXEC: ("the referee measures wall time from sending `go` (or `newgame`) to reading "
                "your answer line: stop thinking at about 80% of the limit and flush at once"),
}


class RandomOpponent(CXPlayer, GamePlayer):
    """The check's opponent in every game: L0's strategy (a uniformly random legal move from a
    generator seeded with the game's seed), repeated here because arena imports no bot.

    It is a bot of both Python APIs, so that one SPEC plays every game: the course's `CXPlayer`
    (Connect-X's protocol version 1) and the `GamePlayer` of any game (version 2)."""

    GAME = ""  # every game

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.rng = random.Random(self.seed)

    def selectColumn(self, B: CXBoard) -> int:
        return self.rng.choice(B.getAvailableColumns())

    def playerName(self) -> str:
        return OPPONENT

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.game = game
        self.rng = random.Random(self.seed)

    def select_move(self, state: Any) -> Any:
        return self.rng.choice(list(self.game.legal_moves(state)))

    def player_name(self) -> str:
        return OPPONENT


@dataclass(frozen=True)
class CheckGame:
    """One game of the check, seen from the checked bot."""

    game: Game
    bot_first: bool
    record: GameRecord
    wall_s: float  # how long the game took
    fresh: bool = False  # played in a process of its own (after the reused process's games)

    @property
    def side(self) -> int:
        """1 if the bot moved first, else 2."""
        return 1 if self.bot_first else 2

    @property
    def capped(self) -> bool:
        """The referee stopped the game at the move cap (a draw)."""
        return (self.record.reason is Reason.DRAW
                and self.record.detail.startswith(MOVE_CAP_DETAIL))

    @property
    def failed_to_start(self) -> bool:
        """The bot's process did not start (or not in time) for this game."""
        r = self.record
        return (r.reason is Reason.CRASH and r.offender == self.side
                and r.detail.startswith(FAILED_TO_START))

    @property
    def startup_s(self) -> float | None:
        """The bot's start-up (process start to `ready`) if its process was started for this
        game (the record's ``extra["startup_ms"]``), else None."""
        pair = self.record.extra.get("startup_ms")
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            return None
        ms = pair[self.side - 1]
        return None if ms is None else float(ms) / 1000.0

    @property
    def bot_times_ms(self) -> list[float]:
        """The bot's move times."""
        return list(self.record.played_times_ms[self.side - 1])

    @property
    def bot_name(self) -> str:
        return self.record.names[self.side - 1]

    def describe(self) -> str:
        r = self.record
        colour = "first" if self.bot_first else "second"
        n = r.n_moves
        if self.capped:
            outcome = "stopped at the move cap"
        elif r.is_fault:
            who = "the bot" if r.offender == self.side else f"{OPPONENT} (!)"
            outcome = f"{r.reason.value} by {who}"
        elif r.winner is None:
            outcome = "draw"
        else:
            outcome = "won" if r.winner == self.side else f"lost to {OPPONENT}"
        where = " (fresh process)" if self.fresh else ""
        return (f"{record_label(self.game)}, bot {colour}{where}: {outcome} after {n} "
                f"moves ({self.wall_s:.1f} s)")


@dataclass(frozen=True)
class CheckReport:
    """The result of `run_check`: the games, the start-up measure and the verdict."""

    spec: str
    timeout_s: float
    startup_s: float | None  # None when the bot did not start
    startup_error: str
    games: tuple[CheckGame, ...]
    failures: tuple[str, ...]  # each one makes the check fail
    warnings: tuple[str, ...]  # worth knowing, not a failure
    notes: tuple[str, ...]  # figures: move times, start-up, games
    wall_s: float

    @property
    def passed(self) -> bool:
        return not self.failures

    def text(self, games: bool = True) -> str:
        """The report in plain words (what `cxarena check-bot` prints after the games);
        `games`: include one line per game."""
        lines = [f"check-bot {self.spec} (time limit {self.timeout_s:g} s per move, "
                 f"against {OPPONENT}):"]
        lines += [f"  {n}" for n in self.notes if games or not n.startswith("game ")]
        if self.failures:
            lines.append("PROBLEMS:")
            lines += [f"  - {_indent(f)}" for f in self.failures]
        if self.warnings:
            lines.append("Warnings:")
            lines += [f"  - {_indent(w)}" for w in self.warnings]
        verdict = ("PASSED: the bot is ready for a tournament." if self.passed else
                   f"FAILED: {len(self.failures)} problem(s) to fix before a tournament.")
        lines.append(verdict)
        return "\n".join(lines)


def _indent(text: str) -> str:
    return text.replace("\n", "\n    ")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of `values`, interpolating linearly between the closest
    ranks (numpy's default method); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# ------------------------------------------------------------------- defaults from configs
def _configs_dirs() -> list[Path]:
    return list(dict.fromkeys([Path.cwd() / "configs", REPO_CONFIGS]))


def check_boards(board_set: str = "competition",
                 boards_file: str | os.PathLike[str] | None = None) -> list[Board]:
    """The boards of a check: the smallest and the largest (by M*N) of a board set in
    boards.yaml, and 6x7x4; without duplicates, smallest first."""
    if boards_file is not None:
        candidates = [Path(boards_file)]
        if not candidates[0].is_file():
            raise UsageError(f"{boards_file}: no such boards file")
    else:
        candidates = [d / BOARDS_FILE for d in _configs_dirs() if (d / BOARDS_FILE).is_file()]
        if not candidates:
            raise UsageError(f"no configs/{BOARDS_FILE} here or in the arena's repository; "
                             f"pass --boards FILE")
    sets = load_boards(candidates[0])
    if board_set not in sets:
        known = ", ".join(str(k) for k in sets)
        raise UsageError(f"{candidates[0]}: no board set {board_set!r} (known: {known})")
    boards = checked_board_set(candidates[0], sets, board_set)
    smallest = min(boards, key=lambda b: (b[0] * b[1], b))
    largest = max(boards, key=lambda b: (b[0] * b[1], b))
    chosen = list(dict.fromkeys([smallest, STANDARD_BOARD, largest]))
    return sorted(chosen, key=lambda b: (b[0] * b[1], b))


def default_settings() -> dict[str, Any]:
    """The limits of the project's tournament config, `TOURNAMENT_CONFIG` (timeout_s, grace_s,
    startup_timeout_s, memory_limit_mb), read by the tournament's own rules (`load_limits`),
    when that file exists and names a time limit; the check's defaults otherwise. The same
    from every folder: the config of the checkout this arena runs from, never the current
    folder's. The config's players are not loaded (a broken bot in it must not stop another
    bot's check)."""
    path = TOURNAMENT_CONFIG
    limits = make_limits(DEFAULT_TIMEOUT_S)
    source = f"default {DEFAULT_TIMEOUT_S:g} s"
    if path.is_file():
        try:
            limits = load_limits(path)
            source = f"from {path}"
        except UsageError as e:
            if "missing key 'timeout_s'" not in str(e):
                raise UsageError(f"{e}; fix it or pass --time and --memory-mb") from None
    return {**limits.to_dict(), "source": source}


# ---------------------------------------------------------------------------- the check
def course_games(boards: Sequence[Board]) -> list[Game]:
    """The course's game (Connect-X, protocol version 1) on each board; UsageError naming a
    board its rules refuse."""
    games = []
    for M, N, K in boards:
        try:
            games.append(course_game(M, N, K))
        except ValueError as e:
            raise UsageError(f"board {M}x{N}x{K} is not a valid board: {e}") from None
    return games


def run_check(spec: str | BotSpec, *, games: Sequence[Game] | None = None,
              boards: Sequence[Board] | None = None,
              timeout_s: float | None = None, quick: bool = False,
              max_moves: int | None = None, seed: int = 1,
              progress: Callable[[CheckGame], None] | None = None,
              memory_mb: int | None = None,
              isolation: str = defaults.ISOLATION,
              max_tasks: int | None = None,
              on_start: Callable[[], None] | None = None,
              fresh_game: bool = False, strict_time: bool = False,
              on_move: Callable[[str], None] | None = None,
              play: PlaySettings | None = None) -> CheckReport:
    """Check one bot (see the module docstring). Raises SpecError/UsageError for a bad SPEC,
    game or setting; any fault of the bot ends up in the report instead.

    games: the games to play, each once with the bot first and once second (default: the
    course's game on `boards`); boards: Connect-X boards for `games` (default:
    `check_boards()`); timeout_s: the per-move limit (default: `default_settings()`); quick: cap
    big games at QUICK_MAX_MOVES plies instead of MAX_MOVES; max_moves: the cap itself;
    progress: called after each game; memory_mb: the memory limit per bot process in MiB, 0 for
    none (default: `default_settings()`); max_tasks: the task cap where cgroups count tasks, 0
    for none (default: `default_settings()`); on_start: called once every setting and the SPEC
    are found good, before the first game (a usage error comes alone, before anything
    `on_start` prints); fresh_game: after the games in one process (in `play_order`), play the
    cheapest game once more in a process of its own (`cxarena check-bot` does); strict_time:
    fail an answer over FAIL_FRACTION of the limit (default: only one that leaves less margin
    than a game on this machine needs, `_Margin`); on_move: called after each move of a game
    with a line saying where the check is (for a progress line at long limits); play: the
    settings of play whose limits and cgroups the check plays under (a league's: every limit of
    its league.yaml), in place of `timeout_s`, `memory_mb` and `max_tasks`.

    At long limits every game stops after `long_limit_cap` plies (as a draw), unless
    `max_moves` is given, so that the check ends in a few minutes; the report says so.
    """
    bot = spec if isinstance(spec, BotSpec) else parse_spec(spec)
    opponent = parse_spec(OPPONENT_SPEC)
    settings = default_settings()
    if play is not None:
        settings.update(play.limits("check").to_dict(), max_tasks=play.max_tasks,
                        cgroups=play.cgroups, source="given")
    if timeout_s is not None:
        if not timeout_s > 0 or not math.isfinite(timeout_s):
            raise UsageError(f"the time limit must be a positive number of seconds, "
                             f"got {timeout_s!r}")
        settings["timeout_s"] = float(timeout_s)
        settings["source"] = "given"
    limit_s = float(settings["timeout_s"])
    problem = time_limit_problem(bot, limit_s)  # Java bots: whole seconds
    if problem:
        raise UsageError(f"{problem} (pass --time)")
    cap = max_moves if max_moves is not None else (QUICK_MAX_MOVES if quick else MAX_MOVES)
    if cap < 2:
        raise UsageError(f"max_moves must be at least 2, got {cap}")
    if games is not None and boards is not None:
        raise UsageError("give the check games or Connect-X boards, not both")
    chosen = list(games) if games is not None else course_games(
        boards if boards is not None else check_boards())
    if not chosen:
        raise UsageError("the check needs at least one game")
    started_s = time.perf_counter()

    _set_caps(settings, memory_mb, max_tasks)
    refuse_unseen_programs([bot], resolve(isolation).isolated)
    _refuse_bad_class(bot, float(settings["startup_timeout_s"]), chosen)
    checked = PlaySettings.model_construct(
        timeout_s=limit_s, grace_s=settings["grace_s"],
        startup_timeout_s=settings["startup_timeout_s"],
        memory_limit_mb=settings["memory_limit_mb"],
        max_tasks=settings.get("max_tasks", defaults.MAX_TASKS),
        cgroups=settings.get("cgroups", defaults.CGROUPS), isolation=Isolation(isolation))
    match_settings = referee_settings(
        checked, "check-bot",
        fresh_process=False)  # the first game starts the bot; later games reuse its process
    plays = [(index, game, bot_first, False) for index, game in enumerate(play_order(chosen))
             for bot_first in (True, False)]
    # then the cheapest game once more, in a process of its own: a bot whose first game is
    # that one (a tournament worker's first, `fresh_process: true`) plays it there
    if fresh_game:
        plays.append((len(chosen), plays[-1][1], True, True))
    every_game_cap = (long_limit_cap(limit_s, len(plays), quick)
                      if max_moves is None else None)
    played: list[CheckGame] = []
    startup_s: float | None = None
    startup_error = ""
    if on_start is not None:
        on_start()
    shown = tuple(bot_paths(bot)) if resolve(isolation).isolated else ()
    with Referee(match_settings) as reused, Referee(
            dataclasses.replace(match_settings, fresh_process=True)) as fresh_referee:
        for index, game, bot_first, fresh in plays:
            p1, p2 = (bot, opponent) if bot_first else (opponent, bot)
            game_start_s = time.perf_counter()
            referee = fresh_referee if fresh else reused
            rec = referee.run(GameRequest(
                p1, p2, game, seed=seed + 2 * index + (not bot_first),
                max_moves=_game_cap(game, cap, every_game_cap),
                on_move=_move_teller(on_move, game, bot_first, len(played) + 1, len(plays))))
            check_game = CheckGame(game, bot_first, rec, time.perf_counter() - game_start_s,
                                   fresh=fresh)
            if not played:  # the first game started the bot's process
                startup_s = check_game.startup_s
                if check_game.failed_to_start:  # every game would fail the same way: stop
                    startup_error = _startup_error(
                        check_game, match_settings.limits.startup_timeout_s, shown)
                    break
            played.append(check_game)
            if progress is not None:
                progress(check_game)
    return _judge(bot.text, limit_s, startup_s, startup_error,
                  float(settings["startup_timeout_s"]), played, settings["source"],
                  time.perf_counter() - started_s, cap, shown=shown, kind=bot.kind,
                  grace_s=float(settings["grace_s"]), strict=strict_time,
                  every_game_cap=every_game_cap)


#: at long limits the check's bot moves, in all, take about this long at most (the limit per
#: move): `long_limit_cap` caps every game so that a check at 10 s ends in a few minutes
LONG_CHECK_BUDGET_S = 240.0
#: but every game has at least this many plies
MIN_LONG_PLIES = 6


def long_limit_cap(limit_s: float, n_games: int, quick: bool = False) -> int | None:
    """The plies after which every game of a check of `n_games` games stops at a per-move limit
    of `limit_s`, when the usual caps would let the bot's moves take longer than
    LONG_CHECK_BUDGET_S in all (None: no such cap, as at 1 s)."""
    usual = QUICK_MAX_MOVES if quick else MAX_MOVES
    own_moves = int(LONG_CHECK_BUDGET_S / (limit_s * max(n_games, 1)))
    plies = max(MIN_LONG_PLIES, 2 * own_moves)
    return plies if plies < usual else None


def _game_cap(game: Game, cap: int, every_game_cap: int | None) -> int | None:
    caps = [c for c in (cap if game.cost() > BIG_GAME_COST else None, every_game_cap)
            if c is not None]
    return min(caps) if caps else None


def _move_teller(on_move: Callable[[str], None] | None, game: Game, bot_first: bool,
                 number: int, total: int) -> Callable[[int, str, float], None] | None:
    """The referee's on_move for one game of the check: `on_move` told where the check is."""
    if on_move is None:
        return None
    colour = "first" if bot_first else "second"
    where = f"game {number}/{total} ({record_label(game)}, bot {colour})"
    plies = [0]

    def told(player: int, text: str, elapsed_ms: float) -> None:
        plies[0] += 1
        on_move(f"{where}: {plies[0]} move{'' if plies[0] == 1 else 's'} played")

    return told


def play_order(games: Sequence[Game]) -> list[Game]:
    """The check's games in the order a tournament plays them: dearest first (`Game.cost()`,
    as `arena.tournament.schedule` sorts a schedule), equal costs in the order given."""
    return sorted(games, key=lambda g: -g.cost())


def _set_caps(settings: dict[str, Any], memory_mb: int | None, max_tasks: int | None) -> None:
    """The memory limit and task cap given to `run_check` (None: the settings' own)."""
    if memory_mb is not None:
        if memory_mb != 0 and memory_mb < defaults.MIN_MEMORY_MB:
            raise UsageError(f"the memory limit must be 0 (no limit) or at least "
                             f"{defaults.MIN_MEMORY_MB} MiB, got {memory_mb}")
        settings["memory_limit_mb"] = memory_mb or None
    if max_tasks is not None:
        if max_tasks != 0 and max_tasks < defaults.MIN_TASKS:
            raise UsageError(f"the task cap must be 0 (no cap) or at least "
                             f"{defaults.MIN_TASKS}, got {max_tasks}")
        settings["max_tasks"] = max_tasks or None


def _refuse_bad_class(bot: BotSpec, timeout_s: float, games: Sequence[Game]) -> None:
    """A SpecError, in the SPEC's own words, when a Python bot's SPEC names no usable class
    for `games` (no such class, none or several in the file, a class of another kind or of
    another game): loaded as the host loads it for each game's protocol version, in a probe
    process (`arena.entrants.probe`), never in this one. A fault of the bot's code (its import
    raises, it hangs) is left to the games, whose report shows its traceback."""
    if not bot.is_python:
        return
    # a game of its own dialect (Connect-X) plays the course's API, any other the GamePlayer's
    kinds = dict.fromkeys(g.name if version_of(g) == PROTOCOL_V2 else None for g in games)
    for kind in kinds:
        probe = probe_each([bot.host_target()], timeout_s, kind).get(bot.host_target())
        if probe is not None and probe.spec_error:
            raise SpecError(probe.error)  # it names the bot's file or module


def _startup_error(game: CheckGame, startup_limit_s: float, shown: Sequence[str] = ()) -> str:
    """Why the bot did not start in `game` (whose record says so), with the tail of the bot's
    stderr (e.g. the traceback of its import), and what the sandbox shows the bot when that
    tail says a module or file was not found (`shown`: the paths, empty when not sandboxed)."""
    rec = game.record
    why = rec.detail[len(FAILED_TO_START):].lstrip(" :") or rec.detail
    if rec.stderr_tail.strip():  # the referee's summary of the bot's output: the tail says it
        why = why.split("; its stdout:", 1)[0].split("; its stderr:", 1)[0]
    if game.wall_s >= startup_limit_s:  # only running out of time takes that long
        why += ". Import less at start-up or load lazily"
    tail = students_frames(rec.stderr_tail.strip())
    hint = sandbox_hint(rec.detail + "\n" + tail, shown)
    return why + ("; its stderr ends with:\n" + tail if tail else "") + (
        "\n" + hint if hint else "")


_ARENA_DIR = str(Path(__file__).resolve().parents[1])
_FRAME = re.compile(r'^\s*File "([^"]+)", line')


def students_frames(tail: str) -> str:
    """A Python traceback from its first frame outside the harness (the `arena` package and
    the import machinery): what the student wrote, without the frames that load it. Any other
    text comes back as it is."""
    lines = tail.splitlines()
    for i, line in enumerate(lines):
        m = _FRAME.match(line)
        if m and not m.group(1).startswith((_ARENA_DIR, "<frozen")):
            start = next((j for j in range(i, -1, -1)
                          if lines[j].startswith("Traceback (most recent call last)")), None)
            if start == i - 1 or (start is None and i == 0):
                return tail  # nothing of the harness before the student's first frame
            head = (lines[start] if start is not None  # a tail cut before its header: say so
                    else "Traceback (most recent call last; the harness's frames left out):")
            return "\n".join([head] + lines[i:])
    return tail


#: a fault that a board size kept from an earlier game explains
_OUT_OF_RANGE = re.compile(r"out of range|IndexError")
#: what a bot's traceback says when a module or file it needs is not there
_NOT_FOUND = re.compile(r"ModuleNotFoundError|ImportError|FileNotFoundError|"
                        r"No such file or directory")
_NOT_FOUND_MODULE = re.compile(r"ModuleNotFoundError|ImportError")
#: the file a FileNotFoundError names (absolute: a relative one depends on the bot's cwd)
_OPENED = re.compile(r"No such file or directory: '(/[^'\n]{1,4096})'")


def sandbox_hint(text: str, shown: Sequence[str]) -> str:
    """When `text` (a bot's fault and stderr) says a module or file was not found and the bot
    ran in a sandbox that showed it only `shown` (`arena.entrants.exposure.bot_paths`): what
    the sandbox shows, and where a helper or a data file must live to be seen. Else ""."""
    if not shown or not _NOT_FOUND.search(text):
        return ""
    opened = list(dict.fromkeys(_OPENED.findall(text)))
    if opened and not _NOT_FOUND_MODULE.search(text) and not any(
            os.path.exists(p) for p in opened):
        listed = ", ".join(opened)
        return (f"missing: {listed} (no such file on this machine, with or without the "
                f"sandbox): the bot opens it; put it there, beside the bot, and run again")
    cwd = Path.cwd()

    def name(p: str) -> str:
        path = Path(p)
        text = str(path.relative_to(cwd)) if path.is_relative_to(cwd) else p
        return text + ("/" if path.is_dir() else "")

    listed = ", ".join(name(p) for p in shown if not p.endswith(".pyc"))
    return ("the sandbox shows the bot only the system, Python and: " + listed + ". "
            "A module or file elsewhere is not found in the sandbox even where it loads with "
            "--isolation none: put code shared by bots in a helper of players/_* "
            "(players/_NAME.py or players/_NAME/), and a data file beside the bot, named after "
            "it (players/BOT_book.txt) or in its folder players/BOT/")


@dataclass
class _Verdict:
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _judge_startup(v: _Verdict, startup_s: float | None, startup_error: str,
                   startup_limit_s: float) -> None:
    """What the check says of the bot's start-up."""
    if startup_error:
        v.failures.append(f"start-up: the bot did not start (start-up limit "
                          f"{startup_limit_s:g} s): {startup_error}")
    elif startup_s is None:
        v.notes.append("start-up: not measured (the first game did not start the bot)")
    else:
        v.notes.append(f"start-up (process start to 'ready'): {startup_s:.2f} s "
                       f"(limit {startup_limit_s:g} s)")
        if startup_s > STARTUP_FAIL_FRACTION * startup_limit_s:
            v.failures.append(f"slow start-up: {startup_s:.1f} s, over "
                              f"{STARTUP_FAIL_FRACTION:.0%} of the {startup_limit_s:g} s "
                              f"start-up limit; on a loaded machine it may not start at all. "
                              f"Import less at start-up or load lazily.")
        elif startup_s > SLOW_STARTUP_S:
            v.warnings.append(f"slow start-up: {startup_s:.1f} s (limit {startup_limit_s:g} s)")


def _judge_faults(v: _Verdict, games: list[CheckGame], shown: Sequence[str] = (),
                  kind: Kind = Kind.PYTHON) -> None:
    """The bot's faults in words, one entry per kind of fault (with its games)."""
    groups: dict[tuple[str, str, str], list[CheckGame]] = {}
    for g in games:
        v.notes.append("game " + g.describe())
        r = g.record
        if not r.is_fault:
            continue
        if r.offender != g.side:
            v.failures.append(f"{_where(g)}: the opponent {OPPONENT} had a {r.reason.value} "
                              f"({r.detail}): the check itself is broken, not your bot")
            continue
        key = (r.reason.value, re.sub(r"[0-9]+(\.[0-9]+)?", "#", r.detail),
               r.stderr_tail.strip())
        groups.setdefault(key, []).append(g)
    for (reason, _, tail), group in groups.items():
        first = group[0].record
        games_text = "; ".join(f"{_where(g)}, move {g.record.n_moves + 1}" for g in group)
        text = (f"{_REASON_WORDS[reason]} in {len(group)} game(s) ({games_text}): "
                f"{first.detail}")
        if reason == Reason.TIMEOUT.value and first.detail.startswith(_INIT_CALLS):
            once = ("in a static initializer (it runs as the class loads" if kind is Kind.JAVA
                    else "at import (at module level")
            text += (f". {first.detail.split(':', 1)[0]} counts against the move limit: build "
                     f"what takes long once, {once}, outside every game clock, under the "
                     f"start-up limit that check-bot measures), or a part at a time in the "
                     f"first moves")
        elif reason == Reason.TIMEOUT.value:
            text += ". Answer well inside the limit: " + _TIME_ADVICE[kind]
        if tail:
            text += "\nthe bot's stderr ends with:\n" + tail
        hint = sandbox_hint(first.detail + "\n" + tail, shown)
        if hint:
            text += "\n" + hint
        if (reason != Reason.TIMEOUT.value and _OUT_OF_RANGE.search(first.detail + tail)
                and any(g.startup_s is None for g in group)):
            text += ("\nThe bot's process had played other boards before this game, as in a "
                     "tournament: compute what depends on the board (M, N, K: a column order, "
                     "tables) in initPlayer for every game, not once per process (a class "
                     "attribute, a module global)")
        v.failures.append(text)


def _judge(spec_text: str, limit_s: float, startup_s: float | None, startup_error: str,
           startup_limit_s: float, games: list[CheckGame], limit_source: str, wall_s: float,
           cap: int, shown: Sequence[str] = (), kind: Kind = Kind.PYTHON, *,
           grace_s: float = defaults.GRACE_S, strict: bool = False,
           every_game_cap: int | None = None) -> CheckReport:
    v = _Verdict()
    margin = _Margin(limit_s * 1000.0, grace_s * 1000.0, _overhead_ms(games), strict)
    init_call, name_call = _calls(games)
    v.notes.append(f"time limit: {limit_s:g} s ({limit_source})")
    _judge_startup(v, startup_s, startup_error, startup_limit_s)
    _judge_faults(v, games, shown, kind)
    # --- move times
    limit_ms = limit_s * 1000.0
    times = [t for g in games for t in g.bot_times_ms]
    inits = [g.record.init_ms[g.side - 1] for g in games
             if g.record.init_ms[g.side - 1] > 0]
    if times:
        worst = max(times) / limit_ms
        p99 = percentile(times, 99) / limit_ms
        v.notes.append(f"move times: {len(times)} moves, max {max(times):.0f} ms = "
                       f"{worst:.0%} of the limit, 99th percentile {p99:.0%}, "
                       f"median {percentile(times, 50):.0f} ms")
        slowest = _slowest_per_board(games, lambda g: g.bot_times_ms)
        v.notes.append("slowest move per board: " + ", ".join(
            f"{label} {ms:.0f} ms ({ms / limit_ms:.0%})" for label, ms in slowest.items()))
        _judge_margin(v, "the slowest move", slowest, margin, kind)
    if inits:
        worst_init = max(inits) / limit_ms
        v.notes.append(f"{init_call}: max {max(inits):.0f} ms = {worst_init:.0%} of the limit")
        _judge_margin(v, init_call, _slowest_per_board(
            games, lambda g: [g.record.init_ms[g.side - 1]]), margin, kind)
    # --- the bot's name
    # the games whose newgame the bot answered, even if its first move failed: a bad name is
    # reported with the bot's other problems, not only once they are fixed
    names = [g.bot_name for g in games
             if g.bot_times_ms or g.bot_name or g.record.init_ms[g.side - 1] > 0]
    name_problem = _name_problem(names, name_call)
    if name_problem:
        v.failures.append(name_problem)
    elif names:
        v.notes.append(f"{name_call}: {names[0]!r}")
    capped = list(dict.fromkeys(record_label(g.game) for g in games if g.capped))
    if every_game_cap is not None:
        v.notes.append(f"at a {limit_s:g} s limit every game stops after {every_game_cap} "
                       f"moves ({every_game_cap // 2} of the bot's), as a draw, so that the "
                       f"check ends in a few minutes (--max-moves N changes it)")
    elif capped:
        v.notes.append(f"games on {', '.join(capped)} (big boards, more than {BIG_GAME_COST} "
                       f"cells) stop after {cap} moves, as draws (--max-moves N changes it)")
    lost = sum(1 for g in games if not g.record.is_fault and g.record.winner not in
               (None, g.side))  # lost by the rules
    if lost:
        v.warnings.append(f"lost {lost} of {len(games)} games to {OPPONENT}, a random "
                          f"player (not a conformance problem, but a weak strategy)")
    v.notes.append(load_account([g.record for g in games], limit_s).text())
    v.notes.append(f"total: {len(games)} games in {wall_s:.1f} s")
    return CheckReport(spec_text, limit_s, startup_s, startup_error, tuple(games),
                       tuple(v.failures), tuple(v.warnings), tuple(v.notes), wall_s)


def _slowest_per_board(games: Sequence[CheckGame],
                       times: Callable[[CheckGame], Sequence[float]]) -> dict[str, float]:
    """The slowest of `times` (ms) on each game's board, in the order the games were played."""
    out: dict[str, float] = {}
    for g in games:
        ts = [t for t in times(g) if t > 0]
        if ts:
            label = record_label(g.game)
            out[label] = max(out.get(label, 0.0), max(ts))
    return out


@dataclass(frozen=True)
class _Margin:
    """The rule an answer's time is judged by (`_judge_margin`)."""

    limit_ms: float
    grace_ms: float
    overhead_ms: float  # the machine's measured overhead (the opponent's slowest answer)
    strict: bool  # the 90 % rule

    @property
    def needed_ms(self) -> float:
        """The margin an answer must leave before the point a game charges a timeout."""
        return max(MIN_MARGIN_MS, JITTER_FACTOR * self.overhead_ms)

    def fails(self, ms: float) -> bool:
        if self.strict:
            return ms > FAIL_FRACTION * self.limit_ms
        return self.limit_ms + self.grace_ms - ms < self.needed_ms


def _overhead_ms(games: Sequence[CheckGame]) -> float:
    """The opponent's slowest answer in `games` (an instant bot: what the machine adds)."""
    return max((t for g in games for t in g.record.played_times_ms[2 - g.side] if t > 0),
               default=0.0)


def _judge_margin(v: _Verdict, what: str, slowest: dict[str, float], rule: _Margin,
                  kind: Kind) -> None:
    """A failure when `what` took so long on some board that a game would charge a timeout
    (`_Margin.fails`; the strict rule: over FAIL_FRACTION of the limit), else a warning above
    WARN_FRACTION; either names the boards with their figures."""
    limit_ms = rule.limit_ms
    over = {b: ms for b, ms in slowest.items() if rule.fails(ms)}
    close = {b: ms for b, ms in slowest.items() if ms > WARN_FRACTION * limit_ms}
    figures = ", ".join(f"{b} {ms:.0f} ms = {ms / limit_ms:.0%}"
                        for b, ms in (over or close).items())
    advice = _TIME_ADVICE[kind][:1].upper() + _TIME_ADVICE[kind][1:]
    if over and rule.strict:
        v.failures.append(f"{what} took over {FAIL_FRACTION:.0%} of the time limit "
                          f"({figures}; the strict rule, --strict-time): on a busy tournament "
                          f"machine it will time out. " + advice)
    elif over:
        charge_ms = limit_ms + rule.grace_ms
        v.failures.append(f"{what} left less than {rule.needed_ms:.0f} ms before a game "
                          f"charges a timeout (at {charge_ms:.0f} ms, the limit plus its "
                          f"grace; {figures}): this machine's answers vary by up to "
                          f"{rule.overhead_ms:.1f} ms (the opponent's slowest), so a game "
                          f"would charge one. " + advice)
    elif close:
        v.warnings.append(f"{what} took over {WARN_FRACTION:.0%} of the time limit "
                          f"({figures}): little margin for a busy tournament machine; "
                          + _TIME_ADVICE[kind])


#: how a record's detail names a late preparing call (Connect-X's, the GamePlayer's)
_INIT_CALLS = ("initPlayer", "init_player")

_REASON_WORDS = {Reason.ILLEGAL.value: "illegal move", Reason.TIMEOUT.value: "timeout",
                 Reason.CRASH.value: "crash"}


def _where(g: CheckGame) -> str:
    return f"{record_label(g.game)} bot {'first' if g.bot_first else 'second'}"


def _calls(games: Sequence[CheckGame]) -> tuple[str, str]:
    """How the bot API of the games' first names its preparing call and its name call, for the
    report: the course's ``initPlayer``, ``playerName()``; the GamePlayer's ``init_player``,
    ``player_name()`` (`Game.CALLS`; the name call in the same style)."""
    init = games[0].game.CALLS[0] if games else "initPlayer"
    return init, ("player_name()" if "_" in init else "playerName()")


def _name_problem(names: list[str], call: str = "playerName()") -> str | None:
    """Why the bot's name (as `call` gave it) is not usable, or None."""
    if not names:
        return None  # the bot never got that far: its crash is reported already
    distinct = list(dict.fromkeys(names))
    name = distinct[0]
    if not name.strip():
        return (f"{call} gave an empty name (or raised: see the bot's log); return a "
                "short non-empty string")
    if not name.isprintable():
        return f"{call} {name!r} contains unprintable characters"
    if len(name) > MAX_NAME_CHARS:
        return (f"{call} is {len(name)} characters long; keep it at most "
                f"{MAX_NAME_CHARS} so it fits in the standings")
    if len(distinct) > 1:
        return f"{call} changes from game to game: {', '.join(map(repr, distinct))}"
    return None
