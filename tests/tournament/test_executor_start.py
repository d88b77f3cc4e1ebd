"""Workers are never forked from the parent process, which by then runs threads: a lock that a
parent thread holds while the workers start is free in every worker (forkserver). A run whose
games were replayed because the machine was overloaded says so and suggests fewer workers."""

from __future__ import annotations

import contextlib
import io
import threading
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.competition.executor import Executor, GameOutcome, LocalExecutor, PlayFn
from arena.competition.jobs import GameJob
from arena.tournament.run import run_tournament
from arena.tournament.schedule import make_schedule
from tests.helpers import JUDGE, fake_record
from tests.helpers import tournament_config as config

HELD = threading.Lock()


@dataclass(frozen=True)
class LockSettings:
    cpu: int | None = None

    def for_worker(self, index: int, cpu: int | None) -> LockSettings:
        return LockSettings(cpu=cpu)


@contextlib.contextmanager
def lock_runner(settings: LockSettings) -> Iterator[PlayFn]:
    def play(g: GameJob) -> object:
        free = HELD.acquire(timeout=2.0)  # a forked copy of a held lock never comes free
        if free:
            HELD.release()
        return fake_record(g, lock_free=free)

    yield play  # type: ignore[misc]


def test_workers_do_not_inherit_the_parents_threads(tmp_path: Path) -> None:
    games = make_schedule(config(["a", "b"]), judge=JUDGE)[:2]
    release = threading.Event()
    holder = threading.Thread(target=lambda: (HELD.acquire(), release.wait(60), HELD.release()))
    holder.start()
    try:
        outcomes = list(LocalExecutor(LockSettings(), workers=2, runner=lock_runner).run(games))
    finally:
        release.set()
        holder.join()
    assert len(outcomes) == 2
    assert all(o.record is not None and o.record.extra["lock_free"] for o in outcomes), outcomes


class OverloadedExecutor(Executor):
    """Plays nothing: reports each game with one overload incident in its record."""

    def run(self, games: Sequence[GameJob]) -> Generator[GameOutcome, None, None]:
        for g in games:
            yield GameOutcome(g, fake_record(g, overload=["selectColumn (move 3): ... "
                                                          "(overloaded)"]))


def test_the_run_summary_reports_overload_and_suggests_fewer_workers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config(["a", "b"])
    out = io.StringIO()
    outcome = run_tournament(cfg, tmp_path / "results", quiet=True,
                             executor=OverloadedExecutor(), out=out, judge=JUDGE)
    n = outcome.scheduled
    err = capsys.readouterr().err
    assert f"the machine was overloaded: {n} late moves in {n} games" in err
    assert "fewer workers" in err
    assert "event=overloaded" in (tmp_path / "results" / "arena.log").read_text()
