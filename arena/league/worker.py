"""The league's rating games: what to play next, the leases that hand it out, and the workers.

**What to play** (`plan_next`). The entries are each user's current version (its latest that
passed the check) and the league's reference bots. Every new version first plays
``pairs_per_submission`` game pairs; after that the entry whose Elo interval (the 95% interval
of the Bradley-Terry fit over the stored games, as on the leaderboard) is widest plays next,
until it has ``max_pairs_per_submission``. An entry already in a pair being played waits behind
one that is not, so several workers spread over the table. The opponent is the one it has met
least, then the closest in Elo. A version whose author has an earlier checked version also
plays ``pairs_per_submission`` pairs against it (they do not count for the rating; the student's
page reads them as the pentanomial interval and an SPRT, `arena.league.rating`).

A pair is one board from a rotation of the league's board set (another game than Connect-X:
one of its parameter sets, `LeagueConfig.games`) and one opening (a random sequence of
``opening_plies`` moves, judged by the game's judge like a tournament's,
`arena.tournament.openings`, the same for every entry on that board), played twice with the
colours swapped through the referee's one path (`GameRequest`).

**Leases.** Claiming a pair (`claim`) inserts a row in ``leases`` naming its holder (the worker
process, or the server that handed it to Dask) in the same transaction that chose it; storing
the pair (`store_pair`) inserts both games and their records and deletes the lease in one
transaction. A holder that dies (even by ``kill -9``) leaves its lease behind; the next claim on
that machine sees that the process is gone and deletes it, so the pair is played again. No
finished pair is lost and none is stored twice: a pair whose lease is gone is not stored.

No pair is claimed once the league is frozen: the final round robin gets the machine (the pairs
in flight finish and are stored).

**Workers.** `LocalWorkers` runs N worker processes (``python -m arena league worker DIR``,
which runs `run_worker`; after each pair it stores, it analyses the games a student lost,
`arena.league.analysis`) and starts a new one when one dies, after a backoff while it keeps
dying (1 s doubling to 60 s), announcing its last error each time and keeping it in
``DIR/workers.json`` for the admin page (`worker_health`). `DaskWorkers` hands pairs to the
Dask cluster that tournaments use (a thread of the server claims them and stores the results;
Dask itself runs a task again when its worker dies). Either way a bot's fault is the game's
result.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from arena import defaults
from arena.competition.pairing import Adaptive, Field, Rating
from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.games import Game, make_game
from arena.league.analysis import Analyser, OracleFactory
from arena.league.checks import spec_in, write_files
from arena.league.db import League, LeagueError
from arena.league.entries import CURRENT, Status, submission_key
from arena.league.rating import previous_of
from arena.league.standings import cached_standings, insert_game
from arena.limits import make_limits
from arena.records import GameRecord
from arena.referee.referee import GameRequest, MatchSettings, Referee
from arena.tournament.openings import GameOpenings, Judge
from arena.wire.lifeline import PARENT_ENV, die_with_parent

__all__ = ["DaskWorkers", "LocalWorkers", "PairJob", "Side", "WorkerHealth", "board_text",
           "claim", "plan_next", "play_pair", "queue_state", "reap_dead", "release",
           "run_worker", "store_pair", "worker_health"]

log = logging.getLogger("arena.league.worker")

#: a board as the league's tables name it (`Game.board_key`): Connect-X's (M, N, K), another
#: game's label (``othello size=8``)
Board = tuple[int, int, int] | str


def board_text(board: Board) -> str:
    """The board in the games and leases tables: ``6x7x4``, ``othello size=8``."""
    return board if isinstance(board, str) else "x".join(map(str, board))


@dataclass(frozen=True)
class Side:
    """One side of a pair: a submitted version (its files travel with it, so that a worker on
    another machine can play it) or a reference bot (its SPEC)."""

    key: str  # "sub:<id>" or the reference bot's SPEC
    label: str  # "ann v2", or the SPEC
    kind: str = ""  # the submission's kind; "" for a reference bot
    filename: str = ""
    fingerprint: str = ""
    files: tuple[tuple[str, bytes], ...] = ()
    class_name: str = ""  # the class to play, when the files hold several

    def spec(self, root: Path) -> str:
        """The SPEC to play this side, writing a version's files under `root` once."""
        if not self.kind:
            return self.key
        folder = root / f"{self.key[4:]}-{self.fingerprint}"
        if not folder.is_dir():
            tmp = root / f".{folder.name}.{os.getpid()}.{threading.get_ident()}"
            write_files(tmp, list(self.files))
            try:
                os.rename(tmp, folder)
            except OSError:  # another worker wrote it first
                _remove_tree(tmp)
        return spec_in(folder, self.kind, self.filename, self.class_name)


