"""`Referee.play` takes the game, not a Connect-X board's M, N, K (issue 47, item 4): its
signature has no board parameters, and no call `.play(p1, p2, M, N, K, ...)` with three integer
board arguments comes back in the code or the tests (nor in the scripts tests run in a child
process, held in string literals)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from arena.referee.referee import Referee

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("arena", "bench", "players", "tests")


def board_calls(source: str) -> list[int]:
    """The lines of the calls `<x>.play(...)` whose 3rd to 5th positional arguments are
    integer constants (a board's M, N, K), in `source` and in the string literals of it that
    parse as Python (a child process's script; their line: the literal's)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "play" and len(node.args) >= 5
                and all(isinstance(a, ast.Constant) and type(a.value) is int
                        for a in node.args[2:5])):
            lines.append(node.lineno)
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and ".play(" in node.value):
            try:
                inner = board_calls(textwrap.dedent(node.value))
            except SyntaxError:  # prose, not a script
                continue
            lines += [node.lineno] * len(inner)
    return lines


def test_the_scan_finds_the_old_call() -> None:
    old = "rec = referee.play(l0, l1, 6, 7, 4, seed=1)\nx.play('3')\n"
    new = "rec = referee.play(l0, l1, course_game(6, 7, 4), seed=1)\n"
    assert board_calls(old) == [1] and board_calls(new) == []
    script = f"code = (\n    'import sys\\n'\n    {old!r}\n)\n"  # a child's script
    assert board_calls(script) == [2] and board_calls(f"code = {new!r}\n") == []


def test_no_play_call_passes_a_board() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}"
             for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py"))
             if path != Path(__file__).resolve()  # its examples of the old call
             for line in board_calls(path.read_text(encoding="utf-8"))]
    assert found == []


def test_referee_play_takes_the_game_not_the_board() -> None:
    params = inspect.signature(Referee.play).parameters
    assert not {"M", "N", "K", "opening_texts"} & set(params)
    assert list(params)[:5] == ["self", "p1", "p2", "game", "seed"]
