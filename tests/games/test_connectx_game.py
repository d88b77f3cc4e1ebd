"""Connect-X through the `Game` interface behaves exactly as `CXBoard`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.board import CXBoard, CXGameState
from arena.games import (
    GAMES,
    IllegalMoveError,
    MoveSyntaxError,
    ParamError,
    make_game,
    presentation_of,
)
from arena.games.connectx import ConnectX


@settings(max_examples=60, deadline=None)
@given(dims=st.sampled_from([(6, 7, 4), (4, 4, 3), (5, 9, 5), (1, 3, 2), (3, 3, 1)]),
       picks=st.lists(st.integers(0, 100), max_size=60))
def test_same_games_as_cxboard(dims: tuple[int, int, int], picks: list[int]) -> None:
    M, N, K = dims
    game = ConnectX(rows=M, cols=N, k=K)
    s = game.initial_state()
    board = CXBoard(M, N, K)
    for pick in picks:
        moves = game.legal_moves(s)
        if board.gameState() is not CXGameState.OPEN:
            assert moves == [] and game.outcome(s) is not None
            break
        assert moves == board.getAvailableColumns()
        col = moves[pick % len(moves)]
        assert game.parse_move(s, game.move_to_text(s, col)) == col
        assert game.to_move(s) == board.currentPlayer()
        s = game.apply(s, col)
        board.markColumn(col)
        assert (s.board.getBoard() == board.getBoard()).all()
    state = board.gameState()
    out = game.outcome(s)
    if state is CXGameState.OPEN:
        assert out is None
    elif state is CXGameState.DRAW:
        assert out is not None and out.winner is None and out.reason == "board-full"
    else:
        assert out is not None and out.winner == (0 if state is CXGameState.WINP1 else 1)
    assert s == game.state_from_board(board)


def test_errors_and_registry() -> None:
    game = make_game("connectx", {"rows": 4, "cols": 4, "k": 4})
    s = game.play_texts(["0", "0", "0", "0"])
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "0")
    with pytest.raises(MoveSyntaxError):
        game.parse_move(s, "-1")
    with pytest.raises(IllegalMoveError):
        game.apply(s, 9)
    with pytest.raises(ParamError):
        make_game("connectx", {"rows": 4, "cols": 4, "k": 9})
    with pytest.raises(ParamError, match="known games"):
        make_game("chess")
    assert {"connectx", "othello", "morris"} <= set(GAMES)
    assert game.label() == "connectx rows=4 cols=4 k=4"
    assert game == ConnectX(rows=4, cols=4, k=4) and hash(game) == hash(ConnectX(rows=4, cols=4))
    assert presentation_of(game).drawing(s)["cells"][3][0] == 1
