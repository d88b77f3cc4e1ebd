"""Strength of the built-in bots.

    .venv/bin/python -m bench strength

Parts (``CXARENA_STRENGTH_PARTS``, comma-separated, default all: ``first,kept,external,robin``):

- ``first``: the first move of `alphabeta` (and, for comparison, of its search alone with the
  opening book off, 1 s) as first player on the empty board of each of the 16 K=4 boards,
  checked against the book (`players._shared.book`): does it keep the game value?
- ``kept``: won positions kept: on the positions of tests/data/won_positions.txt (generated
  and solved by `bench/won_positions.py`), how often alphabeta plays a winning move, per board,
  at 0.25 s and 1 s per move.
- ``external``: matches against bots nobody here wrote, run as ``exec:`` bots by
  `bench/opponents.py` under the referee: OpenSpiel's C++ MCTSBot (stopped at 70 % of the move
  limit) on 6x7x4 and 7x7x5, and kaggle-environments' negamax on 6x7x4, all at 1 s per move.
  Games are played in pairs: the same seed with each bot first once. Needs `.venv-bench`
  (``python3 -m venv .venv-bench && .venv-bench/bin/pip install open-spiel
  kaggle-environments``); skipped with a message if missing. ``CXARENA_STRENGTH_PAIRS`` (default
  20: 40 games per match; the Kaggle anchor plays at most 5 pairs) sets the match length,
  ``CXARENA_STRENGTH_MATCHES`` (e.g. ``1,3``) picks rows of the table.
- ``robin``: round robins of the built-in bots under the real referee, run by the tournament
  engine (resumable: results under results/bench-strength-*/), as points percentages:
  1. 6x7x4 at 0.25 s per move, 20 games per pairing and colour (40 per pairing).
  2. Three other boards (5x4x4, 6x6x5, 7x7x5) at 0.25 s, 2 games per pairing, board and colour.
  3. The round robin of all built-in bots restricted to the 16 K=4 boards, recomputed from the
     games `make tournament` stored in results/tournament (skipped if that run is not there).
  Each run starts over (stored games say nothing about changed bot code); set
  CXARENA_STRENGTH_RESUME=1 to resume an interrupted run instead. CXARENA_STRENGTH_ROUNDS
  overrides 1.'s rounds (a quicker, noisier run).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.competition.cores import usable_cores
from arena.competition.settings import PlaySettings
from arena.games.connectx.record import board_and_columns
from arena.records import GameRecord
from arena.results.standings import compute_standings
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import PlayerEntry, TournamentConfig, built_config
from arena.tournament.run import run_tournament
from bench.strength_parts import external, first_moves, won_positions_kept

BOTS = ["L0", "L1", "minimax", "alphabeta", "montecarlo", "mcts"]
TIMEOUT_S = 0.25
OTHER_BOARDS = [(5, 4, 4), (6, 6, 5), (7, 7, 5)]
ROOT = Path(__file__).resolve().parent.parent


def _config(name: str, boards: list[tuple[int, int, int]], rounds: int) -> TournamentConfig:
    return built_config(f"<bench {name}>", (PlayerEntry(b, b) for b in BOTS),
                        PlaySettings(timeout_s=TIMEOUT_S), name=name, boards=boards,
                        rounds=rounds, seed=2026)


def _run(cfg: TournamentConfig) -> Path:
    out = ROOT / "results" / f"bench-{cfg.file.name}"
    fresh = os.environ.get("CXARENA_STRENGTH_RESUME") != "1"
    outcome = run_tournament(cfg, out, quiet=True, fresh=fresh,
                             out=open(os.devnull, "w"))
    if not outcome.complete:
        raise SystemExit(f"{cfg.file.name}: only {outcome.played + outcome.already_stored} of "
                         f"{outcome.scheduled} games could be played")
    return out


def _table(results: Path, title: str) -> None:
    with ResultStore(results / DB_FILE, create=False) as store:
        games = list(store.games())
    st = compute_standings(BOTS, games)
    got: dict[tuple[str, str], list[int]] = {}
    faults = 0
    for g in games:
        r = g.record
        faults += r.is_fault
        for me, opp, side in ((g.player1, g.player2, 1), (g.player2, g.player1, 2)):
            pts = 1 if r.winner is None else (3 if r.winner == side else 0)
            acc = got.setdefault((me, opp), [0, 0])
            acc[0] += pts
            acc[1] += 3
    n_pair = got[(BOTS[0], BOTS[1])][1] // 3
    print(f"### {title}\n")
    print(f"Points percentage of the row bot against the column bot ({n_pair} games per "
          f"pairing, both colours; win 3, draw 1). Faults in all games: {faults}.\n")
    print("| bot | " + " | ".join(BOTS) + " | total |")
    print("|---|" + "---:|" * (len(BOTS) + 1))
    for me in BOTS:
        cells = []
        for opp in BOTS:
            if opp == me:
                cells.append("-")
            else:
                p, m = got[(me, opp)]
                cells.append(f"{100 * p / m:.0f}%")
        row = st.row(me)
        cells.append(f"{100 * row.points / (3 * row.games):.0f}%")
        print(f"| {me} | " + " | ".join(cells) + " |")
    print("\nRanking (points, then Elo):\n")
    print("| rank | bot | points | games | W | D | L | faults | mean move ms | max move ms |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in st.ranking:
        print(f"| {e.rank} | {e.player} | {e.points} | {e.games} | {e.wins} | {e.draws} | "
              f"{e.losses} | {e.timeouts + e.illegal + e.crashes} | {e.mean_move_ms:.1f} | "
              f"{e.max_move_ms:.1f} |")
    print()


def main() -> None:
    parts = os.environ.get("CXARENA_STRENGTH_PARTS", "first,kept,external,robin").split(",")
    print("## Strength of the built-in bots\n")
    print(f"Load average at start: {os.getloadavg()[0]:.2f} (2 cores shared).\n")
    if "first" in parts:
        first_moves()
    if "kept" in parts:
        won_positions_kept()
    if "external" in parts:
        external()
    if "robin" in parts:
        rounds = int(os.environ.get("CXARENA_STRENGTH_ROUNDS", "20"))
        print(f"Command: `.venv/bin/python -m bench strength` ({TIMEOUT_S} s per move, "
              f"{usable_cores()} workers).\n")
        _table(_run(_config("strength-6x7x4", [(6, 7, 4)], rounds)), "6x7x4")
        _table(_run(_config("strength-others", OTHER_BOARDS, 2)), "5x4x4, 6x6x5 and 7x7x5")
        _k4_ranking(ROOT / "results" / "tournament")


def _k(record: GameRecord) -> int | None:
    """K of a Connect-X game's board (None for another game)."""
    cx = board_and_columns(record)
    return None if cx is None else cx[2]


def _k4_ranking(results: Path) -> None:
    if not (results / DB_FILE).is_file():
        return
    with ResultStore(results / DB_FILE, create=False) as store:
        games = [g for g in store.games() if _k(g.record) == 4]
        players = sorted({g.player1 for g in games} | {g.player2 for g in games})
        timeout = json.loads(store.get_meta("config") or "{}").get("timeout_s", "?")
    st = compute_standings(players, games)
    print(f"### The K=4 boards of `make tournament` ({timeout} s per move)\n")
    print(f"{len(games)} games on the 16 K=4 boards, one per pairing, board and colour, from "
          f"`results/tournament`.\n")
    print("| rank | bot | points | games | W | D | L | faults |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in st.ranking:
        print(f"| {r.rank} | {r.player} | {r.points} | {r.games} | {r.wins} | {r.draws} | "
              f"{r.losses} | {r.timeouts + r.illegal + r.crashes} |")
    print()


if __name__ == "__main__":
    main()
