"""`python -m arena.entrants.host TARGET`: plays a Python `CXPlayer` class over the line protocol.

TARGET is a SPEC the referee has already resolved (`BotSpec.host_target()`: ``pkg.mod[:Class]``,
``/abs/file.py[:Class]`` or ``kaggle:/abs/file.py[:function]``, the last one started as
``python -m arena.entrants.kaggle_host``); it loads the bot at ``hello`` with
`arena.entrants.probe.load`, as the checks before a run do. The host keeps a private copy of the
real stdin/stdout for the protocol and points fd 0 at /dev/null and fd 1 at stderr (the bot's
log), so neither `print()` nor `input()` inside a bot can corrupt the protocol. See
docs/protocol.md for the messages and how they map to `initPlayer`, `selectColumn` and
`playerName`.

A bot that raises (anything, including SystemExit and MemoryError) makes the host print the
traceback to stderr, answer ``error TEXT`` and exit with status 1.
"""

from __future__ import annotations

import io
import os
import sys
import traceback
from typing import NoReturn

from arena.board import CXBoard
from arena.player import CXPlayer
from arena.wire import protocol
from arena.wire.lifeline import die_with_parent

__all__ = ["main"]


class _Host:
    def __init__(self, target: str, proto_in: int, proto_out: int) -> None:
        self.target = target
        self.reader = io.open(proto_in, "rb", buffering=1 << 16)  # noqa: UP020 (fd, not path)
        self.out = proto_out
        self.cls: type[CXPlayer] | None = None
        self.player: CXPlayer | None = None
        self.board: CXBoard | None = None

    # ----------------------------------------------------------------- I/O
    def send(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            n = os.write(self.out, data)
            data = data[n:]

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
    def load(self) -> None:
        # start-up: the loaders (and the bot's imports) only at `hello`, once main() has set
        # the lifeline and the protocol's streams
        from arena.entrants.probe import load

        try:
            self.cls = load(self.target)
        except BaseException as e:
            self.fail(f"cannot load bot {self.target!r}:", e)
        self.send(protocol.ready())

    def new_game(self, msg: protocol.NewGame) -> None:
        if self.cls is None:
            self.send(protocol.error("newgame before hello"))
            os._exit(1)
        self.player = None
        self.board = CXBoard(msg.M, msg.N, msg.K)
        try:
            player = self.cls()
            player.seed = msg.seed
            for key, value in msg.options.items():
                setattr(player, key, value)
            player.initPlayer(msg.M, msg.N, msg.K, msg.first, msg.timeout_s)
        except BaseException as e:
            self.fail("", e)
        try:
            name = str(player.playerName())
        except Exception:  # a failing playerName costs the name, not the game
            traceback.print_exc()
            name = ""
        self.player = player
        self.send(protocol.ok(name))

    def opponent(self, msg: protocol.Opponent) -> None:
        if self.board is None:
            self.send(protocol.error("opponent move outside a game"))
            os._exit(1)
        try:
            self.board.markColumn(msg.column)
        except BaseException as e:
            self.fail("host: applying the opponent's move", e)

    def go(self) -> None:
        if self.player is None or self.board is None:
            self.send(protocol.error("go outside a game"))
            os._exit(1)
        try:
            answer = self.player.selectColumn(self.board.copy())
        except BaseException as e:
            self.fail("", e)
        text = protocol.encode_answer(answer)
        self.send(f"play {text}\n")
        try:  # keep our board in step; an illegal answer ends the game anyway
            self.board.markColumn(int(text))
        except (ValueError, IndexError):
            pass

    def run(self) -> int:
        while True:
            raw = self.reader.readline(protocol.MAX_LINE_BYTES + 1)
            if not raw:
                return 0  # the referee went away
            line = raw.decode("ascii", "replace").rstrip("\n")
            try:
                msg = protocol.parse_request(line)
            except protocol.ProtocolError as e:
                self.fail("host", e)
            if isinstance(msg, protocol.Go):
                self.go()
            elif isinstance(msg, protocol.Opponent):
                self.opponent(msg)
            elif isinstance(msg, protocol.NewGame):
                self.new_game(msg)
            elif isinstance(msg, protocol.Hello):
                if msg.version == 2:  # any game (docs/protocol.md, "Version 2")
                    # only a version-2 session needs the games (start-up time)
                    from arena.entrants.game_host import GameHost

                    return GameHost(self).run()
                if msg.version != protocol.PROTOCOL_VERSION:
                    self.send(protocol.error(f"unsupported protocol version {msg.version}"))
                    return 1
                self.load()
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
