"""The one door's cost: the load probe, javac and a whole check-bot, sandboxed (now) against
unsandboxed (before the door), side by side.

    CXARENA_BENCH_BEFORE=/path/to/a/checkout/before/the/door .venv/bin/python -m bench door

Each measure runs the command line of both checkouts in turn (same venv, same machine, same
moment; the other checkout is put first on PYTHONPATH), ROUNDS times, interleaved; the table
gives the median wall time of each and the ratio. Measures:

1. `check-bot L1 --quick` (a Python bot: one probe, then the check's games);
2. `check-bot java:examples/java --quick` with an empty compile cache (javac for cxarena's
   API and the bot, the JVM class check, the games);
3. the same with the cache warm (no javac);
4. the probe alone: `check_loadable` of one Python bot.

Without CXARENA_BENCH_BEFORE only the current checkout is measured.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROUNDS = 3
PROBE = ("from arena.entrants.probe import check_loadable; "
         "from arena.entrants.specs import parse_spec; "
         "assert check_loadable([parse_spec('L1')]) == {}")


def _run(checkout: Path, argv: list[str], cache: str | None) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env["CXARENA_CACHE_DIR"] = cache or tempfile.mkdtemp(prefix="cxbench-cache-")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], cwd=checkout, env=env,
                          capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} in {checkout}: exit {done.returncode}\n"
                           f"{done.stdout[-800:]}{done.stderr[-800:]}")
    if cache is None:
        shutil.rmtree(env["CXARENA_CACHE_DIR"], ignore_errors=True)
    return took


def run() -> str:
    before = os.environ.get("CXARENA_BENCH_BEFORE")
    sides = [("door", REPO)] + ([("before", Path(before))] if before else [])
    measures: list[tuple[str, list[str], bool]] = [
        ("check-bot L1 --quick", ["-m", "arena", "check-bot", "L1", "--quick", "--time", "1"],
         False),
        ("probe: check_loadable(L1)", ["-c", PROBE], False),
    ]
    if shutil.which("javac"):
        java = ["-m", "arena", "check-bot", f"java:{REPO / 'examples' / 'java'}", "--quick",
                "--time", "1"]
        measures += [("check-bot java (cold cache: javac)", java, False),
                     ("check-bot java (warm cache)", java, True)]
    lines = ["## The one door: sandboxed probe and javac against before", "",
             "`CXARENA_BENCH_BEFORE=<checkout before the door> .venv/bin/python -m bench door`"
             f"; median of {ROUNDS} runs each, interleaved.", "",
             "| measure | " + " | ".join(f"{name} (s)" for name, _ in sides)
             + (" | door / before |" if before else " |"),
             "|---|" + "---:|" * len(sides) + ("---:|" if before else "")]
    for label, argv, warm in measures:
        caches = {name: tempfile.mkdtemp(prefix="cxbench-warm-") if warm else None
                  for name, _ in sides}
        if warm:
            for name, checkout in sides:
                _run(checkout, argv, caches[name])
        times: dict[str, list[float]] = {name: [] for name, _ in sides}
        for _ in range(ROUNDS):
            for name, checkout in sides:
                times[name].append(_run(checkout, argv, caches[name]))
        med = {name: statistics.median(t) for name, t in times.items()}
        row = f"| {label} | " + " | ".join(f"{med[name]:.2f}" for name, _ in sides)
        if before:
            row += f" | {med['door'] / med['before']:.2f}x"
        lines.append(row + " |")
        for cache in caches.values():
            if cache:
                shutil.rmtree(cache, ignore_errors=True)
    return "\n".join(lines) + "\n"


def main() -> None:
    print(run())


if __name__ == "__main__":
    main()
