"""`BotProcess`: one bot's OS process, as the referee sees it.

Start it in its own session (so its process group holds the bot and everything it forks), with a
data-segment limit (`RLIMIT_DATA`: memory the bot really commits, not address space a runtime
merely reserves, so a JVM or a Go program starts), a file-size limit (`MAX_FILE_BYTES`) and no
core dumps, optionally pinned to one CPU core, stderr a pipe that one reader thread drains
into a capped log file (`arena.referee.logcap`: the first and last 64 KiB of each game; a bot
writing megabytes to stderr is never held up by the referee), stdout a SOCK_SEQPACKET socket
whose kernel arrival timestamps say when each answer really arrived. Then: send bytes, read a
line by a deadline (`select` or `poll` with the remaining time, never a blocking read), freeze
(SIGSTOP) and thaw (SIGCONT) the whole group, kill the whole group and every other process of
the bot (`arena.referee.containment`: descendants that left the group, orphans of a double
fork), describe how it ended (with its peak memory from `wait4`), read its stderr tail, start a
game's section of its log (`log_section`).

With cgroups (`arena.referee.cgroups`, a `Cgroups` passed in), the bot gets a group of its own
right after its first process starts (a sandbox's bwrap then still waits for `Launch.release()`,
so nothing has forked yet): its memory limit and task cap count the whole tree, freeze and thaw
use the group's freezer on cgroup v2 (on v1 the SIGSTOP and SIGCONT also reach the processes of
the group outside the process group: see `_freezer`), and `kill` kills everything in the
group. `limit_fault()` says when the bot went over either limit; the group is removed once the
bot is reaped.

The readings of every move (its threads' schedstat, its cgroup's counters, the /proc stat of
its known processes) go through descriptors kept open during a game, one `pread` each; `unhold`
closes them when the bot goes idle (docs/containment.md, "What a move costs the referee").

Processes are started from one long-lived thread per process (`_spawner`): the parent-death
signal a bot arms (`arena.wire.lifeline`) fires when the *thread* that forked it ends, so
forking from a short-lived caller thread would kill the bots of a Referee that outlives it.
Every pipe and socket of a bot is closed as soon as its process is reaped.

Nothing here knows the protocol's messages; that is `arena.referee.referee` and
`arena.wire.protocol`.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import itertools
import math
import os
import queue
import resource
import select
import signal
import socket
import struct
import subprocess
import termios
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.referee import containment, logcap
from arena.referee.cgroups import BotGroup, Cgroups

__all__ = ["BotProcess", "LineTooLong", "THREAD_ENV", "bot_limits", "task_cap"]

#: environment that keeps numeric libraries to one thread
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: the most a bot may write to any file it opens: a bot that writes more is killed by SIGXFSZ
#: (a crash), so a runaway bot cannot fill the disk (its stderr is a pipe: `logcap` caps it)
MAX_FILE_BYTES = 256 * 2**20
_FD_SETSIZE = 1024  # select() handles fds below this; poll() the rest
_SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; not exported by Python
_CMSG_SPACE = socket.CMSG_SPACE(16)  # one struct timespec


_bot_ids = itertools.count(1)


class LineTooLong(Exception):
    """The bot wrote more than the allowed bytes without a newline."""


def bot_limits(memory_limit_bytes: int | None) -> list[tuple[int, int]]:
    """The (resource, value) limits of a bot process: no core dumps, `MAX_FILE_BYTES` per file,
    and the memory limit as RLIMIT_DATA (None: no memory limit)."""
    limits = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, MAX_FILE_BYTES)]
    if memory_limit_bytes is not None:
        limits.append((resource.RLIMIT_DATA, int(memory_limit_bytes)))
    return limits


def task_cap(max_tasks: int) -> tuple[int, int]:
    """The process cap of a sandboxed bot without a cgroup: RLIMIT_NPROC, set inside the
    sandbox's own user namespace, where it counts the bot's tasks (processes and threads) only
    (the kernel keeps the count per user namespace; the bot has no capability to raise it)."""
    return (resource.RLIMIT_NPROC, int(max_tasks))


class _Spawner:
    """Runs process starts on one daemon thread per process (see the module docstring)."""

    def __init__(self) -> None:
        self._reset()
        if hasattr(os, "register_at_fork"):  # a forked child has no copy of the thread
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], list[Any], threading.Event]] = (
            queue.SimpleQueue())
        self._thread: threading.Thread | None = None

    def _loop(self) -> None:
        while True:
            fn, box, done = self._jobs.get()
            try:
                box.append((True, fn()))
            except BaseException as e:  # handed to the caller
                box.append((False, e))
            done.set()

    def run(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if self._pid != os.getpid() or self._thread is None or not self._thread.is_alive():
                self._pid = os.getpid()  # a forked child has no copy of the thread
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(target=self._loop, name="cxarena-spawner",
                                                daemon=True)
                self._thread.start()
        if threading.current_thread() is self._thread:
            return fn()
        box: list[Any] = []
        done = threading.Event()
        self._jobs.put((fn, box, done))
        done.wait()
        ok, value = box[0]
        if not ok:
            raise value
        return value


_spawner = _Spawner()


class BotProcess:
    """A running bot process (see the module docstring). Not thread-safe: one owner at a time."""

    def __init__(self, argv: Sequence[str], *, log_path: str, env: Mapping[str, str],
                 cwd: str | None = None, cpu: int | None = None,
                 memory_limit_bytes: int | None = None, max_line_bytes: int = 65536,
                 pass_fds: Sequence[int] = (), status_from_wrapper: bool = False,
                 log_budget: logcap.LogBudget | None = None,
                 cgroups: Cgroups | None = None, max_tasks: int | None = None) -> None:
        self.argv = list(argv)
        #: argv runs a wrapper (bwrap) that reports a child killed by signal N as status 128+N
        self.status_from_wrapper = status_from_wrapper
        self._stopped = False  # the group was sent SIGKILL by `stop` (kill still to do)
        self.log_path = log_path
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._pos = 0  # where the unread bytes of _buf start (read ones are cut in bulk)
        #: (end offset in _buf, arrival ns) of each write not yet read to its end
        self._marks: deque[tuple[int, int | None]] = deque()
        self._eof = False
        self._killed = False
        self._frozen = False
        #: when `thaw` last began to resume the bot: time.perf_counter() s, time.time_ns()
        self.resumed_s = 0.0
        self.resumed_ns = 0
        self._status: int | None = None  # returncode once reaped
        #: CLOCK_REALTIME ns at which the line last returned by `read_line` reached the kernel
        #: (None if unknown)
        self.line_arrival_ns: int | None = None
        #: marks the bot's processes (inherited by all it starts; see containment)
        self.bot_id = f"{os.getpid()}-{next(_bot_ids)}-{time.time_ns() % 10**9}"
        env = {**env, **containment.bot_environment(self.bot_id)}
        containment.become_subreaper()  # orphans of a double fork come back to us
        self._orphans: set[int] = set()  # killed bot processes re-parented to us, to collect
        #: peak resident memory of the process in KiB once reaped (wait4), else None
        self.max_rss_kb: int | None = None
        #: the bot's cgroup (None: rlimits only); made before the process, so that a failure
        #: to make it is the harness's (ValueError), never the bot's
        self.cgroup: BotGroup | None = None
        self._outside: list[int] = []  # processes of its cgroup outside its process group
        if cgroups is not None:
            try:
                self.cgroup = cgroups.create(self.bot_id, memory_limit_bytes, max_tasks)
            except OSError as e:
                raise ValueError(f"cannot make the bot's cgroup: {e}") from e
        # The bot's stdout is a SOCK_SEQPACKET socket rather than a pipe: it behaves like a pipe
        # for the bot (write, EOF on close), and the kernel stamps each write on arrival, so a
        # late wake-up of the referee never counts against the bot.
        self._sock, child_out = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
        self._log = logcap.CappedLog(log_path, log_budget)
        try:
            self.popen = _spawner.run(lambda: subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=child_out.fileno(),
                stderr=self._log.child_fd,
                cwd=cwd, env=dict(env), start_new_session=True, close_fds=True, bufsize=0,
                pass_fds=tuple(pass_fds)))
        except BaseException:
            self._sock.close()
            self._log.close()
            if self.cgroup is not None:
                self.cgroup.remove(0.0)
            raise
        finally:
            child_out.close()
        self._log.started()
        self.pid = self.popen.pid
        self.pgid = self.pid  # start_new_session: the bot leads its own session and group
        # Limits are applied from here, right after exec (no preexec_fn: unsafe with threads);
        # `exec:` programs get them before their exec already (arena.wire.lifeline).
        try:
            if self.cgroup is not None:  # first: before the process can fork
                self.cgroup.add(self.pid)
            for res, value in bot_limits(memory_limit_bytes):
                resource.prlimit(self.pid, res, (value, value))
            if cpu is not None:
                os.sched_setaffinity(self.pid, {cpu})
        except ProcessLookupError:
            pass  # already gone: reported as a crash by the first read
        except OSError as e:  # e.g. a core we may not use: a harness error, not the bot's
            os.killpg(self.pgid, signal.SIGKILL)
            self.popen.wait()
            self._sock.close()
            self._log.close()
            if self.cgroup is not None:
                self.cgroup.kill_all()
                self.cgroup.remove()
            assert self.popen.stdin is not None
            self.popen.stdin.close()
            raise ValueError(f"cannot apply limits/cpu={cpu} to the bot process: {e}") from e
        assert self.popen.stdin is not None
        self._in = self.popen.stdin.fileno()
        os.set_blocking(self._in, False)
        self._sock.setblocking(False)
        self._out = self._sock.fileno()
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN | select.POLLPRI)
        self._tasks: set[int] = {self.pid}  # the processes whose threads `task_times` reads
        self._threads: list[tuple[int, int]] | None = None  # and their threads
        #: a descriptor kept open on each of those threads' schedstat (one pread a snapshot)
        self._sched_fds: dict[tuple[int, int], int] = {}
        self._blkio_before: dict[tuple[int, int], int] = {}  # `note_blkio`
        #: how many times each thread got on a CPU, at the last reading (schedstat's third
        #: field): a thread whose count did not move since its request never ran
        self.runs: dict[tuple[int, int], int] = {}
        #: the processes of its cgroup last seen in its process group, and a descriptor kept
        #: open on each one's /proc stat: while the group's tasks are all theirs, a freeze
        #: need not list the group (`_outside_group`)
        self._known: dict[int, int] = {}

    # ----------------------------------------------------------------- state
    def alive(self) -> bool:
        """Running (or stopped), its stdout open, and not killed by us."""
        return not self._eof and not self._killed and not self.exited()

    def log_size(self) -> int:
        """The size of the bot's log file, with all it wrote so far."""
        try:
            return self._log.size()
        except OSError:
            return 0

    def sync_log(self) -> None:
        """Put all the bot wrote to stderr so far into its log file (which readers open)."""
        self._log.sync()

    def log_section(self, line: str) -> None:
        """Start a new section of the log (a game's), headed by `line`: of each section the
        log keeps a bounded head and tail (`arena.referee.logcap`)."""
        self._log.section(line)

    # ------------------------------------------------------------------ I/O
    def send(self, data: bytes) -> None:
        """Write all of `data` to the bot's stdin.

        Raises BrokenPipeError if the bot closed its stdin, BlockingIOError if the pipe is full
        (a bot that does not read its input).
        """
        if self.popen.stdin is None or self.popen.stdin.closed:
            raise BrokenPipeError("the bot's stdin is closed")
        view = memoryview(data)
        while view:
            n = os.write(self._in, view)
            view = view[n:]

    def _wait_readable(self, timeout_s: float) -> bool:
        """Wait up to timeout_s for the bot's stdout to have data (or EOF)."""
        if self._out < _FD_SETSIZE:  # select(): microsecond timeouts
            readable, _, _ = select.select([self._out], [], [], timeout_s)
            return bool(readable)
        # poll() counts whole milliseconds: round up, never wake before the deadline
        return bool(self._poll.poll(math.ceil(timeout_s * 1000)))

    def _fill(self, timeout_s: float) -> bool:
        """Wait up to timeout_s for output; read what is there. False if nothing arrived."""
        if self._sock.fileno() < 0:  # closed when the process was reaped
            self._eof = True
        if self._eof or not self._wait_readable(timeout_s):
            return False
        try:
            chunk, ancdata, flags, _ = self._sock.recvmsg(self.max_line_bytes + 1, _CMSG_SPACE)
        except BlockingIOError:
            return False
        except OSError as e:
            if e.errno not in (errno.EIO, errno.EBADF, errno.ECONNRESET):
                raise
            chunk, ancdata, flags = b"", [], 0
        if flags & socket.MSG_TRUNC:
            raise LineTooLong(f"a single write of more than {self.max_line_bytes} bytes")
        if not chunk:
            self._eof = True
            return False
        arrival_ns = None
        for level, kind, data in ancdata:
            if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(data) >= 16:
                sec, nsec = struct.unpack("qq", data[:16])
                arrival_ns = sec * 1_000_000_000 + nsec
        self._buf += chunk
        self._marks.append((len(self._buf), arrival_ns))
        return True

    def _take_line(self, arrived_by_ns: int | None = None) -> bytes | None:
        """The next complete line of the buffer, or None. With `arrived_by_ns`, only a line
        whose newline reached the kernel by then (a known arrival): a later one stays.
        Linear in what is read: a write of 65536 newlines costs 65536 short steps."""
        buf = self._buf
        i = buf.find(b"\n", self._pos)
        if i < 0:
            if len(buf) - self._pos > self.max_line_bytes:
                raise LineTooLong(f"more than {self.max_line_bytes} bytes without a newline")
            return None
        used = i + 1
        marks = self._marks
        while marks and marks[0][0] < used:  # writes read to their end before this newline
            marks.popleft()
        # the line arrived with the write that brought its newline
        arrival_ns = marks[0][1] if marks else None
        if arrived_by_ns is not None and (arrival_ns is None or arrival_ns > arrived_by_ns):
            return None
        line = bytes(buf[self._pos:i])
        self._pos = used
        if marks and marks[0][0] == used:
            marks.popleft()
        self.line_arrival_ns = arrival_ns
        if used == len(buf):
            buf.clear()
            self._pos = 0
        elif used >= 65536 and 2 * used >= len(buf):  # cut what was read, now and then
            del buf[:used]
            self._marks = deque((end - used, ns) for end, ns in marks)
            self._pos = 0
        if len(line) > self.max_line_bytes:
            raise LineTooLong(f"a line of {len(line)} bytes")
        return line

    def pending_arrival_ns(self) -> int | None:
        """When the first complete line not yet returned reached the kernel (CLOCK_REALTIME
        ns; None: no such line, or no stamp): a late answer the reading left unread, read
        from the socket now if need be (a few writes at most)."""
        for _ in range(8):
            if self._buf.find(b"\n", self._pos) >= 0:
                break
            try:
                if not self._fill(0.0):
                    break
            except (LineTooLong, OSError):
                break
        i = self._buf.find(b"\n", self._pos)
        if i < 0:
            return None
        for end, ns in self._marks:
            if end > i:
                return ns
        return None

    def read_line(self, deadline_s: float) -> bytes | None:
        """The next line (without b"\\n"), or None if none is complete by `deadline_s`
        (a time.perf_counter() value); `line_arrival_ns` then tells when it arrived. Raises
        EOFError when the bot closed its stdout, and LineTooLong.

        Every read has this deadline, whatever arrives: once it has passed, only lines that
        reached the kernel by the deadline (a referee woken late still reads an answer that
        was in time) are returned, and the first write that arrived after it ends the
        reading. A bot that floods its stdout (comments included) cannot keep a caller
        reading past the deadline; callers count what they accept (the referee caps comments
        per request)."""
        deadline_ns = time.time_ns() + round((deadline_s - time.perf_counter()) * 1e9)
        while True:
            late = time.perf_counter() >= deadline_s
            line = self._take_line(deadline_ns if late else None)
            if line is not None:
                return line
            if late and self._buf.find(b"\n", self._pos) >= 0:
                return None  # a complete line, but it arrived after the deadline
            if self._eof:
                raise EOFError("the bot closed its stdout")
            remaining_s = deadline_s - time.perf_counter()
            if remaining_s <= 0:
                # One look without waiting, a write at a time: output that reached the kernel
                # by the deadline counts (its arrival time decides whether it was late); a
                # write that arrived after it ends the reading.
                if not self._fill(0.0):
                    if self._eof:
                        continue
                    return None
                arrived = self._marks[-1][1] if self._marks else None
                if arrived is None or arrived > deadline_ns:
                    return None  # any line it completes is late; the reading ends here
                continue
            self._fill(remaining_s)

    def drain(self, max_bytes: int | None = None) -> list[bytes]:
        """Complete lines the bot wrote while no request was pending (without waiting): what
        reached the kernel before this call, at most `max_bytes` of it (default: four times
        the longest line). The rest, if any, stays for the next read."""
        since_ns = time.time_ns()
        budget = 4 * (self.max_line_bytes + 1) if max_bytes is None else max_bytes
        start = len(self._buf)
        while len(self._buf) - start < budget and self._fill(0.0):
            arrived = self._marks[-1][1] if self._marks else None
            if arrived is not None and arrived > since_ns:
                break
        lines: list[bytes] = []
        while True:
            line = self._take_line()
            if line is None:
                return lines
            lines.append(line)

    # -------------------------------------------------------------- signals
    def _signal_group(self, sig: int) -> None:
        if self._killed:
            return
        try:
            os.killpg(self.pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _freezer(self) -> BotGroup | None:
        """The cgroup whose freezer stops the bot between turns: only one whose frozen tasks
        a SIGKILL still kills (cgroup v2). A task frozen by the v1 freezer ignores SIGKILL
        until thawed, so the parent-death signal of a referee killed by SIGKILL would leave
        the bot frozen on the machine: there the bot is stopped by SIGSTOP."""
        group = self.cgroup
        if group is None or self._killed or not group.kill_while_frozen:
            return None
        return group

    def _signal_all(self, sig: int) -> None:
        """`sig` to the process group and to every other process of the bot's cgroup (those
        that left the group, e.g. by `setsid` outside a sandbox; SIGCONT goes to the ones the
        last SIGSTOP found, without reading the group again)."""
        self._signal_group(sig)
        if self.cgroup is None or self._killed:
            return
        if sig == signal.SIGSTOP:
            self._outside = self._outside_group(self.cgroup)
        containment.kill_pids(self._outside, sig)

    def _outside_group(self, group: BotGroup) -> list[int]:
        """The processes of the bot's cgroup outside its process group, called right after
        the group was sent SIGSTOP (none of its processes can fork any more: a signal to the
        group pending fails a fork). The group is listed (`BotGroup.procs`: an open, a read
        and a close of a pid list, and a look at each process's group) only when its count
        of tasks (`pids.current`) is above the threads of the processes last found in the
        process group (`_known`), all still there and still in it: else its tasks are
        theirs, and none is outside. (A process moved out of the cgroup would break this
        count; only a privileged, unsandboxed bot can move one, and such a bot is trusted.)"""
        charged = group.tasks_charged()
        if charged is not None and self._known:
            threads = self._known_threads()
            if threads is not None and charged <= threads:
                return []
        procs = group.procs()
        outside = [p for p in procs if p != self.pid and _pgid(p) != self.pgid]
        inside = set(procs) - set(outside)
        for pid in set(self._known) - inside:
            _close(self._known.pop(pid))
        for pid in inside - set(self._known):
            try:
                self._known[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass
        return outside

    def _known_threads(self) -> int | None:
        """The threads of the processes in `_known`, if each is still alive and in the bot's
        process group (else None)."""
        total = 0
        for fd in self._known.values():
            try:
                st = os.pread(fd, 1024, 0).rsplit(b")", 1)[1].split()
                if int(st[2]) != self.pgid:
                    return None
                total += int(st[17])
            except (OSError, IndexError, ValueError):
                return None
        return total

    def freeze(self) -> None:
        """Freeze the bot: with a cgroup v2 freezer every task of its group (waiting until
        they are), else SIGSTOP to the whole process group and every other process of its
        cgroup (the stop takes effect when each thread is next scheduled, before it runs any
        code). No thread of the bot runs until `thaw`."""
        if not self._frozen:
            group = self._freezer()
            try:
                frozen = group is not None and group.freeze()
            except OSError:
                frozen = False
            if not frozen:
                self._signal_all(signal.SIGSTOP)
            self._frozen = True

    def freeze_settled(self, timeout_s: float) -> bool:
        """Freeze the bot and wait, up to `timeout_s`, until each of its known threads has
        stopped (or sleeps uninterruptibly, or is gone): a thread that was waiting for a CPU
        must get one to stop, and the kernel then adds that wait to its schedstat (a wait
        still going on is not in it). True once all have. A late move's verdict reads the
        bot's times after this (issue 49)."""
        self.freeze()
        threads = self._threads or [(self.pid, self.pid)]
        end = time.perf_counter() + timeout_s
        delay = 0.0002
        while True:
            states = containment.thread_states(threads)
            if all(st.state in ("T", "t", "D", "Z", "X") or any(
                    w in st.wchan for w in ("refrigerator", "freezer")) for st in states):
                return True
            if time.perf_counter() >= end:
                return False
            time.sleep(delay)
            delay = min(2 * delay, 0.005)

    def thaw(self) -> None:
        """Resume the bot; `resumed_s` and `resumed_ns` say when (just before the first
        system call that resumes it: nothing of the bot runs before)."""
        if self._frozen:
            group = self._freezer()
            self.resumed_s, self.resumed_ns = time.perf_counter(), time.time_ns()
            if group is not None:
                group.thaw()
            self._signal_all(signal.SIGCONT)  # also what a failed freeze stopped
            self._frozen = False

    def stop(self) -> None:
        """SIGKILL the process group at once (one system call; the bot stops thinking now).
        `kill` later finds and kills whatever of the bot was outside the group, and reaps.

        First the bot's known threads become SCHED_BATCH: a killed process wakes to run its
        exit (unmapping an interpreter's memory: 1-3 ms), and on the referee's own core a
        normal task preempts the referee to do it, before the verdict is out. A batch task
        never preempts on wake-up, and keeps its share of the CPU: it dies as soon as the
        referee waits (docs/benchmarks.md, the hung bot's overshoot)."""
        if not self._killed and not self._stopped:
            self._note_wrapper_children()
            _batch(containment.threads_of(self._tasks))
            self._signal_group(signal.SIGKILL)
            self._stopped = True

    def kill(self) -> None:
        """SIGKILL the whole process group (the bot and its children) and every other process
        of the bot (descendants that left the group, orphans of a double fork), then reap if it
        is dead already. Idempotent; never waits for a slow death (see `reap`)."""
        if not self._killed:
            # Look before killing (the dead are harder to place), and kill before reaping:
            # while the leader is unreaped its pid (= the pgid) is not reused.
            # After `stop`, what left the group is still found: by its mark (`bot_id`) once
            # its parent died and it was re-parented to this subreaper.
            tree: set[int]
            escaped: set[int]
            if self.status_from_wrapper:
                # a sandbox: everything of the bot is in its PID namespace, which ends when
                # the namespace's init (in this group) dies: nothing to look for outside.
                # But that init is bwrap's child: killed with bwrap, it comes back to this
                # subreaper, and is ours to collect (else a zombie per bot for as long as we
                # live)
                self._note_wrapper_children()
                tree, escaped = set(), set()
            else:
                tree, escaped = containment.find_bot_processes(self.pid, self.bot_id)
            tree.discard(self.pid)
            self._signal_group(signal.SIGKILL)
            self._killed = True
            self._orphans |= set(containment.kill_pids(tree | escaped))
            if self.cgroup is not None:  # everything in its group, wherever it went (one
                # look, no wait: what it forks meanwhile dies when the group ends, `reap`)
                containment.kill_pids(self.cgroup.procs())
        self.reap(0.0)

    def note_wrapper_children(self) -> bool:
        """`_note_wrapper_children` for a process that is not a game's bot (the door: it has
        no handshake after which the referee looks), called while it runs; True once a child
        of the wrapper was seen."""
        self._note_wrapper_children()
        return bool(self._orphans)

    def _note_wrapper_children(self) -> None:
        """Remember the sandbox wrapper's children (bwrap's init: one small /proc read, no
        scan) while the wrapper lives: when it ends (killed, or on its own: it exits as soon
        as the bot's status reaches it, without waiting for its init) they are re-parented to
        this subreaper, and `reap` collects them as orphans. Noted once the bot is running
        (`task_times(refresh=True)`, after the handshake) and again before a kill."""
        if self.status_from_wrapper and self._status is None:
            self._orphans |= set(_children(self.pid))

    def kill_escaped(self, table: containment.ProcessTable | None = None) -> list[int]:
        """SIGKILL the processes of this bot that no longer descend from it (a double fork
        re-parents them to the referee or init: they are not in the group, so a freeze misses
        them). The bot and its own descendants are left alone. Returns the pids killed.
        `table`: a recent `containment.process_table()` (else one is made)."""
        if self._killed:
            return []
        _, escaped = containment.find_bot_processes(self.pid, self.bot_id, table)
        killed = containment.kill_pids(escaped)
        self._orphans |= set(killed)
        self._orphans = containment.reap_orphans(self._orphans)
        return killed

    def exited(self) -> bool:
        """True if the process has exited, without reaping it (its pgid stays reserved)."""
        if self._status is not None:
            return True
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def wait_exit(self, timeout_s: float) -> bool:
        """Wait up to timeout_s for the process to exit (without reaping it)."""
        end = time.perf_counter() + timeout_s
        while not self.exited():
            if time.perf_counter() >= end:
                return False
            time.sleep(0.001)
        return True

    def reap(self, timeout_s: float) -> bool:
        """Collect the exit status (and peak memory), waiting up to timeout_s; then close the
        bot's pipes. True once reaped."""
        if self._orphans:
            self._orphans = containment.reap_orphans(self._orphans)
        if self._status is not None:
            return True
        end = time.perf_counter() + timeout_s
        while True:
            try:
                pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere (e.g. through Popen)
                pid, status, usage = self.pid, None, None
                self.popen.poll()
            if pid == self.pid:
                break
            if time.perf_counter() >= end:
                return False
            time.sleep(0.002)
        if status is not None:
            self.popen.returncode = os.waitstatus_to_exitcode(status)
        if usage is not None:
            self.max_rss_kb = usage.ru_maxrss
        self._status = self.popen.returncode if self.popen.returncode is not None else 0
        self._close_fds()
        self._end_group(0.0)
        return True

    def _end_group(self, timeout_s: float) -> bool:
        """Once the bot is reaped: kill what is left in its cgroup and remove the group
        (keeping its last readings). True when there is no group left."""
        group = self.cgroup
        if group is None:
            return True
        if self._status is None:
            return False
        group.kill_all(timeout_s)
        return group.remove(timeout_s)

    def settled(self) -> bool:
        """Reaped, every killed process of the bot that came back to us collected too, and
        its cgroup removed."""
        if self._orphans:
            self._orphans = containment.reap_orphans(self._orphans)
        return self._status is not None and not self._orphans and self._end_group(0.0)

    def _close_fds(self) -> None:
        try:
            if self.popen.stdin is not None:
                self.popen.stdin.close()
        except OSError:
            pass
        if self._sock.fileno() >= 0:
            # keep what is already buffered readable: drain the socket into our buffer
            with_data = True
            while with_data:
                try:
                    with_data = self._fill(0.0)
                except (LineTooLong, OSError):
                    break
            self._sock.close()
        self._log.close()  # the pipe too: nothing of the bot reaches the log any more
        self.unhold()

    def unhold(self) -> None:
        """Close the descriptors kept open for the readings of each move (its threads'
        schedstat, its known processes' stat, its cgroup's counters): the process goes idle
        until its next game (or ends), and a pool of many idle bots must not hold many
        descriptors. The next readings open them again."""
        for fd in [*self._sched_fds.values(), *self._known.values()]:
            _close(fd)
        self._sched_fds.clear()
        self._known.clear()
        if self.cgroup is not None:
            self.cgroup.release_counters()

    # ----------------------------------------------------------- scheduling
    def task_times(self, refresh: bool = False,
                   threads_only: bool = False) -> dict[tuple[int, int], tuple[int, int]]:
        """CPU and run-queue wait (ns) of the threads of the bot's processes known so far (a
        thread born later counts from zero when it shows up); `refresh` looks for processes
        and threads the bot started since (a scan of all of /proc); `threads_only` looks only
        for new threads of the processes already known (a few directory reads: what a verdict
        at the deadline can afford)."""
        if refresh or threads_only or self._threads is None:
            if refresh and not threads_only:
                tree, _ = containment.find_bot_processes(self.pid, None)
                if self.status_from_wrapper:  # bwrap and its init never run: not sampled
                    self._note_wrapper_children()  # (bwrap's init: see `kill`)
                    tree = {p for p in tree if _comm(p) != "bwrap"}
                self._tasks = tree or {self.pid}
            self._threads = containment.threads_of(self._tasks)
            for key in set(self._sched_fds) - set(self._threads):
                _close(self._sched_fds.pop(key))
        return self._sched_times(self._threads)

    def _sched_times(self, threads: Sequence[tuple[int, int]]
                     ) -> dict[tuple[int, int], tuple[int, int]]:
        """`containment.task_times` of these threads, through a descriptor kept open on each
        one's schedstat (one pread per thread; a thread gone reads as an error: left out)."""
        out: dict[tuple[int, int], tuple[int, int]] = {}
        fds = self._sched_fds
        for key in threads:
            fd = fds.get(key)
            try:
                if fd is None:
                    fd = fds[key] = os.open(f"/proc/{key[0]}/task/{key[1]}/schedstat",
                                            os.O_RDONLY | os.O_CLOEXEC)
                cpu_ns, wait_ns, runs, *_ = os.pread(fd, 256, 0).split()
                out[key] = (int(cpu_ns), int(wait_ns))
                self.runs[key] = int(runs)
            except (OSError, ValueError):
                if fd is not None:
                    _close(fds.pop(key))
        return out

    def request_unread(self) -> bool:
        """Whether bytes the referee wrote are still in the bot's stdin (FIONREAD on the
        pipe: it never read all of its request); False where that cannot be told."""
        try:
            return _unread_bytes(self._in) > 0
        except (OSError, AttributeError):
            return False

    def hold(self, cpu_ms: float, runs_before: Mapping[tuple[int, int], int]
             ) -> containment.Hold:
        """The kernel's evidence on a late move, read at its verdict (before the bot is frozen
        again): its threads' state, wait channel and system call, which of them never got on
        a CPU since the request (`runs_before`: `runs` when it was written), its freezer's
        state, its block-I/O delay during the move (delay accounting), and its request's
        bytes still unread. Without a cgroup, `cpu_ms` gains the CPU time of the bot's
        processes the referee did not know of (a /proc scan: a late move's verdict only)."""
        threads = self._threads or [(self.pid, self.pid)]
        self._sched_times(threads)  # `runs` now
        if self.cgroup is None:  # its other processes' CPU (children crowding its core are
            # its own doing): those it started since it was last looked at count whole
            tree, escaped = containment.find_bot_processes(self.pid, self.bot_id)
            others = {p for p in (tree | escaped) - set(self._tasks)  # not the sandbox's own
                      if not (self.status_from_wrapper and _comm(p) == "bwrap")}
            cpu_ms += sum(c for c, _ in containment.task_times(others).values()) / 1e6
        states = containment.thread_states(threads)
        never = {k for k in threads if k in runs_before and self.runs.get(k) == runs_before[k]}
        states = [dataclasses.replace(s, ran=(s.pid, s.tid) not in never) for s in states]
        missing = []
        if self.cgroup is None:
            missing.append("no cgroup: no CPU weight given to the bot, no freezer, its "
                           "children's CPU not counted")
        freezer = "" if self.cgroup is None else self.cgroup.freezer_state()
        blkio = None
        if containment.delayacct_on():
            blkio = containment.blkio_ms(self._blkio_before,
                                         [st for st in states if st.pid == st.tid])
        else:
            missing.append("kernel.task_delayacct off: no block-I/O delay")
        try:
            waiting = self._sock.fileno() >= 0 and _unread_bytes(self._sock.fileno()) > 0
        except OSError:
            waiting = False
        return containment.Hold(cpu_ms, tuple(states), self.request_unread(), freezer, blkio,
                                tuple(missing), waiting)

    def note_blkio(self) -> None:
        """Remember the block-I/O delay (delay accounting) of each known process's main
        thread at a request's start, for `hold`: one /proc read per process while delay
        accounting is on, none while it is off (a JVM's other threads are not read: a
        request's cost stays flat)."""
        self._blkio_before = (containment.blkio_ticks([(p, p) for p in self._tasks])
                              if containment.delayacct_on() else {})

    def close(self, quit_message: bytes | None = None, grace_s: float = 0.2) -> None:
        """End the process: optionally send a quit message and give it `grace_s` to exit, then
        kill the whole group (children included) and reap it."""
        if quit_message is not None and self.alive():
            self.thaw()
            try:
                self.send(quit_message)
            except OSError:
                pass
            self.wait_exit(grace_s)
        self.kill()
        if not self.reap(1.0):
            self._close_fds()  # a process that will not die (uninterruptible): still no leak
        end = time.perf_counter() + 0.5
        while not self.settled() and time.perf_counter() < end:
            time.sleep(0.005)
        if self.cgroup is not None and self._status is None:  # a process that will not die
            self.cgroup.kill_all(0.5)
            self.cgroup.remove(0.5)

    # ------------------------------------------------------------------- cgroup
    def memory_peak_bytes(self) -> int | None:
        """The most memory the bot's cgroup held (None without a cgroup): since the last
        `reset_peak` on cgroup v1, since the bot started on v2."""
        return None if self.cgroup is None else self.cgroup.memory_peak_bytes()

    def peak_kb(self) -> int | None:
        """The bot's peak memory in KiB as best known: its process's peak resident memory
        (`wait4`, `max_rss_kb`) or, where larger (a sandbox, whose reaped process is bwrap),
        its cgroup's peak."""
        group = None if self.cgroup is None else self.cgroup.memory_peak_bytes() // 1024
        known = [k for k in (self.max_rss_kb, group) if k]
        return max(known) if known else None

    def reset_peak(self) -> None:
        if self.cgroup is not None:
            self.cgroup.reset_peak()

    def cpu_usage_ns(self) -> int | None:
        """CPU time of everything in the bot's cgroup so far (None where not counted)."""
        return None if self.cgroup is None else self.cgroup.cpu_usage_ns()

    def limit_fault(self) -> str | None:
        """What the bot did beyond its cgroup's limits ("used more than 256 MiB; peak 256.0
        MiB", "tried to run more than 256 tasks ..."), or None."""
        group = self.cgroup
        if group is None:
            return None
        try:
            if group.memory_limit_hit():
                limit = group.memory_limit_bytes or 0
                peak = group.memory_peak_bytes()
                return (f"ran out of memory: used more than {limit / 2**20:g} MiB; peak "
                        f"{peak / 2**20:.1f} MiB")
            refused = group.pids_limit_hits()
            if refused:
                return (f"tried to run more than {group.pids_max} tasks (processes and "
                        f"threads) at once; {refused} refused")
        except (OSError, ValueError):
            return None
        return None

    # ---------------------------------------------------------- post mortem
    def describe_exit(self, wait_s: float = 0.3) -> str:
        """How the process ended ("exited with status 3", "was killed by signal SIGSEGV"), or ""
        if it is still running after wait_s."""
        if not self.wait_exit(wait_s):
            return ""
        self.reap(0.5)
        code = self.popen.returncode
        if code is None:
            return ""
        if self.status_from_wrapper and 128 < code < 128 + signal.NSIG:
            code = 128 - code
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = str(-code)
            return f"was killed by signal {name}"
        return f"exited with status {code}"

    def stderr_tail(self, since: int = 0, max_lines: int = 20, max_chars: int = 2000) -> str:
        """The last lines the bot wrote to stderr after byte offset `since`, trimmed."""
        self._log.sync()
        try:
            with open(self.log_path, "rb") as f:
                size = f.seek(0, os.SEEK_END)
                start = max(since, size - 4 * max_chars)
                f.seek(start)
                data = f.read()
        except OSError:
            return ""
        text = data.decode("utf-8", "replace")
        lines = [line.rstrip()[:300] for line in text.splitlines() if line.strip()]
        tail = "\n".join(lines[-max_lines:])
        return tail[-max_chars:]


def _batch(threads: Sequence[tuple[int, int]]) -> None:
    """Make these (pid, tid) threads SCHED_BATCH (no wake-up preemption; allowed to the
    owner of a process without privilege), skipping those that are gone."""
    for _, tid in threads:
        try:
            os.sched_setscheduler(tid, os.SCHED_BATCH, os.sched_param(0))
        except OSError:
            pass


def _unread_bytes(fd: int) -> int:
    """The bytes waiting in a pipe (FIONREAD works on either end)."""
    buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", buf)[0])


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass


def _children(pid: int) -> list[int]:
    """The direct children of a (single-threaded) process; [] if it is gone."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


def _comm(pid: int) -> str:
    """The command name of a process ("" if it is gone)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def _pgid(pid: int) -> int:
    """The process group of a process (-1 if it is gone)."""
    try:
        return os.getpgid(pid)
    except OSError:
        return -1
