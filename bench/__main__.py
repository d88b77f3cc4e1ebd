"""Run every benchmark module (or those named on the command line) and print their Markdown.

    python -m bench                 # all of them
    python -m bench board referee   # only bench_board and bench_referee
    python -m bench sprt            # bench_sprt: SPRT cost by simulation (no real games)
    python -m bench eta             # bench_eta: ETA error, count vs cost (CXARENA_ETA_RESULTS=DIR)
"""

from __future__ import annotations

import importlib
import pkgutil
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(here)])
                   if m.name.startswith("bench_"))
    chosen = argv or names
    unknown = [n for n in chosen if n not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(names)}",
              file=sys.stderr)
        return 2
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if "model name" in line)
    except (OSError, StopIteration):
        pass
    import os

    print(f"# cxarena benchmarks, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"\nMachine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}\n")
    for name in chosen:
        mod = importlib.import_module(f"bench.bench_{name}")
        mod.main()
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
