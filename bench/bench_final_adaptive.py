"""The adaptive final against the full round robin, by simulation (`arena.competition.
adaptive_final`): how often its order is the full one, and what share of the games it plays.

Each simulated final first draws the outcome of every game of the full round robin (every pair,
every board, both colours: 50 entries on the 35 boards of the competition set are 85,750 games),
then ranks the full round robin by the standings' points (3 a win, 1 a draw), and replays the
adaptive policy against the same outcomes: a game it asks for gets the outcome drawn for it.
The fields:

- **built-ins with handicaps**: the six built-in bots at their Elo of "Strength of the built-in
  bots" (6x7x4; L0 -700, L1 -250, montecarlo 0, minimax 100, mcts 250, alphabeta 300), each at
  up to 9 handicaps of 60 Elo (a time limit halved each, or for L0 and L1 a random move),
  50 entries; each entry's strength varies by board (40 Elo sd), draws 10 % between equals;
- **a class**: 50 entries of N(0, 200) Elo, the same board noise and draws;
- **near-equal (the hard case)**: 50 entries 2 Elo apart (98 Elo from first to last), where the
  full round robin's own order between neighbours is close to a coin toss;
- **stored round robins**: with ``CXARENA_FINAL_RESULTS=DIR[:DIR...]``, each a results folder of
  a complete round robin (its ``games.sqlite``): the outcomes are drawn, per pair, board and
  colour, from that pairing's stored games there.

    python -m bench final_adaptive            # CXARENA_FINAL_SIMS=N finals each (default 40)

The second table plays the same fields at budgets of 10 % and 50 %.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.competition.adaptive_final import AdaptiveFinal, Goal, Tally

ENTRIES = 50
BOARDS = 35  # the competition set
SIMS = int(os.environ.get("CXARENA_FINAL_SIMS", "40"))
GOAL = Goal(confidence=0.95, max_fraction=0.25)
#: the budgets of the second table (a share of the full round robin's games)
SMALLER = (0.10, 0.50)
#: the built-in bots' Elo (docs/benchmarks.md, "Strength of the built-in bots", 6x7x4)
BUILT_INS = {"L0": -700.0, "L1": -250.0, "montecarlo": 0.0, "minimax": 100.0, "mcts": 250.0,
             "alphabeta": 300.0}
HANDICAP_ELO = 60.0
BOARD_SD_ELO = 40.0
DRAW_EQUAL = 0.10


@dataclass(frozen=True)
class Outcome:
    """One simulated final: the adaptive order against the full one, and its cost."""

    tau: float
    top3: bool
    displacement: int
    fraction: float
    ties: int  # places in ties at the goal's confidence
    seconds: float


def kendall_tau(a: list[str], b: list[str]) -> float:
    """Kendall's tau of two orders of the same entries (1: the same order)."""
    place = {e: i for i, e in enumerate(b)}
    ranks = [place[e] for e in a]
    n = len(ranks)
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if ranks[i] < ranks[j]:
                concordant += 1
            else:
                discordant += 1
    pairs = n * (n - 1) // 2
    return (concordant - discordant) / pairs if pairs else 1.0


def elo_table(elo: list[float], rng: np.random.Generator) -> np.ndarray:
    """outcome[i, j, k]: the score of i, first, against j on board k (1, 0.5 or 0)."""
    n = len(elo)
    strength = np.array(elo)[:, None] + rng.normal(0.0, BOARD_SD_ELO, (n, BOARDS))
    diff = strength[:, None, :] - strength[None, :, :]
    p = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
    draw = DRAW_EQUAL * (1.0 - np.abs(2.0 * p - 1.0))
    win = np.clip(p - draw / 2.0, 0.0, 1.0)
    u = rng.random((n, n, BOARDS))
    return np.where(u < win, 1.0, np.where(u < win + draw, 0.5, 0.0))


def built_ins(rng: random.Random) -> list[float]:
    out = []
    for h in range(9):
        for base in BUILT_INS.values():
            out.append(base - h * HANDICAP_ELO)
    return out[:ENTRIES]


def a_class(rng: random.Random) -> list[float]:
    return [rng.gauss(0.0, 200.0) for _ in range(ENTRIES)]


