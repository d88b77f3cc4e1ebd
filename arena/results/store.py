"""Durable tournament results: one SQLite database per results directory.

`results/<name>/games.sqlite` (stdlib sqlite3, WAL journal) holds
- ``meta``: the config fingerprint (players with specs and options, boards, time limit, rounds,
  seed ...), the config's name and the schema version;
- ``games``: one row per finished game, keyed by its unique game id, with the full
  `GameRecord` as JSON plus the columns the standings need.

Each game is committed the moment it is added, so a run killed at any point (even SIGKILL)
loses at most the games still being played; a rerun plays only the ids that are missing, and
the UNIQUE game id makes storing a game twice impossible.

`GameStore` is the record-level API this store shares with the league's rating games
(`arena.league.db.LeagueGames`): whatever writes or reads whole games goes through it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from arena.errors import UsageError
from arena.games.connectx.record import board_and_columns
from arena.records import GameRecord, StoredGame

__all__ = ["DB_FILE", "SCHEMA_VERSION", "GameStore", "ResultStore", "count_games"]

DB_FILE = "games.sqlite"
#: 2: the label columns (pair_id, tournament, code1, code2, timeout_s, grace_s) come from the
#: record's fields; a database of schema 1 gains them (filled from its records) when opened
SCHEMA_VERSION = 2
#: keys of a stored fingerprint that no longer make games incomparable ("players": a growing
#: round robin; a game's id names its players)
RETIRED_KEYS = ("players",)

#: the columns of `games`, each a field of `GameRecord` (plus stored_at and the record itself)
_COLUMNS = (("game_id", "TEXT NOT NULL UNIQUE"), ("round", "INTEGER NOT NULL"),
            ("M", "INTEGER NOT NULL"), ("N", "INTEGER NOT NULL"), ("K", "INTEGER NOT NULL"),
            ("player1", "TEXT NOT NULL"), ("player2", "TEXT NOT NULL"), ("winner", "INTEGER"),
            ("reason", "TEXT NOT NULL"), ("offender", "INTEGER"), ("seed", "INTEGER NOT NULL"),
            ("started_at", "TEXT NOT NULL"), ("finished_at", "TEXT NOT NULL"),
            ("pair_id", "TEXT"), ("tournament", "TEXT"), ("code1", "TEXT"), ("code2", "TEXT"),
            ("timeout_s", "REAL"), ("grace_s", "REAL"))
#: columns schema 1 did not have, with where its records kept them
_ADDED_IN_2 = {"pair_id": "$.pair_id", "tournament": "$.extra.tournament",
               "code1": "$.extra.code1", "code2": "$.extra.code2", "timeout_s": None,
               "grace_s": None}

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS games ("
    + ", ".join(f"{name} {kind}" for name, kind in _COLUMNS)
    + ", stored_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), "
      "record TEXT NOT NULL);")


def _column(record: GameRecord, name: str) -> Any:
    """A `games` column of `record`: its field, the reason's value, and as M, N, K (labels
    only: the record holds the game) a Connect-X record's board, 0 for another game."""
    if name in ("M", "N", "K"):
        cx = board_and_columns(record)
        return 0 if cx is None else cx["MNK".index(name)]
    return record.reason.value if name == "reason" else getattr(record, name)


class GameStore(Protocol):
    """The one store API of finished games: a tournament's results database (`ResultStore`)
    and a league's rating games (`arena.league.db.LeagueGames`) both offer it. A stored game's
    id is the store's: the record's `game_id` in a results database, the row's id (as text)
    in a league."""

    def add(self, record: GameRecord) -> bool:
        """Store one finished game; False when that game was already stored."""
        ...

    def game(self, game_id: str) -> StoredGame | None:
        """The stored game `game_id`, or None."""
        ...

    def games(self) -> Iterator[StoredGame]:
        """Every stored game, in the order they were stored."""
        ...

    def count(self) -> int:
        """How many games are stored."""
        ...


