"""`cxarena openings`: make an opening suite from a seed (and write it), or check a suite file.

    cxarena openings --board 6 7 4 --count 20 --plies 2 --seed 1 -o openings-6x7x4.txt
    cxarena openings --board-set competition --count 8 -o openings/     # one file per board
    cxarena openings --board 6 7 4 --read openings-6x7x4.txt            # check and list

The suite and the file format are described in `arena.competition.openings`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.errors import UsageError

HELP = "make an opening suite for a board (or a board set) from a seed, or check a suite file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--board", nargs=3, type=int, metavar=("M", "N", "K"),
                       help="rows, columns, pieces in a row to win")
    where.add_argument("--board-set", metavar="NAME",
                       help="every board of a set of the project's boards.yaml (e.g. "
                            "competition), or of a file: FILE.yaml[:NAME]")
    parser.add_argument("--count", type=int, default=20, metavar="C",
                        help="openings per board (default %(default)d)")
    parser.add_argument("--plies", type=int, default=None, metavar="P",
                        help="moves per opening (default 2)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="suite seed (default %(default)d)")
    parser.add_argument("-o", "--output", metavar="PATH", default=None,
                        help="write the suite here (with --board-set: a directory, one "
                             "MxNxK.txt file per board); default: print it")
    parser.add_argument("--read", metavar="FILE", default=None,
                        help="check FILE as a suite for --board and print it")


def run(args: argparse.Namespace) -> int:
    from arena.commands import checked_board, opening_judge
    from arena.competition.openings import (
        DEFAULT_PLIES,
        format_suite,
        make_suite,
        read_suite,
    )
    from arena.tournament.config import resolve_board_set

    if args.board is not None:
        boards = [checked_board(args.board)]
    else:
        boards = list(resolve_board_set(args.board_set))
    if args.read is not None:
        if args.board is None:
            raise UsageError("--read checks a file for one board: give --board M N K")
        suite = read_suite(args.read, *boards[0])
        print(format_suite(suite), end="")
        print(f"{args.read}: {len(suite.openings)} openings, {suite.distinct} distinct, all "
              f"legal and open on {boards[0][0]}x{boards[0][1]} K={boards[0][2]}", file=sys.stderr)
        return 0
    if args.count < 1:
        raise UsageError(f"--count must be at least 1, got {args.count}")
    plies = DEFAULT_PLIES if args.plies is None else args.plies
    if plies < 0:
        raise UsageError(f"--plies must be >= 0, got {plies}")
    out = None if args.output is None else Path(args.output)
    if out is not None and len(boards) > 1:
        if out.exists() and not out.is_dir():
            raise UsageError(f"-o {out}: with --board-set this must be a directory")
        out.mkdir(parents=True, exist_ok=True)
    for M, N, K in boards:
        if plies >= M * N:
            raise UsageError(f"--plies {plies}: does not fit on a {M}x{N} board")
        suite = make_suite(M, N, K, args.count, opening_judge(), plies=plies, seed=args.seed)
        text = format_suite(suite)
        note = (f"{M}x{N} K={K}: {suite.distinct} distinct openings of {plies} plies "
                f"({suite.rejected} candidates rejected: a side already lost)")
        if suite.distinct < args.count:
            note += f"; only {suite.distinct} distinct exist up to mirror images"
        if out is None:
            print(text, end="")
        else:
            path = out / f"{M}x{N}x{K}.txt" if len(boards) > 1 else out
            path.write_text(text, encoding="utf-8")
            note += f" -> {path}"
        print(note, file=sys.stderr)
    return 0
