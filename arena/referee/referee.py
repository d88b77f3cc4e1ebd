"""The referee: `MatchSettings` and `Referee`, which plays games between bot processes.

The referee owns the true board. Each bot runs in its own OS process (`arena.referee.process`) and
sees the game only through the line protocol (`arena.wire.protocol`, docs/protocol.md), so it can
never touch the referee's board. Per request the referee: writes the request, thaws the bot
(SIGCONT), waits for the answer with `select`/`poll` until limit + grace, freezes the bot again
(SIGSTOP). The time of a move runs from the system call that resumes the bot (its request
already written) to the kernel's arrival stamp of the answer line (so a referee thread kept off
its CPU, before resuming the bot or after its answer, does not count against the bot); a move
without an answer is judged once the bot is stopped again, with the kernel's evidence of what
held it (`_late`, docs/protocol.md). Every
bot fault (late, illegal, crashed, failed to start) ends the game as a `GameRecord` with the right
reason; `Referee.play` never raises because of a bot.

Bots run sandboxed (`arena.referee.sandbox`) unless `MatchSettings.isolation` says otherwise or the
machine cannot isolate (`auto`); each record says which in `extra["isolated"]`. Where the machine
offers cgroups (`arena.referee.cgroups`, unless `MatchSettings.cgroups` is False) each bot process
tree has a group of its own: its memory limit and task cap count everything it starts, going over
either is a `crash` whose detail says so ("out of memory: used more than 256 MiB; peak 256.0 MiB"),
everything in the group is stopped between turns (the cgroup v2 freezer; SIGSTOP on v1), and the CPU
its own children and threads take is its own time in the overload rule. Records then carry each
bot's peak memory (`extra["peak_memory_mb"]`) and the backend (`extra["cgroup"]`).

The referee starts bots from the launch values (`arena.wire.launch`) the entrants give it and
knows nothing of SPECs; its process pool is `arena.referee.pool`, the wording of every fault
`arena.referee.faults`.

Two hooks for a person at the board (`arena.play`): `play(untimed=...)` names seats whose
requests have no time limit, and `play(on_move=...)` is told of each legal move as it happens.
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import logging
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from arena import __version__, defaults
from arena.errors import UsageError
from arena.games import Game, GameError, Outcome
from arena.limits import Limits
from arena.records import NO_CGROUP, GameRecord, Reason, record_fields, record_label
from arena.referee import cgroups, containment
from arena.referee.faults import (
    FAILED_TO_START,
    MOVE_CAP_DETAIL,
    Fault,
    SeatFault,
    TooManyComments,
    comment_flood,
    game_time_detail,
    is_comment,
    line_of,
    parse,
    show,
    timeout_detail,
    with_memory,
)
from arena.referee.logcap import BUDGET_FILE
from arena.referee.pool import BotPool, Seat
from arena.referee.process import BotProcess, LineTooLong
from arena.referee.sandbox import MODES, Sandbox, resolve
from arena.wire import protocol
from arena.wire.launch import Launchable

__all__ = ["FAILED_TO_START", "MOVE_CAP_DETAIL", "GameRequest", "MatchSettings", "Referee",
           "game_time_limit_s"]

log = logging.getLogger("arena.referee")

#: how long one wait of an untimed seat lasts before it simply waits again (select() needs a
#: finite timeout)
_UNTIMED_WAIT_S = 3600.0
#: how long a fault's teardown goes on collecting the killed as they die, and how often it looks
_REAP_WAIT_S = 2.0
_REAP_POLL_S = 0.005


@dataclass(frozen=True)
class MatchSettings:
    """How games are refereed: the limits, and how bot processes are run."""

    limits: Limits
    fresh_process: bool = False  # True: a new process for every game
    cpu: int | None = None  # pin bot processes to this core
    log_dir: str | None = None  # bots' stdout/stderr logs go here (else a temp dir)
    #: the bot logs' budget (arena.referee.logcap), counted in this file, shared by every
    #: Referee logging there (None: log_dir's BUDGET_FILE, or the temp dir's)
    log_budget_file: str | None = None
    log_budget_mb: float | None = defaults.LOG_BUDGET_MB  # None: no budget
    #: replays of a game whose late move the machine caused (0: always charge the bot)
    overload_replays: int = defaults.OVERLOAD_REPLAYS
    isolation: str = defaults.ISOLATION  # auto | namespaces | none (arena.referee.sandbox)
    #: cxarena's own seats that never run sandboxed (a person's seat in `arena.play`, which
    #: talks to the user interface through a socket outside any sandbox); whole bot values,
    #: so a bot that merely shares a seat's SPEC text is not among them
    unsandboxed: tuple[Launchable, ...] = ()
    #: one cgroup per bot where the machine offers them (False: rlimits only)
    cgroups: bool = defaults.CGROUPS

    def __post_init__(self) -> None:
        if self.isolation not in MODES:
            raise ValueError(f"isolation must be one of {', '.join(MODES)}, got "
                             f"{self.isolation!r}")

    def for_worker(self, index: int, cpu: int | None) -> MatchSettings:
        """A worker's copy: pinned to `cpu` (None: as before), its bot logs in
        ``log_dir/worker-<index>`` (so the workers' log file names never collide)."""
        log_dir = None if self.log_dir is None else os.path.join(self.log_dir,
                                                                 f"worker-{index}")
        budget = self.log_budget_file  # one budget for the folder, shared by the workers
        if budget is None and self.log_dir is not None:
            budget = os.path.join(self.log_dir, BUDGET_FILE)
        return dataclasses.replace(self, cpu=self.cpu if cpu is None else cpu, log_dir=log_dir,
                                   log_budget_file=budget)

    def isolated_as(self, isolated: bool) -> MatchSettings:
        """A copy that follows what the coordinator resolved `auto` to."""
        return dataclasses.replace(self, isolation="namespaces" if isolated else "none")


@dataclass(frozen=True)
class GameRequest:
    """One game of `game` to play: p1 moves first. See `Referee.play` for the fields."""

    p1: Launchable
    p2: Launchable
    game: Game
    seed: int
    options: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})
    max_moves: int | None = None
    game_id: str | None = None
    #: the opening: move texts from the start, played for both sides
    opening: tuple[str, ...] = ()
    untimed: tuple[int, ...] = ()
    on_move: Callable[[int, str, float], None] | None = None

    @property
    def board_label(self) -> str:
        return record_label(self.game)


