"""Creating a new bot from the templates in arena/templates (`cxarena new-bot NAME`).

`check_name` says why a NAME cannot be a new bot (or returns None); `create_bot` writes
``players/NAME.py`` and ``tests/test_NAME.py`` under a project directory (one that has a
``players/`` package), never overwriting a file. Outside a project (cxarena installed with
pip, run from any folder) it writes ``NAME.py`` and ``test_NAME.py`` into that folder: the
bot's SPEC is then its file, ``NAME.py``.
"""

from __future__ import annotations

import builtins
import importlib.util
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.onboarding.discovery import candidate_names

__all__ = ["NewBot", "ScaffoldError", "check_name", "class_name", "create_bot", "render"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MAX_NAME_LEN = 40
#: names the bot template itself uses; a class name must not clash with them
_TEMPLATE_NAMES = frozenset({"CXBoard", "CXGameState", "CXPlayer", "Deadline", "annotations"})


class ScaffoldError(Exception):
    """A NAME or project directory that new-bot cannot use (one clear line)."""


@dataclass(frozen=True)
class NewBot:
    """What `create_bot` wrote."""

    name: str
    cls: str
    bot_path: Path
    test_path: Path
    #: the bot's SPEC: NAME in a project's players/, the file NAME.py outside a project
    spec: str = ""


def class_name(name: str) -> str:
    """The bot's class name: the module name in CamelCase (``my_bot`` -> ``MyBot``)."""
    cls = "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    if cls in _TEMPLATE_NAMES or keyword.iskeyword(cls) or hasattr(builtins, cls):
        cls += "Bot"
    return cls


def check_name(name: str, root: Path) -> str | None:
    """Why `name` cannot be the module name of a new bot in `root`/players, or None if it can.

    Rejected: not an ASCII identifier starting with a letter (a leading underscore marks a
    helper module), longer than MAX_NAME_LEN, a Python keyword or built-in name, the name of
    a standard-library or other importable top-level module, and a name already taken in
    players/ (also when it differs only in case, which some file systems would confuse).
    """
    if not _NAME.match(name):
        why = ("a leading underscore marks a helper module, not a bot" if name.startswith("_")
               else "use letters, digits and underscores, starting with a letter")
        return f"{name!r} is not a valid bot name: {why}"
    if len(name) > MAX_NAME_LEN:
        return f"{name!r} is too long for a bot name (at most {MAX_NAME_LEN} characters)"
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return f"{name!r} is a Python keyword; choose another name"
    if hasattr(builtins, name) or name in sys.builtin_module_names:
        return f"{name!r} is a Python built-in name; choose another name"
    if name in getattr(sys, "stdlib_module_names", ()) or _importable(name):
        return (f"{name!r} is the name of an importable module; choose another name so "
                f"that the bot never shadows it")
    taken = _taken_names(root)
    clash = next((t for t in taken if t.lower() == name.lower()), None)
    if clash is not None:
        same = "is" if clash == name else f"differs only in case from {clash!r}, which is"
        return f"{name!r} {same} already a bot or module in players/; choose another name"
    return None


def _importable(name: str) -> bool:
    """Is `name` an importable top-level module (a plain directory does not count)?"""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin is not None


def _taken_names(root: Path) -> set[str]:
    """Module names in root/players and in the importable `players` package."""
    names: set[str] = set()
    local = root / "players"
    if local.is_dir():
        names.update(p.name.split(".")[0] for p in local.iterdir()
                     if p.suffix in (".py", ".pyc", ".so", ".pyd") or (p / "__init__.py").exists())
    try:
        names.update(n for n, _ in candidate_names())
    except Exception:  # no importable players package: only the local files count
        pass
    return names


def game_bases() -> dict[str, str]:
    """Game -> ``module:Class`` of its bots' base class (`Game.BOT_BASE`), for `new-bot --game`:
    every installed game that names one."""
    from arena.games import GAMES  # the game plug-ins, only for `new-bot --game`

    return {name: cls.BOT_BASE for name, cls in sorted(GAMES.items()) if cls.BOT_BASE}


def render(template: str, name: str, cls: str, game: str = "", in_project: bool = True) -> str:
    """A template with {name}, {cls}, {game}, {base}, and the bot's {module}, {spec} and {path}
    (in a project's players/, else a file of the current folder) filled in (other braces are
    left alone)."""
    text = (TEMPLATES / template).read_text(encoding="utf-8")
    base_module, _, base = game_bases().get(game, "").partition(":") if game else ("", "", "")
    text = (text.replace("{game}", game).replace("{base_module}", base_module)
            .replace("{base}", base))
    if in_project:
        module, spec, path = f"players.{name}", name, f"players/{name}.py"
    else:
        module, spec, path = name, f"{name}.py", f"{name}.py"
    text = text.replace("{module}", module).replace("{spec}", spec).replace("{path}", path)
    return text.replace("{name}", name).replace("{cls}", cls)


def create_bot(name: str, root: Path, game: str | None = None) -> NewBot:
    """Write players/NAME.py and tests/test_NAME.py under `root`. Raises ScaffoldError.

    `game`: a bot for another game than Connect-X (a key of `game_bases()`).

    Without a players/ directory in `root` (not a project checkout: cxarena installed as a
    package), NAME.py and test_NAME.py are written into `root` itself.

    Nothing is written unless both files can be created; an existing file is never touched.
    """
    players = root / "players"
    in_project = players.is_dir()
    tests = root / "tests" if in_project else root
    why = check_name(name, root)
    if why is not None:
        raise ScaffoldError(why)
    bot_path = (players if in_project else root) / f"{name}.py"
    test_path = tests / f"test_{name}.py"
    for p in (bot_path, test_path):
        if p.exists():
            raise ScaffoldError(f"{p} already exists; not overwriting it")
    if tests.exists() and not tests.is_dir():
        raise ScaffoldError(f"{tests} exists and is not a directory")
    if game is not None and game not in game_bases():
        raise ScaffoldError(f"--game {game}: new-bot knows {', '.join(game_bases())} "
                            f"(a Connect-X bot: leave out --game)")
    cls = class_name(name)
    if game is None:
        bot_text = render("bot.py.tmpl", name, cls, in_project=in_project)
        test_text = render("test_bot.py.tmpl", name, cls, in_project=in_project)
    else:
        bot_text = render("game_bot.py.tmpl", name, cls, game, in_project)
        test_text = render("test_game_bot.py.tmpl", name, cls, game, in_project)
    tests.mkdir(exist_ok=True)
    _write_new(bot_path, bot_text)
    try:
        _write_new(test_path, test_text)
    except ScaffoldError:
        bot_path.unlink()
        raise
    return NewBot(name, cls, bot_path, test_path, name if in_project else f"{name}.py")


def _write_new(path: Path, text: str) -> None:
    try:
        with open(path, "x", encoding="utf-8") as f:  # "x": fail if it exists (no race)
            f.write(text)
    except FileExistsError:
        raise ScaffoldError(f"{path} already exists; not overwriting it") from None
    except OSError as e:
        raise ScaffoldError(f"cannot write {path}: {e.strerror or e}") from None
