"""The K=4 opening book (`players._shared.book`): its data agree with the published values and,
re-derived by the exact solver, with its own entries; the search bots play from it."""

from __future__ import annotations

import json

import pytest

from arena.board import CXBoard
from players._shared import book
from players.alphabeta import AlphaBeta
from players.minimax import Minimax

DATA = json.loads(book.BOOK_PATH.read_text())["boards"]
#: boards whose book entries the solver re-derives in well under a second each
CHEAP = [(4, 4), (4, 5), (5, 4), (6, 4)]


def test_every_k4_board_has_its_published_value_at_the_root():
    assert sorted(DATA) == sorted(f"{M}x{N}" for M, N in book.BOARDS)
    for M, N in book.BOARDS:
        e = book.entry(M, N, 4, [])
        assert e is not None and e.moves, (M, N)
        assert e.outcome == book.OUTCOME_OF[book.PUBLISHED[(M, N)]], (M, N)
        assert e.source in ("solver", "published")
        assert all(0 <= c < N for c in e.moves)
    # the literature's one named first move: only the centre wins on 6x7
    assert book.entry(6, 7, 4, []).moves == (3,)


def test_published_values_match_the_shared_reference_table():
    """PUBLISHED is a copy of connect4_board_values.csv (rows, columns) for the 16 boards."""
    table = {"4x4": "draw", "4x5": "draw", "4x6": "second", "4x7": "draw", "5x4": "draw",
             "5x5": "draw", "5x6": "draw", "5x7": "draw", "6x4": "draw", "6x5": "draw",
             "6x6": "second", "6x7": "first", "7x4": "draw", "7x5": "draw", "7x6": "first",
             "7x7": "draw"}
    assert {f"{M}x{N}": v for (M, N), v in book.PUBLISHED.items()} == table


@pytest.mark.parametrize("board", CHEAP)
def test_the_solver_re_derives_the_book_entries(board):
    """Every stored position of the cheap boards, solved again from scratch: same outcome,
    same set of value-keeping moves."""
    M, N = board
    positions = DATA[f"{M}x{N}"]["positions"]
    assert "" in positions and len(positions) >= 2
    for seq, stored in positions.items():
        assert stored["source"] == "solver"
        scores = book.Solver(M, N, tt_entries=1 << 16).move_scores(seq, float("inf"))
        assert scores is not None
        best = max(scores.values())
        assert stored["outcome"] == best, (board, seq)
        assert sorted(stored["moves"]) == sorted(c for c, v in scores.items() if v == best)


def test_a_sampled_entry_of_a_bigger_board_is_right():
    """One reply entry of 4x6 (a second-player win), re-derived: after a first move in the
    centre the book's reply keeps the win for the second player."""
    positions = DATA["4x6"]["positions"]
    seq = min(k for k in positions if k)  # a first move
    stored = positions[seq]
    assert stored["source"] == "solver" and stored["outcome"] == 1
    solver = book.Solver(4, 6, tt_entries=1 << 18)
    cur, mask, moves = solver.position(seq)
    g = solver.g
    col = stored["moves"][0]
    m = (mask + g.bottom) & g.columns[col]
    assert solver.outcome(cur ^ mask, mask | m, moves + 1, float("inf")) == -1


def test_lookup_mirrors_positions():
    for M, N in book.BOARDS:
        for c in range(N):
            e, mirrored = book.entry(M, N, 4, [c]), book.entry(M, N, 4, [N - 1 - c])
            assert (e is None) == (mirrored is None)
            if e is not None and mirrored is not None:
                assert sorted(mirrored.moves) == sorted(N - 1 - x for x in e.moves)
                if 2 * c != N - 1:  # not the centre column: the preferred move is mirrored
                    assert mirrored.moves[0] == N - 1 - e.moves[0]
                assert mirrored.outcome == e.outcome
    assert book.entry(6, 7, 5, []) is None  # K=5: no book
    assert book.entry(6, 7, 4, [3, 3, 3]) is None  # deeper than the book


@pytest.mark.parametrize("cls", [AlphaBeta, Minimax])
@pytest.mark.parametrize("board", book.BOARDS)
def test_search_bots_open_with_a_value_keeping_move_at_once(cls, board):
    """As first player the bot plays the book's move without searching (no node), and where
    the solver built the entry, that move keeps the game value."""
    M, N = board
    p = cls()
    p.seed = 1
    p.initPlayer(M, N, 4, True, 1.0)
    col = p.selectColumn(CXBoard(M, N, 4))
    e = book.entry(M, N, 4, [])
    assert e is not None and col == e.moves[0]
    assert p.last_result is not None and p.last_result.nodes == 0
    if e.source == "solver":
        assert col in e.moves


def test_the_book_can_be_switched_off():
    p = AlphaBeta()
    p.seed = 1
    p.use_book = False
    p.initPlayer(4, 4, 4, True, 0.2)
    p.selectColumn(CXBoard(4, 4, 4))
    assert p.last_result is not None and p.last_result.nodes > 0


def test_build_command_reproduces_a_board(tmp_path):
    """`python -m players._shared.book build` (here in process, one small board, into a
    temporary file) writes the same entries as the stored book."""
    out = tmp_path / "k4.json"
    book.build([(4, 5)], budget_s=120.0, path=out)
    rebuilt = json.loads(out.read_text())["boards"]
    assert rebuilt["4x5"] == DATA["4x5"]
