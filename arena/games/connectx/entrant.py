"""Connect-X's course API as an entrant adapter of the one Python host (`arena.entrants.host`).

A course bot is a `CXPlayer` (`initPlayer`, `selectColumn`, `playerName`; a Kaggle agent is
wrapped as one by `arena.entrants.kaggle`). It speaks protocol version 1, Connect-X's dialect
(``newgame M N K ...``), which `ConnectX.DIALECT` declares. The host hands this adapter each
request; the adapter keeps the `CXBoard` in step with the game and calls the bot's methods.
"""

from __future__ import annotations

import traceback

from arena.board import CXBoard
from arena.entrants.loading import find_player_class
from arena.entrants.specs import BotSpec, Kind, parse_spec
from arena.player import CXPlayer
from arena.wire import protocol

__all__ = ["CourseAdapter", "load_player_class"]


def load_player_class(spec: BotSpec) -> type[CXPlayer]:
    """Import the bot's module and return its CXPlayer subclass (a Kaggle agent wrapped as
    one). Raises SpecError, or whatever the bot's code raises while it is imported."""
    if spec.kind is Kind.KAGGLE:
        # imported here: only a Kaggle agent needs its wrapper (start-up time)
        from arena.entrants.kaggle import agent_player_class

        return agent_player_class(spec)
    return find_player_class(spec, CXPlayer)  # type: ignore[type-abstract]


class CourseAdapter:
    """A `CXPlayer` behind the host: loads the bot, plays its games on a `CXBoard`."""

    def __init__(self, target: str) -> None:
        self.cls = load_player_class(parse_spec(target))
        self.player: CXPlayer | None = None
        self.board: CXBoard | None = None

    def new_game(self, msg: protocol.NewGame) -> str:
        """A new instance, prepared by `initPlayer`; returns its `playerName()` ("" when that
        fails: a failing name costs the name, not the game)."""
        self.player = None
        M, N, K = (msg.params[key] for key in ("rows", "cols", "k"))
        self.board = CXBoard(M, N, K)
        player = self.cls()
        player.seed = msg.seed
        for key, value in msg.options.items():
            setattr(player, key, value)
        player.initPlayer(M, N, K, msg.first, msg.timeout_s)
        self.player = player
        try:
            return str(player.playerName())
        except Exception:
            traceback.print_exc()
            return ""

    def opponent(self, move: str) -> None:
        assert self.board is not None
        self.board.markColumn(int(move))

    def select(self) -> str:
        """The bot's answer as the `play` field (`encode_answer`: a non-int answer becomes a
        text the referee rejects)."""
        assert self.player is not None and self.board is not None
        return protocol.encode_answer(self.player.selectColumn(self.board.copy()))

    def played(self, text: str) -> None:
        """Our answer, sent: keep the board in step (an illegal answer ends the game anyway)."""
        assert self.board is not None
        try:
            self.board.markColumn(int(text))
        except (ValueError, IndexError):
            pass
