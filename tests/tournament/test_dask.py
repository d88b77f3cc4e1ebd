"""Tournaments on Dask (`arena.competition.dask_executor`), with real clusters on 127.0.0.1:
a LocalCluster of two single-threaded worker processes stores the same games as the local
executor; a `dask scheduler` + two `dask worker` processes survive a worker SIGKILLed
mid-game (every game stored once, no bot charged); a worker whose copy of a bot differs is
refused with the reason. Skipped (with the reason) when `distributed` is not installed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.competition.cores import usable_core_ids
from arena.competition.dask_worker import CORE_LOCK_DIR_ENV, claim_cores
from arena.errors import UsageError
from arena.results.store import ResultStore
from arena.tournament.config import load_config
from arena.tournament.run import match_settings, run_tournament
from arena.tournament.schedule import make_schedule
from tests.helpers import JUDGE, SLEEPY, board, columns, db_count, wait_gone

distributed = pytest.importorskip(
    "distributed", reason="`distributed` is not installed (pip install 'cxarena[dask]')")

pytestmark = pytest.mark.slow

needs_two_cores = pytest.mark.skipif(
    len(usable_core_ids()) < 2, reason="needs 2 usable cores (one per Dask worker process)")


def write_config(tmp_path: Path, players: str, boards: str, name: str,
                 timeout_s: float = 0.2, extra: str = "") -> Path:
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(f"name: {name}\nplayers: {players}\nboards: {boards}\n"
                   f"timeout_s: {timeout_s}\ngrace_s: 0.05\nworkers: 2\nseed: 7\n"
                   f"memory_limit_mb: 1024\n{extra}")
    return cfg


def stored_games(results: Path) -> dict[str, Any]:
    with ResultStore(results / "games.sqlite", create=False) as s:
        return {g.game_id: g.record for g in s.games()}


def game_ids(results: Path) -> list[str]:
    import sqlite3

    con = sqlite3.connect(f"file:{results / 'games.sqlite'}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT game_id FROM games")]
    finally:
        con.close()


def comparable(record: Any) -> tuple[Any, ...]:
    return (*board(record), record.p1, record.p2, record.seed, columns(record),
            record.winner, record.reason, record.offender)


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Two single-threaded worker processes on 127.0.0.1 (dashboard on a free loopback port),
    with their own core-lock directory."""
    if len(usable_core_ids()) < 2:
        pytest.skip("needs 2 usable cores (one per Dask worker process)")
    locks = tmp_path_factory.mktemp("core-locks")
    old = os.environ.get(CORE_LOCK_DIR_ENV)
    os.environ[CORE_LOCK_DIR_ENV] = str(locks)  # inherited by the worker processes
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                      silence_logs=40) as cluster:
            yield cluster
    finally:
        if old is None:
            os.environ.pop(CORE_LOCK_DIR_ENV, None)
        else:
            os.environ[CORE_LOCK_DIR_ENV] = old


# ------------------------------------------------------------------ (1) same games as local
@needs_two_cores
def test_local_cluster_stores_the_same_games_as_the_local_executor(
        local_cluster: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path, "[L0, L1]", "[[4, 4, 3], [5, 4, 4]]", "same",
                       extra="rounds: 2\n")
    config = load_config(cfg)
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert run_tournament(config, local, quiet=True, judge=JUDGE).complete
    assert main(["tournament", str(cfg), "--results", str(dask), "--quiet",
                 "--scheduler", local_cluster.scheduler_address]) == 0
    assert "8 of 8 games stored" in capsys.readouterr().out

    expected = stored_games(local)
    got = stored_games(dask)
    assert sorted(got) == sorted(g.game_id for g in make_schedule(config, judge=JUDGE))
    assert {k: comparable(v) for k, v in got.items()} == \
        {k: comparable(v) for k, v in expected.items()}
    assert not any(r.is_fault for r in got.values())
    # same points (the standings files also show measured move times, which differ)
    points = [line.split("|")[:5] for line in (local / "standings.md").read_text().splitlines()
              if line.startswith("| ")]
    assert points and points == [line.split("|")[:5] for line in
                                 (dask / "standings.md").read_text().splitlines()
                                 if line.startswith("| ")]

    # the same command again: nothing left to play
    again = config.with_file(scheduler=local_cluster.scheduler_address)
    outcome = run_tournament(again, dask, quiet=True, judge=JUDGE)
    assert (outcome.already_stored, outcome.played) == (8, 0)


