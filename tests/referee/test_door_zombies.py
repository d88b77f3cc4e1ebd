"""A sandboxed door job leaves no zombie behind: bwrap's init, re-parented to this process (a
child subreaper) when bwrap ends, is collected, whether the job wrote output or not (issue #40
point 9 saw `[bwrap] <defunct>` pile up under the server, one per door job)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.referee import sandbox
from arena.referee.door import ContainedDoor
from arena.wire.door import DoorJob

_WHY_NOT = sandbox.probe()
needs_sandbox = pytest.mark.skipif(_WHY_NOT is not None, reason=f"no sandbox: {_WHY_NOT}")


def _zombie_children() -> set[int]:
    me, out = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == me:
            out.add(int(entry.name))
    return out


@needs_sandbox
@pytest.mark.parametrize("code", ["print('hello')", "pass"], ids=["output", "silent"])
def test_sandboxed_door_jobs_leave_no_zombie(code: str) -> None:
    door = ContainedDoor("namespaces")
    before = _zombie_children()
    for _ in range(5):
        result = door(DoorJob(door="probe", label="zombie check",
                              argv=(sys.executable, "-c", code), timeout_s=30))
        assert result.status == 0 and result.sandboxed, result
    # without the collection: one per job (5); with it, none, or on a loaded machine the last
    # job's init that died after its job had returned (the next job collects it)
    assert len(_zombie_children() - before) <= 1
