"""Where there is no cgroup, a sandboxed bot still has a process cap: RLIMIT_NPROC, set inside
the sandbox's own user namespace, where the kernel counts the bot's tasks only. The fork bomb
of the cgroup tests, with cgroups turned off, gets fewer than the cap. The kernel exempts uid 0
from RLIMIT_NPROC, so as root (where cgroups hold the cap instead) only the command line is
checked."""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.referee import sandbox
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import ZOO, tagged_pids, wait_until

_WHY_NOT = sandbox.probe()
needs_sandbox = pytest.mark.skipif(_WHY_NOT is not None, reason=f"no sandbox: {_WHY_NOT}")


@needs_sandbox
def test_a_sandboxed_bot_without_cgroups_gets_the_task_cap(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    seen: list[list[str]] = []
    real = sandbox.Sandbox.launch

    def launch(self: sandbox.Sandbox, argv: list[str], *a: object, **k: object) -> object:
        seen.append(list(argv))
        return real(self, argv, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(sandbox.Sandbox, "launch", launch)
    limits = Limits(timeout_s=5.0, max_tasks=64)
    for cgroups_on, capped in ((False, True), (True, False)):
        seen.clear()
        settings = MatchSettings(limits=limits, log_dir=str(tmp_path), isolation="namespaces",
                                 cgroups=cgroups_on)
        with Referee(settings) as referee:
            referee.play(parse_spec("L0"), parse_spec("L0"), course_game(4, 4, 3), seed=1)
            has_cgroups = referee.containment.available
        cap = f"--rlimit={resource.RLIMIT_NPROC}:64"
        assert seen and all((cap in argv) == (capped or not has_cgroups) for argv in seen)


@needs_sandbox
@pytest.mark.skipif(os.geteuid() == 0, reason="the kernel exempts uid 0 from RLIMIT_NPROC "
                    "(as root, cgroups hold the task cap: tests/referee/test_referee_cgroups.py)")
def test_a_fork_bomb_stops_at_the_task_cap_without_cgroups(tmp_path: Path) -> None:
    limits = Limits(timeout_s=10.0, memory_limit_mb=256, max_tasks=64)
    settings = MatchSettings(limits=limits, log_dir=str(tmp_path), isolation="namespaces",
                             cgroups=False)
    with Referee(settings) as referee:
        rec = referee.play(parse_spec(str(ZOO / "attackers" / "fork_bomb.py")),
                           parse_spec("L0"), course_game(4, 5, 3), seed=1)
        tag = referee.tag
    logs = rec.stderr_tail + "".join(p.read_text(errors="replace")
                                     for p in tmp_path.glob("*fork_bomb*.log"))
    said = logs.split("fork bomb: ")[1].split()
    started, refused = int(said[0]), int(said[2])
    assert started < 64 and refused > 1900, logs
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=5.0), tagged_pids(tag)
