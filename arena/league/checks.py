"""The conformance check of a submitted version (arena.onboarding.conformance, in the sandbox).

`check_next(league)` claims the next queued version and checks it (`run_claimed`): the check
runs in a process of its own (``python -m arena.league.checks DIR ID``, `check_claimed`) that
plays the version's unpacked files (`materialise`) in the check (of the league's game:
Connect-X's on the check's own boards, another game on the league's parameter sets,
`LeagueConfig.check_games`; a Python bot of another game is a `GamePlayer` of it) and stores
the verdict in words with the bot's own stderr; the version then waits for rating games
("rating") or is "failed". Whatever goes wrong inside the check (any exception) ends the
version as "failed" with "check failed: internal error", the error logged for the admin: a
version is never left "checking".

**A time limit.** A check has a wall-clock limit (`LeagueConfig.check_limit`, league.yaml's
`check_limit_s`): a check still running then is ended, its process and everything it started
(the bot included) killed, and the version fails saying so (`TIME_LIMIT`). The server runs up
to `check_workers` checks at once (`arena.league.web.server.CheckPool`), never two of one
student at a time, so that one student's check delays another's by at most one check's limit.

The queue is fair: users take turns. The next version is the oldest queued version of the
user whose last check started longest ago (or who has never had one), and who has no check
running, so one student's burst of uploads does not delay anyone else's check.

**Unpacked once.** A version's files are written, and a .zip of sources unpacked, once, in
DIR/work/<id>-<fingerprint>/ (the folder the rating workers use too); `prune_trees` removes the
folders of versions no longer in use (`League.kept_versions`), whose uploads stay in the
league's database.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

from arena.entrants.sources import is_junk
from arena.entrants.specs import SpecError
from arena.errors import UsageError
from arena.league.db import League
from arena.league.entries import Status
from arena.onboarding.conformance import run_check
from arena.records import GameRecord
from arena.wire.lifeline import PARENT_ENV, die_with_parent

__all__ = ["INTERNAL_ERROR", "TIME_LIMIT", "WORK", "check_claimed", "check_next", "claim_check",
           "materialise", "next_queued", "prune_trees", "requeue_interrupted", "run_claimed",
           "spec_in", "spec_of", "student_text", "tree_of", "write_files"]

#: the verdict of a check that failed for a reason of the harness, not of the bot
INTERNAL_ERROR = "check failed: internal error"
#: the start of the verdict of a check ended at the league's limit
TIME_LIMIT = "check failed: time limit"
#: the folder of the league holding each version's files, unpacked once (<id>-<fingerprint>)
WORK = "work"
#: the folder where versions were unpacked before (one copy per check); `prune_trees` empties it
OLD_SUBMISSIONS = "submissions"
#: after the limit, the check's process has this long to end its games and bots by itself
#: (SIGTERM) before it and everything it started are killed
TERM_GRACE_S = 3.0
#: of the check process's own output, the admin's log keeps the last this many bytes
OUTPUT_TAIL_BYTES = 8192
log = logging.getLogger("arena.league.checks")


def write_files(folder: Path, files: list[tuple[str, bytes]]) -> Path:
    """A version's files, unchanged, in `folder` (a .zip of sources unpacked into src/)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        (folder / name).write_bytes(data)
        if name.lower().endswith(".zip"):  # paths were checked at upload
            with zipfile.ZipFile(folder / name) as zf:
                zf.extractall(folder / "src",  # macOS litter left out (entrants.sources)
                              [m for m in zf.namelist() if not is_junk(m)])
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


def tree_of(directory: Path, submission_id: int, fingerprint: str) -> Path:
    """The folder of a version's unpacked files: DIR/work/<id>-<fingerprint>/ (the rating
    workers' `VersionFiles.spec` names it the same way)."""
    return Path(directory) / WORK / f"{submission_id}-{fingerprint}"


def materialise(league: League, submission_id: int) -> Path:
    """The version's files in DIR/work/<id>-<fingerprint>/ (a .zip of sources unpacked into
    src/), written once: a folder already there is the version's (it appears whole, by a
    rename, or not at all)."""
    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    folder = tree_of(league.dir, submission_id, sub.fingerprint)
    if folder.is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.parent / f".{folder.name}.{os.getpid()}.{threading.get_ident()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        write_files(tmp, league.submission_files(submission_id))
        os.rename(tmp, folder)
    except OSError:
        if not folder.is_dir():  # not another process's rename that came first
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def prune_trees(league: League, min_age_s: float = 3600.0) -> int:
    """Remove the unpacked folders of versions no longer in use (`League.kept_versions`;
    their uploads stay in the database, and `materialise` writes them again if one is ever
    needed), the half-written folders older than `min_age_s`, and the old per-check copies in
    DIR/submissions/. Returns how many folders were removed."""
    kept = league.kept_versions()
    removed = 0
    now = time.time()
    for area in (WORK, OLD_SUBMISSIONS):
        root = league.dir / area
        if not root.is_dir():
            continue
        for entry in root.iterdir():
            name = entry.name
            if name.startswith("."):
                with contextlib.suppress(OSError):
                    if now - entry.lstat().st_mtime < min_age_s:
                        continue
            else:
                head = name.split("-", 1)[0]
                if not head.isdigit() or int(head) in kept:
                    continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    entry.unlink()
            removed += 1
    return removed


