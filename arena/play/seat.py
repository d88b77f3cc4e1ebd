"""`HumanSeat`: the seat that sits in for a person at the board, in every game.

The referee starts it like any Python bot (`python -m arena.entrants.host
arena.play.seat:HumanSeat`) with two options set as attributes: `socket`, the path of the game's
private Unix socket, and `token`, a secret that proves to the game that this process is its seat
(the directory holding the socket is private to the user; the token keeps other processes of
the same user, a bot included, from speaking for the person).

One seat speaks both bot APIs the host loads: the `GamePlayer` API (protocol version 2, every
game) and the course's `CXPlayer` API (the protocol dialect of a game that has one, Connect-X's).
Each API's calls are a thin entry to the same link.

Link protocol (one line each): the seat connects when the game starts (`init_player`,
`initPlayer`) and writes ``seat TOKEN``; each time it is asked for a move (`select_move`,
`selectColumn`) it reads ``move TEXT`` (its answer: the move in the game's notation, a
Connect-X column is its number) or ``resign TEXT`` (it raises `Resigned(TEXT)`, which the
referee records as this seat's fault). A closed link resigns too.

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

__all__ = ["HUMAN", "HumanSeat", "Resigned"]

#: the spec text and the name of the person's side in every stored game
HUMAN = "human"


class Resigned(Exception):
    """The person gave up (or their interface went away)."""


class HumanSeat(GamePlayer, CXPlayer):
    """A person's moves, read from the game's link (see the module docstring)."""

    GAME = ""  # any game
    socket: str | None = None  # path of the game's Unix socket (option)
    token: str = ""  # the game's secret (option)

    def __init__(self) -> None:
        self._link: socket.socket | None = None
        self._reader: io.TextIOWrapper | None = None

    # --------------------------------------------------------------- the link
    def _connect(self) -> None:
        if not self.socket:
            raise RuntimeError("HumanSeat needs the `socket` option (run by arena.play only)")
        link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        link.connect(self.socket)
        link.sendall(f"seat {self.token}\n".encode())
        self._link = link
        self._reader = link.makefile("r", encoding="utf-8", newline="\n")

    def _move(self) -> str:
        """The person's next move, as its text (raises Resigned)."""
        if self._reader is None:
            raise Resigned("no link to the person's interface")
        line = self._reader.readline()
        if not line:
            raise Resigned("the person's interface went away")
        word, _, rest = line.strip().partition(" ")
        if word == "move":
            return rest
        if word == "resign":
            raise Resigned(rest or "resigned")
        raise Resigned(f"unexpected message on the link: {line.strip()[:80]!r}")

    # ------------------------------------------------ the GamePlayer API (any game)
    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self._connect()

    def select_move(self, state: Any) -> str:
        return self._move()

    def player_name(self) -> str:
        return HUMAN

    # ------------------------------------ the course API (a game's own dialect)
    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self._connect()

    def selectColumn(self, B: CXBoard) -> int:
        return int(self._move())

    def playerName(self) -> str:
        return HUMAN
