"""Helper modules as writing-a-bot.md promises them: a module or package of `players/` whose name
starts with `_` holds code shared by several bots, and a sandboxed bot imports it
(`arena.entrants.exposure.bot_paths` shows every `players/_*` entry, read-only). An import that
still fails in the sandbox is reported with what the sandbox shows the bot."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants import exposure
from arena.entrants.specs import parse_spec
from arena.referee.sandbox import resolve
from tests.helpers import cxarena, project_copy

needs_isolation = pytest.mark.skipif(not resolve("auto").isolated,
                                     reason="bubblewrap sandbox not available here")

HELPER = """\
def first_free(B):
    return B.getAvailableColumns()[0]
"""

BOT = """\
from arena.player import CXPlayer
from players.{helper} import first_free


class {cls}(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return first_free(B)

    def playerName(self):
        return "{cls}"
"""


def test_bot_paths_show_every_helper_of_players(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    players = tmp_path / "players"
    (players / "_pkg").mkdir(parents=True)
    (players / "__init__.py").write_text("")
    (players / "_pkg" / "__init__.py").write_text("")
    (players / "_common_util.py").write_text(HELPER)
    (players / "otherbot.py").write_text("")
    monkeypatch.setattr(exposure, "_players_dir", lambda: players)
    shown = exposure.bot_paths(parse_spec("L0"))
    assert str(players / "_common_util.py") in shown
    assert str(players / "_pkg") in shown
    assert str(players / "otherbot.py") not in shown  # another bot stays hidden


@needs_isolation
def test_a_bot_importing_a_helper_module_passes_check_bot_sandboxed(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    (root / "players" / "_common_util.py").write_text(HELPER)
    (root / "players" / "_mytools").mkdir()
    (root / "players" / "_mytools" / "__init__.py").write_text(HELPER)
    (root / "players" / "helped.py").write_text(BOT.format(helper="_common_util", cls="Helped"))
    (root / "players" / "helped2.py").write_text(BOT.format(helper="_mytools", cls="Helped2"))
    for bot in ("helped", "helped2"):
        r = cxarena(root, "check-bot", bot, "--board", "4", "4", "4", "--time", "1",
                    "--isolation", "namespaces", timeout_s=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "PASSED" in r.stdout


@needs_isolation
def test_an_import_failing_in_the_sandbox_says_what_the_sandbox_shows(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    outside = tmp_path / "outside"  # importable outside the sandbox (PYTHONPATH), not inside
    outside.mkdir()
    (outside / "stray_helper.py").write_text(HELPER)
    (root / "players" / "stray.py").write_text(
        BOT.format(helper="_x", cls="Stray").replace("players._x", "stray_helper"))
    env = dict(os.environ, PYTHONPATH=f"{root}{os.pathsep}{outside}")
    r = subprocess.run([sys.executable, "-m", "arena", "check-bot", "stray", "--board", "4",
                        "4", "4", "--time", "1", "--isolation", "namespaces"], cwd=root,
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert "No module named 'stray_helper'" in out
    assert "the sandbox shows the bot only" in out
    assert "players/_*" in out  # where a helper belongs
    assert "--isolation none" in out
