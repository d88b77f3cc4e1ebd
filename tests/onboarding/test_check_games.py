"""`cxarena check-bot SPEC --game NAME`: one conformance check for every registered game, at the
Connect-X check's full strength (configured limits, --quick and --max-moves, load probes, every
problem in one run, one report)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GAMES
from tests.helpers import project_copy

ROOT = Path(__file__).resolve().parents[2]

#: per registered game: small parameters (quick games), a bot of players/ that plays it well
#: and how its bot API names the name call
GAME_CASES = {
    "connectx": (["rows=4", "cols=4", "k=4"], "L1", "playerName()"),
    "othello": (["size=4"], "players.othello.greedy", "player_name()"),
    "morris": (["pieces=3", "no_mill_moves=10"], "players.morris.random_bot", "player_name()"),
    "mnk": (["m=3", "n=3", "k=3"], "players.mnk.random_bot", "player_name()"),
}

#: a bot of any game in POSIX shell: it answers `hello` with the version it was offered
SHELL_BOT = """\
set -f
while IFS= read -r line; do
    set -- $line
    case "$1" in
        hello) echo "ready $2" ;;
        newgame) echo "ok {name}" ;;
        go) {go} ;;
        quit) exit 0 ;;
    esac
done
"""


def cxarena(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cxarena ARGS` in `cwd`, running this checkout's arena (not the one installed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def check(cwd: Path, game: str, spec: str, *args: str) -> subprocess.CompletedProcess[str]:
    params = GAME_CASES[game][0]
    flags = [f for p in params for f in ("--param", p)]
    return cxarena(cwd, "check-bot", spec, "--game", game, *flags, *args)


def shell_bot(tmp_path: Path, go: str, name: str = "Shell") -> str:
    script = tmp_path / "bot.sh"
    script.write_text(SHELL_BOT.format(go=go, name=name))
    return f"exec:sh {script}"


def test_every_registered_game_has_a_case() -> None:
    assert sorted(GAME_CASES) == sorted(GAMES)


@pytest.mark.parametrize("game", sorted(GAME_CASES))
def test_a_good_bot_passes(game: str) -> None:
    r = check(ROOT, game, GAME_CASES[game][1], "--time", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "bot first:" in out and "bot second:" in out
    assert "start-up (process start to 'ready'):" in out
    assert "of the limit, 99th percentile" in out
    assert f"{GAME_CASES[game][2]}: " in out
    assert out.rstrip().endswith("PASSED: the bot is ready for a tournament."), out


@pytest.mark.parametrize("game", sorted(GAME_CASES))
def test_an_illegal_move_is_reported(tmp_path: Path, game: str) -> None:
    r = check(tmp_path, game, shell_bot(tmp_path, 'echo "play banana"'), "--time", "0.5")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "illegal move in 3 game(s)" in r.stdout and "banana" in r.stdout, r.stdout
    assert "FAILED: 1 problem(s)" in r.stdout, r.stdout


@pytest.mark.parametrize("game", sorted(GAME_CASES))
def test_a_late_answer_is_reported(tmp_path: Path, game: str) -> None:
    r = check(tmp_path, game, shell_bot(tmp_path, 'sleep 1.5; echo "play banana"'),
              "--time", "0.3")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "timeout in 3 game(s)" in r.stdout and "over the 300 ms limit" in r.stdout, r.stdout
    assert "stop thinking at about 80% of the limit" in r.stdout  # a program's advice


@pytest.mark.parametrize("game", sorted(GAME_CASES))
def test_every_problem_is_reported_in_one_run(tmp_path: Path, game: str) -> None:
    r = check(tmp_path, game, shell_bot(tmp_path, 'echo "play banana"', name="N" * 41),
              "--time", "0.5")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "illegal move" in r.stdout, r.stdout
    assert f"{GAME_CASES[game][2]} is 41 characters long" in r.stdout, r.stdout
    assert "FAILED: 2 problem(s)" in r.stdout, r.stdout


@pytest.mark.parametrize("flags, cap", [(["--max-moves", "6"], 6), (["--quick"], 12)])
def test_quick_and_max_moves_cap_a_big_game_of_another_game(flags: list[str], cap: int) -> None:
    # the m,n,k-game on 11 x 11: 121 cells, a big game, as an 11 x 11 Connect-X board is
    r = cxarena(ROOT, "check-bot", "players.mnk.random_bot", "--game", "mnk",
                "--param", "m=11", "--param", "n=11", "--param", "k=5", "--time", "1", *flags)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(f"stopped at the move cap after {cap} moves") == 3, r.stdout
    assert f"stop after {cap} moves, as draws" in r.stdout, r.stdout


def test_another_game_takes_the_configured_limits(tmp_path: Path) -> None:
    root = project_copy(tmp_path)  # the project's own configs/tournament.yaml
    config = root / "configs" / "tournament.yaml"
    config.write_text("timeout_s: 0.75\ngrace_s: 0.05\n")
    r = check(root, "othello", "players.othello.greedy")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"time limit: 0.75 s (from {config})" in r.stdout, r.stdout
    assert "check-bot players.othello.greedy (time limit 0.75 s per move" in r.stdout


@pytest.mark.parametrize("spec, message", [
    ("players.othello.greedy:Nope", "has no class Nope"),
    ("players.L1", "no GamePlayer subclass for othello"),  # a Connect-X bot
])
def test_a_bad_class_for_another_game_is_one_plain_usage_error(spec: str, message: str) -> None:
    r = check(ROOT, "othello", spec, "--time", "0.5")
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert message in out, out
    assert "Traceback" not in out and "checking" not in out, out


@pytest.mark.parametrize("args, message", [
    (["L1", "--game", "chess"], "unknown game 'chess'"),
    (["L1", "--game", "othello", "--param", "size=5"], "--game othello"),
    (["L1", "--param", "size=6"], "--param needs --game"),
    (["L1", "--game", "othello", "--board", "4", "4", "4"], "--board"),
])
def test_usage_errors_of_game_flags_exit_2(args: list[str], message: str) -> None:
    r = cxarena(ROOT, "check-bot", *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert message in r.stderr and r.stderr.startswith("cxarena check-bot: error:"), r.stderr


def test_the_commands_pick_their_game_without_changing_args() -> None:
    from arena.commands.match import _pick, course_board, pick_game
    from arena.games import make_game

    params = ["rows=5"]
    game = pick_game("connectx", params, None)
    assert params == ["rows=5"] and course_board(game) == (5, 7, 4)
    assert course_board(make_game("othello")) is None
    args = argparse.Namespace(game="connectx", param=["rows=5"], board=None, openings=None,
                              plies=None, no_openings=False)
    before = dict(vars(args))
    assert _pick(args) == (None, (5, 7, 4)) and vars(args) == before
    args = argparse.Namespace(game="othello", param=["size=6"], board=None)
    assert _pick(args) == (make_game("othello", {"size": 6}), None)
    args = argparse.Namespace(game=None, param=[], board=[4, 5, 4])
    assert _pick(args) == (None, (4, 5, 4))


@pytest.mark.parametrize("command", ["check-bot", "match", "new-bot"])
def test_help_lists_the_registered_games(command: str) -> None:
    r = cxarena(ROOT, command, "--help")
    assert r.returncode == 0, r.stderr
    assert ", ".join(sorted(GAMES)) in " ".join(r.stdout.split()), r.stdout
