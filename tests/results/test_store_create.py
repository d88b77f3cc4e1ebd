"""A results database appears whole: a reader that opens it while another process creates it
(the league's admin page while its final starts) finds its tables or no file, never an empty
database it would call "not a cxarena results database"."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.results import store as store_module
from arena.results.store import ResultStore
from arena.tournament.schedule import make_schedule
from tests.helpers import fake_record, tournament_config


_CONNECT = sqlite3.connect


def _seen_by_a_reader(path: Path) -> str:
    """What a reader that opens `path` now finds (the check `ResultStore` makes of a file)."""
    if not path.exists():
        return "nothing"
    con = _CONNECT(f"file:{path}?mode=ro", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    finally:
        con.close()
    return "whole" if {"meta", "games"} <= tables else f"without its tables: {sorted(tables)}"


class _Watched:
    """A connection that, before each statement, lets a reader look at the database being
    created (the moments a second process could open it)."""

    def __init__(self, con: sqlite3.Connection, path: Path, seen: list[str]) -> None:
        self._con, self._path, self._seen = con, path, seen

    def execute(self, *args: Any) -> Any:
        self._seen.append(_seen_by_a_reader(self._path))
        return self._con.execute(*args)

    def executescript(self, script: str) -> Any:
        self._seen.append(_seen_by_a_reader(self._path))
        return self._con.executescript(script)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def test_a_reader_never_finds_a_results_database_without_its_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "final" / "games.sqlite"
    path.parent.mkdir()
    seen: list[str] = []
    monkeypatch.setattr(store_module.sqlite3, "connect",
                        lambda *a, **k: _Watched(_CONNECT(*a, **k), path, seen))
    with ResultStore(path) as s:
        assert s.count() == 0
    assert seen and set(seen) <= {"nothing", "whole"}, seen
    assert sorted(p.name for p in path.parent.iterdir()) == ["games.sqlite"]


def test_a_database_created_meanwhile_is_kept(tmp_path: Path) -> None:
    """Two creators at once: the one that linked its file first wins, and its games stay."""
    path = tmp_path / "games.sqlite"
    with ResultStore(path) as first:
        job = make_schedule(tournament_config(["a", "b"]))[0]
        assert first.add(fake_record(job).labelled(game_id=job.game_id))
    store_module._create_whole(path)  # the second, who found no file a moment before
    with ResultStore(path) as s:
        assert s.count() == 1
    assert sorted(p.name for p in tmp_path.iterdir() if "sqlite" in p.name) == [
        "games.sqlite"]
