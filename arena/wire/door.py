"""The one door for code an entrant supplied: what runs it outside a game, as a value and a hook.

A game is not the only time cxarena runs a stranger's code. Checking that a Python bot or Kaggle
agent loads (`arena.entrants.probe`), compiling a Java bot (``javac``, `arena.entrants.java`) and
checking that its class loads in a JVM are the other doors. The entrants describe each as a
`DoorJob` (an argv, the paths it may read, the one folder it may write, a time limit); the
installed runner executes it exactly as a game runs a bot (`arena.referee.door`: the sandbox,
its seccomp filter, a cgroup or rlimits, as the sandbox user, the entrant's files read-only) and
returns a `DoorResult`. The entrants never start such a process themselves.

The entrants and the referee meet here (neither imports the other): entry points (the command
line, a tournament's config, a match) call `arena.referee.door.install` with their isolation
setting, which puts its runner here with `install`. Where none did, `run` imports the
referee's door module, which installs the default (isolation auto: the sandbox wherever the
machine has one): code an entrant supplied never runs outside the door.

Must not live here: how a sandbox is built (`arena.referee.sandbox`), what a bot is
(`arena.entrants`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["DOORS", "DoorJob", "DoorResult", "Runner", "install", "installed", "run"]

#: every door through which code an entrant supplied runs, and what goes through it
DOORS = {
    "game": "playing a game (the bot's process, for as long as it plays)",
    "probe": "checking that a Python bot or Kaggle agent imports, instantiates and names "
             "itself (check-bot, match, play, tournament and final start-up, league checks, "
             "players)",
    "javac": "compiling a Java bot's sources (javac, annotation processing off)",
    "java-check": "checking that a Java bot's class loads and instantiates in a JVM",
}

#: the most of a door process's stdout that is kept
MAX_STDOUT_BYTES = 1 << 20


@dataclass(frozen=True)
class DoorJob:
    """One run of entrant code outside a game. `read_paths`: what it may read besides the
    system and Python (the entrant's files, read-only); `write_paths`: folders it may write
    (javac's output folder; nothing else); `timeout_s`: the whole run's wall-clock limit."""

    door: str  # a key of DOORS
    label: str  # what runs (a SPEC, a class), for messages and the log's name
    argv: tuple[str, ...]
    timeout_s: float
    env: tuple[tuple[str, str], ...] = ()
    read_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    cwd: str | None = None
    #: more tasks than a game's bot, for a JVM's threads (None: the runner's default)
    max_tasks: int | None = None


@dataclass(frozen=True)
class DoorResult:
    """How a `DoorJob` ended. `status`: the exit status (negative: killed by that signal;
    None: still running at the limit, then killed); `stdout` (at most MAX_STDOUT_BYTES);
    `stderr`: the tail of what it wrote there; `fault`: a limit it hit ("ran out of memory
    ...") or ""; `sandboxed`: whether it ran in the sandbox."""

    status: int | None
    stdout: str
    stderr: str
    timed_out: bool
    sandboxed: bool
    fault: str = ""
    elapsed_ms: float = 0.0


Runner = Callable[[DoorJob], DoorResult]
_runner: Runner | None = None
#: the module whose import installs the default door (the default isolation and cgroups)
DEFAULT_RUNNER_MODULE = "arena.referee.door"


def install(runner: Runner) -> None:
    """Make `runner` the door for this process (the last one installed is used)."""
    global _runner
    _runner = runner


def installed() -> Runner | None:
    return _runner


def run(job: DoorJob) -> DoorResult:
    """Run `job` through the installed door. RuntimeError where none is installed (an entry
    point forgot `arena.referee.door.install`: a harness bug, never a bot's)."""
    if job.door not in DOORS:
        raise ValueError(f"unknown door {job.door!r}")
    if _runner is None:
        # nothing installed (a library caller, a test): the referee's default door, looked up
        # by name so that this layer imports no referee module; importing it installs it
        importlib.import_module(DEFAULT_RUNNER_MODULE)
    if _runner is None:
        raise RuntimeError(f"no door is installed for entrant code in this process "
                           f"(importing {DEFAULT_RUNNER_MODULE} should install one)")
    return _runner(job)
