#!/usr/bin/env python3
"""The VM test stage (`make vm-test`, run by .ci/run after `make test`): boots Debian's own
kernel (cgroup v2 only) in QEMU with software emulation (TCG; no KVM needed) through
virtme-ng, the host's file system shared into it read-only, and runs .ci/vm/guest.py there:
cxarena's containment tests as root, as a normal user with a delegated subtree, and as a normal
user with no cgroup.

Needs (Debian): qemu-system-x86 linux-image-amd64 busybox-static bubblewrap, and virtme-ng,
which this script installs from PyPI into .ci/vm/.venv when it is missing. Where something is
missing or the VM does not boot, it says why and exits 1 (2 for a missing part).

    python3 .ci/vm/run.py [SETUP ...]        # root delegated nocgroup (all by default)
    python3 .ci/vm/run.py root -- -x tests/referee/test_cgroups.py   # other tests, by hand

Environment: CXARENA_VM_KERNEL (a vmlinuz; default the newest /boot/vmlinuz-*),
CXARENA_VM_TIMEOUT (seconds for the whole VM, default 1500), CXARENA_VM_KVM=1 to use KVM.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from guest import STARTED  # this script's folder is on sys.path: the guest's first-line marker

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(HERE, ".venv")
APT = "apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static bubblewrap"
#: the virtme-ng the stage was proven with (a newer release is taken by changing this line)
VIRTME_NG = "virtme-ng==1.42"


def say(line: str) -> None:
    print(f"vm: {line}", flush=True)


def missing(why: str) -> int:
    say(f"cannot run the VM stage: {why}")
    return 2


def kernel() -> str | None:
    chosen = os.environ.get("CXARENA_VM_KERNEL")
    if chosen:
        return chosen if os.path.exists(chosen) else None
    found = [k for k in glob.glob("/boot/vmlinuz-*") if os.access(k, os.R_OK)]

    def version(path: str) -> list[int]:
        return [int(x) for x in re.findall(r"\d+", os.path.basename(path))]
    return max(found, key=version) if found else None


def vng() -> str | None:
    exe = os.path.join(VENV, "bin", "vng")
    if os.path.exists(exe):
        return exe
    say(f"installing {VIRTME_NG} into {VENV}")
    try:
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--quiet", VIRTME_NG],
                       check=True)
    except (subprocess.CalledProcessError, OSError) as e:
        say(f"pip install virtme-ng failed: {e}")
        return shutil.which("vng")
    return exe if os.path.exists(exe) else shutil.which("vng")


def main(setups: list[str]) -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below kills the VM
    if not shutil.which("qemu-system-x86_64"):
        return missing(f"qemu-system-x86_64 not installed ({APT})")
    if not shutil.which("busybox"):
        return missing(f"busybox not installed (virtme-ng builds its initramfs with it; {APT})")
    if not shutil.which("bwrap"):
        return missing(f"bubblewrap not installed (the tests sandbox bots; {APT})")
    vmlinuz = kernel()
    if vmlinuz is None:
        return missing("no readable kernel in /boot (apt-get install linux-image-amd64; "
                       "or set CXARENA_VM_KERNEL)")
    if not os.path.exists(os.path.join(ROOT, ".venv", "bin", "pytest")):
        return missing("no project venv with pytest (run `make .venv/.installed` first)")
    exe = vng()
    if exe is None:
        return missing("virtme-ng (vng) is not installed and pip could not install it")
    # the guest sees the checkout read-only: its bytecode is compiled here, once (9p is slow)
    subprocess.run([os.path.join(ROOT, ".venv", "bin", "python"), "-m", "compileall", "-q",
                    "-j", "0", "arena", "tests", "players"], cwd=ROOT, check=False,
                   stdout=subprocess.DEVNULL)
    kvm = os.environ.get("CXARENA_VM_KVM") == "1"
    timeout = float(os.environ.get("CXARENA_VM_TIMEOUT", "1500"))
    argv = [exe, "-r", vmlinuz, *([] if kvm else ["--disable-kvm"]), "--user", "root",
            "--memory", "2G", "--cpus", "2", "--cwd", ROOT,
            "--exec", " ".join(["python3", ".ci/vm/guest.py", *map(shlex.quote, setups)])]
    say(f"booting {vmlinuz} ({'KVM' if kvm else 'QEMU TCG, software emulation'}, 2 CPUs, "
        f"2 GiB), at most {timeout:.0f} s")
    t0 = time.monotonic()
    deadline = t0 + timeout
    env = dict(os.environ, PATH=f"{os.path.dirname(exe)}:{os.environ.get('PATH', '')}")
    boot = run_vm(argv, env, deadline)
    if boot is not None and not boot.started:
        # the kernel or QEMU stopped before the guest script printed its first line (seen once
        # in CI: vng exit 255 after 7 s, nothing printed): no test ran, so the boot is tried
        # once more, with the kernel's console kept, to show why if it fails again
        say(f"the VM stopped before the guest script started (vng exit {boot.rc}, "
            f"{boot.wall_s:.0f} s); booting once more, keeping the kernel's console")
        boot = run_vm([argv[0], "--verbose", *argv[1:]], env, deadline)
    if boot is None:
        say(f"the VM did not finish within {timeout:.0f} s: killed")
        return 1
    wall = time.monotonic() - t0
    if not boot.verdict:
        say(f"the VM did not boot or the guest script did not finish (vng exit {boot.rc}, "
            f"{boot.wall_s:.0f} s); its last lines:")
        for line in boot.tail:
            say(f"  | {line}")
        if boot.console:
            say("the kernel's last console lines:")
            for line in boot.console:
                say(f"  | {line}")
        for line in host_notes():
            say(line)
        return 1
    say(f"{boot.verdict} (vng exit {boot.rc}); wall time of the stage {wall:.0f} s")
    return 0 if boot.rc == 0 and "FAILED" not in boot.verdict else 1


def host_notes() -> list[str]:
    """What the host says of a VM that died young: this process's memory cgroup and the host
    kernel's last lines that name QEMU (dmesg, where readable)."""
    notes = []
    try:
        with open("/proc/self/cgroup") as f:
            notes += [f"host: this process's cgroup {line.strip()}" for line in f
                      if ":memory:" in line or line.startswith("0::")]
        log = subprocess.run(["dmesg"], capture_output=True, text=True, errors="replace",
                             timeout=10).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return notes
    hits = [line for line in log if "qemu" in line.lower()]  # its OOM kill, a segfault
    return notes + [f"host: dmesg | {line}" for line in hits[-15:]]


