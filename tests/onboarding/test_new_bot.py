"""`cxarena new-bot NAME` (`arena.onboarding.scaffold`): valid and invalid names, collisions, never
overwriting, and a generated bot that plays legal, sensible moves."""

from __future__ import annotations

import csv
import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.board import CXBoard, CXGameState
from arena.onboarding import scaffold
from arena.onboarding.scaffold import ScaffoldError, check_name, class_name, create_bot
from arena.player import CXPlayer
from tests.conftest import ROOT
from tests.helpers import cxarena, project_copy, reference_bots


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with an empty players/ package (plus one local bot, `mine`). Of the
    installed `players` package only the project's own bots count, never a bot the user made
    in their checkout (`cxarena new-bot mybot` must not fail `test_check_name_accepts[mybot]`)."""
    real = scaffold.candidate_names
    shipped = set(reference_bots())
    monkeypatch.setattr(scaffold, "candidate_names",
                        lambda: [(n, where) for n, where in real() if n in shipped])
    (tmp_path / "players").mkdir()
    (tmp_path / "players" / "__init__.py").write_text("")
    (tmp_path / "players" / "mine.py").write_text("")
    return tmp_path


@pytest.mark.parametrize("name, why", [
    ("1abc", "not a valid bot name"),
    ("my-bot", "not a valid bot name"),
    ("my bot", "not a valid bot name"),
    ("", "not a valid bot name"),
    ("über", "not a valid bot name"),
    ("_helper", "leading underscore"),
    ("class", "keyword"),
    ("match", "keyword"),  # a soft keyword
    ("print", "built-in"),
    ("sys", "built-in"),
    ("random", "importable module"),
    ("numpy", "importable module"),
    ("arena", "importable module"),
    ("players", "importable module"),
    ("L0", "already a bot"),  # from the installed players package
    ("l0", "differs only in case from 'L0'"),
    ("mine", "already a bot"),  # a local module
    ("MINE", "differs only in case"),
    ("a" * 41, "too long"),
])
def test_check_name_rejects(project: Path, name: str, why: str) -> None:
    reason = check_name(name, project)
    assert reason is not None and why in reason
    with pytest.raises(ScaffoldError, match=why.replace("(", r"\(").replace(")", r"\)")):
        create_bot(name, project)
    assert sorted(p.name for p in (project / "players").iterdir()) == ["__init__.py", "mine.py"]
    assert not (project / "tests").exists()


@pytest.mark.parametrize("name", ["mybot", "my_bot2", "Zeta", "a" * 40])
def test_check_name_accepts(project: Path, name: str) -> None:
    assert check_name(name, project) is None


def test_class_name() -> None:
    assert class_name("mybot") == "Mybot"
    assert class_name("my_bot") == "MyBot"
    assert class_name("L2") == "L2"
    assert class_name("CXPlayer") == "CXPlayerBot"  # would clash with the template's import
    assert class_name("deadline") == "DeadlineBot"


def _load(path: Path, cls: str) -> type[CXPlayer]:
    spec = importlib.util.spec_from_file_location(f"newbot_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    player = getattr(module, cls)
    assert issubclass(player, CXPlayer)
    return player


def test_create_bot_writes_a_working_bot_and_a_test(project: Path) -> None:
    made = create_bot("my_bot", project)
    assert made.bot_path == project / "players" / "my_bot.py"
    assert made.test_path == project / "tests" / "test_my_bot.py"
    bot_text = made.bot_path.read_text()
    test_text = made.test_path.read_text()
    assert "class MyBot(CXPlayer):" in bot_text and "Deadline.for_move" in bot_text
    assert "{name}" not in bot_text + test_text and "{cls}" not in bot_text + test_text
    assert "from players.my_bot import MyBot" in test_text and "run_check" in test_text
    compile(test_text, str(made.test_path), "exec")

    player = _load(made.bot_path, "MyBot")
    bot = player()
    bot.initPlayer(6, 7, 4, True, 1.0)
    assert bot.playerName() == "my_bot"
    assert bot.selectColumn(CXBoard(6, 7, 4)) == 3  # the centre
    # column 3 full: the centre-most free column (2 or 4)
    assert bot.selectColumn(CXBoard.from_moves(6, 7, 4, [3] * 6)) in (2, 4)
    # an immediate win (P1 has three on the bottom row at 0, 1, 2) is taken
    B = CXBoard.from_moves(6, 7, 4, [0, 0, 1, 1, 2, 2])
    assert bot.selectColumn(B.copy()) == 3
    bot2 = player()
    bot2.initPlayer(6, 7, 4, False, 1.0)
    B = CXBoard.from_moves(6, 7, 4, [6, 0, 6, 0, 5, 0, 4])  # P2 wins in column 0
    assert bot2.selectColumn(B.copy()) == 0


@pytest.mark.parametrize("M, N, K", [(4, 4, 4), (7, 5, 5), (20, 20, 10), (1, 3, 2)])
def test_generated_bot_always_answers_a_legal_column(project: Path, M: int, N: int,
                                                     K: int) -> None:
    player = _load(create_bot("legal", project).bot_path, "Legal")
    rng = random.Random(M * 100 + N)
    for game in range(20):
        bots = [player(), player()]
        bots[0].initPlayer(M, N, K, True, 1.0)
        bots[1].initPlayer(M, N, K, False, 1.0)
        B = CXBoard(M, N, K)
        while B.gameState() is CXGameState.OPEN:
            if game % 2 and rng.random() < 0.5:  # mix in random moves to reach odd positions
                col = rng.choice(B.getAvailableColumns())
            else:
                col = bots[B.currentPlayer()].selectColumn(B.copy())
            assert col in B.getAvailableColumns()
            B.markColumn(col)


def test_create_bot_never_overwrites(project: Path) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_fresh.py").write_text("# mine\n")
    with pytest.raises(ScaffoldError, match="already exists"):
        create_bot("fresh", project)
    assert not (project / "players" / "fresh.py").exists()  # nothing half-written
    assert (project / "tests" / "test_fresh.py").read_text() == "# mine\n"
    (project / "tests" / "test_fresh.py").unlink()
    create_bot("fresh", project)
    bot = (project / "players" / "fresh.py")
    bot.write_text("# edited\n")
    (project / "tests" / "test_fresh.py").unlink()
    with pytest.raises(ScaffoldError, match="already"):
        create_bot("fresh", project)
    assert bot.read_text() == "# edited\n"


def test_create_bot_outside_a_project_writes_into_the_folder(tmp_path: Path) -> None:
    """No players/ here (cxarena installed with pip): the bot and its test are files of the
    folder, the bot's SPEC is its file, and the test imports it from there. (Not named mybot:
    that is the README's name, which the user's checkout may hold.)"""
    made = create_bot("outside_bot", tmp_path)
    assert made.bot_path == tmp_path / "outside_bot.py"
    assert made.test_path == tmp_path / "test_outside_bot.py"
    assert made.spec == "outside_bot.py"
    test = made.test_path.read_text()
    assert "from outside_bot import OutsideBot" in test and 'run_check("outside_bot.py"' in test
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside_bot.py", "test_outside_bot.py"]
    with pytest.raises(ScaffoldError, match="already exists"):
        create_bot("outside_bot", tmp_path)


def test_new_bot_command(tmp_path: Path) -> None:
    root = project_copy(tmp_path)
    r = cxarena(root, "new-bot", "zork")
    assert r.returncode == 0, r.stderr
    assert (root / "players" / "zork.py").is_file() and (root / "tests" / "test_zork.py").is_file()
    assert "cxarena check-bot zork" in r.stdout and "- zork" in r.stdout
    again = cxarena(root, "new-bot", "zork")
    assert again.returncode == 2
    assert again.stderr.startswith("cxarena new-bot: error: 'zork' is already a bot")
    assert len(again.stderr.strip().splitlines()) == 1
    bad = cxarena(root, "new-bot", "9lives")
    assert bad.returncode == 2 and "not a valid bot name" in bad.stderr
    listed = cxarena(root, "players")
    assert any(line.startswith("zork ") and "zork" in line.split()[1]
               for line in listed.stdout.splitlines())


def test_templates_are_shipped() -> None:
    """pyproject's package-data names the folder that new-bot reads its templates from."""
    import tomllib

    from arena.onboarding.scaffold import TEMPLATES

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package = ".".join(TEMPLATES.parent.relative_to(ROOT).parts)
    patterns = data["package-data"][package]
    shipped = sorted({p.name for pat in patterns for p in TEMPLATES.parent.glob(pat)})
    assert shipped == ["bot.py.tmpl", "game_bot.py.tmpl", "test_bot.py.tmpl",
                       "test_game_bot.py.tmpl"]


