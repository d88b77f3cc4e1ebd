"""Issue #33, words and figures: `show` names whose initPlayer time is whose; the HTML report
states the cxarena version once."""

from __future__ import annotations

from arena.records import Reason, StoredGame
from arena.report.show import render_game
from tests.helpers import cx_record
from tests.report.conftest import Played


def test_show_names_the_player_of_each_init_time() -> None:
    rec = cx_record(M=4, N=4, K=4, p1="a", p2="b", names=("a", "b"), moves=(0, 1, 0, 1),
                     times_ms=(1.0, 2.0, 1.0, 2.0), winner=None, reason=Reason.DRAW,
                     detail="", seed=1, init_ms=(0.47, 6.08))
    out = render_game(StoredGame("g1", 1, "mcts", "L1", rec))
    line = next(x for x in out.splitlines() if "initPlayer" in x)
    assert "mcts" in line and "L1" in line, line
    assert line.index("0.47 ms") < line.index("6.08 ms")
    assert line.index("mcts") < line.index("0.47") < line.index("L1") < line.index("6.08"), line


def test_the_report_states_the_version_once(played: Played) -> None:
    page = played.report.read_text(encoding="utf-8")
    assert page.count("<dt>version</dt>") == 1, page.count("<dt>version</dt>")
