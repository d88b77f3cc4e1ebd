"""Bot discovery (`arena.onboarding.discovery`, `cxarena players`): every module of players/ is
listed with
its playerName() and docstring, or with its error; helpers (`_x`) are skipped; importing the
`players` package imports no bot; a new module is a SPEC without any registration."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.onboarding.discovery import BotInfo, first_doc_line
from tests.conftest import ROOT
from tests.helpers import cxarena, project_copy, reference_bots


def write(path: Path, text: str) -> None:
    path.write_text(textwrap.dedent(text), encoding="utf-8")


GOOD_BOT = '''
    """{doc}"""
    from arena.player import CXPlayer


    class Bot(CXPlayer):
        {classdoc}
        def initPlayer(self, M, N, K, first, timeout_in_secs):
            pass

        def selectColumn(self, B):
            return B.getAvailableColumns()[0]

        def playerName(self):
            {name_body}
'''


def good_bot(doc: str = "A fine bot.", classdoc: str = "", name_body: str = "return 'Fine'"
             ) -> str:
    return textwrap.dedent(GOOD_BOT).format(doc=doc, classdoc=classdoc, name_body=name_body)


def rows(stdout: str) -> dict[str, str]:
    """SPEC -> the rest of its line in `cxarena players` output."""
    out = {}
    for line in stdout.splitlines()[1:]:
        if line.strip() and not line[0].isspace() and "bot(s)" not in line:
            spec, _, rest = line.partition(" ")
            out[spec] = rest.strip()
    return out


def test_players_lists_the_reference_bots() -> None:
    r = cxarena(ROOT, "players")
    assert r.returncode == 0, r.stderr
    listed = rows(r.stdout)
    assert listed["L0"].startswith("L0 ")
    assert "uniformly random legal column" in listed["L0"]
    assert "one move of look-ahead" in listed["L1"]
    assert "_common" not in r.stdout  # a helper, not a bot


def test_broken_bots_are_listed_with_their_error_and_do_not_hide_the_others(
        tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    p = root / "players"
    write(p / "broken.py", "import nonexistent_module_xyz\n")
    write(p / "exits.py", "import sys\nsys.exit(3)\n")
    write(p / "dies.py", "import os\nos._exit(7)\n")
    write(p / "hangs.py", "import time\ntime.sleep(60)\n")
    write(p / "noisy.py", good_bot() + "\nprint('hello from import')\n")
    write(p / "badname.py", good_bot(name_body="raise RuntimeError('no name today')"))
    write(p / "notabot.py", "X = 1\n")
    write(p / "_helper.py", f"open({str(tmp_path / 'imported')!r}, 'w').close()\n"
                            "raise RuntimeError('helpers are never imported')\n")
    (p / "pkgbot").mkdir()
    write(p / "pkgbot" / "__init__.py", good_bot(doc="", classdoc='"""A bot in a package."""',
                                                 name_body="return 'Pkg'"))
    r = cxarena(root, "players", "--import-timeout", "3")
    assert r.returncode == 0, r.stderr
    listed = rows(r.stdout)
    assert "ModuleNotFoundError: No module named 'nonexistent_module_xyz'" in listed["broken"]
    assert "SystemExit: 3" in listed["exits"]
    assert "exit code 7" in listed["dies"]
    assert "took over 3 s" in listed["hangs"]
    assert "RuntimeError: no name today" in listed["badname"]
    assert "defines no CXPlayer subclass" in listed["notabot"]
    assert listed["noisy"].startswith("Fine ") and "A fine bot." in listed["noisy"]
    assert "hello from import" not in r.stdout
    assert listed["pkgbot"] == "Pkg             A bot in a package."
    assert "L0: the course's first reference bot" in listed["L0"]
    assert "L1: the course's second" in listed["L1"]
    assert "_helper" not in r.stdout and not (tmp_path / "imported").exists()
    ours = {"broken", "exits", "dies", "hangs", "noisy", "badname", "notabot", "pkgbot"}
    assert set(listed) == ours | set(reference_bots())
    assert f"{len(listed)} bot(s), 6 with errors" in r.stdout


def test_importing_players_imports_no_bot_and_a_new_module_is_a_spec(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    write(root / "players" / "broken.py", "raise RuntimeError('must not be imported')\n")
    write(root / "players" / "zed.py", good_bot())
    code = textwrap.dedent("""
        import sys
        import players
        from arena.games.connectx.entrant import load_player_class
        from arena.entrants.specs import parse_spec
        spec = parse_spec("zed")
        print(sorted(m for m in sys.modules if m.startswith("players.")))
        print(spec.module, load_player_class(spec).__name__)
        print(sorted(m for m in sys.modules if m.startswith("players.")))
    """)
    env = dict(os.environ, PYTHONPATH=str(root))
    r = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[]", "players.zed Bot", "['players.zed']"]


def test_first_doc_line() -> None:
    assert first_doc_line(None) == ""
    assert first_doc_line("\n\n  First line.\n  second\n") == "First line."
    assert BotInfo("x", error="boom").ok is False
    assert BotInfo("x", player_name="X").ok is True


@pytest.mark.parametrize("bad", ["0", "-1", "abc"])
def test_players_rejects_a_bad_timeout(bad: str) -> None:
    r = cxarena(ROOT, "players", "--import-timeout", bad)
    assert r.returncode == 2
