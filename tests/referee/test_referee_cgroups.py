"""Bots that attack the machine through what rlimits do not count, each run for real in a
cgroup (`arena.referee.cgroups`): shared memory, memory held by children, memfds, a fork bomb,
and children that crowd the bot's own thread. Each is charged (or held at the cap), and
nothing of it is left on the machine. Skipped, saying why, where the machine has no cgroups
(`cxarena doctor` tells what to run)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import GameRecord, Reason
from arena.referee import cgroups
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import ZOO, tagged_pids, wait_until

SUPPORT = cgroups.detect()
pytestmark = pytest.mark.skipif(not SUPPORT.available,
                                reason=f"no cgroups on this machine: {SUPPORT.reason}")
ATTACKERS = ZOO / "attackers"


def _play(bot: str, tmp_path: Path, *, memory_mb: int = 256, max_tasks: int = 512,
          timeout_s: float = 10.0, options: dict[str, object] | None = None,
          **settings: Any) -> GameRecord:
    """One game of the attacker (first) against L0; checks that nothing of either bot is
    left on the machine, nor any bot cgroup of this referee."""
    limits = Limits(timeout_s=timeout_s, memory_limit_mb=memory_mb, max_tasks=max_tasks)
    with Referee(MatchSettings(limits=limits, log_dir=str(tmp_path), **settings)) as referee:
        assert referee.containment.available
        rec = referee.play(parse_spec(str(ATTACKERS / bot)), parse_spec("L0"),
                           course_game(4, 5, 3), seed=1,
                           options1=options)
        tag = referee.tag
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=5.0), tagged_pids(tag)
    mine = f"o{os.getpid()}."
    cg = cgroups.open_cgroups()
    assert cg is not None
    assert not [g for g in cg.groups() if g.startswith(mine)]
    return rec


def _memory_fault(rec: GameRecord) -> None:
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "used more than 256 MiB; peak " in rec.detail, rec.detail
    peak = float(rec.detail.rsplit("peak ", 1)[1].split()[0])
    assert 200 <= peak <= 257, rec.detail


def test_shared_anonymous_memory_counts(tmp_path: Path) -> None:
    _memory_fault(_play("shm_hog.py", tmp_path))


def test_memory_of_children_counts(tmp_path: Path) -> None:
    _memory_fault(_play("fork_hogs.py", tmp_path))


def test_memfds_count(tmp_path: Path) -> None:
    _memory_fault(_play("memfd_hog.py", tmp_path))


def test_memory_counts_unsandboxed_too(tmp_path: Path) -> None:
    _memory_fault(_play("shm_hog.py", tmp_path, isolation="none"))


def test_a_sandboxed_c_hog_is_said_to_run_out_of_memory(tmp_path: Path) -> None:
    """RLIMIT_DATA makes its malloc return NULL (SIGSEGV); the group's peak says why."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) installed")
    exe = tmp_path / "memhog"
    subprocess.run([cc, "-O0", "-o", str(exe), str(ZOO / "memhog.c")], check=True, timeout=60)
    limits = Limits(timeout_s=10.0, memory_limit_mb=300)
    with Referee(MatchSettings(limits=limits, log_dir=str(tmp_path))) as referee:
        rec = referee.play(parse_spec(f"exec:{exe}"), parse_spec("L0"),
                           course_game(4, 5, 3), seed=1)
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "SIGSEGV" in rec.detail and "memory" in rec.detail, rec.detail


def test_a_fork_bomb_stops_at_the_cap_and_is_charged(tmp_path: Path) -> None:
    # memory enough for 63 forked interpreters: the task cap, not the memory limit, stops it
    rec = _play("fork_bomb.py", tmp_path, max_tasks=64, memory_mb=2048)
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "tried to run more than 64 tasks" in rec.detail, rec.detail
    assert "fork bomb: " in rec.stderr_tail, (rec.detail, rec.stderr_tail)
    said = rec.stderr_tail.split("fork bomb: ")[1].split()
    started, refused = int(said[0]), int(said[2])
    assert started < 64 and refused > 1900, rec.stderr_tail


