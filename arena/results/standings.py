"""Standings, always recomputed from stored games: ranking, per-board table, crosstable, Elo.

Scoring: a win is worth 3 points, a draw 1, a loss 0; a fault (timeout, illegal move, crash)
loses for the offender and counts in the offender's fault column. When every player played as
many games (a finished round robin) the ranking orders players by points, then by their fitted
Elo rating (`arena.results.elo.fit_ratings`, all games, draws as half a win). When they did not
(a gauntlet, whose challengers play every other player while the others play only the
challengers; an unfinished run) points would favour whoever played most, so the ranking orders
them by the Elo rating, then by points per game; `Standings.ranked_by` and the line above the
table say which. Each pair's head-to-head result comes with `arena.results.elo.elo_difference`.

Head to head (`arena.results.stats`): when every game of a pairing belongs to a complete game
pair (the same start played with the colours swapped, `GameRecord.pair_id`), the Elo
difference uses the pentanomial model over pairs; otherwise the trinomial model over games. A
perfect score prints as a one-sided bound, never as inf. The ratings' first-move advantage:
every schedule (round robin and gauntlet) plays each pairing on each board equally often with
each player first, so the advantage of moving first cancels out of the Bradley-Terry fit; it
is therefore not modelled (it would only matter for incomplete runs).

Move times: ``mean ms`` is over the moves the player made; ``max ms`` also counts the late
answers of the games it lost on time (`late_answer_ms`), so a player who lost a game on time
never shows a max below its limit. A late answer is the measured time of the answer that came
too late (``extra["late_ms"]["elapsed"]``); where none came, the time at which the referee
stopped waiting (or, in records that do not say, the limit) is a lower bound, shown as
``> 150.0``. The Markdown says so under the ranking when a late answer set a max.

`compute_standings` does the arithmetic; `Standings.to_markdown` / `to_csv` render it.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import combinations
from typing import Any

from tabulate import tabulate

from arena.games import GameError
from arena.records import GameRecord, Reason, StoredGame, board_key
from arena.results.elo import EloDifference, Ratings, elo_difference, fit_ratings
from arena.results.stats import EloEstimate, Pentanomial, Trinomial, estimate

__all__ = ["ADAPTIVE_RULE", "COLUMN_KEY", "CSV_COLUMNS", "HEAD_TO_HEAD_RULE", "POINTS_DRAW",
           "POINTS_WIN", "PlayerRow", "Standings", "TieBreak", "column_key_markdown",
           "compute_standings", "late_answer_ms", "max_ms_text", "rank_level"]

POINTS_WIN = 3
POINTS_DRAW = 1

#: the ranking's columns in standings.csv, in order
CSV_COLUMNS = ("rank", "player", "points", "games", "wins", "draws", "losses", "timeouts",
               "illegal", "crashes", "mean_move_ms", "max_move_ms", "elo", "elo_ci95")

#: what each column of the ranking means (standings.md, the HTML report and the README show it)
COLUMN_KEY = (
    ("rank, player", "place by points, then by Elo, when every player played as many games; "
                     "by Elo, then points per game, when not (a gauntlet, an unfinished run; "
                     "the line above the table says which); the player's display name"),
    ("points", "3 per win, 1 per draw, 0 per loss; a game lost by a fault counts as a loss "
               "(3 for the opponent)"),
    ("games, wins, draws, losses", "the player's games and how they ended"),
    ("timeouts", "games this player lost by answering late (initPlayer or selectColumn)"),
    ("illegal", "games lost by answering a full column, a column out of range, or not an "
                "integer"),
    ("crashes", "games lost because the bot raised, exited, was killed, ran out of memory or "
                "failed to start"),
    ("mean ms, max ms", "the player's measured time per move (request sent to answer "
                        "received)"),
    ("Elo (95%)", "a Bradley-Terry rating fitted to all games by maximum likelihood (draws "
                  "count half; one virtual draw per pair that met keeps an all-win player "
                  "finite), mean 0, with its 95% interval"),
)


def late_answer_ms(rec: GameRecord) -> tuple[float, bool] | None:
    """The offender's late answer of a game lost on time: (ms, whether an answer came), or None
    (not a timeout, or one whose time the record does not tell). No answer: the time the referee
    stopped waiting, a lower bound; records without the late move's account give the limit
    (`timeout_s`) as that bound. A game ended by its wall-clock limit has no late answer."""
    if rec.reason is not Reason.TIMEOUT or not rec.is_fault:
        return None
    late = rec.extra.get("late_ms")
    if isinstance(late, dict) and isinstance(late.get("elapsed"), (int, float)):
        return float(late["elapsed"]), "no answer after" not in rec.detail
    if "wall-clock limit" in rec.detail or rec.timeout_s is None:
        return None
    return rec.timeout_s * 1000.0, False


_LATE_WORDS = {"late": "answered after", "open": "no answer within"}


def max_ms_text(r: PlayerRow) -> str:
    """The ranking's ``max ms`` cell: ``383.0``, ``> 150.0`` when no answer came (a bound),
    ``-`` when the player made no move."""
    return ("> " if r.max_move_late == "open" else "") + _ms(r.max_move_ms)


def column_key_markdown() -> str:
    """`COLUMN_KEY` as a Markdown table (the same table is in the README)."""
    return "\n".join(["| column | meaning |", "|---|---|"]
                     + [f"| {c} | {m} |" for c, m in COLUMN_KEY])


@dataclass(frozen=True)
class PlayerRow:
    """One player's line of the ranking."""

    rank: int
    player: str
    points: int
    games: int
    wins: int
    draws: int
    losses: int
    timeouts: int  # faults committed by this player
    illegal: int
    crashes: int
    mean_move_ms: float  # over all of this player's moves (nan if none)
    max_move_ms: float  # over its moves and the late answers of its timeouts (nan if none)
    elo: float
    elo_ci95: float
    #: the max is a late answer's: "late" (an answer that came too late), "open" (no answer
    #: came: `max_move_ms` is a lower bound), "" (a move's)
    max_move_late: str = ""
    #: the place as shown: "3", or "3=" when shared (`TieBreak.HEAD_TO_HEAD` only shares)
    rank_text: str = ""
    #: with `TieBreak.HEAD_TO_HEAD`: the points taken among the players level with it on
    #: points, its Sonneborn-Berger score, and what decided its place ("", "head to head",
    #: "Sonneborn-Berger" or "shared")
    head_to_head: int = 0
    sonneborn_berger: int = 0
    decided_by: str = ""


