"""Protocol version 2 (docs/protocol.md, "Version 2"): the line protocol for any `Game`.

Version 2 keeps every message of version 1 but two: `newgame` names the game and its
parameters, and moves (`opponent MOVE`, `play MOVE`) are the game's text form of a move
(``d3``, ``pass``, ``d2-d3xa1``, or a Connect-X column). Pure functions and frozen dataclasses,
no I/O; the messages both versions share (`hello`, `ready`, `ok`, `go`, `quit`, `error`,
comments) come from `arena.wire.protocol`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.games.params import format_params, parse_params

from .protocol import (
    MAX_NAME_CHARS,
    Comment,
    ErrorReply,
    Go,
    Hello,
    Ok,
    ProtocolError,
    Quit,
    Ready,
    format_seconds,
)

__all__ = [
    "MAX_MOVE_CHARS",
    "PROTOCOL_V2",
    "NewGameV2",
    "OpponentMove",
    "PlayMove",
    "RequestV2",
    "ReplyV2",
    "is_move_text",
    "newgame_v2",
    "opponent_move",
    "parse_reply_v2",
    "parse_request_v2",
    "play_move",
]

#: the version number in `hello 2` / `ready 2`
PROTOCOL_V2 = 2
#: longest move text either side sends
MAX_MOVE_CHARS = 64

_GAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_MOVE = re.compile(r"[\x21-\x7e]{1," + str(MAX_MOVE_CHARS) + r"}\Z")


def is_move_text(text: str) -> bool:
    """True for a well-formed move field: 1..64 printable ASCII characters, no spaces."""
    return bool(_MOVE.match(text))


@dataclass(frozen=True)
class NewGameV2:
    """`newgame GAME PARAMS SIDE TIMEOUT SEED OPTIONS`."""

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
class OpponentMove:
    move: str


@dataclass(frozen=True)
class PlayMove:
    text: str  # the answer exactly as sent (checked against the rules by the referee)


RequestV2 = Hello | NewGameV2 | OpponentMove | Go | Quit
ReplyV2 = Ready | Ok | PlayMove | ErrorReply | Comment


def newgame_v2(game: str, params: Mapping[str, int], player: int, timeout_s: float,
               seed: int, options: Mapping[str, Any] | None = None) -> str:
    if not _GAME.match(game):
        raise ValueError(f"bad game name {game!r}")
    if player not in (1, 2):
        raise ValueError(f"player must be 1 or 2, got {player!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    opts = json.dumps(dict(options or {}), separators=(",", ":"), sort_keys=True)
    return (f"newgame {game} {format_params(params)} {player} {format_seconds(timeout_s)} "
            f"{seed} {opts}\n")


def opponent_move(move: str) -> str:
    if not is_move_text(move):
        raise ValueError(f"bad move text {move!r}")
    return f"opponent {move}\n"


def play_move(move: str) -> str:
    """The bot's answer. A text that is not a well-formed move is still sent (one line, no
    spaces) so that the referee reports it as illegal."""
    text = "_".join(str(move).split())[:200] or "<empty>"
    return f"play {text}\n"


def parse_request_v2(line: str) -> RequestV2 | None:
    """Decode a referee line (without its newline). None for an unknown keyword (ignore it).

    Raises ProtocolError for a known keyword with malformed fields.
    """
    line = line.rstrip("\r")
    keyword, _, rest = line.partition(" ")
    try:
        if keyword == "hello":
            return Hello(int(rest))
        if keyword == "newgame":
            parts = rest.split(" ", 5)
            if len(parts) < 5:
                raise ProtocolError(f"newgame needs at least 5 fields: {line!r}")
            game, params_text, player_text, timeout_text, seed_text = parts[:5]
            if not _GAME.match(game):
                raise ProtocolError(f"bad game name in {line!r}")
            player = int(player_text)
            if player not in (1, 2):
                raise ProtocolError(f"newgame side must be 1 or 2: {line!r}")
            options = json.loads(parts[5]) if len(parts) == 6 and parts[5].strip() else {}
            if not isinstance(options, dict):
                raise ProtocolError(f"newgame options must be a JSON object: {line!r}")
            return NewGameV2(game, parse_params(params_text), player, float(timeout_text),
                             int(seed_text), options)
        if keyword == "opponent":
            if not is_move_text(rest):
                raise ProtocolError(f"malformed opponent line {line!r}")
            return OpponentMove(rest)
        if keyword == "go":
            return Go()
        if keyword == "quit":
            return Quit()
    except ValueError as e:  # int()/float()/json/ParamError
        if isinstance(e, ProtocolError):
            raise
        raise ProtocolError(f"malformed {keyword} line {line!r}: {e}") from None
    return None


def parse_reply_v2(line: str) -> ReplyV2:
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
        return PlayMove(rest.strip())
    if keyword == "error":
        return ErrorReply(rest)
    raise ProtocolError(f"unexpected line {line[:200]!r}")
