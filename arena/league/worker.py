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
`arena.competition.openings`, the same for every entry on that board), played twice with the
colours swapped through the referee's one path (`GameRequest`).

**Leases.** Claiming a pair (`claim`) inserts a row in ``leases`` naming its holder (the worker
process, or the server that handed it to Dask) in the same transaction that chose it; storing
the pair (`store_pair`) inserts both games and their records and deletes the lease in one
transaction. A holder that dies (even by ``kill -9``) leaves its lease behind; the next claim on
that machine sees that the process is gone and deletes it, so the pair is played again. No
finished pair is lost and none is stored twice: a pair whose lease is gone is not stored.

No pair is claimed once the league is frozen: the final round robin gets the machine (the pairs
in flight finish and are stored).

**Workers.** The executors of tournaments play the pairs (`arena.league.feed`: a source of
games that claims a pair when a worker is free and stores it when both games are back; the
executor supervises and replaces the worker processes, locally or on Dask; its `run_worker`
plays the same source in one process, for tests and benchmarks). Either way a bot's fault is
the game's result.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from arena import defaults
from arena.competition.jobs import GameJob
from arena.competition.openings import GameOpenings, Judge
from arena.competition.pairing import Adaptive, Field, Rating
from arena.competition.settings import Isolation, PlaySettings, referee_settings
from arena.entrants.specs import SpecError, parse_spec
from arena.errors import UsageError
from arena.games import Game
from arena.league.analysis import Analyser
from arena.league.checks import WORK, spec_in, write_files
from arena.league.db import League, LeagueError, LeagueGames, Rollback, with_sides
from arena.league.entries import CURRENT, Status, submission_key, submission_of
from arena.league.rating import previous_of
from arena.league.standings import cached_standings, side_name
from arena.records import GameRecord, board_key
from arena.referee.referee import MatchSettings, Referee

__all__ = ["LeasedPair", "Openings", "VersionFiles", "WorkerHealth", "analyse_lost", "board_text",
           "claim", "league_settings", "one_line", "pair_games", "plan_next", "play_pair",
           "queue_state", "reap_dead", "release", "store_pair", "worker_health", "write_health"]

log = logging.getLogger("arena.league.worker")

#: a board as the league's tables name it (`Game.board_key`): Connect-X's (M, N, K), another
#: game's label (``othello size=8``)
Board = tuple[int, int, int] | str


def board_text(board: Board) -> str:
    """The board in the games and leases tables: ``6x7x4``, ``othello size=8``."""
    return board if isinstance(board, str) else "x".join(map(str, board))


@dataclass(frozen=True)
class VersionFiles:
    """A submitted version's files, travelling with its games (`GameJob.files1`, `.files2`)
    so that a worker on another machine can play it (`arena.competition.jobs.BotFiles`)."""

    submission_id: int
    kind: str  # the submission's kind (`arena.league.checks.spec_in`)
    filename: str
    fingerprint: str
    files: tuple[tuple[str, bytes], ...]
    class_name: str = ""  # the class to play, when the files hold several

    def spec(self, root: Path) -> str:
        """The SPEC to play this version, writing its files under `root` once."""
        folder = root / f"{self.submission_id}-{self.fingerprint}"
        if not folder.is_dir():
            tmp = root / f".{folder.name}.{os.getpid()}.{threading.get_ident()}"
            write_files(tmp, list(self.files))
            try:
                os.rename(tmp, folder)
            except OSError:  # another worker wrote it first
                _remove_tree(tmp)
        return spec_in(folder, self.kind, self.filename, self.class_name)


@dataclass(frozen=True)
class LeasedPair:
    """A claimed pair: its two games as the executors play them (the core's `GameJob`s, `a`
    moving first in the first), and only what a `GameJob` cannot carry: the lease, deleted
    when the pair is stored, and the entries (`arena.league.entries`) its games are stored
    under and its faults charged to (a version's SPEC is the path of its files, not its
    entry)."""

    lease_id: int
    a: str
    b: str
    games: tuple[GameJob, GameJob]

    @property
    def board_text(self) -> str:
        """The pair's board as the games table names it (`board_text`)."""
        return board_text(board_key(self.games[0].rules))


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
    for lease in lg.leases():
        kind, _, rest = lease.holder.partition(":")
        h, _, pid = rest.rpartition(":")
        if (holders is not None and lease.holder in holders) or (
                holders is None and h == host and pid.isdigit() and not _alive(int(pid))):
            dead.append(lease.id)
    if dead:
        lg.delete_leases(dead)
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
    pairing = Adaptive(cfg.file.pairs_per_submission, cfg.file.max_pairs_per_submission).next(field)
    if pairing is None:
        return None
    games = cfg.games()
    # the boards rotate with the pair's number, from a start of the entry's own (its id)
    board = board_key(games[(pairing.number + field.order(pairing.entry)) % len(games)])
    return pairing.entry, pairing.opponent, board, pairing.number


