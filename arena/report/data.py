"""A results directory read once for the report: `load_report(path) -> ReportData`.

Reads `games.sqlite` (read-only use of `ResultStore`) and recomputes the standings from the
stored games (`arena.results.standings.compute_standings`), like `cxarena report` does.
Fields that other parts of cxarena may add to records (opening, pair id, code fingerprints,
isolation ...) are read defensively with `record_field`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.records import StoredGame
from arena.results.folder import read_results
from arena.results.standings import Standings
from arena.results.store import DB_FILE, ResultStore

__all__ = ["ReportData", "find_db", "load_report"]


@dataclass(frozen=True)
class ReportData:
    """Everything the report shows, read once from a results directory."""

    name: str
    results_dir: Path
    meta: dict[str, Any]  # the stored config summary (players, boards, timeout_s, games ...)
    fingerprint: dict[str, Any]  # the config fingerprint (grace_s, memory_limit_mb ...)
    games: tuple[StoredGame, ...]
    standings: Standings

    @property
    def timeout_s(self) -> float | None:
        """The time limit of the games (each record carries its own; a run has one)."""
        return next((g.record.timeout_s for g in self.games if g.record.timeout_s), None)

    @property
    def grace_s(self) -> float | None:
        return next((g.record.grace_s for g in self.games if g.record.grace_s is not None),
                    None)

    @property
    def scheduled(self) -> int | None:
        g = self.meta.get("games")
        return int(g) if isinstance(g, int) else None


def find_db(path: str | Path) -> Path:
    """The results database of a results directory (or the database file itself)."""
    where = Path(path)
    db = where / DB_FILE if where.is_dir() else where
    if not db.is_file():
        raise UsageError(f"{path}: no tournament results here (no {DB_FILE}); "
                         f"run `cxarena tournament CONFIG` first")
    return db


def load_report(path: str | Path) -> ReportData:
    """Read a results directory (or its games.sqlite). Raises UsageError if there is none."""
    db = find_db(path)
    with ResultStore(db, create=False) as store:
        standings, meta, games = read_results(store)
        name = meta.get("name") or store.get_meta("name") or db.parent.name
        fingerprint = store.fingerprint() or {}
    return ReportData(name=str(name), results_dir=db.parent, meta=meta,
                      fingerprint=fingerprint, games=tuple(games), standings=standings)
