"""Game analysis (arena.analysis) with the project's search (players/_shared/oracle.py): the
hand-made games of tests/data/analysis name their blunder plies, exact values agree with the
pure-Python solver, the store keeps what was analysed, the text says what it found."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.analysis.engine import analyse_game, describe_value
from arena.analysis.render import render_analysis, viewer_data
from arena.analysis.store import AnalysisStore
from arena.board import CXBoard
from players._shared.bitboard import BitPosition
from players._shared.fastsolve import PySolver
from players._shared.oracle import oracle_for

DATA = Path(__file__).resolve().parents[1] / "data" / "analysis" / "games.txt"


def _games() -> list[tuple[int, int, int, list[int], set[int], bool]]:
    out = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        M, N, K, moves, blunders = line.split()
        at_least = blunders.startswith("*")
        plies = {int(x) for x in blunders.lstrip("*").split(",")}
        out.append((int(M), int(N), int(K), [int(c) for c in moves], plies, at_least))
    return out


@pytest.mark.parametrize("M, N, K, moves, plies, at_least", _games())
def test_the_analysis_names_the_blunder_plies(M, N, K, moves, plies, at_least):
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.3)
    found = {v.ply for v in a.blunders()}
    if at_least:
        assert plies <= found
    else:
        assert found == plies
    for v in a.verdicts:
        if v.ply in plies:
            assert v.better, v  # the moves that would have kept the value are named
            assert v.col not in v.better


def test_a_blunder_with_exact_values_and_its_better_moves_are_right():
    M, N, K, moves, _, _ = _games()[0]
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.3)
    v = a.verdicts[34]
    assert (v.verdict, v.reason, v.player) == ("blunder", "won -> lost", 1)
    ref = PySolver(M, N, K)

    def score(seq):
        p = BitPosition.from_board(CXBoard.from_moves(M, N, K, seq))
        return ref.solve(p.current, p.mask, p.moves)[0]

    assert score(moves[:34]) > 0 and score(moves[:35]) > 0  # won before, the opponent's after
    for c in v.better:
        assert score(moves[:34] + [c]) < 0  # each better move keeps the win
    # every exact value the analysis printed is the reference solver's
    for p in a.positions:
        if p.kind == "exact" and p.ply < len(moves):
            assert p.score == score(moves[:p.ply]), p.ply


def test_a_small_board_game_is_exact_everywhere_and_agrees_with_the_reference():
    M, N, K = 4, 5, 4
    moves = [2, 2, 1, 3, 3, 1, 0, 4, 4, 0, 2, 2, 1]
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.5)
    assert a.exact_from() == 0 or a.positions[0].kind == "book"
    ref = PySolver(M, N, K)
    for p in a.positions[:-1]:
        if p.kind != "exact":
            continue
        b = BitPosition.from_board(CXBoard.from_moves(M, N, K, moves[:p.ply]))
        assert p.score == ref.solve(b.current, b.mask, b.moves)[0]
    assert {v.verdict for v in a.verdicts} <= {"best", "inaccuracy", "blunder"}


def test_store_round_trip_and_text(tmp_path):
    M, N, K, moves, _, _ = _games()[1]
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.2)
    store = AnalysisStore(tmp_path)
    store.put("g1", a)
    store.save()
    again = AnalysisStore(tmp_path).get("g1")
    assert again == a
    text = render_analysis(a, ("alice", "bob"))
    assert "BLUNDER: missed an immediate win; better: 3" in text
    assert "estimate" in text and "Blunders: X alice: 2, O bob: 1." in text
    data = viewer_data(a)
    assert len(data["positions"]) == len(moves) + 1
    assert [m["verdict"] for m in data["moves"]].count("blunder") == 3


def test_describe_value_counts_the_side_to_move_s_own_moves():
    M, N, K, moves, _, _ = _games()[0]
    a = analyse_game(oracle_for(M, N, K), M, N, K, moves, budget_s=0.3)
    assert describe_value(a.positions[37]) == "win in 1"  # O wins with its next stone
    assert describe_value(a.positions[-1]) == "lost"


def test_a_broken_analysis_file_is_a_clear_error(tmp_path):
    (tmp_path / "analysis.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a readable analysis file"):
        AnalysisStore(tmp_path)
