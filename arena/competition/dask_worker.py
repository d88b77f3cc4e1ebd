"""The worker side of Dask tournaments: what runs inside each ``dask worker`` process.

`CxarenaWorkerPlugin` claims one core of the machine per worker thread (an exclusive `flock`
on ``<lock dir>/core-<id>.lock``, held for the worker process's life), pins the worker to its
cores and stops Dask's statistical profiler; each claimed core has one long-lived game thread
with its own `Referee`. `play_game` is the Dask task: it checks both bots' code fingerprints
against the coordinator's, then hands the game to an idle game thread and waits. The
coordinator (`arena.competition.dask_executor`) runs on another machine; see its docstring.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import fcntl
import logging
import os
import queue
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from concurrent.futures import Future as ThreadFuture
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.competition.executor import PlayFn, referee_runner
from arena.competition.jobs import GameJob
from arena.entrants.fingerprint import code_files, code_fingerprint
from arena.entrants.specs import SpecError, parse_spec
from arena.records import GameRecord
from arena.referee.referee import MatchSettings

__all__ = ["CORE_LOCK_DIR_ENV", "PLUGIN_NAME", "WORKER_LOG_DIR_ENV", "CxarenaWorkerPlugin",
           "TaskResult", "claim_cores", "play_game", "worker_fingerprints"]

log = logging.getLogger("arena.competition.dask")

#: the name of the worker plugin on the Dask cluster
PLUGIN_NAME = "cxarena"
#: environment variable naming the directory of the per-core lock files (default: a
#: ``cxarena-cores`` folder in the system's temp directory, shared by all users)
CORE_LOCK_DIR_ENV = "CXARENA_CORE_LOCK_DIR"
#: environment variable naming where a worker keeps its bots' stdout/stderr logs (default:
#: ``cxarena-logs-<uid>`` in the system's temp directory; file names carry the worker's pid)
WORKER_LOG_DIR_ENV = "CXARENA_WORKER_LOG_DIR"


@dataclass(frozen=True)
class TaskResult:
    """What a game task returns to the coordinator: a record, or (record None) why not."""

    game_id: str
    record: GameRecord | None
    error: str = ""
    host: str = ""
    core: int | None = None


def _lock_dir() -> str:
    return os.environ.get(CORE_LOCK_DIR_ENV) or os.path.join(tempfile.gettempdir(),
                                                             "cxarena-cores")


def claim_cores(count: int, lock_dir: str | None = None) -> list[tuple[int, int]]:
    """Claim `count` cores of this machine for this process: [(core id, lock fd)].

    A core is claimed by an exclusive, non-blocking flock on ``core-<id>.lock`` in `lock_dir`;
    the lock lasts until the fd is closed or the process dies. Only cores this process may run
    on (its affinity) are considered. Returns fewer than `count` pairs (none claimed) when not
    enough cores are free.
    """
    lock_dir = lock_dir or _lock_dir()
    with contextlib.suppress(FileExistsError):
        os.mkdir(lock_dir)
        os.chmod(lock_dir, 0o1777)  # every user's workers take their cores here
    claimed: list[tuple[int, int]] = []
    for core in sorted(os.sched_getaffinity(0)):
        if len(claimed) == count:
            break
        path = os.path.join(lock_dir, f"core-{core}.lock")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                continue  # another worker process has it
            raise
        claimed.append((core, fd))
    if len(claimed) < count:
        for _, fd in claimed:
            os.close(fd)
        return []
    return claimed


def _pin_process(cores: set[int]) -> None:
    """Pin every thread of this process to `cores` (threads started later inherit it)."""
    try:
        tids = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tids = [0]
    for tid in tids:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(tid, cores)


@dataclass
class _Request:
    game: GameJob
    settings: MatchSettings
    done: ThreadFuture[GameRecord]


class _GameThread(threading.Thread):
    """A long-lived thread pinned to one core, with its own Referee (one game at a time)."""

    def __init__(self, core: int, log_dir: str, closing: threading.Event) -> None:
        super().__init__(name=f"cxarena-core-{core}", daemon=True)
        self.core = core
        self.log_dir = log_dir
        self.closing = closing
        self.requests: queue.Queue[_Request | None] = queue.Queue()

    def run(self) -> None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {self.core})  # this thread; its bots inherit it too
        referee: contextlib.ExitStack | None = None
        play: PlayFn | None = None
        current: MatchSettings | None = None
        try:
            while True:
                req = self.requests.get()
                if req is None:
                    return
                if not req.done.set_running_or_notify_cancel():
                    continue
                try:
                    settings = dataclasses.replace(req.settings.for_worker(0, self.core),
                                                   log_dir=self.log_dir)
                    if settings != current or referee is None or play is None:
                        if referee is not None:
                            referee.close()
                        referee = contextlib.ExitStack()
                        play = referee.enter_context(referee_runner(settings))
                        current = settings
                    record = play(req.game)
                except BaseException as e:
                    if referee is not None:  # a harness error: start afresh next time
                        with contextlib.suppress(Exception):
                            referee.close()
                    referee, current = None, None
                    req.done.set_exception(e)
                    if not isinstance(e, Exception):
                        raise
                else:
                    req.done.set_result(record)
        finally:
            if referee is not None:
                referee.close()


class _WorkerGames:
    """A worker process's claimed cores and their game threads."""

    def __init__(self, threads: int, log_dir: str) -> None:
        self.claims = claim_cores(threads)
        self.host = socket.gethostname()
        self.closing = threading.Event()
        self.idle: queue.Queue[_GameThread] = queue.Queue()
        self.threads: list[_GameThread] = []
        if not self.claims:
            return
        _pin_process({core for core, _ in self.claims})
        os.makedirs(log_dir, exist_ok=True)
        for core, _ in self.claims:
            t = _GameThread(core, log_dir, self.closing)
            t.start()
            self.threads.append(t)
            self.idle.put(t)

    @property
    def cores(self) -> list[int]:
        return [core for core, _ in self.claims]

    def play(self, game: GameJob, settings: MatchSettings) -> tuple[GameRecord, int]:
        thread = self.idle.get()
        if not thread.is_alive():  # it died of a BaseException: a new one for its core
            index = self.threads.index(thread)
            thread = _GameThread(thread.core, thread.log_dir, self.closing)
            thread.start()
            self.threads[index] = thread
        try:
            done: ThreadFuture[GameRecord] = ThreadFuture()
            thread.requests.put(_Request(game, settings, done))
            return done.result(), thread.core
        finally:
            self.idle.put(thread)

    def close(self) -> None:
        self.closing.set()
        for t in self.threads:
            t.requests.put(None)
        for t in self.threads:
            t.join(5.0)
        for _, fd in self.claims:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.claims = []


