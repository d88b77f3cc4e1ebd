"""The HTML report at scale: file size, build time and load time in headless Chromium.

A synthetic results store (random legal games written directly as records, no bot is run) of
6 players on the 31 small competition boards, 1 % of the games ending in a fault, at two
sizes. For each: the time to build report.html (`arena.report.html.write_report`), its size,
and in headless Chromium (Playwright's Python package, Debian's /usr/bin/chromium) the time
from navigation to the page being ready (data parsed, lists drawn), the JSON.parse time, the
time to filter 100 % -> one player pair and to open a game at its last move, and the JS heap.

    python -m bench report
"""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

PLAYERS = ("alphabeta", "minimax", "mcts", "montecarlo", "L1", "L0")
SIZES = (2_000, 100_000)
TIMEOUT_S = 0.08
LOADS = 3  # page loads per size (the median is reported)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--disable-sync"]


def _boards() -> list[tuple[int, int, int]]:
    return [(M, N, K) for K in (4, 5) for M in range(4, 8) for N in range(4, 8)
            if not (K == 5 and M == N == 4)]


def make_store(path: Path, games: int, seed: int = 1) -> None:
    """Write `games` synthetic games (random legal moves, random times) into a new store."""
    import json

    from arena.board import CXBoard, CXGameState
    from arena.records import GameRecord, Reason
    from arena.results.store import ResultStore

    rng = random.Random(seed)
    boards = _boards()
    with ResultStore(path) as store:
        store.set_meta("config", json.dumps({
            "name": "synthetic", "players": [{"name": p, "spec": p} for p in PLAYERS],
            "boards": [list(b) for b in boards], "timeout_s": TIMEOUT_S, "rounds": 1,
            "seed": seed, "games": games}))
        store._db.execute("BEGIN")  # one transaction: the benchmark is not about the store
        for n in range(games):
            p1, p2 = rng.sample(PLAYERS, 2)
            M, N, K = boards[n % len(boards)]
            b = CXBoard(M, N, K)
            moves: list[int] = []
            state = CXGameState.OPEN
            while state is CXGameState.OPEN:
                c = rng.choice(b.getAvailableColumns())
                state = b.markColumn(c)
                moves.append(c)
            times = [round(rng.lognormvariate(0.0, 1.5) * (15.0 if rng.random() < 0.6 else 0.1),
                           3) for _ in moves]
            if rng.random() < 0.01:  # a fault: the game stops early
                cut = rng.randrange(len(moves))
                moves, times = moves[:cut], times[:cut]
                offender = cut % 2 + 1
                reason = rng.choice([Reason.TIMEOUT, Reason.CRASH])
                detail = (f"selectColumn (move {cut + 1}): no answer after 100.3 ms, over the "
                          f"80 ms limit by 20.3 ms (grace 20 ms)" if reason is Reason.TIMEOUT
                          else f"selectColumn (move {cut + 1}): the bot exited with code 1")
                rec = GameRecord(**_board(M, N, K, moves), p1=p1, p2=p2, names=(p1, p2),
                                 times_ms=tuple(times), winner=3 - offender, reason=reason,
                                 detail=detail, seed=rng.randrange(2**31), offender=offender,
                                 stderr_tail="Traceback (most recent call last):\n  ...\n"
                                             "ValueError: x\n")
            else:
                winner = None if state is CXGameState.DRAW else (len(moves) - 1) % 2 + 1
                rec = GameRecord(**_board(M, N, K, moves), p1=p1, p2=p2, names=(p1, p2),
                                 times_ms=tuple(times), winner=winner,
                                 reason=Reason.DRAW if winner is None else Reason.CONNECT,
                                 detail="", seed=rng.randrange(2**31))
            store.add(rec.labelled(game_id=f"{M}x{N}x{K}-n{n}-{p1}-{p2}", round=1,
                                   player1=p1, player2=p2))
        store._db.execute("COMMIT")


