"""The league's final official round robin (`arena.league.final`): refused before the freeze
and with fewer than two entries; from the admin page (CSRF and admin only) it runs the real
tournament in its own process, and its report is linked from the league."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League, LeagueError
from arena.league.final import final_status, final_tournament
from arena.league.web.app import create_app
from tests.helpers import wait_finished
from tests.league.helpers import CRASHER, frozen_league
from tests.league.web.conftest import client_log_in as log_in

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def league(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3], [4, 5, 3]]\n"
                   "timeout_s: 0.5\nreference_bots: [L0]\nisolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    secrets = {"teacher": lg.add_user("teacher", admin=True), "ann": lg.add_user("ann"),
               "bob": lg.add_user("bob")}
    lg.submit("ann", [("L1.py", (ROOT / "players" / "L1.py").read_bytes())])
    lg.submit("bob", [("L0.py", (ROOT / "players" / "L0.py").read_bytes())])
    with lg.conn:  # both passed their check (tested elsewhere)
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg", secrets


def test_refused_before_the_freeze_and_with_one_entry(league: tuple[Path, dict[str, str]]
                                                      ) -> None:
    lg = League.open(league[0])
    with pytest.raises(LeagueError, match="freeze"):
        final_tournament(lg)
    lg.freeze()
    lg.disable(2)
    with pytest.raises(LeagueError, match="at least two entries"):
        final_tournament(lg)
    assert final_status(lg).state == "not started"


def test_the_final_is_built_from_the_frozen_entries(league: tuple[Path, dict[str, str]]
                                                    ) -> None:
    lg = League.open(league[0])
    lg.freeze()
    config = final_tournament(lg)  # built in Python: no config file is written
    assert [p.name for p in config.players] == ["ann", "bob", "L0"]
    assert re.search(r"/work/1-[0-9a-f]+/L1.py$", config.players[0].spec)
    assert config.boards == ((4, 4, 3), (4, 5, 3)) and config.play.isolation == "none"
    assert config.openings is not None
    assert (config.openings.plies, config.openings.seed) == (2, 0)
    assert config.limits.timeout_s == 0.5 and config.file.broken_bots == "forfeit"
    assert not (league[0] / "final" / "tournament.yaml").exists()


def test_the_admin_page_runs_the_final_and_links_its_report(
        league: tuple[Path, dict[str, str]]) -> None:
    d, secrets = league
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)

    def login(name: str) -> str:
        return log_in(c, name, secrets[name])

    token = login("ann")
    assert c.post("/admin/final", data={"csrf": token}).status_code == 403  # not an admin
    assert c.get("/final/report.html").status_code == 404  # none yet
    c.post("/logout", data={"csrf": token})
    token = login("teacher")
    assert c.post("/admin/final", data={"csrf": token}).status_code == 409  # not frozen
    assert c.post("/admin/freeze", data={"csrf": token}).status_code == 200
    assert c.post("/admin/final").status_code == 403  # no CSRF token
    r = c.post("/admin/final", data={"csrf": token})
    assert r.status_code == 200 and "The final round robin started" in r.text
    assert c.post("/admin/final", data={"csrf": token}).status_code == 409  # running
    assert wait_finished(d) == "finished"
    lg = League.open(d)
    status = final_status(lg)
    assert status.games_stored == status.games_total == 3 * 2 * 2 * 1
    admin = c.get("/admin").text
    assert "Finished: 12 games." in admin and 'id="final-report"' in admin
    assert 'id="final-report"' in c.get("/").text
    report = c.get("/final/report.html")
    assert report.status_code == 200 and "ann" in report.text and "bob" in report.text


def test_students_read_the_final_report_without_the_bots_own_words(tmp_path: Path) -> None:
    """A bot's exception text and stderr are its author's and the admins' to read: the final's
    report as a student gets it says how each game ended, not what the bot wrote."""
    d, secrets, c = frozen_league(tmp_path, "crasher.py", CRASHER)

    def login(name: str) -> str:
        return log_in(c, name, secrets[name])

    token = login("teacher")
    assert c.post("/admin/final", data={"csrf": token}).status_code == 200
    assert wait_finished(d) == "finished"
    full = c.get("/final/report.html")
    assert full.status_code == 200 and "BOT-WORDS-xxx" in full.text
    hashes = set(re.findall(r'"code":\s*"([0-9a-f]{16})"', full.text))
    assert len(hashes) >= 2  # the teacher sees each entry's code hash
    c.post("/logout", data={"csrf": token})
    for name in ("ann", "bob"):  # the author reads it in the league's own game pages
        token = login(name)
        public = c.get("/final/report.html")
        assert public.status_code == 200 and "bob" in public.text
        assert "BOT-WORDS" not in public.text and "crashed" in public.text
        assert not any(h in public.text for h in hashes)  # nor another entry's code hash
        assert "script-src 'self' 'sha256-" in public.headers["content-security-policy"]
        c.post("/logout", data={"csrf": token})


SABOTEUR = b'''import sys

from arena.player import CXPlayer

if sys.argv[0].endswith("probe.py"):  # only when it is being checked
    raise RuntimeError("no final for anyone")


class Saboteur(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "saboteur"
'''


def test_an_entry_that_fails_to_load_at_the_final_forfeits_and_the_rest_play(
        tmp_path: Path) -> None:
    """A bot that raises only when it is probed passed its check and rating games (tested
    elsewhere: the check plays it); at the final's start it fails to load: it forfeits its
    games, recorded as such for the teacher, and the others play."""
    d, secrets, c = frozen_league(tmp_path, "saboteur.py", SABOTEUR)
    token = log_in(c, "teacher", secrets["teacher"])
    assert c.post("/admin/final", data={"csrf": token}).status_code == 200
    assert wait_finished(d) == "finished"
    status = final_status(League.open(d))
    assert status.games_stored == status.games_total == 3 * 2 * 1
    full = c.get("/final/report.html").text
    assert "ann" in full and "bob" in full
    assert "forfeit: " in full and "fails to import: RuntimeError: no final for anyone" in full
    rows = (d / "results" / "final" / "standings.csv").read_text()
    assert "bob" in rows and "ann" in rows


def test_a_final_league_yaml_cannot_make_is_refused_by_name_and_nothing_is_lost(
        tmp_path: Path) -> None:
    """league.yaml lets through openings of 16 plies on a 4x4 final board, which a tournament
    refuses: the final is refused with a LeagueError naming league.yaml (409 on the admin
    page, not a 500), and it does not start."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 5, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                   "reference_bots: [L0]\nisolation: false\nopening_plies: 16\n")
    lg = League.init(tmp_path / "lg", cfg)
    teacher = lg.add_user("teacher", admin=True)
    for user in ("ann", "bob"):
        lg.add_user(user)
        lg.submit(user, [("L0.py", (ROOT / "players" / "L0.py").read_bytes())])
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.freeze()
    with pytest.raises(LeagueError, match="league.yaml does not make a final round robin: "
                                          ".*16 plies do not fit"):
        final_tournament(lg)
    client = TestClient(create_app(tmp_path / "lg"), base_url="http://127.0.0.1",
                        follow_redirects=False)
    log_in(client, "teacher", teacher)
    page = client.get("/admin").text
    token = re.search(r'name="csrf" value="([^"]+)"', page)
    assert token is not None
    r = client.post("/admin/final", data={"csrf": token.group(1)})
    assert r.status_code == 409 and "league.yaml does not make a final" in r.text
    assert final_status(lg).state == "not started"
