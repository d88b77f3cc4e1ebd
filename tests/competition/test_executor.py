"""One suite for the one way to play a batch of games (`arena.competition.executor`), run for
both of its callers: a fixed list of `GameJob`s (a tournament's schedule) and the league's
source of rating games (`arena.league.feed.LeagueSource`), with a fake game runner that starts
no bot: every job yields one outcome, a killed worker is replaced and its game tried once
more, and a stop leaves no process behind."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.competition.executor import LocalExecutor, PlayFn
from arena.competition.jobs import GameJob, GameOutcome, JobSource, SequenceSource
from arena.league import League
from arena.league.feed import LeagueSource
from arena.records import GameRecord
from arena.tournament.schedule import make_schedule
from tests.helpers import JUDGE, fake_record, make_league, tournament_config
from tests.league.helpers import all_played

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()


@dataclass(frozen=True)
class FakeSettings:
    """What the fake runner needs: a folder for its marks, and how it plays."""

    marks: str
    delay_s: float = 0.0
    #: "": play; "once": SIGKILL its worker at the first try of the first game it sees;
    #: "always": SIGKILL its worker at every game
    kill: str = ""
    #: every record says the machine kept a bot waiting (an excused late move)
    strain: bool = False
    #: > 0: no game starts before this many workers have started (a worker slow to start on
    #: a busy machine left the first to play every game alone)
    barrier: int = 0

    def for_worker(self, index: int, cpu: int | None) -> FakeSettings:
        return self


@contextlib.contextmanager
def fake_runner(settings: FakeSettings) -> Iterator[PlayFn]:
    marks = Path(settings.marks)
    (marks / f"enter-{os.getpid()}").touch()

    def play(g: GameJob) -> GameRecord:
        deadline_s = time.monotonic() + 60
        while (len(list(marks.glob("enter-*"))) < settings.barrier
               and time.monotonic() < deadline_s):
            time.sleep(0.01)
        (marks / f"played-{g.game_id}-{time.monotonic_ns()}").touch()
        if settings.kill == "always" or (settings.kill == "once" and _first(marks)):
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(settings.delay_s)
        (marks / f"ended-{g.game_id}-{time.monotonic_ns()}").touch()
        if settings.strain:
            return fake_record(g, pid=os.getpid(), excused=[{"machine_ms": 40.0}])
        return fake_record(g, pid=os.getpid())

    yield play


def _first(marks: Path) -> bool:
    """True for the first caller only (an exclusive create)."""
    try:
        (marks / "killed").touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


class Feed:
    """A source of one kind, and what "all played" means for it."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        if kind == "list":
            config = tournament_config(["a", "b", "c"], boards=((4, 4, 3), (4, 5, 3)))
            self.jobs = make_schedule(config, judge=JUDGE)
            self.source: JobSource = SequenceSource(self.jobs)
        else:
            lg = make_league(tmp_path, {"ann": L0, "bob": L0}, pairs=1, most=1)
            self.dir = lg.dir
            lg.conn.close()
            self.source = LeagueSource(self.dir, JUDGE, idle_s=0.05,
                                       announce=lambda line: None)

    def all_played(self) -> bool:
        """Whether to stop the run now: a list's run ends by itself when all is played."""
        if self.kind == "list":
            return False
        lg = League.open(self.dir)
        try:
            return all_played(lg)
        finally:
            lg.conn.close()

    def _count(self, table: str) -> int:
        lg = League.open(self.dir)
        try:
            return int(lg.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        finally:
            lg.conn.close()


    def close(self) -> None:
        if isinstance(self.source, LeagueSource):
            self.source.close()


@pytest.fixture(params=["list", "league"])
def feed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Feed]:
    f = Feed(request.param, tmp_path)
    try:
        yield f
    finally:
        f.close()


def play(executor: LocalExecutor, feed: Feed, until: Any = None,
         timeout_s: float = 120.0) -> list[GameOutcome]:
    """Run `executor` on the feed's source until all is played (or `until(outcomes)`)."""
    stop = threading.Event()
    out: list[GameOutcome] = []
    deadline_s = time.monotonic() + timeout_s
    for outcome in executor.run(feed.source, stop):
        out.append(outcome)
        if (until(out) if until is not None else feed.all_played()):
            stop.set()
        assert time.monotonic() < deadline_s, "timed out"
    return out


