"""Dask executor benchmarks: overhead per game against the local executor, timing accuracy of
bots on Dask workers, and the inputs of docs/scaling.md.

    .venv/bin/python -m bench dask

1. Overhead: the same games (L0 vs L0 on 6x7x4, trivial bots, so the harness is all there is)
   on the same two single-threaded workers: `LocalExecutor(workers=2)` and `DaskExecutor` on a
   `LocalCluster(n_workers=2, threads_per_worker=1)`. Each is timed for a short and a long run;
   the difference between the two runs, divided by the extra games, is the marginal wall time
   per game (start-ups cancel out); times the 2 workers it is the time a worker spends per game.
   Best of 5 alternated repetitions (each value is printed).
2. Timing accuracy on Dask workers (limit 100 ms + 10 ms grace, the referee bench's test):
   bots that answer after 95 ms of busy work must never be flagged, bots that answer after
   120 ms must always be.
3. Inputs of the scaling estimate: the coordinator's SQLite commits per second, the Dask
   scheduler's round trips per second for trivial tasks, a bot's start-up time and memory, and
   the fingerprint check per game; then `bench.scaling` simulates the course's competition.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.limits import Limits

LIMIT_S = 0.100
GRACE_S = 0.010


def _games(n: int, tag: str) -> list[Any]:
    from arena.competition.jobs import GameJob
    from arena.records import recorded_game

    board = recorded_game("connectx", 6, 7, 4, ())
    return [GameJob(f"{tag}-{i}", board, "L0", "L0", "L0", "L0", 1000 + i) for i in range(n)]


def _timed(executor: Any, games: list[Any]) -> tuple[float, int]:
    t0 = time.perf_counter()
    bad = 0
    for oc in executor.run(games):
        bad += oc.record is None or oc.record.is_fault
    return time.perf_counter() - t0, bad


def overhead(address: str, short: int = 40, long: int = 240, repeats: int = 5,
             ) -> dict[str, Any]:
    """Marginal wall time per game of each executor: the best of `repeats` alternated pairs
    (the load of a shared machine only ever adds time; all values are printed)."""
    from arena.competition.dask_executor import DaskExecutor
    from arena.competition.executor import LocalExecutor
    from arena.referee.referee import MatchSettings

    settings = MatchSettings(limits=Limits(timeout_s=1.0))
    _timed(DaskExecutor(settings, address), _games(10, "warm"))  # bots started on workers
    per_game: dict[str, list[float]] = {"local": [], "dask": []}
    for r in range(repeats):
        for name, make in (("local", lambda: LocalExecutor(settings, workers=2)),
                           ("dask", lambda: DaskExecutor(settings, address))):
            t_short, bad1 = _timed(make(), _games(short, f"{name}-s{r}"))
            t_long, bad2 = _timed(make(), _games(long, f"{name}-l{r}"))
            assert bad1 == bad2 == 0
            per_game[name].append(1000 * (t_long - t_short) / (long - short))
    out: dict[str, Any] = {f"{k}_per_game_ms": min(v) for k, v in per_game.items()}
    out.update({f"{k}_all": v for k, v in per_game.items()})
    out["games"] = long
    out["overhead_per_game_ms"] = 2 * (out["dask_per_game_ms"] - out["local_per_game_ms"])
    return out


def accuracy(address: str, ontime_games: int = 16, late_games: int = 20) -> dict[str, Any]:
    """The 95 ms / 120 ms test on the Dask workers and, as the control on the same machine at
    the same time, on the local executor's two workers."""
    from arena.competition.dask_executor import DaskExecutor
    from arena.competition.executor import LocalExecutor
    from arena.competition.jobs import GameJob
    from arena.records import recorded_game
    from arena.referee.referee import MatchSettings

    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S, grace_s=GRACE_S))
    paced = "bench.bench_referee:Paced"
    board = recorded_game("connectx", 6, 7, 4, ())
    ontime = [GameJob(f"ontime-{i}", board, "a", "b", paced, paced, i, {"answer_s": 0.095},
                      {"answer_s": 0.095}) for i in range(ontime_games)]
    late = [GameJob(f"late-{i}", board, "a", "b", paced, "L0", i, {"answer_s": 0.120})
            for i in range(late_games)]
    out: dict[str, Any] = {}
    for name, make in (("dask", lambda: DaskExecutor(settings, address)),
                       ("local", lambda: LocalExecutor(settings, workers=2))):
        out[name] = _accuracy(make, ontime, late)
    return out


def _accuracy(make: Any, ontime: list[Any], late: list[Any]) -> dict[str, Any]:
    from arena.records import Reason

    times: list[float] = []
    flagged: list[str] = []
    moves = 0
    for oc in make().run(ontime):
        assert oc.record is not None, oc.error
        times.extend(oc.record.times_ms)
        moves += oc.record.n_moves
        if oc.record.is_fault:
            flagged.append(oc.record.detail)
            moves += 1
    late_flagged = 0
    detect: list[float] = []
    for oc in make().run(late):
        assert oc.record is not None, oc.error
        r = oc.record
        if r.reason is Reason.TIMEOUT and r.offender == 1 and not r.n_moves:
            late_flagged += 1
            detect.append(float(r.detail.split(" after ", 1)[1].split(" ms", 1)[0]))
    s = sorted(times)
    return {"moves": moves, "flagged": flagged, "p99_ms": s[min(len(s) - 1, int(.99 * len(s)))],
            "max_ms": max(s), "late_games": len(late), "late_flagged": late_flagged,
            "late_max_over_ms": max(detect) - 1000 * (LIMIT_S + GRACE_S)}


