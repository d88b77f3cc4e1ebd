"""A record's game, parameters and move texts have one reading (`arena.records.game_of_record`)
for both shapes a record may have: the old Connect-X shape (M, N, K and integer columns, no
`game_params` or texts; tests/data/schema1, stored by an older cxarena) and the neutral shape
(game, game_params, move_texts, opening_texts) every record is written in now (issue 47,
item 4)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from arena.entrants.specs import parse_spec
from arena.games import GAMES, Game, ParamError, make_game
from arena.limits import Limits
from arena.records import (
    GameRecord,
    board_key,
    game_of_record,
    record_fields,
    record_label,
    record_params,
)
from arena.referee.referee import MatchSettings, Referee, course_game

DATA = Path(__file__).resolve().parent.parent / "data" / "schema1"


def _stored_dicts() -> list[dict]:
    """The records of the old folder exactly as stored (JSON, read without the store)."""
    db = sqlite3.connect(f"file:{DATA / 'games.sqlite'}?mode=ro", uri=True)
    try:
        return [json.loads(r) for (r,) in db.execute("SELECT record FROM games")]
    finally:
        db.close()


def _neutral(old: GameRecord, game: Game) -> GameRecord:
    """`old` as the neutral shape alone holds it: no M, N, K, no integer columns; the texts as
    the game writes them (`Game.move_to_text`, replayed from the start)."""
    state, texts = game.initial_state(), []
    for column in old.moves:
        texts.append(game.move_to_text(state, column))
        state = game.apply(state, column)
    return replace(old, M=0, N=0, K=0, moves=(), opening=(), game=game.name,
                   game_params=dict(game.params), move_texts=tuple(texts),
                   opening_texts=tuple(texts[:len(old.opening)]))


def test_the_old_folder_holds_the_old_connectx_shape() -> None:
    stored = _stored_dicts()
    assert len(stored) == 12
    for d in stored:
        assert {"M", "N", "K", "moves", "opening"} <= set(d)
        assert not {"game_params", "move_texts", "opening_texts"} & set(d)
        assert all(isinstance(c, int) for c in d["moves"])


def test_an_old_and_a_new_record_of_the_same_game_read_the_same() -> None:
    boards = set()
    for d in _stored_dicts():
        old = GameRecord.from_dict(d)
        game = make_game("connectx", {"rows": d["M"], "cols": d["N"], "k": d["K"]})
        new = _neutral(old, game)
        both = replace(new, M=old.M, N=old.N, K=old.K, moves=old.moves, opening=old.opening)
        read = [r.recorded() for r in (old, new, both)]
        assert [r.rules for r in read] == [game] * 3
        assert [r.params for r in read] == [{"rows": d["M"], "cols": d["N"], "k": d["K"]}] * 3
        assert [r.texts for r in read] == [new.move_texts] * 3 and len(new.move_texts) >= 2
        assert [r.opening_texts for r in read] == [new.opening_texts] * 3
        assert read[0].texts == tuple(str(c) for c in d["moves"])
        # the record's accessors read through the same migration
        for r in (old, new, both):
            assert (r.rules(), r.texts, r.opening_moves) == (game, new.move_texts,
                                                            new.opening_texts)
            assert r.n_moves == len(d["moves"]) and r.played_times_ms == old.played_times_ms
            assert r.game_label == f"{d['M']}x{d['N']}x{d['K']}"
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


def test_a_new_connectx_record_names_its_game_params_and_texts_and_keeps_the_old_shape() -> None:
    """Written by a real referee: the neutral shape, and beside it the compatibility shape
    (M, N, K and integer columns) that older cxarena versions and the results database read;
    both read back the same."""
    with Referee(MatchSettings(limits=Limits(timeout_s=1.0))) as referee:
        rec = referee.play(parse_spec("L1"), parse_spec("L0"), course_game(4, 5, 3), seed=3,
                           opening=(2, 1))
    game = make_game("connectx", {"rows": 4, "cols": 5, "k": 3})
    assert (rec.game, rec.game_params) == ("connectx", {"rows": 4, "cols": 5, "k": 3})
    assert (rec.M, rec.N, rec.K) == (4, 5, 3)
    assert rec.opening_texts == ("2", "1") and rec.opening == (2, 1)
    assert rec.move_texts == tuple(str(c) for c in rec.moves) and len(rec.moves) >= 5
    state = game.initial_state()  # the texts are the game's own (`move_to_text`)
    for column, text in zip(rec.moves, rec.move_texts, strict=True):
        assert game.move_to_text(state, column) == text
        state = game.apply(state, column)
    old = replace(rec, game_params={}, move_texts=(), opening_texts=())
    assert old.recorded() == rec.recorded()
    assert rec.recorded().texts == rec.move_texts and rec.played_times_ms == old.played_times_ms
    again = GameRecord.from_dict(json.loads(rec.to_json()))
    assert again == rec


def test_the_fields_label_and_board_key_of_each_kind_of_game() -> None:
    cx = make_game("connectx", {"rows": 6, "cols": 7, "k": 4})
    assert record_fields(cx, ("3", "4"), ("3",)) == {
        "game": "connectx", "game_params": {"rows": 6, "cols": 7, "k": 4},
        "move_texts": ("3", "4"), "opening_texts": ("3",),
        "M": 6, "N": 7, "K": 4, "moves": (3, 4), "opening": (3,)}
    assert (record_label(cx), board_key(cx)) == ("6x7x4", (6, 7, 4))
    othello = make_game("othello", {"size": 6})
    assert record_fields(othello, ("c4",), ()) == {
        "game": "othello", "game_params": {"size": 6}, "move_texts": ("c4",),
        "opening_texts": (), "M": 0, "N": 0, "K": 0, "moves": (), "opening": ()}
    assert record_label(othello) == board_key(othello) == "othello size=6"
    for name in GAMES:  # every game's fields read back as the same game
        game = GAMES[name]()
        f = record_fields(game, (), ())
        assert game_of_record(f["game"], f["game_params"], f["M"], f["N"], f["K"], f["moves"],
                              (), f["opening"], ()).rules == game
