"""A small league for the web tests: an admin, two students, one submission each."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League

ROOT = Path(__file__).resolve().parents[3]
L0 = ROOT / "players" / "L0.py"


@dataclass
class Fixture:
    dir: Path
    secrets: dict[str, str]
    subs: dict[str, int]


@pytest.fixture
def league(tmp_path: Path) -> Fixture:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: competition\ntimeout_s: 1\npairs_per_submission: 1\n"
                   "max_pairs_per_submission: 1\n"
                   "max_upload_bytes: 200000\nreference_bots: [L0]\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True), "alice": lg.add_user("alice"),
               "bob": lg.add_user("bob")}
    subs = {u: lg.submit(u, [("bot.py", L0.read_bytes())]).id for u in ("alice", "bob")}
    lg.conn.close()
    return Fixture(d, secrets, subs)


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m, "no CSRF field on the page"
    return m.group(1)


def client_log_in(c: TestClient, name: str, secret: str) -> str:
    """Log `name` in on the test client; the CSRF token of its session."""
    token = csrf_of(c.get("/login").text)
    assert c.post("/login", data={"name": name, "secret": secret,
                                  "csrf": token}).status_code == 303
    return csrf_of(c.get("/").text)
