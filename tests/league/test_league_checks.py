"""The conformance check of a submitted version: one that passes, one that fails with its stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.league import League
from arena.league.checks import check_next

ROOT = Path(__file__).parents[2]

BROKEN = b'''import sys
from arena.player import CXPlayer


class Broken(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        print("my bot is confused about the board", file=sys.stderr)
        raise RuntimeError("boom")

    def selectColumn(self, board):
        return 0

    def playerName(self):
        return "Broken"
'''


def test_check_passes_and_fails(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    good = league.submit("ann", [("L0.py", (ROOT / "players" / "L0.py").read_bytes())])
    bad = league.submit("ann", [("broken.py", BROKEN)])
    assert check_next(league) == good.id
    assert check_next(league) == bad.id
    assert check_next(league) is None
    done_good, done_bad = league.submission(good.id), league.submission(bad.id)
    assert done_good is not None and done_bad is not None
    assert done_good.status == "rating", done_good.check_summary
    assert "PASSED" in done_good.check_summary
    assert done_bad.status == "failed"
    assert "PROBLEMS" in done_bad.check_summary
    assert "confused about the board" in done_bad.check_stderr


def test_league_check_command_checks_every_queued_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    lg = tmp_path / "lg"
    assert main(["league", "init", str(lg)]) == 0
    assert main(["league", "add-user", str(lg), "bob"]) == 0
    bot = tmp_path / "broken.py"
    bot.write_bytes(BROKEN)
    assert main(["league", "submit", str(lg), "--user", "bob", str(bot)]) == 0
    capsys.readouterr()
    assert main(["league", "check", str(lg)]) == 0
    out = capsys.readouterr().out
    assert "bob version 1: failed" in out and "1 version(s) checked" in out
    assert League.open(lg).submission(1).status == "failed"  # type: ignore[union-attr]