# ------------------------------------------------------------ (3) a worker's bot differs
@needs_two_cores
def test_a_worker_whose_bot_differs_is_refused(local_cluster: Any, tmp_path: Path) -> None:
    from arena.competition.dask_executor import DaskExecutor
    from arena.competition.dask_worker import worker_fingerprints

    bot = tmp_path / "sleepy.py"
    bot.write_text(SLEEPY.replace("delay_s = 0.05", "delay_s = 0.0"))
    cfg = write_config(tmp_path, f"[L0, L1, {{spec: {bot}, name: mine}}]", "[[4, 4, 3]]",
                       "differs")
    config = load_config(cfg)
    specs = sorted({p.spec for p in config.players})
    coordinator = worker_fingerprints(specs)  # the coordinator's view...
    bot.write_text(bot.read_text() + "\n# changed after the coordinator looked\n")  # ...stale
    results = tmp_path / "out"
    outcome = run_tournament(config, results, quiet=True, executor=DaskExecutor(
        match_settings(config, None), local_cluster.scheduler_address,
        fingerprints=coordinator), judge=JUDGE)
    assert not outcome.complete
    failed = {oc.game.game_id: oc.error for oc in outcome.failed}
    assert sorted(failed) == sorted(g.game_id for g in make_schedule(config, judge=JUDGE)
                                    if "mine" in (g.p1, g.p2))
    for error in failed.values():
        assert error.startswith(f"code mismatch: bot mine ({bot}) has code fingerprint ")
        assert f"but {coordinator[str(bot)]} on the coordinator" in error
        assert "update the worker's checkout" in error
    # never a game result: only the games without the bot are stored
    assert sorted(game_ids(results)) == ["4x4x3-r1-L0-L1", "4x4x3-r1-L1-L0"]


# --------------------------------------------------- (2) real cluster, a worker SIGKILLed
def _dask_cli() -> str:
    found = Path(sys.executable).parent / "dask"
    if found.is_file():
        return str(found)
    which = shutil.which("dask")
    if which is None:
        pytest.skip("the `dask` command is not installed (pip install 'cxarena[dask]')")
    return which


