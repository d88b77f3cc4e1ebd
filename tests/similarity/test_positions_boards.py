"""Play-similarity positions on every board (issue 41, point 2): a published, solver-checked
set for each board the exact solver covers, positions from the league's own games elsewhere,
and a league asked on every board it plays."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from arena.board import CXBoard, CXGameState
from arena.games.connectx import ConnectX
from arena.league import League
from arena.league.standings import record_game
from arena.records import GameRecord, Reason, record_fields
from arena.similarity import answers as answers_module
from arena.similarity import report as report_module
from arena.similarity.answers import (
    DONE,
    Target,
    league_setups,
    load_stored,
    stored_run,
)
from arena.similarity.background import step
from arena.similarity.league import league_similarity
from arena.similarity.play import Answers, Position, load_positions, positions_path
from arena.similarity.positions import (
    MIN_MOVES,
    board_count,
    game_positions,
    published,
    quiet,
)

NEGAMAX = (Path(__file__).resolve().parent / "bots" / "negamax2.py").read_bytes()
#: a board beyond the exact solver (more than 64 cells): positions from the league's games
BIG = (20, 20, 10)


def test_every_solver_board_of_the_competition_set_has_a_published_set() -> None:
    from arena.tournament.config import resolve_board_set

    boards = resolve_board_set("competition")
    solver = [b for b in boards if b[0] * b[1] <= 64]
    assert len(solver) == 31
    with_set = [b for b in solver if positions_path(*b).is_file()]
    # the 4-column K=5 boards have none: random games gave no position with a best move and
    # a worse one there (nearly every position is a draw whatever is played)
    assert set(solver) - set(with_set) == {(5, 4, 5), (6, 4, 5), (7, 4, 5)}
    for b in with_set:
        got = load_positions(*b)
        assert got and len({p.moves for p in got}) == len(got), b
    assert not positions_path(*BIG).is_file()


@pytest.mark.parametrize("board", [(4, 4, 4), (5, 5, 4), (4, 6, 4)])
def test_positions_of_a_solver_board_have_two_moves_of_the_best_value(
        board: tuple[int, int, int]) -> None:
    from players._shared.oracle import oracle_for  # the exact solver, as the generator's

    oracle = oracle_for(*board)
    positions = published(board, 8)
    assert positions is not None and len(positions) == 8
    for pos in positions:
        assert pos.board == board
        b = CXBoard.from_moves(*board, list(pos.moves))
        assert quiet(b)
        scores = {c: -oracle.solve(list(pos.moves) + [c], None)  # type: ignore[operator]
                  for c in b.getAvailableColumns()}
        best = max(scores.values())
        top = tuple(sorted(c for c, s in scores.items() if s == best))
        assert len(top) >= 2 and top == pos.best, (pos, scores)
        assert len(top) < len(scores)  # at least one worse move: a choice


def Rec(M: int, N: int, K: int, moves: tuple[int, ...]) -> GameRecord:
    """A stored record of a Connect-X game on board M, N, K with these columns."""
    texts = [str(c) for c in moves]
    return GameRecord(**record_fields(ConnectX(rows=M, cols=N, k=K), texts, ()), p1="a",
                      p2="b", names=("a", "b"), times_ms=(0.0,) * len(moves), winner=None,
                      reason=Reason.DRAW, detail="", seed=1)


def _columns(rec: GameRecord) -> tuple[int, ...]:
    return tuple(int(t) for t in rec.texts)


def random_game(board: tuple[int, int, int], seed: int, plies: int) -> tuple[int, ...]:
    rng = random.Random(seed)
    b = CXBoard(*board)
    while b.numOfMarkedCells() < plies and b.gameState() is CXGameState.OPEN:
        b.markColumn(rng.choice(b.getAvailableColumns()))
    return tuple(b.moves())


def test_positions_from_games_are_legal_undecided_quiet_and_deterministic() -> None:
    board = (7, 7, 5)
    records = [Rec(*board, random_game(board, seed, 30)) for seed in range(40)]
    records.insert(3, Rec(6, 7, 4, random_game((6, 7, 4), 1, 20)))  # another board's game
    got = game_positions(records, board, 10)
    assert len(got) == 10
    assert got == game_positions(list(records), board, 10)  # deterministic
    assert game_positions(records, board, 4) == got[:4]  # more games or positions: a prefix
    assert len({p.moves for p in got}) == len(got)
    games = [r for r in records if r.params == dict(zip(("rows", "cols", "k"), board, strict=True))]
    for pos in got:
        assert pos.board == board and pos.best == ()
        b = CXBoard.from_moves(*board, list(pos.moves))  # legal
        assert b.gameState() is CXGameState.OPEN and quiet(b)
        assert len(b.getAvailableColumns()) >= MIN_MOVES
        game = next(g for g in games if _columns(g)[:len(pos.moves)] == pos.moves)
        assert len(pos.moves) <= len(_columns(game)) - 2  # the game went on: not decided there
    # a finished game's last position is never taken; a short game gives none
    assert game_positions([Rec(*board, (0, 1))], board, 5) == []


def test_a_position_with_a_threat_is_not_taken() -> None:
    board = (6, 7, 4)
    threat = (0, 6, 1, 6, 2)  # X threatens 0-1-2-3 on the bottom row
    assert not quiet(CXBoard.from_moves(*board, list(threat)))
    game = Rec(*board, threat + (3, 5, 5, 4, 4))  # the middle (ply 5) is the threat
    got = game_positions([game], board, 1)
    assert [len(p.moves) for p in got] == [4]  # the next ply nearest the middle, quiet
    assert quiet(CXBoard.from_moves(*board, list(got[0].moves)))


def test_the_positions_are_spread_over_the_boards() -> None:
    assert board_count(60, 1) == 60
    assert board_count(60, 2) == 30
    assert board_count(60, 35) == 2
    assert board_count(4, 2) == 2


def store_big_games(lg: League, count: int) -> None:
    for seed in range(count):
        moves = random_game(BIG, seed, 30)
        rec = dataclasses.replace(Rec(*BIG, moves), p1="players.L0", p2="players.L0",
                                  names=("L0", "L0"), winner=1, reason=Reason.CONNECT, seed=seed)
        record_game(lg, "sub:1", "sub:2", "x".join(map(str, BIG)), 1.0, record=rec)


def make_league(tmp_path: Path) -> Path:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[6, 7, 4], [20, 20, 10]]\ntimeout_s: 0.5\njava: false\n"
                   "isolation: false\nreference_bots: [L0]\nsimilarity_budget_s: 600\n")
    lg = League.init(tmp_path / "lg", cfg)
    for name in ("ann", "bob"):
        lg.add_user(name)
    lg.submit("ann", [("negamax2.py", NEGAMAX)])
    lg.submit("bob", [("mine.py", NEGAMAX)])  # a copy: the same moves
    with lg.conn:
        lg.conn.execute("UPDATE submissions SET status='rating'")
    lg.conn.close()
    return tmp_path / "lg"


def test_a_board_beyond_the_solver_waits_for_enough_games_then_keeps_its_set(
        tmp_path: Path) -> None:
    lg = League.open(make_league(tmp_path))
    try:
        assert [s.board for s in league_setups(lg, 4)] == [(6, 7, 4)]  # no game yet
        store_big_games(lg, 1)
        assert [s.board for s in league_setups(lg, 4)] == [(6, 7, 4)]  # too few
        store_big_games(lg, 3)
        setups = league_setups(lg, 4)
        assert [s.board for s in setups] == [(6, 7, 4), BIG]
        assert [len(s.positions) for s in setups] == [2, 2]
        assert all(p.board == BIG for p in setups[1].positions)
        key = setups[1].key
        store_big_games(lg, 5)  # later games do not change a full set
        assert league_setups(lg, 4)[1].key == key
        assert setups[0].key != key and "20x20x10" in key
    finally:
        lg.conn.close()


REFS = ("L0", "L1")


@pytest.mark.serial
def test_a_league_with_games_on_two_boards_gets_answers_on_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arena.league.worker.plan_next", lambda lg: None)  # no rating games
    # two reference bots make the band (the six built-ins would only take longer)
    monkeypatch.setattr(answers_module, "reference_targets",
                        lambda: [Target(r, "", r) for r in REFS])
    monkeypatch.setattr("arena.similarity.background.reference_targets",
                        lambda: [Target(r, "", r) for r in REFS])
    monkeypatch.setattr(report_module, "REFERENCE_BOTS", REFS)
    d = make_league(tmp_path)
    lg = League.open(d)
    try:
        store_big_games(lg, 4)
        while step(lg, 4) is not None:  # the background, until nothing is left
            pass
        setups = league_setups(lg, 4)
        assert [s.board for s in setups] == [(6, 7, 4), BIG]
        for setup in setups:
            rows = {e: r for (e, _), r in load_stored(lg.conn, setup).items()}
            assert set(rows) == {"sub:1", "sub:2", *REFS}, setup.board
            for entry, row in rows.items():
                assert row.state == DONE and row.asked == 2, (setup.board, entry, row)
            same = [(x, y) for x, y in zip(rows["sub:1"].first, rows["sub:2"].first,
                                           strict=True) if x is not None and y is not None]
            assert all(x == y for x, y in same)  # the copy answers the same where both did

        run = stored_run(lg, positions=4)
        assert run is not None
        assert [p.board for p in run.positions] == [(6, 7, 4)] * 2 + [BIG] * 2
        # every position of both boards was asked (an answer may still be a fault: None,
        # when a loaded machine keeps the bot past its time)
        assert len(run.answers["ann v1"].first) == 4
        assert run.play_between(1, 2) is not None

        def no_asking(specs: list[str], *args: object, **kwargs: object) -> dict[str, object]:
            raise AssertionError(f"asked {specs}")

        monkeypatch.setattr(report_module, "answers_of", no_asking)
        rep = league_similarity(lg, positions=4)  # everything stored: nothing asked
        assert rep.boards == [(6, 7, 4), BIG] and rep.positions == 4
        assert "2 boards (6x7x4, 20x20x10)" in rep.lines()[0]
        assert [p.play for p in rep.pairs if {p.a, p.b} == {"ann v1", "bob v1"}][0] is not None
    finally:
        lg.conn.close()


def test_the_command_asks_on_every_board_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """`compare(boards=...)`: each board's share of the published positions, one board after
    the other; a board without a set is named in the notes (the bots are stand-ins here)."""
    asked: list[tuple[int, int, int] | None] = []

    def stand_in(specs: list[str], M: int, N: int, K: int, positions: list[Position],
                 **kwargs: object) -> dict[str, Answers]:
        asked[:] = [p.board for p in positions]
        moves = tuple(i % 3 for i in range(len(positions)))
        return {s: Answers(s, moves, moves) for s in specs}

    monkeypatch.setattr(report_module, "answers_of", stand_in)
    bots = Path(__file__).resolve().parent / "bots"
    rep = report_module.compare([str(bots / "negamax2.py"), str(bots / "negamax2_tweak.py")],
                                boards=[(4, 4, 4), (5, 4, 5), (6, 7, 4), BIG], positions=8)
    assert asked == [(4, 4, 4)] * 2 + [(6, 7, 4)] * 2
    assert rep.boards == [(4, 4, 4), (6, 7, 4)] and rep.positions == 4
    assert any("5x4x5, 20x20x10" in n for n in rep.notes)
    assert "2 boards (4x4x4, 6x7x4)" in rep.lines()[0]
