"""The referee plays other games through protocol v2: real bot processes, and every fault of
the zoo (late, crash, illegal, wrong version, stray output) contained as the game's result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.games import make_game
from arena.limits import Limits
from arena.records import GameRecord, Reason
from arena.referee.referee import MatchSettings, Referee, course_game

ZOO = Path(__file__).parent / "zoo"
MIS = str(ZOO / "misbehave.py")


@pytest.fixture(scope="module")
def referee() -> Iterator[Referee]:
    with Referee(MatchSettings(Limits(0.5, startup_timeout_s=20))) as ref:
        yield ref


def _play(referee: Referee, game: str, p1: str, p2: str, mode: str = "fine",
          **params: int) -> GameRecord:
    return referee.play(parse_spec(p1), parse_spec(p2), make_game(game, params), 5,
                        options1={"mode": mode})


def test_othello_game_is_recorded_with_its_moves(referee: Referee) -> None:
    rec = _play(referee, "othello", "players.othello.greedy", "players.othello.random_bot",
                size=6)
    assert rec.game == "othello" and rec.game_params == {"size": 6}
    assert rec.reason in (Reason.WIN, Reason.DRAW) and rec.offender is None
    game = make_game("othello", {"size": 6})
    end = game.play_texts(rec.move_texts)  # the record replays to a finished game
    out = game.outcome(end)
    assert out is not None and (out.winner + 1 if out.winner is not None else None) == rec.winner
    assert len(rec.times_ms) == len(rec.move_texts)
    assert not {"M", "N", "K", "moves", "opening"} & rec.to_dict().keys()  # neutral only
    assert rec.names == ("OthelloGreedy", "OthelloRandom")
    assert GameRecord.from_dict(rec.to_dict()) == rec


def test_morris_game_and_draw_rule(referee: Referee) -> None:
    rec = _play(referee, "morris", "players.morris.random_bot", "players.morris.random_bot",
                no_mill_moves=3)
    game = make_game("morris", {"no_mill_moves": 3})
    out = game.outcome(game.play_texts(rec.move_texts))
    assert out is not None and rec.detail.startswith(out.reason)


@pytest.mark.parametrize(("mode", "reason", "words"), [
    ("sleep", Reason.TIMEOUT, "over the 500 ms limit"),
    ("raise", Reason.CRASH, "select_move fails on purpose"),
    ("raise_init", Reason.CRASH, "init fails on purpose"),
    ("exit", Reason.CRASH, "select_move"),
    ("occupied", Reason.ILLEGAL, "d4"),
    ("syntax", Reason.ILLEGAL, "z99"),
    ("pass", Reason.ILLEGAL, "pass is only allowed"),
    ("object", Reason.ILLEGAL, "object"),
    ("hang_init", Reason.TIMEOUT, "init_player"),
])
def test_othello_faults_are_contained(referee: Referee, mode: str, reason: Reason,
                                      words: str) -> None:
    rec = _play(referee, "othello", MIS, "players.othello.random_bot", mode)
    assert (rec.reason, rec.offender, rec.winner) == (reason, 1, 2), rec.detail
    assert words in rec.detail


def test_stray_stdout_of_a_python_bot_is_harmless(referee: Referee) -> None:
    rec = _play(referee, "othello", MIS, "players.othello.random_bot", "print", size=4)
    assert rec.offender is None


def test_morris_mill_without_removal_is_illegal(referee: Referee) -> None:
    rec = _play(referee, "morris", MIS, "players.morris.random_bot", "no_removal")
    if rec.offender is None:  # no mill came up for the bot in this game: nothing to show
        pytest.skip("the seeded game had no mill for the misbehaving bot")
    assert rec.reason is Reason.ILLEGAL and "must remove" in rec.detail


def test_exec_bots_and_versions(referee: Referee) -> None:
    rec = _play(referee, "othello", f"exec:sh {ZOO / 'pass_bot.sh'}", "players.othello.greedy")
    assert rec.reason is Reason.ILLEGAL and rec.offender == 1 and rec.names[0] == "PassBot (othello)"
    rec = _play(referee, "othello", "players.othello.greedy", f"exec:sh {ZOO / 'v1_only.sh'}")
    assert rec.reason is Reason.CRASH and rec.offender == 2
    assert "speaks protocol version 1, the referee 2" in rec.detail
    rec = _play(referee, "othello", "players.othello.greedy", "L0")  # a CXPlayer: v1 only
    assert rec.reason is Reason.CRASH and "unsupported protocol version 2" in rec.detail
    rec = _play(referee, "othello", f"exec:sh {ZOO / 'garbage_v2.sh'}", "players.othello.greedy")
    assert rec.reason is Reason.ILLEGAL and rec.offender == 1 and "move d3 please" in rec.detail
    rec = _play(referee, "othello", f"exec:sh {ZOO / 'stray_v2.sh'}", "players.othello.greedy")
    assert rec.offender == 1 and "unsolicited output" in rec.detail
    # the same process pool still plays Connect-X through version 1
    cx = referee.play(parse_spec("L0"), parse_spec("L0"), course_game(4, 4, 3), 1)
    assert cx.game == "connectx" and cx.game_params == {"rows": 4, "cols": 4, "k": 3}
    assert cx.move_texts and all(t.isdigit() for t in cx.move_texts)  # columns, as texts


def test_openings_of_another_game(referee: Referee) -> None:
    othello = make_game("othello")
    rec = referee.play(parse_spec("players.othello.greedy"),
                       parse_spec("players.othello.random_bot"), othello, 3,
                       opening=("d3", "c5", "f6"))  # white to move after it
    assert rec.offender is None and rec.move_texts[:3] == ("d3", "c5", "f6")
    assert rec.opening_texts == ("d3", "c5", "f6") and rec.times_ms[:3] == (0.0, 0.0, 0.0)
    for bad in (("d3", "d3"), ("e9",)):
        with pytest.raises(ValueError, match="opening"):
            referee.play(parse_spec("players.othello.greedy"),
                         parse_spec("players.othello.random_bot"), othello, 3, opening=bad)


def test_match_pairs_of_another_game_start_from_openings(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from arena.cli import main

    assert main(["match", "players.othello.random_bot", "players.othello.greedy", "--game",
                 "othello", "--param", "size=6", "--time", "0.5", "--games", "4", "--plies",
                 "3", "--json"]) == 0
    recs = [GameRecord.from_dict(json.loads(line))
            for line in capsys.readouterr().out.splitlines()]
    assert [len(r.opening_texts) for r in recs] == [3, 3, 3, 3]
    assert recs[0].opening_texts == recs[1].opening_texts != recs[2].opening_texts
    assert recs[2].opening_texts == recs[3].opening_texts
