"""The final official round robin over the frozen entries: a tournament built in Python from
the league's settings (`final_tournament`), run as its own process, with its report linked from
the league.

`start_final(league, results_root)` keeps the entries in the league and starts ``python -m arena
league final DIR --results RESULTS_ROOT/final --quiet`` in a new session, its output in
``DIR/final/log.txt``, its pid in ``DIR/final/state.json``. That process builds the same
tournament (every user's entry, named by the user, and the reference bots; the boards of
``final_board_set``; ``final_pairs`` rounds; the league's time limit, openings, seed and
isolation), loads each entry through the door (one that fails loses its games, `with_broken`)
and runs it as `cxarena tournament` does: every game stored as it finishes, ``report.html`` at
the end. No config file is written and read back. Starting it again after the server (or the
final) was killed resumes it from its results folder. `final_status` says whether it is not
started, running (games stored so far), finished (with the report) or stopped without a report
(the log's last lines).

The deadline is a cut (`League.cut_at`; a student's extension is their own cut, `League.cut_of`):
the entries are each student's chosen version, else their latest that passed its check, uploaded
before their cut (`arena.league.entries`), and the final is not started while an extension runs
or a version uploaded before its author's cut is still queued or being checked (`waiting_text`).
The entries are kept in the league when the final starts (`started_entries`); resuming it
plays the same entries.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from arena.competition.cores import usable_cores
from arena.competition.progress import (
    Progress,
    key_and_prior,
    measured_s,
    record_key_and_prior,
    thinking_s,
)
from arena.entrants.probe import check_loadable
from arena.entrants.specs import parse_spec
from arena.errors import UsageError
from arena.games import Game
from arena.league.checks import materialise, spec_in
from arena.league.db import League, LeagueError, LeagueGames, format_time
from arena.league.entries import league_entries
from arena.league.final_length import (
    DASK_WORKERS,
    GameMoves,
    bot_startups_s,
    dask_commands,
    game_think_s,
    makespan_s,
    measured_games,
    price_boards,
    wall_times_s,
    worst_wall_s,
)
from arena.league.standings import reference_names
from arena.records import GameRecord, board_key
from arena.referee import door
from arena.results import REPORT_HTML
from arena.results.standings import TieBreak
from arena.results.store import DB_FILE, ResultStore, count_games
from arena.tournament.config import PlayerEntry, TournamentConfig, built_config

__all__ = ["FINAL_NAME", "BoardEstimate", "FinalPlan", "FinalStatus", "Shortening", "entries",
           "final_at_deadline", "final_config", "final_player_keys", "final_player_specs",
           "final_players", "final_results", "final_status", "final_time_left",
           "final_tournament", "plan_final", "scheduler_unreachable", "start_final",
           "started_entries", "waiting_text",
           "with_broken"]

#: the final's name: its results folder (RESULTS_ROOT/final) and its tournament's
FINAL_NAME = "final"


@dataclass(frozen=True)
class BoardEstimate:
    """One board of the final in its plan: its games, the expected seconds of each, and the
    measured games (rating, calibration) that expectation rests on."""

    board: str
    games: int
    each_s: float
    rating_games: int = 0
    calibration_games: int = 0
    #: the moves a game there takes (measured, or modelled from the board's size up to
    #: `moves_high`), and the worst case of one game: every cell a move at the limit + grace
    moves: float = 0.0
    moves_high: float = 0.0
    cells: int = 0
    worst_s: float = 0.0

    @property
    def measured(self) -> bool:
        return self.rating_games + self.calibration_games > 0

    def source(self, any_measured: bool) -> str:
        """Where its expectation comes from, in words."""
        if self.measured:
            parts = [f"{n} {what} game{'s' if n != 1 else ''}" for n, what in
                     ((self.rating_games, "rating"), (self.calibration_games, "calibration"))
                     if n]
            return "measured (" + ", ".join(parts) + ")"
        return (f"modelled: moves from the board's size (up to {self.moves_high:.0f} of "
                f"{self.cells}), the players' time per move" if any_measured
                else "upper bound (every move its full time)")


@dataclass(frozen=True)
class Shortening:
    """A way to shorten the final, and the plan it leads to on this machine's workers."""

    change: str
    games: int
    duration_s: float


