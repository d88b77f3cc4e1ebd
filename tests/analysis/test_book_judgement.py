"""Issue #33: a move whose value the opening book proves is judged from that value, not called
`unclear`: on a real 6x7x4 game, X's first move in the centre (the only winning first move,
"win (book)") is `best`, and the position after it carries the book's value (a loss for O)."""

from __future__ import annotations

from arena.analysis.engine import analyse_game, describe_value
from arena.analysis.render import render_analysis
from players._shared.oracle import oracle_for

# a 6x7 K=4 game played by L1 against L1 (X's first move put in the centre), O won
M, N, K = 6, 7, 4
GAME = "3211031652006054412432322646640410655533"


def _game() -> list[int]:
    return [int(c) for c in GAME]


def test_the_book_move_is_best_and_its_value_carries_over() -> None:
    moves = _game()
    assert moves[0] == 3  # X opens in the centre
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.05)
    assert describe_value(a.positions[0]) == "win (book)"
    first = a.verdicts[0]
    assert first.verdict == "best", first
    assert "book" in first.reason, first
    # the position after the centre move: lost for O, by the book (not an estimate)
    after = a.positions[1]
    assert (after.kind, after.outcome) == ("book", -1), after
    assert a.verdicts[1].verdict != "unclear", a.verdicts[1]
    text = render_analysis(a)
    assert "loss (book)" in text


def test_a_move_the_book_does_not_list_is_not_given_the_book_s_value() -> None:
    moves = [0] + _game()[1:6]  # X opens on the edge: the book does not say it keeps the win
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.05)
    assert a.verdicts[0].verdict != "best"
    # not the book's value carried over (a loss for O) but the published one (issue #42,
    # arena/analysis/known.py): O, to move, wins; X's edge opening gave the win away
    assert a.positions[1].outcome == 1, a.positions[1]
    assert (a.verdicts[0].verdict, a.verdicts[0].reason) == ("blunder", "won -> lost")
