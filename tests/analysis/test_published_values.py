"""Issue #42: the published values of the first moves judge the first move of a 6x7x4 game.

The first player wins 6x7 only by opening in the middle column (Allis 1988; Tromp): a first move
in column 2 gives the win away (a draw), and the analysis of a stored game says so at move 1,
with the words it uses for any lost win; a first move in column 3 keeps the win."""

from __future__ import annotations

from pathlib import Path

from arena.analysis.known import known_value
from arena.analysis.store import AnalysisStore
from arena.commands.analyze import analyse_stored
from arena.records import Reason
from arena.results.store import ResultStore
from tests.helpers import cx_record

M, N, K = 6, 7, 4
# a 6x7 K=4 game played by L1 against L1 (tests/analysis/test_book_judgement.py), O won
GAME = [int(c) for c in "3211031652006054412432322646640410655533"]


def _stored(tmp_path: Path, moves: list[int]) -> Path:
    """A results folder holding the one game `moves` (id g1, X 'a' against O 'b')."""
    rec = cx_record(M=M, N=N, K=K, p1="L1", p2="L1", names=("a", "b"), moves=tuple(moves),
                     times_ms=(1.0,) * len(moves), winner=None, reason=Reason.DRAW, detail="",
                     seed=1).labelled(game_id="g1", round=1, player1="a", player2="b")
    with ResultStore(tmp_path / "games.sqlite") as store:
        store.add(rec)
    return tmp_path


def test_the_published_first_moves_of_6x7() -> None:
    assert known_value(M, N, K, []) is not None and known_value(M, N, K, []).outcome == 1
    after = {c: known_value(M, N, K, [c]) for c in range(N)}
    # for the second player, to move: the centre loses, its neighbours draw, the rest win
    assert {c: v.outcome for c, v in after.items() if v is not None} == {
        0: 1, 1: 1, 2: 0, 3: -1, 4: 0, 5: 1, 6: 1}
    assert all("Allis" in v.source and "Tromp" in v.source for v in after.values() if v)
    assert known_value(M, N, K, [2, 3]) is None and known_value(M, N, 5, [2]) is None


def test_a_first_move_in_column_2_is_flagged_as_giving_up_the_win(tmp_path: Path) -> None:
    moves = [2] + GAME[1:12]
    folder = _stored(tmp_path, moves)
    text = analyse_stored(str(folder), "g1", 0.05)
    a = AnalysisStore(folder).get("g1")
    assert a is not None
    first = a.verdicts[0]
    assert (first.verdict, first.reason, first.better) == ("blunder", "won -> drawn", (3,))
    assert (a.positions[1].kind, a.positions[1].outcome) == ("book", 0)
    assert any(v.ply == 0 for v in a.blunders(1))
    line = next(ln for ln in text.splitlines() if ln.lstrip().startswith("1 "))
    assert "BLUNDER: won -> drawn; better: 3" in line, text


def test_a_first_move_in_column_3_is_not_flagged(tmp_path: Path) -> None:
    folder = _stored(tmp_path, GAME[:12])
    analyse_stored(str(folder), "g1", 0.05)
    a = AnalysisStore(folder).get("g1")
    assert a is not None
    assert a.verdicts[0].verdict == "best", a.verdicts[0]
    assert (a.positions[1].kind, a.positions[1].outcome) == ("book", -1)


def test_every_first_move_of_a_second_player_board_loses() -> None:
    for col in range(6):
        v = known_value(6, 6, 4, [col])
        assert v is not None and v.outcome == 1  # the second player, to move, wins
