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
