"""The smaller items a teacher and students met during a term (issue 40, point 10), through
the league's core and Starlette's TestClient; the items that need a browser are in
test_term_small_browser.py."""

from __future__ import annotations

import html
import json
import re
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.cli import main
from arena.commands import analysis_oracle
from arena.league import League
from arena.league.analysis import Analyser, first_blunder, student_games
from arena.league.checks import check_next, student_text, tree_of
from arena.league.final import final_tournament
from arena.league.rating import versus_previous
from arena.league.standings import record_game
from arena.league.web.app import create_app
from arena.league.worker import _entry
from tests.league.helpers import random_won_game
from tests.league.web.conftest import L0, ROOT, Fixture, client_log_in, csrf_of


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


def _quota_league(tmp_path: Path, deadline_in_s: float | None) -> tuple[Path, str]:
    """A league of one student, alice, allowed one upload a day (and a deadline
    `deadline_in_s` from now); its folder and alice's secret."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    cfg = tmp_path / "league.yaml"
    text = ("board_set: competition\ntimeout_s: 1\nreference_bots: [L0]\n"
            "max_uploads_per_day: 1\n")
    if deadline_in_s is not None:
        when = datetime.fromtimestamp(time.time() + deadline_in_s, timezone.utc)
        text += f"deadline: {when.strftime('%Y-%m-%dT%H:%M:%S+00:00')}\n"
    cfg.write_text(text)
    lg = League.init(tmp_path / "lg", cfg)
    secret = lg.add_user("alice")
    lg.conn.close()
    return tmp_path / "lg", secret


def _upload_twice(d: Path, secret: str) -> Any:
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = client_log_in(c, "alice", secret)
    first = c.post("/submit", files={"files": ("bot.py", L0.read_bytes())},
                   data={"csrf": token})
    assert first.status_code == 303
    return c.post("/submit", files={"files": ("bot.py", L0.read_bytes())},
                  data={"csrf": token})


def test_past_the_quota_near_the_deadline_uploads_close_first(tmp_path: Path) -> None:
    d, secret = _quota_league(tmp_path, 2 * 3600)
    r = _upload_twice(d, secret)
    assert r.status_code == 429
    text = html.unescape(r.text)
    assert "uploads close at the deadline" in text and "in 2 h 0 min" in text
    assert "next is allowed" not in text and "24 h 0 min" not in text


def test_past_the_quota_far_from_the_deadline_says_when_the_next_is_allowed(
        tmp_path: Path) -> None:
    for deadline in (None, 3 * 24 * 3600):
        d, secret = _quota_league(tmp_path / str(deadline), deadline)
        r = _upload_twice(d, secret)
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 23 * 3600
        text = html.unescape(r.text)
        assert "the next is allowed in 24 h 0 min" in text
        assert "uploads close at the deadline" not in text


def test_a_won_game_marks_no_first_blunder(league: Fixture) -> None:
    """alice beats bob with blunders on both sides: bob's "My games" and replay show his first
    blunder, alice's show none (her list says nothing of the analysis, her replay no notice)."""
    alice, bob = f"sub:{league.subs['alice']}", f"sub:{league.subs['bob']}"
    lg = League.open(league.dir)
    analyser = Analyser(analysis_oracle)
    for seed in range(40):  # a game in which the winner blundered too
        rec = random_won_game(seed)
        gid = record_game(lg, alice, bob, "5x5x4", 1.0, "win", "", rec)
        a = analyser.analyse_game(lg, gid)
        assert a is not None
        if first_blunder(a, 1) is not None and first_blunder(a, 2) is not None:
            break
    else:
        raise AssertionError("no random game with blunders on both sides")
    won = next(g for g in student_games(lg, "alice") if g.game_id == gid)
    lost = next(g for g in student_games(lg, "bob") if g.game_id == gid)
    lg.conn.close()
    assert won.result == "win" and won.first_blunder is None and not won.analysed
    assert lost.result == "loss" and lost.analysed
    assert lost.first_blunder == first_blunder(a, 2).ply + 1  # type: ignore[union-attr]
    c = client(league)
    client_log_in(c, "alice", league.secrets["alice"])
    row = re.search(rf'<tr data-game="{gid}".*?</tr>', c.get("/my-games").text, re.S)
    assert row and "first blunder" not in row.group(0) and "analysed" not in row.group(0)
    page = c.get(f"/games/{gid}").text
    assert 'id="first-blunder"' not in page and "analysis" in page  # the strip, no notice
    c = client(league)
    client_log_in(c, "bob", league.secrets["bob"])
    row = re.search(rf'<tr data-game="{gid}".*?</tr>', c.get("/my-games").text, re.S)
    assert row and f"first blunder: move {lost.first_blunder}" in row.group(0)
    assert f"Your first blunder: move {lost.first_blunder}" in c.get(f"/games/{gid}").text


