"""Kaggle's ConnectX environment file as it comes (issue 51), entered with `kaggle:PATH`: its
last function is an HTML renderer taking no arguments, it holds two agents, and it reads a data
file beside it at import. cxarena names the choice in one line (or plays the one agent when
there is one), and a missing data file is named as missing, not as hidden by the sandbox.

The file is written here in the layout of Kaggle's (its functions and their parameters), with
code of our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

from arena.entrants.probe import check_loadable
from arena.entrants.specs import parse_spec
from arena.onboarding.conformance import run_check, sandbox_hint
from arena.referee.sandbox import resolve

ENVIRONMENT = '''
import json
from os import path
from random import choice


def random_agent(obs, config):
    return choice([c for c in range(config.columns) if obs.board[c] == 0])


def negamax_agent(obs, config):
    free = [c for c in range(config.columns) if obs.board[c] == 0]
    return min(free, key=lambda c: abs(2 * c - (config.columns - 1)))


agents = {"random": random_agent, "negamax": negamax_agent}


def play(board, column, mark, config):
    pass


def interpreter(state, env):
    return state


def renderer(state, env):
    return ""


dirpath = path.dirname(__file__)
with open(path.abspath(path.join(dirpath, "connectx.json"))) as f:
    specification = json.load(f)


def html_renderer():
    return "<canvas></canvas>"
'''


def environment(folder: Path, with_data: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "connectx.py").write_text(textwrap.dedent(ENVIRONMENT).lstrip())
    if with_data:
        (folder / "connectx.json").write_text('{"name": "connectx"}\n')
    return folder / "connectx.py"


def test_the_environment_file_is_named_in_one_line(tmp_path: Path) -> None:
    file = environment(tmp_path / "env")
    spec = parse_spec(f"kaggle:{file}")
    said = check_loadable([spec])[spec.text]
    assert "\n" not in said.strip(), said
    assert (f"the agent would be html_renderer (the last function of connectx.py), which takes "
            f"no arguments; name yours: kaggle:{file}:negamax_agent (agents here, taking "
            f"(observation, configuration): random_agent, negamax_agent)") in said, said
    named = parse_spec(f"kaggle:{file}:negamax_agent")
    assert check_loadable([named]) == {}
    report = run_check(named, boards=[(4, 4, 4)], timeout_s=1.0)
    assert report.passed, report.text()


def test_one_agent_among_other_functions_is_the_one_played(tmp_path: Path) -> None:
    text = (textwrap.dedent(ENVIRONMENT).replace("def random_agent(obs, config)",
                                                 "def _random(board, columns)")
            .replace('"random": random_agent, ', ""))
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "connectx.json").write_text("{}\n")
    (folder / "connectx.py").write_text(text)
    spec = parse_spec(f"kaggle:{folder / 'connectx.py'}")
    assert check_loadable([spec]) == {}


def test_a_missing_data_file_is_named_as_missing(tmp_path: Path) -> None:
    file = environment(tmp_path / "nodata", with_data=False)
    data = tmp_path / "nodata" / "connectx.json"
    text = f"FileNotFoundError: [Errno 2] No such file or directory: '{data}'"
    hint = sandbox_hint(text, [str(file)])
    assert hint.startswith(f"missing: {data} (no such file on this machine"), hint
    # a file that exists outside what the sandbox shows: the sandbox's hint, as before
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    shown = sandbox_hint(f"No such file or directory: '{outside}'", [str(file)])
    assert shown.startswith("the sandbox shows the bot only"), shown
    # the check says so, sandboxed where the machine can
    report = run_check(f"kaggle:{file}:negamax_agent", boards=[(4, 4, 4)], timeout_s=1.0)
    assert not report.passed
    said = report.text()
    assert "connectx.json" in said, said
    if resolve("auto").isolated:
        assert f"missing: {data}" in said and "the sandbox shows" not in said, said
