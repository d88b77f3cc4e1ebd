"""The referee against the zoo of misbehaving bots (tests/referee/zoo/): every fault ends the game
with
the right reason, credits the opponent, returns promptly and leaves no process behind.

The zoo games run concurrently (one Referee per game, a few threads) in a module fixture so the
whole file stays well under a minute on a loaded 2-core machine; the tests then check the
results. Limits are generous (0.5 s and more) so the outcome never depends on machine load.
"""

from __future__ import annotations

import json
import os
import re
import resource
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena import __version__
from arena.board import CXBoard
from arena.entrants.specs import BotSpec, SpecError, parse_spec
from arena.limits import Limits
from arena.records import FAULTS, GameRecord, Reason
from arena.referee.containment import environ_value
from arena.referee.process import BotProcess
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.helpers import cmdline, columns, frozen, live, tagged_pids, wait_until, zoo


# ------------------------------------------------------------------------ the zoo
@dataclass(frozen=True)
class Case:
    name: str
    bot: str  # zoo file
    reason: Reason | None  # expected reason; None: a normal end (connect or draw)
    detail: tuple[str, ...] = ()  # substrings of the detail
    seat: int = 1  # the zoo bot's seat (1 moves first)
    options: dict[str, Any] = field(default_factory=dict)
    board: tuple[int, int, int] = (6, 7, 4)
    timeout_s: float = 0.5
    memory_mb: int = 2048
    startup_s: float = 20.0
    opponent: str = "L0"


CASES = [
    Case("sleeps_past_limit", "sleepy.py", Reason.TIMEOUT, ("selectColumn (move 1)", "ms")),
    Case("sleeps_past_limit_p2", "sleepy.py", Reason.TIMEOUT, ("selectColumn (move 2)",), seat=2),
    Case("busy_loop", "busy.py", Reason.TIMEOUT, ("selectColumn", "over the 500 ms limit")),
    Case("hangs_in_init", "hang_init.py", Reason.TIMEOUT, ("initPlayer",)),
    Case("hangs_in_init_p2", "hang_init.py", Reason.TIMEOUT, ("initPlayer",), seat=2),
    Case("raises_in_select", "raise_select.py", Reason.CRASH, ("selectColumn", "ValueError")),
    Case("raises_in_init", "raise_init.py", Reason.CRASH, ("initPlayer", "RuntimeError"), seat=2),
    Case("sys_exit", "sys_exit.py", Reason.CRASH, ("sys.exit(3)",)),
    Case("os_exit", "os_exit.py", Reason.CRASH, ("exited with status 7",)),
    Case("sigsegv", "segv.py", Reason.CRASH, ("SIGSEGV",)),
    Case("full_column", "full_column.py", Reason.ILLEGAL, ("column 0 is full",), board=(3, 4, 4)),
    Case("minus_one", "answer.py", Reason.ILLEGAL, ("-1", "out of range"),
         options={"value": -1}),
    Case("column_N", "answer.py", Reason.ILLEGAL, ("column 7", "out of range"),
         options={"value": "N"}),
    Case("float", "answer.py", Reason.ILLEGAL, ("2.0", "not an integer"),
         options={"value": 2.0}),
    Case("string", "answer.py", Reason.ILLEGAL, ("'3'", "not an integer"),
         options={"value": "3"}, seat=2),
    Case("none", "answer.py", Reason.ILLEGAL, ("None", "not an integer"),
         options={"value": None}),
    Case("bool", "answer.py", Reason.ILLEGAL, ("True", "not an integer"),
         options={"value": True}),
    Case("numpy_int_is_fine", "answer.py", None, options={"value": "numpy"}),
    Case("huge_int", "answer.py", Reason.ILLEGAL, ("too large", "not an integer"),
         options={"value": "huge"}),
    Case("huge_number_line", "huge_number.sh", Reason.ILLEGAL, ("5000 chars", "out of range")),
    Case("prints_to_stdout", "printer.py", None),
    Case("prints_to_stdout_p2", "printer.py", None, seat=2),
    Case("memory_hog", "memhog.py", Reason.CRASH, ("memory",), memory_mb=300, timeout_s=3.0),
    Case("forks_a_child", "forker.py", Reason.TIMEOUT, ("selectColumn",)),
    Case("closes_stdout", "close_stdout.sh", Reason.CRASH, ("stdout",)),
    Case("garbage_bytes", "garbage.sh", Reason.ILLEGAL, ("not an integer",)),
    Case("chatter_instead_of_answer", "chatty.sh", Reason.ILLEGAL, ("unexpected line",)),
    Case("two_answers_to_one_go", "double_answer.sh", Reason.ILLEGAL,
         ("selectColumn (move 3)", "unsolicited output", "play 1")),
    Case("stray_line_after_answer", "stray_line.sh", Reason.ILLEGAL,
         ("selectColumn (move 3)", "unsolicited output", "thinking done")),
    Case("stderr_megabytes", "stderr_flood.py", None, timeout_s=2.0),
    Case("shell_bot", "shellbot.sh", None, opponent="L1"),
    Case("shell_bot_p2", "shellbot.sh", None, seat=2, opponent="L1"),
    Case("just_under_limit", "just_under.py", None, board=(3, 3, 3), timeout_s=1.0),
    Case("fails_to_start", "slow_start.py", Reason.CRASH, ("failed to start", "1 s"),
         startup_s=1.0),
    Case("import_error", "import_error.py", Reason.CRASH, ("failed to start", "no_such_module")),
    Case("wrong_protocol_version", "wrong_version.sh", Reason.CRASH, ("version 99",), seat=2),
    Case("bad_player_name", "bad_name.py", None),
]


