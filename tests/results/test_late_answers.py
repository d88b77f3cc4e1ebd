"""Issue #42: `max ms` in the ranking counts the late answers of the games lost on time.

The issue saw "87.9 ms" as a player's max while its 383 ms answers lost games: the ranking took
the max over the moves that were played only. A timeout's late answer is in the record
(`extra["late_ms"]`); where no answer came, the time waited is a lower bound ("> ...")."""

from __future__ import annotations

import math

from arena.records import Reason, StoredGame
from arena.results.standings import compute_standings, late_answer_ms, max_ms_text
from tests.helpers import cx_record

_LIMIT_S = 0.1


def _game(i: int, p1: str, p2: str, winner: int, times_ms: tuple[float, ...],
          reason: Reason = Reason.CONNECT, offender: int | None = None, detail: str = "",
          **extra: object) -> StoredGame:
    rec = cx_record(M=6, N=7, K=4, p1=p1, p2=p2, names=(p1, p2),
                     moves=tuple(i % 7 for i in range(len(times_ms))), times_ms=times_ms,
                     winner=winner, reason=reason, detail=detail, seed=i, offender=offender,
                     extra=dict(extra), timeout_s=_LIMIT_S, grace_s=0.02)
    return StoredGame(f"g{i}", 1, p1, p2, rec)


def _late(elapsed_ms: float, answered: bool) -> tuple[str, dict[str, float]]:
    how = "answered after" if answered else "no answer after"
    return (f"selectColumn (move 3): {how} {elapsed_ms:.1f} ms, over the 100 ms limit by "
            f"{elapsed_ms - 100:.1f} ms (grace 20 ms)",
            {"elapsed": elapsed_ms, "cpu": elapsed_ms, "cpu_wait": 0.0})


def _games() -> list[StoredGame]:
    answered, late1 = _late(383.0, answered=True)
    silent, late2 = _late(170.4, answered=False)
    return [
        # slow plays its moves in at most 87.9 ms, but answered 383 ms late once: lost on time
        _game(1, "slow", "fast", 2, (87.9, 1.0, 50.0), Reason.TIMEOUT, 1, answered,
              late_ms=late1),
        _game(2, "fast", "slow", 1, (1.0, 80.0, 1.0, 87.9)),
        # mute answers in time, except once when nothing came: the referee waited 170.4 ms
        _game(3, "mute", "fast", 2, (20.0, 1.0), Reason.TIMEOUT, 1, silent, late_ms=late2),
        # an old record without the late move's account: the limit is the lower bound
        _game(4, "fast", "old", 1, (1.0, 30.0, 1.0), Reason.TIMEOUT, 2,
              "selectColumn (move 3): no answer"),
    ]


def test_the_max_includes_the_late_answers() -> None:
    st = compute_standings(["slow", "fast", "mute", "old"], _games())
    slow, fast, mute, old = (st.row(p) for p in ("slow", "fast", "mute", "old"))
    assert (slow.max_move_ms, slow.max_move_late, max_ms_text(slow)) == (383.0, "late", "383.0")
    assert (mute.max_move_ms, mute.max_move_late, max_ms_text(mute)) == (170.4, "open",
                                                                       "> 170.4")
    assert (old.max_move_ms, max_ms_text(old)) == (100.0, "> 100.0")
    assert (fast.max_move_ms, fast.max_move_late) == (1.0, "")
    # a player who lost a game on time never shows a max below its limit
    for r in (slow, mute, old):
        assert r.timeouts == 1 and r.max_move_ms >= _LIMIT_S * 1000
    # the mean stays the mean of the moves played
    assert math.isclose(slow.mean_move_ms, (87.9 + 50.0 + 80.0 + 87.9) / 4)


def test_the_markdown_and_csv_show_the_late_max() -> None:
    st = compute_standings(["slow", "fast", "mute", "old"], _games())
    md = st.to_markdown()
    row = next(ln for ln in md.splitlines() if ln.startswith("|") and "| slow " in ln)
    assert "383.0" in row and "87.9 |" not in row
    assert "> 170.4" in next(ln for ln in md.splitlines() if "| mute " in ln)
    assert "they set the max of " in md and "slow (answered after 383.0 ms)" in md
    assert "mute (no answer within 170.4 ms)" in md
    csv_row = next(ln for ln in st.to_csv().splitlines() if ln.split(",")[1] == "slow")
    assert ",383.000," in csv_row


def test_no_late_answer_no_note() -> None:
    st = compute_standings(["fast", "slow"], _games()[1:2])
    assert "late answers" not in st.to_markdown()
    assert st.row("slow").max_move_ms == 87.9


def test_what_a_record_tells_of_its_late_answer() -> None:
    g1, _, g3, g4 = _games()
    assert late_answer_ms(g1.record) == (383.0, True)
    assert late_answer_ms(g3.record) == (170.4, False)
    assert late_answer_ms(g4.record) == (100.0, False)
    wall = _game(5, "a", "b", 2, (1.0,), Reason.TIMEOUT, 1,
                 "selectColumn (move 1): the game's wall-clock limit of 9.0 s passed")
    assert late_answer_ms(wall.record) is None
    assert late_answer_ms(_games()[1].record) is None


def test_the_html_report_shows_the_same_max_and_head_to_head_words() -> None:
    """The report's ranking and head-to-head tables read the standings' own cells (the '>'
    bound, the LOS read with its interval), not figures of their own."""
    from arena.report.html import _pairs_html, _standings_html
    from arena.results.standings import head_to_head_cells

    st = compute_standings(["slow", "fast", "mute", "old"], _games())

    class Data:  # the one field of ReportData these sections read
        standings = st

    ranking = _standings_html(Data())  # type: ignore[arg-type]
    assert "<td>&gt; 170.4</td>" in ranking and "<td>383.0</td>" in ranking
    pairs = _pairs_html(Data())  # type: ignore[arg-type]
    for _, _, e in (x for x in st.estimates if x[2].n):
        for cell in head_to_head_cells(e):
            assert html_escape(cell) in pairs
    assert "not significant" in pairs


def html_escape(text: str) -> str:
    import html

    return html.escape(text)