class LoopbackCluster:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1, each in its own session."""

    def __init__(self, tmp: Path, mark: str) -> None:
        self.tmp = tmp
        self.mark = mark
        self.procs: list[subprocess.Popen[bytes]] = []
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.file = tmp / "scheduler.json"
        self.env = dict(os.environ, CXARENA_TEST_MARK=mark,
                        **{CORE_LOCK_DIR_ENV: str(tmp / "core-locks")})
        self.env.pop("PYTHONWARNINGS", None)

    def _start(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"{name}.log", "ab")
        proc = subprocess.Popen([_dask_cli(), *args], env=self.env, cwd=self.tmp,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        self.procs.append(proc)
        return proc

    def start(self, workers: int, port: int = 0) -> str:
        """Start the scheduler (on `port`, 0 = any free one) and `workers` workers."""
        self.file.unlink(missing_ok=True)
        self.scheduler = self._start(
            ["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
             "--scheduler-file", str(self.file)], f"scheduler-{len(self.procs)}")
        deadline = time.monotonic() + 60
        while not self.file.is_file() or not self.file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start within 60 s"
            assert self.scheduler.poll() is None, "the scheduler exited"
            time.sleep(0.1)
        time.sleep(0.1)  # written in one go, but be safe
        address = str(json.loads(self.file.read_text())["address"])
        self.workers = []
        for _ in range(workers):
            name = f"w{len(self.procs)}"
            self.workers.append(self._start(
                ["worker", address, "--nthreads", "1", "--nworkers", "1", "--host",
                 "127.0.0.1", "--no-dashboard", "--name", name, "--local-directory",
                 str(self.tmp / name)], name))
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=60)
        return address

    def stop(self) -> None:
        for p in reversed(self.procs):  # workers first, then the scheduler
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)
        for p in self.procs:  # anything left in their sessions (bots are in their own groups)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)


@pytest.fixture
def loopback_cluster(tmp_path: Path) -> Iterator[LoopbackCluster]:
    if len(usable_core_ids()) < 2:
        pytest.skip("needs 2 usable cores (one per Dask worker process)")
    _dask_cli()
    cluster = LoopbackCluster(tmp_path, f"dask-{uuid.uuid4().hex[:8]}")
    try:
        yield cluster
    finally:
        cluster.stop()
        left = wait_gone(cluster.mark, timeout_s=20)
        for pid in left:  # never leave anything behind, even when the test failed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        assert not left, f"processes left behind by the cluster: {left}"


def test_a_worker_killed_mid_game_is_replayed_and_no_bot_is_charged(
        loopback_cluster: LoopbackCluster, tmp_path: Path) -> None:
    from arena.competition.dask_executor import DaskExecutor

    address = loopback_cluster.start(workers=2)
    bot = tmp_path / "sleepy.py"
    bot.write_text(SLEEPY.replace("delay_s = 0.05", "delay_s = 0.1"))
    cfg = write_config(tmp_path, f"[L0, L1, {{spec: {bot}, name: sleepy}}]",
                       "[[4, 4, 3], [5, 4, 4]]", "killed", timeout_s=1.0)
    config = load_config(cfg)
    results = tmp_path / "out"
    killed: dict[str, Any] = {}

    def kill_a_busy_worker() -> None:
        """SIGKILL the worker process that is playing a game with the sleepy bot."""
        try:
            with distributed.Client(address, timeout=30, set_as_default=False) as client:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    for addr, keys in client.processing().items():
                        busy = [str(k) for k in keys if "sleepy" in str(k)]
                        if not busy:
                            continue
                        pid = client.run(os.getpid, workers=[addr])[addr]
                        time.sleep(0.15)  # inside the game (sleepy's moves take 0.1 s each)
                        if busy[0] not in {str(k) for k in client.processing().get(addr, ())}:
                            break  # it finished meanwhile: look again
                        os.kill(pid, signal.SIGKILL)
                        killed.update(key=busy[0], pid=pid, worker=addr, at=time.time())
                        return
                    time.sleep(0.02)
        except BaseException as e:  # reported by the test
            killed["error"] = repr(e)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    try:
        outcome = run_tournament(config, results, quiet=True, executor=DaskExecutor(
            match_settings(config, None), address), judge=JUDGE)
    finally:
        killer.join()
    assert "error" not in killed, killed
    assert killed, "no worker was killed mid-game"
    with contextlib.suppress(ProcessLookupError):
        os.kill(killed["pid"], 0)
        pytest.fail("the killed worker is still alive")
    schedule = make_schedule(config, judge=JUDGE)
    assert outcome.failed == ()
    assert outcome.complete and outcome.played == len(schedule) == 12
    ids = game_ids(results)
    assert sorted(ids) == sorted(g.game_id for g in schedule)  # each exactly once
    records = stored_games(results)
    assert not [r for r in records.values() if r.is_fault]  # nobody charged for the kill
    lost = next(g.game_id for g in schedule if g.game_id in killed["key"])
    assert records[lost].reason.value in ("connect", "draw") and records[lost].n_moves
    # the stored game is the replay, started after the kill
    assert datetime.fromisoformat(records[lost].started_at).timestamp() > killed["at"]


# ----------------------------------------------------------------------- smaller pieces
def test_claimed_cores_are_exclusive_until_released(tmp_path: Path) -> None:
    cores = usable_core_ids()
    first = claim_cores(len(cores), str(tmp_path))
    assert sorted(c for c, _ in first) == cores
    assert claim_cores(1, str(tmp_path)) == []  # every core taken (flock, even in-process)
    os.close(first[0][1])
    again = claim_cores(1, str(tmp_path))
    assert [c for c, _ in again] == [first[0][0]]
    for _, fd in again + first[1:]:
        os.close(fd)


def test_scheduler_key_and_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = write_config(tmp_path, "[L0, L1]", "[[4, 4, 3]]", "keyed",
                       extra="scheduler: tcp://127.0.0.1:1\n")
    assert load_config(cfg).file.scheduler == "tcp://127.0.0.1:1"
    bad = write_config(tmp_path, "[L0, L1]", "[[4, 4, 3]]", "bad", extra="scheduler: 8786\n")
    with pytest.raises(UsageError, match=r"bad.yaml: scheduler: expected the address of a "
                                         r"Dask scheduler"):
        load_config(bad)
    assert main(["tournament", str(cfg), "--scheduler", " ", "--quiet"]) == 2
    assert "--scheduler: expected a Dask scheduler address" in capsys.readouterr().err


def test_unreachable_scheduler_is_one_clear_error(tmp_path: Path) -> None:
    from arena.competition.dask_executor import DaskExecutor
    from arena.competition.jobs import GameJob
    from arena.records import recorded_game

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ex = DaskExecutor(None, f"tcp://127.0.0.1:{port}", connect_timeout_s=1.0)
    game = GameJob("g", recorded_game("connectx", 4, 4, 3, ()), "L0", "L1", "L0", "L1", 0)
    with pytest.raises(UsageError, match=r"cannot connect to a Dask scheduler .*dask worker"):
        next(ex.run([game]))


def test_a_worker_without_a_free_core_closes_itself(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from arena.competition import dask_worker as dx

    monkeypatch.setenv(CORE_LOCK_DIR_ENV, str(tmp_path))
    taken = claim_cores(len(usable_core_ids()), str(tmp_path))  # other workers hold them all
    closed: list[dict[str, Any]] = []

    class FakeWorker:
        address = "tcp://127.0.0.1:1"
        local_directory = str(tmp_path)
        state = type("S", (), {"nthreads": 1})()

        async def close(self, **kwargs: Any) -> None:
            closed.append(kwargs)

    async def start() -> None:
        await dx.CxarenaWorkerPlugin().setup(FakeWorker())
        await asyncio.sleep(0.05)

    try:
        asyncio.run(start())
        assert closed == [{"nanny": True, "reason": "cxarena-no-core"}]
        state = dx._worker_state(FakeWorker())
        assert state.cores == [] and state.threads == []
    finally:
        dx._close_worker_state()
        for _, fd in taken:
            os.close(fd)


def test_a_scheduler_restart_replays_the_games_in_flight(
        loopback_cluster: LoopbackCluster, tmp_path: Path) -> None:
    """The scheduler is SIGKILLed mid-run (its workers exit, as Dask's do) and started again
    on the same port with new workers, as a supervisor would: the coordinator reconnects,
    submits the lost games again and finishes; nobody is charged."""
    from arena.competition.dask_executor import DaskExecutor

    address = loopback_cluster.start(workers=2)
    port = int(address.rsplit(":", 1)[1])
    bot = tmp_path / "sleepy.py"
    bot.write_text(SLEEPY)
    cfg = write_config(tmp_path, f"[L0, L1, {{spec: {bot}, name: sleepy}}]",
                       "[[4, 4, 3], [5, 4, 4]]", "restart", timeout_s=1.0)
    config = load_config(cfg)
    results = tmp_path / "out"
    events: dict[str, Any] = {}

    def restart_the_scheduler() -> None:
        try:
            deadline = time.monotonic() + 60
            while db_count(results) < 3:
                assert time.monotonic() < deadline, "no games stored within 60 s"
                time.sleep(0.05)
            old = loopback_cluster.workers
            assert loopback_cluster.scheduler is not None
            os.killpg(loopback_cluster.scheduler.pid, signal.SIGKILL)
            events["killed_after"] = db_count(results)
            for w in old:  # Dask workers exit when their scheduler is gone
                w.wait(60)
            loopback_cluster.start(workers=2, port=port)
            events["restarted"] = True
        except BaseException as e:  # reported by the test
            events["error"] = repr(e)

    helper = threading.Thread(target=restart_the_scheduler)
    helper.start()
    try:
        outcome = run_tournament(config, results, quiet=True, executor=DaskExecutor(
            match_settings(config, None), address, reconnect_timeout_s=120), judge=JUDGE)
    finally:
        helper.join()
    assert "error" not in events and events.get("restarted"), events
    schedule = make_schedule(config, judge=JUDGE)
    assert events["killed_after"] < len(schedule)
    assert outcome.failed == () and outcome.complete
    assert sorted(game_ids(results)) == sorted(g.game_id for g in schedule)
    assert not [r for r in stored_games(results).values() if r.is_fault]
    log = (results / "arena.log").read_text()
    assert "event=scheduler-lost" in log and "event=scheduler-back" in log


def test_the_worker_check_sees_every_change_and_names_what_is_missing(tmp_path: Path) -> None:
    from arena.competition import dask_worker as dx
    from arena.competition.jobs import GameJob
    from arena.entrants.fingerprint import code_fingerprint
    from arena.entrants.specs import parse_spec
    from arena.records import recorded_game

    bot = tmp_path / "mine.py"
    bot.write_text(SLEEPY)
    os.utime(bot, (time.time() - 100, time.time() - 100))  # still for a while: cached
    before = dx._local_fingerprint(str(bot))
    assert str(bot) in dx._fingerprints
    assert before == dx._local_fingerprint(str(bot)) == code_fingerprint(parse_spec(str(bot)))
    bot.write_text(SLEEPY.replace("0.05", "0.06"))  # same size, new contents
    after = dx._local_fingerprint(str(bot))
    assert after != before and after == code_fingerprint(parse_spec(str(bot)))

    game = GameJob("g", recorded_game("connectx", 4, 4, 3, ()), "L0", "mine", "L0", str(bot),
                   0)
    expected = dx.worker_fingerprints(["L0", str(bot)])
    assert dx._check_code(game, expected, "worker W") == ""
    gone = GameJob("g", recorded_game("connectx", 4, 4, 3, ()), "L0", "gone", "L0",
                   str(tmp_path / "gone.py"), 0)
    problem = dx._check_code(gone, expected, "worker W")
    assert problem.startswith(f"bot gone ({tmp_path / 'gone.py'}) cannot be found on worker W")


class _ReconnectedClient:
    """A Dask client that reconnected by itself to a scheduler started again: its identity
    is the new scheduler's, and it counts the plugins registered with it."""

    status = "running"

    def __init__(self, scheduler_id: str) -> None:
        self.scheduler_id = scheduler_id
        self.plugins: list[str] = []

    def scheduler_info(self) -> dict[str, Any]:
        return {"id": self.scheduler_id}

    def register_plugin(self, plugin: object, name: str) -> None:
        self.plugins.append(name)


def test_a_scheduler_back_before_the_run_looked_is_said_and_gets_the_plugin(
        caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    """Under load Dask's client may reconnect before the run sees it was away: the first
    cancelled game then finds a new scheduler id; the loss and the return are logged, and
    the new scheduler (whose workers are new) gets the worker plugin. The same scheduler
    again: nothing."""
    from arena.competition.dask_executor import DaskExecutor
    config = load_config(write_config(tmp_path, "[L0, L1]", "[[4, 4, 3]]", "back"))
    ex = DaskExecutor(match_settings(config, None), "tcp://127.0.0.1:1")
    ex._client, ex._scheduler_id = _ReconnectedClient("Scheduler-old"), "Scheduler-old"
    with caplog.at_level("WARNING"):
        ex._new_scheduler()
    assert "scheduler-lost" not in caplog.text and ex._client.plugins == []
    ex._client.scheduler_id = "Scheduler-new"
    with caplog.at_level("WARNING"):
        ex._new_scheduler()
    assert "event=scheduler-lost" in caplog.text and "event=scheduler-back" in caplog.text
    assert len(ex._client.plugins) == 1 and ex._scheduler_id == "Scheduler-new"


class _LostResult:
    """A finished task whose result went away with its scheduler (the fetch fails)."""

    key = "cxarena-lost"
    status = "finished"

    def result(self, timeout: float | None = None) -> object:
        raise ConnectionResetError(104, "Connection reset by peer")

    def release(self) -> None:
        pass


def test_a_result_lost_with_its_scheduler_is_played_again_not_given_up(
        tmp_path: Path) -> None:
    """The scheduler killed between a game's end and the fetch of its result (a busy machine
    found it): the game goes back to the queue, as a cancelled one does; it is not reported
    as a game the harness could not play."""
    from collections import deque

    from arena.competition.dask_executor import DaskExecutor, _InFlight
    config = load_config(write_config(tmp_path, "[L0, L1]", "[[4, 4, 3]]", "lost"))
    game = make_schedule(config, judge=JUDGE)[0]
    ex = DaskExecutor(match_settings(config, None), "tcp://127.0.0.1:1")
    ex._client, ex._scheduler_id = _ReconnectedClient("Scheduler-1"), "Scheduler-1"
    entry = _InFlight(game, 0, _LostResult())
    todo: deque[Any] = deque()
    inflight = {entry.future.key: entry}
    assert ex._outcome(entry, todo, inflight, {}) is None
    assert list(todo) == [(0, game)] and not inflight
