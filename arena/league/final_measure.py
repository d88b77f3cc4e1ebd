"""Calibration games on the final's boards, before the final: `league final DIR --dry-run
--measure`, or the admin page's "Measure the final's boards" (`start_measure`, which runs that
command in a process of its own and returns at once).

A board of the final with fewer than `GAMES_PER_BOARD` measured games (rating games at the
league's time limit, and calibration games played before) gets the missing ones
(`calibration_jobs`): pairs of the final's players (the entries as they are now and the
reference bots, `final_player_specs`) taken in turn from all their pairs, shuffled once by the
league's seed, so that the boards together sample many players; the colours alternate. They
are played as the final plays (`LocalExecutor`, the league's limits `LeagueConfig.limits()`,
its isolation and cgroups, bot processes kept between games), each stored as it finishes in
``DIR/final-measure/games.json`` (`arena.league.final_length`): never as rating games, so no
rating, standing or leaderboard changes.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.competition.executor import LocalExecutor
from arena.competition.jobs import GameJob
from arena.competition.progress import key_and_prior, measured_s, record_key_and_prior, thinking_s
from arena.competition.settings import referee_settings
from arena.league.db import League, LeagueError, LeagueGames
from arena.league.final import final_player_keys, final_player_specs
from arena.league.final_length import (
    MEASURE_DIR,
    MeasuredGame,
    add_measured,
    bot_startups_s,
    measured_games,
)
from arena.referee import door
from arena.referee.sandbox import resolve

__all__ = ["GAMES_PER_BOARD", "MeasureStatus", "calibration_jobs", "measure_final",
           "measure_status", "start_measure"]

#: the measured games a board of the final needs before its estimate counts as measured
GAMES_PER_BOARD = 2


def _measured_per_board(league: League) -> Counter[str]:
    """Measured games per board key at the league's time limit: rating and calibration."""
    cfg = league.config
    count: Counter[str] = Counter()
    for r in (g.record for g in LeagueGames(league).games()):
        if r.timeout_s in (None, cfg.timeout_s) and measured_s(r) is not None:
            count[record_key_and_prior(r, cfg.timeout_s)[0]] += 1
    for m in measured_games(league.dir):
        if m.timeout_s == cfg.timeout_s and m.duration_s > 0:
            count[m.board] += 1
    return count


def calibration_jobs(league: League, games_per_board: int = GAMES_PER_BOARD) -> list[GameJob]:
    """The calibration games still to play: on each board of the final, as many as it lacks
    of `games_per_board` measured games (see the module's docstring). LeagueError with fewer
    than two players."""
    cfg = league.config
    players = final_player_specs(league)
    if len(players) < 2:
        raise LeagueError(f"measuring the final's boards needs at least two players (entries "
                          f"and reference bots); there are {len(players)}")
    pairs = list(itertools.combinations(range(len(players)), 2))
    random.Random(cfg.seed).shuffle(pairs)
    turn = itertools.cycle(pairs)
    have = _measured_per_board(league)
    jobs: list[GameJob] = []
    for game in cfg.final_games():
        key, _ = key_and_prior(game.name, dict(game.params), 0, 0, 0, cfg.timeout_s)
        for n in range(max(0, games_per_board - have[key])):
            a, b = next(turn)
            first, second = players[a], players[b]
            if n % 2:
                first, second = second, first
            jobs.append(GameJob(f"measure-{key}-{have[key] + n}", game, first[0], second[0],
                                first[1], second[1], seed=cfg.seed + len(jobs)))
        have[key] = max(have[key], games_per_board)
    return jobs


