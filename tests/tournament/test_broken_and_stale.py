"""Issue #33: a broken bot forfeits instead of blocking a teacher's tournament (`broken_bots:
forfeit`, `--forfeit-broken`), and `cxarena report` says when a bot's code changed since its
games were played."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from arena.cli import main
from arena.records import Reason
from arena.results.store import ResultStore
from tests.helpers import columns

BOT = '''
from arena.player import CXPlayer


class {cls}(CXPlayer):
    """{doc}"""

    def initPlayer(self, M, N, K, first, timeout_in_secs):
        self.N = N

    def selectColumn(self, B):
        return B.getAvailableColumns()[{pick}]

    def playerName(self):
        return "{cls}"
'''


def write_bots(folder: Path) -> None:
    (folder / "lefty.py").write_text(BOT.format(cls="Lefty", doc="leftmost", pick=0))
    (folder / "righty.py").write_text(BOT.format(cls="Righty", doc="rightmost", pick=-1))
    (folder / "broken.py").write_text("from arena.player import CXPlayer\n\ndef oops(:\n")


def write_config(folder: Path, extra: str = "") -> Path:
    cfg = folder / "class.yaml"
    cfg.write_text("name: class\nplayers: [lefty.py, broken.py, righty.py]\n"
                   "boards: [[4, 4, 3]]\ntimeout_s: 1\nworkers: 1\nisolation: none\n"
                   f"openings: {{plies: 0}}\n{extra}")
    return cfg


def games(results: Path) -> list:  # type: ignore[type-arg]
    with ResultStore(results / "games.sqlite", create=False) as s:
        return list(s.games())


def test_a_broken_bot_is_refused_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_bots(tmp_path)
    cfg = write_config(tmp_path)
    assert main(["tournament", str(cfg), "--results", "out", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "broken.py" in err and "SyntaxError" in err
    assert "--forfeit-broken" in err  # the way out is named
    assert not (tmp_path / "out" / "games.sqlite").exists()


def _check_forfeits(results: Path, out: str) -> None:
    stored = games(results)
    # round robin of 3 bots on 1 board: 3 pairs x 2 colours
    assert len(stored) == 6
    forfeits = [g for g in stored if "broken.py" in (g.player1, g.player2)]
    assert len(forfeits) == 4
    for g in forfeits:
        rec = g.record
        assert rec.reason is Reason.CRASH and columns(rec) == ()
        assert rec.offender == (1 if g.player1 == "broken.py" else 2)
        assert rec.winner == 3 - rec.offender
        assert rec.detail.startswith("forfeit: ") and "SyntaxError" in rec.detail
    played = [g for g in stored if "broken.py" not in (g.player1, g.player2)]
    assert all(columns(g.record) for g in played)
    # its log folder has no game of the broken bot: it was never started
    logs = results / "logs"
    assert not any("broken" in p.name for p in logs.rglob("*")) if logs.exists() else True
    rows = list(csv.DictReader((results / "standings.csv").open()))
    ranked = [r for r in rows if r.get("player") or r.get("name")]
    names = [r.get("player") or r.get("name") for r in ranked]
    assert "broken.py" in names and names[-1] == "broken.py"
    md = (results / "standings.md").read_text()
    assert "broken.py" in md and "forfeit" in md and "SyntaxError" in md
    assert "forfeit" in out and "broken.py" in out


def test_forfeit_broken_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_bots(tmp_path)
    cfg = write_config(tmp_path)
    assert main(["tournament", str(cfg), "--results", "out", "--quiet",
                 "--forfeit-broken"]) == 0
    captured = capsys.readouterr()
    _check_forfeits(tmp_path / "out", captured.err + captured.out)
    # the report lists it with its error
    assert main(["report", "out"]) == 0
    text = capsys.readouterr().out
    assert "broken.py" in text and "forfeit" in text and "SyntaxError" in text
    # a rerun resumes: nothing to play
    assert main(["tournament", str(cfg), "--results", "out", "--quiet",
                 "--forfeit-broken"]) == 0
    assert len(games(tmp_path / "out")) == 6


def test_forfeit_config_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_bots(tmp_path)
    cfg = write_config(tmp_path, "broken_bots: forfeit\n")
    assert main(["tournament", str(cfg), "--results", "out", "--quiet"]) == 0
    captured = capsys.readouterr()
    _check_forfeits(tmp_path / "out", captured.err + captured.out)


def test_broken_bots_key_is_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_bots(tmp_path)
    cfg = write_config(tmp_path, "broken_bots: skip\n")
    assert main(["tournament", str(cfg), "--results", "out", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "broken_bots" in err and "refuse" in err and "forfeit" in err


def test_report_names_a_bot_whose_code_changed(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_bots(tmp_path)
    cfg = tmp_path / "two.yaml"
    cfg.write_text("name: two\nplayers: [lefty.py, righty.py]\nboards: [[4, 4, 3]]\n"
                   "timeout_s: 1\nworkers: 1\nisolation: none\nopenings: {plies: 0}\n")
    assert main(["tournament", str(cfg), "--results", "out", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", "out"]) == 0
    fresh = capsys.readouterr()
    assert "since its games were played" not in fresh.out + fresh.err

    bot = tmp_path / "righty.py"
    bot.write_text(bot.read_text().replace("rightmost", "rightmost, edited"))
    assert main(["report", "out"]) == 0
    stale = capsys.readouterr()
    said = stale.out + stale.err
    assert "righty.py" in said and "changed since its games were played" in said
    assert "lefty.py" not in said.split("changed since")[0].splitlines()[-1]
    assert "--replay-changed" in said
    # --csv stays machine-readable: the word goes to stderr
    assert main(["report", "out", "--csv"]) == 0
    stale = capsys.readouterr()
    assert "righty.py" in stale.err and "since its games" not in stale.out
