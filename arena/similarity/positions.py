"""The play-similarity positions of every board (issue #41, point 2): where they come from.

- **Solver boards** (at most 64 cells, the exact solver's reach): the published set of the
  board, arena/data/similarity_positions_MxNxK.txt (`arena.similarity.play.load_positions`),
  made by ``python -m bench.similarity_positions`` (seeded): quiet positions where at least two
  moves have the best exact value and at least one is worse. 6x7x4 has 120, the other boards
  of the competition set 24 (fewer, or none, where random games seldom give such a position:
  K=5 on small boards, where nearly everything is a draw).
- **Other boards** (the large ones, and a solver board without a published set): positions
  from the league's own stored games (`game_positions`): quiet middle-game positions, one per
  game, taken from the oldest games first, so that the set of a board does not change once it
  is full (the answers stored per version stay valid as more games are played).

`board_count` spreads the positions asked over the boards: a league on one board asks as many
as before, one on 35 boards a few on each (the time per version stays about the same).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from arena.board import CXBoard, CXGameState, CXMoveError
from arena.games.connectx.record import board_and_columns
from arena.similarity.play import Position, load_positions, positions_path

__all__ = ["Board", "MIN_PER_BOARD", "board_count", "game_positions", "published",
           "quiet", "wins_at"]

Board = tuple[int, int, int]
#: the fewest positions asked on a board of a league
MIN_PER_BOARD = 2
#: the fewest legal moves a position from a game must leave (a choice to make)
MIN_MOVES = 3


def board_count(positions: int, boards: int) -> int:
    """Positions asked on each of `boards` boards when `positions` are asked in all: an even
    share, at least `MIN_PER_BOARD` (all of them on one board)."""
    if boards <= 1:
        return positions
    return max(MIN_PER_BOARD, math.ceil(positions / boards))


def published(board: Board, limit: int | None = None) -> list[Position] | None:
    """The first `limit` positions of the board's published set, each marked with its board
    (None: the board has no published set)."""
    if not positions_path(*board).is_file():
        return None
    return [Position(p.moves, p.best, board) for p in load_positions(*board, limit=limit)]


def wins_at(grid: Sequence[Sequence[int]], K: int, r: int, c: int, who: int) -> bool:
    """Would `who` placing a stone at (r, c) of `grid` (row 0 the top) make K in a row?"""
    M, N = len(grid), len(grid[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            i, j = r + sign * dr, c + sign * dc
            while 0 <= i < M and 0 <= j < N and grid[i][j] == who:
                run += 1
                i, j = i + sign * dr, j + sign * dc
        if run >= K:
            return True
    return False


def quiet(b: CXBoard) -> bool:
    """Open, and neither side could win at once with its next stone (no win to take, no threat
    to block: the choice is not forced by tactics)."""
    if b.gameState() is not CXGameState.OPEN:
        return False
    grid = [[int(x) for x in row] for row in b.getBoard()]
    for col in b.getAvailableColumns():
        r = max(i for i in range(b.M) if grid[i][col] == 0)  # row 0 is the top
        if wins_at(grid, b.K, r, col, 1) or wins_at(grid, b.K, r, col, 2):
            return False
    return True


def _plies(length: int) -> list[int]:
    """The plies of a game of `length` moves a position is taken at, best first: from a
    quarter to three quarters of the game, nearest the middle first, at least two moves before
    its end (the game was not decided yet)."""
    low, high = max(1, length // 4), min(length - 2, (3 * length) // 4)
    middle = length / 2
    return sorted(range(low, high + 1), key=lambda p: (abs(p - middle), p))


def game_positions(records: Iterable[Any], board: Board, count: int) -> list[Position]:
    """Up to `count` positions of `board` from stored games (`arena.records.GameRecord`s, taken
    in the order given: the league's is oldest first), at most one a game: the first ply of
    `_plies` whose position is open, `quiet` (checked with the rules) and leaves at least
    `MIN_MOVES` legal moves; a position met before is skipped. Games of other boards are
    passed over. ``best`` is empty (no solver says which moves are best)."""
    M, N, K = board
    seen: set[tuple[int, ...]] = set()
    out: list[Position] = []
    for rec in records:
        if len(out) >= count:
            break
        cx = board_and_columns(rec)
        if cx is None or cx[:3] != board:
            continue
        moves = list(cx[3])
        for ply in _plies(len(moves)):
            key = tuple(moves[:ply])
            if key in seen:
                continue
            try:
                b = CXBoard.from_moves(M, N, K, list(key))
            except CXMoveError:  # a record that does not replay: no position of it
                break
            if len(b.getAvailableColumns()) >= MIN_MOVES and quiet(b):
                seen.add(key)
                out.append(Position(key, (), board))
                break
    return out
