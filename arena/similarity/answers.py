"""Play answers kept once per version (issue #41, cost): each league version's moves in the
play-similarity positions, and the reference bots', stored in the league's database (table
``similarity_answers``), so that comparing is instant and only what was never asked is asked.

**What is kept.** One row per entry (a version: ``sub:<id>`` with its fingerprint; a reference
bot: its SPEC, fingerprint ``""``) and *setup* (`Setup.key`: the board, the time per move, the
positions asked and the seed; answers asked under another setup are not mixed in). A league
has one setup per board it plays (`league_setups`: the board's published positions, else
positions of its own games, `arena.similarity.positions`), so each version has a row per
board; a pair is compared over every board's positions, one board after the other
(`setups_answers`). A row holds
both asks of the positions asked so far (``asked``: positions 0 to asked-1, each asked twice,
one after the other, with the seeds `arena.similarity.play.ask` gives them), the wall seconds
the asking took (``spent_s``), the faults, and its state:

- ``asking``: more positions to ask (the asking was held or stopped; it goes on from there);
- ``done``: every position asked;
- ``partial``: the background's budget (`similarity_budget_s` a version) ran out first; the
  positions not asked stay unasked (a pair's share is over the positions both answered) until
  `cxarena league similarity DIR` asks them (it has no budget);
- ``failed``: the bot cannot be asked (it does not load; ``note`` says why).

**Who asks.** `fill` asks entries for what they lack, each position's two asks at a time and
stored at once: the server's background worker (`arena.similarity.background`, within the
budget, held while checks wait or the final runs) and `league_similarity` (everything). The
bots run as the league's rating games run them (`arena.league.worker.league_settings`: its
sandbox, its bot-log budget), at similarity's time per move.

**Who reads.** `league_similarity` (and so `cxarena league similarity DIR`), and the admin
pages (`list_run`, `pair_run`: a `StoredRun` of the versions' stored answers, judged against
the band of the reference bots' stored answers when the page is opened; nothing is asked).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from arena.similarity.play import (
    MOVE_TIME_S,
    REFERENCE_BOTS,
    Answers,
    Position,
    Reference,
    ask_position,
    judge,
    move_time,
    positions_path,
)
from arena.similarity.positions import board_count, game_positions, published
from arena.similarity.report import Pair, current_versions
from arena.similarity.store import StoredRun, load

__all__ = ["Setup", "Stored", "Target", "board_positions", "fill", "league_board",
           "league_boards", "league_setup", "league_setups", "league_time", "list_run",
           "load_stored", "pair_run", "reference_targets", "save_stored", "setups_answers",
           "stored_run", "version_target"]

#: the states of a row (module docstring)
ASKING, DONE, PARTIAL, FAILED = "asking", "done", "partial", "failed"
#: the seed of the asks (`arena.similarity.play.ask`'s)
SEED = 41


@dataclass(frozen=True)
class Setup:
    """How the answers are asked: board, time per move (seconds), positions and seed."""

    board: tuple[int, int, int]
    time_s: float
    positions: tuple[Position, ...]
    seed: int = SEED

    @property
    def key(self) -> str:
        """The setup as the table keys it: a change of any part asks again."""
        digest = hashlib.sha256(repr([(p.moves, p.best) for p in self.positions])
                                .encode()).hexdigest()[:12]
        M, N, K = self.board
        return (f"{M}x{N}x{K} {self.time_s:g}s {len(self.positions)} positions {digest} "
                f"seed {self.seed}")


def league_boards(cfg: Any) -> list[tuple[int, int, int]] | None:
    """Every board the league's rating games are played on, in its order, once each; None
    for another game's league (or a board set not found here)."""
    try:
        boards: list[tuple[int, int, int]] = [tuple(b) for b in cfg.boards()]
    except Exception:  # another game's league, or a board set not found here
        return None
    return list(dict.fromkeys(boards)) or None


def league_board(cfg: Any) -> tuple[int, int, int] | None:
    """The league's first board with a published position set, else its first board (the
    report's headline board); None for another game's league."""
    boards = league_boards(cfg)
    if boards is None:
        return None
    return next((b for b in boards if positions_path(*b).is_file()), boards[0])


def league_time(cfg: Any) -> float:
    """The league's time per move for similarity: its limit, at most half a second (enough
    for a bot's style, cheap for a class)."""
    return min(float(cfg.timeout_s), 5 * MOVE_TIME_S)


