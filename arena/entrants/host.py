"""`python -m arena.entrants.host TARGET`: plays a Python bot of any game over the line protocol.

TARGET is a SPEC the referee has already resolved (`BotSpec.host_target()`: ``pkg.mod[:Class]``,
``/abs/file.py[:Class]`` or ``kaggle:/abs/file.py[:function]``). The referee's first line,
``hello V``, says which bot API the session speaks, and the host loads the bot through that
API's *entrant adapter*:

- version 2 (any game): `GamePlayerAdapter`, a `GamePlayer` (`arena.games.player`), given the
  game and its current (immutable) state;
- a game's own dialect (`Game.DIALECT`; version 1 is Connect-X's): the adapter the game names
  in `Game.DIALECT_ADAPTER` (Connect-X's `CourseAdapter`: a `CXPlayer` or a Kaggle agent).

The host owns the process: it keeps a private copy of the real stdin/stdout for the protocol
and points fd 0 at /dev/null and fd 1 at stderr (the bot's log), so neither `print()` nor
`input()` inside a bot can corrupt the protocol; the lifeline; and failures. A bot that raises
(anything, including SystemExit and MemoryError) makes the host print the traceback to stderr,
answer ``error TEXT`` and exit with status 1. See docs/protocol.md.
"""

from __future__ import annotations

import importlib
import inspect
import io
import os
import sys
import traceback
from typing import Any, NoReturn, Protocol

from arena.wire import protocol
from arena.wire.lifeline import die_with_parent

__all__ = ["Adapter", "GamePlayerAdapter", "Unsupported", "main"]


class Unsupported(Exception):
    """The bot does not implement the API of the protocol version the referee asked for."""


class HostError(Exception):
    """A request the host cannot serve for a reason that is not the bot's own code."""


class Adapter(Protocol):
    """An entrant adapter: one bot API behind the host (constructed with the TARGET at
    ``hello``; raises `Unsupported`, SpecError or what the bot's import raises)."""

    def __init__(self, target: str) -> None: ...

    def new_game(self, msg: protocol.NewGame) -> str:
        """Prepare a new game (the bot's init); return the bot's name."""

    def opponent(self, move: str) -> None:
        """Apply the other side's move (its text)."""

    def select(self) -> str:
        """The bot's move, as the text of the `play` reply."""

    def played(self, text: str) -> None:
        """The reply was sent: keep the game in step with it (after the send, so that this
        work never counts in the bot's time)."""


class GamePlayerAdapter:
    """A `GamePlayer` of any game: the host keeps the game's state, applies each opponent's
    move and its own answers, and passes the bot the current state in ``select_move``. An
    answer may be a move value or its text; a value the game cannot write becomes a text the
    referee rejects."""

    def __init__(self, target: str) -> None:
        # imported here: a course bot's host (version 1) never needs them (start-up time)
        from arena.entrants.specs import import_bot_module, parse_spec
        from arena.games.player import GamePlayer  # (idem)

        module = import_bot_module(parse_spec(target))  # the bot's errors show at start-up
        if not any(inspect.isclass(obj) and issubclass(obj, GamePlayer)
                   for obj in vars(module).values()):
            raise Unsupported(f"{target}: no GamePlayer class, so no protocol version 2")
        self.target = target
        self.player: Any = None
        self.game: Any = None
        self.state: Any = None

    def new_game(self, msg: protocol.NewGame) -> str:
        # imported here: a course bot's host (version 1) never needs them (start-up time)
        from arena.entrants.loading import load_game_player_class
        from arena.games import GameError, make_game  # (idem)

        self.player = None
        try:
            self.game = make_game(msg.game, msg.params)
        except GameError as e:
            raise HostError(f"cannot play {msg.game}: {e}") from None
        self.state = self.game.initial_state()
        player = load_game_player_class(self.target, msg.game)()
        player.seed = msg.seed
        for key, value in msg.options.items():
            setattr(player, key, value)
        player.init_player(self.game, msg.first, msg.timeout_s)
        self.player = player
        try:
            return str(player.player_name())
        except Exception:  # a failing player_name costs the name, not the game
            traceback.print_exc()
            return ""

    def opponent(self, move: str) -> None:
        self.state = self.game.apply(self.state, self.game.parse_move(self.state, move))

    def select(self) -> str:
        answer = self.player.select_move(self.state)
        text = answer if isinstance(answer, str) else self._text(answer)
        return "_".join(text.split())[:200] or "<empty>"

    def played(self, text: str) -> None:
        # imported here: a course bot's host (version 1) never needs it (start-up time)
        from arena.games import GameError

        try:  # keep our state in step; an illegal answer ends the game anyway
            self.state = self.game.apply(self.state, self.game.parse_move(self.state, text))
        except GameError:
            pass

    def _text(self, answer: object) -> str:
        try:
            return str(self.game.move_to_text(self.state, answer))
        except Exception:
            try:
                return f"<{type(answer).__name__}:{answer!r}>"
            except Exception:
                return f"<{type(answer).__name__}>"


def adapter_for(version: int) -> type[Adapter] | None:
    """The adapter class of protocol `version` (None: no game speaks it)."""
    if version == protocol.PROTOCOL_V2:
        return GamePlayerAdapter
    game = protocol.dialect_game(version)
    if game is None or not game.DIALECT_ADAPTER:
        return None
    module, _, name = game.DIALECT_ADAPTER.partition(":")
    cls: type[Adapter] = getattr(importlib.import_module(module), name)
    return cls


