"""A league worker that dies shows why on the admin page (issue 40, point 9): how its process
ended (the signal that killed it, or its exit code) and the last error it logged, never the
referee's note that the machine was overloaded (a warning) as its "last error". The worker is
killed for real (SIGKILL) while it plays."""

from __future__ import annotations

import contextlib
import dataclasses
import html
import logging
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from starlette.testclient import TestClient

from arena.competition.executor import LocalExecutor
from arena.league import League
from arena.league.config import parse_config
from arena.league.feed import LeagueGames, LeagueSource, _Health, death_cause
from arena.league.web.app import create_app
from arena.league.worker import league_settings, worker_health
from arena.referee.referee import MatchSettings
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
#: what the referee's overload note looks like in a worker's log (a warning)
OVERLOAD = ("event=overload game=x replay=1 detail=the move took 612 ms, of which the "
            "bot waited 540 ms for a CPU (overloaded)")
#: the worker's own error, before it is killed
ERROR = "cannot start the sandbox: bwrap: No permissions to create new namespace"


@contextlib.contextmanager
def hanging_runner(settings: MatchSettings) -> Iterator[object]:
    """A game runner that logs an error, then the overload warning, says it is ready (its pid
    in ``ready`` in the worker's log folder: the workers come from a fork server that may
    predate the test, so not through the environment) and hangs until it is killed."""
    log = logging.getLogger("arena.referee.referee")

    def play(game: object) -> object:
        log.error("worker game=%s: %s", getattr(game, "game_id", "?"), ERROR)
        log.warning("%s", OVERLOAD)
        folder = Path(str(settings.log_dir))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "ready").write_text(str(os.getpid()))
        time.sleep(600)
        raise AssertionError("not killed")

    yield play


def test_death_cause_words() -> None:
    assert death_cause("worker process died (exit code 3)", "") == (
        "worker process died (exit code 3)")
    assert death_cause("worker process died (exit code -9, SIGKILL)", "boom") == (
        "worker process died (exit code -9, SIGKILL); its last logged error: boom")


def test_a_worker_killed_for_real_shows_the_signal_and_its_last_error(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\ntimeout_s: 0.5\nreference_bots: [L0]\n"
                   "isolation: false\nopening_plies: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secret = lg.add_user("teacher", admin=True)
    lg.add_user("ann")
    lg.submit("ann", [("bot.py", L0)])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    logs = tmp_path / "logs"
    mark = logs / "worker-0" / "ready"  # `MatchSettings.for_worker`'s folder of worker 0
    shown: list[str] = []
    health = _Health(d, 1, shown.append)
    play = parse_config("timeout_s: 0.5\nisolation: false\n").play
    settings = dataclasses.replace(league_settings(play, False), log_dir=str(logs))
    executor = LocalExecutor(settings, 1, runner=hanging_runner, on_death=health.died)
    workers = LeagueGames(d, lambda: executor, LeagueSource(d, None, announce=shown.append),
                          health, None)
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), "the worker never played"
        pid = int(mark.read_text())
        assert pid in workers.pids()
        time.sleep(1.0)  # its log records travel to this process through a queue
        os.kill(pid, signal.SIGKILL)
        while not shown and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        workers.stop()
    assert shown, "the death was not announced"
    (row,) = worker_health(d)
    assert row.restarts >= 1
    assert row.last_error.startswith("worker process died (exit code -9, SIGKILL)"), row
    assert ERROR in row.last_error, row
    assert "overload" not in row.last_error, row  # a warning is no worker's error
    # the admin page shows it, escaped like everything else
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "teacher", "secret": secret, "csrf": token})
    table = re.search(r'<table id="workers">.*?</table>', c.get("/admin").text, re.S)
    assert table, "no workers table"
    text = html.unescape(table.group(0))
    assert "SIGKILL" in text and ERROR in text and "overload" not in text
