"""Isolation of bot processes with bubblewrap (`bwrap`): what a sandboxed bot sees and may do.

`resolve(mode)` turns the `isolation` setting (`auto`, `namespaces`, `none`) into an
`Isolation`: whether bots run sandboxed and, if not, why. `auto` isolates when the machine
allows it: `probe()` (once per process) checks that `bwrap` exists and that a trivial sandbox
starts. `Sandbox.launch(argv, paths)` builds the command line that runs a bot's argv
inside a sandbox:

- its own PID, network, IPC, UTS (and cgroup) namespaces, and a user namespace with no
  capabilities, in which it may not create further user namespaces: it sees only its own
  processes, cannot signal or trace anything outside, and has no network at all;
- a file system that is read-only everywhere: the system (/usr, /lib*, /etc minus the files that
  only their owner may read), the Python installation and venv, the `arena` package, the shared
  helpers of `players/` (`players/__init__.py` and every `players/_NAME` module or package:
  `arena.entrants.exposure.helper_paths`), and the bot's own files
  (`arena.entrants.exposure.bot_paths`, passed in as the launch's `expose`); nothing else of
  the host (no results folder, no other bot, no home directory);
- a private scratch: /tmp and /dev/shm are fresh tmpfs of `defaults.SCRATCH_MB` each, gone when
  the sandbox ends (HOME and TMPDIR point at /tmp);
- `--die-with-parent`: the sandbox dies with the referee;
- a seccomp filter (libseccomp, where installed) that refuses `setsid` and `setpgid`, so that
  nothing the bot starts leaves the process group the referee freezes between its turns.

bwrap stays the bot's parent: the referee's child is bwrap, which forks an init process (pid 1
of the new PID namespace) that forks the bot. All three stay in the process group the referee
made, so `killpg` freezes, thaws and kills them together; killing pid 1 kills everything left in
the namespace, even a process that left the group. bwrap reports a bot killed by signal N as exit
status 128+N (`BotProcess(status_from_wrapper=True)` translates it back). bwrap's own two
processes keep fds 0-2 open, so the protocol's pipe and socket reach the bot as fds 3 and 4
and a shell line inside moves them to 0 and 1 (`_OUTER_SHIM`, `_INNER_SHIM`): the bot holds
the only copies, and the referee sees at once when it closes its stdout or stdin.
No `--new-session`: it would take the bot out of the process group the referee freezes, and it
is not needed against terminal injection (TIOCSTI), since the referee starts bwrap in a session
of its own (`start_new_session`) that has no controlling terminal.

Limits (rlimits, CPU affinity) must be in place before bwrap forks, or the bot would not
inherit them: bwrap's first option is ``--args FD``, and it blocks reading extra arguments
from that pipe until `Launch.release()` closes it, which the referee does once `BotProcess` has
applied the limits to bwrap's pid.

Nothing here knows the protocol or the game; the referee decides when to use it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import functools
import os
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena import defaults
from arena.errors import UsageError

__all__ = ["MODES", "Isolation", "Launch", "Sandbox", "bot_pid", "bwrap_version",
           "missing_in_sandbox", "probe", "resolve", "seccomp_available"]

#: the values of the `isolation` setting
MODES = ("auto", "namespaces", "none")
#: the line the standings carry when some game ran without isolation
NOT_ISOLATED_LINE = "entrants were not isolated"
_PROBE_TIMEOUT_S = 10.0
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_NOBODY = 65534
#: system calls a sandboxed bot may not make: with them a process it starts could leave the
#: process group that the referee freezes between the bot's turns, and compute meanwhile
_BLOCKED_SYSCALLS = ("setsid", "setpgid")
_SCMP_ACT_ALLOW = 0x7FFF0000
_SCMP_ACT_ERRNO = 0x00050000
# bwrap's own processes (the monitor outside, pid 1 inside) keep fds 0-2 open but close the
# others, which only the command inherits. The protocol's stdin and stdout travel as fds 3 and 4
# so that the bot holds the only copies: the referee then sees its stdout close (EOF) and its
# stdin close (EPIPE) the moment the bot closes them, as without a sandbox.
_OUTER_SHIM = ["/bin/sh", "-c", 'exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null', "sh"]
_INNER_SHIM = ["/bin/sh", "-c", 'exec "$@" 0<&3 1>&4 3<&- 4>&-', "sh"]


@dataclass(frozen=True)
class Isolation:
    """The outcome of the `isolation` setting: `isolated`, and the reason when it is not."""

    mode: str
    isolated: bool
    reason: str = ""  # why not isolated ("" when isolated)

    def notice(self) -> str:
        """One line for the start of a run ("" when isolated or when `none` was chosen)."""
        if self.isolated or self.mode == "none":
            return ""
        return (f"warning: {NOT_ISOLATED_LINE} (isolation: auto): {self.reason}; every door "
                f"to their code (loading, compiling, checking, playing) runs as this user")


def check_mode(mode: str, where: str = "isolation") -> str:
    """`mode` if it is one of MODES, else UsageError."""
    if mode not in MODES:
        raise UsageError(f"{where}: expected one of {', '.join(MODES)}, got {mode!r}")
    return mode


def resolve(mode: str = defaults.ISOLATION) -> Isolation:
    """What `mode` means on this machine. `namespaces` where it cannot isolate: UsageError."""
    check_mode(mode)
    if mode == "none":
        return Isolation(mode, False, "isolation: none was chosen")
    why_not = probe()
    if why_not is None:
        return Isolation(mode, True)
    if mode == "namespaces":
        raise UsageError(f"isolation: namespaces: this machine cannot isolate bots ({why_not}); "
                         "install bubblewrap, enable user namespaces, or use isolation: none "
                         "for trusted bots")
    return Isolation(mode, False, why_not)


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """None if a sandbox works here, else why not (one line). Runs once per process."""
    if not sys.platform.startswith("linux"):
        return f"namespaces need Linux (this is {sys.platform})"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    argv = [bwrap, *Sandbox().base_args(), "--", "true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap cannot run: {e}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"a trial sandbox failed: {err[-1] if err else f'status {done.returncode}'}"
    return None


@dataclass
class Launch:
    """A sandboxed command line, and the pipe bwrap waits on (see the module docstring).

    Start the process with `argv` and `pass_fds`, apply the limits to its pid, then call
    `release()`. `close()` (idempotent) when done, whatever happened."""

    argv: list[str]
    pass_fds: tuple[int, ...]
    _write_fd: int

    def started(self) -> None:
        """The process is running: our copies of the fds it inherited are no longer needed."""
        for fd in self.pass_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.pass_fds = ()

    def release(self) -> None:
        """Let bwrap go on (EOF on its argument pipe)."""
        self.started()
        if self._write_fd >= 0:
            os.close(self._write_fd)
            self._write_fd = -1

    close = release


class Sandbox:
    """Builds bwrap command lines for bots (see the module docstring)."""

    def __init__(self, scratch_mb: int = defaults.SCRATCH_MB,
                 extra_ro_paths: Iterable[str] = ()) -> None:
        self.scratch_mb = scratch_mb
        self.extra_ro_paths = tuple(extra_ro_paths)  # readable by every bot (e.g. a JDK)

    # -------------------------------------------------------------- argv
    def base_args(self) -> list[str]:
        """Namespaces, system and Python mounts, scratch: everything but the bot's own files."""
        args = self._system_args()
        for p in _outermost(_python_paths() + list(self.extra_ro_paths)):
            args += ["--ro-bind-try", p, p]
        return args

    def _system_args(self) -> list[str]:
        """Namespaces, the system folders, /proc, /dev and the scratch."""
        known = _bwrap_options()
        args = ["--unshare-user", "--uid", str(_NOBODY), "--gid", str(_NOBODY),
                *(["--disable-userns"] if "--disable-userns" in known else []),
                "--unshare-pid", "--unshare-net", "--unshare-ipc",
                "--unshare-uts", "--hostname", "cxarena-bot", "--unshare-cgroup-try",
                "--cap-drop", "ALL", "--die-with-parent"]
        for d in _SYSTEM_DIRS:
            if os.path.islink(d):
                args += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                args += ["--ro-bind", d, d]
        args += _etc_args()
        size = ["--size", str(self.scratch_mb * 2**20)] if "--size" in known else []
        args += ["--proc", "/proc", "--dev", "/dev",
                 *size, "--tmpfs", "/tmp", *size, "--tmpfs", "/dev/shm"]
        return args

    def launch(self, argv: Sequence[str], read_paths: Iterable[str],
               cwd: str | None = None, write_paths: Iterable[str] = ()) -> Launch:
        """The bwrap command line that runs `argv` with `read_paths` visible (read-only), in
        `cwd` (default: the current directory; it exists in the sandbox, empty but for what is
        bound under it), with the existing folders `write_paths` writable (javac's output
        folder; a game's bot gets none). See `Launch` for how to start it."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise OSError("bubblewrap (bwrap) is not installed")
        cwd = os.path.abspath(cwd or os.getcwd())
        args = self._system_args()
        binds = _outermost([*_python_paths(), *self.extra_ro_paths, *read_paths])
        writable = _outermost(p for p in write_paths if os.path.isdir(p))
        host = [*binds, *writable, *_SYSTEM_DIRS, "/etc"]  # where the host's own folders show
        mounts = [*_SYSTEM_DIRS, "/etc", "/proc", "/dev", "/tmp"]
        # the working directory exists, read-only and empty but for what is bound under it
        # (also when it lies under /tmp, the scratch: its own read-only tmpfs)
        own_cwd = not any(_within(cwd, h) for h in host) and \
            not any(_within(m, cwd) for m in mounts)
        # folders under the scratch (a project or working directory below /tmp): each gets a
        # read-only tmpfs of its own, so the paths bound below it are all that shows there and
        # a write to anything else fails instead of landing in the bot's scratch
        shields = _scratch_shields([*binds, *writable, cwd])
        for s in shields:
            args += ["--tmpfs", s]
        if own_cwd:
            args += ["--tmpfs", cwd]
        for p in binds:
            args += ["--ro-bind-try", p, p]
        for p in writable:  # after the read-only binds: a writable folder inside one stays so
            args += ["--bind", p, p]
        if own_cwd:
            args += ["--remount-ro", cwd]
        for s in shields:
            args += ["--remount-ro", s]
        args += ["--chdir", cwd, "--remount-ro", "/dev", "--remount-ro", "/",
                 "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
                 "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        pipe_r, write_fd = os.pipe()
        read_fd = _high(pipe_r)
        pass_fds = [read_fd]
        program = _seccomp_filter()
        if program is not None:
            seccomp_r, seccomp_w = os.pipe()
            os.write(seccomp_w, program)  # a few hundred bytes: fits in the pipe
            os.close(seccomp_w)
            pass_fds.append(_high(seccomp_r))
            args += ["--seccomp", str(pass_fds[-1])]
        return Launch(argv=[*_OUTER_SHIM, bwrap, "--args", str(read_fd), *args, "--",
                            *_INNER_SHIM, *argv],
                      pass_fds=tuple(pass_fds), _write_fd=write_fd)

    @staticmethod
    def env(env: Mapping[str, str], drop: Iterable[str] = ()) -> dict[str, str]:
        """The environment for a sandboxed bot: `env` without the `drop` keys."""
        gone = set(drop)
        return {k: v for k, v in env.items() if k not in gone}


def missing_in_sandbox(programs: Sequence[str], read_paths: Iterable[str],
                       timeout_s: float = _PROBE_TIMEOUT_S) -> list[str]:
    """Which of `programs` (absolute paths) a sandbox with `read_paths` visible cannot run:
    one small sandbox that tests each with `test -x`. [] when all can (or none is given)."""
    if not programs:
        return []
    script = 'for p in "$@"; do test -x "$p" || echo "$p"; done'
    boxed = Sandbox().launch(["/bin/sh", "-c", script, "sh", *programs], read_paths)
    try:
        proc = subprocess.Popen(boxed.argv, pass_fds=boxed.pass_fds, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                start_new_session=True)
        boxed.release()
    finally:
        boxed.close()
    try:
        out, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return []  # no verdict: the first game will say what happens
    return [line for line in out.splitlines() if line]


def bot_pid(wrapper_pid: int) -> int | None:
    """The (host) pid of the bot in the sandbox whose bwrap has `wrapper_pid`: the child of
    bwrap's init, which is bwrap's child. None before the bot is forked or after it ended.
    (Per-process readings such as /proc/PID/schedstat belong to this pid, not the wrapper's.)"""
    pid: int | None = wrapper_pid
    for _ in range(2):  # bwrap -> its init (pid 1 inside) -> the bot
        kids = _children(pid) if pid is not None else []
        pid = kids[0] if kids else None
    return pid


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


# ------------------------------------------------------------------ what a bot may read
def _outermost(paths: Iterable[str]) -> list[str]:
    """Paths in an order bwrap can mount (parents first), without ones inside another."""
    unique = sorted({os.path.abspath(p) for p in paths if os.path.exists(p)})
    out: list[str] = []
    for p in unique:
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return out


@functools.lru_cache(maxsize=1)
def _bwrap_options() -> frozenset[str]:
    """The options this bwrap knows (older ones lack --size and --disable-userns: the sandbox
    then goes without them)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return frozenset()
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True,
                              timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    return frozenset(re.findall(r"^\s+(--[a-z0-9-]+)", done.stdout + done.stderr, re.M))


def _high(fd: int) -> int:
    """`fd` moved to a number of 10 or more (clear of the fds 0-4 the shims use)."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


@functools.lru_cache(maxsize=1)
def _seccomp_filter() -> bytes | None:
    """The BPF program (built with libseccomp, the library behind the seccomp profiles of
    Docker, systemd and Flatpak) that makes `_BLOCKED_SYSCALLS` fail with EPERM and kills a
    process that makes system calls of another architecture; None where libseccomp is
    missing (then a process a bot starts can leave its process group)."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                     ctypes.c_uint]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    ctx = lib.seccomp_init(_SCMP_ACT_ALLOW)
    if not ctx:
        return None
    try:
        for name in _BLOCKED_SYSCALLS:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0 or lib.seccomp_rule_add(ctx, _SCMP_ACT_ERRNO | errno.EPERM, nr, 0) != 0:
                return None
        r, w = os.pipe()
        try:
            ok = lib.seccomp_export_bpf(ctx, w) == 0
            os.close(w)
            w = -1
            program = os.read(r, 1 << 16) if ok else b""
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        return program or None
    finally:
        lib.seccomp_release(ctx)


#: the sandbox's writable scratch folders (fresh tmpfs)
_SCRATCH_DIRS = ("/tmp", "/dev/shm")


def _scratch_shields(paths: Iterable[str]) -> list[str]:
    """The top folders below a scratch folder (e.g. /tmp/ci for /tmp/ci/project/arena) that
    hold any of `paths`."""
    out = set()
    for p in paths:
        for root in _SCRATCH_DIRS:
            if p != root and _within(p, root):
                out.add(os.path.join(root, os.path.relpath(p, root).split(os.sep)[0]))
    return sorted(out)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _python_paths() -> list[str]:
    """The Python installation and venv, where they are not under a system folder."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix,
                  os.path.dirname(os.path.realpath(sys.executable))}
    # each as it is named too: a checkout's .venv that is a symbolic link to a venv elsewhere
    # must exist at its own path, where the Python bots' command line names it
    named = {os.path.abspath(c) for c in (sys.prefix, sys.exec_prefix,
                                          os.path.dirname(sys.executable))}
    return [p for p in _outermost([*(os.path.realpath(c) for c in candidates), *named])
            if not p.startswith(tuple(d + "/" for d in _SYSTEM_DIRS))]


@functools.lru_cache(maxsize=1)
def _etc_args() -> tuple[str, ...]:
    """/etc read-only, with what only its owner may read hidden (shadow, private keys): the
    sandbox runs as root when cxarena does, and must not read root's secrets."""
    args = ["--ro-bind", "/etc", "/etc"]
    for root, dirs, files in os.walk("/etc"):
        for name in list(dirs):
            full = os.path.join(root, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode) and not st.st_mode & stat.S_IROTH:
                args += ["--tmpfs", full, "--remount-ro", full]
                dirs.remove(name)
        for name in files:
            full = os.path.join(root, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and not st.st_mode & stat.S_IROTH:
                args += ["--ro-bind", "/dev/null", full]
    return tuple(args)


def seccomp_available() -> bool:
    """Whether the sandbox gets its seccomp filter here (libseccomp is installed)."""
    return _seccomp_filter() is not None


def bwrap_version() -> str:
    """`bwrap --version` ("bubblewrap 0.8.0"), or "" where it is missing or says nothing."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return ""
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True,
                              timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip()
