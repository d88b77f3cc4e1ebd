"""The bot line protocol (docs/protocol.md): its version, and encoding/decoding of every message.

Pure functions and frozen dataclasses only: no I/O. The referee (`arena.referee.referee`) builds
requests
and parses replies with it; the Python host (`arena.entrants.host`) parses requests and builds
replies.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_NAME_CHARS",
    "PROTOCOL_VERSION",
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
    "encode_answer",
    "error",
    "format_seconds",
    "go",
    "hello",
    "newgame",
    "ok",
    "opponent",
    "parse_reply",
    "parse_request",
    "play",
    "quit",
    "ready",
]

#: the protocol version this harness speaks
PROTOCOL_VERSION = 1
#: longest line (bytes, without the newline) either side accepts
MAX_LINE_BYTES = 65536
#: longest bot name kept from an `ok NAME` reply
MAX_NAME_CHARS = 100

_INT = re.compile(r"-?[0-9]+\Z")


class ProtocolError(ValueError):
    """A line that does not follow the protocol grammar."""


# ------------------------------------------------------------------ referee -> bot
@dataclass(frozen=True)
class Hello:
    version: int


@dataclass(frozen=True)
class NewGame:
    M: int
    N: int
    K: int
    player: int  # 1 = this bot moves first, 2 = second
    timeout_s: float
    seed: int
    options: dict[str, Any]

    @property
    def first(self) -> bool:
        return self.player == 1


@dataclass(frozen=True)
class Opponent:
    column: int


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


def newgame(M: int, N: int, K: int, player: int, timeout_s: float, seed: int,
            options: Mapping[str, Any] | None = None) -> str:
    if player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, got {player!r}")
    opts = json.dumps(dict(options or {}), separators=(",", ":"), sort_keys=True)
    return f"newgame {M} {N} {K} {player} {format_seconds(timeout_s)} {seed} {opts}\n"


def opponent(column: int) -> str:
    return f"opponent {int(column)}\n"


def go() -> str:
    return "go\n"


def quit() -> str:
    return "quit\n"


def parse_request(line: str) -> Request | None:
    """Decode a referee line (without its newline). None for an unknown keyword (to be ignored).

    Raises ProtocolError for a known keyword with malformed fields.
    """
    line = line.rstrip("\r")
    keyword, _, rest = line.partition(" ")
    try:
        if keyword == "hello":
            return Hello(int(rest))
        if keyword == "newgame":
            parts = rest.split(" ", 6)
            if len(parts) < 6:
                raise ProtocolError(f"newgame needs 7 fields: {line!r}")
            M, N, K, player, seed = (int(parts[i]) for i in (0, 1, 2, 3, 5))
            options = json.loads(parts[6]) if len(parts) == 7 and parts[6].strip() else {}
            if not isinstance(options, dict):
                raise ProtocolError(f"newgame options must be a JSON object: {line!r}")
            return NewGame(M, N, K, player, float(parts[4]), seed, options)
        if keyword == "opponent":
            return Opponent(int(rest))
        if keyword == "go":
            return Go()
        if keyword == "quit":
            return Quit()
    except ValueError as e:  # int()/float()/json errors
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
    text: str  # the answer exactly as sent
    column: int | None  # its value if it is a decimal integer, else None (an illegal answer)


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
    return f"play {encode_answer(answer)}\n"


def error(text: str) -> str:
    return f"error {_one_line(text, 2000)}\n"


def parse_reply(line: str) -> Reply:
    """Decode a bot line (without its newline). Raises ProtocolError for anything unknown."""
    line = line.rstrip("\r")
    if not line.strip() or line.startswith("#"):
        return Comment(line)
    keyword, _, rest = line.partition(" ")
    if keyword == "ready":
        try:
            return Ready(int(rest))
        except ValueError:
            raise ProtocolError(f"malformed ready line {line!r}") from None
    if keyword == "ok":
        return Ok(rest.strip()[:MAX_NAME_CHARS])
    if keyword == "play":
        text = rest.strip()
        if not _INT.match(text):
            return Play(text, None)
        # an absurdly long number is out of range anyway (and int() refuses > 4300 digits)
        return Play(text, int(text) if len(text) <= 30 else (-1 if text[0] == "-" else 2**100))
    if keyword == "error":
        return ErrorReply(rest)
    raise ProtocolError(f"unexpected line {line[:200]!r}")
