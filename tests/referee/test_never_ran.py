"""Issue 49: no bot loses a game it was not given the CPU to play.

A late move in which the bot computed (almost) nothing while the kernel shows it held by
something not its own (runnable but never run since its request, stopped or frozen after the
referee resumed it, blocked in a page fault before it took its request) is the machine's: the
game is played again, like an overloaded one, never charged. A bot that sleeps or computes past
its limit is charged as before.

The machine is a test double: when the referee resumes the bot it keeps it stopped (or freezes it
with the cgroup v1 freezer first), so the bot never gets to run; no real load is needed. The rule's
judgement is tested on given thread states (`containment.Hold`)."""

from __future__ import annotations

import os
import pathlib
import signal
import time
from collections.abc import Callable, Iterator

import pytest

from arena import defaults
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee.cgroups import detect
from arena.referee.containment import Hold, ThreadState, thread_states
from arena.referee.process import BotProcess
from arena.referee.referee import MatchSettings, Referee, course_game
from arena.results.fairness import game_account
from tests.helpers import zoo

SLEEPER = parse_spec("bench.bench_fairload:Sleeper")
LIMIT_S = 0.2


# ------------------------------------------------------------------ the judgement itself
def _thread(state: str, wchan: str = "", syscall: int | None = 0,
            ran: bool | None = True) -> ThreadState:
    return ThreadState(10, 11, state, wchan, syscall, 0, ran)


MAX = defaults.STALL_MAX_CPU_MS


@pytest.mark.parametrize("thread, unread, machines", [
    (_thread("R", ran=False), True, True),  # never got on a CPU since its request
    (_thread("T"), False, True),  # stopped after the referee resumed it
    (_thread("D", "__refrigerator", -1), True, True),  # the v1 freezer
    (_thread("S", "do_freezer_trap", 0), True, True),  # the v2 freezer
    (_thread("D", "folio_wait_bit_common", -1, ran=False), True, True),  # a page fault
    # it read its request and ran: now waiting for a CPU, or in a page fault, after what
    # may have been a sleep of its own: no evidence
    (_thread("R", ran=True), False, False),
    (_thread("D", "folio_wait_bit_common", -1, ran=True), False, False),
    (_thread("S", "hrtimer_nanosleep", 35), False, False),  # a sleep it chose
    (_thread("S", "hrtimer_nanosleep", 35, ran=False), True, False),  # chosen before
    (_thread("D", "jbd2_log_wait_commit", 74, ran=False), True, False),  # its own fsync
    (_thread("S", "futex_wait_queue", 202, ran=False), True, False),  # waits for itself
])
def test_held_means_not_its_own_doing(thread: ThreadState, unread: bool,
                                      machines: bool) -> None:
    hold = Hold(0.0, (thread,), unread)
    assert bool(hold.machine(MAX)) is machines, hold.machine(MAX)


def test_a_bot_that_computed_is_never_held() -> None:
    hold = Hold(MAX + 0.5, (_thread("R", ran=False), _thread("T")), True, "FROZEN")
    assert hold.machine(MAX) == ""


def test_one_held_thread_among_idle_ones_is_enough() -> None:
    """A JVM: idle threads in futex waits of their own, the main one never run."""
    idle = [ThreadState(10, 12 + i, "S", "futex_wait_queue", 202, 0, False) for i in range(8)]
    hold = Hold(0.4, (*idle, ThreadState(10, 11, "R", "", None, 0, False)), True)
    assert "thread 11 runnable but never run since its request" in hold.machine(MAX)
    assert "its request still unread" in hold.machine(MAX)
    words = hold.words()  # bounded, the held thread first
    assert words.startswith("; at the deadline: its request unread, thread 11 R, never ran")
    assert words.endswith("6 threads more")


def test_the_freezer_state_alone_holds() -> None:
    hold = Hold(0.0, (_thread("S", "pipe_read", 0),), True, "FROZEN")
    assert hold.machine(MAX).startswith("it computed 0.0 ms, its request still unread, "
                                        "its cgroup frozen")


def test_the_account_says_what_was_missing() -> None:
    hold = Hold(0.0, (_thread("T"),), True, "", None,
                ("no cgroup: no CPU weight given to the bot",))
    words = hold.words()
    assert "its request unread" in words and "thread 11 T" in words
    assert "not known here: no cgroup: no CPU weight given to the bot" in words


