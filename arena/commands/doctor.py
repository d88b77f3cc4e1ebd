"""`cxarena doctor`: what this machine offers to contain bots, and what to run for the rest.

Says whether bubblewrap is installed and a trial sandbox starts (`arena.referee.sandbox`),
whether the sandbox gets its seccomp filter (libseccomp), which cgroup version is mounted, which
controllers cxarena would use, whether this process may make cgroups (root, or a delegated
cgroup v2 subtree), and the one-line containment summary the runs print
(`arena.referee.cgroups`). Always exits 0: it informs, it does not judge.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

HELP = ("say what this machine offers to contain bots (bubblewrap, seccomp, cgroups) and what "
        "to run to get the rest")

_DELEGATE = "systemd-run --user --scope -p Delegate=yes -- cxarena ..."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--league", metavar="DIR", default=None,
                        help="also say what the league in DIR takes of the disk")


def _cgroup_mounts() -> tuple[bool, bool]:
    """(a cgroup v1 hierarchy is mounted, a cgroup2 is mounted)."""
    v1 = v2 = False
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                kind = line.partition(" - ")[2].split(" ", 1)[0]
                v1 |= kind == "cgroup"
                v2 |= kind == "cgroup2"
    except OSError:
        pass
    return v1, v2


def report_lines() -> list[str]:
    """The lines `cxarena doctor` prints."""
    from arena.referee import cgroups, sandbox

    lines: list[str] = []
    todo: list[str] = []
    bwrap = shutil.which("bwrap")
    why_not = sandbox.probe()
    if bwrap is None:
        lines.append("bubblewrap: not installed")
        todo.append("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) to "
                    "sandbox bots")
    else:
        version = sandbox.bwrap_version() or "version unknown"
        state = "works" if why_not is None else f"does not work here: {why_not}"
        lines.append(f"bubblewrap: {bwrap} ({version}), a trial sandbox {state}")
        if why_not is not None:
            todo.append("allow unprivileged user namespaces (sysctl "
                        "kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 "
                        "kernel.apparmor_restrict_unprivileged_userns=0)")
    if sandbox.seccomp_available():
        lines.append("seccomp: libseccomp found: a sandboxed bot cannot leave its process "
                     "group (setsid, setpgid refused)")
    else:
        lines.append("seccomp: libseccomp not found: a sandboxed bot's process may leave its "
                     "process group")
        todo.append("install libseccomp (Debian/Ubuntu: apt-get install libseccomp2)")
    v1, v2 = _cgroup_mounts()
    mounted = " and ".join(n for n, on in (("v1", v1), ("v2", v2)) if on) or "none"
    lines.append(f"cgroups mounted: {mounted}")
    found = cgroups.detect()
    if found.available:
        roots = ", ".join(sorted({os.path.join(f, cgroups.FOLDER) for _, f in found.roots}))
        how = "a delegated subtree" if found.backend == "v2" else "writable as root"
        lines.append(f"cgroups used: {found.backend}, controllers {', '.join(found.controllers)}"
                     f"; {how} (a group per bot in {roots})")
    else:
        lines.append(f"cgroups used: none ({found.reason})")
        if v2 and not v1:
            todo.append(f"run cxarena in a delegated cgroup v2 subtree: {_DELEGATE}")
        elif v1 and os.geteuid() != 0:
            todo.append("cgroup v1 needs root: run tournaments as root, or boot with cgroup "
                        f"v2 (systemd.unified_cgroup_hierarchy=1) and use {_DELEGATE}")
        elif v1 and v2:
            todo.append("this machine mixes cgroup v1 and v2 without the memory and pids "
                        f"controllers where cxarena may write; as root they are used, else "
                        f"use cgroup v2 alone and {_DELEGATE}")
        else:
            todo.append("mount cgroups (cgroup2 at /sys/fs/cgroup)")
    lines.append(found.summary())
    lines.append(delayacct_line())
    lines += door_lines(why_not is None, found.available)
    lines += spec_resolution_lines()
    if todo:
        lines.append("to get the rest:")
        lines += [f"  - {t}" for t in todo]
    else:
        lines.append("nothing to do: bots are sandboxed and each has a cgroup of its own")
    return lines


def delayacct_line(path: str = "/proc/sys/kernel/task_delayacct") -> str:
    """Whether the kernel keeps per-task delay accounting, what it adds to a late move's
    account, and how to turn it on (issue 49)."""
    try:
        with open(path) as f:
            on = f.read().strip() == "1"
    except OSError:
        return ("delay accounting: not in this kernel: a late move's account gives no "
                "block-I/O delay")
    if on:
        return ("delay accounting: on (kernel.task_delayacct=1): a late move's account gives "
                "the bot's block-I/O delay (pages read back from disk, its own I/O)")
    return ("delay accounting: off: a late move's account gives no block-I/O delay; as root, "
            "`sysctl kernel.task_delayacct=1` turns it on (until reboot; for good: "
            "kernel.task_delayacct = 1 in /etc/sysctl.d/, or boot with delayacct)")


def door_lines(sandboxed: bool, grouped: bool) -> list[str]:
    """One line per door through which entrant code runs (`arena.wire.door.DOORS`), and how
    it is contained here (with isolation auto, cxarena's default)."""
    from arena.wire.door import DOORS

    how = ("in the sandbox (namespaces, seccomp, read-only files, the sandbox user)"
           if sandboxed else "WITHOUT a sandbox (as this user)")
    how += ", " + ("a cgroup and rlimits" if grouped else "rlimits")
    lines = ["doors to entrant code (each runs as a game's bot does, with isolation auto):"]
    lines += [f"  - {name}: {what}: {how}" for name, what in DOORS.items()]
    lines.append("  - not a door: `cxarena players` and `serve` import your own players/ "
                 "folder's bots to list them (your code), in the sandbox too")
    return lines


def spec_resolution_lines() -> list[str]:
    """What naming a bot (resolving its SPEC: does it exist, its files, fingerprint, sandbox
    paths, similarity sources) runs of it in cxarena's own process: nothing
    (`arena.entrants.modpath`; docs/containment.md)."""
    return [
        "naming a bot (its SPEC: files, fingerprint, sandbox paths, similarity sources) runs "
        "none of its code outside the doors above:",
        "  - NAME, pkg.mod[:Class]: its files found on the module path by reading folders "
        "(no package __init__ runs); imported only in the bot's own process",
        "  - FILE.py[:Class], kaggle:FILE: read (its imports found with ast), never run",
        "  - java:PATH: its sources read; compiled by javac through the javac door",
        "  - exec:COMMAND: the program checked to exist and be executable, never run",
    ]


def league_lines(folder: str) -> list[str]:
    """What the league in `folder` takes of the disk (`arena.league.disk`), in one line."""
    from arena.league import League, LeagueError
    from arena.league.disk import disk_text, league_disk_use

    try:
        league = League.open(Path(folder))
    except (LeagueError, OSError) as e:
        return [f"league {folder}: cannot open it: {e}"]
    try:
        return [f"league {folder}: disk: {disk_text(league_disk_use(league))}"]
    finally:
        league.conn.close()


def run(args: argparse.Namespace) -> int:
    lines = report_lines()
    if args.league:
        lines += league_lines(args.league)
    for line in lines:
        print(line)
    sys.stdout.flush()
    return 0
