"""Results stored by the previous version (records of schema 1, whose labels and limits lived in
`extra` and the stored config) still load: the same standings, the labels as fields, the limits
filled in; and a game that started from an opening shows only the moves the bots chose in
`cxarena show` and in the report's move times.

tests/data/schema1 holds a small real tournament (L0, L1, L0 again as L0b; two boards; 2-ply
openings; 0.2 s) played and stored by cxarena before the records described themselves, with
the standings.md it wrote."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.report.data import load_report
from arena.report.html import _payload
from arena.report.show import render_game
from arena.results.folder import code_section, read_standings
from arena.results.store import DB_FILE, ResultStore
from tests.helpers import opening_columns

DATA = Path(__file__).resolve().parent.parent / "data" / "schema1"


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    target = tmp_path / "schema1"
    shutil.copytree(DATA, target)
    return target


def test_stored_results_of_schema_1_give_the_same_standings(results: Path) -> None:
    with ResultStore(results / DB_FILE, create=False) as store:
        standings, meta = read_standings(store)
        md = standings.to_markdown(title=f"Standings: {meta['name']}",
                                   expected_games=meta.get("games")) + code_section(store)
    stored = (DATA / "standings.md").read_text(encoding="utf-8")
    # issue #42 reworded the head-to-head section (the LOS read with the interval); the
    # stored file predates it: everything else is the same text, and the head-to-head rows
    # the same figures, each note now saying first whether the interval includes 0
    assert _without_h2h(md) == _without_h2h(stored)
    new, old = _h2h_rows(md), _h2h_rows(stored)
    assert [r[:6] for r in new] == [r[:6] for r in old] and len(new) == 3
    for n, o in zip(new, old, strict=True):
        assert n[6] == "not significant: the 95% interval includes 0; " + o[6]


def _without_h2h(md: str) -> str:
    start, end = md.index("## Head to head"), md.index("## W-D-L per board")
    return md[:start] + md[end:]


def _h2h_rows(md: str) -> list[list[str]]:
    section = md[md.index("## Head to head"):md.index("## W-D-L per board")]
    rows = [ln for ln in section.splitlines() if ln.startswith("| L")]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in rows]


def test_old_records_get_their_labels_and_limits_as_fields(results: Path) -> None:
    with ResultStore(results / DB_FILE, create=False) as store:
        games = list(store.games())
        assert store.get_meta("schema") == "2"
    assert len(games) == 12
    for g in games:
        rec = g.record
        assert rec.game_id == g.game_id and rec.game_id
        assert (rec.player1, rec.player2) == (g.player1, g.player2)
        assert rec.tournament == "schema1" and rec.round == 1
        assert rec.code1 and rec.code2  # the fingerprints moved out of `extra`
        assert (rec.timeout_s, rec.grace_s) == (0.2, 0.02)  # from the stored config
        assert not {"game_id", "code1", "code2", "player1", "tournament"} & set(rec.extra)
        assert len(opening_columns(rec)) == 2


def test_show_and_report_leave_the_opening_out_of_the_move_times(results: Path) -> None:
    with ResultStore(results / DB_FILE, create=False) as store:
        game = next(g for g in store.games() if g.record.n_moves >= 6)
    rec = game.record
    text = render_game(game)
    chosen1, chosen2 = rec.played_times_ms
    assert len(chosen1) + len(chosen2) == rec.n_moves - 2  # the opening is nobody's
    for seat, (name, times) in enumerate(((game.player1, chosen1), (game.player2, chosen2))):
        mean = sum(times) / len(times)
        line = next(ln for ln in text.splitlines() if ln.strip().startswith(("X", "O"))
                    and f" {name}: " in ln and "move" in ln)
        assert f"{len(times)} move{'s' if len(times) != 1 else ''}, mean {mean:.2f} ms" in line
    assert "opening: " + " ".join(map(str, opening_columns(rec))) in text

    _, times = _payload(load_report(results))
    for player in ("L0", "L1", "L0b"):
        with ResultStore(results / DB_FILE, create=False) as store:
            expected = sum(len(g.record.played_times_ms[0 if g.player1 == player else 1])
                           for g in store.games() if player in (g.player1, g.player2))
        assert len(times[player]) == expected  # one time per move the player chose
