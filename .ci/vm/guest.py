#!/usr/bin/env python3
"""Runs inside the VM (booted by .ci/vm/run.py, as root, the host's files shared read-only):
cxarena's containment tests in three set-ups, each in a cgroup made the way systemd makes it,
each compared with what `cxarena doctor` says there.

- root:      root in a login session's scope (user.slice/user-0.slice/session-1.scope), the
             controllers enabled above it, as with `sudo cxarena ...` on a systemd machine;
- delegated: a normal user in a scope made like systemd's `Delegate=yes` (the scope and its
             cgroup.procs, cgroup.subtree_control and cgroup.threads chowned to the user, the
             controllers enabled in its parent), as with `systemd-run --user --scope -p
             Delegate=yes -- cxarena ...`; cxarena finds it by itself;
- nocgroup:  the same user in a session scope owned by root (no delegation): rlimits only,
             the fork bomb held by RLIMIT_NPROC in the sandbox.

The tests that run are listed here, in TESTS (one place). A set-up fails when a
test fails, when one of its KEY tests did not pass (a skip included), or when `doctor` says
another backend than the tests saw. Exit status 0 when all three pass.

Usage (inside the VM): python3 .ci/vm/guest.py [SETUP ...] [-- PYTEST ARGS]
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.join(ROOT, ".venv", "bin")
CG = "/sys/fs/cgroup"
CONTROLLERS = ("memory", "pids", "cpu")
#: the guest's first line starts with this: run.py tells a VM that never booted by its absence
STARTED = "VM guest: "

#: The containment tests that run, in one place: the test (node id) that proves each claim, and
#: the set-ups it runs in, from tests/referee/test_{cgroups_v2_vm,referee_cgroups,
#: task_cap_fallback,referee_containment,doctor}.py. Not every test of the containment files:
#: under QEMU's software emulation on a busy 2-core machine a game takes 30-50 s (the bots'
#: Python start-up) and the whole stage must fit in 20 minutes; root runs the v2 code and the
#: attacks that need more than a user may have, the delegated user (the path most teachers
#: take) every attack. Each of these must pass in its set-ups: a skip fails the stage.
ALL, V2 = ("root", "delegated", "nocgroup"), ("root", "delegated")
TESTS: list[tuple[str, tuple[str, ...]]] = [
    # the v2 code itself: limits, OOM in the group, task cap, freezer, cgroup.kill, the
    # referee's leaf, a dead referee's group; and the fork bomb with a 120 s move limit (the
    # 10 s of test_referee_cgroups' own fork bomb test is too short for 2,000 forks in TCG)
    ("tests/referee/test_cgroups_v2_vm.py", V2),
    # the attack bots, one game each, 256 MiB: shared memory, children, memfds, unsandboxed,
    # busy children; a killed referee's groups removed by the next
    ("tests/referee/test_referee_cgroups.py::test_shared_anonymous_memory_counts", V2),
    ("tests/referee/test_referee_cgroups.py::test_memory_of_children_counts", ("delegated",)),
    ("tests/referee/test_referee_cgroups.py::test_memfds_count", ("delegated",)),
    ("tests/referee/test_referee_cgroups.py::test_memory_counts_unsandboxed_too", ("delegated",)),
    ("tests/referee/test_referee_cgroups.py::test_own_busy_children_do_not_void_a_late_move",
     ("delegated",)),
    ("tests/referee/test_referee_cgroups.py::"
     "test_the_groups_of_a_killed_referee_are_removed_by_the_next", V2),
    # without a cgroup: the fork bomb held by RLIMIT_NPROC in the sandbox (uid 0 is exempt)
    ("tests/referee/test_task_cap_fallback.py", ("nocgroup",)),
    # a bot's double-forked daemon dies with the game
    ("tests/referee/test_referee_containment.py::test_a_double_forked_daemon_dies_with_the_game",
     ("delegated", "nocgroup")),
    # doctor's lines are what the runs print
    ("tests/referee/test_doctor.py::test_doctor_says_what_the_machine_offers", ALL),
    # the doors of issue 36: a student's import that tries the league's database, a door job
    # as the sandbox user within its limit, javac's argument file and annotation processor,
    # a comment flood charged at the cap (one each: a JVM or a game costs minutes under TCG)
    ("tests/entrants/test_door_entrants.py::"
     "test_the_load_probe_of_a_python_bot_cannot_touch_the_league", ALL),
    ("tests/entrants/test_door_entrants.py::"
     "test_a_door_job_runs_as_the_sandbox_user_and_ends_at_its_limit", ALL),
    ("tests/entrants/test_door_entrants.py::"
     "test_without_cgroups_a_door_job_is_capped_by_the_lifeline_in_the_sandbox", ("nocgroup",)),
    ("tests/entrants/test_door_entrants.py::"
     "test_javac_reads_no_argument_file_and_runs_no_processor", ("delegated",)),
    ("tests/referee/test_door_flood.py::test_a_flood_of_empty_lines_is_charged_at_the_line_cap",
     ("delegated",)),
]

USER, UID = "teacher", 2000
DOCTOR = "cxarena doctor | "  # vm_plugin's header lines


@dataclass
class Setup:
    name: str
    user: str | None  # None: root
    cgroup: str  # below /sys/fs/cgroup
    delegate: bool
    backend: str  # what doctor and the tests must both find


SETUPS = [
    Setup("root", None, "user.slice/user-0.slice/session-1.scope", False, "v2"),
    Setup("delegated", USER, f"user.slice/user-{UID}.slice/user@{UID}.service/app.slice/"
          "run-cxarena.scope", True, "v2"),
    Setup("nocgroup", USER, f"user.slice/user-{UID}.slice/session-2.scope", False, "none"),
]


def say(line: str = "") -> None:
    print(line, flush=True)


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def make_user() -> None:
    try:
        pwd.getpwnam(USER)
        return
    except KeyError:
        pass
    # /etc is a writable overlay in a virtme-ng guest: the host's own files are not touched
    with open("/etc/passwd", "a") as f:
        f.write(f"{USER}:x:{UID}:{UID}:cxarena VM test:/tmp/home-{USER}:/bin/sh\n")
    with open("/etc/group", "a") as f:
        f.write(f"{USER}:x:{UID}:\n")


def let_others_reach(path: str) -> None:
    """Every folder above `path` searchable by a normal user, in the VM's view only: a folder
    that is not (the venv's interpreter under /root/.pyenv, say) gets an overlay whose upper
    layer, on a tmpfs, is chmod o+x. The host's files are not touched."""
    parts = os.path.realpath(path).split("/")
    for i in range(2, len(parts)):
        folder = "/".join(parts[:i])
        mode = os.stat(folder).st_mode
        if mode & 0o001:
            continue
        scratch = f"/run/cxarena-vm/{i}"
        if not os.path.ismount("/run/cxarena-vm"):
            os.makedirs("/run/cxarena-vm", exist_ok=True)
            subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/cxarena-vm"], check=True)
        os.makedirs(f"{scratch}/upper")
        os.makedirs(f"{scratch}/work")
        subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                        f"lowerdir={folder},upperdir={scratch}/upper,workdir={scratch}/work",
                        folder], check=True)
        os.chmod(folder, (mode & 0o7777) | 0o005)
        say(f"{folder}: not searchable by others on the host; o+rx in the VM (an overlay)")