def test_every_job_yields_one_outcome(feed: Feed, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    ex = LocalExecutor(FakeSettings(str(marks)), workers=2, runner=fake_runner)
    out = play(ex, feed)
    assert all(o.record is not None for o in out)
    ids = [o.game.game_id for o in out]
    assert len(ids) == len(set(ids))  # one outcome each
    if feed.kind == "list":
        assert sorted(ids) == sorted(g.game_id for g in feed.jobs)
    else:  # both games of every pair, stored once, and nothing left in flight
        assert feed._count("games") == len(out) == 2
        assert feed.all_played()
    assert multiprocessing.active_children() == []


def test_a_killed_worker_is_replaced_and_its_game_tried_once_more(feed: Feed,
                                                                  tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    deaths: list[tuple[int, str]] = []
    ex = LocalExecutor(FakeSettings(str(marks), kill="once"), workers=1,
                       runner=fake_runner, on_death=lambda i, e: deaths.append((i, e)))
    out = play(ex, feed)
    assert all(o.record is not None for o in out)  # the killed game was played again
    assert len(deaths) == 1 and "worker process died (exit code -9, SIGKILL)" in deaths[0][1]
    tries = sorted(p.name.rsplit("-", 1)[0] for p in marks.glob("played-*"))
    killed = tries[0]  # the first game: played twice, every other once
    assert len(tries) == len(out) + 1
    assert len({t for t in tries if tries.count(t) == 2}) == 1
    assert killed in tries
    if feed.kind == "league":
        assert feed._count("games") == len(out) and feed.all_played()
    assert multiprocessing.active_children() == []


def test_a_game_that_kills_every_worker_comes_back_without_a_record(
        feed: Feed, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    deaths: list[int] = []
    ex = LocalExecutor(FakeSettings(str(marks), kill="always"), workers=1,
                       runner=fake_runner, on_death=lambda i, e: deaths.append(i))
    out = play(ex, feed, until=lambda out: True)
    assert len(out) == 1 and out[0].record is None
    assert "worker process died" in out[0].error
    assert deaths == [0, 0]  # tried twice, then given up
    if feed.kind == "league":  # the pair is not stored; its lease goes at the source's close
        assert feed._count("games") == 0
        feed.close()
        assert feed._count("leases") == 0
    assert multiprocessing.active_children() == []


def test_a_stop_leaves_no_process(feed: Feed, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    ex = LocalExecutor(FakeSettings(str(marks), delay_s=30.0), workers=2, runner=fake_runner)
    stop = threading.Event()
    out: list[GameOutcome] = []
    thread = threading.Thread(target=lambda: out.extend(ex.run(feed.source, stop)))
    thread.start()
    deadline_s = time.monotonic() + 60
    while len(list(marks.glob("played-*"))) < 2 and time.monotonic() < deadline_s:
        time.sleep(0.05)
    pids = ex.pids()
    assert len(pids) == 2  # both workers in the middle of a game
    stop.set()
    thread.join(30)
    assert not thread.is_alive() and out == []  # the games in flight have no outcome
    assert multiprocessing.active_children() == []
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    if feed.kind == "league":  # their pairs are given back at the source's close
        feed.close()
        assert feed._count("leases") == 0 and feed._count("games") == 0


def _intervals(marks: Path) -> list[tuple[int, int]]:
    """(start ns, end ns) of every game played, by their marks, in order of start."""
    def times(kind: str) -> dict[str, int]:
        return {p.name[len(kind) + 1:].rsplit("-", 1)[0]: int(p.name.rsplit("-", 1)[1])
                for p in marks.glob(f"{kind}-*")}
    starts, ends = times("played"), times("ended")
    return sorted((starts[g], ends[g]) for g in starts)


@pytest.mark.parametrize("strain", [False, True])
def test_a_machine_that_keeps_bots_waiting_gets_one_game_at_a_time(tmp_path: Path,
                                                                    strain: bool) -> None:
    """Issue 39: after a game whose bot the machine kept waiting, the executor starts one game
    fewer at a time (here: one); without such waits its two workers play side by side."""
    feed = Feed("list", tmp_path)
    marks = tmp_path / "marks"
    marks.mkdir()
    ex = LocalExecutor(FakeSettings(str(marks), delay_s=0.2, strain=strain, barrier=2),
                       workers=2, runner=fake_runner)
    out = play(ex, feed)
    assert len(out) == len(feed.jobs) >= 6
    games = _intervals(marks)
    first_end = min(end for _, end in games)
    later = [(s, e) for s, e in games if s > first_end]
    overlaps = sum(b[0] < a[1] for a, b in zip(later, later[1:]))
    if strain:
        assert overlaps == 0, games
        assert ex.pressure is not None and ex.pressure.at_once == 1
    else:
        assert overlaps > 0, games
        assert ex.pressure is not None and ex.pressure.at_once == 2


def _die_holding_the_write_lock(q: Any) -> None:
    q._wlock.acquire()  # as a worker killed in the middle of a log write leaves it
    os._exit(9)


def test_a_worker_dead_mid_write_does_not_hang_the_end_of_the_run() -> None:
    from arena.competition.executor import _context, _relay_logs

    ended = threading.Event()

    def run() -> None:
        with _relay_logs() as q:
            p = _context().Process(target=_die_holding_the_write_lock, args=(q,))
            p.start()
            p.join()
            assert p.exitcode == 9
        ended.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(300)  # a bound for a failure only: the end waits RELAY_STOP_S (10 s)
    assert ended.is_set(), "the log relay's end waited for a lock a dead worker holds"