def board_positions(league: Any, board: tuple[int, int, int], count: int) -> list[Position]:
    """The first `count` positions of `board` for the league: its published set (a solver
    board), else from the league's stored games (`arena.similarity.positions.game_positions`,
    oldest game first), only once its games give all `count` (so that the set, once made, no
    longer changes as games are played): [] until then."""
    chosen = published(board, count)
    if chosen is not None:
        return chosen
    got = game_positions(_games_of(league, board), board, count)
    return got if len(got) == count else []


def _games_of(league: Any, board: tuple[int, int, int]) -> Iterator[Any]:
    """The league's stored game records of `board`, oldest first, read as they are used (the
    table `game_records` through `arena.league.db.LeagueGames.record_texts`, of one board)."""
    from arena.league.db import LeagueGames  # the league's stored games
    from arena.records import GameRecord  # the stored records' format

    M, N, K = board
    for _, _, _, text in LeagueGames(league).record_texts(f"{M}x{N}x{K}"):
        yield GameRecord.from_dict(json.loads(text))


def league_setups(league: Any, positions: int, time_s: float | None = None) -> list[Setup]:
    """One setup per board of the league (`league_boards`) with positions to ask
    (`board_positions`; `board_count` of them: `positions` spread over the boards), at
    `league_time` unless `time_s`; []: none."""
    boards = league_boards(league.config)
    if not boards:
        return []
    n = board_count(positions, len(boards))
    t = time_s if time_s is not None else league_time(league.config)
    out = []
    for board in boards:
        chosen = board_positions(league, board, n)
        if chosen:
            out.append(Setup(board, t, tuple(chosen)))
    return out


def league_setup(league: Any, positions: int, time_s: float | None = None) -> Setup | None:
    """The league's first setup (`league_setups`: of its only board, for a league of one
    board); None: no board to ask on."""
    setups = league_setups(league, positions, time_s)
    return setups[0] if setups else None


def setups_answers(rows: Sequence[dict[tuple[str, str], Stored]], setups: Sequence[Setup],
                   target: Target, label: str) -> Answers | None:
    """`target`'s answers over every setup, one after the other (`rows`: each setup's stored
    rows; a setup it has no usable row of counts as not asked); None: none usable."""
    first: tuple[int | None, ...] = ()
    again: tuple[int | None, ...] = ()
    spent_s, faults, usable = 0.0, 0, False
    for setup, stored in zip(setups, rows, strict=True):
        n = len(setup.positions)
        row = stored.get((target.entry, target.fingerprint))
        if row is not None and row.usable:
            a = row.answers(label, n)
            usable = True
            first, again = first + a.first, again + a.again
            spent_s, faults = spent_s + a.seconds, faults + a.faults
        else:
            first, again = first + (None,) * n, again + (None,) * n
    return Answers(label, first, again, round(spent_s, 3), faults) if usable else None


@dataclass(frozen=True)
class Stored:
    """One entry's stored answers under one setup (module docstring)."""

    entry: str
    fingerprint: str
    first: tuple[int | None, ...] = ()
    again: tuple[int | None, ...] = ()
    asked: int = 0
    spent_s: float = 0.0
    faults: int = 0
    state: str = ASKING
    note: str = ""
    updated_at: float = 0.0

    def answers(self, label: str, positions: int) -> Answers:
        """As `Answers` over `positions` positions (None where not asked)."""
        pad = (None,) * max(0, positions - self.asked)
        return Answers(label, self.first[:positions] + pad, self.again[:positions] + pad,
                       round(self.spent_s, 3), self.faults)

    @property
    def usable(self) -> bool:
        """Whether it can be compared (some position asked)."""
        return self.asked > 0 and self.state != FAILED


def _moves(text: str) -> tuple[int | None, ...]:
    return tuple(None if v is None else int(v) for v in json.loads(text))


def load_stored(conn: Any, setup: Setup, entries: Sequence[tuple[str, str]] | None = None
                ) -> dict[tuple[str, str], Stored]:
    """The stored rows of `setup`, by (entry, fingerprint) (of `entries` only, if given)."""
    rows = conn.execute("SELECT entry, fingerprint, first, again, asked, spent_s, faults, "
                        "state, note, updated_at FROM similarity_answers WHERE setup=?",
                        (setup.key,)).fetchall()
    wanted = None if entries is None else set(entries)
    out = {}
    for e, fp, first, again, asked, spent, faults, state, note, at in rows:
        if wanted is not None and (e, fp) not in wanted:
            continue
        out[(e, fp)] = Stored(e, fp, _moves(first), _moves(again), int(asked), float(spent),
                              int(faults), str(state), str(note), float(at))
    return out


