"""The live leaderboard, recomputed from the stored games with the existing Elo fit.

Games live in the `games` table (one row per finished game: the two sides, the score of side A
-- a fault already scored as a loss of its author -- and who faulted), each with its full record
(moves, times, the faulting side's stderr tail) in `game_records`, for the replay viewer. Each
active entry is the latest accepted version of a user; reference bots are rated alongside but
not ranked.
"""

from __future__ import annotations

import csv
import io
import json
import time
from dataclasses import dataclass

from arena.league.db import League
from arena.records import GameRecord
from arena.results.elo import fit_ratings

__all__ = ["GameSummary", "StandingRow", "game_record", "games_of",
           "insert_game", "record_game", "standings"]

@dataclass(frozen=True)
class StandingRow:
    rank: int
    user: str
    submission_id: int
    version: int
    elo: float
    elo_low: float
    elo_high: float
    games: int
    faults: int
    latest_version_at: float


def record_game(league: League, side_a: str, side_b: str, board: str, score_a: float,
                reason: str = "", faulted: str = "", record: GameRecord | None = None) -> int:
    """Store one finished game (in its own transaction); a side is 'sub:<id>' or a reference
    bot's SPEC."""
    with league.conn:
        return insert_game(league, side_a, side_b, board, score_a, reason, faulted, record)


def insert_game(league: League, side_a: str, side_b: str, board: str, score_a: float,
                reason: str = "", faulted: str = "", record: GameRecord | None = None) -> int:
    """Insert one finished game inside the caller's transaction."""
    cur = league.conn.execute(
        "INSERT INTO games (side_a, side_b, board, score_a, reason, faulted, finished_at)"
        " VALUES (?,?,?,?,?,?,?)",
        (side_a, side_b, board, score_a, reason, faulted, time.time()))
    game_id = int(cur.lastrowid or 0)
    if record is not None:
        league.conn.execute("INSERT INTO game_records VALUES (?, ?)",
                            (game_id, record.to_json()))
    return game_id


def game_record(league: League, game_id: int) -> GameRecord | None:
    """The full record of a stored game (None when unknown). Leagues whose games were stored
    by the first web app's stand-in worker kept them in DIR/records/<id>.json."""
    row = league.conn.execute("SELECT record FROM game_records WHERE game_id=?",
                              (int(game_id),)).fetchone()
    if row is not None:
        return GameRecord.from_dict(json.loads(row[0]))
    try:
        text = (league.dir / "records" / f"{int(game_id)}.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return GameRecord.from_dict(json.loads(text))


def standings(league: League) -> list[StandingRow]:
    """One row per user whose latest accepted version has played, best Elo first."""
    latest: dict[str, tuple[int, int, float]] = {}
    for sub in league.submissions():
        if sub.status in ("rating", "active"):
            latest[sub.user] = (sub.id, sub.version, sub.created_at)
    entries = {f"sub:{sid}": user for user, (sid, _, _) in latest.items()}
    rows = league.conn.execute("SELECT side_a, side_b, score_a, faulted FROM games").fetchall()
    games: list[tuple[str, str, float]] = []
    count: dict[str, int] = {}
    faults: dict[str, int] = {}
    players: set[str] = set()
    for a, b, s, faulted in rows:
        if (a.startswith("sub:") and a not in entries) or (b.startswith("sub:")
                                                           and b not in entries):
            continue  # a superseded or disabled version's games do not rate the current one
        games.append((a, b, float(s)))
        players.update((a, b))
        for side in (a, b):
            count[side] = count.get(side, 0) + 1
        if faulted:
            faults[faulted] = faults.get(faulted, 0) + 1
    ratings = fit_ratings(sorted(players), games).as_dict()
    ranked = sorted((e for e in entries if e in ratings), key=lambda e: -ratings[e][0])
    out = []
    for rank, entry in enumerate(ranked, 1):
        user = entries[entry]
        sid, version, created = latest[user]
        elo, err = ratings[entry]
        out.append(StandingRow(rank, user, sid, version, elo, elo - err, elo + err,
                               count.get(entry, 0), faults.get(entry, 0), created))
    return out


@dataclass(frozen=True)
class GameSummary:
    game_id: int
    opponent: str
    board: str
    result: str  # "win", "draw" or "loss", for the submission asked about
    reason: str
    finished_at: float


def games_of(league: League, submission_id: int) -> list[GameSummary]:
    """The stored games of one version, newest first, from its own side."""
    me = f"sub:{submission_id}"
    rows = league.conn.execute(
        "SELECT id, side_a, side_b, board, score_a, reason, finished_at FROM games"
        " WHERE side_a=? OR side_b=? ORDER BY id DESC", (me, me)).fetchall()
    out = []
    for gid, a, b, board, score_a, reason, finished in rows:
        mine = score_a if a == me else 1.0 - score_a
        result = "win" if mine == 1.0 else "loss" if mine == 0.0 else "draw"
        out.append(GameSummary(gid, b if a == me else a, board, result, reason, finished))
    return out


def standings_csv(league: League) -> str:
    """The leaderboard as CSV (one row per ranked entry)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["rank", "user", "submission_id", "version", "elo", "elo_low",
                     "elo_high", "games", "faults", "latest_version_at"])
    for r in standings(league):
        writer.writerow([r.rank, r.user, r.submission_id, r.version, f"{r.elo:.1f}",
                         f"{r.elo_low:.1f}", f"{r.elo_high:.1f}", r.games, r.faults,
                         time.strftime("%Y-%m-%d %H:%M:%S",
                                       time.gmtime(r.latest_version_at))])
    return buf.getvalue()