def test_thread_states_reads_the_kernel() -> None:
    """This thread (running, in no system call) as the kernel shows it."""
    me = (os.getpid(), os.getpid())
    (state,) = thread_states([me])
    assert state.state in ("R", "S") and (state.pid, state.tid) == me


# --------------------------------------------------- a real bot, the machine a test double
def _never_resumed(proc: BotProcess) -> None:
    """The machine's hold in place of the referee's resume: the bot stays stopped (the
    referee's SIGSTOP; with a cgroup v2 freezer, a SIGSTOP queued while frozen, then the
    group thawed: each thread stops before it runs any code), while the referee's clock
    starts as if it had resumed it. Nothing of the bot can run in between, however busy
    the machine (a SIGSTOP sent after a real resume raced the bot's answer)."""
    group = proc._freezer()
    if group is not None:
        os.killpg(proc.pgid, signal.SIGSTOP)
        group.thaw()
    proc.resumed_s, proc.resumed_ns = time.perf_counter(), time.time_ns()
    proc._frozen = False


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, object]]:
    """A machine that, while `stalls` > 0, holds the Sleeper bot at its next `go`: when the
    referee resumes it, `hold(proc)` keeps it from running (default: it is never resumed,
    `_never_resumed`); with `resume` set, the hold is put in place first and the referee's
    resume follows (a freezer that a SIGCONT does not undo)."""
    state: dict[str, object] = {"stalls": 1, "held": 0, "hold": _never_resumed,
                                "resume": False}
    send, thaw = BotProcess.send, BotProcess.thaw

    def noting_send(self: BotProcess, data: bytes) -> None:
        self._last_sent = data  # type: ignore[attr-defined]
        send(self, data)

    def machine_thaw(self: BotProcess) -> None:
        asked = getattr(self, "_last_sent", b"")
        if (int(state["stalls"]) > 0 and asked.endswith(b"go\n")  # type: ignore[call-overload]
                and "Sleeper" in " ".join(self.argv)):
            state["stalls"] = int(state["stalls"]) - 1  # type: ignore[call-overload]
            state["held"] = int(state["held"]) + 1  # type: ignore[call-overload]
            hold: Callable[[BotProcess], None] = state["hold"]  # type: ignore[assignment]
            hold(self)
            if not state["resume"]:
                return
        thaw(self)

    monkeypatch.setattr(BotProcess, "send", noting_send)
    monkeypatch.setattr(BotProcess, "thaw", machine_thaw)
    yield state


def _play(replays: int, cgroups: bool = False, sleep_s: float = 0.0,
          isolation: str = "none") -> object:
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S), overload_replays=replays,
                             isolation=isolation, cgroups=cgroups)
    with Referee(settings) as referee:
        return referee.play(SLEEPER, parse_spec("L0"), course_game(4, 4, 3), seed=1, max_moves=4,
                            options1={"sleep_s": sleep_s})


@pytest.mark.parametrize("cgroups", [False, True])
def test_a_bot_stopped_by_the_machine_is_replayed_not_charged(
        machine: dict[str, object], cgroups: bool) -> None:
    if cgroups and not detect().available:
        pytest.skip(f"no cgroups here: {detect().reason}")
    rec = _play(replays=2, cgroups=cgroups)
    assert machine["held"] == 1
    assert not rec.is_fault, rec.detail  # type: ignore[attr-defined]
    (incident,) = rec.extra["overload"]  # type: ignore[attr-defined]
    assert "selectColumn (move 1)" in incident and "never got to play it" in incident
    assert "stopped" in incident and "(the machine's)" in incident
    assert "the bot computed 0.0 ms" in incident or "it computed 0." in incident
    if not cgroups:  # the account says what it could not give or read
        assert "no cgroup: no CPU weight given to the bot" in incident
    assert game_account(rec) == "busy machine: played again once"  # type: ignore[arg-type]


def test_a_sandboxed_bot_stopped_by_the_machine_is_replayed_without_a_cgroup(
        machine: dict[str, object]) -> None:
    """In the sandbox and without a cgroup, the verdict looks for the bot's other processes
    (their CPU is its own): the sandbox's own (bwrap) are not the bot's, and their CPU
    (starting the sandbox) made a bot that never ran look as if it had computed."""
    from arena.referee.sandbox import probe

    why_not = probe()
    if why_not is not None:
        pytest.skip(f"no sandbox here: {why_not}")
    rec = _play(replays=2, isolation="namespaces")
    assert machine["held"] == 1
    assert not rec.is_fault, rec.detail  # type: ignore[attr-defined]
    (incident,) = rec.extra["overload"]  # type: ignore[attr-defined]
    assert "never got to play it" in incident, incident