class _Host:
    def __init__(self, target: str, proto_in: int, proto_out: int) -> None:
        self.target = target
        self.reader = io.open(proto_in, "rb", buffering=1 << 16)  # noqa: UP020 (fd, not path)
        self.out = proto_out
        self.version = protocol.PROTOCOL_VERSION
        self.adapter: Adapter | None = None
        self.playing = False  # a game was prepared (`newgame` answered)

    # ----------------------------------------------------------------- I/O
    def send(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            n = os.write(self.out, data)
            data = data[n:]

    def refuse(self, text: str) -> NoReturn:
        self.send(protocol.error(text))
        _flush_std()
        os._exit(1)

    def fail(self, where: str, exc: BaseException) -> NoReturn:
        """Report a failure of the bot (or of loading it) and exit. `where` prefixes the text
        for failures outside the bot's own calls (the referee names the call)."""
        prefix = f"{where} " if where else ""
        if isinstance(exc, MemoryError):
            traceback.clear_frames(exc.__traceback__)  # let the bot's allocations go first
            text = f"{prefix}out of memory (MemoryError)"
        elif isinstance(exc, SystemExit):
            text = f"{prefix}called sys.exit({exc.code!r})"
        else:
            try:
                text = f"{prefix}raised {type(exc).__name__}: {exc}"
            except Exception:
                text = f"{prefix}raised {type(exc).__name__}"
        try:
            traceback.print_exception(type(exc), exc, exc.__traceback__)
        except BaseException:  # printing may fail too (out of memory, closed stderr)
            pass
        try:
            self.send(protocol.error(text))
        finally:
            _flush_std()
            os._exit(1)

    # ------------------------------------------------------------- messages
    def hello(self, version: int) -> bool:
        """Load the bot through the adapter of `version` and answer ``ready``; False (after
        answering ``error``) for a version this host or this bot does not speak."""
        cls = adapter_for(version)
        if cls is None:
            self.send(protocol.error(f"unsupported protocol version {version}"))
            return False
        try:  # the loaders (and the bot's imports) only now, once main() has set the lifeline
            self.adapter = cls(self.target)
        except Unsupported as e:
            print(e, file=sys.stderr)
            self.send(protocol.error(f"unsupported protocol version {version}"))
            return False
        except BaseException as e:
            self.fail(f"cannot load bot {self.target!r}:", e)
        self.version = version
        self.send(protocol.ready(version))
        return True

    def new_game(self, msg: protocol.NewGame) -> None:
        if self.adapter is None:
            self.refuse("newgame before hello")
        self.playing = False
        try:
            name = self.adapter.new_game(msg)
        except HostError as e:
            self.refuse(str(e))
        except BaseException as e:
            self.fail("", e)
        self.playing = True
        self.send(protocol.ok(name))

    def opponent(self, msg: protocol.Opponent) -> None:
        if self.adapter is None or not self.playing:
            self.refuse("opponent move outside a game")
        try:
            self.adapter.opponent(msg.move)
        except BaseException as e:
            self.fail("host: applying the opponent's move", e)

    def go(self) -> None:
        if self.adapter is None or not self.playing:
            self.refuse("go outside a game")
        try:
            text = self.adapter.select()
        except BaseException as e:
            self.fail("", e)
        self.send(f"play {text}\n")
        try:
            self.adapter.played(text)
        except BaseException as e:
            self.fail("host: applying the bot's own move", e)

    def run(self) -> int:
        while True:
            raw = self.reader.readline(protocol.MAX_LINE_BYTES + 1)
            if not raw:
                return 0  # the referee went away
            line = raw.decode("ascii", "replace").rstrip("\n")
            try:
                msg = protocol.parse_request(line, self.version)
            except protocol.ProtocolError as e:
                self.fail("host", e)
            if isinstance(msg, protocol.Go):
                self.go()
            elif isinstance(msg, protocol.Opponent):
                self.opponent(msg)
            elif isinstance(msg, protocol.NewGame):
                self.new_game(msg)
            elif isinstance(msg, protocol.Hello):
                if not self.hello(msg.version):
                    return 1
            elif isinstance(msg, protocol.Quit):
                return 0
            # None: an unknown keyword, ignored


def _flush_std() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _isolate_protocol_fds() -> tuple[int, int]:
    """Keep private copies of fds 0/1 for the protocol; point fd 0 at /dev/null, fd 1 at fd 2."""
    proto_in = os.dup(0)
    proto_out = os.dup(1)  # os.dup makes non-inheritable fds: a bot's subprocess won't get them
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True,
                                  errors="replace")
    return proto_in, proto_out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m arena.entrants.host TARGET   "
              "(speaks docs/protocol.md on stdin/stdout)",
              file=sys.stderr)
        return 2
    die_with_parent()  # a referee killed by SIGKILL must not leave this process behind
    proto_in, proto_out = _isolate_protocol_fds()
    sys.argv = [args[0]]
    code = _Host(args[0], proto_in, proto_out).run()
    _flush_std()
    os._exit(code)  # do not wait for a bot's non-daemon threads


if __name__ == "__main__":
    raise SystemExit(main())
