"""The README's teacher steps, as written, in a fresh folder with the league's relative path:
`league init class-league --config configs/league.yaml`, `add-user ... --admin`, `add-users`
from a roster, `serve --workers 2`; then two students upload, the teacher freezes the
leaderboard and runs the final round robin from the admin page, and its report is served.
The shipped league.yaml plays all 35 boards at 1 s a move (hours for the final); here its
boards and time limit are made small, and every other setting is the shipped one."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import pytest
import yaml

from arena.referee.sandbox import resolve
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not resolve("auto").isolated,
                                reason="league.yaml's isolation: true needs the sandbox "
                                       "(install bubblewrap)")


def cxarena(cwd: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "arena", *args], cwd=cwd, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0, out.stderr
    return out.stdout


def csrf(page: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', page)
    assert m, page[:500]
    return m.group(1)


def log_in(url: str, name: str, secret: str) -> httpx2.Client:
    c = httpx2.Client(base_url=url, timeout=30)
    r = c.post("/login", data={"name": name, "secret": secret,
                               "csrf": csrf(c.get("/login").text)})
    assert r.status_code == 303, r.text
    return c


def until(check, timeout_s: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_readme_teacher_steps(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    shipped = yaml.safe_load((tmp_path / "configs" / "league.yaml").read_text())
    shipped.update(boards=[[4, 4, 3], [4, 5, 3]], final_board_set=[[4, 4, 3]], timeout_s=0.5,
                   pairs_per_submission=1, max_pairs_per_submission=1,
                   java=False)  # 0.5 s a move: Python bots only (a Java bot needs whole s)
    (tmp_path / "configs" / "league.yaml").write_text(yaml.safe_dump(shipped))
    (tmp_path / "roster.csv").write_text("Name,Email\nann,ann@example.org\nbob,bob@example.org\n")

    # the README's commands, verbatim but for the port (0: a free one)
    assert cxarena(tmp_path, "league", "init", "class-league", "--config",
                   "configs/league.yaml") == "league created in class-league\n"
    teacher = cxarena(tmp_path, "league", "add-user", "class-league", "teacher",
                      "--admin").strip()
    secrets = dict(line.split(",") for line in cxarena(
        tmp_path, "league", "add-users", "class-league", "roster.csv").split())
    assert sorted(secrets) == ["ann", "bob"]
    server = subprocess.Popen([sys.executable, "-m", "arena", "league", "serve", "class-league",
                               "--workers", "2", "--port", "0"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(server.stdout or ()), daemon=True).start()
    try:
        url = until(lambda: next((m.group(1) for line in list(output) if (
            m := re.search(r"open (http://127\.0\.0\.1:\d+)/", line))), None), 60,
            "the server's address")
        for name, bot in (("ann", "L1.py"), ("bob", "L0.py")):
            c = log_in(url, name, secrets[name])
            r = c.post("/submit", data={"csrf": csrf(c.get("/submit").text)},
                       files={"files": (bot, (ROOT / "players" / bot).read_bytes())})
            assert r.status_code == 303, r.text
            status = r.headers["location"] + "/status.json"
            until(lambda c=c, status=status: c.get(status).json().get("status") == "rating",
                  120, f"{name}'s check")
        admin = log_in(url, "teacher", teacher)
        token = csrf(admin.get("/admin").text)
        assert admin.post("/admin/freeze", data={"csrf": token}).status_code == 200
        r = admin.post("/admin/final", data={"csrf": token})
        assert r.status_code == 200 and "The final round robin started" in r.text, r.text
        until(lambda: "Finished:" in admin.get("/admin").text, 180, "the final")
        page = admin.get("/admin").text
        assert "no such config file" not in page and 'id="final-report"' in page
        report = admin.get("/final/report.html")
        assert report.status_code == 200 and "ann" in report.text and "bob" in report.text
        assert (tmp_path / "class-league" / "results" / "final" / "report.html").is_file()
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert not [line for line in output if "Traceback" in line], "".join(output)