def save_stored(conn: Any, setup: Setup, row: Stored) -> None:
    """Store `row`, unless the table holds more positions of it (the server's background and
    `cxarena league similarity DIR` asking one entry at once: the furthest one is kept)."""
    with conn:
        conn.execute("INSERT INTO similarity_answers (entry, fingerprint, setup, first, again, "
                     "asked, spent_s, faults, state, note, updated_at) VALUES "
                     "(?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (entry, fingerprint, setup) DO UPDATE "
                     "SET first=excluded.first, again=excluded.again, asked=excluded.asked, "
                     "spent_s=excluded.spent_s, faults=excluded.faults, state=excluded.state, "
                     "note=excluded.note, updated_at=excluded.updated_at "
                     "WHERE excluded.asked >= similarity_answers.asked",
                     (row.entry, row.fingerprint, setup.key, json.dumps(list(row.first)),
                      json.dumps(list(row.again)), row.asked, row.spent_s, row.faults,
                      row.state, row.note, row.updated_at))


@dataclass(frozen=True)
class Target:
    """An entry to ask: a version (`submission_id`) or a reference bot (its SPEC)."""

    entry: str
    fingerprint: str
    label: str
    submission_id: int | None = None

    def spec(self, league: Any) -> str:
        """The SPEC that plays it (a version's files unpacked once)."""
        if self.submission_id is None:
            return self.entry
        from arena.league.checks import spec_of  # the league's files, only when asked

        return spec_of(league, self.submission_id)


def version_target(sub: Any) -> Target:
    from arena.league.entries import submission_key  # the league's entry keys

    return Target(str(submission_key(sub.id)), sub.fingerprint, f"{sub.user} v{sub.version}",
                  sub.id)


def reference_targets() -> list[Target]:
    return [Target(r, "", r) for r in REFERENCE_BOTS]


def _settings(league: Any, spec: Any, time_s: float) -> Any:
    """The referee's settings: the league's rating games' (sandbox, bot-log budget), at
    similarity's time per move, a bot process kept for all its positions."""
    from arena.league.worker import LOG_BUDGET_FILE, league_settings  # with the referee

    cfg = league.config
    play = cfg.play.model_copy(update={"timeout_s": move_time(spec, time_s)})
    settings = league_settings(play, False, str(league.dir / LOG_BUDGET_FILE))
    return replace(settings, fresh_process=False)


def _ask_one(league: Any, setup: Setup, target: Target, row: Stored, budget_s: float | None,
             held: Callable[[], bool], stop: threading.Event | None) -> Stored:
    """Ask `target` the positions `row` lacks, storing each; see `fill`."""
    from arena.entrants.probe import check_loadable  # only when bots are asked
    from arena.entrants.specs import SpecError, parse_spec  # the same
    from arena.referee.referee import Referee  # the same

    n = len(setup.positions)
    try:
        spec = parse_spec(target.spec(league))
        why = check_loadable([spec]).get(spec.text)
    except (SpecError, KeyError, OSError, ValueError) as exc:
        why = str(exc) or type(exc).__name__
    if why:
        row = replace(row, state=FAILED, note=" ".join(why.split())[:500],
                      updated_at=time.time())
        save_stored(league.conn, setup, row)
        return row
    first, again = list(row.first), list(row.again)
    M, N, K = setup.board
    last_s = 0.0
    with Referee(_settings(league, spec, setup.time_s)) as referee:
        while row.asked < n:
            if (stop is not None and stop.is_set()) or held():
                return row
            per_position = row.spent_s / row.asked if row.asked else last_s
            if budget_s is not None and row.spent_s + per_position > budget_s:
                row = replace(row, state=PARTIAL, updated_at=time.time())
                save_stored(league.conn, setup, row)
                return row
            i = row.asked
            start = time.perf_counter()
            moves = [ask_position(referee, spec, setup.positions[i], i, r, M, N, K,
                                  setup.seed) for r in (0, 1)]
            last_s = time.perf_counter() - start
            first.append(moves[0])
            again.append(moves[1])
            row = replace(row, first=tuple(first), again=tuple(again), asked=i + 1,
                          spent_s=round(row.spent_s + last_s, 3),
                          faults=row.faults + sum(m is None for m in moves),
                          state=DONE if i + 1 == n else ASKING, updated_at=time.time())
            save_stored(league.conn, setup, row)
    return row


