"""A stand-in for the league core's rating-game worker (`arena.league.worker`, not in this
version of the core): plays the rating games of checked versions so that the league runs.

`play_next(league_dir, referee)` picks the checked version ("rating"/"active", its user's
latest) with the fewest stored games while it has fewer than ``2 * pairs_per_submission``,
its least-played opponent (every other user's current version and the reference bots), and a
board from a rotation of the league's board set; it plays one game pair (the same board, the
colours swapped) in the sandbox, and stores each finished game with the core's
`arena.league.standings.record_game`, plus its full record (for the replay viewer) in
``DIR/records/<game id>.json``. A game in flight when the process is killed is not stored, so
it is simply played again: no finished game is lost, none is counted twice.

A version whose author has an earlier checked version also plays ``pairs_per_submission`` pairs
against it (those games do not count for the rating); `versus_previous` reads them as the
pentanomial interval and an SPRT. Fewest games first stands in for "widest Elo interval
first" (the interval of the Elo fit narrows with the number of games); openings are not used
yet (each pair starts from the empty board).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from arena.league import League
from arena.records import GameRecord

__all__ = ["RatingThread", "play_next", "read_record", "records_dir"]

log = logging.getLogger("arena.league.web.rating")


def records_dir(directory: Path) -> Path:
    return Path(directory) / "records"


def read_record(directory: Path, game_id: int) -> GameRecord | None:
    try:
        text = (records_dir(directory) / f"{int(game_id)}.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return GameRecord.from_dict(json.loads(text))


def _write_record(directory: Path, game_id: int, record: GameRecord) -> None:
    folder = records_dir(directory)
    folder.mkdir(exist_ok=True)
    tmp = folder / f".{game_id}.tmp"
    tmp.write_text(record.to_json(), encoding="utf-8")
    os.replace(tmp, folder / f"{game_id}.json")


def _next_pair(lg: League) -> tuple[int, str, tuple[int, int, int], int] | None:
    """(submission id, opponent side, board, pair number) of the next pair to play, or None."""
    from arena.league.standings import GAMES_SCHEMA
    from arena.tournament.config import resolve_board_set

    lg.conn.executescript(GAMES_SCHEMA)
    current: dict[str, int] = {}
    for sub in lg.submissions():
        if sub.status in ("rating", "active"):
            current[sub.user] = sub.id
        elif sub.user in current and sub.status in ("queued", "checking"):
            pass  # the checked version plays until the new one passes its check
    if not current:
        return None
    target = 2 * lg.config.pairs_per_submission
    counts: dict[tuple[str, str], int] = {}
    for a, b, n in lg.conn.execute("SELECT side_a, side_b, COUNT(*) FROM games "
                                   "GROUP BY side_a, side_b"):
        counts[(a, b)] = counts.get((a, b), 0) + n
        counts[(b, a)] = counts.get((b, a), 0) + n
    sides = [f"sub:{sid}" for sid in current.values()]
    opponents_all = sides + list(lg.config.reference_bots)
    prev = {}
    for side in sides:
        before = previous_of(lg, int(side[4:]))
        if before is not None:
            prev[side] = f"sub:{before}"

    def played(me: str) -> int:
        return sum(counts.get((me, o), 0) for o in opponents_all if o != me)

    def versus(me: str) -> int:
        return counts.get((me, prev[me]), 0) if me in prev else 0

    def wanted(me: str) -> list[str]:
        out = [o for o in opponents_all if o != me] if played(me) < target else []
        return out + ([prev[me]] if me in prev and versus(me) < target else [])

    todo = [s for s in sides if wanted(s)]
    if not todo:
        return None
    me = min(todo, key=lambda s: (played(s) + versus(s), int(s[4:])))
    opponents = wanted(me)
    opp = min(opponents, key=lambda o: (counts.get((me, o), 0), opponents.index(o)))
    boards = resolve_board_set(lg.config.board_set, "board_set")
    number = (played(me) + versus(me)) // 2
    return int(me[4:]), opp, boards[(number + int(me[4:])) % len(boards)], number


def previous_of(lg: League, submission_id: int) -> int | None:
    """The id of the same user's latest earlier version that passed its check, if any."""
    sub = lg.submission(submission_id)
    if sub is None:
        return None
    earlier = [s.id for s in lg.submissions(sub.user)
               if s.id < sub.id and s.status in ("rating", "active", "superseded")]
    return earlier[-1] if earlier else None