@dataclass
class Outcome:
    record: GameRecord
    elapsed_s: float
    leftovers_after_game: list[str]  # live processes of the zoo bot (and its children)
    leftovers_after_close: list[int]  # live processes of the Referee at all
    extra: dict[str, Any] = field(default_factory=dict)


def run_case(case: Case, tmp: Path) -> Outcome:
    work = tmp / case.name
    work.mkdir()
    options = dict(case.options)
    if case.bot == "forker.py":
        options["pidfile"] = str(work / "child.pid")
    # the forker reports its child's pid in a file: a sandboxed bot can do neither (its pids
    # are its own namespace's, its file system read-only); tests/referee/test_isolation.py
    # checks the same fault sandboxed. Every other zoo bot runs isolated where possible.
    # No overload replays: each case's duration stays bounded on a loaded machine (the rule
    # has its own tests, test_referee_overload.py).
    isolation = "none" if case.bot == "forker.py" else "auto"
    settings = MatchSettings(limits=Limits(timeout_s=case.timeout_s, startup_timeout_s=case.startup_s, memory_limit_mb=case.memory_mb), log_dir=str(work), overload_replays=0, isolation=isolation)
    bot, other = parse_spec(zoo(case.bot)), parse_spec(case.opponent)
    M, N, K = case.board
    referee = Referee(settings)
    try:
        start = time.monotonic()
        if case.seat == 1:
            rec = referee.play(bot, other, course_game(M, N, K), seed=7, options1=options)
        else:
            rec = referee.play(other, bot, course_game(M, N, K), seed=7, options2=options)
        elapsed_s = time.monotonic() - start

        def bot_leftovers() -> list[str]:
            return [c for c in map(cmdline, tagged_pids(referee.tag)) if case.bot in c]

        if rec.reason in FAULTS:  # the offender must be gone right after the game
            wait_until(lambda: not bot_leftovers())
        leftovers = bot_leftovers() if rec.reason in FAULTS else []
        extra: dict[str, Any] = {}
        if case.bot == "forker.py":
            extra["child"] = int((work / "child.pid").read_text())
            extra["child_alive"] = wait_until(lambda: not live(extra["child"])) is False
    finally:
        referee.close()
    wait_until(lambda: not tagged_pids(referee.tag))
    return Outcome(rec, elapsed_s, leftovers, tagged_pids(referee.tag), extra)


