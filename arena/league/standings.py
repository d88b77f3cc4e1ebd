"""The live leaderboard, recomputed from the stored games with the existing Elo fit.

Games live in the `games` table (one row per finished game: the two sides, the score of side A
-- a fault already scored as a loss of its author -- and who faulted), each with its full record
(moves, times, the faulting side's stderr tail) in `game_records`, for the replay viewer. Each
active entry is the latest accepted version of a user; the reference bots of the league's
config are rated alongside and shown as rows of the leaderboard, but not ranked.

The Elo scale is anchored (Ordo's -A): the config's `anchor` reference bot (by default the last
one, players.L1) is fixed at `anchor_elo` (1000), so a rating does not move merely because
another student joined. Until the anchor has played a game, the ratings' mean is `anchor_elo`.
Each entry's row also carries its score against each reference bot (points: a win 1, a draw
1/2, over the games its current version played against that bot).
"""

from __future__ import annotations

import csv
import io
import json
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path, PurePath
from typing import Any

from arena.league.db import League, LeagueGames
from arena.league.entries import (
    CURRENT,
    PASSED,
    EntryKey,
    is_submission,
    submission_key,
    submission_of,
)
from arena.records import GameRecord
from arena.results.elo import fit_ratings

__all__ = ["LEADERBOARD_COLUMNS", "GameSummary", "ReferenceScore", "StandingRow",
           "cached_standings", "forget_snapshot", "game_log", "game_record", "game_sides",
           "games_of", "leaderboard", "leaderboard_cells",
           "record_game", "reference_name", "reference_names", "side_name", "standings",
           "standings_csv"]


@dataclass(frozen=True)
class ReferenceScore:
    """An entry's score against one reference bot, over the games its current version played
    against it: `points` (a win 1, a draw 1/2) out of `games`; str() gives "7.5/8"."""

    bot: str  # the reference bot's short name (players.L1 -> L1)
    points: float
    games: int

    def __str__(self) -> str:
        return f"{_points(self.points)}/{self.games}"


@dataclass(frozen=True)
class StandingRow:
    """One row of the leaderboard: an entry (a user's current version, ranked from 1) or a
    reference bot (`kind` "reference", not ranked: `rank` 0, `user` its short name, `spec` its
    SPEC, `anchor` when its rating is the fixed point of the scale)."""

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
    kind: str = "entry"
    spec: str = ""
    anchor: bool = False
    #: an entry's score against each reference bot, in the config's order (empty for a bot)
    vs_reference: tuple[ReferenceScore, ...] = ()


def _points(points: float) -> str:
    """8.0 -> "8", 7.5 -> "7.5" (points are whole or half)."""
    return str(int(points)) if points == int(points) else f"{points:.1f}"


