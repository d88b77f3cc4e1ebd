"""Where a module's files are, found by looking at the file system only: `find_module`.

`importlib.util.find_spec("a.b")` imports the package ``a`` (runs ``a/__init__.py``) to learn
its ``__path__``; for a bot named by module (``students.alice.bot``) that would run the
student's code in the harness, outside the sandbox. `find_module` instead walks the search
path the way the import system's path finder does, without executing or importing anything:

- each entry of the search path (``sys.path``; ``""`` is the working directory) in order;
  in each, a package folder ``NAME/`` holding an ``__init__`` file wins over a module file
  ``NAME.py`` (or a compiled ``NAME.*.so`` or a ``NAME.pyc``), as in
  `importlib.machinery.FileFinder`;
- a folder ``NAME/`` without ``__init__`` is a portion of a namespace package, used only when
  no entry holds a regular package or module of that name (PEP 420);
- a submodule ``a.b`` is searched for in the folders of package ``a`` (a regular package:
  its own folder; a namespace package: all its portions).

What it cannot see, by design: a package's ``__init__`` that changes its own ``__path__`` at
import time, import hooks on `sys.meta_path`, zip files on the path, built-in and frozen
modules. None of these name a bot file a student hands in; the bot's own process (in the
sandbox) imports it the ordinary way.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ModuleLocation", "find_module", "search_path"]

#: the suffixes of a module's file, in the order the path finder tries them
_SUFFIXES = (tuple(importlib.machinery.EXTENSION_SUFFIXES)
             + tuple(importlib.machinery.SOURCE_SUFFIXES)
             + tuple(importlib.machinery.BYTECODE_SUFFIXES))


@dataclass(frozen=True)
class ModuleLocation:
    """Where module `name` lives. `origin`: its file (a package's ``__init__`` file), None for a
    namespace package; `package_dirs`: a package's folders (empty for a plain module)."""

    name: str
    origin: Path | None
    package_dirs: tuple[Path, ...] = ()

    @property
    def is_package(self) -> bool:
        return bool(self.package_dirs)

    @property
    def where(self) -> Path:
        """A package's (first) folder, or a module's file."""
        if self.package_dirs:
            return self.package_dirs[0]
        assert self.origin is not None
        return self.origin


def search_path(entries: Iterable[str] | None = None) -> list[Path]:
    """The folders of the module search path (``sys.path`` unless given; ``""`` is the working
    directory), each once, existing folders only."""
    out: list[Path] = []
    cwd = os.getcwd()
    for entry in sys.path if entries is None else entries:
        if not isinstance(entry, str):
            continue
        p = Path(entry or cwd)
        if p.is_dir() and p not in out:
            out.append(p)
    return out


def find_module(name: str, path: Sequence[str] | None = None) -> ModuleLocation | None:
    """The location of module `name` (dotted) on the search path `path` (default ``sys.path``),
    or None; found without importing anything (see the module docstring)."""
    parts = name.split(".")
    if not name or not all(p.isidentifier() for p in parts):
        return None
    dirs = search_path(path)
    found: ModuleLocation | None = None
    for i, part in enumerate(parts):
        found = _find_in(".".join(parts[:i + 1]), part, dirs)
        if found is None:
            return None
        if i < len(parts) - 1:
            if not found.is_package:
                return None
            dirs = list(found.package_dirs)
    return found


def _find_in(full: str, part: str, dirs: Sequence[Path]) -> ModuleLocation | None:
    portions: list[Path] = []
    for d in dirs:
        package = d / part
        is_dir = package.is_dir()
        if is_dir:
            for suffix in _SUFFIXES:
                init = package / f"__init__{suffix}"
                if init.is_file():
                    return ModuleLocation(full, init, (package,))
        for suffix in _SUFFIXES:
            module = d / f"{part}{suffix}"
            if module.is_file():
                return ModuleLocation(full, module)
        if is_dir:
            portions.append(package)
    if portions:
        return ModuleLocation(full, None, tuple(portions))
    return None
