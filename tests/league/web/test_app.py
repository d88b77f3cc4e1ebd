"""The league web app through Starlette's TestClient: logins, access control and every 4xx
refusal (CSRF, rate limit, unknown ids, another user's data, oversized and bad uploads)."""

from __future__ import annotations

import html
import io
import zipfile

import pytest
from starlette.testclient import TestClient

from arena.league import League
from arena.league.checks import check_next
from arena.league.feed import run_worker
from arena.league.standings import record_game
from arena.league.web.app import create_app
from arena.league.web.security import LoginLimiter
from tests.league.web.conftest import L0, Fixture, csrf_of


def client(fx: Fixture) -> TestClient:
    return TestClient(create_app(fx.dir), base_url="http://127.0.0.1",
                      follow_redirects=False)


def login(c: TestClient, name: str, secret: str) -> str:
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": name, "secret": secret, "csrf": token})
    assert r.status_code == 303, r.text
    return csrf_of(c.get("/").text)


def test_pages_need_a_login(league: Fixture) -> None:
    c = client(league)
    for path in ("/", "/submit", "/admin", f"/submissions/{league.subs['alice']}"):
        r = c.get(path)
        assert r.status_code == 303 and r.headers["location"] == "/login"
    assert c.get(f"/submissions/{league.subs['alice']}/status.json").status_code == 401


def test_login_cookie_and_logout(league: Fixture) -> None:
    c = client(league)
    token = csrf_of(c.get("/login").text)
    bad = c.post("/login", data={"name": "alice", "secret": "wrong", "csrf": token})
    assert bad.status_code == 401 and "wrong secret" in bad.text
    r = c.post("/login", data={"name": "alice", "secret": league.secrets["alice"],
                               "csrf": token})
    assert r.status_code == 303
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    page = c.get("/")
    assert page.status_code == 200 and "Leaderboard" in page.text
    r = c.post("/logout", data={"csrf": csrf_of(page.text)})
    assert r.status_code == 303
    assert c.get("/").status_code == 303


def test_csrf_refused(league: Fixture) -> None:
    c = client(league)
    c.get("/login")
    r = c.post("/login", data={"name": "alice", "secret": league.secrets["alice"]})
    assert r.status_code == 403 and "CSRF" in r.text
    token = login(c, "alice", league.secrets["alice"])
    r = c.post("/submit", files={"files": ("bot.py", L0.read_bytes())},
               data={"csrf": "not-the-token"})
    assert r.status_code == 403 and "CSRF token is missing or wrong" in r.text
    r = c.post("/logout")
    assert r.status_code == 403
    assert c.post("/logout", data={"csrf": token}).status_code == 303


def test_login_rate_limited(league: Fixture) -> None:
    c = client(league)
    token = csrf_of(c.get("/login").text)
    for _ in range(5):
        r = c.post("/login", data={"name": "bob", "secret": "guess", "csrf": token})
        assert r.status_code == 401
    r = c.post("/login", data={"name": "bob", "secret": league.secrets["bob"], "csrf": token})
    assert r.status_code == 429 and "Too many failed logins" in r.text
    assert int(r.headers["retry-after"]) > 0
    # another user from the same address is not locked out
    r = c.post("/login", data={"name": "alice", "secret": league.secrets["alice"],
                               "csrf": token})
    assert r.status_code == 303


def test_limiter_window() -> None:
    now = [0.0]
    lim = LoginLimiter(max_failures=2, window_s=60, clock=lambda: now[0])
    lim.failed("k")
    lim.failed("k")
    assert lim.retry_after_s("k") == 60
    now[0] = 60.0
    assert lim.retry_after_s("k") == 0


def test_another_users_data_is_403_unknown_is_404(league: Fixture) -> None:
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    bob = league.subs["bob"]
    lg = League.open(league.dir)
    gid = record_game(lg, f"sub:{league.subs['alice']}", f"sub:{bob}", "6x7x4", 1.0, "connect")
    lg.conn.close()
    for path in (f"/submissions/{bob}", f"/submissions/{bob}/download",
                 f"/submissions/{bob}/status.json", f"/games/{gid}/log/{bob}"):
        r = c.get(path)
        assert r.status_code == 403, path
    assert "not yours" in c.get(f"/submissions/{bob}").text
    mine = league.subs["alice"]
    assert c.get(f"/submissions/{mine}").status_code == 200
    r = c.get(f"/submissions/{mine}/download")
    assert r.status_code == 200 and r.content == L0.read_bytes()
    assert c.get(f"/games/{gid}/log/{mine}").status_code == 200
    assert c.get(f"/games/{gid}").status_code == 200
    for path in ("/submissions/9999", "/submissions/9999/download", "/games/9999",
                 "/submissions/abc", f"/games/{gid}/log/9999"):
        assert c.get(path).status_code == 404, path
    assert c.get("/admin").status_code == 403
    assert c.get("/standings.csv").status_code == 403