class TieBreak(str, Enum):
    """What orders players level on points. ELO: a tournament's (points, then Elo; by Elo when
    the players played unequal numbers of games). HEAD_TO_HEAD: a league final's
    (`HEAD_TO_HEAD_RULE`): the same in its results folder, its report, /final/standings.csv and
    the grades."""

    ELO = "elo"
    HEAD_TO_HEAD = "head-to-head"
    #: an adaptive final's (`arena.league.final_adaptive`): the order it decided, at its
    #: confidence, from the games it played (``adaptive.json`` beside the store); the places it
    #: could not separate are shared
    ADAPTIVE = "adaptive"


#: `TieBreak.ADAPTIVE` in words
ADAPTIVE_RULE = ("Ranked as the adaptive final decided (adaptive.md): by the points each entry "
                 "is expected to have at the end of the full round robin, fitted to the games "
                 "played; places it could not separate at its confidence are shared (\"3=\").")

#: `TieBreak.HEAD_TO_HEAD` in words (the ranking's note, the league's admin page, docs/league.md)
HEAD_TO_HEAD_RULE = ("Ranked by points (win 3, draw 1, loss 0); level players by head to head "
                     "(points among themselves), then Sonneborn-Berger, else a shared rank "
                     "(\"3=\").")


@dataclass(frozen=True)
class _Level:
    """A player's place under `TieBreak.HEAD_TO_HEAD` (`rank_level`)."""

    rank: int
    rank_text: str
    player: str
    points: int
    head_to_head: int
    sonneborn_berger: int
    decided_by: str


