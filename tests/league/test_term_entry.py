"""The league for a term (issue 40, point 2): each student chooses their final entry among their
passed versions until their own deadline; per-student extensions (league.yaml `extensions:`)
move that student's deadline and cut, and the final waits for them; the submit page says how
many uploads are left today.

The web parts run against the real server (`cxarena league serve`, over HTTP): the choice by
its owner (CSRF-checked, refused to anyone else and after the cut), the fallback when an admin
disables the chosen version, an extension applied mid-term by the running server, the student
with an extension uploading after the league's deadline while the others are refused, and the
final started by the deadline only once the extension has passed and its check has ended."""

from __future__ import annotations

import datetime
import html
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.league import League
from arena.league.clock import CLOCK_OFFSET_ENV, now_s, set_clock
from arena.league.config import parse_config
from arena.league.db import QuotaExceeded, UploadError, format_time, uploads_left_text
from arena.league.entries import EntryRefused, choose_entry, entry_of, pick_entry
from arena.league.final import entries, final_status, final_tournament, waiting_text
from arena.league.grades import grades_csv
from tests.helpers import wait_finished
from tests.league.helpers import Student, student, upload
from tests.league.web.server_proc import Server, start_server

ROOT = Path(__file__).resolve().parents[2]
L0 = (ROOT / "players" / "L0.py").read_bytes()
L1 = (ROOT / "players" / "L1.py").read_bytes()
BASE = ("boards: [[4, 4, 3]]\nfinal_board_set: [[4, 4, 3]]\ntimeout_s: 0.5\n"
        "reference_bots: [L0]\nisolation: false\nopening_plies: 0\npairs_per_submission: 1\n"
        "max_pairs_per_submission: 1\nmax_uploads_per_day: 5\njava: false\n")


def _iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t).astimezone().isoformat(timespec="seconds")


def _wait(cond: Callable[[], object], timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.3)
    return bool(cond())


