"""One store API of finished games (issue 47, item 3): a tournament's results database
(`ResultStore`) and a league's rating games (`LeagueGames`) are written and read by the same
test body; a league game's `games` row is derived from its record alone; and a league made
before the API (tests/data/league_403f48c) reads its games through it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league import League
from arena.league.db import LeagueGames, game_row, with_sides
from arena.records import GameRecord, Reason
from arena.report.viewer_json import viewer_game
from arena.results.store import GameStore, ResultStore
from tests.helpers import columns
from tests.league.helpers import random_won_game

OLD = Path(__file__).resolve().parents[1] / "data" / "league_403f48c"


def _records() -> list[GameRecord]:
    """Four games of a pair series: a win of each side, a draw, a timeout of the second
    player; each labelled as a run labels it and with its sides as the league keys them."""
    out = []
    for i in range(4):
        rec = random_won_game(i).labelled(game_id=f"league-1-{i // 2}-{i % 2}",
                                          pair_id=f"lease-{i // 2}", player1="ann v1",
                                          player2="L0", timeout_s=1.0, grace_s=0.05)
        if i == 2:
            rec = rec.labelled(winner=None, reason=Reason.DRAW)
        if i == 3:
            rec = rec.labelled(winner=1, reason=Reason.TIMEOUT, offender=2,
                               stderr_tail="slow\n")
        first = i % 2 == 0
        out.append(with_sides(rec, *(("sub:1", "players.L0") if first
                                      else ("players.L0", "sub:1"))))
    return out


@pytest.fixture(params=["results", "league"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    if request.param == "results":
        with ResultStore(tmp_path / "games.sqlite") as results:
            yield results
    else:
        lg = League.init(tmp_path / "lg")
        with lg.write_lock():  # the league writes inside the caller's transaction
            yield LeagueGames(lg)
        lg.conn.close()


def test_both_stores_keep_and_give_back_the_same_games(store: GameStore) -> None:
    records = _records()
    assert store.count() == 0 and list(store.games()) == []
    assert [store.add(r) for r in records] == [True] * 4
    assert store.add(records[1]) is False  # stored already: not again
    assert store.count() == 4
    stored = list(store.games())
    assert [g.record for g in stored] == records  # in the order stored, equal
    assert len({g.game_id for g in stored}) == 4
    for g in stored:
        assert store.game(g.game_id) == g
    assert store.game("no-such-game") is None and store.game("999") is None
    with pytest.raises(ValueError):
        store.add(records[0].labelled(game_id=""))
    assert store.count() == 4


def test_a_league_game_row_comes_from_its_record_and_is_committed(tmp_path: Path) -> None:
    lg = League.init(tmp_path / "lg")
    records = _records()
    with lg.write_lock():
        ids = [LeagueGames(lg).insert(r) for r in records]
    assert None not in ids
    other = League.open(tmp_path / "lg")  # another connection: the transaction committed
    rows = other.conn.execute("SELECT side_a, side_b, board, score_a, reason, faulted "
                              "FROM games ORDER BY id").fetchall()
    assert rows == [("sub:1", "players.L0", "5x5x4", 1.0, "win", ""),
                    ("players.L0", "sub:1", "5x5x4", 1.0, "win", ""),
                    ("sub:1", "players.L0", "5x5x4", 0.5, "draw", ""),
                    ("players.L0", "sub:1", "5x5x4", 1.0, "timeout", "sub:1")]
    assert [g.game_id for g in LeagueGames(other).games()] == [str(i) for i in ids]
    assert [g.game_id for g in LeagueGames(other).games(newest=2)] == [str(i) for i in ids[2:]]
    # the same label between other sides is another game (a pair's number counts per
    # opponent, so league game ids repeat across opponents)
    with lg.write_lock():
        assert LeagueGames(lg).add(with_sides(records[0], "sub:1", "sub:2"))
    assert LeagueGames(other).count() == 5


def test_a_record_without_its_sides_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    lg = League.init(tmp_path / "lg")
    bare = _records()[0].labelled(extra={})
    with pytest.raises(ValueError, match="sides"):
        game_row(bare)
    with pytest.raises(ValueError, match="sides"), lg.write_lock():
        LeagueGames(lg).add(bare)
    assert LeagueGames(lg).count() == 0


def test_the_viewer_does_not_show_a_league_games_sides() -> None:
    rec = _records()[0]
    assert "sides" not in viewer_game(rec, 1)["info"]
    assert "pair" in viewer_game(rec, 1)["info"]  # a label it does show


def test_an_old_league_reads_its_games_through_the_store_api(tmp_path: Path) -> None:
    shutil.copytree(OLD, tmp_path / "old")
    lg = League.open(tmp_path / "old" / "lg")
    store = LeagueGames(lg)
    rows = lg.conn.execute("SELECT id, side_a, side_b, board, score_a, reason, faulted "
                           "FROM games ORDER BY id").fetchall()
    assert store.count() == len(rows) == 14
    games = list(store.games())
    assert [(int(g.game_id), g.player1, g.player2) for g in games] == [r[:3] for r in rows]
    first = store.game(games[0].game_id)
    assert first is not None and first.record == games[0].record and columns(first.record)
    # its rows are what the one derivation makes of its records (the old worker's scores)
    for g, row in zip(games, rows, strict=True):
        assert game_row(with_sides(g.record, g.player1, g.player2)) == row[1:]
    # and a new game is stored beside them
    new = _records()[0]
    with lg.write_lock():
        assert store.add(new)
    assert store.count() == 15 and list(store.games())[-1].record == new
