"""Referee benchmarks: per-move round trip, games per second, timing accuracy under load.

    .venv/bin/python -m bench referee

1. Round trip: L0 vs L0 (a trivial bot) on 6x7x4, bots and referee on one core, processes
   reused. The referee's recorded time per move (write request -> read answer, which includes
   the host parsing the line, copying the board and calling selectColumn) and the whole loop's
   wall time per move (also SIGCONT/SIGSTOP, the referee's checks, the board update).
2. Games per second: the same games, wall clock.
3. Timing accuracy, limit 100 ms, two matches at once on two cores (one referee thread and its
   bots per core): bots that answer after 95 ms of busy work must never be flagged; bots that
   answer after 120 ms must always be; a hung bot's game must end within 50 ms of its deadline.

The paced and hung bots are defined here (`bench.bench_referee:Paced`, `...:Hung`).
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.board import CXBoard
from arena.limits import Limits
from arena.player import CXPlayer

LIMIT_S = 0.100
GRACE_S = 0.010


# ------------------------------------------------------------------------- bench bots
class Paced(CXPlayer):
    """Answers a random legal column after `answer_s` seconds of busy work (option)."""

    answer_s = 0.095

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.rng = random.Random(self.seed)

    def selectColumn(self, B: CXBoard) -> int:
        end = time.perf_counter() + self.answer_s
        while time.perf_counter() < end:
            pass
        return self.rng.choice(B.getAvailableColumns())

    def playerName(self) -> str:
        return f"paced {self.answer_s * 1000:g} ms"


class Hung(CXPlayer):
    """Notes the wall-clock time its first selectColumn starts (option `stampfile`), then
    never answers."""

    stampfile = ""

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        pass

    def selectColumn(self, B: CXBoard) -> int:
        if self.stampfile:
            with open(self.stampfile, "w") as f:
                f.write(repr(time.time()))
        # also on stderr (the bot's log, outside any sandbox): a sandboxed bot cannot write files
        print(f"hung-start {time.time()!r}", file=sys.stderr, flush=True)
        while True:
            time.sleep(1)

    def playerName(self) -> str:
        return "hung"


# ---------------------------------------------------------------------------- helpers
def _cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _on_core(cpu: int, fn: Callable[[], Any]) -> Any:
    """Run fn in a new thread pinned to `cpu` (bots started from it inherit the pinning)."""
    out: dict[str, Any] = {}

    def target() -> None:
        os.sched_setaffinity(0, {cpu})  # this thread only (Linux)
        try:
            out["value"] = fn()
        except BaseException as e:  # pragma: no cover (reported by the caller)
            out["error"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def _parallel(jobs: list[Callable[[], Any]]) -> list[Any]:
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = jobs[i]()
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


# ------------------------------------------------------------------------ measurements
def throughput(games: int = 400, isolation: str = "none") -> dict[str, float]:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    cpu = _cores()[0]
    l0 = parse_spec("L0")

    def job() -> dict[str, float]:
        with Referee(MatchSettings(limits=Limits(timeout_s=1.0), cpu=cpu,
                                   isolation=isolation)) as referee:
            t0 = time.perf_counter()
            referee.play(l0, l0, course_game(6, 7, 4), seed=0)  # starts both processes
            startup_s = time.perf_counter() - t0
            for i in range(20):  # warm up
                referee.play(l0, l0, course_game(6, 7, 4), seed=1 + i)
            times: list[float] = []
            moves = 0
            t0 = time.perf_counter()
            for i in range(games):
                rec = referee.play(l0, l0, course_game(6, 7, 4), seed=1000 + i)
                assert not rec.is_fault, rec.detail
                times.extend(rec.times_ms)
                moves += rec.n_moves
            wall_s = time.perf_counter() - t0
        return {"games_per_s": games / wall_s, "median_us": 1000 * statistics.median(times),
                "p99_us": 1000 * _pct(times, 0.99), "loop_us": 1e6 * wall_s / moves,
                "moves_per_game": moves / games, "first_game_s": startup_s}

    result: dict[str, float] = _on_core(cpu, job)
    return result


def accuracy(paced_moves: int = 1000, late_games: int = 30, hung_games: int = 30,
             ) -> dict[str, Any]:
    from arena.entrants.specs import parse_spec
    from arena.records import Reason
    from arena.referee.referee import MatchSettings, Referee, course_game

    cores = _cores()[:2]
    paced = parse_spec("bench.bench_referee:Paced")
    hung = parse_spec("bench.bench_referee:Hung")
    l0 = parse_spec("L0")
    # not isolated: the hung bot writes a stamp file (a sandboxed bot could not)
    settings = [MatchSettings(limits=Limits(timeout_s=LIMIT_S, grace_s=GRACE_S), cpu=c,
                              isolation="none")
                for c in cores]
    tmp = Path(tempfile.mkdtemp(prefix="cxarena-bench-"))

    def on_time(k: int) -> dict[str, Any]:
        os.sched_setaffinity(0, {cores[k]})
        quota = paced_moves // len(cores)
        flagged, counted = 0, 0
        times: list[float] = []
        late: list[str] = []
        with Referee(settings[k]) as referee:
            seed = 0
            while counted < quota:
                rec = referee.play(paced, paced, course_game(6, 7, 4), seed=seed,
                                   options1={"answer_s": 0.095}, options2={"answer_s": 0.095})
                seed += 1
                counted += rec.n_moves
                times.extend(rec.times_ms)
                if rec.is_fault:
                    flagged += 1
                    counted += 1
                    late.append(rec.detail)
        return {"moves": counted, "flagged": flagged, "max_ms": max(times), "late": late,
                "p99_ms": _pct(times, 0.99)}

    def late_and_hung(k: int) -> dict[str, Any]:
        os.sched_setaffinity(0, {cores[k]})
        late_flagged, late_detect, hung_end, hung_detect, hung_ok = 0, [], [], [], 0
        with Referee(settings[k]) as referee:
            for i in range(late_games // len(cores)):
                rec = referee.play(paced, l0, course_game(6, 7, 4), seed=i,
                                   options1={"answer_s": 0.120})
                if rec.reason is Reason.TIMEOUT and rec.offender == 1 and not rec.n_moves:
                    late_flagged += 1
                    late_detect.append(_after_ms(rec.detail))
            for i in range(hung_games // len(cores)):
                stamp = tmp / f"hung-{k}-{i}"
                rec = referee.play(hung, l0, course_game(6, 7, 4), seed=i,
                                   options1={"stampfile": str(stamp)})
                end = time.time()
                if rec.reason is Reason.TIMEOUT and rec.offender == 1:
                    hung_ok += 1
                    hung_detect.append(_after_ms(rec.detail))
                    started = float(stamp.read_text())
                    hung_end.append(1000 * (end - started - LIMIT_S - GRACE_S))
        return {"late_flagged": late_flagged, "late_detect": late_detect,
                "hung_ok": hung_ok, "hung_detect": hung_detect, "hung_end": hung_end}

    try:
        ontime = _parallel([functools.partial(on_time, k) for k in range(len(cores))])
        late = _parallel([functools.partial(late_and_hung, k) for k in range(len(cores))])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    deadline_ms = 1000 * (LIMIT_S + GRACE_S)
    return {
        "cores": len(cores),
        "ontime_moves": sum(r["moves"] for r in ontime),
        "ontime_flagged": sum(r["flagged"] for r in ontime),
        "ontime_max_ms": max(r["max_ms"] for r in ontime),
        "ontime_p99_ms": max(r["p99_ms"] for r in ontime),
        "ontime_late": [d for r in ontime for d in r["late"]],
        "late_games": len(cores) * (late_games // len(cores)),
        "late_flagged": sum(r["late_flagged"] for r in late),
        "late_max_detect_over_ms": max(x - deadline_ms for r in late for x in r["late_detect"]),
        "hung_games": len(cores) * (hung_games // len(cores)),
        "hung_ok": sum(r["hung_ok"] for r in late),
        "hung_max_detect_over_ms": max(x - deadline_ms for r in late for x in r["hung_detect"]),
        "hung_max_end_over_ms": max(x for r in late for x in r["hung_end"]),
        "hung_median_end_over_ms": statistics.median(x for r in late for x in r["hung_end"]),
    }


def deadline(isolation: str, games: int = 20) -> dict[str, Any]:
    """A hung bot's games on one core: how long after its deadline `Referee.play` returned,
    measured from the moment the bot began its move (it writes the time to its stderr log)."""
    from arena.entrants.specs import parse_spec
    from arena.records import Reason
    from arena.referee.referee import MatchSettings, Referee, course_game

    core = _cores()[0]
    os.sched_setaffinity(0, {core})
    logs = Path(tempfile.mkdtemp(prefix="cxarena-bench-deadline-"))
    hung, l0 = parse_spec("bench.bench_referee:Hung"), parse_spec("L0")
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S, grace_s=GRACE_S), cpu=core,
                             isolation=isolation, log_dir=str(logs), overload_replays=0)
    ends: list[float] = []
    with Referee(settings) as referee:
        referee.play(l0, l0, course_game(4, 4, 3), seed=0)  # warm up
        for i in range(games):
            rec = referee.play(hung, l0, course_game(6, 7, 4), seed=i)
            end = time.time()
            if rec.reason is not Reason.TIMEOUT or rec.offender != 1:
                continue
            stamps = [float(line.split()[1]) for f in logs.glob("*.log")
                      for line in f.read_text(errors="replace").splitlines()
                      if line.startswith("hung-start ")]
            ends.append(1000 * (end - max(stamps) - LIMIT_S - GRACE_S))
        isolated = referee.isolation.isolated
    return {"isolated": isolated, "games": len(ends), "max_ms": max(ends),
            "median_ms": statistics.median(ends)}


def _after_ms(detail: str) -> float:
    """The measured time in a timeout detail ("... after 110.4 ms, ...")."""
    return float(detail.split(" after ", 1)[1].split(" ms", 1)[0])


def main() -> None:
    print("## Referee\n")
    load0 = os.getloadavg()[0]
    tp = throughput()
    acc = accuracy()
    load1 = os.getloadavg()[0]
    ok = "yes" if acc["ontime_flagged"] == 0 else "NO"
    hung = {mode: deadline(mode) for mode in ("none", "namespaces")}
    rows = [
        ("Per-move round trip, trivial bot (L0), median", "<= 200 us",
         f"{tp['median_us']:.0f} us"),
        ("Per-move round trip, trivial bot (L0), p99", "", f"{tp['p99_us']:.0f} us"),
        ("Referee loop per move (wall, incl. SIGCONT/SIGSTOP)", "", f"{tp['loop_us']:.0f} us"),
        ("Games per second, L0 vs L0, 6x7x4, one core, reuse", ">= 100",
         f"{tp['games_per_s']:.0f} ({tp['moves_per_game']:.1f} moves/game)"),
        ("First game incl. starting two Python bot processes", "",
         f"{1000 * tp['first_game_s']:.0f} ms"),
        (f"Bots answering at 95 ms (limit 100 ms, {acc['cores']} matches on "
         f"{acc['cores']} cores): flagged", "0",
         f"{acc['ontime_flagged']} of {acc['ontime_moves']} moves ({ok}); p99 "
         f"{acc['ontime_p99_ms']:.1f} ms, slowest {acc['ontime_max_ms']:.1f} ms"),
        ("Bots answering at 120 ms: flagged", "all",
         f"{acc['late_flagged']} of {acc['late_games']}; the referee stopped waiting at most "
         f"{acc['late_max_detect_over_ms']:.1f} ms after the deadline"),
        ("Hung bot: game over after its deadline (100 + 10 ms)", "<= 50 ms",
         f"max {acc['hung_max_end_over_ms']:.1f} ms, median "
         f"{acc['hung_median_end_over_ms']:.1f} ms ({acc['hung_ok']} of {acc['hung_games']} "
         f"flagged; poll woke at most {acc['hung_max_detect_over_ms']:.1f} ms late)"),
    ]
    for mode, h in hung.items():
        rows.append((f"Hung bot, {'sandboxed' if h['isolated'] else 'not sandboxed'} "
                     f"(isolation {mode}): play() returned after the deadline", "<= 5 ms",
                     f"max {h['max_ms']:.1f} ms, median {h['median_ms']:.1f} ms "
                     f"({h['games']} games, one core)"))
    print("| Measure | Target | Result |")
    print("|---|---|---|")
    for name, target, result in rows:
        print(f"| {name} | {target} | {result} |")
    print(f"\nLoad average (1 min) before/after: {load0:.1f} / {load1:.1f}.")
    for detail in acc["ontime_late"]:
        print(f"\n- flagged 95 ms move: {detail}")
    print()


if __name__ == "__main__":
    main()
