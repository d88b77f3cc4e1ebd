"""Before the first game: an `exec:` bot whose program the sandbox cannot see is refused with
one message (what, where, what to do), instead of losing every game as a crash."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from arena.entrants.exposure import interpreter_paths
from arena.entrants.specs import BotSpec
from arena.errors import UsageError
from arena.referee.sandbox import missing_in_sandbox

__all__ = ["refuse_unseen_programs"]


def _programs(spec: BotSpec) -> list[str]:
    """The program of an exec: bot (found on PATH), as its command line names it."""
    if not spec.command:
        return []
    first = spec.command[0]
    found = shutil.which(first) if os.sep not in first else first
    return [os.path.abspath(found)] if found else []


def refuse_unseen_programs(specs: Sequence[BotSpec], isolated: bool) -> None:
    """Raise UsageError naming every exec: bot whose program a sandbox would not find (one
    small sandbox per such bot); nothing to do when bots are not sandboxed."""
    if not isolated:
        return
    problems = []
    for spec in {s.text: s for s in specs}.values():
        programs = _programs(spec)
        if not programs:
            continue
        expose = [*spec.launch().expose, *interpreter_paths(Path(programs[0]))]
        for missing in missing_in_sandbox(programs, expose):
            problems.append(f"bot {spec.text!r}: the sandbox cannot see {missing}")
    if problems:
        raise UsageError("; ".join(problems) + ". Move the program (and its interpreter) to a "
                         "folder the sandbox shows (docs/protocol.md, isolation), or pass "
                         "--isolation none for a trusted program")
