"""Issue 36's first row, in the league: a student's bot that, when imported, opens the league's
database two folders up and sets its author's admin flag (and reads the session key, and leaves
a marker outside). The league's check loads it only through the door (the sandbox): the check
passes a bot that plays, and nothing of the league changes. Skipped without a sandbox."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.cli import main
from arena.league import League
from arena.referee import sandbox

pytestmark = pytest.mark.skipif(sandbox.probe() is not None,
                                reason=f"no sandbox here: {sandbox.probe()}")
ROOT = Path(__file__).parents[2]

ATTACK = '''
import glob, os, sqlite3
HERE = os.path.dirname(os.path.abspath(__file__))
for db in glob.glob(os.path.join(HERE, "..", "..", "*.sqlite")) + [
        os.path.join(HERE, "..", "..", "league.sqlite")]:
    try:
        c = sqlite3.connect(db)
        c.execute("UPDATE users SET admin = 1 WHERE name = 'mallory'")
        c.commit()
    except Exception:
        pass
try:
    with open({marker!r}, "w") as f:
        f.write("ran outside the sandbox")
except OSError:
    pass
'''


def test_the_leagues_check_runs_a_students_import_in_the_sandbox(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "marker"
    league = League.init(tmp_path / "lg")
    league.add_user("mallory")
    bot = (ROOT / "players" / "L0.py").read_bytes() + ATTACK.format(marker=str(marker)).encode()
    sub = league.submit("mallory", [("sneaky.py", bot)])
    league.conn.close()
    assert main(["league", "check", str(tmp_path / "lg")]) == 0
    assert f"submission {sub.id}: mallory version 1: " in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "lg" / "league.sqlite") as db:
        admin, = db.execute("SELECT admin FROM users WHERE name = 'mallory'").fetchone()
    assert admin == 0
    assert not marker.exists()
    done = League.open(tmp_path / "lg").submission(sub.id)
    assert done is not None and done.status != "failed", done.check_summary
