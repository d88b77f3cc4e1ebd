"""One competition core (issue #38): the speed of the tournament and the league before and after,
side by side in one run.

    .venv/bin/python -m bench core                       # before = CXARENA_CORE_BEFORE
    CXARENA_CORE_BEFORE=eadc8c4 .venv/bin/python -m bench core

"Before" is a commit of this repository (default `eadc8c4`, main before the core's work),
checked out into a temporary git worktree; "after" is this checkout. Each measure runs the
project's own commands in a process of their own, from each tree, alternating (before, after,
before, after ...), best of `ROUNDS`:

- **L0 vs L0 throughput**: `cxarena tournament` of L0 against a copy of itself on 6x7x4, 500
  game pairs on 2 workers, no openings, no sandbox (the executor and the store, not bwrap),
  wall time of the command;
- **a league's rated-in time**: a league of 4 students (copies of L0 and L1) and the reference
  bots L0 and L1 on two boards; their checks are run first (`cxarena league check`), then
  `cxarena league serve --workers 2` is started and the time is taken until every version has
  its `pairs_per_submission` rating pairs stored.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = os.environ.get("CXARENA_CORE_BEFORE", "eadc8c4")
ROUNDS = 3
PAIRS = 4
STUDENTS = {"ann": "L0", "bob": "L1", "cid": "L0", "dan": "L1"}
TOURNAMENT = """\
name: core-bench
players: [L0, {spec: L0, name: L0b}]
boards: [[6, 7, 4]]
timeout_s: 1
rounds: 250
workers: 2
isolation: none
"""
LEAGUE = f"""\
boards: [[6, 7, 4], [5, 4, 4]]
timeout_s: 1
reference_bots: [L0, L1]
pairs_per_submission: {PAIRS}
max_pairs_per_submission: {PAIRS}
opening_plies: 2
isolation: false
"""


def _cxarena(tree: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=tree, env=_env(tree),
                          capture_output=True, text=True, check=True, **kw)  # type: ignore


def _env(tree: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(tree))


def tournament_s(tree: Path, work: Path) -> float:
    """Wall seconds of the L0-vs-L0 tournament run from `tree`."""
    config = work / "core-bench.yaml"
    config.write_text(TOURNAMENT, encoding="utf-8")
    results = work / "results"
    shutil.rmtree(results, ignore_errors=True)
    start = time.perf_counter()
    _cxarena(tree, "tournament", str(config), "--results", str(results), "--quiet")
    return time.perf_counter() - start


def _rated(db: Path) -> bool:
    """Every student's version has its PAIRS rating pairs stored."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            ids = [r[0] for r in con.execute("SELECT id FROM submissions")]
            for sid in ids:
                key = f"sub:{sid}"
                (n,) = con.execute("SELECT COUNT(*) FROM games WHERE side_a=? OR side_b=?",
                                   (key, key)).fetchone()
                if n < 2 * PAIRS:
                    return False
            return bool(ids)
        finally:
            con.close()
    except sqlite3.Error:
        return False


def league_s(tree: Path, work: Path) -> float:
    """Seconds from starting `league serve` in `tree` until every version is rated in."""
    d = work / "league"
    shutil.rmtree(d, ignore_errors=True)
    config = work / "league.yaml"
    config.write_text(LEAGUE, encoding="utf-8")
    _cxarena(tree, "league", "init", str(d), "--config", str(config))
    for user, bot in STUDENTS.items():
        _cxarena(tree, "league", "add-user", str(d), user)
        _cxarena(tree, "league", "submit", str(d), "--user", user,
                 str(ROOT / "players" / f"{bot}.py"))
    _cxarena(tree, "league", "check", str(d))
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "league", "serve", str(d), "--port", "0",
         "--workers", "2", "--unsafe-no-isolation"], cwd=tree, env=_env(tree),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while not _rated(d / "league.sqlite"):
            if server.poll() is not None:
                raise RuntimeError(f"league serve in {tree} exited ({server.returncode})")
            time.sleep(0.1)
        return time.perf_counter() - start
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="cxarena-core-") as tmp:
        before = Path(tmp) / "before"
        try:
            subprocess.run(["git", "worktree", "add", "--detach", str(before), BEFORE],
                           cwd=ROOT, check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"(skipped: cannot check out {BEFORE} beside this checkout: {exc})")
            return
        try:
            trees = {"before": before, "after": ROOT}
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(ROUNDS):
                for name, tree in trees.items():
                    work = Path(tmp) / f"work-{name}"
                    work.mkdir(exist_ok=True)
                    times.setdefault(("tournament", name), []).append(tournament_s(tree, work))
                    times.setdefault(("league", name), []).append(league_s(tree, work))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT,
                           capture_output=True)
    print(f"before = {BEFORE}, after = this checkout; best of {ROUNDS}, alternating\n")
    print("| measure | before | after | after / before |")
    print("|---|---|---|---|")
    for measure, what in (("tournament", "L0 vs L0, 1000 games on 6x7x4, 2 workers: wall s"),
                          ("league", "league rated-in: 4 versions x 4 pairs, 2 workers: s")):
        b, a = min(times[(measure, "before")]), min(times[(measure, "after")])
        print(f"| {what} | {b:.2f} | {a:.2f} | {a / b:.3f} |")


if __name__ == "__main__":
    main()
