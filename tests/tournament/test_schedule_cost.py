"""The schedule plays the dearest games first by the game's own expected cost (`Game.cost`):
Connect-X's is its number of cells, so its order (and with it every stored game id and seed) is
what it always was; another game's grows with its board, so an Othello or m,n,k tournament of
several sizes starts with its biggest board instead of keeping the order the config lists, and
Morris's, whose variants share one board, with its longest variant."""

from __future__ import annotations

import hashlib

import pytest

from arena.competition.jobs import GameJob
from arena.competition.settings import PlaySettings
from arena.games import make_game
from arena.tournament.config import PlayerEntry, TournamentConfig, built_config
from arena.tournament.schedule import make_schedule
from tests.helpers import tournament_config


def _game_config(game: str, param_sets: list[dict[str, int]]) -> TournamentConfig:
    play = PlaySettings(timeout_s=0.5, game=game, params=param_sets)
    return built_config("t.yaml", (PlayerEntry(n, "L0") for n in ("a", "b", "c")), play,
                        name="t", seed=3)


def _cost(g: GameJob) -> float:
    return make_game(g.game, dict(g.params)).cost()


def test_connectx_order_ids_and_seeds_are_what_they_were() -> None:
    """Pinned from the schedule before the order came from `Game.cost` (boards of equal size,
    7x6 and 6x7, keep the order the config lists)."""
    games = make_schedule(tournament_config(
        ["a", "b", "c"], rounds=2, boards=((4, 4, 4), (7, 6, 4), (6, 7, 4), (20, 20, 10),
                                           (5, 5, 4))))
    assert [g.game_id for g in games[10:16]] == [
        "20x20x10-r2-b-c", "20x20x10-r2-c-b", "7x6x4-r1-a-b", "7x6x4-r1-b-a", "7x6x4-r2-a-b",
        "7x6x4-r2-b-a"]
    order = "\n".join(f"{g.game_id} {g.seed} {g.pair_id}" for g in games)
    assert hashlib.sha256(order.encode()).hexdigest() == (
        "fe9c66049b1906cc68c9e7d06fdc31edffc311b3c2affe7125600e40223f5dc0")


@pytest.mark.parametrize(("game", "param_sets", "first"), [
    ("othello", [{"size": 6}, {"size": 8}, {"size": 10}], {"size": 10}),
    ("mnk", [{"m": 3, "n": 3, "k": 3}, {"m": 7, "n": 7, "k": 5}, {"m": 5, "n": 5, "k": 4}],
     {"m": 7, "n": 7, "k": 5}),
])
def test_another_game_starts_with_its_costliest_games(game: str, param_sets: list[dict[str, int]],
                                                      first: dict[str, int]) -> None:
    games = make_schedule(_game_config(game, param_sets))
    assert len(games) == 3 * len(param_sets) * 2
    costs = [_cost(g) for g in games]
    assert costs == sorted(costs, reverse=True)
    assert len(set(costs)) == len(param_sets)  # each size its own cost
    assert all(dict(g.params) == first for g in games[:6])  # every pairing on the biggest


def test_othello_costs_more_on_a_bigger_board() -> None:
    sizes = [make_game("othello", {"size": n}).cost() for n in (4, 6, 8, 10, 26)]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)


def test_variants_of_equal_cost_keep_the_order_the_config_lists() -> None:
    """3 x 4 and 4 x 3 boards have as many cells: neither is dearer, the config's order stays."""
    param_sets = [{"m": 3, "n": 4, "k": 3}, {"m": 5, "n": 5, "k": 4}, {"m": 4, "n": 3, "k": 3}]
    games = make_schedule(_game_config("mnk", param_sets))
    seen = list(dict.fromkeys((dict(g.params)["m"], dict(g.params)["n"]) for g in games))
    assert seen == [(5, 5), (3, 4), (4, 3)]


def _morris(pieces: int, flying: int = 1, no_mill_moves: int = 50) -> dict[str, int]:
    return {"pieces": pieces, "flying": flying, "no_mill_moves": no_mill_moves}


def test_a_morris_schedule_starts_with_its_dearest_variant() -> None:
    """Morris plays every variant on its one board of 24 points, so the board says nothing of a
    variant's length: more pieces mean more moves to place and more to take, and flying keeps
    a side down to three pieces alive longer."""
    param_sets = [_morris(6), _morris(9, flying=0), _morris(12), _morris(9), _morris(3)]
    games = make_schedule(_game_config("morris", param_sets))
    seen = [dict(p) for p in dict.fromkeys(g.params for g in games)]
    assert seen == [_morris(12), _morris(9), _morris(9, flying=0), _morris(6), _morris(3)]
    costs = [_cost(g) for g in games]
    assert costs == sorted(costs, reverse=True) and len(set(costs)) == len(param_sets)


def test_a_morris_draw_rule_shortens_its_variant() -> None:
    """A game ends after `no_mill_moves` moves without a mill: a short rule, a short game."""
    short, usual = (make_game("morris", _morris(9, no_mill_moves=n)).cost() for n in (10, 50))
    assert short < usual
