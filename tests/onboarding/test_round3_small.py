"""The small things students met in issue 51, each fixed: `match` says "draw", not "draw by
draw"; README's command list is the CLI's (`--help`); a roster line ``o'brien``; ..."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from arena.commands.match import _result_line
from arena.records import GameRecord, Reason
from tests.helpers import cx_record


def _record(reason: Reason, winner: int | None, detail: str = "") -> GameRecord:
    return cx_record(M=4, N=4, K=4, p1="a.py", p2="b.py", names=("A", "B"),
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


# ------------------------------------------------------------------------- rosters
def test_a_roster_names_every_bad_line_with_a_usable_name(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """``o'brien`` (and every other bad line, at once) is named with the rule and a name
    that would do; the roster creates no account until it is fixed, then all of them."""
    from arena.cli import main
    from arena.league.db import League

    lg = tmp_path / "lg"
    assert main(["league", "init", str(lg)]) == 0
    capsys.readouterr()
    roster = tmp_path / "roster.csv"
    roster.write_text("name\nann\no'brien\nbob\nzoë.m\nd'arcy smith\nann\n", encoding="utf-8")
    assert main(["league", "add-users", str(lg), str(roster)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert "no account was created; fix these lines and run again" in err
    assert ("line 3: user name \"o'brien\": use letters, digits, '_', '-' or '.' "
            "(e.g. 'obrien')") in err
    assert "line 6: user name \"d'arcy smith\"" in err and "(e.g. 'darcysmith')" in err
    assert "line 7: 'ann' is also on line 2" in err
    assert "zoë" not in err  # letters of any alphabet are letters
    assert League.open(lg).users() == []
    roster.write_text("name\nann\nobrien\nbob\n", encoding="utf-8")
    assert main(["league", "add-users", str(lg), str(roster)]) == 0
    assert [u.name for u in League.open(lg).users()] == ["ann", "bob", "obrien"]


# ------------------------------------------------------------------ league serve's log
def test_league_serve_logs_each_line_to_stdout_as_it_happens(tmp_path: Path) -> None:
    """`league serve > log`: a config change the server applies is on stdout at once. The
    process ends with os._exit (no flush at exit): only what was written line by line is
    there."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("import logging, os\n"
            "from arena.commands.league import serve_log_to_stdout\n"
            "serve_log_to_stdout()\n"
            "print('league: open http://127.0.0.1:1/')\n"
            "logging.getLogger('arena.league.web').warning("
            "'league.yaml: timeout_s 1 -> 2 (applied)')\n"
            "os._exit(0)\n")
    with (tmp_path / "log").open("w") as log:  # a file: stdout is not a terminal
        subprocess.run([sys.executable, "-c", code], stdout=log, cwd=ROOT, timeout=60,
                       check=True)
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines[0] == "league: open http://127.0.0.1:1/", lines
    assert lines[1].endswith(" league.yaml: timeout_s 1 -> 2 (applied)"), lines
