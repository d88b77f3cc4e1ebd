"""The teacher's view of who copied whom (issue 41): the admin page's code similarity of the
current versions flags two students' copies of one bot (one renamed and re-laid-out), and only
admins may see it; `cxarena league similarity DIR --no-play` says the same on the command
line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.league import League
from arena.league.web.app import create_app
from tests.league.web.conftest import client_log_in as log_in

ROOT = Path(__file__).resolve().parents[2]


def disguised(source: str) -> str:
    """`source` with its names changed, its comments and docstrings gone, blank lines added."""
    out = re.sub(r'"""(?:.|\n)*?"""', "", source)
    out = re.sub(r"#[^\n]*", "", out)
    for old, new in (("rng", "dice"), ("moves", "count"), ("Montecarlo", "MyBot"),
                     ("playouts", "trials"), ("score", "value")):
        out = out.replace(old, new)
    return out.replace("\n", "\n\n")


def test_the_admin_sees_a_copy_flagged_and_a_student_sees_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\ntimeout_s: 1\nreference_bots: [L0]\n"
                   "isolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann"),
               "bob": lg.add_user("bob"), "cy": lg.add_user("cy")}
    original = (ROOT / "players" / "montecarlo.py").read_text()
    lg.submit("ann", [("montecarlo.py", original.encode())])
    lg.submit("bob", [("mine.py", disguised(original).encode())])
    lg.submit("cy", [("L1.py", (ROOT / "players" / "L1.py").read_bytes())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    d = tmp_path / "lg"
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = log_in(c, "ann", secrets["ann"])
    assert c.get("/admin/similarity").status_code == 403
    c.post("/logout", data={"csrf": token})
    log_in(c, "teacher", secrets["teacher"])
    page = c.get("/admin/similarity")
    assert page.status_code == 200
    assert "1 flagged pair(s) of 3" in page.text
    flagged = page.text.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in flagged and "bob v1" in flagged
    assert 'id="similarity"' in c.get("/admin").text
    assert main(["league", "similarity", str(d), "--no-play"]) == 0
    out = capsys.readouterr().out
    assert "1 flagged pair(s) of 3" in out and "FLAG ann v1  ~  bob v1" in out
