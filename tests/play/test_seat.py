"""One seat for every game (arena/play/seat.py): `HumanSeat` speaks the course API (a game's
protocol dialect, Connect-X's) and the `GamePlayer` API (every other game) over one link, with
no dummy board; the session runs it for every game."""

from __future__ import annotations

import os
import socket
import tempfile
import threading

import pytest

from arena.board import CXBoard
from arena.games import make_game
from arena.games.player import GamePlayer
from arena.play import seat as seat_module
from arena.play import session
from arena.play.seat import HumanSeat, Resigned
from arena.player import CXPlayer


def _linked(lines: list[str]) -> tuple[HumanSeat, list[bytes], threading.Thread, str]:
    """A seat, and a listener that takes its hello then writes `lines` to it."""
    folder = tempfile.mkdtemp(prefix="cxarena-seat-test-")
    path = os.path.join(folder, "s.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    heard: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        heard.append(conn.recv(256))
        conn.sendall("".join(lines).encode())
        conn.close()
        listener.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    seat = HumanSeat()
    seat.socket, seat.token = path, "tok"
    return seat, heard, t, folder


def test_one_seat_class_for_both_apis() -> None:
    assert issubclass(HumanSeat, CXPlayer) and issubclass(HumanSeat, GamePlayer)
    assert not hasattr(seat_module, "HumanGameSeat")
    assert not hasattr(session, "GAME_SEAT_SPEC")
    assert session.SEAT_SPEC.cls == "HumanSeat"


def test_the_course_api_reads_columns() -> None:
    seat, heard, t, _ = _linked(["move 3\n", "resign tired\n"])
    seat.initPlayer(6, 7, 4, True, 1.0)
    assert seat.selectColumn(CXBoard(6, 7, 4)) == 3
    with pytest.raises(Resigned, match="tired"):
        seat.selectColumn(CXBoard(6, 7, 4))
    t.join(5)
    assert heard == [b"seat tok\n"]


def test_the_game_api_reads_move_texts() -> None:
    game = make_game("morris")
    seat, heard, t, _ = _linked(["move c4-c3xd6\n"])
    seat.init_player(game, False, 1.0)
    assert seat.select_move(game.initial_state()) == "c4-c3xd6"
    with pytest.raises(Resigned, match="went away"):
        seat.select_move(game.initial_state())
    t.join(5)
    assert heard == [b"seat tok\n"] and seat.player_name() == seat.playerName() == "human"
