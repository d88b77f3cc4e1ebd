"""`cxarena doctor`, and the containment line `match` prints at its start; `--max-tasks`."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.referee import cgroups


def test_doctor_says_what_the_machine_offers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    for part in ("bubblewrap: ", "seccomp: ", "cgroups mounted: ", "cgroups used: ",
                 cgroups.detect().summary()):
        assert part in out, out
    assert "to get the rest:" in out or "nothing to do" in out


def test_match_prints_the_containment_line_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "L0", "L1", "--games", "1", "--board", "4", "4", "3",
                 "--time", "1", "--max-tasks", "64"]) == 0
    err = capsys.readouterr().err
    assert err.count("containment: ") == 1 and cgroups.detect().summary() in err, err


def test_match_without_cgroups_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "L0", "L1", "--games", "1", "--board", "4", "4", "3",
                 "--time", "1", "--no-cgroups"]) == 0
    assert "containment: rlimits only" in capsys.readouterr().err


def test_a_tiny_task_cap_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "L0", "L1", "--board", "4", "4", "3", "--time", "1",
                 "--max-tasks", "3"]) == 2
    assert "--max-tasks must be 0 (no cap) or at least 16" in capsys.readouterr().err
    assert main(["check-bot", "L0", "--max-tasks", "3"]) == 2
    assert "--max-tasks" in capsys.readouterr().err


def test_the_report_says_what_contained_the_bots() -> None:
    from types import SimpleNamespace

    from arena.report.html import _containment

    def game(extra: dict[str, object]) -> SimpleNamespace:
        return SimpleNamespace(record=SimpleNamespace(extra=extra))

    data = SimpleNamespace(games=[game({"cgroup": "v1"}), game({"cgroup": "v1"}),
                                  game({"cgroup": "none"})])
    assert _containment(data) == (  # type: ignore[arg-type]
        "cgroup v1 in 2 of 3 games; rlimits only; shared memory and child processes are not "
        "counted in 1 of 3 games")
    only = SimpleNamespace(games=[game({"cgroup": "none"})] * 2)
    assert _containment(only).startswith("rlimits only")  # type: ignore[arg-type]
    assert _containment(SimpleNamespace(games=[game({})])) == ""  # type: ignore[arg-type]

