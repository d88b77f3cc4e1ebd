"""Capped bot logs (arena.referee.logcap): how fast a stderr flood drains, and what the pipe and
its reader thread cost the referee.

    .venv/bin/python -m bench logcap

1. Drain: a process writing 200 MiB to stderr as fast as it can (`head -c` from /dev/zero, C
   speed), started as a `BotProcess`: wall time until it has exited and its log is synced, the
   throughput, and the log's size; the same writer into /dev/null (the writer's own speed) and
   into a plain file (what `stderr=file` did before).
2. A Python bot writing 200 MiB in initPlayer, then raising (tests/referee/zoo/stderr_bomb.py):
   wall time of its game (start-up included), the log's size.
3. Round trip: L0 vs L0 (`bench referee`'s throughput), alone, then while another Referee of
   the same process plays a bot that writes 8 MiB to stderr on every move (its reader thread
   competes with the measuring referee for the interpreter).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from arena.board import CXBoard
from arena.player import CXPlayer

MIB = 2**20
FLOOD_MIB = 200
ZOO = Path(__file__).resolve().parent.parent / "tests" / "referee" / "zoo"


class Flooder(CXPlayer):
    """Writes `mib` MiB to stderr on every move, then plays the first legal column."""

    mib = 8

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        self.block = b"x" * 1023 + b"\n"

    def selectColumn(self, B: CXBoard) -> int:
        out = sys.stderr.buffer
        chunk = self.block * 1024
        for _ in range(int(self.mib)):
            out.write(chunk)
        out.flush()
        return B.getAvailableColumns()[0]

    def playerName(self) -> str:
        return "flooder"


def _writer(target: str) -> list[str]:
    return ["sh", "-c", f"head -c {FLOOD_MIB * MIB} /dev/zero >{target}"]


def drain() -> dict[str, float]:
    from arena.referee.process import BotProcess

    tmp = Path(tempfile.mkdtemp(prefix="cxarena-bench-logcap-"))
    out: dict[str, float] = {}
    for name, target in (("devnull", "/dev/null"), ("file", str(tmp / "plain.log"))):
        t0 = time.perf_counter()
        subprocess.run(_writer(target), check=True)
        out[f"{name}_s"] = time.perf_counter() - t0
    log = tmp / "capped.log"
    t0 = time.perf_counter()
    proc = BotProcess(_writer("&2"), log_path=str(log), env=dict(os.environ))
    proc.wait_exit(120)
    proc.sync_log()
    out["pipe_s"] = time.perf_counter() - t0
    proc.close()
    out["pipe_log_bytes"] = log.stat().st_size
    out["file_log_bytes"] = (tmp / "plain.log").stat().st_size
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return out


def bomb() -> dict[str, float]:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    tmp = Path(tempfile.mkdtemp(prefix="cxarena-bench-logcap-"))
    bot, l0 = parse_spec(str(ZOO / "stderr_bomb.py")), parse_spec("L0")
    times = []
    with Referee(MatchSettings(limits=Limits(timeout_s=30.0), log_dir=str(tmp),
                               isolation="none")) as referee:
        for seed in range(3):
            t0 = time.perf_counter()
            rec = referee.play(l0, bot, course_game(4, 4, 3), seed=seed)
            times.append(time.perf_counter() - t0)
            assert rec.offender == 2 and "bomb" in rec.stderr_tail, rec.detail
    sizes = [f.stat().st_size for f in tmp.glob("*stderr_bomb*.log")]
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return {"game_s": statistics.median(times), "log_bytes": max(sizes)}


def round_trip(games: int = 300) -> dict[str, dict[str, float]]:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game
    from bench.bench_referee import throughput

    alone = throughput(games)
    stop = threading.Event()
    flood_moves = [0]

    def flood() -> None:
        bot, l0 = parse_spec("bench.bench_logcap:Flooder"), parse_spec("L0")
        with Referee(MatchSettings(limits=Limits(timeout_s=5.0), isolation="none")) as referee:
            while not stop.is_set():
                rec = referee.play(bot, l0, course_game(6, 7, 4), seed=0)
                flood_moves[0] += (rec.n_moves + 1) // 2

    t = threading.Thread(target=flood, daemon=True)
    t.start()
    time.sleep(1.0)
    try:
        t0, moves0 = time.perf_counter(), flood_moves[0]
        flooded = throughput(games)
        flooded["flood_mib_per_s"] = ((flood_moves[0] - moves0) * Flooder.mib
                                      / (time.perf_counter() - t0))
    finally:
        stop.set()
        t.join(30)
    return {"alone": alone, "flooded": flooded}


def main() -> None:
    print("## Capped bot logs\n")
    d = drain()
    b = bomb()
    rt = round_trip()
    rows = [
        (f"{FLOOD_MIB} MiB to stderr by `head -c` (C): into /dev/null (the writer alone)",
         f"{d['devnull_s']:.2f} s"),
        (f"{FLOOD_MIB} MiB: into a plain file (stderr=file, before)",
         f"{d['file_s']:.2f} s ({d['file_log_bytes'] / MIB:.0f} MiB on disk)"),
        (f"{FLOOD_MIB} MiB: through the pipe and reader thread into a capped log",
         f"{d['pipe_s']:.2f} s = {FLOOD_MIB / d['pipe_s']:.0f} MiB/s "
         f"({d['pipe_log_bytes'] / 1024:.1f} KiB on disk)"),
        (f"Python bot writing {FLOOD_MIB} MiB in initPlayer, then raising: its game (median "
         "of 3, start-up included)", f"{b['game_s']:.2f} s ({b['log_bytes'] / 1024:.1f} KiB log)"),
    ]
    for name, r in rt.items():
        extra = (f"; meanwhile the other Referee's bot wrote {r['flood_mib_per_s']:.0f} MiB/s"
                 if name == "flooded" else "")
        when = "another Referee of the process floods" if name == "flooded" else "alone"
        rows.append((f"Round trip L0 vs L0 ({when})",
                     f"median {r['median_us']:.0f} us, p99 {r['p99_us']:.0f} us, loop "
                     f"{r['loop_us']:.0f} us/move, {r['games_per_s']:.0f} games/s{extra}"))
    print("| Measure | Result |")
    print("|---|---|")
    for name, result in rows:
        print(f"| {name} | {result} |")
    print()


if __name__ == "__main__":
    main()
