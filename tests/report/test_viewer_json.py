"""One viewer object per game (issue 47, item 3): the report's (packed into its columns and
unpacked again) and the league's are the same object for the same record, built by one
function (`arena.report.viewer_json.viewer_game`); without the reader's own words neither
carries a bot's words (its detail, stderr, illegal answer)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.games import make_game
from arena.league.web.routes.games import viewer_game as league_viewer_game
from arena.records import GameRecord, Reason, StoredGame
from arena.report.data import load_report
from arena.report.html import _payload, write_report
from arena.report.viewer_json import GAME_KEYS, unpack_game, viewer_game
from arena.results.store import ResultStore
from tests.helpers import Page, browser, cx_record  # noqa: F401 (the fixture)

ARENA = Path(__file__).resolve().parents[2] / "arena"
#: a bot's own words: its exception text, its stderr, its illegal answer
WORDS = "<img src=x onerror=alert(1)>__words"
ANSWER = "<b>__answer</b>"


def _othello_texts(n: int) -> tuple[str, ...]:
    rules = make_game("othello", {"size": 6})
    state = rules.initial_state()
    texts = []
    for _ in range(n):
        move = rules.legal_moves(state)[0]
        texts.append(rules.move_to_text(state, move))
        state = rules.apply(state, move)
    return tuple(texts)


def _records() -> list[StoredGame]:
    crash = cx_record(
        M=6, N=7, K=4, p1="a.py", p2="b.py", names=("A", "B"), moves=(3, 3, 2, 4),
        times_ms=(0.0, 1.234, 17.5, 99.99), winner=2, reason=Reason.CRASH,
        detail=f"selectColumn (move 4): ValueError: {WORDS}", seed=11, offender=1,
        stderr_tail=WORDS, init_ms=(12.25, 3.0), opening=(3,), pair_id="pair-1",
        timeout_s=0.1, grace_s=0.01,
        extra={"peak_memory_mb": [81.0, None], "cgroup": "v2", "note": {"k": [1, 2]},
               "excused": [{"machine_ms": 45.0}]})
    illegal = cx_record(
        M=4, N=70, K=4, p1="b.py", p2="a.py", names=("B", "A"), moves=(65, 3),
        times_ms=(2.0, 3.0), winner=1, reason=Reason.ILLEGAL,
        detail=f"selectColumn (move 3): {ANSWER} is not a column", seed=12, offender=2,
        stderr_tail="", timeout_s=0.1, extra={"fault_move": ANSWER, "fault_ply": 3})
    texts = _othello_texts(6)
    othello = GameRecord(
        p1="a.py", p2="b.py", names=("A", "B"),
        times_ms=(0.0, 0.0, 1.5, 2.5, 3.5, 4.5), winner=None, reason=Reason.DRAW,
        detail="", seed=13, game="othello", game_params={"size": 6}, move_texts=texts,
        opening_texts=texts[:2], pair_id="pair-2", timeout_s=0.1)
    normal = cx_record(
        M=6, N=7, K=4, p1="b.py", p2="a.py", names=("B", "A"), moves=(0, 1, 0, 1, 0, 1, 0),
        times_ms=(1.0,) * 7, winner=1, reason=Reason.CONNECT, detail="", seed=14,
        timeout_s=0.1)
    sides = [("alpha", "beta"), ("beta", "alpha"), ("alpha", "beta"), ("beta", "alpha")]
    return [StoredGame(f"g{i}", i + 1, p1, p2, rec)
            for i, (rec, (p1, p2)) in enumerate(zip((crash, illegal, othello, normal), sides,
                                                     strict=True))]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("viewer_json")
    with ResultStore(d / "games.sqlite") as store:
        for g in _records():
            store.add(g.record.labelled(game_id=g.game_id, round=g.round, player1=g.player1,
                                        player2=g.player2))
    return d


def _league_object(g: StoredGame, own_words: bool) -> dict[str, Any]:
    """The league's object for the game (its game page's call), with the report's id and
    round (the league's own id is the row's number, and a league game has no round)."""
    obj = league_viewer_game(g.record, 7, [g.player1, g.player2], own_words=own_words)
    assert obj["id"] == 7 and obj["round"] is None
    return {**obj, "id": g.game_id, "round": g.round}


@pytest.mark.parametrize("own_words", [True, False])
def test_the_reports_game_object_is_the_leagues(results: Path, own_words: bool) -> None:
    data = load_report(results)
    payload, _ = _payload(data, bot_text=own_words)
    payload = json.loads(json.dumps(payload))  # as the page holds it
    games = data.games
    assert payload["games"]["id"] == [g.game_id for g in games]
    for i, g in enumerate(games):
        report = unpack_game(payload, i)
        assert report == _league_object(g, own_words), g.game_id
        assert set(GAME_KEYS) <= set(report)
    by_id = {g.game_id: unpack_game(payload, i) for i, g in enumerate(games)}
    crash, illegal, othello, normal = (by_id[f"g{i}"] for i in range(4))
    # the fault explained, the opening and another game's positions are in the object
    assert crash["opening"] == [3] and othello["opening"] == list(othello["moves"][:2])
    assert othello["game"] == "othello" and len(othello["frames"]) == 7
    assert (crash["M"], crash["N"], crash["K"]) == (6, 7, 4) and illegal["moves"] == [65, 3]
    assert crash["explanation"].startswith("alpha (first player) crashed on move 4")
    assert crash["info"]["pair"] == "pair-1" and crash["info"]["peak memory"] == (
        "81.0 MiB / not measured")
    assert crash["info"]["initPlayer ms"] == "12.2 / 3.0"
    assert crash["info"]["busy machine"].startswith("1 late move excused")
    assert crash["info"]["note"] == {"k": [1, 2]} and crash["times_ms"][1] == 1.23
    assert normal["explanation"] is None and normal["detail"] is None
    assert crash["timeout_ms"] == 100.0 and crash["fault_move"] == 4
    text = json.dumps(payload)
    if own_words:
        assert WORDS in crash["detail"] and crash["stderr"] == WORDS
        assert WORDS in crash["explanation"] and illegal["info"]["fault_move"] == ANSWER
    else:  # the bots' words are nowhere in the page's data, nor in the league's object
        for obj in (crash, illegal, _league_object(games[0], False),
                    _league_object(games[1], False)):
            assert obj["detail"] is None and obj["stderr"] is None, obj["id"]
            assert "fault_move" not in obj["info"]
            assert "__words" not in json.dumps(obj) and "__answer" not in json.dumps(obj)
        assert "__words" not in text and "__answer" not in text
        assert crash["explanation"] == "alpha (first player) crashed on move 4. beta wins."


def test_report_js_unpacks_what_the_builder_packed(browser, results: Path,  # noqa: F811
                                                   tmp_path: Path) -> None:
    """report.js's gameObject (the page's own decoder) gives the builder's objects."""
    page = Page(browser, write_report(results, tmp_path / "report.html"))
    try:
        for g in load_report(results).games:
            shown = page.page.evaluate(f"window.cxReport.game({json.dumps(g.game_id)})")
            shown = {**dict.fromkeys(GAME_KEYS), **shown}
            assert shown == _league_object(g, True), g.game_id
        page.page.evaluate("window.cxReport.openGame('g0')")
        info = page.page.locator("#viewer .cx-info").inner_text()
        assert "pair-1" in info and "100 ms per move" in info and "__words" in info
        assert page.errors() == []
    finally:
        page.page.close()


def test_one_module_builds_the_viewer_object() -> None:
    """Only `arena/report/viewer_json.py` spells the viewer object's keys; the report and the
    league call its `viewer_game`."""
    spelled = {p.relative_to(ARENA).as_posix() for p in ARENA.rglob("*.py")
               if re.search(r'"(explanation|illegal_col|fault_move)"\s*:', p.read_text())}
    assert spelled == {"report/viewer_json.py"}
    builders = {p.relative_to(ARENA).as_posix() for p in ARENA.rglob("*.py")
                if re.search(r"^def viewer_game\b", p.read_text(), re.M)}
    assert builders == {"report/viewer_json.py"}
    callers = {p.relative_to(ARENA).as_posix() for p in ARENA.rglob("*.py")
               if re.search(r"\bviewer_game\(", p.read_text())} - builders
    assert callers == {"report/html.py", "league/web/routes/games.py"}
    assert league_viewer_game is viewer_game
