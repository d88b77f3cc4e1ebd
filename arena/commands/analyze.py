"""`cxarena analyze RESULTS GAME_ID [--time-per-position S]`: the value of every position of a
stored game and the verdict on every move (arena.analysis); the analysis is stored next to the
games (analysis.json), so the report shows it."""

from __future__ import annotations

import argparse
import sys

from arena.analysis.engine import BUDGET_S

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
    oracle = analysis_oracle(rec.M, rec.N, rec.K)
    analysis = analyse_game(oracle, rec.M, rec.N, rec.K, rec.moves, budget_s,
                            opening=len(rec.opening))
    store = AnalysisStore(folder)
    store.put(game_id, analysis)
    store.save()
    return render_analysis(analysis, (game.player1, game.player2))


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(analyse_stored(args.results, args.game_id, args.time_per_position))
    return 0
