"""A bot process is reused for many games: the search bots must not keep old games' engines
alive (their searches run with the collector paused and frozen, see players._shared.common)."""

from __future__ import annotations

import gc
import weakref

import pytest

from arena.board import CXBoard
from players._shared.common import no_gc_pauses
from players.alphabeta import AlphaBeta
from players.minimax import Minimax

#: the real collector: what it frees is the point (tests/conftest.py)
pytestmark = pytest.mark.real_gc


def _game(cls, M, N, K):
    p = cls()
    p.seed = 1
    p.initPlayer(M, N, K, True, 0.2)
    b = CXBoard(M, N, K)
    for _ in range(3):
        b.markColumn(p.selectColumn(b.copy()))
        b.markColumn(b.getAvailableColumns()[0])
    return p


@pytest.mark.parametrize("cls", [AlphaBeta, Minimax])
@pytest.mark.parametrize("board", [(6, 7, 4), (20, 20, 10)])
def test_the_previous_games_engine_is_freed_when_a_game_starts(cls, board):
    old = _game(cls, *board)
    engine = old.bit_engine if old.bit_engine is not None else old.grid
    ref = weakref.ref(engine)
    del old, engine
    new = cls()
    new.initPlayer(*board, True, 0.2)
    assert ref() is None, "the last game's search engine is still alive"
    assert gc.get_freeze_count() == 0


def test_no_gc_pauses_leaves_the_collector_enabled_and_freezes():
    with no_gc_pauses():
        assert not gc.isenabled()
        junk = [[i] for i in range(100)]
    assert gc.isenabled() and gc.get_freeze_count() > 0
    del junk
