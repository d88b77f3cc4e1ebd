"""`cxarena play SPEC (--board M N K | --game NAME [--param K=V]) [--time T] [--second]`: play a
bot yourself, in the terminal, in any game (`--board`: the course's Connect-X).

The bot runs as in a tournament (its own process under the referee, its time limit enforced, its
faults reported); you have no time limit. Every game is stored in --results (default
results/play), so `cxarena report results/play` and the HTML report show it.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from arena import defaults
from arena.errors import UsageError

HELP = "play a bot yourself in the terminal (each game is stored in results/play)"

__all__ = ["HELP", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC",
                        help="the bot to play (a SPEC as in `cxarena match`, e.g. alphabeta)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--board", nargs=3, type=int, metavar=("M", "N", "K"),
                       help="rows, columns, pieces in a row to win (e.g. 6 7 4)")
    where.add_argument("--game", metavar="NAME", default=None,
                       help="a game by name (cxarena players --games lists them), with its "
                            "parameters as --param")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of --game, e.g. size=6; repeatable")
    parser.add_argument("--time", type=float, default=defaults.TIMEOUT_S, metavar="T",
                        help="the bot's time limit per move and for initPlayer, in seconds "
                             "(default %(default)g); you have none")
    parser.add_argument("--second", action="store_true", help="let the bot move first")
    parser.add_argument("--results", default=None, metavar="DIR",
                        help="store the games here (default results/play)")
    parser.add_argument("--no-store", action="store_true", help="do not store the games")
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_LIMIT_MB, metavar="MB",
                        help="the bot's memory limit in MiB, 0 for none (default %(default)d)")


def run(args: argparse.Namespace) -> int:
    from arena.commands.match import pick_game
    from arena.entrants.probe import check_loadable
    from arena.entrants.specs import SpecError, parse_spec
    from arena.play.session import (
        DEFAULT_RESULTS,
        Entrant,
        GameSetup,
        check_playable,
        check_time_limit,
    )
    from arena.play.terminal import play_games
    from arena.referee.door import install as install_door
    from arena.wire.protocol import PROTOCOL_V2, version_of

    game = pick_game(args.game, args.param, args.board)
    if not (math.isfinite(args.time) and args.time > 0):
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.memory_mb and args.memory_mb < defaults.MIN_MEMORY_MB:
        raise UsageError(f"--memory-mb must be 0 (no limit) or at least "
                         f"{defaults.MIN_MEMORY_MB}, got {args.memory_mb}")
    try:
        check_playable(game)
        setup = GameSetup(timeout_s=args.time, human_first=not args.second,
                          memory_limit_mb=args.memory_mb or None)
    except ValueError as e:
        raise UsageError(f"{game.label()} --time {args.time:g}: {e}") from None
    install_door()  # the bot's code is loaded (Java: compiled) as it plays: in the sandbox
    spec = parse_spec(args.spec)  # SpecError: one line, exit 2
    entrant = Entrant(args.spec, spec, game=game.name)
    try:
        check_time_limit(entrant, args.time)  # a Java bot: whole seconds, before its game
    except ValueError as e:
        raise UsageError(f"--time {args.time:g}: {e}") from None
    # the probes load the course API's classes; a bot of another game shows at its start
    failed = check_loadable([spec]) if version_of(game) != PROTOCOL_V2 else {}
    if failed:
        raise SpecError(next(iter(failed.values())))
    results = None if args.no_store else Path(args.results) if args.results else DEFAULT_RESULTS
    play_games(entrant, game, setup, results)
    return 0
