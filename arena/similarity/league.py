"""Both similarities of a league's current versions (`league_similarity`): code similarity
compared afresh, play similarity from the answers kept per version (`arena.similarity.answers`),
asking only what is missing. What `cxarena league similarity DIR` and the admin page run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.similarity.play import Answers
from arena.similarity.report import POSITIONS, SimilarityReport, compare, current_versions

__all__ = ["league_similarity"]


def league_similarity(league: Any, known: str | Path | None = None, *, play: bool = True,
                      positions: int = POSITIONS, time_s: float | None = None,
                      progress: Callable[[str], None] | None = None) -> SimilarityReport:
    """Both similarities of the league's current submissions (each user's current version,
    its files unpacked by `arena.league.checks.materialise`, played by its `spec_of`), with
    the known bots of `known` if given, at the league's time per move unless `time_s` (play on
    every board of the league with positions, `arena.similarity.answers.league_setups`: its
    published set, else its own games; in the league's sandbox). For the admin page:
    `SimilarityReport.pairs`, flagged first; `.lines()`, `.csv()`."""
    # the league's files, only when asked (and the league's modules are at this layer)
    from arena.league.checks import spec_of
    from arena.similarity.answers import (  # the answers kept per version
        fill,
        league_board,
        league_boards,
        league_setups,
        league_time,
        load_stored,
        reference_targets,
        setups_answers,
        version_target,
    )

    subs = current_versions(league)
    cfg = league.config
    specs = [spec_of(league, s.id) for s in subs]
    labels = [f"{s.user} v{s.version}" for s in subs]
    board = league_board(cfg)  # None: another game's league (code only)
    isolation = "auto" if cfg.sandboxed else "none"
    t = time_s if time_s is not None else league_time(cfg)
    given: dict[str, Answers] = {}
    setups = league_setups(league, positions, t) if play else []
    notes = []
    if setups:  # what is stored is not asked again; what is asked is stored
        refs = reference_targets()
        targets = refs + [version_target(s) for s in subs]
        for setup in setups:
            fill(league, setup, targets, progress=progress)
        rows = [load_stored(league.conn, setup) for setup in setups]
        for target, spec in zip(targets, [r.entry for r in refs] + specs, strict=True):
            got = setups_answers(rows, setups, target, spec)
            if got is not None:
                given[spec] = got
        asked = {s.board for s in setups}
        waiting = [b for b in league_boards(cfg) or [] if b not in asked]
        if waiting:
            notes.append("play: not yet on " + ", ".join("x".join(map(str, b)) for b in waiting)
                         + " (no published positions, and too few of the league's games yet)")
    chosen = tuple(p for setup in setups for p in setup.positions)
    report = compare(specs, known, labels=labels, play=play and bool(setups),
                     board=setups[0].board if setups else (board or (6, 7, 4)),
                     positions=len(chosen), time_s=t, isolation=isolation, progress=progress,
                     given=given, position_set=chosen if setups else None)
    report.notes.extend(notes)
    if play and board is not None and not setups:
        report.notes.append("play: no board of the league has positions yet (no published "
                            "set, too few games)")
    report.ids = {label: s.id for label, s in zip(labels, subs, strict=True)}
    from arena.similarity.games import game_notes  # the moves of the league's own games

    report.notes.extend(game_notes(league))
    return report
