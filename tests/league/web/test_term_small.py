"""The smaller items a teacher and students met during a term (issue 40, point 10), through
the league's core and Starlette's TestClient; the items that need a browser are in
test_term_small_browser.py."""

from __future__ import annotations

from starlette.testclient import TestClient

from arena.league import League
from arena.league.web.app import create_app
from tests.league.web.conftest import Fixture, csrf_of


def client(fx: Fixture) -> TestClient:
    return TestClient(create_app(fx.dir), base_url="http://127.0.0.1",
                      follow_redirects=False)


def test_a_disabled_student_is_told_so_only_with_the_right_secret(league: Fixture) -> None:
    lg = League.open(league.dir)
    lg.set_disabled("bob")
    lg.conn.close()
    c = client(league)
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": "bob", "secret": league.secrets["bob"], "csrf": token})
    assert r.status_code == 403
    assert "account is disabled" in r.text and "Ask your teacher" in r.text
    assert c.get("/").status_code == 303  # not logged in
    # a wrong secret, or an unknown name, says nothing of the account
    for name, secret in (("bob", "wrong"), ("nobody", league.secrets["bob"])):
        r = c.post("/login", data={"name": name, "secret": secret, "csrf": token})
        assert r.status_code == 401 and "Unknown user or wrong secret" in r.text
        assert "disabled" not in r.text
    # enabled again: the same secret logs in
    lg = League.open(league.dir)
    lg.set_disabled("bob", False)
    lg.conn.close()
    r = c.post("/login", data={"name": "bob", "secret": league.secrets["bob"], "csrf": token})
    assert r.status_code == 303
