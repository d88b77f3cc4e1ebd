"""Control groups: one cgroup per bot process tree, so that everything a bot starts is counted
and can be frozen and killed together.

`detect()` says what this machine offers (a frozen `Support`, once per process):

- **cgroup v2** where this process's own cgroup (``0::PATH`` of /proc/self/cgroup, under the
  cgroup2 mount) is writable and offers the `memory` and `pids` controllers: a delegated
  subtree (``systemd-run --user --scope -p Delegate=yes -- cxarena ...``, or root). The
  referee's own processes move to a leaf ``cxarena-referee`` beside the bots (cgroup v2
  allows processes only in leaves once controllers are enabled below a group);
- **cgroup v1** (hierarchies per controller, as root): `memory` and `pids` are needed,
  `cpu`, `cpuacct` and `freezer` are used where mounted;
- otherwise **none**: the rlimits of `arena.referee.process` alone (shared memory and the
  children of a bot are then not counted).

The bots' groups live in a folder ``cxarena`` below this process's own cgroup (in each v1
hierarchy), one per bot process, named ``o<PID>.<STARTTIME>.<BOT_ID>`` after the referee
process that owns it. `Cgroups.cleanup()` (run once by the first `Cgroups.create`) kills
and removes the groups whose owner is dead, like `containment.kill_leftovers`.

**The bot to move gets its core.** Where the `cpu` controller is there, the folder ``cxarena``
gets the highest CPU weight (`defaults.BOTS_CPU_SHARES` on v1, `defaults.BOTS_CPU_WEIGHT` on
v2) against what sits beside it: on v1 as root, every other task and group of the machine in
this process's cpu group (a busy process of nice 0 weighs 1024 against 262144); in a
delegated v2 subtree, only what runs inside the subtree (the parent's weight is not ours to
set). Only the bot to move is runnable (the other is stopped between turns), so the weight
goes to it; the bots' own groups keep the default weight among themselves.

`BotGroup` is one bot's group: `add(pid)`, the memory limit (v1 ``memory.limit_in_bytes`` and
``memory.memsw.limit_in_bytes``; v2 ``memory.max`` and ``memory.swap.max`` 0: no swap; every
page charged to the group counts, shmem, memfd and tmpfs pages included), the task cap
(``pids.max``: processes and threads), peak memory, whether either limit was hit, CPU time of
the whole group, freeze/thaw (the freezer), `kill_all` and `remove`.

Nothing here knows the protocol or the game: `arena.referee.process` and the referee decide
when to use it.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena import defaults
from arena.records import RLIMITS_ONLY
from arena.referee.containment import owner_mark

__all__ = ["BACKENDS", "BotGroup", "Cgroups", "Support", "detect", "group_name", "open_cgroups",
           "probe_v1", "probe_v2", "summary"]

#: the values of `Support.backend`
BACKENDS = ("v1", "v2", "none")
#: the folder (below this process's own cgroup) that holds the bots' groups
FOLDER = "cxarena"
#: the leaf the referee's own processes move to under cgroup v2 (no processes in inner groups)
REFEREE_LEAF = "cxarena-referee"
_V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
_V1_NEEDED = ("memory", "pids")
_V2_NEEDED = ("memory", "pids")
_NAME = re.compile(r"^o(\d+)\.(\d+)\.")
_FREEZE_TIMEOUT_S = 1.0
_RMDIR_TIMEOUT_S = 1.0
DELEGATE_HINT = "systemd-run --user --scope -p Delegate=yes -- cxarena ..."


@dataclass(frozen=True)
class Support:
    """What this machine offers for containment (see the module docstring)."""

    backend: str  # v1 | v2 | none
    controllers: tuple[str, ...] = ()
    delegated: bool = False  # a subtree this process may write (as root: the whole tree)
    reason: str = ""  # why not (backend none), or what is missing
    #: where the bots' parent groups are made: (controller, folder) for v1, ("", folder) for v2
    roots: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def available(self) -> bool:
        return self.backend != "none"

    @property
    def version(self) -> int | None:
        return {"v1": 1, "v2": 2}.get(self.backend)

    def summary(self) -> str:
        """One line: "containment: cgroup v1 (memory, pids, cpu, cpuacct, freezer)"."""
        if not self.available:
            return f"containment: {RLIMITS_ONLY}{task_cap_note()}"
        return f"containment: cgroup {self.backend} ({', '.join(self.controllers)})"


def task_cap_note() -> str:
    """What caps a bot's tasks without a cgroup: RLIMIT_NPROC in the sandbox's own user
    namespace (`arena.referee.process.task_cap`), which the kernel does not apply to uid 0."""
    if os.geteuid() == 0:
        return "; no task cap (root is exempt from RLIMIT_NPROC)"
    return "; a sandboxed bot's tasks capped by RLIMIT_NPROC"


# ------------------------------------------------------------------------------- detection
def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root within the filesystem, type, super options) of each cgroup mount."""
    out = []
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        parts, rparts = left.split(), right.split()
        if len(parts) < 5 or len(rparts) < 3 or rparts[0] not in ("cgroup", "cgroup2"):
            continue
        point = parts[4].replace("\\040", " ")
        out.append((point, parts[3], rparts[0], set(rparts[2].split(","))))
    return out


