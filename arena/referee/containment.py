"""Containment of bot processes beyond their process group, and the kernel's per-thread times.

Lives here (Linux `/proc` and `prctl`; elsewhere every function degrades to "nothing found"):

- `become_subreaper()`: makes this process a child subreaper (`PR_SET_CHILD_SUBREAPER`), so a
  bot's grandchild whose parent exits (a double fork, with `setsid` or not) is re-parented to
  the referee's process instead of init, and stays findable;
- `bot_environment(bot_id)`: the marks every bot process gets in its environment (inherited by
  everything it starts): its own id (`BOT_ENV`) and its owner, the referee process
  (`OWNER_ENV`: pid and start time, so a reused pid is never mistaken for the owner);
- `find_bot_processes(root_pid, bot_id)`: every process of one bot: the descendants of its
  first process (by parent links) plus the orphans carrying its id that were re-parented to
  us (escaped by a double fork), from one pass over /proc (`process_table`, shared by the
  bots of a game);
- `kill_pids` and `reap_orphans`: SIGKILL such processes; collect the ones re-parented to us;
- `kill_leftovers()`: kill processes whose owner (a referee process) is dead, e.g. the
  grandchild of a bot whose referee was killed by SIGKILL (the parent-death signal reaches only
  a direct child). Each `Referee` calls it when it starts;
- `task_times(pids)`: per thread, CPU time and time spent waiting on a run queue
  (`/proc/PID/task/TID/schedstat`), for the overload rule (docs/protocol.md);
- `thread_states(threads)` and `Hold`: at a late move's verdict, each thread's state, wait
  channel, system call and block-I/O delay, and whether they show a bot that never got to run
  (issue 49: runnable but not run, stopped, frozen, in a page fault) or one that chose to wait.

Must not live here: protocol, game logic, policy (when to kill is the referee's decision).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["BOT_ENV", "OWNER_ENV", "Hold", "ProcessTable", "ThreadState", "blkio_ms", "blkio_ticks",
           "delayacct_on", "thread_states", "become_subreaper", "bot_environment",
           "environ_value",
           "charged_s", "find_bot_processes", "kill_leftovers", "kill_pids",
           "cpu_used_ns", "machine_wait_ns", "move_account", "owner_mark",
           "process_table", "reap_orphans", "task_times", "threads_of"]

#: environment variable naming the bot process (tree) a process belongs to
BOT_ENV = "CXARENA_BOT"
#: environment variable naming the referee process that owns a bot: "PID:STARTTIME"
OWNER_ENV = "CXARENA_OWNER"

_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def become_subreaper() -> bool:
    """Make this process a child subreaper (once; True if it is one)."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                pass
    return _subreaper


def _stat(pid: int) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (state is [0], ppid [1], pgid [2],
    starttime [19]); None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def _start_time(pid: int) -> str | None:
    st = _stat(pid)
    return st[19] if st and len(st) > 19 else None


def owner_mark(pid: int | None = None) -> str:
    """"PID:STARTTIME" of a process (default: this one)."""
    pid = os.getpid() if pid is None else pid
    return f"{pid}:{_start_time(pid) or 0}"


def bot_environment(bot_id: str) -> dict[str, str]:
    """The environment marks of a new bot process (see the module docstring)."""
    return {BOT_ENV: bot_id, OWNER_ENV: owner_mark()}


def environ_value(pid: int, key: str) -> str | None:
    """One variable of a process's environment (/proc/PID/environ), or None: the one reader of
    other processes' environments (the executor's orphan reaper and the tests use it too)."""
    value = _environ(pid, (key.encode(),)).get(key.encode())
    return None if value is None else value.decode("utf-8", "replace")


def _environ(pid: int, keys: tuple[bytes, ...]) -> dict[bytes, bytes]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return {}
    found = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep and key in keys:
            found[key] = value
    return found


