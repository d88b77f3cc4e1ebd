"""Nine Men's Morris rules: a hand-made position for every rule, notation, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import IllegalMoveError, MoveSyntaxError, ParamError, make_game
from arena.games.morris import ADJACENT, MILLS, POINTS, Morris, MorrisState


def texts(game: Morris, s: MorrisState) -> set[str]:
    return {game.move_to_text(s, m) for m in game.legal_moves(s)}


def test_board_geometry() -> None:
    assert len(POINTS) == 24 and len(MILLS) == 16
    assert sum(len(a) for a in ADJACENT) == 2 * 32  # 32 lines between neighbours
    assert {POINTS[q] for q in ADJACENT[POINTS.index("d2")]} == {"d1", "d3", "b2", "f2"}


def test_placing_phase_and_notation() -> None:
    game = Morris()
    s = game.initial_state()
    assert len(game.legal_moves(s)) == 24 and s.in_hand == (9, 9)
    s = game.play_texts(["d2", "d6"], s)
    assert s.in_hand == (8, 8) and game.to_move(s) == 0
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "d2-d3")  # pieces in hand are placed first
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "d6")  # occupied
    for bad in ("", "d4", "h1", "a2", "d2-", "d2xd", "D2", "d2 d3"):
        with pytest.raises(MoveSyntaxError):
            game.parse_move(s, bad)


def test_mill_removes_a_piece_not_in_a_mill() -> None:
    game = Morris()
    # white a7 d7 (g7 closes the row); black has a mill b6 d6 f6 and a loose piece on a1
    s = game.position(["a7", "d7"], ["b6", "d6", "f6", "a1"], side=0, in_hand=(7, 5))
    placing_g7 = {t for t in texts(game, s) if t.startswith("g7")}
    assert placing_g7 == {"g7xa1"}  # only the loose piece
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "g7")  # a mill must remove
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "g7xd6")  # protected by its mill
    with pytest.raises(IllegalMoveError):
        game.parse_move(s, "g4xa1")  # no mill, no removal
    t = game.apply(s, game.parse_move(s, "g7xa1"))
    assert t.black.bit_count() == 3 and t.since_mill == 0 and t.in_hand == (6, 5)


def test_all_in_mills_then_a_mill_piece_may_go() -> None:
    game = Morris()
    s = game.position(["a7", "d7"], ["b6", "d6", "f6"], side=0, in_hand=(7, 6))
    assert {t for t in texts(game, s) if t.startswith("g7")} == {"g7xb6", "g7xd6", "g7xf6"}


def test_moving_slides_to_neighbours_and_a_moved_mill_removes() -> None:
    game = Morris()
    s = game.position(["a7", "d7", "g4", "a1"], ["b6", "f2", "d1", "c3"], side=0)
    moves = texts(game, s)
    assert "g4-g7xb6" in moves and "g4-g1" in moves and "g4-g7" not in moves
    assert "a1-g7" not in moves  # no flying with four pieces
    assert not any(t.startswith("g4-e4") for t in moves)  # g4-f4 is the neighbour
    assert {t.split("x")[0] for t in moves} == {
        "a7-a4", "d7-d6", "d7-g7", "g4-g7", "g4-f4", "g4-g1", "a1-a4"}


def test_flying_at_three_pieces() -> None:
    game = Morris()
    s = game.position(["a7", "d7", "a1"], ["b6", "f2", "d1", "c3"], side=0)
    moves = texts(game, s)
    assert "a1-g7xb6" in moves and "a1-e4" in moves  # a jump anywhere, even closing a mill
    # 3 pieces x 17 empty points; a1-g7 and d7-a4 close mills, so they only come with removals
    assert len([t for t in moves if "x" not in t]) == 3 * 17 - 2
    black = game.position(["a7", "d7", "a1"], ["b6", "f2", "d1", "c3"], side=1)
    assert "b6-e4" not in texts(game, black)  # black has four: no flying
    no_fly = make_game("morris", {"flying": 0})
    assert "a1-e4" not in texts(no_fly, s)  # type: ignore[arg-type]


def test_fewer_than_three_pieces_loses() -> None:
    game = Morris()
    s = game.position(["a7", "d7", "a4"], ["b6", "f2", "d1"], side=0)
    assert game.outcome(s) is None
    t = game.apply(s, game.parse_move(s, "a4-a1"))  # no mill: a1 d1? d1 is black
    assert game.outcome(t) is None
    s = game.position(["a7", "d7", "g4"], ["b6", "f2", "d1"], side=0)
    t = game.apply(s, game.parse_move(s, "g4-g7xb6"))
    out = game.outcome(t)
    assert out is not None and out.winner == 0 and out.reason == "fewer-than-three"
    assert game.legal_moves(t) == []
    # in the placing phase pieces in hand count
    s = game.position(["a7"], ["b6"], side=1, in_hand=(1, 1))
    out = game.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "fewer-than-three"


def test_no_legal_move_loses() -> None:
    game = Morris()
    # black a7 d7 g7 a1 are walled in by white a4 d6 g4 d1
    s = game.position(["a4", "d6", "g4", "d1"], ["a7", "d7", "g7", "a1"], side=1)
    assert game.legal_moves(s) == []
    out = game.outcome(s)
    assert out is not None and out.winner == 0 and out.reason == "no-legal-move"
    with pytest.raises(IllegalMoveError):
        game.apply(s, game.legal_moves(game.position(["a4"], ["a7"], side=1,
                                                     in_hand=(5, 5)))[0])


def test_threefold_repetition_draws() -> None:
    game = Morris()
    s = game.position(["a7", "d7", "a1", "g1"], ["b6", "f2", "d1", "c3"], side=0)
    shuffle = ["a7-a4", "c3-c4", "a4-a7", "c4-c3"]
    s = game.play_texts(shuffle, s)  # the start position, second time
    assert game.outcome(s) is None
    s = game.play_texts(shuffle[:3], s)
    assert game.outcome(s) is None
    s = game.play_texts(shuffle[3:], s)  # third time
    out = game.outcome(s)
    assert out is not None and out.winner is None and out.reason == "threefold-repetition"
    assert game.legal_moves(s) == []


def test_no_mill_draw_after_n_moves_and_a_mill_resets_it() -> None:
    game = Morris(no_mill_moves=6)
    s = game.position(["a7", "d7", "a1", "g1"], ["b6", "f2", "d1", "c3"], side=0)
    s = game.play_texts(["g1-g4", "c3-c4", "g4-g1", "c4-c5", "a1-a4", "c5-c4"], s)
    out = game.outcome(s)
    assert out is not None and out.winner is None and out.reason == "no-mill"
    s = game.position(["a7", "d7", "a1", "g4"], ["b6", "f2", "d1", "c3"], side=0,
                      since_mill=5)
    t = game.apply(s, game.parse_move(s, "g4-g7xb6"))
    assert t.since_mill == 0 and game.outcome(t) is None
    with pytest.raises(ParamError):
        Morris(no_mill_moves=0)
    with pytest.raises(ParamError):
        Morris(pieces=2)


@settings(max_examples=40, deadline=None)
@given(picks=st.lists(st.integers(0, 10**6), max_size=120),
       pieces=st.sampled_from([3, 6, 9]), n=st.sampled_from([10, 50]))
def test_random_games_keep_the_invariants(picks: list[int], pieces: int, n: int) -> None:
    game = Morris(pieces=pieces, no_mill_moves=n)
    s = game.initial_state()
    for pick in picks:
        moves = game.legal_moves(s)
        assert (not moves) == (game.outcome(s) is not None)
        if not moves:
            break
        m = moves[pick % len(moves)]
        text = game.move_to_text(s, m)
        assert game.parse_move(s, text) == m
        t = game.apply(s, m)
        assert t.white & t.black == 0
        assert game.to_move(t) == 1 - game.to_move(s)
        mover = s.side
        assert game.pieces(t, mover) == game.pieces(s, mover)
        lost = game.pieces(s, 1 - mover) - game.pieces(t, 1 - mover)
        assert lost == (1 if m.remove is not None else 0)
        assert (t.since_mill == 0) == (m.remove is not None)
        assert t.white.bit_count() + t.in_hand[0] <= pieces
        s = t
