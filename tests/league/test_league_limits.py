"""The limits a teacher writes in league.yaml are the limits every game of the league is played
under: its checks, rating games, calibration games and final each read back from their stored
records (`GameRecord.limits`), and a memory hog over `memory_limit_mb` in a rating game is
charged as such: uploaded over HTTP to a real server, whose own workers check and rate them. A
board set is found next to league.yaml, never in the current folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league import League
from arena.league.final import final_results, start_final
from arena.league.final_length import measured_games
from arena.league.final_measure import measure_final
from arena.league.db import LeagueGames
from arena.records import Reason, board_key
from arena.referee.sandbox import resolve
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import wait_finished, wait_until
from tests.league.helpers import all_played, student, upload
from tests.league.web.server_proc import start_server

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
#: where the machine has the sandbox (CI does), the league asks for it and the records say so
SANDBOX = resolve("auto").isolated
LIMITS = {"timeout_s": 1.0, "grace_s": 0.5, "startup_timeout_s": 5.0, "memory_limit_mb": 300,
          "max_tasks": 64, "isolation": "namespaces" if SANDBOX else "none", "cgroups": False}
LEAGUE_YAML = (
    "boards: tiny\nfinal_board_set: tiny\ntimeout_s: 1\ngrace_s: 0.5\n"
    "startup_timeout_s: 5\nmemory_limit_mb: 300\nmax_tasks: 64\ncgroups: false\n"
    f"isolation: {'namespaces' if SANDBOX else 'none'}\nopening_plies: 0\n"
    "pairs_per_submission: 1\nmax_pairs_per_submission: 1\nreference_bots: [L0]\n")


#: a bot that plays its check's boards (K=4 and more) as L0 does, and on the league's own board
#: (K=3) fills its memory far past any limit: it passes its check and is charged in its games
HOG = b"""import random

from arena.player import CXPlayer


class Hog(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.K = K

    def selectColumn(self, B):
        if self.K == 3:
            hoard = []
            for _ in range(16_384):
                hoard.append(bytes(64 * 2**20))
        return random.choice(B.getAvailableColumns())

    def playerName(self):
        return "hog"
"""


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    """A real league over HTTP whose league.yaml sets every limit, with its own board set
    beside it: two students upload (one of them a memory hog), the server checks them and
    plays their rating games."""
    where = tmp_path_factory.mktemp("limits")
    (where / "boards.yaml").write_text("tiny: [[4, 4, 3]]\n")
    (where / "league.yaml").write_text(LEAGUE_YAML)
    lg = League.init(where / "lg", where / "league.yaml")
    secrets = {user: lg.add_user(user) for user in ("ann", "hog")}
    server = start_server(lg.dir)
    try:
        upload(student(server.url, "ann", secrets["ann"]), "bot.py", L0)
        upload(student(server.url, "hog", secrets["hog"]), "bot.py", HOG)
        # both versions checked, and every rating pair played by the server's own workers
        assert wait_until(lambda: _rated(lg), timeout_s=600.0), "".join(server.output[-40:])
    finally:
        server.stop()
    yield lg
    lg.conn.close()


def _rated(lg: League) -> bool:
    """Both versions passed their check, and every rating pair they need is stored."""
    subs = lg.submissions()
    return len(subs) == 2 and all(s.status == "rating" for s in subs) and all_played(lg)


def test_the_board_set_is_found_beside_league_yaml_not_in_the_current_folder(
        league: League, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a folder with no boards.yaml
    again = League.open(league.dir)
    assert again.config.boards() == ((4, 4, 3),) == tuple(
        board_key(g) for g in again.config.final_games())


def test_checks_play_under_every_limit_of_league_yaml(league: League) -> None:
    for sub in league.submissions():
        records = league.check_records(sub.id)
        assert records, f"{sub.user}'s check kept no games"
        assert all(r.limits == LIMITS for r in records), records[0].limits


def test_rating_games_play_under_every_limit_and_a_memory_hog_is_charged(
        league: League) -> None:
    records = [g.record for g in LeagueGames(league).games()]
    assert records and all(r.limits == LIMITS for r in records), records[0].limits
    hog = [r for r in records if "hog" in r.names]
    assert hog, "the memory hog played no rating game"
    for r in hog:
        assert r.reason is Reason.CRASH and "memory" in r.detail.lower(), r.detail
        assert r.names[(r.offender or 0) - 1] == "hog"


def test_calibration_games_and_the_final_play_under_every_limit(league: League) -> None:
    # rating games count as measured: ask for one game more than they are
    assert measure_final(league, workers=1, games_per_board=LeagueGames(league).count() + 1) >= 1
    measured = measured_games(league.dir)
    assert measured and all(m.limits == LIMITS for m in measured)
    league.freeze()
    start_final(league, league.dir / "results")
    assert wait_finished(league.dir, timeout_s=300.0) == "finished"
    folder = final_results(league)
    assert folder is not None
    with ResultStore(folder / DB_FILE, create=False) as store:
        finals = [g.record for g in store.games()]
    assert finals and all(r.limits == LIMITS for r in finals), finals[0].limits
