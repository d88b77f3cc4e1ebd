"""Tournament scheduling efficiency: wall time of a run vs the ideal (thinking time / workers).

Three test bots that sleep 90% of the per-move limit on every move (and answer a seeded random
column) play a round robin on a few small boards with the real referee and the LocalExecutor.
The ideal wall time is the total time the referee measured the bots thinking (every move and
initPlayer) divided by the number of workers; the rest is harness overhead: starting bot
processes, the per-move round trip, handing out games, storing results, and the tail at the
end when fewer games than workers are left.

    python -m bench tournament
"""

from __future__ import annotations

import os
import tempfile
import textwrap
import time
from pathlib import Path

SLEEPER = textwrap.dedent("""\
    import random
    import time

    from arena.player import CXPlayer


    class Sleeper(CXPlayer):
        \"\"\"Uses 90% of its time limit on every move, then plays a seeded random column.\"\"\"

        def initPlayer(self, M, N, K, first, timeout_in_secs):
            self.rng = random.Random(self.seed)
            self.think_s = 0.9 * timeout_in_secs

        def selectColumn(self, B):
            time.sleep(self.think_s)
            return self.rng.choice(B.getAvailableColumns())

        def playerName(self):
            return "sleeper"
    """)

TIMEOUT_S = 0.1
BOARDS = [[6, 7, 4], [6, 5, 4], [5, 4, 4], [4, 4, 4]]
ROUNDS = 3  # long enough (~40 s) that starting the bot processes is not most of the overhead


def run_once(workers: int | None = None) -> dict[str, float]:
    from arena.results.store import ResultStore
    from arena.tournament.config import load_config
    from arena.tournament.run import run_tournament

    with tempfile.TemporaryDirectory(prefix="cxarena-bench-") as tmp:
        d = Path(tmp)
        (d / "sleeper.py").write_text(SLEEPER)
        spec = str(d / "sleeper.py")
        players = ", ".join(f"{{spec: '{spec}', name: s{i}}}" for i in range(1, 4))
        cfg_path = d / "bench.yaml"
        cfg_path.write_text(
            f"name: bench\nplayers: [{players}]\nboards: {BOARDS}\ntimeout_s: {TIMEOUT_S}\n"
            f"grace_s: 0.05\nseed: 3\nrounds: {ROUNDS}\n"
            + (f"workers: {workers}\n" if workers else ""))
        config = load_config(cfg_path)
        start = time.perf_counter()
        with open(os.devnull, "w") as devnull:
            outcome = run_tournament(config, d / "results", quiet=True, out=devnull)
        wall_s = time.perf_counter() - start
        with ResultStore(d / "results" / "games.sqlite", create=False) as store:
            records = [g.record for g in store.games()]
    think_s = sum(sum(r.times_ms) + sum(r.init_ms) for r in records) / 1000.0
    moves = sum(r.n_moves for r in records)
    faults = sum(r.is_fault for r in records)
    ideal_s = think_s / config.workers
    return {"workers": config.workers, "games": len(records), "moves": moves,
            "faults": faults, "think_s": think_s, "ideal_s": ideal_s, "wall_s": wall_s,
            "overhead_pct": 100.0 * (wall_s / ideal_s - 1.0),
            "overhead_ms_per_move": 1000.0 * (wall_s * config.workers - think_s) / moves,
            "complete": float(outcome.complete)}


def main() -> None:
    from tabulate import tabulate

    r = run_once()
    print("## Tournament scheduling (bench_tournament)\n")
    print(f"3 bots sleeping 90% of a {TIMEOUT_S} s limit per move, boards {BOARDS}, each pair "
          f"{ROUNDS} times per board and colour, default worker count (one per core). "
          f"Overhead = (measured wall x workers - thinking) / moves: mostly starting the bot "
          f"processes (once per worker) and the tail of the last games.\n")
    print(tabulate([[int(r["workers"]), int(r["games"]), int(r["moves"]), int(r["faults"]),
                     f"{r['think_s']:.1f}", f"{r['ideal_s']:.1f}", f"{r['wall_s']:.1f}",
                     f"{r['overhead_pct']:+.1f} %", f"{r['overhead_ms_per_move']:.1f}"]],
                   headers=["workers", "games", "moves", "faults", "thinking (s)",
                            "ideal wall (s)", "measured wall (s)", "vs ideal",
                            "overhead ms/move"], tablefmt="github"))
    verdict = "within" if r["overhead_pct"] <= 10.0 else "NOT within"
    print(f"\nMeasured wall time is {verdict} 10% of the ideal (thinking time / workers).\n")


if __name__ == "__main__":
    main()
