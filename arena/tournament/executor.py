"""Executors: the seam between a tournament's schedule and where its games are played.

An `Executor` takes `GameSpec`s and yields a `GameOutcome` for each as soon as it finishes
(in any order); closing the iterator early (Ctrl-C, an error in the consumer) stops the run and
leaves no process behind. `LocalExecutor` is the implementation for one machine; a distributed
engine can implement the same interface later.

`LocalExecutor` starts a pool of worker processes (default one per usable core) with the
`forkserver` start method: a worker is forked from a small single-threaded server process, never
from the parent, which by then runs threads (the log relay, tqdm's monitor) that a fork would
copy in whatever state they were (a held lock stays held forever in the child). Worker i is
pinned to its own core (os.sched_setaffinity) and plays one game at a time with its own game
runner (by default a `Referee` whose bots are pinned to that same core, so a worker's two bots
share the core and never think at once). The parent hands out games one by one in schedule
order, so the longest games (scheduled first) start first and the run does not end on a tail.
A worker that dies (a harness bug, the OOM killer) is replaced and its game is tried once more;
a game the harness cannot play comes back as a GameOutcome without a record.

Workers ignore SIGINT (the parent decides) and turn SIGTERM into SystemExit, so `with
Referee(...)` closes every bot process group on the way out. They also exit when the parent
dies (PR_SET_PDEATHSIG on Linux towards the fork server, which ends with the parent, and a
periodic look at the parent's sentinel). Their log records travel to the parent through a
queue (`_relay_logs`) and are handled there by the `arena` loggers' handlers (the run log).
Workers mark their environment with the run's tag (`RUN_ENV`, inherited by the bots), so that
`reap_orphans` can kill the bots a run killed by SIGKILL left behind.

The game runner is injectable (`runner=`): a callable that takes the match settings and returns
a context manager yielding a "play one GameSpec -> GameRecord" function. Tests use runners that
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
import threading
import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from arena.entrants.specs import BotSpec, parse_spec
from arena.records import GameRecord, recorded_game
from arena.referee.containment import environ_value
from arena.referee.referee import GameRequest, MatchSettings, Referee
from arena.tournament.cores import usable_core_ids
from arena.tournament.schedule import GameSpec
from arena.wire.lifeline import die_with_parent

__all__ = ["RUN_ENV", "Executor", "GameOutcome", "LocalExecutor", "PlayFn", "Runner",
           "reap_orphans", "referee_runner"]

log = logging.getLogger("arena.tournament.executor")

PlayFn = Callable[[GameSpec], GameRecord]
#: settings -> context manager yielding a function that plays one game
Runner = Callable[[MatchSettings], AbstractContextManager[PlayFn]]

#: how long the parent waits for workers to finish their cleanup before killing them
SHUTDOWN_GRACE_S = 15.0


#: how often an idle worker checks that its parent is still alive
_PARENT_CHECK_S = 1.0


@dataclass(frozen=True)
class GameOutcome:
    """A finished game, or (record None) a game the harness itself failed to play."""

    game: GameSpec
    record: GameRecord | None
    error: str = ""  # why the harness failed (never a bot fault: those are in the record)
    worker: int = -1


class Executor(ABC):
    """Plays scheduled games somewhere and reports each one as it finishes."""

    @abstractmethod
    def run(self, games: Sequence[GameSpec]) -> Generator[GameOutcome, None, None]:
        """Play `games`; yield one GameOutcome per game as it finishes (any order).

        Closing the returned iterator early stops the run and cleans up every process.
        """


@contextlib.contextmanager
def referee_runner(settings: MatchSettings) -> Iterator[PlayFn]:
    """The real game runner: one `arena.referee.referee.Referee` for all the games of a worker."""
    specs: dict[str, BotSpec] = {}

    def spec(text: str) -> BotSpec:
        if text not in specs:
            specs[text] = parse_spec(text)
        return specs[text]

    with Referee(settings) as referee:
        def play(g: GameSpec) -> GameRecord:
            game = recorded_game(g.game, g.M, g.N, g.K, g.params)
            return referee.run(GameRequest(
                spec(g.spec1), spec(g.spec2), game, g.seed, (g.options1, g.options2),
                game_id=g.game_id, opening=game.texts_of_record(g.opening, g.opening_texts)))

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


def _log_record(wlog: logging.Logger, index: int, game: GameSpec, record: GameRecord) -> None:
    result = {1: game.p1, 2: game.p2}.get(record.winner or 0, "draw")
    if record.is_fault:
        offender = game.p1 if record.offender == 1 else game.p2
        wlog.warning("worker=%d game=%s event=fault reason=%s offender=%s detail=%s%s",
                     index, game.game_id, record.reason.value, offender, record.detail,
                     f"\n{record.stderr_tail}" if record.stderr_tail else "")
    wlog.info("worker=%d game=%s event=end winner=%s reason=%s moves=%d", index, game.game_id,
              result, record.reason.value, record.n_moves)


def _context() -> Any:
    """The multiprocessing context of the workers: forkserver (see the module docstring), its
    server preloading the referee so that each worker starts in milliseconds."""
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["arena.tournament.executor", "arena.referee.referee"])
    return ctx


@contextlib.contextmanager
def _relay_logs() -> Iterator[Any]:
    """A queue the workers log into, relayed to this process's loggers while the run lasts."""
    q = _context().Queue()
    listener = logging.handlers.QueueListener(q, _Relay(), respect_handler_level=False)
    listener.start()
    try:
        yield q
    finally:
        listener.stop()
        q.close()
        q.join_thread()