_state: _WorkerGames | None = None
_state_lock = threading.Lock()


def _worker_state(worker: Any) -> _WorkerGames:
    """This worker process's game threads, set up on first use (by the plugin, else here)."""
    global _state
    with _state_lock:
        if _state is None or _state.closing.is_set():
            nthreads = getattr(getattr(worker, "state", None), "nthreads", None) or 1
            # not in the worker's own scratch directory: Dask deletes that when it closes
            log_dir = os.environ.get(WORKER_LOG_DIR_ENV) or os.path.join(
                tempfile.gettempdir(), f"cxarena-logs-{os.getuid()}")
            _state = _WorkerGames(int(nthreads), log_dir)
        return _state


def _close_worker_state() -> None:
    global _state
    with _state_lock:
        state, _state = _state, None
    if state is not None:
        state.close()


def _no_core_message(worker: Any, state: _WorkerGames) -> str:
    nthreads = getattr(getattr(worker, "state", None), "nthreads", 1)
    return (f"worker {getattr(worker, 'address', '?')} on {state.host}: no free core for its "
            f"{nthreads} thread(s) (each core of this machine already has a worker process; "
            f"start at most one single-threaded worker per core: dask worker ... --nworkers "
            f"{len(os.sched_getaffinity(0))} --nthreads 1)")


def _stop_profiler(worker: Any) -> None:
    """Stop the worker's statistical profiler: every 10 ms it samples every thread's stack on
    the event loop, which runs on the game's core; measured, it made 8% of the moves of bots
    answering at 95 ms (limit 100 + 10 ms) late, against 0.4% without it (docs/scaling.md)."""
    callbacks = getattr(worker, "periodic_callbacks", None)
    if not isinstance(callbacks, dict):
        return
    for name in ("profile", "profile-cycle"):
        pc = callbacks.pop(name, None)
        if pc is not None:
            pc.stop()


def _plugin_base() -> type:
    try:  # Dask is optional (cxarena[dask]): this module also loads where it is missing
        from distributed.diagnostics.plugin import WorkerPlugin
    except ImportError:  # the plugin is only ever built where distributed is installed
        return object
    return WorkerPlugin


