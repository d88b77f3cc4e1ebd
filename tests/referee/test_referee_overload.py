"""The overload rule: a move made late because the machine kept the bot off the CPU (run-queue
wait, /proc/PID/task/TID/schedstat) is not charged; the game is played again, stored once, with
the incident in the record. A bot that sleeps or computes past the limit is still charged."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import FAULTS, Reason
from arena.referee.cgroups import detect, open_cgroups
from arena.referee.containment import machine_wait_ns
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import live, wait_until, zoo

pytestmark = pytest.mark.serial  # its point is timing: run alone (Makefile)

HOGS = 8  # the bot gets at most 1/9 of its core: 0.1 s of CPU takes 0.9 s or more


def _hogs(cpu: int) -> list[subprocess.Popen[bytes]]:
    # each in a session of its own: with autogroup scheduling a session shares one slice
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(HOGS)]
    for h in hogs:
        os.sched_setaffinity(h.pid, {cpu})
    return hogs


def test_a_bot_kept_off_its_core_by_hogs_is_not_charged(tmp_path: Path) -> None:
    """Without a cgroup (rlimits only) nothing gives the bot its core: 8 hogs keep it waiting,
    and the overload rule plays the game again instead of charging it."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat"):
        pytest.skip("no /proc/PID/task/TID/schedstat (kernel without CONFIG_SCHED_INFO)")
    cpu = max(os.sched_getaffinity(0))
    pidfile = tmp_path / "pids"
    settings = MatchSettings(limits=Limits(timeout_s=0.5), cpu=cpu, log_dir=str(tmp_path),
                             overload_replays=4, isolation="none", cgroups=False)
    hogs = _hogs(cpu)

    def stop_hogs_when_the_first_attempt_ends() -> None:
        wait_until(pidfile.exists, timeout_s=60)
        first = int(pidfile.read_text().split()[0])
        wait_until(lambda: not live(first), timeout_s=60)  # killed at its late move
        for h in hogs:
            h.kill()

    watcher = threading.Thread(target=stop_hogs_when_the_first_attempt_ends)
    watcher.start()
    try:
        with Referee(settings) as referee:
            rec = referee.play(parse_spec(zoo("cpu_work.py")), parse_spec("L0"),
                               course_game(4, 4, 3),
                               seed=1, options1={"pidfile": str(pidfile), "work_s": 0.1})
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        watcher.join()
    incidents = rec.extra.get("overload")
    assert incidents, f"the hogged attempt was not recognised as overload: {rec.detail}"
    if rec.reason in FAULTS:  # other work kept this (shared) machine overloaded all along
        assert rec.reason is Reason.TIMEOUT and "charged after 4 overloaded replays" in rec.detail
        assert len(incidents) == 4
    else:  # played again, in peace: a normal end
        assert rec.offender is None
    assert "selectColumn (move" in incidents[0]
    assert "waiting for a CPU" in incidents[0] and "overloaded" in incidents[0]
    assert len(pidfile.read_text().split()) == len(incidents) + 1  # a new process per attempt


def test_with_the_cpu_weight_hogs_cannot_make_the_bot_late(tmp_path: Path) -> None:
    """Issue 39, point 1: where the bots' cgroup folder has the highest CPU weight, the same 8
    hogs on the bot's core do not keep it waiting: 0.1 s of work answers in time, with no
    replay (without the weight it took 0.9 s or more: the test above)."""
    cg = open_cgroups()
    if cg is None:
        pytest.skip(f"no cgroups here: {detect().reason}")
    cg.prepare()
    if not cg.cpu_priority:
        pytest.skip("no cpu controller for the bots' folder (no CPU weight to give)")
    cpu = max(os.sched_getaffinity(0))
    settings = MatchSettings(limits=Limits(timeout_s=0.5), cpu=cpu, log_dir=str(tmp_path),
                             overload_replays=4, isolation="none")
    hogs = _hogs(cpu)
    try:
        with Referee(settings) as referee:
            rec = referee.play(parse_spec(zoo("cpu_work.py")), parse_spec("L0"),
                               course_game(4, 4, 3), seed=1, options1={"work_s": 0.1})
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert rec.reason not in FAULTS, rec.detail
    assert not rec.extra.get("overload"), rec.extra.get("overload")
    played = rec.times_ms[0::2]
    assert played and max(played) < 500, played


@pytest.mark.parametrize("bot", ["sleepy.py", "busy.py"])
def test_sleeping_and_busy_bots_are_still_charged(bot: str) -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=0.3))) as referee:
        rec = referee.play(parse_spec(zoo(bot)), parse_spec("L0"), course_game(4, 4, 3), seed=1)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    if bot == "sleepy.py":  # sleeping is no run-queue wait at all: charged at once
        assert "overload" not in rec.extra


def test_machine_wait_is_wait_not_covered_by_the_bots_own_threads() -> None:
    before = {(1, 1): (0, 0), (1, 2): (0, 0)}
    # one thread waited 300 ms while the other used 280 ms: the bot crowded its own core
    assert machine_wait_ns(before, {(1, 1): (100, 300), (1, 2): (280, 0)}) == 20
    # a single thread that waited 300 ms: all of it is the machine's
    assert machine_wait_ns({(1, 1): (0, 0)}, {(1, 1): (50, 300)}) == 300
    # a thread born during the move counts from zero
    assert machine_wait_ns({}, {(1, 1): (10, 40)}) == 40
