"""`cxarena play --game`: a person against a bot of any game in the one terminal interface
(scripted input; the bot runs under the real referee), the game stored like any other."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from arena.cli import main
from arena.entrants.specs import parse_spec
from arena.games import make_game
from arena.play.session import Entrant, GameSetup
from arena.play.terminal import play_games
from arena.records import Reason
from arena.results.store import DB_FILE, ResultStore


def _script(lines: list[str]) -> tuple[io.StringIO, object]:
    feed: Iterator[str] = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None
    return io.StringIO(), read


def test_othello_in_the_terminal_is_stored(tmp_path: Path) -> None:
    out, read = _script(["moves", "a1", "d3", "q", "n"])
    game = make_game("othello")
    setup = GameSetup(timeout_s=1.0)
    spec = parse_spec("players.othello.greedy")
    finished = play_games(Entrant("greedy", spec, game="othello"), game, setup, tmp_path,
                          out=out, read=read)  # type: ignore[arg-type]
    text = out.getvalue()
    assert "legal moves: d3 c4 f5 e6" in text
    assert "a1 is not a legal move here" in text
    assert "greedy plays" in text and "greedy wins: you resigned." in text
    rec = finished[0].record
    assert rec is not None and rec.move_texts[0] == "d3" and rec.winner == 2
    assert rec.reason is Reason.CRASH and rec.offender == 1  # a resignation: the person's loss
    with ResultStore(tmp_path / DB_FILE, create=False) as store:
        assert [g.record.game for g in store.games()] == ["othello"]


def test_morris_bot_moves_first(tmp_path: Path) -> None:
    out, read = _script([])  # end of input at once: the person leaves
    finished = play_games(Entrant("random", parse_spec("players.morris.random_bot")),
                          make_game("morris"), GameSetup(timeout_s=1.0, human_first=False),
                          None, out=out, read=read)  # type: ignore[arg-type]
    rec = finished[0].record
    assert rec is not None and len(rec.move_texts) == 1 and rec.winner == 1
    assert "random plays" in out.getvalue()


def test_play_command_checks_the_game(capsys: object) -> None:
    assert main(["play", "players.othello.greedy", "--game", "chess"]) == 2


def test_mnk_in_the_same_terminal_ends_with_the_rules_words(tmp_path: Path) -> None:
    """A win on the board is said in the rules' words, not as the loser's fault."""
    out, read = _script(["a1", "b1", "c1", "n"])  # three in the top row (random may block)
    finished = play_games(Entrant("random", parse_spec("players.mnk.random_bot"), game="mnk"),
                          make_game("mnk"), GameSetup(timeout_s=1.0), None,
                          out=out, read=read)  # type: ignore[arg-type]
    rec = finished[0].record
    text = out.getvalue()
    assert rec is not None and "You (X) against random (O) in mnk" in text
    if rec.winner == 1 and rec.offender is None:
        assert "You win: " in text and "crashed" not in text and "win. k-in-a-row" not in text