def reference_name(spec: str) -> str:
    """A reference bot's short name: the last part of its class, module or file name
    (players.L1 -> L1, java:bots:connectx.L1.L1 -> L1, bots/strong.py -> strong)."""
    text = spec.strip()
    if text.startswith("exec:"):
        return text
    for prefix in ("java:", "kaggle:"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    last = text.rsplit(":", 1)[-1]
    if last.endswith(".py") or "/" in last or "\\" in last:
        return PurePath(last).stem or text
    return last.rsplit(".", 1)[-1] or text


def reference_names(specs: tuple[str, ...]) -> dict[str, str]:
    """SPEC -> short name; the whole SPEC where two reference bots share a short name."""
    short = [reference_name(s) for s in specs]
    return {s: n if short.count(n) == 1 else s for s, n in zip(specs, short, strict=True)}


def side_name(league: League, side: str) -> str:
    """A game's side as every page and table names it: "alice v2" for a submitted version, a
    reference bot by the short name the leaderboard gives it (players.L1 -> L1)."""
    sid = submission_of(side)
    if sid is not None:
        sub = league.submission(sid)
        return f"{sub.user} v{sub.version}" if sub else side
    return reference_names(league.config.reference_bots).get(side) or reference_name(side)


def record_game(league: League, side_a: str, side_b: str, board: str, score_a: float,
                reason: str = "", faulted: str = "", record: GameRecord | None = None) -> int:
    """Store a game's row as given (in its own transaction), its record when given; a side is
    an `EntryKey`: a submitted version's or a reference bot's SPEC. A league set up from
    scores (tests, benchmarks); the rating games are stored from their records alone
    (`LeagueGames.add`)."""
    with league.conn:
        return league.add_game(side_a, side_b, board, score_a, reason, faulted, record)


def game_record(league: League, game_id: int) -> GameRecord | None:
    """The full record of a stored game (None when unknown). Leagues whose games were stored
    by the first web app's stand-in worker kept them in DIR/records/<id>.json."""
    stored = LeagueGames(league).game(str(int(game_id)))
    if stored is not None:
        return stored.record
    try:
        text = (league.dir / "records" / f"{int(game_id)}.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return GameRecord.from_dict(json.loads(text))


def game_sides(league: League, game_id: int) -> tuple[EntryKey, EntryKey] | None:
    """The two sides (side A, side B) of a stored game, None when unknown."""
    sides = league.game_sides(game_id)
    return (EntryKey(sides[0]), EntryKey(sides[1])) if sides else None


def game_log(league: League, game_id: int, submission_id: int) -> str:
    """What version `submission_id` wrote to stderr in game `game_id`: the record keeps the
    stderr tail of the side that faulted, so "" for a side that did not (or another game)."""
    record = game_record(league, game_id)
    sides = game_sides(league, game_id)
    if record is None or sides is None or record.offender not in (1, 2):
        return ""
    if sides[record.offender - 1] != submission_key(submission_id):
        return ""
    return record.stderr_tail


def standings(league: League) -> list[StandingRow]:
    """One row per user whose latest accepted version has played, best Elo first (the ranked
    entries of `leaderboard`, without the reference bots)."""
    return [r for r in leaderboard(league) if r.kind == "entry"]


#: the last fit of each league folder this process read: folder -> (what it was fitted from,
#: its rows). A few folders at most (a server serves one league; tests make many).
_FITS: dict[Path, tuple[tuple[Any, ...], list[StandingRow]]] = {}
_FITS_LOCK = threading.Lock()
_FITS_KEPT = 8


def cached_standings(league: League) -> list[StandingRow]:
    """`standings`, fitted again only when what it is fitted from changed since this process
    last fitted this league folder: a stored game (`League.games_mark`), who takes part
    (`League.entries_mark`), the cut or the settings. The rating workers plan every pair from
    it (`arena.league.worker.plan_next`); refitting every stored game per pair would grow with
    the league."""
    key = (league.games_mark(), league.entries_mark(), league.cut_at, league.config)
    folder = league.dir.resolve()
    with _FITS_LOCK:
        kept = _FITS.get(folder)
    if kept is not None and kept[0] == key:
        return list(kept[1])
    rows = standings(league)
    with _FITS_LOCK:
        _FITS.pop(folder, None)
        while len(_FITS) >= _FITS_KEPT:
            del _FITS[next(iter(_FITS))]  # the folder fitted longest ago
        _FITS[folder] = (key, rows)
    return list(rows)


def leaderboard(league: League) -> list[StandingRow]:
    """The ranked entries and the reference bots that have played, best Elo first; the Elo
    scale is anchored to the config's anchor at its `anchor_elo`.

    Once the league is frozen (`League.cut_at`) it is a snapshot that never changes: the games
    that ended before the cut, each student's latest passed version that had played by then
    (a version that passes its check after the cut does not drop its author's earlier games),
    made once and kept in the league (`League.frozen_leaderboard`). Only an admin's act on who
    takes part (disabling or enabling a user, `forget_snapshot`) makes it again, by the same
    rule."""
    cut = league.cut_at
    if cut is None:
        return _leaderboard(league, None)
    kept = league.frozen_leaderboard()
    if kept is not None:
        return [_row_of(d) for d in json.loads(kept)]
    rows = _leaderboard(league, cut)
    league.keep_frozen_leaderboard(json.dumps([asdict(r) for r in rows]))
    return rows


#: the leaderboard's columns, as the web page and `cxarena league standings` show them
LEADERBOARD_COLUMNS = ("rank", "user", "version", "elo", "95% interval", "games", "faults",
                       "against the reference bots", "latest version")


def leaderboard_cells(row: StandingRow) -> tuple[str, ...]:
    """One `leaderboard` row as the text of its `LEADERBOARD_COLUMNS` (a reference bot:
    no rank, marked "reference" or "reference · anchor", the anchor's interval "fixed")."""
    elo = f"{row.elo:.0f}"
    interval = f"{row.elo_low:.0f} .. {row.elo_high:.0f}"
    if row.kind != "entry":
        mark = "reference · anchor" if row.anchor else "reference"
        return ("", f"{row.user} ({mark})", "", elo, "fixed" if row.anchor else interval,
                str(row.games), str(row.faults), "", "")
    versus = " · ".join(f"{v.bot} {v}" for v in row.vs_reference if v.games) or "–"
    latest = (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(row.latest_version_at))
              if row.latest_version_at else "")
    return (str(row.rank), row.user, f"v{row.version}", elo, interval, str(row.games),
            str(row.faults), versus, latest)


def forget_snapshot(league: League) -> None:
    """Drop the frozen leaderboard, to be made again (by the same rule) at its next read."""
    league.forget_frozen_leaderboard()


def _row_of(data: dict[str, Any]) -> StandingRow:
    scores = tuple(ReferenceScore(**v) for v in data.pop("vs_reference", ()))
    return StandingRow(**data, vs_reference=scores)


def _rated_versions(league: League, cut: float | None) -> dict[str, tuple[int, int, float]]:
    """user -> (submission id, version, uploaded at) of the version the leaderboard rates: now,
    each user's latest that passed its check; at a cut, the latest uploaded before it that had
    played a game by then. Disabled users have none."""
    out_users = {u.name for u in league.users() if u.disabled}
    played = league.sides_played_until(cut) if cut is not None else set()
    statuses = CURRENT if cut is None else PASSED
    latest: dict[str, tuple[int, int, float]] = {}
    for sub in league.submissions():
        if sub.user in out_users or sub.status not in statuses:
            continue
        if cut is not None and (sub.created_at > cut or submission_key(sub.id) not in played):
            continue
        latest[sub.user] = (sub.id, sub.version, sub.created_at)
    return latest


def entry_ratings(league: League, chosen: dict[str, int]) -> list[StandingRow]:
    """The leaderboard with the versions `chosen` (user -> submission id: each student's entry
    in the final) as the rated ones, from the games that ended before the cut (all of them
    before the league is frozen): what the grades show beside each entry."""
    versions: dict[str, tuple[int, int, float]] = {}
    for user, sid in chosen.items():
        sub = league.submission(sid)
        if sub is not None:
            versions[user] = (sid, sub.version, sub.created_at)
    return _leaderboard(league, league.cut_at, versions)


def _leaderboard(league: League, cut: float | None,
                 versions: dict[str, tuple[int, int, float]] | None = None
                 ) -> list[StandingRow]:
    """The leaderboard now (`cut` None), or as it stood at the cut; of `versions` (user ->
    (submission id, version, uploaded at)) when given, else of the versions it rates
    (`_rated_versions`). The fit takes the games of both, so that showing another version
    of a student's changes no one else's rating."""
    cfg = league.config
    refs = cfg.reference_bots
    names = reference_names(refs)
    rated = _rated_versions(league, cut)
    latest = rated if versions is None else versions
    entries: dict[str, str] = {submission_key(sid): user
                               for user, (sid, _, _) in latest.items()}
    # the fit: the versions the leaderboard rates and those shown (their games rate them all)
    fitted = {submission_key(sid) for sid, _, _ in rated.values()} | set(entries)
    # a student's versions against each other (`arena.league.rating`) rate neither
    owner: dict[str, str] = {submission_key(sub.id): sub.user
                             for sub in league.submissions() if submission_key(sub.id) in fitted}
    rows = league.game_scores(cut)
    games: list[tuple[str, str, float]] = []
    count: dict[str, int] = {}
    faults: dict[str, int] = {}
    players: set[str] = set()
    versus: dict[tuple[str, str], tuple[float, int]] = {}  # (entry, reference) -> (pts, n)
    for a, b, s, faulted in rows:
        if any(is_submission(side) and side not in fitted for side in (a, b)):
            continue  # a superseded or disabled version's games do not rate the current one
        if a in owner and owner.get(b) == owner[a]:
            continue
        games.append((a, b, float(s)))
        players.update((a, b))
        for side in (a, b):
            count[side] = count.get(side, 0) + 1
        if faulted:
            faults[faulted] = faults.get(faulted, 0) + 1
        for me, other, mine in ((a, b, float(s)), (b, a, 1.0 - float(s))):
            if me in entries and other in names:
                pts, n = versus.get((me, other), (0.0, 0))
                versus[(me, other)] = (pts + mine, n + 1)
    anchor = cfg.anchor_bot()
    if anchor in players:
        ratings = fit_ratings(sorted(players), games, anchor=anchor,
                              anchor_elo=cfg.file.anchor_elo).as_dict()
    else:  # the anchor has not played yet: centre the scale on its value meanwhile
        ratings = {p: (elo + cfg.file.anchor_elo, err)
                   for p, (elo, err) in fit_ratings(sorted(players), games).as_dict().items()}
    shown = [e for e in entries if e in ratings] + [r for r in refs if r in ratings]
    shown.sort(key=lambda side: -ratings[side][0])
    out = []
    rank = 0
    for side in shown:
        elo, err = ratings[side]
        if side in entries:
            rank += 1
            user = entries[side]
            sid, version, created = latest[user]
            scores = tuple(ReferenceScore(names[r], *versus.get((side, r), (0.0, 0)))
                           for r in refs)
            out.append(StandingRow(rank, user, sid, version, elo, elo - err, elo + err,
                                   count.get(side, 0), faults.get(side, 0), created,
                                   vs_reference=scores))
        else:
            out.append(StandingRow(0, names[side], 0, 0, elo, elo - err, elo + err,
                                   count.get(side, 0), faults.get(side, 0), 0.0,
                                   kind="reference", spec=side, anchor=side == anchor))
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
    me = submission_key(submission_id)
    out = []
    for gid, a, b, board, score_a, reason, finished in league.games_with(me):
        mine = score_a if a == me else 1.0 - score_a
        result = "win" if mine == 1.0 else "loss" if mine == 0.0 else "draw"
        out.append(GameSummary(gid, b if a == me else a, board, result, reason, finished))
    return out


def standings_csv(league: League) -> str:
    """The leaderboard as CSV: one row per ranked entry and per reference bot (an empty rank;
    `kind` says entry, reference or anchor), with each entry's points and games against each
    reference bot (vs_<bot>_points, vs_<bot>_games)."""
    refs = reference_names(league.config.reference_bots)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["rank", "user", "submission_id", "version", "elo", "elo_low",
                     "elo_high", "games", "faults", "latest_version_at", "kind"]
                    + [f"vs_{n}_{what}" for n in refs.values() for what in ("points", "games")])
    for r in leaderboard(league):
        numbers = [f"{r.elo:.1f}", f"{r.elo_low:.1f}", f"{r.elo_high:.1f}", r.games, r.faults]
        if r.kind == "entry":
            writer.writerow([r.rank, r.user, r.submission_id, r.version, *numbers,
                             time.strftime("%Y-%m-%d %H:%M:%S",
                                           time.gmtime(r.latest_version_at)), r.kind]
                            + [x for v in r.vs_reference for x in (_points(v.points), v.games)])
        else:
            writer.writerow(["", r.user, "", "", *numbers, "",
                             "anchor" if r.anchor else r.kind] + ["", ""] * len(refs))
    return buf.getvalue()
