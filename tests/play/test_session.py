"""`HumanGame` and the referee's hooks for a person at the board, without a user interface:
the untimed seat, live move events, the stored record, resigning and closing, the seat's
secret, and the winning line."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from arena.board import CXBoard
from arena.entrants.specs import parse_spec
from arena.games import make_game
from arena.games.connectx.presentation import winning_cells
from arena.limits import Limits
from arena.play.session import (
    Entrant,
    Finished,
    GameSetup,
    HumanGame,
    IllegalMove,
    Moved,
    check_playable,
)
from arena.records import Reason, record_label
from arena.referee.referee import MatchSettings, Referee, course_game
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import columns

ZOO = Path(__file__).resolve().parents[1] / "referee" / "zoo"


def l0() -> Entrant:
    return Entrant("L0", parse_spec("L0"))


def cx(M: int, N: int, K: int):  # type: ignore[no-untyped-def]
    return make_game("connectx", {"rows": M, "cols": N, "k": K})


def next_event(game: HumanGame) -> Moved | Finished:
    return game.events.get(timeout=60)


def test_on_move_reports_every_move_of_a_refereed_game() -> None:
    seen: list[tuple[int, str, float]] = []
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec("L0"), parse_spec("L1"), course_game(4, 5, 4), seed=3,
                           on_move=lambda p, c, ms: seen.append((p, c, ms)))
    assert [c for _, c, _ in seen] == [str(c) for c in columns(rec)]  # the moves' texts
    assert [p for p, _, _ in seen] == [1 + i % 2 for i in range(rec.n_moves)]
    assert [round(ms, 3) for _, _, ms in seen] == list(rec.times_ms)


def test_the_persons_seat_is_untimed_and_the_game_is_stored(tmp_path: Path) -> None:
    # the bot's limit is 50 ms; the person takes far longer for every move, never a timeout
    game = HumanGame(l0(), cx(4, 4, 4), GameSetup(timeout_s=0.05), tmp_path / "play", seed=7)
    game.start()
    moves: list[Moved] = []
    while True:
        if game.human_to_move():
            if moves:  # the referee is asking the seat now: think 10 times the bot's limit
                time.sleep(0.5)
            col = next(c for c in range(4) if not game.state.board.fullColumn(c))
            game.play(col)
        event = next_event(game)
        if isinstance(event, Finished):
            break
        moves.append(event)
        assert event.by_human == (event.player == 1)
    rec = event.record
    assert rec is not None and rec.reason in (Reason.CONNECT, Reason.DRAW)
    assert [int(m.move) for m in moves] == list(columns(rec))
    assert max(rec.times_ms[0::2]) > 60  # the person thought longer than limit + grace
    assert moves[-1].ends_game and not any(m.ends_game for m in moves[:-1])
    assert rec.seed == 7 and rec.extra["human"] == 1 and rec.extra["bot"] == "L0"
    with ResultStore(tmp_path / "play" / DB_FILE, create=False) as store:
        [stored] = list(store.games())
    assert stored.game_id == event.game_id and stored.record == rec
    assert (stored.player1, stored.player2) == ("human", "L0")


def test_illegal_columns_are_refused_before_they_reach_the_referee(tmp_path: Path) -> None:
    game = HumanGame(l0(), cx(2, 3, 2), GameSetup(), None, seed=1)
    game.start()
    for text, why in (("x", "'x' is not a column number; give one from 0 to 2"),
                      ("3", "column 3 is out of range 0..2"), (-1, "column -1 is out of range"),
                      (None, "None' is not a move"), (True, "True' is not a move")):
        with pytest.raises(IllegalMove, match=why.replace("(", r"\(").replace(")", r"\)")):
            game.play(text)
    game.play("1")
    with pytest.raises(IllegalMove, match="it is not your turn|the game is over"):
        game.play("0")  # the bot's reply may be on its way, but it is not ours to play yet
    game.close(wait_s=30)
    fin = game.wait(30)
    assert fin is not None and fin.record is not None


def test_resigning_and_closing_lose_for_the_person(tmp_path: Path) -> None:
    game = HumanGame(l0(), cx(4, 4, 4), GameSetup(human_first=False), tmp_path, seed=2)
    game.start()
    assert isinstance(next_event(game), Moved)  # the bot's first move
    game.resign("resigned")
    fin = game.wait(30)
    assert fin is not None and fin.outcome == "loss" and fin.message == "L0 wins: you resigned."
    rec = fin.record
    assert rec is not None and rec.winner == 1 and rec.offender == 2
    assert rec.reason is Reason.CRASH and rec.detail == "selectColumn (move 2): human resigned"
    assert rec.stderr_tail == ""

    game = HumanGame(l0(), cx(4, 4, 4), GameSetup(), tmp_path, seed=3)
    game.start()
    game.close("left the game (page closed)", wait_s=30)
    fin = game.wait(0)
    assert fin is not None and fin.record is not None
    assert fin.record.detail == "selectColumn (move 1): human left the game (page closed)"


def test_a_process_without_the_secret_cannot_speak_for_the_person(tmp_path: Path) -> None:
    game = HumanGame(l0(), cx(4, 4, 4), GameSetup(), None, seed=4)
    intruder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    intruder.connect(game._path)  # before the seat: first in the queue
    intruder.sendall(b"seat guessed-token\nmove 0\n")
    game.start()
    game.play(3)
    event = next_event(game)
    assert isinstance(event, Moved) and event.by_human and event.move == "3"
    game.close(wait_s=30)
    intruder.close()


def test_a_bot_that_crashes_loses_and_the_message_says_why() -> None:
    bot = Entrant("crash_later", parse_spec(str(ZOO / "crash_later.py")))
    game = HumanGame(bot, cx(6, 7, 4), GameSetup(), None, seed=5)
    game.start()
    while True:
        if game.human_to_move():
            game.play(0)
        event = next_event(game)
        if isinstance(event, Finished):
            break
    assert event.outcome == "win"
    assert event.message.startswith("You win: crash_later crashed. selectColumn (move 6) "
                                    "failed: raised RuntimeError: zoo: deliberate crash")
    assert event.record is not None and event.record.offender == 2


def test_winning_cells() -> None:
    b = CXBoard.from_moves(6, 7, 4, [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3])  # diagonal 0..3
    assert winning_cells(b) == ((2, 3), (3, 2), (4, 1), (5, 0))
    b = CXBoard.from_moves(4, 4, 3, [0, 1, 0, 1, 0])  # vertical, player 1
    assert winning_cells(b) == ((1, 0), (2, 0), (3, 0))
    assert winning_cells(CXBoard(3, 3, 3)) == ()
    assert winning_cells(CXBoard.from_moves(3, 3, 3, [0, 1])) == ()


@pytest.mark.parametrize("kw, why", [({"timeout_s": 0}, "time limit"),
                                     ({"timeout_s": 1e9}, "time limit")])
def test_game_setup_is_checked(kw, why) -> None:
    with pytest.raises(ValueError, match=why):
        GameSetup(**kw)


def test_a_game_too_big_for_a_person_is_refused() -> None:
    with pytest.raises(ValueError, match="too big"):
        check_playable(cx(51, 50, 10))
    assert record_label(check_playable(cx(50, 50, 10))) == "50x50x10"


def test_leaving_the_game_is_stored_as_abandoned_not_a_fault(tmp_path: Path) -> None:
    """Ctrl-C, a closed page or the end of input: the game is kept as abandoned (the bot wins),
    and the person's side is not charged a crash in the standings."""
    from arena.report.explain import describe_end
    from arena.results.standings import compute_standings

    game = HumanGame(l0(), cx(4, 4, 4), GameSetup(), tmp_path, seed=9)
    game.start()
    game.close("left the game (interrupted)", wait_s=30)
    fin = game.wait(0)
    assert fin is not None and fin.record is not None
    rec = fin.record
    assert rec.reason is Reason.ABANDONED and rec.offender is None and rec.winner == 2
    assert rec.detail == "selectColumn (move 1): human left the game (interrupted)"
    assert fin.message == "L0 wins: you left the game."
    assert describe_end(rec, "human", "L0").startswith("L0 (second player) wins: the game was "
                                                       "abandoned after 0 moves")
    with ResultStore(tmp_path / DB_FILE, create=False) as store:
        games = list(store.games())
    st = compute_standings(["human", "L0"], games)
    human = next(r for r in st.ranking if r.player == "human")
    assert human.crashes == 0 and human.losses == 1
