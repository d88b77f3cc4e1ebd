"""How long a bot that floods stdout with protocol comments holds the referee (issue 36, item 3).

    python bench/bench_flood.py [FLOOD_S]

One game: `tests/referee/zoo/comment_flood.py` (64 KiB packets of newlines on its first `go`
for FLOOD_S seconds, default 20, then it answers) against L0, 0.5 s per move, 4x4x3. Two ways:
the referee thread on a core of its own, and pinned to the bot's core (as a tournament worker
is: the referee's reading of the flood is CPU the bot's thread waits for, which the overload
rule once took for the machine's); each with the comment caps as they are and with the caps
lifted (`arena.defaults` patched: the read deadline alone). For each: how long `play` took
(the bots' start-up included, shown apart), how the game ended and how many attempts were
voided as overload. Run from any directory with PYTHONPATH set to the tree
to measure (the zoo bot is this file's sibling tree's).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from arena import defaults
from arena.entrants.specs import BotSpec, parse_spec
from arena.limits import Limits
from arena.referee.referee import MatchSettings, Referee, course_game

BOT = Path(__file__).resolve().parent.parent / "tests" / "referee" / "zoo" / "comment_flood.py"


def measure(flood_s: float, pinned: bool, caps: bool) -> dict[str, Any]:
    cores = sorted(os.sched_getaffinity(0))
    bot_core = cores[-1]
    flooder = BotSpec(text="exec:comment_flood",
                      command=(sys.executable, "-I", "-S", str(BOT), "--for", str(flood_s)))
    settings = MatchSettings(limits=Limits(timeout_s=0.5), cpu=bot_core)
    old = os.sched_getaffinity(0)
    saved = {k: getattr(defaults, k, None) for k in ("MAX_COMMENT_LINES", "MAX_COMMENT_KB")}
    if not caps:  # (a tree from before the caps has no such defaults: nothing changes)
        defaults.MAX_COMMENT_LINES = defaults.MAX_COMMENT_KB = 10**12
    os.sched_setaffinity(0, {bot_core} if pinned else (set(cores) - {bot_core}) or old)
    try:
        with Referee(settings) as referee:
            t0 = time.perf_counter()
            rec = referee.play(flooder, parse_spec("L0"), course_game(4, 4, 3), seed=1)
            took = time.perf_counter() - t0
    finally:
        os.sched_setaffinity(0, old)
        for k, v in saved.items():
            if v is not None:
                setattr(defaults, k, v)
    return {"took_s": took, "startup_ms": max(ms or 0 for ms in rec.extra["startup_ms"]),
            "reason": rec.reason.value, "offender": rec.offender,
            "detail": rec.detail, "overload": len(rec.extra.get("overload", []))}


def main(flood_s: float = 20.0) -> None:
    print(f"\n## A comment flood of {flood_s:g} s against a 0.5 s move\n")
    print("| referee thread | comment caps | play took (start-up) | reason | offender | "
          "overload replays | detail |")
    print("|---|---|---|---|---|---|---|")
    for caps in (True, False):
        for pinned in (False, True):
            r = measure(flood_s, pinned, caps)
            print(f"| {'on the bot core' if pinned else 'own core'} | "
                  f"{'on' if caps else 'lifted'} | {r['took_s']:.1f} s "
                  f"({r['startup_ms'] / 1000:.1f} s) | {r['reason']} | {r['offender']} | "
                  f"{r['overload']} | {r['detail'][:150]} |")


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]))
