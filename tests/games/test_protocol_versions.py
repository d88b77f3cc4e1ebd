"""The one protocol codec in both versions: version 2 (any game: `newgame GAME PARAMS ...`) and
a game's own dialect (version 1, Connect-X's `newgame M N K ...`): formatting and parsing round
trips, and malformed lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games.params import format_params, parse_params
from arena.games import Game, make_game
from arena.games.base import ParamError
from arena.wire.protocol import (
    PROTOCOL_V2,
    PROTOCOL_VERSION,
    Go,
    Hello,
    NewGame,
    Ok,
    Opponent,
    Play,
    ProtocolError,
    Quit,
    Ready,
    format_seconds,
    is_move_text,
    newgame,
    opponent,
    parse_reply,
    parse_request,
    play_move,
    version_of,
)


class Anything(Game):
    """A game of any name and parameters, for the codec's round trips (no rules)."""

    name = "anything"
    PARAMS: dict[str, int] = {}

    def __init__(self, name: str, **params: int) -> None:
        self.name = name
        self.params = params

    initial_state = to_move = legal_moves = apply = outcome = None  # type: ignore[assignment]
    move_to_text = parse_move = None  # type: ignore[assignment]


def parse2(line: str) -> object:
    return parse_request(line, PROTOCOL_V2)

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
    line = newgame(Anything(game, **params), player, timeout, seed, options)
    assert line.endswith("\n") and line.count("\n") == 1
    req = parse2(line[:-1])
    assert req == NewGame(game, params, player, float(format_seconds(timeout)), seed, options)
    assert isinstance(req, NewGame) and req.first == (player == 1)


@pytest.mark.parametrize("game, params, line", [
    ("connectx", {"rows": 6, "cols": 7, "k": 4}, "newgame 6 7 4 2 1 42 {}"),
    ("othello", {"size": 8}, "newgame othello size=8 2 1 42 {}"),
    ("morris", {"pieces": 9, "no_mill_moves": 50, "flying": 1},
     "newgame morris pieces=9,no_mill_moves=50,flying=1 2 1 42 {}"),
])
def test_each_game_in_its_version(game: str, params: dict[str, int], line: str) -> None:
    """Connect-X speaks its own dialect (version 1), the others version 2: one codec."""
    g = make_game(game, params)
    assert newgame(g, 2, 1, 42) == line + "\n"
    version = version_of(g)
    assert version == (PROTOCOL_VERSION if game == "connectx" else PROTOCOL_V2)
    assert parse_request(line, version) == NewGame(game, params, 2, 1.0, 42, {})


@given(params=params)
def test_params_round_trip(params: dict[str, int]) -> None:
    assert parse_params(format_params(params)) == params


@given(move=moves)
def test_moves_round_trip(move: str) -> None:
    assert is_move_text(move)
    assert parse2(opponent(move)[:-1]) == Opponent(move)
    assert parse_reply(play_move(move)[:-1]) == Play(move)


@given(text=st.text(max_size=80))
def test_any_play_answer_is_one_line(text: str) -> None:
    line = play_move(text)
    assert line.count("\n") == 1 and line.endswith("\n")
    reply = parse_reply(line[:-1])
    assert isinstance(reply, Play) and " " not in reply.text


def test_shared_messages_and_errors() -> None:
    assert parse2("hello 2") == Hello(2)
    assert parse2("go") == Go() and parse2("quit") == Quit()
    assert parse2("wibble 3") is None  # unknown keywords are ignored
    assert parse_reply("ready 2") == Ready(2)
    assert parse_reply("ok My Bot") == Ok("My Bot")
    assert parse2("newgame othello - 1 1 7 {}") == NewGame("othello", {}, 1, 1.0, 7)
    for bad in ("newgame othello size=8 3 1 7 {}", "newgame Othello size=8 1 1 7 {}",
                "newgame othello size=x 1 1 7 {}", "newgame othello size=8 1 1 7 []",
                "newgame othello size=8,size=6 1 1 7 {}", "newgame othello size=8 1",
                "opponent ", "opponent d3 d4", "hello two"):
        with pytest.raises(ProtocolError):
            parse2(bad)
    with pytest.raises(ProtocolError):
        parse_reply("move d3")
    with pytest.raises(ValueError):
        newgame(make_game("othello"), 3, 1, 1)
    with pytest.raises(ValueError):
        opponent("d3 d4")
    with pytest.raises(ProtocolError):  # version 1's moves are Connect-X columns
        parse_request("opponent d3", PROTOCOL_VERSION)
    with pytest.raises(ProtocolError):
        parse_request("newgame 6 7 4 1 1 7 {}", 9)  # no game speaks version 9
    assert ParamError
