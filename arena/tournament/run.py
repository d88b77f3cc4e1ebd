"""Running a tournament: schedule -> executor -> durable store -> standings.

`run_tournament` ties the pieces together for `cxarena tournament`:
1. the schedule (`arena.tournament.schedule`) and the results directory's store
(`arena.tournament.store`), checked
   against the config's fingerprint; only games not stored yet are played (resume);
2. the games run on an `Executor` (default `LocalExecutor`, one pinned worker per core; with a
   `scheduler`, `arena.tournament.dask_executor.DaskExecutor` on a Dask cluster); the
   parent stores each game the moment it arrives, shows a progress bar and logs to
   ``results/<name>/arena.log`` (workers' records are gathered with multiprocessing_logging);
3. the standings are recomputed from every stored game and written to ``standings.md`` and
   ``standings.csv``.

Ctrl-C (KeyboardInterrupt) stops the workers (each closes its Referee, so no bot process is
left), keeps every finished game, writes the standings so far and re-raises.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import multiprocessing
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from arena import __version__
from arena.errors import UsageError
from arena.tournament.config import TournamentConfig
from arena.tournament.executor import Executor, GameOutcome, LocalExecutor, reap_orphans
from arena.tournament.schedule import GameSpec, make_schedule
from arena.tournament.standings import Standings, compute_standings
from arena.tournament.store import DB_FILE, ResultStore

__all__ = ["LOG_FILE", "STANDINGS_CSV", "STANDINGS_MD", "TournamentOutcome",
           "default_results_dir", "match_settings", "read_standings", "run_tournament"]

LOG_FILE = "arena.log"
LOGS_DIR = "logs"
STANDINGS_MD = "standings.md"
STANDINGS_CSV = "standings.csv"

log = logging.getLogger("arena.tournament.run")


@dataclass(frozen=True)
class TournamentOutcome:
    """What a run did: how many games were scheduled, found stored, played, failed."""

    results_dir: Path
    scheduled: int
    already_stored: int
    played: int  # stored by this run
    failed: tuple[GameOutcome, ...] = field(default=())  # the harness could not play these
    standings: Standings | None = None

    @property
    def complete(self) -> bool:
        return self.already_stored + self.played == self.scheduled


def default_results_dir(config: TournamentConfig) -> Path:
    return Path.cwd() / "results" / config.name


def match_settings(config: TournamentConfig, log_dir: Path | None) -> Any:
    """The referee's MatchSettings for this config (cpu is set per worker)."""
    from arena.referee.referee import MatchSettings

    mem = None if config.memory_limit_mb is None else config.memory_limit_mb * 1024 * 1024
    return MatchSettings(timeout_s=config.timeout_s, grace_s=config.grace_s,
                         startup_timeout_s=config.startup_timeout_s, memory_limit_bytes=mem,
                         fresh_process=config.fresh_process, cpu=None,
                         log_dir=None if log_dir is None else str(log_dir))


def remove_results(results_dir: Path) -> None:
    """Delete what a previous run wrote into `results_dir` (only cxarena's own files)."""
    for name in (DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", STANDINGS_MD, STANDINGS_CSV,
                 LOG_FILE):
        (results_dir / name).unlink(missing_ok=True)
    shutil.rmtree(results_dir / LOGS_DIR, ignore_errors=True)


