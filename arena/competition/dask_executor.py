"""Games across machines: `DaskExecutor` plays the games as Dask distributed tasks (a
tournament's schedule, or the league's rating games as its source hands them out).

Dask (`distributed`, the optional extra ``cxarena[dask]``) supplies the scheduler, the workers
on the lab's machines (``dask scheduler``, ``dask worker``), the transport and the replay of the
tasks of a worker that died. This module adds what a fair tournament needs on top of it:

Coordinator (the machine that runs ``cxarena tournament CONFIG --scheduler tcp://HOST:8786``,
or ``cxarena league serve DIR --scheduler ...``):
- submits the schedule in order (longest games first) through a window of about two tasks per
  worker thread (the rest wait on the coordinator, so the scheduler stays light and a run of
  85,000 games never has more than a few dozen tasks in Dask at once); a source (`JobSource`)
  is asked for a game whenever the window has room;
- yields each game as it finishes; `run.py` commits it to SQLite at once, so the coordinator is
  the only writer; a game taken is yielded at most once, however often Dask ran its task;
- computes each bot's code fingerprint (`arena.entrants.fingerprint`) once and sends it with
  every game (a fixed list's bots before the first game, a source's as their games come); a
  bot whose files travel with its game (`GameJob.files1`, the league's versions) is written on
  the worker and checked against the coordinator's copy;
- machinery faults are never a bot's: a dead worker's task is replayed by Dask elsewhere (a game
  that kills `distributed.scheduler.allowed-failures` + 1 workers comes back as a harness error);
  if the scheduler connection is lost (network, scheduler restart) every game in flight is
  submitted again once the client is connected again (a new client if needed, for up to
  `reconnect_timeout_s`).

Worker (any ``dask worker`` process that has cxarena and the bots installed; the code is in
`arena.competition.dask_worker`):
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
import itertools
import logging
import queue
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.competition.dask_worker import (
    PLUGIN_NAME,
    CxarenaWorkerPlugin,
    TaskResult,
    play_game,
    worker_fingerprints,
)
from arena.competition.executor import Executor, GameOutcome, as_source
from arena.competition.jobs import GameJob, JobSource
from arena.entrants.specs import SpecError
from arena.errors import UsageError
from arena.referee.referee import MatchSettings

__all__ = ["DaskExecutor"]

log = logging.getLogger("arena.competition.dask")

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


def _connection_lost(exc: BaseException) -> bool:
    """An error of fetching a result that says the scheduler's connection went away (the
    scheduler killed or restarted), not that the result is bad."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    name = type(exc).__name__
    return name in ("CommClosedError", "StreamClosedError") or (
        isinstance(exc, OSError) and "closed" in str(exc).lower())


def _identity(client: Any) -> str | None:
    """The id of the scheduler `client` is connected to (None if it cannot say)."""
    try:
        ident = client.scheduler_info().get("id")
    except Exception:
        return None
    return ident if isinstance(ident, str) else None


@dataclass
class _InFlight:
    game: GameJob
    priority: int
    future: Any


