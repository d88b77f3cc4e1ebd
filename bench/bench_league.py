"""A class league under load: 30 submissions of known order, how soon each has a rank, and how
well the leaderboard's order matches the known one over time.

    .venv/bin/python -m bench league

The 30 entries are variants of the course's L1 (an immediate win, else a move that hands the
opponent no immediate win): entry i plays a uniformly random column with probability
``i / 29`` and L1's move otherwise, so entry 0 is L1 itself, entry 29 is a random player, and
the strength falls with i (neighbours differ by little, so a perfect order is not expected
from a few games). Each is uploaded by its own user at once, as at a deadline. The league is
the real one: `league.yaml` below, the sandboxed conformance check in a thread (as
`cxarena league serve` runs it), two worker processes (`arena.league.feed.start_workers`,
one per core) playing rating pairs from judged 2-ply openings on the 35 competition boards.

Every 20 s the bench reads the leaderboard (`arena.league.standings`) and prints: the entries
on it, those with their ``pairs_per_submission`` pairs, the games stored, and Spearman's rank
correlation between the leaderboard's order and the known one. Then one more entry (noise
0.5, expected in the middle) is submitted to the settled league, and the bench reports how
long it takes to play its pairs and how far its rank is then from where it ends.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

from arena.commands import analysis_oracle, opening_judge
from arena.league import League
from arena.league.checks import check_next
from arena.league.feed import start_workers
from arena.league.standings import standings

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = 30
WORKERS = 2
SAMPLE_S = 20.0
LIMIT_S = 25 * 60.0
CONFIG = """\
board_set: competition
timeout_s: 0.5
reference_bots: [L0, L1]
pairs_per_submission: 4
max_pairs_per_submission: 24
opening_plies: 2
isolation: true
"""


def variant(noise: float) -> bytes:
    """L1's source with a chance `noise` of a random move instead."""
    src = (ROOT / "players" / "L1.py").read_text(encoding="utf-8")
    src = src.replace("class L1(CXPlayer):", f"NOISE = {noise!r}\n\n\nclass Noisy(CXPlayer):")
    src = src.replace("        cols = B.getAvailableColumns()\n",
                      "        cols = B.getAvailableColumns()\n"
                      "        if self.rng.random() < NOISE:\n"
                      "            return self.rng.choice(cols)\n", 1)
    src = re.sub(r'return "L1"', f'return "noisy {noise:.2f}"', src)
    return src.encode()


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        out = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else 0.0


class Checks:
    """The conformance checks, in a thread, as the server runs them."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            lg = League.open(self.dir)
            try:
                done = check_next(lg)
            finally:
                lg.conn.close()
            if done is None:
                self.stop.wait(0.5)


def snapshot(d: Path, strength: dict[str, float]) -> tuple[int, int, int, float, dict[str, int]]:
    lg = League.open(d)
    try:
        rows = standings(lg)
        (games,) = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()
        minimum = lg.config.file.pairs_per_submission
    finally:
        lg.conn.close()
    ranked = [r for r in rows if r.user in strength]
    full = sum(1 for r in ranked if r.games >= 2 * minimum)
    rho = spearman([r.elo for r in ranked], [strength[r.user] for r in ranked]) \
        if len(ranked) > 2 else 0.0
    return len(ranked), full, games, rho, {r.user: r.rank for r in rows}


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-league-"))
    try:
        cfg = tmp / "league.yaml"
        cfg.write_text(CONFIG)
        d = tmp / "lg"
        lg = League.init(d, cfg)
        strength: dict[str, float] = {}
        t0 = time.monotonic()
        for i in range(ENTRIES):
            user = f"s{i:02d}"
            lg.add_user(user)
            lg.submit(user, [(f"{user}.py", variant(i / (ENTRIES - 1)))])
            strength[user] = -i / (ENTRIES - 1)  # higher is stronger
        lg.conn.close()
        checks = Checks(d)
        workers = start_workers(d, WORKERS, None, opening_judge("connectx"),
                                oracle_factory=analysis_oracle)
        print("### League: 30 submissions of known order (`bench league`)\n")
        print(f"{ENTRIES} variants of L1 (entry i: a random move with probability i/29), "
              f"submitted at once; {WORKERS} worker processes, sandboxed, 0.5 s per move, "
              f"the 35 competition boards, 2-ply openings; every new version plays 4 pairs, "
              f"then the widest Elo intervals play more, up to 24 pairs per entry. Spearman: "
              f"the leaderboard's order against the known one (1 = the same order).\n")
        print("| minute | on the leaderboard | with their 4 pairs | games | Spearman |")
        print("|---|---|---|---|---|")
        first_all: float | None = None
        first_full: float | None = None
        last = None
        while time.monotonic() - t0 < LIMIT_S:
            time.sleep(SAMPLE_S)
            on, full, games, rho, _ = snapshot(d, strength)
            t = (time.monotonic() - t0) / 60
            print(f"| {t:.2f} | {on} | {full} | {games} | {rho:.2f} |", flush=True)
            if on == ENTRIES and first_all is None:
                first_all = t
            if full == ENTRIES and first_full is None:
                first_full = t
            if last == games:  # nothing left to play (every entry has its maximum)
                break
            last = games
        print()
        print(f"Every entry on the leaderboard after {first_all or float('nan'):.1f} min; every "
              f"entry with its 4 pairs after {first_full or float('nan'):.1f} min (the first "
              f"sample at or after it; samples every {SAMPLE_S:.0f} s).\n")
        # a late entry in the settled league
        lg = League.open(d)
        lg.add_user("late")
        lg.submit("late", [("late.py", variant(0.5))])
        lg.conn.close()
        strength["late"] = -0.5
        t1 = time.monotonic()
        rank_at_pairs = None
        t_pairs = None
        while time.monotonic() - t1 < 10 * 60:
            time.sleep(1)
            lg = League.open(d)
            try:
                row = next((r for r in standings(lg) if r.user == "late"), None)
                left = lg.conn.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
            finally:
                lg.conn.close()
            if row is not None and row.games >= 8 and t_pairs is None:
                t_pairs, rank_at_pairs = time.monotonic() - t1, row.rank
            if t_pairs is not None and left == 0 and time.monotonic() - t1 > t_pairs + 30:
                break
        workers.stop()
        checks.stop.set()
        _, _, games, rho, ranks = snapshot(d, strength)
        expected = 1 + sum(1 for s in strength.values() if s > -0.5)
        print(f"A late entry (noise 0.5; {expected - 1} entries are stronger): its 4 pairs "
              f"played {t_pairs or float('nan'):.0f} s after upload (check included), rank "
              f"{rank_at_pairs} then; rank {ranks.get('late')} when the league settled "
              f"({games} games in all, Spearman {rho:.2f}).\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
