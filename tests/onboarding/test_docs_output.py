"""The docs show what the commands print and what the code stores (issue 42, point 10: drift).

- writing-a-bot.md §8 ("Your course Java bot"): its "Real output" block is run, command by
  command, and compared line by line with what they print today (numbers, which vary from run
  to run and machine to machine, and the machine's containment line aside);
- play.md: how a game the person resigns, and one they leave, are stored is what `HumanGame`
  stores."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.games import make_game
from arena.play.session import Entrant, GameSetup, HumanGame

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def section(text: str, heading: str) -> str:
    """The text of the section whose heading starts with `heading`, up to the next one."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def commands_and_output(block: str) -> list[tuple[str, list[str]]]:
    """The ``$ command`` lines of a fenced block, each with the lines it printed."""
    found: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
    return found


def normal(lines: list[str]) -> list[str]:
    """Lines as compared: numbers as '#', the temporary log folder as '<dir>', the machine's
    containment line and blank lines left out."""
    out = []
    for line in lines:
        if not line.strip() or line.startswith("containment:"):
            continue
        line = re.sub(r"/tmp/\S+", "<dir>", line)
        out.append(re.sub(r"\d+(?:\.\d+)?", "#", line.rstrip()))
    return out


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on this machine")
def test_the_java_sections_real_output_is_what_the_commands_print() -> None:
    text = section((DOCS / "writing-a-bot.md").read_text(encoding="utf-8"), "8.")
    block = text.split("Real output", 1)[1].split("```", 2)[1]
    runs = commands_and_output(block)
    assert [c.split()[:2] for c, _ in runs] == [["cxarena", "check-bot"], ["cxarena", "match"]]
    for command, shown in runs:
        argv = [sys.executable, "-m", "arena", *command.split()[1:]]
        done = subprocess.run(argv, cwd=str(ROOT), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=600,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert done.returncode == 0, done.stdout
        assert normal(shown) == normal(done.stdout.splitlines()), command


def stored(tmp_path: Path, why: str, how: str) -> tuple[str, int | None]:
    """(reason, offender) of a game the person ends at their first move, by `how`."""
    game = HumanGame(Entrant("L0", parse_spec("L0")),
                     make_game("connectx", {"rows": 4, "cols": 4, "k": 4}), GameSetup(),
                     tmp_path, seed=5)
    game.start()
    if how == "resign":
        game.resign(why)
    else:
        game.close(why)
    finished = game.wait(60)
    assert finished is not None and finished.record is not None
    return finished.record.reason.value, finished.record.offender


def test_play_md_says_how_resigned_and_left_games_are_stored(tmp_path: Path) -> None:
    text = " ".join((DOCS / "play.md").read_text(encoding="utf-8").split())
    resigned, offender = stored(tmp_path / "a", "resigned", "resign")
    assert offender == 1  # the person's fault: they gave up
    left, nobody = stored(tmp_path / "b", "left the game (page closed)", "close")
    assert nobody is None
    assert (resigned, left) == ("crash", "abandoned")
    said = re.search(r"A resignation \(`q`, `Resign`\) is stored .*?reason `(\w+)`.*?"
                     r"A game the person leaves \(a closed tab, Ctrl-C, the end of the input\) "
                     r"is stored .*?reason `(\w+)`", text)
    assert said is not None, "play.md no longer says how resigned and left games are stored"
    assert said.groups() == (resigned, left)