def _text(page: str) -> str:
    """A page's text: tags dropped, entities read, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _league(tmp_path: Path, extra: str = "") -> tuple[Path, dict[str, str]]:
    """ann: v1 and v2 passed, v3 failed; bob: v1 passed."""
    cfg = tmp_path / "league.yaml"
    cfg.write_text(BASE + extra)
    d = tmp_path / "lg"
    lg = League.init(d, cfg)
    secrets = {n: lg.add_user(n, admin=(n == "teacher")) for n in ("teacher", "ann", "bob")}
    for code in (L0, L0 + b"# v2\n", L0 + b"# v3\n"):
        lg.submit("ann", [("bot.py", code)])
    lg.submit("bob", [("bot.py", L0)])
    with lg.conn:  # the checks are tested elsewhere
        lg.conn.execute("UPDATE submissions SET status='rating'")
        lg.conn.execute("UPDATE submissions SET status='failed' WHERE id=3")
    lg.conn.close()
    return d, secrets


@pytest.fixture
def serve() -> Iterator[list[Server]]:
    started: list[Server] = []
    yield started
    for server in started:
        server.stop()


def _choose(c: Student, sid: int, csrf: bool = True) -> tuple[int, str]:
    fields = {"csrf": c.csrf(f"/submissions/{sid}")} if csrf else {}
    status, text, _ = c.post(f"/submissions/{sid}/entry", fields)
    return status, text


def _move_clock(offset_file: Path, to: float) -> None:
    """Every process of the league (this one, its server, the final the server starts) reads
    `to` as the time of day now (`arena.league.clock.CLOCK_OFFSET_ENV`)."""
    new = offset_file.with_suffix(".new")
    new.write_text(repr(to - time.time()))
    os.replace(new, offset_file)


def test_students_choose_their_entry_over_http_and_extensions_move_the_cut(
        tmp_path: Path, serve: list[Server], monkeypatch: pytest.MonkeyPatch) -> None:
    """The server and what it starts read the league's clock from an offset file this test
    moves past the deadline and past bob's extension: no wall time is waited for."""
    offset_file = tmp_path / "clock-offset"
    monkeypatch.setenv(CLOCK_OFFSET_ENV, str(offset_file))  # here, and in the server
    d, secrets = _league(tmp_path, "final_at_deadline: false\n")
    server = start_server(d)
    serve.append(server)
    ann = student(server.url, "ann", secrets["ann"])
    bob = student(server.url, "bob", secrets["bob"])
    teacher = student(server.url, "teacher", secrets["teacher"])

    # the submit page: the entry (the latest passed), a button per passed version, the quota
    status, page, _ = ann.request("/submit")
    text = _text(page)
    assert status == 200 and "Your final entry: v2 (latest passed)." in text
    assert "2 of 5 uploads left today" in text
    assert page.count('action="/submissions/1/entry"') == 1  # v1: passed, not the entry
    assert 'action="/submissions/3/entry"' not in page  # v3 failed its check
    assert 'src="/static/admin.js"' in page  # the button asks before it acts
    assert re.search(r'<form[^>]*action="/submissions/1/entry"[^>]*data-confirm=', page)

    # ann chooses v1 (a POST with the session's CSRF token): the pages and the final say so
    assert _choose(ann, 1) == (303, "")
    status, page, _ = ann.request("/submissions/1")
    assert "Your final entry: v1 (chosen)." in _text(page)
    lg = League.open(d)
    assert dict(entries(lg)) == {"ann": 1, "bob": 4}
    # without the token: refused; another student's version: 403, nothing changes
    assert _choose(ann, 2, csrf=False)[0] == 403
    status, page = _choose(bob, 2)
    assert status == 403 and "not yours" in page
    assert _choose(teacher, 2)[0] == 403  # the teacher uses `cxarena league entry`
    assert _choose(ann, 99)[0] == 404
    status, page = _choose(ann, 3)  # failed its check
    assert status == 409 and "has not passed its check" in html.unescape(page)
    assert dict(entries(lg))["ann"] == 1
    assert "ann,no,3,2,1,1," in grades_csv(lg)  # entry_version, entry_submission_id

    # the teacher disables v1: ann's latest passed version enters, and her page says why
    status, page, _ = teacher.post("/admin/disable", {"csrf": teacher.csrf("/admin"),
                                                      "submission_id": "1"})
    assert status == 200
    text = _text(ann.request("/submit")[1])
    assert "Your final entry: v2 (latest passed)." in text
    assert "your choice, v1, was disabled by the teacher" in text
    assert dict(entries(lg))["ann"] == 2
    teacher.post("/admin/enable", {"csrf": teacher.csrf("/admin"), "submission_id": "1"})
    assert dict(entries(lg))["ann"] == 1

    # mid-term, the running server applies a deadline and bob's extension, logged
    deadline = time.time() + 3600
    extension = deadline + 3600
    (d / "league.yaml").write_text(BASE + f"deadline: '{_iso(deadline)}'\n"
                                   f"extensions: {{bob: '{_iso(extension)}'}}\n"
                                   f"final_at_deadline: true\n")
    # (this process reads league.yaml at once; the server applies it when it next looks,
    # and logs it: that is what is waited for)
    assert _wait(lambda: [a for a in League.open(d).audit_log() if a.action == "config"],
                 120), "".join(server.output)
    lg = League.open(d)
    read = lg.config.deadline_for("bob")  # as read: to the second
    assert read is not None
    extension = read
    log = [a for a in lg.audit_log() if a.action == "config"]
    assert log and log[0].admin == "serve" and "extensions: {} -> {bob: " in log[0].detail
    assert f"bob: extension until {format_time(extension)} (running)" in _text(
        teacher.request("/admin")[1])
    assert "your extension" in _text(bob.request("/submit")[1])  # his own deadline
    assert "your extension" not in _text(ann.request("/submit")[1])

    _move_clock(offset_file, deadline + 1)
    # the league's deadline has passed: ann's entry is fixed, her upload refused
    status, page = _choose(ann, 2)
    assert status == 409 and "can no longer change; it is v1 (chosen)" in html.unescape(page)
    status, page, _ = ann.upload("bot.py", L1)
    assert status == 400 and "the league's deadline" in html.unescape(page)
    # bob's extension runs: he uploads (his v2 enters: his latest passed before his cut)
    v2 = upload(bob, "bot.py", L1)
    text = _text(bob.request("/submit")[1])
    assert "Uploads close" in text and "your extension" in text
    assert "Waiting for the extensions still running (bob until" in waiting_text(lg)
    assert final_status(lg).state == "not started"

    # the extension passes: bob is refused; the final starts once his check has ended
    _move_clock(offset_file, extension + 1)
    assert _wait(lambda: final_status(League.open(d)).state != "not started", 240), \
        "".join(server.output)
    assert now_s() >= extension
    status, page, _ = bob.upload("bot.py", L0)
    assert status == 400 and "your extended deadline" in html.unescape(page)
    lg = League.open(d)
    assert lg.submission(v2).status == "rating"  # type: ignore[union-attr]
    assert dict(entries(lg)) == {"ann": 1, "bob": v2}
    players = {p.name: p.spec for p in final_tournament(lg).players}
    assert "/work/1-" in players["ann"] and f"/work/{v2}-" in players["bob"]
    assert wait_finished(d, 300) == "finished"
    assert "the final round robin has started" in _text(ann.request("/submit")[1])
    lg.conn.close()


