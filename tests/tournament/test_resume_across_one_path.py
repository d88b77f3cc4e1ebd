"""A results folder made before the one game path (issue 31) resumes after it: the Connect-X game
ids, seeds and config fingerprint did not move, so its games are kept and only the missing ones
are played, under the ids and seeds they had.

tests/data/before_one_path/ holds the config and the games.sqlite that `cxarena tournament` of
commit eadae3d made (L0 against L1 on two boards with 2-ply openings, no sandbox)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from arena.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "before_one_path"


def _rows(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(db) as c:
        return {r[0]: r for r in c.execute(
            "SELECT game_id, round, M, N, K, player1, player2, seed, pair_id, code1, code2, "
            "record FROM games")}


def test_a_folder_of_the_old_path_resumes_with_nothing_played_again(tmp_path: Path) -> None:
    config = tmp_path / "resume.yaml"
    shutil.copy(DATA / "resume.yaml", config)
    results = tmp_path / "r"
    results.mkdir()
    db = results / "games.sqlite"
    shutil.copy(DATA / "games.sqlite", db)
    before = _rows(db)
    assert len(before) == 4
    # two games lost (as if the run had been killed): only they are played again
    gone = sorted(before)[:2]
    with sqlite3.connect(db) as c:
        c.executemany("DELETE FROM games WHERE game_id=?", [(g,) for g in gone])
    assert main(["tournament", str(config), "--results", str(results), "--quiet"]) == 0
    after = _rows(db)
    assert sorted(after) == sorted(before)  # the same game ids
    for gid, row in before.items():
        if gid in gone:
            assert after[gid][:11] == row[:11]  # replayed under the same seed and codes
        else:
            assert after[gid] == row  # kept byte for byte
