"""Finding the bots in the `players` package: what `cxarena players` lists.

A bot is a module (or subpackage) of `players` whose name does not start with an underscore;
a subpackage named after another game (`players/othello/`, `players/morris/`, see
`arena.games.GAMES`) holds that game's bots and is not listed here. A bot's short name is its
module name, which is also its SPEC. Bots are found without importing
`players.*` into the caller's process: each candidate is loaded in a probe subprocess
(`arena.entrants.probe`, the same loading the host and the checks before a run use), so that a
bot that fails to import, calls ``sys.exit``, hangs or crashes the interpreter at import is
listed with its error and never hides the others.

`inspect_bot` does the in-process work for one bot; `discover` drives the probe processes and
returns one `BotInfo` per candidate, sorted by name.
"""

from __future__ import annotations

import ast
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from arena import defaults
from arena.entrants.modpath import find_module
from arena.entrants.probe import Probe, first_doc_line, inspect_target, probe_in_turn
from arena.entrants.specs import PLAYERS_PACKAGE
from arena.errors import UsageError
from arena.games import GAMES
from arena.wire.protocol import PROTOCOL_V2, version_of

__all__ = ["BotInfo", "GameBotFile", "candidate_names", "discover", "first_doc_line",
           "game_bot_files", "inspect_bot"]


@dataclass(frozen=True)
class BotInfo:
    """What discovery learnt about one candidate bot module."""

    name: str  # short name = SPEC (module name inside `players`)
    location: str = ""  # file or directory of the module ("" if unknown)
    player_name: str | None = None  # what playerName() returned (None if not obtained)
    doc: str = ""  # first line of the module's (else the class's) docstring
    error: str | None = None  # one line: why the module is not a usable bot (None = fine)
    name_error: str | None = None  # one line: why playerName() failed (None = fine)

    @property
    def ok(self) -> bool:
        return self.error is None and self.name_error is None


def _players_paths() -> list[str]:
    """The directories of the `players` package as imported from the current sys.path."""
    pkg = find_module(PLAYERS_PACKAGE)  # its folders, found without running its __init__
    if pkg is None:
        raise UsageError(f"cannot find the {PLAYERS_PACKAGE!r} package on the module path")
    paths = [str(d) for d in pkg.package_dirs]
    if not paths:
        raise UsageError(f"{PLAYERS_PACKAGE!r} is a module, not a package of bots")
    return paths


@dataclass(frozen=True)
class GameBotFile:
    """A module of another game's bot package (`players/othello/greedy.py`), read, not run."""

    game: str
    spec: str  # players.othello.greedy
    doc: str  # the first line of its docstring
    location: str


def game_bot_files() -> list[GameBotFile]:
    """The modules of `players/<game>/` for every other game, sorted; their docstrings are
    read from the files with `ast` (nothing is imported or run)."""
    out: list[GameBotFile] = []
    for base in _players_paths():
        for game in sorted(GAMES):
            folder = Path(base) / game
            # a game of its own dialect (Connect-X) has its bots in players/ itself
            if version_of(GAMES[game]) != PROTOCOL_V2 or not (folder / "__init__.py").is_file():
                continue
            for path in sorted(folder.glob("*.py")):
                if path.name.startswith("_"):
                    continue
                try:
                    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
                except (OSError, SyntaxError, ValueError) as e:
                    doc = f"cannot read: {type(e).__name__}"
                out.append(GameBotFile(game, f"{PLAYERS_PACKAGE}.{game}.{path.stem}",
                                       first_doc_line(doc), str(path)))
    return out


def candidate_names() -> list[tuple[str, str]]:
    """(short name, location) of every bot module of `players`, sorted, without importing any.

    The first directory of ``players.__path__`` that holds a name wins, as for imports.
    """
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(_players_paths()):
        if info.name.startswith("_") or info.name in found or (info.ispkg and
                                                               info.name in GAMES):
            continue
        base = Path(getattr(info.module_finder, "path", ""))
        loc = base / info.name if info.ispkg else _module_file(base, info.name)
        found[info.name] = str(loc)
    return sorted(found.items(), key=lambda kv: kv[0].lower())


def _module_file(base: Path, name: str) -> Path:
    for suffix in (".py", ".pyc"):
        p = base / (name + suffix)
        if p.exists():
            return p
    matches = sorted(base.glob(name + ".*"))  # extension modules (.so, .pyd)
    return matches[0] if matches else base / name


def _info(name: str, location: str, probe: Probe) -> BotInfo:
    return BotInfo(name, location, player_name=probe.player_name, doc=probe.doc,
                   error=probe.error, name_error=probe.name_error)


def inspect_bot(name: str, location: str = "") -> BotInfo:
    """Load ``players.<name>`` in this process, find its CXPlayer class, ask its name.

    Never raises for a fault of the bot: import errors, a module without (or with several)
    CXPlayer subclasses, a constructor or playerName() that raises or returns a non-string
    all end up in the returned `BotInfo`.
    """
    return _info(name, location, inspect_target(f"{PLAYERS_PACKAGE}.{name}"))


def discover(import_timeout_s: float = 10.0,
             startup_timeout_s: float = defaults.STARTUP_TIMEOUT_S) -> list[BotInfo]:
    """Every bot of the `players` package with its playerName() and docstring, or its error.

    Each bot gets `import_timeout_s` seconds to import and answer playerName(); a bot that
    takes longer, or kills the probe process, is reported with that error and the remaining
    bots are probed by a fresh process.
    """
    candidates = candidate_names()
    targets = {f"{PLAYERS_PACKAGE}.{name}": (name, location) for name, location in candidates}
    try:
        probes = probe_in_turn(list(targets), import_timeout_s, startup_timeout_s)
    except RuntimeError as e:
        raise UsageError(str(e)) from None
    infos = [_info(*targets[t], probe) for t, probe in probes.items()]
    return sorted(infos, key=lambda b: b.name.lower())
