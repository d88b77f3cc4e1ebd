"""Each bot's peak memory in a game (measured in its cgroup, `extra["peak_memory_mb"]`) is shown
beside the move times: in `show`, in the report's viewer and on the league's game page."""

from __future__ import annotations

from arena.league.web.routes.games import viewer_game
from arena.records import GameRecord, Reason, StoredGame
from arena.report.show import peak_memory_text, render_game
from tests.helpers import cx_record


def _rec(extra: dict) -> GameRecord:
    return cx_record(M=4, N=4, K=3, p1="a", p2="b", names=("a", "b"), moves=(0, 1, 0, 1, 0),
                      times_ms=(1.0,) * 5, winner=1, reason=Reason.CONNECT, detail="", seed=1,
                      extra=extra)


def test_peak_memory_in_show_and_the_league_page() -> None:
    rec = _rec({"peak_memory_mb": [81.04, None], "cgroup": "v1"})
    assert peak_memory_text(rec.extra) == ("81.0 MiB", "not measured")
    out = render_game(StoredGame("g", 1, "alpha", "beta", rec))
    assert "peak memory: X alpha 81.0 MiB, O beta not measured" in out
    assert viewer_game(rec, 7)["info"]["peak memory"] == "81.0 MiB / not measured"


def test_no_peak_memory_without_a_measure() -> None:
    rec = _rec({})
    assert peak_memory_text(rec.extra) is None
    assert "peak memory" not in render_game(StoredGame("g", 1, "alpha", "beta", rec))
    assert "peak memory" not in viewer_game(rec, 7)["info"]
