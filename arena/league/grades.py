"""The grades, whole: the final's standings with a stated tie-break, and one CSV row per roster
student.

**The final's ranking** (`arena.results.standings.TieBreak.HEAD_TO_HEAD`, `rank_level`):
points as the tournament counts them (a win 3, a draw 1, a loss 0; a fault loses). Players
level on points are ordered by, in turn:

1. **head to head**: the points each took in the games among the players still level;
2. **Sonneborn-Berger**: the sum, over each opponent, of the points taken from that opponent
   times that opponent's total points (a win over a strong player weighs more);
3. else they **share** the rank ("3=", the next rank skips accordingly).

Each row says what decided its place (`decided_by`). The final's results folder (its
standings.csv and report), `/final/standings.csv` and the grades all rank by this rule: one
computation, `arena.results.folder.read_results`.

**The grades** (`grades_csv`): one row per roster student (every account that is not an admin),
with or without a version: how many versions they submitted and how many passed their check,
their entry (the final's, once it has started; else the one it would play: the version they
chose, else their latest passed, `arena.league.entries`), that entry's score against each
reference bot and its rating with its interval (empty while it has no rating game; the frozen
leaderboard once the league is frozen), its faults in rating games, its final rank and points
(empty when it is not in the final), and whether the account is disabled.
"""

from __future__ import annotations

import csv
import io

from arena.league.db import League
from arena.league.entries import PASSED, Status
from arena.league.final import entries, final_players, final_results
from arena.league.standings import _points, entry_ratings, reference_names
from arena.results.folder import read_results
from arena.results.standings import HEAD_TO_HEAD_RULE, PlayerRow, TieBreak
from arena.results.store import DB_FILE, ResultStore

__all__ = ["FINAL_COLUMNS", "TIE_BREAK", "final_standings", "final_standings_csv", "grades_csv"]

#: the tie-break in words (the admin page and docs/league.md state it)
TIE_BREAK = "Final ranking: " + HEAD_TO_HEAD_RULE.removeprefix("Ranked by ")


#: the columns of /final/standings.csv
FINAL_COLUMNS = ("rank", "player", "points", "head_to_head", "sonneborn_berger", "decided_by",
                 "games", "wins", "draws", "losses", "faults", "elo")


def final_standings(league: League) -> list[PlayerRow] | None:
    """The final's ranking from its stored games (so far), None before it has started: the
    standings of its results folder (`arena.results.folder.read_results`), with the final's
    tie-break, so its report, /final/standings.csv and the grades rank it one way."""
    results = final_results(league)
    db = results / DB_FILE if results else None
    if db is None or not db.is_file() or not final_players(league):
        return None
    with ResultStore(db, create=False) as store:
        # the folder's own rule; a final run before the rule was kept: the league's
        standings, _, _ = read_results(store, default=TieBreak.HEAD_TO_HEAD)
    return list(standings.ranking)


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
                    r.decided_by, r.games, r.wins, r.draws, r.losses,
                    r.timeouts + r.illegal + r.crashes, f"{r.elo:.1f}"])
    return buf.getvalue()


def grades_csv(league: League) -> str:
    """One row per roster student (see the module docstring)."""
    refs = reference_names(league.config.reference_bots)
    final = {r.player: r for r in (final_standings(league) or [])}
    entry = dict(entries(league))
    # the rating of each student's entry (the version the final plays), not of their latest
    rated = {r.user: r for r in entry_ratings(league, entry) if r.kind == "entry"}
    subs = league.submissions()
    was = league.disabled_from()
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
                    *([f.rank_text, f.points, f.timeouts + f.illegal + f.crashes, f.decided_by]
                      if f and not user.disabled else ["", "", "", ""])])
    return buf.getvalue()
