"""`cxarena show RESULTS GAME_ID [--step]`: print one stored game (see arena.report.show)."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.records import StoredGame

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


def stored_game(results: str, game_id: str) -> tuple[StoredGame, Path]:
    """The stored game `game_id` of a results folder, and the folder; UsageError with the
    closest ids if there is no such game."""
    from arena.errors import UsageError
    from arena.report.data import find_db
    from arena.results.store import ResultStore

    db = find_db(results)
    with ResultStore(db, create=False) as store:
        game = store.game(game_id)
        if game is None:
            ids = sorted(store.done_ids())
            close = difflib.get_close_matches(game_id, ids, n=3, cutoff=0.6)
            hint = (f"did you mean {', '.join(close)}?" if close else
                    f"{len(ids)} games are stored; list their ids with "
                    f"`cxarena report {results} --json`")
            raise UsageError(f"{results}: no game {game_id!r}; {hint}")
    return game, db.parent


def run(args: argparse.Namespace) -> int:
    from arena.report.show import render_game

    game, _ = stored_game(args.results, args.game_id)
    sys.stdout.write(render_game(game, step=args.step))
    if args.analyze:
        from arena.commands.analyze import analyse_stored

        sys.stdout.write("\n" + analyse_stored(args.results, args.game_id,
                                                args.time_per_position))
    return 0
