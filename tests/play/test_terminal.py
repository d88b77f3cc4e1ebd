"""`cxarena play` driven like a person at a terminal (pexpect on a real pseudo-terminal): a full
game against L0, illegal input asked again with the reason, and bots that crash or time out
mid-game (the person is told why, and wins). Each game must be stored as an ordinary record."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from arena.records import Reason
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import board, columns

pexpect = pytest.importorskip("pexpect", reason="pexpect (dev extra) is not installed")

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "referee" / "zoo"
PROMPT = r"Your move \(0-(\d+)\): "
AGAIN = r"Play again\? \[y/N\] "


def spawn(tmp_path: Path, *args: str) -> pexpect.spawn:
    argv = ["-m", "arena", "play", *args, "--results", str(tmp_path / "play")]
    env = {"NO_COLOR": "1", "PATH": "/usr/bin:/bin", "TERM": "xterm",
           "PYTHONPATH": str(ROOT)}
    return pexpect.spawn(sys.executable, argv, cwd=str(ROOT), env=env, encoding="utf-8",
                         timeout=60, dimensions=(50, 120))


def stored(tmp_path: Path):
    with ResultStore(tmp_path / "play" / DB_FILE, create=False) as store:
        return list(store.games())


def test_full_game_against_L0(tmp_path: Path) -> None:
    child = spawn(tmp_path, "L0", "--board", "4", "4", "3", "--time", "1")
    child.expect(r"You \(X\) against L0 \(O\) on 4 rows x 4 columns, 3 in a row")
    child.expect(r" 0 1 2 3\r\n")
    col, typed = 0, 0
    while True:
        i = child.expect([PROMPT, AGAIN])
        if "is full; try again" in child.before:
            col += 1
        if i == 1:
            break
        child.sendline(str(col))
        typed += 1
    end = child.before
    assert re.search(r"(You win: 3 in a row|L0 wins: 3 in a row|Draw: the board is full)\.", end)
    match = re.search(r"Stored as game (\S+) in", end)
    assert match, end
    child.sendline("n")
    # the session ends with the account of a busy machine, the same words as every command's
    child.expect(r"busy machine: \d+ late moves? excused .*, 0 timeouts charged, in 1 game")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    [game] = stored(tmp_path)
    rec = game.record
    assert game.game_id == match.group(1)
    assert (game.player1, game.player2) == ("human", "L0")
    assert (rec.p1, rec.p2, rec.names) == ("human", "L0", ("human", "L0"))
    assert rec.reason in (Reason.CONNECT, Reason.DRAW) and rec.offender is None
    assert board(rec) == (4, 4, 3)
    # the person's accepted moves are the columns typed minus the refused ones
    assert len(columns(rec)[0::2]) == typed - col
    assert len(rec.times_ms) == rec.n_moves


def test_illegal_input_is_asked_again_with_the_reason(tmp_path: Path) -> None:
    child = spawn(tmp_path, "L0", "--board", "4", "4", "4", "--time", "1")
    child.expect(PROMPT)
    child.sendline("9")
    child.expect(r"column 9 is out of range 0\.\.3; try again")
    child.expect(PROMPT)
    child.sendline("left")
    child.expect(r"'left' is not a column number; give one from 0 to 3; try again")
    child.expect(PROMPT)
    child.sendline("")  # an empty line (or `moves`) lists the legal moves
    child.expect(r"legal moves: 0 1 2 3")
    for _ in range(2):  # fill column 0 with the bot's help, or until it is full
        child.expect(PROMPT)
        child.sendline("0")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect(r"L0 wins: you resigned\.")
    child.expect(AGAIN)
    child.sendline("n")
    child.expect(pexpect.EOF)
    [game] = stored(tmp_path)
    rec = game.record
    assert rec.winner == 2 and rec.offender == 1 and rec.reason is Reason.CRASH
    assert rec.detail == "selectColumn (move 5): human resigned"
    assert columns(rec)[0] == 0 and columns(rec)[2] == 0 and rec.n_moves == 4


def test_bot_that_crashes_mid_game_loses_and_the_person_is_told_why(tmp_path: Path) -> None:
    spec = str(ZOO / "crash_later.py")
    child = spawn(tmp_path, spec, "--board", "6", "7", "4", "--time", "1", "--second")
    child.expect("you move second")
    for _ in range(2):
        child.expect(PROMPT)
        child.sendline("0")
    child.expect(r"You win: \S*crash_later\.py crashed\. selectColumn \(move 5\) failed: "
                 r"raised RuntimeError: zoo: deliberate crash in the third move")
    child.expect(r"Its last error output: RuntimeError: zoo: deliberate crash")
    child.expect(AGAIN)
    child.sendline("y")  # play again: a fresh bot process crashes again
    for _ in range(2):
        child.expect(PROMPT)
        child.sendline("1")
    child.expect(r"You win: \S*crash_later\.py crashed")
    child.expect(AGAIN)
    child.sendline("n")
    child.expect(pexpect.EOF)
    games = stored(tmp_path)
    assert len(games) == 2
    for g in games:
        assert (g.player1, g.player2) == (spec, "human")
        assert g.record.reason is Reason.CRASH and g.record.offender == 1
        assert g.record.winner == 2 and g.record.n_moves == 4


def test_bot_that_times_out_loses(tmp_path: Path) -> None:
    child = spawn(tmp_path, str(ZOO / "sleepy.py"), "--board", "4", "4", "4", "--time", "0.2")
    child.expect(PROMPT)
    child.sendline("2")
    child.expect(r"You win: \S*sleepy\.py ran out of time\. selectColumn \(move 2\): no answer "
                 r"after [\d.]+ ms, over the 200 ms limit")
    child.expect(AGAIN)
    child.sendline("n")
    child.expect(r"busy machine: .*1 timeout charged")
    child.expect(pexpect.EOF)
    [game] = stored(tmp_path)
    assert game.record.reason is Reason.TIMEOUT and game.record.offender == 2


def test_draw_board_marks_the_winning_line() -> None:
    from arena.board import CXBoard
    from arena.games.connectx.presentation import draw_board, winning_cells

    b = CXBoard.from_moves(3, 11, 3, [10, 0, 9, 0, 8])
    assert draw_board(b, winning_cells(b)) == "\n".join([
        "  0  1  2  3  4  5  6  7  8  9 10",
        "  .  .  .  .  .  .  .  .  .  .  .",
        "  O  .  .  .  .  .  .  .  .  .  .",
        "  O  .  .  .  .  .  .  .  *  *  *",
    ])
    colored = draw_board(b, winning_cells(b), color=True)
    assert colored.count("\033[7m") == 3 and "*" not in colored


JAVA_BOT = """import connectx.CXPlayer;
import connectx.CXBoard;
public class Bot implements CXPlayer {
  public Bot() {}
  public void initPlayer(int M, int N, int K, boolean first, int timeout_in_secs) {}
  public int selectColumn(CXBoard B) { return B.getAvailableColumns()[0]; }
  public String playerName() { return "Bot"; }
}
"""


def test_a_java_bot_at_half_a_second_is_refused_before_the_game(tmp_path: Path) -> None:
    """The course API gives a Java bot whole seconds: `play` refuses 0.5 s at once (no JVM,
    no game stored as its crash), saying what to use (issue 42, point 9)."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "Bot.java").write_text(JAVA_BOT)
    child = spawn(tmp_path, f"java:{tmp_path / 'bot'}", "--board", "6", "7", "4",
                  "--time", "0.5")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "not a whole number of seconds" in child.before
    assert not (tmp_path / "play" / DB_FILE).exists()
