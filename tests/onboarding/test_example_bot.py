"""The non-Python example bot (examples/cxbot.c): compiled with `cc`, it plays real games under
the referee through an `exec:` SPEC, follows the protocol line by line, and passes check-bot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.board import CXBoard
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import Reason
from arena.referee.referee import MatchSettings, Referee, course_game
from tests.conftest import ROOT
from tests.helpers import columns, cxarena

SOURCE = ROOT / "examples" / "cxbot.c"


@pytest.fixture(scope="module")
def cxbot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler (cc) on this machine")
    exe = tmp_path_factory.mktemp("cxbot") / "cxbot"
    r = subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-o", str(exe), str(SOURCE)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return exe


def talk(exe: Path, lines: list[str]) -> list[str]:
    """Feed the bot these referee lines; return its answer lines."""
    r = subprocess.run([str(exe)], input="".join(x + "\n" for x in lines), capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_it_follows_the_protocol_transcript(cxbot: Path) -> None:
    answers = talk(cxbot, [
        "hello 1",
        "newgame 6 7 4 2 1 424242 {}",
        "opponent 3", "go",  # -> the centre
        "opponent 4", "go",
        "some-future-keyword 1 2 3",  # ignored
        "opponent 5", "go",  # P1 has 3 4 5 on the bottom row: block at 2 (or 6)
        'newgame 4 4 4 1 0.5 7 {"depth": 3}',  # a new game resets the board
        "go", "opponent 0", "go", "opponent 0", "go", "opponent 0", "go",  # 4th in column 1
        "quit",
    ])
    assert answers[:2] == ["ready 1", "ok CBot"]
    assert answers[2:5] == ["play 3", "play 3", "play 2"]
    assert answers[5:] == ["ok CBot", "play 1", "play 1", "play 1", "play 1"]


@pytest.mark.parametrize("M, N, K", [(4, 4, 4), (6, 7, 4), (7, 5, 5), (20, 20, 10)])
def test_it_plays_real_games_under_the_referee(cxbot: Path, M: int, N: int, K: int) -> None:
    bot = parse_spec(f"exec:{cxbot}")
    for opponent in ("L0", "L1"):
        other = parse_spec(opponent)
        with Referee(MatchSettings(limits=Limits(timeout_s=0.5))) as referee:
            for seed, (p1, p2) in enumerate([(bot, other), (other, bot)]):
                rec = referee.play(p1, p2, course_game(M, N, K), seed=seed)
                assert not rec.is_fault, (rec.reason, rec.detail, rec.stderr_tail)
                side = 0 if p1 is bot else 1
                assert rec.names[side] == "CBot"
                board = CXBoard.from_moves(M, N, K, list(columns(rec)))  # all legal
                assert (board.gameState().value == "draw") == (rec.reason is Reason.DRAW)


def test_it_passes_check_bot(cxbot: Path, tmp_path: Path) -> None:
    r = cxarena(ROOT, "check-bot", f"exec:{cxbot}", "--time", "0.5", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "playerName(): 'CBot'" in r.stdout and "PASSED" in r.stdout
