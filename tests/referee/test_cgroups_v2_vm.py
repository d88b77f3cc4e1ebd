"""`arena.referee.cgroups` on a real cgroup v2 tree, where this process may make groups: root,
or a normal user in a delegated subtree (the VM stage, .ci/vm, runs both). The same checks as
the v1 ones of test_cgroups.py: shared memory counted and the OOM killer in the group, the task
cap, the v2 freezer (a frozen task dies of SIGKILL), `cgroup.kill`, the referee's leaf, the
cleanup of a dead referee's group. Skipped, saying why, elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee import cgroups
from arena.referee.cgroups import FOLDER, REFEREE_LEAF, BotGroup
from arena.referee.containment import owner_mark
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import ZOO, live, tagged_pids, wait_until

SUPPORT = cgroups.detect()
pytestmark = pytest.mark.skipif(
    SUPPORT.backend != "v2",
    reason=f"no writable cgroup v2 subtree here ({SUPPORT.summary()}; "
           f"{SUPPORT.reason or 'another backend is used'}): run in the VM stage, .ci/vm")


@pytest.fixture
def group() -> Iterator[BotGroup]:
    cg = cgroups.open_cgroups()
    assert cg is not None
    made = cg.create(f"test-{time.time_ns()}", 256 * 2**20, 32)
    yield made
    made.kill_all()
    assert made.remove()


def _start(group: BotGroup, code: str) -> subprocess.Popen[bytes]:
    """A Python process moved into the group before it runs `code` (it waits for a line)."""
    proc = subprocess.Popen([sys.executable, "-c", f"import sys; sys.stdin.readline()\n{code}"],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    group.add(proc.pid)
    assert proc.stdin is not None
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    return proc


def test_v2_the_referee_lives_in_a_leaf_beside_the_bots(group: BotGroup) -> None:
    own = SUPPORT.roots[0][1]
    assert Path(group.folders["memory"]).parent == Path(own, FOLDER)
    assert {"memory", "pids"} <= set(Path(own, FOLDER, "cgroup.subtree_control").read_text()
                                     .split())
    assert Path(own, FOLDER, group.name, "memory.max").read_text().strip() == str(256 * 2**20)
    assert Path(own, FOLDER, group.name, "pids.max").read_text().strip() == "32"
    path = Path("/proc/self/cgroup").read_text().split("0::", 1)[1].strip()
    if {"memory", "pids"} <= set(Path(own, "cgroup.subtree_control").read_text().split()) \
            and Path(own, "cgroup.procs").read_text().split():
        pytest.fail(f"processes left in {own}, an inner group with controllers enabled")
    if os.path.basename(path) == REFEREE_LEAF:
        # a process started from the leaf finds the same subtree (not the leaf itself)
        code = "from arena.referee import cgroups; print(cgroups.detect().roots[0][1])"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout.strip()
        assert out == own


def test_v2_memory_limit_counts_shared_memory(group: BotGroup) -> None:
    proc = _start(group, "import mmap\nm = mmap.mmap(-1, 512 << 20, mmap.MAP_SHARED)\n"
                         "for i in range(0, 512 << 20, 4096): m[i] = 1")
    assert proc.wait(120) == -9  # the OOM killer, in the group
    assert group.memory_limit_hit()
    assert 200 * 2**20 <= group.memory_peak_bytes() <= 256 * 2**20
    assert (group.cpu_usage_ns() or 0) > 0


def test_v2_task_cap_holds(group: BotGroup) -> None:
    proc = _start(group, "import os, time\nn = 0\nfor _ in range(100):\n"
                         "    try:\n        pid = os.fork()\n    except OSError:\n"
                         "        continue\n    if pid == 0:\n        time.sleep(60)\n"
                         "        os._exit(0)\n    n += 1\n"
                         "print(n, file=sys.stderr)")
    assert proc.stderr is not None
    said = proc.stderr.readline()  # (the children hold the pipe open: no communicate)
    assert proc.wait(120) == 0
    assert int(said) == 31, said  # 32 tasks: the parent and 31 children
    assert group.pids_limit_hits() == 69
    assert len(group.procs()) == 31
    assert group.kill_all(10.0)  # cgroup.kill
    assert group.procs() == []


def test_v2_freezer_and_sigkill_of_a_frozen_task(group: BotGroup) -> None:
    proc = _start(group, "while True: pass")
    assert group.freeze(10.0)
    time.sleep(0.2)
    before = group.cpu_usage_ns() or 0
    time.sleep(0.5)
    assert (group.cpu_usage_ns() or 0) - before < 20_000_000  # frozen: no CPU
    proc.kill()  # what makes the v2 freezer safe between turns
    assert proc.wait(30) == -9
    group.thaw()


def test_v2_cleanup_kills_and_removes_a_dead_referees_group() -> None:
    cg = cgroups.open_cgroups()
    assert cg is not None
    cg.prepare()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    mark = owner_mark(dead.pid)
    dead.wait()
    name = f"o{mark.replace(':', '.')}.bot-left"
    folder = os.path.join(SUPPORT.roots[0][1], FOLDER, name)
    os.mkdir(folder)
    left = BotGroup("v2", {c: folder for c in ("memory", "pids", "cpuacct", "freezer")}, name)
    sleeper = subprocess.Popen(["sleep", "60"])
    left.add(sleeper.pid)
    assert name in cg.cleanup()
    assert sleeper.wait(30) == -9
    assert wait_until(lambda: not os.path.exists(folder), timeout_s=10.0)
    assert not live(sleeper.pid)


def test_v2_a_fork_bomb_stops_at_the_cap_and_is_charged(tmp_path: Path) -> None:
    """The fork bomb of test_referee_cgroups.py with a move limit of 120 s, so that it gets to
    its 2,000th fork and says so even under QEMU's software emulation (where 2,000 refused
    forks take longer than that test's 10 s): at most 64 tasks, charged, nothing left."""
    limits = Limits(timeout_s=120.0, memory_limit_mb=256, max_tasks=64)
    with Referee(MatchSettings(limits=limits, log_dir=str(tmp_path))) as referee:
        rec = referee.play(parse_spec(str(ZOO / "attackers" / "fork_bomb.py")),
                           parse_spec("L0"), course_game(4, 5, 3), seed=1)
        tag = referee.tag
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "tried to run more than 64 tasks" in rec.detail, rec.detail
    said = rec.stderr_tail.split("fork bomb: ")[1].split()
    started, refused = int(said[0]), int(said[2])
    assert started < 64 and refused > 1900, rec.stderr_tail
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=30.0), tagged_pids(tag)
    cg = cgroups.open_cgroups()
    assert cg is not None
    assert not [g for g in cg.groups() if g.startswith(f"o{os.getpid()}.")]
