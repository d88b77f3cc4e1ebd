"""Helpers shared by the tests (one home): the zoo of misbehaving bots, process inspection,
polling, and the opening judge the commands use."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from arena.commands import opening_judge
from arena.referee.containment import environ_value

#: the judge of generated openings, as the `cxarena` commands pass it
JUDGE = opening_judge()

ZOO = Path(__file__).resolve().parent / "referee" / "zoo"


def zoo(name: str) -> str:
    """The SPEC of a zoo bot: a .py file, or `exec:sh FILE` for a shell bot."""
    path = ZOO / name
    return f"exec:sh {path}" if name.endswith(".sh") else str(path)


# ----------------------------------------------------------------- process inspection
def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def live(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return _stat(pid)[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def frozen(pid: int) -> bool:
    """The process is stopped by SIGSTOP (state T), or frozen by its cgroup's freezer (state
    D, its v1 freezer group FROZEN or its v2 group's cgroup.events `frozen 1`)."""
    try:
        state = _stat(pid)[0]
        if state == "T":
            return True
        if state != "D":
            return False
        with open(f"/proc/{pid}/cgroup") as f:
            lines = f.read().splitlines()
    except (OSError, IndexError):
        return False
    for line in lines:
        _, ctrls, path = line.split(":", 2)
        try:
            if "freezer" in ctrls.split(","):
                with open(f"/sys/fs/cgroup/freezer{path}/freezer.state") as f:
                    return f.read().strip() == "FROZEN"
            if ctrls == "" and path != "/":
                for mount in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                    events = f"{mount}{path}/cgroup.events"
                    if os.path.exists(events):
                        with open(events) as f:
                            return "frozen 1" in f.read()
        except OSError:
            continue
    return False


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment carries CXARENA_TAG=tag: the bots a Referee started
    and everything they forked."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit()
            and environ_value(int(e), "CXARENA_TAG") == tag and live(int(e))]


def wait_until(cond: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    """Poll cond until true (killed processes take a moment to disappear)."""
    end = time.monotonic() + timeout_s
    while True:
        if cond():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.02)


