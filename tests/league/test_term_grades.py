"""Grades out whole (issue 40, point 5): one CSV with every roster student (those without a
rated version and the disabled ones too), the final's standings CSV served to the teacher, and
a stated, applied tie-break (points, then head to head, then Sonneborn-Berger, then a shared
rank)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from starlette.testclient import TestClient

from arena.league import League
from arena.league.entries import choose_entry
from arena.league.final import final_results, start_final
from arena.league.standings import record_game
from arena.league.web.app import create_app
from arena.results import REPORT_HTML, STANDINGS_CSV
from arena.results.standings import rank_level as rank_final
from tests.helpers import wait_finished
from tests.league.web.conftest import csrf_of

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()


def test_the_tie_break_is_head_to_head_then_sonneborn_berger_then_shared() -> None:
    players = ["a", "b", "c", "d", "e"]
    cross = {p: dict.fromkeys(players, 0) for p in players}

    def score(p: str, o: str, pts: int) -> None:
        cross[p][o] += pts

    # a and b: 6 points each, b beat a head to head
    score("b", "a", 3)
    score("a", "c", 3)
    score("a", "d", 3)
    score("b", "e", 3)
    # c and d: 3 points each, drew each other (1+1), c's win is over a stronger player
    score("c", "d", 1)
    score("d", "c", 1)
    score("c", "e", 2)
    score("d", "e", 2)
    score("e", "a", 0)
    rows = rank_final(players, cross)
    got = [(r.rank_text, r.player, r.decided_by) for r in rows]
    points = {r.player: r.points for r in rows}
    assert points == {"a": 6, "b": 6, "c": 3, "d": 3, "e": 0}
    assert got[0] == ("1", "b", "head to head")
    assert got[1] == ("2", "a", "head to head")
    # c and d: equal head to head (1-1), equal Sonneborn-Berger: a shared rank
    assert got[2][0] == got[3][0] == "3=" and {got[2][1], got[3][1]} == {"c", "d"}
    assert got[2][2] == "shared"
    assert got[4] == ("5", "e", "")
    # Sonneborn-Berger decides when head to head cannot
    cross["c"]["e"] = 0
    cross["c"]["b"] = 2  # c's 2 points came from b (6 points), d's from e (0)
    rows = rank_final(players, cross)
    assert [(r.rank_text, r.player, r.decided_by) for r in rows][2:4] == [
        ("3", "c", "Sonneborn-Berger"), ("4", "d", "Sonneborn-Berger")]


def test_grades_csv_has_every_roster_student_and_the_final(
        tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                   "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n")
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True)}
    for user in ("ann", "bob", "cid", "dan", "eve", "fay"):
        secrets[user] = lg.add_user(user)
    lg.submit("ann", [("bot.py", L1)])  # 1
    lg.submit("bob", [("bot.py", L0)])  # 2
    lg.submit("cid", [("bot.py", L0)])  # 3, disabled below
    lg.submit("eve", [("bot.py", b"raise SystemExit\n")])  # 4, failed its check
    lg.submit("fay", [("bot.py", L0)])  # 5, passed, no rating game yet
    lg.submit("ann", [("bot.py", L0)])  # 6: ann's latest, which loses; she enters v1
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating' WHERE id IN (1, 2, 3, 5, 6)")
        lg.conn.execute("UPDATE submissions SET status='failed' WHERE id=4")
    for a in (1, 2, 3):
        record_game(lg, f"sub:{a}", "L0", "4x4x3", 1.0)
        record_game(lg, "L0", f"sub:{a}", "4x4x3", 0.5, "timeout", "L0")
    for _ in range(3):
        record_game(lg, "sub:6", "L0", "4x4x3", 0.0)
    choose_entry(lg, "ann", 1, "ann")
    lg.set_disabled("cid")
    lg.freeze()
    start_final(lg, d / "results")
    lg.conn.close()
    assert wait_finished(d, 300) == "finished"

    c = TestClient(create_app(d), base_url="http://127.0.0.1")
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "bob", "secret": secrets["bob"], "csrf": token})
    assert c.get("/grades.csv").status_code == 403
    assert c.get("/final/standings.csv").status_code == 403
    c.post("/logout", data={"csrf": csrf_of(c.get("/").text)})
    token = csrf_of(c.get("/login").text)
    c.post("/login", data={"name": "teacher", "secret": secrets["teacher"], "csrf": token})

    final = list(csv.DictReader(io.StringIO(c.get("/final/standings.csv").text)))
    assert {r["player"] for r in final} == {"ann", "bob", "fay", "L0"}
    assert all(r["rank"] and r["points"] for r in final)
    assert {"head_to_head", "sonneborn_berger", "decided_by"} <= set(final[0])

    r = c.get("/grades.csv")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rows = {row["user"]: row for row in csv.DictReader(io.StringIO(r.text))}
    assert sorted(rows) == ["ann", "bob", "cid", "dan", "eve", "fay"]  # not the admin
    assert (rows["dan"]["submitted"], rows["dan"]["passed"], rows["dan"]["entry_version"]) == (
        "0", "0", "")
    assert (rows["eve"]["submitted"], rows["eve"]["passed"]) == ("1", "0")
    assert rows["cid"]["disabled"] == "yes" and rows["cid"]["final_rank"] == ""
    # ann's row is her entry's (v1, chosen), its rating and scores, not her latest's (v2)
    assert rows["ann"]["disabled"] == "no" and rows["ann"]["entry_version"] == "1"
    assert rows["ann"]["vs_L0_points"] == "1.5" and rows["ann"]["vs_L0_games"] == "2"
    assert float(rows["ann"]["elo"]) > 1000.0 and rows["ann"]["rated_games"] == "2"
    assert rows["ann"]["elo"] and rows["ann"]["elo_low"] and rows["ann"]["elo_high"]
    assert rows["ann"]["faults"] == "0"
    assert rows["fay"]["elo"] == "" and rows["fay"]["final_rank"]  # unrated, but in the final
    ranks = {u: rows[u]["final_rank"] for u in ("ann", "bob", "fay")}
    assert all(ranks.values()) and rows["bob"]["final_points"]
    assert next(x for x in final if x["player"] == "ann")["rank"] == ranks["ann"]
    # one ranking of the final: its results folder's standings.csv and report, the teacher's
    # /final/standings.csv and the grades list the players in the same order
    order = [x["player"] for x in final]
    folder = final_results(League.open(d))
    assert folder is not None
    in_folder = list(csv.DictReader(io.StringIO((folder / STANDINGS_CSV).read_text())))
    assert [x["player"] for x in in_folder] == order
    assert [x["rank"] for x in in_folder] == [x["rank"] for x in final]
    report = (folder / REPORT_HTML).read_text()
    assert sorted(order, key=lambda p: report.index(f">{p}<")) == order
    assert "head to head" in report.lower()
    # the rule is stated where the teacher downloads them
    assert "head to head" in c.get("/admin").text.lower()
    # the same from the shell
    from arena.cli import main

    capsys.readouterr()
    assert main(["league", "grades", str(d)]) == 0
    assert capsys.readouterr().out == r.text.replace("\r\n", "\n").replace("\n", "\r\n")
    assert main(["league", "grades", str(d), "--final"]) == 0
    assert "sonneborn_berger" in capsys.readouterr().out
