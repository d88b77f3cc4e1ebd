"""`cxarena players`: list every bot in the `players` package with its name and description.

A bot that fails to import (or whose playerName() fails) is listed with its error, never
hidden. Each bot is imported in a probe subprocess (`arena.entrants.probe`, see
`arena.onboarding.discovery`).
"""

from __future__ import annotations

import argparse

from tabulate import tabulate

from arena.commands.match import known_games
from arena.onboarding.discovery import BotInfo, discover

HELP = "list the bots in players/ (short SPEC, playerName(), description or error)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--paths", action="store_true",
                        help="also show the file each bot comes from")
    parser.add_argument("--import-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="give up on a bot whose import takes longer (default 10)")
    parser.add_argument("--games", action="store_true",
                        help=f"list the bots of the other registered games ({known_games()}: "
                             f"players/GAME/) instead, from their files")


def _row(b: BotInfo, paths: bool) -> list[str]:
    if b.error is not None:
        pname, text = "-", f"ERROR: {b.error}"
    elif b.name_error is not None:
        pname, text = "-", f"ERROR: {b.name_error}"
    else:
        pname, text = repr(b.player_name) if _odd(b.player_name) else str(b.player_name), b.doc
    row = [b.name, pname, text]
    if paths:
        row.append(b.location)
    return row


def _odd(name: str | None) -> bool:
    """Would this name print badly (empty, blank at the ends, unprintable)?"""
    return not name or name != name.strip() or not name.isprintable()


def run(args: argparse.Namespace) -> int:
    if args.import_timeout <= 0:
        from arena.errors import UsageError

        raise UsageError("--import-timeout must be positive")
    if args.games:
        return _game_bots(args.paths)
    bots = discover(import_timeout_s=args.import_timeout)
    if not bots:
        print("no bots found in players/ (create one with `cxarena new-bot NAME`)")
        return 0
    headers = ["SPEC", "playerName()", "description"] + (["file"] if args.paths else [])
    print(tabulate([_row(b, args.paths) for b in bots], headers=headers, tablefmt="plain"))
    broken = sum(not b.ok for b in bots)
    print(f"\n{len(bots)} bot(s)" + (f", {broken} with errors" if broken else "")
          + "; use the SPEC in `cxarena match` or under `players:` in a tournament config")
    return 0


def _game_bots(paths: bool) -> int:
    """`players --games`: the other games' bot modules, read from their files (not loaded:
    `cxarena check-bot SPEC --game NAME` loads and checks one)."""
    from arena.onboarding.discovery import game_bot_files

    bots = game_bot_files()
    if not bots:
        print(f"no bots of other games found (players/GAME/ for a registered game: "
              f"{known_games()})")
        return 0
    rows = [[b.game, b.spec, b.doc] + ([b.location] if paths else []) for b in bots]
    print(tabulate(rows, headers=["game", "SPEC", "description"] + (["file"] if paths else []),
                   tablefmt="plain"))
    print(f"\n{len(bots)} bot(s) of other games, read from their files (not loaded); use the "
          f"SPEC with --game NAME in `cxarena match`, or in a config with `game:`")
    return 0