@pytest.fixture(scope="module")
def zoo_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    tmp = tmp_path_factory.mktemp("zoo")
    with ThreadPoolExecutor(max_workers=6) as pool:
        futures = {c.name: pool.submit(run_case, c, tmp) for c in CASES}
        return {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_zoo(case: Case, zoo_results: dict[str, Outcome]) -> None:
    out = zoo_results[case.name]
    rec = out.record
    me, opponent = case.seat, 3 - case.seat
    if case.reason is None:  # must play a normal game
        assert rec.reason in (Reason.CONNECT, Reason.DRAW), rec.detail
        assert rec.offender is None and rec.detail == ""
        assert rec.n_moves >= 3
        board = CXBoard.from_moves(*case.board, list(columns(rec)))  # every move legal
        assert board.gameState().value != "open"
    else:
        assert rec.reason is case.reason, rec.detail
        assert rec.offender == me
        assert rec.winner == opponent
        for part in case.detail:
            assert part in rec.detail, rec.detail
    # promptly: the limit (start-up or per call) plus generous slack, never a hang (the time
    # the bots legitimately thought, e.g. just_under's 0.7 s per call, does not count)
    thought_s = (sum(rec.times_ms) + sum(rec.init_ms)) / 1000
    assert out.elapsed_s - thought_s < max(
        case.timeout_s, case.startup_s if "start" in case.name else 0) + 5
    assert out.leftovers_after_game == []
    assert out.leftovers_after_close == []
    assert len(rec.times_ms) == rec.n_moves


def test_zoo_stderr_tail_keeps_the_traceback(zoo_results: dict[str, Outcome]) -> None:
    tail = zoo_results["raises_in_select"].record.stderr_tail
    assert "Traceback" in tail and "ValueError: zoo: deliberate failure" in tail
    assert "RuntimeError" in zoo_results["raises_in_init"].record.stderr_tail
    assert "no_such_module" in zoo_results["import_error"].record.stderr_tail
    assert zoo_results["memory_hog"].record.stderr_tail.rstrip().endswith("MemoryError")


def test_zoo_timeouts_report_the_overrun(zoo_results: dict[str, Outcome]) -> None:
    for name in ("sleeps_past_limit", "busy_loop", "hangs_in_init"):
        detail = zoo_results[name].record.detail
        assert "over the 500 ms limit by" in detail, detail


def _account_ms(detail: str) -> tuple[float, float]:
    """(computed, off the CPU) in ms from a charged timeout's account of its wall time."""
    m = re.search(r"the bot computed ([0-9.]+) ms, waited for a CPU [0-9.]+ ms and was off "
                  r"the CPU ([0-9.]+) ms", detail)
    assert m, detail
    return float(m.group(1)), float(m.group(2))


def test_zoo_timeouts_say_where_the_time_went(zoo_results: dict[str, Outcome]) -> None:
    """A charged timeout accounts for its wall time: the sleeper was off the CPU, the busy
    loop computed (the account is what a student or a teacher reads to tell the two apart)."""
    computed, off = _account_ms(zoo_results["sleeps_past_limit"].record.detail)
    assert off > 250 and computed < 250
    computed, off = _account_ms(zoo_results["busy_loop"].record.detail)
    assert computed > off
    # the same figures as fields of the record
    sleeper = zoo_results["sleeps_past_limit"].record.extra["late_ms"]
    busy = zoo_results["busy_loop"].record.extra["late_ms"]
    assert sleeper["cpu"] < 250 < sleeper["elapsed"] and busy["cpu"] > sleeper["cpu"]


def test_zoo_forked_child_is_killed_with_its_parent(zoo_results: dict[str, Outcome]) -> None:
    extra = zoo_results["forks_a_child"].extra
    assert extra["child"] > 0
    assert extra["child_alive"] is False


def test_zoo_names(zoo_results: dict[str, Outcome]) -> None:
    assert zoo_results["bad_player_name"].record.names == ("", "L0")
    assert zoo_results["shell_bot"].record.names == ("ShellBot", "L1")
    assert zoo_results["shell_bot_p2"].record.names == ("L1", "ShellBot")
    assert zoo_results["prints_to_stdout"].record.names == ("printer", "L0")
    assert zoo_results["float"].record.names == ("answer(2.0)", "L0")  # options reach the bot


def test_zoo_just_under_limit_is_timed(zoo_results: dict[str, Outcome]) -> None:
    rec = zoo_results["just_under_limit"].record
    mine = rec.times_ms[0::2]
    assert mine and all(700 <= t < 1000 for t in mine), mine
    assert 700 <= rec.init_ms[0] < 1000


# ------------------------------------------------------------- reuse, freezing, env
def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def test_process_reuse_and_fresh_process_option(tmp_path: Path) -> None:
    bot = parse_spec(zoo("pid_reporter.py"))
    for fresh in (False, True):
        pidfile = tmp_path / f"pids-{fresh}"
        # not isolated: the bot writes its (host) pid to a file
        with Referee(MatchSettings(limits=Limits(timeout_s=1.0), fresh_process=fresh, isolation="none")) as referee:
            for i in range(3):
                rec = referee.play(bot, parse_spec("L0"), course_game(4, 5, 3), seed=i,
                                   options1={"pidfile": str(pidfile)})
                assert rec.reason not in FAULTS, rec.detail
            if fresh:
                # closed after every game (by the teardown that follows the verdict)
                assert wait_until(lambda: tagged_pids(referee.tag) == [])
        pids = _pids(pidfile)
        assert len(pids) == 3
        assert len(set(pids)) == (3 if fresh else 1)


def test_fault_gets_a_fresh_process_and_the_opponent_keeps_its_own(tmp_path: Path) -> None:
    bot = parse_spec(zoo("second_game_fails.py"))
    pidfile = tmp_path / "l0.pid"
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), log_dir=str(tmp_path), isolation="none")) as referee:  # pids written to a file
        def bot_pids() -> set[int]:
            return {p for p in tagged_pids(referee.tag) if "second_game_fails" in cmdline(p)}

        reporter = parse_spec(zoo("pid_reporter.py"))
        opts = {"pidfile": str(pidfile)}
        records, seen = [], []
        for i, expected in enumerate((1, 0, 1)):  # live processes of `bot` after each game
            records.append(referee.play(bot, reporter, course_game(4, 5, 3), seed=i, options2=opts))
            wait_until(lambda: len(bot_pids()) == expected)  # noqa: B023
            seen.append(bot_pids())
        assert [r.reason in FAULTS for r in records] == [False, True, False]
        assert records[1].reason is Reason.CRASH and records[1].winner == 2
        assert "second game in this process" in records[1].detail
        assert "second game in this process" in records[1].stderr_tail
        assert len(seen[0]) == 1
        assert seen[1] == set()  # the faulty process was killed at once
        assert len(seen[2]) == 1 and seen[2] != seen[0]  # a new process after the fault
        assert len(set(_pids(pidfile))) == 1  # the opponent's process was reused throughout


