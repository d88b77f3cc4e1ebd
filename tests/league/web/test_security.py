"""The league web app's security model (docs/league-web.md), through Starlette's TestClient:
output encoding and the security headers, server-side sessions that logout, a secret reset,
disabling a user and the admin can end, the login limit per name and per address, upload
file names, the upload quota, the fair check queue and a check that fails inside the harness.
The same attacks in a real Chromium against the real server: test_browser_xss.py."""

from __future__ import annotations

import html
import json
import re
import time
from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

from arena.league import League, LeagueError
from arena.league.checks import INTERNAL_ERROR, claim_check, requeue_interrupted
from arena.league.standings import record_game
from arena.league.web.app import create_app
from arena.league.web.security import CSP, inline_script_csp, json_for_html
from arena.records import Reason
from tests.helpers import cx_record
from tests.league.web.conftest import L0, Fixture, csrf_of

PAYLOAD = '</script><script>window.__xss=1</script><img src=x onerror="window.__xss=2">'


def client(fx: Fixture) -> TestClient:
    return TestClient(create_app(fx.dir), base_url="http://127.0.0.1",
                      follow_redirects=False)


def login(c: TestClient, name: str, secret: str) -> str:
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": name, "secret": secret, "csrf": token})
    assert r.status_code == 303, r.text
    return csrf_of(c.get("/").text)


class Tags(HTMLParser):
    """The scripts (their src) and inline event handlers (on...=) of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.handlers: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs).get("src") or "")
        self.handlers += [f"{tag} {k}" for k, _ in attrs if k.startswith("on")]


def crashed_game(fx: Fixture) -> int:
    """A stored game in which alice's bot crashed with `PAYLOAD` as its exception text."""
    lg = League.open(fx.dir)
    rec = cx_record(M=6, N=7, K=4, p1="alice.py", p2="bob.py", names=(PAYLOAD, PAYLOAD),
                     moves=(3, 3), times_ms=(0.0, 0.0), winner=2, reason=Reason.CRASH,
                     detail=f"ValueError: {PAYLOAD}", seed=1, offender=1,
                     stderr_tail=PAYLOAD, player1="alice v1", player2="bob v1")
    gid = record_game(lg, f"sub:{fx.subs['alice']}", f"sub:{fx.subs['bob']}", "6x7x4", 0.0,
                      "crash", "a", rec)
    lg.conn.close()
    return gid


# ---------------------------------------------------------------- output encoding, headers
def test_json_for_html_escapes_what_ends_an_element() -> None:
    value = {"t": PAYLOAD + "&\u2028\u2029>"}
    text = json_for_html(value)
    assert not set(text) & set("<>&\u2028\u2029")
    assert json.loads(text) == value


def test_every_response_has_the_security_headers(league: Fixture) -> None:
    c = client(league)
    responses = [c.get("/login"), c.get("/static/league.css"), c.get("/nosuch"),
                 c.post("/login", content=b"x" * 100_000)]
    login(c, "alice", league.secrets["alice"])
    responses += [c.get("/"), c.get("/submit"), c.get(f"/submissions/{league.subs['alice']}"),
                  c.get(f"/submissions/{league.subs['bob']}"), c.get("/admin")]
    for r in responses:
        assert r.headers["content-security-policy"] == CSP, r.url
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "same-origin"
    for part in ("script-src 'self'", "object-src 'none'", "base-uri 'none'",
                 "frame-ancestors 'none'"):
        assert part in CSP
    assert "unsafe-inline" not in CSP.split("style-src")[0]


def test_no_inline_script_on_any_page(league: Fixture) -> None:
    gid = crashed_game(league)
    c = client(league)
    login(c, "teacher", league.secrets["teacher"])
    for path in ("/", "/submit", "/admin", f"/games/{gid}",
                 f"/submissions/{league.subs['alice']}"):
        tags = Tags()
        tags.feed(c.get(path).text)
        assert all(tags.scripts), path  # scripts come from files only
        assert tags.handlers == [], path  # and no element has an inline handler


def test_bot_text_is_escaped_and_shown_only_to_its_author_and_admins(league: Fixture) -> None:
    gid = crashed_game(league)
    for who, sees in (("alice", True), ("teacher", True), ("bob", False)):
        c = client(league)
        login(c, who, league.secrets[who])
        page = c.get(f"/games/{gid}")
        assert page.status_code == 200
        assert "<script>window" not in page.text and "<img src=x" not in page.text
        m = re.search(r'data-game="([^"]*)"', page.text)
        assert m, "no game data on the page"
        game = json.loads(html.unescape(m.group(1)))
        assert game["reason"] == "crash"
        assert (PAYLOAD in (game["explanation"] or "")) is sees, who
        assert ("__xss" in page.text) is sees, who  # nowhere on the page for others
        log = c.get(f"/games/{gid}/log/{league.subs['alice']}")
        assert log.status_code == (200 if sees else 403)
        if sees:
            assert log.headers["content-type"].startswith("text/plain")


