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
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(HERE, ".venv")
APT = "apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static bubblewrap"


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
        import re
        return [int(x) for x in re.findall(r"\d+", os.path.basename(path))]
    return max(found, key=version) if found else None


def vng() -> str | None:
    exe = os.path.join(VENV, "bin", "vng")
    if os.path.exists(exe):
        return exe
    say(f"installing virtme-ng into {VENV}")
    try:
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--quiet", "virtme-ng"],
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
    say("$ " + " ".join(argv))
    t0 = time.monotonic()
    env = dict(os.environ, PATH=f"{os.path.dirname(exe)}:{os.environ.get('PATH', '')}")
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True)
    assert proc.stdout is not None
    tail: list[str] = []
    verdict = ""
    try:
        deadline = t0 + timeout
        for line in proc.stdout:
            print(line, end="", flush=True)
            tail = (tail + [line.rstrip()])[-30:]
            if line.startswith("VM stage: "):
                verdict = line.strip()
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(argv, timeout)
        rc = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        say(f"the VM did not finish within {timeout:.0f} s: killed")
        return 1
    finally:  # the VM (vng and QEMU, in their own session) never outlives the stage
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait()
    wall = time.monotonic() - t0
    if not verdict:
        say(f"the VM did not boot or the guest script did not finish (vng exit {rc}, "
            f"{wall:.0f} s); its last lines:")
        for line in tail:
            say(f"  | {line}")
        return 1
    say(f"{verdict} (vng exit {rc}); wall time of the stage {wall:.0f} s")
    return 0 if rc == 0 and "FAILED" not in verdict else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
