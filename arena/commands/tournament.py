"""`cxarena tournament CONFIG`: run (or resume) a round-robin tournament from a YAML config."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.commands import game_judge, opening_judge
from arena.referee.sandbox import MODES
from arena.results import LOG_FILE

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig
    from arena.tournament.run import TournamentOutcome

HELP = "run or resume a tournament described by a YAML config (e.g. configs/tournament.yaml)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="tournament config file (YAML)")
    parser.add_argument("--results", metavar="DIR", default=None,
                        help="results directory (default: results/<name> in the current "
                             "directory); rerunning with the same DIR resumes the run")
    parser.add_argument("--fresh", action="store_true",
                        help="delete the games already stored in the results directory and "
                             "start over")
    parser.add_argument("--replay-changed", action="store_true",
                        help="when bots' code changed since their games were stored, replay "
                             "exactly those bots' games and keep all others")
    parser.add_argument("--forfeit-broken", action="store_true",
                        help="a bot that fails to load (e.g. a syntax error) does not stop the "
                             "tournament: it is never started and loses each of its games as a "
                             "crash, listed with its error (the config's `broken_bots: "
                             "forfeit`; default: refuse to start)")
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bar and no standings on stdout (for scripts/CI)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="override the config's worker count")
    parser.add_argument("--isolation", choices=MODES, default=None,
                        help="override the config's isolation of bots (default: the config's, "
                             "else auto)")
    parser.add_argument("--max-tasks", type=int, default=None, metavar="N",
                        help="override the config's max_tasks: processes and threads each bot "
                             "may run at once, where cgroups count them; 0 for no cap")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="play the games on the workers of this Dask scheduler, e.g. "
                             "tcp://lab-01:8786 (overrides the config's `scheduler`; needs "
                             "pip install 'cxarena[dask]')")
    parser.add_argument("--analyze", action="store_true",
                        help="after the games, analyse every game whose board the exact "
                             "solver covers (a process pool of the run's worker count) and "
                             "rewrite the report with the analyses")
    from arena.commands.analyze import add_budget

    add_budget(parser)


def run(args: argparse.Namespace) -> int:
    from arena import defaults
    from arena.errors import UsageError
    from arena.tournament.config import load_config

    config = load_config(args.config, broken_bots="forfeit" if args.forfeit_broken else None,
                         isolation=args.isolation)
    if args.workers is not None:
        if args.workers < 1:
            raise UsageError(f"--workers: the worker count must be a positive integer, got "
                             f"{args.workers}")
        config = config.with_file(workers=args.workers)
    if args.max_tasks is not None:
        if args.max_tasks and args.max_tasks < defaults.MIN_TASKS:
            raise UsageError(f"--max-tasks must be 0 (no cap) or at least "
                             f"{defaults.MIN_TASKS}, got {args.max_tasks}")
        config = config.with_play(max_tasks=args.max_tasks or None)
    if args.scheduler is not None:
        if not args.scheduler.strip():
            raise UsageError("--scheduler: expected a Dask scheduler address, e.g. "
                             "tcp://lab-01:8786")
        config = config.with_file(scheduler=args.scheduler.strip())
    outcome = run_and_report(config, Path(args.results) if args.results else None,
                             quiet=args.quiet, fresh=args.fresh,
                             replay_changed=args.replay_changed)
    if args.analyze:
        from arena.commands import analyse_results

        table = analyse_results(outcome.results_dir, args.time_per_position, config.workers,
                                quiet=args.quiet)
        if not args.quiet:
            print(table)
        report = write_html_report(outcome.results_dir)
        if report is not None and not args.quiet:
            print(f"report: {report}")
    return 0 if outcome.complete else 1


def run_and_report(config: TournamentConfig, results_dir: Path | None = None, *,
                   out: TextIO | None = None, **options: Any) -> TournamentOutcome:
    """Run (or resume) the tournament with the project's opening judge, then write its HTML
    report; the last line printed names the report."""
    from arena.tournament.run import run_tournament

    out = sys.stdout if out is None else out
    outcome = run_tournament(config, results_dir, judge=opening_judge(), out=out,
                             game_judge=game_judge(config), **options)
    report = write_html_report(outcome.results_dir)
    if report is not None:
        print(f"report: {report}", file=out)
    return outcome


def write_html_report(results_dir: Path) -> Path | None:
    """results/<name>/report.html (arena.report.html); if that fails, the run still succeeds."""
    from arena.report.html import write_report  # matplotlib: loaded only after the run

    try:
        return write_report(results_dir)
    except Exception:
        logging.getLogger("arena.tournament.run").exception("event=report-failed")
        print(f"the HTML report could not be written (see {results_dir / LOG_FILE})",
              file=sys.stderr)
        return None
