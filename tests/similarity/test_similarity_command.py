"""`cxarena similarity` and `league_similarity`: flagged pairs first with both scores, CSV,
--known DIR, and a league's current submissions (code only here: play is test_play's)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from arena.cli import main
from arena.league.db import League
from arena.similarity.league import league_similarity
from arena.similarity.report import current_versions
from tests.conftest import ROOT
from tests.similarity.disguise import disguise

DATA = Path(__file__).resolve().parent / "data"
BLOCKER = f"java:{ROOT / 'examples' / 'java' / 'connectx' / 'Blocker'}"


def test_flagged_pairs_come_first_in_csv(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "mine.py"
    copy.write_text(disguise((ROOT / "players" / "montecarlo.py").read_text()))
    assert main(["similarity", "L1", "montecarlo", str(copy), "--no-play", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 3
    assert rows[0]["flagged"] == "1" and {rows[0]["a"], rows[0]["b"]} == {"montecarlo",
                                                                          str(copy)}
    assert [r["flagged"] for r in rows[1:]] == ["0", "0"]
    assert float(rows[0]["code_score"]) >= 0.8 and rows[0]["play_share"] == ""


def test_known_folder_finds_the_java_original(capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"java:{DATA / 'java' / 'Stopper'}"
    assert main(["similarity", spec, "--known", str(ROOT / "examples" / "java" / "connectx"),
                 "--no-play"]) == 0
    out = capsys.readouterr().out
    assert "1 flagged pair(s) of 1" in out
    assert "FLAG " + spec + "  ~  known:Blocker" in out
    assert "matched: Stopper.java:" in out and "<->  Blocker.java:" in out


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["similarity", "L1"]) == 2
    assert "two SPECs or more" in capsys.readouterr().err
    assert main(["similarity", "L1", "--known", "/no/such/dir"]) == 2


def test_league_similarity_compares_each_users_current_version(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    mc = (ROOT / "players" / "montecarlo.py").read_bytes()
    for user in ("ann", "bob", "cy"):
        league.add_user(user)
    league.submit("ann", [("ann.py", mc)])
    league.submit("bob", [("old.py", (ROOT / "players" / "L1.py").read_bytes())])
    league.submit("bob", [("bob.py", disguise(mc.decode()).encode())])
    league.submit("cy", [("cy.py", (ROOT / "players" / "L1.py").read_bytes())])
    with league.conn:
        league.conn.execute("UPDATE submissions SET status='rating'")
    assert [(s.user, s.version) for s in current_versions(league)] == [
        ("ann", 1), ("bob", 2), ("cy", 1)]
    report = league_similarity(league, play=False)
    assert [(p.a, p.b) for p in report.flagged] == [("ann v1", "bob v2")]
    assert len(report.pairs) == 3
    assert "1 flagged pair(s) of 3" in "\n".join(report.lines())


def test_board_set_asks_on_every_board_of_the_set(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`--board-set NAME` hands every board of the set to `compare` (which asks each board's
    share of the positions: tests/similarity/test_positions_boards.py), as a league does."""
    import arena.similarity.report as report
    from arena.tournament.config import resolve_board_set

    seen: dict[str, object] = {}
    real = report.compare

    def spy(*args: object, **kwargs: object) -> object:
        seen.update(kwargs)
        return real(*args, **{**kwargs, "play": False})  # type: ignore[arg-type]

    monkeypatch.setattr(report, "compare", spy)
    assert main(["similarity", "L1", "montecarlo", "--board-set", "competition"]) == 0
    assert list(seen["boards"]) == list(resolve_board_set("competition"))  # type: ignore
    assert len(seen["boards"]) == 35  # type: ignore[arg-type]
    assert main(["similarity", "L1", "montecarlo", "--board-set", "nosuchset"]) == 2
    assert "nosuchset" in capsys.readouterr().err


def test_the_boards_of_a_run_in_words() -> None:
    from arena.similarity.report import boards_words

    assert boards_words([(6, 7, 4)]) == "6x7x4"
    assert boards_words([(4, 4, 4), (5, 5, 4)]) == "2 boards (4x4x4, 5x5x4)"
    many = [(m, n, 4) for m in (4, 5, 6) for n in (4, 5, 6)]
    assert boards_words(many).startswith("9 boards (4x4x4, ") and "and 3 more)" in boards_words(
        many)
