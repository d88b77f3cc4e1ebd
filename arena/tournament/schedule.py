"""The tournament schedule: which games to play, their ids and seeds, and in which order.

Round robin (the default): every unordered pair of players meets on every board, each player
once as the first player, `rounds` times. Gauntlet (`format: gauntlet`): only pairings that
include a challenger are played (challengers against everyone, challengers among themselves
once), so one new bot against n others costs O(n) games, not O(n^2).

The two games of a pairing on one board in one round (one with each player first) form a
**game pair** (`GameJob.pair_id`). With `openings:` in the config both start from the round's
opening on that board (the same opening for every pairing, so all players face the same
starts); without it, from the empty board.

A game's id names it (board, round, first and second player) and its seed is
derived from the tournament seed and that id with SHA-256, so it is the same in every run and
on every machine (Python's hash() is salted per process and would not be).

Games are ordered dearest first, by the game's own expected cost (`Game.cost`: Connect-X's is
its cells, M*N; Othello's grows with its size) so that a parallel run does not end waiting on one
slow game. The sort is stable: games of equal cost keep the order they are made in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from arena.competition.jobs import GameJob
from arena.competition.openings import Judge, OpeningStream, parse_suite, random_opening
from arena.competition.pairing import Gauntlet, RoundRobin, one_round
from arena.errors import UsageError
from arena.games import make_game
from arena.records import recorded_game, texts_of

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig

__all__ = ["SEED_BITS", "game_id", "game_seed", "make_schedule", "pairings"]

#: game seeds are in 0 .. 2**31-1: fine for random.Random, numpy and a Java int
SEED_BITS = 31


def game_id(M: int, N: int, K: int, round_: int, p1: str, p2: str,
            variant: str | None = None) -> str:
    """The readable id of a game, e.g. ``7x6x4-r1-L0-L1``; another game names its variant in
    place of the board (``othello-size8-r1-A-B``)."""
    board = f"{M}x{N}x{K}" if variant is None else variant
    return f"{board}-r{round_}-{p1}-{p2}"


def variant_name(game: str, params: tuple[tuple[str, int], ...]) -> str:
    """``othello-size8``: a game and its parameters as one word of a game id."""
    return "-".join([game] + [f"{k}{v}" for k, v in params])


def game_seed(tournament_seed: int, gid: str) -> int:
    """A stable seed for game `gid` of a tournament seeded with `tournament_seed`."""
    digest = hashlib.sha256(f"cxarena|{tournament_seed}|{gid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << SEED_BITS) - 1)


def pairings(config: TournamentConfig) -> list[tuple[Any, Any]]:
    """The pairs of players that meet in one round, in the order the schedule makes their games
    (round robin: all; gauntlet: those with a challenger), from the competition core's pairing
    policies (`arena.competition.pairing`); the config's player names are unique."""
    by_name = {p.name: p for p in config.players}
    file = config.file
    policy = (Gauntlet(tuple(file.challengers or ())) if file.format == "gauntlet"
              else RoundRobin())
    return [(by_name[a], by_name[b]) for a, b in one_round(policy, tuple(by_name))]


def _openings(config: TournamentConfig,
              judge: Judge | None) -> Callable[[tuple[int, int, int], int], tuple[int, ...]]:
    """round -> opening for each board (from the config's `openings:`)."""
    oc = config.openings
    if oc is None or not config.boards:  # a game of parameter sets: `_game_opening`
        return lambda board, r: ()

    if oc.file is not None:
        text = "\n".join(oc.lines)
        suites = {b: parse_suite(text, *b, where=oc.file) for b in config.boards}
        return lambda board, r: suites[board].take(r)[r - 1].moves
    if judge is None:
        raise UsageError(f"{config.path}: openings: generated openings need a judge (the "
                         f"`cxarena` commands pass the project's search)")
    streams = {b: OpeningStream(*b, judge, plies=oc.plies, seed=oc.seed) for b in config.boards}
    return lambda board, r: streams[board].get(r - 1).moves


def _game_opening(config: TournamentConfig, params: tuple[tuple[str, int], ...], vname: str,
                  r: int, judge: Judge | None) -> tuple[str, ...]:
    """Another game's opening for one round of one parameter set (the same for every pairing:
    random legal plies from the config's openings seed that `judge` accepts,
    `arena.competition.openings`)."""
    oc = config.openings
    if oc is None or oc.plies == 0:
        return ()
    game = make_game(config.game, dict(params))
    return random_opening(game, oc.plies, game_seed(oc.seed, f"{vname}-r{r}-opening"), judge)


def make_schedule(config: TournamentConfig, judge: Judge | None = None,
                  game_judge: Judge | None = None) -> list[GameJob]:
    """Every game of the tournament, dearest first (by the game's own cost); `judge` judges
    generated openings (`arena.competition.openings`), `game_judge` another game's (None: the
    rules' check only). Raises UsageError on an id clash."""
    games: list[GameJob] = []
    seen: dict[str, GameJob] = {}
    opening_for = _openings(config, judge)
    # a config has boards (a game played on them) or parameter sets (board 0x0x0, its
    # openings `_game_opening`'s), never both
    variants: list[tuple[tuple[int, int, int], tuple[tuple[str, int], ...] | None]] = (
        [(b, None) for b in config.boards] + [((0, 0, 0), p) for p in config.param_sets])
    rules = {v: recorded_game(config.game, *v[0], v[1] or ()) for v in variants}
    cost = {v: g.cost() for v, g in rules.items()}
    costs: list[float] = []  # of each game in `games`
    for a, b in pairings(config):
        for (M, N, K), params in variants:
            vname = None if params is None else variant_name(config.game, params)
            for r in range(1, config.file.rounds + 1):
                opening = opening_for((M, N, K), r) if params is None else ()
                texts = () if params is None or vname is None else _game_opening(
                    config, params, vname, r, game_judge)
                pair = game_id(M, N, K, r, a.name, b.name, vname)
                game = rules[(M, N, K), params]
                for first, second in ((a, b), (b, a)):
                    gid = game_id(M, N, K, r, first.name, second.name, vname)
                    g = GameJob(gid, game, first.name, second.name, first.spec, second.spec,
                                game_seed(config.file.seed, gid), dict(first.options),
                                dict(second.options), texts_of(opening, texts),
                                round=r, pair_id=pair)
                    if gid in seen:  # only possible with names containing '-'
                        raise UsageError(
                            f"{config.path}: players: names {first.name!r} and "
                            f"{second.name!r} make the same game id as another pair "
                            f"({gid}); rename one of them")
                    seen[gid] = g
                    games.append(g)
                    costs.append(cost[(M, N, K), params])
    # stable sort: among games of one cost the pairs stay interleaved in a fixed order
    order = sorted(range(len(games)), key=lambda i: -costs[i])
    return [games[i] for i in order]

