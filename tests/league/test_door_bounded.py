"""Bounded state (issue 36, item 6): the login limiter forgets names; an upload is unpacked
once, counted against the student's disk quota (over it: a 413 saying so), and the unpacked
folders of superseded versions go (their uploads stay); the admin page shows the disk use."""

from __future__ import annotations

import html
import io
import secrets as random_tokens
import zipfile
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.league import League
from arena.league.checks import WORK, materialise, prune_trees
from arena.league.disk import league_disk_use, tree_size
from arena.league.web.app import create_app
from arena.league.web.security import LOGIN_LIMITER_KEYS, LoginLimiter
from tests.league.web.conftest import L0, csrf_of


def zeros_zip(size: int, name: str = "Zero.java") -> bytes:
    """A zip of one entry of `size` zero bytes (a 10 MB entry packs into about 10 KB)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr(name, b"\0" * size)
    return buf.getvalue()


def make(tmp_path: Path, extra: str = "") -> tuple[Path, dict[str, str]]:
    cfg = tmp_path / "league.yaml"
    cfg.write_text("board_set: competition\ntimeout_s: 1\nreference_bots: [L0]\n"
                   "max_uploads_per_day: 1000\n" + extra)
    lg = League.init(tmp_path / "lg", cfg)
    users = {n: lg.add_user(n, admin=(n == "teacher")) for n in ("teacher", "ann", "bob")}
    lg.conn.close()
    return tmp_path / "lg", users


def client(d: Path, name: str, secret: str) -> tuple[TestClient, str]:
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    r = c.post("/login", data={"name": name, "secret": secret,
                               "csrf": csrf_of(c.get("/login").text)})
    assert r.status_code == 303, r.text
    return c, csrf_of(c.get("/").text)


# ---------------------------------------------------------------- the login limiter
def test_the_limiter_keeps_few_names_however_many_fail() -> None:
    now = [0.0]
    lim = LoginLimiter(max_failures=5, window_s=60, clock=lambda: now[0], max_keys=1000)
    for i in range(5000):
        name = random_tokens.token_hex(40)
        assert lim.retry_after_s(name) == 0.0
        lim.failed(name)
        now[0] += 0.001
    assert len(lim) <= 1000
    for _ in range(50):  # a real attack on one name is still limited
        lim.failed("ann")
    assert lim.retry_after_s("ann") > 0
    now[0] += 61  # a minute later every name is forgotten
    assert lim.retry_after_s("ann") == 0.0 and len(lim) == 0
    lim.failed("bob")
    assert len(lim) == 1


def test_checks_and_429s_make_no_entry() -> None:
    lim = LoginLimiter(max_failures=2, window_s=60)
    for i in range(100):
        lim.retry_after_s(f"user{i}")
    assert len(lim) == 0
    lim.failed("x")
    lim.succeeded("x")
    assert len(lim) == 0


def test_failed_logins_over_http_keep_the_limiter_small(tmp_path: Path) -> None:
    """Past the address's limit (20 failures) every attempt is refused before its name is
    counted: 60 attempts, each with a new name, leave at most 25 names (over twice the bound;
    1,000 leave the same, in 17 times the time). The bound on however many
    names fail is the limiter's own (`test_the_limiter_keeps_few_names_however_many_fail`)."""
    d, _ = make(tmp_path)
    c = TestClient(create_app(d), base_url="http://127.0.0.1", follow_redirects=False)
    token = csrf_of(c.get("/login").text)
    attempts = 60
    codes = {}
    for _ in range(attempts):
        r = c.post("/login", data={"name": random_tokens.token_hex(30), "secret": "guess",
                                   "csrf": token})
        codes[r.status_code] = codes.get(r.status_code, 0) + 1
    assert set(codes) == {401, 429} and codes[401] <= 25  # the address's own limit
    assert codes[429] >= attempts - 25
    names, addresses = c.app.state.login_limiters  # type: ignore[attr-defined]
    assert len(names) <= LOGIN_LIMITER_KEYS and len(names) <= 25, len(names)
    assert len(addresses) == 1


# ---------------------------------------------------------------- uploads and disk
def ids_folder(lg: League, sid: int) -> str:
    sub = lg.submission(sid)
    assert sub is not None
    return f"{sid}-{sub.fingerprint}"


