"""Play similarity in the background of the league's server (issue #41, cost): a low-priority
worker that asks each new version for its moves once (`arena.similarity.answers`), so that the
admin pages show play similarity without anyone running `cxarena league similarity DIR`.

**When.** Only while nothing more urgent runs (`held`): no version is queued or being checked,
and the final round robin is not running. It looks again before every position (a position
is two games of one move, a second or so): a check queued meanwhile waits at most for the
position being asked, and the checks' own workers run it; the final is never waited for (its
process is separate, and the worker stops asking the moment it runs).

**What.** The reference bots first (the band of unrelated pairs, once per league and setup),
then each current version without stored answers, oldest first (`pending`), on every board of
the league (`arena.similarity.answers.league_setups`: one setup per board, the reference bots
on every board first, then each version on every board); a version interrupted (held, or the
server stopped) goes on from its next position.

**How much.** At most the league's `similarity_budget_s` wall seconds of asking per version
(or reference bot), all its sessions and boards together (each of the league's boards gets an
equal share of it, whether its positions are ready yet or not; the first position of a board
is always asked); 0 turns the worker off (the setting may change
while the league runs). The worker stops before a position that would take it past the budget
(by the mean time of the positions asked so far) and marks the version ``partial``: its
positions not asked stay unasked (a pair's share is over the positions both answered) until
`cxarena league similarity DIR` asks them (it has no budget).

**Code.** Before asking, the worker keeps each screened version's code fingerprint and each
pair's code score (`arena.similarity.codestore.step_code`: one version, or about a second of
pairs, a step, whenever nothing more urgent runs, whatever `similarity_budget_s` says: no game
is played), so that the admin page reads them instead of tokenising every upload on every
load.

**Where.** A thread of the server (`SimilarityWorker`, started beside the checks' dispatcher);
the bots run through the referee in the league's sandbox and limits (`answers._settings`), one
at a time, so it takes one core at most.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.similarity.answers import (
    ASKING,
    DONE,
    FAILED,
    PARTIAL,
    Setup,
    Stored,
    Target,
    fill,
    league_boards,
    league_setups,
    load_stored,
    reference_targets,
    version_target,
)
from arena.similarity.codestore import step_code
from arena.similarity.report import POSITIONS, current_versions

__all__ = ["SimilarityWorker", "held", "pending", "pending_all", "step"]

log = logging.getLogger("arena.similarity.background")

#: seconds the worker sleeps when it has nothing to do (or is held)
IDLE_S = 2.0


def held(league: Any) -> str:
    """Why the background must not ask now ("" : it may): checks queued or running, the final
    round robin running, or rating games being played or waiting (it runs between them)."""
    from arena.league.final import final_status  # the final's process
    from arena.league.worker import plan_next  # the rating games' pairing

    checks = league.unchecked_count()
    if checks:
        return f"{checks} check(s) queued or running"
    if final_status(league).state == "running":
        return "the final round robin is running"
    if league.busy_entries():
        return "rating games are being played"
    if not league.frozen and plan_next(league) is not None:
        return "rating games are waiting to be played"
    return ""


def pending(league: Any, setup: Setup) -> list[Target]:
    """What the background asks next, in order: the reference bots, then the current
    versions (oldest first), each without complete stored answers (not ``done``,
    ``partial`` nor ``failed``); one already begun comes first of its kind."""
    refs = reference_targets()
    versions = [version_target(s) for s in sorted(current_versions(league), key=lambda s: s.id)]
    rows = load_stored(league.conn, setup)
    out = []
    for group in (refs, versions):
        todo = [t for t in group if (row := rows.get((t.entry, t.fingerprint))) is None
                or row.state == ASKING]
        todo.sort(key=lambda t: (t.entry, t.fingerprint) not in rows)  # begun first (stable)
        out.extend(todo)
    return out


def pending_all(league: Any, setups: Sequence[Setup]) -> list[tuple[Setup, Target]]:
    """What the background asks next over every setup (board), in order: the reference bots
    on every board, then each version (oldest first) on every board (`pending` of each)."""
    todo = [(setup, t) for setup in setups for t in pending(league, setup)]
    refs = [(s, t) for s, t in todo if t.submission_id is None]
    versions = sorted(((s, t) for s, t in todo if t.submission_id is not None),
                      key=lambda st: st[1].submission_id or 0)  # stable: boards in order
    return refs + versions


def step(league: Any, positions: int = POSITIONS,
         stop: threading.Event | None = None) -> Stored | None:
    """Ask the next pending entry on its board (`pending_all`) within the board's share of the
    league's budget (the budget over the league's boards), unless the budget is 0 or the worker
    is `held`; returns its row as stored (None: nothing was asked)."""
    budget_s = float(league.config.file.similarity_budget_s)
    if budget_s <= 0 or held(league):
        return None
    setups = league_setups(league, positions)
    if not setups:
        return None
    todo = pending_all(league, setups)
    if not todo:
        return None
    setup, target = todo[0]
    # each board's share is over all the league's boards: it stays the same as boards whose
    # positions come from games get them
    boards = len(league_boards(league.config) or setups)
    rows = fill(league, setup, [target], budget_s=budget_s / boards,
                held=lambda: bool(held(league)), stop=stop)
    row = rows.get(target.entry)
    if row is not None and row.state in (DONE, PARTIAL, FAILED):
        M, N, K = setup.board
        log.info("similarity: %s on %dx%dx%d %s (%d positions asked, %.1f s)%s", target.label,
                 M, N, K, row.state, row.asked, row.spent_s,
                 f": {row.note}" if row.note else "")
    return row


class SimilarityWorker:
    """The background worker of the league's server: a thread that runs `step` until stopped,
    sleeping `idle_s` when nothing was asked."""

    def __init__(self, directory: Path, idle_s: float = IDLE_S,
                 positions: int = POSITIONS) -> None:
        self.dir = Path(directory)
        self.idle_s = idle_s
        self.positions = positions
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="league-similarity",
                                       daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from arena.league.db import League  # the league, in this thread's connection

        while not self._stop.is_set():
            asked = None
            coded = ""
            try:
                lg = League.open(self.dir)
                try:
                    try:  # code first: a version's fingerprint, or a pair's score
                        coded = "" if held(lg) else step_code(lg)
                    except Exception:  # never in the way of the asking
                        log.exception("similarity: keeping code fingerprints failed")
                    if coded:
                        log.info("similarity: %s", coded)
                        continue
                    asked = step(lg, self.positions, self._stop)
                finally:
                    lg.conn.close()
            except Exception:  # the background must never take the server down
                log.exception("similarity in the background failed")
            if asked is None or asked.state == ASKING:  # nothing to do, or held
                self._stop.wait(self.idle_s)

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        self.thread.join(timeout=timeout_s)
