"""Code fingerprints: a short hash of the code a bot SPEC runs, stored with every game.

A rerun of a tournament compares the stored fingerprints with today's, so the games of a bot
whose code has changed are never silently mixed with new ones; a distributed worker compares
its own with the coordinator's before it plays.

What is hashed, beside the cxarena version:
- a module of the `players` package: its file (or its package folder), plus the shared engine
  package `players/_shared/` that the built-in bots use (and, for a bot in a game folder such
  as `players/othello/`, the game bots' shared search `players/_games/`);
- any other importable module: its file, or the whole folder of its top-level package;
- a Python file SPEC or a Kaggle agent: the file, and the modules beside it that it imports
  (found by reading its import statements; a package beside it counts as its whole folder),
  and theirs in turn;
- a Java bot: its sources (or its class files, or its jar), and cxarena's own Java API and
  host sources;
- an `exec:` program: the program file and every argument that names an existing file (e.g.
  the script of `exec:sh bot.sh`).

Only file contents count (not modification times), so a checkout on another machine has the
same fingerprint. Resolving a module's file never executes the bot's code.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from arena import __version__
from arena.entrants.java import code_files as java_files
from arena.entrants.modpath import find_module
from arena.entrants.specs import PLAYERS_PACKAGE, BotSpec, Kind

__all__ = ["code_fingerprint", "code_files"]

#: the shared engine package of the built-in bots, hashed with every module of `players`
SHARED_PACKAGE = f"{PLAYERS_PACKAGE}._shared"
#: the search shared by the bots in the game folders of `players` (players/GAME/BOT.py), hashed
#: with each of them (not with the Connect-X bots, whose fingerprints it leaves as they were)
GAMES_PACKAGE = f"{PLAYERS_PACKAGE}._games"
_SKIP_DIRS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def _tree(path: Path) -> list[Path]:
    """A file, or every file under a folder (caches skipped), in a stable order."""
    if path.is_file():
        return [path]
    out: list[Path] = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        out.extend(Path(root) / f for f in sorted(files) if not f.endswith((".pyc", ".pyo")))
    return out


def _module_location(name: str) -> Path | None:
    """The file of a module, or the folder of a package, without running its code (nor its
    parent packages': found in the file system, `arena.entrants.modpath`)."""
    found = find_module(name)
    return None if found is None else found.where


def _imported_names(source: Path) -> set[str]:
    """The top-level module names a Python file imports (absolute imports only)."""
    try:
        tree = ast.parse(source.read_bytes(), filename=str(source))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _with_siblings(file: Path) -> list[Path]:
    """`file` and the modules beside it that it imports, transitively (see the docstring)."""
    folder = file.parent
    out: list[Path] = []
    todo = [file]
    seen: set[Path] = set()
    while todo:
        f = todo.pop(0)
        if f in seen:
            continue
        seen.add(f)
        out.append(f)
        for name in sorted(_imported_names(f)):
            module, package = folder / f"{name}.py", folder / name
            if package.is_dir() and (package / "__init__.py").is_file():
                for g in _tree(package):
                    if g not in seen:
                        seen.add(g)
                        out.append(g)
            elif module.is_file():
                todo.append(module)
    return out


def code_files(spec: BotSpec) -> list[Path]:
    """The files whose contents make up `spec`'s fingerprint."""
    if spec.kind is Kind.JAVA:
        assert spec.path is not None
        return java_files(spec.path)
    if spec.command is not None:
        prog_files: list[Path] = []
        program = spec.command[0]
        found = program if os.sep in program else shutil.which(program)
        if found and os.path.isfile(found):
            prog_files.append(Path(found).resolve())
        prog_files.extend(Path(a).resolve() for a in spec.command[1:] if os.path.isfile(a))
        return prog_files
    if spec.path is not None:
        return _with_siblings(Path(spec.path))
    assert spec.module is not None
    names = [spec.module]
    top = spec.module.split(".")[0]
    if top == PLAYERS_PACKAGE:
        names.append(SHARED_PACKAGE)
        if spec.module.count(".") >= 2:  # a bot in a game folder
            names.append(GAMES_PACKAGE)
    elif "." in spec.module:  # a module inside some package: the whole top-level package
        names = [top]
    files: list[Path] = []
    for name in names:
        loc = _module_location(name)
        if loc is not None:
            files.extend(_tree(loc))
    return files


def _digest(files: Iterable[Path]) -> str:
    h = hashlib.sha256(f"cxarena {__version__}\n".encode())
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            data = b"<unreadable>"
        h.update(f"{f.name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:16]


def code_fingerprint(spec: BotSpec) -> str:
    """A 16-hex-digit hash of the code `spec` runs and the cxarena version."""
    return _digest(code_files(spec))