def course_game(M: int, N: int, K: int) -> Game:
    """The game of protocol version 1 (the course's: Connect-X) on an M x N board, K in a row
    (ValueError when the rules refuse it)."""
    cls = protocol.dialect_game(protocol.PROTOCOL_VERSION)
    if cls is None:
        raise ValueError("no installed game speaks protocol version 1")
    return cls(**cls.dialect_params([str(M), str(N), str(K)]))


def game_time_limit_s(limits: Limits, plies: int) -> float:
    """The wall-clock limit of a game of `plies` moves under `limits` (`defaults`:
    GAME_TIME_FACTOR x (start-up + (2 + plies) x (limit + grace)) + GAME_TIME_SLACK_S):
    generous, a backstop behind every read's own deadline."""
    return (defaults.GAME_TIME_FACTOR * (limits.startup_timeout_s
                                         + (2 + plies) * limits.deadline_s)
            + defaults.GAME_TIME_SLACK_S)


def _utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2025-01-31T12:00:00.123+00:00 (fromisoformat-able)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class _Game:
    """A game in progress: its request, seats, moves so far and, once over, how it ended."""

    req: GameRequest
    seats: list[Seat]
    started_at: str
    texts: list[str] = field(default_factory=list)  # the moves so far, as their texts
    times: list[float] = field(default_factory=list)
    current: int = 0  # the seat (0, 1) to move, or that faulted
    winner: int | None = None
    reason: Reason = Reason.DRAW
    detail: str = ""
    offender: int | None = None
    stderr_tail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # what the record's extra adds
    ply: int | None = None  # the move being asked for (None: before the first, in init)
    #: time.perf_counter() at the game's start, for its wall-clock limit (None: no limit, a
    #: game with an untimed seat)
    clock_start: float | None = None
    #: the plies its wall-clock limit is made for: its move cap, else its expected length
    #: (`Game.cost`, once per game: it may be dear)
    plies: int = 0

    def __post_init__(self) -> None:
        req = self.req
        self.plies = req.max_moves if req.max_moves is not None else math.ceil(req.game.cost())

    def time_limit_s(self, limits: Limits) -> float:
        """The game's wall-clock limit so far (`game_time_limit_s`): for `plies`, or the moves
        played where more (a long game of a game whose length is only estimated is never cut
        short for being long)."""
        return game_time_limit_s(limits, max(self.plies, self.ply or 0))

    def time_deadline(self, limits: Limits) -> float | None:
        """When the game's wall-clock limit ends (a time.perf_counter() value), or None."""
        if self.clock_start is None:
            return None
        return self.clock_start + self.time_limit_s(limits)

    def end(self, reason: Reason, winner: int | None, detail: str = "") -> None:
        self.reason, self.winner, self.detail = reason, winner, detail



def _since(proc: BotProcess, cpu_before: int | None
           ) -> tuple[dict[tuple[int, int], tuple[int, int]], int | None]:
    """The bot's thread times now (its processes were learned when it started; threads it
    started since are looked for) and its cgroup's CPU time since `cpu_before` (None without a
    cgroup)."""
    after = proc.task_times(threads_only=True)
    cpu_after = proc.cpu_usage_ns()
    return after, None if cpu_before is None or cpu_after is None else cpu_after - cpu_before

