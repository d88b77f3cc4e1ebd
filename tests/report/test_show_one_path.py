"""`cxarena show` has one path for every game (arena/report/show.py asks the game,
`arena.games.base.Game`): Connect-X's text is what it was before (tests/report/data/
show_connectx.txt, written by the two-path `show`), and another game's has the same parts in
the same style: the sides, the opening as an opening, the move list with times, the init
times under the game's own name for the call, peak memory."""

from __future__ import annotations

from pathlib import Path

from arena.games import make_game
from arena.records import GameRecord, Reason, StoredGame
from arena.report.show import render_game
from tests.helpers import cx_record

GOLDEN = Path(__file__).parent / "data" / "show_connectx.txt"


def _connectx_games() -> list[StoredGame]:
    win = cx_record(M=6, N=7, K=4, p1="a", p2="b", names=("a", "b"),
                     moves=(3, 3, 0, 1, 0, 1, 0, 1, 0),
                     times_ms=(0.0, 0.0, 1.25, 2.5, 3.0, 4.0, 5.5, 6.0, 7.125),
                     winner=1, reason=Reason.CONNECT, detail="", seed=42, opening=(3, 3),
                     pair_id="6x7x4-r1-L0-L1", timeout_s=0.5, grace_s=0.05,
                     init_ms=(0.47, 6.08), extra={"peak_memory_mb": [81.04, None]})
    fault = cx_record(M=4, N=12, K=3, p1="a", p2="b", names=("a", "b"), moves=(0, 11, 10),
                       times_ms=(1.0, 2.0, 3.0), winner=1, reason=Reason.ILLEGAL,
                       detail="selectColumn (move 4): column 12 is out of range 0..11",
                       seed=7, offender=2, stderr_tail="Traceback\nValueError: no\n",
                       timeout_s=None)
    draw = cx_record(M=2, N=3, K=3, p1="a", p2="b", names=("a", "b"),
                      moves=(0, 1, 2, 0, 1, 2),
                      times_ms=(1.0,) * 6, winner=None, reason=Reason.DRAW,
                      detail="", seed=1, timeout_s=1.0)
    return [StoredGame("6x7x4-r1-L0-L1", 1, "L0", "L1", win),
            StoredGame("4x12x3-r2-x-y", 2, "x", "y", fault),
            StoredGame("2x3x3-r1-p-q", 1, "p", "q", draw)]


def test_connectx_show_is_unchanged() -> None:
    out = "".join(f"=== {g.game_id} step={step}\n" + render_game(g, step=step)
                  for g in _connectx_games() for step in (False, True))
    assert out == GOLDEN.read_text(encoding="utf-8")


def _othello() -> StoredGame:
    rules = make_game("othello", {"size": 6})
    state = rules.initial_state()
    texts: list[str] = []
    for _ in range(4):
        move = rules.legal_moves(state)[0]
        texts.append(rules.move_to_text(state, move))
        state = rules.apply(state, move)
    rec = GameRecord(p1="a", p2="b", names=("a", "b"),
                     times_ms=(0.0, 0.0, 1.5, 2.25), winner=None, reason=Reason.DRAW,
                     detail="", seed=1, game="othello", game_params={"size": 6},
                     move_texts=tuple(texts), opening_texts=tuple(texts[:2]), timeout_s=0.1,
                     init_ms=(0.5, 1.25), extra={"peak_memory_mb": [12.0, 30.5]})
    return StoredGame("othello-size6-r1-greedy-random", 1, "greedy", "random", rec)


def test_another_game_in_the_same_style() -> None:
    g = _othello()
    texts = g.record.move_texts
    out = render_game(g)
    assert out.startswith("game othello-size6-r1-greedy-random: othello size=6, round 1, "
                          "seed 1\nblack = greedy (first player), white = random (second "
                          "player)\n")
    assert f"opening: {texts[0]} {texts[1]} (2 plies played for both sides" in out
    assert "final position after 4 moves:\n" in out
    assert "  black greedy: 1 move, mean 1.50 ms, max 1.50 ms (2 % of the 100 ms limit)" in out
    assert "  init_player: black greedy 0.50 ms, white random 1.25 ms" in out
    assert "  peak memory: black greedy 12.0 MiB, white random 30.5 MiB" in out
    assert "moves (player, move, time):" in out
    moves = out.split("moves (player, move, time):\n")[1]
    assert moves.startswith(f"   1. black {texts[0]:<4}    opening   2. white {texts[1]:<4} "
                            f"   opening   3. black {texts[2]:<4}    1.50 ms")
    step = render_game(g, step=True)
    assert f"move 3: black greedy plays {texts[2]} in 1.50 ms" in step
    assert f"move 4: white random plays {texts[3]} in 2.25 ms" in step


def test_a_game_this_cxarena_does_not_know() -> None:
    rec = GameRecord(p1="a", p2="b", names=("a", "b"),
                     times_ms=(1.0,), winner=None, reason=Reason.DRAW, detail="", seed=3,
                     game="nosuchgame", game_params={"x": 1}, move_texts=("q",))
    out = render_game(StoredGame("g", 1, "a", "b", rec))
    assert "game g: nosuchgame x=1, round 1, seed 3" in out
    assert "(cannot draw the board: unknown game 'nosuchgame'" in out
    assert "   1. first  q" in out  # the moves are still listed
