"""`cxarena tournament CONFIG`: run (or resume) a round-robin tournament from a YAML config."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.referee.sandbox import MODES

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
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bar and no standings on stdout (for scripts/CI)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="override the config's worker count")
    parser.add_argument("--isolation", choices=MODES, default=None,
                        help="override the config's isolation of bots (default: the config's, "
                             "else auto)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="play the games on the workers of this Dask scheduler, e.g. "
                             "tcp://lab-01:8786 (overrides the config's `scheduler`; needs "
                             "pip install 'cxarena[dask]')")


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from arena.errors import UsageError
    from arena.tournament.config import load_config
    from arena.tournament.run import run_tournament

    config = load_config(args.config)
    if args.workers is not None:
        if args.workers < 1:
            raise UsageError(f"--workers: the worker count must be a positive integer, got "
                             f"{args.workers}")
        config = dataclasses.replace(config, workers=args.workers)
    if args.isolation is not None:
        config = dataclasses.replace(config, isolation=args.isolation)
    if args.scheduler is not None:
        if not args.scheduler.strip():
            raise UsageError("--scheduler: expected a Dask scheduler address, e.g. "
                             "tcp://lab-01:8786")
        config = dataclasses.replace(config, scheduler=args.scheduler.strip())
    outcome = run_tournament(config, Path(args.results) if args.results else None,
                             quiet=args.quiet, fresh=args.fresh,
                             replay_changed=args.replay_changed)
    return 0 if outcome.complete else 1