class Referee:
    """Plays games between bots (see the module docstring). A context manager; `close` kills
    every bot process group. One game at a time per Referee (a lock enforces it); run several
    Referees (e.g. one per thread, each with its own `cpu`) to play games in parallel."""

    _ids = itertools.count()

    def __init__(self, settings: MatchSettings) -> None:
        if settings.cpu is not None and not 0 <= settings.cpu < (os.cpu_count() or 1):
            raise ValueError(f"MatchSettings.cpu={settings.cpu}: no such core "
                             f"(this machine has {os.cpu_count()})")
        self.settings = settings
        self.limits = settings.limits
        #: whether bots run sandboxed (raises UsageError for `namespaces` where impossible)
        self.isolation = resolve(settings.isolation)
        #: set as CXARENA_TAG in every bot's environment (inherited by anything a bot forks)
        self.tag = f"{os.getpid()}-{next(self._ids)}-{time.time_ns() % 10**9}"
        #: what contains the bots beyond rlimits (`containment.summary()` says it in one line)
        self.containment = cgroups.detect() if settings.cgroups else cgroups.Support(
            "none", reason="cgroups were turned off")
        self._cgroups = cgroups.open_cgroups(settings.cgroups)
        self._pool = BotPool(settings.limits,
                             sandbox=Sandbox() if self.isolation.isolated else None,
                             tag=self.tag, log_dir=settings.log_dir, cpu=settings.cpu,
                             log_budget_file=settings.log_budget_file,
                             log_budget_mb=settings.log_budget_mb,
                             fresh_process=settings.fresh_process,
                             unsandboxed=settings.unsandboxed, cgroups=self._cgroups)
        self.log_dir = self._pool.log_dir
        self._lock = threading.Lock()
        self._games = 0
        #: the seats of the last game, released at the start of the next game or at close:
        #: a verdict never waits for the teardown ((seats, offender seat or None, finished))
        self._pending: tuple[list[Seat], int | None, bool] | None = None
        #: runs a fault's teardown once `run` has returned (started now: see `_Settler`)
        self._settler = _Settler(self._settle_locked)
        #: the last request's clock: how far its start moved past the writing of the request
        #: (`_resumed_at`), and its start on the clock of the kernel's arrival stamps
        self._clock_moved_ns = 0
        self._clock_start_ns = 0
        #: thread id -> a descriptor kept open on that referee thread's own schedstat
        self._own_fds: dict[int, int] = {}
        # processes of bots whose referee died (SIGKILL) and that no lifeline reached
        leftovers = containment.kill_leftovers()
        if leftovers:
            log.warning("event=leftovers-killed pids=%s: processes of bots whose referee "
                        "process had died", leftovers)
        if self._cgroups is not None:  # and their cgroups (once per process)
            try:
                gone = self._cgroups.prepare()
            except OSError as e:
                raise UsageError(f"cgroups: cannot prepare the bots' groups ({e}); turn "
                                 "cgroups off (cgroups: false, --no-cgroups) or see cxarena "
                                 "doctor") from e
            if gone:
                log.warning("event=leftover-cgroups-removed groups=%s: cgroups of bots whose "
                            "referee process had died", gone)
        atexit.register(self.close)

    def __enter__(self) -> Referee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ play
    def play(self, p1: Launchable, p2: Launchable, game: Game, seed: int,
             options1: Mapping[str, Any] | None = None,
             options2: Mapping[str, Any] | None = None,
             max_moves: int | None = None, game_id: str | None = None,
             opening: Sequence[str | int] = (), *, untimed: Collection[int] = (),
             on_move: Callable[[int, str, float], None] | None = None) -> GameRecord:
        """Play one game of `game` (`arena.games`; Connect-X on M x N x K:
        `course_game(M, N, K)`), p1 moving first (`run` with a `GameRequest` of these fields).

        `max_moves` caps the game for checks and tests (never in tournaments): a game still open
        after that many moves ends as a draw whose detail says it was stopped at the cap.
        `game_id` names the game in the header each bot's log gets before the game's lines
        (default: the Referee's tag and a game counter).

        `opening`: moves already played from the start (p1's first, alternating), an open
        position, as the moves' texts in the game's notation (a Connect-X column may be given
        as its number). Each bot receives them as `opponent` lines before its first `go`
        (docs/protocol.md); they are the first moves of the record, with time 0.0. Raises
        ValueError (before any bot is asked anything) if they are not legal or end the game.

        `untimed` names the players (1, 2) whose requests have no time limit (a person at the
        board, never in tournaments). `on_move(player, move_text, elapsed_ms)` is called after
        each legal move, in the referee's thread, before the game goes on."""
        return self.run(GameRequest(
            p1, p2, game, seed, (options1 or {}, options2 or {}), max_moves, game_id,
            tuple(t if isinstance(t, str) else str(int(t)) for t in opening),
            tuple(untimed), on_move))

    def run(self, req: GameRequest) -> GameRecord:
        """Play the game `req` asks for. Never raises because of a bot."""
        _check_opening(req)
        with self._lock:
            if self._pool.closed:
                raise RuntimeError("Referee is closed")
            incidents: list[str] = []
            while True:
                may_replay = len(incidents) < self.settings.overload_replays
                rec, incident = self._play_once(req, may_replay, len(incidents))
                if rec is not None:
                    break
                incidents.append(incident)
                log.warning("event=overload game=%s replay=%d detail=%s", req.game_id or "-",
                            len(incidents), incident)
            if incidents:
                rec = dataclasses.replace(rec, extra={**rec.extra, "overload": incidents})
            if not rec.is_fault:
                self._settle()  # an ordinary end: return the processes to the pool now
                return rec
        # a fault's verdict is in: the teardown (killing what is left of the bot, finding
        # escaped processes, reaping) runs right after, on the settle thread, under the lock
        self._settler.request()
        return rec

    def _settle_locked(self) -> None:
        """A fault's teardown (on the settle thread): release the seats, then collect the
        killed as they die, and remove their cgroups, without waiting for the next game (the
        lock is free between looks, so that a next game is not held up)."""
        end = time.perf_counter() + _REAP_WAIT_S
        with self._lock:
            if self._pool.closed:
                return
            self._settle()
            if self._pool.reap_dying():
                return
        while time.perf_counter() < end:
            time.sleep(_REAP_POLL_S)
            with self._lock:
                if self._pool.closed or self._pool.reap_dying():
                    return

    def teardown_done(self) -> bool:
        """True once the last game's seats are released: at once after an ordinary end;
        after a fault, once the settle thread ran the teardown (soon after `run` returned)."""
        with self._lock:
            return self._pending is None

    def _play_once(self, req: GameRequest, may_replay: bool,
                   replayed: int) -> tuple[GameRecord | None, str]:
        """One attempt at a game: (record, "") or, for a late move the machine caused while a
        replay is allowed, (None, what happened)."""
        self._settle()
        self._pool.reap_dying()
        version = protocol.version_of(req.game)
        seats = [self._pool.seat(bot, opts, i + 1 in req.untimed, version)
                 for i, (bot, opts) in enumerate(zip((req.p1, req.p2), req.options, strict=True))]
        game = _Game(req, seats, _utc_now(),
                     clock_start=None if req.untimed else time.perf_counter())
        finished = False  # False while a game is interrupted by a non-bot exception
        try:
            self._start(game)
            self._init_players(game)
            self._move_loop(game)
            finished = True
        except Fault as f:
            bad = seats[game.current]
            if f.overload and may_replay:  # not the bot's fault: play the game again
                if bad.proc is not None:
                    bad.proc.stop()  # it may be mid-computation: never reused
                game.offender = game.current + 1
                finished = True  # the opponent's process is fine to reuse
                return None, f.overload
            self._charge(game, f, replayed)
            finished = True
        finally:
            self._pending = (seats, game.offender, finished)
            if not finished:  # interrupted (Ctrl-C, a harness bug): clean up at once
                self._settle()
        return self._record(game), ""

    def _settle(self) -> None:
        """Release the last game's seats: a faulted or interrupted seat's process is killed,
        the others go back to the pool (one look at the process table for both: escaped
        orphans end with their game)."""
        if self._pending is None:
            return
        seats, offender, finished = self._pending
        self._pending = None
        unsandboxed = self._pool.sandbox is None or any(s.bot in self._pool.unsandboxed
                                                         for s in seats)
        table = containment.process_table() if finished and unsandboxed else None
        for i, seat in enumerate(seats):
            proc = seat.proc
            # interrupted: a bot may be mid-answer, so no reuse
            self._pool.release(seat, faulty=offender == i + 1 or not finished, table=table)
            if proc is not None:  # idle (or ending): no descriptor kept for its readings
                proc.unhold()

    def _start(self, game: _Game) -> None:
        """Processes for both seats (idle or new), and the game's header in their logs."""
        try:
            for seat in game.seats:
                self._pool.checkout(seat)
            self._pool.start(game.seats)
        except SeatFault as f:
            game.current = f.index
            raise
        self._games += 1
        req = game.req
        header = (f"game {req.game_id or f'{self.tag}-{self._games}'}: {req.p1.text} vs "
                  f"{req.p2.text} on {req.board_label}, seed {req.seed}, started "
                  f"{game.started_at}")
        for i, seat in enumerate(game.seats):
            if seat.proc is not None:
                seat.proc.reset_peak()  # the peak of this game
                # a new section of its log: of each game the log keeps a head and a tail
                seat.proc.log_section(f"===== cxarena {header}; this bot moves "
                                      f"{'first' if i == 0 else 'second'} =====")
                seat.log_offset = seat.proc.log_size()

    def _init_players(self, game: _Game) -> None:
        req = game.req
        what = req.game.CALLS[0]
        for i, seat in enumerate(game.seats):
            game.current = i
            msg = protocol.newgame(req.game, i + 1, self.limits.timeout_s, req.seed,
                                   seat.options)
            reply, seat.init_ms = self._request(seat, msg, what, False, game)
            if not isinstance(reply, protocol.Ok):
                raise Fault(Reason.CRASH, f"{what}: expected `ok NAME`, got "
                            f"{show(line_of(reply))}")
            seat.name = reply.name

    def _move_loop(self, game: _Game) -> None:
        """Ask for moves until the game is over (or reaches the request's move cap). One
        mutable position of the game (`Game.new_position`), moved in place; every move a seat
        did not make is sent to it once, the opening's included."""
        req = game.req
        pos = req.game.new_position()
        for text in req.opening:  # checked by _check_opening; nobody's move, 0 ms
            pos.play(text)
        game.texts.extend(req.opening)
        game.times.extend([0.0] * len(req.opening))
        call = req.game.CALLS[1]
        told = [0, 0]
        texts, times, on_move, max_moves = game.texts, game.times, req.on_move, req.max_moves
        while True:
            outcome = pos.outcome()
            if outcome is not None:
                return _end(game, outcome)
            if max_moves is not None and len(texts) >= max_moves:
                return game.end(Reason.DRAW, None, f"{MOVE_CAP_DETAIL} ({max_moves} moves)")
            game.current = current = pos.to_move()
            game.ply = len(texts) + 1
            what = f"{call} (move {game.ply})"
            msg = protocol.opponent_lines(texts[told[current]:])
            reply, elapsed_ms = self._request(game.seats[current], msg + protocol.go(), what,
                                              True, game)
            if not isinstance(reply, protocol.Play):
                raise Fault(Reason.ILLEGAL, f"{what}: expected `play MOVE`, got "
                            f"{show(line_of(reply))}")
            try:
                text = pos.play(reply.text)
            except GameError as e:
                raise Fault(Reason.ILLEGAL, f"{what}: {e}", move=reply.text[:200]) from None
            texts.append(text)
            times.append(elapsed_ms)
            told[current] = len(texts)
            if on_move is not None:
                on_move(current + 1, text, elapsed_ms)

    def _charge(self, game: _Game, f: Fault, replayed: int) -> None:
        """The faulting seat loses: kill its process at once (a hung bot and everything it
        forked stop) and keep the end of its stderr."""
        game.offender = game.current + 1
        if f.overload:  # no replay left: charged, saying why it may not be its fault
            f.detail = f.overload + (f"; charged after {replayed} overloaded replays"
                                     if replayed else "; charged (no replays allowed)")
            game.extra["charged_overloaded"] = replayed  # the same, as a field
        bad = game.seats[game.current]
        if bad.proc is not None:
            bad.proc.stop()  # at once; the rest of the teardown waits for `_settle`
            game.stderr_tail = bad.proc.stderr_tail(bad.log_offset)
            log.warning("event=bot-killed spec=%s pid=%d reason=%s detail=%s",
                        bad.launch.label, bad.proc.pid, f.reason.value, f.detail)
        # where and what, as fields (the report explains a fault from them, not from words)
        game.extra["fault_ply"] = game.ply
        if f.move is not None:
            game.extra["fault_move"] = f.move
        if f.late_ms is not None:
            game.extra["late_ms"] = f.late_ms
        game.end(f.reason, 2 - game.current, f.detail)

    def _record(self, game: _Game) -> GameRecord:
        req, seats = game.req, game.seats
        fields = record_fields(req.game, game.texts, req.opening)
        return GameRecord(
            p1=req.p1.text, p2=req.p2.text, names=(seats[0].name, seats[1].name),
            # microsecond resolution, as stored in JSON (so a record round-trips exactly)
            times_ms=tuple(round(t, 3) for t in game.times), winner=game.winner,
            reason=game.reason, detail=game.detail, seed=req.seed, offender=game.offender,
            stderr_tail=game.stderr_tail,
            init_ms=(round(seats[0].init_ms, 3), round(seats[1].init_ms, 3)),
            started_at=game.started_at, finished_at=_utc_now(), version=__version__,
            # start-up (process start to `ready`) of processes started for this game
            extra={"startup_ms": [seats[0].startup_ms, seats[1].startup_ms],
                   "isolated": self.isolation.isolated, **self._containment_extra(seats),
                   **game.extra},
            timeout_s=self.limits.timeout_s, grace_s=self.limits.grace_s,
            limits=self.limits.played_under(self.isolation.isolated, self.settings.cgroups),
            **fields)

    def _containment_extra(self, seats: list[Seat]) -> dict[str, Any]:
        """The cgroup backend and each bot's peak memory in MiB (None: not known), where bots
        have cgroups; "cgroup": "none" where they have rlimits only."""
        if self._cgroups is None:
            return {"cgroup": NO_CGROUP}
        peaks: list[float | None] = []
        for seat in seats:
            peak = seat.proc.memory_peak_bytes() if seat.proc is not None else None
            peaks.append(None if peak is None else round(peak / 2**20, 1))
        return {"cgroup": self.containment.backend, "peak_memory_mb": peaks}

    # -------------------------------------------------------------- requests
    def _request(self, seat: Seat, data: str, what: str, is_move: bool,
                 game: _Game) -> tuple[protocol.Reply, float]:
        """Send a timed request and return (reply, elapsed_ms); raises Fault."""
        proc = seat.proc
        assert proc is not None
        bad = Reason.ILLEGAL if is_move else Reason.CRASH
        try:
            comments = _no_stale_output(proc, what)
            return self._exchange(seat, proc, data, what, is_move, game, comments)
        except (EOFError, BrokenPipeError, ConnectionResetError) as e:
            closed = "stdin" if isinstance(e, (BrokenPipeError, ConnectionResetError)) else "stdout"
            proc.thaw()  # a stopped process cannot finish exiting
            how = proc.describe_exit()
            over = proc.limit_fault()
            if over is not None:  # its cgroup's limit (the kernel killed it for memory)
                raise Fault(Reason.CRASH, f"{what}: the bot {over}") from None
            detail = f"{what}: the bot {how}" if how else f"{what}: the bot closed its {closed}"
            tail = proc.stderr_tail(seat.log_offset)
            raise Fault(Reason.CRASH, with_memory(detail, self.limits.memory_limit_bytes,
                                                  proc.peak_kb(), tail)) from None
        except BlockingIOError:
            raise Fault(Reason.CRASH, f"{what}: the bot does not read its stdin") from None
        except LineTooLong as e:
            raise Fault(bad, f"{what}: answer too long ({e})") from None
        except protocol.ProtocolError as e:
            raise Fault(bad, f"{what}: {e}") from None
        except _Stale as e:
            raise Fault(bad, f"{what}: unsolicited output before the request{e}") from None
        except TooManyComments as e:
            raise Fault(bad, f"{what}: {e}") from None

    def _exchange(self, seat: Seat, proc: BotProcess, data: str, what: str, is_move: bool,
                  game: _Game, comments: tuple[int, int] = (0, 0)
                  ) -> tuple[protocol.Reply, float]:
        """Write the request, thaw the bot, wait for its answer line until the deadline (the
        move's, or the game's wall-clock limit if that comes first). Comment lines are
        counted against the caps (`comments`: those it wrote since its last answer)."""
        lim = self.limits
        max_lines, max_bytes = defaults.MAX_COMMENT_LINES, defaults.MAX_COMMENT_KB * 1024
        lines, nbytes = comments
        sched_before = proc.task_times()  # run-queue wait so far (the overload rule)
        runs_before = dict(proc.runs)  # how often each thread got on a CPU so far
        proc.note_blkio()  # its block-I/O delay so far, where the kernel keeps it
        cpu_before = proc.cpu_usage_ns()  # everything in its cgroup (None: no cgroup)
        referee_cpu_before = time.thread_time_ns()  # what reading its output costs us

        def excused_s() -> float:  # the machine's share of the move so far (docs/protocol.md)
            return self._excused_s(proc, sched_before, cpu_before, (lines, nbytes),
                                   time.thread_time_ns() - referee_cpu_before)

        # Write first, then resume: the bot wakes once, with its request already waiting.
        # Its clock starts when it is resumed (the system call that resumes it: `thaw`'s
        # `resumed_s`); a resumption that took long (the referee blocked in the kernel, e.g.
        # behind process churn) counts only for what the bot itself did meanwhile
        # (`_resumed_at`).
        proc.send(data.encode())
        own_before_ns = self._own_sched_ns()
        t0_ns = time.time_ns()  # the clock of the kernel's arrival stamps
        t0 = time.perf_counter()
        proc.thaw()
        t0, t0_ns = self._clock_start(proc, t0, t0_ns, sched_before, cpu_before,
                                      own_before_ns, runs_before)
        deadline = t0 + lim.deadline_s
        hard_s = defaults.FAIR_MAX_WALL_FACTOR * lim.deadline_s  # the hard wall limit
        game_deadline = game.time_deadline(lim)
        stop = deadline if game_deadline is None else min(deadline, game_deadline)
        while True:
            line = proc.read_line(time.perf_counter() + _UNTIMED_WAIT_S if seat.untimed
                                  else stop)
            elapsed_s = time.perf_counter() - t0
            if line is not None and proc.line_arrival_ns is not None:
                # When the answer reached the kernel, not when this thread got to it.
                arrived_s = (proc.line_arrival_ns - t0_ns) / 1e9
                if -0.001 <= arrived_s <= elapsed_s:  # sane (no wall-clock step)
                    elapsed_s = max(0.0, arrived_s)
            if line is None:
                if seat.untimed:
                    continue
                if game_deadline is not None and stop >= game_deadline:
                    proc.freeze()  # the game's wall-clock limit: no replay
                    raise Fault(Reason.TIMEOUT, game_time_detail(
                        what, game.time_limit_s(lim), elapsed_s))
                # the time the machine took: waited for, up to the hard wall limit
                later = t0 + min(lim.deadline_s + excused_s(), hard_s)
                if game_deadline is not None:
                    later = min(later, game_deadline)
                if later > time.perf_counter() + 0.0005:
                    stop = later
                    continue
                raise self._late(proc, sched_before, timeout_detail(
                    what, elapsed_s, lim.timeout_s, lim.grace_s, answered=False), elapsed_s,
                    cpu_before, (lines, nbytes), time.thread_time_ns() - referee_cpu_before,
                    runs_before)
            if is_comment(line):
                lines += 1
                nbytes += len(line) + 1
                if lines > max_lines or nbytes > max_bytes:
                    proc.freeze()
                    flood = comment_flood(lines, nbytes, max_lines, max_bytes, is_move)
                    assert flood is not None
                    raise flood
                continue
            reply = parse(line)
            proc.freeze()
            over = proc.limit_fault()
            if over is not None:
                raise Fault(Reason.CRASH, f"{what}: the bot {over}")
            if not seat.untimed and elapsed_s > lim.deadline_s:
                self._late_answer(proc, game, what, elapsed_s, excused_s(), hard_s,
                                  sched_before, cpu_before, (lines, nbytes),
                                  time.thread_time_ns() - referee_cpu_before)
            if isinstance(reply, protocol.ErrorReply):
                raise Fault(Reason.CRASH, with_memory(
                    f"{what} failed: {reply.text}", lim.memory_limit_bytes, proc.peak_kb()))
            return reply, elapsed_s * 1000.0

    def _late_answer(self, proc: BotProcess, game: _Game, what: str, elapsed_s: float,
                     machine_s: float, hard_s: float,
                     before: dict[tuple[int, int], tuple[int, int]], cpu_before: int | None,
                     comments: tuple[int, int], referee_cpu_ns: int) -> None:
        """An answer past the deadline by the wall clock: a timeout (raised) when its charged
        time (`containment.charged_s`) is still past it; else it stands, and the record keeps
        it (`extra["excused"]`: the ply, its wall time and the machine's share, in ms), for
        the account of a busy machine (`arena.results.fairness`)."""
        lim = self.limits
        if containment.charged_s(elapsed_s, machine_s, hard_s) > lim.deadline_s:
            raise self._late(proc, before, timeout_detail(
                what, elapsed_s, lim.timeout_s, lim.grace_s, answered=True), elapsed_s,
                cpu_before, comments, referee_cpu_ns)
        game.extra.setdefault("excused", []).append({
            "ply": game.ply, "elapsed_ms": round(elapsed_s * 1000, 3),
            "machine_ms": round(machine_s * 1000, 3)})

    def _own_sched_ns(self) -> int:
        """This referee thread's time on a CPU (its CPU clock, exact) plus its time waiting
        for one so far (its schedstat, one pread on a descriptor kept per thread; the
        schedstat's own run time lags by up to a tick), in ns; 0 where the kernel does not
        say."""
        tid = threading.get_native_id()
        try:
            fd = self._own_fds.get(tid)
            if fd is None:
                fd = self._own_fds[tid] = os.open(f"/proc/self/task/{tid}/schedstat",
                                                  os.O_RDONLY | os.O_CLOEXEC)
            wait_ns = int(os.pread(fd, 64, 0).split()[1])
        except (OSError, ValueError, IndexError):
            return 0
        return time.thread_time_ns() + wait_ns

    def _clock_start(self, proc: BotProcess, written_s: float, written_ns: int,
                     before: dict[tuple[int, int], tuple[int, int]], cpu_before: int | None,
                     own_before_ns: int, runs_before: Mapping[tuple[int, int], int]
                     ) -> tuple[float, int]:
        """When the bot's clock starts, as (time.perf_counter() s, time.time_ns()), given
        when its request was written: when `thaw` made the system call that resumed it (the
        referee kept off its CPU before that call is not the bot's time: the bot is stopped
        until it is made; issue 49), moved on by `_resumed_at`. Kept for the account of a late
        move (`_clock_moved_ns`, `_clock_start_ns`)."""
        t0, t0_ns = written_s, written_ns
        if proc.resumed_s > t0:
            t0, t0_ns = proc.resumed_s, proc.resumed_ns
        late_s = self._resumed_at(proc, t0, before, cpu_before, own_before_ns, runs_before)
        t0, t0_ns = t0 + late_s, t0_ns + round(late_s * 1e9)
        self._clock_moved_ns = round((t0 - written_s) * 1e9)
        self._clock_start_ns = t0_ns
        return t0, t0_ns

    def _resumed_at(self, proc: BotProcess, thaw_s: float,
                    before: dict[tuple[int, int], tuple[int, int]], cpu_before: int | None,
                    own_before_ns: int,
                    runs_before: Mapping[tuple[int, int], int] | None = None) -> float:
        """How long after `thaw_s` (perf_counter, when the referee began to resume the bot)
        the bot's clock starts: 0 when resuming took under THAW_SLOW_S (the usual case: one
        cheap check); else the time the referee's own thread was blocked meanwhile (neither
        on a CPU nor waiting for one: in the kernel, behind a lock, with the bot still
        stopped), and never more than the time resuming took less the bot's own CPU time and
        its wait for a CPU meanwhile (those stay in the move). Without this, a referee blocked
        in the signal or freezer call would be charged to the bot; without the first bound, a
        referee kept waiting for a CPU after the bot had woken (and gone to sleep: its own
        time) would not.

        First, though (issue 49): when none of the bot's threads got on a CPU since its request
        was written (`runs_before`: their counts of runs then; the kernel counts each) and its
        cgroup used no CPU, the bot has done nothing yet, whatever the referee was doing (even
        waiting for a CPU): its clock starts now."""
        took_s = time.perf_counter() - thaw_s
        if took_s < defaults.THAW_SLOW_S:
            return 0.0
        own_after_ns = self._own_sched_ns()
        after, own_cpu_ns = _since(proc, cpu_before)
        if runs_before and all(proc.runs.get(k) == n for k, n in runs_before.items()) \
                and not own_cpu_ns:
            return time.perf_counter() - thaw_s  # it has not run yet: nothing to take off
        used_ns = (containment.cpu_used_ns(before, after, own_cpu_ns)
                   + containment.machine_wait_ns(before, after, own_cpu_ns))
        late_s = took_s - used_ns / 1e9
        if own_before_ns and own_after_ns:  # the referee was blocked at most this long
            late_s = min(late_s, took_s - (own_after_ns - own_before_ns) / 1e9)
        return max(0.0, late_s)

    def _excused_s(self, proc: BotProcess, before: dict[tuple[int, int], tuple[int, int]],
                   cpu_before: int | None, comments: tuple[int, int], referee_cpu_ns: int
                   ) -> float:
        """How much of a move so far was the machine's: the bot's wait for a CPU beyond its
        own threads' use (`containment.machine_wait_ns`), less the referee's CPU on its
        output; nothing for a bot over its cgroup's limits or over the comment caps of the
        overload rule."""
        lines, nbytes = comments
        if (lines > defaults.OVERLOAD_MAX_COMMENT_LINES
                or nbytes > defaults.OVERLOAD_MAX_COMMENT_KB * 1024
                or proc.limit_fault() is not None):
            return 0.0
        after, own_cpu_ns = _since(proc, cpu_before)
        bot_wait_ns = containment.machine_wait_ns(before, after, own_cpu_ns) - referee_cpu_ns
        return max(0, bot_wait_ns) / 1e9

    def _late(self, proc: BotProcess, before: dict[tuple[int, int], tuple[int, int]],
              detail: str, elapsed_s: float, cpu_before: int | None = None,
              comments: tuple[int, int] = (0, 0), referee_cpu_ns: int = 0,
              runs_before: Mapping[tuple[int, int], int] | None = None) -> Fault:
        """The timeout fault of a late move, marked as the machine's (`overload`) when the
        bot's threads waited on a run queue, beyond what its own threads used, for at least
        the overrun and at least OVERLOAD_MIN_WAIT_SHARE of the limit (docs/protocol.md).
        With a cgroup, "its own" is everything in the group (children and threads born
        during the move included): only something outside the group can void the move.
        A bot over its cgroup's limits is charged for that instead.

        CPU the referee spent on the bot's output is the bot's own: the referee thread's CPU
        during the move (`referee_cpu_ns`) counts as the bot's, and a bot that wrote more
        `comments` (lines, bytes) than OVERLOAD_MAX_COMMENT_LINES / _KB during the move is
        charged at once, its detail saying so.

        A move that got no answer (`runs_before`: each thread's count of runs when the request
        was written; the bot is not yet frozen again) also gets the kernel's evidence
        (`BotProcess.hold`): when the bot computed at most STALL_MAX_CPU_MS and a thread of it
        is held by something not its own (runnable but never run, stopped, frozen, blocked in
        a page fault), it never got to play its move: the machine's, played again like an
        overloaded one (issue 49). A bot sleeping or waiting where it chose is charged, with
        its threads' states in the detail."""
        over = proc.limit_fault()
        if over is not None:
            return Fault(Reason.CRASH, f"{detail.split(':')[0]}: the bot {over}")
        lines, nbytes = comments
        if (lines > defaults.OVERLOAD_MAX_COMMENT_LINES
                or nbytes > defaults.OVERLOAD_MAX_COMMENT_KB * 1024):
            return Fault(Reason.TIMEOUT, f"{detail}; meanwhile it wrote {lines} comment lines "
                         f"({nbytes / 1024:.0f} KiB) to stdout, whose reading is its own time "
                         f"(no overload replay)")
        hold = None
        if runs_before is not None:  # no answer, the bot still running: what the kernel
            # shows of it now, then stopped, so that a wait for a CPU still going on ends
            # and counts (schedstat adds a wait when it ends)
            hold = proc.hold(0.0, runs_before)
            proc.freeze_settled(max(0.25, min(2.0, 2 * self.limits.deadline_s)))
        after, own_cpu_ns = _since(proc, cpu_before)
        # the referee's own CPU while it waited: reading the bot's output (the bot's doing)
        wait_ns = containment.machine_wait_ns(before, after, own_cpu_ns) - referee_cpu_ns
        limit_s = self.limits.timeout_s
        overrun_s = elapsed_s - limit_s
        cpu_s = containment.cpu_used_ns(before, after, own_cpu_ns) / 1e9
        # a wait counts only within the move: what the bot waited while being stopped after
        # the verdict (or beyond its wall time) is not part of it
        wait_s = min(max(0, wait_ns) / 1e9, max(0.0, elapsed_s - cpu_s))
        account = containment.move_account(elapsed_s, cpu_s, wait_s)
        late_ms = {"elapsed": round(elapsed_s * 1000, 3), "cpu": round(cpu_s * 1000, 3),
                   "cpu_wait": round(wait_s * 1000, 3)}
        if hold is not None:
            # (its cpu_ms so far: the CPU of processes the referee did not know of)
            hold = dataclasses.replace(hold, cpu_ms=hold.cpu_ms + cpu_s * 1000)
        evidence = "" if hold is None else hold.words()
        moved_ms = self._clock_moved_ns / 1e6
        if moved_ms >= 0.05:  # when the bot was resumed, after its request was written
            evidence += (f"; its clock started {moved_ms:.1f} ms after its request was "
                         f"written (resuming it took that long)")
        arrived_ns = proc.pending_arrival_ns()
        if arrived_ns is not None:
            evidence += (f"; an answer reached the kernel "
                         f"{(arrived_ns - self._clock_start_ns) / 1e6:.1f} ms into the move")
        if wait_s >= overrun_s and wait_s >= defaults.OVERLOAD_MIN_WAIT_SHARE * limit_s:
            return Fault(Reason.TIMEOUT, detail, overload=(
                f"{detail}; but the machine kept the bot waiting for a CPU {wait_s * 1000:.1f} "
                f"ms of it (overloaded){account}{evidence}"), late_ms=late_ms)
        held = "" if hold is None else hold.machine(defaults.STALL_MAX_CPU_MS)
        if held:
            late_ms["held"] = 1.0
            return Fault(Reason.TIMEOUT, detail, overload=(
                f"{detail}; but the bot never got to play it: {held} (the machine's)"
                f"{account}{evidence}"), late_ms=late_ms)
        return Fault(Reason.TIMEOUT, detail + account + evidence, late_ms=late_ms)

    def idle_pids(self) -> list[int]:
        """The process ids of the bots kept for their next game (`fresh_process=False`)."""
        with self._lock:
            return self._pool.idle_pids()

    def close(self) -> None:
        """Kill every bot process group (children included) and reap them. Idempotent."""
        with self._lock:
            if self._pool.closed:
                return
            self._settle()
            self._pool.close()
            self._settler.stop()
            for fd in self._own_fds.values():
                os.close(fd)
            self._own_fds.clear()
        atexit.unregister(self.close)