#: a line of the kernel's console (only with vng --verbose): "[   12.345678] ..."
CONSOLE = re.compile(r"^\[\s*\d+\.\d+\] ")


@dataclass(frozen=True)
class Boot:
    rc: int
    wall_s: float
    started: bool       # the guest script printed its first line (guest.STARTED)
    verdict: str        # its "VM stage: ..." line, or ""
    tail: list[str]     # the last lines vng printed (the guest's)
    console: list[str]  # the kernel's last console lines (with --verbose)


def run_vm(argv: list[str], env: dict[str, str], deadline: float) -> Boot | None:
    """Boots the VM once and streams the guest's lines; None when it outlives the deadline.
    Kernel console lines (with --verbose) are kept, not printed."""
    say("$ " + " ".join(argv))
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    assert proc.stdout is not None
    tail: list[str] = []
    console: list[str] = []
    started = False
    verdict = ""
    try:
        for line in proc.stdout:
            if CONSOLE.match(line):
                console = (console + [line.rstrip()])[-60:]
            else:
                print(line, end="", flush=True)
                tail = (tail + [line.rstrip()])[-30:]
            started = started or line.startswith(STARTED)
            if line.startswith("VM stage: "):
                verdict = line.strip()
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(argv, deadline - t0)
        rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return None
    finally:  # the VM (vng and QEMU, in their own session) never outlives the stage
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
    return Boot(rc, time.monotonic() - t0, started, verdict, tail, console)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
