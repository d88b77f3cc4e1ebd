"""League state in DIR/league.sqlite: users (scrypt-hashed secrets) and submitted versions."""

from __future__ import annotations

import hashlib
import hmac
import io
import secrets
import sqlite3
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from arena.league.config import LeagueConfig, parse_config

__all__ = ["League", "LeagueError", "Submission", "UploadError", "User"]

DB_NAME = "league.sqlite"
MAX_ARCHIVE_ENTRIES = 200
MAX_UNPACKED_BYTES = 10_000_000
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}

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
CREATE TABLE IF NOT EXISTS leases (
  id INTEGER PRIMARY KEY AUTOINCREMENT, side_a TEXT NOT NULL, side_b TEXT NOT NULL,
  board TEXT NOT NULL, number INTEGER NOT NULL, holder TEXT NOT NULL, started_at REAL NOT NULL);
"""



def check_user_name(name: str) -> None:
    """LeagueError unless `name` is a usable account name."""
    if not name or not name.replace("_", "").replace("-", "").replace(".", "").isalnum():
        raise LeagueError(f"user name {name!r}: use letters, digits, '_', '-' or '.'")

class LeagueError(Exception):
    """A league folder that cannot be used (missing, not a league), with what to do."""


class UploadError(ValueError):
    """An upload refused: too big, a bad archive, an unknown type, a disabled user."""


@dataclass(frozen=True)
class User:
    name: str
    admin: bool
    created_at: float


@dataclass(frozen=True)
class Submission:
    id: int
    user: str
    version: int
    kind: str
    filename: str
    created_at: float
    fingerprint: str
    status: str
    check_summary: str
    check_stderr: str


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

    @classmethod
    def init(cls, directory: Path, config_path: Path | None = None) -> League:
        directory = Path(directory)
        if (directory / DB_NAME).exists():
            raise LeagueError(f"{directory} already holds a league ({DB_NAME}); use it as it is")
        try:
            text = "" if config_path is None else Path(config_path).read_text(encoding="utf-8")
            parse_config(text, str(config_path))
        except (OSError, ValueError) as exc:
            raise LeagueError(str(exc)) from exc
        directory.mkdir(parents=True, exist_ok=True)
        league = cls(directory)
        with league.conn:
            league.conn.executescript(_SCHEMA)
            league.conn.execute("INSERT INTO meta VALUES ('config', ?)", (text,))
        return league

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
            self._config = parse_config(row[0] if row else "", f"{self.dir}/{DB_NAME}")
        return self._config

    # accounts
    def add_user(self, name: str, admin: bool = False) -> str:
        check_user_name(name)
        if self.user(name) is not None:
            raise LeagueError(f"user {name!r} exists; use reset_secret to give a new secret")
        secret = secrets.token_urlsafe(12)
        salt = secrets.token_bytes(16)
        with self.conn:
            self.conn.execute("INSERT INTO users VALUES (?,?,?,?,?)",
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
                self.conn.execute("INSERT INTO users VALUES (?,?,?,?,?)",
                                  (name, 0, salt, _hash(secret, salt), time.time()))
                created.append((name, secret))
        return created

    def reset_secret(self, name: str) -> str:
        if self.user(name) is None:
            raise LeagueError(f"no user {name!r}")
        secret = secrets.token_urlsafe(12)
        salt = secrets.token_bytes(16)
        with self.conn:
            self.conn.execute("UPDATE users SET salt=?, hash=? WHERE name=?",
                              (salt, _hash(secret, salt), name))
        return secret

    def verify_login(self, name: str, secret: str) -> User | None:
        row = self.conn.execute("SELECT salt, hash FROM users WHERE name=?", (name,)).fetchone()
        if row is None:
            _hash(secret, b"0" * 16)  # same cost for unknown names
            return None
        if not hmac.compare_digest(_hash(secret, row[0]), row[1]):
            return None
        return self.user(name)

    def user(self, name: str) -> User | None:
        row = self.conn.execute("SELECT name, admin, created_at FROM users WHERE name=?",
                                (name,)).fetchone()
        return User(row[0], bool(row[1]), row[2]) if row else None

    def users(self) -> list[User]:
        rows = self.conn.execute("SELECT name, admin, created_at FROM users ORDER BY name")
        return [User(r[0], bool(r[1]), r[2]) for r in rows]

    # uploads
    def submit(self, user: str, files: list[tuple[str, bytes]],
               kind: str | None = None) -> Submission:
        if self.user(user) is None:
            raise UploadError(f"no user {user!r}")
        if self.frozen:
            raise UploadError("the league is frozen: no new versions are accepted")
        size = sum(len(d) for _, d in files)
        cap = self.config.max_upload_bytes
        if size > cap:
            raise UploadError(f"upload is {size} bytes; the limit is {cap}")
        for name, _ in files:
            if "/" in name or "\\" in name or name in ("", ".", ".."):
                raise UploadError(f"file name {name!r} must be a plain name")
        kind = _detect_kind(files, kind)
        if kind in ("jar", "java-zip"):
            _check_archive(files[0][1])
        digest = hashlib.sha256()
        for name, data in sorted(files):
            digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        with self.conn:
            (version,) = self.conn.execute(
                "SELECT COALESCE(MAX(version), 0) + 1 FROM submissions WHERE user=?",
                (user,)).fetchone()
            cur = self.conn.execute(
                "INSERT INTO submissions (user, version, kind, filename, created_at, fingerprint,"
                " status) VALUES (?,?,?,?,?,?,'queued')",
                (user, version, kind, ", ".join(n for n, _ in files), time.time(),
                 digest.hexdigest()[:16]))
            sid = cur.lastrowid
            self.conn.executemany("INSERT INTO files VALUES (?,?,?)",
                                  [(sid, n, d) for n, d in files])
        result = self.submission(int(sid or 0))
        assert result is not None
        return result

    # queries
    _COLS = ("id, user, version, kind, filename, created_at, fingerprint, status,"
             " check_summary, check_stderr")

    def submissions(self, user: str | None = None) -> list[Submission]:
        if user is None:
            rows = self.conn.execute(f"SELECT {self._COLS} FROM submissions ORDER BY id")
        else:
            rows = self.conn.execute(
                f"SELECT {self._COLS} FROM submissions WHERE user=? ORDER BY id", (user,))
        return [Submission(*r) for r in rows]

    def submission(self, submission_id: int) -> Submission | None:
        row = self.conn.execute(f"SELECT {self._COLS} FROM submissions WHERE id=?",
                                (submission_id,)).fetchone()
        return Submission(*row) if row else None

    def submission_files(self, submission_id: int) -> list[tuple[str, bytes]]:
        rows = self.conn.execute("SELECT name, data FROM files WHERE submission_id=?",
                                 (submission_id,))
        return [(r[0], bytes(r[1])) for r in rows]

    def freeze(self) -> None:
        with self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('frozen', ?)",
                              (str(time.time()),))

    @property
    def frozen(self) -> bool:
        row = self.conn.execute("SELECT value FROM meta WHERE key='frozen'").fetchone()
        return row is not None

    def disable(self, submission_id: int) -> None:
        with self.conn:
            self.conn.execute("UPDATE submissions SET status='disabled' WHERE id=?",
                              (submission_id,))