def test_check_stderr_is_escaped(league: Fixture) -> None:
    lg = League.open(league.dir)
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='failed', check_summary=?, "
                        "check_stderr=? WHERE id=?",
                        (f"FAILED: {PAYLOAD}", PAYLOAD, league.subs["alice"]))
    lg.conn.close()
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    page = c.get(f"/submissions/{league.subs['alice']}").text
    assert "<script>window" not in page and "<img src=x" not in page
    assert PAYLOAD in html.unescape(page)


def test_user_names_cannot_hold_markup(league: Fixture) -> None:
    lg = League.open(league.dir)
    for name in ("<script>", 'a"b', "x y", "a/b", "\x00"):
        with pytest.raises(LeagueError):
            lg.add_user(name)
    lg.conn.close()


# ---------------------------------------------------------------- sessions
def _cookie(c: TestClient) -> str:
    value = c.cookies.get("league_session")
    assert value
    return value


def replay(fx: Fixture, cookie: str) -> int:
    """The status of GET / with only `cookie` (a stolen or kept copy of a session cookie)."""
    c = client(fx)
    c.cookies.set("league_session", cookie)
    return c.get("/").status_code


def test_logout_ends_the_session_for_a_replayed_cookie(league: Fixture) -> None:
    c = client(league)
    token = login(c, "alice", league.secrets["alice"])
    cookie = _cookie(c)
    assert replay(league, cookie) == 200
    assert c.post("/logout", data={"csrf": token}).status_code == 303
    assert replay(league, cookie) == 303  # to /login


def test_secret_reset_ends_every_session_of_the_user(league: Fixture) -> None:
    a1, a2 = client(league), client(league)
    login(a1, "alice", league.secrets["alice"])
    login(a2, "alice", league.secrets["alice"])
    old = [_cookie(a1), _cookie(a2)]
    b = client(league)
    login(b, "bob", league.secrets["bob"])
    t = client(league)
    token = login(t, "teacher", league.secrets["teacher"])
    assert t.post("/admin/reset-secret", data={"user": "alice", "csrf": token}
                  ).status_code == 200
    assert [replay(league, k) for k in old] == [303, 303]
    assert replay(league, _cookie(b)) == 200  # other users keep theirs


def test_disabled_user_is_logged_out_and_cannot_log_in_or_upload(league: Fixture) -> None:
    a = client(league)
    login(a, "alice", league.secrets["alice"])
    cookie = _cookie(a)
    t = client(league)
    token = login(t, "teacher", league.secrets["teacher"])
    r = t.post("/admin/user", data={"user": "alice", "action": "disable", "csrf": token})
    assert r.status_code == 200 and "disabled" in r.text
    assert replay(league, cookie) == 303
    c = client(league)
    form = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": "alice", "secret": league.secrets["alice"],
                               "csrf": form})
    assert r.status_code == 403 and "account is disabled" in r.text  # the secret was right
    lg = League.open(league.dir)
    with pytest.raises(ValueError, match="disabled"):
        lg.submit("alice", [("bot.py", L0.read_bytes())])
    lg.conn.close()
    r = t.post("/admin/user", data={"user": "alice", "action": "enable", "csrf": token})
    assert r.status_code == 200
    login(client(league), "alice", league.secrets["alice"])
    # an admin cannot lock themselves out
    r = t.post("/admin/user", data={"user": "teacher", "action": "disable", "csrf": token})
    assert r.status_code == 400


def test_admin_lists_and_ends_sessions(league: Fixture) -> None:
    a = client(league)
    login(a, "alice", league.secrets["alice"])
    t = client(league)
    token = login(t, "teacher", league.secrets["teacher"])
    page = t.get("/admin/user/alice").text  # the roster links each student's page
    assert 'id="account" data-user="alice"' in page
    assert "Last seen" in page and "End all sessions" in page
    key = re.search(r'name="session" value="([0-9a-f]+)"', page)
    assert key
    r = t.post("/admin/user", data={"user": "alice", "action": "end-sessions",
                                    "session": key.group(1), "csrf": token})
    assert r.status_code == 200 and "1 session(s) of alice ended" in r.text
    assert replay(league, _cookie(a)) == 303
    assert replay(league, _cookie(t)) == 200


