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

from arena.games import GAMES, Game, ParamError, make_game
from arena.records import GameRecord, game_of_record, record_params

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
