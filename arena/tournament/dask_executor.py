"""Tournaments across machines: `DaskExecutor` plays the games as Dask distributed tasks.

Dask (`distributed`, the optional extra ``cxarena[dask]``) supplies the scheduler, the workers
on the lab's machines (``dask scheduler``, ``dask worker``), the transport and the replay of the
tasks of a worker that died. This module adds what a fair tournament needs on top of it:

Coordinator (the machine that runs ``cxarena tournament CONFIG --scheduler tcp://HOST:8786``):
- submits the schedule in order (longest games first) through a window of about two tasks per
  worker thread (the rest wait on the coordinator, so the scheduler stays light and a run of
  85,000 games never has more than a few dozen tasks in Dask at once);
- yields each game as it finishes; `run.py` commits it to SQLite at once, so the coordinator is
  the only writer; a game id is yielded at most once, however often Dask ran its task;
- computes each bot's code fingerprint (`arena.entrants.fingerprint`) once and sends it with
  every game;
- machinery faults are never a bot's: a dead worker's task is replayed by Dask elsewhere (a game
  that kills `distributed.scheduler.allowed-failures` + 1 workers comes back as a harness error);
  if the scheduler connection is lost (network, scheduler restart) every game in flight is
  submitted again once the client is connected again (a new client if needed, for up to
  `reconnect_timeout_s`).

Worker (any ``dask worker`` process that has cxarena and the bots installed):
- `CxarenaWorkerPlugin` (registered by the coordinator, idempotent) claims one core of the
  machine per worker thread with an exclusive `flock` on ``<lock dir>/core-<id>.lock``, held
  for the worker process's life (the kernel releases it when the process dies, even by
  SIGKILL), so two worker processes on one machine never share a core. A worker that finds no
  free core plays nothing and closes (with its nanny). Every thread of the worker process is
  pinned to its cores, and the worker's statistical profiler (a stack sample every 10 ms on the
  game's core) is stopped;
- each claimed core has one long-lived game thread pinned to it with its own `Referee` (bots
  pinned to the same core, frozen while waiting, processes reused between games, exactly as in
  `LocalExecutor`). The Dask task only hands the game to an idle game thread and waits, so bot
  processes are children of a thread that lives as long as the worker (PR_SET_PDEATHSIG is
  per thread);
- before a game, the task recomputes both bots' fingerprints from the worker's own files; a
  mismatch (or a bot that cannot be found there) fails the game as a harness error with the
  reason, never as a game result;
- a game cut short because the worker is shutting down is reported as a harness error, not as
  a crash of the bots whose processes the shutdown killed.

Start workers so that fairness holds: one single-threaded worker process per core,
``dask worker tcp://HOST:8786 --nworkers $(nproc) --nthreads 1`` (docs/scaling.md, README).

Dask's workers exit when their scheduler is gone: after a scheduler restart, workers come
back only if something restarts them (a loop, systemd); the coordinator waits for them.

Must not live here: the referee itself, storage (the coordinator's `run.py`), any particular
bot. This module imports without `distributed` (its worker plugin base is then `object`);
`DaskExecutor.run` says in one line how to install it.
"""

from __future__ import annotations

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
import uuid
from collections import deque
from collections.abc import Generator, Mapping, Sequence
from concurrent.futures import Future as ThreadFuture
from dataclasses import dataclass
from typing import Any

from arena.errors import UsageError
from arena.records import GameRecord
from arena.tournament.executor import Executor, GameOutcome, referee_runner
from arena.tournament.schedule import GameSpec

__all__ = ["CORE_LOCK_DIR_ENV", "PLUGIN_NAME", "WORKER_LOG_DIR_ENV", "DaskExecutor",
           "TaskResult", "claim_cores", "play_game", "worker_fingerprints"]

log = logging.getLogger("arena.tournament.dask")

#: the name of the worker plugin on the Dask cluster
PLUGIN_NAME = "cxarena"
#: environment variable naming the directory of the per-core lock files (default: a
#: ``cxarena-cores`` folder in the system's temp directory, shared by all users)
CORE_LOCK_DIR_ENV = "CXARENA_CORE_LOCK_DIR"
#: environment variable naming where a worker keeps its bots' stdout/stderr logs (default:
#: ``cxarena-logs-<uid>`` in the system's temp directory; file names carry the worker's pid)
WORKER_LOG_DIR_ENV = "CXARENA_WORKER_LOG_DIR"
#: how long the coordinator waits to connect to the scheduler at the start
CONNECT_TIMEOUT_S = 15.0
#: how long the coordinator keeps trying to get the scheduler back after losing it
RECONNECT_TIMEOUT_S = 300.0
#: how often the coordinator looks at the cluster (worker count) while waiting for results
POLL_S = 1.0
#: a game whose task is cancelled by a lost scheduler this many times comes back as an error
MAX_RESUBMITS = 5
#: how long the coordinator waits to fetch a finished game's record from its worker
GATHER_TIMEOUT_S = 60.0