def test_sessions_survive_a_restart_and_expire(league: Fixture) -> None:
    c = client(league)
    login(c, "alice", league.secrets["alice"])
    cookie = _cookie(c)
    assert replay(league, cookie) == 200  # a new app over the same folder: a restart
    lg = League.open(league.dir)
    with lg.conn:
        lg.conn.execute("UPDATE sessions SET expires_at = 0")
    assert lg.sessions() == []
    lg.conn.close()
    assert replay(league, cookie) == 303


# ---------------------------------------------------------------- login limit
def test_login_limit_holds_per_name_whatever_the_address(league: Fixture) -> None:
    """The app sees the address uvicorn gives it; a rotating address (what a trusted
    X-Forwarded-For would give) still hits the per-name limit."""
    results = []
    app = create_app(league.dir)
    for i in range(12):
        c = TestClient(app, base_url="http://127.0.0.1", follow_redirects=False,
                       client=(f"10.0.0.{i}", 5000))
        token = csrf_of(c.get("/login").text)
        results.append(c.post("/login", data={"name": "teacher", "secret": "guess",
                                              "csrf": token}).status_code)
    assert 429 in results, results


def test_login_limit_holds_per_address_whatever_the_name(league: Fixture) -> None:
    c = client(league)
    token = csrf_of(c.get("/login").text)
    codes = [c.post("/login", data={"name": f"user{i}", "secret": "x", "csrf": token}
                    ).status_code for i in range(25)]
    assert codes[:20] == [401] * 20 and codes[-1] == 429


