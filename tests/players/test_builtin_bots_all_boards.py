"""Every built-in bot, on every board of both board sets, under the real referee with two
matches in parallel and a 0.1 s limit: no timeout of its own (computing past the limit), no
illegal move, no crash.

Each bot plays one game per board against L0, moving first on half the boards and second on
the others. A game is played whole, or stopped after MAX_MOVES moves on the big boards (a random
opponent rarely ends those), so each bot plays hundreds of moves in all.
"""

from __future__ import annotations

import os
import queue
import threading
import zlib

import pytest

from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import GameRecord, Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ALL_BOARDS
from tests.helpers import board

pytestmark = pytest.mark.serial  # its point is timing: run alone (Makefile)

BOTS = ["L0", "L1", "minimax", "alphabeta", "montecarlo", "mcts"]
TIMEOUT_S = 0.1
MAX_MOVES = 24  # at most 12 moves of the bot per board
MIN_BOT_MOVES = 100


def _play_all(jobs: list[tuple[str, tuple[int, int, int], bool]]) -> list[tuple[str, GameRecord]]:
    """Play the jobs on two referees at once, each pinned to its own core when there are two."""
    todo: queue.Queue[tuple[str, tuple[int, int, int], bool]] = queue.Queue()
    for job in jobs:
        todo.put(job)
    results: list[tuple[str, GameRecord]] = []
    lock = threading.Lock()
    cores = sorted(os.sched_getaffinity(0))
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        cpu = cores[index] if len(cores) >= 2 else None
        try:
            with Referee(MatchSettings(limits=Limits(timeout_s=TIMEOUT_S), cpu=cpu)) as ref:
                while True:
                    try:
                        bot, (M, N, K), first = todo.get_nowait()
                    except queue.Empty:
                        return
                    me, l0 = parse_spec(bot), parse_spec("L0")
                    p1, p2 = (me, l0) if first else (l0, me)
                    seed = zlib.crc32(f"{bot} {M} {N} {K}".encode())
                    rec = ref.play(p1, p2, course_game(M, N, K), seed=seed, max_moves=MAX_MOVES)
                    with lock:
                        results.append((bot, rec))
        except BaseException as e:  # surfaced in the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _its_own_fault(r: GameRecord) -> bool:
    """A fault that is the bot's: anything but a timeout, or a timeout in which the bot itself
    computed past the limit (the record's account, `extra["late_ms"]`). A late move whose bot
    computed less than the limit was stalled by the machine (off the CPU: the referee's rule
    does not yet tell that from a sleeping bot, issue 39); it is printed, not failed: this
    test's point is that the built-in bots keep to their budgets on every board."""
    if r.reason is not Reason.TIMEOUT:
        return True
    late = r.extra.get("late_ms")
    return late is None or late["cpu"] > TIMEOUT_S * 1000


@pytest.mark.slow
def test_every_bot_on_every_board_is_never_late_or_illegal():
    jobs = [(bot, board, i % 2 == 0) for bot in BOTS for i, board in enumerate(ALL_BOARDS)]
    results = _play_all(jobs)
    assert len(results) == len(jobs)
    faults = [(bot, r) for bot, r in results if r.is_fault]
    lines = [f"{bot} on {'x'.join(map(str, board(r)))}: {r.reason.value} by player {r.offender}: "
             f"{r.detail}" for bot, r in faults]
    print("\n".join(lines))  # shown with -rP, and in CI's log when it fails
    assert not [r for _, r in faults if _its_own_fault(r)], "\n".join(lines)
    for bot in BOTS:
        mine = [r for b, r in results if b == bot]
        assert {board(r) for r in mine} == set(ALL_BOARDS)
        moves = sum(len(r.times_ms[(0 if r.p1 == bot else 1)::2]) for r in mine)
        assert moves >= MIN_BOT_MOVES, (bot, moves)
