"""The deadline is a cut, not a race (issue 40, point 1): every version uploaded before the
deadline is checked, and if it passes it is its author's entry, before the final is written;
the final waits for that queue; the frozen leaderboard is a snapshot that never changes; and
running the final again resumes the same entries."""

from __future__ import annotations

import datetime
import time
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.clock import set_clock
from arena.league.final import final_at_deadline, final_status, final_tournament, start_final
from arena.league.standings import record_game, standings_csv
from arena.league.web.app import create_app
from arena.league.web.server import CheckPool
from tests.helpers import wait_finished
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()
BROKEN = b"raise RuntimeError('broken at import')\n"
BASE = ("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
        "reference_bots: [L0]\nisolation: false\nopening_plies: 0\ncheck_workers: 2\n")


def _iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")


def _wait(cond, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.3)
    return bool(cond())


def _frozen_board(c: TestClient) -> str:
    """The leaderboard's table as the page shows it (the rows, not the clock)."""
    page = c.get("/").text
    start = page.index("<table")
    return page[start:page.index("</table>", start)]


def test_uploads_before_the_deadline_all_play_the_final(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    # the deadline is a minute in the real past (the checks and the final read the machine's
    # clock); the league's clock is set before it for what happens before the deadline
    deadline = time.time() - 60
    cfg.write_text(BASE + f"deadline: '{_iso(deadline)}'\nfinal_at_deadline: true\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    deadline = lg.config.file.deadline_ts or 0.0  # to the second, as written
    with set_clock(lambda: deadline - 600):
        admin = lg.add_user("teacher", admin=True)
        for user in ("ann", "bob", "cid"):
            lg.add_user(user)
            lg.submit(user, [("bot.py", L0)])
        lg.add_user("dan")
        with lg.conn:  # their first versions passed and were rated (the check: below)
            lg.conn.execute("UPDATE submissions SET status='rating'")
        for a, b, s in ((1, 2, 1.0), (2, 3, 1.0), (1, 3, 0.5), (3, 1, 0.0), (1, 2, 0.5)):
            record_game(lg, f"sub:{a}", f"sub:{b}", "4x4x3", s)
            record_game(lg, f"sub:{a}", "L0", "4x4x3", 1.0 - s / 2)
        # the last minute: ann and bob upload a v2, cid a broken v2, dan his very first version;
        # no check has run when the deadline comes
        ann2 = lg.submit("ann", [("bot.py", L1)])
        bob2 = lg.submit("bob", [("bot.py", L1)])
        cid2 = lg.submit("cid", [("bot.py", BROKEN)])
        dan1 = lg.submit("dan", [("bot.py", L0)])
        c = TestClient(create_app(d), base_url="http://127.0.0.1")
        token = csrf_of(c.get("/login").text)
        assert c.post("/login", data={"name": "teacher", "secret": admin,
                                      "csrf": token}).status_code == 200
    assert lg.frozen
    before_csv = standings_csv(lg)
    before_page = _frozen_board(c)
    assert final_at_deadline(lg, tmp_path / "results") is None  # it waits for the queue
    assert "waiting" in final_status(lg).text.lower()
    pool = CheckPool(d, results_root=tmp_path / "results")
    try:
        assert _wait(lambda: final_status(lg).state != "not started", 400), \
            "the final never started"
        assert all(lg.submission(s.id).status not in ("queued", "checking")  # type: ignore
                   for s in (ann2, bob2, cid2, dan1))
    finally:
        pool.stop()
    assert (lg.submission(ann2.id).status, lg.submission(cid2.id).status) == (  # type: ignore
        "rating", "failed")
    assert wait_finished(d, 300) == "finished"
    players = {p.name: p.spec for p in final_tournament(lg).players}
    assert set(players) == {"ann", "bob", "cid", "dan", "L0"}
    assert f"/work/{ann2.id}-" in players["ann"] and f"/work/{bob2.id}-" in players["bob"]
    assert "/work/3-" in players["cid"]  # cid's v2 failed: his v1 plays
    assert f"/work/{dan1.id}-" in players["dan"]
    # the frozen leaderboard did not move: not when the v2s passed, nor after the final
    assert standings_csv(lg) == before_csv
    assert _frozen_board(c) == before_page
    # "run it again" resumes the same entries: nothing refused, nothing played again
    before = final_tournament(lg)
    lg.conn.close()
    lg = League.open(d)
    start_final(lg, tmp_path / "results")
    assert wait_finished(d, 300) == "finished"
    assert final_tournament(lg) == before
    assert final_status(lg).state == "finished"
    assert standings_csv(lg) == before_csv
    lg.conn.close()
