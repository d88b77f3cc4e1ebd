"""`cxarena play SPEC --board M N K [--time T] [--second]`: play a bot yourself, in the terminal.

The bot runs as in a tournament (its own process under the referee, its time limit enforced, its
faults reported); you have no time limit. Every game is stored in --results (default
results/play), so `cxarena report results/play` and the HTML report show it.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from arena import defaults
from arena.errors import UsageError

HELP = "play a bot yourself in the terminal (each game is stored in results/play)"

__all__ = ["HELP", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC",
                        help="the bot to play (a SPEC as in `cxarena match`, e.g. alphabeta)")
    parser.add_argument("--board", nargs=3, type=int, metavar=("M", "N", "K"), required=True,
                        help="rows, columns, pieces in a row to win (e.g. 6 7 4)")
    parser.add_argument("--time", type=float, default=defaults.TIMEOUT_S, metavar="T",
                        help="the bot's time limit per move and for initPlayer, in seconds "
                             "(default %(default)g); you have none")
    parser.add_argument("--second", action="store_true", help="let the bot move first")
    parser.add_argument("--results", default=None, metavar="DIR",
                        help="store the games here (default results/play)")
    parser.add_argument("--no-store", action="store_true", help="do not store the games")
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_LIMIT_MB, metavar="MB",
                        help="the bot's memory limit in MiB, 0 for none (default %(default)d)")


def run(args: argparse.Namespace) -> int:
    from arena.entrants.probe import check_loadable
    from arena.entrants.specs import SpecError, parse_spec
    from arena.play.session import DEFAULT_RESULTS, Entrant, GameSetup
    from arena.play.terminal import play_games

    M, N, K = args.board
    if not (math.isfinite(args.time) and args.time > 0):
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.memory_mb and args.memory_mb < defaults.MIN_MEMORY_MB:
        raise UsageError(f"--memory-mb must be 0 (no limit) or at least "
                         f"{defaults.MIN_MEMORY_MB}, got {args.memory_mb}")
    try:
        setup = GameSetup(M, N, K, timeout_s=args.time, human_first=not args.second,
                          memory_limit_mb=args.memory_mb or None)
    except ValueError as e:
        raise UsageError(f"--board {M} {N} {K} --time {args.time:g}: {e}") from None
    spec = parse_spec(args.spec)  # SpecError: one line, exit 2
    failed = check_loadable([spec])
    if failed:
        raise SpecError(next(iter(failed.values())))
    results = None if args.no_store else Path(args.results) if args.results else DEFAULT_RESULTS
    play_games(Entrant(args.spec, spec), setup, results)
    return 0
