"""A sandboxed `exec:` bot whose program is a venv's `python` (a symbolic link to an interpreter
elsewhere), a symlinked venv, or a script named by a relative path: the sandbox shows it what
it needs (`arena.entrants.exposure.interpreter_paths`), so it plays instead of failing to start
with "not found"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants.exposure import bot_paths, interpreter_paths
from arena.entrants.specs import parse_spec
from arena.limits import Limits
from arena.records import FAULTS
from arena.referee.referee import MatchSettings, Referee, course_game
from arena.referee.sandbox import resolve

#: a protocol bot that needs nothing but a Python interpreter: the lowest column with room
BOT = """\
import sys
heights = []
M = N = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "hello":
        print("ready 1", flush=True)
    elif words[0] == "newgame":
        M, N = int(words[1]), int(words[2])
        heights = [0] * N
        print("ok venvbot", flush=True)
    elif words[0] == "opponent":
        heights[int(words[1])] += 1
    elif words[0] == "go":
        c = next(j for j in range(N) if heights[j] < M)
        heights[c] += 1
        print(f"play {c}", flush=True)
    elif words[0] == "quit":
        break
"""

needs_isolation = pytest.mark.skipif(not resolve("auto").isolated,
                                     reason="bubblewrap sandbox not available here")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv created under the temp dir (its bin/python links to this machine's Python)."""
    root = tmp_path_factory.mktemp("ext") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True,
                   timeout=120)
    return root


def _play(spec: str, cwd: Path | None = None) -> None:
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with Referee(MatchSettings(limits=Limits(timeout_s=2.0),
                                   isolation="namespaces")) as referee:
            rec = referee.play(parse_spec(spec), parse_spec("L0"), course_game(4, 5, 3), seed=1)
    finally:
        os.chdir(old)
    assert rec.reason not in FAULTS, rec.detail
    assert rec.names[0] == "venvbot"


def test_a_venv_python_shows_its_venv_and_its_home(venv: Path) -> None:
    python = venv / "bin" / "python"
    assert python.is_symlink()
    shown = interpreter_paths(python)
    assert str(venv) in shown  # the venv itself, as it is named
    home = Path(next(ln.split("=", 1)[1].strip() for ln in
                     (venv / "pyvenv.cfg").read_text().splitlines()
                     if ln.split("=", 1)[0].strip() == "home"))
    base = str(home.parent if home.name == "bin" else home)
    assert base in shown or base.startswith(("/usr/", "/bin/", "/lib"))


@needs_isolation
def test_a_venv_under_tmp_as_the_interpreter_of_an_exec_bot(venv: Path,
                                                            tmp_path: Path) -> None:
    bot = tmp_path / "elsewhere" / "bot.py"  # not beside the venv: only exposure shows it
    bot.parent.mkdir()
    bot.write_text(BOT)
    assert str(venv) in bot_paths(parse_spec(f"exec:{venv}/bin/python {bot}"))
    _play(f"exec:{venv}/bin/python {bot}")


@needs_isolation
def test_a_symlinked_venv(venv: Path, tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(venv)
    (checkout / "bot.py").write_text(BOT)
    _play(f"exec:{checkout}/.venv/bin/python {checkout}/bot.py")


@needs_isolation
def test_a_script_named_by_a_relative_path(venv: Path, tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    script = tmp_path / "bots" / "run.py"
    script.write_text(f"#!{venv}/bin/python\n" + BOT)
    script.chmod(0o755)
    _play("exec:bots/run.py", cwd=tmp_path)


@needs_isolation
def test_a_program_the_sandbox_cannot_see_is_refused_before_the_first_game(
        venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import arena.entrants.specs as specs
    import arena.tournament.preflight as preflight
    from arena.cli import main

    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    # what an older cxarena showed: the program's folder rule only, no venv
    monkeypatch.setattr(specs, "_exposed", lambda spec: (str(tmp_path),))
    monkeypatch.setattr(preflight, "interpreter_paths", lambda program: [])
    code = main(["match", f"exec:{venv}/bin/python {bot}", "L0", "--board", "4", "4", "3",
                 "--time", "1", "--games", "2", "--isolation", "namespaces"])
    err = capsys.readouterr()
    assert code == 2
    assert f"the sandbox cannot see {venv}/bin/python" in err.err
    assert "--isolation none" in err.err and "Traceback" not in err.err
    assert "games" not in err.out  # refused before the first game