def scheduler_round_trips(client: Any, tasks: int = 2000) -> float:
    """Trivial tasks per second through the scheduler (submit, run, gather)."""
    t0 = time.perf_counter()
    futures = client.map(int, range(tasks), pure=False)
    client.gather(futures)
    return tasks / (time.perf_counter() - t0)


def sqlite_commits(games: int = 2000) -> float:
    """Games per second the coordinator can commit to the store (one commit per game)."""
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game
    from arena.results.store import ResultStore

    l0 = parse_spec("L0")
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(l0, l0, course_game(6, 7, 4), seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        with ResultStore(Path(tmp) / "games.sqlite") as store:
            t0 = time.perf_counter()
            for i in range(games):
                store.add(rec.labelled(game_id=f"g{i}", round=1, player1="a", player2="b"))
            return games / (time.perf_counter() - t0)


def bot_startup() -> dict[str, float]:
    """Start-up (hello -> ready) and resident memory of a Python bot process (L1)."""
    from arena.entrants.specs import parse_spec
    from arena.referee.referee import MatchSettings, Referee, course_game

    l1 = parse_spec("L1")
    starts: list[float] = []
    rss_kib = 0
    for i in range(5):
        with Referee(MatchSettings(limits=Limits(timeout_s=1.0), fresh_process=False)) as referee:
            t0 = time.perf_counter()
            referee.play(l1, l1, course_game(6, 7, 4), seed=i)
            starts.append(time.perf_counter() - t0)
            for pid in referee.idle_pids():  # the sandbox's process, then the bot below it
                rss_kib = max([rss_kib] + [_rss_kib(p) for p in _process_tree(pid)])
    return {"first_game_s": statistics.median(starts), "rss_mib": rss_kib / 1024}


def _process_tree(pid: int) -> list[int]:
    """`pid` and every process below it (from /proc's children lists)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except OSError:  # the process or thread is gone
                pass
    return out


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def fingerprint_ms(n: int = 200) -> float:
    from arena.competition.dask_worker import worker_fingerprints

    t0 = time.perf_counter()
    for _ in range(n):
        worker_fingerprints(["L0", "L1"])
    return 1000 * (time.perf_counter() - t0) / n / 2


def main() -> None:
    print("## Dask executor\n")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("skipped: `distributed` is not installed (pip install 'cxarena[dask]')\n")
        return
    from bench import scaling

    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as locks:
        os.environ["CXARENA_CORE_LOCK_DIR"] = locks
        t0 = time.perf_counter()
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0", silence_logs=40) as cluster:
            cluster_s = time.perf_counter() - t0
            ov = overhead(cluster.scheduler_address)
            acc = accuracy(cluster.scheduler_address)
            with Client(cluster.scheduler_address, set_as_default=False) as client:
                rt = scheduler_round_trips(client)
    db = sqlite_commits()
    boot = bot_startup()
    fp = fingerprint_ms()
    load1 = os.getloadavg()[0]
    rows = [
        ("LocalCluster start (scheduler + 2 worker processes)", f"{cluster_s:.1f} s"),
        (f"Wall per game, L0 vs L0 6x7x4, 2 workers, local executor (marginal, runs of 40 "
         f"and {ov['games']} games, best of 5)", f"{ov['local_per_game_ms']:.1f} ms"),
        ("Same games, same 2 workers, Dask executor", f"{ov['dask_per_game_ms']:.1f} ms"),
        ("Dask overhead per game, per worker (2 x the difference)",
         f"{ov['overhead_per_game_ms']:.1f} ms (local runs: "
         + ", ".join(f"{x:.1f}" for x in ov["local_all"]) + " ms; Dask runs: "
         + ", ".join(f"{x:.1f}" for x in ov["dask_all"]) + " ms)"),
        ("Fingerprint of 2 bots from scratch (the worker caches it per file stat)",
         f"{2 * fp:.1f} ms"),
    ]
    for name in ("dask", "local"):
        a = acc[name]
        where = "Dask workers" if name == "dask" else "local executor (control, same moment)"
        rows += [
            (f"Bots answering at 95 ms, {where} (limit 100 + 10 ms): flagged",
             f"{len(a['flagged'])} of {a['moves']} moves; p99 {a['p99_ms']:.1f} ms, "
             f"slowest {a['max_ms']:.1f} ms"),
            (f"Bots answering at 120 ms, {where}: flagged",
             f"{a['late_flagged']} of {a['late_games']}; detected at most "
             f"{a['late_max_over_ms']:.1f} ms after the deadline"),
        ]
    rows += [
        ("Scheduler round trips, trivial tasks, 2 workers", f"{rt:.0f} tasks/s"),
        ("Coordinator SQLite commits (one per game)", f"{db:.0f} games/s"),
        ("Python bot (L1): first game incl. start-up of 2 processes, resident memory",
         f"{1000 * boot['first_game_s']:.0f} ms, {boot['rss_mib']:.0f} MiB per process"),
    ]
    print("| Measure | Result |")
    print("|---|---|")
    for name, result in rows:
        print(f"| {name} | {result} |")
    print(f"\nLoad average (1 min) before/after: {load0:.1f} / {load1:.1f}.")
    for name in ("dask", "local"):
        for detail in acc[name]["flagged"]:
            print(f"\n- flagged 95 ms move ({name}): {detail}")
    print()
    overhead_s = max(0.0, ov["overhead_per_game_ms"]) / 1000 + ov["local_per_game_ms"] * 2 / 1000
    print(scaling.report(overhead_s=overhead_s, startup_s=boot["first_game_s"] / 2,
                         bot_rss_mib=boot["rss_mib"], sqlite_per_s=db, scheduler_per_s=rt))


if __name__ == "__main__":
    main()
