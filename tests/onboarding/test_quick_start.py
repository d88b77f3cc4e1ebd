"""README's steps for a newcomer, in order, in a copy of the project (as a user's checkout):
`new-bot`, `check-bot`, a small tournament with the new bot, `report`, `show` and `analyze`,
each step's output checked for what the README says it gives."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import cxarena, project_copy

CONFIG = """\
name: first
players:
  - mybot
  - L0
boards: [[4, 5, 4], [5, 6, 4]]
rounds: 1
timeout_s: 0.3
"""


def test_the_readme_quick_start_in_order(tmp_path: Path) -> None:
    root = project_copy(tmp_path)

    made = cxarena(root, "new-bot", "mybot")
    assert made.returncode == 0, made.stderr
    assert (root / "players" / "mybot.py").is_file()
    assert "cxarena check-bot mybot" in made.stdout

    checked = cxarena(root, "check-bot", "mybot", "--quick", timeout_s=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "PASSED" in checked.stdout and "containment:" in checked.stdout

    (root / "configs" / "first.yaml").write_text(CONFIG)
    ran = cxarena(root, "tournament", "configs/first.yaml", "--quiet", timeout_s=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "4 of 4 games stored" in ran.stdout
    results = root / "results" / "first"
    assert (results / "report.html").is_file()

    report = cxarena(root, "report", "results/first")
    assert report.returncode == 0, report.stderr
    assert re.search(r"\|\s*\d\s*\|\s*mybot\s*\|", report.stdout), report.stdout

    gid = "4x5x4-r1-mybot-L0"
    shown = cxarena(root, "show", "results/first", gid)
    assert shown.returncode == 0, shown.stderr
    assert f"game {gid}" in shown.stdout and "result:" in shown.stdout
    assert "initPlayer: X mybot" in shown.stdout  # the players named (issue 33)

    analysed = cxarena(root, "analyze", "results/first", gid, "--time-per-position", "0.2",
                       timeout_s=300)
    assert analysed.returncode == 0, analysed.stdout + analysed.stderr
    assert re.search(r"\bbest\b|\bblunder\b|\binaccuracy\b", analysed.stdout), analysed.stdout
