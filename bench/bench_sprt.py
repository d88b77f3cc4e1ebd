"""SPRT cost: how many games `cxarena match --sprt` needs at a few true Elo differences
(simulated game pairs, no real games), against a fixed-length match with the same error rates.

Model: each game of a pair is independent, scoring 1 / 1/2 / 0 with a 30 % draw rate and the
expected score of the true (logistic) Elo difference. The SPRT is the one `cxarena match`
runs (`arena.results.stats.Sprt`: GSPRT, pentanomial, logistic Elo, LLR checked after every
pair), H0: Elo <= 0, H1: Elo >= 20, alpha = beta = 0.05. The fixed-length match of the same
error is the classical one-sided test that tells Elo 0 from Elo 20 with alpha = beta = 0.05:
n = ((z_0.95 + z_0.95) sd / (s1 - s0))^2 pairs, sd the standard deviation of a pair's score
at Elo 10.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from arena.results.stats import Pentanomial, Sprt, SprtResult, elo_to_score

ELO0, ELO1 = 0.0, 20.0
ALPHA = BETA = 0.05
DRAW = 0.3
TRUE_ELOS = (-10.0, 0.0, 10.0, 20.0, 30.0)
RUNS = 40
CAP_PAIRS = 20_000
Z95_ONE_SIDED = 1.6448536269514722


def _game(rng: random.Random, win: float) -> float:
    u = rng.random()
    return 1.0 if u < win else (0.5 if u < win + DRAW else 0.0)


def sprt_games(true_elo: float, seed: int) -> tuple[int, SprtResult]:
    rng = random.Random(seed)
    win = elo_to_score(true_elo) - DRAW / 2
    sprt = Sprt(ELO0, ELO1, ALPHA, BETA)
    p = Pentanomial()
    for i in range(1, CAP_PAIRS + 1):
        p = p.add_pair(_game(rng, win), _game(rng, win))
        st = sprt.state(p)
        if st.result is not SprtResult.CONTINUE:
            return 2 * i, st.result
    return 2 * CAP_PAIRS, SprtResult.CONTINUE


def fixed_games() -> int:
    s0, s1 = elo_to_score(ELO0), elo_to_score(ELO1)
    mid = elo_to_score((ELO0 + ELO1) / 2)
    win = mid - DRAW / 2
    # per-game variance of the trinomial; a pair's per-game score averages two games
    var_game = win * (1 - mid) ** 2 + DRAW * (0.5 - mid) ** 2 + (1 - win - DRAW) * mid ** 2
    sd_pair = math.sqrt(var_game / 2)
    pairs = ((2 * Z95_ONE_SIDED) * sd_pair / (s1 - s0)) ** 2
    return 2 * math.ceil(pairs)


def main() -> None:
    t0 = time.perf_counter()
    fixed = fixed_games()
    print("## SPRT: games to a decision (bench_sprt)\n")
    print(f"Simulated pairs (30 % draws, independent games), H0: Elo <= {ELO0:g}, H1: Elo >= "
          f"{ELO1:g}, alpha = beta = {ALPHA:g}, {RUNS} runs per row (LLR after every pair). "
          f"A fixed-length match with the same error rates needs **{fixed} games**.\n")
    print("| true Elo | mean games | median | 90th percentile | H1 accepted | vs fixed |")
    print("|---:|---:|---:|---:|---:|---:|")
    for elo in TRUE_ELOS:
        runs = [sprt_games(elo, 1000 * int(elo + 100) + r) for r in range(RUNS)]
        games = sorted(g for g, _ in runs)
        h1 = sum(r is SprtResult.H1 for _, r in runs)
        mean = statistics.fmean(games)
        p90 = games[min(len(games) - 1, int(0.9 * len(games)))]
        print(f"| {elo:+g} | {mean:.0f} | {statistics.median(games):.0f} | {p90} | "
              f"{h1}/{RUNS} | {mean / fixed:.2f} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)\n")


if __name__ == "__main__":
    main()
