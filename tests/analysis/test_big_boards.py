"""Analysis where the exact solver does not reach (issue 42, point 8): it says what it can judge
there, reports its progress, and spends a position's time on the threat search that decides
verdicts, not on an estimate that changes none."""

from __future__ import annotations

from typing import Any

from arena.analysis.engine import NO_SOLVER_ESTIMATE_SHARE, analyse_game
from arena.analysis.render import render_analysis
from players._shared.oracle import oracle_for


class Recording:
    """The project's oracle, noting the budget of every estimate the analysis asks for."""

    def __init__(self, M: int, N: int, K: int) -> None:
        self.inner = oracle_for(M, N, K)
        self.exact, self.kind = self.inner.exact, self.inner.kind
        self.budgets: list[tuple[float, int | None]] = []

    def estimate(self, moves: list[int], budget_s: float,
                 max_depth: int | None = None) -> Any:
        self.budgets.append((budget_s, max_depth))
        return self.inner.estimate(moves, budget_s, max_depth)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# X builds 9 10 11 on the bottom row of a 20x20 board while O plays far away: O's third move
# (ply 5) leaves the open three, so X's open four (ply 6) wins by force; X's last move (ply 8)
# wins more slowly than it could (8 or 13 at once): an inaccuracy, not a blunder
MOVES = [9, 0, 10, 19, 11, 0, 12, 19, 2]
BUDGET_S = 0.2


def test_a_board_without_the_solver_spends_little_on_estimates_and_finds_the_tactics() -> None:
    oracle = Recording(20, 20, 5)
    assert not oracle.exact
    steps: list[tuple[int, int]] = []
    a = analyse_game(oracle, 20, 20, 5, MOVES, budget_s=BUDGET_S,  # type: ignore[arg-type]
                     progress=lambda done, total: steps.append((done, total)))
    value_estimates = [b for b, depth in oracle.budgets if depth is None]
    assert value_estimates and max(value_estimates) <= BUDGET_S * NO_SOLVER_ESTIMATE_SHARE
    # the tactics still decide
    seen = [(v.ply, v.verdict, v.reason) for v in a.verdicts]
    assert {v.ply for v in a.blunders()} == {5}, seen
    assert "allowed a forced loss" in a.verdicts[5].reason
    assert a.verdicts[8].verdict == "inaccuracy", seen
    # progress: every step once, in order, up to 2 * moves + 1
    total = 2 * len(MOVES) + 1
    assert steps == [(i, total) for i in range(1, total + 1)]


def test_the_text_says_what_can_be_judged_without_the_solver() -> None:
    a = analyse_game(oracle_for(20, 20, 5), 20, 20, 5, MOVES, budget_s=BUDGET_S)
    text = render_analysis(a, ("X", "O"))
    assert "no exact solver for this board" in text
    assert "What it can judge here: a missed immediate win" in text
    exact = analyse_game(oracle_for(4, 5, 4), 4, 5, 4, [2, 2, 1], budget_s=BUDGET_S)
    assert "What it can judge here" not in render_analysis(exact)
