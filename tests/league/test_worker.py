"""The league's rating games (`arena.league.worker`, `arena.league.feed`): what is played next,
leases, openings, worker processes that survive `kill -9` of one of them, and pairs played on a
Dask cluster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.competition.settings import Isolation
from arena.entrants.specs import SpecError
from arena.league import League
from arena.league.feed import run_worker, start_workers
from arena.league.rating import versus_previous
from arena.league.standings import game_record, record_game, standings
from arena.league.worker import (
    Openings,
    _alive,
    claim,
    holder_name,
    league_settings,
    plan_next,
    play_pair,
    queue_state,
    reap_dead,
    release,
    store_pair,
)
from arena.referee.referee import Referee
from tests.helpers import JUDGE, columns, make_league

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()

SLOW = textwrap.dedent("""\
    import random
    import time

    from arena.player import CXPlayer


    class Slow(CXPlayer):
        def initPlayer(self, M, N, K, first, timeout_in_secs):
            self.rng = random.Random(1)

        def selectColumn(self, B):
            time.sleep(0.1)
            return self.rng.choice(B.getAvailableColumns())

        def playerName(self):
            return "slow"
    """).encode()


def test_a_new_version_plays_first_then_the_widest_interval(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": L0, "bob": L0}, pairs=1, most=10)
    # ann has played her pair; bob has not: bob goes first
    for _ in range(2):
        record_game(lg, "sub:1", "L0", "4x4x3", 1.0)
    me, opp, board, number = plan_next(lg) or ("", "", (0, 0, 0), -1)
    assert me == "sub:2" and number == 0 and board in lg.config.boards()
    # both have their pair: the wider Elo interval (fewer, one-sided games) plays next
    for _ in range(2):
        record_game(lg, "sub:2", "L0", "4x4x3", 0.5)
    for _ in range(8):
        record_game(lg, "sub:1", "sub:2", "4x4x3", 0.5)
    rows = {r.user: r.elo_high - r.elo_low for r in standings(lg)}
    widest = "sub:1" if rows["ann"] > rows["bob"] else "sub:2"
    plan = plan_next(lg)
    assert plan is not None and plan[0] == widest
    # an entry at max_pairs_per_submission plays no more of its own
    for _ in range(20):
        record_game(lg, "sub:1", "L0", "4x4x3", 1.0)
        record_game(lg, "sub:2", "L0", "4x4x3", 1.0)
    assert plan_next(lg) is None


def test_leases_spread_workers_and_a_dead_holders_lease_is_released(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": L0, "bob": L0, "cat": L0})
    openings = Openings(None)
    first = claim(lg, "local:elsewhere:1", openings)
    second = claim(lg, "local:elsewhere:2", openings)
    assert first is not None and second is not None
    assert (first.a, first.b) == ("sub:1", "sub:2")
    assert second.a == "sub:3"  # the entries in flight wait behind the one that is not
    # a holder of this machine whose process is gone: its lease is deleted, the pair replayed
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    third = claim(lg, holder_name("local", dead.pid), openings)
    assert third is not None
    assert reap_dead(lg) == 1
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 2
    assert reap_dead(lg) == 0  # leases of other machines are not this machine's to judge
    release(lg, first.lease_id)
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 1


def test_a_pair_is_stored_once_with_its_records_and_opening(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": L0})
    job = claim(lg, holder_name("local"), Openings(JUDGE))
    assert job is not None and len(job.games[0].opening) == 1
    assert job.games[1].opening == job.games[0].opening
    opening = tuple(int(t) for t in job.games[0].opening)  # Connect-X: columns
    with Referee(league_settings(lg.config.play, True)) as referee:
        records = play_pair(job, referee)
    assert [tuple(columns(r)[:1]) for r in records] == [opening] * 2
    assert records[0].player1 == "ann v1" and records[1].player2 == "ann v1"
    ids = store_pair(lg, job, records)
    assert ids is not None and len(ids) == 2
    stored = game_record(lg, ids[0])
    assert stored is not None and columns(stored) == columns(records[0])
    assert stored.game_id == job.games[0].game_id and stored.extra["sides"] == [job.a, job.b]
    assert store_pair(lg, job, records) is None  # its lease is gone: not stored twice
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0


def test_a_pair_whose_files_cannot_be_written_gives_its_lease_back(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": L0})
    (tmp_path / "not-a-folder").write_text("")
    with pytest.raises(SpecError, match="ann v1: its files could not be written"):
        claim(lg, holder_name("local"), Openings(None), tmp_path / "not-a-folder")
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0
    assert claim(lg, holder_name("local"), Openings(None)) is not None  # chosen again


def test_a_version_plays_its_authors_previous_one(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": L0}, pairs=1, most=1)
    lg.submit("ann", [("bot.py", L0)])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    # v2 is ann's entry (v1 no longer is): one rating pair against L0, one against v1
    assert run_worker(tmp_path / "lg", None, max_pairs=20) == 2
    lg = League.open(tmp_path / "lg")
    versus = versus_previous(lg, 2)
    assert versus is not None and versus["pairs"] == 1 and versus["previous version"] == "v1"
    assert plan_next(lg) is None
    state = queue_state(lg)
    assert state["games played"] == 4 and state["pairs in flight"] == "none"


def test_pairs_on_dask_require_the_sandbox(tmp_path: Path) -> None:
    """A pair handed to another machine must be sandboxed there (no fallback to unisolated
    play), unless the league plays without isolation."""
    lg = make_league(tmp_path, {"ann": L0})
    job = claim(lg, "dask:elsewhere:1", Openings(None), tmp_path / "here", travel=True)
    assert job is not None
    # the version's files travel with its games (the reference bot is every worker's)
    version, reference = job.games[0].files1, job.games[0].files2
    assert version is not None and reference is None and job.games[1].files2 == version
    elsewhere = version.spec(tmp_path / "elsewhere")
    assert elsewhere == job.games[0].spec1.replace(str(tmp_path / "here"),
                                                   str(tmp_path / "elsewhere"))
    assert Path(elsewhere).read_bytes() == L0
    play = lg.config.play
    assert league_settings(play, True).isolation == "none"  # this league: isolation: false
    sandboxed = play.model_copy(update={"isolation": Isolation.NAMESPACES})
    assert league_settings(sandboxed, True).isolation == "namespaces"  # as league.yaml says
    # only `serve --unsafe-no-isolation` (not strict) lets this machine play without one
    assert league_settings(sandboxed, False).isolation == "auto"


def wait_for(cond, timeout_s: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


def count(lg_dir: Path, sql: str) -> int:
    lg = League.open(lg_dir)
    try:
        return int(lg.conn.execute(sql).fetchone()[0])
    finally:
        lg.conn.close()


def test_kill_9_of_a_worker_loses_no_game_and_replays_its_pair(tmp_path: Path) -> None:
    """A worker process is SIGKILLed in the middle of a pair: its lease is released, a new
    worker is started and plays that pair again; every stored pair is whole and stored once."""
    lg = make_league(tmp_path, {"ann": SLOW, "bob": SLOW}, pairs=1, most=1)
    d = lg.dir
    lg.conn.close()
    workers = start_workers(d, 1, None, None, announce=lambda line: None)
    try:
        pid = wait_for(lambda: (workers.pids() or [None])[0] if count(
            d, "SELECT COUNT(*) FROM leases") else None)
        time.sleep(0.5)  # inside the first game of the pair
        assert count(d, "SELECT COUNT(*) FROM games") == 0
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: workers.restarts >= 1, 10)
        wait_for(lambda: workers.pids() and workers.pids()[0] != pid, 10)
        # ann and bob each play one pair (they meet, or each meets L0): all stored, once
        wait_for(lambda: plan_next_is_none(d) and not count(d, "SELECT COUNT(*) FROM leases"),
                 120)
    finally:
        workers.stop()
    lg = League.open(d)
    rows = lg.conn.execute("SELECT side_a, side_b FROM games ORDER BY id").fetchall()
    assert len(rows) % 2 == 0 and rows
    for a, b in zip(rows[::2], rows[1::2], strict=True):
        assert a == (b[1], b[0])  # the two games of a pair follow each other, colours swapped
    assert len({frozenset(r) for r in rows}) == len(rows) // 2  # no pair stored twice
    assert lg.conn.execute("SELECT COUNT(*) FROM game_records").fetchone()[0] == len(rows)
    lg.conn.close()
    assert not _alive(pid)


def plan_next_is_none(d: Path) -> bool:
    lg = League.open(d)
    try:
        return plan_next(lg) is None
    finally:
        lg.conn.close()


def test_workers_die_with_their_server(tmp_path: Path) -> None:
    """`kill -9` of the process that started the workers takes them along (no orphan keeps
    playing beside the next server's workers)."""
    lg = make_league(tmp_path, {"ann": SLOW}, pairs=1, most=1)
    lg.conn.close()
    code = ("import sys, time; from arena.league.feed import start_workers; "
            "w = start_workers(sys.argv[1], 2, None, None)\n"
            "while len(w.pids()) < 2: time.sleep(0.05)\n"
            "print(*w.pids(), flush=True); time.sleep(600)")
    server = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "lg")],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert server.stdout is not None
    pids = [int(p) for p in server.stdout.readline().split()]
    assert len(pids) == 2
    server.kill()
    server.wait()

    wait_for(lambda: not any(_alive(p) for p in pids), 15)


