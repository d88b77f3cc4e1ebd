"""Reads /proc/PID/environ and /proc/PID/mem and tries ptrace(PTRACE_ATTACH) on every process it
can see but itself, and on the pids of option `pids` (the referee's, given by the test). For each
process it reaches it reports the command line, so the test can tell its own sandbox's processes
from the referee and the opponent."""

import ctypes
import os
import sys

from arena.player import CXPlayer

_PTRACE_ATTACH, _PTRACE_DETACH = 16, 17


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _report(what, pid, fn):
    try:
        fn()
        print(f"CHEAT {what} {pid}: SUCCEEDED [{_cmdline(pid)}]", file=sys.stderr, flush=True)
    except OSError as e:
        print(f"CHEAT {what} {pid}: blocked ({e})", file=sys.stderr, flush=True)


def _environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        f.read()


def _mem(pid):
    with open(f"/proc/{pid}/maps") as maps:
        start = int(maps.readline().split("-")[0], 16)
    with open(f"/proc/{pid}/mem", "rb") as f:
        f.seek(start)
        f.read(16)


def _ptrace(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(_PTRACE_ATTACH, pid, None, None) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    os.waitpid(pid, 0) if pid != os.getppid() else None
    libc.ptrace(_PTRACE_DETACH, pid, None, None)


class Snoop(CXPlayer):
    pids = ()

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.done = False

    def selectColumn(self, B):
        if not self.done:
            self.done = True
            visible = [int(e) for e in os.listdir("/proc") if e.isdigit()]
            print(f"CHEAT visible processes: {[(p, _cmdline(p)) for p in visible]}",
                  file=sys.stderr, flush=True)
            for pid in sorted(set(visible) | set(self.pids)):
                if pid == os.getpid():
                    continue
                _report("read environ of", pid, lambda p=pid: _environ(p))
                _report("read mem of", pid, lambda p=pid: _mem(p))
                _report("ptrace", pid, lambda p=pid: _ptrace(p))
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "snoop"
