"""Every subcommand, given paths that do not exist, are not what it expects, or hold a corrupt
or foreign results database, answers with one clear line and exit 2, never a traceback."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "schema1"


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("paths")
    good = d / "good"
    shutil.copytree(DATA, good)
    truncated = d / "truncated"
    shutil.copytree(DATA, truncated)
    db = truncated / "games.sqlite"
    db.write_bytes(db.read_bytes()[:3000])
    newer = d / "newer"
    shutil.copytree(DATA, newer)
    con = sqlite3.connect(newer / "games.sqlite")
    con.execute("UPDATE meta SET value='99' WHERE key='schema'")
    con.commit()
    con.close()
    empty_dir = d / "empty"
    empty_dir.mkdir()
    text = d / "notes.txt"
    text.write_text("not a database, not a config\n")
    binary = d / "blob.yaml"
    binary.write_bytes(bytes(range(256)) * 4)
    return {"good": good, "truncated": truncated, "newer": newer, "empty": empty_dir,
            "text": text, "binary": binary, "missing": d / "missing",
            "standings": good / "standings.md"}


def _cases(p: dict[str, Path]) -> list[list[str]]:
    results = ("missing", "empty", "text", "standings", "truncated", "newer")
    cases: list[list[str]] = []
    for r in results:
        cases += [["report", str(p[r])], ["report", str(p[r]), "--json"],
                  ["report", str(p[r]), "--html"], ["show", str(p[r]), "any-game"]]
    for c in ("missing", "empty", "text", "binary"):
        cases.append(["tournament", str(p[c])])
    cases += [
        ["tournament", "configs/quick.yaml", "--results", str(p["text"])],
        ["match", "L0", "L1", "--board", "4", "4", "3", "--time", "0.1",
         "--openings", str(p["missing"])],
        ["match", "L0", "L1", "--board", "4", "4", "3", "--time", "0.1",
         "--openings", str(p["binary"])],
        ["match", "L0", str(p["missing"]), "--board", "4", "4", "3", "--time", "0.1"],
        ["openings", "--board", "4", "4", "3", "--read", str(p["missing"])],
        ["openings", "--board", "4", "4", "3", "--read", str(p["empty"])],
        ["check-bot", str(p["missing"])],
        ["play", str(p["missing"]), "--board", "4", "4", "3"],
        ["serve", "--results", str(p["text"]), "--port", "0"],
        ["serve", "--configs", str(p["missing"]), "--port", "0"],
    ]
    return cases


def test_no_subcommand_answers_a_bad_path_with_a_traceback(paths: dict[str, Path]) -> None:
    problems = []
    for argv in _cases(paths):
        try:
            done = subprocess.run([sys.executable, "-m", "arena", *argv], capture_output=True,
                                  text=True, timeout=30, stdin=subprocess.DEVNULL,
                                  cwd=Path(__file__).resolve().parent.parent)
        except subprocess.TimeoutExpired:
            problems.append(f"{' '.join(argv)}: still running after 30 s")
            continue
        out = done.stdout + done.stderr
        if "Traceback" in out or done.returncode != 2:
            problems.append(f"{' '.join(argv)} -> exit {done.returncode}: {out[-600:]}")
        elif len(done.stderr.strip().splitlines()) != 1:
            problems.append(f"{' '.join(argv)}: not one line: {done.stderr!r}")
    assert problems == []


def test_the_good_copy_still_reads(paths: dict[str, Path]) -> None:
    done = subprocess.run([sys.executable, "-m", "arena", "report", str(paths["good"])],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "## Ranking" in done.stdout
