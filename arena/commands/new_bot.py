"""`cxarena new-bot NAME`: create players/NAME.py (a working bot) and tests/test_NAME.py.

The files are made from arena/templates under the current directory; an existing file is
never overwritten and a NAME that is not a usable module name (or is taken) is refused. Outside
a project checkout (no players/ here: cxarena installed with pip), NAME.py and test_NAME.py are
written into the current folder, and the bot's SPEC is NAME.py.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from arena.commands.match import known_games
from arena.errors import UsageError
from arena.onboarding.scaffold import ScaffoldError, create_bot

HELP = "create players/NAME.py (a working bot to edit) and tests/test_NAME.py"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME",
                        help="module name of the bot (letters, digits, underscores); it is "
                             "also the bot's SPEC")
    parser.add_argument("--game", metavar="NAME", default=None,
                        help=f"a bot for another registered game than the course's Connect-X "
                             f"(registered: {known_games()}); default: Connect-X")


def tool_commands(cwd: Path, venv: Path | None, path: str) -> tuple[str, str, str]:
    """How a new shell in `cwd` (whose PATH is `path`) reaches this cxarena and the Python it
    runs in: (the cxarena command, the python command, a line that activates the venv or "").
    From a venv (`venv`) not on PATH, both by their path in the venv (relative to `cwd` when
    inside it: ``.venv/bin/cxarena``), since a new shell has not activated it; outside a venv,
    the names on PATH."""
    if venv is None:
        cx = "cxarena" if shutil.which("cxarena", path=path) else f"{sys.executable} -m arena"
        name = Path(sys.executable).name
        found = shutil.which(name, path=path)
        py = name if found and Path(found).resolve() == Path(sys.executable).resolve() else (
            sys.executable)
        return cx, py, ""
    bin_dir = venv / "bin"
    if str(bin_dir) in path.split(os.pathsep):  # activated
        return "cxarena", "python", ""
    where = str(venv.relative_to(cwd)) if venv.is_relative_to(cwd) else str(venv)
    cx = f"{where}/bin/cxarena" if (bin_dir / "cxarena").exists() else (
        f"{where}/bin/python -m arena")
    return cx, f"{where}/bin/python", f"source {where}/bin/activate"


def _venv() -> Path | None:
    """The venv this cxarena runs in, or None."""
    return Path(sys.prefix) if sys.prefix != sys.base_prefix else None


def run(args: argparse.Namespace) -> int:
    root = Path.cwd()
    try:
        made = create_bot(args.name, root, args.game)
    except ScaffoldError as e:
        raise UsageError(str(e)) from None
    bot = made.bot_path.relative_to(root)
    test = made.test_path.relative_to(root)
    n = made.spec or made.name
    cx, py, activate = tool_commands(root, _venv(), os.environ.get("PATH", ""))
    venv_line = (f"\n  (commands as a new shell finds them; or run `{activate}` once per shell, "
                 f"then plain `cxarena` and `python`)" if activate else "")
    print(f"created {bot} (class {made.cls}) and {test} in {root}")
    if made.bot_path.parent == root:
        print("(no players/ folder here, so not a cxarena checkout: the bot is a file of this "
              f"folder, its SPEC is {n})")
    if args.game is not None:
        g = args.game
        print(f"""
Next steps:
  1. Edit {bot}: select_move() is where your bot thinks (the contract:
     arena/games/player.py; the rules: arena/games/{g}.py).
  2. Check it under the real referee:   {cx} check-bot {n} --game {g}
  3. Run its tests:                     {py} -m pytest {test}
  4. Play it against a built-in bot:    {cx} match {n} players.{g}.random_bot --game {g} --time 1
  5. Enter it in a tournament: add this line under `players:` in configs/{g}.yaml:
       - {{spec: {n}, name: {made.name}}}{venv_line}""")
        return 0
    print(f"""
Next steps:
  1. Edit {bot}: selectColumn() is where your bot thinks (guide: docs/writing-a-bot.md).
  2. Check it under the real referee:   {cx} check-bot {n}
  3. Run its tests:                     {py} -m pytest {test}
  4. Play it against a reference bot:   {cx} match {n} L1 --board 6 7 4 --time 1
  5. Enter it in a tournament: add this line under `players:` in the config
     (e.g. configs/tournament.yaml):
       - {n}{venv_line}""")
    return 0
