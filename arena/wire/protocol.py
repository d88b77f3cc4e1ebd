"""The bot line protocol (docs/protocol.md): its versions, and encoding/decoding of every message.

One codec for every game. The messages are the same in both versions but one: `newgame` says
which game is played. In version 2 it names the game and its parameters
(``newgame othello size=8 ...``); version 1 is a game's own *dialect* of `newgame`, the fields
its bots have always read (Connect-X's ``newgame M N K ...``, the course's words, which the
Java shim speaks). A game declares its dialect with `Game.DIALECT` and the two class methods
`dialect_fields` / `dialect_params`; nothing here names a game. Moves travel as the game's text
form of a move (a Connect-X column is its decimal number).

Pure functions and frozen dataclasses only: no I/O. The referee (`arena.referee.referee`)
builds requests and parses replies with it; the Python host (`arena.entrants.host`) parses
requests and builds replies.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import GAMES, Game
from arena.games.params import format_params, parse_params

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_MOVE_CHARS",
    "MAX_NAME_CHARS",
    "PROTOCOL_V2",
    "PROTOCOL_VERSION",
    "VERSIONS",
    "Comment",
    "ErrorReply",
    "Go",
    "Hello",
    "NewGame",
    "Ok",
    "Opponent",
    "Play",
    "ProtocolError",
    "Quit",
    "Ready",
    "Reply",
    "Request",
    "dialect_game",
    "encode_answer",
    "error",
    "format_seconds",
    "go",
    "hello",
    "is_comment",
    "is_move_text",
    "newgame",
    "ok",
    "opponent",
    "opponent_lines",
    "parse_reply",
    "parse_request",
    "play",
    "play_move",
    "quit",
    "ready",
    "version_of",
]

#: version 1: a game's own dialect of `newgame` (Connect-X's, the course's)
PROTOCOL_VERSION = 1
#: version 2: `newgame` names the game and its parameters; any game
PROTOCOL_V2 = 2
VERSIONS = (PROTOCOL_VERSION, PROTOCOL_V2)
#: longest line (bytes, without the newline) either side accepts
MAX_LINE_BYTES = 65536
#: longest bot name kept from an `ok NAME` reply
MAX_NAME_CHARS = 100
#: longest move text either side sends
MAX_MOVE_CHARS = 64

_INT = re.compile(r"-?[0-9]+\Z")


_GAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_MOVE = re.compile(r"[\x21-\x7e]{1," + str(MAX_MOVE_CHARS) + r"}\Z")


class ProtocolError(ValueError):
    """A line that does not follow the protocol grammar."""


def is_move_text(text: str) -> bool:
    """True for a well-formed move field: 1..64 printable ASCII characters, no spaces."""
    return bool(_MOVE.match(text))


def version_of(game: Game | type[Game]) -> int:
    """The protocol version in which `game` is played: its own dialect, else version 2."""
    return game.DIALECT or PROTOCOL_V2


@functools.cache
def dialect_game(version: int) -> type[Game] | None:
    """The game whose dialect `version` is (None for version 2, or an unknown one)."""
    if version == PROTOCOL_V2:
        return None
    for cls in GAMES.classes():  # stops at the game, loading no other
        if cls.DIALECT == version:
            return cls
    return None


# ------------------------------------------------------------------ referee -> bot
@dataclass(frozen=True)
class Hello:
    version: int


@dataclass(frozen=True)
class NewGame:
    """`newgame`: the game (its name and parameters, in either dialect), this bot's side, the
    time limit, the game's seed and the options."""

    game: str
    params: Mapping[str, int]
    player: int  # 1 = this bot moves first, 2 = second
    timeout_s: float
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def first(self) -> bool:
        return self.player == 1


@dataclass(frozen=True)
class Opponent:
    """`opponent MOVE`: the move the other side made (its text form)."""

    move: str

    @property
    def column(self) -> int:
        """The move as a Connect-X column (ValueError if it is not a number)."""
        return int(self.move)


@dataclass(frozen=True)
class Go:
    pass


@dataclass(frozen=True)
class Quit:
    pass


Request = Hello | NewGame | Opponent | Go | Quit


def format_seconds(seconds: float) -> str:
    """A plain decimal number of seconds without exponent: 1 -> "1", 0.5 -> "0.5"."""
    text = f"{float(seconds):.6f}".rstrip("0").rstrip(".")
    return text or "0"


def hello(version: int = PROTOCOL_VERSION) -> str:
    return f"hello {version}\n"


