"""The memory limit (RLIMIT_DATA): real runtimes start under the default, real hogs (Python, C,
Java) lose with `crash` and a detail that says `memory`; a bot that fails to start keeps the
first and last lines it wrote in the record."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena import defaults
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import FAULTS, Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import ZOO, cxarena, tagged_pids, wait_until, zoo

JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "Bot.java"


@pytest.fixture(scope="module")
def java_bot(tmp_path_factory: pytest.TempPathFactory) -> str:
    """`exec:java -cp DIR Bot`, compiled with javac into a temporary directory."""
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("javac/java not installed (apt-get install default-jdk-headless)")
    out = tmp_path_factory.mktemp("java")
    subprocess.run(["javac", "-d", str(out), str(JAVA_SOURCE)], check=True, timeout=120)
    return f"exec:java -cp {out} Bot"


def test_a_stock_jvm_starts_and_plays_under_the_default_limit(java_bot: str) -> None:
    settings = MatchSettings(limits=Limits(timeout_s=2.0))
    assert settings.limits.memory_limit_bytes == defaults.MEMORY_LIMIT_MB * 2**20
    with Referee(settings) as referee:
        rec = referee.play(parse_spec(java_bot), parse_spec("L0"), course_game(4, 5, 3), seed=1)
    assert rec.reason not in FAULTS, rec.detail
    assert rec.names == ("JavaBot", "L0")


def test_java_memory_hog_is_a_crash_about_memory(java_bot: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a dying JVM writes hs_err_pid*.log into its working directory
    with Referee(MatchSettings(limits=Limits(timeout_s=10.0, memory_limit_mb=768))) as referee:
        rec = referee.play(parse_spec(java_bot), parse_spec("L0"), course_game(4, 5, 3), seed=1,
                           options1={"hog": True})
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "memory" in rec.detail, rec.detail


def test_c_memory_hog_is_a_crash_about_memory(tmp_path: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) installed")
    exe = tmp_path / "memhog"
    subprocess.run([cc, "-O0", "-o", str(exe), str(ZOO / "memhog.c")], check=True, timeout=60)
    # Unsandboxed: the peak resident memory comes from wait4 on the bot itself. In the sandbox
    # the referee waits for bwrap, which exits before it reaps the bot, so a C bot that dies
    # of SIGSEGV without a word is reported as such (docs/protocol.md, "Memory").
    settings = MatchSettings(limits=Limits(timeout_s=10.0, memory_limit_mb=300), isolation="none")
    with Referee(settings) as referee:
        rec = referee.play(parse_spec("L0"), parse_spec(f"exec:{exe}"),
                           course_game(4, 5, 3), seed=1)
    assert rec.reason is Reason.CRASH and rec.offender == 2, rec.detail
    assert "SIGSEGV" in rec.detail and "memory" in rec.detail, rec.detail


def test_python_memory_hog_is_a_crash_about_memory() -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=10.0, memory_limit_mb=300))) as referee:
        rec = referee.play(parse_spec(zoo("memhog.py")), parse_spec("L0"),
                           course_game(4, 5, 3), seed=1)
    assert rec.reason is Reason.CRASH and rec.offender == 1, rec.detail
    assert "memory" in rec.detail and "MemoryError" in rec.stderr_tail


def test_a_bot_that_fails_to_start_keeps_its_first_and_last_lines() -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec(zoo("vm_init_error.sh")), parse_spec("L0"),
                           course_game(4, 4, 3), 0)
        assert wait_until(lambda: len(tagged_pids(referee.tag)) <= 1)
    assert rec.reason is Reason.CRASH and rec.offender == 1
    for part in ("failed to start", "Error occurred during initialization of VM",
                 "Could not allocate compressed class space", "stderr first line",
                 "stderr last line"):
        assert part in rec.detail, rec.detail


def test_a_jvm_that_cannot_start_says_memory(java_bot: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the smallest limit a JVM cannot even start: the detail says so, and why."""
    monkeypatch.chdir(tmp_path)
    settings = MatchSettings(limits=Limits(timeout_s=1.0, memory_limit_mb=defaults.MIN_MEMORY_MB))
    with Referee(settings) as referee:
        rec = referee.play(parse_spec(java_bot), parse_spec("L0"), course_game(4, 4, 3), seed=0)
    if rec.reason not in FAULTS:
        pytest.skip("this JVM starts in 256 MiB (a machine with little RAM: a small heap)")
    assert rec.reason is Reason.CRASH and "failed to start" in rec.detail
    assert "memory" in rec.detail, rec.detail


LIMIT_REPORTER = '''
import resource
from arena.player import CXPlayer


class LimitReporter(CXPlayer):
    """Says its RLIMIT_DATA (-1: none) as its name."""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return str(resource.getrlimit(resource.RLIMIT_DATA)[0])
'''


@pytest.mark.parametrize("memory_mb, expected", [(0, -1), (512, 512 * 2**20)])
def test_memory_mb_means_the_same_in_match_and_check_bot(tmp_path: Path, memory_mb: int,
                                                         expected: int) -> None:
    """--memory-mb 0 is no limit in both commands (the config says null for that)."""
    import json

    from arena.onboarding.conformance import run_check

    bot = tmp_path / "limit_reporter.py"
    bot.write_text(LIMIT_REPORTER)
    r = cxarena(ROOT, "match", str(bot), "L0", "--board", "4", "4", "3", "--time", "1",
                "--games", "1", "--json", "--memory-mb", str(memory_mb))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["names"][0] == str(expected)
    report = run_check(str(bot), boards=[(4, 4, 3)], timeout_s=1.0, memory_mb=memory_mb)
    assert report.games and report.games[0].bot_name == str(expected)


def test_check_bot_refuses_a_tiny_memory_limit() -> None:
    r = cxarena(ROOT, "check-bot", "L1", "--memory-mb", "10")
    assert r.returncode == 2 and "--memory-mb must be 0 (no limit) or at least" in r.stderr
