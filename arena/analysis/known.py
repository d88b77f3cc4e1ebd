"""Published values of early positions, which the analysis uses before its solver.

The exact solver cannot solve the first positions of a big board within an analysis' time
budget, and the opening book that the bots use (players/_shared/book.py) holds only the empty
board of 6x7. Without a value after the first move, a first move that gives up a win would be
"unclear". This table holds the values the literature publishes, one entry per position, written
as the moves that led to it (0-based columns from the empty board):

- 6x7, K=4 (6 rows, 7 columns): the first player wins, and only by opening in the middle
  column. After the first move in column 3 the second player loses; after column 2 or 4 the
  game is a draw; after columns 0, 1, 5 or 6 the second player wins. Sources: Victor Allis,
  "A Knowledge-based Approach of Connect-Four", MSc thesis, Vrije Universiteit Amsterdam, 1988;
  John Tromp, "John's Connect Four Playground" (tromp.github.io/c4/c4.html), which gives the
  value of each first move.
- The boards the second player wins from the empty board (connect4_board_values.csv in the shared
  reference data: Tromp's table, confirmed by Steininger's solver: 4x6, 4x8 to 4x12, 6x6, 6x8,
  6x9, 8x6, 8x8, 10x6, 12x6, rows x columns). There, every first move loses, so the second
  player, to move after it, wins: no search is needed to say so.

A value is the outcome for the side to move (+1 wins, 0 draw, -1 loses) and, where the source
names them, the columns that keep it. Nothing is derived for boards that are drawn or won by the
first player, apart from 6x7: the table of the empty board's value does not say which first
moves keep it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KnownValue", "known_value"]


@dataclass(frozen=True)
class KnownValue:
    """A published value: `outcome` for the side to move (+1, 0, -1), the columns that keep it
    where the source names them (empty: not named), and the source."""

    outcome: int
    keeping: tuple[int, ...]
    source: str


_ALLIS_TROMP = ("Allis 1988 (MSc thesis, VU Amsterdam); Tromp, John's Connect Four "
                "Playground (tromp.github.io/c4/c4.html)")
_SECOND_WINS = ("the empty board is a second-player win (Tromp's table, confirmed by "
                "Steininger: connect4_board_values.csv), so every first move loses")

#: boards (rows M, columns N) with K=4 that the second player wins from the empty board
#: (the rows of connect4_board_values.csv whose winner is "second")
_SECOND_PLAYER_BOARDS = ((4, 6), (4, 8), (4, 9), (4, 10), (4, 11), (4, 12), (6, 6), (6, 8),
                         (6, 9), (8, 6), (8, 8), (10, 6), (12, 6))


def _table() -> dict[tuple[int, int, int, tuple[int, ...]], KnownValue]:
    table: dict[tuple[int, int, int, tuple[int, ...]], KnownValue] = {
        (6, 7, 4, ()): KnownValue(1, (3,), _ALLIS_TROMP),
    }
    # 6x7 after the first move, for the second player (to move): the centre loses for it, the
    # two next to the centre draw, the four outer ones win for it
    after_first = {0: 1, 1: 1, 2: 0, 3: -1, 4: 0, 5: 1, 6: 1}
    for col, outcome in after_first.items():
        table[(6, 7, 4, (col,))] = KnownValue(outcome, (), _ALLIS_TROMP)
    for M, N in _SECOND_PLAYER_BOARDS:
        table[(M, N, 4, ())] = KnownValue(-1, tuple(range(N)), _SECOND_WINS)
        for col in range(N):
            table[(M, N, 4, (col,))] = KnownValue(1, (), _SECOND_WINS)
    return table


KNOWN = _table()


def known_value(M: int, N: int, K: int, moves: list[int] | tuple[int, ...]
                ) -> KnownValue | None:
    """The published value of the position after `moves` on an M x N x K board, if any."""
    return KNOWN.get((M, N, K, tuple(moves)))
