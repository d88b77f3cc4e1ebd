"""Java entrant benchmarks: the Java host's per-move overhead, a JVM bot's start-up, JIT warm-up.

    .venv/bin/python -m bench java

All at 1 s per move on 6x7x4, the bots and the referee pinned to one core, processes reused,
the default memory limit (RLIMIT_DATA: a stock JVM starts under it without flags).

1. Per-move overhead: a Java bot that answers at once (the first free column) against L0;
   the referee's recorded times of the Java bot's moves (write request -> kernel arrival of
   the answer: the host parsing the line, copying the board, calling selectColumn, writing),
   median and p99. The same for a Python bot that answers at once, for comparison.
2. Start-up: process start to `ready` (JVM start, class loading, the host's warm-up) of a fresh
   Java bot, against a fresh Python bot.
3. JIT warm-up: the slowest move of a Java bot that searches (examples/java: Blocker, a
   two-ply look-ahead) in the first game of a fresh JVM, against its slowest move in each of
   the next games of the same JVM.

Skipped (with a line saying so) when javac is missing.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import threading
from pathlib import Path
from typing import Any

from arena.board import CXBoard
from arena.player import CXPlayer

LIMIT_S = 1.0
BOARD = (6, 7, 4)
REPO = Path(__file__).resolve().parent.parent

QUICK_JAVA = """
package connectx.Quick;

import connectx.CXBoard;
import connectx.CXPlayer;

public class Quick implements CXPlayer {
    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {
    }

    public int selectColumn(CXBoard B) {
        return B.getAvailableColumns()[0];
    }

    public String playerName() {
        return "Quick";
    }
}
"""


class QuickPy(CXPlayer):
    """The Python twin of the Java bot above: the first free column, at once."""

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        pass

    def selectColumn(self, B: CXBoard) -> int:
        return B.getAvailableColumns()[0]

    def playerName(self) -> str:
        return "QuickPy"


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _on_core(cpu: int, fn: Any) -> Any:
    out: dict[str, Any] = {}

    def target() -> None:
        os.sched_setaffinity(0, {cpu})  # this thread only: bots started from it inherit it
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


def _side_times(rec: Any, side: int) -> list[float]:
    return list(rec.times_ms[side - 1::2])


def measure(games: int = 100, starts: int = 10, jvms: int = 5, later_games: int = 10,
            ) -> dict[str, Any]:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    cpu = sorted(os.sched_getaffinity(0))[0]
    tmp = Path(tempfile.mkdtemp(prefix="cxarena-bench-java-"))
    src = tmp / "connectx" / "Quick" / "Quick.java"
    src.parent.mkdir(parents=True)
    src.write_text(QUICK_JAVA)
    M, N, K = BOARD

    def job() -> dict[str, Any]:
        quick = parse_spec(f"java:{tmp}")  # compiles (once per content)
        quick_py = parse_spec("bench.bench_java:QuickPy")
        blocker = parse_spec(f"java:{REPO / 'examples' / 'java'}")
        l0 = parse_spec("L0")
        out: dict[str, Any] = {}
        # 1. per-move overhead, processes reused
        for name, bot in (("java", quick), ("python", quick_py)):
            times: list[float] = []
            with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), cpu=cpu)) as ref:
                for i in range(5):  # warm up (and start the processes)
                    ref.play(bot, l0, course_game(M, N, K), seed=i)
                for i in range(games):
                    first = i % 2 == 0
                    rec = (ref.play(bot, l0, course_game(M, N, K), seed=100 + i) if first
                           else ref.play(l0, bot, course_game(M, N, K), seed=100 + i))
                    assert not rec.is_fault, rec.detail
                    times += _side_times(rec, 1 if first else 2)
            out[name] = {"moves": len(times), "median_us": 1000 * statistics.median(times),
                         "p99_us": 1000 * _pct(times, 0.99), "max_us": 1000 * max(times)}
        # 2. start-up of fresh processes
        for name, bot in (("java_startup", quick), ("python_startup", quick_py)):
            startup: list[float] = []
            for i in range(starts):
                with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), cpu=cpu)) as ref:
                    rec = ref.play(bot, l0, course_game(M, N, K), seed=i)
                    assert not rec.is_fault, rec.detail
                    startup.append(float(rec.extra["startup_ms"][0]))
            out[name] = {"median_ms": statistics.median(startup), "max_ms": max(startup),
                         "min_ms": min(startup)}
        # 3. JIT warm-up: slowest move of the first game vs later games of the same JVM
        first_max: list[float] = []
        later_max: list[float] = []
        for j in range(jvms):
            with Referee(MatchSettings(limits=Limits(timeout_s=LIMIT_S), cpu=cpu)) as ref:
                for g in range(1 + later_games):
                    rec = ref.play(blocker, l0, course_game(M, N, K), seed=1000 * j + g)
                    assert not rec.is_fault, rec.detail
                    slowest = max(_side_times(rec, 1))
                    (first_max if g == 0 else later_max).append(slowest)
        out["warmup"] = {"first_median_ms": statistics.median(first_max),
                         "first_max_ms": max(first_max),
                         "later_median_ms": statistics.median(later_max),
                         "later_max_ms": max(later_max), "jvms": jvms,
                         "later_games": later_games}
        return out

    try:
        result: dict[str, Any] = _on_core(cpu, job)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return result


def main() -> None:
    print("## Java entrants (bench_java)\n")
    if shutil.which("javac") is None:
        print("Skipped: no javac on PATH.\n")
        return
    load_before = os.getloadavg()[0]
    r = measure()
    load_after = os.getloadavg()[0]
    java, py = r["java"], r["python"]
    js, ps, w = r["java_startup"], r["python_startup"], r["warmup"]
    print(f"6x7x4 at {LIMIT_S:g} s per move, one core, default memory limit.\n")
    print("| Measure | Java bot | Python bot |")
    print("|---|---|---|")
    print(f"| Per-move time of a bot answering at once, median ({java['moves']} / "
          f"{py['moves']} moves) | {java['median_us']:.0f} us | {py['median_us']:.0f} us |")
    print(f"| the same, p99 | {java['p99_us']:.0f} us | {py['p99_us']:.0f} us |")
    print(f"| the same, slowest | {java['max_us']:.0f} us | {py['max_us']:.0f} us |")
    print(f"| Start-up (process start to `ready`), median of 10 | {js['median_ms']:.0f} ms | "
          f"{ps['median_ms']:.0f} ms |")
    print(f"| Start-up, range | {js['min_ms']:.0f}-{js['max_ms']:.0f} ms | "
          f"{ps['min_ms']:.0f}-{ps['max_ms']:.0f} ms |")
    print()
    print(f"JIT warm-up (examples/java Blocker vs L0, {w['jvms']} fresh JVMs, each playing 1 + "
          f"{w['later_games']} games):\n")
    print("| Slowest move of a game | median | max |")
    print("|---|---|---|")
    print(f"| first game of a JVM | {w['first_median_ms']:.1f} ms | {w['first_max_ms']:.1f} ms |")
    print(f"| later games | {w['later_median_ms']:.1f} ms | {w['later_max_ms']:.1f} ms |")
    print(f"\nLoad average (1 min) before/after: {load_before:.1f} / {load_after:.1f}.\n")


if __name__ == "__main__":
    main()
