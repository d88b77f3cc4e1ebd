"""Tournament building blocks without bot processes: the schedule, and the LocalExecutor
driven by fake game runners (ordering, every game once, harness errors, a dying worker,
pinning, stopping early)."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path

import pytest

from arena.competition.executor import LocalExecutor, PlayFn, usable_core_ids
from arena.competition.jobs import GameJob
from arena.errors import UsageError
from arena.records import GameRecord
from arena.tournament.schedule import game_id, game_seed, make_schedule
from tests.helpers import JUDGE, fake_record
from tests.helpers import SCHEDULE_BOARDS as BOARDS
from tests.helpers import tournament_config as config


# ------------------------------------------------------------------------------- schedule
def test_schedule_covers_every_pair_board_colour_and_round() -> None:
    names = ["a", "b", "c", "d"]
    games = make_schedule(config(names, rounds=2), judge=JUDGE)
    assert len(games) == 6 * len(BOARDS) * 2 * 2
    assert len({g.game_id for g in games}) == len(games)
    seen = Counter((g.p1, g.p2, g.board, g.round) for g in games)
    for x, y in combinations(names, 2):
        for b in BOARDS:
            for r in (1, 2):
                assert seen[(x, y, b, r)] == 1 and seen[(y, x, b, r)] == 1
    cells = [g.cells for g in games]
    assert cells == sorted(cells, reverse=True)  # long games first
    assert games[0].board == (20, 20, 10)


def test_seeds_are_stable_and_distinct() -> None:
    # pinned values: changing the derivation would make reruns replay different games
    assert game_seed(7, game_id(4, 4, 4, 1, "L0", "L1")) == 704440838
    assert game_seed(0, "7x6x4-r2-a-b") == 324793373
    a = make_schedule(config(["a", "b", "c"]), judge=JUDGE)
    b = make_schedule(config(["c", "a", "b"]), judge=JUDGE)  # player order does not change a game's seed
    assert {g.game_id: g.seed for g in a} == {g.game_id: g.seed for g in b}
    assert len({g.seed for g in a}) == len(a)
    c = make_schedule(config(["a", "b", "c"], seed=8), judge=JUDGE)
    assert {g.game_id for g in a} == {g.game_id for g in c}
    assert all(g.seed != h.seed for g, h in zip(sorted(a, key=lambda g: g.game_id),
                                                sorted(c, key=lambda g: g.game_id), strict=True))
    assert all(0 <= g.seed < 2**31 for g in a)


def test_schedule_refuses_ambiguous_game_ids() -> None:
    with pytest.raises(UsageError, match="same game id"):
        make_schedule(config(["a-b", "c", "a", "b-c"]), judge=JUDGE)


def test_options_travel_with_the_game() -> None:
    cfg = config(["a", "b"]).with_file(players=[{"spec": "L0", "name": "a",
                                                 "options": {"depth": 3}},
                                                {"spec": "L1", "name": "b"}])
    g = next(g for g in make_schedule(cfg, judge=JUDGE) if g.p1 == "a")
    assert (g.spec1, g.spec2, dict(g.options1), dict(g.options2)) == ("L0", "L1", {"depth": 3}, {})


# ------------------------------------------------------------------------------- executor
@dataclass(frozen=True)
class FakeSettings:
    marks: str  # a directory for the runner's enter/exit marks
    delay_s: float = 0.0
    cpu: int | None = None
    log_dir: str | None = None
    barrier: int = 0  # > 0: no game starts before this many workers have started

    def for_worker(self, index: int, cpu: int | None) -> FakeSettings:
        """As MatchSettings.for_worker: pinned, logs in log_dir/worker-<index>."""
        log_dir = None if self.log_dir is None else f"{self.log_dir}/worker-{index}"
        return replace(self, cpu=self.cpu if cpu is None else cpu, log_dir=log_dir)


@contextlib.contextmanager
def fake_runner(settings: FakeSettings) -> Iterator[PlayFn]:
    marks = Path(settings.marks)
    (marks / f"enter-{os.getpid()}").touch()

    def play(g: GameJob) -> GameRecord:
        deadline_s = time.monotonic() + 60
        while (len(list(marks.glob("enter-*"))) < settings.barrier
               and time.monotonic() < deadline_s):
            time.sleep(0.01)
        if g.p1 == "boom" and g.round == 1:
            raise RuntimeError("harness bug")
        if g.p1 == "die" and g.round == 1:
            os._exit(9)
        time.sleep(settings.delay_s)
        return fake_record(g, pid=os.getpid(), cpu=settings.cpu,
                           affinity=sorted(os.sched_getaffinity(0)), log_dir=settings.log_dir)

    try:
        yield play
    finally:
        (marks / f"exit-{os.getpid()}").touch()


def test_every_game_once_in_schedule_order_with_one_worker(tmp_path: Path) -> None:
    games = make_schedule(config(["a", "b", "c"]), judge=JUDGE)
    ex = LocalExecutor(FakeSettings(str(tmp_path)), workers=1, runner=fake_runner)
    out = list(ex.run(games))
    assert [o.game.game_id for o in out] == [g.game_id for g in games]
    assert all(o.record is not None and o.record.seed == o.game.seed for o in out)
    assert multiprocessing.active_children() == []
    assert len(list(tmp_path.glob("exit-*"))) == 1


def test_parallel_workers_are_pinned_to_their_own_cores(tmp_path: Path) -> None:
    games = make_schedule(config(["a", "b", "c"]), judge=JUDGE)
    ex = LocalExecutor(FakeSettings(str(tmp_path), delay_s=0.01, log_dir=str(tmp_path / "logs"),
                                    barrier=2), workers=2, runner=fake_runner)
    out = list(ex.run(games))
    assert sorted(o.game.game_id for o in out) == sorted(g.game_id for g in games)
    cores = usable_core_ids()
    by_worker: dict[int, set[tuple[int, ...]]] = {}
    for o in out:
        assert o.record is not None
        extra = o.record.extra
        assert extra["affinity"] == [extra["cpu"]]  # worker pinned, and bots told that core
        assert extra["cpu"] == cores[o.worker % len(cores)]
        assert extra["log_dir"] == str(tmp_path / "logs" / f"worker-{o.worker}")
        by_worker.setdefault(o.worker, set()).add(tuple(extra["affinity"]))
    assert set(by_worker) == {0, 1}  # both workers played (the barrier lets both start)
    assert multiprocessing.active_children() == []


def test_harness_error_and_dead_worker_lose_only_their_game(tmp_path: Path) -> None:
    games = make_schedule(config(["a", "boom", "die"], rounds=2, boards=((4, 4, 4), (5, 5, 4))), judge=JUDGE)
    ex = LocalExecutor(FakeSettings(str(tmp_path)), workers=2, runner=fake_runner)
    out = list(ex.run(games))
    assert sorted(o.game.game_id for o in out) == sorted(g.game_id for g in games)
    failed = {o.game.game_id: o.error for o in out if o.record is None}
    expected = {g.game_id for g in games if g.p1 in ("boom", "die") and g.round == 1}
    assert set(failed) == expected
    assert all("harness bug" in failed[g] for g in failed if "-boom-" in g)
    assert all("worker process died (exit code 9)" in failed[g] for g in failed if "-die-" in g)
    assert multiprocessing.active_children() == []


def test_closing_early_stops_workers_and_runs_their_cleanup(tmp_path: Path) -> None:
    games = make_schedule(config(["a", "b", "c"]), judge=JUDGE)
    # both workers start before either plays (a loaded machine may start the second late:
    # the first then played alone and the second never entered)
    ex = LocalExecutor(FakeSettings(str(tmp_path), delay_s=0.5, barrier=2), workers=2,
                       runner=fake_runner)
    it = ex.run(games)
    first = next(it)  # the other worker is mid-game now
    assert first.record is not None
    it.close()
    assert multiprocessing.active_children() == []
    enters = {p.name.split("-")[1] for p in tmp_path.glob("enter-*")}
    exits = {p.name.split("-")[1] for p in tmp_path.glob("exit-*")}
    assert len(enters) == 2 and exits == enters


def test_sigterm_in_worker_exits_the_runner_context(tmp_path: Path) -> None:
    # Ctrl-C raises KeyboardInterrupt here whatever an earlier test in this process left as
    # SIGINT's handler (a Dask cluster's loop, an ignored SIGINT): the run hung otherwise
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _interrupt_a_busy_run(tmp_path)
    finally:
        signal.signal(signal.SIGINT, old)


def _interrupt_a_busy_run(tmp_path: Path) -> None:
    main = threading.main_thread().ident
    assert main is not None
    games = make_schedule(config(["a", "b", "c"]), judge=JUDGE)
    ex = LocalExecutor(FakeSettings(str(tmp_path), delay_s=30.0), workers=2, runner=fake_runner)
    it = ex.run(games)

    def interrupt_when_busy() -> None:
        deadline = time.monotonic() + 20
        while len(list(tmp_path.glob("enter-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        # Ctrl-C: the parent gets KeyboardInterrupt; sent to its main thread, so that its wait
        # for the workers is interrupted at once (a signal the kernel hands to this thread
        # waits until the main thread next runs Python code)
        signal.pthread_kill(main, signal.SIGINT)

    t = threading.Thread(target=interrupt_when_busy)
    t.start()
    with pytest.raises(KeyboardInterrupt):
        for _ in it:
            pass
    t.join()
    enters = {p.name.split("-")[1] for p in tmp_path.glob("enter-*")}
    exits = {p.name.split("-")[1] for p in tmp_path.glob("exit-*")}
    assert len(enters) == 2 and exits == enters  # each worker's runner cleaned up
    assert multiprocessing.active_children() == []
