"""What lies between a hung bot's deadline and `play` returning (docs/benchmarks.md, the hung
bot's overshoot): the bot is SIGKILLed at once, but neither its dying process nor the rest of
the teardown runs before the verdict is out.

- The dying process must not preempt the referee on their shared core to run its exit (a few
  milliseconds for an interpreter): `BotProcess.stop` makes its threads SCHED_BATCH (no wake-up
  preemption, the same share of the CPU) before the SIGKILL.
- The teardown (killing what is left, reaping, removing the cgroup) runs on the Referee's own
  settle thread, started with the Referee: a fault's `run` starts no thread (starting one
  waits until it runs, and on one core it then runs first).

No timed assertions: the bench (`python -m bench cgroups`) measures the overshoot."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee import cgroups
from arena.referee.process import BotProcess
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import tagged_pids, wait_until, zoo

SUPPORT = cgroups.detect()
CGROUP_MODES = [False, pytest.param(True, marks=pytest.mark.skipif(
    not SUPPORT.available, reason=f"no cgroups on this machine: {SUPPORT.reason}"))]

THREADED_SLEEPER = ("import threading, time\n"
                    "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
                    "print('ready', flush=True)\n"
                    "time.sleep(60)\n")


def test_stop_makes_the_dying_bot_a_batch_task_before_the_kill(tmp_path: Path) -> None:
    proc = BotProcess([sys.executable, "-c", THREADED_SLEEPER], log_path=str(tmp_path / "log"),
                      env=dict(os.environ))
    try:
        assert proc.read_line(10**9) == b"ready"
        assert os.sched_getscheduler(proc.pid) == os.SCHED_OTHER
        proc.stop()
        assert proc.wait_exit(5.0)
        # killed, not yet reaped: the zombie keeps the policy it died with
        assert os.sched_getscheduler(proc.pid) == os.SCHED_BATCH
    finally:
        proc.close()


def _my_groups() -> list[str]:
    """The bot cgroups of this process's referees."""
    cg = cgroups.open_cgroups()
    return [] if cg is None else [g for g in cg.groups() if g.startswith(f"o{os.getpid()}.")]


@pytest.fixture
def started_threads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the threads started while the test runs."""
    names: list[str] = []
    start = threading.Thread.start

    def counting(self: threading.Thread) -> None:
        names.append(self.name)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", counting)
    yield names


@pytest.mark.parametrize("use_cgroups", CGROUP_MODES)
def test_a_fault_verdict_starts_no_thread_and_the_teardown_still_follows(
        tmp_path: Path, started_threads: list[str], use_cgroups: bool) -> None:
    settings = MatchSettings(limits=Limits(timeout_s=0.3, grace_s=0.0), isolation="none",
                             log_dir=str(tmp_path), cgroups=use_cgroups)
    with Referee(settings) as referee:
        sleepy, l0 = parse_spec(zoo("sleepy.py")), parse_spec("L0")
        for seed in range(2):
            del started_threads[:]
            rec = referee.play(sleepy, l0, course_game(4, 4, 3), seed=seed)
            assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
            # the processes started for the game each have their log's reader thread; nothing
            # else starts a thread on the way to the verdict
            assert "cxarena-settle" not in started_threads, started_threads
            # the teardown follows without another game: the hung bot is killed and reaped,
            # and its cgroup removed (L0's process and group are kept for the next game)
            assert wait_until(referee.teardown_done, timeout_s=10.0)
            assert wait_until(lambda: len(tagged_pids(referee.tag)) == 1, timeout_s=10.0)
            assert wait_until(lambda: len(_my_groups()) == (1 if use_cgroups else 0),
                              timeout_s=10.0), _my_groups()
        tag = referee.tag
    assert wait_until(lambda: not tagged_pids(tag))
