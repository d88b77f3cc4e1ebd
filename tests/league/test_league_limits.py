"""The limits a teacher writes in league.yaml are the limits every game of the league is played
under: its checks, rating games, calibration games and final each read back from their stored
records (`GameRecord.limits`), and a memory hog over `memory_limit_mb` in a rating game is
charged as such. A board set is found next to league.yaml, never in the current folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.league import League
from arena.league.checks import check_claimed, claim_check
from arena.league.feed import run_worker
from arena.league.final import final_results, start_final
from arena.league.final_length import measured_games
from arena.league.final_measure import measure_final
from arena.league.standings import game_records
from arena.records import Reason
from arena.referee.sandbox import resolve
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import ZOO, wait_finished

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


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> League:
    """A league whose league.yaml sets every limit, with its own board set beside it; two
    students, one of them a memory hog; every check run and every rating pair played."""
    where = tmp_path_factory.mktemp("limits")
    (where / "boards.yaml").write_text("tiny: [[4, 4, 3]]\n")
    (where / "league.yaml").write_text(LEAGUE_YAML)
    lg = League.init(where / "lg", where / "league.yaml")
    for user, code in (("ann", L0), ("hog", (ZOO / "memhog.py").read_bytes())):
        lg.add_user(user)
        lg.submit(user, [("bot.py", code)])
    while (sid := claim_check(lg)) is not None:
        check_claimed(lg, sid)
    with lg.conn:  # the hog fails its check (as it should); rated anyway to meet it in a game
        lg.conn.execute("UPDATE submissions SET status='rating'")
    run_worker(lg.dir, None, max_pairs=10, idle_s=0.05)
    return lg


def test_the_board_set_is_found_beside_league_yaml_not_in_the_current_folder(
        league: League, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a folder with no boards.yaml
    again = League.open(league.dir)
    assert again.config.boards() == ((4, 4, 3),) == tuple(
        g.board_key() for g in again.config.final_games())


def test_checks_play_under_every_limit_of_league_yaml(league: League) -> None:
    for sub in league.submissions():
        records = league.check_records(sub.id)
        assert records, f"{sub.user}'s check kept no games"
        assert all(r.limits == LIMITS for r in records), records[0].limits


def test_rating_games_play_under_every_limit_and_a_memory_hog_is_charged(
        league: League) -> None:
    records = game_records(league)
    assert records and all(r.limits == LIMITS for r in records), records[0].limits
    hog = [r for r in records if "memhog" in r.names]
    assert hog, "the memory hog played no rating game"
    for r in hog:
        assert r.reason is Reason.CRASH and "memory" in r.detail.lower(), r.detail
        assert r.names[(r.offender or 0) - 1] == "memhog"


def test_calibration_games_and_the_final_play_under_every_limit(league: League) -> None:
    # rating games count as measured: ask for one game more than they are
    assert measure_final(league, workers=1, games_per_board=len(game_records(league)) + 1) >= 1
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
