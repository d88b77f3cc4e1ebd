"""The report page without a browser: self-contained, and its compact game data decodes to the
stored games (including boards wider than 64 columns and labels other parts add to records)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from arena.records import GameRecord, Reason
from arena.report.html import MOVE_ALPHABET, TIME_UNIT_MS, encode_moves, render_report
from arena.results.store import ResultStore
from tests.helpers import board, columns
from tests.report.conftest import Played


def page_data(page: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="cx-data">(.*?)</script>', page, re.S)
    assert m is not None
    return dict(json.loads(m.group(1)))


def decode_moves(s: str, N: int) -> list[int]:
    a = {c: i for i, c in enumerate(MOVE_ALPHABET)}
    if N <= 64:
        return [a[c] for c in s]
    return [a[s[k]] * 64 + a[s[k + 1]] for k in range(0, len(s), 2)]


def test_page_is_self_contained(played: Played) -> None:
    page = played.report.read_text()
    # no external resource of any kind: scripts, styles, images, fonts, frames
    assert not re.search(r'<(script|link|img|iframe)[^>]*\s(src|href)=', page)
    assert "url(" not in page.replace("url(#", "")
    assert "@import" not in page and "fetch(" not in page and "XMLHttpRequest" not in page
    for section in ("standings", "elo", "crosstable", "boardmap", "times", "faults", "games"):
        assert f'id="{section}' in page
    assert page.count("<svg") >= 2  # the Elo and the move-time plots
    # the account of a busy machine, the same words as the commands' (arena.results.fairness)
    assert re.search(r"<dt>busy machine</dt><dd>\d+ late moves? excused .*? timeouts? charged",
                     page)


def test_game_data_matches_the_store(played: Played) -> None:
    d = page_data(played.report.read_text())
    g = d["games"]
    assert g["id"] == [x.game_id for x in played.games]
    for i, sg in enumerate(played.games):
        rec = sg.record
        M, N, K = d["boards"][g["board"][i]]
        assert (M, N, K) == board(rec)
        assert decode_moves(g["moves"][i], N) == list(columns(rec))
        times = [int(x, 36) * TIME_UNIT_MS for x in g["times"][i].split(",") if x]
        assert all(abs(a - b) <= TIME_UNIT_MS for a, b in zip(times, rec.times_ms, strict=True))
        assert d["players"][g["p1"][i]] == sg.player1
        assert d["players"][g["p2"][i]] == sg.player2
        assert d["reasons"][g["reason"][i]] == rec.reason.value
        assert g["winner"][i] == (rec.winner or 0)
        assert g["seed"][i] == rec.seed
    faults = [i for i, sg in enumerate(played.games) if sg.record.is_fault]
    assert d["faults"] == faults and faults
    for i in faults:
        more = d["more"][str(i)]
        assert more["detail"] == played.games[i].record.detail
        assert "crashed" in more["explanation"]
        assert "deliberate failure" in more["stderr"]


def test_wide_boards_encode_two_characters_per_move() -> None:
    moves = [0, 63, 64, 99, 4095]
    assert decode_moves(encode_moves(moves, 4096), 4096) == moves
    assert decode_moves(encode_moves([0, 5, 63], 64), 64) == [0, 5, 63]


def test_labels_are_shown_where_they_belong(tmp_path: Path, played: Played) -> None:
    """The records' label fields reach the page, each where it belongs: the tournament's name
    for the run, code fingerprints per player, the pair and the rest of `extra` per game, and
    the opening in the viewer."""
    db = tmp_path / "games.sqlite"
    with ResultStore(db) as store:
        for n, sg in enumerate(played.games):
            rec = dataclasses.replace(sg.record, opening_texts=sg.record.texts[:1],
                                      pair_id=f"pair-{n // 2}",
                                      extra={**sg.record.extra, "note": f"n{n % 2}"})
            store.add(rec.labelled(tournament="labels", code1=f"c-{sg.player1}",
                                   code2=f"c-{sg.player2}"))
    d = page_data(render_report(tmp_path))
    assert d["run_info"]["tournament"] == "labels"
    assert d["player_info"]["crasher"]["code"] == "c-crasher"  # code1/code2: one per seat
    for i, sg in enumerate(played.games):
        more = d["more"][str(i)]
        if columns(sg.record):  # (a crash before the first move has no opening to show)
            assert more["opening"] == list(columns(sg.record)[:1])
        assert d["label_values"][more["info"]["pair"]] == f"pair-{i // 2}"
        assert d["label_values"][more["info"]["note"]] == f"n{i % 2}"


def test_a_report_of_an_empty_store(tmp_path: Path) -> None:
    with ResultStore(tmp_path / "games.sqlite"):
        pass
    page = render_report(tmp_path)
    assert page_data(page)["games"]["id"] == []


def test_fault_free_draws_and_move_caps_explained(tmp_path: Path, played: Played) -> None:
    sg = next(x for x in played.games if not x.record.is_fault)
    capped = dataclasses.replace(sg.record, reason=Reason.DRAW, winner=None,
                                 detail="stopped at the move cap (3 moves)")
    with ResultStore(tmp_path / "games.sqlite") as store:
        store.add((capped).labelled(game_id=sg.game_id, round=sg.round, player1=sg.player1, player2=sg.player2))
    d = page_data(render_report(tmp_path))
    assert d["more"]["0"]["explanation"] == "Draw: stopped at the move cap (3 moves)."
    assert d["faults"] == []
    assert isinstance(capped, GameRecord)
