"""Play similarity from the league's real games (issue 48, item 3): a screen a bot cannot tell
from a game, because it is made of its games.

The position screen (`arena.similarity.answers`) asks each version about positions it is
shown out of the blue; a copy can tell those from games (a first board that already holds
several pieces) and answer them differently. Here nothing is asked: every rating game the
league stored (`games` and `game_records`, the side that moved first is ``side_a``) gives, for
each move a version made past the opening, the position (board and every move before it) and
the move it chose (`version_moves`). Two versions that met the same position (mostly against a
common opponent from the same opening: a copy and its original, playing alike, meet every
position the other meets) are compared on those positions (`compare_moves`: the share of
positions where their most frequent moves are the same), and that share is judged against the
band of the league's other pairs of different students (`game_matches`: the median and the
spread, 1.4826 x MAD floored at `MIN_SD`): a pair at `Z_FLAG` spreads or more above, or at
`FLAG_SHARE` (whichever is lower; `FLAG_SHARE` alone while fewer than `MIN_BAND` pairs met
enough positions to make a band), on at least `MIN_SHARED` positions, is flagged. A copy that
plays its games like its original is flagged whatever it answers the position screen.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.connectx.record import board_and_columns
from arena.records import GameRecord

__all__ = ["FLAG_SHARE", "MIN_BAND", "MIN_SD", "MIN_SHARED", "Z_FLAG", "GameMatch",
           "compare_moves", "game_matches", "game_notes", "version_moves"]

#: positions two versions must share before their share counts
MIN_SHARED = 8
#: the floor of the band's spread (a league of bots that all agree would flag everyone)
MIN_SD = 0.05
#: flagged at this many spreads above the band's median
Z_FLAG = 5.0
#: ... or at this share, whichever is lower; and at this share when the league has fewer than
#: `MIN_BAND` pairs that met `MIN_SHARED` positions (no band to judge by)
FLAG_SHARE = 0.9
MIN_BAND = 3

#: a position: the board ("6x7x4") and every move before it, from the empty board
Key = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class GameMatch:
    """Two versions' moves in their real games: positions both met, where they chose the same
    move, the share, its z against the band, flagged or not."""

    a: str
    b: str
    shared: int
    same: int
    share: float | None
    z: float = 0.0
    flagged: bool = False


def version_moves(rows: Iterable[tuple[str, str, str, dict[str, Any]]]
                  ) -> dict[str, dict[Key, Counter[int]]]:
    """side -> position -> how often it chose each column there, from stored games given as
    (side_a, side_b, board, record as a dict): side_a moved first; the opening's moves (the
    first ``len(opening)``) were nobody's choice."""
    out: dict[str, dict[Key, Counter[int]]] = {}
    for side_a, side_b, board, raw in rows:
        record = GameRecord.from_dict(raw)  # either shape (`arena.records.game_of_record`)
        cx = board_and_columns(record)
        if cx is None:  # another game than Connect-X: not compared
            continue
        moves = cx[3]
        start = len(record.opening_moves)
        for ply in range(start, len(moves)):
            side = side_a if ply % 2 == 0 else side_b
            out.setdefault(side, {}).setdefault((board, tuple(moves[:ply])),
                                                Counter())[moves[ply]] += 1
    return out


def _modal(c: Counter[int]) -> int:
    return min(c, key=lambda col: (-c[col], col))


def compare_moves(a: dict[Key, Counter[int]], b: dict[Key, Counter[int]]) -> tuple[int, int]:
    """(positions both met, positions where their most frequent moves are the same)."""
    shared = a.keys() & b.keys()
    return len(shared), sum(1 for k in shared if _modal(a[k]) == _modal(b[k]))


def _league_rows(league: Any) -> Iterable[tuple[str, str, str, dict[str, Any]]]:
    from arena.league.db import LeagueGames  # the league's stored games

    for side_a, side_b, board, text in LeagueGames(league).record_texts():
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield side_a, side_b, board, record


def game_matches(league: Any, versions: Sequence[Any]) -> list[GameMatch]:
    """Every pair of `versions` (`arena.similarity.codestore.Version`: of two different
    students) judged on their real games (see the module docstring), flagged first."""
    moves = version_moves(_league_rows(league))
    raw = []
    for i, a in enumerate(versions):
        for b in versions[i + 1:]:
            if a.user == b.user:
                continue
            shared, same = compare_moves(moves.get(f"sub:{a.id}", {}),
                                         moves.get(f"sub:{b.id}", {}))
            raw.append((a.label, b.label, shared, same))
    shares = [same / shared for _, _, shared, same in raw if shared >= MIN_SHARED]
    median = statistics.median(shares) if shares else 0.0
    sd = max(MIN_SD, 1.4826 * statistics.median([abs(s - median) for s in shares])
             if shares else MIN_SD)
    threshold = min(FLAG_SHARE, median + Z_FLAG * sd) if len(shares) >= MIN_BAND \
        else FLAG_SHARE
    out = []
    for la, lb, shared, same in raw:
        if shared < MIN_SHARED:
            out.append(GameMatch(la, lb, shared, same, None))
            continue
        share = same / shared
        out.append(GameMatch(la, lb, shared, same, round(share, 4),
                             round((share - median) / sd, 2), share >= threshold))
    out.sort(key=lambda m: (not m.flagged, -(m.z if m.share is not None else -99.0)))
    return out


def game_notes(league: Any) -> list[str]:
    """The page's and the command's words for `game_matches` over the screened versions: each
    flagged pair, then how many pairs could be judged."""
    from arena.similarity.codestore import screened_versions  # the versions screened

    matches = game_matches(league, screened_versions(league))
    judged = [m for m in matches if m.share is not None]
    out = [f"games: FLAG {m.a} ~ {m.b}: the same move in {m.same} of the {m.shared} positions "
           f"both met in their real games ({m.share:.0%}, z {m.z:+.1f}): a copy plays its "
           f"games like its original, whatever it answers the position screen"
           for m in matches if m.flagged]
    out.append(f"games: {len(judged)} pair(s) of versions met {MIN_SHARED} or more of the same "
               f"positions in their real games and were compared move by move; "
               f"{len(out)} flagged")
    return out
