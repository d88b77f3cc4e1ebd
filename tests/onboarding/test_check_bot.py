"""`cxarena check-bot` (`arena.onboarding.conformance`) on Connect-X's boards: a good bot passes
(exit 0); each kind of fault (crash with its traceback, illegal move, timeout, bad playerName(),
failed or slow start-up) is reported in plain words with exit code 1; usage errors give exit
code 2. Every other game: tests/onboarding/test_check_games.py."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from arena.board import CXBoard, CXGameState
from arena.onboarding import conformance
from arena.onboarding.conformance import (
    STANDARD_BOARD,
    CheckGame,
    RandomOpponent,
    _judge,
    _name_problem,
    check_boards,
    default_settings,
    percentile,
)
from arena.records import GameRecord, Reason
from arena.referee.referee import MOVE_CAP_DETAIL, course_game
from arena.tournament.config import load_limits
from players.L0 import L0
from tests.conftest import ROOT
from tests.helpers import cx_record, cxarena, project_copy

BOT = '''
    import time
    from arena.player import CXPlayer


    class Bot(CXPlayer):
        def initPlayer(self, M, N, K, first, timeout_in_secs):
            self.timeout_s = timeout_in_secs
            self.n = 0

        def selectColumn(self, B):
            self.n += 1
            {select}
            return B.getAvailableColumns()[-1]

        def playerName(self):
            return {name!r}
'''


def make_bot(tmp_path: Path, select: str = "pass", name: str = "Bot", prelude: str = "") -> str:
    path = tmp_path / "bot.py"
    path.write_text(prelude + textwrap.dedent(BOT).format(select=select, name=name))
    return str(path)


def test_a_good_bot_passes_on_the_default_boards() -> None:
    r = cxarena(ROOT, "check-bot", "L1", "--time", "0.5", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    small, large = check_boards()[0], check_boards()[-1]
    for M, N, K in (small, STANDARD_BOARD, large):
        for colour in ("first", "second"):
            assert f"{M}x{N}x{K}, bot {colour}:" in out
    assert "stopped at the move cap" in out  # the 50x50 games are capped
    assert "start-up (process start to 'ready'):" in out
    assert "of the limit, 99th percentile" in out
    assert "playerName(): 'L1'" in out
    assert out.rstrip().endswith("PASSED: the bot is ready for a tournament.")


def test_a_crash_is_reported_with_its_traceback(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, "if self.n == 2: raise ValueError('bad luck in move two')")
    r = cxarena(tmp_path, "check-bot", bot, "--time", "0.5", "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "crash in 3 game(s)" in r.stdout
    assert "raised ValueError: bad luck in move two" in r.stdout
    assert "Traceback (most recent call last)" in r.stdout and "bot.py" in r.stdout
    assert "FAILED: 1 problem(s)" in r.stdout


def test_an_illegal_move_is_reported(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, "return 0")  # column 0 until it is full
    r = cxarena(tmp_path, "check-bot", bot, "--time", "0.5", "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "illegal move in 2 game(s)" in r.stdout and "column 0 is full" in r.stdout


def test_a_timeout_is_reported_with_how_close_the_moves_came(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, "time.sleep(self.timeout_s * (2.0 if self.n == 3 else 0.1))")
    r = cxarena(tmp_path, "check-bot", bot, "--time", "0.5", "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "timeout in 3 game(s)" in r.stdout and "over the 500 ms limit" in r.stdout
    assert "Deadline.for_move" in r.stdout
    line = next(x for x in r.stdout.splitlines() if "move times:" in x)
    assert "6 moves" in line and "99th percentile" in line  # 2 answered moves a game


def test_a_failing_player_name_fails_the_check(tmp_path: Path) -> None:
    # the sleep at import makes the start-up measurable (far below the 30 s start-up limit)
    bot = make_bot(tmp_path, prelude="import time\ntime.sleep(1.0)\n")
    Path(bot).write_text(Path(bot).read_text().replace(
        "return 'Bot'", "raise RuntimeError('nameless')"))
    r = cxarena(tmp_path, "check-bot", bot, "--time", "0.5", "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "playerName() gave an empty name" in r.stdout
    assert "FAILED: 1 problem(s)" in r.stdout  # the games themselves were fine
    # the start-up is the bot's own process (start to `ready`), so at least its 1 s sleep
    line = next(x for x in r.stdout.splitlines() if "start-up (process start to 'ready'):" in x)
    assert float(line.split("):")[1].split()[0]) >= 1.0, line


def test_a_bot_that_cannot_start_is_reported_once_without_games(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, prelude="import no_such_module_for_check\n")
    r = cxarena(tmp_path, "check-bot", bot, "--time", "0.5", "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "the bot did not start" in r.stdout
    assert "No module named 'no_such_module_for_check'" in r.stdout
    assert "Traceback" in r.stdout
    assert "total: 0 games" in r.stdout


def test_slow_start_up_fails_against_the_configured_limit(tmp_path: Path) -> None:
    # 3 s asleep at import can never make a 2 s start-up limit, however loaded the machine
    root = project_copy(tmp_path)
    config = root / "configs" / "tournament.yaml"
    config.write_text(
        "players: [L0, L1]\nboards: [[4, 4, 4]]\ntimeout_s: 0.5\nstartup_timeout_s: 2\n")
    bot = make_bot(tmp_path, prelude="import time\ntime.sleep(3)\n")
    r = cxarena(tmp_path, "check-bot", bot, "--board", "4", "4", "4")
    assert r.returncode == 1
    assert f"time limit: 0.5 s (from {config})" in r.stdout
    assert "the bot did not start (start-up limit 2 s)" in r.stdout
    assert "Import less at start-up or load lazily" in r.stdout
    assert "total: 0 games" in r.stdout  # reported once, not once per game
    assert "FAILED: 1 problem(s)" in r.stdout


def _record(reason: Reason = Reason.DRAW, detail: str = "", offender: int | None = None,
            startup_ms: list[float | None] | None = None, stderr_tail: str = "") -> GameRecord:
    return cx_record(M=4, N=4, K=4, p1="a", p2="b", names=("Bot", "L0"), moves=(0, 1),
                      times_ms=(5.0, 5.0), winner=None if offender is None else 3 - offender,
                      reason=reason, detail=detail, seed=1, offender=offender,
                      stderr_tail=stderr_tail, extra={"startup_ms": startup_ms or [None, None]})


def test_start_up_is_judged_against_the_start_up_limit() -> None:
    def verdict(startup_s: float | None, error: str = "") -> tuple[tuple[str, ...], ...]:
        rep = _judge("bot.py", 0.5, startup_s, error, 20.0, [], "given", 1.0, 12)
        return rep.failures, rep.warnings, rep.notes

    failures, warnings, notes = verdict(0.4)
    assert not failures and not warnings
    assert "start-up (process start to 'ready'): 0.40 s (limit 20 s)" in notes
    failures, warnings, _ = verdict(6.0)  # over SLOW_STARTUP_S, under half the limit
    assert not failures and warnings == ("slow start-up: 6.0 s (limit 20 s)",)
    failures, _, _ = verdict(11.0)  # over half the limit
    assert len(failures) == 1 and "slow start-up: 11.0 s" in failures[0]
    assert "of the 20 s start-up limit" in failures[0]
    failures, _, _ = verdict(None, "no `ready` within 20 s")
    assert failures == ("start-up: the bot did not start (start-up limit 20 s): "
                        "no `ready` within 20 s",)


def test_a_check_game_reads_the_bots_side_of_its_record() -> None:
    small, big = course_game(4, 4, 4), course_game(50, 50, 10)
    rec = _record(startup_ms=[1234.0, 56.0])
    first, second = CheckGame(small, True, rec, 1.0), CheckGame(small, False, rec, 1.0)
    assert first.startup_s == pytest.approx(1.234) and second.startup_s == pytest.approx(0.056)
    assert CheckGame(small, True, _record(), 1.0).startup_s is None  # a reused process
    assert not first.capped and not first.failed_to_start
    capped = _record(detail=f"{MOVE_CAP_DETAIL} (12 moves)")
    assert CheckGame(big, True, capped, 1.0).capped
    assert "50x50x10, bot first: stopped at the move cap after 2 moves" in CheckGame(
        big, True, capped, 1.0).describe()
    crashed = _record(Reason.CRASH, "failed to start: no `ready` within 2 s", offender=2)
    assert CheckGame(small, False, crashed, 1.0).failed_to_start
    assert not CheckGame(small, True, crashed, 1.0).failed_to_start  # the opponent's
    moved = _record(Reason.CRASH, "selectColumn (move 2): the bot exited", offender=1)
    assert not CheckGame(small, True, moved, 1.0).failed_to_start


def test_an_exec_bot_is_checked_like_any_other(tmp_path: Path) -> None:
    script = tmp_path / "answers_garbage.sh"
    script.write_text('read h; echo "ready 1"\nwhile read line; do\n  case "$line" in\n'
                      '    newgame*) echo "ok Shell";;\n    go) echo "play banana";;\n'
                      '    quit) exit 0;;\n  esac\ndone\n')
    r = cxarena(tmp_path, "check-bot", f"exec:sh {script}", "--time", "0.5",
                "--board", "4", "4", "4")
    assert r.returncode == 1
    assert "illegal move in 3 game(s)" in r.stdout and "banana" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["no_such_bot_anywhere"], "unknown bot"),
    (["L1", "--time", "0"], "--time must be a positive"),
    (["L1", "--max-moves", "1"], "--max-moves must be at least 2"),
    (["L1", "--board", "4", "4", "9"], "not a valid board"),
    (["L1", "--board-set", "nonexistent"], "no board set 'nonexistent'"),
])
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    r = cxarena(ROOT, "check-bot", *args)
    assert r.returncode == 2
    assert message in r.stderr and r.stderr.startswith("cxarena check-bot: error:")


def test_check_boards_takes_the_smallest_and_largest_of_a_set(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "boards.yaml").write_text(
        "mine:\n  - [5, 5, 4]\n  - [3, 9, 3]\n  - [4, 6, 4]\n  - [9, 9, 5]\n  - [6, 7, 4]\n")
    monkeypatch.chdir(tmp_path)
    assert check_boards("mine") == [(4, 6, 4), (6, 7, 4), (9, 9, 5)]  # 24 < 25 < 27 cells


def test_default_time_limit_comes_from_the_tournament_config(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    config = tmp_path / "configs" / "tournament.yaml"
    config.parent.mkdir()
    config.write_text("timeout_s: 0.25\ngrace_s: 0.02\n")
    monkeypatch.setattr(conformance, "TOURNAMENT_CONFIG", config)
    settings = default_settings()
    assert settings["timeout_s"] == 0.25 and settings["grace_s"] == 0.02
    assert settings["source"] == f"from {config}"
    monkeypatch.setattr(conformance, "TOURNAMENT_CONFIG", tmp_path / "none.yaml")
    assert default_settings()["timeout_s"] == conformance.DEFAULT_TIMEOUT_S


def test_the_default_time_limit_is_the_projects_from_every_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_limits(ROOT / "configs" / "tournament.yaml").timeout_s
    (tmp_path / "configs").mkdir()  # a folder with configs of its own changes nothing either
    (tmp_path / "configs" / "tournament.yaml").write_text("timeout_s: 0.25\n")
    for folder in (ROOT, ROOT / "players", tmp_path, tmp_path / "configs"):
        monkeypatch.chdir(folder)
        assert default_settings()["timeout_s"] == project, folder


def test_check_bot_from_another_folder_plays_the_projects_limit(tmp_path: Path) -> None:
    root = project_copy(tmp_path / "clone")
    (root / "configs" / "tournament.yaml").write_text(
        "players: [L0, L1]\nboards: competition\ntimeout_s: 0.4\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd in (root, root / "players", elsewhere):
        r = subprocess.run([sys.executable, "-m", "arena", "check-bot", "L0", "--board", "4",
                            "4", "4"], cwd=cwd, env=dict(os.environ, PYTHONPATH=str(root)),
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "(time limit 0.4 s per move" in r.stdout, cwd
        assert f"time limit: 0.4 s (from {root / 'configs' / 'tournament.yaml'})" in r.stdout


def test_percentile_interpolates_like_numpy() -> None:
    values = [float(v) for v in range(1, 101)]
    for q in (0, 1, 50, 90, 99, 99.5, 100):
        assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))
    assert percentile([5.0], 99) == 5.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert math.isnan(percentile([], 99))


def test_name_problems() -> None:
    assert _name_problem(["Good Bot"]) is None
    assert _name_problem([]) is None
    assert "empty" in str(_name_problem(["  "]))
    assert "60 characters long" in str(_name_problem(["x" * 60]))
    assert "unprintable" in str(_name_problem(["a\x07b"]))
    assert "changes" in str(_name_problem(["a", "b"]))


def test_the_opponent_plays_like_L0() -> None:
    opp, ref = RandomOpponent(), L0()
    opp.seed = ref.seed = 1234
    opp.initPlayer(6, 7, 4, True, 1.0)
    ref.initPlayer(6, 7, 4, True, 1.0)
    B = CXBoard(6, 7, 4)
    for _ in range(30):  # a whole game's worth of moves, columns filling up
        col = opp.selectColumn(B)
        assert col == ref.selectColumn(B) and col in B.getAvailableColumns()
        if B.markColumn(col) is not CXGameState.OPEN:
            break