def test_self_play_uses_two_processes_and_seeds_replay(tmp_path: Path) -> None:
    l0 = parse_spec("L0")
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        a = referee.play(l0, l0, course_game(6, 7, 4), seed=11)
        assert len({os.getpgid(p) for p in tagged_pids(referee.tag)}) == 2  # two bots
        b = referee.play(l0, l0, course_game(6, 7, 4), seed=11)
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0), fresh_process=True)) as referee:
        c = referee.play(l0, l0, course_game(6, 7, 4), seed=11)
    assert columns(a) == columns(b) == columns(c)  # the seed reaches the bot (player.seed)
    assert a.names == ("L0", "L0")


def test_record_fields() -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec("L1"), parse_spec("L0"), course_game(5, 6, 4), seed=3)
    assert (rec.params, rec.p1, rec.p2, rec.seed) == ({"rows": 5, "cols": 6, "k": 4}, "L1", "L0", 3)
    assert rec.version == __version__
    t0 = datetime.fromisoformat(rec.started_at)
    t1 = datetime.fromisoformat(rec.finished_at)
    assert t0.utcoffset() is not None and t0 <= t1
    assert len(rec.times_ms) == rec.n_moves and all(t >= 0 for t in rec.times_ms)
    assert all(t >= 0 for t in rec.init_ms)
    board = CXBoard.from_moves(5, 6, 4, list(columns(rec)))
    expected = {"winp1": 1, "winp2": 2, "draw": None}[board.gameState().value]
    assert rec.winner == expected
    assert GameRecord.from_dict(json.loads(rec.to_json())) == rec