def _own_paths(self_cgroup: str) -> dict[str, str]:
    """Controller -> this process's cgroup path ("" is the cgroup v2 entry)."""
    own: dict[str, str] = {}
    for line in self_cgroup.splitlines():
        _, _, rest = line.partition(":")
        ctrls, _, path = rest.partition(":")
        if not ctrls:
            own[""] = path
        for c in ctrls.split(","):
            own[c] = path
    return own


def _under(mount: str, mount_root: str, path: str) -> str:
    """The folder of cgroup `path` in a hierarchy mounted at `mount` (showing `mount_root`)."""
    rel = path
    if mount_root not in ("/", "") and (path == mount_root or path.startswith(mount_root + "/")):
        rel = path[len(mount_root):]
    return os.path.join(mount, rel.lstrip("/")).rstrip("/") or "/"


def _writable(folder: str, *files: str) -> bool:
    return os.access(folder, os.W_OK) and all(
        os.access(os.path.join(folder, f), os.W_OK) for f in files)


def probe_v2(folder: str) -> Support:
    """Cgroup v2 at `folder`, this process's own group (a real one or a test's fake tree)."""
    try:
        available = _read(os.path.join(folder, "cgroup.controllers")).split()
    except OSError as e:
        return Support("none", reason=f"cgroup v2: cannot read {folder}: {e.strerror}")
    missing = [c for c in _V2_NEEDED if c not in available]
    if missing:
        return Support("none", reason=f"cgroup v2: controller {', '.join(missing)} not "
                                      f"available in {folder}")
    if not _writable(folder, "cgroup.procs", "cgroup.subtree_control"):
        return Support("none", reason=f"cgroup v2: {folder} is not delegated to this user")
    used = [c for c in ("memory", "pids", "cpu") if c in available] + ["freezer"]
    return Support("v2", tuple(used), delegated=True, roots=(("", folder),))


def probe_v1(mounts: list[tuple[str, str, str, set[str]]], own: dict[str, str]) -> Support:
    """Cgroup v1 hierarchies (memory and pids needed; cpuacct and freezer where mounted)."""
    roots = []
    for ctrl in _V1_CONTROLLERS:
        for point, mroot, kind, opts in mounts:
            if kind == "cgroup" and ctrl in opts:
                folder = _under(point, mroot, own.get(ctrl, "/"))
                if _writable(folder, "cgroup.procs"):
                    roots.append((ctrl, folder))
                break
    have = [c for c, _ in roots]
    missing = [c for c in _V1_NEEDED if c not in have]
    if missing:
        return Support("none", reason=f"cgroup v1: no writable {', '.join(missing)} hierarchy "
                                      "(run as root, or delegate a cgroup v2 subtree)")
    return Support("v1", tuple(have), delegated=True, roots=tuple(roots))


