"""The league's deadline (league.yaml `deadline`, `final_at_deadline`): uploads close and the
league freezes by itself at the deadline, the pages show the time left, and the final round
robin can start by itself."""

from __future__ import annotations

import datetime
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League, UploadError
from arena.league.clock import set_clock
from arena.league.config import parse_config
from arena.league.db import time_left
from arena.league.final import final_at_deadline, final_status
from arena.league.web.app import create_app
from tests.helpers import wait_finished
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
BASE = ("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
        "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n")


def _iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")


def test_the_deadline_is_read_and_checked() -> None:
    cfg = parse_config("deadline: 2026-12-18 23:59:00\n")  # YAML's own timestamp: local time
    assert cfg.file.deadline_ts == datetime.datetime(2026, 12, 18, 23, 59).timestamp()
    cfg = parse_config("deadline: '2026-12-18T23:59:00+01:00'\nfinal_at_deadline: true\n")
    assert cfg.file.deadline_ts == datetime.datetime(2026, 12, 18, 22, 59,
                                                tzinfo=datetime.timezone.utc).timestamp()
    assert cfg.file.final_at_deadline
    assert parse_config("").file.deadline_ts is None
    with pytest.raises(ValueError, match="deadline: expected a date and time"):
        parse_config("deadline: next friday\n")
    with pytest.raises(ValueError, match="final_at_deadline needs a deadline"):
        parse_config("final_at_deadline: true\n")
    with pytest.raises(ValueError, match="final_at_deadline: expected true or false"):
        parse_config("deadline: 2026-12-18 23:59:00\nfinal_at_deadline: later\n")


def test_time_left_in_words() -> None:
    cfg = parse_config("deadline: '2026-12-18T12:00:00+00:00'\n")
    assert cfg.file.deadline_ts is not None
    assert time_left(cfg, cfg.file.deadline_ts - 3 * 86400 - 4 * 3600).endswith(
        "(3 days 4 h left)")
    assert time_left(cfg, cfg.file.deadline_ts - 90).endswith("(2 min left)")
    assert time_left(cfg, cfg.file.deadline_ts + 1).startswith("closed 2026-12-18")
    assert time_left(parse_config("")) == ""


def test_uploads_close_and_the_league_freezes_at_the_deadline(tmp_path: Path) -> None:
    """The league's clock (`arena.league.clock`) is set a minute before, then a second after
    the deadline: no wall time is waited for, so a loaded machine cannot race it."""
    deadline = time.time() + 3600
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + f"deadline: '{_iso(deadline)}'\n")
    lg = League.init(tmp_path / "lg", cfg)
    deadline = lg.config.file.deadline_ts or 0.0  # to the second, as written
    secret = lg.add_user("ann")
    with set_clock(lambda: deadline - 60):
        lg.submit("ann", [("bot.py", L0)])  # before the deadline
        assert not lg.frozen
        c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1")
        token = csrf_of(c.get("/login").text)
        c.post("/login", data={"name": "ann", "secret": secret, "csrf": token})
        page = c.get("/").text
        assert 'id="deadline"' in page and "(1 min left)" in page
    with set_clock(lambda: deadline + 1):
        assert lg.frozen  # by itself, nobody pressed Freeze
        with pytest.raises(UploadError, match="deadline .* has passed"):
            lg.submit("ann", [("bot.py", L0)])
        page = c.get("/").text
        assert "Uploads closed" in page and 'id="frozen"' in page
    lg.conn.close()


def test_the_final_starts_by_itself_at_the_deadline(tmp_path: Path) -> None:
    """The deadline is a minute in the real past (the final's own process reads the machine's
    clock); the league's clock is set before it for the uploads and the "not yet"."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + f"deadline: '{_iso(time.time() - 60)}'\nfinal_at_deadline: true\n")
    lg = League.init(tmp_path / "lg", cfg)
    deadline = lg.config.file.deadline_ts or 0.0
    with set_clock(lambda: deadline - 600):
        for user in ("ann", "bob"):
            lg.add_user(user)
            lg.submit(user, [("bot.py", L0)])
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating'")
        assert final_at_deadline(lg, tmp_path / "results") is None  # not yet
    assert final_at_deadline(lg, tmp_path / "results") == str(
        (tmp_path / "results" / "final").resolve())
    assert final_at_deadline(lg, tmp_path / "results") is None  # never twice
    lg.conn.close()
    assert wait_finished(tmp_path / "lg") == "finished"
    lg = League.open(tmp_path / "lg")
    assert final_status(lg).games_stored == 3 * 2 * 1
    lg.conn.close()
