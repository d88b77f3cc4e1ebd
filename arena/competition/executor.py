"""Executors: the one way to play a batch of games, for the tournament and the league.

An `Executor` takes `GameJob`s (`arena.competition.jobs`: a fixed list, the tournament's
schedule, or a `JobSource` asked for the next game whenever a worker is free, the league's
rating pairs) and yields a `GameOutcome` for each as soon as it finishes (in any order);
closing the iterator early (Ctrl-C, an error in the consumer) or setting its stop event stops
the run and leaves no process behind. `LocalExecutor` is the implementation for one machine;
`arena.competition.dask_executor.DaskExecutor` plays on a Dask cluster.

`LocalExecutor` starts a pool of worker processes (default one per usable core) with the
`forkserver` start method: a worker is forked from a small single-threaded server process, never
from the parent, which by then runs threads (the log relay, tqdm's monitor) that a fork would
copy in whatever state they were (a held lock stays held forever in the child). Worker i is
pinned to its own core (os.sched_setaffinity) and plays one game at a time with its own game
runner (by default a `Referee` whose bots are pinned to that same core, so a worker's two bots
share the core and never think at once). The parent hands out games one by one in schedule
order, so the longest games (scheduled first) start first and the run does not end on a tail.
A worker is started when there is a game for it and lives while the source may still produce
(an idle one waits for the next game). A worker that dies (a harness bug, the OOM killer) is
replaced and its game is tried once more (`on_death` is told; one that keeps dying soon after
its start is replaced after a backoff, 1 s doubling to 60 s); a game the harness cannot play
comes back as a GameOutcome without a record.

Workers ignore SIGINT (the parent decides) and turn SIGTERM into SystemExit, so `with
Referee(...)` closes every bot process group on the way out. They also exit when the parent
dies (PR_SET_PDEATHSIG on Linux towards the fork server, which ends with the parent, and a
periodic look at the parent's sentinel). Their log records travel to the parent through a
queue (`_relay_logs`) and are handled there by the `arena` loggers' handlers (the run log).
Workers mark their environment with the run's tag (`RUN_ENV`, inherited by the bots), so that
`reap_orphans` can kill the bots a run killed by SIGKILL left behind.

The game runner is injectable (`runner=`): a callable that takes the match settings and returns
a context manager yielding a "play one GameJob -> GameRecord" function. Tests use runners that
need no bot processes.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import multiprocessing as mp
import multiprocessing.connection as mpc
import os
import signal
import sys
import threading
import time
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from arena.competition.cores import usable_core_ids
from arena.competition.jobs import GameJob, GameOutcome, JobSource, SequenceSource
from arena.competition.pressure import Throttle
from arena.entrants.specs import BotSpec, parse_spec
from arena.records import GameRecord
from arena.referee.containment import environ_value
from arena.referee.referee import MatchSettings, Referee
from arena.wire.lifeline import die_with_parent

__all__ = ["RUN_ENV", "Executor", "GameOutcome", "LocalExecutor", "PlayFn", "Runner",
           "reap_orphans", "referee_runner"]

log = logging.getLogger("arena.competition.executor")

PlayFn = Callable[[GameJob], GameRecord]
#: settings -> context manager yielding a function that plays one game
Runner = Callable[[MatchSettings], AbstractContextManager[PlayFn]]

#: how long the parent waits for workers to finish their cleanup before killing them
SHUTDOWN_GRACE_S = 15.0


#: how often an idle worker checks that its parent is still alive
_PARENT_CHECK_S = 1.0


class Executor(ABC):
    """Plays games somewhere and reports each one as it finishes."""

    @abstractmethod
    def run(self, games: Sequence[GameJob] | JobSource,
            stop: threading.Event | None = None) -> Generator[GameOutcome, None, None]:
        """Play `games` (a list, or a `JobSource` asked for a job whenever a worker is free);
        yield one GameOutcome per game as it finishes (any order), after handing it to the
        source's `done`. The run ends when the source is finished and its games are played,
        or at once when `stop` is set (the games in flight then have no outcome).

        Closing the returned iterator early stops the run and cleans up every process.
        """


def as_source(games: Sequence[GameJob] | JobSource) -> JobSource:
    """`games` as a source: a list is handed out in its order."""
    return SequenceSource(games) if isinstance(games, Sequence) else games


#: how long an executor with nothing to do waits before it asks its source again
IDLE_WAIT_S = 0.5
#: a worker that dies is replaced at once, unless it died within this long of its start: then
#: after 1 s, 2 s, 4 s ... up to this long while it keeps dying (a runner that cannot start)
BACKOFF_MAX_S = 60.0

#: told of every death of a worker process: (worker index, why, in one line)
DeathHook = Callable[[int, str], None]


@contextlib.contextmanager
def referee_runner(settings: MatchSettings) -> Iterator[PlayFn]:
    """The real game runner: one `arena.referee.referee.Referee` for all the games of a worker."""
    specs: dict[str, BotSpec] = {}

    def spec(text: str) -> BotSpec:
        if text not in specs:
            specs[text] = parse_spec(text)
        return specs[text]

    with Referee(settings) as referee:
        def play(g: GameJob) -> GameRecord:
            return referee.run(g.request(spec(g.spec1), spec(g.spec2)))

        yield play


#: environment variable marking every process of a run (workers, bots, their children)
RUN_ENV = "CXARENA_RUN"


def _parent_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def reap_orphans(run_tag: str) -> list[int]:
    """Kill the bot process groups a previous run with this tag left behind (Linux only).

    A run killed with SIGKILL cannot clean up: its idle bots, frozen between games, never see
    their pipes close. They carry ``CXARENA_RUN=run_tag`` in their environment; one whose
    parent is gone or is not part of the run is an orphan. Returns the pids killed.
    """
    if not os.path.isdir("/proc"):
        return []
    killed = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        if environ_value(pid, RUN_ENV) != run_tag:
            continue
        ppid = _parent_pid(pid)
        if ppid is not None and ppid > 1 and environ_value(ppid, RUN_ENV) == run_tag:
            continue  # a live worker's bot, or a bot's own child
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore Ctrl-C while cleaning up (main thread only), so cleanup is not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _on_sigterm(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one SystemExit only: let cleanup finish
    raise SystemExit(128 + signum)


class _Relay(logging.Handler):
    """In the parent: hands a worker's log record to the parent's logger of the same name."""

    def emit(self, record: logging.LogRecord) -> None:
        logger = logging.getLogger(record.name)
        if logger.isEnabledFor(record.levelno):
            logger.handle(record)


def _worker_main(index: int, cpu: int | None, settings: MatchSettings, runner: Runner,
                 conn: mpc.Connection, log_queue: Any, log_level: int,
                 run_tag: str | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    die_with_parent(os.getppid(), signal.SIGTERM)  # the fork server, which ends with the parent
    parent = mp.parent_process()
    if parent is not None and not parent.is_alive():  # the parent died before we got here
        return
    arena_log = logging.getLogger("arena")
    arena_log.handlers[:] = [logging.handlers.QueueHandler(log_queue)]
    arena_log.setLevel(log_level)
    arena_log.propagate = False
    wlog = logging.getLogger("arena.worker")
    if run_tag is not None:
        os.environ[RUN_ENV] = run_tag  # inherited by the bots (see reap_orphans)
    if cpu is not None:
        with contextlib.suppress(OSError, AttributeError):
            os.sched_setaffinity(0, {cpu})
    settings = settings.for_worker(index, cpu)
    wlog.info("worker=%d event=start cpu=%s pid=%d", index, cpu, os.getpid())
    try:
        _serve(index, settings, runner, conn, parent, wlog)
    except (BrokenPipeError, ConnectionResetError, EOFError):
        # the run is gone (killed, even by kill -9): its game is played again on resume; a
        # traceback per worker would only bury what the user needs to read (and the log
        # queue's reader is gone with it)
        return


def _serve(index: int, settings: MatchSettings, runner: Runner, conn: mpc.Connection,
           parent: Any, wlog: logging.Logger) -> None:
    """The worker's loop: play each game the run sends, answer with its record."""
    with runner(settings) as play:
        while True:
            if not conn.poll(_PARENT_CHECK_S):
                if parent is not None and not parent.is_alive():
                    wlog.warning("worker=%d event=orphaned: parent died, exiting", index)
                    return
                continue
            try:
                game = conn.recv()
            except EOFError:
                return
            if game is None:
                break
            wlog.info("worker=%d game=%s event=start seed=%d", index, game.game_id, game.seed)
            try:
                record = play(game)
            except Exception as e:  # a harness bug, not a bot fault
                wlog.exception("worker=%d game=%s event=harness-error", index, game.game_id)
                conn.send(("error", game.game_id, f"{type(e).__name__}: {e}\n"
                           f"{traceback.format_exc(limit=8)}"))
                continue
            _log_record(wlog, index, game, record)
            conn.send(("done", game.game_id, record))
    wlog.info("worker=%d event=stop", index)


