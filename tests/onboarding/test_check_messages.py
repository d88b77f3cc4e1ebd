"""`cxarena check-bot`'s messages (issue #33): a SPEC naming a class the file lacks is one plain
usage error; every problem of a bot shows in one run; a usage error comes alone."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BOT = '''
    from arena.player import CXPlayer


    class MyBot(CXPlayer):
        def initPlayer(self, M, N, K, first, timeout_in_secs):
            pass

        def selectColumn(self, B):
            return {answer}

        def playerName(self):
            return {name!r}
'''


def cxarena(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cxarena ARGS` in `cwd`, running this checkout's arena (not the one installed)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def make_bot(tmp_path: Path, answer: str = "B.getAvailableColumns()[0]",
             name: str = "MyBot") -> None:
    (tmp_path / "players").mkdir(exist_ok=True)
    (tmp_path / "players" / "mybot.py").write_text(
        textwrap.dedent(BOT).format(answer=answer, name=name))


def test_a_missing_class_is_one_plain_usage_error(tmp_path: Path) -> None:
    make_bot(tmp_path)
    r = cxarena(tmp_path, "check-bot", "players/mybot.py:Nope", "--time", "0.5",
                "--board", "4", "4", "4")
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert "players/mybot.py has no class Nope" in out, out
    assert out.count("has no class") == 1, out
    assert "Traceback" not in out and "cxbot_" not in out and "SpecError" not in out, out
    assert "checking" not in out, out  # the error comes alone
    assert str(tmp_path) not in out, out  # the path as the user wrote it


def test_a_class_of_another_kind_is_one_plain_usage_error(tmp_path: Path) -> None:
    make_bot(tmp_path)
    r = cxarena(tmp_path, "check-bot", "players/mybot.py:CXPlayer", "--time", "0.5",
                "--board", "4", "4", "4")
    out = r.stdout + r.stderr
    assert r.returncode == 2, out
    assert out.count("players/mybot.py") == 1, out
    assert "Traceback" not in out and "checking" not in out, out


def test_an_unknown_bot_is_reported_alone(tmp_path: Path) -> None:
    r = cxarena(tmp_path, "check-bot", "nosuchbot", "--time", "0.5")
    assert r.returncode == 2
    assert r.stdout == "", r.stdout
    assert r.stderr.startswith("cxarena check-bot: error:"), r.stderr
    assert "unknown bot 'nosuchbot'" in r.stderr
    assert "checking" not in r.stderr


def test_every_problem_is_reported_in_one_run(tmp_path: Path) -> None:
    make_bot(tmp_path, answer="float(B.getAvailableColumns()[0])", name="N" * 41)
    r = cxarena(tmp_path, "check-bot", "players/mybot.py", "--time", "0.5",
                "--board", "4", "4", "4")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "illegal move" in r.stdout, r.stdout
    assert "playerName() is 41 characters long" in r.stdout, r.stdout
    assert "FAILED: 2 problem(s)" in r.stdout, r.stdout
