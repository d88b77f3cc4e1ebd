"""Which files of a bot's folder are its sources, and which are an operating system's litter.

A folder zipped or copied on macOS carries AppleDouble files (``._L0.java`` beside ``L0.java``:
binary resource forks with a source's name), a ``__MACOSX/`` folder of them in a zip, and
``.DS_Store`` files; Windows adds ``Thumbs.db`` and ``desktop.ini``; editors leave ``~`` backups.
None is a source: javac given ``._L0.java`` prints pages of "unmappable character" errors.
Every place that collects a bot's files (compiling, check-bot, fingerprints, similarity, league
uploads) asks `is_junk` or walks with `walk`.

Must not live here: what a language's sources are (each loader names its suffixes).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePath

__all__ = ["JUNK_DIRS", "JUNK_NAMES", "is_junk", "is_junk_part", "walk"]

#: folders that never hold a bot's sources (an archiver's, a VCS's, an IDE's, a cache)
JUNK_DIRS = frozenset({"__MACOSX", "__pycache__", ".git", ".svn", ".hg", ".idea", ".vscode",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache"})
#: file names that are never a source (Finder's and Explorer's metadata)
JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", ".localized", "Icon\r"})


def is_junk_part(name: str, *, folder: bool) -> bool:
    """True for one path component that is litter: an AppleDouble ``._x``, a known metadata
    file, a junk folder, an editor's backup ``x~``; and any hidden folder."""
    if folder:
        return name in JUNK_DIRS or name.startswith(".")
    return name.startswith("._") or name in JUNK_NAMES or name.endswith("~")


def is_junk(path: str | PurePath) -> bool:
    """True when `path` (relative to a bot's folder, or a zip member's name) is litter or lies
    in a junk folder. A zip member that is a folder ends with '/'."""
    parts = [p for p in PurePath(str(path).replace("\\", "/")).parts if p not in ("", ".", "/")]
    if not parts:
        return False
    *dirs, last = parts
    if str(path).endswith("/"):
        dirs, last = parts, ""
    if any(is_junk_part(d, folder=True) for d in dirs):
        return True
    return bool(last) and is_junk_part(last, folder=False)


def walk(folder: str | os.PathLike[str], suffixes: Iterable[str] = ()) -> list[Path]:
    """The real files under `folder` whose names end with one of `suffixes` (all files when
    none), litter and junk folders left out, in a stable order; symlinked folders are not
    followed."""
    ends = tuple(suffixes)
    out: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not is_junk_part(d, folder=True))
        out.extend(Path(root) / f for f in sorted(files)
                   if not is_junk_part(f, folder=False) and (not ends or f.endswith(ends)))
    return out