def _live_pids(zombies: bool = False) -> Iterable[tuple[int, list[str]]]:
    """(pid, stat fields) of every live process we can see (and the zombies if asked)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    me = os.getpid()
    for entry in entries:
        if entry.isdigit() and int(entry) != me:
            st = _stat(int(entry))
            if st and (zombies or st[0] not in ("Z", "X")):
                yield int(entry), st


@dataclass(frozen=True)
class ProcessTable:
    """Who is whose child, from one pass over /proc (`process_table`)."""

    children: dict[int, list[int]]
    zombies: frozenset[int]

    def below(self, root_pid: int) -> set[int]:
        """`root_pid` and every process below it by parent links (zombies included)."""
        tree: set[int] = set()
        todo = [root_pid]
        while todo:
            pid = todo.pop()
            if pid not in tree:
                tree.add(pid)
                todo.extend(self.children.get(pid, []))
        return tree


def process_table() -> ProcessTable:
    """One pass over /proc (a few ms with a few hundred processes: once per game at most)."""
    children: dict[int, list[int]] = {}
    zombies = set()
    for pid, st in _live_pids(zombies=True):
        children.setdefault(int(st[1]), []).append(pid)
        if st[0] in ("Z", "X"):
            zombies.add(pid)
    return ProcessTable(children, frozenset(zombies))


def find_bot_processes(root_pid: int, bot_id: str | None,
                       table: ProcessTable | None = None) -> tuple[set[int], set[int]]:
    """(descendants, escaped): the processes below `root_pid` by parent links (itself
    included if alive; zombies below it included: once their parent dies they are ours to
    collect), and the processes marked with `bot_id` that are not below it, with everything
    below them: orphans of a double fork, re-parented to this subreaper (else to init)."""
    table = process_table() if table is None else table
    tree = table.below(root_pid)
    if root_pid in table.zombies or _stat(root_pid) is None:
        tree.discard(root_pid)
    escaped: set[int] = set()
    if bot_id is not None:
        # orphans come back to the nearest subreaper: this process (or init without one)
        adopters = [os.getpid()] if become_subreaper() else [os.getpid(), 1]
        key = BOT_ENV.encode()
        for parent in adopters:
            for pid in table.children.get(parent, []):
                if (pid not in tree and pid not in table.zombies
                        and _environ(pid, (key,)).get(key) == bot_id.encode()):
                    escaped |= table.below(pid)
    return tree, escaped - tree


def kill_pids(pids: Iterable[int], sig: int = signal.SIGKILL) -> list[int]:
    """SIGKILL (or `sig`) each pid; the ones that existed."""
    killed = []
    for pid in pids:
        try:
            os.kill(pid, sig)
            killed.append(pid)
        except (ProcessLookupError, PermissionError):
            pass
    return killed


def reap_orphans(pids: Iterable[int]) -> set[int]:
    """Collect the exit status of those of `pids` that are our children now (re-parented to
    this subreaper) and dead; return the ones still to collect (alive, or with another parent
    that has not yet died)."""
    left = set()
    me = os.getpid()
    for pid in pids:
        st = _stat(pid)
        if st is None:
            continue  # gone (reaped by someone)
        if int(st[1]) != me:
            left.add(pid)
            continue
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            left.add(pid)
    return left


def reap_namespace_inits() -> int:
    """Collect the dead sandbox inits re-parented to this subreaper: zombie children of this
    process that were pid 1 of a PID namespace (``NSpid: <pid> 1``, bwrap's init once its bwrap
    ended). Nothing else waits for them: a process that ran many sandboxed jobs (a server's
    checks, a test run) would otherwise keep one zombie per job. Returns how many were
    collected. Another process's own children are never touched: those are not namespace
    inits."""
    me, collected = os.getpid(), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for name in entries:
        if not name.isdigit():
            continue
        st = _stat(int(name))
        if st is None or st[0] != "Z" or int(st[1]) != me:
            continue
        try:
            with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as f:
                nspid = next((ln.split()[1:] for ln in f if ln.startswith("NSpid:")), [])
        except OSError:
            continue
        if len(nspid) >= 2 and nspid[-1] == "1":
            try:
                if os.waitpid(int(name), os.WNOHANG)[0]:
                    collected += 1
            except ChildProcessError:
                pass
    return collected


def kill_leftovers() -> list[int]:
    """Kill the bot processes whose owning referee process is dead (see the module docstring).
    Returns the pids killed."""
    killed = []
    keys = (OWNER_ENV.encode(),)
    for pid, _ in _live_pids():
        mark = _environ(pid, keys).get(keys[0])
        if not mark:
            continue
        owner, _, start = mark.decode("ascii", "replace").partition(":")
        if not owner.isdigit():
            continue
        if _start_time(int(owner)) == start:
            continue  # its referee is alive
        killed += kill_pids([pid])
    left = set(killed)
    for _ in range(100):  # those re-parented to us: collect them (a moment for them to die)
        left = reap_orphans(left)
        if not left:
            break
        time.sleep(0.005)
    return killed


def threads_of(pids: Iterable[int]) -> list[tuple[int, int]]:
    """(pid, tid) of every thread of these processes."""
    out = []
    for pid in pids:
        try:
            out += [(pid, int(tid)) for tid in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
    return out


def task_times(pids: Iterable[int] | None = None, threads: Iterable[tuple[int, int]] = ()
               ) -> dict[tuple[int, int], tuple[int, int]]:
    """(pid, tid) -> (CPU time ns, run-queue wait ns) of every thread of these processes (or
    of these threads: cheaper, no listing)."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for pid, tid in (threads_of(pids) if pids is not None else threads):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                cpu_ns, wait_ns, *_ = f.read().split()
            out[(pid, tid)] = (int(cpu_ns), int(wait_ns))
        except (OSError, ValueError):
            continue
    return out


