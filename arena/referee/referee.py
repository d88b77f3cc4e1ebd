"""The referee: `MatchSettings` and `Referee`, which plays games between bot processes.

The referee owns the true board. Each bot runs in its own OS process (`arena.referee.process`) and
sees
the game only through the line protocol (`arena.referee.protocol`, docs/protocol.md), so it can
never
touch the referee's board. Per request the referee: writes the request, thaws the bot (SIGCONT),
waits for the answer with `select`/`poll` until limit + grace, freezes the bot again (SIGSTOP).
The time of a move runs from writing the request to the kernel's arrival stamp of the answer
line (so a referee thread woken late by a busy machine does not count against the bot). Every bot
fault (late, illegal, crashed, failed to start) ends the game as a `GameRecord` with the right
reason; `Referee.play` never raises because of a bot.

Bots run sandboxed (`arena.referee.sandbox`) unless `MatchSettings.isolation` says otherwise
or the machine cannot isolate (`auto`); each record says which in `extra["isolated"]`.

Processes are reused between games (one idle pool per argv + options, so self-play gets two)
unless `MatchSettings.fresh_process`; a process that faulted is always killed and replaced.

Two hooks for a person at the board (`arena.play`): `play(untimed=...)` names seats whose
requests have no time limit, and `play(on_move=...)` is told of each legal move as it happens.
"""

from __future__ import annotations

import atexit
import dataclasses
import itertools
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from arena import __version__, defaults
from arena.board import CXBoard, CXGameState
from arena.entrants.specs import BotSpec, bot_pythonpath
from arena.records import GameRecord, Reason
from arena.referee import containment, protocol
from arena.referee.lifeline import PARENT_ENV, wrap
from arena.referee.process import THREAD_ENV, BotProcess, LineTooLong, bot_limits
from arena.referee.sandbox import MODES, Sandbox, bot_paths, resolve

__all__ = ["FAILED_TO_START", "MOVE_CAP_DETAIL", "MatchSettings", "Referee"]

#: start of the detail of a crash because the bot never answered `hello` with `ready`
FAILED_TO_START = "failed to start"

#: bot process events (start, kill); in a tournament they reach results/<name>/arena.log
log = logging.getLogger("arena.referee")

#: start of the detail of a game stopped by `Referee.play(max_moves=...)`
MOVE_CAP_DETAIL = "stopped at the move cap"

#: how long one wait of an untimed seat lasts before it simply waits again (select() needs a
#: finite timeout)
_UNTIMED_WAIT_S = 3600.0


@dataclass(frozen=True)
class MatchSettings:
    """How games are refereed. Times in seconds."""

    timeout_s: float  # per-move limit, also for initPlayer
    grace_s: float = defaults.GRACE_S  # added before an answer counts as late
    startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S  # from process start to its `ready`
    memory_limit_bytes: int | None = defaults.MEMORY_LIMIT_MB * 2**20  # per bot (None: unlimited)
    fresh_process: bool = False  # True: a new process for every game
    cpu: int | None = None  # pin bot processes to this core
    log_dir: str | None = None  # bots' stdout/stderr logs go here (else a temp dir)
    #: replays of a game whose late move the machine caused (0: always charge the bot)
    overload_replays: int = defaults.OVERLOAD_REPLAYS
    isolation: str = defaults.ISOLATION  # auto | namespaces | none (arena.referee.sandbox)
    #: cxarena's own seats that never run sandboxed (a person's seat in `arena.play`, which
    #: talks to the user interface through a socket outside any sandbox); whole BotSpecs, so
    #: a bot that merely shares a seat's SPEC text is not among them
    unsandboxed: tuple[BotSpec, ...] = ()

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {self.timeout_s!r}")
        if self.grace_s < 0:
            raise ValueError(f"grace_s must be >= 0, got {self.grace_s!r}")
        mem = self.memory_limit_bytes
        if mem is not None and mem < defaults.MIN_MEMORY_MB * 2**20:
            raise ValueError(f"memory_limit_bytes must be at least {defaults.MIN_MEMORY_MB} MiB, "
                             f"got {mem}")
        if self.isolation not in MODES:
            raise ValueError(f"isolation must be one of {', '.join(MODES)}, got "
                             f"{self.isolation!r}")


