"""The league's rating games fed to the executors that tournaments use.

`LeagueSource` is a `JobSource` (`arena.competition.jobs`): when an executor has a free worker
it claims the next pair (`arena.league.worker.claim`, the lease held by this server process),
hands out its two games as `GameJob`s (a version's files written once under ``DIR/work``; on
Dask they also travel with the game) and, when both outcomes are in, stores the pair
(`store_pair`) or, when a game has no record (the harness could not play it), releases the
lease so that the pair is played again.

`start_workers` runs `LocalExecutor` (or, with a scheduler, `DaskExecutor`) on that source in
one thread of the server: the executor starts, supervises and replaces the worker processes
(a dead worker's game is tried once more). Each death is announced and kept in
``DIR/workers.json`` for the admin page (`worker_health`), through the executor's `on_death`,
with its real cause: how the process ended (its exit code, or the signal that killed it) and
the last error its log relayed since its index last died (`_WorkerErrors`: errors only, never a
warning such as the referee's note that the machine was overloaded).

The guarantees of `arena.league.worker` hold: a pair is stored only while its lease exists and
in one transaction with the lease's deletion (never lost, never stored twice); a killed
server's leases are reaped by the next claim on this machine (its pid is gone); nothing is
claimed when the league is frozen; a bot's fault is the game's result (the referee's record).

The analysis of the games a student lost (`arena.league.analysis`) runs after a pair is stored,
in a process of its own (`_Analyses`), never in the executor's thread nor in the web server's
interpreter; a failure is logged. It ends with the server, also with one that was killed.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.competition.dask_executor import DaskExecutor
from arena.competition.executor import Executor, LocalExecutor
from arena.competition.jobs import GameJob, GameOutcome
from arena.competition.openings import Judge
from arena.competition.settings import PlaySettings
from arena.entrants.specs import SpecError, parse_spec
from arena.league.analysis import Analyser, OracleFactory
from arena.league.db import League
from arena.league.worker import (
    LOG_BUDGET_FILE,
    LeasedPair,
    Openings,
    WorkerHealth,
    analyse_lost,
    claim,
    holder_name,
    league_settings,
    one_line,
    reap_dead,
    release,
    release_holders,
    store_pair,
    write_health,
)
from arena.records import GameRecord
from arena.referee.referee import MatchSettings, Referee
from arena.wire.lifeline import die_with_parent

__all__ = ["LeagueGames", "LeagueSource", "run_worker", "start_workers"]

log = logging.getLogger("arena.league.feed")

#: how long the source waits before claiming again after finding nothing to play
IDLE_S = 0.5
#: after an error (a league whose stored settings went bad, a locked database) the source
#: tries again after 1 s, then 2, 4, ... up to this many seconds while it keeps failing
BACKOFF_MAX_S = 60.0


def _announce(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass
class _Pair:
    """A claimed pair whose games are being played, under the league's settings of play when
    it was claimed: its records as they come (None: the harness could not play that game)."""

    lease: LeasedPair
    play: PlaySettings
    records: dict[str, GameRecord | None] = field(default_factory=dict)


#: how often the analysis process, waiting for games, looks whether the server still runs
PARENT_CHECK_S = 1.0


def _next_ids(todo: Any) -> list[int] | None:
    """The next pair's game ids, or None: the server said stop, or it died (a fork server's
    child outlives its requester, and it keeps that fork server alive: nothing else ends it
    when the server was killed)."""
    server = multiprocessing.parent_process()
    while True:
        try:
            return todo.get(timeout=PARENT_CHECK_S)
        except queue.Empty:
            if server is not None and not server.is_alive():
                return None


def _analysis_main(directory: str, factory: OracleFactory, todo: Any) -> None:
    """The analysis process: analyse each pair's games as their ids come, until None (or
    until the server is gone)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides
    die_with_parent(os.getppid(), signal.SIGTERM)  # the fork server, when it ends first
    analyser = Analyser(factory)
    while (ids := _next_ids(todo)) is not None:
        try:
            lg = League.open(Path(directory))
            try:
                analyse_lost(lg, analyser, ids)
            finally:
                lg.conn.close()
        except Exception as exc:  # logged; the next pair is analysed all the same
            log.error("analysis of games %s failed: %s", ids, one_line(exc), exc_info=True)


