"""Property: whatever a bot writes, and whenever it stops, `Referee.play` returns a record with
a reason and never raises (hypothesis drives scripted bots, tests/referee/scripted_bot.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.board import CXBoard
from arena.entrants.specs import BotSpec
from arena.limits import Limits
from arena.records import FAULTS, GameRecord, Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import columns, tagged_pids, wait_until

SCRIPTED = Path(__file__).resolve().parent / "scripted_bot.py"
LINES = [b"ready 1", b"ok x", b"play 0", b"play 3", b"play -1", b"play 99999999999999999999",
         b"play", b"ready 2", b"error boom", b"# a comment", b"", b"thinking done", b"go",
         b"\xff\xfe\x00binary", b"play 1\r", b"ok " + b"n" * 300]

chunk = st.one_of(
    st.sampled_from(LINES).map(lambda b: b + b"\n"),  # whole lines, valid or not
    st.sampled_from(LINES),  # a line without its newline (a partial line)
    st.binary(max_size=40),  # anything
)
action = st.one_of(
    st.just(["answer"]),
    chunk.map(lambda b: ["write", b.hex()]),
    st.tuples(st.integers(60_000, 140_000), st.sampled_from([ord("x"), 0, ord("\n")]))
    .map(lambda t: ["fill", t[0], t[1]]),
    st.integers(0, 30).map(lambda ms: ["sleep", ms]),
    st.just(["close"]),
    st.sampled_from(LINES).map(lambda b: ["answer+", (b + b"\n").hex()]),
    st.sampled_from([0, 1, 3]).map(lambda code: ["exit", code]),
)
#: line index -> actions (lines 0..12: hello, newgame and the first few requests)
script = st.dictionaries(st.integers(0, 12), st.lists(action, min_size=1, max_size=3),
                         max_size=4)


def scripted(tmp: Path, name: str, plan: dict[int, list[Any]]) -> BotSpec:
    path = tmp / f"{name}.json"
    path.write_text(json.dumps({str(k): v for k, v in plan.items()}))
    command = (sys.executable, "-I", "-S", str(SCRIPTED), str(path))
    return BotSpec(text=f"exec:scripted-{name}", command=command)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan1=script, plan2=script, second_scripted=st.booleans())
def test_play_never_raises_whatever_the_bots_write(
        tmp_path_factory: Any, plan1: dict[int, list[Any]], plan2: dict[int, list[Any]],
        second_scripted: bool) -> None:
    tmp = tmp_path_factory.mktemp("scripted")
    p1 = scripted(tmp, "one", plan1)
    p2 = scripted(tmp, "two", plan2 if second_scripted else {})
    referee = Referee(MatchSettings(limits=Limits(timeout_s=0.25, startup_timeout_s=3.0), fresh_process=True, log_dir=str(tmp)))
    try:
        rec = referee.play(p1, p2, course_game(4, 4, 3), seed=1)
    finally:
        referee.close()
    assert isinstance(rec.reason, Reason)
    assert len(rec.times_ms) == rec.n_moves
    CXBoard.from_moves(4, 4, 3, list(columns(rec)))  # every recorded move was legal
    if rec.reason in FAULTS:
        assert rec.offender in (1, 2) and rec.winner == 3 - rec.offender
        assert rec.detail
    else:
        assert rec.offender is None
    assert GameRecord.from_dict(json.loads(rec.to_json())) == rec
    assert wait_until(lambda: not tagged_pids(referee.tag))


def test_a_stray_line_after_an_answer_is_charged(tmp_path: Path) -> None:
    """The case of issue 10: `play 3` then `thinking done` on stdout."""
    plan = {2: [["answer"], ["write", b"thinking done\n".hex()]]}
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path))) as referee:
        rec = referee.play(scripted(tmp_path, "stray", plan), scripted(tmp_path, "ok", {}),
                           course_game(4, 4, 3), seed=1)
    assert rec.reason is Reason.ILLEGAL and rec.offender == 1
    assert "thinking done" in rec.detail