def near_equal(rng: random.Random) -> list[float]:
    return [2.0 * i for i in range(ENTRIES)]


def full_order(table: np.ndarray) -> list[int]:
    """The full round robin's order by the standings' points (3 a win, 1 a draw)."""
    n = table.shape[0]
    first = 3.0 * (table == 1.0) + (table == 0.5)
    second = 3.0 * (table == 0.0) + (table == 0.5)
    idx = np.arange(n)
    first[idx, idx, :] = 0.0
    second[idx, idx, :] = 0.0
    points = first.sum(axis=(1, 2)) + second.sum(axis=(0, 2))
    return sorted(range(n), key=lambda i: (-points[i], i))


def simulate(table: np.ndarray, goal: Goal) -> Outcome:
    """The adaptive final played against `table`'s outcomes."""
    n, _, b = table.shape
    names = [f"e{i}" for i in range(n)]
    boards = [f"b{k}" for k in range(b)]
    index = {e: i for i, e in enumerate(names)}
    board = {x: k for k, x in enumerate(boards)}
    policy = AdaptiveFinal(goal)
    tally = Tally(names, boards)
    t0 = time.perf_counter()
    while True:
        step = policy.step(tally)
        if step.over:
            break
        tally = tally.add([(g.first, g.second, g.board,
                            float(table[index[g.first], index[g.second], board[g.board]]))
                           for g in step.games])
    seconds = time.perf_counter() - t0
    full = [names[i] for i in full_order(table)]
    got = list(step.ranking.order)
    place = {e: i for i, e in enumerate(full)}
    return Outcome(kendall_tau(got, full), got[:3] == full[:3],
                   max(abs(i - place[e]) for i, e in enumerate(got)),
                   tally.games / policy.full_games(tally),
                   sum(b - a + 1 for a, b in step.ranking.ties()), seconds)


Drawer = Callable[[np.random.Generator], np.ndarray]


def _drawer(games: dict[tuple[str, str, str], list[float]]) -> Drawer:
    """Outcome tables drawn from `games` ((first, second, board): its stored scores)."""
    players = sorted({p for a, b, _ in games for p in (a, b)})
    boards = sorted({k for _, _, k in games})

    def draw(rng: np.random.Generator) -> np.ndarray:
        table = np.full((len(players), len(players), len(boards)), 0.5)
        for i, a in enumerate(players):
            for j, b in enumerate(players):
                for k, x in enumerate(boards):
                    got = games.get((a, b, x))
                    if got:
                        table[i, j, k] = got[int(rng.integers(len(got)))]
        return table
    return draw


def stored_tables(folders: list[str]) -> list[Drawer]:
    """For each results folder of a complete round robin: a drawer of outcome tables, each
    game drawn from its pairing's stored games on its board and colour."""
    from arena.results.store import DB_FILE, ResultStore

    out = []
    for folder in folders:
        games: dict[tuple[str, str, str], list[float]] = {}
        with ResultStore(Path(folder) / DB_FILE, create=False) as store:
            for g in store.games():
                rec = g.record
                score = 0.5 if rec.winner is None else (1.0 if rec.winner == 1 else 0.0)
                games.setdefault((g.player1, g.player2, rec.game_label), []).append(score)
        out.append(_drawer(games))
    return out


def run(name: str, draw: Callable[[int], np.ndarray], goal: Goal) -> list[Outcome]:
    outcomes = [simulate(draw(s), goal) for s in range(SIMS)]
    n = len(outcomes)
    taus = sorted(o.tau for o in outcomes)
    print(f"| {name} | {n} | {sum(taus) / n:.3f} | {taus[max(0, n // 20 - 1)]:.3f} "
          f"| {taus[0]:.3f} | {100 * sum(o.tau >= 0.95 for o in outcomes) / n:.0f} % "
          f"| {100 * sum(o.top3 for o in outcomes) / n:.0f} % "
          f"| {max(o.displacement for o in outcomes)} "
          f"| {100 * sum(o.fraction for o in outcomes) / n:.1f} % "
          f"| {100 * max(o.fraction for o in outcomes):.1f} % "
          f"| {sum(o.ties for o in outcomes) / n:.1f} "
          f"| {sum(o.seconds for o in outcomes) / n:.1f} s |")
    return outcomes


