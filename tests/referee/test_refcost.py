"""The referee's own cost (issue 39) without a weaker guarantee: the cgroup counters read per
move through descriptors kept open follow the group, and a freeze that skips listing the group
(its task count says every task is a known process's) still stops a process that left the
process group (cgroup v1, for real; skipped elsewhere)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee import cgroups
from arena.referee.cgroups import BotGroup
from arena.referee.process import BotProcess
from tests.helpers import wait_until

SUPPORT = cgroups.detect()
needs_v1 = pytest.mark.skipif(SUPPORT.backend != "v1",
                              reason=f"needs cgroup v1 as root ({SUPPORT.summary()})")


@pytest.fixture
def v1_group() -> Iterator[BotGroup]:
    cg = cgroups.open_cgroups()
    assert cg is not None
    group = cg.create(f"refcost-{time.time_ns()}", 256 * 2**20, 8)
    yield group
    group.kill_all()
    assert group.remove()


def _open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@needs_v1
def test_counters_read_through_kept_descriptors_follow_the_group(v1_group: BotGroup) -> None:
    assert v1_group.pids_limit_hits() == 0 and v1_group.tasks_charged() == 0
    cpu0 = v1_group.cpu_usage_ns() or 0
    fds = dict(v1_group._fds)
    assert fds  # kept open
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""\
        import os, sys, time
        sys.stdin.readline()
        x = bytearray(64 << 20)
        for i in range(0, len(x), 4096):
            x[i] = 1
        n = 0
        for _ in range(20):
            try:
                if os.fork() == 0:
                    time.sleep(30)
                    os._exit(0)
                n += 1
            except OSError:
                pass
        print(n, flush=True)
        sys.stdin.readline()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    v1_group.add(proc.pid)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"go\n")
    proc.stdin.flush()
    assert int(proc.stdout.readline()) == 7  # 8 tasks: it and 7 children
    assert v1_group.pids_limit_hits() == 13  # the same descriptors, new values
    assert v1_group.tasks_charged() == 8
    assert (v1_group.cpu_usage_ns() or 0) > cpu0
    assert v1_group.memory_peak_bytes() >= 64 * 2**20
    proc.stdin.write(b"end\n")
    proc.stdin.flush()
    assert proc.wait(10) == 0
    assert v1_group.kill_all()
    v1_group.reset_peak()  # through a kept descriptor, twice
    assert v1_group.memory_peak_bytes() < 64 * 2**20
    v1_group.reset_peak()
    assert v1_group.memory_peak_bytes() < 64 * 2**20
    assert all(v1_group._fds.get(path) == fd for path, fd in fds.items())
    kept = list(v1_group._fds.values())
    assert v1_group.remove()
    assert not any(_open(fd) for fd in kept) and not v1_group._fds


CHILD = textwrap.dedent("""\
    import os, sys, time
    go, ready = sys.argv[1], sys.argv[2]
    sys.stdin.readline()  # (in its cgroup by now)
    pid = os.fork()
    if pid == 0:
        while not os.path.exists(go):
            time.sleep(0.005)
        os.setsid()  # out of the process group, still in the cgroup
        with open(ready + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(ready + ".tmp", ready)
        while True:
            pass
    print(pid, flush=True)
    while True:
        time.sleep(1)
    """)


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


@needs_v1
def test_a_freeze_still_stops_a_child_that_left_the_process_group(tmp_path: Path) -> None:
    cg = cgroups.open_cgroups()
    assert cg is not None
    go, ready = tmp_path / "go", tmp_path / "ready"
    proc = BotProcess([sys.executable, "-c", CHILD, str(go), str(ready)],
                      log_path=str(tmp_path / "bot.log"), env=dict(os.environ), cgroups=cg,
                      memory_limit_bytes=256 * 2**20, max_tasks=16)
    assert proc.cgroup is not None
    listed = []
    procs = proc.cgroup.procs

    def counted() -> list[int]:
        listed.append(1)
        return procs()

    proc.cgroup.procs = counted  # type: ignore[method-assign]
    try:
        proc.send(b"go\n")
        child = int(proc.read_line(time.perf_counter() + 20))
        proc.freeze()  # the first freeze lists the group: the bot and its child, both inside
        assert listed == [1] and proc._outside == []
        assert wait_until(lambda: _state(child) == "T", timeout_s=5)
        proc.thaw()
        proc.freeze()  # its tasks are the known processes' threads: no listing
        assert listed == [1] and proc._outside == []
        proc.thaw()
        go.write_text("")
        assert wait_until(ready.exists, timeout_s=20)
        assert int(ready.read_text()) == child
        proc.freeze()  # the child left the process group: listed, found, stopped
        assert len(listed) == 2 and proc._outside == [child]
        assert wait_until(lambda: _state(child) == "T", timeout_s=5)
        time.sleep(0.05)
        assert _state(child) == "T"
        proc.thaw()
        assert wait_until(lambda: _state(child) in "RS", timeout_s=5)
        proc.freeze()  # still outside: listed again every time
        assert len(listed) == 3 and proc._outside == [child]
        assert wait_until(lambda: _state(child) == "T", timeout_s=5)
    finally:
        proc.close()
    assert not os.path.exists(f"/proc/{child}") or _state(child) in "ZX"