@dataclass(frozen=True)
class PairJob:
    """A claimed game pair: entry `a` against `b` in `game` with `params` (its `board`) from
    the opening `opening_texts`, both colours."""

    lease_id: int
    a: Side
    b: Side
    board: Board
    number: int  # the pair's number among `a`'s pairs: seeds and game ids
    opening_texts: tuple[str, ...]  # the opening's moves in the game's notation
    timeout_s: float
    isolation: bool
    game: str  # the game's name (`arena.games`) and its parameters
    params: tuple[tuple[str, int], ...]
    #: the sandbox is required (no fallback to unisolated play where the machine lacks it)
    strict: bool = False

    @property
    def board_text(self) -> str:
        return board_text(self.board)

    def rules(self) -> Game:
        """The game the pair plays."""
        return make_game(self.game, dict(self.params))

    @property
    def opening(self) -> tuple[int | str, ...]:
        """The opening as the game's records keep it (`Game.record_fields`: Connect-X's
        columns, another game's move texts)."""
        fields = self.rules().record_fields((), self.opening_texts)
        return tuple(fields["opening"] if "opening" in fields else fields["opening_texts"])


def _remove_tree(path: Path) -> None:
    import shutil  # only on the rare race above

    shutil.rmtree(path, ignore_errors=True)


def _host() -> str:
    return socket.gethostname()


def holder_name(kind: str, pid: int | None = None) -> str:
    """The lease holder of a process of this machine: "<kind>:<host>:<pid>"."""
    return f"{kind}:{_host()}:{os.getpid() if pid is None else pid}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (dead, not yet reaped by its parent) holds nothing
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def reap_dead(lg: League, holders: set[str] | None = None) -> int:
    """Delete the leases of this machine's holders whose process is gone (or of `holders`);
    their pairs are played again. Returns how many were deleted."""
    host = _host()
    dead = []
    for lease_id, holder in lg.conn.execute("SELECT id, holder FROM leases").fetchall():
        kind, _, rest = holder.partition(":")
        h, _, pid = rest.rpartition(":")
        if (holders is not None and holder in holders) or (
                holders is None and h == host and pid.isdigit() and not _alive(int(pid))):
            dead.append(lease_id)
    if dead:
        with lg.conn:
            lg.conn.executemany("DELETE FROM leases WHERE id=?", [(i,) for i in dead])
        log.warning("released %d pair(s) of a worker that is gone; they are played again",
                    len(dead))
    return len(dead)


def release_holders(directory: Path, holders: set[str]) -> None:
    """Delete the leases of `holders` (workers that are gone); a failure is only logged: the
    next claim on this machine reaps them too."""
    try:
        lg = League.open(directory)
        try:
            reap_dead(lg, holders)
        finally:
            lg.conn.close()
    except Exception:
        log.exception("could not release the leases of %s", ", ".join(sorted(holders)))


def plan_next(lg: League) -> tuple[str, str, Board, int] | None:
    """(entry, opponent, board, pair number) of the next pair to play, or None (see the module
    docstring): the league as a `Field` (its tables, and the standings' fit, refitted only when
    a game was stored) and the decision of the `Adaptive` policy
    (`arena.competition.pairing`)."""
    cfg = lg.config
    current: dict[str, int] = {}  # user -> the id of their current version
    for sub in lg.submissions():
        if sub.status in CURRENT:
            current[sub.user] = sub.id
    if not current:
        return None
    entries = [submission_key(sid) for sid in current.values()]
    references = [r for r in cfg.reference_bots if r not in entries]
    previous: dict[str, str] = {}
    for sid in current.values():
        before = previous_of(lg, sid)
        if before is not None:
            previous[submission_key(sid)] = submission_key(before)
    ratings: dict[str, Rating] = {
        submission_key(r.submission_id): Rating(r.elo, r.elo_low, r.elo_high)
        for r in cached_standings(lg)}
    # the last tie-break among entries is the submission id (the older version first)
    rank: dict[str, int] = dict(zip(entries, current.values(), strict=True))
    field = Field(tuple(entries + references), lg.pair_counts(), lg.busy_entries(), ratings,
                  previous, frozenset(references), rank)
    pairing = Adaptive(cfg.pairs_per_submission, cfg.max_pairs_per_submission).next(field)
    if pairing is None:
        return None
    games = cfg.games()
    # the boards rotate with the pair's number, from a start of the entry's own (its id)
    board = games[(pairing.number + field.order(pairing.entry)) % len(games)].board_key()
    return pairing.entry, pairing.opponent, board, pairing.number