@dataclass(frozen=True)
class FinalPlan:
    """What the final round robin will take, before it starts (`league final --dry-run`, the
    admin page)."""

    players: int  # entries and reference bots
    boards: int
    games: int
    workers: int  # games played at once (the tournament's default: one per usable core)
    duration_s: float  # the estimate, wall time
    measured_games: int  # rating games whose measured durations the estimate rests on
    #: True: an estimate from measured games; False: the upper bound (every move its full time)
    measured: bool
    calibration_games: int = 0  # calibration games on the final's boards it also rests on
    board_estimates: tuple[BoardEstimate, ...] = ()
    #: (Dask workers, wall time) for `DASK_WORKERS`
    dask_s: tuple[tuple[int, float], ...] = ()
    shorter: tuple[Shortening, ...] = ()
    commands: tuple[str, ...] = ()  # the Dask route (`dask_commands`)
    final_pairs: int = 1
    #: what each worker spends starting the final's bots (once each, then kept), measured
    start_s: float = 0.0
    league_dir: str = ""  # the league's folder, absolute
    #: the worst case on `workers`: every game's every cell a move at the limit + grace, each
    #: bot's start-up its full limit (`final_length.worst_wall_s`); no final takes longer
    worst_s: float = 0.0

    @property
    def extrapolated(self) -> tuple[str, ...]:
        """The final's boards without a measured game."""
        return tuple(b.board for b in self.board_estimates if not b.measured)

    def wall_times(self) -> tuple[tuple[str, int, str], ...]:
        """(where, workers, wall time in words): this machine's, then each of `dask_s`."""
        return ((("this machine", self.workers, _hours(self.duration_s)),)
                + tuple(("Dask", n, _hours(s)) for n, s in self.dask_s))

    def worst_text(self) -> str:
        """The worst case on this machine's workers, in words."""
        return _hours(self.worst_s)

    def summary(self) -> str:
        """The plan's first line: its size and length on this machine."""
        kinds = [f"{n} {what}" for n, what in ((self.measured_games, "measured rating games"),
                                               (self.calibration_games, "calibration games"))
                 if n]
        how = (f"estimated from {' and '.join(kinds)}" if self.measured
               else "at most (no game measured yet: every move of every game taking its full "
                    "time)")
        return (f"The final round robin: {self.players} players, {self.boards} boards, "
                f"{self.games} games on {self.workers} worker(s): {_hours(self.duration_s)}, "
                f"{how}.")

    def shorten_text(self) -> str:
        """How to shorten it, each way with its estimate."""
        ways = [f"{s.change}: {s.games} games, {_hours(s.duration_s)}" for s in self.shorter]
        if self.final_pairs == 1:
            ways.append("fewer pairs: final_pairs is 1 already")
        return ("To shorten it: " + "; ".join(ways + [
            "a move cap on the big boards (not available yet: every game there may fill the "
            "board)",
            "or more machines (league final --scheduler tcp://HOST:8786 with Dask workers)"])
                + ".")

    def text(self) -> str:
        """The plan in words: its size and length, each board's expected game and where it
        comes from, the Dask route with its wall times, and how to shorten it."""
        any_measured = any(b.measured for b in self.board_estimates)
        width = max([5, *(len(b.board) for b in self.board_estimates)])
        lines = [self.summary()]
        if self.worst_s:
            lines.append(f"At worst (every move of every game at the limit + grace, every "
                         f"board filled): {self.worst_text()} on {self.workers} worker(s).")
        lines.append(f"  {'board':<{width}}  {'games':>6}  {'moves':>6}  {'each':>9}  "
                     f"{'worst':>9}  from")
        lines += [f"  {b.board:<{width}}  {b.games:>6}  {b.moves:>6.0f}  {_each(b.each_s):>9}  "
                  f"{_each(b.worst_s):>9}  {b.source(any_measured)}"
                  for b in self.board_estimates]
        if self.extrapolated:
            lines.append(f"  Not measured: {', '.join(self.extrapolated)}; `cxarena league "
                         f"final {self.league_dir or 'DIR'} --dry-run --measure` plays a few "
                         f"games there first.")
        if self.dask_s:
            lines.append("On Dask workers (one core each, as fast as this machine's): "
                         + ", ".join(f"{n} workers {_hours(s)}" for n, s in self.dask_s)
                         + ". Start them (docs/scaling.md), then the final on them:")
            lines += [f"  {c}" for c in self.commands]
        lines.append(self.shorten_text())
        return "\n".join(lines)