def _log_record(wlog: logging.Logger, index: int, game: GameJob, record: GameRecord) -> None:
    result = {1: game.p1, 2: game.p2}.get(record.winner or 0, "draw")
    if record.is_fault:
        offender = game.p1 if record.offender == 1 else game.p2
        wlog.warning("worker=%d game=%s event=fault reason=%s offender=%s detail=%s%s",
                     index, game.game_id, record.reason.value, offender, record.detail,
                     f"\n{record.stderr_tail}" if record.stderr_tail else "")
    wlog.info("worker=%d game=%s event=end winner=%s reason=%s moves=%d", index, game.game_id,
              result, record.reason.value, record.n_moves)


#: the warning multiprocessing's resource tracker prints when a run is killed (kill -9) with
#: its log queue's semaphores: the tracker removes them itself, so it is only noise; the
#: tracker process takes this process's warning filters from `sys.warnoptions`
_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _context() -> Any:
    """The multiprocessing context of the workers: forkserver (see the module docstring), its
    server preloading the referee so that each worker starts in milliseconds."""
    if _TRACKER_QUIET not in sys.warnoptions:
        sys.warnoptions.append(_TRACKER_QUIET)
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["arena.competition.executor", "arena.referee.referee"])
    return ctx


#: how long the end of a run waits for the log relay to hand on what the workers logged
RELAY_STOP_S = 10.0


