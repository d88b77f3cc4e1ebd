"""The parts of `bench.bench_strength` about the search bots' soundness and outside opponents:
the first-move check, won positions kept, and matches against OpenSpiel's MCTSBot and Kaggle's
negamax (see bench_strength's docstring for what each measures)."""

from __future__ import annotations

import os
import queue
import statistics
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from arena.board import CXBoard
from arena.competition.cores import usable_core_ids
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import GameRecord
from arena.referee.referee import MatchSettings, Referee, course_game
from bench.won_positions import DATA as WON_DATA
from bench.won_positions import load as load_won
from players._shared import book
from players.alphabeta import AlphaBeta

ROOT = Path(__file__).resolve().parent.parent
BENCH_PYTHON = Path(os.environ.get("CXARENA_BENCH_PYTHON",
                                   ROOT / ".venv-bench" / "bin" / "python"))
OPPONENTS = ROOT / "bench" / "opponents.py"


# ------------------------------------------------------------------------ first moves
def _first_move(M: int, N: int, use_book: bool, timeout_s: float) -> tuple[int, float]:
    p = AlphaBeta()
    p.seed = 1
    p.use_book = use_book
    p.initPlayer(M, N, 4, True, timeout_s)
    start = time.perf_counter()
    col = p.selectColumn(CXBoard(M, N, 4))
    return col, time.perf_counter() - start


def _verdict(M: int, N: int, col: int) -> str:
    e = book.entry(M, N, 4, [])
    if book.PUBLISHED[(M, N)] == "second":
        return "yes (every first move loses)"
    if e is None:
        return "unknown (not in book)"
    if e.source == "solver" or (M, N) in book.NAMED_FIRST_MOVES:
        return "yes" if col in e.moves else "**NO**"
    return "centre; not proven" if col == e.moves[0] else "unknown"


def first_moves(timeout_s: float = 1.0) -> None:
    print("### First move on the 16 K=4 boards\n")
    print(f"alphabeta as first player on the empty board ({timeout_s:g} s per move), with its "
          "opening book (the default) and with the book off (`use_book: false`: the search "
          "alone). Value-keeping first moves: from the book (`python -m players._shared.book "
          "show`); *solver*: every first move was solved by the project's exact solver when the "
          "book was built; *published*: too big for the solver, the published value of the "
          "board (6x7: Allis' centre column).\n")
    print("| board | value (published) | value-keeping first moves (source) | alphabeta | "
          "keeps value? | answer ms | search alone | keeps value? |")
    print("|---|---|---|---:|---|---:|---:|---|")
    for M, N in book.BOARDS:
        e = book.entry(M, N, 4, [])
        where = "not in book" if e is None else f"{list(e.moves)} ({e.source})"
        col, took_s = _first_move(M, N, True, timeout_s)
        alone, _ = _first_move(M, N, False, timeout_s)
        print(f"| {M}x{N} | {book.PUBLISHED[(M, N)]} | {where} | {col} | {_verdict(M, N, col)} "
              f"| {took_s * 1e3:.1f} | {alone} | {_verdict(M, N, alone)} |")
    print()


# ------------------------------------------------------------------ won positions kept
def won_positions_kept(times_s: tuple[float, ...] = (0.25, 1.0)) -> None:
    positions = load_won()
    print("### Won positions kept\n")
    print(f"{len(positions)} won positions ({WON_DATA.relative_to(ROOT)}, generated and solved "
          "by `python -m bench.won_positions`: tactical random games stopped 45-65 % into the "
          "board, kept when the side to move wins and some move that does not lose at once "
          "gives the win away). alphabeta, a fresh bot per position, plays one move; it counts "
          "as kept if it is one of the solver's winning moves.\n")
    kept: dict[tuple[int, int, float], int] = {}
    count: dict[tuple[int, int], int] = {}
    for M, N, K, moves, _score, winning in positions:
        count[(M, N)] = count.get((M, N), 0) + 1
        b = CXBoard.from_moves(M, N, K, moves)
        for t in times_s:
            p = AlphaBeta()
            p.seed = 1
            p.initPlayer(M, N, K, b.currentPlayer() == 0, t)
            col = p.selectColumn(b.copy())
            kept[(M, N, t)] = kept.get((M, N, t), 0) + (col in winning)
    print("| board | positions | " + " | ".join(f"kept at {t:g} s" for t in times_s) + " |")
    print("|---|---:|" + "---:|" * len(times_s))
    for (M, N), n in count.items():
        print(f"| {M}x{N} | {n} | " + " | ".join(str(kept[(M, N, t)]) for t in times_s) + " |")
    total = sum(count.values())
    cells = []
    for t in times_s:
        k = sum(kept[(M, N, t)] for M, N in count)
        cells.append(f"{k} ({100 * k / total:.0f} %)")
    print(f"| all | {total} | " + " | ".join(cells) + " |\n")


