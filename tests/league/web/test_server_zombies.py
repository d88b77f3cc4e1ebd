"""The league's real server (`cxarena league serve`: its web app, checks and rating-game
worker processes) leaves no zombie behind while it plays (issue 40, point 9: "[bwrap] <defunct>
zombies accumulate under the server"): after its checks and 20 rating games, no process under it
stays a zombie (a zombie seen in two looks a second apart was never reaped)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from tests.league.web.server_proc import start_server

ROOT = Path(__file__).resolve().parents[3]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, name) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1]), text[text.index("(") + 1:text.rindex(")")]


def _zombies_under(root: int) -> set[tuple[int, str]]:
    """The zombie processes whose ancestors include `root`."""
    stats = {int(p): s for p in os.listdir("/proc") if p.isdigit()
             if (s := _stat(int(p))) is not None}
    found = set()
    for pid, (state, _, name) in stats.items():
        if state != "Z":
            continue
        parent = stats[pid][1]
        while parent > 1 and parent != root and parent in stats:
            parent = stats[parent][1]
        if parent == root:
            found.add((pid, name))
    return found


def test_the_server_leaves_no_zombie(tmp_path: Path) -> None:
    from arena.league import League

    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\ntimeout_s: 0.5\npairs_per_submission: 10\n"
                   "max_pairs_per_submission: 10\nreference_bots: [L0]\njava: false\n"
                   "analysis_budget_s: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    for user, bot in (("ann", L1), ("bob", L0)):
        lg.add_user(user)
        lg.submit(user, [("bot.py", bot)])
    lg.conn.close()
    server = start_server(d)
    try:
        deadline = time.monotonic() + 300
        games = 0
        while games < 20 and time.monotonic() < deadline:
            time.sleep(1)
            with sqlite3.connect(d / "league.sqlite") as c:
                (games,) = c.execute("SELECT COUNT(*) FROM games").fetchone()
        assert games >= 20, f"only {games} games in 300 s:\n{''.join(server.output)}"
        first = _zombies_under(server.proc.pid)
        time.sleep(1.0)
        stale = first & _zombies_under(server.proc.pid)  # the same zombie, never reaped
        assert not stale, stale
    finally:
        server.stop()


def test_a_zombie_is_seen() -> None:
    """The look itself: a child that exited and was never reaped is found under its parent."""
    import subprocess
    import sys

    parent = subprocess.Popen([sys.executable, "-c",
                               "import os, time\nif os.fork() == 0:\n    os._exit(0)\n"
                               "time.sleep(30)\n"])
    try:
        deadline = time.monotonic() + 10
        while not _zombies_under(parent.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_zombies_under(parent.pid)) == 1
    finally:
        parent.kill()
        parent.wait()