@contextlib.contextmanager
def _relay_logs() -> Iterator[Any]:
    """A queue the workers log into, relayed to this process's loggers while the run lasts.

    Its end waits at most RELAY_STOP_S for the relay: a worker that died in the middle of a
    write (os._exit, SIGKILL) can leave the queue's shared write lock taken, and then the
    sentinel that ends the relay is never sent (`logging.handlers.QueueListener.stop` waited
    for it forever: a run whose worker died hung at its end, seen under bench busytest)."""
    q = _context().Queue()
    relay = _Relay()

    def pump() -> None:
        while True:
            try:
                record = q.get()
            except (OSError, EOFError, ValueError):  # the queue closed under a stuck relay
                return
            if record is None:
                return
            relay.handle(record)

    thread = threading.Thread(target=pump, name="cxarena-log-relay", daemon=True)
    thread.start()
    try:
        yield q
    finally:
        q.put(None)
        thread.join(RELAY_STOP_S)
        q.close()
        q.cancel_join_thread()  # a sentinel a dead worker's lock holds back is dropped


def _exit_words(code: int | None) -> str:
    """``exit code 9``, or ``exit code -9, SIGKILL`` for a process a signal killed."""
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"exit code {code}, {signal.Signals(-code).name}"
    return f"exit code {code}"


@dataclass
class _Worker:
    index: int
    cpu: int | None
    proc: Any  # multiprocessing Process (forkserver context)
    conn: mpc.Connection
    started_s: float = 0.0  # time.monotonic() at its start
    game: GameJob | None = None
    retried: bool = False  # its game is the second try of a game whose worker died


@dataclass
class _Slot:
    """The history of one worker index: its deaths in a row, each soon after its start, and
    when a new worker may start there."""

    failures: int = 0
    not_before_s: float = 0.0


