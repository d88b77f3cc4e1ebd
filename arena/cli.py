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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (`only`, a subcommand's name) that subcommand's alone:
    each subcommand's module is imported to build its arguments, and some import much (the
    settings' schemas, numpy), so a command run does not pay for the others'."""
    parser = argparse.ArgumentParser(
        prog="cxarena", description="Tournaments and matches for Connect-X bots.")
    parser.add_argument("--version", action="version", version=f"cxarena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, modname in COMMANDS.items():
        if only is not None and name != only:
            continue
        mod = importlib.import_module(f"arena.commands.{modname}")
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _named(argv: list[str]) -> str | None:
    """The subcommand `argv` names first (before it, only --version and --help are options),
    or None: then the whole parser is built (to list every command, or to refuse)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: list[str] | None = None) -> int:
    # Bots in ./players (and modules next to the config) resolve from the working directory,
    # for the console script as for `python -m arena`.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    given = sys.argv[1:] if argv is None else argv
    parser = build_parser(_named(given))
    args = parser.parse_args(given)
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