def _side(lg: League, key: str) -> Side:
    if not key.startswith("sub:"):
        return Side(key, key)
    sub = lg.submission(int(key[4:]))
    if sub is None:
        raise LeagueError(f"no submission {key[4:]}")
    return Side(key, f"{sub.user} v{sub.version}", sub.kind, sub.filename, sub.fingerprint,
                tuple(lg.submission_files(sub.id)), sub.class_name)


class _Openings:
    """The league's openings per board, made on demand (one stream per board and process) by
    the one opening machinery of every game (`arena.tournament.openings`). The judge is the
    league's game's (`arena.commands.opening_judge(game)`); None: no openings."""

    def __init__(self, judge: Judge | None) -> None:
        self.judge = judge
        self.streams: dict[Board, GameOpenings] = {}

    def get(self, lg: League, game: Game, index: int) -> tuple[str, ...]:
        """The opening of the `index`-th pair on `game`'s board (its moves' texts); () when
        there are none."""
        cfg = lg.config
        if self.judge is None or cfg.opening_plies == 0:
            return ()
        board = game.board_key()
        stream = self.streams.get(board)
        if stream is None:
            stream = self.streams[board] = GameOpenings(game, self.judge, cfg.opening_plies,
                                                        cfg.seed)
        try:
            return stream.get(index).texts
        except UsageError:  # no playable opening of that many plies on this board
            return ()


#: how often `claim` plans outside the write lock before it plans inside it, when another
#: worker keeps changing the league in between
PLAN_TRIES = 3


