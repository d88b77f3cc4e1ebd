"""The bot processes of one Referee: started (sandboxed or not), handshaken, kept idle between
games for reuse, and killed and reaped when they fault or the Referee closes.

Processes are reused between games (one idle pool per launch value, so self-play gets two)
unless `fresh_process`; a process that faulted is always killed and replaced.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena import defaults
from arena.limits import Limits
from arena.records import Reason
from arena.referee import containment
from arena.referee.cgroups import Cgroups
from arena.referee.faults import FAILED_TO_START, Fault, SeatFault, startup_output, with_memory
from arena.referee.logcap import BUDGET_FILE, LogBudget
from arena.referee.process import THREAD_ENV, BotProcess, LineTooLong, bot_limits, task_cap
from arena.referee.sandbox import Sandbox
from arena.wire import protocol
from arena.wire.launch import BotLaunch, Launchable
from arena.wire.lifeline import PARENT_ENV, wrap

__all__ = ["BotPool", "Seat"]

#: bot process events (start, kill); in a tournament they reach results/<name>/arena.log
log = logging.getLogger("arena.referee")

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass
class Seat:
    """One side of a game in progress: its process and what we learned of it."""

    bot: Launchable
    launch: BotLaunch
    options: dict[str, Any] = field(default_factory=dict)
    proc: BotProcess | None = None
    ready: bool = False  # proc has answered `hello`
    log_offset: int = 0
    name: str = ""
    init_ms: float = 0.0
    startup_ms: float | None = None  # hello -> ready of a process started for this game
    untimed: bool = False  # no time limit on this seat's requests (a person at the board)
    version: int = protocol.PROTOCOL_VERSION  # the protocol its process speaks (1 or 2)


class BotPool:
    """Starts, keeps and ends the bot processes of one Referee (one thread at a time)."""

    def __init__(self, limits: Limits, *, sandbox: Sandbox | None, tag: str,
                 log_dir: str | None, cpu: int | None, fresh_process: bool,
                 unsandboxed: tuple[Launchable, ...] = (), log_budget_file: str | None = None,
                 log_budget_mb: float | None = defaults.LOG_BUDGET_MB,
                 cgroups: Cgroups | None = None) -> None:
        self.limits = limits
        #: one cgroup per bot process where the machine offers them (None: rlimits only)
        self.cgroups = cgroups
        self.sandbox = sandbox
        self.tag = tag
        self.cpu = cpu
        self.fresh_process = fresh_process
        self.unsandboxed = unsandboxed
        self._own_log_dir = log_dir is None
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="cxarena-logs-")
        os.makedirs(self.log_dir, exist_ok=True)
        #: the budget of the bot logs (arena.referee.logcap): in `log_budget_file` if given
        #: (shared with the other Referees of a results folder or league), else in log_dir
        self._budget_shared = log_budget_file is not None
        self.log_budget = LogBudget(log_budget_file or os.path.join(self.log_dir, BUDGET_FILE),
                                    None if log_budget_mb is None
                                    else int(log_budget_mb * 2**20))
        #: idle processes by launch value and protocol version (a process speaks one version)
        self._idle: dict[tuple[BotLaunch, int], list[BotProcess]] = {}
        self._dying: list[BotProcess] = []
        self._seq = itertools.count(1)
        self.closed = False

    def seat(self, bot: Launchable, options: Mapping[str, Any] | None, untimed: bool,
             version: int = protocol.PROTOCOL_VERSION) -> Seat:
        opts = dict(options or {})
        return Seat(bot=bot, launch=bot.launch(opts), options=opts, untimed=untimed,
                    version=version)

    # ------------------------------------------------------------ starting
    def _env(self, launch: BotLaunch, version: int) -> dict[str, str]:
        env = dict(os.environ)
        env.update(THREAD_ENV)
        env["CXARENA_PROTOCOL"] = str(version)
        env["CXARENA_TAG"] = self.tag
        env[PARENT_ENV] = str(os.getpid())
        env.update(launch.env)
        return env

    def _spawn(self, seat: Seat) -> BotProcess:
        """Start a bot process (raises OSError if it cannot be executed)."""
        launch = seat.launch
        # the end of the label: a file's name, whatever the length of its folder's path
        label = _SAFE_NAME.sub("_", launch.label)[-60:].strip("_") or "bot"
        # the pid keeps the names of Referees sharing one log_dir apart
        log_path = os.path.join(self.log_dir, f"{label}-{os.getpid()}-{next(self._seq)}.log")
        mem = self.limits.memory_limit_bytes
        argv = list(launch.argv)
        if self.sandbox is None or seat.bot in self.unsandboxed:
            if not launch.python_host:
                argv = wrap(argv, os.getpid(), bot_limits(mem))
            return BotProcess(argv, log_path=log_path, env=self._env(launch, seat.version),
                              cpu=self.cpu, memory_limit_bytes=mem,
                              max_line_bytes=protocol.MAX_LINE_BYTES, log_budget=self.log_budget,
                              cgroups=self.cgroups, max_tasks=self.limits.max_tasks)
        # bwrap's --die-with-parent replaces the lifeline (whose parent check sees the
        # sandbox's init, not the referee)
        if self.cgroups is None and self.limits.max_tasks:
            argv = wrap(argv, 0, [task_cap(self.limits.max_tasks)])
        boxed = self.sandbox.launch(argv, list(launch.expose))
        try:
            proc = BotProcess(boxed.argv, log_path=log_path,
                              env=Sandbox.env(self._env(launch, seat.version),
                                              drop=[PARENT_ENV]), cpu=self.cpu,
                              memory_limit_bytes=mem, max_line_bytes=protocol.MAX_LINE_BYTES,
                              pass_fds=boxed.pass_fds, status_from_wrapper=True,
                              log_budget=self.log_budget, cgroups=self.cgroups,
                              max_tasks=self.limits.max_tasks)
            # the limits are on bwrap's pid, and it is in its cgroup: now it may fork the bot
            boxed.release()
        finally:
            boxed.close()
        return proc

    def _handshake(self, proc: BotProcess, started_s: float,
                   version: int = protocol.PROTOCOL_VERSION) -> None:
        """`hello` -> `ready` within the start-up limit; raises Fault(crash) whose detail keeps
        the first and last lines the bot wrote to stdout and stderr."""
        seen: list[bytes] = []
        try:
            self._hello(proc, started_s, seen, version)
        except Fault as f:
            proc.wait_exit(0.3)  # let a dying process finish writing
            try:
                later = proc.drain()
            except (LineTooLong, OSError):
                later = []
            out = [ln.decode("utf-8", "replace").rstrip() for ln in seen + later]
            proc.sync_log()
            raise Fault(f.reason, f.detail + startup_output(out, proc.log_path)) from None

    def _hello(self, proc: BotProcess, started_s: float, seen: list[bytes],
               version: int) -> None:
        limit_s = self.limits.startup_timeout_s
        try:
            proc.send(protocol.hello(version).encode())
            while True:
                line = proc.read_line(started_s + limit_s)
                if line is None:
                    over = proc.limit_fault()
                    raise Fault(Reason.CRASH, f"{FAILED_TO_START}: " + (
                        f"the bot {over}" if over else f"no `ready` within {limit_s:g} s"))
                seen.append(line)
                if self._is_ready(protocol.parse_reply(line.decode("utf-8", "replace")), line,
                                  version):
                    proc.freeze()
                    over = proc.limit_fault()
                    if over is not None:
                        raise Fault(Reason.CRASH, f"{FAILED_TO_START}: the bot {over}")
                    return
        except (EOFError, OSError) as e:
            how = proc.describe_exit()
            over = proc.limit_fault()
            if over is not None:
                raise Fault(Reason.CRASH, f"{FAILED_TO_START}: the bot {over}") from None
            raise Fault(Reason.CRASH, with_memory(
                f"{FAILED_TO_START}: {how or e}", self.limits.memory_limit_bytes,
                proc.peak_kb(), proc.stderr_tail())) from None
        except (protocol.ProtocolError, LineTooLong) as e:
            raise Fault(Reason.CRASH, f"{FAILED_TO_START}: {e}") from None

    @staticmethod
    def _is_ready(reply: protocol.Reply, line: bytes,
                  version: int = protocol.PROTOCOL_VERSION) -> bool:
        """True for `ready` in our version, False for a comment; a Fault for anything else."""
        if isinstance(reply, protocol.Comment):
            return False
        if isinstance(reply, protocol.Ready):
            if reply.version != version:
                raise Fault(Reason.CRASH, f"{FAILED_TO_START}: speaks protocol version "
                            f"{reply.version}, the referee {version}")
            return True
        if isinstance(reply, protocol.ErrorReply):
            raise Fault(Reason.CRASH, f"{FAILED_TO_START}: {reply.text}")
        raise Fault(Reason.CRASH, f"{FAILED_TO_START}: answered `hello` with {line[:200]!r}")

    def checkout(self, seat: Seat) -> None:
        """Give the seat an idle live process if there is one (else `start` makes one)."""
        if self.fresh_process:
            return
        pool = self._idle.get((seat.launch, seat.version), [])
        while pool:
            proc = pool.pop()
            if proc.alive():
                seat.proc, seat.ready = proc, True
                return
            self.discard(proc)

    def start(self, seats: list[Seat]) -> None:
        """Start the seats that have no process (both at once) and handshake them.
        Raises SeatFault for the first seat that fails."""
        started: list[tuple[int, float]] = []
        for i, seat in enumerate(seats):
            if seat.proc is None:
                t0 = time.perf_counter()
                try:
                    seat.proc = self._spawn(seat)
                except OSError as e:
                    raise SeatFault(i, Reason.CRASH, f"{FAILED_TO_START}: {e}") from None
                started.append((i, t0))
        for i, t0 in started:
            proc = seats[i].proc
            assert proc is not None
            try:
                self._handshake(proc, t0, seats[i].version)
            except Fault as f:
                raise SeatFault(i, f.reason, f.detail) from None
            proc.task_times(refresh=True)  # its processes now (a wrapper started the bot)
            seats[i].ready = True
            seats[i].startup_ms = round((time.perf_counter() - t0) * 1000, 3)
            log.info("event=bot-start spec=%s pid=%d startup_ms=%.0f log=%s",
                     seats[i].launch.label, proc.pid, seats[i].startup_ms, proc.log_path)

    # ------------------------------------------------------------ ending
    def release(self, seat: Seat, faulty: bool,
                table: containment.ProcessTable | None = None) -> None:
        """The seat's process back to the idle pool, or ended (faulted, fresh, closing)."""
        proc = seat.proc
        seat.proc = None
        if proc is None:
            return
        if faulty or not seat.ready:
            self.discard(proc)
            return
        if self.fresh_process or self.closed or not proc.alive():
            proc.close(protocol.quit().encode())
            return
        # a double fork's orphans end with the game (a sandboxed bot has none outside its
        # PID namespace, which its process group's end ends: no table is made for it)
        escaped = proc.kill_escaped(table) if table is not None else []
        if escaped:
            log.warning("event=escaped-killed spec=%s pid=%d pids=%s: processes the bot "
                        "started outside its process group", seat.launch.label, proc.pid, escaped)
        proc.freeze()
        proc.sync_log()  # the game's part of its log on disk now (its readers open the file)
        self._idle.setdefault((seat.launch, seat.version), []).append(proc)

    def discard(self, proc: BotProcess) -> None:
        proc.kill()
        self._dying.append(proc)

    def idle_pids(self) -> list[int]:
        """The process ids of the bots waiting for their next game."""
        return [p.pid for pool in self._idle.values() for p in pool]

    def reap_dying(self) -> bool:
        """Collect the killed processes that have died (and remove their cgroups); True once
        none is left to collect."""
        self._dying = [p for p in self._dying if not (p.reap(0.0) and p.settled())]
        return not self._dying

    def close(self) -> None:
        """Ask every idle process to quit, give them a moment together, then kill and reap
        every process group (children included)."""
        self.closed = True
        procs = [p for pool in self._idle.values() for p in pool]
        self._idle.clear()
        quit_msg = protocol.quit().encode()
        for p in procs:  # ask them all at once
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
            p.sync_log()  # what it wrote reaches its log even if it is not reaped in time
            p.close()
        self._dying.clear()
        if self._own_log_dir:
            shutil.rmtree(self.log_dir, ignore_errors=True)
            if self._budget_shared:  # its logs are gone: their bytes no longer count
                self.log_budget.release_all()
        self.log_budget.close()
