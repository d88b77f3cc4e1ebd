"""Search bots (`alphabeta`, `minimax`): exact-solver speed on Pascal Pons' Connect 4 test sets,
nodes per second, the depth each bot completes in a 1 s move, and answer times at 0.1 s on the
biggest board.

    .venv/bin/python -m bench search

Times are wall-clock (`time.perf_counter`) with the process's CPU time next to them: on a shared
machine the CPU time is the fairer measure of the code, the wall time is what a game sees. Each
figure is the best of a few repetitions where stated. Takes about a minute.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from pathlib import Path

from arena.board import CXBoard, CXGameState
from arena.timing import safe_budget_s
from players._shared.bitboard import BitPosition
from players._shared.fastsolve import make_solver
from players._shared.search import BitSearch
from players._shared.searchbot import SEARCH_FRACTION, SearchPlayer
from players.alphabeta import AlphaBeta
from players.minimax import Minimax

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "pons"
#: Pons' published figures for his C++ solver (tutorial part 12): (mean time, mean nodes)
PONS_CPP = {"Test_L3_R1": ("4.568 us", "51.28"), "Test_L2_R1": ("37.45 us", "449.6")}
#: a folder with more of Pons' sets in his format (not in this repository): the Begin-Easy and
#: Begin-Medium sets found there are measured too, once each
EXTRA_ENV = "CXARENA_PONS_EXTRA"
EXTRA_SETS = {"Test_L1_R1": "Begin-Easy", "Test_L1_R2": "Begin-Medium"}


def _load(name: str, folder: Path = DATA) -> list[tuple[list[int], int]]:
    out = []
    for line in (folder / name).read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            out.append(([int(c) - 1 for c in moves], int(score)))
    return out


def _solve_set(positions: list[tuple[list[int], int]], compiled: bool
               ) -> tuple[float, float, int, int]:
    """Solve every position with an empty table: (wall s, cpu s, nodes, wrong answers), with
    the compiled solver or the pure-Python `BitSearch.solve` (`PySolver`)."""
    solver = make_solver(6, 7, 4, prefer_compiled=compiled)
    todo = []
    for moves, expected in positions:
        p = BitPosition.from_board(CXBoard.from_moves(6, 7, 4, moves))
        todo.append((p.current, p.mask, p.moves, expected))
    nodes = wrong = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for cur, mask, n_moves, expected in todo:
        solver.clear()
        r = solver.solve(cur, mask, n_moves)
        assert r is not None
        nodes += r[1]
        wrong += r[0] != expected
    return time.perf_counter() - wall, time.process_time() - cpu, nodes, wrong


def _compile_s() -> tuple[float, float]:
    """Seconds to import the compiled solver in a fresh process: with an empty numba cache
    (compiling) and with the cache it left (loading)."""
    import subprocess
    import sys
    import tempfile

    code = ("import time; t = time.perf_counter(); "
            "import players._shared.fastsolve as f; f.FastSolver(6, 7, 4).solve(0, 0, 0, 10); "
            "print(time.perf_counter() - t)")
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                               text=True, check=True)
            out.append(float(r.stdout.split()[-1]))
    return out[0], out[1]


def exact_solver() -> None:
    print("### Exact solver on Pons' test sets (6x7, K=4)\n")
    print("`BitSearch.solve` (pure Python) and the same search compiled with numba "
          "(`players._shared.fastsolve.FastSolver`): negamax alpha-beta without depth or time "
          "limit, null windows bisecting the score range, table emptied before each position; "
          f"best of 3 runs (one for sets read from {EXTRA_ENV}). Both search the same tree "
          "(same nodes).\n")
    print("| set | solver | positions | correct | mean time (wall) | mean CPU time | "
          "mean nodes | nodes/s (CPU) | vs Pons C++ time | Pons C++: time | Pons C++: nodes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    extra = Path(os.environ[EXTRA_ENV]) if os.environ.get(EXTRA_ENV) else None
    sets = [(name, DATA, 3) for name in PONS_CPP]
    sets += [(name, extra, 1) for name in EXTRA_SETS if extra and (extra / name).is_file()]
    for name, folder, repeat in sets:
        positions = _load(name, folder)
        for compiled in (False, True):
            runs = [_solve_set(positions, compiled) for _ in range(repeat)]
            wall = min(r[0] for r in runs)
            cpu = min(r[1] for r in runs)
            nodes, wrong = runs[0][2], max(r[3] for r in runs)
            n = len(positions)
            label = "compiled (numba)" if compiled else "pure Python"
            if name in PONS_CPP:
                pons_us = float(PONS_CPP[name][0].split()[0])
                versus = (f"{cpu / n * 1e6 / pons_us:.1f}x | {PONS_CPP[name][0]} | "
                          f"{PONS_CPP[name][1]}")
            else:  # his figures for these sets are not recorded here
                versus = "- | - | -"
            print(f"| {name} | {label} | {n} | {n - wrong} | {wall / n * 1e6:.1f} us | "
                  f"{cpu / n * 1e6:.1f} us | {nodes / n:.1f} | {nodes / cpu:,.0f} | "
                  f"{versus} |")
    missing = [f"{label} ({name})" for name, label in EXTRA_SETS.items()
               if not (extra and (extra / name).is_file())]
    if missing:
        print(f"\nNot measured: {', '.join(missing)}; set {EXTRA_ENV} to a folder that holds "
              f"their files to measure them.")
    cold, warm = _compile_s()
    print(f"\nFirst use of the compiled solver in a fresh process: {cold:.1f} s with an empty "
          f"numba cache (compiling), {warm:.2f} s with the cache it leaves (`cache=True`, in "
          f"`__pycache__` next to the module).\n")


def _middle_positions(M: int, N: int, K: int, count: int, seed: int) -> list[CXBoard]:
    """Opening positions: 6 to 12 random moves near the centre, game still open."""
    if (M, N, K) == (6, 7, 4):  # the first moves of Pons' middle-game positions
        return [CXBoard.from_moves(6, 7, 4, m[:12]) for m, _ in _load("Test_L2_R1")[:count]]
    rng = random.Random(seed)
    out: list[CXBoard] = []
    while len(out) < count:
        b = CXBoard(M, N, K)
        for _ in range(rng.randint(6, 12)):
            near = [c for c in b.getAvailableColumns() if abs(c - N // 2) <= 3]
            b.markColumn(rng.choice(near or b.getAvailableColumns()))
        if b.gameState() is CXGameState.OPEN:
            out.append(b)
    return out


def heuristic_speed() -> None:
    print("### Depth-limited search speed (6x7, K=4)\n")
    print("`BitSearch` with the heuristic at the horizon, iterative deepening to depth 12 on "
          "the first 12 moves of 10 middle-game positions of Test_L2_R1 (table kept between "
          "iterations, emptied between positions).\n")
    print("| positions | mean nodes | mean CPU time | nodes/s (CPU) | nodes/s (wall) |")
    print("|---|---|---|---|---|")
    boards = _middle_positions(6, 7, 4, 10, 0)
    nodes = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for b in boards:
        engine = BitSearch(6, 7, 4)
        pos = BitPosition.from_board(b)
        nodes += engine.best_move(pos.current, pos.mask, pos.moves, float("inf"), 12).nodes
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = len(boards)
    print(f"| {n} | {nodes / n:,.0f} | {cpu / n * 1e3:.0f} ms | {nodes / cpu:,.0f} | "
          f"{nodes / wall:,.0f} |\n")


def _depth(cls: type[SearchPlayer], b: CXBoard, timeout_s: float) -> tuple[int, int, float]:
    p = cls()
    p.seed = 1
    p.initPlayer(b.M, b.N, b.K, b.currentPlayer() == 0, timeout_s)
    cpu = time.process_time()
    p.selectColumn(b.copy())
    cpu = time.process_time() - cpu
    r = p.last_result
    assert r is not None
    return r.depth, r.nodes, cpu


def depth_in_one_second() -> None:
    budget = SEARCH_FRACTION * safe_budget_s(1.0)
    print("### Depth completed in a 1 s move\n")
    print(f"`selectColumn` with a 1 s limit (the search stops after {budget:.2f} s) on 5 "
          "opening positions per board (6 to 12 moves played; on 6x7 the first 12 moves of "
          "Pons' middle-game positions). Depth: deepest completed iteration (min / mean / "
          "max); nodes/s over CPU time.\n")
    print("| board | bot | depth min | depth mean | depth max | nodes/s (CPU) |")
    print("|---|---|---|---|---|---|")
    for board in ((6, 7, 4), (7, 7, 5), (50, 50, 10)):
        positions = _middle_positions(*board, count=5, seed=1)
        for cls in (AlphaBeta, Minimax):
            runs = [_depth(cls, b, 1.0) for b in positions]
            depths = [d for d, _, _ in runs]
            nps = sum(n for _, n, _ in runs) / sum(c for _, _, c in runs)
            print(f"| {board[0]}x{board[1]}x{board[2]} | {cls().playerName()} | {min(depths)} | "
                  f"{statistics.mean(depths):.1f} | {max(depths)} | {nps:,.0f} |")
    print()


def answer_times() -> None:
    timeout_s = 0.1
    budget = safe_budget_s(timeout_s)
    print(f"### Answer times at {timeout_s} s per move on the biggest boards\n")
    print(f"Each bot plays 40 moves against itself from the empty board (`selectColumn` on a "
          f"fresh copy each time, state kept across moves); the safe budget is "
          f"{budget * 1e3:.0f} ms.\n")
    print("| board | bot | moves | median | max | over budget | over limit | mean depth |")
    print("|---|---|---|---|---|---|---|---|")
    for board in ((50, 50, 10), (100, 100, 30)):
        for cls in (AlphaBeta, Minimax):
            b = CXBoard(*board)
            bots = [cls(), cls()]
            for i, p in enumerate(bots):
                p.seed = 3
                p.initPlayer(*board, i == 0, timeout_s)
            times: list[float] = []
            depths: list[int] = []
            while len(times) < 40 and b.gameState() is CXGameState.OPEN:
                p = bots[b.currentPlayer()]
                start = time.perf_counter()
                col = p.selectColumn(b.copy())
                times.append(time.perf_counter() - start)
                depths.append(p.last_result.depth if p.last_result else 0)
                b.markColumn(col)
            over = sum(t > budget for t in times)
            late = sum(t > timeout_s for t in times)
            print(f"| {board[0]}x{board[1]}x{board[2]} | {bots[0].playerName()} | {len(times)} "
                  f"| {statistics.median(times) * 1e3:.1f} ms | {max(times) * 1e3:.1f} ms | "
                  f"{over} | {late} | {statistics.mean(depths):.1f} |")
    print()


def winning_moves() -> None:
    print("### Winning moves in won positions\n")
    print("alphabeta at 1 s per move in every position of the two sets whose score is "
          "positive; a move counts as winning if the opponent's exact score afterwards is "
          "negative.\n")
    print("| set | won positions | winning move played | mean answer time |")
    print("|---|---|---|---|")
    checker = BitSearch(6, 7, 4)
    for name in ("Test_L3_R1", "Test_L2_R1"):
        won = [(m, s) for m, s in _load(name) if s > 0]
        good = 0
        total_s = 0.0
        for moves, _ in won:
            b = CXBoard.from_moves(6, 7, 4, moves)
            p = AlphaBeta()
            p.seed = 1
            p.initPlayer(6, 7, 4, b.currentPlayer() == 0, 1.0)
            start = time.perf_counter()
            col = p.selectColumn(b.copy())
            total_s += time.perf_counter() - start
            if (b.markColumn(col) is not CXGameState.OPEN
                    or checker.solve_board(moves + [col])[0] < 0):
                good += 1
        print(f"| {name} | {len(won)} | {good} | {total_s / len(won) * 1e3:.1f} ms |")
    print()


def main() -> None:
    print("## Search bots (bench_search)\n")
    print(f"Load average at start: {os.getloadavg()[0]:.2f} (2 cores shared).\n")
    exact_solver()
    heuristic_speed()
    winning_moves()
    depth_in_one_second()
    answer_times()


if __name__ == "__main__":
    main()