# ---------------------------------------------------------------- uploads
@pytest.mark.parametrize("name, words", [
    ("x.py\x00.java", "control character"),
    ("x\x1b[31m.py", "control character"),
    ("a" * 300 + ".py", "the limit is 255"),
    ("../x.py", "path separator"),
    ("dir\\x.py", "path separator"),
])
def test_bad_file_names_are_400(league: Fixture, name: str, words: str) -> None:
    c = client(league)
    token = login(c, "alice", league.secrets["alice"])
    # the multipart body written by hand: a client library would percent-encode the NUL
    body = (f'--zz\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'
            f'--zz\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            f'Content-Type: text/x-python\r\n\r\n').encode() + L0.read_bytes() + b"\r\n--zz--\r\n"
    r = c.post("/submit", content=body,
               headers={"content-type": "multipart/form-data; boundary=zz"})
    text = html.unescape(r.text)
    assert r.status_code == 400 and words in text, text
    lg = League.open(league.dir)
    assert len(lg.submissions("alice")) == 1  # nothing stored
    with pytest.raises(ValueError, match=re.escape(words)):
        lg.submit("alice", [(name, b"x")])
    lg.conn.close()


def test_an_exception_inside_the_check_ends_it_as_internal_error(
        league: Fixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.league.checks as checks

    def broken(*args: object, **kwargs: object) -> object:
        raise ValueError("embedded null byte")

    monkeypatch.setattr(checks, "run_check", broken)
    lg = League.open(league.dir)
    sid = claim_check(lg)  # the check's own process runs `check_claimed`
    assert sid is not None
    checks.check_claimed(lg, sid)
    sub = lg.submission(sid)
    assert sub is not None and sub.status == "failed"
    assert sub.check_summary.startswith(INTERNAL_ERROR)
    assert "null byte" not in sub.check_summary  # the harness's error is for the admin's log
    assert lg.conn.execute("SELECT COUNT(*) FROM submissions WHERE status='checking'"
                           ).fetchone()[0] == 0
    lg.conn.close()


def test_upload_quota_is_429_with_retry_after(league: Fixture) -> None:
    lg = League.open(league.dir)
    with lg.conn:  # a league with a quota of 3 a day
        lg.conn.execute("UPDATE meta SET value = value || 'max_uploads_per_day: 3\n' "
                        "WHERE key = 'config'")
    lg.conn.close()
    c = client(league)
    token = login(c, "alice", league.secrets["alice"])
    codes = [c.post("/submit", files={"files": ("bot.py", L0.read_bytes())},
                    data={"csrf": token}).status_code for _ in range(3)]
    assert codes == [303, 303, 429]  # alice's fixture version counts as one of the three
    r = c.post("/submit", files={"files": ("bot.py", L0.read_bytes())}, data={"csrf": token})
    assert r.status_code == 429
    wait = int(r.headers["retry-after"])
    assert 23 * 3600 < wait <= 24 * 3600 + 1
    assert "3 uploads in the last 24 hours" in html.unescape(r.text)
    assert "next is allowed in 2" in html.unescape(r.text)  # "in 23 h 59 min"
    b = client(league)  # bob's quota is his own
    tb = login(b, "bob", league.secrets["bob"])
    assert b.post("/submit", files={"files": ("bot.py", L0.read_bytes())},
                  data={"csrf": tb}).status_code == 303


def test_checks_are_queued_fairly(league: Fixture) -> None:
    lg = League.open(league.dir)
    burst = [lg.submit("alice", [("bot.py", L0.read_bytes())]).id for _ in range(5)]
    carol = lg.add_user("carol") and lg.submit("carol", [("c.py", L0.read_bytes())]).id
    order = []
    while (sid := claim_check(lg)) is not None:
        order.append(sid)
        time.sleep(0.01)  # the check "runs"
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating' WHERE id=?", (sid,))
    alice1, bob1 = league.subs["alice"], league.subs["bob"]
    # one per user in turn: everyone's first, then alice's burst
    assert order[:3] == [alice1, bob1, carol]
    assert order[3:] == burst
    # a new upload of bob's goes before the rest of a burst of alice's
    more = [lg.submit("alice", [("bot.py", L0.read_bytes())]).id for _ in range(3)]
    assert claim_check(lg) == more[0]
    bob2 = lg.submit("bob", [("bot.py", L0.read_bytes())]).id
    assert claim_check(lg) == bob2
    lg.conn.close()


def test_the_final_report_runs_only_its_own_inline_scripts() -> None:
    """The final's report is one self-contained file: cxarena's own inline scripts (the
    report's template) are allowed by hash, computed from cxarena's files; a script injected
    into a page (or an inline handler) is not, whatever the page holds."""
    import base64
    import hashlib

    from arena.report.html import report_csp, static_text, viewer_script

    csp = inline_script_csp()
    for body in ("\n" + viewer_script() + "\n", "\n" + static_text("report.js") + "\n"):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    assert csp.count("'sha256-") == 2
    injected = base64.b64encode(hashlib.sha256(b"go();").digest()).decode()
    assert injected not in csp
    assert csp.startswith(report_csp())
    assert "object-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_admin_queue_box_is_words_not_a_python_repr(league: Fixture) -> None:
    lg = League.open(league.dir)
    with lg.conn:
        lg.conn.execute("INSERT INTO leases (side_a, side_b, board, number, holder, started_at)"
                        " VALUES ('sub:1', 'L0', '6x7x4', 0, 'worker-1', 0)")
    lg.conn.close()
    c = client(league)
    login(c, "teacher", league.secrets["teacher"])
    box = re.search(r'<pre id="queue">(.*?)</pre>', c.get("/admin").text, re.S)
    assert box, "no queue box"
    text = html.unescape(box.group(1))
    assert "['" not in text and "pairs in flight:" in text
    assert "\n  sub:1 vs L0 on 6x7x4 (worker-1" in text


def test_admin_page_shows_a_dying_worker_and_its_error(league: Fixture) -> None:
    from arena.league.worker import HEALTH_FILE

    (league.dir / HEALTH_FILE).write_text(json.dumps({"workers": [
        {"worker": "worker 1", "restarts": 4, "last_error": "unknown board set 'nosuch'"}]}))
    c = client(league)
    login(c, "teacher", league.secrets["teacher"])
    table = re.search(r'<table id="workers">.*?</table>', c.get("/admin").text, re.S)
    assert table, "no workers table"
    text = html.unescape(table.group(0))
    assert "worker 1" in text and ">4<" in text and "unknown board set 'nosuch'" in text


def test_two_processes_never_claim_the_same_check(league: Fixture,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's check thread and `league check` both claim: a version another process
    marked "checking" between the choice and the mark is not taken again."""
    import arena.league.checks as checks

    first, second = League.open(league.dir), League.open(league.dir)
    taken = claim_check(second)
    assert taken == league.subs["alice"]
    stale = iter([taken])  # `first` chose it before `second` marked it
    real = checks.next_queued
    monkeypatch.setattr(checks, "next_queued", lambda lg: next(stale, None) or real(lg))
    assert claim_check(first) == league.subs["bob"]
    assert claim_check(first) is None
    first.conn.close()
    second.conn.close()


def test_a_check_in_flight_at_a_crash_runs_again(league: Fixture) -> None:
    lg = League.open(league.dir)
    sid = claim_check(lg)
    assert lg.submission(sid).status == "checking"
    assert requeue_interrupted(lg) == 1  # what the server does when it starts
    assert lg.submission(sid).status == "queued"
    assert sid in (claim_check(lg), claim_check(lg))  # bob's turn first: alice had one
    lg.conn.close()