class _Settler:
    """The thread that runs a Referee's teardown after a fault's `run` has returned, one per
    Referee, started with it. Not a thread per fault: starting a thread waits until it runs,
    and on the referee's one core it then runs first, teardown and all, before the verdict is
    out (about 2.5 ms; docs/benchmarks.md, the hung bot's overshoot). Started again in a
    forked child (which has no copy of the thread)."""

    def __init__(self, job: Callable[[], None]) -> None:
        self._job = job
        self._pid = -1
        self._thread: threading.Thread | None = None
        self._wake: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self._ensure()

    def _ensure(self) -> None:
        if self._pid != os.getpid() or self._thread is None or not self._thread.is_alive():
            self._pid = os.getpid()
            self._wake = queue.SimpleQueue()
            self._thread = threading.Thread(target=self._loop, args=(self._wake,),
                                            name="cxarena-settle", daemon=True)
            self._thread.start()

    def _loop(self, wake: queue.SimpleQueue[bool]) -> None:
        while wake.get():
            self._job()

    def request(self) -> None:
        """Run the job soon, on the thread (without waiting for it)."""
        self._ensure()
        self._wake.put(True)

    def stop(self) -> None:
        """End the thread once the requests before this one have run."""
        self._wake.put(False)


class _Stale(Exception):
    """Output the bot wrote before it was asked (the text says what it was)."""