class _Analyses:
    """Analyses the stored games a student lost, one pair at a time, in a process of its own:
    a search of seconds a game must hold neither the executor's thread nor the interpreter
    of the web server. Started from the fork server, as the executor's workers are, it dies
    with the server; one that died is started again with the next pair."""

    def __init__(self, directory: Path, factory: OracleFactory) -> None:
        self.dir = directory
        self.factory = factory
        self.ctx = multiprocessing.get_context("forkserver")
        self.todo: Any = None
        self.proc: Any = None
        self._start()

    def _start(self) -> None:
        self.todo = self.ctx.Queue()
        self.proc = self.ctx.Process(target=_analysis_main, name="league-analysis",
                                     args=(str(self.dir), self.factory, self.todo))
        self.proc.start()

    def put(self, game_ids: list[int]) -> None:
        if not self.proc.is_alive():
            log.error("the analysis process died (exit code %s); starting a new one",
                      self.proc.exitcode)
            self._start()
        self.todo.put(game_ids)

    def stop(self, timeout_s: float = 10.0) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.todo.put(None)
        self.proc.join(timeout_s)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(timeout_s)
        self.todo.close()
        self.todo.join_thread()


class LeagueSource:
    """The league's rating games as a `JobSource` (see the module docstring). `travel`: the
    versions' files go with their games (Dask workers on other machines). Not thread-safe:
    the executor's thread calls `take` and `done`."""

    def __init__(self, directory: Path, judge: Judge | None, *, travel: bool = False,
                 idle_s: float = IDLE_S,
                 analyse: Callable[[list[int]], None] | None = None,
                 announce: Callable[[str], None] = _announce,
                 on_error: Callable[[str], None] | None = None,
                 holder_kind: str = "server") -> None:
        """`analyse`: given the ids of each pair stored; `announce`: says an error (the
        server's terminal); `on_error`: keeps it (the admin page's health rows)."""
        self.dir = Path(directory)
        self.root = self.dir / "work"
        self.root.mkdir(exist_ok=True)
        self.holder = holder_name(holder_kind)
        self.openings = Openings(judge)
        self.travel = travel
        self.idle_s = idle_s
        self.analyse = analyse
        self.announce = announce
        self.on_error = on_error
        self.stopping = threading.Event()
        #: (timeout_s, isolation) the executor plays with; a pair claimed under other settings
        #: (`cxarena league config` changed them) is given back and the source finishes, so
        #: that a new executor takes the new settings
        self.settings_key: PlaySettings | None = None
        self.changed = False
        self.pending: deque[GameJob] = deque()
        self.pairs: dict[str, _Pair] = {}
        self.stored = 0  # pairs stored
        self.failures = 0  # errors in a row
        self.last_error = ""
        self._next_claim_s = 0.0

    @property
    def finished(self) -> bool:
        """The league never runs out of games; it finishes when the server stops, or when
        the settings of play changed (the executor then ends and a new one starts)."""
        return self.stopping.is_set() or self.changed

    def take(self) -> GameJob | None:
        """The second game of the last pair claimed, else the first of a new pair; None when
        there is none now (frozen, nothing to play, or an error: tried again later)."""
        if self.pending:
            return self.pending.popleft()
        if self.finished or time.monotonic() < self._next_claim_s:
            return None
        try:
            games = self._claim()
        except Exception as exc:  # said, kept for the admin page, tried again after a backoff
            self._failed(exc)
            return None
        self.failures = 0
        if not games:
            self._next_claim_s = time.monotonic() + self.idle_s
            return None
        self.pending.extend(games[1:])
        return games[0]

    def _claim(self) -> list[GameJob]:
        lg = League.open(self.dir)
        try:
            try:
                pair = claim(lg, self.holder, self.openings, self.root, self.travel)
            except SpecError as exc:  # a version's files not written: claim gave its lease back
                log.error("pair not played: %s", exc)
                return []
            if pair is None:
                return []
            play = lg.config.play  # as `claim` read it
            if self.settings_key is not None and play != self.settings_key:
                log.warning("the league's settings of play changed: new workers take them")
                release(lg, pair.lease_id)
                self.changed = True
                return []
            first = pair.games[0]
            try:
                parse_spec(first.spec1)  # both sides: a version whose files cannot be read
                parse_spec(first.spec2)
            except (SpecError, OSError) as exc:  # its files gone: the pair is chosen again
                log.error("pair %s vs %s not played: %s", first.p1, first.p2, exc)
                release(lg, pair.lease_id)
                return []
        finally:
            lg.conn.close()
        self.pairs[first.pair_id] = _Pair(pair, play)
        return list(pair.games)

    def _failed(self, exc: BaseException) -> None:
        delay_s = min(BACKOFF_MAX_S, 2.0 ** self.failures)
        self.failures += 1
        self.last_error = one_line(exc)
        self._next_claim_s = time.monotonic() + delay_s
        log.error("cannot hand out rating games: %s", self.last_error, exc_info=True)
        self.announce(f"league: cannot hand out rating games: {self.last_error}; trying "
                      f"again in {delay_s:.0f} s")
        if self.on_error is not None:
            self.on_error(self.last_error)

    def done(self, outcome: GameOutcome) -> None:
        """Keep the game's record; with both of its pair's, store the pair (or release its
        lease when a game has no record)."""
        pair = self.pairs.get(outcome.game.pair_id)
        if pair is None:
            return
        game = outcome.game
        pair.records[game.game_id] = (None if outcome.record is None else
                                      outcome.record.labelled(player1=game.p1,
                                                              player2=game.p2))
        if outcome.record is None:
            log.error("game %s (%s vs %s) not played: %s", game.game_id, game.p1, game.p2,
                      outcome.error)
        if len(pair.records) < len(pair.lease.games):
            return
        del self.pairs[game.pair_id]
        records = [pair.records[g.game_id] for g in pair.lease.games]
        try:
            lg = League.open(self.dir)
            try:
                if any(r is None for r in records):
                    release(lg, pair.lease.lease_id)  # the pair is played again
                    return
                ids = store_pair(lg, pair.lease, [r for r in records if r is not None])
            finally:
                lg.conn.close()
        except Exception:  # a locked or broken database: the pair is played again
            first = pair.lease.games[0]
            log.exception("pair %s vs %s could not be stored", first.p1, first.p2)
            self._give_back(pair.lease.lease_id)
            return
        if ids is not None:
            self.stored += 1
            if self.analyse is not None:
                self.analyse(ids)

    def _give_back(self, lease_id: int) -> None:
        """Release a lease after an error (a failure is only logged: the lease then goes
        when this server stops, or with the next server's claim)."""
        try:
            lg = League.open(self.dir)
            try:
                release(lg, lease_id)
            finally:
                lg.conn.close()
        except Exception:
            log.exception("could not release lease %d", lease_id)

    def close(self) -> None:
        """Hand out nothing more and release this server's leases (the pairs in flight are
        chosen again)."""
        self.stopping.set()
        self.pending.clear()
        self.pairs.clear()
        release_holders(self.dir, {self.holder})


