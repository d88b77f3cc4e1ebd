"""check-bot plays the boards in the tournament's order (dearest first: `Game.cost()`, as
`arena.tournament.schedule` orders a tournament's games) in one reused process, as a tournament
worker does, and then the cheapest game once more in a fresh process. A bot that computes its
column order once per process (on its first board) crashes or plays illegally on a smaller
board: check-bot fails it, as the tournament would."""

from __future__ import annotations

from pathlib import Path

from arena.onboarding.conformance import run_check
from arena.records import record_label
from arena.referee.referee import course_game

ONCE_BOT = '''
from arena.player import CXPlayer


class OnceBot(CXPlayer):
    order = None  # computed once per process: the classic bug

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        if OnceBot.order is None:
            OnceBot.order = sorted(range(N), key=lambda c: abs(c - N // 2))

    def selectColumn(self, B):
        for c in OnceBot.order:
            if not B.fullColumn(c):
                return c
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "OnceBot"
'''

GOOD_BOT = '''
from arena.player import CXPlayer


class Good(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.order = sorted(range(N), key=lambda c: abs(c - N // 2))

    def selectColumn(self, B):
        return next(c for c in self.order if not B.fullColumn(c))

    def playerName(self):
        return "Good"
'''

BOARDS = [(4, 4, 4), (6, 7, 4), (12, 12, 5)]


def test_a_bot_that_computes_its_columns_once_per_process_fails(tmp_path: Path) -> None:
    bot = tmp_path / "oncebot.py"
    bot.write_text(ONCE_BOT)
    report = run_check(str(bot), boards=BOARDS, timeout_s=1.0, quick=True, fresh_game=True)
    assert not report.passed, report.text()
    assert any(("4x4x4" in f or "6x7x4" in f) and "not once per process" in f
               for f in report.failures), report.failures


def test_the_boards_come_dearest_first_then_the_cheapest_in_a_fresh_process(
        tmp_path: Path) -> None:
    bot = tmp_path / "good.py"
    bot.write_text(GOOD_BOT)
    report = run_check(str(bot), boards=BOARDS, timeout_s=1.0, quick=True, fresh_game=True)
    assert report.passed, report.text()
    played = [(record_label(g.game), g.bot_first, g.fresh) for g in report.games]
    assert played == [("12x12x5", True, False), ("12x12x5", False, False),
                      ("6x7x4", True, False), ("6x7x4", False, False),
                      ("4x4x4", True, False), ("4x4x4", False, False),
                      ("4x4x4", True, True)]
    assert report.games[-1].startup_s is not None  # its own process: started for it
    assert "fresh process" in report.games[-1].describe()
    costs = [course_game(*b).cost() for b in reversed(BOARDS)]
    assert costs == sorted(costs, reverse=True)
    without = run_check(str(bot), boards=BOARDS, timeout_s=1.0, quick=True)
    assert [g.fresh for g in without.games] == [False] * 6  # the league's check