class _Fault(Exception):
    """A bot fault inside `Referee.play`: ends the game (never escapes `play`)."""

    def __init__(self, reason: Reason, detail: str, overload: str = "") -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        #: set for a late move the machine caused (the run-queue wait accounts for it)
        self.overload = overload


#: what runtimes say when an allocation fails (Python MemoryError, Java OutOfMemoryError and
#: "insufficient memory for the Java Runtime", C++ bad_alloc, C perror/strerror of ENOMEM, Go)
_MEMORY_HINTS = ("memoryerror", "out of memory", "cannot allocate memory", "bad_alloc",
                 "memory exhausted", "insufficient memory", "not enough space (errno=12)",
                 "errno=12")
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def _utc_now() -> str:
    """ISO 8601 UTC with milliseconds, e.g. 2025-01-31T12:00:00.123+00:00 (fromisoformat-able)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class _Seat:
    """One side of a game in progress: its process and what we learned of it."""

    spec: BotSpec
    options: dict[str, Any]
    key: tuple[Any, ...]
    proc: BotProcess | None = None
    ready: bool = False  # proc has answered `hello`
    log_offset: int = 0
    name: str = ""
    init_ms: float = 0.0
    startup_ms: float | None = None  # hello -> ready of a process started for this game
    untimed: bool = False  # no time limit on this seat's requests (a person at the board)


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
        #: whether bots run sandboxed (raises UsageError for `namespaces` where impossible)
        self.isolation = resolve(settings.isolation)
        self._sandbox = Sandbox() if self.isolation.isolated else None
        self._bot_paths: dict[str, list[str]] = {}
        #: set as CXARENA_TAG in every bot's environment (inherited by anything a bot forks)
        self.tag = f"{os.getpid()}-{next(self._ids)}-{time.time_ns() % 10**9}"
        self._idle: dict[tuple[Any, ...], list[BotProcess]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._seq = itertools.count(1)
        self._dying: list[BotProcess] = []
        self._games = 0
        self._own_log_dir = settings.log_dir is None
        self.log_dir = settings.log_dir or tempfile.mkdtemp(prefix="cxarena-logs-")
        os.makedirs(self.log_dir, exist_ok=True)
        # processes of bots whose referee died (SIGKILL) and that no lifeline reached
        leftovers = containment.kill_leftovers()
        if leftovers:
            log.warning("event=leftovers-killed pids=%s: processes of bots whose referee "
                        "process had died", leftovers)
        atexit.register(self.close)

    def __enter__(self) -> Referee:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ processes
    def _env(self, spec: BotSpec) -> dict[str, str]:
        env = dict(os.environ)
        env.update(THREAD_ENV)
        env["CXARENA_PROTOCOL"] = str(protocol.PROTOCOL_VERSION)
        env["CXARENA_TAG"] = self.tag
        env[PARENT_ENV] = str(os.getpid())
        if spec.is_python:
            env["PYTHONUNBUFFERED"] = "1"
            env["PYTHONPATH"] = bot_pythonpath()
        return env

    def _spawn(self, spec: BotSpec, options: Mapping[str, Any]) -> BotProcess:
        """Start a bot process (raises OSError if it cannot be executed)."""
        label = _SAFE_NAME.sub("_", spec.text)[:60].strip("_") or "bot"
        # the pid keeps the names of Referees sharing one log_dir apart
        log_path = os.path.join(self.log_dir, f"{label}-{os.getpid()}-{next(self._seq)}.log")
        s = self.settings
        argv = spec.argv(options)  # options: a Java bot's jvm_options
        if self._sandbox is None or spec in s.unsandboxed:
            if not spec.is_python:
                argv = wrap(argv, os.getpid(), bot_limits(s.memory_limit_bytes))
            return BotProcess(argv, log_path=log_path, env=self._env(spec), cpu=s.cpu,
                              memory_limit_bytes=s.memory_limit_bytes,
                              max_line_bytes=protocol.MAX_LINE_BYTES)
        # bwrap's --die-with-parent replaces the lifeline (whose parent check sees the
        # sandbox's init, not the referee)
        if spec.text not in self._bot_paths:
            self._bot_paths[spec.text] = bot_paths(spec)
        launch = self._sandbox.launch(argv, self._bot_paths[spec.text])
        try:
            proc = BotProcess(launch.argv, log_path=log_path,
                              env=Sandbox.env(self._env(spec), drop=[PARENT_ENV]), cpu=s.cpu,
                              memory_limit_bytes=s.memory_limit_bytes,
                              max_line_bytes=protocol.MAX_LINE_BYTES,
                              pass_fds=launch.pass_fds, status_from_wrapper=True)
            launch.release()  # the limits are on bwrap's pid: now it may fork the bot
        finally:
            launch.close()
        return proc

    def _handshake(self, proc: BotProcess, started_s: float) -> None:
        """`hello` -> `ready` within the start-up limit; raises _Fault(crash) whose detail keeps
        the first and last lines the bot wrote to stdout and stderr."""
        seen: list[bytes] = []
        try:
            self._hello(proc, started_s, seen)
        except _Fault as f:
            raise _Fault(f.reason, f.detail + _startup_output(proc, seen)) from None

    def _hello(self, proc: BotProcess, started_s: float, seen: list[bytes]) -> None:
        limit_s = self.settings.startup_timeout_s
        try:
            proc.send(protocol.hello().encode())
            while True:
                line = proc.read_line(started_s + limit_s)
                if line is None:
                    raise _Fault(Reason.CRASH,
                                 f"{FAILED_TO_START}: no `ready` within {limit_s:g} s")
                seen.append(line)
                reply = protocol.parse_reply(line.decode("utf-8", "replace"))
                if isinstance(reply, protocol.Comment):
                    continue
                if isinstance(reply, protocol.Ready):
                    if reply.version != protocol.PROTOCOL_VERSION:
                        raise _Fault(Reason.CRASH, f"{FAILED_TO_START}: speaks protocol version "
                                     f"{reply.version}, the referee {protocol.PROTOCOL_VERSION}")
                    proc.freeze()
                    return
                if isinstance(reply, protocol.ErrorReply):
                    raise _Fault(Reason.CRASH, f"{FAILED_TO_START}: {reply.text}")
                raise _Fault(Reason.CRASH,
                             f"{FAILED_TO_START}: answered `hello` with {line[:200]!r}")
        except (EOFError, OSError) as e:
            how = proc.describe_exit()
            raise _Fault(Reason.CRASH, self._with_memory(f"{FAILED_TO_START}: {how or e}", proc,
                                                         proc.stderr_tail())) from None
        except (protocol.ProtocolError, LineTooLong) as e:
            raise _Fault(Reason.CRASH, f"{FAILED_TO_START}: {e}") from None

    def _checkout(self, seat: _Seat) -> None:
        """Give the seat a live, ready process: an idle one, else a new one (started, not yet
        handshaken: see `_start_seats`)."""
        if not self.settings.fresh_process:
            pool = self._idle.get(seat.key, [])
            while pool:
                proc = pool.pop()
                if proc.alive():
                    seat.proc, seat.ready = proc, True
                    return
                self._discard(proc)

    def _start_seats(self, seats: list[_Seat]) -> None:
        """Start the seats that have no process (both at once) and handshake them.
        Raises _SeatFault for the first seat that fails."""
        started: list[tuple[int, float]] = []
        for i, seat in enumerate(seats):
            if seat.proc is None:
                t0 = time.perf_counter()
                try:
                    seat.proc = self._spawn(seat.spec, seat.options)
                except OSError as e:
                    raise _SeatFault(i, Reason.CRASH, f"{FAILED_TO_START}: {e}") from None
                started.append((i, t0))
        for i, t0 in started:
            proc = seats[i].proc
            assert proc is not None
            try:
                self._handshake(proc, t0)
            except _Fault as f:
                raise _SeatFault(i, f.reason, f.detail) from None
            proc.task_times(refresh=True)  # its processes now (a wrapper started the bot)
            seats[i].ready = True
            seats[i].startup_ms = round((time.perf_counter() - t0) * 1000, 3)
            log.info("event=bot-start spec=%s pid=%d startup_ms=%.0f log=%s", seats[i].spec.text,
                     proc.pid, seats[i].startup_ms, proc.log_path)

    def _release(self, seat: _Seat, faulty: bool,
                 table: containment.ProcessTable | None = None) -> None:
        proc = seat.proc
        seat.proc = None
        if proc is None:
            return
        if (faulty or not seat.ready or self.settings.fresh_process or self._closed
                or not proc.alive()):
            if faulty or not seat.ready:
                proc.kill()
                self._dying.append(proc)
            else:
                proc.close(protocol.quit().encode())
            return
        escaped = proc.kill_escaped(table)  # a double fork's orphans end with the game
        if escaped:
            log.warning("event=escaped-killed spec=%s pid=%d pids=%s: processes the bot "
                        "started outside its process group", seat.spec.text, proc.pid, escaped)
        proc.freeze()
        self._idle.setdefault(seat.key, []).append(proc)

    def _discard(self, proc: BotProcess) -> None:
        proc.kill()
        self._dying.append(proc)

    def _reap_dying(self) -> None:
        self._dying = [p for p in self._dying if not (p.reap(0.0) and p.settled())]

    # -------------------------------------------------------------- requests
    def _request(self, seat: _Seat, data: str, what: str, is_move: bool) -> tuple[
            protocol.Reply, float]:
        """Send a timed request and return (reply, elapsed_ms); raises _Fault."""
        proc = seat.proc
        assert proc is not None
        bad = Reason.ILLEGAL if is_move else Reason.CRASH
        limit_s = self.settings.timeout_s
        try:
            stale = [ln for ln in proc.drain() if not _is_comment(ln)]
        except LineTooLong as e:
            raise _Fault(bad, f"{what}: unsolicited output before the request ({e})") from None
        if stale:
            raise _Fault(bad, f"{what}: unsolicited output before the request: "
                         f"{_show(stale[0])}")
        sched_before = proc.task_times()  # run-queue wait so far (the overload rule)
        t0_ns = time.time_ns()  # the clock of the kernel's arrival stamps
        t0 = time.perf_counter()
        deadline = t0 + limit_s + self.settings.grace_s
        try:
            # Write first, then resume: the bot wakes once, with its request already waiting.
            proc.send(data.encode())
            proc.thaw()
            while True:
                line = proc.read_line(time.perf_counter() + _UNTIMED_WAIT_S if seat.untimed
                                      else deadline)
                elapsed_s = time.perf_counter() - t0
                if line is not None and proc.line_arrival_ns is not None:
                    # When the answer reached the kernel, not when this thread got to it.
                    arrived_s = (proc.line_arrival_ns - t0_ns) / 1e9
                    if -0.001 <= arrived_s <= elapsed_s:  # sane (no wall-clock step)
                        elapsed_s = max(0.0, arrived_s)
                if line is None:
                    if seat.untimed:
                        continue
                    raise self._late(proc, sched_before, _timeout_detail(
                        what, elapsed_s, limit_s, self.settings.grace_s, answered=False),
                        elapsed_s)
                reply = _parse(line)
                if isinstance(reply, protocol.Comment):
                    continue
                proc.freeze()
                if not seat.untimed and elapsed_s > limit_s + self.settings.grace_s:
                    raise self._late(proc, sched_before, _timeout_detail(
                        what, elapsed_s, limit_s, self.settings.grace_s, answered=True),
                        elapsed_s)
                if isinstance(reply, protocol.ErrorReply):
                    raise _Fault(Reason.CRASH,
                                 self._with_memory(f"{what} failed: {reply.text}", proc))
                return reply, elapsed_s * 1000.0
        except (EOFError, BrokenPipeError, ConnectionResetError) as e:
            closed = "stdin" if isinstance(e, (BrokenPipeError, ConnectionResetError)) else "stdout"
            proc.thaw()  # a stopped process cannot finish exiting
            how = proc.describe_exit()
            detail = f"{what}: the bot {how}" if how else f"{what}: the bot closed its {closed}"
            tail = proc.stderr_tail(seat.log_offset)
            raise _Fault(Reason.CRASH, self._with_memory(detail, proc, tail)) from None
        except BlockingIOError:
            raise _Fault(Reason.CRASH, f"{what}: the bot does not read its stdin") from None
        except LineTooLong as e:
            raise _Fault(bad, f"{what}: answer too long ({e})") from None
        except protocol.ProtocolError as e:
            raise _Fault(bad, f"{what}: {e}") from None

    def _late(self, proc: BotProcess, before: dict[tuple[int, int], tuple[int, int]],
              detail: str, elapsed_s: float) -> _Fault:
        """The timeout fault of a late move, marked as the machine's (`overload`) when the
        bot's threads waited on a run queue, beyond what its own threads used, for at least
        the overrun and at least OVERLOAD_MIN_WAIT_SHARE of the limit (docs/protocol.md)."""
        wait_s = containment.machine_wait_ns(before, proc.task_times(refresh=True)) / 1e9
        limit_s = self.settings.timeout_s
        overrun_s = elapsed_s - limit_s
        if wait_s >= overrun_s and wait_s >= defaults.OVERLOAD_MIN_WAIT_SHARE * limit_s:
            return _Fault(Reason.TIMEOUT, detail, overload=(
                f"{detail}; but the machine kept the bot waiting for a CPU {wait_s * 1000:.1f} "
                f"ms of it (overloaded)"))
        return _Fault(Reason.TIMEOUT, detail)

    def _with_memory(self, detail: str, proc: BotProcess, tail: str = "") -> str:
        """Say so when a crash looks like running out of memory (detail then has "memory"):
        the bot or its stderr reports an allocation failure, or its peak resident memory
        (wait4) reached 80% of the limit."""
        text = f"{detail}\n{tail}".lower()
        lim = self.settings.memory_limit_bytes
        peak_kb = proc.max_rss_kb
        near_limit = bool(lim and peak_kb and peak_kb * 1024 >= 0.8 * lim)
        if any(h in text for h in _MEMORY_HINTS) or near_limit:
            limit = f"memory limit {lim / 2**20:g} MB" if lim else "no memory limit"
            if "out of memory" not in detail:
                detail += "; out of memory"
            peak = f", peak {peak_kb / 1024:.0f} MB resident" if peak_kb else ""
            detail += f" ({limit}{peak})"
        return detail

    # ------------------------------------------------------------------ play
    def play(self, p1: BotSpec, p2: BotSpec, M: int, N: int, K: int, seed: int,
             options1: Mapping[str, Any] | None = None,
             options2: Mapping[str, Any] | None = None,
             max_moves: int | None = None, game_id: str | None = None,
             opening: Sequence[int] = (), *, untimed: Collection[int] = (),
             on_move: Callable[[int, int, float], None] | None = None) -> GameRecord:
        """Play one game, p1 moving first. Never raises because of a bot.

        `max_moves` caps the game for checks and tests (never in tournaments): a game still open
        after that many moves ends as a draw whose detail says it was stopped at the cap.
        `game_id` names the game in the header each bot's log gets before the game's lines
        (default: the Referee's tag and a game counter).

        `opening`: columns already played from the empty board (p1's first, alternating), an
        open position. Each bot receives them as `opponent` lines before its first `go`
        (docs/protocol.md); they are the first moves of the record, with time 0.0. Raises
        ValueError (before any bot is asked anything) if they are not legal or end the game.

        `untimed` names the players (1, 2) whose requests have no time limit (a person at the
        board, never in tournaments). `on_move(player, column, elapsed_ms)` is called after
        each legal move, in the referee's thread, before the game goes on."""
        opening = tuple(int(c) for c in opening)
        start = CXBoard(M, N, K)
        for i, c in enumerate(opening):
            if c not in start.getAvailableColumns():
                raise ValueError(f"opening {list(opening)}: move {i + 1} (column {c}) is not "
                                 f"legal on {M}x{N} K={K}")
            if start.markColumn(c) is not CXGameState.OPEN:
                raise ValueError(f"opening {list(opening)}: the game is over after move {i + 1}")
        with self._lock:
            if self._closed:
                raise RuntimeError("Referee is closed")
            incidents: list[str] = []
            while True:
                replays_left = self.settings.overload_replays - len(incidents)
                rec, incident = self._play_once(p1, p2, M, N, K, seed, options1, options2,
                                                max_moves, game_id, replays_left > 0,
                                                len(incidents), start, opening,
                                                tuple(untimed), on_move)
                if rec is not None:
                    break
                incidents.append(incident)
                log.warning("event=overload game=%s replay=%d detail=%s", game_id or "-",
                            len(incidents), incident)
            if incidents:
                rec = dataclasses.replace(rec, extra={**rec.extra, "overload": incidents})
            return rec

    def _play_once(self, p1: BotSpec, p2: BotSpec, M: int, N: int, K: int, seed: int,
                   options1: Mapping[str, Any] | None, options2: Mapping[str, Any] | None,
                   max_moves: int | None, game_id: str | None,
                   may_replay: bool, replayed: int, start: CXBoard,
                   opening: tuple[int, ...], untimed: tuple[int, ...] = (),
                   on_move: Callable[[int, int, float], None] | None = None,
                   ) -> tuple[GameRecord | None, str]:
        """One attempt at a game: (record, "") or, for a late move the machine caused while a
        replay is allowed, (None, what happened)."""
        self._reap_dying()
        seats = [self._seat(p1, options1), self._seat(p2, options2)]
        for i, seat in enumerate(seats):
            seat.untimed = i + 1 in untimed
        started_at = _utc_now()
        moves: list[int] = []
        times: list[float] = []
        winner: int | None = None
        reason = Reason.DRAW
        detail = ""
        offender: int | None = None
        stderr_tail = ""
        current = 0
        finished = False  # False while a game is interrupted by a non-bot exception
        try:
            try:
                for seat in seats:
                    self._checkout(seat)
                self._start_seats(seats)
            except _SeatFault as f:
                current = f.index
                raise _Fault(f.reason, f.detail) from None
            self._games += 1
            header = (f"game {game_id or f'{self.tag}-{self._games}'}: {p1.text} vs "
                      f"{p2.text} on {M}x{N}x{K}, seed {seed}, started {started_at}")
            for i, seat in enumerate(seats):
                if seat.proc is not None:
                    _log_header(seat.proc.log_path, f"{header}; this bot moves "
                                f"{'first' if i == 0 else 'second'}")
                    seat.log_offset = seat.proc.log_size()
            for i, seat in enumerate(seats):
                current = i
                msg = protocol.newgame(M, N, K, i + 1, self.settings.timeout_s, seed,
                                       seat.options)
                reply, seat.init_ms = self._request(seat, msg, "initPlayer", False)
                if not isinstance(reply, protocol.Ok):
                    raise _Fault(Reason.CRASH, f"initPlayer: expected `ok NAME`, got "
                                 f"{_show(_line_of(reply))}")
                seat.name = reply.name
            board = start.copy()
            moves.extend(opening)
            times.extend([0.0] * len(opening))
            told = [0, 0]  # moves each seat knows (every move it did not make is sent once)
            while True:
                current = board.currentPlayer()
                seat = seats[current]
                what = f"selectColumn (move {len(moves) + 1})"
                msg = "".join(protocol.opponent(c) for c in moves[told[current]:])
                reply, elapsed_ms = self._request(seat, msg + protocol.go(), what, True)
                col = _legal_column(reply, board, what)
                state = board.markColumn(col)
                moves.append(col)
                times.append(elapsed_ms)
                told[current] = len(moves)
                if on_move is not None:
                    on_move(current + 1, col, elapsed_ms)
                if state is CXGameState.OPEN:
                    if max_moves is not None and len(moves) >= max_moves:
                        reason, winner = Reason.DRAW, None
                        detail = f"{MOVE_CAP_DETAIL} ({max_moves} moves)"
                        break
                    continue
                if state is CXGameState.DRAW:
                    reason, winner = Reason.DRAW, None
                else:
                    reason, winner = Reason.CONNECT, current + 1
                break
            finished = True
        except _Fault as f:
            offender = current + 1
            bad = seats[current]
            if f.overload and may_replay:  # not the bot's fault: play the game again
                if bad.proc is not None:
                    bad.proc.kill()  # it may be mid-computation: never reused
                finished = True  # the opponent's process is fine to reuse
                return None, f.overload
            if f.overload:  # no replay left: charged, saying why it may not be its fault
                f.detail = f.overload + (f"; charged after {replayed} overloaded replays"
                                         if replayed else "; charged (no replays allowed)")
            if bad.proc is not None:
                bad.proc.kill()  # at once: stops a hung bot and everything it forked
                stderr_tail = bad.proc.stderr_tail(bad.log_offset)
                log.warning("event=bot-killed spec=%s pid=%d reason=%s detail=%s",
                            bad.spec.text, bad.proc.pid, f.reason.value, f.detail)
            reason, detail, winner = f.reason, f.detail, 2 - current
            finished = True
        finally:
            # one look at the process table for both bots (escaped orphans end with the game)
            table = containment.process_table() if finished else None
            for i, seat in enumerate(seats):
                # interrupted (Ctrl-C, a harness bug): a bot may be mid-answer, so no reuse
                self._release(seat, faulty=offender == i + 1 or not finished, table=table)
        # microsecond resolution, as stored in JSON (so a record round-trips exactly)
        times_ms = [round(t, 3) for t in times]
        return GameRecord(
            M=M, N=N, K=K, p1=p1.text, p2=p2.text, names=(seats[0].name, seats[1].name),
            moves=tuple(moves), times_ms=tuple(times_ms), winner=winner, reason=reason,
            detail=detail, seed=seed, offender=offender, stderr_tail=stderr_tail,
            init_ms=(round(seats[0].init_ms, 3), round(seats[1].init_ms, 3)),
            started_at=started_at, finished_at=_utc_now(), version=__version__,
            # start-up (process start to `ready`) of processes started for this game
            extra={"startup_ms": [seats[0].startup_ms, seats[1].startup_ms],
                   "isolated": self.isolation.isolated},
            opening=opening), ""

    def _seat(self, spec: BotSpec, options: Mapping[str, Any] | None) -> _Seat:
        opts = dict(options or {})
        try:
            opts_key = json.dumps(opts, sort_keys=True)
        except TypeError as e:
            raise ValueError(f"options for {spec.text!r} must be JSON values: {e}") from None
        return _Seat(spec=spec, options=opts, key=(tuple(spec.argv(opts)), opts_key))

    def close(self) -> None:
        """Kill every bot process group (children included) and reap them. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            procs = [p for pool in self._idle.values() for p in pool]
            self._idle.clear()
            quit_msg = protocol.quit().encode()
            for p in procs:  # ask them all at once, then give them a moment together
                if p.alive():
                    p.thaw()
                    try:
                        p.send(quit_msg)
                    except OSError:
                        pass
            end = time.perf_counter() + 0.2
            for p in procs:
                p.wait_exit(max(0.0, end - time.perf_counter()))
            for p in procs + self._dying:
                p.close()
            self._dying.clear()
            if self._own_log_dir:
                shutil.rmtree(self.log_dir, ignore_errors=True)
        atexit.unregister(self.close)


class _SeatFault(Exception):
    def __init__(self, index: int, reason: Reason, detail: str) -> None:
        super().__init__(detail)
        self.index = index
        self.reason = reason
        self.detail = detail


def _log_header(path: str, text: str) -> None:
    """Append a game's header line to a bot's log (so its lines of that game can be found)."""
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"===== cxarena {text} =====\n")
    except OSError:
        pass


def _first_last(lines: list[str]) -> str:
    shown = [repr(ln[:200]) for ln in lines]
    if len(shown) <= 2:
        return ", ".join(shown)
    return f"{shown[0]} ... {shown[-1]} ({len(shown)} lines)"


def _startup_output(proc: BotProcess, seen: list[bytes]) -> str:
    """"; its stdout: FIRST ... LAST; its stderr: FIRST ... LAST" for a bot that failed to
    start (what it said: a JVM's reason comes on its last line), or "" if it said nothing."""
    proc.wait_exit(0.3)  # let a dying process finish writing
    try:
        later = proc.drain()
    except (LineTooLong, OSError):
        later = []
    out = [ln.decode("utf-8", "replace").rstrip() for ln in seen + later]
    out = [ln for ln in out if ln.strip()]
    err = [ln for ln in _read_lines(proc.log_path) if ln.strip()]
    parts = []
    if out:
        parts.append(f"its stdout: {_first_last(out)}")
    if err:
        parts.append(f"its stderr: {_first_last(err)}")
    return "".join(f"; {p}" for p in parts)


def _read_lines(path: str, max_bytes: int = 1 << 20) -> list[str]:
    try:
        with open(path, "rb") as f:
            head = f.read(max_bytes)
            size = f.seek(0, os.SEEK_END)
            if size > max_bytes:  # the first and the last lines are what matter
                f.seek(max(max_bytes, size - 65536))
                head += b"\n" + f.read()
    except OSError:
        return []
    return [ln.rstrip() for ln in head.decode("utf-8", "replace").splitlines()]


def _parse(line: bytes) -> protocol.Reply:
    return protocol.parse_reply(line.decode("utf-8", "backslashreplace"))


def _is_comment(line: bytes) -> bool:
    """A line the protocol ignores (empty or starting with #); anything else, even a line that
    does not parse, is output the bot was not asked for."""
    try:
        return isinstance(_parse(line), protocol.Comment)
    except protocol.ProtocolError:
        return False


def _show(line: bytes | str) -> str:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "backslashreplace")
    return repr(line[:200])


def _line_of(reply: protocol.Reply) -> str:
    if isinstance(reply, protocol.Ready):
        return f"ready {reply.version}"
    if isinstance(reply, protocol.Ok):
        return f"ok {reply.name}"
    if isinstance(reply, protocol.Play):
        return f"play {reply.text}"
    return str(reply)


def _legal_column(reply: protocol.Reply, board: CXBoard, what: str) -> int:
    if not isinstance(reply, protocol.Play):
        raise _Fault(Reason.ILLEGAL, f"{what}: expected `play COLUMN`, got "
                     f"{_show(_line_of(reply))}")
    if reply.column is None:
        raise _Fault(Reason.ILLEGAL, f"{what}: answer {reply.text!r} is not an integer")
    col = reply.column
    if not 0 <= col < board.N:
        text = reply.text
        shown = text if len(text) <= 30 else f"{text[:20]}... ({len(text)} chars)"
        raise _Fault(Reason.ILLEGAL, f"{what}: column {shown} is out of range 0..{board.N - 1}")
    if board.fullColumn(col):
        raise _Fault(Reason.ILLEGAL, f"{what}: column {col} is full")
    return col


def _timeout_detail(what: str, elapsed_s: float, limit_s: float, grace_s: float,
                    answered: bool) -> str:
    over_ms = (elapsed_s - limit_s) * 1000.0
    how = "answered after" if answered else "no answer after"
    return (f"{what}: {how} {elapsed_s * 1000:.1f} ms, over the {limit_s * 1000:g} ms limit by "
            f"{over_ms:.1f} ms (grace {grace_s * 1000:g} ms)")



