"""Isolation benchmarks: what the bubblewrap sandbox (arena.referee.sandbox) costs, side by side
with unsandboxed bots in one run.

    .venv/bin/python -m bench isolation

1. Sandbox alone: `bwrap ... true` (namespaces, mounts, the /etc masks) against plain `true`.
2. Start-up of a bot process (spawn -> `ready`, `GameRecord.extra["startup_ms"]`), a Python
   bot (L0 through `arena.entrants.host`) and a shell bot (`exec:sh`), a fresh process per game.
3. Per-move round trip: L0 vs L0 on 6x7x4, processes reused, the referee's recorded time per
   move, and the referee loop's wall time per move.

Everything runs on one core (the bots pinned to it); both variants alternate in rounds so that a
change of machine load hits them alike.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from arena.limits import Limits
from bench.bench_referee import _on_core, _pct

SHELL_BOT = Path(__file__).resolve().parents[1] / "tests" / "referee" / "zoo" / "shellbot.sh"
MODES = ("none", "namespaces")


def sandbox_alone(runs: int = 30) -> dict[str, list[float]]:
    from arena.referee.sandbox import Sandbox

    bwrap = shutil.which("bwrap") or "bwrap"
    argvs = {"none": ["true"], "namespaces": [bwrap, *Sandbox().base_args(), "--", "true"]}
    out: dict[str, list[float]] = {m: [] for m in MODES}
    for _ in range(runs):
        for mode in MODES:
            t0 = time.perf_counter()
            subprocess.run(argvs[mode], check=True)
            out[mode].append(1000 * (time.perf_counter() - t0))
    return out


def startup(cpu: int, games: int = 10) -> dict[tuple[str, str], list[float]]:
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    bots = {"python": parse_spec("L0"), "shell": parse_spec(f"exec:sh {SHELL_BOT}")}
    l0 = bots["python"]
    out: dict[tuple[str, str], list[float]] = {(m, b): [] for m in MODES for b in bots}
    for i in range(games):
        for mode in MODES:
            settings = MatchSettings(limits=Limits(timeout_s=2.0), cpu=cpu, fresh_process=True,
                                     isolation=mode)
            with Referee(settings) as referee:
                for kind, bot in bots.items():
                    rec = referee.play(bot, l0, course_game(4, 4, 3), seed=i)
                    assert not rec.is_fault, rec.detail
                    out[(mode, kind)].append(rec.extra["startup_ms"][0])
    return out


def round_trip(cpu: int, games: int = 60, rounds: int = 3) -> dict[str, dict[str, Any]]:
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    l0 = parse_spec("L0")
    times: dict[str, list[float]] = {m: [] for m in MODES}
    wall: dict[str, float] = dict.fromkeys(MODES, 0.0)
    moves: dict[str, int] = dict.fromkeys(MODES, 0)
    referees = {m: Referee(MatchSettings(limits=Limits(timeout_s=1.0), cpu=cpu, isolation=m))
                for m in MODES}
    try:
        for referee in referees.values():
            for i in range(5):  # start the processes, warm up
                referee.play(l0, l0, course_game(6, 7, 4), seed=i)
        for r in range(rounds):
            for mode, referee in referees.items():
                t0 = time.perf_counter()
                for i in range(games // rounds):
                    rec = referee.play(l0, l0, course_game(6, 7, 4), seed=1000 + r * games + i)
                    assert not rec.is_fault and rec.extra["isolated"] == (mode != "none")
                    times[mode].extend(rec.times_ms)
                    moves[mode] += rec.n_moves
                wall[mode] += time.perf_counter() - t0
    finally:
        for referee in referees.values():
            referee.close()
    return {m: {"median_us": 1000 * statistics.median(times[m]),
                "p99_us": 1000 * _pct(times[m], 0.99),
                "loop_us": 1e6 * wall[m] / moves[m], "moves": moves[m]} for m in MODES}


def main() -> None:
    from arena.referee.sandbox import probe

    print("## Isolation\n")
    why_not = probe()
    if why_not is not None:
        print(f"Skipped: this machine cannot isolate bots ({why_not}).\n")
        return
    cpu = sorted(os.sched_getaffinity(0))[0]
    load0 = os.getloadavg()[0]
    alone = sandbox_alone()
    start = _on_core(cpu, lambda: startup(cpu))
    trip = _on_core(cpu, lambda: round_trip(cpu))
    load1 = os.getloadavg()[0]

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} ms (p90 {_pct(values, 0.9):.1f})"

    rows = [
        ("`true` alone vs `bwrap <sandbox> true`", ms(alone["none"]), ms(alone["namespaces"])),
        ("Start-up to `ready`, Python bot (L0)", ms(start[("none", "python")]),
         ms(start[("namespaces", "python")])),
        ("Start-up to `ready`, shell bot (exec:sh)", ms(start[("none", "shell")]),
         ms(start[("namespaces", "shell")])),
        ("Per-move round trip, L0, median", f"{trip['none']['median_us']:.0f} us",
         f"{trip['namespaces']['median_us']:.0f} us"),
        ("Per-move round trip, L0, p99", f"{trip['none']['p99_us']:.0f} us",
         f"{trip['namespaces']['p99_us']:.0f} us"),
        ("Referee loop per move (wall, incl. SIGCONT/SIGSTOP)",
         f"{trip['none']['loop_us']:.0f} us", f"{trip['namespaces']['loop_us']:.0f} us"),
    ]
    print("| Measure | isolation: none | isolation: namespaces |")
    print("|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a} | {b} |")
    n_start = len(start[("none", "python")])
    print(f"\n{len(alone['none'])} runs of each command; {n_start} fresh processes per start-up "
          f"row; {trip['none']['moves']} / {trip['namespaces']['moves']} timed moves. "
          f"All on core {cpu}. Load average (1 min) before/after: {load0:.1f} / {load1:.1f}.\n")


if __name__ == "__main__":
    main()