def test_extensions_are_validated_as_the_deadline_is(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    d, _ = _league(tmp_path)
    later = "deadline: '2031-01-02T03:04:00+00:00'\n"
    bob_later = later + "extensions: {bob: '2031-01-05T00:00:00+00:00'}\n"
    # an unknown user: refused, naming them; nothing applied
    (d / "league.yaml").write_text(BASE + bob_later.replace("bob", "zed"))
    capsys.readouterr()
    assert main(["league", "config", str(d)]) == 2
    err = capsys.readouterr().err
    assert "extensions: no user 'zed'" in err and "nothing was changed" in err
    assert League.open(d).config.file.deadline_ts is None
    # a bad date, one not after the deadline, an extension without a deadline
    for text, said in (
            (later + "extensions: {bob: soon}\n", "extensions.bob: expected a date and time"),
            (later + "extensions: {bob: '2031-01-01T00:00:00+00:00'}\n",
             "is not after the deadline"),
            ("extensions: {bob: '2031-01-05T00:00:00+00:00'}\n", "extensions: need a deadline"),
            (later + "extensions: [bob]\n", "extensions: expected a mapping")):
        (d / "league.yaml").write_text(BASE + text)
        assert main(["league", "config", str(d)]) == 2
        assert said in capsys.readouterr().err, text
    # a good one: applied, shown and logged as a change
    (d / "league.yaml").write_text(BASE + bob_later)
    assert main(["league", "config", str(d)]) == 0
    assert "extensions: {} -> {bob: 2031-01-" in capsys.readouterr().out
    lg = League.open(d)
    utc = datetime.timezone.utc
    assert lg.config.deadline_for("bob") == datetime.datetime(2031, 1, 5, tzinfo=utc).timestamp()
    assert lg.config.deadline_for("ann") == lg.config.file.deadline_ts
    assert "extensions" in lg.audit_log()[0].detail
    # a new league has no accounts yet: init refuses them by name, and creates nothing
    cfg = tmp_path / "new.yaml"
    cfg.write_text(BASE + bob_later)
    assert main(["league", "init", str(tmp_path / "new"), "--config", str(cfg)]) == 2
    assert "extensions: no user 'bob'" in capsys.readouterr().err
    assert not (tmp_path / "new" / "league.sqlite").exists()


def test_the_cut_is_each_students_own(tmp_path: Path) -> None:
    """The league's clock (`arena.league.clock`) is set a minute before, then a second after
    the deadline: no wall time is waited for."""
    d, _ = _league(tmp_path)
    lg = League.open(d)
    now = time.time()
    lg.apply_config_file("test", BASE + f"deadline: '{_iso(now + 3600)}'\n"
                         f"extensions: {{bob: '{_iso(now + 7200)}'}}\n")
    deadline = lg.config.file.deadline_ts or 0.0
    with set_clock(lambda: deadline - 60):
        late_ann = lg.submit("ann", [("bot.py", L1)])  # queued before the deadline
        assert lg.cut_of("ann") is None and not lg.frozen
    with set_clock(lambda: deadline + 1):
        assert lg.cut_of("ann") == lg.config.file.deadline_ts and lg.cut_of("bob") is None
        assert lg.frozen and lg.cut_at == lg.config.file.deadline_ts  # the leaderboard's snapshot
        with pytest.raises(UploadError, match="the league's deadline"):
            lg.submit("ann", [("bot.py", L1)])
        late_bob = lg.submit("bob", [("bot.py", L1)])  # after the deadline: his extension
        # the final waits for the extension, and for ann's version queued before her cut
        assert [s.id for s in lg.pending_at_cut()] == [late_ann.id]
        assert lg.extensions_running() == [("bob", lg.config.deadline_for("bob"))]
        assert "bob until" in waiting_text(lg) and "(ann)" in waiting_text(lg)
        # the admin's Freeze is everyone's cut, extensions included
        lg.freeze()
        assert lg.cut_of("bob") is not None and lg.extensions_running() == []
        assert {s.id for s in lg.pending_at_cut()} == {late_ann.id, late_bob.id}
        with pytest.raises(UploadError, match="frozen"):
            lg.submit("bob", [("bot.py", L0)])
    lg.conn.close()


def test_entry_selection_and_the_teachers_choice(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    d, _ = _league(tmp_path)
    lg = League.open(d)
    ann = lg.submissions("ann")
    assert pick_entry(ann, None, None).submission_id == 2  # type: ignore[union-attr]
    assert pick_entry(ann, 1, None).text() == "v1 (chosen)"  # type: ignore[union-attr]
    assert pick_entry(ann, 3, None).text() == "v2 (latest passed)"  # type: ignore[union-attr]
    assert pick_entry(ann, 2, ann[0].created_at).submission_id == 1  # type: ignore[union-attr]
    assert pick_entry(ann[2:], None, None) is None  # only a failed version
    with pytest.raises(EntryRefused, match="has no version 7"):
        choose_entry(lg, "ann", 7, by="ann")
    # the teacher's `league entry`: prints the new entry, kept in the audit log
    capsys.readouterr()
    assert main(["league", "entry", str(d), "--user", "ann", "v1"]) == 0
    assert capsys.readouterr().out.strip() == "ann's final entry: v1 (chosen)"
    assert entry_of(lg, "ann").submission_id == 1  # type: ignore[union-attr]
    assert lg.audit_log()[0].action == "final entry"
    assert main(["league", "entry", str(d), "--user", "ann", "3"]) == 2
    assert "v3 has not passed its check" in capsys.readouterr().err
    assert main(["league", "entry", str(d), "--user", "ann", "x1"]) == 2
    assert "expected a version number" in capsys.readouterr().err
    # after the cut a student may not, the teacher may (until the final starts)
    lg.freeze()
    with pytest.raises(EntryRefused, match="can no longer change"):
        choose_entry(lg, "ann", 2, by="ann")
    assert main(["league", "entry", str(d), "--user", "ann", "2"]) == 0
    assert "ann,no,3,2,2,2," in grades_csv(lg)
    with lg.conn:
        lg.conn.execute("INSERT INTO meta VALUES ('final_entries', '[[\"ann\", 2]]')")
    assert main(["league", "entry", str(d), "--user", "ann", "1"]) == 2
    assert "the final round robin has started" in capsys.readouterr().err
    # the choice is a row of its own table (a league made before it gets it on opening)
    with sqlite3.connect(d / "league.sqlite") as c:
        assert c.execute("SELECT user, submission_id FROM entry_choices").fetchall() == [
            ("ann", 2)]
    lg.conn.close()


def test_uploads_left_today_and_the_deadline_first(tmp_path: Path) -> None:
    d, _ = _league(tmp_path)
    lg = League.open(d)
    now = time.time()
    assert uploads_left_text(lg, "ann", now).startswith("2 of 5 uploads left today")
    lg.apply_config_file("test", BASE.replace("max_uploads_per_day: 5", "max_uploads_per_day: 3"))
    first = lg.submissions("ann")[0].created_at
    text = uploads_left_text(lg, "ann", now)
    at = format_time(-(-(first + 24 * 3600) // 60) * 60)  # tomorrow: with its day
    assert text == f"0 of 3 uploads left today; the next one is allowed at {at}.", text
    later = first + 23.5 * 3600  # on the day it is allowed: the time alone, when it is today
    at_ts = -(-(first + 24 * 3600) // 60) * 60
    today = time.localtime(at_ts)[:3] == time.localtime(later)[:3]
    assert uploads_left_text(lg, "ann", later).endswith(
        f"allowed at {format_time(at_ts, day=not today)}.")
    # the deadline comes before the next allowed upload: say that uploads close then
    deadline = now + 3600
    lg.apply_config_file("test", BASE.replace("max_uploads_per_day: 5", "max_uploads_per_day: 3")
                         + f"deadline: '{_iso(deadline)}'\n")
    text = uploads_left_text(lg, "ann", now)
    assert "uploads close at the deadline" in text and "allowed at" not in text, text
    with pytest.raises(QuotaExceeded) as refused:
        lg.submit("ann", [("bot.py", L1)], quota=True)
    assert "uploads close at the deadline" in str(refused.value)
    assert " in 2" not in str(refused.value)  # never "the next is allowed in 23 h ..."
    lg.conn.close()


def test_a_parsed_extension_keeps_its_user_and_time() -> None:
    cfg = parse_config("deadline: 2026-12-18 23:59\nextensions: {alice: 2026-12-20 23:59}")
    assert cfg.extensions == (("alice", datetime.datetime(2026, 12, 20, 23, 59).timestamp()),)
    assert cfg.deadline_for("alice") > cfg.deadline_for("bob")  # type: ignore[operator]
