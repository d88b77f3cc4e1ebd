"""Code similarity (arena.similarity.code) on real bots: disguised copies of built-ins are
flagged, the built-ins among themselves are not, one Java pair and one Python pair."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from arena.similarity.code import (
    SourceFile,
    compare_code,
    fingerprint,
    sources_in,
    sources_of_spec,
)
from tests.conftest import ROOT
from tests.similarity.disguise import disguise

BUILTINS = ["L0", "L1", "alphabeta", "minimax", "mcts", "montecarlo"]
DATA = Path(__file__).resolve().parent / "data"


def _code(spec: str):  # type: ignore[no-untyped-def]
    return fingerprint(spec, sources_of_spec(spec))


@pytest.mark.parametrize("name", ["mcts", "L1", "montecarlo"])
def test_a_disguised_copy_of_a_builtin_is_flagged(name: str, tmp_path: Path) -> None:
    original = (ROOT / "players" / f"{name}.py").read_text()
    copy = tmp_path / "my_bot.py"
    copy.write_text(disguise(original))
    assert copy.read_text() != original
    compile(copy.read_text(), str(copy), "exec")  # still Python
    m = compare_code(_code(name), fingerprint("copy", sources_in(copy)))
    assert m.flagged, m
    assert m.score >= 0.8
    assert m.regions_a and m.regions_b
    assert all(r.file == f"{name}.py" for r in m.regions_a)
    assert all(r.file == "my_bot.py" for r in m.regions_b)


def test_the_builtins_among_themselves_are_not_flagged() -> None:
    codes = [_code(name) for name in BUILTINS]
    flagged = [(a.label, b.label, compare_code(a, b).score)
               for a, b in itertools.combinations(codes, 2) if compare_code(a, b).flagged]
    assert flagged == []


def test_a_renamed_java_copy_is_flagged_and_the_api_is_boilerplate() -> None:
    blocker = _code(f"java:{ROOT / 'examples' / 'java' / 'connectx' / 'Blocker'}")
    stopper = _code(f"java:{DATA / 'java' / 'Stopper'}:connectx.Stopper.Stopper")
    assert blocker.language == stopper.language == "java"
    m = compare_code(blocker, stopper)
    assert m.flagged, m
    # the course API itself scores nothing against a bot that implements it
    api = fingerprint("api", sources_in(ROOT / "arena" / "entrants" / "java" / "connectx"))
    assert api.tokens < 0.05 * len(api.text)  # only where one file's end meets the next
    assert not compare_code(api, blocker).flagged


def test_a_python_pair_through_sibling_modules(tmp_path: Path) -> None:
    """A Kaggle agent's helpers come with it: a copy that renamed them is still found, and an
    unrelated Python bot is not."""
    main = (ROOT / "examples" / "kaggle" / "main.py").read_text()
    helpers = (ROOT / "examples" / "kaggle" / "helpers.py").read_text()
    (tmp_path / "agent.py").write_text(disguise(main.replace("helpers", "tools")))
    (tmp_path / "tools.py").write_text(disguise(helpers))
    original = _code(f"kaggle:{ROOT / 'examples' / 'kaggle' / 'main.py'}")
    assert [f.name for f in original.files] == ["helpers.py", "main.py"]
    copy = _code(f"kaggle:{tmp_path / 'agent.py'}:my_agent")
    assert [f.name for f in copy.files] == ["agent.py", "tools.py"]
    assert compare_code(original, copy).flagged
    assert not compare_code(original, _code("L1")).flagged


def test_two_bots_from_the_template_share_nothing_for_it() -> None:
    template = (ROOT / "arena" / "onboarding" / "templates" / "bot.py.tmpl").read_text()
    a = template.format(name="ann", cls="Ann")
    b = template.format(name="bob", cls="Bob").replace("centre-most", "middle")
    ca = fingerprint("a", [SourceFile("a.py", a)])
    cb = fingerprint("b", [SourceFile("b.py", b)])
    m = compare_code(ca, cb)
    assert not m.flagged
    assert m.overlap == 0


def test_no_sources_is_said_not_scored() -> None:
    m = compare_code(fingerprint("x", []), _code("L1"))
    assert not m.scored and not m.flagged and "no sources" in m.note