# ------------------------------------------------------------------- external matches
@dataclass(frozen=True)
class MatchResult:
    games: int
    wins: int
    draws: int
    losses: int
    faults_ours: int
    faults_theirs: int
    first_score: float  # points percentage as first player
    second_score: float
    mean_move_ms: float
    max_move_ms: float


def play_pairs(ours: str, theirs: str, board: tuple[int, int, int], timeout_s: float,
               pairs: int, seed: int = 2026) -> list[tuple[bool, GameRecord]]:
    """`pairs` game pairs (seed seed+i, each bot first once) on all usable cores, one referee
    per core: (our bot moved first?, record) per game."""
    a, b = parse_spec(ours), parse_spec(theirs)
    game = course_game(*board)
    jobs: queue.Queue[tuple[int, bool]] = queue.Queue()
    for i in range(pairs):
        jobs.put((seed + i, True))
        jobs.put((seed + i, False))
    out: list[tuple[bool, GameRecord]] = []
    lock = threading.Lock()

    def worker(core: int) -> None:
        with Referee(MatchSettings(limits=Limits(timeout_s=timeout_s), cpu=core)) as ref:
            while True:
                try:
                    s, first = jobs.get_nowait()
                except queue.Empty:
                    return
                rec = ref.play(a, b, game, s) if first else ref.play(b, a, game, s)
                with lock:
                    out.append((first, rec))

    threads = [threading.Thread(target=worker, args=(c,)) for c in usable_core_ids()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def summarise(games: list[tuple[bool, GameRecord]]) -> MatchResult:
    w = d = l_ = fo = ft = 0
    pts = {True: [0.0, 0], False: [0.0, 0]}
    times: list[float] = []
    for first, r in games:
        me = 1 if first else 2
        if r.winner is None:
            d += 1
            p = 0.5
        elif r.winner == me:
            w += 1
            p = 1.0
        else:
            l_ += 1
            p = 0.0
        pts[first][0] += p
        pts[first][1] += 1
        if r.is_fault:
            if r.offender == me:
                fo += 1
            else:
                ft += 1
        times += [t for i, t in enumerate(r.times_ms) if i % 2 == (0 if first else 1)]
    return MatchResult(len(games), w, d, l_, fo, ft,
                       100 * pts[True][0] / max(1, pts[True][1]),
                       100 * pts[False][0] / max(1, pts[False][1]),
                       statistics.mean(times) if times else 0.0, max(times, default=0.0))


def external() -> None:
    pairs = int(os.environ.get("CXARENA_STRENGTH_PAIRS", "20"))
    print("### Against bots nobody here wrote\n")
    if not BENCH_PYTHON.exists():
        print(f"Skipped: {BENCH_PYTHON} not found (make it with `python3 -m venv .venv-bench && "
              ".venv-bench/bin/pip install open-spiel kaggle-environments`).\n")
        return
    mcts = f"exec:{BENCH_PYTHON} {OPPONENTS} openspiel-mcts --fraction 0.7"
    negamax = f"exec:{BENCH_PYTHON} {OPPONENTS} kaggle-negamax"
    matches = [("alphabeta", "OpenSpiel MCTSBot (70 %)", mcts, (6, 7, 4), 1.0, pairs),
               ("alphabeta", "OpenSpiel MCTSBot (70 %)", mcts, (7, 7, 5), 1.0, pairs),
               ("alphabeta", "Kaggle negamax", negamax, (6, 7, 4), 1.0, min(pairs, 5))]
    chosen = os.environ.get("CXARENA_STRENGTH_MATCHES")  # e.g. "1,3": only those rows
    if chosen:
        matches = [m for i, m in enumerate(matches, 1) if str(i) in chosen.split(",")]
    print("Game pairs (same seed, each bot first once) under the referee, one game per core "
          f"at a time ({len(usable_core_ids())} cores). Score: points percentage of the "
          "built-in bot (win 1, draw 1/2). OpenSpiel's MCTSBot: C++, one random rollout per "
          "leaf, UCT c = 2, solver on, stopped by its own clock at 70 % of the move limit "
          "(`bench/opponents.py`).\n")
    print("| bot | opponent | board | s/move | games | W | D | L | score | as 1st | as 2nd | "
          "faults (ours / theirs) | mean / max move ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for ours, name, spec, board, timeout_s, n in matches:
        r = summarise(play_pairs(ours, spec, board, timeout_s, n))
        score = 100 * (r.wins + 0.5 * r.draws) / r.games
        print(f"| {ours} | {name} | {board[0]}x{board[1]}x{board[2]} | {timeout_s:g} | "
              f"{r.games} | {r.wins} | {r.draws} | {r.losses} | {score:.1f} % | "
              f"{r.first_score:.0f} % | {r.second_score:.0f} % | {r.faults_ours} / "
              f"{r.faults_theirs} | {r.mean_move_ms:.0f} / {r.max_move_ms:.0f} |", flush=True)
    print()