class LocalExecutor(Executor):
    """A pool of worker processes on this machine (forkserver), one game at a time each."""

    def __init__(self, settings: MatchSettings, workers: int | None = None,
                 runner: Runner = referee_runner, pin: bool = True,
                 run_tag: str | None = None, idle_s: float = IDLE_WAIT_S,
                 on_death: DeathHook | None = None, throttle: bool = True) -> None:
        """`on_death`: told of every worker that died (a harness fault, the OOM killer; the
        league keeps them for its admin page). `throttle`: fewer games at once while the
        machine keeps bots waiting (`arena.competition.pressure`)."""
        self.settings = settings
        self.run_tag = run_tag
        self.cores = usable_core_ids()
        self.workers = workers if workers is not None else len(self.cores)
        if self.workers < 1:
            raise ValueError("workers must be >= 1")
        self.runner = runner
        self.pin = pin
        self.idle_s = idle_s
        self.on_death = on_death
        self.throttle = throttle
        #: the run's throttle (a new one per run; None with `throttle` off)
        self.pressure: Throttle | None = None
        self._pool: list[_Worker | None] = []
        if pin and self.workers > len(self.cores):
            log.warning("event=oversubscribed workers=%d cores=%d: workers share cores, "
                        "time limits get less fair", self.workers, len(self.cores))

    def _spawn(self, index: int) -> _Worker:
        ctx = _context()
        parent_end, child_end = ctx.Pipe(duplex=True)
        cpu = self.cores[index % len(self.cores)] if self.pin else None
        proc = ctx.Process(
            target=_worker_main, name=f"worker-{index}", daemon=True,
            args=(index, cpu, self.settings, self.runner, child_end, self._log_queue,
                  logging.getLogger("arena").getEffectiveLevel(), self.run_tag))
        proc.start()
        child_end.close()
        return _Worker(index=index, cpu=cpu, proc=proc, conn=parent_end,
                       started_s=time.monotonic())

    def pids(self) -> list[int]:
        """The process ids of the workers of the run in progress."""
        return [w.proc.pid for w in list(self._pool) if w is not None and w.proc.pid]

    def run(self, games: Sequence[GameJob] | JobSource,
            stop: threading.Event | None = None) -> Generator[GameOutcome, None, None]:
        with _relay_logs() as self._log_queue:
            yield from self._run(as_source(games), stop or threading.Event())

    def _run(self, source: JobSource,
             stop: threading.Event) -> Generator[GameOutcome, None, None]:
        pool: list[_Worker | None] = [None] * self.workers
        self._pool = pool
        slots = [_Slot() for _ in range(self.workers)]
        self.pressure = Throttle(self.workers) if self.throttle else None
        retry: deque[GameJob] = deque()  # games of dead workers, tried once more first
        try:
            while not stop.is_set():
                self._hand_out(pool, slots, retry, source)
                busy = [w for w in pool if w is not None and w.game is not None]
                if not busy:
                    if source.finished and not retry:
                        break
                    stop.wait(self.idle_s)
                    continue
                waitables: list[Any] = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
                ready = set(mpc.wait(waitables, timeout=self.idle_s))
                for w in busy:
                    if w.conn not in ready and w.proc.sentinel not in ready:
                        continue
                    outcome = self._collect(w)
                    if outcome is None:
                        continue
                    w.game, retried = None, w.retried
                    if not w.proc.is_alive():
                        self._buried(w, pool, slots, outcome.error)
                        if outcome.record is None and not retried:
                            retry.appendleft(outcome.game)  # one more chance
                            continue
                    if self.pressure is not None:
                        said = self.pressure.after(outcome.record)
                        if said:
                            log.info(said)
                    source.done(outcome)
                    yield outcome
            self._stop(pool, gracefully=not stop.is_set())
        finally:
            self._stop(pool, gracefully=False)

    def _hand_out(self, pool: list[_Worker | None], slots: list[_Slot],
                  retry: deque[GameJob], source: JobSource) -> None:
        """Give a game to every idle worker index (starting its worker if needed), as long as
        there are games now."""
        now_s = time.monotonic()
        running = sum(w is not None and w.game is not None for w in pool)
        for index, w in enumerate(pool):
            if w is not None and w.game is not None:
                continue
            if self.pressure is not None and running >= self.pressure.at_once:
                return  # the machine keeps bots waiting: fewer games at once
            if w is not None and not w.proc.is_alive():  # died while idle
                self._buried(w, pool, slots, f"worker process died "
                             f"({_exit_words(w.proc.exitcode)})")
                w = None
            if w is None and slots[index].not_before_s > now_s:
                continue
            retried = bool(retry)
            job = retry.popleft() if retry else source.take()
            if job is None:
                return
            if w is None:
                pool[index] = w = self._spawn(index)
            w.game, w.retried = job, retried
            running += 1
            try:
                w.conn.send(job)
            except (BrokenPipeError, OSError):
                pass  # it died; its sentinel reports that on the next wait

    def _buried(self, w: _Worker, pool: list[_Worker | None], slots: list[_Slot],
                error: str) -> None:
        """A worker is dead: free its index (a new worker starts there when a game comes,
        after a backoff while the workers there keep dying soon after their start) and tell
        `on_death` how it ended ("worker process died (exit code -9, SIGKILL)")."""
        w.proc.join()
        w.conn.close()
        pool[w.index] = None
        slot = slots[w.index]
        now_s = time.monotonic()
        if now_s - w.started_s >= BACKOFF_MAX_S:
            slot.failures = 0  # it ran a while: not one that cannot start
        elif slot.failures:
            slot.not_before_s = now_s + min(BACKOFF_MAX_S, 2.0 ** (slot.failures - 1))
        slot.failures += 1
        if self.on_death is not None:
            cause = error.splitlines()[0] if error else ""
            if not cause.startswith("worker process died"):  # its game had ended: say how it did
                cause = (f"worker process died ({_exit_words(w.proc.exitcode)})"
                         + (f" after a harness error: {cause}" if cause else ""))
            try:
                self.on_death(w.index, cause)
            except Exception:
                log.exception("worker=%d event=death-hook-failed", w.index)

    def _collect(self, w: _Worker) -> GameOutcome | None:
        """Read one message from a busy worker (None if there is nothing to report yet)."""
        game = w.game
        assert game is not None
        try:
            if w.conn.poll():
                kind, gid, payload = w.conn.recv()
                if gid != game.game_id:
                    raise RuntimeError(f"worker {w.index} answered {gid}, expected "
                                       f"{game.game_id}")
                if kind == "done":
                    return GameOutcome(game, payload, worker=w.index)
                return GameOutcome(game, None, error=str(payload), worker=w.index)
        except (EOFError, OSError):
            w.proc.join(SHUTDOWN_GRACE_S)  # its end of the pipe closed: it is exiting
        if w.proc.is_alive():
            return None
        w.proc.join()
        code = w.proc.exitcode
        log.error("worker=%d game=%s event=worker-died exitcode=%s", w.index, game.game_id, code)
        return GameOutcome(game, None, error=f"worker process died ({_exit_words(code)})",
                           worker=w.index)

    def _stop(self, pool: list[_Worker | None], gracefully: bool) -> None:
        """Stop every worker: ask (gracefully) or SIGTERM, then SIGKILL stragglers."""
        workers = [w for w in pool if w is not None]
        pool.clear()
        if not workers:
            return
        with _sigint_ignored():
            self._stop_all(workers, gracefully)

    def _stop_all(self, pool: list[_Worker], gracefully: bool) -> None:
        live = [w for w in pool if w.proc.is_alive()]
        for w in live:
            if gracefully:
                with contextlib.suppress(BrokenPipeError, OSError):
                    w.conn.send(None)
            else:
                w.proc.terminate()
        for w in live:
            w.proc.join(SHUTDOWN_GRACE_S)
            if w.proc.is_alive():
                log.error("worker=%d event=kill: did not stop within %.0f s", w.index,
                          SHUTDOWN_GRACE_S)
                w.proc.kill()
                w.proc.join()
        for w in pool:
            w.conn.close()
