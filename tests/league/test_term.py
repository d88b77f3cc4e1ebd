"""The league over a whole term: the final round robin from a relative league folder (and run
again after a failure), no rating games after the freeze, league.yaml checked whole at `init`,
and workers that keep dying restarted with a backoff, their last error shown."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main as cli_main
from arena.competition.executor import LocalExecutor, PlayFn
from arena.league import League, LeagueError
from arena.league.config import parse_config
from arena.league.feed import LeagueGames, LeagueSource, _Health, start_workers
from arena.league.final import final_status, start_final
from arena.league.worker import Openings, claim, league_settings, plan_next, worker_health
from tests.helpers import wait_finished

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()


def _league(where: Path, text: str, users: dict[str, bytes]) -> League:
    cfg = where.parent / f"{where.name}.yaml"
    cfg.write_text(text)
    lg = League.init(where, cfg)
    for user, code in users.items():
        lg.add_user(user)
        lg.submit(user, [("bot.py", code)])
    with lg.conn:  # the check is tested elsewhere; here every version passed it
        lg.conn.execute("UPDATE submissions SET status='rating'")
    return lg


# ------------------------------------------------------------------ the final round robin
def test_the_final_runs_from_a_relative_league_folder(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "ref.py").write_bytes(L0)  # a reference bot named by a relative path
    lg = _league(Path("class-league"),
                 "board_set: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                 "reference_bots: [L0, mine/ref.py]\nisolation: false\nopening_plies: 0\n",
                 {"ann": L1, "bob": L0})
    lg.freeze()
    results = start_final(lg, Path("class-league") / "results")
    assert Path(results).is_absolute()
    assert wait_finished(Path("class-league")) == "finished", final_status(lg).text
    status = final_status(lg)
    assert status.games_stored == status.games_total == 4 * 3 * 1 * 1
    assert Path(status.report).is_file() and "ann" in Path(status.report).read_text()


def test_the_final_runs_again_after_a_failure_and_forgets_the_old_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    lg = _league(Path("lg"), "board_set: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\n"
                 "timeout_s: 0.5\nreference_bots: [L0]\nisolation: false\nopening_plies: 0\n",
                 {"ann": L1, "bob": L0})
    lg.freeze()
    folder = tmp_path / "lg" / "final"
    folder.mkdir()
    # a run that failed: its error in the log, its state left behind
    (folder / "log.txt").write_text("cxarena tournament: error: OLD FAILURE\n")
    (folder / "state.json").write_text(json.dumps({"pid": 999999999, "results": str(
        tmp_path / "lg" / "results" / "final")}))
    assert "OLD FAILURE" in final_status(lg).text
    start_final(lg, Path("lg") / "results")
    assert "OLD FAILURE" not in final_status(lg).text
    assert wait_finished(Path("lg")) == "finished"
    assert "OLD FAILURE" not in final_status(lg).text


# --------------------------------------------------------------------------- the freeze
def test_no_rating_pair_is_claimed_after_the_freeze(tmp_path: Path) -> None:
    lg = _league(tmp_path / "lg", "board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
                 "reference_bots: [L0]\nisolation: false\nopening_plies: 0\n",
                 {"ann": L0, "bob": L1})
    assert plan_next(lg) is not None  # work is queued
    in_flight = claim(lg, "local:elsewhere:1", Openings(None))
    assert in_flight is not None
    lg.freeze()
    assert claim(lg, "local:elsewhere:2", Openings(None)) is None
    # the pair in flight is not taken away
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 1


# ------------------------------------------------------------------------ league.yaml
@pytest.mark.parametrize("text, words", [
    ("board_set: nosuch\n", ["board_set", "nosuch"]),
    ("boards: nosuch\n", ["boards", "nosuch"]),
    ("final_board_set: nosuch\n", ["final_board_set", "nosuch"]),
    ("reference_bots: [L0, nosuchbot]\n", ["reference_bots", "nosuchbot"]),
    ("reference_bots: L0\n", ["reference_bots"]),
    ("boards: competition\nboard_set: competition\n", ["boards", "board_set"]),
    ("isolation: maybe\n", ["isolation"]),
    ("timeout_s: fast\n", ["timeout_s"]),
])
def test_a_bad_value_is_refused_at_init(tmp_path: Path, text: str, words: list[str]) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(text)
    with pytest.raises(LeagueError) as info:
        League.init(tmp_path / "lg", cfg)
    for word in words:
        assert word in str(info.value)
    assert not (tmp_path / "lg").exists()


def test_boards_is_the_shared_name_and_board_set_still_works() -> None:
    assert parse_config("boards: [[4, 4, 3]]\n").boards() == ((4, 4, 3),)
    assert parse_config("boards: competition\n").board_set == "competition"
    assert parse_config("board_set: [[4, 4, 3]]\n").boards() == ((4, 4, 3),)
    assert parse_config("boards: [[4, 4, 3]]\n").notes == ()


def test_the_old_name_is_accepted_with_a_note(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: [[4, 4, 3]]\n")
    assert cli_main(["league", "init", str(tmp_path / "lg"), "--config", str(cfg)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: ") and "board_set: is the old name of boards:" in err


def test_init_outside_the_project_names_the_missing_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli_main(["league", "init", "class-league", "--config",
                     "configs/league.yaml"]) == 2
    err = capsys.readouterr().err
    assert "Errno" not in err
    assert "configs/league.yaml" in err and str(ROOT / "configs" / "league.yaml") in err
    assert not (tmp_path / "class-league").exists()


# ------------------------------------------------------------------- workers that die
@contextlib.contextmanager
def dying_runner(settings: object) -> Iterator[PlayFn]:
    """A game runner whose worker process dies at every game (exit status 3)."""

    def play(game: object) -> object:
        os._exit(3)

    yield play  # type: ignore[misc]


def test_a_worker_that_keeps_dying_is_restarted_with_a_backoff_and_its_error_shown(
        tmp_path: Path) -> None:
    lg = _league(tmp_path / "lg", "board_set: [[4, 4, 3]]\nisolation: false\n", {"ann": L0})
    lg.conn.close()
    d = tmp_path / "lg"
    shown: list[str] = []
    at_s: list[float] = []

    def announce(line: str) -> None:
        shown.append(line)
        at_s.append(time.monotonic())

    health = _Health(d, 1, announce)
    play = parse_config("timeout_s: 1.0\nisolation: false\n").play
    executor = LocalExecutor(league_settings(play, False), 1, runner=dying_runner,
                             on_death=health.died)
    workers = LeagueGames(d, lambda: executor, LeagueSource(d, None, announce=announce),
                          health, None)
    try:
        # the back-off's 1 s and 2 s are the point (asserted below as lower bounds, which load
        # only lengthens); the bound here is only for a failure (each death is a new process)
        deadline_s = time.monotonic() + 300
        while len(shown) < 4 and time.monotonic() < deadline_s:
            time.sleep(0.05)
    finally:
        workers.stop()
    # replaced at once after its first death, then after 1 s and 2 s (not 70 times a second)
    assert len(shown) >= 4 and workers.restarts == len(shown), shown
    assert at_s[2] - at_s[1] >= 0.9 and at_s[3] - at_s[2] >= 1.9, at_s
    assert all("worker 1 stopped: worker process died (exit code 3)" in line for line in shown)
    assert "a new one takes its place" in shown[0]
    health_rows = worker_health(d)
    assert len(health_rows) == 1
    worker, restarts, last_error = health_rows[0]
    assert worker == "worker 1" and restarts == workers.restarts
    assert "exit code 3" in last_error
    lg = League.open(d)  # its pairs were given back, none stored
    assert lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0
    assert lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0
    lg.conn.close()


def test_a_league_whose_settings_went_bad_says_why(tmp_path: Path) -> None:
    """A league whose stored settings went bad (made before they were checked at init): the
    server keeps serving, says the error once per try, after a backoff, and keeps it for the
    admin page."""
    lg = _league(tmp_path / "lg", "board_set: [[4, 4, 3]]\nisolation: false\n", {})
    with lg.conn:
        lg.conn.execute("UPDATE meta SET value='board_set: nosuch' WHERE key='config'")
    lg.conn.close()
    shown: list[str] = []
    at_s: list[float] = []

    def announce(line: str) -> None:
        shown.append(line)
        at_s.append(time.monotonic())

    workers = start_workers(tmp_path / "lg", 1, None, None, announce=announce)
    try:  # tried again after 1 s; the bound is only for a failure (a busy machine)
        deadline = time.monotonic() + 120
        while len(shown) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        workers.stop()
    assert shown and "unknown board set 'nosuch'" in shown[0], shown
    assert "Traceback" not in shown[0] and "in 1 s" in shown[0]
    assert len(shown) >= 2 and "in 2 s" in shown[1], shown
    assert at_s[1] - at_s[0] >= 0.9, at_s  # after its backoff, not at once
    assert "unknown board set 'nosuch'" in worker_health(tmp_path / "lg")[0].last_error


def test_isolation_takes_the_tournament_words_too() -> None:
    assert parse_config("isolation: namespaces\n").sandboxed is True
    assert parse_config("isolation: none\n").sandboxed is False
    assert parse_config("isolation: false\n").sandboxed is False
    with pytest.raises(ValueError, match="isolation: expected true .* got 'auto'"):
        parse_config("isolation: auto\n")
