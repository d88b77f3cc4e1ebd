"""tests/data/won_positions.txt (the "won positions kept" benchmark's positions, made by
`python -m bench.won_positions`): well formed, and a sample re-solved by the exact solver."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.board import CXBoard, CXGameState
from players._shared.book import BOARDS, Solver

DATA = Path(__file__).resolve().parents[1] / "data" / "won_positions.txt"


def load() -> list[tuple[int, int, int, str, int, list[int]]]:
    out = []
    for line in DATA.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            M, N, K, moves, score, winning = line.split()
            out.append((int(M), int(N), int(K), moves, int(score), [int(c) for c in winning]))
    return out


POSITIONS = load()


def test_every_k4_board_has_open_won_positions():
    assert {(M, N) for M, N, *_ in POSITIONS} == set(BOARDS)
    for M, N, K, moves, score, winning in POSITIONS:
        b = CXBoard.from_moves(M, N, K, [int(c) for c in moves])
        assert b.gameState() is CXGameState.OPEN
        assert score > 0 and winning
        assert set(winning) < set(b.getAvailableColumns())  # a mistake is possible


@pytest.mark.parametrize("board", BOARDS)
def test_a_sample_re_solves_to_the_stored_values(board):
    """The first two positions of every board: the same exact score and the same winning
    moves when solved again from scratch."""
    sample = [p for p in POSITIONS if p[:2] == board][:2]
    assert sample
    for M, N, _K, moves, score, winning in sample:
        solver = Solver(M, N, tt_entries=1 << 18)
        cur, mask, n = solver.position(moves)
        assert solver.score(cur, mask, n, float("inf")) == score
        outcomes = solver.move_scores(moves, float("inf"))
        assert outcomes is not None
        assert sorted(c for c, v in outcomes.items() if v == 1) == winning
