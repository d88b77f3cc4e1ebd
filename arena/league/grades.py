"""The grades, whole: the final's standings with a stated tie-break, and one CSV row per roster
student.

**The final's ranking** (`rank_final`): points as the tournament counts them (a win 3, a draw 1,
a loss 0; a fault loses). Players level on points are ordered by, in turn:

1. **head to head**: the points each took in the games among the players still level;
2. **Sonneborn-Berger**: the sum, over each opponent, of the points taken from that opponent
   times that opponent's total points (a win over a strong player weighs more);
3. else they **share** the rank ("3=", the next rank skips accordingly).

Each row says what decided its place (`decided_by`). The tournament's own standings.csv (in
the final's results folder) orders level players by their Elo instead; the league's grades and
`/final/standings.csv` use this rule.

**The grades** (`grades_csv`): one row per roster student (every account that is not an admin),
with or without a version: how many versions they submitted and how many passed their check,
their entry (the final's, once it has started; else the one it would play: the version they
chose, else their latest passed, `arena.league.entries`), its score against each
reference bot and its rating with its interval (empty while it has no rating game; the frozen
leaderboard once the league is frozen), its faults in rating games, its final rank and points
(empty when it is not in the final), and whether the account is disabled.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from arena.league.db import League
from arena.league.entries import PASSED, Status
from arena.league.final import entries, final_players, final_results
from arena.league.standings import _points, leaderboard, reference_names
from arena.results.standings import compute_standings
from arena.results.store import DB_FILE, ResultStore

__all__ = ["FINAL_COLUMNS", "FinalRow", "TIE_BREAK", "final_standings", "final_standings_csv",
           "grades_csv", "rank_final"]

#: the tie-break in words (the admin page and docs/league.md state it)
TIE_BREAK = ("Final ranking: points (win 3, draw 1, loss 0); level players by head to head "
             "(points among themselves), then Sonneborn-Berger, else a shared rank (\"3=\").")


@dataclass(frozen=True)
class FinalRow:
    """One player's place in the final."""

    rank: int  # 1-based; players sharing a place have the same rank
    rank_text: str  # "3", or "3=" when shared
    player: str
    points: int
    head_to_head: int  # points among the players level with it on points
    sonneborn_berger: int
    decided_by: str  # "", "head to head", "Sonneborn-Berger" or "shared"
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0
    elo: float = 0.0


def rank_final(players: Sequence[str], cross: dict[str, dict[str, int]]) -> list[FinalRow]:
    """The ranking of `players` from `cross` (player -> opponent -> points the player took),
    with the tie-break of the module docstring."""
    points = {p: sum(cross.get(p, {}).get(o, 0) for o in players if o != p) for p in players}
    sb = {p: sum(cross.get(p, {}).get(o, 0) * points[o] for o in players if o != p)
          for p in players}
    rows: list[FinalRow] = []
    for level in sorted(set(points.values()), reverse=True):
        group = sorted(p for p in players if points[p] == level)
        h2h = {p: sum(cross.get(p, {}).get(o, 0) for o in group if o != p) for p in group}
        group.sort(key=lambda p: (-h2h[p], -sb[p], p))
        start = len(rows) + 1
        for p in group:
            same = [q for q in group if (h2h[q], sb[q]) == (h2h[p], sb[p])]
            first = start + min(group.index(q) for q in same)
            if len(group) == 1:
                decided = ""
            elif len(same) > 1:
                decided = "shared"
            elif any(h2h[q] == h2h[p] for q in group if q != p):
                decided = "Sonneborn-Berger"
            else:
                decided = "head to head"
            rows.append(FinalRow(first, f"{first}=" if len(same) > 1 else str(first), p,
                                 points[p], h2h[p], sb[p], decided))
    return rows


#: the columns of /final/standings.csv
FINAL_COLUMNS = ("rank", "player", "points", "head_to_head", "sonneborn_berger", "decided_by",
                 "games", "wins", "draws", "losses", "faults", "elo")


def final_standings(league: League) -> list[FinalRow] | None:
    """The final's ranking from its stored games (so far), None before it has started."""
    results = final_results(league)
    players = final_players(league)
    db = results / DB_FILE if results else None
    if db is None or not db.is_file() or not players:
        return None
    with ResultStore(db, create=False) as store:
        st = compute_standings(players, list(store.games()))
    by = {r.player: r for r in st.ranking}
    out = []
    for row in rank_final(players, st.cross):
        t = by[row.player]
        out.append(FinalRow(row.rank, row.rank_text, row.player, row.points, row.head_to_head,
                            row.sonneborn_berger, row.decided_by, t.games, t.wins, t.draws,
                            t.losses, t.timeouts + t.illegal + t.crashes, t.elo))
    return out


def final_standings_csv(league: League) -> str | None:
    """The final's ranking as CSV (`FINAL_COLUMNS`); None before the final has started."""
    rows = final_standings(league)
    if rows is None:
        return None
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(FINAL_COLUMNS)
    for r in rows:
        w.writerow([r.rank_text, r.player, r.points, r.head_to_head, r.sonneborn_berger,
                    r.decided_by, r.games, r.wins, r.draws, r.losses, r.faults,
                    f"{r.elo:.1f}"])
    return buf.getvalue()


def grades_csv(league: League) -> str:
    """One row per roster student (see the module docstring)."""
    refs = reference_names(league.config.reference_bots)
    rated = {r.user: r for r in leaderboard(league) if r.kind == "entry"}
    final = {r.player: r for r in (final_standings(league) or [])}
    entry = dict(entries(league))
    subs = league.submissions()
    was = dict(league.conn.execute("SELECT id, disabled_from FROM submissions "
                                   "WHERE status=?", (Status.DISABLED,)).fetchall())
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["user", "disabled", "submitted", "passed", "entry_version",
                "entry_submission_id"]
               + [f"vs_{n}_{what}" for n in refs.values() for what in ("points", "games")]
               + ["elo", "elo_low", "elo_high", "rated_games", "faults", "final_rank",
                  "final_points", "final_faults", "final_decided_by"])
    for user in league.users():
        if user.admin:
            continue
        mine = [s for s in subs if s.user == user.name]
        passed = [s for s in mine if s.status in PASSED
                  or (s.status is Status.DISABLED and was.get(s.id) in PASSED)]
        sid = entry.get(user.name)
        version = next((s.version for s in mine if s.id == sid), "") if sid else ""
        r = rated.get(user.name)
        scores = ([x for v in r.vs_reference for x in (_points(v.points), v.games)] if r
                  else ["", ""] * len(refs))
        f = final.get(user.name)
        w.writerow([user.name, "yes" if user.disabled else "no", len(mine), len(passed),
                    version, sid or "", *scores,
                    *([f"{r.elo:.1f}", f"{r.elo_low:.1f}", f"{r.elo_high:.1f}", r.games,
                       r.faults] if r else ["", "", "", 0, 0]),
                    *([f.rank_text, f.points, f.faults, f.decided_by] if f and not user.disabled
                      else ["", "", "", ""])])
    return buf.getvalue()
