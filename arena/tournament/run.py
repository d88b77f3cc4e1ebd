"""Running a tournament: schedule -> executor -> durable store -> standings.

`run_tournament` ties the pieces together for `cxarena tournament`:
1. the schedule (`arena.tournament.schedule`) and the results directory's store
(`arena.results.store`), checked
   against the config's fingerprint; only games not stored yet are played (resume);
2. the games run on an `Executor` (default `LocalExecutor`, one pinned worker per core; with a
   `scheduler`, `arena.competition.dask_executor.DaskExecutor` on a Dask cluster); the
   parent stores each game the moment it arrives, shows a progress bar and logs to
   ``results/<name>/arena.log`` (workers' records reach it through the executor's log relay);
3. the standings are recomputed from every stored game and written to ``standings.md`` and
   ``standings.csv`` (`arena.results.folder`). The HTML report is the command's to write
   (`arena.commands.tournament`): this package imports nothing from `arena.report`.

Ctrl-C (KeyboardInterrupt) stops the workers (each closes its Referee, so no bot process is
left), keeps every finished game, writes the standings so far and re-raises.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from tqdm import tqdm

from arena import __version__
from arena.competition.executor import Executor, GameOutcome, LocalExecutor, reap_orphans
from arena.competition.jobs import GameJob
from arena.competition.openings import Judge
from arena.competition.progress import Progress, key_and_prior
from arena.competition.settings import referee_settings
from arena.entrants.fingerprint import code_fingerprint
from arena.entrants.specs import parse_spec
from arena.errors import UsageError
from arena.records import GameRecord, Reason, record_fields
from arena.referee.cgroups import summary as containment_summary
from arena.referee.referee import MatchSettings
from arena.referee.sandbox import Isolation
from arena.referee.sandbox import resolve as resolve_isolation
from arena.results import LOG_FILE, LOGS_DIR, STANDINGS_CSV, STANDINGS_MD
from arena.results.fairness import busy_machine_section, load_account
from arena.results.folder import code_section, read_standings, remove_results, write_standings
from arena.results.standings import Standings
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import TournamentConfig
from arena.tournament.preflight import refuse_unseen_programs
from arena.tournament.schedule import make_schedule
from arena.wire.door import DOORS

__all__ = ["FORFEIT", "TournamentOutcome", "default_results_dir", "forfeit_record",
           "forfeit_section", "forfeits", "match_settings", "run_tournament"]

#: how the detail of a forfeited game starts (`broken_bots: forfeit`): "forfeit: <load error>"
FORFEIT = "forfeit: "

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
    return Path.cwd() / "results" / config.file.name


def match_settings(config: TournamentConfig, log_dir: Path | None,
                   isolated: bool | None = None) -> MatchSettings:
    """The referee's MatchSettings for this config (cpu is set per worker). `isolated`: what the
    coordinator resolved `isolation: auto` to, so that every worker does the same."""
    settings = referee_settings(config.play, config.path, fresh_process=config.file.fresh_process,
                                log_dir=None if log_dir is None else str(log_dir))
    return settings if isolated is None else settings.isolated_as(isolated)


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


def changed_entries(store: ResultStore, config: TournamentConfig) -> dict[str, str]:
    """{player: why} for the players whose entry (SPEC, options) differs from the one their
    stored games were played with (a player added or removed is not a change: a growing
    round robin plays only the new pairings)."""
    raw = store.get_meta("config")
    before = {p.get("name"): p for p in (json.loads(raw) if raw else {}).get("players", [])
              if isinstance(p, dict)}
    stored = store.stored_code()
    changed = {}
    for p in config.players:
        old = before.get(p.name)
        if old is None or p.name not in stored:
            continue
        if old.get("spec") != p.spec:
            changed[p.name] = f"SPEC {old.get('spec')} -> {p.spec}"
        elif (old.get("options") or {}) != dict(p.options):
            changed[p.name] = "options changed"
    return changed


def _refuse_changed(results_dir: Path, changed: dict[str, str]) -> None:
    lines = "; ".join(f"{name} ({why})" for name, why in sorted(changed.items()))
    raise UsageError(
        f"{results_dir}: the code or entry of {len(changed)} bot(s) changed since their games "
        f"were stored: {lines}. Their old games are not comparable with new ones. Rerun with "
        f"--replay-changed to replay exactly the games of the changed bots (all other games "
        f"are kept), or with --fresh to start over")




def _labelled(game: GameJob, record: GameRecord, name: str,
              codes: dict[str, str]) -> GameRecord:
    """The record with its labels in the run (game id, round, display names, code)."""
    return record.labelled(game_id=game.game_id, tournament=name, round=game.round,
                           player1=game.p1, player2=game.p2, code1=codes.get(game.p1),
                           code2=codes.get(game.p2), version=record.version or __version__,
                           pair_id=game.pair_id)


def forfeit_record(game: GameJob, config: TournamentConfig,
                   broken: dict[str, str]) -> GameRecord:
    """The record of a game that a bot which fails to load forfeits (`broken_bots: forfeit`):
    a crash of that bot (the first one, when both are broken) with no moves, its load error as
    the detail; nobody is started."""
    offender = 1 if game.p1 in broken else 2
    loser = game.p1 if offender == 1 else game.p2
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return GameRecord(
        **record_fields(game.rules, (), ()), p1=game.spec1, p2=game.spec2, names=("", ""),
        times_ms=(), winner=3 - offender, reason=Reason.CRASH,
        detail=f"{FORFEIT}{broken[loser]}", seed=game.seed, offender=offender,
        started_at=now, finished_at=now, version=__version__,
        timeout_s=config.limits.timeout_s, grace_s=config.limits.grace_s)


def forfeits(store: ResultStore) -> dict[str, str]:
    """{player: its load error} of the players that forfeited stored games."""
    out: dict[str, str] = {}
    for g in store.games():
        rec = g.record
        if rec.detail.startswith(FORFEIT) and rec.offender in (1, 2):
            name = g.player1 if rec.offender == 1 else g.player2
            out.setdefault(name, rec.detail[len(FORFEIT):])
    return out


def forfeit_section(store: ResultStore) -> str:
    """A markdown section naming each bot that forfeited its games, with its error."""
    lost = forfeits(store)
    if not lost:
        return ""
    rows = "\n".join(f"| {name} | {why.replace('|', '/')} |" for name, why in sorted(lost.items()))
    return ("\n## Forfeits\n\nThese bots fail to load: each lost every game as a crash "
            "(forfeit) without being started (`broken_bots: forfeit`).\n\n"
            "| player | error |\n|---|---|\n" + rows + "\n")


def _store_forfeits(store: ResultStore, forfeited: list[GameJob], config: TournamentConfig,
                    codes: dict[str, str]) -> int:
    """Store the forfeited games not stored yet; how many."""
    broken = dict(config.broken)
    n = 0
    for game in forfeited:
        rec = _labelled(game, forfeit_record(game, config, broken), config.file.name, codes)
        n += bool(store.add(rec))
    if n:
        log.warning("event=forfeits games=%d bots=%s", n, ",".join(sorted(broken)))
    return n


def _check_stored(results_dir: Path, config: TournamentConfig, codes: dict[str, str],
                  replay_changed: bool) -> None:
    """Refuse (before touching anything) a results folder of another config or with changed
    bots; with --replay-changed, drop the changed bots' games."""
    if not (results_dir / DB_FILE).is_file():
        return
    with ResultStore(results_dir / DB_FILE) as probe:
        probe.bind(config.fingerprint(), config.file.name)
        changed = changed_players(probe, codes) | changed_entries(probe, config)
        if changed and not replay_changed:
            _refuse_changed(results_dir, changed)
        if changed:
            dropped = probe.delete_games_of(set(changed))
            print(f"--replay-changed: {dropped} stored games of {', '.join(sorted(changed))} "
                  f"removed; they are played again", file=sys.stderr)


