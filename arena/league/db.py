"""League state in DIR/league.sqlite: users (scrypt-hashed secrets), their web sessions
(server-side, each with an expiry: ending one in the table ends it in every browser that holds
its cookie) and submitted versions (file names checked, uploads per user capped per day)."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import io
import json
import math
import re
import secrets
import shutil
import sqlite3
import time
import unicodedata
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.competition.settings import BOARDS_FILE
from arena.league.clock import now_s
from arena.league.config import (
    CONFIG_FILE,
    LeagueConfig,
    config_changes,
    java_time_problem,
    parse_config,
)
from arena.league.entries import CURRENT, PASSED, Status, format_time, submission_of
from arena.records import GameRecord, StoredGame

if TYPE_CHECKING:
    from arena.results.store import GameStore

__all__ = ["DISK_FULL_MESSAGE", "SIDES", "SNAPSHOT_KEY", "AuditEntry", "DiskFull",
           "DiskQuotaExceeded", "GameRow", "League", "LeagueError", "LeagueGames",
           "QuotaExceeded", "Session", "Submission", "UploadError", "User", "check_file_name",
           "format_deadline", "format_time", "game_row", "is_disk_full", "time_left",
           "tree_bytes", "uploads_left_text", "with_sides"]

DB_NAME = "league.sqlite"
MAX_ARCHIVE_ENTRIES = 200
MAX_UNPACKED_BYTES = 10_000_000
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}
#: the longest file name an upload may carry, in UTF-8 bytes (the usual file-system limit)
MAX_FILE_NAME_BYTES = 255
#: the window of the per-user upload quota (`max_uploads_per_day` uploads in it)
QUOTA_WINDOW_S = 24 * 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
  name TEXT PRIMARY KEY, admin INTEGER NOT NULL, salt BLOB NOT NULL, hash BLOB NOT NULL,
  created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, user TEXT NOT NULL REFERENCES users(name),
  version INTEGER NOT NULL, kind TEXT NOT NULL, filename TEXT NOT NULL, created_at REAL NOT NULL,
  fingerprint TEXT NOT NULL, status TEXT NOT NULL, check_summary TEXT NOT NULL DEFAULT '',
  check_stderr TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS files (
  submission_id INTEGER NOT NULL REFERENCES submissions(id), name TEXT NOT NULL,
  data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
  id INTEGER PRIMARY KEY AUTOINCREMENT, side_a TEXT NOT NULL, side_b TEXT NOT NULL,
  board TEXT NOT NULL, score_a REAL NOT NULL, reason TEXT NOT NULL DEFAULT '',
  faulted TEXT NOT NULL DEFAULT '', finished_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS game_records (
  game_id INTEGER PRIMARY KEY REFERENCES games(id), record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS check_records (
  submission_id INTEGER NOT NULL REFERENCES submissions(id), record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  token_hash TEXT PRIMARY KEY, user TEXT NOT NULL REFERENCES users(name),
  created_at REAL NOT NULL, expires_at REAL NOT NULL, last_seen REAL NOT NULL,
  client TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS leases (
  id INTEGER PRIMARY KEY AUTOINCREMENT, side_a TEXT NOT NULL, side_b TEXT NOT NULL,
  board TEXT NOT NULL, number INTEGER NOT NULL, holder TEXT NOT NULL, started_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, admin TEXT NOT NULL,
  action TEXT NOT NULL, target TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS analyses (
  game_id INTEGER PRIMARY KEY REFERENCES games(id), json TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS entry_choices (
  user TEXT PRIMARY KEY REFERENCES users(name),
  submission_id INTEGER NOT NULL REFERENCES submissions(id), chosen_by TEXT NOT NULL,
  chosen_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS similarity_answers (
  entry TEXT NOT NULL, fingerprint TEXT NOT NULL, setup TEXT NOT NULL, first TEXT NOT NULL,
  again TEXT NOT NULL, asked INTEGER NOT NULL, spent_s REAL NOT NULL, faults INTEGER NOT NULL,
  state TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', updated_at REAL NOT NULL,
  PRIMARY KEY (entry, fingerprint, setup));
"""


class Rollback(Exception):
    """Raised inside `League.write_lock` to end its transaction without a change."""


class Lease(NamedTuple):
    """A rating pair being played: its sides, board, holder and start (seconds since the
    epoch)."""

    id: int
    side_a: str
    side_b: str
    board: str
    holder: str
    started_at: float


class GameRow(NamedTuple):
    """A stored rating game as its row: the sides (`EntryKey` texts), the board, side A's
    score (a win 1, a draw 1/2), why it ended and when (seconds since the epoch)."""

    id: int
    side_a: str
    side_b: str
    board: str
    score_a: float
    reason: str
    finished_at: float


#: the meta key of the frozen leaderboard (`arena.league.standings.leaderboard`)
SNAPSHOT_KEY = "frozen_leaderboard"

#: the version whose check comes next (`League.next_queued`): each user's oldest queued one,
#: of users with no check running, the user whose last check started longest ago first
_NEXT_QUEUED = """
SELECT id FROM submissions AS s
WHERE status = :queued
  AND id = (SELECT MIN(id) FROM submissions AS q WHERE q.user = s.user AND q.status = :queued)
  AND NOT EXISTS (SELECT 1 FROM submissions AS c WHERE c.user = s.user AND c.status = :checking)
ORDER BY COALESCE((SELECT MAX(check_started_at) FROM submissions AS t WHERE t.user = s.user),
                  0), id
LIMIT 1"""

#: the named parameters of the check queue's states in its statements
_STATES = {"queued": Status.QUEUED, "checking": Status.CHECKING}


def check_user_name(name: str) -> None:
    """LeagueError unless `name` is a usable account name."""
    if not name or not name.replace("_", "").replace("-", "").replace(".", "").isalnum():
        raise LeagueError(f"user name {name!r}: use letters, digits, '_', '-' or '.'")


_CLASS_NAME = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


def check_class_name(name: str) -> str:
    """A class name as the SPEC's last part (``connectx.schillaci.Bot``, ``MyPlayer``); the
    name stripped, UploadError for anything else."""
    name = name.strip()
    if name and (len(name) > 200 or not _CLASS_NAME.match(name)):
        raise UploadError(f"class {name[:60]!r}: expected a class name such as MyPlayer or "
                          f"connectx.mybot.MyPlayer (letters, digits, _, $ and dots)")
    return name


def check_file_name(name: str) -> None:
    """UploadError unless `name` is a plain file name: no path separator, no NUL or other
    control character, not '.' or '..', at most `MAX_FILE_NAME_BYTES` bytes in UTF-8."""
    shown = repr(name[:60]) + ("..." if len(name) > 60 else "")
    if name in ("", ".", ".."):
        raise UploadError(f"file name {shown} is not a file name")
    if "/" in name or "\\" in name:
        raise UploadError(f"file name {shown} contains a path separator; "
                          "upload plain files (or one .zip)")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise UploadError(f"file name {shown} contains a NUL or other control character")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        raise UploadError(f"file name {shown} is not valid text") from None
    if size > MAX_FILE_NAME_BYTES:
        raise UploadError(f"file name {shown} is {size} bytes long; "
                          f"the limit is {MAX_FILE_NAME_BYTES}")


class LeagueError(Exception):
    """A league folder that cannot be used (missing, not a league), with what to do."""


class UploadError(ValueError):
    """An upload refused: too big, a bad archive, an unknown type, a disabled user."""


class DiskQuotaExceeded(UploadError):
    """An upload that would take the user's versions past the league's disk quota."""


