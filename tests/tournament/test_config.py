"""Tournament configs: good ones load with the right values; every bad one is refused by
`cxarena tournament` with exit code 2, one line naming the file and the key, and nothing
written under results/."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from arena.cli import main
from arena.competition.cores import usable_cores
from arena.errors import UsageError
from arena.tournament.config import load_config
from tests.conftest import ROOT

NO_PLAYER = "from arena.player import CXPlayer\n\nclass NotABot:\n    pass\n"
RAISES_AT_IMPORT = "raise ImportError('needs torch')\n"
EXITS_AT_IMPORT = "import sys\nsys.exit(3)\n"
KILLS_ITSELF_AT_IMPORT = "import os\nos._exit(9)\n"
GOOD_BOT = textwrap.dedent("""\
    from arena.player import CXPlayer

    class Good(CXPlayer):
        def initPlayer(self, M, N, K, first, timeout_in_secs):
            pass

        def selectColumn(self, B):
            return B.getAvailableColumns()[0]

        def playerName(self):
            return "good"
    """)

BASE = """\
name: t
players: [L0, L1]
boards: [[4, 4, 4]]
timeout_s: 0.5
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_full_config_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.py").write_text(GOOD_BOT)
    cfg = load_config(write(tmp_path, """\
        name: my-run
        players:
          - L0
          - {spec: L1, name: one-ply}
          - {spec: good.py, name: mine, options: {max_depth: 8, style: fast}}
        boards: competition
        timeout_s: 1
        grace_s: 0.02
        rounds: 3
        workers: 2
        seed: 42
        memory_limit_mb: null
        """))
    assert cfg.file.name == "my-run"
    assert [p.name for p in cfg.players] == ["L0", "one-ply", "mine"]
    assert cfg.players[1].spec == "L1"
    assert dict(cfg.players[2].options) == {"max_depth": 8, "style": "fast"}
    assert len(cfg.boards) == 35 and cfg.board_set == "competition"
    assert (cfg.timeout_s, cfg.limits.grace_s, cfg.file.rounds, cfg.workers,
            cfg.file.seed) == (1.0, 0.02, 3, 2,
                                                                                   42)
    assert cfg.limits.memory_limit_mb is None
    assert isinstance(cfg.timeout_s, float)


def test_defaults_and_board_list(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, BASE, "mini.yaml"))
    assert cfg.workers == usable_cores()
    assert cfg.file.rounds == 1 and cfg.file.seed == 0 and cfg.limits.memory_limit_mb == 2048
    assert cfg.boards == ((4, 4, 4),) and cfg.board_set is None
    no_name = write(tmp_path, BASE.replace("name: t\n", ""), "stem-name.yaml")
    assert load_config(no_name).file.name == "stem-name"


def test_board_set_next_to_the_config_wins(tmp_path: Path) -> None:
    (tmp_path / "boards.yaml").write_text("tiny:\n  - [3, 3, 3]\n  - [4, 3, 3]\n")
    cfg = load_config(write(tmp_path, BASE.replace("[[4, 4, 4]]", "tiny")))
    assert cfg.boards == ((3, 3, 3), (4, 3, 3))
    # sets not in the local file come from the repository's configs/boards.yaml
    cfg = load_config(write(tmp_path, BASE.replace("[[4, 4, 4]]", "competition-large")))
    assert len(cfg.boards) == 35


def test_fingerprint_ignores_workers_and_order(tmp_path: Path) -> None:
    a = load_config(write(tmp_path, BASE + "workers: 1\n", "a.yaml"))
    b = load_config(write(tmp_path, BASE.replace("[L0, L1]", "[L1, L0]") + "workers: 2\n",
                          "b.yaml"))
    assert a.fingerprint() == b.fingerprint()
    c = load_config(write(tmp_path, BASE.replace("0.5", "0.6"), "c.yaml"))
    assert c.fingerprint() != a.fingerprint()


@pytest.mark.parametrize("name", ["tournament", "quick", "course"])
def test_shipped_configs_load(name: str) -> None:
    cfg = load_config(ROOT / "configs" / f"{name}.yaml")
    assert cfg.file.name == name
    assert {p.spec for p in cfg.players} >= {"L0", "L1"}
    if name == "tournament":
        assert {p.spec for p in cfg.players} == {"L0", "L1", "minimax", "alphabeta",
                                                  "montecarlo", "mcts"}
        assert cfg.board_set == "competition" and len(cfg.boards) == 35
    if name == "course":
        assert cfg.timeout_s == 10.0