def _bind(store: ResultStore, config: TournamentConfig, scheduled: int,
          isolated: bool) -> None:
    store.bind(config.fingerprint(), config.file.name)
    play = config.play
    how = ("in the sandbox" if isolated else f"without a sandbox (isolation "
           f"{play.isolation.value})") + (", with a cgroup or rlimits each" if play.cgroups
                                          else ", with rlimits each")
    store.set_meta("config", json.dumps({
        "name": config.file.name, "path": config.path,
        "players": [p.to_dict() for p in config.players],
        "boards": [list(b) for b in config.boards], "board_set": config.board_set,
        "timeout_s": config.timeout_s, "rounds": config.file.rounds, "seed": config.file.seed,
        "format": config.file.format, "challengers": list(config.file.challengers or ()),
        "games": scheduled, "version": __version__,
        "doors": f"{', '.join(DOORS)}: {how}", "tie_break": config.tie_break.value}))


def _executor(config: TournamentConfig, results_dir: Path, isolation: Isolation) -> Executor:
    """The Dask executor when the config names a scheduler, else the local one."""
    if config.file.scheduler:
        from arena.competition.dask_executor import DaskExecutor  # imports Dask: only if used

        log.info("event=dask scheduler=%s (the cluster's workers decide the parallelism; "
                 "workers=%d is not used)", config.file.scheduler, config.workers)
        return DaskExecutor(match_settings(config, None, isolation.isolated), config.file.scheduler)
    run_tag = str(results_dir.resolve())
    orphans = reap_orphans(run_tag)
    if orphans:
        log.warning("event=orphans-killed pids=%s: bot processes left by an earlier run that "
                    "was killed", orphans)
    return LocalExecutor(match_settings(config, results_dir / LOGS_DIR, isolation.isolated),
                         workers=config.workers, run_tag=run_tag)


