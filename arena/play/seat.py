"""`HumanSeat`: the CXPlayer that sits in for a person at the board.

The referee starts it like any Python bot (`python -m arena.entrants.host
arena.play.seat:HumanSeat`) with two options set as attributes: `socket`, the path of the game's
private Unix socket, and `token`, a secret that proves to the game that this process is its seat
(the directory holding the socket is private to the user; the token keeps other processes of
the same user, a bot included, from speaking for the person).

Link protocol (one line each): the seat connects in `initPlayer` and writes ``seat TOKEN``;
in each `selectColumn` it reads ``move COLUMN`` (its answer) or ``resign TEXT`` (it raises
`Resigned(TEXT)`, which the referee records as this seat's fault). A closed link resigns too.

`HumanGameSeat` is the same seat for another game (protocol v2, `arena.games.player`): the
link carries ``move TEXT`` (the move in the game's notation) in place of a column.

Only the standard library and the harness's rules are imported here: this runs in its own process.
"""

from __future__ import annotations

import io
import socket
from typing import Any

from arena.board import CXBoard
from arena.games.base import Game
from arena.games.player import GamePlayer
from arena.player import CXPlayer

__all__ = ["HUMAN", "HumanGameSeat", "HumanSeat", "Resigned"]

#: the spec text and playerName() of the person's side in every stored game
HUMAN = "human"


class Resigned(Exception):
    """The person gave up (or their interface went away)."""


class HumanSeat(CXPlayer):
    """A person's moves, read from the game's link (see the module docstring)."""

    socket: str | None = None  # path of the game's Unix socket (option)
    token: str = ""  # the game's secret (option)

    def __init__(self) -> None:
        self._link: socket.socket | None = None
        self._reader: io.TextIOWrapper | None = None

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        if not self.socket:
            raise RuntimeError("HumanSeat needs the `socket` option (run by arena.play only)")
        link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        link.connect(self.socket)
        link.sendall(f"seat {self.token}\n".encode())
        self._link = link
        self._reader = link.makefile("r", encoding="utf-8", newline="\n")

    def selectColumn(self, B: CXBoard) -> int:
        if self._reader is None:
            raise Resigned("no link to the person's interface")
        line = self._reader.readline()
        if not line:
            raise Resigned("the person's interface went away")
        word, _, rest = line.strip().partition(" ")
        if word == "move":
            return int(rest)
        if word == "resign":
            raise Resigned(rest or "resigned")
        raise Resigned(f"unexpected message on the link: {line.strip()[:80]!r}")

    def playerName(self) -> str:
        return HUMAN


class HumanGameSeat(GamePlayer):
    """A person's moves in another game than Connect-X, read from the game's link."""

    GAME = ""  # any game
    socket: str | None = None  # path of the game's Unix socket (option)
    token: str = ""  # the game's secret (option)

    def __init__(self) -> None:
        self._seat = HumanSeat()

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self._seat.socket, self._seat.token = self.socket, self.token
        self._seat.initPlayer(0, 0, 0, first, timeout_s)

    def select_move(self, state: Any) -> str:
        reader = self._seat._reader
        if reader is None:
            raise Resigned("no link to the person's interface")
        line = reader.readline()
        if not line:
            raise Resigned("the person's interface went away")
        word, _, rest = line.strip().partition(" ")
        if word == "move":
            return rest
        if word == "resign":
            raise Resigned(rest or "resigned")
        raise Resigned(f"unexpected message on the link: {line.strip()[:80]!r}")

    def player_name(self) -> str:
        return HUMAN