#: the goal's class and machines: 40 entries, the competition set, 8 lab machines of 4 cores
CLASS = 40
LAB_WORKERS = 8 * 4
GRACE_S = 0.010
FILL = 0.5  # the share of a board a game fills, as the plan's model fits it on small boards
THINK = 0.8  # the share of each move a bot thinks


def goal_table() -> None:
    """The goal in hours: a class of 40 on the competition set, full round robin against the
    adaptive final (its budget, `GOAL.max_fraction`), on 8 lab machines of 4 cores: the worst
    case (every move at the limit + grace, every board filled: `final_length.worst_wall_s`) and
    a typical case (games filling `FILL` of the board, bots thinking `THINK` of each move)."""
    from arena.competition.settings import find_board_set
    from arena.league.final_length import makespan_s, worst_wall_s

    boards = [m * n for m, n, _ in find_board_set("competition", None, "bench")]
    full = CLASS * (CLASS - 1)  # games per board: every pair, both colours
    print(f"### The goal: a class of {CLASS} on the competition set ({len(boards)} boards), "
          f"{LAB_WORKERS} workers (8 machines x 4 cores)\n")
    print("| time limit | final | games | worst case | typical (fill "
          f"{100 * FILL:.0f} %, think {100 * THINK:.0f} %) |")
    print("|---:|---|---:|---:|---:|")
    for limit in (1.0, 0.5, 0.25):
        for name, share in (("full round robin", 1.0),
                            (f"adaptive ({100 * GOAL.max_fraction:.0f} %)", GOAL.max_fraction)):
            games = round(full * share)
            worst = worst_wall_s([(c * (limit + GRACE_S + 0.001), games) for c in boards],
                                 LAB_WORKERS, 0.0)
            typical = makespan_s([(FILL * c * (THINK * limit + 0.001), games) for c in boards],
                                 LAB_WORKERS)
            print(f"| {limit} s | {name} | {games * len(boards):,} | {worst / 3600:.1f} h "
                  f"| {typical / 3600:.1f} h |")
    print()


def main() -> None:
    print("## The adaptive final against the full round robin (bench_final_adaptive, issue 52)\n")
    print(f"{ENTRIES} entries, {BOARDS} boards, both colours: the full round robin is "
          f"{ENTRIES * (ENTRIES - 1) * BOARDS} games. Goal: the full order at confidence "
          f"{GOAL.confidence}, at most {100 * GOAL.max_fraction:.0f} % of the games; "
          f"{SIMS} simulated finals per field.\n")
    print("| field | finals | mean tau | 5th pct tau | worst tau | tau >= 0.95 | top 3 exact "
          "| largest displacement | games (mean) | games (most) | places in ties (mean) "
          "| policy time per final |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fields = (("built-ins with handicaps", built_ins), ("a class, N(0, 200 Elo)", a_class),
              ("near-equal, 2 Elo apart (hard case)", near_equal))
    for name, make in fields:
        def draw(seed: int, make: Callable[[random.Random], list[float]] = make) -> np.ndarray:
            return elo_table(make(random.Random(seed)), np.random.default_rng(seed))
        run(name, draw, GOAL)
    stored = [f for f in os.environ.get("CXARENA_FINAL_RESULTS", "").split(":") if f]
    for folder, drawer in zip(stored, stored_tables(stored), strict=True):
        def replay(seed: int, drawer: Drawer = drawer) -> np.ndarray:
            return drawer(np.random.default_rng(seed))
        run(f"stored: {folder}", replay, GOAL)
    print("\nThe same fields at other budgets (share of the full round robin's games):\n")
    print("| field, budget | finals | mean tau | 5th pct tau | worst tau | tau >= 0.95 "
          "| top 3 exact | largest displacement | games (mean) | games (most) "
          "| places in ties (mean) | policy time per final |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for fraction in SMALLER:
        goal = Goal(confidence=GOAL.confidence, max_fraction=fraction)
        for name, make in fields:
            def again(seed: int, make: Callable[[random.Random], list[float]] = make
                      ) -> np.ndarray:
                return elo_table(make(random.Random(seed)), np.random.default_rng(seed))
            run(f"{name}, {100 * fraction:.0f} %", again, goal)
    print()
    goal_table()


if __name__ == "__main__":
    main()