@dataclass
class _Tally:
    """What the run stored so far."""

    played: int = 0
    faults: int = 0
    failed: list[GameOutcome] = field(default_factory=list)
    overloads: int = 0  # replays because the machine was overloaded
    overloaded_games: int = 0

    def count(self, store: ResultStore, oc: GameOutcome, name: str,
              codes: dict[str, str]) -> None:
        if oc.record is None:
            self.failed.append(oc)
            log.error("game=%s event=not-played error=%s", oc.game.game_id, oc.error)
            return
        rec = _labelled(oc.game, oc.record, name, codes)
        if store.add(rec):
            self.played += 1
        else:
            log.warning("game=%s event=duplicate: already stored, ignored", oc.game.game_id)
        self.faults += rec.is_fault
        incidents = rec.extra.get("overload") or []
        self.overloads += len(incidents)
        self.overloaded_games += bool(incidents)


def _play(store: ResultStore, executor: Executor, todo: list[GameJob],
          config: TournamentConfig, codes: dict[str, str], quiet: bool) -> _Tally:
    """Play `todo`, storing each game the moment it arrives, with a progress bar whose fraction
    and ETA weigh each game by its expected cost (`arena.competition.progress`)."""
    stored = [g.record for g in store.games()]
    tally = _Tally(faults=sum(1 for r in stored if r.is_fault))
    progress = Progress.start(todo, stored, config.timeout_s)
    outcomes = executor.run(todo)
    start_s = time.monotonic()
    # the text after the bar is ours (in `unit`): tqdm's own counts, rate and ETA count games
    bar = tqdm(total=1.0, disable=quiet, dynamic_ncols=True, desc=config.file.name, file=sys.stderr,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {unit}")

    def show() -> None:
        bar.n = progress.fraction()
        bar.unit = progress.line(time.monotonic() - start_s, tally.faults)
        bar.refresh()

    show()
    stop_ticking = tick(show, TICK_S)  # the clock runs on while the dearest games play
    try:
        for oc in outcomes:
            tally.count(store, oc, config.file.name, codes)
            key, _ = key_and_prior(oc.game.game, dict(oc.game.params), oc.game.M, oc.game.N,
                                   oc.game.K, config.timeout_s)
            progress = progress.finish_record(key, oc.record)
            show()
    finally:
        stop_ticking()
        outcomes.close()  # stops the workers (and their bots) if we leave early
        bar.close()
    return tally


#: the progress bar is redrawn at least this often, a game finished or not
TICK_S = 5.0


def tick(action: Callable[[], None], every_s: float) -> Callable[[], None]:
    """Call `action` every `every_s` seconds in a daemon thread; returns the function that
    stops it (once it returns, `action` is not running and will not run again). An exception
    in `action` ends the ticking, never the run."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every_s):
            try:
                action()
            except Exception:  # a redraw must never take the run down
                return

    thread = threading.Thread(target=run, name="progress-tick", daemon=True)
    thread.start()

    def stopped() -> None:
        stop.set()
        thread.join()

    return stopped


def _summary(results_dir: Path, config: TournamentConfig, tally: _Tally,
             records: list[GameRecord]) -> None:
    """On stderr: the account of a busy machine over every stored game (`records`;
    `arena.results.fairness`), and the run's warnings: overloaded machine, games the harness
    could not play."""
    print(load_account(records, config.timeout_s).text(), file=sys.stderr)
    if tally.overloads:
        log.warning("event=overloaded replays=%d games=%d workers=%d", tally.overloads,
                    tally.overloaded_games, config.workers)
        print(f"the machine was overloaded: {tally.overloads} late moves in "
              f"{tally.overloaded_games} games came from waiting for a CPU, not from the bots "
              f"(those games were played again, not charged; see {results_dir / LOG_FILE}); "
              f"run with fewer workers (now {config.workers}: set `workers:` in the config) or "
              f"on a quieter machine", file=sys.stderr)
    if tally.failed:
        print(f"{len(tally.failed)} games could not be played (harness errors, see "
              f"{results_dir / LOG_FILE}); run the same command again to retry them",
              file=sys.stderr)


def run_tournament(config: TournamentConfig, results_dir: Path | None = None, *,
                   quiet: bool = False, fresh: bool = False, replay_changed: bool = False,
                   executor: Executor | None = None, judge: Judge | None = None,
                   out: TextIO | None = None,
                   game_judge: Judge | None = None,
                   only: Collection[str] | None = None) -> TournamentOutcome:
    """Run (or resume) `config`; see the module docstring. `judge` judges generated openings
    (`arena.competition.openings`), `game_judge` another game's. `only`: play only these game
    ids of the schedule (the adaptive final's step, `arena.league.final_adaptive`).
    Raises UsageError, KeyboardInterrupt."""
    out = sys.stdout if out is None else out
    results_dir = default_results_dir(config) if results_dir is None else Path(results_dir)
    schedule = make_schedule(config, judge, game_judge)
    codes = {p.name: code_fingerprint(parse_spec(p.spec)) for p in config.players}
    # UsageError: namespaces, impossible here
    isolation = resolve_isolation(config.play.isolation.value)
    if isolation.notice():
        print(isolation.notice(), file=sys.stderr)
    broken = dict(config.broken)
    if broken:
        for name, why in sorted(broken.items()):
            print(f"forfeit: {name} fails to load, so it loses each of its games without being "
                  f"started: {why}", file=sys.stderr)
    refuse_unseen_programs([parse_spec(p.spec) for p in config.players
                            if p.name not in broken], isolation.isolated)
    if results_dir.exists() and not results_dir.is_dir():
        raise UsageError(f"--results {results_dir}: exists and is not a directory")
    if fresh:
        remove_results(results_dir)
    else:
        _check_stored(results_dir, config, codes, replay_changed)
    (results_dir / LOGS_DIR).mkdir(parents=True, exist_ok=True)
    containment = containment_summary(config.play.cgroups)
    print(containment, file=sys.stderr)
    with ResultStore(results_dir / DB_FILE) as store, _run_log(results_dir / LOG_FILE):
        _bind(store, config, len(schedule), isolation.isolated)
        done = store.done_ids()
        todo = [g for g in schedule if g.game_id not in done]
        forfeited = [g for g in todo if g.p1 in broken or g.p2 in broken]
        todo = [g for g in todo if not (g.p1 in broken or g.p2 in broken)
                and (only is None or g.game_id in only)]
        _store_forfeits(store, forfeited, config, codes)
        log.info("event=run-start name=%s games=%d stored=%d to-play=%d workers=%d "
                 "timeout_s=%s isolated=%s config=%s", config.file.name, len(schedule),
                 len(schedule) - len(todo), len(todo), config.workers, config.timeout_s,
                 isolation.isolated, config.path)
        if isolation.notice():
            log.warning("event=not-isolated %s", isolation.notice())
        log.info("event=containment %s", containment)
        tally = _Tally()
        try:
            tally = _play(store, executor or _executor(config, results_dir, isolation), todo,
                          config, codes, quiet)
        except KeyboardInterrupt:
            print(f"interrupted: {store.count()} of {len(schedule)} games stored in "
                  f"{results_dir}; run the same command again to resume", file=sys.stderr)
            raise
        finally:
            standings, _ = read_standings(store)
            records = [g.record for g in store.games()]
            md = write_standings(results_dir, standings, f"Standings: {config.file.name}",
                                 len(schedule), forfeit_section(store)
                                 + busy_machine_section(records, config.timeout_s)
                                 + code_section(store))
            log.info("event=run-end stored=%d of %d played-now=%d not-played=%d",
                     store.count(), len(schedule), tally.played, len(tally.failed))
        if not quiet:
            print(md, file=out)
        _summary(results_dir, config, tally, records)
        print(f"{store.count()} of {len(schedule)} games stored; standings in "
              f"{results_dir / STANDINGS_MD} and {results_dir / STANDINGS_CSV}", file=out)
    return TournamentOutcome(results_dir=results_dir, scheduled=len(schedule),
                             already_stored=len(schedule) - len(todo), played=tally.played,
                             failed=tuple(tally.failed), standings=standings)
