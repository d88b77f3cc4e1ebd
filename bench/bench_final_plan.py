"""The final round robin's estimated duration (`league final --dry-run`,
`arena.league.final.plan_final`) against its real duration, for one small league.

The league: two students (L1 and L0 uploaded as .py files), reference bots L0, L1 and the
project's montecarlo (which thinks for most of its time), rating games on three boards at
0.1 s a move, the final on those three boards and one the rating games never played. The
workers play every rating pair, the league is frozen, the plan is made, then the final runs
(`league final`, in the foreground, two workers) and its wall time is measured.

    python -m bench final_plan
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.league import League
from arena.league.feed import run_worker
from arena.league.final import plan_final

ROOT = Path(__file__).resolve().parent.parent
CONFIG = """boards: [[4, 5, 4], [6, 7, 4], [7, 8, 5]]
final_board_set: [[4, 5, 4], [6, 7, 4], [7, 8, 5], [8, 9, 5]]
timeout_s: 0.1
reference_bots: [players.L0, players.L1, players.montecarlo]
pairs_per_submission: 6
max_pairs_per_submission: 6
opening_plies: 0
analysis_budget_s: 0
isolation: true
"""
WORKERS = 2


def main() -> None:
    print("## The final's estimated duration against its real one (bench_final_plan)\n")
    with tempfile.TemporaryDirectory(prefix="cxarena-bench-final-") as tmp:
        cfg = Path(tmp) / "league.yaml"
        cfg.write_text(CONFIG)
        d = Path(tmp) / "lg"
        lg = League.init(d, cfg)
        for user, bot in (("ann", "L1.py"), ("bob", "L0.py")):
            lg.add_user(user)
            lg.submit(user, [(bot, (ROOT / "players" / bot).read_bytes())])
        with lg.conn:  # both pass their check (checked elsewhere)
            lg.conn.execute("UPDATE submissions SET status='rating'")
        lg.conn.close()
        t0 = time.perf_counter()
        pairs = run_worker(d, None, max_pairs=10_000)
        rating_s = time.perf_counter() - t0
        lg = League.open(d)
        lg.freeze()
        plan = plan_final(lg, WORKERS)
        lg.conn.close()
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "league", "final", str(d), "--workers",
                        str(WORKERS)], check=True, capture_output=True, cwd=ROOT)
        actual_s = time.perf_counter() - t0
    print(f"Rating games: {pairs} pairs ({2 * pairs} games) in {rating_s:.0f} s, one worker.\n")
    print(f"Plan: {plan.text()}\n")
    print("| games | estimated | actual | error |")
    print("|---|---|---|---|")
    print(f"| {plan.games} | {plan.duration_s:.0f} s | {actual_s:.0f} s "
          f"| {100 * (plan.duration_s - actual_s) / actual_s:+.0f} % |\n")


if __name__ == "__main__":
    main()
