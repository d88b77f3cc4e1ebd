"""What the processes the harness starts most often import: a bot's host (thousands of bot
processes a tournament), the league's server and its check and final processes. Heavy
libraries are imported where they are used (numpy where ratings are fitted, matplotlib where
a report is drawn), never by these on their way up. The CPU this saves is in
docs/testing.md; here, only what is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "matplotlib", "pydantic", "importlib.metadata", "fastapi", "starlette")


def _imported(code: str) -> set[str]:
    probe = (f"{code}\nimport sys\n"
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize(("code", "allowed"), [
    # a Python bot's process: the host, its game (the protocol's dialect), the course's API
    ("import arena.entrants.host, arena.player\nfrom arena.wire import protocol\n"
     "protocol.dialect_game(1)", set()),
    # the league's server: its web framework and settings, not the report's figures
    ("import arena.league.web.app", {"pydantic", "fastapi", "starlette", "importlib.metadata"}),
    # a tournament's run: its settings, not the figures (drawn once the run is over)
    ("import arena.tournament.run", {"pydantic", "importlib.metadata"}),
], ids=["bot-host", "league-server", "tournament"])
def test_a_process_imports_no_heavy_library_it_does_not_use(code: str,
                                                            allowed: set[str]) -> None:
    assert _imported(code) <= allowed