def test_bots_are_frozen_between_their_turns(tmp_path: Path) -> None:
    """A bot's background thread that burns CPU gets none while the opponent thinks."""
    pidfile, outfile = tmp_path / "burner.pid", tmp_path / "observed.jsonl"
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0), isolation="none")) as referee:  # files written
        rec = referee.play(parse_spec(zoo("burner.py")), parse_spec(zoo("observer.py")),
                           course_game(6, 7, 4), seed=1, options1={"pidfile": str(pidfile)},
                           options2={"pidfile": str(pidfile), "outfile": str(outfile),
                                     "watch_s": 0.3})
    assert rec.reason not in FAULTS, rec.detail
    samples = [json.loads(line) for line in outfile.read_text().splitlines()]
    assert len(samples) >= 3
    # stopped by SIGSTOP (T), or frozen by a cgroup v2 freezer (D: in the refrigerator)
    stopped = ("T", "D") if referee.containment.backend == "v2" else ("T",)
    for s in samples:
        # 0.3 s of a spinning thread would be ~30 ticks; a frozen process gets none
        assert s["state0"] in stopped and s["state1"] in stopped, s
        assert s["ticks"] <= 1, s


def test_pinning_environment_and_memory_limit() -> None:
    cpu = max(os.sched_getaffinity(0))
    limit = 1536 * 2**20
    # not isolated: one process per bot (test_isolation.py checks the sandboxed tree)
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0, memory_limit_mb=None if (limit) is None else (limit) // 2**20), cpu=cpu, isolation="none")) as referee:
        referee.play(parse_spec("L0"), parse_spec(zoo("shellbot.sh")), course_game(4, 4, 3), seed=1)
        pids = tagged_pids(referee.tag)
        assert len(pids) == 2
        for pid in pids:
            assert os.sched_getaffinity(pid) == {cpu}
            assert resource.prlimit(pid, resource.RLIMIT_DATA) == (limit, limit)
            for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
                assert environ_value(pid, var) == "1"
            assert environ_value(pid, "CXARENA_PROTOCOL") == "1"
            assert os.getsid(pid) == pid  # its own session and process group
            # idle between games: frozen (SIGSTOP takes effect when it is next scheduled)
            assert wait_until(lambda: frozen(pid))  # noqa: B023
    assert tagged_pids(referee.tag) == []


def test_close_is_idempotent_and_final() -> None:
    referee = Referee(MatchSettings(limits=Limits(timeout_s=1.0)))
    referee.play(parse_spec("L0"), parse_spec("L0"), course_game(4, 4, 3), seed=0)
    referee.close()
    referee.close()
    assert tagged_pids(referee.tag) == []
    with pytest.raises(RuntimeError):
        referee.play(parse_spec("L0"), parse_spec("L0"), course_game(4, 4, 3), seed=0)


def test_unstartable_program_is_a_crash() -> None:
    """parse_spec refuses a missing program up front; a spec built by hand (or a program
    deleted after the check) still ends as a crash, not an exception."""
    with pytest.raises(SpecError, match="no executable program"):
        parse_spec("exec:/nonexistent/cxbot")
    missing = BotSpec(text="exec:/nonexistent/cxbot", command=("/nonexistent/cxbot",))
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec("L0"), missing, course_game(4, 4, 3), 0)
    assert rec.reason is Reason.CRASH and rec.winner == 1 and rec.offender == 2
    assert "failed to start" in rec.detail


def test_answer_time_is_its_arrival_not_when_the_referee_reads_it(tmp_path: Path) -> None:
    """The clock stops when the answer reaches the kernel (socket timestamp), so a referee
    thread that wakes late on a busy machine does not make an answer late."""
    proc = BotProcess(["sh", "-c", "read x; echo 'play 0'; sleep 30"],
                      log_path=str(tmp_path / "log"), env=dict(os.environ))
    try:
        t0_ns = time.time_ns()
        proc.send(b"go\n")
        time.sleep(1.0)  # the referee "oversleeps"
        assert proc.read_line(time.perf_counter() + 5) == b"play 0"
        assert proc.line_arrival_ns is not None
        assert 0 <= (proc.line_arrival_ns - t0_ns) / 1e9 < 0.8
    finally:
        proc.close()
    assert not live(proc.pid)
