"""Process hygiene of the referee: every pipe and socket of a bot is closed when its process is
reaped (no ResourceWarning, even for bots that were killed), each game has a header in the bots'
logs, and `cxarena match` says where the logs are."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import zoo

FAULTY_MATCHES = textwrap.dedent("""
    import gc, os, sys, time
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game
    r = Referee(MatchSettings(limits=Limits(timeout_s=0.3), log_dir=sys.argv[1]))
    for bot in sys.argv[2:]:
        for seed in range(2):
            rec = r.play(parse_spec(bot), parse_spec("L0"), course_game(4, 4, 3), seed)
            print(rec.reason.value, flush=True)
    end = time.time() + 10  # the last killed bot: its teardown runs on the settle thread,
    # then it is collected once it has died
    while time.time() < end and (r._pool._dying or not r.teardown_done()):
        r._pool.reap_dying()
        time.sleep(0.01)
    gc.collect()  # a bot's pipe left to the garbage collector would warn here
    fds = len(os.listdir("/proc/self/fd"))
    r.close()
    gc.collect()
    print("fds", fds, len(os.listdir("/proc/self/fd")), flush=True)
""")


@pytest.mark.serial  # counts a process's descriptors: an overload replay adds a bot's
def test_killed_bots_leave_no_open_pipe_or_socket(tmp_path: Path) -> None:
    bots = [zoo("raise_select.py"), zoo("sleepy.py"), zoo("os_exit.py"), zoo("garbage.sh"),
            zoo("close_stdout.sh")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-c",
                        FAULTY_MATCHES, str(tmp_path), *bots], env=env, capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ResourceWarning" not in r.stderr, r.stderr
    assert r.stdout.split().count("crash") + r.stdout.split().count("timeout") + \
        r.stdout.split().count("illegal") == 2 * len(bots), r.stdout
    during, after = (int(x) for x in r.stdout.split("fds", 1)[1].split())
    # during: the idle L0 process (stdin pipe, stdout socket, the read end of its stderr pipe
    # and its log file), the counter of the log budget and the referee thread's own
    # schedstat (read at every move: `Referee._own_sched_ns`); the killed bots hold none
    assert during - after == 6, (during, after)


def test_each_game_has_a_header_in_the_bot_logs_and_match_says_where(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "arena", "match", zoo("printer.py"), "L0",
                        "--board", "4", "4", "3", "--time", "2", "--games", "3", "--log-dir",
                        str(logs)], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"bot logs (stderr, one file per bot process, a header before each game): {logs}" \
        in r.stdout
    texts = {p.name: p.read_text(errors="replace") for p in logs.iterdir()}
    flood = next(t for n, t in texts.items() if "printer" in n)
    headers = re.findall(r"^===== cxarena game (\d) of the match: (.*) =====$", flood, re.M)
    assert [h[0] for h in headers] == ["1", "2", "3"], headers
    assert "this bot moves first" in headers[0][1] and "this bot moves second" in headers[1][1]
    # the bot's own lines of game 2 are between the headers of games 2 and 3
    game2 = flood.split("game 2 of the match")[1].split("game 3 of the match")[0]
    assert "my name is printer" in game2 and "thinking... play 0" in game2

    r = subprocess.run([sys.executable, "-m", "arena", "match", "L0", "L0", "--board", "4", "4",
                        "3", "--time", "1", "--games", "1", "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    where = r.stderr.strip().splitlines()[-1].rsplit(": ", 1)[1]
    assert Path(where).is_dir() and any(Path(where).iterdir())


def test_idle_pids_are_the_bots_kept_for_the_next_game() -> None:
    """`Referee.idle_pids`: after a game, the two processes kept for reuse (alive); none once
    the Referee is closed."""
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    l0 = parse_spec("L0")
    ref = Referee(MatchSettings(limits=Limits(timeout_s=1.0), fresh_process=False))
    try:
        assert ref.idle_pids() == []
        ref.play(l0, l0, course_game(4, 4, 3), seed=1)
        pids = ref.idle_pids()
        assert len(pids) == 2 and all(os.path.exists(f"/proc/{p}") for p in pids)
    finally:
        ref.close()
    assert ref.idle_pids() == []
