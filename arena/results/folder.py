"""A results folder (results/NAME/) as a whole: its standings, recomputed from the stored games,
and the files written from them. The tournament writes here; the report and `cxarena report`
read here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from arena.records import StoredGame
from arena.results import (
    ADAPTIVE_JSON,
    LOG_FILE,
    LOGS_DIR,
    REPORT_HTML,
    STANDINGS_CSV,
    STANDINGS_MD,
)
from arena.results.standings import Standings, TieBreak, compute_standings
from arena.results.store import DB_FILE, ResultStore

__all__ = ["code_section", "read_results", "read_standings", "remove_results",
           "write_standings"]


def read_results(store: ResultStore, default: TieBreak = TieBreak.ELO
                 ) -> tuple[Standings, dict[str, Any], list[StoredGame]]:
    """Standings of the games in `store` between the players of its config (all of them when
    it has no config summary), the stored config summary (the one reader of it), and those
    games. The ranking's tie-break is the config's (its summary's ``tie_break``: a league's
    final says head to head, an adaptive final "adaptive", whose order is the
    ``adaptive.json`` beside the store), else `default` (folders written before it was kept)."""
    raw = store.get_meta("config")
    meta: dict[str, Any] = json.loads(raw) if raw else {}
    players = [p["name"] for p in meta.get("players", []) if isinstance(p, dict) and "name" in p]
    boards = [(int(b[0]), int(b[1]), int(b[2])) for b in meta.get("boards", [])]
    games = list(store.games())
    if not players:  # a database without a config summary: take names from the games
        players = list(dict.fromkeys(n for g in games for n in (g.player1, g.player2)))
    else:  # the config's players: a player removed from it keeps its games out of the table
        field = set(players)
        games = [g for g in games if g.player1 in field and g.player2 in field]
    tie_break = TieBreak(meta.get("tie_break", default.value))
    decided: list[list[str]] = []
    if tie_break is TieBreak.ADAPTIVE:
        decided = _decided(store.path.parent / ADAPTIVE_JSON)
    return compute_standings(players, games, boards, tie_break, decided), meta, games


def _decided(path: Path) -> list[list[str]]:
    """An adaptive final's places (`arena.league.final_adaptive`'s ``adaptive.json``: its order
    and the 1-based places of its ties) as groups of entries sharing a place; [] before it
    has written one (the standings then go by points)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        order = [str(e) for e in data["order"]]
        ties = [(int(a), int(b)) for a, b in data.get("ties", [])]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    groups: list[list[str]] = []
    i = 0
    while i < len(order):
        tie = next(((a, b) for a, b in ties if a == i + 1), None)
        end = tie[1] if tie is not None else i + 1
        groups.append(order[i:end])
        i = end
    return groups


def read_standings(store: ResultStore) -> tuple[Standings, dict[str, Any]]:
    """Standings of every game in `store`, and the stored config summary."""
    standings, meta, _ = read_results(store)
    return standings, meta


def code_section(store: ResultStore) -> str:
    """A markdown section naming the code every player's stored games were played with."""
    rows = []
    for name, codes in sorted(store.stored_code().items()):
        shown = ", ".join(sorted(c or "unknown (older cxarena)" for c in codes))
        rows.append(f"| {name} | {shown} |")
    if not rows:
        return ""
    return ("\n## Code\n\nThe standings above were computed from games played with this code "
            "(a hash of each bot's files and the cxarena version; see `cxarena tournament "
            "--replay-changed`).\n\n| player | code |\n|---|---|\n" + "\n".join(rows) + "\n")


def write_standings(results_dir: Path, standings: Standings, title: str,
                    expected: int | None, code: str = "") -> str:
    """Write standings.md and standings.csv (atomically); the markdown."""
    md = standings.to_markdown(title=title, expected_games=expected) + code
    _write_atomic(results_dir / STANDINGS_MD, md)
    _write_atomic(results_dir / STANDINGS_CSV, standings.to_csv())
    return md


def remove_results(results_dir: Path) -> None:
    """Delete what a previous run wrote into `results_dir` (only cxarena's own files)."""
    for name in (DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", STANDINGS_MD, STANDINGS_CSV,
                 LOG_FILE, REPORT_HTML):
        (results_dir / name).unlink(missing_ok=True)
    shutil.rmtree(results_dir / LOGS_DIR, ignore_errors=True)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
