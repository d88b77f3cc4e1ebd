"""The `isolation` setting outside the referee: the config key, the `--isolation` flags, the
notice at the start of a run that cannot isolate, and the standings line for such games."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.competition.settings import Isolation
from arena.errors import UsageError
from arena.records import Reason, StoredGame
from arena.referee import sandbox
from arena.results.standings import compute_standings
from arena.tournament.config import load_config
from arena.tournament.run import run_tournament
from tests.helpers import JUDGE, cx_record


def _config(tmp_path: Path, extra: str = "") -> Path:
    p = tmp_path / "cup.yaml"
    p.write_text(textwrap.dedent(f"""\
        players: [L0, L1]
        boards: [[4, 4, 3]]
        timeout_s: 1.0
        workers: 1
        {extra}
        """))
    return p


@pytest.fixture
def cannot_isolate(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine, as one without bubblewrap."""
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.probe.cache_clear()
    yield
    sandbox.probe.cache_clear()


def test_config_key(tmp_path: Path) -> None:
    assert load_config(_config(tmp_path)).play.isolation == "auto"
    assert load_config(_config(tmp_path, "isolation: none")).play.isolation == "none"
    with pytest.raises(UsageError, match=r"cup.yaml: isolation: expected one of auto, "
                                         r"namespaces, none, got 'docker'"):
        load_config(_config(tmp_path, "isolation: docker"))
    # not part of the fingerprint: a rerun with another isolation resumes the same games
    a = load_config(_config(tmp_path))
    assert a.fingerprint() == a.with_play(isolation=Isolation.NONE).fingerprint()


def _rec(isolated: bool | None) -> StoredGame:
    extra = {} if isolated is None else {"isolated": isolated}
    rec = cx_record(M=4, N=4, K=3, p1="a", p2="b", names=("a", "b"), moves=(0, 1, 0),
                     times_ms=(1.0, 1.0, 1.0), winner=None, reason=Reason.DRAW, detail="",
                     seed=1, offender=None, extra=extra)
    return StoredGame(f"g{isolated}", 1, "a", "b", rec)


def test_standings_say_when_entrants_were_not_isolated() -> None:
    clean = compute_standings(["a", "b"], [_rec(True), _rec(None)])
    assert clean.not_isolated == 0
    assert "not isolated" not in clean.to_markdown()
    mixed = compute_standings(["a", "b"], [_rec(True), _rec(False)])
    assert mixed.not_isolated == 1
    assert "entrants were not isolated** in 1 of 2 games" in mixed.to_markdown()


def test_tournament_that_cannot_isolate_says_so(tmp_path: Path, cannot_isolate: None,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    config = load_config(_config(tmp_path))
    outcome = run_tournament(config, tmp_path / "results", quiet=True, judge=JUDGE)
    assert outcome.complete
    err = capsys.readouterr().err
    assert "warning: entrants were not isolated (isolation: auto): bubblewrap" in err
    md = (tmp_path / "results" / "standings.md").read_text()
    assert "entrants were not isolated** in 2 of 2 games" in md
    with pytest.raises(UsageError, match="cannot isolate bots"):
        run_tournament(config.with_play(isolation=Isolation.NAMESPACES),
                       tmp_path / "other", quiet=True, judge=JUDGE)
    assert not (tmp_path / "other").exists()  # refused before anything was written


def test_flags(tmp_path: Path, cannot_isolate: None,
               capsys: pytest.CaptureFixture[str]) -> None:
    base = ["match", "L0", "L0", "--board", "4", "4", "3", "--time", "1", "--games", "1",
            "--json"]
    assert main([*base, "--isolation", "none"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["extra"]["isolated"] is False
    assert "not isolated" not in out.err  # an explicit choice: no warning
    assert main(base) == 0
    assert "warning: entrants were not isolated" in capsys.readouterr().err
    assert main([*base, "--isolation", "namespaces"]) == 2
    assert "cannot isolate bots" in capsys.readouterr().err
    assert main(["check-bot", "L0", "--isolation", "namespaces"]) == 2
    assert main(["tournament", str(_config(tmp_path)), "--isolation", "namespaces",
                 "--results", str(tmp_path / "r")]) == 2
