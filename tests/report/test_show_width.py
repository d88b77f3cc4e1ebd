"""`cxarena show` keeps every line within the terminal's width (issue 42, point 10: a 50x50
game printed 300-column lines): the board is cut into bands of whole columns, the move list
holds as many moves per line as fit, and a long sentence wraps at its spaces; a game that fits
is printed as before."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.commands.show import fit_width
from arena.games import make_game
from arena.records import Reason, StoredGame
from arena.report.show import render_game
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import cx_record

ROOT = Path(__file__).resolve().parents[2]
DETAIL = ("selectColumn (move 12) failed: no answer within the time limit of 1 s and its grace "
          "of 0.05 s; the bot's last words were about something else entirely, at length")


def big_game(moves_wanted: int = 400, M: int = 50, N: int = 50, K: int = 10) -> StoredGame:
    """A stored game of random moves on an M x N board (a crash at the end, with a long
    detail)."""
    rules = make_game("connectx", {"rows": M, "cols": N, "k": K})
    state, rng, moves = rules.initial_state(), random.Random(3), []
    while rules.outcome(state) is None and len(moves) < moves_wanted:
        move = rng.choice(list(rules.legal_moves(state)))
        moves.append(move)
        state = rules.apply(state, move)
    rec = cx_record(M=M, N=N, K=K, p1="L0", p2="L1", names=("L0", "L1"), moves=tuple(moves),
                     times_ms=(1.5,) * len(moves), winner=1, reason=Reason.CRASH, offender=2,
                     detail=DETAIL, seed=1, timeout_s=1.0)
    return StoredGame("big-1", 1, "L0", "L1", rec.labelled(game_id="big-1", round=1,
                                                            player1="L0", player2="L1"))


def pieces(text: str) -> int:
    return len(re.findall(r"(?<!\S)[XO]\d+[*<]?(?!\S)", text))


@pytest.mark.parametrize("width", [80, 120])
def test_a_fifty_by_fifty_game_fits_the_width(width: int) -> None:
    game = big_game()
    wide = render_game(game)
    assert max(len(line) for line in wide.splitlines()) > 250  # as it was
    text = fit_width(wide, width)
    assert max(len(line) for line in text.splitlines()) <= width
    # nothing lost: every piece of the board, every column number, every move, the detail
    assert pieces(text) == pieces(wide) == game.record.n_moves
    headers = [line for line in text.splitlines() if re.fullmatch(r"[ \d]+", line)]
    numbers = [int(n) for line in headers for n in line.split()]
    assert numbers == list(range(50))
    moves = re.findall(r"(\d+)\. [XO] c\d+", text)
    assert [int(n) for n in moves] == list(range(1, game.record.n_moves + 1))
    result = next(line for line in wide.splitlines() if line.startswith("result: "))
    assert len(result) > width and "no answer within the time limit" in result
    assert " ".join(result.split()) in " ".join(text.split())  # wrapped, not cut
    assert "no answer within" in text  # at spaces: no word is broken
    # each band holds the board's 50 rows under its column numbers
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line in headers:
            rows = lines[i + 1:i + 51]
            assert len(rows) == 50 and all(len(r.split()) == len(line.split()) for r in rows)


def test_a_game_that_fits_is_printed_as_before() -> None:
    game = big_game(20, 6, 7, 4)
    text = render_game(game)
    assert fit_width(text, 200) == text


def test_the_command_keeps_to_the_terminals_columns(tmp_path: Path) -> None:
    game = big_game()
    with ResultStore(tmp_path / DB_FILE) as store:
        store.set_meta("name", "big")
        store.add(game.record)
    out = subprocess.run([sys.executable, "-m", "arena", "show", str(tmp_path), "big-1"],
                         cwd=str(ROOT), capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="80"))
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    assert pieces(out.stdout) == game.record.n_moves


def test_output_to_a_file_keeps_the_board_whole(tmp_path: Path) -> None:
    """A file has no width: without --width or $COLUMNS the board is written in one piece."""
    game = big_game()
    with ResultStore(tmp_path / DB_FILE) as store:
        store.set_meta("name", "big")
        store.add(game.record)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = subprocess.run([sys.executable, "-m", "arena", "show", str(tmp_path), "big-1"],
                         cwd=str(ROOT), capture_output=True, text=True, timeout=120,
                         env=dict(env, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr
    assert out.stdout == render_game(game)
