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

The deadline is a cut (`League.cut_at`): the entries are each student's latest version uploaded
before it that passed its check, and the final is not started while a version uploaded before it
is still queued or being checked (`waiting_text`). The entries are kept in the league when the
final starts (`started_entries`); resuming it plays the same entries.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from arena.competition.cores import usable_cores
from arena.entrants.probe import check_loadable
from arena.entrants.specs import parse_spec
from arena.errors import UsageError
from arena.games import Game
from arena.league.checks import materialise, spec_in
from arena.league.db import League, LeagueError
from arena.league.standings import game_records
from arena.referee import door
from arena.referee.sandbox import check_mode
from arena.results import REPORT_HTML
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import OpeningsConfig, PlayerEntry, TournamentConfig
from arena.tournament.progress import Progress, key_and_prior

__all__ = ["FINAL_NAME", "FinalPlan", "FinalStatus", "entries", "final_at_deadline",
           "final_config", "final_players", "final_results", "final_status", "final_time_left",
           "final_tournament", "plan_final",
           "start_final", "started_entries", "waiting_text", "with_broken"]

#: the final's name: its results folder (RESULTS_ROOT/final) and its tournament's
FINAL_NAME = "final"


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

    def text(self) -> str:
        """The plan in words, with how to shorten it."""
        how = (f"estimated from {self.measured_games} measured rating games"
               if self.measured else "at most (no rating game measured yet: every move of "
                                     "every game taking its full time)")
        return (f"The final round robin: {self.players} players, {self.boards} boards, "
                f"{self.games} games on {self.workers} worker(s): {_hours(self.duration_s)}, "
                f"{how}. To shorten it: fewer boards (final_board_set), fewer pairs "
                f"(final_pairs), a shorter time limit, or more machines (league final "
                f"--scheduler tcp://HOST:8786 with Dask workers).")


def _hours(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _key_and_prior(game: Game, timeout_s: float) -> tuple[str, float]:
    """The cost model's board key and prior of one game of the final (any game)."""
    f = game.record_fields((), ())
    return key_and_prior(game.name, dict(game.params), int(f["M"]), int(f["N"]), int(f["K"]),
                         timeout_s)


def plan_final(league: League, workers: int | None = None) -> FinalPlan:
    """The final's size and its duration, estimated from the league's own rating games (their
    measured durations per board, refined over board sizes: `arena.tournament.progress`), for
    the entries and reference bots as they are now. `workers`: default the tournament's (one
    per usable core)."""
    cfg = league.config
    players = len(entries(league)) + len(cfg.reference_bots)
    boards = cfg.final_games()
    per_board = players * (players - 1) // 2 * 2 * cfg.final_pairs
    final = [_key_and_prior(game, cfg.timeout_s) for game in boards]
    records = [r for r in (game_records(league)) if r.timeout_s in (None, cfg.timeout_s)]
    stored = [(key_and_prior(r.game, r.game_params, r.M, r.N, r.K, cfg.timeout_s), r)
              for r in records]
    plan = Progress.plan([kp for kp in final for _ in range(per_board)]
                         + [kp for kp, _ in stored])
    for (key, _), rec in stored:
        plan = plan.finish_record(key, rec, this_run=False)
    final_keys = {key for key, _ in final}
    measured = any(b.measured for b in plan.boards.values())
    if measured:
        seconds = sum(b.left * (plan.expected_s(k) or 0.0)
                      for k, b in plan.boards.items() if k in final_keys)
    else:  # the bound: a full board, every move its whole time limit
        seconds = sum(prior * per_board for _, prior in final)
    workers = workers or usable_cores()
    return FinalPlan(players, len(boards), per_board * len(boards), workers,
                     seconds / max(1, min(workers, per_board * len(boards))),
                     sum(b.measured for b in plan.boards.values()), measured)


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
    latest version that passed its check (uploaded before the cut, `League.cut_at`, when the
    league is frozen), not disabled, of a user not disabled."""
    started = started_entries(league)
    if started is not None:
        return started
    cut = league.cut_at
    out_users = {u.name for u in league.users() if u.disabled}
    current: dict[str, int] = {}
    for sub in league.submissions():
        if (sub.status in ("rating", "active") and sub.user not in out_users
                and (cut is None or sub.created_at <= cut)):
            current[sub.user] = sub.id
    return sorted(current.items())


def started_entries(league: League) -> list[tuple[str, int]] | None:
    """The entries the final was started with (kept in the league, so that a resumed final
    plays the same), None before it has started."""
    row = league.conn.execute("SELECT value FROM meta WHERE key='final_entries'").fetchone()
    if row is None:
        return None
    return [(str(u), int(s)) for u, s in json.loads(row[0])]


def waiting_text(league: League) -> str:
    """"" when the final may be written now; else why it waits: the checks of versions
    uploaded before the cut (the deadline is a cut, not a race: each of them, if it passes, is
    its author's entry)."""
    pending = league.pending_at_cut()
    if not pending:
        return ""
    who = ", ".join(sorted({p.user for p in pending}))
    return (f"Waiting for the checks of {len(pending)} version(s) uploaded before the "
            f"freeze ({who}); the final's entries are written when they end.")


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
    players = [PlayerEntry(name=user, spec=_entry_spec(league, sid))
               for user, sid in entries(league)]
    if len(players) < 2:
        raise LeagueError(f"the final round robin needs at least two entries that passed "
                          f"their check; there are {len(players)}")
    taken = {p.name for p in players}
    players += [PlayerEntry(name=ref if ref not in taken else f"reference {ref}",
                            spec=_absolute(ref)) for ref in cfg.reference_bots]
    games = cfg.final_games()
    openings = (OpeningsConfig(plies=cfg.opening_plies, seed=cfg.seed)
                if cfg.opening_plies else None)
    # an entry that fails to load when the final starts (it passed its check and its rating
    # games) loses each of its games, recorded as such; the others play: no entry can hold
    # the final hostage
    return TournamentConfig(
        path=str(_folder(league) / "league"), name=FINAL_NAME, players=tuple(players),
        boards=tuple(b for b in (g.board_key() for g in games) if isinstance(b, tuple)),
        param_sets=() if cfg.is_connectx else cfg.param_sets, game=cfg.game,
        limits=cfg.limits(), cgroups=cfg.cgroups, rounds=cfg.final_pairs,
        workers=usable_cores(), seed=cfg.seed, openings=openings,
        isolation="namespaces" if cfg.isolation else "none", broken_bots="forfeit")


def with_broken(config: TournamentConfig) -> TournamentConfig:
    """`config` with the entries that fail to load now marked broken (each loses its games
    without being started): each is loaded through the door, sandboxed as the league's
    games are."""
    door.install(check_mode(config.isolation, "isolation"), config.cgroups)
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
    with league.conn:
        league.conn.execute("INSERT OR REPLACE INTO meta VALUES ('final_entries', ?)",
                            (json.dumps(entries(league)),))
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
    folder.mkdir(exist_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "arena", "league", "final", str(league.dir.resolve()),
           "--results", str(results), "--quiet"]
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
         "command": cmd}), encoding="utf-8")
    _children.append(proc)
    return str(results)


