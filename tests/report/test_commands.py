"""`cxarena show`, `cxarena report --json` (game ids) and `--html`, the tournament's last line,
and the column key shared by standings.md and the README."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.board import CXBoard
from arena.cli import main
from arena.records import GameRecord, Reason
from arena.results.standings import column_key_markdown
from tests.helpers import board, columns
from tests.report.conftest import Played

ROOT = Path(__file__).resolve().parent.parent.parent


def test_tournament_ends_by_naming_the_report(played: Played) -> None:
    last = played.output.strip().splitlines()[-1]
    assert last == f"report: {played.report}"
    assert played.report.is_file()
    assert column_key_markdown() in (played.results_dir / "standings.md").read_text()


def test_readme_has_the_same_column_key() -> None:
    assert column_key_markdown() in (ROOT / "README.md").read_text()


def test_report_json_has_every_game_id(played: Played, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(played.results_dir), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [d["game_id"] for d in lines] == [g.game_id for g in played.games]
    assert all(list(d)[0] == "game_id" for d in lines)
    by_id = {g.game_id: g for g in played.games}
    for d in lines:
        assert GameRecord.from_dict(d) == by_id[d["game_id"]].record  # still reads back


def test_report_html_default_and_named_file(played: Played, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    assert main(["report", str(played.results_dir), "--html", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"report: {out}"
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert main(["report", str(played.results_dir), "--html", str(tmp_path / "no" / "x.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no directory" in err


def _connect_game(played: Played):  # type: ignore[no-untyped-def]
    return next(g for g in played.games if g.record.reason is Reason.CONNECT)


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The layouts these tests read are a wide terminal's; wrapping to a narrow one (whatever
    COLUMNS the test run inherits) is tested in test_show_width.py."""
    monkeypatch.setenv("COLUMNS", "400")


def test_show_prints_the_final_board_with_move_numbers(
        played: Played, capsys: pytest.CaptureFixture[str]) -> None:
    g = _connect_game(played)
    rec = g.record
    assert main(["show", str(played.results_dir), g.game_id]) == 0
    out = capsys.readouterr().out
    assert f"game {g.game_id}: {board(rec)[0]}x{board(rec)[1]} board" in out
    assert f"seed {rec.seed}" in out
    winner = (g.player1, g.player2)[rec.winner - 1]  # type: ignore[operator]
    assert f"result: {winner} (" in out
    assert f"{board(rec)[2]} in a row with move {rec.n_moves}" in out
    # the board: rows of cells 'X12', 'O3*' or '.'; strip the numbers and marks and compare
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("final position")) + 2
    grid = [re.sub(r"[0-9*<]", "", ln).split() for ln in lines[start:start + board(rec)[0]]]
    assert "\n".join("".join(r) for r in grid) == str(CXBoard.from_moves(
        *board(rec), list(columns(rec))))
    M = board(rec)[0]
    numbers = sorted(int(n) for ln in lines[start:start + M] for n in re.findall(r"\d+", ln))
    assert numbers == list(range(1, rec.n_moves + 1))
    assert out.count("*") >= board(rec)[2]  # the winning line
    assert "times:" in out and f"{g.player1}: " in out


def test_show_step_prints_every_position(played: Played,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    g = _connect_game(played)
    assert main(["show", str(played.results_dir), g.game_id, "--step"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nmove ") == g.record.n_moves
    assert "start: " in out


def test_show_a_fault_explains_it(played: Played, capsys: pytest.CaptureFixture[str]) -> None:
    g = next(g for g in played.games if g.record.reason is Reason.CRASH)
    assert main(["show", str(played.results_dir), g.game_id]) == 0
    out = capsys.readouterr().out
    assert "crasher (" in out and "crashed" in out
    assert "deliberate failure in selectColumn" in out  # the stderr tail


def test_show_unknown_game_is_one_line_with_suggestions(
        played: Played, capsys: pytest.CaptureFixture[str]) -> None:
    g = played.games[0]
    assert main(["show", str(played.results_dir), g.game_id + "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "did you mean" in err and g.game_id in err
    assert main(["show", str(played.results_dir.parent / "nothing"), "x"]) == 2
    assert "no tournament results here" in capsys.readouterr().err