#: what a student is told when the league's disk (or its database) is full
DISK_FULL_MESSAGE = "the server is out of disk space; tell your teacher"


class DiskFull(UploadError):
    """A write refused because the disk (or the database) is full (`is_disk_full`)."""

    def __init__(self) -> None:
        super().__init__(DISK_FULL_MESSAGE)


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc` is a full disk: sqlite's SQLITE_FULL ("database or disk is full"), or an
    OSError ENOSPC / EDQUOT."""
    if isinstance(exc, DiskFull):
        return True
    if isinstance(exc, sqlite3.Error):
        return (getattr(exc, "sqlite_errorcode", None) == 13  # SQLITE_FULL
                or "disk is full" in str(exc) or "disk I/O error" in str(exc))
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


class QuotaExceeded(UploadError):
    """An upload past the user's quota; `retry_after_s`: when the next one is allowed."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class User:
    name: str
    admin: bool
    created_at: float
    disabled: bool = False


@dataclass(frozen=True)
class AuditEntry:
    """One admin act as the admin page lists it."""
    at: float
    admin: str
    action: str  # "disable user", "enable submission", "freeze", "config", ...
    target: str
    detail: str


@dataclass(frozen=True)
class Session:
    """A web session as the admin page lists it (`key`: a short public id, not the token)."""
    key: str
    user: str
    created_at: float
    expires_at: float
    last_seen: float
    client: str


@dataclass(frozen=True)
class Submission:
    id: int
    user: str
    version: int
    kind: str
    filename: str
    created_at: float
    fingerprint: str
    status: Status
    check_summary: str
    check_stderr: str
    #: the class (Java, Python) or function (Kaggle) to play when the files hold several
    #: bots: the SPEC's last part; "" to let the loader find the one
    class_name: str = ""


#: the states of a version whose check has not ended (queued, or running)
_UNCHECKED = (Status.QUEUED, Status.CHECKING)


def _marks(values: tuple[object, ...]) -> str:
    """The SQL placeholders ``(?, ?, ...)`` of an ``IN`` over `values`."""
    return f"({', '.join('?' * len(values))})"


def _submission(row: tuple[object, ...]) -> Submission:
    """A `Submission` from a row of `League._COLS`, its status read as a `Status`."""
    fields = list(row)
    fields[7] = Status(fields[7])
    return Submission(*fields)  # type: ignore[arg-type]


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def format_deadline(config: LeagueConfig, user: str | None = None) -> str:
    """The deadline (`user`'s own: their extension, if any) in the server's local time, with
    its zone ("" without one)."""
    deadline = config.deadline_for(user)
    return "" if deadline is None else format_time(deadline)


def time_left(config: LeagueConfig, now: float | None = None, user: str | None = None) -> str:
    """What the pages say of the deadline after "Uploads": "close 2026-12-18 23:59 UTC (3 days
    4 h left)", "closed 2026-12-18 23:59 UTC", or "" without a deadline. `user`: their own
    deadline (an extension says so: "close ... (5 days 2 h left; your extension)")."""
    deadline = config.deadline_for(user)
    if deadline is None:
        return ""
    own = "your extension" if deadline != config.file.deadline_ts else ""
    left = deadline - (now_s() if now is None else now)
    if left <= 0:
        return f"closed {format_deadline(config, user)}" + (f" ({own})" if own else "")
    return (f"close {format_deadline(config, user)} ({_duration(left)} left"
            + (f"; {own})" if own else ")"))


def uploads_left_text(league: League, user: str, now: float | None = None) -> str:
    """What the submit page says of `user`'s upload quota: "2 of 5 uploads left today (...)";
    none left: when the next one is allowed ("at 14:05 UTC"), or, when `user`'s deadline
    comes first, that uploads close at the deadline."""
    now = now_s() if now is None else now
    left, cap, next_at = league.uploads_left(user, now)
    counted = f"{left} of {cap} uploads left today"
    if left:
        return f"{counted} (the limit counts the uploads of the last 24 hours)."
    deadline = league.config.deadline_for(user)
    if deadline is not None and next_at >= deadline:
        whose = "your" if deadline != league.config.file.deadline_ts else "the"
        return (f"{counted}; uploads close at {whose} deadline ({format_time(deadline)}), "
                f"before the next one would be allowed.")
    at = math.ceil(next_at / 60) * 60  # to the minute, never early
    same_day = time.localtime(at)[:3] == time.localtime(now)[:3]
    return f"{counted}; the next one is allowed at {format_time(at, day=not same_day)}."


def _duration(seconds: float) -> str:
    minutes = math.ceil(seconds / 60)
    if minutes >= 48 * 60:
        return f"{minutes // 1440} days {minutes % 1440 // 60} h"
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def _unknown_users(names: list[str]) -> str:
    """Why `extensions:` naming `names` (no accounts) is refused."""
    shown = ", ".join(repr(n[:60]) for n in names)
    return (f"extensions: no user {shown} in this league (add the account first, then apply "
            f"the file with `cxarena league config`)")


def _hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT)


def _check_archive(data: bytes) -> None:
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UploadError(f"not a valid zip/jar archive: {exc}") from exc
    infos = zf.infolist()
    if len(infos) > MAX_ARCHIVE_ENTRIES:
        raise UploadError(f"archive has {len(infos)} entries; the limit is {MAX_ARCHIVE_ENTRIES}")
    total = 0
    for info in infos:
        name = info.filename
        parts = name.replace("\\", "/").split("/")
        if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
            raise UploadError(f"archive entry {name!r} has an absolute path")
        if ".." in parts:
            raise UploadError(f"archive entry {name!r} contains '..'")
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise UploadError(f"archive entry {name!r} is a symbolic link")
        total += info.file_size
    if total > MAX_UNPACKED_BYTES:
        raise UploadError(f"archive unpacks to {total} bytes; the limit is {MAX_UNPACKED_BYTES}")


def _unpacked_bytes(data: bytes) -> int:
    """What an archive's entries take unpacked (0 for anything that is not a zip)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return sum(info.file_size for info in zf.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return 0


def tree_bytes(kind: str, files: list[tuple[str, bytes]]) -> int:
    """What a version's unpacked folder (`arena.league.checks.materialise`) takes: its files,
    and a .zip of sources unpacked beside them."""
    size = sum(len(d) for _, d in files)
    if kind == "java-zip":
        size += sum(_unpacked_bytes(d) for n, d in files if n.lower().endswith(".zip"))
    return size


def _mib(size: float) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _detect_kind(files: list[tuple[str, bytes]], kind: str | None) -> str:
    names = [n.lower() for n, _ in files]
    if not files:
        raise UploadError("no file uploaded")
    if kind == "kaggle":
        if len(files) != 1 or not names[0].endswith(".py"):
            raise UploadError("a Kaggle agent is one .py file")
        return "kaggle"
    if len(files) == 1 and names[0].endswith(".py"):
        return "python"
    if len(files) == 1 and names[0].endswith(".jar"):
        return "jar"
    if len(files) == 1 and names[0].endswith(".zip"):
        return "java-zip"
    if all(n.endswith(".java") for n in names):
        return "java"
    raise UploadError("upload one .py file, .java files, a .zip of .java files or a .jar")


class League:
    """One league folder; one sqlite connection per instance (open one per thread)."""

    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)
        self._config: LeagueConfig | None = None
        self.conn = sqlite3.connect(self.dir / DB_NAME, timeout=30, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA busy_timeout=30000")
        if (self.dir / DB_NAME).stat().st_size:  # a league (not being created): tables added
            self.conn.executescript(_SCHEMA)  # since it was made appear now
            self._migrate()

    def _migrate(self) -> None:
        """Columns added since a league was made."""
        for table, column, decl in (("users", "disabled", "INTEGER NOT NULL DEFAULT 0"),
                                    ("submissions", "check_started_at", "REAL"),
                                    ("submissions", "class_name", "TEXT NOT NULL DEFAULT ''"),
                                    ("submissions", "disabled_from", "TEXT NOT NULL DEFAULT ''")):
            cols = {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}
            if cols and column not in cols:
                with self.conn:
                    self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")

    @classmethod
    def init(cls, directory: Path, config_path: Path | None = None) -> League:
        directory = Path(directory)
        if (directory / DB_NAME).exists():
            raise LeagueError(f"{directory} already holds a league ({DB_NAME}); use it as it is")
        try:
            text = "" if config_path is None else Path(config_path).read_text(encoding="utf-8")
            cfg = parse_config(text, str(config_path),
                               None if config_path is None else Path(config_path).parent)
        except (OSError, ValueError) as exc:
            raise LeagueError(str(exc)) from exc
        if cfg.extensions:  # a new league has no accounts yet
            raise LeagueError(f"{config_path}: {_unknown_users([u for u, _ in cfg.extensions])}"
                              f"; no league was created")
        directory.mkdir(parents=True, exist_ok=True)
        near = None if config_path is None else Path(config_path).parent / BOARDS_FILE
        if near is not None and near.is_file() and not (directory / BOARDS_FILE).exists():
            # its board sets stay with the league: the folder is where they are looked up
            shutil.copyfile(near, directory / BOARDS_FILE)
        league = cls(directory)
        with league.conn:
            league.conn.executescript(_SCHEMA)
            league.conn.execute("INSERT INTO meta VALUES ('config', ?)", (text,))
        league._migrate()
        league.write_config_file()
        return league

    def write_config_file(self) -> Path:
        """DIR/league.yaml, the settings' source of truth, from the applied settings (a league
        made before it existed gets it here)."""
        path = self.dir / CONFIG_FILE
        row = self.conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()
        text = row[0] if row and row[0].strip() else (
            "# the league's settings (all defaults); edit, then `cxarena league config DIR`\n")
        tmp = path.with_name(f".{CONFIG_FILE}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return path

    def apply_config_file(self, who: str, text: str | None = None) -> list[str]:
        """Apply DIR/league.yaml (or `text`, then written there) to the running league:
        validated as at init, compared with the applied settings; returns the changes made
        ("max_uploads_per_day: 10 -> 20", each logged in the audit log as by `who`). A
        setting that may not change (`Change.FIXED` on its field, read by
        `arena.competition.settings.change_rule`; the final's once it has started) or a bad
        value raises LeagueError with the reasons, and nothing is applied."""
        path = self.dir / CONFIG_FILE
        if text is None:
            if not path.is_file():
                self.write_config_file()
                return []
            text = path.read_text(encoding="utf-8")
        try:
            new = parse_config(text, str(path), self.dir)
        except ValueError as exc:
            raise LeagueError(f"{exc}; nothing was changed") from None
        self._config = None
        started = self.conn.execute(
            "SELECT 1 FROM meta WHERE key='final_entries'").fetchone() is not None
        changes, refused = config_changes(self.config, new, started)
        unknown = [user for user, _ in new.extensions if self.user(user) is None]
        if unknown:
            refused.append(_unknown_users(unknown))
        if java_time_problem(new) and new.java != self.config.java:
            refused.append(java_time_problem(new))
        if refused:
            raise LeagueError(f"{path}: refused, nothing was changed: " + "; ".join(refused))
        deadline_moved = new.file.deadline_ts != self.config.file.deadline_ts
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (text,))
            if deadline_moved:  # the cut may move: the frozen leaderboard is made again
                self._forget_snapshot()
        self._config = None
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            self.write_config_file()
        if changes:
            self.audit(who, "config", CONFIG_FILE, "; ".join(changes))
        return changes

    @classmethod
    def open(cls, directory: Path) -> League:
        if not (Path(directory) / DB_NAME).is_file():
            raise LeagueError(f"{directory} is not a league (no {DB_NAME}); "
                              f"create one with `cxarena league init {directory}`")
        return cls(Path(directory))

    @property
    def config(self) -> LeagueConfig:
        if self._config is None:
            row = self.conn.execute("SELECT value FROM meta WHERE key='config'").fetchone()
            self._config = parse_config(row[0] if row else "", f"{self.dir}/{DB_NAME}", self.dir)
        return self._config

    # accounts
    def add_user(self, name: str, admin: bool = False) -> str:
        check_user_name(name)
        if self.user(name) is not None:
            raise LeagueError(f"user {name!r} exists; use reset_secret to give a new secret")
        secret = secrets.token_urlsafe(12)
        salt = secrets.token_bytes(16)
        with self.conn:
            self.conn.execute("INSERT INTO users (name, admin, salt, hash, created_at) "
                              "VALUES (?,?,?,?,?)",
                              (name, int(admin), salt, _hash(secret, salt), time.time()))
        return secret

    def add_users(self, names: list[str]) -> list[tuple[str, str]]:
        """Accounts for the `names` that are not users yet, all in one transaction:
        [(name, one-time secret)] in the given order. Names already taken are skipped (so a
        roster can be run again after adding to it); a bad or repeated name raises LeagueError
        before anything is created."""
        seen: set[str] = set()
        for name in names:
            check_user_name(name)
            if name in seen:
                raise LeagueError(f"user name {name!r} appears twice")
            seen.add(name)
        new = [name for name in names if self.user(name) is None]
        created = []
        with self.conn:
            for name in new:
                secret = secrets.token_urlsafe(12)
                salt = secrets.token_bytes(16)
                self.conn.execute("INSERT INTO users (name, admin, salt, hash, created_at) "
                                  "VALUES (?,?,?,?,?)",
                                  (name, 0, salt, _hash(secret, salt), time.time()))
                created.append((name, secret))
        return created

    def reset_secret(self, name: str) -> str:
        """A new one-time secret for `name`; the old one stops working and every session of
        the user ends."""
        if self.user(name) is None:
            raise LeagueError(f"no user {name!r}")
        secret = secrets.token_urlsafe(12)
        salt = secrets.token_bytes(16)
        with self.conn:
            self.conn.execute("UPDATE users SET salt=?, hash=? WHERE name=?",
                              (salt, _hash(secret, salt), name))
            self.conn.execute("DELETE FROM sessions WHERE user=?", (name,))
        return secret

    def set_disabled(self, name: str, disabled: bool = True) -> None:
        """Disable (or enable again) an account: a disabled user cannot log in or upload, and
        every session of the user ends."""
        if self.user(name) is None:
            raise LeagueError(f"no user {name!r}")
        with self.conn:
            self.conn.execute("UPDATE users SET disabled=? WHERE name=?", (int(disabled), name))
            self._forget_snapshot()
            if disabled:
                self.conn.execute("DELETE FROM sessions WHERE user=?", (name,))

    def verify_login(self, name: str, secret: str) -> User | None:
        """The user when `secret` is theirs and the account is not disabled, else None."""
        user = self.secret_owner(name, secret)
        return user if user is not None and not user.disabled else None

    def secret_owner(self, name: str, secret: str) -> User | None:
        """The user when `secret` is theirs, disabled or not (the login page tells a disabled
        student so, and only once the secret is right), else None; an unknown name costs
        the same."""
        row = self.conn.execute("SELECT salt, hash FROM users WHERE name=?", (name,)).fetchone()
        if row is None:
            _hash(secret, b"0" * 16)  # same cost for unknown names
            return None
        if not hmac.compare_digest(_hash(secret, row[0]), row[1]):
            return None
        return self.user(name)

    _USER_COLS = "name, admin, created_at, disabled"

    def user(self, name: str) -> User | None:
        row = self.conn.execute(f"SELECT {self._USER_COLS} FROM users WHERE name=?",
                                (name,)).fetchone()
        return User(row[0], bool(row[1]), row[2], bool(row[3])) if row else None

    def users(self) -> list[User]:
        rows = self.conn.execute(f"SELECT {self._USER_COLS} FROM users ORDER BY name")
        return [User(r[0], bool(r[1]), r[2], bool(r[3])) for r in rows]

    # web sessions: the browser holds a random token, the table its hash
    def create_session(self, name: str, ttl_s: float, client: str = "") -> str:
        """A new session of `name` valid for `ttl_s` seconds; returns its token (the cookie's
        value; only its SHA-256 is stored)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.conn:
            self.conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (now,))
            self.conn.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?)",
                              (_token_hash(token), name, now, now + ttl_s, now, client[:100]))
        return token

    def session_user(self, token: str) -> User | None:
        """The user of a live session (not expired, not ended, account not disabled)."""
        if not token:
            return None
        key = _token_hash(token)
        now = time.time()
        row = self.conn.execute("SELECT user, expires_at, last_seen FROM sessions "
                                "WHERE token_hash=?", (key,)).fetchone()
        if row is None or row[1] <= now:
            return None
        user = self.user(row[0])
        if user is None or user.disabled:
            return None
        if now - row[2] > 60:  # last seen, to the minute (no write on every request)
            with self.conn:
                self.conn.execute("UPDATE sessions SET last_seen=? WHERE token_hash=?",
                                  (now, key))
        return user

    def end_session(self, token: str) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM sessions WHERE token_hash=?", (_token_hash(token),))

    def end_sessions(self, name: str, key: str | None = None) -> int:
        """End every session of `name` (or only the one whose public `key` is given); returns
        how many ended."""
        with self.conn:
            if key is None:
                cur = self.conn.execute("DELETE FROM sessions WHERE user=?", (name,))
            else:
                cur = self.conn.execute("DELETE FROM sessions WHERE user=? AND "
                                        "substr(token_hash, 1, 12)=?", (name, key))
        return cur.rowcount

    def sessions(self) -> list[Session]:
        """The live sessions, by user then age."""
        rows = self.conn.execute(
            "SELECT substr(token_hash, 1, 12), user, created_at, expires_at, last_seen, client "
            "FROM sessions WHERE expires_at > ? ORDER BY user, created_at", (time.time(),))
        return [Session(*r) for r in rows]

    def uploads_left(self, user: str, now: float | None = None) -> tuple[int, int, float]:
        """(uploads `user` may still make now, the league's `max_uploads_per_day`, when the
        next is allowed: now while some are left, else when the oldest of the last 24 hours'
        uploads leaves the window)."""
        now = now_s() if now is None else now
        cap = self.config.file.max_uploads_per_day
        (made,) = self.conn.execute("SELECT COUNT(*) FROM submissions WHERE user=? AND "
                                    "created_at > ?", (user, now - QUOTA_WINDOW_S)).fetchone()
        return max(0, cap - int(made)), cap, now + self.upload_wait_s(user, now)

    def upload_wait_s(self, user: str, now: float | None = None) -> float:
        """0 when `user` may upload now, else the seconds until the quota allows it."""
        now = now_s() if now is None else now
        cap = self.config.file.max_uploads_per_day
        rows = self.conn.execute(
            "SELECT created_at FROM submissions WHERE user=? AND created_at > ? "
            "ORDER BY created_at DESC LIMIT ?", (user, now - QUOTA_WINDOW_S, cap)).fetchall()
        if len(rows) < cap:
            return 0.0
        return max(0.0, rows[-1][0] + QUOTA_WINDOW_S - now)

    def quota_text(self, wait_s: float, now: float | None = None,
                   user: str | None = None) -> str:
        """Why an upload past the quota is refused, and when the next is allowed: in
        `wait_s`, or never when the deadline (`user`'s own, with an extension) comes first
        (uploads close then)."""
        now = now_s() if now is None else now
        cap = self.config.file.max_uploads_per_day
        text = f"you have made {cap} uploads in the last 24 hours, the league's limit; "
        deadline = (self.config.deadline_for(user) if user is not None
                    else self.config.file.deadline_ts)
        if deadline is not None and now + wait_s >= deadline:
            whose = "your" if deadline != self.config.file.deadline_ts else "the"
            return text + (f"uploads close at {whose} deadline ({format_time(deadline)}, "
                           f"in {_duration(max(0.0, deadline - now))}) before another is "
                           f"allowed: your last upload stays your version")
        return text + f"the next is allowed in {_duration(wait_s)}"

    # uploads
    def submit(self, user: str, files: list[tuple[str, bytes]],
               kind: str | None = None, quota: bool = False,
               class_name: str | None = None) -> Submission:
        """Store a new version of `user`'s bot, queued for its check. `quota`: refuse it
        (`QuotaExceeded`) past the user's `max_uploads_per_day` (the web form; an admin's
        `league submit` is not counted against it). `class_name`: the class (or Kaggle
        function) to play when the files hold several (e.g. a Java package with the bot and
        copies of L0 and L1); None keeps the user's last choice, "" lets the loader find it."""
        account = self.user(user)
        if account is None:
            raise UploadError(f"no user {user!r}")
        if account.disabled:
            raise UploadError(f"user {user!r} is disabled")
        if self.deadline_passed(user=user):
            own = self.config.deadline_for(user) != self.config.file.deadline_ts
            whose = "your extended" if own else "the league's"
            raise UploadError(f"{whose} deadline ({format_deadline(self.config, user)}) has "
                              f"passed: no new versions are accepted")
        if self.frozen_at is not None:
            raise UploadError("the league is frozen: no new versions are accepted")
        size = sum(len(d) for _, d in files)
        cap = self.config.file.max_upload_bytes
        if size > cap:
            raise UploadError(f"upload is {size} bytes; the limit is {cap}")
        for name, _ in files:
            check_file_name(name)
        kind = _detect_kind(files, kind)
        if kind in ("jar", "java-zip"):  # a broken or oversized archive says so first
            _check_archive(files[0][1])
        if kind in ("java", "java-zip", "jar"):
            if not self.config.java:
                raise UploadError("this league takes no Java bots (java: false in its "
                                  "settings): upload a Python bot (.py)")
            if java_time_problem(self.config):
                raise UploadError(
                    f"this league's time limit is {self.config.timeout_s:g} s a move, which a "
                    f"Java bot cannot be given (CXPlayer gets whole seconds); upload a Python "
                    f"bot, or ask the teacher to set timeout_s to whole seconds")
        if class_name is None:
            last = self.submissions(user)
            class_name = last[-1].class_name if last and last[-1].kind == kind else ""
        class_name = check_class_name(class_name)
        digest = hashlib.sha256()
        for name, data in sorted(files):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        try:
            sid = self._insert_version(user, files, kind, class_name, digest.hexdigest()[:16],
                                       quota, size)
        except (sqlite3.Error, OSError) as exc:
            if is_disk_full(exc):
                raise DiskFull() from exc
            raise
        result = self.submission(int(sid or 0))
        assert result is not None
        return result

    def _insert_version(self, user: str, files: list[tuple[str, bytes]], kind: str,
                        class_name: str, fingerprint: str, quota: bool, size: int) -> int:
        """Insert a checked upload as the user's next version (queued); its id."""
        with self.conn:
            self.conn.execute("BEGIN IMMEDIATE")  # the quota's count and the insert: atomic
            wait = self.upload_wait_s(user) if quota else 0.0
            if wait > 0:
                raise QuotaExceeded(self.quota_text(wait, user=user), wait)
            if quota:
                self._check_disk(user, size + tree_bytes(kind, files))
            (version,) = self.conn.execute(
                "SELECT COALESCE(MAX(version), 0) + 1 FROM submissions WHERE user=?",
                (user,)).fetchone()
            cur = self.conn.execute(
                "INSERT INTO submissions (user, version, kind, filename, created_at, fingerprint,"
                " status, class_name) VALUES (?,?,?,?,?,?,?,?)",
                (user, version, kind, ", ".join(n for n, _ in files), now_s(),
                 fingerprint, Status.QUEUED, class_name))
            sid = cur.lastrowid
            self.conn.executemany("INSERT INTO files VALUES (?,?,?)",
                                  [(sid, n, d) for n, d in files])
        return int(sid or 0)

    # disk
    def kept_versions(self) -> set[int]:
        """The versions whose unpacked folders are in use: queued or being checked, each
        user's current version (the latest that passed its check) and the earlier one it plays
        against (`arena.league.rating.previous_of`), and every version in a pair being
        played. The others are superseded: their folders can go, their uploads stay."""
        kept = {int(r[0]) for r in self.conn.execute(
            f"SELECT id FROM submissions WHERE status IN {_marks(_UNCHECKED)}", _UNCHECKED)}
        for (current,) in self.conn.execute(
                f"SELECT MAX(id) FROM submissions WHERE status IN {_marks(CURRENT)} "
                f"GROUP BY user", CURRENT):
            kept.add(int(current))
            row = self.conn.execute(
                f"SELECT MAX(id) FROM submissions WHERE id < ? AND status IN {_marks(PASSED)} "
                f"AND user = (SELECT user FROM submissions WHERE id = ?)",
                (current, *PASSED, current)).fetchone()
            if row and row[0] is not None:
                kept.add(int(row[0]))
        row = self.conn.execute("SELECT value FROM meta WHERE key='final_entries'").fetchone()
        if row is not None:  # the final's entries: its config names their folders
            kept.update(int(sid) for _, sid in json.loads(row[0]))
        for side_a, side_b in self.conn.execute("SELECT side_a, side_b FROM leases"):
            for side in (side_a, side_b):
                sid = submission_of(side)
                if sid is not None:
                    kept.add(sid)
        return kept

    def disk_bytes(self, user: str, kept: set[int] | None = None) -> dict[str, int]:
        """What `user`'s versions take of the league's disk, as the quota counts it:
        "uploads" (every version's files as uploaded, kept in the database) and "unpacked"
        (the folders of the versions in use, `kept_versions`)."""
        (uploads,) = self.conn.execute(
            "SELECT COALESCE(SUM(LENGTH(f.data)), 0) FROM files AS f JOIN submissions AS s "
            "ON s.id = f.submission_id WHERE s.user = ?", (user,)).fetchone()
        kept = self.kept_versions() if kept is None else kept
        unpacked = 0
        for sub in self.submissions(user):
            if sub.id in kept:
                unpacked += tree_bytes(sub.kind, self.submission_files(sub.id))
        return {"uploads": int(uploads), "unpacked": unpacked}

    def _check_disk(self, user: str, new_bytes: int) -> None:
        """DiskQuotaExceeded when `new_bytes` more would take `user` past the disk quota."""
        quota = self.config.disk_quota_bytes
        used = sum(self.disk_bytes(user).values())
        if used + new_bytes > quota:
            raise DiskQuotaExceeded(
                f"this upload needs {_mib(new_bytes)} of the league's disk (its files and "
                f"what they unpack to), and your versions already take {_mib(used)}; the "
                f"league's quota is {_mib(quota)} per student (disk_quota_mb). Upload a "
                f"smaller bot, or ask the teacher")

    # queries
    _COLS = ("id, user, version, kind, filename, created_at, fingerprint, status,"
             " check_summary, check_stderr, class_name")

    def submissions(self, user: str | None = None) -> list[Submission]:
        if user is None:
            rows = self.conn.execute(f"SELECT {self._COLS} FROM submissions ORDER BY id")
        else:
            rows = self.conn.execute(
                f"SELECT {self._COLS} FROM submissions WHERE user=? ORDER BY id", (user,))
        return [_submission(r) for r in rows]

    def submission(self, submission_id: int) -> Submission | None:
        row = self.conn.execute(f"SELECT {self._COLS} FROM submissions WHERE id=?",
                                (submission_id,)).fetchone()
        return _submission(row) if row else None

    def add_check_records(self, submission_id: int, records: list[GameRecord]) -> None:
        """Keep the games of a version's check (inside the caller's transaction): each says
        the limits it was played under."""
        self.conn.executemany("INSERT INTO check_records VALUES (?, ?)",
                              [(submission_id, r.to_json()) for r in records])

    def check_records(self, submission_id: int) -> list[GameRecord]:
        """The games of a version's checks, oldest first ([] for a check before they were
        kept)."""
        rows = self.conn.execute("SELECT record FROM check_records WHERE submission_id=? "
                                 "ORDER BY rowid", (submission_id,))
        return [GameRecord.from_dict(json.loads(r[0])) for r in rows]

    def submission_files(self, submission_id: int) -> list[tuple[str, bytes]]:
        rows = self.conn.execute("SELECT name, data FROM files WHERE submission_id=?",
                                 (submission_id,))
        return [(r[0], bytes(r[1])) for r in rows]

    def freeze(self) -> None:
        with self.conn:
            # the first freeze is the cut: pressing it again does not move it
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('frozen', ?)",
                              (str(now_s()),))

    @property
    def frozen_at(self) -> float | None:
        """When the admin froze the league (Freeze, `freeze`); None if they did not."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='frozen'").fetchone()
        return float(row[0]) if row is not None else None

    @property
    def frozen(self) -> bool:
        """Frozen by the admin, or by the deadline (league.yaml's `deadline`) having passed."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='frozen'").fetchone()
        return row is not None or self.deadline_passed()

    @property
    def cut_at(self) -> float | None:
        """When the league froze (the admin's Freeze, or the deadline, whichever came first);
        None while it is not frozen. Every version uploaded before it is checked, and the one
        of each student that passed last is their entry in the final (`pending_at_cut`)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='frozen'").fetchone()
        times = [float(row[0])] if row is not None else []
        if self.deadline_passed() and self.config.file.deadline_ts is not None:
            times.append(self.config.file.deadline_ts)
        return min(times) if times else None

    def cut_of(self, user: str, now: float | None = None) -> float | None:
        """`user`'s own cut: the admin's Freeze, or their own deadline (their extension, else
        the league's) once it has passed, whichever came first; None while they may still
        upload. Their entry in the final is a version uploaded before it."""
        times = [t for t in (self.frozen_at,) if t is not None]
        deadline = self.config.deadline_for(user)
        if deadline is not None and self.deadline_passed(now, user):
            times.append(deadline)
        return min(times) if times else None

    def extensions_running(self, now: float | None = None) -> list[tuple[str, float]]:
        """(user, their deadline) of the extensions still running (not passed, no Freeze),
        of users not disabled: the final waits for them."""
        if self.frozen_at is not None:
            return []
        out = {u.name for u in self.users() if u.disabled}
        return [(user, ts) for user, ts in self.config.extensions
                if user not in out and self.cut_of(user, now) is None]

    def pending_at_cut(self) -> list[Submission]:
        """The versions uploaded before their author's cut (`cut_of`: the league's, or their
        extension's) whose check has not ended yet (queued or being checked), of users not
        disabled: the final waits for them. [] when the league is not frozen."""
        if self.cut_at is None:
            return []
        rows = self.conn.execute(
            f"SELECT {self._COLS} FROM submissions WHERE status IN {_marks(_UNCHECKED)} "
            f"AND user NOT IN (SELECT name FROM users WHERE disabled=1) "
            f"ORDER BY id", _UNCHECKED)
        cuts: dict[str, float | None] = {}
        pending = []
        for sub in map(_submission, rows):
            if sub.user not in cuts:
                cuts[sub.user] = self.cut_of(sub.user)
            cut = cuts[sub.user]
            if cut is not None and sub.created_at <= cut:
                pending.append(sub)
        return pending

    def deadline_passed(self, now: float | None = None, user: str | None = None) -> bool:
        """Whether the league's deadline (`user`'s own, given one: their extension) has
        passed."""
        deadline = self.config.deadline_for(user)
        return deadline is not None and (now_s() if now is None else now) >= deadline

    # the final's entry each student chose (`arena.league.entries`)
    def entry_choice(self, user: str) -> int | None:
        """The version `user` chose as their final entry (a submission id), None if none."""
        row = self.conn.execute("SELECT submission_id FROM entry_choices WHERE user=?",
                                (user,)).fetchone()
        return int(row[0]) if row is not None else None

    def store_entry_choice(self, user: str, submission_id: int, by: str) -> None:
        """Keep `submission_id` as `user`'s chosen entry (chosen by `by`, now); the caller
        checks it may be chosen (`arena.league.entries.choose_entry`), in its transaction."""
        self.conn.execute("INSERT OR REPLACE INTO entry_choices VALUES (?,?,?,?)",
                          (user, submission_id, by[:100], time.time()))

    def disable(self, submission_id: int) -> None:
        """Take a version out (of the rating games, the leaderboard and the final's entries):
        its author's latest other passed version is their entry again. `enable` undoes it."""
        with self.conn:
            self.conn.execute("UPDATE submissions SET disabled_from=status, status=:off "
                              "WHERE id=:id AND status != :off",
                              {"off": Status.DISABLED, "id": submission_id})
            self._forget_snapshot()

    def enable(self, submission_id: int) -> None:
        """Undo `disable`: the version's status is again what it was (a check that was queued
        or running is queued again)."""
        with self.conn:
            self.conn.execute(
                "UPDATE submissions SET status=CASE WHEN disabled_from IN ('', :checking) "
                "THEN :queued ELSE disabled_from END, disabled_from='' "
                "WHERE id=:id AND status=:off",
                {"checking": Status.CHECKING, "queued": Status.QUEUED, "off": Status.DISABLED,
                 "id": submission_id})
            self._forget_snapshot()

    def _forget_snapshot(self) -> None:
        """Who takes part changed (an admin's act): the frozen leaderboard is made again, by
        the same rule, at its next read (`arena.league.standings.leaderboard`)."""
        self.conn.execute("DELETE FROM meta WHERE key='frozen_leaderboard'")

    # the audit log of the admins' acts
    def audit(self, admin: str, action: str, target: str, detail: str = "") -> None:
        """Record one admin act (who, what, on what, in words); bounded in length."""
        with self.conn:
            self.conn.execute("INSERT INTO audit (at, admin, action, target, detail) "
                              "VALUES (?,?,?,?,?)", (time.time(), admin[:100], action[:60],
                                                     target[:200], detail[:1000]))

    def audit_log(self, limit: int = 200) -> list[AuditEntry]:
        """The admins' acts, newest first."""
        rows = self.conn.execute("SELECT at, admin, action, target, detail FROM audit "
                                 "ORDER BY id DESC LIMIT ?", (limit,))
        return [AuditEntry(*r) for r in rows]

    # the leases of rating pairs (`arena.league.worker`)
    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """One write transaction, taken at once (BEGIN IMMEDIATE): committed when the block
        ends, rolled back when it raises (`Rollback` rolls back quietly)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except Rollback:
            self.conn.execute("ROLLBACK")
            return
        except BaseException:
            with contextlib.suppress(Exception):
                self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def leases(self) -> list[Lease]:
        """The pairs being played, oldest first."""
        return [Lease(*r) for r in self.conn.execute(
            "SELECT id, side_a, side_b, board, holder, started_at FROM leases ORDER BY id")]

    def has_lease(self, lease_id: int) -> bool:
        return self.conn.execute("SELECT 1 FROM leases WHERE id=?",
                                 (lease_id,)).fetchone() is not None

    def add_lease(self, side_a: str, side_b: str, board: str, number: int,
                  holder: str) -> int:
        """Lease a pair to `holder` (inside the caller's `write_lock`); its id."""
        cur = self.conn.execute(
            "INSERT INTO leases (side_a, side_b, board, number, holder, started_at) "
            "VALUES (?,?,?,?,?,?)", (side_a, side_b, board, number, holder, time.time()))
        return int(cur.lastrowid or 0)

    def delete_leases(self, lease_ids: list[int], *, in_lock: bool = False) -> None:
        """Give leases back (their pairs are chosen again); `in_lock`: inside the caller's
        `write_lock`, else in a transaction of its own."""
        rows = [(i,) for i in lease_ids]
        if in_lock:
            self.conn.executemany("DELETE FROM leases WHERE id=?", rows)
            return
        with self.conn:
            self.conn.executemany("DELETE FROM leases WHERE id=?", rows)

    def disabled_from(self) -> dict[int, str]:
        """Each disabled version's status before it was disabled (submission id -> status)."""
        return dict(self.conn.execute("SELECT id, disabled_from FROM submissions WHERE status=?",
                                      (Status.DISABLED,)).fetchall())

    # what the rating games' pairing reads (`arena.league.worker.plan_next`)
    def pair_counts(self) -> Counter[frozenset[str]]:
        """The game pairs between two entries, played or in flight: a finished pair is its
        two stored games, a pair in flight its lease."""
        counts: Counter[frozenset[str]] = Counter()
        for a, b, n in self.conn.execute("SELECT side_a, side_b, COUNT(*) FROM games "
                                         "GROUP BY side_a, side_b"):
            counts[frozenset((a, b))] += n
        for key in counts:
            counts[key] //= 2
        for a, b in self.conn.execute("SELECT side_a, side_b FROM leases"):
            counts[frozenset((a, b))] += 1
        return counts

    def busy_entries(self) -> frozenset[str]:
        """The entries in a pair being played now (one that has a lease)."""
        busy: set[str] = set()
        for a, b in self.conn.execute("SELECT side_a, side_b FROM leases"):
            busy.update((a, b))
        return frozenset(busy)

    def unchecked_count(self) -> int:
        """How many versions wait for their check or are being checked."""
        (count,) = self.conn.execute(
            f"SELECT COUNT(*) FROM submissions WHERE status IN {_marks(_UNCHECKED)}",
            _UNCHECKED).fetchone()
        return int(count)

    def games_mark(self) -> tuple[int, int]:
        """(how many games are stored, the newest one's id): it changes whenever a game is
        stored (ids only grow), so a result computed from the games can be kept until then."""
        count, newest = self.conn.execute("SELECT COUNT(*), MAX(id) FROM games").fetchone()
        return int(count), int(newest or 0)

    def entries_mark(self) -> tuple[Any, ...]:
        """Who takes part, as it stands: the (id, user, state) of every version that passed
        its check and is not disabled, and the disabled users. It changes when a version
        passes its check, is disabled or enabled, or a user is taken out or let back in; not
        while a version waits for its check or fails it."""
        passed = (*CURRENT, Status.SUPERSEDED)
        versions = tuple(self.conn.execute(
            f"SELECT id, user, status FROM submissions WHERE status IN "
            f"({', '.join('?' * len(passed))}) ORDER BY id", [str(s) for s in passed]))
        out = tuple(r[0] for r in self.conn.execute("SELECT name FROM users WHERE disabled=1 "
                                                    "ORDER BY name"))
        return versions, out

    def pairing_mark(self) -> tuple[Any, ...]:
        """Everything the rating games' pairing reads, in one snapshot: the games, who takes
        part and the pairs in flight. Equal marks mean the same plan, so a pair planned
        outside the write lock can be leased inside it if the mark has not moved since."""
        own = not self.conn.in_transaction
        if own:  # one read transaction: the three parts are of the same moment
            self.conn.execute("BEGIN")
        try:
            leases = tuple(self.conn.execute("SELECT id, side_a, side_b FROM leases "
                                             "ORDER BY id"))
            return self.games_mark(), self.entries_mark(), leases
        finally:
            if own:
                self.conn.execute("COMMIT")

    # the rating games and their records (`arena.league.standings`, `arena.league.rating`)
    def add_game(self, side_a: str, side_b: str, board: str, score_a: float, reason: str,
                 faulted: str, record: GameRecord | None) -> int:
        """Insert a `games` row as given, and the record when given, inside the caller's
        transaction; its id. The rating games are stored through `LeagueGames.add`, which
        derives the row from the record; this writes rows no record stands behind (scores
        alone, as fixtures and benchmarks set a league up)."""
        cur = self.conn.execute(
            "INSERT INTO games (side_a, side_b, board, score_a, reason, faulted, finished_at)"
            " VALUES (?,?,?,?,?,?,?)",
            (side_a, side_b, board, score_a, reason, faulted, now_s()))
        game_id = int(cur.lastrowid or 0)
        if record is not None:
            self.conn.execute("INSERT INTO game_records VALUES (?, ?)",
                              (game_id, record.to_json()))
        return game_id

    def game_sides(self, game_id: int) -> tuple[str, str] | None:
        """(side A, side B) of a stored game, None when unknown."""
        row = self.conn.execute("SELECT side_a, side_b FROM games WHERE id=?",
                                (int(game_id),)).fetchone()
        return (row[0], row[1]) if row else None

    def sides_played_until(self, cut: float) -> set[str]:
        """The sides of every game that ended at or before `cut`."""
        played: set[str] = set()
        for a, b in self.conn.execute("SELECT side_a, side_b FROM games WHERE finished_at "
                                      "<= ?", (cut,)):
            played.update((a, b))
        return played

    def game_scores(self, cut: float | None) -> list[tuple[str, str, float, str]]:
        """(side A, side B, side A's score, who faulted) of every stored game (of those that
        ended at or before `cut`, given one), in the table's order."""
        if cut is None:
            rows: list[tuple[str, str, float, str]] = self.conn.execute(
                "SELECT side_a, side_b, score_a, faulted FROM games").fetchall()
        else:
            rows = self.conn.execute("SELECT side_a, side_b, score_a, faulted FROM games "
                                     "WHERE finished_at <= ?", (cut,)).fetchall()
        return rows

    def games_with(self, side: str) -> list[GameRow]:
        """The stored games `side` played, newest first."""
        return [GameRow(*r) for r in self.conn.execute(
            "SELECT id, side_a, side_b, board, score_a, reason, finished_at FROM games"
            " WHERE side_a=? OR side_b=? ORDER BY id DESC", (side, side)).fetchall()]

    def games_with_analyses(self, sides: list[str]) -> list[tuple[GameRow, str | None]]:
        """The stored games any of `sides` played, newest first, each with its cached
        analysis (`arena.league.analysis`; JSON, None when it has none)."""
        marks = ",".join("?" * len(sides))
        rows = self.conn.execute(
            f"SELECT g.id, g.side_a, g.side_b, g.board, g.score_a, g.reason, g.finished_at, "
            f"a.json FROM games g LEFT JOIN analyses a ON a.game_id = g.id "
            f"WHERE g.side_a IN ({marks}) OR g.side_b IN ({marks}) ORDER BY g.id DESC",
            sides + sides).fetchall()
        return [(GameRow(*r[:7]), r[7]) for r in rows]

    def games_between(self, me: str, other: str) -> list[tuple[str, str, float]]:
        """(side A, board, side A's score) of the games between `me` and `other`, oldest
        first."""
        rows: list[tuple[str, str, float]] = self.conn.execute(
            "SELECT side_a, board, score_a FROM games WHERE (side_a=? AND side_b=?) OR "
            "(side_a=? AND side_b=?) ORDER BY id", (me, other, other, me)).fetchall()
        return rows

    def pair_leased(self, me: str, other: str) -> bool:
        """Whether a pair of `me` against `other` (either side first) is being played."""
        return bool(self.conn.execute("SELECT 1 FROM leases WHERE (side_a=? AND side_b=?) OR "
                                      "(side_a=? AND side_b=?)",
                                      (me, other, other, me)).fetchone())

    # the frozen leaderboard (`arena.league.standings.leaderboard`)
    def frozen_leaderboard(self) -> str | None:
        """The frozen leaderboard as kept (JSON), None when there is none."""
        row = self.conn.execute("SELECT value FROM meta WHERE key=?",
                                (SNAPSHOT_KEY,)).fetchone()
        return None if row is None else str(row[0])

    def keep_frozen_leaderboard(self, text: str) -> None:
        """Keep the frozen leaderboard (JSON), in a transaction of its own; one kept first
        stays."""
        with self.conn:
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (SNAPSHOT_KEY, text))

    def forget_frozen_leaderboard(self) -> None:
        """Drop the frozen leaderboard, in a transaction of its own."""
        with self.conn:
            self.conn.execute("DELETE FROM meta WHERE key=?", (SNAPSHOT_KEY,))

    # the final (`arena.league.final`, `arena.league.entries`)
    def final_started(self) -> bool:
        """Whether the final has started (its entries are kept)."""
        return self.conn.execute(
            "SELECT 1 FROM meta WHERE key='final_entries'").fetchone() is not None

    def final_entries(self) -> list[tuple[str, int]] | None:
        """The (user, submission id) the final was started with, None before it started."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='final_entries'").fetchone()
        if row is None:
            return None
        return [(str(u), int(s)) for u, s in json.loads(row[0])]

    def keep_final_entries(self, entries: list[tuple[str, int]]) -> None:
        """Keep the final's entries (user, submission id), in a transaction of its own."""
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('final_entries', ?)",
                              (json.dumps(entries),))

    # the analyses of lost games (`arena.league.analysis`)
    def analysis_json(self, game_id: int) -> str | None:
        """A game's cached analysis (JSON), None when it has none."""
        row = self.conn.execute("SELECT json FROM analyses WHERE game_id=?",
                                (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def store_analysis(self, game_id: int, text: str) -> None:
        """Cache a game's analysis (JSON), in a transaction of its own."""
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO analyses (game_id, json, created_at) "
                              "VALUES (?,?,?)", (game_id, text, time.time()))

    # the queue of checks (`arena.league.checks`)
    def next_queued(self) -> int | None:
        """The version whose check comes next (users take turns, none with a check running:
        `_NEXT_QUEUED`)."""
        row = self.conn.execute(_NEXT_QUEUED, _STATES).fetchone()
        return None if row is None else int(row[0])

    def mark_checking(self, submission_id: int) -> bool:
        """Mark a queued version "checking" (inside the caller's transaction) unless it is no
        longer queued or its user has a check running; whether it was marked."""
        cur = self.conn.execute(
            "UPDATE submissions SET status=:checking, check_started_at=:now "
            "WHERE id=:id AND status=:queued AND NOT EXISTS (SELECT 1 FROM submissions "
            "AS c WHERE c.user = submissions.user AND c.status = :checking)",
            {**_STATES, "now": time.time(), "id": submission_id})
        return cur.rowcount == 1

    def requeue_checking(self) -> int:
        """Queue again every version left "checking", in a transaction of its own; how
        many."""
        with self.conn:
            return self.conn.execute(
                "UPDATE submissions SET status=:queued WHERE status=:checking", _STATES
            ).rowcount

    def store_verdict(self, submission_id: int, status: Status, summary: str, stderr: str,
                      records: list[GameRecord] | None = None) -> bool:
        """Store the verdict of a version still "checking", and its check's games, in a
        transaction of its own; False when it is not "checking"."""
        with self.conn:
            cur = self.conn.execute(
                "UPDATE submissions SET status=?, check_summary=?, check_stderr=? "
                "WHERE id=? AND status=?",
                (status, summary, stderr, submission_id, Status.CHECKING))
            if cur.rowcount == 1 and records:
                self.add_check_records(submission_id, records)
        return cur.rowcount == 1


#: the entry of a league game's record (`GameRecord.extra`) that names its two sides as the
#: league keys them: ``sub:ID`` for a version, a reference bot's SPEC; the side that moved
#: first first. Records stored before it was written do not have it (their sides are in
#: their `games` row).
SIDES = "sides"


def with_sides(record: GameRecord, side_a: str, side_b: str) -> GameRecord:
    """`record` labelled with its sides as the league keys them (`SIDES`; `side_a` moved
    first): what `LeagueGames.add` stores it under."""
    return record.labelled(extra={**record.extra, SIDES: [side_a, side_b]})


def game_row(record: GameRecord) -> tuple[str, str, str, float, str, str]:
    """The `games` row of a league game, from its record alone: (side A, side B, board, side
    A's score, reason, who faulted). The sides are the record's `SIDES`; the board as the
    tables name it (``6x7x4``, ``othello size=8``: `GameRecord.game_label`); side A's score
    1, 1/2 or 0 by the record's winner (a fault is its author's loss); who faulted the side
    that did ("" when no side faulted). ValueError for a record that does not name its
    sides."""
    sides = record.extra.get(SIDES)
    if (not isinstance(sides, (list, tuple)) or len(sides) != 2
            or not all(isinstance(x, str) and x for x in sides)):
        raise ValueError("a league game's record names its two sides (`with_sides`)")
    side_a, side_b = str(sides[0]), str(sides[1])
    score = 1.0 if record.winner == 1 else 0.0 if record.winner == 2 else 0.5
    faulted = {1: side_a, 2: side_b}.get(record.offender or 0, "") if record.is_fault else ""
    return side_a, side_b, record.game_label, score, record.reason.value, faulted


_READ_GAME = ("SELECT g.id, g.side_a, g.side_b, r.record FROM games g "
              "JOIN game_records r ON r.game_id = g.id")


class LeagueGames:
    """A league's rating games through the one store API of finished games
    (`arena.results.store.GameStore`), over its `games` and `game_records` tables.

    A stored game's id is its `games` row's id, as text; its `player1` and `player2` are its
    sides as the league keys them (side A moved first), its `round` 0. `add` writes inside
    the caller's transaction, as every write of the league's games does (a worker's
    `League.write_lock`, which also gives the pair's lease back). `games` yields the games
    that have their record (every game stored since records were kept); `count` counts every
    stored game. The hot paths (the standings' scores, the pairing's counts) read the
    `games` columns through `League`, not the records."""

    def __init__(self, league: League) -> None:
        self.conn = league.conn

    def insert(self, record: GameRecord) -> int | None:
        """Store one finished game: its `games` row from the record alone (`game_row`) and
        the record; the new row's id. None (nothing stored) when a game of the same sides,
        board and `game_id` is stored already."""
        if not record.game_id:
            raise ValueError("a stored game needs its game_id label")
        row = game_row(record)
        if self.conn.execute(
                "SELECT 1 FROM games g JOIN game_records r ON r.game_id = g.id WHERE "
                "g.side_a=? AND g.side_b=? AND g.board=? AND "
                "json_extract(r.record, '$.game_id')=?",
                (*row[:3], record.game_id)).fetchone():
            return None
        cur = self.conn.execute(
            "INSERT INTO games (side_a, side_b, board, score_a, reason, faulted, finished_at)"
            " VALUES (?,?,?,?,?,?,?)", (*row, now_s()))
        game_id = int(cur.lastrowid or 0)
        self.conn.execute("INSERT INTO game_records VALUES (?, ?)", (game_id, record.to_json()))
        return game_id

    def add(self, record: GameRecord) -> bool:
        """Store one finished game (`insert`); False when it was stored already."""
        return self.insert(record) is not None

    def game(self, game_id: str) -> StoredGame | None:
        """The stored game `game_id` (a row id as text), or None (also when it has no
        record in `game_records`)."""
        if not re.fullmatch(r"[0-9]{1,18}", game_id):
            return None
        row = self.conn.execute(f"{_READ_GAME} WHERE g.id=?", (int(game_id),)).fetchone()
        return None if row is None else _league_game(row)

    def games(self, newest: int | None = None) -> Iterator[StoredGame]:
        """Every stored game that has its record, oldest first; only the `newest` so many
        when given."""
        if newest is None:
            rows = self.conn.execute(f"{_READ_GAME} ORDER BY g.id").fetchall()
        else:
            rows = self.conn.execute(
                f"SELECT * FROM ({_READ_GAME} ORDER BY g.id DESC LIMIT ?) ORDER BY id",
                (int(newest),)).fetchall()
        for row in rows:  # read at once: no statement stays open while the caller writes
            yield _league_game(row)

    def record_texts(self, board: str | None = None) -> Iterator[tuple[str, str, str, str]]:
        """(side A, side B, board as ``MxNxK``, the record's JSON text, unparsed) of every
        stored game that has its record, oldest first; of `board` only when given. Read as
        the caller iterates (for the similarity's reads of a whole league's games), so the
        caller writes nothing on this connection before it is done."""
        where, args = ("", ()) if board is None else (" WHERE g.board=?", (board,))
        cur = self.conn.execute(
            "SELECT g.side_a, g.side_b, g.board, r.record FROM games g "
            f"JOIN game_records r ON r.game_id = g.id{where} ORDER BY g.id", args)
        for side_a, side_b, board_text, text in cur:
            yield str(side_a), str(side_b), str(board_text), str(text)

    def count(self) -> int:
        """How many rating games are stored."""
        (count,) = self.conn.execute("SELECT COUNT(*) FROM games").fetchone()
        return int(count)


def _league_game(row: tuple[Any, ...]) -> StoredGame:
    game_id, side_a, side_b, raw = row
    return StoredGame(str(game_id), 0, str(side_a), str(side_b),
                      GameRecord.from_dict(json.loads(raw)))


def _is_a_game_store(games: LeagueGames) -> GameStore:
    """(For mypy: a league's rating games are a `GameStore`.)"""
    return games