def newgame(game: Game, player: int, timeout_s: float, seed: int,
            options: Mapping[str, Any] | None = None) -> str:
    """`newgame` for `game`, in the game's own dialect when it has one (`version_of`)."""
    if player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, got {player!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    if game.DIALECT:
        what = " ".join(game.dialect_fields(game.params))
    else:
        what = f"{game.name} {format_params(game.params)}"
    opts = json.dumps(dict(options or {}), separators=(",", ":"), sort_keys=True)
    return f"newgame {what} {player} {format_seconds(timeout_s)} {seed} {opts}\n"


def opponent(move: str | int) -> str:
    text = str(move)
    if not is_move_text(text):
        raise ValueError(f"bad move text {text!r}")
    return f"opponent {text}\n"


def opponent_lines(texts: Sequence[str]) -> str:
    """`opponent` lines for moves the referee itself accepted (canonical texts: not checked
    again, on the referee's hot path)."""
    return "".join([f"opponent {t}\n" for t in texts])


def go() -> str:
    return "go\n"


def quit() -> str:
    return "quit\n"


def _parse_newgame(rest: str, line: str, version: int) -> NewGame:
    dialect = dialect_game(version)
    if version != PROTOCOL_V2 and dialect is None:
        raise ProtocolError(f"newgame in unknown protocol version {version}: {line!r}")
    head = dialect.DIALECT_FIELDS if dialect is not None else 2
    parts = rest.split(" ", head + 3)
    if len(parts) < head + 3:
        raise ProtocolError(f"newgame needs {head + 4} fields: {line!r}")
    if dialect is not None:
        game, params = dialect.name, dict(dialect.dialect_params(parts[:head]))
    else:
        game = parts[0]
        if not _GAME.match(game):
            raise ProtocolError(f"bad game name in {line!r}")
        params = parse_params(parts[1])
    player_text, timeout_text, seed_text = parts[head:head + 3]
    player = int(player_text)
    if player not in (1, 2):
        raise ProtocolError(f"newgame side must be 1 or 2: {line!r}")
    options = json.loads(parts[head + 3]) if len(parts) > head + 3 and parts[head + 3].strip() \
        else {}
    if not isinstance(options, dict):
        raise ProtocolError(f"newgame options must be a JSON object: {line!r}")
    return NewGame(game, params, player, float(timeout_text), int(seed_text), options)


def parse_request(line: str, version: int = PROTOCOL_VERSION) -> Request | None:
    """Decode a referee line (without its newline) of a session in `version`. None for an
    unknown keyword (to be ignored).

    Raises ProtocolError for a known keyword with malformed fields.
    """
    line = line.rstrip("\r")
    keyword, _, rest = line.partition(" ")
    try:
        if keyword == "hello":
            return Hello(int(rest))
        if keyword == "newgame":
            return _parse_newgame(rest, line, version)
        if keyword == "opponent":
            # a dialect's moves are numbers (Connect-X columns); version 2's any move text
            if not (_INT.match(rest) if version != PROTOCOL_V2 else is_move_text(rest)):
                raise ProtocolError(f"malformed opponent line {line!r}")
            return Opponent(rest)
        if keyword == "go":
            return Go()
        if keyword == "quit":
            return Quit()
    except ValueError as e:  # int()/float()/json/ParamError
        if isinstance(e, ProtocolError):
            raise
        raise ProtocolError(f"malformed {keyword} line {line!r}: {e}") from None
    return None


# ------------------------------------------------------------------ bot -> referee
@dataclass(frozen=True)
class Ready:
    version: int


@dataclass(frozen=True)
class Ok:
    name: str


@dataclass(frozen=True)
class Play:
    """`play MOVE`: the answer exactly as sent (checked against the rules by the referee)."""

    text: str

    @property
    def column(self) -> int | None:
        """The answer's value as a decimal integer (a Connect-X column), else None."""
        text = self.text
        if not _INT.match(text):
            return None
        # an absurdly long number is out of range anyway (and int() refuses > 4300 digits)
        return int(text) if len(text) <= 30 else (-1 if text[0] == "-" else 2**100)


@dataclass(frozen=True)
class ErrorReply:
    text: str


@dataclass(frozen=True)
class Comment:
    text: str


Reply = Ready | Ok | Play | ErrorReply | Comment


def ready(version: int = PROTOCOL_VERSION) -> str:
    return f"ready {version}\n"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text[:limit]


def ok(name: str) -> str:
    return f"ok {_one_line(name, MAX_NAME_CHARS)}\n"


def encode_answer(answer: object) -> str:
    """The COL field for a selectColumn result.

    An int or numpy integer becomes its decimal value; anything else (2.0, "3", None, True)
    becomes a one-line repr that never reads as a decimal integer, so the referee flags it.
    """
    value: int | None = None
    if not isinstance(answer, bool):
        try:  # int and numpy integers (numpy's bool_ has no __index__)
            value = operator.index(answer)  # type: ignore[arg-type]
        except Exception:
            value = None
    if value is not None:
        try:
            return str(value)
        except ValueError:  # more digits than Python converts: still an illegal answer
            return "<int too large to print>"
    try:
        text = _one_line(repr(answer), 200)
    except Exception:  # a bot's object with a broken __repr__
        text = f"<{type(answer).__name__}>"
    if not text or _INT.match(text):
        text = f"<{type(answer).__name__} {text}>"
    return text


def play(answer: object) -> str:
    """A Connect-X bot's answer (`encode_answer`: anything but an int becomes an illegal text)."""
    return f"play {encode_answer(answer)}\n"


def play_move(move: object) -> str:
    """A bot's answer as the text of a move. A text that is not a well-formed move is still
    sent (one line, no spaces) so that the referee reports it as illegal."""
    text = "_".join(str(move).split())[:200] or "<empty>"
    return f"play {text}\n"


def error(text: str) -> str:
    return f"error {_one_line(text, 2000)}\n"


def is_comment(line: str) -> bool:
    """A bot line (without its newline) the protocol ignores: empty or blank (a `\\r` at the
    end is ignored), or starting with `#`."""
    line = line.rstrip("\r")
    return not line.strip() or line.startswith("#")


def parse_reply(line: str) -> Reply:
    """Decode a bot line (without its newline). Raises ProtocolError for anything unknown."""
    if is_comment(line):
        return Comment(line.rstrip("\r"))
    line = line.rstrip("\r")
    keyword, _, rest = line.partition(" ")
    if keyword == "ready":
        try:
            return Ready(int(rest))
        except ValueError:
            raise ProtocolError(f"malformed ready line {line!r}") from None
    if keyword == "ok":
        return Ok(rest.strip()[:MAX_NAME_CHARS])
    if keyword == "play":
        return Play(rest.strip())
    if keyword == "error":
        return ErrorReply(rest)
    raise ProtocolError(f"unexpected line {line[:200]!r}")
