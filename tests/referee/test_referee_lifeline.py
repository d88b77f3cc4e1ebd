"""A referee killed by SIGKILL leaves no bot behind (arena.wire.lifeline), and `max_moves` caps a
game for checks and tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee.referee import MOVE_CAP_DETAIL, MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import tagged_pids, wait_until, zoo

REFEREE = textwrap.dedent("""
    import sys, time
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game
    from arena.entrants.specs import parse_spec
    r = Referee(MatchSettings(limits=Limits(timeout_s=5.0)))
    # both bots stay alive (frozen) in the referee's pool after the game
    r.play(parse_spec("L0"), parse_spec(sys.argv[1]), course_game(6, 7, 4), 1)
    print(r.tag, flush=True)
    time.sleep(120)
""")


def test_bots_die_when_the_referee_is_killed(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", REFEREE, zoo("shellbot.sh")], cwd=tmp_path,
                         stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout is not None
        tag = p.stdout.readline().strip()
        assert tag, "the referee did not finish its game"
        bots = tagged_pids(tag)
        assert len(bots) >= 2  # the Python host and the shell bot, both frozen now
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert wait_until(lambda: not tagged_pids(tag), timeout_s=5.0), tagged_pids(tag)


def test_max_moves_stops_an_open_game_as_a_capped_draw() -> None:
    with Referee(MatchSettings(limits=Limits(timeout_s=2.0))) as ref:
        rec = ref.play(parse_spec("L0"), parse_spec("L0"),
                       course_game(50, 50, 10), seed=3, max_moves=12)
    assert rec.n_moves == 12 and len(rec.times_ms) == 12
    assert rec.reason is Reason.DRAW and rec.winner is None
    assert rec.detail.startswith(MOVE_CAP_DETAIL)
