"""The results database: one row per game id, committed at once, config fingerprint checks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.errors import UsageError
from arena.records import GameRecord, Reason
from arena.results.store import ResultStore
from tests.helpers import cx_record


def record(seed: int = 1, winner: int | None = 1, reason: Reason = Reason.CONNECT,
           offender: int | None = None) -> GameRecord:
    return cx_record(M=4, N=4, K=3, p1="L0", p2="L1", names=("L0", "L1"), moves=(0, 1, 0, 1, 0),
                      times_ms=(0.5, 0.25, 1.0, 0.125, 2.0), winner=winner, reason=reason,
                      detail="" if offender is None else "boom", seed=seed, offender=offender,
                      init_ms=(1.5, 2.5), started_at="2026-01-01T00:00:00.000Z",
                      finished_at="2026-01-01T00:00:01.000Z", version="0.1.0",
                      extra={"isolated": True})


def test_add_read_back_and_no_duplicates(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "games.sqlite") as s:
        assert s.add((record(1)).labelled(game_id="g1", round=1, player1="a", player2="b"))
        assert s.add((record(2, None, Reason.DRAW)).labelled(game_id="g2", round=2, player1="b", player2="a"))
        assert not s.add((record(99)).labelled(game_id="g1", round=1, player1="a", player2="b"))  # same id: ignored
        assert s.count() == 2 and s.done_ids() == {"g1", "g2"}
        games = list(s.games())
    assert [g.game_id for g in games] == ["g1", "g2"]
    assert games[0].record == record(1).labelled(game_id="g1", round=1, player1="a",
                                                player2="b")  # the full record survives
    assert (games[1].player1, games[1].player2, games[1].round) == ("b", "a", 2)
    db = sqlite3.connect(tmp_path / "games.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.IntegrityError):  # the schema itself forbids duplicates
        db.execute("INSERT INTO games(game_id, round, M, N, K, player1, player2, reason, seed, "
                   "started_at, finished_at, record) VALUES('g1', 1, 4, 4, 3, 'a', 'b', "
                   "'draw', 0, '', '', '{}')")


def test_each_add_is_committed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    s = ResultStore(path)
    s.add((record(1)).labelled(game_id="g1", round=1, player1="a", player2="b"))
    # another connection sees it while the first is still open (nothing left uncommitted)
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    other.close()
    s.close()


def test_fingerprint_binding(tmp_path: Path) -> None:
    fp = {"seed": 1, "players": [{"name": "a", "spec": "L0", "options": {}}], "timeout_s": 0.5}
    with ResultStore(tmp_path / "games.sqlite") as s:
        s.bind(fp, "t")
        s.bind(dict(fp), "t")  # same config: fine
        s.bind({**fp, "seed": 2}, "t")  # no games yet: the new config simply replaces it
        assert s.fingerprint() == {**fp, "seed": 2}
        s.add((record(1)).labelled(game_id="g1", round=1, player1="a", player2="b"))
        with pytest.raises(UsageError, match=r"changed: seed, timeout_s.*--fresh.*--results"):
            s.bind({**fp, "seed": 3, "timeout_s": 1.0}, "t")


def test_open_existing_only(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no results database"):
        ResultStore(tmp_path / "missing.sqlite", create=False)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE x(y)").connection.close()
    with pytest.raises(UsageError, match="not a cxarena results database"):
        ResultStore(other, create=False)
