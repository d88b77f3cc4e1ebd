"""The conformance check of a submitted version (arena.onboarding.conformance, in the sandbox).

`check_next(league)` claims the oldest queued version, writes its files unchanged to
DIR/submissions/<id>/, runs the check and stores the verdict in words with the bot's own stderr;
the version then waits for rating games ("rating") or is "failed".
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from arena.entrants.specs import SpecError
from arena.errors import UsageError
from arena.league.db import League
from arena.onboarding.conformance import run_check

__all__ = ["check_next", "materialise", "spec_in", "spec_of", "write_files"]


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> Path:
    """A version's files, unchanged, in `folder` (a .zip of sources unpacked into src/)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        (folder / name).write_bytes(data)
        if name.lower().endswith(".zip"):  # paths were checked at upload
            with zipfile.ZipFile(folder / name) as zf:
                zf.extractall(folder / "src")
    return folder


def spec_in(folder: Path, kind: str, filename: str) -> str:
    """The player SPEC of a version of `kind` whose files are in `folder`."""
    first = filename.split(", ")[0]
    if kind == "python":
        return str(folder / first)
    if kind == "kaggle":
        return f"kaggle:{folder / first}"
    if kind == "jar":
        return f"java:{folder / first}"
    if kind == "java-zip":
        return f"java:{folder / 'src'}"
    return f"java:{folder}"


def materialise(league: League, submission_id: int) -> Path:
    """The version's files in DIR/submissions/<id>/ (a .zip of sources unpacked beside it)."""
    return write_files(league.dir / "submissions" / str(submission_id),
                       league.submission_files(submission_id))


def spec_of(league: League, submission_id: int) -> str:
    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    return spec_in(materialise(league, submission_id), sub.kind, sub.filename)


def check_next(league: League, *, quick: bool = True) -> int | None:
    """Check the oldest queued version; return its id, or None when none is queued."""
    with league.conn:
        row = league.conn.execute(
            "SELECT id FROM submissions WHERE status='queued' ORDER BY id LIMIT 1").fetchone()
        if row is None:
            return None
        league.conn.execute("UPDATE submissions SET status='checking' WHERE id=?", (row[0],))
    sid = int(row[0])
    cfg = league.config
    stderr = ""
    try:
        report = run_check(spec_of(league, sid), timeout_s=cfg.timeout_s, quick=quick,
                           isolation="auto" if cfg.isolation else "none")
        summary = report.text(games=False)
        passed = report.passed
        stderr = "\n".join(g.record.stderr_tail for g in report.games
                           if g.record.stderr_tail)
    except (SpecError, UsageError, OSError) as exc:
        summary, passed = f"FAILED: {exc}", False
    with league.conn:
        league.conn.execute(
            "UPDATE submissions SET status=?, check_summary=?, check_stderr=? WHERE id=?",
            ("rating" if passed else "failed", summary, stderr, sid))
    return sid