def test_upload_ok_bad_archive_and_too_big(league: Fixture) -> None:
    c = client(league)
    token = login(c, "alice", league.secrets["alice"])
    r = c.post("/submit", files={"files": ("bot.py", L0.read_bytes())}, data={"csrf": token})
    assert r.status_code == 303
    page = c.get(r.headers["location"])
    assert page.status_code == 200 and "version 2" in page.text
    # java sources as several files
    r = c.post("/submit", data={"csrf": token},
               files=[("files", ("A.java", b"class A {}")), ("files", ("B.java", b"class B {}"))])
    assert r.status_code == 303
    # a zip with a '..' entry, a broken jar, an unknown type: 400 with the reason
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../evil.java", "class E {}")
    for files, words in ((("src.zip", buf.getvalue()), "'..'"),
                         (("bot.jar", b"not a zip"), "not a valid zip"),
                         (("bot.exe", b"MZ"), "upload one .py file")):
        r = c.post("/submit", files={"files": files}, data={"csrf": token})
        text = html.unescape(r.text)
        assert r.status_code == 400 and "Upload refused" in text and words in text, text
    big = b"#" * 400_000
    r = c.post("/submit", files={"files": ("bot.py", big)}, data={"csrf": token})
    assert r.status_code == 413 and "too large" in r.text.lower()
    # a large body to any other route is refused too
    assert c.post("/login", content=b"x" * 100_000).status_code == 413


def test_body_cap_without_content_length(league: Fixture) -> None:
    c = client(league)
    token = login(c, "alice", league.secrets["alice"])

    def chunks():
        for _ in range(100):
            yield b"y" * 10_000

    r = c.post("/submit", content=chunks(),
               headers={"content-type": "multipart/form-data; boundary=zz",
                        "x-csrf-token": token})
    assert r.status_code == 413


def test_host_header_checked(league: Fixture) -> None:
    c = TestClient(create_app(league.dir), base_url="http://evil.example")
    assert c.get("/login").status_code == 400


def test_admin_actions(league: Fixture) -> None:
    c = client(league)
    token = login(c, "teacher", league.secrets["teacher"])
    page = c.get("/admin")
    assert page.status_code == 200 and "alice" in page.text and "bob" in page.text
    r = c.post("/admin/reset-secret", data={"user": "bob", "csrf": token})
    assert r.status_code == 200 and "New secret for bob" in r.text
    assert c.post("/admin/reset-secret", data={"user": "nobody", "csrf": token}).status_code == 404
    bob = league.subs["bob"]
    r = c.post("/admin/disable", data={"submission_id": str(bob), "csrf": token})
    assert r.status_code == 200
    lg = League.open(league.dir)
    sub = lg.submission(bob)
    assert sub is not None and sub.status == "disabled"
    lg.conn.close()
    assert c.post("/admin/disable", data={"submission_id": "777", "csrf": token}
                  ).status_code == 404
    assert c.post("/admin/freeze", data={}).status_code == 403
    r = c.post("/admin/freeze", data={"csrf": token})
    assert r.status_code == 200 and "frozen" in r.text
    csv = c.get("/standings.csv")
    assert csv.status_code == 200 and csv.text.startswith("rank,user")
    # a frozen league refuses new versions
    c2 = client(league)
    t2 = login(c2, "alice", league.secrets["alice"])
    r = c2.post("/submit", files={"files": ("bot.py", L0.read_bytes())}, data={"csrf": t2})
    assert r.status_code == 400 and "frozen" in r.text


@pytest.mark.parametrize("path", ["/games/1", "/"])
def test_student_pages_render(league: Fixture, path: str) -> None:
    lg = League.open(league.dir)
    record_game(lg, f"sub:{league.subs['alice']}", "L0", "6x7x4", 0.5, "draw")
    lg.conn.close()
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    assert c.get(path).status_code == 200


def test_the_upload_page_states_the_leagues_own_settings(league: Fixture) -> None:
    """The upload form's hint reads league.yaml's values (a missing one would render empty)."""
    cfg = League.open(league.dir).config
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    text = " ".join(html.unescape(c.get("/submit").text).split())
    assert f"at most {round(cfg.file.max_upload_bytes / 1e6, 1)} MB" in text
    assert f"plays {cfg.file.pairs_per_submission} game pairs" in text
    assert f"(time limit {cfg.timeout_s} s a move)" in text


def test_second_version_plays_its_previous_one(league: Fixture) -> None:
    """The worker plays v2 against v1 in pairs; the page shows the pentanomial result and the
    SPRT state."""
    lg = League.open(league.dir)
    v2 = lg.submit("alice", [("bot.py", L0.read_bytes())]).id
    while check_next(lg) is not None:
        pass
    run_worker(league.dir, None, max_pairs=50)
    rows = lg.conn.execute("SELECT COUNT(*) FROM games WHERE side_a IN (?, ?) AND side_b IN "
                           "(?, ?)", (f"sub:{v2}", f"sub:{league.subs['alice']}",
                                      f"sub:{v2}", f"sub:{league.subs['alice']}")).fetchone()
    assert rows[0] == 2  # pairs_per_submission = 1 pair
    lg.conn.close()
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    st = c.get(f"/submissions/{v2}/status.json").json()
    assert st["versus"]["pairs"] == 1 and "SPRT" in st["versus"]
    assert st["versus"]["previous version"] == "v1"
    first = c.get(f"/submissions/{league.subs['alice']}/status.json").json()
    assert first["versus"] is None