def machine_wait_ns(before: dict[tuple[int, int], tuple[int, int]],
                    after: dict[tuple[int, int], tuple[int, int]],
                    own_cpu_ns: int | None = None) -> int:
    """How long the machine kept the bot waiting between two `task_times` snapshots: for each
    thread, its run-queue wait less the CPU time the bot's other threads used meanwhile (a bot
    whose own threads crowd its core is not kept waiting by the machine); the largest of these.
    Threads born in between count from zero. `own_cpu_ns`: the CPU time of the whole bot
    meanwhile where it is known (its cgroup: processes and threads the snapshots missed too)."""
    deltas = []
    for key, (cpu_ns, wait_ns) in after.items():
        cpu0, wait0 = before.get(key, (0, 0))
        deltas.append((max(0, cpu_ns - cpu0), max(0, wait_ns - wait0)))
    total_cpu_ns = sum(c for c, _ in deltas)
    if own_cpu_ns is not None:
        total_cpu_ns = max(total_cpu_ns, own_cpu_ns)
    best = 0
    for cpu_ns, wait_ns in deltas:
        best = max(best, wait_ns - (total_cpu_ns - cpu_ns))
    return best


def cpu_used_ns(before: dict[tuple[int, int], tuple[int, int]],
                after: dict[tuple[int, int], tuple[int, int]], own_cpu_ns: int | None) -> int:
    """The bot's CPU time between two `task_times` snapshots: its threads' (born in between:
    from zero), or its whole cgroup's (`own_cpu_ns`) where that is known and more."""
    threads_ns = sum(max(0, cpu - before.get(key, (0, 0))[0]) for key, (cpu, _) in after.items())
    return max(threads_ns, own_cpu_ns or 0)


def move_account(elapsed_s: float, cpu_s: float, wait_s: float) -> str:
    """Where a late move's wall time went, in words: the bot's own CPU time (its whole cgroup
    where it has one), its wait for a CPU the machine did not give it, and the rest, when the
    bot was neither running nor runnable (sleeping, blocked on I/O or memory, or stopped)."""
    rest_s = max(0.0, elapsed_s - cpu_s - wait_s)
    return (f"; of its {elapsed_s * 1000:.1f} ms the bot computed {cpu_s * 1000:.1f} ms, waited "
            f"for a CPU {wait_s * 1000:.1f} ms and was off the CPU {rest_s * 1000:.1f} ms")


def charged_s(elapsed_s: float, excused_s: float, hard_s: float) -> float:
    """The time a move is charged: its wall time less what the machine took of it (`excused`),
    never less than nothing; a move past `hard_s` (the hard wall limit, which always holds) is
    charged its whole wall time."""
    if elapsed_s > hard_s:
        return elapsed_s
    return max(0.0, elapsed_s - excused_s)


