"""The referee's own cost (issue 39): L0 against L0 on 6x7x4, 1,000 games in one `cxarena match`,
for several code versions side by side in one run.

    .venv/bin/python -m bench refcost        # 5 rounds: about 5 minutes on an idle machine
    CXARENA_REFCOST_REVS="eadae3d 4a2f552" CXARENA_REFCOST_ROUNDS=5 \
        .venv/bin/python -m bench refcost

Each version in CXARENA_REFCOST_REVS (default: `eadae3d`, before a cgroup per bot, and `4a2f552`,
main before this work) is checked out into a temporary git worktree; "this checkout" is the tree
the benchmark runs from. Each runs the project's own command, in a process of its own, with the
shared interpreter and its own PYTHONPATH:

    cxarena match L0 L0 --board 6 7 4 --time 1 --games 1000 --no-openings --isolation none

with cgroups on (the default) and, where the version has the option, off (`--no-cgroups`).
The versions and modes alternate within each round (v1 on, v1 off, v2 on, ...), so a change of
the machine's load falls on all of them alike. The table gives, over the rounds: games per
second (1,000 / the command's wall time, start-up included; the median and the best), and the
CPU time per game of the referee's process (all its threads: user + system, `getrusage` at its
exit) and of the bots it reaped. Unlike the wall time, the CPU times hardly move with the
machine's load: the referee's is the measure of its own cost. The load average is read before
and after the whole run.
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
ROUNDS = int(os.environ.get("CXARENA_REFCOST_ROUNDS", "5"))
GAMES = int(os.environ.get("CXARENA_REFCOST_GAMES", "1000"))
THIS = "this checkout"


#: runs `python -m arena ARGS...`, then writes the CPU time of its own process (the referee:
#: every thread) and of the processes it reaped (the bots) to stderr, in seconds
_WRAPPER = """\
import resource, runpy, sys
sys.argv = ["arena", *sys.argv[1:]]
try:
    runpy.run_module("arena", run_name="__main__", alter_sys=True)
except SystemExit as e:
    code = e.code
else:
    code = 0
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"\\nREFCOST {me.ru_utime + me.ru_stime} {kids.ru_utime + kids.ru_stime}\\n")
sys.exit(code)
"""


def _match_argv(games: int, log_dir: Path, cgroups: bool) -> list[str]:
    argv = [sys.executable, "-c", _WRAPPER, "match", "L0", "L0", "--board", "6", "7", "4",
            "--time", "1", "--games", str(games), "--no-openings", "--isolation", "none",
            "--log-dir", str(log_dir)]
    return argv if cgroups else [*argv, "--no-cgroups"]


def _has_no_cgroups(tree: Path) -> bool:
    """Whether this version's `match` has the `--no-cgroups` option."""
    out = subprocess.run([sys.executable, "-m", "arena", "match", "--help"], cwd=tree,
                         env=dict(os.environ, PYTHONPATH=str(tree)), capture_output=True,
                         text=True, check=True).stdout
    return "--no-cgroups" in out


def run_match(tree: Path, games: int, cgroups: bool, work: Path) -> tuple[float, float, float]:
    """(wall s, CPU s of the referee's process, CPU s of the bots) of one match from `tree`."""
    log_dir = work / "logs"
    start = time.perf_counter()
    r = subprocess.run(_match_argv(games, log_dir, cgroups), cwd=tree,
                       env=dict(os.environ, PYTHONPATH=str(tree)),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall_s = time.perf_counter() - start
    said = [ln.split() for ln in r.stderr.splitlines() if ln.startswith("REFCOST ")]
    if r.returncode != 0 or not said:
        raise RuntimeError(f"match in {tree} failed ({r.returncode}): {r.stderr[-2000:]}")
    return wall_s, float(said[-1][1]), float(said[-1][2])


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
            results: dict[tuple[str, bool], list[tuple[float, float, float]]] = {}
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
    print("| version | cgroups | games/s (median) | best | referee CPU ms per game | bots' CPU "
          "ms per game | runs (games/s) |")
    print("|---|---|---|---|---|---|---|")
    for (name, cgroups), runs in results.items():
        rates = [GAMES / wall for wall, _, _ in runs]
        referee_ms = statistics.median(1000 * cpu / GAMES for _, cpu, _ in runs)
        bots_ms = statistics.median(1000 * cpu / GAMES for _, _, cpu in runs)
        label = "on" if cgroups else "off"
        if len(modes[name]) == 1:
            label = "(no such option)"
        print(f"| {name} | {label} | {statistics.median(rates):.1f} | {max(rates):.1f} | "
              f"{referee_ms:.2f} | {bots_ms:.2f} | {', '.join(f'{r:.0f}' for r in rates)} |")


if __name__ == "__main__":
    main()