def test_a_zip_bomb_is_refused_or_counted(tmp_path: Path) -> None:
    d, users = make(tmp_path, "disk_quota_mb: 15\n")
    c, token = client(d, "ann", users["ann"])
    big = zeros_zip(20_000_000)  # ~20 KB, 20 MB unpacked: over the archive's own limit
    r = c.post("/submit", files={"files": ("bot.zip", big)}, data={"csrf": token})
    assert r.status_code == 400 and "unpacks to 20000000 bytes" in r.text
    nine = zeros_zip(9_000_000)
    assert len(nine) < 20_000
    r = c.post("/submit", files={"files": ("bot.zip", nine)}, data={"csrf": token})
    assert r.status_code == 303  # counted: 9 MB of ann's 15 MiB
    lg = League.open(d)
    use = lg.disk_bytes("ann")
    assert 9_000_000 < use["unpacked"] < 9_100_000 and use["uploads"] == len(nine)
    lg.conn.close()
    r = c.post("/submit", files={"files": ("bot.zip", nine)}, data={"csrf": token})
    text = html.unescape(r.text)
    assert r.status_code == 413 and "quota is 15.0 MiB per student" in text, text
    assert "your versions already take 8.6 MiB" in text
    b, tb = client(d, "bob", users["bob"])  # bob's quota is his own
    assert b.post("/submit", files={"files": ("bot.zip", nine)},
                  data={"csrf": tb}).status_code == 303


def test_unpacked_once_and_superseded_trees_go(tmp_path: Path) -> None:
    """Each version unpacked once (the check and the workers share work/<id>-<fp>); after the
    checks, only the folders of versions in use stay, and their uploads are all kept."""
    d, users = make(tmp_path, "disk_quota_mb: 30\n")
    lg = League.open(d)
    bomb = zeros_zip(5_000_000, "connectx/Zero.java")
    ids = []
    for i in range(12):  # a zip that fails its check, then a good version, in turn
        sub = lg.submit("ann", [("bot.zip", bomb)] if i % 2 == 0 else
                        [("bot.py", L0.read_bytes() + f"\n# {i}\n".encode())], quota=True)
        ids.append(sub.id)
        folder = materialise(lg, sub.id)  # what the check does
        assert materialise(lg, sub.id) == folder  # once
        with lg.conn:
            lg.conn.execute("UPDATE submissions SET status=? WHERE id=?",
                            ("failed" if i % 2 == 0 else "rating", sub.id))
        prune_trees(lg)
        assert tree_size(d / WORK) <= 2 * (5_000_000 + len(bomb) + 20_000)
    kept = sorted(p.name.split("-")[0] for p in (d / WORK).iterdir())
    assert kept == sorted(str(i) for i in ids[-3::2])  # the current and the one before
    assert all(lg.submission_files(i) for i in ids)  # every upload kept
    from arena.league.worker import _entry  # a rating worker plays the same folder

    before = sorted((d / WORK).iterdir())
    assert _entry(lg, f"sub:{ids[-1]}", d / WORK, False).spec.startswith(str(d / WORK / ids_folder(
        lg, ids[-1])))
    assert sorted((d / WORK).iterdir()) == before
    use = league_disk_use(lg)
    assert use["areas"]["work"] == tree_size(d / WORK)
    assert use["students"][0]["user"] == "ann"
    assert use["students"][0]["total"] <= lg.config.disk_quota_bytes
    assert use["total"] >= use["areas"]["work"] + use["areas"]["database"]
    lg.conn.close()


def test_repeated_uploads_stay_within_the_quota(tmp_path: Path) -> None:
    d, users = make(tmp_path, "disk_quota_mb: 12\n")
    c, token = client(d, "ann", users["ann"])
    bomb = zeros_zip(4_000_000)
    codes = []
    for _ in range(10):
        r = c.post("/submit", files={"files": ("bot.zip", bomb)}, data={"csrf": token})
        codes.append(r.status_code)
    assert codes[:2] == [303, 303] and codes[-1] == 413  # queued versions are all in use
    lg = League.open(d)
    for sub in lg.submissions("ann"):
        materialise(lg, sub.id)
    assert sum(lg.disk_bytes("ann").values()) <= 12 * 1024 * 1024
    assert tree_size(d / WORK) <= 12 * 1024 * 1024
    with lg.conn:  # the checks failed them all: their folders go, the uploads stay
        lg.conn.execute("UPDATE submissions SET status='failed'")
    prune_trees(lg)
    assert tree_size(d / WORK) == 0
    lg.conn.close()
    assert c.post("/submit", files={"files": ("bot.zip", bomb)},
                  data={"csrf": token}).status_code == 303


def test_the_admin_page_shows_the_disk_use(tmp_path: Path) -> None:
    d, users = make(tmp_path)
    lg = League.open(d)
    lg.submit("ann", [("bot.py", L0.read_bytes())])
    materialise(lg, 1)
    lg.conn.close()
    c, _ = client(d, "teacher", users["teacher"])
    page = html.unescape(c.get("/admin").text)
    line = page.split('<p id="disk">', 1)[1].split("</p>", 1)[0]
    assert line.startswith("Disk: ") and "database" in line and "work" in line
    assert "most: ann" in line and "quota 100.0 MiB per student" in line


@pytest.mark.parametrize("bad", ["disk_quota_mb: 0", "check_workers: 0", "check_limit_s: -1"])
def test_bad_settings_are_refused(tmp_path: Path, bad: str) -> None:
    from arena.league.config import parse_config

    with pytest.raises(ValueError, match=bad.split(":")[0]):
        parse_config(bad)