def fill(league: Any, setup: Setup, targets: Sequence[Target], *,
         budget_s: float | None = None, held: Callable[[], bool] = lambda: False,
         stop: threading.Event | None = None,
         progress: Callable[[str], None] | None = None) -> dict[str, Stored]:
    """Ask each target what it lacks under `setup` and store it, position by position: a row
    ``done`` or ``failed`` is not asked again, nor a ``partial`` one within a `budget_s`
    (seconds of asking a target, all its sessions together; None: no budget, every position
    is asked). Stops (what was asked stays stored) when `stop` is set or `held()` says so.
    Returns the rows by entry."""
    keys = [(t.entry, t.fingerprint) for t in targets]
    have = load_stored(league.conn, setup, keys)
    out: dict[str, Stored] = {}
    for t in targets:
        row = have.get((t.entry, t.fingerprint)) or Stored(t.entry, t.fingerprint)
        if row.state not in (DONE, FAILED) and not (row.state == PARTIAL
                                                    and budget_s is not None):
            if stop is not None and stop.is_set():
                break
            if row.state == PARTIAL:
                row = replace(row, state=ASKING)
            row = _ask_one(league, setup, t, row, budget_s, held, stop)
            if progress is not None:
                progress(t.label)
        out[t.entry] = row
    return out


def stored_run(league: Any, submission_ids: Sequence[int] | None = None,
               positions: int | None = None) -> StoredRun | None:
    """A `StoredRun` of the stored answers of the versions `submission_ids` (default: the
    current versions) under the league's setups (every board's positions, one board after
    the other), each pair judged now against the band of the reference bots' stored answers.
    None: no setup, or no reference answers yet."""
    from arena.similarity.report import POSITIONS  # the default count

    setups = league_setups(league, POSITIONS if positions is None else positions)
    if not setups:
        return None
    if submission_ids is None:
        subs = current_versions(league)
    else:
        subs = [s for s in (league.submission(i) for i in submission_ids) if s is not None]
    targets = [version_target(s) for s in subs]
    rows = [load_stored(league.conn, setup) for setup in setups]
    ref_answers = [a for t in reference_targets()
                   if (a := setups_answers(rows, setups, t, t.label)) is not None]
    if len(ref_answers) < 2:
        return None
    reference = Reference.of(ref_answers)
    answers: dict[str, Answers] = {}
    ids: dict[str, int] = {}
    made = max((r.updated_at for stored in rows for r in stored.values()), default=time.time())
    waiting = 0
    for t in targets:
        got = setups_answers(rows, setups, t, t.label)
        if got is None:
            waiting += 1
            continue
        answers[t.label] = got
        assert t.submission_id is not None
        ids[t.label] = t.submission_id
    labels = list(answers)
    pairs = [Pair(a, b, None, judge(answers[a], answers[b], reference))
             for i, a in enumerate(labels) for b in labels[i + 1:]]
    chosen = tuple(p for setup in setups for p in setup.positions)
    run = StoredRun(made, setups[0].board, setups[0].time_s, chosen, reference, ids, answers,
                    pairs, stored=True, waiting=waiting)
    return run


def list_run(league: Any) -> StoredRun | None:
    """What the admin list page shows beside the code scores: the current versions' stored
    answers (`stored_run`), with the other pairs of the last `cxarena league similarity DIR`
    run (known bots, versions replaced since) that it does not cover; the last run alone when
    nothing is stored yet."""
    run = stored_run(league)
    kept = load(league.dir)
    if run is None:
        return kept
    if kept is None or not kept.played:
        return run
    covered = {frozenset({run.ids[p.a], run.ids[p.b]}) for p in run.pairs}
    for p in kept.pairs:
        ia, ib = kept.ids.get(p.a), kept.ids.get(p.b)
        if ia is not None and ib is not None and (
                frozenset({ia, ib}) in covered or {ia, ib} <= set(run.ids.values())):
            continue
        run.pairs.append(p)
        for label in (p.a, p.b):
            if label in kept.ids and label not in run.ids:
                run.ids[label] = kept.ids[label]
    return run


def pair_run(league: Any, id_a: int, id_b: int) -> StoredRun | None:
    """What the pair page draws the agreed positions from: the stored answers of the two
    versions when both have some, else the last `cxarena league similarity DIR` run."""
    run = stored_run(league, [id_a, id_b])
    if run is not None and run.play_between(id_a, id_b) is not None:
        return run
    return load(league.dir)
