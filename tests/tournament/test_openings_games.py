"""One opening machinery for every game (`arena.competition.openings` over the `Game` interface)
and one judge entry point group keyed by game name (`arena.commands.opening_judge`)."""

from __future__ import annotations

from importlib.metadata import entry_points
from types import SimpleNamespace
from typing import Any

import pytest

from arena.commands import JUDGE_GROUP, opening_judge
from arena.competition.openings import GameOpenings, format_suite, make_suite
from arena.errors import UsageError
from arena.games import GAMES, make_game
from arena.games.base import Game
from players._games.judge import SearchJudge

#: small enough for the judges to be quick
SMALL = {"connectx": {"rows": 5, "cols": 6, "k": 4}, "othello": {"size": 6},
         "mnk": {"m": 5, "n": 5, "k": 4}}


def _accept_all(game: Game, texts: tuple[str, ...]) -> SimpleNamespace:
    return SimpleNamespace(lost_side=None, value=None)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_gets_judged_openings_through_the_one_path(name: str) -> None:
    game = make_game(name, SMALL.get(name, {}))
    judge = opening_judge(name)
    suite = GameOpenings(game, judge, plies=3, seed=1).suite(4)
    assert suite.distinct == 4 and suite.game == game
    for opening in suite.openings:
        assert len(opening.texts) == 3
        end = game.play_texts(opening.texts)  # legal moves in the game's notation
        assert game.fair_opening(opening.texts, end)
        assert judge(game, opening.texts).lost_side is None
    again = GameOpenings(make_game(name, SMALL.get(name, {})), judge, plies=3, seed=1)
    assert again.suite(4).openings == suite.openings  # the same seed, the same openings
    other = GameOpenings(game, judge, plies=3, seed=2).suite(4)
    assert other.openings != suite.openings
    text = format_suite(suite)
    assert text.splitlines()[1] == " ".join(suite.openings[0].texts)


def test_every_registered_game_has_one_judge_and_search_is_connectx() -> None:
    names = {ep.name for ep in entry_points(group=JUDGE_GROUP)}
    assert names == set(GAMES)
    assert not list(entry_points(group="cxarena.game_opening_judges"))  # the second group
    assert opening_judge("search") is opening_judge("connectx") is opening_judge()
    with pytest.raises(UsageError, match="no opening judge for 'nope'"):
        opening_judge("nope")


def test_connectx_openings_are_those_made_before_the_one_path() -> None:
    """Made with the Connect-X-only module of main (commit 4d79059): the same seeds make the
    same openings, so stored tournaments resume."""
    s = make_suite(6, 7, 4, 8, _accept_all, plies=3, seed=5)
    assert [o.moves for o in s.openings] == [
        (2, 2, 1), (1, 4, 3), (2, 4, 0), (2, 4, 6), (3, 6, 1), (3, 2, 3), (0, 4, 4), (1, 2, 4)]
    wide = make_suite(10, 12, 5, 4, _accept_all, plies=4, seed=2)  # near the centre only
    assert [o.moves for o in wide.openings] == [
        (3, 8, 7, 8), (6, 4, 3, 5), (6, 3, 3, 8), (5, 6, 3, 8)]
    over = make_suite(4, 4, 3, 10, _accept_all, plies=5, seed=3)  # finished ones rejected
    assert over.rejected == 4 and [o.moves for o in over.openings[:3]] == [
        (2, 0, 0, 1, 1), (0, 2, 2, 2, 2), (3, 1, 1, 0, 1)]
    real = make_suite(6, 7, 4, 3, opening_judge(), plies=2, seed=1)
    assert format_suite(real) == ("# cxarena openings: board 6x7 K=4, 2 plies, seed 1\n"
                                  "6 3\n4 6\n5 1\n")


class _Bot:
    """A bot whose search scores every position `score` for the side to move."""

    score = 0

    def init_player(self, game: Game, first: bool, timeout_s: float) -> None:
        self.search = SimpleNamespace(reset=lambda deadline: None,
                                      negamax=lambda *a: self.score)


@pytest.mark.parametrize("score, plies, lost", [
    (10, 0, None), (500, 0, 2), (-500, 0, 1), (500, 1, 1), (-500, 1, 2)])
def test_search_judge_names_the_lost_side(score: int, plies: int, lost: int | None) -> None:
    game = make_game("mnk", {"m": 5, "n": 5, "k": 4})
    bot: Any = type("B", (_Bot,), {"score": score})
    judge = SearchJudge(bot, depth=2, margin=lambda b: 100)
    texts = ("c3",)[:plies]  # plies 1: the second player is to move
    assert judge(game, texts).lost_side == lost


def test_search_judge_rejects_a_finished_game_for_its_loser() -> None:
    game = make_game("mnk", {"m": 3, "n": 3, "k": 3})
    judge = SearchJudge(_Bot, depth=2, margin=100)
    assert judge(game, ("a1", "b1", "b2", "c2", "c3")).lost_side == 2
    assert judge(game, ("a1", "a2", "b1", "b2", "c3", "c2")).lost_side == 1