class _Entry(NamedTuple):
    """One side of a pair as its games name it: the display name, the SPEC that plays it
    here, and its files when they travel with its games (None: a reference bot, or no
    travel)."""

    label: str
    spec: str
    files: VersionFiles | None


def _entry(lg: League, key: str, root: Path, travel: bool) -> _Entry:
    """The entry `key` to play: a version's files written under `root` once (and travelling
    with its games when `travel`), a reference bot by its SPEC. SpecError when the files
    cannot be written."""
    sid = submission_of(key)
    if sid is None:  # a reference bot, named as on the leaderboard (players.L1 -> L1)
        return _Entry(side_name(lg, key), key, None)
    sub = lg.submission(sid)
    if sub is None:
        raise LeagueError(f"no submission {sid}")
    files = VersionFiles(sid, sub.kind, sub.filename, sub.fingerprint,
                         tuple(lg.submission_files(sub.id)), sub.class_name)
    label = f"{sub.user} v{sub.version}"
    try:
        spec = files.spec(root)
    except OSError as exc:
        raise SpecError(f"{label}: its files could not be written: {exc}") from exc
    return _Entry(label, spec, files if travel else None)


def pair_games(lease_id: int, a: _Entry, b: _Entry, sid: int, number: int, game: Game,
               opening: tuple[str, ...]) -> tuple[GameJob, GameJob]:
    """The pair's two games (a moves first, then b) from the opening's move texts. The game
    ids and seeds are the league's: ``league-<a's id>-<pair number>-<0|1>``, seed
    ``1000 * a's id + 2 * number + (0|1)``."""
    out = []
    for first in (True, False):
        s1, s2 = (a, b) if first else (b, a)
        out.append(GameJob(
            f"league-{sid}-{number}-{int(not first)}", game, s1.label, s2.label, s1.spec,
            s2.spec, seed=1000 * sid + 2 * number + (not first), opening=opening,
            pair_id=f"lease-{lease_id}", files1=s1.files, files2=s2.files))
    return out[0], out[1]


