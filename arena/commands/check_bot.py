"""`cxarena check-bot SPEC [--game NAME]`: is this bot ready for a tournament?

Plays short games against L0's strategy under the real referee, both colours, with the
tournament's limits, and reports in plain words (`arena.onboarding.conformance`, one check for
every game). Without --game: Connect-X on the competition's smallest and largest boards and on
6x7x4 (or each --board); with --game NAME: that registered game with its --param values. Exit
code 0 if the bot passed, 1 if not, 2 for a usage error (unknown SPEC, bad option).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from arena import defaults
from arena.commands.match import known_games, pick_game
from arena.errors import UsageError
from arena.onboarding.conformance import (
    BIG_GAME_COST,
    FAIL_FRACTION,
    MAX_MOVES,
    QUICK_MAX_MOVES,
    WARN_FRACTION,
    CheckGame,
    course_games,
    play_order,
    run_check,
)
from arena.records import record_label
from arena.referee.sandbox import MODES

HELP = "check that a bot plays legal moves in time, does not crash and has a usable name"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC",
                        help="the bot: a name in players/, pkg.module[:Class], "
                             "file.py[:Class] or exec:COMMAND")
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="per-move time limit (default: timeout_s of the project's "
                             "configs/tournament.yaml, from every folder, else "
                             f"{defaults.TIMEOUT_S:g})")
    parser.add_argument("--quick", action="store_true",
                        help=f"stop big games after {QUICK_MAX_MOVES} moves instead of "
                             f"{MAX_MOVES}")
    parser.add_argument("--max-moves", type=int, default=None, metavar="N",
                        help=f"stop big games (boards of more than {BIG_GAME_COST} cells) after "
                             f"N moves (both players'), as draws")
    parser.add_argument("--board", type=int, nargs=3, action="append", metavar=("M", "N", "K"),
                        help="check on this board instead (repeatable); default: the smallest "
                             "and largest board of configs/boards.yaml's competition set, "
                             "and 6 7 4")
    parser.add_argument("--board-set", default="competition", metavar="NAME",
                        help="the board set of configs/boards.yaml to take the smallest and "
                             "largest board from (default: competition)")
    parser.add_argument("--game", metavar="NAME", default=None,
                        help=f"check a bot for this registered game ({known_games()}) with its "
                             f"--param values instead of Connect-X's boards")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of --game (e.g. size=6); repeatable")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--memory-mb", type=int, default=None, metavar="MB",
                        help="memory limit per bot process in MiB, 0 for none (default: "
                             "memory_limit_mb of the project's configs/tournament.yaml, else "
                             f"{defaults.MEMORY_LIMIT_MB})")
    parser.add_argument("--max-tasks", type=int, default=None, metavar="N",
                        help="processes and threads the bot may run at once, where cgroups "
                             "count them; 0 for no cap (default: max_tasks of "
                             f"configs/tournament.yaml, else {defaults.MAX_TASKS})")
    parser.add_argument("--strict-time", action="store_true",
                        help=f"fail a move or initPlayer over {round(FAIL_FRACTION * 100)} %% "
                             f"of the limit (default: fail only one that a game on this "
                             f"machine would charge as a timeout; over "
                             f"{round(WARN_FRACTION * 100)} %% warns)")
    parser.add_argument("--isolation", choices=MODES, default=defaults.ISOLATION,
                        help="sandbox the bot: auto (where the machine allows it), namespaces "
                             "(required), none (default %(default)s)")


#: at most this long between two lines of a check's output (a game's line or, within a long
#: game, where it is): a check at 10 s per move must not sit silent for minutes
PROGRESS_EVERY_S = 20.0


class Progress:
    """check-bot's progress: a line per game, and within a game a line after a move whenever
    PROGRESS_EVERY_S went by since the last line (so at most that long plus one move's time
    between lines). `clock` and `out` are injectable (tests)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 out: Callable[[str], None] | None = None,
                 every_s: float = PROGRESS_EVERY_S) -> None:
        self.clock = clock
        self.out = out or (lambda line: print(line, flush=True))
        self.every_s = every_s
        self.last_s = clock()

    def _say(self, line: str) -> None:
        self.out(line)
        self.last_s = self.clock()

    def game(self, game: CheckGame) -> None:
        self._say("  " + game.describe())

    def move(self, where: str) -> None:
        if self.clock() - self.last_s >= self.every_s:
            self._say(f"  ... {where}")


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
    if args.game is not None and args.board:
        raise UsageError(f"--board is Connect-X's; a game's parameters come with --param "
                         f"(--game {args.game})")
    game = pick_game(args.game, args.param, None)
    games = ([game] if game is not None else
             course_games([tuple(b) for b in args.board] if args.board
                          else check_boards(args.board_set)))
    order = play_order(games)
    names = (", ".join(record_label(g) for g in order)
             + f" (the tournament's order, one process), then {record_label(order[-1])} "
               f"in a fresh process")
    from arena.referee.cgroups import summary
    from arena.referee.door import install as install_door

    # the bot's code is loaded (Java: compiled) through the door, as it plays
    notice = install_door(args.isolation).notice()  # UsageError: namespaces, impossible here
    if notice:
        print(notice, file=sys.stderr, flush=True)

    def header() -> None:  # once the SPEC and the settings are found good: errors come alone
        print(f"checking {args.spec} against L0, both colours, on {names} ...", flush=True)
        print(summary(), flush=True)

    progress = Progress()
    report = run_check(args.spec, games=games, timeout_s=args.time, quick=args.quick,
                       max_moves=args.max_moves, seed=args.seed, progress=progress.game,
                       memory_mb=args.memory_mb, isolation=args.isolation,
                       max_tasks=args.max_tasks, on_start=header, fresh_game=True,
                       strict_time=args.strict_time, on_move=progress.move)
    print()
    print(report.text(games=False))
    sys.stdout.flush()
    return 0 if report.passed else 1
