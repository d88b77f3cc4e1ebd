"""Fair on a busy machine (issue 39): which outside load makes an honest bot late, and what
the kernel says the late moves waited for.

    .venv/bin/python -m bench fairload            # every kind of load, about 3 minutes
    .venv/bin/python -m bench.bench_fairload none busy2 memory   # some kinds
    .venv/bin/python -m bench.bench_fairload --default-weight      # the bots' folder at the
                                                  # default CPU weight (as before issue 39)
    .venv/bin/python -m bench.bench_fairload --no-cgroups          # rlimits only

For each kind of load, started here, outside cxarena, for the length of one short round robin
(L1, minimax, alphabeta on 6x7x4 and 7x8x5 at 0.08 s a move, both colours, 2 workers each
pinned to one core as a tournament's are) and two games of a bot that sleeps 1.3x the limit
(it must be charged at every load):

- none: nothing beside;
- busy1, busy2, busy4: 1, 2 or 4 busy processes per core (each in a session of its own);
- memory: a process cycling through 90% of MemAvailable (oom_score_adj 1000: the kernel's
  victim if anything runs out), which evicts the page cache the bots' code lives in;
- io: a writer of 4 MiB blocks with an fsync after each, in the temp folder;
- churn: a loop starting short processes (`/bin/true`) as fast as it can;
- tournament: another cxarena tournament (`cxarena tournament configs/quick.yaml`, its
  results in the temp folder, started again whenever it ends);
- evict: the page cache dropped every 0.5 s (root: /proc/sys/vm/drop_caches), which is what
  memory pressure from other programs does to the bots' code and libraries (each
  page then read again from disk, behind whatever else the disk is doing);
- mixed: busy2, io, churn, memory and tournament at once (issue 49); kinds joined with `+`
  (`io+evict`) run at once too.

Reported per kind: faults charged to the honest bots, overload replays, charged faults of the
1.3x bot (2 expected), the wall time, the machine's pressure (/proc/pressure/{cpu,memory,io}
`some` totals over the kind's run, as a share of its wall time) and, for every late move of an
honest bot, what its process waited for during the move: run-queue wait (schedstat
run_delay, all its threads), major page faults (/proc/PID/stat field 12), block-I/O delay
(field 42, delayacct_blkio_ticks: 0 unless kernel.task_delayacct is on; this benchmark does not
turn it on), and the machine's memory/io pressure stall during the move.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

from arena.board import CXBoard
from arena.player import CXPlayer

LIMIT_S = 0.08
GRACE_S = 0.010
PLAYERS = ("L1", "minimax", "alphabeta")
BOARDS = ((6, 7, 4), (7, 8, 5))
OVERRUN = 1.3
#: how the bots are contained: "cgroups" (the bots' folder at the highest CPU weight),
#: "default-weight" (cgroups, the folder at the kernel's default weight), "rlimits" (none)
CONTAINMENT = "cgroups"
KINDS = ("none", "busy1", "busy2", "busy4", "memory", "io", "churn", "tournament", "mixed")
#: the kinds "mixed" runs at once (issue 49: the load under which bots lost moves they never
#: got to play)
MIXED = ("busy2", "io", "churn", "memory", "tournament")


class Sleeper(CXPlayer):
    """Answers the leftmost legal column after sleeping `sleep_s` (not computing)."""

    sleep_s = 0.05

    def initPlayer(self, M: int, N: int, K: int, first: bool, timeout_in_secs: float) -> None:
        pass

    def selectColumn(self, B: CXBoard) -> int:
        time.sleep(self.sleep_s)
        return B.getAvailableColumns()[0]

    def playerName(self) -> str:
        return f"sleeper {self.sleep_s * 1000:g} ms"


# ------------------------------------------------------------------- the kernel's measures
def psi() -> dict[str, int]:
    """/proc/pressure/{cpu,memory,io}: `some` total stall (us) of each ({} if absent)."""
    out = {}
    for res in ("cpu", "memory", "io"):
        try:
            with open(f"/proc/pressure/{res}") as f:
                for line in f:
                    if line.startswith("some"):
                        out[res] = int(line.rsplit("total=", 1)[1])
        except (OSError, ValueError, IndexError):
            continue
    return out


def bot_pids(proc: Any) -> list[int]:
    """The bot's processes: its cgroup's, else those the referee knows (not bwrap's alone)."""
    group = getattr(proc, "cgroup", None)
    pids = group.procs() if group is not None else []
    return pids or sorted(getattr(proc, "_tasks", {proc.pid}))


def proc_waits(pids: list[int]) -> tuple[int, int, int, int]:
    """(run_delay ns of all threads, major faults, delayacct blkio ticks, CPU ns of all
    threads) of these processes."""
    total = [0, 0, 0, 0]
    for pid in pids:
        for i, v in enumerate(_one_proc_waits(pid)):
            total[i] += v
    return total[0], total[1], total[2], total[3]


def own_wait_ns() -> int:
    """Run-queue wait so far of the calling thread (the referee's)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def steal_ms() -> dict[str, float]:
    """Per CPU ("cpu0", ...; "cpu" all): the hypervisor's steal time so far (/proc/stat), ms."""
    out = {}
    tick_ms = 1000.0 / os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu"):
                parts = line.split()
                out[parts[0]] = int(parts[8]) * tick_ms if len(parts) > 8 else 0.0
    return out


def _one_proc_waits(pid: int) -> tuple[int, int, int, int]:
    delay = cpu = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    run, wait, *_ = f.read().split()
                cpu += int(run)
                delay += int(wait)
            except (OSError, ValueError, IndexError):
                continue
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # fields[0] is field 3 (state): field n is fields[n - 3]
        return delay, int(fields[12 - 3]), int(fields[42 - 3]), cpu
    except (OSError, ValueError, IndexError):
        return delay, 0, 0, cpu


def delayacct_on() -> bool:
    try:
        with open("/proc/sys/kernel/task_delayacct") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def _instrument(late: list[dict[str, Any]]) -> None:
    """Note the measures at each timed request's start (BotProcess.task_times' first call of a
    request) and, at each late move (Referee._late), what they became meanwhile."""
    from arena.referee import process as process_mod
    from arena.referee import referee as referee_mod

    starts: dict[int, tuple[float, dict[str, int], tuple[int, int, int, int],
                            dict[str, float], int]] = {}
    task_times = process_mod.BotProcess.task_times
    late_fn = referee_mod.Referee._late

    def task_times_noted(self: Any, refresh: bool = False, threads_only: bool = False) -> Any:
        if not refresh and not threads_only:
            starts[id(self)] = (time.perf_counter(), psi(), proc_waits(bot_pids(self)),
                                steal_ms(), own_wait_ns())
        return task_times(self, refresh, threads_only)

    def late_noted(self: Any, proc: Any, *args: Any, **kwargs: Any) -> Any:
        t1, p1, w1, s1 = time.perf_counter(), psi(), proc_waits(bot_pids(proc)), steal_ms()
        r1 = own_wait_ns()
        fault = late_fn(self, proc, *args, **kwargs)
        t0, p0, w0, s0, r0 = starts.get(id(proc), (t1, p1, w1, s1, r1))
        core = f"cpu{self.settings.cpu}" if self.settings.cpu is not None else "cpu"
        argv = " ".join(proc.argv)
        bot = next((n for n in ("Sleeper", *PLAYERS, "L0") if n in argv), argv[-40:])
        late.append({"bot": bot, "wall_ms": (t1 - t0) * 1e3,
                     "run_delay_ms": (w1[0] - w0[0]) / 1e6, "majflt": w1[1] - w0[1],
                     "cpu_ms": (w1[3] - w0[3]) / 1e6, "referee_wait_ms": (r1 - r0) / 1e6,
                     "steal_ms": s1.get(core, 0.0) - s0.get(core, 0.0),
                     "blkio_ms": (w1[2] - w0[2]) * 10.0,
                     **{f"psi_{k}_ms": (p1.get(k, 0) - p0.get(k, 0)) / 1e3 for k in p1},
                     "overload": bool(fault.overload),
                     "detail": fault.overload or fault.detail,
                     "known": sorted(getattr(proc, "_tasks", ())), "group": bot_pids(proc),
                     "threads": list(getattr(proc, "_threads", None) or ())})
        return fault

    process_mod.BotProcess.task_times = task_times_noted  # type: ignore[method-assign]
    referee_mod.Referee._late = late_noted  # type: ignore[method-assign]


# ------------------------------------------------------------------------------ the games
def _worker(index: int, jobs: list[tuple[str, str, tuple[int, int, int], int, dict[str, Any]]],
            log_dir: str, queue: Any) -> None:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    late: list[dict[str, Any]] = []
    _instrument(late)
    cpus = sorted(os.sched_getaffinity(0))
    settings = MatchSettings(limits=Limits(timeout_s=LIMIT_S, grace_s=GRACE_S),
                             cpu=cpus[index % len(cpus)], cgroups=CONTAINMENT != "rlimits",
                             log_dir=os.path.join(log_dir, f"w{index}"))
    results = []
    with Referee(settings) as referee:
        for p1, p2, (m, n, k), seed, opts in jobs:
            rec = referee.play(parse_spec(p1), parse_spec(p2), course_game(m, n, k), seed=seed,
                               options1=opts)
            results.append({"p1": p1, "p2": p2, "fault": rec.is_fault,
                            "reason": str(rec.reason) if rec.is_fault else "",
                            "faulty": rec.offender or 0, "detail": rec.detail,
                            "overloads": len(rec.extra.get("overload") or [])})
    queue.put((results, late))


def _jobs() -> list[tuple[str, str, tuple[int, int, int], int, dict[str, Any]]]:
    jobs: list[tuple[str, str, tuple[int, int, int], int, dict[str, Any]]] = []
    seed = 1
    for board in BOARDS:
        for a in PLAYERS:
            for b in PLAYERS:
                if a != b:
                    jobs.append((a, b, board, seed, {}))
                    seed += 1
    over = {"sleep_s": OVERRUN * LIMIT_S}
    for i in range(2):  # the overrunning bot moves first: its first move is late
        jobs.append(("bench.bench_fairload:Sleeper", "L0", BOARDS[0], 100 + i, over))
    return jobs


def play_round(log_dir: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], float]:
    jobs = _jobs()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(i, jobs[i::2], log_dir, queue))
               for i in range(2)]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    results: list[dict[str, Any]] = []
    late: list[dict[str, Any]] = []
    for _ in workers:
        r, lt = queue.get(timeout=600)
        results += r
        late += lt
    for w in workers:
        w.join()
    return results, late, time.perf_counter() - t0