class Openings:
    """The league's openings per board, made on demand (one stream per board and process) by
    the one opening machinery of every game (`arena.competition.openings`). The judge is the
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
        board = board_key(game)
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


def claim(lg: League, holder: str, openings: Openings, root: Path | None = None,
          travel: bool = False) -> LeasedPair | None:
    """Choose the next pair, lease it to `holder` and return its games (`pair_games`); None
    if none, or if the league is frozen (the final round robin gets the machine; pairs in
    flight may finish and are stored). A version's files are written under `root` (default
    ``DIR/work``) once; with `travel` they also go with its games (to a Dask worker on
    another machine); when that fails, the lease is given back and SpecError raised.

    The plan (and the Elo fit it may need) is made outside the write lock, so the other
    workers are not kept waiting on it; the lock is taken only to insert the lease, after
    checking that nothing the plan read has changed since (`League.pairing_mark`: a game
    stored, a lease taken or given back, an entry changed). If it has, the pair is planned
    again; after `PLAN_TRIES` the plan is made inside the lock. Either way the lease is that
    of a plan made from the league as it is when the lease is inserted, as if the claims
    were made one after the other."""
    reap_dead(lg)
    lease_id = 0
    for attempt in range(PLAN_TRIES + 1):
        in_lock = attempt == PLAN_TRIES
        if not in_lock:
            mark = lg.pairing_mark()
            plan = None if lg.frozen else plan_next(lg)
        with lg.write_lock():
            if in_lock:
                plan = None if lg.frozen else plan_next(lg)
            elif lg.pairing_mark() != mark:
                raise Rollback  # planned again
            if plan is None or lg.frozen:
                return None  # nothing was written: the commit is empty
            a, b, board, number = plan
            lease_id = lg.add_lease(a, b, board_text(board), number, holder)
        if lease_id:
            break
    if not lease_id or plan is None:
        return None
    a, b, board, number = plan
    games = lg.config.games()
    try:
        game = next(g for g in games if board_key(g) == board)
        opening = openings.get(lg, game, number // len(games))
        sid = submission_of(a)
        assert sid is not None, "a pair is always claimed for a version"
        where = lg.dir / WORK if root is None else root
        return LeasedPair(lease_id, a, b, pair_games(
            lease_id, _entry(lg, a, where, travel), _entry(lg, b, where, travel), sid, number,
            game, opening))
    except BaseException:
        release(lg, lease_id)
        raise


def release(lg: League, lease_id: int) -> None:
    """Give a lease back unplayed (its pair is chosen again later)."""
    lg.delete_leases([lease_id])


#: the counter of the league's bot-log budget (arena.referee.logcap), in the league's folder
LOG_BUDGET_FILE = "bot-logs.budget"


def league_settings(play: PlaySettings, strict: bool, log_budget_file: str | None = None,
                    log_budget_mb: float | None = defaults.LOG_BUDGET_MB) -> MatchSettings:
    """The referee's settings of the league's rating games: every limit of `play` (the
    league's, `LeagueConfig.play`), a fresh bot process every game, sandboxed as the league
    says. `strict`: the sandbox is required (the server checked this machine, or another
    machine must have it); else (`serve --unsafe-no-isolation`) the sandbox where the machine
    has one. `log_budget_file`: the league's bot-log budget, shared by all its workers on this
    machine (None: each Referee its own), of `log_budget_mb` MiB (None: no budget)."""
    loose = not strict and play.isolation is not Isolation.NONE
    return referee_settings(play, "league.yaml", isolation=Isolation.AUTO if loose else None,
                            fresh_process=True, log_budget_file=log_budget_file,
                            log_budget_mb=log_budget_mb)


def play_pair(pair: LeasedPair, referee: Referee) -> list[GameRecord]:
    """Play the pair's two games here, one after the other, each record labelled with the
    sides' names. A bot's fault is its game's result; a side that cannot even be read (its
    files gone) raises SpecError."""
    out = []
    specs = [(parse_spec(g.spec1), parse_spec(g.spec2)) for g in pair.games]
    for game, (bot1, bot2) in zip(pair.games, specs, strict=True):
        rec = referee.run(game.request(bot1, bot2))
        out.append(rec.labelled(player1=game.p1, player2=game.p2))
    return out


def store_pair(lg: League, pair: LeasedPair, records: list[GameRecord]) -> list[int] | None:
    """Store the pair's games and delete its lease, in one transaction; the ids of the games
    stored. Each record is labelled with its game's id and its sides (`with_sides`), and its
    row derived from it (`LeagueGames.add`). None (nothing stored) when the lease is gone:
    the pair was handed out again, so the other copy counts."""
    ids: list[int] = []
    with lg.write_lock():
        if not lg.has_lease(pair.lease_id):
            return None
        store = LeagueGames(lg)
        for first, job, rec in zip((True, False), pair.games, records, strict=True):
            s1, s2 = (pair.a, pair.b) if first else (pair.b, pair.a)
            game_id = store.insert(with_sides(rec.labelled(game_id=job.game_id), s1, s2))
            if game_id is not None:
                ids.append(game_id)
        lg.delete_leases([pair.lease_id], in_lock=True)
    return ids


def queue_state(lg: League) -> dict[str, Any]:
    """What the admin page shows: checks waiting, versions rating, games played, pairs being
    played and by whom."""
    counts = Counter(s.status for s in lg.submissions())
    played = LeagueGames(lg).count()
    leases = [(x.side_a, x.side_b, x.board, x.holder, x.started_at) for x in lg.leases()]
    now = time.time()
    return {"checks waiting": counts[Status.QUEUED] + counts[Status.CHECKING],
            "versions rating": sum(counts[s] for s in CURRENT),
            "versions failed": counts[Status.FAILED],
            "versions disabled": counts[Status.DISABLED],
            "games played": played,
            "pairs in flight": [f"{a} vs {b} on {board} ({holder}, {now - t:.0f} s)"
                                for a, b, board, holder, t in leases] or "none"}


def analyse_lost(lg: League, analyser: Analyser, game_ids: list[int]) -> None:
    """Analyse the stored games a student lost (within the league's budget); a failure is
    logged, never stops the worker."""
    for gid in game_ids:
        try:
            analyser.analyse_game(lg, gid)
        except Exception as exc:
            log.error("analysis of game %d failed: %s", gid, one_line(exc), exc_info=True)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 500 else text[:497] + "..."


#: the file in the league folder where the server keeps each rating-game worker's restarts
#: and last error (`worker_health` reads it, `write_health` writes it)
HEALTH_FILE = "workers.json"


class WorkerHealth(NamedTuple):
    """One rating-game worker as the admin page shows it."""

    worker: str  # "worker 1", ...
    restarts: int  # since the server started
    last_error: str  # the last line of its last death ("" if it never died)


def worker_health(directory: Path) -> list[WorkerHealth]:
    """(worker, restarts, last error) of each rating-game worker of the league's server
    (written at its start and at every death of a worker, `arena.league.feed`); [] when no
    server has run local workers."""
    try:
        data = json.loads((Path(directory) / HEALTH_FILE).read_text(encoding="utf-8"))
        return [WorkerHealth(str(w["worker"]), int(w["restarts"]), str(w["last_error"]))
                for w in data["workers"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def write_health(directory: Path, rows: list[WorkerHealth]) -> None:
    """Replace ``DIR/workers.json`` with `rows` (atomically; a failure is only logged)."""
    data = {"updated": time.time(), "workers": [r._asdict() for r in rows]}
    tmp = Path(directory) / f".{HEALTH_FILE}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, Path(directory) / HEALTH_FILE)
    except OSError:
        log.exception("could not write %s", HEALTH_FILE)
