"""Protocol v2 in the Python host: plays a `GamePlayer` class (`arena.games.player`) for any
game. `python -m arena.entrants.host TARGET` hands over to `GameHost` when the referee's first
line is ``hello 2`` (docs/protocol.md, "Version 2"); everything about the process (private
protocol fds, the lifeline, failures answered as ``error TEXT``) is the host's.

The host keeps the game's state: it applies each ``opponent MOVE`` and its own answers, and
passes the bot the current (immutable) state in ``select_move``. A bot's answer may be a move
value or its text; a value the game cannot write becomes a text the referee rejects.
"""

from __future__ import annotations

import inspect
import os
import sys
import traceback
from typing import IO, Any, NoReturn, Protocol

from arena.entrants.specs import SpecError, import_bot_module, parse_spec
from arena.games import Game, GameError, make_game
from arena.games.player import GamePlayer
from arena.wire import protocol
from arena.wire import protocol_v2 as v2


class _Host(Protocol):
    """What the host process (`arena.entrants.host`) lends a v2 session."""

    @property
    def target(self) -> str: ...

    @property
    def reader(self) -> IO[bytes]: ...

    def send(self, text: str) -> None: ...

    def fail(self, where: str, exc: BaseException) -> NoReturn: ...

__all__ = ["GameHost", "load_game_player_class"]


def load_game_player_class(target: str, game: str | None = None) -> type[GamePlayer]:
    """The concrete `GamePlayer` subclass behind `target` (for `game`, when given: a class
    whose GAME is that game, or a generic one). Raises SpecError, or what the bot raises."""
    spec = parse_spec(target)
    if not spec.is_python or spec.module is None and spec.path is None:
        raise SpecError(f"bot SPEC {target!r} is not a Python class")
    module = import_bot_module(spec)
    if spec.cls is not None:
        obj = getattr(module, spec.cls, None)
        if not (inspect.isclass(obj) and issubclass(obj, GamePlayer)):
            raise SpecError(f"bot SPEC {target!r}: {spec.cls!r} is not a GamePlayer subclass")
        found = [obj]
    else:
        found = [obj for obj in vars(module).values()
                 if inspect.isclass(obj) and issubclass(obj, GamePlayer)
                 and obj.__module__ == module.__name__ and not inspect.isabstract(obj)]
    if game is not None:
        found = [c for c in found if c.GAME in (game, "")]
    if not found:
        what = f"GamePlayer subclass for {game}" if game else "GamePlayer subclass"
        raise SpecError(f"bot SPEC {target!r}: {module.__name__} defines no {what}")
    if len(found) > 1:
        names = ", ".join(sorted(c.__name__ for c in found))
        raise SpecError(f"bot SPEC {target!r}: several GamePlayer subclasses ({names}); name "
                        f"one as SPEC:Class")
    return found[0]


class GameHost:
    """The v2 session of a host process (see the module docstring)."""

    def __init__(self, host: _Host) -> None:
        self.host = host
        self.player: GamePlayer | None = None
        self.game: Game | None = None
        self.state: Any = None

    def load(self) -> bool:
        """Import the bot (its errors show at start-up, as in version 1) and answer `ready 2`;
        False (after answering as version 1 does) when it has no GamePlayer class, e.g. a
        CXPlayer, which speaks version 1 only."""
        try:
            module = import_bot_module(parse_spec(self.host.target))
        except BaseException as e:
            self.host.fail(f"cannot load bot {self.host.target!r}:", e)
        if not any(inspect.isclass(obj) and issubclass(obj, GamePlayer)
                   for obj in vars(module).values()):
            print(f"{self.host.target}: no GamePlayer class, so no protocol version 2",
                  file=sys.stderr)
            self.host.send(protocol.error("unsupported protocol version 2"))
            return False
        self.host.send(protocol.ready(v2.PROTOCOL_V2))
        return True

    def new_game(self, msg: v2.NewGameV2) -> None:
        self.player = None
        try:
            self.game = make_game(msg.game, msg.params)
        except GameError as e:
            self.host.send(protocol.error(f"cannot play {msg.game}: {e}"))
            os._exit(1)
        self.state = self.game.initial_state()
        try:
            cls = load_game_player_class(self.host.target, msg.game)
            player = cls()
            player.seed = msg.seed
            for key, value in msg.options.items():
                setattr(player, key, value)
            player.init_player(self.game, msg.first, msg.timeout_s)
        except BaseException as e:
            self.host.fail("", e)
        try:
            name = str(player.player_name())
        except Exception:  # a failing player_name costs the name, not the game
            traceback.print_exc()
            name = ""
        self.player = player
        self.host.send(protocol.ok(name))

    def opponent(self, msg: v2.OpponentMove) -> None:
        if self.game is None:
            self.host.send(protocol.error("opponent move outside a game"))
            os._exit(1)
        try:
            self.state = self.game.apply(self.state, self.game.parse_move(self.state, msg.move))
        except BaseException as e:
            self.host.fail("host: applying the opponent's move", e)

    def go(self) -> None:
        if self.player is None or self.game is None:
            self.host.send(protocol.error("go outside a game"))
            os._exit(1)
        try:
            answer = self.player.select_move(self.state)
        except BaseException as e:
            self.host.fail("", e)
        text = self._text(answer)
        self.host.send(v2.play_move(text))
        try:  # keep our state in step; an illegal answer ends the game anyway
            self.state = self.game.apply(self.state, self.game.parse_move(self.state, text))
        except GameError:
            pass

    def _text(self, answer: object) -> str:
        assert self.game is not None
        if isinstance(answer, str):
            return answer
        try:
            return self.game.move_to_text(self.state, answer)
        except Exception:
            try:
                return f"<{type(answer).__name__}:{answer!r}>"
            except Exception:
                return f"<{type(answer).__name__}>"

    def run(self) -> int:
        """The session after ``hello 2`` (already read): load, then serve requests."""
        if not self.load():
            return 1
        while True:
            raw = self.host.reader.readline(protocol.MAX_LINE_BYTES + 1)
            if not raw:
                return 0
            line = raw.decode("ascii", "replace").rstrip("\n")
            try:
                msg = v2.parse_request_v2(line)
            except protocol.ProtocolError as e:
                self.host.fail("host", e)
            if isinstance(msg, protocol.Go):
                self.go()
            elif isinstance(msg, v2.OpponentMove):
                self.opponent(msg)
            elif isinstance(msg, v2.NewGameV2):
                self.new_game(msg)
            elif isinstance(msg, protocol.Quit):
                return 0
