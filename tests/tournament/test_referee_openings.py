"""The referee plays from an opening: bots see it (as `opponent` lines before their first
`go`), the record starts with it, and a bad opening is refused before any bot is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import columns, opening_columns

COUNTER = parse_spec(str(Path(__file__).parent / "bots" / "counter.py"))


@pytest.mark.parametrize("opening", [(), (3,), (3, 3), (0, 1, 2)])
def test_bots_see_the_opening_and_the_record_starts_with_it(opening: tuple[int, ...]) -> None:
    opts = {"opening": list(opening)}
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0))) as ref:
        rec = ref.play(COUNTER, COUNTER, course_game(5, 6, 4), 7, opts, opts, opening=opening)
    assert rec.reason in (Reason.CONNECT, Reason.DRAW), rec.detail
    assert opening_columns(rec) == opening and columns(rec)[:len(opening)] == opening
    assert rec.times_ms[:len(opening)] == (0.0,) * len(opening)
    assert all(t > 0 for t in rec.times_ms[len(opening):])
    p1, p2 = rec.played_times_ms
    assert len(p1) + len(p2) == rec.n_moves - len(opening)


def test_the_checker_bot_can_fail() -> None:
    # told to expect an opening that was not played, it raises: the check above is real
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0))) as ref:
        rec = ref.play(COUNTER, COUNTER,
                       course_game(5, 6, 4), 7, {"opening": [2]}, {}, opening=(3,))
    assert rec.reason is Reason.CRASH and rec.offender == 1


@pytest.mark.parametrize(("opening", "msg"), [((9,), "not legal"), ((0,) * 6, "not legal"),
                                              ((0, 1, 0, 1, 0, 1, 0), "over")])
def test_bad_openings_are_refused(opening: tuple[int, ...], msg: str) -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0))) as ref, pytest.raises(ValueError, match=msg):
        ref.play(COUNTER, COUNTER, course_game(5, 6, 4), 7, opening=opening)
