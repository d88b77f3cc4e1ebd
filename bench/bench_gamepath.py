"""One game path (issue 31): the referee's move loop on Connect-X, 6x7x4 and 100x100x30, as
games per second and the median round trip of a move (L0 against L0, one referee, processes
reused, no sandbox). It uses only `Referee.play`, so the same script measures a tree from
before the change: run it with PYTHONPATH pointing at each tree, alternately, for a before and
after comparison in one run (docs/benchmarks.md gives the commands).
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.referee.referee import MatchSettings, Referee, course_game

BOARDS = ((6, 7, 4, 300), (100, 100, 30, 4))
#: whether bots get cgroups (where the tree has them): the comparison of the loop turns them
#: off, since a tree from before has none (their own cost: bench cgroups)
CGROUPS = bool(int(os.environ.get("CXARENA_BENCH_CGROUPS", "0")))


def measure(M: int, N: int, K: int, games: int) -> dict[str, float]:
    l0 = parse_spec("L0")
    settings: dict[str, Any] = {"isolation": "none", "overload_replays": 0}
    if "cgroups" in MatchSettings.__dataclass_fields__:  # the loop alone: no cgroup counters
        settings["cgroups"] = CGROUPS
    with Referee(MatchSettings(limits=Limits(timeout_s=5.0), **settings)) as referee:
        referee.play(l0, l0, course_game(M, N, K), seed=0)  # starts both processes
        times: list[float] = []
        moves = 0
        t0 = time.perf_counter()
        for i in range(games):
            rec = referee.play(l0, l0, course_game(M, N, K), seed=1 + i)
            times.extend(rec.times_ms)
            moves += len(rec.times_ms)
        wall_s = time.perf_counter() - t0
    return {"games_per_s": games / wall_s, "median_us": 1000 * statistics.median(times),
            "loop_us": 1e6 * wall_s / moves}


def main() -> None:
    print("\n## One game path: the referee loop on Connect-X\n")
    print("| board | games | games/s | median move round trip | wall time per move |")
    print("|---|---|---|---|---|")
    for M, N, K, games in BOARDS:
        r = measure(M, N, K, games)
        print(f"| {M}x{N}x{K} | {games} | {r['games_per_s']:.1f} | {r['median_us']:.1f} µs | "
              f"{r['loop_us']:.1f} µs |")


if __name__ == "__main__":
    main()
