"""`cxarena check-bot SPEC`: is this bot ready for a tournament?

Plays short games against L0 under the real referee on the competition's smallest and
largest boards and on 6x7x4, both colours, with the tournament's time limit, and reports in
plain words (see `arena.onboarding.conformance`). Exit code 0 if the bot passed, 1 if not, 2 for a
usage
error (unknown SPEC, bad option).
"""

from __future__ import annotations

import argparse
import sys

from arena import defaults
from arena.errors import UsageError
from arena.onboarding.conformance import (
    BIG_BOARD_CELLS,
    MAX_MOVES,
    QUICK_MAX_MOVES,
    CheckGame,
    run_check,
)
from arena.referee.sandbox import MODES

HELP = "check that a bot plays legal moves in time, does not crash and has a usable name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC",
                        help="the bot: a name in players/, pkg.module[:Class], "
                             "file.py[:Class] or exec:COMMAND")
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="per-move time limit (default: timeout_s of "
                             "configs/tournament.yaml, else 1)")
    parser.add_argument("--quick", action="store_true",
                        help=f"stop big-board games after {QUICK_MAX_MOVES} moves instead of "
                             f"{MAX_MOVES}")
    parser.add_argument("--max-moves", type=int, default=None, metavar="N",
                        help=f"stop games on boards of more than {BIG_BOARD_CELLS} cells after "
                             f"N moves (both players'), as draws")
    parser.add_argument("--board", type=int, nargs=3, action="append", metavar=("M", "N", "K"),
                        help="check on this board instead (repeatable); default: the smallest "
                             "and largest board of configs/boards.yaml's competition set, "
                             "and 6 7 4")
    parser.add_argument("--board-set", default="competition", metavar="NAME",
                        help="the board set of configs/boards.yaml to take the smallest and "
                             "largest board from (default: competition)")
    parser.add_argument("--game", metavar="NAME", default=None,
                        help="check a bot for another game (othello, morris) through protocol "
                             "v2: two games against a random player, one in each colour")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of --game (e.g. size=6); repeatable")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--memory-mb", type=int, default=None, metavar="MB",
                        help="memory limit per bot process in MiB, 0 for none (default: "
                             "memory_limit_mb of configs/tournament.yaml, else "
                             f"{defaults.MEMORY_LIMIT_MB})")
    parser.add_argument("--max-tasks", type=int, default=None, metavar="N",
                        help="processes and threads the bot may run at once, where cgroups "
                             "count them; 0 for no cap (default: max_tasks of "
                             f"configs/tournament.yaml, else {defaults.MAX_TASKS})")
    parser.add_argument("--isolation", choices=MODES, default=defaults.ISOLATION,
                        help="sandbox the bot: auto (where the machine allows it), namespaces "
                             "(required), none (default %(default)s)")


def _progress(game: CheckGame) -> None:
    print("  " + game.describe(), flush=True)


def run(args: argparse.Namespace) -> int:
    from arena.onboarding.conformance import check_boards

    if args.time is not None and not args.time > 0:
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.memory_mb is not None and args.memory_mb != 0 and (
            args.memory_mb < defaults.MIN_MEMORY_MB):
        raise UsageError(f"--memory-mb must be 0 (no limit) or at least "
                         f"{defaults.MIN_MEMORY_MB}, got {args.memory_mb}")
    if args.max_tasks is not None and args.max_tasks != 0 and (
            args.max_tasks < defaults.MIN_TASKS):
        raise UsageError(f"--max-tasks must be 0 (no cap) or at least {defaults.MIN_TASKS}, "
                         f"got {args.max_tasks}")
    if args.max_moves is not None and args.max_moves < 2:
        raise UsageError(f"--max-moves must be at least 2, got {args.max_moves}")
    if args.game is not None:
        return _run_game(args)
    boards = ([tuple(b) for b in args.board] if args.board
              else check_boards(args.board_set))
    names = ", ".join(f"{M}x{N}x{K}" for M, N, K in boards)
    from arena.referee.cgroups import summary
    from arena.referee.sandbox import resolve

    notice = resolve(args.isolation).notice()  # UsageError: namespaces, impossible here
    if notice:
        print(notice, file=sys.stderr, flush=True)

    def header() -> None:  # once the SPEC and the settings are found good: errors come alone
        print(f"checking {args.spec} against L0 on {names}, both colours ...", flush=True)
        print(summary(), flush=True)

    report = run_check(args.spec, boards=boards, timeout_s=args.time, quick=args.quick,
                       max_moves=args.max_moves, seed=args.seed, progress=_progress,
                       memory_mb=args.memory_mb, isolation=args.isolation,
                       max_tasks=args.max_tasks, on_start=header)
    print()
    print(report.text(games=False))
    sys.stdout.flush()
    return 0 if report.passed else 1


def _run_game(args: argparse.Namespace) -> int:
    """check-bot --game: the check for another game (`arena.onboarding.game_check`)."""
    from arena.commands.match import game_of
    from arena.onboarding.game_check import run_game_check

    args.openings = args.plies = args.board = None
    args.no_openings = False
    game = game_of(args)
    if game is None:
        raise UsageError("--game connectx: check a Connect-X bot without --game")
    timeout_s = args.time if args.time is not None else defaults.TIMEOUT_S
    from arena.entrants.specs import parse_spec

    parse_spec(args.spec)  # SpecError: an unknown bot is reported alone
    print(f"checking {args.spec} in {game.label()} against a random player, both colours, "
          f"{timeout_s:g} s per move ...", flush=True)
    memory_mb = defaults.MEMORY_LIMIT_MB if args.memory_mb is None else args.memory_mb
    max_tasks = defaults.MAX_TASKS if args.max_tasks is None else args.max_tasks
    from arena.referee.cgroups import summary

    print(summary(), flush=True)
    report = run_game_check(args.spec, game, timeout_s, seed=args.seed,
                            isolation=args.isolation, memory_mb=memory_mb,
                            max_tasks=max_tasks)
    print(report.text())
    return 0 if report.passed else 1
