"""Referee soak: many games of L0 against a rotating set of misbehaving bots (every fault of the
zoo, tests/referee/zoo/), one Referee per usable core in threads of this process, then the
referee process's open file descriptors, child processes, threads and memory before and after,
and every game's reason checked against the fault its bot commits.

    SOAK_GAMES=10000 python -m bench soak     # default 400 games (a shared 2-core machine)

SOAK_GAMES counts the games between the two probes plus one rotation (the warm-up adds one
rotation per Referee).

The "before" figures are taken after every bot has played once on every Referee (so imports,
caches and each Referee's idle processes of the bots that end games normally are there);
"after" once every game is played, before the Referees close; "left" after they close: bot
processes still alive anywhere that carry this process's
owner mark (arena.referee.containment), which must be none.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ZOO = Path(__file__).resolve().parents[1] / "tests" / "referee" / "zoo"
TIMEOUT_S = 0.2
MEMORY_MB = 300  # the memory hog fills it; every other bot needs far less


@dataclass(frozen=True)
class Fault:
    bot: str  # zoo file
    reason: str | None  # expected reason; None: a normal end (connect or draw)
    options: dict[str, Any] = field(default_factory=dict)
    board: tuple[int, int, int] = (4, 5, 3)


FAULTS = [
    Fault("sleepy.py", "timeout"),
    Fault("busy.py", "timeout"),
    Fault("hang_init.py", "timeout"),
    Fault("forker.py", "timeout", {"pidfile": "{tmp}/forker.pid"}),
    Fault("raise_select.py", "crash"),
    Fault("raise_init.py", "crash"),
    Fault("sys_exit.py", "crash"),
    Fault("os_exit.py", "crash"),
    Fault("segv.py", "crash"),
    Fault("memhog.py", "crash"),
    Fault("import_error.py", "crash"),
    Fault("close_stdout.sh", "crash"),
    Fault("wrong_version.sh", "crash"),
    Fault("vm_init_error.sh", "crash"),
    Fault("full_column.py", "illegal", board=(3, 4, 4)),
    Fault("answer.py", "illegal", {"value": -1}),
    Fault("answer.py", "illegal", {"value": 2.0}),
    Fault("huge_number.sh", "illegal"),
    Fault("garbage.sh", "illegal"),
    Fault("chatty.sh", "illegal"),
    Fault("double_answer.sh", "illegal"),
    Fault("stray_line.sh", "illegal"),
    Fault("daemon.py", None, {"pidfile": "{tmp}/daemon.pid"}),
    Fault("printer.py", None),
    Fault("bad_name.py", None),
]


def _spec(name: str) -> str:
    path = ZOO / name
    return f"exec:sh {path}" if name.endswith(".sh") else str(path)


def _probe() -> dict[str, int]:
    """This process: open fds, child processes (live or zombie), threads, resident KiB."""
    me = os.getpid()
    children = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        children += 1
            except (OSError, ValueError, IndexError):
                pass
    status = Path("/proc/self/status").read_text()
    rss_kb = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("VmRSS")))
    return {"fds": len(os.listdir("/proc/self/fd")), "children": children,
            "threads": threading.active_count(), "rss_kb": rss_kb}


def _owned_processes() -> list[int]:
    from arena.referee.containment import OWNER_ENV, owner_mark

    mark = f"{OWNER_ENV}={owner_mark()}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark in f.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                pass
    return found


def _in_threads(target: Callable[..., None], args: list[tuple[Any, ...]]) -> None:
    """Run `target` once per argument tuple, each in its own thread, and wait for all."""
    threads = [threading.Thread(target=target, args=a) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _as_expected(fault: Any, rec: Any, bot: int) -> bool:
    """A well-behaved bot's game ends on the board; a faulty one's with its fault, charged to
    it (`bot` is its seat, 1 or 2)."""
    if fault.reason is None:
        return rec.reason.value in ("connect", "draw") and rec.offender is None
    return bool(rec.reason.value == fault.reason and rec.offender == bot)


def soak(games: int) -> dict[str, Any]:
    from arena.entrants.specs import parse_spec
    from arena.limits import Limits
    from arena.referee.referee import MatchSettings, Referee, course_game

    cores = sorted(os.sched_getaffinity(0))
    tmp = tempfile.mkdtemp(prefix="cxarena-soak-")
    l0 = parse_spec("L0")
    specs = {f.bot: parse_spec(_spec(f.bot)) for f in FAULTS}
    limits = Limits(timeout_s=TIMEOUT_S, startup_timeout_s=20.0, memory_limit_mb=MEMORY_MB)
    # not sandboxed: the forker writes its child's pid to a file here, and "left" looks for
    # the bots' processes (as in the measured runs, made before bots were sandboxed by default)
    referees = [Referee(MatchSettings(limits=limits, cpu=c, isolation="none",
                                      log_dir=os.path.join(tmp, f"core{c}")))
                for c in cores]
    wrong: list[str] = []
    reasons: Counter[str] = Counter()
    overloads = 0
    lock = threading.Lock()
    counter = iter(range(10**9))

    def play(referee: Any, n: int) -> None:
        nonlocal overloads
        fault = FAULTS[n % len(FAULTS)]
        options = {k: v.format(tmp=tmp, n=n) if isinstance(v, str) else v
                   for k, v in fault.options.items()}
        M, N, K = fault.board
        bot_first = (n // len(FAULTS)) % 2 == 0
        if bot_first:
            rec = referee.play(specs[fault.bot], l0, course_game(M, N, K), seed=n, options1=options)
        else:
            rec = referee.play(l0, specs[fault.bot], course_game(M, N, K), seed=n, options2=options)
        ok = _as_expected(fault, rec, 1 if bot_first else 2)
        with lock:
            reasons[rec.reason.value] += 1
            overloads += len(rec.extra.get("overload") or [])
            if not ok:
                wrong.append(f"game {n} {fault.bot} {fault.options}: {rec.reason.value} "
                             f"offender {rec.offender}: {rec.detail[:200]}")

    def worker(referee: Any, limit: int) -> None:
        while True:
            with lock:
                n = next(counter)
            if n >= limit:
                return
            play(referee, n)

    def warm(referee: Any) -> None:  # every bot once on every Referee: their idle pools fill
        for n in range(len(FAULTS)):
            play(referee, n)

    _in_threads(warm, [(r,) for r in referees])
    warmup = len(FAULTS)
    for _ in range(warmup):
        next(counter)
    gc.collect()
    before = _probe()
    t0 = time.perf_counter()
    _in_threads(worker, [(r, games) for r in referees])
    wall_s = time.perf_counter() - t0
    gc.collect()
    after = _probe()
    for r in referees:
        r.close()
    time.sleep(0.5)
    left = _owned_processes()
    shutil.rmtree(tmp, ignore_errors=True)
    measured = max(0, games - warmup)
    return {"games": measured + warmup * len(referees), "cores": len(cores), "before": before,
            "after": after, "wall_s": wall_s, "wrong": wrong, "reasons": reasons, "left": left,
            "overloads": overloads, "measured_games": measured}


def main() -> None:
    games = int(os.environ.get("SOAK_GAMES", "400"))
    r = soak(games)
    b, a = r["before"], r["after"]
    print("## Referee soak (bench_soak)\n")
    print(f"{r['games']} games of L0 against {len(FAULTS)} rotating zoo bots (every zoo fault; "
          f"limit {TIMEOUT_S:g} s, memory {MEMORY_MB} MiB), one Referee per core on "
          f"{r['cores']} cores, threads of one process; {r['measured_games']} games between "
          f"the two probes, {r['wall_s']:.0f} s ({r['measured_games'] / r['wall_s']:.1f} "
          f"games/s).\n")
    print("| referee process | before | after |")
    print("|---|---:|---:|")
    print(f"| open file descriptors | {b['fds']} | {a['fds']} |")
    print(f"| child processes (live or zombie) | {b['children']} | {a['children']} |")
    print(f"| threads | {b['threads']} | {a['threads']} |")
    print(f"| resident memory (MiB) | {b['rss_kb'] / 1024:.1f} | {a['rss_kb'] / 1024:.1f} |")
    print()
    reasons = ", ".join(f"{n} {k}" for k, n in sorted(r["reasons"].items()))
    print(f"Reasons: {reasons}. Games with another reason or offender than their bot's fault: "
          f"{len(r['wrong'])}. Bot processes alive after the Referees closed: "
          f"{len(r['left'])}. Overload replays: {r['overloads']}.")
    for w in r["wrong"][:10]:
        print(f"- {w}")
    print()


if __name__ == "__main__":
    main()
