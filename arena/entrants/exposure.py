"""What a bot's process must be able to read besides the system and Python: `bot_paths`.

The sandbox (`arena.referee.sandbox`) makes exactly these paths visible, read-only; the
entrant says which they are, in its `BotLaunch.expose`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from arena.entrants.modpath import find_module

__all__ = ["bot_paths", "helper_paths", "interpreter_paths"]


def bot_paths(spec: Any) -> list[str]:
    """The files a bot needs besides the system and Python: the `arena` package, the shared
    helpers of `players/` (every ``players/_NAME.py`` and ``players/_NAME/``: `helper_paths`),
    and its own files. `spec` is an `arena.entrants.specs.BotSpec`.

    A bot's own files: a bot in a folder of its own (a file.py elsewhere than the project or
    `players/`) sees that whole folder, so a data file beside it (an opening book) can be read.
    A bot that shares its folder with others (a module of `players/`, a file in the current
    directory) sees only its own entries there: ``NAME.py``, a ``NAME/`` folder, and files named
    ``NAME.*`` or ``NAME_*`` (and their bytecode caches). An `exec:` program sees the folder of
    its program (by the same rule) and every file or folder its arguments name."""
    paths = [str(Path(__file__).resolve().parents[1])]  # the arena package
    players = _players_dir()
    if players is not None:
        paths += [str(players / "__init__.py"),
                  *(str(p) for p in (players / "__pycache__").glob("__init__.*.pyc")),
                  *helper_paths(players)]
    shared = _shared_dirs(players)
    command = getattr(spec, "command", None)
    path = getattr(spec, "path", None)
    module = getattr(spec, "module", None)
    if command is not None:
        for i, arg in enumerate(command):
            for part in _path_like(arg, program=i == 0):
                paths += _own_entries(part, shared)
                if i == 0 or part.suffix == ".py":  # the program, or a script it runs
                    paths += interpreter_paths(part)
    elif path is not None:
        paths += _own_entries(Path(path), shared)
    elif module is not None:
        paths += _module_paths(module, shared)
    # a Java bot's compiled classes (cxarena's course API, its own build in the cache)
    paths += [str(Path(c).resolve()) for c in getattr(spec, "classpath", ()) if os.path.exists(c)]
    return list(dict.fromkeys(paths))


def helper_paths(players: Path) -> list[str]:
    """The helpers of `players/` that every bot there may import (docs/writing-a-bot.md): each
    module ``_NAME.py`` and package ``_NAME/`` (a name starting with one underscore), with the
    bytecode caches of the modules."""
    try:
        entries = sorted(players.iterdir())
    except OSError:
        return []
    out: list[str] = []
    for e in entries:
        if not e.name.startswith("_") or e.name.startswith("__"):
            continue
        if e.is_dir() or e.suffix == ".py":
            out.append(str(e))
            if e.suffix == ".py":
                out += [str(p) for p in (players / "__pycache__").glob(f"{e.stem}.*.pyc")]
    return out


def interpreter_paths(program: Path) -> list[str]:
    """What running `program` needs beyond its own file, as it is named (symbolic links not
    resolved, so that the path in the command line exists in the sandbox): every hop of its
    chain of symbolic links; for a program in a venv (a ``pyvenv.cfg`` one folder up), the
    venv and the Python installation its ``home`` names; for a script, its ``#!`` interpreter
    (through ``env``), by the same rules. System folders are visible anyway and left out."""
    out: list[str] = []
    seen: set[str] = set()
    todo = [Path(os.path.abspath(program))]
    while todo:
        p = todo.pop()
        if str(p) in seen or len(seen) > 32:
            continue
        seen.add(str(p))
        out.append(str(p))
        if p.is_symlink():
            target = Path(os.path.join(p.parent, os.readlink(p)))
            todo.append(Path(os.path.abspath(target)))
        cfg = p.parent.parent / "pyvenv.cfg"
        if p.parent.name == "bin" and cfg.is_file():
            out.append(str(p.parent.parent))
            home = _venv_home(cfg)
            if home is not None:
                out.append(str(home.parent if home.name == "bin" else home))
        shebang = _shebang(p)
        if shebang is not None:
            todo.append(shebang)
    # and each where it really is: a folder bound as named may hold a link to it
    out += [os.path.realpath(x) for x in out]
    return [x for x in dict.fromkeys(out) if os.path.exists(x) and not x.startswith(_SYSTEM)]


#: folders every sandbox shows already (/etc among them: binding into it is not possible)
_SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib", "/etc/")


def _venv_home(cfg: Path) -> Path | None:
    try:
        for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() == "home" and value.strip():
                return Path(value.strip())
    except OSError:
        return None
    return None


def _shebang(path: Path) -> Path | None:
    """The interpreter of a `#!` script (the program `env` is asked to find, looked up on
    PATH), or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        found = shutil.which(words[1])
        return Path(found) if found else None
    return Path(words[0])


def _players_dir() -> Path | None:
    found = find_module("players")  # the file system only: nothing is imported
    return found.package_dirs[0].resolve() if found is not None and found.is_package else None


def _shared_dirs(players: Path | None) -> set[Path]:
    """Folders whose entries belong to different bots (or hold results): a bot there sees only
    its own entries."""
    project = Path(__file__).resolve().parents[2]
    dirs = {Path.cwd().resolve(), project}
    if players is not None:
        dirs |= {players, players.parent}
    return dirs


def _own_entries(path: Path, shared: set[Path]) -> list[str]:
    """`path` (a file or folder a bot uses) and what belongs with it, by the folder rule."""
    path = path.resolve()
    if path.is_dir():
        return [] if any(path == s or s.is_relative_to(path) for s in shared) else [str(path)]
    folder = path.parent
    if folder not in shared and not any(s.is_relative_to(folder) for s in shared):
        if str(folder).startswith(("/usr/", "/bin", "/lib", "/sbin")):
            return []  # a system program: already visible
        return [str(folder)]
    stem = path.name.split(".", 1)[0]
    entries = [path]
    for sibling in folder.glob(f"{stem}*"):
        rest = sibling.name[len(stem):]
        if rest[:1] in (".", "_") or sibling.name == stem:
            entries.append(sibling)
    entries += list((folder / "__pycache__").glob(f"{stem}.*.pyc"))
    return [str(e) for e in entries]


def _module_paths(module: str, shared: set[Path]) -> list[str]:
    """A module SPEC's own entries, found in the file system (`arena.entrants.modpath`):
    resolving it never runs the module or its parent packages."""
    found = find_module(module)
    if found is None or found.origin is None:
        return []
    origin = found.origin
    if found.is_package:  # a package: its folder
        return _own_entries(origin.parent, shared) or [str(origin.parent)]
    top = module.split(".", 1)[0]
    top_found = find_module(top)
    if top != "players" and top_found is not None and top_found.is_package:
        top_dir = top_found.package_dirs[0]
        return _own_entries(top_dir, shared) or _own_entries(origin, shared)
    return _own_entries(origin, shared)


def _path_like(arg: str, program: bool) -> list[Path]:
    """The existing files and folders an exec: argument names (`a:b` class paths included)."""
    if program and os.sep not in arg:
        found = shutil.which(arg)
        return [Path(found)] if found else []
    out = []
    for part in arg.split(os.pathsep) if os.pathsep in arg else [arg]:
        if "=" in part and not os.path.exists(part):
            part = part.split("=", 1)[1]
        if part and os.path.exists(part):
            out.append(Path(part))
    return out
