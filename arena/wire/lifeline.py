"""Tie a bot process's life to the referee's: if the referee dies (even by SIGKILL), the kernel
kills the bot, frozen or not (Linux `prctl(PR_SET_PDEATHSIG, SIGKILL)`).

Python bots: `arena.entrants.host` calls `die_with_parent()` first thing. Programs (`exec:` bots)
are started as ``python -m arena.wire.lifeline PARENT_PID [--rlimit=RES:VALUE]... --
COMMAND...``, which arms the signal, sets the bot's resource limits and then `exec`s the command
in the same process (both survive exec).

The signal fires when the *thread* that started the process ends: the referee starts every bot
from one long-lived thread (`arena.referee.process`), so it means "when the referee's process
dies".

Elsewhere than Linux this does nothing; the referee still kills every bot on a normal exit.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

__all__ = ["PARENT_ENV", "die_with_parent", "wrap"]

#: environment variable holding the referee's pid, set for every bot
PARENT_ENV = "CXARENA_PARENT_PID"
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int | None = None, sig: int = signal.SIGKILL) -> None:
    """Ask the kernel to send `sig` (default SIGKILL) to this process when its parent dies; exit
    at once if the parent (`parent_pid`, default from the environment) is already gone."""
    if parent_pid is None:
        value = os.environ.get(PARENT_ENV, "")
        parent_pid = int(value) if value.isdigit() else None
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(1)  # the referee died before we could arm the signal


def wrap(argv: list[str], parent_pid: int,
         limits: list[tuple[int, int]] | None = None) -> list[str]:
    """The command line that runs `argv` under the lifeline, with these resource limits
    ((RLIMIT_x, value) pairs, set before the exec so that a wrapper program and everything it
    starts inherit them). `parent_pid` 0: no parent check (in a sandbox, whose own init is the
    parent; bwrap's --die-with-parent ties it to the referee)."""
    opts = [f"--rlimit={res}:{value}" for res, value in (limits or [])]
    return [sys.executable, "-m", "arena.wire.lifeline", str(parent_pid), *opts, "--", *argv]


def main(args: list[str]) -> int:
    usage = "usage: python -m arena.wire.lifeline PARENT_PID [--rlimit=RES:VALUE]... -- COMMAND"
    limits: list[tuple[int, int]] = []
    while len(args) > 1 and args[1].startswith("--rlimit="):
        name, _, number = args.pop(1)[len("--rlimit="):].partition(":")
        if not (name.isdigit() and number.isdigit()):
            print(usage, file=sys.stderr)
            return 2
        limits.append((int(name), int(number)))
    if len(args) < 3 or args[1] != "--" or not args[0].isdigit():
        print(usage, file=sys.stderr)
        return 2
    die_with_parent(int(args[0]) or None)  # 0: no parent to check (inside a sandbox)
    for res, value in limits:
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError) as e:
            print(f"cannot set limit {res} to {value}: {e}", file=sys.stderr)
            return 126
    try:
        os.execvp(args[2], args[2:])
    except OSError as e:
        print(f"cannot run {args[2]!r}: {e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
