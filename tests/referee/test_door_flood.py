"""Every read has a deadline (issue 36, item 3): a bot that floods its stdout with protocol
comments (64 KiB writes of empty lines, or of one long `#` line) while it thinks cannot hold
the referee. It is charged at the comment caps (`arena.defaults.MAX_COMMENT_LINES`, `_KB`),
at the move's deadline where the caps are lifted, and at the game's wall-clock limit at the
latest; its late move is never voided as the machine's (overload).

Real bot processes (`tests/referee/zoo/comment_flood.py`) under the default isolation. The
bounds are loose (a loaded machine): what is asserted is who was charged, that the game ended
and that the detail names the flood.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena import defaults
from arena.entrants.specs import BotSpec, parse_spec
from arena.limits import Limits
from arena.records import GameRecord, Reason
from arena.referee.faults import is_comment, parse
from arena.referee.process import BotProcess
from arena.referee.referee import MatchSettings, Referee, course_game, game_time_limit_s
from arena.wire import protocol

FLOOD = Path(__file__).resolve().parent / "zoo" / "comment_flood.py"
#: how far past a deadline a flood may hold the referee here (a loaded machine); it held it for
#: as long as the bot flooded before
SLACK_S = 10.0


def flooder(*args: str) -> BotSpec:
    return BotSpec(text=f"exec:comment_flood {' '.join(args)}".strip(),
                   command=(sys.executable, "-I", "-S", str(FLOOD), *args))


def play(p1: BotSpec, p2: BotSpec | str = "L0", timeout_s: float = 0.5,
         **settings: object) -> tuple[GameRecord, float]:
    """One 4x4x3 game; the record and how long `play` took less the bots' start-up."""
    limits = settings.pop("limits", None) or Limits(timeout_s=timeout_s)
    with Referee(MatchSettings(limits=limits, **settings)) as referee:  # type: ignore[arg-type]
        t0 = time.perf_counter()
        rec = referee.play(p1, p2 if isinstance(p2, BotSpec) else parse_spec(p2),
                           course_game(4, 4, 3), seed=1)
        took = time.perf_counter() - t0
    startup_s = max(ms or 0.0 for ms in rec.extra["startup_ms"]) / 1000
    return rec, took - startup_s


def lift_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "MAX_COMMENT_LINES", 10**12)
    monkeypatch.setattr(defaults, "MAX_COMMENT_KB", 10**12)


def test_a_flood_of_empty_lines_is_charged_at_the_line_cap() -> None:
    rec, took = play(flooder())
    assert rec.reason is Reason.ILLEGAL and rec.offender == 1, rec.detail
    assert "selectColumn (move 1): wrote 10001 comment lines in one move" in rec.detail
    assert f"the cap is {defaults.MAX_COMMENT_LINES} lines" in rec.detail
    assert took < 0.5 + SLACK_S
    assert "overload" not in rec.extra


def test_a_flood_of_long_comment_lines_is_charged_at_the_byte_cap() -> None:
    rec, took = play(flooder("--packet", "hash"))
    assert rec.reason is Reason.ILLEGAL and rec.offender == 1, rec.detail
    assert "bytes of comments in one move" in rec.detail
    assert f"{defaults.MAX_COMMENT_KB} KiB of comments per move" in rec.detail
    assert took < 0.5 + SLACK_S


def test_a_flood_in_newgame_is_a_crash_of_that_request() -> None:
    rec, _ = play(parse_spec("L0"), flooder("--when", "newgame"))
    assert rec.reason is Reason.CRASH and rec.offender == 2, rec.detail
    assert "comment lines in one request" in rec.detail


@pytest.mark.serial  # its point is a time bound, and the flood that arrived by the start-up
# limit is still read (a referee woken late reads what was in time): a referee starved of CPU
# by the suite's own processes took 12 s (docs/testing.md); run alone (Makefile)
def test_a_flood_instead_of_ready_fails_to_start_at_the_startup_limit() -> None:
    rec, took = play(flooder("--when", "hello"),
                     limits=Limits(timeout_s=0.5, startup_timeout_s=2.0))
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "failed to start" in rec.detail and "no `ready` within 2 s" in rec.detail
    assert took < 2.0 + SLACK_S


@pytest.mark.parametrize("pinned", [False, True], ids=["own-core", "referee-on-the-bots-core"])
def test_with_the_caps_lifted_the_move_still_ends_at_its_deadline_and_is_never_overload(
        monkeypatch: pytest.MonkeyPatch, pinned: bool) -> None:
    """The read deadline alone: the flood (for ever) is cut at the 0.5 s deadline, and the
    late move is charged at once, even with the referee on the bot's core (its reading of the
    flood is the bot's CPU: no overload replay)."""
    lift_caps(monkeypatch)
    core = max(os.sched_getaffinity(0))
    old = os.sched_getaffinity(0)
    if pinned:
        os.sched_setaffinity(0, {core})  # this thread: the referee's, as a worker's is
    try:
        rec, took = play(flooder(), cpu=core, overload_replays=2)
    finally:
        os.sched_setaffinity(0, old)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    assert "selectColumn (move 1): no answer after" in rec.detail
    assert "comment lines" in rec.detail and "no overload replay" in rec.detail
    assert "overload" not in rec.extra
    assert took < 0.5 + SLACK_S


