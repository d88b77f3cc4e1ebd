"""Capped bot logs: a bot's stderr goes to a pipe, drained continuously, and each game's part of
its log keeps only a bounded head and tail.

`CappedLog` is the log of one bot process. The bot's stderr (`child_fd`, given to Popen) is the
write end of a pipe whose read end one daemon thread per process (`_Drainer`, a single epoll
loop serving every bot of every Referee of the process) reads as soon as anything arrives, so a
bot writing megabytes never waits on the referee, and the referee's own thread never reads it.

The log is cut into sections: what the process wrote before its first game, then one section
per game, each starting with the game's header line (`CappedLog.section`). Of each section the
file keeps the first `head` bytes and the last `tail` bytes exactly, with one line between them
saying how many bytes were cut (`marker`): whatever a bot writes, a section stays under
head + tail + ~60 bytes (64 + 64 KiB by default, `arena.defaults`). The head is written as it
arrives; the tail is held in memory and written behind the head whenever someone reads the log
(`sync`), when the section ends, when the process ends, and at most every `FLUSH_S` while the
bot writes (so a referee killed mid-game still leaves a recent tail on disk).

A `LogBudget` counts the bytes of all logs of one results folder (or league) in a small file
shared by every process that writes there (under `flock`). A section starts with a head and a
tail only if its worst case still fits the budget (reserved until the section ends, then the
unused part given back); past it, a section keeps only its last `over_budget_tail` bytes (4 KiB
by default), its marker saying why, so the disk use of the logs stays bounded whatever bots
write: the budget plus a few KiB per game.

When the process is reaped (`close`), what is left in the pipe is read, the read end closed (a
forked child still writing gets EPIPE and no more of its bytes reach the disk) and the section
finished. Nothing here knows the protocol or the referee.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import threading
import time

from arena import defaults

__all__ = ["BUDGET_FILE", "CappedLog", "HeadTail", "LogBudget", "marker", "over_budget_note"]

#: the name of the budget counter in a log folder (a results folder's logs/)
BUDGET_FILE = ".cxarena-log-budget"
#: how often (at most) the tail of a section being written is put on disk
FLUSH_S = 1.0
#: bytes read from a bot's pipe in one go
_READ_BYTES = 1 << 18
#: the pipe's size asked for (a flooding bot writes more between two reads); the kernel may
#: refuse (a user's pipes share a quota), then the default 64 KiB stays
_PIPE_BYTES = 1 << 18
#: most bytes one drain of one pipe takes before serving the others (fairness), and before a
#: reader of the log (`sync`) stops chasing a bot that is still writing
_DRAIN_LIMIT = 4 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
#: the most a marker line takes (20-digit counts with separators, the note)
MARKER_MAX = 120
_HEADER_MAX = 2000


def marker(cut: int, note: str = "") -> bytes:
    """The line between a section's head and tail: how many bytes cxarena left out (and why,
    past a budget)."""
    return f"\n[... {cut:,} bytes cut by cxarena{note} ...]\n".encode()


def over_budget_note(limit_bytes: int, tail: int) -> str:
    """The marker's note in a section kept only as its tail."""
    return (f": the bot logs here reached their budget of {limit_bytes / 2**20:g} MiB, so only "
            f"the last {tail:,} bytes of each game are kept")


class HeadTail:
    """The first `head` and the last `tail` bytes of a stream, and how many lay between.

    `feed` returns the bytes that belong to the head (the caller writes them out at once); the
    tail is kept here. `rest()` is what follows the head: the tail, after a `marker` if bytes
    were cut. head + rest() is the whole stream if it fits, else stream[:head] + marker +
    stream[-tail:].
    """

    def __init__(self, head: int, tail: int, note: str = "") -> None:
        if head < 0 or tail < 0:
            raise ValueError("head and tail must be >= 0")
        self.note = note
        self.head = head
        self.tail_max = tail
        self.head_len = 0
        self.total = 0
        self.tail = bytearray()

    def feed(self, data: bytes) -> bytes:
        self.total += len(data)
        take = b""
        room = self.head - self.head_len
        if room > 0:
            take = data[:room]
            self.head_len += len(take)
            data = data[room:]
        if data and self.tail_max:
            if len(data) >= self.tail_max:
                self.tail[:] = data[len(data) - self.tail_max:]
            else:
                self.tail += data
                excess = len(self.tail) - self.tail_max
                if excess > 0:
                    del self.tail[:excess]
        return take

    @property
    def cut(self) -> int:
        return self.total - self.head_len - len(self.tail)

    def rest(self) -> bytes:
        return (marker(self.cut, self.note) if self.cut else b"") + bytes(self.tail)