# ============================================================================ worker side
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
    game: GameSpec
    settings: Any
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
        play: Any = None
        current: Any = None
        try:
            while True:
                req = self.requests.get()
                if req is None:
                    return
                if not req.done.set_running_or_notify_cancel():
                    continue
                try:
                    settings = self._settings(req.settings)
                    if settings != current or referee is None:
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

    def _settings(self, settings: Any) -> Any:
        """This core's copy of the match settings: pinned here, bot logs in the worker's dir."""
        if not dataclasses.is_dataclass(settings) or isinstance(settings, type):
            return settings
        names = {f.name for f in dataclasses.fields(settings)}
        changes = {k: v for k, v in (("cpu", self.core), ("log_dir", self.log_dir))
                   if k in names}
        return dataclasses.replace(settings, **changes)


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

    def play(self, game: GameSpec, settings: Any) -> tuple[GameRecord, int]:
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
    try:
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
        import asyncio

        asyncio.get_running_loop().call_soon(
            lambda: asyncio.ensure_future(worker.close(nanny=True, reason="cxarena-no-core")))

    def teardown(self, worker: Any) -> None:
        _close_worker_state()


def worker_fingerprints(specs: Sequence[str]) -> dict[str, str]:
    """The code fingerprint of each SPEC, as computed on this machine (raises SpecError)."""
    from arena.entrants.fingerprint import code_fingerprint
    from arena.entrants.specs import parse_spec

    return {s: code_fingerprint(parse_spec(s)) for s in specs}


#: files modified less than this long ago are hashed again at every game
_RACY_NS = 2_000_000_000
#: SPEC -> (the stat signature of its code files, its fingerprint), on this worker
_fingerprints: dict[str, tuple[tuple[Any, ...], str]] = {}


def _local_fingerprint(spec_text: str) -> str:
    """`code_fingerprint` of a SPEC here, recomputed whenever a file's size, mtime or inode
    changed (hashing every game would cost a millisecond or two per bot)."""
    from arena.entrants.fingerprint import code_files, code_fingerprint
    from arena.entrants.specs import parse_spec

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


def _check_code(game: GameSpec, expected: Mapping[str, str], where: str) -> str:
    """'' if both bots' code here matches the coordinator's fingerprints, else why not."""
    from arena.entrants.specs import SpecError

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


def play_game(game: GameSpec, settings: Any, expected: Mapping[str, str]) -> TaskResult:
    """The Dask task: check both bots' code, then play `game` on one of this worker's cores.

    Never raises for a game: harness errors (a code mismatch, no free core, a bug) come back as
    a TaskResult without a record.
    """
    from distributed import get_worker

    worker = get_worker()
    state = _worker_state(worker)
    where = f"worker {worker.address} ({state.host})"
    try:
        if not state.cores:
            return TaskResult(game.game_id, None, _no_core_message(worker, state), state.host)
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


# ======================================================================= coordinator side
@dataclass
class _InFlight:
    game: GameSpec
    priority: int
    future: Any


