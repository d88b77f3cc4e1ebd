"""Disable means out (issue 40, point 3): a disabled user is out of the leaderboard, of
standings.csv and of the final; every admin action asks for confirmation, the disabling ones
can be undone, and each is in an audit log the admin page shows (escaped)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.final import final_tournament
from arena.league.standings import record_game
from arena.league.web.app import create_app
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()


def _league(tmp_path: Path) -> tuple[Path, str]:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                   "reference_bots: [L0]\nisolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    secret = lg.add_user("teacher", admin=True)
    for user in ("ann", "bob", "cid"):
        lg.add_user(user)
        lg.submit(user, [("bot.py", L0)])
    lg.submit("bob", [("bot.py", L0 + b"\n# v2\n")])  # bob v2: id 4
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    for a in (1, 2, 3, 4):
        for s in (1.0, 0.0, 0.5):
            record_game(lg, f"sub:{a}", "L0", "4x4x3", s)
    record_game(lg, "sub:1", "sub:4", "4x4x3", 1.0)
    lg.conn.close()
    return tmp_path / "lg", secret


def _users_in_table(html: str) -> list[str]:
    body = html[html.index('id="standings"'):]
    body = body[:body.index("</table>")]
    return re.findall(r"<tr(?: class=\"mine\")?>\s*<td>\d+</td>\s*<td>([^<]+)</td>", body)


def test_a_disabled_user_is_out_everywhere_with_confirmation_undo_and_log(
        tmp_path: Path) -> None:
    d, secret = _league(tmp_path)
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "teacher", "secret": secret, "csrf": token})
    token = csrf_of(c.get("/admin").text)
    assert sorted(_users_in_table(c.get("/").text)) == ["ann", "bob", "cid"]

    admin = c.get("/admin").text
    assert admin.count('src="/static/admin.js"') == 1  # every confirm() asked once
    # every admin form asks before it acts
    forms = re.findall(r"<form[^>]*action=\"/admin/[^\"]+\"[^>]*>", admin)
    assert forms and all("data-confirm=" in f for f in forms), forms

    r = c.post("/admin/user", data={"csrf": token, "user": "ann", "action": "disable"})
    assert r.status_code == 200 and "ann is disabled" in r.text
    assert re.search(r'<form[^>]*action="/admin/user"[^>]*id="undo"', r.text)  # undo offered
    assert "ann" not in _users_in_table(c.get("/").text)
    csv_text = c.get("/standings.csv").text
    assert ",ann," not in csv_text and ",bob," in csv_text

    # disabling a version says what it does: bob's entry is v1 again
    r = c.post("/admin/disable", data={"csrf": token, "submission_id": "4"})
    assert "bob v2" in r.text and "bob's entry is now v1" in html.unescape(r.text)
    assert 'id="undo"' in r.text
    r = c.post("/admin/enable", data={"csrf": token, "submission_id": "4"})
    assert r.status_code == 200 and "bob v2 is enabled again" in r.text
    lg = League.open(d)
    assert lg.submission(4).status == "rating"  # type: ignore[union-attr]

    # out of the final
    assert c.post("/admin/freeze", data={"csrf": token}).status_code == 200
    players = [p.name for p in final_tournament(lg).players]
    assert players == ["bob", "cid", "L0"]
    frozen_rows = _users_in_table(c.get("/").text)
    assert "ann" not in frozen_rows
    # undone: back in the (frozen) leaderboard, by the same rule
    r = c.post("/admin/user", data={"csrf": token, "user": "ann", "action": "enable"})
    assert "ann is enabled again" in r.text
    assert "ann" in _users_in_table(c.get("/").text)
    lg.conn.close()

    # the audit log: who did what, when, newest first, on the admin page
    log = c.get("/admin").text
    log = log[log.index('id="audit"'):]
    log = log[:log.index("</table>")]
    actions = re.findall(r"<td class=\"action\">([^<]+)</td>", log)
    assert actions[:5] == ["enable user", "freeze", "enable submission", "disable submission",
                           "disable user"]
    assert "teacher" in log


def test_the_audit_log_escapes_what_it_shows(tmp_path: Path) -> None:
    d, secret = _league(tmp_path)
    lg = League.open(d)
    lg.audit("teacher", "disable user", "<script>alert(1)</script>", "x")
    assert lg.audit_log()[0].target == "<script>alert(1)</script>"
    lg.conn.close()
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "teacher", "secret": secret, "csrf": token})
    page = c.get("/admin").text
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
