"""Durable tournament results: one SQLite database per results directory.

`results/<name>/games.sqlite` (stdlib sqlite3, WAL journal) holds
- ``meta``: the config fingerprint (players with specs and options, boards, time limit, rounds,
  seed ...), the config's name and the schema version;
- ``games``: one row per finished game, keyed by its unique game id, with the full
  `GameRecord` as JSON plus the columns the standings need.

Each game is committed the moment it is added, so a run killed at any point (even SIGKILL)
loses at most the games still being played; a rerun plays only the ids that are missing, and
the UNIQUE game id makes storing a game twice impossible.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.records import GameRecord, StoredGame

__all__ = ["DB_FILE", "SCHEMA_VERSION", "ResultStore"]

DB_FILE = "games.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id     TEXT NOT NULL UNIQUE,
    round       INTEGER NOT NULL,
    M           INTEGER NOT NULL,
    N           INTEGER NOT NULL,
    K           INTEGER NOT NULL,
    player1     TEXT NOT NULL,
    player2     TEXT NOT NULL,
    winner      INTEGER,
    reason      TEXT NOT NULL,
    offender    INTEGER,
    seed        INTEGER NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    stored_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    record      TEXT NOT NULL
);
"""


class ResultStore:
    """The results database of one tournament (a context manager)."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise UsageError(f"{self.path}: no results database here")
        self._db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable across process crashes
        if create:
            self._db.executescript(_SCHEMA)
        else:
            found = {r[0] for r in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"meta", "games"} <= found:
                self._db.close()
                raise UsageError(f"{self.path}: not a cxarena results database")

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    # --- meta -----------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT INTO meta(key, value) VALUES(?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    def fingerprint(self) -> dict[str, Any] | None:
        raw = self.get_meta("fingerprint")
        return None if raw is None else dict(json.loads(raw))

    def bind(self, fingerprint: dict[str, Any], name: str) -> None:
        """Tie this store to a config, or check it is the one the stored games came from.

        Raises UsageError naming the differing keys if stored games came from a different
        config (their results would not be comparable).
        """
        stored = self.fingerprint()
        if stored is None or self.count() == 0:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self.set_meta("fingerprint", json.dumps(fingerprint, sort_keys=True))
                self.set_meta("name", name)
                self.set_meta("schema", str(SCHEMA_VERSION))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return
        if stored != json.loads(json.dumps(fingerprint)):
            keys = sorted(k for k in set(stored) | set(fingerprint)
                          if stored.get(k) != json.loads(json.dumps(fingerprint.get(k))))
            raise UsageError(
                f"{self.path.parent}: holds {self.count()} games of a different configuration "
                f"(changed: {', '.join(keys)}); its games are not comparable. Start fresh with "
                f"--fresh (deletes them) or write elsewhere with --results DIR")

    # --- games ----------------------------------------------------------------------------
    def add(self, game_id: str, round_: int, player1: str, player2: str,
            record: GameRecord) -> bool:
        """Store one finished game (committed at once). False if the id was already stored."""
        cur = self._db.execute(
            "INSERT OR IGNORE INTO games(game_id, round, M, N, K, player1, player2, winner, "
            "reason, offender, seed, started_at, finished_at, record) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game_id, round_, record.M, record.N, record.K, player1, player2, record.winner,
             record.reason.value, record.offender, record.seed, record.started_at,
             record.finished_at, record.to_json()))
        return cur.rowcount == 1

    def stored_code(self) -> dict[str, set[str | None]]:
        """{player name: the code fingerprints its stored games were played with} (None for a
        game stored without one, by a cxarena older than fingerprints)."""
        out: dict[str, set[str | None]] = {}
        rows = self._db.execute(
            "SELECT player1, player2, json_extract(record, '$.extra.code1'), "
            "json_extract(record, '$.extra.code2') FROM games")
        for p1, p2, c1, c2 in rows:
            out.setdefault(str(p1), set()).add(None if c1 is None else str(c1))
            out.setdefault(str(p2), set()).add(None if c2 is None else str(c2))
        return out

    def delete_games_of(self, players: set[str]) -> int:
        """Delete every stored game that `players` took part in (one transaction); the count."""
        if not players:
            return 0
        marks = ", ".join("?" * len(players))
        names = sorted(players)
        cur = self._db.execute(f"DELETE FROM games WHERE player1 IN ({marks}) "
                               f"OR player2 IN ({marks})", (*names, *names))
        return int(cur.rowcount)

    def done_ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT game_id FROM games")}

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def game(self, game_id: str) -> StoredGame | None:
        """The stored game `game_id`, or None."""
        row = self._db.execute("SELECT game_id, round, player1, player2, record FROM games "
                               "WHERE game_id=?", (game_id,)).fetchone()
        if row is None:
            return None
        gid, rnd, p1, p2, rec = row
        return StoredGame(str(gid), int(rnd), str(p1), str(p2),
                          GameRecord.from_dict(json.loads(rec)))

    def games(self) -> Iterator[StoredGame]:
        """Every stored game, in the order they were stored."""
        rows = self._db.execute(
            "SELECT game_id, round, player1, player2, record FROM games ORDER BY rowid")
        for gid, rnd, p1, p2, rec in rows:
            yield StoredGame(str(gid), int(rnd), str(p1), str(p2),
                             GameRecord.from_dict(json.loads(rec)))
