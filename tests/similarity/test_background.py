"""Play similarity in the league's background (issue 41, point 4: cost): the server's worker
stores each version's answers once, within `similarity_budget_s`, without any `cxarena league
similarity` command; a version uploaded later is the only one asked next; a queued check or a
running final holds it; the admin pages then show play similarity from the stored answers,
and `league_similarity` asks nothing already stored."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League
from arena.league.config import SIMILARITY_BUDGET_S, parse_config
from arena.league.web.app import create_app
from arena.similarity import report as report_module
from arena.similarity.answers import (
    DONE,
    PARTIAL,
    Stored,
    fill,
    league_setup,
    load_stored,
    version_target,
)
from arena.similarity.background import SimilarityWorker, held, pending, step
from arena.similarity.play import REFERENCE_BOTS
from arena.similarity.league import league_similarity
from tests.league.web.conftest import client_log_in as log_in

#: run alone (as test_play.py): the bots are real processes
pytestmark = pytest.mark.serial

ROOT = Path(__file__).resolve().parents[2]
NEGAMAX = (Path(__file__).resolve().parent / "bots" / "negamax2.py").read_bytes()
#: positions asked (of the published 6x7x4 set): a few, for speed
POSITIONS = 4


def make_league(tmp_path: Path, budget_s: float = 60.0) -> Path:
    cfg = tmp_path / "league.yaml"
    # 1 s a move: negamax2 has no clock and computes up to 105 ms a move under load, which a
    # 0.1 s limit charged as a timeout (a busy run); these tests are about what is stored
    cfg.write_text(f"boards: [[6, 7, 4]]\ntimeout_s: 1.0\njava: false\nisolation: false\n"
                   f"reference_bots: [L0]\nsimilarity_budget_s: {budget_s}\n")
    lg = League.init(tmp_path / "lg", cfg)
    (tmp_path / "teacher.secret").write_text(lg.add_user("teacher", admin=True))
    for name in ("ann", "bob", "cy"):
        lg.add_user(name)
    lg.submit("ann", [("negamax2.py", NEGAMAX)])
    lg.submit("bob", [("mine.py", NEGAMAX)])  # a copy: the same moves
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg"


@pytest.fixture(autouse=True)
def no_rating_games_waiting(request: pytest.FixtureRequest,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    """These leagues play no rating games (no worker runs them): the pairing says none is
    waiting, so the background is not held for them (the test that says otherwise opts out)."""
    if "rating_games_waiting" not in request.keywords:
        monkeypatch.setattr("arena.league.worker.plan_next", lambda lg: None)


@pytest.mark.rating_games_waiting
def test_rating_games_waiting_or_being_played_hold_it(tmp_path: Path) -> None:
    """It runs between rating games: while a pair waits to be played, or is being played."""
    lg = League.open(make_league(tmp_path))
    try:
        assert held(lg) == "rating games are waiting to be played"
        lg.freeze()  # no more rating pairs: nothing waits
        assert held(lg) == ""
    finally:
        lg.conn.close()


def rows_of(d: Path) -> dict[str, Stored]:
    lg = League.open(d)
    try:
        setup = league_setup(lg, POSITIONS)
        assert setup is not None
        return {e: r for (e, _), r in load_stored(lg.conn, setup).items()}
    finally:
        lg.conn.close()


def test_the_budget_is_a_setting_that_may_change_mid_term() -> None:
    assert parse_config("").file.similarity_budget_s == SIMILARITY_BUDGET_S == 0  # off unless set
    assert parse_config("similarity_budget_s: 0").file.similarity_budget_s == 0.0
    with pytest.raises(ValueError, match="similarity_budget_s"):
        parse_config("similarity_budget_s: -1")


def test_a_budget_of_0_turns_the_background_off(tmp_path: Path) -> None:
    d = make_league(tmp_path, budget_s=0)
    lg = League.open(d)
    try:
        assert step(lg, POSITIONS) is None
        assert lg.conn.execute("SELECT COUNT(*) FROM similarity_answers").fetchone() == (0,)
        # changed while the league runs, as league.yaml is applied by the server
        (d / "league.yaml").write_text((d / "league.yaml").read_text().replace(
            "similarity_budget_s: 0", "similarity_budget_s: 30"))
        assert any("similarity_budget_s" in c for c in lg.apply_config_file("test"))
        assert lg.config.file.similarity_budget_s == 30
    finally:
        lg.conn.close()


def test_the_worker_stores_each_versions_answers_once_then_only_a_new_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = make_league(tmp_path, budget_s=60)
    worker = SimilarityWorker(d, idle_s=0.05, positions=POSITIONS)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            rows = rows_of(d)
            if {"sub:1", "sub:2"} <= {e for e, r in rows.items() if r.state == DONE}:
                break
            time.sleep(0.2)
    finally:
        worker.stop()
    rows = rows_of(d)
    assert not (d / "similarity.json").exists()  # no `league similarity` was run
    for entry in ["sub:1", "sub:2", *REFERENCE_BOTS]:
        row = rows[entry]
        assert row.state == DONE and row.asked == POSITIONS, (entry, row)
        assert 0 < row.spent_s <= 60  # within the budget
    assert rows["sub:1"].first == rows["sub:2"].first  # the copy answers the same

    # a third version, uploaded later, is the only one asked next
    lg = League.open(d)
    try:
        lg.submit("cy", [("L1.py", (ROOT / "players" / "L1.py").read_bytes())])
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating' WHERE user='cy'")
        setup = league_setup(lg, POSITIONS)
        assert setup is not None
        assert [t.entry for t in pending(lg, setup)] == ["sub:3"]
        before = dict(rows)
        asked = step(lg, POSITIONS)
        assert asked is not None and asked.entry == "sub:3" and asked.state == DONE
        assert step(lg, POSITIONS) is None  # nothing left
    finally:
        lg.conn.close()
    after = rows_of(d)
    assert {e for e in after if after[e] != before.get(e)} == {"sub:3"}

    # the admin pages show play similarity from the stored answers, asking nothing
    def no_asking(specs: list[str], *args: object, **kwargs: object) -> dict[str, object]:
        raise AssertionError(f"asked {specs}")

    monkeypatch.setattr(report_module, "answers_of", no_asking)
    monkeypatch.setattr(report_module, "POSITIONS", POSITIONS)  # the pages' count
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    log_in(c, "teacher", (tmp_path / "teacher.secret").read_text())
    page = c.get("/admin/similarity")
    assert page.status_code == 200
    assert "answers stored per version" in page.text
    flagged = page.text.split('class="status-failed"')[1].split("</tr>")[0]
    assert "ann v1" in flagged and "bob v1" in flagged and "1.00 (z" in flagged
    assert "play-waiting" not in page.text  # every current version asked
    pair = c.get("/admin/similarity/pair?a=1&b=2")
    assert pair.status_code == 200 and "#1:" in pair.text  # the positions they agreed on
    assert "answers stored per version" in pair.text
    # and the command compares the stored answers without asking a bot again
    lg = League.open(d)
    try:
        rep = league_similarity(lg, positions=POSITIONS)
    finally:
        lg.conn.close()
    played = [p for p in rep.pairs if p.play is not None]
    assert len(played) == 3 and rep.flagged[0].play is not None


def test_a_queued_check_or_a_running_final_holds_it(tmp_path: Path) -> None:
    d = make_league(tmp_path)
    lg = League.open(d)
    try:
        lg.submit("cy", [("L1.py", (ROOT / "players" / "L1.py").read_bytes())])  # queued
        assert "check" in held(lg)
        assert step(lg, POSITIONS) is None
        assert lg.conn.execute("SELECT COUNT(*) FROM similarity_answers").fetchone() == (0,)
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating' WHERE user='cy'")
        assert held(lg) == ""
        # the final round robin runs (its process names its results folder)
        results = tmp_path / "results" / "final"
        results.mkdir(parents=True)
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                 str(results.resolve())])
        try:
            cmdline = Path(f"/proc/{proc.pid}/cmdline")
            while str(results.resolve()).encode() not in cmdline.read_bytes():
                time.sleep(0.01)  # until it has started (before, it is this process's fork)
            (d / "final").mkdir()
            (d / "final" / "state.json").write_text(json.dumps(
                {"pid": proc.pid, "started_at": time.time(), "results": str(results)}))
            assert "final" in held(lg)
            assert step(lg, POSITIONS) is None
            assert lg.conn.execute("SELECT COUNT(*) FROM similarity_answers").fetchone() \
                == (0,)
        finally:
            proc.kill()
            proc.wait()
        assert held(lg) == ""
        asked = step(lg, POSITIONS)
        assert asked is not None and asked.entry == REFERENCE_BOTS[0]
    finally:
        lg.conn.close()


def test_a_check_queued_while_asking_stops_it_and_it_goes_on_later(tmp_path: Path) -> None:
    d = make_league(tmp_path)
    lg = League.open(d)
    try:
        setup = league_setup(lg, POSITIONS)
        assert setup is not None
        sub = lg.submission(1)
        target = version_target(sub)
        calls = []

        def queued_after_two() -> bool:  # a check is queued after two positions
            calls.append(1)
            return len(calls) > 2

        row = fill(lg, setup, [target], budget_s=60, held=queued_after_two)["sub:1"]
        assert row.asked == 2 and row.state == "asking"
        first_two = row
        row = fill(lg, setup, [target], budget_s=60)["sub:1"]
        assert row.asked == POSITIONS and row.state == DONE
        assert row.first[:2] == first_two.first and row.spent_s > first_two.spent_s
    finally:
        lg.conn.close()


def test_a_version_past_its_budget_is_partial_until_the_command_asks_the_rest(
        tmp_path: Path) -> None:
    d = make_league(tmp_path, budget_s=0.001)
    lg = League.open(d)
    try:
        setup = league_setup(lg, POSITIONS)
        assert setup is not None
        target = version_target(lg.submission(1))
        # the first position is always asked; the next would go past the budget
        row = fill(lg, setup, [target], budget_s=0.001)["sub:1"]
        assert row.state == PARTIAL and row.asked == 1, row
        again = fill(lg, setup, [target], budget_s=0.001)["sub:1"]
        assert again == row  # the background does not ask it again
        done = fill(lg, setup, [target])["sub:1"]  # `league similarity`: no budget
        assert done.state == DONE and done.asked == POSITIONS
        assert done.first[:row.asked] == row.first
    finally:
        lg.conn.close()


def test_the_server_starts_and_stops_the_background_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.league.web import server

    class Idle:  # the checks and the rating games, not under test here
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def stop(self) -> None:
            pass

    monkeypatch.setattr(server, "start_workers", Idle)
    monkeypatch.setattr(server, "CheckPool", Idle)
    d = make_league(tmp_path, budget_s=0)
    workers = server._Workers(d, None, None, None)
    assert isinstance(workers.similarity, SimilarityWorker)
    assert workers.similarity.thread.is_alive()
    workers.stop()
    assert not workers.similarity.thread.is_alive()