@dataclass
class _Worker:
    index: int
    cpu: int | None
    proc: Any  # multiprocessing Process (forkserver context)
    conn: mpc.Connection
    game: GameSpec | None = None


class LocalExecutor(Executor):
    """A pool of worker processes on this machine (forkserver), one game at a time each."""

    def __init__(self, settings: MatchSettings, workers: int | None = None,
                 runner: Runner = referee_runner, pin: bool = True,
                 run_tag: str | None = None) -> None:
        self.settings = settings
        self.run_tag = run_tag
        self.cores = usable_core_ids()
        self.workers = workers if workers is not None else len(self.cores)
        if self.workers < 1:
            raise ValueError("workers must be >= 1")
        self.runner = runner
        self.pin = pin
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
        return _Worker(index=index, cpu=cpu, proc=proc, conn=parent_end)

    def run(self, games: Sequence[GameSpec]) -> Generator[GameOutcome, None, None]:
        with _relay_logs() as self._log_queue:
            yield from self._run(games)

    def _run(self, games: Sequence[GameSpec]) -> Generator[GameOutcome, None, None]:
        queue = deque(games)
        pool: list[_Worker] = []
        retried: set[str] = set()
        try:
            for i in range(min(self.workers, len(queue))):
                w = self._spawn(i)
                pool.append(w)
                self._feed(w, queue)
            while any(w.game is not None for w in pool):
                busy = [w for w in pool if w.game is not None]
                waitables: list[Any] = [w.conn for w in busy] + [w.proc.sentinel for w in busy]
                ready = set(mpc.wait(waitables, timeout=5.0))
                for w in busy:
                    if w.conn in ready or w.proc.sentinel in ready:
                        outcome = self._collect(w)
                        if outcome is None:
                            continue
                        retry = (outcome.record is None and not w.proc.is_alive()
                                 and outcome.game.game_id not in retried)
                        if retry:  # a dead worker: give its game one more chance
                            retried.add(outcome.game.game_id)
                            queue.appendleft(outcome.game)
                        if w.proc.is_alive():
                            self._feed(w, queue)
                        else:
                            w.game = None
                            if queue:
                                pool[pool.index(w)] = nw = self._spawn(w.index)
                                self._feed(nw, queue)
                        if not retry:
                            yield outcome
            self._stop(pool, gracefully=True)
        finally:
            self._stop(pool, gracefully=False)

    def _feed(self, w: _Worker, queue: deque[GameSpec]) -> None:
        w.game = queue.popleft() if queue else None
        try:
            w.conn.send(w.game)
        except (BrokenPipeError, OSError):
            pass  # it died; its sentinel reports that on the next wait

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
        return GameOutcome(game, None, error=f"worker process died (exit code {code})",
                           worker=w.index)

    def _stop(self, pool: list[_Worker], gracefully: bool) -> None:
        """Stop every worker: ask (gracefully) or SIGTERM, then SIGKILL stragglers."""
        if not pool:
            return
        with _sigint_ignored():
            self._stop_all(pool, gracefully)

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
        pool.clear()