def measure_final(league: League, workers: int | None = None,
                  games_per_board: int = GAMES_PER_BOARD,
                  progress: Callable[[str], None] | None = None) -> int:
    """Play the calibration games (`calibration_jobs`) on `workers` of this machine's cores
    (default one per usable core), each kept as it finishes; returns how many were kept.
    `progress` is told of each game."""
    jobs = calibration_jobs(league, games_per_board)
    if not jobs:
        return 0
    cfg = league.config
    keys = {name: key for (name, _), key in zip(final_player_specs(league),
                                                final_player_keys(league), strict=True)}
    isolation = cfg.play.isolation.value
    resolve(isolation)  # UsageError where the league's sandbox cannot be had
    door.install(isolation, cfg.play.cgroups)
    settings = referee_settings(cfg.play, "league.yaml",
                                log_dir=str(league.dir / MEASURE_DIR / "logs"))
    executor = LocalExecutor(settings, workers=workers or None)  # each started with a game
    kept = 0
    for outcome in executor.run(jobs):
        rec, job = outcome.record, outcome.game
        if rec is None or measured_s(rec) is None:
            if progress:
                progress(f"{job.game_id}: not measured ({outcome.error or 'no duration'})")
            continue
        key, _ = key_and_prior(job.game, dict(job.params), job.M, job.N, job.K,
                               cfg.timeout_s)
        startups = bot_startups_s(rec.extra)
        p1, p2 = rec.played_times_ms
        game = MeasuredGame(key, job.game, job.M, job.N, job.K, job.params, cfg.timeout_s,
                            measured_s(rec) or 0.0, thinking_s(rec), job.p1, job.p2,
                            rec.reason.value, time.time(), max(startups, default=0.0),
                            len(startups), keys[job.p1], keys[job.p2],
                            (sum(p1) + rec.init_ms[0]) / 1000, (sum(p2) + rec.init_ms[1]) / 1000,
                            len(p1), len(p2), sum(p1) / 1000, sum(p2) / 1000,
                            dict(rec.limits))
        add_measured(league.dir, [game])
        kept += 1
        if progress:
            progress(f"{kept}/{len(jobs)} {key}: {job.p1} vs {job.p2}, "
                     f"{game.duration_s:.1f} s ({game.reason})")
    return kept


@dataclass(frozen=True)
class MeasureStatus:
    """The calibration run started from the admin page: "never", "running" or "ended"."""

    state: str
    text: str


def _state_path(league: League) -> Path:
    return league.dir / MEASURE_DIR / "state.json"


def _state(league: League) -> dict[str, object]:
    try:
        data = json.loads(_state_path(league).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


#: the calibration processes this one started (reaped by `measure_status`)
_children: list[subprocess.Popen[bytes]] = []


def _running(pid: int, league: League) -> bool:
    """The calibration process runs: a child of this process not collected yet, or a process
    whose command line is `league final DIR --dry-run --measure` for this league."""
    for proc in _children:
        if proc.pid == pid:
            return proc.poll() is None
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return (str(league.dir.resolve()).encode() in cmd and b"--measure" in cmd
            and stat.rsplit(")", 1)[1].split()[0] != "Z")


def start_measure(league: League) -> int:
    """Start the calibration games (`league final DIR --dry-run --measure --quiet`) in a process
    of their own, its output in DIR/final-measure/log.txt; returns the number of games it will
    play (0: every board of the final is measured already, nothing is started). LeagueError
    when one is running, or the final has too few players."""
    state = _state(league)
    pid = state.get("pid")
    if isinstance(pid, int) and _running(pid, league):
        raise LeagueError("the final's boards are being measured already")
    jobs = calibration_jobs(league)
    if not jobs:
        return 0
    folder = league.dir / MEASURE_DIR
    folder.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "arena", "league", "final", str(league.dir.resolve()),
           "--dry-run", "--measure", "--quiet"]
    with open(folder / "log.txt", "wb") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    _children.append(proc)
    _state_path(league).write_text(json.dumps({"pid": proc.pid, "started_at": time.time(),
                                               "games": len(jobs)}), encoding="utf-8")
    return len(jobs)


def measure_status(league: League) -> MeasureStatus:
    """Whether the calibration games started from the admin page run, and how far they got."""
    for proc in list(_children):
        if proc.poll() is not None:
            _children.remove(proc)
    state = _state(league)
    if not state:
        return MeasureStatus("never", "")
    started = state.get("started_at")
    started_at = float(started) if isinstance(started, (int, float)) else 0.0
    done = sum(1 for m in measured_games(league.dir) if m.finished_at >= started_at)
    pid = state.get("pid")
    if isinstance(pid, int) and _running(pid, league):
        return MeasureStatus("running", f"Measuring the final's boards: {done} of "
                                        f"{state.get('games', '?')} games played.")
    try:
        lines = (league.dir / MEASURE_DIR / "log.txt").read_text(encoding="utf-8",
                                                                 errors="replace")
        last = lines.strip().splitlines()[-1] if lines.strip() else ""
    except OSError:
        last = ""
    return MeasureStatus("ended", f"The last measurement played {done} of "
                                  f"{state.get('games', '?')} games. {last}".strip())
