"""The schedule plays the dearest games first by the game's own expected cost (`Game.cost`):
Connect-X's is its number of cells, so its order (and with it every stored game id and seed) is
what it always was; another game's grows with its board, so an Othello or m,n,k tournament of
several sizes starts with its biggest board instead of keeping the order the config lists."""

from __future__ import annotations

import hashlib

import pytest

from arena.games import make_game
from arena.limits import Limits
from arena.tournament.config import PlayerEntry, TournamentConfig
from arena.tournament.schedule import GameSpec, make_schedule
from tests.helpers import tournament_config


def _game_config(game: str, param_sets: list[dict[str, int]]) -> TournamentConfig:
    return TournamentConfig(path="t.yaml", name="t", limits=Limits(timeout_s=0.5), seed=3,
                            players=tuple(PlayerEntry(n, "L0") for n in ("a", "b", "c")),
                            boards=(), game=game,
                            param_sets=tuple(tuple(sorted(p.items())) for p in param_sets))


def _cost(g: GameSpec) -> float:
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
    """Morris plays every variant on its one board of 24 points: no variant is dearer."""
    param_sets = [{"pieces": 9}, {"pieces": 12}, {"pieces": 6}]
    games = make_schedule(_game_config("morris", param_sets))
    assert len({_cost(g) for g in games}) == 1
    seen = list(dict.fromkeys(dict(g.params)["pieces"] for g in games))
    assert seen == [9, 12, 6]