@pytest.mark.slow
def test_new_bot_then_check_bot_then_a_tournament(tmp_path: Path) -> None:
    """The whole path of the guide, in a copy of the project: scaffold, check, test, enter."""
    root = project_copy(tmp_path)
    r = cxarena(root, "new-bot", "rookie")
    assert r.returncode == 0, r.stderr

    r = cxarena(root, "check-bot", "rookie", "--time", "0.5", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "playerName(): 'rookie'" in r.stdout and "PASSED" in r.stdout

    env = dict(os.environ, PYTHONPATH=str(root))  # the generated test passes as generated
    t = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "tests/test_rookie.py"], cwd=root, env=env, capture_output=True,
                       text=True, timeout=300)
    assert t.returncode == 0, t.stdout + t.stderr
    assert "2 passed" in t.stdout

    (root / "configs" / "rookie.yaml").write_text(
        "name: rookie\nplayers:\n  - L0\n  - L1\n  - rookie\n"
        "boards: [[4, 4, 4], [6, 7, 4]]\ntimeout_s: 0.5\nworkers: 1\nseed: 3\n")
    r = cxarena(root, "tournament", "configs/rookie.yaml", "--quiet")
    assert r.returncode == 0, r.stdout + r.stderr
    with open(root / "results" / "rookie" / "standings.csv", newline="") as f:
        rows = {row["player"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"L0", "L1", "rookie"}
    mine = rows["rookie"]
    assert int(mine["games"]) == 8  # 2 opponents x 2 boards x 2 colours
    assert mine["timeouts"] == mine["illegal"] == mine["crashes"] == "0"