#: a Python traceback's frame line: its indentation and its file
_PY_FRAME = re.compile(r'^(\s*)File "([^"]*)", line \d+')
#: a Java stack frame of the harness or the JDK (the student's own packages are kept)
_JAVA_HARNESS_FRAME = re.compile(r"^\s+at (cxarena|java|javax|jdk|sun|com\.sun)\.")
#: an absolute path left in the text (after the upload's own folder is made relative): two
#: parts or more, at the start of a line or after a space, a quote, a bracket or "="
_ABSOLUTE_PATH = re.compile(r"(?:^|(?<=[\s\"'(\[=,]))(/[\w.+@-]+){2,}/?", re.M)


def student_text(text: str, folder: Path) -> str:
    """A check's text (its verdict or the bot's stderr) as its author sees it: paths in the
    upload's folder `folder` relative to it (`bot.py`, `src/connectx/My.java`), any other
    absolute path cut to its last part (`…/random.py`: the server's folders are not
    shown), and of each traceback only the student's own frames (the harness's Python and
    Java frames, which load and call the bot, and the JDK's are left out)."""
    for base in dict.fromkeys((str(folder), str(Path(folder).resolve()))):
        text = text.replace(base + "/", "").replace(base, ".")
    out: list[str] = []
    skip_deeper: int | None = None  # inside a left-out frame: its lines indented more
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip_deeper is not None:
            if line.strip() and indent > skip_deeper:
                continue
            skip_deeper = None
        m = _PY_FRAME.match(line)
        if m and (m.group(2).startswith(("/", "<")) or ":" in m.group(2)[:3]):
            skip_deeper = len(m.group(1))
            continue
        if _JAVA_HARNESS_FRAME.match(line):
            continue
        out.append(line)
    return _ABSOLUTE_PATH.sub(lambda m: "…/" + m.group(0).rstrip("/").rsplit("/", 1)[-1],
                              "\n".join(out))


def spec_of(league: League, submission_id: int) -> str:
    sub = league.submission(submission_id)
    if sub is None:
        raise KeyError(submission_id)
    return spec_in(materialise(league, submission_id), sub.kind, sub.filename, sub.class_name)


def next_queued(league: League) -> int | None:
    """The version whose check comes next (users take turns, none with a check running; see
    the module docstring)."""
    return league.next_queued()


def claim_check(league: League) -> int | None:
    """Mark the next queued version "checking" and return its id (None: none is queued, or
    every user with a queued version has a check running).
    The mark is taken only from "queued", and only while its user has no other check running:
    of two processes that chose the same version (the server's checks and `league check`), one
    gets it and the other takes the next."""
    while True:
        with league.conn:
            sid = next_queued(league)
            if sid is None:
                return None
            claimed = league.mark_checking(sid)
        if claimed:
            return sid


def requeue_interrupted(league: League) -> int:
    """Queue again every version left "checking" by a server that was killed mid-check;
    returns how many (called once when the server starts)."""
    return league.requeue_checking()


def _verdict(league: League, sid: int, status: Status, summary: str, stderr: str,
             records: list[GameRecord] | None = None) -> bool:
    """Store the verdict of a version still "checking", and the check's games (`records`);
    False when it is not (the other side of a race at the limit stored one first)."""
    return league.store_verdict(sid, status, summary, stderr, records)


def check_claimed(league: League, sid: int, *, quick: bool = True) -> None:
    """Run the check of a version claimed by `claim_check`, in this process, and store its
    verdict (see the module docstring); no time limit of its own (`run_claimed` has one)."""
    stderr = ""
    records: list[GameRecord] = []
    try:
        cfg = league.config
        # the league's own limits (league.yaml), as its rating games have them
        # every limit of the league's games (league.yaml), in the sandbox the server checked
        report = run_check(spec_of(league, sid), games=cfg.check_games(), quick=quick,
                           play=cfg.play, isolation="auto" if cfg.sandboxed else "none",
                           strict_time=cfg.file.strict_time)
        summary = report.text(games=False)
        passed = report.passed
        stderr = "\n".join(g.record.stderr_tail for g in report.games
                           if g.record.stderr_tail)
        records = [g.record for g in report.games]
    except (SpecError, UsageError, OSError) as exc:
        summary, passed = f"FAILED: {exc}", False
        if "name one:" in summary:  # several bots in the files: how to choose, here
            summary += ("\nName the class to play in the upload form's \"Class to play\" "
                        "(or `cxarena league submit --class NAME`) and upload again.")
    except Exception:  # the harness's fault, not the bot's: the admin reads it in the log
        log.exception("the check of submission %d failed inside the harness", sid)
        summary = f"{INTERNAL_ERROR} (the league's admin can read it in the server's log)"
        passed = False
    _verdict(league, sid, Status.RATING if passed else Status.FAILED, summary, stderr, records)


