"""`cxarena analyze RESULTS GAME_ID [--time-per-position S]`: the value of every position of a
stored game and the verdict on every move (arena.analysis); the analysis is stored next to the
games (analysis.json), so the report shows it."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from arena.analysis.engine import BUDGET_S
from arena.games.connectx.record import board_and_columns

HELP = ("analyse a stored game with the exact solver: the value of every position, each "
        "move's verdict (best, inaccuracy, blunder and the moves that kept the value)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="RESULTS",
                        help="a tournament's results directory (results/<name>)")
    parser.add_argument("game_id", metavar="GAME_ID", help="the game's id, e.g. 6x7x4-r1-L0-L1")
    add_budget(parser)


def add_budget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--time-per-position", type=float, default=BUDGET_S, metavar="S",
                        help=f"CPU seconds the solver may spend on one position before an "
                             f"estimate is given instead (default {BUDGET_S:g})")


def progress_line(label: str, every_s: float = 1.0) -> Callable[[int, int], None]:
    """A progress callback for `analyse_game` that writes "analysing LABEL: 40/251 steps (15 %)"
    to stderr at most every `every_s` seconds (in place on a terminal, a line each elsewhere)
    and once at the end."""
    last = [time.monotonic()]
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < every_s:
            return
        last[0] = now
        text = f"analysing {label}: {done}/{total} steps ({100 * done // max(1, total)} %)"
        sys.stderr.write(f"\r{text}" + ("\n" if done >= total else "") if tty else text + "\n")
        sys.stderr.flush()
    return show


def analyse_stored(results: str, game_id: str, budget_s: float) -> str:
    """Analyse one stored game, store the analysis, return it as text (used by `show`)."""
    from arena.analysis.engine import analyse_game
    from arena.analysis.render import render_analysis
    from arena.analysis.store import AnalysisStore
    from arena.commands import analysis_oracle, stored_game
    from arena.errors import UsageError

    if not budget_s > 0:
        raise UsageError(f"--time-per-position {budget_s}: must be a positive number of seconds")
    game, folder = stored_game(results, game_id)
    rec = game.record
    cx = board_and_columns(rec)
    if cx is None:
        raise UsageError(f"game {game_id} is a game of {rec.game}: the analysis knows "
                         f"Connect-X only")
    M, N, K, columns = cx
    oracle = analysis_oracle(M, N, K)
    analysis = analyse_game(oracle, M, N, K, columns, budget_s,
                            opening=len(rec.opening_moves), progress=progress_line(game_id))
    store = AnalysisStore(folder)
    store.put(game_id, analysis)
    store.save()
    return render_analysis(analysis, (game.player1, game.player2))


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(analyse_stored(args.results, args.game_id, args.time_per_position))
    return 0