def _quietest_core(seconds: float) -> tuple[int, float]:
    """The core of ours that was least busy over `seconds` (/proc/stat), and its busy share."""
    cores = sorted(os.sched_getaffinity(0))

    def sample() -> dict[int, tuple[int, int]]:
        out = {}
        with open("/proc/stat") as f:
            for line in f:
                name, *fields = line.split()
                if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
                    ticks = [int(x) for x in fields]
                    out[int(name[3:])] = (sum(ticks), ticks[3] + ticks[4])  # idle + iowait
        return out
    before = sample()
    time.sleep(seconds)
    after = sample()
    busy = {c: 1.0 - (after[c][1] - before[c][1]) / max(1, after[c][0] - before[c][0])
            for c in after}
    core = min(busy, key=lambda c: busy[c])
    return core, busy[core]


@pytest.mark.serial  # it needs a quiet core: run alone (Makefile), so that CI never skips it
def test_own_busy_children_do_not_void_a_late_move(tmp_path: Path) -> None:
    """The bot's 8 children take its thread's CPU on its core: its own doing, charged as a
    timeout, not played again as an overload (something outside its cgroup would have to
    take 20% of the limit for that)."""
    cpu, busy = _quietest_core(0.3)
    if busy > 0.1:  # others' work on the core would rightly void the move
        pytest.skip(f"core {cpu} is {busy:.0%} busy with other work: the overload rule would "
                    "rightly void the move")
    rec = _play("busy_children.py", tmp_path, timeout_s=0.5, cpu=cpu,
                options={"children": 8})
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    assert "overload" not in rec.extra and "overloaded" not in rec.detail, rec


def test_records_carry_the_peak_memory(tmp_path: Path) -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path))) as referee:
        rec = referee.play(parse_spec("L0"), parse_spec("L1"), course_game(4, 5, 3), seed=1)
    assert rec.extra["cgroup"] == SUPPORT.backend
    peaks = rec.extra["peak_memory_mb"]
    assert len(peaks) == 2 and all(5 < p < 500 for p in peaks), peaks


def test_cgroups_can_be_turned_off(tmp_path: Path) -> None:
    settings = MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path), cgroups=False)
    with Referee(settings) as referee:
        assert not referee.containment.available
        rec = referee.play(parse_spec("L0"), parse_spec("L1"), course_game(4, 5, 3), seed=1)
    # the record says so (the report's "rlimits only" line), and knows no peak
    assert rec.extra["cgroup"] == "none" and "peak_memory_mb" not in rec.extra


def test_the_groups_of_a_killed_referee_are_removed_by_the_next(tmp_path: Path) -> None:
    """A referee killed by SIGKILL: its bots die by their parent-death signal, its groups are
    removed by the next referee that starts."""
    code = (
        "import os, sys, time\n"
        "from arena.limits import Limits\n"
        "from arena.referee.referee import MatchSettings, Referee, course_game\n"
        "from arena.entrants.specs import parse_spec\n"
        "r = Referee(MatchSettings(limits=Limits(timeout_s=5.0)))\n"
        "r.play(parse_spec('L0'), parse_spec('L1'), course_game(4, 4, 3), 1)\n"
        "print(r.tag, os.getpid(), flush=True)\n"
        "time.sleep(120)\n")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stdout=subprocess.PIPE,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    cg = cgroups.open_cgroups()
    assert cg is not None
    try:
        assert p.stdout is not None
        tag, pid = p.stdout.readline().split()
        theirs = [g for g in cg.groups() if g.startswith(f"o{pid}.")]
        assert len(theirs) == 2, cg.groups()  # the two idle bots
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=5.0), tagged_pids(tag)
    assert set(theirs) <= set(cg.groups())  # nobody removed them yet
    cg._prepared = False  # this test process prepared already: as a new referee process would
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path))):
        pass
    assert not set(theirs) & set(cg.groups())
