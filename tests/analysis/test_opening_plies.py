"""`cxarena analyze` of a game that started from an opening (issue 51): the opening's moves,
made by the harness for both sides, are judged but marked "opening", never printed as a
player's BLUNDER and never counted in its blunders."""

from __future__ import annotations

from arena.analysis.engine import analyse_game
from arena.analysis.render import render_analysis, viewer_data
from players._shared.oracle import oracle_for

M, N, K = 6, 7, 4
# a 2-ply opening whose first move gives X's win away (the edge: "won -> lost"), then play
MOVES = [0, 3, 3, 2, 2, 4]


def test_an_opening_blunder_is_the_openings_not_the_players() -> None:
    a = analyse_game(oracle_for(M, N, K), M, N, K, MOVES, budget_s=0.05, opening=2)
    assert (a.verdicts[0].verdict, a.verdicts[0].reason) == ("blunder", "won -> lost")
    assert a.blunders(1) == [] or all(v.ply >= 2 for v in a.blunders(1))
    text = render_analysis(a, ("alice", "bob"))
    first = next(line for line in text.splitlines() if line.startswith("   1  "))
    assert "BLUNDER" not in first and "alice" not in first, first
    assert "opening (X)" in first and "opening (played by the harness for X" in first, first
    assert "blunder: won -> lost" in first, first  # still judged
    assert "(the 2 moves of the opening are not counted)" in text
    assert viewer_data(a)["moves"][0]["opening"] is True
    # the same game without an opening: the move is alice's blunder
    plain = render_analysis(analyse_game(oracle_for(M, N, K), M, N, K, MOVES, budget_s=0.05),
                            ("alice", "bob"))
    first = next(line for line in plain.splitlines() if line.startswith("   1  "))
    assert "alice" in first and "BLUNDER: won -> lost" in first, first