@functools.lru_cache(maxsize=1)
def detect() -> Support:
    """What this machine offers (once per process; see the module docstring)."""
    try:
        mounts = _mounts(_read("/proc/self/mountinfo"))
        own = _own_paths(_read("/proc/self/cgroup"))
    except OSError as e:
        return Support("none", reason=f"cannot read /proc: {e.strerror}")
    reasons = []
    v2 = [(point, mroot) for point, mroot, kind, _ in mounts if kind == "cgroup2"]
    if v2 and "" in own:
        point, mroot = v2[0]
        path = own[""]
        if os.path.basename(path) == REFEREE_LEAF:  # a referee moved there (or its worker)
            path = os.path.dirname(path)
        found = probe_v2(_under(point, mroot, path))
        if found.available:
            return found
        reasons.append(found.reason)
    if any(kind == "cgroup" for _, _, kind, _ in mounts):
        found = probe_v1(mounts, own)
        if found.available:
            return found
        reasons.append(found.reason)
    if not mounts:
        reasons.append("no cgroup file system is mounted")
    return Support("none", reason="; ".join(reasons))


# ------------------------------------------------------------------------------- groups
def group_name(bot_id: str) -> str:
    """The group name of a bot of this referee process: o<PID>.<STARTTIME>.<BOT_ID>."""
    pid, _, start = owner_mark().partition(":")
    return f"o{pid}.{start}.{bot_id}"


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _int_or(path: str, default: int = 0) -> int:
    try:
        text = _read(path).strip()
    except OSError:
        return default
    return default if text in ("", "max") else int(text)


