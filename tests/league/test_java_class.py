"""A course student's Java package often holds the bot and the student's own copies of L0 and
L1, all implementing connectx.CXPlayer. The student names the class to play (`league submit
--class`, the upload form's field); the choice is kept for the next version."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli import main as cli_main
from arena.league import League, UploadError
from arena.league.checks import check_next, spec_of
from arena.league.web.app import create_app
from tests.league.web.conftest import csrf_of

if shutil.which("javac") is None or shutil.which("java") is None:
    pytest.skip("javac/java not found: install a JDK (e.g. default-jdk-headless) to run the "
                "Java league tests", allow_module_level=True)

BOT = """package connectx.schillaci;

import connectx.CXBoard;
import connectx.CXPlayer;

public class {cls} implements CXPlayer {{
    public {cls}() {{}}

    public void initPlayer(int M, int N, int X, boolean first, int timeout_in_secs) {{}}

    public int selectColumn(CXBoard B) {{
        Integer[] cols = B.getAvailableColumns();
        return cols[{pick}];
    }}

    public String playerName() {{
        return "{cls}";
    }}
}}
"""


def package() -> bytes:
    """The student's zip: their bot and their copies of the course's L0 and L1."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for cls, pick in (("Schillaci", "cols.length / 2"), ("L0", "0"), ("L1", "cols.length - 1")):
            zf.writestr(f"connectx/schillaci/{cls}.java", BOT.format(cls=cls, pick=pick))
    return buf.getvalue()


@pytest.fixture
def league(tmp_path: Path) -> Path:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("boards: [[4, 4, 3]]\ntimeout_s: 1\nreference_bots: [L0]\nisolation: false\n")
    lg = League.init(tmp_path / "lg", cfg)
    lg.add_user("ann")
    lg.conn.close()
    return tmp_path / "lg"


def test_the_student_names_the_class_and_it_is_kept(league: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    lg = League.open(league)
    first = lg.submit("ann", [("bot.zip", package())])
    assert check_next(lg) == first.id
    failed = lg.submission(first.id)
    assert failed is not None and failed.status == "failed"
    assert "several classes" in failed.check_summary
    assert "Class to play" in failed.check_summary and "--class" in failed.check_summary
    lg.conn.close()

    (tmp_path / "bot.zip").write_bytes(package())
    assert cli_main(["league", "submit", str(league), "--user", "ann", "--class",
                     "connectx.schillaci.Schillaci", str(tmp_path / "bot.zip")]) == 0
    assert "class connectx.schillaci.Schillaci" in capsys.readouterr().out
    lg = League.open(league)
    second = lg.submissions("ann")[-1]
    assert second.class_name == "connectx.schillaci.Schillaci"
    assert spec_of(lg, second.id).endswith("/src:connectx.schillaci.Schillaci")
    assert check_next(lg) == second.id
    passed = lg.submission(second.id)
    assert passed is not None and passed.status == "rating", passed.check_summary
    third = lg.submit("ann", [("bot.zip", package())])  # the choice is kept
    assert third.class_name == "connectx.schillaci.Schillaci"
    assert lg.submit("ann", [("bot.zip", package())], class_name="").class_name == ""
    with pytest.raises(UploadError, match="expected a class name"):
        lg.submit("ann", [("bot.zip", package())], class_name="x; rm -rf /")
    lg.conn.close()


def test_the_upload_form_takes_the_class(league: Path) -> None:
    lg = League.open(league)
    secret = lg.reset_secret("ann")
    lg.conn.close()
    c = TestClient(create_app(league), base_url="http://127.0.0.1")
    c.post("/login", data={"name": "ann", "secret": secret,
                           "csrf": csrf_of(c.get("/login").text)})
    page = c.get("/submit").text
    assert 'name="class_name"' in page
    r = c.post("/submit", data={"csrf": csrf_of(page), "class_name": "connectx.schillaci.L1"},
               files={"files": ("bot.zip", package(), "application/zip")},
               follow_redirects=False)
    assert r.status_code == 303, r.text
    lg = League.open(league)
    assert lg.submissions("ann")[-1].class_name == "connectx.schillaci.L1"
    lg.conn.close()
    assert "connectx.schillaci.L1" in c.get("/submit").text  # shown as the kept choice
