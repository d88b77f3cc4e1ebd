"""League state: accounts (scrypt), uploads (validation, stored unchanged), queries."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from arena.league import League, LeagueError, UploadError


def _zip(entries: list[tuple[str, bytes]], link: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries:
            zf.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


def test_accounts(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    secret = league.add_user("ann", admin=True)
    assert league.verify_login("ann", secret) is not None
    assert league.verify_login("ann", secret + "x") is None
    assert league.verify_login("bob", secret) is None
    new = league.reset_secret("ann")
    assert league.verify_login("ann", secret) is None
    assert league.verify_login("ann", new) is not None
    with pytest.raises(LeagueError):
        league.add_user("ann")
    with pytest.raises(LeagueError):
        League.open(tmp_path / "none")


def test_upload_stored_unchanged(tmp_path: Path) -> None:
    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    data = b"def selectColumn(b):\n    return 0\n"
    first = league.submit("ann", [("bot.py", data)])
    second = league.submit("ann", [("bot.py", data + b"\n")])
    assert (first.version, second.version) == (1, 2)
    assert first.kind == "python" and first.status == "queued"
    assert league.submission_files(first.id) == [("bot.py", data)]
    assert first.fingerprint != second.fingerprint
    assert [s.id for s in League.open(tmp_path / "lg").submissions("ann")] == [1, 2]


@pytest.mark.parametrize("archive, words", [
    (_zip([("../Evil.java", b"x")]), "'..'"),
    (_zip([("/abs/Evil.java", b"x")]), "absolute"),
    (_zip([("A.java", b"x")], link="B.java"), "symbolic link"),
    (b"not a zip", "not a valid"),
])
def test_bad_archives(tmp_path: Path, archive: bytes, words: str) -> None:
    league = League.init(tmp_path / "lg")
    league.add_user("ann")
    with pytest.raises(UploadError, match=words):
        league.submit("ann", [("bot.zip", archive)])
    with pytest.raises(UploadError, match="limit"):
        league.submit("ann", [("bot.py", b"#" * 3_000_000)])
    assert league.submissions() == []


def _roster(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """A new league folder (made with `league init`) and a roster file holding `text`."""
    from arena.cli import main

    lg = tmp_path / "lg"
    assert main(["league", "init", str(lg)]) == 0
    roster = tmp_path / "roster.csv"
    roster.write_text(text)
    capsys.readouterr()
    return lg, roster


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    lg, roster = _roster(tmp_path, "ann\nbob\n", capsys)
    assert main(["league", "add-users", str(lg), str(roster)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines] == ["ann", "bob"]
    league = League.open(lg)
    assert league.verify_login("bob", lines[1].split(",")[1]) is not None
    bot = tmp_path / "bot.py"
    bot.write_text("x = 1\n")
    assert main(["league", "submit", str(lg), "--user", "ann", str(bot)]) == 0
    assert "version 1" in capsys.readouterr().out
    assert main(["league", "submit", str(lg), "--user", "zed", str(bot)]) == 2
    assert "no user" in capsys.readouterr().err


def test_a_roster_with_a_header_can_be_run_again_after_adding_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A header row is skipped; running the roster again creates only the new names and says
    which were skipped."""
    from arena.cli import main

    lg, roster = _roster(tmp_path, "Name,Email\nann,ann@example.org\n\nbob,bob@example.org\n",
                         capsys)
    assert main(["league", "add-users", str(lg), str(roster)]) == 0
    assert [line.split(",")[0] for line in capsys.readouterr().out.splitlines()] == ["ann", "bob"]
    roster.write_text("name\nann\nbob\ncid\n")
    assert main(["league", "add-users", str(lg), str(roster)]) == 0
    out, err = capsys.readouterr()
    assert [line.split(",")[0] for line in out.splitlines()] == ["cid"]
    assert "ann: already a user, skipped" in err and "bob: already a user" in err
    assert [u.name for u in League.open(lg).users()] == ["ann", "bob", "cid"]


@pytest.mark.parametrize("text, words", [
    ("ann\nbob\nann\n", "line 3: 'ann' is also on line 1"),
    ("ann\nbad name\n", "line 2: user name 'bad name'"),
    ("name\n\n", "no names"),
])
def test_a_bad_roster_creates_no_account(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         text: str, words: str) -> None:
    from arena.cli import main

    lg, roster = _roster(tmp_path, text, capsys)
    assert main(["league", "add-users", str(lg), str(roster)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in err and "Traceback" not in err
    assert League.open(lg).users() == []


def test_config(tmp_path: Path) -> None:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("timeout_s: 0.5\npairs_per_submission: 4\n")
    league = League.init(tmp_path / "lg", cfg)
    assert League.open(tmp_path / "lg").config.file.pairs_per_submission == 4
    assert league.config.timeout_s == 0.5
    cfg.write_text("timeout: 1\n")
    with pytest.raises(LeagueError, match="unknown key .timeout."):
        League.init(tmp_path / "lg2", cfg)
    assert not (tmp_path / "lg2").exists()
    sample = Path(__file__).parents[2] / "configs" / "league.yaml"
    assert League.init(tmp_path / "lg3", sample).config.board_set == "competition"
