"""The scaling estimate of docs/scaling.md: the course's competition on 1, 10 and 100 machines.

    .venv/bin/python -m bench dask     # measures the inputs, then prints this report

The competition: every pair of bots on the 35 boards of `configs/boards.yaml: competition`, both
colours, 10 s per move. A game's thinking time is modelled as (moves) x (seconds per move), with
moves = half the board's cells; two per-move figures:
- "typical": bots that use a small part of their limit, calibrated so that a game thinks 20 s on
  average over the 35 boards (the issue's figure);
- "full limit": every move takes the whole 10 s (the worst case a schedule must allow for).
Each game also costs the measured harness overhead. The games are placed longest first on
the machines' workers (8 single-threaded workers per machine), each on the worker that frees up
first (list scheduling, as Dask does with the coordinator's ordered window); the wall time is
when the last game ends. Pure arithmetic on a model: no bot is run here.
"""

from __future__ import annotations

import heapq
from itertools import groupby
from pathlib import Path

import yaml

CORES_PER_MACHINE = 8
MOVE_LIMIT_S = 10.0
TYPICAL_GAME_S = 20.0
MACHINES = (1, 10, 100)
BOTS = (20, 50, 200)


def boards() -> list[tuple[int, int, int]]:
    path = Path(__file__).resolve().parents[1] / "configs" / "boards.yaml"
    return [(int(m), int(n), int(k)) for m, n, k in yaml.safe_load(path.read_text())["competition"]]


def moves(board: tuple[int, int, int]) -> float:
    return board[0] * board[1] / 2


def per_move_s(model: str) -> float:
    if model == "full limit":
        return MOVE_LIMIT_S
    bs = boards()
    return TYPICAL_GAME_S / (sum(moves(b) for b in bs) / len(bs))


def makespan_s(durations: list[tuple[float, int]], workers: int) -> float:
    """List scheduling, longest first: (duration, count) groups on `workers` workers."""
    free = [0.0] * workers
    for d, count in sorted(durations, reverse=True):
        for _ in range(count):
            t = heapq.heappop(free)
            heapq.heappush(free, t + d)
    return max(free)


def simulate(bots: int, machines: int, model: str, overhead_s: float) -> dict[str, float]:
    u = per_move_s(model)
    pairs = bots * (bots - 1)  # ordered pairs: both colours
    groups = [(moves(b) * u + overhead_s, pairs) for b in boards()]
    merged = [(d, sum(c for _, c in g)) for d, g in groupby(sorted(groups), key=lambda x: x[0])]
    games = sum(c for _, c in merged)
    thinking_h = sum(moves(b) * u * pairs for b in boards()) / 3600
    wall = makespan_s(merged, machines * CORES_PER_MACHINE)
    return {"games": games, "thinking_h": thinking_h, "wall_s": wall,
            "shortest_s": min(d for d, _ in merged), "longest_s": max(d for d, _ in merged)}


def _fmt_time(s: float) -> str:
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 72 * 3600:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def report(overhead_s: float, startup_s: float, bot_rss_mib: float, sqlite_per_s: float,
           scheduler_per_s: float) -> str:
    out = ["### Scaling estimate (bench/scaling.py, inputs measured above)", "",
           f"Per game: thinking (model) + {1000 * overhead_s:.0f} ms measured harness and Dask "
           f"overhead; {CORES_PER_MACHINE} single-threaded workers per machine; longest games "
           "first.", ""]
    for model in ("typical", "full limit"):
        u = per_move_s(model)
        out.append(f"Model \"{model}\": {u:.2f} s per move, M*N/2 moves per game.\n")
        out.append("| Bots | Games | Thinking | 1 machine | 10 machines | 100 machines | "
                   "Peak results/s on 100 machines |")
        out.append("|---|---|---|---|---|---|---|")
        for n in BOTS:
            sims = [simulate(n, m, model, overhead_s) for m in MACHINES]
            peak = 100 * CORES_PER_MACHINE / sims[0]["shortest_s"]
            out.append(f"| {n} | {sims[0]['games']:,} | {sims[0]['thinking_h']:,.0f} h | "
                       + " | ".join(_fmt_time(s["wall_s"]) for s in sims)
                       + f" | {peak:.0f} |")
        out.append("")
    out.append(f"Limits: the coordinator commits {sqlite_per_s:.0f} games/s to SQLite and the "
               f"scheduler does {scheduler_per_s:.0f} trivial tasks/s (both measured); a worker "
               f"starts each bot once ({1000 * startup_s:.0f} ms) and keeps it: with n bots a "
               f"machine holds up to {CORES_PER_MACHINE} x n idle bot processes of about "
               f"{bot_rss_mib:.0f} MiB each ("
               + ", ".join(f"{n} bots: {CORES_PER_MACHINE * n * bot_rss_mib / 1024:.0f} GiB"
                           for n in BOTS) + ").")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(report(overhead_s=0.02, startup_s=0.3, bot_rss_mib=40, sqlite_per_s=1000,
                 scheduler_per_s=1000))