distributed = pytest.importorskip(
    "distributed", reason="`distributed` is not installed (pip install 'cxarena[dask]')")


def test_pairs_played_on_a_dask_cluster(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Dask executor of tournaments plays the league's pairs; the versions' files travel
    with their games (the workers write them in their own folder)."""
    from arena.competition.dask_worker import CORE_LOCK_DIR_ENV

    monkeypatch.setenv(CORE_LOCK_DIR_ENV, str(tmp_path / "core-locks"))  # the workers' cores
    lg = make_league(tmp_path, {"ann": L0, "bob": L0}, pairs=1, most=1)
    d = lg.dir
    lg.conn.close()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=40) as cluster:
        pool = start_workers(d, None, cluster.scheduler_address, JUDGE)
        try:
            wait_for(lambda: plan_next_is_none(d)
                     and not count(d, "SELECT COUNT(*) FROM leases"), 120)
        finally:
            pool.stop()
    lg = League.open(d)
    (games,) = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()
    assert games == 2  # ann and bob meet: each has its one pair
    rec = game_record(lg, 1)
    assert rec is not None and rec.player1 in ("ann v1", "bob v1", "L0")
    assert {r.user for r in standings(lg)} == {"ann", "bob"}


def test_new_settings_of_play_start_new_workers(tmp_path: Path) -> None:
    """`cxarena league config` takes effect at once: a pair claimed under other settings than
    the executor's is given back and the source finishes (its games in flight are played), so
    that the server starts an executor with the new settings."""
    from arena.league.feed import LeagueSource

    lg = make_league(tmp_path, {"ann": L0})
    source = LeagueSource(lg.dir, None, announce=lambda line: None)
    source.settings_key = lg.config.play
    first = source.take()
    assert first is not None and not source.finished
    assert source.take() is not None  # the pair's second game
    source.settings_key = lg.config.play.model_copy(update={"grace_s": 0.5})
    assert source.take() is None and source.changed and source.finished
    assert count(lg.dir, "SELECT COUNT(*) FROM leases") == 1  # only the pair in flight
    source.close()
    assert count(lg.dir, "SELECT COUNT(*) FROM leases") == 0
