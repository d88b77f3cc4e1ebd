"""`cxarena match` names a Java entrant by its class (issue 42, point 10: a course Java bot was
named by its full path on every line of the match's output), and says once which SPEC that
name stands for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.commands.match import display_names
from arena.entrants.specs import BotSpec, Kind, parse_spec

ROOT = Path(__file__).resolve().parents[2]
FOLDER = "/home/student/courses/algorithms/connectx-project/src"


def java(cls: str, folder: str = FOLDER) -> BotSpec:
    return BotSpec(text=f"java:{folder}", path=folder, cls=cls, kind=Kind.JAVA)


def test_a_java_bot_is_named_by_its_class() -> None:
    assert display_names(java("connectx.MyBot.MyBot"), parse_spec("L1")) == ("MyBot", "L1")
    assert display_names(parse_spec("L0"), java("Blocker")) == ("L0", "Blocker")


def test_two_bots_of_one_class_name_keep_their_specs() -> None:
    a, b = java("connectx.MyBot.MyBot"), java("connectx.MyBot.MyBot", "/tmp/other")
    assert display_names(a, b) == (a.text, b.text)


def test_other_bots_keep_their_spec() -> None:
    assert display_names(parse_spec("L0"), parse_spec("L1")) == ("L0", "L1")


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on this machine")
def test_the_match_output_names_the_java_bot_by_its_class() -> None:
    folder = str(ROOT / "examples" / "java")  # a full path, as a student types it
    out = subprocess.run(
        [sys.executable, "-m", "arena", "match", f"java:{folder}", "L1", "--board", "4", "4",
         "4", "--time", "1", "--games", "2"],
        cwd=str(ROOT), capture_output=True, text=True, timeout=300,
        env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("game 1: Blocker vs L1 (seed ")
    assert lines[1 if not lines[1].startswith("  ") else 2].startswith("game 2: L1 vs Blocker")
    assert any(line.startswith("Blocker vs L1: 2 games on 4x4") for line in lines)
    assert any(line.startswith("  W/D/L for Blocker: ") for line in lines)
    # the full path is said once, where the name is explained
    assert out.stdout.count(folder) == 1
    assert f"Blocker = java:{folder}" in out.stdout