class ResultStore:
    """The results database of one tournament (a context manager). Raises UsageError (one
    line) for a file that is not a readable cxarena results database."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise UsageError(f"{self.path}: no results database here")
        try:
            if create and not self.path.exists():
                _create_whole(self.path)
            self._db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        except (sqlite3.Error, OSError) as e:
            raise UsageError(f"{self.path}: cannot open the results database: {e}") from None
        try:
            self._open(create)
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise UsageError(f"{self.path}: not a readable cxarena results database ({e}); "
                             f"restore it from a backup or start over with --fresh") from None
        except UsageError:
            self._db.close()
            raise

    def _open(self, create: bool) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable across process crashes
        if create:
            self._db.executescript(_SCHEMA)
        found = {r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "games"} <= found:
            raise UsageError(f"{self.path}: not a cxarena results database")
        schema = self.get_meta("schema")
        if schema is not None and schema.isdigit() and int(schema) > SCHEMA_VERSION:
            raise UsageError(f"{self.path}: written by a newer cxarena (results schema "
                             f"{schema}, this one reads up to {SCHEMA_VERSION}); upgrade cxarena")
        self._upgrade()

    def _upgrade(self) -> None:
        """Give a database of schema 1 the columns of schema 2, filled from its records."""
        have = {r[1] for r in self._db.execute("PRAGMA table_info(games)")}
        missing = [(n, k) for n, k in _COLUMNS if n not in have]
        if not missing:
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for name, kind in missing:
                self._db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
                source = _ADDED_IN_2.get(name)
                if source is not None:
                    self._db.execute(f"UPDATE games SET {name}=json_extract(record, ?)",
                                     (source,))
            self._fill_limits()
            self.set_meta("schema", str(SCHEMA_VERSION))
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def _fill_limits(self) -> None:
        """Schema 1 records did not carry their limits: take them from the stored config."""
        fp = self.fingerprint() or {}
        self._db.execute("UPDATE games SET timeout_s=?, grace_s=?",
                         (fp.get("timeout_s"), fp.get("grace_s")))

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

    def bind(self, fingerprint: dict[str, Any], name: str,
             retired: tuple[str, ...] = RETIRED_KEYS) -> None:
        """Tie this store to a config, or check it is the one the stored games came from.

        Raises UsageError naming the differing keys if stored games came from a different
        config (their results would not be comparable). Keys of the stored fingerprint in
        `retired` that `fingerprint` no longer has (the player list of older stores) do not
        count, and are dropped from it.
        """
        stored = self.fingerprint()
        if stored is not None and any(k in stored and k not in fingerprint for k in retired):
            stored = {k: v for k, v in stored.items() if k not in retired or k in fingerprint}
            self.set_meta("fingerprint", json.dumps(stored, sort_keys=True))
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
    def add(self, record: GameRecord) -> bool:
        """Store one finished game (committed at once), keyed by `record.game_id`. False if
        the id was already stored."""
        if not record.game_id:
            raise ValueError("a stored game needs its game_id label")
        names = [n for n, _ in _COLUMNS]
        values = [_column(record, n) for n in names]
        cur = self._db.execute(
            f"INSERT OR IGNORE INTO games({', '.join(names)}, record) "
            f"VALUES({', '.join('?' * (len(names) + 1))})", (*values, record.to_json()))
        return cur.rowcount == 1

    def stored_code(self) -> dict[str, set[str | None]]:
        """{player name: the code fingerprints its stored games were played with} (None for a
        game stored without one, by a cxarena older than fingerprints)."""
        out: dict[str, set[str | None]] = {}
        rows = self._db.execute("SELECT player1, player2, code1, code2 FROM games")
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

    def delete_game(self, game_id: str) -> bool:
        """Delete the stored game `game_id` (a game to play again); False if none was."""
        return self._db.execute("DELETE FROM games WHERE game_id=?", (game_id,)).rowcount == 1

    def done_ids(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT game_id FROM games")}

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def game(self, game_id: str) -> StoredGame | None:
        """The stored game `game_id`, or None."""
        row = self._db.execute(f"SELECT {_READ} FROM games WHERE game_id=?",
                               (game_id,)).fetchone()
        return None if row is None else _stored(row)

    def games(self) -> Iterator[StoredGame]:
        """Every stored game, in the order they were stored."""
        for row in self._db.execute(f"SELECT {_READ} FROM games ORDER BY rowid"):
            yield _stored(row)


def _is_a_game_store(store: ResultStore) -> GameStore:
    """(For mypy: a results database is a `GameStore`.)"""
    return store


def _create_whole(path: Path) -> None:
    """Create an empty results database at `path` with its tables, all at once: it is built
    beside it and linked into place, so a reader (the league's admin page, while its final
    starts) never finds the file without its tables. A database another process put there
    first is kept."""
    part = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.new")
    part.unlink(missing_ok=True)
    try:
        con = sqlite3.connect(str(part), isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)
        finally:
            con.close()
        try:
            os.link(part, path)
        except FileExistsError:
            pass
    finally:
        part.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{part}{suffix}").unlink(missing_ok=True)


_READ = "game_id, round, player1, player2, timeout_s, grace_s, record"


def _stored(row: tuple[Any, ...]) -> StoredGame:
    """A row as a StoredGame; the record gets the row's labels (a record of schema 1 kept some
    in `extra`, and its limits only in the stored config)."""
    gid, rnd, p1, p2, timeout_s, grace_s, raw = row
    rec = GameRecord.from_dict(json.loads(raw))
    if rec.timeout_s is None or not rec.game_id:
        rec = rec.labelled(game_id=str(gid), round=int(rnd), player1=str(p1), player2=str(p2),
                           timeout_s=rec.timeout_s if timeout_s is None else timeout_s,
                           grace_s=rec.grace_s if grace_s is None else grace_s)
    return StoredGame(rec.game_id, rec.round, rec.player1, rec.player2, rec)


def count_games(path: Path) -> int:
    """How many games the results database at `path` holds, read without writing (a
    `ResultStore` sets the journal mode and may upgrade the schema: not for a database another
    process is writing, e.g. a league's final); 0 when it cannot be read."""
    if not path.is_file():
        return 0
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0