# ------------------------------------------------------------------------------- the load
_MEMORY_HOG = r"""
import os, sys
target = int(sys.argv[1]); chunk = 64 << 20; held = []
while True:
    while len(held) * chunk < target:
        b = bytearray(chunk)
        for i in range(0, chunk, 4096): b[i] = 1
        held.append(b)
    del held[: len(held) // 2]
"""
_IO_WRITER = r"""
import os, sys
path = sys.argv[1]; block = os.urandom(4 << 20)
while True:
    with open(path, "wb") as f:
        for _ in range(16):
            f.write(block); f.flush(); os.fsync(f.fileno())
"""
_EVICT = r"""
import time
while True:
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1")
    except OSError:
        break
    time.sleep(0.5)
"""
_CHURN = r"""
import subprocess
while True:
    subprocess.run(["/bin/true"])
"""


_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: another cxarena tournament, again and again, as another user's run would be
_TOURNAMENT = ("while true; do {py} -m arena tournament {config} --results {results} --fresh "
               "--quiet >/dev/null 2>&1; done")


def _available_bytes() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def start_load(kind: str, scratch: str) -> list[subprocess.Popen[bytes]]:
    if kind == "mixed" or "+" in kind:
        return [p for k in (MIXED if kind == "mixed" else kind.split("+"))
                for p in start_load(k, scratch)]
    py = sys.executable
    cores = len(os.sched_getaffinity(0))
    procs: list[tuple[list[str], bool]] = []
    if kind in ("busy1", "busy2", "busy4"):
        n = cores * int(kind[-1])
        procs = [([py, "-c", "while True: pass"], False)] * n
    elif kind == "memory":
        procs = [([py, "-c", _MEMORY_HOG, str(int(_available_bytes() * 0.9))], True)]
    elif kind == "io":
        procs = [([py, "-c", _IO_WRITER, os.path.join(scratch, "io.bin")], False)]
    elif kind == "evict":
        procs = [([py, "-c", _EVICT], False)]
    elif kind == "churn":
        procs = [([py, "-c", _CHURN], False)]
    elif kind == "tournament":
        procs = [(["/bin/sh", "-c", _TOURNAMENT.format(
            py=py, config=os.path.join(_ROOT, "configs", "quick.yaml"),
            results=os.path.join(scratch, "other"))], False)]
    out = []
    for argv, victim in procs:
        p = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)
        if victim:
            with open(f"/proc/{p.pid}/oom_score_adj", "w") as f:
                f.write("1000")
        out.append(p)
    return out


