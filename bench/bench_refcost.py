"""The referee's own cost (issue 39): L0 against L0 on 6x7x4, 1,000 games in one `cxarena match`,
for several code versions side by side in one run.

    .venv/bin/python -m bench refcost                  # about 5 minutes on an idle machine
    CXARENA_REFCOST_REVS="eadae3d 4a2f552" CXARENA_REFCOST_ROUNDS=5 \
        .venv/bin/python -m bench refcost

Each version in CXARENA_REFCOST_REVS (default: `eadae3d`, before a cgroup per bot, and `4a2f552`,
main before this work) is checked out into a temporary git worktree; "this checkout" is the tree
the benchmark runs from. Each runs the project's own command, in a process of its own, with the
shared interpreter and its own PYTHONPATH:

    cxarena match L0 L0 --board 6 7 4 --time 1 --games 1000 --no-openings --isolation none

with cgroups on (the default) and, where the version has the option, off (`--no-cgroups`).
The versions and modes alternate within each round (v1 on, v1 off, v2 on, ...), so a change of
the machine's load falls on all of them alike; the table gives the median of the rounds of:
games per second (1,000 / the command's wall time, start-up included), and the CPU time per
game of the command and the bots it reaped (user + system from `wait4`: the referee's work and
the bots' together; the bots' is the same in every version, so differences are the referee's,
and unlike the wall time it hardly moves with the machine's load). The load average is read
before and after the whole run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REVS = os.environ.get("CXARENA_REFCOST_REVS", "eadae3d 4a2f552").split()
ROUNDS = int(os.environ.get("CXARENA_REFCOST_ROUNDS", "3"))
GAMES = int(os.environ.get("CXARENA_REFCOST_GAMES", "1000"))
THIS = "this checkout"


def _match_argv(games: int, log_dir: Path, cgroups: bool) -> list[str]:
    argv = [sys.executable, "-m", "arena", "match", "L0", "L0", "--board", "6", "7", "4",
            "--time", "1", "--games", str(games), "--no-openings", "--isolation", "none",
            "--log-dir", str(log_dir)]
    return argv if cgroups else [*argv, "--no-cgroups"]


def _has_no_cgroups(tree: Path) -> bool:
    """Whether this version's `match` has the `--no-cgroups` option."""
    out = subprocess.run([sys.executable, "-m", "arena", "match", "--help"], cwd=tree,
                         env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True,
                         text=True, check=True).stdout
    return "--no-cgroups" in out


def run_match(tree: Path, games: int, cgroups: bool, work: Path) -> tuple[float, float]:
    """(wall s, CPU s of the command and the processes it reaped) of one match from `tree`."""
    log_dir = work / "logs"
    start = time.perf_counter()
    proc = subprocess.Popen(_match_argv(games, log_dir, cgroups), cwd=tree,
                            env=dict(os.environ, PYTHONPATH=str(tree)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall_s = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"match in {tree} failed ({proc.returncode}): "
                           f"{err.decode(errors='replace')[-2000:]}")
    return wall_s, usage.ru_utime + usage.ru_stime


def _load() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    print("\n## The referee's own cost: L0 against L0 (bench_refcost, issue 39)\n")
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="cxarena-refcost-") as tmp:
        trees: dict[str, Path] = {}
        try:
            for rev in REVS:
                tree = Path(tmp) / f"rev-{rev}"
                try:
                    subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev],
                                   cwd=ROOT, check=True, capture_output=True)
                except (OSError, subprocess.CalledProcessError) as exc:
                    print(f"(skipped {rev}: cannot check it out beside this checkout: {exc})")
                    continue
                trees[rev] = tree
            trees[THIS] = ROOT
            modes = {name: (True, False) if _has_no_cgroups(tree) else (True,)
                     for name, tree in trees.items()}
            results: dict[tuple[str, bool], list[tuple[float, float]]] = {}
            for _ in range(ROUNDS):
                for name, tree in trees.items():
                    for cgroups in modes[name]:
                        work = Path(tmp) / f"work-{len(results)}"
                        work.mkdir(exist_ok=True)
                        results.setdefault((name, cgroups), []).append(
                            run_match(tree, GAMES, cgroups, work))
        finally:
            for name, tree in trees.items():
                if name != THIS:
                    subprocess.run(["git", "worktree", "remove", "--force", str(tree)],
                                   cwd=ROOT, capture_output=True)
    print(f"`cxarena match L0 L0 --board 6 7 4 --time 1 --games {GAMES} --no-openings "
          f"--isolation none [--no-cgroups]`, {os.cpu_count()} cores, load average "
          f"{load_before} before and {_load()} after; median of {ROUNDS} rounds, alternating\n")
    print("| version | cgroups | games/s | CPU ms per game (referee + bots) | runs (games/s) |")
    print("|---|---|---|---|---|")
    for (name, cgroups), runs in results.items():
        rates = [GAMES / wall for wall, _ in runs]
        cpu_ms = statistics.median(1000 * cpu / GAMES for _, cpu in runs)
        label = "on" if cgroups else "off"
        if len(modes[name]) == 1:
            label = "(no such option)"
        print(f"| {name} | {label} | {statistics.median(rates):.1f} | {cpu_ms:.2f} | "
              f"{', '.join(f'{r:.0f}' for r in rates)} |")


if __name__ == "__main__":
    main()
