"""Running a tournament: schedule -> executor -> durable store -> standings.

`run_tournament` ties the pieces together for `cxarena tournament`:
1. the schedule (`arena.tournament.schedule`) and the results directory's store
(`arena.tournament.store`), checked
   against the config's fingerprint; only games not stored yet are played (resume);
2. the games run on an `Executor` (default `LocalExecutor`, one pinned worker per core; with a
   `scheduler`, `arena.tournament.dask_executor.DaskExecutor` on a Dask cluster); the
   parent stores each game the moment it arrives, shows a progress bar and logs to
   ``results/<name>/arena.log`` (workers' records reach it through the executor's log relay);
3. the standings are recomputed from every stored game and written to ``standings.md`` and
   ``standings.csv``, and the HTML report (`arena.report.html`) to ``report.html``.

Ctrl-C (KeyboardInterrupt) stops the workers (each closes its Referee, so no bot process is
left), keeps every finished game, writes the standings so far and re-raises.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from arena import __version__
from arena.errors import UsageError
from arena.referee.sandbox import resolve as resolve_isolation
from arena.report import REPORT_HTML
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


def match_settings(config: TournamentConfig, log_dir: Path | None,
                   isolated: bool | None = None) -> Any:
    """The referee's MatchSettings for this config (cpu is set per worker). `isolated`: what the
    coordinator resolved `isolation: auto` to, so that every worker does the same."""
    from arena.referee.referee import MatchSettings

    mode = config.isolation if isolated is None else ("namespaces" if isolated else "none")

    mem = None if config.memory_limit_mb is None else config.memory_limit_mb * 1024 * 1024
    return MatchSettings(timeout_s=config.timeout_s, grace_s=config.grace_s,
                         startup_timeout_s=config.startup_timeout_s, memory_limit_bytes=mem,
                         fresh_process=config.fresh_process, cpu=None,
                         log_dir=None if log_dir is None else str(log_dir),
                         isolation=mode)


def remove_results(results_dir: Path) -> None:
    """Delete what a previous run wrote into `results_dir` (only cxarena's own files)."""
    for name in (DB_FILE, DB_FILE + "-wal", DB_FILE + "-shm", STANDINGS_MD, STANDINGS_CSV,
                 LOG_FILE, REPORT_HTML):
        (results_dir / name).unlink(missing_ok=True)
    shutil.rmtree(results_dir / LOGS_DIR, ignore_errors=True)


@contextlib.contextmanager
def _run_log(path: Path) -> Iterator[None]:
    """Send the `arena` loggers of this process (and so the workers', relayed) to `path`."""
    logger = logging.getLogger("arena")
    old_level = logger.level
    fh = logging.FileHandler(path, encoding="utf-8")
    fh.setFormatter(logging.Formatter(
        "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
    fh.setLevel(logging.INFO)
    before = list(logger.handlers)
    logger.addHandler(fh)
    logger.setLevel(logging.INFO)
    ours = [h for h in logger.handlers if h not in before or h is fh]
    try:
        yield
    finally:
        for h in ours:
            logger.removeHandler(h)
            h.close()
        for h in before:  # put back any handler that was replaced meanwhile
            if h not in logger.handlers:
                logger.addHandler(h)
        logger.setLevel(old_level)


def code_fingerprints(config: TournamentConfig) -> dict[str, str]:
    """{player name: fingerprint of the code its SPEC runs today} (arena.entrants.fingerprint)."""
    from arena.entrants.fingerprint import code_fingerprint
    from arena.entrants.specs import parse_spec

    return {p.name: code_fingerprint(parse_spec(p.spec)) for p in config.players}


def changed_players(store: ResultStore, codes: dict[str, str]) -> dict[str, str]:
    """{player: why} for the players whose stored games were played with other code than
    `codes` says they run today."""
    changed = {}
    for name, stored in store.stored_code().items():
        if name not in codes:
            continue
        if None in stored:
            changed[name] = "stored games carry no code fingerprint (an older cxarena)"
        elif stored != {codes[name]}:
            old = ", ".join(sorted(c for c in stored if c is not None))
            changed[name] = f"code {old} -> {codes[name]}"
    return changed


def _refuse_changed(results_dir: Path, changed: dict[str, str]) -> None:
    lines = "; ".join(f"{name} ({why})" for name, why in sorted(changed.items()))
    raise UsageError(
        f"{results_dir}: the code of {len(changed)} bot(s) changed since their games were "
        f"stored: {lines}. Their old games are not comparable with new ones. Rerun with "
        f"--replay-changed to replay exactly the games of the changed bots (all other games "
        f"are kept), or with --fresh to start over")


def code_section(store: ResultStore) -> str:
    """A markdown section naming the code every player's stored games were played with."""
    rows = []
    for name, codes in sorted(store.stored_code().items()):
        shown = ", ".join(sorted(c or "unknown (older cxarena)" for c in codes))
        rows.append(f"| {name} | {shown} |")
    if not rows:
        return ""
    return ("\n## Code\n\nThe standings above were computed from games played with this code "
            "(a hash of each bot's files and the cxarena version; see `cxarena tournament "
            "--replay-changed`).\n\n| player | code |\n|---|---|\n" + "\n".join(rows) + "\n")


def _with_labels(game: GameSpec, record: Any, name: str, codes: dict[str, str]) -> Any:
    extra = dict(record.extra)
    extra.update(game_id=game.game_id, tournament=name, round=game.round, player1=game.p1,
                 player2=game.p2, code1=codes.get(game.p1), code2=codes.get(game.p2))
    return dataclasses.replace(record, extra=extra, version=record.version or __version__,
                               pair_id=game.pair_id)


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
                    expected: int | None, code: str = "") -> str:
    md = standings.to_markdown(title=title, expected_games=expected) + code
    _write_atomic(results_dir / STANDINGS_MD, md)
    _write_atomic(results_dir / STANDINGS_CSV, standings.to_csv())
    return md


def _write_html_report(results_dir: Path) -> Path | None:
    """results/<name>/report.html (arena.report.html); if that fails, the run still succeeds."""
    try:
        from arena.report.html import write_report

        return write_report(results_dir)
    except Exception:
        log.exception("event=report-failed")
        print(f"the HTML report could not be written (see {results_dir / LOG_FILE})",
              file=sys.stderr)
        return None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def run_tournament(config: TournamentConfig, results_dir: Path | None = None, *,
                   quiet: bool = False, fresh: bool = False, replay_changed: bool = False,
                   executor: Executor | None = None,
                   out: TextIO | None = None) -> TournamentOutcome:
    """Run (or resume) `config`; see the module docstring. Raises UsageError, KeyboardInterrupt."""
    out = sys.stdout if out is None else out
    results_dir = default_results_dir(config) if results_dir is None else Path(results_dir)
    schedule = make_schedule(config)
    codes = code_fingerprints(config)
    isolation = resolve_isolation(config.isolation)  # UsageError: namespaces, impossible here
    if isolation.notice():
        print(isolation.notice(), file=sys.stderr)
    if results_dir.exists() and not results_dir.is_dir():
        raise UsageError(f"--results {results_dir}: exists and is not a directory")
    if (results_dir / DB_FILE).is_file() and not fresh:
        with ResultStore(results_dir / DB_FILE) as probe:  # refuse before touching anything
            probe.bind(config.fingerprint(), config.name)
            changed = changed_players(probe, codes)
            if changed and not replay_changed:
                _refuse_changed(results_dir, changed)
            if changed:
                dropped = probe.delete_games_of(set(changed))
                print(f"--replay-changed: {dropped} stored games of {', '.join(sorted(changed))} "
                      f"removed; they are played again", file=sys.stderr)
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
            "format": config.format, "challengers": list(config.challengers),
            "games": len(schedule), "version": __version__}))
        done = store.done_ids()
        todo = [g for g in schedule if g.game_id not in done]
        already = len(schedule) - len(todo)
        faults = sum(1 for g in store.games() if g.record.is_fault)
        log.info("event=run-start name=%s games=%d stored=%d to-play=%d workers=%d "
                 "timeout_s=%s isolated=%s config=%s", config.name, len(schedule), already,
                 len(todo), config.workers, config.timeout_s, isolation.isolated, config.path)
        if isolation.notice():
            log.warning("event=not-isolated %s", isolation.notice())
        if executor is None and config.scheduler:
            from arena.tournament.dask_executor import DaskExecutor

            log.info("event=dask scheduler=%s (the cluster's workers decide the parallelism; "
                     "workers=%d is not used)", config.scheduler, config.workers)
            executor = DaskExecutor(match_settings(config, None, isolation.isolated),
                                    config.scheduler)
        if executor is None:
            run_tag = str(results_dir.resolve())
            orphans = reap_orphans(run_tag)
            if orphans:
                log.warning("event=orphans-killed pids=%s: bot processes left by an earlier "
                            "run that was killed", orphans)
            executor = LocalExecutor(match_settings(config, logs_dir, isolation.isolated),
                                     workers=config.workers,
                                     run_tag=run_tag)
        played = 0
        failed: list[GameOutcome] = []
        outcomes = executor.run(todo)
        bar = tqdm(total=len(schedule), initial=already, unit="game", disable=quiet,
                   dynamic_ncols=True, desc=config.name, file=sys.stderr)
        bar.set_postfix(faults=faults, refresh=False)
        interrupted = False
        overloads = overloaded_games = 0  # replays because the machine was overloaded
        try:
            for oc in outcomes:
                if oc.record is None:
                    failed.append(oc)
                    log.error("game=%s event=not-played error=%s", oc.game.game_id, oc.error)
                else:
                    rec = _with_labels(oc.game, oc.record, config.name, codes)
                    if store.add(oc.game.game_id, oc.game.round, oc.game.p1, oc.game.p2, rec):
                        played += 1
                    else:
                        log.warning("game=%s event=duplicate: already stored, ignored",
                                    oc.game.game_id)
                    faults += rec.is_fault
                    incidents = rec.extra.get("overload") or []
                    overloads += len(incidents)
                    overloaded_games += bool(incidents)
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
                                 len(schedule), code_section(store))
            stored = store.count()
            log.info("event=run-%s stored=%d of %d played-now=%d not-played=%d",
                     "interrupted" if interrupted else "end", stored, len(schedule), played,
                     len(failed))
            if interrupted:
                print(f"interrupted: {stored} of {len(schedule)} games stored in "
                      f"{results_dir}; run the same command again to resume", file=sys.stderr)
        if not quiet:
            print(md, file=out)
        if overloads:
            log.warning("event=overloaded replays=%d games=%d workers=%d", overloads,
                        overloaded_games, config.workers)
            print(f"the machine was overloaded: {overloads} late moves in {overloaded_games} "
                  f"games came from waiting for a CPU, not from the bots (those games were "
                  f"played again, not charged; see {results_dir / LOG_FILE}); run with fewer "
                  f"workers (now {config.workers}: set `workers:` in the config) or on a "
                  f"quieter machine", file=sys.stderr)
        if failed:
            print(f"{len(failed)} games could not be played (harness errors, see "
                  f"{results_dir / LOG_FILE}); run the same command again to retry them",
                  file=sys.stderr)
        report = _write_html_report(results_dir)
        print(f"{store.count()} of {len(schedule)} games stored; standings in "
              f"{results_dir / STANDINGS_MD} and {results_dir / STANDINGS_CSV}", file=out)
        if report is not None:
            print(f"report: {report}", file=out)
        return TournamentOutcome(results_dir=results_dir, scheduled=len(schedule),
                                 already_stored=already, played=played, failed=tuple(failed),
                                 standings=standings)