class LogBudget:
    """The bytes of bot logs charged to one folder, counted in the file `path` (shared by every
    process that logs there: each update holds an `flock`). A budget of None: unlimited."""

    def __init__(self, path: str, limit_bytes: int | None) -> None:
        self.path = path
        self.limit_bytes = limit_bytes
        self._lock = threading.Lock()
        self._fd = -1
        #: bytes this instance charged and did not give back (see `release_all`)
        self.charged = 0

    def _update(self, fn: object) -> bool:
        """Apply fn(used) -> new used or None (refused) under the lock; False if refused."""
        assert callable(fn)
        with self._lock:
            try:
                if self._fd < 0:
                    os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                    self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
                fcntl.flock(self._fd, fcntl.LOCK_EX)
                try:
                    raw = os.pread(self._fd, 64, 0).strip()
                    used = int(raw) if raw.isdigit() else 0
                    new = fn(used)
                    if new is None:
                        return False
                    data = b"%d\n" % max(0, new)
                    os.pwrite(self._fd, data, 0)
                    os.ftruncate(self._fd, len(data))
                    return True
                finally:
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
            except OSError:  # no counter (a read-only or vanished folder): do as if unlimited
                return True

    def reserve(self, n: int) -> bool:
        """Charge n bytes if they fit the budget; False (nothing charged) if not."""
        limit = self.limit_bytes
        ok = self._update(lambda used: used + n if limit is None or used + n <= limit else None)
        if ok:
            with self._lock:
                self.charged += n
        return ok

    def charge(self, n: int) -> None:
        """Charge n bytes (may be negative: a refund) whether or not they fit."""
        if n:
            self._update(lambda used: used + n)
            with self._lock:
                self.charged += n

    def used(self) -> int:
        box = [0]

        def look(used: int) -> None:
            box[0] = used
            return None
        self._update(look)
        return box[0]

    def release_all(self) -> None:
        """Give back everything this instance charged (its logs were removed)."""
        self.charge(-self.charged)

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


