"""A student's first hour (issue 42): docs/writing-a-bot.md's steps, as written there, in a fresh
clone of this repository, with the bots sandboxed (the default isolation).

The steps are the guide's own fenced blocks marked with an HTML comment on the line before:
``<!-- step -->`` before a ``sh`` block (each line a command, ``#`` comments ignored), and
``<!-- step: players/NAME.py -->`` before a ``python`` block (the file the student writes). So
when the guide changes, this walk follows it. Today's steps: `new-bot mybot`, its check, its
tests and a match; a helper `players/_tactics.py`, a second bot `careful` importing it,
`players`, `check-bot careful` and a match between the two bots.

What the walk changes, and only that: `cxarena` and `python` are the interpreter running this
test (`python -m arena`, `python -m pytest`; no new venv), with the clone on PYTHONPATH (as the
clone's own editable install would have it); a `check-bot` without a board gets one small board
(`--board 5 5 4`), and a command without `--time` (or with less than 0.5 s) gets `--time 1`, so
that a busy machine cannot fail the walk. The clone is of the committed HEAD: commit an edit of
the guide before running this test."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.referee.sandbox import resolve
from tests.conftest import ROOT

GUIDE = Path("docs") / "writing-a-bot.md"
#: a small board for a check-bot the guide runs on the competition's boards
SMALL_BOARD = ["--board", "5", "5", "4"]
#: the time limit of a step that gives none, or too little for a loaded machine
SAFE_TIME_S = 1.0
MIN_TIME_S = 0.5
STEP_TIMEOUT_S = 300

_MARK = re.compile(r"^<!--\s*step(?::\s*(?P<path>\S+))?\s*-->\s*$")
_FENCE = re.compile(r"^```\s*(?P<lang>\w*)\s*$")


@dataclass(frozen=True)
class Step:
    lang: str  # "sh": commands; "python": a file to write at `path`
    body: str
    path: str | None = None
    line: int = 0  # where in the guide (1-based), for messages


def guide_steps(text: str) -> list[Step]:
    """The marked fenced blocks of the guide, in order."""
    lines = text.splitlines()
    steps: list[Step] = []
    i = 0
    while i < len(lines):
        mark = _MARK.match(lines[i].strip())
        if not mark:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        fence = _FENCE.match(lines[j].strip()) if j < len(lines) else None
        assert fence, f"{GUIDE}:{i + 1}: a step mark must come right before a fenced block"
        end = j + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), f"{GUIDE}:{j + 1}: the step's block is not closed"
        steps.append(Step(fence["lang"], "\n".join(lines[j + 1:end]) + "\n", mark["path"],
                          i + 1))
        i = end + 1
    return steps


def commands(step: Step) -> list[list[str]]:
    """The commands of a shell step, each as argv (comments and blank lines left out)."""
    return [argv for line in step.body.splitlines() if (argv := shlex.split(line, comments=True))]


def as_run_here(argv: list[str]) -> list[str]:
    """The student's command with this test's interpreter, made small and safe (module doc)."""
    program, args = Path(argv[0]).name, list(argv[1:])
    if program == "cxarena":
        out = [sys.executable, "-m", "arena", *args]
    elif program.startswith("python") and args[:1] == ["-m"]:
        out = [sys.executable, *args]
    else:
        raise AssertionError(f"the walk does not know how to run {shlex.join(argv)!r}: teach "
                             f"as_run_here, or write the guide's step with cxarena/python")
    command = args[0] if program == "cxarena" and args else ""
    if command == "check-bot" and not {"--board", "--board-set"} & set(args):
        out += SMALL_BOARD
    if command in ("check-bot", "match"):
        if "--time" not in args:
            out += ["--time", f"{SAFE_TIME_S:g}"]
        else:
            k = out.index("--time") + 1
            if float(out[k]) < MIN_TIME_S:
                out[k] = f"{SAFE_TIME_S:g}"
    return out


def fresh_clone(dest: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not found: the guide walk clones the repository")
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: nothing to clone")
    done = subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return dest


def run(clone: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(clone))
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True,
                          timeout=STEP_TIMEOUT_S)


def test_the_guides_steps_are_marked() -> None:
    steps = guide_steps((ROOT / GUIDE).read_text(encoding="utf-8"))
    written = [s.path for s in steps if s.path]
    assert any(p and Path(p).name.startswith("_") for p in written), written  # a helper
    ran = [shlex.join(a) for s in steps if s.lang == "sh" for a in commands(s)]
    assert any(c.startswith("cxarena new-bot ") for c in ran), ran
    assert sum(c.startswith("cxarena check-bot ") for c in ran) >= 2, ran
    assert any(c.startswith("cxarena match ") for c in ran), ran
    for s in steps:
        assert s.lang in ("sh", "python"), f"{GUIDE}:{s.line}: a step of language {s.lang!r}"
        assert (s.lang == "python") == (s.path is not None), f"{GUIDE}:{s.line}"


@pytest.mark.slow
@pytest.mark.skipif(not resolve("auto").isolated,
                    reason=f"no bubblewrap sandbox here ({resolve('auto').reason}): the walk "
                           f"checks the bots sandboxed, as the default isolation runs them")
def test_a_student_walks_the_guide_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = fresh_clone(tmp_path / "clone")
    steps = guide_steps((clone / GUIDE).read_text(encoding="utf-8"))
    checked: list[str] = []
    matched: list[str] = []
    for step in steps:
        where = f"{GUIDE}:{step.line}"
        if step.path is not None:
            target = clone / step.path
            assert not target.exists(), f"{where}: {step.path} is already in the clone"
            target.write_text(step.body, encoding="utf-8")
            continue
        for argv in commands(step):
            done = run(clone, as_run_here(argv))
            said = done.stdout + done.stderr
            assert done.returncode == 0, f"{where}: {shlex.join(argv)} failed:\n{said}"
            if argv[1:2] == ["check-bot"]:
                assert "PASSED" in done.stdout, said
                assert "not isolated" not in said, said
                checked.append(argv[2])
            elif argv[1:2] == ["match"]:
                assert re.search(r"faults by \S+: 0\n.*faults by \S+: 0", done.stdout,
                                 re.S), said
                matched.append(" ".join(argv[2:4]))
            elif argv[1:2] == ["players"]:
                listed = {ln.split()[0].rstrip(":") for ln in done.stdout.splitlines()
                          if ln.strip()}
                written = [Path(s.path).stem for s in steps if s.path]
                assert not any(w in listed for w in written if w.startswith("_")), said
                assert all(w in listed for w in written if not w.startswith("_")), said
    helpers = [Path(s.path).stem for s in steps if s.path and Path(s.path).stem.startswith("_")]
    users = [Path(s.path).stem for s in steps if s.path
             and any(f"players.{h} import" in s.body for h in helpers)]
    assert users, "no bot of the guide imports its helper"
    assert "mybot" in checked and all(u in checked for u in users), checked
    assert any(u in m for u in users for m in matched), matched