def make_cgroup(setup: Setup) -> str:
    """The set-up's cgroup, the controllers enabled in every group above it (as systemd does),
    chowned to the user where delegated."""
    folder = os.path.join(CG, setup.cgroup)
    os.makedirs(folder, exist_ok=True)
    wanted = " ".join(f"+{c}" for c in CONTROLLERS)
    parts = setup.cgroup.split("/")
    for i in range(len(parts)):
        _write(os.path.join(CG, *parts[:i], "cgroup.subtree_control"), wanted)
    if setup.delegate:
        uid = pwd.getpwnam(setup.user).pw_uid if setup.user else 0
        # what systemd's Delegate=yes chowns (kernel doc cgroup-v2, "Delegation")
        for f in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(os.path.join(folder, f), uid, uid)
    return folder


def spawn(setup: Setup, folder: str, argv: list[str], **kw: object) -> subprocess.Popen[str]:
    """`argv` in the set-up's cgroup, as its user, with a home and TMPDIR of its own."""
    name = setup.user or "root"
    home = f"/tmp/home-{name}"
    tmp = f"/tmp/tmp-{name}-{setup.name}"
    for d in (home, tmp):
        os.makedirs(d, exist_ok=True)
    ids = None
    if setup.user:
        pw = pwd.getpwnam(setup.user)
        ids = (pw.pw_uid, pw.pw_gid)
        for d in (home, tmp):
            os.chown(d, *ids)
    env = {"PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": tmp,
           "USER": name, "LOGNAME": name, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONUNBUFFERED": "1", "PYTHONPATH": os.path.dirname(os.path.abspath(__file__))}

    def enter() -> None:  # in the child, before exec: into the cgroup, then drop root
        _write(os.path.join(folder, "cgroup.procs"), str(os.getpid()))
        if ids is not None:
            os.setgroups([])
            os.setgid(ids[1])
            os.setuid(ids[0])

    return subprocess.Popen(argv, cwd=ROOT, env=env, preexec_fn=enter, text=True, **kw)  # type: ignore[call-overload]


def select(setup: Setup) -> tuple[list[str], list[str]]:
    """(the tests of this set-up, those of them that must pass)"""
    key = [t for t, where in TESTS if setup.name in where]
    return key, key


def results(xml_path: str) -> list[tuple[str, str, float, str]]:
    """(node id, passed|failed|skipped, seconds, message) of each test of a JUnit XML file."""
    out = []
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        cls = case.get("classname", "")
        node = cls.replace(".", "/") + ".py::" + case.get("name", "")
        outcome, msg = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = "skipped" if tag == "skipped" else "failed"
                msg = (el.get("message") or "").splitlines()[0][:200] if el.get("message") \
                    else ""
                break
        out.append((node, outcome, float(case.get("time", 0)), msg))
    return out


def run_setup(setup: Setup, only: list[str] | None = None) -> bool:
    say(f"==================== set-up {setup.name} "
        f"({'root' if setup.user is None else 'user ' + setup.user}, "
        f"cgroup /{setup.cgroup}{', delegated' if setup.delegate else ''})")
    folder = make_cgroup(setup)
    with open(os.path.join(folder, "cgroup.controllers")) as f:
        say(f"cgroup.controllers of it: {f.read().strip()}")
    t0 = time.monotonic()
    ok = True
    files, key = select(setup) if only is None else (only, [])
    xml = f"/tmp/junit-{setup.name}.xml"
    argv = [os.path.join(VENV_BIN, "python"), "-m", "pytest", "-p", "no:cacheprovider",
            "-p", "vm_plugin", "-rfEs", "-v", "--junitxml", xml, "-o", "junit_family=xunit1",
            *files]
    say("$ " + " ".join(["pytest", *argv[3:]]))
    p = spawn(setup, folder, argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.stdout is not None
    doctor = []
    for line in p.stdout:
        print(line, end="", flush=True)
        if line.startswith(DOCTOR):
            doctor.append(line[len(DOCTOR):].rstrip("\n"))
    rc = p.wait()
    # `cxarena doctor` in the same process as the tests (vm_plugin prints it in the header)
    used = next((ln for ln in doctor if ln.startswith("cgroups used: ")), "")
    found = used.removeprefix("cgroups used: ").split(",")[0].split(" ")[0]
    if found != setup.backend:
        say(f"FAIL: doctor says {used!r}; this set-up must give cgroups {setup.backend!r}")
        ok = False
    rows = results(xml) if os.path.exists(xml) else []
    say(f"---- set-up {setup.name}: doctor says {used!r}; {doctor[-1] if doctor else ''}")
    say(f"---- set-up {setup.name}: each test's result (pytest exit {rc}, "
        f"{time.monotonic() - t0:.0f} s)")
    for node, outcome, secs, msg in rows:
        say(f"  {outcome:7} {secs:6.1f}s  {node}" + (f"  [{msg}]" if msg else ""))
    counts = {o: sum(1 for r in rows if r[1] == o) for o in ("passed", "failed", "skipped")}
    say(f"  {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    if rc != 0 or counts["failed"]:
        say(f"FAIL: tests failed in set-up {setup.name}")
        ok = False
    for k in key:
        mine = [r for r in rows if r[0] == k or r[0].startswith(k + "::")]
        if not mine or any(r[1] != "passed" for r in mine):
            why = "; ".join(f"{r[1]} {r[3]}" for r in mine) or "did not run"
            say(f"FAIL: key test {k} must pass in set-up {setup.name}: {why}")
            ok = False
    say(f"==================== set-up {setup.name}: {'PASSED' if ok else 'FAILED'}")
    return ok


def main(args: list[str]) -> int:
    """SETUP ... [-- PYTEST ARGS] (after `--`: these tests instead of the list, no key check)"""
    names, only = args, None
    if "--" in args:
        names, only = args[:args.index("--")], args[args.index("--") + 1:]
    t0 = time.monotonic()
    say(f"{STARTED}kernel {os.uname().release}; {os.cpu_count()} CPUs; "
        f"{CG}: {open('/proc/self/mountinfo').read().count(' - cgroup2 ')} cgroup2 mount(s), "
        f"controllers {open(os.path.join(CG, 'cgroup.controllers')).read().strip()}")
    make_user()
    for path in (os.path.join(VENV_BIN, "python"), ROOT):
        let_others_reach(path)
    chosen = [s for s in SETUPS if not names or s.name in names]
    verdict = {s.name: run_setup(s, only) for s in chosen}
    told = ", ".join(f"{n} {'passed' if v else 'FAILED'}" for n, v in verdict.items())
    say(f"VM stage: {told} ({time.monotonic() - t0:.0f} s in the VM)")
    return 0 if all(verdict.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
