"""The league's analyses (`arena.league.analysis`): after a worker stores a pair, the games a
student lost on a board the exact solver covers are analysed within the league's per-game CPU
budget and cached in the league's `analyses` table; budget 0 turns it off; a failing analysis
never stops the worker."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from arena.analysis.engine import Oracle
from arena.board import CXBoard, CXGameState
from arena.commands import analysis_oracle
from arena.games.connectx.record import board_and_columns
from arena.league import League
from arena.league.analysis import (
    BudgetedOracle,
    analyse_within,
    cached_analysis,
    first_blunder,
    student_games,
)
from arena.league.config import parse_config
from arena.league.feed import run_worker
from arena.league.standings import game_record

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()


def make_league(tmp_path: Path, budget: str = "", boards: str = "[[5, 5, 4], [5, 6, 4]]",
                pairs: int = 2) -> Path:
    cfg = tmp_path / "league.yaml"
    cfg.write_text(f"boards: {boards}\ntimeout_s: 0.5\npairs_per_submission: {pairs}\n"
                   f"max_pairs_per_submission: {pairs}\nreference_bots: [L1]\n"
                   f"isolation: false\nopening_plies: 0\n{budget}")
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("ann")
    lg.submit("ann", [("bot.py", L0)])  # random moves against L1: ann loses, with blunders
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg"


def lost_by_ann(lg: League) -> list[tuple[int, int]]:
    """(game id, ann's player number) of the games ann lost."""
    out = []
    for gid, a, b, score_a in lg.conn.execute("SELECT id, side_a, side_b, score_a FROM games"):
        if a == "sub:1" and score_a == 0.0:
            out.append((gid, 1))
        elif b == "sub:1" and score_a == 1.0:
            out.append((gid, 2))
    return out


def test_config_key_default_and_validation() -> None:
    assert parse_config("").file.analysis_budget_s == 5.0
    assert parse_config("analysis_budget_s: 0").file.analysis_budget_s == 0.0
    assert parse_config("analysis_budget_s: 2.5").file.analysis_budget_s == 2.5
    for bad in ("-1", "yes", "[1]"):
        with pytest.raises(ValueError, match="analysis_budget_s"):
            parse_config(f"analysis_budget_s: {bad}")


def test_worker_analyses_the_lost_games_within_the_budget(tmp_path: Path) -> None:
    d = make_league(tmp_path, "analysis_budget_s: 1.0\n")
    assert run_worker(d, None, max_pairs=10, oracle_factory=analysis_oracle) == 2
    lg = League.open(d)
    lost = lost_by_ann(lg)
    assert lost, "random moves against L1 lost no game"
    analysed = {r[0] for r in lg.conn.execute("SELECT game_id FROM analyses")}
    assert analysed == {gid for gid, _ in lost}  # the lost ones, only those
    blunders = 0
    for gid, player in lost:
        a = cached_analysis(lg, gid)
        rec = game_record(lg, gid)
        assert a is not None and rec is not None
        assert (a.M, a.N, a.K, a.moves) == board_and_columns(rec)
        assert a.solver in ("numba", "python")
        assert a.elapsed_s <= 1.0 * 1.3 + 0.1, a.elapsed_s
        first = first_blunder(a, player)
        if a.blunders(player):
            blunders += 1
            assert first == a.blunders(player)[0] and first.player == player
        else:
            assert first is None
    assert blunders, "no lost game has a blunder of ann's"
    # the student's list says which games are analysed, and where the first blunder was
    rows = {g.game_id: g for g in student_games(lg, "ann")}
    for gid, player in lost:
        a = cached_analysis(lg, gid)
        assert a is not None and rows[gid].analysed
        fb = first_blunder(a, player)
        assert rows[gid].first_blunder == (None if fb is None else fb.ply + 1)
    assert all(not g.analysed for g in rows.values() if g.result != "loss")


def test_budget_zero_turns_it_off(tmp_path: Path) -> None:
    d = make_league(tmp_path, "analysis_budget_s: 0\n", pairs=1)
    calls: list[tuple[int, int, int]] = []

    def factory(M: int, N: int, K: int) -> Oracle:
        calls.append((M, N, K))
        return analysis_oracle(M, N, K)

    assert run_worker(d, None, max_pairs=10, oracle_factory=factory) == 1
    lg = League.open(d)
    assert lost_by_ann(lg)
    assert lg.conn.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 0
    assert calls == []


def test_boards_beyond_the_solver_are_not_analysed(tmp_path: Path) -> None:
    d = make_league(tmp_path, "analysis_budget_s: 1.0\n", boards="[[9, 9, 4]]", pairs=1)
    assert run_worker(d, None, max_pairs=10, oracle_factory=analysis_oracle) == 1
    lg = League.open(d)
    assert lost_by_ann(lg)
    assert lg.conn.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 0


def test_a_failing_analysis_never_stops_the_worker(tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    d = make_league(tmp_path, "analysis_budget_s: 1.0\n")

    def broken(M: int, N: int, K: int) -> Oracle:
        raise RuntimeError("the solver is broken")

    with caplog.at_level(logging.ERROR, logger="arena.league.worker"):
        assert run_worker(d, None, max_pairs=10, oracle_factory=broken) == 2
    assert "the solver is broken" in caplog.text
    lg = League.open(d)
    assert lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4
    assert lg.conn.execute("SELECT COUNT(*) FROM analyses").fetchone()[0] == 0


def _random_game(M: int, N: int, K: int, seed: int) -> list[int]:
    rng = random.Random(seed)
    b = CXBoard(M, N, K)
    moves = []
    while b.gameState() is CXGameState.OPEN:
        c = rng.choice(b.getAvailableColumns())
        b.markColumn(c)
        moves.append(c)
    return moves


def test_a_game_of_the_largest_board_stays_within_its_budget() -> None:
    """8x8 (64 cells, the solver's limit): a game whose first positions from the end already
    take the solver some 100 000 nodes each (about 1 s of CPU for the whole analysis even at
    1/8 of this budget per position) stays within a 0.2 s game budget."""
    moves = _random_game(8, 8, 4, 3)
    oracle = analysis_oracle(8, 8, 4)
    a = analyse_within(oracle, 8, 8, 4, moves, 0, 0.2)
    assert len(a.positions) == len(moves) + 1 and len(a.verdicts) == len(moves)
    assert a.elapsed_s <= 0.2 * 1.3 + 0.1, a.elapsed_s
    assert a.positions[-2].kind == "exact"  # the budget went into the last positions first


def test_the_budgeted_oracle_stops_searching_once_spent() -> None:
    inner = analysis_oracle(8, 8, 4)
    oracle = BudgetedOracle(inner, 0.0)
    assert oracle.exact is False  # nothing left: no exact solve is even tried
    assert oracle.solve([], 10**9) is None
    assert oracle.keeps([], 3, 1, 10**9) is None
    assert oracle.estimate([], 10.0) == (0.0, 0, False)
    assert oracle.book([]) == inner.book([])  # the book is a look-up, always answered


def test_the_servers_games_are_analysed_in_a_process_of_their_own(tmp_path: Path) -> None:
    """The server's rating games (`arena.league.feed`, the tournament's executor) analyse the
    lost games of each stored pair in an analysis process of their own."""
    import os
    import time

    from arena.league.feed import start_workers

    d = make_league(tmp_path, "analysis_budget_s: 1.0\n")
    games = start_workers(d, 1, None, None, oracle_factory=analysis_oracle,
                          announce=lambda line: None)
    deadline_s = time.monotonic() + 120
    try:
        while time.monotonic() < deadline_s:
            lg = League.open(d)
            try:
                lost = lost_by_ann(lg)
                analysed = {r[0] for r in lg.conn.execute("SELECT game_id FROM analyses")}
                played = lg.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            finally:
                lg.conn.close()
            if played == 4 and analysed == {gid for gid, _ in lost}:
                break
            time.sleep(0.2)
    finally:
        games.stop()
    assert games.analysis is not None and games.analysis.proc.pid != os.getpid()
    assert not games.analysis.proc.is_alive()  # stopped with the games
    assert played == 4 and lost, "random moves against L1 lost no game"
    assert analysed == {gid for gid, _ in lost}  # the lost ones, only those
