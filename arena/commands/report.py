"""`cxarena report DIR`: the standings of a tournament again, recomputed from its stored games
(or, with --json, every stored game record as one JSON object per line, each with its
`game_id`; with --html, the self-contained HTML report of arena.report.html)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HELP = ("print a tournament's standings (or its game records with --json, or write the HTML "
        "report with --html) from results/<name>")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", metavar="DIR",
                        help="a tournament's results directory (results/<name>)")
    parser.add_argument("--json", action="store_true",
                        help="print every stored game record, one JSON object per line "
                             "(game_id, then the fields of `cxarena match --json`)")
    parser.add_argument("--csv", action="store_true",
                        help="print the ranking as CSV (the columns of standings.csv)")
    parser.add_argument("--html", nargs="?", const="", default=None, metavar="FILE",
                        help="write the HTML report (standings, plots, faults, every game "
                             "replayable; one file, opens from disk) to FILE (default "
                             "DIR/report.html)")
    parser.add_argument("--analyze", action="store_true",
                        help="first analyse every game whose board the exact solver covers "
                             "(not analysed yet) in a process pool, print the blunders per "
                             "bot per game and board, and write the HTML report again (DIR/"
                             "report.html, or --html FILE), which then shows the analyses")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="processes for --analyze (default: the CPU count)")
    from arena.commands.analyze import add_budget

    add_budget(parser)


def run(args: argparse.Namespace) -> int:
    from arena.errors import UsageError
    from arena.report.data import find_db
    from arena.results.folder import code_section, read_standings
    from arena.results.store import ResultStore
    from arena.tournament.run import forfeit_section

    where = Path(args.results)
    db = find_db(where)
    if args.analyze:
        from arena.commands import analyse_results

        print(analyse_results(where, args.time_per_position, args.workers))
        if args.html is None:  # the report shows the analyses: write it again
            args.html = ""
    if args.html is not None:
        from arena.report.html import write_report

        out = Path(args.html) if args.html else None
        if out is not None and out.is_dir():
            raise UsageError(f"--html {args.html}: is a directory; name the file to write")
        if out is not None and not out.parent.is_dir():
            raise UsageError(f"--html {args.html}: no directory {out.parent}")
        print(f"report: {write_report(db, out)}")
        return 0
    with ResultStore(db, create=False) as store:
        if args.json:
            stale = stale_players(store, json.loads(store.get_meta("config") or "{}"))
            if stale:
                print(stale_warning(stale, where), file=sys.stderr)
            for g in store.games():
                sys.stdout.write(json.dumps({"game_id": g.game_id, **g.record.to_dict()})
                                 + "\n")
            return 0
        standings, meta = read_standings(store)
        code = forfeit_section(store) + code_section(store)
        stale = stale_players(store, meta)
    if args.csv:
        sys.stdout.write(standings.to_csv())
        if stale:
            print(stale_warning(stale, where), file=sys.stderr)
        return 0
    name = meta.get("name", where.name)
    md = standings.to_markdown(title=f"Standings: {name}", expected_games=meta.get("games"))
    print(md + code)
    if stale:
        print(stale_warning(stale, where))
    return 0


def stale_players(store: Any, meta: dict[str, Any]) -> dict[str, str]:
    """{player: why} for the players of a results folder whose code today differs from the code
    their stored games were played with (the stored code1/code2 against
    `arena.entrants.fingerprint.code_fingerprint` of each stored SPEC, resolved from the current
    directory, as `cxarena tournament` does)."""
    from arena.entrants.fingerprint import code_fingerprint
    from arena.entrants.specs import SpecError, parse_spec
    from arena.tournament.run import changed_players

    codes: dict[str, str] = {}
    gone: dict[str, str] = {}
    for p in meta.get("players", []):
        if not isinstance(p, dict) or "name" not in p or "spec" not in p:
            continue
        try:
            codes[str(p["name"])] = code_fingerprint(parse_spec(str(p["spec"])))
        except (SpecError, OSError) as e:
            gone[str(p["name"])] = f"its SPEC {p['spec']} does not resolve here today: {e}"
    return {**changed_players(store, codes), **gone}


def stale_warning(stale: dict[str, str], where: Path) -> str:
    """The word `report` says about standings whose bots' code changed (one line per bot)."""
    lines = [f"warning: the code of {len(stale)} bot(s) changed since its games were played; "
             f"these standings are of the old code:"]
    lines += [f"  {name}: {why}" for name, why in sorted(stale.items())]
    lines.append(f"  (rerun the tournament with --replay-changed to replay exactly their games "
                 f"into {where})")
    return "\n".join(lines)
