"""`make test` on a fresh clone beside 2 busy processes per core, a disk writer and process
churn (issues 39 and 50, Done when).

    .venv/bin/python -m bench busytest        # about 25-40 minutes on 2 cores

Clones this checkout's HEAD into a temporary folder, starts 2 busy processes per usable core
(plain `while True: pass` loops of nice 0, each in a session of its own, outside cxarena), a
process writing and syncing a file and one starting short-lived processes without pause
(`bench.bench_fairload.start_load("busy2+io+churn")`), runs `make test` there (its own
`.venv` made by the Makefile, as on a fresh machine), stops the load and prints the result:
the exit status, the pytest summary lines of both runs (four processes, then the serial
tests), the wall time and the load average. Nothing here is timed against a target: the
point is that every test whose point is not timing passes on a loaded machine.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from bench.bench_fairload import start_load, stop_load

ROOT = Path(__file__).resolve().parents[1]
#: the whole `make test` may not take longer than this (then it counts as failed)
LIMIT_S = 3600.0
#: the load beside it: `bench.bench_fairload.start_load`'s kinds
LOAD = "busy2+io+churn"
_SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*?) in [\d.]+s", re.M)


def main() -> None:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                          capture_output=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="cxarena-busytest-") as tmp:
        clone = Path(tmp) / "p"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        load = start_load(LOAD, tmp)
        started = time.monotonic()
        try:
            done = subprocess.run(["make", "test"], cwd=clone, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=LIMIT_S, check=False)
            out, code = done.stdout, done.returncode
        except subprocess.TimeoutExpired as e:
            out, code = str(e.stdout or ""), -1
        finally:
            wall_s = time.monotonic() - started
            load1 = os.getloadavg()[0]
            stop_load(load)
        (Path(tempfile.gettempdir()) / "cxarena-busytest.log").write_text(out)
    summaries = _SUMMARY.findall(out)
    failed = [ln for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    print("## `make test` beside 2 busy processes per core, disk and process churn "
          "(bench_busytest, issues 39 and 50)\n")
    print(f"Commit {head}, {len(load)} load processes ({LOAD}) on "
          f"{len(os.sched_getaffinity(0))} cores; "
          f"load average {load1:.1f} at the end.\n")
    print("| run | result |\n|---|---|")
    for i, s in enumerate(summaries):
        print(f"| {('four processes', 'serial')[i] if i < 2 else i} | {s} |")
    print(f"| make test | exit status {code}, {wall_s / 60:.1f} min |")
    for line in failed:
        print(f"\n    {line}")
    print(f"\n(the whole output: {tempfile.gettempdir()}/cxarena-busytest.log)\n")