def test_a_reference_bot_has_one_name_everywhere(tmp_path: Path) -> None:
    """league.yaml names the reference bot players.L0: the leaderboard, My games (the list and
    its filter), a replay, a version's games and the final all call it L0."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 1\n"
                   "reference_bots: [players.L0]\nisolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"alice": lg.add_user("alice"), "bob": lg.add_user("bob")}
    subs = {u: lg.submit(u, [("bot.py", L0.read_bytes())]).id for u in secrets}
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    rec = random_won_game(1)
    gid = record_game(lg, f"sub:{subs['alice']}", "players.L0", "5x5x4", 1.0, "win", "", rec)
    record_game(lg, f"sub:{subs['bob']}", "players.L0", "5x5x4", 0.0, "win", "", rec)
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                   follow_redirects=False)
    client_log_in(c, "alice", secrets["alice"])
    board = c.get("/").text
    assert 'class="ref-name">L0<' in board and "players.L0" not in board
    mine = c.get("/my-games").text
    row = re.search(rf'<tr data-game="{gid}".*?</tr>', mine, re.S)
    assert row and 'data-opponent="L0"' in row.group(0)
    assert '<td class="opponent">L0</td>' in row.group(0)
    assert '<option value="L0">L0</option>' in mine and "players.L0" not in mine
    replay = c.get(f"/games/{gid}").text
    assert "alice v1 vs L0" in replay
    m = re.search(r'<div id="viewer" data-game="([^"]*)"', replay)
    assert m and json.loads(html.unescape(m.group(1)))["players"] == ["alice v1", "L0"]
    # what the workers label new records with
    assert _entry(lg, "players.L0", lg.dir / "work", False).label == "L0"
    status = c.get(f"/submissions/{subs['alice']}/status.json").json()
    assert [g["opponent_label"] for g in status["games"]] == ["L0"]
    assert "players.L0" not in c.get(f"/games/{gid}").text.split('data-game="')[0]
    lg.freeze()
    assert [p.name for p in final_tournament(lg).players] == ["alice", "bob", "L0"]
    lg.conn.close()


def _with_pairs(league: Fixture, pairs: int) -> League:
    """The league, opened, with `pairs_per_submission` (and its maximum) set to `pairs`."""
    lg = League.open(league.dir)
    path = league.dir / "league.yaml"
    if not path.is_file():
        lg.write_config_file()
    text = path.read_text()
    text = re.sub(r"(?m)^(max_)?pairs_per_submission: \d+$",
                  lambda m: f"{m.group(1) or ''}pairs_per_submission: {pairs}", text)
    lg.apply_config_file("test", text)
    assert lg.config.file.pairs_per_submission == pairs
    return lg


def test_the_sprt_is_inconclusive_once_its_pairs_are_played(league: Fixture) -> None:
    """alice's v2 plays its pairs against v1 (pairs_per_submission: 2 here): while one is
    missing, or in flight, the SPRT has "no decision yet"; once both are played it says they
    were inconclusive, with the Elo difference; a superseded version says so at once."""
    lg = _with_pairs(league, 2)
    v1 = league.subs["alice"]
    v2 = lg.submit("alice", [("bot.py", L0.read_bytes())]).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    new, old = f"sub:{v2}", f"sub:{v1}"

    def sprt() -> str:
        versus = versus_previous(lg, v2)
        assert versus is not None
        return str(versus["SPRT"])

    record_game(lg, new, old, "6x7x4", 1.0)
    record_game(lg, old, new, "6x7x4", 1.0)  # a pair: one won each (WL)
    assert sprt().startswith("no decision yet")  # one pair of two
    record_game(lg, new, old, "5x4x3", 0.5)
    with lg.conn:  # the second pair's other game is being played
        lg.conn.execute("INSERT INTO leases (side_a, side_b, board, number, holder, "
                        "started_at) VALUES (?, ?, '5x4x3', 1, 'worker-1', 0)", (new, old))
    assert sprt().startswith("no decision yet")
    with lg.conn:
        lg.conn.execute("DELETE FROM leases")
    record_game(lg, old, new, "5x4x3", 0.5)
    text = sprt()
    assert re.match(r"inconclusive after 2 pairs \(Elo difference [+-]?\d+ ± \d+\)", text), text
    lg.conn.close()
    c = client(league)
    client_log_in(c, "alice", league.secrets["alice"])
    assert c.get(f"/submissions/{v2}/status.json").json()["versus"]["SPRT"] == text


def test_a_superseded_versions_sprt_is_inconclusive_at_once(league: Fixture) -> None:
    lg = _with_pairs(league, 3)
    v1 = league.subs["alice"]
    v2 = lg.submit("alice", [("bot.py", L0.read_bytes())]).id
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    record_game(lg, f"sub:{v2}", f"sub:{v1}", "6x7x4", 1.0)
    record_game(lg, f"sub:{v1}", f"sub:{v2}", "6x7x4", 1.0)
    versus = versus_previous(lg, v2)
    assert versus is not None and str(versus["SPRT"]).startswith("no decision yet")
    lg.submit("alice", [("bot.py", L0.read_bytes())])  # v3 passes: v2 gets no more pairs
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    versus = versus_previous(lg, v2)
    assert versus is not None and str(versus["SPRT"]).startswith("inconclusive after 1 pair (")
    lg.conn.close()


def test_the_terminal_standings_are_the_web_leaderboard(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """`cxarena league standings` shows the web leaderboard's rows (the reference bots, marked
    and unranked, the anchor fixed) and columns (each entry's score against them)."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: competition\ntimeout_s: 1\n"
                   "reference_bots: [players.L0, players.L1]\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"ann": lg.add_user("ann"), "bob": lg.add_user("bob")}
    subs = {u: lg.submit(u, [("bot.py", L0.read_bytes())]).id for u in secrets}
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    ann, bob = f"sub:{subs['ann']}", f"sub:{subs['bob']}"
    for a, b, score in ((ann, "players.L0", 1.0), (ann, "players.L1", 0.5), (bob, ann, 0.0),
                        (bob, "players.L0", 0.0), ("players.L1", "players.L0", 1.0)):
        record_game(lg, a, b, "6x7x4", score)
    lg.conn.close()
    capsys.readouterr()
    assert main(["league", "standings", str(tmp_path / "lg")]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = re.split(r"\s{2,}", lines[0].strip())
    assert header == ["rank", "user", "version", "elo", "95% interval", "games", "faults",
                      "against the reference bots", "latest version"]
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                   follow_redirects=False)
    client_log_in(c, "ann", secrets["ann"])
    web = re.findall(r"<tr( class=\"[^\"]*\")?>\s*<td>(\d*)</td>\s*<td>(.*?)</td>",
                     c.get("/").text, re.S)
    web_users = [re.sub(r"<[^>]+>", "", cell).split()[0] for _, _, cell in web]
    cli_users = [re.split(r"\s{2,}", line.strip())[1 if line.strip()[0].isdigit() else 0]
                 .split(" (")[0] for line in lines[1:]]
    assert cli_users == web_users and set(cli_users) == {"ann", "bob", "L0", "L1"}
    rows = {u: line for u, line in zip(cli_users, lines[1:], strict=True)}
    assert "L1 (reference · anchor)" in rows["L1"] and "fixed" in rows["L1"]
    assert "L0 (reference)" in rows["L0"] and not rows["L0"].strip()[0].isdigit()
    assert "L0 1/1 · L1 0.5/1" in rows["ann"] and "v1" in rows["ann"]
    assert "L0 0/1" in rows["bob"] and "L1" not in rows["bob"].split("L0 0/1")[1]
    assert main(["league", "standings", str(tmp_path / "lg"), "--json"]) == 0
    kinds = {r["user"]: r["kind"] for r in json.loads(capsys.readouterr().out)}
    assert kinds == {"ann": "entry", "bob": "entry", "L0": "reference", "L1": "reference"}


CRASHER = b'''from arena.player import CXPlayer


class Crasher(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return helper(B)

    def playerName(self):
        return "crasher"


def helper(board):
    open(__file__ + ".missing")
'''


def test_a_students_check_shows_their_paths_and_frames_only(league: Fixture) -> None:
    """A bot that crashes in its check: its author reads the verdict and the stderr with
    paths relative to the upload and only the bot's own frames; the admin reads them whole."""
    lg = League.open(league.dir)
    with lg.conn:  # the fixture's versions: not checked here
        lg.conn.execute("UPDATE submissions SET status='rating'")
    sid = lg.submit("alice", [("crasher.py", CRASHER)]).id
    assert check_next(lg) == sid
    sub = lg.submission(sid)
    assert sub is not None and sub.status == "failed"
    folder = str(tree_of(lg.dir, sid, sub.fingerprint))
    lg.conn.close()
    assert folder in sub.check_summary and "arena/entrants" in sub.check_stderr  # as stored
    c = client(league)
    client_log_in(c, "alice", league.secrets["alice"])
    st = c.get(f"/submissions/{sid}/status.json").json()
    page = html.unescape(c.get(f"/submissions/{sid}").text)
    for text in (st["check_summary"], st["check_stderr"], page):
        assert 'File "crasher.py", line 16, in helper' in text
        assert 'File "crasher.py", line 9, in selectColumn' in text
        assert "crasher.py.missing'" in text  # the exception's own path, relative
        assert str(league.dir) not in text and str(ROOT) not in text
        assert "arena/entrants" not in text and "host.py" not in text
    assert st["check_summary"].startswith("check-bot crasher.py (")
    c = client(league)
    client_log_in(c, "teacher", league.secrets["teacher"])
    assert folder in c.get(f"/submissions/{sid}/status.json").json()["check_summary"]


def test_student_text_keeps_a_java_bots_frames_and_hides_other_paths(tmp_path: Path) -> None:
    folder = tmp_path / "work" / "7-abc"
    trace = (f"Exception in thread \"main\" java.lang.IllegalStateException: no move\n"
             f"\tat connectx.mine.My.selectColumn(My.java:42)\n"
             f"\tat cxarena.Host.go(Host.java:216)\n"
             f"\tat java.base/java.lang.Thread.run(Thread.java:1583)\n"
             f"reading {folder}/src/book.txt and /usr/lib/jvm/java-17/lib/modules\n"
             f"score 1/2 at 0.5/s in {folder}")
    assert student_text(trace, folder).splitlines() == [
        'Exception in thread "main" java.lang.IllegalStateException: no move',
        "\tat connectx.mine.My.selectColumn(My.java:42)",
        "reading src/book.txt and …/modules",
        "score 1/2 at 0.5/s in ."]


def test_student_text_leaves_markup_and_fractions_alone(tmp_path: Path) -> None:
    text = "<script>alert(1)</script> 1/2 a/b (see /etc/passwd) x=/srv/league/work/9-f/a.py"
    assert student_text(text, tmp_path) == (
        "<script>alert(1)</script> 1/2 a/b (see …/passwd) x=…/a.py")