def test_with_no_replay_left_it_is_charged_saying_why(machine: dict[str, object]) -> None:
    rec = _play(replays=0)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1  # type: ignore[attr-defined]
    assert "never got to play it" in rec.detail  # type: ignore[attr-defined]
    assert "charged (no replays allowed)" in rec.detail  # type: ignore[attr-defined]
    assert rec.extra["charged_overloaded"] == 0  # type: ignore[attr-defined]


def test_a_bot_frozen_by_the_v1_freezer_is_replayed(machine: dict[str, object]) -> None:
    """The cgroup v1 freezer (which the referee itself does not use: its frozen tasks ignore
    SIGKILL) freezes the bot's group right after the referee resumed it."""
    support = detect()
    if not support.available or support.version != 1:
        pytest.skip("needs cgroup v1 with a freezer")

    def freeze(proc: BotProcess) -> None:
        group = proc.cgroup
        assert group is not None
        path = group.folders.get("freezer")
        if path is None:
            pytest.skip("no v1 freezer for the bots' groups")
        with open(os.path.join(path, "freezer.state"), "w") as f:
            f.write("FROZEN")

    machine["hold"], machine["resume"] = freeze, True
    rec = _play(replays=2, cgroups=True)
    assert not rec.is_fault, rec.detail  # type: ignore[attr-defined]
    (incident,) = rec.extra["overload"]  # type: ignore[attr-defined]
    assert "never got to play it" in incident and "frozen" in incident.lower(), incident


@pytest.mark.parametrize("share", [1.3, 1.4])
def test_an_overrunning_sleeper_is_still_charged(machine: dict[str, object],
                                                 share: float) -> None:
    """The machine holds nothing; the bot sleeps past its limit: charged, its threads'
    states in the detail, never excused as a bot that never ran. (A busy machine may still
    replay it as overloaded when it really kept the bot from a CPU; it ends charged.)"""
    machine["stalls"] = 0
    rec = _play(replays=2, sleep_s=share * LIMIT_S)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail  # type: ignore
    for incident in rec.extra.get("overload", ()):  # type: ignore[attr-defined]
        assert "never got to play it" not in incident, incident
    assert "at the deadline:" in rec.detail  # type: ignore[attr-defined]


def test_a_sleeping_bot_stays_charged() -> None:
    """The zoo's sleeper (60 s in selectColumn): its request read, its thread in a sleep."""
    with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none",
                               overload_replays=2)) as referee:
        rec = referee.play(parse_spec(zoo("sleepy.py")), parse_spec("L0"),
                           course_game(4, 4, 3), seed=1)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    for incident in rec.extra.get("overload", ()):  # a busy machine's replay: never excused
        assert "never got to play it" not in incident, incident
    assert "never got to play it" not in rec.detail


_STDERR_FOREVER = '''
import sys
from arena.player import CXPlayer


class Flood(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        while True:
            sys.stderr.write("x" * 4095 + "\\n")

    def playerName(self):
        return "stderr_forever"
'''


def test_a_stderr_flood_past_the_limit_stays_charged(tmp_path: pathlib.Path) -> None:
    """A bot that writes to stderr until it is stopped (the referee's log reader busy on its
    output, the bot blocked in its own writes): charged, never excused as a bot that never
    ran (a busy machine's overload replay, if any, ends charged too)."""
    bot = tmp_path / "stderr_forever.py"
    bot.write_text(_STDERR_FOREVER)
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none",
                             overload_replays=2, log_dir=str(tmp_path / "logs"))
    with Referee(settings) as referee:
        rec = referee.play(parse_spec(str(bot)), parse_spec("L0"), course_game(4, 4, 3), seed=1)
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    for incident in rec.extra.get("overload", ()):
        assert "never got to play it" not in incident, incident
    assert "never got to play it" not in rec.detail


@pytest.mark.parametrize("cgroups", [False, True])
def test_busy_children_on_the_bots_core_stay_charged(cgroups: bool) -> None:
    """Its own 8 children crowd its thread off its core: its own doing, with a cgroup (their
    CPU is the group's) and without (the verdict looks for its processes)."""
    if cgroups and not detect().available:
        pytest.skip(f"no cgroups here: {detect().reason}")
    cpu = max(os.sched_getaffinity(0))
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none", cpu=cpu,
                             overload_replays=2, cgroups=cgroups)
    with Referee(settings) as referee:
        rec = referee.play(parse_spec(str(zoo("attackers/busy_children.py"))),
                           parse_spec("L0"), course_game(4, 4, 3), seed=1, options1={"children": 8})
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    assert "never got to play it" not in rec.detail
    assert "never got to play it" not in " ".join(rec.extra.get("overload") or [])


