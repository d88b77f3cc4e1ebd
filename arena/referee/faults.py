"""The wording of bot faults: every detail a `GameRecord` of a faulted game carries is made here.

`Fault` is raised inside the referee's game loop and never escapes `Referee.play`: it becomes
the game's result (reason, offender, detail). The texts are what players read in `match`,
`show`, the standings and the report, so they name the request, the limit and what the bot did.
"""

from __future__ import annotations

import os

from arena.records import Reason
from arena.wire import protocol

__all__ = ["FAILED_TO_START", "MOVE_CAP_DETAIL", "Fault", "SeatFault", "TooManyComments",
           "comment_flood", "first_last", "line_of", "is_comment", "parse", "read_lines", "show",
           "game_time_detail", "timeout_detail", "startup_output", "with_memory"]

#: start of the detail of a crash because the bot never answered `hello` with `ready`
FAILED_TO_START = "failed to start"

#: start of the detail of a game stopped by `Referee.play(max_moves=...)`
MOVE_CAP_DETAIL = "stopped at the move cap"

#: what runtimes say when an allocation fails (Python MemoryError, Java OutOfMemoryError and
#: "insufficient memory for the Java Runtime", C++ bad_alloc, C perror/strerror of ENOMEM, Go)
_MEMORY_HINTS = ("memoryerror", "out of memory", "cannot allocate memory", "bad_alloc",
                 "memory exhausted", "insufficient memory", "not enough space (errno=12)",
                 "errno=12")


class Fault(Exception):
    """A bot fault inside the game loop: ends the game (never escapes `Referee.play`)."""

    def __init__(self, reason: Reason, detail: str, overload: str = "",
                 move: str | None = None, late_ms: dict[str, float] | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        #: set for a late move the machine caused (the run-queue wait accounts for it)
        self.overload = overload
        #: an illegal answer as the bot sent it (kept in the record: `extra["fault_move"]`)
        self.move = move
        #: a late move's account (kept in the record: `extra["late_ms"]`): its wall time, the
        #: bot's own CPU time and its wait for a CPU, in ms
        self.late_ms = late_ms


class SeatFault(Fault):
    """A fault while starting the seats: says which seat (0 or 1) it was."""

    def __init__(self, index: int, reason: Reason, detail: str) -> None:
        super().__init__(reason, detail)
        self.index = index


def with_memory(detail: str, limit_bytes: int | None, peak_kb: int | None,
                tail: str = "") -> str:
    """Say so when a crash looks like running out of memory (detail then has "memory"): the
    bot or its stderr reports an allocation failure, or its peak resident memory (wait4)
    reached 80% of the limit."""
    text = f"{detail}\n{tail}".lower()
    near_limit = bool(limit_bytes and peak_kb and peak_kb * 1024 >= 0.8 * limit_bytes)
    if any(h in text for h in _MEMORY_HINTS) or near_limit:
        limit = f"memory limit {limit_bytes / 2**20:g} MB" if limit_bytes else "no memory limit"
        if "out of memory" not in detail:
            detail += "; out of memory"
        peak = f", peak {peak_kb / 1024:.0f} MB resident" if peak_kb else ""
        detail += f" ({limit}{peak})"
    return detail


def timeout_detail(what: str, elapsed_s: float, limit_s: float, grace_s: float,
                   answered: bool) -> str:
    over_ms = (elapsed_s - limit_s) * 1000.0
    how = "answered after" if answered else "no answer after"
    return (f"{what}: {how} {elapsed_s * 1000:.1f} ms, over the {limit_s * 1000:g} ms limit by "
            f"{over_ms:.1f} ms (grace {grace_s * 1000:g} ms)")


def game_time_detail(what: str, limit_s: float, elapsed_s: float) -> str:
    """The detail of a game ended by its wall-clock limit while waiting for this bot."""
    return (f"{what}: the game's wall-clock limit of {limit_s:.1f} s passed while waiting "
            f"for this bot ({elapsed_s * 1000:.1f} ms into the request); charged to the bot "
            f"being waited on")


def first_last(lines: list[str]) -> str:
    shown = [repr(ln[:200]) for ln in lines]
    if len(shown) <= 2:
        return ", ".join(shown)
    return f"{shown[0]} ... {shown[-1]} ({len(shown)} lines)"


def startup_output(stdout_lines: list[str], log_path: str) -> str:
    """"; its stdout: FIRST ... LAST; its stderr: FIRST ... LAST" for a bot that failed to
    start (what it said: a JVM's reason comes on its last line), or "" if it said nothing."""
    out = [ln for ln in stdout_lines if ln.strip()]
    err = [ln for ln in read_lines(log_path) if ln.strip()]
    parts = []
    if out:
        parts.append(f"its stdout: {first_last(out)}")
    if err:
        parts.append(f"its stderr: {first_last(err)}")
    return "".join(f"; {p}" for p in parts)


def read_lines(path: str, max_bytes: int = 1 << 20) -> list[str]:
    try:
        with open(path, "rb") as f:
            head = f.read(max_bytes)
            size = f.seek(0, os.SEEK_END)
            if size > max_bytes:  # the first and the last lines are what matter
                f.seek(max(max_bytes, size - 65536))
                head += b"\n" + f.read()
    except OSError:
        return []
    return [ln.rstrip() for ln in head.decode("utf-8", "replace").splitlines()]


def parse(line: bytes) -> protocol.Reply:
    return protocol.parse_reply(line.decode("utf-8", "backslashreplace"))


def is_comment(line: bytes) -> bool:
    """A line the protocol ignores (`protocol.is_comment`: empty, blank or starting with #);
    anything else, even a line that does not parse, is output the bot was not asked for.
    The common comments (empty, `#...`) are told without decoding: a flood of them costs
    the referee as little as it can."""
    if not line or line[0] == 0x23:  # b"#"
        return True
    return protocol.is_comment(line.decode("utf-8", "backslashreplace"))


class TooManyComments(Exception):
    """The bot wrote more protocol comments in one request than the caps allow (the text says
    how many, and the caps)."""


def comment_flood(lines: int, nbytes: int, max_lines: int, max_bytes: int,
                  is_move: bool) -> TooManyComments | None:
    """The fault of a bot that wrote `lines` comment lines of `nbytes` bytes (newlines
    included) in one request, if that is over either cap; else None."""
    one = "move" if is_move else "request"
    caps = f"(the cap is {max_lines} lines and {max_bytes // 1024} KiB of comments per {one})"
    if lines > max_lines:
        return TooManyComments(f"wrote {lines} comment lines in one {one} {caps}")
    if nbytes > max_bytes:
        return TooManyComments(f"wrote {nbytes} bytes of comments in one {one} {caps}")
    return None


def show(line: bytes | str) -> str:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "backslashreplace")
    return repr(line[:200])


def line_of(reply: protocol.Reply) -> str:
    if isinstance(reply, protocol.Ready):
        return f"ready {reply.version}"
    if isinstance(reply, protocol.Ok):
        return f"ok {reply.name}"
    if isinstance(reply, protocol.Play):
        return f"play {reply.text}"
    return str(reply)