def rank_level(players: Sequence[str], cross: dict[str, dict[str, int]]) -> list[_Level]:
    """The places of `players` from `cross` (player -> opponent -> points the player took) by
    points, then, among players level on points, by head to head (the points each took in the
    games among them), then Sonneborn-Berger (the points taken from each opponent times that
    opponent's total), else a shared rank ("3="; the next rank skips accordingly)."""
    points = {p: sum(cross.get(p, {}).get(o, 0) for o in players if o != p) for p in players}
    sb = {p: sum(cross.get(p, {}).get(o, 0) * points[o] for o in players if o != p)
          for p in players}
    rows: list[_Level] = []
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
            rows.append(_Level(first, f"{first}=" if len(same) > 1 else str(first), p,
                               points[p], h2h[p], sb[p], decided))
    return rows


#: a board of Connect-X (M, N, K), or the label of another game's parameter set
#: (``othello size=8``, `GameRecord.game_label`)
BoardKey = tuple[int, int, int] | str


def board_label(board: BoardKey) -> str:
    """``6x7 K=4`` for a Connect-X board, the game's label for another game."""
    if isinstance(board, str):
        return board
    M, N, K = board
    return f"{M}x{N} K={K}"


def record_board_key(rec: GameRecord) -> BoardKey:
    """The per-board key of a record: as its game keys it (`Game.board_key`), the record's
    label for a game this cxarena does not know."""
    try:
        return board_key(rec.rules())
    except GameError:
        return rec.game_label


