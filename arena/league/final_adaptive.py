"""The league's final as an adaptive final (`arena.competition.adaptive_final`): the final's
tournament (`arena.league.final.final_config`) played in steps, each step the games the policy
names, until the ranking is decided.

`run_adaptive_final` reads the final's stored games (its results folder's ``games.sqlite``, so
a final stopped at any moment resumes where it was), asks the policy for the next games, maps
each to a game of the full round robin's schedule not yet played (same first player, second
player and board; the lowest round first), and hands their ids to `play` (the caller runs them
as the tournament does, `run_tournament(..., only=ids)`). When the policy says it is over, the
ranking and how it was decided are written beside the standings (`ADAPTIVE_MD`,
`ADAPTIVE_JSON`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from arena.competition.adaptive_final import AdaptiveFinal, FinalGame, Goal, Step, Tally
from arena.competition.jobs import GameJob
from arena.records import record_label
from arena.results import ADAPTIVE_JSON, ADAPTIVE_MD
from arena.results.store import DB_FILE, ResultStore

__all__ = ["ADAPTIVE_JSON", "ADAPTIVE_MD", "choose_jobs", "run_adaptive_final", "tally_of"]



def _board(job: GameJob) -> str:
    return record_label(job.rules)


def tally_of(results: Path, schedule: Sequence[GameJob], entries: Sequence[str]) -> Tally:
    """The stored games of `schedule` in `results` as the policy reads them (a game's score:
    1 the first player won, 0 the second, 1/2 a draw)."""
    boards = list(dict.fromkeys(_board(j) for j in schedule))
    by_id = {j.game_id: j for j in schedule}
    played: list[tuple[str, str, str, float]] = []
    path = Path(results) / DB_FILE
    if path.exists():
        with ResultStore(path, create=False) as store:
            for g in store.games():
                job = by_id.get(g.game_id)
                if job is None:
                    continue
                winner = g.record.winner
                played.append((job.p1, job.p2, _board(job),
                               0.5 if winner is None else 1.0 if winner == 1 else 0.0))
    return Tally(entries, boards, played)


def choose_jobs(schedule: Sequence[GameJob], done: Iterable[str],
                games: Iterable[FinalGame]) -> list[str]:
    """The ids of the schedule's games for `games`: for each, an unplayed game of the same
    first player, second player and board, the lowest round first."""
    free: dict[tuple[str, str, str], list[GameJob]] = {}
    done = set(done)
    for job in sorted(schedule, key=lambda j: (j.round, j.game_id)):
        if job.game_id not in done:
            free.setdefault((job.p1, job.p2, _board(job)), []).append(job)
    out = []
    for g in games:
        jobs = free.get((g.first, g.second, g.board))
        if jobs:
            out.append(jobs.pop(0).game_id)
    return out


def run_adaptive_final(schedule: Sequence[GameJob], entries: Sequence[str], results: Path,
                       goal: Goal, play: Callable[[frozenset[str]], None],
                       say: Callable[[str], None] | None = None) -> Step:
    """Play the adaptive final (see the module's docstring); returns the policy's last step."""
    policy = AdaptiveFinal(goal)
    while True:
        tally = tally_of(results, schedule, entries)
        step = policy.step(tally)
        if step.over:
            _write(results, policy, tally, step)
            return step
        done = _done(results)
        ids = choose_jobs(schedule, done, step.games)
        if not ids:  # the schedule has none of them left: the policy cannot go on
            _write(results, policy, tally, step)
            return step
        if say:
            say(f"adaptive final: {tally.games} of {policy.full_games(tally)} games played, "
                f"{len(ids)} more ({step.why})")
        play(frozenset(ids))
        if set(ids) - _done(results) == set(ids):  # none was stored: stop, not loop
            _write(results, policy, tally, step)
            return step


def _done(results: Path) -> set[str]:
    path = Path(results) / DB_FILE
    if not path.exists():
        return set()
    with ResultStore(path, create=False) as store:
        return store.done_ids()


def _write(results: Path, policy: AdaptiveFinal, tally: Tally, step: Step) -> None:
    """The ranking and how it was decided, beside the standings."""
    goal = policy.goal
    full = policy.full_games(tally)
    what = ("the full order" if goal.top_k is None else f"the top {goal.top_k}")
    lines = ["# The adaptive final's ranking\n",
             f"Decided: {what} at confidence {goal.confidence}, within "
             f"{100 * goal.max_fraction:.0f} % of the full round robin's games; it ended: "
             f"{step.why}, after {tally.games} of {full} games "
             f"({100 * tally.games / max(1, full):.1f} %). {step.ranking.text()}.\n",
             "| place | entry | expected points at the full round robin | points so far |",
             "|---:|---|---:|---:|"]
    points = tally.points()
    lines += [f"| {i + 1} | {e} | {x:.1f} | {points[e]:g} |"
              for i, (e, x) in enumerate(zip(step.ranking.order, step.ranking.expected,
                                              strict=True))]
    data = {"goal": {"confidence": goal.confidence, "top_k": goal.top_k,
                     "max_fraction": goal.max_fraction},
            "ended": step.why, "games": tally.games, "full_games": full,
            "order": list(step.ranking.order), "expected": list(step.ranking.expected),
            "pairs": list(step.ranking.pairs), "ties": [list(t) for t in step.ranking.ties()]}
    folder = Path(results)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in ((ADAPTIVE_MD, "\n".join(lines) + "\n"),
                       (ADAPTIVE_JSON, json.dumps(data, indent=1))):
        tmp = folder / (name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, folder / name)
