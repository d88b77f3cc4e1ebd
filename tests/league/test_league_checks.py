"""The conformance check of a submitted version: one that passes, one that fails with its stderr."""

from __future__ import annotations

from pathlib import Path

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
