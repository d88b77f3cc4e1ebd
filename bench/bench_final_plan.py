"""The final round robin's estimated duration (`league final --dry-run`,
`arena.league.final.plan_final`) against its real duration, for one small league.

The league: two students (L1 and L0 uploaded as .py files), reference bots L0, L1 and the
project's montecarlo (which thinks for most of its time), rating games on three boards at
0.1 s a move, the final on those three boards and one the rating games never played. The
workers play every rating pair, the league is frozen, the plan is made, then the final runs
(`league final`, in the foreground, two workers) and its wall time is measured.

    python -m bench final_plan

Then (`big_board`, issue 52) a board no game touched: two students' bots that think 80 % of
every move (then a random column) at 0.05 s a move, rating games on 4x4x3, 5x5x4 and 6x7x4
only, a final that also has 20x20x10 and 50x50x10: the plan's price of a game there (moves from
the board's size, the bots' own time per move) and its worst case, against real games there
(the referee, no isolation).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from arena.entrants.specs import parse_spec
from arena.league import League
from arena.league.feed import run_worker
from arena.league.final import plan_final
from arena.league.final_length import bot_startups_s
from arena.league.final_measure import measure_final
from arena.league.standings import record_game
from arena.referee.referee import MatchSettings, Referee, course_game

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
    big_board()


#: a random column after thinking 80 % of every move's time (the bench's and its test's bot)
SLOW80 = """
import random
import time

from arena.player import CXPlayer


class Slow80(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.rng = random.Random(self.seed)
        self.think_s = 0.8 * timeout_in_secs

    def selectColumn(self, B):
        time.sleep(self.think_s)
        return self.rng.choice(B.getAvailableColumns())

    def playerName(self):
        return "Slow80"
"""
BIG_CONFIG = """boards: [[4, 4, 3], [5, 5, 4], [6, 7, 4]]
final_board_set: [[4, 4, 3], [5, 5, 4], [6, 7, 4], [20, 20, 10], [50, 50, 10]]
timeout_s: 0.05
reference_bots: []
isolation: false
"""
BIG_RATING = 4  # rating games per rating board
BIG_REAL = 2  # real games per big board


def big_board() -> None:
    print("### A board no game touched (bench_final_plan.big_board, issue 52)\n")
    with tempfile.TemporaryDirectory(prefix="cxarena-bench-big-") as tmp:
        bot = Path(tmp) / "slow80.py"
        bot.write_text(SLOW80)
        cfg = Path(tmp) / "league.yaml"
        cfg.write_text(BIG_CONFIG)
        lg = League.init(Path(tmp) / "lg", cfg)
        for user in ("ann", "bob"):
            lg.add_user(user)
            lg.submit(user, [("slow80.py", SLOW80.encode())])
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status='rating'")
        spec = parse_spec(f"{bot}:Slow80")
        rows = []
        with Referee(MatchSettings(limits=lg.config.limits(), isolation="none")) as referee:
            for seed in range(BIG_RATING):
                for m, n, k in ((4, 4, 3), (5, 5, 4), (6, 7, 4)):
                    rec = referee.play(spec, spec, course_game(m, n, k), seed=seed)
                    record_game(lg, "sub:1", "sub:2", f"{m}x{n}x{k}", 0.0, record=rec)
            plan = plan_final(lg, workers=1)
            for b in plan.board_estimates:
                real = []
                if not b.measured:
                    for seed in range(BIG_REAL):
                        m, n, k = (int(x) for x in b.board.split("x"))
                        rec = referee.play(spec, spec, course_game(m, n, k), seed=100 + seed)
                        seconds = (datetime.fromisoformat(rec.finished_at)
                                   - datetime.fromisoformat(rec.started_at)).total_seconds()
                        real.append((seconds - max(bot_startups_s(rec.extra), default=0.0),
                                     rec.n_moves, rec.reason.value))
                rows.append((b, real))
        # the plan's own remedy: two calibration games on each board not measured
        calibrated = measure_final(lg, workers=1)
        after = {b.board: b for b in plan_final(lg, workers=1).board_estimates}
        lg.conn.close()
    print(f"Rating games: {BIG_RATING} on each of 4x4x3, 5x5x4, 6x7x4 at 0.05 s a move. "
          f"The plan:\n\n```\n{plan.text()}\n```\n")
    print("| board | from | moves (model, upper end) | priced | worst | real games (moves, end) "
          f"| real mean | priced / real | worst exceeded | after `--measure` ({calibrated} "
          "games) | its priced / real |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|")
    for b, real in rows:
        if not real:
            continue
        mean = sum(s for s, _, _ in real) / len(real)
        print(f"| {b.board} | modelled | {b.moves:.0f} ({b.moves_high:.0f}) | {b.each_s:.1f} s "
              f"| {b.worst_s:.1f} s | "
              + ", ".join(f"{s:.1f} s ({m}, {why})" for s, m, why in real)
              + f" | {mean:.1f} s | {b.each_s / mean:.2f} "
              f"| {'yes' if any(s > b.worst_s for s, _, _ in real) else 'no'} "
              f"| {after[b.board].each_s:.1f} s ({after[b.board].moves:.0f} moves) "
              f"| {after[b.board].each_s / mean:.2f} |")
    print()


if __name__ == "__main__":
    main()
