"""The registry of games: the shipped games without reading any package's metadata (what each
bot's process does to find its game), a plug-in's game through the entry-point group."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from arena import games
from arena.games.mnk import MNK

ROOT = Path(__file__).resolve().parents[2]


class Gomoku(MNK):
    """A plug-in's game (another package's, here a test's)."""

    name = "gomoku_test"


def _entry(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name, value, games.ENTRY_POINT_GROUP)


def test_a_bots_process_finds_a_shipped_game_without_the_packages_metadata() -> None:
    code = ("import sys\n"
            "from arena.wire import protocol\n"
            "assert protocol.dialect_game(1).name == 'connectx'\n"
            "from arena.games import make_game\n"
            "assert make_game('othello', {'size': 6}).name == 'othello'\n"
            "print(sorted(m for m in sys.modules if m.startswith('importlib.metadata')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_shipped_games_come_first_and_a_plug_ins_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found = [_entry("gomoku_test", f"{__name__}:Gomoku"),
             # a plug-in cannot take a shipped game's name: never even loaded
             _entry("connectx", "no_such_module_anywhere:ConnectX")]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: found if group == games.ENTRY_POINT_GROUP else [])
    registry = games._Registry()
    names = [cls.name for cls in registry.classes()]
    assert names == [*games.SHIPPED, "gomoku_test"]
    assert registry["gomoku_test"] is Gomoku
    assert registry["connectx"].__module__.startswith("arena.games.connectx")
    assert games.game_names() == sorted([*games.SHIPPED, "gomoku_test"])


def test_a_plug_in_that_is_not_a_game_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [_entry("bad", "pathlib:Path")])
    with pytest.raises(TypeError, match="bad = entry point pathlib:Path of cxarena.games is "
                                        "not a Game class"):
        list(games._Registry().classes())