def stop_load(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


@dataclass
class Row:
    kind: str
    honest_faults: int = 0
    overrun_charged: int = 0
    overrun_games: int = 0
    replays: int = 0
    wall_s: float = 0.0
    pressure: dict[str, float] = field(default_factory=dict)
    late: list[dict[str, Any]] = field(default_factory=list)
    details: list[str] = field(default_factory=list)


def run_kind(kind: str) -> Row:
    scratch = tempfile.mkdtemp(prefix="cxarena-fairload-")
    try:
        load = start_load(kind, scratch)
        time.sleep({"memory": 1.0, "tournament": 3.0, "mixed": 3.0}.get(kind, 0.3))  # going
        p0, t0 = psi(), time.perf_counter()
        try:
            results, late, wall = play_round(os.path.join(scratch, "logs"))
        finally:
            p1, t1 = psi(), time.perf_counter()
            stop_load(load)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    row = Row(kind, wall_s=wall, late=late)
    row.pressure = {k: (p1[k] - p0.get(k, 0)) / 1e6 / (t1 - t0) for k in p1}
    for r in results:
        row.replays += r["overloads"]
        if r["p1"].endswith(":Sleeper"):
            row.overrun_games += 1
            row.overrun_charged += r["fault"] and r["faulty"] == 1
        elif r["fault"]:
            row.honest_faults += 1
    return row


def main(kinds: list[str] | None = None) -> None:
    global CONTAINMENT
    args = list(kinds or [])
    if "--no-cgroups" in args:
        CONTAINMENT = "rlimits"
    elif "--default-weight" in args:
        from arena import defaults
        CONTAINMENT = "default-weight"
        defaults.BOTS_CPU_SHARES, defaults.BOTS_CPU_WEIGHT = 1024, 100
    kinds = [k for k in args if not k.startswith("--")] or list(KINDS)
    print("## Fair on a busy machine: outside load (bench_fairload)\n")
    with open("/proc/loadavg") as f:
        print(f"Load average at the start: {' '.join(f.read().split()[:3])}; "
              f"delay accounting (kernel.task_delayacct): {'on' if delayacct_on() else 'off'}; "
              f"limit {LIMIT_S * 1000:g} ms, {', '.join(PLAYERS)} on "
              f"{', '.join('x'.join(map(str, b)) for b in BOARDS)}, 2 workers; "
              f"containment: {CONTAINMENT}.\n")
    rows = []
    for kind in kinds:
        rows.append(run_kind(kind))
        r = rows[-1]
        print(f"- {kind}: done in {r.wall_s:.1f} s", file=sys.stderr, flush=True)
    print("| load | honest bots' charged faults | overload replays | 1.3x bot charged | "
          "wall s | PSI some cpu / memory / io (share of the run) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        pr = " / ".join(f"{r.pressure.get(k, float('nan')) * 100:.0f}%"
                        for k in ("cpu", "memory", "io"))
        print(f"| {r.kind} | {r.honest_faults} | {r.replays} | {r.overrun_charged}/"
              f"{r.overrun_games} | {r.wall_s:.1f} | {pr} |")
    print("\nLate moves of honest bots, what they waited for during the move (its CPU time, "
          "run-queue wait of all its threads, the hypervisor's steal on its core, "
          "the referee thread's own run-queue wait, major page faults, block-I/O delay; "
          "the machine's memory and io `some` stall over the move):\n")
    print("| load | bot | move wall ms | bot CPU ms | run-queue ms | steal on its core ms | "
          "referee's run-queue ms | majflt | blkio ms | PSI mem ms | PSI io ms | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        for lt in r.late:
            if lt["bot"] == "Sleeper":
                continue
            print(f"| {r.kind} | {lt['bot']} | {lt['wall_ms']:.0f} | {lt['cpu_ms']:.0f} | "
                  f"{lt['run_delay_ms']:.0f} | {lt['steal_ms']:.0f} | "
                  f"{lt['referee_wait_ms']:.0f} | "
                  f"{lt['majflt']} | {lt['blkio_ms']:.0f} | {lt.get('psi_memory_ms', 0):.0f} | "
                  f"{lt.get('psi_io_ms', 0):.0f} | "
                  f"{'overload (replayed)' if lt['overload'] else 'charged'} |")
    print()
    print("The referee's own words for each of them (its clock starts once the bot is resumed):\n")
    for r in rows:
        for lt in r.late:
            if lt["bot"] != "Sleeper":
                print(f"- {r.kind}, {lt['bot']}: {lt['detail']}")
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
