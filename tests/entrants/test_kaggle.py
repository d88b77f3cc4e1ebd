"""Kaggle ConnectX agents (`kaggle:PATH[:FUNCTION]`) and Python file bots that import the modules
beside them, played under the real referee against L1.

The agents are written here into temporary folders: one reading the observation and the
configuration as attributes (and checking everything Kaggle's ConnectX promises), one reading
them as items and answering numpy integers, one importing a helper module beside it.
"""

from __future__ import annotations

import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.entrants.fingerprint import code_files, code_fingerprint
from arena.entrants.kaggle import Struct, find_agent
from arena.entrants.probe import check_loadable
from arena.entrants.specs import Kind, SpecError, parse_spec
from arena.games.connectx.entrant import load_player_class
from arena.limits import Limits
from arena.onboarding.conformance import run_check
from arena.records import Reason
from arena.referee.referee import MatchSettings, Referee, course_game

ATTRIBUTES = '''
import random


def _gravity_holds(board, rows, columns):
    """No empty cell under a piece (row 0 is the top row)."""
    return all(not (board[r * columns + c] != 0 and board[(r + 1) * columns + c] == 0)
               for r in range(rows - 1) for c in range(columns))


def attribute_agent(observation, configuration):
    rows, columns = configuration.rows, configuration.columns
    board = observation.board
    assert isinstance(board, list) and len(board) == rows * columns, board
    assert set(board) <= {0, 1, 2}
    assert observation.step == sum(1 for x in board if x), (observation.step, board)
    assert board.count(1) - board.count(2) == (observation.mark == 2)
    assert _gravity_holds(board, rows, columns), board
    assert configuration.actTimeout == configuration.timeout == 1
    assert isinstance(configuration.actTimeout, int)
    assert configuration.inarow == 4 and configuration.episodeSteps >= rows * columns
    assert observation.remainingOverageTime == 0
    assert observation["board"] is board and configuration["rows"] == rows
    free = [c for c in range(columns) if board[c] == 0]
    return random.Random(observation.step).choice(free)
'''

ITEMS = '''
import numpy as np


def items_agent(obs, config):
    grid = np.array(obs["board"]).reshape(config["rows"], config["columns"])
    free = np.flatnonzero(grid[0] == 0)
    return free[len(free) // 2]  # a numpy integer
'''

HELPER = '''
def best_column(board, columns):
    free = [c for c in range(columns) if board[c] == 0]
    return free[0]
'''

USES_HELPER = '''
from kaggle_helper_beside import best_column


def agent(observation, configuration):
    return best_column(observation.board, configuration.columns)


from functools import lru_cache  # imported last: not the agent
'''

FAULTY = '''
def raises(observation, configuration):
    if observation.step >= 2:
        raise ValueError("the agent gave up")
    return 0


def answers_text(observation, configuration):
    return "3"


def observation_only(observation):
    return observation.board.index(0) % 3  # a free column of the top row
'''


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kaggle")
    helper_dir = root / "with_helper"
    write(helper_dir, "kaggle_helper_beside.py", HELPER)
    return {"attributes": write(root / "attributes", "main.py", ATTRIBUTES),
            "items": write(root / "items", "submission.py", ITEMS),
            "helper": write(helper_dir, "main.py", USES_HELPER),
            "faulty": write(root / "faulty", "faulty.py", FAULTY)}


@pytest.fixture(scope="module")
def referee() -> Iterator[Referee]:
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as ref:
        yield ref


@pytest.mark.parametrize("name", ["attributes", "items", "helper"])
def test_an_agent_plays_l1_both_colours(name: str, agents: dict[str, Path],
                                        referee: Referee) -> None:
    agent, l1 = parse_spec(f"kaggle:{agents[name]}"), parse_spec("L1")
    assert agent.kind is Kind.KAGGLE and agent.is_python
    for seed, first in ((1, True), (2, False)):
        rec = referee.play(agent, l1, course_game(6, 7, 4), seed) if first else \
            referee.play(l1, agent, course_game(6, 7, 4), seed)
        assert not rec.is_fault, (rec.detail, rec.stderr_tail)
        assert rec.n_moves >= 7


