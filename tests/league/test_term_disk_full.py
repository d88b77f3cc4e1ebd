"""A full disk is a message, not a 500 (issue 40, point 8): uploads and logins are refused
with "the server is out of disk space; tell your teacher", `league submit` says the same in one
line, and the admin page shows the free disk and the league's size.

The disk is made full for real, for sqlite: every connection the league opens gets a
`max_page_count` of the pages the database already has, so the next write fails with sqlite's
own SQLITE_FULL ("database or disk is full"), as on a full file system."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import arena.league.db as db
from arena.cli import main
from arena.league import League
from arena.league.web.app import create_app
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
MESSAGE = "the server is out of disk space; tell your teacher"


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    on = [False]
    real = sqlite3.connect

    def connect(*args, **kwargs):  # type: ignore[no-untyped-def]
        conn = real(*args, **kwargs)
        if on[0]:
            (pages,) = conn.execute("PRAGMA page_count").fetchone()
            conn.execute(f"PRAGMA max_page_count={pages}")
        return conn

    monkeypatch.setattr(db.sqlite3, "connect", connect)
    yield on


def test_a_full_disk_is_a_message(tmp_path: Path, full_disk: list[bool],
                                  monkeypatch: pytest.MonkeyPatch,
                                  capsys) -> None:  # type: ignore[no-untyped-def]
    lg = League.init(tmp_path / "lg")
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann")}
    lg.conn.close()
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                   raise_server_exceptions=False)
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "ann", "secret": secrets["ann"], "csrf": token})
    token = csrf_of(c.get("/submit").text)
    full_disk[0] = True
    r = c.post("/submit", data={"csrf": token}, files={"files": ("bot.py", L0 * 50)})
    assert r.status_code == 507 and MESSAGE in r.text
    assert "Internal Server Error" not in r.text

    c2 = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                    raise_server_exceptions=False)
    token = csrf_of(c2.get("/login").text)
    # a login's session row may still fit in a page the table has: the write fails as
    # sqlite fails it when it does not
    real_session = League.create_session

    def full_session(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if full_disk[0]:
            raise sqlite3.OperationalError("database or disk is full")
        return real_session(self, *args, **kwargs)

    monkeypatch.setattr(League, "create_session", full_session)
    r = c2.post("/login", data={"name": "teacher", "secret": secrets["teacher"],
                                "csrf": token})
    assert r.status_code == 507 and MESSAGE in r.text

    bot = tmp_path / "bot.py"
    bot.write_bytes(L0 * 50)
    capsys.readouterr()
    assert main(["league", "submit", str(tmp_path / "lg"), "--user", "ann", str(bot)]) == 2
    err = capsys.readouterr().err
    assert "out of disk space" in err and "Traceback" not in err and len(err.splitlines()) == 1

    full_disk[0] = False  # the teacher makes room: the admin page says what there is
    token = csrf_of(c2.get("/login").text)
    c2.post("/login", data={"name": "teacher", "secret": secrets["teacher"], "csrf": token})
    page = c2.get("/admin").text
    assert "free on this disk" in page and "the league takes" in page
