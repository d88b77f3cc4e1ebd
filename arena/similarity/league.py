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
    the league's first board with a published position set, in the league's sandbox). For the
    admin page: `SimilarityReport.pairs`, flagged first; `.lines()`, `.csv()`."""
    # the league's files, only when asked (and the league's modules are at this layer)
    from arena.league.checks import spec_of
    from arena.similarity.answers import (  # the answers kept per version
        fill,
        league_board,
        league_setup,
        league_time,
        reference_targets,
        version_target,
    )

    subs = current_versions(league)
    cfg = league.config
    specs = [spec_of(league, s.id) for s in subs]
    labels = [f"{s.user} v{s.version}" for s in subs]
    board = league_board(cfg)  # None: another game's league (code only)
    isolation = "auto" if cfg.isolation else "none"
    t = time_s if time_s is not None else league_time(cfg)
    given: dict[str, Answers] = {}
    setup = league_setup(league, positions, t) if play else None
    if setup is not None:  # what is stored is not asked again; what is asked is stored
        refs = reference_targets()
        targets = refs + [version_target(s) for s in subs]
        rows = fill(league, setup, targets, progress=progress)
        n = len(setup.positions)
        for target, spec in zip(targets, [r.entry for r in refs] + specs, strict=True):
            row = rows.get(target.entry)
            if row is not None and row.usable:
                given[spec] = row.answers(spec, n)
    report = compare(specs, known, labels=labels, play=play and board is not None,
                     board=board or (6, 7, 4), positions=positions, time_s=t,
                     isolation=isolation, progress=progress, given=given)
    report.ids = {label: s.id for label, s in zip(labels, subs, strict=True)}
    return report