def _parse_keyed(text: str) -> dict[str, int]:
    """The integers of a flat keyed file's text ("key value" lines: memory.events, cpu.stat,
    memory.oom_control)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if value.strip().lstrip("-").isdigit():
            out[key] = int(value)
    return out


def _keyed(path: str) -> dict[str, int]:
    """A flat keyed file, {} where it cannot be read."""
    try:
        return _parse_keyed(_read(path))
    except OSError:
        return {}


class BotGroup:
    """One bot's cgroup (in each v1 hierarchy, or one v2 folder). See the module docstring."""

    def __init__(self, backend: str, folders: dict[str, str], name: str) -> None:
        self.backend = backend
        self.name = name
        #: controller -> folder of this group (v2: every controller -> the one folder)
        self.folders = folders
        self.memory_limit_bytes: int | None = None
        self.pids_max: int | None = None
        self._removed = False
        #: told (once) when `remove` gives up with the group still there: its `Cgroups`
        #: retries it later (see `Cgroups.retry_leftovers`)
        self.on_left: Callable[[BotGroup], None] | None = None
        #: the last readings, kept once the group is removed
        self._peak = 0
        self._memory_hit = False
        self._pids_hit = 0
        #: counter file -> a descriptor kept open on it: a counter read per move is one
        #: `pread` instead of an open, a read and a close (closed by `release_counters`, at
        #: the end of each game, and by `remove`)
        self._fds: dict[str, int] = {}
        self._paths: dict[tuple[str, str], str | None] = {}  # what `_path` made
        self._absent: set[str] = set()  # files `reset_peak` found missing (looked for once)

    # ---------------------------------------------------------------- paths
    def _path(self, ctrl: str, file: str) -> str | None:
        key = (ctrl, file)
        try:
            return self._paths[key]
        except KeyError:
            folder = self.folders.get(ctrl)
            path = self._paths[key] = None if folder is None else os.path.join(folder, file)
            return path

    def _any_folder(self) -> str:
        return self.folders.get("pids") or next(iter(self.folders.values()))

    @property
    def has_freezer(self) -> bool:
        return "freezer" in self.folders

    @property
    def kill_while_frozen(self) -> bool:
        """A SIGKILL kills a frozen task (cgroup v2); the v1 freezer holds it until thawed."""
        return self.backend == "v2" and self.has_freezer

    @property
    def has_cpu(self) -> bool:
        return "cpuacct" in self.folders or self.backend == "v2"

    def _counter(self, path: str) -> str:
        """The text of a counter file (a flat value or "key value" lines, generated anew by
        each read from offset 0), read with one `pread` on a descriptor kept open. Never for
        a pid list (cgroup v1 ``cgroup.procs`` and ``tasks``: a descriptor kept open repeats
        the list it first read). Raises OSError like `open`."""
        fd = self._fds.get(path)
        if fd is None:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            self._fds[path] = fd
        try:
            return os.pread(fd, 4096, 0).decode()
        except OSError:
            self._fds.pop(path, None)
            os.close(fd)
            raise

    def _poke(self, path: str, value: bytes) -> None:
        """Write `value` to a control file through a descriptor kept open (each write is
        taken on its own: one `pwrite`). Raises OSError like `open`."""
        key = "w:" + path
        fd = self._fds.get(key)
        if fd is None:
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            self._fds[key] = fd
        try:
            os.pwrite(fd, value, 0)
        except OSError:
            self._fds.pop(key, None)
            os.close(fd)
            raise

    def _counter_int(self, path: str | None, default: int = 0) -> int:
        """A counter file's number (`default` where it is absent, empty or "max")."""
        try:
            text = "" if path is None else self._counter(path).strip()
        except OSError:
            return default
        return default if text in ("", "max") else int(text)

    def _counter_keyed(self, path: str | None) -> dict[str, int]:
        """A flat keyed counter file ("key value" lines), {} where it is absent."""
        try:
            return _parse_keyed("" if path is None else self._counter(path))
        except OSError:
            return {}

    def release_counters(self) -> None:
        """Close the descriptors kept open on its files (the next reading opens them again):
        when the bot goes idle between games, so that many idle bots hold no more of them."""
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            try:
                os.close(fd)
            except OSError:
                pass

    # ---------------------------------------------------------------- setup
    def _limit(self, memory_limit_bytes: int | None, pids_max: int | None) -> None:
        self.memory_limit_bytes, self.pids_max = memory_limit_bytes, pids_max
        mem = self.folders.get("memory")
        if self.backend == "v1":
            assert mem is not None
            if memory_limit_bytes is not None:
                _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory_limit_bytes))
                memsw = os.path.join(mem, "memory.memsw.limit_in_bytes")
                if os.path.exists(memsw):  # memory + swap = memory: nothing goes to swap
                    _write(memsw, str(memory_limit_bytes))
                swappiness = os.path.join(mem, "memory.swappiness")
                if os.path.exists(swappiness):
                    try:
                        _write(swappiness, "0")
                    except OSError:
                        pass
            if pids_max is not None:
                _write(os.path.join(self.folders["pids"], "pids.max"), str(pids_max))
        else:
            folder = self._any_folder()
            if memory_limit_bytes is not None:
                _write(os.path.join(folder, "memory.max"), str(memory_limit_bytes))
                try:  # no swap (absent where the kernel does not account swap)
                    _write(os.path.join(folder, "memory.swap.max"), "0")
                except OSError:
                    pass
            if pids_max is not None:
                _write(os.path.join(folder, "pids.max"), str(pids_max))

    def add(self, pid: int) -> None:
        """Move process `pid` (with its threads) into the group, in every hierarchy."""
        for folder in dict.fromkeys(self.folders.values()):
            _write(os.path.join(folder, "cgroup.procs"), str(pid))

    # ---------------------------------------------------------------- readings
    def memory_bytes(self) -> int:
        """Memory charged to the group now."""
        if self.backend == "v1":
            path = self._path("memory", "memory.usage_in_bytes")
        else:
            path = self._path("memory", "memory.current")
        return self._counter_int(path)

    def memory_peak_bytes(self) -> int:
        """The most memory charged to the group (since it was made or `reset_peak`)."""
        if self._removed:
            return self._peak
        if self.backend == "v1":
            peak = max(self._counter_int(self._path("memory", "memory.max_usage_in_bytes")),
                       self._counter_int(self._path("memory", "memory.memsw.max_usage_in_bytes")))
        else:
            peak = self._counter_int(self._path("memory", "memory.peak"), -1)
            if peak < 0:  # before Linux 5.19: what it uses now
                peak = self.memory_bytes()
        self._peak = max(peak, self.memory_bytes())
        return self._peak

    def reset_peak(self) -> None:
        """Start the peak anew (v1; v2's memory.peak is per open file since Linux 6.12, so a
        v2 peak runs from the group's start)."""
        if self.backend == "v1" and not self._removed:
            for file in ("memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes"):
                path = self._path("memory", file)
                if path is None or path in self._absent:
                    continue
                try:
                    self._poke(path, b"0")
                except FileNotFoundError:  # (memsw: where the kernel accounts swap)
                    self._absent.add(path)
                except OSError:
                    pass

    def memory_limit_hit(self) -> bool:
        """The group ran out of memory (an allocation found it full and nothing could be
        reclaimed: the kernel's OOM killer ran in the group, or a task waits for memory)."""
        if self._removed or self._memory_hit:
            return self._memory_hit
        if self.backend == "v1":
            ctl = self._counter_keyed(self._path("memory", "memory.oom_control"))
            hit = ctl.get("oom_kill", 0) > 0 or ctl.get("under_oom", 0) > 0
        else:
            ev = self._counter_keyed(self._path("memory", "memory.events"))
            hit = ev.get("oom_kill", 0) > 0 or ev.get("oom", 0) > 0
        self._memory_hit = hit
        return hit

    def pids_limit_hits(self) -> int:
        """How often a fork or thread start failed at the task cap (pids.events max)."""
        if not self._removed:
            self._pids_hit = self._counter_keyed(self._path("pids", "pids.events")).get("max", 0)
        return self._pids_hit

    def pids_current(self) -> int:
        """The tasks (processes and threads) charged to the group now: its live ones and its
        exited ones not yet reaped."""
        return self._counter_int(self._path("pids", "pids.current"))

    def tasks_charged(self) -> int | None:
        """`pids_current`, or None where it cannot be read (no pids controller, the group
        removed or unreadable): for a caller that may skip work when the count is low."""
        path = self._path("pids", "pids.current")
        if path is None or self._removed:
            return None
        count = self._counter_int(path, -1)
        return None if count < 0 else count

    def cpu_usage_ns(self) -> int | None:
        """CPU time of every task ever in the group (None where it is not counted)."""
        if self._removed:
            return None
        if self.backend == "v1":
            path = self._path("cpuacct", "cpuacct.usage")
            return None if path is None else self._counter_int(path)
        stat = self._counter_keyed(os.path.join(self._any_folder(), "cpu.stat"))
        usec = stat.get("usage_usec")
        return None if usec is None else usec * 1000

    def procs(self) -> list[int]:
        """The processes in the group (any hierarchy: they are the same)."""
        try:
            text = _read(os.path.join(self._any_folder(), "cgroup.procs"))
        except OSError:
            return []
        return [int(x) for x in text.split()]

    # ---------------------------------------------------------------- freezer
    def freeze(self, timeout_s: float = _FREEZE_TIMEOUT_S) -> bool:
        """Freeze every task of the group and wait until they are (True if so)."""
        if self._removed:
            return False
        if self.backend == "v1":
            path = self._path("freezer", "freezer.state")
            if path is None:
                return False
            _write(path, "FROZEN")
            return self._wait(lambda: self._counter(path).strip() == "FROZEN", timeout_s)
        folder = self._any_folder()
        _write(os.path.join(folder, "cgroup.freeze"), "1")
        events = os.path.join(folder, "cgroup.events")
        return self._wait(lambda: self._counter_keyed(events).get("frozen") == 1, timeout_s)

    def freezer_state(self) -> str:
        """The group's freezer as the kernel says it now: v1 ``freezer.state`` (THAWED,
        FREEZING, FROZEN), v2 ``frozen``/``thawed`` (cgroup.events); "" without one."""
        if self._removed:
            return ""
        try:
            if self.backend == "v1":
                path = self._path("freezer", "freezer.state")
                return "" if path is None else _read(path).strip()
            frozen = _keyed(os.path.join(self._any_folder(), "cgroup.events")).get("frozen")
        except OSError:
            return ""
        return "" if frozen is None else ("frozen" if frozen else "thawed")

    def thaw(self) -> None:
        if self._removed:
            return
        try:
            if self.backend == "v1":
                path = self._path("freezer", "freezer.state")
                if path is not None:
                    _write(path, "THAWED")
            else:
                _write(os.path.join(self._any_folder(), "cgroup.freeze"), "0")
        except OSError:
            pass

    @staticmethod
    def _wait(cond: Callable[[], bool], timeout_s: float) -> bool:
        end = time.perf_counter() + timeout_s
        delay = 0.00005
        while True:
            try:
                if cond():
                    return True
            except OSError:
                return False
            if time.perf_counter() >= end:
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.005)

    # ---------------------------------------------------------------- ending
    def kill_all(self, timeout_s: float = 1.0) -> bool:
        """SIGKILL every task of the group (cgroup.kill where there is one; else frozen, killed
        one by one, thawed, until none is left). True once the group is empty."""
        if self._removed:
            return True
        kill_file = os.path.join(self._any_folder(), "cgroup.kill")
        if self.backend == "v2" and os.path.exists(kill_file):
            try:
                _write(kill_file, "1")
            except OSError:
                pass
        end = time.perf_counter() + timeout_s
        while True:
            pids = self.procs()
            if not pids:
                return True
            frozen = self.has_freezer and self.freeze(0.05)
            for pid in pids:  # frozen: none of them can fork meanwhile
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if frozen or self.has_freezer:
                self.thaw()  # the killed die once thawed
            if time.perf_counter() >= end:
                return not self.procs()
            time.sleep(0.001)

    def remove(self, timeout_s: float = _RMDIR_TIMEOUT_S) -> bool:
        """Keep the last readings, then remove the group (retrying while the last tasks are
        still exiting). True once gone. Idempotent."""
        if self._removed:
            return True
        self.memory_peak_bytes()
        self.memory_limit_hit()
        self.pids_limit_hits()
        self.release_counters()  # (read again, they are opened again: closed at the next try)
        end = time.perf_counter() + timeout_s
        left = list(dict.fromkeys(self.folders.values()))
        while True:
            for folder in list(left):
                try:
                    os.rmdir(folder)
                    left.remove(folder)
                except FileNotFoundError:
                    left.remove(folder)
                except OSError:
                    pass
            if not left:
                self._removed = True
                return True
            if time.perf_counter() >= end:
                if self.on_left is not None:  # the last tasks are slow to exit (a loaded
                    self.on_left(self)        # machine, an emulated one): retried later
                    self.on_left = None
                return False
            time.sleep(0.002)