def final_at_deadline(league: League, results_root: Path) -> str | None:
    """Start the final round robin if league.yaml asks for it at the deadline
    (`final_at_deadline`), the deadline has passed, and it has never been started; returns its
    results folder, or None. The server calls it between its checks."""
    if not (league.config.final_at_deadline and league.deadline_passed()):
        return None
    if _state(league):  # started before (by this, or by the admin): never twice
        return None
    if league.pending_at_cut():  # the versions uploaded before the deadline are checked first
        return None
    return start_final(league, results_root)


#: the processes this one started (reaped by `final_status`, so none stays a zombie)
_children: list[subprocess.Popen[bytes]] = []


def _games_stored(results: Path) -> int:
    db = results / DB_FILE
    if not db.is_file():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def _games_total(config: TournamentConfig) -> int:
    """Games the final schedules: every ordered pairing, per board (or parameter set of
    another game) and round."""
    n = len(config.players)
    return n * (n - 1) * len(config.param_sets or config.boards) * config.rounds


def final_players(league: League) -> list[str]:
    """The names of the final's players once it has started ([] before)."""
    config = _started_config(league)
    return [p.name for p in config.players] if config is not None else []


def final_results(league: League) -> Path | None:
    """The final's results folder once it has been started (None before)."""
    results = _state(league).get("results")
    return Path(str(results)) if results else None


def note_run(league: League, results: Path) -> None:
    """A final run in a terminal (`cxarena league final DIR`, on this machine or on Dask) is
    the league's final, as one the admin page started is: its results folder and process are
    kept in ``DIR/final/state.json``, so that the admin page shows its progress and report and
    the grades read its games. The process the admin page started keeps the state it wrote."""
    if _state(league).get("pid") == os.getpid():
        return
    folder = _folder(league)
    folder.mkdir(exist_ok=True)
    (folder / "state.json").write_text(json.dumps(
        {"pid": os.getpid(), "started_at": time.time(), "results": str(Path(results).resolve()),
         "command": sys.argv}), encoding="utf-8")


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
    game weighed by its expected cost (`arena.tournament.progress`: the board's size, refined
    by the durations of the games stored so far); "" while nothing can be said."""
    try:
        n = len(config.players)
        per_variant = n * (n - 1) * config.rounds
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
                key, _ = key_and_prior(rec.game, rec.game_params, rec.M, rec.N, rec.K,
                                       timeout_s)
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