def test_an_agents_faults_end_its_games(agents: dict[str, Path], referee: Referee) -> None:
    l1 = parse_spec("L1")
    crash = referee.play(parse_spec(f"kaggle:{agents['faulty']}:raises"), l1,
                         course_game(6, 7, 4), 3)
    assert crash.reason is Reason.CRASH and crash.offender == 1
    assert "raised ValueError: the agent gave up" in crash.detail
    assert 'raise ValueError("the agent gave up")' in crash.stderr_tail
    text = referee.play(l1, parse_spec(f"kaggle:{agents['faulty']}:answers_text"),
                        course_game(6, 7, 4), 4)
    assert text.reason is Reason.ILLEGAL and text.offender == 2 and "'3'" in text.detail
    one_arg = parse_spec(f"kaggle:{agents['faulty']}:observation_only")
    rec = referee.play(one_arg, l1, course_game(6, 7, 4), 5)
    assert not rec.is_fault, rec.detail


def test_check_bot_passes_an_agent(agents: dict[str, Path]) -> None:
    report = run_check(f"kaggle:{agents['helper']}", boards=[(4, 5, 4)], timeout_s=1.0)
    assert report.passed, report.text()


def test_the_agent_is_the_function_named_or_the_last_one_defined() -> None:
    module = types.ModuleType("cxbot_sub")
    exec(textwrap.dedent('''
        from os.path import join
        def helper(x): return x
        def agent(observation, configuration): return 0
        class Table: pass
        from functools import lru_cache
    '''), module.__dict__)
    # the last one, as on Kaggle, when it can be called as agent(observation[, configuration]);
    # here the last is a class taking no arguments: the one function named as an agent plays
    # (issue 51: Kaggle's rule would call Table(observation, configuration) every move)
    assert find_agent(module, None, "sub.py") is module.agent
    exec("def last(obs, config): return 1\n", module.__dict__)
    assert find_agent(module, None, "sub.py") is module.last
    assert find_agent(module, "agent", "sub.py") is module.agent
    with pytest.raises(ValueError, match="defines no function 'missing'"):
        find_agent(module, "missing", "sub.py")
    empty = types.ModuleType("cxbot_empty")
    exec("from os.path import join\nX = 3\n", empty.__dict__)
    with pytest.raises(ValueError, match="defines no function"):
        find_agent(empty, None, "empty.py")


def test_specs_that_name_no_agent(tmp_path: Path, agents: dict[str, Path]) -> None:
    with pytest.raises(SpecError, match="no such file"):
        parse_spec(f"kaggle:{tmp_path / 'nope.py'}")
    with pytest.raises(SpecError, match="is not a function name"):
        parse_spec(f"kaggle:{agents['items']}:not-a-name")
    spec = parse_spec(f"kaggle:{agents['items']}:missing")
    failed = check_loadable([spec])
    assert "defines no function 'missing'" in failed[spec.text]
    assert check_loadable([parse_spec(f"kaggle:{agents['helper']}")]) == {}


def test_struct_has_attribute_and_item_access() -> None:
    s = Struct(board=[0, 1], mark=1)
    assert s.board is s["board"] and s.get("mark") == 1
    s.step = 3
    assert s["step"] == 3 and dict(s) == {"board": [0, 1], "mark": 1, "step": 3}
    with pytest.raises(AttributeError):
        s.missing  # noqa: B018
    del s.step
    assert "step" not in s


# ------------------------------------------------------ Python files import their neighbours
BOT_WITH_HELPER = '''
from arena.player import CXPlayer
from bot_helper_beside import first_free


class Neighbourly(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return first_free(B)

    def playerName(self):
        return "Neighbourly"
'''


def test_a_python_file_bot_imports_the_module_beside_it(tmp_path: Path,
                                                        referee: Referee) -> None:
    helper = write(tmp_path, "bot_helper_beside.py",
                   "def first_free(B):\n    return B.getAvailableColumns()[-1]\n")
    path = write(tmp_path, "neighbourly.py", BOT_WITH_HELPER)
    spec = parse_spec(str(path))
    assert check_loadable([spec]) == {}
    rec = referee.play(spec, parse_spec("L1"), course_game(4, 5, 4), 7)
    assert not rec.is_fault, (rec.detail, rec.stderr_tail)
    # the helper is part of the bot's code: editing it changes the fingerprint
    assert code_files(spec) == [path, helper]
    before = code_fingerprint(spec)
    helper.write_text(helper.read_text().replace("[-1]", "[0]"))
    assert code_fingerprint(spec) != before
    sys.modules.pop("bot_helper_beside", None)


def test_a_kaggle_agents_code_files_are_the_file_and_its_helpers(
        agents: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # loading the agent here adds its folder
    spec = parse_spec(f"kaggle:{agents['helper']}")
    assert code_files(spec) == [agents["helper"],
                                agents["helper"].parent / "kaggle_helper_beside.py"]
    assert load_player_class(spec)().playerName() == "with_helper/main"
    sys.modules.pop("kaggle_helper_beside", None)