class CappedLog:
    """The capped log file of one bot process (see the module docstring). `child_fd` is the
    bot's stderr; call `started()` once the process is started (or `close()` if it is not)."""

    def __init__(self, path: str, budget: LogBudget | None = None, *,
                 head: int = defaults.BOT_LOG_HEAD_KB * 1024,
                 tail: int = defaults.BOT_LOG_TAIL_KB * 1024,
                 over_budget_tail: int = defaults.LOG_TAIL_OVER_BUDGET_KB * 1024) -> None:
        self.path = path
        self.budget = budget
        self.head, self.tail, self.over_budget_tail = head, tail, over_budget_tail
        self._lock = threading.Lock()
        self._file = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._r, self.child_fd = os.pipe()  # both not inheritable; Popen dup2s child_fd to 2
        os.set_blocking(self._r, False)  # the bot's end stays blocking (as a file would be)
        try:
            fcntl.fcntl(self._r, _F_SETPIPE_SZ, _PIPE_BYTES)
        except OSError:
            pass
        self._end = os.lseek(self._file, 0, os.SEEK_END)  # appends to an existing file
        self._closed = False
        self._dirty = False  # the tail in memory is newer than the file's
        self._flushed_s = time.monotonic()
        self._reserved = 0  # budget charged for the current section (its worst case)
        self._section_start = self._end
        self._ht = self._new_section()

    # -------------------------------------------------------------- sections
    def _new_section(self) -> HeadTail:
        self._section_start = self._end
        worst = self.head + self.tail + MARKER_MAX
        if self.budget is None or self.budget.reserve(worst):
            self._reserved = worst if self.budget is not None else 0
            return HeadTail(self.head, self.tail)
        self._reserved = 0
        limit = self.budget.limit_bytes or 0
        return HeadTail(0, self.over_budget_tail, over_budget_note(limit, self.over_budget_tail))

    def _finish_section(self) -> None:
        self._materialise()
        if self.budget is not None:
            self.budget.charge(self._end - self._section_start - self._reserved)
        self._reserved = 0

    def _write_line(self, text: str) -> None:
        data = (text[:_HEADER_MAX] + "\n").encode("utf-8", "replace")
        os.pwrite(self._file, data, self._end)
        self._end += len(data)
        if self.budget is not None:
            self.budget.charge(len(data))

    def _materialise(self) -> None:
        """Put the section's tail (after its marker) on disk behind its head."""
        if not self._dirty:
            return
        at = self._section_start + self._ht.head_len
        block = self._ht.rest()
        os.pwrite(self._file, block, at)
        self._end = at + len(block)
        os.ftruncate(self._file, self._end)
        self._dirty = False
        self._flushed_s = time.monotonic()

    # ------------------------------------------------------------------ input
    def _feed(self, data: bytes) -> None:
        take = self._ht.feed(data)
        if take:  # the head is written at once (no tail yet: it ends the file)
            at = self._section_start + self._ht.head_len - len(take)
            os.pwrite(self._file, take, at)
            self._end = at + len(take)
        if len(take) < len(data):
            self._dirty = True

    def _pump(self, limit: int) -> bool:
        """Read what the pipe holds (up to `limit` bytes); True at end of file (every writer
        gone). Holds the lock."""
        got = 0
        while got < limit and self._r >= 0:
            try:
                data = os.read(self._r, _READ_BYTES)
            except BlockingIOError:
                return False
            except OSError as e:
                if e.errno == errno.EINTR:
                    continue
                data = b""
            if not data:
                _drainer.remove(self)
                os.close(self._r)
                self._r = -1
                return True
            got += len(data)
            try:
                self._feed(data)
            except OSError:  # the disk is full: the bytes are dropped, the bot goes on
                pass
        return False

    def drain(self) -> None:
        """Called by the drainer thread when the pipe is readable."""
        with self._lock:
            if not self._closed:
                self._pump(_DRAIN_LIMIT)
                if self._dirty and time.monotonic() - self._flushed_s >= FLUSH_S:
                    self._safe(self._materialise)

    def flush_if_due(self) -> None:
        with self._lock:
            if not self._closed and self._dirty and \
                    time.monotonic() - self._flushed_s >= FLUSH_S:
                self._safe(self._materialise)

    @staticmethod
    def _safe(fn: object) -> None:
        assert callable(fn)
        try:
            fn()
        except OSError:
            pass

    # ------------------------------------------------------------------ API
    def started(self) -> None:
        """The process has its copy of the pipe's write end: close ours, start draining."""
        if self.child_fd >= 0:
            os.close(self.child_fd)
            self.child_fd = -1
        _drainer.add(self)

    def sync(self) -> None:
        """Take what the bot wrote so far and put the log's current state on disk."""
        with self._lock:
            if not self._closed:
                self._pump(_DRAIN_LIMIT)
                self._safe(self._materialise)

    def size(self) -> int:
        """The size of the log file once synced."""
        self.sync()
        with self._lock:
            return self._end

    def section(self, line: str) -> None:
        """End the current section and start one headed by `line` (a game's header)."""
        with self._lock:
            if self._closed:
                return
            self._pump(_DRAIN_LIMIT)
            try:
                self._finish_section()
                self._write_line(line)
            except OSError:
                pass
            self._ht = self._new_section()

    def close(self) -> None:
        """The process is gone: take what is left in the pipe, close it (no writer of the bot
        reaches the log any more), finish the section. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._pump(_DRAIN_LIMIT)
            self._closed = True
            if self._r >= 0:
                _drainer.remove(self)
                os.close(self._r)
                self._r = -1
            if self.child_fd >= 0:
                os.close(self.child_fd)
                self.child_fd = -1
            self._safe(self._finish_section)
            os.close(self._file)

    @property
    def read_fd(self) -> int:
        return self._r


class _Drainer:
    """One daemon thread per process reading every bot's stderr pipe as soon as it has data
    (an epoll loop), and putting due tails on disk."""

    def __init__(self) -> None:
        self._reset()
        if hasattr(os, "register_at_fork"):  # a forked child has no copy of the thread
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        old = getattr(self, "_epoll", None)
        if old is not None:  # a forked child's copy of its parent's
            old.close()
        self._lock = threading.Lock()
        self._pid = -1
        self._epoll: select.epoll | None = None
        self._logs: dict[int, CappedLog] = {}

    def add(self, log: CappedLog) -> None:
        with self._lock:
            if self._pid != os.getpid() or self._epoll is None:
                self._pid = os.getpid()
                self._epoll = select.epoll()
                self._logs = {}
                threading.Thread(target=self._loop, args=(self._epoll,), name="cxarena-logs",
                                 daemon=True).start()
            fd = log.read_fd
            if fd >= 0:
                self._logs[fd] = log
                self._epoll.register(fd, select.EPOLLIN)

    def remove(self, log: CappedLog) -> None:
        """Forget the log (called with its lock held, before its pipe is closed)."""
        with self._lock:
            fd = log.read_fd
            if self._logs.get(fd) is log:
                del self._logs[fd]
                if self._epoll is not None:
                    try:
                        self._epoll.unregister(fd)
                    except OSError:
                        pass

    def _loop(self, ep: select.epoll) -> None:
        next_flush = time.monotonic() + FLUSH_S
        while True:
            try:
                events = ep.poll(FLUSH_S)
            except InterruptedError:
                continue
            for fd, _ in events:
                with self._lock:
                    log = self._logs.get(fd)
                if log is not None:  # (a closed log's fd may be a new log's now: harmless)
                    log.drain()
            now = time.monotonic()
            if now >= next_flush:
                next_flush = now + FLUSH_S
                with self._lock:
                    logs = list(self._logs.values())
                for log in logs:
                    log.flush_if_due()


_drainer = _Drainer()
