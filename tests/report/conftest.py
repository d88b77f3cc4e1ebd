"""A small real tournament for the report tests: L0, L1 and a bot that crashes (zoo), on two
small boards at 0.05 s; played once per test session."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.commands.tournament import run_and_report
from arena.records import StoredGame
from arena.results.store import DB_FILE, ResultStore
from arena.tournament.config import load_config

ZOO = Path(__file__).resolve().parent.parent / "referee" / "zoo"


@dataclass(frozen=True)
class Played:
    results_dir: Path
    output: str  # what the run printed
    games: tuple[StoredGame, ...]

    @property
    def report(self) -> Path:
        return self.results_dir / "report.html"


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    d = tmp_path_factory.mktemp("report")
    cfg = d / "small.yaml"
    cfg.write_text(
        "name: small\n"
        f"players: [L0, L1, {{spec: '{ZOO / 'raise_select.py'}', name: crasher}}]\n"
        "boards: [[4, 4, 4], [5, 6, 4]]\n"
        "timeout_s: 0.05\ngrace_s: 0.02\nrounds: 1\nworkers: 1\nseed: 7\n")
    out = io.StringIO()
    outcome = run_and_report(load_config(cfg), d / "results", quiet=True, out=out)
    assert outcome.complete
    with ResultStore(d / "results" / DB_FILE, create=False) as store:
        games = tuple(store.games())
    return Played(d / "results", out.getvalue(), games)
