"""Nine Men's Morris (Mühle) as a `Game`.

The board has 24 points on three nested squares joined at their midpoints, named as usual by
column letter a..g and row 1..7 from the bottom (a7 top left, g1 bottom right). White (side 0)
moves first.

Rules:
- Placing: while a side has pieces in hand (``pieces``, 9 by default), its move puts one on an
  empty point. The sides alternate, so both finish placing after 2 x pieces moves.
- Moving: then a move slides a piece to an adjacent empty point; a side with exactly three
  pieces may fly (jump to any empty point), unless ``flying=0``.
- A move that closes a mill (three own pieces on a line through the moved piece) removes one
  opponent piece, which must not stand in a mill unless all of them do. The removal is part of
  the same move, and it is compulsory (when the opponent has a piece on the board).
- The side to move loses with fewer than three pieces (on the board and in hand), or with no
  legal move.
- Draws: a position (board, side to move, pieces in hand) occurring for the third time, and
  ``no_mill_moves`` moves in a row (both sides' moves counted) without a mill.

Notation: a placement is the point (``d2``), a move or jump is ``from-to`` (``d2-d3``), and a
removal is appended as ``x`` and the point (``d2xa1``, ``d2-d3xa1``).

Points are indexed 0..23 row by row from the top (`POINTS`); a side's pieces are a 24-bit int.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.base import Game, IllegalMoveError, MoveSyntaxError, Outcome, ParamError

__all__ = ["ADJACENT", "MILLS", "POINTS", "Morris", "MorrisMove", "MorrisState"]

#: point names by index (row by row from the top, left to right)
POINTS = ("a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5",
          "a4", "b4", "c4", "e4", "f4", "g4", "c3", "d3", "e3",
          "b2", "d2", "f2", "a1", "d1", "g1")
_INDEX = {name: i for i, name in enumerate(POINTS)}
#: the 16 lines of three points
MILLS = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11), (12, 13, 14), (15, 16, 17),
         (18, 19, 20), (21, 22, 23), (0, 9, 21), (3, 10, 18), (6, 11, 15), (1, 4, 7),
         (16, 19, 22), (8, 12, 17), (5, 13, 20), (2, 14, 23))
_MILL_MASKS = tuple((1 << a) | (1 << b) | (1 << c) for a, b, c in MILLS)
#: point -> the mill masks through it
_MILLS_AT = tuple(tuple(m for m in _MILL_MASKS if m >> p & 1) for p in range(24))


def _adjacent() -> tuple[tuple[int, ...], ...]:
    adj: list[set[int]] = [set() for _ in range(24)]
    for a, b, c in MILLS:
        for x, y in ((a, b), (b, c)):
            adj[x].add(y)
            adj[y].add(x)
    return tuple(tuple(sorted(s)) for s in adj)


#: point -> its neighbours along the lines
ADJACENT = _adjacent()
_ADJ_MASK = tuple(sum(1 << q for q in ADJACENT[p]) for p in range(24))
FULL = (1 << 24) - 1
_MOVE = re.compile(r"([a-g][1-7])(?:-([a-g][1-7]))?(?:x([a-g][1-7]))?\Z")


@dataclass(frozen=True, order=True)
class MorrisMove:
    """A placement (`src` None), a move or a jump (`src` set), and the optional removal."""

    dst: int
    src: int | None = None
    remove: int | None = None

    def text(self) -> str:
        out = POINTS[self.dst] if self.src is None else f"{POINTS[self.src]}-{POINTS[self.dst]}"
        return out if self.remove is None else f"{out}x{POINTS[self.remove]}"


@dataclass(frozen=True)
class MorrisState:
    """A position with what the draw rules need.

    `white`/`black`: 24-bit boards; `side`: 0 white, 1 black; `in_hand`: pieces still to
    place (white, black); `since_mill`: moves since the last mill; `history`: the keys of the
    positions since the last placement or removal (both irreversible), the current one last.
    """

    white: int
    black: int
    side: int
    in_hand: tuple[int, int]
    since_mill: int = 0
    history: tuple[int, ...] = ()

    def discs(self, side: int) -> tuple[int, int]:
        return (self.white, self.black) if side == 0 else (self.black, self.white)

    def key(self) -> int:
        return _key(self.white, self.black, self.side, self.in_hand)


def _key(white: int, black: int, side: int, in_hand: tuple[int, int]) -> int:
    return white | black << 24 | side << 48 | in_hand[0] << 49 | in_hand[1] << 54


def in_mill(bits: int, p: int) -> bool:
    """True if point p is in a mill of the pieces `bits`."""
    return any(bits & m == m for m in _MILLS_AT[p])


def removable(bits: int) -> list[int]:
    """The pieces of `bits` that a mill may remove: those not in a mill, or all if none."""
    pts = [p for p in range(24) if bits >> p & 1]
    free = [p for p in pts if not in_mill(bits, p)]
    return free or pts


#: plies of a typical game's moving phase, after the placing, besides one per piece (measured
#: over 3 to 12 pieces: between the alpha-beta bot at depth 2 and random play)
MOVING_PLIES = 24
#: what flying adds to it: a side down to three pieces cannot be blocked, so the end lasts
FLYING_PLIES = 4


class Morris(Game[MorrisState, MorrisMove]):
    name = "morris"
    PARAMS = {"pieces": 9, "no_mill_moves": 50, "flying": 1}
    BOT_BASE = "arena.games.player:MorrisPlayer"
    PRESENTATION = "arena.games.morris.presentation:MorrisPresentation"

    def fair_opening(self, texts: Sequence[str], end: MorrisState) -> bool:
        """An opening that took a piece (a mill: ``x`` in a move) is not a fair start."""
        return self.outcome(end) is None and not any("x" in t for t in texts)

    def _validate(self) -> None:
        p = self.params
        if not 3 <= p["pieces"] <= 12:
            raise ParamError(f"morris: pieces must be between 3 and 12, got {p['pieces']}")
        if p["no_mill_moves"] < 1:
            raise ParamError(f"morris: no_mill_moves must be at least 1, got "
                             f"{p['no_mill_moves']}")
        if p["flying"] not in (0, 1):
            raise ParamError(f"morris: flying must be 0 or 1, got {p['flying']}")

    def cost(self) -> float:
        """The plies of a typical game (every variant has the same 24 points): 2 x pieces to
        place, then a moving phase, longer with more pieces to take and with flying (when a
        side has more than three pieces to start with: at three, both fly from the start and
        mills come sooner), and cut short by the no-mill rule."""
        p = self.params
        moving = MOVING_PLIES + p["pieces"]
        moving += FLYING_PLIES if p["flying"] and p["pieces"] > 3 else 0
        return float(2 * p["pieces"] + min(p["no_mill_moves"], moving))

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> MorrisState:
        hand = (self.params["pieces"], self.params["pieces"])
        return MorrisState(0, 0, 0, hand, 0, (_key(0, 0, 0, hand),))

    def position(self, white: list[str], black: list[str], side: int = 0,
                 in_hand: tuple[int, int] = (0, 0), since_mill: int = 0) -> MorrisState:
        """A hand-made position from point names (for tests, puzzles and openings)."""
        w = sum(1 << _INDEX[p] for p in white)
        b = sum(1 << _INDEX[p] for p in black)
        if w & b:
            raise ValueError("a point holds both colours")
        return MorrisState(w, b, side, in_hand, since_mill, (_key(w, b, side, in_hand),))

    def to_move(self, state: MorrisState) -> int:
        return state.side

    def pieces(self, state: MorrisState, side: int) -> int:
        """Pieces of `side` on the board and in hand."""
        own = state.white if side == 0 else state.black
        return own.bit_count() + state.in_hand[side]

    def can_fly(self, state: MorrisState, side: int) -> bool:
        own = state.white if side == 0 else state.black
        return bool(self.params["flying"]) and state.in_hand[side] == 0 and own.bit_count() == 3

    def _steps(self, state: MorrisState) -> list[tuple[int | None, int]]:
        """(src, dst) pairs without removals."""
        own, opp = state.discs(state.side)
        empty = FULL & ~(own | opp)
        empties = [p for p in range(24) if empty >> p & 1]
        if state.in_hand[state.side]:
            return [(None, d) for d in empties]
        srcs = [p for p in range(24) if own >> p & 1]
        if self.can_fly(state, state.side):
            return [(s, d) for s in srcs for d in empties]
        return [(s, d) for s in srcs for d in ADJACENT[s] if empty >> d & 1]

    def mobility(self, state: MorrisState, side: int) -> int:
        """How many (from, to) steps `side` has in this position (placements while it has
        pieces in hand), ignoring whose turn it is and the removals."""
        if side == state.side:
            return len(self._steps(state))
        return len(self._steps(MorrisState(state.white, state.black, side, state.in_hand)))

    def _drawn(self, state: MorrisState) -> Outcome | None:
        if state.since_mill >= self.params["no_mill_moves"]:
            return Outcome(None, "no-mill", f"{state.since_mill} moves without a mill")
        key = state.history[-1] if state.history else state.key()
        if state.history.count(key) >= 3:
            return Outcome(None, "threefold-repetition", "the position occurred three times")
        return None

    def legal_moves(self, state: MorrisState) -> list[MorrisMove]:
        if self.pieces(state, state.side) < 3 or self._drawn(state):
            return []
        return self._expand(state, self._steps(state))

    def _expand(self, state: MorrisState, steps: list[tuple[int | None, int]]
                ) -> list[MorrisMove]:
        own, opp = state.discs(state.side)
        out: list[MorrisMove] = []
        targets: list[int] | None = None
        for src, dst in steps:
            after = (own if src is None else own & ~(1 << src)) | (1 << dst)
            if opp and in_mill(after, dst):
                if targets is None:
                    targets = removable(opp)
                out.extend(MorrisMove(dst, src, r) for r in targets)
            else:
                out.append(MorrisMove(dst, src, None))
        return out

    def _check(self, state: MorrisState, move: MorrisMove) -> None:
        """Raise IllegalMoveError unless `move` is legal in `state` (the game not over)."""
        if not isinstance(move, MorrisMove):
            raise IllegalMoveError(f"not a Morris move: {move!r}")
        if self.pieces(state, state.side) < 3 or self._drawn(state):
            raise IllegalMoveError("the game is over")
        own, opp = state.discs(state.side)
        occupied = own | opp
        dst, src = move.dst, move.src
        if not 0 <= dst < 24 or occupied >> dst & 1:
            raise IllegalMoveError(f"{move.text()}: the target point is not empty")
        if state.in_hand[state.side]:
            if src is not None:
                raise IllegalMoveError(f"{move.text()}: pieces in hand must be placed first")
        else:
            if src is None:
                raise IllegalMoveError(f"{move.text()}: no pieces left to place")
            if not 0 <= src < 24 or not own >> src & 1:
                raise IllegalMoveError(f"{move.text()}: no own piece on {POINTS[src]}"
                                       if 0 <= src < 24 else "bad source point")
            if not self.can_fly(state, state.side) and not _ADJ_MASK[src] >> dst & 1:
                raise IllegalMoveError(f"{move.text()}: the points are not adjacent")
        after = (own if src is None else own & ~(1 << src)) | (1 << dst)
        if opp and in_mill(after, dst):
            if move.remove is None:
                raise IllegalMoveError(f"{move.text()}: closes a mill, so it must remove a piece")
            if move.remove not in removable(opp):
                raise IllegalMoveError(f"{move.text()}: that piece cannot be removed")
        elif move.remove is not None:
            raise IllegalMoveError(f"{move.text()}: removes a piece without closing a mill")

    def apply(self, state: MorrisState, move: MorrisMove) -> MorrisState:
        self._check(state, move)
        if not self.legal_moves(state):  # blocked: the game is over
            raise IllegalMoveError("the game is over")
        return self.apply_unchecked(state, move)

    def apply_unchecked(self, state: MorrisState, move: MorrisMove) -> MorrisState:
        """`apply` for a move taken from `legal_moves` (no check; for searching bots)."""
        side = state.side
        own, opp = state.discs(side)
        hand = list(state.in_hand)
        if move.src is None:
            hand[side] -= 1
        else:
            own &= ~(1 << move.src)
        own |= 1 << move.dst
        if move.remove is not None:
            opp &= ~(1 << move.remove)
        white, black = (own, opp) if side == 0 else (opp, own)
        in_hand = (hand[0], hand[1])
        key = _key(white, black, 1 - side, in_hand)
        irreversible = move.src is None or move.remove is not None
        history = (key,) if irreversible else state.history + (key,)
        since = 0 if move.remove is not None else state.since_mill + 1
        return MorrisState(white, black, 1 - side, in_hand, since, history)

    def outcome(self, state: MorrisState) -> Outcome | None:
        side = state.side
        if self.pieces(state, side) < 3:
            return Outcome(1 - side, "fewer-than-three",
                           f"{'white' if side == 0 else 'black'} has fewer than three pieces")
        drawn = self._drawn(state)
        if drawn:
            return drawn
        if not self._steps(state):
            return Outcome(1 - side, "no-legal-move",
                           f"{'white' if side == 0 else 'black'} cannot move")
        return None

    # ------------------------------------------------------------------- text
    def move_to_text(self, state: MorrisState, move: MorrisMove) -> str:
        return move.text()

    def parse_move(self, state: MorrisState, text: str) -> MorrisMove:
        m = _MOVE.match(text)
        if not m or m.group(1) not in _INDEX or (m.group(2) and m.group(2) not in _INDEX) or (
                m.group(3) and m.group(3) not in _INDEX):
            raise MoveSyntaxError(f"a Morris move is a point (d2), a move (d2-d3), each with an "
                                  f"optional removal (xa1); got {text!r}")
        first, second, rem = m.group(1), m.group(2), m.group(3)
        if second:
            move = MorrisMove(_INDEX[second], _INDEX[first], _INDEX[rem] if rem else None)
        else:
            move = MorrisMove(_INDEX[first], None, _INDEX[rem] if rem else None)
        self._check(state, move)
        return move