@dataclass(frozen=True)
class Standings:
    """Everything derived from a set of stored games."""

    ranking: tuple[PlayerRow, ...]
    boards: tuple[BoardKey, ...]
    board_points: dict[BoardKey, dict[str, int]]  # board -> player -> points
    cross: dict[str, dict[str, int]]  # player -> opponent -> points player took
    pairs: tuple[tuple[str, str, EloDifference], ...]  # head to head, first name's view
    ratings: Ratings
    total_games: int
    not_isolated: int = 0  # games whose bots ran without isolation (records saying so)
    #: head to head from the first name's view (pentanomial over pairs where paired)
    estimates: tuple[tuple[str, str, EloEstimate], ...] = ()
    #: board -> (player, opponent) -> [wins, draws, losses] of player
    board_wdl: dict[BoardKey, dict[tuple[str, str], list[int]]] = field(
        default_factory=dict)
    distinct_games: int | None = None  # games that differ (board, players, moves)
    #: what orders the ranking: "points" (then Elo) or "Elo" (then points per game)
    ranked_by: str = "points"

    def ranking_note(self) -> str:
        """One sentence saying what orders the ranking, and why."""
        played = sorted({r.games for r in self.ranking if r.games})
        if self.ranked_by == TieBreak.HEAD_TO_HEAD.value:
            return HEAD_TO_HEAD_RULE
        if self.ranked_by == TieBreak.ADAPTIVE.value:
            return ADAPTIVE_RULE
        if self.ranked_by == "Elo":
            return (f"Ranked by Elo, then points per game: the players played "
                    f"{played[0]} to {played[-1]} games (a gauntlet, or an unfinished run), so "
                    f"points would favour whoever played most.")
        each = f" (every player played {played[0]} games)" if len(played) == 1 else ""
        return f"Ranked by points, then by Elo{each}."

    def _met(self, a: str, b: str) -> bool:
        """Whether a and b played (True when unknown: standings built without estimates)."""
        if not self.estimates:
            return True
        return any(e.n for x, y, e in self.estimates if {x, y} == {a, b})

    def row(self, player: str) -> PlayerRow:
        return next(r for r in self.ranking if r.player == player)

    def to_csv(self) -> str:
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for r in self.ranking:
            w.writerow([r.rank_text or r.rank, r.player, r.points, r.games, r.wins, r.draws,
                        r.losses, r.timeouts, r.illegal, r.crashes, _csv_float(r.mean_move_ms),
                        _csv_float(r.max_move_ms), f"{r.elo:.1f}", f"{r.elo_ci95:.1f}"])
        return out.getvalue()

    def to_markdown(self, title: str = "Standings", expected_games: int | None = None) -> str:
        names = [r.player for r in self.ranking]
        parts = [f"# {title}\n"]
        done = f"{self.total_games} games"
        if expected_games is not None and expected_games != self.total_games:
            done += f" of {expected_games} scheduled (incomplete: rerun to resume)"
        parts.append(f"{done}; win {POINTS_WIN}, draw {POINTS_DRAW}, loss 0; a fault loses "
                     f"for the offender.\n")
        if self.not_isolated:
            parts.append(f"**Warning: entrants were not isolated** in {self.not_isolated} of "
                         f"{self.total_games} games: a bot could have touched its opponent "
                         f"or the results (see docs/protocol.md, threat model).\n")
        if self.distinct_games is not None:
            line = f"Distinct games: {self.distinct_games} of {self.total_games}."
            if self.distinct_games < self.total_games:
                line += (" Warning: some games repeat an earlier one move for move "
                         "(deterministic bots from the same start); a repeat adds no "
                         "information, so the intervals below are too narrow. `openings:` in "
                         "the config varies the starts.")
            parts.append(line + "\n")
        parts.append("## Ranking\n")
        parts.append(self.ranking_note() + "\n")
        parts.append(tabulate(
            [[r.rank_text or r.rank, r.player, r.points, r.games, r.wins, r.draws, r.losses,
              r.timeouts, r.illegal, r.crashes, _ms(r.mean_move_ms), max_ms_text(r),
              f"{r.elo:+.0f} ± {r.elo_ci95:.0f}"] for r in self.ranking],
            headers=["rank", "player", "points", "games", "wins", "draws", "losses",
                     "timeouts", "illegal", "crashes", "mean ms", "max ms", "Elo (95%)"],
            tablefmt="github", disable_numparse=True, colalign=("right", "left") + ("right",) * 11))
        late = [f"{r.player} ({_LATE_WORDS[r.max_move_late]} {_ms(r.max_move_ms)} ms)"
                for r in self.ranking if r.max_move_late]
        if late:
            parts.append("\nmax ms counts the late answers of the games lost on time; they set "
                         f"the max of {', '.join(late)}. '>': no answer came; the time the "
                         "referee waited for it is a lower bound.")
        parts.append("\n" + column_key_markdown())
        parts.append("\n\n## Crosstable (points the row player took from the column player)\n")
        parts.append(tabulate(
            [[a] + [("—" if a == b else (str(self.cross[a][b]) if self._met(a, b) else ""))
                    for b in names]
             + [str(self.row(a).points)] for a in names],
            headers=["player"] + names + ["total"], tablefmt="github", disable_numparse=True,
            colalign=("left",) + ("right",) * (len(names) + 1)))
        parts.append("\n\n## Head to head\n")
        parts.append("Elo diff: the row player's logistic Elo advantage; ± 95%: half the width "
                     "of its 95% confidence interval (score ± 1.96 standard errors, mapped to "
                     "Elo, so not always symmetric: where ± would mislead, the note gives its "
                     "ends); LOS: "
                     "the probability that the row player is the stronger, read with the "
                     "interval: above 97.5 % (below 2.5 %) only where the interval excludes 0; "
                     "where it includes 0 the note says 'not significant'. Model: "
                     "pentanomial (game pairs are the independent units) where every game was "
                     "paired, else trinomial (games). A perfect score has no finite estimate: "
                     "it shows the bound of its 95% interval (≥ or ≤); a better record never "
                     "gets a weaker bound or LOS than a worse one. Ratings in the ranking are a "
                     "Bradley-Terry fit of all games with the same 95% meaning.\n")
        parts.append(tabulate(
            [[a, b, f"{e.n} {'pairs' if e.model.value == 'pentanomial' else 'games'}",
              *head_to_head_cells(e)] for a, b, e in self.estimates if e.n],
            headers=["player", "opponent", "sample", "Elo diff", "± 95%", "LOS", "note"],
            tablefmt="github", disable_numparse=True,
            colalign=("left", "left", "right", "right", "right", "right", "left")))
        if self.board_wdl:
            parts.append("\n\n## W-D-L per board (row player against each opponent)\n")
            rows = []
            for board in self.boards:
                table = self.board_wdl.get(board, {})
                for a in names:
                    cells = []
                    for b in names:
                        w = table.get((a, b))
                        cells.append("—" if a == b else ("" if w is None else
                                                          f"{w[0]}-{w[1]}-{w[2]}"))
                    if any(cells[i] for i, b in enumerate(names) if b != a):
                        rows.append([board_label(board), a] + cells)
            parts.append(tabulate(rows, headers=["board", "player"] + names,
                                  tablefmt="github", disable_numparse=True,
                                  colalign=("left", "left") + ("right",) * len(names)))
        parts.append("\n\n## Points per board\n")
        parts.append(tabulate(
            [[board_label(b)] + [str(self.board_points[b].get(p, 0)) for p in names]
             for b in self.boards],
            headers=["board (MxN)"] + names, tablefmt="github", disable_numparse=True,
            colalign=("left",) + ("right",) * len(names)))
        return "\n".join(parts) + "\n"


