"""A bot for Othello and Morris that misbehaves as its `mode` option says (set through the
tournament/match options, as any option): each mode is one fault the referee must contain when
it plays through protocol v2."""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from arena.games.base import Game
from arena.games.player import GamePlayer


class Misbehave(GamePlayer):
    GAME = ""  # any game
    mode = "fine"

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.game = game
        if self.mode == "raise_init":
            raise RuntimeError("init fails on purpose")
        if self.mode == "hang_init":
            time.sleep(60)
        self.moves = 0

    def select_move(self, state: Any) -> Any:
        self.moves += 1
        legal = list(self.game.legal_moves(state))
        if self.moves < 2:  # misbehave on the second move
            return legal[0]
        mode = self.mode
        if mode == "sleep":
            time.sleep(60)
        if mode == "raise":
            raise ValueError("select_move fails on purpose")
        if mode == "exit":
            os._exit(3)
        if mode == "occupied":
            return "d4"  # a start square of Othello (always occupied); a point in Morris
        if mode == "syntax":
            return "z99"
        if mode == "pass":
            return "pass"
        if mode == "object":
            return object()
        if mode == "no_removal":  # Morris: answer the mill without its removal
            mill = [m for m in legal if m.remove is not None]
            if mill:
                return self.game.move_to_text(state, mill[0]).split("x")[0]
        if mode == "print":
            print("play a1")  # to the bot's stdout: the host keeps it off the protocol
            sys.stdout.flush()
        return legal[0]

    def player_name(self) -> str:
        return f"Misbehave-{self.mode}"
