"""A term of the class league, walked for real, for docs/league.md's teacher's walkthrough:
``python -m tests.league.web.shots_term docs/`` (needs Chromium, Playwright and Dask's
distributed).

In a fresh folder, with the league's relative path as in the walkthrough: ``league init``,
``add-user --admin``, ``add-users`` from a roster CSV of ten students, their uploads (one bot
that fails its check, two students who never upload), the real server and its workers; the
teacher disables one student on their admin page; a mid-term change of league.yaml (more
uploads a day, a deadline two minutes ahead) applied with ``league config``; a late upload; the
roster on the admin page (docs/league-roster.png, and the admin page, docs/league-admin.png);
the deadline passes and freezes the league; the final's plan, then the final on a Dask cluster
(a LocalCluster of two worker processes) from the terminal; the grades, from the terminal and as
the teacher's browser gets /grades.csv (docs/league-grades.png). Every command's real output is
printed at the end (the transcript the docs quote)."""

from __future__ import annotations

import csv
import html
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from arena.league import League
from arena.league.entries import Status
from tests.league.web.server_proc import start_server

ROOT = Path(__file__).resolve().parents[3]

CONFIG = """\
boards: [[4, 5, 4], [5, 5, 4]]   # small boards, to keep the run short
timeout_s: 0.3
java: false                      # Python bots only (a fraction of a second)
reference_bots: [players.L0, players.L1]
pairs_per_submission: 2
max_pairs_per_submission: 4
max_uploads_per_day: 10
analysis_budget_s: 0
final_board_set: [[4, 5, 4]]
"""

#: the roster (name, email) and each student's uploads, in order
STUDENTS = {
    "ann": ["players/L1.py"], "bob": ["players/L0.py"], "cid": ["players/minimax.py"],
    "dan": ["tests/referee/zoo/raise_select.py"], "eve": ["players/alphabeta.py"],
    "fay": ["players/L1.py"], "gus": ["players/L0.py"], "hal": [],
    "ivy": ["players/montecarlo.py"], "jon": [],
}