@contextlib.contextmanager
def _run_log(path: Path) -> Iterator[None]:
    """Send the `arena` loggers of this process and of forked workers to `path`."""
    logger = logging.getLogger("arena")
    old_level = logger.level
    fh = logging.FileHandler(path, encoding="utf-8")
    fh.setFormatter(logging.Formatter(
        "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
    fh.setLevel(logging.INFO)
    before = list(logger.handlers)
    logger.addHandler(fh)
    logger.setLevel(logging.INFO)
    if multiprocessing.get_start_method(allow_none=False) == "fork":
        import multiprocessing_logging

        multiprocessing_logging.install_mp_handler(logger)
    ours = [h for h in logger.handlers if h not in before or h is fh]
    try:
        yield
    finally:
        for h in ours:
            logger.removeHandler(h)
            h.close()
        for h in before:  # install_mp_handler wrapped these too: put them back unwrapped
            if h not in logger.handlers:
                logger.addHandler(h)
        logger.setLevel(old_level)


def _with_labels(game: GameSpec, record: Any, name: str) -> Any:
    extra = dict(record.extra)
    extra.update(game_id=game.game_id, tournament=name, round=game.round, player1=game.p1,
                 player2=game.p2)
    return dataclasses.replace(record, extra=extra, version=record.version or __version__)


def read_standings(store: ResultStore) -> tuple[Standings, dict[str, Any]]:
    """Standings of every game in `store`, and the stored config summary."""
    raw = store.get_meta("config")
    meta: dict[str, Any] = json.loads(raw) if raw else {}
    players = [p["name"] for p in meta.get("players", [])]
    boards = [tuple(b) for b in meta.get("boards", [])]
    games = list(store.games())
    if not players:  # a database without a config summary: take names from the games
        players = list(dict.fromkeys(n for g in games for n in (g.player1, g.player2)))
    return compute_standings(players, games, boards), meta


def write_standings(results_dir: Path, standings: Standings, title: str,
                    expected: int | None) -> str:
    md = standings.to_markdown(title=title, expected_games=expected)
    _write_atomic(results_dir / STANDINGS_MD, md)
    _write_atomic(results_dir / STANDINGS_CSV, standings.to_csv())
    return md


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def run_tournament(config: TournamentConfig, results_dir: Path | None = None, *,
                   quiet: bool = False, fresh: bool = False,
                   executor: Executor | None = None,
                   out: TextIO | None = None) -> TournamentOutcome:
    """Run (or resume) `config`; see the module docstring. Raises UsageError, KeyboardInterrupt."""
    out = sys.stdout if out is None else out
    results_dir = default_results_dir(config) if results_dir is None else Path(results_dir)
    schedule = make_schedule(config)
    if results_dir.exists() and not results_dir.is_dir():
        raise UsageError(f"--results {results_dir}: exists and is not a directory")
    if (results_dir / DB_FILE).is_file() and not fresh:
        with ResultStore(results_dir / DB_FILE) as probe:  # refuse before touching anything
            probe.bind(config.fingerprint(), config.name)
    if fresh:
        remove_results(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    logs_dir = results_dir / LOGS_DIR
    logs_dir.mkdir(exist_ok=True)

    with ResultStore(results_dir / DB_FILE) as store, _run_log(results_dir / LOG_FILE):
        store.bind(config.fingerprint(), config.name)
        store.set_meta("config", json.dumps({
            "name": config.name, "path": config.path,
            "players": [p.to_dict() for p in config.players],
            "boards": [list(b) for b in config.boards], "board_set": config.board_set,
            "timeout_s": config.timeout_s, "rounds": config.rounds, "seed": config.seed,
            "games": len(schedule), "version": __version__}))
        done = store.done_ids()
        todo = [g for g in schedule if g.game_id not in done]
        already = len(schedule) - len(todo)
        faults = sum(1 for g in store.games() if g.record.is_fault)
        log.info("event=run-start name=%s games=%d stored=%d to-play=%d workers=%d "
                 "timeout_s=%s config=%s", config.name, len(schedule), already, len(todo),
                 config.workers, config.timeout_s, config.path)
        if executor is None and config.scheduler:
            from arena.tournament.dask_executor import DaskExecutor

            log.info("event=dask scheduler=%s (the cluster's workers decide the parallelism; "
                     "workers=%d is not used)", config.scheduler, config.workers)
            executor = DaskExecutor(match_settings(config, None), config.scheduler)
        if executor is None:
            run_tag = str(results_dir.resolve())
            orphans = reap_orphans(run_tag)
            if orphans:
                log.warning("event=orphans-killed pids=%s: bot processes left by an earlier "
                            "run that was killed", orphans)
            executor = LocalExecutor(match_settings(config, logs_dir), workers=config.workers,
                                     run_tag=run_tag)
        played = 0
        failed: list[GameOutcome] = []
        outcomes = executor.run(todo)
        bar = tqdm(total=len(schedule), initial=already, unit="game", disable=quiet,
                   dynamic_ncols=True, desc=config.name, file=sys.stderr)
        bar.set_postfix(faults=faults, refresh=False)
        interrupted = False
        try:
            for oc in outcomes:
                if oc.record is None:
                    failed.append(oc)
                    log.error("game=%s event=not-played error=%s", oc.game.game_id, oc.error)
                else:
                    rec = _with_labels(oc.game, oc.record, config.name)
                    if store.add(oc.game.game_id, oc.game.round, oc.game.p1, oc.game.p2, rec):
                        played += 1
                    else:
                        log.warning("game=%s event=duplicate: already stored, ignored",
                                    oc.game.game_id)
                    faults += rec.is_fault
                bar.update(1)
                bar.set_postfix(faults=faults, refresh=False)
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            outcomes.close()  # stops the workers (and their bots) if we leave early
            bar.close()
            standings, _ = read_standings(store)
            md = write_standings(results_dir, standings, f"Standings: {config.name}",
                                 len(schedule))
            stored = store.count()
            log.info("event=run-%s stored=%d of %d played-now=%d not-played=%d",
                     "interrupted" if interrupted else "end", stored, len(schedule), played,
                     len(failed))
            if interrupted:
                print(f"interrupted: {stored} of {len(schedule)} games stored in "
                      f"{results_dir}; run the same command again to resume", file=sys.stderr)
        if not quiet:
            print(md, file=out)
        if failed:
            print(f"{len(failed)} games could not be played (harness errors, see "
                  f"{results_dir / LOG_FILE}); run the same command again to retry them",
                  file=sys.stderr)
        print(f"{store.count()} of {len(schedule)} games stored; standings in "
              f"{results_dir / STANDINGS_MD} and {results_dir / STANDINGS_CSV}", file=out)
        return TournamentOutcome(results_dir=results_dir, scheduled=len(schedule),
                                 already_stored=already, played=played, failed=tuple(failed),
                                 standings=standings)
