"""`cxarena new-bot NAME --game` and `cxarena check-bot SPEC --game` for Othello and Morris (the
check of every game at full strength: tests/onboarding/test_check_games.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from arena.cli import main
from arena.games import make_game
from arena.games.local import play_local
from arena.onboarding.conformance import RandomOpponent, run_check
from arena.onboarding.scaffold import ScaffoldError, create_bot, game_bases

ZOO = Path(__file__).parent / "zoo"


@pytest.mark.parametrize("game", ["othello", "morris"])
def test_new_bot_for_a_game_plays_legal_games(tmp_path: Path, game: str) -> None:
    (tmp_path / "players").mkdir()
    made = create_bot(f"my{game}", tmp_path, game)
    text = made.bot_path.read_text()
    assert f"({'OthelloPlayer' if game == 'othello' else 'MorrisPlayer'})" in text
    assert "{" + "cls}" not in text and "{" + "game}" not in made.test_path.read_text()
    spec = importlib.util.spec_from_file_location(f"my{game}", made.bot_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bot = getattr(module, made.cls)()
    result = play_local(make_game(game), [bot, RandomOpponent()], timeout_s=1.0, seed=4)
    assert result.outcome is not None


def test_new_bot_refuses_an_unknown_game(tmp_path: Path) -> None:
    (tmp_path / "players").mkdir()
    with pytest.raises(ScaffoldError, match=f"new-bot knows {', '.join(game_bases())} "):
        create_bot("mine", tmp_path, "chess")
    assert not (tmp_path / "players" / "mine.py").exists()


def test_check_bot_for_a_game() -> None:
    good = run_check("players.othello.greedy", games=[make_game("othello", {"size": 6})],
                     timeout_s=1.0)
    assert good.passed and len(good.games) == 2 and "PASSED" in good.text()
    bad = run_check(f"exec:sh {ZOO / 'pass_bot.sh'}", games=[make_game("othello")],
                    timeout_s=1.0)
    assert not bad.passed and "pass is only allowed" in bad.text()
    assert main(["check-bot", "players.morris.random_bot", "--game", "morris",
                 "--param", "no_mill_moves=10", "--time", "1"]) == 0


def test_players_games_lists_the_game_bots_from_their_files(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["players", "--games"]) == 0
    out = capsys.readouterr().out
    for spec in ("players.othello.random_bot", "players.othello.greedy",
                 "players.othello.alphabeta", "players.morris.random_bot",
                 "players.morris.alphabeta", "players.mnk.random_bot", "players.mnk.alphabeta"):
        assert spec in out
    assert "7 bot(s) of other games" in out
