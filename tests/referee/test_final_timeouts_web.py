"""Issue 49, point 3: the teacher sees and decides. The league's admin page lists the final's
games decided by a timeout, each with its late move's account, and plays one of them again
over HTTP (admins only, CSRF-checked, audit-logged): its old result is removed and the final
resumed, and the replay's result replaces the old one in the final's games and standings."""

from __future__ import annotations

import html
import re
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.final import final_results, start_final
from arena.league.web.app import create_app
from arena.records import Reason
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import wait_finished
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()

#: L0, but sleeping 3 s a move while the file FLAG exists: late in the final, not after
_SLOW = '''
import os, random, time
from arena.player import CXPlayer


class Slow(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.rng = random.Random(0)

    def selectColumn(self, B):
        if os.path.exists({flag!r}):
            time.sleep(3)
        return self.rng.choice(B.getAvailableColumns())

    def playerName(self):
        return "slow"
'''


def _log_in(c: TestClient, name: str, secret: str) -> str:
    token = csrf_of(c.get("/login").text)
    assert c.post("/login", data={"name": name, "secret": secret, "csrf": token},
                  follow_redirects=False).status_code == 303
    return csrf_of(c.get("/").text)


def _listed(page: str) -> list[str]:
    return re.findall(r'name="game_id" value="([^"]+)"', page)


def test_the_admin_lists_the_finals_timeouts_and_replays_one(tmp_path: Path) -> None:
    flag = tmp_path / "slow-now"
    flag.write_text("1")
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.3\n"
                   "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n"
                   "final_pairs: 1\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann"),
               "bob": lg.add_user("bob")}
    lg.submit("ann", [("bot.py", L0)])
    lg.submit("bob", [("bot.py", _SLOW.format(flag=str(flag)).encode())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.freeze()
    start_final(lg, d / "results")
    lg.conn.close()
    assert wait_finished(d, 300) in ("finished", "stopped")

    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    _log_in(c, "ann", secrets["ann"])
    assert c.get("/admin/final/timeouts").status_code == 403  # admins only
    c.post("/logout", data={"csrf": csrf_of(c.get("/").text)})
    token = _log_in(c, "teacher", secrets["teacher"])

    page = c.get("/admin/final/timeouts")
    assert page.status_code == 200
    listed = _listed(page.text)
    assert listed and all("bob" in g for g in listed), listed  # bob's games, each listed
    text = html.unescape(page.text)
    assert "Computed ms" in text and "Off the CPU ms" in text
    assert "no answer after" in text and "at the deadline:" in text  # the account, evidence
    assert 'href="/admin/final/timeouts"' in c.get("/admin").text  # linked from the admin page

    # refused: no CSRF token, a game not decided by a timeout
    assert c.post("/admin/final/timeouts/replay",
                  data={"game_id": listed[0]}).status_code == 403
    assert c.post("/admin/final/timeouts/replay",
                  data={"game_id": "no-such-game", "csrf": token}).status_code == 409

    flag.unlink()  # bob is quick now: the replay is not a timeout
    chosen = listed[0]
    r = c.post("/admin/final/timeouts/replay", data={"game_id": chosen, "csrf": token})
    assert r.status_code == 200 and f"Game {chosen} is being played again" in r.text
    assert wait_finished(d, 300) == "finished"

    after = c.get("/admin/final/timeouts").text
    assert chosen not in _listed(after) and len(_listed(after)) == len(listed) - 1
    lg = League.open(d)
    try:
        results = final_results(lg)
        assert results is not None
        with ResultStore(results / DB_FILE, create=False) as store:
            replayed = store.game(chosen)
            assert replayed is not None and replayed.record.reason is not Reason.TIMEOUT
            assert store.count() == 6  # every game of the final, the replayed one once
        audit = lg.audit_log()
    finally:
        lg.conn.close()
    assert any("replay final game" in str(a) and chosen in str(a) for a in audit), audit
    standings = (results / "standings.md").read_text()
    assert f"| {chosen} |" not in standings  # no longer among the timeout-decided games
