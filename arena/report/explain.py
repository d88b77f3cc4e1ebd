"""Words for how a game ended (and the move of a fault). Pure: no I/O.

`describe_end` turns a record's `Reason` and `detail` into one sentence a student can read
("L1 (second player) lost on time on move 12: no answer after 60.2 ms ..."); `cxarena show`
prints it and the HTML report embeds it for every game that did not end normally. How a game
ended by its rules is told in the game's own words (its presentation's `end_words`), and the
line that won it is the game's too (`winning_cells`): nothing here knows a game.
"""

from __future__ import annotations

import re

from arena.games import GameError, presentation_of
from arena.records import GameRecord, Reason

__all__ = ["describe_end", "fault_move", "illegal_column", "seat_name"]

# Prefixes of the referee's details (arena.referee.referee.FAILED_TO_START, MOVE_CAP_DETAIL);
# spelled here so that reading a report never imports the referee.
_FAILED_TO_START = "failed to start"
_MOVE_CAP = "stopped at the move cap"
_MOVE_RE = re.compile(r"^(?:selectColumn|select_move) \(move (\d+)\)")
_FULL_RE = re.compile(r"column (-?\d+) is (?:full|out of range)")


def seat_name(seat: int) -> str:
    """'first player' or 'second player' for seat 1 or 2."""
    return "first player" if seat == 1 else "second player"


def fault_move(rec: GameRecord) -> int | None:
    """The move number a fault happened on (None if it happened before the first move)."""
    if not rec.is_fault:
        return None
    if "fault_ply" in rec.extra:  # stored by the referee since records carry it
        ply = rec.extra["fault_ply"]
        return int(ply) if ply is not None else None
    m = _MOVE_RE.match(rec.detail)  # older records: read from the detail
    if m:
        return int(m.group(1))
    if rec.detail.startswith(("initPlayer", "init_player", _FAILED_TO_START)):
        return None
    return rec.n_moves + 1


def illegal_column(rec: GameRecord) -> int | None:
    """The column an illegal answer named, when the detail says which."""
    if rec.reason is not Reason.ILLEGAL:
        return None
    move = rec.extra.get("fault_move")
    if isinstance(move, str):  # stored by the referee since records carry it
        return int(move) if re.fullmatch(r"-?\d{1,30}", move) else None
    m = _FULL_RE.search(rec.detail)  # older records: read from the detail
    return int(m.group(1)) if m else None


def _where(rec: GameRecord) -> tuple[str, str]:
    """(where the fault happened in words, the detail without its 'what:' prefix)."""
    what, sep, rest = rec.detail.partition(": ")
    if not sep:
        what, rest = "", rec.detail
    move = fault_move(rec)
    if move is not None:
        return f"on move {move}", rest
    if what.startswith("initPlayer") or rec.detail.startswith("initPlayer"):
        return "in initPlayer (before the first move)", rest
    return "before the first move", rest


def _game_words(rec: GameRecord, won: bool) -> str:
    """The record's game's own words for its end (`Presentation.end_words`); "" for the shared
    words, and for a game this cxarena does not know."""
    try:
        game = rec.rules()
        texts = rec.texts
    except GameError:
        return ""
    return presentation_of(game).end_words(rec.reason.value, won, rec.n_moves, rec.detail,
                                           texts[-1] if texts else "")


def describe_end(rec: GameRecord, player1: str = "", player2: str = "",
                 bot_text: bool = True) -> str:
    """One sentence: who won and why (the fault in words, if there was one). Without
    `bot_text`, a fault is told by its reason and move only: no word of the detail, which can
    hold the bot's own text (its exception, its answer), shown only to its author."""
    names = (player1 or rec.p1, player2 or rec.p2)
    n = rec.n_moves
    w = rec.winner if rec.reason in (Reason.WIN, Reason.CONNECT) else None
    if w in (1, 2) or (rec.reason is Reason.DRAW and not rec.detail.startswith(_MOVE_CAP)):
        head = f"{names[w - 1]} ({seat_name(w)}) wins" if w in (1, 2) else "Draw"
        words = _game_words(rec, w in (1, 2))  # the game's own, else the shared ones
        if words:
            return f"{head}{words}."
        return f"{head} after {n} moves" + (f": {rec.detail}." if rec.detail else ".")
    if rec.reason is Reason.DRAW:
        return f"Draw: {rec.detail}."  # the referee's move cap
    if rec.reason is Reason.ABANDONED:
        who = (f"{names[rec.winner - 1]} ({seat_name(rec.winner)}) wins" if rec.winner in (1, 2)
               else "No result")
        return f"{who}: the game was abandoned after {n} moves ({rec.detail})."
    off = rec.offender if rec.offender in (1, 2) else None
    bad = f"{names[off - 1]} ({seat_name(off)})" if off else "a player"
    win = f" {names[rec.winner - 1]} wins." if rec.winner in (1, 2) else ""
    where, rest = _where(rec)
    rest = rest.rstrip(".")
    if not bot_text:
        said = {Reason.TIMEOUT: "lost on time", Reason.ILLEGAL: "lost by an illegal move"}
        return f"{bad} {said.get(rec.reason, 'crashed')} {where}.{win}"
    if rec.reason is Reason.TIMEOUT:
        text = f"{bad} lost on time {where}: {rest}."
    elif rec.reason is Reason.ILLEGAL:
        text = f"{bad} lost by an illegal move {where}: {rest}."
    elif rec.detail.startswith(_FAILED_TO_START):
        text = f"{bad} failed to start: {rest or rec.detail}."
    elif "memory" in rec.detail.lower():
        text = f"{bad} ran out of memory {where}: {rest}."
    else:
        text = f"{bad} crashed {where}: {rest}."
    return text + win

