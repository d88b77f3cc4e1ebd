"""`make quick`'s tournament beside heavy mixed load, with cgroups and without (issue 39).

    .venv/bin/python -m bench quickload      # about 1-2 minutes on 2 cores

Starts, outside cxarena, 2 busy processes per core, a writer with fsync and a loop starting
short processes (`bench.bench_fairload`'s busy2, io and churn at once), then runs
`cxarena tournament configs/quick.yaml` (6 built-in bots, 3 boards, 0.1 s a move, 90 games)
in a temporary results folder, once with cgroups (the bots' folder at the highest CPU weight)
and once with `cgroups: false` (rlimits only), and prints each run's account of a busy
machine (the tournament's own last line) and its wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_fairload import start_load, stop_load

ROOT = Path(__file__).resolve().parents[1]


def _run(config: Path, results: Path) -> tuple[str, float]:
    scratch = tempfile.mkdtemp(prefix="cxarena-quickload-")
    load = start_load("busy2", scratch) + start_load("io", scratch) + start_load("churn", scratch)
    time.sleep(1.0)
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "arena", "tournament", str(config),
                               "--results", str(results), "--fresh", "--quiet"],
                              cwd=ROOT, capture_output=True, text=True, check=False)
    finally:
        wall_s = time.monotonic() - started
        stop_load(load)
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("busy machine:")]
    return (lines[-1] if lines else f"(no account; exit status {done.returncode})"), wall_s


def main() -> None:
    print("## `make quick` beside heavy mixed load (bench_quickload, issue 39)\n")
    print(f"Load average at the start: {os.getloadavg()[0]:.1f}; outside load: 2 busy "
          "processes per core, an fsync writer and a process-churn loop.\n")
    print("| containment | account of a busy machine | wall s |\n|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="cxarena-quickload-") as tmp:
        plain = ROOT / "configs" / "quick.yaml"
        nocg = Path(tmp) / "quick-nocg.yaml"
        nocg.write_text(plain.read_text().replace("name: quick", "name: quick-nocg")
                        + "\ncgroups: false\n")
        for label, config in (("cgroups", plain), ("rlimits only", nocg)):
            account, wall_s = _run(config, Path(tmp) / label.replace(" ", "-"))
            print(f"| {label} | {account} | {wall_s:.1f} |")
    print()
