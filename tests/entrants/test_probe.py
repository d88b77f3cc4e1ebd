"""`arena.entrants.probe`: loading bots in a subprocess, the one mechanism behind the checks
before a run (`check_loadable`) and `cxarena players` (its listing is tested in
tests/onboarding/test_discovery.py)."""

from __future__ import annotations

from pathlib import Path

from arena.entrants.probe import check_loadable, inspect_target, probe_each, probe_in_turn
from arena.entrants.specs import parse_spec

GOOD = '''
"""A bot that probes well."""
from arena.player import CXPlayer


class Good(CXPlayer):
    def initPlayer(self, M, N, K, first, timeout_in_secs):
        pass

    def selectColumn(self, B):
        return B.getAvailableColumns()[0]

    def playerName(self):
        print("printing is harmless")
        return "Good"
'''


def test_probes_report_each_bot_and_survive_the_bad_ones(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "hangs.py").write_text("import time\ntime.sleep(60)\n")
    (tmp_path / "dies.py").write_text("import os\nos._exit(5)\n")
    (tmp_path / "ctor.py").write_text(GOOD.replace("    def initPlayer",
                                                   "    def __init__(self):\n"
                                                   "        raise KeyError('no')\n\n"
                                                   "    def initPlayer"))
    good, hangs, dies, ctor = (str(tmp_path / f) for f in ("good.py", "hangs.py", "dies.py",
                                                           "ctor.py"))
    each = probe_each([good, hangs, dies, ctor], timeout_s=3.0)
    assert each[good].error is None and each[good].player_name == "Good"
    assert each[good].doc == "A bot that probes well."
    assert each[hangs].error == "did not finish importing within 3 s"
    assert each[dies].error == "exited with status 5 while importing"
    assert each[ctor].error == "fails to instantiate: KeyError: 'no'"
    in_turn = probe_in_turn([dies, good, hangs, ctor, good], each_timeout_s=2.0,
                            startup_timeout_s=30.0)
    assert list(in_turn) == [dies, good, hangs, ctor]
    assert in_turn[dies].error == "importing it ended the process (exit code 5)"
    assert in_turn[hangs].error == "import or playerName() took over 2 s"
    assert in_turn[good].player_name == "Good" and in_turn[ctor].error
    errors = check_loadable([parse_spec(good), parse_spec(hangs)], timeout_s=2.0)
    assert errors == {hangs: f"bot {hangs!r}: did not finish importing within 2 s"}


def test_inspect_target_names_the_fault_without_raising() -> None:
    assert inspect_target("L0").player_name == "L0"
    assert str(inspect_target("no_such_bot_anywhere").error).startswith("unknown bot")
