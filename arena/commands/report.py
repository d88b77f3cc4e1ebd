"""`cxarena report DIR`: the standings of a tournament again, recomputed from its stored games
(or, with --json, every stored game record as one JSON object per line)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "print a tournament's standings (or its game records with --json) from results/<name>"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="DIR",
                        help="a tournament's results directory (results/<name>)")
    parser.add_argument("--json", action="store_true",
                        help="print every stored game record, one JSON object per line "
                             "(the fields of `cxarena match --json`)")
    parser.add_argument("--csv", action="store_true",
                        help="print the ranking as CSV (the columns of standings.csv)")


def run(args: argparse.Namespace) -> int:
    from arena.errors import UsageError
    from arena.tournament.run import code_section, read_standings
    from arena.tournament.store import DB_FILE, ResultStore

    where = Path(args.results)
    db = where / DB_FILE if where.is_dir() else where
    if not db.is_file():
        raise UsageError(f"{args.results}: no tournament results here (no {DB_FILE}); "
                         f"run `cxarena tournament CONFIG` first")
    with ResultStore(db, create=False) as store:
        if args.json:
            for g in store.games():
                sys.stdout.write(g.record.to_json() + "\n")
            return 0
        standings, meta = read_standings(store)
        code = code_section(store)
    if args.csv:
        sys.stdout.write(standings.to_csv())
        return 0
    name = meta.get("name", where.name)
    md = standings.to_markdown(title=f"Standings: {name}", expected_games=meta.get("games"))
    print(md + code)
    return 0
