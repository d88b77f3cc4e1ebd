"""Settings that can change mid-term (issue 40, point 4): DIR/league.yaml is the source of
truth, validated as at init; `cxarena league config DIR` and the server apply it; what may
change takes effect without a restart and is logged; what may not is refused with the reason."""

from __future__ import annotations

import time
from pathlib import Path

from starlette.testclient import TestClient

from arena.cli import main
from arena.league import League
from arena.league.web.app import create_app
from arena.league.web.server import CheckPool
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
BASE = ("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
        "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n")


def _upload(c: TestClient, n: int) -> int:
    token = csrf_of(c.get("/submit").text)
    return c.post("/submit", data={"csrf": token},
                  files={"files": ("bot.py", L0 + f"# {n}\n".encode())},
                  follow_redirects=False).status_code


def test_league_yaml_changes_mid_term(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + "max_uploads_per_day: 1\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    assert (d / "league.yaml").read_text() == cfg.read_text()  # the folder's copy: the truth
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann")}
    lg.conn.close()
    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "ann", "secret": secrets["ann"], "csrf": token})
    assert _upload(c, 1) == 303
    assert _upload(c, 2) == 429

    # the teacher raises the quota: applied by `league config`, no restart
    (d / "league.yaml").write_text(BASE + "max_uploads_per_day: 3\n")
    capsys.readouterr()
    assert main(["league", "config", str(d)]) == 0
    out = capsys.readouterr().out
    assert "max_uploads_per_day: 1 -> 3" in out
    assert _upload(c, 3) == 303  # the same running app

    # what may not change is refused, with the reason; nothing is applied
    (d / "league.yaml").write_text(BASE.replace("timeout_s: 0.5", "timeout_s: 2")
                                   + "max_uploads_per_day: 5\n")
    assert main(["league", "config", str(d)]) == 2
    err = capsys.readouterr().err
    assert "timeout_s" in err and "stored games" in err
    assert League.open(d).config.file.max_uploads_per_day == 3
    # a bad value: refused as at init
    (d / "league.yaml").write_text(BASE + "max_uploads_per_day: -1\n")
    assert main(["league", "config", str(d)]) == 2
    assert "max_uploads_per_day: expected a positive integer" in capsys.readouterr().err
    assert League.open(d).config.file.max_uploads_per_day == 3

    # the deadline moves: the pages say so at once
    (d / "league.yaml").write_text(BASE + "max_uploads_per_day: 3\n"
                                   "deadline: '2031-01-02T03:04:00+00:00'\n")
    assert main(["league", "config", str(d)]) == 0
    assert "deadline:" in capsys.readouterr().out
    assert "left)" in c.get("/").text

    # the server applies the file by itself, and every change is in the audit log
    (d / "league.yaml").write_text(BASE + "max_uploads_per_day: 7\n"
                                   "deadline: '2031-01-02T03:04:00+00:00'\n")
    pool = CheckPool(d, idle_s=0.2)
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end and League.open(d).config.file.max_uploads_per_day != 7:
            time.sleep(0.3)
    finally:
        pool.stop()
    assert League.open(d).config.file.max_uploads_per_day == 7
    token = csrf_of(c.get("/").text)
    c.post("/logout", data={"csrf": token})
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "teacher", "secret": secrets["teacher"], "csrf": token})
    admin = c.get("/admin").text
    assert "max_uploads_per_day: 1 -&gt; 3" in admin and "max_uploads_per_day: 3 -&gt; 7" in admin
