"""A Connect-X record read as the Connect-X tools want it: (M, N, K, columns).

Records are game-neutral (`arena.records`: game + params + move texts); the Connect-X tools
(analysis, similarity, the viewer's columns, the results database's M, N, K labels) read a
record's board and moves through this one helper, never through fields of their own."""

from __future__ import annotations

from typing import Protocol

from arena.games.base import Game
from arena.games.connectx.game import ConnectX

__all__ = ["board_and_columns"]


class _Record(Protocol):
    """What the helper reads of a record (`arena.records.GameRecord`)."""

    @property
    def game(self) -> str: ...

    @property
    def texts(self) -> tuple[str, ...]: ...

    def rules(self) -> Game: ...


def board_and_columns(record: _Record) -> tuple[int, int, int, tuple[int, ...]] | None:
    """(M, N, K, every move's column, the opening's first) of a Connect-X record; None for a
    record of another game. Raises GameError for parameters this cxarena does not know."""
    if record.game != ConnectX.name:
        return None
    params = record.rules().params  # ConnectX's rows, cols, k
    return (int(params["rows"]), int(params["cols"]), int(params["k"]),
            tuple(int(t) for t in record.texts))
