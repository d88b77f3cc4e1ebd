"""The small things students met in issue 51, each fixed: `match` says "draw", not "draw by
draw"; README's command list is the CLI's (`--help`); a roster line ``o'brien``; ..."""

from __future__ import annotations

import argparse
import re

from arena.commands.match import _result_line
from arena.records import GameRecord, Reason


def _record(reason: Reason, winner: int | None, detail: str = "") -> GameRecord:
    return GameRecord(M=4, N=4, K=4, p1="a.py", p2="b.py", names=("A", "B"),
                      moves=(0, 1, 0, 1), times_ms=(1.0, 1.0, 1.0, 1.0), winner=winner,
                      reason=reason, detail=detail, seed=7, init_ms=(1.0, 1.0))


def test_match_says_draw_once() -> None:
    line = _result_line(1, _record(Reason.DRAW, None))
    assert line == "game 1: a.py vs b.py (seed 7): draw after 4 moves", line
    won = _result_line(2, _record(Reason.CONNECT, 1))
    assert won == "game 2: a.py vs b.py (seed 7): a.py wins by connect after 4 moves", won


# ------------------------------------------------------------ README's command list
def _readme_commands() -> dict[str, str]:
    """README's "## Commands" block: command -> its text (continuation lines joined)."""
    from tests.conftest import ROOT

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("\n## Commands\n", 1)[1].strip("\n").split("\n\n")[0]
    out: dict[str, str] = {}
    last = ""
    for line in block.splitlines():
        words = line.split()
        if words[:1] == ["cxarena"]:
            last = words[1]
            assert last not in out, f"README lists {last} twice"
            out[last] = line
        else:
            out[last] += " " + line.strip()
    return out


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_readme_lists_the_commands_of_help_with_their_flags() -> None:
    from arena.cli import build_parser

    listed = _readme_commands()
    commands = _subparsers(build_parser())
    assert sorted(listed) == sorted(commands)
    for name, line in listed.items():
        known = {s for a in commands[name]._actions for s in a.option_strings}
        flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", line))
        assert flags <= known, f"README's {name} line names flags it lacks: {flags - known}"
    subcommands = re.search(r"cxarena league ([a-z|-]+) DIR", listed["league"])
    assert subcommands, listed["league"]
    assert sorted(subcommands[1].split("|")) == sorted(_subparsers(commands["league"]))
