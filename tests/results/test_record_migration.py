"""A record's game, parameters and move texts have one reading (`arena.records.game_of_record`)
for both shapes a record may have: the old Connect-X shape (M, N, K and integer columns, no
`game_params` or texts; tests/data/schema1, stored by an older cxarena) and the neutral shape
(game, game_params, move_texts, opening_texts) every record is written in now (issue 47,
item 4). `GameRecord.from_dict` reads every shape into the neutral one; a new record's JSON
carries no M, N, K or integer columns."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.games import GAMES, ParamError, make_game
from arena.games.connectx.record import board_and_columns
from arena.limits import Limits
from arena.records import (
    GameRecord,
    RecordedGame,
    board_key,
    game_of_record,
    record_fields,
    record_label,
    record_params,
)
from arena.referee.referee import MatchSettings, Referee, course_game
from arena.results.store import DB_FILE, ResultStore

DATA = Path(__file__).resolve().parent.parent / "data" / "schema1"


def _stored_dicts() -> list[dict]:
    """The records of the old folder exactly as stored (JSON, read without the store)."""
    db = sqlite3.connect(f"file:{DATA / 'games.sqlite'}?mode=ro", uri=True)
    try:
        return [json.loads(r) for (r,) in db.execute("SELECT record FROM games")]
    finally:
        db.close()


#: the keys of the old Connect-X shape, which no record is written with any more
OLD_KEYS = {"M", "N", "K", "moves", "opening"}


def _old_shape(d: dict) -> dict:
    """A record's JSON form `d` (Connect-X) as an older cxarena wrote it: the board in M, N, K
    and the moves and opening as integer columns, no game parameters or texts."""
    old = {k: v for k, v in d.items()
           if k not in ("game_params", "move_texts", "opening_texts")}
    p = d["game_params"]
    old.update(M=p["rows"], N=p["cols"], K=p["k"], moves=[int(t) for t in d["move_texts"]],
               opening=[int(t) for t in d["opening_texts"]])
    return old


def test_the_old_folder_holds_the_old_connectx_shape() -> None:
    stored = _stored_dicts()
    assert len(stored) == 12
    for d in stored:
        assert OLD_KEYS <= set(d)
        assert not {"game_params", "move_texts", "opening_texts"} & set(d)
        assert all(isinstance(c, int) for c in d["moves"])


def test_an_old_and_a_new_record_of_the_same_game_read_the_same() -> None:
    """Each old record of the folder, its neutral JSON (as written now) and the shape written
    between the two (both side by side) read to one record: game, parameters, texts."""
    boards = set()
    for d in _stored_dicts():
        old = GameRecord.from_dict(d)
        game = make_game("connectx", {"rows": d["M"], "cols": d["N"], "k": d["K"]})
        new_d = old.to_dict()
        assert not OLD_KEYS & set(new_d)  # written neutral
        both_d = {**_old_shape(new_d), **new_d}  # the interim shape: both side by side
        read = [GameRecord.from_dict(x) for x in (d, new_d, both_d)]
        assert read == [old] * 3
        state, texts = game.initial_state(), []  # the texts are the game's own
        for column in d["moves"]:
            texts.append(game.move_to_text(state, column))
            state = game.apply(state, column)
        assert old.move_texts == tuple(texts) == tuple(str(c) for c in d["moves"])
        assert old.opening_texts == tuple(str(c) for c in d["opening"])
        assert (old.game, old.game_params) == ("connectx", dict(game.params))
        assert old.recorded() == RecordedGame(game, old.move_texts, old.opening_texts)
        assert old.rules() == game and old.n_moves == len(d["moves"]) >= 2
        assert old.game_label == f"{d['M']}x{d['N']}x{d['K']}"
        assert board_and_columns(old) == (d["M"], d["N"], d["K"], tuple(d["moves"]))
        boards.add(game)
    assert len(boards) == 2  # the folder's two boards


def test_another_games_record_reads_its_params_and_texts() -> None:
    game = make_game("othello", {"size": 6})
    texts = ("c4", "b3", "a2")  # read as stored: the migration does not replay them
    got = game_of_record("othello", {"size": 6}, 0, 0, 0, (), texts, (), texts[:1])
    assert (got.rules, got.texts, got.opening_texts) == (game, texts, texts[:1])


def test_a_game_named_in_neither_shape_is_refused() -> None:
    with pytest.raises(ParamError, match="unknown game"):
        game_of_record("chess", {}, 6, 7, 4, (), (), (), ())
    assert record_params("connectx", 6, 7, 4, {}) == {"rows": 6, "cols": 7, "k": 4}
    assert record_params("connectx", 0, 0, 0, {"rows": 5, "cols": 5, "k": 4}) == {
        "rows": 5, "cols": 5, "k": 4}
    with pytest.raises(ParamError):  # an old record whose board is no board
        game_of_record("connectx", {}, 0, 0, 0, (), (), (), ())
    assert "connectx" in GAMES


def test_a_new_connectx_record_is_neutral_and_reads_back_from_either_shape(
        tmp_path: Path) -> None:
    """Written by a real referee: game, parameters and move texts only (no M, N, K or integer
    columns in its JSON); it round-trips, its old-shape JSON reads to the same record, and the
    results database labels it with its board in M, N, K (0 for another game)."""
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec("L1"), parse_spec("L0"), course_game(4, 5, 3), seed=3,
                           opening=(2, 1))
    game = make_game("connectx", {"rows": 4, "cols": 5, "k": 3})
    assert (rec.game, rec.game_params) == ("connectx", {"rows": 4, "cols": 5, "k": 3})
    assert rec.opening_texts == ("2", "1") and len(rec.move_texts) >= 5
    state = game.initial_state()  # the texts are the game's own (`move_to_text`)
    for text in rec.move_texts:
        column = game.parse_move(state, text)
        assert game.move_to_text(state, column) == text
        state = game.apply(state, column)
    d = json.loads(rec.to_json())
    assert not OLD_KEYS & set(d), sorted(OLD_KEYS & set(d))
    assert GameRecord.from_dict(d) == rec
    old = _old_shape(d)
    assert GameRecord.from_dict(old) == rec  # the old shape reads to the same game
    assert GameRecord.from_dict({k: v for k, v in old.items() if k != "game"}) == rec
    assert board_and_columns(rec) == (4, 5, 3, tuple(int(t) for t in rec.move_texts))
    othello = replace(rec, game="othello", game_params={"size": 6}, move_texts=("c4",),
                      opening_texts=(), times_ms=(1.0,))
    assert board_and_columns(othello) is None
    assert GameRecord.from_dict(json.loads(othello.to_json())) == othello
    with ResultStore(tmp_path / DB_FILE) as store:
        store.add(rec.labelled(game_id="cx", round=1))
        store.add(othello.labelled(game_id="oth", round=1))
        got = dict((g, (m, n, k)) for g, m, n, k in store._db.execute(
            "SELECT game_id, M, N, K FROM games"))
        assert got == {"cx": (4, 5, 3), "oth": (0, 0, 0)}  # labels only
        assert [g.record for g in store.games()] == [rec.labelled(game_id="cx", round=1),
                                                     othello.labelled(game_id="oth", round=1)]


def test_the_fields_label_and_board_key_of_each_kind_of_game() -> None:
    cx = make_game("connectx", {"rows": 6, "cols": 7, "k": 4})
    assert record_fields(cx, ("3", "4"), ("3",)) == {
        "game": "connectx", "game_params": {"rows": 6, "cols": 7, "k": 4},
        "move_texts": ("3", "4"), "opening_texts": ("3",)}
    assert (record_label(cx), board_key(cx)) == ("6x7x4", (6, 7, 4))
    othello = make_game("othello", {"size": 6})
    assert record_fields(othello, ("c4",), ()) == {
        "game": "othello", "game_params": {"size": 6}, "move_texts": ("c4",),
        "opening_texts": ()}
    assert record_label(othello) == board_key(othello) == "othello size=6"
    for name in GAMES:  # every game's fields read back as the same game
        game = GAMES[name]()
        f = record_fields(game, (), ())
        assert game_of_record(f["game"], f["game_params"], 0, 0, 0, (), (), (), ()).rules == game