#: the longest logged error a worker's health row keeps
MAX_LOGGED_ERROR = 300
#: the name `LocalExecutor` gives worker process i ("worker-0", ...)
_WORKER_PROCESS = re.compile(r"^worker-(\d+)$")


class _WorkerErrors(logging.Handler):
    """On the ``arena`` loggers, to which `LocalExecutor` relays its workers' log records: the
    last record of level ERROR or above that each worker index logged (its first line,
    bounded). Warnings are not kept: the referee's note that the machine was overloaded (a
    late move replayed) is no worker's error."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.last: dict[int, str] = {}
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        m = _WORKER_PROCESS.match(record.processName or "")
        if m is None:  # this process's own records (the parent's word on a death)
            return
        try:
            lines = record.getMessage().strip().splitlines()
        except Exception:  # a record whose arguments do not format: its template
            lines = str(record.msg).splitlines()
        line = " ".join(lines[0].split()) if lines else record.levelname
        if len(line) > MAX_LOGGED_ERROR:
            line = line[:MAX_LOGGED_ERROR - 3] + "..."
        with self.guard:
            self.last[int(m.group(1))] = line

    def take(self, index: int) -> str:
        """The last error worker `index` logged since the last `take`, "" for none."""
        with self.guard:
            return self.last.pop(index, "")


def death_cause(error: str, logged: str) -> str:
    """A dead worker's cause as its health row says it: how it ended (`error`, the executor's
    words: "worker process died (exit code -9, SIGKILL)") and the last error it logged."""
    return f"{error}; its last logged error: {logged}" if logged else error


class _Health:
    """What the admin page shows of the local workers (`worker_health`): restarts and last
    error of each, written to ``DIR/workers.json`` at the start and at every death (the death's
    cause: `death_cause`)."""

    def __init__(self, directory: Path, count: int, announce: Callable[[str], None],
                 names: list[str] | None = None) -> None:
        self.dir = directory
        self.rows = [WorkerHealth(name, 0, "") for name in
                     names or [f"worker {i + 1}" for i in range(count)]]
        self.announce = announce
        self.lock = threading.Lock()
        self.errors = _WorkerErrors()
        logging.getLogger("arena").addHandler(self.errors)
        write_health(self.dir, self.rows)

    def close(self) -> None:
        logging.getLogger("arena").removeHandler(self.errors)

    def died(self, index: int, error: str) -> None:
        error = death_cause(error, self.errors.take(index))
        with self.lock:
            row = self.rows[index]
            self.rows[index] = row = WorkerHealth(row.worker, row.restarts + 1, error)
            write_health(self.dir, self.rows)
        self.announce(f"league: {row.worker} stopped: {error}; a new one takes its place "
                      f"(its game is played again)")

    def problem(self, error: str) -> None:
        """An error that stops every worker (the league's own, not one worker's death): the
        last error of each."""
        with self.lock:
            self.rows = [r._replace(last_error=error) for r in self.rows]
            write_health(self.dir, self.rows)

    @property
    def restarts(self) -> int:
        return sum(r.restarts for r in self.rows)


class LeagueGames:
    """The rating games being played: an executor on a `LeagueSource`, in one thread of this
    process, until `stop`. The executor is made in that thread (`make_executor`, which reads
    the league's settings); when making or running it fails, the error is announced and kept
    for the admin page, and it is tried again after a backoff (1 s doubling to 60 s)."""

    def __init__(self, directory: Path, make_executor: Callable[[], Executor],
                 source: LeagueSource, health: _Health,
                 analysis: _Analyses | None) -> None:
        self.dir = directory
        self.make_executor = make_executor
        self.executor: Executor | None = None
        self.source = source
        self.health = health
        self.analysis = analysis
        self._stop = threading.Event()
        lg = League.open(directory)
        try:  # the pairs of a killed server are played again
            reap_dead(lg)
        finally:
            lg.conn.close()
        self.thread = threading.Thread(target=self._run, name="league-games", daemon=True)
        self.thread.start()

    @property
    def restarts(self) -> int:
        """How many worker processes died (and were replaced) since the start."""
        return self.health.restarts

    def pids(self) -> list[int]:
        """The worker processes alive now (local workers only)."""
        executor = self.executor
        return executor.pids() if isinstance(executor, LocalExecutor) else []

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self.executor = self.make_executor()
                for _ in self.executor.run(self.source, self._stop):
                    failures = 0
                if not self.source.changed:
                    return
                self.source.changed = False  # the pairs in flight are done: new settings
                continue
            except Exception as exc:  # the league keeps serving; its pairs are played again
                delay_s = min(BACKOFF_MAX_S, 2.0 ** failures)
                failures += 1
                log.error("rating games stopped", exc_info=True)
                self.source.announce(f"league: the rating games stopped: {one_line(exc)}; "
                                     f"starting again in {delay_s:.0f} s")
                self.health.problem(one_line(exc))
                release_holders(self.dir, {self.source.holder})
                self.source.pairs.clear()
                self.source.pending.clear()
                self._stop.wait(delay_s)

    def stop(self) -> None:
        self._stop.set()
        self.source.stopping.set()
        self.thread.join(timeout=30)
        self.source.close()
        self.health.close()
        if self.analysis is not None:
            self.analysis.stop()


def start_workers(directory: Path, workers: int | None, scheduler: str | None,
                  judge: Judge | None, strict: bool = True,
                  oracle_factory: OracleFactory | None = None,
                  announce: Callable[[str], None] = _announce) -> LeagueGames:
    """The league's rating games: on a Dask cluster when a scheduler is named, else on
    `workers` local worker processes (default 1). `strict`: the bots must be sandboxed (serve
    checked this machine itself; a Dask machine without the sandbox fails the game).
    `oracle_factory`: the search that analyses the games a student lost (None: none)."""
    directory = Path(directory)
    count = max(1, workers or 1)
    health = _Health(directory, count, announce, ["Dask workers"] if scheduler else None)
    analysis = (_Analyses(directory, oracle_factory) if oracle_factory is not None
                else None)
    source = LeagueSource(directory, judge, travel=bool(scheduler),
                          analyse=analysis.put if analysis is not None else None,
                          announce=announce, on_error=health.problem)

    def make_executor() -> Executor:
        lg = League.open(directory)
        try:
            play = lg.config.play
        finally:
            lg.conn.close()
        source.settings_key = play
        if scheduler:
            # other machines were not checked: strict; their bot-log budget is their own
            return DaskExecutor(league_settings(play, True), scheduler)
        settings = league_settings(play, strict, str(directory / LOG_BUDGET_FILE))
        return LocalExecutor(settings, count, on_death=health.died)

    return LeagueGames(directory, make_executor, source, health, analysis)


def run_worker(directory: Path, judge: Judge | None, *, idle_s: float = IDLE_S,
               stop: threading.Event | None = None, max_pairs: int | None = None,
               oracle_factory: OracleFactory | None = None) -> int:
    """Play the league's source here, one game after the other and without worker processes
    (tests, benchmarks; the server plays with `start_workers`), until `stop` is set (or
    `max_pairs` are stored, or, with `max_pairs`, nothing is left to play). Returns the number
    of pairs stored. With `oracle_factory` (the command layer's analysis search), the games of
    each stored pair that a student lost are then analysed here (`arena.league.analysis`; a
    failure is logged)."""
    directory = Path(directory)
    analyser = Analyser(oracle_factory) if oracle_factory is not None else None

    def analyse(ids: list[int]) -> None:
        assert analyser is not None
        lg = League.open(directory)
        try:
            analyse_lost(lg, analyser, ids)
        finally:
            lg.conn.close()

    source = LeagueSource(directory, judge, idle_s=idle_s, holder_kind="local",
                          analyse=analyse if analyser is not None else None,
                          announce=log.error)
    stop = stop or threading.Event()
    referees: dict[MatchSettings, Referee] = {}
    try:
        while not stop.is_set() and (max_pairs is None or source.stored < max_pairs):
            game = source.take()
            if game is None:
                if max_pairs is not None and not source.pairs:
                    break
                stop.wait(idle_s)
                continue
            play = source.pairs[game.pair_id].play
            key = league_settings(play, True, str(directory / LOG_BUDGET_FILE))
            if key not in referees:
                referees[key] = Referee(key)
            try:
                record = referees[key].run(game.request(parse_spec(game.spec1),
                                                        parse_spec(game.spec2)))
                outcome = GameOutcome(game, record)
            except SpecError as exc:  # a side's files gone: the pair is chosen again
                outcome = GameOutcome(game, None, error=str(exc))
            source.done(outcome)
    finally:
        for referee in referees.values():
            referee.close()
        source.close()
    return source.stored
