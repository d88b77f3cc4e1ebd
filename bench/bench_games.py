"""Other games' rules speed: Othello perft from the start (nodes per second, depths 1-6 and 7)
and random Othello and Morris playouts per second (legal moves + apply + outcome each ply)."""

from __future__ import annotations

import random
import time

from arena.games import make_game
from arena.games.othello import Othello, perft


def _perft_rows() -> list[str]:
    game = Othello()
    start = game.initial_state()
    rows = []
    for depth in (6, 7):
        t0 = time.perf_counter()
        n = perft(game, start, depth)
        dt = time.perf_counter() - t0
        rows.append(f"| Othello perft({depth}) | {n} | {dt * 1000:.0f} ms | {n / dt:,.0f} "
                    f"leaves/s |")
    return rows


def _playouts(name: str, seconds: float = 2.0) -> tuple[float, float]:
    game = make_game(name)
    rng = random.Random(1)
    games = plies = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.initial_state()
        while game.outcome(s) is None:
            s = game.apply(s, rng.choice(list(game.legal_moves(s))))
            plies += 1
        games += 1
    dt = time.perf_counter() - t0
    return games / dt, plies / dt


def main() -> None:
    print("## Other games (`python -m bench games`)\n")
    print("| what | count | time | rate |")
    print("|---|---|---|---|")
    for row in _perft_rows():
        print(row)
    for name in ("othello", "morris"):
        g, p = _playouts(name)
        print(f"| {name} random playouts | - | 2 s | {g:,.0f} games/s, {p:,.0f} plies/s |")
    print()
