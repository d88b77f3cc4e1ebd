"""Othello rules: perft from the start, passing, the end of the game, notation, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import IllegalMoveError, MoveSyntaxError, ParamError, make_game, presentation_of
from arena.games.othello import PASS, Othello, OthelloState, perft


def _state(game: Othello, black: list[str], white: list[str], side: int) -> OthelloState:
    def bits(names: list[str]) -> int:
        return sum(1 << ((int(n[1:]) - 1) * game.size + ord(n[0]) - 97) for n in names)
    return OthelloState(bits(black), bits(white), side)


def test_perft_from_the_start() -> None:
    game = Othello()
    start = game.initial_state()
    assert [perft(game, start, d) for d in range(1, 7)] == [4, 12, 56, 244, 1396, 8200]


def test_start_position_and_first_moves() -> None:
    game = Othello()
    s = game.initial_state()
    assert game.to_move(s) == 0  # black first
    assert presentation_of(game).render(s).splitlines()[4:6] == [" 4 . . . O X . . .",
                                                                 " 5 . . . X O . . ."]
    assert sorted(game.move_to_text(s, m) for m in game.legal_moves(s)) == [
        "c4", "d3", "e6", "f5"]
    s2 = game.apply(s, game.parse_move(s, "d3"))
    assert game.counts(s2) == (4, 1)
    assert game.to_move(s2) == 1


def test_pass_when_no_move_and_end_when_neither_can_move() -> None:
    game = Othello()
    s = _state(game, black=["b1"], white=["a1"], side=0)
    assert game.legal_moves(s) == [PASS]
    assert game.outcome(s) is None
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "c1")
    s = game.apply(s, game.parse_move(s, "pass"))
    assert game.to_move(s) == 1
    assert [game.move_to_text(s, m) for m in game.legal_moves(s)] == ["c1"]
    with pytest.raises(IllegalMoveError):
        game.apply(s, PASS)  # white has a move: no pass
    s = game.apply(s, game.parse_move(s, "c1"))
    assert game.counts(s) == (0, 3)
    assert game.legal_moves(s) == []
    out = game.outcome(s)
    assert out is not None and out.winner == 1 and out.reason == "more-discs"
    with pytest.raises(IllegalMoveError):
        game.apply(s, PASS)


def test_equal_discs_is_a_draw() -> None:
    game = Othello(size=4)
    s = _state(game, black=["a1"], white=["d4"], side=0)
    out = game.outcome(s)
    assert out is not None and out.winner is None and out.reason == "equal-discs"


def test_full_board_more_discs_wins() -> None:
    game = Othello(size=4)
    full = (1 << 16) - 1
    s = OthelloState(full & ~1, 1, 0)
    out = game.outcome(s)
    assert out is not None and out.winner == 0 and "15" in out.detail


def test_flips_in_every_direction() -> None:
    game = Othello()
    # black on the border around d4, white on the 8 neighbours of d4 (empty)
    ring = ["c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5"]
    far = ["b2", "d2", "f2", "b4", "f4", "b6", "d6", "f6"]
    s = _state(game, black=far, white=ring, side=0)
    s2 = game.apply(s, game.parse_move(s, "d4"))
    assert s2.white == 0
    assert game.counts(s2) == (17, 0)


def test_notation_errors_and_sizes() -> None:
    game = Othello()
    s = game.initial_state()
    for bad in ("", "d", "i1", "a9", "a0", "a01", "D3", "pass ", "3d"):
        with pytest.raises(MoveSyntaxError):
            game.parse_move(s, bad)
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "a1")
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "pass")
    with pytest.raises(ParamError):
        make_game("othello", {"size": 7})
    with pytest.raises(ParamError):
        make_game("othello", {"size": 2})
    with pytest.raises(ParamError):
        make_game("othello", {"rows": 8})
    g10 = make_game("othello", {"size": 10})
    assert len(g10.legal_moves(g10.initial_state())) == 4
    assert g10.parse_move(g10.initial_state(), "e4") in g10.legal_moves(g10.initial_state())


@settings(max_examples=40, deadline=None)
@given(size=st.sampled_from([4, 6, 8]), picks=st.lists(st.integers(0, 10**6), max_size=70))
def test_random_games_keep_the_invariants(size: int, picks: list[int]) -> None:
    game = Othello(size=size)
    s = game.initial_state()
    placed = 4
    for pick in picks:
        moves = game.legal_moves(s)
        assert (not moves) == (game.outcome(s) is not None)
        if not moves:
            break
        m = moves[pick % len(moves)]
        text = game.move_to_text(s, m)
        assert game.parse_move(s, text) == m
        before = game.counts(s)
        t = game.apply(s, m)
        assert t.black & t.white == 0
        assert game.to_move(t) == 1 - game.to_move(s)
        b, w = game.counts(t)
        if m == PASS:
            assert (b, w) == before and moves == [PASS]
        else:
            placed += 1
            gained = (b - before[0]) if s.side == 0 else (w - before[1])
            lost = (before[1] - w) if s.side == 0 else (before[0] - b)
            assert gained == lost + 1 and lost >= 1
        assert b + w == placed
        s = t
    assert game.play_texts([]) == game.initial_state()
