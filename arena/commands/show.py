"""`cxarena show RESULTS GAME_ID [--step]`: print one stored game (see arena.report.show)."""

from __future__ import annotations

import argparse
import difflib
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


def run(args: argparse.Namespace) -> int:
    from arena.errors import UsageError
    from arena.report.data import find_db
    from arena.report.show import render_game
    from arena.results.store import ResultStore

    db = find_db(args.results)
    with ResultStore(db, create=False) as store:
        game = store.game(args.game_id)
        if game is None:
            ids = sorted(store.done_ids())
            close = difflib.get_close_matches(args.game_id, ids, n=3, cutoff=0.6)
            hint = (f"did you mean {', '.join(close)}?" if close else
                    f"{len(ids)} games are stored; list their ids with "
                    f"`cxarena report {args.results} --json`")
            raise UsageError(f"{args.results}: no game {args.game_id!r}; {hint}")
    sys.stdout.write(render_game(game, step=args.step))
    return 0
