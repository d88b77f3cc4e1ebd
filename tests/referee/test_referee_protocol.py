"""The line protocol (arena.wire.protocol, docs/protocol.md), the Python host speaking it, the
shell
bot following the documented transcript, and `cxarena match`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.commands.match import game_seed
from arena.games.connectx import ConnectX
from arena.records import GameRecord
from arena.wire import protocol
from tests.helpers import board, columns

ROOT = Path(__file__).resolve().parents[2]
ZOO = ROOT / "tests" / "referee" / "zoo"


# ---------------------------------------------------------------------------- messages
@pytest.mark.parametrize("answer, text", [
    (3, "3"), (np.int64(4), "4"), (np.int32(0), "0"), (np.uint8(6), "6"), (-1, "-1"),
    (2.0, "2.0"), ("3", "'3'"), (None, "None"), (True, "True"), (np.bool_(True), None),
    (np.float64(1.0), None),
])
def test_encode_answer(answer: object, text: str | None) -> None:
    assert protocol.encode_answer(answer) == (repr(answer) if text is None else text)
    parsed = protocol.parse_reply(protocol.play(answer).rstrip("\n"))
    assert isinstance(parsed, protocol.Play)
    is_int = isinstance(answer, (int, np.integer)) and not isinstance(answer, (bool, np.bool_))
    assert (parsed.column is not None) == is_int
    if is_int:
        assert parsed.column == int(answer)  # type: ignore[call-overload]


class _Sneaky:
    def __repr__(self) -> str:
        return "3"


class _Broken:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def test_encode_answer_never_passes_a_non_int_as_a_column() -> None:
    for obj in (_Sneaky(), _Broken(), "4\nplay 5", [1], 3.5, b"3"):
        line = protocol.play(obj)
        assert line.count("\n") == 1
        reply = protocol.parse_reply(line.rstrip("\n"))
        assert isinstance(reply, protocol.Play) and reply.column is None, line


def test_parse_reply() -> None:
    assert protocol.parse_reply("ready 1") == protocol.Ready(1)
    assert protocol.parse_reply("ok  My Bot 2 ") == protocol.Ok("My Bot 2")
    assert protocol.parse_reply("ok") == protocol.Ok("")
    assert protocol.parse_reply("play 5\r") == protocol.Play("5")
    assert protocol.parse_reply("play 5").column == 5  # type: ignore[union-attr]
    assert protocol.parse_reply("play -1").column == -1  # type: ignore[union-attr]
    assert protocol.parse_reply("play 2.0").column is None  # type: ignore[union-attr]
    assert protocol.parse_reply("play ").column is None  # type: ignore[union-attr]
    assert protocol.parse_reply("error boom") == protocol.ErrorReply("boom")
    assert isinstance(protocol.parse_reply("# note"), protocol.Comment)
    assert isinstance(protocol.parse_reply(""), protocol.Comment)
    for bad in ("hello", "move 3", "ready one", "3"):
        with pytest.raises(protocol.ProtocolError):
            protocol.parse_reply(bad)


@given(M=st.integers(1, 60), N=st.integers(1, 60), K=st.integers(1, 60),
       player=st.sampled_from([1, 2]),
       timeout_s=st.floats(0.001, 1000.0).map(lambda x: round(x, 6)),
       seed=st.integers(0, 2**63 - 1),
       options=st.dictionaries(st.text(max_size=8),
                               st.one_of(st.integers(), st.text(), st.booleans(), st.none()),
                               max_size=3))
def test_newgame_round_trip(M: int, N: int, K: int, player: int, timeout_s: float, seed: int,
                            options: dict) -> None:
    game = ConnectX.__new__(ConnectX)  # any M, N, K: the codec does not check the rules
    game.params = {"rows": M, "cols": N, "k": K}
    line = protocol.newgame(game, player, timeout_s, seed, options)
    assert line.endswith("\n") and line.count("\n") == 1 and line.isascii()
    msg = protocol.parse_request(line.rstrip("\n"))
    assert msg == protocol.NewGame("connectx", {"rows": M, "cols": N, "k": K}, player,
                                   timeout_s, seed, options)
    assert msg.first == (player == 1)


def test_requests() -> None:
    assert protocol.hello() == "hello 1\n"
    assert protocol.parse_request("hello 1") == protocol.Hello(1)
    assert protocol.parse_request("opponent 3") == protocol.Opponent("3")
    assert protocol.parse_request("go") == protocol.Go()
    assert protocol.parse_request("quit") == protocol.Quit()
    assert protocol.parse_request("gameover 1 connect") is None  # unknown: ignored
    assert protocol.parse_request("newgame 6 7 4 2 1 42 {}") == protocol.NewGame(
        "connectx", {"rows": 6, "cols": 7, "k": 4}, 2, 1.0, 42, {})
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_request("newgame 6 7 4")
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_request("opponent x")


def test_format_seconds_has_no_exponent() -> None:
    assert protocol.format_seconds(1) == "1"
    assert protocol.format_seconds(0.5) == "0.5"
    assert protocol.format_seconds(1e-5) == "0.00001"
    assert protocol.format_seconds(2.25) == "2.25"


# ------------------------------------------------------------------ programs speaking it
def _converse(argv: list[str], lines: list[str]) -> list[str]:
    proc = subprocess.run(argv, input="".join(f"{x}\n" for x in lines), capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    return [x for x in proc.stdout.splitlines() if x and not x.startswith("#")]


TRANSCRIPT = ["hello 1", "newgame 6 7 4 2 1 424242 {}", "opponent 3", "go", "opponent 4", "go",
              "opponent 5", "go", "newgame 6 7 4 1 1 424243 {}", "go", "quit"]


def test_shell_bot_follows_the_documented_transcript() -> None:
    replies = _converse(["sh", str(ZOO / "shellbot.sh")], TRANSCRIPT)
    assert replies == ["ready 1", "ok ShellBot", "play 0", "play 0", "play 0", "ok ShellBot",
                       "play 0"]


def test_documented_transcript_is_the_shell_bots() -> None:
    """docs/protocol.md's example must stay in step with the grammar."""
    doc = (ROOT / "docs" / "protocol.md").read_text()
    for line in TRANSCRIPT:
        assert f"    > {line}\n" in doc