def head_to_head_cells(e: EloEstimate) -> list[str]:
    """The head-to-head row's cells after the sample: Elo diff, ± 95%, LOS, note (the same in
    standings.md and the HTML report)."""
    if e.n == 0:
        return ["-", "-", "-", "no games"]
    note = "tiny sample" if e.tiny else ""
    if math.isnan(e.elo):
        sign = "≥" if e.score >= 1.0 else "≤"
        what = ("all won: no finite estimate, ≥ the lower bound of the 95% interval"
                if e.score >= 1.0 else
                "all lost: no finite estimate, ≤ the upper bound of the 95% interval")
        return [f"{sign} {e.bound:+.0f}", "bound", f"{100 * e.los:.1f} %",
                _reading(e, "; ".join(x for x in (what, note) if x))]
    if math.isinf(e.error):
        if math.isfinite(e.lower):
            err, why = f"≥ {e.lower:+.0f}", "no finite upper end: the lower bound"
        elif math.isfinite(e.upper):
            err, why = f"≤ {e.upper:+.0f}", "no finite lower end: the upper bound"
        else:
            err, why = "unbounded", "too few results to bound the interval"
        note = "; ".join(x for x in (why, note) if x)
    else:
        err = f"{e.error:.1f}"
    if e.no_spread:
        note = "; ".join(x for x in ("every unit scored 1/2: exact bound", note) if x)
    return [f"{e.elo + 0.0:+.1f}", err, f"{100 * e.los:.1f} %", _reading(e, note)]


def _reading(e: EloEstimate, note: str) -> str:
    """The note with what the interval says first (`arena.results.stats`: the interval
    decides, the LOS agrees): not significant where it includes 0; its ends where the
    estimate +/- the half width would reach across 0 while the interval does not."""
    if not e.significant:
        first = "not significant: the 95% interval includes 0"
    elif e.lopsided:
        first = (f"significant: the 95% interval {e.lower:+.1f} .. {e.upper:+.1f} excludes 0 "
                 f"(not symmetric)")
    else:
        first = ""
    return "; ".join(x for x in (first, note) if x)


def _csv_float(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.3f}"


def _ms(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1f}"