@pytest.mark.parametrize("text, words", [("1\n", "delay accounting: on"),
                                         ("0\n", "sysctl kernel.task_delayacct=1"),
                                         (None, "not in this kernel")])
def test_doctor_says_how_to_turn_delay_accounting_on(tmp_path: pathlib.Path, text: str | None,
                                                     words: str) -> None:
    from arena.commands.doctor import delayacct_line, report_lines

    path = tmp_path / "task_delayacct"
    if text is not None:
        path.write_text(text)
    assert words in delayacct_line(str(path))
    assert any(line.startswith("delay accounting: ") for line in report_lines())


def test_every_timeout_decided_game_is_listed_with_its_account() -> None:
    """standings.md's section lists each game decided by a timeout, a bot that computed past
    its limit too (not on a busy machine), with the late move's figures."""
    from arena.results.fairness import busy_machine_section, late_move_figures

    with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none",
                               overload_replays=0)) as referee:
        rec = referee.play(parse_spec(zoo("busy.py")), parse_spec("L0"),
                           course_game(4, 4, 3), seed=1,
                           game_id="g-busy")
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    cpu, wait, off = late_move_figures(rec)
    assert float(cpu) > 0.5 * LIMIT_S * 1000  # it computed
    row = busy_machine_section([rec], LIMIT_S).splitlines()[-1]
    assert row.startswith(f"| {rec.game_id or '-'} | {rec.player1 or rec.p1} | 1 | {cpu} | {wait} | {off} "
                          f"| 0 |  | selectColumn (move 1)"), row


# ------------------------------------- the referee kept off its CPU before the bot's resume
@pytest.fixture
def busy_before_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's thread spends 0.25 s on (or waiting for) a CPU after writing the request
    and before its SIGCONT, as a referee preempted there by busy processes would (not blocked:
    the slow-resumption rule of issue 39 took nothing off for that). The bot, stopped all
    along, never ran."""
    original = BotProcess.thaw

    def thaw(self: BotProcess) -> None:
        if self._frozen:
            end = time.perf_counter() + 0.25
            while time.perf_counter() < end:
                pass
        original(self)

    monkeypatch.setattr(BotProcess, "thaw", thaw)


@pytest.mark.usefixtures("busy_before_resume")
def test_a_referee_busy_before_the_resume_takes_nothing_of_the_bots_time() -> None:
    """Sleeping 0.4x its limit, resumed 0.25 s after its request was written: its clock
    starts once it is resumed (none of its threads had run), so it is not late, and its
    time is its own sleep."""
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none",
                             overload_replays=0)
    with Referee(settings) as referee:
        rec = referee.play(SLEEPER, parse_spec("L0"), course_game(4, 4, 3), seed=1, max_moves=2,
                           options1={"sleep_s": 0.4 * LIMIT_S})
    assert not rec.is_fault, rec.detail
    assert 0.4 * LIMIT_S * 1000 <= rec.times_ms[0] < 0.4 * LIMIT_S * 1000 + 100, rec.times_ms


def test_a_wait_while_being_stopped_after_the_verdict_excuses_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot computing past its limit is stopped at the verdict before its times are read;
    should the machine keep it waiting then (here: 10 s, given), that wait is not part of its
    move: it is charged, not replayed."""
    from arena.referee import containment as containment_mod

    stopped = [False]
    settle, wait = BotProcess.freeze_settled, containment_mod.machine_wait_ns

    def noting_settle(self: BotProcess, timeout_s: float) -> bool:
        stopped[0] = True
        return settle(self, timeout_s)

    def long_wait_once_stopped(*args: object, **kwargs: object) -> int:
        return 10 * 10**9 if stopped[0] else wait(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(BotProcess, "freeze_settled", noting_settle)
    monkeypatch.setattr(containment_mod, "machine_wait_ns", long_wait_once_stopped)
    with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), isolation="none",
                               overload_replays=2)) as referee:
        rec = referee.play(parse_spec(zoo("busy.py")), parse_spec("L0"),
                           course_game(4, 4, 3), seed=1)
    assert stopped[0]
    assert rec.reason is Reason.TIMEOUT and rec.offender == 1, rec.detail
    assert "overload" not in rec.extra, rec.extra["overload"]
