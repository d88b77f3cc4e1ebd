"""Resolving a SPEC runs nothing of the entrant's (issue 48, row 1): `parse_spec`, the code
fingerprint, the sandbox's exposure list and the similarity sources find a bot's files in the
file system (`arena.entrants.modpath`), never by importing it or its parent packages. Each SPEC
form gets a bot whose package ``__init__`` (or module top level, or program) writes a marker
file; the marker must stay absent. `test_find_spec_would_have_run_it` shows the attack is real.
The last tests run `cxarena match` and `check-bot` on a ``pkg.mod`` bot: its code runs only in
the sandbox, where the marker's folder is not writable."""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from arena.entrants import modpath, specs
from arena.entrants.fingerprint import code_fingerprint, code_files
from arena.entrants.specs import parse_spec
from arena.referee import sandbox
from arena.similarity.code import sources_of_spec
from tests.helpers import cxarena, project_copy

WRITE = "open({marker!r}, 'a').write({what!r} + '\\n')\n"

BOT = '''
from arena.player import CXPlayer


class Bot(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        return "Marker"
'''

KAGGLE = "def my_agent(observation, configuration):\n    return 0\n"

JAVA = '''
import connectx.CXPlayer;
import connectx.CXBoard;

public class Marker implements CXPlayer {{
    static {{
        try {{ new java.io.FileWriter("{marker}", true).close(); }} catch (Exception e) {{ }}
    }}
    public void initPlayer(int M, int N, int K, boolean first, int timeout_in_secs) {{ }}
    public int selectColumn(CXBoard B) {{ return B.getAvailableColumns()[0]; }}
    public String playerName() {{ return "Marker"; }}
}}
'''


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project folder first on sys.path (and the working directory) holding one bot per SPEC
    form, each writing to the marker when run; the marker lies outside the project."""
    root, marker = tmp_path / "proj", tmp_path / "marker"
    w = lambda what: WRITE.format(marker=str(marker), what=what)  # noqa: E731
    # players/ of this project: a short name `x` that is a package, and `players/y.py`
    _write(root / "players" / "__init__.py", w("players"))
    _write(root / "players" / "x" / "__init__.py", w("players.x") + BOT)
    _write(root / "players" / "y.py", w("players/y.py") + BOT)
    # pkg.mod, pkg.mod:Class, a nested package
    _write(root / "pkg" / "__init__.py", w("pkg"))
    _write(root / "pkg" / "mod.py", w("pkg.mod") + BOT)
    _write(root / "students" / "__init__.py", w("students"))
    _write(root / "students" / "alice" / "__init__.py", w("students.alice"))
    _write(root / "students" / "alice" / "bot.py", w("students.alice.bot") + BOT)
    # x.py with a sibling module it imports
    _write(root / "solo" / "helper.py", w("helper"))
    _write(root / "solo" / "x.py", "import helper\n" + w("x.py") + BOT)
    _write(root / "kag" / "main.py", w("kaggle") + KAGGLE)
    _write(root / "jbot" / "Marker.java", JAVA.format(marker=str(marker)))
    script = root / "prog" / "bot.sh"
    _write(script, f"#!/bin/sh\necho exec >> {marker}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.chdir(root)
    specs._exposed.cache_clear()  # looked up once per SPEC and process: these are new files
    for name in [m for m in sys.modules if m == "players" or m.startswith("players.")]:
        monkeypatch.delitem(sys.modules, name)  # this project's players/ is the one found
    return root, marker


PYTHON_SPECS = ["x", "players/y.py", "players/y.py:Bot", "pkg.mod", "pkg.mod:Bot",
                "students.alice.bot", "students.alice.bot:Bot", "solo/x.py", "solo/x.py:Bot",
                "kaggle:kag/main.py", "kaggle:kag/main.py:my_agent", "exec:prog/bot.sh"]


def _resolve_everything(text: str) -> list[Path]:
    spec = parse_spec(text)
    files = code_files(spec)
    code_fingerprint(spec)
    spec.launch()  # the paths the sandbox shows it (arena.entrants.exposure)
    sources_of_spec(text)
    return files


@pytest.mark.parametrize("text", PYTHON_SPECS)
def test_resolving_runs_nothing(project: tuple[Path, Path], text: str) -> None:
    root, marker = project
    files = _resolve_everything(text)
    assert files, f"{text}: no files found to fingerprint"
    assert not marker.exists(), f"{text}: ran {marker.read_text()!r}"


def test_module_specs_find_the_files_the_import_would(project: tuple[Path, Path]) -> None:
    root, marker = project
    assert parse_spec("students.alice.bot").module == "students.alice.bot"
    found = modpath.find_module("students.alice.bot")
    assert found is not None and found.origin == root / "students" / "alice" / "bot.py"
    # a module in a package: the whole top-level package is fingerprinted, as before
    names = {p.name for p in code_files(parse_spec("students.alice.bot"))}
    assert {"bot.py", "__init__.py"} <= names
    assert any(f.name == "bot.py" for f in sources_of_spec("students.alice.bot"))
    exposed = parse_spec("students.alice.bot").launch().expose
    assert str(root / "students") in exposed
    assert not marker.exists()


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac not found: install a JDK")
def test_java_spec_resolution_runs_nothing(project: tuple[Path, Path]) -> None:
    root, marker = project
    _resolve_everything("java:jbot")
    _resolve_everything("java:jbot:Marker")
    assert not marker.exists()


def test_find_spec_would_have_run_it(project: tuple[Path, Path]) -> None:
    """The attack is real: what the harness used to call runs the parent packages."""
    root, marker = project
    try:
        assert importlib.util.find_spec("students.alice.bot") is not None
        assert marker.read_text().split() == ["students", "students.alice"]
    finally:
        for name in ("students", "students.alice"):
            sys.modules.pop(name, None)


def test_find_module_follows_the_path_finder(tmp_path: Path) -> None:
    """A package beats a module of the same name; an earlier entry beats a later one; a folder
    without __init__ is a namespace package only when nothing else has the name."""
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a / "m.py", "")
    _write(a / "m" / "__init__.py", "")
    _write(b / "m.py", "")
    _write(a / "ns" / "one.py", "")
    _write(b / "ns" / "two.py", "")
    _write(b / "plain.py", "")
    _write(a / "plain" / "data.txt", "")
    path = [str(a), str(b)]
    m = modpath.find_module("m", path)
    assert m is not None and m.origin == a / "m" / "__init__.py" and m.is_package
    plain = modpath.find_module("plain", path)
    assert plain is not None and plain.origin == b / "plain.py" and not plain.is_package
    ns = modpath.find_module("ns", path)
    assert ns is not None and ns.origin is None and ns.package_dirs == (a / "ns", b / "ns")
    two = modpath.find_module("ns.two", path)
    assert two is not None and two.origin == b / "ns" / "two.py"
    assert modpath.find_module("plain.x", path) is None  # a module has no submodules
    assert modpath.find_module("nothing", path) is None
    assert modpath.find_module("a-b", path) is None
    assert modpath.find_module("", path) is None


needs_sandbox = pytest.mark.skipif(sandbox.probe() is not None,
                                   reason=f"no sandbox here: {sandbox.probe()}")


@needs_sandbox
@pytest.mark.parametrize("command", ["match", "check-bot"])
def test_cli_on_a_package_bot_runs_it_only_in_the_sandbox(tmp_path: Path, command: str) -> None:
    """`cxarena match` / `check-bot` on ``students.alice.bot``: the bot's packages run only in
    the bot's process, in the sandbox, where the marker's folder is out of reach."""
    root = project_copy(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    marker = outside / "marker"
    write = ("try:\n    " + WRITE.format(marker=str(marker), what="{}")
             + "except OSError:\n    pass\n")
    _write(root / "students" / "__init__.py", write.format("students"))
    _write(root / "students" / "alice" / "__init__.py", write.format("students.alice"))
    _write(root / "students" / "alice" / "bot.py", write.format("bot") + BOT)
    os.chmod(outside, 0o777)  # writable to anyone outside the sandbox: only the sandbox stops it
    if command == "match":
        r = cxarena(root, "match", "--board", "4", "4", "3", "--time", "2", "--games", "1",
                    "--isolation", "namespaces", "students.alice.bot", "L0")
    else:
        r = cxarena(root, "check-bot", "--quick", "--board", "4", "4", "3", "--time", "2",
                    "--isolation", "namespaces", "students.alice.bot")
    assert r.returncode == 0, r.stdout + r.stderr
    assert not marker.exists(), f"ran outside the sandbox: {marker.read_text()!r}"


def test_the_marker_bot_writes_without_a_sandbox(tmp_path: Path) -> None:
    """Control for the test above: with no sandbox the same bot does write its marker (so the
    marker's absence there is the sandbox's doing)."""
    root = project_copy(tmp_path / "proj")
    marker = tmp_path / "marker"
    _write(root / "students" / "__init__.py", WRITE.format(marker=str(marker), what="students"))
    _write(root / "students" / "alice" / "__init__.py", "")
    _write(root / "students" / "alice" / "bot.py", BOT)
    r = cxarena(root, "match", "--board", "4", "4", "3", "--time", "2", "--games", "1",
                "--isolation", "none", "students.alice.bot", "L0")
    assert r.returncode == 0, r.stdout + r.stderr
    assert marker.exists()