# ------------------------------------------------------------------ what held a late move
#: task states (/proc/PID/task/TID/stat, field 3) in which a thread that computed nothing was
#: held by the machine, not by a choice of its own (`ThreadState.held`): stopped or traced
#: after the referee resumed it; runnable (R) only when it never ran since its request (a wait
#: for a CPU that has not ended yet is not in schedstat's run_delay: it is added when the
#: thread runs)
_HELD_STATES = {"T": "stopped", "t": "stopped (traced)"}
#: wait channels of a thread held by a cgroup freezer (v1: __refrigerator, v2: do_freezer_trap)
_FREEZER_WCHANS = ("refrigerator", "freezer")


@dataclass(frozen=True)
class ThreadState:
    """One thread of a bot as the kernel shows it at a late move's verdict."""

    pid: int
    tid: int
    #: its state letter (R running or runnable, S sleeping, D uninterruptible, T stopped...)
    state: str
    #: the kernel function it sleeps in ("" running, or where the kernel does not say)
    wchan: str
    #: the system call it is in (-1: none, i.e. blocked in a page fault when it sleeps; None:
    #: the kernel does not say, e.g. no permission)
    syscall: int | None
    #: its block-I/O delay so far in clock ticks (delay accounting; 0 while it is off)
    blkio_ticks: int
    #: whether it got on a CPU since its request was written (None: not known)
    ran: bool | None = None
    #: the first argument of its system call (a descriptor for a read or write), or None
    arg0: int | None = None

    def held(self, took_request: bool = False) -> str:
        """What holds this thread that is not its own choice, in words ("" if nothing):
        frozen or stopped (the referee had resumed it); runnable but never run since its
        request; blocked in a page fault, unless it ran and `took_request` (it read its
        request, and may have chosen to wait since: a runnable or faulting thread that slept
        first is not evidence)."""
        if any(w in self.wchan for w in _FREEZER_WCHANS):
            return "frozen"
        if self.state in ("T", "t"):
            return _HELD_STATES[self.state]
        if self.state == "R" and self.ran is False:
            return "runnable but never run since its request"
        if (self.state == "D" and self.syscall == -1
                and (self.ran is False or not took_request)):
            return f"blocked in a page fault ({self.wchan or 'unknown'})"
        return ""

    def words(self) -> str:
        """Its state in a few words: `S in do_nanosleep (syscall 230)`."""
        where = f" in {self.wchan}" if self.wchan and self.wchan != "0" else ""
        call = "" if self.syscall is None else (
            ", no syscall" if self.syscall < 0 else f", syscall {self.syscall}"
            + ("" if self.arg0 is None or self.arg0 > 4096 else f"({self.arg0})"))
        never = ", never ran" if self.ran is False else ""
        return f"{self.state}{where}{call}{never}"


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(4096).decode("ascii", "replace")
    except OSError:
        return ""


def thread_states(threads: Iterable[tuple[int, int]]) -> list[ThreadState]:
    """The state, wait channel, system call and block-I/O delay of these (pid, tid) threads
    (those gone are left out). A few small /proc reads each: for a late move's verdict only."""
    out = []
    for pid, tid in threads:
        base = f"/proc/{pid}/task/{tid}"
        stat = _read_text(f"{base}/stat")
        try:
            fields = stat.rsplit(")", 1)[1].split()
        except IndexError:
            continue
        state = fields[0] if fields else "?"
        try:
            blkio = int(fields[39])  # field 42 of the whole line: delayacct_blkio_ticks
        except (IndexError, ValueError):
            blkio = 0
        call_text = _read_text(f"{base}/syscall").split()
        syscall: int | None = None
        arg0: int | None = None
        if call_text and call_text[0] != "running":
            try:
                syscall = int(call_text[0])
                arg0 = int(call_text[1], 16) if len(call_text) > 1 else None
            except ValueError:
                pass
        out.append(ThreadState(pid, tid, state, _read_text(f"{base}/wchan").strip(), syscall,
                               blkio, None, arg0))
    return out


_delayacct: tuple[float, bool] = (-1e9, False)  # (when last read, monotonic s; its value)


