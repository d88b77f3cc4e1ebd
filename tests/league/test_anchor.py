"""Anchored league ratings (Ordo's -A): the scale is fixed by one reference bot at a documented
value, so a student's rating does not move because another student joined; the reference bots
are unranked rows of the leaderboard; each entry's score against each reference bot; the CSV
in step; the config keys `anchor` and `anchor_elo`; the leaderboard page."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League
from arena.league.config import ANCHOR_ELO, parse_config
from arena.league.standings import (
    leaderboard,
    record_game,
    reference_name,
    standings,
    standings_csv,
)
from arena.league.web.app import create_app
from arena.results.elo import fit_ratings
from tests.league.web.conftest import csrf_of

L0, L1 = "players.L0", "players.L1"


# ------------------------------------------------------------------------------ the fit
GAMES = [("a", "b", 1.0)] * 5 + [("a", "b", 0.0)] * 2 + [("b", "c", 0.5)] * 3 \
    + [("a", "c", 1.0)] * 4 + [("c", "a", 1.0)]


def test_fit_anchored_fixes_one_player_and_keeps_the_differences() -> None:
    free = fit_ratings(["a", "b", "c"], GAMES)
    assert abs(sum(free.elo)) < 1e-6  # the default stays mean 0 (tournament standings)
    anchored = fit_ratings(["a", "b", "c"], GAMES, anchor="b", anchor_elo=1000.0)
    r, f = anchored.as_dict(), free.as_dict()
    assert r["b"] == (1000.0, 0.0)  # fixed, no error of its own
    for p in "ac":
        assert r[p][0] - 1000.0 == pytest.approx(f[p][0] - f["b"][0], abs=1e-6)
        assert 0.0 < r[p][1] < math.inf
    with pytest.raises(ValueError, match="anchor"):
        fit_ratings(["a", "b"], GAMES[:3], anchor="z")


def _league(tmp_path: Path, users: tuple[str, ...], config: str = "") -> tuple[League,
                                                                                dict[str, str]]:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(config)
    lg = League.init(tmp_path / "lg", cfg)
    sides = {}
    for u in users:
        lg.add_user(u)
        sub = lg.submit(u, [("bot.py", f"x = {u!r}\n".encode())])
        sides[u] = f"sub:{sub.id}"
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    return lg, sides


def _play(lg: League, a: str, b: str, wins: int, draws: int, losses: int) -> None:
    for score, n in ((1.0, wins), (0.5, draws), (0.0, losses)):
        for i in range(n):  # half of them with each side first
            if i % 2:
                record_game(lg, a, b, "6x7x4", score)
            else:
                record_game(lg, b, a, "6x7x4", 1.0 - score)


def _add_student(lg: League, user: str) -> str:
    """A new student's first version, or a student's next version, in its rating games."""
    if lg.user(user) is None:
        lg.add_user(user)
    sub = lg.submit(user, [("bot.py", b"x=3\n")])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating' WHERE id=?", (sub.id,))
    return f"sub:{sub.id}"


def test_a_rating_does_not_move_because_another_student_joined(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann", "bob"))
    _play(lg, s["ann"], s["bob"], 5, 2, 3)
    _play(lg, s["ann"], L0, 8, 0, 0)
    _play(lg, s["ann"], L1, 5, 2, 1)
    _play(lg, s["bob"], L0, 7, 1, 0)
    _play(lg, s["bob"], L1, 3, 2, 3)
    before = {r.user: r.elo for r in standings(lg)}
    # a weak newcomer who meets only the reference bots, with results that agree with the gap
    # between L0 and L1 the others measured (results that disagree are news about L0 and L1,
    # and move the others by that news: 10-15 Elo for 0.5/8 against L0 here); a mean-0 scale
    # moves ann and bob by 90 Elo for him
    carl = _add_student(lg, "carl")
    _play(lg, carl, L0, 1, 2, 5)
    _play(lg, carl, L1, 0, 0, 8)
    after = {r.user: r.elo for r in standings(lg)}
    assert set(after) == {"ann", "bob", "carl"} and after["carl"] < after["bob"]
    for user in ("ann", "bob"):
        assert after[user] == pytest.approx(before[user], abs=5.0), user
    l1 = [r for r in leaderboard(lg) if r.spec == L1]
    assert len(l1) == 1 and l1[0].elo == ANCHOR_ELO and l1[0].anchor


# ------------------------------------------------------------------ leaderboard rows
def test_reference_rows_are_unranked_and_interleaved_by_rating(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann", "bob"), "anchor_elo: 1500\n")
    _play(lg, s["ann"], L0, 8, 0, 0)
    _play(lg, s["ann"], L1, 6, 2, 0)
    _play(lg, s["bob"], L0, 5, 2, 1)
    _play(lg, s["bob"], L1, 0, 1, 7)
    rows = leaderboard(lg)
    assert [(r.user, r.rank, r.kind) for r in rows] == [
        ("ann", 1, "entry"), ("L1", 0, "reference"), ("bob", 2, "entry"),
        ("L0", 0, "reference")]
    assert [r.elo for r in rows] == sorted((r.elo for r in rows), reverse=True)
    ref = {r.spec: r for r in rows if r.kind == "reference"}
    assert ref[L1].anchor and not ref[L0].anchor
    assert ref[L1].elo == 1500.0 and ref[L1].elo_low == ref[L1].elo_high == 1500.0
    assert ref[L0].elo_low < ref[L0].elo < ref[L0].elo_high
    assert (ref[L1].games, ref[L0].games) == (16, 16)
    assert [r.user for r in standings(lg)] == ["ann", "bob"]  # the ranked entries only


def test_anchor_can_be_another_reference_bot(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann",), "anchor: players.L0\nanchor_elo: 800\n")
    _play(lg, s["ann"], L0, 6, 0, 2)
    _play(lg, s["ann"], L1, 2, 0, 6)
    rows = {r.user: r for r in leaderboard(lg)}
    assert rows["L0"].anchor and rows["L0"].elo == 800.0 and not rows["L1"].anchor
    assert rows["L1"].elo > rows["ann"].elo > 800.0


def test_score_against_each_reference_bot(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann", "bob"))
    _play(lg, s["ann"], L0, 8, 0, 0)
    _play(lg, s["ann"], L1, 7, 1, 0)
    _play(lg, s["ann"], s["bob"], 2, 0, 0)
    _play(lg, s["bob"], L1, 1, 0, 3)
    new_bob = _add_student(lg, "bob")  # bob's next version: the old one's games do not count
    _play(lg, new_bob, L1, 0, 1, 1)
    rows = {r.user: r for r in leaderboard(lg)}
    ann = [(v.bot, v.points, v.games, str(v)) for v in rows["ann"].vs_reference]
    assert ann == [("L0", 8.0, 8, "8/8"), ("L1", 7.5, 8, "7.5/8")]
    bob = [(v.bot, v.points, v.games, str(v)) for v in rows["bob"].vs_reference]
    assert bob == [("L0", 0.0, 0, "0/0"), ("L1", 0.5, 2, "0.5/2")]
    assert rows["L1"].vs_reference == () and rows["bob"].submission_id == int(new_bob[4:])


def test_reference_name() -> None:
    assert reference_name("players.L1") == "L1"
    assert reference_name("L0") == "L0"
    assert reference_name("players.alphabeta:AlphaBeta") == "AlphaBeta"
    assert reference_name("bots/strong.py") == "strong"
    assert reference_name("java:course/bots:connectx.L1.L1") == "L1"
    assert reference_name("java:course/L1") == "L1"


# -------------------------------------------------------------------------------- CSV
def test_csv_has_the_reference_rows_and_scores(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann",))
    _play(lg, s["ann"], L0, 8, 0, 0)
    _play(lg, s["ann"], L1, 7, 1, 0)
    rows = list(csv.DictReader(io.StringIO(standings_csv(lg))))
    assert [(r["rank"], r["user"], r["kind"]) for r in rows] == [
        ("1", "ann", "entry"), ("", "L1", "anchor"), ("", "L0", "reference")]
    ann, l1, _ = rows
    assert (ann["vs_L0_points"], ann["vs_L0_games"], ann["vs_L1_points"],
            ann["vs_L1_games"]) == ("8", "8", "7.5", "8")
    assert l1["elo"] == f"{ANCHOR_ELO:.1f}" and l1["vs_L1_points"] == ""
    assert l1["submission_id"] == "" and l1["version"] == ""


# ----------------------------------------------------------------------------- config
def test_config_anchor_keys() -> None:
    cfg = parse_config("")
    assert (cfg.anchor_bot(), cfg.file.anchor_elo) == (L1, ANCHOR_ELO)
    assert parse_config("").anchor_bot() == L1
    cfg = parse_config("reference_bots: [players.L0, players.alphabeta]\n")
    assert cfg.anchor_bot() == "players.alphabeta"  # the last reference bot by default
    cfg = parse_config("anchor: players.L0\nanchor_elo: 1234.5\n")
    assert (cfg.anchor_bot(), cfg.file.anchor_elo) == (L0, 1234.5)
    assert parse_config("reference_bots: []\n").anchor_bot() == ""
    for text, words in (("anchor: players.alphabeta\n", "anchor: .*reference_bots"),
                        ("anchor: 3\n", "anchor"),
                        ("reference_bots: []\nanchor: players.L0\n", "anchor"),
                        ("anchor_elo: high\n", "anchor_elo"),
                        ("anchor_elo: true\n", "anchor_elo"),
                        ("anchor_elo: .nan\n", "anchor_elo")):
        with pytest.raises(ValueError, match=words):
            parse_config(text)


# ------------------------------------------------------------------------------ page
def test_leaderboard_page_shows_reference_rows_and_scores(tmp_path: Path) -> None:
    lg, s = _league(tmp_path, ("ann", "bob"))
    secret = lg.add_user("teacher", admin=True)
    _play(lg, s["ann"], L0, 8, 0, 0)
    _play(lg, s["ann"], L1, 7, 1, 0)
    _play(lg, s["bob"], L0, 2, 0, 6)
    lg.conn.close()
    c = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                   follow_redirects=False)
    token = csrf_of(c.get("/login").text)
    r = c.post("/login", data={"name": "teacher", "secret": secret, "csrf": token})
    assert r.status_code == 303
    page = c.get("/").text
    assert page.count('class="reference') == 2 and page.count('class="reference anchor') == 1
    assert "L0 8/8 · L1 7.5/8" in page
    assert "L0 2/8" in page
    assert f"fixed at {ANCHOR_ELO:.0f}" in page
    csv_text = c.get("/standings.csv").text
    assert ",anchor," in csv_text and ",reference," in csv_text
