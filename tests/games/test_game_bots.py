"""The Othello and Morris bots: legal answers, reproducible randomness, and strength where it is
cheap to show (a short time limit keeps these tests to seconds)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena.games import make_game
from arena.games.local import play_local
from arena.games.morris import Morris
from arena.games.othello import Othello, OthelloState
from players.morris.alphabeta import MorrisAlphaBeta
from players.morris.random_bot import MorrisRandom
from players.othello.alphabeta import OthelloAlphaBeta, weight_table
from players.othello.greedy import OthelloGreedy
from players.othello.random_bot import OthelloRandom


def test_random_bots_replay_with_the_same_seed() -> None:
    for game, cls in ((make_game("othello", {"size": 6}), OthelloRandom),
                      (make_game("morris", {"no_mill_moves": 30}), MorrisRandom)):
        a = play_local(game, [cls(), cls()], seed=11)
        b = play_local(game, [cls(), cls()], seed=11)
        assert a == b and len(a.moves) > 10


def test_greedy_flips_the_most() -> None:
    game = Othello()
    bot = OthelloGreedy()
    bot.init_player(game, True, 1.0)
    s = game.play_texts(["d3", "c3", "c4", "e3"])
    best = bot.select_move(s)
    assert game.flips(s, best).bit_count() == max(
        game.flips(s, m).bit_count() for m in game.legal_moves(s))


def test_othello_alphabeta_takes_a_corner_and_beats_random() -> None:
    game = Othello()
    bot = OthelloAlphaBeta()
    bot.init_player(game, True, 0.1)
    # black may take a1 (flipping b2) or play elsewhere
    s = OthelloState(black=1 << 18, white=(1 << 9) | (1 << 27), side=0)
    assert game.move_to_text(s, bot.select_move(s)) == "a1"
    assert weight_table(8)[0] == 100 and weight_table(8)[9] == -50
    # to a fixed depth with time to spare: the game is the same on a loaded machine (at 0.1 s
    # a move, a machine at load 10 cut its searches short and the game was drawn 32-32)
    strong = OthelloAlphaBeta()
    strong.max_depth = 3
    result = play_local(game, [OthelloRandom(), strong], timeout_s=60.0, seed=5)
    assert result.outcome.winner == 1


def test_morris_alphabeta_closes_a_mill_and_beats_random() -> None:
    game = Morris()
    # to a fixed depth with time to spare, as the Othello test above: at 0.1 s a move a
    # machine at load 10 left the search no time to store an entry (bench busytest)
    bot = MorrisAlphaBeta()
    bot.max_depth = 2
    bot.init_player(game, True, 60.0)
    # black has three pieces: the mill g4-g7 wins at once
    s = game.position(["a7", "d7", "g4", "a1"], ["b6", "f2", "d1"], side=0)
    assert game.move_to_text(s, bot.select_move(s)).startswith("g4-g7x")
    bot.select_move(game.initial_state())
    assert len(bot.table) > 0 and bot.depth_reached == 2
    strong = MorrisAlphaBeta()
    strong.max_depth = 2
    result = play_local(game, [strong, MorrisRandom()], timeout_s=60.0, seed=2)
    assert result.outcome.winner == 0


def test_opening_judges_keep_some_and_refuse_some() -> None:
    import random

    from arena.commands import opening_judge
    from arena.competition.openings import random_opening
    from arena.errors import UsageError
    from players.morris.alphabeta import judge_opening as judge_morris
    from players.othello.alphabeta import judge_opening as judge_othello

    assert opening_judge("othello") is judge_othello  # the installed entry point
    for name, judge, plies in (("othello", judge_othello, 8), ("morris", judge_morris, 10)):
        game = make_game(name)
        rng = random.Random(1)
        verdicts = []
        for _ in range(30):
            state, texts = game.initial_state(), []
            for _ in range(plies):
                move = rng.choice(list(game.legal_moves(state)))
                texts.append(game.move_to_text(state, move))
                state = game.apply(state, move)
            if game.outcome(state) is None:
                verdicts.append(judge(game, texts).lost_side is None)
        assert any(verdicts) and not all(verdicts), (name, verdicts)
        kept = random_opening(game, 4, 7, judge)
        assert len(kept) == 4 and judge(game, kept).lost_side is None
        with pytest.raises(UsageError, match="no playable 4-ply opening"):  # none acceptable
            random_opening(game, 4, 7, lambda g, t: SimpleNamespace(lost_side=1, value=None))


def test_the_alpha_beta_game_bots_move_through_the_shared_driver() -> None:
    """Othello's and Morris's alpha-beta bots plug their evaluation into the shared driver and
    take their moves from it: one `select_move`, to the bot's `max_depth` option."""
    from players._games.search import SearchBot

    for cls in (OthelloAlphaBeta, MorrisAlphaBeta):
        assert issubclass(cls, SearchBot) and cls.select_move is SearchBot.select_move
    bot = MorrisAlphaBeta()
    bot.max_depth = 1
    bot.init_player(Morris(), True, 0.5)
    bot.select_move(Morris().initial_state())
    assert bot.depth_reached == 1
