"""new-bot's next steps work as printed in a new shell, where the venv is not activated: run
from a venv, they name its `cxarena` and `python` by path (`.venv/bin/cxarena`,
`.venv/bin/python -m pytest`), and say how to activate it; the guide and the README say the
same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.commands.new_bot import tool_commands
from tests.conftest import ROOT
from tests.helpers import project_copy

in_venv = pytest.mark.skipif(sys.prefix == sys.base_prefix, reason="tests not run from a venv")


def test_in_a_venv_the_commands_name_the_venv(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "cxarena").write_text("")
    cx, py, activate = tool_commands(tmp_path, venv, path="/usr/bin:/bin")
    assert (cx, py) == (".venv/bin/cxarena", ".venv/bin/python")
    assert activate == "source .venv/bin/activate"
    # activated (its bin/ first on PATH): the plain names work
    cx, py, activate = tool_commands(tmp_path, venv, path=f"{venv / 'bin'}:/usr/bin")
    assert (cx, py, activate) == ("cxarena", "python", "")
    # a venv elsewhere: by its absolute path
    cx, py, _ = tool_commands(tmp_path / "sub", venv, path="/usr/bin")
    assert cx == f"{venv}/bin/cxarena" and py == f"{venv}/bin/python"


@in_venv
def test_the_printed_steps_run_in_a_new_shell(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    bare = dict(os.environ, PATH="/usr/bin:/bin", PYTHONPATH=str(root))  # no venv on PATH
    r = subprocess.run([sys.executable, "-m", "arena", "new-bot", "fresh"], cwd=root, env=bare,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    check = next(ln for ln in r.stdout.splitlines() if "Check it under the real referee" in ln)
    tests = next(ln for ln in r.stdout.splitlines() if "Run its tests" in ln)
    cx = check.split(":", 1)[1].split()[0]
    py = tests.split(":", 1)[1].split()[0]
    assert cx.endswith("bin/cxarena") and "-m pytest tests/test_fresh.py" in tests
    assert "bin/activate" in r.stdout
    for argv in ([cx, "--help"], [py, "-c", "import arena, pytest"]):
        ran = subprocess.run(argv, cwd=root, env=bare, capture_output=True, text=True,
                             timeout=120)
        assert ran.returncode == 0, (argv, ran.stderr)


def test_the_guide_and_the_readme_say_how_to_reach_the_venv() -> None:
    guide = (ROOT / "docs" / "writing-a-bot.md").read_text()
    head = guide.split("## 1.", 1)[0]
    assert ".venv/bin/activate" in head and ".venv/bin/python -m pytest" in head
    readme = (ROOT / "README.md").read_text().split("## ", 2)[1]  # the set-up section
    assert "source .venv/bin/activate" in readme and "command not found" in readme