class CxarenaWorkerPlugin(_plugin_base()):  # type: ignore[misc]
    """Claims this worker's cores and starts their game threads when the worker starts; a
    worker with no free core closes itself (and its nanny) and never plays."""

    idempotent = True  # a second tournament on the same cluster keeps the workers' state
    name = PLUGIN_NAME

    async def setup(self, worker: Any) -> None:
        state = _worker_state(worker)
        if state.cores:
            _stop_profiler(worker)
            log.info("event=worker-ready worker=%s host=%s cores=%s", worker.address,
                     state.host, state.cores)
            return
        message = _no_core_message(worker, state)
        log.error("event=no-free-core %s: this worker closes", message)
        print(f"cxarena: {message}: this worker closes", file=sys.stderr, flush=True)
        asyncio.get_running_loop().call_soon(
            lambda: asyncio.ensure_future(worker.close(nanny=True, reason="cxarena-no-core")))

    def teardown(self, worker: Any) -> None:
        _close_worker_state()


def _files_root() -> Path:
    """Where a worker writes the bots' files that travel with their games."""
    root = Path(tempfile.gettempdir()) / f"cxarena-files-{os.getuid()}"
    root.mkdir(exist_ok=True)
    return root


def worker_fingerprints(specs: Sequence[str]) -> dict[str, str]:
    """The code fingerprint of each SPEC, as computed on this machine (raises SpecError)."""
    return {s: code_fingerprint(parse_spec(s)) for s in specs}


#: files modified less than this long ago are hashed again at every game
_RACY_NS = 2_000_000_000
#: SPEC -> (the stat signature of its code files, its fingerprint), on this worker
_fingerprints: dict[str, tuple[tuple[Any, ...], str]] = {}


def _local_fingerprint(spec_text: str) -> str:
    """`code_fingerprint` of a SPEC here, recomputed whenever a file's size, mtime or inode
    changed (hashing every game would cost a millisecond or two per bot)."""
    spec = parse_spec(spec_text)
    signature: list[Any] = []
    newest_ns = 0
    for f in code_files(spec):
        try:
            st = f.stat()
            signature.append((str(f), st.st_size, st.st_mtime_ns, st.st_ino))
            newest_ns = max(newest_ns, st.st_mtime_ns)
        except OSError:
            signature.append((str(f), None))
    cached = _fingerprints.get(spec_text)
    if cached is not None and cached[0] == tuple(signature):
        return cached[1]
    fp = code_fingerprint(spec)
    # a file changed within the last seconds could change again within the same timestamp
    # tick (the "racy" case of git's index): cache only files that have been still a while
    if time.time_ns() - newest_ns > _RACY_NS:
        _fingerprints[spec_text] = (tuple(signature), fp)
    return fp


def _check_code(game: GameJob, expected: Mapping[str, str], where: str) -> str:
    """'' if both bots' code here matches the coordinator's fingerprints, else why not."""
    for name, spec_text in ((game.p1, game.spec1), (game.p2, game.spec2)):
        try:
            found = _local_fingerprint(spec_text)
        except SpecError as e:
            return (f"bot {name} ({spec_text}) cannot be found on {where}: {e}; workers need "
                    f"the same checkout (or a shared folder) as the coordinator, started from "
                    f"the same directory")
        want = expected.get(spec_text)
        if found != want:
            return (f"code mismatch: bot {name} ({spec_text}) has code fingerprint {found} on "
                    f"{where} but {want} on the coordinator; the worker's copy of the bot (or "
                    f"of cxarena) differs: update the worker's checkout and run again")
    return ""


def play_game(game: GameJob, settings: MatchSettings,
              expected: Mapping[str, str]) -> TaskResult:
    """The Dask task: check both bots' code, then play `game` on one of this worker's cores.

    Never raises for a game: harness errors (a code mismatch, no free core, a bug) come back as
    a TaskResult without a record.
    """
    from distributed import get_worker  # optional Dask: runs only inside a Dask worker

    worker = get_worker()
    state = _worker_state(worker)
    where = f"worker {worker.address} ({state.host})"
    try:
        if not state.cores:
            return TaskResult(game.game_id, None, _no_core_message(worker, state), state.host)
        if game.files1 is not None or game.files2 is not None:
            # bots whose files travel with the game (the league's versions): written here
            # once, and checked against the coordinator's fingerprints of its own copy
            here = game.with_files(_files_root())
            expected = {here.spec1: expected[game.spec1], here.spec2: expected[game.spec2]}
            game = here
        problem = _check_code(game, expected, where)
        if problem:
            log.error("game=%s event=refused %s", game.game_id, problem)
            return TaskResult(game.game_id, None, problem, state.host)
        record, core = state.play(game, settings)
        if state.closing.is_set():  # its bots may have been killed by the shutdown
            return TaskResult(game.game_id, None, f"{where} shut down during the game",
                              state.host, core)
        return TaskResult(game.game_id, record, "", state.host, core)
    except Exception as e:  # a harness bug: never a bot's fault
        return TaskResult(game.game_id, None, f"{where}: {type(e).__name__}: {e}\n"
                          f"{traceback.format_exc(limit=8)}", state.host)
