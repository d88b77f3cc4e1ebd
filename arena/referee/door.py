"""The one door's runner (`arena.wire.door`): entrant code outside a game runs as a game's bot.

`ContainedDoor(isolation)` runs a `DoorJob` through the same parts as a game's bot process
(`arena.referee.pool`): `BotProcess` (its own session, rlimits on data and file size, no core
dumps, its stderr into a capped log), a cgroup of its own with the memory limit and task cap
where the machine offers cgroups, and, when the isolation resolves to a sandbox, bwrap with its
namespaces and seccomp filter (`arena.referee.sandbox`), as the sandbox user, seeing only the
system, Python, the `arena` package and the job's `read_paths` (read-only) and `write_paths`.
Without a sandbox (`isolation: none`, or `auto` on a machine without one) it still has the
rlimits, the cgroup and the time limit; `Isolation.notice` says which doors that opens.

The environment is not the caller's: a door process gets PATH, the locale and what the job
adds, so no secret of the server's environment reaches it.

`install(isolation)` builds one and makes it this process's door; entry points call it with
their isolation setting (`arena.commands`, the league's server and workers, a Dask worker).
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from arena import defaults
from arena.referee import cgroups, containment
from arena.referee.process import THREAD_ENV, BotProcess, LineTooLong, bot_limits, task_cap
from arena.referee.sandbox import Isolation, Sandbox, resolve
from arena.wire import door
from arena.wire.door import DoorJob, DoorResult
from arena.wire.lifeline import wrap

__all__ = ["ContainedDoor", "install"]

#: environment variables a door process inherits from the caller (nothing else does)
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "JAVA_HOME")
_MAX_LINE_BYTES = 1 << 20
#: the `arena` package (the lifeline, `python -m arena.wire.lifeline`, runs from it)
_ARENA_DIR = str(Path(__file__).resolve().parents[1])
_STDERR_CHARS = 4000


#: how often a sandboxed door job's wrapper is looked at for its init until it is seen
_NOTE_EVERY_S = 0.02
#: how long a job whose init was never seen waits for it to come back to this process
_INIT_BACK_S = 0.2


def _collect_init() -> None:
    """Collect the dead init of a sandboxed job (`containment.reap_namespace_inits`), waiting
    up to _INIT_BACK_S for it to die and come back; one not back by then is collected by the
    next job."""
    end = time.perf_counter() + _INIT_BACK_S
    while not containment.reap_namespace_inits() and time.perf_counter() < end:
        time.sleep(0.005)


class ContainedDoor:
    """Runs `DoorJob`s contained (see the module docstring). Thread-safe: each job has its
    own process."""

    def __init__(self, isolation: str = defaults.ISOLATION, *,
                 use_cgroups: bool = defaults.CGROUPS,
                 memory_limit_mb: int | None = defaults.DOOR_MEMORY_LIMIT_MB,
                 max_tasks: int | None = defaults.MAX_TASKS) -> None:
        self.mode = isolation
        self._use_cgroups = use_cgroups
        self._cgroups: cgroups.Cgroups | None = None
        self._prepared = False
        self._lock = threading.Lock()
        self.memory_limit_bytes = None if memory_limit_mb is None else memory_limit_mb * 2**20
        self.max_tasks = max_tasks

    @property
    def isolation(self) -> Isolation:
        """What the isolation setting means here (UsageError for `namespaces` where the
        machine cannot isolate); bwrap's trial runs once per process (`sandbox.probe`)."""
        return resolve(self.mode)

    def _groups(self) -> cgroups.Cgroups | None:
        with self._lock:
            if not self._prepared:
                self._cgroups = cgroups.open_cgroups(self._use_cgroups)
                if self._cgroups is not None:
                    try:
                        self._cgroups.prepare()
                    except OSError:
                        self._cgroups = None  # rlimits only, as a game would say
                self._prepared = True
        return self._cgroups

    def _env(self, job: DoorJob) -> dict[str, str]:
        env = {k: os.environ[k] for k in _KEPT_ENV if k in os.environ}
        env.update(THREAD_ENV)
        env.update({"HOME": "/tmp", "TMPDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"})
        env.update(dict(job.env))
        return env

    def __call__(self, job: DoorJob) -> DoorResult:
        started_s = time.perf_counter()
        sandbox = Sandbox() if self.isolation.isolated else None
        tasks = job.max_tasks or self.max_tasks
        groups = self._groups()
        argv = list(job.argv)
        log_dir = tempfile.mkdtemp(prefix="cxarena-door-")
        boxed = None
        try:
            if sandbox is None:
                argv = wrap(argv, os.getpid(), bot_limits(self.memory_limit_bytes))
                proc = BotProcess(argv, log_path=os.path.join(log_dir, "door.log"),
                                  env=self._env(job), cwd=job.cwd,
                                  memory_limit_bytes=self.memory_limit_bytes,
                                  max_line_bytes=_MAX_LINE_BYTES, cgroups=groups,
                                  max_tasks=tasks)
            else:
                read_paths = list(job.read_paths)
                if groups is None and tasks:  # the task cap, set by the lifeline in the box:
                    argv = wrap(argv, 0, [task_cap(tasks)])  # it needs the arena package
                    read_paths.append(_ARENA_DIR)
                boxed = sandbox.launch(argv, read_paths, cwd=job.cwd,
                                       write_paths=job.write_paths)
                proc = BotProcess(boxed.argv, log_path=os.path.join(log_dir, "door.log"),
                                  env=self._env(job), memory_limit_bytes=self.memory_limit_bytes,
                                  max_line_bytes=_MAX_LINE_BYTES, pass_fds=boxed.pass_fds,
                                  status_from_wrapper=True, cgroups=groups, max_tasks=tasks)
                boxed.release()
            return self._finish(proc, job, started_s, sandbox is not None)
        finally:
            if boxed is not None:
                boxed.close()
            shutil.rmtree(log_dir, ignore_errors=True)

    def _finish(self, proc: BotProcess, job: DoorJob, started_s: float,
                sandboxed: bool) -> DoorResult:
        deadline_s = started_s + job.timeout_s
        lines: list[bytes] = []
        size = 0
        timed_out = False
        fault = ""
        noted = not sandboxed
        try:
            assert proc.popen.stdin is not None
            proc.popen.stdin.close()  # a door process reads nothing
            while True:
                if not noted:  # bwrap's init is ours to collect when bwrap ends (else a
                    # zombie per door job for as long as this process lives): looked for
                    # every _NOTE_EVERY_S until seen, output or not
                    noted = proc.note_wrapper_children()
                step_s = deadline_s if noted else min(deadline_s,
                                                      time.perf_counter() + _NOTE_EVERY_S)
                line = proc.read_line(step_s)
                if line is None and time.perf_counter() < deadline_s:
                    continue
                if line is None:
                    timed_out = True
                    break
                size += len(line) + 1
                if size > door.MAX_STDOUT_BYTES:
                    fault = f"wrote more than {door.MAX_STDOUT_BYTES} bytes of output"
                    break
                lines.append(line)
        except EOFError:
            pass
        except LineTooLong as e:
            fault = f"wrote {e}"
        status: int | None = None
        if not timed_out and not fault and proc.wait_exit(max(0.0, deadline_s -
                                                                 time.perf_counter())):
            proc.reap(1.0)
            status = proc.popen.returncode
            if status is not None and proc.status_from_wrapper and status > 128:
                status = -(status - 128)  # bwrap reports a child killed by signal N as 128+N
        else:
            timed_out = timed_out or not fault
        fault = fault or (proc.limit_fault() or "")
        proc.sync_log()
        stderr = proc.stderr_tail(max_lines=60, max_chars=_STDERR_CHARS)
        proc.close()
        if sandboxed and not noted:  # a job that ended before its init was seen: that init
            _collect_init()  # is re-parented to this process when bwrap ends
        return DoorResult(status=status, stdout=b"\n".join(lines).decode("utf-8", "replace"),
                          stderr=stderr, timed_out=timed_out and status is None,
                          sandboxed=sandboxed, fault=fault,
                          elapsed_ms=(time.perf_counter() - started_s) * 1000)


@functools.lru_cache(maxsize=8)
def _door(isolation: str, use_cgroups: bool) -> ContainedDoor:
    return ContainedDoor(isolation, use_cgroups=use_cgroups)


def install(isolation: str = defaults.ISOLATION,
            use_cgroups: bool = defaults.CGROUPS) -> Isolation:
    """Make a `ContainedDoor` with this isolation this process's door (`arena.wire.door`);
    its `Isolation` (UsageError for `namespaces` where the machine cannot isolate)."""
    runner = _door(isolation, use_cgroups)
    door.install(runner)
    return runner.isolation


# a process that plays or checks bots has a door from the start: this default (the default
# isolation and cgroups), until an entry point installs its own setting
if door.installed() is None:
    door.install(_door(defaults.ISOLATION, defaults.CGROUPS))