def versus_previous(lg: League, submission_id: int) -> dict[str, Any] | None:
    """The version's game pairs against its author's previous version: the pentanomial counts,
    the Elo difference with its 95% interval, and an SPRT (H0: Elo <= 0, H1: Elo >= 50);
    None when there is no previous version. Games of a pair share a board and follow each
    other; they are the version's games against that one, in order, per board."""
    from arena.league.standings import GAMES_SCHEMA
    from arena.results.stats import Pentanomial, Sprt, estimate

    prev = previous_of(lg, submission_id)
    if prev is None:
        return None
    lg.conn.executescript(GAMES_SCHEMA)
    me, other = f"sub:{submission_id}", f"sub:{prev}"
    rows = lg.conn.execute(
        "SELECT side_a, board, score_a FROM games WHERE (side_a=? AND side_b=?) OR "
        "(side_a=? AND side_b=?) ORDER BY id", (me, other, other, me)).fetchall()
    by_board: dict[str, list[float]] = {}
    for a, board, score_a in rows:
        by_board.setdefault(board, []).append(score_a if a == me else 1.0 - score_a)
    penta = Pentanomial()
    for scores in by_board.values():
        for i in range(0, len(scores) - 1, 2):
            penta = penta.add_pair(scores[i], scores[i + 1])
    tri = penta.trinomial()
    prev_sub = lg.submission(prev)
    sprt = Sprt(0.0, 50.0)
    state = sprt.state(penta)
    verdict = {"continue": "no decision yet", "H0": "not better (H0 accepted)",
               "H1": "better (H1 accepted)"}[state.result.value]
    return {"previous version": f"v{prev_sub.version}" if prev_sub else str(prev),
            "games": len(rows), "pairs": penta.n,
            "won / drawn / lost": f"{tri.wins} / {tri.draws} / {tri.losses}",
            "pairs (pentanomial)": str(penta), "Elo difference": estimate(penta).describe(),
            "SPRT": f"{verdict}: LLR {state.llr:.2f} (bounds {state.lower:.2f} .. "
                    f"{state.upper:.2f}; H0: Elo <= 0, H1: Elo >= 50)"}


def play_next(directory: Path, referee: Any) -> bool:
    """Play the next rating game pair; False when there is nothing to play."""
    from arena.entrants.specs import parse_spec
    from arena.league.checks import spec_of
    from arena.league.standings import record_game

    lg = League.open(directory)
    try:
        nxt = _next_pair(lg)
        if nxt is None:
            return False
        sid, opp, (M, N, K), number = nxt
        me_spec = parse_spec(spec_of(lg, sid))
        opp_spec = parse_spec(spec_of(lg, int(opp[4:])) if opp.startswith("sub:") else opp)
        labels = {s: _label(lg, s) for s in (f"sub:{sid}", opp)}
    finally:
        lg.conn.close()
    me = f"sub:{sid}"
    for first in (True, False):
        p1, p2 = (me_spec, opp_spec) if first else (opp_spec, me_spec)
        s1, s2 = (me, opp) if first else (opp, me)
        rec = referee.play(p1, p2, M, N, K, seed=1000 * sid + 2 * number + (not first),
                           game_id=f"league-{sid}-{number}-{int(first)}")
        rec = rec.labelled(player1=labels[s1], player2=labels[s2])
        score_a = 1.0 if rec.winner == 1 else 0.0 if rec.winner == 2 else 0.5
        faulted = {1: s1, 2: s2}.get(rec.offender or 0, "") if rec.is_fault else ""
        lg = League.open(directory)
        try:
            gid = record_game(lg, s1, s2, f"{M}x{N}x{K}", score_a, rec.reason.value, faulted)
        finally:
            lg.conn.close()
        _write_record(directory, gid, rec)
    return True


def _label(lg: League, side: str) -> str:
    sub = lg.submission(int(side[4:])) if side.startswith("sub:") else None
    return f"{sub.user} v{sub.version}" if sub else side


class RatingThread:
    """Plays rating game pairs, one at a time, until stopped."""

    def __init__(self, directory: Path, idle_s: float = 1.0) -> None:
        self.dir = Path(directory)
        self.idle_s = idle_s
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="league-games", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from arena.limits import make_limits
        from arena.referee.referee import MatchSettings, Referee

        lg = League.open(self.dir)
        cfg = lg.config
        lg.conn.close()
        settings = MatchSettings(limits=make_limits(cfg.timeout_s, where="league"),
                                 fresh_process=True,
                                 isolation="auto" if cfg.isolation else "none")
        with Referee(settings) as referee:
            while not self._stop.is_set():
                try:
                    busy = play_next(self.dir, referee)
                except Exception:  # a game must never take the server down
                    log.exception("league rating game failed")
                    busy = False
                if not busy:
                    self._stop.wait(self.idle_s)

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=10)
