"""`make quick`'s tournament beside heavy mixed load, with cgroups and without (issue 39).

    .venv/bin/python -m bench quickload      # about 1-2 minutes on 2 cores
    .venv/bin/python -m bench.bench_quickload mixed --no-cgroups   # other load, one containment

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

from arena.results.store import DB_FILE, ResultStore
from bench.bench_fairload import delayacct_on, psi, start_load, stop_load

ROOT = Path(__file__).resolve().parents[1]


def _run(config: Path, results: Path, kind: str) -> tuple[str, float, str, str]:
    """(the account line, wall s, PSI some cpu/memory/io over the run, standings.md's busy
    machine section) of one tournament beside `kind` of load."""
    scratch = tempfile.mkdtemp(prefix="cxarena-quickload-")
    load = start_load(kind, scratch)
    time.sleep(1.0)
    p0 = psi()
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "arena", "tournament", str(config),
                               "--results", str(results), "--fresh", "--quiet"],
                              cwd=ROOT, capture_output=True, text=True, check=False)
    finally:
        wall_s = time.monotonic() - started
        p1 = psi()
        stop_load(load)
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("busy machine:")]
    pressure = " / ".join(f"{(p1.get(k, 0) - p0.get(k, 0)) / 1e6 / wall_s * 100:.0f}%"
                          for k in ("cpu", "memory", "io"))
    section = ""
    replays = []
    for db in results.rglob(DB_FILE):
        with ResultStore(db, create=False) as store:
            for stored in store.games():
                for incident in stored.record.extra.get("overload") or []:
                    replays.append(f"- {stored.game_id}: {incident}")
    for standings in results.rglob("standings.md"):
        text = standings.read_text()
        if "## Busy machine" in text:
            section = text.split("## Busy machine", 1)[1].split("\n## ", 1)[0]
    if replays:
        section += "\nGames played again, and why:\n\n" + "\n".join(replays) + "\n"
    return (lines[-1] if lines else f"(no account; exit status {done.returncode})"), wall_s, \
        pressure, section


def main(args: list[str] | None = None) -> None:
    """`args`: the kinds of load (`bench.bench_fairload`; default busy2+io+churn), and
    --no-cgroups / --cgroups to run one containment only."""
    args = list(args or [])
    kinds = [a for a in args if not a.startswith("--")] or ["busy2+io+churn"]
    print("## `make quick` beside heavy mixed load (bench_quickload, issues 39 and 49)\n")
    print(f"Load average at the start: {os.getloadavg()[0]:.1f}; kernel.task_delayacct "
          f"{'on' if delayacct_on() else 'off'}; outside load (bench_fairload kinds): "
          f"{', '.join(kinds)}.\n")
    print("| load | containment | account of a busy machine | PSI some cpu / memory / io | "
          "wall s |\n|---|---|---|---|---|")
    sections = []
    with tempfile.TemporaryDirectory(prefix="cxarena-quickload-") as tmp:
        plain = ROOT / "configs" / "quick.yaml"
        nocg = Path(tmp) / "quick-nocg.yaml"
        nocg.write_text(plain.read_text().replace("name: quick", "name: quick-nocg")
                        + "\ncgroups: false\n")
        runs = [("cgroups", plain), ("rlimits only", nocg)]
        if "--no-cgroups" in args:
            runs = runs[1:]
        elif "--cgroups" in args:
            runs = runs[:1]
        for i, kind in enumerate(kinds):
            for label, config in runs:
                results = Path(tmp) / f"{i}-{label.replace(' ', '-')}"
                account, wall_s, pressure, section = _run(config, results, kind)
                print(f"| {kind} | {label} | {account} | {pressure} | {wall_s:.1f} |",
                      flush=True)
                if section.strip():
                    sections.append(f"### {kind}, {label}\n{section}")
    print()
    for section in sections:
        print(section)


if __name__ == "__main__":
    main(sys.argv[1:])
