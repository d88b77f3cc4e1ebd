"""The alphabeta bot and the pieces it shares with minimax: bitboard helpers, the heuristic (from
scratch and incremental), exact scores against a brute-force solver, tactics, legality on every
board, time budget, bounded table, determinism.

The naive reference implementations (`naive_heuristic`, `naive_value`, `naive_solve`, in
tests/helpers.py) work on `CXBoard` only, so they share no code with the bots; test_minimax.py
uses them too.
"""

from __future__ import annotations

import math
import random
import time

import pytest

from arena.board import CXBoard, CXGameState, has_run
from players._shared.bitboard import BitPosition, centre_order, geometry
from players._shared.common import fallback_column, forced_column, immediate_threats, immediate_wins
from players._shared.engine import SearchResult
from players._shared.heuristic import GridPosition, bound, evaluate, window_count, window_masks
from players._shared.search import BitSearch, GridSearch
from players._shared.searchbot import table_entries
from players.alphabeta import AlphaBeta, solve
from tests.conftest import ALL_BOARDS
from tests.helpers import L2, L3, WINS, make, naive_heuristic, naive_solve
from tests.tactics import random_position


# --------------------------------------------------------------------- bitboards
def test_centre_order():
    assert centre_order(7) == (3, 2, 4, 1, 5, 0, 6)
    assert centre_order(4) == (2, 1, 3, 0)
    assert centre_order(1) == (0,)


@pytest.mark.parametrize("board", ALL_BOARDS[:31] + [(3, 3, 2), (4, 6, 3), (8, 8, 6)])
def test_win_cells_and_bitposition_agree_with_the_rules(board):
    """Every empty cell `win_cells` reports (and only those) gives K in a row; BitPosition's
    legal columns, wins and threats agree with CXBoard and the shared tactics."""
    M, N, K = board
    g = geometry(M, N, K)
    rng = random.Random(M * 100 + N * 10 + K)
    for _ in range(40):
        b = random_position(M, N, K, rng, max_moves=M * N)
        b1, b2 = b.bitboards
        mask = b1 | b2
        for bits in (b1, b2):
            expected = 0
            for j in range(N):
                for h in range(M):
                    x = g.cell(h, j)
                    if not mask & x and has_run(bits | x, 1, K) | has_run(bits | x, M + 1, K) \
                            | has_run(bits | x, M + 2, K) | has_run(bits | x, M, K):
                        expected |= x
            assert g.win_cells(bits, mask) == expected
        pos = BitPosition.from_board(b)
        assert pos.legal_columns() == b.getAvailableColumns()
        assert pos.winning_moves() == immediate_wins(b)
        assert pos.threats() == immediate_threats(b)
        assert pos.moves == b.numOfMarkedCells()
        for c in pos.legal_columns():
            q = pos.copy()
            won = q.is_winning_move(c)
            q.play(c)
            state = b.markColumn(c)
            assert won == (state in WINS)
            assert (q.current, q.mask) == (b.bitboards[b.currentPlayer()], mask | q.mask)
            assert q.key() == BitPosition.from_board(b).key()
            b.unmarkColumn()


def test_forced_and_fallback_column():
    b = CXBoard.from_moves(6, 7, 4, [0, 6, 0, 6, 0])  # P2 must block column 0
    assert forced_column(b) == 0 and fallback_column(b) == 0
    b.markColumn(1)  # now P1 wins in column 0
    assert forced_column(b) == 0
    assert forced_column(CXBoard(6, 7, 4)) is None
    assert fallback_column(CXBoard(6, 7, 4)) == 3
    full_centre = CXBoard.from_moves(4, 4, 4, [2, 2, 2, 2])
    assert fallback_column(full_centre) == 1


# --------------------------------------------------------------------- heuristic
@pytest.mark.parametrize("board", [(4, 4, 4), (6, 7, 4), (5, 4, 5), (7, 7, 5), (6, 5, 3),
                                   (20, 20, 10), (12, 9, 6)])
