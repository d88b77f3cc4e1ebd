"""The conformance check of a submitted version (arena.onboarding.conformance, in the sandbox).

`check_next(league)` claims the next queued version, writes its files unchanged to
DIR/submissions/<id>/, runs the check (of the league's game: Connect-X's on the check's own
boards, another game on the league's parameter sets, `LeagueConfig.check_games`; a Python bot
of another game is a `GamePlayer` of it) and stores the verdict in words with the bot's own
stderr;
the version then waits for rating games ("rating") or is "failed". Whatever goes wrong inside
the check (any exception) ends the version as "failed" with "check failed: internal error",
the error logged for the admin: a version is never left "checking".

The queue is fair: users take turns. The next version is the oldest queued version of the
user whose last check started longest ago (or who has never had one), so one student's burst of
uploads does not delay anyone else's check.
"""

from __future__ import annotations

import logging
import time
import zipfile
from pathlib import Path

from arena.entrants.specs import SpecError
from arena.errors import UsageError
from arena.league.db import League
from arena.onboarding.conformance import run_check

__all__ = ["INTERNAL_ERROR", "check_next", "claim_check", "materialise", "next_queued",
           "requeue_interrupted", "spec_in", "spec_of", "write_files"]

#: the verdict of a check that failed for a reason of the harness, not of the bot
INTERNAL_ERROR = "check failed: internal error"
log = logging.getLogger("arena.league.checks")


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> Path:
    """A version's files, unchanged, in `folder` (a .zip of sources unpacked into src/)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        (folder / name).write_bytes(data)
        if name.lower().endswith(".zip"):  # paths were checked at upload
            with zipfile.ZipFile(folder / name) as zf:
                zf.extractall(folder / "src")
    return folder


def spec_in(folder: Path, kind: str, filename: str, class_name: str = "") -> str:
    """The player SPEC of a version of `kind` whose files are in `folder` (`class_name`: the
    class, or Kaggle function, to play; "": the one the loader finds)."""
    first = filename.split(", ")[0]
    if kind == "python":
        spec = str(folder / first)
    elif kind == "kaggle":
        spec = f"kaggle:{folder / first}"
    elif kind == "jar":
        spec = f"java:{folder / first}"
    elif kind == "java-zip":
        spec = f"java:{folder / 'src'}"
    else:
        spec = f"java:{folder}"
    return f"{spec}:{class_name}" if class_name else spec


def materialise(league: League, submission_id: int) -> Path:
    """The version's files in DIR/submissions/<id>/ (a .zip of sources unpacked beside it)."""
    return write_files(league.dir / "submissions" / str(submission_id),
                       league.submission_files(submission_id))


def spec_of(league: League, submission_id: int) -> str:
    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    return spec_in(materialise(league, submission_id), sub.kind, sub.filename, sub.class_name)


_NEXT_QUEUED = """
SELECT id FROM submissions AS s
WHERE status = 'queued'
  AND id = (SELECT MIN(id) FROM submissions AS q WHERE q.user = s.user AND q.status = 'queued')
ORDER BY COALESCE((SELECT MAX(check_started_at) FROM submissions AS t WHERE t.user = s.user),
                  0), id
LIMIT 1"""


def next_queued(league: League) -> int | None:
    """The version whose check comes next (users take turns; see the module docstring)."""
    row = league.conn.execute(_NEXT_QUEUED).fetchone()
    return None if row is None else int(row[0])


def claim_check(league: League) -> int | None:
    """Mark the next queued version "checking" and return its id (None: none is queued).
    The mark is taken only from "queued": of two processes that chose the same version (the
    server's check thread and `league check`), one gets it and the other takes the next."""
    while True:
        with league.conn:
            sid = next_queued(league)
            if sid is None:
                return None
            cur = league.conn.execute(
                "UPDATE submissions SET status='checking', check_started_at=? "
                "WHERE id=? AND status='queued'", (time.time(), sid))
        if cur.rowcount == 1:
            return sid


def requeue_interrupted(league: League) -> int:
    """Queue again every version left "checking" by a server that was killed mid-check;
    returns how many (called once when the server starts)."""
    with league.conn:
        return league.conn.execute(
            "UPDATE submissions SET status='queued' WHERE status='checking'").rowcount


def check_next(league: League, *, quick: bool = True) -> int | None:
    """Check the next queued version; return its id, or None when none is queued."""
    sid = claim_check(league)
    if sid is None:
        return None
    stderr = ""
    try:
        cfg = league.config
        report = run_check(spec_of(league, sid), games=cfg.check_games(),
                           timeout_s=cfg.timeout_s, quick=quick,
                           isolation="auto" if cfg.isolation else "none")
        summary = report.text(games=False)
        passed = report.passed
        stderr = "\n".join(g.record.stderr_tail for g in report.games
                           if g.record.stderr_tail)
    except (SpecError, UsageError, OSError) as exc:
        summary, passed = f"FAILED: {exc}", False
        if "name one:" in summary:  # several bots in the files: how to choose, here
            summary += ("\nName the class to play in the upload form's \"Class to play\" "
                        "(or `cxarena league submit --class NAME`) and upload again.")
    except Exception:  # the harness's fault, not the bot's: the admin reads it in the log
        log.exception("the check of submission %d failed inside the harness", sid)
        summary = f"{INTERNAL_ERROR} (the league's admin can read it in the server's log)"
        passed = False
    with league.conn:
        league.conn.execute(
            "UPDATE submissions SET status=?, check_summary=?, check_stderr=? WHERE id=?",
            ("rating" if passed else "failed", summary, stderr, sid))
    return sid