# (config text, files to create next to it, words the error line must contain)
BAD = {
    "yaml-syntax": ("name: t\nplayers: [L0, L1\nboards: [[4, 4, 4]]\ntimeout_s: 1\n", {},
                    ["t.yaml:", "YAML syntax error"]),
    "yaml-duplicate-key": (BASE + "timeout_s: 2\n", {}, ["t.yaml:5", "duplicate key 'timeout_s'"]),
    "unknown-key": (BASE + "time_limit: 1\n", {}, ["t.yaml", "unknown key 'time_limit'"]),
    "unknown-player-key": (BASE.replace("[L0, L1]", "[L0, {spec: L1, nmae: x}]"), {},
                           ["players[1]", "unknown key 'nmae'"]),
    "missing-key": (BASE.replace("timeout_s: 0.5\n", ""), {}, ["missing key 'timeout_s'"]),
    "unknown-bot": (BASE.replace("[L0, L1]", "[L0, nosuchbot]"), {},
                    ["players[1].spec", "unknown bot 'nosuchbot'"]),
    "missing-file": (BASE.replace("[L0, L1]", "[L0, nothere.py]"), {},
                     ["players[1].spec", "no such file"]),
    "no-cxplayer": (BASE.replace("[L0, L1]", "[L0, notabot.py]"), {"notabot.py": NO_PLAYER},
                    ["players[1].spec", "no CXPlayer subclass"]),
    "import-error": (BASE.replace("[L0, L1]", "[L0, broken.py]"),
                     {"broken.py": RAISES_AT_IMPORT},
                     ["players[1].spec", "fails to import", "needs torch"]),
    "os-exit-at-import": (BASE.replace("[L0, L1]", "[L0, dies.py]"),
                          {"dies.py": KILLS_ITSELF_AT_IMPORT},
                          ["players[1].spec", "exited with status 9 while importing"]),
    "sys-exit-at-import": (BASE.replace("[L0, L1]", "[exits.py, L1]"),
                           {"exits.py": EXITS_AT_IMPORT},
                           ["players[0].spec", "fails to import", "SystemExit"]),
    "k-too-big": (BASE.replace("[[4, 4, 4]]", "[[4, 4, 4], [4, 5, 6]]"), {},
                  ["boards[1]", "K=6 > max(M, N)=5"]),
    "k-too-big-in-set": (BASE.replace("[[4, 4, 4]]", "mine"), {"boards.yaml": "mine: [[3, 3, 4]]"},
                         ["boards.yaml", "mine[0]", "K=4 > max(M, N)=3"]),
    "bad-board": (BASE.replace("[[4, 4, 4]]", "[[4, 4]]"), {}, ["boards[0]", "[M, N, K]"]),
    "unknown-board-set": (BASE.replace("[[4, 4, 4]]", "competiton"), {},
                          ["boards", "unknown board set 'competiton'", "competition"]),
    "duplicate-board": (BASE.replace("[[4, 4, 4]]", "[[4, 4, 4], [4, 4, 4]]"), {},
                        ["boards", "listed twice"]),
    "zero-timeout": (BASE.replace("timeout_s: 0.5", "timeout_s: 0"), {},
                     ["timeout_s", "positive"]),
    "negative-timeout": (BASE.replace("timeout_s: 0.5", "timeout_s: -1"), {},
                         ["timeout_s", "positive"]),
    "text-timeout": (BASE.replace("timeout_s: 0.5", "timeout_s: fast"), {},
                     ["timeout_s", "positive"]),
    "zero-workers": (BASE + "workers: 0\n", {}, ["workers", "positive integer"]),
    "negative-workers": (BASE + "workers: -2\n", {}, ["workers", "positive integer"]),
    "zero-rounds": (BASE + "rounds: 0\n", {}, ["rounds", "positive integer"]),
    "one-player": (BASE.replace("[L0, L1]", "[L0]"), {}, ["players", "at least two players"]),
    "no-player": (BASE.replace("[L0, L1]", "[]"), {}, ["players", "at least two players"]),
    "same-name": (BASE.replace("[L0, L1]", "[L0, {spec: L1, name: L0}]"), {},
                  ["players[1]", "two players are named 'L0'"]),
    "same-spec": (BASE.replace("[L0, L1]", "[L1, L1]"), {}, ["two players are named 'L1'"]),
    "bad-name": (BASE.replace("name: t", "name: ../escape"), {}, ["name", "'../escape'"]),
    "not-a-mapping": ("- L0\n- L1\n", {}, ["t.yaml", "expected a mapping"]),
    "negative-grace": (BASE + "grace_s: -0.1\n", {}, ["grace_s"]),
    "bad-memory": (BASE + "memory_limit_mb: 0\n", {},
                   ["memory_limit_mb", "null", "no memory limit"]),
    "tiny-memory": (BASE + "memory_limit_mb: 1\n", {}, ["memory_limit_mb", "at least 256"]),
    "tiny-task-cap": (BASE + "max_tasks: 2\n", {}, ["max_tasks", "at least 16"]),
    "bad-cgroups": (BASE + "cgroups: maybe\n", {}, ["cgroups", "true or false"]),
    "missing-program": (BASE.replace("[L0, L1]", "[L0, 'exec:./no-such-bot']"), {},
                        ["players[1].spec", "no executable program"]),
    "bad-options": (BASE.replace("[L0, L1]", "[L0, {spec: L1, options: [1, 2]}]"), {},
                    ["players[1].options", "mapping"]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_config_is_refused(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    text, files, words = BAD[case]
    monkeypatch.chdir(tmp_path)
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    cfg = write(tmp_path, text)
    code = main(["tournament", str(cfg), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("cxarena tournament: error: ")
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not (tmp_path / "results").exists()


def test_bad_config_with_explicit_results_dir_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write(tmp_path, BASE.replace("timeout_s: 0.5", "timeout_s: 0"))
    assert main(["tournament", str(cfg), "--results", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")


def test_task_cap_and_cgroups_load(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, BASE + "max_tasks: 64\ncgroups: false\n"))
    assert cfg.limits.max_tasks == 64 and cfg.play.cgroups is False
    assert cfg.fingerprint()["max_tasks"] == 64
    default = load_config(write(tmp_path, BASE, "d.yaml"))
    assert default.limits.max_tasks == 512 and default.play.cgroups is True
    # the default cap is not in the fingerprint: results from before it existed still match
    assert "max_tasks" not in default.fingerprint()
    assert load_config(write(tmp_path, BASE + "max_tasks: null\n", "n.yaml")).limits.max_tasks \
        is None


def test_max_tasks_on_the_tournament_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`tournament --max-tasks N` overrides the config's cap (and is part of the run's
    fingerprint, as the key is); a cap below the minimum is one usage error."""
    from arena.cli import main
    from arena.results.store import ResultStore

    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "t.yaml"
    cfg.write_text("name: t\nplayers: [players.L0, players.L1]\nboards: [[4, 4, 3]]\n"
                   "timeout_s: 1\nworkers: 1\nisolation: none\nopenings: {plies: 0}\n")
    assert main(["tournament", str(cfg), "--results", "out", "--quiet", "--max-tasks", "2"]) == 2
    assert "--max-tasks must be 0 (no cap) or at least 16" in capsys.readouterr().err
    assert main(["tournament", str(cfg), "--results", "out", "--quiet",
                 "--max-tasks", "64"]) == 0
    with ResultStore(tmp_path / "out" / "games.sqlite", create=False) as store:
        assert (store.fingerprint() or {})["max_tasks"] == 64


def test_a_command_lines_board_set_is_never_the_current_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--board-set NAME` (no config file) is the project's set, whatever boards.yaml the
    current folder holds; a boards file given as a path is read as given."""
    from arena.tournament.config import resolve_board_set

    project = resolve_board_set("competition")
    assert len(project) == 35
    (tmp_path / "boards.yaml").write_text("competition:\n  - [3, 3, 3]\nmine:\n  - [4, 3, 3]\n")
    monkeypatch.chdir(tmp_path)
    assert resolve_board_set("competition") == project
    with pytest.raises(UsageError, match=r"--board-set: unknown board set 'mine'"):
        resolve_board_set("mine")
    assert resolve_board_set("./boards.yaml:mine") == ((4, 3, 3),)
    assert resolve_board_set("boards.yaml:competition") == ((3, 3, 3),)
    with pytest.raises(UsageError, match=r"has 2 board sets: name one"):
        resolve_board_set("boards.yaml")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "one.yaml").write_text("only:\n  - [5, 4, 3]\n")
    assert resolve_board_set("sub/one.yaml") == ((5, 4, 3),)
    with pytest.raises(UsageError, match=r"--board-set: sub/gone.yaml: no such boards file"):
        resolve_board_set("sub/gone.yaml")