def test_heuristic_from_scratch_and_incremental_match_a_naive_scan(board):
    M, N, K = board
    rng = random.Random(sum(board))
    assert len(window_masks(geometry(M, N, K))) == window_count(M, N, K)
    for _ in range(12):
        b = random_position(M, N, K, rng, max_moves=rng.choice([3, M * N // 3, M * N]))
        expected = naive_heuristic(b)
        assert abs(expected) < bound(M, N, K)
        b1, b2 = b.bitboards
        mine, theirs = (b2, b1) if b.currentPlayer() else (b1, b2)
        if M * N <= 64:
            assert evaluate(window_masks(geometry(M, N, K)), mine, theirs) == expected
        pos = GridPosition.from_moves(M, N, K, b.moves())
        assert pos.evaluate() == expected
        assert pos.score == pos.recompute_score()


def test_incremental_heuristic_update_of_the_bitboard_search():
    """`BitSearch.delta` (what the search adds on each move) keeps the heuristic equal to a
    from-scratch evaluation after every move."""
    rng = random.Random(6)
    for M, N, K in [(6, 7, 4), (7, 7, 5), (4, 5, 4), (8, 8, 3)]:
        engine = BitSearch(M, N, K)
        windows = window_masks(engine.g)
        for _ in range(40):
            pos = BitPosition.from_board(random_position(M, N, K, rng, M * N - 1))
            ev = evaluate(windows, pos.current, pos.opponent)
            for c in pos.legal_columns():
                m = (pos.mask + engine.g.cell(0, c)) & engine.g.columns[c]
                child = pos.copy()
                child.play(c)
                assert evaluate(windows, child.current, child.opponent) == -(
                    ev + engine.delta(m, pos.current, pos.opponent))


def test_grid_position_undo_restores_everything_and_detects_wins():
    rng = random.Random(5)
    for M, N, K in [(6, 7, 4), (20, 20, 10), (7, 4, 5)]:
        for _ in range(5):
            pos = GridPosition(M, N, K, seed=3)
            b = CXBoard(M, N, K)
            snapshots = []
            while b.gameState() is CXGameState.OPEN:
                snapshots.append((pos.score, pos.key, list(pos.heights), pos.counts[0][:],
                                  pos.counts[1][:]))
                c = rng.choice(b.getAvailableColumns())
                assert pos.wins_at(c, pos.player) == (b.markColumn(c) in WINS)
                b.unmarkColumn()
                assert pos.play(c) == (b.markColumn(c) in WINS)
            while snapshots:
                pos.undo()
                assert (pos.score, pos.key, pos.heights, pos.counts[0],
                        pos.counts[1]) == snapshots.pop()
            assert not pos.won and pos.moves == 0


# ------------------------------------------------------------- exact scores
@pytest.mark.parametrize("board", [(4, 4, 4), (4, 5, 3), (5, 4, 4), (4, 4, 3), (3, 5, 3)])
def test_solve_matches_brute_force_on_small_boards(board):
    """`BitSearch.solve` (no depth limit) equals a brute-force negamax, Pons' convention."""
    M, N, K = board
    rng = random.Random(M * N * K)
    memo: dict = {}
    engine = BitSearch(M, N, K)
    checked = 0
    for _ in range(3000):
        if checked == 30:
            break
        b = random_position(M, N, K, rng, max_moves=M * N)
        if b.numOfFreeCells() > 11:
            continue
        b1, b2 = b.bitboards
        cur = b2 if b.currentPlayer() else b1
        score, _ = engine.solve(cur, b1 | b2, b.numOfMarkedCells())
        assert score == naive_solve(b, memo), b.moves()
        checked += 1
    assert checked == 30


def test_pons_examples():
    """The two examples of Pons' README: "4455" scores 18 and "44455554221" scores -15;
    `alphabeta.solve` is the entry point on a CXBoard."""
    engine = BitSearch(6, 7, 4)
    assert engine.solve_board([3, 3, 4, 4])[0] == 18
    assert engine.solve_board([3, 3, 3, 4, 4, 4, 4, 3, 1, 1, 0])[0] == -15
    score, nodes = solve(CXBoard.from_moves(6, 7, 4, [3, 3, 3, 4, 4, 4, 4, 3, 1, 1, 0]))
    assert score == -15 and nodes > 0


def test_a_full_depth_search_is_exact_and_proven_on_both_engines():
    """Iterative deepening to the end: the bitboard engine and the grid engine (searching every
    column) report the exact score of late 6x7 positions, marked proven. (When the root
    tactics leave a single sensible move it is played at once, unscored: then that move must
    keep the exact score.)"""
    quiet = [(m, s) for m, s in L3
             if not (lambda p: p.winning_moves() or p.threats())(
                 BitPosition.from_board(CXBoard.from_moves(6, 7, 4, m)))]
    late = [(m, s) for m, s in quiet if len(m) >= 31][:20]
    assert len(late) == 20
    checker = BitSearch(6, 7, 4)
    searched = 0
    for moves, expected in late:
        b = CXBoard.from_moves(6, 7, 4, moves)
        b1, b2 = b.bitboards
        bit = BitSearch(6, 7, 4)
        grid = GridSearch(6, 7, 4, radius=7)
        assert grid.sync(moves, math.inf)
        for engine, r in ((bit, bit.best_move(b2 if len(moves) % 2 else b1, b1 | b2,
                                              len(moves), math.inf)),
                          (grid, grid.best_move(math.inf))):
            if r.depth == 0 and not r.proven:  # decided by the root tactics, unscored
                assert -checker.solve_board(moves + [r.col])[0] == expected
            else:
                assert r.proven and r.score == expected * engine.scale
                searched += 1
    assert searched >= 25  # of 40 answers (the others: a single non-losing move)


def test_solve_outcome_keeps_the_exact_outcome():
    """`BitSearch.solve_outcome` (the exact attempt after the heuristic search) plays a move
    keeping the win, draw or loss, whatever the heuristic's guess was; proven, score = outcome
    times scale."""
    checker = BitSearch(6, 7, 4)
    seen = set()
    for moves, expected in L2[:60]:
        b = CXBoard.from_moves(6, 7, 4, moves)
        pos = BitPosition.from_board(b)
        if pos.winning_moves() or pos.threats():
            continue
        engine = BitSearch(6, 7, 4)
        engine.set_position(pos.current, pos.mask, pos.moves)
        decided, cols = engine.root()
        if decided is not None:
            continue
        for guess in cols[-1:]:  # the worst-placed candidate as the heuristic's guess
            r = engine.solve_outcome(SearchResult(guess, 0, 5, 0, False), math.inf)
            assert r is not None and r.proven
            outcome = (expected > 0) - (expected < 0)
            assert r.score == outcome * engine.scale
            after = -checker.solve_board(moves + [r.col])[0]
            assert (after > 0) - (after < 0) == outcome
            seen.add(outcome)
    assert seen == {-1, 0, 1}


def test_depth_limited_scores_stay_inside_the_heuristic_band():
    """Below a proven result, scores are heuristic values: strictly inside (-scale, scale)."""
    rng = random.Random(11)
    for M, N, K in [(6, 7, 4), (7, 7, 5)]:
        engine = BitSearch(M, N, K)
        for _ in range(10):
            b = random_position(M, N, K, rng, max_moves=10)
            b1, b2 = b.bitboards
            r = engine.best_move(b2 if b.currentPlayer() else b1, b1 | b2,
                                 b.numOfMarkedCells(), math.inf, max_depth=3)
            if not r.proven:
                assert abs(r.score) < engine.scale
            assert r.col in b.getAvailableColumns()


# -------------------------------------------------------------------- the bot
def test_follows_a_game_on_a_big_board_incrementally():
    """On 50x50 the bot keeps its position between moves (only new moves are replayed) and its
    answers stay legal and consistent with a fresh bot's view of the board."""
    rng = random.Random(2)
    b = CXBoard(50, 50, 10)
    p = make(AlphaBeta, b, timeout_s=0.1)
    for _ in range(30):
        c = p.selectColumn(b.copy())
        assert c in b.getAvailableColumns()
        b.markColumn(c)
        b.markColumn(rng.choice(b.getAvailableColumns()))
        assert b.gameState() is CXGameState.OPEN
    grid = p.grid
    assert grid is not None and grid.pos.moves == b.numOfMarkedCells() - 2
    fresh = GridPosition.from_moves(50, 50, 10, b.moves()[:-2])
    assert grid.pos.score == fresh.score


def test_moves_at_once_when_the_result_is_proven():
    """A forced win in a few moves is found and played without using the whole budget."""
    b = CXBoard.from_moves(6, 7, 4, [3, 3, 4, 4])  # "4455": P1 wins (score 18)
    p = make(AlphaBeta, b, timeout_s=60.0)
    start = time.perf_counter()
    c = p.selectColumn(b.copy())
    assert time.perf_counter() - start < 30
    assert p.last_result is not None and p.last_result.proven
    assert p.last_result.score == 18 * bound(6, 7, 4)
    assert c in (2, 5)  # making the open three


def test_transposition_table_stays_bounded():
    engine = BitSearch(6, 7, 4, tt_entries=2000)
    engine.best_move(0, 0, 0, time.perf_counter() + 0.5)
    assert 0 < len(engine.tt) <= 2000 + 64
    grid = GridSearch(20, 20, 10, tt_entries=500)
    grid.sync([10, 10, 9], math.inf)
    grid.best_move(time.perf_counter() + 0.5)
    assert 0 < len(grid.tt) <= 501
    assert table_entries(0.0) == 1 << 14 and table_entries(1000) == 1 << 20
    assert table_entries(0.1) < table_entries(1.0) < table_entries(10.0)


def test_wins_against_l1_on_small_boards():
    """A strength sanity check that cannot flake: alphabeta (fixed depth, so no clock) never
    loses to L1 and wins most games."""
    from players.L1 import L1

    points = 0
    for g in range(6):
        b = CXBoard(6, 7, 4)
        ab = make(AlphaBeta, b, timeout_s=60.0, seed=g, max_depth=4)
        l1 = L1()
        l1.seed = g
        ab_first = g % 2 == 0
        l1.initPlayer(6, 7, 4, not ab_first, 60.0)
        if not ab_first:
            ab.initPlayer(6, 7, 4, False, 60.0)
        bots = (ab, l1) if ab_first else (l1, ab)
        while b.gameState() is CXGameState.OPEN:
            b.markColumn(bots[b.currentPlayer()].selectColumn(b.copy()))
        mine = CXGameState.WINP1 if ab_first else CXGameState.WINP2
        assert b.gameState() in (mine, CXGameState.DRAW)
        points += 3 if b.gameState() is mine else 1
    assert points >= 15