class DaskExecutor(Executor):
    """Plays the games on a Dask cluster (see the module docstring)."""

    def __init__(self, settings: Any, scheduler: str, *,
                 connect_timeout_s: float = CONNECT_TIMEOUT_S,
                 reconnect_timeout_s: float = RECONNECT_TIMEOUT_S,
                 fingerprints: Mapping[str, str] | None = None) -> None:
        """`scheduler`: the scheduler's address (tcp://HOST:8786). `fingerprints` (SPEC ->
        fingerprint) replaces the coordinator's own computation (tests)."""
        self.settings = settings
        self.scheduler = scheduler
        self.connect_timeout_s = connect_timeout_s
        self.reconnect_timeout_s = reconnect_timeout_s
        self.fingerprints = dict(fingerprints) if fingerprints is not None else None
        self.token = uuid.uuid4().hex[:8]
        self._client: Any = None
        self._done_q: queue.Queue[Any] = queue.Queue()
        self._warned_idle = False

    # ------------------------------------------------------------------ connection
    def _connect(self, timeout_s: float) -> Any:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError("--scheduler: tournaments on Dask need the `distributed` package: "
                             "pip install 'cxarena[dask]'") from None
        try:
            client = Client(self.scheduler, timeout=timeout_s, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise UsageError(
                f"--scheduler {self.scheduler}: cannot connect to a Dask scheduler ({e}); start "
                f"one with `dask scheduler` and workers with `dask worker {self.scheduler} "
                f"--nworkers $(nproc) --nthreads 1`") from None
        client.register_plugin(CxarenaWorkerPlugin(), name=PLUGIN_NAME)
        return client

    def _threads(self) -> int:
        """Worker threads in the cluster now (0 if none, or if the scheduler is away)."""
        try:
            try:
                info = self._client.scheduler_info(n_workers=-1)  # all of them (2025.x on)
            except TypeError:
                info = self._client.scheduler_info()
            workers = info["workers"]
        except Exception:
            return 0
        return sum(int(w.get("nthreads", 1)) for w in workers.values())

    def _reconnect(self) -> None:
        """Wait for the client to reconnect (or make a new one) within reconnect_timeout_s."""
        deadline = time.monotonic() + self.reconnect_timeout_s
        log.warning("event=scheduler-lost scheduler=%s: waiting up to %.0f s for it",
                    self.scheduler, self.reconnect_timeout_s)
        while time.monotonic() < deadline:
            status = getattr(self._client, "status", "closed")
            if status == "running":
                with contextlib.suppress(Exception):
                    self._client.register_plugin(CxarenaWorkerPlugin(), name=PLUGIN_NAME)
                    log.warning("event=scheduler-back scheduler=%s", self.scheduler)
                    return
            elif status in ("closed", "closing", "failed"):
                with contextlib.suppress(Exception):
                    self._client.close(timeout=2)
                try:
                    self._client = self._connect(min(10.0, self.reconnect_timeout_s))
                    log.warning("event=scheduler-back scheduler=%s (new client)",
                                self.scheduler)
                    return
                except UsageError:
                    pass
            time.sleep(0.5)
        raise UsageError(f"--scheduler {self.scheduler}: lost the Dask scheduler and could not "
                         f"reconnect within {self.reconnect_timeout_s:.0f} s; the finished "
                         "games are stored: start the scheduler again and rerun the same "
                         "command to resume")

    # ------------------------------------------------------------------------ run
    def run(self, games: Sequence[GameSpec]) -> Generator[GameOutcome, None, None]:
        if not games:
            return
        self._client = self._connect(self.connect_timeout_s)
        expected = self.fingerprints
        if expected is None:
            expected = worker_fingerprints(sorted({s for g in games
                                                   for s in (g.spec1, g.spec2)}))
        done_q: queue.Queue[Any] = queue.Queue()
        self._done_q = done_q
        todo: deque[tuple[int, GameSpec]] = deque(enumerate(games))
        inflight: dict[str, _InFlight] = {}
        yielded: set[str] = set()
        resubmits: dict[str, int] = {}
        threads, threads_at = self._threads(), time.monotonic()
        try:
            while todo or inflight:
                if getattr(self._client, "status", "closed") != "running":
                    self._reconnect()  # the notices of the cancelled tasks follow
                if time.monotonic() - threads_at > POLL_S:
                    threads, threads_at = self._threads(), time.monotonic()
                self._top_up(todo, inflight, expected, done_q, threads)
                try:
                    fut = done_q.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                entry = inflight.get(fut.key)
                if entry is None or entry.future is not fut:
                    continue  # a stale notice (already handled)
                outcome = self._outcome(entry, todo, inflight, resubmits)
                if outcome is None:
                    continue
                if outcome.game.game_id in yielded:
                    log.warning("game=%s event=duplicate: Dask ran it twice, ignored",
                                outcome.game.game_id)
                    continue
                yielded.add(outcome.game.game_id)
                yield outcome
        finally:
            self._shutdown(inflight)

    def _top_up(self, todo: deque[tuple[int, GameSpec]], inflight: dict[str, _InFlight],
                expected: Mapping[str, str], done_q: queue.Queue[Any], threads: int) -> None:
        if threads == 0 and not self._warned_idle:
            self._warned_idle = True
            log.warning("event=no-workers scheduler=%s: waiting for Dask workers",
                        self.scheduler)
            print(f"cxarena: no Dask workers at {self.scheduler} yet; start them with "
                  f"`dask worker {self.scheduler} --nworkers $(nproc) --nthreads 1`",
                  file=sys.stderr, flush=True)
        window = max(2, 2 * threads + 2)
        while todo and len(inflight) < window:
            index, game = todo.popleft()
            self._submit(index, game, inflight, expected, done_q)

    def _submit(self, index: int, game: GameSpec, inflight: dict[str, _InFlight],
                expected: Mapping[str, str], done_q: queue.Queue[Any]) -> None:
        key = f"cxarena-{self.token}-{game.game_id}-{uuid.uuid4().hex[:6]}"
        need = {s: expected[s] for s in (game.spec1, game.spec2)}
        fut = self._client.submit(play_game, game, self.settings, need, key=key, pure=False,
                                  priority=-index, retries=0)
        inflight[key] = _InFlight(game, index, fut)
        fut.add_done_callback(done_q.put)

    def _outcome(self, entry: _InFlight, todo: deque[tuple[int, GameSpec]],
                 inflight: dict[str, _InFlight], resubmits: dict[str, int],
                 ) -> GameOutcome | None:
        """The outcome of a task that is done, or None if its game goes back in the queue."""
        fut, game = entry.future, entry.game
        status = fut.status
        if status == "finished":
            try:
                res: TaskResult = fut.result(timeout=GATHER_TIMEOUT_S)
            except Exception as e:  # its worker died before we fetched it: Dask recomputes
                if fut.status != "finished" and fut.status not in ("error", "cancelled"):
                    log.warning("game=%s event=result-lost (%s): waiting for the replay",
                                game.game_id, e)
                    self._renotify(entry)
                    return None
                res = TaskResult(game.game_id, None, f"could not fetch the result: {e}")
            del inflight[fut.key]
            fut.release()
            if res.record is None:
                log.error("game=%s event=harness-error host=%s error=%s", game.game_id,
                          res.host, res.error)
                return GameOutcome(game, None, error=res.error)
            _log_end(game, res)
            return GameOutcome(game, res.record, worker=-1 if res.core is None else res.core)
        if status == "error":
            del inflight[fut.key]
            exc = fut.exception()
            name = type(exc).__name__
            if name == "KilledWorker":
                error = (f"every worker that tried this game died ({exc}); it was not played "
                         "and no bot was charged")
            else:
                error = f"{name}: {exc} (is cxarena installed on every worker?)"
            fut.release()
            log.error("game=%s event=task-error error=%s", game.game_id, error)
            return GameOutcome(game, None, error=error)
        if status == "cancelled":  # the scheduler went away: play it again
            del inflight[fut.key]
            n = resubmits[game.game_id] = resubmits.get(game.game_id, 0) + 1
            if n > MAX_RESUBMITS:
                return GameOutcome(game, None, error=f"cancelled {n} times by the cluster "
                                   "(lost scheduler connection)")
            if getattr(self._client, "status", "closed") != "running":
                self._reconnect()
            log.warning("game=%s event=resubmit: the cluster lost it (%d)", game.game_id, n)
            todo.appendleft((entry.priority, game))
            return None
        self._renotify(entry)  # pending again (lost): wait for the next notice
        return None

    def _renotify(self, entry: _InFlight) -> None:
        """Ask for another notice when this (pending again) future is done."""
        entry.future.add_done_callback(self._done_q.put)

    def _shutdown(self, inflight: dict[str, _InFlight]) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        with contextlib.suppress(Exception):
            if inflight:
                client.cancel([e.future for e in inflight.values()], force=True)
        inflight.clear()
        with contextlib.suppress(Exception):
            client.close(timeout=10)


def _log_end(game: GameSpec, res: TaskResult) -> None:
    rec = res.record
    assert rec is not None
    result = {1: game.p1, 2: game.p2}.get(rec.winner or 0, "draw")
    if rec.is_fault:
        offender = game.p1 if rec.offender == 1 else game.p2
        log.warning("game=%s event=fault host=%s core=%s reason=%s offender=%s detail=%s",
                    game.game_id, res.host, res.core, rec.reason.value, offender, rec.detail)
    log.info("game=%s event=end host=%s core=%s winner=%s reason=%s moves=%d", game.game_id,
             res.host, res.core, result, rec.reason.value, len(rec.moves))
