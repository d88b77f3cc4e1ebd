"""Protocol v2 messages: formatting and parsing round trips, and malformed lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games.params import format_params, parse_params
from arena.wire.protocol import Go, Hello, Ok, ProtocolError, Quit, Ready, format_seconds
from arena.wire.protocol_v2 import (
    NewGameV2,
    OpponentMove,
    PlayMove,
    is_move_text,
    newgame_v2,
    opponent_move,
    parse_reply_v2,
    parse_request_v2,
    play_move,
)

keys = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
params = st.dictionaries(keys, st.integers(0, 10**9), max_size=4)
moves = st.from_regex(r"[\x21-\x7e]{1,64}", fullmatch=True)
options = st.dictionaries(st.text(max_size=5),
                          st.one_of(st.integers(), st.booleans(), st.text(max_size=5)),
                          max_size=3)


@given(game=st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True), params=params,
       player=st.sampled_from([1, 2]), timeout=st.floats(0.001, 1000),
       seed=st.integers(0, 2**63 - 1), options=options)
def test_newgame_round_trip(game: str, params: dict[str, int], player: int, timeout: float,
                            seed: int, options: dict) -> None:
    line = newgame_v2(game, params, player, timeout, seed, options)
    assert line.endswith("\n") and line.count("\n") == 1
    req = parse_request_v2(line[:-1])
    assert req == NewGameV2(game, params, player, float(format_seconds(timeout)), seed, options)
    assert isinstance(req, NewGameV2) and req.first == (player == 1)


@given(params=params)
def test_params_round_trip(params: dict[str, int]) -> None:
    assert parse_params(format_params(params)) == params


@given(move=moves)
def test_moves_round_trip(move: str) -> None:
    assert is_move_text(move)
    assert parse_request_v2(opponent_move(move)[:-1]) == OpponentMove(move)
    assert parse_reply_v2(play_move(move)[:-1]) == PlayMove(move)


@given(text=st.text(max_size=80))
def test_any_play_answer_is_one_line(text: str) -> None:
    line = play_move(text)
    assert line.count("\n") == 1 and line.endswith("\n")
    reply = parse_reply_v2(line[:-1])
    assert isinstance(reply, PlayMove) and " " not in reply.text


def test_shared_messages_and_errors() -> None:
    assert parse_request_v2("hello 2") == Hello(2)
    assert parse_request_v2("go") == Go() and parse_request_v2("quit") == Quit()
    assert parse_request_v2("wibble 3") is None  # unknown keywords are ignored
    assert parse_reply_v2("ready 2") == Ready(2)
    assert parse_reply_v2("ok My Bot") == Ok("My Bot")
    assert parse_request_v2("newgame othello - 1 1 7 {}") == NewGameV2("othello", {}, 1, 1.0, 7)
    for bad in ("newgame othello size=8 3 1 7 {}", "newgame Othello size=8 1 1 7 {}",
                "newgame othello size=x 1 1 7 {}", "newgame othello size=8 1 1 7 []",
                "newgame othello size=8,size=6 1 1 7 {}", "newgame othello size=8 1",
                "opponent ", "opponent d3 d4", "hello two"):
        with pytest.raises(ProtocolError):
            parse_request_v2(bad)
    with pytest.raises(ProtocolError):
        parse_reply_v2("move d3")
    with pytest.raises(ValueError):
        newgame_v2("othello", {"size": 8}, 3, 1, 1)
    with pytest.raises(ValueError):
        opponent_move("d3 d4")