# ------------------------------------------------------------------------------- manager
class Cgroups:
    """Makes the bots' groups on a machine whose `Support` is available."""

    def __init__(self, support: Support) -> None:
        if not support.available:
            raise ValueError(f"no cgroups here: {support.reason}")
        self.support = support
        self._prepared = False
        #: whether the bots' folder has the highest CPU weight (set by `prepare`)
        self.cpu_priority = False
        #: groups of this process whose removal gave up (their last tasks still exiting)
        self._leftovers: list[BotGroup] = []
        self._leftovers_lock = threading.Lock()

    def retry_leftovers(self) -> list[str]:
        """Kill and remove, once more, the groups of this process whose `remove` gave up
        (without it an empty group stayed until this process ended: a referee that plays on
        would pile them up). Their names, once gone; run by `create`, `groups`, `cleanup`."""
        gone = []
        with self._leftovers_lock:  # one Cgroups serves every referee thread of a process
            for group in list(self._leftovers):
                group.kill_all(0.0)
                if group.remove(0.0):
                    self._leftovers.remove(group)
                    gone.append(group.name)
        return gone

    def _parents(self) -> dict[str, str]:
        """Controller -> the folder holding the bots' groups."""
        if self.support.backend == "v2":
            folder = os.path.join(self.support.roots[0][1], FOLDER)
            return {c: folder for c in ("memory", "pids", "cpu", "cpuacct", "freezer")}
        return {c: os.path.join(f, FOLDER) for c, f in self.support.roots}

    def prepare(self) -> list[str]:
        """Make the parent folders (v2: move this cgroup's processes to a leaf and enable the
        controllers below), then clean up groups of dead referees (their names). Once per
        process: later calls do nothing."""
        if self._prepared:
            return []
        if self.support.backend == "v2":
            self._prepare_v2(self.support.roots[0][1])
        else:
            for folder in dict.fromkeys(self._parents().values()):
                os.makedirs(folder, exist_ok=True)
        self.cpu_priority = self._prefer_bots()
        self._prepared = True
        return self.cleanup()

    def _prefer_bots(self) -> bool:
        """Give the bots' folder the highest CPU weight (see the module docstring); whether it
        took (no `cpu` controller, or a kernel that refuses: the default weight stays)."""
        if "cpu" not in self.support.controllers:
            return False
        folder = self._parents().get("cpu")
        if folder is None:
            return False
        if self.support.backend == "v2":
            path, value = os.path.join(folder, "cpu.weight"), defaults.BOTS_CPU_WEIGHT
        else:
            path, value = os.path.join(folder, "cpu.shares"), defaults.BOTS_CPU_SHARES
        try:
            _write(path, str(value))
        except OSError:
            return False
        return True

    def _prepare_v2(self, own: str) -> None:
        wanted = " ".join(f"+{c}" for c in ("memory", "pids", "cpu")
                          if c in self.support.controllers)
        parent = os.path.join(own, FOLDER)
        if not _keyed_words(os.path.join(own, "cgroup.subtree_control")) >= {"memory", "pids"}:
            try:
                _write(os.path.join(own, "cgroup.subtree_control"), wanted)
            except OSError:  # EBUSY: processes in our group; move them to a leaf first
                leaf = os.path.join(own, REFEREE_LEAF)
                os.makedirs(leaf, exist_ok=True)
                for _ in range(3):
                    for pid in _read(os.path.join(own, "cgroup.procs")).split():
                        try:
                            _write(os.path.join(leaf, "cgroup.procs"), pid)
                        except OSError:
                            pass
                    try:
                        _write(os.path.join(own, "cgroup.subtree_control"), wanted)
                        break
                    except OSError:
                        continue
        os.makedirs(parent, exist_ok=True)
        _write(os.path.join(parent, "cgroup.subtree_control"), wanted)

    def create(self, bot_id: str, memory_limit_bytes: int | None,
               pids_max: int | None) -> BotGroup:
        """A new group for one bot process tree, with its limits (None: no such limit)."""
        self.prepare()
        self.retry_leftovers()
        name = group_name(bot_id)
        folders = {c: os.path.join(p, name) for c, p in self._parents().items()}
        group = BotGroup(self.support.backend, folders, name)
        group.on_left = self._leftovers.append
        try:
            for folder in dict.fromkeys(folders.values()):
                os.makedirs(folder, exist_ok=True)
            group._limit(memory_limit_bytes, pids_max)
        except OSError:
            group.remove(0.0)
            raise
        return group

    def groups(self) -> list[str]:
        """The names of the bot groups present (of every referee)."""
        self.retry_leftovers()
        parents = self._parents()
        folder = parents.get("pids") or next(iter(parents.values()))
        try:
            return sorted(e for e in os.listdir(folder)
                          if os.path.isdir(os.path.join(folder, e)))
        except OSError:
            return []

    def cleanup(self) -> list[str]:
        """Kill and remove the groups whose owning referee process is dead; their names."""
        gone = []
        parents = self._parents()
        for name in self.groups():
            m = _NAME.match(name)
            if m is None:
                continue
            pid, start = m.groups()
            if owner_mark(int(pid)) == f"{pid}:{start}":
                continue  # its referee is alive
            group = BotGroup(self.support.backend,
                             {c: os.path.join(p, name) for c, p in parents.items()}, name)
            group.kill_all(0.5)
            if group.remove(0.5):
                gone.append(name)
        return gone


def _keyed_words(path: str) -> set[str]:
    try:
        return set(_read(path).split())
    except OSError:
        return set()


@functools.lru_cache(maxsize=1)
def _machine_cgroups() -> Cgroups | None:
    support = detect()
    return Cgroups(support) if support.available else None


def summary(enabled: bool = True) -> str:
    """The one line a run prints at its start: what contains the bots on this machine."""
    if not enabled:
        return f"containment: {RLIMITS_ONLY}{task_cap_note()} (cgroups turned off)"
    return detect().summary()


def open_cgroups(enabled: bool = True) -> Cgroups | None:
    """This machine's `Cgroups` (one per process), or None when not available or not
    `enabled`."""
    return _machine_cgroups() if enabled else None
