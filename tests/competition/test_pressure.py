"""`arena.competition.pressure`: one game fewer at a time after a game whose bot the machine
kept waiting, one more after calm games, never fewer than one."""

from __future__ import annotations

from arena.competition.pressure import Throttle, strained
from arena.records import GameRecord, Reason
from tests.helpers import cx_record


def record(**extra: object) -> GameRecord:
    return cx_record(M=4, N=4, K=3, p1="a", p2="b", names=("a", "b"), moves=(0,),
                      times_ms=(1.0,), winner=1, reason=Reason.CONNECT, detail="", seed=0,
                      extra=dict(extra))


def test_what_counts_as_the_machine_keeping_a_bot_waiting() -> None:
    assert not strained(record())
    assert not strained(record(excused=[], overload=[]))
    assert strained(record(excused=[{"machine_ms": 30.0}]))
    assert strained(record(overload=[{"detail": "x"}]))
    assert strained(record(charged_overloaded=2))


def test_fewer_games_after_a_wait_and_more_after_calm_ones() -> None:
    t = Throttle(3, calm_games=2)
    assert t.at_once == 3
    assert "games_at_once=2" in t.after(record(excused=[{"machine_ms": 30.0}]))
    assert "games_at_once=1" in t.after(record(overload=[{}]))
    assert t.after(record(overload=[{}])) == "" and t.at_once == 1  # never below one
    assert t.after(None) == "" and t.at_once == 1  # a dead worker's game says nothing
    assert t.after(record()) == "" and t.at_once == 1
    assert "games_at_once=2" in t.after(record())
    t.after(record(excused=[{"machine_ms": 1.0}]))  # a wait: the calm count starts again
    assert t.at_once == 1
    t.after(record())
    t.after(record())
    t.after(record())
    t.after(record())
    assert t.at_once == 3


def test_one_worker_is_never_held() -> None:
    t = Throttle(1)
    t.after(record(excused=[{"machine_ms": 30.0}]))
    assert t.at_once == 1
