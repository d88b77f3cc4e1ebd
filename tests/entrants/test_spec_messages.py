"""A bot SPEC that names the wrong thing gets a message naming the right one (issue 42, point
7): a near name of a bot in players/, the classes a file has and why none of them can play."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.entrants.loading import find_player_class
from arena.entrants.specs import SpecError, parse_spec
from arena.player import CXPlayer

BOT = '''from arena.player import CXPlayer


class Helper:
    pass


class MyBot(CXPlayer):  # no playerName: abstract
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return 0
'''


@pytest.mark.parametrize("typed, meant", [("AlphaBeta", "alphabeta"), ("MiniMax", "minimax"),
                                          ("montecarl", "montecarlo"), ("Mcts", "mcts")])
def test_an_unknown_bot_near_a_known_one_is_named(typed: str, meant: str) -> None:
    with pytest.raises(SpecError, match=f"did you mean {meant}\\?"):
        parse_spec(typed)


def test_an_unknown_bot_far_from_any_gets_no_guess() -> None:
    with pytest.raises(SpecError) as e:
        parse_spec("zzqx_nothing_like_it")
    assert "did you mean" not in str(e.value)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "ab_student.py"
    path.write_text(BOT)
    return path


def test_a_file_without_a_playable_class_lists_its_classes(bot_file: Path) -> None:
    with pytest.raises(SpecError) as e:
        find_player_class(parse_spec(str(bot_file)), CXPlayer)
    message = str(e.value)
    assert "defines no CXPlayer subclass" in message
    assert "Helper (not a CXPlayer subclass)" in message
    assert "MyBot (does not define playerName)" in message


def test_a_missing_class_lists_the_classes_there(bot_file: Path) -> None:
    with pytest.raises(SpecError) as e:
        find_player_class(parse_spec(f"{bot_file}:Other"), CXPlayer)
    assert "has no class Other; its classes: Helper" in str(e.value)