def test_a_flooding_pair_cannot_hold_a_game_past_its_wall_clock_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Both bots write 5000 comment lines a move (under the caps) and answer after 0.4 s of a
    2 s limit: every move is in time, but the game's wall-clock limit (made small here: 0.05 x
    (start-up + 18 moves' deadlines), about 1.9 s, where the bots' game (first free column)
    needs 9 moves of 0.4 s or more to end by a connection) ends it, charged to the bot being
    waited on."""
    monkeypatch.setattr(defaults, "GAME_TIME_FACTOR", 0.05)
    monkeypatch.setattr(defaults, "GAME_TIME_SLACK_S", 0.0)
    limits = Limits(timeout_s=2.0, startup_timeout_s=2.0)
    limit_s = game_time_limit_s(limits, 16)
    assert 1.6 < limit_s < 2.2
    bot = flooder("--lines", "5000", "--answer-after", "0.4")
    with Referee(MatchSettings(limits=limits)) as referee:
        t0 = time.perf_counter()
        rec = referee.play(bot, bot, course_game(4, 4, 3), seed=1)
        took = time.perf_counter() - t0
    assert rec.reason is Reason.TIMEOUT, rec.detail
    assert f"the game's wall-clock limit of {limit_s:.1f} s passed" in rec.detail
    assert rec.offender == rec.n_moves % 2 + 1  # the side to move: the one waited on
    assert rec.n_moves < 16
    assert "overload" not in rec.extra
    assert took < limit_s + SLACK_S


def test_the_game_limit_is_generous_by_default() -> None:
    """6x7 at 1 s a move: well over what 42 full moves, both inits and a start-up take."""
    limits = Limits(timeout_s=1.0)
    assert game_time_limit_s(limits, 42) >= 2 * (limits.startup_timeout_s + 44 * 1.01)


# ------------------------------------------------------------------------ the reader itself
def _writer(tmp_path: Path, code: str) -> BotProcess:
    return BotProcess([sys.executable, "-I", "-S", "-c", code],
                      log_path=str(tmp_path / "log"), env=dict(os.environ))


FLOOD_NEWLINES = "import os\nwhile True: os.write(1, b'\\n' * 65536)"


def test_read_line_returns_at_its_deadline_whatever_arrives(tmp_path: Path) -> None:
    proc = _writer(tmp_path, FLOOD_NEWLINES)
    try:
        t0 = time.perf_counter()
        deadline = t0 + 0.5
        lines = 0
        while proc.read_line(deadline) is not None:
            lines += 1
            assert time.perf_counter() - t0 < 0.5 + SLACK_S, "read past the deadline"
        assert lines > 0
        assert time.perf_counter() - t0 < 0.5 + SLACK_S
        # what it still returns after the deadline arrived by then (or is None)
        again = proc.read_line(deadline)
        assert again is None or (proc.line_arrival_ns or 0) <= time.time_ns()
    finally:
        proc.close()


def test_drain_of_a_bot_that_keeps_writing_is_bounded(tmp_path: Path) -> None:
    proc = _writer(tmp_path, FLOOD_NEWLINES)
    try:
        assert proc.read_line(time.perf_counter() + 5.0) is not None  # it is writing
        t0 = time.perf_counter()
        got = proc.drain()
        assert time.perf_counter() - t0 < SLACK_S
        # at most its budget from the socket, beside the rest of the packet the read above
        # had already taken in (up to one write of 64 KiB of newlines)
        assert len(got) <= 4 * (proc.max_line_bytes + 1) + 65536
    finally:
        proc.close()


def test_read_line_keeps_an_answer_that_came_in_time_behind_comments(tmp_path: Path) -> None:
    """A referee that gets to read only after the deadline still reads what arrived before it:
    comments and the answer behind them."""
    code = "import os\nos.write(1, b'\\n' * 1000 + b'# hm\\n' + b'play 3\\n')\nimport time\n" \
           "time.sleep(30)"
    proc = _writer(tmp_path, code)
    try:
        assert proc.read_line(time.perf_counter() + 5.0) == b""
        time.sleep(0.2)  # the deadline below is long past when the reading goes on
        deadline = time.perf_counter() - 0.1
        rest = []
        while (line := proc.read_line(deadline)) is not None:
            rest.append(line)
        assert rest[-1] == b"play 3" and rest[-2] == b"# hm" and len(rest) == 1001
    finally:
        proc.close()


# ------------------------------------------------------------- what a comment line is
@given(st.binary(max_size=40) | st.sampled_from(
    [b"", b"#", b"# x", b"\r", b" \r", b"\t", b"\xc2\xa0", b"\x1c", b"\xff#", b"play 3",
     b"#\r\r", b"\r#", b"\x85", b"ok x"]))
def test_the_fast_comment_test_agrees_with_the_parser(line: bytes) -> None:
    try:
        parsed = isinstance(parse(line), protocol.Comment)
    except protocol.ProtocolError:
        parsed = False
    assert is_comment(line) == parsed
    assert protocol.is_comment(line.decode("utf-8", "backslashreplace")) == parsed
