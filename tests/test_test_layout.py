"""The tests' own layout: a name two test modules share lives in `tests/helpers.py` (or a
`conftest.py`, or a plain helper module such as `tests/tactics.py`), never in a test module that
another one imports, so running, moving or deleting one test file never changes another's.
Checked by reading every module's imports with `ast`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_test_module(dotted: str) -> bool:
    return dotted.rpartition(".")[2].startswith("test_")


def _imported_test_modules(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for each test module that the file at `path` imports from, anywhere."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_test_module(alias.name):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if _is_test_module(module):
                yield node.lineno, module
            for alias in node.names:  # `from tests.players import test_pons`
                if _is_test_module(alias.name):
                    yield node.lineno, f"{module}.{alias.name}"


def _offences(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{line} imports from {module}"
            for path in sorted(root.rglob("*.py"))
            for line, module in _imported_test_modules(path)]


def test_no_module_imports_from_a_test_module() -> None:
    assert _offences(TESTS) == []


def test_the_check_sees_each_form_of_import(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "from tests.players.test_pons import L2\n"
        "import tests.players.test_pons\n"
        "from tests.players import test_pons\n"
        "from .test_b import x\n"
        "def f():\n    from tests.tournament.test_tournament import wait_gone\n")
    (tmp_path / "test_ok.py").write_text(
        "from tests.helpers import JUDGE\nfrom tests.conftest import ROOT\n"
        "from tests.tactics import random_position\nimport pytest\n")
    assert [o.split(" ", 1)[0] for o in _offences(tmp_path)] == [
        "test_a.py:1", "test_a.py:2", "test_a.py:3", "test_a.py:4", "test_a.py:6"]
