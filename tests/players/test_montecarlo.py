"""The playout engine (`players._shared.playout`) and the flat Monte-Carlo bot
(`players.montecarlo`).
"""

from __future__ import annotations

import random
import time

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.board import CXBoard, CXGameState, has_run
from players._shared.common import immediate_threats, immediate_wins
from players._shared.playout import Position, candidate_columns, random_playout, tactical_moves
from players.montecarlo import MonteCarlo
from tests.conftest import ALL_BOARDS
from tests.helpers import make
from tests.tactics import random_position


# ------------------------------------------------------------------------- playouts
@settings(max_examples=150, deadline=None)
@given(board=st.sampled_from(ALL_BOARDS), seed=st.integers(0, 2**32 - 1))
def test_position_play_agrees_with_cxboard(board, seed):
    """`Position.play` / `wins_at` detect exactly the wins CXBoard detects, move by move."""
    M, N, K = board
    rng = random.Random(seed)
    B = CXBoard(M, N, K)
    pos = Position.from_board(B)
    for n in range(min(M * N, 300)):
        c = rng.choice(B.getAvailableColumns())
        me = pos.player
        full_check = M * N <= 100 or n % 25 == 0  # the CXBoard tactics are slow on big boards
        if full_check:
            assert [c for c in pos.free if pos.wins_at(c, me)] == immediate_wins(B)
            assert [c for c in pos.free if pos.wins_at(c, 3 - me)] == immediate_threats(B)
        after = pos.wins_at(c, 3 - me, above=1)
        wins_here = pos.wins_at(c, me)
        won = pos.play(c)
        assert won == wins_here
        state = B.markColumn(c)
        assert won == (state is not CXGameState.OPEN and state is not CXGameState.DRAW)
        assert sorted(pos.free) == B.getAvailableColumns()
        if state is not CXGameState.OPEN:
            break
        if full_check:  # the opponent's win on top of our piece
            assert after == (c in immediate_wins(B))
    again = Position.from_board(B)
    assert (again.grid, again.heights, again.player) == (pos.grid, pos.heights, pos.player)


@settings(max_examples=200, deadline=None)
@given(board=st.sampled_from(ALL_BOARDS), seed=st.integers(0, 2**32 - 1),
       start=st.integers(0, 60))
def test_random_playout_result_matches_the_final_position(board, seed, start):
    """The playout's winner has K in a row (checked with CXBoard's has_run), the loser has not,
    the winner made the last move; a draw is a full board without any run."""
    M, N, K = board
    assume(M * N <= 2500)
    rng = random.Random(seed)
    B = random_position(M, N, K, rng, max_moves=start)
    pos = Position.from_board(B)
    result = random_playout(pos, rng.random)
    H = M + 1
    bits = {1: 0, 2: 0}
    for j in range(N):
        for h in range(pos.heights[j]):
            bits[pos.grid[(j + 1) * H + h]] |= 1 << (j * H + h)
    runs = {p: any(has_run(bits[p], s, K) for s in (1, H, H + 1, H - 1)) for p in (1, 2)}
    n1, n2 = bin(bits[1]).count("1"), bin(bits[2]).count("1")
    assert n1 - n2 in (0, 1)
    if result == 0:
        assert sum(pos.heights) == M * N and not runs[1] and not runs[2]
    else:
        assert result in (1, 2)
        assert runs[result] and not runs[3 - result]
        assert (n1 - n2 == 1) == (result == 1)


def test_random_playout_stops_at_the_deadline_and_at_the_move_cap():
    pos = Position.from_board(CXBoard(100, 100, 30))  # ~10000 moves to the end
    rnd = random.Random(1).random
    assert random_playout(pos.copy(), rnd, end_s=time.perf_counter()) is None
    capped = pos.copy()
    assert random_playout(capped, rnd, max_moves=50) == 0
    assert sum(capped.heights) == 50


def test_tactical_moves_and_candidates():
    B = CXBoard.from_moves(6, 7, 4, [3, 3, 2, 2, 4])  # X: 2 3 4 on the bottom row
    pos = Position.from_board(B)
    assert tactical_moves(pos) == ([], [1, 5])  # O must block both ends
    B.markColumn(1)
    assert tactical_moves(Position.from_board(B)) == ([5], [])
    assert candidate_columns(pos)[0] == 3
    assert sorted(candidate_columns(pos)) == B.getAvailableColumns()
    wide = Position.from_board(CXBoard(50, 50, 10))
    assert candidate_columns(wide) == [24]
    wide.play(0)
    wide.play(49)
    assert sorted(candidate_columns(wide)) == [0, 1, 2, 47, 48, 49]


# ----------------------------------------------------------------------- the bot


def test_does_not_give_away_an_immediate_win():
    """Positions where some column lets the opponent win on top of our piece (and no direct
    tactic applies): those columns are never played while another one is safe."""
    rng = random.Random(8)
    found = 0
    while found < 15:
        B = random_position(6, 7, 4, rng, max_moves=20)
        if immediate_wins(B) or immediate_threats(B):
            continue
        pos = Position.from_board(B)
        legal = B.getAvailableColumns()
        dangerous = [c for c in legal if pos.wins_at(c, 3 - pos.player, above=1)]
        if not dangerous or len(dangerous) == len(legal):
            continue
        found += 1
        assert make(MonteCarlo, B, found, playouts=100).selectColumn(B.copy()) not in dangerous

