"""`cxarena show RESULTS GAME_ID [--step]`: print one stored game (see arena.report.show)."""

from __future__ import annotations

import argparse
import sys

HELP = ("print one stored game: the final board with move numbers (or every position with "
        "--step), who won and why, the times")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="RESULTS",
                        help="a tournament's results directory (results/<name>)")
    parser.add_argument("game_id", metavar="GAME_ID",
                        help="the game's id, e.g. 6x7x4-r1-L0-L1 (listed by "
                             "`cxarena report RESULTS --json` and in report.html)")
    parser.add_argument("--step", action="store_true",
                        help="print the position after every move instead of the final board")
    parser.add_argument("--analyze", action="store_true",
                        help="also analyse the game with the exact solver (as `cxarena "
                             "analyze`): each position's value, each move's verdict")
    from arena.commands.analyze import add_budget

    add_budget(parser)


def run(args: argparse.Namespace) -> int:
    from arena.commands import stored_game
    from arena.report.show import render_game

    game, _ = stored_game(args.results, args.game_id)
    sys.stdout.write(render_game(game, step=args.step))
    if args.analyze:
        from arena.commands.analyze import analyse_stored

        sys.stdout.write("\n" + analyse_stored(args.results, args.game_id,
                                                args.time_per_position))
    return 0