class DaskExecutor(Executor):
    """Plays the games on a Dask cluster (see the module docstring)."""

    def __init__(self, settings: MatchSettings, scheduler: str, *,
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
        self._scheduler_id: str | None = None  # the identity of the scheduler we are on

    # ------------------------------------------------------------------ connection
    def _connect(self, timeout_s: float) -> Any:
        try:  # Dask is optional (cxarena[dask]) and slow to import: only for --scheduler
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
        self._scheduler_id = _identity(client)
        return client

    def _new_scheduler(self) -> None:
        """A scheduler that went away and came back before the run looked (Dask's client
        reconnects by itself): said in the log as a loss and a return, and the worker plugin
        registered with the new one (its workers are new). Nothing when it is the same."""
        now = _identity(self._client)
        if now is None or now == self._scheduler_id:
            return
        log.warning("event=scheduler-lost scheduler=%s: the client reconnected by itself",
                    self.scheduler)
        with contextlib.suppress(Exception):
            self._client.register_plugin(CxarenaWorkerPlugin(), name=PLUGIN_NAME)
        self._scheduler_id = now
        log.warning("event=scheduler-back scheduler=%s (a new scheduler)", self.scheduler)

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
                    self._scheduler_id = _identity(self._client)
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
    def run(self, games: Sequence[GameJob] | JobSource,
            stop: threading.Event | None = None) -> Generator[GameOutcome, None, None]:
        source = as_source(games)
        stop = stop or threading.Event()
        if source.finished:
            return
        self._client = self._connect(self.connect_timeout_s)
        expected: dict[str, str] = dict(self.fingerprints or {})
        if self.fingerprints is None and isinstance(games, Sequence):
            # a fixed list: every bot's fingerprint at once (a missing bot stops the run
            # before any game); a source's bots are fingerprinted as their games come
            expected = worker_fingerprints(sorted({s for g in games
                                                   for s in (g.spec1, g.spec2)}))
        done_q: queue.Queue[Any] = queue.Queue()
        self._done_q = done_q
        todo: deque[tuple[int, GameJob]] = deque()  # games cancelled by the cluster
        serial = itertools.count()  # the n-th game taken: its priority and its identity
        inflight: dict[str, _InFlight] = {}
        yielded: set[int] = set()
        resubmits: dict[int, int] = {}
        threads, threads_at = self._threads(), time.monotonic()
        try:
            while (todo or inflight or not source.finished) and not stop.is_set():
                if getattr(self._client, "status", "closed") != "running":
                    self._reconnect()  # the notices of the cancelled tasks follow
                if time.monotonic() - threads_at > POLL_S:
                    threads, threads_at = self._threads(), time.monotonic()
                for refused in self._top_up(source, serial, todo, inflight, expected, done_q,
                                            threads):
                    source.done(refused)  # a bot whose fingerprint cannot be computed here
                    yield refused
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
                if entry.priority in yielded:
                    log.warning("game=%s event=duplicate: Dask ran it twice, ignored",
                                outcome.game.game_id)
                    continue
                yielded.add(entry.priority)
                source.done(outcome)
                yield outcome
        finally:
            self._shutdown(inflight)

    def _top_up(self, source: JobSource, serial: Iterator[int],
                todo: deque[tuple[int, GameJob]], inflight: dict[str, _InFlight],
                expected: dict[str, str], done_q: queue.Queue[Any],
                threads: int) -> list[GameOutcome]:
        """Submit games until the window is full (those cancelled by the cluster first);
        returns the outcomes of the games that could not be submitted (a bot's fingerprint
        cannot be computed here)."""
        if threads == 0 and not self._warned_idle:
            self._warned_idle = True
            log.warning("event=no-workers scheduler=%s: waiting for Dask workers",
                        self.scheduler)
            print(f"cxarena: no Dask workers at {self.scheduler} yet; start them with "
                  f"`dask worker {self.scheduler} --nworkers $(nproc) --nthreads 1`",
                  file=sys.stderr, flush=True)
        window = max(2, 2 * threads + 2)
        failed: list[GameOutcome] = []
        while len(inflight) < window:
            if todo:
                index, game = todo.popleft()
            else:
                job = source.take()
                if job is None:
                    break
                index, game = next(serial), job
            try:
                for spec in (game.spec1, game.spec2):
                    if spec not in expected:
                        expected.update(worker_fingerprints([spec]))
            except SpecError as e:
                log.error("game=%s event=not-submitted error=%s", game.game_id, e)
                failed.append(GameOutcome(game, None, error=f"{type(e).__name__}: {e}"))
                continue
            self._submit(index, game, inflight, expected, done_q)
        return failed

    def _submit(self, index: int, game: GameJob, inflight: dict[str, _InFlight],
                expected: Mapping[str, str], done_q: queue.Queue[Any]) -> None:
        key = f"cxarena-{self.token}-{game.game_id}-{uuid.uuid4().hex[:6]}"
        need = {s: expected[s] for s in (game.spec1, game.spec2)}
        fut = self._client.submit(play_game, game, self.settings, need, key=key, pure=False,
                                  priority=-index, retries=0)
        inflight[key] = _InFlight(game, index, fut)
        fut.add_done_callback(done_q.put)

    def _outcome(self, entry: _InFlight, todo: deque[tuple[int, GameJob]],
                 inflight: dict[str, _InFlight], resubmits: dict[int, int],
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
                if _connection_lost(e):  # the scheduler went away with the result: again
                    return self._again(entry, todo, inflight, resubmits, f"result lost: {e}")
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
            return self._again(entry, todo, inflight, resubmits, "cancelled")
        self._renotify(entry)  # pending again (lost): wait for the next notice
        return None

    def _again(self, entry: _InFlight, todo: deque[tuple[int, GameJob]],
               inflight: dict[str, _InFlight], resubmits: dict[int, int], why: str,
               ) -> GameOutcome | None:
        """A game the cluster lost (its task cancelled, or its result gone with the
        scheduler) goes back to the front of the queue, after the scheduler is back; a game
        lost more than MAX_RESUBMITS times is not played (no bot is charged)."""
        game = entry.game
        inflight.pop(entry.future.key, None)
        with contextlib.suppress(Exception):
            entry.future.release()
        n = resubmits[entry.priority] = resubmits.get(entry.priority, 0) + 1
        if n > MAX_RESUBMITS:
            return GameOutcome(game, None, error=f"lost {n} times by the cluster "
                               f"(lost scheduler connection; last: {why})")
        if getattr(self._client, "status", "closed") != "running":
            self._reconnect()
        else:
            self._new_scheduler()
        log.warning("game=%s event=resubmit: the cluster lost it (%d; %s)", game.game_id, n,
                    why)
        todo.appendleft((entry.priority, game))
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


def _log_end(game: GameJob, res: TaskResult) -> None:
    rec = res.record
    assert rec is not None
    result = {1: game.p1, 2: game.p2}.get(rec.winner or 0, "draw")
    if rec.is_fault:
        offender = game.p1 if rec.offender == 1 else game.p2
        log.warning("game=%s event=fault host=%s core=%s reason=%s offender=%s detail=%s",
                    game.game_id, res.host, res.core, rec.reason.value, offender, rec.detail)
    log.info("game=%s event=end host=%s core=%s winner=%s reason=%s moves=%d", game.game_id,
             res.host, res.core, result, rec.reason.value, rec.n_moves)
