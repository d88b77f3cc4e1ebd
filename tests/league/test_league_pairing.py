"""The league's pairing on a real league: `plan_next` (a Field of the league's tables and the
Adaptive policy) gives the answers it gave before the pairing seam, the Elo fit runs again
only when a game was stored, and `claim` plans outside the write lock yet never leases a plan
the league has moved away from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import arena.league.standings as standings_module
import arena.league.worker as worker
from arena.league import League
from arena.league.standings import record_game
from arena.league.worker import Openings, claim, plan_next
from tests.helpers import make_league

BOT = b"from players.L0 import *\n"

#: what plan_next answered at each step of `_scripted` before the pairing seam (recorded from
#: the league worker's own policy at commit f681f63)
BEFORE = [
    ("sub:1", "sub:2", (4, 5, 3), 0),
    ("sub:2", "sub:3", (4, 4, 3), 0),
    ("sub:1", "sub:2", (4, 4, 3), 1),
    ("sub:2", "L0", (4, 5, 3), 1),
    ("sub:1", "L0", (4, 4, 3), 3),
    ("sub:4", "L0", (4, 4, 3), 0),
    ("sub:4", "L0", (4, 5, 3), 1),
    ("sub:4", "L0", (4, 4, 3), 4),
    ("sub:4", "L0", (4, 4, 3), 4),
    None,
]


def _pair(lg: League, a: str, b: str, score_a: float, board: str = "4x4x3") -> None:
    """One stored pair: two games of `a` against `b` (as the standings read them)."""
    for _ in range(2):
        record_game(lg, a, b, board, score_a)


def _lease(lg: League, a: str, b: str) -> None:
    with lg.conn:
        lg.conn.execute("INSERT INTO leases (side_a, side_b, board, number, holder, started_at)"
                        " VALUES (?, ?, '4x4x3', 0, 'local:elsewhere:1', 0)", (a, b))


def _scripted(tmp_path: Path) -> list[Any]:
    """plan_next after each step of a small league: three students and L0, a pair in flight,
    pairs stored, then a second version of ann (its pairs against her first)."""
    lg = make_league(tmp_path, {"ann": BOT, "bob": BOT, "cat": BOT}, pairs=1, most=4)
    answers = [plan_next(lg)]
    _pair(lg, "sub:1", "L0", 1.0)
    answers.append(plan_next(lg))
    _lease(lg, "sub:2", "sub:3")
    answers.append(plan_next(lg))
    _pair(lg, "sub:2", "sub:3", 0.5)
    with lg.conn:
        lg.conn.execute("DELETE FROM leases")
    answers.append(plan_next(lg))
    for a, b, s in (("sub:1", "sub:2", 1.0), ("sub:1", "sub:3", 1.0), ("sub:2", "L0", 0.0),
                    ("sub:3", "L0", 1.0)):
        _pair(lg, a, b, s, "4x5x3")
    answers.append(plan_next(lg))
    lg.submit("ann", [("bot.py", BOT + b"# v2\n")])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    answers.append(plan_next(lg))
    _pair(lg, "sub:4", "sub:1", 0.5)
    answers.append(plan_next(lg))
    for other in ("sub:2", "sub:3", "L0"):
        _pair(lg, "sub:4", other, 0.0)
    answers.append(plan_next(lg))
    for a, b in (("sub:2", "sub:3"), ("sub:2", "L0"), ("sub:3", "L0")):
        _pair(lg, a, b, 0.5)
        _pair(lg, a, b, 0.5)
    answers.append(plan_next(lg))
    for other in ("sub:2", "sub:3", "L0"):
        _pair(lg, "sub:4", other, 1.0, "4x5x3")
    answers.append(plan_next(lg))
    return answers


def test_plan_next_answers_as_before_the_pairing_seam(tmp_path: Path) -> None:
    assert _scripted(tmp_path) == BEFORE


def _count_fits(monkeypatch: pytest.MonkeyPatch, lg: League | None = None) -> list[bool]:
    """Count the Elo fits of the standings; each entry says whether `lg` was inside a
    transaction (holding the write lock) when it ran."""
    fits: list[bool] = []
    fit = standings_module.fit_ratings

    def counted(*args: Any, **kwargs: Any) -> Any:
        fits.append(lg is not None and lg.conn.in_transaction)
        return fit(*args, **kwargs)

    monkeypatch.setattr(standings_module, "fit_ratings", counted)
    return fits


def test_the_standings_are_refitted_only_when_a_game_was_stored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lg = make_league(tmp_path, {"ann": BOT, "bob": BOT})
    _pair(lg, "sub:1", "L0", 1.0)
    fits = _count_fits(monkeypatch)
    first = plan_next(lg)
    assert len(fits) == 1
    assert plan_next(lg) == first and len(fits) == 1
    _lease(lg, "sub:2", "L0")  # a pair in flight changes the plan, not the fit
    assert plan_next(lg) != first and len(fits) == 1
    other = League.open(lg.dir)  # another connection to the folder (another worker's)
    assert plan_next(other) == plan_next(lg) and len(fits) == 1
    record_game(other, "sub:2", "L0", "4x4x3", 0.0)
    plan_next(lg)
    assert len(fits) == 2
    # a version that passes its check changes who is rated: fitted again too
    lg.submit("bob", [("bot.py", BOT + b"# v2\n")])
    plan_next(lg)
    assert len(fits) == 2  # still being checked: nothing changed for the standings
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    plan_next(lg)
    assert len(fits) == 3
    other.conn.close()


def test_claim_fits_outside_the_write_lock(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    lg = make_league(tmp_path, {"ann": BOT, "bob": BOT})
    _pair(lg, "sub:1", "L0", 1.0)
    fits = _count_fits(monkeypatch, lg)
    job = claim(lg, "local:elsewhere:1", Openings(None))
    assert job is not None and fits == [False]
    assert claim(lg, "local:elsewhere:2", Openings(None)) is not None
    assert fits == [False]  # no game stored between the two claims: no fit


def test_claim_plans_again_when_another_worker_leased_in_between(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan made outside the lock is not leased when another claim got in first: the pair
    is planned again from the league as it now is (as if the claims were made in turn)."""
    lg = make_league(tmp_path, {"ann": BOT, "bob": BOT, "cat": BOT})
    plans: list[Any] = []
    real = worker.plan_next

    def racing(league: League) -> Any:
        plan = real(league)
        plans.append(plan)
        if len(plans) == 1:  # another worker leases the same pair before this one locks
            rival = League.open(league.dir)
            _lease(rival, plan[0], plan[1])
            rival.conn.close()
        return plan

    monkeypatch.setattr(worker, "plan_next", racing)
    job = claim(lg, "local:elsewhere:2", Openings(None))
    assert job is not None and len(plans) == 2
    assert plans[0][:2] == ("sub:1", "sub:2")
    assert job.a == "sub:3"  # the entries in flight wait behind the one that is not
    leases = lg.conn.execute("SELECT side_a, side_b FROM leases ORDER BY id").fetchall()
    assert leases == [("sub:1", "sub:2"), (job.a, job.b)]


def test_claim_plans_inside_the_lock_when_the_league_keeps_moving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lg = make_league(tmp_path, {"ann": BOT, "bob": BOT})
    calls: list[bool] = []
    real = worker.plan_next

    def moving(league: League) -> Any:
        calls.append(league.conn.in_transaction)
        if not league.conn.in_transaction:  # a game stored after every plan outside the lock
            record_game(League.open(league.dir), "L0", "L0", "4x4x3", 0.5)
        return real(league)

    monkeypatch.setattr(worker, "plan_next", moving)
    assert claim(lg, "local:elsewhere:1", Openings(None)) is not None
    assert calls == [False] * worker.PLAN_TRIES + [True]


def test_no_pair_is_claimed_once_the_league_is_frozen(tmp_path: Path) -> None:
    lg = make_league(tmp_path, {"ann": BOT})
    lg.freeze()
    assert claim(lg, "local:elsewhere:1", Openings(None)) is None
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0
