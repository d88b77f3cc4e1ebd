"""`cxarena similarity SPEC SPEC... [--known DIR] [--csv]`: who copied whom, for the person
running a tournament or a league (arena.similarity): code similarity (token winnowing that
survives renaming, layout, comments and reordering) and play similarity (the share of
identical moves on a published position set, against the band of unrelated built-in pairs)
of every pair, flagged pairs first with both scores.

`--known DIR` compares each SPEC with every bot of DIR (each file or folder: earlier years,
public repositories). `--league DIR` takes a league's current submissions as the SPECs (what
`cxarena league similarity DIR` will print once the league's command offers it). A flag asks
for a conversation, not a verdict (docs/league.md).
"""

from __future__ import annotations

import argparse
import sys

from arena.errors import UsageError
from arena.referee.sandbox import MODES

HELP = "compare bots by code and by play: flag pairs that look copied (for the teacher)"

__all__ = ["HELP", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="*", metavar="SPEC", help="bots to compare (two or more, "
                        "or one with --known)")
    parser.add_argument("--known", metavar="DIR", default=None,
                        help="a folder of known bots (each file or folder one bot) to compare "
                             "every SPEC with")
    parser.add_argument("--league", metavar="DIR", default=None,
                        help="compare a league's current submissions (each user's current "
                             "version)")
    parser.add_argument("--csv", action="store_true", help="print CSV instead of words")
    parser.add_argument("--no-play", action="store_true",
                        help="code similarity only (no bot is run)")
    parser.add_argument("--board", nargs=3, type=int, default=[6, 7, 4], metavar=("M", "N", "K"),
                        help="the board of the play positions (default 6 7 4; needs a "
                             "published set in arena/data)")
    parser.add_argument("--board-set", metavar="NAME", default=None,
                        help="ask on every board of this set (the project's boards.yaml, "
                             "or FILE.yaml[:NAME]) that has a published set of positions, "
                             "as a league on them does; "
                             "instead of --board")
    parser.add_argument("--positions", type=int, default=None, metavar="P",
                        help="positions asked (default 60; the set has 120)")
    parser.add_argument("--time", type=float, default=None, metavar="T",
                        help="time per move in seconds (default 0.1; Java bots: whole "
                             "seconds, at least 1)")
    parser.add_argument("--isolation", choices=MODES, default=None,
                        help="sandbox the bots as games do (default: as a match)")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arena.similarity.league import league_similarity
    from arena.similarity.play import MOVE_TIME_S
    from arena.similarity.report import POSITIONS, compare

    positions = POSITIONS if args.positions is None else args.positions
    if positions < 1:
        raise UsageError(f"--positions must be at least 1, got {positions}")
    if args.time is not None and not args.time > 0:
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.known is not None and not Path(args.known).is_dir():
        raise UsageError(f"--known {args.known}: no such folder")
    progress = None if args.csv else (lambda s: print(f"asked: {s}", file=sys.stderr,
                                                      flush=True))
    if args.league is not None:
        if args.specs:
            raise UsageError("--league DIR takes the league's submissions: give no SPEC")
        from arena.league.db import League, LeagueError

        try:
            league = League.open(Path(args.league))
        except (OSError, LeagueError) as e:
            raise UsageError(f"--league {args.league}: {e}") from None
        report = league_similarity(league, args.known, play=not args.no_play,
                                   positions=positions, time_s=args.time, progress=progress)
    else:
        if len(args.specs) < 2 and not (args.specs and args.known):
            raise UsageError("give two SPECs or more, or one SPEC with --known DIR")
        boards = None
        if args.board_set is not None:
            from arena.tournament.config import resolve_board_set

            boards = resolve_board_set(args.board_set)
        report = compare(args.specs, args.known, play=not args.no_play,
                         board=(args.board[0], args.board[1], args.board[2]),
                         boards=boards, positions=positions,
                         time_s=MOVE_TIME_S if args.time is None else args.time,
                         isolation=args.isolation, progress=progress)
    if args.csv:
        sys.stdout.write(report.csv())
    else:
        print("\n".join(report.lines()))
    return 0