def time_limit_verdict(limit_s: float) -> str:
    return (f"{TIME_LIMIT}: the check took longer than the league's limit of {limit_s:g} s "
            f"(check_limit_s) and was ended; the bot was stopped. A bot must start and answer "
            f"every move within its time, and not flood its output; fix it and upload again.")


def run_claimed(league: League, sid: int, *, quick: bool = True,
                limit_s: float | None = None, stop: threading.Event | None = None) -> None:
    """Check a claimed version in a process of its own (`check_claimed`), ended with
    everything it started when it takes longer than `limit_s` (default: the league's
    `check_limit`) or when `stop` is set; then the version fails (`TIME_LIMIT`), or, when
    the process ended without a verdict, "check failed: internal error". Always leaves a
    verdict."""
    limit = league.config.check_limit() if limit_s is None else limit_s
    cmd = [sys.executable, "-m", "arena.league.checks", str(league.dir), str(sid)]
    if not quick:
        cmd.append("--full")
    tail: collections.deque[bytes] = collections.deque()
    timed_out = False
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                env=dict(os.environ, **{PARENT_ENV: str(os.getpid())}))
    except OSError:
        log.exception("could not start the check of submission %d", sid)
        _verdict(league, sid, Status.FAILED, f"{INTERNAL_ERROR} (the league's admin can read it "
                 f"in the server's log)", "")
        return
    reader = threading.Thread(target=_keep_tail, args=(proc, tail), daemon=True,
                              name=f"check-{sid}-output")
    reader.start()
    try:
        deadline = time.monotonic() + limit
        while proc.poll() is None:
            if time.monotonic() >= deadline or (stop is not None and stop.is_set()):
                timed_out = stop is None or not stop.is_set()
                _end(proc)
                break
            if stop is not None:
                stop.wait(min(0.2, max(0.0, deadline - time.monotonic())))
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=min(0.5, max(0.01, deadline - time.monotonic())))
    finally:
        if proc.poll() is None:
            _end(proc)
        reader.join(timeout=5)
    if stop is not None and stop.is_set() and not timed_out:
        return  # the server is stopping: the version stays "checking", queued again at start
    if timed_out:
        if _verdict(league, sid, Status.FAILED, time_limit_verdict(limit), ""):
            log.warning("the check of submission %d took longer than %g s: ended", sid, limit)
        return
    output = b"".join(tail).decode("utf-8", "replace")
    if _verdict(league, sid, Status.FAILED, f"{INTERNAL_ERROR} (the league's admin can read it in "
                f"the server's log)", ""):
        log.error("the check of submission %d ended without a verdict (exit status %s): %s",
                  sid, proc.returncode, output[-2000:])


def _keep_tail(proc: subprocess.Popen[bytes], tail: collections.deque[bytes]) -> None:
    """Read the process's output to its end, keeping only its last OUTPUT_TAIL_BYTES."""
    assert proc.stdout is not None
    kept = 0
    with contextlib.suppress(OSError, ValueError):
        while chunk := os.read(proc.stdout.fileno(), 65536):
            tail.append(chunk)
            kept += len(chunk)
            while kept - len(tail[0]) >= OUTPUT_TAIL_BYTES:
                kept -= len(tail.popleft())


def _descendants(pid: int) -> list[int]:
    """The processes started by `pid` and by them, as /proc shows them now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """End a check process and everything it started: SIGTERM (its games end and stop their
    bots), then, after TERM_GRACE_S, SIGKILL to it, its process group and every process it
    started that is still there."""
    started = _descendants(proc.pid) if sys.platform.startswith("linux") else []
    with contextlib.suppress(OSError):
        proc.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=TERM_GRACE_S)
    if sys.platform.startswith("linux"):
        started += _descendants(proc.pid)
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    _kill([proc.pid, *started])
    proc.wait()


def check_next(league: League, *, quick: bool = True) -> int | None:
    """Check the next queued version, within the league's time limit (`run_claimed`); return
    its id, or None when none is queued."""
    sid = claim_check(league)
    if sid is None:
        return None
    run_claimed(league, sid, quick=quick)
    return sid


def main(argv: list[str]) -> int:
    """``python -m arena.league.checks DIR ID [--full]``: the check of a claimed version, as
    `run_claimed` runs it (it dies with its parent; SIGTERM ends its games)."""
    die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    logging.basicConfig(level=logging.WARNING, format="league check: %(message)s")
    league = League.open(Path(argv[0]))
    try:
        check_claimed(league, int(argv[1]), quick="--full" not in argv[2:])
    finally:
        league.conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
