"""Cgroup benchmarks: what one cgroup per bot (arena.referee.cgroups) costs, cgroups on vs off
in one run, alternating, the bots pinned to one core.

    .venv/bin/python -m bench cgroups

1. Start-up of a bot process (spawn -> `ready`, `GameRecord.extra["startup_ms"]`), L0, a fresh
   (sandboxed) process per game: making the group, moving bwrap into it, removing it after.
2. Per-move round trip: L0 vs L0 on 6x7x4, processes reused (the referee's recorded time per
   move, and the loop's wall time per move, which includes freezing and thawing).
3. Freezing and thawing a sleeping process: the cgroup freezer (write FROZEN, wait until the
   group says FROZEN, THAWED; v2: cgroup.freeze and cgroup.events) vs SIGSTOP/SIGCONT to its
   process group.
4. A hung bot: how long after its deadline its game ends (unsandboxed, so that it can note
   when its move started), 30 games per mode: the median, p90 and the worst (issue 30 asks
   for 5 ms at most with cgroups on).
"""

from __future__ import annotations

import os
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.limits import Limits
from arena.records import NO_CGROUP
from bench.bench_referee import _on_core, _pct

MODES = (False, True)  # cgroups off, on
LIMIT_S = 0.1
GRACE_S = 0.01


def startup(cpu: int, games: int = 10) -> dict[bool, list[float]]:
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    l0 = parse_spec("L0")
    out: dict[bool, list[float]] = {m: [] for m in MODES}
    for i in range(games):
        for mode in MODES:
            settings = MatchSettings(limits=Limits(timeout_s=2.0), cpu=cpu, fresh_process=True,
                                     cgroups=mode)
            with Referee(settings) as referee:
                rec = referee.play(l0, l0, course_game(4, 4, 3), seed=i)
                assert not rec.is_fault, rec.detail
                out[mode] += [x for x in rec.extra["startup_ms"] if x is not None]
    return out


def round_trip(cpu: int, games: int = 60, rounds: int = 3) -> dict[bool, dict[str, Any]]:
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    l0 = parse_spec("L0")
    times: dict[bool, list[float]] = {m: [] for m in MODES}
    wall: dict[bool, float] = dict.fromkeys(MODES, 0.0)
    moves: dict[bool, int] = dict.fromkeys(MODES, 0)
    referees = {m: Referee(MatchSettings(limits=Limits(timeout_s=1.0), cpu=cpu, cgroups=m))
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
                    assert not rec.is_fault and (rec.extra["cgroup"] != NO_CGROUP) == mode
                    times[mode].extend(rec.times_ms)
                    moves[mode] += rec.n_moves
                wall[mode] += time.perf_counter() - t0
    finally:
        for referee in referees.values():
            referee.close()
    return {m: {"median_us": 1000 * statistics.median(times[m]),
                "p99_us": 1000 * _pct(times[m], 0.99),
                "loop_us": 1e6 * wall[m] / moves[m], "moves": moves[m]} for m in MODES}


def freezing(runs: int = 300) -> dict[str, list[float]]:
    """Microseconds per freeze + thaw of one sleeping process: freezer vs signals."""
    from arena.referee.cgroups import open_cgroups

    cg = open_cgroups()
    assert cg is not None
    group = cg.create(f"bench-{time.time_ns()}", None, None)
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    group.add(proc.pid)
    out: dict[str, list[float]] = {"freezer": [], "signals": []}
    try:
        if not group.has_freezer:
            return out
        for _ in range(runs):
            t0 = time.perf_counter()
            assert group.freeze()
            group.thaw()
            t1 = time.perf_counter()
            os.killpg(proc.pid, signal.SIGSTOP)
            os.killpg(proc.pid, signal.SIGCONT)
            t2 = time.perf_counter()
            out["freezer"].append(1e6 * (t1 - t0))
            out["signals"].append(1e6 * (t2 - t1))
    finally:
        group.kill_all()
        proc.wait()
        group.remove()
    return out


def hung(cpu: int, games: int = 30) -> dict[bool, list[float]]:
    """Milliseconds from a hung bot's deadline to the end of its game."""
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    bot, l0 = parse_spec("bench.bench_referee:Hung"), parse_spec("L0")
    tmp = Path(tempfile.mkdtemp(prefix="cxarena-bench-cgroups-"))
    out: dict[bool, list[float]] = {m: [] for m in MODES}
    try:
        referees = {m: Referee(MatchSettings(
            limits=Limits(timeout_s=LIMIT_S, grace_s=GRACE_S, startup_timeout_s=30.0),
            cpu=cpu, isolation="none", cgroups=m, overload_replays=0)) for m in MODES}
        try:
            for i in range(games):
                for mode, referee in referees.items():
                    stamp = tmp / f"hung-{mode}-{i}"
                    rec = referee.play(bot, l0, course_game(6, 7, 4), seed=i,
                                       options1={"stampfile": str(stamp)})
                    end = time.time()
                    assert rec.offender == 1, rec.detail
                    started = float(stamp.read_text())
                    out[mode].append(1000 * (end - started - LIMIT_S - GRACE_S))
        finally:
            for referee in referees.values():
                referee.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    from arena.referee.cgroups import detect

    print("## Cgroups\n")
    support = detect()
    if not support.available:
        print(f"Skipped: no cgroups here ({support.reason}).\n")
        return
    cpu = sorted(os.sched_getaffinity(0))[0]
    load0 = os.getloadavg()[0]
    start = _on_core(cpu, lambda: startup(cpu))
    trip = _on_core(cpu, lambda: round_trip(cpu))
    frz = freezing()
    stuck = _on_core(cpu, lambda: hung(cpu))
    load1 = os.getloadavg()[0]

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} ms (p90 {_pct(values, 0.9):.1f})"

    def ms_max(values: list[float]) -> str:
        return (f"{statistics.median(values):.1f} ms (p90 {_pct(values, 0.9):.1f}, max "
                f"{max(values):.1f})")

    def us(values: list[float]) -> str:
        return f"{statistics.median(values):.0f} us (p90 {_pct(values, 0.9):.0f})" \
            if values else "no freezer"

    rows = [
        ("Start-up to `ready`, L0, sandboxed", ms(start[False]), ms(start[True])),
        ("Per-move round trip, L0, median", f"{trip[False]['median_us']:.0f} us",
         f"{trip[True]['median_us']:.0f} us"),
        ("Per-move round trip, L0, p99", f"{trip[False]['p99_us']:.0f} us",
         f"{trip[True]['p99_us']:.0f} us"),
        ("Referee loop per move (wall, incl. freeze/thaw)", f"{trip[False]['loop_us']:.0f} us",
         f"{trip[True]['loop_us']:.0f} us"),
        ("A hung bot's game ends after its deadline", ms_max(stuck[False]),
         ms_max(stuck[True])),
    ]
    print(f"{support.summary()}.\n")
    print("| Measure | cgroups off | cgroups on |")
    print("|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a} | {b} |")
    print(f"\nFreeze + thaw of one sleeping process, {len(frz['signals'])} times: SIGSTOP + "
          f"SIGCONT to its process group {us(frz['signals'])}, the cgroup freezer "
          f"{us(frz['freezer'])}.")
    print(f"\n{len(start[False])} / {len(start[True])} fresh processes per start-up row; "
          f"{trip[False]['moves']} / {trip[True]['moves']} timed moves; {len(stuck[True])} hung "
          f"games each. All on core {cpu}. Load average (1 min) before/after: {load0:.1f} / "
          f"{load1:.1f}.\n")


if __name__ == "__main__":
    main()