def _elo(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _err(x: float) -> str:
    return f"{x:.1f}" if math.isfinite(x) else "inf"


def _decided_levels(names: list[str], points: dict[str, int],
                    decided: Sequence[Sequence[str]]) -> dict[str, _Level]:
    """The places of `decided` (groups of players in order, each group one shared place;
    players it does not name after them, by points)."""
    groups = [[p for p in g if p in points] for g in decided]
    named = {p for g in groups for p in g}
    groups += [[p] for p in sorted((p for p in names if p not in named),
                                   key=lambda p: (-points[p], p))]
    out: dict[str, _Level] = {}
    for group in (g for g in groups if g):
        first = len(out) + 1
        for p in group:
            shared = len(group) > 1
            out[p] = _Level(first, f"{first}=" if shared else str(first), p, points[p], 0, 0,
                            "shared" if shared else "adaptive final")
    return out


def _order(names: list[str], points: dict[str, int], games: dict[str, int],
           elo: dict[str, tuple[float, float]], cross: dict[str, dict[str, int]],
           tie_break: TieBreak, decided: Sequence[Sequence[str]] = ()
           ) -> tuple[str, list[str], dict[str, _Level]]:
    """(what ranks them, the players in order, each one's place under HEAD_TO_HEAD or
    ADAPTIVE)."""
    if tie_break is TieBreak.ADAPTIVE:
        levels = _decided_levels(names, points, decided)
        return tie_break.value, list(levels), levels
    if tie_break is TieBreak.HEAD_TO_HEAD:
        levels = {row.player: row for row in rank_level(names, cross)}
        return tie_break.value, list(levels), levels
    if len({g for g in games.values() if g}) > 1:
        return "Elo", sorted(names, key=lambda p: (-elo[p][0], -points[p] / max(games[p], 1),
                                                   p)), {}
    return "points", sorted(names, key=lambda p: (-points[p], -elo[p][0], p)), {}


def compute_standings(players: Sequence[str], games: Iterable[StoredGame],
                      boards: Sequence[BoardKey] = (),
                      tie_break: TieBreak = TieBreak.ELO,
                      decided: Sequence[Sequence[str]] = ()) -> Standings:
    """Standings of `players` from `games` (games of other players are ignored), ranked with
    `tie_break` (`TieBreak.ADAPTIVE`: in the order `decided`, groups of players sharing a
    place, that an adaptive final fitted to these games). `boards` fixes the per-board table's
    rows (boards seen only in games are appended).
    """
    names = list(players)
    known = set(names)
    points = dict.fromkeys(names, 0)
    count = {p: {"games": 0, "wins": 0, "draws": 0, "losses": 0} for p in names}
    faults = {p: {Reason.TIMEOUT: 0, Reason.ILLEGAL: 0, Reason.CRASH: 0} for p in names}
    times: dict[str, list[float]] = {p: [] for p in names}
    #: the late answers of each player's timeouts: (ms, whether an answer came)
    late: dict[str, list[tuple[float, bool]]] = {p: [] for p in names}
    cross = {a: dict.fromkeys(names, 0) for a in names}
    wdl = {(a, b): [0, 0, 0] for a in names for b in names}  # a's wins, losses, draws vs b
    board_list: list[BoardKey] = list(dict.fromkeys(
        b if isinstance(b, str) else (b[0], b[1], b[2]) for b in boards))
    board_points: dict[BoardKey, dict[str, int]] = {
        b: dict.fromkeys(names, 0) for b in board_list}
    results: list[tuple[str, str, float]] = []
    total = 0
    not_isolated = 0
    distinct: set[tuple[object, ...]] = set()
    # (a, b) canonical order -> pair id -> [(first player's name, score of a)]
    paired: dict[tuple[str, str], dict[str, list[float]]] = {}
    unpaired: dict[tuple[str, str], int] = {}
    board_wdl: dict[BoardKey, dict[tuple[str, str], list[int]]] = {}
    for g in games:
        a, b, rec = g.player1, g.player2, g.record
        if a not in known or b not in known or a == b:
            continue
        total += 1
        not_isolated += rec.extra.get("isolated") is False
        board = record_board_key(rec)
        if board not in board_points:
            board_list.append(board)
            board_points[board] = dict.fromkeys(names, 0)
        if rec.winner is None:
            pa = pb = POINTS_DRAW
            count[a]["draws"] += 1
            count[b]["draws"] += 1
            wdl[(a, b)][2] += 1
            wdl[(b, a)][2] += 1
            results.append((a, b, 0.5))
        else:
            win, lose = (a, b) if rec.winner == 1 else (b, a)
            pa, pb = (POINTS_WIN, 0) if rec.winner == 1 else (0, POINTS_WIN)
            count[win]["wins"] += 1
            count[lose]["losses"] += 1
            wdl[(win, lose)][0] += 1
            wdl[(lose, win)][1] += 1
            results.append((win, lose, 1.0))
        distinct.add((board, a, b, rec.texts))  # either shape of a record: the same texts
        score_a = 0.5 if rec.winner is None else (1.0 if rec.winner == 1 else 0.0)
        key = (a, b) if names.index(a) < names.index(b) else (b, a)
        mine = score_a if key[0] == a else 1.0 - score_a
        if rec.pair_id:
            paired.setdefault(key, {}).setdefault(rec.pair_id, []).append(mine)
        else:
            unpaired[key] = unpaired.get(key, 0) + 1
        bw = board_wdl.setdefault(board, {})
        for p, q, sp in ((a, b, score_a), (b, a, 1.0 - score_a)):
            cell = bw.setdefault((p, q), [0, 0, 0])
            cell[0 if sp == 1.0 else (1 if sp == 0.5 else 2)] += 1
        if rec.is_fault and rec.offender in (1, 2):
            faults[a if rec.offender == 1 else b][rec.reason] += 1
            answer = late_answer_ms(rec)
            if answer is not None:
                late[a if rec.offender == 1 else b].append(answer)
        for p in (a, b):
            count[p]["games"] += 1
        points[a] += pa
        points[b] += pb
        cross[a][b] += pa
        cross[b][a] += pb
        board_points[board][a] += pa
        board_points[board][b] += pb
        t1, t2 = rec.played_times_ms  # opening moves (nobody's choice) left out
        times[a].extend(t1)
        times[b].extend(t2)

    ratings = fit_ratings(names, results)
    elo = ratings.as_dict()
    games_of = {p: count[p]["games"] for p in names}
    ranked_by, order, levels = _order(names, points, games_of, elo, cross, tie_break, decided)
    ranking = tuple(
        PlayerRow(rank=levels[p].rank if levels else i + 1, player=p, points=points[p],
                  games=count[p]["games"], wins=count[p]["wins"], draws=count[p]["draws"],
                  losses=count[p]["losses"], timeouts=faults[p][Reason.TIMEOUT],
                  illegal=faults[p][Reason.ILLEGAL], crashes=faults[p][Reason.CRASH],
                  mean_move_ms=(sum(times[p]) / len(times[p])) if times[p] else math.nan,
                  elo=elo[p][0], elo_ci95=elo[p][1], **_max_move(times[p], late[p]),
                  rank_text=levels[p].rank_text if levels else str(i + 1),
                  head_to_head=levels[p].head_to_head if levels else 0,
                  sonneborn_berger=levels[p].sonneborn_berger if levels else 0,
                  decided_by=levels[p].decided_by if levels else "")
        for i, p in enumerate(order))
    pairs = tuple((a, b, elo_difference(*wdl[(a, b)])) for a, b in combinations(order, 2))
    estimates = []
    for a, b in combinations(order, 2):
        key = (a, b) if names.index(a) < names.index(b) else (b, a)
        groups = paired.get(key, {})
        e: EloEstimate
        if groups and not unpaired.get(key) and all(len(grp) == 2 for grp in groups.values()):
            penta = Pentanomial()
            for grp in groups.values():
                penta = penta.add_pair(*grp)
            e = estimate(penta)
        else:
            w, l, d = wdl[(key[0], key[1])]
            e = estimate(Trinomial(wins=w, draws=d, losses=l))
        if key[0] != a:
            e = _flip(e)
        estimates.append((a, b, e))
    return Standings(ranking=ranking, boards=tuple(board_list), board_points=board_points,
                     cross=cross, pairs=pairs, ratings=ratings, total_games=total,
                     not_isolated=not_isolated, estimates=tuple(estimates), board_wdl=board_wdl,
                     distinct_games=len(distinct), ranked_by=ranked_by)


def _max_move(times_ms: list[float], late: list[tuple[float, bool]]) -> dict[str, Any]:
    """The fields `max_move_ms`, `max_move_late` of a player's row: its longest move, or its
    longest late answer where that is longer (or equal: a bound beats a move of its length)."""
    best = max(times_ms) if times_ms else math.nan
    how = ""
    for ms, answered in late:
        if math.isnan(best) or ms > best or (ms == best and not answered):
            best, how = ms, "late" if answered else "open"
    return {"max_move_ms": best, "max_move_late": how}


def _flip(e: EloEstimate) -> EloEstimate:
    """The same estimate from the other player's view."""
    return dataclasses.replace(e, score=1.0 - e.score, elo=-e.elo, lower=-e.upper,
                               upper=-e.lower, los=1.0 - e.los, nelo=-e.nelo, bound=-e.bound)
