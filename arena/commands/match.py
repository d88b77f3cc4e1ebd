"""`cxarena match SPEC1 SPEC2`: a few games between two bots, each result and a summary.

Game i (from 1) has SPEC1 moving first when i is odd and SPEC2 when it is even; its seed is
derived from --seed and i (`game_seed`), so a rerun replays the same games. With --json, stdout
carries one GameRecord JSON object per game and line (nothing else); the summary goes to stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence

from arena import defaults
from arena.errors import UsageError
from arena.records import GameRecord
from arena.referee.sandbox import MODES
from arena.tournament import schedule

HELP = "play a few games between two bots and print the results and a summary"

__all__ = ["HELP", "add_arguments", "game_seed", "run", "summary_lines"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec1", metavar="SPEC1", help="first bot (moves first in game 1)")
    parser.add_argument("spec2", metavar="SPEC2", help="second bot")
    parser.add_argument("--board", nargs=3, type=int, metavar=("M", "N", "K"), required=True,
                        help="rows, columns, pieces in a row to win (e.g. 6 7 4)")
    parser.add_argument("--time", type=float, required=True, metavar="T",
                        help="time limit per move and for initPlayer, in seconds")
    parser.add_argument("--games", type=int, default=2, metavar="G",
                        help="number of games, alternating who moves first (default 2)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="base seed; each game's seed is derived from it (default 0)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON record per game and line on stdout (summary on "
                             "stderr)")
    parser.add_argument("--grace-ms", type=float, default=defaults.GRACE_S * 1000, metavar="MS",
                        help="grace margin before an answer counts as late (default %(default)g)")
    parser.add_argument("--memory-mb", type=int, default=defaults.MEMORY_LIMIT_MB, metavar="MB",
                        help="memory limit per bot in MiB, 0 for none (default %(default)d)")
    parser.add_argument("--startup-s", type=float, default=defaults.STARTUP_TIMEOUT_S,
                        metavar="S", help="time a bot may take to start up (default %(default)g)")
    parser.add_argument("--fresh", action="store_true",
                        help="a new bot process for every game (default: reuse processes)")
    parser.add_argument("--cpu", type=int, default=None, metavar="C",
                        help="pin the bots to this CPU core")
    parser.add_argument("--isolation", choices=MODES,
                        default=defaults.ISOLATION,
                        help="sandbox each bot: auto (where the machine allows it), namespaces "
                             "(required), none (trusted bots) (default %(default)s)")
    parser.add_argument("--log-dir", default=None, metavar="DIR",
                        help="keep the bots' stderr logs here (default: a new directory under "
                             "the system's temporary directory; the match says which)")


def game_seed(base_seed: int, game_index: int) -> int:
    """The seed of game `game_index` (from 1) of a match with --seed `base_seed` (derived as a
    tournament's game seeds are, see `arena.tournament.schedule.game_seed`)."""
    return schedule.game_seed(base_seed, f"match-{game_index}")


def _check(args: argparse.Namespace) -> None:
    from arena.board import CXBoard

    M, N, K = args.board
    try:
        CXBoard(M, N, K)
    except ValueError as e:
        raise UsageError(f"--board {M} {N} {K}: {e}") from None
    if not (args.time > 0 and math.isfinite(args.time)):
        raise UsageError(f"--time must be a positive number of seconds, got {args.time}")
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    if args.grace_ms < 0:
        raise UsageError(f"--grace-ms must be >= 0, got {args.grace_ms}")
    if args.memory_mb and not args.memory_mb >= defaults.MIN_MEMORY_MB:
        raise UsageError(f"--memory-mb must be 0 (no limit) or at least {defaults.MIN_MEMORY_MB}, "
                         f"got {args.memory_mb}")
    if not args.startup_s > 0:
        raise UsageError(f"--startup-s must be > 0, got {args.startup_s}")
    if args.cpu is not None:
        import os

        if args.cpu not in os.sched_getaffinity(0):
            raise UsageError(f"--cpu {args.cpu}: not a core this process may use "
                             f"({sorted(os.sched_getaffinity(0))})")


def run(args: argparse.Namespace) -> int:
    from arena.entrants.specs import SpecError, check_loadable, parse_spec, time_limit_problem
    from arena.referee.referee import MatchSettings, Referee
    from arena.referee.sandbox import resolve

    _check(args)
    notice = resolve(args.isolation).notice()  # UsageError: namespaces, impossible here
    if notice:
        print(notice, file=sys.stderr)
    spec1, spec2 = parse_spec(args.spec1), parse_spec(args.spec2)  # SpecError: exit 2
    for spec in (spec1, spec2):
        problem = time_limit_problem(spec, args.time)  # Java bots: whole seconds
        if problem:
            raise UsageError(f"--time {args.time:g}: {problem}")
    failed = check_loadable([spec1, spec2])
    if failed:
        raise SpecError(next(iter(failed.values())))
    M, N, K = args.board
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="cxarena-match-logs-")
    settings = MatchSettings(
        timeout_s=args.time, grace_s=args.grace_ms / 1000.0, startup_timeout_s=args.startup_s,
        memory_limit_bytes=args.memory_mb * 2**20 if args.memory_mb else None,
        fresh_process=args.fresh, cpu=args.cpu, log_dir=log_dir,
        isolation=args.isolation)
    records: list[GameRecord] = []
    with Referee(settings) as referee:
        for i in range(1, args.games + 1):
            first, second = (spec1, spec2) if i % 2 == 1 else (spec2, spec1)
            rec = referee.play(first, second, M, N, K, game_seed(args.seed, i),
                               game_id=f"{i} of the match")
            records.append(rec)
            if args.json:
                print(rec.to_json(), flush=True)
            else:
                print(_result_line(i, rec), flush=True)
    out = sys.stderr if args.json else sys.stdout
    print("\n".join(summary_lines(records, args.spec1, args.spec2, args.time)), file=out)
    overloads = sum(len(r.extra.get("overload") or []) for r in records)
    if overloads:
        print(f"  the machine was overloaded: {overloads} late moves came from waiting for a "
              f"CPU, not from the bots (games played again, not charged); run on a quieter "
              f"machine", file=out)
    print(f"bot logs (stderr, one file per bot process, a header before each game): {log_dir}",
          file=out)
    return 0