def delayacct_on() -> bool:
    """Whether the kernel keeps per-task delay accounting (kernel.task_delayacct): without it,
    a thread's block-I/O delay reads 0. Read again at most every 10 s (asked per request)."""
    global _delayacct
    now = time.monotonic()
    if now - _delayacct[0] > 10.0:
        _delayacct = (now, _read_text("/proc/sys/kernel/task_delayacct").strip() == "1")
    return _delayacct[1]


def blkio_ticks(threads: Iterable[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Each thread's block-I/O delay so far in clock ticks (/proc/PID/task/TID/stat field 42,
    delay accounting: 0 while kernel.task_delayacct is off); those gone are left out."""
    out = {}
    for pid, tid in threads:
        try:
            out[(pid, tid)] = int(_read_text(f"/proc/{pid}/task/{tid}/stat")
                                  .rsplit(")", 1)[1].split()[39])
        except (IndexError, ValueError):
            continue
    return out


def blkio_ms(before: dict[tuple[int, int], int], after: Iterable[ThreadState]) -> float:
    """The block-I/O delay (delay accounting) of these threads since `before` (`blkio_ticks`;
    a thread not in it counts from zero), in ms."""
    ticks = sum(max(0, s.blkio_ticks - before.get((s.pid, s.tid), 0)) for s in after)
    return ticks * 1000.0 / _CLK_TCK


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Hold:
    """The kernel's evidence on a late move whose bot may never have got to run."""

    #: the bot's CPU time during the move (its whole cgroup's where it has one), in ms
    cpu_ms: float
    #: its threads at the verdict
    threads: tuple[ThreadState, ...]
    #: its request still (partly) unread in its stdin at the verdict
    request_unread: bool
    #: its cgroup's freezer state ("" without a freezer)
    freezer: str = ""
    #: its threads' block-I/O delay during the move in ms (None: delay accounting is off)
    blkio_ms: float | None = None
    #: what the referee could not give or read here, in words ("no cgroup: no CPU weight")
    missing: tuple[str, ...] = ()
    #: an answer (a write of the bot) waiting unread in its stdout at the verdict
    answer_waiting: bool = False

    def machine(self, max_cpu_ms: float) -> str:
        """What held the bot that was not its own doing, in words, when it computed at most
        `max_cpu_ms` and the kernel shows a thread held (runnable but never run, stopped,
        frozen, in a page fault) or its freezer frozen; "" when the move is the bot's (it
        computed, or its threads sleep or wait where it chose: a sleep, its own I/O, a
        read)."""
        if self.cpu_ms > max_cpu_ms:
            return ""
        took = not self.request_unread
        held = [f"thread {s.tid} {s.held(took)}" for s in self.threads if s.held(took)]
        if self.freezer.upper() in ("FROZEN", "FREEZING", "1"):
            held.insert(0, f"its cgroup {self.freezer.lower()}")
        if not held:
            return ""
        return (f"it computed {self.cpu_ms:.1f} ms, "
                + ("its request still unread, " if self.request_unread else "")
                + ", ".join(held[:4]) + (f" and {len(held) - 4} more" if len(held) > 4 else ""))

    def words(self) -> str:
        """The evidence in one clause for a late move's account: `; at the deadline: its
        request unread, thread 12 S in do_nanosleep, syscall 230; block I/O 0.0 ms`."""
        parts = []
        if self.request_unread:
            parts.append("its request unread")
        if self.answer_waiting:
            parts.append("a write of it waiting in its stdout")
        if self.freezer:
            parts.append(f"freezer {self.freezer.lower()}")
        took = not self.request_unread  # the held threads first, then the rest
        threads = sorted(self.threads, key=lambda s: not s.held(took))
        shown = [f"thread {s.tid} {s.words()}" for s in threads[:3]]
        if len(self.threads) > 3:
            shown.append(f"{len(self.threads) - 3} threads more")
        parts += shown
        if self.blkio_ms is not None:
            parts.append(f"block I/O {self.blkio_ms:.1f} ms")
        text = "; at the deadline: " + ", ".join(parts) if parts else ""
        if self.missing:
            text += f" (not known here: {'; '.join(self.missing)})"
        return text