def claim(lg: League, holder: str, openings: _Openings) -> PairJob | None:
    """Choose the next pair and lease it to `holder`; None if none, or if the league is frozen
    (the final round robin gets the machine; pairs in flight may finish and are stored).

    The plan (and the Elo fit it may need) is made outside the write lock, so the other
    workers are not kept waiting on it; the lock is taken only to insert the lease, after
    checking that nothing the plan read has changed since (`League.pairing_mark`: a game
    stored, a lease taken or given back, an entry changed). If it has, the pair is planned
    again; after `PLAN_TRIES` the plan is made inside the lock. Either way the lease is that
    of a plan made from the league as it is when the lease is inserted, as if the claims
    were made one after the other."""
    reap_dead(lg)
    for attempt in range(PLAN_TRIES + 1):
        in_lock = attempt == PLAN_TRIES
        if not in_lock:
            mark = lg.pairing_mark()
            plan = None if lg.frozen else plan_next(lg)
        lg.conn.execute("BEGIN IMMEDIATE")
        try:
            if in_lock:
                plan = None if lg.frozen else plan_next(lg)
            elif lg.pairing_mark() != mark:
                lg.conn.execute("ROLLBACK")
                continue
            if plan is None or lg.frozen:
                lg.conn.execute("ROLLBACK")
                return None
            a, b, board, number = plan
            cur = lg.conn.execute(
                "INSERT INTO leases (side_a, side_b, board, number, holder, started_at) "
                "VALUES (?,?,?,?,?,?)", (a, b, board_text(board), number, holder, time.time()))
            lease_id = int(cur.lastrowid or 0)
            lg.conn.execute("COMMIT")
            break
        except BaseException:
            with contextlib.suppress(Exception):
                lg.conn.execute("ROLLBACK")
            raise
    games = lg.config.games()
    try:
        game = next(g for g in games if g.board_key() == board)
        opening = openings.get(lg, game, number // len(games))
        return PairJob(lease_id, _side(lg, a), _side(lg, b), board, number, opening,
                       lg.config.timeout_s, lg.config.isolation, game.name,
                       tuple(game.params.items()))
    except BaseException:
        release(lg, lease_id)
        raise


def release(lg: League, lease_id: int) -> None:
    """Give a lease back unplayed (its pair is chosen again later)."""
    with lg.conn:
        lg.conn.execute("DELETE FROM leases WHERE id=?", (lease_id,))


#: the counter of the league's bot-log budget (arena.referee.logcap), in the league's folder
LOG_BUDGET_FILE = "bot-logs.budget"


def settings_for(job: PairJob, log_budget_file: str | None = None,
                 log_budget_mb: float | None = defaults.LOG_BUDGET_MB) -> MatchSettings:
    """The referee's settings for the job; `log_budget_file`: the league's bot-log budget,
    shared by all its workers on this machine (None: each Referee its own), of
    `log_budget_mb` MiB (None: no budget)."""
    return MatchSettings(limits=make_limits(job.timeout_s, where="league"), fresh_process=True,
                         isolation=("namespaces" if job.strict else "auto") if job.isolation
                         else "none", log_budget_file=log_budget_file,
                         log_budget_mb=log_budget_mb)


def play_pair(job: PairJob, referee: Referee, root: Path) -> list[GameRecord]:
    """Play the pair's two games (a moves first, then b), each record labelled with the
    sides' names. A bot's fault is its game's result; a side that cannot even be read (its
    files gone) raises SpecError."""
    spec_a, spec_b = parse_spec(job.a.spec(root)), parse_spec(job.b.spec(root))
    game = job.rules()
    sid = int(job.a.key[4:])
    out = []
    for first in (True, False):
        p1, p2 = (spec_a, spec_b) if first else (spec_b, spec_a)
        s1, s2 = (job.a, job.b) if first else (job.b, job.a)
        rec = referee.run(GameRequest(
            p1, p2, game, seed=1000 * sid + 2 * job.number + (not first),
            game_id=f"league-{sid}-{job.number}-{int(not first)}", opening=job.opening_texts))
        out.append(rec.labelled(player1=s1.label, player2=s2.label))
    return out


def store_pair(lg: League, job: PairJob, records: list[GameRecord]) -> list[int] | None:
    """Store the pair's games and delete its lease, in one transaction. None (nothing stored)
    when the lease is gone: the pair was handed out again, so the other copy counts."""
    lg.conn.execute("BEGIN IMMEDIATE")
    try:
        if lg.conn.execute("SELECT 1 FROM leases WHERE id=?", (job.lease_id,)).fetchone() is None:
            lg.conn.execute("ROLLBACK")
            return None
        ids = []
        for first, rec in zip((True, False), records, strict=True):
            s1, s2 = (job.a.key, job.b.key) if first else (job.b.key, job.a.key)
            score = 1.0 if rec.winner == 1 else 0.0 if rec.winner == 2 else 0.5
            faulted = {1: s1, 2: s2}.get(rec.offender or 0, "") if rec.is_fault else ""
            ids.append(insert_game(lg, s1, s2, job.board_text, score, rec.reason.value,
                                   faulted, rec))
        lg.conn.execute("DELETE FROM leases WHERE id=?", (job.lease_id,))
        lg.conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(Exception):
            lg.conn.execute("ROLLBACK")
        raise
    return ids


def queue_state(lg: League) -> dict[str, Any]:
    """What the admin page shows: checks waiting, versions rating, games played, pairs being
    played and by whom."""
    counts = Counter(s.status for s in lg.submissions())
    (played,) = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()
    leases = lg.conn.execute("SELECT side_a, side_b, board, holder, started_at FROM leases "
                             "ORDER BY id").fetchall()
    now = time.time()
    return {"checks waiting": counts[Status.QUEUED] + counts[Status.CHECKING],
            "versions rating": sum(counts[s] for s in CURRENT),
            "versions failed": counts[Status.FAILED],
            "versions disabled": counts[Status.DISABLED],
            "games played": played,
            "pairs in flight": [f"{a} vs {b} on {board} ({holder}, {now - t:.0f} s)"
                                for a, b, board, holder, t in leases] or "none"}


def run_worker(directory: Path, judge: Judge | None, *, idle_s: float = 0.5,
               stop: threading.Event | None = None, max_pairs: int | None = None,
               oracle_factory: OracleFactory | None = None) -> int:
    """Claim, play and store pairs until `stop` is set (or `max_pairs` are stored, or, with
    `max_pairs`, nothing is left to play). Returns the number of pairs stored. With
    `oracle_factory` (the command layer's analysis search), the games of each stored pair
    that a student lost are then analysed (`arena.league.analysis`; a failure is logged)."""
    directory = Path(directory)
    analyser = Analyser(oracle_factory) if oracle_factory is not None else None
    holder = holder_name("local")
    openings = _Openings(judge)
    root = directory / "work"
    root.mkdir(exist_ok=True)
    stop = stop or threading.Event()
    stored = 0
    referees: dict[tuple[float, bool], Referee] = {}
    try:
        while not stop.is_set() and (max_pairs is None or stored < max_pairs):
            lg = League.open(directory)
            try:
                job = claim(lg, holder, openings)
            finally:
                lg.conn.close()
            if job is None:
                if max_pairs is not None:
                    break
                stop.wait(idle_s)
                continue
            key = (job.timeout_s, job.isolation)
            if key not in referees:
                referees[key] = Referee(settings_for(job, str(directory / LOG_BUDGET_FILE)))
            lg = League.open(directory)
            try:
                try:
                    records = play_pair(job, referees[key], root)
                except SpecError as exc:
                    log.error("pair %s vs %s not played: %s", job.a.label, job.b.label, exc)
                    release(lg, job.lease_id)
                    stop.wait(idle_s)
                    continue
                ids = store_pair(lg, job, records)
                if ids is not None:
                    stored += 1
                    if analyser is not None:
                        _analyse(lg, analyser, ids)
            finally:
                lg.conn.close()
    finally:
        for referee in referees.values():
            referee.close()
    return stored


def _analyse(lg: League, analyser: Analyser, game_ids: list[int]) -> None:
    """Analyse the stored games a student lost (within the league's budget); a failure is
    logged, never stops the worker."""
    for gid in game_ids:
        try:
            analyser.analyse_game(lg, gid)
        except Exception as exc:
            log.error("analysis of game %d failed: %s", gid, _one_line(exc), exc_info=True)


def worker_main(directory: Path, judge: Judge | None,
                oracle_factory: OracleFactory | None = None) -> int:
    """`cxarena league worker DIR`: one worker process, as `LocalWorkers` starts it; it dies
    with the process that started it. An error that stops it ends its output with one line,
    ``league worker: error: ...``, that `LocalWorkers` shows in the server's terminal."""
    die_with_parent()
    logging.basicConfig(level=logging.WARNING, format="league worker: %(message)s")
    try:
        League.open(directory).conn.close()
        run_worker(directory, judge, oracle_factory=oracle_factory)
    except Exception as exc:  # shown by the server (its terminal, the admin page)
        log.exception("stopped by an error")
        print(f"league worker: error: {_one_line(exc)}", file=sys.stderr, flush=True)
        return 1
    return 0


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."


#: the file in the league folder where `LocalWorkers` keeps each worker's restarts and last
#: error (`worker_health` reads it)
HEALTH_FILE = "workers.json"
#: a worker that dies is started again after 1 s, then 2, 4, ... up to this many seconds while
#: it keeps dying; one that ran this long before dying starts over at 1 s
BACKOFF_FIRST_S = 1.0
BACKOFF_MAX_S = 60.0


class WorkerHealth(NamedTuple):
    """One rating-game worker as the admin page shows it."""

    worker: str  # "worker 1", ...
    restarts: int  # since the server started
    last_error: str  # the last line of its last death ("" if it never died)


def worker_health(directory: Path) -> list[WorkerHealth]:
    """(worker, restarts, last error) of each worker process of the league's server (written by
    `LocalWorkers` at its start and at every death of a worker); [] when no server has run
    local workers."""
    try:
        data = json.loads((Path(directory) / HEALTH_FILE).read_text(encoding="utf-8"))
        return [WorkerHealth(str(w["worker"]), int(w["restarts"]), str(w["last_error"]))
                for w in data["workers"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


@dataclass
class _Slot:
    """One worker process of `LocalWorkers` and its history."""

    number: int
    proc: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    log_offset: int = 0
    restarts: int = 0
    failures: int = 0  # deaths in a row, each soon after its start
    next_start: float | None = None  # when a dead one is started again
    last_error: str = ""


def _announce(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class LocalWorkers:
    """N worker processes (``cxarena league worker DIR``) on this machine; one that dies is
    replaced, and its lease released: at once when it ran a while, else after a backoff
    (`BACKOFF_FIRST_S` doubling up to `BACKOFF_MAX_S`), so a worker that cannot start (a bad
    league.yaml) is not restarted many times a second. Each death is announced (default: a
    line on stderr, the server's terminal) with the last line the worker wrote, and kept in
    ``DIR/workers.json`` (`worker_health`). Worker N's output goes to ``DIR/worker-N.log``."""

    def __init__(self, directory: Path, count: int, poll_s: float = 0.5,
                 command: list[str] | None = None,
                 announce: Callable[[str], None] = _announce) -> None:
        self.dir = Path(directory)
        self.count = max(1, count)
        self.poll_s = poll_s
        self.command = command or [sys.executable, "-m", "arena", "league", "worker",
                                   str(self.dir)]
        self.announce = announce
        self.slots = [_Slot(i + 1) for i in range(self.count)]
        self.procs: list[subprocess.Popen[bytes]] = []
        self.restarts = 0
        self._stop = threading.Event()
        self._started = threading.Event()
        lg = League.open(self.dir)
        try:  # a pair of a worker of a killed server is played again
            reap_dead(lg)
        finally:
            lg.conn.close()
        # the processes are started (and restarted) by this one long-lived thread: they die
        # with it (PR_SET_PDEATHSIG fires when the thread that started a process ends)
        self.thread = threading.Thread(target=self._run, name="league-workers", daemon=True)
        self.thread.start()
        self._started.wait(30)

    def _log_path(self, slot: _Slot) -> Path:
        return self.dir / f"worker-{slot.number}.log"

    def _spawn(self, slot: _Slot) -> None:
        path = self._log_path(slot)
        with open(path, "ab") as out:
            slot.log_offset = out.tell()
            slot.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=out, env=dict(os.environ, **{PARENT_ENV: str(
                                             os.getpid())}))
        slot.started_at = time.monotonic()
        slot.next_start = None
        self.procs = [s.proc for s in self.slots if s.proc is not None]

    def _last_error(self, slot: _Slot) -> str:
        """The worker's own error line, else the last line it wrote since it started."""
        try:
            with open(self._log_path(slot), "rb") as f:
                f.seek(max(slot.log_offset, f.seek(0, os.SEEK_END) - 16384))
                lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines()
                         if ln.strip()]
        except OSError:
            return ""
        for line in reversed(lines):
            if line.startswith("league worker: error: "):
                return line[len("league worker: error: "):]
        return lines[-1][:500] if lines else ""

    def _write_health(self) -> None:
        data = {"updated": time.time(), "workers": [
            {"worker": f"worker {s.number}", "pid": s.proc.pid if s.proc else None,
             "restarts": s.restarts, "last_error": s.last_error} for s in self.slots]}
        tmp = self.dir / f".{HEALTH_FILE}.{os.getpid()}"
        try:
            tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
            os.replace(tmp, self.dir / HEALTH_FILE)
        except OSError:
            log.exception("could not write %s", HEALTH_FILE)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def _died(self, slot: _Slot, proc: subprocess.Popen[bytes]) -> None:
        now = time.monotonic()
        release_holders(self.dir, {holder_name("local", proc.pid)})
        if now - slot.started_at >= BACKOFF_MAX_S:
            slot.failures = 0  # it ran a while: not one that cannot start
        delay = min(BACKOFF_MAX_S, BACKOFF_FIRST_S * 2 ** slot.failures)
        slot.failures += 1
        slot.next_start = now + delay
        slot.last_error = self._last_error(slot) or f"exit status {proc.returncode}"
        self._write_health()
        self.announce(f"league: worker {slot.number} (pid {proc.pid}) stopped (exit status "
                      f"{proc.returncode}): {slot.last_error}; starting it again in "
                      f"{delay:.0f} s (its output: {self._log_path(slot)})")

    def _run(self) -> None:
        for slot in self.slots:
            self._spawn(slot)
        self._write_health()
        self._started.set()
        while not self._stop.wait(self.poll_s):
            for slot in self.slots:
                proc = slot.proc
                if proc is None or (slot.next_start is None and proc.poll() is None):
                    continue
                if slot.next_start is None:
                    self._died(slot, proc)
                if slot.next_start is not None and time.monotonic() >= slot.next_start:
                    if self._stop.is_set():
                        break
                    self._spawn(slot)
                    slot.restarts += 1
                    self.restarts += 1
                    self._write_health()
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=15)
        release_holders(self.dir, {holder_name("local", p.pid) for p in self.procs})


def _play_remote(job: PairJob) -> list[GameRecord]:
    """A Dask task: play one pair on whichever worker runs it."""
    root = Path(tempfile.gettempdir()) / "cxarena-league"
    root.mkdir(exist_ok=True)
    with Referee(settings_for(job, str(root / LOG_BUDGET_FILE))) as referee:
        return play_pair(job, referee, root)


class DaskWorkers:
    """Pairs played on a Dask cluster: a thread of this process claims them (as many at a time
    as the cluster has worker threads), submits each as a task and stores its games."""

    def __init__(self, directory: Path, scheduler: str, judge: Judge | None,
                 idle_s: float = 0.5, connect_timeout_s: float = 20.0,
                 strict: bool = True) -> None:
        # Dask is imported only when a league is served with --scheduler
        from distributed import Client

        self.dir = Path(directory)
        self.idle_s = idle_s
        self.holder = holder_name("dask")
        self.openings = _Openings(judge)
        self.strict = strict  # a Dask machine without the sandbox fails the pair, never plays
        try:
            self.client = Client(scheduler, timeout=f"{connect_timeout_s}s")
        except OSError as exc:
            raise LeagueError(f"--scheduler {scheduler}: cannot reach the Dask scheduler "
                              f"({exc}); start it with `dask scheduler` and its workers with "
                              f"`dask worker {scheduler}`") from exc
        lg = League.open(self.dir)
        try:
            reap_dead(lg)
        finally:
            lg.conn.close()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="league-dask", daemon=True)
        self.thread.start()

    def _slots(self) -> int:
        info = self.client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))

    def _run(self) -> None:
        from distributed import wait  # see __init__

        running: dict[Any, PairJob] = {}
        while not self._stop.is_set():
            try:
                lg = League.open(self.dir)
                try:
                    while len(running) < self._slots():
                        job = claim(lg, self.holder, self.openings)
                        if job is None:
                            break
                        job = replace(job, strict=self.strict)
                        running[self.client.submit(_play_remote, job, pure=False)] = job
                finally:
                    lg.conn.close()
                if not running:
                    self._stop.wait(self.idle_s)
                    continue
                try:
                    done, _ = wait(list(running), timeout=self.idle_s,
                                   return_when="FIRST_COMPLETED")
                except TimeoutError:  # none finished within idle_s
                    continue
                for fut in done:
                    self._finish(fut, running.pop(fut))
            except Exception:  # the league keeps serving; the pairs are handed out again
                log.exception("league Dask coordinator")
                self._stop.wait(self.idle_s)
        for fut in running:
            fut.cancel()

    def _finish(self, fut: Any, job: PairJob) -> None:
        lg = League.open(self.dir)
        try:
            try:
                records = fut.result()
            except Exception as exc:  # a task Dask gave up on: the pair is played again
                log.error("pair %s vs %s failed on the cluster: %s", job.a.label, job.b.label,
                          exc)
                release(lg, job.lease_id)
                return
            store_pair(lg, job, records)
        finally:
            lg.conn.close()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=15)
        release_holders(self.dir, {self.holder})
        with contextlib.suppress(Exception):
            self.client.close()


def start_workers(directory: Path, workers: int | None, scheduler: str | None,
                  judge: Judge | None, strict: bool = True) -> LocalWorkers | DaskWorkers:
    """The league's game workers: Dask when a scheduler is named, else local processes.
    `strict`: the Dask workers must sandbox the bots (serve checked this machine itself)."""
    if scheduler:
        return DaskWorkers(directory, scheduler, judge, strict=strict)
    return LocalWorkers(directory, workers or 1)