def _result_line(i: int, rec: GameRecord) -> str:
    if rec.winner is None:
        result = "draw"
    else:
        result = f"{rec.p1 if rec.winner == 1 else rec.p2} wins"
    line = (f"game {i}: {rec.p1} vs {rec.p2} (seed {rec.seed}): {result} by {rec.reason.value} "
            f"after {len(rec.moves)} moves")
    if rec.detail:
        who = rec.p1 if rec.offender == 1 else rec.p2
        line += f"\n  {rec.reason.value} by {who}: {rec.detail}"
    for incident in rec.extra.get("overload") or []:
        line += f"\n  played again: {incident}"
    if rec.stderr_tail:
        last = rec.stderr_tail.splitlines()[-1]
        line += f"\n  last stderr line: {last}"
    return line


def summary_lines(records: Sequence[GameRecord], spec1: str, spec2: str,
                  timeout_s: float) -> list[str]:
    """The match summary from SPEC1's view: W/D/L, points, faults, Elo difference.
    `records` are the games in order (SPEC1 first in the 1st, 3rd ... game)."""
    wins = draws = losses = 0
    faults: list[Counter[str]] = [Counter(), Counter()]  # by spec1, by spec2
    for i, rec in enumerate(records):
        me = 1 if i % 2 == 0 else 2  # spec1's seat: first in games 1, 3, 5 ...
        if rec.winner is None:
            draws += 1
        elif rec.winner == me:
            wins += 1
        else:
            losses += 1
        if rec.offender is not None:
            faults[0 if rec.offender == me else 1][rec.reason.value] += 1
    lines = []
    if records:
        r = records[0]
        lines.append(f"{spec1} vs {spec2}: {len(records)} games on {r.M}x{r.N} K={r.K}, "
                     f"{timeout_s:g} s per move")
    lines.append(f"  W/D/L for {spec1}: {wins}/{draws}/{losses}   points {spec1} "
                 f"{3 * wins + draws} - {3 * losses + draws} {spec2}")
    for who, counts in zip((spec1, spec2), faults, strict=True):
        total = sum(counts.values())
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        lines.append(f"  faults by {who}: {total}" + (f" ({kinds})" if kinds else ""))
    lines.append(f"  {_elo_line(wins, losses, draws)}")
    return lines


def _elo_line(wins: int, losses: int, draws: int) -> str:
    try:
        from arena.tournament.elo import elo_difference
    except ImportError:  # pragma: no cover (arena.tournament.elo ships with the harness)
        return "Elo difference: unavailable (arena.tournament.elo missing)"
    d = elo_difference(wins, losses, draws)

    def num(x: float, signed: bool) -> str:
        if math.isfinite(x):
            return f"{x:+.1f}" if signed else f"{x:.1f}"
        return ("+inf" if x > 0 else "-inf") if signed else "inf"

    return (f"Elo difference: {num(d.elo, True)} +/- {num(d.error, False)}, "
            f"LOS {100 * d.los:.1f} %")