def _no_stale_output(proc: BotProcess, what: str) -> tuple[int, int]:
    """Raise _Stale for a line that is not a comment, written while no request was pending;
    else the (lines, bytes) of the comments it wrote meanwhile (they count against the caps
    of the request that follows)."""
    try:
        lines = proc.drain()
    except LineTooLong as e:
        raise _Stale(f" ({e})") from None
    stale = [ln for ln in lines if not is_comment(ln)]
    if stale:
        raise _Stale(f": {show(stale[0])}")
    return len(lines), sum(len(ln) + 1 for ln in lines)


def _check_opening(req: GameRequest) -> None:
    """ValueError unless the request's opening is legal and leaves the game open."""
    pos = req.game.new_position()
    for i, text in enumerate(req.opening):
        try:
            pos.play(text)
        except GameError as e:
            raise ValueError(f"opening {list(req.opening)}: move {i + 1} ({text}) is not legal "
                             f"on {req.board_label}: {e}") from None
        if pos.outcome() is not None:
            raise ValueError(f"opening {list(req.opening)}: the game is over after move "
                             f"{i + 1}")


def _end(game: _Game, outcome: Outcome) -> None:
    """End `game` as the rules say. A game may name the record's reason in the record's own
    words (Connect-X's position: ``connect``, ``draw``); else a win or a draw whose detail is
    the game's reason and sentence."""
    winner = None if outcome.winner is None else outcome.winner + 1
    if outcome.reason in (Reason.CONNECT.value, Reason.DRAW.value):
        return game.end(Reason(outcome.reason), winner, outcome.detail)
    detail = f"{outcome.reason}: {outcome.detail}" if outcome.detail else outcome.reason
    return game.end(Reason.DRAW if winner is None else Reason.WIN, winner, detail)
