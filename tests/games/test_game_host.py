"""The Python host speaking protocol v2 for a GamePlayer bot (a real subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants.loading import load_game_player_class
from arena.entrants.specs import SpecError


def _session(spec: str, lines: list[str]) -> tuple[list[str], int]:
    proc = subprocess.run([sys.executable, "-m", "arena.entrants.host", spec],
                          input="".join(f"{ln}\n" for ln in lines), capture_output=True,
                          text=True, timeout=60)
    return proc.stdout.splitlines(), proc.returncode


def test_othello_session() -> None:
    out, rc = _session("players.othello.greedy", [
        "hello 2", "newgame othello size=8 2 1 7 {}", "opponent d3", "go",
        "newgame othello size=6 1 1 8 {}", "go", "quit"])
    assert rc == 0
    assert out[:2] == ["ready 2", "ok OthelloGreedy"]
    assert out[2] in ("play c3", "play e3", "play c5")  # white's answers to d3 flip one
    assert out[3] == "ok OthelloGreedy" and out[4].startswith("play ")


def test_bad_parameters_and_moves_are_errors() -> None:
    out, rc = _session("players.othello.random_bot",
                       ["hello 2", "newgame othello size=7 1 1 7 {}"])
    assert rc == 1 and out[-1].startswith("error cannot play othello")
    out, rc = _session("players.othello.random_bot",
                       ["hello 2", "newgame othello - 2 1 7 {}", "opponent a1", "go"])
    assert rc == 1 and "IllegalMoveError" in out[-1]


def test_a_bot_for_another_game_is_refused(tmp_path: Path) -> None:
    out, rc = _session("players.morris.random_bot",
                       ["hello 2", "newgame othello - 1 1 7 {}"])
    assert rc == 1 and "no a GamePlayer" not in out[-1] and "for othello" in out[-1]
    with pytest.raises(SpecError, match="for morris"):
        load_game_player_class("players.othello.greedy", "morris")
    bot = tmp_path / "two.py"
    bot.write_text("from players.othello.greedy import OthelloGreedy as A\n"
                   "from arena.games.player import OthelloPlayer\n"
                   "class B(OthelloPlayer):\n"
                   "    def init_player(self, g, f, t): pass\n"
                   "    def select_move(self, s): return 'pass'\n"
                   "    def player_name(self): return 'B'\n")
    assert load_game_player_class(str(bot), "othello").__name__ == "B"  # A is imported
