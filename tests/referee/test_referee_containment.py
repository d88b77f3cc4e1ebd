"""No process of a bot outlives its game: a daemon that double-forks out of the bot's process
group (setsid) is killed at the end of the game, and one left by a referee killed with SIGKILL
is killed when the next referee starts (arena.referee.containment)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import FAULTS
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import live, tagged_pids, wait_until, zoo


def _pid(path: Path) -> int:
    assert wait_until(path.exists, timeout_s=20.0), f"no {path}"
    return int(path.read_text())


def test_a_double_forked_daemon_dies_with_the_game(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0), log_dir=str(tmp_path), isolation="none")) as referee:
        rec = referee.play(parse_spec(zoo("daemon.py")), parse_spec("L0"),
                           course_game(4, 4, 3), seed=1,
                           options1={"pidfile": str(pidfile)})
        assert rec.reason not in FAULTS, rec.detail
        daemon = _pid(pidfile)
        assert wait_until(lambda: not live(daemon)), "the daemon survived its game"
        bots = tagged_pids(referee.tag)
        assert len(bots) == 2  # the bot itself lives on for the next game (frozen)
    assert wait_until(lambda: not tagged_pids(referee.tag))


def test_a_daemon_of_a_faulty_bot_dies_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    with Referee(MatchSettings(limits=Limits(timeout_s=0.3), log_dir=str(tmp_path), isolation="none")) as referee:
        rec = referee.play(parse_spec("L0"), parse_spec(zoo("daemon.py")),
                           course_game(4, 4, 3), seed=1,
                           options2={"pidfile": str(pidfile), "hang": True})
        assert rec.reason.value == "timeout" and rec.offender == 2
        daemon = _pid(pidfile)
        assert wait_until(lambda: not live(daemon)), "the daemon survived its bot's fault"


REFEREE = textwrap.dedent("""
    import sys
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game
    from arena.entrants.specs import parse_spec
    r = Referee(MatchSettings(limits=Limits(timeout_s=600.0), isolation="none"))
    r.play(parse_spec("L0"), parse_spec(sys.argv[1]), course_game(4, 4, 3), 1,
           options2={"pidfile": sys.argv[2], "hang": True})
""")


def test_a_daemon_left_by_a_killed_referee_dies_when_the_next_one_starts(
        tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", REFEREE, zoo("daemon.py"), str(pidfile)],
                         cwd=tmp_path, env=env)
    try:
        daemon = _pid(pidfile)
    finally:
        p.send_signal(signal.SIGKILL)  # mid-game: the bot is thinking (hang)
        p.wait()
    # the parent-death signal kills the referee's children, not a daemon out of their reach
    assert live(daemon)
    Referee(MatchSettings(limits=Limits(timeout_s=1.0), isolation="none")).close()  # the next start
    assert wait_until(lambda: not live(daemon)), "the daemon survived the next start"


def test_bots_outlive_the_thread_that_started_them() -> None:
    """The parent-death signal is per thread: bots are started from one long-lived thread, so
    a Referee created and first used in a thread that then ends keeps its bot processes."""
    referee = Referee(MatchSettings(limits=Limits(timeout_s=2.0), isolation="none"))
    first: list[object] = []
    t = threading.Thread(target=lambda: first.append(
        referee.play(parse_spec("L0"), parse_spec(zoo("shellbot.sh")),
                     course_game(4, 4, 3), seed=1)))
    t.start()
    t.join()
    try:
        before = set(tagged_pids(referee.tag))
        assert len(before) == 2
        rec = referee.play(parse_spec("L0"), parse_spec(zoo("shellbot.sh")),
                           course_game(4, 4, 3), seed=2)
        assert rec.reason not in FAULTS, rec.detail
        assert set(tagged_pids(referee.tag)) == before  # the same processes, reused
    finally:
        referee.close()
