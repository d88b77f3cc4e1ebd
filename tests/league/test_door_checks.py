"""Checks cannot block each other (issue 36, item 4), on a real league server over HTTP.

A student's bot that floods its protocol channel or hangs in its check holds that check at most
until the league's `check_limit_s`: then the check's process and everything it started are
killed and the version fails saying so. The server runs `check_workers` checks at once, never
two of one student, so another student's upload starts its check within one check's limit
(with one check at a time: right after the limit ends the hostile one; with two: while the
hostile one is held). What ended a check is read in its verdict, which check started while
another was held in the league's rows; the few timings have generous bounds (a busy machine)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.league import League
from arena.league.checks import TIME_LIMIT
from tests.league.helpers import student, upload
from tests.league.web.server_proc import Server, start_server

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()

#: a bot that, in its games, floods the protocol channel (the host's private copy of stdout)
#: with comment lines, 64 KiB of newlines at a time, and never answers
FLOOD = b'''
import fcntl, os, stat
from arena.player import CXPlayer


def _protocol_fd():
    err = os.fstat(2).st_ino
    for fd in range(3, 64):
        try:
            st, flags = os.fstat(fd), fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError:
            continue
        if stat.S_ISFIFO(st.st_mode) and flags & os.O_ACCMODE == os.O_WRONLY \\
                and st.st_ino != err:
            return fd
    return 1


class Flood(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.fd = _protocol_fd()

    def selectColumn(self, B):
        while True:
            os.write(self.fd, b"\\n" * 65536)

    def playerName(self):
        return "flood"
'''

#: a bot that hangs when it is imported (the check waits for its start-up: 30 s by default)
HANG = b'''
import time
from arena.player import CXPlayer

time.sleep(3600)


class Hang(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "hang"
'''


def make_league(d: Path, extra: str) -> dict[str, str]:
    cfg = d.parent / f"{d.name}.yaml"
    cfg.write_text("board_set: competition\ntimeout_s: 0.5\npairs_per_submission: 1\n"
                   "max_pairs_per_submission: 1\nreference_bots: [L0]\n" + extra)
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n) for n in ("ann", "bob")}
    lg.conn.close()
    return secrets


@pytest.fixture
def serve() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def rows(d: Path) -> dict[int, tuple[str, str, float | None, str]]:
    """id -> (user, status, check_started_at, check_summary)."""
    with sqlite3.connect(d / "league.sqlite", timeout=30) as c:
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in c.execute(
            "SELECT id, user, status, check_started_at, check_summary FROM submissions")}


def watch(d: Path, until: Callable[[dict[int, Any]], bool],
          timeout_s: float) -> list[dict[int, Any]]:
    """Poll the league's versions until `until(rows)`; every observation, in order."""
    seen = []
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        now = rows(d)
        seen.append(now)
        if until(now):
            return seen
        time.sleep(0.1)
    raise AssertionError(f"not reached in {timeout_s} s: {seen[-1]}")


def processes_naming(text: str) -> list[str]:
    """The command lines of live processes that mention `text` (a version's folder)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if text in cmd and state != "Z":
                out.append(cmd)
    return out


def test_a_flooding_check_delays_no_other_student(tmp_path: Path, serve: list[Server]) -> None:
    """Two checks at a time (the default): ann's flooding bot holds one of them, at most until
    the limit; bob's upload starts its check at once; ann's next version waits for her first
    (never two of one student), then is checked."""
    limit = 20.0
    d = tmp_path / "lg"
    secrets = make_league(d, f"check_limit_s: {limit}\n")
    server = start_server(d)
    serve.append(server)
    ann = student(server.url, "ann", secrets["ann"])
    bob = student(server.url, "bob", secrets["bob"])
    flood = upload(ann, "flood.py", FLOOD)
    watch(d, lambda r: r[flood][1] == "checking", 60)
    again = upload(ann, "bot.py", L0)
    good = upload(bob, "bot.py", L0)
    seen = watch(d, lambda r: all(r[s][1] in ("rating", "failed") for s in (flood, again, good)),
                 limit * 3 + 180)
    final = seen[-1]
    # bob's check started while ann's flooding one was still held (not after it: no wall
    # time is measured, so a busy machine cannot fail this)
    assert any(r[flood][1] == "checking" and r[good][1] != "queued" for r in seen), \
        "bob's check waited for ann's flooding one"
    for r in seen:  # never two checks of ann's at once
        assert sum(1 for s in (flood, again) if r[s][1] == "checking") <= 1
    assert final[again][2] >= final[flood][2]
    assert final[flood][1] == "failed" and final[good][1] == "rating", final
    assert final[again][1] == "rating", final


def test_a_hanging_check_is_ended_at_the_limit(tmp_path: Path, serve: list[Server]) -> None:
    """One check at a time: ann's bot hangs at import (the check would wait 30 s for its
    start-up); the check is ended at the 6 s limit, ann's version fails saying so, no process
    of it is left, and bob's check then starts: within one limit (and a margin) of ann's."""
    limit = 6.0
    d = tmp_path / "lg"
    secrets = make_league(d, f"check_limit_s: {limit}\ncheck_workers: 1\n")
    server = start_server(d)
    serve.append(server)
    ann = student(server.url, "ann", secrets["ann"])
    bob = student(server.url, "bob", secrets["bob"])
    hang = upload(ann, "hang.py", HANG)
    watch(d, lambda r: r[hang][1] == "checking", 60)
    good = upload(bob, "bot.py", L0)
    seen = watch(d, lambda r: r[hang][1] == "failed" and r[good][1] in ("rating", "failed"),
                 limit + 240)
    final = seen[-1]
    assert final[hang][3].startswith(TIME_LIMIT), final[hang][3]
    assert f"limit of {limit:g} s" in final[hang][3]
    assert final[good][1] == "rating", final[good][3]
    waited = final[good][2] - final[hang][2]
    # the summary says the limit ended ann's check (not its 30 s start-up wait); the bound
    # here is that bob's then starts, generous for a busy machine
    assert waited < limit + 120, f"bob's check started {waited:.1f} s after ann's"
    lg = League.open(d)
    sub = lg.submission(hang)
    assert sub is not None
    folder = f"work/{hang}-{sub.fingerprint}"
    lg.conn.close()
    assert processes_naming(folder) == []  # the bot and its probe were killed
    status, page, _ = ann.request(f"/submissions/{hang}")
    assert status == 200 and "time limit" in page
