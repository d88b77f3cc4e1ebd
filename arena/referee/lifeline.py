"""Tie a bot process's life to the referee's: if the referee dies (even by SIGKILL), the kernel
kills the bot, frozen or not (Linux `prctl(PR_SET_PDEATHSIG, SIGKILL)`).

Python bots: `arena.entrants.host` calls `die_with_parent()` first thing. Programs (`exec:` bots)
are
started as ``python -m arena.referee.lifeline PARENT_PID -- COMMAND...``, which arms the signal and
then
`exec`s the command in the same process (the setting survives exec).

Elsewhere than Linux this does nothing; the referee still kills every bot on a normal exit.
"""

from __future__ import annotations

import ctypes
import os
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


def wrap(argv: list[str], parent_pid: int) -> list[str]:
    """The command line that runs `argv` under the lifeline."""
    return [sys.executable, "-m", "arena.referee.lifeline", str(parent_pid), "--", *argv]


def main(args: list[str]) -> int:
    if len(args) < 3 or args[1] != "--" or not args[0].isdigit():
        print("usage: python -m arena.referee.lifeline PARENT_PID -- COMMAND [ARGS...]",
              file=sys.stderr)
        return 2
    die_with_parent(int(args[0]))
    try:
        os.execvp(args[2], args[2:])
    except OSError as e:
        print(f"cannot run {args[2]!r}: {e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
