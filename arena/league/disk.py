"""What a league takes of the disk: `league_disk_use` (the admin page, `cxarena doctor`).

The league's folder holds its database (league.sqlite and its WAL: accounts, every version's
uploaded files, games and their records), the versions' unpacked folders (work/, one per version
in use, `arena.league.checks.materialise` and `prune_trees`), the final's results, the workers'
logs and the bots' logs. Each student's share is counted as the disk quota counts it
(`League.disk_bytes`: every upload, and the unpacked folders of their versions in use).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from arena.league.db import DB_NAME, League

__all__ = ["TOP_STUDENTS", "disk_text", "league_disk_use", "tree_size"]

#: how many students `league_disk_use` lists, the largest first
TOP_STUDENTS = 10


def tree_size(path: Path) -> int:
    """The bytes of the files under `path` (a file: its own size); links are not followed."""
    try:
        st = path.lstat()
    except OSError:
        return 0
    if not path.is_dir() or path.is_symlink():
        return st.st_size
    total = 0
    for folder, _dirs, files in os.walk(path, followlinks=False):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total


def _area(entry: Path) -> str:
    name = entry.name
    if name.startswith(DB_NAME):
        return "database"
    if name.endswith(".log"):
        return "logs"
    if entry.is_dir() and not entry.is_symlink():
        return name
    return "other files"


def league_disk_use(league: League, top: int = TOP_STUDENTS) -> dict[str, Any]:
    """The league's disk use in bytes: ``total``; ``areas``, bytes per part of its folder
    ("database": league.sqlite with its WAL, which holds every upload; "work": the unpacked
    versions; "results", "logs", any other folder by its name, "other files"), largest first;
    ``students``, the `top` students by their share as the quota counts it (each a dict of
    user, uploads, unpacked, total), largest first; ``quota_bytes``, the quota per student."""
    areas: dict[str, int] = {}
    for entry in sorted(league.dir.iterdir()):
        area = _area(entry)
        areas[area] = areas.get(area, 0) + tree_size(entry)
    kept = league.kept_versions()
    students: list[dict[str, Any]] = []
    for user in league.users():
        use = league.disk_bytes(user.name, kept)
        if any(use.values()):
            students.append({"user": user.name, **use, "total": sum(use.values())})
    students.sort(key=lambda s: (-s["total"], s["user"]))
    return {"total": sum(areas.values()),
            "areas": dict(sorted(areas.items(), key=lambda kv: (-kv[1], kv[0]))),
            "students": students[:top],
            "quota_bytes": league.config.disk_quota_bytes}


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def disk_text(use: dict[str, Any], students: int = 3) -> str:
    """`league_disk_use` in one line: "12.3 MiB: database 1.2 MiB, work 10.0 MiB, ...; most:
    alice 5.0 MiB, ...; quota 100.0 MiB per student"."""
    areas = ", ".join(f"{name} {_mib(size)}" for name, size in use["areas"].items())
    most = ", ".join(f"{s['user']} {_mib(s['total'])}" for s in use["students"][:students])
    return (f"{_mib(use['total'])}: {areas or 'nothing'}"
            + (f"; most: {most}" if most else "")
            + f"; quota {_mib(use['quota_bytes'])} per student")