class Term:
    """The folder of the term, and the transcript of its commands."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.transcript: list[str] = []

    def cxarena(self, *args: str, show: bool = True, check: bool = True) -> str:
        out = subprocess.run([sys.executable, "-m", "arena", *args], cwd=self.base,
                             capture_output=True, text=True, timeout=900,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        text = out.stdout + out.stderr
        if check and out.returncode != 0:
            raise RuntimeError(f"cxarena {' '.join(args)} failed:\n{text}")
        if show:
            self.transcript.append(f"$ cxarena {' '.join(args)}\n{text}")
        return text

    def note(self, line: str) -> None:
        self.transcript.append(line + "\n")


def _wait(what: str, probe, timeout_s: float = 600.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(1.0)
    raise RuntimeError(f"timed out waiting for {what}")


def _checked_and_played(d: Path, games_each: int) -> bool:
    """No version waits for its check, and every entry (of an account not disabled) has
    `games_each` games."""
    from arena.league.standings import leaderboard

    lg = League.open(d)
    try:
        waiting = [s for s in lg.submissions()
                   if s.status in (Status.QUEUED, Status.CHECKING)]
        rows = [r for r in leaderboard(lg) if r.kind == "entry"]
        disabled = {u.name for u in lg.users() if u.disabled}
        current = {s.user for s in lg.submissions()
                   if s.status is Status.RATING and s.user not in disabled}
        return (not waiting and {r.user for r in rows} >= current
                and all(r.games >= games_each for r in rows))
    finally:
        lg.conn.close()


def grades_page(text: str) -> str:
    """grades.csv as a spreadsheet shows it: a grid, the header row bold."""
    rows = list(csv.reader(io.StringIO(text)))
    cells = "".join("<tr>" + "".join(f"<{'th' if i == 0 else 'td'}>{html.escape(c)}"
                                     f"</{'th' if i == 0 else 'td'}>" for c in row) + "</tr>"
                    for i, row in enumerate(rows))
    return ("<!doctype html><meta charset='utf-8'><title>grades.csv</title><style>"
            "body{font:13px system-ui,sans-serif;margin:12px;background:#fff;color:#1d2330}"
            "p{margin:0 0 8px}code{background:#eef1f7;padding:1px 4px}"
            "table{border-collapse:collapse}th,td{border:1px solid #c6ccd8;padding:3px 6px;"
            "white-space:nowrap;font-variant-numeric:tabular-nums}th{background:#eef1f7}"
            "td:nth-child(n+3){text-align:right}</style>"
            "<p><b>grades.csv</b>, downloaded from the admin page (<code>/grades.csv</code>; "
            "the same as <code>cxarena league grades class-league</code>), opened as a "
            f"table</p><table>{cells}</table>")


def main(out: Path) -> None:
    import distributed
    from playwright.sync_api import sync_playwright

    base = Path(tempfile.mkdtemp(prefix="term-"))
    term = Term(base)
    (base / "league.yaml").write_text(CONFIG)
    (base / "bots").mkdir()
    term.cxarena("league", "init", "class-league", "--config", "league.yaml")
    d = base / "class-league"
    teacher = term.cxarena("league", "add-user", "class-league", "teacher", "--admin").strip()
    (base / "roster.csv").write_text("name,email\n" + "".join(
        f"{n},{n}@school.example\n" for n in STUDENTS))
    secrets = dict(line.split(",", 1) for line in term.cxarena(
        "league", "add-users", "class-league", "roster.csv").split())
    for name, bots in STUDENTS.items():
        for i, bot in enumerate(bots):
            path = base / "bots" / f"{name}{i + 1}.py"
            shutil.copy(ROOT / bot, path)
            term.cxarena("league", "submit", "class-league", "--user", name,
                         f"bots/{path.name}", show=name in ("ann", "dan"))
    term.note("(and so on for the others)")
    server = start_server(d)
    term.note(f"$ cxarena league serve class-league --port 0   # a free port\n"
              f"{''.join(server.output)}")
    try:
        _wait("the checks and the first pairs", lambda: _checked_and_played(d, 4))
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                  args=["--no-sandbox", "--disable-gpu"])
            student = b.new_page()  # ann is logged in: her session shows on the roster
            student.goto(server.url + "/login")
            student.fill("#name", "ann")
            student.fill("#secret", secrets["ann"])
            student.click("#login")
            page = b.new_page(viewport={"width": 1100, "height": 800})
            page.on("dialog", lambda dialog: dialog.accept())
            page.goto(server.url + "/login")
            page.fill("#name", "teacher")
            page.fill("#secret", teacher)
            page.click("#login")
            page.wait_for_selector("h1:text('Leaderboard')")
            page.goto(server.url + "/admin/user/gus")  # gus copied bob: out of the term
            page.click("#disable-user")
            page.wait_for_selector("#undo")

            # mid-term: more uploads a day, and a deadline two minutes ahead
            at = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=150)
            yaml_text = (base / "league.yaml").read_text()
            (base / "league.yaml").write_text(
                yaml_text.replace("max_uploads_per_day: 10", "max_uploads_per_day: 20")
                + f"deadline: '{at.isoformat()}'\n")
            # the FILE form: applied, then copied to class-league/league.yaml (the server,
            # which watches that file, then finds nothing left to apply)
            term.cxarena("league", "config", "class-league", "league.yaml")
            shutil.copy(ROOT / "players" / "alphabeta.py", base / "bots" / "ann2.py")
            term.cxarena("league", "submit", "class-league", "--user", "ann", "bots/ann2.py")
            _wait("ann's second version's pairs", lambda: _checked_and_played(d, 4))

            page.goto(server.url + "/admin")
            page.wait_for_selector("#roster")
            page.screenshot(path=str(out / "league-admin.png"), full_page=True)
            top = page.locator("#roster-title").bounding_box()
            bottom = page.locator("#roster-legend").bounding_box()
            assert top and bottom
            page.set_viewport_size({"width": 1100, "height": 1400})
            page.screenshot(path=str(out / "league-roster.png"), full_page=True,
                            clip={"x": 0, "y": top["y"] - 8, "width": 1100,
                                  "height": bottom["y"] + bottom["height"] - top["y"] + 16})

            # the deadline: the league freezes by itself
            lg = League.open(d)
            _wait("the deadline", lg.deadline_passed, 300)
            lg.conn.close()
            term.cxarena("league", "standings", "class-league")
            term.cxarena("league", "final", "class-league", "--dry-run")
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          host="127.0.0.1", dashboard_address=None,
                                          silence_logs=40) as cluster:
                term.note(f"(a Dask scheduler at {cluster.scheduler_address} with two "
                          f"single-threaded workers)")
                term.cxarena("league", "final", "class-league", "--scheduler",
                             cluster.scheduler_address, "--quiet")
            page.goto(server.url + "/admin")
            page.wait_for_selector("#final-report")
            grades = page.request.get(server.url + "/grades.csv").text()
            term.cxarena("league", "grades", "class-league")
            sheet = base / "grades.html"
            sheet.write_text(grades_page(grades), encoding="utf-8")
            page.set_viewport_size({"width": 1100, "height": 400})
            page.goto(sheet.as_uri())
            page.screenshot(path=str(out / "league-grades.png"), full_page=True)
            b.close()
    finally:
        server.stop()
    (base / "transcript.txt").write_text("\n".join(term.transcript), encoding="utf-8")
    print("\n".join(term.transcript))
    print(f"(transcript: {base / 'transcript.txt'})")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs").resolve())
