"""The `cxarena` command line (also `python -m arena`): a thin dispatcher over arena.commands.

Exit codes: 0 success, 1 a check or run that failed, 2 a usage or configuration error
(one clear line on stderr), 130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from arena import __version__
from arena.entrants.specs import SpecError
from arena.errors import UsageError

#: subcommand name -> module in arena.commands
COMMANDS = {
    "match": "match",
    "tournament": "tournament",
    "report": "report",
    "show": "show",
    "analyze": "analyze",
    "players": "players",
    "new-bot": "new_bot",
    "check-bot": "check_bot",
    "openings": "openings",
    "play": "play",
    "serve": "serve",
    "league": "league",
    "similarity": "similarity",
    "doctor": "doctor",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cxarena", description="Tournaments and matches for Connect-X bots.")
    parser.add_argument("--version", action="version", version=f"cxarena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in COMMANDS.items():
        mod = importlib.import_module(f"arena.commands.{modname}")
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Bots in ./players (and modules next to the config) resolve from the working directory,
    # for the console script as for `python -m arena`.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args))
    except (UsageError, SpecError) as e:
        print(f"cxarena {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `cxarena report ... | head`: the reader left; that is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"cxarena {args.command}: interrupted", file=sys.stderr)
        return 130