def _board(M: int, N: int, K: int, moves: list[int]) -> dict[str, Any]:
    """The record fields of a Connect-X game on board M, N, K with these columns."""
    from arena.games.connectx import ConnectX  # as make_store: arena only when used
    from arena.records import record_fields

    return record_fields(ConnectX(rows=M, cols=N, k=K), [str(c) for c in moves], ())


def load_in_chromium(report: Path) -> dict[str, Any]:
    """Median timings of LOADS fresh loads of `report` in headless Chromium."""
    from playwright.sync_api import sync_playwright

    exe = "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else shutil.which(
        "chromium")
    if exe is None:
        raise RuntimeError("no chromium")
    runs: list[dict[str, float]] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=FLAGS, headless=True)
        try:
            for _ in range(LOADS):
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                t0 = time.perf_counter()
                page.goto(report.resolve().as_uri(), timeout=300_000)
                page.wait_for_selector("html[data-cx-ready='1']", timeout=300_000)
                ready_s = time.perf_counter() - t0
                timings = page.evaluate("window.cxReport.timings")
                filter_ms = page.evaluate(
                    "() => { const t = performance.now();"
                    " window.cxReport.setFilters({player: 0, opponent: 1});"
                    " return performance.now() - t; }")
                open_ms = page.evaluate(
                    "() => { const t = performance.now(); const f = window.cxReport.filtered();"
                    " window.cxReport.openGame(window.cxReport.data.games.id[f[0]]);"
                    " window.cxReport.viewer().goto(1e9); return performance.now() - t; }")
                heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize"
                                     " : 0")
                runs.append({"ready_s": ready_s, "parse_ms": timings["parse_ms"],
                             "init_ms": timings["init_ms"], "filter_ms": filter_ms,
                             "open_ms": open_ms, "heap_mb": heap / 2**20})
                page.close()
        finally:
            browser.close()
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def measure(games: int) -> dict[str, Any]:
    from arena.report.html import write_report

    with tempfile.TemporaryDirectory(prefix="cxarena-bench-report-") as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        make_store(d / "games.sqlite", games)
        gen_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = write_report(d)
        build_s = time.perf_counter() - t0
        size_mb = out.stat().st_size / 2**20
        try:
            browser: dict[str, Any] = load_in_chromium(out)
        except (ImportError, RuntimeError) as e:
            browser = {"error": str(e)}
    return {"games": games, "gen_s": gen_s, "build_s": build_s, "size_mb": size_mb, **browser}


def main() -> None:
    from tabulate import tabulate

    rows = []
    for n in SIZES:
        r = measure(n)
        if "error" in r:
            rows.append([f"{n:,}", f"{r['size_mb']:.1f}", f"{r['build_s']:.1f}",
                         "skipped: " + r["error"], "", "", "", "", ""])
            continue
        rows.append([f"{n:,}", f"{r['size_mb']:.1f}", f"{r['build_s']:.1f}",
                     f"{r['ready_s']:.2f}", f"{r['parse_ms']:.0f}", f"{r['init_ms']:.0f}",
                     f"{r['filter_ms']:.0f}", f"{r['open_ms']:.0f}", f"{r['heap_mb']:.0f}"])
    print("## HTML report at scale (bench_report)\n")
    print(f"Synthetic stores (random legal games of {len(PLAYERS)} players on the "
          f"{len(_boards())} small competition boards, 1 % faults; no bot is run). Build: "
          f"`write_report` (read the store, standings, plots, page). Load: headless Chromium, "
          f"navigation start to page ready, median of {LOADS} loads; parse = JSON.parse of the "
          f"game data; init = parse + fault list + first page of the game list; filter = all "
          f"games to one pair; open = a game shown at its last move.\n")
    print(tabulate(rows, headers=["games", "file (MiB)", "build (s)", "load to ready (s)",
                                  "parse (ms)", "init (ms)", "filter (ms)", "open game (ms)",
                                  "JS heap (MiB)"], tablefmt="github"))
    print()


if __name__ == "__main__":
    main()
