"""Analysing every game of a results folder whose board the exact solver covers, in a process
pool after the games (`cxarena report --analyze`, `cxarena tournament ... --analyze`), and the
blunders per bot per game, per board, for the report.

The oracle factory (``(M, N, K) -> Oracle``, the command layer's `analysis_oracle`) must be a
module-level function, so the pool's processes can receive it; each process makes one oracle per
board size and keeps it (its solver's table) for the games it analyses.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from arena.analysis.engine import GameAnalysis, Oracle, analyse_game
from arena.analysis.store import AnalysisStore
from arena.games.connectx.record import board_and_columns
from arena.records import StoredGame

__all__ = ["BlunderRow", "analyse_folder", "blunder_rows", "blunders_markdown", "covered"]

OracleFactory = Callable[[int, int, int], Oracle]
#: the largest board the exact solver covers (cells; the solver's own limit)
MAX_CELLS = 64

_oracles: dict[tuple[int, int, int], Oracle] = {}


def covered(M: int, N: int) -> bool:
    """Whether the exact solver covers an M x N board (games on larger boards are skipped by
    the batch analysis; `cxarena analyze` still gives them estimates)."""
    return M * N <= MAX_CELLS


def _analyse(job: tuple[OracleFactory, str, int, int, int, tuple[int, ...], int, float]
             ) -> tuple[str, GameAnalysis]:
    factory, game_id, M, N, K, moves, opening, budget_s = job
    oracle = _oracles.get((M, N, K))
    if oracle is None:
        oracle = _oracles[(M, N, K)] = factory(M, N, K)
    return game_id, analyse_game(oracle, M, N, K, moves, budget_s, opening=opening)


def analyse_folder(folder: str | Path, games: Iterable[StoredGame], factory: OracleFactory,
                   budget_s: float, workers: int | None = None, redo: bool = False,
                   progress: Callable[[int, int], None] | None = None) -> tuple[int, int]:
    """Analyse the covered games of `folder` not analysed yet (all with `redo`) in `workers`
    processes (default: the CPU count), saving after each game. Returns (analysed now,
    skipped because the board is too large)."""
    store = AnalysisStore(folder)
    done = store.ids()
    jobs, skipped = [], 0
    for g in games:
        rec = g.record
        cx = board_and_columns(rec)
        if cx is None or not covered(cx[0], cx[1]):
            skipped += 1
            continue
        if g.game_id in done and not redo:
            continue
        M, N, K, columns = cx
        jobs.append((factory, g.game_id, M, N, K, columns, len(rec.opening_moves), budget_s))
    jobs.sort(key=lambda j: (j[2], j[3], j[4]))  # one board after the other: tables reused
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs) or 1))
    count = 0
    if workers == 1:
        results: Iterable[tuple[str, GameAnalysis]] = map(_analyse, jobs)
        for game_id, a in results:
            store.put(game_id, a)
            store.save()
            count += 1
            if progress:
                progress(count, len(jobs))
        return count, skipped
    with ProcessPoolExecutor(workers) as pool:
        for game_id, a in pool.map(_analyse, jobs, chunksize=1):
            store.put(game_id, a)
            store.save()
            count += 1
            if progress:
                progress(count, len(jobs))
    return count, skipped


@dataclass(frozen=True)
class BlunderRow:
    """One bot on one board: games analysed, its blunders, blunders per game."""

    player: str
    board: str
    games: int
    blunders: int

    @property
    def per_game(self) -> float:
        return self.blunders / self.games if self.games else 0.0


def blunder_rows(games: Iterable[StoredGame], analyses: dict[str, GameAnalysis]
                 ) -> list[BlunderRow]:
    """Blunders per bot per board over the analysed games (opening moves excluded)."""
    acc: dict[tuple[str, str], list[int]] = {}
    for g in games:
        a = analyses.get(g.game_id)
        if a is None:
            continue
        board = f"{a.M}x{a.N}x{a.K}"
        for side, name in ((1, g.player1), (2, g.player2)):
            cell = acc.setdefault((name, board), [0, 0])
            cell[0] += 1
            cell[1] += len(a.blunders(side))
    return [BlunderRow(p, b, n, k) for (p, b), (n, k) in sorted(acc.items())]


def blunders_markdown(rows: list[BlunderRow]) -> str:
    if not rows:
        return "No game analysed yet (`cxarena report DIR --analyze`).\n"
    lines = ["| bot | board | games analysed | blunders | blunders per game |",
             "|---|---|---|---|---|"]
    lines += [f"| {r.player} | {r.board} | {r.games} | {r.blunders} | {r.per_game:.2f} |"
              for r in rows]
    return "\n".join(lines) + "\n"