def _each(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else _hours(seconds)


def _hours(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _key_and_prior(game: Game, timeout_s: float) -> tuple[str, float]:
    """The cost model's board key and prior of one game of the final (any game)."""
    return key_and_prior(game.name, dict(game.params), 0, 0, 0, timeout_s)


def plan_final(league: League, workers: int | None = None,
               dask_workers: Sequence[int] = DASK_WORKERS) -> FinalPlan:
    """The final's size and its duration, estimated from the measured durations of the
    league's own rating games and of its calibration games on the final's boards
    (`final_length.measured_games`), per board, refined over board sizes for the boards none
    was played on (`arena.competition.progress`), for the entries and reference bots as they are
    now; its wall time on `workers` (default the tournament's: one per usable core) and on
    each of `dask_workers`; and how to shorten it, each way with its estimate."""
    cfg = league.config
    keys = final_player_keys(league)
    players = len(keys)
    boards = cfg.final_games()
    per_board = players * (players - 1) // 2 * 2 * cfg.file.final_pairs
    final = [_key_and_prior(game, cfg.timeout_s) for game in boards]
    # each measured game (rating, then calibration): its board, the two sides' keys and
    # thinking, its duration without its bots' start-up (a worker of the final starts each bot
    # once and keeps it: the start-ups are counted once per player and worker, `start_s`)
    games: list[tuple[str, float, tuple[str, str], tuple[float, float], float]] = []
    moves: list[GameMoves] = []  # the same games, move by move (`final_length.price_boards`)
    rating: Counter[str] = Counter()
    started, booted_s = 0, 0.0  # bots started in the measured games, and the wall time it took
    for side1, side2, rec in _rating_games(league):
        if rec.timeout_s not in (None, cfg.timeout_s):
            continue
        key, prior = record_key_and_prior(rec, cfg.timeout_s)
        seconds = measured_s(rec)
        # the seats start at once: a game waits for the slowest
        boots = bot_startups_s(rec.extra)
        started, booted_s = started + len(boots), booted_s + max(boots, default=0.0)
        rating[key] += seconds is not None
        p1, p2 = rec.played_times_ms
        games.append((key, prior, (side1, side2),
                      ((sum(p1) + rec.init_ms[0]) / 1000, (sum(p2) + rec.init_ms[1]) / 1000),
                      0.0 if seconds is None else _without(seconds, max(boots, default=0.0),
                                                           thinking_s(rec))))
        if seconds is not None:
            moves.append(GameMoves(key, _cells(prior, cfg.timeout_s), (side1, side2),
                                   (len(p1), len(p2)), (sum(p1) / 1000, sum(p2) / 1000),
                                   games[-1][4] - (sum(p1) + sum(p2)) / 1000))
    calibrated: Counter[str] = Counter()
    for m in measured_games(league.dir):
        if m.timeout_s != cfg.timeout_s:
            continue
        key, prior = key_and_prior(m.game, dict(m.params), m.M, m.N, m.K, cfg.timeout_s)
        calibrated[key] += m.duration_s > 0
        started, booted_s = started + m.started, booted_s + m.startup_s
        games.append((key, prior, (m.key1, m.key2), (m.think1_s, m.think2_s),
                      _without(m.duration_s, m.startup_s, m.think_s)))
        if m.duration_s > 0 and m.moves1 + m.moves2 > 0:
            moved_s = m.think_s - m.init_s
            moves.append(GameMoves(key, _cells(prior, cfg.timeout_s), (m.key1, m.key2),
                                   (m.moves1, m.moves2), (m.move1_s, m.move2_s),
                                   games[-1][4] - moved_s))
    start_s = players * booted_s / started if started else 0.0
    # the boards none was measured on: the cost model's fit over board sizes
    plan = Progress.plan([kp for kp in final for _ in range(per_board)]
                         + [(key, prior) for key, prior, *_ in games])
    for key, _, _, thinks, seconds in games:
        plan = plan.finish(key, seconds or None, this_run=False, think_s=sum(thinks))
    measured = any(b.measured for b in plan.boards.values())
    # the measured boards: their own games' overhead, and the thinking of the final's players
    # (each as long as it was measured thinking, `game_think_s`)
    timed = [g for g in games if g[4] > 0]
    think = game_think_s(((key, side, t) for key, _, sides, thinks, _ in timed
                          for side, t in zip(sides, thinks, strict=True)), keys)
    overhead = {key: sum(s - sum(t) for k, _, _, t, s in timed if k == key)
                / sum(1 for k, *_ in timed if k == key) for key in think}
    count = Counter(key for key, _ in final)
    # the boards none was measured on: priced per move (`final_length.price_boards`); the
    # worst case of every board
    limits = cfg.limits()
    prices = price_boards([(key, _cells(prior, cfg.timeout_s)) for key, prior in final],
                          moves, keys, cfg.timeout_s, limits.deadline_s)
    estimates = tuple(
        BoardEstimate(key, count[key] * per_board,
                      min(prices[key].worst_s,
                          (max(0.0, overhead[key]) + think[key] if key in think
                           else prices[key].each_s) if measured else prior),
                      rating[key], calibrated[key], prices[key].moves, prices[key].moves_high,
                      prices[key].cells, prices[key].worst_s)
        for key, prior in dict(final).items())
    workers = workers or usable_cores()
    groups = [(b.each_s, b.games) for b in estimates]
    worst = worst_wall_s([(b.worst_s, b.games) for b in estimates], workers,
                         (players + 2) * limits.startup_timeout_s)
    return FinalPlan(players, len(boards), per_board * len(boards), workers,
                     makespan_s(groups, workers, start_s), sum(rating.values()), measured,
                     sum(calibrated[key] for key in count), estimates,
                     wall_times_s(groups, dask_workers, start_s) if dask_workers else (),
                     _shorter(estimates, cfg.file.final_pairs, workers, start_s),
                     dask_commands(league.dir), cfg.file.final_pairs, start_s,
                     str(league.dir.resolve()), worst)


def _cells(prior: float, timeout_s: float) -> int:
    """A board's cells (the most moves a Connect-X game there takes) from the cost model's
    prior (cells x limit, `arena.competition.progress.key_and_prior`)."""
    return max(1, round(prior / timeout_s)) if timeout_s > 0 else 1


def _rating_games(league: League) -> list[tuple[str, str, GameRecord]]:
    """(first side's key, second side's key, record) of every stored rating game, oldest
    first (the sides as the league keys them: ``sub:ID`` for a version, a reference bot's
    SPEC)."""
    return [(g.player1, g.player2, g.record) for g in LeagueGames(league).games()]


def final_player_keys(league: League) -> list[str]:
    """The final's players as the league keys them (``sub:ID`` of each entry, then the
    reference bots' SPECs), in the order of `final_player_specs`."""
    return ([f"sub:{sid}" for _, sid in entries(league)]
            + list(league.config.reference_bots))


def _without(duration_s: float, startup_s: float, think_s: float) -> float:
    """A measured game's duration without its bots' start-up (never less than their
    thinking)."""
    return max(duration_s - startup_s, think_s, 1e-3) if duration_s > 0 else 0.0


#: the adaptive final's share of the full round robin's games in the plan's levers: the budget
#: at which `bench final_adaptive` reproduced the full order (docs/benchmarks.md)
ADAPTIVE_SHARE = 0.25


def _shorter(estimates: Sequence[BoardEstimate], final_pairs: int, workers: int,
             start_s: float) -> tuple[Shortening, ...]:
    """Fewer pairs (final_pairs: 1) when there are more, and fewer boards: without the
    costliest ones, as many as halve the estimate (at least one board is kept)."""
    groups = [(b.each_s, b.games) for b in estimates]
    now_s = makespan_s(groups, workers, start_s)
    out = []
    if final_pairs > 1:
        fewer = [(each, games // final_pairs) for each, games in groups]
        out.append(Shortening(f"final_pairs: 1 (now {final_pairs})",
                              sum(g for _, g in fewer), makespan_s(fewer, workers, start_s)))
    if not any(b.games for b in estimates):
        return tuple(out)
    # a bot that thinks a share of its time thinks half as long at half the limit
    half = [(each / 2, games) for each, games in groups]
    out.append(Shortening("half the time limit (timeout_s; for bots that think a share of "
                          "it)", sum(g for _, g in half), makespan_s(half, workers, start_s)))
    adaptive = [(each, max(1, round(games * ADAPTIVE_SHARE))) for each, games in groups]
    out.append(Shortening(f"an adaptive final at {100 * ADAPTIVE_SHARE:.0f} % of the games "
                          f"(league final --adaptive --max-fraction {ADAPTIVE_SHARE})",
                          sum(g for _, g in adaptive), makespan_s(adaptive, workers, start_s)))
    costliest = sorted(estimates, key=lambda b: b.each_s * b.games, reverse=True)
    for drop in range(1, len(costliest)):
        kept = [(b.each_s, b.games) for b in costliest[drop:]]
        kept_s = makespan_s(kept, workers, start_s)
        if kept_s <= now_s / 2 or drop == len(costliest) - 1:
            names = ", ".join(b.board for b in costliest[:drop])
            out.append(Shortening(f"fewer boards (final_board_set) without the {drop} "
                                  f"costliest ({names})", sum(g for _, g in kept), kept_s))
            break
    return tuple(out)


@dataclass(frozen=True)
class FinalStatus:
    state: str  # "not started", "running", "finished" or "stopped"
    text: str  # one line for the admin page
    report: str = ""  # the report's path once it exists
    games_stored: int = 0
    games_total: int = 0


def _folder(league: League) -> Path:
    return league.dir / "final"


def _state(league: League) -> dict[str, object]:
    try:
        data = json.loads((_folder(league) / "state.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def entries(league: League) -> list[tuple[str, int]]:
    """(user, submission id) of every user's entry: once the final has started, the entries it
    was started with (`started_entries`: resuming it never changes them); else each user's
    entry as it stands (`arena.league.entries.league_entries`: the version they chose, else
    their latest that passed its check; uploaded before their cut, `League.cut_of`, and not
    disabled), of users not disabled."""
    started = started_entries(league)
    if started is not None:
        return started
    return [(e.user, e.submission_id) for e in league_entries(league)]


def started_entries(league: League) -> list[tuple[str, int]] | None:
    """The entries the final was started with (kept in the league, so that a resumed final
    plays the same), None before it has started."""
    return league.final_entries()


def waiting_text(league: League) -> str:
    """"" when the final may be written now; else why it waits: the extensions still
    running (each student's own deadline is their cut), and the checks of versions uploaded
    before their author's cut (the deadline is a cut, not a race: each of them, if it passes,
    is its author's entry)."""
    running = league.extensions_running()
    pending = league.pending_at_cut()
    out = []
    if running:
        who = ", ".join(f"{user} until {format_time(ts)}" for user, ts in running)
        out.append(f"Waiting for the extensions still running ({who}): each student's entry is "
                   f"fixed at their own deadline.")
    if pending:
        who = ", ".join(sorted({p.user for p in pending}))
        out.append(f"Waiting for the checks of {len(pending)} version(s) uploaded before the "
                   f"freeze ({who}); the final's entries are written when they end.")
    return " ".join(out)


def final_tournament(league: League) -> TournamentConfig:
    """The final round robin as a tournament, built here from the league's settings: the
    entries (`entries`: every user's entry, named by the user) and the reference bots; the
    league's game (Connect-X's `final_board_set`, another game's parameter sets); `final_pairs`
    rounds; the league's limits, openings, seed and isolation. LeagueError when the league is
    not frozen, waits for checks before the cut, or has fewer than two entries. No bot is
    started here (`with_broken` loads them)."""
    if not league.frozen:
        raise LeagueError("freeze the leaderboard first: the final round robin plays the "
                          "frozen entries")
    waiting = waiting_text(league) if started_entries(league) is None else ""
    if waiting:
        raise LeagueError(waiting)
    cfg = league.config
    if len(entries(league)) < 2:
        raise LeagueError(f"the final round robin needs at least two entries that passed "
                          f"their check; there are {len(entries(league))}")
    players = [PlayerEntry(name=name, spec=spec) for name, spec in final_player_specs(league)]
    boards = [b for b in (board_key(g) for g in cfg.final_games()) if isinstance(b, tuple)]
    # an entry that fails to load when the final starts (it passed its check and its rating
    # games) loses each of its games, recorded as such; the others play: no entry can hold
    # the final hostage
    try:
        return built_config(
            str(_folder(league) / "league"), players, cfg.play, TieBreak.HEAD_TO_HEAD,
            name=FINAL_NAME, boards=boards or None, rounds=cfg.file.final_pairs, seed=cfg.seed,
            openings=({"plies": cfg.opening_plies, "seed": cfg.seed} if cfg.opening_plies
                      else None), broken_bots="forfeit")
    except UsageError as exc:  # what a tournament refuses that league.yaml let through
        raise LeagueError(f"league.yaml does not make a final round robin: {exc} (the "
                          f"openings are league.yaml's opening_plies or openings: {{plies: "
                          f"P}}; fix it with `cxarena league config`)") from None


def final_player_specs(league: League) -> list[tuple[str, str]]:
    """(name, SPEC) of the final's players: every user's entry (`entries`), named by the user,
    its files written out (`materialise`), then the reference bots (a name an entry took is
    prefixed with "reference "), their SPECs with absolute paths."""
    players = [(user, _entry_spec(league, sid)) for user, sid in entries(league)]
    taken = {name for name, _ in players}
    short = reference_names(league.config.reference_bots)  # named as on the leaderboard (L1)
    return players + [(short[ref] if short[ref] not in taken else f"reference {short[ref]}",
                       _absolute(ref)) for ref in league.config.reference_bots]


def with_broken(config: TournamentConfig) -> TournamentConfig:
    """`config` with the entries that fail to load now marked broken (each loses its games
    without being started): each is loaded through the door, sandboxed as the league's
    games are."""
    door.install(config.play.isolation.value, config.play.cgroups)
    failed = check_loadable([parse_spec(p.spec) for p in config.players])
    broken = tuple((p.name, failed[p.spec]) for p in config.players if p.spec in failed)
    return dataclasses.replace(config, broken=broken)


def _entry_spec(league: League, submission_id: int) -> str:
    """The SPEC of a version, its path absolute (the tournament may run from another folder)."""
    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    return spec_in(materialise(league, submission_id).resolve(), sub.kind, sub.filename,
                   sub.class_name)


def _absolute(spec: str) -> str:
    """A reference bot's SPEC with a relative file path made absolute (from the folder this
    process runs in, where league.yaml was checked); modules and exec: commands unchanged."""
    for prefix in ("java:", "kaggle:"):
        if spec.startswith(prefix):
            rest = spec[len(prefix):]
            path, sep, cls = (rest, "", "") if Path(rest).exists() else rest.rpartition(":")
            if not path:
                path, sep, cls = rest, "", ""
            return f"{prefix}{Path(path).resolve()}{sep}{cls}" if Path(path).exists() else spec
    if spec.startswith("exec:"):
        return spec
    where, sep, cls = spec.partition(":")
    if (where.endswith(".py") or "/" in where) and Path(where).is_file():
        return f"{Path(where).resolve()}{sep}{cls}"
    return spec


def _running(pid: int, results: Path) -> bool:
    """The final's process runs: one this process started and has not collected (its command
    line is this process's own for a moment after it starts), or one whose command line names
    the final's results folder or is a ``league final`` run from a terminal (`note_run`)."""
    for proc in _children:
        if proc.pid == pid and proc.poll() is None:
            return True
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    ours = str(results.resolve()).encode() in cmd or (b"league\0final" in cmd)
    return ours and stat.rsplit(")", 1)[1].split()[0] != "Z"


def final_config(league: League) -> TournamentConfig:
    """The final as a tournament (`final_tournament`), its entries kept in the league the first
    time: a resumed final plays the same entries (their folders are written again if they
    were pruned), so its games stay those of one tournament."""
    started = started_entries(league)
    if started is not None:
        for _, sid in started:
            materialise(league, sid)
        return final_tournament(league)
    config = final_tournament(league)
    league.keep_final_entries(entries(league))
    return config


def start_final(league: League, results_root: Path) -> str:
    """Start (or resume) the final round robin in a process of its own (`cxarena league final
    DIR --results RESULTS`); returns its results folder. LeagueError when it is already
    running, the league is not frozen, or there are fewer than two entries."""
    folder = _folder(league).resolve()
    state = _state(league)
    pid = state.get("pid")
    results = Path(results_root).resolve() / FINAL_NAME
    if isinstance(pid, int) and _running(pid, Path(str(state.get("results", results)))):
        raise LeagueError("the final round robin is already running")
    final_config(league)  # refused here, not in the process, when it cannot start
    # a final started on a Dask cluster resumes there (or says why it cannot, and what to run)
    scheduler = state.get("scheduler")
    scheduler = scheduler if isinstance(scheduler, str) and scheduler else None
    if scheduler is not None:
        why = scheduler_unreachable(scheduler)
        if why:
            raise LeagueError(
                f"the final was started on the Dask scheduler {scheduler}, which cannot be "
                f"reached now ({why}). Start it again (`dask scheduler` on its machine, then "
                f"`dask worker {scheduler} --nworkers $(nproc) --nthreads 1` on every machine; "
                f"docs/scaling.md) and press the button again, or resume the final in a "
                f"terminal: `cxarena league final {league.dir.resolve()} --scheduler "
                f"{scheduler}` (or without --scheduler, on this machine's workers)")
    folder.mkdir(exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "arena", "league", "final", str(league.dir.resolve()),
           "--results", str(results), "--quiet"]
    if scheduler is not None:
        cmd += ["--scheduler", scheduler]
    # a new run: the last run's log (and its error) is kept beside, not shown as this run's
    log_path = folder / "log.txt"
    if log_path.exists():
        log_path.replace(folder / "log-previous.txt")
    # from this process's folder: the league's reference bots named by relative paths are
    # found as the server finds them
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    (folder / "state.json").write_text(json.dumps(
        {"pid": proc.pid, "started_at": time.time(), "results": str(results),
         "command": cmd, "scheduler": scheduler}), encoding="utf-8")
    _children.append(proc)
    return str(results)


#: how long `scheduler_unreachable` waits for the scheduler's port
SCHEDULER_CONNECT_S = 2.0


def scheduler_unreachable(address: str, timeout_s: float = SCHEDULER_CONNECT_S) -> str:
    """Why the Dask scheduler at `address` (``tcp://HOST:PORT``) cannot be reached: "" when
    its port takes a connection within `timeout_s`."""
    host, _, port = address.removeprefix("tcp://").rpartition(":")
    if not host or not port.isdigit():
        return f"{address!r} is not tcp://HOST:PORT"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return ""
    except OSError as e:
        return e.strerror or str(e) or type(e).__name__


def final_at_deadline(league: League, results_root: Path) -> str | None:
    """Start the final round robin if league.yaml asks for it at the deadline
    (`final_at_deadline`), the deadline has passed, and it has never been started; returns its
    results folder, or None. The server calls it between its checks."""
    if not (league.config.file.final_at_deadline and league.deadline_passed()):
        return None
    if _state(league):  # started before (by this, or by the admin): never twice
        return None
    if waiting_text(league):  # the extensions, then the checks of the versions before the cuts
        return None
    return start_final(league, results_root)


#: the processes this one started (reaped by `final_status`, so none stays a zombie)
_children: list[subprocess.Popen[bytes]] = []


def _games_stored(results: Path) -> int:
    return count_games(results / DB_FILE)


def _games_total(config: TournamentConfig) -> int:
    """Games the final schedules: every ordered pairing, per board (or parameter set of
    another game) and round."""
    n = len(config.players)
    return n * (n - 1) * len(config.param_sets or config.boards) * config.file.rounds


def final_players(league: League) -> list[str]:
    """The names of the final's players once it has started ([] before)."""
    config = _started_config(league)
    return [p.name for p in config.players] if config is not None else []


def final_results(league: League) -> Path | None:
    """The final's results folder once it has been started (None before)."""
    results = _state(league).get("results")
    return Path(str(results)) if results else None


def note_run(league: League, results: Path, scheduler: str | None = None) -> None:
    """A final run in a terminal (`cxarena league final DIR`, on this machine or on Dask) is
    the league's final, as one the admin page started is: its results folder and process are
    kept in ``DIR/final/state.json``, so that the admin page shows its progress and report and
    the grades read its games; and the Dask `scheduler` it runs on, where "Run it again"
    resumes it (`start_final`). The process the admin page started keeps the state it
    wrote."""
    if _state(league).get("pid") == os.getpid():
        return
    folder = _folder(league)
    folder.mkdir(exist_ok=True)
    (folder / "state.json").write_text(json.dumps(
        {"pid": os.getpid(), "started_at": time.time(), "results": str(Path(results).resolve()),
         "command": sys.argv, "scheduler": scheduler}), encoding="utf-8")


def _started_config(league: League) -> TournamentConfig | None:
    """The final's tournament once it has started (None before, or when it cannot be built:
    a league folder edited by hand)."""
    if started_entries(league) is None:
        return None
    try:
        return final_tournament(league)
    except (LeagueError, KeyError, OSError, UsageError):
        return None


def _ended(finished_at: str) -> float | None:
    try:
        return datetime.fromisoformat(finished_at).timestamp()
    except ValueError:
        return None


def _time_left(config: TournamentConfig, results: Path, started_at: float) -> str:
    """", 41 % of the expected time, about 1 h 05 min left": the final's progress with each
    game weighed by its expected cost (`arena.competition.progress`: the board's size, refined
    by the durations of the games stored so far); "" while nothing can be said."""
    try:
        n = len(config.players)
        per_variant = n * (n - 1) * config.file.rounds
        variants = ([dict(p) for p in config.param_sets] if config.param_sets
                    else [{} for _ in config.boards])
        boards = config.boards if not config.param_sets else [(0, 0, 0)] * len(variants)
        timeout_s = config.limits.timeout_s
        plan = Progress.plan([key_and_prior(config.game, params, *board, timeout_s)
                              for params, board in zip(variants, boards, strict=True)
                              for _ in range(per_variant)])
        with ResultStore(results / DB_FILE, create=False) as store:
            for game in store.games():
                rec = game.record
                key, _ = record_key_and_prior(rec, timeout_s)
                ended = _ended(rec.finished_at)
                plan = plan.finish_record(key, rec, this_run=ended is None or ended >= started_at)
    except (UsageError, ValueError, OSError, KeyError):
        return ""
    eta = plan.eta_s(time.time() - started_at)
    done = f", {plan.fraction():.0%} of the expected time"
    return done if eta is None or eta <= 0 else f"{done}, about {_hours(eta)} left"


def final_time_left(league: League) -> str:
    """What the admin page adds to a running final's line (see `_time_left`): read from its
    stored games, so only where it is shown, not with every `final_status`."""
    state = _state(league)
    started = state.get("started_at")
    config = _started_config(league)
    if config is None:
        return ""
    return _time_left(config, Path(str(state.get("results", ""))),
                      float(started) if isinstance(started, (int, float)) else time.time())


def final_status(league: League) -> FinalStatus:
    for proc in list(_children):
        if proc.poll() is not None:
            _children.remove(proc)
    folder = _folder(league)
    state = _state(league)
    if not state:
        waiting = waiting_text(league) if league.frozen else ""
        return FinalStatus("not started", waiting or "Not started.")
    results = Path(str(state.get("results", "")))
    stored = _games_stored(results)
    config = _started_config(league)
    total = _games_total(config) if config is not None else 0
    pid = state.get("pid")
    report = results / REPORT_HTML
    if isinstance(pid, int) and _running(pid, results):
        return FinalStatus("running", f"Running: {stored} of {total} games played.", "",
                           stored, total)
    if report.is_file() and stored >= total:
        return FinalStatus("finished", f"Finished: {stored} games.", str(report), stored,
                           total)
    try:
        lines = (folder / "log.txt").read_text(encoding="utf-8", errors="replace")
        tail = " | ".join(lines.strip().splitlines()[-3:])
    except OSError:
        tail = ""
    return FinalStatus("stopped", f"Stopped after {stored} of {total} games; run it again to "
                       f"resume. {tail}".strip(), str(report) if report.is_file() else "",
                       stored, total)