def test_host_speaks_for_a_python_bot(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "arena.entrants.host", str(ZOO / "printer.py")]
    proc = subprocess.run(argv, input="".join(f"{x}\n" for x in TRANSCRIPT).encode(),
                          capture_output=True, timeout=60, cwd=tmp_path, env=env)
    replies = proc.stdout.decode().splitlines()
    assert replies[:2] == ["ready 1", "ok printer"]
    plays = [r for r in replies if r.startswith("play")]
    # printer plays the last free column; its own prints went to stderr, not the protocol
    assert plays == ["play 6", "play 6", "play 6", "play 6"], replies
    assert replies.count("ok printer") == 2
    assert b"thinking..." in proc.stderr and proc.returncode == 0


def test_host_reports_a_failing_bot_as_error() -> None:
    argv = [sys.executable, "-m", "arena.entrants.host", str(ZOO / "raise_select.py")]
    replies = _converse(argv, ["hello 1", "newgame 4 4 3 1 1 0 {}", "go", "go"])
    assert replies[:2] == ["ready 1", "ok raise_select"]
    assert replies[2].startswith("error raised ValueError: zoo: deliberate failure")
    assert len(replies) == 3  # and it exits


def test_host_rejects_another_protocol_version() -> None:
    replies = _converse([sys.executable, "-m", "arena.entrants.host", "players.L0"], ["hello 2"])
    assert replies == ["error unsupported protocol version 2"]


# ------------------------------------------------------------------------ cxarena match
def test_match_json_alternates_colours_and_replays(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", "L0", "L1", "--board", "5", "6", "4", "--time", "1", "--games", "3",
            "--seed", "9", "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    records = [GameRecord.from_dict(json.loads(line)) for line in out.splitlines()]
    assert [(r.p1, r.p2) for r in records] == [("L0", "L1"), ("L1", "L0"), ("L0", "L1")]
    assert [r.seed for r in records] == [game_seed(9, i) for i in (1, 2, 3)]
    assert all(board(r) == (5, 6, 4) and r.names for r in records)
    first = json.loads(out.splitlines()[0])
    for key in ("game", "game_params", "p1", "p2", "names", "move_texts", "times_ms", "winner",
                "reason", "detail", "seed"):
        assert key in first
    assert first["game_params"] == {"rows": 5, "cols": 6, "k": 4}
    assert not {"M", "N", "K", "moves", "opening"} & first.keys()  # the neutral shape alone
    assert "W/D/L for L0" in err and "Elo difference" in err and "LOS" in err
    assert main(argv) == 0
    again = [GameRecord.from_dict(json.loads(x)) for x in capsys.readouterr()[0].splitlines()]
    assert [columns(r) for r in again] == [columns(r) for r in records]


def test_match_summary_counts_faults(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["match", str(ZOO / "raise_select.py"), "L0", "--board", "4", "4", "3",
            "--time", "1", "--games", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("L0 wins by crash") == 2
    assert "W/D/L for" in out and "0/0/2" in out
    assert "2 (2 crash)" in out and "points" in out


@pytest.mark.parametrize("argv", [
    ["match", "L0", "no_such_bot", "--board", "6", "7", "4", "--time", "1"],
    ["match", "L0", "L1", "--board", "6", "7", "9", "--time", "1"],
    ["match", "L0", "L1", "--board", "6", "7", "4", "--time", "0"],
    ["match", "L0", "L1", "--board", "6", "7", "4", "--time", "1", "--games", "0"],
])
def test_match_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cxarena match: error: ") and err.count("\n") == 1


def test_game_seed_is_deterministic_and_distinct() -> None:
    """The same seeds in another process with another hash salt (Python's hash() would not
    give that), and distinct seeds for distinct games."""
    code = ("from arena.commands.match import game_seed; "
            "print([game_seed(s, i) for s in range(5) for i in range(1, 21)])")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    here = [game_seed(s, i) for s in range(5) for i in range(1, 21)]
    assert json.loads(out) == here
    assert len(set(here)) == 100
